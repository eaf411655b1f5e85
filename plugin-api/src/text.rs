//! Text helpers every text-like plugin and the host's detector share: decoding bytes of an
//! unknown encoding, and counting words the same way everywhere.

use encoding_rs::Encoding;

/// Text decoded from bytes, with the encoding that was used.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub text: String,
    /// WHATWG name of the encoding ("UTF-8", "UTF-16LE", "windows-1252", ...).
    pub encoding: &'static str,
    /// Whether any byte sequence was invalid in that encoding (replaced by U+FFFD).
    pub had_errors: bool,
}

/// Decodes bytes whose encoding is unknown: a BOM wins, then valid UTF-8, then a declared
/// label if given (`charset=` from HTML or XML), then statistical detection of legacy 8-bit
/// encodings. A leading BOM is removed.
pub fn decode(bytes: &[u8], declared: Option<&str>) -> Decoded {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, had_errors) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return Decoded {
            text: text.into_owned(),
            encoding: enc.name(),
            had_errors,
        };
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Decoded {
            text: s.to_owned(),
            encoding: "UTF-8",
            had_errors: false,
        };
    }
    let enc = declared
        .and_then(|label| Encoding::for_label(label.trim().as_bytes()))
        .filter(|e| *e != encoding_rs::UTF_8)
        .unwrap_or_else(|| {
            let mut detector = chardetng::EncodingDetector::new();
            detector.feed(bytes, true);
            detector.guess(None, true)
        });
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    Decoded {
        text: text.into_owned(),
        encoding: enc.name(),
        had_errors,
    }
}

/// Whether bytes look like text rather than binary data: a UTF-16/UTF-8 BOM, or no NUL bytes
/// and few control characters in the first 8 KiB (legacy 8-bit text passes).
pub fn looks_like_text(bytes: &[u8]) -> bool {
    if Encoding::for_bom(bytes).is_some() {
        return true;
    }
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return false;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
        .count();
    controls * 100 <= head.len()
}

/// Words in a text: maximal runs of characters that are not whitespace and contain at least
/// one letter or digit. CJK ideographs count one word each, as word processors count them.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace()
        .map(|token| {
            let cjk = token.chars().filter(|&c| is_cjk(c)).count();
            let other = token.chars().any(|c| c.is_alphanumeric() && !is_cjk(c));
            cjk + usize::from(other)
        })
        .sum()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF)
}

/// Collapses every run of whitespace to one space and trims the ends.
pub fn fold_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_boms_utf8_and_legacy() {
        let utf16 = [0xFF, 0xFE, b'h', 0, b'i', 0];
        let d = decode(&utf16, None);
        assert_eq!((d.text.as_str(), d.encoding), ("hi", "UTF-16LE"));
        let d = decode("caf\u{e9}".as_bytes(), None);
        assert_eq!((d.text.as_str(), d.encoding), ("café", "UTF-8"));
        let d = decode(b"caf\xe9 cr\xe8me br\xfbl\xe9e", None);
        assert_eq!(d.text, "café crème brûlée");
        let d = decode(b"\xcf\xf0\xe8\xe2\xe5\xf2", Some("windows-1251"));
        assert_eq!(d.text, "Привет");
    }

    #[test]
    fn text_or_binary() {
        assert!(looks_like_text(b"plain text\n"));
        assert!(looks_like_text(b"caf\xe9"));
        assert!(!looks_like_text(b"\x89PNG\r\n\x1a\n\0\0\0"));
        assert!(looks_like_text(&[0xFF, 0xFE, b'h', 0]));
    }

    #[test]
    fn counts_words() {
        assert_eq!(word_count("Hello, world - it's 2024!"), 4);
        assert_eq!(word_count("  "), 0);
        assert_eq!(word_count("日本語 text"), 4);
    }
}
