//! Chart parts (`c:chartSpace`): the title and the cached series data, as a table with one
//! row per category and one column per series. Only cached values are used; the embedded
//! workbook a chart may carry is never opened.

use quick_xml::events::Event;
use quick_xml::Reader;
use quire_plugin_api::{Cell, Table};

#[derive(Debug, Default)]
pub struct Chart {
    pub title: Option<String>,
    pub table: Option<Table>,
}

#[derive(Debug, Default)]
struct Series {
    name: String,
    categories: Vec<(usize, String)>,
    values: Vec<(usize, String)>,
}

#[derive(PartialEq)]
enum In {
    Other,
    Tx,
    Cat,
    Val,
}

pub fn read(xml: &[u8]) -> Chart {
    let mut reader = Reader::from_reader(xml);
    let mut chart = Chart::default();
    let mut title = String::new();
    let mut title_depth = 0usize;
    let mut series: Vec<Series> = Vec::new();
    let mut section = In::Other;
    let mut pt_idx = 0usize;
    let mut in_value = false;
    let mut in_ser = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let name = e.local_name();
                let n = name.as_ref();
                if title_depth > 0 {
                    title_depth += 1;
                    if n == b"p" && !title.is_empty() {
                        title.push(' ');
                    }
                }
                match n {
                    b"title" if !in_ser && chart.title.is_none() => title_depth = 1,
                    b"ser" => {
                        in_ser = true;
                        series.push(Series::default());
                    }
                    b"tx" if in_ser => section = In::Tx,
                    b"cat" | b"xVal" if in_ser => section = In::Cat,
                    b"val" | b"yVal" if in_ser => section = In::Val,
                    b"pt" => {
                        pt_idx = crate::shapes::attr(&e, b"idx")
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(0);
                    }
                    b"v" | b"t" => in_value = true,
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if in_value => {
                let Ok(t) = t.unescape() else { continue };
                if title_depth > 0 {
                    title.push_str(&t);
                } else if let Some(s) = series.last_mut() {
                    match section {
                        In::Tx => s.name.push_str(&t),
                        In::Cat if s.categories.len() < 10_000 => {
                            s.categories.push((pt_idx, t.into_owned()))
                        }
                        In::Val if s.values.len() < 10_000 => {
                            s.values.push((pt_idx, t.into_owned()))
                        }
                        _ => {}
                    }
                }
            }
            Ok(Event::End(e)) => {
                let name = e.local_name();
                match name.as_ref() {
                    b"v" | b"t" => in_value = false,
                    b"ser" => in_ser = false,
                    b"tx" | b"cat" | b"val" | b"xVal" | b"yVal" => section = In::Other,
                    _ => {}
                }
                if title_depth > 0 {
                    title_depth -= 1;
                    if title_depth == 0 && !title.trim().is_empty() {
                        chart.title = Some(title.trim().to_owned());
                    }
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    chart.table = to_table(&series);
    chart
}

fn to_table(series: &[Series]) -> Option<Table> {
    if series.is_empty() || series.iter().all(|s| s.values.is_empty()) {
        return None;
    }
    let rows_n = series
        .iter()
        .flat_map(|s| s.values.iter().chain(&s.categories).map(|(i, _)| i + 1))
        .max()
        .unwrap_or(0)
        .min(10_000);
    let categories = series
        .iter()
        .find(|s| !s.categories.is_empty())
        .map(|s| &s.categories);
    let mut header = vec![Cell::text("")];
    for (i, s) in series.iter().enumerate() {
        let name = if s.name.trim().is_empty() {
            format!("Series {}", i + 1)
        } else {
            s.name.trim().to_owned()
        };
        header.push(Cell::text(name));
    }
    let mut rows = vec![header];
    for r in 0..rows_n {
        let cat = categories
            .and_then(|c| c.iter().find(|(i, _)| *i == r))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let mut row = vec![Cell::text(cat)];
        for s in series {
            let v = s
                .values
                .iter()
                .find(|(i, _)| *i == r)
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            row.push(Cell::text(v));
        }
        rows.push(row);
    }
    Some(Table {
        header_rows: 1,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_title_and_series() {
        let xml = br#"<c:chartSpace xmlns:c="c" xmlns:a="a"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Sales</a:t></a:r></a:p></c:rich></c:tx></c:title>
<c:plotArea><c:barChart><c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>2024</c:v></c:pt></c:strCache></c:strRef></c:tx>
<c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Q1</c:v></c:pt><c:pt idx="1"><c:v>Q2</c:v></c:pt></c:strCache></c:strRef></c:cat>
<c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>4.3</c:v></c:pt><c:pt idx="1"><c:v>2.5</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser></c:barChart></c:plotArea></c:chart></c:chartSpace>"#;
        let c = read(xml);
        assert_eq!(c.title.as_deref(), Some("Sales"));
        let t = c.table.expect("table");
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0][1], Cell::text("2024"));
        assert_eq!(t.rows[2][0], Cell::text("Q2"));
        assert_eq!(t.rows[2][1], Cell::text("2.5"));
    }
}
