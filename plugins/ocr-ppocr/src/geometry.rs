//! Plane geometry for text boxes: convex hull, minimum-area rectangle, corner order.
//!
//! DBNet's post-processing (as PaddleOCR does it with OpenCV) fits the smallest rotated
//! rectangle around each text region; this is the same fit, done by rotating calipers over
//! the region's convex hull.

pub type Pt = [f32; 2];

/// Convex hull (Andrew's monotone chain), counter-clockwise, without collinear points.
pub fn convex_hull(points: &[Pt]) -> Vec<Pt> {
    let mut pts: Vec<Pt> = points.to_vec();
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: Pt, a: Pt, b: Pt| (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    let mut lower: Vec<Pt> = Vec::new();
    for &p in &pts {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<Pt> = Vec::new();
    for &p in pts.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// A rotated rectangle: centre, unit direction of its first side, and side lengths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotRect {
    pub center: Pt,
    /// Unit vector along the `w` side.
    pub dir: Pt,
    pub w: f32,
    pub h: f32,
}

impl RotRect {
    /// The four corners, in no particular order of reading.
    pub fn corners(&self) -> [Pt; 4] {
        let [cx, cy] = self.center;
        let [ux, uy] = self.dir;
        let (vx, vy) = (-uy, ux);
        let (hw, hh) = (self.w / 2.0, self.h / 2.0);
        [
            [cx - ux * hw - vx * hh, cy - uy * hw - vy * hh],
            [cx + ux * hw - vx * hh, cy + uy * hw - vy * hh],
            [cx + ux * hw + vx * hh, cy + uy * hw + vy * hh],
            [cx - ux * hw + vx * hh, cy - uy * hw + vy * hh],
        ]
    }

    /// Grows every side outwards by `d`.
    pub fn grow(&self, d: f32) -> RotRect {
        RotRect {
            w: self.w + 2.0 * d,
            h: self.h + 2.0 * d,
            ..*self
        }
    }

    /// Whether `p` lies inside (borders included).
    pub fn contains(&self, p: Pt) -> bool {
        let dx = p[0] - self.center[0];
        let dy = p[1] - self.center[1];
        let along = dx * self.dir[0] + dy * self.dir[1];
        let across = -dx * self.dir[1] + dy * self.dir[0];
        along.abs() <= self.w / 2.0 + 1e-3 && across.abs() <= self.h / 2.0 + 1e-3
    }
}

/// The smallest-area rectangle around `points` (rotating calipers over the hull).
pub fn min_area_rect(points: &[Pt]) -> Option<RotRect> {
    let hull = convex_hull(points);
    match hull.len() {
        0 => return None,
        1 => {
            return Some(RotRect {
                center: hull[0],
                dir: [1.0, 0.0],
                w: 0.0,
                h: 0.0,
            })
        }
        _ => {}
    }
    let mut best: Option<(f32, RotRect)> = None;
    for i in 0..hull.len() {
        let a = hull[i];
        let b = hull[(i + 1) % hull.len()];
        let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
        if len < 1e-6 {
            continue;
        }
        let u = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
        let (mut min_u, mut max_u, mut min_v, mut max_v) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for p in &hull {
            let pu = p[0] * u[0] + p[1] * u[1];
            let pv = -p[0] * u[1] + p[1] * u[0];
            min_u = min_u.min(pu);
            max_u = max_u.max(pu);
            min_v = min_v.min(pv);
            max_v = max_v.max(pv);
        }
        let area = (max_u - min_u) * (max_v - min_v);
        if best.as_ref().is_none_or(|(a, _)| area < *a) {
            let cu = (min_u + max_u) / 2.0;
            let cv = (min_v + max_v) / 2.0;
            let center = [cu * u[0] - cv * u[1], cu * u[1] + cv * u[0]];
            best = Some((
                area,
                RotRect {
                    center,
                    dir: u,
                    w: max_u - min_u,
                    h: max_v - min_v,
                },
            ));
        }
    }
    best.map(|(_, r)| r)
}

/// Orders four corners as PaddleOCR does: the two left-most points give top-left and
/// bottom-left (by y), the two others top-right and bottom-right; returns [tl, tr, br, bl].
pub fn order_corners(mut pts: [Pt; 4]) -> [Pt; 4] {
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let (tl, bl) = if pts[0][1] <= pts[1][1] {
        (pts[0], pts[1])
    } else {
        (pts[1], pts[0])
    };
    let (tr, br) = if pts[2][1] <= pts[3][1] {
        (pts[2], pts[3])
    } else {
        (pts[3], pts[2])
    };
    [tl, tr, br, bl]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_aligned_rectangle_is_recovered() {
        let mut pts = Vec::new();
        for x in 0..=10 {
            for y in 0..=4 {
                pts.push([x as f32, y as f32]);
            }
        }
        let r = min_area_rect(&pts).unwrap();
        let (long, short) = (r.w.max(r.h), r.w.min(r.h));
        assert!(
            (long - 10.0).abs() < 1e-3 && (short - 4.0).abs() < 1e-3,
            "{r:?}"
        );
        assert!(r.contains([5.0, 2.0]) && !r.contains([12.0, 2.0]));
        let c = order_corners(r.corners());
        assert_eq!(c[0], [0.0, 0.0]);
        assert_eq!(c[2], [10.0, 4.0]);
    }

    #[test]
    fn rotated_rectangle_has_its_true_sides() {
        let (s, c) = (0.3f32.sin(), 0.3f32.cos());
        let pts: Vec<Pt> = [[0.0, 0.0], [20.0, 0.0], [20.0, 5.0], [0.0, 5.0]]
            .iter()
            .map(|p: &[f32; 2]| [p[0] * c - p[1] * s, p[0] * s + p[1] * c])
            .collect();
        let r = min_area_rect(&pts).unwrap();
        assert!((r.w.max(r.h) - 20.0).abs() < 1e-2 && (r.w.min(r.h) - 5.0).abs() < 1e-2);
    }
}
