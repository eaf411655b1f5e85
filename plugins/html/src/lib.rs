//! HTML (`text/html`) → a flowing [`Document`].
//!
//! The pipeline: find the declared charset in the first 1024 bytes ([`charset`]), decode
//! (BOM, then valid UTF-8, then the declared label, then detection), parse with html5ever — the
//! WHATWG parsing algorithm, so broken markup is repaired exactly as browsers repair it — into
//! a flat arena ([`dom`]), then walk the tree into blocks ([`walk`]).
//!
//! Nothing is fetched: remote images keep only their alt text, `data:` images are decoded.
//! Scripts, styles, templates, `noscript`, form controls, navigation and hidden elements are
//! dropped. The title comes from `<title>`, else the first `<h1>`.

mod charset;

mod dom;
mod guard;
mod inline;
mod links;
mod walk;

use dom::{Dom, NodeData};
#[cfg(feature = "converter")]
use quire_plugin_api::register_converter;
use quire_plugin_api::{
    text, Block, Context, Converter, ConverterDescriptor, Document, DocumentKind, Inline, Input,
    Part, PluginConfig, Result, Style,
};

/// The converter's registration.
pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "html",
    name: "HTML",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &["text/html"],
    extensions: &["html", "htm", "xhtml"],
    factory,
};

// Registered only with the `converter` feature (on by default): a plugin that uses only
// [`fragment_blocks`] (Markdown's HTML blocks) must not add an HTML converter to the registry.
#[cfg(feature = "converter")]
register_converter!(DESCRIPTOR);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(HtmlConverter))
}

/// Converts HTML into the document model.
#[derive(Debug, Default, Clone, Copy)]
pub struct HtmlConverter;

impl Converter for HtmlConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        ctx.check()?;
        let declared = charset::declared(input.bytes);
        let decoded = match charset::bomless_utf16(input.bytes) {
            Some(enc) if encoding_rs::Encoding::for_bom(input.bytes).is_none() => {
                let (text, had_errors) = enc.decode_without_bom_handling(input.bytes);
                text::Decoded {
                    text: text.into_owned(),
                    encoding: enc.name(),
                    had_errors,
                }
            }
            _ => text::decode(input.bytes, declared.as_deref()),
        };
        if decoded.had_errors {
            ctx.warn(format!(
                "Some bytes were not valid {} and were replaced by \u{FFFD}.",
                decoded.encoding
            ));
        }

        let max_depth = (ctx.limits.max_depth as usize).clamp(8, 4096);
        let (dom, parse_cut) = Dom::parse(&decoded.text, max_depth, || ctx.check())?;
        ctx.check()?;

        let check = || ctx.check();
        let mut walker =
            walk::Walker::new(&dom, ctx.limits.max_depth, ctx.limits.max_images, &check);
        let blocks = walker.run()?;
        let first_h1 = walker.first_h1.take();
        let depth_cut = walker.depth_cut || parse_cut;

        let mut doc = Document::new(DocumentKind::Flowing, "HTML Document");
        read_head(&dom, &mut doc);
        if doc.metadata.title.is_none() {
            doc.metadata.title = first_h1.filter(|t| !t.trim().is_empty());
        }
        doc.metadata
            .extra
            .insert("encoding".into(), decoded.encoding.into());
        if depth_cut {
            ctx.warn(format!(
                "Elements nested deeper than {} levels were reduced to their text.",
                ctx.limits.max_depth.min(walk::MAX_WALK_DEPTH as u32)
            ));
        }
        let mut blocks = blocks;
        title_paragraph_as_heading(&mut blocks, doc.metadata.title.as_deref());
        let mut part = Part::section();
        part.blocks = blocks;
        doc.parts.push(part);
        ctx.progress(1, 1);
        Ok(doc)
    }
}

/// What [`fragment_blocks`] found in a fragment.
#[derive(Debug, Default)]
pub struct Fragment {
    pub blocks: Vec<Block>,
    /// Images numbered so far, those before the fragment included.
    pub images: u32,
    /// Elements nested deeper than the limit were reduced to their text.
    pub depth_cut: bool,
}

/// The blocks of raw HTML embedded in another format (a Markdown HTML block such as
/// `<p align="center"><img alt="Logo" src="…"></p>` or `<table>…</table>`): parsed and walked as
/// the body of an HTML document is, so what a browser would show is what comes out, the same
/// elements dropped (scripts, styles, forms, hidden ones), remote images standing as their alt
/// text. A fragment that is only a start or end tag (`<details>`, `</div>`) gives nothing, or
/// the text it holds.
///
/// Images are numbered on from `images_before` (the embedding document's own images, so names
/// stay unique) and those beyond `max_images` are kept without their bytes.
pub fn fragment_blocks(
    html: &str,
    max_depth: u32,
    images_before: u32,
    max_images: u32,
    check: &dyn Fn() -> Result<()>,
) -> Result<Fragment> {
    let depth = (max_depth as usize).clamp(8, 4096);
    let (dom, parse_cut) = Dom::parse(html, depth, check)?;
    let mut walker = walk::Walker::new(&dom, max_depth, max_images, check);
    walker.images = images_before;
    let blocks = walker.run()?;
    Ok(Fragment {
        blocks,
        images: walker.images,
        depth_cut: walker.depth_cut || parse_cut,
    })
}

/// Title, author, description and language from the document head.
fn read_head(dom: &Dom, doc: &mut Document) {
    let mut title: Option<String> = None;
    dom.walk_subtree(Dom::ROOT, |id, node| {
        let NodeData::Element(element) = &node.data else {
            return false;
        };
        let Some(name) = element.html_name() else {
            return false; // never look inside SVG (it has <title> too)
        };
        match &**name {
            "html" => {
                if let Some(lang) = element
                    .attr("lang")
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                {
                    doc.metadata
                        .extra
                        .insert("language".into(), lang.to_owned().into());
                }
                true
            }
            "head" => true,
            "title" if title.is_none() => {
                let mut t = String::new();
                dom.walk_subtree(id, |_, n| {
                    if let NodeData::Text(s) = &n.data {
                        t.push_str(s);
                    }
                    true
                });
                let t = text::fold_whitespace(&t);
                if !t.is_empty() {
                    title = Some(t);
                }
                false
            }
            "meta" => {
                let content = element.attr("content").map(text::fold_whitespace);
                let key = element.attr("name").map(str::to_ascii_lowercase);
                if let (Some(key), Some(content)) = (key, content.filter(|c| !c.is_empty())) {
                    match key.as_str() {
                        "author" => doc.metadata.author = Some(content),
                        "description" => doc.metadata.subject = Some(content),
                        "generator" => {
                            doc.metadata
                                .extra
                                .insert("generator".into(), content.into());
                        }
                        _ => {}
                    }
                }
                false
            }
            _ => false,
        }
    });
    doc.metadata.title = title;
}

#[cfg(test)]
mod tests;

/// A body that opens with a paragraph saying exactly the document's `<title>`, before any
/// heading, shows that title as its first line: LibreOffice's and Word's HTML exports write a
/// document's Title style as a (centred, bold, large) `<p>`. That paragraph, when bold
/// throughout, is the level-1 heading it reads as; a paragraph with plain runs, a link, an
/// image or other text is left alone.
fn title_paragraph_as_heading(blocks: &mut [Block], title: Option<&str>) {
    let Some(title) = title.map(text::fold_whitespace) else {
        return;
    };
    if title.is_empty() {
        return;
    }
    let Some(first) = blocks.iter_mut().find(|b| match b {
        Block::Paragraph(content) => content.iter().any(|i| match i {
            Inline::Text { text, .. } | Inline::Lines { text } => !text.trim().is_empty(),
            _ => true,
        }),
        _ => true,
    }) else {
        return;
    };
    let Block::Paragraph(content) = first else {
        return;
    };
    let mut said = String::new();
    for inline in content.iter() {
        match inline {
            // Set apart as a title: bold throughout (plain text that says the title is
            // the body of a page that holds nothing else).
            Inline::Text { text, style } if style.bold || text.trim().is_empty() => {
                said.push_str(text)
            }
            Inline::Break => said.push(' '),
            _ => return,
        }
    }
    if text::fold_whitespace(&said) != title {
        return;
    }
    let content: Vec<Inline> = std::mem::take(content)
        .into_iter()
        .map(|i| match i {
            // A heading is bold already; a title set in bold says no more.
            Inline::Text { text, style } => Inline::Text {
                text,
                style: Style {
                    bold: false,
                    ..style
                },
            },
            Inline::Break => Inline::plain(" "),
            other => other,
        })
        .collect();
    *first = Block::Heading { level: 1, content };
}
