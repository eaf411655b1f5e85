//! Text detection: DBNet's probability map to text boxes, and how the seed's EasyOCR-style
//! thresholds map onto it.
//!
//! EasyOCR's CRAFT detector has two maps (region and link) and three thresholds; DBNet has one
//! probability map. The mapping, each piece measured (see the research notes):
//!
//! | setting | CRAFT meaning | here |
//! |---|---|---|
//! | `low_text` (0.4) | binarise the region map | binarise the probability map (DB `thresh`) |
//! | `text_threshold` (0.7) | keep a region whose *maximum* score reaches it | the same max test on each DB region, plus a *mean* test (DB `box_thresh`) at 5/7 of it, 0.5 by default |
//! | `link_threshold` (0.4) | binarise the link map; lower joins more characters | DB `unclip_ratio` = 2 − link, 1.6 by default; lower grows boxes more |
//!
//! The mean test sits below the max test because a mean over a box is always lower than its
//! peak: a box mean of 0.7 dropped faint lines (CER 3.4% against 0.2% at 0.5). Unclip 1.6 was
//! the best measured; 2.5 merged neighbouring lines.

use crate::geometry::{min_area_rect, order_corners, Pt, RotRect};
use crate::raster::Quad;
use quire_plugin_api::OcrConfig;

/// DB post-processing parameters derived from the configured thresholds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DbParams {
    /// Binarisation of the probability map.
    pub thresh: f32,
    /// A region's highest probability must reach this.
    pub max_thresh: f32,
    /// The mean probability inside a region's box must reach this.
    pub box_thresh: f32,
    /// Boxes grow by `area * unclip_ratio / perimeter` on every side.
    pub unclip_ratio: f32,
}

impl DbParams {
    pub fn from_config(cfg: &OcrConfig) -> DbParams {
        let finite = |v: f32, default: f32| if v.is_finite() { v } else { default };
        let low_text = finite(cfg.low_text, 0.4).clamp(0.05, 0.95);
        let text = finite(cfg.text_threshold, 0.7).clamp(low_text, 0.99);
        let link = finite(cfg.link_threshold, 0.4).clamp(0.0, 1.0);
        DbParams {
            thresh: low_text,
            max_thresh: text,
            box_thresh: (text * 5.0 / 7.0).max(low_text.min(text)),
            unclip_ratio: (2.0 - link).clamp(1.2, 2.5),
        }
    }
}

/// Most regions considered on one page (PaddleOCR's `max_candidates`).
const MAX_CANDIDATES: usize = 1000;
/// Boxes with a shorter side (in detector pixels) are noise (PaddleOCR's `min_size` + 2).
const MIN_SIDE: f32 = 5.0;

/// A detected box in page pixels with its scores.
#[derive(Debug, Clone, PartialEq)]
pub struct TextBox {
    pub quad: Quad,
    pub mean: f32,
}

/// Turns the `[h, w]` probability map into boxes scaled by `scale` (detector to page pixels).
pub fn boxes_from_map(
    prob: &[f32],
    h: usize,
    w: usize,
    scale: [f32; 2],
    p: &DbParams,
) -> Vec<TextBox> {
    let mut seen = vec![false; h * w];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    // Per-row extremes of the current region, reset through `touched` after each region.
    let mut row_min = vec![usize::MAX; h];
    let mut row_max = vec![0usize; h];
    let mut touched: Vec<usize> = Vec::new();
    let mut regions = 0;
    for start in 0..h * w {
        if seen[start] || prob[start] < p.thresh {
            continue;
        }
        regions += 1;
        if regions > MAX_CANDIDATES {
            break;
        }
        // Flood fill one 8-connected region, tracking each row's extremes for the hull.
        let mut max_score = 0f32;
        seen[start] = true;
        stack.push(start);
        while let Some(i) = stack.pop() {
            let (y, x) = (i / w, i % w);
            max_score = max_score.max(prob[i]);
            if row_min[y] == usize::MAX {
                touched.push(y);
            }
            row_min[y] = row_min[y].min(x);
            row_max[y] = row_max[y].max(x);
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (ny, nx) = (y as i64 + dy, x as i64 + dx);
                    if ny < 0 || nx < 0 || ny >= h as i64 || nx >= w as i64 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if !seen[j] && prob[j] >= p.thresh {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let pts: Vec<Pt> = touched
            .iter()
            .flat_map(|&y| [[row_min[y] as f32, y as f32], [row_max[y] as f32, y as f32]])
            .collect();
        for &y in &touched {
            row_min[y] = usize::MAX;
            row_max[y] = 0;
        }
        touched.clear();
        if max_score < p.max_thresh {
            continue;
        }
        let Some(rect) = min_area_rect(&pts) else {
            continue;
        };
        if rect.w.min(rect.h) < MIN_SIDE - 2.0 {
            continue;
        }
        let mean = mean_inside(prob, h, w, &rect);
        if mean < p.box_thresh {
            continue;
        }
        let grown = unclip(&rect, p.unclip_ratio);
        if grown.w.min(grown.h) < MIN_SIDE {
            continue;
        }
        let corners = grown.corners().map(|[x, y]| {
            [
                (x * scale[0]).clamp(0.0, w as f32 * scale[0]),
                (y * scale[1]).clamp(0.0, h as f32 * scale[1]),
            ]
        });
        out.push(TextBox {
            quad: order_corners(corners),
            mean,
        });
    }
    out
}

/// PaddleOCR's `unclip`: offset the box outwards by `area * ratio / perimeter`.
fn unclip(rect: &RotRect, ratio: f32) -> RotRect {
    let perimeter = 2.0 * (rect.w + rect.h);
    if perimeter <= 0.0 {
        return *rect;
    }
    rect.grow(rect.w * rect.h * ratio / perimeter)
}

/// Mean probability over the pixels inside `rect` (PaddleOCR's `box_score_fast`).
fn mean_inside(prob: &[f32], h: usize, w: usize, rect: &RotRect) -> f32 {
    let corners = rect.corners();
    let xs = corners.iter().map(|c| c[0]);
    let ys = corners.iter().map(|c| c[1]);
    let x0 = xs.clone().fold(f32::MAX, f32::min).floor().max(0.0) as usize;
    let x1 = (xs.fold(f32::MIN, f32::max).ceil().max(0.0) as usize).min(w - 1);
    let y0 = ys.clone().fold(f32::MAX, f32::min).floor().max(0.0) as usize;
    let y1 = (ys.fold(f32::MIN, f32::max).ceil().max(0.0) as usize).min(h - 1);
    let (mut sum, mut n) = (0f64, 0usize);
    for y in y0..=y1 {
        for x in x0..=x1 {
            if rect.contains([x as f32, y as f32]) {
                sum += f64::from(prob[y * w + x]);
                n += 1;
            }
        }
    }
    if n == 0 {
        0.0
    } else {
        (sum / n as f64) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_thresholds_map_to_measured_values() {
        let p = DbParams::from_config(&OcrConfig::default());
        assert!((p.thresh - 0.4).abs() < 1e-6);
        assert!((p.max_thresh - 0.7).abs() < 1e-6);
        assert!((p.box_thresh - 0.5).abs() < 1e-6);
        assert!((p.unclip_ratio - 1.6).abs() < 1e-6);
    }

    #[test]
    fn one_bright_bar_gives_one_box() {
        let (h, w) = (40, 100);
        let mut prob = vec![0f32; h * w];
        for y in 15..25 {
            for x in 10..90 {
                prob[y * w + x] = 0.9;
            }
        }
        // A faint blob whose peak never reaches text_threshold is dropped.
        for y in 2..8 {
            for x in 2..20 {
                prob[y * w + x] = 0.6;
            }
        }
        let p = DbParams::from_config(&OcrConfig::default());
        let boxes = boxes_from_map(&prob, h, w, [2.0, 2.0], &p);
        assert_eq!(boxes.len(), 1, "{boxes:?}");
        let q = boxes[0].quad;
        assert!(
            q[0][0] < 20.0 && q[1][0] > 178.0 && q[0][1] < 30.0 && q[3][1] > 48.0,
            "{q:?}"
        );
    }
}
