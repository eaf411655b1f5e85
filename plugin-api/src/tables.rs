//! Tables that a word processor joined, parted again.
//!
//! Two tables with nothing between them are one table to Word and LibreOffice: opened and
//! saved again, they become one `w:tbl` (or one run of RTF rows) whose grid holds both
//! tables' column edges, each row spanning the grid columns its own table had. Laid onto
//! that grid, neither table reads: every cell spans two columns of a grid twice as wide, and
//! the rows of one table are padded with the other's empty columns.
//!
//! [`split_joined`] finds such tables by their rows: consecutive rows whose cells share the
//! same column edges form a band. A band of two rows or more starts a table of its own when
//! its edges cross those of the two or more rows above it (since the table's start or the
//! last such band): neither set is a subset of the other. A coarser or finer band keeps the
//! table whole: a title row, total rows, a summary block or a short last row have edges that
//! are a subset of the body's, and so does a two-column table joined to a four-column one of
//! the same width, which is left joined (in an estimate, totals merged over the item columns
//! sit under the columns they total). A vertical merge across the seam keeps it whole too.
//! Each part is written on a grid of its own edges.

use crate::model::{Cell, Table};
use std::collections::BTreeSet;

/// The rows of `table` placed on its grid: per row, the column edges of its cells (those
/// merged down into it from above included) and the grid columns `(start, end)` of its own
/// cells; and after which rows no vertical merge reaches into the next row.
struct Layout {
    edges: Vec<BTreeSet<usize>>,
    cells: Vec<Vec<(usize, usize)>>,
    cut_after: Vec<bool>,
}

/// Grid columns beyond which a table is left as it is (a joined table is a page wide; this
/// bounds the work a hostile table can ask for).
const MAX_GRID_COLUMNS: usize = 1024;

/// `None` when the grid is wider than [`MAX_GRID_COLUMNS`].
fn layout(rows: &[Vec<Cell>]) -> Option<Layout> {
    // per grid column: the row a vertical merge over it ends before, and its edges
    let mut covered: Vec<(usize, usize, usize)> = Vec::new();
    let mut reach = 0usize;
    let mut out = Layout {
        edges: Vec::with_capacity(rows.len()),
        cells: Vec::with_capacity(rows.len()),
        cut_after: Vec::with_capacity(rows.len()),
    };
    for (r, row) in rows.iter().enumerate() {
        let mut edges = BTreeSet::new();
        let mut own = Vec::with_capacity(row.len());
        let mut col = 0usize;
        let mut cells = row.iter();
        loop {
            if let Some(&(_, start, end)) = covered.get(col).filter(|c| c.0 > r) {
                edges.insert(start);
                edges.insert(end);
                col = end.max(col + 1);
                continue;
            }
            let Some(cell) = cells.next() else {
                // merges from above beyond the row's last cell
                match covered
                    .get(col..)
                    .and_then(|c| c.iter().position(|c| c.0 > r))
                {
                    Some(k) if reach > r => col += k,
                    _ => break,
                }
                continue;
            };
            let end = col + cell.colspan.clamp(1, 1000) as usize;
            if end > MAX_GRID_COLUMNS {
                return None;
            }
            edges.insert(col);
            edges.insert(end);
            own.push((col, end));
            let until = r + cell.rowspan.clamp(1, 65_535) as usize;
            reach = reach.max(until);
            if until > r + 1 {
                if covered.len() < end {
                    covered.resize(end, (0, 0, 0));
                }
                for c in &mut covered[col..end] {
                    *c = (until, col, end);
                }
            }
            col = end;
        }
        out.edges.push(edges);
        out.cells.push(own);
        out.cut_after.push(reach <= r + 1);
    }
    Some(out)
}

/// `table` as the tables a word processor joined into it (see the module's description), or
/// as itself when its rows form one table.
pub fn split_joined(table: Table) -> Vec<Table> {
    if table.rows.len() < 4 {
        return vec![table];
    }
    let Some(layout) = layout(&table.rows) else {
        return vec![table];
    };
    // bands: maximal runs of rows with the same edges, as (first row, end row)
    let mut bands: Vec<(usize, usize)> = Vec::new();
    for r in 0..table.rows.len() {
        match bands.last_mut() {
            Some(b) if layout.edges[b.0] == layout.edges[r] => b.1 = r + 1,
            _ => bands.push((r, r + 1)),
        }
    }
    // a band starts a new table when its edges cross those of the rows since the last cut
    let mut cuts: Vec<usize> = Vec::new();
    let mut part_edges = layout.edges[0].clone();
    let mut part_rows = 0usize;
    for &(start, end) in &bands {
        let edges = &layout.edges[start];
        let rows = end - start;
        let crossing = !edges.is_subset(&part_edges) && !part_edges.is_subset(edges);
        if part_rows >= 2 && rows >= 2 && layout.cut_after[start - 1] && crossing {
            cuts.push(start);
            part_edges = edges.clone();
            part_rows = rows;
        } else {
            part_edges.extend(edges.iter().copied());
            part_rows += rows;
        }
    }
    if cuts.is_empty() {
        return vec![table];
    }
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    let mut rows = table.rows.into_iter();
    let mut start = 0usize;
    for end in cuts.into_iter().chain([layout.edges.len()]) {
        let edges: BTreeSet<usize> = layout.edges[start..end].iter().flatten().copied().collect();
        let part: Vec<Vec<Cell>> = rows
            .by_ref()
            .take(end - start)
            .zip(&layout.cells[start..end])
            .map(|(row, own)| {
                row.into_iter()
                    .zip(own)
                    .map(|(mut cell, &(s, e))| {
                        let span = edges.range(s + 1..=e).count();
                        cell.colspan = u32::try_from(span.max(1)).unwrap_or(1);
                        cell
                    })
                    .collect()
            })
            .collect();
        parts.push(Table {
            header_rows: if start == 0 {
                table.header_rows.min(end)
            } else {
                0
            },
            rows: part,
        });
        start = end;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(text: &str, colspan: u32) -> Cell {
        Cell {
            colspan,
            ..Cell::text(text)
        }
    }

    fn spans(t: &Table) -> Vec<Vec<u32>> {
        t.rows
            .iter()
            .map(|r| r.iter().map(|c| c.colspan).collect())
            .collect()
    }

    /// A three-column table and a four-column one of the same width, joined on a grid of
    /// six columns (edges 0 2 4 6 and 0 1 3 5 6), as LibreOffice saves them.
    fn joined() -> Table {
        let three = || vec![cell("a", 2), cell("b", 2), cell("c", 2)];
        let four = || vec![cell("w", 1), cell("x", 2), cell("y", 2), cell("z", 1)];
        Table {
            header_rows: 1,
            rows: vec![three(), three(), three(), four(), four(), four()],
        }
    }

    #[test]
    fn joined_tables_with_crossing_columns_part_on_grids_of_their_own() {
        let parts = split_joined(joined());
        assert_eq!(parts.len(), 2);
        assert_eq!(spans(&parts[0]), vec![vec![1, 1, 1]; 3]);
        assert_eq!(spans(&parts[1]), vec![vec![1, 1, 1, 1]; 3]);
        assert_eq!((parts[0].header_rows, parts[1].header_rows), (1, 0));
        let text: Vec<String> = parts[1].rows[0]
            .iter()
            .map(|c| format!("{:?}", c.content))
            .collect();
        assert!(text[0].contains("\"w\"") && text[3].contains("\"z\""));
        // and a third table laid out as the first
        let mut three = joined();
        three.rows.extend(joined().rows.into_iter().take(2));
        assert_eq!(split_joined(three).len(), 3);
    }

    #[test]
    fn title_total_and_ragged_rows_keep_the_table_whole() {
        // a title row over the whole width, a total row merging the first two columns and a
        // short last row: their edges are subsets of the body's
        let body = || vec![cell("a", 1), cell("b", 1), cell("c", 1)];
        let t = Table {
            header_rows: 0,
            rows: vec![
                vec![cell("title", 3)],
                vec![cell("title 2", 3)],
                body(),
                body(),
                vec![cell("total", 2), cell("9", 1)],
                vec![cell("total", 2), cell("9", 1)],
                vec![cell("x", 1), cell("y", 1)],
                vec![cell("x", 1), cell("y", 1)],
            ],
        };
        assert_eq!(split_joined(t.clone()), vec![t]);
    }

    #[test]
    fn a_block_of_coarser_columns_stays_with_the_table() {
        // totals merged over the item columns: three rows or more of them are no new table
        let four = || vec![cell("a", 1), cell("b", 1), cell("c", 1), cell("d", 1)];
        let two = || vec![cell("total", 2), cell("9", 2)];
        let t = Table {
            header_rows: 1,
            rows: vec![four(), four(), four(), two(), two(), two()],
        };
        assert_eq!(split_joined(t.clone()), vec![t.clone()]);
        let mut back = t;
        back.rows.reverse();
        assert_eq!(split_joined(back.clone()), vec![back]);
    }

    #[test]
    fn a_grid_wider_than_the_bound_is_left_as_it_is() {
        let wide = || vec![cell("a", 1000), cell("b", 1000)];
        let mut t = joined();
        t.rows.extend([wide(), wide()]);
        assert_eq!(split_joined(t.clone()), vec![t]);
    }

    #[test]
    fn a_single_row_of_another_layout_keeps_the_table_whole() {
        let mut one = joined();
        one.rows.truncate(4);
        assert_eq!(split_joined(one.clone()), vec![one]);
    }

    #[test]
    fn a_merge_across_the_seam_keeps_the_table_whole() {
        // edges 0 2 3 6 above, 0 2 4 5 6 below: crossing, so parted unless a merge joins them
        let above = || vec![cell("a", 2), cell("b", 1), cell("c", 3)];
        let below = || vec![cell("w", 2), cell("x", 2), cell("y", 1), cell("z", 1)];
        let t = Table {
            header_rows: 0,
            rows: vec![above(), above(), above(), below(), below(), below()],
        };
        assert_eq!(split_joined(t.clone()).len(), 2);
        let mut merged = t;
        merged.rows[2][0].rowspan = 2;
        merged.rows[3].remove(0);
        assert_eq!(split_joined(merged.clone()), vec![merged]);
    }
}
