//! CSV and TSV: encoding detection, delimiter sniffing, and a lenient RFC 4180 parser that
//! streams rows straight into a [`Grid`].
//!
//! Own code rather than the `csv` crate: sniffing needs the same quote-aware tokenizer run
//! with several delimiters over the first lines, and real files break the RFC (stray quotes
//! inside unquoted fields, text after a closing quote), which a lenient hand-written state
//! machine absorbs without a second pass. Cells are never interpreted: `=SUM(A1)` stays text.

use quire_plugin_api::{Context, Error, Grid, Result};

/// Delimiters tried when sniffing, in order of preference on ties.
const CANDIDATES: [char; 4] = [',', ';', '\t', '|'];
/// Lines looked at when sniffing.
const SAMPLE_RECORDS: usize = 50;

/// Splits `text` into records of fields, calling `row` with each record's fields. Stops early
/// when `row` returns false. Blank lines are skipped.
fn parse<F>(text: &str, delim: char, mut row: F)
where
    F: FnMut(&[&str], &str) -> bool,
{
    // fields are accumulated in one buffer; `ends` marks where each field ends
    let mut buf = String::new();
    let mut ends: Vec<usize> = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut in_quotes = false;
    let mut field_start = true;
    let mut record_has_content = false;
    let flush = |buf: &mut String, ends: &mut Vec<usize>, row: &mut F| -> bool {
        let mut fields: Vec<&str> = Vec::with_capacity(ends.len());
        let mut from = 0;
        for &e in ends.iter() {
            fields.push(&buf[from..e]);
            from = e;
        }
        let go = row(&fields, buf);
        buf.clear();
        ends.clear();
        go
    };
    while let Some((_, c)) = chars.next() {
        if in_quotes {
            if c == '"' {
                if chars.peek().map(|&(_, n)| n) == Some('"') {
                    chars.next();
                    buf.push('"');
                } else {
                    in_quotes = false;
                }
            } else {
                buf.push(c);
            }
            continue;
        }
        match c {
            '"' if field_start => {
                in_quotes = true;
                field_start = false;
                record_has_content = true;
            }
            c if c == delim => {
                ends.push(buf.len());
                field_start = true;
                record_has_content = true;
            }
            '\r' | '\n' => {
                if c == '\r' && chars.peek().map(|&(_, n)| n) == Some('\n') {
                    chars.next();
                }
                if record_has_content || !buf.is_empty() {
                    ends.push(buf.len());
                    if !flush(&mut buf, &mut ends, &mut row) {
                        return;
                    }
                }
                field_start = true;
                record_has_content = false;
            }
            _ => {
                buf.push(c);
                field_start = false;
                record_has_content = true;
            }
        }
    }
    if record_has_content || !buf.is_empty() {
        ends.push(buf.len());
        flush(&mut buf, &mut ends, &mut row);
    }
}

/// Chooses the delimiter whose field counts over the first records are most consistent,
/// preferring more columns; a tab wins for `.tsv` names when it splits anything.
pub fn sniff(text: &str, tsv_hint: bool) -> char {
    let mut best = (',', 0.0f64);
    for &d in &CANDIDATES {
        let mut counts: Vec<usize> = Vec::new();
        parse(text, d, |fields, _| {
            counts.push(fields.len());
            counts.len() < SAMPLE_RECORDS
        });
        if counts.is_empty() {
            continue;
        }
        // the most frequent field count among records that split at all
        let mut freq: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        for &c in &counts {
            *freq.entry(c).or_default() += 1;
        }
        let (mode, hits) = freq
            .iter()
            .max_by_key(|(&n, &h)| (h, n))
            .map(|(&n, &h)| (n, h))
            .unwrap_or((1, 0));
        if mode < 2 {
            continue;
        }
        let consistency = hits as f64 / counts.len() as f64;
        let mut score = consistency * 100.0 + (mode as f64).min(50.0) * 0.5;
        if d == '\t' && tsv_hint {
            score += 1000.0;
        }
        if score > best.1 {
            best = (d, score);
        }
    }
    best.0
}

/// Parses the whole text into a grid, checking the deadline and the cell limit as it goes.
/// The grid sits at A1, as a spreadsheet program opens the file.
pub fn to_grid(text: &str, delim: char, ctx: &Context<'_>) -> Result<Grid> {
    let mut grid = Grid::at(0, 0);
    let mut cells: u64 = 0;
    let mut failure: Option<Error> = None;
    let limit = ctx.limits.max_sheet_cells;
    parse(text, delim, |fields, _| {
        if grid.rows() % 4096 == 4095 {
            if let Err(e) = ctx.check() {
                failure = Some(e);
                return false;
            }
        }
        cells += fields.len() as u64;
        if cells > limit {
            failure = Some(Error::limit(format!(
                "The CSV file has more than {limit} cells, over the limit."
            )));
            return false;
        }
        grid.push_row(fields.iter().map(|f| f.trim_end_matches(['\r'])));
        true
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(grid),
    }
}

/// A printable name for the delimiter (metadata).
pub fn delimiter_name(d: char) -> &'static str {
    match d {
        ',' => ",",
        ';' => ";",
        '\t' => "\\t",
        '|' => "|",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str, d: char) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        parse(text, d, |f, _| {
            out.push(f.iter().map(|s| s.to_string()).collect());
            true
        });
        out
    }

    #[test]
    fn parses_quotes_newlines_and_ragged_rows() {
        let r = rows(
            "a,b\n\"x, \"\"y\"\"\",\"multi\nline\"\r\n1,2,3\n\n=SUM(A1),\n",
            ',',
        );
        assert_eq!(r[0], ["a", "b"]);
        assert_eq!(r[1], ["x, \"y\"", "multi\nline"]);
        assert_eq!(r[2], ["1", "2", "3"]);
        assert_eq!(r[3], ["=SUM(A1)", ""]);
        assert_eq!(r.len(), 4);
    }

    #[test]
    fn sniffs_delimiters() {
        assert_eq!(sniff("a,b,c\n1,2,3\n", false), ',');
        assert_eq!(
            sniff("Year;Month;Revenue\n2022;1;143,1\n2023;2;5\n", false),
            ';'
        );
        assert_eq!(sniff("a\tb\n1\t2\n", false), '\t');
        assert_eq!(sniff("a|b|c\n1|2|3\n", false), '|');
        assert_eq!(sniff("\"a;b\",c\n\"1;2\",3\n", false), ',');
        assert_eq!(sniff("single\ncolumn\n", false), ',');
    }
}
