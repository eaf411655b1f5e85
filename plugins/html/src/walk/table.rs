//! HTML tables → [`Table`] with header rows and spans, or plain blocks for layout tables.
//!
//! A table whose rows hold at most one cell, or that nests another table, is page layout
//! rather than data (old sites, e-mail, search pages): its cells are walked as ordinary
//! content. Data-table cells are inline-only (the model's cells hold inlines), so paragraphs,
//! lists and line breaks inside a cell are joined with spaces.

use super::{Flow, Walker};
use crate::dom::{Dom, Element, NodeId};
use quire_plugin_api::{Block, Cell, Result, Table};

/// The HTML limits on spans (`colspan` ≤ 1000, `rowspan` ≤ 65534).
const MAX_COLSPAN: u32 = 1000;
const MAX_ROWSPAN: u32 = 65534;

struct RowRef {
    id: NodeId,
    head: bool,
}

impl Walker<'_> {
    pub(super) fn table(&mut self, id: NodeId, flow: &mut Flow, depth: usize) -> Result<()> {
        if self.inline_only > 0 {
            return self.block_children(id, flow, depth);
        }
        let dom = self.dom;
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
        let cells_of = |tr: NodeId| {
            dom.children(tr)
                .filter(|&c| is_named(dom, c, "td") || is_named(dom, c, "th"))
                .collect::<Vec<_>>()
        };
        let max_cells = rows.iter().map(|r| cells_of(r.id).len()).max().unwrap_or(0);
        let nested = rows.iter().any(|r| {
            cells_of(r.id).into_iter().any(|cell| {
                let mut found = false;
                dom.walk_subtree(cell, |_, node| {
                    if let crate::dom::NodeData::Element(e) = &node.data {
                        if e.html_name().is_some_and(|n| &**n == "table") {
                            found = true;
                        }
                    }
                    !found
                });
                found
            })
        });

        self.flush(flow);
        if let Some(caption) = caption {
            self.block_children(caption, flow, depth + 1)?;
        }
        if max_cells <= 1 || nested {
            // Layout: the cells are simply content, in reading order.
            for row in &rows {
                for cell in cells_of(row.id) {
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
            for cell_id in cells_of(row.id) {
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
