//! Document model → chunks for retrieval pipelines (`output_format=chunks`), the third rendering
//! beside Markdown and JSON. Plugins know nothing of it.
//!
//! **The document's text** is defined from the model: every block of every part (a part's
//! blocks, then its speaker notes), each rendered on its own by the Markdown writer with images
//! by reference (`![alt](image1.png)`, a placeholder with the alt text), empty renderings left
//! out, joined with one blank line (`"\n\n"`). Page markers, sheet-name lines and the
//! "Notes" line of the Markdown output are not part of it: they are structure, and chunks carry
//! structure as fields (`pages`, `slide`, `sheet`, `heading_path`).
//!
//! Every chunk's own content is a contiguous slice of that text, trimmed of the whitespace at
//! its ends; the slices follow each other with only whitespace between them, so joining the
//! chunks' own content gives the document's text back exactly once, in order. A chunk's
//! `text` is its heading path (one heading a line, then a blank line), the overlap taken from
//! the previous chunk, the repeated header row of a table it continues, then its own content,
//! which starts at byte `content_start` of `text`.
//!
//! Strategy (hybrid): the text is cut into fragments by structure — a block, or when a block
//! is larger than the budget, its table rows (the header row goes with the first), list items,
//! then paragraphs, lines, sentences, words and last characters. Fragments are packed greedily
//! into chunks under `max_tokens`; a heading, a change of heading path, a slide and a sheet
//! start a new chunk (consecutive headings stay together with the content under them). Every
//! chunk's `token_count` is counted on its final text, and a chunk over the limit gives back
//! its last fragment. A single table row larger than `max_tokens` cannot be cut: its chunk is
//! flagged `oversized`.

use super::tokenize::{self, TokenCounter, TokenizerSpec};
use super::{fold, markdown, plain_inlines, ImageMode};
use quire_plugin_api::{Block, Document, DocumentKind, List, Part, PartKind};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::ops::Range;

/// The options of a chunks job (multipart fields and CLI flags of the same names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkOptions {
    pub max_tokens: usize,
    pub overlap_tokens: usize,
    pub tokenizer: TokenizerSpec,
    pub include_heading_path: bool,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_tokens: DEFAULT_MAX_TOKENS,
            overlap_tokens: 0,
            tokenizer: TokenizerSpec::default(),
            include_heading_path: true,
        }
    }
}

pub const DEFAULT_MAX_TOKENS: usize = 512;
/// Bounds of `max_tokens`.
pub const MIN_MAX_TOKENS: usize = 16;
pub const MAX_MAX_TOKENS: usize = 100_000;

/// The multipart fields and CLI flags that only `output_format=chunks` accepts.
pub const OPTION_FIELDS: [&str; 4] = [
    "max_tokens",
    "overlap_tokens",
    "tokenizer",
    "include_heading_path",
];

/// One refused option: field, error type, message, the value given.
pub type OptionError = (&'static str, &'static str, String, Option<String>);

impl ChunkOptions {
    /// Validates the chunk options from their raw values (`get(field)`). `chunks` says whether
    /// the job's output format is chunks: any option given otherwise is refused.
    /// `files` are the configured tokenizer files (`CHUNK_TOKENIZERS`).
    pub fn from_fields(
        get: &dyn Fn(&str) -> Option<String>,
        chunks: bool,
        files: &[(String, std::path::PathBuf)],
    ) -> Result<ChunkOptions, Vec<OptionError>> {
        let mut errors: Vec<OptionError> = Vec::new();
        let mut opts = ChunkOptions::default();
        for field in OPTION_FIELDS {
            let Some(raw) = get(field) else { continue };
            if !chunks {
                errors.push((
                    field,
                    "value_error",
                    format!("{field} is accepted only with output_format chunks"),
                    Some(raw),
                ));
                continue;
            }
            let v = raw.trim();
            match field {
                "max_tokens" => match v.parse::<usize>() {
                    Ok(n) if (MIN_MAX_TOKENS..=MAX_MAX_TOKENS).contains(&n) => opts.max_tokens = n,
                    _ => errors.push((
                        field,
                        "int_parsing",
                        format!(
                            "Input should be a whole number from {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS}"
                        ),
                        Some(raw),
                    )),
                },
                "overlap_tokens" => match v.parse::<usize>() {
                    Ok(n) => opts.overlap_tokens = n,
                    _ => errors.push((
                        field,
                        "int_parsing",
                        "Input should be a whole number, 0 or more".to_owned(),
                        Some(raw),
                    )),
                },
                "tokenizer" => match TokenizerSpec::resolve(v, files) {
                    Some(spec) => opts.tokenizer = spec,
                    None => {
                        let mut names: Vec<String> =
                            tokenize::BUILT_IN.iter().map(|s| s.to_string()).collect();
                        names.extend(files.iter().map(|(n, _)| n.clone()));
                        errors.push((
                            field,
                            "enum",
                            format!("Input should be one of: {}", names.join(", ")),
                            Some(raw),
                        ));
                    }
                },
                _ => match parse_bool(v) {
                    Some(b) => opts.include_heading_path = b,
                    None => errors.push((
                        field,
                        "bool_parsing",
                        "Input should be a valid boolean: true/false, 1/0, yes/no or on/off"
                            .to_owned(),
                        Some(raw),
                    )),
                },
            }
        }
        let overlap_given = errors.iter().all(|e| e.0 != "overlap_tokens")
            && errors.iter().all(|e| e.0 != "max_tokens");
        if overlap_given && opts.overlap_tokens * 2 >= opts.max_tokens {
            errors.push((
                "overlap_tokens",
                "value_error",
                format!(
                    "overlap_tokens should be less than half of max_tokens ({})",
                    opts.max_tokens
                ),
                get("overlap_tokens"),
            ));
        }
        if errors.is_empty() {
            Ok(opts)
        } else {
            Err(errors)
        }
    }
}

/// Adds the chunk options to the OpenAPI schema of the job form. Each description says it is
/// accepted only with `output_format=chunks` (422 otherwise); the schema does not say it with
/// an `if`/`then`, which schemathesis cannot judge over a form with a binary field.
pub fn openapi_form_fields(form: &mut Value) {
    let props = &mut form["properties"];
    props["max_tokens"] = json!({
        "type": ["integer", "string"], "minimum": MIN_MAX_TOKENS, "maximum": MAX_MAX_TOKENS,
        "pattern": "^[0-9]+$",
        "description": "Chunks only: the most tokens a chunk may hold, heading path included \
            (default 512). A single table row longer than this is one chunk flagged oversized."
    });
    props["overlap_tokens"] = json!({
        "type": ["integer", "string"], "minimum": 0, "pattern": "^[0-9]+$",
        "description": "Chunks only: tokens of the previous chunk's end repeated at the start \
            of the next (default 0); less than half of max_tokens, or 422."
    });
    props["tokenizer"] = json!({
        "type": "string",
        "description": "Chunks only: cl100k (default), o200k, or a tokenizer the server names \
            in CHUNK_TOKENIZERS."
    });
    props["include_heading_path"] = json!({
        "type": ["boolean", "string"],
        "enum": [true, false, "true", "false", "1", "0", "yes", "no", "on", "off"],
        "description": "Chunks only: prefix each chunk's text with its headings (default true)."
    });
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Where a fragment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Loc {
    /// Index of the part in the document.
    part: usize,
}

/// A run of the document's text that is never cut inside a chunk.
#[derive(Debug, Clone)]
struct Frag {
    range: Range<usize>,
    tokens: usize,
    kind: &'static str,
    loc: Loc,
    /// Index into the heading-path arena.
    path: usize,
    heading: bool,
    /// Always starts a chunk (a slide, a sheet).
    hard_break: bool,
    /// The table this row belongs to (index into `tables`) when its table was split.
    table: Option<usize>,
    /// The first fragment of its split table (holds the header row).
    table_head: bool,
    /// Grid rows held (zero-based, of the grid) and the grid (index into `grids`).
    grid_rows: Option<(usize, Range<usize>)>,
    /// Cannot be cut further (a table row).
    indivisible: bool,
    /// Where the fragment's last pre-tokenizer piece starts (see `tokenize::joined_count`),
    /// when the tokenizer tells.
    tail: Option<usize>,
}

/// A grid's place in its sheet, for cell ranges.
struct GridPlace {
    row0: u32,
    col0: u32,
    columns: usize,
}

/// The chunker's view of the document: its text and its fragments.
struct Plan {
    text: String,
    frags: Vec<Frag>,
    paths: Vec<Vec<String>>,
    /// Header rows (with their separator line) of split tables.
    tables: Vec<String>,
    grids: Vec<GridPlace>,
}

struct Builder<'a> {
    doc: &'a Document,
    counter: &'a dyn TokenCounter,
    opts: &'a ChunkOptions,
    plan: Plan,
    /// (level, heading text); level 0 is a sheet's name.
    stack: Vec<(u8, String)>,
    path_dirty: bool,
    part: usize,
    pending_break: bool,
    /// The list markers of the current run of blocks (a part's blocks, then its notes), as
    /// the Markdown output writes them.
    markers: markdown::ListMarkers,
}

impl<'a> Builder<'a> {
    fn path_id(&mut self) -> usize {
        if self.path_dirty || self.plan.paths.is_empty() {
            self.plan
                .paths
                .push(self.stack.iter().map(|(_, t)| t.clone()).collect());
            self.path_dirty = false;
        }
        self.plan.paths.len() - 1
    }

    /// The budget a fragment is cut to: what is left of `max_tokens` after the heading path
    /// and the overlap.
    fn split_budget(&self) -> usize {
        let o = self.opts;
        let prefix = if o.include_heading_path {
            let p: usize = self.stack.iter().map(|(_, t)| t.len()).sum();
            // Headings are short; bytes bound their tokens.
            (p + self.stack.len() * 2).min(o.max_tokens / 4)
        } else {
            0
        };
        o.max_tokens
            .saturating_sub(prefix + o.overlap_tokens + 4)
            .max(o.max_tokens / 4)
            .max(1)
    }

    fn document(&mut self) {
        let doc = self.doc;
        for (i, part) in doc.parts.iter().enumerate() {
            self.part = i;
            self.start_part(part);
            self.markers = Default::default();
            for block in &part.blocks {
                self.block(block);
            }
            self.markers = Default::default();
            if !part.notes.is_empty() {
                self.stack.push((7, "Notes".to_owned()));
                self.path_dirty = true;
                for block in &part.notes {
                    self.block(block);
                }
            }
        }
    }

    fn start_part(&mut self, part: &Part) {
        match part.kind {
            PartKind::Slide => {
                self.stack.clear();
                self.path_dirty = true;
                self.pending_break = true;
            }
            PartKind::Sheet => {
                self.stack.clear();
                let name = part.name.clone().unwrap_or_else(|| "Sheet".to_owned());
                self.stack.push((0, fold(&name)));
                self.path_dirty = true;
                self.pending_break = true;
            }
            PartKind::Page | PartKind::Section => {
                // Notes of the previous part no longer apply.
                if self.stack.last().is_some_and(|(l, _)| *l == 7) {
                    self.stack.pop();
                    self.path_dirty = true;
                }
            }
        }
    }

    /// Appends `text` (one block's rendering) to the document's text; its range.
    fn push_text(&mut self, text: &str) -> Range<usize> {
        if !self.plan.text.is_empty() {
            self.plan.text.push_str("\n\n");
        }
        let start = self.plan.text.len();
        self.plan.text.push_str(text);
        start..self.plan.text.len()
    }

    /// Counts `plan.text[range]`: its tokens and where its last piece starts.
    fn measure(&self, range: &Range<usize>) -> (usize, Option<usize>) {
        measure(&self.plan.text, range, self.counter)
    }

    fn frag(
        &mut self,
        range: Range<usize>,
        (tokens, tail): (usize, Option<usize>),
        kind: &'static str,
    ) -> Frag {
        let path = self.path_id();
        let hard_break = std::mem::take(&mut self.pending_break);
        Frag {
            tail,
            range,
            tokens,
            kind,
            loc: Loc { part: self.part },
            path,
            heading: false,
            hard_break,
            table: None,
            table_head: false,
            grid_rows: None,
            indivisible: false,
        }
    }

    fn block(&mut self, block: &Block) {
        let alternate = self.markers.next(block);
        if let Block::Heading { level, content } = block {
            let text = markdown::block(block, ImageMode::Reference, alternate);
            if text.is_empty() {
                return;
            }
            let level = (*level).clamp(1, 6);
            while self.stack.last().is_some_and(|(l, _)| *l >= level) {
                self.stack.pop();
            }
            self.stack.push((level, fold(&plain_inlines(content))));
            self.path_dirty = true;
            let range = self.push_text(&text);
            let counted = self.measure(&range);
            let mut f = self.frag(range.clone(), counted, "heading");
            f.heading = true;
            self.plan.frags.push(f);
            if counted.0 > self.split_budget() {
                // A heading longer than a chunk: cut like text, still a heading.
                let f = self.plan.frags.pop().expect("just pushed");
                self.split_text(range, "heading", Some(f));
            }
            return;
        }
        let text = markdown::block(block, ImageMode::Reference, alternate);
        if text.is_empty() {
            return;
        }
        let kind = kind_of(block);
        let range = self.push_text(&text);
        let counted = self.measure(&range);
        let tokens = counted.0;
        let grid_place = if let Block::Grid(grid) = block {
            let (row0, col0) = grid.origin().unwrap_or((0, 0));
            self.plan.grids.push(GridPlace {
                row0,
                col0,
                columns: grid.columns(),
            });
            Some((self.plan.grids.len() - 1, grid.rows()))
        } else {
            None
        };
        if tokens <= self.opts.max_tokens {
            let mut f = self.frag(range, counted, kind);
            if let Some((g, rows)) = grid_place {
                f.grid_rows = Some((g, 0..rows));
            }
            self.plan.frags.push(f);
            return;
        }
        match block {
            Block::Table(_) | Block::Grid(_) => self.split_table(range, kind, grid_place),
            Block::List(list) => self.split_list(range, list),
            _ => self.split_text(range, kind, None),
        }
    }

    /// A table over the limit: the header row (with its separator) and the first row form
    /// the first fragment, every further row one fragment; chunks that continue the table
    /// repeat the header.
    fn split_table(
        &mut self,
        range: Range<usize>,
        kind: &'static str,
        grid: Option<(usize, usize)>,
    ) {
        let text = self.plan.text[range.clone()].to_owned();
        let mut lines: Vec<Range<usize>> = Vec::new();
        let mut at = 0;
        for line in text.split('\n') {
            lines.push(range.start + at..range.start + at + line.len());
            at += line.len() + 1;
        }
        let head_lines = if lines.len() >= 2 { 2 } else { lines.len() };
        let header = self.plan.text[lines[0].start..lines[head_lines - 1].end].to_owned();
        self.plan.tables.push(header);
        let table = self.plan.tables.len() - 1;
        // Grid rows map one to one on lines when no cell broke a line.
        let grid = grid.filter(|(_, rows)| lines.len() == rows + 1);
        let budget = self.split_budget();
        let header_tokens = self
            .counter
            .count(&self.plan.text[lines[0].start..lines[head_lines - 1].end]);
        let mut pieces: Vec<(Range<usize>, Range<usize>)> = Vec::new(); // (text, grid rows)
        if lines.len() > head_lines {
            let first = lines[0].start..lines[head_lines].end;
            let first_tokens = self.counter.count(&self.plan.text[first.clone()]);
            if first_tokens <= budget || header_tokens * 2 > budget {
                pieces.push((first, 0..2));
            } else {
                pieces.push((lines[0].start..lines[head_lines - 1].end, 0..1));
                pieces.push((lines[head_lines].clone(), 1..2));
            }
            for (i, line) in lines.iter().enumerate().skip(head_lines + 1) {
                pieces.push((line.clone(), i - 1..i));
            }
        } else {
            pieces.push((range.clone(), 0..1));
        }
        for (n, (r, rows)) in pieces.into_iter().enumerate() {
            let counted = self.measure(&r);
            let mut f = self.frag(r, counted, kind);
            f.table = Some(table);
            f.table_head = n == 0;
            f.indivisible = true;
            if let Some((g, _)) = grid {
                f.grid_rows = Some((g, rows));
            }
            self.plan.frags.push(f);
        }
    }

    /// A list over the limit: one fragment per top-level item (a line that starts at the
    /// margin), an item over the budget cut like text.
    fn split_list(&mut self, range: Range<usize>, _list: &List) {
        let text = self.plan.text[range.clone()].to_owned();
        let mut starts = vec![0];
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            if at > 0 && line.starts_with(|c: char| !c.is_whitespace()) {
                starts.push(at);
            }
            at += line.len();
        }
        starts.push(text.len());
        let budget = self.split_budget();
        for w in starts.windows(2) {
            let item = &text[w[0]..w[1]];
            let trimmed = item.trim_end();
            if trimmed.is_empty() {
                continue;
            }
            let r = range.start + w[0]..range.start + w[0] + trimmed.len();
            let counted = self.measure(&r);
            if counted.0 <= budget {
                let f = self.frag(r, counted, "list");
                self.plan.frags.push(f);
            } else {
                self.split_text(r, "list", None);
            }
        }
    }

    /// Cuts text at the coarsest boundaries that make pieces fit the budget: blank lines,
    /// line breaks, sentence ends, spaces, then characters.
    fn split_text(&mut self, range: Range<usize>, kind: &'static str, like: Option<Frag>) {
        let budget = self.split_budget();
        let mut pieces = Vec::new();
        cut(&self.plan.text, range, budget, self.counter, 0, &mut pieces);
        for (r, counted) in pieces {
            let mut f = self.frag(r, counted, kind);
            if let Some(l) = &like {
                f.heading = l.heading;
                f.hard_break |= l.hard_break;
            }
            self.plan.frags.push(f);
        }
    }
}

/// Boundary levels of [`cut`].
const LEVELS: usize = 5;

/// Where `text` may be cut at `level`: byte offsets (relative) where a piece starts.
fn boundaries(text: &str, level: usize) -> Vec<usize> {
    let mut out = Vec::new();
    match level {
        0 => {
            let mut from = 0;
            while let Some(i) = text[from..].find("\n\n") {
                let mut j = from + i;
                while text[j..].starts_with('\n') {
                    j += 1;
                }
                if j < text.len() {
                    out.push(j);
                }
                from = j;
            }
        }
        1 => {
            for (i, _) in text.match_indices('\n') {
                if i + 1 < text.len() {
                    out.push(i + 1);
                }
            }
        }
        2 => {
            // After . ! ? (and a closing quote or bracket) followed by whitespace.
            let b = text.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if matches!(b[i], b'.' | b'!' | b'?') {
                    let mut j = i + 1;
                    while j < b.len() && matches!(b[j], b'"' | b'\'' | b')' | b']') {
                        j += 1;
                    }
                    if j < b.len() && b[j].is_ascii_whitespace() {
                        while j < b.len() && b[j].is_ascii_whitespace() {
                            j += 1;
                        }
                        if j < b.len() {
                            out.push(j);
                        }
                        i = j;
                        continue;
                    }
                }
                i += 1;
            }
        }
        3 => {
            let mut prev_space = false;
            for (i, c) in text.char_indices() {
                if prev_space && !c.is_whitespace() {
                    out.push(i);
                }
                prev_space = c.is_whitespace();
            }
        }
        _ => {
            out.extend(text.char_indices().map(|(i, _)| i).skip(1));
        }
    }
    out
}

/// A piece of text, its count and where its last pre-tokenizer piece starts.
type Counted = (Range<usize>, (usize, Option<usize>));

/// Counts `doc_text[range]`: its tokens and where its last piece starts (in `doc_text`).
fn measure(
    doc_text: &str,
    range: &Range<usize>,
    counter: &dyn TokenCounter,
) -> (usize, Option<usize>) {
    let (tokens, tail) = counter.count_tail(&doc_text[range.clone()]);
    (tokens, tail.map(|t| range.start + t))
}

/// Cuts `doc_text[range]` into pieces of at most `budget` tokens (exactly counted), each
/// trimmed of trailing whitespace, appended to `out` with their counts.
fn cut(
    doc_text: &str,
    range: Range<usize>,
    budget: usize,
    counter: &dyn TokenCounter,
    level: usize,
    out: &mut Vec<Counted>,
) {
    let text = &doc_text[range.clone()];
    if text.trim().is_empty() {
        return;
    }
    // Counted without the trailing whitespace, as the piece is kept.
    let trimmed = range.start..range.start + text.trim_end().len();
    let counted = measure(doc_text, &trimmed, counter);
    if counted.0 <= budget {
        out.push((trimmed, counted));
        return;
    }
    if level >= LEVELS - 1 {
        cut_chars(doc_text, range, budget, counter, out);
        return;
    }
    let mut starts = boundaries(text, level);
    if starts.is_empty() {
        cut(doc_text, range, budget, counter, level + 1, out);
        return;
    }
    starts.insert(0, 0);
    starts.push(text.len());
    // Segments at this level, packed greedily by their summed counts, each pack checked.
    let segs: Vec<(usize, usize, usize)> = starts
        .windows(2)
        .map(|w| (w[0], w[1], counter.count(&text[w[0]..w[1]])))
        .collect();
    let mut i = 0;
    while i < segs.len() {
        let mut j = i;
        let mut sum = 0;
        while j < segs.len() && (j == i || sum + segs[j].2 <= budget) {
            sum += segs[j].2;
            j += 1;
        }
        // Check the pack as a whole and give back segments while it is over.
        loop {
            let r = range.start + segs[i].0..range.start + segs[j - 1].1;
            if j - i == 1 {
                cut(doc_text, r, budget, counter, level + 1, out);
                break;
            }
            let t = &doc_text[r.clone()];
            let trimmed = r.start..r.start + t.trim_end().len();
            let counted = measure(doc_text, &trimmed, counter);
            if counted.0 <= budget {
                if !t.trim().is_empty() {
                    out.push((trimmed, counted));
                }
                break;
            }
            j -= 1;
        }
        i = j;
    }
}

/// The last resort: characters, as many as fit.
fn cut_chars(
    doc_text: &str,
    range: Range<usize>,
    budget: usize,
    counter: &dyn TokenCounter,
    out: &mut Vec<Counted>,
) {
    let mut start = range.start;
    while start < range.end {
        let rest = &doc_text[start..range.end];
        if rest.trim().is_empty() {
            break;
        }
        // Start from a generous guess and shrink by a quarter until it fits.
        let mut len = rest.len().min(budget.saturating_mul(8).max(4));
        loop {
            while !rest.is_char_boundary(len) {
                len -= 1;
            }
            let piece = start..start + len;
            let counted = measure(doc_text, &piece, counter);
            if counted.0 <= budget || len <= rest.chars().next().map_or(1, char::len_utf8) {
                out.push((piece, counted));
                break;
            }
            len = (len * 3 / 4).max(1);
        }
        start += len;
    }
}

fn kind_of(block: &Block) -> &'static str {
    match block {
        Block::Heading { .. } => "heading",
        Block::Paragraph(_) => "paragraph",
        Block::List(_) => "list",
        Block::Table(_) | Block::Grid(_) => "table",
        Block::Image(_) => "image",
        Block::Code { .. } => "code",
        Block::Quote(_) => "quote",
        Block::Note { .. } => "note",
        Block::Rule => "rule",
    }
}

/// One finished chunk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chunk {
    pub id: String,
    pub text: String,
    /// Byte offset in `text` where the chunk's own content starts (after the heading path,
    /// the overlap and a repeated table header).
    pub content_start: usize,
    pub heading_path: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slide: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
    /// The sheet cells the chunk's table rows come from ("A1:D20"), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell_range: Option<String>,
    pub block_kinds: Vec<&'static str>,
    pub token_count: usize,
    /// Only when true: a single table row longer than `max_tokens`, which is never cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub oversized: bool,
}

/// Chunks of a document.
pub fn chunk(doc: &Document, opts: &ChunkOptions) -> Result<Vec<Chunk>, String> {
    let counter = tokenize::counter(&opts.tokenizer)?;
    Ok(chunk_with(doc, opts, counter.as_ref()))
}

/// The document's text as defined above (for tests and the corpus check).
pub fn document_text(doc: &Document) -> String {
    let mut out = String::new();
    for part in &doc.parts {
        for run in [&part.blocks, &part.notes] {
            let mut markers = markdown::ListMarkers::default();
            for block in run {
                let t = markdown::block(block, ImageMode::Reference, markers.next(block));
                if t.is_empty() {
                    continue;
                }
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(&t);
            }
        }
    }
    out
}

pub fn chunk_with(doc: &Document, opts: &ChunkOptions, counter: &dyn TokenCounter) -> Vec<Chunk> {
    let mut b = Builder {
        doc,
        counter,
        opts,
        plan: Plan {
            text: String::new(),
            frags: Vec::new(),
            paths: Vec::new(),
            tables: Vec::new(),
            grids: Vec::new(),
        },
        stack: Vec::new(),
        path_dirty: true,
        part: 0,
        pending_break: false,
        markers: Default::default(),
    };
    b.document();
    Assembler {
        doc,
        opts,
        counter,
        plan: &b.plan,
        chunks: Vec::new(),
    }
    .run()
}

struct Assembler<'a> {
    doc: &'a Document,
    opts: &'a ChunkOptions,
    counter: &'a dyn TokenCounter,
    plan: &'a Plan,
    chunks: Vec<Chunk>,
}

/// How a chunk's text is put together.
struct Framing {
    prefix: String,
    overlap: String,
    header: String,
    /// Tokens of `prefix`, `overlap` and `header` each alone.
    tokens: [usize; 3],
}

impl Framing {
    fn new(prefix: String, overlap: String, header: String, counter: &dyn TokenCounter) -> Framing {
        let tokens = [
            counter.count(&prefix),
            counter.count(&overlap),
            counter.count(&header),
        ];
        Framing {
            prefix,
            overlap,
            header,
            tokens,
        }
    }

    fn bare() -> Framing {
        Framing {
            prefix: String::new(),
            overlap: String::new(),
            header: String::new(),
            tokens: [0; 3],
        }
    }

    /// Whether the framing's count plus the content's is the count of both together: every
    /// part ends in line breaks after non-blank text (see `tokenize::joined_count`; the parts
    /// and the content start on a non-blank character).
    fn joins(&self) -> bool {
        [&self.prefix, &self.overlap, &self.header]
            .iter()
            .all(|p| p.is_empty() || ends_in_breaks(p))
    }
}

/// `text` is non-blank text followed by line breaks (`\r`, `\n`) only.
fn ends_in_breaks(text: &str) -> bool {
    let body = text.trim_end_matches(['\r', '\n']);
    body.len() < text.len()
        && !text.starts_with(char::is_whitespace)
        && body.chars().next_back().is_some_and(|c| !c.is_whitespace())
}

impl Assembler<'_> {
    fn run(mut self) -> Vec<Chunk> {
        let frags = &self.plan.frags;
        let mut a = 0;
        let mut prev_own: Option<(usize, usize)> = None; // frag range of the previous chunk
        while a < frags.len() {
            // Extend while the next fragment may join and the estimate fits.
            let framing = self.framing(a, prev_own);
            let reserve = framing.tokens.iter().sum::<usize>() + 2;
            let budget = self.opts.max_tokens.saturating_sub(reserve);
            let mut b = a + 1;
            let mut est = frags[a].tokens;
            while b < frags.len() && self.may_join(a, b) && est + 1 + frags[b].tokens <= budget {
                est += 1 + frags[b].tokens;
                b += 1;
            }
            // Exact count, giving back fragments while over; then framing falls away.
            loop {
                let chunk = self.build(a, b, &framing);
                if chunk.token_count <= self.opts.max_tokens {
                    self.chunks.push(chunk);
                    break;
                }
                if b - a > 1 {
                    b -= 1;
                    continue;
                }
                // One fragment: without overlap, then without the heading path.
                let lean = Framing {
                    tokens: [0, 0, framing.tokens[2]],
                    header: framing.header.clone(),
                    ..Framing::bare()
                };
                let mut chunk = self.build(a, b, &lean);
                if chunk.token_count > self.opts.max_tokens {
                    let without_header = self.build(a, b, &Framing::bare());
                    if without_header.token_count <= self.opts.max_tokens
                        && frags[a].table.is_none()
                    {
                        chunk = without_header;
                    } else {
                        chunk.oversized = true;
                    }
                }
                self.chunks.push(chunk);
                break;
            }
            prev_own = Some((a, b));
            a = b;
        }
        self.chunks
    }

    /// Whether fragment `b` may join the chunk that starts at `a` (and holds `a..b`).
    fn may_join(&self, a: usize, b: usize) -> bool {
        let frags = &self.plan.frags;
        let f = &frags[b];
        if f.hard_break {
            return false;
        }
        let only_headings = frags[a..b].iter().all(|x| x.heading);
        if f.heading {
            return only_headings;
        }
        // A change of heading path outside leading headings (notes, for one).
        if !only_headings && f.path != frags[b - 1].path {
            return false;
        }
        // A table continues in a chunk of its own rather than after other content.
        true
    }

    fn framing(&self, a: usize, prev: Option<(usize, usize)>) -> Framing {
        let frags = &self.plan.frags;
        let f = &frags[a];
        let path = &self.plan.paths[f.path];
        let prefix = if self.opts.include_heading_path {
            let ancestors = if f.heading {
                &path[..path.len().saturating_sub(1)]
            } else {
                &path[..]
            };
            let mut p = ancestors.join("\n");
            // The path may take at most a quarter of the chunk: outer headings go first.
            let mut skip = 0;
            while !p.is_empty() && self.counter.count(&p) > self.opts.max_tokens / 4 {
                skip += 1;
                p = ancestors[skip.min(ancestors.len())..].join("\n");
            }
            if p.is_empty() {
                p
            } else {
                p + "\n\n"
            }
        } else {
            String::new()
        };
        let continues_table = f.table.is_some() && !f.table_head;
        let header = match f.table {
            Some(t) if continues_table => format!("{}\n", self.plan.tables[t]),
            _ => String::new(),
        };
        let overlap = match prev {
            Some((pa, pb))
                if self.opts.overlap_tokens > 0
                    && !continues_table
                    && !f.hard_break
                    && !f.heading
                    && frags[pb - 1].path == f.path =>
            {
                let own = self.plan.text[frags[pa].range.start..frags[pb - 1].range.end].trim();
                let tail = tail_tokens(own, self.opts.overlap_tokens, self.counter);
                if tail.is_empty() {
                    String::new()
                } else {
                    format!("{tail}\n\n")
                }
            }
            _ => String::new(),
        };
        Framing::new(prefix, overlap, header, self.counter)
    }

    /// The tokens of `own` (the text of `frags`, which it must span exactly) from the
    /// fragments' own counts, joined at their line breaks; `None` when a joint does not allow
    /// it (see `tokenize::joined_count`).
    fn own_tokens(&self, frags: &[Frag], own: &str) -> Option<usize> {
        let text = &self.plan.text;
        let (first, last) = (&frags[0], &frags[frags.len() - 1]);
        if own.len() != last.range.end - first.range.start || own.starts_with(char::is_whitespace) {
            return None;
        }
        first.tail?;
        let mut total = first.tokens;
        for w in frags.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            total = tokenize::joined_count(
                self.counter,
                &text[a.range.clone()],
                total,
                Some(a.tail? - a.range.start),
                &text[a.range.end..b.range.start],
                &text[b.range.clone()],
                b.tokens,
            )?;
        }
        Some(total)
    }

    fn build(&self, a: usize, b: usize, framing: &Framing) -> Chunk {
        let frags = &self.plan.frags[a..b];
        let own = self.plan.text[frags[0].range.start..frags[frags.len() - 1].range.end].trim();
        let mut text = String::with_capacity(
            framing.prefix.len() + framing.overlap.len() + framing.header.len() + own.len(),
        );
        text.push_str(&framing.prefix);
        text.push_str(&framing.overlap);
        text.push_str(&framing.header);
        let content_start = text.len();
        text.push_str(own);
        // The fragments were counted once; the chunk's count is theirs joined when the
        // tokenizer allows it (counting every chunk again cost as much as the first count).
        let joined = framing
            .joins()
            .then(|| self.own_tokens(frags, own))
            .flatten()
            .map(|n| n + framing.tokens.iter().sum::<usize>());
        // (The unit tests and the corpus chunks test check every count against the text's.)
        let token_count = match joined {
            Some(n) => n,
            None => self.counter.count(&text),
        };
        let path_frag = frags
            .iter()
            .find(|f| !f.heading)
            .unwrap_or(&frags[frags.len() - 1]);
        let heading_path = self.plan.paths[path_frag.path].clone();
        let mut kinds: Vec<&'static str> = Vec::new();
        for f in frags {
            if !kinds.contains(&f.kind) {
                kinds.push(f.kind);
            }
        }
        let part = &self.doc.parts[frags[0].loc.part];
        let (mut pages, mut slide, mut sheet) = (None, None, None);
        match part.kind {
            PartKind::Page => {
                let mut p: Vec<u32> = frags
                    .iter()
                    .map(|f| self.doc.parts[f.loc.part].number)
                    .collect();
                p.dedup();
                pages = Some(p);
            }
            PartKind::Slide => slide = Some(part.number),
            PartKind::Sheet => {
                sheet = Some(part.name.clone().unwrap_or_else(|| "Sheet".to_owned()))
            }
            PartKind::Section => {}
        }
        let cell_range = self.cell_range(frags);
        let mut hash = Sha256::new();
        hash.update((self.chunks.len() as u64).to_le_bytes());
        hash.update(own.as_bytes());
        let digest = hash.finalize();
        let id = format!(
            "{:05}-{}",
            self.chunks.len(),
            digest[..6]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        Chunk {
            id,
            text,
            content_start,
            heading_path,
            pages,
            slide,
            sheet,
            cell_range,
            block_kinds: kinds,
            token_count,
            oversized: false,
        }
    }

    fn cell_range(&self, frags: &[Frag]) -> Option<String> {
        let mut bounds: Option<(u32, u32, u32, u32)> = None;
        for f in frags {
            let Some((g, rows)) = &f.grid_rows else {
                continue;
            };
            let place = &self.plan.grids[*g];
            if rows.is_empty() || place.columns == 0 {
                continue;
            }
            let r0 = place.row0 + rows.start as u32;
            let r1 = place.row0 + rows.end as u32 - 1;
            let c0 = place.col0;
            let c1 = place.col0 + place.columns as u32 - 1;
            bounds = Some(match bounds {
                None => (r0, c0, r1, c1),
                Some((a, b, c, d)) => (a.min(r0), b.min(c0), c.max(r1), d.max(c1)),
            });
        }
        bounds.map(|(r0, c0, r1, c1)| {
            format!(
                "{}{}:{}{}",
                column_name(c0),
                r0 + 1,
                column_name(c1),
                r1 + 1
            )
        })
    }
}

/// "A", "B", ..., "Z", "AA", ... for a zero-based column.
pub fn column_name(mut c: u32) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'A' + (c % 26) as u8);
        if c < 26 {
            break;
        }
        c = c / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).expect("ASCII")
}

/// The longest tail of `text` starting at a word that has at most `max` tokens.
fn tail_tokens<'t>(text: &'t str, max: usize, counter: &dyn TokenCounter) -> &'t str {
    // Tokens are rarely longer than 8 bytes: look no further back than that.
    let window = max.saturating_mul(8).min(text.len());
    let mut start = text.len() - window;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let mut starts: Vec<usize> = text[start..]
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace()
                && (i + start == 0
                    || text[..i + start]
                        .chars()
                        .next_back()
                        .is_some_and(char::is_whitespace))
        })
        .map(|(i, _)| i + start)
        .collect();
    starts.dedup();
    // The earliest start that fits (counts shrink as the start moves on).
    let (mut lo, mut hi) = (0, starts.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if counter.count(&text[starts[mid]..]) <= max {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    match starts.get(lo) {
        Some(&s) => &text[s..],
        None => "",
    }
}

/// The `document` object of the chunks output and its chunks, as JSON.
pub fn output(doc: &Document, file_name: &str, opts: &ChunkOptions, chunks: &[Chunk]) -> Value {
    let kind = match doc.kind {
        DocumentKind::Paged => "paged",
        DocumentKind::Presentation => "presentation",
        DocumentKind::Spreadsheet => "spreadsheet",
        DocumentKind::Flowing => "flowing",
        DocumentKind::Image => "image",
        DocumentKind::StructuredData => "structured_data",
    };
    let mut document = super::json::document_header(doc, file_name);
    document["kind"] = json!(kind);
    json!({
        "document": document,
        "chunking": {
            "tokenizer": opts.tokenizer.name,
            "max_tokens": opts.max_tokens,
            "overlap_tokens": opts.overlap_tokens,
            "include_heading_path": opts.include_heading_path,
        },
        "chunks": chunks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_plugin_api::{Cell, Grid, Inline, ListItem, Table};
    use std::sync::Arc;

    /// Whitespace-separated words: a tokenizer whose counts are easy to reason about.
    struct Words;
    impl TokenCounter for Words {
        fn count(&self, text: &str) -> usize {
            text.split_whitespace().count()
        }
    }

    fn opts(max: usize) -> ChunkOptions {
        ChunkOptions {
            max_tokens: max,
            ..ChunkOptions::default()
        }
    }

    fn para(words: usize, tag: &str) -> Block {
        let text: Vec<String> = (0..words)
            .map(|i| {
                if i % 10 == 9 {
                    format!("{tag}{i}.")
                } else {
                    format!("{tag}{i}")
                }
            })
            .collect();
        Block::text(text.join(" "))
    }

    /// Checks the invariants every chunking must keep, whatever the document.
    fn check(doc: &Document, chunks: &[Chunk], opts: &ChunkOptions, counter: &dyn TokenCounter) {
        let text = document_text(doc);
        let mut at = 0;
        for c in chunks {
            assert_eq!(c.token_count, counter.count(&c.text), "{}", c.id);
            assert!(
                c.token_count <= opts.max_tokens || c.oversized,
                "chunk {} has {} tokens: {:?}",
                c.id,
                c.token_count,
                c.text
            );
            let own = &c.text[c.content_start..];
            assert!(!own.is_empty());
            let gap_end = at + text[at..].len() - text[at..].trim_start().len();
            assert!(
                text[gap_end..].starts_with(own),
                "chunk {} does not continue the text at {gap_end}: {own:?}",
                c.id
            );
            at = gap_end + own.len();
        }
        assert!(
            text[at..].trim().is_empty(),
            "text left over: {:?}",
            &text[at..]
        );
    }

    #[test]
    fn adjacent_lists_keep_the_markers_of_the_markdown_output() {
        let list = |start: u64, t: &str| {
            Block::List(List {
                ordered: true,
                start,
                items: vec![ListItem {
                    blocks: vec![Block::text(t)],
                    checked: None,
                }],
            })
        };
        let doc = flowing(vec![list(1, "a"), list(5, "e")]);
        let o = opts(512);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        assert!(
            chunks[0].text.contains("1. a\n\n5) e"),
            "{:?}",
            chunks[0].text
        );
        assert_eq!(
            document_text(&doc),
            markdown::blocks(&doc.parts[0].blocks, ImageMode::Reference)
        );
    }

    fn flowing(blocks: Vec<Block>) -> Document {
        let mut doc = Document::new(DocumentKind::Flowing, "Test");
        let mut part = Part::section();
        part.blocks = blocks;
        doc.parts.push(part);
        doc
    }

    #[test]
    fn small_neighbours_merge_and_headings_start_chunks() {
        let doc = flowing(vec![
            Block::heading(1, "Guide"),
            Block::heading(2, "Install"),
            para(5, "a"),
            para(5, "b"),
            Block::heading(2, "Use"),
            para(5, "c"),
        ]);
        let o = opts(100);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].heading_path, ["Guide", "Install"]);
        assert!(chunks[0].text.starts_with("# Guide\n\n## Install\n\na0"));
        assert_eq!(chunks[0].content_start, 0);
        assert_eq!(chunks[0].block_kinds, ["heading", "paragraph"]);
        assert_eq!(chunks[1].heading_path, ["Guide", "Use"]);
        // The heading path above the chunk's own heading is its prefix.
        assert!(chunks[1].text.starts_with("Guide\n\n## Use\n\nc0"));
        let no_path = ChunkOptions {
            include_heading_path: false,
            ..o
        };
        let plain = chunk_with(&doc, &no_path, &Words);
        assert!(plain[1].text.starts_with("## Use"));
        assert!(chunks
            .iter()
            .all(|c| c.pages.is_none() && c.slide.is_none()));
    }

    #[test]
    fn long_paragraphs_split_at_sentences() {
        let doc = flowing(vec![Block::heading(1, "Long"), para(95, "w")]);
        let o = opts(30);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        assert!(chunks.len() >= 4);
        for c in &chunks[..chunks.len() - 1] {
            // Every cut is at a sentence end.
            assert!(c.text.ends_with('.'), "{:?}", c.text);
            assert_eq!(c.heading_path, ["Long"]);
        }
        // Continuations carry the heading path as a prefix.
        assert!(chunks[1].text.starts_with("Long\n\n"));
        assert_eq!(chunks[1].content_start, "Long\n\n".len());
    }

    #[test]
    fn words_and_characters_are_the_last_resort() {
        let long_word = "x".repeat(5000);
        let doc = flowing(vec![Block::text(format!(
            "{} {long_word}",
            "word ".repeat(50)
        ))]);
        let o = opts(16);
        let c = chunk(
            &doc,
            &ChunkOptions {
                tokenizer: TokenizerSpec::default(),
                ..o.clone()
            },
        )
        .unwrap();
        let counter = tokenize::counter(&TokenizerSpec::default()).unwrap();
        check(&doc, &c, &o, counter.as_ref());
        assert!(c.iter().all(|c| !c.oversized));
    }

    fn table(rows: usize) -> Block {
        let mut all = vec![vec![Cell::text("Name"), Cell::text("Value")]];
        for i in 0..rows {
            all.push(vec![
                Cell::text(format!("n{i}")),
                Cell::text(format!("v{i} x y")),
            ]);
        }
        Block::Table(Table {
            header_rows: 1,
            rows: all,
        })
    }

    #[test]
    fn a_table_that_fits_is_never_split() {
        // 10 + 10 rows * 7 words = 80 words: fits 100 but not what is left after the paragraph.
        let doc = flowing(vec![para(40, "p"), table(10), para(5, "q")]);
        let o = opts(100);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        let holding: Vec<_> = chunks.iter().filter(|c| c.text.contains("| n")).collect();
        assert_eq!(holding.len(), 1);
        assert!(holding[0].text.contains("| n0 |") && holding[0].text.contains("| n9 |"));
    }

    #[test]
    fn a_split_table_repeats_its_header() {
        let doc = flowing(vec![Block::heading(2, "Data"), table(60)]);
        let o = opts(40);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        assert!(chunks.len() >= 6);
        for (i, c) in chunks.iter().enumerate() {
            assert!(
                c.text.contains("| Name | Value |\n| --- | --- |"),
                "{:?}",
                c.text
            );
            assert_eq!(c.heading_path, ["Data"]);
            let kinds: &[&str] = if i == 0 {
                &["heading", "table"]
            } else {
                &["table"]
            };
            assert_eq!(c.block_kinds, kinds);
            if i > 0 {
                // The repeated header is not the chunk's own content.
                assert!(c.text[..c.content_start].ends_with("| --- | --- |\n"));
                assert!(c.text[c.content_start..].starts_with("| n"));
            }
        }
        // Rows are never cut.
        for c in &chunks {
            for line in c.text.lines().filter(|l| l.starts_with("| n")) {
                assert!(line.ends_with(" |"));
            }
        }
    }

    #[test]
    fn a_row_over_the_limit_is_one_flagged_chunk() {
        let mut t = vec![vec![Cell::text("H")]];
        t.push(vec![Cell::text("word ".repeat(50))]);
        t.push(vec![Cell::text("small")]);
        let doc = flowing(vec![Block::Table(Table {
            header_rows: 1,
            rows: t,
        })]);
        let o = opts(20);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        assert_eq!(chunks.iter().filter(|c| c.oversized).count(), 1);
    }

    #[test]
    fn lists_split_between_items() {
        let items = (0..30)
            .map(|i| ListItem {
                blocks: vec![Block::text(format!("item {i} has four words"))],
                checked: None,
            })
            .collect();
        let doc = flowing(vec![Block::List(List {
            ordered: true,
            start: 1,
            items,
        })]);
        let o = opts(32);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        assert!(chunks.len() > 3);
        for c in &chunks {
            for line in c.text.lines() {
                assert!(line.ends_with("four words"), "{line:?}");
            }
        }
        assert!(chunks[1]
            .text
            .starts_with(&format!("{}. item", chunks[0].text.lines().count() + 1)));
    }

    #[test]
    fn pages_slides_and_sheets_are_located() {
        let mut doc = Document::new(DocumentKind::Paged, "PDF");
        for n in 1..=3 {
            let mut p = Part::page(n);
            if n == 2 {
                p.blocks.push(Block::heading(1, "Second"));
            }
            p.blocks.push(para(8, &format!("p{n}w")));
            doc.parts.push(p);
        }
        let o = opts(100);
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].pages.as_deref(), Some(&[1][..]));
        assert!(chunks[0].heading_path.is_empty());
        // The heading on page 2 runs on over page 3.
        assert_eq!(chunks[1].pages.as_deref(), Some(&[2, 3][..]));
        assert_eq!(chunks[1].heading_path, ["Second"]);

        let mut deck = Document::new(DocumentKind::Presentation, "PPTX");
        for n in 1..=2 {
            let mut p = Part::slide(n);
            p.blocks.push(Block::heading(1, format!("Slide {n}")));
            p.blocks.push(para(3, "s"));
            p.notes.push(Block::text(format!("note {n}")));
            deck.parts.push(p);
        }
        let chunks = chunk_with(&deck, &o, &Words);
        check(&deck, &chunks, &o, &Words);
        let slides: Vec<_> = chunks.iter().map(|c| c.slide).collect();
        assert_eq!(slides, [Some(1), Some(1), Some(2), Some(2)]);
        assert_eq!(chunks[1].heading_path, ["Slide 1", "Notes"]);
        assert_eq!(chunks[2].heading_path, ["Slide 2"]);

        let mut book = Document::new(DocumentKind::Spreadsheet, "XLSX");
        let mut grid = Grid::at(2, 1);
        grid.push_row(["a", "b"]);
        for i in 0..40 {
            grid.push_row([format!("r{i}"), "x y z".to_owned()]);
        }
        let mut sheet = Part::sheet(1, "Sales");
        sheet.blocks.push(Block::Grid(Box::new(grid)));
        book.parts.push(sheet);
        let mut other = Part::sheet(2, "Other");
        other.blocks.push(Block::text("tail"));
        book.parts.push(other);
        let o = opts(50);
        let chunks = chunk_with(&book, &o, &Words);
        check(&book, &chunks, &o, &Words);
        let last = chunks.last().unwrap();
        assert_eq!(last.sheet.as_deref(), Some("Other"));
        assert_eq!(last.heading_path, ["Other"]);
        let sales: Vec<_> = chunks
            .iter()
            .filter(|c| c.sheet.as_deref() == Some("Sales"))
            .collect();
        assert!(sales.len() > 2);
        // Header at sheet row 3 (B3:C3), then one row a line.
        assert_eq!(sales[0].cell_range.as_deref().map(|r| &r[..3]), Some("B3:"));
        let rows: usize = sales
            .iter()
            .map(|c| {
                c.text[c.content_start..]
                    .lines()
                    .filter(|l| l.starts_with("| r"))
                    .count()
            })
            .sum();
        assert_eq!(rows, 40);
        let end = sales.last().unwrap().cell_range.clone().unwrap();
        assert!(end.ends_with(":C43"), "{end}");
        assert!(sales
            .iter()
            .all(|c| c.heading_path == ["Sales"] && c.text.starts_with("Sales\n\n")));
    }

    #[test]
    fn overlap_repeats_the_previous_end() {
        let doc = flowing(vec![para(120, "w")]);
        let o = ChunkOptions {
            overlap_tokens: 5,
            ..opts(40)
        };
        let chunks = chunk_with(&doc, &o, &Words);
        check(&doc, &chunks, &o, &Words);
        for pair in chunks.windows(2) {
            let prev_own = &pair[0].text[pair[0].content_start..];
            let overlap = pair[1].text[..pair[1].content_start].trim();
            assert!(!overlap.is_empty());
            assert!(prev_own.ends_with(overlap), "{overlap:?}");
            assert!(Words.count(overlap) <= 5);
        }
    }

    #[test]
    fn images_are_placeholders_with_alt_text() {
        let mut img = quire_plugin_api::Image::new("image1.png", "image/png", vec![1, 2, 3]);
        img.alt = Some("A chart".into());
        let doc = flowing(vec![Block::Paragraph(vec![
            Inline::plain("See "),
            Inline::Image(Box::new(img)),
        ])]);
        let chunks = chunk_with(&doc, &opts(100), &Words);
        assert_eq!(chunks[0].text, "See ![A chart](image1.png)");
    }

    #[test]
    fn options_are_checked() {
        let fields = |pairs: &'static [(&'static str, &'static str)]| {
            move |f: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == f)
                    .map(|(_, v)| v.to_string())
            }
        };
        let ok = ChunkOptions::from_fields(
            &fields(&[
                ("max_tokens", "256"),
                ("overlap_tokens", "32"),
                ("tokenizer", "o200k"),
                ("include_heading_path", "no"),
            ]),
            true,
            &[],
        )
        .unwrap();
        assert_eq!(
            (
                ok.max_tokens,
                ok.overlap_tokens,
                ok.tokenizer.name.as_str(),
                ok.include_heading_path
            ),
            (256, 32, "o200k", false)
        );
        let e =
            ChunkOptions::from_fields(&fields(&[("max_tokens", "256")]), false, &[]).unwrap_err();
        assert_eq!(e[0].0, "max_tokens");
        assert!(e[0].2.contains("only with output_format chunks"));
        let e = ChunkOptions::from_fields(
            &fields(&[
                ("max_tokens", "8"),
                ("tokenizer", "gpt9"),
                ("include_heading_path", "maybe"),
            ]),
            true,
            &[],
        )
        .unwrap_err();
        let names: Vec<_> = e.iter().map(|e| e.0).collect();
        assert_eq!(names, ["max_tokens", "tokenizer", "include_heading_path"]);
        let e = ChunkOptions::from_fields(&fields(&[("overlap_tokens", "256")]), true, &[])
            .unwrap_err();
        assert_eq!(e[0].0, "overlap_tokens");
        assert_eq!(
            ChunkOptions::from_fields(&fields(&[]), true, &[]).unwrap(),
            ChunkOptions::default()
        );
    }

    /// Counts with cl100k and tallies the bytes it was given.
    struct Tally(Arc<dyn TokenCounter>, std::sync::atomic::AtomicUsize);
    impl TokenCounter for Tally {
        fn count(&self, text: &str) -> usize {
            self.1
                .fetch_add(text.len(), std::sync::atomic::Ordering::Relaxed);
            self.0.count(text)
        }
        fn count_tail(&self, text: &str) -> (usize, Option<usize>) {
            self.1
                .fetch_add(text.len(), std::sync::atomic::Ordering::Relaxed);
            self.0.count_tail(text)
        }
    }

    #[test]
    fn chunks_are_counted_from_their_fragments() {
        // Joints of every kind: punctuation and letters before the blank line, headings,
        // tables (rows joined by one line break), lists, code starting with spaces, quotes,
        // digits, non-Latin text and notes.
        let mut doc = Document::new(DocumentKind::Presentation, "Deck");
        for n in 1..=6u32 {
            let mut part = Part::slide(n);
            part.blocks
                .push(Block::heading(1, format!("Slide {n}: results!")));
            part.blocks.push(para(60, &format!("s{n}w")));
            part.blocks
                .push(Block::text(format!("Ends with digits 12345{n}")));
            part.blocks
                .push(Block::text("Fin de la phrase… «citée» — 東京の天気。"));
            part.blocks.push(table(25));
            part.blocks.push(Block::Code {
                language: None,
                text: "    indented();\n  x = 1;".into(),
            });
            part.blocks.push(Block::List(List {
                ordered: false,
                start: 1,
                items: (0..12)
                    .map(|i| ListItem {
                        blocks: vec![Block::text(format!("item {i}: done."))],
                        checked: None,
                    })
                    .collect(),
            }));
            part.notes.push(Block::text(format!("Speaker note {n}?")));
            doc.parts.push(part);
        }
        let cl100k = tokenize::counter(&TokenizerSpec::default()).unwrap();
        let text_len = document_text(&doc).len();
        for max in [24, 64, 200, 512] {
            for overlap in [0, 8] {
                let o = ChunkOptions {
                    overlap_tokens: overlap,
                    ..opts(max)
                };
                let tally = Tally(cl100k.clone(), Default::default());
                let chunks = chunk_with(&doc, &o, &tally);
                // Every count is the count of the chunk's text (`check`).
                check(&doc, &chunks, &o, cl100k.as_ref());
                let counted = tally.1.load(std::sync::atomic::Ordering::Relaxed);
                if max == 512 && overlap == 0 {
                    // Fragments counted once, chunks not again (which would be 2× the text).
                    assert!(
                        counted < text_len * 3 / 2,
                        "{counted} bytes counted for {text_len} bytes of text"
                    );
                }
            }
        }
    }

    #[test]
    fn column_names() {
        assert_eq!(column_name(0), "A");
        assert_eq!(column_name(25), "Z");
        assert_eq!(column_name(26), "AA");
        assert_eq!(column_name(701), "ZZ");
        assert_eq!(column_name(702), "AAA");
    }
}
