/*!
Merged cells of a sheet, and where their value is repeated in a table.

calamine leaves the cells a merged range covers empty, so a pipe table showed a gap where the
sheet shows one value over several cells: "Cell 2.0 | | Cell 2.2" under a category merged down
the rows says the row has no category, and a row read alone (a chunk, a search hit) loses its
group. The rule is the one the Markdown writer applies to every other format's spans
(`host/src/render/markdown.rs`): down its first column a merged value is repeated in each row it
covers (each row a record of its own); across, only in the table's first row, which names every
column it heads ("2023 | 2023" over "Q1 | Q2"); and never when the range spans the table's whole
width (a title or section row). Sheets merge cells for layout far more than documents do, so
across takes one more condition here: the row under the range holds headings of its own in at
least two of its columns (the range groups them). A report title merged over eight of a form's
fourteen columns, with nothing under it, was written eight times in the header line. Spreadsheet tables are [`Grid`](quire_plugin_api::Grid)s without
spans, so the repetition is written into the grid here, and the JSON's sheet data shows the same
values as the Markdown.
*/

/// A merged range, zero-based and inclusive, in sheet coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    pub top: u32,
    pub left: u32,
    pub bottom: u32,
    pub right: u32,
}

impl Merge {
    /// A range from its corners in any order; `None` for a single cell (nothing merged).
    pub fn new(a: (u32, u32), b: (u32, u32)) -> Option<Merge> {
        let m = Merge {
            top: a.0.min(b.0),
            left: a.1.min(b.1),
            bottom: a.0.max(b.0),
            right: a.1.max(b.1),
        };
        (m.top != m.bottom || m.left != m.right).then_some(m)
    }

    /// An OOXML `ref` such as `B2:D4`.
    pub fn from_ref(r: &[u8]) -> Option<Merge> {
        let mut ends = r.split(|&b| b == b':').map(crate::xlsx::cell_ref);
        let (a, b) = (ends.next()??, ends.next()??);
        if ends.next().is_some() {
            return None;
        }
        Merge::new(a, b)
    }
}

/// A merged range within one table: rows and columns relative to the sheet's range, clipped to
/// the table; the anchor (top-left) lies inside the table.
#[derive(Debug, Clone, Copy)]
struct Local {
    top: usize,
    left: usize,
    bottom: usize,
    right: usize,
    /// The row under the range has cells of its own in two or more of its columns.
    groups: bool,
}

/// Walks one table's rows top to bottom and fills the cells its merged ranges cover.
pub struct Filler {
    /// Ranges not reached yet, the lowest top last.
    waiting: Vec<Local>,
    /// Ranges covering the current row, with their anchor's text once its row was rendered.
    active: Vec<(Local, Option<String>)>,
    left: usize,
    width: usize,
}

impl Filler {
    /// The ranges of `merges` anchored inside the table `top..=bottom` x `left..=right` (those
    /// bounds relative to a range starting at sheet row `r0`, column `c0`). `merges` is sorted
    /// by top row; `filled(row, column)` says whether a cell (relative to the range) holds a
    /// value.
    pub fn new(
        merges: &[Merge],
        (r0, c0): (u32, u32),
        (top, left, bottom, right): (usize, usize, usize, usize),
        filled: impl Fn(usize, usize) -> bool,
    ) -> Filler {
        let abs = |v: usize, o: u32| u32::try_from(v).ok().and_then(|v| v.checked_add(o));
        let (Some(top_abs), Some(bottom_abs)) = (abs(top, r0), abs(bottom, r0)) else {
            return Filler::empty();
        };
        let from = merges.partition_point(|m| m.top < top_abs);
        let mut waiting: Vec<Local> = merges[from..]
            .iter()
            .take_while(|m| m.top <= bottom_abs)
            .filter_map(|m| {
                let t = (m.top - r0) as usize;
                let l = m.left.checked_sub(c0)? as usize;
                if !(left..=right).contains(&l) {
                    return None;
                }
                let under = (m.bottom - r0) as usize + 1;
                let r = (m.right.saturating_sub(c0) as usize).min(right);
                Some(Local {
                    top: t,
                    left: l,
                    bottom: (under - 1).min(bottom),
                    right: r,
                    groups: under <= bottom
                        && (l..=r).filter(|&c| filled(under, c)).nth(1).is_some(),
                })
            })
            .collect();
        waiting.reverse();
        Filler {
            waiting,
            active: Vec::new(),
            left,
            width: right - left + 1,
        }
    }

    fn empty() -> Filler {
        Filler {
            waiting: Vec::new(),
            active: Vec::new(),
            left: 0,
            width: 0,
        }
    }

    /// Fills row `row` (relative to the range) of `cells` (indexed by range column, already
    /// rendered), where `first` says whether it is the table's first row.
    pub fn fill(&mut self, row: usize, first: bool, cells: &mut [String]) {
        self.active.retain(|(m, _)| m.bottom >= row);
        while self.waiting.last().is_some_and(|m| m.top <= row) {
            let m = self.waiting.pop().expect("checked");
            if m.top == row {
                let anchor = cells.get(m.left).filter(|s| !s.is_empty()).cloned();
                self.active.push((m, anchor));
            }
        }
        for (m, anchor) in &self.active {
            let Some(text) = anchor else { continue };
            if m.right - m.left + 1 >= self.width && m.left <= self.left {
                continue; // the whole width: a title or section row
            }
            for (c, cell) in cells.iter_mut().enumerate().take(m.right + 1).skip(m.left) {
                let anchor_cell = row == m.top && c == m.left;
                if !anchor_cell && (c == m.left || (first && m.groups)) && cell.is_empty() {
                    cell.clone_from(text);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[&[&str]], merges: &[Merge], first_row: usize) -> Vec<Vec<String>> {
        let width = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        let filled = |r: usize, c: usize| rows[r].get(c).is_some_and(|s| !s.is_empty());
        let mut filler = Filler::new(merges, (0, 0), (0, 0, rows.len() - 1, width - 1), filled);
        rows.iter()
            .enumerate()
            .map(|(r, row)| {
                let mut cells: Vec<String> = row.iter().map(|s| s.to_string()).collect();
                cells.resize(width, String::new());
                filler.fill(r, r == first_row, &mut cells);
                cells
            })
            .collect()
    }

    #[test]
    fn refs_parse_and_single_cells_are_no_merge() {
        assert_eq!(
            Merge::from_ref(b"B2:D4"),
            Some(Merge {
                top: 1,
                left: 1,
                bottom: 3,
                right: 3
            })
        );
        assert_eq!(Merge::from_ref(b"C3:C3"), None);
        assert_eq!(Merge::from_ref(b"C3"), None);
        assert_eq!(Merge::from_ref(b"A1:B2:C3"), None);
    }

    #[test]
    fn down_repeats_in_every_row_across_only_in_the_first_row() {
        // docling's xlsx_01 Sheet3: A1:A2 and B1:C1 over a header, F12:G13-like 2x2 in the body.
        let m = |t, l, b, r| Merge {
            top: t,
            left: l,
            bottom: b,
            right: r,
        };
        let merges = [m(0, 0, 1, 0), m(0, 1, 0, 2), m(3, 1, 4, 2)];
        let got = table(
            &[
                &["first", "header", ""],
                &["", "second", "third"],
                &["1", "2", "3"],
                &["8", "9", ""],
                &["10", "", ""],
            ],
            &merges,
            0,
        );
        assert_eq!(
            got,
            [
                ["first", "header", "header"],
                ["first", "second", "third"],
                ["1", "2", "3"],
                ["8", "9", ""],
                ["10", "9", ""],
            ]
        );
    }

    #[test]
    fn across_the_first_row_only_over_headings_of_its_own() {
        let m = |t, l, b, r| Merge {
            top: t,
            left: l,
            bottom: b,
            right: r,
        };
        // A title over three of four columns with nothing under it, then a group header.
        let got = table(
            &[
                &["Date", "Report", "", ""],
                &["", "", "", "x"],
                &["a", "b", "c", "d"],
            ],
            &[m(0, 1, 0, 3)],
            0,
        );
        assert_eq!(got[0], ["Date", "Report", "", ""]);
        let got = table(
            &[&["Date", "2023", ""], &["", "Q1", "Q2"]],
            &[m(0, 1, 0, 2)],
            0,
        );
        assert_eq!(got[0], ["Date", "2023", "2023"]);
    }

    #[test]
    fn a_range_over_the_whole_width_is_written_once() {
        let m = Merge {
            top: 0,
            left: 0,
            bottom: 1,
            right: 2,
        };
        let got = table(
            &[&["Title", "", ""], &["", "", ""], &["a", "b", "c"]],
            &[m],
            0,
        );
        assert_eq!(got[0], ["Title", "", ""]);
        assert_eq!(got[1], ["", "", ""]);
    }

    #[test]
    fn ranges_anchored_outside_the_table_are_left_alone() {
        let m = Merge {
            top: 0,
            left: 0,
            bottom: 3,
            right: 0,
        };
        // The table starts at row 2: the range's anchor is above it.
        let mut filler = Filler::new(&[m], (0, 0), (2, 0, 3, 1), |_, _| true);
        let mut cells = vec![String::new(), "x".to_owned()];
        filler.fill(2, true, &mut cells);
        assert_eq!(cells, ["", "x"]);
    }
}
