//! Dates, times and elapsed durations in a format section (`d-mmm-yy`, `h:mm AM/PM`, `[h]:mm`).

use super::{Section, Tok};

/// Serial number of 10000-01-01, the first day Excel cannot show.
pub(crate) const MAX_SERIAL: f64 = 2_958_466.0;

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

/// Day of the week (0 = Sunday) of a civil date, via days since 1970-01-01 (Hinnant).
fn weekday(y: i64, m: u32, d: u32) -> usize {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    (days + 4).rem_euclid(7) as usize
}

pub(super) fn format_date(section: &Section, value: f64, date1904: bool) -> String {
    // Excel dates run from 1900 to 9999; outside that the serial is shown as a number
    if !(0.0..MAX_SERIAL).contains(&value) {
        return crate::cell::plain_number(value);
    }
    let toks = &section.tokens;
    let subsec = toks.iter().find_map(|t| match t {
        Tok::SubSec(n) => Some(*n),
        _ => None,
    });
    // round to what the format shows: whole seconds unless sub-seconds are displayed
    let unit = 86_400.0 * 10f64.powi(i32::from(subsec.unwrap_or(0)));
    let rounded = (value * unit).round() / unit;
    let dt = calamine::ExcelDateTime::new(rounded, calamine::ExcelDateTimeType::DateTime, date1904);
    let (y, mo, d, h, mi, s, ms) = dt.to_ymd_hms_milli();
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
                    let name = DAYS[weekday(i64::from(y), u32::from(mo), u32::from(d))];
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
