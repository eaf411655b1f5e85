//! JSON converter: the parsed tree for `structured_data` JSON output, and tables/lists for
//! the Markdown rendering.
//!
//! Parsing uses the crate's own iterative parser ([`parse`]) so key order, number text and
//! depth limits do not depend on workspace-wide `serde_json` features; see that module.

mod parse;
mod render;

use quire_plugin_api::{
    register_converter, text, Context, Converter, ConverterDescriptor, Document, DocumentKind,
    Input, Part, PluginConfig, Result,
};

pub use parse::{parse, to_value, Node};

/// Upper bound on nesting whatever the configuration says: the tree is dropped and rendered
/// recursively, so the depth must stay well inside a worker thread's stack.
const HARD_MAX_DEPTH: u32 = 1_024;

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "json",
    name: "JSON",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &["application/json"],
    extensions: &["json"],
    factory,
};

register_converter!(DESCRIPTOR);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(JsonConverter))
}

/// Stateless; one instance serves every job.
#[derive(Debug, Default, Clone, Copy)]
pub struct JsonConverter;

impl Converter for JsonConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        // JSON is UTF-8 by RFC 8259; `decode` also accepts a BOM (UTF-16 files exist) and falls
        // back to legacy detection for files saved by tools that ignore the rule.
        let decoded = text::decode(input.bytes, None);
        if decoded.had_errors {
            ctx.warn("Some bytes were not valid text in the detected encoding and were replaced.");
        }
        let max_depth = ctx.limits.max_depth.min(HARD_MAX_DEPTH) as usize;
        let root = {
            let ctx_ref: &Context<'_> = ctx;
            parse(&decoded.text, max_depth, &mut || ctx_ref.check())?
        };
        ctx.check()?;
        let mut doc = Document::new(DocumentKind::StructuredData, "JSON Document");
        doc.metadata.extra.insert(
            "encoding".into(),
            serde_json::Value::String(decoded.encoding.into()),
        );
        // A top-level "title" string is the document's title (package manifests, CMS exports).
        if let Node::Object(members) = &root {
            doc.metadata.title = members
                .iter()
                .find(|(k, v)| {
                    k.eq_ignore_ascii_case("title")
                        && matches!(v, Node::String(t) if !t.trim().is_empty())
                })
                .map(|(_, v)| render::scalar_text(v).trim().to_owned());
        }
        let mut part = Part::section();
        part.blocks = render::blocks(&root);
        doc.parts.push(part);
        doc.data = Some(to_value(&root));
        Ok(doc)
    }
}

#[cfg(test)]
pub(crate) fn tests_text(inlines: &[quire_plugin_api::Inline]) -> String {
    inlines
        .iter()
        .map(|i| match i {
            quire_plugin_api::Inline::Text { text, .. } => text.as_str(),
            _ => "",
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_plugin_api::ErrorKind;

    fn convert(bytes: &[u8]) -> Result<Document> {
        let input = Input {
            bytes,
            file_name: "t.json",
            mime: "application/json",
        };
        JsonConverter.convert(&input, &mut Context::new())
    }

    #[test]
    fn document_shape() {
        let doc = convert(br#"{"z":1,"a":[1,2]}"#).unwrap();
        assert_eq!(doc.metadata.title, None);
        let titled = convert(br#"{"Title":" T ","a":1}"#).unwrap();
        assert_eq!(titled.metadata.title.as_deref(), Some("T"));
        assert_eq!(doc.kind, DocumentKind::StructuredData);
        assert_eq!(doc.type_label, "JSON Document");
        assert_eq!(doc.parts.len(), 1);
        assert_eq!(doc.data, Some(serde_json::json!({"z":1,"a":[1,2]})));
    }

    #[test]
    fn bom_and_bad_input() {
        let mut utf16 = vec![0xFF, 0xFE];
        for b in "[\"é\"]".encode_utf16() {
            utf16.extend(b.to_le_bytes());
        }
        assert_eq!(
            convert(&utf16).unwrap().data,
            Some(serde_json::json!(["é"]))
        );
        assert_eq!(convert(b" ").unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(
            convert(&[b'['; 100_000]).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }

    #[test]
    fn deep_but_allowed_nesting_converts() {
        let arrays = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        assert!(convert(arrays.as_bytes()).is_ok());
        let objects = format!("{}1{}", "{\"k\":".repeat(500), "}".repeat(500));
        assert!(convert(objects.as_bytes()).is_ok());
    }

    #[test]
    fn deadline_is_honoured() {
        let big = format!("[{}0]", "0,".repeat(100_000));
        let input = Input {
            bytes: big.as_bytes(),
            file_name: "t.json",
            mime: "application/json",
        };
        let mut ctx = Context::new()
            .with_deadline(std::time::Instant::now() - std::time::Duration::from_secs(1));
        let e = JsonConverter.convert(&input, &mut ctx).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout);
    }
}
