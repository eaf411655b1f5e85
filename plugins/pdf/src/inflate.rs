//! Flate bombs refused before PDFium sees them.
//!
//! PDFium inflates a `/FlateDecode` stream whole when it needs it, with no limit of its own: a
//! 1 MB stream that inflates to 1.1 GB drove the conversion to about 1.05 GB before it died.
//! Here every Flate stream that could reach `Limits::max_inflated_bytes` is inflated into a
//! small scratch buffer first, counting bytes and stopping at the limit, so the check costs no
//! memory. Deflate expands at most 1032:1, so a stream whose encoded length is under
//! limit / 1032 is skipped without inflating (most files have none to inflate).
//!
//! Not covered: a Flate stream behind another filter (`[/ASCIIHexDecode /FlateDecode]`) does
//! not inflate here and is skipped; the conversion child's memory limit still bounds it.

use quire_plugin_api::{Error, Result};

/// The largest inflated / deflated ratio deflate can reach.
const MAX_RATIO: u64 = 1032;

/// Refuses `bytes` when one of its Flate streams inflates to more than `limit` bytes.
pub fn check(bytes: &[u8], limit: u64) -> Result<()> {
    let floor = (limit / MAX_RATIO) as usize;
    if bytes.len() <= floor {
        return Ok(());
    }
    let finder = memchr::memmem::Finder::new(b"stream");
    let end_finder = memchr::memmem::Finder::new(b"endstream");
    let mut pos = 0;
    while let Some(i) = finder.find(&bytes[pos..]) {
        let at = pos + i;
        pos = at + 6;
        if at >= 3 && &bytes[at - 3..at] == b"end" {
            continue;
        }
        // The keyword is followed by CRLF or LF (a lone CR is tolerated).
        let mut start = at + 6;
        match bytes.get(start) {
            Some(b'\r') => {
                start += 1;
                if bytes.get(start) == Some(&b'\n') {
                    start += 1;
                }
            }
            Some(b'\n') => start += 1,
            _ => continue,
        }
        let end = end_finder
            .find(&bytes[start..])
            .map_or(bytes.len(), |e| start + e);
        pos = end.max(pos);
        let data = &bytes[start..end];
        if data.len() <= floor || !is_flate(dictionary(bytes, at)) {
            continue;
        }
        if inflated_size(data, limit) > limit {
            return Err(Error::limit(format!(
                "The PDF holds a compressed stream that expands to more than {} MB, over the limit; it looks like a decompression bomb.",
                limit >> 20
            )));
        }
    }
    Ok(())
}

/// The stream's dictionary: the text between the object's `obj` keyword and `stream`.
fn dictionary(bytes: &[u8], stream_at: usize) -> &[u8] {
    let from = stream_at.saturating_sub(4096);
    let before = &bytes[from..stream_at];
    match memchr::memmem::rfind(before, b"obj") {
        Some(o) => &before[o + 3..],
        None => before,
    }
}

/// Whether the filter is Flate alone (or Flate first, with a predictor).
fn is_flate(dict: &[u8]) -> bool {
    let Some(f) = memchr::memmem::find(dict, b"/Filter") else {
        return false;
    };
    let rest = &dict[f + 7..];
    let rest = rest.trim_ascii_start();
    let rest = rest.strip_prefix(b"[").unwrap_or(rest).trim_ascii_start();
    rest.starts_with(b"/FlateDecode")
        || rest.starts_with(b"/Fl") && !rest[3..].first().is_some_and(u8::is_ascii_alphanumeric)
}

/// Bytes `data` inflates to (zlib), counted up to just past `limit`; 0 when it does not
/// inflate at all (not zlib data: PDFium will find out).
fn inflated_size(data: &[u8], limit: u64) -> u64 {
    use miniz_oxide::inflate::stream::{inflate, InflateState};
    use miniz_oxide::{DataFormat, MZFlush, MZStatus};
    let mut state = InflateState::new_boxed(DataFormat::Zlib);
    let mut scratch = vec![0u8; 64 * 1024];
    let mut input = data;
    let mut total: u64 = 0;
    loop {
        let r = inflate(&mut state, input, &mut scratch, MZFlush::None);
        input = &input[r.bytes_consumed..];
        total += r.bytes_written as u64;
        if total > limit {
            return total;
        }
        match r.status {
            Ok(MZStatus::StreamEnd) => return total,
            Ok(_) if r.bytes_consumed == 0 && r.bytes_written == 0 => return total,
            Ok(_) => {}
            Err(_) => return total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        miniz_oxide::deflate::compress_to_vec_zlib(data, 9)
    }

    fn pdf_with_stream(filter: &str, data: &[u8]) -> Vec<u8> {
        let mut pdf = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n".to_vec();
        pdf.extend_from_slice(
            format!("4 0 obj\n<< /Length {} {filter} >>\nstream\n", data.len()).as_bytes(),
        );
        pdf.extend_from_slice(data);
        pdf.extend_from_slice(b"\nendstream\nendobj\n%%EOF\n");
        pdf
    }

    #[test]
    fn a_flate_bomb_is_refused_without_inflating_it_whole() {
        let bomb = zlib(&vec![b' '; 40 << 20]);
        let pdf = pdf_with_stream("/Filter /FlateDecode", &bomb);
        let e = check(&pdf, 16 << 20).unwrap_err();
        assert_eq!(e.kind(), quire_plugin_api::ErrorKind::LimitExceeded);
        assert!(e.message().contains("16 MB"), "{}", e.message());
        // The same stream is fine under a larger limit, and with an array filter too.
        assert!(check(&pdf, 64 << 20).is_ok());
        let pdf = pdf_with_stream("/Filter [/FlateDecode] /DecodeParms [null]", &bomb);
        assert!(check(&pdf, 16 << 20).is_err());
    }

    #[test]
    fn small_or_other_streams_are_not_inflated() {
        let data = zlib(&vec![b'x'; 1 << 20]);
        assert!(check(&pdf_with_stream("/Filter /FlateDecode", &data), 16 << 20).is_ok());
        // Not Flate: never inflated, whatever it holds.
        let bomb = zlib(&vec![b' '; 40 << 20]);
        assert!(check(&pdf_with_stream("/Filter /DCTDecode", &bomb), 16 << 20).is_ok());
        // Garbage under a Flate filter is left to PDFium.
        assert!(check(
            &pdf_with_stream("/Filter /FlateDecode", &vec![7u8; 1 << 20]),
            1 << 20
        )
        .is_ok());
    }
}
