//! Documents embedded in others (`w:altChunk` in DOCX) converted through the host's hook
//! (`Context::convert_embedded`), end to end through the engine.
#![cfg(all(feature = "docx", feature = "html"))]

use quire::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat};
use quire_plugin_api::Block;
use std::io::Write;

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

fn para(text: &str) -> String {
    format!("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>")
}

/// A DOCX as html-docx-js writes one: the body is an HTML altChunk (here between two
/// paragraphs of the document itself).
fn html_docx(body: &str, chunk_name: &str, chunk: &[u8]) -> Vec<u8> {
    let content_types = r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="htm" ContentType="application/xhtml+xml"/><Default Extension="mht" ContentType="message/rfc822"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;
    let pkg_rels = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/word/document.xml"/></Relationships>"#;
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}" xmlns:r="{R}"><w:body>{body}<w:sectPr/></w:body></w:document>"#
    );
    let doc_rels = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="htmlChunk" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="/word/{chunk_name}"/></Relationships>"#
    );
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    let chunk_path = format!("word/{chunk_name}");
    for (name, data) in [
        ("[Content_Types].xml", content_types.as_bytes()),
        ("_rels/.rels", pkg_rels.as_bytes()),
        ("word/document.xml", document.as_bytes()),
        ("word/_rels/document.xml.rels", doc_rels.as_bytes()),
        (chunk_path.as_str(), chunk),
    ] {
        w.start_file(name, opts).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

const HTML: &str = r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>Export</title></head><body><h1>Quarterly report</h1><ul><li>First point</li><li>Second point</li></ul><table><tr><th>Region</th><th>Sales</th></tr><tr><td>North</td><td>12</td></tr></table></body></html>"#;

fn convert(bytes: &[u8]) -> (Vec<Block>, Vec<String>, String) {
    let engine = Engine::from_inventory().unwrap();
    let req = ConvertRequest {
        bytes,
        file_name: "export.docx",
        format: OutputFormat::Markdown,
        ocr_provider: None,
    };
    let converted = engine
        .convert_document(&req, &mut ConvertControl::default())
        .expect("converts");
    let outcome = engine
        .convert(&req, &mut ConvertControl::default())
        .expect("renders");
    let blocks = converted
        .document
        .parts
        .into_iter()
        .flat_map(|p| p.blocks)
        .collect();
    (
        blocks,
        converted.warnings,
        String::from_utf8(outcome.output).unwrap(),
    )
}

#[test]
fn an_html_chunk_is_converted_in_place() {
    let body = [
        para("Before the chunk"),
        r#"<w:altChunk r:id="htmlChunk"/>"#.into(),
        para("After the chunk"),
    ]
    .concat();
    let (blocks, warnings, markdown) = convert(&html_docx(&body, "afchunk.htm", HTML.as_bytes()));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        blocks.first(),
        Some(&Block::text("Before the chunk")),
        "{blocks:?}"
    );
    assert_eq!(
        blocks.last(),
        Some(&Block::text("After the chunk")),
        "{blocks:?}"
    );
    assert!(
        matches!(&blocks[1], Block::Heading { level: 1, .. }),
        "{blocks:?}"
    );
    assert!(
        matches!(&blocks[2], Block::List(l) if l.items.len() == 2),
        "{blocks:?}"
    );
    assert!(matches!(&blocks[3], Block::Table(_)), "{blocks:?}");
    assert_eq!(blocks.len(), 5, "{blocks:?}");
    let order = [
        "Before the chunk",
        "# Quarterly report",
        "First point",
        "Second point",
        "North",
        "After the chunk",
    ];
    let mut at = 0;
    for s in order {
        let i = markdown[at..]
            .find(s)
            .unwrap_or_else(|| panic!("{s:?} in order in {markdown}"));
        at += i + s.len();
    }
}

#[test]
fn an_mht_chunk_is_converted_like_html_docx_js_writes_it() {
    let mht = format!(
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; boundary=\"----=mhtDocumentPart\"\r\n\r\n------=mhtDocumentPart\r\nContent-Type: text/html; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Location: file:///C:/fake/document.html\r\n\r\n{}\r\n\r\n------=mhtDocumentPart--\r\n",
        HTML.replace('=', "=3D")
    );
    let body = r#"<w:altChunk r:id="htmlChunk"/>"#;
    let (blocks, warnings, _) = convert(&html_docx(body, "afchunk.mht", mht.as_bytes()));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(
        matches!(&blocks[0], Block::Heading { level: 1, .. }),
        "{blocks:?}"
    );
    assert!(matches!(&blocks[1], Block::List(_)), "{blocks:?}");
    assert!(matches!(&blocks[2], Block::Table(_)), "{blocks:?}");
}
