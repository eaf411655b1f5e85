//! Word documents (DOCX, DOCM, DOTX, DOTM) to quire's document model.
//!
//! Why a reader of our own rather than docx-rs (the crate the first design named): measured
//! on the 39-file corpus, docx-rs 0.4 parsed every file, but parsing alone took a median of
//! 1.0 ms (max 7.5 ms: it decodes every image through the `image` crate) and its model lacks
//! what the output needs (footnote and header text, numbering labels, equations), which we
//! would have had to read ourselves anyway. This streaming quick-xml reader does the whole
//! conversion in a median of 0.31 ms (max ~1.0 ms) and matches on local names, so Strict
//! documents work unchanged. Figures and method: ARCHITECTURE.md, `examples/bench_docx.rs`.
//!
//! Pipeline: [`SafeZip`] opens the package under the job's limits; `styles.xml` and
//! `numbering.xml` are read into lookup tables; [`body::PartParser`] reads the main part
//! (then headers, footers, notes and comments, with each part's own relationships) into
//! [`body::Item`]s; [`build::Builder`] turns those into headings, lists, tables and notes in
//! document order; images are OCR'd last when the job asks for it.
//!
//! Placement: header text (when it says more than a page number) comes once at the start,
//! footer text once at the end, then footnotes, endnotes and comments as [`Block::Note`]s in
//! the order they are referenced.

mod body;
mod build;
mod math;
mod media;
mod mht;
mod numbering;
mod styles;
mod xml;

use body::{Item, NoteBodies, NoteKind, PartParser, Shared};
use build::{blocks_text, Builder};
use numbering::Numbering;
use quire_ooxml::{core_properties, relationships, SafeZip};
use quire_plugin_api::{
    register_converter, Block, Context, Converter, ConverterDescriptor, Document, DocumentKind,
    Error, ErrorKind, Inline, Input, OcrImage, Part, PluginConfig, Result,
};
use std::collections::HashMap;
use styles::Styles;
use xml::Xml;

/// The converter; stateless.
pub struct DocxConverter;

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(DocxConverter))
}

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "docx",
    name: "Word Document",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &[
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.ms-word.document.macroEnabled.12",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
        "application/vnd.ms-word.template.macroEnabled.12",
    ],
    extensions: &["docx", "docm", "dotx", "dotm"],
    factory,
};

register_converter!(DESCRIPTOR);

impl Converter for DocxConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        convert(input.bytes, ctx)
    }
}

const MISSING_MAIN: &str = "The file is not a valid DOCX: word/document.xml is missing";

/// The main document part named by the package relationships, else the usual name.
fn main_part(zip: &mut SafeZip<'_>) -> Result<String> {
    let rels = relationships(zip, "")?;
    let named = rels
        .into_values()
        .find(|r| r.kind == "officeDocument" && !r.external)
        .map(|r| r.target)
        .filter(|t| zip.contains(t));
    Ok(named.unwrap_or_else(|| "word/document.xml".to_owned()))
}

/// Reads a whole part's block content (a header or footer).
fn part_items(sh: &mut Shared<'_, '_, '_, '_>, part: &str) -> Result<Vec<Item>> {
    let Some(bytes) = sh.zip.read(part)? else {
        return Ok(Vec::new());
    };
    let rels = relationships(sh.zip, part)?;
    let mut x = Xml::new(&bytes, sh.ctx.limits.max_depth, part);
    let mut items = Vec::new();
    PartParser::new(sh, rels).blocks(&mut x, &mut items, None)?;
    if x.damaged.is_some() {
        sh.ctx.warn(format!(
            "Part of the document is damaged and was cut short ({part})."
        ));
    }
    Ok(items)
}

/// Reads a notes part (footnotes, endnotes, comments).
fn note_items(
    sh: &mut Shared<'_, '_, '_, '_>,
    part: Option<String>,
    element: &[u8],
) -> Result<NoteBodies> {
    let Some(part) = part else {
        return Ok(HashMap::new());
    };
    let Some(bytes) = sh.zip.read(&part)? else {
        return Ok(HashMap::new());
    };
    let rels = relationships(sh.zip, &part)?;
    let mut x = Xml::new(&bytes, sh.ctx.limits.max_depth, &part);
    let notes = PartParser::new(sh, rels).notes(&mut x, element)?;
    Ok(notes)
}

/// Whether header or footer text says no more than a page number ("Page 3 of 12", "- 3 -").
fn page_number_only(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| {
            w.chars().all(|c| c.is_ascii_digit())
                || matches!(w.to_lowercase().as_str(), "page" | "of" | "pg" | "p")
        })
}

/// Converts DOCX bytes.
pub fn convert(bytes: &[u8], ctx: &mut Context<'_>) -> Result<Document> {
    let mut zip = SafeZip::open(bytes, &ctx.limits, "DOCX")?;
    let main = main_part(&mut zip)?;
    let Some(xml_bytes) = zip.read(&main)? else {
        return Err(Error::malformed(MISSING_MAIN));
    };
    let rels = relationships(&mut zip, &main)?;
    let part_of = |kind: &str| {
        rels.values()
            .find(|r| r.kind == kind && !r.external)
            .map(|r| r.target.clone())
    };
    let max_depth = ctx.limits.max_depth;
    let styles = match part_of("styles") {
        Some(p) => match zip.read(&p)? {
            Some(b) => Styles::parse(&b, max_depth)?,
            None => Styles::default(),
        },
        None => Styles::default(),
    };
    let mut numbering = match part_of("numbering") {
        Some(p) => match zip.read(&p)? {
            Some(b) => Numbering::parse(&b, max_depth)?,
            None => Numbering::default(),
        },
        None => Numbering::default(),
    };
    let core = core_properties(&mut zip);
    ctx.check()?;

    let mut sh = Shared {
        zip: &mut zip,
        ctx: &mut *ctx,
        styles,
        notes: Default::default(),
        images: 0,
        headers: Vec::new(),
        footers: Vec::new(),
        paragraphs_read: 0,
        deep_warned: false,
        alt_chunks: 0,
    };
    let mut body_items = Vec::new();
    let mut x = Xml::new(&xml_bytes, max_depth, &main);
    // The main part must be a WordprocessingML document (not a workbook or presentation
    // whose package was renamed .docx).
    loop {
        match x.next()? {
            xml::Ev::Start(e) if xml::name(&e) == b"document" => break,
            xml::Ev::Start(_) | xml::Ev::Empty(_) | xml::Ev::End | xml::Ev::Eof => {
                return Err(match x.damaged.take() {
                    Some(d) => Error::malformed(
                        "The DOCX file is damaged: its main text is not well-formed XML.",
                    )
                    .with_detail(d),
                    None => Error::malformed(MISSING_MAIN),
                });
            }
            xml::Ev::Text(_) => {}
        }
    }
    PartParser::new(&mut sh, rels.clone()).blocks(&mut x, &mut body_items, None)?;
    if let Some(detail) = x.damaged.take() {
        if body_items.is_empty() {
            return Err(Error::malformed(
                "The DOCX file is damaged: its main text is not well-formed XML.",
            )
            .with_detail(detail));
        }
        sh.ctx
            .warn("The end of the document is damaged; the text before it was kept.");
    }
    let total = x.len();
    sh.ctx.progress(total, total);
    sh.ctx.check()?;

    let mut header_items = Vec::new();
    for part in sh.headers.clone() {
        header_items.push(part_items(&mut sh, &part)?);
    }
    let mut footer_items = Vec::new();
    for part in sh.footers.clone() {
        footer_items.push(part_items(&mut sh, &part)?);
    }
    let kinds: Vec<NoteKind> = sh.notes.order.iter().map(|(k, _, _)| *k).collect();
    let wants = |k: NoteKind| kinds.contains(&k);
    let mut footnotes = HashMap::new();
    let mut endnotes = HashMap::new();
    let mut comments = HashMap::new();
    if wants(NoteKind::Foot) {
        footnotes = note_items(&mut sh, part_of("footnotes"), b"footnote")?;
    }
    if wants(NoteKind::End) {
        endnotes = note_items(&mut sh, part_of("endnotes"), b"endnote")?;
    }
    if wants(NoteKind::Comment) {
        comments = note_items(&mut sh, part_of("comments"), b"comment")?;
    }
    if sh.alt_chunks > 0 {
        let n = sh.alt_chunks;
        sh.ctx.warn(if n == 1 {
            "The document embeds another document (an HTML, RTF or Word chunk that Word converts \
             when it opens the file); its content was left out."
                .to_owned()
        } else {
            format!(
                "The document embeds {n} other documents (HTML, RTF or Word chunks that Word \
                 converts when it opens the file); their content was left out."
            )
        });
    }
    let Shared {
        styles,
        notes,
        images,
        ..
    } = sh;

    let mut builder = Builder {
        styles: &styles,
        numbering: &mut numbering,
        paragraphs: 0,
        tables: 0,
    };
    let mut blocks = Vec::new();
    let mut seen_texts: Vec<String> = Vec::new();
    let mut decorations =
        |builder: &mut Builder<'_>, groups: Vec<Vec<Item>>, out: &mut Vec<Block>| {
            for items in groups {
                let built = builder.blocks(items);
                let mut text = String::new();
                blocks_text(&built, &mut text);
                let text = quire_plugin_api::text::fold_whitespace(&text);
                if text.is_empty() || page_number_only(&text) || seen_texts.contains(&text) {
                    continue;
                }
                seen_texts.push(text);
                out.extend(built);
            }
        };
    decorations(&mut builder, header_items, &mut blocks);
    let body = builder.blocks(body_items);
    let body_paragraphs = builder.paragraphs;
    blocks.extend(body);
    decorations(&mut builder, footer_items, &mut blocks);

    let (mut n_foot, mut n_comments) = (0, 0);
    for (kind, id, label) in notes.order {
        let source = match kind {
            NoteKind::Foot => &mut footnotes,
            NoteKind::End => &mut endnotes,
            NoteKind::Comment => &mut comments,
        };
        let Some((items, author)) = source.remove(&id) else {
            continue;
        };
        let mut note_blocks = builder.blocks(items);
        if kind == NoteKind::Comment {
            n_comments += 1;
            if let Some(author) = author {
                match note_blocks.first_mut() {
                    Some(Block::Paragraph(content)) => {
                        content.insert(0, Inline::plain(format!("{author}: ")))
                    }
                    _ => note_blocks.insert(0, Block::text(format!("{author}:"))),
                }
            }
        } else {
            n_foot += 1;
        }
        blocks.push(Block::Note {
            label,
            blocks: note_blocks,
        });
    }
    let tables = builder.tables;

    let mut doc = Document::new(DocumentKind::Flowing, "Word Document");
    let mut text = String::new();
    blocks_text(&blocks, &mut text);
    let m = &mut doc.metadata;
    m.title = core.title;
    m.author = core.creator;
    m.created = core.created;
    m.modified = core.modified;
    m.subject = core.subject;
    let extra = &mut m.extra;
    extra.insert("num_paragraphs".into(), body_paragraphs.into());
    extra.insert(
        "word_count".into(),
        quire_plugin_api::text::word_count(&text).into(),
    );
    extra.insert("num_tables".into(), tables.into());
    extra.insert("num_images".into(), images.into());
    if n_foot > 0 {
        extra.insert("num_notes".into(), n_foot.into());
    }
    if n_comments > 0 {
        extra.insert("num_comments".into(), n_comments.into());
    }
    if let Some(by) = core.last_modified_by {
        extra.insert("last_modified_by".into(), by.into());
    }
    let mut part = Part::section();
    part.blocks = blocks;
    doc.parts.push(part);

    if ctx.ocr_enabled() {
        ocr_images(&mut doc, ctx)?;
    }
    Ok(doc)
}

/// Reads the text of every embedded picture the OCR provider can decode.
fn ocr_images(doc: &mut Document, ctx: &mut Context<'_>) -> Result<()> {
    let mut stop = None;
    doc.for_each_image_mut(&mut |img| {
        if stop.is_some()
            || img.skipped.is_some()
            || img.data.is_empty()
            || matches!(
                img.mime.as_str(),
                "image/x-emf" | "image/x-wmf" | "image/svg+xml" | "application/octet-stream"
            )
        {
            return;
        }
        let request = OcrImage {
            data: &img.data,
            mime: &img.mime,
            dpi: None,
        };
        match ctx.ocr(&request) {
            Some(Ok(out)) => {
                let t = out.text.trim();
                if !t.is_empty() {
                    img.ocr_text = Some(t.to_owned());
                }
            }
            Some(Err(e)) if e.kind() == ErrorKind::Timeout => stop = Some(e),
            Some(Err(e)) => ctx.warn(format!(
                "Text in image {} could not be read: {}",
                img.name,
                e.message()
            )),
            None => {}
        }
    });
    match stop {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
