//! XLSB workbooks: what calamine does not read, and workbooks it cannot open as they are.
//!
//! calamine reads an XLSB sheet's values but not its cells' number formats (only whether one
//! is a date), merged ranges or drawings. [`prepass`] reads them from the binary records:
//! format codes and cell styles from `xl/styles.bin`, each numeric cell's style and the merged
//! ranges from the sheet's record stream, so cells show as Excel shows them, as in XLSX.
//!
//! Beta versions of Excel 2007 wrote each sheet's `BrtBundleSh` record in `xl/workbook.bin`
//! with eight bytes before the sheet's tab id instead of the four of `hsState` (Apache POI
//! reads them the same way, its `tryOldFormat`). calamine then takes the tab id for the length
//! of the relationship id and cannot find the sheet. Such records are rewritten to the
//! documented layout and the package rebuilt in memory, so calamine reads the workbook.
//!
//! The drawings of an XLSB sheet are XML parts as in XLSX (only cells and workbook records are
//! binary): [`prepass`] finds each sheet's part from its `BrtBundleSh` record and reads its
//! charts and drawn text as the XLSX pre-pass does.

use crate::merges::Merge;
use crate::span::Span;
use crate::xls::{u16_at, u32_at};
use calamine::CellErrorType;
use quire_ooxml::chart::Chart;
use quire_ooxml::numfmt::NumFmt;
use quire_ooxml::{relationships, SafeZip};
use quire_plugin_api::{Block, Limits, Result};
use std::collections::HashMap;

const WORKBOOK: &str = "xl/workbook.bin";
const BRT_BUNDLE_SH: u32 = 0x9C;

/// The package rewritten where calamine would misread its `xl/workbook.bin`, or `None` when
/// calamine reads it as it is: beta-layout sheet records get the documented layout, and the
/// records of Excel 4 macro sheets, which make calamine refuse the whole workbook and hold
/// macro code, not values, are left out ([`fix_sheet_records`]).
pub fn for_calamine(bytes: &[u8], limits: &Limits) -> Result<Option<Vec<u8>>> {
    let mut zip = SafeZip::open(bytes, limits, "Excel workbook")?;
    let Some(workbook) = zip.read(WORKBOOK)? else {
        return Ok(None);
    };
    let rels = relationships(&mut zip, WORKBOOK).unwrap_or_default();
    let macro_sheet = |id: &str| {
        rels.get(id).is_some_and(|r| {
            r.target.contains("/macrosheets/") || r.kind.to_ascii_lowercase().contains("macrosheet")
        })
    };
    match fix_sheet_records(&workbook, macro_sheet) {
        Some(stream) => crate::xlsx::rebuilt_with(&mut zip, WORKBOOK, &stream).map(Some),
        None => Ok(None),
    }
}

/// What the pre-pass learnt about one sheet.
#[derive(Debug, Default)]
pub struct Sheet {
    /// The charts drawn on the sheet, with their cached data.
    pub charts: Vec<Chart>,
    /// Text drawn on the sheet: text boxes and shapes as paragraphs, SmartArt as lists.
    pub shapes: Vec<Block>,
    /// (row, column) → index into [`Prepass::formats`], for numeric cells whose style's
    /// number format is not General.
    pub cells: HashMap<(u32, u32), usize>,
    /// Merged ranges, sorted by top row.
    pub merges: Vec<Merge>,
    /// Formulas whose cached result is an error (`BrtFmlaError`), which calamine skips.
    pub errors: Vec<((u32, u32), CellErrorType)>,
    /// The rectangle the cells holding a value span: calamine allocates all of it, so it
    /// is checked against the cell limit before calamine reads the sheet.
    pub span: Span,
}

/// What the pre-pass learnt about the workbook: its number formats and, by sheet name, each
/// sheet's styled cells, merges and drawings.
#[derive(Debug, Default)]
pub struct Prepass {
    pub formats: Vec<NumFmt>,
    pub sheets: HashMap<String, Sheet>,
}

/// Reads what calamine does not give for an XLSB workbook: the number format of every styled
/// numeric cell (calamine tells dates apart but shows `1599.5` for `$1,599.50`), merged ranges
/// and drawings. A sheet whose parts are missing or damaged has none of them; records past
/// `max_sheet_cells` styled cells are not read.
pub fn prepass(bytes: &[u8], limits: &Limits) -> Result<Prepass> {
    let mut zip = SafeZip::open(bytes, limits, "Excel workbook")?;
    let mut out = Prepass::default();
    let Some(workbook) = zip.read(WORKBOOK)? else {
        return Ok(out);
    };
    let rels = relationships(&mut zip, WORKBOOK)?;
    let styles = rels
        .values()
        .find(|r| r.kind == "styles" && !r.external)
        .map(|r| r.target.clone())
        .unwrap_or_else(|| "xl/styles.bin".into());
    let xf_format: Vec<Option<usize>> = match zip.read(&styles).ok().flatten() {
        Some(bin) => read_styles(&bin, &mut out.formats),
        None => Vec::new(),
    };
    for (rel_id, name) in sheet_records(&workbook) {
        let Some(rel) = rels.get(&rel_id) else {
            continue;
        };
        let target = rel.target.clone();
        let mut sheet = Sheet::default();
        if let Some(bin) = zip.read(&target).ok().flatten() {
            let max = usize::try_from(limits.max_sheet_cells).unwrap_or(usize::MAX);
            read_sheet(&bin, &xf_format, max, &mut sheet);
        }
        let sheet_rels = relationships(&mut zip, &target).unwrap_or_default();
        (sheet.charts, sheet.shapes) = crate::xlsx::sheet_drawings(&mut zip, &sheet_rels);
        out.sheets.insert(name, sheet);
    }
    Ok(out)
}

const BRT_FMT: u32 = 44;
const BRT_XF: u32 = 47;
const BRT_BEGIN_CELL_XFS: u32 = 617;
const BRT_END_CELL_XFS: u32 = 618;
const BRT_ROW_HDR: u32 = 0;
const BRT_CELL_RK: u32 = 2;
const BRT_CELL_REAL: u32 = 5;
const BRT_FMLA_NUM: u32 = 9;
const BRT_FMLA_ERROR: u32 = 11;
const BRT_MERGE_CELL: u32 = 176;

/// The records of a record stream, as (type, data), up to the first that does not parse.
fn records(stream: &[u8]) -> impl Iterator<Item = (u32, &[u8])> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let (kind, kind_len) = read_kind(stream.get(pos..)?)?;
        let (len, len_len) = read_len(stream.get(pos + kind_len..)?)?;
        let start = pos + kind_len + len_len;
        let data = stream.get(start..start.checked_add(len)?)?;
        pos = start + len;
        Some((kind, data))
    })
}

/// `xl/styles.bin`: the workbook's format codes (`BrtFmt`: id, then the code as a wide
/// string) and the cell styles (`BrtXF` between `BrtBeginCellXFs` and its end: parent, then
/// the format id); per cell style, an index into `formats` as [`crate::xlsx::xf_formats`]
/// gives it.
fn read_styles(bin: &[u8], formats: &mut Vec<NumFmt>) -> Vec<Option<usize>> {
    let mut custom: HashMap<u32, String> = HashMap::new();
    let mut xfs: Vec<u32> = Vec::new();
    let mut in_cell_xfs = false;
    for (kind, data) in records(bin) {
        match kind {
            BRT_FMT => {
                let (Some(id), Some(n)) = (u16_at(data, 0), u32_at(data, 2)) else {
                    continue;
                };
                let Some(units) = data.get(6..6 + (n as usize).saturating_mul(2)) else {
                    continue;
                };
                let units: Vec<u16> = units
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
                custom.insert(u32::from(id), String::from_utf16_lossy(&units));
            }
            BRT_BEGIN_CELL_XFS => in_cell_xfs = true,
            BRT_END_CELL_XFS => in_cell_xfs = false,
            BRT_XF if in_cell_xfs => xfs.push(u16_at(data, 2).map_or(0, u32::from)),
            _ => {}
        }
    }
    crate::xlsx::xf_formats(&custom, xfs, formats)
}

/// A sheet's record stream: each numeric cell's style (`BrtCell`: column, then the style
/// index in the low 24 bits) under the row of the last `BrtRowHdr`, formulas' error results
/// (the error code after `BrtCell`) and `BrtMergeCell` ranges.
fn read_sheet(bin: &[u8], xf_format: &[Option<usize>], max_cells: usize, sheet: &mut Sheet) {
    let mut row = 0u32;
    for (kind, data) in records(bin) {
        // every value record (BrtCellRk to BrtFmlaError) widens the area calamine will hold
        if (BRT_CELL_RK..=BRT_FMLA_ERROR).contains(&kind) {
            if let Some(col) = u32_at(data, 0) {
                sheet.span.add(row, col);
            }
        }
        match kind {
            BRT_ROW_HDR => row = u32_at(data, 0).unwrap_or(row),
            BRT_CELL_RK | BRT_CELL_REAL | BRT_FMLA_NUM => {
                let (Some(col), Some(style)) = (u32_at(data, 0), u32_at(data, 4)) else {
                    continue;
                };
                let xf = (style & 0x00FF_FFFF) as usize;
                if let Some(&Some(f)) = xf_format.get(xf) {
                    if sheet.cells.len() < max_cells {
                        sheet.cells.insert((row, col), f);
                    }
                }
            }
            BRT_FMLA_ERROR => {
                let (Some(col), Some(&code)) = (u32_at(data, 0), data.get(8)) else {
                    continue;
                };
                let error = match code {
                    0x00 => CellErrorType::Null,
                    0x07 => CellErrorType::Div0,
                    0x0F => CellErrorType::Value,
                    0x17 => CellErrorType::Ref,
                    0x1D => CellErrorType::Name,
                    0x24 => CellErrorType::Num,
                    0x2A => CellErrorType::NA,
                    0x2B => CellErrorType::GettingData,
                    _ => continue,
                };
                if sheet.errors.len() < max_cells {
                    sheet.errors.push(((row, col), error));
                }
            }
            BRT_MERGE_CELL => {
                let r = |at| u32_at(data, at);
                if let (Some(top), Some(bottom), Some(left), Some(right)) =
                    (r(0), r(4), r(8), r(12))
                {
                    if let Some(m) = Merge::new((top, left), (bottom, right)) {
                        sheet.merges.push(m);
                    }
                }
            }
            _ => {}
        }
    }
    sheet.merges.sort_by_key(|m| m.top);
}

/// (relationship id, sheet name) of each `BrtBundleSh` of a workbook record stream, in
/// either layout.
/// The relationship id and the name of a `BrtBundleSh` record's sheet, in either layout.
fn bundle_names(data: &[u8]) -> Option<(String, String)> {
    let wide = |at: usize| -> Option<(String, usize)> {
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
    let at = if documented(data) {
        8
    } else if beta(data) {
        12
    } else {
        return None;
    };
    let (rel, next) = wide(at)?;
    let (name, _) = wide(next)?;
    Some((rel, name))
}

fn sheet_records(stream: &[u8]) -> Vec<(String, String)> {
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
            out.extend(bundle_names(data));
        }
        pos = start + len;
    }
    out
}

/// A record stream with every beta-layout `BrtBundleSh` rewritten and those whose
/// relationship id `drop` names left out; `None` when there is none or the stream does not
/// parse.
fn fix_sheet_records(stream: &[u8], drop: impl Fn(&str) -> bool) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(stream.len());
    let mut changed = false;
    let mut pos = 0;
    while pos < stream.len() {
        let (kind, kind_len) = read_kind(&stream[pos..])?;
        let (len, len_len) = read_len(&stream[pos + kind_len..])?;
        let start = pos + kind_len + len_len;
        let data = stream.get(start..start + len)?;
        if kind == BRT_BUNDLE_SH && bundle_names(data).is_some_and(|(rel, _)| drop(&rel)) {
            changed = true;
        } else if kind == BRT_BUNDLE_SH && !documented(data) && beta(data) {
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
        let fixed = fix_sheet_records(&stream, |_| false).expect("rewritten");
        let mut expected = vec![0x83, 0x01, 0x00];
        expected.extend(record(0x1C, &documented_data));
        expected.extend([0x90, 0x01, 0x00]);
        assert_eq!(fixed, expected);
        // A documented workbook is left alone.
        assert_eq!(fix_sheet_records(&expected, |_| false), None);
        // A sheet `drop` names is left out, in either layout.
        for s in [&stream, &expected] {
            let dropped = fix_sheet_records(s, |id| id == "rId1").expect("rewritten");
            assert_eq!(dropped, [0x83, 0x01, 0x00, 0x90, 0x01, 0x00]);
        }
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
    /// A record of any type, the type written as MS-XLSB encodes it (seven bits a byte).
    fn rec(kind: u32, data: &[u8]) -> Vec<u8> {
        let mut out = if kind < 0x80 {
            vec![kind as u8]
        } else {
            vec![(kind & 0x7F) as u8 | 0x80, (kind >> 7) as u8]
        };
        write_len(&mut out, data.len());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn numeric_cells_take_their_styles_number_format_and_merges_are_read() {
        // styles.bin: a custom percent format (id 164), cell styles 0 (General), 1 (164) and
        // 2 (built-in 4, `#,##0.00`); a cell-style-XF list outside the cell XFs is ignored.
        let xf = |fmt: u16| [0u16.to_le_bytes(), fmt.to_le_bytes()].concat();
        let mut fmt = 164u16.to_le_bytes().to_vec();
        fmt.extend(wide("0.0%"));
        let styles = [
            rec(BRT_FMT, &fmt),
            rec(626, &[]),
            rec(BRT_XF, &xf(3)),
            rec(627, &[]),
            rec(BRT_BEGIN_CELL_XFS, &[]),
            rec(BRT_XF, &xf(0)),
            rec(BRT_XF, &xf(164)),
            rec(BRT_XF, &xf(4)),
            rec(BRT_END_CELL_XFS, &[]),
        ]
        .concat();
        let mut formats = Vec::new();
        let by_xf = read_styles(&styles, &mut formats);
        assert_eq!(by_xf.len(), 3);
        assert_eq!(by_xf[0], None);
        let cell = |col: u32, xf: u32, value: f64| {
            [
                col.to_le_bytes().to_vec(),
                xf.to_le_bytes().to_vec(),
                value.to_le_bytes().to_vec(),
            ]
            .concat()
        };
        let sheet_bin = [
            rec(BRT_ROW_HDR, &3u32.to_le_bytes()),
            rec(BRT_CELL_REAL, &cell(1, 1, 0.025)),
            rec(BRT_CELL_REAL, &cell(2, 0, 7.0)),
            rec(BRT_ROW_HDR, &4u32.to_le_bytes()),
            rec(BRT_CELL_REAL, &cell(0, 2 | 0x0100_0000, 1599.5)),
            rec(
                BRT_MERGE_CELL,
                &[5u32, 6, 0, 2].map(u32::to_le_bytes).concat(),
            ),
        ]
        .concat();
        let mut sheet = Sheet::default();
        read_sheet(&sheet_bin, &by_xf, 100, &mut sheet);
        let shown = |at| formats[sheet.cells[&at]].format(0.025, false);
        assert_eq!(shown((3, 1)), "2.5%");
        assert!(
            !sheet.cells.contains_key(&(3, 2)),
            "General cells are not listed"
        );
        assert_eq!(
            formats[sheet.cells[&(4, 0)]].format(1599.5, false),
            "1,599.50"
        );
        assert_eq!(sheet.merges, [Merge::new((5, 0), (6, 2)).unwrap()]);
        // a truncated record ends the stream without a panic
        read_sheet(
            &sheet_bin[..sheet_bin.len() - 3],
            &by_xf,
            100,
            &mut Sheet::default(),
        );
    }
}
