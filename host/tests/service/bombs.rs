//! Decompression bombs are refused while inflating, at `MAX_DECOMPRESSED_SIZE`, so the
//! conversion child never grows past twice that limit; a child that grew past
//! `CONVERSION_CHILD_MAX_RSS` is replaced after its job.

use crate::faults::{remote, spawn};
use crate::recovery::children_of;
use crate::support::*;
use std::io::Write;
use std::time::Duration;

const LIMIT: u64 = 64 << 20;

/// A process's peak resident set (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}
/// What each bomb inflates to: eight times the limit.
const BOMB: usize = 512 << 20;

/// Writes `prefix`, `BOMB` spaces and `suffix` through `out` in 1 MiB steps.
fn spaces(out: &mut impl Write, prefix: &[u8], suffix: &[u8]) {
    out.write_all(prefix).unwrap();
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..BOMB >> 20 {
        out.write_all(&chunk).unwrap();
    }
    out.write_all(suffix).unwrap();
}

fn zip_bomb(parts: &[(&str, &[u8])], bomb_part: &str, prefix: &[u8], suffix: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9));
    for (name, body) in parts {
        zip.start_file(*name, options).unwrap();
        zip.write_all(body).unwrap();
    }
    zip.start_file(bomb_part, options.large_file(false))
        .unwrap();
    spaces(&mut zip, prefix, suffix);
    zip.finish().unwrap().into_inner()
}

fn docx_bomb() -> Vec<u8> {
    zip_bomb(
        &[
            ("[Content_Types].xml", br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#),
            ("_rels/.rels", br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#),
        ],
        "word/document.xml",
        br#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>"#,
        b"</w:t></w:r></w:p></w:body></w:document>",
    )
}

fn xlsx_bomb() -> Vec<u8> {
    zip_bomb(
        &[
            ("[Content_Types].xml", br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#),
            ("_rels/.rels", br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#),
            ("xl/workbook.xml", br#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#),
            ("xl/_rels/workbook.xml.rels", br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#),
        ],
        "xl/worksheets/sheet1.xml",
        br#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>"#,
        b"</t></is></c></row></sheetData></worksheet>",
    )
}

/// A one-page PDF whose content stream inflates to `BOMB` bytes.
fn pdf_bomb() -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    spaces(&mut z, b"BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n", b"\n");
    let stream = z.finish().unwrap();
    let objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_vec(),
        {
            let mut o = format!("<< /Length {} /Filter /FlateDecode >>\nstream\n", stream.len())
                .into_bytes();
            o.extend_from_slice(&stream);
            o.extend_from_slice(b"\nendstream");
            o
        },
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    pdf_of_objects(&objects)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bombs_are_refused_at_the_decompressed_size_limit() {
    for (name, bytes) in [
        ("bomb.docx", docx_bomb()),
        ("bomb.xlsx", xlsx_bomb()),
        ("bomb.pdf", pdf_bomb()),
    ] {
        // A fresh process per bomb, its child kept between jobs (no memory threshold) so its
        // peak can be read after the refusal.
        let dir = tempfile::tempdir().unwrap();
        let config = test_config(StoreKind::Embedded, dir.path());
        let env = [
            ("WORKERS", "1".to_string()),
            ("MAX_DECOMPRESSED_SIZE", LIMIT.to_string()),
            ("CONVERSION_CHILD_MAX_RSS", (8u64 << 30).to_string()),
            ("CONVERSION_TIMEOUT", "60".to_string()),
        ];
        let mut serve = spawn("serve", dir.path(), &env);
        let s = remote(serve.addr.as_deref().unwrap(), dir, config);
        let id = s.create(name, &bytes, "md").await;
        let job = s.wait_final(&id, Duration::from_secs(120)).await;
        assert_eq!(job["status"], "failed", "{name}: {job}");
        assert_eq!(
            job["metadata"]["error_kind"], "limit_exceeded",
            "{name}: {job}"
        );
        let children = children_of(serve.child.id());
        assert_eq!(children.len(), 1, "{name}: the child survives a refusal");
        let peak = peak_rss(children[0]);
        eprintln!(
            "bomb {name}: {} KB inflating to {} MB refused in {} ms: \"{}\"; child peak RSS {} MB (limit {} MB)",
            bytes.len() >> 10,
            BOMB >> 20,
            job["metadata"]["elapsed_ms"],
            job["error_message"].as_str().unwrap(),
            peak >> 20,
            LIMIT >> 20
        );
        assert!(peak < 2 * LIMIT, "{name}: child peak {} MB", peak >> 20);
        serve.term();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_grew_past_the_threshold_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let env = [
        ("WORKERS", "1".to_string()),
        ("CONVERSION_CHILD_MAX_RSS", (64u64 << 20).to_string()),
    ];
    let mut serve = spawn("serve", dir.path(), &env);
    let s = remote(serve.addr.as_deref().unwrap(), dir, config);
    // A small job: the child stays.
    let id = s.create("small.txt", b"small", "md").await;
    assert_eq!(
        s.wait_final(&id, Duration::from_secs(60)).await["status"],
        "completed"
    );
    let first = children_of(serve.child.id());
    assert_eq!(first.len(), 1);
    // A 30 MB text conversion grows the child past 64 MB (the input and the document model,
    // about 60 MB, over an idle child's ~30 MB): it is replaced after the job.
    let big = vec![b'a'; 30 << 20];
    let id = s.create("big.txt", &big, "md").await;
    assert_eq!(
        s.wait_final(&id, Duration::from_secs(120)).await["status"],
        "completed"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = children_of(serve.child.id());
    assert!(
        !after.contains(&first[0]),
        "the grown child {} still serves",
        first[0]
    );
    serve.term();
}
