//! Legacy encodings beyond what `chardetng` guesses: Cyrillic single-byte encodings told apart
//! by letter statistics (`chardetng` mixes up windows-1251, KOI8, IBM866, x-mac-cyrillic and
//! does not know IBM855), Korean Johab (outside the WHATWG set), and ISO-2022-KR (which WHATWG
//! maps to the replacement encoding).

use std::sync::OnceLock;

use encoding_rs::Encoding;

use super::Decoded;

/// An encoding `decode` can use: a WHATWG one, or one decoded here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Legacy {
    Whatwg(&'static Encoding),
    /// IBM code page 855 (DOS Cyrillic, the older of the two).
    Ibm855,
    /// KS C 5601-1992 annex 3: Hangul syllables composed from jamo bits.
    Johab,
}

impl Legacy {
    pub(super) fn name(self) -> &'static str {
        match self {
            Legacy::Whatwg(enc) => enc.name(),
            Legacy::Ibm855 => "IBM855",
            Legacy::Johab => "Johab",
        }
    }

    pub(super) fn decode(self, bytes: &[u8]) -> Decoded {
        let (text, had_errors) = match self {
            Legacy::Whatwg(enc) => {
                let (text, had_errors) = enc.decode_without_bom_handling(bytes);
                (text.into_owned(), had_errors)
            }
            Legacy::Ibm855 => (decode_single_byte(bytes, &IBM855), false),
            Legacy::Johab => decode_johab(bytes),
        };
        Decoded {
            text,
            encoding: self.name(),
            had_errors,
        }
    }
}

/// The encodings decoded here by a declared label (WHATWG labels are left to `encoding_rs`).
pub(super) fn for_label(label: &str) -> Option<Legacy> {
    match label {
        "ibm855" | "cp855" | "855" | "csibm855" => Some(Legacy::Ibm855),
        "johab" | "cp1361" | "ms1361" => Some(Legacy::Johab),
        _ => None,
    }
}

/// `chardetng`'s guess, or a better candidate: for a Cyrillic single-byte guess the Cyrillic
/// encoding whose letters read most like Cyrillic text; for a Latin or East Asian guess Johab
/// when the bytes decode as Johab without error into common Hangul and the guess does not; for
/// a Latin guess of text that is mostly non-ASCII letters a Cyrillic encoding (IBM855, which
/// `chardetng` does not know) that reads as Cyrillic text.
pub(super) fn refine(bytes: &[u8], guess: &'static Encoding) -> Legacy {
    if CYRILLIC.contains(&guess) {
        return cyrillic(bytes, guess);
    }
    let latin = LATIN.contains(&guess);
    if latin || EAST_ASIAN.contains(&guess) {
        if let Some(johab) = korean(bytes, guess) {
            return johab;
        }
    }
    if latin {
        if guess != encoding_rs::WINDOWS_1252 && signs_not_letters(bytes, guess) {
            return Legacy::Whatwg(encoding_rs::WINDOWS_1252);
        }
        return cyrillic_instead_of_latin(bytes).unwrap_or(Legacy::Whatwg(guess));
    }
    Legacy::Whatwg(guess)
}

/// Whether text a Latin encoding other than windows-1252 was guessed for is windows-1252
/// text whose few non-ASCII bytes are signs: every one stands apart from letters (`lift
/// \xa3825`), the guess reads each as a letter (`Ł825`: a letter alone beside digits, which
/// no language writes) and windows-1252 as a sign (`£825`). A byte inside or beside a word
/// keeps the guess, so Central European text is never touched.
fn signs_not_letters(bytes: &[u8], guess: &'static Encoding) -> bool {
    let letter_byte = |b: Option<&u8>| b.is_some_and(|&c| c.is_ascii_alphabetic() || c >= 0x80);
    let reads_letter = |enc: &'static Encoding, b: u8| {
        let mut out = [0u16; 2];
        let (_, _, written, _) =
            enc.new_decoder_without_bom_handling()
                .decode_to_utf16(&[b], &mut out, true);
        written == 1 && char::from_u32(u32::from(out[0])).is_some_and(char::is_alphabetic)
    };
    let mut any = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b < 0x80 {
            continue;
        }
        let before = i.checked_sub(1).and_then(|j| bytes.get(j));
        if letter_byte(before)
            || letter_byte(bytes.get(i + 1))
            || !reads_letter(guess, b)
            || reads_letter(encoding_rs::WINDOWS_1252, b)
        {
            return false;
        }
        any = true;
    }
    any
}

const LATIN: [&Encoding; 14] = [
    encoding_rs::WINDOWS_1252,
    encoding_rs::WINDOWS_1250,
    encoding_rs::WINDOWS_1254,
    encoding_rs::WINDOWS_1257,
    encoding_rs::WINDOWS_1258,
    encoding_rs::ISO_8859_2,
    encoding_rs::ISO_8859_3,
    encoding_rs::ISO_8859_4,
    encoding_rs::ISO_8859_10,
    encoding_rs::ISO_8859_13,
    encoding_rs::ISO_8859_14,
    encoding_rs::ISO_8859_15,
    encoding_rs::ISO_8859_16,
    encoding_rs::MACINTOSH,
];

const EAST_ASIAN: [&Encoding; 6] = [
    encoding_rs::EUC_KR,
    encoding_rs::BIG5,
    encoding_rs::GBK,
    encoding_rs::GB18030,
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_JP,
];

const CYRILLIC: [&Encoding; 6] = [
    encoding_rs::WINDOWS_1251,
    encoding_rs::KOI8_U,
    encoding_rs::KOI8_R,
    encoding_rs::IBM866,
    encoding_rs::ISO_8859_5,
    encoding_rs::X_MAC_CYRILLIC,
];

/// The upper halves (0x80–0xFF) of the Cyrillic candidates, decoded once.
fn cyrillic_tables() -> &'static [(Legacy, [char; 128]); 7] {
    static TABLES: OnceLock<[(Legacy, [char; 128]); 7]> = OnceLock::new();
    TABLES.get_or_init(|| {
        let high: Vec<u8> = (0x80..=0xFF).collect();
        let table = |enc: &'static Encoding| {
            let (text, _) = enc.decode_without_bom_handling(&high);
            let mut out = ['\u{FFFD}'; 128];
            for (slot, c) in out.iter_mut().zip(text.chars()) {
                *slot = c;
            }
            (Legacy::Whatwg(enc), out)
        };
        [
            table(CYRILLIC[0]),
            table(CYRILLIC[1]),
            table(CYRILLIC[2]),
            table(CYRILLIC[3]),
            table(CYRILLIC[4]),
            table(CYRILLIC[5]),
            (Legacy::Ibm855, IBM855),
        ]
    })
}

/// The Cyrillic candidate whose decoding scores best; the guess unless another is better by a
/// margin (encodings that agree on every byte of the text score alike and keep the guess).
fn cyrillic(bytes: &[u8], guess: &'static Encoding) -> Legacy {
    let high = bytes.iter().filter(|&&b| b >= 0x80).count();
    if high == 0 {
        return Legacy::Whatwg(guess);
    }
    let mut best = Legacy::Whatwg(guess);
    let mut guess_score = f64::NEG_INFINITY;
    let mut best_score = f64::NEG_INFINITY;
    for (legacy, table) in cyrillic_tables() {
        let (score, _) = cyrillic_score(bytes, table);
        if *legacy == Legacy::Whatwg(guess) {
            guess_score = score;
        }
        if score > best_score {
            best_score = score;
            best = *legacy;
        }
    }
    if best_score > guess_score + 8.0 + 0.02 * high as f64 {
        best
    } else {
        Legacy::Whatwg(guess)
    }
}

/// A Cyrillic encoding for text a Latin encoding was guessed for: when non-ASCII bytes are at
/// least a third of its letters (accented letters of Latin-script languages are far fewer),
/// and the best Cyrillic candidate reads nine in ten of them as Cyrillic letters.
fn cyrillic_instead_of_latin(bytes: &[u8]) -> Option<Legacy> {
    let high = bytes.iter().filter(|&&b| b >= 0x80).count();
    let ascii_letters = bytes.iter().filter(|b| b.is_ascii_alphabetic()).count();
    if high < 16 || high * 2 < ascii_letters {
        return None;
    }
    let (legacy, (_, letters)) = cyrillic_tables()
        .iter()
        .map(|(legacy, table)| (*legacy, cyrillic_score(bytes, table)))
        .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0))?;
    (letters * 10 >= high * 9).then_some(legacy)
}

/// How much a decoding reads like Cyrillic prose, and how many non-ASCII bytes are Cyrillic
/// letters: the log frequency of each Cyrillic letter (Russian letter frequencies; other
/// Cyrillic letters count as rare), a penalty for non-letters where the bytes are non-ASCII,
/// and for a capital after a small letter inside a word or a Latin letter touching a Cyrillic
/// one.
fn cyrillic_score(bytes: &[u8], table: &[char; 128]) -> (f64, usize) {
    let mut score = 0.0;
    let mut letters = 0;
    let mut prev = ' ';
    for &b in bytes {
        let c = if b < 0x80 {
            b as char
        } else {
            table[usize::from(b - 0x80)]
        };
        if b >= 0x80 {
            if is_cyrillic_letter(c) {
                letters += 1;
                score += letter_weight(c);
                if prev.is_lowercase() && c.is_uppercase() {
                    score -= 4.0;
                }
                if prev.is_ascii_alphabetic() {
                    score -= 3.0;
                }
            } else {
                score -= 9.0;
            }
        } else if c.is_ascii_alphabetic() && is_cyrillic_letter(prev) {
            score -= 3.0;
        }
        prev = c;
    }
    (score, letters)
}

fn is_cyrillic_letter(c: char) -> bool {
    matches!(c, '\u{0400}'..='\u{045F}')
}

/// Natural log of a Cyrillic letter's frequency in Russian text (rarer letters -7).
fn letter_weight(c: char) -> f64 {
    // а б в г д е ж з и й к л м н о п р с т у ф х ц ч ш щ ъ ы ь э ю я, per mille
    const PER_MILLE: [u16; 32] = [
        80, 16, 45, 17, 30, 85, 9, 17, 74, 12, 35, 44, 32, 67, 110, 28, 47, 55, 63, 26, 3, 10, 5,
        14, 7, 4, 1, 19, 17, 3, 6, 20,
    ];
    let lower = c.to_lowercase().next().unwrap_or(c);
    let per_mille = match lower {
        'а'..='я' => PER_MILLE[(lower as usize) - ('а' as usize)],
        'ё' => 1,
        _ => 1,
    };
    (f64::from(per_mille.max(1)) / 1000.0).ln()
}

fn decode_single_byte(bytes: &[u8], table: &[char; 128]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(if b < 0x80 {
            b as char
        } else {
            table[usize::from(b - 0x80)]
        });
    }
    out
}

/// IBM code page 855, 0x80–0xFF.
#[rustfmt::skip]
pub(super) const IBM855: [char; 128] = [
    '\u{0452}', '\u{0402}', '\u{0453}', '\u{0403}', '\u{0451}', '\u{0401}', '\u{0454}', '\u{0404}',
    '\u{0455}', '\u{0405}', '\u{0456}', '\u{0406}', '\u{0457}', '\u{0407}', '\u{0458}', '\u{0408}',
    '\u{0459}', '\u{0409}', '\u{045A}', '\u{040A}', '\u{045B}', '\u{040B}', '\u{045C}', '\u{040C}',
    '\u{045E}', '\u{040E}', '\u{045F}', '\u{040F}', '\u{044E}', '\u{042E}', '\u{044A}', '\u{042A}',
    '\u{0430}', '\u{0410}', '\u{0431}', '\u{0411}', '\u{0446}', '\u{0426}', '\u{0434}', '\u{0414}',
    '\u{0435}', '\u{0415}', '\u{0444}', '\u{0424}', '\u{0433}', '\u{0413}', '\u{00AB}', '\u{00BB}',
    '\u{2591}', '\u{2592}', '\u{2593}', '\u{2502}', '\u{2524}', '\u{0445}', '\u{0425}', '\u{0438}',
    '\u{0418}', '\u{2563}', '\u{2551}', '\u{2557}', '\u{255D}', '\u{0439}', '\u{0419}', '\u{2510}',
    '\u{2514}', '\u{2534}', '\u{252C}', '\u{251C}', '\u{2500}', '\u{253C}', '\u{043A}', '\u{041A}',
    '\u{255A}', '\u{2554}', '\u{2569}', '\u{2566}', '\u{2560}', '\u{2550}', '\u{256C}', '\u{00A4}',
    '\u{043B}', '\u{041B}', '\u{043C}', '\u{041C}', '\u{043D}', '\u{041D}', '\u{043E}', '\u{041E}',
    '\u{043F}', '\u{2518}', '\u{250C}', '\u{2588}', '\u{2584}', '\u{041F}', '\u{044F}', '\u{2580}',
    '\u{042F}', '\u{0440}', '\u{0420}', '\u{0441}', '\u{0421}', '\u{0442}', '\u{0422}', '\u{0443}',
    '\u{0423}', '\u{0436}', '\u{0416}', '\u{0432}', '\u{0412}', '\u{044C}', '\u{042C}', '\u{2116}',
    '\u{00AD}', '\u{044B}', '\u{042B}', '\u{0437}', '\u{0417}', '\u{0448}', '\u{0428}', '\u{044D}',
    '\u{042D}', '\u{0449}', '\u{0429}', '\u{0447}', '\u{0427}', '\u{00A7}', '\u{25A0}', '\u{00A0}',
];

/// Johab when the bytes decode as Johab without an error into enough Hangul of which nearly
/// all are the 2,350 common syllables of KS X 1001, and the guess decodes with errors or into
/// fewer common syllables.
fn korean(bytes: &[u8], guess: &'static Encoding) -> Option<Legacy> {
    if !johab_valid(bytes) {
        return None;
    }
    let (johab, _) = decode_johab(bytes);
    let (common, hangul) = common_hangul(&johab);
    if hangul < 8 || common * 100 < hangul * 95 {
        return None;
    }
    let (theirs, their_errors) = guess.decode_without_bom_handling(bytes);
    let (their_common, their_hangul) = common_hangul(&theirs);
    (their_errors || their_common * hangul < common * their_hangul.max(1)).then_some(Legacy::Johab)
}

/// Whether every byte sequence is valid Johab (stops at the first that is not).
fn johab_valid(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] < 0x80 {
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(&c2) if johab_pair(bytes[i], c2).is_some() => i += 2,
            _ => return false,
        }
    }
    true
}

/// (common, all) Hangul syllables in a text; common ones are those KS X 1001 encodes.
fn common_hangul(text: &str) -> (usize, usize) {
    static COMMON: OnceLock<Vec<u64>> = OnceLock::new();
    let set = COMMON.get_or_init(|| {
        let mut bytes = Vec::with_capacity(2 * 25 * 94);
        for lead in 0xB0..=0xC8u8 {
            for trail in 0xA1..=0xFEu8 {
                bytes.extend([lead, trail]);
            }
        }
        let (text, _) = encoding_rs::EUC_KR.decode_without_bom_handling(&bytes);
        let mut set = vec![0u64; 11172usize.div_ceil(64)];
        for c in text.chars() {
            if let Some(i) = (c as usize).checked_sub(0xAC00).filter(|&i| i < 11172) {
                set[i / 64] |= 1 << (i % 64);
            }
        }
        set
    });
    let mut common = 0;
    let mut all = 0;
    for c in text.chars() {
        if let Some(i) = (c as usize).checked_sub(0xAC00).filter(|&i| i < 11172) {
            all += 1;
            if set[i / 64] & (1 << (i % 64)) != 0 {
                common += 1;
            }
        }
    }
    (common, all)
}

const NONE: u8 = 0xFF;
const FILL: u8 = 0xFE;

#[rustfmt::skip]
const JOHAB_CHOSEONG: [u8; 32] = [
    NONE, FILL, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
    14, 15, 16, 17, 18, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
];
#[rustfmt::skip]
const JOHAB_JUNGSEONG: [u8; 32] = [
    NONE, NONE, FILL, 0, 1, 2, 3, 4, NONE, NONE, 5, 6, 7, 8, 9, 10,
    NONE, NONE, 11, 12, 13, 14, 15, 16, NONE, NONE, 17, 18, 19, 20, NONE, NONE,
];
#[rustfmt::skip]
const JOHAB_JONGSEONG: [u8; 32] = [
    NONE, FILL, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, NONE, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, NONE, NONE,
];
/// Hangul compatibility jamo (U+3131 + n) of the initial consonants.
const COMPAT_CHOSEONG: [u8; 19] = [
    0x31, 0x32, 0x34, 0x37, 0x38, 0x39, 0x41, 0x42, 0x43, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B,
    0x4C, 0x4D, 0x4E,
];
/// Hangul compatibility jamo (U+3131 + n) of the final consonants 1..=27.
const COMPAT_JONGSEONG: [u8; 27] = [
    0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x40, 0x41,
    0x42, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4A, 0x4B, 0x4C, 0x4D, 0x4E,
];

/// Johab: ASCII below 0x80; a lead byte 0x84–0xD3 and its trail hold the 5-bit initial, medial
/// and final jamo of a Hangul syllable; leads 0xD9–0xDE (symbols) and 0xE0–0xF9 (Hanja) map
/// arithmetically to the rows of KS X 1001, decoded through EUC-KR.
fn decode_johab(bytes: &[u8]) -> (String, bool) {
    let mut out = String::with_capacity(bytes.len() * 3 / 2);
    let mut errors = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c < 0x80 {
            out.push(c as char);
            i += 1;
            continue;
        }
        let Some(&c2) = bytes.get(i + 1) else {
            out.push('\u{FFFD}');
            errors = true;
            break;
        };
        match johab_pair(c, c2) {
            Some(ch) => {
                out.push(ch);
                i += 2;
            }
            None => {
                out.push('\u{FFFD}');
                errors = true;
                i += 1;
            }
        }
    }
    (out, errors)
}

fn johab_pair(c: u8, c2: u8) -> Option<char> {
    if c < 0xD8 {
        let cho = (c >> 2) & 0x1F;
        let jung = ((c << 3) | (c2 >> 5)) & 0x1F;
        let jong = c2 & 0x1F;
        let (i_cho, i_jung, i_jong) = (
            JOHAB_CHOSEONG[usize::from(cho)],
            JOHAB_JUNGSEONG[usize::from(jung)],
            JOHAB_JONGSEONG[usize::from(jong)],
        );
        if i_cho == NONE || i_jung == NONE || i_jong == NONE {
            return None;
        }
        let compat = |n: u8| char::from_u32(0x3100 + u32::from(n));
        return match (i_cho == FILL, i_jung == FILL, i_jong == FILL) {
            (true, true, true) => Some('\u{3000}'),
            (true, true, false) => compat(COMPAT_JONGSEONG[usize::from(i_jong - 1)]),
            (true, false, true) => compat(0x4F + i_jung),
            (false, true, true) => compat(COMPAT_CHOSEONG[usize::from(i_cho)]),
            (false, false, _) => char::from_u32(
                0xAC00
                    + u32::from(i_cho) * 588
                    + u32::from(i_jung) * 28
                    + if i_jong == FILL { 0 } else { u32::from(i_jong) },
            ),
            _ => None,
        };
    }
    if c == 0xD8
        || c == 0xDF
        || c > 0xF9
        || c2 < 0x31
        || (0x80..0x91).contains(&c2)
        || c2 & 0x7F == 0x7F
        || (c == 0xDA && (0xA1..=0xD3).contains(&c2))
    {
        return None;
    }
    let row = if c < 0xE0 {
        2 * u32::from(c - 0xD9)
    } else {
        2 * u32::from(c) - 0x197
    };
    let col = if c2 < 0x91 {
        u32::from(c2) - 0x31
    } else {
        u32::from(c2) - 0x43
    };
    let (row, col) = if col < 0x5E {
        (row + 0x21, col + 0x21)
    } else {
        (row + 0x22, col - 0x5E + 0x21)
    };
    let pair = [(row as u8) | 0x80, (col as u8) | 0x80];
    let (text, errors) = encoding_rs::EUC_KR.decode_without_bom_handling(&pair);
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(ch), None) if !errors => Some(ch),
        _ => None,
    }
}

/// ISO-2022-KR (RFC 1557): after `ESC $ ) C`, SO shifts to KS X 1001 (two 7-bit bytes per
/// character, EUC-KR's bytes without their high bit) and SI back to ASCII; a line starts in
/// ASCII.
pub(super) fn decode_iso_2022_kr(bytes: &[u8]) -> (String, bool) {
    let mut euc = Vec::with_capacity(bytes.len());
    let mut shifted = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            0x1B if bytes[i..].starts_with(b"\x1b$)C") => {
                i += 4;
                continue;
            }
            0x0E => shifted = true,
            0x0F => shifted = false,
            b'\n' | b'\r' => {
                shifted = false;
                euc.push(b);
            }
            0x21..=0x7E if shifted => euc.push(b | 0x80),
            _ => euc.push(b),
        }
        i += 1;
    }
    let (text, errors) = encoding_rs::EUC_KR.decode_without_bom_handling(&euc);
    (text.into_owned(), errors)
}

/// Hangul syllables and ASCII to Johab (the inverse of [`johab_pair`] for them).
#[cfg(test)]
pub(super) fn encode_johab_for_tests(text: &str) -> Vec<u8> {
    let index = |table: &[u8; 32], i: u8| table.iter().position(|&v| v == i).unwrap() as u16;
    let mut out = Vec::new();
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c as u8);
            continue;
        }
        let s = c as u32 - 0xAC00;
        let (cho, jung, jong) = ((s / 588) as u8, (s % 588 / 28) as u8, (s % 28) as u8);
        let jong = if jong == 0 {
            index(&JOHAB_JONGSEONG, FILL)
        } else {
            index(&JOHAB_JONGSEONG, jong)
        };
        let code =
            0x8000 | index(&JOHAB_CHOSEONG, cho) << 10 | index(&JOHAB_JUNGSEONG, jung) << 5 | jong;
        out.extend(code.to_be_bytes());
    }
    out
}
