//! A pre-pass over an XLSX/XLSM package before calamine opens it.
//!
//! calamine opens ZIP entries with no limits and does not give a cell's number format. This
//! pass reads every part calamine will read through [`SafeZip`] (entry count, inflated bytes
//! and compression ratio counted as inflated), checks the span of each sheet's values against
//! `max_sheet_cells`, finds the text elements whose white space calamine would trim
//! ([`unpreserved_space`]), collects the number format of every numeric cell whose style is not
//! General, so cells can be shown as Excel shows them ("$1,599.99", "2.50%", "17-May-07"), and
//! each sheet's merged ranges (calamine reads them only on a second parse of the sheet).

use crate::comments::{self, Comment};
use crate::merges::Merge;
use crate::span::Span;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quire_ooxml::chart::{self, Chart};
use quire_ooxml::numfmt::{self, NumFmt};
use quire_ooxml::{relationships, Relationship, SafeZip};
use quire_plugin_api::{Block, Error, Limits, Metadata, Result};
use std::collections::HashMap;

/// (row, column) → index into [`Prepass::formats`].
type CellFormats = HashMap<(u32, u32), usize>;

/// What the pre-pass learnt about one sheet.
#[derive(Debug, Default)]
pub struct SheetFormats {
    /// (row, column) → index into [`Prepass::formats`], for styled numeric cells only.
    pub cells: HashMap<(u32, u32), usize>,
    /// The charts drawn on the sheet (or the chart sheet's chart), with their cached data.
    pub charts: Vec<Chart>,
    /// Text drawn on the sheet: text boxes and shapes as paragraphs, SmartArt as lists, in
    /// the drawing's order.
    pub shapes: Vec<Block>,
    /// Cell comments (legacy notes and threaded comments), in reading order of their cells.
    pub comments: Vec<Comment>,
    /// Merged ranges, sorted by top row.
    pub merges: Vec<Merge>,
}

/// What the pre-pass learnt about the workbook.
#[derive(Debug, Default)]
pub struct Prepass {
    pub date1904: bool,
    pub formats: Vec<NumFmt>,
    /// By sheet name.
    pub sheets: HashMap<String, SheetFormats>,
    pub metadata: Metadata,
    /// The parts (shared strings, sheets) whose text elements would lose white space to
    /// calamine ([`unpreserved_space`]), each with `xml:space="preserve"` added.
    pub preserved: Vec<(String, Vec<u8>)>,
}

pub fn prepass(bytes: &[u8], limits: &Limits) -> Result<Prepass> {
    let mut zip = SafeZip::open(bytes, limits, "Excel workbook")?;
    let mut out = Prepass::default();
    let core = quire_ooxml::core_properties(&mut zip);
    out.metadata.title = core.title;
    out.metadata.author = core.creator;
    out.metadata.subject = core.subject;
    out.metadata.created = core.created;
    out.metadata.modified = core.modified;

    let workbook = relationships(&mut zip, "")?
        .into_values()
        .find(|r| r.kind == "officeDocument")
        .map(|r| r.target)
        .unwrap_or_else(|| "xl/workbook.xml".to_owned());
    let Some(wb_xml) = zip.read(&workbook)? else {
        return Err(Error::malformed(
            "The file is not a valid Excel workbook: it has no workbook part.",
        ));
    };
    let rels = relationships(&mut zip, &workbook)?;
    let mut sheets = Vec::new();
    let mut is_workbook = false;
    let mut reader = Reader::from_reader(wb_xml.as_slice());
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"workbook" => is_workbook = true,
                b"workbookPr" => {
                    out.date1904 = attr(&e, b"date1904").is_some_and(|v| v == "1" || v == "true");
                }
                b"sheet" => {
                    if let (Some(name), Some(id)) = (attr(&e, b"name"), attr(&e, b"id")) {
                        sheets.push((name, id));
                    }
                }
                _ => {}
            },
            Ok(Event::Eof) => break,
            Err(e) => {
                return Err(Error::malformed(
                    "The Excel workbook is damaged: its workbook part is not valid XML.",
                )
                .with_detail(e))
            }
            _ => {}
        }
        buf.clear();
    }
    if !is_workbook {
        return Err(Error::malformed(
            "The file is not an Excel workbook: its main part is another kind of document.",
        ));
    }
    if sheets.len() as u64 > u64::from(limits.max_parts) {
        return Err(Error::limit(format!(
            "The workbook has {} sheets, more than the limit of {}.",
            sheets.len(),
            limits.max_parts
        )));
    }

    let style_part = rels
        .values()
        .find(|r| r.kind == "styles")
        .map(|r| r.target.clone())
        .unwrap_or_else(|| "xl/styles.xml".to_owned());
    let xf_formats = match zip.read(&style_part)? {
        Some(xml) => read_styles(&xml, &mut out.formats),
        None => Vec::new(),
    };
    // shared strings are read by calamine; reading them here enforces the inflation limits
    for r in rels.values().filter(|r| r.kind == "sharedStrings") {
        let target = r.target.clone();
        if let Some(xml) = zip.read(&target)?.filter(|xml| unpreserved_space(xml)) {
            out.preserved.push((target, preserve_space(&xml)));
        }
    }
    let persons = comments::persons(&mut zip, &rels);
    for (name, id) in sheets {
        let Some(rel) = rels.get(&id) else { continue };
        let target = rel.target.clone();
        let Some(xml) = zip.read(&target)? else {
            continue;
        };
        let (cells, merges) = scan_sheet(&xml, &xf_formats, limits, &name)?;
        // a sheet's text elements are its inline strings' (`<is>`); most sheets have none
        let inline = memchr::memmem::find(&xml, b"is>").is_some();
        if inline && unpreserved_space(&xml) {
            out.preserved.push((target.clone(), preserve_space(&xml)));
        }
        drop(xml);
        // one read of the sheet's relationships for its charts and its comments
        let sheet_rels = relationships(&mut zip, &target).unwrap_or_default();
        let (charts, shapes) = sheet_drawings(&mut zip, &sheet_rels);
        let comments = comments::read(&mut zip, &sheet_rels, &persons);
        out.sheets.insert(
            name,
            SheetFormats {
                cells,
                charts,
                shapes,
                comments,
                merges,
            },
        );
    }
    Ok(out)
}

fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

/// A copy of the package without what makes calamine refuse it, or `None` when it has
/// nothing of the kind.
///
/// calamine refuses a whole workbook that lists an Excel 4 macro sheet
/// (`xl/macrosheets/...`) or a sheet whose relationship is missing (an empty or unknown
/// `r:id`: a sheet whose part a tool lost or never wrote, which Excel drops when it repairs
/// the file). Neither has anything to show (macro sheets hold macro code), so their
/// `<sheet>` entries are cut from the workbook part. calamine also finds the workbook part
/// only through the package's relationships (`_rels/.rels`); when they are damaged or name
/// no workbook (POI's `xlsx-corrupted.xlsx`), they are written anew for the part at Excel's
/// usual name, as Excel's repair does. The package is rebuilt (stored, uncompressed) for
/// calamine to read.
pub fn without_unreadable_sheets(bytes: &[u8], limits: &Limits) -> Result<Option<Vec<u8>>> {
    let mut zip = SafeZip::open(bytes, limits, "Excel workbook")?;
    let root = relationships(&mut zip, "")
        .ok()
        .and_then(|rels| rels.into_values().find(|r| r.kind == "officeDocument"));
    let workbook = root
        .as_ref()
        .map_or("xl/workbook.xml", |r| r.target.as_str())
        .to_owned();
    let rels = relationships(&mut zip, &workbook)?;
    let unreadable = |id: &str| {
        rels.get(id).is_none_or(|r| {
            r.target.contains("/macrosheets/") || r.kind.to_ascii_lowercase().contains("macrosheet")
        })
    };
    let Some(xml) = zip.read(&workbook)? else {
        return Ok(None);
    };
    // byte ranges of the <sheet> elements to cut
    let mut cuts = Vec::new();
    let mut reader = Reader::from_reader(xml.as_slice());
    loop {
        let start = reader.buffer_position() as usize;
        match reader.read_event() {
            Ok(Event::Empty(e))
                if e.local_name().as_ref() == b"sheet"
                    && unreadable(&attr(&e, b"id").unwrap_or_default()) =>
            {
                cuts.push((start, reader.buffer_position() as usize));
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
    if root.is_none() {
        let name = zip.find("_rels/.rels").unwrap_or("_rels/.rels").to_owned();
        parts.push((name, ROOT_RELATIONSHIPS.as_bytes().to_vec()));
    }
    if !cuts.is_empty() {
        let mut edited = Vec::with_capacity(xml.len());
        let mut from = 0;
        for (a, b) in cuts {
            edited.extend_from_slice(xml.get(from..a).unwrap_or_default());
            from = b;
        }
        edited.extend_from_slice(xml.get(from..).unwrap_or_default());
        parts.push((workbook, edited));
    }
    if parts.is_empty() {
        return Ok(None);
    }
    rebuilt_with_parts(&mut zip, &parts).map(Some)
}

/// The package relationships of a workbook at `xl/workbook.xml`.
const ROOT_RELATIONSHIPS: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    r#"<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>"#,
    r#"</Relationships>"#
);

/// The package with the pre-pass's `preserved` parts in place: calamine (0.36 and later)
/// trims a `<t>` that does not say `xml:space="preserve"`, and writers that read the element
/// as it is leave the attribute out (LibreOffice wrote the rich-text runs `Regular ` and
/// `Bold` so, which calamine joined as `RegularBold`).
pub fn with_preserved_space(
    bytes: &[u8],
    limits: &Limits,
    preserved: &[(String, Vec<u8>)],
) -> Result<Vec<u8>> {
    let mut zip = SafeZip::open(bytes, limits, "Excel workbook")?;
    rebuilt_with_parts(&mut zip, preserved)
}

/// The start tags of the `<t>` elements of a part with their text: for each, the index of
/// the tag's `>`, whether it has an `xml:space` attribute, and the text up to the next tag.
fn text_elements(xml: &[u8]) -> impl Iterator<Item = (usize, bool, &[u8])> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || loop {
        let lt = at + memchr::memchr(b'<', xml.get(at..)?)?;
        at = lt + 1;
        let rest = &xml[at..];
        let name_end = rest
            .iter()
            .position(|&b| b.is_ascii_whitespace() || b == b'>' || b == b'/')?;
        let name = &rest[..name_end];
        if name.rsplit(|&b| b == b':').next() != Some(b"t") {
            continue;
        }
        let gt = at + memchr::memchr(b'>', rest)?;
        if xml[gt - 1] == b'/' {
            continue; // an empty element
        }
        let tag = &xml[at + name_end..gt];
        let text_end = memchr::memchr(b'<', &xml[gt..]).map_or(xml.len(), |i| gt + i);
        at = gt;
        return Some((
            gt,
            tag_attr(tag, b"xml:space").is_some(),
            &xml[gt + 1..text_end],
        ));
    })
}

/// Whether a part holds a `<t>` without `xml:space` whose text begins or ends with the white
/// space calamine trims.
fn unpreserved_space(xml: &[u8]) -> bool {
    let edge = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t' | b'\r' | b'\n'));
    text_elements(xml).any(|(_, space, text)| {
        !space
            && (edge(text.first()) || edge(text.last()))
            && !text.iter().all(u8::is_ascii_whitespace)
    })
}

/// The part with `xml:space="preserve"` added to every `<t>` that has no `xml:space`.
fn preserve_space(xml: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(xml.len() + 64);
    let mut from = 0;
    for (gt, space, _) in text_elements(xml) {
        if !space {
            out.extend_from_slice(&xml[from..gt]);
            out.extend_from_slice(b" xml:space=\"preserve\"");
            from = gt;
        }
    }
    out.extend_from_slice(&xml[from..]);
    out
}

/// The package again (parts stored uncompressed), with part `replaced` holding `data`.
pub fn rebuilt_with(zip: &mut SafeZip, replaced: &str, data: &[u8]) -> Result<Vec<u8>> {
    rebuilt_with_parts(zip, &[(replaced.to_owned(), data.to_vec())])
}

/// The package again (parts stored uncompressed), with each named part holding its data.
fn rebuilt_with_parts(zip: &mut SafeZip, replaced: &[(String, Vec<u8>)]) -> Result<Vec<u8>> {
    let stored = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let write_err = |e: &dyn std::fmt::Display| {
        Error::internal("The workbook could not be prepared for reading.")
            .with_detail(e.to_string())
    };
    for name in zip.names().to_vec() {
        if name.ends_with('/') {
            continue;
        }
        let part = if let Some((_, data)) = replaced.iter().find(|(n, _)| *n == name) {
            data.clone()
        } else {
            zip.read(&name)?.unwrap_or_default()
        };
        out.start_file(name.as_str(), stored)
            .map_err(|e| write_err(&e))?;
        std::io::Write::write_all(&mut out, &part).map_err(|e| write_err(&e))?;
    }
    let cursor = out.finish().map_err(|e| write_err(&e))?;
    Ok(cursor.into_inner())
}

/// Reads `numFmts` and `cellXfs`; returns, per cell style index, an index into `formats` for
/// styles whose number format is not General (`None` otherwise).
fn read_styles(xml: &[u8], formats: &mut Vec<NumFmt>) -> Vec<Option<usize>> {
    let mut custom: HashMap<u32, String> = HashMap::new();
    let mut xfs: Vec<u32> = Vec::new();
    let mut in_cell_xfs = false;
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"numFmt" => {
                    if let (Some(id), Some(code)) = (attr(&e, b"numFmtId"), attr(&e, b"formatCode"))
                    {
                        if let Ok(id) = id.parse() {
                            custom.insert(id, code);
                        }
                    }
                }
                b"cellXfs" => in_cell_xfs = true,
                b"xf" if in_cell_xfs => {
                    xfs.push(
                        attr(&e, b"numFmtId")
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(0),
                    );
                }
                _ => {}
            },
            Ok(Event::End(e)) if e.local_name().as_ref() == b"cellXfs" => in_cell_xfs = false,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
        buf.clear();
    }
    xf_formats(&custom, xfs, formats)
}

/// Per cell style (`xfs`: each style's number format id), an index into `formats` for the
/// styles whose format is not General (`None` otherwise); `custom` holds the workbook's own
/// format codes by id, the rest are built in. Each format is parsed once. XLSX and XLSB
/// styles both read through here.
pub(crate) fn xf_formats(
    custom: &HashMap<u32, String>,
    xfs: Vec<u32>,
    formats: &mut Vec<NumFmt>,
) -> Vec<Option<usize>> {
    let mut by_id: HashMap<u32, usize> = HashMap::new();
    xfs.into_iter()
        .map(|id| {
            if id == 0 || id == 49 {
                return None;
            }
            if let Some(&i) = by_id.get(&id) {
                return Some(i);
            }
            let code = custom
                .get(&id)
                .map(String::as_str)
                .or_else(|| numfmt::builtin(id))?;
            let parsed = NumFmt::parse(code);
            if parsed.is_general() {
                return None;
            }
            formats.push(parsed);
            by_id.insert(id, formats.len() - 1);
            Some(formats.len() - 1)
        })
        .collect()
}

/// Charts reachable from a sheet (sheet → drawing → chart, chart sheets included) and the
/// text its drawings hold ([`drawing_text`]). Damaged or missing parts give nothing rather
/// than an error.
pub(crate) fn sheet_drawings(
    zip: &mut SafeZip<'_>,
    rels: &HashMap<String, Relationship>,
) -> (Vec<Chart>, Vec<Block>) {
    let mut out = Vec::new();
    let mut shapes = Vec::new();
    let mut drawings: Vec<_> = rels
        .values()
        .filter(|r| r.kind == "drawing" && !r.external)
        .collect();
    drawings.sort_by(|a, b| a.id.cmp(&b.id));
    for drawing in drawings {
        let Ok(rels) = relationships(zip, &drawing.target) else {
            continue;
        };
        if let Ok(Some(xml)) = zip.read(&drawing.target) {
            let diagrams: Vec<String> = drawing_text(&xml, &mut shapes);
            for id in diagrams {
                let Some(rel) = rels.get(&id).filter(|r| !r.external) else {
                    continue;
                };
                if let Ok(Some(data)) = zip.read(&rel.target) {
                    shapes.extend(quire_ooxml::diagram::list(&data));
                }
            }
        }
        let mut charts: Vec<_> = rels
            .into_values()
            .filter(|r| (r.kind == "chart" || r.kind == "chartEx") && !r.external)
            .collect();
        charts.sort_by(|a, b| a.id.cmp(&b.id));
        for rel in charts {
            if let Ok(Some(xml)) = zip.read(&rel.target) {
                out.push(chart::read(&xml));
            }
        }
    }
    (out, shapes)
}

/// The text of a drawing part's shapes (`xdr:sp` text bodies: text boxes, callouts, labelled
/// shapes), one paragraph per `a:p`, into `out`; returns the relationship ids of the SmartArt
/// data parts it places (`dgm:relIds r:dm`), in order. A shape stored twice for older readers
/// (`mc:AlternateContent`) is read from its first choice only.
fn drawing_text(xml: &[u8], out: &mut Vec<Block>) -> Vec<String> {
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut diagrams = Vec::new();
    let mut depth = 0usize;
    // depth of an open fallback (skipped) and of an open text body
    let mut skip: Option<usize> = None;
    let mut body: Option<usize> = None;
    let mut para = String::new();
    let mut in_text = false;
    loop {
        let event = reader.read_event_into(&mut buf);
        match event {
            Ok(Event::Start(ref e)) | Ok(Event::Empty(ref e)) => {
                let empty = matches!(event, Ok(Event::Empty(_)));
                if !empty {
                    depth += 1;
                }
                if skip.is_some() {
                    buf.clear();
                    continue;
                }
                match e.local_name().as_ref() {
                    b"Fallback" if !empty => skip = Some(depth),
                    b"txBody" if !empty && body.is_none() => body = Some(depth),
                    b"t" if body.is_some() && !empty => in_text = true,
                    b"br" if body.is_some() => para.push(' '),
                    b"relIds" => {
                        if let Some(dm) = attr(e, b"dm") {
                            diagrams.push(dm);
                        }
                    }
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if in_text && skip.is_none() => {
                if let Ok(t) = t.unescape() {
                    para.push_str(&t);
                }
            }
            Ok(Event::End(e)) => {
                match e.local_name().as_ref() {
                    b"t" => in_text = false,
                    b"p" if body.is_some() && skip.is_none() => {
                        let text = para.split_whitespace().collect::<Vec<_>>().join(" ");
                        if !text.is_empty() {
                            out.push(Block::text(text));
                        }
                        para.clear();
                    }
                    _ => {}
                }
                if skip == Some(depth) {
                    skip = None;
                }
                if body == Some(depth) {
                    body = None;
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
        buf.clear();
    }
    diagrams
}

/// "B4" → (3, 1), zero-based.
pub fn cell_ref(r: &[u8]) -> Option<(u32, u32)> {
    let split = r.iter().position(|b| b.is_ascii_digit())?;
    let (letters, digits) = r.split_at(split);
    if letters.is_empty() || letters.len() > 3 {
        return None;
    }
    let mut col: u32 = 0;
    for &b in letters {
        if !b.is_ascii_alphabetic() {
            return None;
        }
        col = col * 26 + u32::from(b.to_ascii_uppercase() - b'A' + 1);
    }
    let row: u32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some((row.checked_sub(1)?, col - 1))
}

/// The styled numeric cells of a sheet part (when the workbook has number formats) and its
/// merged ranges; a sheet whose values span more cells than the limit (declared or not) is
/// refused before calamine reads it.
fn scan_sheet(
    xml: &[u8],
    xf_formats: &[Option<usize>],
    limits: &Limits,
    name: &str,
) -> Result<(CellFormats, Vec<Merge>)> {
    let mut cells = HashMap::new();
    let mut merges = Vec::new();
    let mut reader = Reader::from_reader(xml);
    let any_format = xf_formats.iter().any(Option::is_some);
    // Where a cell without an `r` reference stands: `r` is optional, a row's cells then
    // follow each other and rows each other (zero-based).
    let mut row: Option<u32> = None;
    let mut next_col = 0u32;
    // the cell being read (when it is an element with content), and the rectangle of the
    // cells that hold a value (`v` or `is`): calamine allocates all of it whatever the
    // declared dimension says, so it is checked against the cell limit here
    let mut value_at: Option<(u32, u32)> = None;
    let mut span = Span::default();
    loop {
        let event = reader.read_event();
        let start = matches!(event, Ok(Event::Start(_)));
        match event {
            Ok(Event::End(e)) if e.local_name().as_ref() == b"c" => value_at = None,
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"v" | b"is" => {
                    if let Some((r, c)) = value_at.take() {
                        span.add(r, c);
                    }
                }
                // The declared dimension is not checked: calamine sizes nothing by it (it
                // reserves room for small ones only), and writers declare the whole grid
                // (Gnumeric's `A1:XFD1048576`) for sheets of a few cells.
                // When no cell needs its style: the cells' span from their bytes, then the
                // merged ranges after them.
                b"dimension" if !any_format => {
                    let rest = &xml[reader.buffer_position() as usize..];
                    span = value_span(rest);
                    if let Some(at) = memchr::memmem::find(rest, b"mergeCells") {
                        merges = merged_ranges(&rest[at..]);
                    }
                    break;
                }
                b"mergeCell" => {
                    merges.extend(attr(&e, b"ref").and_then(|r| Merge::from_ref(r.as_bytes())))
                }
                b"row" => {
                    row = Some(
                        attr(&e, b"r")
                            .and_then(|r| r.parse::<u32>().ok())
                            .and_then(|r| r.checked_sub(1))
                            .unwrap_or_else(|| row.map_or(0, |r| r + 1)),
                    );
                    next_col = 0;
                }
                b"c" => {
                    let mut pos = None;
                    let mut style = None;
                    let mut numeric = true;
                    for a in e.attributes().flatten() {
                        match a.key.local_name().as_ref() {
                            b"r" => pos = cell_ref(&a.value),
                            b"s" => {
                                style = std::str::from_utf8(&a.value)
                                    .ok()
                                    .and_then(|v| v.parse::<usize>().ok())
                            }
                            b"t" => numeric = matches!(a.value.as_ref(), b"n" | b"d"),
                            _ => {}
                        }
                    }
                    let pos = pos.or_else(|| row.map(|r| (r, next_col)));
                    if let Some((_, col)) = pos {
                        next_col = col.saturating_add(1);
                    }
                    // an empty element (a styled cell without a value) holds nothing
                    value_at = pos.filter(|_| start);
                    if let (true, Some(pos), Some(Some(f))) =
                        (numeric, pos, style.and_then(|s| xf_formats.get(s)))
                    {
                        cells.insert(pos, *f);
                    }
                }
                _ => {}
            },
            Ok(Event::Eof) => break,
            Err(_) => break, // calamine reports damaged sheets
            _ => {}
        }
    }
    if let Some((rows, cols)) = span.size() {
        if rows.saturating_mul(cols) > limits.max_sheet_cells {
            return Err(Error::limit(format!(
                "Sheet \"{name}\" spans {rows} rows by {cols} columns, more than the limit of {} cells.",
                limits.max_sheet_cells
            )));
        }
    }
    merges.sort_by_key(|m| m.top);
    Ok((cells, merges))
}

/// The `mergeCell` ranges of the sheet XML from a point inside its `mergeCells` element.
fn merged_ranges(xml: &[u8]) -> Vec<Merge> {
    let mut out = Vec::new();
    let mut reader = Reader::from_reader(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e))
                if e.local_name().as_ref() == b"mergeCell" =>
            {
                out.extend(attr(&e, b"ref").and_then(|r| Merge::from_ref(r.as_bytes())));
            }
            Ok(Event::End(e)) if e.local_name().as_ref() == b"mergeCells" => break,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}

/// The rectangle (top, left, bottom, right) of the cells holding a value, read from the
/// sheet XML's bytes without a parser (a tenth of the time of one): each `c` element (any
/// prefix) that is not empty, at its `r` reference or after the cell before it, in rows
/// placed the same way. `<c r="XFD1" s="3"/>`, a styled cell without a value, widens nothing.
fn value_span(xml: &[u8]) -> Span {
    let mut span = Span::default();
    let mut row: Option<u32> = None;
    let mut next_col = 0u32;
    for lt in memchr::memchr_iter(b'<', xml) {
        let rest = &xml[lt + 1..];
        let name_end = rest
            .iter()
            .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        let local = name.rsplit(|&b| b == b':').next().unwrap_or(name);
        if local != b"c" && local != b"row" {
            continue;
        }
        let Some(gt) = memchr::memchr(b'>', rest) else {
            break;
        };
        let tag = &rest[name_end..gt];
        let r = tag_attr(tag, b"r");
        if local == b"row" {
            row = Some(
                r.and_then(|v| std::str::from_utf8(v).ok()?.parse::<u32>().ok())
                    .and_then(|r| r.checked_sub(1))
                    .unwrap_or_else(|| row.map_or(0, |r| r + 1)),
            );
            next_col = 0;
            continue;
        }
        let pos = r.and_then(cell_ref).or_else(|| row.map(|r| (r, next_col)));
        if let Some((_, col)) = pos {
            next_col = col.saturating_add(1);
        }
        if let (Some((r, c)), false) = (pos, tag.ends_with(b"/")) {
            span.add(r, c);
        }
    }
    span
}

/// The value of attribute `name` (unprefixed) in a start tag's attribute bytes.
fn tag_attr<'a>(tag: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let mut at = 0;
    while let Some(i) = memchr::memmem::find(&tag[at..], name) {
        let start = at + i;
        at = start + name.len();
        let before = start.checked_sub(1).map(|b| tag[b]);
        if !before.is_some_and(|b| b.is_ascii_whitespace()) || tag.get(at) != Some(&b'=') {
            continue;
        }
        let quote = *tag.get(at + 1)?;
        if quote != b'"' && quote != b'\'' {
            continue;
        }
        let value = &tag[at + 2..];
        return Some(&value[..memchr::memchr(quote, value)?]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_of_a_sheets_values_is_read_from_its_bytes() {
        let xml = br#"<sheetData><row r="2"><c r="B2"><v>1</v></c><c s="1"><v>2</v></c><c r="XFD2" s="3"/></row><row><x:c t="s" r='A5'><x:v>0</x:v></x:c><cols/></row></sheetData>"#;
        assert_eq!(value_span(xml).bounds(), Some((1, 0, 4, 2)));
        assert_eq!(value_span(b"<sheetData/>").bounds(), None);
        assert_eq!(tag_attr(b" s=\"1\" r=\"C3\"", b"r"), Some(&b"C3"[..]));
        assert_eq!(tag_attr(b" xr=\"C3\"", b"r"), None);
    }

    #[test]
    fn parses_cell_refs() {
        assert_eq!(cell_ref(b"A1"), Some((0, 0)));
        assert_eq!(cell_ref(b"B4"), Some((3, 1)));
        assert_eq!(cell_ref(b"AA10"), Some((9, 26)));
        assert_eq!(cell_ref(b"1"), None);
        assert_eq!(cell_ref(b"A0"), None);
    }

    #[test]
    fn drawings_give_their_shapes_text_and_smartart_ids() {
        // A text box of two paragraphs (runs split, a line break), a shape stored twice for
        // older readers (only its choice is read), a picture without text and a SmartArt
        // frame; as Excel writes them.
        let xml = br#"<xdr:wsDr xmlns:xdr="x" xmlns:a="a" xmlns:mc="m" xmlns:dgm="d" xmlns:r="r">
<xdr:twoCellAnchor><xdr:sp><xdr:txBody><a:bodyPr/><a:p><a:r><a:t>Dis</a:t></a:r><a:r><a:t>claimer</a:t></a:r></a:p><a:p><a:r><a:t>Line one</a:t></a:r><a:br/><a:r><a:t>line two</a:t></a:r></a:p><a:p/></xdr:txBody></xdr:sp></xdr:twoCellAnchor>
<mc:AlternateContent><mc:Choice Requires="a14"><xdr:twoCellAnchor><xdr:sp><xdr:txBody><a:p><a:r><a:t>Calculate</a:t></a:r></a:p></xdr:txBody></xdr:sp></xdr:twoCellAnchor></mc:Choice><mc:Fallback><xdr:twoCellAnchor><xdr:sp><xdr:txBody><a:p><a:r><a:t>Calculate</a:t></a:r></a:p></xdr:txBody></xdr:sp></xdr:twoCellAnchor></mc:Fallback></mc:AlternateContent>
<xdr:twoCellAnchor><xdr:pic><xdr:nvPicPr><xdr:cNvPr id="3" name="Picture 2"/></xdr:nvPicPr></xdr:pic></xdr:twoCellAnchor>
<xdr:twoCellAnchor><xdr:graphicFrame><a:graphic><a:graphicData><dgm:relIds r:dm="rId7" r:lo="rId8"/></a:graphicData></a:graphic></xdr:graphicFrame></xdr:twoCellAnchor>
</xdr:wsDr>"#;
        let mut out = Vec::new();
        let diagrams = drawing_text(xml, &mut out);
        assert_eq!(diagrams, ["rId7"]);
        assert_eq!(
            out,
            [
                Block::text("Disclaimer"),
                Block::text("Line one line two"),
                Block::text("Calculate")
            ]
        );
    }
}
