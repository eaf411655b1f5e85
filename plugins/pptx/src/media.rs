//! Pictures: the original bytes of the media part and its MIME type, OCR when asked.
//! A picture whose relationship or part is missing is skipped with a warning, never fatal.

use quire_ooxml::{Relationship, SafeZip};
use quire_plugin_api::{Context, ErrorKind, Image, OcrImage, Result};
use std::collections::HashMap;

/// The MIME type of image bytes by their signature, else by the part's extension.
pub fn mime_of(data: &[u8], name: &str) -> String {
    let sig: &[(&[u8], &str)] = &[
        (b"\x89PNG", "image/png"),
        (b"\xFF\xD8\xFF", "image/jpeg"),
        (b"GIF8", "image/gif"),
        (b"BM", "image/bmp"),
        (b"II*\0", "image/tiff"),
        (b"MM\0*", "image/tiff"),
        (b"\x01\0\0\0", "image/x-emf"),
        (b"\xD7\xCD\xC6\x9A", "image/x-wmf"),
    ];
    for (magic, mime) in sig {
        if data.starts_with(magic) {
            return (*mime).to_owned();
        }
    }
    if data.len() > 12 && &data[..4] == b"RIFF" && &data[8..12] == b"WEBP" {
        return "image/webp".into();
    }
    let ext = name
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "bmp" => "image/bmp",
        "tif" | "tiff" => "image/tiff",
        "emf" => "image/x-emf",
        "wmf" => "image/x-wmf",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        _ => "application/octet-stream",
    }
    .to_owned()
}

/// Reads the picture `rid` points to. `None` (with a warning) when it cannot be found.
pub fn picture(
    zip: &mut SafeZip<'_>,
    rels: &HashMap<String, Relationship>,
    rid: Option<&str>,
    descr: Option<&str>,
    slide: u32,
    images_seen: &mut u32,
    ctx: &mut Context<'_>,
) -> Result<Option<Image>> {
    let Some(rel) = rid.and_then(|r| rels.get(r)) else {
        ctx.warn(format!(
            "A picture on slide {slide} has no image data; it was skipped."
        ));
        return Ok(None);
    };
    if rel.external {
        ctx.warn(format!(
            "A picture on slide {slide} is linked from outside the file and was not fetched."
        ));
        return Ok(None);
    }
    let data = match zip.read(&rel.target) {
        Ok(Some(d)) => d,
        Ok(None) => {
            ctx.warn(format!(
                "A picture on slide {slide} refers to a missing part; it was skipped."
            ));
            return Ok(None);
        }
        Err(e) if e.kind() == ErrorKind::Malformed => {
            ctx.warn(format!(
                "A picture on slide {slide} is damaged; it was skipped."
            ));
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let name = rel.target.rsplit('/').next().unwrap_or("image").to_owned();
    let mime = mime_of(&data, &name);
    let mut image = Image::new(name, mime, Vec::new());
    image.alt = descr.map(str::to_owned);
    *images_seen += 1;
    if image.mime == "application/octet-stream" {
        ctx.warn(format!(
            "A picture on slide {slide} is not in a known image format; it was skipped."
        ));
        image.skipped = Some("not a recognised image format".into());
        return Ok(Some(image));
    }
    if *images_seen > ctx.limits.max_images {
        image.skipped = Some(format!(
            "more than {} images in the document",
            ctx.limits.max_images
        ));
        return Ok(Some(image));
    }
    if ctx.ocr_enabled() {
        let request = OcrImage {
            data: &data,
            mime: &image.mime,
            dpi: None,
        };
        match ctx.ocr(&request) {
            Some(Ok(out)) if !out.text.trim().is_empty() => image.ocr_text = Some(out.text),
            Some(Err(e)) if e.kind() == ErrorKind::Timeout => return Err(e),
            Some(Err(e)) => ctx.warn(format!("OCR failed on a picture on slide {slide}: {e}")),
            _ => {}
        }
    }
    image.data = data;
    Ok(Some(image))
}
