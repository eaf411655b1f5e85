//! Number formats of XLS (BIFF5/BIFF8) cells, which calamine reads but does not expose.
//!
//! A light scan of the `Workbook` stream: FORMAT and XF records from the globals, then each
//! sheet's numeric cell records (NUMBER, RK, MULRK, FORMULA) for the cell's XF index. Values
//! still come from calamine; this only says how to show them. Any inconsistency ends the scan
//! quietly (cells then fall back to plain rendering).

use quire_ooxml::numfmt::{self, NumFmt};
use quire_plugin_api::Limits;
use std::collections::HashMap;
use std::io::{Cursor, Read};

#[derive(Debug, Default)]
pub struct Styles {
    pub formats: Vec<NumFmt>,
    /// Per sheet in BOUNDSHEET order: (row, col) → index into `formats`.
    pub sheets: Vec<HashMap<(u32, u32), usize>>,
}

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?]))
}

fn u32_at(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(i)?,
        *b.get(i + 1)?,
        *b.get(i + 2)?,
        *b.get(i + 3)?,
    ]))
}

/// Iterates BIFF records from `pos`: (type, data).
fn records(stream: &[u8], mut pos: usize) -> impl Iterator<Item = (u16, &[u8])> {
    std::iter::from_fn(move || {
        let typ = u16_at(stream, pos)?;
        let len = usize::from(u16_at(stream, pos + 2)?);
        let data = stream.get(pos + 4..pos + 4 + len)?;
        pos += 4 + len;
        Some((typ, data))
    })
}

fn read_string(data: &[u8], biff8: bool) -> Option<String> {
    if biff8 {
        let cch = usize::from(u16_at(data, 0)?);
        let flags = *data.get(2)?;
        let body = data.get(3..)?;
        if flags & 1 == 1 {
            let units: Vec<u16> = body
                .chunks_exact(2)
                .take(cch)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            Some(String::from_utf16_lossy(&units))
        } else {
            Some(body.iter().take(cch).map(|&b| char::from(b)).collect())
        }
    } else {
        let cch = usize::from(*data.first()?);
        Some(
            data.get(1..)?
                .iter()
                .take(cch)
                .map(|&b| char::from(b))
                .collect(),
        )
    }
}

pub fn scan(bytes: &[u8], limits: &Limits) -> Option<Styles> {
    let mut cfb = cfb::CompoundFile::open(Cursor::new(bytes)).ok()?;
    let name = if cfb.exists("/Workbook") {
        "/Workbook"
    } else {
        "/Book"
    };
    let mut stream = Vec::new();
    let len = cfb.entry(name).ok()?.len();
    if len > limits.max_inflated_bytes {
        return None;
    }
    cfb.open_stream(name).ok()?.read_to_end(&mut stream).ok()?;

    let mut biff8 = true;
    let mut custom: HashMap<u16, String> = HashMap::new();
    let mut xfs: Vec<u16> = Vec::new();
    let mut sheet_offsets: Vec<usize> = Vec::new();
    for (typ, data) in records(&stream, 0) {
        match typ {
            0x0809 => biff8 = u16_at(data, 0)? == 0x0600,
            0x041E => {
                let id = u16_at(data, 0)?;
                if let Some(code) = read_string(data.get(2..)?, biff8) {
                    custom.insert(id, code);
                }
            }
            0x00E0 => xfs.push(u16_at(data, 2)?),
            0x0085 => sheet_offsets.push(u32_at(data, 0)? as usize),
            0x000A => break,
            _ => {}
        }
    }

    let mut styles = Styles::default();
    let mut by_id: HashMap<u16, usize> = HashMap::new();
    let xf_formats: Vec<Option<usize>> = xfs
        .iter()
        .map(|&id| {
            if id == 0 || id == 49 {
                return None;
            }
            if let Some(&i) = by_id.get(&id) {
                return Some(i);
            }
            let code = custom
                .get(&id)
                .map(String::as_str)
                .or_else(|| numfmt::builtin(u32::from(id)))?;
            let parsed = NumFmt::parse(code);
            if parsed.is_general() {
                return None;
            }
            styles.formats.push(parsed);
            by_id.insert(id, styles.formats.len() - 1);
            Some(styles.formats.len() - 1)
        })
        .collect();

    for offset in sheet_offsets {
        let mut cells = HashMap::new();
        let mut put = |row: u16, col: u16, xf: u16| {
            if let Some(Some(f)) = xf_formats.get(usize::from(xf)) {
                cells.insert((u32::from(row), u32::from(col)), *f);
            }
        };
        let mut first = true;
        for (typ, data) in records(&stream, offset) {
            if first {
                first = false;
                if typ != 0x0809 && typ != 0x0009 && typ != 0x0209 && typ != 0x0409 {
                    break;
                }
                continue;
            }
            match typ {
                0x0203 | 0x027E => {
                    if let (Some(r), Some(c), Some(x)) =
                        (u16_at(data, 0), u16_at(data, 2), u16_at(data, 4))
                    {
                        put(r, c, x);
                    }
                }
                // a formula with a numeric cached result (bytes 12..14 != 0xFFFF)
                0x0006 if u16_at(data, 12) != Some(0xFFFF) => {
                    if let (Some(r), Some(c), Some(x)) =
                        (u16_at(data, 0), u16_at(data, 2), u16_at(data, 4))
                    {
                        put(r, c, x);
                    }
                }
                0x00BD => {
                    if let (Some(r), Some(c)) = (u16_at(data, 0), u16_at(data, 2)) {
                        let n = data.len().saturating_sub(6) / 6;
                        for k in 0..n {
                            if let Some(x) = u16_at(data, 4 + k * 6) {
                                put(r, c.saturating_add(k as u16), x);
                            }
                        }
                    }
                }
                0x000A => break,
                _ => {}
            }
        }
        styles.sheets.push(cells);
    }
    Some(styles)
}
