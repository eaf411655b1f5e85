//! Evaluates an OCR provider on a directory of images with `.txt` ground truth (as written by
//! `gen_ocr_images`): CER per image (whitespace folded), mean CER, seconds per image, peak RSS.
//!
//! `cargo run --release -p quire-ocr-ppocr --example ocr_eval -- DIR [--provider ID]
//! [--model-dir PATH] [--show]`. Providers are looked up in the registry, so the same file
//! works in any binary that links more providers.

#[path = "../tests/common/testpages.rs"]
mod testpages;

use quire_ocr_ppocr as _;
use quire_plugin_api::{OcrImage, PluginConfig};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn mime_of(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "tif" | "tiff" => "image/tiff",
        "bmp" => "image/bmp",
        "gif" => "image/gif",
        _ => return None,
    })
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// CPU seconds used by the whole process so far (all threads), from /proc.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name's closing parenthesis; utime and stime are 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut provider_id = "provider_two".to_string();
    let mut show = false;
    let mut config = PluginConfig::default();
    let workspace_models = quire_testkit::runtime_dir().join("models");
    if !config.ocr.model_dir.exists() {
        config.ocr.model_dir = workspace_models;
    }
    while let Some(a) = args.next() {
        match a.as_str() {
            "--provider" => provider_id = args.next().unwrap_or_default(),
            "--model-dir" => config.ocr.model_dir = PathBuf::from(args.next().unwrap_or_default()),
            "--show" => show = true,
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from("target/ocr-pages"));
    let Some(desc) = quire_plugin_api::ocr_provider_descriptors().find(|d| d.id == provider_id)
    else {
        eprintln!("provider {provider_id} is not linked into this binary");
        std::process::exit(2);
    };
    let t = Instant::now();
    let readiness = (desc.readiness)(&config);
    println!(
        "{}: {} ({:.2} s)",
        desc.id,
        readiness.detail,
        t.elapsed().as_secs_f64()
    );
    let provider = match (desc.factory)(&config) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot build {provider_id}: {e} ({:?})", e.detail());
            std::process::exit(1);
        }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let (mut cers, mut times, mut cpus) = (Vec::new(), Vec::new(), Vec::new());
    for path in files {
        let (Some(mime), truth) = (mime_of(&path), path.with_extension("txt")) else {
            continue;
        };
        let Ok(reference) = std::fs::read_to_string(&truth) else {
            continue;
        };
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        let t = Instant::now();
        let cpu0 = cpu_seconds();
        let result = provider.recognize(&OcrImage {
            data: &data,
            mime,
            dpi: None,
        });
        let secs = t.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu0;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match result {
            Ok(out) => {
                let cer = testpages::cer(&reference, &out.text);
                println!(
                    "{name:<26} CER {:>6.2}%  {secs:>5.2} s  (CPU {cpu:.2} s)",
                    cer * 100.0
                );
                if show {
                    println!("---\n{}\n---", out.text);
                }
                cers.push(cer);
                times.push(secs);
                cpus.push(cpu);
            }
            Err(e) => println!("{name:<24} FAILED: {e} ({:?})", e.detail()),
        }
    }
    if cers.is_empty() {
        println!("no image with ground truth in {}", dir.display());
        return;
    }
    times.sort_by(f64::total_cmp);
    println!(
        "mean CER {:.2}% over {} images; {:.2} s/image mean, {:.2} s median; \
         CPU {:.2} s/image; peak RSS {:.0} MB",
        cers.iter().sum::<f64>() / cers.len() as f64 * 100.0,
        cers.len(),
        times.iter().sum::<f64>() / times.len() as f64,
        times[times.len() / 2],
        cpus.iter().sum::<f64>() / cpus.len() as f64,
        peak_rss_mb().unwrap_or(0.0)
    );
}
