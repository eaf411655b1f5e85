//! Assembling interpreted RTF into document-model blocks: paragraphs, headings, tables,
//! (nested) lists, footnotes.
//!
//! RTF says at each `\par` what the paragraph was (its style, outline level, whether it sits
//! in a table or a list) — so blocks are decided when a paragraph ends, from the paragraph
//! properties in force at that moment.

use quire_plugin_api::tables::split_joined;
use quire_plugin_api::{lists, Block, Cell, Image, Inline, List, ListItem, Style, Table};

/// Paragraph properties that matter for structure.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParaProps {
    /// Heading level 1..=6 from `\outlinelevelN` or a "heading N" style.
    pub heading: Option<u8>,
    pub in_table: bool,
    /// `\lsN` list override (0 = none).
    pub list: i32,
    /// `\ilvlN` nesting level.
    pub list_level: u8,
    /// `\liN` left indent in twips.
    pub indent: Option<i32>,
    /// `\fiN` first-line indent in twips (negative: a hanging indent).
    pub first_indent: i32,
    /// Whether the paragraph has a style of its own (`\sN`, N > 0).
    pub styled: bool,
}

/// Inline runs of the paragraph being read, merged by style.
#[derive(Default)]
struct Runs {
    inlines: Vec<Inline>,
    /// Set by [`Flow::mark`]: the next text starts a new run, so a field's result can be
    /// wrapped later without splitting a run.
    barrier: bool,
}

impl Runs {
    fn push_text(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        if !std::mem::take(&mut self.barrier) {
            if let Some(Inline::Text {
                text: prev,
                style: s,
            }) = self.inlines.last_mut()
            {
                if *s == style {
                    prev.push_str(text);
                    return;
                }
            }
        }
        self.inlines.push(Inline::styled(text.to_owned(), style));
    }

    fn has_content(&self) -> bool {
        self.inlines.iter().any(|i| match i {
            Inline::Text { text, .. } => !text.trim().is_empty(),
            Inline::Break => false,
            _ => true,
        })
    }

    /// Takes the runs, trimmed at both ends.
    fn take(&mut self) -> Vec<Inline> {
        let mut v = std::mem::take(&mut self.inlines);
        while matches!(v.last(), Some(Inline::Break)) {
            v.pop();
        }
        if let Some(Inline::Text { text, .. }) = v.first_mut() {
            let keep = text.trim_start().len();
            text.drain(..text.len() - keep);
        }
        if let Some(Inline::Text { text, .. }) = v.last_mut() {
            text.truncate(text.trim_end().len());
        }
        v.retain(|i| !matches!(i, Inline::Text { text, .. } if text.is_empty()));
        v
    }
}

/// An item on the path of open list levels: its list override, level and indent, and the
/// nesting depth it was given.
struct Open {
    list: i32,
    level: u8,
    indent: Option<i32>,
    depth: u8,
}

impl Open {
    /// How deep `self` sits against a paragraph of `props` ([`lists::depth_cmp`]).
    fn cmp(&self, props: &ParaProps) -> std::cmp::Ordering {
        lists::depth_cmp(
            (&self.list, self.level, self.indent.map(i64::from)),
            (&props.list, props.list_level, props.indent.map(i64::from)),
        )
    }
}

struct PendingItem {
    level: u8,
    ordered: bool,
    start: u64,
    content: Vec<Inline>,
    /// A further paragraph of the last item at `level`, not an item of its own.
    continuation: bool,
}

/// Where blocks of one flow (the body, or a footnote) are collected.
#[derive(Default)]
pub struct Flow {
    blocks: Vec<Block>,
    runs: Runs,
    /// Cells of the row being read, and the content of the current cell.
    row: Vec<Cell>,
    cell: Vec<Inline>,
    rows: Vec<Vec<Cell>>,
    /// Each row's cell right edges (`\cellx`, twips), when its definition gave one per cell.
    bounds: Vec<Vec<i32>>,
    /// The cell right edges of the row being read.
    row_bounds: Vec<i32>,
    header_rows: usize,
    row_is_header: bool,
    items: Vec<PendingItem>,
    /// The open list levels above the next item, outermost first.
    path: Vec<Open>,
    /// Marker text from `\listtext`/`\pntext` for the paragraph being read.
    marker: Option<String>,
    /// How the visible text of the paragraph being read looks.
    look: Option<Look>,
    /// Looks of the headings so far, with their levels.
    heading_looks: Vec<(Look, u8)>,
    /// Plain paragraphs that look alike throughout: (index in `blocks`, look, words).
    uniform: Vec<(usize, Look, usize)>,
    /// Characters of body text per font size (half-points).
    body_sizes: Vec<(i32, usize)>,
}

/// Font size (half-points) and weight of a paragraph's text; `None` size when it varies.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Look {
    size: Option<i32>,
    bold: bool,
}

/// Rows above this are dropped; a table this long is data better read elsewhere.
const MAX_ROWS: usize = 100_000;

impl Flow {
    pub fn text(&mut self, text: &str, style: Style) {
        self.runs.push_text(text, style);
    }

    pub fn inline(&mut self, inline: Inline) {
        self.runs.inlines.push(inline);
    }

    /// Number of inlines so far in the current paragraph (for wrapping a field's result).
    pub fn mark(&mut self) -> usize {
        self.runs.barrier = true;
        self.runs.inlines.len()
    }

    /// Wraps the inlines from `mark` to the end into a link.
    pub fn wrap_link(&mut self, mark: usize, href: String) {
        if mark > self.runs.inlines.len() {
            return;
        }
        let content: Vec<Inline> = self.runs.inlines.drain(mark..).collect();
        if content.is_empty() {
            return;
        }
        self.runs.inlines.push(Inline::link(href, None, content));
    }

    /// Notes the size and weight of text about to be added to the paragraph.
    pub fn look(&mut self, text: &str, size: i32, bold: bool) {
        if text.trim().is_empty() {
            return;
        }
        self.look = Some(match self.look {
            None => Look {
                size: Some(size),
                bold,
            },
            Some(l) => Look {
                size: l.size.filter(|&s| s == size),
                bold: l.bold && bold,
            },
        });
        if let Some(e) = self.body_sizes.iter_mut().find(|(s, _)| *s == size) {
            e.1 += text.len();
        } else {
            self.body_sizes.push((size, text.len()));
        }
    }

    pub fn set_marker(&mut self, marker: String) {
        self.marker = Some(marker);
    }

    pub fn row_is_header(&mut self) {
        self.row_is_header = true;
    }

    /// `\par`: the paragraph ends with the properties in force.
    pub fn end_paragraph(&mut self, props: &ParaProps) {
        let look = self.look.take();
        if props.in_table {
            if self.runs.has_content() {
                if !self.cell.is_empty() {
                    self.cell.push(Inline::Break);
                }
                let runs = self.runs.take();
                self.cell.extend(runs);
            } else {
                self.runs.take();
            }
            self.marker = None;
            return;
        }
        self.finish_table();
        let marker = self.marker.take();
        if !self.runs.has_content() {
            self.runs.take();
            return;
        }
        let mut content = self.runs.take();
        let mut literal = false;
        let marker = match marker {
            None if props.list == 0 && props.heading.is_none() && props.first_indent < 0 => {
                let m = take_literal_marker(&mut content);
                literal = m.is_some();
                m
            }
            m => m,
        };
        // A marker typed into the text (pandoc, plain-text exports) has no list of its own:
        // its items nest by indent, as items of different lists do ([`lists::depth_cmp`]).
        let literal_props;
        let props = match literal {
            true => {
                literal_props = ParaProps {
                    list: -1 - props.indent.unwrap_or(0).max(0),
                    list_level: 0,
                    ..*props
                };
                &literal_props
            }
            false => props,
        };
        if props.list > 0 || marker.is_some() {
            let m = marker.unwrap_or_default();
            let (ordered, start) = marker_kind(&m);
            let level = self.nest(props);
            // A numbered list right after a bulleted one (or the reverse) is a new list.
            // (A further paragraph of an item in between says nothing about its kind.)
            if self
                .items
                .iter()
                .rfind(|i| !i.continuation)
                .is_some_and(|last| last.level == level && last.ordered != ordered && level == 0)
            {
                // the new list starts open at this item, for the items nested under it
                let this = self.path.pop();
                self.finish_list();
                self.path.extend(this);
            }
            self.items.push(PendingItem {
                level,
                ordered,
                start,
                content,
                continuation: false,
            });
            return;
        }
        // Indented like an open list's text, without a marker: more of the item above (Word's
        // "List Continue" styles); lists deeper than its indent close.
        let open = props
            .indent
            .filter(|&i| i > 0 && props.heading.is_none())
            .and_then(|i| {
                self.path.iter().rposition(|o| {
                    o.indent
                        .is_some_and(|oi| i64::from(oi) < i64::from(i) + lists::INDENT_STEP_TWIPS)
                })
            });
        if let Some(k) = open {
            self.path.truncate(k + 1);
            self.items.push(PendingItem {
                level: self.path[k].depth,
                ordered: false,
                start: 1,
                content,
                continuation: true,
            });
            return;
        }
        self.finish_list();
        match props.heading {
            Some(level) => {
                if let Some(l) = look.filter(|l| l.size.is_some()) {
                    self.heading_looks.push((l, level));
                }
                self.blocks.push(Block::Heading { level, content })
            }
            None => {
                // Only direct formatting: a paragraph style that is no heading style (the
                // table of contents' own "Contents Heading") says the paragraph is none.
                if let Some(l) = look.filter(|l| l.size.is_some() && l.bold && !props.styled) {
                    let words = content
                        .iter()
                        .map(|i| match i {
                            Inline::Text { text, .. } => text.split_whitespace().count(),
                            _ => 1,
                        })
                        .sum();
                    self.uniform.push((self.blocks.len(), l, words));
                }
                self.blocks.push(Block::Paragraph(content))
            }
        }
    }

    /// Bold paragraphs without a style of their own set exactly like the document's headings
    /// of some level, in a size above the body text's, are headings of that level (pandoc's RTF title is its level-1
    /// headings' 18-point bold without their `\outlinelevel`).
    fn headings_by_look(&mut self) {
        let Some(body) = self
            .body_sizes
            .iter()
            .max_by_key(|(_, n)| *n)
            .map(|(s, _)| *s)
        else {
            return;
        };
        for &(at, look, words) in &self.uniform {
            let Some(&(_, level)) = self.heading_looks.iter().find(|(l, _)| *l == look) else {
                continue;
            };
            if words > MAX_HEADING_WORDS || look.size.is_none_or(|s| s <= body) {
                continue;
            }
            if let Some(Block::Paragraph(content)) = self.blocks.get_mut(at) {
                let content = std::mem::take(content);
                self.blocks[at] = Block::Heading { level, content };
            }
        }
    }

    /// `\cell`: the current cell ends.
    pub fn end_cell(&mut self) {
        self.look = None;
        if self.runs.has_content() {
            if !self.cell.is_empty() {
                self.cell.push(Inline::Break);
            }
            let runs = self.runs.take();
            self.cell.extend(runs);
        } else {
            self.runs.take();
        }
        self.marker = None;
        let content = std::mem::take(&mut self.cell);
        self.row.push(Cell::new(content));
    }

    /// `\row`: the current row ends.
    pub fn end_row(&mut self) {
        if self.runs.has_content() || !self.cell.is_empty() {
            self.end_cell();
        }
        let row = std::mem::take(&mut self.row);
        if row.is_empty() {
            return;
        }
        if self.rows.is_empty() {
            self.finish_list();
        }
        if self.row_is_header && self.header_rows == self.rows.len() {
            self.header_rows += 1;
        }
        self.row_is_header = false;
        let bounds = std::mem::take(&mut self.row_bounds);
        if self.rows.len() < MAX_ROWS {
            self.bounds.push(if bounds.len() == row.len() {
                bounds
            } else {
                Vec::new()
            });
            self.rows.push(row);
        }
    }

    /// `\trowd … \cellxN …`: the right edges of the next row's cells.
    pub fn set_row_bounds(&mut self, bounds: &[i32]) {
        self.row_bounds.clear();
        self.row_bounds.extend_from_slice(bounds);
    }

    fn finish_table(&mut self) {
        if !self.row.is_empty() || !self.cell.is_empty() {
            self.end_row();
        }
        if self.rows.is_empty() {
            return;
        }
        let mut rows = std::mem::take(&mut self.rows);
        let bounds = std::mem::take(&mut self.bounds);
        spans_from_bounds(&mut rows, &bounds);
        let width = rows
            .iter()
            .map(|r| r.iter().map(|c| c.colspan as usize).sum::<usize>())
            .max()
            .unwrap_or(0);
        for r in &mut rows {
            let mut have: usize = r.iter().map(|c| c.colspan as usize).sum();
            while have < width {
                r.push(Cell::text(""));
                have += 1;
            }
        }
        // tables Word or LibreOffice joined, parted again
        let table = Table {
            header_rows: std::mem::take(&mut self.header_rows),
            rows,
        };
        self.blocks
            .extend(split_joined(table).into_iter().map(Block::Table));
    }

    /// The nesting depth of a list paragraph, from the open levels above it.
    fn nest(&mut self, props: &ParaProps) -> u8 {
        while self.path.last().is_some_and(|o| o.cmp(props).is_gt()) {
            self.path.pop();
        }
        let depth = match self.path.last() {
            None => props.list_level,
            Some(o) if o.cmp(props).is_eq() => {
                let depth = o.depth;
                self.path.pop();
                depth
            }
            Some(o) if o.list == props.list => o.depth + (props.list_level - o.level),
            Some(o) => o.depth + 1,
        }
        .min(8);
        self.path.push(Open {
            list: props.list,
            level: props.list_level,
            indent: props.indent,
            depth,
        });
        depth
    }

    fn finish_list(&mut self) {
        self.path.clear();
        if self.items.is_empty() {
            return;
        }
        let items = std::mem::take(&mut self.items);
        let base = items.iter().map(|i| i.level).min().unwrap_or(0);
        let mut iter = items.into_iter().peekable();
        if let Some(list) = build_list(&mut iter, base) {
            self.blocks.push(Block::List(list));
        }
    }

    pub fn image_block(&mut self, image: Image) {
        if self.runs.has_content() {
            self.runs.inlines.push(Inline::Image(Box::new(image)));
        } else {
            self.finish_table();
            self.finish_list();
            self.blocks.push(Block::Image(Box::new(image)));
        }
    }

    /// Ends the flow: a paragraph without a final `\par`, open tables and lists.
    pub fn finish(mut self) -> Vec<Block> {
        // Text after the last `\cell` of an unterminated row belongs to a cell of its own.
        if (!self.row.is_empty() || !self.cell.is_empty()) && self.runs.has_content() {
            self.end_cell();
        }
        self.end_paragraph(&ParaProps::default());
        self.finish_table();
        self.finish_list();
        self.headings_by_look();
        self.blocks
    }
}

/// A paragraph longer than this is text, whatever it looks like.
const MAX_HEADING_WORDS: usize = 20;

/// Edges closer than this (twips) are one column edge.
const EDGE_SLACK: i32 = 30;

/// Column spans from the cells' right edges: the table's columns are bounded by every edge
/// any row has, and a cell spans the columns between its left and right edge (LibreOffice
/// and Word write a horizontally merged cell as one wider cell). Rows without edges keep
/// one column per cell.
fn spans_from_bounds(rows: &mut [Vec<Cell>], bounds: &[Vec<i32>]) {
    let mut edges: Vec<i32> = bounds.iter().flatten().copied().collect();
    edges.sort_unstable();
    edges.dedup_by(|b, a| *b - *a < EDGE_SLACK);
    if edges.len() > 1000 {
        return;
    }
    for (row, row_bounds) in rows.iter_mut().zip(bounds) {
        if row_bounds.is_empty() {
            continue;
        }
        let mut left = i32::MIN;
        for (cell, &right) in row.iter_mut().zip(row_bounds) {
            let n = edges
                .iter()
                .filter(|&&e| e > left + EDGE_SLACK / 2 && e < right + EDGE_SLACK)
                .count();
            cell.colspan = u32::try_from(n.max(1)).unwrap_or(1);
            left = left.max(right);
        }
    }
}

/// Items of one level (and deeper ones nested into the previous item) as a list.
fn build_list(
    iter: &mut std::iter::Peekable<std::vec::IntoIter<PendingItem>>,
    level: u8,
) -> Option<List> {
    let first = iter.peek()?;
    let mut list = List {
        ordered: first.ordered,
        start: first.start,
        items: Vec::new(),
    };
    while let Some(next) = iter.peek() {
        if next.level < level {
            break;
        }
        if next.level > level {
            let nested = build_list(iter, level + 1);
            if let Some(nested) = nested {
                match list.items.last_mut() {
                    Some(item) => item.blocks.push(Block::List(nested)),
                    None => list.items.push(ListItem {
                        blocks: vec![Block::List(nested)],
                        checked: None,
                    }),
                }
            }
            continue;
        }
        let Some(item) = iter.next() else { break };
        match list.items.last_mut() {
            Some(last) if item.continuation => last.blocks.push(Block::Paragraph(item.content)),
            _ => list.items.push(ListItem {
                blocks: vec![Block::Paragraph(item.content)],
                checked: None,
            }),
        }
    }
    Some(list)
}

/// Characters that mark a bulleted item when typed as its marker.
const BULLETS: &str = "\u{2022}\u{25e6}\u{25aa}\u{25a0}\u{25a1}\u{2023}\u{b7}\u{2013}\u{2014}-*o\u{a7}\u{27a2}\u{2043}";

/// A list marker typed at the start of a hanging-indented paragraph and ended by a tab
/// ("•\t", "–\t", "3.\t", "b)\t", "iv.\t"), as pandoc and plain-text exports write lists
/// without `\listtext`: removed from `content` and returned.
fn take_literal_marker(content: &mut Vec<Inline>) -> Option<String> {
    let Some(Inline::Text { text, .. }) = content.first() else {
        return None;
    };
    let lead = text.len() - text.trim_start_matches([' ', '\u{a0}']).len();
    let (marker, rest) = text[lead..].split_once('\t')?;
    let bullet = marker.chars().count() == 1 && marker.chars().all(|c| BULLETS.contains(c));
    let numbered = marker.len() <= 8
        && marker
            .strip_suffix(['.', ')'])
            .map(|b| b.strip_prefix('(').unwrap_or(b))
            .is_some_and(|b| {
                !b.is_empty()
                    && (b.chars().all(|c| c.is_ascii_digit())
                        || b.len() == 1 && b.chars().all(|c| c.is_ascii_alphabetic())
                        || b.chars().all(|c| "ivxlcIVXLC".contains(c)))
            });
    if !bullet && !numbered {
        return None;
    }
    let (marker, rest) = (marker.to_owned(), rest.trim_start().to_owned());
    if rest.is_empty() {
        if content.len() == 1 {
            return None; // a marker alone is no item
        }
        content.remove(0);
    } else if let Some(Inline::Text { text, .. }) = content.first_mut() {
        *text = rest;
    }
    Some(marker)
}

/// Whether a list marker ("1.", "a)", "•", "·") numbers its items, and the first number.
fn marker_kind(marker: &str) -> (bool, u64) {
    let m = marker.trim();
    let body = m.trim_end_matches(['.', ')']);
    if let Ok(n) = body.trim_start_matches('(').parse::<u64>() {
        return (true, n);
    }
    let ordered =
        body.len() < m.len() && body.chars().all(char::is_alphanumeric) && !body.is_empty();
    (ordered, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(marker_kind("3.\t"), (true, 3));
        assert_eq!(marker_kind("a)"), (true, 1));
        assert_eq!(marker_kind("\u{b7}\t"), (false, 1));
        assert_eq!(marker_kind(""), (false, 1));
    }

    #[test]
    fn nested_lists() {
        let mut f = Flow::default();
        let p = |lvl| ParaProps {
            list: 1,
            list_level: lvl,
            ..ParaProps::default()
        };
        for (t, l) in [("a", 0), ("b", 1), ("c", 1), ("d", 0)] {
            f.set_marker("1.".into());
            f.text(t, Style::PLAIN);
            f.end_paragraph(&p(l));
        }
        let blocks = f.finish();
        let [Block::List(l)] = blocks.as_slice() else {
            panic!("{blocks:?}")
        };
        assert_eq!(l.items.len(), 2);
        assert!(matches!(&l.items[0].blocks[1], Block::List(n) if n.items.len() == 2));
    }

    #[test]
    fn table_then_paragraph() {
        let mut f = Flow::default();
        let cell = ParaProps {
            in_table: true,
            ..ParaProps::default()
        };
        f.text("a", Style::PLAIN);
        f.end_paragraph(&cell);
        f.text("b", Style::PLAIN);
        f.end_cell();
        f.text("c", Style::PLAIN);
        f.end_cell();
        f.end_row();
        f.text("after", Style::PLAIN);
        f.end_paragraph(&ParaProps::default());
        let blocks = f.finish();
        let Block::Table(t) = &blocks[0] else {
            panic!("{blocks:?}")
        };
        assert_eq!(t.rows[0].len(), 2);
        assert_eq!(t.rows[0][0].content.len(), 3);
        assert_eq!(blocks[1], Block::text("after"));
    }
}
