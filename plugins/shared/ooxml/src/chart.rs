//! DrawingML chart parts (`c:chartSpace`), shared by every office format that embeds them: a
//! PowerPoint graphic frame, a Word drawing and an Excel drawing all point (`c:chart r:id`) at
//! the same kind of part. What a reader needs is the chart's title and the numbers it shows,
//! which the part caches: the title and one table, a row per category and a column per
//! series. Only cached values are used; the embedded workbook a chart may carry is never
//! opened.
//!
//! Every format renders a chart the same way, with [`Chart::blocks`]: a bold line
//! `Chart: <title>` (or `Chart`), then the table.

use crate::numfmt::NumFmt;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quire_plugin_api::{Block, Cell, Inline, Style, Table};

/// Points kept per series (categories and values each); charts of cached data beyond this are
/// cut, as a table of more rows would not be read anyway.
const MAX_POINTS: usize = 10_000;

/// A chart's title and cached data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chart {
    /// The chart's own title (`c:chart/c:title`), not an axis title.
    pub title: Option<String>,
    /// The header row (an empty corner cell, then the series names) and a row per category.
    pub table: Option<Table>,
}

impl Chart {
    /// The chart as document blocks: the `Chart: <title>` line, then the table; nothing for a
    /// chart with neither title nor data.
    pub fn blocks(&self) -> Vec<Block> {
        if self.title.is_none() && self.table.is_none() {
            return Vec::new();
        }
        let label = match &self.title {
            Some(title) => format!("Chart: {title}"),
            None => "Chart".to_owned(),
        };
        let mut out = vec![Block::Paragraph(vec![Inline::styled(label, Style::BOLD)])];
        out.extend(self.table.clone().map(Block::Table));
        out
    }
}

/// One series of a chart: its name, and its categories' and values' cached texts by point.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub categories: Vec<(usize, String)>,
    pub values: Vec<(usize, String)>,
}

impl Chart {
    /// A chart of `series` read from another container (an Excel 97-2003 chart substream),
    /// with the table every format's charts have.
    pub fn from_series(title: Option<String>, series: &[Series]) -> Chart {
        Chart {
            title: title.filter(|t| !t.trim().is_empty()),
            table: to_table(series),
        }
    }
}

#[derive(PartialEq)]
enum In {
    Other,
    Name,
    Categories,
    Values,
}

fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

/// The namespace of chart-extension parts (`cx:chartSpace`: waterfall, histogram, box and
/// whisker, treemap, sunburst, funnel and map charts, Office 2016 on).
const CHARTEX: &[u8] = b"schemas.microsoft.com/office/drawing/2014/chartex";

/// Reads a chart part (a DrawingML chart or a chart-extension chart). A damaged part gives
/// what was read before the damage.
pub fn read(xml: &[u8]) -> Chart {
    if xml.windows(CHARTEX.len()).any(|w| w == CHARTEX) {
        return read_ex(xml);
    }
    let mut reader = Reader::from_reader(xml);
    let mut title = String::new();
    let mut found_title = None;
    // Element depth, the depth of the open `c:chart` and of the open chart title.
    let mut depth = 0usize;
    let mut chart_depth = None;
    let mut title_depth = None;
    let mut series: Vec<Series> = Vec::new();
    let mut section = In::Other;
    // The depth of the open `c:ser`: its name, categories and values are its children.
    let mut ser_depth = None;
    let mut pt_idx = 0usize;
    let mut in_value = false;
    // Inside a number cache or literal: its points are numbers, not text.
    let mut numeric = false;
    // The open number cache's format code (`c:formatCode`), a point's own (`c:pt formatCode`)
    // and whether serial dates count from 1904.
    let mut cache_format: Option<NumFmt> = None;
    let mut point_format: Option<NumFmt> = None;
    let mut in_format = false;
    let mut date1904 = false;
    loop {
        match reader.read_event() {
            Ok(Event::Empty(e)) if e.local_name().as_ref() == b"date1904" => {
                date1904 = attr(&e, b"val").is_none_or(|v| v == "1" || v == "true");
            }
            Ok(Event::Text(t)) if in_format => {
                if let Ok(code) = t.unescape() {
                    cache_format = Some(NumFmt::parse(code.trim()));
                }
            }
            Ok(Event::Start(e)) => {
                depth += 1;
                let name = e.local_name();
                match name.as_ref() {
                    b"chart" if chart_depth.is_none() => chart_depth = Some(depth),
                    b"title"
                        if found_title.is_none()
                            && title_depth.is_none()
                            && chart_depth.is_some_and(|d| d + 1 == depth) =>
                    {
                        title_depth = Some(depth)
                    }
                    b"p" if title_depth.is_some() && !title.is_empty() => title.push(' '),
                    b"ser" if ser_depth.is_none() => {
                        ser_depth = Some(depth);
                        series.push(Series::default());
                    }
                    b"tx" if ser_depth.is_some_and(|d| d + 1 == depth) => section = In::Name,
                    b"cat" | b"xVal" if ser_depth.is_some_and(|d| d + 1 == depth) => {
                        section = In::Categories
                    }
                    b"val" | b"yVal" if ser_depth.is_some_and(|d| d + 1 == depth) => {
                        section = In::Values
                    }
                    b"pt" => {
                        pt_idx = attr(&e, b"idx").and_then(|v| v.parse().ok()).unwrap_or(0);
                        point_format = attr(&e, b"formatCode").map(|c| NumFmt::parse(&c));
                    }
                    b"v" | b"t" => in_value = true,
                    b"numCache" | b"numLit" => numeric = true,
                    b"formatCode" if numeric => in_format = true,
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if in_value => {
                let Ok(t) = t.unescape() else { continue };
                let format = point_format.as_ref().or(cache_format.as_ref());
                let t = match numeric
                    .then(|| shown_number(&t, format, date1904))
                    .flatten()
                {
                    Some(n) => n.into(),
                    None => t,
                };
                if title_depth.is_some() {
                    title.push_str(&t);
                } else if let Some(s) = series.last_mut().filter(|_| ser_depth.is_some()) {
                    match section {
                        In::Name => s.name.push_str(&t),
                        In::Categories if s.categories.len() < MAX_POINTS => {
                            s.categories.push((pt_idx, t.into_owned()))
                        }
                        In::Values if s.values.len() < MAX_POINTS => {
                            s.values.push((pt_idx, t.into_owned()))
                        }
                        _ => {}
                    }
                }
            }
            Ok(Event::End(e)) => {
                match e.local_name().as_ref() {
                    b"v" | b"t" => in_value = false,
                    b"numCache" | b"numLit" => {
                        numeric = false;
                        cache_format = None;
                    }
                    b"formatCode" => in_format = false,
                    b"pt" => point_format = None,
                    b"tx" | b"cat" | b"val" | b"xVal" | b"yVal"
                        if ser_depth.is_some_and(|d| d + 1 == depth) =>
                    {
                        section = In::Other
                    }
                    _ => {}
                }
                if ser_depth == Some(depth) {
                    ser_depth = None;
                }
                if title_depth == Some(depth) {
                    title_depth = None;
                    let t = title.trim();
                    if !t.is_empty() {
                        found_title = Some(t.to_owned());
                    }
                    title.clear();
                }
                if chart_depth == Some(depth) {
                    chart_depth = None;
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    Chart {
        title: found_title,
        table: to_table(&series),
    }
}

/// A data set of a chart-extension part (`cx:data`): its id, categories and values.
#[derive(Default)]
struct ExData {
    id: String,
    categories: Vec<(usize, String)>,
    values: Vec<(usize, String)>,
}

/// Reads a chart-extension part. Its data sets (`cx:chartData/cx:data`) hold the cached
/// points, a string or number dimension of categories and a number dimension of values, each
/// in levels of which the first is the one plotted (a sunburst's outer levels group it);
/// series (`cx:series`) name a data set by `cx:dataId`.
fn read_ex(xml: &[u8]) -> Chart {
    #[derive(PartialEq, Clone, Copy)]
    enum Dim {
        None,
        Categories,
        Values,
    }
    let mut reader = Reader::from_reader(xml);
    let mut data: Vec<ExData> = Vec::new();
    // (name, data id) per series
    let mut series: Vec<(String, String)> = Vec::new();
    let mut title = String::new();
    let mut depth = 0usize;
    let mut chart_depth = None;
    let mut title_depth = None;
    let mut data_depth = None;
    let mut series_depth = None;
    let mut name_depth = None;
    let mut dim = Dim::None;
    let mut numeric = false;
    let mut levels = 0usize;
    // The plotted level's format code (`cx:lvl formatCode`)
    let mut level_format: Option<NumFmt> = None;
    let mut pt_idx = None;
    let mut in_text = false;
    loop {
        let (e, empty) = match reader.read_event() {
            Ok(Event::Start(e)) => (e, false),
            Ok(Event::Empty(e)) => (e, true),
            Ok(Event::Text(t)) => {
                let Ok(t) = t.unescape() else { continue };
                if title_depth.is_some() && in_text {
                    title.push_str(&t);
                } else if let (Some(_), true) = (name_depth, in_text) {
                    if let Some(s) = series.last_mut() {
                        s.0.push_str(&t);
                    }
                } else if let (Some(i), Some(d)) = (pt_idx, data.last_mut()) {
                    let shown = numeric
                        .then(|| shown_number(&t, level_format.as_ref(), false))
                        .flatten();
                    let t = match shown {
                        Some(n) => n,
                        None => t.into_owned(),
                    };
                    match dim {
                        Dim::Categories if d.categories.len() < MAX_POINTS => {
                            d.categories.push((i, t))
                        }
                        Dim::Values if d.values.len() < MAX_POINTS => d.values.push((i, t)),
                        _ => {}
                    }
                }
                continue;
            }
            Ok(Event::End(e)) => {
                match e.local_name().as_ref() {
                    b"v" | b"t" => in_text = false,
                    b"pt" => pt_idx = None,
                    b"strDim" | b"numDim" => dim = Dim::None,
                    _ => {}
                }
                for slot in [
                    &mut chart_depth,
                    &mut title_depth,
                    &mut data_depth,
                    &mut series_depth,
                    &mut name_depth,
                ] {
                    if *slot == Some(depth) {
                        *slot = None;
                    }
                }
                depth = depth.saturating_sub(1);
                continue;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => continue,
        };
        if !empty {
            depth += 1;
        }
        match e.local_name().as_ref() {
            b"chart" if chart_depth.is_none() && !empty => chart_depth = Some(depth),
            b"title" if title.is_empty() && chart_depth.is_some_and(|d| d + 1 == depth) => {
                title_depth = Some(depth)
            }
            b"p" if title_depth.is_some() && !title.is_empty() => title.push(' '),
            b"data" if data_depth.is_none() && chart_depth.is_none() && !empty => {
                data_depth = Some(depth);
                data.push(ExData {
                    id: attr(&e, b"id").unwrap_or_default(),
                    ..ExData::default()
                });
            }
            kind @ (b"strDim" | b"numDim") if data_depth.is_some() => {
                let of = attr(&e, b"type").unwrap_or_default();
                let categories = kind == b"strDim" || matches!(of.as_str(), "cat" | "x");
                let d = data.last();
                dim = match (categories, d) {
                    (true, Some(d)) if d.categories.is_empty() => Dim::Categories,
                    (false, Some(d)) if d.values.is_empty() => Dim::Values,
                    _ => Dim::None,
                };
                numeric = kind == b"numDim";
                levels = 0;
            }
            b"lvl" if dim != Dim::None => {
                levels += 1;
                if levels > 1 {
                    dim = Dim::None;
                }
                level_format = attr(&e, b"formatCode").map(|c| NumFmt::parse(&c));
            }
            b"pt" if dim != Dim::None && !empty => {
                pt_idx = attr(&e, b"idx").and_then(|v| v.parse().ok()).or(Some(0));
            }
            b"series" if chart_depth.is_some() && series_depth.is_none() && !empty => {
                series_depth = Some(depth);
                series.push((String::new(), String::new()));
            }
            b"tx" if series_depth.is_some_and(|d| d + 1 == depth) => name_depth = Some(depth),
            b"dataId" if series_depth.is_some() => {
                if let Some(s) = series.last_mut() {
                    s.1 = attr(&e, b"val").unwrap_or_default();
                }
            }
            b"v" | b"t" if !empty && (title_depth.is_some() || name_depth.is_some()) => {
                in_text = true
            }
            _ => {}
        }
    }
    let take = |id: &str| data.iter().find(|d| d.id == id);
    let mut list: Vec<Series> = series
        .iter()
        .filter_map(|(name, id)| {
            let d = take(id)?;
            Some(Series {
                name: name.clone(),
                categories: d.categories.clone(),
                values: d.values.clone(),
            })
        })
        .collect();
    if list.is_empty() {
        list = data
            .into_iter()
            .map(|d| Series {
                name: String::new(),
                categories: d.categories,
                values: d.values,
            })
            .collect();
    }
    let title = title.trim();
    Chart {
        title: (!title.is_empty()).then(|| title.to_owned()),
        table: to_table(&list),
    }
}

/// A cached number as the chart shows it, where that differs from the text: by its format
/// code (a date's serial as the date, `0%` as a percentage), or as General shows it.
fn shown_number(text: &str, format: Option<&NumFmt>, date1904: bool) -> Option<String> {
    match format.filter(|f| !f.is_general()) {
        Some(f) => {
            let x = text.trim().parse::<f64>().ok().filter(|x| x.is_finite())?;
            let shown = f.format(x, date1904);
            (!shown.is_empty()).then_some(shown)
        }
        None => general_number(text),
    }
}

/// A cached number as Excel's General format shows it, where that differs from the text:
/// at most 15 significant digits, the precision Excel keeps (a part stores the double's
/// shortest exact form, `4.4000000000000004` for the 4.4 typed into the sheet, and
/// `4.0000000000000029E-2` for 0.04).
fn general_number(text: &str) -> Option<String> {
    let t = text.trim();
    let digits = t
        .bytes()
        .take_while(|b| !matches!(b, b'e' | b'E'))
        .filter(u8::is_ascii_digit)
        .count();
    if digits <= 15 {
        return None;
    }
    let x = t.parse::<f64>().ok().filter(|x| x.is_finite())?;
    let rounded = format!("{x:.14e}").parse::<f64>().ok()?;
    // General writes decimals, and exponents only for magnitudes a cell cannot show so
    let plain = rounded == 0.0 || (1e-9..1e15).contains(&rounded.abs());
    Some(if plain {
        rounded.to_string()
    } else {
        format!("{rounded:E}")
    })
}

/// Points by index: the first text given for each index, `None` where there is none.
fn by_index(points: &[(usize, String)], rows: usize) -> Vec<Option<&str>> {
    let mut out = vec![None; rows];
    for (i, v) in points {
        if let Some(slot) = out.get_mut(*i).filter(|s| s.is_none()) {
            *slot = Some(v.as_str());
        }
    }
    out
}

fn to_table(series: &[Series]) -> Option<Table> {
    if series.iter().all(|s| s.values.is_empty()) {
        return None;
    }
    let rows_n = series
        .iter()
        .flat_map(|s| s.values.iter().chain(&s.categories).map(|(i, _)| i + 1))
        .max()
        .unwrap_or(0)
        .min(MAX_POINTS);
    let categories = series
        .iter()
        .find(|s| !s.categories.is_empty())
        .map(|s| by_index(&s.categories, rows_n))
        .unwrap_or_else(|| vec![None; rows_n]);
    let values: Vec<Vec<Option<&str>>> =
        series.iter().map(|s| by_index(&s.values, rows_n)).collect();
    let mut header = vec![Cell::text("")];
    for (i, s) in series.iter().enumerate() {
        let name = s.name.trim();
        header.push(Cell::text(if name.is_empty() {
            format!("Series {}", i + 1)
        } else {
            name.to_owned()
        }));
    }
    let mut rows = Vec::with_capacity(rows_n + 1);
    rows.push(header);
    for (r, category) in categories.iter().enumerate() {
        let mut row = vec![Cell::text(category.unwrap_or_default())];
        row.extend(values.iter().map(|v| Cell::text(v[r].unwrap_or_default())));
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
        let t = c.table.clone().expect("table");
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0][1], Cell::text("2024"));
        assert_eq!(t.rows[2][0], Cell::text("Q2"));
        assert_eq!(t.rows[2][1], Cell::text("2.5"));
        let blocks = c.blocks();
        assert_eq!(
            blocks[0],
            Block::Paragraph(vec![Inline::styled("Chart: Sales", Style::BOLD)])
        );
        assert_eq!(blocks[1], Block::Table(t));
    }

    #[test]
    fn chart_extension_parts_read_their_data_sets() {
        // A waterfall as Word writes it: the data set before the chart, the series naming it.
        let xml = br#"<cx:chartSpace xmlns:a="a" xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chartData><cx:externalData r:id="rId1"/>
<cx:data id="0"><cx:strDim type="cat"><cx:f>Sheet1!$A$2:$A$4</cx:f><cx:lvl ptCount="3"><cx:pt idx="0">Start</cx:pt><cx:pt idx="1">Q1</cx:pt><cx:pt idx="2">End</cx:pt></cx:lvl><cx:lvl ptCount="1"><cx:pt idx="0">Year</cx:pt></cx:lvl></cx:strDim>
<cx:numDim type="val"><cx:f>Sheet1!$B$2:$B$4</cx:f><cx:lvl ptCount="3" formatCode="General"><cx:pt idx="0">100</cx:pt><cx:pt idx="1">-40.100000000000001</cx:pt><cx:pt idx="2">60</cx:pt></cx:lvl></cx:numDim></cx:data></cx:chartData>
<cx:chart><cx:title pos="t"><cx:tx><cx:txData><cx:v>Cash flow</cx:v></cx:txData></cx:tx></cx:title><cx:plotArea><cx:plotAreaRegion><cx:series layoutId="waterfall"><cx:tx><cx:txData><cx:f>Sheet1!$B$1</cx:f><cx:v>Amount</cx:v></cx:txData></cx:tx><cx:dataId val="0"/></cx:series></cx:plotAreaRegion>
<cx:axis id="0"><cx:title><cx:tx><cx:txData><cx:v>Axis</cx:v></cx:txData></cx:tx></cx:title></cx:axis></cx:plotArea></cx:chart></cx:chartSpace>"#;
        let c = read(xml);
        assert_eq!(c.title.as_deref(), Some("Cash flow"));
        let want: Vec<Vec<Cell>> = [
            ["", "Amount"],
            ["Start", "100"],
            ["Q1", "-40.1"],
            ["End", "60"],
        ]
        .iter()
        .map(|r| r.iter().map(|&t| Cell::text(t)).collect())
        .collect();
        assert_eq!(c.table.expect("table").rows, want);
    }

    #[test]
    fn cached_numbers_read_as_excel_shows_them() {
        // Parts store the double's exact form; Excel shows 15 significant digits. Text
        // categories are never rewritten, whatever they look like.
        let xml = br#"<c:chartSpace xmlns:c="c"><c:chart><c:plotArea><c:barChart><c:ser>
<c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>0.30000000000000004</c:v></c:pt><c:pt idx="1"><c:v>b</c:v></c:pt></c:strCache></c:strRef></c:cat>
<c:val><c:numRef><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>4.4000000000000004</c:v></c:pt><c:pt idx="1"><c:v>1.2345678901234567E-5</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
<c:ser><c:cat><c:numLit><c:pt idx="0"><c:v>2.0000000000000004</c:v></c:pt></c:numLit></c:cat><c:val><c:numLit><c:pt idx="0"><c:v>0.1</c:v></c:pt><c:pt idx="1"><c:v>-7.7999999999999998</c:v></c:pt><c:pt idx="2"><c:v>4.0000000000000029E-2</c:v></c:pt><c:pt idx="3"><c:v>1.2345678901234567E+20</c:v></c:pt></c:numLit></c:val></c:ser>
</c:barChart></c:plotArea></c:chart></c:chartSpace>"#;
        let t = read(xml).table.expect("table");
        assert_eq!(t.rows[1][0], Cell::text("0.30000000000000004"));
        assert_eq!(t.rows[1][1], Cell::text("4.4"));
        assert_eq!(t.rows[2][1], Cell::text("0.0000123456789012346"));
        assert_eq!(t.rows[1][2], Cell::text("0.1"));
        assert_eq!(t.rows[2][2], Cell::text("-7.8"));
        assert_eq!(t.rows[3][2], Cell::text("0.04"));
        assert_eq!(t.rows[4][2], Cell::text("1.23456789012346E20"));
    }

    #[test]
    fn cached_numbers_follow_their_format_code() {
        // A time series as PowerPoint caches it: date serials under `m/d/yyyy`, shares under
        // `0%`, one point with a format of its own; then the same dates in a 1904 workbook
        // and a chart-extension level with its format code as an attribute.
        let xml = br#"<c:chartSpace xmlns:c="c"><c:date1904 val="0"/><c:chart><c:plotArea><c:lineChart><c:ser>
<c:cat><c:numRef><c:numCache><c:formatCode>m/d/yyyy</c:formatCode><c:pt idx="0"><c:v>37261</c:v></c:pt><c:pt idx="1"><c:v>37262</c:v></c:pt></c:numCache></c:numRef></c:cat>
<c:val><c:numRef><c:numCache><c:formatCode>0%</c:formatCode><c:pt idx="0"><c:v>0.25</c:v></c:pt><c:pt idx="1" formatCode="0.00"><c:v>1.5</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
</c:lineChart></c:plotArea></c:chart></c:chartSpace>"#;
        let t = read(xml).table.expect("table");
        assert_eq!(t.rows[1][0], Cell::text("1/5/2002"));
        assert_eq!(t.rows[2][0], Cell::text("1/6/2002"));
        assert_eq!(t.rows[1][1], Cell::text("25%"));
        assert_eq!(t.rows[2][1], Cell::text("1.50"));
        let xml1904 =
            String::from_utf8_lossy(xml).replace(r#"date1904 val="0""#, r#"date1904 val="1""#);
        let t = read(xml1904.as_bytes()).table.expect("table");
        assert_eq!(t.rows[1][0], Cell::text("1/6/2006"));
        let ex = br##"<cx:chartSpace xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chartData><cx:data id="0">
<cx:numDim type="cat"><cx:lvl ptCount="1" formatCode="yyyy-mm-dd"><cx:pt idx="0">45000</cx:pt></cx:lvl></cx:numDim>
<cx:numDim type="val"><cx:lvl ptCount="1" formatCode="#,##0"><cx:pt idx="0">1234567</cx:pt></cx:lvl></cx:numDim></cx:data></cx:chartData>
<cx:chart><cx:plotArea><cx:plotAreaRegion><cx:series layoutId="waterfall"><cx:tx><cx:txData><cx:v>Cash</cx:v></cx:txData></cx:tx><cx:dataId val="0"/></cx:series></cx:plotAreaRegion></cx:plotArea></cx:chart></cx:chartSpace>"##;
        let t = read(ex).table.expect("table");
        assert_eq!(t.rows[1][0], Cell::text("2023-03-15"));
        assert_eq!(t.rows[1][1], Cell::text("1,234,567"));
    }

    #[test]
    fn an_axis_title_is_not_the_chart_title_and_gaps_stay_empty() {
        // No chart title; the value axis has one. Two series, the second without a name and
        // missing a point; a formula (`c:f`) is never taken for data, nor a data label's
        // text for the series name.
        let xml = br#"<c:chartSpace xmlns:c="c" xmlns:a="a"><c:chart><c:plotArea><c:lineChart>
<c:ser><c:tx><c:v>Rain</c:v></c:tx><c:dLbls><c:dLbl><c:tx><c:rich><a:p><a:r><a:t>peak</a:t></a:r></a:p></c:rich></c:tx></c:dLbl></c:dLbls><c:cat><c:strLit><c:pt idx="0"><c:v>Mon</c:v></c:pt><c:pt idx="1"><c:v>Tue</c:v></c:pt></c:strLit></c:cat>
<c:val><c:numRef><c:f>Sheet1!$B$2:$B$3</c:f><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>3</c:v></c:pt><c:pt idx="1"><c:v>5</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
<c:ser><c:val><c:numLit><c:pt idx="1"><c:v>9</c:v></c:pt></c:numLit></c:val></c:ser></c:lineChart>
<c:valAx><c:title><c:tx><c:rich><a:p><a:r><a:t>mm</a:t></a:r></a:p></c:rich></c:tx></c:title></c:valAx></c:plotArea></c:chart></c:chartSpace>"#;
        let c = read(xml);
        assert_eq!(c.title, None);
        let t = c.table.clone().expect("table");
        let text: Vec<Vec<&str>> = t
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| match c.content.first() {
                        Some(Inline::Text { text, .. }) => text.as_str(),
                        _ => "",
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            text,
            [
                ["", "Rain", "Series 2"],
                ["Mon", "3", ""],
                ["Tue", "5", "9"]
            ]
        );
        assert_eq!(
            c.blocks()[0],
            Block::Paragraph(vec![Inline::styled("Chart", Style::BOLD)])
        );
        assert!(read(b"<c:chartSpace/>").blocks().is_empty());
        assert!(read(b"not xml <<<").blocks().is_empty());
    }
}
