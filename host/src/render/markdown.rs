//! Document model → Markdown (GitHub-flavoured). The only Markdown writer in quire.
//!
//! Text is escaped so that it reads back as the same text: emphasis markers, code ticks, link
//! brackets, HTML-looking `<`, entities, and line starts that would turn into headings, lists,
//! quotes or thematic breaks. Escaping is deliberately minimal elsewhere (an underscore inside
//! a word or a lone `[1]` stays as it is) so the output stays readable and searchable.

use super::ImageMode;
use base64::Engine as _;
use quire_plugin_api::tables::{flatten_spans, Slot};
use quire_plugin_api::{
    Block, Document, DocumentKind, Grid, Image, Inline, Link, List, Part, PartKind, Style, Table,
};
use std::borrow::Cow;
use std::fmt::Write as _;

/// Renders a whole document.
pub fn document(doc: &Document, images: ImageMode) -> String {
    let mut w = Writer::new(images);
    w.document(doc);
    w.out
}

/// Renders a whole document into `sink` as it goes, byte for byte what [`document`] returns,
/// without holding the whole text: finished output is handed over about every
/// [`STREAM_CHUNK`] bytes (between top-level blocks, table rows, and within long paragraphs).
pub fn write_document(
    doc: &Document,
    images: ImageMode,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_document_in(doc, images, sink, STREAM_CHUNK)
}

fn write_document_in(
    doc: &Document,
    images: ImageMode,
    sink: &mut dyn std::io::Write,
    chunk: usize,
) -> std::io::Result<()> {
    let mut w = Writer::new(images);
    w.stream.sink = Some(sink);
    w.stream.chunk = chunk;
    w.document(doc);
    if let Some(e) = w.stream.error.take() {
        return Err(e);
    }
    if let Some(sink) = w.stream.sink.as_mut() {
        sink.write_all(w.out.as_bytes())?;
    }
    Ok(())
}

/// Output gathered before it goes to the sink of [`write_document`].
pub const STREAM_CHUNK: usize = 1 << 20;

/// Whitespace a paragraph is trimmed of at both ends.
const PARAGRAPH_TRIM: [char; 3] = [' ', '\n', '\t'];

/// Which list marker each block of a run takes: the second of two adjacent lists of one kind
/// takes the other one (see `Writer::blocks`). For callers that render a run's blocks one at
/// a time ([`block`]), calling [`ListMarkers::next`] for every block of the run in order.
#[derive(Debug, Default, Clone, Copy)]
pub struct ListMarkers {
    alternate: bool,
    previous: Option<bool>,
}

impl ListMarkers {
    /// Whether `block`, the next of the run, is a list written with `N)` / `*` markers.
    pub fn next(&mut self, block: &Block) -> bool {
        match block {
            // A list with no items is written as nothing and changes nothing.
            Block::List(list) if list.items.is_empty() => false,
            Block::List(list) => {
                self.alternate = self.previous == Some(list.ordered) && !self.alternate;
                self.previous = Some(list.ordered);
                self.alternate
            }
            _ => {
                *self = ListMarkers::default();
                false
            }
        }
    }
}

/// One block alone, as [`blocks`] writes it where [`ListMarkers::next`] gave `alternate`.
pub fn block(block: &Block, images: ImageMode, alternate: bool) -> String {
    let mut w = Writer::new(images);
    w.block_in_run(block, "", alternate);
    let trimmed = w.out.trim_end().len();
    w.out.truncate(trimmed);
    w.out
}

/// Renders blocks alone (a page's or a section's text for JSON output).
pub fn blocks(blocks: &[Block], images: ImageMode) -> String {
    let mut w = Writer::new(images);
    w.blocks(blocks, "");
    let trimmed = w.out.trim_end().len();
    w.out.truncate(trimmed);
    w.out
}

/// Renders inline content to a single line of Markdown.
pub fn inlines(content: &[Inline], images: ImageMode) -> String {
    let mut w = Writer::new(images);
    let mut s = String::new();
    w.inlines(content, &mut s, Context::Heading, false);
    s
}

struct Writer<'w> {
    out: String,
    images: ImageMode,
    stream: Stream<'w>,
}

/// Where finished top-level output goes while a document is written ([`write_document`]).
///
/// Only the top-level buffer is ever handed over, and only text that cannot change any more:
/// trailing whitespace stays behind (the document's and the open paragraph's ends are
/// trimmed), and so does an open paragraph until its leading whitespace is known and removed.
#[derive(Default)]
struct Stream<'w> {
    sink: Option<&'w mut dyn std::io::Write>,
    error: Option<std::io::Error>,
    paragraph: Paragraph,
    /// Bytes gathered before they are handed over.
    chunk: usize,
}

/// The top-level paragraph being written straight into the buffer, if any.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Paragraph {
    #[default]
    None,
    /// Starts at this byte of the buffer; nothing of it handed over yet.
    Open(usize),
    /// Leading whitespace removed and some of it handed over.
    Started,
}

impl Stream<'_> {
    /// Hands `out` (the top-level buffer) to the sink once it holds `chunk` bytes.
    fn drain(&mut self, out: &mut String) {
        if out.len() < self.chunk {
            return;
        }
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        if let Paragraph::Open(p) = self.paragraph {
            let body = &out[p..];
            let lead = body.len() - body.trim_start_matches(PARAGRAPH_TRIM).len();
            if lead == body.len() {
                // Only whitespace so far: it may all disappear, so it stays.
                return;
            }
            out.drain(p..p + lead);
            self.paragraph = Paragraph::Started;
        }
        let done = out.trim_end().len();
        if done == 0 {
            return;
        }
        if let Err(e) = sink.write_all(&out.as_bytes()[..done]) {
            self.error = Some(e);
            self.sink = None;
        }
        out.drain(..done);
    }
}

/// Where inline content is written: decides what a line break and a `|` become.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    Paragraph,
    Heading,
    TableCell,
}

impl<'w> Writer<'w> {
    fn new(images: ImageMode) -> Writer<'w> {
        Writer {
            out: String::new(),
            images,
            stream: Stream::default(),
        }
    }

    fn document(&mut self, doc: &Document) {
        if doc.kind == DocumentKind::Image {
            self.image_properties(doc);
        }
        for part in &doc.parts {
            self.part(doc.kind, part);
        }
        let trimmed = self.out.trim_end().len();
        self.out.truncate(trimmed);
        self.out.push('\n');
    }

    /// A picture has no text of its own: its properties (title, author, description, dates,
    /// camera, size) open the Markdown, as photo tools list them.
    fn image_properties(&mut self, doc: &Document) {
        let m = &doc.metadata;
        let mut props: Vec<(String, String)> = Vec::new();
        for (name, value) in [
            ("Title", &m.title),
            ("Author", &m.author),
            ("Subject", &m.subject),
            ("Created", &m.created),
            ("Modified", &m.modified),
        ] {
            if let Some(v) = value {
                props.push((name.to_owned(), v.clone()));
            }
        }
        for (key, value) in &m.extra {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                _ => continue,
            };
            let mut name = key.replace('_', " ");
            if let Some(first) = name.get(..1) {
                name = first.to_ascii_uppercase() + &name[1..];
            }
            props.push((name, text));
        }
        if let Some(s) = &doc.image {
            props.push(("Image size".into(), format!("{}x{}", s.width, s.height)));
        }
        for (name, value) in props {
            let value = escape_text(&crate::render::fold(&value), Context::Heading, false);
            let _ = writeln!(self.out, "- {name}: {value}");
        }
        self.out.push('\n');
    }

    fn part(&mut self, kind: DocumentKind, part: &Part) {
        match part.kind {
            PartKind::Page if kind == DocumentKind::Paged => {
                let _ = write!(self.out, "<!-- Page {} -->\n\n", part.number);
            }
            PartKind::Page => {
                // Frames of a multi-page image.
                let _ = write!(self.out, "<!-- Page {} -->\n\n", part.number);
            }
            PartKind::Slide => {
                let _ = write!(self.out, "<!-- Slide {} -->\n\n", part.number);
            }
            PartKind::Sheet => {
                let name = part.name.as_deref().unwrap_or("Sheet");
                let _ = write!(self.out, "## {}\n\n", escape_line(name, Context::Heading));
                if part.blocks.is_empty() {
                    self.out.push_str("*(empty sheet)*\n\n");
                }
            }
            PartKind::Section => {}
        }
        self.blocks(&part.blocks, "");
        if !part.notes.is_empty() {
            self.out.push_str("### Notes\n\n");
            self.blocks(&part.notes, "");
        }
    }

    /// Writes blocks, each line prefixed by `indent` (list nesting, quotes).
    fn blocks(&mut self, blocks: &[Block], indent: &str) {
        // Two lists of the same kind one after the other are one list to a Markdown reader
        // unless their markers differ (CommonMark: another bullet character or delimiter
        // starts a new list), so the second of them takes the other marker: a restarted or
        // jumping numbering keeps its numbers, and separate lists stay separate.
        let mut markers = ListMarkers::default();
        for block in blocks {
            let alternate = markers.next(block);
            self.block_in_run(block, indent, alternate);
        }
    }

    /// One block of a run, `alternate` from [`ListMarkers::next`].
    fn block_in_run(&mut self, block: &Block, indent: &str, alternate: bool) {
        if let Block::List(list) = block {
            self.list(list, indent, alternate);
        } else {
            self.block(block, indent);
        }
        if indent.is_empty() {
            self.stream.drain(&mut self.out);
        }
    }

    fn push_lines(&mut self, text: &str, indent: &str) {
        self.out.reserve(text.len() + indent.len() + 2);
        for line in text.split('\n') {
            if line.is_empty() {
                self.out.push_str(indent.trim_end());
            } else {
                self.out.push_str(indent);
                self.out.push_str(line);
            }
            self.out.push('\n');
        }
        self.out.push_str(indent.trim_end());
        self.out.push('\n');
    }

    fn block(&mut self, block: &Block, indent: &str) {
        match block {
            Block::Heading { level, content } => {
                let mut s = String::new();
                // a heading shows bold already: bold over all its text is no emphasis
                if all_bold(content) {
                    self.inlines(&without_bold(content), &mut s, Context::Heading, false);
                } else {
                    self.inlines(content, &mut s, Context::Heading, false);
                }
                if s.trim().is_empty() {
                    return;
                }
                let level = (*level).clamp(1, 6) as usize;
                let line = format!("{} {}", "#".repeat(level), s.trim());
                self.push_lines(&line, indent);
            }
            Block::Paragraph(content) if indent.is_empty() => self.top_paragraph(content),
            Block::Paragraph(content) => {
                let mut s = String::new();
                self.inlines(content, &mut s, Context::Paragraph, false);
                let s = s.trim_matches(|c: char| c == ' ' || c == '\n' || c == '\t');
                if s.is_empty() {
                    return;
                }
                self.push_lines(s, indent);
            }
            Block::List(list) => self.list(list, indent, false),
            Block::Table(table) => {
                let text = self.table(table);
                if !text.is_empty() {
                    self.push_lines(&text, indent);
                }
            }
            Block::Grid(grid) => {
                if indent.is_empty() {
                    let stream = &mut self.stream;
                    grid_table_with(grid, &mut self.out, &mut |out| stream.drain(out));
                    self.out.push('\n');
                } else {
                    let mut s = String::new();
                    grid_table(grid, &mut s);
                    self.push_lines(s.trim_end(), indent);
                }
            }
            Block::Image(image) => {
                let s = self.image(image);
                // `image_mode=none`: an image block leaves nothing, not an empty paragraph.
                if !s.is_empty() {
                    self.push_lines(&s, indent);
                }
                if let Some(text) = image.ocr_text.as_deref().filter(|t| !t.trim().is_empty()) {
                    // The picture's text is text, not Markdown: a line that starts "1." or
                    // "#" stays a line of text.
                    let text: Vec<String> = text
                        .trim()
                        .lines()
                        .map(|l| escape_line(l, Context::Paragraph))
                        .collect();
                    self.push_lines(&text.join("\n"), indent);
                }
            }
            Block::Code { language, text } => {
                let longest = longest_run(text, '`');
                let fence = "`".repeat(longest.max(2) + 1);
                let mut s = String::new();
                s.push_str(&fence);
                if let Some(lang) = language {
                    s.push_str(lang.split_whitespace().next().unwrap_or(""));
                }
                s.push('\n');
                s.push_str(text.trim_end_matches('\n'));
                s.push('\n');
                s.push_str(&fence);
                self.push_lines(&s, indent);
            }
            Block::Quote(inner) => {
                let nested = format!("{indent}> ");
                let start = self.out.len();
                self.blocks(inner, &nested);
                // Blank separator lines inside the quote must keep the marker.
                let body = self.out.split_off(start);
                let marker = nested.trim_end();
                let mut body = body.trim_end_matches('\n');
                while let Some(rest) = body.strip_suffix(marker) {
                    if !(rest.is_empty() || rest.ends_with('\n')) {
                        break;
                    }
                    body = rest.trim_end_matches('\n');
                }
                for line in body.split('\n') {
                    if line.trim().is_empty() {
                        self.out.push_str(nested.trim_end());
                    } else {
                        self.out.push_str(line);
                    }
                    self.out.push('\n');
                }
                self.out.push_str(indent.trim_end());
                self.out.push('\n');
            }
            Block::Note { label, blocks } => {
                let mut inner = Writer::new(self.images);
                inner.blocks(blocks, "");
                let body = inner.out.trim().to_owned();
                let label = note_label(label);
                let mut s = format!("[^{label}]: ");
                for (i, line) in body.split('\n').enumerate() {
                    if i > 0 {
                        s.push('\n');
                        if !line.is_empty() {
                            s.push_str("    ");
                        }
                    }
                    s.push_str(line);
                }
                self.push_lines(&s, indent);
            }
            Block::Rule => self.push_lines("---", indent),
        }
    }

    /// `alternate`: written with `N)` / `*` markers instead of `N.` / `-` (see [`Self::blocks`]).
    fn list(&mut self, list: &List, indent: &str, alternate: bool) {
        let tight = list.items.iter().all(|item| {
            item.blocks.len() <= 1
                || (item.blocks.len() == 2 && matches!(item.blocks[1], Block::List(_)))
        });
        let mut number = list.start;
        for item in &list.items {
            let marker = match (list.ordered, alternate) {
                (true, alternate) => {
                    let m = format!("{number}{} ", if alternate { ')' } else { '.' });
                    number += 1;
                    m
                }
                (false, false) => "- ".to_owned(),
                (false, true) => "* ".to_owned(),
            };
            let marker = match item.checked {
                Some(true) => format!("{marker}[x] "),
                Some(false) => format!("{marker}[ ] "),
                None => marker,
            };
            let child_indent = format!("{indent}{}", " ".repeat(marker.len()));
            // A tight item is one block, or a paragraph and the list nested under it with no
            // blank line between them; the blocks inside keep their own blank lines (a loose
            // nested list, a code block).
            let body = match item.blocks.split_first() {
                Some((first, rest)) if tight && !rest.is_empty() => self.tight_item(first, rest),
                _ => {
                    let mut inner = Writer::new(self.images);
                    inner.blocks(&item.blocks, "");
                    inner.out.trim_end().to_owned()
                }
            };
            let mut lines = body.split('\n');
            let first = lines.next().unwrap_or("");
            self.out.push_str(indent);
            self.out.push_str(&marker);
            self.out.push_str(first);
            self.out.push('\n');
            for line in lines {
                if line.is_empty() {
                    self.out.push('\n');
                } else {
                    self.out.push_str(&child_indent);
                    self.out.push_str(line);
                    self.out.push('\n');
                }
            }
            if !tight {
                self.out.push('\n');
            }
        }
        if tight {
            self.out.push_str(indent.trim_end());
            self.out.push('\n');
        }
    }

    /// A tight item's paragraph and the list nested under it, one line apart. Not inlined:
    /// lists nest as deep as a document's data (JSON arrays), and its writers would otherwise
    /// sit in every level's stack frame of [`Writer::list`].
    #[inline(never)]
    fn tight_item(&self, first: &Block, rest: &[Block]) -> String {
        let mut head = Writer::new(self.images);
        head.blocks(std::slice::from_ref(first), "");
        let mut tail = Writer::new(self.images);
        tail.blocks(rest, "");
        format!("{}\n{}", head.out.trim_end(), tail.out.trim_end())
    }

    fn table(&mut self, table: &Table) -> String {
        let grid = flatten_spans(&table.rows);
        let columns = grid.iter().map(Vec::len).max().unwrap_or(0);
        if columns == 0 {
            return String::new();
        }
        let rendered: Vec<Vec<String>> = grid
            .iter()
            .enumerate()
            .map(|(r, row)| {
                (0..columns)
                    .map(|c| match row.get(c).copied().unwrap_or(Slot::Empty) {
                        // Down its first column a merged cell repeats (each row a record of
                        // its own); across, only in the header line, which names every column,
                        // and never when it spans the whole width (a title or section row).
                        Slot::Covered(cell, first_column)
                            if (first_column || r == 0) && (cell.colspan as usize) < columns =>
                        {
                            self.cell(&cell.content)
                        }
                        Slot::Origin(cell) => self.cell(&cell.content),
                        Slot::Covered(..) | Slot::Empty => String::new(),
                    })
                    .collect()
            })
            .collect();
        let cells: usize = rendered.iter().flatten().map(|c| c.len() + 3).sum();
        let mut s = String::with_capacity(cells + 2 * rendered.len() + 6 * columns + 2);
        for (i, row) in rendered.iter().enumerate() {
            s.push('|');
            for cell in row {
                s.push(' ');
                s.push_str(cell);
                s.push_str(" |");
            }
            s.push('\n');
            if i == 0 {
                s.push('|');
                for _ in 0..columns {
                    s.push_str(" --- |");
                }
                s.push('\n');
            }
        }
        s.pop();
        s
    }

    /// A table cell's content on one line, trimmed.
    fn cell(&mut self, content: &[Inline]) -> String {
        let mut s = String::new();
        self.inlines(content, &mut s, Context::TableCell, false);
        if s.trim().len() == s.len() {
            s
        } else {
            s.trim().to_owned()
        }
    }

    fn image(&self, image: &Image) -> String {
        let alt = escape_alt(image.alt.as_deref().unwrap_or(&image.name));
        if let Some(reason) = &image.skipped {
            return format!(
                "<!-- image {} not embedded: {} -->",
                comment_safe(&image.name),
                comment_safe(reason)
            );
        }
        match self.images {
            ImageMode::DataUri => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(&image.data);
                format!("![{alt}](data:{};base64,{b64})", image.mime)
            }
            ImageMode::Reference => format!("![{alt}]({})", link_destination(&image.name)),
            ImageMode::Linked => format!(
                "![{alt}]({})",
                link_destination(&format!("{}/{}", super::files::IMAGE_DIR, image.name))
            ),
            ImageMode::Placeholder => image_placeholder(image),
            ImageMode::Omit => String::new(),
        }
    }

    /// A paragraph at the top level, written straight into the buffer (which the stream may
    /// hand over while it grows): the same text as a paragraph rendered on its own, trimmed,
    /// then followed by a blank line.
    fn top_paragraph(&mut self, content: &[Inline]) {
        let mut out = std::mem::take(&mut self.out);
        let start = out.len();
        let len = content.iter().map(inline_len).sum::<usize>() + 2;
        out.reserve(if self.stream.sink.is_some() {
            len.min(2 * STREAM_CHUNK)
        } else {
            len
        });
        self.stream.paragraph = Paragraph::Open(start);
        self.inlines(content, &mut out, Context::Paragraph, true);
        match std::mem::take(&mut self.stream.paragraph) {
            Paragraph::Open(p) => {
                let body = &out[p..];
                let lead = body.len() - body.trim_start_matches(PARAGRAPH_TRIM).len();
                let kept = body.trim_matches(PARAGRAPH_TRIM).len();
                if kept == 0 {
                    out.truncate(p);
                    self.out = out;
                    return;
                }
                out.truncate(p + lead + kept);
                out.drain(p..p + lead);
            }
            Paragraph::Started | Paragraph::None => {
                let end = out.trim_end_matches(PARAGRAPH_TRIM).len();
                out.truncate(end);
            }
        }
        out.push_str("\n\n");
        self.out = out;
    }

    /// Writes inline content to `s`. `top`: `s` is the top-level buffer with a paragraph open
    /// in it (see [`Writer::top_paragraph`]), which the stream may drain as it grows.
    fn inlines(&mut self, content: &[Inline], s: &mut String, ctx: Context, top: bool) {
        // Whether the text written so far is empty: in top mode, the open paragraph's part of
        // the buffer (once some of it was handed over, it is not).
        let empty = |s: &String, stream: &Stream<'_>| match stream.paragraph {
            Paragraph::Open(p) if top => s.len() == p,
            _ if top => false,
            _ => s.is_empty(),
        };
        let line_start = empty(s, &self.stream);
        let mut runs = merge_runs(content).enumerate().peekable();
        while let Some((i, run)) = runs.next() {
            let inline = match run {
                Run::Text(text, style) => {
                    let at_start =
                        line_start && i == 0 || !empty(s, &self.stream) && s.ends_with('\n');
                    let around = Around {
                        before: if empty(s, &self.stream) {
                            ' '
                        } else {
                            s.chars().next_back().unwrap_or(' ')
                        },
                        after: runs.peek().map_or(' ', |(_, next)| next.first_char()),
                    };
                    if top {
                        let stream = &mut self.stream;
                        write_styled(s, &text, style, ctx, at_start, around, &mut |o| {
                            stream.drain(o)
                        });
                        stream.drain(s);
                    } else {
                        write_styled(s, &text, style, ctx, at_start, around, &mut |_| {});
                    }
                    continue;
                }
                Run::Other(inline) => inline,
            };
            match inline {
                Inline::Text { .. } | Inline::Lines { .. } => {}
                Inline::Code(code) => {
                    let code = code.replace('\n', " ");
                    let ticks = "`".repeat(longest_run(&code, '`') + 1);
                    let pad = if code.starts_with('`') || code.ends_with('`') {
                        " "
                    } else {
                        ""
                    };
                    let _ = write!(s, "{ticks}{pad}{code}{pad}{ticks}");
                }
                Inline::Break => match ctx {
                    Context::Paragraph => s.push_str("  \n"),
                    Context::TableCell => s.push_str("<br>"),
                    Context::Heading => s.push(' '),
                },
                Inline::Link(link) => {
                    let Link {
                        href,
                        title,
                        content,
                    } = &**link;
                    let mut text = String::new();
                    self.inlines(content, &mut text, ctx, false);
                    let text = text.trim();
                    if href.trim().is_empty() {
                        s.push_str(text);
                    } else if text.is_empty() {
                        let _ = write!(s, "<{}>", href.replace(['<', '>', ' '], ""));
                    } else {
                        let _ = write!(s, "[{text}]({}", link_destination(href));
                        if let Some(title) = title.as_deref().map(link_title) {
                            if !title.is_empty() {
                                let _ = write!(s, " \"{title}\"");
                            }
                        }
                        s.push(')');
                    }
                }
                Inline::Image(image) => {
                    s.push_str(&self.image(image));
                    if let Some(text) = image.ocr_text.as_deref().filter(|t| !t.trim().is_empty()) {
                        s.push(' ');
                        s.push_str(&escape_line(&crate::render::fold(text), ctx));
                    }
                }
                Inline::NoteRef(label) => {
                    let _ = write!(s, "[^{}]", note_label(label));
                }
                Inline::Math { tex, display } => {
                    let mut tex = tex.replace(['\n', '\r'], " ");
                    if matches!(ctx, Context::TableCell) {
                        tex = tex.replace('|', "\\|");
                    }
                    let fence = if *display { "$$" } else { "$" };
                    let _ = write!(s, "{fence}{}{fence}", tex.trim());
                }
            }
            if top {
                self.stream.drain(s);
            }
        }
    }
}

/// Bytes of text in inline content, to size the buffer a paragraph is written into.
fn inline_len(inline: &Inline) -> usize {
    match inline {
        Inline::Text { text, .. } | Inline::Code(text) | Inline::NoteRef(text) => text.len(),
        Inline::Math { tex, .. } => tex.len() + 4,
        // Each newline stands for a break (3 bytes).
        Inline::Lines { text } => text.len() + 2 * text.bytes().filter(|&b| b == b'\n').count(),
        Inline::Link(link) => link.content.iter().map(inline_len).sum::<usize>() + 8,
        Inline::Break => 3,
        Inline::Image(_) => 0,
    }
}

/// A text run after [`merge_runs`], or any other inline as it was.
enum Run<'a> {
    Text(Cow<'a, str>, Style),
    Other(&'a Inline),
}

impl Run<'_> {
    /// The first character this run writes, as far as emphasis flanking cares: a link, code
    /// span, image or note reference starts with punctuation, a break with whitespace, a
    /// styled run with its marker unless whitespace or punctuation comes before it.
    fn first_char(&self) -> char {
        match self {
            Run::Text(text, style) => match text.chars().next() {
                Some(c) if *style != Style::PLAIN && !(c.is_whitespace() || is_punct(c)) => '*',
                c => c.unwrap_or(' '),
            },
            Run::Other(Inline::Break) => ' ',
            Run::Other(_) => '[',
        }
    }
}

/// What an [`Inline::Lines`] reads as between two of its lines.
static BREAK: Inline = Inline::Break;

/// Inline content one run at a time, borrowed: an [`Inline::Lines`] is read as its lines
/// (plain text runs) with a break between each two, without building them.
struct Atoms<'a> {
    content: std::slice::Iter<'a, Inline>,
    /// The rest of an [`Inline::Lines`]: each line after a break.
    lines: Option<std::str::Split<'a, char>>,
    /// The line that follows the break just given.
    pending: Option<&'a str>,
}

impl<'a> Iterator for Atoms<'a> {
    type Item = Run<'a>;

    fn next(&mut self) -> Option<Run<'a>> {
        if let Some(line) = self.pending.take() {
            return Some(Run::Text(Cow::Borrowed(line), Style::PLAIN));
        }
        if let Some(lines) = &mut self.lines {
            if let Some(line) = lines.next() {
                self.pending = Some(line);
                return Some(Run::Other(&BREAK));
            }
            self.lines = None;
        }
        Some(match self.content.next()? {
            Inline::Text { text, style } => Run::Text(Cow::Borrowed(text), *style),
            Inline::Lines { text } => {
                let mut lines = text.split('\n');
                let first = lines.next().unwrap_or_default();
                self.lines = Some(lines);
                Run::Text(Cow::Borrowed(first), Style::PLAIN)
            }
            other => Run::Other(other),
        })
    }
}

/// Joins adjacent text runs that share a style, so emphasis markers wrap whole phrases. Runs
/// borrow the document's text unless they were joined; they are made as they are written, so
/// a paragraph of a million lines costs no list of runs.
fn merge_runs(content: &[Inline]) -> impl Iterator<Item = Run<'_>> {
    let mut atoms = Atoms {
        content: content.iter(),
        lines: None,
        pending: None,
    }
    .peekable();
    std::iter::from_fn(move || {
        let (mut text, style) = match atoms.next()? {
            Run::Text(text, style) => (text, style),
            other => return Some(other),
        };
        while let Some(Run::Text(next, s)) = atoms.peek() {
            if !(*s == style || next.trim().is_empty() && !next.contains('\n')) {
                break;
            }
            text.to_mut().push_str(next);
            atoms.next();
        }
        Some(Run::Text(text, style))
    })
}

/// The characters just outside a text run: the last one written before it (a space at the
/// start) and the first the next inline writes (a space at the end).
#[derive(Clone, Copy)]
struct Around {
    before: char,
    after: char,
}

/// Punctuation as CommonMark's flanking rules count it: ASCII punctuation and Unicode
/// punctuation and symbols (approximated as neither alphanumeric nor whitespace).
fn is_punct(c: char) -> bool {
    c.is_ascii_punctuation() || !(c.is_alphanumeric() || c.is_whitespace())
}

/// The escaped text's first character and its byte length, with its backslash when escaped.
fn first_unit(escaped: &str) -> Option<(char, usize)> {
    let mut chars = escaped.chars();
    match (chars.next()?, chars.next()) {
        ('\\', Some(c)) if c.is_ascii_punctuation() => Some((c, 2)),
        (c, _) => Some((c, c.len_utf8())),
    }
}

/// The escaped text's last character and its byte length, with its backslash when escaped
/// (an odd number of backslashes before it).
fn last_unit(escaped: &str) -> Option<(char, usize)> {
    let c = escaped.chars().next_back()?;
    let before = &escaped[..escaped.len() - c.len_utf8()];
    let slashes = before.bytes().rev().take_while(|&b| b == b'\\').count();
    if c.is_ascii_punctuation() && slashes % 2 == 1 {
        Some((c, c.len_utf8() + 1))
    } else {
        Some((c, c.len_utf8()))
    }
}

/// Writes a text run; `hook` gets `s` now and then while a long plain run is escaped.
fn write_styled(
    s: &mut String,
    text: &str,
    style: Style,
    ctx: Context,
    at_line_start: bool,
    around: Around,
    hook: &mut dyn FnMut(&mut String),
) {
    let text = match ctx {
        Context::Paragraph => Cow::Borrowed(text),
        _ if !text.contains(['\n', '\r']) => Cow::Borrowed(text),
        _ => Cow::Owned(text.replace(['\n', '\r'], " ")),
    };
    // Only a paragraph line can turn into a heading, list, quote or rule.
    let at_line_start = at_line_start && ctx == Context::Paragraph;
    if style == Style::PLAIN {
        escape_into(s, &text, ctx, at_line_start, hook);
        return;
    }
    let escaped = escape_text(&text, ctx, at_line_start);
    if escaped.trim().is_empty() {
        s.push_str(&escaped);
        return;
    }
    // Markers must hug the text: whitespace goes outside them.
    let lead_end = escaped.len() - escaped.trim_start().len();
    let trail_start = escaped.trim_end().len();
    // CommonMark opens emphasis before punctuation only after whitespace or punctuation, and
    // closes it after punctuation only before whitespace or punctuation: `**foo.**bar` and
    // `x*(y)*z` show their asterisks. Punctuation at such an edge goes outside the markers
    // (`**foo**.bar`, `x(*y*)z`); elsewhere (`**Note:** text`) it stays inside.
    let before = escaped[..lead_end]
        .chars()
        .next_back()
        .unwrap_or(around.before);
    let after = escaped[trail_start..]
        .chars()
        .next()
        .unwrap_or(around.after);
    let mut core_start = lead_end;
    if !(before.is_whitespace() || is_punct(before)) {
        while let Some((c, len)) = first_unit(&escaped[core_start..trail_start]) {
            if !is_punct(c) {
                break;
            }
            core_start += len;
        }
    }
    let mut core_end = trail_start;
    if !(after.is_whitespace() || is_punct(after)) {
        while let Some((c, len)) = last_unit(&escaped[core_start..core_end]) {
            if !is_punct(c) {
                break;
            }
            core_end -= len;
        }
    }
    if core_start == core_end {
        // Punctuation only: nothing left to mark.
        s.push_str(&escaped);
        return;
    }
    let lead = &escaped[..core_start];
    let core = &escaped[core_start..core_end];
    let trail = &escaped[core_end..];
    // Markers that touch the previous run's closing asterisks would join them into one
    // delimiter run (`*b*` then `***c***` reads `*b****c***`, which CommonMark can pair
    // wrongly); such a run takes underscores (`*b*___c___`), when the character after it
    // lets an underscore close (underscores do not close inside a word).
    let touches = lead.is_empty() && ends_with_marker(s, '*');
    let star = if touches && !around_after(trail, around).is_alphanumeric() {
        '_'
    } else {
        '*'
    };
    let mut open = String::new();
    if style.bold {
        open.push(star);
        open.push(star);
    }
    if style.italic {
        open.push(star);
    }
    if style.strike {
        open.push_str("~~");
    }
    let close: String = open.chars().rev().collect();
    s.push_str(lead);
    s.push_str(&open);
    s.push_str(core);
    s.push_str(&close);
    s.push_str(trail);
}

/// Whether `s` ends with `c` written as a marker, not escaped (an even number of
/// backslashes before the run of `c`).
fn ends_with_marker(s: &str, c: char) -> bool {
    let body = s.trim_end_matches(c);
    body.len() < s.len() && body.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 0
}

/// The character just after a run's closing markers: its trailing whitespace or punctuation,
/// else what comes next.
fn around_after(trail: &str, around: Around) -> char {
    trail.chars().next().unwrap_or(around.after)
}

/// Escapes text so Markdown reads it back as the same characters.
pub(crate) fn escape_text(text: &str, ctx: Context, at_line_start: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    escape_into(&mut out, text, ctx, at_line_start, &mut |_| {});
    out
}

/// Bytes between two calls of [`escape_into`]'s hook (about: at a character boundary).
const HOOK_EVERY: usize = 1 << 14;

/// The bytes [`escape_into`] looks at: every other character is written as it is.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let bytes = b"\\*`_~[]<&|\n\r";
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
};

/// [`escape_text`] appending to `out`, calling `hook(out)` about every [`HOOK_EVERY`] bytes
/// (a streaming writer hands finished output over there).
fn escape_into(
    out: &mut String,
    text: &str,
    ctx: Context,
    at_line_start: bool,
    hook: &mut dyn FnMut(&mut String),
) {
    let bytes = text.as_bytes();
    let mut line_start = at_line_start;
    let mut i = 0;
    let mut next_hook = HOOK_EVERY;
    while i < bytes.len() {
        if i >= next_hook {
            hook(out);
            next_hook = i + HOOK_EVERY;
        }
        if line_start {
            if bytes[i] == b' ' || bytes[i] == b'\t' {
                // Leading spaces would start an indented code block or shift list levels.
                i += 1;
                continue;
            }
            line_start = false;
            if let Some(skip) = escape_line_start(&text[i..], out) {
                i += skip;
                continue;
            }
        }
        // A run of characters written as they are, up to the next hook.
        let limit = next_hook.min(bytes.len());
        let mut end = i;
        while end < limit && !SPECIAL[bytes[end] as usize] {
            end += 1;
        }
        if end > i {
            while !text.is_char_boundary(end) {
                end += 1;
            }
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        // A character that may need escaping (ASCII), between `prev` and `next` (a space at
        // either end of the text).
        let c = bytes[i];
        let next = text[i + 1..].chars().next().unwrap_or(' ');
        let prev = || text[..i].chars().next_back().unwrap_or(' ');
        match c {
            b'\\' if next.is_ascii_punctuation() => out.push_str("\\\\"),
            b'*' | b'`' => {
                out.push('\\');
                out.push(c as char);
            }
            b'_' if !(next.is_alphanumeric() && prev().is_alphanumeric()) => out.push_str("\\_"),
            b'~' if next == '~' || prev() == '~' => out.push_str("\\~"),
            b'[' if next == '^' => out.push_str("\\["),
            b']' if matches!(next, '(' | '[' | ':') => out.push_str("\\]"),
            b'<' if next.is_ascii_alphabetic() || matches!(next, '/' | '!' | '?') => {
                out.push_str("\\<")
            }
            b'&' if is_entity(&text[i..]) => out.push_str("\\&"),
            b'|' if ctx == Context::TableCell => out.push_str("\\|"),
            b'\n' => {
                out.push('\n');
                line_start = true;
            }
            b'\r' => {}
            _ => out.push(c as char),
        }
        i += 1;
    }
}

fn escape_line(text: &str, ctx: Context) -> String {
    escape_text(text.trim(), ctx, ctx == Context::Paragraph)
}

/// Escapes what would make a line a heading, list item, quote, fence or rule. Returns how
/// many bytes of `rest` it consumed when it wrote them itself.
fn escape_line_start(rest: &str, out: &mut String) -> Option<usize> {
    let mut chars = rest.chars();
    let first = chars.next()?;
    let second = chars.next();
    match first {
        '#' => {
            let hashes = rest.bytes().take_while(|&b| b == b'#').count();
            if hashes <= 6 && matches!(rest[hashes..].chars().next(), None | Some(' ' | '\t')) {
                out.push_str("\\#");
                return Some(1);
            }
            None
        }
        '>' => {
            out.push_str("\\>");
            Some(1)
        }
        '-' | '+' | '=' => {
            if matches!(second, None | Some(' ' | '\t'))
                || rest
                    .chars()
                    .take_while(|&c| c != '\n')
                    .all(|c| c == first || c == ' ')
            {
                out.push('\\');
                out.push(first);
                return Some(1);
            }
            None
        }
        '0'..='9' => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits <= 9 {
                let mut after = rest[digits..].chars();
                if let Some(p @ ('.' | ')')) = after.next() {
                    if matches!(after.next(), None | Some(' ' | '\t')) {
                        out.push_str(&rest[..digits]);
                        out.push('\\');
                        out.push(p);
                        return Some(digits + 1);
                    }
                }
            }
            None
        }
        _ => None,
    }
}

/// Whether `rest` (starting at `&`) reads as an HTML entity: `&name;` or `&#123;`.
fn is_entity(rest: &str) -> bool {
    // A `;` within the 33 characters after `&`, after at least one character, and only ASCII
    // letters and digits before it (or `#` first).
    for (i, c) in rest.chars().skip(1).take(33).enumerate() {
        if c == ';' {
            return i > 0;
        }
        if !(c.is_ascii_alphanumeric() || (i == 0 && c == '#')) {
            return false;
        }
    }
    false
}

/// An image as a placeholder: `<!-- image: <alt text> -->`, or `<!-- image -->` when it has
/// no alt text (`image_mode=placeholder`; also what chunked output shows for an image).
pub fn image_placeholder(image: &Image) -> String {
    let alt = image
        .alt
        .as_deref()
        .map(crate::render::fold)
        .filter(|a| !a.is_empty());
    match alt {
        Some(alt) => format!("<!-- image: {} -->", comment_safe(&alt)),
        None => "<!-- image -->".to_string(),
    }
}

fn escape_alt(alt: &str) -> String {
    crate::render::fold(alt)
        .replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

fn comment_safe(s: &str) -> String {
    s.replace("--", "- -").replace('>', ")")
}

fn note_label(label: &str) -> String {
    let l: String = label
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '[' | ']' | '^'))
        .collect();
    if l.is_empty() {
        "note".into()
    } else {
        l
    }
}

/// A link destination that survives any URL: wrapped in `<>` when it has spaces or parens.
fn link_destination(href: &str) -> String {
    let href = href.trim().replace(['\n', '\r'], "");
    if href.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", href.replace('<', "%3C").replace('>', "%3E"))
    } else {
        href
    }
}

/// A link title for `"…"`: whitespace folded to single spaces, `\` and `"` escaped.
fn link_title(title: &str) -> String {
    crate::render::fold(title)
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

fn longest_run(text: &str, c: char) -> usize {
    let mut best = 0;
    let mut cur = 0;
    for ch in text.chars() {
        if ch == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// Whether every word of `content` is bold (and it has words).
fn all_bold(content: &[Inline]) -> bool {
    fn walk(content: &[Inline], seen: &mut bool) -> bool {
        content.iter().all(|i| match i {
            Inline::Text { text, style } => {
                let blank = text.trim().is_empty();
                *seen |= !blank;
                blank || style.bold
            }
            Inline::Link(link) => walk(&link.content, seen),
            Inline::Lines { text } => text.trim().is_empty(),
            Inline::Code(_) | Inline::Math { .. } => false,
            Inline::Break | Inline::Image(_) | Inline::NoteRef(_) => true,
        })
    }
    let mut seen = false;
    walk(content, &mut seen) && seen
}

/// `content` with its bold taken off.
fn without_bold(content: &[Inline]) -> Vec<Inline> {
    content
        .iter()
        .map(|i| match i {
            Inline::Text { text, style } => Inline::Text {
                text: text.clone(),
                style: Style {
                    bold: false,
                    ..*style
                },
            },
            Inline::Link(link) => {
                let mut link = link.clone();
                link.content = without_bold(&link.content);
                Inline::Link(link)
            }
            other => other.clone(),
        })
        .collect()
}

/// Writes a [`Grid`] as a pipe table, first row as header. Streams straight into `out`.
pub fn grid_table(grid: &Grid, out: &mut String) {
    if !grid.is_empty() {
        out.reserve(grid.text_len() + grid.rows() * grid.columns() * 3 + 16);
    }
    grid_table_with(grid, out, &mut |_| {});
}

/// [`grid_table`] calling `hook(out)` after every row (a streaming writer drains it there).
fn grid_table_with(grid: &Grid, out: &mut String, hook: &mut dyn FnMut(&mut String)) {
    let columns = grid.columns();
    if grid.is_empty() || columns == 0 {
        return;
    }
    for i in 0..grid.rows() {
        hook(out);
        out.push('|');
        let mut n = 0;
        for cell in grid.row(i) {
            out.push(' ');
            push_cell(out, cell);
            out.push_str(" |");
            n += 1;
        }
        for _ in n..columns {
            out.push_str("  |");
        }
        out.push('\n');
        if i == 0 {
            out.push('|');
            for _ in 0..columns {
                out.push_str(" --- |");
            }
            out.push('\n');
        }
    }
}

fn push_cell(out: &mut String, cell: &str) {
    let cell = cell.trim();
    if !cell.contains([
        '|', '\n', '\r', '\\', '*', '_', '`', '<', '[', ']', '~', '&',
    ]) {
        out.push_str(cell);
        return;
    }
    let escaped = escape_text(&cell.replace("\r\n", "\n"), Context::TableCell, false);
    out.push_str(&escaped.replace('\n', "<br>"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_plugin_api::Cell;
    use quire_plugin_api::{ListItem, Metadata};

    fn doc(kind: DocumentKind, parts: Vec<Part>) -> Document {
        Document {
            kind,
            type_label: "Test".into(),
            metadata: Metadata::default(),
            parts,
            data: None,
            image: None,
        }
    }

    fn section(blocks: Vec<Block>) -> Vec<Part> {
        let mut p = Part::section();
        p.blocks = blocks;
        vec![p]
    }

    fn md(blocks: Vec<Block>) -> String {
        document(
            &doc(DocumentKind::Flowing, section(blocks)),
            ImageMode::DataUri,
        )
    }

    #[test]
    fn a_heading_bold_throughout_is_written_without_bold() {
        let heading = |content| Block::Heading { level: 2, content };
        let bold_link = Inline::link(
            "https://x.org",
            None,
            vec![Inline::styled("link", Style::BOLD)],
        );
        let italic_bold = Style {
            italic: true,
            ..Style::BOLD
        };
        assert_eq!(
            md(vec![
                heading(vec![
                    Inline::styled("All ", Style::BOLD),
                    Inline::styled("bold", italic_bold),
                    Inline::plain(" "),
                    bold_link,
                ]),
                heading(vec![
                    Inline::styled("Some", Style::BOLD),
                    Inline::plain(" plain"),
                ]),
            ]),
            "## All *bold* [link](https://x.org)\n\n## **Some** plain\n"
        );
    }

    /// A sink that keeps each write apart.
    #[derive(Default)]
    struct Pieces(Vec<Vec<u8>>);

    impl std::io::Write for Pieces {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The escaper as it was written before runs were copied whole: character by character,
    /// with the previous and next character at hand. [`escape_into`] must write the same.
    fn escape_char_by_char(text: &str, ctx: Context, at_line_start: bool) -> String {
        let mut out = String::new();
        let mut line_start = at_line_start;
        let mut prev = ' ';
        let mut i = 0;
        while let Some(c) = text[i..].chars().next() {
            let rest = &text[i..];
            if line_start {
                if c == ' ' || c == '\t' {
                    prev = c;
                    i += 1;
                    continue;
                }
                line_start = false;
                if let Some(skip) = escape_line_start(rest, &mut out) {
                    prev = rest[..skip].chars().next_back().unwrap_or(' ');
                    i += skip;
                    continue;
                }
            }
            let len = c.len_utf8();
            let next = rest[len..].chars().next().unwrap_or(' ');
            match c {
                '\\' if next.is_ascii_punctuation() => out.push_str("\\\\"),
                '*' | '`' => {
                    out.push('\\');
                    out.push(c);
                }
                '_' if !(prev.is_alphanumeric() && next.is_alphanumeric()) => out.push_str("\\_"),
                '~' if next == '~' || prev == '~' => out.push_str("\\~"),
                '[' if next == '^' => out.push_str("\\["),
                ']' if matches!(next, '(' | '[' | ':') => out.push_str("\\]"),
                '<' if next.is_ascii_alphabetic() || matches!(next, '/' | '!' | '?') => {
                    out.push_str("\\<")
                }
                '&' if {
                    let body: Vec<char> = rest.chars().skip(1).take(33).collect();
                    match body.iter().position(|&c| c == ';') {
                        Some(end) if end > 0 => body[..end]
                            .iter()
                            .enumerate()
                            .all(|(i, c)| c.is_ascii_alphanumeric() || (i == 0 && *c == '#')),
                        _ => false,
                    }
                } =>
                {
                    out.push_str("\\&")
                }
                '|' if ctx == Context::TableCell => out.push_str("\\|"),
                '\n' => {
                    out.push('\n');
                    line_start = true;
                }
                '\r' => {}
                _ => out.push(c),
            }
            prev = c;
            i += len;
        }
        out
    }

    #[test]
    fn escaping_writes_what_the_char_by_char_escaper_wrote() {
        // Seeded random texts dense in what the escaper looks at: every special character,
        // line starts that read as headings, lists, quotes and rules, entities, underscores
        // and tildes next to letters, digits, non-ASCII letters and spaces, and long plain runs
        // that cross the hook's stride.
        let atoms = [
            "\\",
            "*",
            "`",
            "_",
            "~",
            "~~",
            "[",
            "]",
            "[^",
            "](",
            "]:",
            "<",
            "<b",
            "</",
            "<!",
            "<?",
            "&",
            "&amp;",
            "&#123;",
            "&;",
            "&a b;",
            "|",
            "\n",
            "\r",
            "\r\n",
            " ",
            "  ",
            "\t",
            "#",
            "## ",
            "####### ",
            "> ",
            "- ",
            "-",
            "+ ",
            "=",
            "---",
            "1. ",
            "12) ",
            "1234567890. ",
            "a",
            "word",
            "é",
            "日本",
            "_é",
            "é_",
            "1_2",
            "x",
            "\u{3000}",
            "\u{a0}",
            "😀",
            "\\*",
            "\\a",
        ];
        let mut state = 0x0e5c_a9e5_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut text = String::new();
        for round in 0..20_000 {
            text.clear();
            for _ in 0..1 + next(16) {
                text.push_str(atoms[next(atoms.len())]);
            }
            if round % 1000 == 0 {
                // Longer than the hook's stride, plain and not.
                text.push_str(&"plain words é ".repeat(2000));
                text.push_str(&"a_b *c* ".repeat(3000));
            }
            for ctx in [Context::Paragraph, Context::Heading, Context::TableCell] {
                for at_line_start in [false, true] {
                    let mut hooked = String::new();
                    let mut calls = 0;
                    escape_into(&mut hooked, &text, ctx, at_line_start, &mut |_| calls += 1);
                    assert_eq!(
                        hooked,
                        escape_char_by_char(&text, ctx, at_line_start),
                        "{text:?} at line start {at_line_start}"
                    );
                    assert_eq!(escape_text(&text, ctx, at_line_start), hooked);
                    assert!(calls >= text.len() / (2 * HOOK_EVERY), "{calls} hook calls");
                }
            }
        }
    }

    #[test]
    fn streamed_output_is_the_same_bytes_handed_over_in_pieces() {
        let long: String = (0..12_000)
            .map(|i| match i % 7 {
                0 => "1. *a* ",
                1 => "snake_case ",
                2 => "&amp; ",
                3 => "\u{3000}",
                4 => "<b> ",
                5 => "\t",
                _ => "word ",
            })
            .collect();
        let mut lines = vec![Inline::Break, Inline::plain("  ")];
        for i in 0..3000 {
            lines.push(Inline::plain(format!("# line {i} -")));
            lines.push(Inline::Break);
        }
        lines.push(Inline::plain(" \u{3000}"));
        let mut grid = Grid::new();
        for r in 0..2000u32 {
            grid.push_row((0..3u32).map(|c| format!("r{r}|c{c}*")));
        }
        let blocks = vec![
            Block::Paragraph(vec![Inline::Break, Inline::plain(" \t")]),
            Block::Paragraph(vec![Inline::plain("\n\n  "), Inline::plain(long.clone())]),
            Block::Heading {
                level: 2,
                content: vec![Inline::plain("Title")],
            },
            Block::Paragraph(lines),
            Block::Grid(Box::new(grid)),
            Block::Quote(vec![Block::text(&long[..5000])]),
            Block::Paragraph(vec![
                Inline::styled(&long[..20_000], Style::BOLD),
                Inline::Break,
                Inline::Break,
            ]),
            Block::Paragraph(vec![Inline::plain(" \u{3000}\n")]),
        ];
        for kind in [DocumentKind::Flowing, DocumentKind::Paged] {
            let d = doc(kind, section(blocks.clone()));
            let whole = document(&d, ImageMode::DataUri);
            for chunk in [1, 100, 70_000, STREAM_CHUNK] {
                let mut sink = Pieces::default();
                write_document_in(&d, ImageMode::DataUri, &mut sink, chunk).unwrap();
                assert_eq!(String::from_utf8(sink.0.concat()).unwrap(), whole);
                if chunk == 1 {
                    // Handed over row by row, line by line and inside the long paragraphs.
                    assert!(sink.0.len() > 2000, "{} writes", sink.0.len());
                    let largest = sink.0.iter().map(Vec::len).max().unwrap_or(0);
                    assert!(largest < 40_000, "a write of {largest} bytes");
                }
            }
        }
        // A document of whitespace only is one newline, as before.
        let d = doc(
            DocumentKind::Flowing,
            section(vec![Block::Paragraph(vec![Inline::plain(" \u{3000} ")])]),
        );
        let mut sink = Pieces::default();
        write_document_in(&d, ImageMode::DataUri, &mut sink, 1).unwrap();
        assert_eq!(
            sink.0.concat(),
            document(&d, ImageMode::DataUri).into_bytes()
        );
    }

    #[test]
    fn escapes_what_would_change_meaning() {
        assert_eq!(
            md(vec![Block::text("# not a heading")]),
            "\\# not a heading\n"
        );
        assert_eq!(md(vec![Block::text("1. not a list")]), "1\\. not a list\n");
        assert_eq!(md(vec![Block::text("- no bullet")]), "\\- no bullet\n");
        assert_eq!(
            md(vec![Block::text("a *b* _c_ `d`")]),
            "a \\*b\\* \\_c\\_ \\`d\\`\n"
        );
        assert_eq!(
            md(vec![Block::text("snake_case stays [1] <b> &amp;")]),
            "snake_case stays [1] \\<b> \\&amp;\n"
        );
        assert_eq!(
            md(vec![Block::text("#hashtag 2024. year")]),
            "#hashtag 2024. year\n"
        );
        assert_eq!(md(vec![Block::text("[x](y)")]), "[x\\](y)\n");
    }

    #[test]
    fn styles_hug_the_text() {
        let p = Block::Paragraph(vec![
            Inline::plain("a"),
            Inline::styled(" bold ", Style::BOLD),
            Inline::plain("and"),
            Inline::styled(" it", Style::ITALIC),
            Inline::styled("alic", Style::ITALIC),
        ]);
        assert_eq!(md(vec![p]), "a **bold** and *italic*\n");
    }

    #[test]
    fn a_run_touching_another_runs_markers_takes_underscores() {
        // Asterisks that touch form one delimiter run, which CommonMark can pair wrongly:
        // `*b****c*****d**` reads "b", then "***c***" literally, then "d" in bold.
        let (b, i, plain) = (Style::BOLD, Style::ITALIC, Style::PLAIN);
        let bi = Style {
            bold: true,
            italic: true,
            strike: false,
        };
        let cases: [(&[(&str, Style)], &str); 5] = [
            (&[("b", i), ("c", bi), ("d", b)], "*b*___c___**d**"),
            (&[("A", b), ("B", bi), (" x", plain)], "**A**___B___ x"),
            (&[("3", bi), ("4", i)], "***3***_4_"),
            // An underscore cannot close inside a word: asterisks stay before a letter.
            (&[("a", i), ("b", b), ("c", plain)], "*a***b**c"),
            // Whitespace between the runs: nothing touches.
            (&[("a", i), (" ", plain), ("b", bi)], "*a* ***b***"),
        ];
        for (runs, want) in cases {
            let runs = runs.iter().map(|(t, s)| Inline::styled(*t, *s)).collect();
            assert_eq!(md(vec![Block::Paragraph(runs)]), format!("{want}\n"));
        }
    }

    #[test]
    fn punctuation_at_an_edge_goes_outside_markers_that_would_not_open_or_close() {
        let (b, i, plain) = (Style::BOLD, Style::ITALIC, Style::PLAIN);
        let cases: [(&[(&str, Style)], &str); 6] = [
            (&[("foo.", b), ("bar", plain)], "**foo**.bar"),
            (&[("x", plain), ("(y)", i), ("z", plain)], "x(*y*)z"),
            // Escaped punctuation moves whole, backslash and all.
            (&[("a", plain), ("*b*", b), ("c", plain)], "a\\***b**\\*c"),
            // Where the markers work as they are, nothing moves.
            (&[("Note:", b), (" text (", plain)], "**Note:** text ("),
            (&[("(", plain), ("(y)", i), (")", plain)], "(*(y)*)"),
            // Punctuation alone is not marked.
            (&[("a", plain), ("...", b), ("b", plain)], "a...b"),
        ];
        for (runs, want) in cases {
            let runs = runs.iter().map(|(t, s)| Inline::styled(*t, *s)).collect();
            assert_eq!(md(vec![Block::Paragraph(runs)]), format!("{want}\n"));
        }
    }

    #[test]
    fn nested_lists_and_tables() {
        let item = |t: &str, nested: Option<Block>| ListItem {
            blocks: std::iter::once(Block::text(t)).chain(nested).collect(),
            checked: None,
        };
        let inner = Block::List(List {
            ordered: true,
            start: 3,
            items: vec![item("x", None), item("y", None)],
        });
        let outer = Block::List(List {
            ordered: false,
            start: 1,
            items: vec![item("a", Some(inner)), item("b", None)],
        });
        assert_eq!(md(vec![outer]), "- a\n  3. x\n  4. y\n- b\n");

        let t = Block::Table(Table {
            header_rows: 1,
            rows: vec![
                vec![
                    Cell {
                        colspan: 2,
                        ..Cell::text("H|1")
                    },
                    Cell::text("H3"),
                ],
                vec![
                    Cell {
                        rowspan: 2,
                        ..Cell::text("a")
                    },
                    Cell::text("b"),
                    Cell::text("c"),
                ],
                vec![Cell::text("d"), Cell::text("e")],
            ],
        });
        assert_eq!(
            md(vec![t]),
            "| H\\|1 | H\\|1 | H3 |\n| --- | --- | --- |\n| a | b | c |\n| a | d | e |\n"
        );
    }

    #[test]
    fn adjacent_lists_of_one_kind_take_the_other_marker() {
        let list = |ordered: bool, start: u64, texts: &[&str]| {
            Block::List(List {
                ordered,
                start,
                items: texts
                    .iter()
                    .map(|t| ListItem {
                        blocks: vec![Block::text(*t)],
                        checked: None,
                    })
                    .collect(),
            })
        };
        // A numbering that jumps (1, 2, then 5) stays two lists, each with its numbers, and
        // a third list goes back to the first marker; bullets alike.
        let out = md(vec![
            list(true, 1, &["a", "b"]),
            list(true, 5, &["e"]),
            list(true, 1, &["x"]),
            list(false, 1, &["p"]),
            list(false, 1, &["q"]),
        ]);
        assert_eq!(out, "1. a\n2. b\n\n5) e\n\n1. x\n\n- p\n\n* q\n");
        // Lists of different kinds, or parted by other blocks, keep their usual markers.
        let out = md(vec![
            list(true, 1, &["a"]),
            list(false, 1, &["b"]),
            Block::text("between"),
            list(false, 1, &["c"]),
        ]);
        assert_eq!(out, "1. a\n\n- b\n\nbetween\n\n- c\n");
    }

    #[test]
    fn a_loose_list_nested_in_a_tight_one_keeps_its_blank_lines() {
        // 1. A / 1. B / 1. C, 1. D with a second paragraph: only the innermost list is loose.
        let item = |blocks: Vec<Block>| ListItem {
            blocks,
            checked: None,
        };
        let list = |items: Vec<ListItem>| {
            Block::List(List {
                ordered: true,
                start: 1,
                items,
            })
        };
        let innermost = list(vec![
            item(vec![Block::text("C")]),
            item(vec![Block::text("D"), Block::text("More of D.")]),
        ]);
        let middle = list(vec![item(vec![Block::text("B"), innermost])]);
        let outer = list(vec![item(vec![Block::text("A"), middle])]);
        assert_eq!(
            md(vec![outer]),
            "1. A\n   1. B\n      1. C\n\n      2. D\n\n         More of D.\n"
        );

        // A paragraph after the nested list makes the item loose: it must not run on into
        // the nested list's last item.
        let nested = list(vec![item(vec![Block::text("x")])]);
        let l = list(vec![item(vec![
            Block::text("a"),
            nested,
            Block::text("after"),
        ])]);
        assert_eq!(md(vec![l]), "1. a\n\n   1. x\n\n   after\n");
    }

    #[test]
    fn merged_cells_repeat_down_and_in_the_header_line_only() {
        let span = |text: &str, colspan: u32, rowspan: u32| Cell {
            colspan,
            rowspan,
            ..Cell::text(text)
        };
        let t = Block::Table(Table {
            header_rows: 1,
            rows: vec![
                vec![Cell::text("K"), span("Year", 2, 1)],
                vec![span("Section", 3, 1)],
                vec![span("g", 1, 3), span("wide", 2, 1)],
                vec![span("block", 2, 2)],
                vec![],
                vec![Cell::text("x"), Cell::text("y"), Cell::text("z")],
            ],
        });
        assert_eq!(
            md(vec![t]),
            "| K | Year | Year |\n| --- | --- | --- |\n| Section |  |  |\n| g | wide |  |\n\
             | g | block |  |\n| g | block |  |\n| x | y | z |\n"
        );
    }

    #[test]
    fn pages_slides_sheets_and_notes() {
        let mut p1 = Part::page(1);
        p1.blocks.push(Block::text("one"));
        let p2 = Part::page(2);
        assert_eq!(
            document(&doc(DocumentKind::Paged, vec![p1, p2]), ImageMode::DataUri),
            "<!-- Page 1 -->\n\none\n\n<!-- Page 2 -->\n"
        );
        let mut s = Part::slide(1);
        s.blocks.push(Block::heading(2, "Title"));
        s.notes.push(Block::text("say this"));
        assert_eq!(
            document(
                &doc(DocumentKind::Presentation, vec![s]),
                ImageMode::DataUri
            ),
            "<!-- Slide 1 -->\n\n## Title\n\n### Notes\n\nsay this\n"
        );
        let mut grid = Grid::new();
        grid.push_row(["a", "b"]);
        grid.push_row(["1"]);
        let mut sheet = Part::sheet(1, "Data");
        sheet.blocks.push(Block::Grid(Box::new(grid)));
        let empty = Part::sheet(2, "Empty");
        assert_eq!(
            document(
                &doc(DocumentKind::Spreadsheet, vec![sheet, empty]),
                ImageMode::DataUri
            ),
            "## Data\n\n| a | b |\n| --- | --- |\n| 1 |  |\n\n## Empty\n\n*(empty sheet)*\n"
        );
    }

    #[test]
    fn images_code_quotes_links_notes() {
        let mut img = Image::new("a.png", "image/png", vec![1, 2, 3]);
        img.ocr_text = Some("READ ME".into());
        let out = md(vec![
            Block::Image(Box::new(img)),
            Block::Code {
                language: Some("rust".into()),
                text: "let a = \"```\";\n".into(),
            },
            Block::Quote(vec![Block::text("q1"), Block::text("q2")]),
            Block::Paragraph(vec![
                Inline::link("https://x.org/a b", None, vec![Inline::plain("link")]),
                Inline::link(
                    "/wiki/A",
                    Some("Say \"A\"\n(the letter) \\".into()),
                    vec![Inline::plain("A")],
                ),
                Inline::NoteRef("1".into()),
            ]),
            Block::Note {
                label: "1".into(),
                blocks: vec![Block::text("the note")],
            },
        ]);
        assert_eq!(
            out,
            "![a.png](data:image/png;base64,AQID)\n\nREAD ME\n\n````rust\nlet a = \"```\";\n````\n\n> q1\n>\n> q2\n\n[link](<https://x.org/a b>)[A](/wiki/A \"Say \\\"A\\\" (the letter) \\\\\")[^1]\n\n[^1]: the note\n"
        );
    }

    #[test]
    fn formulas_are_written_as_latex_unescaped() {
        let cell = |inlines: Vec<Inline>| quire_plugin_api::Cell::new(inlines);
        let out = md(vec![
            Block::Paragraph(vec![
                Inline::plain("Let "),
                Inline::Math {
                    tex: "x_{1}^{*}+\\frac{a}{b}".into(),
                    display: false,
                },
                Inline::plain(" hold_{x}."),
            ]),
            Block::Paragraph(vec![Inline::Math {
                tex: "\\sum_{i=1}^{n} i".into(),
                display: true,
            }]),
            Block::Table(quire_plugin_api::Table {
                header_rows: 1,
                rows: vec![
                    vec![cell(vec![Inline::plain("det")])],
                    vec![cell(vec![Inline::Math {
                        tex: "|A_{1}|".into(),
                        display: false,
                    }])],
                ],
            }),
        ]);
        assert_eq!(
            out,
            "Let $x_{1}^{*}+\\frac{a}{b}$ hold\\_{x}.\n\n$$\\sum_{i=1}^{n} i$$\n\n| det |\n| --- |\n| $\\|A_{1}\\|$ |\n"
        );
    }
}
