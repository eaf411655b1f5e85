//! The format-neutral document model: what every converter produces and nothing else.
//!
//! A [`Document`] is a list of [`Part`]s (pages, slides, sheets or one flowing section), each a
//! list of [`Block`]s. Blocks hold [`Inline`] runs. The host renders this model to Markdown and
//! to the interface's JSON shapes; converters never produce Markdown or JSON themselves.
//!
//! Design notes:
//! - Tables carry spans; the renderer flattens them (a merged cell's text stands in its first
//!   grid position, the positions it covers stay empty), so every converter agrees.
//! - Spreadsheet data uses [`Grid`], a compact row store (one string buffer plus offsets), so a
//!   50,000-row sheet costs little more than its text.
//! - Images carry their original bytes; the host normalises them (scale, re-encode, convert
//!   formats outside png/jpg/gif/bmp to PNG) once, for every plugin.

use serde::Serialize;
use std::collections::BTreeMap;

/// What kind of document this is; decides the JSON shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentKind {
    /// Pages with a fixed layout (PDF): `multi_page_document`.
    Paged,
    /// Slides: `presentation`.
    Presentation,
    /// Sheets of cells: `spreadsheet`.
    Spreadsheet,
    /// Flowing text split into sections by heading: `structured_document`.
    Flowing,
    /// A picture (possibly several frames): `image`.
    Image,
    /// A data tree (JSON, XML): `structured_data`.
    StructuredData,
}

/// A converted document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    pub kind: DocumentKind,
    /// Human-readable type label for `document.type` ("PDF Document", "CSV File", ...).
    pub type_label: String,
    pub metadata: Metadata,
    pub parts: Vec<Part>,
    /// The parsed tree for [`DocumentKind::StructuredData`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// Facts about the picture for [`DocumentKind::Image`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageSummary>,
}

impl Document {
    pub fn new(kind: DocumentKind, type_label: impl Into<String>) -> Self {
        Document {
            kind,
            type_label: type_label.into(),
            metadata: Metadata::default(),
            parts: Vec::new(),
            data: None,
            image: None,
        }
    }

    /// Every image in the document, in reading order, mutably (blocks, inlines, tables, notes).
    pub fn for_each_image_mut(&mut self, f: &mut dyn FnMut(&mut Image)) {
        for part in &mut self.parts {
            visit_blocks_images(&mut part.blocks, f);
            visit_blocks_images(&mut part.notes, f);
        }
    }

    /// Every image in the document, in reading order.
    pub fn images(&self) -> Vec<&Image> {
        let mut out = Vec::new();
        for part in &self.parts {
            collect_block_images(&part.blocks, &mut out);
            collect_block_images(&part.notes, &mut out);
        }
        out
    }
}

fn visit_blocks_images(blocks: &mut [Block], f: &mut dyn FnMut(&mut Image)) {
    for block in blocks {
        match block {
            Block::Heading { content, .. } | Block::Paragraph(content) => {
                visit_inlines_images(content, f)
            }
            Block::List(list) => {
                for item in &mut list.items {
                    visit_blocks_images(&mut item.blocks, f);
                }
            }
            Block::Table(table) => {
                for row in &mut table.rows {
                    for cell in row {
                        visit_inlines_images(&mut cell.content, f);
                    }
                }
            }
            Block::Image(image) => f(image),
            Block::Quote(inner) => visit_blocks_images(inner, f),
            Block::Note { blocks, .. } => visit_blocks_images(blocks, f),
            Block::Code { .. } | Block::Rule | Block::Grid(_) => {}
        }
    }
}

fn visit_inlines_images(inlines: &mut [Inline], f: &mut dyn FnMut(&mut Image)) {
    for inline in inlines {
        match inline {
            Inline::Image(image) => f(image),
            Inline::Link(link) => visit_inlines_images(&mut link.content, f),
            Inline::Text { .. }
            | Inline::Lines { .. }
            | Inline::Code(_)
            | Inline::Break
            | Inline::NoteRef(_)
            | Inline::Math { .. } => {}
        }
    }
}

fn collect_block_images<'a>(blocks: &'a [Block], out: &mut Vec<&'a Image>) {
    for block in blocks {
        match block {
            Block::Heading { content, .. } | Block::Paragraph(content) => {
                collect_inline_images(content, out)
            }
            Block::List(list) => {
                for item in &list.items {
                    collect_block_images(&item.blocks, out);
                }
            }
            Block::Table(table) => {
                for row in &table.rows {
                    for cell in row {
                        collect_inline_images(&cell.content, out);
                    }
                }
            }
            Block::Image(image) => out.push(image),
            Block::Quote(inner) => collect_block_images(inner, out),
            Block::Note { blocks, .. } => collect_block_images(blocks, out),
            Block::Code { .. } | Block::Rule | Block::Grid(_) => {}
        }
    }
}

fn collect_inline_images<'a>(inlines: &'a [Inline], out: &mut Vec<&'a Image>) {
    for inline in inlines {
        match inline {
            Inline::Image(image) => out.push(image),
            Inline::Link(link) => collect_inline_images(&link.content, out),
            Inline::Text { .. }
            | Inline::Lines { .. }
            | Inline::Code(_)
            | Inline::Break
            | Inline::NoteRef(_)
            | Inline::Math { .. } => {}
        }
    }
}

/// Document properties. Dates are ISO 8601 strings (`2024-03-01T10:00:00Z`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Metadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Slide size in EMU or points as the source gives it (presentations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slide_width: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slide_height: Option<u64>,
    /// Further format-specific facts (producer, encoding, language, ...).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// What a part of the document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    Page,
    Slide,
    Sheet,
    /// The single body of a flowing document (or one frame of an image).
    Section,
}

/// A page, slide, sheet or section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Part {
    pub kind: PartKind,
    /// 1-based number for pages and slides (and image frames).
    pub number: u32,
    /// Sheet name, or a slide's title when the converter knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub blocks: Vec<Block>,
    /// Speaker notes (slides).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Block>,
}

impl Part {
    pub fn new(kind: PartKind, number: u32) -> Self {
        Part {
            kind,
            number,
            name: None,
            blocks: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn page(number: u32) -> Self {
        Part::new(PartKind::Page, number)
    }

    pub fn slide(number: u32) -> Self {
        Part::new(PartKind::Slide, number)
    }

    pub fn sheet(number: u32, name: impl Into<String>) -> Self {
        Part {
            name: Some(name.into()),
            ..Part::new(PartKind::Sheet, number)
        }
    }

    pub fn section() -> Self {
        Part::new(PartKind::Section, 1)
    }
}

/// A block-level element.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// A heading, level 1..=6 (deeper source levels are clamped by the renderer).
    Heading {
        level: u8,
        content: Vec<Inline>,
    },
    Paragraph(Vec<Inline>),
    List(List),
    Table(Table),
    /// A large plain-text table, first row the header (spreadsheets, CSV). Boxed: one per
    /// table, and unboxed it made every block 104 bytes instead of 56.
    Grid(Box<Grid>),
    /// Boxed: an image is rare and its struct large; unboxed it set the size of every block.
    Image(Box<Image>),
    /// Preformatted text or code.
    Code {
        #[serde(skip_serializing_if = "Option::is_none")]
        language: Option<String>,
        text: String,
    },
    Quote(Vec<Block>),
    /// A footnote or endnote body; referenced by [`Inline::NoteRef`] with the same label.
    Note {
        label: String,
        blocks: Vec<Block>,
    },
    /// A thematic break.
    Rule,
}

impl Block {
    /// A paragraph of one plain text run.
    pub fn text(text: impl Into<String>) -> Block {
        Block::Paragraph(vec![Inline::plain(text)])
    }

    pub fn heading(level: u8, text: impl Into<String>) -> Block {
        Block::Heading {
            level,
            content: vec![Inline::plain(text)],
        }
    }
}

/// Character formatting of a text run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Style {
    #[serde(skip_serializing_if = "is_false")]
    pub bold: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub italic: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub strike: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Style {
    pub const PLAIN: Style = Style {
        bold: false,
        italic: false,
        strike: false,
    };
    pub const BOLD: Style = Style {
        bold: true,
        italic: false,
        strike: false,
    };
    pub const ITALIC: Style = Style {
        bold: false,
        italic: true,
        strike: false,
    };
}

/// An inline element.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Inline {
    Text {
        text: String,
        style: Style,
    },
    /// Boxed: a link is far rarer than a text run, and unboxed its three fields made every
    /// inline 80 bytes instead of 32.
    Link(Box<Link>),
    Code(String),
    /// A hard line break inside a paragraph.
    Break,
    /// Plain lines joined by hard breaks: reads exactly as `text` split at each `\n` into
    /// [`Style::PLAIN`] [`Inline::Text`] runs with an [`Inline::Break`] between each two. A
    /// compact form for paragraphs of many short lines (text files): one string instead of
    /// two inlines and a string per line.
    Lines {
        text: String,
    },
    /// Boxed: an image is rare and its struct large; unboxed it made every inline 160 bytes
    /// (a line of text costs one text inline and one break).
    Image(Box<Image>),
    /// A reference to a [`Block::Note`].
    NoteRef(String),
    /// A formula as LaTeX, without delimiters (Office Math, Equation Editor 3.0); `display`
    /// when it stands on a line of its own (`m:oMathPara`). Markdown writes it `$…$` or
    /// `$$…$$` as it is, unescaped, as Markdown math readers expect.
    Math {
        tex: String,
        display: bool,
    },
}

impl Inline {
    pub fn plain(text: impl Into<String>) -> Inline {
        Inline::Text {
            text: text.into(),
            style: Style::PLAIN,
        }
    }

    pub fn styled(text: impl Into<String>, style: Style) -> Inline {
        Inline::Text {
            text: text.into(),
            style,
        }
    }

    /// A link around `content`.
    pub fn link(href: impl Into<String>, title: Option<String>, content: Vec<Inline>) -> Inline {
        Inline::Link(Box::new(Link {
            href: href.into(),
            title,
            content,
        }))
    }
}

/// The payload of [`Inline::Link`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    pub href: String,
    /// The link's advisory title (HTML `title`, Markdown `"title"`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub content: Vec<Inline>,
}

/// An ordered or unordered list; nesting happens through blocks inside items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct List {
    pub ordered: bool,
    /// First number of an ordered list.
    pub start: u64,
    pub items: Vec<ListItem>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ListItem {
    pub blocks: Vec<Block>,
    /// Task-list state, when the source has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
}

/// A table of rich cells with spans.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Table {
    /// How many leading rows are header rows (0 when the source marks none).
    pub header_rows: usize,
    pub rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    pub content: Vec<Inline>,
    pub colspan: u32,
    pub rowspan: u32,
}

impl Cell {
    pub fn new(content: Vec<Inline>) -> Cell {
        Cell {
            content,
            colspan: 1,
            rowspan: 1,
        }
    }

    pub fn text(text: impl Into<String>) -> Cell {
        Cell::new(vec![Inline::plain(text)])
    }
}

/// An image with its original bytes. The host scales and re-encodes it by the image rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Image {
    /// File name used in JSON `images` and as the Markdown alt fallback ("image1.png").
    pub name: String,
    /// MIME type of `data` as found in the source ("image/png", "image/x-emf", ...).
    pub mime: String,
    #[serde(skip)]
    pub data: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Text read from the image (by OCR, or the words an EMF or WMF picture draws), placed
    /// beside it in the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_text: Option<String>,
    /// Why the image is not embedded (unsupported format, over a limit); the renderer lists it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

impl Image {
    pub fn new(name: impl Into<String>, mime: impl Into<String>, data: Vec<u8>) -> Image {
        Image {
            name: name.into(),
            mime: mime.into(),
            data,
            alt: None,
            width: None,
            height: None,
            ocr_text: None,
            skipped: None,
        }
    }
}

/// Facts about an image document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageSummary {
    pub width: u32,
    pub height: u32,
    /// Source format name ("png", "jpeg", "tiff", ...).
    pub format: String,
    pub frames: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_provider: Option<String>,
}

/// A compact table of plain-text cells: one string buffer, cell end offsets, row starts.
///
/// Rows may have different lengths; [`Grid::columns`] is the widest row. The first row is the
/// header when the grid is not empty. A sheet holding several separate tables has one grid
/// per table, each knowing where it sits ([`Grid::origin`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grid {
    text: String,
    cell_ends: Vec<usize>,
    row_starts: Vec<usize>,
    columns: usize,
    origin: Option<(u32, u32)>,
}

impl Grid {
    pub fn new() -> Grid {
        Grid::default()
    }

    /// A grid whose first cell is at zero-based (`row`, `column`) of its sheet.
    pub fn at(row: u32, column: u32) -> Grid {
        Grid {
            origin: Some((row, column)),
            ..Grid::default()
        }
    }

    /// Where the first cell sits in the sheet (zero-based row, column), when known.
    pub fn origin(&self) -> Option<(u32, u32)> {
        self.origin
    }

    /// Appends a row of cells.
    pub fn push_row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.row_starts.push(self.cell_ends.len());
        let mut n = 0;
        for cell in cells {
            self.text.push_str(cell.as_ref());
            self.cell_ends.push(self.text.len());
            n += 1;
        }
        self.columns = self.columns.max(n);
    }

    pub fn rows(&self) -> usize {
        self.row_starts.len()
    }

    pub fn columns(&self) -> usize {
        self.columns
    }

    pub fn is_empty(&self) -> bool {
        self.row_starts.is_empty()
    }

    /// Bytes of cell text held.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// The cells of row `i` (only those the row has; callers pad to [`Grid::columns`]).
    pub fn row(&self, i: usize) -> impl Iterator<Item = &str> + '_ {
        let start = self.row_starts[i];
        let end = self
            .row_starts
            .get(i + 1)
            .copied()
            .unwrap_or(self.cell_ends.len());
        (start..end).map(move |c| {
            let from = if c == 0 { 0 } else { self.cell_ends[c - 1] };
            &self.text[from..self.cell_ends[c]]
        })
    }

    /// Every row in order.
    pub fn iter_rows(&self) -> impl Iterator<Item = impl Iterator<Item = &str> + '_> + '_ {
        (0..self.rows()).map(move |i| self.row(i))
    }
}

impl Serialize for Grid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.rows()))?;
        for i in 0..self.rows() {
            let row: Vec<&str> = self.row(i).collect();
            seq.serialize_element(&row)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_keeps_ragged_rows_and_empty_cells() {
        let mut g = Grid::new();
        g.push_row(["a", "", "c"]);
        g.push_row(["d"]);
        g.push_row(Vec::<String>::new());
        assert_eq!(g.rows(), 3);
        assert_eq!(g.columns(), 3);
        assert_eq!(g.row(0).collect::<Vec<_>>(), vec!["a", "", "c"]);
        assert_eq!(g.row(1).collect::<Vec<_>>(), vec!["d"]);
        assert_eq!(g.row(2).count(), 0);
    }

    #[test]
    fn inlines_and_blocks_stay_small() {
        // A text run, a break and a block are what large documents are made of: a rare
        // variant that grows one of them costs every run (issue 13). Box its payload.
        assert!(
            std::mem::size_of::<Inline>() <= 32,
            "{}",
            std::mem::size_of::<Inline>()
        );
        assert!(
            std::mem::size_of::<Block>() <= 56,
            "{}",
            std::mem::size_of::<Block>()
        );
    }

    #[test]
    fn images_are_found_everywhere() {
        let img = |n: &str| Image::new(n, "image/png", vec![1]);
        let mut doc = Document::new(DocumentKind::Flowing, "Test");
        let mut part = Part::section();
        part.blocks.push(Block::Image(Box::new(img("a.png"))));
        part.blocks.push(Block::Paragraph(vec![Inline::link(
            "x",
            None,
            vec![Inline::Image(Box::new(img("b.png")))],
        )]));
        part.blocks.push(Block::List(List {
            ordered: false,
            start: 1,
            items: vec![ListItem {
                blocks: vec![Block::Table(Table {
                    header_rows: 0,
                    rows: vec![vec![Cell::new(vec![Inline::Image(Box::new(img("c.png")))])]],
                })],
                checked: None,
            }],
        }));
        part.notes.push(Block::Image(Box::new(img("d.png"))));
        doc.parts.push(part);
        let names: Vec<_> = doc.images().iter().map(|i| i.name.clone()).collect();
        assert_eq!(names, ["a.png", "b.png", "c.png", "d.png"]);
        let mut seen = 0;
        doc.for_each_image_mut(&mut |i| {
            i.alt = Some("x".into());
            seen += 1
        });
        assert_eq!(seen, 4);
    }
}
