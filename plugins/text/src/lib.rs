//! Plain text (`text/plain`) → a flowing [`Document`] of paragraphs.
//!
//! Text files carry no markup, so the only structure worth keeping is the author's own: blank
//! lines separate paragraphs, and single line breaks inside a paragraph stay line breaks
//! ([`Inline::Break`]). Re-flowing wrapped lines into one would guess at intent (a poem, an
//! address or a list written with dashes would be destroyed), so the text is kept as written;
//! only trailing blanks and control characters are dropped.
//!
//! Bytes of any common encoding are accepted: [`text::decode_cow`] honours a BOM, then UTF-8, then
//! statistical detection of legacy 8-bit encodings. The encoding used is recorded in
//! `metadata.extra["encoding"]`.

use quire_plugin_api::{
    register_converter, text, Block, Context, Converter, ConverterDescriptor, Document,
    DocumentKind, Inline, Input, Part, PluginConfig, Result,
};

/// The converter's registration.
pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "text",
    name: "Plain text",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &["text/plain"],
    extensions: &["txt", "text", "log"],
    factory,
};

register_converter!(DESCRIPTOR);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(TextConverter))
}

/// Lines between two deadline checks; a line costs well under a microsecond.
const CHECK_EVERY_LINES: usize = 8192;

/// Converts plain text into paragraphs.
#[derive(Debug, Default, Clone, Copy)]
pub struct TextConverter;

impl Converter for TextConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        ctx.check()?;
        // Borrowed when the file is UTF-8 already: no second copy of a large input.
        let decoded = text::decode_cow(input.bytes, None);
        if decoded.had_errors {
            ctx.warn(format!(
                "Some bytes were not valid {} and were replaced by \u{FFFD}.",
                decoded.encoding
            ));
        }
        let mut doc = Document::new(DocumentKind::Flowing, "Text Document");
        doc.metadata
            .extra
            .insert("encoding".into(), decoded.encoding.into());
        let mut part = Part::section();
        part.blocks = paragraphs(&decoded.text, ctx)?;
        doc.parts.push(part);
        ctx.progress(1, 1);
        Ok(doc)
    }
}

/// Splits text into paragraphs at blank lines (and form feeds); lines inside a paragraph are
/// joined with hard breaks.
pub fn paragraphs(text: &str, ctx: &Context<'_>) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    let mut current: Vec<Inline> = Vec::new();
    let mut line_buf = String::new();
    for (i, raw_line) in split_lines(text).enumerate() {
        if i % CHECK_EVERY_LINES == CHECK_EVERY_LINES - 1 {
            ctx.check()?;
        }
        // A form feed is a page break in a text file: treat it as a paragraph boundary.
        for (j, piece) in raw_line.split('\u{c}').enumerate() {
            if j > 0 {
                flush(&mut current, &mut blocks);
            }
            clean_line(piece, &mut line_buf);
            if line_buf.is_empty() {
                flush(&mut current, &mut blocks);
                continue;
            }
            if !current.is_empty() {
                current.push(Inline::Break);
            }
            current.push(Inline::plain(std::mem::take(&mut line_buf)));
        }
    }
    flush(&mut current, &mut blocks);
    blocks.shrink_to_fit();
    Ok(blocks)
}

fn flush(current: &mut Vec<Inline>, blocks: &mut Vec<Block>) {
    if !current.is_empty() {
        // Inlines are 160 bytes and a vector grows to 4 at once: a one-line paragraph would
        // hold three empty ones, about a third of a large text's size in all.
        let mut content = std::mem::take(current);
        content.shrink_to_fit();
        blocks.push(Block::Paragraph(content));
    }
}

/// Lines split at `\n`, `\r\n` or a lone `\r` (old Mac files).
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
}

/// Copies a line without surrounding whitespace and without control characters (tabs become
/// spaces), so a stray NUL or escape sequence cannot reach the output.
fn clean_line(line: &str, out: &mut String) {
    out.clear();
    let line = line.trim();
    if line.bytes().all(|b| b >= 0x20 && b != 0x7f) {
        out.push_str(line);
        return;
    }
    for c in line.chars() {
        match c {
            '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
}

#[cfg(test)]
mod tests;
