//! A thin pull reader over quick-xml with the guards hostile input needs.
//!
//! quick-xml never processes a DTD or expands entities beyond the five predefined ones; an
//! unknown entity reference (`&xxe;`) is dropped rather than failing the whole part. Nesting
//! depth is counted here and capped by `Limits::max_depth`, which also bounds the recursion of
//! the descent parser above it. A syntax error ends the part where it happens (the reader
//! reports [`Ev::Eof`] and remembers that the part was damaged), so a document with a broken
//! tail still yields the text before it.
//!
//! Everything matches on local names: Transitional (`w:` = `.../2006/main`) and Strict
//! (`http://purl.oclc.org/ooxml/...`) documents use the same local names.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quire_plugin_api::{Error, Result};
use std::borrow::Cow;

/// One event, simplified for the descent parser.
pub(crate) enum Ev<'a> {
    Start(BytesStart<'a>),
    Empty(BytesStart<'a>),
    Text(Cow<'a, str>),
    End,
    Eof,
}

pub(crate) struct Xml<'a> {
    reader: Reader<&'a [u8]>,
    depth: u32,
    max_depth: u32,
    len: usize,
    /// The parser's message when the part stopped early because it is not well-formed.
    pub(crate) damaged: Option<String>,
    part: String,
}

impl<'a> Xml<'a> {
    pub(crate) fn new(bytes: &'a [u8], max_depth: u32, part: &str) -> Self {
        let mut reader = Reader::from_reader(bytes);
        let config = reader.config_mut();
        config.check_end_names = false;
        config.allow_unmatched_ends = true;
        config.trim_text(false);
        Xml {
            reader,
            depth: 0,
            max_depth: max_depth.max(16),
            len: bytes.len(),
            damaged: None,
            part: part.to_owned(),
        }
    }

    /// Bytes consumed so far, for progress.
    pub(crate) fn position(&self) -> u64 {
        self.reader.buffer_position()
    }

    /// Current element nesting depth.
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    pub(crate) fn len(&self) -> u64 {
        self.len as u64
    }

    pub(crate) fn next(&mut self) -> Result<Ev<'a>> {
        loop {
            let event = match self.reader.read_event() {
                Ok(e) => e,
                Err(e) => {
                    if self.damaged.is_none() {
                        self.damaged = Some(format!(
                            "{} at byte {}: {e}",
                            self.part,
                            self.reader.error_position()
                        ));
                    }
                    return Ok(Ev::Eof);
                }
            };
            return Ok(match event {
                Event::Start(e) => {
                    self.depth += 1;
                    if self.depth > self.max_depth {
                        return Err(Error::limit(format!(
                            "The DOCX file nests its XML more than {} levels deep, over the limit.",
                            self.max_depth
                        )));
                    }
                    Ev::Start(e)
                }
                Event::Empty(e) => Ev::Empty(e),
                Event::End(_) => {
                    self.depth = self.depth.saturating_sub(1);
                    Ev::End
                }
                Event::Text(t) => {
                    let text = t
                        .unescape_with(|name| resolve_predefined_entity(name).or(Some("")))
                        .unwrap_or_else(|_| Cow::Owned(String::from_utf8_lossy(&t).into_owned()));
                    Ev::Text(text)
                }
                Event::CData(c) => Ev::Text(Cow::Owned(String::from_utf8_lossy(&c).into_owned())),
                Event::Eof => Ev::Eof,
                // Declarations, comments, processing instructions and DOCTYPE are ignored;
                // a DOCTYPE's internal subset is never interpreted.
                _ => continue,
            });
        }
    }

    /// Skips the rest of the element whose start was just read.
    pub(crate) fn skip(&mut self) -> Result<()> {
        let mut open = 1u32;
        loop {
            match self.next()? {
                Ev::Start(_) => open += 1,
                Ev::End => {
                    open -= 1;
                    if open == 0 {
                        return Ok(());
                    }
                }
                Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }

    /// The text content of the element whose start was just read (nested elements' text too).
    pub(crate) fn text(&mut self) -> Result<String> {
        let mut out = String::new();
        let mut open = 1u32;
        loop {
            match self.next()? {
                Ev::Start(_) => open += 1,
                Ev::Text(t) => out.push_str(&t),
                Ev::End => {
                    open -= 1;
                    if open == 0 {
                        return Ok(out);
                    }
                }
                Ev::Eof => return Ok(out),
                Ev::Empty(_) => {}
            }
        }
    }
}

/// The local name of an element.
pub(crate) fn name<'e>(e: &'e BytesStart<'_>) -> &'e [u8] {
    let full = e.name().into_inner();
    match full.iter().position(|&b| b == b':') {
        Some(i) => &full[i + 1..],
        None => full,
    }
}

/// An attribute's value by local name (first match), unescaped.
pub(crate) fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    for a in e.attributes().with_checks(false).flatten() {
        if a.key.local_name().as_ref() == local {
            let v = a
                .unescape_value_with(|name| resolve_predefined_entity(name).or(Some("")))
                .map(Cow::into_owned)
                .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned());
            return Some(v);
        }
    }
    None
}

/// `w:val` of an on/off property: absent or anything but false/0/off means on.
pub(crate) fn on_off(e: &BytesStart<'_>) -> bool {
    !matches!(
        attr(e, b"val").as_deref(),
        Some("0" | "false" | "off" | "none")
    )
}

/// A `w:ind` element's left indent in twips (`w:left`, or `w:start` in newer files).
pub(crate) fn indent(e: &BytesStart<'_>) -> Option<i64> {
    attr(e, b"left")
        .or_else(|| attr(e, b"start"))
        .and_then(|v| v.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_entities_vanish_and_depth_is_capped() {
        let mut x = Xml::new(b"<a>x&xxe;&amp;y</a>", 64, "t");
        assert!(matches!(x.next().unwrap(), Ev::Start(_)));
        assert_eq!(x.text().unwrap(), "x&y");
        let deep = "<a>".repeat(100);
        let mut x = Xml::new(deep.as_bytes(), 20, "t");
        let mut err = None;
        for _ in 0..100 {
            match x.next() {
                Err(e) => {
                    err = Some(e);
                    break;
                }
                Ok(Ev::Eof) => break,
                Ok(_) => {}
            }
        }
        assert_eq!(
            err.map(|e| e.kind()),
            Some(quire_plugin_api::ErrorKind::LimitExceeded)
        );
    }
}
