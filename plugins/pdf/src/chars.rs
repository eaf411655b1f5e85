//! The characters of a PDFium text page, read through PDFium's C functions directly.
//!
//! `pdfium-render`'s character objects make one FFI call per property, allocate the font
//! name for every character and, with its `thread_safe` feature, take a lock per call: about
//! a fifth of a text-only conversion went there. Here the same C functions are called on
//! the text page's handle without a wrapper object, and what a character takes from its text
//! object (font name, weight, angle, font size: PDFium reads them from the object's font and
//! matrix) is read once per text object, not once per character. The values are exactly those the
//! wrapper returns; [`Wrapped`] is the wrapper path, kept for the case the handle cannot be
//! had.

use pdfium_render::prelude::*;
use std::os::raw::c_void;

/// One character's properties, as `glyphs` reads them.
pub trait CharSource {
    fn count(&self) -> usize;
    fn unicode(&self, i: usize) -> u32;
    fn is_generated(&self, i: usize) -> bool;
    /// Loose box: left, bottom, right, top in page space.
    fn loose_box(&self, i: usize) -> Option<(f32, f32, f32, f32)>;
    fn origin(&self, i: usize) -> Option<(f32, f32)>;
    /// Angle in degrees; `None` where PDFium reports failure.
    fn angle_degrees(&self, i: usize) -> Option<f32>;
    /// Font size times the vertical scale of the character's matrix.
    fn scaled_font_size(&self, i: usize) -> f32;
    /// Font name ("" when there is none) and weight (400 when PDFium has none).
    fn font(&self, i: usize) -> (String, u32);
    /// What the font of character `i` depends on (its text object): characters with the same
    /// key share font name, weight, angle and scaled font size. `None`: no such key, read them
    /// for every character.
    fn font_key(&self, i: usize) -> Option<usize>;
}

/// The C functions on a text page handle.
pub struct Raw<'a> {
    bindings: &'a dyn PdfiumLibraryBindings,
    handle: FPDF_TEXTPAGE,
    count: usize,
}

impl<'a> Raw<'a> {
    /// The handle of `text`, a text page of `page`, when it can be found; `None` sends the
    /// caller to [`Wrapped`].
    ///
    /// `pdfium-render` keeps the handle private. A `PdfPageText` is the handle and a
    /// reference to its page (and a zero-sized marker): of its two words, the one that is
    /// not the page's address is the handle. Any other shape (another version of the crate)
    /// is refused, and the handle must count as many characters as the wrapper does.
    pub fn new(
        bindings: &'a dyn PdfiumLibraryBindings,
        text: &PdfPageText<'_>,
        page: &PdfPage<'_>,
    ) -> Option<Raw<'a>> {
        if std::mem::size_of::<PdfPageText<'_>>() != 2 * std::mem::size_of::<usize>()
            || std::mem::align_of::<PdfPageText<'_>>() != std::mem::align_of::<usize>()
        {
            return None;
        }
        // SAFETY: the value is two initialised pointer-sized words (checked above; both
        // fields are pointers, so there is no padding), read as plain integers.
        let words: [usize; 2] =
            unsafe { std::ptr::read((text as *const PdfPageText<'_>).cast::<[usize; 2]>()) };
        let page_addr = page as *const PdfPage<'_> as usize;
        let handle = match words {
            [a, b] if a == page_addr && b != page_addr && b != 0 => b,
            [a, b] if b == page_addr && a != page_addr && a != 0 => a,
            _ => return None,
        } as FPDF_TEXTPAGE;
        // SAFETY: `handle` is the text page `text` owns, alive as long as `text`.
        let count = unsafe { bindings.FPDFText_CountChars(handle) };
        if count != text.len() || count < 0 {
            return None;
        }
        Some(Raw {
            bindings,
            handle,
            count: count as usize,
        })
    }
}

// SAFETY (for every call below): `handle` is a live text page (it lives as long as the
// `PdfPageText` it was read from, which outlives `Raw`), and `i < count` in every caller.
impl CharSource for Raw<'_> {
    fn count(&self) -> usize {
        self.count
    }

    fn unicode(&self, i: usize) -> u32 {
        unsafe { self.bindings.FPDFText_GetUnicode(self.handle, i as i32) }
    }

    fn is_generated(&self, i: usize) -> bool {
        unsafe { self.bindings.FPDFText_IsGenerated(self.handle, i as i32) == 1 }
    }

    fn loose_box(&self, i: usize) -> Option<(f32, f32, f32, f32)> {
        let mut r = FS_RECTF {
            left: 0.0,
            top: 0.0,
            right: 0.0,
            bottom: 0.0,
        };
        let ok = unsafe {
            self.bindings
                .FPDFText_GetLooseCharBox(self.handle, i as i32, &mut r)
        };
        (ok != 0).then_some((r.left, r.bottom, r.right, r.top))
    }

    fn origin(&self, i: usize) -> Option<(f32, f32)> {
        let (mut x, mut y) = (0.0, 0.0);
        let ok = unsafe {
            self.bindings
                .FPDFText_GetCharOrigin(self.handle, i as i32, &mut x, &mut y)
        };
        (ok != 0).then_some((x as f32, y as f32))
    }

    fn angle_degrees(&self, i: usize) -> Option<f32> {
        let a = unsafe { self.bindings.FPDFText_GetCharAngle(self.handle, i as i32) };
        if a.is_sign_negative() {
            return None;
        }
        // A negative font size turns the glyphs half round; PDFium's angle is the matrix's
        // alone.
        let size = unsafe { self.bindings.FPDFText_GetFontSize(self.handle, i as i32) };
        let half = if size < 0.0 { 180.0 } else { 0.0 };
        Some((a.to_degrees() + half).rem_euclid(360.0))
    }

    fn scaled_font_size(&self, i: usize) -> f32 {
        let size = unsafe { self.bindings.FPDFText_GetFontSize(self.handle, i as i32) } as f32;
        let mut m = FS_MATRIX {
            a: 0.0,
            b: 0.0,
            c: 0.0,
            d: 0.0,
            e: 0.0,
            f: 0.0,
        };
        let ok = unsafe {
            self.bindings
                .FPDFText_GetMatrix(self.handle, i as i32, &mut m)
        };
        size * if ok != 0 { m.d } else { 0.0 }
    }

    fn font(&self, i: usize) -> (String, u32) {
        let mut flags = 0;
        let len = unsafe {
            self.bindings.FPDFText_GetFontInfo(
                self.handle,
                i as i32,
                std::ptr::null_mut(),
                0,
                &mut flags,
            )
        };
        let name = if len == 0 {
            String::new()
        } else {
            let mut buf = vec![0u8; len as usize];
            let got = unsafe {
                self.bindings.FPDFText_GetFontInfo(
                    self.handle,
                    i as i32,
                    buf.as_mut_ptr().cast::<c_void>(),
                    len,
                    &mut flags,
                )
            };
            buf.truncate((got as usize).min(buf.len()));
            String::from_utf8(buf)
                .map(|s| s.trim_end_matches('\0').to_owned())
                .unwrap_or_default()
        };
        let weight = unsafe { self.bindings.FPDFText_GetFontWeight(self.handle, i as i32) };
        (name, weight_value(weight))
    }

    fn font_key(&self, i: usize) -> Option<usize> {
        Some(unsafe { self.bindings.FPDFText_GetTextObject(self.handle, i as i32) } as usize)
    }
}

/// PDFium's weight: -1 when unknown (read as regular).
fn weight_value(w: i32) -> u32 {
    if w == -1 {
        400
    } else {
        w as u32
    }
}

/// The same through `pdfium-render`'s character objects.
pub struct Wrapped<'a> {
    chars: PdfPageTextChars<'a>,
}

impl<'a> Wrapped<'a> {
    pub fn new(text: &'a PdfPageText<'a>) -> Wrapped<'a> {
        Wrapped {
            chars: text.chars(),
        }
    }

    fn get(&self, i: usize) -> Option<PdfPageTextChar<'a>> {
        self.chars.get(i).ok()
    }
}

impl CharSource for Wrapped<'_> {
    fn count(&self) -> usize {
        self.chars.len()
    }

    fn unicode(&self, i: usize) -> u32 {
        self.get(i).map_or(0, |c| c.unicode_value())
    }

    fn is_generated(&self, i: usize) -> bool {
        self.get(i)
            .is_some_and(|c| c.is_generated().unwrap_or(false))
    }

    fn loose_box(&self, i: usize) -> Option<(f32, f32, f32, f32)> {
        let b = self.get(i)?.loose_bounds().ok()?;
        Some((
            b.left().value,
            b.bottom().value,
            b.right().value,
            b.top().value,
        ))
    }

    fn origin(&self, i: usize) -> Option<(f32, f32)> {
        let (x, y) = self.get(i)?.origin().ok()?;
        Some((x.value, y.value))
    }

    fn angle_degrees(&self, i: usize) -> Option<f32> {
        self.get(i)?.angle_degrees().ok()
    }

    fn scaled_font_size(&self, i: usize) -> f32 {
        self.get(i).map_or(0.0, |c| c.scaled_font_size().value)
    }

    fn font(&self, i: usize) -> (String, u32) {
        let Some(c) = self.get(i) else {
            return (String::new(), 400);
        };
        let weight = match c.font_weight() {
            Some(PdfFontWeight::Custom(w)) => w,
            Some(w) => named_weight(w),
            None => 400,
        };
        (c.font_name(), weight)
    }

    fn font_key(&self, _: usize) -> Option<usize> {
        None
    }
}

fn named_weight(w: PdfFontWeight) -> u32 {
    match w {
        PdfFontWeight::Weight100 => 100,
        PdfFontWeight::Weight200 => 200,
        PdfFontWeight::Weight300 => 300,
        PdfFontWeight::Weight400Normal => 400,
        PdfFontWeight::Weight500 => 500,
        PdfFontWeight::Weight600 => 600,
        PdfFontWeight::Weight700Bold => 700,
        PdfFontWeight::Weight800 => 800,
        PdfFontWeight::Weight900 => 900,
        PdfFontWeight::Custom(w) => w,
    }
}
