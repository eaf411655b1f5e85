//! Shared by the office plugins (docx, pptx, spreadsheet): reading ZIP containers under limits,
//! OOXML relationships, core properties, DrawingML chart parts ([`chart`]), Excel number
//! formats ([`numfmt`], for sheet cells and chart points alike), SmartArt diagram data
//! ([`diagram`]), Office Math ([`omml`]) and Equation Editor 3.0 formulas ([`mtef`]).
//!
//! Every byte read from an archive goes through [`SafeZip::read`], which counts bytes actually
//! inflated (not the sizes the archive declares, which an attacker controls) against a total
//! budget and a per-entry compression-ratio cap. XML is read with quick-xml, which never
//! processes DTDs or expands entities beyond the five predefined ones.

pub mod chart;
pub mod diagram;
pub mod embedded;
pub mod mtef;
pub mod numfmt;
pub mod omml;

use quick_xml::events::Event;
use quick_xml::Reader;
use quire_plugin_api::{Error, Limits, Result};
use std::collections::HashMap;
use std::io::{Cursor, Read};

/// A ZIP archive opened under [`Limits`].
pub struct SafeZip<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    names: Vec<String>,
    inflated_total: u64,
    max_total: u64,
    max_ratio: u64,
    what: &'static str,
}

impl<'a> SafeZip<'a> {
    /// Opens `bytes` as a ZIP container. `what` names the format in error messages ("DOCX").
    pub fn open(bytes: &'a [u8], limits: &Limits, what: &'static str) -> Result<Self> {
        if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
            return Err(Error::encrypted(format!(
                "The {what} file is password-protected (encrypted); remove the password and try again."
            )));
        }
        let archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
            Error::malformed(format!(
                "The file is not a valid {what}: its ZIP container cannot be read."
            ))
            .with_detail(e)
        })?;
        if archive.len() as u64 > u64::from(limits.max_archive_entries) {
            return Err(Error::limit(format!(
                "The {what} file holds {} parts, more than the limit of {}.",
                archive.len(),
                limits.max_archive_entries
            )));
        }
        let names = archive.file_names().map(str::to_owned).collect();
        Ok(SafeZip {
            archive,
            names,
            inflated_total: 0,
            max_total: limits.max_inflated_bytes,
            max_ratio: u64::from(limits.max_compression_ratio.max(1)),
            what,
        })
    }

    /// Entry names as stored.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The stored name matching `name` exactly, or else case-insensitively (some producers
    /// write `[Content_Types].xml` parts with differing case), or else with `\` for `/` (some
    /// Windows tools store `xl\workbook.xml`, which Excel opens).
    pub fn find(&self, name: &str) -> Option<&str> {
        let name = name.trim_start_matches('/');
        let same = |n: &str| {
            n.len() == name.len()
                && n.bytes()
                    .zip(name.bytes())
                    .all(|(a, b)| a.eq_ignore_ascii_case(&b) || (a == b'\\' && b == b'/'))
        };
        self.names
            .iter()
            .find(|n| *n == name)
            .or_else(|| self.names.iter().find(|n| n.eq_ignore_ascii_case(name)))
            .or_else(|| self.names.iter().find(|n| same(n)))
            .map(String::as_str)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Bytes inflated so far from this archive.
    pub fn inflated_total(&self) -> u64 {
        self.inflated_total
    }

    /// Reads an entry whole, or `None` when it does not exist.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(stored) = self.find(name).map(str::to_owned) else {
            return Ok(None);
        };
        let what = self.what;
        let mut entry = self.archive.by_name(&stored).map_err(|e| {
            if matches!(e, zip::result::ZipError::UnsupportedArchive(m) if m.contains("ncrypt") || m.contains("assword"))
            {
                Error::encrypted(format!("The {what} file is password-protected (encrypted)."))
            } else {
                Error::malformed(format!("The {what} file is damaged: part {stored} cannot be read."))
                    .with_detail(e)
            }
        })?;
        if entry.encrypted() {
            return Err(Error::encrypted(format!(
                "The {what} file is password-protected (encrypted)."
            )));
        }
        let compressed = entry.compressed_size().max(1);
        let entry_cap = compressed.saturating_mul(self.max_ratio).max(1 << 20);
        let budget = self.max_total.saturating_sub(self.inflated_total);
        let cap = entry_cap.min(budget);
        let mut out = Vec::with_capacity(entry.size().min(cap).min(64 << 20) as usize);
        let read = (&mut entry)
            .take(cap + 1)
            .read_to_end(&mut out)
            .map_err(|e| {
                Error::malformed(format!(
                    "The {what} file is damaged: part {stored} does not decompress."
                ))
                .with_detail(e)
            })? as u64;
        if read > cap {
            return Err(if read > budget {
                Error::limit(format!(
                    "The {what} file decompresses to more than {} MB, over the limit.",
                    self.max_total >> 20
                ))
            } else {
                Error::limit(format!(
                    "The {what} file looks like a decompression bomb: part {stored} expands more than {}x.",
                    self.max_ratio
                ))
            });
        }
        self.inflated_total += read;
        let lower = stored.to_ascii_lowercase();
        if (lower.ends_with(".xml") || lower.ends_with(".rels")) && declares_dtd(&out) {
            return Err(Error::malformed(format!(
                "The {what} file is malformed: its part {stored} declares a DTD, which Office \
                 files never do (a DTD can define entities that expand without bound)."
            )));
        }
        Ok(Some(out))
    }

    /// Reads an entry as UTF-8 text (a leading BOM removed), or `None` when it does not exist.
    pub fn read_string(&mut self, name: &str) -> Result<Option<String>> {
        let what = self.what;
        match self.read(name)? {
            None => Ok(None),
            Some(bytes) => {
                let bytes = bytes
                    .strip_prefix(b"\xEF\xBB\xBF")
                    .unwrap_or(&bytes)
                    .to_vec();
                String::from_utf8(bytes).map(Some).map_err(|_| {
                    Error::malformed(format!(
                        "The {what} file is damaged: part {name} is not UTF-8 text."
                    ))
                })
            }
        }
    }
}

/// Whether an XML part's prolog holds a document type declaration (and so possibly entity
/// declarations: a "billion laughs" part). Only the prolog is looked at: after the first
/// element, `<!DOCTYPE` can only be text inside CDATA or a comment.
fn declares_dtd(xml: &[u8]) -> bool {
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let mut i = if xml.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    loop {
        while i < xml.len() && xml[i].is_ascii_whitespace() {
            i += 1;
        }
        let rest = &xml[i..];
        let end = if rest.starts_with(b"<?") {
            find(rest, b"?>").map(|e| e + 2)
        } else if rest.starts_with(b"<!--") {
            find(rest, b"-->").map(|e| e + 3)
        } else {
            return rest.starts_with(b"<!DOCTYPE") || rest.starts_with(b"<!ENTITY");
        };
        match end {
            Some(e) => i += e,
            None => return false,
        }
    }
}

/// One relationship from a `.rels` part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relationship {
    pub id: String,
    /// The relationship type URI's last segment ("image", "hyperlink", "slide", ...).
    pub kind: String,
    /// For internal targets, the resolved part name ("word/media/image1.png"); for external
    /// ones, the target as written (a URL). External targets are never fetched.
    pub target: String,
    pub external: bool,
}

/// Whether an `mc:Choice` whose `Requires` attribute lists these namespace prefixes holds
/// content the office plugins read. Office writes content newer than the format's first
/// version as a Choice followed by an `mc:Fallback` that older readers show instead (for the
/// kinds below, a picture of it); a reader must skip a Choice that needs a namespace it does
/// not understand. Refused: ink (`aink`) and 3D models (`am3d`), which have no readable text
/// of their own. The prefixes are those Office declares for these namespaces; everything
/// else (text boxes `wps`, groups, canvases, chart-extension charts `cx1`…, which
/// [`chart::read`] reads, `a14` …) is read from the Choice.
pub fn reads_choice(requires: &str) -> bool {
    !requires
        .split_whitespace()
        .any(|prefix| matches!(prefix, "aink" | "am3d"))
}

/// The `.rels` part name for a part: `word/document.xml` → `word/_rels/document.xml.rels`.
pub fn rels_path(part: &str) -> String {
    match part.rfind('/') {
        Some(i) => format!("{}/_rels/{}.rels", &part[..i], &part[i + 1..]),
        None => format!("_rels/{part}.rels"),
    }
}

/// Resolves a relationship target against the part that owns it.
pub fn resolve_target(source_part: &str, target: &str) -> String {
    if let Some(abs) = target.strip_prefix('/') {
        return normalize(abs);
    }
    let base = match source_part.rfind('/') {
        Some(i) => &source_part[..i],
        None => "",
    };
    if base.is_empty() {
        normalize(target)
    } else {
        normalize(&format!("{base}/{target}"))
    }
}

fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// Reads the relationships of `part` (empty when it has none), keyed by id.
pub fn relationships(zip: &mut SafeZip<'_>, part: &str) -> Result<HashMap<String, Relationship>> {
    let mut out = HashMap::new();
    let Some(xml) = zip.read(&rels_path(part))? else {
        return Ok(out);
    };
    let mut reader = Reader::from_reader(xml.as_slice());
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) | Ok(Event::Empty(e))
                if e.local_name().as_ref() == b"Relationship" =>
            {
                let mut id = String::new();
                let mut kind = String::new();
                let mut target = String::new();
                let mut external = false;
                for attr in e.attributes().flatten() {
                    let value = attr
                        .unescape_value()
                        .map(|v| v.into_owned())
                        .unwrap_or_default();
                    match attr.key.local_name().as_ref() {
                        b"Id" => id = value,
                        b"Type" => kind = value.rsplit('/').next().unwrap_or_default().to_owned(),
                        b"Target" => target = value,
                        b"TargetMode" => external = value.eq_ignore_ascii_case("External"),
                        _ => {}
                    }
                }
                if !external {
                    target = resolve_target(part, &target);
                }
                out.insert(
                    id.clone(),
                    Relationship {
                        id,
                        kind,
                        target,
                        external,
                    },
                );
            }
            Ok(Event::Eof) => break,
            Err(_) => break, // a damaged .rels part loses its links, not the document
            _ => {}
        }
        buf.clear();
    }
    Ok(out)
}

/// Core properties (`docProps/core.xml`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoreProperties {
    pub title: Option<String>,
    pub subject: Option<String>,
    pub creator: Option<String>,
    pub created: Option<String>,
    pub modified: Option<String>,
    pub last_modified_by: Option<String>,
}

/// Reads `docProps/core.xml` (or the part the package relationships name). Missing or damaged
/// properties give empty fields, never an error: they are not worth failing a document for.
pub fn core_properties(zip: &mut SafeZip<'_>) -> CoreProperties {
    let part = relationships(zip, "")
        .ok()
        .and_then(|rels| {
            rels.into_values()
                .find(|r| r.kind == "core-properties")
                .map(|r| r.target)
        })
        .unwrap_or_else(|| "docProps/core.xml".to_owned());
    let Ok(Some(xml)) = zip.read(&part) else {
        return CoreProperties::default();
    };
    let mut props = CoreProperties::default();
    let mut reader = Reader::from_reader(xml.as_slice());
    let mut buf = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => current = Some(e.local_name().as_ref().to_vec()),
            Ok(Event::Text(t)) => {
                if let (Some(name), Ok(text)) = (&current, t.unescape()) {
                    let text = text.trim();
                    if !text.is_empty() {
                        let slot = match name.as_slice() {
                            b"title" => &mut props.title,
                            b"subject" => &mut props.subject,
                            b"creator" => &mut props.creator,
                            b"created" => &mut props.created,
                            b"modified" => &mut props.modified,
                            b"lastModifiedBy" => &mut props.last_modified_by,
                            _ => {
                                buf.clear();
                                continue;
                            }
                        };
                        *slot = Some(text.to_owned());
                    }
                }
            }
            Ok(Event::End(_)) => current = None,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
        buf.clear();
    }
    props
}

#[cfg(test)]
mod tests {
    #[test]
    fn choices_needing_unread_namespaces_are_refused() {
        assert!(super::reads_choice("wps"));
        assert!(super::reads_choice("a14 wpg"));
        assert!(super::reads_choice(""));
        assert!(super::reads_choice("cx1"));
        assert!(!super::reads_choice("wps aink"));
        assert!(!super::reads_choice("am3d"));
    }

    use super::*;
    use std::io::Write;

    fn make_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn parts_stored_with_backslashes_are_found() {
        // calamine's issue 530: a workbook whose every entry is named `xl\\workbook.xml`
        let bytes = make_zip(&[
            ("_rels\\.rels", b"<Relationships/>".as_slice()),
            ("xl\\Workbook.xml", b"<workbook/>".as_slice()),
        ]);
        let mut zip = SafeZip::open(&bytes, &Limits::default(), "XLSX").unwrap();
        assert_eq!(zip.find("/_rels/.rels"), Some("_rels\\.rels"));
        assert_eq!(
            zip.read("xl/workbook.xml").unwrap().as_deref(),
            Some(b"<workbook/>".as_slice())
        );
        assert!(zip.find("xl/workbook.xm").is_none());
    }

    #[test]
    fn a_part_that_declares_a_dtd_is_malformed() {
        let laughs = b"<?xml version=\"1.0\"?>\n<!-- lol -->\n<!DOCTYPE lolz [\n\
            <!ENTITY lol \"lol\">\n<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n]>\n\
            <w:document><w:body><w:p><w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>";
        let plain = b"<?xml version=\"1.0\"?><w:document><w:body><w:p><w:r>\
            <w:t><![CDATA[<!DOCTYPE is text here]]></w:t></w:r></w:p></w:body></w:document>";
        let bytes = make_zip(&[
            ("word/document.xml", laughs.as_slice()),
            ("word/styles.xml", plain.as_slice()),
            ("word/media/a.bin", b"<!DOCTYPE not xml>".as_slice()),
        ]);
        let mut zip = SafeZip::open(&bytes, &Limits::default(), "DOCX").unwrap();
        let err = zip.read("word/document.xml").unwrap_err();
        assert_eq!(err.kind(), quire_plugin_api::ErrorKind::Malformed);
        assert!(
            err.message().contains("declares a DTD"),
            "{}",
            err.message()
        );
        assert!(zip.read("word/styles.xml").unwrap().is_some());
        assert!(zip.read("word/media/a.bin").unwrap().is_some());
    }

    #[test]
    fn resolves_targets() {
        assert_eq!(
            rels_path("word/document.xml"),
            "word/_rels/document.xml.rels"
        );
        assert_eq!(rels_path(""), "_rels/.rels");
        assert_eq!(
            resolve_target("word/document.xml", "media/a.png"),
            "word/media/a.png"
        );
        assert_eq!(
            resolve_target("ppt/slides/slide1.xml", "../media/a.png"),
            "ppt/media/a.png"
        );
        assert_eq!(
            resolve_target("ppt/slides/slide1.xml", "/ppt/x.xml"),
            "ppt/x.xml"
        );
    }

    #[test]
    fn reads_relationships_and_core() {
        let rels = br#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://x/officeDocument/2006/relationships/image" Target="media/image1.png"/>
<Relationship Id="rId2" Type="http://x/hyperlink" Target="https://example.com/a?b&amp;c" TargetMode="External"/></Relationships>"#;
        let core = br#"<cp:coreProperties xmlns:cp="c" xmlns:dc="d" xmlns:dcterms="t"><dc:title>T &amp; U</dc:title><dc:creator>Ann</dc:creator><dcterms:created>2024-01-02T03:04:05Z</dcterms:created></cp:coreProperties>"#;
        let bytes = make_zip(&[
            ("word/_rels/document.xml.rels", rels),
            ("docProps/core.xml", core),
        ]);
        let mut z = SafeZip::open(&bytes, &Limits::default(), "DOCX").unwrap();
        let r = relationships(&mut z, "word/document.xml").unwrap();
        assert_eq!(r["rId1"].target, "word/media/image1.png");
        assert_eq!(r["rId1"].kind, "image");
        assert!(r["rId2"].external);
        assert_eq!(r["rId2"].target, "https://example.com/a?b&c");
        let p = core_properties(&mut z);
        assert_eq!(p.title.as_deref(), Some("T & U"));
        assert_eq!(p.creator.as_deref(), Some("Ann"));
        assert_eq!(p.created.as_deref(), Some("2024-01-02T03:04:05Z"));
    }

    #[test]
    fn refuses_bombs_and_garbage() {
        let big = vec![b'a'; 20 << 20];
        let bytes = make_zip(&[("big.xml", &big)]);
        let limits = Limits {
            max_compression_ratio: 100,
            ..Limits::default()
        };
        let mut z = SafeZip::open(&bytes, &limits, "XLSX").unwrap();
        let err = z.read("big.xml").unwrap_err();
        assert_eq!(err.kind(), quire_plugin_api::ErrorKind::LimitExceeded);
        let limits = Limits {
            max_inflated_bytes: 1 << 20,
            ..Limits::default()
        };
        let mut z = SafeZip::open(&bytes, &limits, "XLSX").unwrap();
        assert!(z.read("big.xml").is_err());
        let err = SafeZip::open(b"not a zip", &Limits::default(), "DOCX")
            .err()
            .unwrap();
        assert_eq!(err.kind(), quire_plugin_api::ErrorKind::Malformed);
        assert!(err.message().contains("not a valid DOCX"));
    }
}
