//! HTML tables → [`Table`] with header rows and spans, or plain blocks for layout tables.
//!
//! A table whose rows hold at most one cell is page layout rather than data (old sites,
//! e-mail, search pages): its cells are walked as ordinary content. So is a table that nests
//! another table when it has a single row (columns side by side), when its cells hold block
//! content (headings, lists, quotes, preformatted text, rules), or when one cell nests more
//! than [`MAX_FLAT_ROWS`] table rows: the nested tables then come out as tables of their own.
//! Any other nested table is data inside a data cell and is flattened into that cell row by
//! row, as the DOCX converter does: rows on lines of their own, non-empty cells joined by
//! ` | `, the rows of a table nested deeper still joined by `; `. Data-table cells are
//! inline-only (the model's cells hold inlines), so paragraphs, lists and line breaks inside
//! a cell are joined with spaces.

use super::{is_hidden, Flow, Walker};
use crate::dom::{Dom, Element, NodeData, NodeId};
use quire_plugin_api::{Block, Cell, Result, Style, Table};

/// The HTML limits on spans (`colspan` ≤ 1000, `rowspan` ≤ 65534).
const MAX_COLSPAN: u32 = 1000;
const MAX_ROWSPAN: u32 = 65534;

/// The most nested-table rows one cell may hold and still be flattened into it; more than
/// this reads as a table of its own that a layout table merely places.
const MAX_FLAT_ROWS: usize = 10;

struct RowRef {
    id: NodeId,
    head: bool,
}

/// A table's caption and rows (direct, or in `thead`/`tbody`/`tfoot`).
fn parts(dom: &Dom, id: NodeId) -> (Option<NodeId>, Vec<RowRef>) {
    let mut caption = None;
    let mut rows = Vec::new();
    for child in dom.children(id) {
        let Some(name) = dom.element(child).and_then(Element::html_name) else {
            continue;
        };
        match &**name {
            "caption" => caption = caption.or(Some(child)),
            "thead" | "tbody" | "tfoot" => {
                let head = &**name == "thead";
                for tr in dom.children(child) {
                    if is_named(dom, tr, "tr") {
                        rows.push(RowRef { id: tr, head });
                    }
                }
            }
            "tr" => rows.push(RowRef {
                id: child,
                head: false,
            }),
            _ => {}
        }
    }
    (caption, rows)
}

fn cells_of(dom: &Dom, tr: NodeId) -> Vec<NodeId> {
    dom.children(tr)
        .filter(|&c| is_named(dom, c, "td") || is_named(dom, c, "th"))
        .collect()
}

/// Whether a table of several columns is layout because of what its cells nest (see the
/// module documentation). Hidden subtrees are not looked into.
fn nests_layout(dom: &Dom, rows: &[RowRef]) -> bool {
    let mut nested = false;
    let mut blocks = false;
    for row in rows {
        for cell in cells_of(dom, row.id) {
            let mut nested_rows = 0;
            dom.walk_subtree(cell, |_, node| {
                let NodeData::Element(e) = &node.data else {
                    return false;
                };
                if is_hidden(e) {
                    return false;
                }
                match e.html_name().map(|n| &**n) {
                    Some("table") => nested = true,
                    Some("tr") => nested_rows += 1,
                    Some(
                        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "dl" | "menu"
                        | "dir" | "blockquote" | "pre" | "listing" | "xmp" | "plaintext" | "hr",
                    ) => blocks = true,
                    _ => {}
                }
                nested_rows <= MAX_FLAT_ROWS
            });
            if nested_rows > MAX_FLAT_ROWS {
                return true;
            }
        }
    }
    nested && (blocks || rows.len() == 1)
}

impl Walker<'_> {
    pub(super) fn table(&mut self, id: NodeId, flow: &mut Flow, depth: usize) -> Result<()> {
        let dom = self.dom;
        let (caption, rows) = parts(dom, id);
        if self.inline_only > 0 {
            return self.flat_table(caption, &rows, flow, depth);
        }
        let max_cells = rows
            .iter()
            .map(|r| cells_of(dom, r.id).len())
            .max()
            .unwrap_or(0);
        let layout = max_cells <= 1 || nests_layout(dom, &rows);

        self.flush(flow);
        if let Some(caption) = caption {
            self.block_children(caption, flow, depth + 1)?;
        }
        if layout {
            // Layout: the cells are simply content, in reading order.
            for row in &rows {
                for cell in cells_of(dom, row.id) {
                    self.block_children(cell, flow, depth + 2)?;
                }
            }
            return Ok(());
        }

        let mut table_rows: Vec<Vec<Cell>> = Vec::with_capacity(rows.len());
        let mut all_th: Vec<bool> = Vec::with_capacity(rows.len());
        let mut head_rows = 0;
        for row in &rows {
            let mut cells = Vec::new();
            let mut th_only = true;
            for cell_id in cells_of(dom, row.id) {
                let Some(element) = dom.element(cell_id) else {
                    continue;
                };
                th_only &= element.html_name().is_some_and(|n| &**n == "th");
                let mut inner = Flow::default();
                self.inline_only += 1;
                let result = self.children(cell_id, &mut inner, depth + 2);
                self.inline_only -= 1;
                result?;
                let mut cell = Cell::new(inner.inlines.take());
                cell.colspan = span(element.attr("colspan"), MAX_COLSPAN);
                cell.rowspan = span(element.attr("rowspan"), MAX_ROWSPAN);
                cells.push(cell);
            }
            if cells.is_empty() {
                continue;
            }
            if row.head && head_rows == table_rows.len() {
                head_rows += 1;
            }
            all_th.push(th_only);
            table_rows.push(cells);
        }
        if table_rows.is_empty() {
            return Ok(());
        }
        let header_rows = if head_rows > 0 {
            head_rows
        } else {
            // Leading rows of only <th> cells, but never the whole table.
            let n = all_th.iter().take_while(|&&th| th).count();
            if n < table_rows.len() {
                n
            } else {
                0
            }
        };
        // A span never reaches past the last row.
        let total = table_rows.len();
        for (r, row) in table_rows.iter_mut().enumerate() {
            let remaining = (total - r) as u32;
            for cell in row {
                cell.rowspan = cell.rowspan.min(remaining).max(1);
            }
        }
        flow.blocks.push(Block::Table(Table {
            header_rows,
            rows: table_rows,
        }));
        Ok(())
    }
    /// A table inside inline-only content (a data cell, a heading), flattened row by row:
    /// the caption and each row on a line of their own, a row's non-empty cells joined by
    /// ` | `, line breaks inside those cells (deeper tables' rows) as `; `.
    fn flat_table(
        &mut self,
        caption: Option<NodeId>,
        rows: &[RowRef],
        flow: &mut Flow,
        depth: usize,
    ) -> Result<()> {
        if let Some(caption) = caption {
            flow.inlines.line_break();
            self.children(caption, flow, depth + 1)?;
        }
        for row in rows {
            let mut cells = Vec::new();
            for cell in cells_of(self.dom, row.id) {
                let mut inner = Flow::default();
                self.children(cell, &mut inner, depth + 2)?;
                let runs = inner.inlines.take();
                if !runs.is_empty() {
                    cells.push(runs);
                }
            }
            if cells.is_empty() {
                continue;
            }
            flow.inlines.line_break();
            for (i, runs) in cells.into_iter().enumerate() {
                if i > 0 {
                    flow.inlines.text(" | ", Style::PLAIN);
                }
                flow.inlines.extend_on_line(runs);
            }
        }
        // What follows the table in the same cell starts a line of its own.
        flow.inlines.line_break();
        Ok(())
    }
}

fn is_named(dom: &Dom, id: NodeId, name: &str) -> bool {
    dom.element(id)
        .and_then(Element::html_name)
        .is_some_and(|n| &**n == name)
}

/// A `colspan`/`rowspan` value: 1 when absent or invalid, at most `max`; `rowspan="0"`
/// ("to the end of the section") becomes `max` and is clamped to the rows that remain.
fn span(value: Option<&str>, max: u32) -> u32 {
    let Some(value) = value else { return 1 };
    let digits: String = value
        .trim()
        .chars()
        .take_while(char::is_ascii_digit)
        .take(6)
        .collect();
    match digits.parse::<u32>() {
        Ok(0) if max == MAX_ROWSPAN => max,
        Ok(0) | Err(_) => 1,
        Ok(n) => n.min(max),
    }
}
