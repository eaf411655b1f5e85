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

/// A table with a row wider than this many grid columns is left as it is (a joined table is
/// a page wide; this bounds the work a hostile table can ask for).
const MAX_GRID_COLUMNS: usize = 1024;

/// Per row of `grid` ([`flatten_spans`]): the column edges of its cells (those merged down
/// into it from above included; a run of empty positions is one gap, and the empty ones
/// that pad it to the grid's width are none) and the grid columns `(start, end)` of its own
/// cells.
fn edges_and_cells(row: &[Slot<'_>]) -> (BTreeSet<usize>, Vec<(usize, usize)>) {
    let same = |a: &Slot<'_>, b: &Slot<'_>| match (a, b) {
        (Slot::Empty, Slot::Empty) => true,
        (Slot::Origin(x) | Slot::Covered(x, _), Slot::Origin(y) | Slot::Covered(y, _)) => {
            std::ptr::eq(*x, *y)
        }
        _ => false,
    };
    let used = row
        .iter()
        .rposition(|s| !matches!(s, Slot::Empty))
        .map_or(0, |p| p + 1);
    let (mut edges, mut own) = (BTreeSet::new(), Vec::new());
    let mut start = 0;
    for end in 1..=used {
        if end == used || !same(&row[end - 1], &row[end]) {
            edges.insert(start);
            edges.insert(end);
            if matches!(row[start], Slot::Origin(_)) {
                own.push((start, end));
            }
            start = end;
        }
    }
    (edges, own)
}

/// A position of a table laid onto a grid: a cell's own, one its merged cell covers (and
/// whether in the merged cell's first column, below it), or none.
#[derive(Clone, Copy)]
pub enum Slot<'a> {
    Empty,
    Origin(&'a Cell),
    Covered(&'a Cell, bool),
}

/// Lays rows with spans onto a rectangular grid: a merged cell stands in its first position
/// and is named in every other position it covers, for the Markdown writer to repeat where a
/// reader needs it (the JSON keeps the spans); [`split_joined`] reads the column edges off it.
pub fn flatten_spans(rows: &[Vec<Cell>]) -> Vec<Vec<Slot<'_>>> {
    let mut grid: Vec<Vec<Slot<'_>>> = Vec::with_capacity(rows.len());
    // For each column, how many more rows a rowspan above still covers, and by which cell.
    let mut pending: Vec<(u32, Option<(&Cell, bool)>)> = Vec::new();
    for row in rows {
        let mut out: Vec<Slot<'_>> = Vec::new();
        let mut col = 0;
        let mut cells = row.iter();
        loop {
            while let Some((n @ 1.., above)) = pending.get(col).copied() {
                pending[col].0 = n - 1;
                out.push(above.map_or(Slot::Empty, |(c, first)| Slot::Covered(c, first)));
                col += 1;
            }
            let Some(cell) = cells.next() else { break };
            let span = cell.colspan.clamp(1, 1000) as usize;
            for k in 0..span {
                out.push(if k == 0 {
                    Slot::Origin(cell)
                } else {
                    Slot::Covered(cell, false)
                });
                if pending.len() <= col + k {
                    pending.resize(col + k + 1, (0, None));
                }
                pending[col + k] = (cell.rowspan.clamp(1, 65_535) - 1, Some((cell, k == 0)));
            }
            col += span;
        }
        // Columns covered from above beyond the row's last cell.
        while col < pending.len() {
            let (n, above) = pending[col];
            if n > 0 {
                pending[col].0 = n - 1;
                out.push(above.map_or(Slot::Empty, |(c, first)| Slot::Covered(c, first)));
            } else {
                out.push(Slot::Empty);
            }
            col += 1;
        }
        grid.push(out);
    }
    // Drop trailing columns where no cell starts in any row.
    let width = grid
        .iter()
        .map(|r| {
            r.iter()
                .rposition(|s| matches!(s, Slot::Origin(_)))
                .map_or(0, |p| p + 1)
        })
        .max()
        .unwrap_or(0);
    for row in &mut grid {
        row.resize(width, Slot::Empty);
    }
    grid
}

/// `table` as the tables a word processor joined into it (see the module's description), or
/// as itself when its rows form one table.
pub fn split_joined(table: Table) -> Vec<Table> {
    let width = |row: &Vec<Cell>| row.iter().map(|c| c.colspan.clamp(1, 1000) as usize).sum();
    if table.rows.len() < 4 || table.rows.iter().map(width).max() > Some(MAX_GRID_COLUMNS) {
        return vec![table];
    }
    let grid = flatten_spans(&table.rows);
    let (row_edges, cells): (Vec<_>, Vec<_>) =
        grid.iter().map(Vec::as_slice).map(edges_and_cells).unzip();
    // after which rows no vertical merge reaches into the next
    let mut reach = 0usize;
    let cut_after: Vec<bool> = (table.rows.iter().enumerate())
        .map(|(r, row)| {
            for c in row {
                reach = reach.max(r + c.rowspan.clamp(1, 65_535) as usize);
            }
            reach <= r + 1
        })
        .collect();
    drop(grid);
    // bands: maximal runs of rows with the same edges, as (first row, end row)
    let mut bands: Vec<(usize, usize)> = Vec::new();
    for r in 0..table.rows.len() {
        match bands.last_mut() {
            Some(b) if row_edges[b.0] == row_edges[r] => b.1 = r + 1,
            _ => bands.push((r, r + 1)),
        }
    }
    // a band starts a new table when its edges cross those of the rows since the last cut
    let mut cuts: Vec<usize> = Vec::new();
    let mut part_edges = row_edges[0].clone();
    let mut part_rows = 0usize;
    for &(start, end) in &bands {
        let edges = &row_edges[start];
        let rows = end - start;
        let crossing = !edges.is_subset(&part_edges) && !part_edges.is_subset(edges);
        if part_rows >= 2 && rows >= 2 && cut_after[start - 1] && crossing {
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
    for end in cuts.into_iter().chain([row_edges.len()]) {
        let edges: BTreeSet<usize> = row_edges[start..end].iter().flatten().copied().collect();
        let part: Vec<Vec<Cell>> = rows
            .by_ref()
            .take(end - start)
            .zip(&cells[start..end])
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
