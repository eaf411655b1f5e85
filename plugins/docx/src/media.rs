//! Image parts: the MIME type of embedded media, by content first and file name second.
//!
//! Bytes are passed on untouched; the host scales, re-encodes and converts formats outside
//! png/jpg/gif/bmp (EMF and WMF included) for every plugin in one place.

/// The MIME type of image bytes, from their magic number, else from the part name.
pub(crate) fn mime(data: &[u8], part: &str) -> &'static str {
    let magic: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xFF\xD8\xFF", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"BM", "image/bmp"),
        (b"II*\0", "image/tiff"),
        (b"MM\0*", "image/tiff"),
        (b"\xD7\xCD\xC6\x9A", "image/x-wmf"),
        (b"\x01\0\x09\0", "image/x-wmf"),
        (b"\x02\0\x09\0", "image/x-wmf"),
    ];
    for (m, t) in magic {
        if data.starts_with(m) {
            return t;
        }
    }
    if data.len() >= 12 && &data[..4] == b"RIFF" && &data[8..12] == b"WEBP" {
        return "image/webp";
    }
    if data.len() >= 44 && data[..4] == [1, 0, 0, 0] && &data[40..44] == b" EMF" {
        return "image/x-emf";
    }
    let ext = part
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" | "jpe" => "image/jpeg",
        "gif" => "image/gif",
        "bmp" | "dib" => "image/bmp",
        "tif" | "tiff" => "image/tiff",
        "webp" => "image/webp",
        "emf" | "emz" => "image/x-emf",
        "wmf" | "wmz" => "image/x-wmf",
        "svg" => "image/svg+xml",
        "wdp" | "hdp" | "jxr" => "image/vnd.ms-photo",
        _ => "application/octet-stream",
    }
}

/// The file name of a part ("word/media/image1.png" → "image1.png").
pub(crate) fn file_name(part: &str) -> &str {
    part.rsplit('/').next().unwrap_or(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_before_trusting_names() {
        assert_eq!(
            mime(b"\x89PNG\r\n\x1a\n....", "word/media/a.jpeg"),
            "image/png"
        );
        assert_eq!(mime(b"????", "word/media/a.emf"), "image/x-emf");
        assert_eq!(file_name("word/media/image1.png"), "image1.png");
    }
}
