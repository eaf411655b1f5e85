//! OPML outlines: `<opml><head><title>…</title></head><body><outline text="…">…</body>`.
//!
//! An outline's words live in attributes, which the generic walk shows as `text=…, created=…`
//! runs. Read as an outliner shows them instead:
//! - the head's `title` is the document's title and first heading; `ownerName`,
//!   `dateCreated` and `dateModified` are its author and dates (metadata, not body text);
//! - every `outline` is a list item, its children a list nested in it. The item says its
//!   `text` (escaped HTML in it reduced to its words, as outliners render it), followed by
//!   the paragraphs of its `_note` (the note attribute OmniOutliner, pandoc and others write);
//! - a `link` or `include` outline's `url`, and a subscription's (`type="rss"`) `htmlUrl` or
//!   else `xmlUrl`, make its text a link; a subscription with no text is named by its URL.
//!
//! Other attributes (`created`, `category`, `isComment`, …) stay in the JSON `data` tree.

use crate::inline::{html_paragraphs, looks_like_html};
use crate::render::Renderer;
use crate::tree::{fold, Element};
use quire_plugin_api::{Block, Inline, List, ListItem, Result};

/// What the head says of the outline.
#[derive(Debug, Default)]
pub struct Head {
    pub author: Option<String>,
    pub created: Option<String>,
    pub modified: Option<String>,
}

/// Whether `root` is an OPML document (`<opml>` holding a `<body>`).
pub fn is_outline(root: &Element<'_>) -> bool {
    root.local() == "opml" && root.elements().any(|e| e.local() == "body")
}

pub fn render(r: &mut Renderer<'_>, root: &Element<'_>) -> Result<Head> {
    let mut head = Head::default();
    if let Some(h) = root.elements().find(|e| e.local() == "head") {
        for e in h.elements() {
            let text = e.folded_text().into_owned();
            if text.is_empty() {
                continue;
            }
            match e.local() {
                "title" => r.title = Some(text),
                "ownerName" => head.author = Some(text),
                "dateCreated" => head.created = Some(text),
                "dateModified" => head.modified = Some(text),
                _ => {}
            }
        }
    }
    if let Some(title) = r.title.clone() {
        r.push(Block::Heading {
            level: 1,
            content: vec![Inline::plain(title)],
        });
    }
    for body in root.elements().filter(|e| e.local() == "body") {
        let items = outlines(r, body)?;
        if !items.is_empty() {
            r.push(Block::List(List {
                ordered: false,
                start: 1,
                items,
            }));
        }
    }
    Ok(head)
}

/// The list items of `parent`'s `outline` children.
fn outlines(r: &mut Renderer<'_>, parent: &Element<'_>) -> Result<Vec<ListItem>> {
    let mut items = Vec::new();
    for o in parent.elements().filter(|e| e.local() == "outline") {
        r.tick()?;
        let mut blocks = Vec::new();
        let text = attr_text(o, "text");
        let target = match o.attr("type").map(str::trim) {
            Some("link" | "include") => o.attr("url"),
            Some("rss") => o.attr("htmlUrl").or(o.attr("xmlUrl")),
            _ => None,
        }
        .map(str::trim)
        .filter(|u| !u.is_empty());
        let label = match (text.is_empty(), target) {
            (false, Some(url)) => vec![Inline::link(url, None, vec![Inline::plain(text)])],
            (true, Some(url)) => vec![Inline::link(url, None, vec![Inline::plain(url)])],
            (false, None) => vec![Inline::plain(text)],
            (true, None) => Vec::new(),
        };
        if !label.is_empty() {
            blocks.push(Block::Paragraph(label));
        }
        if let Some(note) = o.attr("_note") {
            blocks.extend(
                note.split("\n\n")
                    .map(|p| fold(p).trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .map(Block::text),
            );
        }
        let children = outlines(r, o)?;
        if !children.is_empty() {
            blocks.push(Block::List(List {
                ordered: false,
                start: 1,
                items: children,
            }));
        }
        if !blocks.is_empty() {
            items.push(ListItem {
                blocks,
                checked: None,
            });
        }
    }
    Ok(items)
}

/// An attribute's words: escaped HTML (`&lt;strong&gt;Nevada&lt;/strong&gt;`) reduced to its
/// text, whitespace folded.
fn attr_text(o: &Element<'_>, name: &str) -> String {
    let Some(raw) = o.attr(name) else {
        return String::new();
    };
    if looks_like_html(raw) {
        html_paragraphs(raw).join(" ")
    } else {
        fold(raw).trim().to_owned()
    }
}
