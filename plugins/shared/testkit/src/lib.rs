//! Test support for the plugin crates (a dev-dependency only): the shared corpus runner and
//! two flattenings of a [`Document`] — plain text, and Markdown-like (close enough to the host's
//! renderer for expectation strings that contain `**` or `[link](href)`). A `must_include`
//! string is met when either form holds it; a `must_not_include` string must be in neither.
//!
//! The end-to-end corpus suite through the real renderer is `tests/tests/corpus.rs`; these
//! runners let a plugin crate check itself without the host.

use quire_plugin_api::{Block, Context, Converter, Document, Inline, Input};
use std::cell::Cell;
use std::path::{Path, PathBuf};

thread_local! {
    static MARKDOWN: Cell<bool> = const { Cell::new(true) };
}

fn markdown() -> bool {
    MARKDOWN.with(Cell::get)
}

/// The workspace's root folder, found when the test runs: the nearest folder holding
/// `Cargo.lock` above the crate cargo runs the test in (`CARGO_MANIFEST_DIR` of the running
/// process). The path `env!` fixes at compile time is only the fallback: cargo reuses a crate
/// compiled in another checkout that shares its target folder, and that checkout may be gone.
pub fn workspace() -> PathBuf {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    start
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(&start)
        .to_path_buf()
}

/// The runtime files `scripts/setup.sh` fetched into the checkout (PDFium, OCR models).
pub fn runtime_dir() -> PathBuf {
    workspace().join("vendor-runtime")
}

/// The shared corpus, when this machine has it: `QUIRE_CORPUS`, or `../shared/corpus` beside
/// the workspace.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("QUIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/corpus"));
    dir.join("expectations.jsonl").is_file().then_some(dir)
}

/// The document as Markdown-ish (`markdown`) or plain text: every block on its own line.
pub fn flatten(doc: &Document, markdown: bool) -> String {
    MARKDOWN.with(|m| m.set(markdown));
    let mut out = String::new();
    if let Some(title) = &doc.metadata.title {
        out.push_str(title);
        out.push('\n');
    }
    for part in &doc.parts {
        blocks(&part.blocks, &mut out);
        blocks(&part.notes, &mut out);
    }
    out
}

fn blocks(list: &[Block], out: &mut String) {
    for block in list {
        match block {
            Block::Heading { content, level } => {
                if markdown() {
                    out.push_str(&"#".repeat(usize::from((*level).clamp(1, 6))));
                    out.push(' ');
                }
                inlines(content, out);
            }
            Block::Paragraph(content) => inlines(content, out),
            Block::List(list) => {
                for item in &list.items {
                    out.push_str("- ");
                    blocks(&item.blocks, out);
                }
            }
            Block::Table(table) => {
                for row in &table.rows {
                    out.push('|');
                    for cell in row {
                        inlines(&cell.content, out);
                        out.push('|');
                    }
                    out.push('\n');
                }
            }
            Block::Grid(grid) => {
                for row in grid.iter_rows() {
                    for cell in row {
                        out.push_str(cell);
                        out.push('|');
                    }
                    out.push('\n');
                }
            }
            Block::Image(image) => {
                out.push_str(image.alt.as_deref().unwrap_or(""));
            }
            Block::Code { text, .. } => out.push_str(text),
            Block::Quote(inner) => blocks(inner, out),
            Block::Note {
                label,
                blocks: inner,
            } => {
                out.push_str(&format!("[^{label}]: "));
                blocks(inner, out);
            }
            Block::Rule => out.push_str("---"),
        }
        out.push('\n');
    }
}

fn inlines(list: &[Inline], out: &mut String) {
    for inline in list {
        match inline {
            Inline::Text { text, style } => {
                let mark = match (style.bold && markdown(), style.italic && markdown()) {
                    (true, true) => "***",
                    (true, false) => "**",
                    (false, true) => "*",
                    (false, false) => "",
                };
                let strike = if style.strike && markdown() { "~~" } else { "" };
                out.push_str(strike);
                out.push_str(mark);
                out.push_str(text);
                out.push_str(mark);
                out.push_str(strike);
            }
            Inline::Link(link) if !markdown() => inlines(&link.content, out),
            Inline::Link(link) => {
                out.push('[');
                inlines(&link.content, out);
                out.push_str("](");
                out.push_str(&link.href);
                if let Some(title) = &link.title {
                    out.push_str(" \"");
                    out.push_str(&title.replace('\\', "\\\\").replace('"', "\\\""));
                    out.push('"');
                }
                out.push(')');
            }
            Inline::Code(code) => out.push_str(code),
            Inline::Break => out.push('\n'),
            // Its lines end with hard breaks, written as the `Break` arm writes them.
            Inline::Lines { text } => out.push_str(text),
            Inline::Image(image) => out.push_str(image.alt.as_deref().unwrap_or("")),
            Inline::NoteRef(label) => out.push_str(&format!("[^{label}]")),
            Inline::Math { tex, display: true } => out.push_str(&format!("$${tex}$$")),
            Inline::Math { tex, .. } => out.push_str(&format!("${tex}$")),
        }
    }
}

/// Expectation records (file, must_include, must_not_include) for files under `kind/`.
pub fn expectations(corpus: &Path, kind: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    let Ok(text) = std::fs::read_to_string(corpus.join("expectations.jsonl")) else {
        return Vec::new();
    };
    let prefix = format!("{kind}/");
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            let file = v["file"].as_str()?.to_owned();
            if !file.starts_with(&prefix) {
                return None;
            }
            let strings = |k: &str| -> Vec<String> {
                v[k].as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            Some((file, strings("must_include"), strings("must_not_include")))
        })
        .collect()
}

pub fn fold(s: &str) -> String {
    quire_plugin_api::text::fold_whitespace(s)
}

pub fn convert(
    conv: &dyn Converter,
    bytes: &[u8],
    name: &str,
    mime: &str,
) -> Result<Document, String> {
    let input = Input {
        bytes,
        file_name: name,
        mime,
    };
    let mut ctx = Context::new();
    conv.convert(&input, &mut ctx)
        .map_err(|e| e.message().to_owned())
}

/// Runs every expectation record for `kind` and returns (met, total), printing failures.
pub fn run_corpus(conv: &dyn Converter, kind: &str, mime: &str) -> Option<(usize, usize)> {
    let corpus = corpus_dir()?;
    let mut met = 0;
    let mut total = 0;
    for (file, include, exclude) in expectations(&corpus, kind) {
        total += 1;
        let Ok(bytes) = std::fs::read(corpus.join(&file)) else {
            println!("MISSING {file}");
            continue;
        };
        let doc = match convert(conv, &bytes, &file, mime) {
            Ok(doc) => doc,
            Err(e) => {
                println!("FAIL {file}: error {e}");
                continue;
            }
        };
        let md = fold(&flatten(&doc, true));
        let plain = fold(&flatten(&doc, false));
        let missing: Vec<_> = include
            .iter()
            .filter(|s| !md.contains(&fold(s)) && !plain.contains(&fold(s)))
            .collect();
        let present: Vec<_> = exclude
            .iter()
            .filter(|s| md.contains(&fold(s)) || plain.contains(&fold(s)))
            .collect();
        if missing.is_empty() && present.is_empty() {
            met += 1;
        } else {
            println!("FAIL {file}: missing {missing:?}, present {present:?}");
        }
    }
    println!("corpus {kind}: {met}/{total} expectation records met");
    Some((met, total))
}

/// Converts every file of the corpus folder `kind` and every file in `bad/`; only a panic fails.
pub fn run_all_files(conv: &dyn Converter, kind: &str, mime: &str) -> usize {
    let Some(corpus) = corpus_dir() else { return 0 };
    let mut n = 0;
    for dir in [kind, "bad"] {
        let Ok(entries) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let _ = convert(conv, &bytes, name, mime);
            n += 1;
        }
    }
    n
}

/// Truncated and byte-flipped copies of every corpus file of `kind`: each must end in a
/// document or an error, never a panic. Returns how many copies were converted.
pub fn run_damaged_copies(conv: &dyn Converter, kind: &str, mime: &str) -> usize {
    let Some(corpus) = corpus_dir() else { return 0 };
    let Ok(entries) = std::fs::read_dir(corpus.join(kind)) else {
        return 0;
    };
    let mut n = 0;
    for entry in entries.flatten() {
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        let mut variants: Vec<Vec<u8>> = [1, 3, 7, 10]
            .iter()
            .map(|tenths| bytes[..bytes.len() * tenths / 10].to_vec())
            .collect();
        let mut seed = bytes.len() as u64 | 1;
        for _ in 0..4 {
            let mut v = bytes.clone();
            for _ in 0..(v.len() / 200).max(1) {
                // xorshift: a cheap deterministic sprinkling of damage.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if !v.is_empty() {
                    let at = (seed as usize) % v.len();
                    v[at] = (seed >> 32) as u8;
                }
            }
            variants.push(v);
        }
        for v in variants {
            let _ = convert(conv, &v, "damaged", mime);
            n += 1;
        }
    }
    n
}

/// Times `conv` on every corpus file of `kind` (files whose name contains `filter`): the median
/// of `BENCH_REPEAT` runs (default 3) per file, then the median over files, beside the median
/// of best runs (on a busy machine the closer estimate). Prints a line per file and a summary.
pub fn bench_corpus(conv: &dyn Converter, kind: &str, mime: &str, filter: &str) {
    let Some(corpus) = corpus_dir() else {
        eprintln!("no corpus (set QUIRE_CORPUS)");
        return;
    };
    let Ok(rd) = std::fs::read_dir(corpus.join(kind)) else {
        eprintln!("no {kind} folder in the corpus");
        return;
    };
    let repeat: usize = std::env::var("BENCH_REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let mut paths: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(filter))
        .collect();
    paths.sort();
    let (mut medians, mut bests) = (Vec::new(), Vec::new());
    for path in &paths {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let mut runs: Vec<f64> = (0..repeat.max(1))
            .map(|_| {
                let t = std::time::Instant::now();
                let _ = convert(conv, &bytes, name, mime);
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        let median = runs[runs.len() / 2];
        println!("{median:>9.3} ms  (best {:.3})  {name}", runs[0]);
        medians.push(median);
        bests.push(runs[0]);
    }
    medians.sort_by(f64::total_cmp);
    bests.sort_by(f64::total_cmp);
    if let (Some(m), Some(b), Some(max)) = (
        medians.get(medians.len() / 2),
        bests.get(bests.len() / 2),
        medians.last(),
    ) {
        println!(
            "{kind}: {} files, median {m:.3} ms per file, max {max:.3} ms (median of best runs {b:.3} ms)",
            medians.len()
        );
    }
}
