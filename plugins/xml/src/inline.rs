//! Flattening an element's content into inline runs, and HTML carried as escaped text.
//!
//! Inside mixed content (an element with real text of its own) children are concatenated
//! exactly as written, because that is what the author's characters say
//! (`<institution-id>…</institution-id><institution>…` has no space between). In
//! element-only content (a citation made of `<surname>`, `<year>`…) a space separates the
//! children so words do not run together.

use crate::names;
use crate::tree::{Element, Node};
use quire_plugin_api::{Inline, Style};

/// Builds inline runs, merging neighbours of the same style.
#[derive(Default)]
pub struct Runs {
    pub inlines: Vec<Inline>,
    /// Inside code or preformatted text (depth): whitespace is kept as written.
    verbatim: usize,
}

impl Runs {
    /// Appends `text` with XML's insignificant whitespace folded: a run of spaces, tabs and
    /// line breaks (a pretty-printer's or a wrapping writer's) is one space, and none where
    /// the runs already end with one.
    pub fn push(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        if self.verbatim > 0 {
            return self.push_folded(text, style);
        }
        if text.contains(|c: char| c.is_ascii_whitespace() && c != ' ') || text.contains("  ") {
            let is_space = |c: char| c.is_ascii_whitespace();
            let mut folded = String::with_capacity(text.len());
            if text.starts_with(is_space) && !self.ends_with_space() {
                folded.push(' ');
            }
            let mut words = text.split_ascii_whitespace().peekable();
            while let Some(word) = words.next() {
                folded.push_str(word);
                if words.peek().is_some() || text.ends_with(is_space) {
                    folded.push(' ');
                }
            }
            return self.push_folded(&folded, style);
        }
        if text.starts_with(' ') && self.ends_with_space() {
            return self.push_folded(&text[1..], style);
        }
        self.push_folded(text, style)
    }

    fn push_folded(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        if let Some(Inline::Text {
            text: prev,
            style: s,
        }) = self.inlines.last_mut()
        {
            if *s == style {
                prev.push_str(text);
                return;
            }
        }
        self.inlines.push(Inline::styled(text.to_owned(), style));
    }

    fn ends_with_space(&self) -> bool {
        match self.inlines.last() {
            Some(Inline::Text { text, .. }) => text.ends_with(char::is_whitespace),
            Some(Inline::Break) | None => true,
            Some(_) => false,
        }
    }

    /// A line break (where a block element sits inside mixed content), unless at the start
    /// or after another.
    fn line_break(&mut self) {
        if let Some(Inline::Text { text, .. }) = self.inlines.last_mut() {
            text.truncate(text.trim_end().len());
        }
        self.inlines
            .retain(|i| !matches!(i, Inline::Text { text, .. } if text.is_empty()));
        if self.has_text() && !matches!(self.inlines.last(), Some(Inline::Break)) {
            self.inlines.push(Inline::Break);
        }
    }

    pub fn space(&mut self) {
        if !self.ends_with_space() {
            self.push(" ", Style::PLAIN);
        }
    }

    /// Whether any run has visible text.
    pub fn has_text(&self) -> bool {
        self.inlines.iter().any(|i| match i {
            Inline::Text { text, .. } => !text.trim().is_empty(),
            _ => true,
        })
    }

    /// The runs with leading and trailing whitespace trimmed.
    pub fn finish(mut self) -> Vec<Inline> {
        if let Some(Inline::Text { text, .. }) = self.inlines.first_mut() {
            let trimmed = text.trim_start().len();
            text.drain(..text.len() - trimmed);
        }
        if let Some(Inline::Text { text, .. }) = self.inlines.last_mut() {
            text.truncate(text.trim_end().len());
        }
        self.inlines
            .retain(|i| !matches!(i, Inline::Text { text, .. } if text.is_empty()));
        while matches!(self.inlines.last(), Some(Inline::Break)) {
            self.inlines.pop();
        }
        self.inlines
    }
}

/// Appends the content of `el` (not its own tag) to `runs`.
pub fn flatten(el: &Element<'_>, mixed: bool, style: Style, runs: &mut Runs) {
    let mixed = mixed || el.has_text;
    let sup = el.is(names::SUP);
    for child in &el.children {
        flatten_child(child, mixed, sup, style, runs);
    }
}

/// Appends one child node; `mixed` says whether its parent's content is mixed.
pub fn flatten_child(child: &Node<'_>, mixed: bool, sup: bool, style: Style, runs: &mut Runs) {
    match child {
        Node::Text(t) => {
            if sup {
                runs.push(&superscript_digits(t), style);
            } else {
                runs.push(t, style);
            }
        }
        Node::Element(c) => {
            if c.is(names::NOT_SHOWN) {
                return;
            }
            let blockish = c.is(names::BLOCKISH);
            if mixed && blockish {
                // a block inside running text (a patent's nested `<claim-text>`) starts a line
                runs.line_break();
            } else if !mixed || blockish || c.space_before {
                runs.space();
            }
            if c.is(names::BREAK) {
                // TEI marks a line that begins inside a word `break="no"`
                if c.attr("break") != Some("no") {
                    runs.space();
                }
                return;
            }
            let mut s = style;
            // Patents set every reference numeral in bold (`<b>70</b>`); asterisks around
            // each number make the text harder to read and search, so bare numerals stay plain.
            let emphasis = !(c.is(names::BOLD | names::ITALIC) && is_numeral(c));
            // DocBook says bold with a role: `<emphasis role="strong">` (or "bold").
            let strong = c.local() == "emphasis"
                && c.attr("role").is_some_and(|r| {
                    r.eq_ignore_ascii_case("strong") || r.eq_ignore_ascii_case("bold")
                });
            if emphasis && (c.is(names::BOLD) || strong) {
                s.bold = true;
            }
            if emphasis && c.is(names::ITALIC) && !strong {
                s.italic = true;
            }
            if c.is(names::STRIKE) {
                s.strike = true;
            }
            let href = if c.is(names::LINK) {
                c.attr("href")
                    .or_else(|| c.attr("target").filter(|_| c.local() == "ref"))
                    .filter(|h| !h.trim().is_empty())
            } else {
                None
            };
            match href {
                Some(href) => {
                    let mut inner = Runs::default();
                    flatten(c, mixed, s, &mut inner);
                    if inner.has_text() {
                        runs.inlines.push(Inline::link(
                            href.trim().to_owned(),
                            None,
                            inner.inlines,
                        ));
                    }
                }
                None if c.is(names::CODE) => {
                    runs.verbatim += 1;
                    flatten(c, mixed, s, runs);
                    runs.verbatim -= 1;
                }
                None => flatten(c, mixed, s, runs),
            }
            if mixed && blockish {
                runs.line_break();
            } else if blockish {
                runs.space();
            }
        }
    }
}

/// A short token that starts with a digit (`70`, `102a`, `20'`): a reference numeral.
fn is_numeral(el: &Element<'_>) -> bool {
    let [Node::Text(t)] = el.children.as_slice() else {
        return false;
    };
    let t = t.trim();
    t.len() <= 8
        && t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '\'')
}

/// `M<sup>11</sup>` reads as `M¹¹` in plain Markdown; only all-digit superscripts are mapped,
/// so `(kg)<sup>-1</sup>` and footnote letters stay as written.
fn superscript_digits(t: &str) -> String {
    if t.trim().is_empty() || !t.chars().all(|c| c.is_ascii_digit() || c.is_whitespace()) {
        return t.to_owned();
    }
    t.chars()
        .map(|c| match c {
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            '9' => '⁹',
            other => other,
        })
        .collect()
}

/// Whether text looks like escaped HTML (RSS descriptions, CMS exports).
pub fn looks_like_html(t: &str) -> bool {
    let start = t.trim_start();
    if start.starts_with('<')
        && (start.contains("</") || start.contains("/>"))
        && start.contains('>')
    {
        return true;
    }
    // Escaped HTML that opens with text (an RSS description: `Hello!<br />More`): a tag of
    // a common HTML element anywhere, so `a < b > c` stays text.
    let b = t.as_bytes();
    let mut from = 0;
    while let Some(i) = b[from..].iter().position(|&c| c == b'<') {
        let at = from + i + 1;
        from = at;
        let rest = &b[at..];
        let rest = rest.strip_prefix(b"/").unwrap_or(rest);
        let n = rest
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        // `<br>`, `<br/>`, `<br />` or an attribute (`<a href=…`), not `<b && c>`
        let after = rest[n..].trim_ascii_start();
        let is_tag = after.starts_with(b">")
            || after.starts_with(b"/>")
            || (after.len() < rest.len() - n && {
                let k = after
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic() || **c == b'-')
                    .count();
                k > 0 && after[k..].trim_ascii_start().starts_with(b"=")
            });
        if n > 0 && is_tag && is_html_element(&rest[..n]) {
            return true;
        }
    }
    false
}

/// Names of HTML elements common in escaped fragments (feeds, descriptions), any case.
fn is_html_element(name: &[u8]) -> bool {
    const NAMES: &[&[u8]] = &[
        b"a",
        b"abbr",
        b"b",
        b"blockquote",
        b"br",
        b"code",
        b"div",
        b"em",
        b"font",
        b"h1",
        b"h2",
        b"h3",
        b"h4",
        b"h5",
        b"h6",
        b"hr",
        b"i",
        b"img",
        b"li",
        b"ol",
        b"p",
        b"pre",
        b"small",
        b"span",
        b"strong",
        b"sub",
        b"sup",
        b"table",
        b"td",
        b"th",
        b"tr",
        b"u",
        b"ul",
    ];
    NAMES.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// Plain paragraphs from an HTML fragment: tags dropped, block tags break paragraphs,
/// common entities decoded. Deliberately small: the text is what matters here.
pub fn html_paragraphs(html: &str) -> Vec<String> {
    let mut paras = Vec::new();
    let mut cur = String::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        cur.push_str(&rest[..lt]);
        rest = &rest[lt..];
        let Some(gt) = rest.find('>') else {
            break;
        };
        let tag = rest[1..gt].trim_start_matches('/').to_ascii_lowercase();
        let tag_name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if matches!(
            tag_name.as_str(),
            "p" | "br"
                | "div"
                | "li"
                | "h1"
                | "h2"
                | "h3"
                | "h4"
                | "h5"
                | "h6"
                | "tr"
                | "blockquote"
                | "ul"
                | "ol"
        ) {
            flush(&mut cur, &mut paras);
        } else if tag_name == "td" || tag_name == "th" {
            cur.push(' ');
        }
        rest = &rest[gt + 1..];
    }
    cur.push_str(rest);
    flush(&mut cur, &mut paras);
    paras
}

fn flush(cur: &mut String, paras: &mut Vec<String>) {
    let text = quire_plugin_api::text::fold_whitespace(&html_entities(cur));
    if !text.is_empty() {
        paras.push(text);
    }
    cur.clear();
}

fn html_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    crate::tree::unescape(std::borrow::Cow::Borrowed(s))
        .replace("&nbsp;", "\u{a0}")
        .replace("&#8217;", "’")
        .replace("&hellip;", "…")
        .replace("&mdash;", "—")
        .replace("&ndash;", "–")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_fragments_become_paragraphs() {
        let p = html_paragraphs("<p>One &amp; <b>two</b>.</p><p>Three&nbsp;four</p>trailing");
        assert_eq!(p, vec!["One & two.", "Three four", "trailing"]);
        assert!(looks_like_html("<p>x</p>"));
        assert!(!looks_like_html("a < b > c"));
        assert!(!looks_like_html("if a<b && c>d, i<n; x <brr> <p"));
        assert!(looks_like_html("Hello!<br />More"));
        assert!(looks_like_html("See <a href=\"x\">this</a>."));
        assert!(looks_like_html("Text <P>para"));
    }

    #[test]
    fn sup_digits() {
        assert_eq!(superscript_digits("11 "), "¹¹ ");
        assert_eq!(superscript_digits("-1"), "-1");
    }
}
