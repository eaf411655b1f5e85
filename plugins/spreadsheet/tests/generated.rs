//! Workbooks and CSV built in code: typed cells, number formats, merged cells, trimming,
//! empty sheets, encodings, delimiters, limits and hostile input.

use quire_plugin_api::{
    Block, Cell, Context, Converter, Document, ErrorKind, Inline, Input, Limits, Style,
};
use quire_plugin_spreadsheet::SpreadsheetConverter;
use std::io::Write;

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const NS: &str = r#"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;

pub fn zip(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(*name, opts).expect("start");
        w.write_all(data).expect("write");
    }
    w.finish().expect("finish").into_inner()
}

/// A ZIP of parts named by owned strings (as `xlsx_entries` gives them, after editing).
pub fn zip_parts(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let refs: Vec<(&str, Vec<u8>)> = entries
        .iter()
        .map(|(n, d)| (n.as_str(), d.clone()))
        .collect();
    zip(&refs)
}

/// A workbook with the given sheets (name, sheetData inner XML, extra XML after sheetData).
pub fn xlsx(sheets: &[(&str, String, &str)], shared: &[&str]) -> Vec<u8> {
    let entries = xlsx_entries(sheets, shared);
    zip_parts(&entries)
}

/// The parts of a workbook, by name.
pub fn xlsx_entries(sheets: &[(&str, String, &str)], shared: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut wb = format!(r#"<workbook {NS}><workbookPr/><sheets>"#);
    let mut rels = String::from(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    );
    let t = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let mut entries: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut names = Vec::new();
    for (i, (name, _, _)) in sheets.iter().enumerate() {
        wb.push_str(&format!(
            r#"<sheet name="{name}" sheetId="{}" r:id="rId{}"/>"#,
            i + 1,
            i + 1
        ));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{}" Type="{t}/worksheet" Target="worksheets/sheet{}.xml"/>"#,
            i + 1,
            i + 1
        ));
        names.push(format!("xl/worksheets/sheet{}.xml", i + 1));
    }
    wb.push_str("</sheets></workbook>");
    rels.push_str(&format!(r#"<Relationship Id="rS" Type="{t}/styles" Target="styles.xml"/><Relationship Id="rT" Type="{t}/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#));
    let styles = format!(
        r#"<styleSheet {NS}><numFmts count="2"><numFmt numFmtId="164" formatCode="&quot;$&quot;#,##0.00"/><numFmt numFmtId="165" formatCode="yyyy-mm-dd hh:mm"/></numFmts><cellXfs count="6"><xf numFmtId="0"/><xf numFmtId="10"/><xf numFmtId="164"/><xf numFmtId="14"/><xf numFmtId="165"/><xf numFmtId="3"/></cellXfs></styleSheet>"#
    );
    let mut sst = format!(r#"<sst {NS}>"#);
    for s in shared {
        sst.push_str(&format!("<si><t>{s}</t></si>"));
    }
    sst.push_str("</sst>");
    let ct = r#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>"#;
    entries.push(("[Content_Types].xml", ct.as_bytes().to_vec()));
    entries.push((
        "_rels/.rels",
        format!(r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="{t}/officeDocument" Target="xl/workbook.xml"/></Relationships>"#).into_bytes(),
    ));
    entries.push(("xl/workbook.xml", wb.into_bytes()));
    entries.push(("xl/_rels/workbook.xml.rels", rels.into_bytes()));
    entries.push(("xl/styles.xml", styles.into_bytes()));
    entries.push(("xl/sharedStrings.xml", sst.into_bytes()));
    let sheet_xml: Vec<String> = sheets
        .iter()
        .map(|(_, data, extra)| {
            format!(r#"<worksheet {NS}><sheetData>{data}</sheetData>{extra}</worksheet>"#)
        })
        .collect();
    for (name, xml) in names.iter().zip(sheet_xml) {
        entries.push((name.as_str(), xml.into_bytes()));
    }
    entries
        .into_iter()
        .map(|(n, d)| (n.to_owned(), d))
        .collect()
}

fn convert(bytes: &[u8], mime: &str, name: &str) -> quire_plugin_api::Result<Document> {
    let input = Input {
        bytes,
        file_name: name,
        mime,
    };
    SpreadsheetConverter.convert(&input, &mut Context::new())
}

fn rows(doc: &Document, sheet: usize) -> Vec<Vec<String>> {
    match doc.parts[sheet].blocks.first() {
        Some(Block::Grid(g)) => g
            .iter_rows()
            .map(|r| r.map(str::to_owned).collect())
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn typed_cells_render_as_people_read_them() {
    let data = r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>=SUM(A1)</t></is></c></row>
<row r="2"><c r="A2"><v>0.1</v></c><c r="B2"><v>196</v></c><c r="C2" t="b"><v>1</v></c><c r="D2" t="e"><v>#DIV/0!</v></c><c r="E2"><f>B2*2</f><v>392</v></c></row>
<row r="3"><c r="A3" s="1"><v>0.025</v></c><c r="B3" s="2"><v>-1599.99</v></c><c r="C3" s="3"><v>40089</v></c><c r="D3" s="4"><v>45000.5</v></c><c r="E3" s="5"><v>1234567</v></c></row>
<row r="4"><c r="A4" t="s"><v>2</v></c></row>
<row r="7"><c r="A7"/></row>"#;
    let merged = r#"<mergeCells count="1"><mergeCell ref="A4:C4"/></mergeCells>"#;
    let bytes = xlsx(
        &[
            ("Data", data.into(), merged),
            ("Empty", String::new(), ""),
            (
                "Third",
                r#"<row r="3"><c r="C3"><v>3</v></c></row>"#.into(),
                "",
            ),
        ],
        &["Name", "Value", "merged"],
    );
    let doc = convert(&bytes, XLSX, "t.xlsx").expect("converts");
    assert_eq!(doc.type_label, "Excel Workbook");
    assert_eq!(doc.parts.len(), 3);
    assert_eq!(doc.parts[0].name.as_deref(), Some("Data"));
    let r = rows(&doc, 0);
    assert_eq!(r[0], ["Name", "Value", "=SUM(A1)"]);
    assert_eq!(r[1], ["0.1", "196", "TRUE", "#DIV/0!", "392"]);
    assert_eq!(
        r[2],
        [
            "2.50%",
            "-$1,599.99",
            "10/3/09",
            "2023-03-15 12:00",
            "1,234,567"
        ]
    );
    assert_eq!(r[3], ["merged"]);
    assert_eq!(r.len(), 4, "trailing empty rows are trimmed");
    assert!(
        doc.parts[1].blocks.is_empty(),
        "an empty sheet has no block"
    );
    assert_eq!(rows(&doc, 2), [["3"]]);
}

#[test]
fn cells_without_references_keep_their_number_formats() {
    // `r` is optional on rows and cells: a cell then follows the one before it. Some
    // writers (POI's 54288.xlsx) give only each row's first cell a reference.
    let data = r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c t="s"><v>1</v></c><c t="s"><v>1</v></c></row>
<row><c r="A2" s="1"><v>0.025</v></c><c s="2"><v>-1599.99</v></c><c s="2"><v>33</v></c></row>
<row><c s="5"><v>1234567</v></c><c/><c s="1"><v>0.5</v></c></row>"#;
    let bytes = xlsx(&[("Data", data.into(), "")], &["Name", "Value"]);
    let doc = convert(&bytes, XLSX, "t.xlsx").expect("converts");
    let r = rows(&doc, 0);
    assert_eq!(r[1], ["2.50%", "-$1,599.99", "$33.00"]);
    assert_eq!(r[2], ["1,234,567", "", "50.00%"]);
}

/// A grid as where it sits (zero-based row, column) and its rows.
type Placed = ((u32, u32), Vec<Vec<String>>);

/// Every grid of a sheet.
fn tables(doc: &Document, sheet: usize) -> Vec<Placed> {
    doc.parts[sheet]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Grid(g) => Some((
                g.origin().expect("sheet grids know where they sit"),
                g.iter_rows()
                    .map(|r| r.map(str::to_owned).collect())
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

/// Sheet XML from (cell reference, value) in row order; numbers become number cells.
fn sheet_data(cells: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut open: Option<String> = None;
    for (at, value) in cells {
        let row: String = at.chars().filter(char::is_ascii_digit).collect();
        if open.as_deref() != Some(row.as_str()) {
            if open.is_some() {
                out.push_str("</row>");
            }
            out.push_str(&format!(r#"<row r="{row}">"#));
            open = Some(row);
        }
        if value.parse::<f64>().is_ok() {
            out.push_str(&format!(r#"<c r="{at}"><v>{value}</v></c>"#));
        } else {
            out.push_str(&format!(
                r#"<c r="{at}" t="inlineStr"><is><t>{value}</t></is></c>"#
            ));
        }
    }
    if open.is_some() {
        out.push_str("</row>");
    }
    out
}

#[test]
fn separate_tables_on_a_sheet_become_separate_grids() {
    // A title; a table whose figures follow a blank row and whose total column stands apart
    // after a spacer column; after two empty rows, a table and, two empty columns to its
    // right, another with rows of its own.
    let data = sheet_data(&[
        ("A1", "Sales report"),
        ("A3", "Region"),
        ("B3", "Q1"),
        ("C3", "Q2"),
        ("E3", "Total"),
        ("A5", "North"),
        ("B5", "10"),
        ("C5", "12"),
        ("E5", "22"),
        ("A6", "South"),
        ("B6", "7"),
        ("C6", "9"),
        ("E6", "16"),
        ("B9", "Cost"),
        ("C9", "Amount"),
        ("B10", "Rent"),
        ("C10", "5"),
        ("F10", "Memo"),
        ("G10", "Due"),
        ("B11", "Staff"),
        ("C11", "8"),
        ("F11", "Tax"),
        ("G11", "3"),
        ("F12", "Fee"),
        ("G12", "1"),
    ]);
    let bytes = xlsx(&[("Report", data, "")], &[]);
    let doc = convert(&bytes, XLSX, "r.xlsx").expect("converts");
    let row = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    assert_eq!(
        tables(&doc, 0),
        [
            ((0, 0), vec![row(&["Sales report"])]),
            (
                (2, 0),
                vec![
                    row(&["Region", "Q1", "Q2", "", "Total"]),
                    row(&[]),
                    row(&["North", "10", "12", "", "22"]),
                    row(&["South", "7", "9", "", "16"]),
                ]
            ),
            (
                (8, 1),
                vec![
                    row(&["Cost", "Amount"]),
                    row(&["Rent", "5"]),
                    row(&["Staff", "8"])
                ]
            ),
            (
                (9, 5),
                vec![
                    row(&["Memo", "Due"]),
                    row(&["Tax", "3"]),
                    row(&["Fee", "1"])
                ]
            ),
        ]
    );
}

#[test]
fn merged_ranges_repeat_down_their_column_and_across_the_header_row() {
    // docling's xlsx_01 Sheet3 in small: a label merged down two header rows, a group header
    // merged over two columns, a body value merged over two rows and two columns; a title
    // merged over the table's whole width above it.
    let data = sheet_data(&[
        ("A1", "Quarterly figures"),
        ("A2", "Region"),
        ("B2", "2023"),
        ("B3", "Q1"),
        ("C3", "Q2"),
        ("A4", "North"),
        ("B4", "10"),
        ("C4", "12"),
        ("A5", "South"),
        ("B5", "9"),
        ("A6", "West"),
    ]);
    let merged = r#"<mergeCells count="4"><mergeCell ref="A1:C1"/><mergeCell ref="A2:A3"/><mergeCell ref="B2:C2"/><mergeCell ref="B5:C6"/></mergeCells>"#;
    let row = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    let expected = vec![(
        (0, 0),
        vec![
            row(&["Quarterly figures"]),
            row(&["Region", "2023"]),
            row(&["Region", "Q1", "Q2"]),
            row(&["North", "10", "12"]),
            row(&["South", "9"]),
            row(&["West", "9"]),
        ],
    )];
    let bytes = xlsx(&[("Merged", data.clone(), merged)], &[]);
    let doc = convert(&bytes, XLSX, "m.xlsx").expect("converts");
    // The first row is the title over the whole width, written once; the header row below
    // it is the table's second row, so its group header is not repeated across.
    assert_eq!(tables(&doc, 0), expected);

    // The same sheet without the title: the group header is in the first row now.
    let data = data.replace(
        r#"<row r="1"><c r="A1" t="inlineStr"><is><t>Quarterly figures</t></is></c></row>"#,
        "",
    );
    let merged = r#"<mergeCells count="3"><mergeCell ref="A2:A3"/><mergeCell ref="B2:C2"/><mergeCell ref="B5:C6"/></mergeCells>"#;
    let with_styles = xlsx(&[("Merged", data.clone(), merged)], &[]);
    // A workbook without number formats: the pre-pass skips the cells and looks only for the
    // merged ranges after them.
    let mut plain = xlsx_entries(&[("Merged", data, merged)], &[]);
    for (name, part) in &mut plain {
        if name == "xl/styles.xml" {
            *part = format!(
                r#"<styleSheet {NS}><cellXfs count="1"><xf numFmtId="0"/></cellXfs></styleSheet>"#
            )
            .into_bytes();
        }
    }
    let plain: Vec<(&str, Vec<u8>)> = plain.iter().map(|(n, d)| (n.as_str(), d.clone())).collect();
    for bytes in [with_styles, zip(&plain)] {
        let doc = convert(&bytes, XLSX, "m.xlsx").expect("converts");
        assert_eq!(
            tables(&doc, 0),
            [(
                (1, 0),
                vec![
                    row(&["Region", "2023", "2023"]),
                    row(&["Region", "Q1", "Q2"]),
                    row(&["North", "10", "12"]),
                    row(&["South", "9"]),
                    row(&["West", "9"]),
                ]
            )]
        );
    }
}

#[test]
fn charts_on_a_sheet_give_their_title_and_cached_data() {
    // sheet → drawing → chart, as Excel writes them; the chart's data as the shared chart
    // reader renders it for every office format.
    let data = sheet_data(&[("A1", "Day"), ("B1", "Rain"), ("A2", "Mon"), ("B2", "3")]);
    let mut entries = xlsx_entries(&[("Weather", data, "<drawing r:id=\"rD\"/>")], &[]);
    let rel = |id: &str, kind: &str, target: &str| {
        format!(
            r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="{id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/{kind}" Target="{target}"/></Relationships>"#
        )
        .into_bytes()
    };
    let chart = r#"<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Rain by day</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart><c:ser><c:tx><c:strRef><c:f>Weather!$B$1</c:f><c:strCache><c:pt idx="0"><c:v>Rain</c:v></c:pt></c:strCache></c:strRef></c:tx><c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Mon</c:v></c:pt></c:strCache></c:strRef></c:cat><c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>3</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser></c:barChart></c:plotArea></c:chart></c:chartSpace>"#;
    entries.extend([
        (
            "xl/worksheets/_rels/sheet1.xml.rels".to_owned(),
            rel("rD", "drawing", "../drawings/drawing1.xml"),
        ),
        (
            "xl/drawings/drawing1.xml".to_owned(),
            br#"<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing"/>"#.to_vec(),
        ),
        (
            "xl/drawings/_rels/drawing1.xml.rels".to_owned(),
            br#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rC" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="../charts/chart1.xml"/><Relationship Id="rX" Type="http://schemas.microsoft.com/office/2014/relationships/chartEx" Target="../charts/chartEx1.xml"/></Relationships>"#.to_vec(),
        ),
        ("xl/charts/chart1.xml".to_owned(), chart.as_bytes().to_vec()),
        // a chart-extension chart (Excel 2016's waterfall, histogram …) beside it
        (
            "xl/charts/chartEx1.xml".to_owned(),
            br#"<cx:chartSpace xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chartData><cx:data id="0"><cx:strDim type="cat"><cx:lvl ptCount="1"><cx:pt idx="0">Mon</cx:pt></cx:lvl></cx:strDim><cx:numDim type="val"><cx:lvl ptCount="1"><cx:pt idx="0">3</cx:pt></cx:lvl></cx:numDim></cx:data></cx:chartData><cx:chart><cx:title><cx:tx><cx:txData><cx:v>Rain histogram</cx:v></cx:txData></cx:tx></cx:title><cx:plotArea><cx:plotAreaRegion><cx:series layoutId="clusteredColumn"><cx:tx><cx:txData><cx:v>Rain</cx:v></cx:txData></cx:tx><cx:dataId val="0"/></cx:series></cx:plotAreaRegion></cx:plotArea></cx:chart></cx:chartSpace>"#.to_vec(),
        ),
    ]);
    let doc = convert(&zip_parts(&entries), XLSX, "w.xlsx").expect("converts");
    let blocks = &doc.parts[0].blocks;
    assert!(matches!(blocks[0], Block::Grid(_)));
    assert_eq!(
        blocks[1],
        Block::Paragraph(vec![Inline::styled("Chart: Rain by day", Style::BOLD)])
    );
    let Block::Table(t) = &blocks[2] else {
        panic!("chart table expected: {blocks:?}")
    };
    assert_eq!(
        t.rows,
        [
            vec![Cell::text(""), Cell::text("Rain")],
            vec![Cell::text("Mon"), Cell::text("3")]
        ]
    );
    assert_eq!(
        blocks[3],
        Block::Paragraph(vec![Inline::styled("Chart: Rain histogram", Style::BOLD)])
    );
    assert_eq!(blocks[4], blocks[2]);
}

#[test]
fn fifty_thousand_rows_convert() {
    let mut data = String::with_capacity(50_000 * 120);
    data.push_str(r#"<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>value</t></is></c></row>"#);
    for i in 2..=50_001 {
        data.push_str(&format!(
            r#"<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}"><v>{}.25</v></c></row>"#,
            i * 3
        ));
    }
    let bytes = xlsx(&[("Big", data, "")], &[]);
    let doc = convert(&bytes, XLSX, "big.xlsx").expect("converts");
    let Some(Block::Grid(g)) = doc.parts[0].blocks.first() else {
        panic!("grid expected")
    };
    assert_eq!(g.rows(), 50_001);
    assert_eq!(g.row(50_000).collect::<Vec<_>>(), ["50001", "150003.25"]);
}

#[test]
fn sheets_are_limited_by_the_cells_their_values_span_not_by_what_they_declare() {
    // Gnumeric declares the whole grid for a sheet of a few cells (calamine's issue 174):
    // the workbook converts.
    let dim = r#"<dimension ref="A1:XFD1048576"/>"#;
    let bytes = xlsx(
        &[(
            "S",
            r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c></row>"#.into(),
            dim,
        )],
        &[],
    );
    let doc = convert(&bytes, XLSX, "t.xlsx").expect("a whole-grid dimension converts");
    assert_eq!(rows(&doc, 0)[0], ["1", "2"]);
    let bytes = xlsx(
        &[(
            "S",
            r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>1</v></c></row>"#.into(),
            "",
        )],
        &[],
    );
    let input = Input {
        bytes: &bytes,
        file_name: "t.xlsx",
        mime: XLSX,
    };
    let limits = Limits {
        max_sheet_cells: 1,
        ..Limits::default()
    };
    let err = SpreadsheetConverter
        .convert(&input, &mut Context::new().with_limits(limits))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn hostile_workbooks_fail_cleanly() {
    assert_eq!(
        convert(b"garbage", XLSX, "x.xlsx").unwrap_err().kind(),
        ErrorKind::Malformed
    );
    let mut ole = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    ole.extend("EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes));
    assert_eq!(
        convert(&ole, XLSX, "x.xlsx").unwrap_err().kind(),
        ErrorKind::Encrypted
    );
    assert!(convert(
        b"\xD0\xCF\x11\xE0garbage",
        "application/vnd.ms-excel",
        "x.xls"
    )
    .is_err());
    let bomb = zip(&[("xl/workbook.xml", vec![b' '; 50 << 20])]);
    assert_eq!(
        convert(&bomb, XLSX, "x.xlsx").unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
}

#[test]
fn csv_sniffs_decodes_and_keeps_text() {
    let doc = convert(
        b"Year;Month;Revenue\n2022;1;143,1\n2023;2;\"a;b\"\n",
        "text/csv",
        "t.csv",
    )
    .expect("csv");
    assert_eq!(doc.type_label, "CSV File");
    assert_eq!(doc.metadata.extra["delimiter"], ";");
    assert_eq!(rows(&doc, 0)[2], ["2023", "2", "a;b"]);
    assert_eq!(doc.parts[0].name.as_deref(), Some("t"));

    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(
        "a,b\r\n=1+1,\"x\ny\"\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    let doc = convert(&utf16, "text/csv", "u.csv").expect("utf16");
    assert_eq!(doc.metadata.extra["encoding"], "UTF-16LE");
    assert_eq!(rows(&doc, 0)[1], ["=1+1", "x\ny"]);

    let doc =
        convert(b"caf\xe9,cr\xe8me br\xfbl\xe9e\n1,2\n", "text/csv", "l.csv").expect("legacy");
    assert_eq!(rows(&doc, 0)[0], ["café", "crème brûlée"]);

    let doc = convert(b"a\tb\tc\n1\t2\t3\n4\t5\n", "text/csv", "t.tsv").expect("tsv");
    assert_eq!(rows(&doc, 0)[2], ["4", "5"]);

    // CSV is one table by definition: an empty record does not split it.
    let doc = convert(b"a,b\n1,2\n,\n,\nc,d\n", "text/csv", "s.csv").expect("gap");
    assert_eq!(tables(&doc, 0).len(), 1);
    assert_eq!(rows(&doc, 0)[4], ["c", "d"]);

    let doc = convert(b"", "text/csv", "e.csv").expect("empty");
    assert!(doc.parts[0].blocks.is_empty());
}

#[test]
fn excel4_macro_sheets_are_dropped_not_fatal() {
    let data = r#"<row r="1"><c r="A1"><v>1</v></c></row>"#;
    let mut entries = xlsx_entries(
        &[("Data", data.into(), ""), ("Macro1", data.into(), "")],
        &[],
    );
    for (name, bytes) in &mut entries {
        if name == "xl/_rels/workbook.xml.rels" {
            let text = String::from_utf8(bytes.clone()).expect("utf8");
            // as Excel writes it: Microsoft's relationship type and its own folder
            let rel = r#"/worksheet" Target="worksheets/sheet2.xml""#;
            assert!(text.contains(rel));
            *bytes = text
                .replace(rel, r#"/xlMacrosheet" Target="macrosheets/sheet2.xml""#)
                .into_bytes();
        }
        if name == "xl/worksheets/sheet2.xml" {
            *name = "xl/macrosheets/sheet2.xml".into();
        }
    }
    let doc =
        convert(&zip_parts(&entries), XLSX, "m.xlsm").expect("converts without the macro sheet");
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.parts[0].name.as_deref(), Some("Data"));
}

#[test]
fn a_sheet_without_a_part_is_dropped_not_fatal() {
    // The workbook lists a sheet whose relationship id is empty (a part a tool lost).
    let data = r#"<row r="1"><c r="A1"><v>1</v></c></row>"#;
    let mut entries = xlsx_entries(&[("Data", data.into(), "")], &[]);
    for (name, bytes) in &mut entries {
        if name == "xl/workbook.xml" {
            let text = String::from_utf8(bytes.clone()).expect("utf8");
            *bytes = text
                .replace(
                    "</sheets>",
                    r#"<sheet name="Module" sheetId="2" r:id=""/><sheet name="Gone" sheetId="3" r:id="rId9"/></sheets>"#,
                )
                .into_bytes();
        }
    }
    let doc =
        convert(&zip_parts(&entries), XLSX, "l.xlsx").expect("converts without the lost sheets");
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.parts[0].name.as_deref(), Some("Data"));
    assert_eq!(rows(&doc, 0), [["1"]]);
}

#[test]
fn ods_sheets_convert() {
    let content = r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">
<office:body><office:spreadsheet>
<table:table table:name="Prices"><table:table-row><table:table-cell office:value-type="string"><text:p>item</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>price</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string"><text:p>tea</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="0.1"><text:p>0.1</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string" table:number-rows-spanned="2"><text:p>cake</text:p></table:table-cell><table:table-cell office:value-type="currency" office:currency="USD" office:value="58108.5"><text:p>$58,108.50</text:p></table:table-cell></table:table-row>
<table:table-row><table:covered-table-cell/><table:table-cell office:value-type="percentage" office:value="0.125"><text:p>12.50%</text:p></table:table-cell></table:table-row></table:table>
<table:table table:name="Blank"/>
<table:table table:name="Two"><table:table-row><table:table-cell office:value-type="string"><text:p>a</text:p></table:table-cell></table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell/></table:table-row>
<table:table-row><table:table-cell/><table:table-cell office:value-type="string"><text:p>b</text:p></table:table-cell></table:table-row></table:table>
</office:spreadsheet></office:body></office:document-content>"#;
    let manifest = r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#;
    let bytes = zip(&[
        (
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet".to_vec(),
        ),
        ("META-INF/manifest.xml", manifest.as_bytes().to_vec()),
        ("content.xml", content.as_bytes().to_vec()),
    ]);
    let doc = convert(
        &bytes,
        "application/vnd.oasis.opendocument.spreadsheet",
        "t.ods",
    )
    .expect("ods");
    assert_eq!(doc.parts.len(), 3);
    // Typed cells read as the sheet shows them (the file stores that text beside the value);
    // a label merged down two rows names both.
    assert_eq!(
        rows(&doc, 0),
        [
            ["item", "price"],
            ["tea", "0.1"],
            ["cake", "$58,108.50"],
            ["cake", "12.50%"]
        ]
    );
    assert!(doc.parts[1].blocks.is_empty());
    // ODS shares the workbook path: tables apart are grids apart.
    assert_eq!(
        tables(&doc, 2),
        [
            ((0, 0), vec![vec!["a".to_owned()]]),
            ((3, 1), vec![vec!["b".to_owned()]])
        ]
    );
}

#[test]
fn cell_comments_follow_the_sheet_as_notes() {
    // A legacy note, and a threaded comment with a reply that Excel also writes as a
    // placeholder note (author `tc={id}`, boilerplate text): the thread is read once, from
    // its own part, with its people's names; comments come in the order of their cells.
    let data = sheet_data(&[
        ("A1", "Year"),
        ("B1", "Ducks"),
        ("A2", "2024"),
        ("B2", "310"),
    ]);
    let mut entries = xlsx_entries(&[("Birds", data, "")], &[]);
    let t = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let t17 = "http://schemas.microsoft.com/office/2017/10/relationships";
    let rels = |body: String| {
        format!(r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{body}</Relationships>"#).into_bytes()
    };
    let sheet_rels = rels(format!(
        r#"<Relationship Id="rId2" Type="{t}/comments" Target="../comments1.xml"/><Relationship Id="rId3" Type="{t17}/threadedComment" Target="../threadedComments/threadedComment1.xml"/>"#
    ));
    let legacy = r#"<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><authors><author>tc={T1}</author><author>John Reviewer</author></authors><commentList><comment ref="B2" authorId="0"><text><t>[Threaded comment]

Your version of Excel allows you to read this threaded comment.

Comment:
    Highest count
Reply:
    Never thought so</t></text></comment><comment ref="A1" authorId="1"><text><r><t>Why years?</t></r></text></comment></commentList></comments>"#;
    let threaded = r#"<ThreadedComments xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"><threadedComment ref="B2" dT="2026-06-18T17:12:37.41" personId="{P1}" id="{T1}"><text>Highest count</text></threadedComment><threadedComment ref="B2" personId="{P2}" id="{T2}" parentId="{T1}"><text>Never thought so</text></threadedComment></ThreadedComments>"#;
    let persons = r#"<personList xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"><person displayName="Jane Smith (JS)" id="{P1}"/><person displayName="Marcus Sterling" id="{P2}"/></personList>"#;
    for (name, data) in entries.iter_mut() {
        if name == "xl/_rels/workbook.xml.rels" {
            let s = String::from_utf8(data.clone()).expect("utf-8").replace(
                "</Relationships>",
                &format!(r#"<Relationship Id="rP" Type="{t17}/person" Target="persons/person.xml"/></Relationships>"#),
            );
            *data = s.into_bytes();
        }
    }
    entries.extend([
        ("xl/worksheets/_rels/sheet1.xml.rels".to_owned(), sheet_rels),
        ("xl/comments1.xml".to_owned(), legacy.as_bytes().to_vec()),
        (
            "xl/threadedComments/threadedComment1.xml".to_owned(),
            threaded.as_bytes().to_vec(),
        ),
        (
            "xl/persons/person.xml".to_owned(),
            persons.as_bytes().to_vec(),
        ),
    ]);
    let doc = convert(&zip_parts(&entries), XLSX, "c.xlsx").expect("converts");
    assert_eq!(rows(&doc, 0)[1], ["2024", "310"]);
    let note = |label: &str, text: &str| {
        Block::Paragraph(vec![
            Inline::styled(label, Style::ITALIC),
            Inline::plain(format!(" {text}")),
        ])
    };
    assert_eq!(
        doc.parts[0].notes,
        [
            note("Comment on A1 by John Reviewer:", "Why years?"),
            note("Comment on B2 by Jane Smith (JS):", "Highest count"),
            note("Reply on B2 by Marcus Sterling:", "Never thought so"),
        ]
    );
}

/// An XLSB record: its type in seven-bit groups, its length likewise, its data.
fn brt(kind: u32, data: &[u8]) -> Vec<u8> {
    let mut out = if kind < 0x80 {
        vec![kind as u8]
    } else {
        vec![(kind & 0x7F) as u8 | 0x80, (kind >> 7) as u8]
    };
    let mut len = data.len();
    loop {
        let byte = (len & 0x7F) as u8;
        len >>= 7;
        if len == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
    out.extend_from_slice(data);
    out
}

fn wide(s: &str) -> Vec<u8> {
    let mut out = (s.encode_utf16().count() as u32).to_le_bytes().to_vec();
    out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A `BrtBundleSh`: a visible sheet's tab id, relationship id and name.
fn bundle_sheet(tab: u32, rel: &str, name: &str) -> Vec<u8> {
    let mut data = u32s(&[0, tab]);
    data.extend(wide(rel));
    data.extend(wide(name));
    brt(0x9C, &data)
}

/// A sheet's records: its dimension, its rows and cells, then records after the cells.
fn xlsb_sheet(dimension: [u32; 4], cells: &[Vec<u8>], after: &[Vec<u8>]) -> Vec<u8> {
    let mut out = [brt(0x81, &[]), brt(0x94, &u32s(&dimension)), brt(0x91, &[])].concat();
    out.extend(cells.concat());
    out.extend(brt(0x92, &[]));
    out.extend(after.concat());
    out.extend(brt(0x82, &[]));
    out
}

fn xlsb_row(r: u32) -> Vec<u8> {
    brt(0x00, &[u32s(&[r, 0]), vec![0; 9]].concat())
}

fn xlsb_real(col: u32, style: u32, v: f64) -> Vec<u8> {
    brt(
        0x05,
        &[u32s(&[col, style]), v.to_le_bytes().to_vec()].concat(),
    )
}

#[test]
fn an_xlsb_workbook_reads_as_excel_shows_it() {
    // Number formats and merges from the binary records, a formula's error result calamine
    // skips, a chart sheet without a warning, a macro sheet left out, and a workbook stream
    // calamine (before 0.36.1) misread.
    // The book view's bytes `90 01` read as BrtEndBundleShs to calamine's workbook scan,
    // which steps over no record it does not know: it found no sheet and the workbook
    // converted to nothing, with no warning (SheetJS's large_strings.xlsb).
    let workbook = [
        brt(0x83, &[]),
        brt(0x87, &[]),
        brt(0x9E, &[0, 0, 0, 0, 0x90, 0x01, 0, 0, 0, 0x64, 0, 0]),
        brt(0x88, &[]),
        brt(0x8F, &[]),
        bundle_sheet(1, "rId1", "Data"),
        bundle_sheet(2, "rId3", "Trend"),
        // an Excel 4 macro sheet, which calamine refuses the whole workbook for
        bundle_sheet(3, "rId4", "Macro1"),
        brt(0x90, &[]),
        brt(0x9D, &[0; 26]),
        brt(0x84, &[]),
    ]
    .concat();
    // styles: cell style 1 shows `"$"#,##0.00` (custom id 164), style 2 `0%` (built in 9)
    let mut fmt = 164u16.to_le_bytes().to_vec();
    fmt.extend(wide("\"$\"#,##0.00"));
    let xf = |id: u16| [&0u16.to_le_bytes()[..], &id.to_le_bytes(), &[0; 12]].concat();
    let styles = [
        brt(0x116, &[]),
        brt(0x267, &u32s(&[1])),
        brt(0x2C, &fmt),
        brt(0x268, &[]),
        brt(0x269, &u32s(&[3])),
        brt(0x2F, &xf(0)),
        brt(0x2F, &xf(164)),
        brt(0x2F, &xf(9)),
        brt(0x26A, &[]),
        brt(0x117, &[]),
    ]
    .concat();
    let text = |col: u32, s: &str| brt(0x06, &[u32s(&[col, 0]), wide(s)].concat());
    let sheet1 = xlsb_sheet(
        [0, 3, 0, 2],
        &[
            xlsb_row(0),
            text(0, "Item"),
            text(1, "Price"),
            xlsb_row(1),
            xlsb_real(0, 0, 7.0),
            xlsb_real(1, 1, 1599.5),
            xlsb_row(2),
            text(0, "Share"),
            xlsb_real(1, 2, 0.25),
            xlsb_row(3),
            xlsb_real(1, 2, 0.5),
            // a formula whose cached result is #REF! (BrtFmlaError), which calamine skips
            brt(
                0x0B,
                &[u32s(&[2, 0]), vec![0x17, 0, 0], u32s(&[0])].concat(),
            ),
        ],
        &[
            brt(0xB1, &u32s(&[1])),
            brt(0xB0, &u32s(&[2, 3, 0, 0])),
            brt(0xB2, &[]),
        ],
    );
    let t = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let rels = format!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{t}/worksheet" Target="worksheets/sheet1.bin"/><Relationship Id="rId2" Type="{t}/styles" Target="styles.bin"/><Relationship Id="rId3" Type="{t}/chartsheet" Target="chartsheets/sheet1.bin"/><Relationship Id="rId4" Type="http://schemas.microsoft.com/office/2006/relationships/xlMacrosheet" Target="macrosheets/sheet1.bin"/></Relationships>"#
    );
    let one_rel = |kind: &str, target: &str| {
        format!(r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="{t}/{kind}" Target="{target}"/></Relationships>"#).into_bytes()
    };
    let chart = r#"<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Prices</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:lineChart><c:ser><c:tx><c:v>Price</c:v></c:tx><c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>7</c:v></c:pt></c:strCache></c:strRef></c:cat><c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>1599.5</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser></c:lineChart></c:plotArea></c:chart></c:chartSpace>"#;
    let bytes = zip(&[
        (
            "[Content_Types].xml",
            br#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>"#.to_vec(),
        ),
        ("xl/_rels/workbook.bin.rels", rels.into_bytes()),
        ("xl/workbook.bin", workbook),
        ("xl/styles.bin", styles),
        ("xl/worksheets/sheet1.bin", sheet1),
        ("xl/macrosheets/sheet1.bin", xlsb_sheet([0, 0, 0, 0], &[], &[])),
        // a chart sheet: no cells for calamine, its chart shown, no warning that it is empty
        (
            "xl/chartsheets/sheet1.bin",
            [brt(0x1AB, &[]), brt(0x1AC, &[])].concat(),
        ),
        (
            "xl/chartsheets/_rels/sheet1.bin.rels",
            one_rel("drawing", "../drawings/drawing1.xml"),
        ),
        (
            "xl/drawings/drawing1.xml",
            br#"<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing"/>"#.to_vec(),
        ),
        (
            "xl/drawings/_rels/drawing1.xml.rels",
            one_rel("chart", "../charts/chart1.xml"),
        ),
        ("xl/charts/chart1.xml", chart.as_bytes().to_vec()),
    ]);
    let input = Input {
        bytes: &bytes,
        file_name: "t.xlsb",
        mime: "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
    };
    let mut ctx = Context::new();
    let doc = SpreadsheetConverter
        .convert(&input, &mut ctx)
        .expect("converts");
    assert_eq!(doc.parts.len(), 2);
    assert_eq!(doc.parts[0].name.as_deref(), Some("Data"));
    assert_eq!(doc.parts[1].name.as_deref(), Some("Trend"));
    assert_eq!(
        doc.parts[1].blocks[0],
        Block::Paragraph(vec![Inline::styled("Chart: Prices", Style::BOLD)])
    );
    assert!(ctx.warnings().is_empty(), "{:?}", ctx.warnings());
    assert_eq!(
        rows(&doc, 0),
        [
            vec!["Item", "Price"],
            vec!["7", "$1,599.50"],
            vec!["Share", "25%"],
            vec!["Share", "50%", "#REF!"]
        ]
    );
}

#[test]
fn an_xlsb_sheet_whose_values_span_more_cells_than_the_limit_fails_before_reading() {
    // Two values at opposite corners of the sheet: calamine would allocate all 17 billion
    // cells between them (the process aborted); the pre-pass measures the span first.
    let workbook = [
        brt(0x83, &[]),
        brt(0x8F, &[]),
        bundle_sheet(1, "rId1", "Data"),
        brt(0x90, &[]),
        brt(0x84, &[]),
    ]
    .concat();
    let sheet1 = xlsb_sheet(
        [0, 0, 0, 0],
        &[
            xlsb_row(0),
            xlsb_real(0, 0, 1.0),
            xlsb_row(1_048_575),
            xlsb_real(16_383, 0, 2.0),
        ],
        &[],
    );
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.bin"/></Relationships>"#;
    let bytes = zip(&[
        ("xl/_rels/workbook.bin.rels", rels.as_bytes().to_vec()),
        ("xl/workbook.bin", workbook),
        ("xl/worksheets/sheet1.bin", sheet1),
    ]);
    let err = convert(
        &bytes,
        "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
        "far.xlsb",
    )
    .expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err:?}");
    assert!(err.to_string().contains("more than the limit"), "{err}");
}

#[test]
fn an_xlsx_sheet_whose_values_span_more_cells_than_it_declares_fails_before_reading() {
    // `<dimension ref="A1"/>` and values at A1 and XFD1048576: calamine would allocate the
    // 17 billion cells between them (the process aborted). Styled cells without a value
    // (a formatted row to the last column) widen nothing.
    let data = r#"<row r="1"><c r="A1"><v>1</v></c><c r="XFD1" s="1"/></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row>"#;
    let mut entries = xlsx_entries(&[("Far", data.to_owned(), "")], &[]);
    for (name, part) in entries.iter_mut() {
        if name.ends_with("sheet1.xml") {
            *part = String::from_utf8_lossy(part)
                .replacen("<sheetData>", r#"<dimension ref="A1"/><sheetData>"#, 1)
                .into_bytes();
        }
    }
    let err = convert(&zip_parts(&entries), XLSX, "far.xlsx").expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err:?}");
    // a formatted row reaching the last column converts
    let styled = r#"<row r="1"><c r="A1"><v>1</v></c><c r="XFD1" s="1"/></row><row r="2"><c r="A2"><v>2</v></c></row>"#;
    let doc = convert(
        &xlsx(&[("Near", styled.to_owned(), "")], &[]),
        XLSX,
        "near.xlsx",
    )
    .expect("converts");
    assert_eq!(rows(&doc, 0), [["1"], ["2"]]);
}

#[test]
fn an_ods_sheet_whose_repeated_values_fill_more_cells_than_the_limit_fails_before_reading() {
    // One value repeated over 16,000 columns of a row repeated a million times: calamine
    // expands every repeat (it ran past any deadline, then aborted). Empty repeated rows and
    // cells, as LibreOffice writes to a sheet's end, fill nothing.
    let sheet = |rows: &str| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1"><text:p>1</text:p></table:table-cell></table:table-row>{rows}</table:table></office:spreadsheet></office:body></office:document-content>"#
        )
    };
    let ods = |content: String| {
        zip(&[
            (
                "mimetype",
                b"application/vnd.oasis.opendocument.spreadsheet".to_vec(),
            ),
            ("META-INF/manifest.xml", br#"<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>"#.to_vec()),
            ("content.xml", content.into_bytes()),
        ])
    };
    const ODS: &str = "application/vnd.oasis.opendocument.spreadsheet";
    let far = sheet(
        r#"<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="16000" office:value-type="float" office:value="2"><text:p>2</text:p></table:table-cell></table:table-row>"#,
    );
    let err = convert(&ods(far), ODS, "far.ods").expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{err:?}");
    let tail = sheet(
        r#"<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:style-name="ce1" table:number-columns-repeated="1024"/></table:table-row>"#,
    );
    let doc = convert(&ods(tail), ODS, "tail.ods").expect("converts");
    assert_eq!(rows(&doc, 0), [["1"]]);
}

#[test]
fn white_space_between_rich_text_runs_is_kept_without_xml_space() {
    // LibreOffice writes rich-text runs without `xml:space="preserve"`; calamine (0.36 and
    // later) trims such runs, which joined `Regular ` and `Bold` into `RegularBold`.
    let inline = r#"<row r="1"><c r="A1" t="inlineStr"><is><r><t>Regular </t></r><r><rPr><b/></rPr><t>Bold</t></r></is></c><c r="B1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c></row>"#;
    let mut entries = xlsx_entries(&[("S", inline.into(), "")], &[]);
    for (name, bytes) in &mut entries {
        if name == "xl/sharedStrings.xml" {
            *bytes = format!(
                r#"<sst {NS}><si><r><t>net</t></r><r><t xml:space="preserve"> </t></r><r><t>of tax</t></r></si><si><r><t>two </t></r><r><t> words</t></r></si></sst>"#
            )
            .into_bytes();
        }
    }
    let doc = convert(&zip_parts(&entries), XLSX, "r.xlsx").expect("converts");
    assert_eq!(
        rows(&doc, 0)[0],
        ["Regular Bold", "net of tax", "two  words"]
    );
}

#[test]
fn a_workbook_whose_package_relationships_are_damaged_converts() {
    // POI's xlsx-corrupted.xlsx: `_rels/.rels` holds no XML, and calamine finds the workbook
    // part only through it.
    let data = r#"<row r="1"><c r="A1"><v>1</v></c></row>"#;
    let mut entries = xlsx_entries(&[("Data", data.into(), "")], &[]);
    for (name, bytes) in &mut entries {
        if name == "_rels/.rels" {
            *bytes = b"<?xml version=\"1.0\"?>\nCORRUPTED".to_vec();
        }
    }
    let doc = convert(&zip_parts(&entries), XLSX, "c.xlsx").expect("converts");
    assert_eq!(rows(&doc, 0)[0], ["1"]);
}

#[test]
fn an_iso_date_cell_shows_as_its_format_says() {
    // XLSX `t="d"` cells hold ISO 8601 text (SheetJS's xlsx-stream-d-date-cell.xlsx); under a
    // date format they show as a serial date does, without a format as written.
    let data = r#"<row r="1"><c r="A1" t="d" s="3"><v>2014-02-14T08:27:48.765Z</v></c><c r="B1" s="3"><v>41684.35264774</v></c><c r="C1" t="d"><v>2014-02-14</v></c></row>"#;
    let doc = convert(&xlsx(&[("S", data.into(), "")], &[]), XLSX, "d.xlsx").expect("converts");
    let row = &rows(&doc, 0)[0];
    assert!(!row[1].contains('T'), "{row:?}");
    assert_eq!(row[0], row[1]);
    assert_eq!(row[2], "2014-02-14");
}
