//! RTF converter: a tokenizer ([`lexer`]) and an interpreter ([`interp`]) written for quire.
//!
//! No maintained Rust crate reads RTF's destinations, code pages, fields, tables and pictures
//! robustly (`rtf-parser` handles neither `\'hh` in double-byte code pages nor tables, and
//! panics on some malformed input), so this crate does it in a few hundred lines that never
//! index out of bounds, never recurse per group, and check the deadline as they go.

mod builder;
mod codepage;
mod interp;
mod lexer;
mod pict;

use quire_plugin_api::{
    register_converter, Context, Converter, ConverterDescriptor, Document, DocumentKind, Error,
    Input, Part, PluginConfig, Result,
};

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "rtf",
    name: "Rich Text Format",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &["application/rtf"],
    extensions: &["rtf"],
    factory,
};

register_converter!(DESCRIPTOR);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(RtfConverter))
}

/// Stateless; one instance serves every job.
#[derive(Debug, Default, Clone, Copy)]
pub struct RtfConverter;

impl Converter for RtfConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        let bytes = input.bytes;
        let start = bytes
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(bytes.len());
        if !bytes[start..].starts_with(b"{\\rtf") {
            return Err(Error::malformed(
                "The file is not RTF: it does not start with \"{\\rtf\".",
            ));
        }
        let max_images = ctx.limits.max_images as usize;
        let output = {
            let ctx_ref: &Context<'_> = ctx;
            let mut check = || ctx_ref.check();
            interp::Interp::new(&bytes[start..], max_images, &mut check).run()?
        };
        if output.images_skipped > 0 {
            ctx.warn(format!(
                "{} picture(s) were left out: the document has more than {max_images}.",
                output.images_skipped
            ));
        }
        let mut doc = Document::new(DocumentKind::Flowing, "Rich Text Document");
        doc.metadata = output.info.metadata;
        let mut part = Part::section();
        part.blocks = output.blocks;
        doc.parts.push(part);
        Ok(doc)
    }
}

#[cfg(test)]
mod tests;
