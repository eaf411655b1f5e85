//! What goes over the wire: the image as a `data:` URL inside an OpenAI-style chat request,
//! and the text taken out of the answer.

use base64::Engine as _;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits as DecodeLimits};
use quire_plugin_api::{Error, Result};
use serde_json::{json, Value};
use std::io::Cursor;

/// Vision models downscale larger images themselves; sending more only costs bandwidth.
pub const MAX_SIDE: u32 = 2000;

/// The instruction sent with every image.
pub const PROMPT: &str = "Transcribe all text in this image. Return only the text, in natural \
reading order, formatted as Markdown (headings, lists and tables where the image shows them). \
Do not describe the image, do not add commentary, and do not wrap the answer in a code block. \
If there is no text, return nothing.";

/// The image ready to send: PNG, JPEG, WebP or GIF, at most [`MAX_SIDE`] pixels on its longest
/// side, upright. Bytes are passed through untouched when they already qualify.
pub fn prepare_image(data: &[u8], max_pixels: u64) -> Result<(Vec<u8>, &'static str)> {
    let unreadable = |e: image::ImageError| {
        Error::malformed("The image given to OCR could not be decoded.").with_detail(e)
    };
    let format = image::guess_format(data).map_err(|e| {
        Error::malformed("The image given to OCR is not a known format.").with_detail(e)
    })?;
    let reader = || {
        let mut r = ImageReader::new(Cursor::new(data));
        r.set_format(format);
        r
    };
    let (w, h) = reader().into_dimensions().map_err(unreadable)?;
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(Error::limit(format!(
            "The image is {w} x {h} pixels, too large for OCR (limit {} megapixels).",
            max_pixels / 1_000_000
        )));
    }
    let mut r = reader();
    let mut limits = DecodeLimits::default();
    limits.max_alloc = Some(max_pixels.saturating_mul(16).saturating_add(64 << 20));
    r.limits(limits);
    let mut decoder = r.into_decoder().map_err(unreadable)?;
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let sendable = matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP | ImageFormat::Gif
    );
    if sendable && w.max(h) <= MAX_SIDE && orientation == image::metadata::Orientation::NoTransforms
    {
        return Ok((data.to_vec(), mime(format)));
    }
    let mut img = DynamicImage::from_decoder(decoder).map_err(unreadable)?;
    img.apply_orientation(orientation);
    if img.width().max(img.height()) > MAX_SIDE {
        img = img.resize(MAX_SIDE, MAX_SIDE, image::imageops::FilterType::Triangle);
    }
    let (img, out_format) = if format == ImageFormat::Jpeg {
        (DynamicImage::ImageRgb8(img.to_rgb8()), ImageFormat::Jpeg)
    } else if img.color().has_alpha() {
        (DynamicImage::ImageRgba8(img.to_rgba8()), ImageFormat::Png)
    } else {
        (DynamicImage::ImageRgb8(img.to_rgb8()), ImageFormat::Png)
    };
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, out_format).map_err(|e| {
        Error::internal("The image could not be prepared for the AI vision service.").with_detail(e)
    })?;
    Ok((out.into_inner(), mime(out_format)))
}

fn mime(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::WebP => "image/webp",
        ImageFormat::Gif => "image/gif",
        _ => "image/png",
    }
}

/// The chat-completions request body. Only `model` and `messages`: `temperature` and token caps
/// are left to the server, because some models reject any non-default value for them.
///
/// `language`: the expected languages (`de,fr`), added to the instruction as a hint.
pub fn request_body(model: &str, image: &[u8], mime: &str, language: Option<&str>) -> Vec<u8> {
    let prompt = match language {
        Some(l) => std::borrow::Cow::Owned(format!(
            "{PROMPT} The text is expected to be in these languages (ISO 639 codes): {l}."
        )),
        None => std::borrow::Cow::Borrowed(PROMPT),
    };
    let url = format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(image)
    );
    let body = json!({
        "model": model,
        "messages": [{
            "role": "user",
            "content": [
                { "type": "text", "text": prompt },
                { "type": "image_url", "image_url": { "url": url } }
            ]
        }]
    });
    body.to_string().into_bytes()
}

/// The transcription in an answer, and whether the server cut it short (`finish_reason: length`).
pub fn parse_answer(body: &str) -> Result<(String, bool)> {
    let bad = |what: &str| {
        Error::internal("The AI vision service sent an answer quire could not read.")
            .with_detail(what.to_owned())
    };
    let value: Value = serde_json::from_str(body).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let choice = value
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| bad("no choices"))?;
    let message = choice.get("message").ok_or_else(|| bad("no message"))?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str).unwrap_or("text") == "text")
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(Value::Null) | None => match message.get("refusal").and_then(Value::as_str) {
            Some(refusal) => {
                return Err(Error::internal(
                    "The AI vision service declined to transcribe the image.",
                )
                .with_detail(refusal.to_owned()))
            }
            None => String::new(),
        },
        Some(_) => return Err(bad("content is neither text nor parts")),
    };
    let truncated = choice.get("finish_reason").and_then(Value::as_str) == Some("length");
    Ok((strip_fence(text.trim()).to_owned(), truncated))
}

/// Removes one code fence wrapped around the whole answer (```markdown ... ```), which models
/// add despite the instruction.
fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    match body.split_once('\n') {
        Some((lang, inner)) if !lang.contains(' ') => inner.trim(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_both_shapes() {
        let s = r#"{"choices":[{"message":{"content":"Hello\nworld"},"finish_reason":"stop"}]}"#;
        assert_eq!(parse_answer(s).unwrap(), ("Hello\nworld".into(), false));
        let a = r#"{"choices":[{"message":{"content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]},"finish_reason":"length"}]}"#;
        assert_eq!(parse_answer(a).unwrap(), ("AB".into(), true));
        let f = r#"{"choices":[{"message":{"content":"```markdown\n# T\n```"}}]}"#;
        assert_eq!(parse_answer(f).unwrap().0, "# T");
        assert!(parse_answer("{}").is_err());
        let r = r#"{"choices":[{"message":{"content":null,"refusal":"no"}}]}"#;
        assert!(parse_answer(r).is_err());
    }

    #[test]
    fn big_or_unusual_images_are_converted() {
        let img = DynamicImage::new_rgb8(4000, 100);
        let mut bmp = Cursor::new(Vec::new());
        img.write_to(&mut bmp, ImageFormat::Bmp).unwrap();
        let (data, mime) = prepare_image(bmp.get_ref(), 50_000_000).unwrap();
        assert_eq!(mime, "image/png");
        let back = image::load_from_memory(&data).unwrap();
        assert_eq!((back.width(), back.height()), (2000, 50));
        let small = DynamicImage::new_rgb8(10, 10);
        let mut png = Cursor::new(Vec::new());
        small.write_to(&mut png, ImageFormat::Png).unwrap();
        let (data, mime) = prepare_image(png.get_ref(), 50_000_000).unwrap();
        assert_eq!(
            (data.as_slice(), mime),
            (png.get_ref().as_slice(), "image/png")
        );
    }
}
