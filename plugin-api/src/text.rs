//! Text helpers every text-like plugin and the host's detector share: decoding bytes of an
//! unknown encoding, and counting words the same way everywhere.

use encoding_rs::Encoding;

mod legacy;

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
    let d = decode_cow(bytes, declared);
    Decoded {
        text: d.text.into_owned(),
        encoding: d.encoding,
        had_errors: d.had_errors,
    }
}

/// Text decoded from bytes, borrowing them when they were valid UTF-8 already.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedCow<'a> {
    pub text: std::borrow::Cow<'a, str>,
    /// WHATWG name of the encoding, as in [`Decoded`].
    pub encoding: &'static str,
    pub had_errors: bool,
}

/// [`decode`] without a copy when the bytes are valid UTF-8 (with or without a BOM): the
/// text then borrows `bytes`, which for a large text file saves a copy of the whole input.
pub fn decode_cow<'a>(bytes: &'a [u8], declared: Option<&str>) -> DecodedCow<'a> {
    use std::borrow::Cow;
    let owned = |d: Decoded| DecodedCow {
        text: Cow::Owned(d.text),
        encoding: d.encoding,
        had_errors: d.had_errors,
    };
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, had_errors) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return DecodedCow {
            text,
            encoding: enc.name(),
            had_errors,
        };
    }
    // Before UTF-8: UTF-16 and UTF-32 text of mostly ASCII letters is valid UTF-8 too (its
    // NUL bytes are legal there), just not the text.
    if let Some(wide) = wide_encoding(bytes) {
        let (text, had_errors) = wide.decode(bytes);
        return DecodedCow {
            text: Cow::Owned(text),
            encoding: wide.name(),
            had_errors,
        };
    }
    // ISO-2022 text is 7-bit, so valid UTF-8 too: its escape sequences say what it is.
    if let Some(decoded) = iso_2022(bytes) {
        return owned(decoded);
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return DecodedCow {
            text: Cow::Borrowed(s),
            encoding: "UTF-8",
            had_errors: false,
        };
    }
    owned(decode_legacy(bytes, declared))
}

/// The last resort of [`decode`]: a declared label, else statistical detection.
fn decode_legacy(bytes: &[u8], declared: Option<&str>) -> Decoded {
    let declared = declared.map(|label| label.trim().to_ascii_lowercase());
    if let Some(legacy) = declared.as_deref().and_then(legacy::for_label) {
        return legacy.decode(bytes);
    }
    let enc = declared
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .filter(|e| *e != encoding_rs::UTF_8);
    let legacy = match enc {
        Some(enc) => legacy::Legacy::Whatwg(enc),
        None => {
            let mut detector = chardetng::EncodingDetector::new();
            detector.feed(bytes, true);
            legacy::refine(bytes, detector.guess(None, true))
        }
    };
    legacy.decode(bytes)
}

/// ISO-2022-JP (`ESC $ B`, `ESC $ @` switch to JIS X 0208) and ISO-2022-KR (`ESC $ ) C`
/// designates KS X 1001, SO/SI shift in and out of it): 7-bit text recognised by its escape
/// sequences, which no other text contains.
fn iso_2022(bytes: &[u8]) -> Option<Decoded> {
    let esc = memchr_esc(bytes)?;
    if !bytes.is_ascii() {
        return None;
    }
    let rest = &bytes[esc..];
    if contains(rest, b"\x1b$)C") && bytes.contains(&0x0e) {
        let (text, had_errors) = legacy::decode_iso_2022_kr(bytes);
        return Some(Decoded {
            text,
            encoding: "ISO-2022-KR",
            had_errors,
        });
    }
    if contains(rest, b"\x1b$B") || contains(rest, b"\x1b$@") {
        let (text, had_errors) = encoding_rs::ISO_2022_JP.decode_without_bom_handling(bytes);
        return Some(Decoded {
            text: text.into_owned(),
            encoding: encoding_rs::ISO_2022_JP.name(),
            had_errors,
        });
    }
    None
}

/// The first ESC byte; `contains` on bytes is `memchr`, so text without one costs one fast scan.
fn memchr_esc(bytes: &[u8]) -> Option<usize> {
    if !bytes.contains(&0x1b) {
        return None;
    }
    bytes.iter().position(|&b| b == 0x1b)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Whether bytes look like text rather than binary data: a UTF-16/UTF-8 BOM, or few NUL bytes
/// and control characters in the first 8 KiB (legacy 8-bit text passes). "Few" is 1 % of the
/// bytes, or up to three stray ones in a short file as long as they are a clear minority: a
/// NUL typed into an HTML page or a log line is a parse error the WHATWG parser repairs, not a
/// sign of binary data, while binary formats have NULs throughout.
pub fn looks_like_text(bytes: &[u8]) -> bool {
    if Encoding::for_bom(bytes).is_some() || wide_encoding(bytes).is_some() {
        return true;
    }
    let head = &bytes[..bytes.len().min(8192)];
    // ISO-2022-KR shifts in and out of Korean with SO and SI after designating it.
    let shifts = memchr_esc(head).is_some_and(|at| contains(&head[at..], b"\x1b$)C"));
    let odd = head
        .iter()
        .filter(|&&b| {
            b < 0x20
                && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)
                && !(shifts && matches!(b, 0x0e | 0x0f))
        })
        .count();
    odd * 100 <= head.len() || (odd <= 3 && odd * 4 < head.len())
}

/// A UTF-16 or UTF-32 encoding recognised without a byte-order mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wide {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

impl Wide {
    fn unit(self) -> usize {
        match self {
            Wide::Utf16Le | Wide::Utf16Be => 2,
            Wide::Utf32Le | Wide::Utf32Be => 4,
        }
    }

    fn little_endian(self) -> bool {
        matches!(self, Wide::Utf16Le | Wide::Utf32Le)
    }

    pub fn name(self) -> &'static str {
        match self {
            Wide::Utf16Le => "UTF-16LE",
            Wide::Utf16Be => "UTF-16BE",
            Wide::Utf32Le => "UTF-32LE",
            Wide::Utf32Be => "UTF-32BE",
        }
    }

    /// The text, and whether any code unit was invalid (replaced by U+FFFD). A trailing
    /// partial code unit counts as invalid.
    pub fn decode(self, bytes: &[u8]) -> (String, bool) {
        match self {
            Wide::Utf16Le | Wide::Utf16Be => {
                let enc = if self.little_endian() {
                    encoding_rs::UTF_16LE
                } else {
                    encoding_rs::UTF_16BE
                };
                let (text, had_errors) = enc.decode_without_bom_handling(bytes);
                (text.into_owned(), had_errors)
            }
            Wide::Utf32Le | Wide::Utf32Be => {
                let mut out = String::with_capacity(bytes.len() / 4);
                let mut had_errors = !bytes.len().is_multiple_of(4);
                for unit in bytes.chunks_exact(4) {
                    let b = [unit[0], unit[1], unit[2], unit[3]];
                    let v = if self.little_endian() {
                        u32::from_le_bytes(b)
                    } else {
                        u32::from_be_bytes(b)
                    };
                    match char::from_u32(v) {
                        Some(c) => out.push(c),
                        None => {
                            had_errors = true;
                            out.push('\u{fffd}');
                        }
                    }
                }
                (out, had_errors)
            }
        }
    }
}

/// UTF-16 or UTF-32 text without a byte-order mark, in either byte order: NUL bytes in the
/// high-order position of the code units and almost never in the low-order one (text of
/// mostly Latin letters, digits and punctuation), and the first 8 KiB decode to printable
/// characters. Text in other scripts without NULs is left to the other decoders.
pub fn wide_encoding(bytes: &[u8]) -> Option<Wide> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.len() < 4 || !head.contains(&0) {
        return None;
    }
    [Wide::Utf32Le, Wide::Utf32Be, Wide::Utf16Le, Wide::Utf16Be]
        .into_iter()
        .find(|&wide| {
            let unit = wide.unit();
            let n = head.len() / unit * unit;
            if n < 2 * unit {
                return false;
            }
            let mut zeros = [0usize; 4];
            for (i, b) in head[..n].iter().enumerate() {
                if *b == 0 {
                    zeros[i % unit] += 1;
                }
            }
            let (low, high) = if wide.little_endian() {
                (zeros[0], zeros[unit - 1])
            } else {
                (zeros[unit - 1], zeros[0])
            };
            let units = n / unit;
            // Most code units are ASCII-range (a NUL high byte), few are NUL characters.
            if high * 2 < units || low * 20 > units {
                return false;
            }
            let (text, _) = wide.decode(&head[..n]);
            let total = text.chars().count();
            let printable = text
                .chars()
                .filter(|c| {
                    *c != '\u{fffd}'
                        && (!c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\u{c}'))
                })
                .count();
            total > 0 && printable * 100 >= total * 97
        })
}

/// Words of a text and how many of them are among the most common short words of English,
/// French, German, Spanish and Italian: OCR output read the right way up has about one in
/// ten or more, the same page read upside down or sideways next to none.
pub fn common_words(text: &str) -> (usize, usize) {
    const COMMON: &[&str] = &[
        "the", "and", "of", "to", "a", "in", "is", "for", "on", "with", "that", "an", "as", "by",
        "this", "be", "are", "from", "or", "it", "at", "de", "la", "le", "et", "der", "die", "und",
        "el", "en", "y", "di", "il",
    ];
    let mut words = 0;
    let mut common = 0;
    for w in text.split_whitespace() {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if w.is_empty() {
            continue;
        }
        words += 1;
        common += usize::from(COMMON.contains(&w.as_str()));
    }
    (words, common)
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

/// `n` in upper-case roman numerals, for 1 to 3999 (`None` outside them): list labels as
/// Word counts them, and pandoc's roman list markers read back.
pub fn roman(n: u64) -> Option<String> {
    if !(1..4000).contains(&n) {
        return None;
    }
    const TABLE: [(u64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut n = n;
    let mut out = String::new();
    for (v, s) in TABLE {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    Some(out)
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
    fn roman_numerals_in_their_range() {
        let cases = [
            (1, "I"),
            (4, "IV"),
            (9, "IX"),
            (14, "XIV"),
            (1994, "MCMXCIV"),
        ];
        for (n, want) in cases {
            assert_eq!(roman(n).as_deref(), Some(want));
        }
        assert_eq!(roman(3999).as_deref(), Some("MMMCMXCIX"));
        assert_eq!(roman(0), None);
        assert_eq!(roman(4000), None);
    }

    #[test]
    fn utf8_input_is_borrowed_not_copied() {
        use std::borrow::Cow;
        for bytes in [
            &b"plain text"[..],
            b"\xef\xbb\xbfwith a BOM",
            "caf\u{e9}".as_bytes(),
        ] {
            let d = decode_cow(bytes, None);
            assert!(matches!(d.text, Cow::Borrowed(_)), "{bytes:?}");
            assert_eq!(d.text, decode(bytes, None).text);
        }
        // Legacy bytes are decoded into a new string, the same as `decode` gives.
        let latin1 = b"caf\xe9 cr\xe8me br\xfbl\xe9e";
        let d = decode_cow(latin1, None);
        assert!(matches!(d.text, Cow::Owned(_)));
        assert_eq!(d.text, decode(latin1, None).text);
        assert_eq!(d.encoding, decode(latin1, None).encoding);
    }

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
    fn a_latin_guess_that_makes_lone_letters_of_signs_is_windows_1252() {
        // chardetng reads two pound signs in English as Polish `Ł`.
        let d = decode(
            b"if they draw I stand to lift \xa3825, not bad for a \xa32 bet.",
            None,
        );
        assert_eq!(
            d.text,
            "if they draw I stand to lift £825, not bad for a £2 bet."
        );
        // Central European text keeps its guess: its letters sit inside words.
        let pl = decode(
            b"Za\xbf\xf3\xb3\xe6 g\xea\xb6l\xb1 ja\xbc\xf1. \xa3\xf3d\xbc to miasto.",
            None,
        );
        assert!(pl.text.contains("Łódź"), "{}", pl.text);
    }

    #[test]
    fn text_or_binary() {
        assert!(looks_like_text(b"plain text\n"));
        assert!(looks_like_text(b"caf\xe9"));
        assert!(!looks_like_text(b"\x89PNG\r\n\x1a\n\0\0\0"));
        assert!(looks_like_text(&[0xFF, 0xFE, b'h', 0]));
        // A stray NUL in markup is a parse error, not binary data (html5lib's "unsafe" tests).
        assert!(looks_like_text(b"<html>a\0a<frameset></frameset>"));
        assert!(looks_like_text(b"<body><table>\0filler\0text\0"));
        assert!(!looks_like_text(b"\0"));
        assert!(!looks_like_text(b"\x00\x01\x02\x03binary\x00"));
    }

    #[test]
    fn iso_2022_jp_and_kr_by_their_escape_sequences() {
        // "日本語のテキスト" in ISO-2022-JP: 7-bit, valid UTF-8, yet not the text.
        let jp = b"\x1b$BF|K\\8l$N%F%-%9%H\x1b(B text";
        let d = decode(jp, None);
        assert_eq!(
            (d.text.as_str(), d.encoding),
            ("日本語のテキスト text", "ISO-2022-JP")
        );
        // "한국어 문서" in ISO-2022-KR: its SO/SI shifts are not binary data.
        let kr = b"\x1b$)C\x0eGQ19>n\x0f \x0e9.<-\x0f\nline two\n";
        assert!(looks_like_text(kr));
        let d = decode(kr, None);
        assert_eq!(
            (d.text.as_str(), d.encoding),
            ("한국어 문서\nline two\n", "ISO-2022-KR")
        );
        // An ANSI colour escape is no ISO-2022 designator.
        let d = decode(b"\x1b[31mred\x1b[0m", None);
        assert_eq!(d.encoding, "UTF-8");
    }

    #[test]
    fn cyrillic_single_byte_encodings_by_letter_statistics() {
        let text = "Привет, мир! Это простой русский текст о погоде, городе и людях, \
                    которые живут в этом городе. Сегодня хорошая погода, и все гуляют.";
        for enc in [
            encoding_rs::WINDOWS_1251,
            encoding_rs::KOI8_R,
            encoding_rs::IBM866,
            encoding_rs::X_MAC_CYRILLIC,
            encoding_rs::ISO_8859_5,
        ] {
            let (bytes, _, _) = enc.encode(text);
            let d = decode(&bytes, None);
            assert_eq!(d.text, text, "{}", enc.name());
        }
        // IBM855 is outside the WHATWG set.
        let ibm855: Vec<u8> = text
            .chars()
            .map(|c| match c {
                c if c.is_ascii() => c as u8,
                c => 0x80 + legacy::IBM855.iter().position(|&t| t == c).unwrap() as u8,
            })
            .collect();
        let d = decode(&ibm855, None);
        assert_eq!((d.text.as_str(), d.encoding), (text, "IBM855"));
        // A declared label for an encoding outside the WHATWG set.
        assert_eq!(decode(&ibm855, Some("cp855")).text, text);
    }

    #[test]
    fn johab_hangul_and_symbols() {
        // "한글" in Johab: 0xD065 0x8B69 (composed from jamo bits), then "가" 0x8861.
        let d = decode(b"\xd0\x65\x8b\x69 \x88\x61", Some("johab"));
        assert_eq!(d.text, "한글 가");
        // Johab text is told apart from EUC-KR/UHC by what it decodes to.
        let text =
            "한국어 텍스트는 조합형으로 쓰였습니다. 이 문서는 옛날 프로그램의 설명서입니다. \
                    사용법을 잘 읽어 보십시오.";
        let johab = legacy::encode_johab_for_tests(text);
        let d = decode(&johab, None);
        assert_eq!((d.text.as_str(), d.encoding), (text, "Johab"));
        // EUC-KR stays EUC-KR.
        let (euc, _, _) = encoding_rs::EUC_KR.encode(text);
        let d = decode(&euc, None);
        assert_eq!((d.text.as_str(), d.encoding), (text, "EUC-KR"));
    }

    fn wide(text: &str, enc: Wide) -> Vec<u8> {
        let mut out = Vec::new();
        for c in text.chars() {
            match enc {
                Wide::Utf16Le | Wide::Utf16Be => {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf) {
                        out.extend(if enc == Wide::Utf16Le {
                            u.to_le_bytes()
                        } else {
                            u.to_be_bytes()
                        });
                    }
                }
                Wide::Utf32Le => out.extend((c as u32).to_le_bytes()),
                Wide::Utf32Be => out.extend((c as u32).to_be_bytes()),
            }
        }
        out
    }

    #[test]
    fn utf16_and_utf32_without_a_bom_are_text() {
        let text = "<note lang=\"fr\">Crème brûlée, 12 €; naïve café.</note>\r\nLine two\n";
        for enc in [Wide::Utf16Le, Wide::Utf16Be, Wide::Utf32Le, Wide::Utf32Be] {
            let bytes = wide(text, enc);
            assert!(looks_like_text(&bytes), "{enc:?}");
            assert_eq!(wide_encoding(&bytes), Some(enc));
            let d = decode(&bytes, None);
            assert_eq!((d.text.as_str(), d.encoding), (text, enc.name()), "{enc:?}");
            assert!(!d.had_errors);
        }
        // Binary data with NULs everywhere is still binary.
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0";
        assert!(!looks_like_text(png));
        let zeros = vec![0u8; 64];
        assert!(!looks_like_text(&zeros));
        let mut counter = Vec::new();
        for i in 0u32..400 {
            counter.extend(i.to_le_bytes());
        }
        assert_eq!(
            wide_encoding(&counter),
            None,
            "integers are not UTF-32 text"
        );
    }

    #[test]
    fn counts_words() {
        assert_eq!(word_count("Hello, world - it's 2024!"), 4);
        assert_eq!(word_count("  "), 0);
        assert_eq!(word_count("日本語 text"), 4);
    }
}
