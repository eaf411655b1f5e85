//! Pixel arithmetic shared by the host's image rules and the plugins that hold raw pixels
//! (PDF images come out of PDFium as bitmaps), so an image is scaled the same way wherever
//! it is scaled.

/// The size `width` x `height` takes when scaled to fit `max_width` x `max_height` with its
/// aspect kept, and the factor it shrinks by (1 or less when it already fits).
pub fn fit(width: u32, height: u32, max_width: u32, max_height: u32) -> (u32, u32, f64) {
    let ratio = (f64::from(width) / f64::from(max_width.max(1)))
        .max(f64::from(height) / f64::from(max_height.max(1)));
    if ratio <= 1.0 {
        return (width, height, ratio);
    }
    let w = ((f64::from(width) / ratio).round() as u32).clamp(1, max_width.max(1));
    let h = ((f64::from(height) / ratio).round() as u32).clamp(1, max_height.max(1));
    (w, h, ratio)
}

/// An image of 8-bit samples (`channels` per pixel, rows packed) that must shrink by two or
/// more to fit the box, scaled to fit by averaging areas: each new pixel is the mean of the
/// source pixels it covers. At such ratios that is the right filter (no aliasing), and it costs
/// one addition per source byte: on a 600-dpi page scan about twenty times less than a
/// triangle filter, whose support grows with the ratio. `None` when the image shrinks by less
/// (a filter that interpolates suits those sizes) or fits, or the buffer is not that size.
pub fn shrink_by_areas(
    src: &[u8],
    width: u32,
    height: u32,
    channels: usize,
    max_width: u32,
    max_height: u32,
) -> Option<(Vec<u8>, u32, u32)> {
    let (nw, nh, ratio) = fit(width, height, max_width, max_height);
    let (w, h) = (width as usize, height as usize);
    if ratio < 2.0 || channels == 0 || src.len() != w * h * channels {
        return None;
    }
    let (nw_, nh_) = (nw as usize, nh as usize);
    let stride = w * channels;
    let mut out = Vec::with_capacity(nw_ * nh_ * channels);
    // Column totals of the source rows under one row of the result.
    let mut columns = vec![0u32; stride];
    for y in 0..nh_ {
        let y0 = y * h / nh_;
        let y1 = ((y + 1) * h / nh_).max(y0 + 1);
        columns.iter_mut().for_each(|c| *c = 0);
        for row in src[y0 * stride..y1 * stride].chunks_exact(stride) {
            for (c, &v) in columns.iter_mut().zip(row) {
                *c += u32::from(v);
            }
        }
        for x in 0..nw_ {
            let x0 = x * w / nw_;
            let x1 = ((x + 1) * w / nw_).max(x0 + 1);
            let count = ((x1 - x0) * (y1 - y0)) as u64;
            for ch in 0..channels {
                let total: u64 = (x0..x1)
                    .map(|i| u64::from(columns[i * channels + ch]))
                    .sum();
                out.push(((total + count / 2) / count) as u8);
            }
        }
    }
    Some((out, nw, nh))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_keep_the_aspect() {
        assert_eq!(fit(4960, 7016, 2048, 2048).0, 1448);
        assert_eq!(fit(4960, 7016, 2048, 2048).1, 2048);
        assert_eq!(fit(100, 50, 2048, 2048), (100, 50, 100.0 / 2048.0));
        assert_eq!(fit(10_000, 10, 100, 100).1, 1);
    }

    #[test]
    fn areas_are_averaged_per_channel() {
        // 4x2 RGB: left half red, right half blue; halved each way: one red, one blue pixel
        // would be 2x1; to 1x1 (4x shrink) the mean of both.
        let mut src = Vec::new();
        for _ in 0..2 {
            src.extend_from_slice(&[255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255]);
        }
        let (out, w, h) = shrink_by_areas(&src, 4, 2, 3, 2, 2).unwrap();
        assert_eq!((w, h), (2, 1));
        assert_eq!(out, vec![255, 0, 0, 0, 0, 255]);
        let (out, w, h) = shrink_by_areas(&src, 4, 2, 3, 1, 1).unwrap();
        assert_eq!((w, h), (1, 1));
        assert_eq!(out, vec![128, 0, 128]);
        // Less than twice too big, or already fitting: left to an interpolating filter.
        assert!(shrink_by_areas(&src, 4, 2, 3, 3, 3).is_none());
        assert!(shrink_by_areas(&src, 4, 2, 3, 8, 8).is_none());
        // A buffer of the wrong size is refused, not read out of bounds.
        assert!(shrink_by_areas(&src[1..], 4, 2, 3, 1, 1).is_none());
    }

    #[test]
    fn detail_finer_than_the_new_pixels_becomes_its_mean() {
        // One-pixel stripes shrunk 3.1x: each new pixel covers three or four columns, black
        // and white alike, so it is a third, a half or two thirds white, never black or white
        // (which sampling single pixels would give).
        let src: Vec<u8> = (0..400 * 200)
            .map(|i| if i % 2 == 0 { 0 } else { 255 })
            .collect();
        let (out, w, h) = shrink_by_areas(&src, 400, 200, 1, 129, 129).unwrap();
        assert_eq!((w, h), (129, 65));
        assert!(out.iter().all(|&v| [85, 128, 170].contains(&v)), "{out:?}");
    }
}
