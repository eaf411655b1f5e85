//! Office documents saved as one XML file: Word 2003 XML (`w:wordDocument`), Word's flat OPC
//! package (`pkg:package` holding `/word/document.xml`, "Word XML Document" since 2007) and
//! Excel 2003 XML (SpreadsheetML, a `Workbook` of `Worksheet`s).
//!
//! The generic walk showed them as data: every font, style and rsid as a `name: value` line
//! and the text as loose leaves. Here they read as the documents they are. Word: paragraphs
//! with bold, italic and links; headings from the paragraph's style (`heading N`, `Title`) or
//! its outline level; list paragraphs (`w:listPr` in 2003, `w:numPr` since 2007) as nested
//! lists, numbered when the numbering's label or format is a number; tables with column spans;
//! headers first and footers last; footnotes and comments (with their author) as notes; text
//! boxes after their paragraph; deleted text and field codes left out, as the DOCX converter
//! reads the same content. Excel: a heading per sheet and a
//! table of its rows (`ss:Index` gaps and `ss:MergeAcross` kept in place), numbers with at
//! most 15 significant digits and dates without a midnight time. The JSON `data` tree keeps
//! every element either way.

use crate::render::Renderer;
use crate::tree::{fold, Element};
use quire_plugin_api::{Block, Cell, Inline, List, ListItem, Result, Style, Table};
use std::collections::HashMap;

/// Which office vocabulary a root element is, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Office {
    Word2003,
    FlatWord,
    Excel2003,
}

pub fn kind(root: &Element<'_>) -> Option<Office> {
    match root.local() {
        "wordDocument" => Some(Office::Word2003),
        "package" if part(root, "/word/document.xml").is_some() => Some(Office::FlatWord),
        "Workbook" if root.elements().any(|e| e.local() == "Worksheet") => Some(Office::Excel2003),
        _ => None,
    }
}

pub fn render(r: &mut Renderer<'_>, root: &Element<'_>, kind: Office) -> Result<()> {
    match kind {
        Office::Excel2003 => crate::excel2003::workbook(r, root),
        Office::Word2003 => {
            let styles = child(root, "styles").map(Styles::read).unwrap_or_default();
            if let Some(title) = child(root, "DocumentProperties")
                .and_then(|p| child(p, "Title"))
                .map(|t| t.folded_text().into_owned())
                .filter(|t| !t.is_empty())
            {
                r.title = Some(title);
            }
            let mut w = Word::new(styles, HashMap::new(), Numbering::default());
            if let Some(body) = child(root, "body") {
                // headers and footers stand in each section's properties
                let mut sections = Vec::new();
                find(body, "sectPr", &mut sections);
                let mut footers = Vec::new();
                for s in &sections {
                    for hf in s.elements() {
                        match hf.local() {
                            "hdr" => w.blocks(r, hf)?,
                            "ftr" => footers.push(hf),
                            _ => {}
                        }
                    }
                }
                w.blocks(r, body)?;
                for f in footers {
                    w.blocks(r, f)?;
                }
            }
            w.finish(r);
            Ok(())
        }
        Office::FlatWord => {
            let data = |name: &str| part(root, name).and_then(|p| p.elements().next());
            let styles = data("/word/styles.xml")
                .map(Styles::read)
                .unwrap_or_default();
            let numbering = data("/word/numbering.xml")
                .map(Numbering::read)
                .unwrap_or_default();
            let links = data("/word/_rels/document.xml.rels")
                .map(relationships)
                .unwrap_or_default();
            let mut w = Word::new(styles, links, numbering);
            for (kind, name) in [
                ("footnote", "/word/footnotes.xml"),
                ("endnote", "/word/endnotes.xml"),
            ] {
                if let Some(notes) = data(name) {
                    for n in notes.elements().filter(|n| n.local() == kind) {
                        if let Some(id) = n.attr("id") {
                            w.note_bodies.insert((kind, id.to_owned()), n);
                        }
                    }
                }
            }
            if let Some(comments) = data("/word/comments.xml") {
                for c in comments.elements().filter(|c| c.local() == "comment") {
                    if let Some(id) = c.attr("id") {
                        w.comment_bodies.insert(id.to_owned(), c);
                    }
                }
            }
            if let Some(body) = data("/word/document.xml").and_then(|d| child(d, "body")) {
                // headers and footers are parts named by each section's references
                let mut sections = Vec::new();
                find(body, "sectPr", &mut sections);
                let mut headers = Vec::new();
                let mut footers = Vec::new();
                for s in &sections {
                    for reference in s.elements() {
                        let list = match reference.local() {
                            "headerReference" => &mut headers,
                            "footerReference" => &mut footers,
                            _ => continue,
                        };
                        let target = reference.attr("id").and_then(|id| w.links.get(id));
                        if let Some(target) = target {
                            let name = match target.strip_prefix('/') {
                                Some(abs) => format!("/{abs}"),
                                None => format!("/word/{target}"),
                            };
                            if let Some(part) = data(&name) {
                                list.push(part);
                            }
                        }
                    }
                }
                for h in headers {
                    w.blocks(r, h)?;
                }
                w.blocks(r, body)?;
                for f in footers {
                    w.blocks(r, f)?;
                }
            }
            w.finish(r);
            Ok(())
        }
    }
}

/// The XML content of a flat OPC package's part `name` (`pkg:part/pkg:xmlData`).
fn part<'e, 'a>(root: &'e Element<'a>, name: &str) -> Option<&'e Element<'a>> {
    root.elements()
        .find(|p| p.local() == "part" && p.attr("name") == Some(name))
        .and_then(|p| child(p, "xmlData"))
}

pub(crate) fn child<'e, 'a>(el: &'e Element<'a>, local: &str) -> Option<&'e Element<'a>> {
    el.elements().find(|c| c.local() == local)
}

/// An on/off property (`<w:b/>`, `<w:b w:val="off"/>`).
fn on(el: Option<&Element<'_>>) -> bool {
    el.is_some_and(|e| !matches!(e.attr("val"), Some("off" | "0" | "false" | "none")))
}

/// Paragraph style ids to what they make a paragraph: a heading level, list membership.
#[derive(Default)]
struct Styles {
    heading: HashMap<String, u8>,
    list: HashMap<String, ListRef>,
}

impl Styles {
    fn read(styles: &Element<'_>) -> Styles {
        let mut out = Styles::default();
        for s in styles.elements().filter(|s| s.local() == "style") {
            let Some(id) = s.attr("styleId") else {
                continue;
            };
            let name = child(s, "name")
                .and_then(|n| n.attr("val"))
                .unwrap_or(id)
                .to_ascii_lowercase();
            let ppr = child(s, "pPr");
            let outline = ppr
                .and_then(|p| child(p, "outlineLvl"))
                .and_then(|o| o.attr("val"))
                .and_then(|v| v.parse::<u8>().ok())
                .filter(|l| *l < 9);
            let level = match name.strip_prefix("heading ").map(str::trim) {
                Some(n) => n.parse::<u8>().ok().filter(|l| (1..=9).contains(l)),
                None if name == "title" => Some(1),
                None => outline.map(|l| l + 1),
            };
            if let Some(level) = level {
                out.heading.insert(id.to_owned(), level.min(6));
            }
            if let Some(list) = ppr.and_then(ListRef::read) {
                out.list.insert(id.to_owned(), list);
            }
        }
        out
    }
}

/// A paragraph's list membership: its numbering id, level and, in Word 2003, its label.
#[derive(Clone, Default)]
struct ListRef {
    id: String,
    level: usize,
    label: Option<String>,
}

impl ListRef {
    fn read(ppr: &Element<'_>) -> Option<ListRef> {
        let props = child(ppr, "listPr").or_else(|| child(ppr, "numPr"))?;
        let id = child(props, "ilfo")
            .or_else(|| child(props, "numId"))
            .and_then(|e| e.attr("val"))?;
        if id == "0" {
            return None;
        }
        let level = child(props, "ilvl")
            .and_then(|e| e.attr("val"))
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0)
            .min(8);
        let label = child(props, "t")
            .and_then(|t| t.attr("val"))
            .map(str::to_owned);
        Some(ListRef {
            id: id.to_owned(),
            level,
            label,
        })
    }
}

/// Since Word 2007: which (numbering id, level) pairs count (`w:numFmt` other than bullet).
#[derive(Default)]
struct Numbering {
    ordered: HashMap<(String, usize), bool>,
}

impl Numbering {
    fn read(numbering: &Element<'_>) -> Numbering {
        let mut abstracts: HashMap<&str, Vec<bool>> = HashMap::new();
        for a in numbering.elements().filter(|a| a.local() == "abstractNum") {
            let Some(id) = a.attr("abstractNumId") else {
                continue;
            };
            let levels = a
                .elements()
                .filter(|l| l.local() == "lvl")
                .map(|l| {
                    let fmt = child(l, "numFmt").and_then(|f| f.attr("val")).unwrap_or("");
                    !matches!(fmt, "bullet" | "none" | "")
                })
                .collect();
            abstracts.insert(id, levels);
        }
        let mut out = Numbering::default();
        for n in numbering.elements().filter(|n| n.local() == "num") {
            let (Some(id), Some(levels)) = (
                n.attr("numId"),
                child(n, "abstractNumId")
                    .and_then(|a| a.attr("val"))
                    .and_then(|a| abstracts.get(a)),
            ) else {
                continue;
            };
            for (level, ordered) in levels.iter().enumerate() {
                out.ordered.insert((id.to_owned(), level), *ordered);
            }
        }
        out
    }
}

/// Relationship ids to targets (a package's `.rels` part).
fn relationships(rels: &Element<'_>) -> HashMap<String, String> {
    rels.elements()
        .filter_map(|r| Some((r.attr("Id")?.to_owned(), r.attr("Target")?.to_owned())))
        .collect()
}

/// A list paragraph waiting for the rest of its list.
struct PendingItem {
    level: usize,
    ordered: bool,
    blocks: Vec<Block>,
}

struct Word<'e, 'a> {
    styles: Styles,
    links: HashMap<String, String>,
    numbering: Numbering,
    /// Flat OPC footnote and endnote bodies by (kind, id), comments by id.
    note_bodies: HashMap<(&'static str, String), &'e Element<'a>>,
    comment_bodies: HashMap<String, &'e Element<'a>>,
    comments: usize,
    footnotes: usize,
    notes: Vec<Block>,
    items: Vec<PendingItem>,
}

impl<'e, 'a> Word<'e, 'a> {
    fn new(styles: Styles, links: HashMap<String, String>, numbering: Numbering) -> Self {
        Word {
            styles,
            links,
            numbering,
            note_bodies: HashMap::new(),
            comment_bodies: HashMap::new(),
            comments: 0,
            footnotes: 0,
            notes: Vec::new(),
            items: Vec::new(),
        }
    }

    fn finish(&mut self, r: &mut Renderer<'_>) {
        self.flush_list(r);
        for n in std::mem::take(&mut self.notes) {
            r.push(n);
        }
    }

    /// Renders a block container: a body, a section, a cell, a text box, a content control.
    fn blocks(&mut self, r: &mut Renderer<'_>, el: &Element<'_>) -> Result<()> {
        for c in el.elements() {
            r.tick()?;
            match c.local() {
                "p" => self.paragraph(r, c)?,
                "tbl" => {
                    self.flush_list(r);
                    if let Some(t) = self.table(c) {
                        r.push(Block::Table(t));
                    }
                }
                "sectPr" | "del" | "moveFrom" => {}
                "annotation" if deletion(c) => {}
                _ => self.blocks(r, c)?,
            }
        }
        Ok(())
    }

    fn paragraph(&mut self, r: &mut Renderer<'_>, p: &Element<'_>) -> Result<()> {
        let ppr = child(p, "pPr");
        let style = ppr
            .and_then(|p| child(p, "pStyle"))
            .and_then(|s| s.attr("val"))
            .unwrap_or("");
        let mut inlines = Vec::new();
        let mut boxes = Vec::new();
        self.inlines(p, Style::PLAIN, &mut inlines, &mut boxes);
        trim(&mut inlines);
        let outline = ppr
            .and_then(|p| child(p, "outlineLvl"))
            .and_then(|o| o.attr("val"))
            .and_then(|v| v.parse::<u8>().ok())
            .filter(|l| *l < 9)
            .map(|l| (l + 1).min(6));
        let heading = outline.or_else(|| self.styles.heading.get(style).copied());
        let list = ppr
            .and_then(ListRef::read)
            .or_else(|| self.styles.list.get(style).cloned());
        if !inlines.is_empty() {
            match (heading, list) {
                (Some(level), _) => {
                    self.flush_list(r);
                    r.push(Block::Heading {
                        level,
                        content: strip_styles(inlines),
                    });
                }
                (None, Some(list)) => {
                    let ordered = match &list.label {
                        Some(label) => label.chars().any(char::is_alphanumeric),
                        None => self
                            .numbering
                            .ordered
                            .get(&(list.id.clone(), list.level))
                            .copied()
                            .unwrap_or(false),
                    };
                    self.items.push(PendingItem {
                        level: list.level,
                        ordered,
                        blocks: vec![Block::Paragraph(inlines)],
                    });
                }
                (None, None) => {
                    self.flush_list(r);
                    r.push(Block::Paragraph(inlines));
                }
            }
        }
        for b in boxes {
            self.blocks(r, b)?;
        }
        Ok(())
    }

    /// The runs of a paragraph (or of a link, a field, an inserted range) into `out`; text
    /// boxes met on the way go to `boxes`, to be read after the paragraph.
    fn inlines<'x>(
        &mut self,
        el: &'x Element<'x>,
        style: Style,
        out: &mut Vec<Inline>,
        boxes: &mut Vec<&'x Element<'x>>,
    ) {
        for c in el.elements() {
            match c.local() {
                "r" => self.run(c, style, out, boxes),
                "hlink" | "hyperlink" => {
                    let href = c
                        .attr("dest")
                        .map(str::to_owned)
                        .or_else(|| c.attr("id").and_then(|id| self.links.get(id)).cloned())
                        .or_else(|| c.attr("anchor").map(|a| format!("#{a}")));
                    let mut content = Vec::new();
                    self.inlines(c, style, &mut content, boxes);
                    match href {
                        Some(href) if !content.is_empty() => {
                            out.push(Inline::link(href, None, content))
                        }
                        _ => out.extend(content),
                    }
                }
                "pPr" | "del" | "moveFrom" | "proofErr" | "bookmarkStart" | "bookmarkEnd" => {}
                // Word 2003: a comment's paragraphs stand where it is anchored, in the
                // paragraph or inside a run of its own
                "annotation" if c.attr("type") == Some("Word.Comment") => {
                    self.annotation_comment(c, out)
                }
                "annotation" if deletion(c) || comment(c) => {}
                _ => self.inlines(c, style, out, boxes),
            }
        }
    }

    fn run<'x>(
        &mut self,
        run: &'x Element<'x>,
        style: Style,
        out: &mut Vec<Inline>,
        boxes: &mut Vec<&'x Element<'x>>,
    ) {
        let rpr = child(run, "rPr");
        if rpr.is_some_and(|p| on(child(p, "vanish"))) {
            return;
        }
        let style = match rpr {
            Some(p) => Style {
                bold: style.bold || on(child(p, "b")),
                italic: style.italic || on(child(p, "i")),
                strike: style.strike || on(child(p, "strike")) || on(child(p, "dstrike")),
            },
            None => style,
        };
        for c in run.elements() {
            match c.local() {
                "t" => push_text(out, &c.text(), style),
                "tab" => push_text(out, "\t", style),
                "br" | "cr" if c.attr("type").is_none_or(|t| t == "textWrapping") => {
                    out.push(Inline::Break)
                }
                "noBreakHyphen" => push_text(out, "-", style),
                "footnote" | "endnote" => {
                    // Word 2003: the note's paragraphs stand inside the run
                    self.footnotes += 1;
                    let label = self.footnotes.to_string();
                    out.push(Inline::NoteRef(label.clone()));
                    self.notes.push(note(label, c));
                }
                kind @ ("footnoteReference" | "endnoteReference") => {
                    let key = if kind == "footnoteReference" {
                        "footnote"
                    } else {
                        "endnote"
                    };
                    let body = c
                        .attr("id")
                        .and_then(|id| self.note_bodies.get(&(key, id.to_owned())))
                        .copied();
                    if let Some(body) = body {
                        self.footnotes += 1;
                        let label = self.footnotes.to_string();
                        out.push(Inline::NoteRef(label.clone()));
                        self.notes.push(note(label, body));
                    }
                }
                "annotation" if c.attr("type") == Some("Word.Comment") => {
                    self.annotation_comment(c, out)
                }
                "commentReference" => {
                    let body = c
                        .attr("id")
                        .and_then(|id| self.comment_bodies.get(id))
                        .copied();
                    if let Some(body) = body {
                        let author = body.attr("author").unwrap_or("").to_owned();
                        self.comment(&author, body, out);
                    }
                }
                "txbxContent" => boxes.push(c),
                "rPr" | "delText" | "instrText" | "fldChar" | "binData" => {}
                _ => {
                    // drawings and pictures: only their text boxes are read
                    collect_boxes(c, boxes);
                }
            }
        }
    }

    /// A Word 2003 comment (`aml:annotation` of type `Word.Comment`) as a note.
    fn annotation_comment(&mut self, c: &Element<'_>, out: &mut Vec<Inline>) {
        let author = c.attr("author").unwrap_or("").to_owned();
        if let Some(content) = child(c, "content") {
            self.comment(&author, content, out);
        }
    }

    /// A comment as a note labelled `cN` where it is anchored, its author before its text.
    fn comment(&mut self, author: &str, body: &Element<'_>, out: &mut Vec<Inline>) {
        let mut ps = Vec::new();
        paragraphs(body, &mut ps);
        let text: Vec<String> = ps
            .into_iter()
            .map(words_of)
            .filter(|t| !t.is_empty())
            .collect();
        if text.is_empty() {
            return;
        }
        self.comments += 1;
        let label = format!("c{}", self.comments);
        out.push(Inline::NoteRef(label.clone()));
        let text = text.join(" ");
        let text = if author.is_empty() {
            text
        } else {
            format!("{author}: {text}")
        };
        self.notes.push(Block::Note {
            label,
            blocks: vec![Block::text(text)],
        });
    }

    fn table(&mut self, tbl: &Element<'_>) -> Option<Table> {
        let mut rows = Vec::new();
        let mut header_rows = 0;
        for tr in tbl.elements().filter(|e| e.local() == "tr") {
            if child(tr, "trPr").is_some_and(|p| child(p, "del").is_some()) {
                continue;
            }
            let mut row = Vec::new();
            for tc in tr.elements().filter(|e| e.local() == "tc") {
                let props = child(tc, "tcPr");
                let span = props
                    .and_then(|p| child(p, "gridSpan"))
                    .and_then(|g| g.attr("val"))
                    .and_then(|v| v.parse::<u32>().ok())
                    .unwrap_or(1)
                    .clamp(1, 64);
                let mut content: Vec<Inline> = Vec::new();
                let mut ps = Vec::new();
                paragraphs(tc, &mut ps);
                for p in ps {
                    let mut inl = Vec::new();
                    let mut boxes = Vec::new();
                    self.inlines(p, Style::PLAIN, &mut inl, &mut boxes);
                    trim(&mut inl);
                    if inl.is_empty() {
                        continue;
                    }
                    if !content.is_empty() {
                        content.push(Inline::Break);
                    }
                    content.extend(inl);
                }
                let mut cell = Cell::new(content);
                cell.colspan = span;
                row.push(cell);
            }
            if rows.is_empty() && child(tr, "trPr").is_some_and(|p| on(child(p, "tblHeader"))) {
                header_rows = 1;
            }
            if !row.is_empty() {
                rows.push(row);
            }
        }
        (!rows.is_empty()).then_some(Table { header_rows, rows })
    }

    fn flush_list(&mut self, r: &mut Renderer<'_>) {
        if self.items.is_empty() {
            return;
        }
        let items = std::mem::take(&mut self.items);
        let base = items.iter().map(|i| i.level).min().unwrap_or(0);
        let mut iter = items.into_iter().peekable();
        for block in nest(&mut iter, base) {
            r.push(block);
        }
    }
}

/// Lists from consecutive items at `level` and deeper: an item deeper than its predecessor
/// opens a list inside that predecessor; a change of numbering kind at one level starts a
/// new list.
fn nest(
    items: &mut std::iter::Peekable<impl Iterator<Item = PendingItem>>,
    level: usize,
) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    while let Some(next) = items.peek().map(|i| i.level) {
        if next < level {
            break;
        }
        if next > level {
            let inner = nest(items, next);
            match out.last_mut() {
                Some(Block::List(list)) => {
                    if let Some(last) = list.items.last_mut() {
                        last.blocks.extend(inner);
                    }
                }
                _ => out.extend(inner),
            }
            continue;
        }
        let item = items.next().expect("peeked");
        let item_block = ListItem {
            blocks: item.blocks,
            checked: None,
        };
        match out.last_mut() {
            Some(Block::List(list)) if list.ordered == item.ordered => list.items.push(item_block),
            _ => out.push(Block::List(List {
                ordered: item.ordered,
                start: 1,
                items: vec![item_block],
            })),
        }
    }
    out
}

/// Every descendant named `local`, in document order (not looking inside a match).
fn find<'x, 'a>(el: &'x Element<'a>, local: &str, out: &mut Vec<&'x Element<'a>>) {
    for c in el.elements() {
        if c.local() == local {
            out.push(c);
        } else {
            find(c, local, out);
        }
    }
}

/// `aml:annotation` of a deleted range (Word 2003's tracked deletion).
fn deletion(el: &Element<'_>) -> bool {
    el.attr("type") == Some("Word.Deletion")
}

/// `aml:annotation` of a comment or bookmark: not the document's text.
fn comment(el: &Element<'_>) -> bool {
    matches!(
        el.attr("type"),
        Some("Word.Comment" | "Word.Comment.Start" | "Word.Comment.End")
    )
}

/// Paragraphs of a cell, nested tables' paragraphs in reading order.
fn paragraphs<'x, 'a>(el: &'x Element<'a>, out: &mut Vec<&'x Element<'a>>) {
    for c in el.elements() {
        match c.local() {
            "p" => out.push(c),
            "tcPr" | "del" | "moveFrom" => {}
            _ => paragraphs(c, out),
        }
    }
}

fn collect_boxes<'x>(el: &'x Element<'x>, boxes: &mut Vec<&'x Element<'x>>) {
    // AlternateContent holds the same drawing twice (a shape and its VML fallback)
    if el.local() == "AlternateContent" {
        if let Some(choice) = el.elements().next() {
            collect_boxes(choice, boxes);
        }
        return;
    }
    for c in el.elements() {
        if c.local() == "txbxContent" {
            boxes.push(c);
        } else {
            collect_boxes(c, boxes);
        }
    }
}

fn note(label: String, body: &Element<'_>) -> Block {
    let mut ps = Vec::new();
    paragraphs(body, &mut ps);
    let mut blocks = Vec::new();
    for p in ps {
        let text = words_of(p);
        if !text.is_empty() {
            blocks.push(Block::text(text));
        }
    }
    Block::Note { label, blocks }
}

/// A paragraph's visible text, plain (note bodies).
fn words_of(p: &Element<'_>) -> String {
    fn walk(el: &Element<'_>, out: &mut String) {
        for c in el.elements() {
            match c.local() {
                "t" => out.push_str(&c.text()),
                "tab" => out.push(' '),
                "delText" | "instrText" | "del" | "rPr" | "pPr" | "footnoteRef" | "endnoteRef" => {}
                "annotation" if deletion(c) || comment(c) => {}
                _ => walk(c, out),
            }
        }
    }
    let mut s = String::new();
    walk(p, &mut s);
    fold(&s).into_owned()
}

fn push_text(out: &mut Vec<Inline>, text: &str, style: Style) {
    if text.is_empty() {
        return;
    }
    if let Some(Inline::Text {
        text: prev,
        style: s,
    }) = out.last_mut()
    {
        if *s == style {
            prev.push_str(text);
            return;
        }
    }
    out.push(Inline::styled(text, style));
}

/// Drops leading and trailing whitespace and breaks of a paragraph's runs.
fn trim(inlines: &mut Vec<Inline>) {
    while matches!(inlines.last(), Some(Inline::Break)) {
        inlines.pop();
    }
    while matches!(inlines.first(), Some(Inline::Break)) {
        inlines.remove(0);
    }
    if let Some(Inline::Text { text, .. }) = inlines.first_mut() {
        let t = text.trim_start().to_owned();
        *text = t;
    }
    if let Some(Inline::Text { text, .. }) = inlines.last_mut() {
        let t = text.trim_end().to_owned();
        *text = t;
    }
    inlines.retain(|i| !matches!(i, Inline::Text { text, .. } if text.is_empty()));
    if inlines
        .iter()
        .all(|i| matches!(i, Inline::Break | Inline::Text { .. }) && inline_blank(i))
    {
        inlines.clear();
    }
}

fn inline_blank(i: &Inline) -> bool {
    match i {
        Inline::Text { text, .. } => text.trim().is_empty(),
        Inline::Break => true,
        _ => false,
    }
}

/// A heading's runs without character styles (a heading style is bold already).
fn strip_styles(inlines: Vec<Inline>) -> Vec<Inline> {
    inlines
        .into_iter()
        .map(|i| match i {
            Inline::Text { text, .. } => Inline::plain(text),
            other => other,
        })
        .collect()
}

/// Rows to a table: empty rows and columns dropped, the first row the header.
pub(crate) fn grid_table(grid: Vec<Vec<String>>) -> Option<Table> {
    let width = grid.iter().map(Vec::len).max().unwrap_or(0);
    let used: Vec<bool> = (0..width)
        .map(|c| grid.iter().any(|r| r.get(c).is_some_and(|v| !v.is_empty())))
        .collect();
    let rows: Vec<Vec<Cell>> = grid
        .into_iter()
        .filter(|r| r.iter().any(|v| !v.is_empty()))
        .map(|r| {
            (0..width)
                .filter(|c| used[*c])
                .map(|c| Cell::text(r.get(c).cloned().unwrap_or_default()))
                .collect()
        })
        .collect();
    (!rows.is_empty()).then_some(Table {
        header_rows: 1,
        rows,
    })
}
