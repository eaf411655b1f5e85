//! Times the converter on every corpus file of its type: median of 3 runs per file, then the
//! median over files (for an even count, the upper of the two middle files).
//!
//! `cargo run --release -p quire-plugin-rtf --example bench_rtf [NAME-FILTER]`;
//! `BENCH_REPEAT=N` changes the runs per file.

use quire_plugin_api::{Context, Input};
use std::path::PathBuf;
use std::time::Instant;

const TYPE: &str = "rtf";
const MIME: &str = "application/rtf";

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(TYPE);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("no corpus at {}", dir.display());
        return;
    };
    let converter = (quire_plugin_rtf::DESCRIPTOR.factory)(&Default::default()).expect("factory");
    // An optional argument keeps only files whose name contains it (for profiling one file).
    let filter = std::env::args().nth(1).unwrap_or_default();
    let mut paths: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(&filter))
        .collect();
    paths.sort();
    let mut medians = Vec::new();
    // The best run per file is printed too: on a busy machine it is the closer estimate.
    let mut bests = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).expect("read");
        let input = Input {
            bytes: &bytes,
            file_name: "",
            mime: MIME,
        };
        let repeat: usize = std::env::var("BENCH_REPEAT")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(3);
        let mut runs: Vec<f64> = (0..repeat.max(1))
            .map(|_| {
                let t = Instant::now();
                let _ = converter.convert(&input, &mut Context::new());
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        let median = runs[runs.len() / 2];
        println!(
            "{median:>9.3} ms  (best {:.3})  {}",
            runs[0],
            path.display()
        );
        medians.push(median);
        bests.push(runs[0]);
    }
    medians.sort_by(f64::total_cmp);
    bests.sort_by(f64::total_cmp);
    if let (Some(m), Some(b)) = (medians.get(medians.len() / 2), bests.get(bests.len() / 2)) {
        println!(
            "{TYPE}: {} files, median {m:.3} ms per file (median of best runs {b:.3} ms)",
            medians.len()
        );
    }
}
