//! Conversion time per corpus file (median of 3 runs) and medians per type. Run in release:
//! `cargo run --release -p quire-plugin-pptx --example bench_pptx [CORPUS_DIR]`.

use quire_plugin_api::{Context, Converter, Input};
use quire_plugin_pptx::PptxConverter;
use std::time::{Duration, Instant};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/work/shared/corpus".into());
    let mut all = Vec::new();
    for ext in ["pptx", "pptm", "potx", "potm"] {
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
            let mut times = Vec::new();
            let mut ok = true;
            for _ in 0..3 {
                let input = Input {
                    bytes: &bytes,
                    file_name: &name,
                    mime:
                        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                };
                let start = Instant::now();
                let result = PptxConverter.convert(&input, &mut Context::new());
                times.push(start.elapsed());
                ok = result.is_ok();
            }
            times.sort();
            let t = times[1];
            println!(
                "{:>9.3} ms  {name}{}",
                t.as_secs_f64() * 1e3,
                if ok { "" } else { "  (error)" }
            );
            medians.push(t);
        }
        all.extend(medians.iter().copied());
        medians.sort();
        let m = medians
            .get(medians.len() / 2)
            .copied()
            .unwrap_or(Duration::ZERO);
        println!(
            "== {ext}: median {:.3} ms over {} files\n",
            m.as_secs_f64() * 1e3,
            medians.len()
        );
    }
    all.sort();
    let m = all.get(all.len() / 2).copied().unwrap_or(Duration::ZERO);
    println!(
        "== all presentation types: median {:.3} ms over {} files",
        m.as_secs_f64() * 1e3,
        all.len()
    );
}
