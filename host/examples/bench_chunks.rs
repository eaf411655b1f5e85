//! What chunking costs (issue 15's speed acceptance), release build, single-threaded:
//!
//! 1. Every corpus document of 10 or more pages/slides/sheets or of 100 KB or more (`bad/` and
//!    OCR-only images left out): the median of N runs of the conversion to Markdown (detect →
//!    convert → images → render, what a Markdown job does) against the median of N runs of
//!    chunking the converted document (chunks with cl100k at 512 tokens, serialised as the
//!    job's JSON). Chunking adds to a chunks job what rendering Markdown would have cost, so
//!    the figure reported is chunking / conversion-to-Markdown, per file and overall.
//! 2. A generated 500-page document (headings, paragraphs, a table every 10 pages, ~330 words
//!    a page): the median time to chunk it.
//!    Both are also run with a counter that does not tell where a text's last piece starts
//!    (`--recount`): every chunk is then counted again whole, as before the joined counts
//!    (`tokenize::joined_count`): the before/after of that change in one binary.
//! 3. The two crates with OpenAI's BPEs built in, on the same corpus text: `bpe-openai` (used)
//!    and `tiktoken-rs`: token counts compared and time to count.
//! 4. The pre-tokenizer of cl100k and o200k on the same text: `render::pretokenize` (used)
//!    against `bpe-openai`'s regular expression, the pieces compared and the time to split.
//!
//! `--corpus-only` stops after 1 (to profile the corpus documents alone).
//!
//! Usage: bench_chunks CORPUS_DIR [--runs 5] [--recount] [--corpus-only]

use quire::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat};
use quire::registry::Registry;
use quire::render::chunks::{self, ChunkOptions};
use quire::render::tokenize::{self, TokenCounter, TokenizerSpec};
use quire_plugin_api::{Block, Cell, Document, DocumentKind, Part, PluginConfig, Table};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A counter that counts only: the chunker counts every chunk again whole.
struct Recount(std::sync::Arc<dyn TokenCounter>);

impl TokenCounter for Recount {
    fn count(&self, text: &str) -> usize {
        self.0.count(text)
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let corpus = PathBuf::from(
        args.get(1)
            .expect("usage: bench_chunks CORPUS_DIR [--runs N]"),
    );
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let root = quire_testkit::workspace();
    let mut config = PluginConfig {
        runtime_dir: root.join("vendor-runtime"),
        ..PluginConfig::default()
    };
    config.ocr.model_dir = root.join("vendor-runtime/models");
    let engine = Engine::new(Registry::from_inventory().expect("registry"), config);
    let opts = ChunkOptions::default();
    let counter = tokenize::counter(&TokenizerSpec::default()).unwrap();
    let counter: std::sync::Arc<dyn TokenCounter> = if args.iter().any(|a| a == "--recount") {
        println!("(--recount: every chunk counted again whole)");
        std::sync::Arc::new(Recount(counter))
    } else {
        counter
    };
    // Load once outside the timings (a worker child does it on its first chunks job).
    counter.count("warm up");

    let mut files = Vec::new();
    for dir in std::fs::read_dir(&corpus).expect("corpus dir").flatten() {
        let name = dir.file_name().to_string_lossy().into_owned();
        if !dir.path().is_dir() || name == "groundtruth" || name == "bad" {
            continue;
        }
        for f in std::fs::read_dir(dir.path()).expect("type dir").flatten() {
            files.push(f.path());
        }
    }
    files.sort();
    let mut texts = Vec::new();
    let (mut sum_convert, mut sum_chunk) = (Duration::ZERO, Duration::ZERO);
    let mut ratios = Vec::new();
    println!("file\tbytes\tparts\tconvert_md_ms\tchunk_ms\tratio\tchunks");
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let req = ConvertRequest {
            bytes: &bytes,
            file_name: &name,
            format: OutputFormat::Markdown,
            ocr_provider: None,
        };
        let Ok(first) = engine.convert_document(&req, &mut ConvertControl::default()) else {
            continue;
        };
        texts.push(chunks::document_text(&first.document));
        let parts = first.document.parts.len();
        if parts < 10 && bytes.len() < 100 * 1024 {
            continue;
        }
        if first.document.kind == DocumentKind::Image {
            continue;
        }
        let mut convert = Vec::new();
        let mut chunk = Vec::new();
        let mut n = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let out = engine
                .convert(&req, &mut ConvertControl::default())
                .unwrap();
            convert.push(t.elapsed());
            std::hint::black_box(out);
            let t = Instant::now();
            let list = chunks::chunk_with(&first.document, &opts, counter.as_ref());
            let json = chunks::output(&first.document, &name, &opts, &list);
            let s = serde_json::to_vec_pretty(&json).unwrap();
            chunk.push(t.elapsed());
            n = list.len();
            std::hint::black_box(s);
        }
        let (c, k) = (median(convert), median(chunk));
        sum_convert += c;
        sum_chunk += k;
        let ratio = k.as_secs_f64() / c.as_secs_f64();
        ratios.push(ratio);
        println!(
            "{}\t{}\t{parts}\t{:.2}\t{:.2}\t{:.3}\t{n}",
            path.strip_prefix(&corpus).unwrap().display(),
            bytes.len(),
            c.as_secs_f64() * 1e3,
            k.as_secs_f64() * 1e3,
            ratio
        );
    }
    ratios.sort_by(f64::total_cmp);
    if !ratios.is_empty() {
        println!(
            "\n{} documents of >= 10 parts or >= 100 KB: chunking / conversion to Markdown: total {:.3} ({:.1} ms / {:.1} ms), median {:.3}, max {:.3}",
            ratios.len(),
            sum_chunk.as_secs_f64() / sum_convert.as_secs_f64(),
            sum_chunk.as_secs_f64() * 1e3,
            sum_convert.as_secs_f64() * 1e3,
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1]
        );
    }
    if args.iter().any(|a| a == "--corpus-only") {
        return;
    }

    let doc = five_hundred_pages();
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let list = chunks::chunk_with(&doc, &opts, counter.as_ref());
        times.push(t.elapsed());
        n = list.len();
    }
    let text = chunks::document_text(&doc);
    println!(
        "500-page generated document ({} KB of text, {} tokens): {n} chunks in {:.1} ms (median of {runs})",
        text.len() / 1024,
        counter.count(&text),
        median(times).as_secs_f64() * 1e3
    );

    // The two BPE crates on the corpus text.
    let all: String = texts.join("\n\n");
    let tik = tiktoken_rs::cl100k_base().unwrap();
    let t = Instant::now();
    let ours = bpe_openai::cl100k_base().count(all.as_str());
    let bpe_time = t.elapsed();
    let t = Instant::now();
    let theirs = tik.encode_ordinary(&all).len();
    let tik_time = t.elapsed();
    let t = Instant::now();
    let _ = tiktoken_rs::cl100k_base().unwrap();
    let tik_load = t.elapsed();
    println!(
        "cl100k over the corpus text ({:.1} MB): bpe-openai {ours} tokens in {:.0} ms, tiktoken-rs {theirs} tokens in {:.0} ms (+{:.0} ms to load its ranks)",
        all.len() as f64 / 1e6,
        bpe_time.as_secs_f64() * 1e3,
        tik_time.as_secs_f64() * 1e3,
        tik_load.as_secs_f64() * 1e3
    );
    pretokenizers(&all, runs);
    piece_counts(&all, runs);
}

/// The hand-written pre-tokenizer against `bpe-openai`'s regular expression on `text`: the
/// same pieces (asserted), and the median time of each over `runs` runs.
fn pretokenizers(text: &str, runs: usize) {
    use quire::render::pretokenize::{self, Pattern};
    for (name, pattern, bpe) in [
        ("cl100k", Pattern::Cl100k, bpe_openai::cl100k_base()),
        ("o200k", Pattern::O200k, bpe_openai::o200k_base()),
    ] {
        assert!(
            pretokenize::split(pattern, text).eq(bpe.split(text)),
            "{name}: the pieces differ"
        );
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let mut pieces = 0;
        for _ in 0..runs {
            let t = Instant::now();
            pieces = std::hint::black_box(bpe.split(text).count());
            theirs.push(t.elapsed());
            let t = Instant::now();
            std::hint::black_box(pretokenize::split(pattern, text).count());
            ours.push(t.elapsed());
        }
        let (ours, theirs) = (median(ours), median(theirs));
        println!(
            "{name} pre-tokenizer over the corpus text ({pieces} pieces, the same both ways): regex {:.1} ms, by hand {:.1} ms ({:.1}x)",
            theirs.as_secs_f64() * 1e3,
            ours.as_secs_f64() * 1e3,
            theirs.as_secs_f64() / ours.as_secs_f64()
        );
    }
}

/// Counting every piece of `text` with no cache: the rank tables read in place
/// (`render::ranks`, used) against `bpe-openai`'s encoder (used before), the same total
/// (asserted) and the median time of each over `runs` runs; then the service's counter (with
/// its piece cache) on the whole text.
fn piece_counts(text: &str, runs: usize) {
    use quire::render::pretokenize::{self, Pattern};
    use quire::render::ranks;
    for (name, pattern, ranks, bpe, spec) in [
        (
            "cl100k",
            Pattern::Cl100k,
            &ranks::CL100K,
            bpe_openai::cl100k_base(),
            "cl100k",
        ),
        (
            "o200k",
            Pattern::O200k,
            &ranks::O200K,
            bpe_openai::o200k_base(),
            "o200k",
        ),
    ] {
        let pieces: Vec<&str> = pretokenize::split(pattern, text).collect();
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let (mut a, mut b) = (0, 0);
        for _ in 0..runs {
            let t = Instant::now();
            b = pieces
                .iter()
                .map(|p| bpe.bpe.count(p.as_bytes()))
                .sum::<usize>();
            theirs.push(t.elapsed());
            let t = Instant::now();
            a = pieces
                .iter()
                .map(|p| ranks.count(p.as_bytes()))
                .sum::<usize>();
            ours.push(t.elapsed());
        }
        assert_eq!(a, b, "{name}: the counts differ");
        let counter = tokenize::counter(&TokenizerSpec {
            name: spec.to_string(),
            file: None,
        })
        .unwrap();
        let mut cached = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            assert_eq!(counter.count(text), a);
            cached.push(t.elapsed());
        }
        let (ours, theirs, cached) = (median(ours), median(theirs), median(cached));
        println!(
            "{name}, {} pieces ({a} tokens), no cache: bpe-openai {:.1} ms, rank tables {:.1} ms ({:.2}x); the counter with its piece cache {:.1} ms",
            pieces.len(),
            theirs.as_secs_f64() * 1e3,
            ours.as_secs_f64() * 1e3,
            theirs.as_secs_f64() / ours.as_secs_f64(),
            cached.as_secs_f64() * 1e3
        );
    }
}

fn five_hundred_pages() -> Document {
    let mut doc = Document::new(DocumentKind::Paged, "PDF Document");
    let words = [
        "the",
        "service",
        "converts",
        "documents",
        "into",
        "text",
        "for",
        "retrieval",
        "and",
        "agents",
        "while",
        "keeping",
        "headings",
        "pages",
        "tables",
        "lists",
        "intact",
        "so",
        "that",
        "answers",
        "cite",
        "where",
        "they",
        "stand",
    ];
    let mut w = 0usize;
    let mut sentence = |n: usize| {
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(words[w % words.len()]);
            w = w.wrapping_mul(31).wrapping_add(7) % 9973;
        }
        s.push('.');
        s
    };
    for page in 1..=500u32 {
        let mut part = Part::page(page);
        if page % 5 == 1 {
            part.blocks
                .push(Block::heading(1, format!("Chapter {}", page / 5 + 1)));
        }
        part.blocks
            .push(Block::heading(2, format!("Section {page}")));
        for _ in 0..6 {
            let para: Vec<String> = (0..4).map(|i| sentence(10 + i * 2)).collect();
            part.blocks.push(Block::text(para.join(" ")));
        }
        if page % 10 == 0 {
            let mut rows = vec![vec![
                Cell::text("Item"),
                Cell::text("Count"),
                Cell::text("Note"),
            ]];
            for r in 0..30 {
                rows.push(vec![
                    Cell::text(format!("item {r}")),
                    Cell::text(format!("{}", r * 7)),
                    Cell::text(sentence(6)),
                ]);
            }
            part.blocks.push(Block::Table(Table {
                header_rows: 1,
                rows,
            }));
        }
        doc.parts.push(part);
    }
    doc
}
