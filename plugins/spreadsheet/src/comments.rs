//! Cell comments of an XLSX sheet: legacy notes (`xl/comments1.xml`) and threaded comments
//! (`xl/threadedComments/…`, Excel 365), read for the notes that follow the sheet's tables.
//!
//! Excel writes every threaded comment twice: in the threaded part, with its replies and the
//! person who wrote each, and as a legacy note for older readers whose author is a
//! placeholder (`tc={id}`) and whose text is a boilerplate paragraph followed by the thread
//! (`Comment:` / `Reply:` headers over indented lines). The threaded part wins where it
//! exists; a placeholder note without one is read from its text.

use crate::xlsx::cell_ref;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quire_ooxml::{Relationship, SafeZip};
use quire_plugin_api::{Block, Inline, Style};
use std::collections::HashMap;

/// One comment or reply on a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// The cell as written ("F7").
    pub cell: String,
    pub author: Option<String>,
    pub text: String,
    /// A reply within a thread (threaded comments).
    pub reply: bool,
}

/// Display names of the workbook's persons (threaded comment authors), by id; `rels` are
/// the workbook part's relationships.
pub fn persons(
    zip: &mut SafeZip<'_>,
    rels: &HashMap<String, Relationship>,
) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for rel in rels.values().filter(|r| r.kind == "person" && !r.external) {
        let Ok(Some(xml)) = zip.read(&rel.target) else {
            continue;
        };
        let mut reader = Reader::from_reader(xml.as_slice());
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) | Ok(Event::Empty(e))
                    if e.local_name().as_ref() == b"person" =>
                {
                    if let (Some(id), Some(name)) = (attr(&e, b"id"), attr(&e, b"displayName")) {
                        out.insert(id, name);
                    }
                }
                Ok(Event::Eof) | Err(_) => break,
                _ => {}
            }
        }
    }
    out
}

/// The comments of a sheet whose relationships are `rels`, in the order of their cells
/// (row by row). Damaged or missing parts give no comments rather than an error.
pub fn read(
    zip: &mut SafeZip<'_>,
    rels: &HashMap<String, Relationship>,
    persons: &HashMap<String, String>,
) -> Vec<Comment> {
    let mut parts: Vec<_> = rels
        .values()
        .filter(|r| !r.external && matches!(r.kind.as_str(), "comments" | "threadedComment"))
        .collect();
    parts.sort_by(|a, b| a.id.cmp(&b.id));
    let mut threaded = Vec::new();
    let mut legacy = Vec::new();
    for rel in &parts {
        let Ok(Some(xml)) = zip.read(&rel.target) else {
            continue;
        };
        match rel.kind.as_str() {
            "threadedComment" => threaded.extend(read_threaded(&xml, persons)),
            "comments" => legacy.extend(read_legacy(&xml)),
            _ => {}
        }
    }
    let mut out = threaded;
    for note in legacy {
        if out.iter().any(|c| c.cell == note.cell) {
            continue;
        }
        out.extend(note.into_comments());
    }
    // stable: a thread keeps its order, cells follow reading order
    out.sort_by_key(|c| cell_ref(c.cell.as_bytes()).unwrap_or((u32::MAX, u32::MAX)));
    out
}

/// The comments as note blocks: one paragraph each, "Comment on F7 by Name: text".
pub fn blocks(comments: &[Comment]) -> Vec<Block> {
    comments
        .iter()
        .map(|c| {
            let kind = if c.reply { "Reply" } else { "Comment" };
            let label = match &c.author {
                Some(a) => format!("{kind} on {} by {a}:", c.cell),
                None => format!("{kind} on {}:", c.cell),
            };
            // Excel starts a note's text with its author's name ("Ann: looks right"); the
            // label says who wrote it already
            let text = c
                .author
                .as_deref()
                .and_then(|a| c.text.strip_prefix(a))
                .and_then(|rest| rest.strip_prefix(':'))
                .map(str::trim_start)
                .filter(|rest| !rest.is_empty())
                .unwrap_or(&c.text);
            Block::Paragraph(vec![
                Inline::styled(label, Style::ITALIC),
                Inline::plain(format!(" {text}")),
            ])
        })
        .collect()
}

fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

/// Whitespace folded to single spaces (a comment is shown as one paragraph), after the
/// `_xHHHH_` escapes of OOXML strings (ST_Xstring: Excel writes a comment's line breaks as
/// `_x000D_`; `_x005F_` escapes an underscore that would start one).
fn fold(s: &str) -> String {
    xstring(s).split_whitespace().collect::<Vec<_>>().join(" ")
}

fn xstring(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains("_x") {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("_x") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let code = tail
            .get(2..6)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()) && tail.get(6..7) == Some("_"))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32);
        match code {
            Some(c) => {
                out.push(c);
                rest = &tail[7..];
            }
            None => {
                out.push_str("_x");
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    out.into()
}

fn read_threaded(xml: &[u8], persons: &HashMap<String, String>) -> Vec<Comment> {
    let mut out = Vec::new();
    let mut reader = Reader::from_reader(xml);
    let mut current: Option<Comment> = None;
    let mut in_text = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => match e.local_name().as_ref() {
                b"threadedComment" => {
                    current = Some(Comment {
                        cell: attr(&e, b"ref").unwrap_or_default(),
                        author: attr(&e, b"personId").and_then(|p| persons.get(&p).cloned()),
                        text: String::new(),
                        reply: attr(&e, b"parentId").is_some(),
                    });
                }
                b"text" => in_text = true,
                _ => {}
            },
            Ok(Event::Text(t)) if in_text => {
                if let (Some(c), Ok(t)) = (current.as_mut(), t.unescape()) {
                    c.text.push_str(&t);
                }
            }
            Ok(Event::End(e)) => match e.local_name().as_ref() {
                b"text" => in_text = false,
                b"threadedComment" => {
                    if let Some(mut c) = current.take() {
                        c.text = fold(&c.text);
                        if !c.text.is_empty() && !c.cell.is_empty() {
                            out.push(c);
                        }
                    }
                }
                _ => {}
            },
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}

/// A legacy note as read: author as written (maybe a `tc=` placeholder), raw text.
struct Note {
    cell: String,
    author: Option<String>,
    text: String,
}

impl Note {
    fn into_comments(self) -> Vec<Comment> {
        let placeholder = self.author.as_deref().is_some_and(|a| a.starts_with("tc="));
        if placeholder || self.text.starts_with("[Threaded comment]") {
            if let Some(thread) = thread_from_text(&self.text, &self.cell) {
                return thread;
            }
        }
        let text = fold(&self.text);
        if text.is_empty() {
            return Vec::new();
        }
        vec![Comment {
            cell: self.cell,
            author: self.author.filter(|a| !placeholder && !a.trim().is_empty()),
            text,
            reply: false,
        }]
    }
}

/// The thread a placeholder note spells out after its boilerplate: `Comment:` and `Reply:`
/// lines, each followed by its indented text.
fn thread_from_text(text: &str, cell: &str) -> Option<Vec<Comment>> {
    let mut out: Vec<Comment> = Vec::new();
    let mut started = false;
    for line in text.lines() {
        let head = line.trim_end();
        if head == "Comment:" || head == "Reply:" {
            started = true;
            out.push(Comment {
                cell: cell.to_owned(),
                author: None,
                text: String::new(),
                reply: head == "Reply:",
            });
        } else if let Some(c) = out.last_mut().filter(|_| started) {
            if !c.text.is_empty() {
                c.text.push(' ');
            }
            c.text.push_str(line.trim());
        }
    }
    out.iter_mut().for_each(|c| c.text = fold(&c.text));
    out.retain(|c| !c.text.is_empty());
    (!out.is_empty()).then_some(out)
}

fn read_legacy(xml: &[u8]) -> Vec<Note> {
    let mut authors = Vec::new();
    let mut out = Vec::new();
    let mut reader = Reader::from_reader(xml);
    let mut in_author = false;
    let mut in_t = false;
    let mut current: Option<Note> = None;
    let mut author_text = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => match e.local_name().as_ref() {
                b"author" => {
                    in_author = true;
                    author_text.clear();
                }
                b"comment" => {
                    let author = attr(&e, b"authorId")
                        .and_then(|i| i.parse::<usize>().ok())
                        .and_then(|i| authors.get(i).cloned());
                    current = Some(Note {
                        cell: attr(&e, b"ref").unwrap_or_default(),
                        author,
                        text: String::new(),
                    });
                }
                b"t" => in_t = true,
                _ => {}
            },
            Ok(Event::Text(t)) => {
                let Ok(t) = t.unescape() else { continue };
                if in_author {
                    author_text.push_str(&t);
                } else if in_t {
                    if let Some(n) = current.as_mut() {
                        n.text.push_str(&t);
                    }
                }
            }
            Ok(Event::End(e)) => match e.local_name().as_ref() {
                b"author" => {
                    in_author = false;
                    authors.push(author_text.trim().to_owned());
                }
                b"t" => in_t = false,
                b"comment" => {
                    if let Some(n) = current.take().filter(|n| !n.cell.is_empty()) {
                        out.push(n);
                    }
                }
                _ => {}
            },
            Ok(Event::Empty(e)) if e.local_name().as_ref() == b"author" => {
                authors.push(String::new())
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_does_not_repeat_the_author_its_label_names() {
        let c = |author: Option<&str>, text: &str| Comment {
            cell: "B1".into(),
            author: author.map(str::to_owned),
            text: text.into(),
            reply: false,
        };
        let text = |b: &Block| match b {
            Block::Paragraph(i) => i
                .iter()
                .map(|i| match i {
                    Inline::Text { text, .. } => text.as_str(),
                    _ => "",
                })
                .collect::<String>(),
            _ => String::new(),
        };
        let blocks = blocks(&[
            c(Some("Yegor Kozlov"), "Yegor Kozlov: first cell"),
            c(Some("Ann"), "Annette: typed by Ann"),
            c(Some("Ann"), "Ann:"),
            c(None, "Ann: no author known"),
        ]);
        let got: Vec<String> = blocks.iter().map(text).collect();
        assert_eq!(
            got,
            [
                "Comment on B1 by Yegor Kozlov: first cell",
                "Comment on B1 by Ann: Annette: typed by Ann",
                "Comment on B1 by Ann: Ann:",
                "Comment on B1: Ann: no author known"
            ]
        );
    }

    #[test]
    fn a_placeholder_note_gives_the_thread_it_spells_out() {
        let text = "[Threaded comment]\n\nYour version of Excel allows you to read this threaded comment; however, any edits to it will get removed.\n\nComment:\n    Minimum number\nReply:\n    So low";
        let note = Note {
            cell: "F7".into(),
            author: Some("tc={04C1}".into()),
            text: text.into(),
        };
        let got = note.into_comments();
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].text.as_str(), got[0].reply),
            ("Minimum number", false)
        );
        assert_eq!((got[1].text.as_str(), got[1].reply), ("So low", true));
        assert!(got.iter().all(|c| c.author.is_none()));
    }

    #[test]
    fn escaped_characters_in_notes_are_decoded() {
        assert_eq!(fold("line one_x000D_\nline two"), "line one line two");
        assert_eq!(fold("a_x005F_x000D_b _x41_ x_x0041_"), "a_x000D_b _x41_ xA");
    }

    #[test]
    fn legacy_notes_join_their_runs_and_keep_their_author() {
        let xml = br#"<comments><authors><author>Ann</author><author>Bob</author></authors><commentList><comment ref="B2" authorId="1"><text><r><rPr><b/></rPr><t>Bob:</t></r><r><t xml:space="preserve">
check &amp; fix</t></r></text></comment></commentList></comments>"#;
        let notes = read_legacy(xml);
        let c = notes.into_iter().next().expect("one note").into_comments();
        assert_eq!(c[0].cell, "B2");
        assert_eq!(c[0].author.as_deref(), Some("Bob"));
        assert_eq!(c[0].text, "Bob: check & fix");
    }
}
