//! Test pages for OCR: text drawn from TrueType fonts installed on the machine, with its
//! ground truth, plus the character error rate. Shared by this crate's tests and its
//! `gen_ocr_images` / `ocr_eval` examples (include it with `#[path]`); it depends on `image`
//! and `ab_glyph` only, so any OCR crate can reuse it.
//!
//! Fonts come from Debian's `fonts-dejavu-core` (Sans, Serif, Mono); italic pages are added
//! when `fonts-dejavu-extra` is installed too. With no font, [`pages`] returns `None`.

#![allow(dead_code)]

use ab_glyph::{Font, FontVec, PxScale, ScaleFont};
use image::{GrayImage, ImageEncoder, Luma};
use std::path::{Path, PathBuf};

const FONT_DIRS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/dejavu",
    "/usr/share/fonts/TTF",
];

fn font(file: &str) -> Option<FontVec> {
    FONT_DIRS.iter().find_map(|d| {
        let bytes = std::fs::read(Path::new(d).join(file)).ok()?;
        FontVec::try_from_vec(bytes).ok()
    })
}

/// A generated page: encoded image, its MIME type and the text it shows.
pub struct Page {
    pub name: String,
    pub mime: &'static str,
    pub data: Vec<u8>,
    pub truth: String,
}

const PARAGRAPHS: &[&str] = &[
    "The quick brown fox jumps over the lazy dog while the committee reviews invoice 4711 dated 12 March 2024.",
    "Quarterly revenue grew by 8.5% to EUR 1,234,567.89, driven by strong demand in Northern Europe and Asia.",
    "Please return the signed form before Friday; questions can be sent to support@example.com or by phone.",
    "Machine learning models convert scanned documents into searchable text with remarkable accuracy today.",
    "Zebras, jackals and wombats (rarely seen together) gathered near the river at exactly 6:45 in the morning.",
    "Section 3.2 describes the method: each sample was measured twice, and the mean value was recorded.",
];

/// A white grey-level canvas with a pen.
pub struct Canvas {
    pub img: GrayImage,
}

impl Canvas {
    pub fn new(w: u32, h: u32) -> Canvas {
        Canvas {
            img: GrayImage::from_pixel(w, h, Luma([255])),
        }
    }

    /// Draws one line with its top-left at (x, y); returns the advance width.
    pub fn text(&mut self, font: &FontVec, px: f32, x: f32, y: f32, text: &str, ink: u8) -> f32 {
        let scaled = font.as_scaled(PxScale::from(px));
        let mut caret = x;
        let baseline = y + scaled.ascent();
        let mut prev = None;
        for ch in text.chars() {
            let id = scaled.glyph_id(ch);
            if let Some(p) = prev {
                caret += scaled.kern(p, id);
            }
            let glyph = id.with_scale_and_position(px, ab_glyph::point(caret, baseline));
            caret += scaled.h_advance(id);
            prev = Some(id);
            if let Some(outlined) = font.outline_glyph(glyph) {
                let bb = outlined.px_bounds();
                let (w, h) = self.img.dimensions();
                outlined.draw(|gx, gy, cov| {
                    let px_x = bb.min.x as i64 + i64::from(gx);
                    let px_y = bb.min.y as i64 + i64::from(gy);
                    if px_x < 0 || px_y < 0 || px_x >= i64::from(w) || px_y >= i64::from(h) {
                        return;
                    }
                    let p = self.img.get_pixel_mut(px_x as u32, px_y as u32);
                    let cur = f32::from(p[0]);
                    let target = f32::from(ink);
                    p[0] = (cur + (target - cur) * cov.clamp(0.0, 1.0)).round() as u8;
                });
            }
        }
        caret - x
    }
}

pub fn text_width(font: &FontVec, px: f32, text: &str) -> f32 {
    let scaled = font.as_scaled(PxScale::from(px));
    let mut w = 0.0;
    let mut prev = None;
    for ch in text.chars() {
        let id = scaled.glyph_id(ch);
        if let Some(p) = prev {
            w += scaled.kern(p, id);
        }
        w += scaled.h_advance(id);
        prev = Some(id);
    }
    w
}

/// Greedy word wrap to `width` pixels.
pub fn wrap(font: &FontVec, px: f32, text: &str, width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let candidate = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if !cur.is_empty() && text_width(font, px, &candidate) > width {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        } else {
            cur = candidate;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Lays paragraphs out in a column; returns the y after the last line and the text drawn.
fn column(
    c: &mut Canvas,
    font: &FontVec,
    px: f32,
    x: f32,
    mut y: f32,
    width: f32,
    paragraphs: &[&str],
) -> (f32, String) {
    let mut truth = Vec::new();
    for p in paragraphs {
        let lines = wrap(font, px, p, width);
        for l in &lines {
            c.text(font, px, x, y, l, 20);
            y += px * 1.45;
        }
        y += px * 0.9;
        truth.push(lines.join("\n"));
    }
    (y, truth.join("\n\n"))
}

/// A one-column page of `paragraphs` in `font` at `px` pixels.
pub fn simple_page(
    font: &FontVec,
    px: f32,
    width: u32,
    paragraphs: &[&str],
) -> (GrayImage, String) {
    let margin = px * 2.0;
    let mut probe = Canvas::new(width, 10);
    let (h, _) = column(
        &mut probe,
        font,
        px,
        margin,
        margin,
        width as f32 - 2.0 * margin,
        paragraphs,
    );
    let mut c = Canvas::new(width, (h + margin) as u32);
    let (_, truth) = column(
        &mut c,
        font,
        px,
        margin,
        margin,
        width as f32 - 2.0 * margin,
        paragraphs,
    );
    (c.img, truth)
}

pub fn png(img: &GrayImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(
            img.as_raw(),
            img.width(),
            img.height(),
            image::ExtendedColorType::L8,
        )
        .expect("PNG encoding of a generated page");
    out
}

pub fn jpeg(img: &GrayImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .write_image(
            img.as_raw(),
            img.width(),
            img.height(),
            image::ExtendedColorType::L8,
        )
        .expect("JPEG encoding of a generated page");
    out
}

/// Deterministic noise source (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Rotates by `deg` degrees around the centre (bilinear, white outside).
pub fn rotate(img: &GrayImage, deg: f32) -> GrayImage {
    let (w, h) = img.dimensions();
    let (s, c) = deg.to_radians().sin_cos();
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    GrayImage::from_fn(w, h, |x, y| {
        let dx = x as f32 - cx;
        let dy = y as f32 - cy;
        let sx = c * dx + s * dy + cx;
        let sy = -s * dx + c * dy + cy;
        if sx < 0.0 || sy < 0.0 || sx >= (w - 1) as f32 || sy >= (h - 1) as f32 {
            return Luma([255]);
        }
        let (x0, y0) = (sx.floor() as u32, sy.floor() as u32);
        let (ax, ay) = (sx - x0 as f32, sy - y0 as f32);
        let p = |xx, yy| f32::from(img.get_pixel(xx, yy)[0]);
        let top = p(x0, y0) * (1.0 - ax) + p(x0 + 1, y0) * ax;
        let bottom = p(x0, y0 + 1) * (1.0 - ax) + p(x0 + 1, y0 + 1) * ax;
        Luma([(top * (1.0 - ay) + bottom * ay).round() as u8])
    })
}

/// 3x3 box blur.
pub fn blur(img: &GrayImage) -> GrayImage {
    let (w, h) = img.dimensions();
    GrayImage::from_fn(w, h, |x, y| {
        let mut sum = 0u32;
        for dy in -1i32..=1 {
            for dx in -1i32..=1 {
                let xx = (x as i32 + dx).clamp(0, w as i32 - 1) as u32;
                let yy = (y as i32 + dy).clamp(0, h as i32 - 1) as u32;
                sum += u32::from(img.get_pixel(xx, yy)[0]);
            }
        }
        Luma([(sum / 9) as u8])
    })
}

/// Adds grey noise of amplitude `amp` and a darker paper tone.
pub fn noise(img: &mut GrayImage, amp: f32, seed: u64) {
    let mut rng = Rng(seed | 1);
    for p in img.pixels_mut() {
        let v = f32::from(p[0]) * 0.92 + (rng.next() - 0.5) * 2.0 * amp;
        p[0] = v.clamp(0.0, 255.0) as u8;
    }
}

/// Every test page, or `None` when no usable font is installed.
pub fn pages() -> Option<Vec<Page>> {
    let sans = font("DejaVuSans.ttf")?;
    let serif = font("DejaVuSerif.ttf")?;
    let mono = font("DejaVuSansMono.ttf")?;
    let mut out = Vec::new();
    let mut add = |name: &str, img: &GrayImage, truth: String, jpeg_q: Option<u8>| {
        let (mime, data) = match jpeg_q {
            Some(q) => ("image/jpeg", jpeg(img, q)),
            None => ("image/png", png(img)),
        };
        out.push(Page {
            name: name.into(),
            mime,
            data,
            truth,
        });
    };
    let (img, t) = simple_page(&sans, 20.0, 900, &PARAGRAPHS[..3]);
    add("sans_20", &img, t.clone(), None);
    let upright_sans = (img, t);
    let (img, t) = simple_page(&serif, 16.0, 800, &PARAGRAPHS[1..4]);
    add("serif_16", &img, t, None);
    let (img, t) = simple_page(&mono, 14.0, 900, &PARAGRAPHS[2..5]);
    add("mono_14", &img, t, None);
    let (img, t) = simple_page(&sans, 12.0, 700, &PARAGRAPHS[3..6]);
    add("sans_12", &img, t, None);
    let (img, t) = simple_page(&serif, 28.0, 1100, &PARAGRAPHS[4..6]);
    add("serif_28", &img, t, None);
    if let Some(italic) = font("DejaVuSerif-Italic.ttf") {
        let (img, t) = simple_page(&italic, 18.0, 850, &PARAGRAPHS[..2]);
        add("serif_italic_18", &img, t, None);
    }
    if let Some(bold) = font("DejaVuSans-Bold.ttf") {
        let (img, t) = simple_page(&bold, 16.0, 800, &PARAGRAPHS[3..5]);
        add("sans_bold_16", &img, t, None);
    }
    // A scanned A4 page at 150 dpi: 11 pt text, slight skew, blur, noise, JPEG.
    let (img, t) = simple_page(&serif, 23.0, 1240, PARAGRAPHS);
    let mut page = GrayImage::from_pixel(1240, 1754, Luma([255]));
    image::imageops::overlay(&mut page, &img, 0, 60);
    let mut scan = blur(&rotate(&page, 1.2));
    noise(&mut scan, 28.0, 7);
    add("scan_a4_noisy", &scan, t, Some(70));
    let (img, t) = simple_page(&sans, 10.0, 600, &PARAGRAPHS[..2]);
    add("sans_10", &img, t, None);
    // Grey text on a grey background.
    let (mut img, t) = simple_page(&serif, 18.0, 850, &PARAGRAPHS[2..4]);
    for p in img.pixels_mut() {
        p[0] = 190 - ((255 - u16::from(p[0])) * 70 / 235) as u8;
    }
    add("low_contrast", &img, t, None);
    // An invoice: labels on the left, right-aligned amounts.
    let mut c = Canvas::new(900, 420);
    c.text(&sans, 26.0, 50.0, 30.0, "INVOICE 2024-0815", 10);
    let rows = [
        ("Consulting services, March", "1,200.00"),
        ("Travel expenses", "348.50"),
        ("Software licence (annual)", "2,990.00"),
        ("Discount 5%", "-226.93"),
        ("Total due", "4,311.57"),
    ];
    let mut truth = vec!["INVOICE 2024-0815".to_string()];
    for (i, (label, amount)) in rows.iter().enumerate() {
        let y = 110.0 + i as f32 * 52.0;
        c.text(&serif, 20.0, 50.0, y, label, 20);
        let w = text_width(&serif, 20.0, amount);
        c.text(&serif, 20.0, 850.0 - w, y, amount, 20);
        truth.push(format!("{label} {amount}"));
    }
    add("invoice", &c.img, truth.join("\n"), None);
    // A dense scanned A4 page at 150 dpi, about 40 lines of 11 pt text.
    let many: Vec<&str> = PARAGRAPHS.iter().cycle().take(26).copied().collect();
    let (img, t) = simple_page(&serif, 21.0, 1240, &many);
    let mut page = GrayImage::from_pixel(1240, 1754.max(img.height() + 40), Luma([255]));
    image::imageops::overlay(&mut page, &img, 0, 20);
    let mut scan = blur(&rotate(&page, -0.8));
    noise(&mut scan, 24.0, 11);
    add("scan_a4_dense", &scan, t, Some(75));
    // Small text on a wide screenshot (the detector sees it at half size).
    let mut c = Canvas::new(1920, 1080);
    let mut truth = Vec::new();
    for (i, p) in PARAGRAPHS[..4].iter().enumerate() {
        let y = 80.0 + i as f32 * 240.0;
        c.text(&sans, 13.0, 100.0, y, p, 30);
        truth.push(p.to_string());
    }
    add("screenshot_small_text", &c.img, truth.join("\n\n"), None);
    // Three columns.
    let mut c = Canvas::new(1500, 700);
    let (_, a) = column(&mut c, &sans, 15.0, 50.0, 50.0, 420.0, &PARAGRAPHS[..2]);
    let (_, b) = column(&mut c, &sans, 15.0, 540.0, 50.0, 420.0, &PARAGRAPHS[2..4]);
    let (_, d) = column(&mut c, &sans, 15.0, 1030.0, 50.0, 420.0, &PARAGRAPHS[4..]);
    add("three_columns", &c.img, format!("{a}\n\n{b}\n\n{d}"), None);
    // Two columns under a title.
    let mut c = Canvas::new(1200, 760);
    c.text(&sans, 30.0, 60.0, 40.0, "Annual Report Summary", 10);
    let (_, left) = column(&mut c, &serif, 17.0, 60.0, 110.0, 500.0, &PARAGRAPHS[..3]);
    let (_, right) = column(&mut c, &serif, 17.0, 640.0, 110.0, 500.0, &PARAGRAPHS[3..]);
    add(
        "two_columns",
        &c.img,
        format!("Annual Report Summary\n\n{left}\n\n{right}"),
        None,
    );
    // Rotated pages.
    let (img, t) = upright_sans;
    add(
        "rotated_90",
        &image::imageops::rotate90(&img),
        t.clone(),
        None,
    );
    add(
        "rotated_180",
        &image::imageops::rotate180(&img),
        t.clone(),
        None,
    );
    add("rotated_270", &image::imageops::rotate270(&img), t, None);
    Some(out)
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Character error rate with whitespace folded: edit distance / reference length.
pub fn cer(reference: &str, hypothesis: &str) -> f64 {
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let r: Vec<char> = fold(reference).chars().collect();
    let h: Vec<char> = fold(hypothesis).chars().collect();
    if r.is_empty() {
        return if h.is_empty() { 0.0 } else { 1.0 };
    }
    edit_distance(&r, &h) as f64 / r.len() as f64
}

/// Writes every page as `<name>.png|jpg` plus `<name>.txt` into `dir`.
pub fn write_pages(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let pages = pages().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no DejaVu fonts found (install the Debian package fonts-dejavu-core)",
        )
    })?;
    let mut written = Vec::new();
    for p in pages {
        let ext = if p.mime == "image/jpeg" { "jpg" } else { "png" };
        let path = dir.join(format!("{}.{ext}", p.name));
        std::fs::write(&path, &p.data)?;
        std::fs::write(dir.join(format!("{}.txt", p.name)), &p.truth)?;
        written.push(path);
    }
    Ok(written)
}
