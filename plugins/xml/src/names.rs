//! Element names that carry meaning for the Markdown view, by local name (prefix dropped).
//!
//! The lists cover XHTML, JATS (journal articles), USPTO patent XML, DocBook, TEI, RSS/Atom
//! and CALS tables; anything else falls back to the generic data rendering.

/// Elements whose text is a heading of the enclosing element.
pub fn is_title(local: &str) -> bool {
    matches!(
        local,
        "title"
            | "article-title"
            | "heading"
            | "invention-title"
            | "book-title"
            | "chapter-title"
            | "head"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
    )
}

/// Leaf elements whose text is prose (a paragraph), not a named value.
pub fn is_prose(local: &str) -> bool {
    matches!(
        local,
        "p" | "para"
            | "paragraph"
            | "simpara"
            | "content"
            | "text"
            | "abstract"
            | "description"
            | "summary"
            | "encoded"
            | "label"
            | "caption"
            | "note"
            | "claim-text"
            | "line"
            | "sentence"
            | "statement"
            | "quote"
            | "blockquote"
            | "li"
            | "tex-math"
            | "div"
            | "span"
            | "body"
            | "comment"
            | "remark"
            | "subtitle"
            | "attrib"
            | "speaker"
            | "lg"
            | "l"
    )
}

/// Elements rendered as one flattened paragraph whatever their structure.
pub fn is_flat(local: &str, prefix: Option<&str>) -> bool {
    prefix == Some("mml")
        || matches!(
            local,
            "ref"
                | "element-citation"
                | "mixed-citation"
                | "citation"
                | "nlm-citation"
                | "math"
                | "maths"
                | "disp-formula"
                | "inline-formula"
                | "chem-struct"
                | "bibl"
                | "biblstruct"
        )
}

pub fn is_list(local: &str) -> bool {
    matches!(
        local,
        "list" | "ul" | "ol" | "itemizedlist" | "orderedlist" | "simplelist"
    )
}

pub fn is_list_item(local: &str) -> bool {
    matches!(local, "list-item" | "li" | "listitem" | "item" | "member")
}

pub fn is_table(local: &str) -> bool {
    matches!(local, "table" | "informaltable")
}

pub fn is_bold(local: &str) -> bool {
    matches!(local, "bold" | "b" | "strong")
}

pub fn is_italic(local: &str) -> bool {
    matches!(local, "italic" | "i" | "em" | "emphasis" | "hi")
}

pub fn is_strike(local: &str) -> bool {
    matches!(local, "strike" | "del" | "s")
}

pub fn is_link(local: &str) -> bool {
    matches!(
        local,
        "ext-link" | "uri" | "a" | "link" | "ulink" | "self-uri"
    )
}

/// Elements that break a paragraph when they appear inside mixed content.
pub fn is_block_in_paragraph(local: &str) -> bool {
    matches!(
        local,
        "list"
            | "ul"
            | "ol"
            | "table"
            | "table-wrap"
            | "tables"
            | "disp-quote"
            | "fig"
            | "boxed-text"
            | "def-list"
            | "itemizedlist"
            | "orderedlist"
            | "informaltable"
    )
}

/// Elements that stand apart from their neighbours even when flattened into one line.
pub fn is_blockish(local: &str) -> bool {
    matches!(
        local,
        "p" | "para"
            | "paragraph"
            | "div"
            | "li"
            | "list-item"
            | "listitem"
            | "title"
            | "label"
            | "caption"
            | "tr"
            | "row"
            | "td"
            | "th"
            | "entry"
            | "list"
            | "table"
            | "sec"
            | "section"
    )
}
