//! A paragraph's inline runs, built the way a browser lays out text.
//!
//! Runs of HTML whitespace collapse to one space, whitespace at the start of a line and at the
//! end of a block disappears, and a space on the border of two differently styled runs takes
//! only the style both sides share, so `is<b> bold</b>` gives `is` + ` ` + **`bold`** (never a
//! bold run that begins with a space, which Markdown could not express).

use quire_plugin_api::{Inline, Style};

/// Where a link began, so its runs can be wrapped when it ends.
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    index: usize,
    generation: u32,
    floor: usize,
}

/// The open paragraph's runs and the whitespace state between them.
#[derive(Debug, Default)]
pub struct Inlines {
    items: Vec<Inline>,
    pending_space: bool,
    /// Nothing visible on the current line yet (start of block or after a break).
    line_started: bool,
    /// Bumped whenever the runs are taken, so a mark from before a flush is recognised.
    generation: u32,
    /// Runs below this index belong outside an open link and are never merged into.
    floor: usize,
}

fn is_html_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

impl Inlines {
    /// Text in flowing (non-`pre`) context.
    pub fn text(&mut self, text: &str, style: Style) {
        let mut run = String::new();
        for c in text.chars() {
            if is_html_space(c) {
                self.pending_space = true;
                continue;
            }
            if c.is_control() {
                continue;
            }
            if self.pending_space {
                if self.line_started {
                    if run.is_empty() {
                        if self.leading_space(style) {
                            run.push(' ');
                        }
                    } else {
                        run.push(' ');
                    }
                }
                self.pending_space = false;
            }
            self.line_started = true;
            run.push(c);
        }
        if !run.is_empty() {
            self.append(run, style);
        }
    }

    /// A collapsible space, as between two blocks flattened into one line (table cells).
    pub fn soft_space(&mut self) {
        self.pending_space = true;
    }

    /// An image, inline code or note reference.
    pub fn atom(&mut self, inline: Inline) {
        if self.pending_space && self.line_started && self.leading_space(Style::PLAIN) {
            self.append(" ".to_owned(), Style::PLAIN);
        }
        self.pending_space = false;
        self.line_started = true;
        self.items.push(inline);
    }

    /// A hard line break (`<br>`); ignored at the very start of a paragraph. Two in a row
    /// (`<br><br>`, a blank line: how pages without `<p>` part their paragraphs) are kept as
    /// two, which [`Inlines::take_paragraphs`] splits at; more count as two.
    pub fn line_break(&mut self) {
        self.trim_spaces();
        let n = self.items.len();
        let breaks = self.items[n.saturating_sub(2)..]
            .iter()
            .rev()
            .take_while(|i| matches!(i, Inline::Break))
            .count();
        if n > breaks && breaks < 2 {
            self.items.push(Inline::Break);
        }
        self.pending_space = false;
        self.line_started = false;
    }

    /// Runs built in another [`Inlines`] (a nested table's cell) on the current line, their
    /// line breaks (the rows of a table nested deeper still) as `; `.
    pub fn extend_on_line(&mut self, runs: Vec<Inline>) {
        for run in runs {
            match run {
                Inline::Text { text, style } => self.text(&text, style),
                Inline::Break if matches!(self.items.last(), Some(Inline::Text { text, .. }) if text.ends_with("; ")) =>
                    {}
                Inline::Break => self.text("; ", Style::PLAIN),
                other => self.atom(other),
            }
        }
    }

    pub fn mark(&mut self) -> Mark {
        let mark = Mark {
            index: self.items.len(),
            generation: self.generation,
            floor: self.floor,
        };
        self.floor = self.items.len();
        mark
    }

    /// Wraps everything since `mark` in a link (unless a block boundary intervened).
    pub fn wrap_link(&mut self, mark: Mark, href: String, title: Option<String>) {
        if mark.generation != self.generation || mark.index > self.items.len() {
            return;
        }
        self.floor = mark.floor.min(mark.index);
        let mut content: Vec<Inline> = self.items.drain(mark.index..).collect();
        let mut leading = false;
        if let Some(Inline::Text { text, .. }) = content.first_mut() {
            if let Some(stripped) = text.strip_prefix(' ') {
                leading = true;
                *text = stripped.to_owned();
            }
        }
        let mut trailing = false;
        if let Some(Inline::Text { text, .. }) = content.last_mut() {
            if text.ends_with(' ') {
                trailing = true;
                text.pop();
            }
        }
        content.retain(|i| !matches!(i, Inline::Text { text, .. } if text.is_empty()));
        collapse_breaks(&mut content);
        if leading {
            self.append(" ".to_owned(), Style::PLAIN);
        }
        if content.is_empty() {
            self.pending_space |= trailing;
            return;
        }
        self.items.push(Inline::link(href, title, content));
        if trailing {
            self.pending_space = true;
        }
    }

    /// The finished paragraph's runs, a double line break as one; the state starts over.
    pub fn take(&mut self) -> Vec<Inline> {
        let mut items = self.take_raw();
        collapse_breaks(&mut items);
        items
    }

    /// The finished runs as paragraphs, parted where two line breaks follow each other; the
    /// state starts over.
    pub fn take_paragraphs(&mut self) -> Vec<Vec<Inline>> {
        let items = self.take_raw();
        let mut out = vec![Vec::new()];
        let mut it = items.into_iter().peekable();
        while let Some(item) = it.next() {
            if matches!(item, Inline::Break) && matches!(it.peek(), Some(Inline::Break)) {
                it.next();
                out.push(Vec::new());
                continue;
            }
            if let Some(last) = out.last_mut() {
                last.push(item);
            }
        }
        out.retain(|p| !p.is_empty());
        out
    }

    fn take_raw(&mut self) -> Vec<Inline> {
        self.trim_end();
        self.pending_space = false;
        self.line_started = false;
        self.generation = self.generation.wrapping_add(1);
        self.floor = 0;
        std::mem::take(&mut self.items)
    }

    /// Drops the spaces that end the current line (not its line breaks).
    fn trim_spaces(&mut self) {
        while let Some(Inline::Text { text, .. }) = self.items.last_mut() {
            let len = text.trim_end_matches(' ').len();
            if len == 0 {
                self.items.pop();
            } else {
                text.truncate(len);
                break;
            }
        }
    }

    /// Drops the spaces and line breaks that end the runs.
    fn trim_end(&mut self) {
        loop {
            self.trim_spaces();
            if !matches!(self.items.last(), Some(Inline::Break)) {
                return;
            }
            self.items.pop();
        }
    }

    /// Places the space before a run of `style`; true when it belongs inside that run.
    fn leading_space(&mut self, style: Style) -> bool {
        let prev = match self.items.last() {
            Some(Inline::Text { style, .. }) => *style,
            _ => Style::PLAIN,
        };
        let shared = Style {
            bold: prev.bold && style.bold,
            italic: prev.italic && style.italic,
            strike: prev.strike && style.strike,
        };
        if shared == style {
            return true;
        }
        self.append(" ".to_owned(), shared);
        false
    }

    fn append(&mut self, text: String, style: Style) {
        let can_merge = self.items.len() > self.floor;
        if let Some(Inline::Text {
            text: prev,
            style: s,
        }) = self.items.last_mut().filter(|_| can_merge)
        {
            if *s == style {
                prev.push_str(&text);
                return;
            }
        }
        self.items.push(Inline::Text { text, style });
    }
}

/// Two line breaks in a row as one.
fn collapse_breaks(items: &mut Vec<Inline>) {
    let mut prev_break = false;
    items.retain(|i| {
        let is_break = matches!(i, Inline::Break);
        let keep = !(is_break && prev_break);
        prev_break = is_break;
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_folds_like_a_browser() {
        let mut i = Inlines::default();
        i.text("  \n Hello \t  ", Style::PLAIN);
        i.text("  world  ", Style::PLAIN);
        assert_eq!(i.take(), vec![Inline::plain("Hello world")]);
    }

    #[test]
    fn spaces_stay_outside_styles_and_links() {
        let mut i = Inlines::default();
        i.text("is", Style::PLAIN);
        i.text(" an American ", Style::BOLD);
        i.text("company", Style::PLAIN);
        assert_eq!(
            i.take(),
            vec![
                Inline::plain("is "),
                Inline::styled("an American", Style::BOLD),
                Inline::plain(" company"),
            ]
        );
        i.text("by ", Style::PLAIN);
        let mark = i.mark();
        i.text(" Bill Gates ", Style::PLAIN);
        i.wrap_link(mark, "/wiki/Bill_Gates".into(), Some("Bill Gates".into()));
        i.text("and", Style::PLAIN);
        assert_eq!(
            i.take(),
            vec![
                Inline::plain("by "),
                Inline::link(
                    "/wiki/Bill_Gates",
                    Some("Bill Gates".into()),
                    vec![Inline::plain("Bill Gates")]
                ),
                Inline::plain(" and"),
            ]
        );
    }

    #[test]
    fn breaks_trim_around_them() {
        let mut i = Inlines::default();
        i.line_break();
        i.text("a ", Style::PLAIN);
        i.line_break();
        i.text(" b", Style::PLAIN);
        i.line_break();
        assert_eq!(
            i.take(),
            vec![Inline::plain("a"), Inline::Break, Inline::plain("b")]
        );
    }
}
