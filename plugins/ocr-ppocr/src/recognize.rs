//! Recognition (SVTR, CTC head) and the page-level direction vote.
//!
//! Lines are cut from the page at the recogniser's input height (48 for PP-OCRv6) with their
//! width following the box's aspect, and each is run alone at its own width: padding a line to
//! a batch's widest member changed what the recogniser read (word spaces dropped; see
//! [`rec_input`]). CTC greedy decoding: the best class at each step, repeats collapsed, blanks
//! dropped; the line's score is the mean probability of its characters.

use crate::models::{Models, Net};
use crate::raster::{crop, strip_batch, Quad};
use image::RgbImage;
use quire_plugin_api::{Error, Result};
use rten_tensor::prelude::*;
use rten_tensor::NdTensor;

/// Widest line strip in pixels (a 66:1 line at height 48); wider boxes are squeezed.
const MAX_STRIP_WIDTH: usize = 3200;
/// The classifier's input: 48 x 192.
pub const CLS_H: usize = 48;
const CLS_W: usize = 192;
/// Windows the direction vote looks at, at most, per page and per line.
const CLS_MAX_WINDOWS: usize = 48;
const CLS_WINDOWS_PER_LINE: usize = 3;

/// A recognised line.
#[derive(Debug, Clone, PartialEq)]
pub struct Recognized {
    pub text: String,
    pub score: f32,
}

fn run(net: &Net, data: Vec<f32>, shape: [usize; 4]) -> Result<NdTensor<f32, 3>> {
    let input = NdTensor::from_data(shape, data);
    let out = net
        .model
        .run_one(input.into(), None)
        .map_err(|e| Error::internal("The OCR model failed to run.").with_detail(e))?;
    let out: NdTensor<f32, 3> = match out.ndim() {
        2 => {
            let t: NdTensor<f32, 2> = out.try_into().map_err(|e| {
                Error::internal("The OCR model gave an unexpected output.").with_detail(e)
            })?;
            let [a, b] = t.shape();
            NdTensor::from_data([a, 1, b], t.to_vec())
        }
        _ => out.try_into().map_err(|e| {
            Error::internal("The OCR model gave an unexpected output.").with_detail(e)
        })?,
    };
    Ok(out)
}

/// A line cut from the page: RGB bytes, row-major, `width` pixels wide.
pub struct Strip {
    pub pixels: Vec<u8>,
    pub width: usize,
}

impl Strip {
    /// The same strip turned upside down.
    pub fn rotate180(&mut self) {
        let n = self.pixels.len() / 3;
        for i in 0..n / 2 {
            let j = n - 1 - i;
            for c in 0..3 {
                self.pixels.swap(i * 3 + c, j * 3 + c);
            }
        }
    }
}

/// Cuts every quad out of the page at `height` rows (one cut serves classifier and
/// recogniser, whose inputs are both 48 rows high).
pub fn strips(img: &RgbImage, quads: &[Quad], height: usize) -> Vec<Strip> {
    quads
        .iter()
        .map(|q| {
            let (pixels, width) = crop(img, q, height, MAX_STRIP_WIDTH);
            Strip { pixels, width }
        })
        .collect()
}

/// Reads every strip; results in the order of `strips`.
pub fn recognize(models: &Models, strips: &[Strip]) -> Result<Vec<Recognized>> {
    let h = models.rec_height;
    strips
        .iter()
        .map(|s| {
            let (data, shape) = rec_input(s, h);
            let out = run(&models.rec, data, shape)?;
            let [_, _, classes] = out.shape();
            Ok(ctc_decode(&out.to_vec(), classes, &models.alphabet))
        })
        .collect()
}

/// The recogniser's input for one line: the strip alone, padded on the right only up to
/// PaddleOCR's 320-pixel reference width (as trained), never to another line's width.
///
/// Lines used to run six at a time, each padded (mid grey) to the widest of its batch: the
/// recogniser mixes the whole line, so the padding changed its reading, mostly word spaces
/// ("annual1008month"). Generated scans (`gen_scan.py`, dev seeds 5813, 190419, 66017, the
/// scan's own JPEG pixels, 9 pages) read 0.32 / 0.20 / 0.46 % CER batched and 0.06 / 0.06 /
/// 0.22 % alone, at no more CPU time per page (the batches saved nothing on two cores) and
/// 200 MB peak instead of 300-340.
fn rec_input(strip: &Strip, h: usize) -> (Vec<f32>, [usize; 4]) {
    let width = strip.width.max(h * 320 / 48);
    let data = strip_batch(&[(strip.pixels.as_slice(), strip.width)], h, width);
    (data, [1, 3, h, width])
}

/// How much the paths with a space in a gap must weigh against those without for a space to
/// be written: `ln(1 + k)` for "at least k times as much". The recogniser (trained mostly on
/// Chinese, which writes no spaces) under-rates the space class on Latin text; at k = 1 (the
/// plain likelier-of-two) the generated 3-page scan (as PDFium renders it) read at 0.55% CER,
/// most errors joined words; k = 0.57 and 0.35 measured 0.37% and 0.30% there (0.07% and
/// 0.04% on `pdftoppm`'s rendering of it), and the 18 generated test pages read the same at
/// every k (0.15%: no space put inside a word).
const SPACE_EVIDENCE: f32 = 0.405_465; // ln(1.5)

/// Greedy CTC decoding of one line's `[steps * classes]` scores, with the word space decided
/// on the whole gap between two characters rather than frame by frame.
///
/// The recogniser's last class is the space. Between two words it often spreads the space
/// over several frames, each of which blank wins by a little ("the" `, ,` "are"), so the
/// best path has no space and words run together ("theare"). CTC sums over every path that
/// gives the same text, and over a run of frames the paths with a space (one or more
/// space frames among blanks) together weigh `prod(blank + space) - prod(blank)` against
/// `prod(blank)` for none: a space is written when that ratio is over k, that is when
/// `sum(ln(1 + space / blank)) > ln(1 + k)` over the run's frames ([`SPACE_EVIDENCE`]). At
/// k = 1 this is what a beam search would settle for this choice; k is lower because the
/// model under-rates spaces.
///
/// The recognizer also drops the space of a wide word gap whose frames barely consider it
/// ("NewYear2003"), so a space is put back where the blank frames between two characters
/// clearly exceed the line's usual gap: at least 4 frames, 3 more than the median gap between
/// characters and over twice it. CJK neighbours never get one (those scripts write no spaces).
fn ctc_decode(scores_in: &[f32], classes: usize, alphabet: &[String]) -> Recognized {
    // (text, first frame, last frame, probability, evidence of a space in the gap before it).
    let mut chars: Vec<(&str, usize, usize, f32, f32)> = Vec::new();
    let mut prev = 0usize;
    let space = alphabet
        .iter()
        .rposition(|c| c == " ")
        .filter(|&i| i < classes);
    // sum(ln(1 + space / blank)) over the blank frames since the last character.
    let mut gap_space = 0f32;
    for (frame, row) in scores_in.chunks_exact(classes.max(1)).enumerate() {
        let (mut best, mut best_v) = (0usize, f32::MIN);
        let mut is_prob = true;
        for (c, &v) in row.iter().enumerate() {
            if v > best_v {
                best = c;
                best_v = v;
            }
            if !(0.0..=1.0001).contains(&v) {
                is_prob = false;
            }
        }
        let (p, sum_exp) = if is_prob {
            (best_v, 1.0)
        } else {
            // Logits: the softmax probability of the best class.
            let sum_exp: f32 = row.iter().map(|&v| (v - best_v).exp()).sum();
            (1.0 / sum_exp, sum_exp)
        };
        if best == 0 {
            if let Some(sp) = space {
                let prob = |v: f32| {
                    if is_prob {
                        v
                    } else {
                        (v - best_v).exp() / sum_exp
                    }
                };
                let blank = prob(row[0]).max(1e-6);
                gap_space += (prob(row[sp]) / blank).ln_1p();
            }
        }
        if best != 0 && best == prev {
            if let Some(last) = chars.last_mut() {
                last.2 = frame;
            }
        } else if best != 0 {
            if let Some(ch) = alphabet.get(best) {
                chars.push((ch.as_str(), frame, frame, p, gap_space));
            }
            gap_space = 0.0;
        }
        prev = best;
    }
    let gaps: Vec<usize> = chars
        .windows(2)
        .filter(|w| w[0].0 != " " && w[1].0 != " ")
        .map(|w| w[1].1.saturating_sub(w[0].2 + 1))
        .collect();
    let mut sorted = gaps.clone();
    sorted.sort_unstable();
    let typical = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    let wide = (typical * 2 + 1).max(typical + 3).max(4);
    let cjk = |s: &str| s.chars().any(|c| c as u32 >= 0x2E80);
    let mut text = String::new();
    let mut scores = Vec::with_capacity(chars.len());
    for (i, &(ch, first, _, p, evidence)) in chars.iter().enumerate() {
        if i > 0 {
            let (before, _, end, _, _) = chars[i - 1];
            let gap = first.saturating_sub(end + 1);
            let spaced = evidence > SPACE_EVIDENCE || gap >= wide;
            if spaced && before != " " && ch != " " && !cjk(before) && !cjk(ch) {
                text.push(' ');
            }
        }
        text.push_str(ch);
        scores.push(p);
    }
    let score = if scores.is_empty() {
        0.0
    } else {
        scores.iter().sum::<f32>() / scores.len() as f32
    };
    Recognized { text, score }
}

/// Whether most of the page's text is upside down: the classifier's vote over windows of the
/// longest lines. Looking at windows rather than whole lines matters: a long line squeezed
/// into 192 pixels is unreadable to the classifier and was flipped wrongly.
/// `strips` must be `CLS_H` rows high.
pub fn page_upside_down(models: &Models, strips: &[Strip]) -> Result<bool> {
    let mut lines: Vec<(&[u8], usize)> = strips
        .iter()
        .filter(|s| s.width >= CLS_H && s.pixels.len() == s.width * CLS_H * 3)
        .map(|s| (s.pixels.as_slice(), s.width))
        .collect();
    lines.sort_by_key(|l| std::cmp::Reverse(l.1));
    let mut windows: Vec<Vec<u8>> = Vec::new();
    'lines: for &(pixels, w) in &lines {
        let k = w.div_ceil(CLS_W).clamp(1, CLS_WINDOWS_PER_LINE);
        for j in 0..k {
            if windows.len() >= CLS_MAX_WINDOWS {
                break 'lines;
            }
            let ww = CLS_W.min(w);
            let x0 = if k == 1 { 0 } else { (w - ww) * j / (k - 1) };
            let mut win = Vec::with_capacity(ww * CLS_H * 3);
            for y in 0..CLS_H {
                let row = (y * w + x0) * 3;
                win.extend_from_slice(&pixels[row..row + ww * 3]);
            }
            windows.push(win);
        }
    }
    if windows.is_empty() {
        return Ok(false);
    }
    let batch: Vec<(&[u8], usize)> = windows
        .iter()
        .map(|w| (w.as_slice(), w.len() / (CLS_H * 3)))
        .collect();
    let data = strip_batch(&batch, CLS_H, CLS_W);
    let out = run(&models.cls, data, [batch.len(), 3, CLS_H, CLS_W])?;
    let (mut up, mut down) = (0usize, 0usize);
    for n in 0..batch.len() {
        let row = out.slice((n, 0)).to_vec();
        let p0 = row.first().copied().unwrap_or(1.0);
        let p180 = row.get(1).copied().unwrap_or(0.0);
        if p180 > p0 {
            down += 1;
        } else {
            up += 1;
        }
    }
    Ok(down > up)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctc_collapses_repeats_and_drops_blanks() {
        let alphabet: Vec<String> = ["", "a", "b", " "].iter().map(|s| s.to_string()).collect();
        // Steps: a a blank a b space b
        let steps = [1, 1, 0, 1, 2, 3, 2];
        let mut scores = Vec::new();
        for &k in &steps {
            let mut row = [0.0f32; 4];
            row[k] = 0.9;
            row[(k + 1) % 4] = 0.1;
            scores.extend_from_slice(&row);
        }
        let r = ctc_decode(&scores, 4, &alphabet);
        assert_eq!(r.text, "aab b");
        assert!((r.score - 0.9).abs() < 1e-5);
    }

    #[test]
    fn a_wide_blank_gap_between_words_becomes_a_space() {
        let alphabet: Vec<String> = ["", "a", "b", " "].iter().map(|s| s.to_string()).collect();
        let decode = |steps: &[usize]| {
            let mut scores = Vec::new();
            for &k in steps {
                let mut row = [0.0f32; 4];
                row[k] = 1.0;
                scores.extend_from_slice(&row);
            }
            ctc_decode(&scores, 4, &alphabet).text
        };
        // a _ b, six blanks, a _ b: a word gap the model left without a space.
        assert_eq!(decode(&[1, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 2]), "ab ab");
        // Gaps of two blanks everywhere are letter spacing, not words.
        assert_eq!(decode(&[1, 0, 0, 2, 0, 0, 1, 0, 0, 2]), "abab");
        // A space the model did emit is not doubled.
        assert_eq!(decode(&[1, 0, 2, 0, 0, 3, 0, 0, 0, 1, 0, 2]), "ab ab");
    }

    #[test]
    fn a_space_spread_over_a_gap_is_written_when_it_outweighs_none() {
        // Classes: blank, a, b, space. Letters one frame apart; between the words two blank
        // frames, each of which also gives the space a good chance.
        let alphabet: Vec<String> = ["", "a", "b", " "].iter().map(|s| s.to_string()).collect();
        let decode = |space: [f32; 2]| {
            let mut scores = Vec::new();
            let mut frame = |k: usize, sp: f32| {
                let mut row = [0.0f32; 4];
                row[k] = 1.0 - sp;
                row[3] = sp;
                scores.extend_from_slice(&row);
            };
            for &k in &[1, 0, 2, 0, 1] {
                frame(k, 0.0);
            }
            frame(0, space[0]);
            frame(0, space[1]);
            for &k in &[2, 0, 1, 0, 2] {
                frame(k, 0.0);
            }
            ctc_decode(&scores, 4, &alphabet).text
        };
        // Blank wins each frame, but a space somewhere in the gap is likelier than none:
        // 1 - 0.55 * 0.6 = 0.67 against 0.33. (Greedy decoding read "ababab".)
        assert_eq!(decode([0.45, 0.4]), "aba bab");
        // A faint chance of a space is not one: 1 - 0.9 * 0.95 = 0.15 against 0.85.
        assert_eq!(decode([0.1, 0.05]), "ababab");
    }

    #[test]
    fn a_line_is_read_at_its_own_width_whatever_the_others() {
        let strip = |width: usize| Strip {
            pixels: vec![255; width * 48 * 3],
            width,
        };
        // A line is never padded to a wider neighbour's width.
        let (data, shape) = rec_input(&strip(900), 48);
        assert_eq!(shape, [1, 3, 48, 900]);
        assert_eq!(data.len(), 3 * 48 * 900);
        assert!(data.iter().all(|&v| v == 1.0));
        // Short lines get PaddleOCR's reference width, padded with zeros (mid grey).
        let (data, shape) = rec_input(&strip(100), 48);
        assert_eq!(shape, [1, 3, 48, 320]);
        assert_eq!(data[99], 1.0);
        assert_eq!(data[100], 0.0);
    }
}
