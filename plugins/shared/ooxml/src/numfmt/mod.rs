//! Excel number formats rendered the way Excel (en-US) shows a cell: `#,##0.00`, `0.00%`,
//! `"$"#,##0_);($#,##0)`, `# ?/?`, `d-mmm-yy`, `[h]:mm:ss`, quoted literals, conditions...
//!
//! calamine reports whether a format is a date, but not the format itself, so the spreadsheet
//! converter reads the format codes (styles.xml, BIFF FORMAT records) and renders numbers here;
//! a chart part's cached points carry their format code too ([`crate::chart`]). A format
//! is parsed once per workbook style ([`NumFmt::parse`]) and applied to many cells; [`number`]
//! renders digits, grouping, fractions and exponents, [`date`] renders dates and times.
//! Unsupported pieces (fill characters `*x`, colours, locale ids) are dropped, not guessed.

/// A parsed number format: up to four sections.
mod date;
mod number;

use date::format_date;
pub use date::{iso_serial, max_serial, serial_parts, MAX_SERIAL};
use number::{format_number, render_literals};

#[derive(Debug, Clone)]
pub struct NumFmt {
    sections: Vec<Section>,
    general: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Section {
    pub(crate) tokens: Vec<Tok>,
    condition: Option<(Cmp, f64)>,
    pub(crate) is_date: bool,
    pub(crate) is_text: bool,
    pub(crate) has_digits: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Lit(String),
    /// Digit placeholder: b'0', b'#' or b'?'.
    Digit(u8),
    Point,
    Comma,
    Percent,
    /// Exponent marker; `true` when the sign is always shown (`E+`).
    Exp(bool),
    Slash,
    At,
    General,
    Year(u8),
    Month(u8),
    Day(u8),
    Hour(u8),
    Minute(u8),
    Second(u8),
    /// `[h]`, `[m]`, `[s]` elapsed time.
    Elapsed(u8, u8),
    SubSec(u8),
    AmPm(bool),
}

/// Built-in format codes (ECMA-376 18.8.30, en-US, as Excel and POI show them).
pub fn builtin(id: u32) -> Option<&'static str> {
    Some(match id {
        0 => "General",
        1 => "0",
        2 => "0.00",
        3 => "#,##0",
        4 => "#,##0.00",
        5 => "\"$\"#,##0_);(\"$\"#,##0)",
        6 => "\"$\"#,##0_);[Red](\"$\"#,##0)",
        7 => "\"$\"#,##0.00_);(\"$\"#,##0.00)",
        8 => "\"$\"#,##0.00_);[Red](\"$\"#,##0.00)",
        9 => "0%",
        10 => "0.00%",
        11 => "0.00E+00",
        12 => "# ?/?",
        13 => "# ??/??",
        14 => "m/d/yy",
        15 => "d-mmm-yy",
        16 => "d-mmm",
        17 => "mmm-yy",
        18 => "h:mm AM/PM",
        19 => "h:mm:ss AM/PM",
        20 => "h:mm",
        21 => "h:mm:ss",
        22 => "m/d/yy h:mm",
        37 => "#,##0_);(#,##0)",
        38 => "#,##0_);[Red](#,##0)",
        39 => "#,##0.00_);(#,##0.00)",
        40 => "#,##0.00_);[Red](#,##0.00)",
        41 => "_(* #,##0_);_(* (#,##0);_(* \"-\"_);_(@_)",
        42 => "_(\"$\"* #,##0_);_(\"$\"* (#,##0);_(\"$\"* \"-\"_);_(@_)",
        43 => "_(* #,##0.00_);_(* (#,##0.00);_(* \"-\"??_);_(@_)",
        44 => "_(\"$\"* #,##0.00_);_(\"$\"* (#,##0.00);_(\"$\"* \"-\"??_);_(@_)",
        45 => "mm:ss",
        46 => "[h]:mm:ss",
        47 => "mm:ss.0",
        48 => "##0.0E+0",
        49 => "@",
        _ => return None,
    })
}

/// A decimal's text without the zeros ending its fraction (and its point, when nothing is
/// left after it).
fn without_trailing_zeros(mut text: String) -> String {
    if text.contains('.') {
        let kept = text.trim_end_matches('0').trim_end_matches('.').len();
        text.truncate(kept);
    }
    text
}

/// A number as Excel's General format shows it, keeping the digits a person typed.
///
/// A value whose shortest exact text has more than 15 significant digits was computed (a
/// quotient, a sum with binary noise): from 0.0001 up to 10^11 it is shown as Excel shows it,
/// in at most 11 characters besides its sign (as in the CSV Excel writes): nine decimals below
/// 1 (`0.942857143` for 33/35), else ten significant digits (`39628` for
/// 39627.999999988424, `285.5714286`); other magnitudes are rounded to 15 significant digits
/// (Excel's precision, which removes noise like `0.30000000000000004`). A value of 15 digits
/// or fewer is shown whole, where Excel would cut it to fit 11 characters: `1589036664.03`
/// (Excel shows `1589036664`) and a 12-digit account number (Excel: `1.23457E+11`) keep
/// their digits.
pub fn plain_number(v: f64) -> String {
    if !v.is_finite() {
        return "#NUM!".into();
    }
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let mut buf = ryu::Buffer::new();
    // the shortest round-trip text; only 16-17 significant digits can carry binary noise
    let digits = buf
        .format_finite(v)
        .bytes()
        .take_while(|&b| b != b'e')
        .skip_while(|&b| matches!(b, b'-' | b'0' | b'.'))
        .filter(u8::is_ascii_digit)
        .count();
    let abs = v.abs();
    if digits > 15 && (1e-4..1e11).contains(&abs) {
        let magnitude = abs.log10().floor() as i32;
        let decimals = if magnitude < 0 {
            9
        } else {
            (9 - magnitude).max(0)
        } as usize;
        let out = without_trailing_zeros(format!("{v:.decimals$}"));
        return if out == "-0" { "0".into() } else { out };
    }
    let rounded: f64 = if digits > 15 {
        format!("{v:.14e}").parse().unwrap_or(v)
    } else {
        v
    };
    let s = buf.format_finite(rounded);
    if !s.contains('e') {
        return s.strip_suffix(".0").unwrap_or(s).to_owned();
    }
    let abs = rounded.abs();
    if (1e-9..1e21).contains(&abs) {
        // expand exponent notation into plain digits
        return without_trailing_zeros(format!("{rounded:.20}"));
    }
    s.to_owned()
}

impl NumFmt {
    /// Parses a format code. Never fails: what is not understood becomes literal text.
    pub fn parse(code: &str) -> NumFmt {
        // `[$-F800]` and `[$-F400]` ask for the system's long date and time, whatever follows
        // (en-US, as Excel shows them there)
        let lower = code.trim_start().to_ascii_lowercase();
        let code = if lower.starts_with("[$-f800]") {
            "dddd, mmmm d, yyyy"
        } else if lower.starts_with("[$-f400]") {
            "h:mm:ss AM/PM"
        } else {
            code
        };
        let mut sections = Vec::new();
        let mut cur = Section::default();
        let chars: Vec<char> = code.chars().collect();
        let mut i = 0;
        let push_lit = |s: &mut Section, c: &str| {
            if let Some(Tok::Lit(prev)) = s.tokens.last_mut() {
                prev.push_str(c);
            } else {
                s.tokens.push(Tok::Lit(c.to_owned()));
            }
        };
        while i < chars.len() {
            let c = chars[i];
            let run = |ch: char| {
                let mut n = 0;
                while i + n < chars.len() && chars[i + n].eq_ignore_ascii_case(&ch) {
                    n += 1;
                }
                n
            };
            match c {
                ';' => {
                    sections.push(std::mem::take(&mut cur));
                    i += 1;
                }
                '"' => {
                    let mut j = i + 1;
                    let mut s = String::new();
                    while j < chars.len() && chars[j] != '"' {
                        s.push(chars[j]);
                        j += 1;
                    }
                    push_lit(&mut cur, &s);
                    i = j + 1;
                }
                '\\' => {
                    if let Some(n) = chars.get(i + 1) {
                        push_lit(&mut cur, &n.to_string());
                    }
                    i += 2;
                }
                '_' => {
                    push_lit(&mut cur, " ");
                    i += 2;
                }
                '*' => i += 2,
                '[' => {
                    let mut j = i + 1;
                    let mut s = String::new();
                    while j < chars.len() && chars[j] != ']' {
                        s.push(chars[j]);
                        j += 1;
                    }
                    i = j + 1;
                    let lower = s.to_ascii_lowercase();
                    if !lower.is_empty() && lower.chars().all(|c| matches!(c, 'h' | 'm' | 's')) {
                        let kind = lower.as_bytes()[0];
                        cur.tokens.push(Tok::Elapsed(kind, lower.len() as u8));
                        cur.is_date = true;
                    } else if let Some(rest) = s.strip_prefix('$') {
                        let sym = rest.split('-').next().unwrap_or_default();
                        if !sym.is_empty() {
                            push_lit(&mut cur, sym);
                        }
                    } else if let Some(cond) = parse_condition(&s) {
                        cur.condition = Some(cond);
                    }
                    // colours and other bracketed codes are dropped
                }
                '0' | '#' | '?' => {
                    cur.tokens.push(Tok::Digit(c as u8));
                    cur.has_digits = true;
                    i += 1;
                }
                '.' => {
                    // `ss.00` is sub-seconds in a date section
                    let zeros = chars[i + 1..].iter().take_while(|&&c| c == '0').count();
                    if zeros > 0
                        && matches!(
                            cur.tokens.last(),
                            Some(Tok::Second(_)) | Some(Tok::Elapsed(b's', _))
                        )
                    {
                        cur.tokens.push(Tok::SubSec(zeros as u8));
                        i += 1 + zeros;
                    } else {
                        cur.tokens.push(Tok::Point);
                        i += 1;
                    }
                }
                ',' => {
                    cur.tokens.push(Tok::Comma);
                    i += 1;
                }
                '%' => {
                    cur.tokens.push(Tok::Percent);
                    i += 1;
                }
                '/' if cur.has_digits && !cur.is_date => {
                    cur.tokens.push(Tok::Slash);
                    i += 1;
                }
                'E' | 'e'
                    if cur.has_digits && matches!(chars.get(i + 1), Some('+') | Some('-')) =>
                {
                    cur.tokens.push(Tok::Exp(chars[i + 1] == '+'));
                    i += 2;
                }
                '@' => {
                    cur.tokens.push(Tok::At);
                    cur.is_text = true;
                    i += 1;
                }
                'G' | 'g'
                    if chars[i..]
                        .iter()
                        .take(7)
                        .collect::<String>()
                        .eq_ignore_ascii_case("general") =>
                {
                    cur.tokens.push(Tok::General);
                    i += 7;
                }
                'A' | 'a' if starts_with_ci(&chars[i..], "am/pm") => {
                    cur.tokens.push(Tok::AmPm(true));
                    cur.is_date = true;
                    i += 5;
                }
                'A' | 'a' if starts_with_ci(&chars[i..], "a/p") => {
                    cur.tokens.push(Tok::AmPm(false));
                    cur.is_date = true;
                    i += 3;
                }
                'y' | 'Y' | 'e' => {
                    let n = run(c).max(1);
                    cur.tokens.push(Tok::Year(n as u8));
                    cur.is_date = true;
                    i += n;
                }
                'm' | 'M' => {
                    let n = run('m');
                    cur.tokens.push(Tok::Month(n as u8));
                    cur.is_date = true;
                    i += n;
                }
                'd' | 'D' => {
                    let n = run('d');
                    cur.tokens.push(Tok::Day(n as u8));
                    cur.is_date = true;
                    i += n;
                }
                'h' | 'H' => {
                    let n = run('h');
                    cur.tokens.push(Tok::Hour(n as u8));
                    cur.is_date = true;
                    i += n;
                }
                's' | 'S' => {
                    let n = run('s');
                    cur.tokens.push(Tok::Second(n as u8));
                    cur.is_date = true;
                    i += n;
                }
                _ => {
                    push_lit(&mut cur, &c.to_string());
                    i += 1;
                }
            }
        }
        sections.push(cur);
        for s in &mut sections {
            resolve_minutes(&mut s.tokens);
            if s.is_date {
                // digit placeholders in a date section are literal ("0" rarely appears)
                s.has_digits = false;
            }
        }
        let general = sections.len() == 1
            && sections[0].tokens.len() == 1
            && sections[0].tokens[0] == Tok::General;
        NumFmt { sections, general }
    }

    /// Whether this format is `General` (the caller uses its own plain number rendering).
    pub fn is_general(&self) -> bool {
        self.general
    }

    /// Renders a number (`date1904` for the 1904 date system).
    pub fn format(&self, value: f64, date1904: bool) -> String {
        if !value.is_finite() {
            return "#NUM!".into();
        }
        let (section, shown, sign) = self.pick(value);
        // an elapsed count alone (`[h]`, `[s]`: no clock or calendar part) keeps its sign
        let elapsed = section
            .tokens
            .iter()
            .filter(|t| !matches!(t, Tok::Lit(_)))
            .all(|t| matches!(t, Tok::Elapsed(..)))
            && section.tokens.iter().any(|t| matches!(t, Tok::Elapsed(..)));
        // Excel shows no date or time before its first day: the cell fills with #
        if section.is_date && value < 0.0 && !date1904 && !elapsed {
            return "########".into();
        }
        // a negative section of its own shows the value as it is written
        let negative = value < 0.0 && self.sections.iter().filter(|s| !s.is_text).count() == 1;
        let value = shown;
        let out = if section.is_date && elapsed && negative {
            format!("-{}", format_date(section, value.abs(), date1904))
        } else if section.is_date {
            format_date(section, value, date1904)
        } else if section.tokens.contains(&Tok::General)
            || (!section.has_digits && !section.tokens.iter().any(|t| matches!(t, Tok::Lit(_))))
        {
            let mut s = plain_number(value);
            if sign {
                s.insert(0, '-');
            }
            render_literals(section, &s)
        } else {
            let s = format_number(section, value);
            if sign && s.chars().any(|c| c.is_ascii_digit() && c != '0') {
                format!("-{s}")
            } else {
                s
            }
        };
        out.trim().to_owned()
    }

    /// Picks the section for `value`; returns it, the value to show and whether a minus sign
    /// must be added (only the first section of a single- or condition-chosen format).
    fn pick(&self, value: f64) -> (&Section, f64, bool) {
        let num_secs: Vec<&Section> = self.sections.iter().filter(|s| !s.is_text).collect();
        let empty = &self.sections[0];
        if num_secs.iter().any(|s| s.condition.is_some()) {
            for s in &num_secs {
                if let Some((cmp, x)) = s.condition {
                    if compare(cmp, value, x) {
                        return (s, value.abs(), value < 0.0 && num_secs.len() == 1);
                    }
                } else {
                    return (s, value.abs(), value < 0.0);
                }
            }
            return (
                num_secs.last().copied().unwrap_or(empty),
                value.abs(),
                value < 0.0,
            );
        }
        match num_secs.len() {
            0 => (empty, value, false),
            1 => (
                num_secs[0],
                value.abs(),
                value < 0.0 && !num_secs[0].is_date,
            ),
            2 => {
                if value < 0.0 {
                    (num_secs[1], value.abs(), false)
                } else {
                    (num_secs[0], value, false)
                }
            }
            _ => {
                if value < 0.0 {
                    (num_secs[1], value.abs(), false)
                } else if value == 0.0 {
                    (num_secs[2], value, false)
                } else {
                    (num_secs[0], value, false)
                }
            }
        }
    }

    /// Renders text through the format's text section (`@`), if it has one.
    pub fn format_text(&self, text: &str) -> Option<String> {
        let s = self.sections.iter().find(|s| s.is_text)?;
        let mut out = String::new();
        for t in &s.tokens {
            match t {
                Tok::At => out.push_str(text),
                Tok::Lit(l) => out.push_str(l),
                _ => {}
            }
        }
        Some(out.trim().to_owned())
    }
}

fn starts_with_ci(chars: &[char], pat: &str) -> bool {
    let n = pat.chars().count();
    chars.len() >= n
        && chars[..n]
            .iter()
            .collect::<String>()
            .eq_ignore_ascii_case(pat)
}

fn parse_condition(s: &str) -> Option<(Cmp, f64)> {
    let (cmp, rest) = if let Some(r) = s.strip_prefix(">=") {
        (Cmp::Ge, r)
    } else if let Some(r) = s.strip_prefix("<=") {
        (Cmp::Le, r)
    } else if let Some(r) = s.strip_prefix("<>") {
        (Cmp::Ne, r)
    } else if let Some(r) = s.strip_prefix('>') {
        (Cmp::Gt, r)
    } else if let Some(r) = s.strip_prefix('<') {
        (Cmp::Lt, r)
    } else if let Some(r) = s.strip_prefix('=') {
        (Cmp::Eq, r)
    } else {
        return None;
    };
    rest.trim().parse().ok().map(|x| (cmp, x))
}

fn compare(cmp: Cmp, v: f64, x: f64) -> bool {
    match cmp {
        Cmp::Lt => v < x,
        Cmp::Le => v <= x,
        Cmp::Gt => v > x,
        Cmp::Ge => v >= x,
        Cmp::Eq => v == x,
        Cmp::Ne => v != x,
    }
}

/// `m`/`mm` right after an hour or right before a second means minutes.
fn resolve_minutes(tokens: &mut [Tok]) {
    let is_time_anchor = |t: &Tok| matches!(t, Tok::Hour(_) | Tok::Elapsed(b'h', _));
    for i in 0..tokens.len() {
        let Tok::Month(n) = tokens[i] else { continue };
        if n > 2 {
            continue;
        }
        let prev = tokens[..i].iter().rev().find(|t| !matches!(t, Tok::Lit(_)));
        let next = tokens[i + 1..].iter().find(|t| !matches!(t, Tok::Lit(_)));
        if prev.is_some_and(is_time_anchor)
            || matches!(next, Some(Tok::Second(_)) | Some(Tok::Elapsed(b's', _)))
        {
            tokens[i] = Tok::Minute(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lose_float_noise() {
        assert_eq!(plain_number(0.1), "0.1");
        assert_eq!(plain_number(0.1 + 0.2), "0.3");
        assert_eq!(plain_number(196.0), "196");
        assert_eq!(plain_number(-3.0), "-3");
        assert_eq!(plain_number(22.2222), "22.2222");
        assert_eq!(
            plain_number("19.989999999999998".parse().unwrap_or(0.0)),
            "19.99"
        );
        assert_eq!(plain_number(1e20), "100000000000000000000");
        assert_eq!(plain_number(0.000001), "0.000001");
        assert_eq!(plain_number(1.5e300), "1.5e300");
    }

    #[test]
    fn general_shows_computed_values_as_excel_does_and_typed_ones_whole() {
        // computed values as in Excel's own CSV of SheetJS's and POI's workbooks
        assert_eq!(plain_number(33.0 / 35.0), "0.942857143");
        assert_eq!(plain_number(-1.0 / 3.0), "-0.333333333");
        assert_eq!(plain_number(39627.999999988424), "39628");
        assert_eq!(plain_number(1999.0 / 7.0), "285.5714286");
        assert_eq!(plain_number(1.0 / 7777.0), "0.000128584");
        assert_eq!(plain_number(1e10 / 0.7), "14285714286");
        assert_eq!(plain_number(0.7 * 3.0), "2.1");
        // typed values keep their digits where Excel would cut them or turn to exponents
        assert_eq!(plain_number(1589036664.03), "1589036664.03");
        assert_eq!(plain_number(0.000123456789), "0.000123456789");
        assert_eq!(plain_number(0.0001234567890123), "0.0001234567890123");
        assert_eq!(plain_number(123456789012.0), "123456789012");
        assert_eq!(plain_number(123456789012.25), "123456789012.25");
        assert_eq!(plain_number(0.00001234), "0.00001234");
    }

    fn f(code: &str, v: f64) -> String {
        NumFmt::parse(code).format(v, false)
    }

    #[test]
    fn numbers_follow_their_format() {
        assert_eq!(f("#,##0.00", 1599.99), "1,599.99");
        assert_eq!(f("#,##0.00", -1599.99), "-1,599.99");
        assert_eq!(
            f("\"$\"#,##0.00_);[Red]\\(\"$\"#,##0.00\\)", 1599.99),
            "$1,599.99"
        );
        assert_eq!(
            f("\"$\"#,##0.00_);[Red]\\(\"$\"#,##0.00\\)", -1599.99),
            "($1,599.99)"
        );
        assert_eq!(f(builtin(8).unwrap_or_default(), -1599.99), "($1,599.99)");
        assert_eq!(f("0.00%", 0.025), "2.50%");
        assert_eq!(f("0%", 0.4), "40%");
        assert_eq!(f("0%", 0.025), "3%");
        assert_eq!(f("0.0", 0.25), "0.3");
        assert_eq!(f("0.00E+00", 198356388.0), "1.98E+08");
        assert_eq!(f("# ?/?", 2.5), "2 1/2");
        assert_eq!(f("# ?/?", 0.3333), "1/3");
        // Excel shows the last convergent that fits, not a closer semiconvergent (14/99)
        assert_eq!(f("# ??/??", 2.14159), "2 1/7");
        assert_eq!(f("# ???/???", std::f64::consts::PI), "3 16/113");
        assert_eq!(f("# ?/8", 1.3), "1 2/8");
        // fixed denominators with zeros, and as many denominator digits as the format gives
        // (Excel's CSV of POI's 54686_fraction_formats)
        assert_eq!(f("# ?/10", -1.05), "-1 1/10");
        assert_eq!(f("#\\ ??/100", -1.05), "-1 5/100");
        assert_eq!(f("# ??/20", 0.35), "7/20");
        assert_eq!(f("# ??/?????????", 4051.0 / 8750153.0), "4051/8750153");
        assert_eq!(f("# ?/?", 5.0), "5");
        assert_eq!(
            f("0\\ \"dollars and\"\\ .00\\ \"cents\"", 19.99),
            "19 dollars and .99 cents"
        );
        assert_eq!(f("0", 3.6), "4");
        assert_eq!(f("#,##0", 0.0), "0");
        assert_eq!(f("0.0#", 1.5), "1.5");
        assert_eq!(f("#,##0,\"K\"", 12345.0), "12K");
        assert_eq!(f("\"$\"#,##0", 50000.0), "$50,000");
        assert_eq!(f("[$€-407]#,##0.00", 3.5), "€3.50");
        assert_eq!(f("[>=100]\"big\";\"small\"", 150.0), "big");
    }

    #[test]
    fn dates_follow_their_format() {
        assert_eq!(f("h:mm AM/PM", 33966.260424618056), "6:15 AM");
        assert_eq!(f("h:mm", 33966.760424803244), "18:15");
        assert_eq!(f("m/d/yy", 40_089.847_924_803_24), "10/3/09");
        assert_eq!(f("d-mmm-yy", 39_219.847_924_803_24), "17-May-07");
        assert_eq!(
            f(
                "\"At\"\\ h:mm\\ AM/PM\\ \"on\"\\ dddd\\ mmmm\\ d\",\"\\ yyyy",
                39219.18056369212
            ),
            "At 4:20 AM on Thursday May 17, 2007"
        );
        assert_eq!(f("[h]:mm:ss", 1.5), "36:00:00");
        assert_eq!(f("yyyy-mm-dd", 45000.0), "2023-03-15");
        assert_eq!(f("mm:ss.0", 0.5 / 86400.0), "00:00.5");
    }

    #[test]
    fn formats_show_what_excel_shows_at_their_edges() {
        // SheetJS's number_format workbook, as Excel 2011 saved each cell to CSV
        assert_eq!(f("# ?/?", 12.3), "12 1/3");
        assert_eq!(f("# ?/?", -123.456), "-123 1/2");
        assert_eq!(f("# ?/?", -1.2), "-1 1/5");
        assert_eq!(f("# ??/??", -123.456), "-123 26/57");
        assert_eq!(f("# ??/??", 12.34), "12 17/50");
        assert_eq!(f("m/d/yy", -12345.678), "########");
        assert_eq!(f("h:mm", -0.5), "########");
        assert_eq!(f("[h]", -1.2), "-28");
        assert_eq!(f("[s]", -1.2), "-103680");
        assert_eq!(f("[h]:mm:ss", -12345.678), "########");
        assert_eq!(f("[h];\"minus \"[h]", -1.2), "minus 28");
        assert_eq!(f("dddd, mmmm d, yyyy", 1.0), "Sunday, January 1, 1900");
        assert_eq!(f("dddd", 61.0), "Thursday");
        assert_eq!(
            f("[$-F800]dddd, mmmm dd, yyyy", 12.3),
            "Thursday, January 12, 1900"
        );
        assert_eq!(NumFmt::parse("dddd").format(0.0, true), "Friday");
        // no more than 15 significant digits, whatever the format asks for
        assert_eq!(f("0", 17_905_353_874_145_280.0), "17905353874145300");
        assert_eq!(
            f("0.0000000000", 910_713.393_716_666_6),
            "910713.3937166670"
        );
        assert_eq!(f("#,##0.00", 1234.5), "1,234.50");
    }

    #[test]
    fn arbitrary_formats_never_panic() {
        let alphabet: Vec<char> = "0#?.,%E+-/;@\"_*[]$hmsdyAMPap :\\Gg ".chars().collect();
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let len = (next() % 16) as usize;
            let code: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let fmt = NumFmt::parse(&code);
            for v in [0.0, -1.5, 2.5, 1e20, -1e-20, 45000.25, 1e308, -0.0] {
                let _ = fmt.format(v, false);
            }
            let _ = fmt.format_text("x");
        }
    }
}
