//! Ruled tables: grids of horizontal and vertical rules, and the words inside their cells.
//!
//! Rules that touch each other form a component; a component with at least two distinct
//! horizontal and two distinct vertical positions spans a grid of cells. Words whose centre
//! falls in a cell become that cell's text (lines joined by spaces); they are taken out of
//! the page's runs and the table takes their place in the reading order as one object.
//! Tables without rules (aligned columns) are read row by row as text: a pipe table built
//! from a guess splits phrases that belong together far more often than it helps.

use crate::geom::Rect;
use crate::layout::{Item, Word};
use quire_plugin_api::{Cell, Inline, Table};

/// Rules closer than this (points) touch.
const TOUCH: f32 = 3.0;
/// Positions closer than this (points) are one grid line.
const SAME_LINE: f32 = 2.5;

/// Cells holding more characters than this on average (and several lines each) are boxes of
/// paragraphs rather than table cells.
const PARAGRAPH_CELL_CHARS: usize = 60;

/// Finds ruled tables, removes their words from `items`, and returns each with its box.
pub fn extract(rules: &[Rect], items: &mut Vec<Item>) -> Vec<(Rect, Table)> {
    if rules.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut candidates: Vec<(Vec<f32>, Vec<f32>, usize, bool)> = grids(rules)
        .into_iter()
        .map(|(xs, ys)| (xs, ys, 1, false))
        .collect();
    for bbox in open_tables(rules) {
        let inside = |r: &Rect| {
            let (cx, cy) = ((r.x0 + r.x1) / 2.0, r.center_y());
            bbox.contains_point(cx, cy)
        };
        if candidates.iter().any(|(xs, ys, _, _)| {
            let g = Rect::new(xs[0], ys[0], xs[xs.len() - 1], ys[ys.len() - 1]);
            g.v_overlap(&bbox) > 0.0 && g.x0 < bbox.x1 && bbox.x0 < g.x1
        }) {
            continue;
        }
        let words: Vec<&Word> = items
            .iter()
            .filter_map(|i| match i {
                Item::Run(r) => Some(r),
                Item::Object { .. } => None,
            })
            .flat_map(|r| r.words.iter())
            .filter(|w| inside(&w.rect))
            .collect();
        if let Some((xs, ys)) = aligned_grid(&words, &bbox) {
            let header = header_rows(rules, &bbox, &ys);
            candidates.push((xs, ys, header, true));
        }
    }
    for (xs, ys, header_rows, open) in candidates {
        let bbox = Rect::new(xs[0], ys[0], xs[xs.len() - 1], ys[ys.len() - 1]);
        let (rows, cols) = (ys.len() - 1, xs.len() - 1);
        let mut cells: Vec<Vec<Vec<Word>>> = vec![vec![Vec::new(); cols]; rows];
        let mut taken = 0usize;
        let (mut runs_inside, mut runs_crossing) = (0usize, 0usize);
        for item in items.iter() {
            let Item::Run(run) = item else { continue };
            if run.rect.v_overlap(&bbox) <= 0.0 {
                continue;
            }
            let mut first_cell = None;
            let mut crosses = false;
            for w in &run.words {
                if let Some((r, c)) = cell_of(&w.rect, &xs, &ys) {
                    cells[r][c].push(w.clone());
                    taken += 1;
                    match first_cell {
                        None => first_cell = Some((r, c)),
                        Some(f) if f != (r, c) => crosses = true,
                        Some(_) => {}
                    }
                }
            }
            if first_cell.is_some() {
                runs_inside += 1;
                runs_crossing += usize::from(crosses);
            }
        }
        // Text that runs across the rules means the rules frame a layout, not cells.
        if runs_crossing * 10 > runs_inside {
            continue;
        }
        let filled: usize = cells.iter().flatten().filter(|c| !c.is_empty()).count();
        let rows_used = cells
            .iter()
            .filter(|r| r.iter().any(|c| !c.is_empty()))
            .count();
        let cols_used = (0..cols)
            .filter(|&c| cells.iter().any(|r| !r[c].is_empty()))
            .count();
        // A framed paragraph or a single boxed label is not a table; nor is a page of boxes
        // holding whole paragraphs (many lines a cell, and long ones: narrow cells wrap a few
        // words over as many lines).
        let lines: usize = cells.iter().flatten().map(|c| line_count(c)).sum();
        let chars: usize = cells
            .iter()
            .flatten()
            .flatten()
            .map(|w| w.text.chars().count())
            .sum();
        let paragraphs = lines * 2 > filled * 5 && chars > filled * PARAGRAPH_CELL_CHARS;
        if taken == 0 || rows_used < 2 || cols_used < 2 || filled < 3 || paragraphs {
            continue;
        }
        remove_words(items, &xs, &ys);
        if open {
            merge_wrapped_lines(&mut cells);
        }
        let table = Table {
            header_rows,
            rows: cells
                .into_iter()
                .filter(|r| r.iter().any(|c| !c.is_empty()))
                .map(|r| {
                    r.into_iter()
                        .map(|words| Cell::new(cell_text(words)))
                        .collect()
                })
                .collect(),
        };
        let mut table = prune_columns(table);
        if open {
            merge_continuation_rows(&mut table);
        }
        out.push((bbox, table));
    }
    out
}

/// In a table whose rows come from text lines (one row a line), the second line of a wrapped
/// cell follows the line above at the text's own leading, while rows are set further apart
/// (cell padding): where the line pitches fall in two such groups, a line that leaves cells
/// empty and follows at the short pitch continues the row above.
fn merge_wrapped_lines(cells: &mut Vec<Vec<Vec<Word>>>) {
    let cols = cells.first().map_or(0, Vec::len);
    let top = |row: &[Vec<Word>]| {
        row.iter()
            .flatten()
            .map(|w| w.rect.y0)
            .reduce(f32::min)
            .unwrap_or(f32::NAN)
    };
    cells.retain(|r| r.iter().any(|c| !c.is_empty()));
    let tops: Vec<f32> = cells.iter().map(|r| top(r)).collect();
    let pitches: Vec<f32> = tops.windows(2).map(|w| w[1] - w[0]).collect();
    let Some(short) = pitches
        .iter()
        .copied()
        .filter(|p| *p > 0.0)
        .reduce(f32::min)
    else {
        return;
    };
    // The pitch after the header row is often wider anyway (a rule under it): not counted.
    let long = pitches.iter().skip(1).filter(|p| **p > 1.3 * short).count();
    if long < 2 {
        return;
    }
    let mut r = 1;
    let mut k = 0;
    while r < cells.len() {
        let pitch = pitches[k];
        k += 1;
        let filled = cells[r].iter().filter(|c| !c.is_empty()).count();
        if filled < cols && pitch <= 1.15 * short {
            let row = cells.remove(r);
            for (c, words) in row.into_iter().enumerate() {
                cells[r - 1][c].extend(words);
            }
        } else {
            r += 1;
        }
    }
}

/// In a table whose rows come from text lines, a line with an empty first cell and few
/// cells is the continuation of the row above (a cell wrapped over two lines).
fn merge_continuation_rows(table: &mut Table) {
    let text = |c: &Cell| match c.content.first() {
        Some(Inline::Text { text, .. }) => text.clone(),
        _ => String::new(),
    };
    let mut i = 1;
    while i < table.rows.len() {
        let row = &table.rows[i];
        let filled = row.iter().filter(|c| !c.content.is_empty()).count();
        let continuation = row.first().is_some_and(|c| c.content.is_empty())
            && filled > 0
            && filled * 2 <= row.len()
            && table.rows[i - 1].iter().any(|c| !c.content.is_empty());
        if !continuation {
            i += 1;
            continue;
        }
        let row = table.rows.remove(i);
        for (c, cell) in row.into_iter().enumerate() {
            if cell.content.is_empty() {
                continue;
            }
            if let Some(above) = table.rows[i - 1].get_mut(c) {
                let joined = match text(above).as_str() {
                    "" => text(&cell),
                    a => format!("{a} {}", text(&cell)),
                };
                above.content = vec![Inline::plain(joined)];
            }
        }
        if i < table.header_rows {
            table.header_rows -= 1;
        }
    }
}

/// Removes columns that are empty in every row.
fn prune_columns(mut table: Table) -> Table {
    let cols = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    let keep: Vec<bool> = (0..cols)
        .map(|c| {
            table
                .rows
                .iter()
                .any(|r| r.get(c).is_some_and(|cell| !cell.content.is_empty()))
        })
        .collect();
    for row in &mut table.rows {
        let mut c = 0;
        row.retain(|_| {
            let k = keep.get(c).copied().unwrap_or(false);
            c += 1;
            k
        });
    }
    table
}

fn cell_of(r: &Rect, xs: &[f32], ys: &[f32]) -> Option<(usize, usize)> {
    let cx = (r.x0 + r.x1) / 2.0;
    let cy = r.center_y();
    let col = xs.windows(2).position(|w| cx >= w[0] && cx < w[1])?;
    let row = ys.windows(2).position(|w| cy >= w[0] && cy < w[1])?;
    Some((row, col))
}

fn remove_words(items: &mut Vec<Item>, xs: &[f32], ys: &[f32]) {
    for item in items.iter_mut() {
        if let Item::Run(run) = item {
            let before = run.words.len();
            run.words.retain(|w| cell_of(&w.rect, xs, ys).is_none());
            if run.words.len() != before {
                if let Some(first) = run.words.first() {
                    let mut rect = first.rect;
                    for w in &run.words[1..] {
                        rect = rect.union(&w.rect);
                    }
                    run.rect = rect;
                    run.chars = run.words.iter().map(|w| w.text.chars().count()).sum();
                }
            }
        }
    }
    items.retain(|i| !matches!(i, Item::Run(r) if r.words.is_empty()));
}

/// Lines of text in a cell (distinct vertical positions).
fn line_count(words: &[Word]) -> usize {
    let mut tops: Vec<f32> = Vec::new();
    for w in words {
        if !tops
            .iter()
            .any(|t| (t - w.rect.center_y()).abs() < 0.5 * w.rect.height())
        {
            tops.push(w.rect.center_y());
        }
    }
    tops.len()
}

/// A cell's words in reading order (lines top to bottom), as one text run.
fn cell_text(mut words: Vec<Word>) -> Vec<Inline> {
    if words.is_empty() {
        return Vec::new();
    }
    words.sort_by(|a, b| a.rect.y0.total_cmp(&b.rect.y0));
    let mut lines: Vec<Vec<Word>> = Vec::new();
    for w in words {
        match lines.last_mut() {
            Some(line)
                if line.last().is_some_and(|l| {
                    l.rect.v_overlap(&w.rect) >= 0.5 * l.rect.height().min(w.rect.height())
                }) =>
            {
                line.push(w)
            }
            _ => lines.push(vec![w]),
        }
    }
    let mut text = String::new();
    for mut line in lines {
        line.sort_by(|a, b| a.rect.x0.total_cmp(&b.rect.x0));
        for (i, w) in line.iter().enumerate() {
            if !text.is_empty() && (i > 0 && w.space_before || i == 0) {
                if i == 0 && text.ends_with('-') {
                    text.pop();
                } else {
                    text.push(' ');
                }
            }
            text.push_str(&w.text);
        }
    }
    vec![Inline::plain(text)]
}

/// Boxes of "open" tables (booktabs style): two or more horizontal rules of the same extent
/// above one another, without vertical rules.
fn open_tables(rules: &[Rect]) -> Vec<Rect> {
    let mut hs: Vec<&Rect> = rules
        .iter()
        .filter(|r| r.width() >= r.height() && r.width() >= 40.0)
        .collect();
    hs.sort_by(|a, b| a.y0.total_cmp(&b.y0));
    let mut used = vec![false; hs.len()];
    let mut out = Vec::new();
    for i in 0..hs.len() {
        if used[i] {
            continue;
        }
        let mut group = vec![i];
        for j in i + 1..hs.len() {
            if !used[j]
                && (hs[j].x0 - hs[i].x0).abs() <= TOUCH
                && (hs[j].x1 - hs[i].x1).abs() <= TOUCH
                && hs[j].y0 - hs[i].y1 > 4.0
            {
                group.push(j);
            }
        }
        let (first, last) = (hs[group[0]], hs[group[group.len() - 1]]);
        // Two rules that are the top and bottom of a closed box (vertical rules join their
        // ends) frame a region: a page border, a slide's frame, a sidebar. Its text is laid
        // out as text; a box that is a table has rules inside it too.
        let joined = |x: f32| {
            rules.iter().any(|r| {
                r.height() > r.width()
                    && ((r.x0 + r.x1) / 2.0 - x).abs() <= TOUCH
                    && r.y0 <= first.center_y() + TOUCH
                    && r.y1 >= last.center_y() - TOUCH
            })
        };
        let frame = group.len() == 2 && joined(first.x0) && joined(first.x1);
        if group.len() >= 2 && !frame {
            for &g in &group {
                used[g] = true;
            }
            out.push(Rect::new(
                first.x0,
                first.center_y(),
                first.x1,
                last.center_y(),
            ));
        }
    }
    out
}

/// Columns from white gaps through all words of an open table, rows from its text lines.
fn aligned_grid(words: &[&Word], bbox: &Rect) -> Option<(Vec<f32>, Vec<f32>)> {
    if words.len() < 4 {
        return None;
    }
    let size = crate::geom::median(words.iter().map(|w| w.size)).max(4.0);
    let mut spans: Vec<(f32, f32)> = words.iter().map(|w| (w.rect.x0, w.rect.x1)).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut xs = vec![bbox.x0.min(spans[0].0 - 1.0)];
    let mut end = spans[0].1;
    for (a, b) in &spans[1..] {
        if *a - end >= size {
            xs.push((a + end) / 2.0);
        }
        end = end.max(*b);
    }
    xs.push(bbox.x1.max(end + 1.0));
    let mut rows: Vec<(f32, f32)> = Vec::new();
    let mut sorted: Vec<&&Word> = words.iter().collect();
    sorted.sort_by(|a, b| a.rect.y0.total_cmp(&b.rect.y0));
    for w in sorted {
        match rows.last_mut() {
            Some((_, bottom)) if w.rect.center_y() < *bottom => *bottom = bottom.max(w.rect.y1),
            _ => rows.push((w.rect.y0, w.rect.y1)),
        }
    }
    if xs.len() < 3 || rows.len() < 2 {
        return None;
    }
    let mut ys = vec![bbox.y0.min(rows[0].0)];
    for pair in rows.windows(2) {
        ys.push((pair[0].1 + pair[1].0) / 2.0);
    }
    ys.push(bbox.y1.max(rows[rows.len() - 1].1));
    Some((xs, ys))
}

/// Header rows of an open table: the text rows above its second rule, when it has three.
fn header_rows(rules: &[Rect], bbox: &Rect, ys: &[f32]) -> usize {
    let inner: Vec<f32> = rules
        .iter()
        .filter(|r| {
            r.width() >= r.height()
                && (r.x0 - bbox.x0).abs() <= TOUCH
                && r.center_y() > bbox.y0 + 2.0
                && r.center_y() < bbox.y1 - 2.0
        })
        .map(Rect::center_y)
        .collect();
    match inner.iter().copied().reduce(f32::min) {
        Some(mid) => ys.windows(2).filter(|w| w[1] <= mid + 2.0).count().max(1),
        None => 1,
    }
}

/// Grid line positions `(xs, ys)` of every ruled component with at least one cell.
fn grids(rules: &[Rect]) -> Vec<(Vec<f32>, Vec<f32>)> {
    let horizontal = |r: &Rect| r.width() >= r.height();
    let n = rules.len().min(2000);
    let rules = &rules[..n];
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (&rules[i], &rules[j]);
            let touch = a.x0 - TOUCH <= b.x1
                && b.x0 - TOUCH <= a.x1
                && a.y0 - TOUCH <= b.y1
                && b.y0 - TOUCH <= a.y1;
            if touch {
                let (ra, rb) = (find(&mut parent, i), find(&mut parent, j));
                parent[ra] = rb;
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for i in 0..n {
        let root = find(&mut parent, i);
        groups.entry(root).or_default().push(i);
    }
    let mut out = Vec::new();
    for members in groups.values() {
        let ys = positions(
            members
                .iter()
                .filter(|&&i| horizontal(&rules[i]))
                .map(|&i| rules[i].center_y()),
        );
        let xs = positions(
            members
                .iter()
                .filter(|&&i| !horizontal(&rules[i]))
                .map(|&i| (rules[i].x0 + rules[i].x1) / 2.0),
        );
        if xs.len() >= 2 && ys.len() >= 2 && (xs.len() - 1) * (ys.len() - 1) >= 2 {
            out.push((xs, ys));
        }
    }
    out.sort_by(|a, b| a.1[0].total_cmp(&b.1[0]));
    out
}

/// Sorted positions with near-duplicates merged.
fn positions(values: impl Iterator<Item = f32>) -> Vec<f32> {
    let mut v: Vec<f32> = values.filter(|x| x.is_finite()).collect();
    v.sort_by(f32::total_cmp);
    let mut out: Vec<f32> = Vec::new();
    for x in v {
        if out.last().is_none_or(|l| x - l > SAME_LINE) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::cell_texts as texts;

    fn run(x: f32, y: f32, text: &str) -> Item {
        crate::testkit::run(x, y, text, 6.0)
    }

    #[test]
    fn a_wrapped_first_cell_of_an_open_table_continues_its_row() {
        // Rules above and below the header and under the last row, none between the rows;
        // rows 18 pt apart (12 pt leading and cell padding), a wrapped cell's second line
        // 12 pt under its first, in the first column, starting in upper case.
        let rules = [
            Rect::new(0.0, 0.0, 300.0, 1.0),
            Rect::new(0.0, 16.0, 300.0, 17.0),
            Rect::new(0.0, 94.0, 300.0, 95.0),
        ];
        let mut items = vec![
            run(2.0, 4.0, "Name"),
            run(100.0, 4.0, "Kind"),
            run(200.0, 4.0, "Count"),
            run(2.0, 22.0, "Alpha"),
            run(100.0, 22.0, "Red"),
            run(200.0, 22.0, "12"),
            run(2.0, 40.0, "Beta gamma"),
            run(100.0, 40.0, "Blue"),
            run(200.0, 40.0, "7"),
            run(2.0, 52.0, "Delta"),
            run(2.0, 70.0, "Epsilon"),
            run(100.0, 70.0, "Green"),
            run(200.0, 70.0, "3"),
            run(2.0, 82.0, "Zeta"),
        ];
        let found = extract(&rules, &mut items);
        assert_eq!(found.len(), 1);
        assert_eq!(
            texts(&found[0].1),
            vec![
                vec!["Name", "Kind", "Count"],
                vec!["Alpha", "Red", "12"],
                vec!["Beta gamma Delta", "Blue", "7"],
                vec!["Epsilon Zeta", "Green", "3"],
            ]
        );
    }

    #[test]
    fn rows_of_an_open_table_set_at_one_pitch_stay_apart() {
        let rules = [
            Rect::new(0.0, 0.0, 300.0, 1.0),
            Rect::new(0.0, 16.0, 300.0, 17.0),
            Rect::new(0.0, 70.0, 300.0, 71.0),
        ];
        let mut items = vec![
            run(2.0, 4.0, "Name"),
            run(100.0, 4.0, "Kind"),
            run(2.0, 22.0, "Alpha"),
            run(100.0, 22.0, "Red"),
            run(2.0, 34.0, "Beta"),
            run(2.0, 46.0, "Gamma"),
            run(100.0, 46.0, "Green"),
            run(2.0, 58.0, "Delta"),
        ];
        let found = extract(&rules, &mut items);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.rows.len(), 5, "{:?}", texts(&found[0].1));
    }

    #[test]
    fn a_frame_around_the_page_is_not_an_open_table() {
        // A slide's border drawn as a closed box; inside, a title and a list on the left and
        // a label on the right, white between them.
        let rules = [
            Rect::new(0.0, 0.0, 400.0, 0.0),
            Rect::new(400.0, 0.0, 400.0, 300.0),
            Rect::new(0.0, 300.0, 400.0, 300.0),
            Rect::new(0.0, 0.0, 0.0, 300.0),
        ];
        let mut items = vec![
            run(20.0, 20.0, "Second slide title"),
            run(20.0, 60.0, "Let us introduce a list"),
            run(20.0, 80.0, "With foo"),
            run(20.0, 100.0, "Bar"),
            run(250.0, 100.0, "A shape with text"),
            run(20.0, 120.0, "And baz things"),
        ];
        let found = extract(&rules, &mut items);
        assert!(
            found.is_empty(),
            "{:?}",
            found.iter().map(|f| texts(&f.1)).collect::<Vec<_>>()
        );
        assert_eq!(items.len(), 6);
    }
}
