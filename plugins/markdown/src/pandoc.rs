//! pandoc's own Markdown where CommonMark reads it as something else: metadata at the start
//! (YAML front matter, Hugo's TOML `+++`, pandoc's `%` title block), simple, multiline and
//! grid tables, fancy list markers (`a.`, `B)`, `iv.`, `(3)`, `#.`) and attributes
//! (`[word]{.underline}`, `# Title {#id}`).
//!
//! pandoc writes these (`pandoc -t markdown`) and people write them for pandoc; CommonMark
//! reads a simple table as a paragraph, a rule and a setext heading, a grid table as one
//! paragraph of `+---+` and `|` text, and `a.  item` as a paragraph. The block constructs are
//! recognised on the source lines, before pulldown-cmark, by the rules of pandoc's manual, and
//! written as the CommonMark that means the same:
//!
//! - metadata at the very start is cut off and read into fields (the converter hands them to
//!   the builder);
//! - a table becomes a GFM pipe table at the same indentation (so it stays in the container it
//!   was in), its cells' text joined from their lines with `|` escaped; a table pandoc reads
//!   without a header row is written with its first row as the pipe table's header and its
//!   offset reported, so the builder keeps it a table of body rows;
//! - a caption paragraph beside such a table (`Table: …`, `: …`) loses its prefix and its
//!   closing attributes;
//! - a fancy list marker becomes a decimal one of the same width (`iv.` → `04.`, `(3)` → `03)`),
//!   so the item's content column, and with it everything nested in it, stays where it was.
//!
//! Attributes are inline, so they are dropped from a finished leaf's inlines
//! ([`drop_attributes`]), where code spans and links are already told apart.
//!
//! The recognisers are strict where CommonMark has a reading of its own: a table needs a blank
//! line before it, its columns lined up under the dashed line (nothing but spaces between
//! the dash groups) and a proper end; a fancy list needs a blank line before it and a second
//! item with the next marker, a list nested in its first item or pandoc's four-column marker
//! padding, or else a parent list item it is nested in; nothing turns what CommonMark reads as
//! indented code or a fenced block into anything. Text with none of these is returned
//! borrowed, unchanged.

use std::borrow::Cow;

use quire_plugin_api::Inline;

/// The text pulldown-cmark should read, and where tables without a header row start in it.
pub struct Prepared<'a> {
    pub text: Cow<'a, str>,
    /// Byte offsets in `text` of the first line of each rewritten table that pandoc reads
    /// without a header row (sorted).
    pub headerless: Vec<usize>,
}

/// YAML front matter at the very start of the text: its lines between the delimiters, and
/// where the Markdown after the closing delimiter starts.
///
/// pandoc's rule: `---` on the first line, not followed by a blank line, closed by `---` or
/// `...`; and the block must be a YAML mapping, so its first line that is not a comment is
/// `key: value` (`---` / `Foo` / `---` is a rule and a setext heading, as CommonMark says).
/// Only at the very start: a `---` … `---` later in the text is CommonMark's.
pub fn front_matter(text: &str) -> Option<(&str, usize)> {
    let (first, mut pos) = line(text, 0);
    if first.trim_end() != "---" {
        return None;
    }
    let body_start = pos;
    let mut first_content = true;
    while pos < text.len() {
        let (l, next) = line(text, pos);
        let t = l.trim_end();
        if t == "---" || t == "..." {
            if first_content {
                return None;
            }
            return Some((&text[body_start..pos], next));
        }
        if first_content {
            if t.is_empty() {
                return None;
            }
            if !t.starts_with('#') {
                if !is_yaml_key_line(t) {
                    return None;
                }
                first_content = false;
            }
        }
        pos = next;
    }
    None
}

/// TOML front matter at the very start of the text (Hugo's `+++` … `+++`): its top-level
/// `key = value` fields, and where the Markdown after it starts. Its first line that is not a
/// comment must be such a field.
pub fn toml_front_matter(text: &str) -> Option<(Vec<(String, String)>, usize)> {
    let (first, mut pos) = line(text, 0);
    if first.trim_end() != "+++" {
        return None;
    }
    let mut fields = Vec::new();
    let mut top = true;
    let mut seen = false;
    while pos < text.len() {
        let (l, next) = line(text, pos);
        pos = next;
        let t = l.trim();
        if t == "+++" {
            return seen.then_some((fields, pos));
        }
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with('[') {
            top = false; // a table: its keys are not the page's
            seen = true;
            continue;
        }
        let Some((key, value)) = t.split_once('=') else {
            if !seen {
                return None;
            }
            continue;
        };
        let key = unquote(key.trim());
        if !seen
            && (key.is_empty()
                || !key
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        {
            return None;
        }
        seen = true;
        if top {
            let value = value.trim();
            let value = match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                Some(items) => items
                    .split(',')
                    .map(|i| unquote(i.trim()))
                    .filter(|i| !i.is_empty())
                    .collect::<Vec<_>>()
                    .join(", "),
                None => unquote(value),
            };
            if !value.is_empty() {
                fields.push((key.to_ascii_lowercase(), value));
            }
        }
    }
    None
}

/// pandoc's title block at the very start of the text (`% Title`, `% Author; Author`,
/// `% Date`, each line but the first optional, a field continued on lines that start with a
/// space), followed by a blank line: its title, authors and date, and where the Markdown
/// after it starts.
pub fn title_block(text: &str) -> Option<([String; 3], usize)> {
    let mut fields: [String; 3] = Default::default();
    let mut field = None::<usize>;
    let mut pos = 0;
    while pos < text.len() {
        let (l, next) = line(text, pos);
        if l.trim().is_empty() {
            break;
        }
        if let Some(rest) = l.strip_prefix('%') {
            let k = field.map_or(0, |k| k + 1);
            if k > 2 || (k == 0 && rest.trim().is_empty()) {
                return None;
            }
            fields[k] = rest.trim().to_owned();
            field = Some(k);
        } else if l.starts_with([' ', '\t']) && field.is_some() {
            let k = field?;
            fields[k].push(' ');
            fields[k].push_str(l.trim());
        } else {
            return None;
        }
        pos = next;
    }
    field?;
    Some((fields, pos))
}

/// `key: value` or `key:` at the start of a line, the key a plain or quoted scalar.
fn is_yaml_key_line(line: &str) -> bool {
    let Some(colon) = line.find(':') else {
        return false;
    };
    let key = &line[..colon];
    let after = &line[colon + 1..];
    !key.is_empty()
        && !key.starts_with([
            ' ', '\t', '-', '#', '[', '{', '>', '|', '*', '&', '!', '%', '@',
        ])
        && key.chars().count() <= 80
        && (after.is_empty() || after.starts_with([' ', '\t']))
}

/// The value of each top-level `key:` of a YAML mapping, as text: a plain or quoted scalar
/// (wrapped lines joined), a block scalar (`|`, `>`), or the items of a list (`- a`) joined
/// by commas. Nested mappings and anything else YAML can say are skipped.
pub fn yaml_fields(yaml: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut key: Option<String> = None;
    let mut parts: Vec<String> = Vec::new();
    let mut block = false;
    let flush = |key: &mut Option<String>, parts: &mut Vec<String>, out: &mut Vec<_>, sep| {
        if let Some(k) = key.take() {
            let value = parts.join(sep);
            let value = unquote(value.trim());
            if !value.is_empty() {
                out.push((k, value));
            }
        }
        parts.clear();
    };
    let mut list = false;
    for l in yaml.lines() {
        let t = l.trim();
        if !l.starts_with([' ', '\t']) && !t.is_empty() && !t.starts_with('#') {
            if let Some(dash) = t.strip_prefix("- ").filter(|_| key.is_some() && list) {
                parts.push(unquote(dash.trim()));
                continue;
            }
            let sep = if list { ", " } else { " " };
            flush(&mut key, &mut parts, &mut out, sep);
            list = false;
            block = false;
            if let Some((k, v)) = t.split_once(':') {
                if is_yaml_key_line(t) {
                    key = Some(unquote(k.trim()).to_ascii_lowercase());
                    let v = v.trim();
                    if v.starts_with(['|', '>']) {
                        block = true;
                    } else if v.is_empty() {
                        list = true;
                    } else {
                        parts.push(v.to_owned());
                    }
                }
            }
            continue;
        }
        if key.is_none() || t.is_empty() {
            continue;
        }
        if list {
            if let Some(item) = t.strip_prefix("- ") {
                parts.push(unquote(item.trim()));
            } else if parts.is_empty() {
                // A nested mapping (`author:` / `  name: Ann`): not a text value.
                list = false;
                key = None;
            }
        } else if block || !parts.is_empty() {
            parts.push(t.to_owned());
        }
    }
    let sep = if list { ", " } else { " " };
    flush(&mut key, &mut parts, &mut out, sep);
    out
}

/// A YAML scalar without its quotes (`"a \"b\""`, `'it''s'`).
fn unquote(v: &str) -> String {
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        let inner = &v[1..v.len() - 1];
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => out.push(other),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        out
    } else if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        v[1..v.len() - 1].replace("''", "'")
    } else {
        v.to_owned()
    }
}

/// Rewrites pandoc's tables, their captions and fancy list markers (see the module notes).
pub fn prepare(text: &str) -> Prepared<'_> {
    let mut out = Rewrite {
        text,
        out: None,
        copied: 0,
    };
    let mut headerless = Vec::new();
    let mut pos = 0;
    let mut prev_blank = true;
    let mut fence: Option<(u8, usize)> = None;
    let mut caption: Option<(usize, usize)> = None; // the last paragraph's caption prefix
    let mut lists = Lists::default();
    // the last line with text closed a grid table (`+---+`) that was left as text
    let mut after_grid = false;
    while pos < text.len() {
        let (l, next) = line(text, pos);
        if let Some((ch, len)) = fence {
            if closes_fence(l, ch, len) {
                fence = None;
            }
            pos = next;
            prev_blank = false;
            continue;
        }
        if l.trim().is_empty() {
            prev_blank = true;
            pos = next;
            continue;
        }
        if let Some(f) = opens_fence(l) {
            fence = Some(f);
            lists.clear();
            caption = None;
            after_grid = false;
            prev_blank = false;
            pos = next;
            continue;
        }
        if prev_blank {
            if let Some(table) = table_at(text, pos) {
                if let Some((at, len)) = caption.take() {
                    out.replace(at, at + len, "");
                    if let Some((a, n)) = caption_attributes(text, at) {
                        out.replace(a, a + n, "");
                    }
                }
                out.copy_to(pos);
                if !table.header {
                    headerless.push(out.len());
                }
                out.push(&pipe_table(&table.rows, table.indent));
                out.skip_to(table.end);
                pos = table.end;
                if let Some((at, len)) = caption_after(text, pos) {
                    out.replace(at, at + len, "");
                    if let Some((a, n)) = caption_attributes(text, at) {
                        out.replace(a, a + n, "");
                    }
                }
                lists.clear();
                prev_blank = false;
                after_grid = false;
                continue;
            }
            caption = caption_prefix(l).map(|len| (pos + indent(l).0, len));
            // the caption of a grid table left as text (row spans): its prefix goes, so
            // `: caption` is not read as a definition of the table's text
            if after_grid {
                if let Some((at, len)) = caption.take() {
                    out.replace(at, at + len, "");
                }
            }
        }
        after_grid = is_grid_border(l);
        if let Some((at, len, with)) = lists.line(text, pos, l, prev_blank) {
            out.replace(pos + at, pos + at + len, &with);
        }
        prev_blank = false;
        pos = next;
    }
    Prepared {
        text: out.finish(),
        headerless,
    }
}

/// The text with some ranges replaced, copied only from the first replacement on.
struct Rewrite<'a> {
    text: &'a str,
    out: Option<String>,
    copied: usize,
}

impl<'a> Rewrite<'a> {
    fn copy_to(&mut self, at: usize) {
        if at < self.copied {
            return;
        }
        let text = self.text;
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(text.len() + 64));
        out.push_str(&text[self.copied..at]);
        self.copied = at;
    }

    fn push(&mut self, s: &str) {
        self.copy_to(self.copied);
        if let Some(out) = &mut self.out {
            out.push_str(s);
        }
    }

    fn skip_to(&mut self, at: usize) {
        self.copied = self.copied.max(at);
    }

    fn replace(&mut self, from: usize, to: usize, with: &str) {
        if from < self.copied {
            return;
        }
        self.copy_to(from);
        self.push(with);
        self.skip_to(to);
    }

    fn len(&self) -> usize {
        self.out.as_ref().map_or(self.copied, String::len)
    }

    fn finish(mut self) -> Cow<'a, str> {
        match self.out.take() {
            None => Cow::Borrowed(self.text),
            Some(mut out) => {
                out.push_str(&self.text[self.copied..]);
                Cow::Owned(out)
            }
        }
    }
}

// ---- lines ----

/// The line starting at `pos` without its line end (and `\r`), and where the next starts.
fn line(text: &str, pos: usize) -> (&str, usize) {
    let rest = &text[pos..];
    let (l, next) = match rest.find('\n') {
        Some(i) => (&rest[..i], pos + i + 1),
        None => (rest, text.len()),
    };
    (l.strip_suffix('\r').unwrap_or(l), next)
}

fn is_blank(l: &str) -> bool {
    l.trim().is_empty()
}

/// The line's indentation in columns (tabs to the next multiple of 4) and whether it holds a
/// tab.
fn indent(l: &str) -> (usize, bool) {
    let mut col = 0;
    let mut tab = false;
    for b in l.bytes() {
        match b {
            b' ' => col += 1,
            b'\t' => {
                col = col / 4 * 4 + 4;
                tab = true;
            }
            _ => break,
        }
    }
    (col, tab)
}

/// A fence opening line (after any indentation): its character and length.
fn opens_fence(l: &str) -> Option<(u8, usize)> {
    let t = l.trim_start_matches([' ', '\t']);
    let t = t.trim_start_matches(['>', ' ']);
    let ch = *t.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = t.bytes().take_while(|&b| b == ch).count();
    if len < 3 || (ch == b'`' && t[len..].contains('`')) {
        return None;
    }
    Some((ch, len))
}

fn closes_fence(l: &str, ch: u8, len: usize) -> bool {
    let t = l.trim_start_matches([' ', '\t']);
    let t = t.trim_start_matches(['>', ' ']);
    let n = t.bytes().take_while(|&b| b == ch).count();
    n >= len && t[n..].trim().is_empty()
}

/// Display columns of a character: East Asian wide and fullwidth characters take two (as
/// pandoc lines them up), combining marks none.
fn width(c: char) -> usize {
    let u = c as u32;
    if (0x300..=0x36f).contains(&u) || (0x200b..=0x200f).contains(&u) {
        return 0;
    }
    let wide = matches!(u,
        0x1100..=0x115f | 0x2e80..=0x303e | 0x3041..=0x33ff | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff | 0xa000..=0xa4cf | 0xac00..=0xd7a3 | 0xf900..=0xfaff
        | 0xfe30..=0xfe4f | 0xff00..=0xff60 | 0xffe0..=0xffe6 | 0x1f300..=0x1f64f
        | 0x1f900..=0x1f9ff | 0x20000..=0x2fffd | 0x30000..=0x3fffd);
    if wide {
        2
    } else {
        1
    }
}

/// Each character of a line with the display column it starts at.
fn columns(l: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut col = 0;
    l.chars().map(move |c| {
        let at = col;
        col += if c == '\t' { 4 - col % 4 } else { width(c) };
        (at, c)
    })
}

/// The text of the characters starting at columns `from..to` (to the end when `to` is None),
/// trimmed.
fn slice(l: &str, from: usize, to: Option<usize>) -> String {
    let s: String = columns(l)
        .filter(|&(at, _)| at >= from && to.is_none_or(|to| at < to))
        .map(|(_, c)| c)
        .collect();
    s.trim().to_owned()
}

// ---- tables ----

struct TableMatch {
    /// Where the text after the table starts.
    end: usize,
    rows: Vec<Vec<String>>,
    header: bool,
    indent: usize,
}

/// Runs of dashes separated by spaces (a simple or multiline table's column line): the start
/// and end column of each; at least two runs, at most three spaces before the first.
fn dash_groups(l: &str) -> Option<Vec<(usize, usize)>> {
    let t = l.trim_end();
    if !t.bytes().all(|b| b == b' ' || b == b'-') || indent(t).0 > 3 {
        return None;
    }
    let mut groups = Vec::new();
    let mut start = None;
    for (i, b) in t.bytes().enumerate() {
        match (b, start) {
            (b'-', None) => start = Some(i),
            (b' ', Some(s)) => {
                groups.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        groups.push((s, t.len()));
    }
    (groups.len() >= 2 && groups.iter().any(|&(s, e)| e - s >= 3)).then_some(groups)
}

/// A line of one run of at least three dashes (a multiline table's top or bottom).
fn dash_run(l: &str) -> bool {
    let t = l.trim();
    t.len() >= 3 && t.bytes().all(|b| b == b'-') && indent(l).0 <= 3
}

/// Whether the line has nothing but spaces before the first column and between columns.
fn lined_up(l: &str, groups: &[(usize, usize)]) -> bool {
    columns(l).all(|(at, c)| {
        c == ' ' || (at >= groups[0].0 && !groups.windows(2).any(|w| at >= w[0].1 && at < w[1].0))
    })
}

/// A row's cells from its lines: column i runs from its dashes' start to the next column's.
fn cells(lines: &[&str], groups: &[(usize, usize)]) -> Vec<String> {
    (0..groups.len())
        .map(|i| {
            let to = groups.get(i + 1).map(|g| g.0);
            let from = if i == 0 { 0 } else { groups[i].0 };
            join_lines(lines.iter().map(|l| slice(l, from, to)))
        })
        .collect()
}

/// A cell's lines as one line of text: joined by spaces, a line's closing backslash (a hard
/// line break, which a pipe table cannot hold) dropped.
fn join_lines(lines: impl Iterator<Item = String>) -> String {
    let mut out = String::new();
    for l in lines {
        let l = l.strip_suffix('\\').map_or(l.as_str(), str::trim_end);
        if l.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(l);
    }
    out
}

/// A pandoc table starting at `pos` (which follows a blank line), ending before a blank line
/// or the end of the text.
fn table_at(text: &str, pos: usize) -> Option<TableMatch> {
    let (first, next) = line(text, pos);
    let ind = indent(first);
    if ind.1 {
        return None;
    }
    if ind.0 > 3 {
        // A right-aligned header may start further in than its dashes; the dashed line
        // under it must be no more indented than a paragraph.
        let (second, _) = line(text, next);
        dash_groups(second)?;
    }
    let t = first.trim_start();
    if t.starts_with('+') {
        return grid_table(text, pos);
    }
    if dash_run(first) {
        return multiline_table(text, next, ind.0);
    }
    if let Some(groups) = dash_groups(first) {
        return headerless_table(text, next, &groups, ind.0);
    }
    let (second, after) = line(text, next);
    let groups = dash_groups(second)?;
    if !lined_up(first, &groups) {
        return None;
    }
    let ind = indent(second);
    // A simple table: one line per row, to a blank line (or a dashed line and a blank line).
    let mut rows = vec![cells(&[first], &groups)];
    let mut p = after;
    while p < text.len() {
        let (l, n) = line(text, p);
        if is_blank(l) {
            break;
        }
        if dash_groups(l).is_some() || dash_run(l) {
            let (following, _) = line(text, n);
            if n >= text.len() || is_blank(following) {
                p = n;
                break;
            }
            return None;
        }
        if !lined_up(l, &groups) {
            return None;
        }
        rows.push(cells(&[l], &groups));
        p = n;
    }
    (rows.len() >= 2).then_some(TableMatch {
        end: p,
        rows,
        header: true,
        indent: ind.0,
    })
}

/// The lines from `pos` up to a closing dashed line followed by a blank line or the end:
/// (the lines, where the text after the closing line starts).
fn body_to_closing_line<'a>(
    text: &'a str,
    mut pos: usize,
    groups: &[(usize, usize)],
) -> Option<(Vec<&'a str>, usize)> {
    let mut lines = Vec::new();
    while pos < text.len() {
        let (l, n) = line(text, pos);
        if dash_run(l) || dash_groups(l).is_some() {
            let (following, _) = line(text, n);
            return (n >= text.len() || is_blank(following)).then_some((lines, n));
        }
        if !is_blank(l) && !lined_up(l, groups) {
            return None;
        }
        lines.push(l);
        pos = n;
        if lines.len() > 100_000 {
            return None;
        }
    }
    None
}

/// Rows of a multiline table's body: groups of lines between blank lines.
fn multiline_rows(lines: &[&str], groups: &[(usize, usize)]) -> Vec<Vec<String>> {
    lines
        .split(|l| is_blank(l))
        .filter(|chunk| !chunk.is_empty())
        .map(|chunk| cells(chunk, groups))
        .collect()
}

/// A multiline table after its top line of dashes: header lines, the column line, rows
/// separated by blank lines, a closing line of dashes.
fn multiline_table(text: &str, mut pos: usize, indent: usize) -> Option<TableMatch> {
    let mut header = Vec::new();
    let groups = loop {
        if pos >= text.len() {
            return None;
        }
        let (l, n) = line(text, pos);
        pos = n;
        if is_blank(l) || header.len() > 20 {
            return None;
        }
        if let Some(groups) = dash_groups(l) {
            break groups;
        }
        header.push(l);
    };
    if header.is_empty() || !header.iter().all(|l| lined_up(l, &groups)) {
        return None;
    }
    let (body, end) = body_to_closing_line(text, pos, &groups)?;
    let mut rows = vec![cells(&header, &groups)];
    rows.extend(multiline_rows(&body, &groups));
    (rows.len() >= 2).then_some(TableMatch {
        end,
        rows,
        header: true,
        indent,
    })
}

/// A simple or multiline table without a header row: a column line, the rows, a closing
/// dashed line. Rows are lines, or groups of lines when blank lines separate them.
fn headerless_table(
    text: &str,
    pos: usize,
    groups: &[(usize, usize)],
    indent: usize,
) -> Option<TableMatch> {
    let (body, end) = body_to_closing_line(text, pos, groups)?;
    let rows: Vec<Vec<String>> = if body.iter().any(|l| is_blank(l)) {
        multiline_rows(&body, groups)
    } else {
        body.iter().map(|l| cells(&[l], groups)).collect()
    };
    (!rows.is_empty()).then_some(TableMatch {
        end,
        rows,
        header: false,
        indent,
    })
}

/// A grid table: `+---+---+` borders (`+===+` under the header row), `|`-separated cell
/// lines; a cell spanning columns is where a row's lines have no `|` on a column boundary.
/// Row spans and anything irregular leave the text to CommonMark.
fn grid_table(text: &str, pos: usize) -> Option<TableMatch> {
    let (first, mut p) = line(text, pos);
    let ind = indent(first).0;
    let border = |l: &str| -> Option<Vec<usize>> {
        let t = l.trim_end();
        let body = t.trim_start_matches([' ', '\t']);
        if !body.starts_with('+')
            || !body.ends_with('+')
            || body.len() < 3
            || !body.bytes().all(|b| matches!(b, b'+' | b'-' | b'=' | b':'))
            || body.contains("++")
        {
            return None;
        }
        Some(
            columns(t)
                .filter(|&(_, c)| c == '+')
                .map(|(at, _)| at)
                .collect(),
        )
    };
    let bounds = border(first)?;
    if bounds.len() < 2 {
        return None;
    }
    let last = *bounds.last()?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = false;
    let mut row_lines: Vec<&str> = Vec::new();
    let mut closed = false;
    while p < text.len() {
        let (l, n) = line(text, p);
        let t = l.trim_start();
        if !(t.starts_with('+') || t.starts_with('|')) || indent(l).0 != ind {
            break;
        }
        p = n;
        closed = false;
        if t.starts_with('+') {
            let b = border(l)?;
            if b.last() != Some(&last) || !b.iter().all(|x| bounds.contains(x)) {
                return None;
            }
            if row_lines.is_empty() {
                return None;
            }
            rows.push(grid_row(&row_lines, &bounds)?);
            row_lines.clear();
            if l.contains('=') && rows.len() == 1 {
                header = true;
            }
            closed = true;
        } else {
            row_lines.push(l);
            if row_lines.len() > 10_000 {
                return None;
            }
        }
    }
    if !closed || rows.is_empty() {
        return None;
    }
    let (following, _) = line(text, p);
    if p < text.len() && !is_blank(following) {
        return None;
    }
    Some(TableMatch {
        end: p,
        rows,
        header,
        indent: ind,
    })
}

/// One grid row's cells from its lines; a merged cell's text goes to its first column.
fn grid_row(lines: &[&str], bounds: &[usize]) -> Option<Vec<String>> {
    let bar_at = |l: &str, col: usize| columns(l).any(|(at, c)| at == col && c == '|');
    let last = *bounds.last()?;
    for l in lines {
        if !bar_at(l, bounds[0]) || !bar_at(l, last) || columns(l.trim_end()).last()?.0 != last {
            return None;
        }
    }
    let splits: Vec<bool> = bounds
        .iter()
        .map(|&b| lines.iter().all(|l| bar_at(l, b)))
        .collect();
    // A boundary some lines cross and others do not is a row span: not ours to guess.
    for (i, &b) in bounds.iter().enumerate() {
        if !splits[i] && lines.iter().any(|l| bar_at(l, b)) {
            return None;
        }
    }
    let mut cells = vec![String::new(); bounds.len() - 1];
    let mut start = 0;
    for end in 1..bounds.len() {
        if !splits[end] {
            continue;
        }
        cells[start] = join_lines(
            lines
                .iter()
                .map(|l| slice(l, bounds[start] + 1, Some(bounds[end]))),
        );
        start = end;
    }
    Some(cells)
}

/// A GFM pipe table of the rows (the first one its header), at the given indentation.
fn pipe_table(rows: &[Vec<String>], indent: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let pad = " ".repeat(indent);
    let mut s = String::new();
    for (i, row) in rows.iter().enumerate() {
        s.push_str(&pad);
        s.push('|');
        for c in 0..columns {
            s.push(' ');
            if let Some(cell) = row.get(c) {
                s.push_str(&cell.replace('|', "\\|"));
            }
            s.push_str(" |");
        }
        s.push('\n');
        if i == 0 {
            s.push_str(&pad);
            s.push('|');
            for _ in 0..columns {
                s.push_str(" --- |");
            }
            s.push('\n');
        }
    }
    s
}

/// The length of a caption's prefix (`Table: `, `table: `, `: `) after the indentation.
/// A grid table's border line: `+`, then `-`, `=` and `:` runs parted by `+`, then `+`.
fn is_grid_border(l: &str) -> bool {
    let t = l.trim();
    t.len() > 2
        && t.starts_with('+')
        && t.ends_with('+')
        && t.bytes().all(|b| matches!(b, b'+' | b'-' | b'=' | b':'))
        && t.contains('-')
}

fn caption_prefix(l: &str) -> Option<usize> {
    let (ind, tab) = indent(l);
    if ind > 3 || tab {
        return None;
    }
    let t = &l[ind..];
    let rest = t
        .strip_prefix("Table:")
        .or_else(|| t.strip_prefix("table:"))
        .or_else(|| t.strip_prefix(':'))?;
    let body = rest.trim_start_matches([' ', '\t']);
    if body.len() == rest.len() || body.trim().is_empty() {
        return None;
    }
    Some(t.len() - body.len())
}

/// The attributes closing the caption paragraph that starts at `pos` (`: Students {#s}`):
/// where they start (with the spaces before them) and their length.
fn caption_attributes(text: &str, mut pos: usize) -> Option<(usize, usize)> {
    let mut last = None;
    for _ in 0..1000 {
        if pos >= text.len() {
            break;
        }
        let (l, n) = line(text, pos);
        if is_blank(l) {
            break;
        }
        last = Some((pos, l));
        pos = n;
    }
    let (start, l) = last?;
    let t = l.trim_end();
    let brace = t.rfind('{')?;
    let before = &t[..brace];
    let kept = before.trim_end();
    (attributes_len(&t[brace..]) == Some(t.len() - brace)
        && before.ends_with([' ', '\t'])
        && !kept.is_empty())
    .then(|| (start + kept.len(), t.len() - kept.len()))
}

/// A caption paragraph after blank lines following a table: where its prefix starts, and
/// its length.
fn caption_after(text: &str, mut pos: usize) -> Option<(usize, usize)> {
    let mut blanks = 0;
    while pos < text.len() {
        let (l, n) = line(text, pos);
        if !is_blank(l) {
            break;
        }
        blanks += 1;
        pos = n;
    }
    if blanks == 0 || pos >= text.len() {
        return None;
    }
    let (l, _) = line(text, pos);
    caption_prefix(l).map(|len| (pos + indent(l).0, len))
}

// ---- fancy list markers ----

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Decimal,
    LowerAlpha,
    UpperAlpha,
    LowerRoman,
    UpperRoman,
    /// `#.`: numbered by position.
    Default,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Delim {
    Period,
    Paren,
    TwoParens,
}

/// A fancy list marker at the start of `t` (after the indentation).
#[derive(Clone, Copy, Debug)]
struct Marker {
    style: Style,
    delim: Delim,
    value: u64,
    /// Bytes of the marker itself, and of the spaces after it.
    len: usize,
    spaces: usize,
    /// A single letter that reads either way (`i` is roman one, `v` the letter v, but `v`
    /// in a roman list is five): its value read the other way.
    other: Option<u64>,
}

fn roman_value(s: &str) -> Option<u64> {
    let digit = |c: u8| match c.to_ascii_lowercase() {
        b'i' => Some(1i64),
        b'v' => Some(5),
        b'x' => Some(10),
        b'l' => Some(50),
        b'c' => Some(100),
        b'd' => Some(500),
        b'm' => Some(1000),
        _ => None,
    };
    let values: Vec<i64> = s.bytes().map(digit).collect::<Option<_>>()?;
    let mut total = 0i64;
    for (i, &v) in values.iter().enumerate() {
        if values.get(i + 1).is_some_and(|&next| next > v) {
            total -= v;
        } else {
            total += v;
        }
    }
    // Only the canonical spelling (`iv`, not `iiii` or `vx`).
    let total = u64::try_from(total).ok()?;
    quire_plugin_api::text::roman(total)?
        .eq_ignore_ascii_case(s)
        .then_some(total)
}

fn fancy_marker(t: &str) -> Option<Marker> {
    let b = t.as_bytes();
    let (open, body_start) = if b.first() == Some(&b'(') {
        (true, 1)
    } else {
        (false, 0)
    };
    let body_len = b[body_start..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'#')
        .count();
    if body_len == 0 || body_len > 9 {
        return None;
    }
    let body = &t[body_start..body_start + body_len];
    let close = *b.get(body_start + body_len)?;
    let delim = match (open, close) {
        (true, b')') => Delim::TwoParens,
        (false, b')') => Delim::Paren,
        (false, b'.') => Delim::Period,
        _ => return None,
    };
    let len = body_start + body_len + 1;
    let rest = &t[len..];
    let spaces = rest.bytes().take_while(|&c| c == b' ').count();
    let tab = rest.starts_with('\t');
    if (spaces == 0 && !tab) || rest.trim().is_empty() {
        return None;
    }
    let mut other = None;
    let (style, value) = if body.bytes().all(|c| c.is_ascii_digit()) {
        if delim != Delim::TwoParens {
            return None; // `1.` and `1)` are CommonMark's own
        }
        (Style::Decimal, body.parse().ok()?)
    } else if body == "#" {
        (Style::Default, 1)
    } else if body.len() == 1 && body.as_bytes()[0].is_ascii_alphabetic() {
        let c = body.as_bytes()[0];
        let lower = c.is_ascii_lowercase();
        let letter = u64::from(c.to_ascii_lowercase() - b'a' + 1);
        if c.eq_ignore_ascii_case(&b'i') {
            other = Some(letter);
            let style = if lower {
                Style::LowerRoman
            } else {
                Style::UpperRoman
            };
            (style, 1)
        } else {
            other = roman_value(body);
            let style = if lower {
                Style::LowerAlpha
            } else {
                Style::UpperAlpha
            };
            (style, letter)
        }
    } else if body.bytes().all(|c| c.is_ascii_lowercase()) {
        (Style::LowerRoman, roman_value(body)?)
    } else if body.bytes().all(|c| c.is_ascii_uppercase()) {
        (Style::UpperRoman, roman_value(body)?)
    } else {
        return None;
    };
    // A capital letter and a period need two spaces (or a tab): "B. Russell" is prose.
    let capital = body.len() == 1 && body.as_bytes()[0].is_ascii_uppercase();
    if capital && delim == Delim::Period && spaces < 2 && !tab {
        return None;
    }
    Some(Marker {
        style,
        delim,
        value,
        len,
        spaces,
        other,
    })
}

/// Whether `m` can be an item of a list whose first marker was `first`, and its value there.
fn value_in(first: &Marker, m: &Marker) -> Option<u64> {
    if m.delim != first.delim {
        return None;
    }
    if m.style == first.style {
        return Some(m.value);
    }
    let family = |s: Style| match s {
        Style::LowerAlpha | Style::LowerRoman => 1,
        Style::UpperAlpha | Style::UpperRoman => 2,
        _ => 0,
    };
    // A single letter that reads either way takes the list's reading.
    (family(m.style) != 0 && family(m.style) == family(first.style))
        .then_some(m.other)
        .flatten()
}

/// A list item marker CommonMark knows (`-`, `*`, `+`, `1.`, `1)`): its content column.
fn plain_item(l: &str, ind: usize) -> Option<usize> {
    let t = &l[ind.min(l.len())..];
    let b = t.as_bytes();
    let marker = match b.first()? {
        b'-' | b'*' | b'+' => 1,
        c if c.is_ascii_digit() => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if n > 9 || !matches!(b.get(n), Some(b'.' | b')')) {
                return None;
            }
            n + 1
        }
        _ => return None,
    };
    let spaces = b[marker..].iter().take_while(|&&c| c == b' ').count();
    if spaces == 0 && marker < b.len() {
        return None;
    }
    Some(ind + marker + if (1..=4).contains(&spaces) { spaces } else { 1 })
}

/// What the scanner knows of the lists around the current line.
#[derive(Default)]
struct Lists {
    /// Content columns of the list items the line may be inside.
    items: Vec<usize>,
    /// Fancy lists open: their indentation and first marker.
    fancy: Vec<(usize, Marker)>,
}

impl Lists {
    fn clear(&mut self) {
        self.items.clear();
        self.fancy.clear();
    }

    /// Reads a non-blank line; for a fancy item, the range of its marker and spaces (from the
    /// line's start) and the decimal marker that replaces them.
    fn line(
        &mut self,
        text: &str,
        pos: usize,
        l: &str,
        prev_blank: bool,
    ) -> Option<(usize, usize, String)> {
        let (ind, tab) = indent(l);
        let t = l.trim_start_matches([' ', '\t']);
        if tab || t.starts_with('>') {
            self.clear();
            return None;
        }
        while self.items.last().is_some_and(|&c| c > ind) {
            self.items.pop();
        }
        while self.fancy.last().is_some_and(|&(i, _)| i > ind) {
            self.fancy.pop();
        }
        let Some(m) = fancy_marker(t) else {
            if let Some(col) = plain_item(l, ind) {
                if self.fancy.last().is_some_and(|&(i, _)| i == ind) {
                    self.fancy.pop();
                }
                self.items.push(col);
            } else if self.fancy.last().is_some_and(|&(i, _)| i == ind) && !prev_blank {
                // Text at the list's own indentation after an item's line: lazy continuation.
            } else if self.fancy.last().is_some_and(|&(i, _)| i == ind) {
                self.fancy.pop();
            }
            return None;
        };
        let parent = self.items.last().copied().unwrap_or(0);
        if ind - parent > 3 {
            return None; // indented code
        }
        if let Some(&(_, first)) = self.fancy.last().filter(|&&(i, _)| i == ind) {
            if let Some(value) = value_in(&first, &m) {
                self.items.push(ind + m.len + m.spaces.clamp(1, 4));
                return Some(replacement(&m, ind, value.max(1)));
            }
            self.fancy.pop();
        }
        let nested = !self.items.is_empty();
        let ok = (prev_blank
            && (next_item_follows(text, pos, ind, &m)
                || sublist_follows(text, pos, ind + m.len + m.spaces)
                || (m.spaces >= 2 && m.len + m.spaces == 4)))
            || (nested && (prev_blank || m.value == 1));
        if !ok {
            return None;
        }
        self.fancy.push((ind, m));
        self.items.push(ind + m.len + m.spaces.clamp(1, 4));
        Some(replacement(&m, ind, m.value))
    }
}

/// Whether the next line at `ind` or less after the item at `pos` is the list's next item.
fn next_item_follows(text: &str, pos: usize, ind: usize, first: &Marker) -> bool {
    let (_, mut p) = line(text, pos);
    for _ in 0..2000 {
        if p >= text.len() {
            return false;
        }
        let (l, n) = line(text, p);
        p = n;
        if is_blank(l) {
            continue;
        }
        let (i, tab) = indent(l);
        if i > ind && !tab {
            continue;
        }
        if i != ind || tab {
            return false;
        }
        let Some(m) = fancy_marker(&l[i..]) else {
            return false;
        };
        return match first.style {
            Style::Default => m.style == Style::Default && m.delim == first.delim,
            _ => value_in(first, &m) == Some(first.value + 1),
        };
    }
    false
}

/// Whether the line after the item at `pos` starts a list item at the item's content column
/// (a list nested in it: a one-item list of pandoc's).
fn sublist_follows(text: &str, pos: usize, column: usize) -> bool {
    let (_, next) = line(text, pos);
    let (l, _) = line(text, next);
    let (i, tab) = indent(l);
    !tab && i == column && (plain_item(l, i).is_some() || fancy_marker(&l[i..]).is_some())
}

/// The decimal marker that stands for a fancy one: the same width with the spaces after it
/// when the number fits (`iv.` → `04.`), so the item's content column stays.
fn replacement(m: &Marker, ind: usize, value: u64) -> (usize, usize, String) {
    let delim = if m.delim == Delim::Period { '.' } else { ')' };
    let digits = m.len - 1;
    let mut s = format!("{value:0digits$}{delim} ");
    while s.len() < m.len + m.spaces {
        s.push(' ');
    }
    (ind, m.len + m.spaces, s)
}

// ---- attributes ----

/// The length of a pandoc attribute block at the start of `s` (`{#id .class key=value}`,
/// `{-}`), or `None`.
fn attributes_len(s: &str) -> Option<usize> {
    let inner = s.strip_prefix('{')?;
    let end = inner.find(['}', '{', '\n'])?;
    if !inner[end..].starts_with('}') {
        return None;
    }
    let body = inner[..end].trim();
    let ok = !body.is_empty()
        && body.split_whitespace().all(|t| {
            (t.len() > 1 && (t.starts_with('.') || t.starts_with('#')))
                || t == "-"
                || t.find('=').is_some_and(|i| i > 0)
        });
    ok.then_some(end + 2)
}

/// Drops the markers of pandoc's superscript and subscript inside a word (`x^2^`, `H~2~O`),
/// which pulldown-cmark, like `_`, does not open or close there: a `^` or single `~`, then one
/// or more characters none of which is white space or the marker, then the same marker. A
/// subscript's text holds no `/` or `\`, so a path's `~` (`PROGRA~1\MICROS~1`) stays.
pub fn drop_script_marks(inlines: &mut [Inline]) {
    for inline in inlines {
        if let Inline::Text { text, .. } = inline {
            if text.contains(['^', '~']) {
                if let Some(fixed) = without_script_marks(text) {
                    *text = fixed;
                }
            }
        }
    }
}

fn without_script_marks(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut drop = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let m = b[i];
        let tilde = m == b'~';
        if m == b'^' || (tilde && (i == 0 || b[i - 1] != b'~')) {
            let close = b[i + 1..]
                .iter()
                .position(|&c| {
                    c == m || c.is_ascii_whitespace() || (tilde && (c == b'/' || c == b'\\'))
                })
                .map(|k| i + 1 + k);
            if let Some(j) = close.filter(|&j| j > i + 1 && b[j] == m) {
                let doubled = tilde && b.get(j + 1) == Some(&b'~');
                let spaced = text[i + 1..j].chars().any(char::is_whitespace);
                if !doubled && !spaced {
                    drop.push(i);
                    drop.push(j);
                    i = j + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    if drop.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for at in drop {
        out.push_str(&text[from..at]);
        from = at + 1;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Drops what pandoc's attribute syntax leaves as text in CommonMark: a bracketed span's
/// brackets and attributes (`[word]{.underline}` reads "word"), the attributes after a link
/// or image (`[a](b){.c}`), and, in a heading, trailing attributes (`# Title {#id}`).
pub fn drop_attributes(inlines: &mut Vec<Inline>, heading: bool) {
    let has_brace = |i: &Inline| matches!(i, Inline::Text { text, .. } if text.contains('{'));
    if !inlines.iter().any(has_brace) {
        return;
    }
    // Byte ranges to drop, per inline.
    let mut drops: Vec<(usize, usize, usize)> = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    for (k, inline) in inlines.iter().enumerate() {
        let Inline::Text { text, .. } = inline else {
            continue;
        };
        let after_link = k > 0 && matches!(inlines[k - 1], Inline::Link(_) | Inline::Image(_));
        let mut skip_to = 0;
        if after_link {
            if let Some(len) = attributes_len(text) {
                drops.push((k, 0, len));
                skip_to = len;
            }
        }
        for (i, c) in text.char_indices() {
            if i < skip_to {
                continue;
            }
            match c {
                '[' => open.push((k, i)),
                ']' => {
                    let Some(start) = open.pop() else { continue };
                    if let Some(len) = attributes_len(&text[i + 1..]) {
                        drops.push((start.0, start.1, 1));
                        drops.push((k, i, 1 + len));
                        skip_to = i + 1 + len;
                    }
                }
                _ => {}
            }
        }
    }
    if heading {
        if let Some((k, Inline::Text { text, .. })) = inlines.iter().enumerate().next_back() {
            let t = text.trim_end();
            if let Some(brace) = t.rfind('{') {
                let before = &t[..brace];
                if (before.is_empty() || before.ends_with(char::is_whitespace))
                    && attributes_len(&t[brace..]) == Some(t.len() - brace)
                    && !drops.iter().any(|&(d, at, _)| d == k && at >= brace)
                {
                    drops.push((k, brace, text.len() - brace));
                }
            }
        }
    }
    if drops.is_empty() {
        return;
    }
    drops.sort_unstable();
    for &(k, at, len) in drops.iter().rev() {
        if let Some(Inline::Text { text, .. }) = inlines.get_mut(k) {
            text.replace_range(at..at + len, "");
        }
    }
    inlines.retain(|i| !matches!(i, Inline::Text { text, .. } if text.is_empty()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of line these recognisers look at, with tabs and wide characters, in
    /// seeded mixes: no panic, and a text without any of them comes back borrowed.
    #[test]
    fn mixes_of_lookalike_lines_never_panic() {
        const LINES: &[&str] = &[
            "  --------------------",
            "  -----  ------  ----",
            "+---+----+",
            "+===+====+",
            "| a | 日本 |",
            "|   |",
            "a.  item",
            "\tb) tabbed",
            "(iv) roman",
            "#.  auto",
            "Table: cap",
            ": cap",
            "```",
            "~~~~",
            "- bullet",
            "    ii. nested",
            "Д text ёж",
            "",
            "",
            "plain words",
            "X.  capital",
        ];
        let mut state = 7u64;
        for _ in 0..400 {
            let mut text = String::new();
            for _ in 0..30 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(LINES[(state >> 33) as usize % LINES.len()]);
                text.push('\n');
            }
            let _ = prepare(&text);
            let _ = front_matter(&text);
        }
        let plain = "Just prose.\n\n- a list\n- of two\n\n| a | b |\n|---|---|\n";
        assert!(matches!(prepare(plain).text, Cow::Borrowed(_)));
    }
}
