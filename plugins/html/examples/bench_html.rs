//! Times the converter on every `html` file of the shared corpus: the median of 3 runs per
//! file, then the median over files (the figure compared with markitdown's per-file median).
//!
//! `cargo run --release -p quire-plugin-html --example bench_html [CORPUS_DIR] [RUNS]`

use quire_plugin_api::{Context, Converter, Input};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
    });
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
    let dir = corpus.join("html");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("no corpus folder at {}", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let converter = quire_plugin_html::HtmlConverter;
    let mut medians = Vec::new();
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| {
                let input = Input {
                    bytes: &bytes,
                    file_name: name,
                    mime: "text/html",
                };
                let started = Instant::now();
                let result = converter.convert(&input, &mut Context::new());
                let elapsed = started.elapsed();
                std::hint::black_box(result.is_ok());
                elapsed
            })
            .collect();
        times.sort();
        let median = times[times.len() / 2];
        println!(
            "{:>10.3} ms  {:>9} B  {name}",
            median.as_secs_f64() * 1e3,
            bytes.len()
        );
        medians.push(median);
    }
    if medians.is_empty() {
        return;
    }
    medians.sort();
    let total: Duration = medians.iter().sum();
    println!(
        "html: {} files, median {:.3} ms per file, max {:.3} ms, total {:.3} ms",
        medians.len(),
        medians[medians.len() / 2].as_secs_f64() * 1e3,
        medians[medians.len() - 1].as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
}
