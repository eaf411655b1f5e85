//! The Unicode character of each glyph of an embedded TrueType font, from its `cmap` table
//! (read backwards: the table maps characters to glyphs).
//!
//! A Type0 font with a TrueType program and neither a `ToUnicode` map nor a character
//! collection PDFium knows (ordering `Identity`) gives PDFium no text: it reports the codes
//! themselves, and for such a font the code is the glyph's CID. The font program usually still
//! says which character each glyph draws, as pdfminer reads it. Only the Unicode subtables
//! are read (formats 0, 4, 6 and 12); where several characters share a glyph, the lowest
//! one is taken (a space before a no-break space, a unified ideograph before its
//! compatibility twin).

use std::collections::HashMap;

/// Most glyph entries read from one font (a CJK font has some 30,000).
const MAX_ENTRIES: usize = 1 << 17;
/// Most code points looked at in one font (its subtables together): a damaged or hostile
/// table can claim billions.
const MAX_VISITS: u32 = 1 << 21;

fn u16_at(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(d.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

/// The `cmap` table of a TrueType or OpenType font program (the first font of a collection).
fn cmap_table(font: &[u8]) -> Option<&[u8]> {
    let mut base = 0usize;
    if font.get(0..4)? == b"ttcf" {
        base = u32_at(font, 12)? as usize;
    }
    let tables = usize::from(u16_at(font, base + 4)?);
    for i in 0..tables {
        let rec = base + 12 + 16 * i;
        if font.get(rec..rec + 4)? == b"cmap" {
            let off = u32_at(font, rec + 8)? as usize;
            let len = u32_at(font, rec + 12)? as usize;
            return font.get(off..off.checked_add(len)?.min(font.len()));
        }
    }
    None
}

/// Glyph id to character, from the font's Unicode `cmap` subtables; `None` when it has none.
pub fn unicode_by_glyph(font: &[u8]) -> Option<HashMap<u16, char>> {
    let cmap = cmap_table(font)?;
    let count = usize::from(u16_at(cmap, 2)?);
    let mut out: HashMap<u16, char> = HashMap::new();
    let mut any = false;
    let mut visits = 0u32;
    for i in 0..count.min(64) {
        let rec = 4 + 8 * i;
        let platform = u16_at(cmap, rec)?;
        let encoding = u16_at(cmap, rec + 2)?;
        let off = u32_at(cmap, rec + 4)? as usize;
        // Unicode (platform 0), Windows Unicode BMP (3, 1) and full repertoire (3, 10).
        if !(platform == 0 || (platform == 3 && (encoding == 1 || encoding == 10))) {
            continue;
        }
        let Some(sub) = cmap.get(off..) else { continue };
        let mut add = |cp: u32, gid: u32| -> bool {
            visits += 1;
            if visits > MAX_VISITS || out.len() >= MAX_ENTRIES {
                return false;
            }
            let (Ok(gid), Some(c)) = (u16::try_from(gid), char::from_u32(cp)) else {
                return true;
            };
            if gid == 0 {
                return true;
            }
            out.entry(gid)
                .and_modify(|e| {
                    if c < *e {
                        *e = c;
                    }
                })
                .or_insert(c);
            true
        };
        if read_subtable(sub, &mut add).is_some() {
            any = true;
        }
    }
    (any && !out.is_empty()).then_some(out)
}

/// Calls `add(code point, glyph)` for each mapping of one subtable, until it answers false;
/// `None` when its format is not read here or it is cut short.
fn read_subtable(sub: &[u8], add: &mut dyn FnMut(u32, u32) -> bool) -> Option<()> {
    match u16_at(sub, 0)? {
        0 => {
            for c in 0..256usize {
                if !add(c as u32, u32::from(*sub.get(6 + c)?)) {
                    break;
                }
            }
        }
        4 => {
            let len = usize::from(u16_at(sub, 2)?);
            let sub = sub.get(..len.max(14).min(sub.len()))?;
            let segs = usize::from(u16_at(sub, 6)? / 2);
            let ends = 14;
            let starts = ends + 2 * segs + 2;
            let deltas = starts + 2 * segs;
            let offsets = deltas + 2 * segs;
            for s in 0..segs {
                let end = u32::from(u16_at(sub, ends + 2 * s)?);
                let start = u32::from(u16_at(sub, starts + 2 * s)?);
                let delta = u32::from(u16_at(sub, deltas + 2 * s)?);
                let ro_at = offsets + 2 * s;
                let ro = usize::from(u16_at(sub, ro_at)?);
                if start > end || start == 0xFFFF {
                    continue;
                }
                for c in start..=end {
                    let gid = if ro == 0 {
                        (c + delta) & 0xFFFF
                    } else {
                        let at = ro_at + ro + 2 * (c - start) as usize;
                        match u16_at(sub, at) {
                            Some(0) | None => continue,
                            Some(g) => (u32::from(g) + delta) & 0xFFFF,
                        }
                    };
                    if !add(c, gid) {
                        return Some(());
                    }
                }
            }
        }
        6 => {
            let first = u32::from(u16_at(sub, 6)?);
            let n = usize::from(u16_at(sub, 8)?);
            for k in 0..n {
                if !add(first + k as u32, u32::from(u16_at(sub, 10 + 2 * k)?)) {
                    break;
                }
            }
        }
        12 => {
            let groups = u32_at(sub, 12)? as usize;
            for g in 0..groups.min(MAX_ENTRIES) {
                let at = 16 + 12 * g;
                let (start, end, gid) =
                    (u32_at(sub, at)?, u32_at(sub, at + 4)?, u32_at(sub, at + 8)?);
                if end < start || end > 0x10FFFF || end - start > 0xFFFF {
                    continue;
                }
                for c in start..=end {
                    if !add(c, gid.wrapping_add(c - start)) {
                        return Some(());
                    }
                }
            }
        }
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A font program of one table, `cmap`, with one (3, 1) format 4 subtable mapping
    /// `ranges` (first code, last code, first glyph).
    pub fn font_with_cmap(ranges: &[(u16, u16, u16)]) -> Vec<u8> {
        let segs = ranges.len() + 1;
        let mut sub: Vec<u8> = Vec::new();
        let push = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&x.to_be_bytes());
        push(&mut sub, 4);
        push(&mut sub, (16 + 8 * segs) as u16);
        push(&mut sub, 0);
        push(&mut sub, (2 * segs) as u16);
        for _ in 0..3 {
            push(&mut sub, 0);
        }
        for r in ranges {
            push(&mut sub, r.1);
        }
        push(&mut sub, 0xFFFF);
        push(&mut sub, 0);
        for r in ranges {
            push(&mut sub, r.0);
        }
        push(&mut sub, 0xFFFF);
        for r in ranges {
            push(&mut sub, r.2.wrapping_sub(r.0));
        }
        push(&mut sub, 1);
        for _ in 0..segs {
            push(&mut sub, 0);
        }
        let mut cmap = Vec::new();
        push(&mut cmap, 0);
        push(&mut cmap, 1);
        push(&mut cmap, 3);
        push(&mut cmap, 1);
        cmap.extend_from_slice(&12u32.to_be_bytes());
        cmap.extend_from_slice(&sub);
        let mut font = vec![0, 1, 0, 0];
        push(&mut font, 1);
        font.extend_from_slice(&[0; 6]);
        font.extend_from_slice(b"cmap");
        font.extend_from_slice(&0u32.to_be_bytes());
        font.extend_from_slice(&28u32.to_be_bytes());
        font.extend_from_slice(&(cmap.len() as u32).to_be_bytes());
        font.extend_from_slice(&cmap);
        font
    }

    #[test]
    fn a_format_4_cmap_read_backwards() {
        // "A".."C" at glyphs 5..7, and U+00A0 sharing the space's glyph 3.
        let font = font_with_cmap(&[(0x20, 0x20, 3), (0x41, 0x43, 5), (0xA0, 0xA0, 3)]);
        let m = unicode_by_glyph(&font).unwrap();
        assert_eq!(m[&5], 'A');
        assert_eq!(m[&7], 'C');
        assert_eq!(m[&3], ' ');
        assert_eq!(m.len(), 4);
    }

    #[test]
    fn a_table_claiming_every_code_many_times_is_cut_short() {
        // 2,000 segments each claiming the whole plane: stopped after MAX_VISITS.
        let ranges: Vec<(u16, u16, u16)> = (0..2000).map(|_| (1, 0xFFFE, 1)).collect();
        let font = font_with_cmap(&ranges);
        let t = std::time::Instant::now();
        let m = unicode_by_glyph(&font).unwrap();
        assert!(m.len() <= MAX_ENTRIES);
        assert!(t.elapsed().as_secs() < 10);
    }

    #[test]
    fn the_real_fonts_on_this_machine() {
        // Every glyph reached from a character goes back to a character that reaches it.
        let path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
        let Ok(font) = std::fs::read(path) else {
            return;
        };
        let m = unicode_by_glyph(&font).unwrap();
        assert!(m.len() > 3000, "{}", m.len());
        assert!(m.values().any(|&c| c == 'é'));
    }
}
