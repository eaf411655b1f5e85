//! A pre-pass over an OpenDocument spreadsheet's `content.xml` for what calamine does not
//! give: the text a number, date or currency cell shows, and the merged ranges.
//!
//! An ODS cell stores its value (`office:value="58108.5"`) and, in its paragraphs, the text
//! the application displayed under the cell's number style (`$58,108.50`, `12.5%`,
//! `12/31/23`); calamine returns the value only, so a LibreOffice sheet read `58108.5 | 0.125`
//! where the same sheet saved as XLSX reads `$58,108.50 | 12.50%`. The displayed text is the
//! producer's own rendering of its format, so it is taken as it is (no number-style
//! interpreter is needed). Spans (`table:number-columns-spanned`, `-rows-spanned`) are the
//! merged ranges.

use crate::merges::Merge;
use crate::span::Span;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;

/// What the pre-pass learnt about one sheet.
#[derive(Debug, Default)]
pub struct OdsSheet {
    /// (row, column) → the displayed text of a typed cell that is not a string.
    pub shown: HashMap<(u32, u32), String>,
    /// Merged ranges, sorted by top row.
    pub merges: Vec<Merge>,
    /// The rectangle the cells with a value fill, repeats counted: calamine expands every
    /// repeat into it.
    pub span: Span,
}

/// The sheets of `content.xml` by name. At most `max_cells` displayed texts are kept in all
/// (a repeated cell counts once per position it fills), and none of a sheet once its values
/// fill more than `max_cells` (it is refused before calamine reads it).
pub fn scan(xml: &[u8], max_cells: u64) -> HashMap<String, OdsSheet> {
    let mut sheets: HashMap<String, OdsSheet> = HashMap::new();
    let mut sheet: Option<(String, OdsSheet)> = None;
    let mut reader = Reader::from_reader(xml);
    let mut kept = 0u64;
    let (mut row, mut col) = (0u32, 0u32);
    // Rows the open row element repeats.
    let mut row_repeat = 1u32;
    // The open typed cell: its first column, how many columns it repeats over, its text.
    let mut cell: Option<(u32, u32, String)> = None;
    // Paragraphs seen in the open cell; depth inside a comment (not the cell's text).
    let mut paragraphs = 0u32;
    let mut annotation = 0u32;
    // A damaged document ends the pass; calamine reports it.
    while let Ok(event) = reader.read_event() {
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let empty = matches!(event, Event::Empty(_));
                match e.local_name().as_ref() {
                    b"table" => {
                        if let Some((name, s)) = sheet.take() {
                            sheets.insert(name, s);
                        }
                        let name = attr(e, b"name")
                            .map(|v| String::from_utf8_lossy(&v).into_owned())
                            .unwrap_or_default();
                        sheet = Some((name, OdsSheet::default()));
                        row = 0;
                    }
                    b"table-row" => {
                        let n = number(e, b"number-rows-repeated").max(1);
                        if empty {
                            row = row.saturating_add(n);
                        } else {
                            row_repeat = n;
                            col = 0;
                        }
                    }
                    b"table-cell" | b"covered-table-cell" => {
                        let repeat = number(e, b"number-columns-repeated").max(1);
                        let across = number(e, b"number-columns-spanned").max(1);
                        let down = number(e, b"number-rows-spanned").max(1);
                        if let (Some((_, s)), true) = (sheet.as_mut(), across > 1 || down > 1) {
                            let end =
                                (row.saturating_add(down - 1), col.saturating_add(across - 1));
                            s.merges.extend(Merge::new((row, col), end));
                        }
                        let value_type = attr(e, b"value-type");
                        if let (Some((_, s)), true) =
                            (sheet.as_mut(), value_type.is_some() || !empty)
                        {
                            // a repeated row's cells fill every row it repeats into
                            let (bottom, right) = (
                                row.saturating_add(row_repeat.max(1) - 1),
                                col.saturating_add(repeat - 1),
                            );
                            s.span.cover(row, col, bottom, right);
                        }
                        let typed = value_type.is_some_and(|t| t.as_ref() != b"string");
                        if !empty && typed {
                            cell = Some((col, repeat, String::new()));
                            paragraphs = 0;
                        }
                        col = col.saturating_add(repeat);
                    }
                    b"annotation" if !empty => annotation += 1,
                    _ if cell.is_none() || annotation > 0 => {}
                    b"p" if !empty => {
                        if let Some((_, _, text)) = cell.as_mut() {
                            if paragraphs > 0 {
                                text.push('\n');
                            }
                        }
                        paragraphs += 1;
                    }
                    b"s" => {
                        let n = number(e, b"c").clamp(1, 1000) as usize;
                        if let Some((_, _, text)) = cell.as_mut() {
                            text.extend(std::iter::repeat_n(' ', n));
                        }
                    }
                    b"tab" => cell.iter_mut().for_each(|(_, _, t)| t.push('\t')),
                    b"line-break" => cell.iter_mut().for_each(|(_, _, t)| t.push('\n')),
                    _ => {}
                }
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"annotation" => annotation = annotation.saturating_sub(1),
                b"table-row" => {
                    row = row.saturating_add(row_repeat);
                    row_repeat = 1;
                }
                b"table-cell" => {
                    let (Some((c0, repeat, text)), Some((_, s))) = (cell.take(), sheet.as_mut())
                    else {
                        continue;
                    };
                    let text = text.trim();
                    // a sheet filling more than the limit is refused before it is read
                    if text.is_empty() || s.span.area().is_some_and(|n| n > max_cells) {
                        continue;
                    }
                    for r in row..row.saturating_add(row_repeat) {
                        for c in c0..c0.saturating_add(repeat) {
                            if kept >= max_cells {
                                break;
                            }
                            kept += 1;
                            s.shown.insert((r, c), text.to_owned());
                        }
                    }
                }
                _ => {}
            },
            Event::Text(t) if annotation == 0 => {
                if let (Some((_, _, text)), Ok(s)) = (cell.as_mut(), t.unescape()) {
                    text.push_str(&s);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some((name, s)) = sheet.take() {
        sheets.insert(name, s);
    }
    for s in sheets.values_mut() {
        s.merges.sort_by_key(|m| m.top);
    }
    sheets
}

fn attr<'a>(e: &'a BytesStart<'_>, local: &[u8]) -> Option<std::borrow::Cow<'a, [u8]>> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .map(|a| a.value)
}

fn number(e: &BytesStart<'_>, local: &[u8]) -> u32 {
    attr(e, local)
        .and_then(|v| std::str::from_utf8(&v).ok()?.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_cells_show_their_text_and_spans_are_merges() {
        let xml = br#"<office:document-content xmlns:office="o" xmlns:table="t" xmlns:text="x"><office:body><office:spreadsheet>
<table:table table:name="A">
<table:table-row><table:table-cell office:value-type="string"><text:p>Name</text:p></table:table-cell><table:table-cell office:value-type="currency" office:value="58108.5" table:number-columns-spanned="2"><text:p>$58,108.50</text:p></table:table-cell><table:covered-table-cell/></table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="2"/><table:table-cell office:value-type="percentage" office:value="0.125" table:number-columns-repeated="2"><text:p>12.5<text:s text:c="2"/>%</text:p></table:table-cell></table:table-row>
<table:table-row table:number-rows-repeated="1048570"/>
<table:table-row><table:table-cell office:value-type="date" office:date-value="2023-12-31"><office:annotation><text:p>a comment</text:p></office:annotation><text:p>12/31/23</text:p></table:table-cell></table:table-row>
</table:table>
<table:table table:name="B"><table:table-row><table:table-cell office:value-type="float" office:value="1"><text:p>1.00</text:p></table:table-cell></table:table-row></table:table>
</office:spreadsheet></office:body></office:document-content>"#;
        // sheet A's values fill 1,048,574 rows by 4 columns (within the cap)
        let sheets = scan(xml, 10_000_000);
        assert_eq!(sheets.len(), 2);
        let a = &sheets["A"];
        assert_eq!(a.shown.get(&(0, 1)).map(String::as_str), Some("$58,108.50"));
        assert_eq!(a.shown.get(&(0, 0)), None, "strings are calamine's");
        for at in [(1, 2), (1, 3), (2, 2), (2, 3)] {
            assert_eq!(
                a.shown.get(&at).map(String::as_str),
                Some("12.5  %"),
                "{at:?}"
            );
        }
        assert_eq!(
            a.shown.get(&(1048573, 0)).map(String::as_str),
            Some("12/31/23")
        );
        assert_eq!(a.shown.len(), 6);
        assert_eq!(
            a.merges,
            [Merge {
                top: 0,
                left: 1,
                bottom: 0,
                right: 2
            }]
        );
        assert_eq!(
            sheets["B"].shown.get(&(0, 0)).map(String::as_str),
            Some("1.00")
        );
        // a sheet stops keeping texts once its values fill more cells than the cap: it is
        // refused unread
        let capped = scan(xml, 1000);
        assert_eq!(capped["A"].span.area(), Some(1_048_574 * 4));
        assert_eq!(capped["A"].shown.get(&(1048573, 0)), None);
        assert_eq!(capped["A"].shown.len(), 5);
        assert_eq!(capped["B"].shown.len(), 1);
        // the cap on kept texts holds for repeated cells, over all sheets
        let two = br#"<office:document-content xmlns:office="o" xmlns:table="t" xmlns:text="x"><office:body><office:spreadsheet>
<table:table table:name="C"><table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="float" office:value="1" table:number-columns-repeated="2"><text:p>1</text:p></table:table-cell></table:table-row></table:table>
<table:table table:name="D"><table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="float" office:value="2" table:number-columns-repeated="2"><text:p>2</text:p></table:table-cell></table:table-row></table:table>
</office:spreadsheet></office:body></office:document-content>"#;
        assert_eq!(
            scan(two, 6).values().map(|s| s.shown.len()).sum::<usize>(),
            6
        );
    }
}
