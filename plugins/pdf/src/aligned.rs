//! Tables without rules: consecutive lines of a region whose words stand in the same columns.
//!
//! A candidate starts at a line with two or more segments (words separated by a gap wider
//! than about an em) and grows over the following lines as long as white columns still run
//! through every line of it, top to bottom. A line of one segment joins only when it sits
//! inside one column (a cell wrapped over two lines); a full-width line of prose closes the
//! table. The candidate is kept when it has at least three rows and two columns, its cells are
//! short, every column is used, and its first column is not a column of list markers.
//!
//! Rows are lines; a line that leaves cells empty and sits closer to the line above than rows
//! sit to each other (or leaves the first cell empty) continues the row above.

use crate::geom::median;
use crate::layout::{Line, Word};
use quire_plugin_api::{Cell, Inline, Table};
use std::ops::Range;

/// Words further apart than this many ems are in different cells.
const CELL_GAP: f32 = 0.9;
/// A white column through all lines must be this many ems wide to separate table columns.
const COLUMN_GAP: f32 = 0.6;
/// A space this many ems wide or wider is stretched (a plain space is a quarter to a third).
const JUSTIFIED_SPACE: f32 = 0.45;
/// Justification stretches a space to this many ems at most (a few long words filling a
/// narrow column); evenly spaced one-word cells stand further apart.
const MAX_JUSTIFIED_SPACE: f32 = 6.0;
/// Longest run of lines considered as one table.
const MAX_LINES: usize = 400;

/// Tables found among `lines`, as line ranges with the table each range becomes.
pub fn find(lines: &[Line]) -> Vec<(Range<usize>, Table)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if segments(&lines[i]).len() < 2 || bullet_item(&lines[i]) {
            i += 1;
            continue;
        }
        let end = grow(lines, i);
        let (start, end) = trim(lines, i, end);

        match (end - start >= 3 && !inside_justified_paragraph(lines, start, end))
            .then(|| build(&lines[start..end]))
            .flatten()
        {
            Some(table) => {
                // The lines trimmed off the top (a table of other columns just above, run
                // into this one over a gap no wider than its rows') are searched on their own.
                if start > i + 2 {
                    out.extend(
                        find(&lines[i..start])
                            .into_iter()
                            .map(|(r, t)| (r.start + i..r.end + i, t)),
                    );
                }
                out.push((start..end, table));
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// Where a candidate that starts at `start` ends (exclusive).
fn grow(lines: &[Line], start: usize) -> usize {
    let size = lines[start].size.max(4.0);
    let min_gap = COLUMN_GAP * size;
    // The horizontal extents of the candidate's text, merged wherever less than a column gap
    // apart: the white columns are the spaces between them.
    let mut blocks: Vec<(f32, f32)> = Vec::new();
    for span in word_spans(&lines[start]) {
        merge_span(&mut blocks, span, min_gap);
    }
    let mut end = start + 1;
    while end < lines.len() && end - start < MAX_LINES {
        let line = &lines[end];
        let prev = &lines[end - 1];
        // A wide vertical space, or a change of font size, ends the table.
        if line.rect.y0 - prev.rect.y1 > 2.0 * size || (line.size - size).abs() > 0.25 * size {
            break;
        }
        // A justified line of prose (just under a table): its stretched spaces can each pass
        // for a cell gap, so it has more segments than the table has columns, evenly spread.
        if evenly_spread(line) && segments(line).len() > blocks.len() {
            break;
        }
        let mut with = blocks.clone();
        for span in word_spans(line) {
            merge_span(&mut with, span, min_gap);
        }
        // Multi-segment lines may merge columns (a spanning cell); a one-segment line must sit
        // inside one column.
        let keeps = with.len() >= 2 && (segments(line).len() >= 2 || with.len() == blocks.len());
        if !keeps {
            break;
        }
        blocks = with;
        end += 1;
    }
    end
}

/// Narrows a candidate `start..end` by lines at either end that run over a white column its
/// middle lines keep: lines of text set in columns just above or below a table (a page of
/// three columns with a full-width table between them), or a caption under it. A table's own
/// rows stay inside its columns; a line with a segment reaching into two of them (or nearer
/// to the second than a column gap) is not one of its rows. The columns are taken from the middle (up to three lines from each end left
/// out), then the candidate grows back outwards, one line at a time, while lines keep them.
fn trim(lines: &[Line], start: usize, end: usize) -> (usize, usize) {
    let n = end - start;
    if n <= 3 {
        return (start, end);
    }
    let size = lines[start].size.max(4.0);
    let k = ((n - 2) / 2).min(3);
    let (mut s, mut e) = (start + k, end - k);
    // Of the middle lines, those with the most cells define the columns (a list item of
    // marker and text, or a line of prose, among them would merge them); the candidate is
    // narrowed to the first and last of those before it grows back.
    let counts: Vec<usize> = lines[s..e].iter().map(|l| segments(l).len()).collect();
    let mut multi: Vec<usize> = counts.iter().copied().filter(|c| *c >= 2).collect();
    multi.sort_unstable();
    let least = multi.get(multi.len() / 2).copied().unwrap_or(0);
    if let (Some(first), Some(last)) = (
        counts.iter().position(|c| *c >= least),
        counts.iter().rposition(|c| *c >= least),
    ) {
        (s, e) = (s + first, s + last + 1);
    }
    let mut blocks = Vec::new();
    for (line, _) in lines[s..e]
        .iter()
        .zip(&counts[s - start - k..])
        .filter(|(_, c)| **c >= least)
    {
        for span in word_spans(line) {
            merge_span(&mut blocks, span, COLUMN_GAP * size);
        }
    }
    // A segment reaching into (or nearer than a column gap to) two of the columns would merge
    // them.
    let min_gap = COLUMN_GAP * size;
    let crosses = |line: &Line| {
        segments(line).iter().any(|&(a, b)| {
            blocks
                .iter()
                .filter(|&&(x0, x1)| a < x1 + min_gap && b > x0 - min_gap)
                .count()
                >= 2
        })
    };
    while e < end && !crosses(&lines[e]) {
        e += 1;
    }
    while s > start && !crosses(&lines[s - 1]) {
        s -= 1;
    }
    (s, e)
}

/// Whether the candidate `start..end` is lines of a justified paragraph whose stretched
/// spaces (a line of two long words in a narrow column has one space of several ems) line up:
/// every line but the last set flush with the candidate's left and right edges, and a line
/// of the paragraph just above (flush with both) or below (flush left, not past the right
/// edge) set at the candidate's own pitch, its words not in the candidate's columns. A
/// table is set off from the text around it, and its rows end where their last cells end.
fn inside_justified_paragraph(lines: &[Line], start: usize, end: usize) -> bool {
    let cand = &lines[start..end];
    let size = cand[0].size.max(4.0);
    let left = cand.iter().map(|l| l.rect.x0).fold(f32::INFINITY, f32::min);
    let right = cand
        .iter()
        .map(|l| l.rect.x1)
        .fold(f32::NEG_INFINITY, f32::max);
    let near = |a: f32, b: f32| (a - b).abs() <= 0.2 * size;
    let flush = |l: &Line| near(l.rect.x0, left) && near(l.rect.x1, right);
    if !cand[..cand.len() - 1].iter().all(flush) || !near(cand[cand.len() - 1].rect.x0, left) {
        return false;
    }
    let pitch = median(cand.windows(2).map(|w| w[1].baseline - w[0].baseline));
    let same_pitch = |a: &Line, b: &Line| {
        let d = b.baseline - a.baseline;
        pitch > 0.0 && (d - pitch).abs() <= 0.15 * pitch && (a.size - b.size).abs() < 0.1 * size
    };
    let above = start
        .checked_sub(1)
        .map(|i| &lines[i])
        .is_some_and(|l| flush(l) && same_pitch(l, &cand[0]));
    let below = lines.get(end).is_some_and(|l| {
        near(l.rect.x0, left)
            && l.rect.x1 <= right + 0.2 * size
            && same_pitch(&cand[cand.len() - 1], l)
    });
    above || below
}

/// Adds a span to sorted, disjoint blocks, merging every block closer to it than `min_gap`.
fn merge_span(blocks: &mut Vec<(f32, f32)>, (mut a, mut b): (f32, f32), min_gap: f32) {
    blocks.retain(|&(x0, x1)| {
        let near = x0 - b < min_gap && a - x1 < min_gap;
        if near {
            a = a.min(x0);
            b = b.max(x1);
        }
        !near
    });
    let at = blocks.iter().position(|x| x.0 > a).unwrap_or(blocks.len());
    blocks.insert(at, (a, b));
}

/// Builds the table for a candidate, or rejects it.
fn build(lines: &[Line]) -> Option<Table> {
    let size = median(lines.iter().map(|l| l.size)).max(4.0);
    let spans: Vec<(f32, f32)> = lines.iter().flat_map(word_spans).collect();
    let gaps = column_gaps(&spans, size);
    if gaps.is_empty() {
        return None;
    }
    let cols = gaps.len() + 1;
    let bounds: Vec<f32> = gaps.iter().map(|(a, b)| (a + b) / 2.0).collect();
    let column = |w: &Word| {
        let cx = (w.rect.x0 + w.rect.x1) / 2.0;
        bounds.iter().filter(|b| cx > **b).count()
    };
    // Raw rows: one per line.
    let mut raw: Vec<(f32, Vec<Vec<&Word>>)> = Vec::new();
    for line in lines {
        let mut cells: Vec<Vec<&Word>> = vec![Vec::new(); cols];
        for w in &line.words {
            cells[column(w)].push(w);
        }
        raw.push((line.baseline, cells));
    }
    let filled = |cells: &[Vec<&Word>]| cells.iter().filter(|c| !c.is_empty()).count();
    let multi_lines = raw.iter().filter(|(_, c)| filled(c) >= 2).count();
    if multi_lines < 2 {
        return None;
    }
    // The usual distance between rows, from lines that fill every column.
    let row_pitch = median(
        raw.windows(2)
            .filter(|w| filled(&w[1].1) == cols)
            .map(|w| w[1].0 - w[0].0)
            .filter(|d| *d > 0.0),
    );
    // Where rows are set apart by padding, the lines at the leading must look like wrapped
    // cells (most leave a cell empty or carry a cell on in lower case), not like rows grouped
    // by extra space between the groups.
    let baselines: Vec<f32> = raw.iter().map(|r| r.0).collect();
    // Over a step of a few points (not 1.3 times), most of those lines must leave a cell
    // empty: rows of lower-case cells grouped by a little extra space are rows.
    let leading = two_pitches(&baselines, size)
        .filter(|&(l, step)| {
            let wrapped: Vec<bool> = raw
                .windows(2)
                .filter(|w| w[1].0 - w[0].0 <= l)
                .map(|w| {
                    let cells = &w[1].1;
                    filled(cells) < cols
                        || !step
                            && cells
                                .iter()
                                .filter_map(|c| c.first())
                                .any(|w| w.text.starts_with(char::is_lowercase))
                })
                .collect();
            wrapped.iter().filter(|w| **w).count() * 2 >= wrapped.len()
        })
        .map(|(l, _)| l);
    let mut rows: Vec<Vec<Vec<&Word>>> = Vec::new();
    let mut prev_base = f32::NEG_INFINITY;
    for (base, cells) in raw {
        let n = filled(&cells);
        let pitch = base - prev_base;
        prev_base = base;
        // A wrapped cell's next line starts in lower case more often than not.
        let lower = cells
            .iter()
            .filter_map(|c| c.first())
            .all(|w| w.text.starts_with(char::is_lowercase));
        let continues = !rows.is_empty()
            && match leading {
                // Rows set apart by cell padding: a line at the text's own leading is the
                // next line of the row's cells, even when it fills every column (narrow cells
                // each wrapped over several lines).
                Some(leading) => pitch <= leading,
                None => {
                    n < cols
                        && (cells[0].is_empty()
                            || lower
                            || (row_pitch > 0.0 && pitch < 0.85 * row_pitch))
                }
            };
        if continues {
            let last = rows.last_mut().expect("rows is not empty");
            for (c, words) in cells.into_iter().enumerate() {
                last[c].extend(words);
            }
        } else {
            rows.push(cells);
        }
    }
    if rows.len() < 3 {
        return None;
    }
    // Every column is used; cells are short (prose is not a table).
    for c in 0..cols {
        let used = rows.iter().filter(|r| !r[c].is_empty()).count();
        if used * 10 < rows.len() * 3 {
            return None;
        }
    }
    // Justified prose stretches every space of a line alike; a table row has narrow spaces
    // inside its cells and wide ones between them. Lines of evenly spread words are text.
    // (A row of one-word cells in evenly spaced columns is spread evenly too, but with spaces
    // no justified line stretches to, unless it has more words than the table has columns.)
    let justified = lines
        .iter()
        .filter(|l| {
            evenly_spread(l)
                && (l.words.len() > cols || widest_space(l) < MAX_JUSTIFIED_SPACE * l.size)
        })
        .count();
    if justified * 2 >= lines.len() {
        return None;
    }
    let cells_n: usize = rows.iter().map(|r| filled(r)).sum();
    let words_n: usize = rows.iter().flatten().map(Vec::len).sum();
    if words_n > cells_n * 8 {
        return None;
    }
    // Columns of prose set side by side (lines of several words that fill their column) are
    // text, not a table; one such column beside short cells is a table with a text column.
    let prose_columns = (0..cols)
        .filter(|&c| {
            let cells: Vec<(usize, f32)> = lines
                .iter()
                .filter_map(|l| {
                    let ws: Vec<&Word> = l.words.iter().filter(|w| column(w) == c).collect();
                    let right = ws.iter().map(|w| w.rect.x1).reduce(f32::max)?;
                    Some((ws.len(), right))
                })
                .collect();
            let Some(edge) = cells.iter().map(|c| c.1).reduce(f32::max) else {
                return false;
            };
            let words: usize = cells.iter().map(|c| c.0).sum();
            let full = cells.iter().filter(|c| c.1 >= edge - 2.0 * size).count();
            words as f32 >= 3.0 * cells.len() as f32 && full * 2 >= cells.len()
        })
        .count();
    if prose_columns >= 2 {
        return None;
    }
    // A column of bullets or numbers followed by text is a list; so are two such columns
    // (items whose content starts with a nested list) before a column of sentences.
    let markers = rows
        .iter()
        .filter(|r| r[0].len() == 1 && is_marker(&r[0][0].text))
        .count();
    if markers * 2 >= rows.len() {
        return None;
    }
    let lead_markers = rows
        .iter()
        .filter(|r| {
            let lead = &r[..cols - 1];
            lead.iter().any(|c| !c.is_empty()) && lead.iter().flatten().all(|w| is_marker(&w.text))
        })
        .count();
    let last_words: usize = rows.iter().map(|r| r[cols - 1].len()).sum();
    let last_cells = rows.iter().filter(|r| !r[cols - 1].is_empty()).count();
    if lead_markers * 2 >= rows.len() && last_words >= 3 * last_cells.max(1) {
        return None;
    }
    let header_rows = 1;
    let rows = rows
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|words| Cell::new(cell_text(&words)))
                .collect()
        })
        .collect();
    Some(Table { header_rows, rows })
}

/// The longest pitch of a line to the next that is still the text's own leading, when a
/// candidate's line pitches fall in two groups: the leading (the lines of a wrapped cell)
/// and, at least twice, the rows (cell padding or paragraph spacing between them), with no
/// pitch in between. The rows are 1.3 times the leading or more apart, or (a browser's few
/// points of cell padding under a leading of 1.5) a clean step of a quarter em or more above
/// it, at least as wide as the rows' own spread and twice the leading's. `None` when the lines
/// are all about one pitch apart or the pitches do not separate cleanly. With it, whether it
/// is the step of a few points.
fn two_pitches(baselines: &[f32], size: f32) -> Option<(f32, bool)> {
    let mut pitches: Vec<f32> = baselines
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|p| *p > 0.0)
        .collect();
    pitches.sort_by(f32::total_cmp);
    let short = *pitches.first()?;
    let long = pitches.iter().filter(|p| **p >= 1.3 * short).count();
    let clean = pitches
        .iter()
        .all(|p| *p <= 1.15 * short || *p >= 1.3 * short);
    if long >= 2 && long < pitches.len() && clean {
        return Some((1.15 * short, false));
    }
    // The widest step between consecutive pitches, with two or more pitches above it.
    let (k, step) = pitches
        .windows(2)
        .enumerate()
        .take(pitches.len().saturating_sub(2))
        .map(|(k, w)| (k, w[1] - w[0]))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let spread = pitches[k] - short;
    // The rows' pitches no further apart than the step (a list's items and the rows of a
    // table under it are not one table's rows).
    let rows_spread = pitches[pitches.len() - 1] - pitches[k + 1];
    (step >= 0.25 * size && step >= 2.0 * spread && spread <= 0.1 * short && rows_spread <= step)
        .then_some((pitches[k] + step / 2.0, true))
}

/// The widest space between two words of a line.
fn widest_space(line: &Line) -> f32 {
    line.words
        .windows(2)
        .map(|w| w[1].rect.x0 - w[0].rect.x1)
        .fold(0.0, f32::max)
}

/// A line of three or more words whose spaces are all about as wide as each other and wider
/// than a plain word space: a justified line of prose. (A justified line in a narrow column
/// can have spaces of three ems and more; a table row has narrow spaces inside its cells and
/// wide ones between them, and cells of different widths put its wide ones at different
/// widths.)
fn evenly_spread(line: &Line) -> bool {
    if line.words.len() < 3 {
        return false;
    }
    let gaps: Vec<f32> = line
        .words
        .windows(2)
        .map(|w| w[1].rect.x0 - w[0].rect.x1)
        .collect();
    let (lo, hi) = gaps
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), g| {
            (lo.min(*g), hi.max(*g))
        });
    let size = line.size.max(1.0);
    hi >= JUSTIFIED_SPACE * size && hi - lo <= 0.15 * hi.max(0.2 * size)
}

/// A list marker: a bullet glyph, or a number or letter with or without its delimiter
/// ("3", "3.", "(c)", "iv)").
pub(crate) fn is_marker(s: &str) -> bool {
    let body = s.trim_end_matches(['.', ')']).trim_start_matches('(');
    s.chars().count() == 1 && !s.chars().all(char::is_alphanumeric)
        || (!body.is_empty()
            && body.len() <= 3
            && (body.chars().all(|c| c.is_ascii_digit())
                || (body != s && body.chars().all(|c| c.is_ascii_lowercase()))))
}

/// A cell's text: its words in line order, a hyphen at a line end rejoined.
fn cell_text(words: &[&Word]) -> Vec<Inline> {
    let mut text = String::new();
    let mut prev: Option<&Word> = None;
    for w in words {
        if let Some(p) = prev {
            let new_line = w.rect.y0 > p.rect.y1 - 0.3 * p.rect.height();
            if new_line && text.ends_with('-') && w.text.starts_with(char::is_lowercase) {
                text.pop();
            } else if new_line || w.space_before {
                text.push(' ');
            }
        }
        text.push_str(&w.text);
        prev = Some(w);
    }
    if text.is_empty() {
        Vec::new()
    } else {
        vec![Inline::plain(text)]
    }
}

/// A line's segments: runs of words with no gap wider than [`CELL_GAP`] ems between them.
fn segments(line: &Line) -> Vec<(f32, f32)> {
    let size = line.size.max(4.0);
    let mut out: Vec<(f32, f32)> = Vec::new();
    for w in &line.words {
        match out.last_mut() {
            Some((_, end)) if w.rect.x0 - *end <= CELL_GAP * size => *end = end.max(w.rect.x1),
            _ => out.push((w.rect.x0, w.rect.x1)),
        }
    }
    out
}

/// A bulleted list item: a bullet glyph set apart from one stretch of text. It does not start
/// a table (its marker and text are two segments, and the indented lines of the item's
/// further paragraphs each sit inside the text's column, so a table just under the list
/// would take the item in as its first rows).
fn bullet_item(line: &Line) -> bool {
    line.words
        .first()
        .is_some_and(|w| crate::blocks::is_bullet(&w.text))
        && segments(line).len() == 2
}

fn word_spans(line: &Line) -> Vec<(f32, f32)> {
    line.words.iter().map(|w| (w.rect.x0, w.rect.x1)).collect()
}

/// White vertical columns at least [`COLUMN_GAP`] ems wide through a set of word spans.
fn column_gaps(spans: &[(f32, f32)], size: f32) -> Vec<(f32, f32)> {
    let mut blocks = Vec::new();
    for span in spans {
        merge_span(&mut blocks, *span, COLUMN_GAP * size);
    }
    blocks.windows(2).map(|w| (w[0].1, w[1].0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Rect;
    use crate::testkit::cell_texts as texts;

    /// A line of cells: each `(x, text)` is one cell starting at `x`, words 5 pt per char.
    fn line(y: f32, cells: &[(f32, &str)]) -> Line {
        let mut words = Vec::new();
        for (x, text) in cells {
            let mut x = *x;
            for (k, t) in text.split_whitespace().enumerate() {
                let w = t.chars().count() as f32 * 5.0;
                words.push(Word {
                    text: t.to_string(),
                    rect: Rect::new(x, y, x + w, y + 10.0),
                    size: 10.0,
                    bold: false,
                    italic: false,
                    space_before: k > 0 || !words.is_empty(),
                });
                x += w + 2.5;
            }
        }
        let rect = words
            .iter()
            .skip(1)
            .fold(words[0].rect, |r: Rect, w: &Word| r.union(&w.rect));
        Line {
            words,
            rect,
            baseline: y + 8.0,
            size: 10.0,
            bold: false,
            italic: false,
        }
    }

    #[test]
    fn a_table_under_a_bulleted_item_leaves_the_item_out() {
        // An item (bullet at 20, text at 40), its two indented paragraph lines, then a table
        // of three columns starting at the margin.
        let lines = vec![
            line(0.0, &[(20.0, "•"), (40.0, "Fiend kiocla frul")]),
            line(14.0, &[(40.0, "Mo gairbroutouff frul sengmo draft")]),
            line(28.0, &[(40.0, "Re rul beandplift pruscot chur")]),
            line(
                46.0,
                &[(0.0, "8148"), (120.0, "Jainsier"), (240.0, "Grouto")],
            ),
            line(
                60.0,
                &[(0.0, "Piefloum"), (120.0, "Chait"), (240.0, "Teast")],
            ),
            line(
                74.0,
                &[(0.0, "Plor flind"), (120.0, "19,064"), (240.0, "Braim")],
            ),
            line(
                88.0,
                &[(0.0, "Trir"), (120.0, "Bimroun"), (240.0, "Kocoum")],
            ),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 3..7);
        assert_eq!(texts(&found[0].1)[0], ["8148", "Jainsier", "Grouto"]);
    }

    #[test]
    fn aligned_columns_are_a_table() {
        let lines = vec![
            line(
                0.0,
                &[(
                    0.0,
                    "A long paragraph line that runs across the whole width of the column here",
                )],
            ),
            line(20.0, &[(0.0, "Region"), (120.0, "Units"), (200.0, "Share")]),
            line(
                34.0,
                &[(0.0, "North east"), (120.0, "1,204"), (200.0, "12.5")],
            ),
            line(48.0, &[(0.0, "South"), (120.0, "88"), (200.0, "3.0")]),
            line(
                62.0,
                &[(0.0, "West coast"), (120.0, "9,310"), (200.0, "84.5")],
            ),
            line(
                82.0,
                &[(
                    0.0,
                    "Another paragraph line that runs across the whole width of the column",
                )],
            ),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 1..5);
        assert_eq!(
            texts(&found[0].1),
            vec![
                vec!["Region", "Units", "Share"],
                vec!["North east", "1,204", "12.5"],
                vec!["South", "88", "3.0"],
                vec!["West coast", "9,310", "84.5"],
            ]
        );
    }

    #[test]
    fn lines_crossing_the_columns_at_either_end_are_not_rows() {
        // Three columns of prose set just above and below a four-column table, as a browser
        // sets a full-width table between CSS columns, and a caption under it: their words
        // run over the table's white columns, which every row keeps.
        let prose = |y: f32| {
            line(
                y,
                &[
                    (0.0, "words of prose"),
                    (100.0, "more of the prose"),
                    (200.0, "third column"),
                ],
            )
        };
        let lines = vec![
            prose(0.0),
            // Ends a little short of the second column: still nearer to it than a column gap.
            line(7.0, &[(0.0, "a line of text that ends"), (230.0, "note")]),
            line(
                14.0,
                &[
                    (0.0, "Name"),
                    (110.0, "Kind"),
                    (160.0, "12"),
                    (230.0, "Note"),
                ],
            ),
            line(
                28.0,
                &[
                    (0.0, "Alpha"),
                    (110.0, "Red"),
                    (160.0, "7.5"),
                    (230.0, "kept"),
                ],
            ),
            line(
                42.0,
                &[
                    (0.0, "Beta"),
                    (110.0, "Blue"),
                    (160.0, "98"),
                    (230.0, "sent"),
                ],
            ),
            line(
                56.0,
                &[
                    (0.0, "Gamma"),
                    (110.0, "Green"),
                    (160.0, "3"),
                    (230.0, "lost"),
                ],
            ),
            prose(70.0),
            prose(84.0),
            line(
                98.0,
                &[(0.0, "Table 2: a caption under the table set in one line")],
            ),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 2..6);
        assert_eq!(
            texts(&found[0].1)[1],
            vec!["Alpha", "Red", "7.5", "kept"],
            "four columns, none merged by the prose"
        );
    }

    #[test]
    fn a_justified_line_under_a_table_is_not_a_row() {
        // A two-column table and, just under it, the first line of a justified paragraph:
        // its stretched spaces (over a cell gap) make every word a segment of its own, and
        // its words fill the white between the table's columns.
        let mut lines = vec![
            line(0.0, &[(0.0, "Name"), (200.0, "Value")]),
            line(18.0, &[(0.0, "Alpha beta"), (200.0, "first one")]),
            line(36.0, &[(0.0, "Gamma"), (200.0, "12.5")]),
            line(54.0, &[(0.0, "Delta epsilon"), (200.0, "third")]),
            line(72.0, &[(0.0, "Zeta"), (200.0, "fourth value")]),
        ];
        // Every space stretched to 12 pt (over the 9 pt of a cell gap).
        let mut x = 0.0;
        let mut spread = Vec::new();
        for w in [
            "Justified",
            "prose",
            "runs",
            "across",
            "the",
            "whole",
            "column",
        ] {
            spread.push((x, w));
            x += w.len() as f32 * 5.0 + 12.0;
        }
        lines.push(line(88.0, &spread));
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 0..5);
        assert_eq!(texts(&found[0].1)[4], vec!["Zeta", "fourth value"]);
    }

    #[test]
    fn a_wrapped_cell_continues_its_row() {
        // Rows 18 pt apart; the wrapped second line of a cell 12 pt below its first.
        let lines = vec![
            line(0.0, &[(0.0, "Name"), (120.0, "Value"), (200.0, "Note")]),
            line(18.0, &[(0.0, "Alpha"), (120.0, "1"), (200.0, "first")]),
            line(
                36.0,
                &[(0.0, "Beta gamma"), (120.0, "2"), (200.0, "second")],
            ),
            line(48.0, &[(0.0, "delta")]),
            line(66.0, &[(0.0, "Epsilon"), (120.0, "3"), (200.0, "third")]),
            line(78.0, &[(200.0, "and more")]),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(
            texts(&found[0].1),
            vec![
                vec!["Name", "Value", "Note"],
                vec!["Alpha", "1", "first"],
                vec!["Beta gamma delta", "2", "second"],
                vec!["Epsilon", "3", "third and more"],
            ]
        );
    }

    #[test]
    fn narrow_cells_wrapped_over_lines_that_fill_every_column_stay_one_row() {
        // reportlab's narrow cells: every cell wraps (words broken where the cell ends), so
        // the second line of a row fills every column too. Rows are 20 pt apart (padding),
        // the lines of a row 12 pt.
        let lines = vec![
            line(0.0, &[(0.0, "Name"), (60.0, "Count"), (120.0, "Share")]),
            line(20.0, &[(0.0, "Drioc"), (60.0, "20,"), (120.0, "Biochu")]),
            line(32.0, &[(0.0, "lingjan"), (60.0, "805"), (120.0, "ftlean")]),
            line(52.0, &[(0.0, "Bra"), (60.0, "Pock"), (120.0, "23,")]),
            line(64.0, &[(0.0, "deajie"), (60.0, "brethul"), (120.0, "187")]),
            line(76.0, &[(0.0, "ng")]),
            line(96.0, &[(0.0, "Sot"), (60.0, "Vio"), (120.0, "Shi")]),
            line(108.0, &[(0.0, "hal"), (60.0, "strouck"), (120.0, "oreand")]),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(
            texts(&found[0].1),
            vec![
                vec!["Name", "Count", "Share"],
                vec!["Drioc lingjan", "20, 805", "Biochu ftlean"],
                vec!["Bra deajie ng", "Pock brethul", "23, 187"],
                vec!["Sot hal", "Vio strouck", "Shi oreand"],
            ]
        );
    }

    #[test]
    fn wrapped_lines_a_few_points_closer_than_rows_continue_them() {
        // A browser's table: rows 18.75 pt apart (a leading of 15 pt and 2 pt of padding
        // above and below each cell), the wrapped lines of a row at the leading. A row's
        // second line fills every column and starts with a number, and the leading is not
        // 1.3 times shorter than the rows' pitch.
        let lines = vec![
            line(0.0, &[(0.0, "Seff"), (80.0, "Hea"), (160.0, "Cleaft")]),
            line(18.75, &[(0.0, "Steal"), (80.0, "2,558"), (160.0, "Greck")]),
            line(
                37.5,
                &[(0.0, "Frengvick"), (80.0, "Ral rur"), (160.0, "Griet")],
            ),
            line(
                52.5,
                &[(0.0, "89.0%"), (80.0, "frengvick"), (160.0, "wonddouck")],
            ),
            line(67.5, &[(160.0, "plionglung")]),
            line(
                86.25,
                &[(0.0, "Nis broff"), (80.0, "Staing"), (160.0, "Fa")],
            ),
            line(
                105.0,
                &[(0.0, "Wiong"), (80.0, "Dra"), (160.0, "Fiour keack")],
            ),
            line(120.0, &[(0.0, "2410")]),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(
            texts(&found[0].1),
            vec![
                vec!["Seff", "Hea", "Cleaft"],
                vec!["Steal", "2,558", "Greck"],
                vec![
                    "Frengvick 89.0%",
                    "Ral rur frengvick",
                    "Griet wonddouck plionglung"
                ],
                vec!["Nis broff", "Staing", "Fa"],
                vec!["Wiong 2410", "Dra", "Fiour keack"],
            ]
        );
    }

    #[test]
    fn a_list_just_above_a_table_is_not_read_as_wrapped_rows() {
        // A bulleted list (items 17.6 pt apart, wrapped lines and the item after a nested
        // one 14.3 pt) just above a two-column table with rows 20.3 pt apart: a clean step
        // between the shortest pitches, but the longer ones are no one row pitch, so the
        // lines at the shortest are not taken for wrapped cells (which would hide the list's
        // column of bullets among fewer rows).
        let lines = vec![
            line(
                0.0,
                &[(0.0, "•"), (36.0, "Thaindrol saind gounclastwaff stikieff gidrieffpril biecksho vier brumourde fiot")],
            ),
            line(14.3, &[(20.0, "brustspaing frutang biedeackpai duftfiim")]),
            line(
                31.9,
                &[(0.0, "•"), (36.0, "Briotshufeaft floul cleas prouffreatut gio jingplift frutang shout cheafieand")],
            ),
            line(46.2, &[(20.0, "spalfrou tral val")]),
            line(
                63.8,
                &[(0.0, "•"), (20.0, "•"), (56.0, "Vouvies frul coundcleng")],
            ),
            line(81.4, &[(20.0, "•"), (56.0, "Long daift flast shieck?")]),
            line(
                95.7,
                &[(0.0, "•"), (36.0, "Stiot bri drieckshis hatspond reaff fricktrim fraclock")],
            ),
            line(121.8, &[(22.0, "Woum"), (277.0, "Gidrieffpril Kock")]),
            line(142.1, &[(22.0, "Col"), (277.0, "Gounclastwaff spiestfu")]),
            line(
                162.4,
                &[(22.0, "Theaff fraclock"), (277.0, "Friomchiond plio")],
            ),
            line(182.7, &[(22.0, "Pou"), (277.0, "87.1")]),
            line(203.0, &[(22.0, "Prolwaft speack"), (277.0, "58,508")]),
        ];
        let found = find(&lines);
        assert!(found.iter().all(|(r, _)| r.start >= 7), "{found:?}");
    }

    #[test]
    fn a_table_just_above_a_table_of_other_columns_is_found_too() {
        // A three-column table and, closer below it than a blank line, a four-column table
        // whose columns run over the first one's white columns: the candidate runs through
        // both, and trimming it to the longer table leaves the first one to be found alone.
        let mut lines = vec![
            line(0.0, &[(0.0, "Wa Ram"), (80.0, "Kea"), (160.0, "Dreal")]),
            line(
                18.0,
                &[(0.0, "Cespuhiet"), (80.0, "51.2 griet"), (160.0, "66,506")],
            ),
            line(
                36.0,
                &[(0.0, "Tosdriot"), (80.0, "68.9% griet"), (160.0, "34,318")],
            ),
            line(54.0, &[(0.0, "4427"), (80.0, "32,995"), (160.0, "17.0")]),
        ];
        for k in 0..8 {
            lines.push(line(
                72.0 + 18.0 * k as f32,
                &[
                    (0.0, "59.7% gibind kon"),
                    (105.0, "Dritsain Kea"),
                    (235.0, "Trefffieaff"),
                    (330.0, "Griet"),
                ],
            ));
        }
        let found = find(&lines);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, 0..4);
        assert_eq!(texts(&found[0].1)[3], vec!["4427", "32,995", "17.0"]);
        assert_eq!(found[1].0, 4..12);
    }

    #[test]
    fn a_list_just_above_a_table_is_not_part_of_it() {
        // Items of a numbered list (one holding a nested list) just above a five-column table:
        // their markers line up with the table's first column, so the candidate starts at the
        // list. The last item's text runs over the table's columns and is among the lines the
        // columns used to be taken from.
        let mut lines = vec![
            line(
                0.0,
                &[(0.0, "6"), (20.0, "1"), (40.0, "Lohock men vean floustrul")],
            ),
            line(14.0, &[(20.0, "2"), (40.0, "Weast feam fiai stin")]),
            line(28.0, &[(20.0, "3"), (40.0, "Meas draist shiot")]),
            line(
                42.0,
                &[
                    (0.0, "7"),
                    (
                        20.0,
                        "Bosther beandretfreat jeandclast viol weangcuft grift clong",
                    ),
                ],
            ),
        ];
        let row = |y: f32, cells: [&str; 5]| {
            line(
                y,
                &[
                    (6.0, cells[0]),
                    (90.0, cells[1]),
                    (180.0, cells[2]),
                    (270.0, cells[3]),
                    (360.0, cells[4]),
                ],
            )
        };
        lines.push(row(60.0, ["Meas", "Sum", "Shoutmil", "Chea", "Wust"]));
        for k in 0..8 {
            lines.push(row(
                74.0 + 14.0 * k as f32,
                ["Clestflest", "11.6%", "Fleahiol", "18,028", "Ret"],
            ));
        }
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 4..13);
        assert_eq!(
            texts(&found[0].1)[1],
            vec!["Clestflest", "11.6%", "Fleahiol", "18,028", "Ret"]
        );
    }

    #[test]
    fn lines_of_two_words_inside_a_justified_paragraph_are_not_a_table() {
        // A justified paragraph in a column 150 pt wide: lines of two long words are stretched
        // to both edges, one wide space each, and those spaces happen to line up. The lines
        // around them, at the same pitch and edges, belong to the same paragraph.
        let lines = vec![
            line(
                0.0,
                &[
                    (0.0, "naindbre"),
                    (55.0, "ser"),
                    (85.0, "plair"),
                    (125.0, "girea"),
                ],
            ),
            line(14.0, &[(0.0, "candspio"), (115.0, "diolour")]),
            line(28.0, &[(0.0, "sengstafrio?"), (80.0, "Dreshiolfiaing")]),
            line(42.0, &[(0.0, "pedreat"), (110.0, "raindlai")]),
            line(56.0, &[(0.0, "fiionteapriock"), (90.0, "griolsteas")]),
            line(70.0, &[(0.0, "nour shaick trieff")]),
        ];
        assert!(find(&lines).is_empty(), "{:?}", find(&lines));
    }

    #[test]
    fn rows_grouped_by_extra_space_stay_apart() {
        // Rows 12 pt apart in groups of two, 20 pt between the groups: the pitches fall in two
        // groups, but no line looks like a wrapped cell.
        let lines = vec![
            line(0.0, &[(0.0, "Name"), (80.0, "Count"), (160.0, "Share")]),
            line(12.0, &[(0.0, "Alpha"), (80.0, "12"), (160.0, "3.5")]),
            line(32.0, &[(0.0, "Beta"), (80.0, "7"), (160.0, "1.0")]),
            line(44.0, &[(0.0, "Gamma"), (80.0, "30"), (160.0, "9.5")]),
            line(64.0, &[(0.0, "Delta"), (80.0, "4"), (160.0, "2.0")]),
            line(76.0, &[(0.0, "Omega"), (80.0, "5"), (160.0, "8.0")]),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(texts(&found[0].1).len(), 6);
    }

    #[test]
    fn lower_case_rows_grouped_by_a_few_points_stay_apart() {
        // A data sheet's pairs of lower-case names and values, 12 pt apart in groups with 3 pt
        // more between the groups: a clean step of a quarter em, but the lines at the shorter
        // pitch fill every cell, as rows do.
        let pairs = [
            ("uitgaand toerental", "135 r/min"),
            ("uitgaand koppel", "10,31 Nm"),
            ("belastbaarheid", "3,4"),
            ("beschermingsklasse", "IP55"),
            ("temperatuurklasse", "F"),
            ("motorbeveiliging", "thermocontact NC"),
            ("inbouwpositie", "A"),
            ("kleur", "niet gelakt"),
            ("koeling", "eigen koeling"),
        ];
        let mut y = 0.0;
        let mut lines = Vec::new();
        for (k, (name, value)) in pairs.iter().enumerate() {
            lines.push(line(y, &[(0.0, name), (150.0, value)]));
            y += if k % 3 == 2 { 15.0 } else { 12.0 };
        }
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(texts(&found[0].1).len(), 9, "{:?}", texts(&found[0].1));
    }

    #[test]
    fn rows_of_one_word_cells_in_evenly_spaced_columns_are_a_table() {
        // Three columns 150 pt apart, cells of one word of about the same width: the spaces of
        // such a row are as even as a justified line's, but twelve ems wide, more than
        // justification stretches a space, and the row has no more words than the table has
        // columns.
        let lines = vec![
            line(0.0, &[(0.0, "Region"), (150.0, "Units"), (300.0, "Share")]),
            line(24.0, &[(0.0, "North"), (150.0, "1,204"), (300.0, "12.5")]),
            line(
                48.0,
                &[(0.0, "South coast"), (150.0, "88 in all"), (300.0, "3.0")],
            ),
            line(72.0, &[(0.0, "Westen"), (150.0, "9,310"), (300.0, "84.5")]),
        ];
        let found = find(&lines);
        assert_eq!(found.len(), 1);
        assert_eq!(texts(&found[0].1)[3], vec!["Westen", "9,310", "84.5"]);
    }

    #[test]
    fn lists_and_prose_are_not_tables() {
        let list = vec![
            line(0.0, &[(0.0, "•"), (20.0, "first item of the list")]),
            line(14.0, &[(0.0, "•"), (20.0, "second item of the list")]),
            line(28.0, &[(0.0, "•"), (20.0, "third item")]),
        ];
        assert!(find(&list).is_empty());
        let numbered = vec![
            line(0.0, &[(0.0, "1."), (20.0, "first item of the list")]),
            line(14.0, &[(0.0, "2."), (20.0, "second item of the list")]),
            line(28.0, &[(0.0, "3."), (20.0, "third item")]),
        ];
        assert!(find(&numbered).is_empty());
        // Items whose content starts with a nested list: two columns of numbers, then text.
        let nested = vec![
            line(
                0.0,
                &[
                    (0.0, "6"),
                    (20.0, "1"),
                    (40.0, "first nested item of the list"),
                ],
            ),
            line(
                14.0,
                &[(20.0, "2"), (40.0, "second nested item of the list")],
            ),
            line(
                28.0,
                &[(0.0, "7"), (40.0, "seventh item of the outer list")],
            ),
            line(
                42.0,
                &[
                    (0.0, "8"),
                    (20.0, "1"),
                    (40.0, "another nested item with words"),
                ],
            ),
        ];
        assert!(find(&nested).is_empty());
        let prose = vec![
            line(
                0.0,
                &[(
                    0.0,
                    "Plain text lines of a paragraph that is set in one column",
                )],
            ),
            line(
                14.0,
                &[(
                    0.0,
                    "with no gaps wider than a word space between any words",
                )],
            ),
            line(
                28.0,
                &[(
                    0.0,
                    "so no column of white runs through them anywhere at all",
                )],
            ),
        ];
        assert!(find(&prose).is_empty());
    }
}
