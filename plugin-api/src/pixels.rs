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
    let stride = width as usize * channels;
    if src.len() != stride * height as usize {
        return None;
    }
    let mut shrink = AreaShrink::new(width, height, channels, max_width, max_height)?;
    for row in src.chunks_exact(stride) {
        shrink.push_row(row);
    }
    shrink.finish()
}

/// Added before truncating a mean to round it half up (see [`AreaShrink::push_row`]).
const HALF_UP: f64 = 0.5 + 1e-9;

/// [`shrink_by_areas`] fed one source row at a time, so an image decoded as a stream (a
/// 600-dpi scan inflating to 35 MB) is never held whole: it keeps one row of column totals.
pub struct AreaShrink {
    width: usize,
    height: usize,
    channels: usize,
    new_width: u32,
    new_height: u32,
    /// Where each new column starts and ends in the source, computed once (a division per
    /// new pixel cost more than all the additions).
    spans: Vec<(usize, usize)>,
    /// 1 / the width of each span.
    per_column: Vec<f64>,
    /// Column totals of the source rows under the new row being made.
    columns: Vec<u32>,
    /// Source rows seen, and the new rows made.
    rows_in: usize,
    rows_out: usize,
    out: Vec<u8>,
}

impl AreaShrink {
    /// `None` when the image shrinks by less than two to fit (or fits), or is empty.
    pub fn new(
        width: u32,
        height: u32,
        channels: usize,
        max_width: u32,
        max_height: u32,
    ) -> Option<AreaShrink> {
        let (nw, nh, ratio) = fit(width, height, max_width, max_height);
        if ratio < 2.0 || channels == 0 || width == 0 || height == 0 {
            return None;
        }
        let (w, nw_) = (width as usize, nw as usize);
        // Block totals are added in 32 bits: a block of more than 16 million pixels (an
        // image shrunk by over 4,000 each way) is left to another filter.
        let block = (w.div_ceil(nw_) + 1) as u64
            * (height as u64).div_ceil(u64::from(nh)).saturating_add(1);
        if block.saturating_mul(255) > u64::from(u32::MAX) {
            return None;
        }
        let spans: Vec<(usize, usize)> = (0..nw_)
            .map(|x| {
                let x0 = x * w / nw_;
                (x0, ((x + 1) * w / nw_).max(x0 + 1))
            })
            .collect();
        let per_column = spans.iter().map(|(a, b)| 1.0 / (b - a) as f64).collect();
        Some(AreaShrink {
            width: w,
            height: height as usize,
            channels,
            new_width: nw,
            new_height: nh,
            spans,
            per_column,
            columns: vec![0; w * channels],
            rows_in: 0,
            rows_out: 0,
            out: Vec::with_capacity(nw_ * nh as usize * channels),
        })
    }

    /// The source rows new row `y` covers.
    fn rows_of(&self, y: usize) -> (usize, usize) {
        let nh = self.new_height as usize;
        let y0 = y * self.height / nh;
        (y0, ((y + 1) * self.height / nh).max(y0 + 1))
    }

    /// Adds the next source row (`width * channels` samples; rows past the image's height
    /// are ignored).
    pub fn push_row(&mut self, row: &[u8]) {
        if self.rows_out >= self.new_height as usize || row.len() < self.columns.len() {
            return;
        }
        let (y0, y1) = self.rows_of(self.rows_out);
        // The block's first row sets the totals, the others add to them.
        if self.rows_in == y0 {
            for (c, &v) in self.columns.iter_mut().zip(row) {
                *c = u32::from(v);
            }
        } else {
            for (c, &v) in self.columns.iter_mut().zip(row) {
                *c += u32::from(v);
            }
        }
        self.rows_in += 1;
        if self.rows_in < y1 {
            return;
        }
        // The mean rounded half up, as (total + count / 2) / count gives it, without a
        // division per pixel (those were most of a scan's shrinking). A total fits in 32
        // bits (`new` refuses blocks of more than 16 million pixels).
        // Multiplying by the reciprocals of the block's width and height is within a few
        // units of 2^-52 of the quotient, and a quotient's distance from a half is either 0
        // or at least 1 / (2 * count), over 3e-8: adding 1e-9 keeps every halfway case up
        // and moves nothing else.
        let ch = self.channels;
        let start = self.out.len();
        self.out.resize(start + self.spans.len() * ch, 0);
        let dst = &mut self.out[start..];
        let per_row = 1.0 / (y1 - y0) as f64;
        for (k, (&(x0, x1), &per_column)) in self.spans.iter().zip(&self.per_column).enumerate() {
            let scale = per_row * per_column;
            let cells = &self.columns[x0 * ch..x1 * ch];
            if ch == 1 {
                let total: u32 = cells.iter().sum();
                dst[k] = (f64::from(total) * scale + HALF_UP) as u8;
                continue;
            }
            for c in 0..ch {
                let total: u32 = cells.iter().skip(c).step_by(ch).sum();
                dst[k * ch + c] = (f64::from(total) * scale + HALF_UP) as u8;
            }
        }
        self.rows_out += 1;
    }

    /// The shrunk image and its size, once every source row has been pushed (`None` if
    /// some were missing).
    pub fn finish(self) -> Option<(Vec<u8>, u32, u32)> {
        (self.rows_out == self.new_height as usize && self.rows_in == self.height).then_some((
            self.out,
            self.new_width,
            self.new_height,
        ))
    }

    /// The row length this shrinker takes, in samples.
    pub fn row_len(&self) -> usize {
        self.width * self.channels
    }
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

    #[test]
    fn rows_fed_one_by_one_give_the_whole_image_shrunk() {
        // 9 x 7 grey, every pixel its own value: each new pixel the rounded mean of its block.
        let src: Vec<u8> = (0..63u8).map(|v| v * 4).collect();
        let mut shrink = AreaShrink::new(9, 7, 1, 3, 3).unwrap();
        assert_eq!(shrink.row_len(), 9);
        for row in src.chunks_exact(9) {
            shrink.push_row(row);
        }
        let (out, w, h) = shrink.finish().unwrap();
        assert_eq!((w, h), (3, 2));
        // Rows 0-2 and 3-6, columns 0-2, 3-5, 6-8.
        let src = &src;
        let block = |ys: std::ops::Range<usize>, xs: std::ops::Range<usize>| {
            let cells: Vec<u32> = ys
                .flat_map(|y| xs.clone().map(move |x| u32::from(src[y * 9 + x])))
                .collect();
            let n = cells.len() as u32;
            ((cells.iter().sum::<u32>() + n / 2) / n) as u8
        };
        assert_eq!(
            out,
            vec![
                block(0..3, 0..3),
                block(0..3, 3..6),
                block(0..3, 6..9),
                block(3..7, 0..3),
                block(3..7, 3..6),
                block(3..7, 6..9)
            ]
        );
        // Blocks too big to total in 32 bits are refused (another filter takes them).
        assert!(AreaShrink::new(20_000, 20_000, 1, 1, 1).is_none());
        assert!(AreaShrink::new(20_000, 20_000, 1, 100, 100).is_some());
        // A row missing: no image.
        let mut shrink = AreaShrink::new(9, 7, 1, 3, 3).unwrap();
        for row in src.chunks_exact(9).take(6) {
            shrink.push_row(row);
        }
        assert!(shrink.finish().is_none());
    }

    #[test]
    fn means_by_reciprocals_round_as_integer_division() {
        // Every total of every block up to 12 x 12 pixels, and a few large blocks.
        let check = |bw: u32, bh: u32, total: u32| {
            let count = bw * bh;
            let by_division = ((total + count / 2) / count) as u8;
            let scale = (1.0 / f64::from(bh)) * (1.0 / f64::from(bw));
            let by_reciprocal = (f64::from(total) * scale + HALF_UP) as u8;
            assert_eq!(by_division, by_reciprocal, "{bw} x {bh}, total {total}");
        };
        for bw in 1..=12 {
            for bh in 1..=12 {
                for total in 0..=255 * bw * bh {
                    check(bw, bh, total);
                }
            }
        }
        for (bw, bh) in [(1000, 1000), (4000, 4000), (3, 5_000_000)] {
            for k in 0..=255u32 {
                let count = bw * bh;
                for total in [
                    k * count,
                    (k * count).saturating_add(count / 2),
                    (k * count + count / 2).saturating_sub(1),
                ] {
                    if total <= 255 * count {
                        check(bw, bh, total);
                    }
                }
            }
        }
    }
}
