//! Reading order: a recursive XY-cut over a page's runs, images and tables, then lines and words.
//!
//! At each level we look for a vertical white gap that runs through the whole region and
//! separates two *columns* of text; if there is one we read the left side before the right.
//! Otherwise we cut horizontally and read top before bottom: just above a block that spans
//! the gutter of the columns around it (a full-width table between CSS columns), else at the
//! widest white gap, which is what exposes the gutter under a full-width title. A vertical gap is accepted as a gutter
//! only when the two sides do not look like the columns of a table (lines on the same
//! baselines with short cells), so tables and label/value forms are read row by row.
//!
//! Leaves that follow each other without a column decision between them are merged, so a
//! single-column page is one leaf and paragraph detection sees all its lines.

use crate::geom::{median, Rect};
use crate::glyphs::{Run, WORD_GAP};

/// Something placed on the page: a run of text, or an image or table (by index).
#[derive(Debug, Clone)]
pub enum Item {
    Run(Run),
    /// An image or a table, by index into the page's placed blocks.
    Object {
        index: usize,
        rect: Rect,
    },
}

impl Item {
    pub fn rect(&self) -> Rect {
        match self {
            Item::Run(r) => r.rect,
            Item::Object { rect, .. } => *rect,
        }
    }
}

/// A word with its position and style; `space_before` says whether it is separated from the
/// previous word of its line (false for a superscript glued to its base).
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    pub text: String,
    pub rect: Rect,
    pub size: f32,
    pub bold: bool,
    pub italic: bool,
    pub space_before: bool,
}

/// A line of text in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub words: Vec<Word>,
    pub rect: Rect,
    pub baseline: f32,
    pub size: f32,
    pub bold: bool,
    pub italic: bool,
}

impl Line {
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (i, w) in self.words.iter().enumerate() {
            if i > 0 && w.space_before {
                s.push(' ');
            }
            s.push_str(&w.text);
        }
        s
    }
}

/// What a leaf region holds, top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Line(Line),
    Object { index: usize, rect: Rect },
}

impl Entry {
    pub fn rect(&self) -> Rect {
        match self {
            Entry::Line(l) => l.rect,
            Entry::Object { rect, .. } => *rect,
        }
    }
}

/// A region read as one column.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    pub entries: Vec<Entry>,
}

/// The column gutters a document's earlier pages showed, as white x ranges: a page that
/// cannot show its own columns clearly (the last page of a three-column article, its columns
/// a few lines each on one line pitch, which could as well be a table's) is read in the
/// columns of the pages before it.
#[derive(Debug, Default, Clone)]
pub struct ColumnGrid {
    gutters: Vec<(f32, f32)>,
}

impl ColumnGrid {
    /// Whether the white gap `a..b` holds the middle of a gutter seen before, the text right
    /// of it starting where that gutter's right column started or indented from there by up
    /// to three ems (a list; a page's columns keep their left edges, where a table's column
    /// gaps fall anywhere).
    fn holds(&self, a: f32, b: f32, size: f32) -> bool {
        self.gutters.iter().any(|&(ka, kb)| {
            spans_middle(a, b, ka, kb) && b - kb >= -0.5 * size && b - kb <= 3.0 * size
        })
    }

    /// Whether the white gap `a..b` between `left` and `right` is a gutter by the pages
    /// before: it holds one of their gutters, each side holds text
    /// ([`text_both_sides`]), and no other white gap splits a side (a table's rows, set
    /// across the gutter, have gaps between their cells that are no gutter of the page).
    fn columns_at(&self, a: f32, b: f32, left: &[&Item], right: &[&Item], size: f32) -> bool {
        let only_gutters = |side: &[&Item]| {
            vertical_gaps(side.iter().copied(), size)
                .iter()
                .all(|&(x, y)| self.holds(x, y, size))
        };
        self.holds(a, b, size)
            && text_both_sides(left, right, size)
            && only_gutters(left)
            && only_gutters(right)
    }

    fn learn(&mut self, found: Vec<(f32, f32)>) {
        for (a, b) in found {
            let known = self
                .gutters
                .iter()
                .any(|&(ka, kb)| spans_middle(a, b, ka, kb));
            if !known && self.gutters.len() < 16 {
                self.gutters.push((a, b));
            }
        }
    }
}

/// Whether the gap `a..b` holds the middle of the gap `ka..kb`.
fn spans_middle(a: f32, b: f32, ka: f32, kb: f32) -> bool {
    let mid = (ka + kb) / 2.0;
    a < mid && mid < b
}

/// The height the items cover, top of the highest to bottom of the lowest.
fn height(items: &[Item]) -> f32 {
    items
        .iter()
        .map(Item::rect)
        .reduce(|a, b| a.union(&b))
        .map_or(0.0, |r| r.height())
}

/// Orders a page's items into regions in reading order (a page alone, no earlier pages).
#[cfg(test)]
pub fn regions(items: Vec<Item>) -> Vec<Region> {
    regions_in(items, &mut ColumnGrid::default())
}

/// Orders a page's items into regions in reading order, the gutters of earlier pages
/// (`grid`) accepted where the page's own evidence is too thin; the gutters this page shows
/// by itself are added to `grid`.
pub fn regions_in(items: Vec<Item>, grid: &mut ColumnGrid) -> Vec<Region> {
    if items.is_empty() {
        return Vec::new();
    }
    let size = {
        let m = median(items.iter().filter_map(|i| match i {
            Item::Run(r) => Some(r.size),
            Item::Object { .. } => None,
        }));
        if m > 0.0 {
            m
        } else {
            10.0
        }
    };
    let mut leaves: Vec<(Vec<u32>, Vec<Item>)> = Vec::new();
    let mut next_id = 0u32;
    let mut cols = Columns {
        known: grid,
        found: Vec::new(),
        tall: 0.5 * height(&items),
    };
    cut(
        items,
        size,
        &mut Vec::new(),
        &mut next_id,
        &mut leaves,
        0,
        &mut cols,
    );
    let found = std::mem::take(&mut cols.found);
    grid.learn(found);
    // Merge neighbours that share their column path.
    let mut merged: Vec<(Vec<u32>, Vec<Item>)> = Vec::new();
    for (path, items) in leaves {
        match merged.last_mut() {
            Some((p, its)) if *p == path => its.extend(items),
            _ => merged.push((path, items)),
        }
    }
    merged
        .into_iter()
        .map(|(_, items)| Region {
            entries: lines_of(items),
        })
        .collect()
}

/// The gutters known from earlier pages, and those this page shows by itself.
struct Columns<'g> {
    known: &'g ColumnGrid,
    found: Vec<(f32, f32)>,
    /// Half the height of the page's text: a gutter is learnt only from a region at least
    /// this tall (the page's columns, not the gap beside a figure or inside a table).
    tall: f32,
}

fn cut(
    items: Vec<Item>,
    size: f32,
    path: &mut Vec<u32>,
    next_id: &mut u32,
    out: &mut Vec<(Vec<u32>, Vec<Item>)>,
    depth: u32,
    cols: &mut Columns<'_>,
) {
    if items.len() <= 1 || depth > 200 {
        out.push((path.clone(), items));
        return;
    }
    for (a, b) in vertical_gaps(items.iter(), size) {
        let mid = (a + b) / 2.0;
        // Judged on references; the items move only once a gutter is found.
        let (left, right): (Vec<&Item>, Vec<&Item>) =
            items.iter().partition(|i| i.rect().x1 <= mid);
        if left.is_empty() || right.is_empty() {
            continue;
        }
        let seen = is_gutter(&left, &right, size);
        if !seen && !cols.known.columns_at(a, b, &left, &right, size) {
            continue;
        }

        // Rows of a table that spans the gutter, its own column gap falling on it: cut above
        // or below the table first, so that its rows are read whole.
        match table_across(&items, mid, size) {
            Across::None => {}
            Across::Whole => continue,
            Across::Cut(y, below)
                if items.iter().any(|i| i.rect().center_y() < y)
                    && items.iter().any(|i| i.rect().center_y() >= y) =>
            {
                let (top, rest): (Vec<Item>, Vec<Item>) =
                    items.into_iter().partition(|i| i.rect().center_y() < y);
                let end = below.unwrap_or(f32::INFINITY);
                let (table, bottom): (Vec<Item>, Vec<Item>) =
                    rest.into_iter().partition(|i| i.rect().center_y() < end);
                cut(top, size, path, next_id, out, depth + 1, cols);
                cut(table, size, path, next_id, out, depth + 1, cols);
                if !bottom.is_empty() {
                    cut(bottom, size, path, next_id, out, depth + 1, cols);
                }
                return;
            }
            Across::Cut(..) => {}
        }
        if seen && height(&items) >= cols.tall {
            cols.found.push((a, b));
        }
        let (left, right): (Vec<Item>, Vec<Item>) =
            items.into_iter().partition(|i| i.rect().x1 <= mid);
        let id = *next_id;
        *next_id += 1;
        path.push(id * 2);
        cut(left, size, path, next_id, out, depth + 1, cols);
        path.pop();
        path.push(id * 2 + 1);
        cut(right, size, path, next_id, out, depth + 1, cols);
        path.pop();
        return;
    }
    // Horizontal: where the column structure changes (just above a block that spans the
    // gutter of the columns around it), else the widest gap.
    let hgaps: Vec<(f32, f32)> = gaps(items.iter().map(|i| {
        let r = i.rect();
        (r.y0, r.y1)
    }))
    .into_iter()
    .filter(|(a, b)| b - a > 0.05 * size)
    .collect();
    let Some((a, b)) = structure_change(&items, &hgaps, size).or_else(|| {
        hgaps
            .iter()
            .copied()
            .max_by(|x, y| (x.1 - x.0).total_cmp(&(y.1 - y.0)))
    }) else {
        out.push((path.clone(), items));
        return;
    };
    let mid = (a + b) / 2.0;
    let (top, bottom): (Vec<Item>, Vec<Item>) = items.into_iter().partition(|i| i.rect().y1 <= mid);
    if top.is_empty() || bottom.is_empty() {
        let mut all = top;
        all.extend(bottom);
        out.push((path.clone(), all));
        return;
    }
    cut(top, size, path, next_id, out, depth + 1, cols);
    cut(bottom, size, path, next_id, out, depth + 1, cols);
}

/// Where the rows of a table cross a vertical gap at `mid`.
#[derive(Debug, PartialEq)]
enum Across {
    None,
    /// Every line of the region.
    Whole,
    /// Above the table, and below it when lines follow: the heights to cut the region at.
    Cut(f32, Option<f32>),
}

/// Whether a stretch of the region's lines are the rows of one table whose column gap falls
/// on the gap at `mid` (a full-width table under two columns of prose, its middle column gap
/// on the page's gutter). A row has two or more cells on each side, none of them filling its
/// side (a line of prose does); narrow lines between rows are wrapped cells. Three rows make
/// a table.
fn table_across(items: &[Item], mid: f32, size: f32) -> Across {
    let x0 = items
        .iter()
        .map(|i| i.rect().x0)
        .fold(f32::INFINITY, f32::min);
    let x1 = items
        .iter()
        .map(|i| i.rect().x1)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut runs: Vec<&Run> = items
        .iter()
        .filter_map(|i| match i {
            Item::Run(r) => Some(r),
            Item::Object { .. } => None,
        })
        .collect();
    if runs.len() < 6 {
        return Across::None;
    }
    runs.sort_by(|a, b| a.baseline.total_cmp(&b.baseline));
    let mut bands: Vec<Band> = Vec::new();
    for r in runs {
        let left = r.rect.x1 <= mid;
        let side = if left { mid - x0 } else { x1 - mid };
        let narrow = r.rect.width() <= 0.6 * side;
        let lower = r
            .words
            .first()
            .is_some_and(|w| w.text.starts_with(char::is_lowercase));
        let band = match bands.last_mut() {
            Some(b) if (r.baseline - b.baseline).abs() < 0.3 * size => b,
            _ => {
                bands.push(Band {
                    baseline: r.baseline,
                    top: r.rect.y0,
                    cells: [0, 0],
                    lower: [true, true],
                    narrow: true,
                    narrow_side: [true, true],
                });
                bands.last_mut().expect("just pushed")
            }
        };
        let k = usize::from(!left);
        band.top = band.top.min(r.rect.y0);
        band.cells[k] += 1;
        band.lower[k] &= lower;
        band.narrow &= narrow;
        band.narrow_side[k] &= narrow;
    }
    let mut start = 0;
    while let Some(found) = bands[start..].iter().position(|b| b.row() && b.starts()) {
        start += found;
        // The stretch goes on over narrow lines (rows, wrapped cells) set close together.
        let (mut end, mut rows, mut last_row) = (start + 1, 1, start);
        while end < bands.len()
            && bands[end].narrow
            && bands[end].in_step()
            && bands[end].top - bands[end - 1].baseline < 2.0 * size
        {
            if bands[end].row() {
                rows += 1;
                last_row = end;
            }
            end += 1;
        }
        // Up to the last row: narrow lines after it may be the start of the prose below.
        let end = last_row + 1;
        // A table at the top of the region that leaves lines below is cut off below, unless
        // a side goes on in cells under it: two tables side by side, one in each column, can
        // start together at the top of a page and wrap their cells in step, and the longer
        // one goes on where the other ends.
        if rows >= 3 {
            return match (start > 0, end < bands.len()) {
                (true, below) => Across::Cut(bands[start].top, below.then(|| bands[end].top)),
                (false, false) => Across::Whole,
                (false, true) => {
                    let goes_on = |k: usize| {
                        bands[end..]
                            .iter()
                            .find(|b| b.cells[k] > 0)
                            .is_some_and(|b| b.cells[k] >= 2 && b.narrow_side[k])
                    };
                    if goes_on(0) || goes_on(1) {
                        Across::None
                    } else {
                        Across::Cut(bands[end].top, None)
                    }
                }
            };
        }
        start = end;
    }
    Across::None
}

/// A line of the region for [`table_across`]: its cells left and right of the gap, whether
/// all of a side's cells start lower case (the wrapped lines of cells), and whether every
/// cell is narrow.
struct Band {
    baseline: f32,
    top: f32,
    cells: [usize; 2],
    lower: [bool; 2],
    narrow: bool,
    /// Every cell of the side is narrow.
    narrow_side: [bool; 2],
}

impl Band {
    /// Two or more cells on each side, none filling its side (one cell on a side is as
    /// often a column of labels or list items beside a table in the other column).
    fn row(&self) -> bool {
        self.narrow && self.cells[0] >= 2 && self.cells[1] >= 2
    }

    /// Both sides start a row (a line of one table starts its rows on both sides at once).
    fn starts(&self) -> bool {
        self.in_step() && !self.lower[0] && !self.lower[1]
    }

    /// Both sides in the same state: both start a row or both carry wrapped cells on; a line
    /// with cells on one side only carries wrapped cells on. Two tables side by side, one in
    /// each column, fall out of step where one wraps a cell and the other starts a row.
    fn in_step(&self) -> bool {
        match self.cells {
            [0, _] => self.lower[1],
            [_, 0] => self.lower[0],
            _ => self.lower[0] == self.lower[1],
        }
    }
}

/// A region with no gutter through its whole height may still be columns of text above or
/// below a block that spans them (a full-width table or heading between three CSS columns).
/// The gutter is looked for among the region's narrow items (under 45 % of its width); when
/// one separates columns of text, the items crossing it are the spanning blocks, and the
/// region is cut at the horizontal gap just above the first of them, so that each part has
/// one column structure. The widest horizontal gap can instead fall between two lines of
/// the columns and leave the block with either half.
fn structure_change(items: &[Item], hgaps: &[(f32, f32)], size: f32) -> Option<(f32, f32)> {
    if hgaps.is_empty() {
        return None;
    }
    let x0 = items
        .iter()
        .map(|i| i.rect().x0)
        .fold(f32::INFINITY, f32::min);
    let x1 = items
        .iter()
        .map(|i| i.rect().x1)
        .fold(f32::NEG_INFINITY, f32::max);
    let narrow_width = 0.45 * (x1 - x0);
    let (narrow, wide): (Vec<&Item>, Vec<&Item>) =
        items.iter().partition(|i| i.rect().width() < narrow_width);
    if wide.is_empty() || narrow.len() < 6 {
        return None;
    }
    for (a, b) in vertical_gaps(narrow.iter().copied(), size) {
        let mid = (a + b) / 2.0;
        let (left, right): (Vec<&Item>, Vec<&Item>) =
            narrow.iter().copied().partition(|i| i.rect().x1 <= mid);
        if left.is_empty() || right.is_empty() || !is_gutter(&left, &right, size) {
            continue;
        }
        let Some(first) = wide
            .iter()
            .filter(|i| i.rect().x0 < a && i.rect().x1 > b)
            .map(|i| i.rect())
            .min_by(|p, q| p.y0.total_cmp(&q.y0))
        else {
            continue;
        };
        // The gap just above the first spanning block. A block at the top (a title over the
        // columns) is left to the widest gap, usually the one under it: its last line can be
        // short enough to count as narrow.
        return hgaps
            .iter()
            .copied()
            .filter(|g| g.1 <= first.y0 + 0.05 * size)
            .max_by(|p, q| p.1.total_cmp(&q.1));
    }
    None
}

/// The white vertical gaps between `items` at least a text size wide, widest first.
fn vertical_gaps<'a>(items: impl Iterator<Item = &'a Item>, size: f32) -> Vec<(f32, f32)> {
    let mut vgaps = gaps(items.map(|i| {
        let r = i.rect();
        (r.x0, r.x1)
    }));
    vgaps.retain(|(a, b)| b - a >= size.max(4.0));
    vgaps.sort_by(|a, b| (b.1 - b.0).total_cmp(&(a.1 - a.0)));
    vgaps
}

/// White gaps in the projection of some intervals.
fn gaps(intervals: impl Iterator<Item = (f32, f32)>) -> Vec<(f32, f32)> {
    let mut v: Vec<(f32, f32)> = intervals.collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Vec::new();
    let mut end = f32::NEG_INFINITY;
    for (a, b) in v {
        if end > f32::NEG_INFINITY && a > end {
            out.push((end, a));
        }
        end = end.max(b);
    }
    out
}

/// A side's baselines, the median characters and words a line holds (a median, so a heading
/// of two short lines above a column does not make its prose look like cells), and how many
/// of its lines are list items: a marker ("•", "3.", "(b)") followed by text on the line.
struct SideStats {
    baselines: Vec<f32>,
    chars: f32,
    words: f32,
    items: usize,
    /// Lines whose first word starts with a lower-case letter: a line that carries on a
    /// sentence from the line above.
    lower: usize,
    /// The baselines of the other lines, sorted: lines that start afresh (a paragraph, an
    /// item, a heading, a table row's cell).
    fresh: Vec<f32>,
}

impl SideStats {
    fn of(side: &[&Item], size: f32) -> SideStats {
        // (baseline, chars, words, words that are not markers, left edge, starts with a marker,
        // starts lower-case)
        let mut lines: Vec<(f32, usize, usize, usize, f32, bool, bool)> = Vec::new();
        for &i in side {
            if let Item::Run(r) = i {
                let marker = r.words.first().is_some_and(|w| is_marker(&w.text));
                let lower = r
                    .words
                    .first()
                    .is_some_and(|w| w.text.starts_with(char::is_lowercase));
                let text = r.words.iter().filter(|w| !is_marker(&w.text)).count();
                match lines
                    .iter_mut()
                    .find(|l| (l.0 - r.baseline).abs() < 0.3 * size)
                {
                    Some(line) => {
                        line.1 += r.chars;
                        line.2 += r.words.len();
                        line.3 += text;
                        if r.rect.x0 < line.4 {
                            line.4 = r.rect.x0;
                            line.5 = marker;
                            line.6 = lower;
                        }
                    }
                    None => lines.push((
                        r.baseline,
                        r.chars,
                        r.words.len(),
                        text,
                        r.rect.x0,
                        marker,
                        lower,
                    )),
                }
            }
        }
        let mut fresh: Vec<f32> = lines.iter().filter(|l| !l.6).map(|l| l.0).collect();
        fresh.sort_by(f32::total_cmp);
        SideStats {
            fresh,
            chars: median(lines.iter().map(|l| l.1 as f32)),
            words: median(lines.iter().map(|l| l.2 as f32)),
            items: lines.iter().filter(|l| l.5 && l.3 >= 1).count(),
            lower: lines.iter().filter(|l| l.6).count(),
            baselines: lines.into_iter().map(|l| l.0).collect(),
        }
    }

    /// Text rather than table cells: lines of prose, a column of list items (a third of
    /// its lines start an item; their wrapped lines are short in a narrow column), or lines
    /// of a few words that mostly carry on a sentence from the line above (start lower-case):
    /// a narrow column of prose, justified or not, where a table's cells start afresh.
    fn is_text(&self) -> bool {
        let n = self.baselines.len().max(1);
        prose_lines(self.chars, self.words)
            || self.items * 3 >= n
            || (self.lower * 5 >= n * 2 && self.words >= 2.5 && self.chars >= 12.0)
    }
}

/// Whether two sides start their lines afresh at unrelated heights: columns of text, each
/// with its own paragraphs, items and headings, where a table's cells start a row together
/// on both sides. Needs three such lines a side; true when fewer than two fifths of the
/// side with fewer have one on the other side's baseline.
fn independent(a: &SideStats, b: &SideStats, size: f32) -> bool {
    let (few, many, many_lines) = if a.fresh.len() <= b.fresh.len() {
        (&a.fresh, &b.fresh, b.baselines.len())
    } else {
        (&b.fresh, &a.fresh, a.baselines.len())
    };
    if few.len() < 3 {
        return false;
    }
    let together = few
        .iter()
        .filter(|&&y| {
            let at = many.partition_point(|m| *m < y - 0.3 * size);
            many.get(at).is_some_and(|m| *m <= y + 0.3 * size)
        })
        .count();
    // Columns on one line pitch meet by chance where the other side starts lines afresh
    // often: with four or more such lines, half of them meeting is still chance when it is
    // about what that share predicts (a table's rows meet nearly all).
    let chance = few.len() as f32 * many.len() as f32 / many_lines.max(1) as f32;
    together * 5 < few.len() * 2
        || (few.len() >= 4 && together * 2 <= few.len() && together as f32 <= 2.0 * chance + 1.0)
}

/// A list marker that starts an item on its own line: what a table's marker column may hold
/// ([`crate::aligned::is_marker`]) except a bare number, which is a cell as often as a label.
fn is_marker(s: &str) -> bool {
    crate::aligned::is_marker(s) && !s.bytes().all(|b| b.is_ascii_digit())
}

/// Lines of prose: long, or (in a narrow column) of several words, where table cells hold
/// one to three.
fn prose_lines(chars: f32, words: f32) -> bool {
    chars >= 28.0 || (chars >= 16.0 && words >= 3.5)
}

/// The most lines a side may have for the gutters of earlier pages to decide for it.
const SHORT_COLUMN: usize = 15;

/// Text on both sides of a gap that lies where earlier pages had a gutter, sides of a few
/// lines ([`SHORT_COLUMN`]): lines of a dozen characters or more on each side (a table's
/// label column holds fewer) and text on one of them ([`SideStats::is_text`]). Weaker than
/// [`is_gutter`], which decides without a prior.
fn text_both_sides(left: &[&Item], right: &[&Item], size: f32) -> bool {
    let l = SideStats::of(left, size);
    let r = SideStats::of(right, size);
    // Only where the evidence is thin: a side of a full page has lines enough for
    // [`is_gutter`] to judge (there, a gap it refuses is a table's or a form's).
    let lines = l.baselines.len().max(r.baselines.len());
    !l.baselines.is_empty()
        && !r.baselines.is_empty()
        && lines <= SHORT_COLUMN
        && l.chars.min(r.chars) >= 12.0
        && (l.is_text() || r.is_text())
}

/// Whether a vertical gap separates columns of text rather than the columns of a table.
fn is_gutter(left: &[&Item], right: &[&Item], size: f32) -> bool {
    let l = SideStats::of(left, size);
    let r = SideStats::of(right, size);
    let (lb, l_per_line, l_words) = (&l.baselines, l.chars, l.words);
    let (rb, r_per_line, r_words) = (&r.baselines, r.chars, r.words);
    if lb.is_empty() || rb.is_empty() {
        // An image beside text.
        return true;
    }
    let (few, many) = if lb.len() <= rb.len() {
        (lb, rb)
    } else {
        (rb, lb)
    };
    let aligned = few
        .iter()
        .filter(|b| many.iter().any(|m| (*m - **b).abs() < 0.3 * size))
        .count();
    let aligned_ratio = aligned as f32 / few.len() as f32;
    if aligned_ratio < 0.5 {
        // Lines at different heights: independent columns (or a caption beside a figure),
        // unless one side is a handful of short labels.
        return lb.len() >= 2 && rb.len() >= 2 || l_per_line.min(r_per_line) >= 20.0;
    }
    // Same baselines on both sides, and a side that is itself split by a white column through
    // all its lines with words on both sides of it (not list markers beside their items): the
    // columns of one table, cut at the widest gap between two of them. Unless the two parts
    // of that side are text too (prose, or a column of list items): then it is the next
    // gutter of a page of three or more columns set on one line pitch.
    let split = |side: &[&Item]| {
        let words_beyond = |keep: &dyn Fn(&Rect) -> bool| {
            side.iter().any(|i| match i {
                Item::Run(r) => keep(&r.rect) && r.chars > 3,
                Item::Object { .. } => false,
            })
        };
        let part = |keep: &dyn Fn(&Rect) -> bool| {
            let part: Vec<&Item> = side.iter().copied().filter(|i| keep(&i.rect())).collect();
            SideStats::of(&part, size)
        };
        // Both parts text, or one text and the two starting their lines at unrelated heights:
        // the next gutter, not a table's column gap.
        let text_parts = |a: &SideStats, b: &SideStats| {
            let text = |s: &SideStats| s.baselines.len() >= 3 && s.is_text();
            text(a) && text(b) || (text(a) || text(b)) && independent(a, b, size)
        };
        side.len() >= 3
            && gaps(side.iter().map(|i| {
                let r = i.rect();
                (r.x0, r.x1)
            }))
            .iter()
            .any(|&(a, b)| {
                b - a >= size
                    && words_beyond(&|r| r.x1 <= a)
                    && words_beyond(&|r| r.x0 >= b)
                    && !text_parts(&part(&|r| r.x1 <= a), &part(&|r| r.x0 >= b))
            })
    };
    // Text on a side, and lines that start afresh at unrelated heights on the two: columns,
    // even when the other side is split by a white column (a table set in one column of a
    // page of three, beside the prose of the next: its rows start where the prose's lines
    // do not, where a table across the gutter starts each row on both sides together).
    let text_beside = |text: &SideStats, other: &SideStats| {
        text.baselines.len() >= 3
            && other.baselines.len() >= 3
            && text.is_text()
            && independent(text, other, size)
    };
    if text_beside(&l, &r) || text_beside(&r, &l) {
        return true;
    }
    // Neither side reads as text by its line lengths (a narrow column of long words holds
    // two or three to a line), but each has lines enough that start afresh and they start
    // at unrelated heights: columns, where a table's rows start on both sides together.
    if l.fresh.len().min(r.fresh.len()) >= 4
        && l_per_line.min(r_per_line) >= 12.0
        && independent(&l, &r, size)
    {
        return true;
    }
    if split(left) || split(right) {
        return false;
    }
    // Same baselines on both sides: prose columns have long lines, tables short cells. Narrow
    // columns of prose (three to a page) have lines of few characters but still of several
    // words, where table cells hold one to three.
    let words_per_line = l_words.min(r_words);
    // Prose on both sides, or text on both sides by [`SideStats::is_text`] (a narrow column
    // of nested lists or of three-word lines of prose has short lines).
    let prose =
        prose_lines(l_per_line.min(r_per_line), words_per_line) || l.is_text() && r.is_text();
    // Two lines a side are enough when both read as sentences (a caption beside the end of a
    // paragraph); a table row's cells are rarely that long.
    lb.len().min(rb.len()) >= 3 && prose
        || lb.len().min(rb.len()) >= 2
            && l_per_line.min(r_per_line) >= 28.0
            && words_per_line >= 4.0
}

/// Groups a leaf's runs into lines (by vertical overlap) and words; images stay as entries.
fn lines_of(items: Vec<Item>) -> Vec<Entry> {
    let mut runs: Vec<Run> = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    for i in items {
        match i {
            Item::Run(r) => runs.push(r),
            Item::Object { index, rect } => entries.push(Entry::Object { index, rect }),
        }
    }
    runs.sort_by(|a, b| a.rect.y0.total_cmp(&b.rect.y0));
    let mut groups: Vec<(Rect, Vec<Run>)> = Vec::new();
    for r in runs {
        let h = r.rect.height().max(0.1);
        let found = groups.iter_mut().rev().take(4).find(|(rect, _)| {
            let overlap = rect.v_overlap(&r.rect);
            overlap >= 0.5 * h.min(rect.height().max(0.1))
        });
        match found {
            Some((rect, members)) => {
                *rect = rect.union(&r.rect);
                members.push(r);
            }
            None => groups.push((r.rect, vec![r])),
        }
    }
    attach_scripts(&mut groups);
    for (_, members) in groups {
        entries.push(Entry::Line(make_line(members)));
    }
    entries.sort_by(|a, b| a.rect().y0.total_cmp(&b.rect().y0));
    entries
}

/// Moves superscripts and subscripts drawn with a large text rise (a few small characters
/// touching the end or start of a run on a neighbouring line) into that line.
fn attach_scripts(groups: &mut Vec<(Rect, Vec<Run>)>) {
    let mut i = 0;
    while i < groups.len() {
        let (rect, members) = &groups[i];
        let small = members.len() == 1 && members[0].chars <= 4;
        let mut target = None;
        if small {
            let run = &members[0];
            for (j, (other_rect, others)) in groups.iter().enumerate() {
                if j == i {
                    continue;
                }
                let size = median(others.iter().map(|r| r.size));
                if run.size > 0.85 * size {
                    continue;
                }
                let apart = (other_rect.y0 - rect.y1).max(rect.y0 - other_rect.y1);
                if apart > 0.6 * other_rect.height() {
                    continue;
                }
                let touches = others.iter().any(|o| {
                    (run.rect.x0 - o.rect.x1).abs() < 0.3 * size
                        || (o.rect.x0 - run.rect.x1).abs() < 0.3 * size
                });
                if touches {
                    target = Some(j);
                    break;
                }
            }
        }
        match target {
            Some(j) => {
                let (rect, mut members) = groups.remove(i);
                let j = if j > i { j - 1 } else { j };
                groups[j].0 = groups[j].0.union(&rect);
                groups[j].1.append(&mut members);
            }
            None => i += 1,
        }
    }
}

fn make_line(mut runs: Vec<Run>) -> Line {
    let rtl_chars: usize = runs.iter().filter(|r| r.rtl).map(|r| r.chars).sum();
    let all_chars: usize = runs.iter().map(|r| r.chars).sum();
    let rtl = rtl_chars * 2 > all_chars;
    if rtl {
        runs.sort_by(|a, b| b.rect.x1.total_cmp(&a.rect.x1));
    } else {
        runs.sort_by(|a, b| a.rect.x0.total_cmp(&b.rect.x0));
    }
    // The dominant run (most glyphs) gives the line's baseline and size.
    let main = runs
        .iter()
        .max_by_key(|r| r.chars)
        .map(|r| (r.baseline, r.size))
        .unwrap_or((0.0, 10.0));
    let mut words: Vec<Word> = Vec::new();
    let mut prev: Option<Rect> = None;
    for run in &mut runs {
        for (k, mut w) in std::mem::take(&mut run.words).into_iter().enumerate() {
            if k == 0 {
                // Between runs of one line: a space only where there is a gap (a superscript
                // drawn as its own run stays glued to its base).
                w.space_before = match prev {
                    None => true,
                    Some(p) => {
                        let gap = if rtl {
                            p.x0 - w.rect.x1
                        } else {
                            w.rect.x0 - p.x1
                        };
                        gap > WORD_GAP * w.size.max(1.0)
                    }
                };
            }
            prev = Some(w.rect);
            words.push(w);
        }
    }
    let mut rect = runs[0].rect;
    for r in &runs[1..] {
        rect = rect.union(&r.rect);
    }
    let bold = !words.is_empty() && words.iter().all(|w| w.bold);
    let italic = !words.is_empty() && words.iter().all(|w| w.italic);
    Line {
        italic,
        words,
        rect,
        baseline: main.0,
        size: main.1,
        bold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(x: f32, y: f32, text: &str) -> Item {
        crate::testkit::run(x, y, text, 5.0)
    }

    fn texts(regions: &[Region]) -> Vec<Vec<String>> {
        regions
            .iter()
            .map(|r| {
                r.entries
                    .iter()
                    .filter_map(|e| match e {
                        Entry::Line(l) => Some(l.text()),
                        Entry::Object { .. } => None,
                    })
                    .collect()
            })
            .collect()
    }

    /// Six lines of prose in two columns (0-240 and 260-500) at the top of a page.
    fn prose_columns() -> Vec<Item> {
        (0..6)
            .flat_map(|k| {
                let y = 12.0 * k as f32;
                [
                    run(0.0, y, "words of the left column set as prose lines"),
                    run(260.0, y, "and words of the right column set as prose"),
                ]
            })
            .collect()
    }

    /// Two narrow columns of prose of long words, two to a line, on one line pitch; each
    /// side's `starts` are the lines (of 12) that start a sentence, the others carry one on.
    fn narrow_columns(left_starts: &[usize], right_starts: &[usize]) -> (Vec<Item>, Vec<Item>) {
        let line = |starts: &[usize], k: usize| {
            if starts.contains(&k) {
                "Claskiondgan cleanfiouff"
            } else {
                "tindsourweack cleatba"
            }
        };
        let left = (0..12)
            .map(|k| run(0.0, 12.0 * k as f32, line(left_starts, k)))
            .collect();
        let right = (0..12)
            .map(|k| run(180.0, 12.0 * k as f32, line(right_starts, k)))
            .collect();
        (left, right)
    }

    #[test]
    fn narrow_columns_of_two_long_words_a_line_are_columns() {
        // Neither side reads as prose by its lines' length (two words, about twenty
        // characters), but their sentences start at unrelated heights.
        let (left, right) = narrow_columns(&[0, 4, 7, 10], &[2, 5, 9, 11]);
        let (l, r): (Vec<&Item>, Vec<&Item>) = (left.iter().collect(), right.iter().collect());
        assert!(is_gutter(&l, &r, 10.0));
        // The same lines starting together on both sides are the rows of a table.
        let (left, right) = narrow_columns(&[0, 4, 7, 10], &[0, 4, 7, 10]);
        let (l, r): (Vec<&Item>, Vec<&Item>) = (left.iter().collect(), right.iter().collect());
        assert!(!is_gutter(&l, &r, 10.0));
    }

    #[test]
    fn columns_on_one_pitch_that_meet_by_chance_are_independent() {
        // Twenty lines a side on one line pitch. The left starts four sentences; the right
        // starts seven, and two of the left's fall on two of them: about what chance gives.
        let side = |x: f32, fresh: &[usize]| -> Vec<Item> {
            (0..20)
                .map(|k| {
                    let text = if fresh.contains(&k) {
                        "Starts a sentence afresh"
                    } else {
                        "and carries one on further"
                    };
                    run(x, 12.0 * k as f32, text)
                })
                .collect()
        };
        let stats = |items: &[Item]| SideStats::of(&items.iter().collect::<Vec<_>>(), 10.0);
        let left = stats(&side(0.0, &[0, 6, 12, 17]));
        let right = stats(&side(200.0, &[0, 3, 6, 9, 13, 16, 19]));
        assert!(independent(&left, &right, 10.0));
        // Where the four all meet lines the other side starts (a table's rows), they are not.
        let right = stats(&side(200.0, &[0, 3, 6, 12, 14, 17, 19]));
        assert!(!independent(&left, &right, 10.0));
    }

    #[test]
    fn a_table_under_two_columns_is_read_row_by_row() {
        // Two columns of prose (0-240 and 260-500), then a four-column table across the page
        // whose middle column gap falls on the gutter.
        let mut items = prose_columns();
        push_four_row_table(&mut items, 90.0);
        // And two columns of prose again under the table.
        for k in 0..3 {
            let y = 160.0 + 12.0 * k as f32;
            items.push(run(0.0, y, "lower words of the left column set as prose"));
            items.push(run(260.0, y, "lower words of the right column as prose"));
        }
        let got = texts(&regions(items));
        let lines: Vec<&String> = got.iter().flatten().collect();
        assert!(
            lines.iter().any(|l| l.as_str() == "Beta Blue 7 sent back"),
            "{got:?}"
        );
        let lower = lines
            .iter()
            .position(|l| l.starts_with("lower words of the left"))
            .unwrap();
        assert!(
            lines[lower + 2].starts_with("lower words of the left"),
            "{got:?}"
        );
        // The prose above is still read column by column.
        let left = lines
            .iter()
            .position(|l| l.starts_with("words of the left"))
            .unwrap();
        assert!(lines[left + 1].starts_with("words of the left"), "{got:?}");
    }

    #[test]
    fn a_short_page_is_read_in_the_columns_of_the_pages_before() {
        // Page one: three columns of prose (0, 150, 300), clear by themselves.
        let mut grid = ColumnGrid::default();
        let page: Vec<Item> = (0..8)
            .flat_map(|k| {
                let y = 12.0 * k as f32;
                [
                    run(0.0, y, "one two three four"),
                    run(150.0, y, "five six seven eight"),
                    run(300.0, y, "nine ten eleven twelve"),
                ]
            })
            .collect();
        assert_eq!(regions_in(page, &mut grid).len(), 3);
        // The last page: each column a few short lines on one pitch, mostly carrying on a
        // sentence or holding list items; alone it could be a table's three columns.
        let cols = [
            [
                "niem piompriond",
                "frandpre, jan wioff",
                "gamcheft? Gokeack",
                "stea rosttatbel",
            ],
            [
                "• Bou baimrick",
                "spouckdaift tho",
                "troustholbroust",
                "• Drie flom stal",
            ],
            [
                "fiotsten spamplor",
                "neamthift prustthea",
                "• Pethor cie sen",
                "grieckshung koul",
            ],
        ];
        let last: Vec<Item> = (0..4)
            .flat_map(|k| {
                let y = 12.0 * k as f32;
                (0..3).map(move |c| (c, y, k))
            })
            .map(|(c, y, k)| run(150.0 * c as f32, y, cols[c][k]))
            .collect();
        let alone = texts(&regions(last.clone()));
        assert_eq!(alone.len(), 1, "read row by row without a prior: {alone:?}");
        let got = texts(&regions_in(last, &mut grid));
        let want: Vec<Vec<String>> = cols
            .iter()
            .map(|c| c.iter().map(|s| s.to_string()).collect())
            .collect();
        assert_eq!(got, want);
        // A label/value table under the same gutter stays a table: its labels are short.
        let table: Vec<Item> = ["Name", "Kind", "Count", "Note"]
            .iter()
            .enumerate()
            .flat_map(|(k, label)| {
                let y = 12.0 * k as f32;
                [
                    run(80.0, y, label),
                    run(160.0, y, "a longer value of the row"),
                ]
            })
            .collect();
        assert_eq!(texts(&regions_in(table, &mut grid)).len(), 1);
        // So do the rows of a four-column table of long cells, one of its column gaps on a
        // gutter of the pages before and the others not.
        let cells = [
            ["Thungbeng", "Proum Sputtean", "Tielthetpeand", "Freastran"],
            [
                "Treckfrack shouvo",
                "Thaispous driet",
                "Draftpror simbul",
                "Frickthen",
            ],
            [
                "Tiendplor vongweand",
                "Seafrot 49.2% nouffjie",
                "46,858",
                "Sousfiegund",
            ],
            ["Climsan", "Leffwack drouckprait", "46,500", "14.1"],
            ["Chind floust", "Thungbeng", "Cardor 4285", "Datbaickdrun"],
        ];
        let rows: Vec<Item> = cells
            .iter()
            .enumerate()
            .flat_map(|(k, row)| {
                let y = 16.0 * k as f32;
                (0..4).map(move |c| run(130.0 * c as f32, y, row[c]))
            })
            .collect();
        assert_eq!(texts(&regions(rows.clone())).len(), 1);
        assert_eq!(texts(&regions_in(rows, &mut grid)).len(), 1);
    }

    /// A four-column, four-row table (rows 16 pt apart, columns 130 pt) from `top` down.
    fn push_four_row_table(items: &mut Vec<Item>, top: f32) {
        let rows = [
            ["Name", "Kind", "Count", "Note"],
            ["Alpha", "Red", "12", "kept"],
            ["Beta", "Blue", "7", "sent back"],
            ["Gamma", "Green", "3", "lost"],
        ];
        for (k, cells) in rows.iter().enumerate() {
            let y = top + 16.0 * k as f32;
            for (c, text) in cells.iter().enumerate() {
                items.push(run(130.0 * c as f32, y, text));
            }
        }
    }

    #[test]
    fn a_table_at_the_top_of_two_columns_is_read_row_by_row() {
        // A four-column table across the top of the page, its middle column gap on the gutter
        // of the two columns of prose under it.
        let mut items = Vec::new();
        push_four_row_table(&mut items, 0.0);
        for k in 0..6 {
            let y = 80.0 + 12.0 * k as f32;
            items.push(run(0.0, y, "words of the left column set as prose lines"));
            items.push(run(260.0, y, "and words of the right column set as prose"));
        }
        let got = texts(&regions(items));
        let lines: Vec<&String> = got.iter().flatten().collect();
        assert!(
            lines.iter().any(|l| l.as_str() == "Beta Blue 7 sent back"),
            "{got:?}"
        );
        let left = lines
            .iter()
            .position(|l| l.starts_with("words of the left"))
            .unwrap();
        assert!(lines[left + 1].starts_with("words of the left"), "{got:?}");
    }

    #[test]
    fn tables_side_by_side_at_the_top_stay_apart() {
        // Two tables at the top of two columns, their rows in step; the left one goes on
        // under the end of the right one, whose column goes on in prose.
        let mut items = Vec::new();
        for k in 0..14 {
            let y = 12.0 * k as f32;
            if k < 6 {
                items.push(run(0.0, y, &format!("Item{k}")));
                items.push(run(120.0, y, &format!("{}", 10 + k)));
            } else {
                items.push(run(0.0, y, "words of the left column set as prose lines"));
            }
            if k < 3 {
                items.push(run(260.0, y, &format!("Row{k}")));
                items.push(run(380.0, y, &format!("{}", 50 + k)));
            } else {
                items.push(run(260.0, y, "and words of the right column set as prose"));
            }
        }
        let got = texts(&regions(items));
        let lines: Vec<&String> = got.iter().flatten().collect();
        assert!(lines.iter().any(|l| l.as_str() == "Item1 11"), "{got:?}");
        assert!(lines.iter().any(|l| l.as_str() == "Row1 51"), "{got:?}");
    }

    #[test]
    fn three_columns_with_a_column_of_short_list_lines_are_read_column_by_column() {
        // Three CSS columns on one line pitch: two of prose and one of numbered items whose
        // text wraps after a word or two (a nested list in a narrow column). The items start
        // at heights where the middle column carries a sentence on, as independent columns
        // do; a table's cells start a row together.
        let mut items = Vec::new();
        let middle = [
            "and carries the sentence on",
            "over the narrow column here",
            "Then a new sentence starts",
            "and goes on for some words",
        ];
        for k in 0..12 {
            let y = 12.0 * k as f32;
            let left = if k % 4 == 1 {
                "Another sentence starts here"
            } else {
                "and the prose goes on and on"
            };
            items.push(run(0.0, y, left));
            items.push(run(180.0, y, middle[k % 4]));
            match k % 4 {
                0 => {
                    items.push(run(360.0, y, &format!("{}.", k / 4 + 1)));
                    items.push(run(380.0, y, "Fromgrion"));
                }
                1 => items.push(run(380.0, y, "tousthiostcou")),
                2 => items.push(run(380.0, y, "sposdis frurkeam")),
                _ => items.push(run(380.0, y, "pliomchaishie")),
            }
        }
        let got = texts(&regions(items));
        let lines: Vec<&String> = got.iter().flatten().collect();
        // No line runs across two columns.
        assert_eq!(lines.len(), 36, "{got:?}");
        let first = lines
            .iter()
            .position(|l| l.as_str() == "1. Fromgrion")
            .unwrap_or_else(|| panic!("{got:?}"));
        assert_eq!(lines[first + 1].as_str(), "tousthiostcou", "{got:?}");
        assert_eq!(lines[first + 4].as_str(), "2. Fromgrion", "{got:?}");
        assert!(
            lines[0].starts_with("and the prose") && lines[1].starts_with("Another sentence"),
            "{got:?}"
        );
    }

    #[test]
    fn a_table_in_one_column_beside_prose_is_its_own_column() {
        // A two-column table (rows 18 pt apart) set in the left of two CSS columns, beside
        // the prose of the right one (lines 12 pt apart): the table's own column gap runs
        // through the whole left side, but the prose starts its sentences at heights where no
        // row starts, as the next column of a page does.
        let mut items = Vec::new();
        let rows = [
            ["Name", "Count"],
            ["Alpha", "12,345"],
            ["Gamma delta", "678"],
            ["Epsilon", "9,012"],
            ["Zeta", "3.5"],
        ];
        for (k, cells) in rows.iter().enumerate() {
            let y = 18.0 * k as f32;
            items.push(run(0.0, y, cells[0]));
            items.push(run(120.0, y, cells[1]));
        }
        for k in 0..12 {
            let y = 12.0 * k as f32;
            let text = if k % 3 == 1 {
                "Then a new sentence starts"
            } else {
                "and the prose goes on and on"
            };
            items.push(run(200.0, y, text));
        }
        let (table, prose): (Vec<&Item>, Vec<&Item>) =
            items.iter().partition(|i| i.rect().x1 <= 175.0);
        assert!(is_gutter(&table, &prose, 10.0));
        let got = texts(&regions(items.clone()));
        let lines: Vec<&String> = got.iter().flatten().collect();
        assert!(
            lines.iter().any(|l| l.as_str() == "Alpha 12,345"),
            "{got:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.as_str() == "Then a new sentence starts"),
            "{got:?}"
        );
    }

    #[test]
    fn tables_side_by_side_in_two_columns_stay_apart() {
        // A two-column table in the left column and a three-column one in the right, their
        // lines on one pitch: the left one wraps a cell where the right one starts a row.
        let mut items = prose_columns();
        let left = [
            &["Alpha beta", "12"][..],
            &["gamma"],
            &["Delta", "7"],
            &["Zeta", "9"],
        ];
        let right = [
            ["North", "Cold", "3"],
            ["South", "Warm", "4"],
            ["East", "Dry", "5"],
            ["West", "Wet", "6"],
        ];
        for k in 0..4 {
            let y = 90.0 + 12.0 * k as f32;
            for (c, text) in left[k].iter().enumerate() {
                items.push(run(120.0 * c as f32, y, text));
            }
            for (c, text) in right[k].iter().enumerate() {
                items.push(run(260.0 + 80.0 * c as f32, y, text));
            }
        }
        let got = texts(&regions(items));
        let lines: Vec<&String> = got.iter().flatten().collect();
        assert!(lines.iter().any(|l| l.as_str() == "Delta 7"), "{got:?}");
        assert!(lines.iter().any(|l| l.as_str() == "East Dry 5"), "{got:?}");
    }
}
