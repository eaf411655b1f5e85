//! Workbooks (XLSX, XLSM, XLSB, XLS, ODS) through calamine, one sheet at a time.
//!
//! Each sheet's `Range` is loaded, split into the separate tables it holds ([`regions`]),
//! each rendered row by row into a [`Grid`] (the only copy of the text that survives), and
//! dropped before the next sheet is read. A table is its region's rectangle: trailing empty
//! cells of a row are trimmed; the cells a merged range covers, which calamine leaves empty,
//! repeat its value where [`merges`] says a reader needs it.

use crate::cell;
use crate::comments::{self, Comment};
use crate::merges::{Filler, Merge};
use crate::regions::{self, Fill, Occupancy, Rect};
use crate::{ods, xls, xlsb, xlsx};
use calamine::{CellErrorType, Data, Ods, Range, Reader, SheetType, Xls, Xlsb, Xlsx};
use quire_ooxml::chart::Chart;
use quire_ooxml::numfmt::NumFmt;
use quire_plugin_api::{
    Block, Context, Document, DocumentKind, Error, ErrorKind, Grid, Part, Result,
};
use std::collections::HashMap;
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Xlsx,
    Xlsb,
    Xls,
    Ods,
}

/// Number formats of one sheet's styled cells and how to find them.
struct Formats<'a> {
    formats: &'a [NumFmt],
    cells: Option<&'a HashMap<(u32, u32), usize>>,
    charts: &'a [Chart],
    /// Text boxes and SmartArt drawn on the sheet.
    shapes: &'a [Block],
    comments: &'a [Comment],
    /// Merged ranges, sorted by top row.
    merges: &'a [Merge],
    /// The text typed cells show, where the file stores it (ODS), by (row, column).
    shown: Option<&'a HashMap<(u32, u32), String>>,
    /// Cells calamine leaves out, with their values (XLSB formulas' error results).
    missing: &'a [((u32, u32), CellErrorType)],
    /// Cells in the rectangle the sheet's values span, where known before calamine reads it
    /// (XLSB), so a sheet calamine would hold in more memory than the limit is refused first
    /// (XLSX sheets are measured by the pre-pass, XLS ones before calamine opens the file).
    area: Option<u64>,
}

pub fn convert(bytes: &[u8], kind: Kind, ctx: &mut Context<'_>) -> Result<Document> {
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) && kind != Kind::Xls {
        return Err(encrypted_or(bytes));
    }
    if kind == Kind::Xls && has_stream(bytes, "EncryptedPackage") {
        return Err(encrypted());
    }
    let mut doc = Document::new(DocumentKind::Spreadsheet, "Excel Workbook");
    let limits = ctx.limits.clone();
    match kind {
        Kind::Xlsx => {
            let pre = xlsx::prepass(bytes, &limits)?;
            doc.metadata = pre.metadata.clone();
            let preserved;
            let bytes = if pre.preserved.is_empty() {
                bytes
            } else {
                preserved = xlsx::with_preserved_space(bytes, &limits, &pre.preserved)?;
                preserved.as_slice()
            };
            let rebuilt: Vec<u8>;
            let wb = match open_xlsx(bytes) {
                Ok(wb) => wb,
                Err(e) if e.kind() == ErrorKind::Malformed => {
                    // calamine refuses macro sheets and sheets without a part: retry
                    // without them
                    match xlsx::without_unreadable_sheets(bytes, &limits)? {
                        Some(b) => {
                            rebuilt = b;
                            open_xlsx(&rebuilt)?
                        }
                        None => return Err(e),
                    }
                }
                Err(e) => return Err(e),
            };
            let date1904 = pre.date1904;
            read_sheets(wb, &mut doc, ctx, date1904, |name| Formats {
                formats: &pre.formats,
                cells: pre.sheets.get(name).map(|s| &s.cells),
                charts: pre.sheets.get(name).map_or(&[], |s| s.charts.as_slice()),
                shapes: pre.sheets.get(name).map_or(&[], |s| s.shapes.as_slice()),
                comments: pre.sheets.get(name).map_or(&[], |s| s.comments.as_slice()),
                merges: pre.sheets.get(name).map_or(&[], |s| s.merges.as_slice()),
                shown: None,
                missing: &[],
                area: None,
            })?;
        }
        Kind::Xlsb => {
            // calamine misreads some workbook streams (beta-layout sheet records, records
            // its scan does not step over): it gets a copy it reads as Excel does
            let rebuilt = xlsb::for_calamine(bytes, &limits)?;
            let wb = open_xlsb(rebuilt.as_deref().unwrap_or(bytes))?;
            let date1904 = wb.has_1904_epoch();
            let pre = xlsb::prepass(bytes, &limits).unwrap_or_default();
            read_sheets(wb, &mut doc, ctx, date1904, |name| {
                let sheet = pre.sheets.get(name);
                Formats {
                    formats: &pre.formats,
                    cells: sheet.map(|s| &s.cells),
                    charts: sheet.map_or(&[], |s| s.charts.as_slice()),
                    shapes: sheet.map_or(&[], |s| s.shapes.as_slice()),
                    comments: &[],
                    merges: sheet.map_or(&[], |s| s.merges.as_slice()),
                    shown: None,
                    missing: sheet.map_or(&[], |s| s.errors.as_slice()),
                    area: sheet.and_then(|s| s.span.area()),
                }
            })?;
        }
        Kind::Ods => {
            let mut zip = quire_ooxml::SafeZip::open(bytes, &limits, "OpenDocument spreadsheet")?;
            let content = zip.read("content.xml")?;
            drop(zip);
            let pre = content
                .map(|xml| ods::scan(&xml, limits.max_sheet_cells))
                .unwrap_or_default();
            // calamine expands every repeated row and cell of every sheet when it opens the
            // file: a sheet whose values fill more than the limit is refused first
            if let Some((name, cells)) = pre
                .iter()
                .filter_map(|(name, s)| Some((name, s.span.area()?)))
                .find(|&(_, n)| n > ctx.limits.max_sheet_cells)
            {
                return Err(Error::limit(format!(
                    "Sheet \"{name}\" fills {cells} cells, more than the limit of {}.",
                    ctx.limits.max_sheet_cells
                )));
            }
            let wb =
                guard(|| Ods::new(Cursor::new(bytes)).map_err(|e| open_error(e.to_string(), e)))?;
            read_sheets(wb, &mut doc, ctx, false, |name| Formats {
                formats: &[],
                cells: None,
                charts: &[],
                shapes: &[],
                comments: &[],
                merges: pre.get(name).map_or(&[], |s| s.merges.as_slice()),
                shown: pre.get(name).map(|s| &s.shown),
                missing: &[],
                area: None,
            })?;
        }
        Kind::Xls => {
            // embedded charts' cached values would read as the sheet's own cells
            // the workbook stream is read once for both scans
            let stream = xls::workbook_stream(bytes, &limits);
            let rebuilt = stream.as_ref().and_then(xls::without_chart_substreams);
            let source = rebuilt.as_deref().unwrap_or(bytes);
            let styles = stream
                .as_ref()
                .and_then(|s| xls::scan(&s.bytes))
                .unwrap_or_default();
            // calamine reads every sheet when it opens the workbook, each into the whole
            // rectangle its cells span: a sheet spanning more than the limit is refused first
            if let Some(cells) = styles
                .areas
                .iter()
                .flatten()
                .copied()
                .find(|&n| n > ctx.limits.max_sheet_cells)
            {
                return Err(Error::limit(format!(
                    "A sheet spans {cells} cells, more than the limit of {}.",
                    ctx.limits.max_sheet_cells
                )));
            }
            let copy;
            let wb = match open_xls(source) {
                Ok(wb) => wb,
                // the workbook stream in a fresh compound file, when the original was given
                Err(e) => match stream.as_ref().filter(|_| rebuilt.is_none()) {
                    Some(s) => {
                        copy = xls::rebuilt(s, true).ok_or(e)?;
                        open_xls(&copy)?
                    }
                    None => return Err(e),
                },
            };
            let date1904 = wb.has_1904_epoch();
            let names = wb.sheet_names();
            let merges: Vec<Vec<Merge>> = names
                .iter()
                .map(|name| {
                    let mut m: Vec<Merge> = wb
                        .merge_cells_by_sheet_name(name)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|d| Merge::new(d.start, d.end))
                        .collect();
                    m.sort_by_key(|m| m.top);
                    m
                })
                .collect();
            read_sheets(wb, &mut doc, ctx, date1904, |name| {
                let i = names.iter().position(|n| n == name);
                Formats {
                    formats: &styles.formats,
                    cells: i.and_then(|i| styles.sheets.get(i)),
                    charts: &[],
                    shapes: i
                        .and_then(|i| styles.shapes.get(i))
                        .map_or(&[], Vec::as_slice),
                    comments: i
                        .and_then(|i| styles.comments.get(i))
                        .map_or(&[], Vec::as_slice),
                    merges: i.and_then(|i| merges.get(i)).map_or(&[], Vec::as_slice),
                    shown: None,
                    missing: &[],
                    area: None,
                }
            })?;
        }
    }
    Ok(doc)
}

fn open_xlsb(bytes: &[u8]) -> Result<Xlsb<Cursor<&[u8]>>> {
    guard(|| Xlsb::new(Cursor::new(bytes)).map_err(|e| open_error(e.to_string(), e)))
}

fn open_xlsx(bytes: &[u8]) -> Result<Xlsx<Cursor<&[u8]>>> {
    guard(|| Xlsx::new(Cursor::new(bytes)).map_err(|e| open_error(e.to_string(), e)))
}

/// Runs third-party parsing code, turning a panic on hostile input into an error.
fn open_xls(bytes: &[u8]) -> Result<Xls<Cursor<&[u8]>>> {
    guard(|| Xls::new(Cursor::new(bytes)).map_err(|e| open_error(e.to_string(), e)))
}

fn guard<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::malformed(
            "The workbook is damaged and cannot be read.",
        ))
    })
}

fn encrypted() -> Error {
    Error::encrypted(
        "The workbook is password-protected (encrypted); remove the password and try again.",
    )
}

/// An OLE2 file given as an OOXML workbook is either an encrypted package or an XLS misnamed.
fn encrypted_or(bytes: &[u8]) -> Error {
    if has_stream(bytes, "EncryptedPackage") {
        encrypted()
    } else {
        Error::malformed("The file is not a valid Excel workbook of the type it claims to be.")
    }
}

/// Whether an OLE2 compound file has a directory entry of this name (UTF-16LE in the directory).
pub fn has_stream(bytes: &[u8], name: &str) -> bool {
    let needle: Vec<u8> = name.encode_utf16().flat_map(u16::to_le_bytes).collect();
    bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

fn open_error(msg: String, detail: impl std::fmt::Debug) -> Error {
    if msg.contains("password") || msg.contains("Password") {
        return encrypted();
    }
    Error::malformed("The workbook is damaged or not a spreadsheet this converter can read.")
        .with_detail(format!("{detail:?}"))
}

fn read_sheets<'f, R, F>(
    mut wb: R,
    doc: &mut Document,
    ctx: &mut Context<'_>,
    date1904: bool,
    formats_for: F,
) -> Result<()>
where
    R: Reader<Cursor<&'f [u8]>>,
    R::Error: std::fmt::Display,
    F: for<'n> Fn(&'n str) -> Formats<'f>,
{
    // Excel 4 macro sheets hold macro code, not values: they are left out, as the XLSX and
    // XLSB readers leave them out before calamine opens the workbook
    let kinds: HashMap<String, SheetType> = wb
        .sheets_metadata()
        .iter()
        .map(|s| (s.name.clone(), s.typ))
        .collect();
    let names: Vec<String> = wb
        .sheet_names()
        .into_iter()
        .filter(|n| kinds.get(n) != Some(&SheetType::MacroSheet))
        .collect();
    if names.len() as u64 > u64::from(ctx.limits.max_parts) {
        return Err(Error::limit(format!(
            "The workbook has {} sheets, more than the limit of {}.",
            names.len(),
            ctx.limits.max_parts
        )));
    }
    let total = names.len() as u64;
    let mut output_bytes = 0u64;
    for (i, name) in names.iter().enumerate() {
        ctx.check()?;
        let formats = formats_for(name);
        if let Some(cells) = formats.area.filter(|&n| n > ctx.limits.max_sheet_cells) {
            return Err(Error::limit(format!(
                "Sheet \"{name}\" spans {cells} cells, more than the limit of {}.",
                ctx.limits.max_sheet_cells
            )));
        }
        let range = guard(|| {
            wb.worksheet_range(name).map_err(|e| {
                let msg = e.to_string();
                open_error(msg, e.to_string())
            })
        });
        let range = match range {
            Ok(r) => r,
            Err(e) if e.kind() == ErrorKind::Encrypted => return Err(e),
            // a chart sheet (no cells to read) whose chart is shown, or a dialog sheet (its
            // controls are drawn, it has no cells)
            Err(_)
                if !formats.charts.is_empty()
                    || kinds.get(name) == Some(&SheetType::DialogSheet) =>
            {
                Range::empty()
            }
            Err(e) => {
                // damaged sheets and charts not read: keep the sheet, say why it is empty
                ctx.warn(format!(
                    "Sheet \"{name}\" could not be read; it is shown empty."
                ));
                let _ = e;
                Range::empty()
            }
        };
        let range = with_missing(range, formats.missing);
        let (h, w) = range.get_size();
        if (h as u64).saturating_mul(w as u64) > ctx.limits.max_sheet_cells {
            return Err(Error::limit(format!(
                "Sheet \"{name}\" has {h} rows by {w} columns, more than the limit of {} cells.",
                ctx.limits.max_sheet_cells
            )));
        }
        let grids = to_grids(&range, &formats, date1904, ctx)?;
        drop(range);
        output_bytes += grids.iter().map(|g| g.text_len() as u64).sum::<u64>();
        if output_bytes > ctx.limits.max_output_bytes {
            return Err(Error::limit(
                "The workbook's text is larger than the output limit.",
            ));
        }
        let mut part = Part::sheet(i as u32 + 1, name.clone());
        part.blocks.extend(
            grids
                .into_iter()
                .filter(|g| !g.is_empty())
                .map(|g| Block::Grid(Box::new(g))),
        );
        part.blocks.extend(formats.shapes.iter().cloned());
        for chart in formats.charts {
            part.blocks.extend(chart.blocks());
        }
        // comments follow the sheet's tables as its notes
        part.notes = comments::blocks(formats.comments);
        doc.parts.push(part);
        ctx.progress(i as u64 + 1, total);
    }
    Ok(())
}

fn is_blank(d: &Data) -> bool {
    match d {
        Data::Empty => true,
        Data::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

fn fill(d: &Data) -> Fill {
    match d {
        _ if is_blank(d) => Fill::Empty,
        Data::Int(_)
        | Data::Float(_)
        | Data::DateTime(_)
        | Data::DateTimeIso(_)
        | Data::DurationIso(_) => Fill::Number,
        _ => Fill::Text,
    }
}

/// The range with the cells calamine left out put back in their places (a new range only
/// when there are any).
fn with_missing(range: Range<Data>, missing: &[((u32, u32), CellErrorType)]) -> Range<Data> {
    if missing.is_empty() {
        return range;
    }
    let (r0, c0) = range.start().unwrap_or((0, 0));
    let mut cells: Vec<calamine::Cell<Data>> = range
        .cells()
        .filter(|(_, _, v)| !matches!(v, Data::Empty))
        .map(|(r, c, v)| calamine::Cell::new((r0 + r as u32, c0 + c as u32), v.clone()))
        .collect();
    cells.extend(
        missing
            .iter()
            .map(|(at, e)| calamine::Cell::new(*at, Data::Error(e.clone()))),
    );
    cells.sort_by_key(|c| c.get_position());
    cells.dedup_by_key(|c| c.get_position());
    Range::from_sparse(cells)
}

/// One grid per table of the sheet, in reading order.
fn to_grids(
    range: &Range<Data>,
    formats: &Formats<'_>,
    date1904: bool,
    ctx: &Context<'_>,
) -> Result<Vec<Grid>> {
    let Some((r0, c0)) = range.start() else {
        return Ok(Vec::new());
    };
    let (height, width) = range.get_size();
    let rows: Vec<&[Data]> = range.rows().collect();
    let mut map = Occupancy::new(height, width);
    for (ri, row) in rows.iter().enumerate() {
        for (ci, value) in row.iter().enumerate() {
            map.set(ri, ci, fill(value));
        }
    }
    // A merged range is filled where its value is: a header merged over two columns keeps
    // the columns of its table together.
    let mut marks = height.saturating_mul(width);
    for m in formats.merges {
        let (Some(top), Some(left)) = (m.top.checked_sub(r0), m.left.checked_sub(c0)) else {
            continue;
        };
        let (top, left) = (top as usize, left as usize);
        let Some(f) = rows.get(top).and_then(|r| r.get(left)).map(fill) else {
            continue;
        };
        if f == Fill::Empty {
            continue;
        }
        let bottom = ((m.bottom - r0) as usize).min(height - 1);
        let right = ((m.right - c0) as usize).min(width - 1);
        // overlapping ranges: at most the sheet's area is marked in all
        let area = (bottom + 1 - top) * (right + 1 - left);
        if area > marks {
            break;
        }
        marks -= area;
        for ri in top..=bottom {
            for ci in left..=right {
                map.set(ri, ci, f);
            }
        }
    }
    let mut checks = 0u32;
    let rects = regions::find(&map, || {
        checks += 1;
        if checks.is_multiple_of(256) {
            ctx.check()
        } else {
            Ok(())
        }
    })?;
    drop(map);
    let lookup = formats.cells.filter(|m| !m.is_empty());
    let mut cells: Vec<String> = vec![String::new(); width];
    let mut grids = Vec::with_capacity(rects.len());
    for rect in rects {
        let Rect {
            top,
            left,
            bottom,
            right,
        } = rect;
        let mut grid = Grid::at(r0 + top as u32, c0 + left as u32);
        let filled = |r: usize, c: usize| {
            rows.get(r)
                .and_then(|row| row.get(c))
                .is_some_and(|d| !is_blank(d))
        };
        let mut merged = Filler::new(formats.merges, (r0, c0), (top, left, bottom, right), filled);
        let mut pending_empty = 0usize;
        for (ri, row) in rows.iter().enumerate().take(bottom + 1).skip(top) {
            if ri % 4096 == 4095 {
                ctx.check()?;
            }
            for (ci, value) in row.iter().enumerate().take(right + 1).skip(left) {
                let at = (r0 + ri as u32, c0 + ci as u32);
                let fmt = lookup
                    .and_then(|m| m.get(&at))
                    .and_then(|&i| formats.formats.get(i));
                match formats.shown.and_then(|m| m.get(&at)) {
                    Some(text) => cells[ci].clone_from(text),
                    None => cell::render(value, fmt, date1904, &mut cells[ci]),
                }
                if cells[ci].contains('\r') {
                    cells[ci] = cells[ci].replace("\r\n", "\n").replace('\r', "\n");
                }
            }
            merged.fill(ri, grid.is_empty(), &mut cells);
            let last = (left..=right).rev().find(|&ci| !cells[ci].is_empty());
            let Some(last) = last else {
                pending_empty += 1;
                continue;
            };
            if !grid.is_empty() {
                for _ in 0..pending_empty {
                    grid.push_row(std::iter::empty::<&str>());
                }
            }
            pending_empty = 0;
            grid.push_row(cells[left..=last].iter());
        }
        grids.push(grid);
    }
    Ok(grids)
}
