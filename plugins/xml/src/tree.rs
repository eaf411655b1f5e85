//! Parsing XML into a small element tree, and that tree as JSON.
//!
//! quick-xml is a pull parser that never resolves entities or reads DTDs by itself, which is
//! exactly the safety property we want: the five predefined entities and numeric character
//! references are decoded by [`unescape`] here, and any other `&name;` stays in the text
//! literally (no billion-laughs, no external entities, no network).
//!
//! # The JSON convention (`Document.data`)
//!
//! An element is `{"name": "prefix:local", "attributes": {..}, "children": [..]}`; the
//! `attributes` and `children` keys are left out when empty. A child is either an element
//! object or a JSON string for text (CDATA included, entities decoded). Names keep their
//! namespace prefix as written; `xmlns` declarations are ordinary attributes. Comments,
//! processing instructions and the DOCTYPE are dropped. Whitespace-only text that contains a
//! line break or tab (indentation) is dropped; other text, including single spaces between
//! inline elements, is kept. The document's value is its root element; a (non-conforming)
//! document with several top-level elements gives an array of them.

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
        self.name.rsplit(':').next().unwrap_or(&self.name)
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
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut roots: Vec<Element> = Vec::new();
    let mut events = 0u32;
    loop {
        events = events.wrapping_add(1);
        if events % CHECK_EVERY == 0 {
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
                if stack.len() >= max_depth {
                    return Err(Error::limit(format!(
                        "The XML nests elements deeper than {max_depth} levels, the configured limit."
                    )));
                }
                stack.push(element(text, &start));
            }
            Event::Empty(start) => {
                let el = finish(element(text, &start));
                attach(&mut stack, &mut roots, el);
            }
            Event::End(_) => {
                // quick-xml has already checked that the end tag matches.
                if let Some(el) = stack.pop() {
                    attach(&mut stack, &mut roots, finish(el));
                }
            }
            Event::Text(t) => {
                if let Some(parent) = stack.last_mut() {
                    push_text(parent, unescape(reborrow(text, &t)));
                }
            }
            Event::CData(t) => {
                if let Some(parent) = stack.last_mut() {
                    push_text(parent, reborrow(text, &t));
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    if !stack.is_empty() {
        warn(format!(
            "The XML ends before {} element(s) are closed; the content read so far is shown.",
            stack.len()
        ));
        while let Some(el) = stack.pop() {
            attach(&mut stack, &mut roots, finish(el));
        }
    }
    if roots.is_empty() {
        return Err(Error::malformed(
            "The file contains no XML element, so there is nothing to convert.",
        ));
    }
    Ok(roots)
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
    Element {
        name,
        attrs,
        ..Element::default()
    }
}

fn push_text<'a>(parent: &mut Element<'a>, text: Cow<'a, str>) {
    if text.is_empty() {
        return;
    }
    if let Some(Node::Text(prev)) = parent.children.last_mut() {
        prev.to_mut().push_str(&text);
    } else {
        parent.children.push(Node::Text(text));
    }
}

/// Computes the derived flags once the element is complete.
fn finish(mut el: Element<'_>) -> Element<'_> {
    use crate::names;
    el.has_text = el
        .children
        .iter()
        .any(|c| matches!(c, Node::Text(t) if !t.trim().is_empty()));
    if el.is_leaf() {
        el.html = el.children.iter().any(|c| matches!(c, Node::Text(t) if crate::inline::looks_like_html(t)));
    } else if !el.has_text {
        let data = el.elements().all(|c| {
            let local = c.local();
            !(names::is_title(local) || names::is_prose(local) || names::is_table(local) || names::is_list(local))
                && if c.is_leaf() { !c.html } else { c.data }
        });
        el.data = data;
    }
    el
}

fn attach<'a>(stack: &mut [Element<'a>], roots: &mut Vec<Element<'a>>, el: Element<'a>) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(Node::Element(el)),
        None => roots.push(el),
    }
}

/// Decodes the predefined entities and character references; unknown entities stay literal.
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
                out.push_str(&rest[..=semi]);
                rest = &rest[semi + 1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The element as JSON (see the module docs for the convention).
pub fn to_json(el: &Element<'_>) -> serde_json::Value {
    use serde_json::{Map, Value};
    let mut obj = Map::new();
    obj.insert("name".into(), Value::String(el.name.to_string()));
    if !el.attrs.is_empty() {
        let attrs: Map<String, Value> = el
            .attrs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        obj.insert("attributes".into(), Value::Object(attrs));
    }
    let children: Vec<Value> = el
        .children
        .iter()
        .filter_map(|c| match c {
            Node::Element(e) => Some(to_json(e)),
            Node::Text(t) if is_indentation(t) => None,
            Node::Text(t) => Some(Value::String(t.to_string())),
        })
        .collect();
    if !children.is_empty() {
        obj.insert("children".into(), Value::Array(children));
    }
    Value::Object(obj)
}

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
        assert_eq!(roots[0].text(), "<AB> &lol; &ext; AT&T \u{FFFD} & bare");
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
            serde_json::json!({"name": "a:r", "attributes": {"xmlns:a": "u"}, "children": [
                {"name": "b", "attributes": {"k": "1"}, "children": ["t<x>"]},
                {"name": "c"}, " ", {"name": "d", "children": ["x"]}
            ]})
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
}
