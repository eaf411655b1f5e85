//! Element names that carry meaning for the Markdown view, by local name (prefix dropped).
//!
//! The lists cover XHTML, JATS (journal articles), USPTO patent XML, DocBook, TEI, RSS/Atom
//! and CALS tables; anything else falls back to the generic data rendering.
//!
//! An element's name is classified once, when it is parsed ([`classify`]), into a set of
//! [`Kind`] bits; the renderer then tests bits instead of comparing strings again and again.

/// Bits of an element's role, from its local name.
pub type Kind = u16;
pub const TITLE: Kind = 1;
pub const PROSE: Kind = 1 << 1;
pub const FLAT: Kind = 1 << 2;
pub const LIST: Kind = 1 << 3;
pub const LIST_ITEM: Kind = 1 << 4;
pub const TABLE: Kind = 1 << 5;
pub const BOLD: Kind = 1 << 6;
pub const ITALIC: Kind = 1 << 7;
pub const STRIKE: Kind = 1 << 8;
pub const LINK: Kind = 1 << 9;
pub const BLOCK_IN_PARAGRAPH: Kind = 1 << 10;
pub const BLOCKISH: Kind = 1 << 11;
pub const SUP: Kind = 1 << 12;
pub const BREAK: Kind = 1 << 13;
pub const NOT_SHOWN: Kind = 1 << 14;
pub const CODE: Kind = 1 << 15;

/// The role bits of an element named `local` (with namespace `prefix`).
pub fn classify(local: &str, prefix: Option<&str>) -> Kind {
    let mut k = 0;
    let mut set = |cond: bool, bit: Kind| {
        if cond {
            k |= bit;
        }
    };
    set(is_title(local), TITLE);
    set(is_prose(local), PROSE);
    set(is_flat(local, prefix), FLAT);
    set(is_list(local), LIST);
    set(is_list_item(local), LIST_ITEM);
    set(is_table(local), TABLE);
    set(is_bold(local), BOLD);
    set(is_italic(local), ITALIC);
    set(is_strike(local), STRIKE);
    set(is_link(local), LINK);
    set(is_block_in_paragraph(local), BLOCK_IN_PARAGRAPH);
    set(is_blockish(local), BLOCKISH);
    set(local == "sup", SUP);
    // TEI's `<lb/>` begins a new line of the source text.
    set(matches!(local, "break" | "br" | "lb"), BREAK);
    set(is_not_shown(local), NOT_SHOWN);
    set(is_code(local), CODE);
    k
}

/// Elements of code or preformatted text: what they hold is shown as written, so markup in
/// it (`<preformat>{ &lt;code&gt; }</preformat>`) is text, never escaped HTML.
fn is_code(local: &str) -> bool {
    matches!(
        local,
        "code"
            | "pre"
            | "preformat"
            | "programlisting"
            | "screen"
            | "literal"
            | "literallayout"
            | "computeroutput"
            | "userinput"
            | "monospace"
            | "tt"
            | "kbd"
            | "samp"
            | "tex-math"
    )
}

/// Markup for other renderings that a reader of the text never sees: an index entry sits
/// inside the sentence it indexes (`terms<indexterm><primary>term</primary></indexterm>
/// consist`), and its words would run into the sentence's.
fn is_not_shown(local: &str) -> bool {
    matches!(local, "indexterm" | "index-term")
}

/// Elements whose text is a heading of the enclosing element.
fn is_title(local: &str) -> bool {
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
fn is_prose(local: &str) -> bool {
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
fn is_flat(local: &str, prefix: Option<&str>) -> bool {
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

fn is_list(local: &str) -> bool {
    matches!(
        local,
        "list" | "ul" | "ol" | "itemizedlist" | "orderedlist" | "simplelist"
    )
}

fn is_list_item(local: &str) -> bool {
    matches!(local, "list-item" | "li" | "listitem" | "item" | "member")
}

fn is_table(local: &str) -> bool {
    matches!(local, "table" | "informaltable")
}

fn is_bold(local: &str) -> bool {
    matches!(local, "bold" | "b" | "strong")
}

fn is_italic(local: &str) -> bool {
    matches!(local, "italic" | "i" | "em" | "emphasis" | "hi")
}

fn is_strike(local: &str) -> bool {
    matches!(local, "strike" | "del" | "s")
}

fn is_link(local: &str) -> bool {
    matches!(
        local,
        "ext-link" | "uri" | "a" | "link" | "ulink" | "self-uri"
    )
}

/// Elements that break a paragraph when they appear inside mixed content.
fn is_block_in_paragraph(local: &str) -> bool {
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
fn is_blockish(local: &str) -> bool {
    matches!(
        local,
        "p" | "para"
            | "claim-text"
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
