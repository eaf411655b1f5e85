//! The fast text path: a page's glyphs, rules, marks and image placements read straight
//! from its content stream, without PDFium building a page and a text page (which cost as
//! much as pdftotext's whole run).
//!
//! Per page and conservative: [`FastDoc::page`] answers `None` for anything it does not
//! read with certainty (fonts, operators, filters, form widgets, damaged objects), and that
//! page goes through PDFium as before. `QUIRE_PDF_FASTPATH=0` turns the path off (tests and
//! benches compare both).

mod data;
mod fonts;
mod interp;
mod object;
#[cfg(test)]
mod tests;
mod truetype;

use crate::blocks::Link;
use crate::geom::PageTransform;
use crate::glyphs::Glyph;
use crate::unicode_map::MapCheck;
use object::{Dict, Doc, Obj};
use std::collections::HashMap;
use std::rc::Rc;

pub use interp::ImageUse;

/// Whether the fast path is on (`QUIRE_PDF_FASTPATH=0` turns it off).
pub fn enabled() -> bool {
    std::env::var_os("QUIRE_PDF_FASTPATH").is_none_or(|v| v != "0")
}

/// Whether the share of pages read by the fast path is printed (`QUIRE_PDF_FASTPATH=count`,
/// development only).
pub fn counting() -> bool {
    std::env::var_os("QUIRE_PDF_FASTPATH").is_some_and(|v| v == "count")
}

/// A document's pages as the fast path sees them.
pub struct FastDoc<'a> {
    doc: Doc<'a>,
    pages: Vec<PageInfo>,
    fonts: fonts::Fonts,
    /// [`fonts::embedded_cid_text`] by the font's object number.
    embedded: HashMap<u32, Option<Rc<HashMap<u32, char>>>>,
}

/// Text for characters PDFium reports as codes (fonts [`fonts::embedded_cid_text`] reads),
/// by the font name PDFium gives them. A name two fonts of the page share is left out
/// unless both read alike.
#[derive(Default)]
pub struct CodeFixes(HashMap<String, Option<Rc<HashMap<u32, char>>>>);

impl CodeFixes {
    pub fn is_empty(&self) -> bool {
        self.0.values().all(Option::is_none)
    }

    /// The character for PDFium's `code` in the font PDFium names `font`, if it is one
    /// of those fonts and the code has one.
    pub fn get(&self, font: &str, code: u32) -> Option<char> {
        self.0.get(font)?.as_ref()?.get(&code).copied()
    }

    fn add(&mut self, name: String, fix: Option<Rc<HashMap<u32, char>>>) {
        match self.0.get_mut(&name) {
            None => {
                self.0.insert(name, fix);
            }
            Some(old) => {
                let same = match (&*old, &fix) {
                    (Some(a), Some(b)) => Rc::ptr_eq(a, b) || a == b,
                    (None, None) => true,
                    _ => false,
                };
                if !same {
                    *old = None;
                }
            }
        }
    }
}

/// Most form XObjects looked into for a page's fonts, and their deepest nesting.
const MAX_FIX_FORMS: usize = 200;
const MAX_FIX_DEPTH: u32 = 4;

struct PageInfo {
    dict: Rc<Dict>,
    resources: Option<Obj>,
    transform: PageTransform,
}

/// One page read by the fast path.
pub struct FastPage {
    pub transform: PageTransform,
    pub glyphs: Vec<Glyph>,
    pub check: MapCheck,
    pub links: Vec<Link>,
    pub rules: Vec<crate::geom::Rect>,
    /// Image marks first, then drawn marks (as `images::collect` orders them).
    pub marks: Vec<crate::geom::Rect>,
    pub images: Vec<ImageUse>,
    pub covered: f32,
    pub has_graphics: bool,
}

/// Most pages read from a page tree, and its deepest nesting.
const MAX_TREE_DEPTH: u32 = 64;

impl<'a> FastDoc<'a> {
    /// `None` when the file cannot be read here at all (damaged cross-reference, encryption,
    /// a page tree that does not count `pages` pages).
    pub fn open(bytes: &'a [u8], max_inflated: u64, pages: usize) -> Option<FastDoc<'a>> {
        let doc = Doc::open(bytes, max_inflated)?;
        let root = doc.get_in(&doc.trailer, b"Root")?;
        let root = root.as_dict()?;
        // A base URI changes what links say; PDFium resolves it.
        if root.get(b"URI").is_some() {
            return None;
        }
        let tree = doc.get_in(root, b"Pages")?;
        let mut out = Vec::with_capacity(pages);
        let mut seen = std::collections::HashSet::new();
        let inherited = Inherited::default();
        collect_pages(
            &doc,
            root.get(b"Pages")?,
            &tree,
            &inherited,
            0,
            &mut seen,
            &mut out,
        )?;
        if out.len() != pages {
            return None;
        }
        Some(FastDoc {
            doc,
            pages: out,
            fonts: fonts::Fonts::default(),
            embedded: HashMap::new(),
        })
    }

    /// Page `index` (from 0), or `None`: read it through PDFium.
    pub fn page(&mut self, index: usize) -> Option<FastPage> {
        self.page_or_why(index).ok()
    }

    /// [`FastDoc::page`], or why not (development).
    pub fn page_or_why(&mut self, index: usize) -> Result<FastPage, String> {
        self.read(index).map_err(|e| e.to_string())
    }

    fn read(&mut self, index: usize) -> Result<FastPage, String> {
        if self.doc.broken.get() {
            return Err("an object could not be read".into());
        }
        let page = self.read_page(index)?;
        if self.doc.broken.get() {
            return Err("an object could not be read".into());
        }
        Ok(page)
    }

    fn read_page(&mut self, index: usize) -> Result<FastPage, String> {
        let info = self.pages.get(index).ok_or("no such page")?;
        let dict = info.dict.clone();
        let transform = info.transform;
        let resources = info
            .resources
            .as_ref()
            .and_then(|r| self.doc.resolve(r))
            .filter(|r| matches!(r, Obj::Dict(_)));
        let links = annotations(&self.doc, &dict, &transform).ok_or("annotations")?;
        // Content: a stream or an array of streams, joined by white space.
        let content = match dict.get(b"Contents") {
            None => Vec::new(),
            Some(c) => match self.doc.resolve(c).ok_or("contents")? {
                Obj::Stream(s) => self.doc.decode(&s).ok_or("content filter")?,
                Obj::Array(parts) => {
                    let mut all = Vec::new();
                    for p in parts.iter() {
                        let Some(Obj::Stream(s)) = self.doc.resolve(p) else {
                            return Err("contents".into());
                        };
                        all.extend_from_slice(&self.doc.decode(&s).ok_or("content filter")?);
                        all.push(b'\n');
                    }
                    all
                }
                Obj::Null => Vec::new(),
                _ => return Err("contents".into()),
            },
        };
        let mut run = interp::Interp::new(&self.doc, &mut self.fonts, transform);
        run.run(&content, resources.as_ref().and_then(Obj::as_dict), 0)
            .map_err(|e| format!("interp.rs line {}", e.0))?;
        let out = run.out;
        let mut check = MapCheck::default();
        for (font, c) in &out.checked {
            check.add(&font.name, *c);
        }
        let mut marks = out.image_marks;
        marks.extend(out.marks);
        Ok(FastPage {
            transform,
            glyphs: out.glyphs,
            check,
            links,
            rules: out.rules,
            marks,
            images: out.images,
            covered: out.covered,
            has_graphics: out.has_graphics,
        })
    }

    /// What PDFium's characters on page `index` need for [`CodeFixes`]: the fonts of the
    /// page and of its forms, by the names PDFium's text page reports (a Type0 font by its
    /// CID font's `BaseFont`, a TrueType font without its subset tag, any other by its
    /// `BaseFont`).
    /// Whether page `index` takes its resources (fonts, images) from a parent node of the
    /// page tree rather than its own dictionary: PDFium's flattening gives such a page a
    /// dictionary of its own without them, and its text loses its fonts.
    pub fn inherits_resources(&self, index: usize) -> bool {
        self.pages
            .get(index)
            .is_some_and(|info| info.dict.get(b"Resources").is_none() && info.resources.is_some())
    }

    pub fn code_fixes(&mut self, index: usize) -> CodeFixes {
        let mut out = CodeFixes::default();
        let Some(info) = self.pages.get(index) else {
            return out;
        };
        let resources = info.resources.as_ref().and_then(|r| self.doc.resolve(r));
        let mut seen = std::collections::HashSet::new();
        let broken = self.doc.broken.get();
        if let Some(r) = resources.as_ref().and_then(Obj::as_dict) {
            self.fixes_in(r, 0, &mut seen, &mut out);
        }
        // A damaged object on the way: no fixes, and the fast path's pages are not
        // refused for it.
        if self.doc.broken.get() && !broken {
            self.doc.broken.set(false);
            return CodeFixes::default();
        }
        out
    }

    fn fixes_in(
        &mut self,
        resources: &Dict,
        depth: u32,
        seen: &mut std::collections::HashSet<u32>,
        out: &mut CodeFixes,
    ) {
        if let Some(Obj::Dict(fonts)) = self.doc.get_in(resources, b"Font") {
            for (_, f) in fonts.0.iter() {
                let Some(font) = self.doc.resolve(f) else {
                    continue;
                };
                let Some(d) = font.as_dict() else { continue };
                let subtype = fonts::name_of(&self.doc, d, b"Subtype").unwrap_or_default();
                if subtype == b"Type0" {
                    let fix = match f {
                        Obj::Ref(n, _) => match self.embedded.get(n) {
                            Some(fix) => fix.clone(),
                            None => {
                                let fix = fonts::embedded_cid_text(&self.doc, d).map(Rc::new);
                                self.embedded.insert(*n, fix.clone());
                                fix
                            }
                        },
                        _ => fonts::embedded_cid_text(&self.doc, d).map(Rc::new),
                    };
                    let desc = self
                        .doc
                        .get_in(d, b"DescendantFonts")
                        .and_then(|a| a.as_array().and_then(|a| a.first().cloned()))
                        .and_then(|c| self.doc.resolve(&c));
                    match desc
                        .as_ref()
                        .and_then(Obj::as_dict)
                        .and_then(|c| fonts::name_of(&self.doc, c, b"BaseFont"))
                    {
                        Some(n) => out.add(String::from_utf8_lossy(&n).into_owned(), fix),
                        None => {
                            if let Some(n) = fonts::name_of(&self.doc, d, b"BaseFont") {
                                out.add(String::from_utf8_lossy(&n).into_owned(), None);
                            }
                        }
                    }
                } else if let Some(n) = fonts::name_of(&self.doc, d, b"BaseFont") {
                    let n = String::from_utf8_lossy(&n).into_owned();
                    let name = match n.split_once('+') {
                        Some((tag, rest))
                            if subtype == b"TrueType"
                                && tag.len() == 6
                                && tag.bytes().all(|b| b.is_ascii_uppercase()) =>
                        {
                            rest.to_owned()
                        }
                        _ => n,
                    };
                    out.add(name, None);
                }
            }
        }
        if depth >= MAX_FIX_DEPTH {
            return;
        }
        let Some(Obj::Dict(xobjects)) = self.doc.get_in(resources, b"XObject") else {
            return;
        };
        for (_, x) in xobjects.0.iter() {
            let Obj::Ref(n, _) = x else { continue };
            if seen.len() >= MAX_FIX_FORMS || !seen.insert(*n) {
                continue;
            }
            let Some(Obj::Stream(s)) = self.doc.resolve(x) else {
                continue;
            };
            if s.dict.get(b"Subtype").and_then(Obj::as_name) != Some(b"Form") {
                continue;
            }
            if let Some(Obj::Dict(r)) = self.doc.get_in(&s.dict, b"Resources") {
                self.fixes_in(&r, depth + 1, seen, out);
            }
        }
    }

    /// A JPEG image's bytes as stored, when its stream is DCT alone (`None` otherwise).
    pub fn jpeg(&self, image: &ImageUse) -> Option<Vec<u8>> {
        let dct = self.doc.filters(&image.stream)? == [Rc::from(&b"DCTDecode"[..])];
        if !dct || image.stream.dict.get(b"SMask").is_some() {
            return None;
        }
        let raw = self.doc.bytes.get(image.stream.data.clone())?;
        raw.starts_with(&[0xFF, 0xD8]).then(|| raw.to_vec())
    }

    /// An image's samples as packed 8-bit grey or RGB pixels, when it is one of the kinds
    /// scanners and PNG-minded writers store: no filter or Flate (with PNG predictors),
    /// device grey or RGB at 8 bits, or grey at 1 bit, no mask, no `/Decode`: the pixels
    /// PDFium's raw bitmap holds for them. `None` for anything else (PDFium decodes those).
    /// `max_pixels` has been checked by the caller; the decoded size is bounded by the
    /// stream limit.
    ///
    /// With `fit` (the box images are scaled into) an image two or more times too big comes
    /// back already shrunk by areas, decoded row by row as it inflates (a 600-dpi scan is
    /// never held whole), as `pixels::shrink_by_areas` would shrink it: `(pixels, colour,
    /// width, height)`.
    pub fn pixels(
        &self,
        image: &ImageUse,
        fit: Option<&quire_plugin_api::ImageRules>,
    ) -> Option<(Vec<u8>, image::ExtendedColorType, u32, u32)> {
        let dict = &image.stream.dict;
        let get = |k: &[u8]| dict.get(k).and_then(|o| self.doc.resolve(o));
        if matches!(get(b"ImageMask"), Some(Obj::Bool(true)))
            || get(b"SMask").is_some()
            || get(b"Mask").is_some()
            || get(b"Decode").is_some()
        {
            return None;
        }
        // Device spaces only: PDFium converts ICC-based and calibrated colour through their
        // profiles (an ICC RGB scan came out up to 12 levels apart), so those are its own.
        let channels = match get(b"ColorSpace")?.as_name()? {
            b"DeviceGray" | b"G" => 1,
            b"DeviceRGB" | b"RGB" => 3,
            _ => return None,
        };
        let bpc = get(b"BitsPerComponent")?.as_i64()?;
        if !(bpc == 8 || (bpc == 1 && channels == 1)) {
            return None;
        }
        let (w, h) = (
            u32::try_from(image.width).ok()?,
            u32::try_from(image.height).ok()?,
        );
        if w == 0 || h == 0 {
            return None;
        }
        let color = if channels == 1 {
            image::ExtendedColorType::L8
        } else {
            image::ExtendedColorType::Rgb8
        };
        let row = (w as usize * channels * bpc as usize).div_ceil(8);
        let expand = |r: &[u8], out: &mut Vec<u8>| {
            if bpc == 8 {
                out.extend_from_slice(&r[..w as usize * channels]);
            } else {
                // One bit per pixel, 0 black and 1 white, rows padded to whole bytes.
                out.extend((0..w as usize).map(|x| {
                    if r[x / 8] & (0x80 >> (x % 8)) != 0 {
                        255
                    } else {
                        0
                    }
                }));
            }
        };
        if let Some(mut shrink) = fit.and_then(|f| {
            quire_plugin_api::pixels::AreaShrink::new(w, h, channels, f.max_width, f.max_height)
        }) {
            let row_len = shrink.row_len();
            let mut line = Vec::with_capacity(row_len);
            let mut push = |r: &[u8]| {
                if bpc == 8 {
                    shrink.push_row(&r[..row_len]);
                } else {
                    line.clear();
                    expand(r, &mut line);
                    shrink.push_row(&line);
                }
            };
            if self.stream_rows(image, row, h as usize, &mut push)? {
                let (out, nw, nh) = shrink.finish()?;
                return Some((out, color, nw, nh));
            }
        }
        let data = self.doc.decode(&image.stream)?;
        // A short stream is left to PDFium, which pads it as it sees fit.
        if data.len() < row.checked_mul(h as usize)? {
            return None;
        }
        let mut out = Vec::with_capacity(w as usize * h as usize * channels);
        for r in data.chunks_exact(row).take(h as usize) {
            expand(r, &mut out);
        }
        Some((out, color, w, h))
    }

    /// Hands an image's `rows` rows of `row` bytes to `push` as they inflate, when its stream
    /// is raw or Flate alone without a predictor: `Some(true)` once all were given,
    /// `Some(false)` when the stream is of another kind (nothing given), `None` when it is
    /// damaged or short (PDFium reads it).
    fn stream_rows(
        &self,
        image: &ImageUse,
        row: usize,
        rows: usize,
        push: &mut dyn FnMut(&[u8]),
    ) -> Option<bool> {
        use miniz_oxide::inflate::stream::{inflate, InflateState};
        use miniz_oxide::{DataFormat, MZFlush, MZStatus};
        let dict = &image.stream.dict;
        let flate = match self.doc.filters(&image.stream).as_deref() {
            Some([]) => false,
            Some([f]) if matches!(&**f, b"FlateDecode" | b"Fl") => true,
            _ => return Some(false),
        };
        let predictor = match dict.get(b"DecodeParms").and_then(|p| self.doc.resolve(p)) {
            None | Some(Obj::Null) => 1,
            Some(Obj::Dict(d)) => d.get(b"Predictor").and_then(Obj::as_i64).unwrap_or(1),
            Some(_) => return Some(false),
        };
        if predictor != 1 {
            return Some(false);
        }
        let raw = self.doc.bytes.get(image.stream.data.clone())?;
        if !flate {
            if raw.len() < row.checked_mul(rows)? {
                return None;
            }
            for r in raw.chunks_exact(row).take(rows) {
                push(r);
            }
            return Some(true);
        }
        // Inflated as raw deflate after the two-byte zlib header: the Adler-32 check at the
        // end (which PDFium does not enforce either) would cost a pass over every byte.
        let header_ok = raw.len() > 2
            && raw[0] & 0x0F == 8
            && raw[1] & 0x20 == 0
            && (u16::from(raw[0]) << 8 | u16::from(raw[1])) % 31 == 0;
        if !header_ok {
            return None;
        }
        let mut state = InflateState::new_boxed(DataFormat::Raw);
        let mut input = &raw[2..];
        let mut chunk = vec![0u8; (64 << 10).max(row)];
        let mut carry: Vec<u8> = Vec::with_capacity(row);
        let mut done = 0usize;
        while done < rows {
            let res = inflate(&mut state, input, &mut chunk, MZFlush::None);
            input = &input[res.bytes_consumed..];
            let mut out = &chunk[..res.bytes_written];
            while !out.is_empty() && done < rows {
                if carry.is_empty() && out.len() >= row {
                    push(&out[..row]);
                    out = &out[row..];
                } else {
                    let take = (row - carry.len()).min(out.len());
                    carry.extend_from_slice(&out[..take]);
                    out = &out[take..];
                    if carry.len() == row {
                        push(&carry);
                        carry.clear();
                    } else {
                        continue;
                    }
                }
                done += 1;
            }
            match res.status {
                Ok(MZStatus::StreamEnd) => break,
                Ok(_) if res.bytes_consumed > 0 || res.bytes_written > 0 => {}
                _ => break,
            }
        }
        (done == rows).then_some(true)
    }
}

#[derive(Default, Clone)]
struct Inherited {
    resources: Option<Obj>,
    media: Option<Obj>,
    crop: Option<Obj>,
    rotate: Option<Obj>,
}

fn collect_pages(
    doc: &Doc<'_>,
    node_ref: &Obj,
    node: &Obj,
    inherited: &Inherited,
    depth: u32,
    seen: &mut std::collections::HashSet<u32>,
    out: &mut Vec<PageInfo>,
) -> Option<()> {
    if depth > MAX_TREE_DEPTH {
        return None;
    }
    if let Obj::Ref(n, _) = node_ref {
        if !seen.insert(*n) {
            return None;
        }
    }
    let dict = node.as_dict()?;
    let mut here = inherited.clone();
    for (key, slot) in [
        (&b"Resources"[..], &mut here.resources),
        (b"MediaBox", &mut here.media),
        (b"CropBox", &mut here.crop),
        (b"Rotate", &mut here.rotate),
    ] {
        if let Some(v) = dict.get(key) {
            *slot = Some(v.clone());
        }
    }
    match dict.get(b"Type").and_then(Obj::as_name) {
        Some(b"Pages") => {
            let kids = doc.get_in(dict, b"Kids")?;
            for kid in kids.as_array()? {
                let k = doc.resolve(kid)?;
                collect_pages(doc, kid, &k, &here, depth + 1, seen, out)?;
            }
            Some(())
        }
        Some(b"Page") => {
            let transform = page_transform(doc, dict, &here)?;
            let Obj::Dict(d) = node else { return None };
            out.push(PageInfo {
                dict: d.clone(),
                resources: here.resources,
                transform,
            });
            Some(())
        }
        _ => None,
    }
}

fn rect_of(doc: &Doc<'_>, o: &Obj) -> Option<[f32; 4]> {
    let a = doc.resolve(o)?;
    let a = a.as_array()?;
    if a.len() != 4 {
        return None;
    }
    let mut r = [0f32; 4];
    for (i, v) in a.iter().enumerate() {
        r[i] = doc.resolve(v)?.as_f64()? as f32;
    }
    Some(r)
}

/// The page box as `convert::page_transform` reads it through PDFium: the page's own
/// `/MediaBox`, or, when it only inherits one, PDFium's page size from the origin.
fn page_transform(doc: &Doc<'_>, page: &Dict, inh: &Inherited) -> Option<PageTransform> {
    let rotate = match &inh.rotate {
        Some(r) => doc.resolve(r)?.as_i64()?,
        None => 0,
    };
    let mut q = (rotate / 90) % 4;
    if q < 0 {
        q += 4;
    }
    let (left, bottom, right, top) = match page.get(b"MediaBox") {
        Some(m) => {
            let [a, b, c, d] = rect_of(doc, m)?;
            (a, b, c, d)
        }
        None => {
            let media = match &inh.media {
                Some(m) => rect_of(doc, m)?,
                None => [0.0, 0.0, 612.0, 792.0],
            };
            let norm = |r: [f32; 4]| {
                [
                    r[0].min(r[2]),
                    r[1].min(r[3]),
                    r[0].max(r[2]),
                    r[1].max(r[3]),
                ]
            };
            let media = norm(media);
            let mut bbox = media;
            if let Some(c) = &inh.crop {
                let c = norm(rect_of(doc, c)?);
                bbox = [
                    c[0].max(media[0]),
                    c[1].max(media[1]),
                    c[2].min(media[2]),
                    c[3].min(media[3]),
                ];
            }
            let (mut w, mut h) = (bbox[2] - bbox[0], bbox[3] - bbox[1]);
            if w <= 0.0 || h <= 0.0 {
                return None;
            }
            if q % 2 == 1 {
                std::mem::swap(&mut w, &mut h);
            }
            (0.0, 0.0, w, h)
        }
    };
    if !(left.is_finite() && bottom.is_finite() && right.is_finite() && top.is_finite()) {
        return None;
    }
    Some(PageTransform {
        left: left.min(right),
        bottom: bottom.min(top),
        right: left.max(right),
        top: bottom.max(top),
        quarter_turns: q as u8,
    })
}

/// The page's links with a URI action; `None` when the page has form widgets (PDFium
/// flattens them into the page first) or annotations that cannot be read.
fn annotations(doc: &Doc<'_>, page: &Dict, transform: &PageTransform) -> Option<Vec<Link>> {
    let Some(annots) = page.get(b"Annots") else {
        return Some(Vec::new());
    };
    let annots = match doc.resolve(annots)? {
        Obj::Array(a) => a,
        Obj::Null => return Some(Vec::new()),
        _ => return None,
    };
    let mut links = Vec::new();
    for a in annots.iter() {
        let a = doc.resolve(a)?;
        let Some(d) = a.as_dict() else { continue };
        match d
            .get(b"Subtype")
            .and_then(|s| doc.resolve(s))
            .as_ref()
            .and_then(Obj::as_name)
        {
            Some(b"Widget") => return None,
            Some(b"Link") => {
                let Some(action) = doc.get_in(d, b"A") else {
                    continue;
                };
                let Some(ad) = action.as_dict() else { continue };
                if doc.get_in(ad, b"S").as_ref().and_then(Obj::as_name) != Some(b"URI") {
                    continue;
                }
                let Some(Obj::Str(uri)) = doc.get_in(ad, b"URI") else {
                    continue;
                };
                if !uri.is_ascii() {
                    return None;
                }
                let uri = String::from_utf8_lossy(&uri)
                    .trim()
                    .trim_end_matches('\0')
                    .to_string();
                if uri.is_empty() {
                    continue;
                }
                let Some(r) = d.get(b"Rect").and_then(|r| rect_of(doc, r)) else {
                    continue;
                };
                links.push((r, uri));
            }
            _ => {}
        }
    }
    Some(
        links
            .into_iter()
            .map(|(r, href)| Link {
                rect: transform.rect(r[0], r[1], r[2], r[3]),
                href,
            })
            .collect(),
    )
}
