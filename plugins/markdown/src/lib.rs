//! Markdown (`text/markdown`) → a flowing [`Document`].
//!
//! Parsing is pulldown-cmark's (CommonMark plus the GitHub extensions people actually write:
//! tables, strikethrough, task lists, footnotes). pandoc's own Markdown is read too where
//! CommonMark would read it as something else ([`pandoc`]): YAML front matter at the start is
//! metadata (its title the first heading), simple, multiline and grid tables are tables, and
//! `a.`, `(1)`, `iv.`, `#.` lists are lists. Its event stream is folded into the document model by
//! [`builder::Builder`], which keeps an explicit stack of open containers instead of
//! recursing, so deeply nested quotes or lists cannot overflow the stack; nesting beyond the
//! depth limit is flattened into the innermost container that is kept.
//!
//! Large input is parsed a window at a time ([`window`]): the events are those of one whole
//! parse, without pulldown-cmark's tree of the whole text.
//!
//! Images are never fetched: a `data:` URI is decoded into image bytes, a remote image is kept
//! as a link to its address with its alt text.

mod builder;
mod pandoc;
mod window;

use pulldown_cmark::{Event, Options, Tag};
use quire_plugin_api::{
    register_converter, text, Context, Converter, ConverterDescriptor, Document, DocumentKind,
    Input, Part, PluginConfig, Result,
};

/// The converter's registration.
pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "markdown",
    name: "Markdown",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &["text/markdown"],
    extensions: &["md", "markdown"],
    factory,
};

register_converter!(DESCRIPTOR);

/// The pulldown-cmark extensions the converter reads.
pub(crate) const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_DEFINITION_LIST)
    .union(Options::ENABLE_SUPERSCRIPT)
    .union(Options::ENABLE_SUBSCRIPT)
    .union(Options::ENABLE_MATH);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(MarkdownConverter))
}

/// Converts Markdown into the document model.
#[derive(Debug, Default, Clone, Copy)]
pub struct MarkdownConverter;

impl Converter for MarkdownConverter {
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
        // Front matter is pandoc's (`pandoc::front_matter`): pulldown-cmark's metadata blocks
        // would also take a `---` … `---` from the middle of the text.
        // Definition lists (`Term` then `: definition`), superscript (`^2^`) and subscript
        // (`~2~`) are pandoc's and PHP Markdown Extra's: without them their markers stayed in
        // the text. A single tilde is subscript, as pandoc reads it (GFM reads it as
        // strikethrough; `~~x~~` is strikethrough either way).
        let options = OPTIONS;
        let stripped = without_grounding_lines(&decoded.text);
        let source = stripped.as_deref().unwrap_or(&decoded.text);
        let check = || ctx.check();
        let mut builder =
            builder::Builder::new(ctx.limits.max_depth, ctx.limits.max_images, &check);
        let body = if let Some((yaml, at)) = pandoc::front_matter(source) {
            builder.front_matter(yaml);
            &source[at..]
        } else if let Some((fields, at)) = pandoc::toml_front_matter(source) {
            builder.front_fields(fields);
            &source[at..]
        } else if let Some((fields, at)) = pandoc::title_block(source) {
            builder.title_block(fields);
            &source[at..]
        } else {
            source
        };
        let prepared = pandoc::prepare(body);
        let headerless = &prepared.headerless;
        let mut i = 0usize;
        window::for_each_event(&prepared.text, options, window::WINDOW, &mut |event, at| {
            i += 1;
            if i.is_multiple_of(2048) {
                check()?;
            }
            let table = matches!(event, Event::Start(Tag::Table(_)));
            builder.event(event)?;
            if table {
                // The table's offset is its line's, or up to three spaces of indentation on.
                let k = headerless.partition_point(|&h| h + 3 < at);
                if headerless.get(k).is_some_and(|&h| h <= at) {
                    builder.headerless_table();
                }
            }
            Ok(())
        })?;
        let built = builder.finish()?;
        for warning in built.warnings {
            ctx.warn(warning);
        }

        let mut doc = Document::new(DocumentKind::Flowing, "Markdown Document");
        doc.metadata = built.metadata;
        doc.metadata
            .extra
            .insert("encoding".into(), decoded.encoding.into());
        let mut part = Part::section();
        part.blocks = built.blocks;
        doc.parts.push(part);
        ctx.progress(1, 1);
        Ok(doc)
    }
}

/// The text without the grounding annotations of OCR models' Markdown, or `None` when it has
/// none (the common case: no copy).
///
/// Vision-language OCR models (DeepSeek-OCR and its kin) write before each block a line
/// `<|ref|>label<|/ref|><|det|>[[x1, y1, x2, y2]]<|/det|>`: the block's layout label and box,
/// in the model's special tokens. Such a line is layout data, not text; only whole lines of
/// exactly that shape are dropped, so prose that mentions the tokens stays.
fn without_grounding_lines(text: &str) -> Option<String> {
    if !text.contains("<|det|>") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut dropped = false;
    for line in text.split_inclusive('\n') {
        if is_grounding_line(line.trim()) {
            dropped = true;
        } else {
            out.push_str(line);
        }
    }
    dropped.then_some(out)
}

/// `<|ref|>word<|/ref|><|det|>[[n, n, n, n], …]<|/det|>`, the label a single word.
fn is_grounding_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("<|ref|>") else {
        return false;
    };
    let Some((label, rest)) = rest.split_once("<|/ref|><|det|>") else {
        return false;
    };
    let Some(boxes) = rest.strip_suffix("<|/det|>") else {
        return false;
    };
    !label.is_empty()
        && label
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && boxes.starts_with("[[")
        && boxes.ends_with("]]")
        && boxes
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '[' | ']' | ',' | ' ' | '.'))
}

#[cfg(test)]
mod tests;
