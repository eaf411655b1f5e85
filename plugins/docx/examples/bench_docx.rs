//! Times the converter on every DOCX of the shared corpus: the median of 3 runs per file,
//! then the median and maximum over files. Run in release:
//! `cargo run --release -p quire-plugin-docx --example bench_docx [DIR]`.
//! markitdown's in-process median on the same files on the reference machine is 108 ms; the
//! target is at least 20x faster (5.4 ms).

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| quire_testkit::workspace().join("../shared/corpus/docx"));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("no corpus at {}", dir.display());
        std::process::exit(1);
    };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    let mut medians = Vec::new();
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let mut runs = Vec::new();
        let mut outcome = String::new();
        for _ in 0..3 {
            let mut ctx = quire_plugin_api::Context::new();
            let start = Instant::now();
            let result = quire_plugin_docx::convert(&bytes, &mut ctx);
            runs.push(start.elapsed().as_secs_f64() * 1000.0);
            outcome = match result {
                Ok(doc) => format!(
                    "ok, {} blocks",
                    doc.parts.first().map_or(0, |p| p.blocks.len())
                ),
                Err(e) => format!("error: {}", e.message()),
            };
        }
        runs.sort_by(f64::total_cmp);
        let median = runs[1];
        medians.push(median);
        println!(
            "{median:8.3} ms  {:>9} B  {}  ({outcome})",
            bytes.len(),
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        );
    }
    if medians.is_empty() {
        return;
    }
    medians.sort_by(f64::total_cmp);
    let median = medians[medians.len() / 2];
    let max = medians[medians.len() - 1];
    println!(
        "{} files: median {median:.3} ms, max {max:.3} ms ({:.0}x faster than markitdown's 108 ms median)",
        medians.len(),
        108.0 / median
    );
}
