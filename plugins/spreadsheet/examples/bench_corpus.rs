//! Conversion time per corpus file (median of 3 runs), medians per type, and a generated
//! 50,000-row workbook and CSV. Run in release:
//! `cargo run --release -p quire-plugin-spreadsheet --example bench_spreadsheet [CORPUS_DIR]`.

use quire_plugin_api::{Context, Converter, Input};
use quire_plugin_spreadsheet::SpreadsheetConverter;
use std::io::Write;
use std::time::{Duration, Instant};

fn mime_for(ext: &str) -> &'static str {
    match ext {
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsm" => "application/vnd.ms-excel.sheet.macroEnabled.12",
        "xls" => "application/vnd.ms-excel",
        _ => "text/csv",
    }
}

fn time(bytes: &[u8], name: &str, mime: &str, runs: usize) -> (Duration, bool) {
    let mut times = Vec::new();
    let mut ok = true;
    for _ in 0..runs {
        let input = Input {
            bytes,
            file_name: name,
            mime,
        };
        let start = Instant::now();
        let result = SpreadsheetConverter.convert(&input, &mut Context::new());
        times.push(start.elapsed());
        ok = result.is_ok();
        drop(result);
    }
    times.sort();
    (times[times.len() / 2], ok)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    if v.is_empty() {
        Duration::ZERO
    } else {
        v[v.len() / 2]
    }
}

fn big_xlsx(rows: usize) -> Vec<u8> {
    let mut sheet = String::with_capacity(rows * 200);
    sheet.push_str(r#"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#);
    for i in 1..=rows {
        sheet.push_str(&format!(
            r#"<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}" t="inlineStr"><is><t>name {i}</t></is></c><c r="C{i}"><v>{}.5</v></c><c r="D{i}" s="1"><v>{}</v></c><c r="E{i}" t="b"><v>1</v></c></row>"#,
            i * 7,
            40000 + i % 3000
        ));
    }
    sheet.push_str("</sheetData></worksheet>");
    let t = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let entries: Vec<(&str, String)> = vec![
        ("_rels/.rels", format!(r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="{t}/officeDocument" Target="xl/workbook.xml"/></Relationships>"#)),
        ("xl/workbook.xml", format!(r#"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="{t}"><sheets><sheet name="Big" sheetId="1" r:id="rId1"/></sheets></workbook>"#)),
        ("xl/_rels/workbook.xml.rels", format!(r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{t}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rS" Type="{t}/styles" Target="styles.xml"/></Relationships>"#)),
        ("xl/styles.xml", r#"<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>"#.to_owned()),
        ("xl/worksheets/sheet1.xml", sheet),
    ];
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(name, opts).expect("zip");
        w.write_all(data.as_bytes()).expect("zip");
    }
    w.finish().expect("zip").into_inner()
}

fn main() {
    // profiling aid: `QUIRE_BENCH_LOOP=FILE` converts one file 20 times and exits
    if let Some(path) = std::env::var_os("QUIRE_BENCH_LOOP") {
        let bytes = std::fs::read(&path).expect("read");
        let ext = std::path::Path::new(&path)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("xlsx")
            .to_owned();
        let (t, ok) = time(&bytes, "loop", mime_for(&ext), 20);
        println!("median {:.1} ms (ok: {ok})", t.as_secs_f64() * 1e3);
        return;
    }
    if let Some(path) = std::env::var_os("QUIRE_BENCH_WRITE_BIG") {
        std::fs::write(path, big_xlsx(50_000)).expect("write");
        return;
    }
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/work/shared/corpus".into());
    for ext in ["xlsx", "xlsm", "xls", "csv"] {
        let Ok(entries) = std::fs::read_dir(format!("{dir}/{ext}")) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        let mut medians = Vec::new();
        for path in paths {
            let bytes = std::fs::read(&path).expect("read");
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            let (t, ok) = time(&bytes, &name, mime_for(ext), 3);
            println!(
                "{:>9.3} ms  {}{}",
                t.as_secs_f64() * 1e3,
                name,
                if ok { "" } else { "  (error)" }
            );
            medians.push(t);
        }
        println!(
            "== {ext}: median {:.3} ms over {} files\n",
            median(medians.clone()).as_secs_f64() * 1e3,
            medians.len()
        );
    }
    let big = big_xlsx(50_000);
    let (t, ok) = time(&big, "big.xlsx", mime_for("xlsx"), 3);
    println!(
        "50,000-row x 5-column xlsx ({} KB): {:.1} ms (ok: {ok})",
        big.len() / 1024,
        t.as_secs_f64() * 1e3
    );
    let mut csv = String::from("id,name,value,date,flag\n");
    for i in 0..50_000 {
        csv.push_str(&format!(
            "{i},\"name {i}\",{}.5,2024-01-{:02},TRUE\n",
            i * 7,
            i % 28 + 1
        ));
    }
    let (t, ok) = time(csv.as_bytes(), "big.csv", "text/csv", 3);
    println!(
        "50,000-row x 5-column csv ({} KB): {:.1} ms (ok: {ok})",
        csv.len() / 1024,
        t.as_secs_f64() * 1e3
    );
}
