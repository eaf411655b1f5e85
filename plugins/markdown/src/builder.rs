//! Folds pulldown-cmark's event stream into blocks and inlines.
//!
//! Block containers (quotes, lists, items, footnote bodies, tables) live on an explicit stack;
//! the one open leaf (paragraph, heading, table cell, code or HTML block) collects inlines.
//! Tight list items carry text without a paragraph event, so text arriving with no open leaf
//! opens an implicit paragraph. Past the depth limit new containers are "flat": their blocks
//! go straight into the enclosing container, keeping the model (and every recursive walk over
//! it, such as `Drop`) shallow.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Tag, TagEnd};
use quire_plugin_api::datauri;
use quire_plugin_api::{Block, Cell, Image, Inline, List, ListItem, Metadata, Style, Table};

/// A hard ceiling on kept nesting, whatever the configured limit: the model is walked
/// recursively by the renderer and by `Drop`.
const MAX_KEPT_DEPTH: usize = 128;

/// What the builder produced.
#[derive(Debug, Default)]
pub struct Built {
    pub blocks: Vec<Block>,
    pub metadata: Metadata,
    pub warnings: Vec<String>,
}

enum Kind {
    Root,
    Quote,
    List {
        ordered: bool,
        start: u64,
        items: Vec<ListItem>,
    },
    Item {
        checked: Option<bool>,
    },
    Note {
        label: String,
    },
    Table(TableState),
    /// Over the depth limit: blocks are handed to the parent.
    Flat,
}

#[derive(Default)]
struct TableState {
    rows: Vec<Vec<Cell>>,
    row: Vec<Cell>,
    header_rows: usize,
    /// pandoc's table without a header row, written with its first row as the header.
    headerless: bool,
}

struct Container {
    kind: Kind,
    blocks: Vec<Block>,
}

enum LeafKind {
    Paragraph,
    Heading(u8),
    Cell,
    Code { language: Option<String> },
    Html,
    Metadata,
}

struct Leaf {
    kind: LeafKind,
    inlines: Vec<Inline>,
    raw: String,
}

enum Frame {
    Link {
        href: String,
        title: Option<String>,
        content: Vec<Inline>,
    },
    Image {
        url: String,
        alt: String,
    },
}

#[derive(Default)]
struct HtmlOpen {
    bold: u32,
    italic: u32,
    strike: u32,
    links: u32,
}

/// The event-to-model state machine.
pub struct Builder<'c> {
    /// Asks whether the job may go on (cancellation, time limit); called while an HTML block
    /// is parsed.
    check: &'c dyn Fn() -> quire_plugin_api::Result<()>,
    /// The error that stopped an HTML block's conversion, returned by the next
    /// [`Builder::event`] or by [`Builder::finish`].
    failed: Option<quire_plugin_api::Error>,
    containers: Vec<Container>,
    leaf: Option<Leaf>,
    frames: Vec<Frame>,
    bold: u32,
    italic: u32,
    strike: u32,
    /// Formatting and links opened by inline HTML tags (`<b>`, `<em>`, `<a href>`), which
    /// need not be closed: they end with the leaf.
    html: HtmlOpen,
    notes: Vec<Block>,
    max_depth: usize,
    max_images: u32,
    images: u32,
    metadata: Metadata,
    first_h1: Option<String>,
    first_heading: Option<String>,
    /// The `title:` of YAML front matter, as written (Markdown).
    front_title: Option<String>,
    warnings: Vec<String>,
    flattened: bool,
}

impl<'c> Builder<'c> {
    pub fn new(
        max_depth: u32,
        max_images: u32,
        check: &'c dyn Fn() -> quire_plugin_api::Result<()>,
    ) -> Self {
        Builder {
            check,
            failed: None,
            containers: vec![Container {
                kind: Kind::Root,
                blocks: Vec::new(),
            }],
            leaf: None,
            frames: Vec::new(),
            bold: 0,
            italic: 0,
            strike: 0,
            html: HtmlOpen::default(),
            notes: Vec::new(),
            max_depth: (max_depth as usize).clamp(2, MAX_KEPT_DEPTH),
            max_images,
            images: 0,
            metadata: Metadata::default(),
            first_h1: None,
            first_heading: None,
            front_title: None,
            warnings: Vec::new(),
            flattened: false,
        }
    }

    pub fn event(&mut self, event: Event<'_>) -> quire_plugin_api::Result<()> {
        self.fold(event);
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn fold(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => self.push_inline(Inline::Code(code.into_string())),
            Event::InlineMath(math) => self.push_inline(Inline::Math {
                tex: math.into_string(),
                display: false,
            }),
            Event::DisplayMath(math) => self.push_inline(Inline::Math {
                tex: math.into_string(),
                display: true,
            }),
            Event::Html(html) => match &mut self.leaf {
                Some(leaf) if matches!(leaf.kind, LeafKind::Html) => leaf.raw.push_str(&html),
                _ => self.inline_html(&html),
            },
            Event::InlineHtml(html) => self.inline_html(&html),
            Event::FootnoteReference(label) => {
                self.push_inline(Inline::NoteRef(label.into_string()))
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.push_inline(Inline::Break),
            Event::Rule => {
                self.close_leaf();
                self.add_block(Block::Rule);
            }
            Event::TaskListMarker(checked) => {
                if let Some(Container {
                    kind: Kind::Item { checked: slot },
                    ..
                }) = self
                    .containers
                    .iter_mut()
                    .rev()
                    .find(|c| matches!(c.kind, Kind::Item { .. }))
                {
                    *slot = Some(checked);
                }
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.open_leaf(LeafKind::Paragraph),
            Tag::Heading { level, .. } => self.open_leaf(LeafKind::Heading(heading_level(level))),
            Tag::CodeBlock(kind) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                        .next()
                        .filter(|l| !l.is_empty())
                        .map(str::to_owned),
                    CodeBlockKind::Indented => None,
                };
                self.open_leaf(LeafKind::Code { language })
            }
            Tag::HtmlBlock => self.open_leaf(LeafKind::Html),
            Tag::MetadataBlock(_) => self.open_leaf(LeafKind::Metadata),
            Tag::BlockQuote(_) => self.push_container(Kind::Quote),
            Tag::List(start) => self.push_container(Kind::List {
                ordered: start.is_some(),
                start: start.unwrap_or(1),
                items: Vec::new(),
            }),
            Tag::Item => self.push_container(Kind::Item { checked: None }),
            Tag::FootnoteDefinition(label) => self.push_container(Kind::Note {
                label: label.into_string(),
            }),
            Tag::Table(_) => self.push_container(Kind::Table(TableState::default())),
            Tag::TableHead | Tag::TableRow => {
                self.close_leaf();
                if let Some(table) = self.table() {
                    table.row.clear();
                }
            }
            Tag::TableCell => self.open_leaf(LeafKind::Cell),
            Tag::Emphasis => self.italic += 1,
            Tag::Strong => self.bold += 1,
            Tag::Strikethrough => self.strike += 1,
            Tag::Superscript | Tag::Subscript => {}
            Tag::Link {
                dest_url, title, ..
            } => {
                self.ensure_leaf();
                self.frames.push(Frame::Link {
                    href: dest_url.into_string(),
                    title: Some(title.into_string()).filter(|t| !t.trim().is_empty()),
                    content: Vec::new(),
                });
            }
            Tag::Image { dest_url, .. } => {
                self.ensure_leaf();
                self.frames.push(Frame::Image {
                    url: dest_url.into_string(),
                    alt: String::new(),
                });
            }
            // A term is a bold paragraph and its definitions the blocks under it, as the HTML
            // plugin writes `<dt>` and `<dd>`: the model has no definition list.
            Tag::DefinitionListTitle => {
                self.close_leaf();
                self.bold += 1;
            }
            Tag::DefinitionList | Tag::DefinitionListDefinition => self.close_leaf(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::CodeBlock
            | TagEnd::HtmlBlock
            | TagEnd::MetadataBlock(_)
            | TagEnd::TableCell
            | TagEnd::DefinitionListDefinition
            | TagEnd::DefinitionList => self.close_leaf(),
            TagEnd::DefinitionListTitle => {
                self.close_leaf();
                self.bold = self.bold.saturating_sub(1);
            }
            TagEnd::BlockQuote(_)
            | TagEnd::List(_)
            | TagEnd::Item
            | TagEnd::FootnoteDefinition
            | TagEnd::Table => self.pop_container(),
            TagEnd::TableHead | TagEnd::TableRow => {
                self.close_leaf();
                if let Some(table) = self.table() {
                    let mut row = std::mem::take(&mut table.row);
                    row.shrink_to_fit();
                    table.rows.push(row);
                    if tag == TagEnd::TableHead && !table.headerless {
                        table.header_rows = table.rows.len();
                    }
                }
            }
            TagEnd::Emphasis => self.italic = self.italic.saturating_sub(1),
            TagEnd::Strong => self.bold = self.bold.saturating_sub(1),
            TagEnd::Strikethrough => self.strike = self.strike.saturating_sub(1),
            TagEnd::Superscript | TagEnd::Subscript => {}
            TagEnd::Link | TagEnd::Image => self.close_frame(),
        }
    }

    /// Everything built so far; open containers are closed as if the input ended cleanly.
    pub fn finish(mut self) -> quire_plugin_api::Result<Built> {
        self.close_leaf();
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        while self.containers.len() > 1 {
            self.pop_container();
        }
        let mut blocks = self.containers.pop().map(|c| c.blocks).unwrap_or_default();
        if let Some(title) = self.front_title.take() {
            self.title_heading(&title, &mut blocks);
        }
        blocks.append(&mut self.notes);
        if self.metadata.title.is_none() {
            self.metadata.title = self.first_h1.or(self.first_heading);
        }
        if self.flattened {
            self.warnings.push(format!(
                "Nesting deeper than {} levels was flattened.",
                self.max_depth
            ));
        }
        Ok(Built {
            blocks,
            metadata: self.metadata,
            warnings: self.warnings,
        })
    }

    // ---- containers ----

    fn push_container(&mut self, kind: Kind) {
        self.close_leaf();
        let kind = if self.containers.len() >= self.max_depth {
            self.flattened = true;
            Kind::Flat
        } else {
            kind
        };
        self.containers.push(Container {
            kind,
            blocks: Vec::new(),
        });
    }

    fn pop_container(&mut self) {
        self.close_leaf();
        if self.containers.len() <= 1 {
            return; // never pop the root
        }
        let Some(container) = self.containers.pop() else {
            return;
        };
        let Container { kind, mut blocks } = container;
        blocks.shrink_to_fit();
        match kind {
            Kind::Root => {}
            Kind::Flat => {
                for block in blocks {
                    self.add_block(block);
                }
            }
            Kind::Quote => self.add_block(Block::Quote(blocks)),
            Kind::List {
                ordered,
                start,
                items,
            } => self.add_block(Block::List(List {
                ordered,
                start,
                items,
            })),
            Kind::Item { checked } => {
                let item = ListItem { blocks, checked };
                match self.containers.last_mut() {
                    Some(Container {
                        kind: Kind::List { items, .. },
                        ..
                    }) => items.push(item),
                    _ => {
                        blocks = item.blocks;
                        for block in blocks {
                            self.add_block(block);
                        }
                    }
                }
            }
            Kind::Note { label } => self.notes.push(Block::Note { label, blocks }),
            Kind::Table(mut state) => {
                if !state.row.is_empty() {
                    state.rows.push(std::mem::take(&mut state.row));
                }
                if !state.rows.is_empty() {
                    state.rows.shrink_to_fit();
                    self.add_block(Block::Table(Table {
                        header_rows: state.header_rows,
                        rows: state.rows,
                    }));
                }
            }
        }
    }

    /// Adds a block to the innermost container that holds blocks.
    fn add_block(&mut self, block: Block) {
        for container in self.containers.iter_mut().rev() {
            match &mut container.kind {
                Kind::List { items, .. } => {
                    items.push(ListItem {
                        blocks: vec![block],
                        checked: None,
                    });
                    return;
                }
                Kind::Table(_) => continue,
                _ => {
                    container.blocks.push(block);
                    return;
                }
            }
        }
    }

    fn table(&mut self) -> Option<&mut TableState> {
        match self.containers.last_mut() {
            Some(Container {
                kind: Kind::Table(state),
                ..
            }) => Some(state),
            _ => None,
        }
    }

    // ---- leaves ----

    fn open_leaf(&mut self, kind: LeafKind) {
        self.close_leaf();
        self.leaf = Some(Leaf {
            kind,
            inlines: Vec::new(),
            raw: String::new(),
        });
    }

    /// Text with no open leaf (tight list items) gets an implicit paragraph.
    fn ensure_leaf(&mut self) {
        if self.leaf.is_none() {
            self.open_leaf(LeafKind::Paragraph);
        }
    }

    fn close_leaf(&mut self) {
        while !self.frames.is_empty() {
            self.close_frame();
        }
        self.html = HtmlOpen::default();
        let Some(leaf) = self.leaf.take() else {
            return;
        };
        let Leaf {
            kind,
            mut inlines,
            raw,
        } = leaf;
        if matches!(
            kind,
            LeafKind::Paragraph | LeafKind::Heading(_) | LeafKind::Cell
        ) {
            crate::pandoc::drop_attributes(&mut inlines, matches!(kind, LeafKind::Heading(_)));
            crate::pandoc::drop_script_marks(&mut inlines);
        }
        compact(&mut inlines);
        match kind {
            LeafKind::Paragraph => {
                trim_inlines(&mut inlines);
                if inlines.is_empty() {
                    return;
                }
                if inlines.len() == 1 && matches!(inlines[0], Inline::Image(_)) {
                    if let Some(Inline::Image(image)) = inlines.pop() {
                        self.add_block(Block::Image(image));
                        return;
                    }
                }
                self.add_block(Block::Paragraph(inlines));
            }
            LeafKind::Heading(level) => {
                trim_inlines(&mut inlines);
                let text = plain_text(&inlines);
                if level == 1 && self.first_h1.is_none() && !text.is_empty() {
                    self.first_h1 = Some(text.clone());
                }
                if self.first_heading.is_none() && !text.is_empty() {
                    self.first_heading = Some(text);
                }
                self.add_block(Block::Heading {
                    level,
                    content: inlines,
                });
            }
            LeafKind::Cell => {
                trim_inlines(&mut inlines);
                if let Some(table) = self.table() {
                    table.row.push(Cell::new(inlines));
                } else if !inlines.is_empty() {
                    self.add_block(Block::Paragraph(inlines));
                }
            }
            LeafKind::Code { language } => {
                let text = raw.strip_suffix('\n').unwrap_or(&raw).to_owned();
                self.add_block(Block::Code { language, text });
            }
            LeafKind::Html => self.html_block(&raw),
            LeafKind::Metadata => self.front_matter(&raw),
        }
    }

    /// An HTML block is what a reader of the rendered Markdown sees: CommonMark passes it
    /// through as HTML, so `<p align="center"><img alt="Logo" …></p>`, a `<table>` or a
    /// `<details>` summary read as their content (the HTML plugin's walker), never as markup.
    fn html_block(&mut self, raw: &str) {
        let text = strip_html_comments(raw);
        if text.trim().is_empty() {
            return;
        }
        let depth =
            u32::try_from(self.max_depth.saturating_sub(self.containers.len())).unwrap_or(u32::MAX);
        let fragment = match quire_html::fragment_blocks(
            &text,
            depth,
            self.images,
            self.max_images,
            self.check,
        ) {
            Ok(fragment) => fragment,
            Err(e) => {
                self.failed.get_or_insert(e);
                return;
            }
        };
        self.images = fragment.images;
        if fragment.depth_cut {
            self.flattened = true;
        }
        for block in fragment.blocks {
            if let Block::Heading { level, content } = &block {
                let text = plain_text(content);
                if *level == 1 && self.first_h1.is_none() && !text.is_empty() {
                    self.first_h1 = Some(text.clone());
                }
                if self.first_heading.is_none() && !text.is_empty() {
                    self.first_heading = Some(text);
                }
            }
            self.add_block(block);
        }
    }

    /// Reads `title:`, `author:`, `date:` and `description:` from YAML front matter; the
    /// rest stays unread. The title is also the document's first heading (see `finish`).
    pub fn front_matter(&mut self, raw: &str) {
        self.front_fields(crate::pandoc::yaml_fields(raw));
    }

    /// Front matter's fields, lower-case keys (YAML or TOML).
    pub fn front_fields(&mut self, fields: Vec<(String, String)>) {
        for (key, value) in fields {
            match key.as_str() {
                "title" => self.front_title = Some(value),
                "author" | "authors" => self.metadata.author = Some(value),
                "date" => self.metadata.created = Some(value),
                "description" | "subject" => self.metadata.subject = Some(value),
                _ => {}
            }
        }
    }

    /// pandoc's `%` title block: title (Markdown), authors, date.
    pub fn title_block(&mut self, [title, author, date]: [String; 3]) {
        if !title.is_empty() {
            self.front_title = Some(title);
        }
        if !author.is_empty() {
            self.metadata.author = Some(author);
        }
        if !date.is_empty() {
            self.metadata.created = Some(date);
        }
    }

    /// The table just opened is one pandoc reads without a header row (its first row was
    /// written as the pipe table's header).
    pub fn headerless_table(&mut self) {
        if let Some(table) = self.table() {
            table.headerless = true;
        }
    }

    /// The front matter's title as a level-1 heading: pandoc shows it above the body, and so
    /// do the static-site generators whose pages carry front matter. Its text is Markdown
    /// (pandoc reads it so). Not repeated when the body's first heading says the same.
    fn title_heading(&mut self, title: &str, blocks: &mut Vec<Block>) {
        let check = || Ok(());
        let mut sub = Builder::new(4, 0, &check);
        for event in pulldown_cmark::Parser::new(title) {
            sub.fold(event);
        }
        sub.close_leaf();
        let mut inlines = match sub
            .containers
            .first_mut()
            .map(|c| c.blocks.drain(..).next())
        {
            Some(Some(Block::Paragraph(p))) => p,
            Some(Some(Block::Heading { content, .. })) => content,
            _ => vec![Inline::plain(title.trim())],
        };
        trim_inlines(&mut inlines);
        let text = plain_text(&inlines);
        if text.trim().is_empty() {
            return;
        }
        let same = |a: &str, b: &str| {
            let words = |s: &str| {
                s.split_whitespace()
                    .map(str::to_lowercase)
                    .collect::<Vec<_>>()
            };
            words(a) == words(b)
        };
        let first = blocks.iter().find_map(|b| match b {
            Block::Heading { content, .. } => Some(plain_text(content)),
            _ => None,
        });
        self.metadata.title = Some(text.clone());
        if first.is_some_and(|h| same(&h, &text)) {
            return;
        }
        blocks.insert(
            0,
            Block::Heading {
                level: 1,
                content: inlines,
            },
        );
    }

    // ---- inlines ----

    fn style(&self) -> Style {
        Style {
            bold: self.bold + self.html.bold > 0,
            italic: self.italic + self.html.italic > 0,
            strike: self.strike + self.html.strike > 0,
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(leaf) = &mut self.leaf {
            if matches!(
                leaf.kind,
                LeafKind::Code { .. } | LeafKind::Html | LeafKind::Metadata
            ) {
                leaf.raw.push_str(text);
                return;
            }
        }
        if let Some(Frame::Image { alt, .. }) = self.frames.last_mut() {
            alt.push_str(text);
            return;
        }
        let style = self.style();
        self.ensure_leaf();
        if let Some(target) = self.inline_target() {
            push_text(target, text, style);
        }
    }

    fn push_inline(&mut self, inline: Inline) {
        if let Some(Frame::Image { alt, .. }) = self.frames.last_mut() {
            if let Inline::Code(code) = &inline {
                alt.push_str(code);
            }
            return;
        }
        self.ensure_leaf();
        if let Some(target) = self.inline_target() {
            target.push(inline);
        }
    }

    fn inline_target(&mut self) -> Option<&mut Vec<Inline>> {
        match self.frames.last_mut() {
            Some(Frame::Link { content, .. }) => Some(content),
            Some(Frame::Image { .. }) => None,
            None => self.leaf.as_mut().map(|l| &mut l.inlines),
        }
    }

    fn inline_html(&mut self, html: &str) {
        let trimmed = html.trim();
        if trimmed.starts_with("<!--") {
            return;
        }
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("<br") {
            self.push_inline(Inline::Break);
        } else if !self.html_format(trimmed) {
            self.text(html);
        }
    }

    /// An inline formatting tag (`<b>`, `</em>`, `<u>`, `<a href="…">`, ...): its
    /// formatting is applied where the model has it and the tag itself is dropped, so
    /// `ta<u>ble</u>` reads "table". Other tags stay text; returns whether the tag was taken.
    fn html_format(&mut self, tag: &str) -> bool {
        let Some((closing, name)) = tag_name(tag) else {
            return false;
        };
        let count = match name.as_str() {
            "b" | "strong" => &mut self.html.bold,
            "i" | "em" | "cite" | "dfn" | "var" => &mut self.html.italic,
            "s" | "del" | "strike" => &mut self.html.strike,
            "a" if closing => {
                if self.html.links > 0 && matches!(self.frames.last(), Some(Frame::Link { .. })) {
                    self.html.links -= 1;
                    self.close_frame();
                }
                return true;
            }
            "a" => {
                let Some(href) = attribute(tag, "href") else {
                    return true;
                };
                self.ensure_leaf();
                self.frames.push(Frame::Link {
                    href,
                    title: attribute(tag, "title").filter(|t| !t.trim().is_empty()),
                    content: Vec::new(),
                });
                self.html.links += 1;
                return true;
            }
            "u" | "ins" | "span" | "sup" | "sub" | "small" | "big" | "mark" | "kbd" | "abbr"
            | "font" | "code" | "samp" | "tt" | "q" | "time" | "nobr" | "wbr" => return true,
            _ => return false,
        };
        *count = if closing {
            count.saturating_sub(1)
        } else {
            count.saturating_add(1)
        };
        true
    }

    fn close_frame(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let inline = match frame {
            Frame::Link {
                href,
                title,
                content,
            } => {
                let content = if content.is_empty() {
                    vec![Inline::plain(href.clone())]
                } else {
                    content
                };
                Inline::link(href, title, content)
            }
            Frame::Image { url, alt } => match self.image(&url, &alt) {
                Some(image) => Inline::Image(Box::new(image)),
                None if matches!(self.frames.last(), Some(Frame::Link { .. })) => {
                    // Inside a link already: the alt text stands in for the picture.
                    Inline::plain(if alt.is_empty() { url } else { alt })
                }
                None => {
                    let text = if alt.is_empty() { url.clone() } else { alt };
                    Inline::link(url, None, vec![Inline::plain(text)])
                }
            },
        };
        match self.frames.last_mut() {
            Some(Frame::Link { content, .. }) => content.push(inline),
            Some(Frame::Image { alt, .. }) => alt.push_str(&plain_text(&[inline])),
            None => {
                if let Some(leaf) = &mut self.leaf {
                    leaf.inlines.push(inline);
                }
            }
        }
    }

    /// An image for a `data:` URI; `None` for remote addresses (never fetched).
    fn image(&mut self, url: &str, alt: &str) -> Option<Image> {
        let decoded = datauri::decode_image(url)?;
        self.images += 1;
        let name = format!("image{}.{}", self.images, datauri::extension(&decoded.mime));
        let mut image = Image::new(name, decoded.mime, decoded.data);
        if !alt.is_empty() {
            image.alt = Some(alt.to_owned());
        }
        if self.images > self.max_images {
            image.data = Vec::new();
            image.skipped = Some(format!(
                "more than {} images in the document",
                self.max_images
            ));
        }
        Some(image)
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Appends text, merging with the previous run when the style is the same.
fn push_text(target: &mut Vec<Inline>, text: &str, style: Style) {
    if text.is_empty() {
        return;
    }
    if let Some(Inline::Text {
        text: prev,
        style: s,
    }) = target.last_mut()
    {
        if *s == style {
            prev.push_str(text);
            return;
        }
    }
    target.push(Inline::styled(text, style));
}

/// Gives back what growing by pushes left over: the list's spare room and each run's (text
/// is appended piece by piece as the parser splits it). A model of many short runs would
/// otherwise hold about twice its size.
fn compact(inlines: &mut Vec<Inline>) {
    inlines.shrink_to_fit();
    for inline in inlines {
        match inline {
            Inline::Text { text, .. } => text.shrink_to_fit(),
            Inline::Link(link) => compact(&mut link.content),
            _ => {}
        }
    }
}

/// Drops leading and trailing whitespace of a paragraph's runs.
fn trim_inlines(inlines: &mut Vec<Inline>) {
    while let Some(Inline::Text { text, .. }) = inlines.first_mut() {
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            inlines.remove(0);
        } else {
            if trimmed.len() != text.len() {
                *text = trimmed.to_owned();
            }
            break;
        }
    }
    while let Some(last) = inlines.last_mut() {
        match last {
            Inline::Text { text, .. } => {
                let len = text.trim_end().len();
                if len == 0 {
                    inlines.pop();
                } else {
                    text.truncate(len);
                    break;
                }
            }
            Inline::Break => {
                inlines.pop();
            }
            _ => break,
        }
    }
}

/// The plain text of inlines (for titles and alt text).
pub fn plain_text(inlines: &[Inline]) -> String {
    let mut out = String::new();
    let mut stack: Vec<std::slice::Iter<'_, Inline>> = vec![inlines.iter()];
    while let Some(iter) = stack.last_mut() {
        let Some(inline) = iter.next() else {
            stack.pop();
            continue;
        };
        match inline {
            Inline::Text { text, .. } | Inline::Code(text) | Inline::Math { tex: text, .. } => {
                out.push_str(text)
            }
            Inline::Link(link) => stack.push(link.content.iter()),
            Inline::Break => out.push(' '),
            Inline::Lines { text } => out.push_str(&text.replace('\n', " ")),
            Inline::Image(image) => out.push_str(image.alt.as_deref().unwrap_or("")),
            Inline::NoteRef(_) => {}
        }
    }
    out
}

/// `<name …>` or `</name>`: whether it closes, and the lower-case name.
fn tag_name(tag: &str) -> Option<(bool, String)> {
    let inner = tag.strip_prefix('<')?.strip_suffix('>')?;
    let (closing, rest) = match inner.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let after = &rest[name.len()..];
    let ok = !name.is_empty()
        && (after.is_empty() || after.starts_with(|c: char| c.is_whitespace() || c == '/'));
    ok.then(|| (closing, name.to_ascii_lowercase()))
}

/// An attribute's value in a start tag, quoted or not.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        if !lower[..at].ends_with(|c: char| c.is_whitespace()) {
            continue;
        }
        let rest = tag[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let value = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
            _ => rest
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or(""),
        };
        return Some(value.to_owned());
    }
    None
}

/// Raw HTML without its `<!-- comments -->` (invisible in any rendering of the source).
fn strip_html_comments(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start + 4..].find("-->") {
            Some(end) => rest = &rest[start + 4 + end + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
