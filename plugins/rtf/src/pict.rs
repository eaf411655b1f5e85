//! Embedded pictures (`{\pict …}`): hex or `\bin` data plus the blip type.

use quire_plugin_api::Image;

/// The picture being read.
#[derive(Debug, Default)]
pub struct Pict {
    pub kind: Option<&'static str>,
    pub data: Vec<u8>,
    /// High nibble waiting for its partner.
    half: Option<u8>,
    /// Desired size in twips (`\picwgoal`, `\pichgoal`), else `\picw`/`\pich`.
    pub goal_w: Option<i32>,
    pub goal_h: Option<i32>,
    /// Alt text (`\picprop`'s `wzDescription`).
    pub alt: Option<String>,
}

/// Pictures larger than this (decoded) are not kept.
pub const MAX_PICT_BYTES: usize = 64 << 20;

impl Pict {
    /// Hex digits of the picture data; anything else (spaces, line breaks) is ignored.
    pub fn hex(&mut self, text: &[u8]) {
        if self.data.len() >= MAX_PICT_BYTES {
            return;
        }
        self.data.reserve(text.len() / 2);
        for &b in text {
            let v = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => continue,
            };
            match self.half.take() {
                Some(h) => self.data.push(h << 4 | v),
                None => self.half = Some(v),
            }
        }
    }

    pub fn binary(&mut self, bytes: &[u8]) {
        if self.data.len() + bytes.len() <= MAX_PICT_BYTES {
            self.data.extend_from_slice(bytes);
        }
    }

    /// The finished picture as an image, or `None` when there is no data.
    pub fn into_image(self, number: usize) -> Option<Image> {
        if self.data.is_empty() {
            return None;
        }
        let kind = self.kind.unwrap_or("wmf");
        let (mime, ext, data) = match kind {
            "png" => ("image/png", "png", self.data),
            "jpeg" => ("image/jpeg", "jpg", self.data),
            "emf" => ("image/x-emf", "emf", self.data),
            "bmp" => ("image/bmp", "bmp", dib_to_bmp(self.data)?),
            _ => ("image/x-wmf", "wmf", self.data),
        };
        let mut image = Image::new(format!("image{number}.{ext}"), mime, data);
        let px = |twips: Option<i32>| twips.filter(|&t| t > 0).map(|t| (t / 15).max(1) as u32);
        image.width = px(self.goal_w);
        image.height = px(self.goal_h);
        image.alt = self.alt;
        Some(image)
    }
}

/// A device-independent bitmap (`\dibitmap`) gets the 14-byte file header that makes it a BMP.
fn dib_to_bmp(dib: Vec<u8>) -> Option<Vec<u8>> {
    let u32_at = |i: usize| {
        dib.get(i..i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let u16_at = |i: usize| dib.get(i..i + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let header = u32_at(0)?;
    if !(12..=124).contains(&header) {
        return None;
    }
    let (bits, compression, used) = if header == 12 {
        (u16_at(10)?, 0, 0)
    } else {
        (u16_at(14)?, u32_at(16)?, u32_at(32)?)
    };
    let entry = if header == 12 { 3 } else { 4 };
    let colors = if used > 0 {
        used.min(256)
    } else if bits <= 8 {
        1 << bits
    } else {
        0
    };
    let masks = if header == 40 && compression == 3 {
        12
    } else {
        0
    };
    let offset = 14 + header + colors * entry + masks;
    let size = u32::try_from(dib.len() + 14).ok()?;
    let mut out = Vec::with_capacity(dib.len() + 14);
    out.extend_from_slice(b"BM");
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&dib);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_across_chunks() {
        let mut p = Pict {
            kind: Some("png"),
            ..Pict::default()
        };
        p.hex(b"89 5\n");
        p.hex(b"04ezz");
        p.binary(&[1]);
        assert_eq!(p.data, vec![0x89, 0x50, 0x4e, 1]);
        let img = p.into_image(1).unwrap();
        assert_eq!(
            (img.name.as_str(), img.mime.as_str()),
            ("image1.png", "image/png")
        );
    }

    #[test]
    fn dib_gets_a_file_header() {
        let mut dib = vec![0u8; 40 + 4];
        dib[0] = 40;
        dib[14] = 24;
        let bmp = dib_to_bmp(dib).unwrap();
        assert_eq!(&bmp[..2], b"BM");
        assert_eq!(u32::from_le_bytes([bmp[10], bmp[11], bmp[12], bmp[13]]), 54);
        assert!(dib_to_bmp(vec![1, 2]).is_none());
    }
}
