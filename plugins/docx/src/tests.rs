//! Unit tests on DOCX packages built in code: each test writes the parts it needs.

use super::*;
use quire_plugin_api::{Image, List, OcrOutput, OcrProvider, Style, Table};
use std::io::Write;

const NS: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math""#;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRfake";

fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = ::zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = ::zip::write::SimpleFileOptions::default()
        .compression_method(::zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(*name, opts).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

const PKG_RELS: &str = r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>"#;

const DOC_RELS: &str = r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>
<Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/endnotes" Target="endnotes.xml"/>
<Relationship Id="rId5" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/>
<Relationship Id="rId10" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/>
<Relationship Id="rId11" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/a?b=1&amp;c=2" TargetMode="External"/>
<Relationship Id="rId12" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="http://example.invalid/remote.png" TargetMode="External"/>
<Relationship Id="rId13" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>
<Relationship Id="rId14" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/>
<Relationship Id="rId15" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image2.emf"/>
<Relationship Id="rId16" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header2.xml"/>
<Relationship Id="rId17" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="charts/chart1.xml"/>
<Relationship Id="rId18" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="charts/chart2.xml"/>
<Relationship Id="rId19" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData" Target="diagrams/data1.xml"/>
</Relationships>"#;

const STYLES: &str = r#"<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/></w:rPr></w:style>
<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="MyHeading"><w:name w:val="My Heading"/><w:basedOn w:val="berschrift2"/></w:style>
<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>
<w:style w:type="character" w:styleId="Strong"><w:name w:val="Strong"/><w:rPr><w:b/></w:rPr></w:style>
<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:u w:val="single"/></w:rPr></w:style>
</w:styles>"#;

const NUMBERING: &str = r#"<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val=""/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
</w:numbering>"#;

fn document(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{body}</w:body></w:document>"#
    )
}

fn p(text: &str) -> String {
    format!("<w:p><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>")
}

fn styled(style: &str, text: &str) -> String {
    format!("<w:p><w:pPr><w:pStyle w:val=\"{style}\"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>")
}

fn item(num: u32, lvl: u32, text: &str) -> String {
    format!("<w:p><w:pPr><w:numPr><w:ilvl w:val=\"{lvl}\"/><w:numId w:val=\"{num}\"/></w:numPr></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>")
}

/// A package with the standard parts plus `extra`.
fn docx(body: &str, extra: &[(&str, &[u8])]) -> Vec<u8> {
    let doc = document(body);
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("_rels/.rels", PKG_RELS.as_bytes()),
        ("word/document.xml", doc.as_bytes()),
        ("word/_rels/document.xml.rels", DOC_RELS.as_bytes()),
        ("word/styles.xml", STYLES.as_bytes()),
        ("word/numbering.xml", NUMBERING.as_bytes()),
    ];
    entries.extend_from_slice(extra);
    zip(&entries)
}

fn run(bytes: &[u8]) -> Document {
    let mut ctx = Context::new();
    convert(bytes, &mut ctx).expect("converts")
}

fn blocks(doc: &Document) -> &[Block] {
    &doc.parts[0].blocks
}

fn text_of(doc: &Document) -> String {
    let mut s = String::new();
    blocks_text(blocks(doc), &mut s);
    s
}

fn plain(inlines: &[Inline]) -> String {
    let mut s = String::new();
    build::inline_text(inlines, &mut s);
    s
}

#[test]
fn headings_from_styles_outline_levels_and_bases() {
    let body = [
        styled("Title", "The Title"),
        styled("Heading1", "Chapter"),
        styled("berschrift2", "Localised"),
        styled("MyHeading", "Custom"),
        "<w:p><w:pPr><w:outlineLvl w:val=\"3\"/></w:pPr><w:r><w:t>Outlined</w:t></w:r></w:p>"
            .to_owned(),
        p("Body text"),
    ]
    .concat();
    let doc = run(&docx(&body, &[]));
    let levels: Vec<(u8, String)> = blocks(&doc)
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, content } => Some((*level, plain(content))),
            _ => None,
        })
        .collect();
    assert_eq!(
        levels,
        vec![
            (1, "The Title".into()),
            (1, "Chapter".into()),
            (2, "Localised".into()),
            (2, "Custom".into()),
            (4, "Outlined".into())
        ]
    );
    // A heading style's bold is not repeated as run formatting.
    assert!(
        matches!(&blocks(&doc)[1], Block::Heading { content, .. } if content == &vec![Inline::plain("Chapter")])
    );
    assert_eq!(doc.kind, DocumentKind::Flowing);
    assert_eq!(doc.type_label, "Word Document");
}

#[test]
fn run_formatting_revisions_and_special_characters() {
    let body = r#"<w:p>
<w:r><w:rPr><w:b/></w:rPr><w:t>bold</w:t></w:r><w:r><w:t xml:space="preserve"> </w:t></w:r>
<w:r><w:rPr><w:u w:val="single"/></w:rPr><w:t>under</w:t></w:r>
<w:r><w:rPr><w:strike/></w:rPr><w:t>gone</w:t></w:r>
<w:r><w:rPr><w:rStyle w:val="Strong"/></w:rPr><w:t>strong</w:t></w:r>
<w:r><w:rPr><w:b w:val="0"/></w:rPr><w:t>-off</w:t></w:r>
<w:del w:id="1" w:author="x"><w:r><w:delText>DELETED</w:delText></w:r></w:del>
<w:ins w:id="2" w:author="x"><w:r><w:t>inserted</w:t></w:r></w:ins>
<w:r><w:rPr><w:vanish/></w:rPr><w:t>HIDDEN</w:t></w:r>
<w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:noBreakHyphen/><w:t>d</w:t><w:softHyphen/><w:sym w:font="Symbol" w:char="F061"/></w:r>
</w:p>"#;
    let doc = run(&docx(body, &[]));
    let Block::Paragraph(content) = &blocks(&doc)[0] else {
        panic!("{:?}", blocks(&doc))
    };
    assert!(content.contains(&Inline::styled("bold", Style::BOLD)));
    assert!(content.contains(&Inline::styled("under", Style::ITALIC)));
    assert!(content.contains(&Inline::styled(
        "gone",
        Style {
            strike: true,
            ..Style::PLAIN
        }
    )));
    assert!(content.contains(&Inline::styled("strong", Style::BOLD)));
    let text = plain(content);
    assert!(text.contains("-offinserteda\tb\nc-dα"), "{text:?}");
    assert!(!text.contains("DELETED") && !text.contains("HIDDEN"));
}

#[test]
fn lists_nest_number_and_restart() {
    let body = [
        item(1, 0, "apple"),
        item(1, 1, "seed"),
        item(1, 0, "pear"),
        p("between"),
        item(2, 0, "one"),
        item(2, 1, "sub a"),
        item(2, 1, "sub b"),
        item(2, 0, "two"),
        p("between"),
        item(2, 0, "three"),
        item(3, 0, "restarted"),
        styled("ListBullet", "style bullet"),
    ]
    .concat();
    let doc = run(&docx(&body, &[]));
    let lists: Vec<&List> = blocks(&doc)
        .iter()
        .filter_map(|b| match b {
            Block::List(l) => Some(l),
            _ => None,
        })
        .collect();
    assert_eq!(lists.len(), 5, "{:#?}", blocks(&doc));
    assert!(!lists[0].ordered);
    assert_eq!(lists[0].items.len(), 2);
    assert!(matches!(&lists[0].items[0].blocks[1], Block::List(inner) if inner.items.len() == 1));
    assert!(lists[1].ordered);
    assert_eq!(lists[1].start, 1);
    let Block::List(sub) = &lists[1].items[0].blocks[1] else {
        panic!("nested list expected")
    };
    // "a)" is not a Markdown marker: the label stays as text in an unordered list.
    assert!(!sub.ordered);
    assert!(matches!(&sub.items[1].blocks[0], Block::Paragraph(c) if plain(c) == "b) sub b"));
    // Numbering continues across the paragraph in between...
    assert_eq!((lists[2].ordered, lists[2].start), (true, 3));
    assert_eq!(lists[2].items.len(), 1);
    // ...and restarts where a num overrides the start.
    assert_eq!((lists[3].ordered, lists[3].start), (true, 1));
    assert!(!lists[4].ordered);
}

/// Word's "List Bullet", "List Bullet 2" and "List Number 3" styles: each its own single-level
/// list definition, told apart by indent only.
const STYLE_LISTS: &str = r#"<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:abstractNum w:abstractNumId="5"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val=""/><w:pPr><w:ind w:left="360" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="6"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/><w:pPr><w:tabs><w:tab w:val="num" w:pos="720"/></w:tabs><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="7"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/><w:pPr><w:ind w:start="1080" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="8"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="-"/><w:pPr><w:ind w:left="360" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="5"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="6"/></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="7"/></w:num>
<w:num w:numId="4"><w:abstractNumId w:val="8"/></w:num>
</w:numbering>"#;

#[test]
fn lists_of_separate_definitions_nest_by_indent() {
    let body = [
        item(1, 0, "top"),
        item(2, 0, "second"),
        item(3, 0, "third"),
        item(3, 0, "third again"),
        item(2, 0, "second again"),
        item(1, 0, "top again"),
        item(4, 0, "same indent, other list"),
    ]
    .concat();
    let doc = document(&body);
    let bytes = zip(&[
        ("_rels/.rels", PKG_RELS.as_bytes()),
        ("word/document.xml", doc.as_bytes()),
        ("word/_rels/document.xml.rels", DOC_RELS.as_bytes()),
        ("word/styles.xml", STYLES.as_bytes()),
        ("word/numbering.xml", STYLE_LISTS.as_bytes()),
    ]);
    let doc = run(&bytes);
    let [Block::List(outer)] = blocks(&doc) else {
        panic!("one list expected: {:#?}", blocks(&doc))
    };
    let texts = |l: &List| -> Vec<String> {
        l.items
            .iter()
            .map(|i| match &i.blocks[0] {
                Block::Paragraph(c) => plain(c),
                _ => String::new(),
            })
            .collect()
    };
    assert_eq!(
        texts(outer),
        ["top", "top again", "same indent, other list"]
    );
    let Block::List(second) = &outer.items[0].blocks[1] else {
        panic!("second level expected")
    };
    assert_eq!(texts(second), ["second", "second again"]);
    let Block::List(third) = &second.items[0].blocks[1] else {
        panic!("third level expected")
    };
    assert!(third.ordered);
    assert_eq!(texts(third), ["third", "third again"]);
}

#[test]
fn list_continue_paragraphs_stay_in_their_item() {
    // "List Continue" paragraphs (indented like the list's text, no number) are further
    // paragraphs of the item above; a paragraph at the margin ends the list.
    let styles = STYLES.replace(
        "</w:styles>",
        r#"<w:style w:type="paragraph" w:styleId="ListContinue"><w:name w:val="List Continue"/><w:pPr><w:ind w:left="360"/></w:pPr></w:style></w:styles>"#,
    );
    let body = [
        item(1, 0, "top"),
        item(2, 0, "second"),
        styled("ListContinue", "more of top"),
        item(1, 0, "top again"),
        "<w:p><w:pPr><w:ind w:left=\"720\"/></w:pPr><w:r><w:t>more of second</w:t></w:r></w:p>"
            .into(),
        p("after"),
        item(1, 0, "new list"),
    ];
    let body = [&body[..4], &[item(2, 0, "second again")], &body[4..]]
        .concat()
        .concat();
    let doc = document(&body);
    let bytes = zip(&[
        ("_rels/.rels", PKG_RELS.as_bytes()),
        ("word/document.xml", doc.as_bytes()),
        ("word/_rels/document.xml.rels", DOC_RELS.as_bytes()),
        ("word/styles.xml", styles.as_bytes()),
        ("word/numbering.xml", STYLE_LISTS.as_bytes()),
    ]);
    let doc = run(&bytes);
    let b = blocks(&doc);
    assert_eq!(b.len(), 3, "{b:#?}");
    let Block::List(outer) = &b[0] else {
        panic!("{b:#?}")
    };
    let [Block::Paragraph(_), Block::List(_), Block::Paragraph(more)] = &outer.items[0].blocks[..]
    else {
        panic!("{:#?}", outer.items[0])
    };
    assert_eq!(plain(more), "more of top");
    let Block::List(second) = &outer.items[1].blocks[1] else {
        panic!("{:#?}", outer.items[1])
    };
    assert!(
        matches!(&second.items[0].blocks[1], Block::Paragraph(c) if plain(c) == "more of second")
    );
    assert_eq!(b[1], Block::text("after"));
}

#[test]
fn tables_word_joined_part_again() {
    // Two tables with nothing between them, saved again by LibreOffice: one table on a grid of
    // both tables' column edges, each row spanning its own table's columns.
    let tc = |span: u32, text: &str| {
        format!(
            r#"<w:tc><w:tcPr><w:gridSpan w:val="{span}"/></w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"#
        )
    };
    let three = format!("<w:tr>{}{}{}</w:tr>", tc(2, "a"), tc(2, "b"), tc(2, "c"));
    let four = format!(
        "<w:tr>{}{}{}{}</w:tr>",
        tc(1, "w"),
        tc(2, "x"),
        tc(2, "y"),
        tc(1, "z")
    );
    let body = format!(
        "<w:tbl><w:tblGrid>{}</w:tblGrid>{three}{three}{three}{four}{four}</w:tbl>{}",
        "<w:gridCol/>".repeat(6),
        p("after")
    );
    let doc = run(&docx(&body, &[]));
    let tables: Vec<Vec<Vec<(String, u32)>>> = blocks(&doc)
        .iter()
        .filter_map(|b| match b {
            Block::Table(t) => Some(
                t.rows
                    .iter()
                    .map(|r| r.iter().map(|c| (plain(&c.content), c.colspan)).collect())
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    let row = |cells: &[&str]| -> Vec<(String, u32)> {
        cells.iter().map(|c| (c.to_string(), 1)).collect()
    };
    assert_eq!(
        tables,
        [
            vec![row(&["a", "b", "c"]); 3],
            vec![row(&["w", "x", "y", "z"]); 2]
        ]
    );
}

#[test]
fn tables_with_merges_headers_and_nested_tables() {
    let body = r#"<w:tbl><w:tblPr/><w:tblGrid><w:gridCol/><w:gridCol/><w:gridCol/></w:tblGrid>
<w:tr><w:trPr><w:tblHeader/></w:trPr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>AB</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>C</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>tall</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p><w:p><w:r><w:t>y</w:t></w:r></w:p></w:tc><w:tc>
  <w:tbl><w:tr><w:tc><w:p><w:r><w:t>n1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>n2</w:t></w:r></w:p></w:tc></w:tr></w:tbl><w:p/></w:tc></w:tr>
<w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc><w:tc><w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="2"/></w:numPr></w:pPr><w:r><w:t>listed</w:t></w:r></w:p></w:tc><w:tc><w:p/></w:tc></w:tr>
</w:tbl>"#;
    let doc = run(&docx(body, &[]));
    let Block::Table(Table { header_rows, rows }) = &blocks(&doc)[0] else {
        panic!("table expected")
    };
    assert_eq!(*header_rows, 1);
    assert_eq!(
        (rows[0][0].colspan, plain(&rows[0][0].content).as_str()),
        (2, "AB")
    );
    assert_eq!(
        (rows[1][0].rowspan, plain(&rows[1][0].content).as_str()),
        (2, "tall")
    );
    assert_eq!(plain(&rows[1][1].content), "x\ny");
    assert_eq!(plain(&rows[1][2].content), "n1 | n2");
    // The merged-away cell is not repeated; the list label is written out.
    assert_eq!(rows[2].len(), 2);
    assert_eq!(plain(&rows[2][0].content), "1. listed");
}

#[test]
fn notes_and_comments_come_last_in_reference_order() {
    let body = r#"<w:p><w:r><w:t>Claim</w:t></w:r><w:r><w:endnoteReference w:id="5"/></w:r><w:r><w:footnoteReference w:id="2"/></w:r><w:r><w:commentReference w:id="0"/></w:r></w:p>"#;
    let foot = format!(
        r#"<w:footnotes {NS}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="2"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> A footnote.</w:t></w:r></w:p></w:footnote></w:footnotes>"#
    );
    let end = format!(
        r#"<w:endnotes {NS}><w:endnote w:id="5"><w:p><w:r><w:t>An endnote.</w:t></w:r></w:p></w:endnote></w:endnotes>"#
    );
    let comments = format!(
        r#"<w:comments {NS}><w:comment w:id="0" w:author="Ann"><w:p><w:r><w:t>Check this.</w:t></w:r></w:p></w:comment></w:comments>"#
    );
    let doc = run(&docx(
        body,
        &[
            ("word/footnotes.xml", foot.as_bytes()),
            ("word/endnotes.xml", end.as_bytes()),
            ("word/comments.xml", comments.as_bytes()),
        ],
    ));
    let b = blocks(&doc);
    assert_eq!(
        b[0],
        Block::Paragraph(vec![
            Inline::plain("Claim"),
            Inline::NoteRef("1".into()),
            Inline::NoteRef("2".into()),
            Inline::NoteRef("c1".into())
        ])
    );
    let notes: Vec<(String, String)> = b[1..]
        .iter()
        .map(|n| match n {
            Block::Note { label, blocks } => {
                let mut s = String::new();
                blocks_text(blocks, &mut s);
                (label.clone(), s.trim().to_owned())
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        notes,
        vec![
            ("1".into(), "An endnote.".into()),
            ("2".into(), "A footnote.".into()),
            ("c1".into(), "Ann: Check this.".into())
        ]
    );
}

#[test]
fn hyperlinks_from_relationships_anchors_and_fields() {
    let body = r#"<w:p><w:hyperlink r:id="rId11"><w:r><w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr><w:t>site</w:t></w:r></w:hyperlink>
<w:hyperlink w:anchor="_Toc1"><w:r><w:t>inside</w:t></w:r></w:hyperlink>
<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK "https://field.example/" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>field link</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>
<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>
<w:hyperlink r:id="rId99"><w:r><w:t>dangling</w:t></w:r></w:hyperlink></w:p>"#;
    let doc = run(&docx(body, &[]));
    let Block::Paragraph(content) = &blocks(&doc)[0] else {
        panic!()
    };
    let links: Vec<(String, String)> = content
        .iter()
        .filter_map(|i| match i {
            Inline::Link(l) => Some((l.href.clone(), plain(&l.content))),
            _ => None,
        })
        .collect();
    assert_eq!(
        links,
        vec![
            ("https://example.com/a?b=1&c=2".into(), "site".into()),
            ("#_Toc1".into(), "inside".into()),
            ("https://field.example/".into(), "field link".into())
        ]
    );
    // Link text underlined by the Hyperlink style is not emphasis.
    assert!(matches!(&content[0], Inline::Link(l) if l.content[0] == Inline::plain("site")));
    let text = plain(content);
    assert!(text.contains('7') && text.contains("dangling") && !text.contains("PAGE"));
}

fn drawing(embed_attr: &str, descr: &str) -> String {
    format!(
        r#"<w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture 1" descr="{descr}"/><a:graphic><a:graphicData><pic:pic><pic:blipFill><a:blip {embed_attr}/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>"#
    )
}

#[test]
fn images_keep_bytes_and_linked_images_are_not_fetched() {
    let emf = {
        let mut v = vec![1u8, 0, 0, 0];
        v.extend_from_slice(&[0; 36]);
        v.extend_from_slice(b" EMF");
        v
    };
    let body = [
        format!("<w:p>{}</w:p>", drawing(r#"r:embed="rId10""#, "A chart")),
        format!("<w:p><w:r><w:t>Text and </w:t></w:r>{}</w:p>", drawing(r#"r:link="rId12""#, "")),
        format!("<w:p>{}</w:p>", drawing(r#"r:embed="rId15""#, "")),
        r#"<w:p><w:r><w:pict><v:shape><v:imagedata r:id="rId10" o:title="vml pic" xmlns:o="urn:schemas-microsoft-com:office:office"/></v:shape></w:pict></w:r></w:p>"#.to_owned(),
    ]
    .concat();
    let doc = run(&docx(
        &body,
        &[
            ("word/media/image1.png", PNG),
            ("word/media/image2.emf", &emf),
        ],
    ));
    let images: Vec<&Image> = doc.images();
    assert_eq!(images.len(), 4);
    assert!(matches!(&blocks(&doc)[0], Block::Image(_)));
    assert_eq!(
        (
            images[0].name.as_str(),
            images[0].mime.as_str(),
            images[0].data.as_slice()
        ),
        ("image1.png", "image/png", PNG)
    );
    assert_eq!(images[0].alt.as_deref(), Some("A chart"));
    assert!(images[1].data.is_empty() && images[1].skipped.is_some());
    assert_eq!(images[2].mime, "image/x-emf");
    assert_eq!(images[3].alt.as_deref(), Some("vml pic"));
    assert_eq!(doc.metadata.extra["num_images"], 3);
}

/// A run holding a chart as Word writes it: `w:drawing` → `a:graphicData` (chart URI) →
/// `c:chart r:id`.
fn chart_run(rid: &str) -> String {
    format!(
        r#"<w:r><w:drawing><wp:inline><wp:docPr id="7" name="Chart 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="{rid}"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>"#
    )
}

const CHART: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart>
<c:title><c:tx><c:rich><a:p><a:r><a:t>Revenue</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart>
<c:ser><c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:pt idx="0"><c:v>2023</c:v></c:pt></c:strCache></c:strRef></c:tx>
<c:cat><c:strRef><c:f>Sheet1!$A$2:$A$3</c:f><c:strCache><c:pt idx="0"><c:v>Q1</c:v></c:pt><c:pt idx="1"><c:v>Q2</c:v></c:pt></c:strCache></c:strRef></c:cat>
<c:val><c:numRef><c:f>Sheet1!$B$2:$B$3</c:f><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>1.5</c:v></c:pt><c:pt idx="1"><c:v>2</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
<c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>2024</c:v></c:pt></c:strCache></c:strRef></c:tx>
<c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Q1</c:v></c:pt><c:pt idx="1"><c:v>Q2</c:v></c:pt></c:strCache></c:strRef></c:cat>
<c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>3</c:v></c:pt><c:pt idx="1"><c:v>4</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
</c:barChart><c:valAx><c:title><c:tx><c:rich><a:p><a:r><a:t>EUR m</a:t></a:r></a:p></c:rich></c:tx></c:title></c:valAx></c:plotArea></c:chart></c:chartSpace>"#;

#[test]
fn charts_keep_their_title_series_and_cached_values() {
    let body = [
        p("Before"),
        format!("<w:p>{}</w:p>", chart_run("rId17")),
        p("After"),
        format!(
            "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Cell</w:t></w:r>{}</w:p></w:tc></w:tr></w:tbl>",
            chart_run("rId17")
        ),
        format!("<w:p>{}</w:p>", chart_run("rId18")),
    ]
    .concat();
    let mut ctx = Context::new();
    let doc = convert(
        &docx(&body, &[("word/charts/chart1.xml", CHART.as_bytes())]),
        &mut ctx,
    )
    .expect("converts");
    let b = blocks(&doc);
    assert_eq!(b[0], Block::text("Before"));
    assert_eq!(
        b[1],
        Block::Paragraph(vec![Inline::styled("Chart: Revenue", Style::BOLD)])
    );
    let Block::Table(Table { header_rows, rows }) = &b[2] else {
        panic!("chart table expected: {b:?}")
    };
    assert_eq!(*header_rows, 1);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| plain(&c.content)).collect())
        .collect();
    assert_eq!(
        cells,
        [["", "2023", "2024"], ["Q1", "1.5", "3"], ["Q2", "2", "4"]]
    );
    assert_eq!(b[3], Block::text("After"));
    // In a table cell the chart is flattened like a nested table.
    let Block::Table(Table { rows, .. }) = &b[4] else {
        panic!("table expected: {b:?}")
    };
    assert_eq!(
        plain(&rows[0][0].content),
        "Cell\nChart: Revenue\n2023 | 2024\nQ1 | 1.5 | 3\nQ2 | 2 | 4"
    );
    // A chart whose part is missing is left out, with a warning.
    assert_eq!(b.len(), 5, "{b:?}");
    assert!(
        ctx.warnings().iter().any(|w| w.contains("chart")),
        "{:?}",
        ctx.warnings()
    );
}

/// A SmartArt diagram as Word writes it: `a:graphicData` (diagram URI) → `dgm:relIds`, its
/// points created out of order ("Ship" first) and put in order by their connections.
const SMARTART_RUN: &str = r#"<w:r><w:drawing><wp:inline><wp:docPr id="3" name="Diagram 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"><dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rId19" r:lo="rId90" r:qs="rId91" r:cs="rId92"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>"#;

const SMARTART_DATA: &str = r#"<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>
<dgm:pt modelId="{0}" type="doc"><dgm:prSet/><dgm:t><a:bodyPr/><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="{2}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Ship</a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="{1}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Plan</a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="{3}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Budget</a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="{9}" type="pres"><dgm:prSet presName="node"/></dgm:pt>
</dgm:ptLst><dgm:cxnLst>
<dgm:cxn modelId="{a}" srcId="{0}" destId="{2}" srcOrd="1" destOrd="0"/>
<dgm:cxn modelId="{b}" srcId="{0}" destId="{1}" srcOrd="0" destOrd="0"/>
<dgm:cxn modelId="{c}" srcId="{1}" destId="{3}" srcOrd="0" destOrd="0"/>
<dgm:cxn modelId="{d}" type="presOf" srcId="{1}" destId="{9}" srcOrd="0" destOrd="0"/>
</dgm:cxnLst></dgm:dataModel>"#;

#[test]
fn smartart_text_as_a_nested_list_after_its_paragraph() {
    let body = [
        p("Before"),
        format!("<w:p>{SMARTART_RUN}</w:p>"),
        p("After"),
        format!("<w:tbl><w:tr><w:tc><w:p>{SMARTART_RUN}</w:p></w:tc></w:tr></w:tbl>"),
    ]
    .concat();
    let doc = run(&docx(
        &body,
        &[("word/diagrams/data1.xml", SMARTART_DATA.as_bytes())],
    ));
    let b = blocks(&doc);
    assert_eq!(b[0], Block::text("Before"));
    let Block::List(List { items, ordered, .. }) = &b[1] else {
        panic!("list expected: {b:?}")
    };
    assert!(!ordered);
    let top: Vec<&Block> = items.iter().map(|i| &i.blocks[0]).collect();
    assert_eq!(top, [&Block::text("Plan"), &Block::text("Ship")]);
    let Some(Block::List(inner)) = items[0].blocks.get(1) else {
        panic!("nested list expected: {items:?}")
    };
    assert_eq!(inner.items[0].blocks, [Block::text("Budget")]);
    assert_eq!(b[2], Block::text("After"));
    let Block::Table(Table { rows, .. }) = &b[3] else {
        panic!("table expected: {b:?}")
    };
    assert_eq!(plain(&rows[0][0].content), "• Plan\n• Budget\n• Ship");
}

#[test]
fn drawingml_text_bodies_are_read_like_text_boxes() {
    // A locked canvas (Word 2007's drawing canvas) of two shapes with DrawingML text: runs,
    // a field, a line break, bold.
    let body = r#"<w:p><w:r><w:t>Figure anchor</w:t></w:r><w:r><w:drawing><wp:inline><wp:docPr id="3" name="Object 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/lockedCanvas"><lc:lockedCanvas xmlns:lc="http://schemas.openxmlformats.org/drawingml/2006/lockedCanvas"><a:sp><a:nvSpPr><a:cNvPr id="51" name="Rounded Rectangle 50"/><a:cNvSpPr/></a:nvSpPr><a:txSp><a:txBody><a:bodyPr/><a:lstStyle/><a:p><a:pPr algn="ctr"/><a:r><a:rPr lang="en-US" b="1"/><a:t>System</a:t></a:r><a:r><a:rPr lang="en-US" b="1"/><a:t> Support</a:t></a:r><a:endParaRPr lang="en-US"/></a:p><a:p><a:endParaRPr/></a:p></a:txBody></a:txSp></a:sp><a:sp><a:txSp><a:txBody><a:p><a:r><a:t>Low</a:t></a:r><a:br/><a:fld type="slidenum"><a:t>level</a:t></a:fld></a:p></a:txBody></a:txSp></a:sp></lc:lockedCanvas></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"#;
    let doc = run(&docx(body, &[]));
    let b = blocks(&doc);
    assert_eq!(b[0], Block::text("Figure anchor"));
    assert_eq!(
        b[1],
        Block::Paragraph(vec![Inline::styled("System Support", Style::BOLD)])
    );
    assert_eq!(
        b[2],
        Block::Paragraph(vec![
            Inline::plain("Low"),
            Inline::Break,
            Inline::plain("level")
        ])
    );
    assert_eq!(b.len(), 3, "{b:?}");
}

#[test]
fn embedded_documents_left_out_are_reported_once() {
    let body = [
        p("Before"),
        r#"<w:altChunk r:id="rId30"/>"#.to_owned(),
        format!(
            "<w:tbl><w:tr><w:tc>{}<w:altChunk r:id=\"rId31\"><w:altChunkPr><w:matchSrc/></w:altChunkPr></w:altChunk></w:tc></w:tr></w:tbl>",
            p("Cell")
        ),
        p("After"),
    ]
    .concat();
    let mut ctx = Context::new();
    let doc = convert(&docx(&body, &[]), &mut ctx).expect("converts");
    assert_eq!(blocks(&doc).first(), Some(&Block::text("Before")));
    let warnings = ctx.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("embeds 2 other documents"),
        "{warnings:?}"
    );
    // Without one, no warning.
    let mut ctx = Context::new();
    convert(&docx(&p("Plain"), &[]), &mut ctx).expect("converts");
    assert!(ctx.warnings().is_empty(), "{:?}", ctx.warnings());
}

#[test]
fn alternate_content_reads_one_branch_only() {
    let body = r#"<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor><wp:docPr id="2" name="Text Box 2"/><a:graphic><a:graphicData><wps:wsp><wps:txbx><w:txbxContent><w:p><w:r><w:t>Boxed text</w:t></w:r></w:p></w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Boxed text</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>Anchor paragraph</w:t></w:r></w:p>"#;
    let doc = run(&docx(body, &[]));
    let text = text_of(&doc);
    assert_eq!(text.matches("Boxed text").count(), 1, "{text}");
    assert!(text.find("Anchor paragraph") < text.find("Boxed text"));
}

#[test]
fn a_choice_needing_an_unread_namespace_gives_way_to_its_fallback() {
    // Word writes a 3D model as a Choice requiring `am3d`, with a picture of it as the
    // Fallback; a chart-extension chart (waterfall, histogram …, `cx1`) is read from its
    // Choice, as a table of its cached data.
    let fallback = r#"<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Fallback text</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>"#;
    let body = format!(
        r#"<w:p><w:r><mc:AlternateContent><mc:Choice Requires="am3d"><w:drawing><wp:inline><wp:docPr id="1" name="3D Model 1"/><a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/drawing/2017/model3d"><am3d:model3d xmlns:am3d="am3d" r:embed="rId9"/></a:graphicData></a:graphic></wp:inline></w:drawing></mc:Choice>{fallback}</mc:AlternateContent></w:r></w:p>"#
    );
    let text = text_of(&run(&docx(&body, &[])));
    assert_eq!(text.matches("Fallback text").count(), 1, "{text}");

    let body = format!(
        r#"<w:p><w:r><mc:AlternateContent><mc:Choice Requires="cx1"><w:drawing><wp:inline><wp:docPr id="1" name="Chart 1"/><a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chart xmlns:cx="cx" r:id="rId17"/></a:graphicData></a:graphic></wp:inline></w:drawing></mc:Choice>{fallback}</mc:AlternateContent></w:r></w:p>"#
    );
    let chartex = r#"<cx:chartSpace xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chartData><cx:data id="0"><cx:numDim type="val"><cx:lvl ptCount="2"><cx:pt idx="0">100</cx:pt><cx:pt idx="1">-40</cx:pt></cx:lvl></cx:numDim></cx:data></cx:chartData><cx:chart><cx:plotArea><cx:plotAreaRegion><cx:series layoutId="waterfall"><cx:tx><cx:txData><cx:v>Flow</cx:v></cx:txData></cx:tx><cx:dataId val="0"/></cx:series></cx:plotAreaRegion></cx:plotArea></cx:chart></cx:chartSpace>"#;
    let doc = run(&docx(
        &body,
        &[("word/charts/chart1.xml", chartex.as_bytes())],
    ));
    let text = text_of(&doc);
    assert!(!text.contains("Fallback text"), "{text}");
    let table = blocks(&doc)
        .iter()
        .find_map(|b| match b {
            Block::Table(t) => Some(t.clone()),
            _ => None,
        })
        .expect("chart table");
    assert_eq!(table.rows.len(), 3);
    assert!(text.contains("Flow") && text.contains("-40"), "{text}");
}

#[test]
fn headers_once_at_start_page_numbers_skipped_footers_at_end() {
    let body = format!(
        "{}<w:sectPr><w:headerReference w:type=\"default\" r:id=\"rId13\"/><w:headerReference w:type=\"first\" r:id=\"rId16\"/><w:footerReference w:type=\"default\" r:id=\"rId14\"/></w:sectPr>",
        p("Body")
    );
    let header =
        format!(r#"<w:hdr {NS}><w:p><w:r><w:t>Company Confidential</w:t></w:r></w:p></w:hdr>"#);
    let header2 = format!(
        r#"<w:hdr {NS}><w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:hdr>"#
    );
    let footer = format!(r#"<w:ftr {NS}><w:p><w:r><w:t>Footer words</w:t></w:r></w:p></w:ftr>"#);
    let doc = run(&docx(
        &body,
        &[
            ("word/header1.xml", header.as_bytes()),
            ("word/header2.xml", header2.as_bytes()),
            ("word/footer1.xml", footer.as_bytes()),
        ],
    ));
    let texts: Vec<String> = blocks(&doc)
        .iter()
        .map(|b| {
            let mut s = String::new();
            blocks_text(std::slice::from_ref(b), &mut s);
            s.trim().to_owned()
        })
        .collect();
    assert_eq!(texts, vec!["Company Confidential", "Body", "Footer words"]);
}

#[test]
fn equations_become_latex() {
    let body = r#"<w:p><w:r><w:t xml:space="preserve">For </w:t></w:r><m:oMath><m:r><m:t>x</m:t></m:r></m:oMath></w:p><w:p><m:oMathPara><m:oMath><m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e><m:r><m:t>2</m:t></m:r></m:e></m:rad></m:oMath></m:oMathPara></w:p>"#;
    let doc = run(&docx(body, &[]));
    let b = blocks(&doc);
    assert_eq!(
        b[0],
        Block::Paragraph(vec![
            Inline::plain("For "),
            Inline::Math {
                tex: "x".into(),
                display: false
            }
        ])
    );
    assert_eq!(
        b[1],
        Block::Paragraph(vec![Inline::Math {
            tex: "\\sqrt{2}".into(),
            display: true
        }])
    );
}

#[test]
fn strict_namespaces_and_core_properties() {
    let strict = r#"<w:document xmlns:w="http://purl.oclc.org/ooxml/wordprocessingml/main"><w:body><w:p><w:r><w:t>Strict text</w:t></w:r></w:p></w:body></w:document>"#;
    let core = r#"<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"><dc:title>Report</dc:title><dc:creator>Ann Author</dc:creator><dcterms:created>2024-05-06T07:08:09Z</dcterms:created></cp:coreProperties>"#;
    let bytes = zip(&[
        ("_rels/.rels", PKG_RELS.as_bytes()),
        ("word/document.xml", strict.as_bytes()),
        ("docProps/core.xml", core.as_bytes()),
    ]);
    let doc = run(&bytes);
    assert_eq!(blocks(&doc), &[Block::text("Strict text")]);
    assert_eq!(doc.metadata.title.as_deref(), Some("Report"));
    assert_eq!(doc.metadata.author.as_deref(), Some("Ann Author"));
    assert_eq!(
        doc.metadata.created.as_deref(),
        Some("2024-05-06T07:08:09Z")
    );
    assert_eq!(doc.metadata.extra["word_count"], 2);
    assert_eq!(doc.metadata.extra["num_paragraphs"], 1);
}

#[test]
fn hostile_and_broken_packages_fail_with_clear_errors() {
    let mut ctx = Context::new();
    let no_main = zip(&[("_rels/.rels", PKG_RELS.as_bytes())]);
    let err = convert(&no_main, &mut ctx).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.message(), MISSING_MAIN);

    let workbook = zip(&[(
        "word/document.xml",
        b"<workbook><sheets/></workbook>".as_slice(),
    )]);
    assert_eq!(
        convert(&workbook, &mut ctx).unwrap_err().message(),
        MISSING_MAIN
    );

    let ole = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0];
    let err = convert(&ole, &mut ctx).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Encrypted);
    assert!(err.message().contains("password"));

    // Deep nesting: refused past the depth limit, and never exhausting a small stack.
    let deep = format!("<w:p>{}</w:p>", "<w:ins>".repeat(2000));
    let err = convert(&docx(&deep, &[]), &mut ctx).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    let tables = format!(
        "{}<w:p>{}",
        "<w:tbl><w:tr><w:tc>".repeat(30),
        "<m:oMath>".repeat(300)
    );
    let bytes = docx(&tables, &[]);
    let outcome = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || convert(&bytes, &mut Context::new()).map(|d| d.parts.len()))
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(outcome, Ok(1));

    let doctype = br#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><w:document xmlns:w="w"><w:body><w:p><w:r><w:t>a&xxe;b</w:t></w:r></w:p></w:body></w:document>"#;
    // Office never writes a DTD; one (XXE, billion laughs) fails the job as malformed
    // instead of converting to a silently emptied document.
    let err = convert(
        &zip(&[("word/document.xml", doctype.as_slice())]),
        &mut Context::new(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert!(
        err.message().contains("declares a DTD"),
        "{}",
        err.message()
    );

    let truncated = document(&p("kept")).replace("</w:body></w:document>", "<w:p><w:r><w:t>cut");
    let mut ctx = Context::new();
    let doc = convert(
        &zip(&[("word/document.xml", truncated.as_bytes())]),
        &mut ctx,
    )
    .unwrap();
    assert!(text_of(&doc).contains("kept"));

    let mut ctx = Context::new()
        .with_deadline(std::time::Instant::now() - std::time::Duration::from_millis(1));
    let err = convert(&docx(&p("x"), &[]), &mut ctx).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
}

struct FakeOcr;

impl OcrProvider for FakeOcr {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput> {
        if image.data == PNG {
            Ok(OcrOutput {
                text: " Chart title \n".into(),
                confidence: Some(0.9),
            })
        } else {
            Err(Error::malformed("cannot decode"))
        }
    }
}

#[test]
fn ocr_fills_image_text_and_failures_warn() {
    let body = format!(
        "<w:p>{}</w:p><w:p>{}</w:p>",
        drawing(r#"r:embed="rId10""#, ""),
        drawing(r#"r:embed="rId15""#, "")
    );
    let bytes = docx(
        &body,
        &[
            ("word/media/image1.png", PNG),
            ("word/media/image2.emf", b"\xFF\xD8\xFF\xE0junk"),
        ],
    );
    let provider = FakeOcr;
    let mut ctx = Context::new().with_ocr("fake", &provider);
    let doc = convert(&bytes, &mut ctx).unwrap();
    let images = doc.images();
    assert_eq!(images[0].ocr_text.as_deref(), Some("Chart title"));
    assert_eq!(images[1].ocr_text, None);
    assert_eq!(ctx.warnings().len(), 1);
}

#[test]
fn descriptor_names_the_format() {
    assert_eq!(DESCRIPTOR.id, "docx");
    assert!(DESCRIPTOR
        .mime_types
        .contains(&"application/vnd.openxmlformats-officedocument.wordprocessingml.document"));
    assert!((DESCRIPTOR.factory)(&PluginConfig::default()).is_ok());
}

#[test]
fn a_drop_cap_joins_the_paragraph_it_starts() {
    let cap = |kind: &str, text: &str| {
        format!(
            r#"<w:p><w:pPr><w:framePr w:dropCap="{kind}" w:lines="3" w:wrap="around"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#
        )
    };
    let body = format!(
        "{}{}{}{}{}",
        cap("drop", "D"),
        p("rop cap."),
        cap("margin", "M"),
        p("argin cap."),
        p("Plain.")
    );
    let doc = run(&docx(&body, &[]));
    let paras: Vec<String> = blocks(&doc)
        .iter()
        .map(|b| match b {
            Block::Paragraph(inl) => plain(inl),
            other => panic!("paragraph expected, got {other:?}"),
        })
        .collect();
    assert_eq!(paras, ["Drop cap.", "Margin cap.", "Plain."]);
    // a frame that is not a drop cap stays a paragraph of its own
    let framed =
        r#"<w:p><w:pPr><w:framePr w:wrap="around"/></w:pPr><w:r><w:t>Box</w:t></w:r></w:p>"#;
    let doc = run(&docx(&format!("{framed}{}", p("Next.")), &[]));
    assert_eq!(blocks(&doc).len(), 2);
}

/// A host stand-in for embedded documents: a DOCX goes back through this converter, anything
/// else is read as lines of text, the first a heading.
struct FakeEmbedded;

impl quire_plugin_api::EmbeddedConverter for FakeEmbedded {
    fn convert(
        &self,
        data: &[u8],
        _name_hint: Option<&str>,
        ctx: &mut Context<'_>,
    ) -> Result<Document> {
        if data.starts_with(b"PK") {
            return convert(data, ctx);
        }
        if data.starts_with(b"{\\rtf") {
            return Err(quire_plugin_api::Error::unsupported("no converter for RTF"));
        }
        let text = String::from_utf8_lossy(data);
        let mut lines = text.lines();
        let mut part = quire_plugin_api::Part::new(quire_plugin_api::PartKind::Section, 1);
        if let Some(h) = lines.next() {
            part.blocks.push(Block::heading(1, h));
        }
        part.blocks.extend(lines.map(Block::text));
        let mut doc = Document::new(quire_plugin_api::DocumentKind::Flowing, "Text");
        doc.parts.push(part);
        Ok(doc)
    }
}

/// A DOCX whose main part has these extra relationships and parts.
fn docx_with_rels(body: &str, rels: &str, extra: &[(&str, &[u8])]) -> Vec<u8> {
    let doc = document(body);
    let doc_rels = DOC_RELS.replace("</Relationships>", &format!("{rels}</Relationships>"));
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("_rels/.rels", PKG_RELS.as_bytes()),
        ("word/document.xml", doc.as_bytes()),
        ("word/_rels/document.xml.rels", doc_rels.as_bytes()),
        ("word/styles.xml", STYLES.as_bytes()),
        ("word/numbering.xml", NUMBERING.as_bytes()),
    ];
    entries.extend_from_slice(extra);
    zip(&entries)
}

fn chunk_rel(id: &str, target: &str, external: bool) -> String {
    format!(
        r#"<Relationship Id="{id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="{target}"{}/>"#,
        if external {
            r#" TargetMode="External""#
        } else {
            ""
        }
    )
}

#[test]
fn embedded_documents_are_spliced_in_place_through_the_hook() {
    let body = [
        p("Before"),
        r#"<w:altChunk r:id="rId40"/>"#.to_owned(),
        p("After"),
    ]
    .concat();
    let bytes = docx_with_rels(
        &body,
        &chunk_rel("rId40", "afchunk.htm", false),
        &[("word/afchunk.htm", b"Inner title\nInner text")],
    );
    let hook = FakeEmbedded;
    let mut ctx = Context::new().with_embedded(&hook);
    let doc = convert(&bytes, &mut ctx).expect("converts");
    assert_eq!(
        blocks(&doc),
        &[
            Block::text("Before"),
            Block::heading(1, "Inner title"),
            Block::text("Inner text"),
            Block::text("After"),
        ]
    );
    assert!(ctx.warnings().is_empty(), "{:?}", ctx.warnings());
    // Without the hook: the old warning, and the surrounding text only.
    let mut ctx = Context::new();
    let doc = convert(&bytes, &mut ctx).expect("converts");
    assert_eq!(blocks(&doc), &[Block::text("Before"), Block::text("After")]);
    assert_eq!(ctx.warnings().len(), 1);
    assert!(ctx.warnings()[0].contains("embeds another document"));
}

#[test]
fn embedded_documents_external_or_unconvertible_are_left_out_with_a_warning() {
    let body = [
        r#"<w:altChunk r:id="rId40"/>"#,
        r#"<w:altChunk r:id="rId41"/>"#,
        &p("Kept"),
    ]
    .concat();
    let rels = [
        chunk_rel("rId40", "http://example.invalid/x.htm", true),
        chunk_rel("rId41", "chunk.rtf", false),
    ]
    .concat();
    let bytes = docx_with_rels(&body, &rels, &[("word/chunk.rtf", b"{\\rtf1 x}")]);
    let hook = FakeEmbedded;
    let mut ctx = Context::new().with_embedded(&hook);
    let doc = convert(&bytes, &mut ctx).expect("converts");
    assert_eq!(blocks(&doc), &[Block::text("Kept")]);
    let w = ctx.warnings();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w.iter()
            .any(|m| m.contains("(chunk.rtf)") && m.contains("no converter for RTF")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|m| m.contains("embeds another document (an HTML")),
        "{w:?}"
    );
}

#[test]
fn embedded_documents_nest_to_a_limited_depth() {
    // A DOCX that embeds itself: converted MAX_EMBED_DEPTH levels deep, then a warning.
    fn nested(level: u32) -> Vec<u8> {
        let body = [
            p(&format!("Level {level}")),
            r#"<w:altChunk r:id="rId40"/>"#.to_owned(),
        ]
        .concat();
        let inner = if level < 6 {
            nested(level + 1)
        } else {
            Vec::new()
        };
        docx_with_rels(
            &body,
            &chunk_rel("rId40", "inner.docx", false),
            &[("word/inner.docx", &inner)],
        )
    }
    let hook = FakeEmbedded;
    let mut ctx = Context::new().with_embedded(&hook);
    let doc = convert(&nested(0), &mut ctx).expect("converts");
    let expected: Vec<Block> = (0..=quire_plugin_api::MAX_EMBED_DEPTH)
        .map(|l| Block::text(format!("Level {l}")))
        .collect();
    assert_eq!(blocks(&doc), expected.as_slice());
    let w = ctx.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("nested more than 3 deep"), "{w:?}");
}

#[test]
fn an_object_shown_as_its_content_is_converted_in_place_of_its_picture() {
    // Word's "Insert Object" of a worksheet: a `w:object` with the preview picture (VML) and
    // the `o:OLEObject` naming the embedded part. Shown as content, the part is converted
    // (the object's text instead of a picture of it); shown as an icon, the icon stays.
    let object = |aspect: &str, rid: &str| {
        format!(
            r#"<w:p><w:r><w:t>Figures:</w:t></w:r><w:r><w:object><v:shape id="s1" xmlns:v="urn:schemas-microsoft-com:vml"><v:imagedata r:id="rId50" o:title="" xmlns:o="urn:schemas-microsoft-com:office:office"/></v:shape><o:OLEObject Type="Embed" ProgID="Excel.Sheet.12" ShapeID="s1" DrawAspect="{aspect}" ObjectID="_1" r:id="{rid}" xmlns:o="urn:schemas-microsoft-com:office:office"/></w:object></w:r></w:p>"#
        )
    };
    let rels = concat!(
        r#"<Relationship Id="rId50" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/>"#,
        r#"<Relationship Id="rId51" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/package" Target="embeddings/Sheet1.xlsx"/>"#,
    );
    let extra: Vec<(&str, &[u8])> = vec![
        ("word/media/image1.png", PNG),
        ("word/embeddings/Sheet1.xlsx", b"Q1 figures\nRevenue 12"),
    ];
    let body = [object("Content", "rId51"), p("After")].concat();
    let bytes = docx_with_rels(&body, rels, &extra);
    let hook = FakeEmbedded;
    let mut ctx = Context::new().with_embedded(&hook);
    let doc = convert(&bytes, &mut ctx).expect("converts");
    assert_eq!(
        blocks(&doc),
        &[
            Block::text("Figures:"),
            Block::heading(1, "Q1 figures"),
            Block::text("Revenue 12"),
            Block::text("After"),
        ]
    );
    // an icon, or no hook: the picture stays
    for (aspect, hooked) in [("Icon", true), ("Content", false)] {
        let body = [object(aspect, "rId51"), p("After")].concat();
        let bytes = docx_with_rels(&body, rels, &extra);
        let mut ctx = if hooked {
            Context::new().with_embedded(&hook)
        } else {
            Context::new()
        };
        let doc = convert(&bytes, &mut ctx).expect("converts");
        let b = blocks(&doc);
        assert!(
            matches!(&b[0], Block::Paragraph(p) if p.iter().any(|i| matches!(i, Inline::Image(_)))),
            "{aspect}: {b:?}"
        );
        assert_eq!(b.len(), 2, "{aspect}: {b:?}");
    }
}

/// An OLE object's compound file holding an `Equation Native` stream: Equation Editor 3.0's
/// 28-byte header, then `mtef`.
fn equation_object(mtef: &[u8]) -> Vec<u8> {
    let mut cf =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, std::io::Cursor::new(Vec::new()))
            .unwrap();
    let mut native = vec![28, 0];
    native.resize(28, 0);
    native.extend_from_slice(mtef);
    cf.create_stream("/Equation Native")
        .unwrap()
        .write_all(&native)
        .unwrap();
    cf.flush().unwrap();
    cf.into_inner().into_inner()
}

#[test]
fn an_equation_editor_formula_reads_as_latex_in_place_of_its_picture() {
    // Word 97-2003's equations: a `w:object` with a WMF preview and an `Equation.3` OLE object
    // whose MTEF says x_{1}^{2}+\frac{a}{b}. The formula replaces the picture; an object whose
    // stream is damaged keeps it.
    let object = |rid: &str| {
        format!(
            r#"<w:r><w:object><v:shape id="s1" xmlns:v="urn:schemas-microsoft-com:vml"><v:imagedata r:id="rId50" o:title="" xmlns:o="urn:schemas-microsoft-com:office:office"/></v:shape><o:OLEObject Type="Embed" ProgID="Equation.3" ShapeID="s1" DrawAspect="Content" ObjectID="_1" r:id="{rid}" xmlns:o="urn:schemas-microsoft-com:office:office"/></w:object></w:r>"#
        )
    };
    let para = |rid: &str| {
        format!(
            "<w:p><w:r><w:t xml:space=\"preserve\">Area </w:t></w:r>{}<w:r><w:t xml:space=\"preserve\"> m</w:t></w:r></w:p>",
            object(rid)
        )
    };
    let rels = concat!(
        r#"<Relationship Id="rId50" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/>"#,
        r#"<Relationship Id="rId51" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject" Target="embeddings/oleObject1.bin"/>"#,
        r#"<Relationship Id="rId52" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject" Target="embeddings/oleObject2.bin"/>"#,
    );
    let ch = |tf: u8, c: u8| [0x02, tf + 128, c, 0];
    let mut mtef = vec![3, 1, 1, 3, 0, 0x0A, 0x01];
    mtef.extend(ch(3, b'x'));
    mtef.extend([0x03, 15, 2, 0, 0x01]); // script: subscript slot, superscript slot
    mtef.extend(ch(8, b'1'));
    mtef.extend([0x00, 0x01]);
    mtef.extend(ch(8, b'2'));
    mtef.extend([0x00, 0x00]);
    mtef.extend(ch(6, b'+'));
    mtef.extend([0x03, 14, 0, 0, 0x01]); // fraction: numerator, denominator
    mtef.extend(ch(3, b'a'));
    mtef.extend([0x00, 0x01]);
    mtef.extend(ch(3, b'b'));
    mtef.extend([0x00, 0x00, 0x00, 0x00]);
    let good = equation_object(&mtef);
    let damaged = equation_object(&[3, 1, 1, 3, 0, 0x01, 0x02, 131]);
    let extra: Vec<(&str, &[u8])> = vec![
        ("word/media/image1.png", PNG),
        ("word/embeddings/oleObject1.bin", &good),
        ("word/embeddings/oleObject2.bin", &damaged),
    ];
    let body = [para("rId51"), para("rId52")].concat();
    let bytes = docx_with_rels(&body, rels, &extra);
    let doc = convert(&bytes, &mut Context::new()).expect("converts");
    let b = blocks(&doc);
    assert_eq!(
        b[0],
        Block::Paragraph(vec![
            Inline::plain("Area "),
            Inline::Math {
                tex: "x_{1}^{2}+\\frac{a}{b}".into(),
                display: false
            },
            Inline::plain(" m"),
        ])
    );
    assert!(
        matches!(&b[1], Block::Paragraph(p) if p.iter().any(|i| matches!(i, Inline::Image(_)))),
        "{b:?}"
    );
}
