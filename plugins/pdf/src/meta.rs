//! Document properties from the PDF's Info dictionary, dates as ISO 8601.

use pdfium_render::prelude::*;
use quire_plugin_api::Metadata;

/// Title, author, subject, dates and producer from the Info dictionary.
pub fn metadata(doc: &PdfDocument<'_>) -> Metadata {
    let info = doc.metadata();
    let get = |tag| {
        info.get(tag)
            .map(|t| clean(t.value()))
            .filter(|v| !v.is_empty())
    };
    let mut m = Metadata {
        title: get(PdfDocumentMetadataTagType::Title),
        author: get(PdfDocumentMetadataTagType::Author),
        subject: get(PdfDocumentMetadataTagType::Subject),
        created: get(PdfDocumentMetadataTagType::CreationDate).and_then(|d| pdf_date(&d)),
        modified: get(PdfDocumentMetadataTagType::ModificationDate).and_then(|d| pdf_date(&d)),
        ..Metadata::default()
    };
    for (key, tag) in [
        ("producer", PdfDocumentMetadataTagType::Producer),
        ("creator", PdfDocumentMetadataTagType::Creator),
        ("keywords", PdfDocumentMetadataTagType::Keywords),
    ] {
        if let Some(v) = get(tag) {
            m.extra.insert(key.into(), serde_json::Value::String(v));
        }
    }
    m
}

fn clean(s: &str) -> String {
    quire_plugin_api::text::fold_whitespace(&s.replace('\0', ""))
}

/// Converts a PDF date (`D:YYYYMMDDHHmmSSOHH'mm'`, every part after the year optional) to
/// ISO 8601: `2024-03-01T10:00:00Z`, `2024-03-01T10:00:00+02:00`, or a bare date.
pub fn pdf_date(raw: &str) -> Option<String> {
    let s = raw.trim();
    let s = s.strip_prefix("D:").unwrap_or(s);
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &s[digits.len()..];
    if digits.len() < 4 {
        return None;
    }
    if digits.len() == 4 && rest.starts_with('-') {
        // Some writers store an ISO date already ("2019-05-05T10:00:00Z").
        let iso = s.get(..10)?;
        let ok = iso.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            _ => c.is_ascii_digit(),
        });
        return ok.then(|| s.split_whitespace().next().unwrap_or(iso).to_string());
    }
    let part = |from: usize, len: usize, default: u32| -> u32 {
        digits
            .get(from..from + len)
            .and_then(|p| p.parse().ok())
            .unwrap_or(default)
    };
    let (year, month, day) = (part(0, 4, 0), part(4, 2, 1), part(6, 2, 1));
    let (hour, minute, second) = (part(8, 2, 0), part(10, 2, 0), part(12, 2, 0));
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    if digits.len() < 10 {
        return Some(format!("{year:04}-{month:02}-{day:02}"));
    }
    let zone = match rest.chars().next() {
        Some('Z') | None => "Z".to_string(),
        Some(sign @ ('+' | '-')) => {
            let z: String = rest[1..].chars().filter(|c| c.is_ascii_digit()).collect();
            let zh: u32 = z.get(0..2).and_then(|p| p.parse().ok()).unwrap_or(0);
            let zm: u32 = z.get(2..4).and_then(|p| p.parse().ok()).unwrap_or(0);
            if zh == 0 && zm == 0 {
                "Z".to_string()
            } else {
                format!("{sign}{zh:02}:{zm:02}")
            }
        }
        Some(_) => "Z".to_string(),
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{zone}"
    ))
}

#[cfg(test)]
mod tests {
    use super::pdf_date;

    #[test]
    fn converts_pdf_dates() {
        assert_eq!(
            pdf_date("D:20240301100000+02'00'").as_deref(),
            Some("2024-03-01T10:00:00+02:00")
        );
        assert_eq!(
            pdf_date("D:20240301100000Z").as_deref(),
            Some("2024-03-01T10:00:00Z")
        );
        assert_eq!(
            pdf_date("D:20240301100000Z00'00'").as_deref(),
            Some("2024-03-01T10:00:00Z")
        );
        assert_eq!(
            pdf_date("D:202403011000").as_deref(),
            Some("2024-03-01T10:00:00Z")
        );
        assert_eq!(pdf_date("D:20240301").as_deref(), Some("2024-03-01"));
        assert_eq!(pdf_date("D:2024").as_deref(), Some("2024-01-01"));
        assert_eq!(pdf_date("2019-05-05").as_deref(), Some("2019-05-05"));
        assert_eq!(pdf_date("nonsense").as_deref(), None);
        assert_eq!(pdf_date("D:20241399").as_deref(), None);
        assert_eq!(
            pdf_date("D:20240301100000-05'30").as_deref(),
            Some("2024-03-01T10:00:00-05:30")
        );
    }
}
