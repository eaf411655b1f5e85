//! Finding the document's declared character encoding before decoding it.
//!
//! A simplified form of the WHATWG "prescan a byte stream" step: the first 1024 bytes are
//! searched for `<meta charset=...>` or `<meta http-equiv="Content-Type" content="...;
//! charset=...">` (and an XML declaration's `encoding=`, for XHTML). Comments are skipped so a
//! commented-out meta does not count. UTF-16 without a BOM is recognised by its NUL bytes, since
//! every byte-oriented prescan fails on it.

/// The declared charset label, if the head of the document names one.
pub fn declared(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(1024)];
    let mut i = 0;
    while i < head.len() {
        if head[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &head[i..];
        if rest.starts_with(b"<!--") {
            i += find(rest, b"-->").map_or(head.len(), |e| e + 3);
            continue;
        }
        if starts_with_ignore_case(rest, b"<?xml") {
            let end = find(rest, b"?>").unwrap_or(rest.len());
            if let Some(label) = attr_value(&rest[5..end], b"encoding") {
                return Some(label);
            }
            i += end;
            continue;
        }
        if starts_with_ignore_case(rest, b"<meta")
            && rest
                .get(5)
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/')
        {
            let end = find(rest, b">").unwrap_or(rest.len());
            let tag = &rest[5..end];
            if let Some(label) = attr_value(tag, b"charset") {
                return Some(label);
            }
            if let Some(content) = attr_value(tag, b"content") {
                if let Some(label) = charset_in_content(&content) {
                    return Some(label);
                }
            }
            i += end;
            continue;
        }
        i += 1;
    }
    None
}

/// `UTF-16LE` / `UTF-16BE` for BOM-less UTF-16 text (ASCII markup leaves every other byte NUL).
pub fn bomless_utf16(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = &bytes[..bytes.len().min(1024) & !1];
    if head.len() < 8 {
        return None;
    }
    let pairs = head.len() / 2;
    let even_nul = head.iter().step_by(2).filter(|&&b| b == 0).count();
    let odd_nul = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    if odd_nul * 10 >= pairs * 7 && even_nul * 10 < pairs {
        Some(encoding_rs::UTF_16LE)
    } else if even_nul * 10 >= pairs * 7 && odd_nul * 10 < pairs {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

fn charset_in_content(content: &str) -> Option<String> {
    let lower = content.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = lower[at + 7..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let label: String = rest
        .chars()
        .take_while(|c| !matches!(c, ';' | '"' | '\'') && !c.is_whitespace())
        .collect();
    (!label.is_empty()).then_some(label)
}

/// The value of attribute `name` inside a tag's attribute text (case-insensitive name).
fn attr_value(tag: &[u8], name: &[u8]) -> Option<String> {
    let mut i = 0;
    while i < tag.len() {
        // Skip to the start of an attribute name.
        while i < tag.len() && (tag[i].is_ascii_whitespace() || tag[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < tag.len() && !tag[i].is_ascii_whitespace() && !matches!(tag[i], b'=' | b'/') {
            i += 1;
        }
        let attr = &tag[start..i];
        while i < tag.len() && tag[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value: &[u8] = b"";
        if i < tag.len() && tag[i] == b'=' {
            i += 1;
            while i < tag.len() && tag[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < tag.len() && matches!(tag[i], b'"' | b'\'') {
                let quote = tag[i];
                let vstart = i + 1;
                let vend = tag[vstart..]
                    .iter()
                    .position(|&b| b == quote)
                    .map_or(tag.len(), |p| vstart + p);
                value = &tag[vstart..vend];
                i = vend + 1;
            } else {
                let vstart = i;
                while i < tag.len() && !tag[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = &tag[vstart..i];
            }
        }
        if attr.eq_ignore_ascii_case(name) {
            let value = String::from_utf8_lossy(value).trim().to_owned();
            return (!value.is_empty()).then_some(value);
        }
        if start == i {
            i += 1;
        }
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_meta_charset_forms() {
        assert_eq!(
            declared(b"<html><head><meta charset=\"windows-1251\">").as_deref(),
            Some("windows-1251")
        );
        assert_eq!(
            declared(b"<META HTTP-EQUIV=Content-Type CONTENT=\"text/html; charset=iso-8859-6\">")
                .as_deref(),
            Some("iso-8859-6")
        );
        assert_eq!(
            declared(b"<meta http-equiv='Content-Type' content='text/html;charset=Shift_JIS'>")
                .as_deref(),
            Some("shift_jis")
        );
        assert_eq!(
            declared(b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><html>").as_deref(),
            Some("ISO-8859-1")
        );
        assert_eq!(declared(b"<!-- <meta charset=koi8-r> --><p>hi"), None);
        assert_eq!(
            declared(b"<meta name=x content=y><metadata charset=z>"),
            None
        );
        assert_eq!(declared(b"<meta charset"), None);
        assert_eq!(declared(b"<"), None);
    }

    #[test]
    fn recognises_bomless_utf16() {
        let le: Vec<u8> = "<html><p>hi</p>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let be: Vec<u8> = "<html><p>hi</p>"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(bomless_utf16(&le), Some(encoding_rs::UTF_16LE));
        assert_eq!(bomless_utf16(&be), Some(encoding_rs::UTF_16BE));
        assert_eq!(bomless_utf16(b"<html><p>hi</p>"), None);
    }
}
