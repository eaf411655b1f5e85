//! Dates, times and elapsed durations in a format section (`d-mmm-yy`, `h:mm AM/PM`, `[h]:mm`).

use super::{Section, Tok};

/// Serial number of 10000-01-01, the first day Excel cannot show.
pub const MAX_SERIAL: f64 = 2_958_466.0;

/// The first serial Excel cannot show as a date in the workbook's date system: 10000-01-01,
/// which the 1904 system reaches 1,462 days sooner.
pub fn max_serial(date1904: bool) -> f64 {
    if date1904 {
        MAX_SERIAL - 1462.0
    } else {
        MAX_SERIAL
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Day of the week (0 = Sunday) of a serial as Excel counts it: serial 1 (1900-01-01) is a
/// Sunday, and the phantom 29 February 1900 keeps later dates on their true weekday; in the
/// 1904 system serial 0 (1904-01-01) is a Friday.
fn weekday(serial: f64, date1904: bool) -> usize {
    let day = serial.floor() as i64 + if date1904 { 5 } else { 6 };
    day.rem_euclid(7) as usize
}

/// Civil date of a count of days since 1970-01-01 (Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Year, month, day, hour, minute, second and millisecond of a serial date-time in
/// `0..MAX_SERIAL`: in the 1900 system serial 1 is 1900-01-01 and 60 the 29 February 1900
/// that Excel counts (Lotus's leap-year error); serial 0, Excel's "1900-01-00", is
/// 1899-12-31 as calamine gives it for sheet cells. In the 1904 system serial 0 is
/// 1904-01-01.
pub fn serial_parts(serial: f64, date1904: bool) -> (u16, u8, u8, u8, u8, u8, u16) {
    let mut whole = serial.floor() as i64;
    let secs_f = serial.fract() * 86_400.0;
    let mut milli = (secs_f.fract() * 1000.0).round() as u64;
    let mut secs = secs_f as u64;
    if milli == 1000 {
        secs += 1;
        milli = 0;
    }
    // a time that rounds up to midnight is the next day's 00:00, never hour 24
    if secs >= 86_400 {
        whole += 1;
        secs -= 86_400;
    }
    // days from 1970-01-01 to 1899-12-30 and to 1904-01-01
    let (y, mo, d) = match (date1904, whole) {
        (true, n) => civil(n - 24_107),
        (false, 60) => (1900, 2, 29),
        (false, n) if n < 60 => civil(n - 25_568),
        (false, n) => civil(n - 25_569),
    };
    (
        y as u16,
        mo as u8,
        d as u8,
        (secs / 3600) as u8,
        (secs % 3600 / 60) as u8,
        (secs % 60) as u8,
        milli as u16,
    )
}

/// The Excel serial number of an ISO 8601 date-time (`yyyy-mm-ddThh:mm:ss.fff`, as Excel 2003
/// XML's `ss:DateTime` and XLSX's `t="d"` cells hold it; a trailing `Z` is read as local time): days since
/// 1899-12-30 in the 1900 system, counting its phantom 29 February 1900 (so 1900-01-01 is 1 and
/// a time of day alone, written on 1899-12-31, is its fraction), or since 1904-01-01. Dates
/// before the first are negative; a date format shows them as Excel does (`########`).
pub fn iso_serial(text: &str, date1904: bool) -> Option<f64> {
    let text = text.trim().trim_end_matches('Z');
    let (date, time) = text.split_once('T').unwrap_or((text, ""));
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let mut days = days_from_civil(y, m, day);
    if date1904 {
        days -= days_from_civil(1904, 1, 1);
    } else {
        days -= days_from_civil(1899, 12, 30);
        if days < 61 {
            days -= 1;
        }
    }
    let mut secs = 0.0;
    if !time.is_empty() {
        let mut t = time.splitn(3, ':');
        let h: f64 = t.next()?.parse().ok()?;
        let min: f64 = t.next().unwrap_or("0").parse().ok()?;
        let s: f64 = t.next().unwrap_or("0").parse().ok()?;
        secs = h * 3600.0 + min * 60.0 + s;
    }
    Some(days as f64 + secs / 86_400.0)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub(super) fn format_date(section: &Section, value: f64, date1904: bool) -> String {
    // Excel dates run from 1900 to 9999; outside that the serial is shown as a number
    if !(0.0..max_serial(date1904)).contains(&value) {
        return super::plain_number(value);
    }
    let toks = &section.tokens;
    let subsec = toks.iter().find_map(|t| match t {
        Tok::SubSec(n) => Some(*n),
        _ => None,
    });
    // round to what the format shows: whole seconds unless sub-seconds are displayed
    let unit = 86_400.0 * 10f64.powi(i32::from(subsec.unwrap_or(0)));
    let rounded = (value * unit).round() / unit;
    let (y, mo, d, h, mi, s, ms) = serial_parts(rounded, date1904);
    let twelve = toks.iter().any(|t| matches!(t, Tok::AmPm(_)));
    let total_secs = (rounded * 86_400.0).floor();
    let mut out = String::new();
    for t in toks {
        match t {
            Tok::Lit(l) => out.push_str(l),
            Tok::Year(n) => {
                if *n <= 2 {
                    out.push_str(&format!("{:02}", y % 100));
                } else {
                    out.push_str(&format!("{y:04}"));
                }
            }
            Tok::Month(n) => {
                let name = MONTHS[usize::from(mo.clamp(1, 12)) - 1];
                match n {
                    1 => out.push_str(&mo.to_string()),
                    2 => out.push_str(&format!("{mo:02}")),
                    3 => out.push_str(&name[..3]),
                    5 => out.push_str(&name[..1]),
                    _ => out.push_str(name),
                }
            }
            Tok::Day(n) => match n {
                1 => out.push_str(&d.to_string()),
                2 => out.push_str(&format!("{d:02}")),
                _ => {
                    let name = DAYS[weekday(rounded, date1904)];
                    out.push_str(if *n == 3 { &name[..3] } else { name });
                }
            },
            Tok::Hour(n) => {
                let hh = if twelve {
                    match h % 12 {
                        0 => 12,
                        x => x,
                    }
                } else {
                    h
                };
                if *n >= 2 {
                    out.push_str(&format!("{hh:02}"));
                } else {
                    out.push_str(&hh.to_string());
                }
            }
            Tok::Minute(n) => out.push_str(&if *n >= 2 {
                format!("{mi:02}")
            } else {
                mi.to_string()
            }),
            Tok::Second(n) => out.push_str(&if *n >= 2 {
                format!("{s:02}")
            } else {
                s.to_string()
            }),
            Tok::SubSec(n) => {
                let frac = format!("{:03}", ms);
                out.push('.');
                out.push_str(&frac[..usize::from(*n).min(3)]);
            }
            Tok::Elapsed(kind, width) => {
                let v = match kind {
                    b'h' => total_secs / 3600.0,
                    b'm' => total_secs / 60.0,
                    _ => total_secs,
                }
                .floor() as i64;
                out.push_str(&format!("{v:0>w$}", w = usize::from(*width)));
            }
            Tok::AmPm(full) => {
                let pm = h >= 12;
                out.push_str(match (full, pm) {
                    (true, false) => "AM",
                    (true, true) => "PM",
                    (false, false) => "A",
                    (false, true) => "P",
                });
            }
            Tok::Digit(c) => out.push(char::from(*c)),
            Tok::Point => out.push('.'),
            Tok::Comma => out.push(','),
            Tok::Percent => out.push('%'),
            Tok::Slash => out.push('/'),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_serials_count_as_excel_does() {
        assert_eq!(iso_serial("1900-01-01T00:00:00.000", false), Some(1.0));
        assert_eq!(iso_serial("1900-02-28T00:00:00.000", false), Some(59.0));
        assert_eq!(iso_serial("1900-03-01T00:00:00.000", false), Some(61.0));
        assert_eq!(iso_serial("1998-08-01T00:00:00.000", false), Some(36_008.0));
        assert_eq!(iso_serial("1899-12-31T06:00:00.000", false), Some(0.25));
        assert_eq!(iso_serial("1904-01-02T00:00:00", true), Some(1.0));
        assert_eq!(iso_serial("2016-13-01T00:00:00", false), None);
        assert_eq!(iso_serial("2014-02-14T12:00:00Z", false), Some(41_684.5));
    }
}
