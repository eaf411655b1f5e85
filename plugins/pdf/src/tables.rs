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

/// A grid that may hold a table: its column and row edges.
struct Candidate {
    xs: Vec<f32>,
    ys: Vec<f32>,
    header_rows: usize,
    /// An open table (rules across, none down): rows are its text lines.
    open: bool,
    /// Of an open table whose rows are ruled or shaded: the part each line is in
    /// ([`ruled_parts`]).
    parts: Option<Vec<usize>>,
}

/// Finds ruled tables, removes their words from `items`, and returns each with its box.
pub fn extract(rules: &[Rect], items: &mut Vec<Item>) -> Vec<(Rect, Table)> {
    if rules.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    // A grid of one row or one column is a shaded band (a striped table's row, each cell
    // filled on its own) or a box: never a table by itself, nor in the way of one.
    let (grids, bands): (Vec<_>, Vec<_>) = grids(rules)
        .into_iter()
        .partition(|(xs, ys)| xs.len() >= 3 && ys.len() >= 3);
    let mut candidates: Vec<Candidate> = grids
        .into_iter()
        .map(|(xs, ys)| Candidate {
            xs,
            ys,
            header_rows: 1,
            open: false,
            parts: None,
        })
        .collect();
    for bbox in open_tables(rules) {
        let inside = |r: &Rect| {
            let (cx, cy) = ((r.x0 + r.x1) / 2.0, r.center_y());
            bbox.contains_point(cx, cy)
        };
        let overlaps = |(xs, ys): (&Vec<f32>, &Vec<f32>)| {
            let g = Rect::new(xs[0], ys[0], xs[xs.len() - 1], ys[ys.len() - 1]);
            g.v_overlap(&bbox) > 0.0 && g.x0 < bbox.x1 && bbox.x0 < g.x1
        };
        // A band of the box's width is one of its shaded rows; other boxes drawn over it
        // (a diagram's) leave it alone, as grids do.
        let row_of_box = |xs: &Vec<f32>| {
            xs.len() >= 3
                && (xs[0] - bbox.x0).abs() <= 2.0 * TOUCH
                && (xs[xs.len() - 1] - bbox.x1).abs() <= 2.0 * TOUCH
        };
        if candidates.iter().any(|c| overlaps((&c.xs, &c.ys)))
            || bands
                .iter()
                .any(|(xs, ys)| overlaps((xs, ys)) && !row_of_box(xs))
        {
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
        // The cells of a shaded row, filled one by one, draw the table's column edges. Rows
        // shaded with other edges are another table's: the rules grouped two tables (and the
        // text between them), and the box is none.
        let shaded: Vec<&Vec<f32>> = bands
            .iter()
            .filter(|(xs, ys)| overlaps((xs, ys)) && row_of_box(xs))
            .map(|(xs, _)| xs)
            .collect();
        let same = |a: &Vec<f32>, b: &Vec<f32>| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= TOUCH)
        };
        if shaded.windows(2).any(|w| !same(w[0], w[1])) {
            continue;
        }
        let columns = shaded.first().map(|xs| xs.to_vec());
        if let Some((xs, ys)) = aligned_grid(&words, &bbox, columns) {
            let header = header_rows(rules, &bbox, &ys);
            let parts = ruled_parts(rules, &bbox, &ys);
            candidates.push(Candidate {
                xs,
                ys,
                header_rows: header,
                open: true,
                parts,
            });
        }
    }
    for Candidate {
        xs,
        ys,
        mut header_rows,
        open,
        parts,
    } in candidates
    {
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
        if let Some(parts) = &parts {
            header_rows = merge_ruled_lines(&mut cells, parts, header_rows);
        }
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
            merge_header_lines(&mut table);
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

/// The text lines above an open table's header rule are its header rows; a line that leaves
/// cells empty and has text only under text of the line above is the second line of header
/// cells too long for their column ("Trol" over "Cliffdair"), not a header row of its own: it
/// joins the line above. (A second header row under a spanning group label fills cells the
/// line above leaves empty.)
fn merge_header_lines(table: &mut Table) {
    let mut i = 1;
    while i < table.header_rows.min(table.rows.len()) {
        let (above, row) = (&table.rows[i - 1], &table.rows[i]);
        let filled = row.iter().filter(|c| !c.content.is_empty()).count();
        let under = row.iter().enumerate().all(|(c, cell)| {
            cell.content.is_empty() || above.get(c).is_some_and(|a| !a.content.is_empty())
        });
        if filled == 0 || filled == row.len() || !under {
            i += 1;
            continue;
        }
        let row = table.rows.remove(i);
        for (c, cell) in row.into_iter().enumerate() {
            if let Some(above) = table.rows[i - 1].get_mut(c) {
                if !cell.content.is_empty() {
                    // The words keep their weight and links; the line break is a space.
                    above.content.push(Inline::plain(" "));
                    above.content.extend(cell.content);
                }
            }
        }
        table.header_rows -= 1;
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
/// `columns`: the column edges when the table draws them (shaded cells).
fn aligned_grid(
    words: &[&Word],
    bbox: &Rect,
    columns: Option<Vec<f32>>,
) -> Option<(Vec<f32>, Vec<f32>)> {
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
    if let Some(edges) = columns.filter(|e| e.len() > xs.len()) {
        // Inner edges drawn, the box's own sides kept; unless words run across them (the
        // box holds more than the shaded table: text between two tables' rules).
        let (first, last) = (xs[0], xs[xs.len() - 1]);
        let inner: Vec<f32> = edges
            .into_iter()
            .filter(|&x| x > first + SAME_LINE && x < last - SAME_LINE)
            .collect();
        let crossing = words
            .iter()
            .filter(|w| {
                inner
                    .iter()
                    .any(|&x| w.rect.x0 < x - 1.0 && w.rect.x1 > x + 1.0)
            })
            .count();
        if crossing * 20 <= words.len() {
            xs = std::iter::once(first)
                .chain(inner)
                .chain(std::iter::once(last))
                .collect();
        }
    }
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

/// Which of an open table's text lines lie between the same two rules, when its rows are
/// ruled or shaded (a rule, or a band's edge, across the table between rows): `None` when
/// no rules part them. One value a line (`ys` are the lines' bounds): how many rules are above
/// it. Rules part the rows when there are three or more between the top and the bottom
/// and none of the parts holds more than six lines (rules under the header, above a total
/// row or between long groups of rows leave the rows to their lines alone).
fn ruled_parts(rules: &[Rect], bbox: &Rect, ys: &[f32]) -> Option<Vec<usize>> {
    // Horizontal rule segments inside the box, by height; a height counts where they cover
    // most of the box's width (a band of cells filled one by one is drawn cell by cell).
    let mut segs: Vec<&Rect> = rules
        .iter()
        .filter(|r| {
            r.width() >= r.height()
                && r.center_y() > bbox.y0 + SAME_LINE
                && r.center_y() < bbox.y1 - SAME_LINE
                && r.x1 > bbox.x0
                && r.x0 < bbox.x1
        })
        .collect();
    segs.sort_by(|a, b| a.center_y().total_cmp(&b.center_y()));
    let mut lines: Vec<f32> = Vec::new();
    let mut k = 0;
    while k < segs.len() {
        let y = segs[k].center_y();
        let mut covered = 0.0;
        while k < segs.len() && segs[k].center_y() - y <= SAME_LINE {
            covered += segs[k].x1.min(bbox.x1) - segs[k].x0.max(bbox.x0);
            k += 1;
        }
        if covered >= 0.8 * bbox.width() {
            lines.push(y);
        }
    }
    let key: Vec<usize> = ys
        .windows(2)
        .map(|w| lines.partition_point(|&l| l < (w[0] + w[1]) / 2.0))
        .collect();
    let mut per_part = vec![0usize; lines.len() + 1];
    for &k in &key {
        per_part[k] += 1;
    }
    (lines.len() >= 3 && per_part.iter().all(|&n| n <= 6)).then_some(key)
}

/// Joins the lines of a ruled or shaded row ([`ruled_parts`]): a line that leaves a cell
/// empty continues the line above when no rule parts them (a cell's wrapped lines); a line
/// that fills every cell starts a row of its own. Returns the header rows left of `header`.
fn merge_ruled_lines(cells: &mut Vec<Vec<Vec<Word>>>, part: &[usize], header: usize) -> usize {
    let mut header_left = header;
    // `r` indexes `cells` as it shrinks, `line` the text line it came from.
    let mut r = 1;
    debug_assert_eq!(cells.len(), part.len());
    for line in 1..part.len().min(cells.len()) {
        let filled = cells[r].iter().filter(|c| !c.is_empty()).count();
        if part[line] != part[line - 1] || filled == 0 || filled == cells[r].len() {
            r += 1;
            continue;
        }
        let row = cells.remove(r);
        for (c, words) in row.into_iter().enumerate() {
            cells[r - 1][c].extend(words);
        }
        if line < header {
            header_left -= 1;
        }
    }
    header_left.max(1)
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

    /// The edges of a row shaded cell by cell: each cell's fill outlined as four rules.
    fn shaded_row(edges: &[f32], top: f32, bottom: f32) -> Vec<Rect> {
        edges
            .windows(2)
            .flat_map(|w| {
                [
                    Rect::new(w[0], top, w[1], top),
                    Rect::new(w[0], bottom, w[1], bottom),
                    Rect::new(w[0], top, w[0], bottom),
                    Rect::new(w[1], top, w[1], bottom),
                ]
            })
            .collect()
    }

    #[test]
    fn a_striped_open_table_takes_its_columns_and_rows_from_the_shading() {
        // Rules above and under the header and under the table; every other row shaded, cell
        // by cell. The first column's text runs up to the second's (no white column an em
        // wide between them), rows follow at the text's own pitch, and wrapped cells and a
        // wrapped header leave their other cells empty.
        let edges = [0.0, 60.0, 120.0, 180.0];
        let mut rules = vec![
            Rect::new(0.0, 0.0, 180.0, 1.0),
            Rect::new(0.0, 29.5, 180.0, 30.5),
            Rect::new(0.0, 129.5, 180.0, 130.5),
        ];
        rules.extend(shaded_row(&edges, 30.0, 58.0));
        rules.extend(shaded_row(&edges, 72.0, 100.0));
        let mut items = vec![
            run(2.0, 4.0, "Name"),
            run(62.0, 4.0, "Kind"),
            run(122.0, 4.0, "Count"),
            run(2.0, 16.0, "Long"),
            run(2.0, 32.0, "Clandbrea"),
            run(62.0, 32.0, "Alpha"),
            run(122.0, 32.0, "12"),
            run(2.0, 44.0, "tail"),
            run(2.0, 60.0, "Beta"),
            run(62.0, 60.0, "Red"),
            run(122.0, 60.0, "7"),
            run(2.0, 74.0, "Gamma"),
            run(62.0, 74.0, "Blue"),
            run(122.0, 74.0, "3"),
            run(2.0, 86.0, "more"),
            run(2.0, 104.0, "Delta"),
            run(62.0, 104.0, "Green"),
            run(122.0, 104.0, "5"),
        ];
        let found = extract(&rules, &mut items);
        assert_eq!(
            found.len(),
            1,
            "{:?}",
            found.iter().map(|f| texts(&f.1)).collect::<Vec<_>>()
        );
        let table = &found[0].1;
        assert_eq!(
            texts(table),
            vec![
                vec!["Name Long", "Kind", "Count"],
                vec!["Clandbrea tail", "Alpha", "12"],
                vec!["Beta", "Red", "7"],
                vec!["Gamma more", "Blue", "3"],
                vec!["Delta", "Green", "5"],
            ]
        );
        assert_eq!(table.header_rows, 1);
    }

    #[test]
    fn a_second_header_line_that_fills_every_cell_is_a_header_row() {
        // A group label over two of three columns, then the labels under it.
        let rules = [
            Rect::new(0.0, 0.0, 300.0, 1.0),
            Rect::new(0.0, 28.0, 300.0, 29.0),
            Rect::new(0.0, 70.0, 300.0, 71.0),
        ];
        let mut items = vec![
            run(100.0, 4.0, "Measured"),
            run(2.0, 16.0, "Name"),
            run(100.0, 16.0, "Before"),
            run(200.0, 16.0, "After"),
            run(2.0, 34.0, "Alpha"),
            run(100.0, 34.0, "12"),
            run(200.0, 34.0, "14"),
            run(2.0, 52.0, "Beta"),
            run(100.0, 52.0, "7"),
            run(200.0, 52.0, "9"),
        ];
        let found = extract(&rules, &mut items);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.header_rows, 2, "{:?}", texts(&found[0].1));
        assert_eq!(texts(&found[0].1)[1], vec!["Name", "Before", "After"]);
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
