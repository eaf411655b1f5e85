//! The rectangle a sheet's values span, measured before calamine reads the sheet: calamine
//! holds a sheet as that whole rectangle, whatever the file declares, so every reader checks
//! its area against the cell limit first.

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Span(Option<(u32, u32, u32, u32)>);

impl Span {
    /// Widens the span to cover the cells from (top, left) to (bottom, right).
    pub fn cover(&mut self, top: u32, left: u32, bottom: u32, right: u32) {
        self.0 = Some(match self.0 {
            None => (top, left, bottom, right),
            Some((r0, c0, r1, c1)) => (r0.min(top), c0.min(left), r1.max(bottom), c1.max(right)),
        });
    }

    /// Widens the span to cover one cell.
    pub fn add(&mut self, row: u32, col: u32) {
        self.cover(row, col, row, col);
    }

    /// (top, left, bottom, right), or `None` when no cell holds a value.
    #[cfg(test)]
    pub fn bounds(&self) -> Option<(u32, u32, u32, u32)> {
        self.0
    }

    /// Rows and columns of the rectangle.
    pub fn size(&self) -> Option<(u64, u64)> {
        self.0
            .map(|(r0, c0, r1, c1)| (u64::from(r1 - r0) + 1, u64::from(c1 - c0) + 1))
    }

    /// Cells in the rectangle.
    pub fn area(&self) -> Option<u64> {
        self.size().map(|(rows, cols)| rows.saturating_mul(cols))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_covers_every_cell_added() {
        let mut s = Span::default();
        assert_eq!(s.area(), None);
        s.add(3, 2);
        s.cover(0, 5, 9, 5);
        assert_eq!(s.bounds(), Some((0, 2, 9, 5)));
        assert_eq!(s.size(), Some((10, 4)));
        assert_eq!(s.area(), Some(40));
    }
}
