//! The page pipeline: decode, detect, fix the page's orientation, recognise, order.
//!
//! Orientation is decided once per page, not per line: a page whose boxes are mostly tall
//! (text running up or down) is turned a quarter and detected again, then the direction
//! classifier votes over the page's lines whether it is upside down. Deciding per line (as
//! PaddleOCR's `use_angle_cls` does) flipped long upright lines and cost accuracy.

use crate::detect::{boxes_from_map, DbParams, TextBox};
use crate::layout::{reading_text, Line};
use crate::models::Models;
use crate::raster::{decode, det_tensor, Quad};
use crate::recognize::{page_upside_down, recognize, strips, CLS_H};
use image::RgbImage;
use quire_plugin_api::{Error, OcrOutput, Result};
use rten_tensor::prelude::*;
use rten_tensor::NdTensor;

/// The detector sees the page with its longest side at most this many pixels: the measured
/// best. (PaddleOCR's "shortest side 736" default blows wide images up four times.)
pub const DET_MAX_SIDE: u32 = 960;
/// Lines whose mean character probability is lower are dropped (noise read as text).
pub const MIN_LINE_SCORE: f32 = 0.5;

/// Each line's crop reaches this fraction of its height past both ends of its box: DB boxes
/// often stop short of a final period, which the recogniser then missed (CER 0.07% → 0.01%
/// on the generated pages; 0.1 to 0.3 measured the same).
const LINE_END_PAD: f32 = 0.15;

/// Reads the text of one encoded image.
pub fn read_image(models: &Models, params: &DbParams, data: &[u8]) -> Result<OcrOutput> {
    let img = decode(data)?;
    read_page(models, params, img)
}

/// Reads the text of one decoded page.
pub fn read_page(models: &Models, params: &DbParams, mut img: RgbImage) -> Result<OcrOutput> {
    let mut boxes = detect_page(models, params, &img)?;
    let lean = orientation_lean(&boxes);
    if lean < 0.0 {
        let turned = image::imageops::rotate90(&img);
        let turned_boxes = detect_page(models, params, &turned)?;
        // Keep the turn only if the text now runs across.
        if orientation_lean(&turned_boxes) > 0.0 {
            img = turned;
            boxes = turned_boxes;
        }
    }
    let mut quads: Vec<Quad> = boxes.into_iter().map(|b| b.quad).collect();
    if quads.is_empty() {
        return Ok(OcrOutput {
            text: String::new(),
            confidence: None,
        });
    }
    let (w, h) = (img.width() as f32, img.height() as f32);
    let padded: Vec<Quad> = quads
        .iter()
        .map(|q| lengthen(q, LINE_END_PAD, w, h))
        .collect();
    let mut strips = strips(&img, &padded, models.rec_height);
    let upside_down = if models.rec_height == CLS_H {
        page_upside_down(models, &strips)?
    } else {
        page_upside_down(models, &crate::recognize::strips(&img, &padded, CLS_H))?
    };
    drop(img);
    if upside_down {
        // Turn the cut lines, not the page, and move the boxes to where they would be.
        for s in &mut strips {
            s.rotate180();
        }
        for q in &mut quads {
            *q = crate::geometry::order_corners(q.map(|[x, y]| [w - x, h - y]));
        }
    }
    let read = recognize(models, &strips)?;
    let mut lines = Vec::new();
    let (mut weighted, mut chars) = (0f64, 0usize);
    for (q, r) in quads.iter().zip(read) {
        let text = r.text.trim();
        if text.is_empty() || r.score < MIN_LINE_SCORE {
            continue;
        }
        let n = text.chars().count();
        weighted += f64::from(r.score) * n as f64;
        chars += n;
        let xs = q.iter().map(|p| p[0]);
        let ys = q.iter().map(|p| p[1]);
        lines.push(Line {
            x0: xs.clone().fold(f32::MAX, f32::min),
            x1: xs.fold(f32::MIN, f32::max),
            y0: ys.clone().fold(f32::MAX, f32::min),
            y1: ys.fold(f32::MIN, f32::max),
            text: text.to_string(),
        });
    }
    Ok(OcrOutput {
        text: reading_text(&lines),
        confidence: (chars > 0).then(|| (weighted / chars as f64) as f32),
    })
}

/// Text boxes on the page, in page pixels. A large page whose text came out tiny at the usual
/// detector size (or not at all) is detected again at up to twice that size: small print on
/// a wide screenshot was otherwise missed (one line of four lost, CER 26% → 0%).
fn detect_page(models: &Models, params: &DbParams, img: &RgbImage) -> Result<Vec<TextBox>> {
    let longest = img.width().max(img.height());
    let boxes = detect(models, params, img, DET_MAX_SIDE)?;
    if longest <= DET_MAX_SIDE {
        return Ok(boxes);
    }
    let scale = DET_MAX_SIDE as f32 / longest as f32;
    let mut heights: Vec<f32> = boxes.iter().map(|b| short_side(&b.quad) * scale).collect();
    heights.sort_by(f32::total_cmp);
    if heights
        .get(heights.len() / 2)
        .is_some_and(|&h| h >= SMALL_TEXT_PX)
    {
        return Ok(boxes);
    }
    let retry = detect(models, params, img, longest.min(DET_MAX_SIDE * 2))?;
    Ok(if retry.len() >= boxes.len() {
        retry
    } else {
        boxes
    })
}

/// Median box height (detector pixels) below which a large page is detected again larger.
const SMALL_TEXT_PX: f32 = 12.0;

fn short_side(q: &Quad) -> f32 {
    let d = |a: [f32; 2], b: [f32; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    d(q[0], q[1]).min(d(q[0], q[3]))
}

/// Text boxes on the page, in page pixels, with the detector input's longest side at most
/// `max_side`.
pub fn detect(
    models: &Models,
    params: &DbParams,
    img: &RgbImage,
    max_side: u32,
) -> Result<Vec<TextBox>> {
    let (data, [h, w], scale) = det_tensor(img, max_side);
    let input = NdTensor::from_data([1, 3, h, w], data);
    let out = models
        .det
        .model
        .run_one(input.into(), None)
        .map_err(|e| Error::internal("The text detector failed to run.").with_detail(e))?;
    let map: NdTensor<f32, 4> = out.try_into().map_err(|e| {
        Error::internal("The text detector gave an unexpected output.").with_detail(e)
    })?;
    let [_, _, mh, mw] = map.shape();
    let prob = map.to_vec();
    // The map may differ from the input size; rescale to page pixels from the map's own size.
    let sx = scale[0] * w as f32 / mw.max(1) as f32;
    let sy = scale[1] * h as f32 / mh.max(1) as f32;
    Ok(boxes_from_map(&prob[..mh * mw], mh, mw, [sx, sy], params))
}

/// How much of the page's text runs across (positive) rather than up or down (negative):
/// the summed length of clearly elongated boxes, wide minus tall. Boxes less than 2.5 times
/// longer than high do not vote, so single characters and digits (a tall "1") never turn a
/// page.
fn orientation_lean(boxes: &[TextBox]) -> f32 {
    let mut lean = 0f32;
    for b in boxes {
        let [tl, tr, _, bl] = b.quad;
        let w = ((tr[0] - tl[0]).powi(2) + (tr[1] - tl[1]).powi(2)).sqrt();
        let h = ((bl[0] - tl[0]).powi(2) + (bl[1] - tl[1]).powi(2)).sqrt();
        if h >= ELONGATED * w {
            lean -= h;
        } else if w >= ELONGATED * h {
            lean += w;
        }
    }
    lean
}

/// Length-to-height ratio from which a box says which way its text runs.
const ELONGATED: f32 = 2.5;

/// Moves the quad's left and right ends outwards by `frac` of its height, within the page.
fn lengthen(q: &Quad, frac: f32, w: f32, h: f32) -> Quad {
    let [tl, tr, br, bl] = *q;
    let len = ((tr[0] - tl[0]).powi(2) + (tr[1] - tl[1]).powi(2))
        .sqrt()
        .max(1e-3);
    let height = ((bl[0] - tl[0]).powi(2) + (bl[1] - tl[1]).powi(2)).sqrt();
    let d = frac * height;
    let u = [(tr[0] - tl[0]) / len * d, (tr[1] - tl[1]) / len * d];
    let clamp = |p: [f32; 2]| [p[0].clamp(0.0, w), p[1].clamp(0.0, h)];
    [
        clamp([tl[0] - u[0], tl[1] - u[1]]),
        clamp([tr[0] + u[0], tr[1] + u[1]]),
        clamp([br[0] + u[0], br[1] + u[1]]),
        clamp([bl[0] - u[0], bl[1] - u[1]]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tb(x0: f32, y0: f32, x1: f32, y1: f32) -> TextBox {
        TextBox {
            quad: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
            mean: 0.9,
        }
    }

    #[test]
    fn only_elongated_boxes_decide_the_orientation() {
        // A column of tall single digits does not turn the page.
        let digits: Vec<TextBox> = (0..10)
            .map(|i| tb(10.0, i as f32 * 40.0, 24.0, i as f32 * 40.0 + 28.0))
            .collect();
        assert_eq!(orientation_lean(&digits), 0.0);
        // Two vertical lines outweigh one short horizontal line.
        let page = vec![
            tb(0.0, 0.0, 30.0, 400.0),
            tb(40.0, 0.0, 70.0, 300.0),
            tb(100.0, 0.0, 300.0, 30.0),
        ];
        assert!(orientation_lean(&page) < 0.0);
        assert!(orientation_lean(&page[2..]) > 0.0);
    }

    #[test]
    fn lengthened_boxes_stay_on_the_page() {
        let q = [[5.0, 10.0], [100.0, 10.0], [100.0, 30.0], [5.0, 30.0]];
        let l = lengthen(&q, 0.5, 105.0, 50.0);
        assert_eq!(l[0], [0.0, 10.0]);
        assert_eq!(l[1], [105.0, 10.0]);
        assert_eq!(l[2][1], 30.0);
    }
}
