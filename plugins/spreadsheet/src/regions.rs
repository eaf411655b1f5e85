/*!
The separate tables a sheet holds, found from which cells are filled.

People put several tables on one sheet and set them apart with empty rows and columns. The
sheet is cut recursively (an XY-cut): first at every run of fully empty rows, into horizontal
bands, and when no row cuts, at every run of fully empty columns, into strips; each piece is
shrunk to its filled cells and cut again until nothing cuts. The pieces come out in reading
order: bands top to bottom, strips left to right.

Two gaps are spacing inside one table, not between tables, and do not cut:

- one empty row followed by a row holding a number (or date): the figures under a table's
  header block, or its total row, set off by a blank line;
- empty columns followed by a block that uses only rows the block on its left uses and starts
  no lower than that block's second row: more columns of the same rows (a spacer column
  between column groups, a page-number column set apart), where the block's second row allows
  for a title line above the header.

Why cuts and not cell connectivity (4- or 8-neighbour flood fill): a sparse table, with holes
or a value whose neighbours are blank, falls apart under connectivity at every isolated cell;
a cut needs a row or column empty across the whole piece. Why the two exceptions: without them
the corpus's financial statements (a header block, a blank row, the figures; column groups
with spacer columns) came out as a dozen tables with the headers apart from their numbers.
*/

use quire_plugin_api::Result;

/// What a cell holds, as far as finding tables is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fill {
    #[default]
    Empty,
    Text,
    /// A number, date, time or duration.
    Number,
}

/// A rectangle of cells, bounds inclusive, zero-based within the sheet's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub top: usize,
    pub left: usize,
    pub bottom: usize,
    pub right: usize,
}

/// Which cells of a `height` x `width` range are filled, row by row.
pub struct Occupancy {
    width: usize,
    cells: Vec<Fill>,
}

impl Occupancy {
    pub fn new(height: usize, width: usize) -> Occupancy {
        Occupancy {
            width,
            cells: vec![Fill::Empty; height * width],
        }
    }

    pub fn set(&mut self, row: usize, column: usize, fill: Fill) {
        self.cells[row * self.width + column] = fill;
    }

    fn height(&self) -> usize {
        self.cells.len().checked_div(self.width).unwrap_or(0)
    }

    /// The cells of `row` from `left` to `right`.
    fn span(&self, row: usize, left: usize, right: usize) -> &[Fill] {
        let start = row * self.width;
        &self.cells[start + left..=start + right]
    }

    fn row_filled(&self, row: usize, left: usize, right: usize) -> bool {
        self.span(row, left, right)
            .iter()
            .any(|&f| f != Fill::Empty)
    }

    /// `rect` shrunk to its filled cells; `None` when it has none.
    fn shrink(&self, rect: Rect) -> Option<Rect> {
        let rows: Vec<usize> = (rect.top..=rect.bottom)
            .filter(|&r| self.row_filled(r, rect.left, rect.right))
            .collect();
        let (&top, &bottom) = (rows.first()?, rows.last()?);
        let mut left = rect.right;
        let mut right = rect.left;
        for &r in &rows {
            let span = self.span(r, rect.left, rect.right);
            if let Some(first) = span.iter().position(|&f| f != Fill::Empty) {
                left = left.min(rect.left + first);
            }
            if let Some(last) = span.iter().rposition(|&f| f != Fill::Empty) {
                right = right.max(rect.left + last);
            }
        }
        Some(Rect {
            top,
            left,
            bottom,
            right,
        })
    }

    /// Bands of `rect` between runs of empty rows, after the continuation rule.
    fn bands(&self, rect: Rect) -> Vec<(usize, usize)> {
        let mut bands: Vec<(usize, usize)> = Vec::new();
        for r in rect.top..=rect.bottom {
            if !self.row_filled(r, rect.left, rect.right) {
                continue;
            }
            match bands.last_mut() {
                Some((_, bottom)) if *bottom + 1 == r => *bottom = r,
                // One empty row, then figures: the same table goes on.
                Some((_, bottom))
                    if *bottom + 2 == r
                        && self.span(r, rect.left, rect.right).contains(&Fill::Number) =>
                {
                    *bottom = r
                }
                _ => bands.push((r, r)),
            }
        }
        bands
    }

    /// Strips of `rect` between runs of empty columns, after the continuation rule.
    fn strips(&self, rect: Rect) -> Vec<(usize, usize)> {
        let width = rect.right - rect.left + 1;
        let mut used = vec![false; width];
        for r in rect.top..=rect.bottom {
            for (u, &f) in used.iter_mut().zip(self.span(r, rect.left, rect.right)) {
                *u |= f != Fill::Empty;
            }
        }
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for (i, _) in used.iter().enumerate().filter(|(_, &u)| u) {
            let c = rect.left + i;
            match runs.last_mut() {
                Some((_, right)) if *right + 1 == c => *right = c,
                _ => runs.push((c, c)),
            }
        }
        let rows_of = |(left, right): (usize, usize)| -> Vec<usize> {
            (rect.top..=rect.bottom)
                .filter(|&r| self.row_filled(r, left, right))
                .collect()
        };
        let mut strips: Vec<(usize, usize)> = Vec::new();
        for run in runs {
            if let Some(last) = strips.last_mut() {
                let before = rows_of(*last);
                let after = rows_of(run);
                let starts_high = match (after.first(), before.get(1).or(before.first())) {
                    (Some(a), Some(b)) => a <= b,
                    _ => false,
                };
                if starts_high && after.iter().all(|r| before.binary_search(r).is_ok()) {
                    last.1 = run.1;
                    continue;
                }
            }
            strips.push(run);
        }
        strips
    }
}

/// Cells scanned per cell of the sheet before cutting stops (pathological nestings would
/// otherwise cost the sheet's area once per level).
const WORK_PER_CELL: usize = 64;

/// The sheet's tables in reading order; `check` is called now and then (deadline, cancel).
pub fn find(map: &Occupancy, check: impl FnMut() -> Result<()>) -> Result<Vec<Rect>> {
    cut(map, map.cells.len().saturating_mul(WORK_PER_CELL), check)
}

/// [`find`] with a budget of cells to scan; a piece the budget cannot pay for is kept whole.
fn cut(
    map: &Occupancy,
    mut budget: usize,
    mut check: impl FnMut() -> Result<()>,
) -> Result<Vec<Rect>> {
    let height = map.height();
    if height == 0 || map.width == 0 {
        return Ok(Vec::new());
    }
    let whole = Rect {
        top: 0,
        left: 0,
        bottom: height - 1,
        right: map.width - 1,
    };
    let Some(whole) = map.shrink(whole) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut stack = vec![whole];
    while let Some(rect) = stack.pop() {
        let area = (rect.bottom - rect.top + 1) * (rect.right - rect.left + 1);
        if budget < area {
            out.push(rect);
            continue;
        }
        budget -= area;
        check()?;
        let bands = map.bands(rect);
        let pieces: Vec<Rect> = if bands.len() > 1 {
            bands
                .into_iter()
                .filter_map(|(top, bottom)| {
                    map.shrink(Rect {
                        top,
                        bottom,
                        ..rect
                    })
                })
                .collect()
        } else {
            map.strips(rect)
                .into_iter()
                .filter_map(|(left, right)| {
                    map.shrink(Rect {
                        left,
                        right,
                        ..rect
                    })
                })
                .collect()
        };
        if pieces.len() <= 1 {
            out.push(rect);
        } else {
            stack.extend(pieces.into_iter().rev());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map from lines of `.` (empty), `a` (text) and `1` (number).
    fn map(lines: &[&str]) -> Occupancy {
        let width = lines.iter().map(|l| l.len()).max().unwrap_or(0);
        let mut m = Occupancy::new(lines.len(), width);
        for (r, line) in lines.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                let fill = match ch {
                    '.' => Fill::Empty,
                    '1' => Fill::Number,
                    _ => Fill::Text,
                };
                m.set(r, c, fill);
            }
        }
        m
    }

    /// Regions as (top, left, bottom, right).
    fn found(lines: &[&str]) -> Vec<(usize, usize, usize, usize)> {
        find(&map(lines), || Ok(()))
            .expect("no deadline")
            .into_iter()
            .map(|r| (r.top, r.left, r.bottom, r.right))
            .collect()
    }

    #[test]
    fn empty_rows_and_columns_separate_tables_in_reading_order() {
        // docling's xlsx_01 Sheet2 in small: a table, one to its right starting lower, two
        // empty columns between them, and one below after empty rows.
        let sheet = [
            "aaaa....", "1111....", "1111..aa", "1111..11", "........", "........", "..aaa...",
            "..111...",
        ];
        assert_eq!(found(&sheet), [(0, 0, 3, 3), (2, 6, 3, 7), (6, 2, 7, 4)]);
    }

    #[test]
    fn tables_side_by_side_with_their_own_rows_are_apart() {
        // Sheet3 of the same workbook: one empty column, the right table starts on the left
        // table's last row.
        let sheet = ["aa....", "11....", "1a.aaa", "...111", "...1.1"];
        assert_eq!(found(&sheet), [(0, 0, 2, 1), (2, 3, 4, 5)]);
    }

    #[test]
    fn a_blank_row_before_figures_and_a_spacer_column_stay_inside_a_table() {
        let sheet = [
            "a.......", "........", "aaa.aa.a", "........", "a11.11.1", "a11.11.1", "........",
            "a11.11.1", "........", "........", "aaaaaaaa", "........", "a.......",
        ];
        assert_eq!(
            found(&sheet),
            [(0, 0, 0, 0), (2, 0, 7, 7), (10, 0, 10, 7), (12, 0, 12, 0)]
        );
    }

    #[test]
    fn a_column_set_apart_beside_a_titled_table_stays_with_it() {
        // A title, a header with a page column after two empty columns, rows of topics.
        let sheet = ["a.....", "aa...a", "aa...1", "aa...1"];
        assert_eq!(found(&sheet), [(0, 0, 3, 5)]);
    }

    #[test]
    fn holes_do_not_split_a_table_and_empty_sheets_have_no_region() {
        let sheet = ["aaa", "1..", "..1", ".1."];
        assert_eq!(found(&sheet), [(0, 0, 3, 2)]);
        assert!(found(&["...", "..."]).is_empty());
        assert!(found(&[]).is_empty());
    }

    #[test]
    fn cutting_stops_when_the_budget_is_spent() {
        // Text cells on every other row and column: each row is one table (its cells share
        // their only row), and a budget that pays for the first cut only keeps the bands.
        let line: String = (0..400)
            .map(|i| if i % 2 == 0 { 'a' } else { '.' })
            .collect();
        let blank = ".".repeat(400);
        let lines: Vec<&str> = (0..400)
            .map(|i| {
                if i % 2 == 0 {
                    line.as_str()
                } else {
                    blank.as_str()
                }
            })
            .collect();
        assert_eq!(found(&lines).len(), 200);
        let m = map(&lines);
        let first_cut = 399 * 399;
        let rects = cut(&m, first_cut, || Ok(())).expect("no deadline");
        assert_eq!(rects.len(), 200);
        assert!(rects.iter().all(|r| r.top == r.bottom && r.right == 398));
        let none = cut(&m, first_cut - 1, || Ok(())).expect("no deadline");
        assert_eq!(none.len(), 1, "too small a budget keeps the sheet whole");
    }
}
