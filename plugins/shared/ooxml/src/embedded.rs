//! Objects embedded in a Word document or a slide and shown as their content (a worksheet or
//! document in the page, not an icon): converted through the host's hook
//! ([`Context::convert_embedded`]) so their text and tables stand where the picture of them
//! stood.

use quire_plugin_api::{Block, Context, DocumentKind, ErrorKind, Result};

/// Whether an object of this OLE program id is converted rather than shown as its preview
/// picture: workbooks (`Excel.Sheet.8`, `.12`, macro-enabled and binary) and Word documents.
pub fn converts(prog_id: &str) -> bool {
    prog_id.starts_with("Excel.Sheet") || prog_id.starts_with("Word.Document")
}

/// The blocks of an embedded object's part `bytes` (`name` its part name): a workbook's first
/// sheet with content (the object shows one sheet), a document whole. `None` keeps the preview
/// picture: no hook, a type the host cannot convert, or nothing in it. Only a timeout fails
/// the outer conversion.
pub fn object_blocks(
    bytes: &[u8],
    name: &str,
    ctx: &mut Context<'_>,
) -> Result<Option<Vec<Block>>> {
    let doc = match ctx.convert_embedded(bytes, Some(name)) {
        Some(Ok(doc)) => doc,
        Some(Err(e)) if e.kind() == ErrorKind::Timeout => return Err(e),
        _ => return Ok(None),
    };
    let sheet = doc.kind == DocumentKind::Spreadsheet;
    let mut blocks = Vec::new();
    for part in doc.parts {
        if !part.blocks.is_empty() {
            blocks.extend(part.blocks);
            if sheet {
                break;
            }
        }
    }
    Ok((!blocks.is_empty()).then_some(blocks))
}
