//! Page geometry in display space: points, origin at the top-left of the page as shown
//! (after `/Rotate`), y growing downwards. Everything after extraction works in these terms.

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

impl Rect {
    pub fn new(x0: f32, y0: f32, x1: f32, y1: f32) -> Rect {
        Rect {
            x0: x0.min(x1),
            y0: y0.min(y1),
            x1: x0.max(x1),
            y1: y0.max(y1),
        }
    }

    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> f32 {
        self.y1 - self.y0
    }

    pub fn union(&self, other: &Rect) -> Rect {
        Rect {
            x0: self.x0.min(other.x0),
            y0: self.y0.min(other.y0),
            x1: self.x1.max(other.x1),
            y1: self.y1.max(other.y1),
        }
    }

    /// Length of the overlap of the vertical extents (0 when apart).
    pub fn v_overlap(&self, other: &Rect) -> f32 {
        (self.y1.min(other.y1) - self.y0.max(other.y0)).max(0.0)
    }

    pub fn center_y(&self) -> f32 {
        (self.y0 + self.y1) / 2.0
    }

    pub fn contains_point(&self, x: f32, y: f32) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }

    pub fn area(&self) -> f32 {
        self.width().max(0.0) * self.height().max(0.0)
    }
}

/// Maps PDF user space (y up, page rotation not applied) to display space.
#[derive(Debug, Clone, Copy)]
pub struct PageTransform {
    /// The media box in user space.
    pub left: f32,
    pub bottom: f32,
    pub right: f32,
    pub top: f32,
    /// Clockwise quarter turns of `/Rotate`.
    pub quarter_turns: u8,
}

impl PageTransform {
    pub fn point(&self, x: f32, y: f32) -> (f32, f32) {
        match self.quarter_turns % 4 {
            1 => (y - self.bottom, x - self.left),
            2 => (self.right - x, y - self.bottom),
            3 => (self.top - y, self.right - x),
            _ => (x - self.left, self.top - y),
        }
    }

    pub fn rect(&self, left: f32, bottom: f32, right: f32, top: f32) -> Rect {
        let (ax, ay) = self.point(left, bottom);
        let (bx, by) = self.point(right, top);
        Rect::new(ax, ay, bx, by)
    }

    /// Width and height of the page as displayed.
    pub fn display_size(&self) -> (f32, f32) {
        let (w, h) = (self.right - self.left, self.top - self.bottom);
        if self.quarter_turns % 2 == 1 {
            (h, w)
        } else {
            (w, h)
        }
    }
}

/// The median of some values (0 for none; non-finite values are left out).
pub fn median(values: impl IntoIterator<Item = f32>) -> f32 {
    let mut v: Vec<f32> = values.into_iter().collect();
    median_in(&mut v)
}

/// [`median`] of the values in a buffer the caller reuses (the buffer is reordered).
pub fn median_in(v: &mut Vec<f32>) -> f32 {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return 0.0;
    }
    // The element a full sort would put in the middle (a total order: the same value).
    let mid = v.len() / 2;
    *v.select_nth_unstable_by(mid, f32::total_cmp).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_maps_corners() {
        let t = |q| PageTransform {
            left: 0.0,
            bottom: 0.0,
            right: 100.0,
            top: 200.0,
            quarter_turns: q,
        };
        // The user-space top-left corner.
        assert_eq!(t(0).point(0.0, 200.0), (0.0, 0.0));
        assert_eq!(t(1).point(0.0, 200.0), (200.0, 0.0));
        assert_eq!(t(2).point(0.0, 200.0), (100.0, 200.0));
        assert_eq!(t(3).point(0.0, 200.0), (0.0, 100.0));
        assert_eq!(t(1).display_size(), (200.0, 100.0));
    }
}
