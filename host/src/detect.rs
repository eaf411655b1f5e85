//! MIME detection from content first, the file name second.
//!
//! Order: magic bytes (PDF, PNG, JPEG, GIF, BMP, WebP, TIFF, RTF); ZIP containers told apart by
//! the main part named in `[Content_Types].xml` (or the ODF `mimetype` entry); OLE2 containers
//! by their streams (a workbook is XLS, an `EncryptedPackage` is an encrypted OOXML file);
//! then, only for bytes that are text, the text-like type by extension, or by a look at the
//! content when the extension is not a text type. A file whose extension lies is routed by
//! its content.

use quire_plugin_api::text::looks_like_text;
use std::fmt;
use std::io::{Cursor, Read};
use std::path::Path;

/// MIME types the detector emits for the office families.
pub mod mime {
    pub const PDF: &str = "application/pdf";
    pub const DOCX: &str =
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    pub const PPTX: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.presentation";
    pub const PPTM: &str = "application/vnd.ms-powerpoint.presentation.macroEnabled.12";
    pub const POTX: &str = "application/vnd.openxmlformats-officedocument.presentationml.template";
    pub const POTM: &str = "application/vnd.ms-powerpoint.template.macroEnabled.12";
    pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
    pub const XLSM: &str = "application/vnd.ms-excel.sheet.macroEnabled.12";
    pub const XLSB: &str = "application/vnd.ms-excel.sheet.binary.macroEnabled.12";
    pub const XLS: &str = "application/vnd.ms-excel";
    pub const ODS: &str = "application/vnd.oasis.opendocument.spreadsheet";
    pub const CSV: &str = "text/csv";
    pub const TXT: &str = "text/plain";
    pub const MD: &str = "text/markdown";
    pub const HTML: &str = "text/html";
    pub const XML: &str = "application/xml";
    pub const JSON: &str = "application/json";
    pub const RTF: &str = "application/rtf";
    pub const PNG: &str = "image/png";
    pub const JPEG: &str = "image/jpeg";
    pub const GIF: &str = "image/gif";
    pub const BMP: &str = "image/bmp";
    pub const WEBP: &str = "image/webp";
    pub const TIFF: &str = "image/tiff";
}

/// What the detector found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detected {
    pub mime: &'static str,
    /// Short upper-case type name ("PDF", "DOCX", ...).
    pub label: &'static str,
    /// The container is encrypted (an OOXML file inside an OLE2 `EncryptedPackage`).
    pub encrypted: bool,
}

impl Detected {
    const fn new(mime: &'static str, label: &'static str) -> Detected {
        Detected {
            mime,
            label,
            encrypted: false,
        }
    }
}

/// Nothing quire converts: `what` says what the bytes appear to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectError {
    pub what: String,
}

impl fmt::Display for DetectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for DetectError {}

fn unsupported(what: impl Into<String>) -> DetectError {
    DetectError { what: what.into() }
}

/// Every type the detector can name, by extension (lower case), for listings.
pub const TYPES: &[(&str, Detected)] = &[
    ("pdf", Detected::new(mime::PDF, "PDF")),
    ("docx", Detected::new(mime::DOCX, "DOCX")),
    ("pptx", Detected::new(mime::PPTX, "PPTX")),
    ("pptm", Detected::new(mime::PPTM, "PPTM")),
    ("potx", Detected::new(mime::POTX, "POTX")),
    ("potm", Detected::new(mime::POTM, "POTM")),
    ("xlsx", Detected::new(mime::XLSX, "XLSX")),
    ("xlsm", Detected::new(mime::XLSM, "XLSM")),
    ("xlsb", Detected::new(mime::XLSB, "XLSB")),
    ("xls", Detected::new(mime::XLS, "XLS")),
    ("ods", Detected::new(mime::ODS, "ODS")),
    ("csv", Detected::new(mime::CSV, "CSV")),
    ("tsv", Detected::new(mime::CSV, "CSV")),
    ("txt", Detected::new(mime::TXT, "TXT")),
    ("text", Detected::new(mime::TXT, "TXT")),
    ("log", Detected::new(mime::TXT, "TXT")),
    ("md", Detected::new(mime::MD, "MD")),
    ("markdown", Detected::new(mime::MD, "MD")),
    ("html", Detected::new(mime::HTML, "HTML")),
    ("htm", Detected::new(mime::HTML, "HTML")),
    ("xhtml", Detected::new(mime::HTML, "HTML")),
    ("xml", Detected::new(mime::XML, "XML")),
    ("json", Detected::new(mime::JSON, "JSON")),
    ("rtf", Detected::new(mime::RTF, "RTF")),
    ("png", Detected::new(mime::PNG, "PNG")),
    ("jpg", Detected::new(mime::JPEG, "JPG")),
    ("jpeg", Detected::new(mime::JPEG, "JPG")),
    ("gif", Detected::new(mime::GIF, "GIF")),
    ("bmp", Detected::new(mime::BMP, "BMP")),
    ("webp", Detected::new(mime::WEBP, "WEBP")),
    ("tif", Detected::new(mime::TIFF, "TIFF")),
    ("tiff", Detected::new(mime::TIFF, "TIFF")),
];

fn by_extension(file_name: &str) -> Option<Detected> {
    let ext = Path::new(file_name)
        .extension()?
        .to_str()?
        .to_ascii_lowercase();
    TYPES.iter().find(|(e, _)| *e == ext).map(|(_, d)| *d)
}

fn by_mime(mime: &str) -> Detected {
    TYPES
        .iter()
        .find(|(_, d)| d.mime == mime)
        .map(|(_, d)| *d)
        .unwrap_or(Detected::new(mime::TXT, "TXT"))
}

/// How many leading bytes [`detect`] needs at most, apart from ZIP and OLE2 containers,
/// which are read whole.
pub const SNIFF_LEN: usize = 64 * 1024;

/// Detects the type of `bytes` (the whole file for containers; at least [`SNIFF_LEN`] bytes
/// otherwise), using `file_name` only to choose among text types.
pub fn detect(bytes: &[u8], file_name: &str) -> Result<Detected, DetectError> {
    if bytes.is_empty() {
        return Err(unsupported("an empty file"));
    }
    if let Some(d) = magic(bytes) {
        return Ok(d);
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return zip_type(bytes, file_name);
    }
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return ole_type(bytes, file_name);
    }
    if looks_like_text(bytes) {
        return Ok(text_type(bytes, file_name));
    }
    Err(unsupported(match by_extension(file_name) {
        Some(d) => format!(
            "binary data that is not a valid {} file (its content matches no supported format)",
            d.label
        ),
        None => "binary data of an unknown format".to_owned(),
    }))
}

/// Detects the type of a file on disk (an upload), reading only what detection needs.
pub fn detect_file(path: &Path, file_name: &str) -> std::io::Result<Result<Detected, DetectError>> {
    let mut file = std::fs::File::open(path)?;
    let mut head = Vec::with_capacity(SNIFF_LEN);
    (&mut file).take(SNIFF_LEN as u64).read_to_end(&mut head)?;
    let container = head.starts_with(b"PK\x03\x04")
        || head.starts_with(b"PK\x05\x06")
        || head.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]);
    if container && head.len() == SNIFF_LEN {
        let all = std::fs::read(path)?;
        return Ok(detect(&all, file_name));
    }
    Ok(detect(&head, file_name))
}

fn magic(b: &[u8]) -> Option<Detected> {
    let head = &b[..b.len().min(1024)];
    if head.windows(5).any(|w| w == b"%PDF-") {
        return Some(Detected::new(mime::PDF, "PDF"));
    }
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(Detected::new(mime::PNG, "PNG"));
    }
    if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(Detected::new(mime::JPEG, "JPG"));
    }
    if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        return Some(Detected::new(mime::GIF, "GIF"));
    }
    if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        return Some(Detected::new(mime::WEBP, "WEBP"));
    }
    if b.starts_with(b"II*\0") || b.starts_with(b"MM\0*") || b.starts_with(b"II+\0") {
        return Some(Detected::new(mime::TIFF, "TIFF"));
    }
    if b.len() >= 18 && b.starts_with(b"BM") {
        // The DIB header size distinguishes a bitmap from text that starts with "BM".
        let dib = u32::from_le_bytes([b[14], b[15], b[16], b[17]]);
        if matches!(dib, 12 | 16 | 40 | 52 | 56 | 64 | 108 | 124) {
            return Some(Detected::new(mime::BMP, "BMP"));
        }
    }
    let trimmed = skip_bom_and_space(b);
    if trimmed.starts_with(b"{\\rtf") {
        return Some(Detected::new(mime::RTF, "RTF"));
    }
    None
}

fn skip_bom_and_space(b: &[u8]) -> &[u8] {
    let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    &b[start..]
}

/// OOXML main-part content types → detected type.
const OOXML_MAIN: &[(&str, &str, &str)] = &[
    ("wordprocessingml.document.main+xml", mime::DOCX, "DOCX"),
    ("wordprocessingml.template.main+xml", mime::DOCX, "DOCX"),
    ("ms-word.document.macroenabled.main+xml", mime::DOCX, "DOCX"),
    (
        "ms-word.template.macroenabledtemplate.main+xml",
        mime::DOCX,
        "DOCX",
    ),
    ("presentationml.presentation.main+xml", mime::PPTX, "PPTX"),
    ("presentationml.slideshow.main+xml", mime::PPTX, "PPTX"),
    (
        "ms-powerpoint.presentation.macroenabled.main+xml",
        mime::PPTM,
        "PPTM",
    ),
    (
        "ms-powerpoint.slideshow.macroenabled.main+xml",
        mime::PPTM,
        "PPTM",
    ),
    ("presentationml.template.main+xml", mime::POTX, "POTX"),
    (
        "ms-powerpoint.template.macroenabled.main+xml",
        mime::POTM,
        "POTM",
    ),
    ("spreadsheetml.sheet.main+xml", mime::XLSX, "XLSX"),
    ("spreadsheetml.template.main+xml", mime::XLSX, "XLSX"),
    ("ms-excel.sheet.macroenabled.main+xml", mime::XLSM, "XLSM"),
    (
        "ms-excel.template.macroenabled.main+xml",
        mime::XLSM,
        "XLSM",
    ),
    (
        "ms-excel.sheet.binary.macroenabled.main",
        mime::XLSB,
        "XLSB",
    ),
];

fn zip_type(bytes: &[u8], file_name: &str) -> Result<Detected, DetectError> {
    let office_by_name = by_extension(file_name).filter(|d| {
        matches!(
            d.label,
            "DOCX" | "PPTX" | "PPTM" | "POTX" | "POTM" | "XLSX" | "XLSM" | "XLSB" | "ODS"
        )
    });
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        // A damaged container (often truncated): the local headers still name its parts, so
        // route it to the family that owns them and let that converter report the damage.
        return damaged_zip_type(bytes)
            .or(office_by_name)
            .ok_or_else(|| unsupported("a damaged ZIP archive"));
    };
    if let Ok(mut entry) = archive.by_name("mimetype") {
        let mut m = String::new();
        if (&mut entry).take(200).read_to_string(&mut m).is_ok() && m.trim() == mime::ODS {
            return Ok(Detected::new(mime::ODS, "ODS"));
        }
    }
    let name = archive
        .file_names()
        .find(|n| n.eq_ignore_ascii_case("[Content_Types].xml"))
        .map(str::to_owned);
    if let Some(name) = name {
        let mut xml = String::new();
        if let Ok(entry) = archive.by_name(&name) {
            let _ = entry.take(1 << 20).read_to_string(&mut xml);
        }
        let lower = xml.to_ascii_lowercase();
        if let Some((_, mime, label)) = OOXML_MAIN.iter().find(|(ct, _, _)| lower.contains(ct)) {
            return Ok(Detected::new(mime, label));
        }
    }
    // No (readable) content-types part: the part names still tell the family apart.
    let names: Vec<String> = archive.file_names().map(str::to_owned).collect();
    if let Some(d) = family_from_names(names.iter().map(String::as_str)) {
        return Ok(d);
    }
    Err(unsupported("a ZIP archive that is not an Office document"))
}

fn family_from_names<'a>(mut names: impl Iterator<Item = &'a str>) -> Option<Detected> {
    names.find_map(|n| {
        if n.starts_with("word/") {
            Some(Detected::new(mime::DOCX, "DOCX"))
        } else if n.starts_with("ppt/") {
            Some(Detected::new(mime::PPTX, "PPTX"))
        } else if n.starts_with("xl/") {
            Some(Detected::new(mime::XLSX, "XLSX"))
        } else {
            None
        }
    })
}

/// Scans local file headers of a ZIP whose central directory is unreadable.
fn damaged_zip_type(bytes: &[u8]) -> Option<Detected> {
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(pos) = find(&bytes[i..], b"PK\x03\x04") {
        let at = i + pos;
        if at + 30 > bytes.len() {
            break;
        }
        let len = u16::from_le_bytes([bytes[at + 26], bytes[at + 27]]) as usize;
        if let Some(name) = bytes.get(at + 30..at + 30 + len) {
            names.push(String::from_utf8_lossy(name).into_owned());
        }
        i = at + 4;
        if names.len() > 64 {
            break;
        }
    }
    family_from_names(names.iter().map(String::as_str))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn ole_type(bytes: &[u8], file_name: &str) -> Result<Detected, DetectError> {
    let Ok(cfb) = cfb::CompoundFile::open(Cursor::new(bytes)) else {
        return match by_extension(file_name) {
            Some(d) if d.label == "XLS" => Ok(d),
            _ => Err(unsupported("a damaged Microsoft Office (OLE2) file")),
        };
    };
    let has = |name: &str| {
        cfb.walk()
            .any(|e| e.is_stream() && e.name().eq_ignore_ascii_case(name))
    };
    if has("EncryptedPackage") {
        let mut d = by_extension(file_name)
            .filter(|d| {
                matches!(
                    d.label,
                    "DOCX" | "PPTX" | "PPTM" | "POTX" | "POTM" | "XLSX" | "XLSM" | "XLSB"
                )
            })
            .unwrap_or(Detected::new(mime::XLSX, "XLSX"));
        d.encrypted = true;
        return Ok(d);
    }
    if has("Workbook") || has("Book") {
        return Ok(Detected::new(mime::XLS, "XLS"));
    }
    if has("WordDocument") {
        return Err(unsupported(
            "a Microsoft Word 97-2003 document (DOC); save it as DOCX",
        ));
    }
    if has("PowerPoint Document") {
        return Err(unsupported(
            "a Microsoft PowerPoint 97-2003 presentation (PPT); save it as PPTX",
        ));
    }
    Err(unsupported(
        "a Microsoft Office (OLE2) file of an unsupported kind",
    ))
}

fn text_type(bytes: &[u8], file_name: &str) -> Detected {
    if let Some(d) = by_extension(file_name) {
        if d.mime.starts_with("text/") || d.mime == mime::XML || d.mime == mime::JSON {
            return d;
        }
    }
    // The extension is missing or not a text type: look at the content.
    let decoded = quire_plugin_api::text::decode(&bytes[..bytes.len().min(4096)], None);
    let head = decoded.text.trim_start();
    let lower: String = head
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") || lower.contains("<html")
    {
        return by_mime(mime::HTML);
    }
    if lower.starts_with("<?xml") || (lower.starts_with('<') && !lower.starts_with("<!--")) {
        return by_mime(mime::XML);
    }
    if (head.starts_with('{') || head.starts_with('['))
        && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
    {
        return by_mime(mime::JSON);
    }
    by_mime(mime::TXT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_with(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        for (name, data) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(data.as_bytes()).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn ct(main: &str) -> String {
        format!(
            r#"<Types><Override PartName="/x/main.xml" ContentType="application/vnd.{main}"/></Types>"#
        )
    }

    #[test]
    fn utf16_and_utf32_text_without_a_bom_is_routed_by_extension() {
        let text = "Name,Value\r\nCrème,12\r\n";
        let utf16le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let utf16be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let utf32le: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        for bytes in [&utf16le, &utf16be, &utf32le] {
            for (name, expected) in [
                ("a.txt", "text/plain"),
                ("a.csv", "text/csv"),
                ("a.md", "text/markdown"),
                ("a.xml", mime::XML),
                ("a.html", mime::HTML),
            ] {
                let got = detect(bytes, name).map(|d| d.mime);
                assert_eq!(
                    got.as_ref().ok().copied(),
                    Some(expected),
                    "{name}: {got:?}"
                );
            }
        }
    }

    #[test]
    fn magic_wins_over_the_extension() {
        assert_eq!(detect(b"%PDF-1.7\n...", "x.docx").unwrap().mime, mime::PDF);
        assert_eq!(
            detect(b"\x89PNG\r\n\x1a\n....", "x.jpg").unwrap().mime,
            mime::PNG
        );
        assert_eq!(detect(b"GIF89a....", "x.png").unwrap().mime, mime::GIF);
        assert_eq!(
            detect(b"{\\rtf1\\ansi hi}", "x.txt").unwrap().mime,
            mime::RTF
        );
        assert_eq!(
            detect(b"RIFF\0\0\0\0WEBPVP8 ", "x").unwrap().mime,
            mime::WEBP
        );
        assert_eq!(detect(b"II*\0\x08\0\0\0", "x").unwrap().mime, mime::TIFF);
    }

    #[test]
    fn ooxml_by_main_part() {
        let cases = [
            (
                "openxmlformats-officedocument.wordprocessingml.document.main+xml",
                mime::DOCX,
            ),
            (
                "openxmlformats-officedocument.presentationml.presentation.main+xml",
                mime::PPTX,
            ),
            (
                "ms-powerpoint.presentation.macroEnabled.main+xml",
                mime::PPTM,
            ),
            (
                "openxmlformats-officedocument.presentationml.template.main+xml",
                mime::POTX,
            ),
            ("ms-powerpoint.template.macroEnabled.main+xml", mime::POTM),
            (
                "openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
                mime::XLSX,
            ),
            ("ms-excel.sheet.macroEnabled.main+xml", mime::XLSM),
        ];
        for (main, want) in cases {
            let z = zip_with(&[("[Content_Types].xml", &ct(main))]);
            assert_eq!(detect(&z, "lies.csv").unwrap().mime, want, "{main}");
        }
        let ods = zip_with(&[("mimetype", mime::ODS)]);
        assert_eq!(detect(&ods, "a.zip").unwrap().mime, mime::ODS);
        let plain = zip_with(&[("readme.txt", "hi")]);
        assert!(detect(&plain, "a.zip").is_err());
    }

    #[test]
    fn damaged_zip_routes_by_part_names() {
        let z = zip_with(&[("word/document.xml", "<w:document/>"), ("a", "b")]);
        let truncated = &z[..z.len() - 30];
        assert_eq!(detect(truncated, "x.bin").unwrap().mime, mime::DOCX);
    }

    #[test]
    fn text_types_by_extension_then_content() {
        assert_eq!(detect(b"# Title\n", "a.md").unwrap().mime, mime::MD);
        assert_eq!(detect(b"a,b\n1,2\n", "a.csv").unwrap().mime, mime::CSV);
        assert_eq!(
            detect(b"<html><p>x</p></html>", "a.txt").unwrap().mime,
            mime::TXT
        );
        assert_eq!(
            detect(b"<html><p>x</p></html>", "a.pdf").unwrap().mime,
            mime::HTML
        );
        assert_eq!(
            detect(b"<?xml version='1.0'?><a/>", "noext").unwrap().mime,
            mime::XML
        );
        assert_eq!(detect(b"{\"a\": 1}", "data").unwrap().mime, mime::JSON);
        assert_eq!(
            detect(b"caf\xe9 au lait", "x.docx").unwrap().mime,
            mime::TXT
        );
        assert_eq!(
            detect(&[0xFF, 0xFE, b'h', 0], "a.txt").unwrap().mime,
            mime::TXT
        );
    }

    #[test]
    fn binary_and_empty_are_unsupported() {
        assert!(detect(b"", "a.txt").is_err());
        let err = detect(b"\x00\x01\x02\x03binary\x00", "a.pptx").unwrap_err();
        assert!(err.what.contains("not a valid PPTX"), "{err}");
    }
}
