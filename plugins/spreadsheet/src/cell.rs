//! Cell values as a person reads them: numbers without float noise, dates in ISO 8601 when no
//! number format says otherwise, `TRUE`/`FALSE`, Excel's error codes.

use crate::numfmt::NumFmt;
use calamine::{CellErrorType, Data};
use std::fmt::Write;

/// A number as Excel's General format would show it, but never in exponent notation for
/// ordinary magnitudes: rounded to 15 significant digits (Excel's precision, which removes
/// binary noise like `0.30000000000000004`), then the shortest text that reads back the same.
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
        .filter(u8::is_ascii_digit)
        .count();
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
        let mut out = format!("{rounded:.20}");
        if out.contains('.') {
            while out.ends_with('0') {
                out.pop();
            }
            if out.ends_with('.') {
                out.pop();
            }
        }
        return out;
    }
    s.to_owned()
}

/// ISO 8601 for a serial date-time: a date, a time, or both, by what the value holds.
pub fn iso_datetime(serial: f64, date1904: bool) -> String {
    if !(0.0..crate::numfmt::MAX_SERIAL).contains(&serial) {
        return plain_number(serial);
    }
    let dt = calamine::ExcelDateTime::new(serial, calamine::ExcelDateTimeType::DateTime, date1904);
    let (y, mo, d, h, mi, s, ms) = dt.to_ymd_hms_milli();
    let mut out = String::with_capacity(19);
    let has_date = serial >= 1.0;
    let has_time = serial.fract() != 0.0;
    if has_date || !has_time {
        let _ = write!(out, "{y:04}-{mo:02}-{d:02}");
    }
    if has_time {
        if has_date {
            out.push('T');
        }
        let _ = write!(out, "{h:02}:{mi:02}:{s:02}");
        if ms > 0 {
            let _ = write!(out, ".{ms:03}");
        }
    }
    out
}

/// A duration as ISO-like `[h]:mm:ss` (hours not wrapped at 24).
pub fn duration(serial: f64) -> String {
    let secs = (serial * 86_400.0).round() as i64;
    let sign = if secs < 0 { "-" } else { "" };
    let secs = secs.unsigned_abs();
    format!(
        "{sign}{}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

pub fn error_text(e: &CellErrorType) -> &'static str {
    match e {
        CellErrorType::Div0 => "#DIV/0!",
        CellErrorType::NA => "#N/A",
        CellErrorType::Name => "#NAME?",
        CellErrorType::Null => "#NULL!",
        CellErrorType::Num => "#NUM!",
        CellErrorType::Ref => "#REF!",
        CellErrorType::Value => "#VALUE!",
        CellErrorType::GettingData => "#GETTING_DATA",
    }
}

/// Renders a cell into `out` (cleared first). `fmt` is the cell's number format when known.
pub fn render(data: &Data, fmt: Option<&NumFmt>, date1904: bool, out: &mut String) {
    out.clear();
    match data {
        Data::Empty => {}
        Data::String(s) => match fmt.and_then(|f| f.format_text(s)) {
            Some(t) => out.push_str(&t),
            None => out.push_str(s),
        },
        Data::Bool(b) => out.push_str(if *b { "TRUE" } else { "FALSE" }),
        Data::Error(e) => out.push_str(error_text(e)),
        Data::DateTimeIso(s) | Data::DurationIso(s) => out.push_str(s),
        Data::Int(i) => match fmt.filter(|f| !f.is_general()) {
            Some(f) => out.push_str(&f.format(*i as f64, date1904)),
            None => {
                let _ = write!(out, "{i}");
            }
        },
        Data::Float(v) => match fmt.filter(|f| !f.is_general()) {
            Some(f) => out.push_str(&f.format(*v, date1904)),
            None => out.push_str(&plain_number(*v)),
        },
        Data::DateTime(dt) => match fmt.filter(|f| !f.is_general()) {
            Some(f) => out.push_str(&f.format(dt.as_f64(), date1904)),
            None if dt.is_duration() => out.push_str(&duration(dt.as_f64())),
            None => out.push_str(&iso_datetime(dt.as_f64(), date1904)),
        },
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
    fn dates_are_iso() {
        assert_eq!(iso_datetime(45000.0, false), "2023-03-15");
        assert_eq!(iso_datetime(45000.5, false), "2023-03-15T12:00:00");
        assert_eq!(iso_datetime(0.25, false), "06:00:00");
        assert_eq!(duration(1.5), "36:00:00");
        assert_eq!(duration(-1e300), "-2562047788015215:30:08");
        assert_eq!(iso_datetime(1e20, false), "100000000000000000000");
    }
}
