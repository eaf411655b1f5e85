//! Cell values as a person reads them: numbers without float noise, dates in ISO 8601 when no
//! number format says otherwise, `TRUE`/`FALSE`, Excel's error codes.

use calamine::{CellErrorType, Data};
use quire_ooxml::numfmt::{plain_number, NumFmt};
use std::fmt::Write;

/// ISO 8601 for a serial date-time: a date, a time, or both, by what the value holds.
pub fn iso_datetime(serial: f64, date1904: bool) -> String {
    if !(0.0..quire_ooxml::numfmt::max_serial(date1904)).contains(&serial) {
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
        // an ISO date cell (XLSX `t="d"`) shows as its format says, like a serial date
        Data::DateTimeIso(s) => match fmt
            .filter(|f| !f.is_general())
            .zip(quire_ooxml::numfmt::iso_serial(s, date1904))
        {
            Some((f, serial)) => out.push_str(&f.format(serial, date1904)),
            None => out.push_str(s),
        },
        Data::DurationIso(s) => out.push_str(s),
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

    /// The chart formatter in quire-ooxml computes dates itself; it must agree with calamine,
    /// which the sheets' ISO dates use, on every day Excel can show and on times of day.
    #[test]
    fn serial_dates_agree_with_calamine() {
        use calamine::{ExcelDateTime, ExcelDateTimeType};
        for date1904 in [false, true] {
            let mut day = 0.0;
            while day < quire_ooxml::numfmt::max_serial(date1904) {
                for frac in [0.0, 0.25, 0.5000057870370371, 0.999_999_999] {
                    let v = day + frac;
                    let ours = quire_ooxml::numfmt::serial_parts(v, date1904);
                    let theirs = ExcelDateTime::new(v, ExcelDateTimeType::DateTime, date1904)
                        .to_ymd_hms_milli();
                    assert_eq!(ours, theirs, "serial {v}, 1904: {date1904}");
                }
                day += if day < 1500.0 { 1.0 } else { 97.0 };
            }
        }
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
