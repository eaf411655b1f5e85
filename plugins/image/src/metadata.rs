//! Document properties from a picture's EXIF and XMP blocks: title, author, description,
//! capture date, camera. Both are parsed by hand, bounds-checked, for the handful of fields
//! quire reports (a full EXIF or XML parser would be far larger than the need).

use quire_plugin_api::Metadata;

/// EXIF tags read (ASCII values only).
const IMAGE_DESCRIPTION: u16 = 0x010E;
const MAKE: u16 = 0x010F;
const MODEL: u16 = 0x0110;
const DATE_TIME: u16 = 0x0132;
const ARTIST: u16 = 0x013B;
const EXIF_IFD: u16 = 0x8769;
const DATE_TIME_ORIGINAL: u16 = 0x9003;

/// Fills `meta` from the raw EXIF (TIFF structure, optionally prefixed by `Exif\0\0`) and XMP.
pub fn fill(meta: &mut Metadata, exif: Option<&[u8]>, xmp: Option<&[u8]>) {
    let exif = exif.map(exif_ascii_fields).unwrap_or_default();
    let get = |tag| exif.iter().find(|(t, _)| *t == tag).map(|(_, v)| v.clone());
    let xmp = xmp.map(String::from_utf8_lossy);
    let xmp = xmp.as_deref().unwrap_or("");

    meta.title = xmp_alt(xmp, "dc:title");
    meta.author = xmp_simple(xmp, "pdf:Author")
        .or_else(|| xmp_alt(xmp, "dc:creator"))
        .or_else(|| get(ARTIST));
    let description = xmp_alt(xmp, "dc:description").or_else(|| get(IMAGE_DESCRIPTION));
    if let Some(d) = description {
        meta.extra.insert("description".into(), d.into());
    }
    let original = get(DATE_TIME_ORIGINAL);
    meta.created = original.as_deref().and_then(exif_date_to_iso);
    if let Some(raw) = original {
        // The capture date as the camera wrote it, which is how photo tools show it.
        meta.extra.insert("date_taken".into(), raw.into());
    }
    meta.modified = get(DATE_TIME).as_deref().and_then(exif_date_to_iso);
    let camera = [get(MAKE), get(MODEL)]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    if !camera.is_empty() {
        meta.extra.insert("camera".into(), camera.into());
    }
}

/// "2024:03:14 22:10:00" → "2024-03-14T22:10:00".
fn exif_date_to_iso(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    if b.len() < 19 || b[4] != b':' || b[7] != b':' || b[10] != b' ' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && digits(5..7) && digits(8..10) && digits(11..13)) || raw.starts_with("0000")
    {
        return None;
    }
    Some(format!(
        "{}-{}-{}T{}",
        &raw[0..4],
        &raw[5..7],
        &raw[8..10],
        &raw[11..19]
    ))
}

/// ASCII fields of IFD0 and the EXIF sub-IFD, as (tag, trimmed text).
fn exif_ascii_fields(data: &[u8]) -> Vec<(u16, String)> {
    let tiff = data.strip_prefix(b"Exif\0\0").unwrap_or(data);
    let little = match tiff.get(0..2) {
        Some(b"II") => true,
        Some(b"MM") => false,
        _ => return Vec::new(),
    };
    let r = Reader { data: tiff, little };
    let mut out = Vec::new();
    let Some(ifd0) = r.u32(4) else {
        return out;
    };
    let sub = r.ifd(ifd0 as usize, &mut out);
    if let Some(sub) = sub {
        r.ifd(sub as usize, &mut out);
    }
    out
}

struct Reader<'a> {
    data: &'a [u8],
    little: bool,
}

impl Reader<'_> {
    fn u16(&self, at: usize) -> Option<u16> {
        let raw: [u8; 2] = self.data.get(at..at.checked_add(2)?)?.try_into().ok()?;
        Some(if self.little {
            u16::from_le_bytes(raw)
        } else {
            u16::from_be_bytes(raw)
        })
    }

    fn u32(&self, at: usize) -> Option<u32> {
        let raw: [u8; 4] = self.data.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(raw)
        } else {
            u32::from_be_bytes(raw)
        })
    }

    /// Reads one IFD's ASCII entries into `out`; returns the EXIF sub-IFD offset if present.
    fn ifd(&self, at: usize, out: &mut Vec<(u16, String)>) -> Option<u32> {
        let count = self.u16(at)? as usize;
        let mut sub = None;
        for i in 0..count.min(512) {
            let entry = at + 2 + i * 12;
            let (Some(tag), Some(kind), Some(n)) =
                (self.u16(entry), self.u16(entry + 2), self.u32(entry + 4))
            else {
                break;
            };
            match (tag, kind) {
                (EXIF_IFD, 4 | 13) => sub = self.u32(entry + 8),
                (_, 2) => {
                    let n = n as usize;
                    let start = if n <= 4 {
                        entry + 8
                    } else {
                        self.u32(entry + 8)? as usize
                    };
                    if let Some(bytes) = self.data.get(start..start.saturating_add(n)) {
                        let text = String::from_utf8_lossy(bytes);
                        let text = text.trim_matches(|c: char| c == '\0' || c.is_whitespace());
                        if !text.is_empty() {
                            out.push((tag, text.to_owned()));
                        }
                    }
                }
                _ => {}
            }
        }
        sub
    }
}

/// `<tag>text</tag>`.
fn xmp_simple(xmp: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let start = xmp.find(&open)? + open.len();
    let end = start + xmp[start..].find(&format!("</{tag}>"))?;
    non_empty(unescape(xmp[start..end].trim()))
}

/// The first `<rdf:li>` inside `<tag>…</tag>` (rdf:Alt / rdf:Seq / rdf:Bag), or the attribute
/// form `tag="text"`.
fn xmp_alt(xmp: &str, tag: &str) -> Option<String> {
    if let Some(pos) = xmp.find(&format!("<{tag}>")) {
        let rest = &xmp[pos..];
        let end = rest.find(&format!("</{tag}>"))?;
        let inner = &rest[..end];
        let li = inner.find("<rdf:li")?;
        let text_start = li + inner[li..].find('>')? + 1;
        let text_end = text_start + inner[text_start..].find("</rdf:li>")?;
        return non_empty(unescape(inner[text_start..text_end].trim()));
    }
    let attr = format!("{tag}=\"");
    let start = xmp.find(&attr)? + attr.len();
    let end = start + xmp[start..].find('"')?;
    non_empty(unescape(&xmp[start..end]))
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exif_and_xmp_fields() {
        // Big-endian TIFF: IFD0 with Artist (inline "Ann") and an EXIF IFD with DateTimeOriginal.
        let mut t = b"MM\0\x2a\0\0\0\x08".to_vec();
        t.extend_from_slice(&[0, 2]);
        t.extend_from_slice(&[0x01, 0x3B, 0, 2, 0, 0, 0, 4, b'A', b'n', b'n', 0]);
        t.extend_from_slice(&[0x87, 0x69, 0, 4, 0, 0, 0, 1, 0, 0, 0, 38]);
        t.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(t.len(), 38);
        t.extend_from_slice(&[0, 1]);
        t.extend_from_slice(&[0x90, 0x03, 0, 2, 0, 0, 0, 20, 0, 0, 0, 56]);
        t.extend_from_slice(&[0, 0, 0, 0]);
        t.extend_from_slice(b"2024:03:14 22:10:00\0");
        let xmp = "<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>A &amp; B</rdf:li></rdf:Alt></dc:title>";
        let mut meta = Metadata::default();
        fill(&mut meta, Some(&t), Some(xmp.as_bytes()));
        assert_eq!(meta.title.as_deref(), Some("A & B"));
        assert_eq!(meta.author.as_deref(), Some("Ann"));
        assert_eq!(meta.created.as_deref(), Some("2024-03-14T22:10:00"));
        // Garbage never panics.
        fill(
            &mut meta,
            Some(b"MM\0\x2a\xff\xff\xff\xff"),
            Some(b"<dc:title>"),
        );
    }
}
