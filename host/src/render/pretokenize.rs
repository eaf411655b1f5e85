//! The pre-tokenizers of OpenAI's `cl100k` and `o200k` BPEs written out by hand: the same
//! pieces as `bpe_openai::Tokenizer::split` (a regular expression run anchored at each piece's
//! start), several times faster. Counting tokens splits every chunk's text, and the regular
//! expression was the largest single cost of chunking after the BPE itself.
//!
//! The patterns, as `bpe-openai` 0.3 writes them (one alternation, tried in order, leftmost
//! first; the second pattern's last character is a look-ahead that is dropped from the piece):
//!
//! ```text
//! cl100k: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//!         | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+$    then \s+\s (look-ahead), then \s+
//! o200k:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|…)?
//!         |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|…)?
//!         |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+$    then \s+\s, then \s+
//! ```
//!
//! Each alternative below is what a backtracking matcher finds for it (which is what
//! leftmost-first semantics report), including the backtracking that matters: an optional
//! first character given back when what follows fails (`X?\p{L}+`), a run of upper-case
//! letters given back to its last character that is also lower-case (o200k's `U*W+`: marks,
//! modifier and other letters are both), a whitespace run cut after its last line break
//! (`\s*[\r\n]+`) or before its last character (`\s+\s`).
//!
//! Character classes come from `regex-syntax`, the crate the regular expression is compiled
//! with (the same version in the lock file), parsed from the same class expressions: the
//! Unicode tables cannot disagree. They are looked up in one byte of flags per code point
//! (ASCII directly, the rest through a two-level table built on first use).

use regex_syntax::hir::{Class, HirKind};
use std::sync::LazyLock;

/// `\p{L}`.
const LETTER: u8 = 1;
/// `\p{N}`.
const NUMBER: u8 = 2;
/// `\s` (Unicode `White_Space`).
const SPACE: u8 = 4;
/// `\r` or `\n`.
const BREAK: u8 = 8;
/// o200k's upper-case-like class `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
const UPPER: u8 = 16;
/// o200k's lower-case-like class `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
const LOWER: u8 = 32;

/// The class expressions of the patterns, and their flags.
const CLASSES: [(&str, u8); 6] = [
    (r"\p{L}", LETTER),
    (r"\p{N}", NUMBER),
    (r"\s", SPACE),
    (r"[\r\n]", BREAK),
    (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPER),
    (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWER),
];

/// Code points per block of the two-level table.
const BLOCK: usize = 256;

struct Tables {
    ascii: [u8; 128],
    /// The block of each 256 code points, an index into `blocks` (in units of `BLOCK`).
    index: Box<[u16]>,
    blocks: Box<[u8]>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(Tables::build);

/// The ranges of a class expression, as `regex-syntax` parses it.
fn class_ranges(expr: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::Parser::new()
        .parse(expr)
        .expect("a valid class expression");
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .map(|r| (r.start() as u32, r.end() as u32))
            .collect(),
        HirKind::Literal(_) => expr.chars().map(|c| (c as u32, c as u32)).collect(),
        other => panic!("{expr} is not a class: {other:?}"),
    }
}

impl Tables {
    fn build() -> Tables {
        let mut all = vec![0u8; 0x11_0000];
        for (expr, flag) in CLASSES {
            for (start, end) in class_ranges(expr) {
                for f in &mut all[start as usize..=end as usize] {
                    *f |= flag;
                }
            }
        }
        let mut ascii = [0u8; 128];
        ascii.copy_from_slice(&all[..128]);
        let mut seen: std::collections::HashMap<&[u8], u16> = Default::default();
        let mut index = Vec::with_capacity(all.len() / BLOCK);
        let mut blocks = Vec::new();
        for block in all.chunks(BLOCK) {
            let next = seen.len() as u16;
            let at = *seen.entry(block).or_insert_with(|| {
                blocks.extend_from_slice(block);
                next
            });
            index.push(at);
        }
        Tables {
            ascii,
            index: index.into(),
            blocks: blocks.into(),
        }
    }

    /// The flags of the character at byte `i` of `s` (valid UTF-8, `i` on a character
    /// boundary) and its length.
    #[inline(always)]
    fn class(&self, s: &[u8], i: usize) -> (u8, usize) {
        let b = s[i];
        if b < 0x80 {
            return (self.ascii[b as usize], 1);
        }
        let (cp, len) = decode(s, i);
        let block = self.index[(cp >> 8) as usize] as usize;
        (self.blocks[block * BLOCK + (cp as usize & 0xff)], len)
    }

    /// Where the run of characters that have one of `flags` starting at `i` ends. Runs of
    /// letters (o200k: of upper- or lower-case letters) go eight ASCII bytes at a time.
    #[inline(always)]
    fn run(&self, s: &[u8], mut i: usize, flags: u8) -> usize {
        let wide = matches!(flags, LETTER | UPPER | LOWER);
        while i < s.len() {
            if wide && i + 8 <= s.len() {
                let w = u64::from_le_bytes(s[i..i + 8].try_into().expect("eight bytes"));
                let stop = !ascii_mask(w, flags) & HIGH;
                if stop == 0 {
                    i += 8;
                    continue;
                }
                i += (stop.trailing_zeros() / 8) as usize;
                if s[i] < 0x80 {
                    return i;
                }
                // A character that is not ASCII: looked up.
            }
            let (c, len) = self.class(s, i);
            if c & flags == 0 {
                break;
            }
            i += len;
        }
        i
    }

    /// Where the run of characters that have none of `flags` starting at `i` ends.
    #[inline(always)]
    fn run_without(&self, s: &[u8], mut i: usize, flags: u8) -> usize {
        while i < s.len() {
            let (c, len) = self.class(s, i);
            if c & flags != 0 {
                break;
            }
            i += len;
        }
        i
    }
}

/// The high bit of every byte of a word.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Each byte of `w` that is an ASCII character of `flags` (`LETTER`, `UPPER` or `LOWER`, whose
/// ASCII characters are `[A-Za-z]`, `[A-Z]` and `[a-z]`) as its high bit; no other bit set.
/// Byte-wise arithmetic on seven-bit values, which never carries into the next byte.
#[inline(always)]
fn ascii_mask(w: u64, flags: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    /// Bytes in `lo..=hi` (`0 < lo <= hi < 0x80`) among `t`'s seven-bit bytes.
    #[inline(always)]
    fn within(t: u64, lo: u8, hi: u8) -> u64 {
        let at_least_lo = t + ONES * (0x80 - lo as u64);
        let above_hi = t + ONES * (0x7f - hi as u64);
        at_least_lo & !above_hi
    }
    let seven = w & !HIGH;
    let found = match flags {
        // Folded to lower case: a byte is a letter when it is one either way.
        LETTER => within(seven | (ONES * 0x20), b'a', b'z'),
        UPPER => within(seven, b'A', b'Z'),
        LOWER => within(seven, b'a', b'z'),
        _ => 0,
    };
    found & !w & HIGH
}

/// A multi-byte UTF-8 character at `i` (its first byte is not ASCII): code point and length.
#[inline(always)]
fn decode(s: &[u8], i: usize) -> (u32, usize) {
    let b = s[i] as u32;
    let cont = |k: usize| (s[i + k] & 0x3f) as u32;
    if b < 0xe0 {
        (((b & 0x1f) << 6) | cont(1), 2)
    } else if b < 0xf0 {
        (((b & 0x0f) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            ((b & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`: where it ends. Case-insensitive is Unicode simple
/// case folding: `s` also matches `ſ` (U+017F); the other letters fold only to their ASCII
/// capitals (checked against `regex-syntax` in the tests).
#[inline]
fn contraction(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'\'') {
        return None;
    }
    let lower = |k: usize| s.get(i + k).map(|b| b | 0x20);
    match lower(1)? {
        b's' | b't' | b'm' | b'd' => Some(i + 2),
        b'r' | b'v' if lower(2) == Some(b'e') => Some(i + 3),
        b'l' if lower(2) == Some(b'l') => Some(i + 3),
        // ſ, U+017F: C5 BF.
        0xe5 if s[i + 1] == 0xc5 && s.get(i + 2) == Some(&0xbf) => Some(i + 3),
        _ => None,
    }
}

/// Which pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Cl100k,
    O200k,
}

/// The pieces of `text`, as `bpe_openai::Tokenizer::split` of that BPE returns them.
pub fn split(pattern: Pattern, text: &str) -> Pieces<'_> {
    Pieces {
        text,
        pos: 0,
        pattern,
        t: &TABLES,
    }
}

/// The iterator of [`split`].
pub struct Pieces<'a> {
    text: &'a str,
    pos: usize,
    pattern: Pattern,
    t: &'static Tables,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let start = self.pos;
        if start >= self.text.len() {
            return None;
        }
        let s = self.text.as_bytes();
        let end = match self.pattern {
            Pattern::Cl100k => cl100k(self.t, s, start),
            Pattern::O200k => o200k(self.t, s, start),
        };
        debug_assert!(end > start && self.text.is_char_boundary(end));
        self.pos = end;
        Some(&self.text[start..end])
    }
}

/// The end of the cl100k piece that starts at `p` (`p < s.len()`).
fn cl100k(t: &Tables, s: &[u8], p: usize) -> usize {
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    if let Some(end) = contraction(s, p) {
        return end;
    }
    let (c0, len0) = t.class(s, p);
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if c0 & LETTER != 0 {
        return t.run(s, p, LETTER);
    }
    if c0 & (BREAK | LETTER | NUMBER) == 0 && p + len0 < s.len() {
        let (c1, _) = t.class(s, p + len0);
        if c1 & LETTER != 0 {
            return t.run(s, p + len0, LETTER);
        }
    }
    // \p{N}{1,3}
    if c0 & NUMBER != 0 {
        return digits(t, s, p);
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
    if let Some(end) = punctuation(t, s, p, c0, false) {
        return end;
    }
    space(t, s, p)
}

/// The end of the o200k piece that starts at `p` (`p < s.len()`).
fn o200k(t: &Tables, s: &[u8], p: usize) -> usize {
    let (c0, len0) = t.class(s, p);
    // The two word alternatives, each first with a leading character of
    // [^\r\n\p{L}\p{N}], then without.
    let lead = c0 & (BREAK | LETTER | NUMBER) == 0;
    if lead {
        if let Some(end) = upper_lower(t, s, p + len0) {
            return end;
        }
    }
    if let Some(end) = upper_lower(t, s, p) {
        return end;
    }
    if lead {
        if let Some(end) = upper_then_lower(t, s, p + len0) {
            return end;
        }
    }
    if let Some(end) = upper_then_lower(t, s, p) {
        return end;
    }
    // \p{N}{1,3}
    if c0 & NUMBER != 0 {
        return digits(t, s, p);
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
    if let Some(end) = punctuation(t, s, p, c0, true) {
        return end;
    }
    space(t, s, p)
}

/// `[U]*[W]+(?i:'s|…)?` at `q` (U and W o200k's upper and lower classes, which share marks,
/// modifier and other letters): the U run is given back to its last W character when no W
/// follows it.
#[inline]
fn upper_lower(t: &Tables, s: &[u8], q: usize) -> Option<usize> {
    let mut i = q;
    let mut last_lower_end = None;
    while i < s.len() {
        let (c, len) = t.class(s, i);
        if c & UPPER == 0 {
            if c & LOWER != 0 {
                let end = t.run(s, i, LOWER);
                return Some(contraction(s, end).unwrap_or(end));
            }
            break;
        }
        if c & LOWER != 0 {
            last_lower_end = Some(i + len);
        }
        i += len;
    }
    last_lower_end.map(|end| contraction(s, end).unwrap_or(end))
}

/// `[U]+[W]*(?i:'s|…)?` at `q`.
#[inline]
fn upper_then_lower(t: &Tables, s: &[u8], q: usize) -> Option<usize> {
    let upper = t.run(s, q, UPPER);
    if upper == q {
        return None;
    }
    let end = t.run(s, upper, LOWER);
    Some(contraction(s, end).unwrap_or(end))
}

/// `\p{N}{1,3}` at `p`, whose character is a number.
#[inline]
fn digits(t: &Tables, s: &[u8], p: usize) -> usize {
    let mut i = p;
    for _ in 0..3 {
        if i >= s.len() {
            break;
        }
        let (c, len) = t.class(s, i);
        if c & NUMBER == 0 {
            break;
        }
        i += len;
    }
    i
}

/// ` ?[^\s\p{L}\p{N}]+[\r\n]*` (o200k: `[\r\n/]*`) at `p`, whose character has flags `c0`.
#[inline]
fn punctuation(t: &Tables, s: &[u8], p: usize, c0: u8, slash: bool) -> Option<usize> {
    let other = SPACE | LETTER | NUMBER;
    let start = if s[p] == b' ' && p + 1 < s.len() && t.class(s, p + 1).0 & other == 0 {
        p + 1
    } else if c0 & other == 0 {
        p
    } else {
        return None;
    };
    let mut end = t.run_without(s, start, other);
    while end < s.len() && (s[end] == b'\r' || s[end] == b'\n' || (slash && s[end] == b'/')) {
        end += 1;
    }
    Some(end)
}

/// A whitespace run at `p`: `\s*[\r\n]+` (up to its last line break), `\s+$`, `\s+\s` less
/// the look-ahead (all but its last character), or `\s+` (one character).
#[inline]
fn space(t: &Tables, s: &[u8], p: usize) -> usize {
    let mut i = p;
    let mut last = p;
    let mut after_break = None;
    while i < s.len() {
        let (c, len) = t.class(s, i);
        if c & SPACE == 0 {
            break;
        }
        if c & BREAK != 0 {
            after_break = Some(i + len);
        }
        last = i;
        i += len;
    }
    if let Some(end) = after_break {
        end
    } else if i == s.len() || last == p {
        i
    } else {
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both() -> [(Pattern, &'static bpe_openai::Tokenizer); 2] {
        [
            (Pattern::Cl100k, bpe_openai::cl100k_base()),
            (Pattern::O200k, bpe_openai::o200k_base()),
        ]
    }

    /// The pieces of `text` by hand and by the regular expression, for both BPEs.
    #[track_caller]
    fn check(text: &str) {
        for (pattern, bpe) in both() {
            let ours: Vec<&str> = split(pattern, text).collect();
            let theirs: Vec<&str> = bpe.split(text).collect();
            assert_eq!(ours, theirs, "{pattern:?} on {text:?}");
        }
    }

    /// A small deterministic generator (SplitMix64): the same strings on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    #[test]
    fn contractions_fold_as_regex_syntax_folds_them() {
        // `contraction` spells out (?i) for the letters of 's 't 're 've 'm 'll 'd.
        for letter in ['s', 't', 'r', 'e', 'v', 'm', 'l', 'd'] {
            let folded: Vec<(u32, u32)> = class_ranges(&format!("(?i){letter}"))
                .into_iter()
                .filter(|r| r.0 != r.1 || r.0 != letter.to_ascii_uppercase() as u32)
                .filter(|r| r.0 != r.1 || r.0 != letter as u32)
                .collect();
            let expected = if letter == 's' {
                vec![(0x17f, 0x17f)]
            } else {
                vec![]
            };
            assert_eq!(folded, expected, "{letter}");
        }
        check("it's IT'S it'ſ we're WE'RE we've I'm I'M they'll THEY'LL he'd HE'D don't DON'T");
        check("'s's'ſ'S'x''re're'rE'Re'l'lL'v'e 'd'");
    }

    #[test]
    fn classes_are_the_regex_classes() {
        let t = &*TABLES;
        let mut buf = [0u8; 4];
        for (c, flags) in [
            ('a', LETTER | LOWER),
            ('Z', LETTER | UPPER),
            ('ǅ', LETTER | UPPER),
            ('ʰ', LETTER | UPPER | LOWER),
            ('中', LETTER | UPPER | LOWER),
            ('\u{301}', UPPER | LOWER),
            ('٣', NUMBER),
            ('Ⅻ', NUMBER),
            ('\n', SPACE | BREAK),
            ('\u{3000}', SPACE),
            ('\u{85}', SPACE),
            ('/', 0),
            ('😀', 0),
        ] {
            let s = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(t.class(s, 0), (flags, s.len()), "{c:?}");
        }
    }

    #[test]
    fn ascii_masks_are_the_classes() {
        // Every byte at every place of a word among other bytes, for the three classes the
        // runs read eight bytes at a time.
        let t = &*TABLES;
        let mut rng = Rng(0xa5c1);
        for flags in [LETTER, UPPER, LOWER] {
            for b in 0..=255u8 {
                for place in 0..8 {
                    let mut bytes = (rng.next()).to_le_bytes();
                    bytes[place] = b;
                    let mask = ascii_mask(u64::from_le_bytes(bytes), flags);
                    let want = b < 0x80 && t.ascii[b as usize] & flags != 0;
                    assert_eq!(mask >> (8 * place) & 0xff, if want { 0x80 } else { 0 });
                }
            }
        }
    }

    #[test]
    fn every_short_string_splits_like_the_regex() {
        // Every string of up to four characters over one character of each kind the patterns
        // tell apart: lower, upper, title-case, modifier and other letters, a combining mark,
        // a digit, the contraction letters, punctuation, the slash and the kinds of space.
        let alphabet = [
            "a", "B", "ǅ", "ʰ", "中", "\u{301}", "1", "'", "s", ".", "/", " ", "\n", "\r", "\t",
            "\u{a0}",
        ];
        let mut text = String::new();
        let mut count = 0;
        for len in 1..=4u32 {
            for mut k in 0..alphabet.len().pow(len) {
                text.clear();
                for _ in 0..len {
                    text.push_str(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                check(&text);
                count += 1;
            }
        }
        assert_eq!(count, 16 + 256 + 4096 + 65536);
    }

    #[test]
    fn random_texts_split_like_the_regex() {
        let words = [
            "the",
            "The",
            "THE",
            "tHe",
            "McDonald",
            "iPhone",
            "naïve",
            "café",
            "Straße",
            "ÉCOLE",
            "ǅemal",
            "ǄEMAL",
            "ʰa",
            "ªb",
            "東京",
            "データ",
            "ひらがな",
            "한국어",
            "русский",
            "ΑΘΗΝΑ",
            "ελληνικά",
            "العربية",
            "हिन्दी",
            "ﬀ",
            "K",
            "ſ",
            "e\u{301}",
            "E\u{301}X",
            "\u{301}",
            "\u{20dd}",
            "\u{903}",
            "a\u{308}\u{301}b",
            "internationalization",
            "ALLCAPSWORDHERE",
            "camelCaseWordsHere",
            "xxxxxxxé",
            "XXXXXXXÉ",
            "xxxxxxxxʰyyyy",
            "ABCDEFGHǅIJ",
            "abcdefgh中ijk",
        ];
        let glue = [
            " ",
            "  ",
            "   ",
            "\t",
            "\n",
            "\r\n",
            "\n\n",
            " \n ",
            "\r",
            "\u{b}",
            "\u{c}",
            "\u{a0}",
            "\u{2003}",
            "\u{3000}",
            "\u{85}",
            "\u{2028}",
            "\u{1680}",
            " \u{a0} ",
            ".",
            ",",
            "!",
            "?",
            "...",
            "'",
            "\"",
            "(",
            ")",
            "-",
            "--",
            "/",
            "//",
            ":/",
            "#",
            "$",
            "%",
            "&",
            "*",
            "+",
            "=",
            "<",
            ">",
            "@",
            "[",
            "]",
            "^",
            "_",
            "`",
            "{",
            "|",
            "}",
            "~",
            "\\",
            ";",
            "😀",
            "👍🏽",
            "👨‍👩‍👧",
            "…",
            "—",
            "«",
            "»",
            "’",
            "€",
            "\u{200b}",
            "'s",
            "'S",
            "'t",
            "'T",
            "'re",
            "'RE",
            "'ve",
            "'m",
            "'M",
            "'ll",
            "'LL",
            "'d",
            "'D",
            "'ſ",
            "'x",
            "²",
            "½",
            "Ⅻ",
            "٣",
            "１",
            "!\n/",
            ".\r\n/x",
        ];
        let mut rng = Rng(0x5eed_0015);
        let mut text = String::new();
        for _ in 0..40_000 {
            text.clear();
            for _ in 0..1 + rng.below(12) {
                match rng.below(8) {
                    0..=2 => text.push_str(rng.pick(&words)),
                    3 => {
                        for _ in 0..1 + rng.below(10) {
                            text.push(char::from(b'0' + rng.below(10) as u8));
                        }
                    }
                    4 => {
                        for _ in 0..1 + rng.below(6) {
                            let b = rng.below(95) as u8 + b' ';
                            text.push(char::from(b));
                        }
                    }
                    _ => text.push_str(rng.pick(&glue)),
                }
            }
            check(&text);
        }
    }

    #[test]
    fn corpus_texts_split_like_the_regex() {
        let Some(corpus) = quire_testkit::corpus_dir() else {
            return;
        };
        let mut dirs = vec![corpus];
        let mut files = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    for (pattern, bpe) in both() {
                        let same = split(pattern, &text).eq(bpe.split(&text));
                        assert!(same, "{pattern:?} on {}", path.display());
                    }
                    files += 1;
                }
            }
        }
        assert!(files > 0);
    }
}
