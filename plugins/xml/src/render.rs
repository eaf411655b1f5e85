//! The readable Markdown view of an XML tree, as document-model blocks.
//!
//! Document-like XML (JATS, patents, DocBook, XHTML, RSS) and data XML share one walk:
//! - a title-like child (`title`, `article-title`, `heading`, …) is a heading of its parent;
//!   levels follow the nesting of elements that own a title, and everything after the first
//!   title's owner sits one level below it (so an article title is `#`, its sections `##`);
//! - an element with text of its own (mixed content) is a paragraph of inline runs, split
//!   where a list or table sits inside it;
//! - `table` with `tr`/`td` or CALS `row`/`entry` is a table; `list`/`ul`/`ol` a list;
//! - citations and MathML are flattened into one paragraph;
//! - a leaf element with a prose name (`p`, `para`, `description`…) is a paragraph, any other
//!   leaf a `name: value` list item; sibling records with only leaf children (`<country>`
//!   with `<name>`, `<capital>`) form a table; other data containers nest as lists;
//! - text that is escaped HTML (RSS descriptions) is reduced to plain paragraphs.

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
}

impl<'c> Renderer<'c> {
    pub fn new(check: &'c mut dyn FnMut() -> Result<()>) -> Self {
        Renderer {
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

    fn push(&mut self, block: Block) {
        self.flush();
        self.out.push(block);
    }

    /// Renders `el` as a block (or blocks) at heading `level`.
    pub fn element(&mut self, el: &Element<'_>, level: u8) -> Result<()> {
        self.visited += 1;
        if self.visited.is_multiple_of(2048) {
            (self.check)()?;
        }
        if el.is(names::TITLE) && (el.has_text || el.is_leaf()) {
            return self.heading(el, level);
        }
        if el.is(names::TABLE) {
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
        if el.has_text {
            return self.mixed(el, level);
        }
        if let Some(t) = records_table(el) {
            self.push(Block::Table(t));
            return Ok(());
        }
        if el.data {
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
        let owns_title = el
            .elements()
            .any(|c| c.is(names::TITLE) && (c.has_text || c.is_leaf()));
        let seen_before = self.first_heading_seen;
        let child_level = if owns_title {
            level.saturating_add(1)
        } else {
            level
        };
        let mut children = el.elements().peekable();
        while let Some(c) = children.next() {
            let is_title = |e: &Element<'_>| e.is(names::TITLE) && (e.has_text || e.is_leaf());
            if is_title(c) {
                self.element(c, level)?;
            } else if c.local() == "label"
                && c.is_leaf()
                && children.peek().is_some_and(|n| is_title(n))
            {
                // `<label>2.1.</label><title>Setup</title>` reads as one heading, "2.1. Setup".
                let text = c.folded_text();
                if !text.is_empty() {
                    self.label = Some(text.into_owned());
                }
            } else {
                self.element(c, child_level)?;
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
        if el.is(names::PROSE) {
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
        let mut items = Vec::new();
        for c in el.elements() {
            if c.is(names::TITLE) {
                self.element(c, level)?;
                continue;
            }
            let saved_out = std::mem::take(&mut self.out);
            let saved_pending = std::mem::take(&mut self.pending);
            let rendered = if c.is(names::LIST_ITEM) && c.is_leaf() {
                let text = c.folded_text().into_owned();
                if !text.is_empty() {
                    self.out.push(Block::text(text));
                }
                Ok(())
            } else if c.is(names::LIST_ITEM) && !c.has_text {
                c.elements().try_for_each(|cc| self.element(cc, level))
            } else {
                self.element(c, level)
            };
            self.flush();
            let blocks = std::mem::replace(&mut self.out, saved_out);
            self.pending = saved_pending;
            rendered?;
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
                start: 1,
                items,
            }));
        }
        Ok(())
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
    let label = Inline::styled(el.local().to_owned(), Style::BOLD);
    if el.is_leaf() {
        let text = el.folded_text();
        let value: std::borrow::Cow<'_, str> = if text.is_empty() {
            el.attrs
                .iter()
                .filter(|(k, _)| !k.starts_with("xmlns"))
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
                .into()
        } else {
            text
        };
        return ListItem {
            blocks: vec![Block::Paragraph(vec![
                label,
                Inline::plain(format!(": {value}")),
            ])],
            checked: None,
        };
    }
    let items: Vec<ListItem> = el.elements().map(data_item).collect();
    // A container's own attributes are content too (OPML keeps each outline's text in
    // `text=`, with the nested outlines as children); identifiers and namespaces are not.
    let own: Vec<String> = el
        .attrs
        .iter()
        .filter(|(k, _)| !is_reference_attr(k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let head = if own.is_empty() {
        ":".to_owned()
    } else {
        format!(": {}", own.join(", "))
    };
    ListItem {
        blocks: vec![
            Block::Paragraph(vec![label, Inline::plain(head)]),
            Block::List(List {
                ordered: false,
                start: 1,
                items,
            }),
        ],
        checked: None,
    }
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
