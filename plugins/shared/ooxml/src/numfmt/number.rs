//! Numbers in a format section: digit placeholders filled from the decimal point outwards,
//! thousands grouping and scaling, percent, exponents and fractions.

use super::{Section, Tok};

pub(super) fn render_literals(section: &Section, number: &str) -> String {
    let mut out = String::new();
    let mut placed = false;
    for t in &section.tokens {
        match t {
            Tok::Lit(l) => out.push_str(l),
            Tok::General | Tok::At if !placed => {
                out.push_str(number);
                placed = true;
            }
            _ => {}
        }
    }
    if !placed {
        out.push_str(number);
    }
    out
}

fn group_thousands(digits: &str) -> String {
    let bytes = digits.as_bytes();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 && (bytes.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(b as char);
    }
    out
}

pub(super) fn format_number(section: &Section, mut value: f64) -> String {
    let toks = &section.tokens;
    let percent = toks.iter().filter(|t| **t == Tok::Percent).count();
    for _ in 0..percent {
        value *= 100.0;
    }
    if let Some(slash) = toks.iter().position(|t| *t == Tok::Slash) {
        return format_fraction(toks, slash, value);
    }
    let exp_at = toks.iter().position(|t| matches!(t, Tok::Exp(_)));
    let mant_end = exp_at.unwrap_or(toks.len());
    let point = toks[..mant_end].iter().position(|t| *t == Tok::Point);
    let int_end = point.unwrap_or(mant_end);
    // Commas: between digit placeholders → grouping; right after the last integer digit → /1000.
    let last_int_digit = toks[..int_end]
        .iter()
        .rposition(|t| matches!(t, Tok::Digit(_)));
    let first_digit = toks[..int_end]
        .iter()
        .position(|t| matches!(t, Tok::Digit(_)));
    let mut grouping = false;
    let mut scale = 0;
    for (i, t) in toks[..mant_end].iter().enumerate() {
        if *t == Tok::Comma {
            let inside =
                first_digit.is_some_and(|f| i > f) && last_int_digit.is_some_and(|l| i < l);
            if inside {
                grouping = true;
            } else if last_int_digit.is_some_and(|l| i > l) {
                scale += 1;
            }
        }
    }
    for _ in 0..scale {
        value /= 1000.0;
    }
    let frac_places = point.map_or(0, |p| {
        toks[p + 1..mant_end]
            .iter()
            .filter(|t| matches!(t, Tok::Digit(_)))
            .count()
    });
    let mut exponent = 0i32;
    if exp_at.is_some() && value != 0.0 {
        let int_places = toks[..int_end]
            .iter()
            .filter(|t| matches!(t, Tok::Digit(_)))
            .count()
            .max(1) as i32;
        let e = value.abs().log10().floor() as i32;
        // engineering-style formats (##0.0E+0) use multiples of the integer width
        exponent = if int_places > 1 {
            e.div_euclid(int_places) * int_places
        } else {
            e
        };
        value /= 10f64.powi(exponent);
        let rounded = round_to(value, frac_places);
        if rounded.abs() >= 10f64.powi(int_places) {
            exponent += int_places;
            value /= 10f64.powi(int_places);
        }
    }
    // Excel rounds half away from zero (2.5 → 3); `format!` alone rounds half to even
    let scaled = value.abs() * 10f64.powi(frac_places as i32);
    let shown = if scaled < 1e15 {
        scaled.round() / 10f64.powi(frac_places as i32)
    } else {
        value.abs()
    };
    let text = excel_digits(&format!("{:.*}", frac_places, precise(shown)));
    let (int_digits, frac_digits) = text.split_once('.').unwrap_or((&text, ""));
    let int_digits = if int_digits == "0" { "" } else { int_digits };

    // integer placeholders are filled from the right; the leftmost takes what remains
    let int_slots: Vec<usize> = (0..int_end)
        .filter(|&i| matches!(toks[i], Tok::Digit(_)))
        .collect();
    let mut fill: Vec<String> = vec![String::new(); toks.len()];
    let mut remaining = int_digits.as_bytes().to_vec();
    for (k, &slot) in int_slots.iter().enumerate().rev() {
        let Tok::Digit(kind) = toks[slot] else {
            continue;
        };
        if k == 0 {
            let mut s = String::from_utf8_lossy(&remaining).into_owned();
            if s.is_empty() {
                s = pad(kind).to_owned();
            }
            fill[slot] = s;
            remaining.clear();
        } else if let Some(d) = remaining.pop() {
            fill[slot] = (d as char).to_string();
        } else {
            fill[slot] = pad(kind).to_owned();
        }
    }
    if grouping {
        let all: String = int_slots
            .iter()
            .map(|&s| fill[s].as_str())
            .collect::<String>();
        let trimmed = all.trim_start();
        let grouped = if trimmed.bytes().all(|b| b.is_ascii_digit()) {
            group_thousands(trimmed)
        } else {
            all.clone()
        };
        for (k, &slot) in int_slots.iter().enumerate() {
            fill[slot] = if k == 0 {
                grouped.clone()
            } else {
                String::new()
            };
        }
    }
    // fraction placeholders filled from the left; trailing `#` zeros are dropped
    if let Some(p) = point {
        let slots: Vec<usize> = (p + 1..mant_end)
            .filter(|&i| matches!(toks[i], Tok::Digit(_)))
            .collect();
        let digits = frac_digits.as_bytes();
        let mut keep = digits.len();
        for (k, &slot) in slots.iter().enumerate().rev() {
            let Tok::Digit(kind) = toks[slot] else {
                continue;
            };
            if kind != b'0' && keep == k + 1 && digits.get(k) == Some(&b'0') {
                keep = k;
            }
        }
        for (k, &slot) in slots.iter().enumerate() {
            let Tok::Digit(kind) = toks[slot] else {
                continue;
            };
            fill[slot] = if k < keep {
                (digits.get(k).copied().unwrap_or(b'0') as char).to_string()
            } else if kind == b'?' {
                " ".into()
            } else {
                String::new()
            };
        }
    }
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Lit(l) => out.push_str(l),
            Tok::Digit(_) if i < mant_end => out.push_str(&fill[i]),
            Tok::Point => {
                // "#." with nothing after shows the point anyway, as Excel does
                out.push('.');
            }
            Tok::Percent => out.push('%'),
            Tok::Exp(plus) => {
                let digits = toks[i + 1..]
                    .iter()
                    .filter(|t| matches!(t, Tok::Digit(_)))
                    .count()
                    .max(1);
                out.push('E');
                if exponent < 0 {
                    out.push('-');
                } else if *plus {
                    out.push('+');
                }
                out.push_str(&format!(
                    "{:0>width$}",
                    exponent.unsigned_abs(),
                    width = digits
                ));
                // skip the exponent's digit placeholders, keep literals after them
                i += 1;
                while i < toks.len() && matches!(toks[i], Tok::Digit(_)) {
                    i += 1;
                }
                continue;
            }
            Tok::At => {}
            _ => {}
        }
        i += 1;
    }
    out
}

/// `v` rounded to 15 significant digits, Excel's precision.
fn precise(v: f64) -> f64 {
    format!("{v:.14e}").parse().unwrap_or(v)
}

/// A formatted number with every digit after the 15th significant one a zero: Excel shows
/// no more (17905353874145280 under `0` is 17905353874145300), and a 15-digit value printed
/// with more places would show binary noise there.
fn excel_digits(text: &str) -> String {
    let mut significant = 0;
    text.chars()
        .map(|c| {
            if !c.is_ascii_digit() {
                return c;
            }
            if significant > 0 || c != '0' {
                significant += 1;
            }
            if significant > 15 {
                '0'
            } else {
                c
            }
        })
        .collect()
}

fn pad(kind: u8) -> &'static str {
    match kind {
        b'0' => "0",
        b'?' => " ",
        _ => "",
    }
}

fn round_to(v: f64, places: usize) -> f64 {
    format!("{v:.places$}").parse().unwrap_or(v)
}

fn format_fraction(toks: &[Tok], slash: usize, value: f64) -> String {
    // numerator: the digit run right before the slash; integer part: digits before that run
    let mut num_start = slash;
    while num_start > 0 && matches!(toks[num_start - 1], Tok::Digit(_)) {
        num_start -= 1;
    }
    let has_int = toks[..num_start].iter().any(|t| matches!(t, Tok::Digit(_)));
    let mut den_end = slash + 1;
    let mut den_digits = 0;
    let mut fixed = String::new();
    while den_end < toks.len() {
        match &toks[den_end] {
            // a fixed denominator's zeros are digit placeholders to the parser (`?/10`, `?/100`)
            Tok::Digit(b'0') if !fixed.is_empty() => fixed.push('0'),
            Tok::Digit(_) if fixed.is_empty() => den_digits += 1,
            Tok::Lit(l)
                if den_digits == 0
                    && fixed.is_empty()
                    && l.chars().next().is_some_and(|c| c.is_ascii_digit()) =>
            {
                fixed = l.chars().take_while(|c| c.is_ascii_digit()).collect();
            }
            _ => break,
        }
        den_end += 1;
    }
    let v = value.abs();
    let (whole, frac) = if has_int {
        (v.trunc(), v.fract())
    } else {
        (0.0, v)
    };
    let (mut num, den) = if let Ok(d) = fixed.parse::<u64>() {
        let d = d.max(1);
        ((frac * d as f64).round() as u64, d)
    } else {
        // Excel fills as many denominator digits as the format gives (Tika-1132's `?????????`
        // shows 4051/8750153)
        let max_den = 10u64.pow(den_digits.clamp(1, 9) as u32) - 1;
        best_fraction(frac, max_den)
    };
    let mut whole = whole as u64;
    if num == den && has_int {
        whole += 1;
        num = 0;
    }
    // literals before the first digit lead; those between the whole number and the
    // numerator are the separator the body writes
    let mut out = String::new();
    for t in toks[..num_start]
        .iter()
        .take_while(|t| !(has_int && matches!(t, Tok::Digit(_))))
    {
        if let Tok::Lit(l) = t {
            out.push_str(l);
        }
    }
    let mut body = String::new();
    if has_int && (whole > 0 || num == 0) {
        body.push_str(&whole.to_string());
    }
    if num > 0 {
        if !body.is_empty() {
            body.push(' ');
        }
        body.push_str(&format!("{num}/{den}"));
    } else if !has_int {
        body.push_str(&format!("0/{den}"));
    }
    out.push_str(&body);
    for t in &toks[den_end.min(toks.len())..] {
        if let Tok::Lit(l) = t {
            out.push_str(l);
        }
    }
    out
}

/// The fraction Excel shows for `x` with denominators up to `max_den`: the last convergent of
/// its continued fraction whose denominator fits (Excel takes no semiconvergent, even a closer
/// one: 0.3 under `?/?` is 1/3, not 2/7; 0.456 is 1/2, not 4/9). A few steps, not a search.
fn best_fraction(x: f64, max_den: u64) -> (u64, u64) {
    let (mut h0, mut h1, mut k0, mut k1) = (0u64, 1u64, 1u64, 0u64);
    let mut v = x.max(0.0);
    for _ in 0..64 {
        let a = v.floor();
        if a > 1e15 {
            break;
        }
        let a = a as u64;
        let (h2, k2) = (
            a.saturating_mul(h1).saturating_add(h0),
            a.saturating_mul(k1).saturating_add(k0),
        );
        if k2 > max_den {
            break;
        }
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
        let frac = v - a as f64;
        if frac < 1e-12 {
            break;
        }
        v = 1.0 / frac;
    }
    if k1 == 0 {
        (x.round() as u64, 1)
    } else {
        (h1, k1)
    }
}
