//! Plain text (`text/plain`) → a flowing [`Document`] of paragraphs.
//!
//! Text files carry no markup, so the only structure worth keeping is the author's own: blank
//! lines separate paragraphs, and single line breaks inside a paragraph stay line breaks
//! (a paragraph of several lines is one [`Inline::Lines`]: hard breaks between its lines, one
//! string for the whole paragraph, so a file of short lines costs about its own size). Re-flowing wrapped lines into one would guess at intent (a poem, an
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
    // The open paragraph's lines, `\n` between them (an `Inline::Lines` text).
    let mut current = String::new();
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
            if current.is_empty() {
                // The first line's buffer becomes the paragraph's: no copy of a long line.
                current = std::mem::take(&mut line_buf);
            } else {
                current.push('\n');
                current.push_str(&line_buf);
            }
        }
    }
    flush(&mut current, &mut blocks);
    blocks.shrink_to_fit();
    Ok(blocks)
}

/// Ends the open paragraph: one plain run for one line, else one `Lines` run, without the
/// spare room its growth left (shrunk in place, never copied).
fn flush(current: &mut String, blocks: &mut Vec<Block>) {
    if current.is_empty() {
        return;
    }
    let mut text = std::mem::take(current);
    text.shrink_to_fit();
    let inline = if text.contains('\n') {
        Inline::Lines { text }
    } else {
        Inline::plain(text)
    };
    blocks.push(Block::Paragraph(vec![inline]));
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
