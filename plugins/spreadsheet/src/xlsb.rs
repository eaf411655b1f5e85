//! XLSB workbooks calamine cannot open as they are.
//!
//! Beta versions of Excel 2007 wrote each sheet's `BrtBundleSh` record in `xl/workbook.bin`
//! with eight bytes before the sheet's tab id instead of the four of `hsState` (Apache POI
//! reads them the same way, its `tryOldFormat`). calamine then takes the tab id for the length
//! of the relationship id and cannot find the sheet. Such records are rewritten to the
//! documented layout and the package rebuilt in memory, so calamine reads the workbook.
//!
//! The drawings of an XLSB sheet are XML parts as in XLSX (only cells and workbook records are
//! binary): [`drawings`] finds each sheet's part from its `BrtBundleSh` record and reads its
//! charts and drawn text as the XLSX pre-pass does.

use quire_ooxml::chart::Chart;
use quire_ooxml::{relationships, SafeZip};
use quire_plugin_api::{Block, Limits, Result};
use std::collections::HashMap;

const WORKBOOK: &str = "xl/workbook.bin";
const BRT_BUNDLE_SH: u32 = 0x9C;

/// The package with its beta-layout sheet records rewritten, or `None` when it has none.
pub fn with_documented_sheet_records(bytes: &[u8], limits: &Limits) -> Result<Option<Vec<u8>>> {
    let mut zip = SafeZip::open(bytes, limits, "Excel workbook")?;
    let Some(workbook) = zip.read(WORKBOOK)? else {
        return Ok(None);
    };
    let Some(fixed) = fix_sheet_records(&workbook) else {
        return Ok(None);
    };
    crate::xlsx::rebuilt_with(&mut zip, WORKBOOK, &fixed).map(Some)
}

/// A sheet's charts and drawn text (text boxes, SmartArt).
pub type Drawn = (Vec<Chart>, Vec<Block>);

/// The [`Drawn`] content of each sheet, by sheet name. A sheet whose parts are missing or
/// damaged has none.
pub fn drawings(bytes: &[u8], limits: &Limits) -> Result<HashMap<String, Drawn>> {
    let mut zip = SafeZip::open(bytes, limits, "Excel workbook")?;
    let mut out = HashMap::new();
    let Some(workbook) = zip.read(WORKBOOK)? else {
        return Ok(out);
    };
    let rels = relationships(&mut zip, WORKBOOK)?;
    for (rel_id, name) in sheet_records(&workbook) {
        let Some(rel) = rels.get(&rel_id) else {
            continue;
        };
        let target = rel.target.clone();
        let sheet_rels = relationships(&mut zip, &target).unwrap_or_default();
        let drawn = crate::xlsx::sheet_drawings(&mut zip, &sheet_rels);
        if !drawn.0.is_empty() || !drawn.1.is_empty() {
            out.insert(name, drawn);
        }
    }
    Ok(out)
}

/// (relationship id, sheet name) of each `BrtBundleSh` of a workbook record stream, in
/// either layout.
fn sheet_records(stream: &[u8]) -> Vec<(String, String)> {
    let wide = |data: &[u8], at: usize| -> Option<(String, usize)> {
        let n = u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?);
        if n == 0xFFFF_FFFF {
            return Some((String::new(), at + 4));
        }
        let end = at + 4 + (n as usize).checked_mul(2)?;
        let units: Vec<u16> = data
            .get(at + 4..end)?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        Some((String::from_utf16_lossy(&units), end))
    };
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < stream.len() {
        let Some((kind, kind_len)) = read_kind(&stream[pos..]) else {
            break;
        };
        let Some((len, len_len)) = stream.get(pos + kind_len..).and_then(read_len) else {
            break;
        };
        let start = pos + kind_len + len_len;
        let Some(data) = stream.get(start..start + len) else {
            break;
        };
        if kind == BRT_BUNDLE_SH {
            let at = if documented(data) {
                Some(8)
            } else {
                beta(data).then_some(12)
            };
            if let Some((rel, next)) = at.and_then(|at| wide(data, at)) {
                if let Some((name, _)) = wide(data, next) {
                    out.push((rel, name));
                }
            }
        }
        pos = start + len;
    }
    out
}

/// A record stream with every beta-layout `BrtBundleSh` rewritten; `None` when there is none
/// or the stream does not parse.
fn fix_sheet_records(stream: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(stream.len());
    let mut changed = false;
    let mut pos = 0;
    while pos < stream.len() {
        let (kind, kind_len) = read_kind(&stream[pos..])?;
        let (len, len_len) = read_len(&stream[pos + kind_len..])?;
        let start = pos + kind_len + len_len;
        let data = stream.get(start..start + len)?;
        if kind == BRT_BUNDLE_SH && !documented(data) && beta(data) {
            out.extend_from_slice(&stream[pos..pos + kind_len]);
            write_len(&mut out, len - 4);
            out.extend_from_slice(&data[..4]);
            out.extend_from_slice(&data[8..]);
            changed = true;
        } else {
            out.extend_from_slice(&stream[pos..start + len]);
        }
        pos = start + len;
    }
    changed.then_some(out)
}

/// A record type: one byte, or two when the first has its high bit set.
fn read_kind(b: &[u8]) -> Option<(u32, usize)> {
    let first = u32::from(*b.first()?);
    if first & 0x80 == 0 {
        return Some((first, 1));
    }
    let second = u32::from(*b.get(1)?);
    Some(((first & 0x7F) | (second << 7), 2))
}

/// A record length: up to four bytes of seven bits each, low bits first.
fn read_len(b: &[u8]) -> Option<(usize, usize)> {
    let mut len = 0usize;
    for (i, &byte) in b.iter().take(4).enumerate() {
        len |= usize::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((len, i + 1));
        }
    }
    None
}

fn write_len(out: &mut Vec<u8>, mut len: usize) {
    loop {
        let byte = (len & 0x7F) as u8;
        len >>= 7;
        if len == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Whether the two wide strings (relationship id, nullable; sheet name) starting at `at` end
/// exactly at the record's end.
fn strings_fit(data: &[u8], at: usize) -> bool {
    let u32_at = |i: usize| {
        data.get(i..i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let Some(rel) = u32_at(at) else {
        return false;
    };
    let rel = if rel == 0xFFFF_FFFF { 0 } else { rel };
    let Some(name_at) = rel.checked_mul(2).map(|n| at + 4 + n) else {
        return false;
    };
    u32_at(name_at)
        .and_then(|name| name.checked_mul(2))
        .is_some_and(|n| name_at + 4 + n == data.len())
}

/// hsState, iTabID, strRelID, strName (MS-XLSB 2.4.304).
fn documented(data: &[u8]) -> bool {
    strings_fit(data, 8)
}

/// Eight bytes, iTabID, strRelID, strName.
fn beta(data: &[u8]) -> bool {
    strings_fit(data, 12)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(s: &str) -> Vec<u8> {
        let mut out = (s.len() as u32).to_le_bytes().to_vec();
        for u in s.encode_utf16() {
            out.extend(u.to_le_bytes());
        }
        out
    }

    fn record(kind: u8, data: &[u8]) -> Vec<u8> {
        let mut out = vec![kind | 0x80, 0x01];
        write_len(&mut out, data.len());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn beta_sheet_records_are_rewritten_to_the_documented_layout() {
        let mut beta_data = vec![0u8; 8];
        beta_data.extend(1u32.to_le_bytes());
        beta_data.extend(wide("rId1"));
        beta_data.extend(wide("Sheet1"));
        let mut documented_data = vec![0u8; 4];
        documented_data.extend(1u32.to_le_bytes());
        documented_data.extend(wide("rId1"));
        documented_data.extend(wide("Sheet1"));
        // BrtBeginBook (0x83), the sheet, BrtEndBundleShs (0x90)
        let mut stream = vec![0x83, 0x01, 0x00];
        stream.extend(record(0x1C, &beta_data));
        stream.extend([0x90, 0x01, 0x00]);
        let fixed = fix_sheet_records(&stream).expect("rewritten");
        let mut expected = vec![0x83, 0x01, 0x00];
        expected.extend(record(0x1C, &documented_data));
        expected.extend([0x90, 0x01, 0x00]);
        assert_eq!(fixed, expected);
        // A documented workbook is left alone.
        assert_eq!(fix_sheet_records(&expected), None);
    }

    #[test]
    fn sheet_records_give_relationship_ids_and_names_in_both_layouts() {
        let sheet = |pad: usize, rel: &str, name: &str| {
            let mut d = vec![0u8; pad];
            d.extend(1u32.to_le_bytes());
            d.extend(wide(rel));
            d.extend(wide(name));
            record(0x1C, &d)
        };
        let mut stream = vec![0x83, 0x01, 0x00];
        stream.extend(sheet(4, "rId1", "Data"));
        stream.extend(sheet(8, "rId2", "Chart sheet"));
        stream.extend([0x90, 0x01, 0x00]);
        assert_eq!(
            sheet_records(&stream),
            [
                ("rId1".to_owned(), "Data".to_owned()),
                ("rId2".to_owned(), "Chart sheet".to_owned())
            ]
        );
    }
}
