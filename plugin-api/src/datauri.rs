//! `data:` URIs → image bytes. Remote images are never fetched (plugins do no network I/O), so
//! an inline `data:` URI is the only way an image in this format reaches the output.
//!
//! Shared by every plugin that meets inline images in its source (HTML, Markdown).

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

/// Lenient standard alphabet: padding optional, as browsers accept it.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// An image decoded from a `data:` URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataImage {
    pub mime: String,
    pub data: Vec<u8>,
}

/// Decodes `data:image/...;base64,...` (or percent-encoded) URIs. Anything else, a non-image
/// media type, or undecodable payloads yield `None`.
pub fn decode_image(uri: &str) -> Option<DataImage> {
    let rest = strip_prefix_ignore_case(uri.trim_start(), "data:")?;
    let (header, payload) = rest.split_once(',')?;
    let mut params = header.split(';');
    let mime = params.next().unwrap_or("").trim().to_ascii_lowercase();
    if !mime.starts_with("image/") || mime.len() > 100 {
        return None;
    }
    let base64 = params.any(|p| p.trim().eq_ignore_ascii_case("base64"));
    let bytes = percent_decode(payload.as_bytes());
    let data = if base64 {
        let clean: Vec<u8> = bytes
            .into_iter()
            .filter(|b| !b.is_ascii_whitespace())
            .map(|b| match b {
                // URL-safe alphabet, seen in the wild.
                b'-' => b'+',
                b'_' => b'/',
                b => b,
            })
            .collect();
        LENIENT.decode(clean).ok()?
    } else {
        bytes
    };
    if data.is_empty() {
        return None;
    }
    Some(DataImage { mime, data })
}

/// A file extension for an image MIME type, for generated image names.
pub fn extension(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" | "image/pjpeg" => "jpg",
        "image/gif" => "gif",
        "image/bmp" | "image/x-ms-bmp" => "bmp",
        "image/webp" => "webp",
        "image/tiff" => "tiff",
        "image/svg+xml" => "svg",
        "image/x-icon" | "image/vnd.microsoft.icon" => "ico",
        "image/avif" => "avif",
        _ => "img",
    }
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

fn percent_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        if b == b'%' && i + 2 < input.len() {
            if let (Some(h), Some(l)) = (hex(input[i + 1]), hex(input[i + 2])) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    out
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64_and_percent_encoded_images() {
        let img = decode_image("data:image/png;base64,iVBORw0KGgo=").expect("png");
        assert_eq!(img.mime, "image/png");
        assert_eq!(img.data, b"\x89PNG\r\n\x1a\n");
        let img = decode_image("DATA:image/png;base64,iVBO Rw0K\nGgo").expect("lenient");
        assert_eq!(img.data, b"\x89PNG\r\n\x1a\n");
        let svg = decode_image("data:image/svg+xml,%3Csvg%3E%3C/svg%3E").expect("svg");
        assert_eq!(svg.data, b"<svg></svg>");
        assert_eq!(extension(&svg.mime), "svg");
    }

    #[test]
    fn rejects_non_images_and_garbage() {
        assert_eq!(decode_image("https://example.com/a.png"), None);
        assert_eq!(decode_image("data:text/plain,hello"), None);
        assert_eq!(decode_image("data:image/png;base64,!!!"), None);
        assert_eq!(decode_image("data:image/png;base64,"), None);
        assert_eq!(decode_image("data:"), None);
        assert_eq!(decode_image("data:image/png;base64,%"), None);
        assert_eq!(decode_image("dat"), None);
    }
}
