//! XML converter: any well-formed XML, read without expanding entities or fetching DTDs.
//!
//! The element tree becomes `Document.data` (convention in [`tree`]'s docs) and a readable
//! Markdown view ([`render`]) with headings, paragraphs, tables and lists for document-like
//! XML (JATS, patents, RSS, XHTML, DocBook), OPML outlines ([`opml`]), office documents saved
//! as XML ([`office`]: Word 2003 and flat OPC Word, Excel 2003) and `name: value` lists or
//! tables for data.

mod excel2003;
mod inline;
mod names;
mod office;
mod opml;
mod render;
mod table;
pub mod tree;
mod xbrl;

use quire_plugin_api::{
    register_converter, text, Context, Converter, ConverterDescriptor, Document, DocumentKind,
    Input, Part, PluginConfig, Result,
};

/// Upper bound on nesting whatever the configuration says: the tree is walked and dropped
/// recursively, so the depth must stay well inside a worker thread's stack.
const HARD_MAX_DEPTH: u32 = 1_024;

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "xml",
    name: "XML",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &["application/xml"],
    extensions: &["xml"],
    factory,
};

register_converter!(DESCRIPTOR);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(XmlConverter))
}

/// Stateless; one instance serves every job.
#[derive(Debug, Default, Clone, Copy)]
pub struct XmlConverter;

impl Converter for XmlConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        // Valid UTF-8 without a BOM (the common case) is parsed in place, without a copy.
        let owned;
        let (source, encoding): (&str, &str) = match std::str::from_utf8(input.bytes) {
            Ok(s) if !s.starts_with('\u{feff}') && text::wide_encoding(input.bytes).is_none() => {
                (s, "UTF-8")
            }
            _ => {
                let declared = tree::declared_encoding(input.bytes);
                owned = text::decode(input.bytes, declared.as_deref());
                if owned.had_errors {
                    ctx.warn(
                        "Some bytes were not valid in the document's encoding and were replaced.",
                    );
                }
                (owned.text.as_str(), owned.encoding)
            }
        };
        let max_depth = ctx.limits.max_depth.min(HARD_MAX_DEPTH) as usize;
        let mut warnings = Vec::new();
        let roots = {
            let ctx_ref: &Context<'_> = ctx;
            tree::parse(source, max_depth, &mut || ctx_ref.check(), &mut |w| {
                warnings.push(w)
            })?
        };
        for w in warnings {
            ctx.warn(w);
        }
        ctx.check()?;

        let mut head = opml::Head::default();
        let (blocks, title) = {
            let ctx_ref: &Context<'_> = ctx;
            let mut check = || ctx_ref.check();
            let mut renderer = render::Renderer::new(&mut check, render::is_document(&roots));
            for root in &roots {
                if xbrl::is_instance(root) {
                    xbrl::render(&mut renderer, root)?;
                } else if opml::is_outline(root) {
                    head = opml::render(&mut renderer, root)?;
                } else if let Some(kind) = office::kind(root) {
                    office::render(&mut renderer, root, kind)?;
                } else {
                    renderer.element(root, 1)?;
                }
            }
            renderer.finish()
        };

        let mut doc = Document::new(DocumentKind::StructuredData, "XML Document");
        doc.metadata.title = title;
        doc.metadata.author = head.author;
        doc.metadata.created = head.created;
        doc.metadata.modified = head.modified;
        doc.metadata.extra.insert(
            "encoding".into(),
            serde_json::Value::String(encoding.into()),
        );
        if let [root] = roots.as_slice() {
            doc.metadata.extra.insert(
                "root_element".into(),
                serde_json::Value::String(root.name.to_string()),
            );
        }
        let mut part = Part::section();
        part.blocks = blocks;
        doc.parts.push(part);
        // The JsonML tree is a third of the work; Markdown output does not use it.
        if ctx.wants_structured_data() {
            doc.data = Some(match roots.as_slice() {
                [root] => tree::to_json(root),
                many => serde_json::Value::Array(many.iter().map(tree::to_json).collect()),
            });
        }
        Ok(doc)
    }
}

#[cfg(test)]
mod tests;
