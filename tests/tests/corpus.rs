//! The shared corpus through the library path: detection, conversion, image rules, rendering.
//!
//! - `expectations`: every record of `expectations.jsonl` whose type this build supports is
//!   checked against the Markdown output, whitespace folded; what a Markdown reader sees
//!   (escapes resolved, emphasis markers gone, links shown as their text) also counts. Files
//!   the manifest marks as needing OCR run once per local OCR provider that is ready. A rate
//!   per type is printed and must reach the acceptance bar (PDF 90%, everything else 95%).
//! - `every_file_ends_cleanly`: every corpus file, `bad/` included, ends in an output or a
//!   clear error, in both formats, within a time limit and without a panic; every JSON output
//!   validates against the published schema of its kind.
//!
//! The corpus is found at `QUIRE_CORPUS` or `../shared/corpus` beside the workspace; when it is
//! absent the tests say so and pass, since the repository carries no third-party files.

use quire::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat};
use quire::registry::Registry;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);

use quire_tests::{corpus, workspace};

fn engine() -> Arc<Engine> {
    static ENGINE: OnceLock<Arc<Engine>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            let registry = Registry::from_inventory().expect("registry");
            Arc::new(Engine::new(registry, quire_tests::plugin_config()))
        })
        .clone()
}

#[derive(Debug)]
enum Outcome {
    Output(Vec<u8>),
    Error(String),
    Panicked(String),
    TimedOut,
}

static RUN_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn run(path: &Path, format: OutputFormat, ocr: Option<&'static str>) -> Outcome {
    let bytes = std::fs::read(path).expect("read corpus file");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let thread_name = format!(
        "corpus:{}:{}",
        RUN_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        path.display()
    );
    let engine = engine();
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(thread_name)
        .stack_size(16 << 20)
        .spawn(move || {
            let req = ConvertRequest {
                bytes: &bytes,
                file_name: &name,
                format,
                ocr_provider: ocr,
            };
            let mut control = ConvertControl {
                deadline: Some(Instant::now() + TIMEOUT),
                ..ConvertControl::default()
            };
            let r = engine.convert(&req, &mut control);
            let _ = tx.send(r.map(|o| o.output).map_err(|e| e.message().to_owned()));
        })
        .expect("spawn");
    match rx.recv_timeout(TIMEOUT + Duration::from_secs(10)) {
        // A panic that escapes a converter is caught by the pipeline, which says so.
        Ok(Err(msg)) if msg.contains(quire::pipeline::PANIC_MESSAGE) => Outcome::Panicked(msg),
        Ok(Ok(out)) => Outcome::Output(out),
        Ok(Err(msg)) => Outcome::Error(msg),
        Err(_) => Outcome::TimedOut,
    }
}

fn fold(s: &str) -> String {
    quire_plugin_api::text::fold_whitespace(s)
}

/// What a Markdown reader shows: backslash escapes resolved (`\*` reads as `*`), emphasis
/// markers gone (`**X**` reads as `X`), links shown as their text (`[Mallard](/wiki/Mallard)`
/// reads as `Mallard`) and table cells side by side (`| 1.5 | 2.0 |` reads as `1.5 2.0`).
fn reader_view(md: &str) -> String {
    // A table reads row by row, its cells side by side: the pipes between cells and the
    // delimiter row are layout, as emphasis markers are (an escaped `\|` stays a character).
    let mut rows = String::with_capacity(md.len());
    for line in md.lines() {
        if line.trim_start().starts_with('|') {
            if line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
                continue;
            }
            let mut prev = ' ';
            for c in line.chars() {
                rows.push(if c == '|' && prev != '\\' { ' ' } else { c });
                prev = c;
            }
        } else {
            rows.push_str(line);
        }
        rows.push('\n');
    }
    let chars: Vec<char> = rows.chars().collect();
    let mut out = String::with_capacity(md.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) {
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if c == ']' && chars.get(i + 1) == Some(&'(') {
            // Skip the destination of a link or image: `](...)`, parentheses balanced.
            let mut depth = 0;
            let mut j = i + 1;
            while j < chars.len() {
                match chars[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    '\n' => break,
                    _ => {}
                }
                j += 1;
            }
            if j < chars.len() && chars[j] == ')' {
                i = j + 1;
                continue;
            }
        }
        // Unescaped `*` and `~` are emphasis markup: the renderer escapes literal ones.
        if c == '*' || c == '~' {
            i += 1;
            continue;
        }
        if c == '[' || (c == '!' && chars.get(i + 1) == Some(&'[')) {
            i += if c == '!' { 2 } else { 1 };
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn type_of(file: &str) -> String {
    let ext = file.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "htm" => "html".into(),
        "jpeg" => "jpg".into(),
        "tif" => "tiff".into(),
        _ => ext,
    }
}

fn needs_ocr(corpus: &Path) -> HashSet<String> {
    let manifest = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).unwrap_or_default();
    manifest
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let file = *cols.first()?;
            let note = cols.last()?.to_ascii_lowercase();
            let image = matches!(
                type_of(file).as_str(),
                "png" | "jpg" | "gif" | "bmp" | "webp" | "tiff"
            );
            (note.contains("needs ocr") || note.contains("no text layer") || image)
                .then(|| file.to_owned())
        })
        .collect()
}

fn supported(path: &Path) -> bool {
    let bytes = std::fs::read(path).unwrap_or_default();
    let name = path.file_name().unwrap().to_string_lossy();
    engine().detect(&bytes, &name).is_ok()
}

#[derive(Default)]
struct Tally {
    met: usize,
    total: usize,
    misses: Vec<String>,
}

#[test]
fn expectations() {
    let Some(corpus) = corpus() else {
        eprintln!("corpus not found (set QUIRE_CORPUS): skipped");
        return;
    };
    let ocr_files = needs_ocr(&corpus);
    let ready: Vec<&'static str> = ["provider_one", "provider_two"]
        .into_iter()
        .filter(|id| engine().ocr_provider(id).is_ok())
        .collect();
    let text = std::fs::read_to_string(corpus.join("expectations.jsonl")).unwrap();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let record: Value = serde_json::from_str(line).expect("expectation record");
        let file = record["file"].as_str().unwrap();
        let path = corpus.join(file);
        if !path.is_file() || !supported(&path) {
            continue;
        }
        let strings = |key: &str| -> Vec<String> {
            record[key]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str().map(fold)).collect())
                .unwrap_or_default()
        };
        let (must, must_not) = (strings("must_include"), strings("must_not_include"));
        let runs: Vec<(String, Option<&'static str>)> = if ocr_files.contains(file) {
            ready
                .iter()
                .map(|p| (format!("{}+{p}", type_of(file)), Some(*p)))
                .collect()
        } else {
            vec![(type_of(file), None)]
        };
        for (kind, ocr) in runs {
            let tally = tallies.entry(kind).or_default();
            tally.total += 1;
            let outcome = run(&path, OutputFormat::Markdown, ocr);
            let Outcome::Output(out) = outcome else {
                tally.misses.push(format!("{file}: {outcome:?}"));
                continue;
            };
            let md = String::from_utf8_lossy(&out);
            let (raw, read) = (fold(&md), fold(&reader_view(&md)));
            let missing: Vec<&String> = must
                .iter()
                .filter(|s| !raw.contains(s.as_str()) && !read.contains(s.as_str()))
                .collect();
            let present: Vec<&String> = must_not
                .iter()
                .filter(|s| raw.contains(s.as_str()) || read.contains(s.as_str()))
                .collect();
            if missing.is_empty() && present.is_empty() {
                tally.met += 1;
            } else {
                tally
                    .misses
                    .push(format!("{file}: missing {missing:?}, unwanted {present:?}"));
            }
        }
    }
    let mut below = Vec::new();
    println!("\ncorpus expectations (records met / checked):");
    for (kind, t) in &tallies {
        let rate = t.met as f64 / t.total.max(1) as f64;
        println!(
            "  {kind:<22} {:>3}/{:<3} {:>5.1}%",
            t.met,
            t.total,
            rate * 100.0
        );
        for miss in &t.misses {
            println!("      miss: {}", miss.chars().take(400).collect::<String>());
        }
        let bar = if kind.starts_with("pdf") { 0.90 } else { 0.95 };
        if rate < bar {
            below.push(format!("{kind} {:.1}% < {:.0}%", rate * 100.0, bar * 100.0));
        }
    }
    assert!(below.is_empty(), "types below the bar: {below:?}");
}

fn schema_for(kind: &str) -> &'static jsonschema::Validator {
    static SCHEMAS: OnceLock<BTreeMap<String, jsonschema::Validator>> = OnceLock::new();
    let all = SCHEMAS.get_or_init(|| {
        let dir = workspace().join("host/schemas");
        [
            "multi_page_document",
            "presentation",
            "spreadsheet",
            "structured_document",
            "image",
            "structured_data",
        ]
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
            let schema: Value = serde_json::from_str(&text).unwrap();
            let validator = jsonschema::validator_for(&schema).expect("valid schema");
            (name.to_owned(), validator)
        })
        .collect()
    });
    all.get(kind)
        .unwrap_or_else(|| panic!("no schema for content type {kind}"))
}

/// Validates a JSON output against the schema of its kind; returns the errors.
fn schema_errors(out: &[u8]) -> Vec<String> {
    // User data may nest deeper than serde_json's default limit of 128.
    let mut de = serde_json::Deserializer::from_slice(out);
    de.disable_recursion_limit();
    let value: Value = match serde::Deserialize::deserialize(&mut de) {
        Ok(v) => v,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let kind = value["content"]["type"].as_str().unwrap_or("?").to_owned();
    schema_for(&kind)
        .iter_errors(&value)
        .take(3)
        .map(|e| format!("{kind}: {e} at {}", e.instance_path))
        .collect()
}

#[test]
fn every_file_ends_cleanly() {
    let Some(corpus) = corpus() else {
        eprintln!("corpus not found (set QUIRE_CORPUS): skipped");
        return;
    };
    let mut faults = Vec::new();
    let mut per_dir: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
    for path in quire_tests::corpus_files(&corpus) {
        let dir = path
            .parent()
            .and_then(|p| p.file_name())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let rel = path.strip_prefix(&corpus).unwrap().display().to_string();
        for format in [OutputFormat::Markdown, OutputFormat::Json] {
            let entry = per_dir.entry(dir.clone()).or_default();
            match run(&path, format, None) {
                Outcome::Output(out) => {
                    entry.0 += 1;
                    if format == OutputFormat::Json {
                        let errors = schema_errors(&out);
                        if !errors.is_empty() {
                            faults
                                .push(format!("{rel}: JSON does not match its schema: {errors:?}"));
                        }
                    } else if std::str::from_utf8(&out).is_err() {
                        faults.push(format!("{rel}: Markdown is not UTF-8"));
                    }
                }
                Outcome::Error(msg) => {
                    entry.1 += 1;
                    if format == OutputFormat::Markdown {
                        entry.2.push(format!("{rel}: {msg}"));
                    }
                    if msg.trim().is_empty() || msg.contains("/work/") || msg.contains("panicked") {
                        faults.push(format!("{rel}: unclear error message {msg:?}"));
                    }
                }
                Outcome::Panicked(m) => faults.push(format!("{rel}: panicked ({m})")),
                Outcome::TimedOut => faults.push(format!("{rel}: no answer within {TIMEOUT:?}")),
            }
        }
    }
    println!("\ncorpus files (conversions ok / clean errors, md + json):");
    for (dir, (ok, err, msgs)) in &per_dir {
        println!("  {dir:<8} {ok:>4} ok {err:>4} errors");
        for m in msgs {
            println!("      {}", m.chars().take(300).collect::<String>());
        }
    }
    assert!(faults.is_empty(), "faults:\n{}", faults.join("\n"));
}
