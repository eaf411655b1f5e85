//! Tables from XHTML-style (`tr`/`td`/`th`), CALS/OASIS (`tgroup`/`row`/`entry`) and TEI
//! (`row`/`cell`, `role="label"` header rows, `cols`/`rows` spans) markup, with the caption a
//! table element holds itself (XHTML `caption`, DocBook `title`/`caption`, TEI `head`).

use crate::inline::{flatten, Runs};
use crate::tree::Element;
use quire_plugin_api::{Cell, Inline, Style, Table};

/// Rows above this many are dropped from one table (the text stays in the JSON tree).
const MAX_ROWS: usize = 100_000;
const MAX_SPAN: u32 = 1_000;

/// The caption a table element holds as its own child (`<table><title>…</title><tgroup>…`),
/// as one paragraph's runs; `None` when it has none. JATS and DocBook figures put the caption
/// beside the table instead (`table-wrap/caption`), where the renderer reads it as text.
pub fn caption(table: &Element<'_>) -> Option<Vec<Inline>> {
    let mut runs = Runs::default();
    for c in table
        .elements()
        .filter(|c| matches!(c.local(), "caption" | "title" | "head"))
    {
        runs.space();
        flatten(c, false, Style::PLAIN, &mut runs);
    }
    runs.has_text().then(|| runs.finish())
}

/// Builds a table from a `table` element; `None` when it has no rows.
pub fn build(table: &Element<'_>) -> Option<Table> {
    let mut rows = Vec::new();
    let mut header_rows = 0usize;
    let mut colnames: Vec<String> = Vec::new();
    collect_rows(table, false, &mut rows, &mut header_rows, &mut colnames);
    if rows.is_empty() {
        return None;
    }
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|(row, _)| {
            row.elements()
                .filter(|c| is_cell(c.local()))
                .map(|c| cell(c, &colnames))
                .collect()
        })
        .collect();
    // Header rows: those in <thead> (or TEI's `role="label"` rows) at the top, else a first
    // row made only of <th>.
    let mut header = rows
        .iter()
        .take_while(|(row, in_head)| *in_head || row.attr("role") == Some("label"))
        .count();
    if header == 0 {
        let first_all_th = rows[0]
            .0
            .elements()
            .filter(|c| is_cell(c.local()))
            .all(|c| c.local() == "th")
            && rows[0].0.elements().any(|c| c.local() == "th");
        header = usize::from(first_all_th);
    }
    let _ = header_rows;
    Some(Table {
        header_rows: header,
        rows: cells,
    })
}

fn is_cell(local: &str) -> bool {
    matches!(local, "td" | "th" | "entry" | "cell")
}

fn collect_rows<'a, 'b>(
    el: &'a Element<'b>,
    in_head: bool,
    rows: &mut Vec<(&'a Element<'b>, bool)>,
    header_rows: &mut usize,
    colnames: &mut Vec<String>,
) {
    for c in el.elements() {
        if rows.len() >= MAX_ROWS {
            return;
        }
        match c.local() {
            "tr" | "row" => {
                if in_head {
                    *header_rows += 1;
                }
                rows.push((c, in_head));
            }
            "colspec" => {
                if let Some(name) = c.attr("colname") {
                    colnames.push(name.to_owned());
                }
            }
            // A nested table belongs to a cell, never to this table's rows.
            "table" | "informaltable" => {}
            "thead" => collect_rows(c, true, rows, header_rows, colnames),
            _ => collect_rows(c, in_head, rows, header_rows, colnames),
        }
    }
}

fn cell(c: &Element<'_>, colnames: &[String]) -> Cell {
    let mut runs = Runs::default();
    flatten(c, false, Style::PLAIN, &mut runs);
    let mut cell = Cell::new(runs.finish());
    let num = |name: &str| c.attr(name).and_then(|v| v.trim().parse::<u32>().ok());
    // XHTML `colspan`/`rowspan`, TEI `cols`/`rows`
    if let Some(span) = num("colspan").or_else(|| num("cols")) {
        cell.colspan = span.clamp(1, MAX_SPAN);
    }
    if let Some(span) = num("rowspan").or_else(|| num("rows")) {
        cell.rowspan = span.clamp(1, MAX_SPAN);
    }
    if let Some(more) = num("morerows") {
        cell.rowspan = more.saturating_add(1).clamp(1, MAX_SPAN);
    }
    if let (Some(start), Some(end)) = (c.attr("namest"), c.attr("nameend")) {
        let pos = |n: &str| colnames.iter().position(|c| c == n);
        if let (Some(a), Some(b)) = (pos(start), pos(end)) {
            if b >= a {
                cell.colspan = u32::try_from(b - a + 1).unwrap_or(1).clamp(1, MAX_SPAN);
            }
        }
    }
    cell
}
