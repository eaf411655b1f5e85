//! Excel 2003 XML (SpreadsheetML): a heading and a table per worksheet, each cell as Excel
//! shows it.
//!
//! A cell's number format comes from its style (`ss:StyleID`), else its row's, its column's or
//! its table's, else the workbook's `Default` style; a style without a `NumberFormat` takes
//! its parent's (`ss:Parent`). The format is Excel's own code or one of the names Excel 2003
//! wrote for its built-in formats ("Short Date", "Percent", "Standard", …), and formats as the
//! XLSX and XLS converters do ([`quire_ooxml::numfmt`]). Without one, numbers lose float noise
//! (15 significant digits) and dates their midnight time.

use crate::office::{child, grid_table};
use crate::render::Renderer;
use crate::tree::{fold, Element};
use quire_ooxml::numfmt::NumFmt;
use quire_plugin_api::{Block, Result};
use std::collections::HashMap;

/// Excel 2003 XML: a heading and a table per worksheet.
pub fn workbook(r: &mut Renderer<'_>, root: &Element<'_>) -> Result<()> {
    let date1904 = child(root, "ExcelWorkbook").is_some_and(|w| child(w, "Date1904").is_some());
    let styles = Styles::read(root);
    for (n, sheet) in root
        .elements()
        .filter(|e| e.local() == "Worksheet")
        .enumerate()
    {
        r.tick()?;
        let name = sheet
            .attr("Name")
            .map(str::to_owned)
            .unwrap_or_else(|| format!("Sheet{}", n + 1));
        r.push(Block::heading(2, name));
        let Some(table) = child(sheet, "Table") else {
            continue;
        };
        let table_style = table.attr("StyleID");
        let columns = column_styles(table);
        let mut grid: Vec<Vec<String>> = Vec::new();
        for row in table.elements().filter(|e| e.local() == "Row") {
            r.tick()?;
            let at = row
                .attr("Index")
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|i| *i >= 1 && *i <= 1_048_576)
                .map(|i| i - 1)
                .unwrap_or(grid.len());
            if at > grid.len() + 10_000 {
                break;
            }
            while grid.len() < at {
                grid.push(Vec::new());
            }
            let row_style = row.attr("StyleID");
            let mut cells: Vec<String> = Vec::new();
            for cell in row.elements().filter(|e| e.local() == "Cell") {
                if let Some(i) = cell
                    .attr("Index")
                    .and_then(|v| v.parse::<usize>().ok())
                    .filter(|i| *i >= 1 && *i <= 16_384)
                {
                    while cells.len() < i - 1 {
                        cells.push(String::new());
                    }
                }
                let style = cell
                    .attr("StyleID")
                    .or(row_style)
                    .or_else(|| columns.get(&cells.len()).copied())
                    .or(table_style)
                    .unwrap_or("Default");
                let fmt = styles.format(style);
                cells.push(
                    child(cell, "Data")
                        .map(|d| cell_value(d, fmt, date1904))
                        .unwrap_or_default(),
                );
                let across = cell
                    .attr("MergeAcross")
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0)
                    .min(256);
                cells.extend(std::iter::repeat_n(String::new(), across));
            }
            grid.push(cells);
        }
        if let Some(t) = grid_table(grid) {
            r.push(Block::Table(t));
        }
    }
    Ok(())
}

/// The style of each column that names one (`ss:Index` is 1-based, `ss:Span` the number of
/// further columns it covers), by 0-based column.
fn column_styles<'e>(table: &'e Element<'_>) -> HashMap<usize, &'e str> {
    let mut out = HashMap::new();
    let mut next = 0usize;
    for col in table.elements().filter(|e| e.local() == "Column") {
        let at = col
            .attr("Index")
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|i| *i >= 1 && *i <= 16_384)
            .map_or(next, |i| i - 1);
        let span = col
            .attr("Span")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0)
            .min(16_384 - at.min(16_384));
        if let Some(style) = col.attr("StyleID") {
            for c in at..=at + span {
                out.insert(c, style);
            }
        }
        next = at + span + 1;
    }
    out
}

/// The workbook's styles: each one's parent and number format, and the parsed formats.
struct Styles {
    /// ID → (parent ID, `NumberFormat/@ss:Format` when the style has a `NumberFormat`).
    by_id: HashMap<String, (Option<String>, Option<String>)>,
    /// Parsed formats by code, for the styles that resolve to one that is not General.
    parsed: HashMap<String, Option<NumFmt>>,
}

impl Styles {
    fn read(root: &Element<'_>) -> Styles {
        let mut by_id = HashMap::new();
        for style in child(root, "Styles")
            .into_iter()
            .flat_map(|s| s.elements())
            .filter(|e| e.local() == "Style")
        {
            let Some(id) = style.attr("ID") else {
                continue;
            };
            let format = child(style, "NumberFormat")
                .map(|f| f.attr("Format").unwrap_or("General").to_owned());
            by_id.insert(
                id.to_owned(),
                (style.attr("Parent").map(str::to_owned), format),
            );
        }
        let mut styles = Styles {
            by_id,
            parsed: HashMap::new(),
        };
        let codes: Vec<String> = styles
            .by_id
            .keys()
            .filter_map(|id| styles.code(id).map(str::to_owned))
            .collect();
        for code in codes {
            styles.parsed.entry(code.clone()).or_insert_with(|| {
                let parsed = NumFmt::parse(named_format(&code).unwrap_or(&code));
                (!parsed.is_general()).then_some(parsed)
            });
        }
        styles
    }

    /// The format code a style resolves to: its own, else its parent's (a parent chain is
    /// followed at most 16 steps), else the `Default` style's.
    fn code(&self, id: &str) -> Option<&str> {
        let mut at = id;
        for _ in 0..16 {
            let (parent, format) = self.by_id.get(at)?;
            if let Some(f) = format {
                return Some(f);
            }
            at = match parent {
                Some(p) => p,
                None if at != "Default" => "Default",
                None => return None,
            };
        }
        None
    }

    fn format(&self, id: &str) -> Option<&NumFmt> {
        self.parsed.get(self.code(id)?)?.as_ref()
    }
}

/// The code of a format Excel 2003 XML names instead of writing it (en-US, as Excel shows
/// them).
fn named_format(name: &str) -> Option<&'static str> {
    Some(match name {
        "General" | "General Number" => "General",
        "General Date" => "m/d/yy h:mm",
        "Long Date" => "dddd, mmmm d, yyyy",
        "Medium Date" => "d-mmm-yy",
        "Short Date" => "m/d/yy",
        "Long Time" => "h:mm:ss AM/PM",
        "Medium Time" => "h:mm AM/PM",
        "Short Time" => "h:mm",
        "Currency" => "\"$\"#,##0.00_);[Red]\\(\"$\"#,##0.00\\)",
        "Euro Currency" => "[$€-2]\\ #,##0.00",
        "Fixed" => "0.00",
        "Standard" => "#,##0.00",
        "Percent" => "0.00%",
        "Scientific" => "0.00E+00",
        "Yes/No" => "\"Yes\";\"Yes\";\"No\"",
        "True/False" => "\"True\";\"True\";\"False\"",
        "On/Off" => "\"On\";\"On\";\"Off\"",
        _ => return None,
    })
}

/// A cell's `ss:Data` as Excel shows it under `fmt`.
fn cell_value(data: &Element<'_>, fmt: Option<&NumFmt>, date1904: bool) -> String {
    let text = fold(&data.text()).into_owned();
    match data.attr("Type") {
        Some("Number") => match (fmt, text.trim().parse::<f64>()) {
            (Some(f), Ok(v)) if v.is_finite() => f.format(v, date1904),
            _ => general(&text).unwrap_or(text),
        },
        Some("Boolean") => match text.as_str() {
            "1" => "TRUE".into(),
            "0" => "FALSE".into(),
            _ => text,
        },
        Some("DateTime") => match (fmt, quire_ooxml::numfmt::iso_serial(&text, date1904)) {
            (Some(f), Some(v)) => f.format(v, date1904),
            _ => {
                let t = text.strip_suffix(".000").unwrap_or(&text);
                t.strip_suffix("T00:00:00").unwrap_or(t).to_owned()
            }
        },
        _ => match fmt.and_then(|f| f.format_text(&text)) {
            Some(t) => t,
            None => text,
        },
    }
}

/// A number as Excel's General format shows it (`quire_ooxml::numfmt::plain_number`).
fn general(text: &str) -> Option<String> {
    let x = text.trim().parse::<f64>().ok().filter(|x| x.is_finite())?;
    Some(quire_ooxml::numfmt::plain_number(x))
}
