//! Lines to blocks: paragraphs rejoined from lines, headings by font size and weight against
//! the body text, list items by their markers, hyphenated line ends rejoined, links and
//! bold/italic runs as inlines.

use crate::aligned;
use crate::geom::{median, Rect};
use crate::layout::{Entry, Item, Line, Region, Word};
use quire_plugin_api::{Block, Inline, List, ListItem, Style};

/// Facts about the whole document that blocks are judged against.
#[derive(Debug, Clone, Default)]
pub struct DocStyle {
    /// The font size most characters are set in.
    pub body_size: f32,
    /// Font sizes that headings use, largest first (level 1, 2, 3...).
    pub heading_sizes: Vec<f32>,
    /// How bold lines below those sizes are set, as (size, italic): larger first, and at one
    /// size upright before italic ([`DocStyle::learn_bold_lines`]). The levels under the
    /// sized ones, in that order: Word's Heading 2 and 3 at 13 and 12 points over a 12-point
    /// body, or a bold and a bold italic heading at the body size (APA's levels 2 and 3).
    pub bold_styles: Vec<(f32, bool)>,
}

impl DocStyle {
    /// Builds the style from a histogram of (font size in half points, characters).
    pub fn from_histogram(hist: &std::collections::BTreeMap<u32, usize>) -> DocStyle {
        let body_key = hist
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(k, _)| *k)
            .unwrap_or(20);
        let body_size = body_key as f32 / 2.0;
        let total: usize = hist.values().sum();
        let mut heading_sizes: Vec<f32> = hist
            .iter()
            .filter(|(k, n)| {
                let size = **k as f32 / 2.0;
                size >= body_size * HEADING_RATIO && **n >= 3 && **n * 4 <= total.max(1)
            })
            .map(|(k, _)| *k as f32 / 2.0)
            .collect();
        heading_sizes.sort_by(|a, b| b.total_cmp(a));
        // Sizes within half a point (or 4 %) of each other are one level; Word's default
        // heading styles are 14, 13 and 12 points, a point apart.
        let mut merged: Vec<f32> = Vec::new();
        for s in heading_sizes {
            if merged.last().is_none_or(|l| l - s > (0.04 * s).max(0.5)) {
                merged.push(s);
            }
        }
        DocStyle {
            body_size,
            heading_sizes: merged,
            bold_styles: Vec::new(),
        }
    }

    /// Learns [`DocStyle::bold_styles`] from the pages' runs: runs in bold throughout, of a
    /// dozen words at most, alone on their baseline, set from 95 % of the body size to below
    /// the heading sizes; a style counts when two such runs use it.
    pub fn learn_bold_lines<'a>(&mut self, pages: impl Iterator<Item = &'a [Item]>) {
        let mut counts: std::collections::BTreeMap<(u32, bool), usize> = Default::default();
        for items in pages {
            let mut runs: Vec<&crate::glyphs::Run> = items
                .iter()
                .filter_map(|i| match i {
                    Item::Run(r) => Some(r),
                    Item::Object { .. } => None,
                })
                .collect();
            runs.sort_by(|a, b| a.baseline.total_cmp(&b.baseline));
            for (k, r) in runs.iter().enumerate() {
                let near = |o: &&crate::glyphs::Run| (o.baseline - r.baseline).abs() < 0.3 * r.size;
                let alone =
                    !runs[..k].last().is_some_and(near) && !runs.get(k + 1).is_some_and(near);
                let bold = !r.words.is_empty() && r.words.iter().all(|w| w.bold);
                if !alone
                    || !bold
                    || r.words.len() > 12
                    || r.size < self.body_size * 0.95
                    || r.size >= self.body_size * HEADING_RATIO
                {
                    continue;
                }
                let italic = r.words.iter().all(|w| w.italic);
                *counts
                    .entry(((r.size * 2.0).round() as u32, italic))
                    .or_default() += 1;
            }
        }
        let mut styles: Vec<(f32, bool)> = counts
            .into_iter()
            .filter(|(_, n)| *n >= 2)
            .map(|((half, italic), _)| (half as f32 / 2.0, italic))
            .collect();
        styles.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // Sizes within half a point (or 4 %) of a larger one are that size.
        let mut merged: Vec<(f32, bool)> = Vec::new();
        for (size, italic) in styles {
            let same = merged
                .iter()
                .find(|(s, _)| s - size <= (0.04 * s).max(0.5))
                .map(|(s, _)| *s);
            let size = same.unwrap_or(size);
            if !merged.contains(&(size, italic)) {
                merged.push((size, italic));
            }
        }
        self.bold_styles = merged;
    }

    fn heading_level(&self, size: f32, bold: bool) -> Option<u8> {
        self.heading_level_styled(size, bold, false)
    }

    /// The level of a heading set at `size`, bold (or a lone italic line) and italic or not.
    fn heading_level_styled(&self, size: f32, bold: bool, italic: bool) -> Option<u8> {
        if size >= self.body_size * HEADING_RATIO {
            let rank = self
                .heading_sizes
                .iter()
                .position(|s| size >= s - (0.04 * s).max(0.5))
                .unwrap_or(self.heading_sizes.len().saturating_sub(1));
            return Some((rank + 1).min(3) as u8);
        }
        if bold && size >= self.body_size * 0.95 {
            let close = |s: f32| (size - s).abs() <= (0.04 * s).max(0.5);
            let below = self
                .bold_styles
                .iter()
                .position(|&(s, i)| close(s) && i == italic)
                .or_else(|| self.bold_styles.iter().position(|&(s, _)| close(s)))
                .unwrap_or(0);
            return Some((self.heading_sizes.len() + 1 + below).clamp(2, 3) as u8);
        }
        None
    }
}

/// A paragraph must be this much larger than the body text to be a heading by size.
const HEADING_RATIO: f32 = 1.12;
/// Display type: a number alone this much larger than the body text is a chapter number.
const DISPLAY_RATIO: f32 = 2.5;

/// A link area on the page.
#[derive(Debug, Clone)]
pub struct Link {
    pub rect: Rect,
    pub href: String,
}

/// What a group of lines turned out to be.
#[derive(Debug)]
enum Kind {
    Text,
    Item { ordered: bool, number: u64 },
}

#[derive(Debug)]
struct Para {
    lines: Vec<Line>,
    kind: Kind,
    /// The enumerator the paragraph starts with, when it is one of a sequence.
    enumerator: Option<Enumerator>,
}

/// How a line's leading number is written. Only `N.` becomes a Markdown ordered list (which
/// writes it back unchanged); `N)` and `(N)` start paragraphs of their own and keep their
/// characters, since the document model has no way to write them back faithfully.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delimiter {
    Period,
    Paren,
    Parens,
    /// A number alone, set apart from its text by a wide gap (a hanging list label).
    Bare,
}

/// How many lines below a numbered line its successor may be (items of several lines).
const LOOKAHEAD: usize = 16;
/// A gap this many ems wide after a list label is a hanging indent: the line is an item.
const HANGING_GAP: f32 = 0.7;
/// A bare number is a label only with a gap this many ems wide after it.
const BARE_GAP: f32 = 1.0;

/// The gap after a line's first word, in ems.
fn marker_gap(line: &Line) -> f32 {
    match (line.words.first(), line.words.get(1)) {
        (Some(a), Some(b)) => (b.rect.x0 - a.rect.x1) / a.size.max(b.size).max(1.0),
        _ => 0.0,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Enumerator {
    delimiter: Delimiter,
    number: u64,
}

/// Turns a page's regions into blocks, taking placed images and tables out of `objects`.
///
/// `carry` is the number the previous page's numbered list would go on with, when that page
/// ends in one ([`open_number`]): a list that runs over the page break keeps its numbering.
pub fn page_blocks(
    regions: Vec<Region>,
    style: &DocStyle,
    links: &[Link],
    objects: &mut [Option<Block>],
    carry: Option<u64>,
) -> Vec<Block> {
    let mut out = Vec::new();
    for (index, region) in regions.into_iter().enumerate() {
        let mut blocks = Vec::new();
        let carry = if index == 0 { carry } else { open_number(&out) };
        region_blocks(region, style, links, objects, &mut blocks, carry);
        join_continued(&mut out, blocks);
    }
    out
}

/// The number the numbered list that `blocks` end with would go on with.
pub fn open_number(blocks: &[Block]) -> Option<u64> {
    match blocks.last() {
        Some(Block::List(list)) if list.ordered => Some(list.start + list.items.len() as u64),
        _ => None,
    }
}

/// Appends `next` to `out`, joining what runs on from the end of `out` over a column or page
/// break: a paragraph to the paragraph or list item it continues (a line that carries on the
/// sentence of a list item at the top of the next column), and a list to the list it goes on
/// with (bullets after bullets, or the next number after a numbered list).
pub fn join_continued(out: &mut Vec<Block>, next: Vec<Block>) {
    let mut next = next.into_iter().peekable();
    while let Some(first) = next.next() {
        let Some(last) = out.last_mut() else {
            out.push(first);
            break;
        };
        match first {
            Block::Paragraph(cont) => match continued_text(last) {
                Some(prev) if runs_on(prev, &cont) => {
                    match prev.last_mut() {
                        Some(Inline::Text { text, .. }) => text.push(' '),
                        _ => prev.push(Inline::plain(" ")),
                    }
                    prev.extend(cont);
                    // A list item's text carried on: the list itself may go on after it.
                    if matches!(last, Block::List(_)) && matches!(next.peek(), Some(Block::List(_)))
                    {
                        continue;
                    }
                }
                _ => out.push(Block::Paragraph(cont)),
            },
            // A title broken over the column break (a browser breaks a heading where a word
            // processor keeps it with its text): a heading that ends the column and one of the
            // same level that starts the next, the first not ending a sentence, are one.
            Block::Heading { level, content } => match last {
                Block::Heading {
                    level: prev_level,
                    content: prev,
                } if *prev_level == level && !ends_on_stop(prev) => {
                    prev.push(Inline::plain(" "));
                    prev.extend(content);
                }
                _ => out.push(Block::Heading { level, content }),
            },
            Block::List(more) => match last {
                Block::List(list)
                    if list.ordered == more.ordered
                        && (!more.ordered
                            || more.start == list.start + list.items.len() as u64) =>
                {
                    list.items.extend(more.items);
                }
                _ => out.push(Block::List(more)),
            },
            first => out.push(first),
        }
        break;
    }
    out.extend(next);
}

/// Appends the blocks of the next page to `out`, the blocks of the page before: as
/// [`join_continued`], and a table that ends the page goes on with a table that starts the
/// next one when both have as many columns (a long table over a page break), the header
/// rows a browser or word processor repeats at the top of the page left out.
pub fn join_pages(out: &mut Vec<Block>, next: Vec<Block>) {
    let mut next = next.into_iter().peekable();
    if let (Some(Block::Table(prev)), Some(Block::Table(more))) = (out.last_mut(), next.peek()) {
        if width(prev) == width(more) && width(prev) >= 2 {
            let Some(Block::Table(more)) = next.next() else {
                unreachable!("peeked a table")
            };
            let repeated = prev.header_rows > 0
                && more.rows.len() >= prev.header_rows
                && (0..prev.header_rows).all(|i| same_row(&prev.rows[i], &more.rows[i]));
            let skip = if repeated { prev.header_rows } else { 0 };
            prev.rows.extend(more.rows.into_iter().skip(skip));
        }
    }
    join_continued(out, next.collect());
}

/// How many columns a table's widest row spans.
fn width(table: &quire_plugin_api::Table) -> u32 {
    table
        .rows
        .iter()
        .map(|r| r.iter().map(|c| c.colspan.max(1)).sum::<u32>())
        .max()
        .unwrap_or(0)
}

/// Whether two rows hold the same text, cell by cell.
fn same_row(a: &[quire_plugin_api::Cell], b: &[quire_plugin_api::Cell]) -> bool {
    let text = |c: &quire_plugin_api::Cell| {
        c.content
            .iter()
            .filter_map(|i| match i {
                Inline::Text { text, .. } => Some(text.trim()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| text(x) == text(y))
}

/// The paragraph text a block ends with that a paragraph after a column or page break may
/// carry on: the block itself, or a list's last item's (at any depth).
fn continued_text(block: &mut Block) -> Option<&mut Vec<Inline>> {
    match block {
        Block::Paragraph(text) => Some(text),
        Block::List(list) => continued_text(list.items.last_mut()?.blocks.last_mut()?),
        _ => None,
    }
}

/// The last character of a text's words.
fn last_char(text: &[Inline]) -> Option<char> {
    text.iter().rev().find_map(|i| match i {
        Inline::Text { text, .. } => text.trim_end().chars().next_back(),
        _ => None,
    })
}

/// Whether a text ends on a sentence's or a lead-in's last mark.
fn ends_on_stop(text: &[Inline]) -> bool {
    last_char(text).is_some_and(|c| matches!(c, '.' | '!' | '?' | ':' | ';'))
}

/// Whether a paragraph that starts with `next` continues `prev`: `prev` stops mid-sentence
/// (on a letter, digit or comma) and `next` starts with a lower-case letter.
fn runs_on(prev: &[Inline], next: &[Inline]) -> bool {
    let last = last_char(prev);
    let first = next.iter().find_map(|i| match i {
        Inline::Text { text, .. } => text.trim_start().chars().next(),
        _ => None,
    });
    matches!(last, Some(c) if c.is_alphanumeric() || c == ',')
        && first.is_some_and(char::is_lowercase)
}

fn region_blocks(
    region: Region,
    style: &DocStyle,
    links: &[Link],
    objects: &mut [Option<Block>],
    out: &mut Vec<Block>,
    carry: Option<u64>,
) {
    let lines: Vec<&Line> = region
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Line(l) => Some(l),
            Entry::Object { .. } => None,
        })
        .collect();
    let geometry = Geometry::of(&lines);
    let mut paras: Vec<Para> = Vec::new();
    let mut pending: Vec<Line> = Vec::new();
    // Lines to paragraphs, with tables set without rules (aligned columns) taken out first.
    let flush = |pending: &mut Vec<Line>, paras: &mut Vec<Para>, out: &mut Vec<Block>| {
        if pending.is_empty() {
            return;
        }
        let lines = std::mem::take(pending);
        let found = aligned::find(&lines);
        let mut lines = lines.into_iter().enumerate().peekable();
        for (range, table) in found {
            let before: Vec<Line> = std::iter::from_fn(|| lines.next_if(|(i, _)| *i < range.start))
                .map(|(_, l)| l)
                .collect();
            if !before.is_empty() {
                segment(before, &geometry, style, paras, carry);
            }
            emit(std::mem::take(paras), style, links, out);
            out.push(Block::Table(table));
            while lines.next_if(|(i, _)| *i < range.end).is_some() {}
        }
        let rest: Vec<Line> = lines.map(|(_, l)| l).collect();
        if !rest.is_empty() {
            segment(rest, &geometry, style, paras, carry);
        }
    };
    // An object whose height holds the start of the next line sits beside the text or under
    // it (a cover picture the title and selling points are printed over): it does not end
    // the paragraph it meets, and follows the text that runs alongside it.
    let alongside: Vec<bool> = (0..region.entries.len())
        .map(|i| match (&region.entries[i], region.entries.get(i + 1)) {
            (Entry::Object { rect, .. }, Some(Entry::Line(next))) => {
                next.rect.y0 < rect.y1 - 0.5 * next.size
            }
            _ => false,
        })
        .collect();
    let mut beside: Vec<usize> = Vec::new();
    let place = |beside: &mut Vec<usize>, objects: &mut [Option<Block>], out: &mut Vec<Block>| {
        for index in beside.drain(..) {
            if let Some(block) = objects.get_mut(index).and_then(Option::take) {
                out.push(block);
            }
        }
    };
    for (entry, alongside) in region.entries.into_iter().zip(alongside) {
        match entry {
            Entry::Line(l) => pending.push(l),
            Entry::Object { index, .. } if alongside => beside.push(index),
            Entry::Object { index, .. } => {
                flush(&mut pending, &mut paras, out);
                emit(std::mem::take(&mut paras), style, links, out);
                place(&mut beside, objects, out);
                if let Some(block) = objects.get_mut(index).and_then(Option::take) {
                    out.push(block);
                }
            }
        }
    }
    flush(&mut pending, &mut paras, out);
    emit(paras, style, links, out);
    place(&mut beside, objects, out);
}

/// Where a region's lines usually start and end, and how far apart they usually are.
struct Geometry {
    left: f32,
    right: f32,
    pitch: f32,
    /// The usual font size of the region's lines.
    size: f32,
}

impl Geometry {
    fn of(lines: &[&Line]) -> Geometry {
        let left = median(lines.iter().map(|l| l.rect.x0));
        let right = median(lines.iter().map(|l| l.rect.x1));
        let pitch = median(lines.windows(2).filter_map(|w| {
            let d = w[1].baseline - w[0].baseline;
            let size = w[0].size.max(w[1].size);
            (d > 0.0 && d < 2.5 * size && (w[0].size - w[1].size).abs() < 0.1 * size).then_some(d)
        }));
        let size = median(lines.iter().map(|l| l.size));
        Geometry {
            left,
            right,
            pitch,
            size,
        }
    }
}

/// Splits consecutive lines into paragraphs and list items.
///
/// `carry` is the number a numbered list that ends the region before would go on with: the
/// first numbered line of the region with that number, before any item of its own, is its
/// next item (a list that runs over a column or page break).
fn segment(
    lines: Vec<Line>,
    geo: &Geometry,
    style: &DocStyle,
    paras: &mut Vec<Para>,
    carry: Option<u64>,
) {
    let (lines, markers) = split_double_markers(lines);
    for (index, line) in lines.into_iter().enumerate() {
        let marker = markers[index];
        // A number starts an item only as the first of a sequence, the next in one, the one
        // before the next a few lines down (a list that continues the numbering of an earlier
        // one), or when a wide gap sets the text apart from it as a list does; so a line that
        // happens to begin with "(212)" or "2019." stays running text.
        let enumerator = marker.and_then(|m| match m {
            Marker::Bullet => None,
            Marker::Number(e) => {
                let next_of = |p: &Para| {
                    p.enumerator.is_some_and(|prev| {
                        prev.delimiter == e.delimiter && prev.number + 1 == e.number
                    })
                };
                // The item above, or the previous item of its own level across a nested
                // list in between (the items just above, back to the first that is not an
                // item, the nearest starting where this line starts).
                let em = line.size.max(1.0);
                let carried = e.delimiter == Delimiter::Period
                    && carry == Some(e.number)
                    && !paras.iter().any(|p| matches!(p.kind, Kind::Item { .. }));
                let follows = carried
                    || paras.last().is_some_and(next_of)
                    || paras
                        .iter()
                        .rev()
                        .take(LOOKAHEAD)
                        .take_while(|p| matches!(p.kind, Kind::Item { .. }))
                        .find(|p| {
                            p.lines
                                .first()
                                .is_some_and(|l| (l.rect.x0 - line.rect.x0).abs() < 0.5 * em)
                        })
                        .is_some_and(next_of);
                let next_below = markers[index + 1..]
                    .iter()
                    .take(LOOKAHEAD)
                    .any(|m| matches!(m, Some(Marker::Number(n)) if n.delimiter == e.delimiter && n.number == e.number + 1));
                // A marker alone on its line was split from a nested one by a hanging gap.
                let gap = if line.words.len() == 1 {
                    f32::INFINITY
                } else {
                    marker_gap(&line)
                };
                let hanging = gap >= HANGING_GAP;
                let bare_ok = e.delimiter != Delimiter::Bare || gap >= BARE_GAP;
                (bare_ok && (e.number <= 1 || follows || next_below || hanging)).then_some(e)
            }
        });
        // "2. Methods" set larger or bold on a line of its own is a numbered section title,
        // not a list item: the heading test decides, and the number stays in the text.
        let enumerator = enumerator.filter(|_| !looks_like_section_title(&line, style));
        let starts_item = matches!(marker, Some(Marker::Bullet)) || enumerator.is_some();
        let breaks = match paras.last() {
            None => true,
            Some(p) => {
                let prev = p.lines.last().map(|l| (l, p));
                match prev {
                    None => true,
                    Some((prev, para)) => starts_item || starts_new(prev, &line, para, geo),
                }
            }
        };
        if breaks {
            let kind = match (marker, enumerator) {
                (Some(Marker::Bullet), _) => Kind::Item {
                    ordered: false,
                    number: 1,
                },
                (_, Some(e)) if matches!(e.delimiter, Delimiter::Period | Delimiter::Bare) => {
                    Kind::Item {
                        ordered: true,
                        number: e.number,
                    }
                }
                _ => Kind::Text,
            };
            paras.push(Para {
                lines: vec![line],
                kind,
                enumerator,
            });
        } else if let Some(p) = paras.last_mut() {
            p.lines.push(line);
        }
    }
}

/// Each line with its list marker. A line that starts with two markers, each set apart by a
/// hanging gap ("9   1   Text", an item whose content begins with a nested list), becomes two:
/// the outer marker alone, an item of its own, and the nested item.
fn split_double_markers(lines: Vec<Line>) -> (Vec<Line>, Vec<Option<Marker>>) {
    let mut out_lines = Vec::with_capacity(lines.len());
    let mut markers = Vec::with_capacity(lines.len());
    for line in lines {
        let outer = list_marker(&line);
        if outer.is_some() && line.words.len() >= 3 && marker_gap(&line) >= HANGING_GAP {
            let mut words = line.words.clone();
            let rest_words = words.split_off(1);
            let rest = line_of(rest_words, &line);
            let inner = list_marker(&rest);
            let hangs = matches!(inner, Some(Marker::Bullet)) || marker_gap(&rest) >= HANGING_GAP;
            if inner.is_some() && hangs {
                out_lines.push(line_of(words, &line));
                markers.push(outer);
                out_lines.push(rest);
                markers.push(inner);
                continue;
            }
        }
        out_lines.push(line);
        markers.push(outer);
    }
    (out_lines, markers)
}

/// A line made of some of `like`'s words, on its baseline.
fn line_of(words: Vec<Word>, like: &Line) -> Line {
    let rect = words
        .iter()
        .skip(1)
        .fold(words.first().map_or(like.rect, |w| w.rect), |r, w| {
            r.union(&w.rect)
        });
    Line {
        words,
        rect,
        baseline: like.baseline,
        size: like.size,
        bold: like.bold,
        italic: like.italic,
    }
}

fn starts_new(prev: &Line, line: &Line, para: &Para, geo: &Geometry) -> bool {
    let size = prev.size.max(line.size).max(1.0);
    // A change of size or of weight for the whole line (a heading and its text).
    if (prev.size - line.size).abs() > 0.12 * size
        || prev.bold != line.bold
        || (prev.italic != line.italic && (prev.words.len() <= 12 || line.words.len() <= 12))
    {
        return true;
    }
    let pitch = line.baseline - prev.baseline;
    // Lines larger than the region's text (a title over two lines) have their own leading.
    let usual = if geo.pitch > 0.0 && line.size <= 1.1 * geo.size {
        geo.pitch
    } else {
        1.2 * size
    };
    if pitch > usual * 1.35 + 0.5 || pitch < -0.5 * size {
        return true;
    }
    if let Kind::Item { .. } = para.kind {
        // A list item continues with lines indented past its marker.
        let first = &para.lines[0];
        let text_x = first.words.get(1).map_or(first.rect.x0, |w| w.rect.x0);
        let under_marker =
            line.rect.x0 < text_x - 0.5 * size && line.rect.x0 < first.rect.x0 + 0.5 * size;
        // ... or, in a list whose markers are set inline (no hanging indent), with lines back
        // under the marker that the previous line had no room for.
        let inline_wrap = line.rect.x0 > first.rect.x0 - 0.5 * size && wrapped(prev, line, geo);
        return under_marker && !inline_wrap;
    }
    // A first-line indent.
    let indented = |l: &Line| l.rect.x0 > geo.left + 0.8 * size;
    let modest = line.rect.x0 < geo.left + 6.0 * size && line.size <= 1.1 * geo.size;
    if indented(line) && modest && !indented(prev) && line.rect.x1 > geo.right - 2.0 * size {
        return true;
    }
    // The previous line ended a sentence well before the right edge.
    // (A section number that opens the paragraph alone on its line, "6." or "2.1." over a
    // title too long to follow it, ends none.)
    let label = para.lines.len() == 1
        && prev.words.len() == 1
        && prev.words[0].text.ends_with('.')
        && section_number(&prev.words[0].text).is_some();
    let ends_sentence = !label
        && prev
            .words
            .last()
            .is_some_and(|w| w.text.ends_with(['.', '!', '?', ':']));
    ends_sentence && prev.rect.x1 < geo.right - 4.0 * size
}

/// Whether `line` continues `prev` because its first word did not fit at the end of `prev`:
/// `prev` plus a space and that word would pass the region's right edge.
fn wrapped(prev: &Line, line: &Line, geo: &Geometry) -> bool {
    let Some(first) = line.words.first() else {
        return false;
    };
    let size = prev.size.max(1.0);
    prev.rect.x1 + 0.2 * size + (first.rect.x1 - first.rect.x0) > geo.right - 0.3 * size
}

/// A numbered line set apart like a title: larger than the body or bold throughout, short,
/// and not a sentence.
fn looks_like_section_title(line: &Line, style: &DocStyle) -> bool {
    let prominent = line.size >= style.body_size * HEADING_RATIO || line.bold;
    let text = line.text();
    prominent && line.words.len() <= 12 && !text.ends_with(['.', ',', ';', ':'])
}

/// A figure or table caption ("Figure 3:", "Fig. 2.", "Table 1.", "Listing 4 -"): never a
/// heading, however it is set.
fn is_caption(text: &str) -> bool {
    const LABELS: [&str; 10] = [
        "figure",
        "fig.",
        "table",
        "tab.",
        "listing",
        "chart",
        "exhibit",
        "scheme",
        "plate",
        "algorithm",
    ];
    let mut words = text.split_whitespace();
    let (Some(label), Some(number)) = (words.next(), words.next()) else {
        return false;
    };
    let label = label.to_lowercase();
    let number = number.trim_end_matches(['.', ':', '-', '\u{2013}', '\u{2014}']);
    LABELS.contains(&label.as_str())
        && !number.is_empty()
        && number
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || matches!(c, 'I' | 'V' | 'X' | 'A'..='H'))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Bullet,
    Number(Enumerator),
}

/// The marker a line starts with, when it is followed by text: a bullet glyph, or a number
/// written `N.`, `N)` or `(N)`.
fn list_marker(line: &Line) -> Option<Marker> {
    if line.words.len() < 2 {
        return None;
    }
    word_marker(&line.words[0].text)
}

/// The list marker a word is, if it is one.
fn word_marker(first: &str) -> Option<Marker> {
    if is_bullet(first) {
        return Some(Marker::Bullet);
    }
    let (body, delimiter) = if let Some(b) = first.strip_suffix('.') {
        (b, Delimiter::Period)
    } else if let Some(b) = first.strip_prefix('(').and_then(|b| b.strip_suffix(')')) {
        (b, Delimiter::Parens)
    } else if let Some(b) = first.strip_suffix(')') {
        (b, Delimiter::Paren)
    } else {
        (first, Delimiter::Bare)
    };
    if !body.is_empty() && body.len() <= 3 && body.chars().all(|c| c.is_ascii_digit()) {
        let number = body.parse().ok()?;
        return Some(Marker::Number(Enumerator { delimiter, number }));
    }
    None
}

pub(crate) fn is_bullet(s: &str) -> bool {
    let mut chars = s.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return false;
    };
    matches!(
        c,
        '•' | '●'
            | '○'
            | '◦'
            | '▪'
            | '■'
            | '□'
            | '◆'
            | '◇'
            | '➢'
            | '►'
            | '▶'
            | '–'
            | '—'
            | '-'
            | '*'
            | '·'
            | '∙'
            | '✓'
            | '✔'
            | '❖'
            | '\u{f0b7}'
            | '\u{f0a7}'
            | '\u{f076}'
            | '\u{f0d8}'
    )
}

/// Turns paragraphs into blocks; consecutive list items become one list, and items whose
/// markers stand at least an em to the right of the previous item's become a list nested in it.
fn emit(paras: Vec<Para>, style: &DocStyle, links: &[Link], out: &mut Vec<Block>) {
    let mut lists = Nesting::default();
    let labels = figure_labels(&paras, style);
    let labels: Vec<bool> = labels
        .into_iter()
        .zip(like_next_text(&paras, style))
        .map(|(a, b)| a || b)
        .collect();
    let labels = phrase_runs(&paras, style, labels);
    for (para, is_label) in paras.into_iter().zip(labels) {
        match para.kind {
            Kind::Item { ordered, number } => {
                let x = para.lines.first().map_or(0.0, |l| l.rect.x0);
                let em = para
                    .lines
                    .first()
                    .map_or(style.body_size, |l| l.size)
                    .max(1.0);
                let mut words = join_lines(para.lines);
                if !words.is_empty() {
                    words.remove(0);
                }
                let blocks = if words.is_empty() {
                    Vec::new()
                } else {
                    vec![Block::Paragraph(inlines(words, links))]
                };
                let item = ListItem {
                    blocks,
                    checked: None,
                };
                lists.push(x, em, ordered, number, item, out);
            }
            Kind::Text => {
                lists.close(out);
                let level = heading(&para, style).filter(|_| !is_label);
                let label = level.and_then(|_| hanging_label(&para.lines));
                let words = join_lines(para.lines);
                if words.is_empty() {
                    continue;
                }
                match level {
                    Some(level) => {
                        let mut words = words;
                        if let Some(n) = label {
                            let rest = words.split_off(n);
                            out.push(Block::Paragraph(inlines(words, links)));
                            words = rest;
                        }
                        let text = join_words(&words);
                        out.push(Block::Heading {
                            level,
                            content: vec![Inline::plain(text)],
                        });
                    }
                    None => match run_in_heading(&words) {
                        Some(n) => {
                            let mut words = words;
                            let rest = words.split_off(n);
                            let size = median(words.iter().map(|w| w.size));
                            out.push(Block::Heading {
                                level: style.heading_level(size, true).unwrap_or(3),
                                content: vec![Inline::plain(join_words(&words))],
                            });
                            out.push(Block::Paragraph(inlines(rest, links)));
                        }
                        None => out.push(Block::Paragraph(inlines(words, links))),
                    },
                }
            }
        }
    }
    lists.close(out);
}

/// The lists open at a point of the page, outermost first, each with its markers' x.
#[derive(Default)]
struct Nesting {
    open: Vec<(f32, List)>,
}

impl Nesting {
    fn push(
        &mut self,
        x: f32,
        em: f32,
        ordered: bool,
        number: u64,
        item: ListItem,
        out: &mut Vec<Block>,
    ) {
        // Close the lists whose markers stand right of this one.
        while self.open.last().is_some_and(|(lx, _)| x < lx - em) {
            self.pop(out);
        }
        match self.open.last_mut() {
            Some((lx, list)) if x <= *lx + em => {
                if list.ordered == ordered {
                    list.items.push(item);
                    return;
                }
                // Another kind of list at the same level: a sibling list.
                self.pop(out);
            }
            _ => {}
        }
        self.open.push((
            x,
            List {
                ordered,
                start: number,
                items: vec![item],
            },
        ));
    }

    /// Closes the innermost list: into its parent's last item, or out.
    fn pop(&mut self, out: &mut Vec<Block>) {
        let Some((_, list)) = self.open.pop() else {
            return;
        };
        match self
            .open
            .last_mut()
            .and_then(|(_, parent)| parent.items.last_mut())
        {
            Some(parent) => parent.blocks.push(Block::List(list)),
            None => out.push(Block::List(list)),
        }
    }

    fn close(&mut self, out: &mut Vec<Block>) {
        while !self.open.is_empty() {
            self.pop(out);
        }
    }
}

/// How many parts a section number has ("2" 1, "2.1" 2, "2.1.3." 3); parts are one to three
/// digits, and a final period is allowed.
pub(crate) fn section_number(word: &str) -> Option<usize> {
    let number = word.strip_suffix('.').unwrap_or(word);
    let parts = number.split('.');
    parts
        .clone()
        .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
        .then(|| parts.count())
}

/// A row of three or more cells set apart by column-wide gaps (a table's header row left
/// alone at the foot of a page): no title however bold, nor text a title is set like.
fn cell_row(para: &Para) -> bool {
    para.lines.iter().any(|l| {
        let em = l.size.max(1.0);
        l.words
            .windows(2)
            .filter(|w| w[1].rect.x0 - w[0].rect.x1 > 2.5 * em)
            .count()
            >= 2
    })
}

/// The heading level of a paragraph, if it is one.
fn heading(para: &Para, style: &DocStyle) -> Option<u8> {
    let words: usize = para.lines.iter().map(|l| l.words.len()).sum();
    // Three lines at most, or up to six in a narrow column that breaks a title of long words
    // after every word or two.
    if para.lines.len() > 3 && (para.lines.len() > 6 || words * 2 > para.lines.len() * 5) {
        return None;
    }
    let text: String = para
        .lines
        .iter()
        .map(Line::text)
        .collect::<Vec<_>>()
        .join(" ");
    // A caption, a lead-in that ends on a colon ("For more information:"), or a web or mail
    // address is never a section title, however it is set.
    if is_caption(&text)
        || text.ends_with(':')
        || (words <= 3 && text.split_whitespace().any(is_address))
    {
        return None;
    }
    let size = median(para.lines.iter().map(|l| l.size));
    if cell_row(para) {
        return None;
    }
    // A chapter number set alone in display type ("1" at 40 pt over "Chapter 1. Title"): the
    // label that opens a chapter, a heading of its own though it has no letters.
    if para.lines.len() == 1 && words == 1 && size >= DISPLAY_RATIO * style.body_size {
        let t = text.trim();
        if (1..=2).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()) {
            return style.heading_level(size, true);
        }
    }
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if words == 0
        || words > 25
        || letters < 2
        || letters * 2 < text.chars().filter(|c| !c.is_whitespace()).count()
    {
        return None;
    }
    // A whole line in bold, or a lone line in italic (run-in headings of manuals).
    let bold = para.lines.iter().all(|l| l.bold)
        || (para.lines.len() == 1 && para.lines[0].italic && words >= 2);
    let italic = para.lines.iter().all(|l| l.italic);
    if size < style.body_size * HEADING_RATIO {
        // Bold text at body size is a heading only when short, alone on its line(s) and not
        // a sentence or a label.
        let capital = text.chars().next().is_some_and(|c| {
            c.is_uppercase() || c.is_numeric() || !c.is_lowercase() && c.is_alphabetic() || c == '('
        });
        if !bold
            || !capital
            || para.lines.len() > 2
            || words > 12
            || text.ends_with(['.', ',', ':', ';'])
        {
            return None;
        }
    }
    style.heading_level_styled(size, bold, italic)
}

/// Which paragraphs are the labels of a diagram rather than headings: short paragraphs that
/// alternate with text set smaller than the body ("CREATE PERMISSION <name>", its explanation
/// in small type, "ON <table>", its explanation, ...). A section heading heads text at the
/// body size; a label set like the one two paragraphs before or after it, each over small
/// text, is one of a figure's callouts. (A lone heading over small text, as "Abstract" over
/// an abstract set smaller, stays a heading.)
fn figure_labels(paras: &[Para], style: &DocStyle) -> Vec<bool> {
    let size = |p: &Para| median(p.lines.iter().map(|l| l.size));
    let small = |p: Option<&Para>| {
        p.is_some_and(|p| matches!(p.kind, Kind::Text) && size(p) < 0.95 * style.body_size)
    };
    // Labels of one figure are set at one size; some may be bold (keywords) and some not.
    let alike = |a: &Para, b: Option<&Para>| {
        b.is_some_and(|b| {
            matches!(b.kind, Kind::Text)
                && b.lines.len() <= 3
                && (size(a) - size(b)).abs() <= 0.05 * size(a)
        })
    };
    (0..paras.len())
        .map(|i| {
            let p = &paras[i];
            let at = |j: Option<usize>| j.and_then(|j| paras.get(j));
            // Another label one or two explanations after or before this one.
            let after = (alike(p, at(Some(i + 2))) && small(at(Some(i + 3))))
                || (small(at(Some(i + 2))) && alike(p, at(Some(i + 3))) && small(at(Some(i + 4))));
            let before = (alike(p, at(i.checked_sub(2))) && small(at(i.checked_sub(1))))
                || (alike(p, at(i.checked_sub(3))) && small(at(i.checked_sub(2))));
            matches!(p.kind, Kind::Text)
                && p.lines.len() <= 3
                && !small(Some(p))
                && small(at(Some(i + 1)))
                && (after || before)
        })
        .collect()
}

/// Which paragraphs are set like the text right after them: a heading stands apart from the
/// text it heads by its size, its weight or its slant. A line larger than the document's body but the
/// size and weight of the list or paragraph under it (the lead-in of a slide's list, a page
/// set larger throughout) is text of that page, not a heading.
fn like_next_text(paras: &[Para], style: &DocStyle) -> Vec<bool> {
    let size = |p: &Para| median(p.lines.iter().map(|l| l.size));
    let face = |p: &Para| {
        (
            p.lines.iter().all(|l| l.bold),
            p.lines.iter().all(|l| l.italic),
        )
    };
    (0..paras.len())
        .map(|i| {
            let (p, Some(next)) = (&paras[i], paras.get(i + 1)) else {
                return false;
            };
            let body = match next.kind {
                Kind::Item { .. } => true,
                Kind::Text => heading(next, style).is_none() && !cell_row(next),
            };
            matches!(p.kind, Kind::Text)
                && body
                && (size(p) - size(next)).abs() <= 0.05 * size(p)
                && face(p) == face(next)
        })
        .collect()
}

/// Adds to `labels` the paragraphs of runs of three or more that would each be a heading of
/// one size and face with no text between them: a heading heads text, and a stack of
/// prominent phrases (the selling points on a cover, a sidebar's key lines) heads none.
fn phrase_runs(paras: &[Para], style: &DocStyle, labels: Vec<bool>) -> Vec<bool> {
    let size = |p: &Para| median(p.lines.iter().map(|l| l.size));
    let face = |p: &Para| {
        (
            p.lines.iter().all(|l| l.bold),
            p.lines.iter().all(|l| l.italic),
        )
    };
    let candidate: Vec<bool> = paras
        .iter()
        .zip(&labels)
        .map(|(p, &label)| !label && matches!(p.kind, Kind::Text) && heading(p, style).is_some())
        .collect();
    let mut out = labels;
    let mut i = 0;
    while i < paras.len() {
        if !candidate[i] {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < paras.len()
            && candidate[j]
            && (size(&paras[j]) - size(&paras[i])).abs() <= 0.05 * size(&paras[i])
            && face(&paras[j]) == face(&paras[i])
        {
            j += 1;
        }
        if j - i >= 3 {
            out[i..j].iter_mut().for_each(|l| *l = true);
        }
        i = j;
    }
    out
}

/// A label that hangs left of a title of several lines ("Chapter 1.", "Part II",
/// "Appendix A" set apart by a wide gap, the title's later lines starting under the title's
/// first word, not under the label): a line of its own, not part of the title. Returns how
/// many words the label has. A bare section number ("3.1") stays with its title.
fn hanging_label(lines: &[Line]) -> Option<usize> {
    let (first, rest) = lines.split_first()?;
    let next = rest.first()?;
    let size = first.size.max(1.0);
    let n = (1..first.words.len().min(4)).find(|&k| {
        // An em of the label's own type, often smaller than the title's.
        first.words[k].rect.x0 - first.words[k - 1].rect.x1 >= first.words[k - 1].size.max(1.0)
    })?;
    let label = &first.words[..n];
    let worded = label
        .iter()
        .any(|w| w.text.chars().filter(|c| c.is_alphabetic()).count() >= 3);
    let counted = label.len() >= 2
        && label.last().is_some_and(|w| {
            let t = w.text.trim_end_matches(['.', ':']);
            !t.is_empty()
                && t.len() <= 4
                && t.chars()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
        });
    let hangs = (next.rect.x0 - first.words[n].rect.x0).abs() <= 0.5 * size
        && next.rect.x0 > first.rect.x0 + 1.0 * size;
    (worded && counted && hangs).then_some(n)
}

/// A web or mail address written out ("ibm.com/redbooks", "www.example.org",
/// "help@example.org"): a dot between letters and a slash or an at sign, or a leading "www.".
fn is_address(word: &str) -> bool {
    let dotted = word
        .as_bytes()
        .windows(3)
        .any(|w| w[0].is_ascii_alphanumeric() && w[1] == b'.' && w[2].is_ascii_alphabetic());
    dotted && (word.contains('/') || word.contains('@') || word.to_lowercase().starts_with("www."))
}

/// A run-in heading: a paragraph that opens with a section number and a short title in bold,
/// the text following on the same line in regular type ("**5.1 Hyper Parameter
/// Optimization** We have chosen ..."), as Springer's LNCS and many report styles set their
/// lower levels. Returns how many words the heading has.
fn run_in_heading(words: &[Word]) -> Option<usize> {
    let n = words.iter().take_while(|w| w.bold).count();
    let number = words.first()?.text.trim_end_matches('.');
    let numbered = !number.is_empty()
        && number
            .split('.')
            .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()));
    let title = &words[1.min(n)..n];
    let titled = title
        .first()
        .is_some_and(|w| w.text.starts_with(char::is_uppercase))
        && !title
            .last()
            .is_some_and(|w| w.text.ends_with([',', ';', ':']));
    (numbered && titled && n <= 12 && words.len() >= n + 3).then_some(n)
}

/// The words of consecutive lines, with a word broken over a line end ("infor-" +
/// "mation") rejoined.
fn join_lines(lines: Vec<Line>) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    for line in lines {
        let mut words = line.words.into_iter();
        if let Some(mut first) = words.next() {
            let joined = match out.last_mut() {
                Some(prev)
                    if (prev.text.ends_with('-') || prev.text.ends_with('\u{ad}'))
                        && prev.text.chars().count() > 1
                        && starts_lower(&first.text) =>
                {
                    prev.text.pop();
                    prev.text.push_str(&first.text);
                    prev.rect = prev.rect.union(&first.rect);
                    true
                }
                _ => false,
            };
            if !joined {
                first.space_before = true;
                out.push(first);
            }
        }
        out.extend(words);
    }
    out
}

fn join_words(words: &[Word]) -> String {
    let mut s = String::new();
    push_words(&mut s, words);
    s
}

/// Appends words to a string: spaces between them, soft hyphens dropped.
fn push_words(s: &mut String, words: &[Word]) {
    for w in words {
        if !s.is_empty() && w.space_before {
            s.push(' ');
        }
        if w.text.contains('\u{ad}') {
            s.extend(w.text.chars().filter(|c| *c != '\u{ad}'));
        } else {
            s.push_str(&w.text);
        }
    }
}

fn starts_lower(text: &str) -> bool {
    text.chars().next().is_some_and(|c| c.is_lowercase())
}

/// Builds inlines from words: links where a word's centre lies in a link area, bold and
/// italic where whole words are.
fn inlines(words: Vec<Word>, links: &[Link]) -> Vec<Inline> {
    let mut out: Vec<Inline> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let href = link_of(&words[i], links);
        let style = word_style(&words[i]);
        let mut j = i + 1;
        while j < words.len() && link_of(&words[j], links) == href && word_style(&words[j]) == style
        {
            j += 1;
        }
        let mut text = String::new();
        push_words(&mut text, &words[i..j]);
        if i > 0 && words[i].space_before {
            text.insert(0, ' ');
        }
        let run = if style == Style::PLAIN {
            Inline::plain(text)
        } else {
            // Keep the separating space outside the emphasis.
            let trimmed = text.trim_start().to_string();
            if trimmed.len() != text.len() {
                append(&mut out, Inline::plain(" "));
            }
            Inline::styled(trimmed, style)
        };
        match href {
            Some(h) => out.push(Inline::link(h.to_string(), None, vec![run])),
            None => append(&mut out, run),
        }
        i = j;
    }
    out
}

fn append(out: &mut Vec<Inline>, run: Inline) {
    if let (Some(Inline::Text { text: a, style: sa }), Inline::Text { text: b, style: sb }) =
        (out.last_mut(), &run)
    {
        if sa == sb {
            a.push_str(b);
            return;
        }
    }
    out.push(run);
}

fn word_style(w: &Word) -> Style {
    Style {
        bold: w.bold,
        italic: w.italic,
        strike: false,
    }
}

fn link_of<'a>(w: &Word, links: &'a [Link]) -> Option<&'a str> {
    let (cx, cy) = ((w.rect.x0 + w.rect.x1) / 2.0, w.rect.center_y());
    links
        .iter()
        .find(|l| l.rect.contains_point(cx, cy))
        .map(|l| l.href.as_str())
}

#[cfg(test)]
mod style_tests {
    use super::DocStyle;

    #[test]
    fn heading_sizes_a_point_apart_are_levels_of_their_own() {
        // Word's default headings: 14, 13 and 12 points over an 11-point body.
        let hist = [(22u32, 5000usize), (28, 60), (26, 120), (24, 90)]
            .into_iter()
            .collect();
        let style = DocStyle::from_histogram(&hist);
        // 12 points is too close to the body to count by size; bold, it is the third level.
        assert_eq!(style.heading_sizes, vec![14.0, 13.0]);
        assert_eq!(style.heading_level(14.0, true), Some(1));
        assert_eq!(style.heading_level(13.0, true), Some(2));
        assert_eq!(style.heading_level(12.0, true), Some(3));
    }

    /// A run at `y`, every word set at `size`, bold and italic as given.
    fn styled(y: f32, size: f32, bold: bool, italic: bool, text: &str) -> crate::layout::Item {
        let mut item = crate::testkit::run(72.0, y, text, 5.0);
        if let crate::layout::Item::Run(r) = &mut item {
            r.size = size;
            for w in &mut r.words {
                w.size = size;
                w.bold = bold;
                w.italic = italic;
            }
        }
        item
    }

    #[test]
    fn bold_lines_below_the_heading_sizes_rank_by_size_then_slant() {
        // Word's Heading 2 and 3 at 13 and 12 points over a 12-point body, Heading 1 at 14.
        let mut style = DocStyle {
            body_size: 12.0,
            heading_sizes: vec![14.0],
            bold_styles: Vec::new(),
        };
        let page = [
            styled(0.0, 13.0, true, false, "Second Level"),
            styled(20.0, 12.0, false, false, "body text of the section goes on"),
            styled(40.0, 12.0, true, false, "Third Level"),
            styled(60.0, 13.0, true, false, "Another Second"),
            styled(80.0, 12.0, true, false, "Another Third"),
        ];
        style.learn_bold_lines(std::iter::once(&page[..]));
        assert_eq!(style.bold_styles, vec![(13.0, false), (12.0, false)]);
        assert_eq!(style.heading_level_styled(13.0, true, false), Some(2));
        assert_eq!(style.heading_level_styled(12.0, true, false), Some(3));
        // Bold and bold italic at the body size (APA's levels 2 and 3).
        let mut style = DocStyle {
            body_size: 11.0,
            heading_sizes: vec![17.5],
            bold_styles: Vec::new(),
        };
        let page = [
            styled(0.0, 11.0, true, false, "Bold Level"),
            styled(20.0, 11.0, true, true, "Bold Italic Level"),
            styled(40.0, 11.0, true, false, "Bold Again"),
            styled(60.0, 11.0, true, true, "Italic Again"),
        ];
        style.learn_bold_lines(std::iter::once(&page[..]));
        assert_eq!(style.heading_level_styled(11.0, true, false), Some(2));
        assert_eq!(style.heading_level_styled(11.0, true, true), Some(3));
        // With no such lines learnt, bold at the body size is the level under the sizes.
        style.bold_styles.clear();
        assert_eq!(style.heading_level_styled(11.0, true, true), Some(2));
    }
}

#[cfg(test)]
mod heading_tests {
    use super::{page_blocks, DocStyle};
    use crate::geom::Rect;
    use crate::layout::{Entry, Line, Region, Word};
    use quire_plugin_api::{Block, Inline};

    /// A line at `y` (top) set at `size`, 0.5 em a character and 0.3 em between words.
    fn line(y: f32, size: f32, bold: bool, text: &str) -> Line {
        let mut words = Vec::new();
        let mut x = 72.0;
        for t in text.split_whitespace() {
            let w = 0.5 * size * t.chars().count() as f32;
            words.push(Word {
                text: t.to_string(),
                rect: Rect::new(x, y, x + w, y + size),
                size,
                bold,
                italic: false,
                space_before: true,
            });
            x += w + 0.3 * size;
        }
        Line {
            rect: Rect::new(72.0, y, x - 0.3 * size, y + size),
            words,
            baseline: y + 0.8 * size,
            size,
            bold,
            italic: false,
        }
    }

    /// A page style of 10-point body text and 16-point headings.
    fn body_10_heading_16() -> DocStyle {
        DocStyle {
            body_size: 10.0,
            heading_sizes: vec![16.0],
            bold_styles: Vec::new(),
        }
    }

    /// Lines spaced apart like paragraphs of their own, as `(size, bold, text)`.
    fn blocks(lines: &[(f32, bool, &str)]) -> Vec<Block> {
        let mut y = 72.0;
        let entries = lines
            .iter()
            .map(|(size, bold, text)| {
                let l = line(y, *size, *bold, text);
                y += 3.0 * size;
                Entry::Line(l)
            })
            .collect();
        let style = body_10_heading_16();
        page_blocks(vec![Region { entries }], &style, &[], &mut [], None)
    }

    #[test]
    fn a_list_that_runs_over_a_column_break_stays_one_list() {
        // The second item's sentence carries on at the top of the next column, then the
        // third item follows there.
        let region = |texts: &[&str]| Region {
            entries: texts
                .iter()
                .enumerate()
                .map(|(k, t)| Entry::Line(line(72.0 + 12.0 * k as f32, 10.0, false, t)))
                .collect(),
        };
        let style = body_10_heading_16();
        let b = page_blocks(
            vec![
                region(&["1. First item of the list", "2. Second item that carries"]),
                region(&[
                    "on past the column break",
                    "3. Third item in the next column",
                ]),
            ],
            &style,
            &[],
            &mut [],
            None,
        );
        let [Block::List(list)] = b.as_slice() else {
            panic!("{b:#?}")
        };
        assert!(list.ordered);
        assert_eq!(list.start, 1);
        let texts: Vec<String> = list
            .items
            .iter()
            .map(|i| match i.blocks.as_slice() {
                [Block::Paragraph(p)] => p
                    .iter()
                    .map(|x| match x {
                        Inline::Text { text, .. } => text.as_str(),
                        _ => "",
                    })
                    .collect(),
                other => panic!("{other:#?}"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "First item of the list",
                "Second item that carries on past the column break",
                "Third item in the next column"
            ]
        );
    }

    #[test]
    fn a_title_broken_over_lines_and_a_column_break_is_one_heading() {
        // A narrow column breaks a numbered title after its number and after every long
        // word, and the browser carries its end over to the next column.
        let region = |lines: &[(f32, bool, &str)]| {
            let mut y = 72.0;
            Region {
                entries: lines
                    .iter()
                    .map(|(size, bold, text)| {
                        let l = line(y, *size, *bold, text);
                        y += 1.2 * size;
                        Entry::Line(l)
                    })
                    .collect(),
            }
        };
        let style = body_10_heading_16();
        let b = page_blocks(
            vec![
                region(&[
                    (16.0, true, "2."),
                    (16.0, true, "Chithe So"),
                    (16.0, true, "Milplengtron"),
                    (16.0, true, "Gou"),
                    (16.0, true, "Weasbrutchiem"),
                ]),
                region(&[(10.0, false, "Text of the second section.")]),
                region(&[(16.0, true, "6."), (16.0, true, "Houndnouchoun Dries")]),
                region(&[
                    (16.0, true, "Ciockgear Spemtior"),
                    (10.0, false, "Text of the sixth section."),
                ]),
            ],
            &style,
            &[],
            &mut [],
            None,
        );
        assert_eq!(
            headings(&b),
            [
                "2. Chithe So Milplengtron Gou Weasbrutchiem",
                "6. Houndnouchoun Dries Ciockgear Spemtior"
            ],
            "{b:#?}"
        );
        assert_eq!(b.len(), 4, "{b:#?}");
    }

    #[test]
    fn a_row_of_cells_is_no_heading_and_leaves_the_heading_above_it() {
        // A bold section title, then a table's bold header row left alone at the foot of the
        // page: its three cells stand a column apart.
        let mut row = line(130.0, 10.0, true, "Name Kind Count");
        for (k, w) in row.words.iter_mut().enumerate() {
            let shift = 80.0 * k as f32;
            w.rect = Rect::new(w.rect.x0 + shift, w.rect.y0, w.rect.x1 + shift, w.rect.y1);
        }
        row.rect.x1 = row.words[2].rect.x1;
        let region = Region {
            entries: vec![
                Entry::Line(line(
                    72.0,
                    10.0,
                    false,
                    "Text of the section before it ends.",
                )),
                Entry::Line(line(96.0, 10.0, true, "6. Results Section")),
                Entry::Line(row),
            ],
        };
        let style = body_10_heading_16();
        let b = page_blocks(vec![region], &style, &[], &mut [], None);
        assert_eq!(headings(&b), ["6. Results Section"], "{b:#?}");
    }

    #[test]
    fn a_table_over_a_page_break_is_one_table() {
        use quire_plugin_api::{Cell, Table};
        let table = |rows: &[[&str; 3]], header_rows: usize| {
            Block::Table(Table {
                header_rows,
                rows: rows
                    .iter()
                    .map(|r| r.iter().map(|t| Cell::text(*t)).collect())
                    .collect(),
            })
        };
        let mut page = vec![
            Block::text("Before."),
            table(&[["Name", "Kind", "Count"], ["Alpha", "Red", "12"]], 1),
        ];
        // The next page repeats the header row, then goes on; a paragraph follows.
        super::join_pages(
            &mut page,
            vec![
                table(&[["Name", "Kind", "Count"], ["Beta", "Blue", "7"]], 1),
                Block::text("After."),
            ],
        );
        assert_eq!(page.len(), 3, "{page:#?}");
        let Block::Table(t) = &page[1] else {
            panic!("{page:#?}")
        };
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[2][0], Cell::text("Beta"));
        // A table of another width is a table of its own.
        let mut page = vec![table(&[["A", "B", "C"], ["1", "2", "3"]], 1)];
        super::join_pages(
            &mut page,
            vec![Block::Table(Table {
                header_rows: 0,
                rows: vec![vec![Cell::text("x"), Cell::text("y")]],
            })],
        );
        assert_eq!(page.len(), 2);
    }

    fn headings(blocks: &[Block]) -> Vec<String> {
        blocks
            .iter()
            .filter_map(|b| match b {
                Block::Heading { content, .. } => Some(
                    content
                        .iter()
                        .map(|i| match i {
                            Inline::Text { text, .. } => text.as_str(),
                            _ => "",
                        })
                        .collect(),
                ),
                _ => None,
            })
            .collect()
    }

    const BODY: &str = "Body text of the section runs on at the body size for a while here.";

    #[test]
    fn labels_alternating_with_small_text_are_a_figure_not_headings() {
        // A diagram: statements set a little larger than the body, each over its explanation
        // in small type.
        let b = blocks(&[
            (10.0, false, BODY),
            (11.5, false, "CREATE PERMISSION <permission name>"),
            (
                9.2,
                false,
                "Identifies the table on which the row permission is created",
            ),
            (11.5, false, "ON <table name>"),
            (9.2, false, "Specifies an optional correlation name"),
            (11.5, false, "AS <correlation name>"),
            (9.2, false, "Indicates that a row permission is created"),
        ]);
        assert_eq!(headings(&b), Vec::<String>::new());
    }

    #[test]
    fn a_lone_heading_over_small_text_stays_a_heading() {
        // "Abstract" over an abstract set smaller than the body, then the first section.
        let b = blocks(&[
            (10.0, true, "Abstract"),
            (
                9.0,
                false,
                "We study the thing and find that it holds in most cases we tried.",
            ),
            (12.0, true, "1 Introduction"),
            (10.0, false, BODY),
        ]);
        assert_eq!(headings(&b), vec!["Abstract", "1 Introduction"]);
    }

    #[test]
    fn a_lead_in_on_a_colon_or_an_address_is_not_a_heading() {
        let b = blocks(&[
            (12.0, true, "For more information:"),
            (12.0, true, "ibm.com/redbooks"),
            (10.0, false, BODY),
            (12.0, true, "Related work"),
            (10.0, false, BODY),
        ]);
        assert_eq!(headings(&b), vec!["Related work"]);
    }

    #[test]
    fn labels_with_one_or_two_explanations_between_are_a_figure() {
        // A syntax diagram: keywords (some bold) each over one or two small explanations.
        let b = blocks(&[
            (10.0, false, BODY),
            (11.5, false, "AS <correlation name>"),
            (9.2, false, "Indicates that a row permission is created"),
            (
                9.2,
                false,
                "FOR ROWS Specifies a condition that can be true",
            ),
            (11.5, false, "WHERE <logic to test>"),
            (
                9.2,
                false,
                "Specifies that the permission applies to all references",
            ),
            (11.5, true, "ENFORCED FOR ALL ACCESS"),
            (
                9.2,
                false,
                "Specifies that the row permission is initially enabled",
            ),
            (
                9.2,
                false,
                "ENABLE Specifies that it is to be initially disabled",
            ),
            (11.5, true, "DISABLE;"),
            (9.0, false, "Figure 3-1 CREATE PERMISSION SQL statement"),
        ]);
        assert_eq!(headings(&b), Vec::<String>::new());
    }

    #[test]
    fn a_line_set_like_the_list_under_it_is_not_a_heading() {
        // A slide: the title, then a lead-in line at the size of the list it introduces,
        // both larger than the document's body.
        let mut y = 72.0;
        let mut entries = Vec::new();
        for (size, text) in [
            (30.0, "Second slide title"),
            (18.0, "Let us introduce a list"),
            (18.0, "\u{2022} With foo"),
            (18.0, "\u{2022} Bar"),
        ] {
            entries.push(Entry::Line(line(y, size, false, text)));
            y += 2.0 * size;
        }
        let style = DocStyle {
            body_size: 10.0,
            heading_sizes: vec![30.0, 18.0],
            bold_styles: Vec::new(),
        };
        let b = page_blocks(vec![Region { entries }], &style, &[], &mut [], None);
        assert_eq!(headings(&b), vec!["Second slide title"]);
    }

    #[test]
    fn a_stack_of_prominent_phrases_heads_nothing() {
        // A cover: three selling points set large and bold, one under the other, no text
        // between them; then a real section with its text.
        let b = blocks(&[
            (14.0, true, "Implement roles and separation of duties"),
            (14.0, true, "Leverage row permissions on the database"),
            (14.0, true, "Protect columns by defining column masks"),
            (16.0, true, "Introduction"),
            (10.0, false, BODY),
        ]);
        assert_eq!(headings(&b), vec!["Introduction"]);
    }

    #[test]
    fn a_picture_under_the_text_does_not_split_its_lines() {
        // A cover: three selling points of two lines each, printed over a picture whose top
        // falls between the first point's two lines. The points are still one stack of
        // phrases (no headings), and the picture follows the text.
        let texts = [
            "Implement roles and separation",
            "of duties",
            "Leverage row permissions on",
            "the database",
            "Protect columns by defining",
            "column masks",
        ];
        let mut entries = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            let y = 300.0 + 54.0 * (i / 2) as f32 + 17.0 * (i % 2) as f32;
            entries.push(Entry::Line(line(y, 14.0, true, t)));
            if i == 0 {
                let rect = Rect::new(96.0, 311.0, 584.0, 700.0);
                entries.push(Entry::Object { index: 0, rect });
            }
        }
        entries.push(Entry::Line(line(460.0, 10.0, false, BODY)));
        let style = DocStyle {
            body_size: 10.0,
            heading_sizes: vec![14.0],
            bold_styles: Vec::new(),
        };
        let mut objects = vec![Some(Block::Paragraph(vec![Inline::plain("PICTURE")]))];
        let b = page_blocks(vec![Region { entries }], &style, &[], &mut objects, None);
        assert_eq!(headings(&b), Vec::<String>::new());
        assert!(
            matches!(&b[0], Block::Paragraph(p) if matches!(&p[0], Inline::Text { text, .. } if text.ends_with("of duties"))),
            "{b:?}"
        );
        assert!(
            matches!(b.last(), Some(Block::Paragraph(p)) if matches!(&p[0], Inline::Text { text, .. } if text == "PICTURE"))
        );
    }

    #[test]
    fn a_chapter_number_in_display_type_is_a_heading() {
        // A report's chapter opener: the number alone at 40 pt, then the title. A number at
        // body size (a value, a page number left in) and a large number with more on its
        // line stay text.
        let b = blocks(&[
            (40.0, true, "1"),
            (16.0, true, "Securing the data"),
            (10.0, false, BODY),
            (10.0, true, "2"),
            (10.0, false, BODY),
            (40.0, false, "123"),
            (10.0, false, BODY),
        ]);
        assert_eq!(headings(&b), vec!["1", "Securing the data"]);
    }

    #[test]
    fn a_chapter_label_hanging_left_of_its_title_is_not_part_of_it() {
        // "Chapter 1." then a wide gap, the title wrapped under its own first word.
        let mut first = line(72.0, 26.0, true, "Chapter 1. Securing and protecting");
        let shift = 60.0;
        for w in first.words.iter_mut().skip(2) {
            w.rect.x0 += shift;
            w.rect.x1 += shift;
        }
        first.rect.x1 += shift;
        let mut second = line(104.0, 26.0, true, "data");
        let x = first.words[2].rect.x0 - second.rect.x0;
        second.words[0].rect.x0 += x;
        second.words[0].rect.x1 += x;
        second.rect.x0 += x;
        second.rect.x1 += x;
        let body = line(160.0, 10.0, false, BODY);
        let style = DocStyle {
            body_size: 10.0,
            heading_sizes: vec![26.0],
            bold_styles: Vec::new(),
        };
        let entries = vec![Entry::Line(first), Entry::Line(second), Entry::Line(body)];
        let b = page_blocks(vec![Region { entries }], &style, &[], &mut [], None);
        assert_eq!(headings(&b), vec!["Securing and protecting data"]);
        assert!(
            matches!(&b[0], Block::Paragraph(p) if matches!(&p[0], Inline::Text { text, .. } if text == "Chapter 1."))
        );
    }
}
