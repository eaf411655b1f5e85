//! Decompression bombs fail fast, with a clear message and bounded memory. Its own test binary
//! so the process's peak RSS (VmHWM) reflects only this work.

use quire_plugin_api::{Context, Converter, ErrorKind, ImageRules, Input};
use quire_plugin_image::ImageConverter;
use std::time::{Duration, Instant};

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A PNG whose header claims `w` x `h` 8-bit RGBA, followed by a tiny IDAT.
fn claimed_png(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &[0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1]);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// A real 10,000 x 10,000 gray PNG of zeros (~100 KB on disk, 100 MB decoded), written row
/// by row so building it never holds the pixels.
fn real_100mp_png() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 10_000, 10_000);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        let mut stream = writer.stream_writer().unwrap();
        let row = vec![0u8; 10_000];
        for _ in 0..10_000 {
            std::io::Write::write_all(&mut stream, &row).unwrap();
        }
        stream.finish().unwrap();
    }
    out
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn bombs_fail_fast_with_bounded_memory() {
    let converter = ImageConverter::new(ImageRules::default());
    let cases = [
        ("claimed 100000 x 100000", claimed_png(100_000, 100_000)),
        ("real 10000 x 10000", real_100mp_png()),
    ];
    for (name, bytes) in cases {
        let before = peak_rss_kb();
        let start = Instant::now();
        let input = Input {
            bytes: &bytes,
            file_name: "bomb.png",
            mime: "image/png",
        };
        let err = converter.convert(&input, &mut Context::new()).unwrap_err();
        let elapsed = start.elapsed();
        let grown = peak_rss_kb().saturating_sub(before);
        println!(
            "{name}: {} bytes, refused in {:?}, peak RSS grew {} KB: {}",
            bytes.len(),
            elapsed,
            grown,
            err.message()
        );
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert!(err.message().contains("over the limit of 50 megapixels"));
        assert!(elapsed < Duration::from_millis(200));
        assert!(grown < 16 * 1024, "peak RSS grew {grown} KB");
    }
}
