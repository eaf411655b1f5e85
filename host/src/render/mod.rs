//! Document model → output. The one place where Markdown and JSON are written, so every format
//! escapes, embeds images and marks pages the same way.

pub mod chunks;
pub mod files;
pub mod json;
pub mod markdown;
pub mod pretokenize;
pub mod ranks;
pub mod tokenize;

use quire_plugin_api::{Block, Document, Inline};
use std::io::Write as _;
use std::path::Path;

/// The two output formats of the interface (`md`, `json`), and `chunks` (retrieval chunks,
/// beyond the contract; see [`chunks`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
pub enum OutputFormat {
    #[serde(rename = "md")]
    Markdown,
    #[serde(rename = "json")]
    Json,
    #[serde(rename = "chunks")]
    Chunks,
}

impl OutputFormat {
    /// Parses the interface's `output_format` value (`md` or `json`).
    pub fn parse(value: &str) -> Option<OutputFormat> {
        match value {
            "md" => Some(OutputFormat::Markdown),
            "json" => Some(OutputFormat::Json),
            "chunks" => Some(OutputFormat::Chunks),
            _ => None,
        }
    }

    /// The interface's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Markdown => "md",
            OutputFormat::Json => "json",
            OutputFormat::Chunks => "chunks",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Chunks => "chunks.json",
            other => other.as_str(),
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            OutputFormat::Markdown => "text/markdown; charset=utf-8",
            OutputFormat::Json | OutputFormat::Chunks => "application/json; charset=utf-8",
        }
    }
}

/// How images appear inside Markdown text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageMode {
    /// Embedded as `data:` URIs (Markdown output).
    DataUri,
    /// Referenced by file name (text inside JSON, whose `images` map holds the bytes).
    Reference,
    /// Linked as `images/<name>`, files beside the output (`image_mode=referenced`).
    Linked,
    /// An `<!-- image: alt -->` comment ([`markdown::image_placeholder`]).
    Placeholder,
    /// Left out.
    Omit,
}

pub use files::ImageOutput;

/// Settings that shape the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// `SPREADSHEET_SAMPLE_ROWS`.
    pub sample_rows: usize,
    /// The job's `image_mode` (default: embedded, the contract's base64).
    pub images: ImageOutput,
    /// The job's chunk options (chunks output only).
    pub chunks: chunks::ChunkOptions,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            sample_rows: 5,
            images: ImageOutput::Embedded,
            chunks: chunks::ChunkOptions::default(),
        }
    }
}

/// Renders `doc` in `format` into `sink`; Markdown is written as it is rendered, without
/// holding the whole text (byte for byte what [`markdown::document`] returns).
pub fn render_to(
    doc: &Document,
    file_name: &str,
    format: OutputFormat,
    opts: &RenderOptions,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Markdown => markdown::write_document(doc, opts.images.markdown(), sink),
        OutputFormat::Json => {
            let value = json::document(doc, file_name, opts);
            let mut w = std::io::BufWriter::with_capacity(1 << 16, sink);
            serde_json::to_writer_pretty(&mut w, &value)?;
            w.write_all(b"\n")?;
            w.flush()
        }
        OutputFormat::Chunks => {
            let list = chunks::chunk(doc, &opts.chunks).map_err(std::io::Error::other)?;
            let value = chunks::output(doc, file_name, &opts.chunks, &list);
            let mut w = std::io::BufWriter::with_capacity(1 << 16, sink);
            serde_json::to_writer_pretty(&mut w, &value)?;
            w.write_all(b"\n")?;
            w.flush()
        }
    }
}

/// The document's title: its own title property, else its first heading, else the file name
/// without extension.
pub fn title(doc: &Document, file_name: &str) -> String {
    if let Some(t) = doc
        .metadata
        .title
        .as_deref()
        .map(fold)
        .filter(|t| !t.is_empty())
    {
        return t;
    }
    for part in &doc.parts {
        for block in &part.blocks {
            if let Block::Heading { content, .. } = block {
                let t = fold(&plain_inlines(content));
                if !t.is_empty() {
                    return t;
                }
            }
        }
    }
    file_stem(file_name)
}

/// The file name without its extension (and without any path the client sent).
pub fn file_stem(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    Path::new(base)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(base)
        .to_owned()
}

/// Collapses whitespace runs to one space and trims.
pub fn fold(text: &str) -> String {
    quire_plugin_api::text::fold_whitespace(text)
}

/// The plain text of inline content (no Markdown syntax).
pub fn plain_inlines(content: &[Inline]) -> String {
    let mut s = String::new();
    push_plain_inlines(content, &mut s);
    s
}

fn push_plain_inlines(content: &[Inline], s: &mut String) {
    for inline in content {
        match inline {
            // A `Lines` text's newlines are its breaks, written as the `Break` arm writes them.
            Inline::Text { text, .. }
            | Inline::Lines { text }
            | Inline::Code(text)
            | Inline::Math { tex: text, .. } => s.push_str(text),
            Inline::Link(link) => push_plain_inlines(&link.content, s),
            Inline::Break => s.push('\n'),
            Inline::Image(img) => {
                if let Some(t) = &img.ocr_text {
                    s.push(' ');
                    s.push_str(t);
                    s.push(' ');
                }
            }
            Inline::NoteRef(_) => {}
        }
    }
}

/// The plain text of blocks, one block a line (for summaries and tests).
pub fn plain_blocks(blocks: &[Block]) -> String {
    let mut s = String::new();
    push_plain_blocks(blocks, &mut s);
    s
}

fn push_plain_blocks(blocks: &[Block], s: &mut String) {
    for block in blocks {
        match block {
            Block::Heading { content, .. } | Block::Paragraph(content) => {
                push_plain_inlines(content, s);
                s.push('\n');
            }
            Block::List(list) => {
                for item in &list.items {
                    push_plain_blocks(&item.blocks, s);
                }
            }
            Block::Table(table) => {
                for row in &table.rows {
                    for cell in row {
                        push_plain_inlines(&cell.content, s);
                        s.push(' ');
                    }
                    s.push('\n');
                }
            }
            Block::Grid(grid) => {
                for row in grid.iter_rows() {
                    for cell in row {
                        s.push_str(cell);
                        s.push(' ');
                    }
                    s.push('\n');
                }
            }
            Block::Image(img) => {
                if let Some(t) = &img.ocr_text {
                    s.push_str(t);
                    s.push('\n');
                }
            }
            Block::Code { text, .. } => {
                s.push_str(text);
                s.push('\n');
            }
            Block::Quote(inner) | Block::Note { blocks: inner, .. } => push_plain_blocks(inner, s),
            Block::Rule => {}
        }
    }
}
