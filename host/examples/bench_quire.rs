//! Times quire's library path (detect → convert → images → render) on every corpus file of the
//! chosen types, single-threaded, median of N runs per file, and writes a CSV that
//! `scripts/bench-corpus.sh` puts beside the peers' figures.
//!
//! Usage: bench_quire CORPUS_DIR OUT_CSV [--types pdf,docx] [--runs 3] [--format md|json]

use quire::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat};
use quire::registry::Registry;
use quire_plugin_api::PluginConfig;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!(
            "usage: bench_quire CORPUS_DIR OUT_CSV [--types a,b] [--runs N] [--format md|json]"
        );
        return std::process::ExitCode::from(2);
    }
    let corpus = PathBuf::from(&args[1]);
    let out = PathBuf::from(&args[2]);
    let mut types: Option<Vec<String>> = None;
    let mut runs = 3usize;
    let mut format = OutputFormat::Markdown;
    let mut i = 3;
    while i + 1 < args.len() {
        match args[i].as_str() {
            "--types" => types = Some(args[i + 1].split(',').map(str::to_owned).collect()),
            "--runs" => runs = args[i + 1].parse().unwrap_or(3).max(1),
            "--format" => format = OutputFormat::parse(&args[i + 1]).unwrap_or(format),
            _ => {}
        }
        i += 2;
    }
    let root = quire_testkit::workspace();
    let mut config = PluginConfig {
        runtime_dir: root.join("vendor-runtime"),
        ..PluginConfig::default()
    };
    config.ocr.model_dir = root.join("vendor-runtime/models");
    let engine = Engine::new(Registry::from_inventory().expect("registry"), config);
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&corpus).expect("corpus dir").flatten() {
        let name = dir.file_name().to_string_lossy().into_owned();
        if !dir.path().is_dir() || name == "groundtruth" || name == "bad" {
            continue;
        }
        if types.as_ref().is_some_and(|t| !t.contains(&name)) {
            continue;
        }
        for f in std::fs::read_dir(dir.path()).expect("type dir").flatten() {
            files.push((name.clone(), f.path()));
        }
    }
    files.sort();
    let mut csv = std::fs::File::create(&out).expect("create csv");
    writeln!(
        csv,
        "file,type,bytes,peer,seconds,seconds_min,exit_ok,out_bytes,error"
    )
    .unwrap();
    for (kind, path) in files {
        let bytes = std::fs::read(&path).expect("read");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut times = Vec::new();
        let mut result = Ok(0usize);
        for _ in 0..runs {
            let req = ConvertRequest {
                bytes: &bytes,
                file_name: &name,
                format,
                ocr_provider: None,
            };
            let t0 = Instant::now();
            let r = engine.convert(&req, &mut ConvertControl::default());
            times.push(t0.elapsed().as_secs_f64());
            result = r
                .map(|o| o.output.len())
                .map_err(|e| e.message().replace(['"', ','], " "));
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = times[times.len() / 2];
        let rel = path
            .strip_prefix(&corpus)
            .unwrap_or(&path)
            .display()
            .to_string();
        let (ok, out_bytes, err) = match &result {
            Ok(n) => (1, *n, String::new()),
            Err(e) => (0, 0, e.clone()),
        };
        writeln!(
            csv,
            "{rel},{kind},{},quire-lib,{median:.6},{:.6},{ok},{out_bytes},\"{err}\"",
            bytes.len(),
            times[0]
        )
        .unwrap();
    }
    std::process::ExitCode::SUCCESS
}
