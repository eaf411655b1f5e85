//! Generated OCR test pages with known text, and the character error rate (CER).
//!
//! Shared by the OCR providers' tests: include it with
//! `#[path = "../../ocr-tesseract/tests/support/textgen.rs"] mod textgen;` (dev-dependencies
//! `ab_glyph = "0.2"` and `image`), or write the pages to disk with
//! `cargo run -p quire-ocr-tesseract --example gen_tesseract_pages -- DIR`.
//!
//! Text is drawn with DejaVu fonts from Debian's `fonts-dejavu-core` package; when the fonts are
//! absent [`samples`] returns nothing and callers skip. Pages: several fonts and sizes, italic,
//! a noisy skewed JPEG "scan", a two-column page, and pages rotated 90° and 180°. The reference
//! text is in reading order (left column before right column).
#![allow(dead_code)]

use ab_glyph::{Font, FontVec, PxScale, ScaleFont};
use image::{DynamicImage, GrayImage, ImageFormat, Luma};
use std::io::Cursor;
use std::path::Path;

const FONT_DIR: &str = "/usr/share/fonts/truetype/dejavu";

const TEXT_A: &str = "The quick brown fox jumps over the lazy dog. Pack my box with five dozen \
liquor jugs. Invoice 2024-117 was paid on 3 March for a total of 1,284.50 euros, including \
tax at 19 percent. Please keep this receipt for your records.";
const TEXT_B: &str = "Quire converts documents into Markdown and structured JSON. Scanned pages \
are read with optical character recognition, and the text is placed in reading order. Tables, \
headings and lists are kept where the source marks them.";
const TEXT_C: &str = "Sphinx of black quartz, judge my vow. How vexingly quick daft zebras jump! \
The meeting moved from Tuesday 14:30 to Thursday 09:15 in room B-204; bring the signed forms.";
const TEXT_D: &str = "Each worker thread keeps its own engine because the library is not \
thread safe. Results are checked against a reference text and scored by edit distance.";

/// One generated page.
pub struct Sample {
    pub name: &'static str,
    /// Encoded image bytes (PNG, or JPEG for the scan).
    pub data: Vec<u8>,
    pub mime: &'static str,
    /// The text on the page, in reading order.
    pub text: String,
    /// False for the rotated pages (the acceptance target applies to upright pages).
    pub upright: bool,
}

struct Face {
    font: FontVec,
}

fn face(file: &str) -> Option<Face> {
    let data = std::fs::read(Path::new(FONT_DIR).join(file)).ok()?;
    Some(Face {
        font: FontVec::try_from_vec(data).ok()?,
    })
}

/// Words wrapped to lines no wider than `width` pixels.
fn wrap(face: &Face, px: f32, text: &str, width: f32) -> Vec<String> {
    let scaled = face.font.as_scaled(PxScale::from(px));
    let measure = |s: &str| -> f32 {
        s.chars()
            .map(|c| scaled.h_advance(scaled.glyph_id(c)))
            .sum()
    };
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_owned()
        } else {
            format!("{line} {word}")
        };
        if measure(&candidate) > width && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
            line = word.to_owned();
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Draws lines of text in black at (x, y) onto a white page.
fn draw_lines(
    page: &mut GrayImage,
    face: &Face,
    px: f32,
    x0: f32,
    y0: f32,
    lines: &[String],
) -> f32 {
    let scaled = face.font.as_scaled(PxScale::from(px));
    let line_height = (scaled.ascent() - scaled.descent() + scaled.line_gap()) * 1.15;
    let mut y = y0 + scaled.ascent();
    for line in lines {
        let mut x = x0;
        let mut prev = None;
        for c in line.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = prev {
                x += scaled.kern(p, id);
            }
            let glyph = id.with_scale_and_position(PxScale::from(px), ab_glyph::point(x, y));
            if let Some(outlined) = face.font.outline_glyph(glyph) {
                let b = outlined.px_bounds();
                outlined.draw(|gx, gy, cov| {
                    let px_x = b.min.x as i32 + gx as i32;
                    let px_y = b.min.y as i32 + gy as i32;
                    if px_x >= 0
                        && px_y >= 0
                        && (px_x as u32) < page.width()
                        && (px_y as u32) < page.height()
                    {
                        let p = page.get_pixel_mut(px_x as u32, px_y as u32);
                        let ink = (cov.clamp(0.0, 1.0) * 255.0) as u16;
                        p.0[0] = (u16::from(p.0[0]).saturating_sub(ink)) as u8;
                    }
                });
            }
            x += scaled.h_advance(id);
            prev = Some(id);
        }
        y += line_height;
    }
    y - scaled.ascent() + line_height
}

/// A single-column page of `text`.
fn page(face: &Face, px: f32, text: &str, width: u32) -> GrayImage {
    let margin = 40.0;
    let lines = wrap(face, px, text, width as f32 - 2.0 * margin);
    let scaled = face.font.as_scaled(PxScale::from(px));
    let line_height = (scaled.ascent() - scaled.descent() + scaled.line_gap()) * 1.15;
    let height = (2.0 * margin + line_height * lines.len() as f32) as u32 + 10;
    let mut img = GrayImage::from_pixel(width, height, Luma([255]));
    draw_lines(&mut img, face, px, margin, margin, &lines);
    img
}

/// Two columns with a wide gutter; reading order is the left column, then the right.
fn two_columns(face: &Face, px: f32, left: &str, right: &str) -> GrayImage {
    let (width, margin, gutter) = (1200u32, 40.0, 80.0);
    let col = (width as f32 - 2.0 * margin - gutter) / 2.0;
    let l = wrap(face, px, left, col);
    let r = wrap(face, px, right, col);
    let scaled = face.font.as_scaled(PxScale::from(px));
    let line_height = (scaled.ascent() - scaled.descent() + scaled.line_gap()) * 1.15;
    let height = (2.0 * margin + line_height * l.len().max(r.len()) as f32) as u32 + 10;
    let mut img = GrayImage::from_pixel(width, height, Luma([255]));
    draw_lines(&mut img, face, px, margin, margin, &l);
    draw_lines(&mut img, face, px, margin + col + gutter, margin, &r);
    img
}

/// A scan: slight skew, grey paper, speckle noise, JPEG at quality 60.
fn scanned(page: &GrayImage, degrees: f32, seed: u64) -> Vec<u8> {
    let (w, h) = page.dimensions();
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    let mut state = seed;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 10_000) as f32 / 10_000.0
    };
    let out = GrayImage::from_fn(w, h, |x, y| {
        let (dx, dy) = (x as f32 - cx, y as f32 - cy);
        let sx = cos * dx + sin * dy + cx;
        let sy = -sin * dx + cos * dy + cy;
        let v = bilinear(page, sx, sy);
        let paper = 235.0 - 10.0 * (y as f32 / h as f32);
        let mut v = v / 255.0 * paper;
        let r = rand();
        if r < 0.004 {
            v = 40.0; // dust
        } else {
            v += (r - 0.5) * 40.0;
        }
        Luma([v.clamp(0.0, 255.0) as u8])
    });
    let mut data = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut data, 60)
        .encode_image(&DynamicImage::ImageLuma8(out))
        .expect("jpeg encoding of a generated page");
    data
}

fn bilinear(img: &GrayImage, x: f32, y: f32) -> f32 {
    if x < 0.0 || y < 0.0 || x >= (img.width() - 1) as f32 || y >= (img.height() - 1) as f32 {
        return 255.0;
    }
    let (x0, y0) = (x.floor() as u32, y.floor() as u32);
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let p = |xx, yy| f32::from(img.get_pixel(xx, yy).0[0]);
    let top = p(x0, y0) * (1.0 - fx) + p(x0 + 1, y0) * fx;
    let bottom = p(x0, y0 + 1) * (1.0 - fx) + p(x0 + 1, y0 + 1) * fx;
    top * (1.0 - fy) + bottom * fy
}

fn png(img: GrayImage) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageLuma8(img)
        .write_to(&mut out, ImageFormat::Png)
        .expect("png encoding of a generated page");
    out.into_inner()
}

/// Every generated page; empty when the DejaVu fonts are not installed.
pub fn samples() -> Vec<Sample> {
    let (Some(sans), Some(serif), Some(mono), Some(oblique), Some(bold)) = (
        face("DejaVuSans.ttf"),
        face("DejaVuSerif.ttf"),
        face("DejaVuSansMono.ttf"),
        face("DejaVuSans-Oblique.ttf"),
        face("DejaVuSans-Bold.ttf"),
    ) else {
        return Vec::new();
    };
    let sample = |name, img: GrayImage, text: &str, upright| Sample {
        name,
        data: png(img),
        mime: "image/png",
        text: text.to_owned(),
        upright,
    };
    let both = format!("{TEXT_A} {TEXT_B}");
    vec![
        sample("sans-20", page(&sans, 20.0, TEXT_A, 900), TEXT_A, true),
        sample("serif-16", page(&serif, 16.0, TEXT_B, 800), TEXT_B, true),
        sample("mono-15", page(&mono, 15.0, TEXT_C, 1000), TEXT_C, true),
        sample("sans-12", page(&sans, 12.0, TEXT_D, 700), TEXT_D, true),
        sample(
            "oblique-18",
            page(&oblique, 18.0, TEXT_C, 900),
            TEXT_C,
            true,
        ),
        sample("bold-28", page(&bold, 28.0, TEXT_D, 1200), TEXT_D, true),
        Sample {
            name: "noisy-scan",
            data: scanned(&page(&serif, 20.0, &both, 1000), 1.2, 7),
            mime: "image/jpeg",
            text: both.clone(),
            upright: true,
        },
        sample(
            "two-columns",
            two_columns(&sans, 17.0, &both, &format!("{TEXT_C} {TEXT_D}")),
            &format!("{both} {TEXT_C} {TEXT_D}"),
            true,
        ),
        sample(
            "rotated-90",
            image::imageops::rotate90(&page(&sans, 20.0, TEXT_B, 900)),
            TEXT_B,
            false,
        ),
        sample(
            "rotated-180",
            image::imageops::rotate180(&page(&serif, 20.0, TEXT_A, 900)),
            TEXT_A,
            false,
        ),
    ]
}

/// Character error rate: edit distance between the texts with whitespace folded, over the
/// reference length. Wrong reading order counts as error.
pub fn cer(reference: &str, hypothesis: &str) -> f64 {
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let r: Vec<char> = fold(reference).chars().collect();
    let h: Vec<char> = fold(hypothesis).chars().collect();
    if r.is_empty() {
        return if h.is_empty() { 0.0 } else { 1.0 };
    }
    let mut prev: Vec<usize> = (0..=h.len()).collect();
    let mut cur = vec![0; h.len() + 1];
    for (i, rc) in r.iter().enumerate() {
        cur[0] = i + 1;
        for (j, hc) in h.iter().enumerate() {
            let sub = prev[j] + usize::from(rc != hc);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[h.len()] as f64 / r.len() as f64
}

/// A full A4 page scanned at 300 dpi (2480 x 3508 pixels, 10-point serif text, skew, noise,
/// JPEG): the "1-page scan" of the speed target.
pub fn a4_scan() -> Option<Sample> {
    // About 3,500 characters, a typical page of running text.
    const REPEAT: usize = 4;
    let serif = face("DejaVuSerif.ttf")?;
    let paragraph = format!("{TEXT_A} {TEXT_B} {TEXT_C} {TEXT_D}");
    let mut text = String::new();
    for _ in 0..REPEAT {
        text.push_str(&paragraph);
        text.push(' ');
    }
    let body = page(&serif, 42.0, &text, 2480);
    let mut a4 = GrayImage::from_pixel(2480, 3508, Luma([255]));
    image::imageops::overlay(&mut a4, &body, 0, 200);
    Some(Sample {
        name: "a4-scan-300dpi",
        data: scanned(&a4, 0.8, 11),
        mime: "image/jpeg",
        text: text.trim_end().to_owned(),
        upright: true,
    })
}
