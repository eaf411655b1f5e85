//! The descent parser over WordprocessingML content: the document body, headers, footers,
//! footnotes, endnotes, comments and text boxes all share one content model, read here into
//! a small intermediate form ([`Item`]) that keeps what the model builder needs (paragraph
//! style, numbering reference, table merges) and nothing else.
//!
//! Choices that matter:
//! - deleted (`w:del`, `w:moveFrom`) content is dropped, inserted content kept;
//! - of an `mc:AlternateContent`, exactly one branch is read (the first Choice whose
//!   namespaces we read, else the Fallback: `quire_ooxml::reads_choice`), so a text box or
//!   picture never appears twice;
//! - field instructions are never output, only field results; `HYPERLINK` fields become links;
//! - hidden runs (`w:vanish`, `w:webHidden`) are dropped;
//! - linked (external) images are never fetched: they appear as skipped images;
//! - an embedded document (`w:altChunk`: HTML, MHT, RTF or another DOCX that Word converts
//!   when it opens the file) is not converted; the document says so in one warning;
//! - a chart (`c:chart r:id` in a drawing) is read from its part's cached values, as PPTX and
//!   XLSX read theirs, and follows its paragraph like a text box;
//! - a SmartArt diagram (`dgm:relIds r:dm`) is read from its data part, as PPTX reads it, and
//!   text drawn in DrawingML shapes (`a:txBody`: a locked canvas, shapes grouped without a
//!   Word text box) is read like a text box's; both follow their paragraph.

mod para;

use crate::media;
use crate::styles::{FmtDelta, Styles};
use crate::xml::{attr, name, on_off, Ev, Xml};
use quire_ooxml::chart::{self, Chart};
use quire_ooxml::{Relationship, SafeZip};
use quire_plugin_api::{Block, Context, Image, Inline, Result, Style};
use std::collections::HashMap;

/// A block of content as read, before headings and lists are decided.
#[derive(Debug)]
pub(crate) enum Item {
    Para(Para),
    Table(TableIr),
    /// A DrawingML chart: its title and cached data.
    Chart(Chart),
    /// A SmartArt diagram: the text of each of its points with its depth
    /// ([`quire_ooxml::diagram::nodes`]).
    Diagram(Vec<(usize, String)>),
    /// An embedded document (`w:altChunk`) converted by the host's converter for its type.
    Blocks(Vec<Block>),
}

#[derive(Debug, Default)]
pub(crate) struct Para {
    pub style: Option<String>,
    /// Direct numbering: numId (when given) and level (when given).
    pub num_id: Option<String>,
    pub ilvl: Option<u8>,
    pub outline: Option<u8>,
    /// Direct left indent in twips (`w:ind w:left` or `w:start`).
    pub indent: Option<i64>,
    pub inlines: Vec<Inline>,
    /// Text boxes anchored in this paragraph, output after it.
    pub after: Vec<Item>,
    /// The paragraph is a drop cap (`w:framePr w:dropCap="drop|margin"`): the start of the
    /// next paragraph.
    pub drop_cap: bool,
}

#[derive(Debug, Default)]
pub(crate) struct TableIr {
    pub rows: Vec<RowIr>,
}

#[derive(Debug, Default)]
pub(crate) struct RowIr {
    pub header: bool,
    pub deleted: bool,
    pub grid_before: u32,
    pub cells: Vec<CellIr>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum VMerge {
    #[default]
    No,
    Restart,
    Continue,
}

#[derive(Debug, Default)]
pub(crate) struct CellIr {
    pub items: Vec<Item>,
    pub span: u32,
    pub vmerge: VMerge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoteKind {
    Foot,
    End,
    Comment,
}

/// Note references in the order they appear, with the labels given to them.
#[derive(Debug, Default)]
pub(crate) struct NoteRefs {
    pub order: Vec<(NoteKind, String, String)>,
    notes: u32,
    comments: u32,
}

impl NoteRefs {
    fn label(&mut self, kind: NoteKind, id: &str) -> String {
        if let Some((_, _, l)) = self.order.iter().find(|(k, i, _)| *k == kind && i == id) {
            return l.clone();
        }
        let label = if kind == NoteKind::Comment {
            self.comments += 1;
            format!("c{}", self.comments)
        } else {
            self.notes += 1;
            self.notes.to_string()
        };
        self.order.push((kind, id.to_owned(), label.clone()));
        label
    }
}

/// Note bodies by id, with the comment author when there is one.
pub(crate) type NoteBodies = HashMap<String, (Vec<Item>, Option<String>)>;

/// State shared by every part of one document.
pub(crate) struct Shared<'z, 'b, 'c, 'x> {
    pub zip: &'z mut SafeZip<'b>,
    pub ctx: &'c mut Context<'x>,
    pub styles: Styles,
    pub notes: NoteRefs,
    pub images: u32,
    pub headers: Vec<String>,
    pub footers: Vec<String>,
    pub paragraphs_read: u64,
    pub deep_warned: bool,
    /// Embedded documents (`w:altChunk`) left out, counted for one warning at the end.
    pub alt_chunks: u32,
}

struct Field {
    instr: String,
    in_result: bool,
    link: Option<(String, u64, usize)>,
}

/// Reads one part's content with that part's relationships.
pub(crate) struct PartParser<'s, 'z, 'b, 'c, 'x> {
    sh: &'s mut Shared<'z, 'b, 'c, 'x>,
    rels: HashMap<String, Relationship>,
    fields: Vec<Field>,
    sink: u64,
    sinks: u64,
    /// Open `w:hyperlink` elements around the current run.
    links: u32,
    /// The OLE object in the `w:object` being read that reads as more than its preview
    /// picture (`o:OLEObject`; read in place of the picture in `body/para.rs`).
    object: Option<Object>,
}

/// An OLE object shown as its content whose part is read instead of its picture.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Object {
    /// A workbook or Word document (by the relationship id), converted through the host.
    Document(String),
    /// An Equation Editor 3.0 formula (by the relationship id), read as LaTeX.
    Equation(String),
}

const TICK_EVERY: u64 = 64;

/// XML depth beyond which content is skipped rather than descended into. Real documents stay
/// far below it (tables in text boxes in tables reach ~40); it bounds the parser's recursion
/// so a hostile file cannot exhaust the stack of the thread running the conversion.
const MAX_STRUCTURE_DEPTH: u32 = 100;

fn push_text(inlines: &mut Vec<Inline>, text: &str, style: Style) {
    if text.is_empty() {
        return;
    }
    if let Some(Inline::Text {
        text: last,
        style: s,
    }) = inlines.last_mut()
    {
        if *s == style {
            last.push_str(text);
            return;
        }
    }
    inlines.push(Inline::styled(text, style));
}

fn to_style(f: FmtDelta, in_link: bool) -> Style {
    Style {
        bold: f.bold.unwrap_or(false),
        italic: f.italic.unwrap_or(false) || (!in_link && f.underline.unwrap_or(false)),
        strike: f.strike.unwrap_or(false),
    }
}

/// The target of a `HYPERLINK` field instruction: `HYPERLINK "url" \l "anchor"`.
fn field_link(instr: &str) -> Option<String> {
    let rest = instr.trim_start().strip_prefix("HYPERLINK")?;
    let mut url = None;
    let mut anchor = None;
    let mut next_is_anchor = false;
    let mut parts = rest.split('"');
    // Alternate outside/inside quotes; also accept an unquoted URL.
    let mut inside = false;
    for seg in parts.by_ref() {
        if inside {
            if next_is_anchor {
                anchor = Some(seg.to_owned());
                next_is_anchor = false;
            } else if url.is_none() {
                url = Some(seg.to_owned());
            }
        } else {
            for word in seg.split_whitespace() {
                if word == "\\l" {
                    next_is_anchor = true;
                } else if !word.starts_with('\\') && url.is_none() && !next_is_anchor {
                    url = Some(word.to_owned());
                }
            }
        }
        inside = !inside;
    }
    match (url, anchor) {
        (Some(u), Some(a)) => Some(format!("{u}#{a}")),
        (Some(u), None) => Some(u),
        (None, Some(a)) => Some(format!("#{a}")),
        (None, None) => None,
    }
}

/// Whether a link target is safe to keep (no script or data URLs).
fn safe_href(href: &str) -> bool {
    let lower = href.trim_start().to_ascii_lowercase();
    !(lower.starts_with("javascript:")
        || lower.starts_with("vbscript:")
        || lower.starts_with("data:"))
}

/// A character from `w:sym`: Symbol-font private-use codes mapped to Unicode where common.
fn sym_char(font: Option<&str>, code: &str) -> Option<char> {
    let v = u32::from_str_radix(code.trim(), 16).ok()?;
    let low = if (0xF000..=0xF0FF).contains(&v) {
        v - 0xF000
    } else {
        v
    };
    let symbol = font.is_some_and(|f| f.eq_ignore_ascii_case("Symbol"));
    if symbol {
        const GREEK: &str = "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ";
        const GREEK_LOWER: &str = "αβχδεφγηιϕκλμνοπθρστυϖωξψζ";
        let c = match low {
            0x41..=0x5A => GREEK.chars().nth((low - 0x41) as usize),
            0x61..=0x7A => GREEK_LOWER.chars().nth((low - 0x61) as usize),
            0xB7 => Some('•'),
            0xB4 => Some('×'),
            0xB8 => Some('÷'),
            0xB1 => Some('±'),
            0xA3 => Some('≤'),
            0xB3 => Some('≥'),
            0xB9 => Some('≠'),
            0xBB => Some('≈'),
            0xA5 => Some('∞'),
            0xAE => Some('→'),
            0xAC => Some('←'),
            0xD6 => Some('√'),
            0xE5 => Some('∑'),
            0xF2 => Some('∫'),
            0xB6 => Some('∂'),
            0xCE => Some('∈'),
            0xD7 => Some('·'),
            0x20..=0x7E => char::from_u32(low),
            _ => None,
        };
        return c;
    }
    if (0xF000..=0xF0FF).contains(&v) {
        // Wingdings and other symbol fonts: no faithful mapping; printable ASCII stays.
        return (0x20..=0x7E)
            .contains(&low)
            .then(|| char::from(low as u8))
            .filter(|_| font.is_none_or(|f| !f.to_ascii_lowercase().contains("wingding")));
    }
    char::from_u32(v)
}

impl<'s, 'z, 'b, 'c, 'x> PartParser<'s, 'z, 'b, 'c, 'x> {
    pub(crate) fn new(
        sh: &'s mut Shared<'z, 'b, 'c, 'x>,
        rels: HashMap<String, Relationship>,
    ) -> Self {
        PartParser {
            sh,
            rels,
            fields: Vec::new(),
            sink: 0,
            sinks: 0,
            links: 0,
            object: None,
        }
    }

    /// Called on entering a container whose start was just read: false (and the container
    /// skipped) when it is nested too deeply to descend into.
    fn enter(&mut self, x: &mut Xml<'_>) -> Result<bool> {
        if x.depth() <= MAX_STRUCTURE_DEPTH {
            return Ok(true);
        }
        if !self.sh.deep_warned {
            self.sh.deep_warned = true;
            self.sh
                .ctx
                .warn("Some content is nested too deeply to read and was left out.");
        }
        x.skip()?;
        Ok(false)
    }

    fn new_sink(&mut self) -> u64 {
        let old = self.sink;
        self.sinks += 1;
        self.sink = self.sinks;
        old
    }

    /// Whether the current run is link text (a hyperlink element or a HYPERLINK field result).
    fn in_link(&self) -> bool {
        self.links > 0 || self.fields.iter().any(|f| f.link.is_some())
    }

    fn suppressed(&self) -> bool {
        self.fields.iter().any(|f| !f.in_result)
    }

    fn tick(&mut self, x: &Xml<'_>) -> Result<()> {
        self.sh.paragraphs_read += 1;
        if self.sh.paragraphs_read.is_multiple_of(TICK_EVERY) {
            self.sh.ctx.check()?;
            self.sh.ctx.progress(x.position(), x.len());
        }
        Ok(())
    }

    /// Reads exactly one branch of an `mc:AlternateContent` with `f`.
    fn alternate<'a>(
        &mut self,
        x: &mut Xml<'a>,
        mut f: impl FnMut(&mut Self, &mut Xml<'a>) -> Result<()>,
    ) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        let mut taken = false;
        loop {
            match x.next()? {
                Ev::Start(e) => {
                    let readable = name(&e) == b"Fallback"
                        || (name(&e) == b"Choice"
                            && quire_ooxml::reads_choice(
                                &attr(&e, b"Requires").unwrap_or_default(),
                            ));
                    if !taken && readable {
                        taken = true;
                        f(self, x)?;
                    } else {
                        x.skip()?;
                    }
                }
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }

    /// Block-level content until the end of the current element. `cell` receives the
    /// properties of a table cell when reading one.
    pub(crate) fn blocks<'a>(
        &mut self,
        x: &mut Xml<'a>,
        out: &mut Vec<Item>,
        mut cell: Option<&mut CellIr>,
    ) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        loop {
            match x.next()? {
                Ev::Start(e) => match name(&e) {
                    b"p" => {
                        let mut p = self.para(x)?;
                        // A drop cap is a paragraph of its own (a frame holding the first
                        // letter or word) that Word draws into the next one: the text is one
                        // paragraph ("D" + "rop cap." reads "Drop cap.").
                        if !p.drop_cap {
                            if let Some(Item::Para(cap)) =
                                out.pop_if(|i| matches!(i, Item::Para(c) if c.drop_cap))
                            {
                                p.inlines.splice(0..0, cap.inlines);
                                p.after.splice(0..0, cap.after);
                            }
                        }
                        out.push(Item::Para(p));
                        self.tick(x)?;
                    }
                    b"tbl" => {
                        let t = self.table(x)?;
                        out.push(Item::Table(t));
                        self.tick(x)?;
                    }
                    b"document" | b"body" | b"hdr" | b"ftr" | b"sdt" | b"sdtContent"
                    | b"customXml" | b"ins" | b"moveTo" | b"smartTag" | b"txbxContent" => {
                        self.blocks(x, out, None)?
                    }
                    b"AlternateContent" => self.alternate(x, |s, x| s.blocks(x, out, None))?,
                    b"tcPr" if cell.is_some() => {
                        if let Some(c) = cell.as_deref_mut() {
                            cell_props(x, c)?;
                        }
                    }
                    b"sectPr" => self.sect_pr(x)?,
                    b"altChunk" => {
                        let id = attr(&e, b"id");
                        x.skip()?;
                        self.alt_chunk(id, out)?
                    }
                    _ => x.skip()?,
                },
                Ev::Empty(e) if name(&e) == b"altChunk" => self.alt_chunk(attr(&e, b"id"), out)?,
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }

    /// `w:footnote` / `w:endnote` / `w:comment` bodies of a notes part, by id.
    pub(crate) fn notes<'a>(&mut self, x: &mut Xml<'a>, element: &[u8]) -> Result<NoteBodies> {
        let mut out = HashMap::new();
        loop {
            match x.next()? {
                Ev::Start(e) if name(&e) == element => {
                    let id = attr(&e, b"id").unwrap_or_default();
                    let author = attr(&e, b"author").filter(|a| !a.trim().is_empty());
                    let mut items = Vec::new();
                    self.blocks(x, &mut items, None)?;
                    out.insert(id, (items, author));
                }
                Ev::Eof => return Ok(out),
                _ => {}
            }
        }
    }

    /// An embedded document (`w:altChunk r:id`): its part converted through the host's hook
    /// ([`Context::convert_embedded`]) and its blocks put in its place. Without the hook the
    /// chunk is counted for the "left out" warning; a chunk the host could not convert is
    /// warned about on its own, with the reason. External targets are never fetched.
    fn alt_chunk(&mut self, id: Option<String>, out: &mut Vec<Item>) -> Result<()> {
        let rel = id.and_then(|id| self.rels.get(&id)).cloned();
        let Some(rel) = rel.filter(|r| !r.external) else {
            self.sh.alt_chunks += 1;
            return Ok(());
        };
        let Some(bytes) = self.sh.zip.read(&rel.target)? else {
            self.sh.alt_chunks += 1;
            return Ok(());
        };
        let data = crate::mht::html_of(&bytes).unwrap_or(bytes);
        match self.sh.ctx.convert_embedded(&data, Some(&rel.target)) {
            None => self.sh.alt_chunks += 1,
            Some(Ok(doc)) => {
                let blocks: Vec<Block> = doc.parts.into_iter().flat_map(|p| p.blocks).collect();
                if !blocks.is_empty() {
                    out.push(Item::Blocks(blocks));
                }
            }
            Some(Err(e)) if e.kind() == quire_plugin_api::ErrorKind::Timeout => return Err(e),
            Some(Err(e)) => self.sh.ctx.warn(format!(
                "The document embeds another document ({}) that could not be converted \
                 ({}); its content was left out.",
                rel.target.rsplit('/').next().unwrap_or(&rel.target),
                e.message().trim_end_matches('.')
            )),
        }
        Ok(())
    }

    /// The part (name and bytes) an OLE object's relationship names; `None` for a missing or
    /// external one.
    fn object_part(&mut self, id: &str) -> Result<Option<(String, Vec<u8>)>> {
        let Some(rel) = self.rels.get(id).filter(|r| !r.external).cloned() else {
            return Ok(None);
        };
        Ok(self
            .sh
            .zip
            .read(&rel.target)?
            .map(|bytes| (rel.target, bytes)))
    }

    fn sect_pr<'a>(&mut self, x: &mut Xml<'a>) -> Result<()> {
        loop {
            match x.next()? {
                Ev::Empty(e) if matches!(name(&e), b"headerReference" | b"footerReference") => {
                    let is_header = name(&e) == b"headerReference";
                    let Some(rel) = attr(&e, b"id").and_then(|id| self.rels.get(&id)) else {
                        continue;
                    };
                    if rel.external {
                        continue;
                    }
                    let list = if is_header {
                        &mut self.sh.headers
                    } else {
                        &mut self.sh.footers
                    };
                    if !list.contains(&rel.target) {
                        list.push(rel.target.clone());
                    }
                }
                Ev::Start(_) => x.skip()?,
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }
}

fn cell_props(x: &mut Xml<'_>, cell: &mut CellIr) -> Result<()> {
    loop {
        match x.next()? {
            Ev::Empty(e) => match name(&e) {
                b"gridSpan" => {
                    cell.span = attr(&e, b"val")
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(1)
                        .clamp(1, 1000)
                }
                b"vMerge" => {
                    cell.vmerge = match attr(&e, b"val").as_deref() {
                        Some("restart") => VMerge::Restart,
                        _ => VMerge::Continue,
                    }
                }
                _ => {}
            },
            Ev::Start(_) => x.skip()?,
            Ev::End | Ev::Eof => return Ok(()),
            _ => {}
        }
    }
}
