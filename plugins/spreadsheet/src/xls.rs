//! Number formats, cell comments and text boxes of XLS (BIFF5/BIFF8) sheets, which calamine
//! does not expose.
//!
//! A light scan of the `Workbook` stream: FORMAT and XF records from the globals, then each
//! sheet's numeric cell records (NUMBER, RK, MULRK, FORMULA) for the cell's XF index, and its
//! drawing objects ([`sheet_objects`]): the text of each object (TXO and its CONTINUE
//! records), a comment's cell and author (NOTE). Values still come from calamine; this only
//! says how to show them and what is drawn on the sheet. Any inconsistency ends the scan
//! quietly (cells then fall back to plain rendering).

use crate::comments::Comment;
use crate::span::Span;
use quire_ooxml::chart::{Chart, Series};
use quire_ooxml::numfmt::{self, NumFmt};
use quire_plugin_api::{Block, Limits};
use std::collections::HashMap;
use std::io::{Cursor, Read};

#[derive(Debug, Default)]
pub struct Styles {
    pub formats: Vec<NumFmt>,
    /// Per sheet in BOUNDSHEET order: (row, col) → index into `formats`.
    pub sheets: Vec<HashMap<(u32, u32), usize>>,
    /// Per sheet: cell comments in reading order of their cells.
    pub comments: Vec<Vec<Comment>>,
    /// Per sheet: the text of text boxes and other drawn objects, one paragraph each.
    pub shapes: Vec<Vec<Block>>,
    /// Per sheet: cells in the rectangle its value records span (calamine allocates all of
    /// it, so it is checked against the cell limit before calamine reads the sheet).
    pub areas: Vec<Option<u64>>,
}

/// Little-endian integers at a byte offset, `None` past the end (BIFF and XLSB records alike).
pub(crate) fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?]))
}

pub(crate) fn u32_at(b: &[u8], i: usize) -> Option<u32> {
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

fn is_bof(typ: u16) -> bool {
    matches!(typ, 0x0809 | 0x0009 | 0x0209 | 0x0409)
}

/// The records of the sheet substream at `offset`, after its BOF and up to its EOF, without
/// the substreams nested in it: an embedded chart is a BOF … EOF of its own inside its
/// sheet's, and holds its series' cached values as cell records and its labels as text
/// records, none of them the sheet's. Nothing when `offset` holds no BOF.
fn sheet_records(stream: &[u8], offset: usize) -> impl Iterator<Item = (u16, &[u8])> {
    let mut all = records(stream, offset);
    let mut started = false;
    let mut nested = 0usize;
    std::iter::from_fn(move || loop {
        let (typ, data) = all.next()?;
        if !started {
            started = true;
            if !is_bof(typ) {
                return None;
            }
            continue;
        }
        if is_bof(typ) {
            nested += 1;
        } else if typ == 0x000A {
            if nested == 0 {
                return None;
            }
            nested -= 1;
        } else if nested == 0 {
            return Some((typ, data));
        }
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

/// The workbook stream of an XLS compound file (`Workbook`, or BIFF5's `Book`), read once
/// for the scans below; `None` when it is missing or larger than the inflation limit.
pub struct WorkbookStream {
    name: &'static str,
    pub bytes: Vec<u8>,
}

pub fn workbook_stream(bytes: &[u8], limits: &Limits) -> Option<WorkbookStream> {
    let mut cfb = cfb::CompoundFile::open(Cursor::new(bytes)).ok()?;
    let name = if cfb.exists("/Workbook") {
        "/Workbook"
    } else {
        "/Book"
    };
    if cfb.entry(name).ok()?.len() > limits.max_inflated_bytes {
        return None;
    }
    let mut stream = Vec::new();
    cfb.open_stream(name).ok()?.read_to_end(&mut stream).ok()?;
    Some(WorkbookStream {
        name,
        bytes: stream,
    })
}

pub fn scan(stream: &[u8]) -> Option<Styles> {
    let mut biff8 = true;
    let mut custom: HashMap<u16, String> = HashMap::new();
    let mut xfs: Vec<u16> = Vec::new();
    let mut sheet_offsets: Vec<usize> = Vec::new();
    for (typ, data) in records(stream, 0) {
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
            // an encrypted workbook's records are ciphertext: calamine says it is encrypted
            0x002F => return None,
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
        let mut span = Span::default();
        for (typ, data) in sheet_records(stream, offset) {
            // value records (BIFF2-4 and BIFF5-8: numbers, labels, booleans and errors,
            // formulas, RK and MULRK, shared strings)
            if matches!(
                typ,
                0x0002..=0x0006 | 0x00BD | 0x00D6 | 0x00FD | 0x0203..=0x0206 | 0x027E
            ) {
                if let (Some(r), Some(c)) = (u16_at(data, 0), u16_at(data, 2)) {
                    let last = if typ == 0x00BD {
                        c.saturating_add((data.len().saturating_sub(6) / 6).saturating_sub(1) as u16)
                    } else {
                        c
                    };
                    let (r, c, last) = (u32::from(r), u32::from(c), u32::from(last));
                    span.cover(r, c, r, last);
                }
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
                _ => {}
            }
        }
        styles.sheets.push(cells);
        styles.areas.push(span.area());
        let (comments, mut shapes) = if biff8 {
            sheet_objects(stream, offset)
        } else {
            Default::default()
        };
        for chart in sheet_charts(stream, offset) {
            shapes.extend(chart.blocks());
        }
        styles.comments.push(comments);
        styles.shapes.push(shapes);
    }
    Some(styles)
}

/// A copy of the workbook without the chart substreams embedded in its sheets, or `None`
/// when it has none (or cannot be rewritten).
///
/// An embedded chart is a substream (BOF … EOF) inside its sheet's, and holds its series'
/// cached values as NUMBER, LABEL and BLANK records addressed by point and series. calamine
/// before 0.37 read them as the sheet's own cells, so a chart's values overwrote the top-left
/// of its sheet (Tika's testEXCEL_labels-govdocs: every country name read as 0); the copy is
/// still made, so the sheet's cells never depend on how calamine steps over them. It keeps
/// the globals and every sheet's own records, with each BOUNDSHEET pointing at its sheet's new
/// position, in a new compound file holding only the workbook stream. An encrypted workbook
/// (FILEPASS) is left alone.
pub fn without_chart_substreams(workbook: &WorkbookStream) -> Option<Vec<u8>> {
    rebuilt(workbook, false)
}

/// A copy of the workbook for calamine: the chart substreams left out
/// ([`without_chart_substreams`]) and a `Book`
/// stream's BOF records saying BIFF5 (calamine took another version for BIFF8), in a new
/// compound file holding only the workbook stream. `None` when nothing needed changing, unless
/// `always`: calamine's own compound-file reader refuses some files whose workbook stream
/// `cfb` reads (a FAT chain running past the end), and the stream in a fresh file opens.
pub fn rebuilt(workbook: &WorkbookStream, always: bool) -> Option<Vec<u8>> {
    let (name, stream) = (workbook.name, &workbook.bytes);
    // the globals: BOUNDSHEET records (where their offset field is) up to the first EOF
    let mut sheets: Vec<(usize, usize)> = Vec::new();
    let mut pos = 0usize;
    let mut globals_end = None;
    for (typ, data) in records(stream, 0) {
        let at = pos;
        pos += 4 + data.len();
        match typ {
            0x002F => return None,
            0x0085 => sheets.push((at + 4, u32_at(data, 0)? as usize)),
            0x000A => {
                globals_end = Some(pos);
                break;
            }
            _ => {}
        }
    }
    let globals_end = globals_end?;
    let mut out = stream.get(..globals_end)?.to_vec();
    let mut removed = false;
    let mut order: Vec<usize> = (0..sheets.len()).collect();
    order.sort_by_key(|&i| sheets[i].1);
    let mut new_offsets = vec![0usize; sheets.len()];
    for i in order {
        let offset = sheets[i].1;
        if offset < globals_end || offset >= stream.len() {
            return None;
        }
        new_offsets[i] = out.len();
        let mut depth = 0usize;
        let mut at = offset;
        for (typ, data) in records(stream, offset) {
            let len = 4 + data.len();
            let start = at;
            at += len;
            if is_bof(typ) {
                depth += 1;
            }
            let keep = depth <= 1;
            if keep {
                out.extend_from_slice(&stream[start..at]);
            } else {
                removed = true;
            }
            if typ == 0x000A {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
        }
    }
    // A `Book` stream is Excel 5/95's (BIFF5/7, though some writers put BIFF8 in one); a BOF
    // there that gives neither version (POI's 64130: 0x0580) made calamine read BIFF8 strings
    // and refuse the file.
    if name == "/Book" {
        let mut at = 0;
        while let (Some(typ), Some(len)) = (u16_at(&out, at), u16_at(&out, at + 2)) {
            let version = u16_at(&out, at + 4);
            if typ == 0x0809 && len >= 2 && !matches!(version, Some(0x0500 | 0x0600)) {
                out[at + 4..at + 6].copy_from_slice(&0x0500u16.to_le_bytes());
                removed = true;
            }
            at += 4 + usize::from(len);
        }
    }
    if !removed && !always {
        return None;
    }
    for (i, (field, _)) in sheets.iter().enumerate() {
        let offset = u32::try_from(new_offsets[i]).ok()?;
        out.get_mut(*field..*field + 4)?
            .copy_from_slice(&offset.to_le_bytes());
    }
    // version 3 (512-byte sectors), as Excel writes them: calamine's reader did not open
    // the version 4 file cfb writes by default ("empty root directory")
    let mut copy =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::new())).ok()?;
    {
        use std::io::Write;
        let mut w = copy.create_stream(name).ok()?;
        w.write_all(&out).ok()?;
    }
    copy.flush().ok()?;
    Some(copy.into_inner().into_inner())
}

/// Object type of a comment (`ot` of the OBJ record's ftCmo).
const OT_NOTE: u16 = 0x19;
/// Characters kept of one object's text.
const MAX_OBJECT_TEXT: usize = 1 << 20;

/// The drawn objects of the BIFF8 sheet substream at `offset`: comments (text by object id,
/// cell and author from the NOTE record) and the text of every other object with text (text
/// boxes, labelled shapes), in stream order.
///
/// An OBJ record names the object (its ftCmo: type and id); the TXO record after it gives
/// the text's length, and the text follows in CONTINUE records, each starting with a flag
/// byte (bit 0: UTF-16LE, else one byte a character); the next CONTINUE holds formatting runs.
pub fn sheet_objects(stream: &[u8], offset: usize) -> (Vec<Comment>, Vec<Block>) {
    let mut objects: Vec<(u16, u16, String)> = Vec::new();
    let mut notes: Vec<(u16, u16, u16, Option<String>)> = Vec::new();
    let mut obj: Option<(u16, u16)> = None;
    // (object, characters still to read, text so far)
    let mut text: Option<((u16, u16), usize, String)> = None;
    // an embedded chart's text records are its labels, not objects on the sheet
    for (typ, data) in sheet_records(stream, offset) {
        if typ == 0x003C {
            if let Some((_, left, t)) = text.as_mut().filter(|(_, left, _)| *left > 0) {
                let wide = data.first().is_some_and(|f| f & 1 == 1);
                let body = data.get(1..).unwrap_or_default();
                let before = t.chars().count();
                if wide {
                    let units: Vec<u16> = body
                        .chunks_exact(2)
                        .take(*left)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]))
                        .collect();
                    t.push_str(&String::from_utf16_lossy(&units));
                } else {
                    t.extend(body.iter().take(*left).map(|&b| char::from(b)));
                }
                let read = t.chars().count() - before;
                *left = left.saturating_sub(read.max(1));
                continue;
            }
        }
        if let Some(((ot, id), _, t)) = text.take() {
            objects.push((ot, id, t));
        }
        match typ {
            // OBJ: the first subrecord is ftCmo (ft 0x15): object type, then id
            0x005D if u16_at(data, 0) == Some(0x15) => {
                obj = u16_at(data, 4).zip(u16_at(data, 6));
            }
            0x01B6 => {
                let cch = usize::from(u16_at(data, 10).unwrap_or(0)).min(MAX_OBJECT_TEXT);
                if let (Some(o), true) = (obj, cch > 0) {
                    text = Some((o, cch, String::new()));
                }
            }
            0x001C => {
                if let (Some(row), Some(col), Some(id)) =
                    (u16_at(data, 0), u16_at(data, 2), u16_at(data, 6))
                {
                    let author = data
                        .get(8..)
                        .and_then(|d| read_string(d, true))
                        .map(|a| a.trim().to_owned())
                        .filter(|a| !a.is_empty());
                    notes.push((row, col, id, author));
                }
            }
            _ => {}
        }
    }
    if let Some(((ot, id), _, t)) = text.take() {
        objects.push((ot, id, t));
    }
    let fold = |t: &str| {
        t.split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    notes.sort_by_key(|&(row, col, _, _)| (row, col));
    let comments = notes
        .into_iter()
        .filter_map(|(row, col, id, author)| {
            let (_, _, t) = objects
                .iter()
                .find(|(ot, i, _)| *i == id && *ot == OT_NOTE)?;
            let text = fold(t);
            (!text.is_empty()).then(|| Comment {
                cell: format!("{}{}", column_name(col), u32::from(row) + 1),
                author,
                text,
                reply: false,
            })
        })
        .collect();
    let shapes = objects
        .iter()
        .filter(|(ot, _, _)| *ot != OT_NOTE)
        .map(|(_, _, t)| fold(t))
        .filter(|t| !t.is_empty())
        .map(Block::text)
        .collect();
    (comments, shapes)
}

/// The charts embedded in the sheet substream at `offset`, from their cached data, as every
/// format shows a chart ([`Chart::blocks`]: its title, then a row per category and a column
/// per series). calamine never sees them ([`without_chart_substreams`]).
///
/// A chart substream (MS-XLS 2.4.x) is a BOF … EOF inside its sheet's. Its records nest in
/// BEGIN (0x1033) … END (0x1034) blocks opened by the record before them: a SERIES (0x1003)
/// block holds the series' name as a SERIESTEXT (0x100D) after an AI (0x1051) of id 0; a
/// TEXT (0x1025) block holds a label, which is the chart's title when its OBJECTLINK (0x1027)
/// links it to the chart (1). After the blocks, the cached data: an SIIndex (0x1065) says
/// whether the cell records after it are values (1) or categories (2), and each NUMBER,
/// LABEL, BOOLERR or BLANK record's row is the point and its column the series.
pub fn sheet_charts(stream: &[u8], offset: usize) -> Vec<Chart> {
    #[derive(Clone, Copy, PartialEq)]
    enum Block {
        Series,
        Text,
        Other,
    }
    let mut charts = Vec::new();
    // substreams: 1 the sheet (a chart sheet's is its chart), 2 a chart embedded in it
    let mut depth = 0usize;
    // the depth of the chart being read, and whether it is BIFF8 (else BIFF5's strings)
    let mut chart_at: Option<usize> = None;
    let mut biff8 = true;
    // the chart being read: title, series, block stack, last record, AI id, text, SIIndex
    let mut title: Option<String> = None;
    let mut series: Vec<Series> = Vec::new();
    let mut stack: Vec<Block> = Vec::new();
    let mut last = 0u16;
    let mut ai = None::<u8>;
    let mut text: Option<String> = None;
    let mut index = 0u16;
    let mut points = 0usize;
    // cells before any SIIndex: MS Graph's datasheet, a small grid of its own
    let mut datasheet: Vec<(u16, u16, String)> = Vec::new();
    for (typ, data) in records(stream, offset) {
        if is_bof(typ) {
            depth += 1;
            // a chart inside a sheet, or a sheet that is no worksheet (a chart sheet: 0x0020;
            // MS Graph's charts say 0x8000)
            let sheet_kind = u16_at(data, 2);
            if chart_at.is_none()
                && (depth == 2 || !matches!(sheet_kind, Some(0x0005 | 0x0010) | None))
            {
                chart_at = Some(depth);
                biff8 = u16_at(data, 0) == Some(0x0600);
                (title, text, ai, index, points, last) = (None, None, None, 0, 0, typ);
                series.clear();
                stack.clear();
                datasheet.clear();
            }
            continue;
        }
        if typ == 0x000A {
            if chart_at == Some(depth) {
                chart_at = None;
                let mut chart = Chart::from_series(title.take(), &series);
                if chart.table.is_none() {
                    chart.table = datasheet_table(&datasheet);
                }
                if chart.title.is_some() || chart.table.is_some() {
                    charts.push(chart);
                }
            }
            depth = depth.saturating_sub(1);
            if depth == 0 {
                break;
            }
            continue;
        }
        if chart_at != Some(depth) {
            continue;
        }
        match typ {
            0x1033 => stack.push(match last {
                0x1003 => Block::Series,
                0x1025 => Block::Text,
                _ => Block::Other,
            }),
            0x1034 => {
                let closed = stack.pop();
                if closed == Some(Block::Text) {
                    text = None;
                }
            }
            0x1003 if series.len() < MAX_CHART_SERIES => series.push(Series::default()),
            0x1051 => ai = data.first().copied(),
            0x100D => {
                let label = chart_text(data, biff8).unwrap_or_default();
                match stack.last() {
                    Some(Block::Series) if ai == Some(0) => {
                        if let Some(s) = series.last_mut() {
                            s.name = label;
                        }
                    }
                    Some(Block::Text) => text = Some(label),
                    _ => {}
                }
            }
            0x1027 if stack.last() == Some(&Block::Text) && u16_at(data, 0) == Some(1) => {
                if let Some(t) = text.take() {
                    title = Some(t);
                }
            }
            0x1065 => index = u16_at(data, 0).unwrap_or(0),
            0x0003 | 0x0004 | 0x0203..=0x0205
                if (stack.is_empty() || index == 0) && points < MAX_CHART_POINTS =>
            {
                let (Some(row), Some(col)) = (u16_at(data, 0), u16_at(data, 2)) else {
                    continue;
                };
                let number = |at: usize| {
                    data.get(at..at + 8)
                        .and_then(|b| b.try_into().ok())
                        .map(f64::from_le_bytes)
                        .filter(|v| v.is_finite())
                        .map(numfmt::plain_number)
                };
                let value = match typ {
                    0x0203 => number(6),
                    // BIFF2's NUMBER and LABEL, which MS Graph still writes in BIFF5 charts:
                    // three bytes of cell attributes, then the value
                    0x0003 => number(7),
                    0x0004 => data.get(7..).and_then(|d| read_string(d, false)),
                    0x0204 if biff8 => data.get(6..).and_then(|d| read_string(d, true)),
                    // BIFF5's LABEL: a 16-bit length, then bytes
                    0x0204 => u16_at(data, 6).and_then(|n| {
                        let bytes = data.get(8..)?;
                        Some(
                            bytes
                                .iter()
                                .take(usize::from(n))
                                .map(|&b| char::from(b))
                                .collect(),
                        )
                    }),
                    _ => match (data.get(6), data.get(7)) {
                        (Some(&v), Some(0)) => Some(if v == 0 { "FALSE" } else { "TRUE" }.into()),
                        _ => None,
                    },
                };
                let Some(value) = value else {
                    continue;
                };
                points += 1;
                if index == 0 {
                    datasheet.push((row, col, value));
                    continue;
                }
                let Some(s) = series.get_mut(usize::from(col)) else {
                    continue;
                };
                match index {
                    1 => s.values.push((usize::from(row), value)),
                    2 => s.categories.push((usize::from(row), value)),
                    _ => {}
                }
            }
            _ => {}
        }
        last = typ;
    }
    charts
}

/// MS Graph's datasheet (cells stored in the chart before any SIIndex: categories along the
/// first row, a series a row) as a table, its first row the header; `None` when it is empty.
fn datasheet_table(cells: &[(u16, u16, String)]) -> Option<quire_plugin_api::Table> {
    use quire_plugin_api::{Cell, Table};
    let rows = cells.iter().map(|c| usize::from(c.0)).max()? + 1;
    let cols = cells.iter().map(|c| usize::from(c.1)).max()? + 1;
    if rows * cols > MAX_CHART_POINTS {
        return None;
    }
    let mut grid = vec![vec![String::new(); cols]; rows];
    for (r, c, v) in cells {
        grid[usize::from(*r)][usize::from(*c)].clone_from(v);
    }
    Some(Table {
        header_rows: 1,
        rows: grid
            .into_iter()
            .map(|r| r.into_iter().map(Cell::text).collect())
            .collect(),
    })
}

/// A chart label's text: SERIESTEXT's string after its 2-byte id (BIFF8: a length, flags and
/// the characters; BIFF5: a length and bytes).
fn chart_text(data: &[u8], biff8: bool) -> Option<String> {
    let cch = usize::from(*data.get(2)?);
    let wide = biff8 && data.get(3)? & 1 == 1;
    let body = data.get(if biff8 { 4.. } else { 3.. })?;
    Some(if wide {
        let units: Vec<u16> = body
            .chunks_exact(2)
            .take(cch)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else {
        body.iter().take(cch).map(|&b| char::from(b)).collect()
    })
}

/// Series and cached points read per chart; more would not be read as a table anyway.
const MAX_CHART_SERIES: usize = 256;
const MAX_CHART_POINTS: usize = 100_000;

/// Zero-based column index to its letters (0 → A, 26 → AA).
fn column_name(col: u16) -> String {
    let mut n = u32::from(col) + 1;
    let mut out = Vec::new();
    while n > 0 {
        let rem = ((n - 1) % 26) as u8;
        out.push(b'A' + rem);
        n = (n - 1) / 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(typ: u16, data: &[u8]) -> Vec<u8> {
        let mut out = typ.to_le_bytes().to_vec();
        out.extend((data.len() as u16).to_le_bytes());
        out.extend(data);
        out
    }

    /// OBJ with its ftCmo subrecord: object type and id.
    fn obj(ot: u16, id: u16) -> Vec<u8> {
        let mut d = vec![0x15, 0x00, 0x12, 0x00];
        d.extend(ot.to_le_bytes());
        d.extend(id.to_le_bytes());
        d.extend([0u8; 14]);
        rec(0x005D, &d)
    }

    fn txo(cch: u16) -> Vec<u8> {
        let mut d = vec![0u8; 18];
        d[10..12].copy_from_slice(&cch.to_le_bytes());
        rec(0x01B6, &d)
    }

    /// A BOF record of this substream kind (BIFF8).
    fn bof(kind: u16) -> Vec<u8> {
        let mut d = vec![0x00, 0x06];
        d.extend(kind.to_le_bytes());
        d.extend([0u8; 12]);
        rec(0x0809, &d)
    }

    /// Globals with one BOUNDSHEET named `Data`, and where its offset field is.
    fn globals_of_one_sheet() -> (Vec<u8>, usize) {
        let mut globals = bof(0x0005);
        let sheet_at = globals.len() + 4;
        let mut bs = vec![0u8; 4];
        bs.extend([0, 0, 6, 0]);
        bs.extend(b"Data");
        globals.extend(rec(0x0085, &bs));
        globals.extend(rec(0x000A, &[]));
        (globals, sheet_at)
    }

    fn number(row: u16, col: u16, v: f64) -> Vec<u8> {
        let mut d = row.to_le_bytes().to_vec();
        d.extend(col.to_le_bytes());
        d.extend(15u16.to_le_bytes());
        d.extend(v.to_le_bytes());
        rec(0x0203, &d)
    }

    #[test]
    fn excel4_macro_sheets_are_left_out() {
        // A worksheet and an Excel 4 macro sheet (BOUNDSHEET type 1), whose cells are the
        // results of macro code: calamine (0.38) lists it as a sheet.
        let boundsheet = |dt: u8, name: &str| {
            let mut bs = vec![0u8; 4];
            bs.extend([0, dt, name.len() as u8, 0]);
            bs.extend(name.as_bytes());
            rec(0x0085, &bs)
        };
        let mut stream = bof(0x0005);
        let data_at = stream.len() + 4;
        stream.extend(boundsheet(0, "Data"));
        let macro_at = stream.len() + 4;
        stream.extend(boundsheet(1, "Macro1"));
        stream.extend(rec(0x000A, &[]));
        for (field, kind, value) in [(data_at, 0x0010, 5.0), (macro_at, 0x0040, 1.0)] {
            let offset = stream.len() as u32;
            stream[field..field + 4].copy_from_slice(&offset.to_le_bytes());
            stream.extend(bof(kind));
            stream.extend(number(0, 0, value));
            stream.extend(rec(0x000A, &[]));
        }
        let doc = crate::workbook::convert(
            &compound(&stream),
            crate::workbook::Kind::Xls,
            &mut quire_plugin_api::Context::new(),
        )
        .expect("converts");
        let names: Vec<_> = doc.parts.iter().map(|p| p.name.as_deref()).collect();
        assert_eq!(names, [Some("Data")]);
    }

    #[test]
    fn a_sheet_whose_values_span_more_cells_than_the_limit_fails_before_calamine_reads_it() {
        // Two numbers at A1 and at row 65536, column 65536 (BIFF8 cells address columns in
        // 16 bits): calamine would allocate the 4 billion cells between them (the process
        // aborted). The scan measures the span first.
        let (globals, sheet_at) = globals_of_one_sheet();
        let stream = with_far_sheet(globals, sheet_at);
        assert_eq!(scan(&stream).unwrap().areas, [Some(65_536 * 65_536)]);
        let err = crate::workbook::convert(
            &compound(&stream),
            crate::workbook::Kind::Xls,
            &mut quire_plugin_api::Context::new(),
        )
        .expect_err("refused");
        assert_eq!(
            err.kind(),
            quire_plugin_api::ErrorKind::LimitExceeded,
            "{err:?}"
        );
    }

    #[test]
    fn an_encrypted_workbooks_records_are_not_measured() {
        // FILEPASS in the globals: the sheets' records are ciphertext, whose "cells" would
        // span billions (POI's xor-encryption-abc.xls was refused as over the cell limit
        // instead of reported as encrypted, which calamine does)
        let (globals, sheet_at) = globals_of_one_sheet();
        let mut encrypted = globals[..globals.len() - 4].to_vec();
        encrypted.extend(rec(0x002F, &[1, 0, 1, 0, 2, 0]));
        encrypted.extend(rec(0x000A, &[]));
        assert!(scan(&with_far_sheet(encrypted, sheet_at)).is_none());
    }

    /// The globals followed by a sheet holding numbers at A1 and at the last row and the
    /// last column a cell record can address, its BOUNDSHEET (at `sheet_at`) pointing at it.
    fn with_far_sheet(mut stream: Vec<u8>, sheet_at: usize) -> Vec<u8> {
        let offset = stream.len() as u32;
        stream[sheet_at..sheet_at + 4].copy_from_slice(&offset.to_le_bytes());
        stream.extend(bof(0x0010));
        stream.extend(number(0, 0, 1.0));
        stream.extend(number(65_535, 65_535, 2.0));
        stream.extend(rec(0x000A, &[]));
        stream
    }

    #[test]
    fn chart_substreams_leave_the_sheet_and_its_cells_stay() {
        // Globals with one BOUNDSHEET; the sheet holds 5 at A1, then an embedded chart
        // whose cached series value 0 is also addressed (0, 0).
        let (globals, sheet_at) = globals_of_one_sheet();
        let mut sheet = bof(0x0010);
        sheet.extend(number(0, 0, 5.0));
        sheet.extend(bof(0x0020));
        sheet.extend(number(0, 0, 0.0));
        sheet.extend(rec(0x000A, &[]));
        sheet.extend(number(1, 0, 6.0));
        sheet.extend(rec(0x000A, &[]));
        // a record between the globals' EOF and the sheet: the copy moves the sheet
        let mut padded = globals.clone();
        padded.extend(rec(0x00FC, &[0; 8]));
        let offset = padded.len() as u32;
        padded[sheet_at..sheet_at + 4].copy_from_slice(&offset.to_le_bytes());
        padded.extend(&sheet);
        let bytes = compound(&padded);
        let out = without_chart_substreams(&workbook_stream(&bytes, &Limits::default()).unwrap())
            .expect("rebuilt");
        let mut copy = cfb::CompoundFile::open(Cursor::new(out)).unwrap();
        let mut rebuilt = Vec::new();
        copy.open_stream("/Workbook")
            .unwrap()
            .read_to_end(&mut rebuilt)
            .unwrap();
        let at = u32_at(&rebuilt, sheet_at).unwrap() as usize;
        let kinds: Vec<u16> = records(&rebuilt, at).map(|(t, _)| t).collect();
        assert_eq!(kinds, [0x0809, 0x0203, 0x0203, 0x000A]);
        let values: Vec<f64> = records(&rebuilt, at)
            .filter(|(t, _)| *t == 0x0203)
            .map(|(_, d)| f64::from_le_bytes(d[6..14].try_into().unwrap()))
            .collect();
        assert_eq!(values, [5.0, 6.0]);
        // a workbook without embedded charts is not copied
        let mut only = globals.clone();
        let offset = only.len() as u32;
        only[sheet_at..sheet_at + 4].copy_from_slice(&offset.to_le_bytes());
        only.extend(bof(0x0010));
        only.extend(number(0, 0, 5.0));
        only.extend(rec(0x000A, &[]));
        let plain = compound(&only);
        assert!(
            without_chart_substreams(&workbook_stream(&plain, &Limits::default()).unwrap())
                .is_none()
        );
    }

    /// A compound file (version 3) holding `stream` as its workbook.
    fn compound(stream: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut file =
            cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::new()))
                .unwrap();
        file.create_stream("/Workbook")
            .unwrap()
            .write_all(stream)
            .unwrap();
        file.flush().unwrap();
        file.into_inner().into_inner()
    }

    #[test]
    fn a_sixteen_byte_dimensions_record_opens() {
        // POI's 61045 (govdocs1 626534): DIMENSIONS with two bytes more than BIFF8's 14, which
        // calamine before 0.37 refused ("Len { expected: 14, found: 16 }") for the whole
        // workbook; quire cut the record to 14 bytes until calamine read it as it is.
        use calamine::{Data, Reader, Xls};
        let (mut globals, sheet_at) = globals_of_one_sheet();
        let offset = globals.len() as u32;
        globals[sheet_at..sheet_at + 4].copy_from_slice(&offset.to_le_bytes());
        let mut stream = globals;
        stream.extend(bof(0x0010));
        let mut dims = vec![0u8; 16];
        dims[4..8].copy_from_slice(&1u32.to_le_bytes()); // rows 0..1
        dims[10..12].copy_from_slice(&1u16.to_le_bytes()); // columns 0..1
        stream.extend(rec(0x0200, &dims));
        stream.extend(number(0, 0, 5.0));
        stream.extend(rec(0x000A, &[]));
        let file = compound(&stream);
        let workbook = workbook_stream(&file, &Limits::default()).unwrap();
        assert!(
            without_chart_substreams(&workbook).is_none(),
            "nothing to repair"
        );
        let mut wb = Xls::new(Cursor::new(file.as_slice())).expect("opens");
        let range = wb.worksheet_range("Data").unwrap();
        assert_eq!(range.get((0, 0)), Some(&Data::Float(5.0)));
        // a workbook with nothing to repair is copied only when asked
        let mut plain = stream.clone();
        let at = plain
            .windows(4)
            .position(|w| w == [0x00, 0x02, 16, 0])
            .unwrap();
        plain.splice(at..at + 20, rec(0x0200, &dims[..14]));
        let plain = workbook_stream(&compound(&plain), &Limits::default()).unwrap();
        assert!(rebuilt(&plain, false).is_none());
        let copy = rebuilt(&plain, true).expect("copied");
        assert!(Xls::new(Cursor::new(copy.as_slice())).is_ok());
    }

    #[test]
    fn an_ms_graph_chart_sheet_in_an_excel_95_stream_gives_its_datasheet() {
        // POI's 64130: a `Book` stream whose BOFs say 0x0580 (calamine read BIFF8 strings and
        // refused it) and whose one sheet is MS Graph's chart (kind 0x8000): its datasheet is
        // BIFF2 LABEL and NUMBER cells inside an open block, before any SIIndex.
        let bof5 = |kind: u16| {
            let mut d = vec![0x80, 0x05];
            d.extend(kind.to_le_bytes());
            d.extend([0x8c, 0x0c, 0xca, 0x07]);
            rec(0x0809, &d)
        };
        let label2 = |row: u16, col: u16, t: &str| {
            let mut d = row.to_le_bytes().to_vec();
            d.extend(col.to_le_bytes());
            d.extend([0, 0, 0, t.len() as u8]);
            d.extend(t.bytes());
            rec(0x0004, &d)
        };
        let number2 = |row: u16, col: u16, v: f64| {
            let mut d = row.to_le_bytes().to_vec();
            d.extend(col.to_le_bytes());
            d.extend([0, 0, 0]);
            d.extend(v.to_le_bytes());
            rec(0x0003, &d)
        };
        let mut chart = bof5(0x8000);
        chart.extend(rec(0x1052, &[0; 4]));
        chart.extend(rec(0x1033, &[]));
        chart.extend(label2(0, 1, "Dawn"));
        chart.extend(label2(0, 2, "Dusk"));
        chart.extend(label2(1, 0, "Percent"));
        chart.extend(number2(1, 1, 0.5));
        chart.extend(number2(1, 2, 2.25));
        chart.extend(rec(0x1034, &[]));
        chart.extend(rec(0x000A, &[]));
        let charts = sheet_charts(&chart, 0);
        let table = charts[0].table.as_ref().expect("the datasheet");
        let expected: Vec<Vec<quire_plugin_api::Cell>> =
            [["", "Dawn", "Dusk"], ["Percent", "0.5", "2.25"]]
                .iter()
                .map(|r| r.iter().map(|t| quire_plugin_api::Cell::text(*t)).collect())
                .collect();
        assert_eq!(table.rows, expected);
        // the copy for calamine says BIFF5 in every BOF
        let mut globals = bof5(0x0005);
        let field = globals.len() + 4;
        globals.extend(rec(0x0085, &[0, 0, 0, 0, 0, 2, 0]));
        globals.extend(rec(0x000A, &[]));
        let offset = globals.len() as u32;
        globals[field..field + 4].copy_from_slice(&offset.to_le_bytes());
        globals.extend(&chart);
        let book = WorkbookStream {
            name: "/Book",
            bytes: globals,
        };
        let copy = rebuilt(&book, false).expect("rewritten");
        let mut file = cfb::CompoundFile::open(Cursor::new(copy)).unwrap();
        let mut stream = Vec::new();
        file.open_stream("/Book")
            .unwrap()
            .read_to_end(&mut stream)
            .unwrap();
        let versions: Vec<u16> = records(&stream, 0)
            .filter(|(t, _)| *t == 0x0809)
            .map(|(_, d)| u16_at(d, 0).unwrap())
            .collect();
        assert_eq!(versions, [0x0500, 0x0500]);
    }

    #[test]
    fn an_embedded_chart_gives_its_title_and_cached_data_as_a_table() {
        // Tika's testEXCEL_labels-govdocs: a chart's country names are LABEL records after an
        // SIIndex of categories, its values NUMBER records after one of values.
        let seriestext = |t: &str| {
            let mut d = vec![0, 0, t.len() as u8, 1];
            d.extend(t.encode_utf16().flat_map(u16::to_le_bytes));
            rec(0x100D, &d)
        };
        let label = |row: u16, col: u16, t: &str| {
            let mut d = row.to_le_bytes().to_vec();
            d.extend(col.to_le_bytes());
            d.extend(15u16.to_le_bytes());
            d.extend((t.len() as u16).to_le_bytes());
            d.push(0);
            d.extend(t.bytes());
            rec(0x0204, &d)
        };
        let (begin, end) = (rec(0x1033, &[]), rec(0x1034, &[]));
        let mut s = bof(0x0010);
        s.extend(number(0, 0, 5.0)); // the sheet's own cell
        s.extend(bof(0x0020));
        // the title: TEXT, BEGIN, AI (id 0, literal), SERIESTEXT, OBJECTLINK to the chart
        s.extend(rec(0x1025, &[0; 32]));
        s.extend(&begin);
        s.extend(rec(0x1051, &[0, 1, 0, 0, 0, 0, 0, 0]));
        s.extend(seriestext("Artichoke production"));
        s.extend(rec(0x1027, &[1, 0, 0, 0, 0, 0]));
        s.extend(&end);
        for name in ["2005", "2006"] {
            s.extend(rec(0x1003, &[0; 12]));
            s.extend(&begin);
            s.extend(rec(0x1051, &[0, 1, 0, 0, 0, 0, 0, 0]));
            s.extend(seriestext(name));
            // a data label's text inside the series is not its name
            s.extend(rec(0x1025, &[0; 32]));
            s.extend(&begin);
            s.extend(seriestext("label"));
            s.extend(rec(0x1027, &[4, 0, 0, 0, 0, 0]));
            s.extend(&end);
            s.extend(&end);
        }
        s.extend(rec(0x1065, &[2, 0]));
        s.extend(label(0, 0, "Algeria"));
        s.extend(label(1, 0, "Morocco"));
        s.extend(rec(0x1065, &[1, 0]));
        s.extend(number(0, 0, 1.5));
        s.extend(number(1, 0, 2.0));
        s.extend(number(0, 1, 3.25));
        s.extend(rec(0x000A, &[]));
        s.extend(rec(0x000A, &[]));
        let charts = sheet_charts(&s, 0);
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].title.as_deref(), Some("Artichoke production"));
        let table = charts[0].table.as_ref().expect("a table");
        let expected: Vec<Vec<quire_plugin_api::Cell>> = [
            ["", "2005", "2006"],
            ["Algeria", "1.5", "3.25"],
            ["Morocco", "2", ""],
        ]
        .iter()
        .map(|r| r.iter().map(|t| quire_plugin_api::Cell::text(*t)).collect())
        .collect();
        assert_eq!(table.rows, expected);
        // the sheet's own records are no chart
        assert!(sheet_charts(&number(0, 0, 1.0), 0).is_empty());
    }

    #[test]
    fn sheet_objects_give_text_boxes_and_comments() {
        // A text box whose text spans two CONTINUE records (one byte a character, then
        // UTF-16), a comment on AB3 by Ann whose text repeats her name, an embedded chart
        // whose label is the chart's own, and the formatting-run records after each text.
        let mut s = rec(0x0809, &[0x00, 0x06, 0x10, 0x00]);
        s.extend(rec(0x00EC, &[0; 8]));
        s.extend(obj(0x06, 1));
        s.extend(txo(8));
        s.extend(rec(0x003C, b"\x00Text "));
        let mut wide = vec![0x01];
        for u in "box".encode_utf16() {
            wide.extend(u.to_le_bytes());
        }
        s.extend(rec(0x003C, &wide));
        s.extend(rec(0x003C, &[0; 16]));
        s.extend(obj(0x19, 2));
        s.extend(txo(12));
        s.extend(rec(0x003C, b"\x00Ann:\n  check"));
        s.extend(rec(0x003C, &[0; 16]));
        s.extend(rec(0x0809, &[0x00, 0x06, 0x20, 0x00]));
        s.extend(obj(0x06, 3));
        s.extend(txo(5));
        s.extend(rec(0x003C, b"\x00Label"));
        s.extend(rec(0x000A, &[]));
        let mut note = vec![2, 0, 27, 0, 0, 0, 2, 0];
        note.extend([3, 0, 0]);
        note.extend(b"Ann");
        s.extend(rec(0x001C, &note));
        s.extend(rec(0x000A, &[]));
        s.extend(rec(0x0809, &[0; 4]));
        let (comments, shapes) = sheet_objects(&s, 0);
        assert_eq!(shapes, [Block::text("Text box")]);
        assert_eq!(
            comments,
            [Comment {
                cell: "AB3".into(),
                author: Some("Ann".into()),
                text: "Ann: check".into(),
                reply: false,
            }]
        );
        assert_eq!(column_name(0), "A");
        assert_eq!(column_name(25), "Z");
        assert_eq!(column_name(26), "AA");
    }
}
