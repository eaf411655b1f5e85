//! The readable Markdown view of an XML tree, as document-model blocks.
//!
//! Document-like XML (JATS, patents, DocBook, XHTML, RSS) and data XML share one walk:
//! - a title-like child (`title`, `article-title`, `heading`, …) is a heading of its parent;
//!   levels follow the nesting of elements that own a title, and everything after the first
//!   title's owner sits one level below it (so an article title is `#`, its sections `##`);
//! - an element with text of its own (mixed content) is a paragraph of inline runs, split
//!   where a list or table sits inside it;
//! - `table` with `tr`/`td`, CALS `row`/`entry` or TEI `row`/`cell` is a table, after the
//!   caption it holds itself (`title`, `caption`, `head`); `list`/`ul`/`ol` a list;
//! - citations and MathML are flattened into one paragraph;
//! - a leaf element with a prose name (`p`, `para`, `description`…) is a paragraph, any other
//!   leaf a `name: value` list item; sibling records with only leaf children (`<country>`
//!   with `<name>`, `<capital>`) form a table; other data containers nest as lists;
//! - text that is escaped HTML (RSS descriptions) is reduced to plain paragraphs.
//! - an XBRL instance is rendered by `xbrl.rs`: its facts as a table.
//!
//! Whether the document reads as a document or as data is decided once, for the whole tree
//! ([`is_document`]): when prose (mixed content, prose-named leaves, escaped HTML) holds more
//! of its text than data leaves do, it is a document, and its data
//! leaves read as text too: a leaf's text is a paragraph without its element's name, a data
//! container's leaves join into one paragraph ("John MacFarlane" from `<firstname>` and
//! `<surname>`), and empty elements (whose attributes are markup: `<milestone unit=…/>`,
//! `<graphic href=…/>`) add nothing. Data XML keeps the `name: value` lists and tables; the
//! JSON `data` tree keeps every element and attribute either way.

use crate::inline::{flatten, flatten_child, html_paragraphs, Runs};
use crate::names;
use crate::table;
use crate::tree::{Element, Node};
use quire_plugin_api::{Block, Cell, Inline, List, ListItem, Result, Style, Table};

pub struct Renderer<'c> {
    out: Vec<Block>,
    /// Consecutive `name: value` items waiting to become one list.
    pending: Vec<ListItem>,
    /// 1 once the element owning the document's first heading has been left.
    offset: u8,
    first_heading_seen: bool,
    /// A section number (`<label>`) waiting for the heading it belongs to.
    label: Option<String>,
    pub title: Option<String>,
    check: &'c mut dyn FnMut() -> Result<()>,
    visited: u32,
    /// The document reads as text: data leaves without their names ([`is_document`]).
    document: bool,
}

impl<'c> Renderer<'c> {
    pub fn new(check: &'c mut dyn FnMut() -> Result<()>, document: bool) -> Self {
        Renderer {
            document,
            out: Vec::new(),
            pending: Vec::new(),
            offset: 0,
            first_heading_seen: false,
            label: None,
            title: None,
            check,
            visited: 0,
        }
    }

    pub fn finish(mut self) -> (Vec<Block>, Option<String>) {
        self.flush();
        (self.out, self.title)
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            self.out.push(Block::List(List {
                ordered: false,
                start: 1,
                items: std::mem::take(&mut self.pending),
            }));
        }
    }

    pub fn push(&mut self, block: Block) {
        self.flush();
        self.out.push(block);
    }

    /// Counts one element visited; every 2,048th checks the job's deadline and cancellation.
    pub fn tick(&mut self) -> Result<()> {
        self.visited += 1;
        if self.visited.is_multiple_of(2048) {
            (self.check)()?;
        }
        Ok(())
    }

    /// Renders `el` as a block (or blocks) at heading `level`.
    pub fn element(&mut self, el: &Element<'_>, level: u8) -> Result<()> {
        self.tick()?;
        if el.is(names::NOT_SHOWN) {
            return Ok(());
        }
        if el.is_heading() {
            return self.heading(el, level);
        }
        if el.is(names::TABLE) {
            if let Some(caption) = table::caption(el) {
                self.push(Block::Paragraph(caption));
            }
            if let Some(t) = table::build(el) {
                self.push(Block::Table(t));
            }
            return Ok(());
        }
        if el.is(names::LIST) {
            return self.list(el, level);
        }
        if el.is(names::FLAT) {
            let mut runs = Runs::default();
            flatten(el, false, Style::PLAIN, &mut runs);
            if runs.has_text() {
                self.push(Block::Paragraph(runs.finish()));
            }
            return Ok(());
        }
        if el.is_leaf() {
            return self.leaf(el);
        }
        if el.has_text || el.is(names::PROSE) && inline_only(el) {
            // A paragraph of formatted words only (`<para><emphasis>a</emphasis>
            // <emphasis>b</emphasis></para>`, pandoc's DocBook) is one paragraph too.
            return self.mixed(el, level);
        }
        if let Some(t) = records_table(el) {
            self.push(Block::Table(t));
            return Ok(());
        }
        if el.data {
            if self.document {
                if same_named_children(el) {
                    // a set of records (`<classifications>` of `<classification>`s): a
                    // paragraph each, not one line of every record's values
                    for c in el.elements() {
                        self.element(c, level)?;
                    }
                    return Ok(());
                }
                let mut words = Vec::new();
                leaf_texts(el, &mut words);
                if !words.is_empty() {
                    self.push(Block::text(words.join(" ")));
                }
                return Ok(());
            }
            let item = data_item(el);
            self.pending.push(item);
            return Ok(());
        }
        self.container(el, level)
    }

    fn container(&mut self, el: &Element<'_>, level: u8) -> Result<()> {
        if el.local() == "caption" {
            // A caption's title labels a figure or table; it is not a section heading.
            for c in el.elements() {
                if c.is(names::TITLE) {
                    let mut runs = Runs::default();
                    flatten(c, false, Style::BOLD, &mut runs);
                    if runs.has_text() {
                        self.push(Block::Paragraph(runs.finish()));
                    }
                } else {
                    self.element(c, level)?;
                }
            }
            return Ok(());
        }
        let owns_title = el.elements().any(|c| c.is_heading());
        let seen_before = self.first_heading_seen;
        let child_level = if owns_title {
            level.saturating_add(1)
        } else {
            level
        };
        let kids: Vec<&Element<'_>> = el.elements().collect();
        for (i, &c) in kids.iter().enumerate() {
            let is_title = |e: &Element<'_>| e.is_heading();
            if is_title(c) {
                self.element(c, level)?;
            } else if c.local() == "label"
                && c.is_leaf()
                && kids.get(i + 1).is_some_and(|n| is_title(n))
            {
                // `<label>2.1.</label><title>Setup</title>` reads as one heading, "2.1. Setup".
                let text = c.folded_text();
                if !text.is_empty() {
                    self.label = Some(text.into_owned());
                }
            } else {
                let before = self.first_heading_seen;
                self.element(c, child_level)?;
                // The first title's owner put what follows one level below it (a document
                // title above its sections), unless it is one of a run of same-named sections
                // (`<section>`s after an empty `<info><title/>`): they are peers.
                let owns = |e: &Element<'_>| e.elements().any(|t| t.is_heading());
                if !before
                    && self.first_heading_seen
                    && owns(c)
                    && kids[i + 1..]
                        .iter()
                        .any(|n| n.local() == c.local() && owns(n))
                {
                    self.offset = 0;
                }
            }
        }
        if owns_title && !seen_before && self.first_heading_seen {
            self.offset = 1;
        }
        Ok(())
    }

    fn heading(&mut self, el: &Element<'_>, level: u8) -> Result<()> {
        let mut runs = Runs::default();
        flatten(el, false, Style::PLAIN, &mut runs);
        if !runs.has_text() {
            return Ok(());
        }
        let mut content = runs.finish();
        if let Some(label) = self.label.take() {
            content.insert(0, Inline::plain(format!("{label} ")));
        }
        if self.title.is_none() {
            let t = el.folded_text();
            if !t.is_empty() {
                self.title = Some(t.into_owned());
            }
        }
        self.first_heading_seen = true;
        let level = level.saturating_add(self.offset).clamp(1, 6);
        self.push(Block::Heading { level, content });
        Ok(())
    }

    /// Mixed content: one paragraph, split where a list or table sits inside.
    fn mixed(&mut self, el: &Element<'_>, level: u8) -> Result<()> {
        let mut runs = Runs::default();
        for child in &el.children {
            match child {
                Node::Element(c) if c.is(names::BLOCK_IN_PARAGRAPH) => {
                    if runs.has_text() {
                        self.push(Block::Paragraph(std::mem::take(&mut runs).finish()));
                    }
                    runs = Runs::default();
                    self.element(c, level)?;
                }
                _ => flatten_child(child, true, el.is(names::SUP), Style::PLAIN, &mut runs),
            }
        }
        if runs.has_text() {
            self.push(Block::Paragraph(runs.finish()));
        }
        Ok(())
    }

    fn leaf(&mut self, el: &Element<'_>) -> Result<()> {
        let text = el.folded_text();
        if text.is_empty() {
            if self.document {
                return Ok(());
            }
            // An empty element is worth a line only when an attribute says something
            // (`<link href=…/>`), not when it merely points elsewhere (`<xref rid=…/>`).
            if el.attrs.iter().any(|(k, _)| !is_reference_attr(k)) {
                let item = data_item(el);
                self.pending.push(item);
            }
            return Ok(());
        }
        if el.html {
            for p in html_paragraphs(&text) {
                self.push(Block::text(p));
            }
            return Ok(());
        }
        if el.is(names::PROSE) || self.document {
            self.push(Block::text(text.into_owned()));
        } else {
            let item = data_item(el);
            self.pending.push(item);
        }
        Ok(())
    }

    fn list(&mut self, el: &Element<'_>, level: u8) -> Result<()> {
        let ordered = el.local() == "ol"
            || el.local() == "orderedlist"
            || matches!(
                el.attr("list-type"),
                Some(
                    "order"
                        | "ordered"
                        | "alpha-lower"
                        | "alpha-upper"
                        | "roman-lower"
                        | "roman-upper"
                )
            );
        // Whether the list says how its items are marked; then an item's own `<label>`
        // (JATS writes "A)" or "5." into each item) is that marker, not text.
        let typed = ordered
            || matches!(el.local(), "ul" | "itemizedlist")
            || el.attr("list-type") == Some("bullet");
        let mut start = el
            .attr("startingnumber")
            .and_then(|n| n.trim().parse::<u64>().ok());
        let mut items = Vec::new();
        for c in el.elements() {
            if c.is(names::TITLE) {
                self.element(c, level)?;
                continue;
            }
            let saved_out = std::mem::take(&mut self.out);
            let saved_pending = std::mem::take(&mut self.pending);
            let mut label = None;
            let rendered = if c.is(names::LIST_ITEM) && c.is_leaf() {
                let text = c.folded_text().into_owned();
                if !text.is_empty() {
                    self.out.push(Block::text(text));
                }
                Ok(())
            } else if c.is(names::LIST_ITEM) && !c.has_text {
                let mut kids = c.elements().peekable();
                if let Some(l) = kids.next_if(|k| k.local() == "label" && k.is_leaf()) {
                    label = Some(l.folded_text().into_owned()).filter(|t| !t.is_empty());
                }
                kids.try_for_each(|cc| self.element(cc, level))
            } else {
                self.element(c, level)
            };
            self.flush();
            let mut blocks = std::mem::replace(&mut self.out, saved_out);
            self.pending = saved_pending;
            rendered?;
            match label {
                // the first item's number is where an ordered list starts
                Some(l) if typed && items.is_empty() && ordered && start.is_none() => {
                    start = l
                        .trim_matches(|c: char| !c.is_ascii_digit())
                        .parse::<u64>()
                        .ok()
                        .filter(|_| {
                            l.trim_start_matches('(')
                                .starts_with(|c: char| c.is_ascii_digit())
                        });
                }
                Some(_) if typed => {}
                Some(l) => match blocks.first_mut() {
                    Some(Block::Paragraph(p)) => p.insert(0, Inline::plain(format!("{l} "))),
                    _ => blocks.insert(0, Block::text(l)),
                },
                None => {}
            }
            if !blocks.is_empty() {
                items.push(ListItem {
                    blocks,
                    checked: None,
                });
            }
        }
        if !items.is_empty() {
            self.push(Block::List(List {
                ordered,
                start: start.unwrap_or(1),
                items,
            }));
        }
        Ok(())
    }
}

/// Whether the tree reads as a document rather than data: prose (mixed content, prose-named
/// elements, escaped HTML) holds more of its text (bytes) than data leaves and the attributes
/// of empty elements do. Titles, tables and lists count for neither side.
pub fn is_document(roots: &[Element<'_>]) -> bool {
    let (mut prose, mut data) = (0usize, 0usize);
    for root in roots {
        measure(root, &mut prose, &mut data);
    }
    prose > data
}

fn measure(el: &Element<'_>, prose: &mut usize, data: &mut usize) {
    if el.is(names::TITLE | names::TABLE | names::LIST) {
        // structure either way: a record's title or a table of values is no evidence
    } else if el.is(names::PROSE | names::FLAT) || (el.has_text && !el.is_leaf()) {
        *prose += text_bytes(el);
    } else if el.is_leaf() {
        let n = text_bytes(el);
        if el.html {
            *prose += n;
        } else if n > 0 {
            *data += n;
        } else {
            *data += el
                .attrs
                .iter()
                .filter(|(k, _)| !is_reference_attr(k))
                .map(|(_, v)| v.trim().len())
                .sum::<usize>();
        }
    } else {
        for c in el.elements() {
            measure(c, prose, data);
        }
    }
}

/// Bytes of descendant text, whitespace around each text node left out.
fn text_bytes(el: &Element<'_>) -> usize {
    el.children
        .iter()
        .map(|c| match c {
            Node::Text(t) => t.trim().len(),
            Node::Element(e) => text_bytes(e),
        })
        .sum()
}

/// The folded texts of the leaves under `el`, in document order.
fn leaf_texts(el: &Element<'_>, out: &mut Vec<String>) {
    for c in el.elements() {
        if c.is_leaf() {
            let t = c.folded_text();
            if !t.is_empty() {
                out.push(t.into_owned());
            }
        } else {
            leaf_texts(c, out);
        }
    }
}

/// Attributes that identify or point and mean nothing to a reader on their own.
fn is_reference_attr(name: &str) -> bool {
    let local = name.rsplit(':').next().unwrap_or(name);
    name.starts_with("xmlns")
        || matches!(
            local,
            "id" | "rid" | "idref" | "ref-type" | "type" | "class" | "style" | "lang" | "num"
        )
}

/// A leaf or a data container as a `name: value` item (containers nest their children).
fn data_item(el: &Element<'_>) -> ListItem {
    data_item_named(el, true)
}

/// Attribute text of an element: `k=v, …`, or the value alone when there is one attribute
/// to show (`<link href=…/>` reads "link: https://…", an OPML outline its `text`).
fn attr_text(el: &Element<'_>, shown: impl Fn(&str) -> bool) -> String {
    let attrs: Vec<_> = el.attrs.iter().filter(|(k, _)| shown(k)).collect();
    match attrs.as_slice() {
        [(_, v)] => v.to_string(),
        _ => attrs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// As [`data_item`]; without the `name:` label when `labelled` is false (one of several
/// same-named siblings, which their parent names: `<authors>` over `<author>`s, OPML's
/// `<outline>`s).
fn data_item_named(el: &Element<'_>, labelled: bool) -> ListItem {
    // A chain of wrappers around one leaf (EndNote's `<dates><year><style face=…>1937`)
    // is one value, named by its field ("year: 1937"), not a nest of labels.
    let chain = if has_shown_attrs(el) {
        None
    } else {
        only_leaf(el)
    };
    let named = chain.map_or(el, |(_, name)| name);
    let label = |value: String| -> Vec<Inline> {
        if labelled {
            let sep = if value.is_empty() { ":" } else { ": " };
            vec![
                Inline::styled(named.local().to_owned(), Style::BOLD),
                Inline::plain(format!("{sep}{value}")),
            ]
        } else {
            vec![Inline::plain(value)]
        }
    };
    if el.is_leaf() || chain.is_some() {
        let leaf = chain.map_or(el, |(leaf, _)| leaf);
        let text = leaf.folded_text();
        let value = if text.is_empty() {
            attr_text(leaf, |k| !k.starts_with("xmlns"))
        } else {
            text.into_owned()
        };
        return ListItem {
            blocks: vec![Block::Paragraph(label(value))],
            checked: None,
        };
    }
    let same = same_named_children(el);
    let items: Vec<ListItem> = el.elements().map(|c| data_item_named(c, !same)).collect();
    // A container's own attributes are content too (OPML keeps each outline's text in
    // `text=`, with the nested outlines as children); identifiers and namespaces are not.
    let own = attr_text(el, |k| !is_reference_attr(k));
    let mut blocks = Vec::with_capacity(2);
    if labelled || !own.is_empty() {
        blocks.push(Block::Paragraph(label(own)));
    }
    blocks.push(Block::List(List {
        ordered: false,
        start: 1,
        items,
    }));
    ListItem {
        blocks,
        checked: None,
    }
}

/// The one leaf at the end of a chain of elements that each hold exactly one element
/// child (and no text of their own), with the element that names it: the deepest one of
/// the chain without attributes to show (a formatting wrapper such as EndNote's
/// `<style face=…>` has them; the field around it does not).
fn only_leaf<'e, 'a>(el: &'e Element<'a>) -> Option<(&'e Element<'a>, &'e Element<'a>)> {
    let mut cur = el;
    let mut name = el;
    loop {
        let mut it = cur.elements();
        let child = it.next()?;
        if it.next().is_some() || cur.has_text {
            return None;
        }
        if !has_shown_attrs(child) {
            name = child;
        }
        if child.is_leaf() {
            return Some((child, name));
        }
        cur = child;
    }
}

/// Two or more element children, all of one name.
/// Whether `el` holds elements and all of them, at any depth, are inline formatting or links
/// (bold, italic, code, superscript, strike-through, links).
fn inline_only(el: &Element<'_>) -> bool {
    const INLINE: names::Kind =
        names::BOLD | names::ITALIC | names::STRIKE | names::LINK | names::SUP | names::CODE;
    let mut any = false;
    el.elements().all(|c| {
        any = true;
        c.is(INLINE) && !c.is(names::BLOCKISH | names::BLOCK_IN_PARAGRAPH) && inline_only_below(c)
    }) && any
}

fn inline_only_below(el: &Element<'_>) -> bool {
    el.is_leaf() || inline_only(el)
}

fn same_named_children(el: &Element<'_>) -> bool {
    let mut names = el.elements().map(|c| &c.name);
    let first = names.next();
    first.is_some() && el.elements().nth(1).is_some() && names.all(|n| Some(n) == first)
}

fn has_shown_attrs(el: &Element<'_>) -> bool {
    el.attrs.iter().any(|(k, _)| !is_reference_attr(k))
}

/// Two or more same-named children, each holding only leaf elements: one row per child.
fn records_table(el: &Element<'_>) -> Option<Table> {
    let mut children = el.elements();
    let first = children.next()?;
    let name = &first.name;
    let mut count = 0usize;
    let mut columns: Vec<&str> = Vec::new();
    for rec in el.elements() {
        if &rec.name != name || rec.has_text || rec.is_leaf() {
            return None;
        }
        for f in rec.elements() {
            if !f.is_leaf() || f.html {
                return None;
            }
            if !columns.contains(&f.local()) {
                if columns.len() >= 50 {
                    return None;
                }
                columns.push(f.local());
            }
        }
        count += 1;
    }
    // One column is a list in disguise (and usually prose), not a table.
    if count < 2 || columns.len() < 2 {
        return None;
    }
    let mut rows = vec![columns.iter().map(|c| Cell::text(*c)).collect::<Vec<_>>()];
    for rec in el.elements() {
        rows.push(
            columns
                .iter()
                .map(|col| {
                    let values: Vec<String> = rec
                        .elements()
                        .filter(|f| f.local() == *col)
                        .map(|f| f.folded_text().into_owned())
                        .collect();
                    Cell::text(values.join("; "))
                })
                .collect(),
        );
    }
    Some(Table {
        header_rows: 1,
        rows,
    })
}
