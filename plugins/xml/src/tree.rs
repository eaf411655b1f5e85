//! Parsing XML into a small element tree, and that tree as JSON.
//!
//! quick-xml is a pull parser that never resolves entities or reads DTDs by itself, which is
//! exactly the safety property we want: the five predefined entities and numeric character
//! references are decoded by [`unescape`] here, and any other `&name;` stays in the text
//! literally (no billion-laughs, no external entities, no network).
//!
//! # The JSON convention (`Document.data`): JsonML
//!
//! Each element is a JSON array in the JsonML form (<http://www.jsonml.org/>):
//! `["tag-name", {"attr": "value", …}, child, child, …]`. The attribute object is present only
//! when the element has attributes; each child is either a string (text, CDATA included,
//! entities decoded) or another element array, in document order. Names keep their namespace
//! prefix as written and `xmlns` declarations are ordinary attributes. Comments, processing
//! instructions and the DOCTYPE are dropped. Whitespace-only text that contains a line break or
//! tab (indentation) is dropped, except between two elements in mixed content, where it
//! separates words and stays as one space; other text, including a single space between inline
//! elements, is kept. The document's value is its root element; a (non-conforming) document with several
//! top-level elements gives an array of them.
//!
//! JsonML rather than `{"name": …, "attributes": …, "children": […]}` objects: it says the
//! same, is a published convention, and costs one array per element instead of a map with
//! three keys — on a 180 KB article the object form doubled the conversion time.

use crate::names;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quire_plugin_api::{Error, Result};
use std::borrow::Cow;

/// An element with its attributes and children in document order.
///
/// Names, attribute values and text borrow from the decoded document where no entity had to
/// be replaced, which saves most allocations on large files.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Element<'a> {
    /// Qualified name as written (`dc:title`).
    pub name: Cow<'a, str>,
    pub attrs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    pub children: Vec<Node<'a>>,
    /// Whether a direct child text node has something besides whitespace (mixed content).
    pub has_text: bool,
    /// Indentation (whitespace with a line break or tab) stood before this element; it is
    /// not stored as a text node, but flattening still separates words across it.
    pub space_before: bool,
    /// Indentation seen after the last child, waiting to see what comes next.
    pending_ws: bool,
    /// Byte offset of the local name in `name` (after the prefix's colon).
    local_at: u32,
    /// Role bits from the name ([`crate::names::classify`]).
    pub kind: crate::names::Kind,
    /// A leaf whose text is escaped HTML (RSS descriptions).
    pub html: bool,
    /// No text of its own and only data below: leaves and data elements that are not titles,
    /// prose, tables or lists (computed bottom-up when the element closes).
    pub data: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Element(Element<'a>),
    Text(Cow<'a, str>),
}

impl<'a> Element<'a> {
    /// The name without its namespace prefix.
    pub fn local(&self) -> &str {
        self.name
            .get(self.local_at as usize..)
            .unwrap_or(&self.name)
    }

    /// Whether the element has any of the role bits in `kind`.
    pub fn is(&self, kind: crate::names::Kind) -> bool {
        self.kind & kind != 0
    }

    pub fn prefix(&self) -> Option<&str> {
        self.name.split_once(':').map(|(p, _)| p)
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name || k.rsplit(':').next() == Some(name))
            .map(|(_, v)| &**v)
    }

    pub fn elements(&self) -> impl Iterator<Item = &Element<'a>> {
        self.children.iter().filter_map(|c| match c {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    pub fn is_leaf(&self) -> bool {
        self.elements().next().is_none()
    }

    /// A title element whose content reads as a heading: text, or only inline formatting and
    /// links (`<title><ext-link><bold>Methods</bold></ext-link></title>`); not a container of
    /// other titles or blocks (XHTML's `<head>`), nor a wrapper of data fields (EndNote's
    /// `<title><style …>`, a record's field).
    pub fn is_heading(&self) -> bool {
        fn inline_only(el: &Element<'_>) -> bool {
            el.elements().all(|c| {
                let inline = c.is(names::BOLD
                    | names::ITALIC
                    | names::STRIKE
                    | names::LINK
                    | names::SUP
                    | names::BREAK)
                    || matches!(
                        c.local(),
                        "sub"
                            | "sc"
                            | "monospace"
                            | "underline"
                            | "u"
                            | "code"
                            | "literal"
                            | "tt"
                            | "span"
                            | "named-content"
                            | "styled-content"
                            | "xref"
                    );
                inline && inline_only(c)
            })
        }
        self.is(names::TITLE) && (self.has_text || self.is_leaf() || inline_only(self))
    }

    /// All descendant text with whitespace folded (runs to one space, ends trimmed);
    /// borrowed when the element holds one text node that is already folded.
    pub fn folded_text(&self) -> Cow<'_, str> {
        if let [Node::Text(t)] = self.children.as_slice() {
            return fold(t);
        }
        Cow::Owned(fold(&self.text()).into_owned())
    }

    /// All descendant text concatenated.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.collect_text(&mut out);
        out
    }

    fn collect_text(&self, out: &mut String) {
        for c in &self.children {
            match c {
                Node::Text(t) => out.push_str(t),
                Node::Element(e) => e.collect_text(out),
            }
        }
    }
}

/// `text` with whitespace runs folded to one space and the ends trimmed, without copying
/// when there is nothing to fold.
pub fn fold(text: &str) -> Cow<'_, str> {
    // One pass: clean text has no leading, trailing, doubled or non-space whitespace.
    let mut prev_space = true;
    if text.is_ascii() {
        for &b in text.as_bytes() {
            if b.is_ascii_whitespace() || b == 0x0b {
                if prev_space || b != b' ' {
                    return Cow::Owned(quire_plugin_api::text::fold_whitespace(text));
                }
                prev_space = true;
            } else {
                prev_space = false;
            }
        }
        if prev_space && !text.is_empty() {
            return Cow::Owned(quire_plugin_api::text::fold_whitespace(text));
        }
        return Cow::Borrowed(text);
    }
    for c in text.chars() {
        if c.is_whitespace() {
            if prev_space || c != ' ' {
                return Cow::Owned(quire_plugin_api::text::fold_whitespace(text));
            }
            prev_space = true;
        } else {
            prev_space = false;
        }
    }
    if prev_space && !text.is_empty() {
        return Cow::Owned(quire_plugin_api::text::fold_whitespace(text));
    }
    Cow::Borrowed(text)
}

/// How often (in parser events) the deadline is checked.
const CHECK_EVERY: u32 = 4096;

/// Parses a whole document. Elements nested deeper than `max_depth` fail with a limit error;
/// a document that ends with elements still open is closed leniently (a truncated file
/// still converts) and reported through `warn`.
pub fn parse<'a>(
    text: &'a str,
    max_depth: usize,
    check: &mut dyn FnMut() -> Result<()>,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<Element<'a>>> {
    take_unknown_entities();
    let mut reader = Reader::from_str(text);
    // Open elements, each with the index in `pending` where its children start. Children of
    // all open elements share one scratch vector and move into an exactly sized `Vec` when
    // their element closes: no per-element growth and reallocation.
    let mut tree = Builder {
        stack: Vec::with_capacity(64),
        pending: Vec::with_capacity(256),
        roots: Vec::new(),
    };
    let mut events = 0u32;
    loop {
        events = events.wrapping_add(1);
        if events.is_multiple_of(CHECK_EVERY) {
            check()?;
        }
        let event = reader.read_event().map_err(|e| {
            let pos = reader.error_position() as usize;
            let line = text.as_bytes()[..pos.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            Error::malformed(format!(
                "The file is not well-formed XML (near line {line})."
            ))
            .with_detail(e)
        })?;
        match event {
            Event::Start(start) => {
                if tree.stack.len() >= max_depth {
                    return Err(Error::limit(format!(
                        "The XML nests elements deeper than {max_depth} levels, the configured limit."
                    )));
                }
                let el = element(text, &start);
                tree.stack.push((el, tree.pending.len()));
            }
            Event::Empty(start) => {
                let el = finish(element(text, &start));
                tree.attach(el);
            }
            Event::End(_) => tree.close(),
            Event::Text(t) => tree.text(unescape(reborrow(text, &t)), true),
            Event::CData(t) => tree.text(reborrow(text, &t), false),
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    let unknown = take_unknown_entities();
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().take(10).map(|n| format!("&{n};")).collect();
        warn(format!(
            "The document uses entities that its DTD defines and no standard set does ({}{}); \
             they were left out of the text.",
            names.join(", "),
            if unknown.len() > 10 { ", …" } else { "" }
        ));
    }
    if !tree.stack.is_empty() {
        warn(format!(
            "The XML ends before {} element(s) are closed; the content read so far is shown.",
            tree.stack.len()
        ));
        while !tree.stack.is_empty() {
            tree.close();
        }
    }
    if tree.roots.is_empty() {
        return Err(Error::malformed(
            "The file contains no XML element, so there is nothing to convert.",
        ));
    }
    Ok(tree.roots)
}

struct Builder<'a> {
    stack: Vec<(Element<'a>, usize)>,
    pending: Vec<Node<'a>>,
    roots: Vec<Element<'a>>,
}

impl<'a> Builder<'a> {
    fn close(&mut self) {
        // quick-xml has already checked that the end tag matches.
        if let Some((mut el, start)) = self.stack.pop() {
            el.children = self
                .pending
                .drain(start.min(self.pending.len())..)
                .collect();
            self.attach(finish(el));
        }
    }

    fn attach(&mut self, mut el: Element<'a>) {
        match self.stack.last_mut() {
            Some((parent, _)) => {
                el.space_before = std::mem::take(&mut parent.pending_ws);
                self.pending.push(Node::Element(el));
            }
            None => self.roots.push(el),
        }
    }

    /// Adds text to the open element; `may_indent` lets indentation stay out of the tree.
    fn text(&mut self, t: Cow<'a, str>, may_indent: bool) {
        let Some((parent, start)) = self.stack.last_mut() else {
            return;
        };
        if t.is_empty() {
            return;
        }
        let last_is_text =
            self.pending.len() > *start && matches!(self.pending.last(), Some(Node::Text(_)));
        if may_indent && !last_is_text && is_indentation(&t) {
            // Most text nodes of structured XML are indentation: keep them out of the tree
            // unless real text follows.
            parent.pending_ws = true;
            return;
        }
        if std::mem::take(&mut parent.pending_ws) && !last_is_text {
            self.pending.push(Node::Text(Cow::Borrowed(" ")));
        }
        let own = self.pending.len() > *start;
        match self.pending.last_mut() {
            Some(Node::Text(prev)) if own => prev.to_mut().push_str(&t),
            _ => self.pending.push(Node::Text(t)),
        }
    }
}

/// `part` as a slice of `text` when it lies inside it (quick-xml hands out borrowed slices of
/// a `&str` input), else an owned copy.
fn reborrow<'a>(text: &'a str, part: &[u8]) -> Cow<'a, str> {
    let start = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    if start <= text.len() && part.len() <= text.len() - start {
        if let Some(s) = text.get(start..start + part.len()) {
            return Cow::Borrowed(s);
        }
    }
    Cow::Owned(String::from_utf8_lossy(part).into_owned())
}

fn element<'a>(text: &'a str, start: &BytesStart<'_>) -> Element<'a> {
    let name = reborrow(text, start.name().as_ref());
    let mut attrs = Vec::new();
    let mut it = start.attributes();
    it.with_checks(false);
    for a in it.flatten() {
        let key = reborrow(text, a.key.as_ref());
        attrs.push((key, unescape(reborrow(text, &a.value))));
    }
    let local_at = name
        .rfind(':')
        .and_then(|i| u32::try_from(i + 1).ok())
        .unwrap_or(0);
    let mut el = Element {
        name,
        attrs,
        local_at,
        ..Element::default()
    };
    el.kind = crate::names::classify(el.local(), el.prefix());
    if el.local() == "ref" && el.attr("target").is_some() {
        // TEI's link (`<ref target="https://…">`); JATS's `<ref>` is a reference entry
        el.kind |= crate::names::LINK;
    }
    el
}

/// Computes the derived flags once the element is complete.
fn finish(mut el: Element<'_>) -> Element<'_> {
    el.has_text = el
        .children
        .iter()
        .any(|c| matches!(c, Node::Text(t) if !t.trim().is_empty()));
    if el.is_leaf() && !el.is(names::CODE) {
        el.html = el
            .children
            .iter()
            .any(|c| matches!(c, Node::Text(t) if crate::inline::looks_like_html(t)));
    } else if !el.has_text {
        let data = el.elements().all(|c| {
            !c.is(names::TITLE | names::PROSE | names::TABLE | names::LIST)
                && if c.is_leaf() { !c.html } else { c.data }
        });
        el.data = data;
    }
    el
}

thread_local! {
    /// Entity names met by [`unescape`] that no standard set defines, for one warning.
    static UNKNOWN_ENTITIES: std::cell::RefCell<std::collections::BTreeSet<String>> =
        const { std::cell::RefCell::new(std::collections::BTreeSet::new()) };
}

/// The unknown entity names met since the last call, emptied.
pub fn take_unknown_entities() -> std::collections::BTreeSet<String> {
    UNKNOWN_ENTITIES.with(|u| std::mem::take(&mut *u.borrow_mut()))
}

/// ISO 8879's Greek letter sets, which the HTML5 list leaves out: ISOgrk1 (`&agr;` α,
/// `&mgr;` μ, `&OHgr;` Ω: USPTO's patent DTDs use them) and ISOgrk2 (monotoniko accented
/// letters, `&aacgr;` ά). Sorted by name (byte order) for the binary search.
const ISO_GREEK: [(&str, char); 69] = [
    ("Aacgr", 'Ά'),
    ("Agr", 'Α'),
    ("Bgr", 'Β'),
    ("Dgr", 'Δ'),
    ("EEacgr", 'Ή'),
    ("EEgr", 'Η'),
    ("Eacgr", 'Έ'),
    ("Egr", 'Ε'),
    ("Ggr", 'Γ'),
    ("Iacgr", 'Ί'),
    ("Idigr", 'Ϊ'),
    ("Igr", 'Ι'),
    ("KHgr", 'Χ'),
    ("Kgr", 'Κ'),
    ("Lgr", 'Λ'),
    ("Mgr", 'Μ'),
    ("Ngr", 'Ν'),
    ("OHacgr", 'Ώ'),
    ("OHgr", 'Ω'),
    ("Oacgr", 'Ό'),
    ("Ogr", 'Ο'),
    ("PHgr", 'Φ'),
    ("PSgr", 'Ψ'),
    ("Pgr", 'Π'),
    ("Rgr", 'Ρ'),
    ("Sgr", 'Σ'),
    ("THgr", 'Θ'),
    ("Tgr", 'Τ'),
    ("Uacgr", 'Ύ'),
    ("Udigr", 'Ϋ'),
    ("Ugr", 'Υ'),
    ("Xgr", 'Ξ'),
    ("Zgr", 'Ζ'),
    ("aacgr", 'ά'),
    ("agr", 'α'),
    ("bgr", 'β'),
    ("dgr", 'δ'),
    ("eacgr", 'έ'),
    ("eeacgr", 'ή'),
    ("eegr", 'η'),
    ("egr", 'ε'),
    ("ggr", 'γ'),
    ("iacgr", 'ί'),
    ("idiagr", 'ΐ'),
    ("idigr", 'ϊ'),
    ("igr", 'ι'),
    ("kgr", 'κ'),
    ("khgr", 'χ'),
    ("lgr", 'λ'),
    ("mgr", 'μ'),
    ("ngr", 'ν'),
    ("oacgr", 'ό'),
    ("ogr", 'ο'),
    ("ohacgr", 'ώ'),
    ("ohgr", 'ω'),
    ("pgr", 'π'),
    ("phgr", 'φ'),
    ("psgr", 'ψ'),
    ("rgr", 'ρ'),
    ("sfgr", 'ς'),
    ("sgr", 'σ'),
    ("tgr", 'τ'),
    ("thgr", 'θ'),
    ("uacgr", 'ύ'),
    ("udiagr", 'ΰ'),
    ("udigr", 'ϋ'),
    ("ugr", 'υ'),
    ("xgr", 'ξ'),
    ("zgr", 'ζ'),
];

/// A named entity from the HTML5 (WHATWG) list, which covers ISO 8879, XHTML and MathML
/// names: documents that declare such entities in an external DTD (USPTO patents use
/// `&lsqb;`, `&trade;`, `&mdash;` …) read as their authors meant, without any DTD fetched.
fn standard_entity(name: &str, out: &mut String) -> bool {
    if let Ok(i) = ISO_GREEK.binary_search_by(|&(n, _)| n.cmp(name)) {
        out.push(ISO_GREEK[i].1);
        return true;
    }
    let key = format!("{name};");
    match web_atoms::NAMED_ENTITIES.get(key.as_str()) {
        Some(&(first, second)) => {
            if let Some(c) = char::from_u32(first) {
                out.push(c);
            }
            if let Some(c) = char::from_u32(second).filter(|&c| c != '\0') {
                out.push(c);
            }
            true
        }
        None => false,
    }
}

/// Decodes the predefined entities, character references and the standard named entities;
/// an entity still unknown is left out of the text (its name is kept for one warning).
pub fn unescape(raw: Cow<'_, str>) -> Cow<'_, str> {
    if !raw.contains('&') {
        return raw;
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest: &str = &raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest[1..].find(|c: char| c == ';' || c == '&' || c.is_whitespace());
        let Some(semi) = end.map(|e| e + 1).filter(|&e| rest.as_bytes()[e] == b';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..semi];
        let decoded = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => {
                if let Some(num) = name.strip_prefix('#') {
                    let value = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => num.parse::<u32>().ok(),
                    };
                    Some(
                        value
                            .and_then(char::from_u32)
                            .filter(|&c| c != '\0')
                            .unwrap_or('\u{FFFD}'),
                    )
                } else {
                    None
                }
            }
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                let valid_name = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
                if !valid_name {
                    out.push_str(&rest[..=semi]);
                } else if !standard_entity(name, &mut out) {
                    UNKNOWN_ENTITIES.with(|u| u.borrow_mut().insert(name.to_string()));
                }
                rest = &rest[semi + 1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The element as JsonML (see the module docs for the convention).
pub fn to_json(el: &Element<'_>) -> serde_json::Value {
    use serde_json::{Map, Value};
    let mut out = Vec::with_capacity(1 + usize::from(!el.attrs.is_empty()) + el.children.len());
    out.push(Value::String(el.name.to_string()));
    if !el.attrs.is_empty() {
        let attrs: Map<String, Value> = el
            .attrs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        out.push(Value::Object(attrs));
    }
    for (i, c) in el.children.iter().enumerate() {
        match c {
            Node::Element(e) => {
                // In mixed content a line break between two inline elements separates words
                // (`<b>one</b>\n<i>two</i>`): it stays, as one space.
                if el.has_text
                    && e.space_before
                    && i > 0
                    && matches!(el.children[i - 1], Node::Element(_))
                {
                    out.push(Value::String(" ".to_owned()));
                }
                out.push(to_json(e))
            }
            Node::Text(t) if is_indentation(t) => {}
            Node::Text(t) => out.push(Value::String(t.to_string())),
        }
    }
    Value::Array(out)
}

/// Whitespace only, with a line break or tab: layout, not content.
fn is_indentation(t: &str) -> bool {
    t.trim().is_empty() && t.contains(['\n', '\r', '\t'])
}

/// The encoding named in an XML declaration at the start of the bytes, if any.
pub fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(256)];
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Vec<Element<'_>>> {
        parse(text, 512, &mut || Ok(()), &mut |_| {})
    }

    #[test]
    fn entities_are_not_expanded_beyond_the_predefined_ones() {
        let doc = r#"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY lol "lol"><!ENTITY ext SYSTEM "file:///etc/passwd">]>
<r a="x &amp; y">&lt;&#65;&#x42;&gt; &lol; &ext; AT&amp;T &#0; & bare</r>"#;
        let roots = p(doc).unwrap();
        // Entities the DTD declares are never expanded (no billion laughs, no external
        // file): names no standard set defines are left out, for one warning.
        assert_eq!(roots[0].text(), "<AB>   AT&T \u{FFFD} & bare");
        assert_eq!(roots[0].attr("a"), Some("x & y"));
    }

    #[test]
    fn json_convention() {
        let roots =
            p("<a:r xmlns:a='u'>\n  <b k='1'>t<![CDATA[<x>]]></b>\n  <c/> <d>x</d>\n</a:r>")
                .unwrap();
        let v = to_json(&roots[0]);
        assert_eq!(
            v,
            serde_json::json!(["a:r", {"xmlns:a": "u"},
                ["b", {"k": "1"}, "t<x>"],
                ["c"], " ", ["d", "x"]
            ])
        );
    }

    #[test]
    fn json_keeps_word_breaks_between_inline_elements() {
        // pandoc's JATS wraps a paragraph at 72 columns, so two formatted words may be parted
        // by a line break alone; in mixed content that break is a space, not indentation.
        let roots =
            p("<sec>\n  <p>a <bold>one</bold>\n  <italic>two</italic> b</p>\n</sec>").unwrap();
        assert_eq!(
            to_json(&roots[0]),
            serde_json::json!([
                "sec",
                ["p", "a ", ["bold", "one"], " ", ["italic", "two"], " b"]
            ])
        );
    }

    #[test]
    fn malformed_depth_and_truncation() {
        assert_eq!(
            p("<a><b></a>").unwrap_err().kind(),
            quire_plugin_api::ErrorKind::Malformed
        );
        assert_eq!(
            p("just text").unwrap_err().kind(),
            quire_plugin_api::ErrorKind::Malformed
        );
        let deep = "<a>".repeat(10_000);
        assert_eq!(
            p(&deep).unwrap_err().kind(),
            quire_plugin_api::ErrorKind::LimitExceeded
        );
        let mut warned = Vec::new();
        let roots = parse("<a><b>text", 512, &mut || Ok(()), &mut |w| warned.push(w)).unwrap();
        assert_eq!(roots[0].text(), "text");
        assert_eq!(warned.len(), 1);
    }

    #[test]
    fn finds_declared_encoding() {
        assert_eq!(
            declared_encoding(b"<?xml version='1.0' encoding = 'ISO-8859-1'?><r/>").as_deref(),
            Some("ISO-8859-1")
        );
        assert_eq!(declared_encoding(b"<r/>"), None);
    }

    #[test]
    fn folding_borrows_when_it_can() {
        assert!(matches!(fold("a b c"), Cow::Borrowed("a b c")));
        assert_eq!(fold(" a\n\tb  c "), "a b c");
        assert_eq!(fold("x\ny"), "x y");
        assert_eq!(fold("é\u{a0}x"), "é x");
    }
}
