//! The text drawn in a Windows metafile (EMF or WMF), for pictures the output cannot embed.
//!
//! Office documents carry charts, diagrams and the icons of embedded objects as metafiles: a
//! chart pasted from Excel, a Visio drawing, an embedded PDF's icon with its file name under
//! it. No browser shows EMF or WMF, so the picture is left out; the words it draws are kept
//! as the picture's text (the `ocr_text` the renderers already place beside an image), as
//! Apache Tika and LibreOffice read them.
//!
//! What is read: the text-output records (EMF `EXTTEXTOUTW`/`EXTTEXTOUTA`, WMF `TEXTOUT`/
//! `EXTTEXTOUT`) in drawing order, with the font selected at each. Runs on one baseline are
//! joined (without a space where one run ends where the next starts: a word drawn a glyph at
//! a time), a new baseline starts a new line. Left out: text in a symbol font (Symbol,
//! Wingdings, …: the bytes are glyphs, not characters), text drawn by glyph index, and every
//! metafile MathType wrote (an equation's pieces in drawing order are noise, not text).
//! Every read is bounds-checked: a damaged metafile yields what was read before the damage.

use encoding_rs::Encoding;

/// Text output kept per metafile at most (bytes).
const MAX_TEXT: usize = 64 * 1024;

/// Records read per metafile at most.
const MAX_RECORDS: usize = 200_000;

/// The text a metafile draws, or `None` when it draws none (or is not a metafile).
pub fn text(data: &[u8]) -> Option<String> {
    let runs = if is_emf(data) {
        emf_runs(data)?
    } else {
        wmf_runs(data)?
    };
    let text = join(&runs);
    (!text.trim().is_empty()).then_some(text)
}

/// Whether the bytes are an EMF: a header record (type 1) with the " EMF" signature.
pub fn is_emf(data: &[u8]) -> bool {
    u32_at(data, 0) == Some(1) && data.get(40..44) == Some(b" EMF")
}

/// Whether the bytes are a WMF: a placeable header's key, or a memory/disk header of nine
/// words.
pub fn is_wmf(data: &[u8]) -> bool {
    data.starts_with(&[0xD7, 0xCD, 0xC6, 0x9A])
        || (matches!(u16_at(data, 0), Some(1 | 2)) && u16_at(data, 2) == Some(9))
}

/// One text-output record: where it starts, what it says, how far it advances (when the
/// record lists its character widths) and the font's height (the scale of its coordinates).
struct Run {
    x: i64,
    y: i64,
    text: String,
    advance: Option<i64>,
    height: i64,
}

impl Run {
    /// A run drawn at its reference point `(x, y)` in the selected font.
    fn at(
        x: impl Into<i64>,
        y: impl Into<i64>,
        text: String,
        advance: Option<i64>,
        font: Font,
    ) -> Run {
        Run {
            x: x.into(),
            y: y.into(),
            text,
            advance,
            height: font.height,
        }
    }
}

/// A selected font: whether it draws symbols, its height, and the code page of 8-bit text.
#[derive(Clone, Copy)]
struct Font {
    symbol: bool,
    height: i64,
    charset: u8,
}

const PLAIN: Font = Font {
    symbol: false,
    height: 0,
    charset: 0,
};

fn u16_at(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(d.get(at..at + 2)?.try_into().ok()?))
}

fn i16_at(d: &[u8], at: usize) -> Option<i16> {
    u16_at(d, at).map(|v| v as i16)
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

fn i32_at(d: &[u8], at: usize) -> Option<i32> {
    u32_at(d, at).map(|v| v as i32)
}

/// Whether a font face draws symbols rather than letters.
fn symbol_face(face: &str) -> bool {
    let face = face.trim().to_ascii_lowercase();
    [
        "symbol",
        "wingdings",
        "webdings",
        "marlett",
        "mt extra",
        "mt symbol",
    ]
    .iter()
    .any(|s| face.starts_with(s))
}

/// The encoding of 8-bit text in a font of this character set (Windows' `CHARSET` values).
fn charset_encoding(charset: u8) -> &'static Encoding {
    use encoding_rs::*;
    match charset {
        238 => WINDOWS_1250,
        204 => WINDOWS_1251,
        161 => WINDOWS_1253,
        162 => WINDOWS_1254,
        177 => WINDOWS_1255,
        178 => WINDOWS_1256,
        186 => WINDOWS_1257,
        163 => WINDOWS_1258,
        222 => WINDOWS_874,
        128 => SHIFT_JIS,
        134 => GBK,
        129 => EUC_KR,
        136 => BIG5,
        _ => WINDOWS_1252,
    }
}

fn decode_8bit(bytes: &[u8], font: Font) -> String {
    charset_encoding(font.charset).decode(bytes).0.into_owned()
}

/// The text records of an EMF; `None` when MathType wrote it.
fn emf_runs(d: &[u8]) -> Option<Vec<Run>> {
    let mut runs = Vec::new();
    let mut fonts: std::collections::HashMap<u32, Font> = Default::default();
    let mut font = PLAIN;
    let mut pos = 0usize;
    let mut budget = 0usize;
    for _ in 0..MAX_RECORDS {
        let (Some(kind), Some(size)) = (u32_at(d, pos), u32_at(d, pos + 4)) else {
            break;
        };
        let size = size as usize;
        let Some(r) = d.get(pos..pos.saturating_add(size)).filter(|_| size >= 8) else {
            break;
        };
        match kind {
            // EMR_EOF
            14 => break,
            // EMR_GDICOMMENT: MathType signs its pictures.
            70 if contains(r, b"MathType") => return None,
            // EMR_EXTCREATEFONTINDIRECTW: a LOGFONTW at 12 (height, …, charset at 23, face
            // at 28, 32 UTF-16 units).
            82 => {
                if let (Some(handle), Some(height)) = (u32_at(r, 8), i32_at(r, 12)) {
                    let charset = r.get(12 + 23).copied().unwrap_or(0);
                    let face = r.get(40..104).map(utf16_z).unwrap_or_default();
                    fonts.insert(
                        handle,
                        Font {
                            symbol: charset == 2 || symbol_face(&face),
                            height: i64::from(height).abs(),
                            charset,
                        },
                    );
                }
            }
            // EMR_SELECTOBJECT
            37 => {
                if let Some(f) = u32_at(r, 8).and_then(|h| fonts.get(&h)) {
                    font = *f;
                }
            }
            // EMR_EXTTEXTOUTA, EMR_EXTTEXTOUTW: an EMRTEXT at 36 (reference point, chars,
            // offString, options, rectangle, offDx).
            83 | 84 => {
                if let Some(run) = emf_text(r, kind == 84, font) {
                    budget += run.text.len();
                    runs.push(run);
                    if budget > MAX_TEXT {
                        break;
                    }
                }
            }
            _ => {}
        }
        pos += size;
    }
    Some(runs)
}

fn emf_text(r: &[u8], wide: bool, font: Font) -> Option<Run> {
    let (x, y) = (i32_at(r, 36)?, i32_at(r, 40)?);
    let chars = u32_at(r, 44)? as usize;
    let offset = u32_at(r, 48)? as usize;
    let options = u32_at(r, 52)?;
    // ETO_GLYPH_INDEX: the "string" is glyph numbers of the font.
    if font.symbol || chars == 0 || options & 0x10 != 0 {
        return None;
    }
    let text = if wide {
        let bytes = r.get(offset..offset.checked_add(chars.checked_mul(2)?)?)?;
        utf16(bytes)
    } else {
        decode_8bit(r.get(offset..offset.checked_add(chars)?)?, font)
    };
    // ETO_NO_RECT: the rectangle before offDx is absent.
    let dx_at = if options & 0x100 != 0 { 56 } else { 72 };
    let dx = u32_at(r, dx_at).map(|o| o as usize).filter(|&o| o != 0);
    let advance = dx.and_then(|o| {
        (0..chars)
            .map(|i| i32_at(r, o.checked_add(i * 4)?).map(i64::from))
            .sum::<Option<i64>>()
    });
    // The record's bounds (device units), when the writer filled them in, place the run
    // better than the reference point: writers that position text by transform or current
    // position leave every reference point at the origin.
    let (left, top, right, bottom) = (
        i32_at(r, 8)?,
        i32_at(r, 12)?,
        i32_at(r, 16)?,
        i32_at(r, 20)?,
    );
    if right > left && bottom > top {
        return Some(Run {
            x: left.into(),
            y: bottom.into(),
            text,
            advance: Some(i64::from(right) - i64::from(left)),
            height: i64::from(bottom) - i64::from(top),
        });
    }
    Some(Run::at(x, y, text, advance, font))
}

/// The text records of a WMF; `None` when it is not one or MathType wrote it.
fn wmf_runs(d: &[u8]) -> Option<Vec<Run>> {
    if !is_wmf(d) {
        return None;
    }
    let mut pos = if d.starts_with(&[0xD7, 0xCD, 0xC6, 0x9A]) {
        22
    } else {
        0
    };
    pos += usize::from(u16_at(d, pos + 2)?) * 2;
    // The object table: every created object takes the lowest free index.
    let mut objects: Vec<Option<Font>> = Vec::new();
    let create =
        |objects: &mut Vec<Option<Font>>, f: Font| match objects.iter().position(Option::is_none) {
            Some(i) => objects[i] = Some(f),
            None => objects.push(Some(f)),
        };
    let mut font = PLAIN;
    let mut runs = Vec::new();
    let mut budget = 0usize;
    for _ in 0..MAX_RECORDS {
        let (Some(words), Some(function)) = (u32_at(d, pos), u16_at(d, pos + 4)) else {
            break;
        };
        let size = (words as usize).saturating_mul(2);
        let Some(r) = d.get(pos..pos.saturating_add(size)).filter(|_| size >= 6) else {
            break;
        };
        match function {
            0 => break,
            // META_ESCAPE (a comment among them): MathType signs its pictures.
            0x0626 if contains(r, b"MathType") => return None,
            // Pens, brushes, palettes, regions: they take a slot.
            0x02FA | 0x02FC | 0x01F9 | 0x0142 | 0x00F7 | 0x06FF => create(&mut objects, PLAIN),
            // META_CREATEFONTINDIRECT: height at 6, charset at 19, face at 24 (32 bytes).
            0x02FB => {
                let height = i16_at(r, 6).map(i64::from).unwrap_or(0).abs();
                let charset = r.get(19).copied().unwrap_or(0);
                let face = r
                    .get(24..r.len().min(56))
                    .map(|b| {
                        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                        String::from_utf8_lossy(&b[..end]).into_owned()
                    })
                    .unwrap_or_default();
                create(
                    &mut objects,
                    Font {
                        symbol: charset == 2 || symbol_face(&face),
                        height,
                        charset,
                    },
                );
            }
            // META_SELECTOBJECT
            0x012D => {
                if let Some(Some(f)) = u16_at(r, 6).and_then(|i| objects.get(usize::from(i))) {
                    font = *f;
                }
            }
            // META_DELETEOBJECT
            0x01F0 => {
                if let Some(slot) = u16_at(r, 6).and_then(|i| objects.get_mut(usize::from(i))) {
                    *slot = None;
                }
            }
            // META_TEXTOUT: length, string (padded to words), y, x.
            0x0521 => {
                if let Some(run) = wmf_textout(r, font) {
                    budget += run.text.len();
                    runs.push(run);
                }
            }
            // META_EXTTEXTOUT: y, x, length, options, [rectangle], string, [dx].
            0x0A32 => {
                if let Some(run) = wmf_exttextout(r, font) {
                    budget += run.text.len();
                    runs.push(run);
                }
            }
            _ => {}
        }
        if budget > MAX_TEXT {
            break;
        }
        pos += size;
    }
    Some(runs)
}

fn wmf_textout(r: &[u8], font: Font) -> Option<Run> {
    let n = usize::from(u16_at(r, 6)?);
    let end = 8 + n + (n & 1);
    let (y, x) = (i16_at(r, end)?, i16_at(r, end + 2)?);
    if font.symbol || n == 0 {
        return None;
    }
    Some(Run::at(
        x,
        y,
        decode_8bit(r.get(8..8 + n)?, font),
        None,
        font,
    ))
}

fn wmf_exttextout(r: &[u8], font: Font) -> Option<Run> {
    let (y, x) = (i16_at(r, 6)?, i16_at(r, 8)?);
    let n = usize::from(u16_at(r, 10)?);
    let options = u16_at(r, 12)?;
    // ETO_OPAQUE or ETO_CLIPPED: a rectangle comes first.
    let start = if options & 0x6 != 0 { 22 } else { 14 };
    if font.symbol || n == 0 || options & 0x10 != 0 {
        return None;
    }
    let text = decode_8bit(r.get(start..start + n)?, font);
    let dx = start + n + (n & 1);
    let advance = (0..n)
        .map(|i| i16_at(r, dx + 2 * i).map(i64::from))
        .sum::<Option<i64>>();
    Some(Run::at(x, y, text, advance, font))
}

/// The runs as lines: one line per baseline, runs on it joined by a space unless one ends
/// where the next begins.
fn join(runs: &[Run]) -> String {
    let mut out = String::new();
    let mut prev: Option<(&Run, Option<i64>)> = None;
    for run in runs {
        let text = run.text.replace('\0', "");
        let text = text.trim_end_matches(['\r', '\n']);
        if text.trim().is_empty() {
            continue;
        }
        if let Some((p, end)) = prev {
            let scale = run.height.max(p.height).max(1);
            if (run.y - p.y).abs() * 2 > scale {
                out.push('\n');
            } else {
                // Without widths, a glyph is taken to be about half the font's height wide.
                let end = end.unwrap_or_else(|| p.x + p.height * p.text.chars().count() as i64 / 2);
                // A run that does not move right of the last one's start is never glued to it.
                let touches = run.x > p.x && (run.x - end) * 5 <= scale;
                if !touches && !out.ends_with(' ') && !text.starts_with(' ') {
                    out.push(' ');
                }
            }
        }
        out.push_str(text);
        prev = Some((run, run.advance.map(|a| run.x + a)));
    }
    // Lines of spaces and trailing blanks carry nothing.
    out.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn utf16(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16_lossy(&units)
}

/// A NUL-terminated UTF-16 string.
fn utf16_z(bytes: &[u8]) -> String {
    let s = utf16(bytes);
    s.split('\0').next().unwrap_or("").to_owned()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An EMF of the given records after a header record.
    pub(crate) fn emf(records: &[Vec<u8>]) -> Vec<u8> {
        let mut header = vec![0u8; 88];
        header[0..4].copy_from_slice(&1u32.to_le_bytes());
        header[4..8].copy_from_slice(&88u32.to_le_bytes());
        header[40..44].copy_from_slice(b" EMF");
        let mut out = header;
        for r in records {
            out.extend_from_slice(r);
        }
        out.extend_from_slice(&record(14, &[0u8; 12]));
        out
    }

    fn record(kind: u32, body: &[u8]) -> Vec<u8> {
        let mut r = kind.to_le_bytes().to_vec();
        r.extend_from_slice(&((body.len() + 8) as u32).to_le_bytes());
        r.extend_from_slice(body);
        r
    }

    pub(crate) fn font(handle: u32, height: i32, charset: u8, face: &str) -> Vec<u8> {
        let mut b = vec![0u8; 4 + 92];
        b[0..4].copy_from_slice(&handle.to_le_bytes());
        b[4..8].copy_from_slice(&height.to_le_bytes());
        b[4 + 23] = charset;
        for (i, u) in face.encode_utf16().enumerate() {
            b[32 + 2 * i..34 + 2 * i].copy_from_slice(&u.to_le_bytes());
        }
        record(82, &b)
    }

    pub(crate) fn select(handle: u32) -> Vec<u8> {
        record(37, &handle.to_le_bytes())
    }

    /// EMR_EXTTEXTOUTW at (x, y); `width` per character when given.
    pub(crate) fn text_w(x: i32, y: i32, s: &str, width: Option<i32>) -> Vec<u8> {
        let units: Vec<u16> = s.encode_utf16().collect();
        let mut b = vec![0u8; 68];
        b[28..32].copy_from_slice(&x.to_le_bytes());
        b[32..36].copy_from_slice(&y.to_le_bytes());
        b[36..40].copy_from_slice(&(units.len() as u32).to_le_bytes());
        b[40..44].copy_from_slice(&76u32.to_le_bytes());
        for u in &units {
            b.extend_from_slice(&u.to_le_bytes());
        }
        if units.len() % 2 == 1 {
            b.extend_from_slice(&[0, 0]);
        }
        if let Some(w) = width {
            let at = b.len() + 8;
            b[64..68].copy_from_slice(&(at as u32).to_le_bytes());
            for _ in &units {
                b.extend_from_slice(&w.to_le_bytes());
            }
        }
        record(84, &b)
    }

    #[test]
    fn emf_text_is_read_in_lines() {
        let data = emf(&[
            font(1, -20, 0, "Arial"),
            select(1),
            text_w(100, 100, "Sales", Some(10)),
            text_w(160, 100, "by", Some(10)),
            text_w(200, 100, "region", Some(10)),
            // A word drawn a glyph at a time, each ending where the next starts.
            text_w(100, 140, "Q", Some(10)),
            text_w(110, 140, "1", Some(10)),
            text_w(140, 140, "2024", Some(10)),
        ]);
        assert!(is_emf(&data));
        assert_eq!(text(&data).as_deref(), Some("Sales by region\nQ1 2024"));
    }

    /// An EXTTEXTOUTW whose reference point is the origin and whose bounds place it.
    fn text_at_bounds(bounds: [i32; 4], s: &str) -> Vec<u8> {
        let mut r = text_w(0, 0, s, None);
        for (i, v) in bounds.iter().enumerate() {
            r[8 + 4 * i..12 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        r
    }

    #[test]
    fn runs_placed_by_their_bounds_are_read_by_their_bounds() {
        // A chart's axis labels: each reference point at the origin, the bounds apart.
        let data = emf(&[
            font(1, -20, 0, "Arial"),
            select(1),
            text_at_bounds([130, 100, 146, 117], "20"),
            text_at_bounds([139, 200, 146, 217], "0"),
            text_at_bounds([178, 220, 192, 237], "Q1"),
            text_at_bounds([228, 220, 242, 237], "Q2"),
            text_at_bounds([243, 220, 290, 237], "total"),
        ]);
        assert_eq!(text(&data).as_deref(), Some("20\n0\nQ1 Q2total"));
        // Without bounds and at one spot, runs are still apart.
        let data = emf(&[text_w(0, 0, "Sum", None), text_w(0, 0, "of B", None)]);
        assert_eq!(text(&data).as_deref(), Some("Sum of B"));
    }

    #[test]
    fn symbol_fonts_glyph_indices_and_mathtype_are_left_out() {
        let data = emf(&[
            font(1, -20, 0, "Arial"),
            font(2, -20, 2, "Wingdings"),
            select(2),
            text_w(0, 0, "\u{F0A7}", None),
            select(1),
            text_w(0, 40, "Kept", None),
        ]);
        assert_eq!(text(&data).as_deref(), Some("Kept"));
        let mut glyphs = text_w(0, 0, "abc", None);
        glyphs[8 + 44] = 0x10;
        assert_eq!(text(&emf(&[glyphs])), None);
        let signed = emf(&[record(70, b"\x08\0\0\0MathType"), text_w(0, 0, "x", None)]);
        assert_eq!(text(&signed), None);
    }

    /// A WMF: placeable header, then the standard header and the records.
    fn wmf(records: &[Vec<u8>]) -> Vec<u8> {
        let mut out = vec![0xD7, 0xCD, 0xC6, 0x9A];
        out.resize(22, 0);
        out.extend_from_slice(&[1, 0, 9, 0, 0, 3]);
        out.resize(22 + 18, 0);
        for r in records {
            out.extend_from_slice(r);
        }
        out.extend_from_slice(&wmf_record(0, &[]));
        out
    }

    fn wmf_record(function: u16, body: &[u8]) -> Vec<u8> {
        let mut body = body.to_vec();
        if body.len() % 2 == 1 {
            body.push(0);
        }
        let mut r = (((body.len() + 6) / 2) as u32).to_le_bytes().to_vec();
        r.extend_from_slice(&function.to_le_bytes());
        r.extend_from_slice(&body);
        r
    }

    fn wmf_font(height: i16, charset: u8, face: &str) -> Vec<u8> {
        let mut b = vec![0u8; 18 + 32];
        b[0..2].copy_from_slice(&height.to_le_bytes());
        b[13] = charset;
        b[18..18 + face.len()].copy_from_slice(face.as_bytes());
        wmf_record(0x02FB, &b)
    }

    fn wmf_text(x: i16, y: i16, s: &[u8]) -> Vec<u8> {
        let mut b = (s.len() as u16).to_le_bytes().to_vec();
        b.extend_from_slice(s);
        if s.len() % 2 == 1 {
            b.push(0);
        }
        b.extend_from_slice(&y.to_le_bytes());
        b.extend_from_slice(&x.to_le_bytes());
        wmf_record(0x0521, &b)
    }

    #[test]
    fn wmf_text_follows_the_selected_font_and_its_code_page() {
        let data = wmf(&[
            // Slot 0: a pen; slot 1: a Cyrillic font; slot 2: Symbol.
            wmf_record(0x02FA, &[0; 10]),
            wmf_font(-20, 204, "Arial"),
            wmf_font(-20, 2, "Symbol"),
            wmf_record(0x012D, &1u16.to_le_bytes()),
            wmf_text(0, 0, b"\xcf\xf0\xe8\xe2\xe5\xf2"),
            wmf_record(0x012D, &2u16.to_le_bytes()),
            wmf_text(0, 40, b"\xb4"),
            // The pen is deleted; a new font takes its slot 0.
            wmf_record(0x01F0, &0u16.to_le_bytes()),
            wmf_font(-20, 0, "Times New Roman"),
            wmf_record(0x012D, &0u16.to_le_bytes()),
            wmf_text(0, 80, b"caf\xe9"),
        ]);
        assert!(is_wmf(&data));
        assert_eq!(text(&data).as_deref(), Some("Привет\ncafé"));
    }

    #[test]
    fn damaged_metafiles_never_panic() {
        let good = emf(&[
            font(1, -20, 0, "Arial"),
            select(1),
            text_w(0, 0, "Hello", None),
        ]);
        let good_wmf = wmf(&[wmf_font(-20, 0, "Arial"), wmf_text(0, 0, b"Hello")]);
        for data in [&good, &good_wmf] {
            for cut in 0..data.len() {
                let _ = text(&data[..cut]);
            }
            let mut state = 0x2545_f491_u32;
            for _ in 0..2000 {
                let mut d = data.to_vec();
                for _ in 0..4 {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    let i = state as usize % d.len();
                    d[i] = (state >> 8) as u8;
                }
                let _ = text(&d);
            }
        }
        assert_eq!(text(&good).as_deref(), Some("Hello"));
        assert_eq!(text(&good_wmf).as_deref(), Some("Hello"));
        assert_eq!(text(b"not a metafile"), None);
    }
}
