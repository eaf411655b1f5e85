//! Spreadsheets and CSV to quire's document model.
//!
//! Workbooks (XLSX, XLSM, XLSB, XLS, ODS) are read with calamine; each sheet becomes one
//! `Part::sheet` holding one [`quire_plugin_api::Grid`] of display strings per separate table
//! on the sheet ([`regions`]; the first row of each is its header), or nothing when the sheet
//! is empty. CSV is never split: it is one table by definition. Cells are shown as a person reads them, which
//! needs the number formats calamine does not expose, so [`xlsx`] and [`xls`] read those
//! separately and [`numfmt`] renders them. CSV/TSV is parsed by [`csv`].

mod cell;
mod comments;
mod csv;
mod merges;
mod ods;
mod regions;
mod span;
mod workbook;
mod xls;
mod xlsb;
mod xlsx;

use quire_plugin_api::{
    register_converter, text, Block, Context, Converter, ConverterDescriptor, Document,
    DocumentKind, Error, Input, Part, PluginConfig, Result,
};

const MIME_XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const MIME_XLSM: &str = "application/vnd.ms-excel.sheet.macroEnabled.12";
const MIME_XLSB: &str = "application/vnd.ms-excel.sheet.binary.macroEnabled.12";
const MIME_XLS: &str = "application/vnd.ms-excel";
const MIME_ODS: &str = "application/vnd.oasis.opendocument.spreadsheet";
const MIME_CSV: &str = "text/csv";

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "spreadsheet",
    name: "Spreadsheets (XLSX, XLSM, XLSB, XLS, ODS) and CSV",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &[
        MIME_XLSX, MIME_XLSM, MIME_XLSB, MIME_XLS, MIME_ODS, MIME_CSV,
    ],
    extensions: &["xlsx", "xlsm", "xlsb", "xls", "ods", "csv", "tsv"],
    factory,
};

register_converter!(DESCRIPTOR);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(SpreadsheetConverter))
}

/// The converter; it holds no state.
#[derive(Debug, Default, Clone, Copy)]
pub struct SpreadsheetConverter;

impl Converter for SpreadsheetConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        let bytes = input.bytes;
        let is_zip = bytes.starts_with(b"PK\x03\x04");
        let is_ole = bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]);
        let kind = match input.mime {
            MIME_CSV => None,
            MIME_XLS if is_zip => Some(zip_kind(bytes)),
            MIME_XLS => Some(workbook::Kind::Xls),
            MIME_XLSB => Some(workbook::Kind::Xlsb),
            MIME_ODS => Some(workbook::Kind::Ods),
            _ if is_ole
                && input.mime != MIME_CSV
                && !workbook::has_stream(bytes, "EncryptedPackage") =>
            {
                Some(workbook::Kind::Xls)
            }
            _ if is_zip => Some(zip_kind(bytes)),
            MIME_XLSX | MIME_XLSM => Some(workbook::Kind::Xlsx),
            _ => None,
        };
        match kind {
            Some(kind) => workbook::convert(bytes, kind, ctx),
            None => convert_csv(input, ctx),
        }
    }
}

/// Which ZIP-based workbook this is, by its parts (names from the central directory).
fn zip_kind(bytes: &[u8]) -> workbook::Kind {
    let names: Vec<String> = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map(|z| z.file_names().map(str::to_owned).collect())
        .unwrap_or_default();
    let has = |name: &str| names.iter().any(|n| n.eq_ignore_ascii_case(name));
    if has("xl/workbook.bin") {
        workbook::Kind::Xlsb
    } else if has("content.xml") && !has("xl/workbook.xml") {
        workbook::Kind::Ods
    } else {
        workbook::Kind::Xlsx
    }
}

fn convert_csv(input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
    ctx.check()?;
    if input.bytes.starts_with(b"PK\x03\x04") || input.bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0])
    {
        return Err(Error::malformed(
            "The file is not CSV text: it looks like a binary (office or archive) file.",
        ));
    }
    // valid UTF-8 without a BOM is parsed in place: no second copy of the input
    let decoded;
    let (text, encoding) = match std::str::from_utf8(input.bytes) {
        Ok(s) if !s.starts_with('\u{feff}') && text::wide_encoding(input.bytes).is_none() => {
            (s, "UTF-8")
        }
        _ => {
            decoded = text::decode(input.bytes, None);
            (decoded.text.as_str(), decoded.encoding)
        }
    };
    let lower = input.file_name.to_ascii_lowercase();
    let delim = csv::sniff(text, lower.ends_with(".tsv") || lower.ends_with(".tab"));
    let grid = csv::to_grid(text, delim, ctx)?;
    if grid.text_len() as u64 > ctx.limits.max_output_bytes {
        return Err(Error::limit(
            "The CSV file's text is larger than the output limit.",
        ));
    }
    let mut doc = Document::new(DocumentKind::Spreadsheet, "CSV File");
    doc.metadata
        .extra
        .insert("encoding".into(), encoding.into());
    doc.metadata
        .extra
        .insert("delimiter".into(), csv::delimiter_name(delim).into());
    let stem = input
        .file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or_default();
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    let mut part = Part::sheet(1, if stem.is_empty() { "Sheet1" } else { stem });
    if !grid.is_empty() {
        part.blocks.push(Block::Grid(Box::new(grid)));
    }
    doc.parts.push(part);
    ctx.progress(1, 1);
    Ok(doc)
}
