//! Frames beyond the first: pages of a multi-page TIFF, and frame counts of animations.
//!
//! The `image` crate decodes only the first directory of a TIFF. Rather than re-implement its
//! colour conversions (1-bit fax, CMYK, 16-bit, planar) for the other pages, we walk the
//! directory chain with the `tiff` crate and decode page *n* by handing the `image` crate a copy
//! of the file whose header points at directory *n*. Every page then gets exactly the decoding,
//! limits and orientation handling of page 1.

use quire_plugin_api::{Error, Result};
use std::io::Cursor;

/// The byte offsets of the image directories (pages) of a TIFF, in order, at most `max`.
/// The `tiff` crate refuses cycles in the chain; `max` bounds the walk otherwise.
pub fn tiff_pages(bytes: &[u8], max: u32) -> Result<Vec<u64>> {
    let damaged = |e: tiff::TiffError| {
        Error::malformed("The TIFF image is damaged: its page directory could not be read.")
            .with_detail(e)
    };
    let mut limits = tiff::decoder::Limits::default();
    // Directories only: no strip is read here, so small value buffers suffice.
    limits.ifd_value_size = 16 << 20;
    limits.decoding_buffer_size = 16 << 20;
    limits.intermediate_buffer_size = 16 << 20;
    let mut decoder = tiff::decoder::Decoder::new(Cursor::new(bytes))
        .map_err(damaged)?
        .with_limits(limits);
    let mut pages = Vec::new();
    if let Some(ptr) = decoder.ifd_pointer() {
        pages.push(ptr.0);
    }
    while decoder.more_images() && pages.len() < max as usize {
        match decoder.next_image() {
            Ok(()) => {
                if let Some(ptr) = decoder.ifd_pointer() {
                    pages.push(ptr.0);
                }
            }
            // A broken link after good pages: keep what we have (readers like libtiff do too).
            Err(_) if !pages.is_empty() => break,
            Err(e) => return Err(damaged(e)),
        }
    }
    Ok(pages)
}

/// A copy of a TIFF file whose first-directory pointer is `offset`, so a single-page reader
/// decodes that page. `None` when the header is not a TIFF header.
pub fn tiff_with_first_page(bytes: &[u8], offset: u64) -> Option<Vec<u8>> {
    let little = match bytes.get(0..2)? {
        b"II" => true,
        b"MM" => false,
        _ => return None,
    };
    let magic = u16_at(bytes, 2, little)?;
    let mut copy = bytes.to_vec();
    match magic {
        42 => {
            let offset = u32::try_from(offset).ok()?;
            let raw = if little {
                offset.to_le_bytes()
            } else {
                offset.to_be_bytes()
            };
            copy.get_mut(4..8)?.copy_from_slice(&raw);
        }
        43 => {
            let raw = if little {
                offset.to_le_bytes()
            } else {
                offset.to_be_bytes()
            };
            copy.get_mut(8..16)?.copy_from_slice(&raw);
        }
        _ => return None,
    }
    Some(copy)
}

fn u16_at(bytes: &[u8], at: usize, little: bool) -> Option<u16> {
    let raw: [u8; 2] = bytes.get(at..at + 2)?.try_into().ok()?;
    Some(if little {
        u16::from_le_bytes(raw)
    } else {
        u16::from_be_bytes(raw)
    })
}

/// Frames in a GIF, counted without decompressing them (at most `max`).
pub fn gif_frames(bytes: &[u8], max: u32) -> u32 {
    let mut options = gif::DecodeOptions::new();
    options.skip_frame_decoding(true);
    let Ok(mut decoder) = options.read_info(Cursor::new(bytes)) else {
        return 1;
    };
    let mut frames = 0u32;
    while frames < max {
        match decoder.read_next_frame() {
            Ok(Some(_)) => frames += 1,
            _ => break,
        }
    }
    frames.max(1)
}

/// Frames in a WebP (1 unless animated).
pub fn webp_frames(bytes: &[u8]) -> u32 {
    image_webp::WebPDecoder::new(Cursor::new(bytes))
        .map(|d| d.num_frames().max(1))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_classic_and_big_headers() {
        let classic = b"II\x2a\x00\x08\x00\x00\x00rest".to_vec();
        let patched = tiff_with_first_page(&classic, 0x1234).unwrap();
        assert_eq!(&patched[4..8], &[0x34, 0x12, 0, 0]);
        let big = b"MM\x00\x2b\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10".to_vec();
        let patched = tiff_with_first_page(&big, 0x20).unwrap();
        assert_eq!(&patched[8..16], &[0, 0, 0, 0, 0, 0, 0, 0x20]);
        assert!(tiff_with_first_page(b"GIF89a", 1).is_none());
    }
}
