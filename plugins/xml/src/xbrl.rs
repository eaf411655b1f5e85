//! XBRL instances (`<xbrl>` of contexts, units and facts): the facts read as tables.
//!
//! An instance is a flat list of facts, each pointing at a context (the entity, the period and
//! any dimension members) and, for a number, a unit. The generic walk showed the contexts as
//! lines of identifiers and dates and every fact as its bare value ("10", "0.10", "false"),
//! which says nothing without the fact's name and period. Here contexts and units are only
//! looked up; consecutive value facts become tables of concepts by periods (see [`flush`]),
//! each value with its unit, a text fact (a text block of escaped HTML, or prose) reads as paragraphs where it
//! stands, and the cover facts `DocumentType`, `EntityRegistrantName` and
//! `DocumentPeriodEndDate` give the title. Everything else (footnotes, tuples) goes through
//! the generic walk; the JSON `data` tree keeps every element either way.

use crate::render::Renderer;
use crate::tree::Element;
use quire_plugin_api::{Block, Cell, Result, Table};
use std::collections::HashMap;

/// A text fact longer than this (in bytes, with spaces) reads as a paragraph, not a cell.
const PROSE_BYTES: usize = 200;

/// Whether `root` is an XBRL instance document.
pub fn is_instance(root: &Element<'_>) -> bool {
    root.local() == "xbrl"
}

pub fn render(r: &mut Renderer<'_>, root: &Element<'_>) -> Result<()> {
    let mut contexts = HashMap::new();
    let mut units = HashMap::new();
    for c in root.elements() {
        match (c.local(), c.attr("id")) {
            ("context", Some(id)) => {
                contexts.insert(id, context_text(c));
            }
            ("unit", Some(id)) => {
                units.insert(id, unit_text(c));
            }
            _ => {}
        }
    }
    let cover = |name: &str| {
        root.elements()
            .find(|c| c.local() == name && c.attr("contextRef").is_some())
            .map(|c| c.folded_text().into_owned())
            .filter(|t| !t.is_empty())
    };
    let title: Vec<String> = [
        "DocumentType",
        "EntityRegistrantName",
        "DocumentPeriodEndDate",
    ]
    .iter()
    .filter_map(|n| cover(n))
    .collect();
    if !title.is_empty() {
        let title = title.join(" ");
        r.push(Block::heading(1, title.as_str()));
        r.title = Some(title);
    }
    let mut facts: Vec<Fact> = Vec::new();
    for c in root.elements() {
        r.tick()?;
        match c.local() {
            // definitions the facts point at, and links to the taxonomy
            "context" | "unit" | "schemaRef" | "linkbaseRef" | "roleRef" | "arcroleRef" => continue,
            _ => {}
        }
        let Some(context) = c.attr("contextRef") else {
            flush(r, &mut facts);
            r.element(c, 2)?;
            continue;
        };
        let value = c.folded_text();
        if value.is_empty() {
            continue; // a nil fact
        }
        if c.html || !c.is_leaf() || (value.len() > PROSE_BYTES && value.contains(' ')) {
            flush(r, &mut facts);
            r.element(c, 2)?;
            continue;
        }
        let (period, members) = contexts.get(context).cloned().unwrap_or_default();
        let value = match c.attr("unitRef").and_then(|u| units.get(u)) {
            Some(unit) if !unit.is_empty() => format!("{value} {unit}"),
            _ => value.into_owned(),
        };
        let concept = words(c.local());
        let row = if members.is_empty() {
            concept
        } else {
            format!("{concept} ({members})")
        };
        facts.push(Fact { row, period, value });
    }
    flush(r, &mut facts);
    Ok(())
}

/// A value fact: its row (concept in words, with its dimension members), its period and
/// its value with the unit.
struct Fact {
    row: String,
    period: String,
    value: String,
}

/// At most this many periods (columns) in one table of facts.
const MAX_PERIODS: usize = 4;

/// Consecutive value facts as tables the way a filing's statements show them: one row per
/// concept (and dimension members), one column per period, the period named once in the
/// header — not a row per fact repeating the concept and the period beside every value (a
/// balance sheet's "Cash" at two dates is one row of two values). An instance lists its
/// facts in the order of the report they were tagged in, so a run of facts shares a few
/// periods; a fact whose period would make a fifth column, or that would fill a cell a
/// different value already holds, starts the next table.
fn flush(r: &mut Renderer<'_>, facts: &mut Vec<Fact>) {
    let mut periods: Vec<String> = Vec::new();
    let mut rows: Vec<(String, Vec<Option<String>>)> = Vec::new();
    let emit = |r: &mut Renderer<'_>,
                periods: &mut Vec<String>,
                rows: &mut Vec<(String, Vec<Option<String>>)>| {
        if rows.is_empty() {
            periods.clear();
            return;
        }
        let mut header = vec![Cell::text("Concept")];
        header.extend(periods.iter().map(|p| Cell::text(p.as_str())));
        let mut all = vec![header];
        for (label, values) in rows.drain(..) {
            let mut row = vec![Cell::text(label)];
            row.extend(
                (0..periods.len())
                    .map(|i| Cell::text(values.get(i).cloned().flatten().unwrap_or_default())),
            );
            all.push(row);
        }
        periods.clear();
        r.push(Block::Table(Table {
            header_rows: 1,
            rows: all,
        }));
    };
    for fact in facts.drain(..) {
        let col = periods.iter().position(|p| *p == fact.period);
        let clash = col.is_some_and(|c| {
            rows.iter().any(|(label, values)| {
                *label == fact.row
                    && values
                        .get(c)
                        .and_then(|v| v.as_ref())
                        .is_some_and(|v| *v != fact.value)
            })
        });
        if clash || (col.is_none() && periods.len() == MAX_PERIODS) {
            emit(r, &mut periods, &mut rows);
        }
        let col = match periods.iter().position(|p| *p == fact.period) {
            Some(c) => c,
            None => {
                periods.push(fact.period);
                periods.len() - 1
            }
        };
        let values = match rows.iter().position(|(label, _)| *label == fact.row) {
            Some(i) => &mut rows[i].1,
            None => {
                rows.push((fact.row, Vec::new()));
                &mut rows.last_mut().expect("just pushed").1
            }
        };
        if values.len() <= col {
            values.resize(col + 1, None);
        }
        values[col] = Some(fact.value);
    }
    emit(r, &mut periods, &mut rows);
}

/// A context as a reader needs it: its period ("2025-04-01 – 2025-12-31") and its dimension
/// members ("Series B Preferred Stock").
fn context_text(ctx: &Element<'_>) -> (String, String) {
    let mut period = String::new();
    let mut members = Vec::new();
    collect_context(ctx, &mut period, &mut members);
    (period, members.join(", "))
}

fn collect_context(el: &Element<'_>, period: &mut String, members: &mut Vec<String>) {
    for c in el.elements() {
        match c.local() {
            "instant" | "startDate" => *period = c.folded_text().into_owned(),
            "endDate" => {
                let end = c.folded_text();
                *period = if period.is_empty() {
                    end.into_owned()
                } else {
                    format!("{period} – {end}")
                };
            }
            "forever" => *period = "forever".to_owned(),
            "explicitMember" => {
                let m = c.folded_text();
                let local = m.rsplit(':').next().unwrap_or(&m);
                members.push(words(local.strip_suffix("Member").unwrap_or(local)));
            }
            "typedMember" => {
                let t = c.text();
                let t = t.trim();
                if !t.is_empty() {
                    members.push(t.to_owned());
                }
            }
            "identifier" => {} // the entity: the same in every context of a filing
            _ => collect_context(c, period, members),
        }
    }
}

/// A unit's measures by their local names: "USD", "USD / shares".
fn unit_text(unit: &Element<'_>) -> String {
    fn measures(el: &Element<'_>, out: &mut Vec<String>) {
        for c in el.elements() {
            if c.local() == "measure" {
                let m = c.folded_text();
                let local = m.rsplit(':').next().unwrap_or(&m);
                if local != "pure" {
                    out.push(local.to_owned());
                }
            } else {
                measures(c, out);
            }
        }
    }
    let mut parts = Vec::new();
    for c in unit.elements() {
        let mut m = Vec::new();
        if c.local() == "divide" {
            for side in c.elements() {
                let mut s = Vec::new();
                measures(side, &mut s);
                m.push(s.join(" "));
            }
            parts.push(m.join(" / "));
        } else if c.local() == "measure" {
            measures(unit, &mut m);
            parts.extend(m);
            break;
        }
    }
    parts.join(" ")
}

/// A concept's name in words: `PreferredStockSharesAuthorized` → "Preferred Stock Shares
/// Authorized", `EntityCIK` → "Entity CIK".
pub fn words(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 8);
    for (i, &ch) in chars.iter().enumerate() {
        if i > 0 && ch.is_uppercase() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(' ');
            }
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn concept_names_in_words() {
        assert_eq!(
            words("PreferredStockSharesAuthorized"),
            "Preferred Stock Shares Authorized"
        );
        assert_eq!(words("EntityCIK"), "Entity CIK");
        assert_eq!(words("CIKNumber"), "CIK Number");
        assert_eq!(words("Series2Shares"), "Series2 Shares");
        assert_eq!(words("cash"), "cash");
    }
}
