//! From the parsed [`Item`]s to the document model: headings, lists, tables.
//!
//! Decisions made here, in document order so numbering counters match Word:
//! - a paragraph is a heading when its style (or a style it is based on) is a heading or
//!   Title, or when it has an outline level; a numbered heading keeps its number as text
//!   ("1.2 Scope");
//! - list paragraphs become nested [`List`]s by level; a paragraph of another list
//!   definition nests by indent instead, since levels of different lists do not compare
//!   (Word's "List Bullet 2" style is level 0 of a list of its own, indented a step
//!   further than "List Bullet"). A plain decimal `N.` list is an
//!   ordered list (Markdown renumbers it identically); any other label (`a)`, `iv.`,
//!   `1.2.3.`) is kept as text at the start of the item of an unordered list, because
//!   Markdown cannot express it and readers quote those labels;
//! - table cells hold inlines only, so a cell's paragraphs are joined by line breaks, list
//!   labels are written out and a nested table (or a chart's table) is flattened row by row
//!   (`a | b`);
//! - a chart becomes its `Chart: <title>` line and its table of cached values
//!   ([`quire_ooxml::chart`]), as in PPTX and XLSX; a SmartArt diagram a bulleted list of
//!   its texts ([`quire_ooxml::diagram`]), as in PPTX;
//! - a paragraph holding nothing but pictures becomes image blocks.

use crate::body::{CellIr, Item, Para, TableIr, VMerge};
use crate::numbering::{Label, LabelKind, Numbering};
use crate::styles::Styles;
use quire_plugin_api::tables::split_joined;
use quire_plugin_api::{lists, Block, Cell, Inline, List, ListItem, Table};

pub(crate) struct Builder<'a> {
    pub styles: &'a Styles,
    pub numbering: &'a mut Numbering,
    pub paragraphs: usize,
    pub tables: usize,
}

struct Open {
    place: Place,
    list: List,
    next: i64,
}

/// Where a list paragraph sits: its list definition, level and indent.
#[derive(Clone)]
struct Place {
    list: String,
    level: u8,
    indent: Option<i64>,
}

impl Place {
    fn of(label: &Label) -> Place {
        Place {
            list: label.list.clone(),
            level: label.level,
            indent: label.indent,
        }
    }

    /// How deep `self` sits against `other` ([`lists::depth_cmp`]).
    fn depth_cmp(&self, other: &Place) -> std::cmp::Ordering {
        lists::depth_cmp(
            (&self.list, self.level, self.indent),
            (&other.list, other.level, other.indent),
        )
    }
}

#[derive(Default)]
struct Lists {
    stack: Vec<Open>,
}

impl Lists {
    fn attach(&mut self, done: Open, out: &mut Vec<Block>) {
        match self.stack.last_mut() {
            Some(parent) => {
                if parent.list.items.is_empty() {
                    parent.list.items.push(ListItem::default());
                }
                if let Some(item) = parent.list.items.last_mut() {
                    item.blocks.push(Block::List(done.list));
                }
            }
            None => out.push(Block::List(done.list)),
        }
    }

    /// A paragraph indented at least as far as an open list's items is a further paragraph
    /// of that list's last item (Word's "List Continue" styles): it is taken out of `para`,
    /// and lists deeper than its indent close.
    fn continue_item(&mut self, indent: i64, para: &mut Option<Vec<Inline>>, out: &mut Vec<Block>) {
        let Some(k) = self.stack.iter().rposition(|t| {
            t.place
                .indent
                .is_some_and(|i| i < indent + lists::INDENT_STEP_TWIPS)
        }) else {
            return;
        };
        if self.stack[k].list.items.is_empty() {
            return;
        }
        while self.stack.len() > k + 1 {
            if let Some(done) = self.stack.pop() {
                self.attach(done, out);
            }
        }
        if let (Some(item), Some(content)) = (self.stack[k].list.items.last_mut(), para.take()) {
            item.blocks.push(Block::Paragraph(content));
        }
    }

    fn flush(&mut self, out: &mut Vec<Block>) {
        while let Some(done) = self.stack.pop() {
            self.attach(done, out);
        }
    }

    fn push(&mut self, label: &Label, content: Vec<Inline>, out: &mut Vec<Block>) {
        let place = Place::of(label);
        let (ordered, value) = match label.kind {
            LabelKind::Ordered { value, plain: true } => (true, value),
            _ => (false, 0),
        };
        while self
            .stack
            .last()
            .is_some_and(|t| t.place.depth_cmp(&place).is_gt())
        {
            if let Some(done) = self.stack.pop() {
                self.attach(done, out);
            }
        }
        if let Some(top) = self.stack.last() {
            if top.place.depth_cmp(&place).is_eq()
                && (top.list.ordered != ordered || (ordered && top.next != value))
            {
                if let Some(done) = self.stack.pop() {
                    self.attach(done, out);
                }
            }
        }
        if self
            .stack
            .last()
            .is_none_or(|t| t.place.depth_cmp(&place).is_lt())
        {
            self.stack.push(Open {
                place,
                list: List {
                    ordered,
                    start: if ordered { value.max(0) as u64 } else { 1 },
                    items: Vec::new(),
                },
                next: value,
            });
        }
        if let Some(top) = self.stack.last_mut() {
            top.list.items.push(ListItem {
                blocks: vec![Block::Paragraph(content)],
                checked: None,
            });
            top.next = value + 1;
        }
    }
}

/// Trims whitespace at the edges of a run sequence.
fn trim(mut inlines: Vec<Inline>) -> Vec<Inline> {
    while let Some(Inline::Text { text, .. }) = inlines.first_mut() {
        let t = text.trim_start();
        if t.is_empty() {
            inlines.remove(0);
        } else {
            *text = t.to_owned();
            break;
        }
    }
    while matches!(inlines.first(), Some(Inline::Break)) {
        inlines.remove(0);
    }
    loop {
        match inlines.last_mut() {
            Some(Inline::Text { text, .. }) => {
                let t = text.trim_end();
                if t.is_empty() {
                    inlines.pop();
                } else {
                    let n = t.len();
                    text.truncate(n);
                    break;
                }
            }
            Some(Inline::Break) => {
                inlines.pop();
            }
            _ => break,
        }
    }
    inlines
}

/// A multi-level heading number reads "1.2 Scope", not "1.2. Scope".
fn heading_number(label: &str) -> String {
    let t = label.trim();
    match t.strip_suffix('.') {
        Some(inner) if inner.contains('.') => inner.to_owned(),
        _ => t.to_owned(),
    }
}

fn only_images(inlines: &[Inline]) -> bool {
    !inlines.is_empty() && inlines.iter().all(|i| matches!(i, Inline::Image(_)))
}

fn prefix(label: &str, mut content: Vec<Inline>) -> Vec<Inline> {
    if label.is_empty() {
        return content;
    }
    content.insert(0, Inline::plain(format!("{label} ")));
    content
}

/// Plain text of inlines (for headers, word counts and tests).
pub(crate) fn inline_text(inlines: &[Inline], out: &mut String) {
    for i in inlines {
        match i {
            Inline::Text { text, .. }
            | Inline::Lines { text }
            | Inline::Code(text)
            | Inline::Math { tex: text, .. } => out.push_str(text),
            Inline::Link(link) => inline_text(&link.content, out),
            Inline::Break => out.push('\n'),
            Inline::Image(img) => {
                if let Some(t) = &img.ocr_text {
                    out.push_str(t);
                }
            }
            Inline::NoteRef(_) => {}
        }
    }
}

impl Builder<'_> {
    fn label(&mut self, p: &Para) -> Option<Label> {
        let from_style = self.styles.numbering(p.style.as_deref());
        let num_id = p
            .num_id
            .clone()
            .or_else(|| from_style.as_ref().map(|(id, _)| id.clone()))?;
        if num_id == "0" {
            return None;
        }
        let ilvl = p
            .ilvl
            .or_else(|| from_style.and_then(|(_, l)| l))
            .unwrap_or(0);
        self.numbering.next(&num_id, ilvl)
    }

    pub(crate) fn blocks(&mut self, items: Vec<Item>) -> Vec<Block> {
        let mut out = Vec::new();
        let mut lists = Lists::default();
        for item in items {
            match item {
                Item::Para(p) => self.para(p, &mut out, &mut lists),
                Item::Table(t) => {
                    lists.flush(&mut out);
                    let table = self.table(t);
                    if !table.rows.is_empty() {
                        // tables Word or LibreOffice joined, parted again
                        out.extend(split_joined(table).into_iter().map(Block::Table));
                    }
                }
                Item::Chart(chart) => {
                    lists.flush(&mut out);
                    out.extend(chart.blocks());
                }
                Item::Diagram(texts) => {
                    lists.flush(&mut out);
                    out.extend(quire_ooxml::diagram::to_list(texts));
                }
                Item::Blocks(blocks) => {
                    lists.flush(&mut out);
                    out.extend(blocks);
                }
            }
        }
        lists.flush(&mut out);
        out
    }

    fn para(&mut self, p: Para, out: &mut Vec<Block>, lists: &mut Lists) {
        let label = self.label(&p);
        let heading = self.styles.heading_level(p.style.as_deref(), p.outline);
        let after = p.after;
        let inlines = trim(p.inlines);
        if !inlines.is_empty() {
            self.paragraphs += 1;
            match (heading, label) {
                (Some(level), label) => {
                    lists.flush(out);
                    let text = label
                        .filter(|l| l.kind != LabelKind::Bullet)
                        .map(|l| heading_number(&l.text))
                        .unwrap_or_default();
                    out.push(Block::Heading {
                        level: level.clamp(1, 6),
                        content: prefix(&text, inlines),
                    });
                }
                (None, Some(label)) => {
                    let content = match label.kind {
                        LabelKind::Ordered { plain: false, .. } => prefix(&label.text, inlines),
                        _ => inlines,
                    };
                    lists.push(&label, content, out);
                }
                (None, None) => {
                    if only_images(&inlines) {
                        lists.flush(out);
                        out.extend(inlines.into_iter().filter_map(|i| match i {
                            Inline::Image(img) => Some(Block::Image(img)),
                            _ => None,
                        }));
                    } else {
                        let indent = p.indent.or_else(|| self.styles.indent(p.style.as_deref()));
                        let mut para = Some(inlines);
                        if let Some(i) = indent.filter(|&i| i > 0) {
                            lists.continue_item(i, &mut para, out);
                        }
                        if let Some(inlines) = para {
                            lists.flush(out);
                            out.push(Block::Paragraph(inlines));
                        }
                    }
                }
            }
        }
        if !after.is_empty() {
            lists.flush(out);
            let blocks = self.blocks(after);
            out.extend(blocks);
        }
    }

    fn table(&mut self, t: TableIr) -> Table {
        self.tables += 1;
        let header_rows = t.rows.iter().take_while(|r| r.header).count();
        let mut rows: Vec<Vec<Cell>> = Vec::with_capacity(t.rows.len());
        // Per grid column: the (row, cell) a vertical merge started at.
        let mut origin: Vec<Option<(usize, usize)>> = Vec::new();
        for row in t.rows {
            let ri = rows.len();
            let mut cells = Vec::with_capacity(row.cells.len());
            let mut col = 0usize;
            if row.grid_before > 0 {
                cells.push(Cell {
                    content: Vec::new(),
                    colspan: row.grid_before,
                    rowspan: 1,
                });
                col += row.grid_before as usize;
            }
            for c in row.cells {
                let span = c.span.max(1);
                if origin.len() < col + span as usize {
                    origin.resize(col + span as usize, None);
                }
                if c.vmerge == VMerge::Continue {
                    if let Some((r0, c0)) = origin[col] {
                        if let Some(o) = rows.get_mut(r0).and_then(|r| r.get_mut(c0)) {
                            if o.colspan == span {
                                o.rowspan += 1;
                                col += span as usize;
                                continue;
                            }
                        }
                    }
                }
                let content = self.cell_inlines(c.items);
                for o in &mut origin[col..col + span as usize] {
                    *o = None;
                }
                if c.vmerge == VMerge::Restart {
                    origin[col] = Some((ri, cells.len()));
                }
                cells.push(Cell {
                    content,
                    colspan: span,
                    rowspan: 1,
                });
                col += span as usize;
            }
            rows.push(cells);
        }
        Table { header_rows, rows }
    }

    fn cell_inlines(&mut self, items: Vec<Item>) -> Vec<Inline> {
        let mut out = Vec::new();
        self.flatten(items, &mut out);
        out
    }

    fn flatten(&mut self, items: Vec<Item>, out: &mut Vec<Inline>) {
        for item in items {
            match item {
                Item::Para(p) => {
                    let label = self.label(&p);
                    let after = p.after;
                    let inlines = trim(p.inlines);
                    if !inlines.is_empty() {
                        self.paragraphs += 1;
                        if !out.is_empty() {
                            out.push(Inline::Break);
                        }
                        match label {
                            Some(Label {
                                kind: LabelKind::Bullet,
                                ..
                            }) => out.push(Inline::plain("• ")),
                            Some(l) if !l.text.is_empty() => {
                                out.push(Inline::plain(format!("{} ", l.text)))
                            }
                            _ => {}
                        }
                        out.extend(inlines);
                    }
                    self.flatten(after, out);
                }
                Item::Table(t) => {
                    for row in t.rows {
                        let cells: Vec<Vec<Inline>> = row
                            .cells
                            .into_iter()
                            .map(|c: CellIr| self.cell_inlines(c.items))
                            .collect();
                        flat_row(cells, out);
                    }
                }
                Item::Diagram(texts) => {
                    for (_, t) in texts {
                        if !out.is_empty() {
                            out.push(Inline::Break);
                        }
                        out.push(Inline::plain(format!("• {t}")));
                    }
                }
                Item::Blocks(blocks) => {
                    for block in blocks {
                        let mut text = String::new();
                        blocks_text(std::slice::from_ref(&block), &mut text);
                        let text = text.trim();
                        if !text.is_empty() {
                            flat_row(vec![vec![Inline::plain(text)]], out);
                        }
                    }
                }
                Item::Chart(chart) => {
                    for block in chart.blocks() {
                        match block {
                            Block::Paragraph(label) => flat_row(vec![label], out),
                            Block::Table(t) => {
                                for row in t.rows {
                                    flat_row(row.into_iter().map(|c| c.content).collect(), out);
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }
}

/// One row of a table flattened into a cell: a line of its own, non-empty cells joined by
/// ` | `, line breaks inside them as spaces.
fn flat_row(cells: Vec<Vec<Inline>>, out: &mut Vec<Inline>) {
    let cells: Vec<Vec<Inline>> = cells
        .into_iter()
        .filter(|c| c.iter().any(|i| !is_blank(i)))
        .collect();
    if cells.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push(Inline::Break);
    }
    for (i, c) in cells.into_iter().enumerate() {
        if i > 0 {
            out.push(Inline::plain(" | "));
        }
        out.extend(c.into_iter().map(|i| match i {
            Inline::Break => Inline::plain(" "),
            other => other,
        }));
    }
}

fn is_blank(inline: &Inline) -> bool {
    matches!(inline, Inline::Text { text, .. } if text.trim().is_empty())
}

/// Plain text of blocks, one line per paragraph, cell or item.
pub(crate) fn blocks_text(blocks: &[Block], out: &mut String) {
    for b in blocks {
        match b {
            Block::Heading { content, .. } | Block::Paragraph(content) => inline_text(content, out),
            Block::List(list) => {
                for item in &list.items {
                    blocks_text(&item.blocks, out);
                }
            }
            Block::Table(t) => {
                for row in &t.rows {
                    for cell in row {
                        inline_text(&cell.content, out);
                        out.push('\n');
                    }
                }
            }
            Block::Image(img) => {
                if let Some(t) = &img.ocr_text {
                    out.push_str(t);
                }
            }
            Block::Code { text, .. } => out.push_str(text),
            Block::Quote(inner) | Block::Note { blocks: inner, .. } => blocks_text(inner, out),
            Block::Grid(_) | Block::Rule => {}
        }
        out.push('\n');
    }
}
