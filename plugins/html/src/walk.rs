//! The DOM → document-model walk.
//!
//! Block-level elements (p, div, section, article, ...) only mark paragraph boundaries: their
//! content is flattened into one list of blocks, as a reader sees the page. Lists, quotes and
//! tables nest. Everything a reader never sees is skipped (`head`, `script`, `style`,
//! `noscript`, `template`, `datalist`, navigation (`nav`, `role=navigation|search`), `hidden`
//! and `aria-hidden` elements, `display:none`). `role=menu` is kept: Bootstrap-style dropdowns
//! use it for content lists.
//!
//! Form controls, SVG and MathML read as a browser draws them (see [`controls`]). An
//! `<object>` is never rendered, so its fallback content reads in its place.
//!
//! The walk recurses, but never deeper than the depth limit: below it a subtree contributes its
//! text only, gathered by an iterative traversal, so 100,000 nested `div`s cost neither stack
//! nor a deep document model.

use crate::dom::{Dom, Element, NodeData, NodeId};
use crate::inline::Inlines;
use crate::links;
use quire_plugin_api::datauri;
use quire_plugin_api::{Block, Image, Inline, List, ListItem, Result, Style};

mod controls;
mod table;

/// A hard ceiling on recursion whatever the configured limit (each level costs a few stack
/// frames, and the renderer walks the resulting model recursively too).
pub const MAX_WALK_DEPTH: usize = 256;

/// Nodes visited between deadline checks.
const CHECK_EVERY_NODES: usize = 4096;

/// Blocks being collected plus the open paragraph.
#[derive(Default)]
pub struct Flow {
    pub blocks: Vec<Block>,
    pub inlines: Inlines,
}

pub struct Walker<'d> {
    dom: &'d Dom,
    check: &'d dyn Fn() -> Result<()>,
    max_depth: usize,
    max_images: u32,
    pub images: u32,
    bold: u32,
    italic: u32,
    strike: u32,
    /// Inside a heading or table cell: block boundaries become spaces.
    inline_only: u32,
    /// Inside SVG graphics, where text nodes are not drawn (outside `<text>` and
    /// `<foreignObject>`).
    svg_hides_text: bool,
    visited: usize,
    pub first_h1: Option<String>,
    pub depth_cut: bool,
}

impl<'d> Walker<'d> {
    pub fn new(
        dom: &'d Dom,
        max_depth: u32,
        max_images: u32,
        check: &'d dyn Fn() -> Result<()>,
    ) -> Self {
        Walker {
            dom,
            check,
            max_depth: (max_depth as usize).clamp(8, MAX_WALK_DEPTH),
            max_images,
            images: 0,
            bold: 0,
            italic: 0,
            strike: 0,
            inline_only: 0,
            svg_hides_text: false,
            visited: 0,
            first_h1: None,
            depth_cut: false,
        }
    }

    /// Converts the whole document into blocks.
    pub fn run(&mut self) -> Result<Vec<Block>> {
        let mut flow = Flow::default();
        self.children(Dom::ROOT, &mut flow, 0)?;
        self.flush(&mut flow);
        Ok(flow.blocks)
    }

    fn style(&self) -> Style {
        Style {
            bold: self.bold > 0,
            italic: self.italic > 0,
            strike: self.strike > 0,
        }
    }

    /// Ends the open paragraph (a block boundary).
    fn flush(&self, flow: &mut Flow) {
        if self.inline_only > 0 {
            flow.inlines.soft_space();
            return;
        }
        for mut inlines in flow.inlines.take_paragraphs() {
            if inlines.len() == 1 {
                if let Some(Inline::Image(_)) = inlines.first() {
                    if let Some(Inline::Image(image)) = inlines.pop() {
                        flow.blocks.push(Block::Image(image));
                        continue;
                    }
                }
            }
            flow.blocks.push(Block::Paragraph(inlines));
        }
    }

    /// The formula of a pandoc-style math span (`<span class="math inline">\(x^2\)</span>`,
    /// `class="math display"` with `\[…\]`; MathJax reads them): its TeX, or `None` when the
    /// text is not so delimited.
    fn tex_span(&self, id: NodeId) -> Option<Inline> {
        let text = self.text_content(id);
        let t = text.trim();
        let (tex, display) =
            if let Some(inner) = t.strip_prefix("\\(").and_then(|r| r.strip_suffix("\\)")) {
                (inner, false)
            } else if let Some(inner) = t.strip_prefix("\\[").and_then(|r| r.strip_suffix("\\]")) {
                (inner, true)
            } else {
                return None;
            };
        let tex = quire_plugin_api::text::fold_whitespace(tex);
        (!tex.is_empty()).then_some(Inline::Math { tex, display })
    }

    /// An `<iframe srcdoc="…">` shows the document its attribute holds where the frame stands
    /// (a frame's `src` is never fetched, so it shows nothing). That document is parsed on its
    /// own and walked into the same flow: its blocks take the frame's place, its images are
    /// numbered on, and its nesting counts on from the frame's, so frames inside frames stay
    /// within the depth limit.
    fn srcdoc(&mut self, element: &Element, flow: &mut Flow, depth: usize) -> Result<()> {
        let Some(html) = element.attr("srcdoc").filter(|s| !s.trim().is_empty()) else {
            return Ok(());
        };
        let remaining = self.max_depth.saturating_sub(depth);
        if remaining < 8 {
            self.depth_cut = true;
            return Ok(());
        }
        let (dom, parse_cut) = Dom::parse(html, remaining, self.check)?;
        let mut inner = Walker::new(&dom, 0, self.max_images, self.check);
        inner.max_depth = self.max_depth;
        inner.images = self.images;
        inner.visited = self.visited;
        inner.inline_only = self.inline_only;
        self.flush(flow);
        inner.children(Dom::ROOT, flow, depth)?;
        inner.flush(flow);
        self.images = inner.images;
        self.visited = inner.visited;
        self.depth_cut |= inner.depth_cut || parse_cut;
        Ok(())
    }

    fn children(&mut self, id: NodeId, flow: &mut Flow, depth: usize) -> Result<()> {
        for child in self.dom.children(id) {
            self.node(child, flow, depth + 1)?;
        }
        Ok(())
    }

    fn node(&mut self, id: NodeId, flow: &mut Flow, depth: usize) -> Result<()> {
        self.visited += 1;
        if self.visited.is_multiple_of(CHECK_EVERY_NODES) {
            (self.check)()?;
        }
        let Some(node) = self.dom.node(id) else {
            return Ok(());
        };
        let element = match &node.data {
            NodeData::Text(text) => {
                if !self.svg_hides_text {
                    flow.inlines.text(text, self.style());
                }
                return Ok(());
            }
            NodeData::Element(element) => element,
            NodeData::Document => return self.children(id, flow, depth),
            NodeData::Inert => return Ok(()),
        };
        if is_hidden(element) {
            return Ok(());
        }
        let Some(name) = element.html_name() else {
            return self.foreign(id, element, flow, depth);
        };
        if depth >= self.max_depth {
            self.depth_cut = true;
            self.text_only(id, flow);
            return Ok(());
        }
        match &**name {
            "head" | "script" | "style" | "noscript" | "template" | "title" | "meta" | "link"
            | "base" | "frame" | "frameset" | "embed" | "canvas" | "audio" | "video" | "map"
            | "datalist" | "nav" | "param" | "source" | "track" => {}
            "iframe" => self.srcdoc(element, flow, depth)?,
            "button" => {
                flow.inlines.soft_space();
                self.children(id, flow, depth)?;
                flow.inlines.soft_space();
            }
            "select" => self.select(id, flow),
            // A plugin's content is never shown, so its fallback stands in for it, as an
            // image's alt text does (`param`s are skipped).
            "object" => self.children(id, flow, depth)?,
            "input" => {
                let label = element.attr("type").is_some_and(|t| {
                    ["submit", "reset", "button"]
                        .iter()
                        .any(|k| t.trim().eq_ignore_ascii_case(k))
                });
                if let Some(value) = element.attr("value").filter(|_| label) {
                    self.inline_label(value, flow);
                }
            }
            "textarea" => {
                let text = self.text_content(id);
                self.inline_label(&text, flow);
            }
            "br" => {
                if self.inline_only > 0 {
                    flow.inlines.soft_space();
                } else {
                    flow.inlines.line_break();
                }
            }
            "wbr" => {}
            "hr" => {
                self.flush(flow);
                if self.inline_only == 0 {
                    flow.blocks.push(Block::Rule);
                }
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = name.as_bytes()[1] - b'0';
                self.heading(id, level, flow, depth)?;
            }
            "ul" | "ol" | "menu" | "dir" => {
                if self.inline_only > 0 {
                    self.block_children(id, flow, depth)?;
                } else {
                    self.list(id, element, &**name == "ol", flow, depth)?;
                }
            }
            "li" | "dd" => self.block_children(id, flow, depth)?,
            "dt" => {
                self.flush(flow);
                self.bold += 1;
                let result = self.children(id, flow, depth);
                self.bold -= 1;
                result?;
                self.flush(flow);
            }
            "blockquote" => {
                if self.inline_only > 0 {
                    self.block_children(id, flow, depth)?;
                } else {
                    self.flush(flow);
                    let mut inner = Flow::default();
                    self.children(id, &mut inner, depth)?;
                    self.flush(&mut inner);
                    if !inner.blocks.is_empty() {
                        flow.blocks.push(Block::Quote(inner.blocks));
                    }
                }
            }
            "pre" | "listing" | "xmp" | "plaintext" => self.pre(id, element, flow),
            "table" => self.table(id, flow, depth)?,
            "img" => match math_image(element) {
                Some(math) => flow.inlines.atom(math),
                None => self.image(element, flow),
            },
            "span" | "div" if has_class(element, "math") => match self.tex_span(id) {
                Some(math) => {
                    // a display formula stands on a line of its own
                    if matches!(math, Inline::Math { display: true, .. }) {
                        self.flush(flow);
                    }
                    flow.inlines.atom(math);
                }
                None => self.children(id, flow, depth)?,
            },
            "a" => match element.attr("href").and_then(links::clean_href) {
                Some(href) => {
                    let title = element
                        .attr("title")
                        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                        .filter(|t| !t.is_empty());
                    let mark = flow.inlines.mark();
                    self.children(id, flow, depth)?;
                    flow.inlines.wrap_link(mark, href, title);
                }
                None => self.children(id, flow, depth)?,
            },
            "b" | "strong" => {
                self.bold += 1;
                let result = self.children(id, flow, depth);
                self.bold -= 1;
                result?;
            }
            "i" | "em" | "cite" | "dfn" | "var" => {
                self.italic += 1;
                let result = self.children(id, flow, depth);
                self.italic -= 1;
                result?;
            }
            "s" | "strike" | "del" => {
                self.strike += 1;
                let result = self.children(id, flow, depth);
                self.strike -= 1;
                result?;
            }
            "code" | "kbd" | "samp" | "tt" => {
                let text = self.text_content(id);
                let folded = quire_plugin_api::text::fold_whitespace(&text);
                if folded.is_empty() {
                    flow.inlines.text(&text, self.style());
                } else {
                    flow.inlines.atom(Inline::Code(folded));
                    if text.ends_with(char::is_whitespace) {
                        flow.inlines.soft_space();
                    }
                }
            }
            "p" | "div" | "section" | "article" | "main" | "header" | "footer" | "aside"
            | "address" | "figure" | "figcaption" | "center" | "hgroup" | "form" | "fieldset"
            | "legend" | "details" | "summary" | "dialog" | "body" | "html" | "caption" | "tr"
            | "td" | "th" | "thead" | "tbody" | "tfoot" | "search" | "dl" | "noframes"
            | "optgroup" | "option" => self.block_children(id, flow, depth)?,
            _ => self.children(id, flow, depth)?,
        }
        Ok(())
    }

    /// A block-level element that only separates paragraphs.
    fn block_children(&mut self, id: NodeId, flow: &mut Flow, depth: usize) -> Result<()> {
        self.flush(flow);
        self.children(id, flow, depth)?;
        self.flush(flow);
        Ok(())
    }

    fn heading(&mut self, id: NodeId, level: u8, flow: &mut Flow, depth: usize) -> Result<()> {
        if self.inline_only > 0 {
            return self.block_children(id, flow, depth);
        }
        self.flush(flow);
        self.inline_only += 1;
        let result = self.children(id, flow, depth);
        self.inline_only -= 1;
        result?;
        let content = flow.inlines.take();
        if content.is_empty() {
            return Ok(());
        }
        if level == 1 && self.first_h1.is_none() {
            self.first_h1 = Some(plain_text(&content));
        }
        flow.blocks.push(Block::Heading { level, content });
        Ok(())
    }

    fn list(
        &mut self,
        id: NodeId,
        element: &Element,
        ordered: bool,
        flow: &mut Flow,
        depth: usize,
    ) -> Result<()> {
        self.flush(flow);
        let start = element
            .attr("start")
            .and_then(|s| s.trim().parse::<i64>().ok())
            .map_or(1, |n| n.max(0) as u64);
        let mut items: Vec<ListItem> = Vec::new();
        let mut current: Option<(Flow, Option<bool>)> = None;
        for child in self.dom.children(id) {
            let is_li = self
                .dom
                .element(child)
                .and_then(Element::html_name)
                .is_some_and(|n| &**n == "li");
            if is_li {
                if let Some((done, checked)) = current.take() {
                    self.finish_item(done, checked, &mut items);
                }
                let mut item = Flow::default();
                let checked = self.checkbox(child);
                self.children(child, &mut item, depth + 1)?;
                current = Some((item, checked));
            } else {
                if let Some(NodeData::Text(t)) = self.dom.node(child).map(|n| &n.data) {
                    if t.trim().is_empty() {
                        continue;
                    }
                }
                let (item, _) = current.get_or_insert_with(|| (Flow::default(), None));
                self.node(child, item, depth + 1)?;
            }
        }
        if let Some((done, checked)) = current.take() {
            self.finish_item(done, checked, &mut items);
        }
        if items.is_empty() {
            return Ok(());
        }
        let list = List {
            ordered,
            start,
            items,
        };
        match flow.blocks.last_mut() {
            Some(Block::List(prev)) if opens_with_bare_level(&list) => graft(prev, list),
            _ => flow.blocks.push(Block::List(list)),
        }
        Ok(())
    }

    fn finish_item(&self, mut item: Flow, checked: Option<bool>, items: &mut Vec<ListItem>) {
        self.flush(&mut item);
        if !item.blocks.is_empty() || checked.is_some() {
            items.push(ListItem {
                blocks: item.blocks,
                checked,
            });
        }
    }

    /// A task-list checkbox as the item's first element child.
    fn checkbox(&self, li: NodeId) -> Option<bool> {
        let first = self
            .dom
            .children(li)
            .find(|&c| self.dom.element(c).is_some())?;
        let input = self.dom.element(first)?;
        let is_checkbox = input.html_name().is_some_and(|n| &**n == "input")
            && input
                .attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("checkbox"));
        is_checkbox.then(|| input.attr("checked").is_some())
    }

    fn pre(&mut self, id: NodeId, element: &Element, flow: &mut Flow) {
        let text = self.text_content(id);
        let text = text.trim_end_matches(['\n', '\r', ' ', '\t']);
        let text = text.trim_start_matches(['\n', '\r']);
        if text.trim().is_empty() {
            return;
        }
        if self.inline_only > 0 {
            flow.inlines
                .atom(Inline::Code(quire_plugin_api::text::fold_whitespace(text)));
            return;
        }
        self.flush(flow);
        let language = language_of(element).or_else(|| {
            self.dom
                .children(id)
                .filter_map(|c| self.dom.element(c))
                .find(|e| e.html_name().is_some_and(|n| &**n == "code"))
                .and_then(language_of)
        });
        flow.blocks.push(Block::Code {
            language,
            text: text.to_owned(),
        });
    }

    fn image(&mut self, element: &Element, flow: &mut Flow) {
        let alt = element.attr("alt").map(str::trim).unwrap_or("");
        let decoded = element
            .attr("src")
            .filter(|s| {
                s.trim_start().len() > 5 && s.trim_start()[..5].eq_ignore_ascii_case("data:")
            })
            .and_then(datauri::decode_image);
        // A 1x1 GIF or PNG is a spacer or a lazy-loading placeholder, not a picture.
        let decoded = decoded.filter(|d| !is_spacer(&d.data));
        let Some(decoded) = decoded else {
            // A remote picture is never fetched; its alt text stands in for it.
            if !alt.is_empty() {
                flow.inlines.text(alt, self.style());
                flow.inlines.soft_space();
            }
            return;
        };
        self.images += 1;
        let name = format!("image{}.{}", self.images, datauri::extension(&decoded.mime));
        let mut image = Image::new(name, decoded.mime, decoded.data);
        if !alt.is_empty() {
            image.alt = Some(alt.to_owned());
        }
        image.width = element.attr("width").and_then(|w| w.trim().parse().ok());
        image.height = element.attr("height").and_then(|h| h.trim().parse().ok());
        if self.images > self.max_images {
            image.data = Vec::new();
            image.skipped = Some(format!(
                "more than {} images in the document",
                self.max_images
            ));
        }
        flow.inlines.atom(Inline::Image(Box::new(image)));
    }

    /// Text of a subtree as written (for `pre` and `code`), `<br>` as a newline and a
    /// block element on lines of its own (`<pre>a<p>b</p>c</pre>` shows three lines); skipped
    /// elements contribute nothing. Iterative, so depth does not matter.
    pub fn text_content(&self, id: NodeId) -> String {
        let mut out = String::new();
        let new_line = |out: &mut String| {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
        };
        self.dom
            .walk_subtree_leaving(id, |_, node, leaving| match &node.data {
                NodeData::Text(t) => {
                    out.push_str(t);
                    false
                }
                NodeData::Element(e) => match e.html_name().map(|n| &**n) {
                    Some(name) if leaving => {
                        if breaks_lines(name) {
                            new_line(&mut out);
                        }
                        false
                    }
                    Some("br") => {
                        out.push('\n');
                        false
                    }
                    Some("script" | "style" | "template" | "noscript") | None => false,
                    Some(name) => {
                        let shown = !is_hidden(e);
                        if shown && breaks_lines(name) {
                            new_line(&mut out);
                        }
                        shown
                    }
                },
                _ => false,
            });
        out
    }

    /// Below the depth limit: the subtree's text, folded into the open paragraph.
    fn text_only(&mut self, id: NodeId, flow: &mut Flow) {
        let text = self.text_content(id);
        flow.inlines.soft_space();
        flow.inlines.text(&text, self.style());
        flow.inlines.soft_space();
    }
}

/// Elements a browser lays out as blocks: inside preformatted text their content starts on
/// a line of its own and what follows them on the next.
fn breaks_lines(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "footer"
            | "aside"
            | "address"
            | "figure"
            | "figcaption"
            | "center"
            | "hgroup"
            | "form"
            | "fieldset"
            | "legend"
            | "details"
            | "summary"
            | "dialog"
            | "search"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "ul"
            | "ol"
            | "menu"
            | "dir"
            | "li"
            | "dl"
            | "dt"
            | "dd"
            | "blockquote"
            | "pre"
            | "listing"
            | "xmp"
            | "plaintext"
            | "table"
            | "caption"
            | "tr"
            | "hr"
    )
}

/// Elements a reader never sees.
fn is_hidden(element: &Element) -> bool {
    if element.attrs.is_empty() {
        return false;
    }
    if element.attr("hidden").is_some() {
        return true;
    }
    if element
        .attr("aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return true;
    }
    // Landmarks that are site chrome, not content (the same as `<nav>`).
    if element.attr("role").is_some_and(|role| {
        role.split_whitespace().any(|r| {
            ["navigation", "search"]
                .iter()
                .any(|chrome| r.eq_ignore_ascii_case(chrome))
        })
    }) {
        return true;
    }
    element.attr("style").is_some_and(|style| {
        let compact: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        compact.contains("display:none") || compact.contains("visibility:hidden")
    })
}

/// Whether image bytes are a GIF or PNG of at most 2x2 pixels (read from the header).
fn is_spacer(data: &[u8]) -> bool {
    let dims = if data.starts_with(b"GIF8") && data.len() >= 10 {
        Some((
            u32::from(u16::from_le_bytes([data[6], data[7]])),
            u32::from(u16::from_le_bytes([data[8], data[9]])),
        ))
    } else if data.starts_with(b"\x89PNG\r\n\x1a\n") && data.len() >= 24 {
        Some((
            u32::from_be_bytes([data[16], data[17], data[18], data[19]]),
            u32::from_be_bytes([data[20], data[21], data[22], data[23]]),
        ))
    } else {
        None
    };
    dims.is_some_and(|(w, h)| w <= 2 && h <= 2)
}

/// `language-xxx` / `lang-xxx` classes (highlight.js, Prism, GitHub).
fn language_of(element: &Element) -> Option<String> {
    element.attr("class")?.split_whitespace().find_map(|class| {
        class
            .strip_prefix("language-")
            .or_else(|| class.strip_prefix("lang-"))
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
    })
}

/// Plain text of inline runs (for titles).
pub fn plain_text(inlines: &[Inline]) -> String {
    let mut out = String::new();
    let mut stack = vec![inlines.iter()];
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

/// Whether a list's first item holds nothing but a nested list: a level with no item of its
/// own, as LibreOffice writes a list that goes on deeper than the list before it
/// (`<ul><li>a</ul><ol><ol><li>b</ol></ol>`: "b" under "a").
fn opens_with_bare_level(list: &List) -> bool {
    list.items
        .first()
        .is_some_and(|i| i.checked.is_none() && matches!(i.blocks.as_slice(), [Block::List(_)]))
}

/// Puts `list`, which opens with bare levels, under the last item of the list before it at
/// the depth those levels say; its further items continue `prev`.
fn graft(prev: &mut List, list: List) {
    let mut items = list.items.into_iter();
    if let Some(ListItem { blocks, .. }) = items.next() {
        if let (Some(last), [Block::List(_)]) = (prev.items.last_mut(), blocks.as_slice()) {
            let Some(Block::List(inner)) = blocks.into_iter().next() else {
                return;
            };
            match last.blocks.last_mut() {
                Some(Block::List(sub)) if opens_with_bare_level(&inner) => graft(sub, inner),
                _ => last.blocks.push(Block::List(inner)),
            }
        }
    }
    prev.items.extend(items);
}

/// Whether the element's `class` list holds `name`.
fn has_class(element: &Element, name: &str) -> bool {
    element
        .attr("class")
        .is_some_and(|c| c.split_ascii_whitespace().any(|k| k == name))
}

/// MediaWiki's picture of a formula (`<img class="mwe-math-fallback-image-inline"
/// alt="{\displaystyle x^{2}}">`, beside a MathML copy it hides): the formula its alt text
/// holds.
fn math_image(element: &Element) -> Option<Inline> {
    let class = element.attr("class")?;
    let display = class
        .split_ascii_whitespace()
        .find(|k| k.starts_with("mwe-math-fallback-image"))?
        .ends_with("display");
    let tex = controls::bare_tex(element.attr("alt")?);
    (!tex.is_empty()).then_some(Inline::Math { tex, display })
}
