//! Evaluation of the PDF converter on the shared corpus, side by side with `pdftotext`.
//!
//! `cargo run --release -p quire-plugin-pdf --example pdf_bench [-- --ocr] [--dump FILE]`
//!
//! Speed only: `-- --time [--reps N] FILE...` (text-only conversion in process against
//! pdftotext, interleaved, best of N), `-- --synthetic N [--write FILE]` (N generated pages of
//! two-column text, timed beside pdftotext, or written out).
//!
//! Per file: pages, our time (full conversion, and text only with images off), pdftotext's
//! time, word F1 and word-bigram F1 (reading-order proxy) against pdftotext, and against
//! docling's ground truth where there is one; heading precision/recall against the ground
//! truth's `#` lines; expectation records met. Single-threaded, one file at a time.

#[path = "../tests/support/mod.rs"]
mod support;

use quire_plugin_api::{Block, Context, Converter, Input, Limits};
use quire_plugin_pdf::{flatten, PdfConverter};
use std::process::Command;
use std::time::Instant;
use support::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let use_ocr = args.iter().any(|a| a == "--ocr");
    let converter = PdfConverter::new(&config());
    let ocr = TesseractCli;
    if let Some(i) = args.iter().position(|a| a == "--time") {
        time_files(&converter, &args[i + 1..]);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--synthetic") {
        // A long generated document: pages of two-column text, for speed and memory.
        let n: usize = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(500);
        let bytes = synthetic(n);
        if let Some(out) = args
            .iter()
            .position(|a| a == "--write")
            .and_then(|j| args.get(j + 1))
        {
            std::fs::write(out, &bytes).expect("write the synthetic PDF");
            return;
        }
        let input = Input {
            bytes: &bytes,
            file_name: "synthetic.pdf",
            mime: "application/pdf",
        };
        let t = Instant::now();
        let doc = converter
            .convert(&input, &mut Context::new())
            .expect("convert");
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        println!(
            "{n} pages, {} bytes of PDF, {} bytes of text: {ms:.0} ms = {:.0} pages/s",
            bytes.len(),
            flatten::document_text(&doc).len(),
            n as f64 / ms * 1000.0
        );
        // pdftotext on the same file, in the same run, process start included.
        let path = std::env::temp_dir().join(format!("quire-synthetic-{n}.pdf"));
        std::fs::write(&path, &bytes).expect("write the synthetic PDF");
        let t = Instant::now();
        let ok = Command::new("pdftotext")
            .arg(&path)
            .arg("/dev/null")
            .status()
            .is_ok_and(|s| s.success());
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let _ = std::fs::remove_file(&path);
        if ok {
            println!(
                "pdftotext: {ms:.0} ms = {:.0} pages/s",
                n as f64 / ms * 1000.0
            );
        }
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        let bytes = std::fs::read(&args[i + 1]).expect("read file");
        match quire_plugin_pdf::debug_runs(&config(), &bytes) {
            Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
            Err(e) => println!("error: {e}"),
        }
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--dump") {
        let path = &args[i + 1];
        let bytes = std::fs::read(path).expect("read file");
        let mut ctx = Context::new();
        if use_ocr {
            ctx = ctx.with_ocr("tesseract-cli", &ocr);
        }
        let input = Input {
            bytes: &bytes,
            file_name: path,
            mime: "application/pdf",
        };
        match converter.convert(&input, &mut ctx) {
            Ok(doc) => {
                println!("{:#?}", doc.metadata);
                for part in &doc.parts {
                    println!("=== page {}", part.number);
                    for b in &part.blocks {
                        print_block(b);
                    }
                }
                println!("warnings: {:?}", ctx.warnings());
            }
            Err(e) => println!("error: {e} ({:?}) {:?}", e.kind(), e.detail()),
        }
        return;
    }
    let dir = corpus_dir().join("pdf");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/pdf")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    files.sort();
    let expectations = expectations("pdf");
    let (mut ours_total, mut text_total, mut p2t_total) = (0.0f64, 0.0f64, 0.0f64);
    let mut pages_total = 0u64;
    let (mut f1s, mut gt_f1s, mut gt_bi) = (Vec::new(), Vec::new(), Vec::new());
    let mut p2t_gt: Vec<(f64, f64, String)> = Vec::new();
    let (mut converted, mut failed) = (0, Vec::new());
    let (mut h_hit_p, mut h_ours, mut h_hit_r, mut h_gt) = (0, 0, 0, 0);
    let (mut exp_ok, mut exp_n) = (0, 0);
    let mut rows = Vec::new();
    println!(
        "{:<55} {:>5} {:>8} {:>8} {:>8} {:>6} {:>6} {:>6} {:>6}",
        "file", "pages", "ours ms", "text ms", "p2t ms", "F1p2t", "bi", "F1gt", "bi-gt"
    );
    for path in &files {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let bytes = std::fs::read(path).expect("read");
        let input = Input {
            bytes: &bytes,
            file_name: &name,
            mime: "application/pdf",
        };
        // Full conversion.
        let mut ctx = Context::new();
        if use_ocr {
            ctx = ctx.with_ocr("tesseract-cli", &ocr);
        }
        let t = Instant::now();
        let result = converter.convert(&input, &mut ctx);
        let ours_ms = t.elapsed().as_secs_f64() * 1000.0;
        // Text only (images not decoded), no OCR.
        let mut ctx_text = Context::new().with_limits(Limits {
            max_images: 0,
            ..Limits::default()
        });
        // Best of three runs each, for ours (text only) and pdftotext: the machine is shared.
        let mut text_ms = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            let _ = converter.convert(&input, &mut ctx_text);
            text_ms = text_ms.min(t.elapsed().as_secs_f64() * 1000.0);
        }
        // pdftotext.
        let mut p2t = None;
        let mut p2t_ms = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            p2t = Some(
                Command::new("pdftotext")
                    .args(["-enc", "UTF-8"])
                    .arg(path)
                    .arg("-")
                    .output(),
            );
            p2t_ms = p2t_ms.min(t.elapsed().as_secs_f64() * 1000.0);
        }
        let p2t = p2t.expect("ran");
        let p2t_text = p2t
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let doc = match result {
            Ok(doc) => doc,
            Err(e) => {
                println!("{name:<55} ERROR {} ({:?})", e, e.detail());
                failed.push((name.clone(), e.to_string()));
                continue;
            }
        };
        converted += 1;
        let pages = doc.parts.len() as u64;
        pages_total += pages;
        ours_total += ours_ms;
        text_total += text_ms;
        p2t_total += p2t_ms;
        let text = flatten::document_text(&doc);
        let (f1, bi) = match &p2t_text {
            // Files where pdftotext finds no words are scans: nothing to compare.
            Some(r) if !tokens(r).is_empty() => {
                let s = scores(&text, r);
                f1s.push((s.0, name.clone()));
                s
            }
            _ => (f64::NAN, f64::NAN),
        };
        let stem = name.trim_end_matches(".pdf");
        let gt_path = corpus_dir()
            .join("groundtruth/pdf")
            .join(format!("{stem}.md"));
        let (mut gf, mut gb) = (f64::NAN, f64::NAN);
        if let Ok(md) = std::fs::read_to_string(&gt_path) {
            let s = scores(&text, &strip_markdown(&md));
            gf = s.0;
            gb = s.1;
            gt_f1s.push((gf, name.clone()));
            gt_bi.push(gb);
            // pdftotext against the same ground truth: the reading-order bar to meet.
            if let Some(r) = &p2t_text {
                let p = scores(r, &strip_markdown(&md));
                p2t_gt.push((p.0, p.1, name.clone()));
            }
            let gt_heads = markdown_headings(&md);
            let ours_heads: Vec<String> = doc
                .parts
                .iter()
                .flat_map(|p| &p.blocks)
                .filter_map(|b| match b {
                    Block::Heading { .. } => {
                        let mut s = String::new();
                        let part = quire_plugin_api::Part {
                            blocks: vec![b.clone()],
                            ..quire_plugin_api::Part::page(1)
                        };
                        s.push_str(&flatten::part_text(&part));
                        Some(s)
                    }
                    _ => None,
                })
                .collect();
            h_gt += gt_heads.len();
            h_ours += ours_heads.len();
            h_hit_r += gt_heads
                .iter()
                .filter(|g| ours_heads.iter().any(|o| same_heading(o, g)))
                .count();
            h_hit_p += ours_heads
                .iter()
                .filter(|o| gt_heads.iter().any(|g| same_heading(o, g)))
                .count();
            if args.iter().any(|a| a == "--heads") {
                println!("  GT heads: {gt_heads:?}\n  our heads: {ours_heads:?}");
            }
        }
        let folded = quire_plugin_api::text::fold_whitespace(&text);
        for (file, inc, exc) in &expectations {
            if file.ends_with(&name) {
                exp_n += 1;
                let missing: Vec<&String> = inc
                    .iter()
                    .filter(|s| !folded.contains(&quire_plugin_api::text::fold_whitespace(s)))
                    .collect();
                let present: Vec<&String> =
                    exc.iter().filter(|s| folded.contains(s.as_str())).collect();
                if missing.is_empty() && present.is_empty() {
                    exp_ok += 1;
                } else {
                    rows.push(format!(
                        "EXPECTATION {name}: missing {missing:?} unexpected {present:?}"
                    ));
                }
            }
        }
        println!(
            "{name:<55} {pages:>5} {ours_ms:>8.1} {text_ms:>8.1} {p2t_ms:>8.1} {f1:>6.3} {bi:>6.3} {gf:>6.3} {gb:>6.3}"
        );
    }
    for r in rows {
        println!("{r}");
    }
    let mean = |v: &[(f64, String)]| v.iter().map(|x| x.0).sum::<f64>() / v.len().max(1) as f64;
    println!();
    println!(
        "converted {converted}/{} files; failures: {failed:?}",
        files.len()
    );
    println!(
        "pages {pages_total}; ours (full) {:.0} ms = {:.0} pages/s; text only {:.0} ms = {:.0} pages/s; pdftotext {:.0} ms = {:.0} pages/s",
        ours_total,
        pages_total as f64 / ours_total * 1000.0,
        text_total,
        pages_total as f64 / text_total * 1000.0,
        p2t_total,
        pages_total as f64 / p2t_total * 1000.0
    );
    println!(
        "word F1 vs pdftotext: mean {:.3} over {} files",
        mean(&f1s),
        f1s.len()
    );
    let mut worst = f1s.clone();
    worst.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!("worst vs pdftotext: {:?}", &worst[..worst.len().min(8)]);
    println!(
        "word F1 vs ground truth: mean {:.3} over {} files; bigram {:.3}; {:?}",
        mean(&gt_f1s),
        gt_f1s.len(),
        gt_bi.iter().sum::<f64>() / gt_bi.len().max(1) as f64,
        gt_f1s
    );
    println!(
        "pdftotext vs ground truth: word F1 {:.3}, bigram {:.3}; per file (F1, bigram): {:?}",
        p2t_gt.iter().map(|x| x.0).sum::<f64>() / p2t_gt.len().max(1) as f64,
        p2t_gt.iter().map(|x| x.1).sum::<f64>() / p2t_gt.len().max(1) as f64,
        p2t_gt
    );
    println!(
        "headings vs ground truth: recall {}/{} = {:.2}, precision {}/{} = {:.2}",
        h_hit_r,
        h_gt,
        h_hit_r as f64 / h_gt.max(1) as f64,
        h_hit_p,
        h_ours,
        h_hit_p as f64 / h_ours.max(1) as f64
    );
    println!("expectations met: {exp_ok}/{exp_n}");
}

/// `n` pages of two-column text with a heading each.
fn synthetic(n: usize) -> Vec<u8> {
    let pages: Vec<support::pdfgen::Page> = (0..n)
        .map(|p| {
            let mut page = support::pdfgen::Page::default();
            page.texts.push(support::pdfgen::text(
                72.0,
                740.0,
                16.0,
                &format!("Section {p}"),
            ));
            for l in 0..45 {
                for (x, side) in [(72.0, "left"), (320.0, "right")] {
                    page.texts.push(support::pdfgen::text(
                        x,
                        700.0 - l as f32 * 14.0,
                        10.0,
                        &format!("The {side} column line {l} of page {p} has words"),
                    ));
                }
            }
            page
        })
        .collect();
    support::pdfgen::pdf(&pages, None)
}

/// `--time [--reps N] FILE...`: text-only conversion in this process (images off, no OCR)
/// and `pdftotext` (a process per run) on each file, interleaved run by run; best of N each.
fn time_files(converter: &PdfConverter, args: &[String]) {
    let mut reps = 5;
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--reps" {
            reps = it.next().and_then(|s| s.parse().ok()).unwrap_or(reps);
        } else {
            files.push(a.clone());
        }
    }
    let (mut pages_total, mut ours_total, mut p2t_total) = (0usize, 0.0f64, 0.0f64);
    println!(
        "{:<50} {:>5} {:>9} {:>9} {:>9} {:>9} {:>6}",
        "file", "pages", "ours ms", "p2t ms", "ours p/s", "p2t p/s", "ratio"
    );
    for path in &files {
        let bytes = std::fs::read(path).expect("read file");
        let input = Input {
            bytes: &bytes,
            file_name: path,
            mime: "application/pdf",
        };
        let (mut ours, mut p2t, mut pages) = (f64::MAX, f64::MAX, 0);
        for _ in 0..reps {
            let mut ctx = Context::new().with_limits(Limits {
                max_images: 0,
                ..Limits::default()
            });
            let t = Instant::now();
            if let Ok(doc) = converter.convert(&input, &mut ctx) {
                pages = doc.parts.len();
            }
            ours = ours.min(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let _ = Command::new("pdftotext")
                .args(["-enc", "UTF-8"])
                .arg(path)
                .arg("/dev/null")
                .stderr(std::process::Stdio::null())
                .status();
            p2t = p2t.min(t.elapsed().as_secs_f64() * 1000.0);
        }
        let name = std::path::Path::new(path)
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        println!(
            "{name:<50} {pages:>5} {ours:>9.1} {p2t:>9.1} {:>9.0} {:>9.0} {:>6.2}",
            pages as f64 / ours * 1000.0,
            pages as f64 / p2t * 1000.0,
            p2t / ours
        );
        pages_total += pages;
        ours_total += ours;
        p2t_total += p2t;
    }
    if files.len() > 1 {
        println!(
            "{:<50} {pages_total:>5} {ours_total:>9.1} {p2t_total:>9.1} {:>9.0} {:>9.0} {:>6.2}",
            "total",
            pages_total as f64 / ours_total * 1000.0,
            pages_total as f64 / p2t_total * 1000.0,
            p2t_total / ours_total
        );
    }
}

fn print_block(b: &Block) {
    match b {
        Block::Heading { level, .. } => println!("H{level}: {}", text_of(b)),
        Block::Paragraph(_) => println!("P: {}", text_of(b)),
        Block::List(l) => {
            for item in &l.items {
                for ib in &item.blocks {
                    println!("  {} {}", if l.ordered { "1." } else { "-" }, text_of(ib));
                }
            }
        }
        Block::Table(t) => {
            println!("TABLE {} rows (header {})", t.rows.len(), t.header_rows);
            println!("{}", text_of(b));
        }
        Block::Image(i) => println!(
            "IMAGE {} {} {}x{} {} bytes skipped={:?} ocr={:?}",
            i.name,
            i.mime,
            i.width.unwrap_or(0),
            i.height.unwrap_or(0),
            i.data.len(),
            i.skipped,
            i.ocr_text
        ),
        other => println!("{other:?}"),
    }
}

fn text_of(b: &Block) -> String {
    let part = quire_plugin_api::Part {
        blocks: vec![b.clone()],
        ..quire_plugin_api::Part::page(1)
    };
    flatten::part_text(&part)
}
