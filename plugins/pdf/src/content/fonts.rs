//! Fonts as the text path needs them: Unicode text and width of each character code,
//! ascent and descent for boxes, name and weight for bold and italic.
//!
//! Only what can be read with certainty is read. A font that needs its embedded program to
//! be understood (Type3, a symbolic font without a `ToUnicode` map, a predefined CJK CMap, a
//! built-in encoding, codes without a width) is refused, and its page goes through PDFium.

use super::data;
use super::object::{Dict, Doc, Lexer, Obj, Tok};
use std::collections::HashMap;
use std::rc::Rc;

/// The Unicode text of one code.
pub type Text = Rc<str>;

#[derive(Debug)]
pub struct Font {
    pub name: String,
    /// Bold and italic, as `glyphs::font_style` works them out from name and weight.
    pub style: (bool, bool),
    /// Two-byte codes (Type0 with an Identity CMap).
    pub two_byte: bool,
    /// A predefined CJK CMap whose codes are characters of an encoding (Type0).
    charset: Option<Charset>,
    /// Vertical writing (a `-V` CMap): the glyph's origin above its horizontal origin and
    /// the advance down the line, 1/1000 em (the CID font's `DW2`).
    pub vertical: Option<(f32, f32)>,
    /// Ascent and descent in 1/1000 em.
    pub ascent: f32,
    pub descent: f32,
    /// Simple fonts: text and width per code (`None`: the code cannot be read here).
    simple: Vec<Option<(Text, f32)>>,
    /// Type0: text by code, widths by CID (= code for Identity).
    cid_text: HashMap<u32, Text>,
    cid_widths: HashMap<u32, f32>,
    default_width: f32,
    /// Width of the code whose text is a space, if any (PDFium's word-gap measure).
    space: Option<f32>,
}

impl Font {
    pub fn space_width(&self) -> Option<f64> {
        self.space.map(f64::from)
    }

    /// The first code of `s` and its length in bytes; `None` when `s` does not start with
    /// a whole code.
    pub fn next_code(&self, s: &[u8]) -> Option<(u32, usize)> {
        let len = match self.charset {
            None if self.two_byte => 2,
            None => 1,
            Some(c) => c.code_len(*s.first()?)?,
        };
        let bytes = s.get(..len)?;
        Some((bytes.iter().fold(0u32, |a, &b| a << 8 | u32::from(b)), len))
    }

    /// Text and width (1/1000 em) of a code of `len` bytes; `None` when not known with
    /// certainty.
    pub fn code_text(&self, code: u32, len: usize) -> Option<(Text, f32)> {
        match self.charset {
            None => self.code(code).map(|(t, w)| (t.clone(), w)),
            Some(c) => {
                let t = c.text(code, len)?;
                usable(&t).then(|| (Rc::from(t.as_str()), self.default_width))
            }
        }
    }

    /// Text and width (1/1000 em) of a code; `None` when not known with certainty.
    pub fn code(&self, code: u32) -> Option<(&Text, f32)> {
        if self.two_byte {
            let t = self.cid_text.get(&code)?;
            let w = self
                .cid_widths
                .get(&code)
                .copied()
                .unwrap_or(self.default_width);
            Some((t, w))
        } else {
            let (t, w) = self.simple.get(code as usize)?.as_ref()?;
            Some((t, *w))
        }
    }
}

/// Fonts of a document by object number (shared across pages) and a cache of refusals.
#[derive(Default)]
pub struct Fonts {
    by_ref: HashMap<u32, Option<Rc<Font>>>,
}

impl Fonts {
    pub fn get(&mut self, doc: &Doc<'_>, obj: &Obj) -> Option<Rc<Font>> {
        if let Obj::Ref(n, _) = obj {
            if let Some(f) = self.by_ref.get(n) {
                return f.clone();
            }
            let f = doc
                .resolve(obj)
                .and_then(|o| load(doc, o.as_dict()?).map(Rc::new));
            self.by_ref.insert(*n, f.clone());
            return f;
        }
        load(doc, obj.as_dict()?).map(Rc::new)
    }
}

pub fn name_of(doc: &Doc<'_>, d: &Dict, key: &[u8]) -> Option<Vec<u8>> {
    match doc.get_in(d, key)? {
        Obj::Name(n) => Some(n.to_vec()),
        _ => None,
    }
}

struct Descriptor {
    flags: i64,
    ascent: f32,
    descent: f32,
    weight: u32,
    embedded: bool,
}

fn descriptor(doc: &Doc<'_>, font: &Dict) -> Option<Descriptor> {
    let d = doc.get_in(font, b"FontDescriptor")?;
    let d = d.as_dict()?;
    let num = |k: &[u8]| doc.get_in(d, k).and_then(|o| o.as_f64());
    let stemv = num(b"StemV").unwrap_or(0.0) as i64;
    // The stated weight, else PDFium's estimate from the stem width.
    let weight = match num(b"FontWeight").map(|w| w as i64) {
        Some(w) if w > 0 => w,
        _ if stemv < 140 => stemv * 5,
        _ => stemv * 4 + 140,
    };
    let bbox: Vec<f64> = match doc.get_in(d, b"FontBBox") {
        Some(Obj::Array(a)) => a.iter().filter_map(Obj::as_f64).collect(),
        _ => Vec::new(),
    };
    if bbox.len() != 4 || bbox.iter().all(|v| *v == 0.0) {
        return None;
    }
    let mut ascent = num(b"Ascent").unwrap_or(0.0) as i32 as f32;
    let mut descent = num(b"Descent").unwrap_or(0.0) as i32 as f32;
    // No ascent or descent given (LibreOffice writes both as 0): the font box's top and
    // bottom stand in for them.
    if ascent == 0.0 && descent == 0.0 {
        ascent = bbox[1].max(bbox[3]) as i32 as f32;
        descent = bbox[1].min(bbox[3]) as i32 as f32;
    }
    Some(Descriptor {
        flags: num(b"Flags").unwrap_or(32.0) as i64,
        ascent,
        descent,
        weight: weight.clamp(0, 100_000) as u32,
        embedded: [&b"FontFile"[..], b"FontFile2", b"FontFile3"]
            .iter()
            .any(|k| d.get(k).is_some()),
    })
}

fn load(doc: &Doc<'_>, font: &Dict) -> Option<Font> {
    let subtype = name_of(doc, font, b"Subtype")?;
    let name = name_of(doc, font, b"BaseFont")
        .map(|n| String::from_utf8_lossy(&n).into_owned())
        .unwrap_or_default();
    let to_unicode = match doc.get_in(font, b"ToUnicode") {
        Some(Obj::Stream(s)) => Some(parse_cmap(&doc.decode(&s)?)?),
        Some(Obj::Name(_)) | None | Some(Obj::Null) => None,
        _ => return None,
    };
    match &subtype[..] {
        b"Type1" | b"TrueType" | b"MMType1" => simple(doc, font, name, to_unicode, &subtype),
        b"Type0" => type0(doc, font, name, to_unicode),
        _ => None,
    }
}

/// The standard 14 text fonts (and the usual other names for them).
fn standard_name(name: &str) -> Option<&'static str> {
    let base = name.split_once('+').map_or(name, |(_, b)| b);
    Some(match base {
        "Helvetica" | "Arial" | "ArialMT" => "Helvetica",
        "Helvetica-Bold" | "Arial,Bold" | "Arial-BoldMT" | "Helvetica,Bold" => "Helvetica-Bold",
        "Helvetica-Oblique" | "Arial,Italic" | "Arial-ItalicMT" | "Helvetica,Italic" => {
            "Helvetica-Oblique"
        }
        "Helvetica-BoldOblique" | "Arial,BoldItalic" | "Arial-BoldItalicMT" => {
            "Helvetica-BoldOblique"
        }
        "Times-Roman" | "TimesNewRoman" | "TimesNewRomanPSMT" | "Times" => "Times-Roman",
        "Times-Bold" | "TimesNewRoman,Bold" | "TimesNewRomanPS-BoldMT" => "Times-Bold",
        "Times-Italic" | "TimesNewRoman,Italic" | "TimesNewRomanPS-ItalicMT" => "Times-Italic",
        "Times-BoldItalic" | "TimesNewRoman,BoldItalic" | "TimesNewRomanPS-BoldItalicMT" => {
            "Times-BoldItalic"
        }
        "Courier" | "CourierNew" | "CourierNewPSMT" => "Courier",
        "Courier-Bold" | "CourierNew,Bold" | "CourierNewPS-BoldMT" => "Courier-Bold",
        "Courier-Oblique" | "CourierNew,Italic" | "CourierNewPS-ItalicMT" => "Courier-Oblique",
        "Courier-BoldOblique" | "CourierNew,BoldItalic" | "CourierNewPS-BoldItalicMT" => {
            "Courier-BoldOblique"
        }
        _ => return None,
    })
}

/// Ascent and descent PDFium gives a standard font that has no descriptor (those of the
/// font it substitutes), measured from PDFium's loose character boxes.
fn standard_metrics(std: &str) -> (f32, f32) {
    match std {
        "Helvetica" | "Helvetica-Oblique" => (945.0, -224.0),
        "Helvetica-Bold" | "Helvetica-BoldOblique" => (962.0, -227.0),
        "Times-Roman" => (878.0, -249.0),
        "Times-Italic" => (868.0, -249.0),
        "Times-Bold" | "Times-BoldItalic" => (889.0, -249.0),
        _ => (803.0, -248.0),
    }
}

pub fn agl(name: &[u8]) -> Option<&'static str> {
    let name = std::str::from_utf8(name).ok()?;
    if let Ok(i) = data::AGL.binary_search_by(|(n, _)| (*n).cmp(name)) {
        return Some(data::AGL[i].1);
    }
    None
}

/// `uniXXXX` and `uXXXX[XX]` glyph names.
fn uni_name(name: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(name).ok()?;
    let hex = if let Some(h) = s.strip_prefix("uni") {
        if h.len() != 4 {
            return None;
        }
        h
    } else if let Some(h) = s.strip_prefix('u') {
        if !(4..=6).contains(&h.len()) {
            return None;
        }
        h
    } else {
        return None;
    };
    let v = u32::from_str_radix(hex, 16).ok()?;
    let c = char::from_u32(v)?;
    Some(c.to_string())
}

fn simple(
    doc: &Doc<'_>,
    font: &Dict,
    name: String,
    to_unicode: Option<HashMap<u32, Text>>,
    subtype: &[u8],
) -> Option<Font> {
    let desc = descriptor(doc, font);
    let std = if desc.as_ref().is_none_or(|d| !d.embedded) {
        standard_name(&name)
    } else {
        None
    };
    let (flags, ascent, descent, weight) = match (&desc, std) {
        (Some(d), _) => (d.flags, d.ascent, d.descent, d.weight),
        (None, Some(s)) => {
            let (a, d) = standard_metrics(s);
            (32, a, d, 0)
        }
        (None, None) => return None,
    };
    if ascent == descent {
        return None;
    }
    let symbolic = flags & 4 != 0;
    // Glyph names per code: base encoding, then Differences.
    let mut names: [Option<Vec<u8>>; 256] = std::array::from_fn(|_| None);
    let encoding = doc.get_in(font, b"Encoding");
    let (base, diffs) = match &encoding {
        Some(Obj::Name(n)) => (Some(n.to_vec()), None),
        Some(Obj::Dict(d)) => (
            name_of(doc, d, b"BaseEncoding"),
            doc.get_in(d, b"Differences"),
        ),
        None | Some(Obj::Null) => (None, None),
        _ => return None,
    };
    let embedded = desc.as_ref().is_some_and(|d| d.embedded);
    let table: Option<&[&str; 256]> = match base.as_deref() {
        Some(b"WinAnsiEncoding") => Some(&data::WIN_ANSI),
        Some(b"MacRomanEncoding") => Some(&data::MAC_ROMAN),
        Some(b"StandardEncoding") => Some(&data::STANDARD),
        Some(_) => return None,
        // A Type1 font without an encoding: the standard one, unless its program brings its
        // own (embedded) or it is symbolic.
        None if subtype != b"TrueType" && !embedded && !symbolic => Some(&data::STANDARD),
        None => None,
    };
    if let Some(t) = table {
        if !symbolic {
            for (i, n) in t.iter().enumerate() {
                if !n.is_empty() {
                    names[i] = Some(n.as_bytes().to_vec());
                }
            }
        }
    }
    if let Some(Obj::Array(a)) = diffs {
        let mut code: i64 = -1;
        for item in a.iter() {
            match item {
                Obj::Int(n) => code = *n,
                Obj::Name(n) if (0..256).contains(&code) => {
                    names[code as usize] = Some(n.to_vec());
                    code += 1;
                }
                Obj::Name(_) => code += 1,
                _ => return None,
            }
        }
    } else if diffs.is_some() {
        return None;
    }
    // Widths.
    let mut widths: [Option<f32>; 256] = [None; 256];
    match (doc.get_in(font, b"Widths"), doc.get_in(font, b"FirstChar")) {
        (Some(Obj::Array(w)), Some(first)) => {
            let first = first.as_i64()?;
            for (k, v) in w.iter().enumerate() {
                let code = first + k as i64;
                if (0..256).contains(&code) {
                    widths[code as usize] = Some(doc.resolve(v)?.as_f64()? as f32);
                }
            }
        }
        _ => {
            let s = std?;
            let table = data::STD14.iter().find(|(n, _)| *n == s)?.1;
            for (i, n) in names.iter().enumerate() {
                if let Some(n) = n {
                    let n = std::str::from_utf8(n).ok()?;
                    if let Ok(k) = table.binary_search_by(|(g, _)| (*g).cmp(n)) {
                        widths[i] = Some(f32::from(table[k].1));
                    }
                }
            }
        }
    }
    let mut simple: Vec<Option<(Text, f32)>> = vec![None; 256];
    for code in 0..256usize {
        let Some(w) = widths[code] else { continue };
        let text: Option<Text> = match to_unicode.as_ref().and_then(|m| m.get(&(code as u32))) {
            Some(t) => Some(t.clone()),
            None if symbolic => None,
            None => names[code].as_deref().and_then(|n| {
                if code == 0xAD && table == Some(&data::WIN_ANSI) && n == b"hyphen" {
                    // PDFium's WinAnsi table has the soft hyphen here.
                    return Some(Rc::from("\u{ad}"));
                }
                agl(n)
                    .map(Rc::from)
                    .or_else(|| uni_name(n).map(|s| Rc::from(s.as_str())))
            }),
        };
        if let Some(t) = text {
            if usable(&t) {
                simple[code] = Some((t, w));
            }
        }
    }
    let style = crate::glyphs::font_style(&name, weight);
    Some(Font {
        name,
        style,
        two_byte: false,
        charset: None,
        vertical: None,
        ascent,
        descent,
        space: simple
            .iter()
            .find_map(|e| e.as_ref().filter(|(t, _)| &**t == " ").map(|(_, w)| *w)),
        simple,
        cid_text: HashMap::new(),
        cid_widths: HashMap::new(),
        default_width: 0.0,
    })
}

/// Text the glyph reader takes as is: no control characters, no unpaired halves, nothing
/// PDFium treats specially (right-to-left letters are reordered by it).
fn usable(t: &str) -> bool {
    !t.is_empty()
        && t.chars().all(|c| {
            let v = c as u32;
            // Noncharacters and private-use codes: PDFium may read such a font otherwise.
            !c.is_control()
                && !matches!(c, '\u{feff}' | '\u{fffd}')
                && v & 0xFFFE != 0xFFFE
                && !(0xFDD0..=0xFDEF).contains(&v)
                && !(0xE000..=0xF8FF).contains(&v)
                && v < 0xF0000
                && !crate::glyphs::is_rtl(c)
        })
}

/// The character collections PDFium reads a CID font's text from by its CIDs.
fn known_collection(doc: &Doc<'_>, cid_font: &Dict) -> bool {
    let Some(info) = doc.get_in(cid_font, b"CIDSystemInfo") else {
        return false;
    };
    let Some(info) = info.as_dict() else {
        return false;
    };
    match doc.get_in(info, b"Ordering") {
        Some(Obj::Str(o)) => matches!(&o[..], b"Japan1" | b"GB1" | b"CNS1" | b"Korea1"),
        _ => false,
    }
}

/// The text of a Type0 font's codes read from its embedded TrueType program, for a font
/// PDFium reads no text from (it reports the codes themselves): `Identity-H` or
/// `Identity-V`, no `ToUnicode` stream, a `CIDFontType2` in no character collection PDFium
/// knows, with a `FontFile2`. Code = CID; CID to glyph through `CIDToGIDMap` (identity or
/// a stream); glyph to character through the program's `cmap` ([`super::truetype`]). Codes
/// whose character [`usable`] refuses are left out. `None` for any other font.
pub fn embedded_cid_text(doc: &Doc<'_>, font: &Dict) -> Option<HashMap<u32, char>> {
    if name_of(doc, font, b"Subtype").as_deref() != Some(b"Type0") {
        return None;
    }
    if let Some(Obj::Stream(_)) = doc.get_in(font, b"ToUnicode") {
        return None;
    }
    match name_of(doc, font, b"Encoding").as_deref() {
        Some(b"Identity-H" | b"Identity-V") => {}
        _ => return None,
    }
    let desc_fonts = doc.get_in(font, b"DescendantFonts")?;
    let cid = doc.resolve(desc_fonts.as_array()?.first()?)?;
    let cid = cid.as_dict()?;
    if name_of(doc, cid, b"Subtype").as_deref() != Some(b"CIDFontType2")
        || known_collection(doc, cid)
    {
        return None;
    }
    let desc = doc.get_in(cid, b"FontDescriptor")?;
    let Some(Obj::Stream(program)) = doc.get_in(desc.as_dict()?, b"FontFile2") else {
        return None;
    };
    let by_glyph = super::truetype::unicode_by_glyph(&doc.decode(&program)?)?;
    let keep = |c: char| usable(c.encode_utf8(&mut [0; 4]));
    let mut out = HashMap::new();
    match doc.get_in(cid, b"CIDToGIDMap") {
        None | Some(Obj::Null) => {}
        Some(Obj::Name(n)) if &*n == b"Identity" => {}
        Some(Obj::Stream(s)) => {
            let table = doc.decode(&s)?;
            for (code, pair) in table.chunks_exact(2).enumerate() {
                let gid = u16::from_be_bytes([pair[0], pair[1]]);
                if let Some(&c) = by_glyph.get(&gid).filter(|&&c| keep(c)) {
                    out.insert(code as u32, c);
                }
            }
            return (!out.is_empty()).then_some(out);
        }
        _ => return None,
    }
    for (&gid, &c) in &by_glyph {
        if keep(c) {
            out.insert(u32::from(gid), c);
        }
    }
    (!out.is_empty()).then_some(out)
}

fn type0(
    doc: &Doc<'_>,
    font: &Dict,
    name: String,
    to_unicode: Option<HashMap<u32, Text>>,
) -> Option<Font> {
    let encoding = name_of(doc, font, b"Encoding")?;
    let (charset, vertical) = match &encoding[..] {
        b"Identity-H" => (None, false),
        b"Identity-V" => (None, true),
        other => {
            let (c, v) = Charset::of_cmap(other)?;
            (Some(c), v)
        }
    };
    let desc_fonts = doc.get_in(font, b"DescendantFonts")?;
    let cid = doc.resolve(desc_fonts.as_array()?.first()?)?;
    let cid = cid.as_dict()?;
    match name_of(doc, cid, b"Subtype").as_deref() {
        Some(b"CIDFontType0" | b"CIDFontType2") => {}
        _ => return None,
    }
    // The text: a predefined CMap's codes are characters (a ToUnicode map would be read by
    // PDFium instead: not followed here); Identity codes go through ToUnicode or the program.
    let to_unicode = match (charset, to_unicode) {
        (Some(_), Some(_)) => return None,
        (Some(_), None) => HashMap::new(),
        (None, Some(m)) => m,
        (None, None) => embedded_cid_text(doc, font)?
            .iter()
            .map(|(&code, &c)| (code, Rc::from(c.to_string().as_str())))
            .collect(),
    };
    let desc = match descriptor(doc, cid) {
        Some(d) => d,
        // A CJK font named by a predefined CMap, not embedded, without a descriptor: the
        // ascent and descent of the font PDFium substitutes (measured from its loose boxes
        // on a system without CJK fonts).
        None if charset.is_some() && cid.get(b"FontDescriptor").is_none() => Descriptor {
            flags: 4,
            ascent: 872.0,
            descent: -256.0,
            weight: 0,
            embedded: false,
        },
        None => return None,
    };
    if desc.ascent == desc.descent {
        return None;
    }
    // Widths and vertical metrics are given by CID; a predefined CMap's CIDs are not
    // known here, so only its default widths are followed.
    let has = |k: &[u8]| match doc.get_in(cid, k) {
        Some(Obj::Array(a)) => !a.is_empty(),
        None | Some(Obj::Null) => false,
        _ => true,
    };
    if (charset.is_some() && has(b"W")) || (vertical && has(b"W2")) {
        return None;
    }
    // Vertical writing is read here only where PDFium has no font program to read it
    // with (it drops such glyphs unless the system has a font for them); an embedded
    // vertical font is PDFium's.
    if vertical && desc.embedded {
        return None;
    }
    let vertical = if vertical {
        match doc.get_in(cid, b"DW2") {
            None => Some((880.0, -1000.0)),
            Some(Obj::Array(a)) if a.len() == 2 => Some((
                doc.resolve(&a[0])?.as_f64()? as f32,
                doc.resolve(&a[1])?.as_f64()? as f32,
            )),
            _ => return None,
        }
    } else {
        None
    };
    let default_width = doc
        .get_in(cid, b"DW")
        .and_then(|o| o.as_f64())
        .unwrap_or(1000.0) as f32;
    let mut cid_widths = HashMap::new();
    if let Some(Obj::Array(w)) = doc.get_in(cid, b"W") {
        let mut i = 0;
        while i < w.len() {
            let first = doc.resolve(&w[i])?.as_i64()?;
            match w.get(i + 1).and_then(|o| doc.resolve(o)) {
                Some(Obj::Array(list)) => {
                    for (k, v) in list.iter().enumerate() {
                        let c = u32::try_from(first + k as i64).ok()?;
                        cid_widths.insert(c, doc.resolve(v)?.as_f64()? as f32);
                    }
                    i += 2;
                }
                Some(last) => {
                    let last = last.as_i64()?;
                    let width = doc.resolve(w.get(i + 2)?)?.as_f64()? as f32;
                    if last - first > 65536 || last < first {
                        return None;
                    }
                    for c in first..=last {
                        cid_widths.insert(u32::try_from(c).ok()?, width);
                    }
                    i += 3;
                }
                None => return None,
            }
        }
    }
    let space = to_unicode
        .iter()
        .filter(|(_, t)| &***t == " ")
        .map(|(c, _)| *c)
        .min()
        .map(|c| cid_widths.get(&c).copied().unwrap_or(default_width));
    let cid_text = to_unicode.into_iter().filter(|(_, t)| usable(t)).collect();
    let style = crate::glyphs::font_style(&name, desc.weight);
    Some(Font {
        name,
        style,
        two_byte: true,
        charset,
        vertical,
        ascent: desc.ascent,
        descent: desc.descent,
        simple: Vec::new(),
        cid_text,
        cid_widths,
        default_width,
        space,
    })
}

/// The encodings of the predefined CJK CMaps whose codes are characters (Adobe's CMaps
/// for the Japan1, GB1, CNS1 and Korea1 collections).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Charset {
    /// UCS-2 (the `Uni*-UCS2` CMaps): the code is the character.
    Ucs2,
    /// JIS X 0208 row and cell (`H`, `V`).
    Jis,
    EucJp,
    ShiftJis,
    Gbk,
    Big5,
    EucKr,
}

impl Charset {
    /// The encoding of a predefined CMap, and whether it writes vertically.
    pub fn of_cmap(name: &[u8]) -> Option<(Charset, bool)> {
        let name = std::str::from_utf8(name).ok()?;
        let (base, vertical) = match name {
            "H" => ("", false),
            "V" => ("", true),
            _ => {
                if let Some(b) = name.strip_suffix("-H") {
                    (b, false)
                } else {
                    (name.strip_suffix("-V")?, true)
                }
            }
        };
        let charset = match base {
            "UniJIS-UCS2" | "UniJIS-UCS2-HW" | "UniGB-UCS2" | "UniCNS-UCS2" | "UniKS-UCS2" => {
                Charset::Ucs2
            }
            "" => Charset::Jis,
            "EUC" => Charset::EucJp,
            "90ms-RKSJ" | "90msp-RKSJ" | "83pv-RKSJ" | "RKSJ" => Charset::ShiftJis,
            "GB-EUC" | "GBK-EUC" | "GBKp-EUC" | "GBpc-EUC" => Charset::Gbk,
            "B5pc" | "ETen-B5" | "ETenms-B5" | "HKscs-B5" => Charset::Big5,
            "KSC-EUC" | "KSCms-UHC" | "KSCpc-EUC" => Charset::EucKr,
            _ => return None,
        };
        Some((charset, vertical))
    }

    /// Bytes of the code starting with `first`.
    fn code_len(self, first: u8) -> Option<usize> {
        Some(match self {
            Charset::Ucs2 | Charset::Jis => 2,
            Charset::EucJp => match first {
                0..=0x80 => 1,
                0x8E | 0xA1..=0xFE => 2,
                _ => return None,
            },
            Charset::ShiftJis => match first {
                0..=0x80 | 0xA0..=0xDF => 1,
                0x81..=0x9F | 0xE0..=0xFC => 2,
                _ => return None,
            },
            Charset::Gbk | Charset::Big5 | Charset::EucKr => match first {
                0..=0x80 => 1,
                0x81..=0xFE => 2,
                _ => return None,
            },
        })
    }

    /// The text of a code of `len` bytes.
    fn text(self, code: u32, len: usize) -> Option<String> {
        let bytes = &code.to_be_bytes()[4 - len..];
        if len == 1 && code < 0x80 {
            // The Japanese CMaps' one-byte codes are JIS Roman: yen sign and overline.
            let japanese = matches!(self, Charset::EucJp | Charset::ShiftJis);
            return Some(match code {
                0x5C if japanese => "\u{a5}".into(),
                0x7E if japanese => "\u{203e}".into(),
                _ => char::from_u32(code)?.to_string(),
            });
        }
        let encoding = match self {
            Charset::Ucs2 => return char::from_u32(code).map(String::from),
            Charset::Jis => {
                if !bytes.iter().all(|b| (0x21..=0x7E).contains(b)) {
                    return None;
                }
                let euc = [bytes[0] | 0x80, bytes[1] | 0x80];
                return decode_one(encoding_rs::EUC_JP, &euc);
            }
            Charset::EucJp => encoding_rs::EUC_JP,
            Charset::ShiftJis => encoding_rs::SHIFT_JIS,
            Charset::Gbk => encoding_rs::GBK,
            Charset::Big5 => encoding_rs::BIG5,
            Charset::EucKr => encoding_rs::EUC_KR,
        };
        decode_one(encoding, bytes)
    }
}

/// One character decoded from `bytes`, or `None`.
fn decode_one(encoding: &'static encoding_rs::Encoding, bytes: &[u8]) -> Option<String> {
    let s = encoding.decode_without_bom_handling_and_without_replacement(bytes)?;
    (s.chars().count() == 1).then(|| s.into_owned())
}

/// Most entries a ToUnicode map may give (a range expands to one per code).
const MAX_CMAP_ENTRIES: usize = 1 << 17;

/// A ToUnicode CMap: `bfchar` and `bfrange` entries, codes as their byte values. `None`
/// when it uses anything else (`usecmap`).
pub fn parse_cmap(data: &[u8]) -> Option<HashMap<u32, Text>> {
    let mut lx = Lexer::new(data, 0);
    let mut out: HashMap<u32, Text> = HashMap::new();
    let code = |s: &[u8]| -> Option<u32> {
        if s.is_empty() || s.len() > 4 {
            return None;
        }
        Some(s.iter().fold(0u32, |a, &b| a << 8 | u32::from(b)))
    };
    while let Some(tok) = lx.next_tok() {
        match tok {
            Tok::Word(b"usecmap") => return None,
            Tok::Word(b"beginbfchar") => loop {
                match lx.next_tok()? {
                    Tok::Word(b"endbfchar") => break,
                    Tok::Str(src) => {
                        let dst = match lx.next_tok()? {
                            Tok::Str(d) => utf16(&d),
                            Tok::Name(n) => agl(n).map(String::from),
                            _ => return None,
                        };
                        if let (Some(c), Some(d)) = (code(&src), dst) {
                            out.insert(c, Rc::from(d.as_str()));
                        }
                    }
                    _ => return None,
                }
            },
            Tok::Word(b"beginbfrange") => loop {
                let lo = match lx.next_tok()? {
                    Tok::Word(b"endbfrange") => break,
                    Tok::Str(s) => s,
                    _ => return None,
                };
                let Some(Tok::Str(hi)) = lx.next_tok() else {
                    return None;
                };
                let (lo_c, hi_c) = (code(&lo)?, code(&hi)?);
                if hi_c < lo_c || (hi_c - lo_c) as usize > MAX_CMAP_ENTRIES {
                    return None;
                }
                match lx.next_tok()? {
                    Tok::Str(dst) => {
                        let mut units = utf16_units(&dst);
                        if units.is_empty() {
                            continue;
                        }
                        for c in lo_c..=hi_c {
                            if let Ok(s) = String::from_utf16(&units) {
                                out.insert(c, Rc::from(s.as_str()));
                            }
                            // The last byte increments (within its byte, as the spec has it).
                            let last = units.last_mut()?;
                            *last = last.wrapping_add(1);
                        }
                    }
                    Tok::ArrayOpen => {
                        let mut c = lo_c;
                        loop {
                            match lx.next_tok()? {
                                Tok::ArrayClose => break,
                                Tok::Str(d) => {
                                    if let Some(s) = utf16(&d) {
                                        if c <= hi_c {
                                            out.insert(c, Rc::from(s.as_str()));
                                        }
                                    }
                                    c += 1;
                                }
                                _ => return None,
                            }
                        }
                    }
                    _ => return None,
                }
                if out.len() > MAX_CMAP_ENTRIES {
                    return None;
                }
            },
            _ => {}
        }
    }
    Some(out)
}

fn utf16_units(d: &[u8]) -> Vec<u16> {
    if d.len() == 1 {
        return vec![u16::from(d[0])];
    }
    d.chunks(2)
        .map(|p| u16::from(p[0]) << 8 | u16::from(*p.get(1).unwrap_or(&0)))
        .collect()
}

fn utf16(d: &[u8]) -> Option<String> {
    String::from_utf16(&utf16_units(d)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tounicode_bfrange_and_bfchar() {
        let cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap \
            1 begincodespacerange <00> <FF> endcodespacerange \
            2 beginbfrange <20> <22> <0041> <30> <31> [<0078> <00660069>] endbfrange \
            1 beginbfchar <40> <D835DC34> endbfchar endcmap";
        let m = parse_cmap(cmap).unwrap();
        assert_eq!(&*m[&0x20], "A");
        assert_eq!(&*m[&0x22], "C");
        assert_eq!(&*m[&0x30], "x");
        assert_eq!(&*m[&0x31], "fi");
        assert_eq!(&*m[&0x40], "\u{1D434}");
    }

    #[test]
    fn glyph_names() {
        assert_eq!(agl(b"Aacute"), Some("\u{c1}"));
        assert_eq!(uni_name(b"uni20AC").as_deref(), Some("\u{20ac}"));
        assert_eq!(agl(b"g123"), None);
    }
}
