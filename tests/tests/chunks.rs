//! Chunks over the whole shared corpus (every file that converts), at 512 tokens (the default)
//! and at 128 (many more cuts), with the built-in cl100k tokenizer:
//!
//! - no chunk has more than `max_tokens` tokens (counted again here on its text), except one
//!   flagged `oversized`, which must be a single table row;
//! - the chunks' own content (their `text` from `content_start`: no heading path, overlap or
//!   repeated table header) gives the document's text back exactly once, in order, with only
//!   whitespace between chunks; the document's text is checked against the Markdown
//!   renderer's text of each part (the parts' blocks, then notes, rendered together), up to
//!   whitespace (the renderer keeps no-break and hair spaces that end a block);
//! - every chunk's heading path, pages, slide and sheet are those of the blocks its content
//!   comes from, worked out here from the document model independently of the chunker;
//! - a table that fits in `max_tokens` is in one chunk; a chunk that continues a table starts
//!   with its header row.
//!
//! The corpus is found at `QUIRE_CORPUS` or `../shared/corpus`; without it the test passes
//! and says so.

use quire::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat};
use quire::registry::Registry;
use quire::render::chunks::{self, Chunk, ChunkOptions};
use quire::render::tokenize;
use quire::render::{markdown, ImageMode};
use quire_plugin_api::{Block, Document, PartKind};
use std::time::{Duration, Instant};

use quire_tests::corpus;

/// Where each block of the document's text stands, worked out from the model.
struct Span {
    start: usize,
    end: usize,
    heading: bool,
    path: Vec<String>,
    kind: PartKind,
    number: u32,
    name: Option<String>,
}

fn fold(s: &str) -> String {
    quire_plugin_api::text::fold_whitespace(s)
}

fn inline_text(content: &[quire_plugin_api::Inline]) -> String {
    quire::render::plain_inlines(content)
}

/// The document's text (blocks rendered one by one, joined by a blank line) and the spans.
fn spans(doc: &Document) -> (String, Vec<Span>) {
    let mut text = String::new();
    let mut out = Vec::new();
    let mut stack: Vec<(u8, String)> = Vec::new();
    for part in &doc.parts {
        match part.kind {
            PartKind::Slide => stack.clear(),
            PartKind::Sheet => {
                stack = vec![(0, fold(part.name.as_deref().unwrap_or("Sheet")))];
            }
            _ => stack.retain(|(l, _)| *l != 7),
        }
        let n = part.blocks.len();
        let mut markers = markdown::ListMarkers::default();
        for (i, block) in part.blocks.iter().chain(&part.notes).enumerate() {
            if i == n {
                stack.push((7, "Notes".into()));
                markers = Default::default();
            }
            let rendered = markdown::block(block, ImageMode::Reference, markers.next(block));
            if rendered.is_empty() {
                continue;
            }
            let heading = if let Block::Heading { level, content } = block {
                let level = (*level).clamp(1, 6);
                stack.retain(|(l, _)| *l < level);
                stack.push((level, fold(&inline_text(content))));
                true
            } else {
                false
            };
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            let start = text.len();
            text.push_str(&rendered);
            out.push(Span {
                start,
                end: text.len(),
                heading,
                path: stack.iter().map(|(_, t)| t.clone()).collect(),
                kind: part.kind,
                number: part.number,
                name: part.name.clone(),
            });
        }
    }
    (text, out)
}

/// The Markdown renderer's text of every part (blocks, then notes), joined the same way.
fn rendered_parts(doc: &Document) -> String {
    let mut pieces = Vec::new();
    for part in &doc.parts {
        for blocks in [&part.blocks, &part.notes] {
            let t = markdown::blocks(blocks, ImageMode::Reference);
            if !t.is_empty() {
                pieces.push(t);
            }
        }
    }
    pieces.join("\n\n")
}

#[derive(Default)]
struct Tally {
    files: usize,
    chunks: usize,
    oversized: usize,
    tables_split: usize,
    chunk_time: Duration,
}

fn check(
    rel: &str,
    doc: &Document,
    list: &[Chunk],
    opts: &ChunkOptions,
    counter: &dyn tokenize::TokenCounter,
    faults: &mut Vec<String>,
    tally: &mut Tally,
) {
    let (text, spans) = spans(doc);
    if text != chunks::document_text(doc) {
        faults.push(format!("{rel}: document_text differs from the model walk"));
    }
    // The renderer keeps Unicode spaces (no-break, hair) that end a block where the block
    // alone is trimmed of them: the two agree up to whitespace.
    let whole = fold(&rendered_parts(doc));
    let text_folded = fold(&text);
    if text_folded != whole {
        let text = text_folded;
        let at = text
            .bytes()
            .zip(whole.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(text.len().min(whole.len()));
        let around = |s: &str| {
            let mut from = at.saturating_sub(60);
            while !s.is_char_boundary(from) {
                from -= 1;
            }
            s[from..].chars().take(120).collect::<String>()
        };
        faults.push(format!(
            "{rel}: the document's text differs from the parts rendered whole at byte {at}: {:?} vs {:?}",
            around(&text),
            around(&whole)
        ));
        return;
    }
    let mut at = 0;
    for c in list {
        let n = counter.count(&c.text);
        if n != c.token_count {
            faults.push(format!(
                "{rel}: chunk {} says {} tokens, has {n}",
                c.id, c.token_count
            ));
        }
        if n > opts.max_tokens {
            let single_row =
                c.block_kinds == ["table"] && c.text[c.content_start..].lines().count() <= 3;
            if !(c.oversized && single_row) {
                faults.push(format!(
                    "{rel}: chunk {} has {n} > {} tokens (oversized {}): {:?}",
                    c.id,
                    opts.max_tokens,
                    c.oversized,
                    c.text.chars().take(200).collect::<String>()
                ));
            }
            tally.oversized += 1;
        }
        let own = &c.text[c.content_start..];
        let gap = text[at..].len() - text[at..].trim_start().len();
        let start = at + gap;
        if own.is_empty() || !text[start..].starts_with(own) {
            faults.push(format!(
                "{rel}: chunk {} does not continue the document's text at byte {start}: {:?} vs {:?}",
                c.id,
                own.chars().take(80).collect::<String>(),
                text[start..].chars().take(80).collect::<String>()
            ));
            return;
        }
        let end = start + own.len();
        at = end;
        // Location, from the spans the content overlaps.
        let inside: Vec<&Span> = spans
            .iter()
            .filter(|s| s.start < end && s.end > start)
            .collect();
        let Some(first) = inside.first() else {
            faults.push(format!("{rel}: chunk {} covers no block", c.id));
            continue;
        };
        let at_content = inside
            .iter()
            .find(|s| !s.heading)
            .or(inside.last())
            .unwrap();
        if c.heading_path != at_content.path {
            faults.push(format!(
                "{rel}: chunk {} heading path {:?}, its content stands under {:?}",
                c.id, c.heading_path, at_content.path
            ));
        }
        match first.kind {
            PartKind::Page => {
                let mut pages: Vec<u32> = inside.iter().map(|s| s.number).collect();
                pages.dedup();
                if c.pages.as_ref() != Some(&pages) {
                    faults.push(format!(
                        "{rel}: chunk {} pages {:?}, expected {pages:?}",
                        c.id, c.pages
                    ));
                }
            }
            PartKind::Slide => {
                if c.slide != Some(first.number) || inside.iter().any(|s| s.number != first.number)
                {
                    faults.push(format!(
                        "{rel}: chunk {} slide {:?}, expected {}",
                        c.id, c.slide, first.number
                    ));
                }
            }
            PartKind::Sheet => {
                let name = first.name.clone().unwrap_or_else(|| "Sheet".into());
                if c.sheet.as_deref() != Some(name.as_str())
                    || inside.iter().any(|s| s.number != first.number)
                {
                    faults.push(format!(
                        "{rel}: chunk {} sheet {:?}, expected {name}",
                        c.id, c.sheet
                    ));
                }
            }
            PartKind::Section => {
                if c.pages.is_some() || c.slide.is_some() || c.sheet.is_some() {
                    faults.push(format!(
                        "{rel}: chunk {} of a flowing document has a location",
                        c.id
                    ));
                }
            }
        }
        // A continued table starts with its header row.
        let head = &c.text[..c.content_start];
        // Rows of one table are one line apart; blocks a blank line.
        let continues = own.starts_with('|') && text[..start].ends_with("|\n");
        if continues {
            tally.tables_split += 1;
            let header_ok = head
                .trim_end()
                .lines()
                .next_back()
                .is_some_and(|l| l.starts_with('|') && l.contains("---"));
            if !header_ok {
                faults.push(format!(
                    "{rel}: chunk {} continues a table without its header",
                    c.id
                ));
            }
        }
    }
    if !text[at..].trim().is_empty() {
        faults.push(format!(
            "{rel}: {} bytes of the document's text are in no chunk",
            text.len() - at
        ));
    }
    // Tables that fit are whole in one chunk.
    for s in &spans {
        let t = &text[s.start..s.end];
        if t.starts_with('|') && counter.count(t) <= opts.max_tokens {
            let whole = list.iter().any(|c| c.text[c.content_start..].contains(t));
            if !whole {
                faults.push(format!(
                    "{rel}: a table of {} tokens was split",
                    counter.count(t)
                ));
            }
        }
    }
    tally.chunks += list.len();
}

#[test]
fn corpus_chunks_keep_their_promises() {
    let Some(corpus) = corpus() else {
        eprintln!("corpus not found (set QUIRE_CORPUS): skipped");
        return;
    };
    let engine = Engine::new(
        Registry::from_inventory().expect("registry"),
        quire_tests::plugin_config(),
    );
    let counter = tokenize::counter(&tokenize::TokenizerSpec::default()).unwrap();
    let mut faults = Vec::new();
    let mut tallies = [Tally::default(), Tally::default()];
    for path in quire_tests::corpus_files(&corpus) {
        let rel = path.strip_prefix(&corpus).unwrap().display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let req = ConvertRequest {
            bytes: &bytes,
            file_name: &name,
            format: OutputFormat::Chunks,
            ocr_provider: None,
        };
        let mut control = ConvertControl {
            deadline: Some(Instant::now() + Duration::from_secs(120)),
            ..ConvertControl::default()
        };
        let Ok(converted) = engine.convert_document(&req, &mut control) else {
            continue;
        };
        for (max, tally) in [512, 128].into_iter().zip(tallies.iter_mut()) {
            let opts = ChunkOptions {
                max_tokens: max,
                ..ChunkOptions::default()
            };
            let started = Instant::now();
            let list = chunks::chunk_with(&converted.document, &opts, counter.as_ref());
            tally.chunk_time += started.elapsed();
            tally.files += 1;
            check(
                &rel,
                &converted.document,
                &list,
                &opts,
                counter.as_ref(),
                &mut faults,
                tally,
            );
        }
    }
    for (max, t) in [512, 128].iter().zip(&tallies) {
        println!(
            "chunks at max_tokens {max}: {} files, {} chunks, {} oversized (single rows), {} table continuations, chunking {:.2} s (debug build)",
            t.files, t.chunks, t.oversized, t.tables_split, t.chunk_time.as_secs_f64()
        );
    }
    assert!(tallies[0].files > 0);
    assert!(
        faults.is_empty(),
        "{} faults:\n{}",
        faults.len(),
        faults.join("\n")
    );
}
