//! Document model → Markdown (GitHub-flavoured). The only Markdown writer in quire.
//!
//! Text is escaped so that it reads back as the same text: emphasis markers, code ticks, link
//! brackets, HTML-looking `<`, entities, and line starts that would turn into headings, lists,
//! quotes or thematic breaks. Escaping is deliberately minimal elsewhere (an underscore inside
//! a word or a lone `[1]` stays as it is) so the output stays readable and searchable.

use super::ImageMode;
use base64::Engine as _;
use quire_plugin_api::{
    Block, Cell, Document, DocumentKind, Grid, Image, Inline, List, Part, PartKind, Style, Table,
};
use std::fmt::Write as _;

/// Renders a whole document.
pub fn document(doc: &Document, images: ImageMode) -> String {
    let mut w = Writer::new(images);
    if doc.kind == DocumentKind::Image {
        w.image_properties(doc);
    }
    for part in &doc.parts {
        w.part(doc.kind, part);
    }
    let mut out = w.out;
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// Renders blocks alone (a page's or a section's text for JSON output).
pub fn blocks(blocks: &[Block], images: ImageMode) -> String {
    let mut w = Writer::new(images);
    w.blocks(blocks, "");
    let trimmed = w.out.trim_end().len();
    w.out.truncate(trimmed);
    w.out
}

/// Renders inline content to a single line of Markdown.
pub fn inlines(content: &[Inline], images: ImageMode) -> String {
    let mut w = Writer::new(images);
    let mut s = String::new();
    w.inlines(content, &mut s, Context::Heading);
    s
}

struct Writer {
    out: String,
    images: ImageMode,
}

/// Where inline content is written: decides what a line break and a `|` become.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    Paragraph,
    Heading,
    TableCell,
}

impl Writer {
    fn new(images: ImageMode) -> Writer {
        Writer {
            out: String::new(),
            images,
        }
    }

    /// A picture has no text of its own: its properties (title, author, description, dates,
    /// camera, size) open the Markdown, as photo tools list them.
    fn image_properties(&mut self, doc: &Document) {
        let m = &doc.metadata;
        let mut props: Vec<(String, String)> = Vec::new();
        for (name, value) in [
            ("Title", &m.title),
            ("Author", &m.author),
            ("Subject", &m.subject),
            ("Created", &m.created),
            ("Modified", &m.modified),
        ] {
            if let Some(v) = value {
                props.push((name.to_owned(), v.clone()));
            }
        }
        for (key, value) in &m.extra {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                _ => continue,
            };
            let mut name = key.replace('_', " ");
            if let Some(first) = name.get(..1) {
                name = first.to_ascii_uppercase() + &name[1..];
            }
            props.push((name, text));
        }
        if let Some(s) = &doc.image {
            props.push(("Image size".into(), format!("{}x{}", s.width, s.height)));
        }
        for (name, value) in props {
            let value = escape_text(&crate::render::fold(&value), Context::Heading, false);
            let _ = writeln!(self.out, "- {name}: {value}");
        }
        self.out.push('\n');
    }

    fn part(&mut self, kind: DocumentKind, part: &Part) {
        match part.kind {
            PartKind::Page if kind == DocumentKind::Paged => {
                let _ = write!(self.out, "<!-- Page {} -->\n\n", part.number);
            }
            PartKind::Page => {
                // Frames of a multi-page image.
                let _ = write!(self.out, "<!-- Page {} -->\n\n", part.number);
            }
            PartKind::Slide => {
                let _ = write!(self.out, "<!-- Slide {} -->\n\n", part.number);
            }
            PartKind::Sheet => {
                let name = part.name.as_deref().unwrap_or("Sheet");
                let _ = write!(self.out, "## {}\n\n", escape_line(name, Context::Heading));
                if part.blocks.is_empty() {
                    self.out.push_str("*(empty sheet)*\n\n");
                }
            }
            PartKind::Section => {}
        }
        self.blocks(&part.blocks, "");
        if !part.notes.is_empty() {
            self.out.push_str("### Notes\n\n");
            self.blocks(&part.notes, "");
        }
    }

    /// Writes blocks, each line prefixed by `indent` (list nesting, quotes).
    fn blocks(&mut self, blocks: &[Block], indent: &str) {
        for block in blocks {
            self.block(block, indent);
        }
    }

    fn push_lines(&mut self, text: &str, indent: &str) {
        for line in text.split('\n') {
            if line.is_empty() {
                self.out.push_str(indent.trim_end());
            } else {
                self.out.push_str(indent);
                self.out.push_str(line);
            }
            self.out.push('\n');
        }
        self.out.push_str(indent.trim_end());
        self.out.push('\n');
    }

    fn block(&mut self, block: &Block, indent: &str) {
        match block {
            Block::Heading { level, content } => {
                let mut s = String::new();
                self.inlines(content, &mut s, Context::Heading);
                if s.trim().is_empty() {
                    return;
                }
                let level = (*level).clamp(1, 6) as usize;
                let line = format!("{} {}", "#".repeat(level), s.trim());
                self.push_lines(&line, indent);
            }
            Block::Paragraph(content) => {
                let mut s = String::new();
                self.inlines(content, &mut s, Context::Paragraph);
                let s = s.trim_matches(|c: char| c == ' ' || c == '\n' || c == '\t');
                if s.is_empty() {
                    return;
                }
                self.push_lines(s, indent);
            }
            Block::List(list) => self.list(list, indent),
            Block::Table(table) => {
                let text = self.table(table);
                if !text.is_empty() {
                    self.push_lines(&text, indent);
                }
            }
            Block::Grid(grid) => {
                if indent.is_empty() {
                    grid_table(grid, &mut self.out);
                    self.out.push('\n');
                } else {
                    let mut s = String::new();
                    grid_table(grid, &mut s);
                    self.push_lines(s.trim_end(), indent);
                }
            }
            Block::Image(image) => {
                let s = self.image(image);
                self.push_lines(&s, indent);
                if let Some(text) = image.ocr_text.as_deref().filter(|t| !t.trim().is_empty()) {
                    self.push_lines(text.trim(), indent);
                }
            }
            Block::Code { language, text } => {
                let longest = longest_run(text, '`');
                let fence = "`".repeat(longest.max(2) + 1);
                let mut s = String::new();
                s.push_str(&fence);
                if let Some(lang) = language {
                    s.push_str(lang.split_whitespace().next().unwrap_or(""));
                }
                s.push('\n');
                s.push_str(text.trim_end_matches('\n'));
                s.push('\n');
                s.push_str(&fence);
                self.push_lines(&s, indent);
            }
            Block::Quote(inner) => {
                let nested = format!("{indent}> ");
                let start = self.out.len();
                self.blocks(inner, &nested);
                // Blank separator lines inside the quote must keep the marker.
                let body = self.out.split_off(start);
                let marker = nested.trim_end();
                let mut body = body.trim_end_matches('\n');
                while let Some(rest) = body.strip_suffix(marker) {
                    if !(rest.is_empty() || rest.ends_with('\n')) {
                        break;
                    }
                    body = rest.trim_end_matches('\n');
                }
                for line in body.split('\n') {
                    if line.trim().is_empty() {
                        self.out.push_str(nested.trim_end());
                    } else {
                        self.out.push_str(line);
                    }
                    self.out.push('\n');
                }
                self.out.push_str(indent.trim_end());
                self.out.push('\n');
            }
            Block::Note { label, blocks } => {
                let mut inner = Writer::new(self.images);
                inner.blocks(blocks, "");
                let body = inner.out.trim().to_owned();
                let label = note_label(label);
                let mut s = format!("[^{label}]: ");
                for (i, line) in body.split('\n').enumerate() {
                    if i > 0 {
                        s.push('\n');
                        if !line.is_empty() {
                            s.push_str("    ");
                        }
                    }
                    s.push_str(line);
                }
                self.push_lines(&s, indent);
            }
            Block::Rule => self.push_lines("---", indent),
        }
    }

    fn list(&mut self, list: &List, indent: &str) {
        let tight = list.items.iter().all(|item| {
            item.blocks.len() <= 1 || matches!(item.blocks.get(1), Some(Block::List(_)))
        });
        let mut number = list.start;
        for item in &list.items {
            let marker = if list.ordered {
                let m = format!("{number}. ");
                number += 1;
                m
            } else {
                "- ".to_owned()
            };
            let marker = match item.checked {
                Some(true) => format!("{marker}[x] "),
                Some(false) => format!("{marker}[ ] "),
                None => marker,
            };
            let child_indent = format!("{indent}{}", " ".repeat(marker.len()));
            let mut inner = Writer::new(self.images);
            inner.blocks(&item.blocks, "");
            let body = inner.out.trim_end().to_owned();
            let body = if tight {
                body.replace("\n\n", "\n")
            } else {
                body
            };
            let mut lines = body.split('\n');
            let first = lines.next().unwrap_or("");
            self.out.push_str(indent);
            self.out.push_str(&marker);
            self.out.push_str(first);
            self.out.push('\n');
            for line in lines {
                if line.is_empty() {
                    self.out.push('\n');
                } else {
                    self.out.push_str(&child_indent);
                    self.out.push_str(line);
                    self.out.push('\n');
                }
            }
            if !tight {
                self.out.push('\n');
            }
        }
        if tight {
            self.out.push_str(indent.trim_end());
            self.out.push('\n');
        }
    }

    fn table(&mut self, table: &Table) -> String {
        let grid = flatten_spans(&table.rows);
        let columns = grid.iter().map(Vec::len).max().unwrap_or(0);
        if columns == 0 {
            return String::new();
        }
        let rendered: Vec<Vec<String>> = grid
            .iter()
            .map(|row| {
                (0..columns)
                    .map(|c| match row.get(c).copied().flatten() {
                        Some(cell) => {
                            let mut s = String::new();
                            self.inlines(&cell.content, &mut s, Context::TableCell);
                            s.trim().to_owned()
                        }
                        None => String::new(),
                    })
                    .collect()
            })
            .collect();
        let mut s = String::new();
        for (i, row) in rendered.iter().enumerate() {
            s.push('|');
            for cell in row {
                s.push(' ');
                s.push_str(cell);
                s.push_str(" |");
            }
            s.push('\n');
            if i == 0 {
                s.push('|');
                for _ in 0..columns {
                    s.push_str(" --- |");
                }
                s.push('\n');
            }
        }
        s.pop();
        s
    }

    fn image(&self, image: &Image) -> String {
        let alt = escape_alt(image.alt.as_deref().unwrap_or(&image.name));
        if let Some(reason) = &image.skipped {
            return format!(
                "<!-- image {} not embedded: {} -->",
                comment_safe(&image.name),
                comment_safe(reason)
            );
        }
        match self.images {
            ImageMode::DataUri => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(&image.data);
                format!("![{alt}](data:{};base64,{b64})", image.mime)
            }
            ImageMode::Reference => format!("![{alt}]({})", link_destination(&image.name)),
        }
    }

    fn inlines(&mut self, content: &[Inline], s: &mut String, ctx: Context) {
        let merged = merge_runs(content);
        let line_start = s.is_empty();
        for (i, inline) in merged.iter().enumerate() {
            match inline {
                Inline::Text { text, style } => {
                    let at_start = line_start && i == 0 || s.ends_with('\n');
                    write_styled(s, text, *style, ctx, at_start)
                }
                Inline::Code(code) => {
                    let code = code.replace('\n', " ");
                    let ticks = "`".repeat(longest_run(&code, '`') + 1);
                    let pad = if code.starts_with('`') || code.ends_with('`') {
                        " "
                    } else {
                        ""
                    };
                    let _ = write!(s, "{ticks}{pad}{code}{pad}{ticks}");
                }
                Inline::Break => match ctx {
                    Context::Paragraph => s.push_str("  \n"),
                    Context::TableCell => s.push_str("<br>"),
                    Context::Heading => s.push(' '),
                },
                Inline::Link {
                    href,
                    title,
                    content,
                } => {
                    let mut text = String::new();
                    self.inlines(content, &mut text, ctx);
                    let text = text.trim();
                    if href.trim().is_empty() {
                        s.push_str(text);
                    } else if text.is_empty() {
                        let _ = write!(s, "<{}>", href.replace(['<', '>', ' '], ""));
                    } else {
                        let _ = write!(s, "[{text}]({}", link_destination(href));
                        if let Some(title) = title.as_deref().map(link_title) {
                            if !title.is_empty() {
                                let _ = write!(s, " \"{title}\"");
                            }
                        }
                        s.push(')');
                    }
                }
                Inline::Image(image) => {
                    s.push_str(&self.image(image));
                    if let Some(text) = image.ocr_text.as_deref().filter(|t| !t.trim().is_empty()) {
                        s.push(' ');
                        s.push_str(&escape_line(&crate::render::fold(text), ctx));
                    }
                }
                Inline::NoteRef(label) => {
                    let _ = write!(s, "[^{}]", note_label(label));
                }
            }
        }
    }
}

/// Joins adjacent text runs that share a style, so emphasis markers wrap whole phrases.
fn merge_runs(content: &[Inline]) -> Vec<Inline> {
    let mut out: Vec<Inline> = Vec::with_capacity(content.len());
    for inline in content {
        if let (
            Some(Inline::Text {
                text: prev,
                style: ps,
            }),
            Inline::Text { text, style },
        ) = (out.last_mut(), inline)
        {
            if ps == style || text.trim().is_empty() && !text.contains('\n') {
                prev.push_str(text);
                continue;
            }
        }
        out.push(inline.clone());
    }
    out
}

fn write_styled(s: &mut String, text: &str, style: Style, ctx: Context, at_line_start: bool) {
    let text = match ctx {
        Context::Paragraph => text.to_owned(),
        _ => text.replace(['\n', '\r'], " "),
    };
    // Only a paragraph line can turn into a heading, list, quote or rule.
    let escaped = escape_text(&text, ctx, at_line_start && ctx == Context::Paragraph);
    if style == Style::PLAIN || escaped.trim().is_empty() {
        s.push_str(&escaped);
        return;
    }
    // Markers must hug the text: whitespace goes outside them.
    let lead = &escaped[..escaped.len() - escaped.trim_start().len()];
    let trail_start = escaped.trim_end().len();
    let core = &escaped[lead.len()..trail_start];
    let trail = &escaped[trail_start..];
    let mut open = String::new();
    if style.bold {
        open.push_str("**");
    }
    if style.italic {
        open.push('*');
    }
    if style.strike {
        open.push_str("~~");
    }
    let close: String = open.chars().rev().collect();
    s.push_str(lead);
    s.push_str(&open);
    s.push_str(core);
    s.push_str(&close);
    s.push_str(trail);
}

/// Escapes text so Markdown reads it back as the same characters.
pub(crate) fn escape_text(text: &str, ctx: Context, at_line_start: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let chars: Vec<char> = text.chars().collect();
    let mut line_start = at_line_start;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if line_start {
            if c == ' ' || c == '\t' {
                // Leading spaces would start an indented code block or shift list levels.
                i += 1;
                continue;
            }
            line_start = false;
            if let Some(skip) = escape_line_start(&chars[i..], &mut out) {
                i += skip;
                continue;
            }
        }
        let prev = if i > 0 { chars[i - 1] } else { ' ' };
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        match c {
            '\\' if next.is_ascii_punctuation() => out.push_str("\\\\"),
            '*' | '`' => {
                out.push('\\');
                out.push(c);
            }
            '_' if !(prev.is_alphanumeric() && next.is_alphanumeric()) => out.push_str("\\_"),
            '~' if next == '~' || prev == '~' => out.push_str("\\~"),
            '[' if next == '^' => out.push_str("\\["),
            ']' if matches!(next, '(' | '[' | ':') => out.push_str("\\]"),
            '<' if next.is_ascii_alphabetic() || matches!(next, '/' | '!' | '?') => {
                out.push_str("\\<")
            }
            '&' if is_entity(&chars[i..]) => out.push_str("\\&"),
            '|' if ctx == Context::TableCell => out.push_str("\\|"),
            '\n' => {
                out.push('\n');
                line_start = true;
            }
            '\r' => {}
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

fn escape_line(text: &str, ctx: Context) -> String {
    escape_text(text.trim(), ctx, ctx == Context::Paragraph)
}

/// Escapes what would make a line a heading, list item, quote, fence or rule. Returns how
/// many characters it consumed when it wrote them itself.
fn escape_line_start(rest: &[char], out: &mut String) -> Option<usize> {
    let first = rest[0];
    let second = rest.get(1).copied();
    match first {
        '#' => {
            let hashes = rest.iter().take_while(|&&c| c == '#').count();
            if hashes <= 6 && matches!(rest.get(hashes), None | Some(' ') | Some('\t')) {
                out.push_str("\\#");
                return Some(1);
            }
            None
        }
        '>' => {
            out.push_str("\\>");
            Some(1)
        }
        '-' | '+' | '=' => {
            let all_same = rest
                .iter()
                .take_while(|&&c| c != '\n')
                .all(|&c| c == first || c == ' ');
            if matches!(second, None | Some(' ') | Some('\t')) || all_same {
                out.push('\\');
                out.push(first);
                return Some(1);
            }
            None
        }
        '0'..='9' => {
            let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits <= 9 {
                if let Some(&p @ ('.' | ')')) = rest.get(digits) {
                    if matches!(rest.get(digits + 1), None | Some(' ') | Some('\t')) {
                        out.extend(&rest[..digits]);
                        out.push('\\');
                        out.push(p);
                        return Some(digits + 1);
                    }
                }
            }
            None
        }
        _ => None,
    }
}

fn is_entity(rest: &[char]) -> bool {
    let body: Vec<char> = rest.iter().skip(1).take(33).copied().collect();
    match body.iter().position(|&c| c == ';') {
        Some(end) if end > 0 => body[..end]
            .iter()
            .enumerate()
            .all(|(i, c)| c.is_ascii_alphanumeric() || (i == 0 && *c == '#')),
        _ => false,
    }
}

fn escape_alt(alt: &str) -> String {
    crate::render::fold(alt)
        .replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

fn comment_safe(s: &str) -> String {
    s.replace("--", "- -").replace('>', ")")
}

fn note_label(label: &str) -> String {
    let l: String = label
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '[' | ']' | '^'))
        .collect();
    if l.is_empty() {
        "note".into()
    } else {
        l
    }
}

/// A link destination that survives any URL: wrapped in `<>` when it has spaces or parens.
fn link_destination(href: &str) -> String {
    let href = href.trim().replace(['\n', '\r'], "");
    if href.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", href.replace('<', "%3C").replace('>', "%3E"))
    } else {
        href
    }
}

/// A link title for `"…"`: whitespace folded to single spaces, `\` and `"` escaped.
fn link_title(title: &str) -> String {
    crate::render::fold(title)
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

fn longest_run(text: &str, c: char) -> usize {
    let mut best = 0;
    let mut cur = 0;
    for ch in text.chars() {
        if ch == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// Lays rows with spans onto a rectangular grid: a merged cell's content stands in its first
/// position; the positions it covers are empty.
fn flatten_spans(rows: &[Vec<Cell>]) -> Vec<Vec<Option<&Cell>>> {
    let mut grid: Vec<Vec<Option<&Cell>>> = Vec::with_capacity(rows.len());
    // For each column, how many more rows a rowspan above still covers.
    let mut pending: Vec<u32> = Vec::new();
    for row in rows {
        let mut out: Vec<Option<&Cell>> = Vec::new();
        let mut col = 0;
        let mut cells = row.iter();
        loop {
            while pending.get(col).copied().unwrap_or(0) > 0 {
                pending[col] -= 1;
                out.push(None);
                col += 1;
            }
            let Some(cell) = cells.next() else { break };
            let span = cell.colspan.clamp(1, 1000) as usize;
            for k in 0..span {
                out.push(if k == 0 { Some(cell) } else { None });
                if pending.len() <= col + k {
                    pending.resize(col + k + 1, 0);
                }
                pending[col + k] = cell.rowspan.clamp(1, 65_535) - 1;
            }
            col += span;
        }
        // Columns covered from above beyond the row's last cell.
        while col < pending.len() {
            if pending[col] > 0 {
                pending[col] -= 1;
            }
            out.push(None);
            col += 1;
        }
        grid.push(out);
    }
    // Drop trailing columns that are empty in every row.
    let width = grid
        .iter()
        .map(|r| r.iter().rposition(Option::is_some).map_or(0, |p| p + 1))
        .max()
        .unwrap_or(0);
    for row in &mut grid {
        row.resize(width, None);
    }
    grid
}

/// Writes a [`Grid`] as a pipe table, first row as header. Streams straight into `out`.
pub fn grid_table(grid: &Grid, out: &mut String) {
    let columns = grid.columns();
    if grid.is_empty() || columns == 0 {
        return;
    }
    out.reserve(grid.text_len() + grid.rows() * columns * 3 + 16);
    for i in 0..grid.rows() {
        out.push('|');
        let mut n = 0;
        for cell in grid.row(i) {
            out.push(' ');
            push_cell(out, cell);
            out.push_str(" |");
            n += 1;
        }
        for _ in n..columns {
            out.push_str("  |");
        }
        out.push('\n');
        if i == 0 {
            out.push('|');
            for _ in 0..columns {
                out.push_str(" --- |");
            }
            out.push('\n');
        }
    }
}

fn push_cell(out: &mut String, cell: &str) {
    let cell = cell.trim();
    if !cell.contains([
        '|', '\n', '\r', '\\', '*', '_', '`', '<', '[', ']', '~', '&',
    ]) {
        out.push_str(cell);
        return;
    }
    let escaped = escape_text(&cell.replace("\r\n", "\n"), Context::TableCell, false);
    out.push_str(&escaped.replace('\n', "<br>"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_plugin_api::{ListItem, Metadata};

    fn doc(kind: DocumentKind, parts: Vec<Part>) -> Document {
        Document {
            kind,
            type_label: "Test".into(),
            metadata: Metadata::default(),
            parts,
            data: None,
            image: None,
        }
    }

    fn section(blocks: Vec<Block>) -> Vec<Part> {
        let mut p = Part::section();
        p.blocks = blocks;
        vec![p]
    }

    fn md(blocks: Vec<Block>) -> String {
        document(
            &doc(DocumentKind::Flowing, section(blocks)),
            ImageMode::DataUri,
        )
    }

    #[test]
    fn escapes_what_would_change_meaning() {
        assert_eq!(
            md(vec![Block::text("# not a heading")]),
            "\\# not a heading\n"
        );
        assert_eq!(md(vec![Block::text("1. not a list")]), "1\\. not a list\n");
        assert_eq!(md(vec![Block::text("- no bullet")]), "\\- no bullet\n");
        assert_eq!(
            md(vec![Block::text("a *b* _c_ `d`")]),
            "a \\*b\\* \\_c\\_ \\`d\\`\n"
        );
        assert_eq!(
            md(vec![Block::text("snake_case stays [1] <b> &amp;")]),
            "snake_case stays [1] \\<b> \\&amp;\n"
        );
        assert_eq!(
            md(vec![Block::text("#hashtag 2024. year")]),
            "#hashtag 2024. year\n"
        );
        assert_eq!(md(vec![Block::text("[x](y)")]), "[x\\](y)\n");
    }

    #[test]
    fn styles_hug_the_text() {
        let p = Block::Paragraph(vec![
            Inline::plain("a"),
            Inline::styled(" bold ", Style::BOLD),
            Inline::plain("and"),
            Inline::styled(" it", Style::ITALIC),
            Inline::styled("alic", Style::ITALIC),
        ]);
        assert_eq!(md(vec![p]), "a **bold** and *italic*\n");
    }

    #[test]
    fn nested_lists_and_tables() {
        let item = |t: &str, nested: Option<Block>| ListItem {
            blocks: std::iter::once(Block::text(t)).chain(nested).collect(),
            checked: None,
        };
        let inner = Block::List(List {
            ordered: true,
            start: 3,
            items: vec![item("x", None), item("y", None)],
        });
        let outer = Block::List(List {
            ordered: false,
            start: 1,
            items: vec![item("a", Some(inner)), item("b", None)],
        });
        assert_eq!(md(vec![outer]), "- a\n  3. x\n  4. y\n- b\n");

        let t = Block::Table(Table {
            header_rows: 1,
            rows: vec![
                vec![
                    Cell {
                        colspan: 2,
                        ..Cell::text("H|1")
                    },
                    Cell::text("H3"),
                ],
                vec![
                    Cell {
                        rowspan: 2,
                        ..Cell::text("a")
                    },
                    Cell::text("b"),
                    Cell::text("c"),
                ],
                vec![Cell::text("d"), Cell::text("e")],
            ],
        });
        assert_eq!(
            md(vec![t]),
            "| H\\|1 |  | H3 |\n| --- | --- | --- |\n| a | b | c |\n|  | d | e |\n"
        );
    }

    #[test]
    fn pages_slides_sheets_and_notes() {
        let mut p1 = Part::page(1);
        p1.blocks.push(Block::text("one"));
        let p2 = Part::page(2);
        assert_eq!(
            document(&doc(DocumentKind::Paged, vec![p1, p2]), ImageMode::DataUri),
            "<!-- Page 1 -->\n\none\n\n<!-- Page 2 -->\n"
        );
        let mut s = Part::slide(1);
        s.blocks.push(Block::heading(2, "Title"));
        s.notes.push(Block::text("say this"));
        assert_eq!(
            document(
                &doc(DocumentKind::Presentation, vec![s]),
                ImageMode::DataUri
            ),
            "<!-- Slide 1 -->\n\n## Title\n\n### Notes\n\nsay this\n"
        );
        let mut grid = Grid::new();
        grid.push_row(["a", "b"]);
        grid.push_row(["1"]);
        let mut sheet = Part::sheet(1, "Data");
        sheet.blocks.push(Block::Grid(grid));
        let empty = Part::sheet(2, "Empty");
        assert_eq!(
            document(
                &doc(DocumentKind::Spreadsheet, vec![sheet, empty]),
                ImageMode::DataUri
            ),
            "## Data\n\n| a | b |\n| --- | --- |\n| 1 |  |\n\n## Empty\n\n*(empty sheet)*\n"
        );
    }

    #[test]
    fn images_code_quotes_links_notes() {
        let mut img = Image::new("a.png", "image/png", vec![1, 2, 3]);
        img.ocr_text = Some("READ ME".into());
        let out = md(vec![
            Block::Image(img),
            Block::Code {
                language: Some("rust".into()),
                text: "let a = \"```\";\n".into(),
            },
            Block::Quote(vec![Block::text("q1"), Block::text("q2")]),
            Block::Paragraph(vec![
                Inline::Link {
                    href: "https://x.org/a b".into(),
                    title: None,
                    content: vec![Inline::plain("link")],
                },
                Inline::Link {
                    href: "/wiki/A".into(),
                    title: Some("Say \"A\"\n(the letter) \\".into()),
                    content: vec![Inline::plain("A")],
                },
                Inline::NoteRef("1".into()),
            ]),
            Block::Note {
                label: "1".into(),
                blocks: vec![Block::text("the note")],
            },
        ]);
        assert_eq!(
            out,
            "![a.png](data:image/png;base64,AQID)\n\nREAD ME\n\n````rust\nlet a = \"```\";\n````\n\n> q1\n>\n> q2\n\n[link](<https://x.org/a b>)[A](/wiki/A \"Say \\\"A\\\" (the letter) \\\\\")[^1]\n\n[^1]: the note\n"
        );
    }
}
