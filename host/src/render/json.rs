//! Document model → the interface's JSON shapes (`multi_page_document`, `presentation`,
//! `spreadsheet`, `structured_document`) and decisions.md's `image` and `structured_data`.
//! The shapes are published as JSON Schemas in `host/schemas/` and every test output is
//! validated against them.

use super::{fold, markdown, plain_blocks, plain_inlines, title, ImageMode, RenderOptions};

/// How images appear in the text of JSON output, set once per document by [`document`].
fn mode_of(opts: &RenderOptions) -> ImageMode {
    opts.images.json_text()
}
use base64::Engine as _;
use quire_plugin_api::text::word_count;
use quire_plugin_api::{Block, Document, DocumentKind, Grid, Inline, Part};
use serde_json::{json, Map, Value};

/// Builds the JSON value for a document.
pub fn document(doc: &Document, file_name: &str, opts: &RenderOptions) -> Value {
    let header = document_header(doc, file_name);
    let content = match doc.kind {
        DocumentKind::Paged => paged(doc, mode_of(opts)),
        DocumentKind::Presentation => presentation(doc, mode_of(opts)),
        DocumentKind::Spreadsheet => spreadsheet(doc, opts),
        DocumentKind::Flowing => structured_document(doc, mode_of(opts)),
        DocumentKind::Image => image(doc, mode_of(opts)),
        DocumentKind::StructuredData => json!({
            "type": "structured_data",
            "data": doc.data.clone().unwrap_or(Value::Null),
        }),
    };
    let out = json!({
        "document": header,
        "content": content,
    });
    document_images(doc, out, opts)
}

/// The `document` object of the output: file name, title, type label and metadata (also the
/// head of the chunks output).
pub fn document_header(doc: &Document, file_name: &str) -> Value {
    let mut metadata = kind_metadata(doc);
    if let Value::Object(m) = &mut metadata {
        for (k, v) in &doc.metadata.extra {
            m.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in [
            ("author", &doc.metadata.author),
            ("created", &doc.metadata.created),
            ("title", &doc.metadata.title),
            ("subject", &doc.metadata.subject),
            ("modified", &doc.metadata.modified),
        ] {
            if let Some(v) = v {
                m.entry(k).or_insert_with(|| json!(v));
            }
        }
    }
    json!({
        "filename": file_name,
        "title": title(doc, file_name),
        "type": doc.type_label,
        "metadata": metadata,
    })
}

fn document_images(doc: &Document, mut out: Value, opts: &RenderOptions) -> Value {
    let images: Map<String, Value> = doc
        .images()
        .into_iter()
        .filter(|img| img.skipped.is_none() && !img.data.is_empty())
        .map(|img| {
            (
                img.name.clone(),
                Value::String(base64::engine::general_purpose::STANDARD.encode(&img.data)),
            )
        })
        .collect();
    // `referenced`, `placeholder` and `none` leave the map out: the files are served apart.
    if !images.is_empty() && opts.images == super::ImageOutput::Embedded {
        out["images"] = Value::Object(images);
    }
    out
}

/// The document's own count of pages or slides (the converter's `metadata.extra[key]`), which
/// stays the whole document's when the job's `pages` converted only some; else the parts.
fn declared_total(doc: &Document, key: &str) -> usize {
    doc.metadata
        .extra
        .get(key)
        .and_then(Value::as_u64)
        .map_or(doc.parts.len(), |n| n as usize)
}

fn opt(v: &Option<String>) -> Value {
    v.as_ref().map_or(Value::Null, |s| Value::String(s.clone()))
}

fn kind_metadata(doc: &Document) -> Value {
    let m = &doc.metadata;
    match doc.kind {
        DocumentKind::Paged => json!({
            "num_pages": declared_total(doc, "num_pages"),
            "author": opt(&m.author),
            "created": opt(&m.created),
        }),
        DocumentKind::Presentation => json!({
            "num_slides": declared_total(doc, "num_slides"),
            "slide_width": m.slide_width,
            "slide_height": m.slide_height,
            "author": opt(&m.author),
            "created": opt(&m.created),
        }),
        DocumentKind::Spreadsheet => json!({
            "num_sheets": doc.parts.len(),
            "sheet_names": sheet_names(doc),
            "author": opt(&m.author),
            "created": opt(&m.created),
        }),
        DocumentKind::Flowing => json!({
            "author": opt(&m.author),
            "created": opt(&m.created),
            "num_paragraphs": doc.parts.iter().map(|p| count_paragraphs(&p.blocks)).sum::<usize>(),
        }),
        DocumentKind::Image => {
            let s = doc.image.as_ref();
            json!({
                "width": s.map(|s| s.width),
                "height": s.map(|s| s.height),
                "format": s.map(|s| s.format.clone()),
            })
        }
        DocumentKind::StructuredData => json!({}),
    }
}

fn sheet_names(doc: &Document) -> Vec<String> {
    doc.parts
        .iter()
        .enumerate()
        .map(|(i, p)| p.name.clone().unwrap_or_else(|| format!("Sheet{}", i + 1)))
        .collect()
}

fn count_paragraphs(blocks: &[Block]) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            Block::Paragraph(c) => usize::from(!fold(&plain_inlines(c)).is_empty()),
            Block::List(l) => l.items.iter().map(|i| count_paragraphs(&i.blocks)).sum(),
            Block::Quote(inner) | Block::Note { blocks: inner, .. } => count_paragraphs(inner),
            _ => 0,
        })
        .sum()
}

fn part_text(part: &Part, mode: ImageMode) -> String {
    let mut text = markdown::blocks(&part.blocks, mode);
    if !part.notes.is_empty() {
        text.push_str("\n\n### Notes\n\n");
        text.push_str(&markdown::blocks(&part.notes, mode));
    }
    text
}

fn paged(doc: &Document, mode: ImageMode) -> Value {
    let pages: Vec<Value> = doc
        .parts
        .iter()
        .map(|p| {
            let text = part_text(p, mode);
            json!({"page_number": p.number, "text": text, "word_count": word_count(&text)})
        })
        .collect();
    let total = declared_total(doc, "num_pages");
    json!({"type": "multi_page_document", "total_pages": total, "pages": pages})
}

fn presentation(doc: &Document, mode: ImageMode) -> Value {
    let slides: Vec<Value> = doc
        .parts
        .iter()
        .map(|p| {
            let mut elements = Vec::new();
            slide_elements(&p.blocks, 0, &mut elements);
            let slide_title = p.blocks.iter().find_map(|b| match b {
                Block::Heading { content, .. } => Some(fold(&plain_inlines(content))),
                _ => None,
            });
            let notes = markdown::blocks(&p.notes, mode);
            let mut slide = json!({
                "slide_number": p.number,
                "title": slide_title,
                "text": markdown::blocks(&p.blocks, mode),
                "summary": summary(&p.blocks),
                "elements": elements,
            });
            if !notes.is_empty() {
                slide["notes"] = Value::String(notes);
            }
            slide
        })
        .collect();
    let total = declared_total(doc, "num_slides");
    json!({"type": "presentation", "total_slides": total, "slides": slides})
}

/// A one-line summary: the slide's text folded and cut at a word boundary near 200 characters.
fn summary(blocks: &[Block]) -> String {
    let text = fold(&plain_blocks(blocks));
    if text.chars().count() <= 200 {
        return text;
    }
    let cut: String = text.chars().take(200).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > 100 => &cut[..i],
        _ => &cut,
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

fn slide_elements(blocks: &[Block], level: usize, out: &mut Vec<Value>) {
    for block in blocks {
        match block {
            Block::Heading { content, level: l } => out.push(json!({
                "type": "heading", "text": fold(&plain_inlines(content)), "level": l,
            })),
            Block::Paragraph(content) => {
                let text = fold(&plain_inlines(content));
                if !text.is_empty() {
                    if level > 0 {
                        out.push(json!({"type": "bullet_point", "text": text, "level": level}));
                    } else {
                        out.push(json!({"type": "text", "text": text}));
                    }
                }
            }
            Block::List(list) => {
                for item in &list.items {
                    for (k, block) in item.blocks.iter().enumerate() {
                        match block {
                            // A further paragraph of the item (below its bullet's text):
                            // text at the item's level, not a bullet of its own.
                            Block::Paragraph(content) if k > 0 => {
                                let text = fold(&plain_inlines(content));
                                if !text.is_empty() {
                                    out.push(
                                        json!({"type": "text", "text": text, "level": level + 1}),
                                    );
                                }
                            }
                            _ => slide_elements(std::slice::from_ref(block), level + 1, out),
                        }
                    }
                }
            }
            Block::Table(table) => {
                for (i, row) in table.rows.iter().enumerate() {
                    let cells: Vec<String> = row
                        .iter()
                        .map(|c| fold(&plain_inlines(&c.content)))
                        .collect();
                    out.push(json!({"type": "table_row", "cells": cells, "header": i < table.header_rows}));
                }
            }
            Block::Grid(grid) => {
                for (i, row) in grid.iter_rows().enumerate() {
                    let cells: Vec<&str> = row.collect();
                    out.push(json!({"type": "table_row", "cells": cells, "header": i == 0}));
                }
            }
            Block::Code { text, .. } => out.push(json!({"type": "text", "text": text})),
            Block::Quote(inner) | Block::Note { blocks: inner, .. } => {
                slide_elements(inner, level, out)
            }
            Block::Image(_) | Block::Rule => {}
        }
    }
}

fn spreadsheet(doc: &Document, opts: &RenderOptions) -> Value {
    let mode = mode_of(opts);
    let names = sheet_names(doc);
    let sheets: Vec<Value> = doc
        .parts
        .iter()
        .zip(&names)
        .map(|(part, name)| {
            let grids: Vec<&Grid> = part
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Grid(g) if !g.is_empty() && g.columns() > 0 => Some(&**g),
                    _ => None,
                })
                .collect();
            let mut entry = sheet(name, &grids, opts.sample_rows);
            // cell comments, as a slide's notes: Markdown text beside the contract's fields
            if !part.notes.is_empty() {
                entry["notes"] = Value::String(markdown::blocks(&part.notes, mode));
            }
            entry
        })
        .collect();
    json!({
        "type": "spreadsheet",
        "total_sheets": sheets.len(),
        "sheet_names": names,
        "sheets": sheets,
    })
}

/// Header names for the key-value maps: empty ones become `Column N`, repeats get a suffix.
fn header_names(grid: &Grid) -> Vec<String> {
    let columns = grid.columns();
    let mut raw: Vec<String> = grid.row(0).map(|s| s.trim().to_owned()).collect();
    raw.resize(columns, String::new());
    let mut seen = std::collections::HashMap::<String, usize>::new();
    raw.into_iter()
        .enumerate()
        .map(|(i, h)| {
            let h = if h.is_empty() {
                format!("Column {}", i + 1)
            } else {
                h
            };
            let n = seen.entry(h.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                h
            } else {
                format!("{h}_{n}")
            }
        })
        .collect()
}

/// A sheet entry. A sheet may hold several separate tables (one grid each, in reading
/// order). The contract's fields (`row_count`, `column_count`, `headers`, `has_data`,
/// `sample_data`) describe one of them: the first with data rows over two or more columns,
/// so that a title or a stack of heading lines above a table (each a region of its own) does
/// not stand in for the sheet's data; failing that the first with data rows, else the first.
/// `rows` holds every table's rows in order, each table beginning with its `header` element,
/// and `regions` lists the tables with where they sit.
fn sheet(name: &str, grids: &[&Grid], sample_rows: usize) -> Value {
    if grids.is_empty() {
        return json!({
            "sheet_name": name, "row_count": 0, "column_count": 0, "headers": [],
            "has_data": false, "sample_data": [], "rows": [{"type": "empty"}], "regions": [],
        });
    }
    let primary = grids
        .iter()
        .position(|g| g.rows() > 1 && g.columns() > 1)
        .or_else(|| grids.iter().position(|g| g.rows() > 1))
        .unwrap_or(0);
    let mut rows = Vec::with_capacity(grids.iter().map(|g| g.rows()).sum());
    let mut regions = Vec::with_capacity(grids.len());
    let mut sample = Vec::new();
    let mut primary_headers = Vec::new();
    for (i, grid) in grids.iter().enumerate() {
        let headers = header_names(grid);
        let wanted = if i == primary { sample_rows } else { 0 };
        region_rows(grid, &headers, wanted, &mut rows, &mut sample);
        let mut region = Map::new();
        if let Some((row, column)) = grid.origin() {
            region.insert("range".into(), json!(a1_range(row, column, grid)));
        }
        region.insert("row_count".into(), json!(grid.rows() - 1));
        region.insert("column_count".into(), json!(grid.columns()));
        if i == primary {
            primary_headers = headers.clone();
        }
        region.insert("headers".into(), json!(headers));
        regions.push(Value::Object(region));
    }
    let grid = grids[primary];
    let row_count = grid.rows() - 1;
    json!({
        "sheet_name": name,
        "row_count": row_count,
        "column_count": grid.columns(),
        "headers": primary_headers,
        "has_data": row_count > 0,
        "sample_data": sample,
        "rows": rows,
        "regions": regions,
    })
}

/// One table's `header`, `data` and `empty` elements; its first `sample_rows` non-empty data
/// rows also go to `sample`.
fn region_rows(
    grid: &Grid,
    headers: &[String],
    sample_rows: usize,
    rows: &mut Vec<Value>,
    sample: &mut Vec<Vec<String>>,
) {
    let columns = grid.columns();
    let padded = |i: usize| -> Vec<String> {
        let mut cells: Vec<String> = grid.row(i).map(str::to_owned).collect();
        cells.resize(columns, String::new());
        cells
    };
    rows.push(json!({"type": "header", "cells": padded(0)}));
    let mut sampled = 0;
    for i in 1..grid.rows() {
        let cells = padded(i);
        if cells.iter().all(|c| c.trim().is_empty()) {
            rows.push(json!({"type": "empty", "row_number": i}));
            continue;
        }
        if sampled < sample_rows {
            sample.push(cells.clone());
            sampled += 1;
        }
        let values: Map<String, Value> = headers
            .iter()
            .zip(&cells)
            .map(|(h, c)| (h.clone(), Value::String(c.clone())))
            .collect();
        rows.push(json!({"type": "data", "row_number": i, "cells": cells, "values": values}));
    }
}

/// `A1:C5`: the cells a grid covers from its zero-based origin.
fn a1_range(row: u32, column: u32, grid: &Grid) -> String {
    let last_row = row as usize + grid.rows();
    let last_column = column as usize + grid.columns() - 1;
    format!(
        "{}{}:{}{}",
        column_name(column as usize),
        row + 1,
        column_name(last_column),
        last_row
    )
}

/// A spreadsheet column's letters: 0 → `A`, 25 → `Z`, 26 → `AA`.
fn column_name(index: usize) -> String {
    let mut n = index + 1;
    let mut letters = Vec::new();
    while n > 0 {
        n -= 1;
        letters.push(b'A' + (n % 26) as u8);
        n /= 26;
    }
    letters.iter().rev().map(|&b| char::from(b)).collect()
}

struct Section<'a> {
    heading: String,
    level: u8,
    blocks: Vec<&'a Block>,
}

fn structured_document(doc: &Document, mode: ImageMode) -> Value {
    let mut sections: Vec<Section<'_>> = Vec::new();
    let mut current = Section {
        heading: String::new(),
        level: 0,
        blocks: Vec::new(),
    };
    for part in &doc.parts {
        for block in &part.blocks {
            if let Block::Heading { level, content } = block {
                let heading = fold(&plain_inlines(content));
                if !heading.is_empty() {
                    let done = std::mem::replace(
                        &mut current,
                        Section {
                            heading,
                            level: *level,
                            blocks: Vec::new(),
                        },
                    );
                    if !done.heading.is_empty() || !done.blocks.is_empty() {
                        sections.push(done);
                    }
                    continue;
                }
            }
            current.blocks.push(block);
        }
    }
    if !current.heading.is_empty() || !current.blocks.is_empty() {
        sections.push(current);
    }
    let sections: Vec<Value> = sections
        .into_iter()
        .map(|s| {
            let owned: Vec<Block> = s.blocks.iter().map(|b| (*b).clone()).collect();
            let content = markdown::blocks(&owned, mode);
            let stats = formatting(&owned);
            json!({
                "heading": s.heading,
                "level": s.level,
                "content": content,
                "metadata": {
                    "word_count": word_count(&plain_blocks(&owned)),
                    "paragraphs": count_paragraphs(&owned),
                    "lists": stats.lists,
                    "tables": stats.tables,
                    "images": stats.images,
                    "code_blocks": stats.code,
                    "has_bold": stats.bold,
                    "has_italic": stats.italic,
                    "has_links": stats.links,
                },
            })
        })
        .collect();
    json!({"type": "structured_document", "total_sections": sections.len(), "sections": sections})
}

#[derive(Default)]
struct Formatting {
    lists: usize,
    tables: usize,
    images: usize,
    code: usize,
    bold: bool,
    italic: bool,
    links: bool,
}

fn formatting(blocks: &[Block]) -> Formatting {
    fn inl(content: &[Inline], f: &mut Formatting) {
        for i in content {
            match i {
                Inline::Text { style, .. } => {
                    f.bold |= style.bold;
                    f.italic |= style.italic;
                }
                Inline::Link(link) => {
                    f.links = true;
                    inl(&link.content, f);
                }
                Inline::Image(_) => f.images += 1,
                _ => {}
            }
        }
    }
    fn walk(blocks: &[Block], f: &mut Formatting) {
        for b in blocks {
            match b {
                Block::Heading { content, .. } | Block::Paragraph(content) => inl(content, f),
                Block::List(l) => {
                    f.lists += 1;
                    for item in &l.items {
                        walk(&item.blocks, f);
                    }
                }
                Block::Table(t) => {
                    f.tables += 1;
                    for row in &t.rows {
                        for c in row {
                            inl(&c.content, f);
                        }
                    }
                }
                Block::Grid(_) => f.tables += 1,
                Block::Image(_) => f.images += 1,
                Block::Code { .. } => f.code += 1,
                Block::Quote(inner) | Block::Note { blocks: inner, .. } => walk(inner, f),
                Block::Rule => {}
            }
        }
    }
    let mut f = Formatting::default();
    walk(blocks, &mut f);
    f
}

fn image(doc: &Document, mode: ImageMode) -> Value {
    let s = doc.image.as_ref();
    let text = doc
        .parts
        .iter()
        .map(|p| part_text(p, mode))
        .collect::<Vec<_>>()
        .join("\n\n");
    json!({
        "type": "image",
        "width": s.map_or(0, |s| s.width),
        "height": s.map_or(0, |s| s.height),
        "format": s.map_or("", |s| s.format.as_str()),
        "frames": s.map_or(doc.parts.len() as u32, |s| s.frames),
        "ocr_text": s.and_then(|s| s.ocr_text.clone()),
        "ocr_provider": s.and_then(|s| s.ocr_provider.clone()),
        "text": text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_plugin_api::{Cell, Image, ImageSummary, List, ListItem, Style, Table};

    fn validate(value: &Value) {
        let kind = value["content"]["type"].as_str().unwrap();
        let path = quire_testkit::workspace().join(format!("host/schemas/{kind}.json"));
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{kind}: {errors:?}\n{value:#}");
    }

    fn render(doc: &Document) -> Value {
        let v = document(
            doc,
            "My File (1).docx",
            &RenderOptions {
                sample_rows: 2,
                ..RenderOptions::default()
            },
        );
        validate(&v);
        v
    }

    #[test]
    fn structured_document_splits_sections_by_heading() {
        let mut doc = Document::new(DocumentKind::Flowing, "Word Document");
        doc.metadata.author = Some("Ann".into());
        let mut part = Part::section();
        part.blocks = vec![
            Block::text("preamble"),
            Block::heading(1, "Intro"),
            Block::Paragraph(vec![Inline::styled("bold words here", Style::BOLD)]),
            Block::List(List {
                ordered: false,
                start: 1,
                items: vec![ListItem {
                    blocks: vec![Block::text("item")],
                    checked: None,
                }],
            }),
            Block::heading(2, "Next"),
            Block::Image(Box::new(Image::new("a.png", "image/png", vec![1, 2]))),
        ];
        doc.parts.push(part);
        let v = render(&doc);
        assert_eq!(v["document"]["title"], "Intro");
        assert_eq!(v["document"]["type"], "Word Document");
        assert_eq!(v["document"]["metadata"]["author"], "Ann");
        assert_eq!(v["document"]["metadata"]["num_paragraphs"], 3);
        let s = &v["content"]["sections"];
        assert_eq!(v["content"]["total_sections"], 3);
        assert_eq!(s[0]["heading"], "");
        assert_eq!(s[1]["heading"], "Intro");
        assert_eq!(s[1]["content"], "**bold words here**\n\n- item");
        assert_eq!(s[1]["metadata"]["word_count"], 4);
        assert_eq!(s[1]["metadata"]["has_bold"], true);
        assert_eq!(s[2]["content"], "![a.png](a.png)");
        assert_eq!(v["images"]["a.png"], "AQI=");
    }

    #[test]
    fn spreadsheet_rows_headers_and_samples() {
        let mut doc = Document::new(DocumentKind::Spreadsheet, "Excel Workbook");
        let mut grid = Grid::new();
        grid.push_row(["Name", "", "Name"]);
        grid.push_row(["a", "1", "x"]);
        grid.push_row(["", "", ""]);
        grid.push_row(["b", "2"]);
        grid.push_row(["c", "3", "z"]);
        let mut sheet = Part::sheet(1, "Data");
        sheet.blocks.push(Block::Grid(Box::new(grid)));
        doc.parts.push(sheet);
        doc.parts.push(Part::sheet(2, "Empty"));
        let v = render(&doc);
        assert_eq!(
            v["document"]["metadata"]["sheet_names"],
            json!(["Data", "Empty"])
        );
        let s = &v["content"]["sheets"][0];
        assert_eq!(s["headers"], json!(["Name", "Column 2", "Name_2"]));
        assert_eq!(s["row_count"], 4);
        assert_eq!(s["column_count"], 3);
        assert_eq!(s["sample_data"], json!([["a", "1", "x"], ["b", "2", ""]]));
        assert_eq!(s["rows"][2], json!({"type": "empty", "row_number": 2}));
        assert_eq!(s["rows"][3]["values"]["Column 2"], "2");
        assert_eq!(
            s["regions"],
            json!([{"row_count": 4, "column_count": 3, "headers": ["Name", "Column 2", "Name_2"]}])
        );
        let e = &v["content"]["sheets"][1];
        assert_eq!(e["has_data"], false);
        assert_eq!(e["rows"], json!([{"type": "empty"}]));
        assert_eq!(e["regions"], json!([]));
    }

    #[test]
    fn a_sheets_notes_are_its_cell_comments() {
        let mut doc = Document::new(DocumentKind::Spreadsheet, "Excel Workbook");
        let mut grid = Grid::new();
        grid.push_row(["Year", "Ducks"]);
        grid.push_row(["2024", "310"]);
        let mut sheet = Part::sheet(1, "Data");
        sheet.blocks.push(Block::Grid(Box::new(grid)));
        sheet
            .notes
            .push(Block::text("Comment on B2 by Ann: too many"));
        doc.parts.push(sheet);
        doc.parts.push(Part::sheet(2, "Empty"));
        let v = render(&doc);
        assert_eq!(
            v["content"]["sheets"][0]["notes"],
            "Comment on B2 by Ann: too many"
        );
        assert!(v["content"]["sheets"][1].get("notes").is_none());
    }

    #[test]
    fn a_sheet_of_several_tables_keeps_the_contract_and_lists_its_regions() {
        let grid = |at: (u32, u32), rows: &[&[&str]]| {
            let mut g = Grid::at(at.0, at.1);
            for row in rows {
                g.push_row(row.iter());
            }
            Block::Grid(Box::new(g))
        };
        let mut sheet = Part::sheet(1, "Report");
        sheet.blocks = vec![
            grid((0, 0), &[&["Sales report"]]),
            grid((2, 0), &[&["Unaudited"], &["In thousands"]]),
            grid(
                (5, 0),
                &[
                    &["Region", "Q1", "Q2", "", "Total"],
                    &[],
                    &["North", "10", "12", "", "22"],
                    &["South", "7", "9", "", "16"],
                    &["West", "1", "2", "", "3"],
                ],
            ),
            grid((12, 27), &[&["Cost", "Amount"], &["Rent", "5"]]),
            Block::text("Chart: Sales"),
        ];
        let mut doc = Document::new(DocumentKind::Spreadsheet, "Excel Workbook");
        doc.parts.push(sheet);
        let v = render(&doc);
        let s = &v["content"]["sheets"][0];
        // The contract's fields: the first table with data, not the title lines above it.
        assert_eq!(
            s["headers"],
            json!(["Region", "Q1", "Q2", "Column 4", "Total"])
        );
        assert_eq!(s["row_count"], 4);
        assert_eq!(s["column_count"], 5);
        assert_eq!(s["has_data"], true);
        assert_eq!(
            s["sample_data"],
            json!([
                ["North", "10", "12", "", "22"],
                ["South", "7", "9", "", "16"]
            ])
        );
        let ranges: Vec<&str> = s["regions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["range"].as_str().unwrap())
            .collect();
        assert_eq!(ranges, ["A1:A1", "A3:A4", "A6:E10", "AB13:AC14"]);
        assert_eq!(s["regions"][3]["headers"], json!(["Cost", "Amount"]));
        assert_eq!(s["regions"][0]["row_count"], 0);
        assert_eq!(s["regions"][1]["row_count"], 1);
        // Every table's rows, each beginning with its header.
        let kinds: Vec<&str> = s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "header", "header", "data", "header", "empty", "data", "data", "data", "header",
                "data"
            ]
        );
        assert_eq!(s["rows"][9]["values"]["Amount"], "5");
        assert_eq!(column_name(701), "ZZ");
        assert_eq!(column_name(702), "AAA");
    }

    #[test]
    fn pages_slides_images_and_data() {
        let mut pdf = Document::new(DocumentKind::Paged, "PDF Document");
        let mut p = Part::page(1);
        p.blocks.push(Block::text("one two three"));
        pdf.parts.push(p);
        let v = render(&pdf);
        assert_eq!(v["content"]["pages"][0]["word_count"], 3);
        assert_eq!(v["document"]["metadata"]["num_pages"], 1);
        assert_eq!(v["document"]["title"], "My File (1)");

        let mut deck = Document::new(DocumentKind::Presentation, "PowerPoint Presentation");
        deck.metadata.slide_width = Some(9_144_000);
        deck.metadata.slide_height = Some(6_858_000);
        let mut s = Part::slide(1);
        s.blocks.push(Block::heading(2, "Title"));
        s.blocks.push(Block::List(List {
            ordered: false,
            start: 1,
            items: vec![ListItem {
                blocks: vec![Block::text("point"), Block::text("more of it")],
                checked: None,
            }],
        }));
        s.blocks.push(Block::Table(Table {
            header_rows: 1,
            rows: vec![vec![Cell::text("h")], vec![Cell::text("v")]],
        }));
        s.notes.push(Block::text("notes"));
        deck.parts.push(s);
        let v = render(&deck);
        let slide = &v["content"]["slides"][0];
        assert_eq!(slide["title"], "Title");
        assert_eq!(slide["summary"], "Title point more of it h v");
        let kinds: Vec<&str> = slide["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        // An item's further paragraph is text at the item's level, not another bullet.
        assert_eq!(
            kinds,
            ["heading", "bullet_point", "text", "table_row", "table_row"]
        );
        assert_eq!(slide["elements"][2]["level"], 1);
        assert_eq!(slide["notes"], "notes");

        let mut img = Document::new(DocumentKind::Image, "Image");
        img.image = Some(ImageSummary {
            width: 10,
            height: 5,
            format: "png".into(),
            frames: 1,
            ocr_text: Some("hi".into()),
            ocr_provider: Some("provider_one".into()),
        });
        img.parts.push(Part::section());
        let v = render(&img);
        assert_eq!(v["content"]["ocr_text"], "hi");

        let mut data = Document::new(DocumentKind::StructuredData, "JSON Document");
        data.data = Some(json!({"a": [1, 2]}));
        let v = render(&data);
        assert_eq!(v["content"]["data"]["a"][1], 2);
    }
}
