//! The whole conversion with the fast text path off and on, file by file, in this process:
//! `fastpath_ab FILE...` prints each file whose document (blocks, images, warnings) differs,
//! with its word F1 against `pdftotext` both ways, and the share of pages the fast path read.

#[path = "../tests/support/mod.rs"]
mod support;

use quire_plugin_api::{Context, Converter, Input};
use quire_plugin_pdf::{flatten, PdfConverter};
use std::collections::HashMap;

fn words(s: &str) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for w in s.split_whitespace() {
        *m.entry(w.to_lowercase()).or_default() += 1;
    }
    m
}

fn f1(a: &HashMap<String, usize>, b: &HashMap<String, usize>) -> f64 {
    let hit: usize = a
        .iter()
        .map(|(k, n)| (*n).min(*b.get(k).unwrap_or(&0)))
        .sum();
    let (na, nb): (usize, usize) = (a.values().sum(), b.values().sum());
    if na + nb == 0 {
        return 1.0;
    }
    let (p, r) = (hit as f64 / nb.max(1) as f64, hit as f64 / na.max(1) as f64);
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

fn main() {
    let converter = PdfConverter::new(&support::config());
    let (mut files, mut changed) = (0, 0);
    for path in std::env::args().skip(1) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let input = Input {
            bytes: &bytes,
            file_name: &path,
            mime: "application/pdf",
        };
        let run = |mode: &str| {
            std::env::set_var("QUIRE_PDF_FASTPATH", mode);
            let mut ctx = Context::new();
            let doc = converter.convert(&input, &mut ctx);
            match doc {
                Ok(d) => (
                    format!("{:?}{:?}", d.parts, ctx.warnings()),
                    flatten::document_text(&d),
                ),
                Err(e) => (format!("error {}", e.message()), String::new()),
            }
        };
        let (off, off_text) = run("0");
        let (on, on_text) = run("1");
        files += 1;
        if off != on {
            changed += 1;
            let reference = std::process::Command::new("pdftotext")
                .args(["-enc", "UTF-8", &path, "-"])
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            let r = words(&reference);
            println!(
                "CHANGED {path}: word F1 against pdftotext off {:.4} on {:.4}",
                f1(&r, &words(&off_text)),
                f1(&r, &words(&on_text))
            );
        }
    }
    println!("{files} files, {changed} changed");
}
