//! The RTF interpreter: a group stack of character/paragraph state driving a [`Flow`].
//!
//! Each `{` saves the state and `}` restores it; a destination (`\fonttbl`, `\pict`,
//! `\fldinst`, `\footnote`, …) says where the group's text goes. Text bytes are buffered and
//! decoded together with the code page of the current font (so double-byte code pages such
//! as Shift-JIS and GBK decode correctly across `\'hh` escapes), falling back to `\ansicpg`.
//! Unknown `\*\` destinations and tables of no interest are skipped wholesale by the lexer.
//! Group depth is capped: deeper groups share their parent's state instead of growing the stack.

use crate::builder::{Flow, ParaProps};
use crate::codepage::for_codepage;
use crate::lexer::{Lexer, Token};
use crate::pict::Pict;
use encoding_rs::Encoding;
use quire_plugin_api::{Block, Image, Inline, Metadata, Result, Style};
use std::collections::HashMap;

mod words;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InfoField {
    Title,
    Author,
    Subject,
    Keywords,
    Created,
    Modified,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Body,
    FontTable,
    Stylesheet,
    /// `\info` itself: only its sub-destinations carry text.
    Info,
    InfoText(InfoField),
    FieldInstruction,
    /// `\listtext` / `\pntext`: the list marker of the paragraph.
    Marker,
    Pict,
    /// `\sn` / `\sv` of a picture's `\picprop`: a shape property's name and value.
    ShapeName,
    ShapeValue,
}

/// RTF's default font size, 12 points in half-points.
const DEFAULT_SIZE: i32 = 24;

#[derive(Debug, Clone)]
struct State {
    dest: Dest,
    style: Style,
    /// `\ul` and its kinds: emphasis in Markdown, as in DOCX, except in a field's result
    /// (a hyperlink's underline is the link's look).
    underline: bool,
    hidden: bool,
    uc: u32,
    font: Option<i32>,
    para_style: i32,
    outline: Option<u8>,
    in_table: bool,
    list: i32,
    list_level: u8,
    /// `\li` / `\lin`: left indent in twips.
    indent: Option<i32>,
    /// `\fi`: first-line indent in twips (negative: a hanging indent).
    first_indent: i32,
    /// `\fs`: font size in half-points.
    size: i32,
    field: Option<usize>,
    footnote: Option<usize>,
}

impl Default for State {
    fn default() -> Self {
        State {
            dest: Dest::Body,
            style: Style::PLAIN,
            underline: false,
            hidden: false,
            uc: 1,
            font: None,
            para_style: 0,
            outline: None,
            in_table: false,
            list: 0,
            list_level: 0,
            indent: None,
            first_indent: 0,
            size: DEFAULT_SIZE,
            field: None,
            footnote: None,
        }
    }
}

#[derive(Debug, Default)]
struct Field {
    instruction: String,
    /// Where the result started: flow depth, inline mark, paragraph number.
    result: Option<(usize, usize, u64)>,
}

/// Metadata read from `\info`.
#[derive(Debug, Default)]
pub struct Info {
    pub metadata: Metadata,
    pub keywords: Option<String>,
}

/// What the interpreter produces.
pub struct Output {
    pub blocks: Vec<Block>,
    pub info: Info,
    pub images_skipped: usize,
}

/// Groups nested deeper than this share their parent's state.
const MAX_GROUP_DEPTH: usize = 1_000;
/// Tokens between deadline checks.
const CHECK_EVERY: u32 = 1 << 14;

pub struct Interp<'a, 'c> {
    lexer: Lexer<'a>,
    stack: Vec<State>,
    cur: State,
    overflow: usize,
    at_group_start: bool,
    star: bool,
    doc_cp: i32,
    default_font: Option<i32>,
    /// Font number → code page.
    fonts: HashMap<i32, i32>,
    pending_font: (Option<i32>, Option<i32>),
    /// Style number → heading level.
    styles: HashMap<i32, u8>,
    /// Style number → the style it is based on (`\sbasedon`), for styles that are not
    /// headings themselves nor say they are body text.
    based_on: HashMap<i32, i32>,
    pending_style: (i32, Option<u8>, String),
    pending_based_on: Option<i32>,
    bytes: Vec<u8>,
    skip_chars: u32,
    high_surrogate: bool,
    pending_high: u32,
    flows: Vec<Flow>,
    notes: Vec<Block>,
    fields: Vec<Field>,
    paragraphs: u64,
    pict: Option<Pict>,
    /// `\cellx` right edges of the table row defined last (`\trowd`).
    cell_edges: Vec<i32>,
    /// The picture property being read (`\sn`, `\sv`).
    shape_name: String,
    shape_value: String,
    images: usize,
    max_images: usize,
    images_skipped: usize,
    marker: String,
    info_text: String,
    date: [i32; 5],
    info: Info,
    check: &'c mut dyn FnMut() -> Result<()>,
}

impl<'a, 'c> Interp<'a, 'c> {
    pub fn new(
        input: &'a [u8],
        max_images: usize,
        check: &'c mut dyn FnMut() -> Result<()>,
    ) -> Self {
        Interp {
            lexer: Lexer::new(input),
            stack: Vec::new(),
            cur: State::default(),
            overflow: 0,
            at_group_start: false,
            star: false,
            doc_cp: 1252,
            default_font: None,
            fonts: HashMap::new(),
            pending_font: (None, None),
            styles: HashMap::new(),
            pending_style: (0, None, String::new()),
            based_on: HashMap::new(),
            pending_based_on: None,
            bytes: Vec::new(),
            skip_chars: 0,
            high_surrogate: false,
            pending_high: 0,
            flows: vec![Flow::default()],
            notes: Vec::new(),
            fields: Vec::new(),
            paragraphs: 0,
            pict: None,
            cell_edges: Vec::new(),
            shape_name: String::new(),
            shape_value: String::new(),
            images: 0,
            max_images,
            images_skipped: 0,
            marker: String::new(),
            info_text: String::new(),
            date: [0; 5],
            info: Info::default(),
            check,
        }
    }

    pub fn run(mut self) -> Result<Output> {
        let mut count = 0u32;
        while let Some(token) = self.lexer.next_token() {
            count = count.wrapping_add(1);
            if count.is_multiple_of(CHECK_EVERY) {
                (self.check)()?;
            }
            let group_start = matches!(token, Token::GroupStart);
            match token {
                Token::Text(t) => self.text(t),
                Token::Hex(b) => {
                    if self.skip_chars > 0 {
                        self.skip_chars -= 1;
                    } else if self.cur.dest == Dest::Pict {
                        // \'hh inside picture data is not expected; ignore it.
                    } else {
                        self.bytes.push(b);
                    }
                }
                Token::GroupStart => {
                    self.flush();
                    self.skip_chars = 0;
                    if self.stack.len() >= MAX_GROUP_DEPTH {
                        self.overflow += 1;
                    } else {
                        self.stack.push(self.cur.clone());
                    }
                }
                Token::GroupEnd => {
                    self.flush();
                    self.skip_chars = 0;
                    let outermost = self.stack.len() == 1 && self.overflow == 0;
                    self.group_end();
                    // The document ends with its outermost group. Bytes after it that hold no
                    // markup are junk a tool appended (readers ignore them); a stray `}` before
                    // more RTF is ignored as before.
                    if outermost && self.lexer.only_text_left() {
                        break;
                    }
                }
                Token::Symbol(c) => {
                    if self.skip_chars > 0 && c != b'*' {
                        self.skip_chars -= 1;
                        continue;
                    }
                    self.flush();
                    self.symbol(c);
                    if c == b'*' {
                        // `\*` keeps us "at group start" for the destination word after it.
                        continue;
                    }
                }
                Token::Word(w, p) => {
                    self.flush();
                    self.skip_chars = 0;
                    self.word(w, p);
                }
            }
            self.at_group_start = group_start;
            if !matches!(token, Token::Symbol(b'*')) {
                self.star = self.star && group_start;
            }
        }
        self.flush();
        self.resolve_surrogate();
        // Close groups left open by a truncated file so fields and footnotes finish.
        while !self.stack.is_empty() {
            self.group_end();
        }
        let mut flows = std::mem::take(&mut self.flows);
        let body = if flows.is_empty() {
            Flow::default()
        } else {
            flows.remove(0)
        };
        let mut blocks = body.finish();
        blocks.append(&mut self.notes);
        if let Some(k) = &self.info.keywords {
            self.info
                .metadata
                .extra
                .insert("keywords".into(), serde_json::Value::String(k.clone()));
        }
        Ok(Output {
            blocks,
            info: self.info,
            images_skipped: self.images_skipped,
        })
    }

    fn flow(&mut self) -> &mut Flow {
        if self.flows.is_empty() {
            self.flows.push(Flow::default());
        }
        let last = self.flows.len() - 1;
        &mut self.flows[last]
    }

    fn text(&mut self, mut t: &[u8]) {
        if self.skip_chars > 0 {
            let n = (self.skip_chars as usize).min(t.len());
            self.skip_chars -= n as u32;
            t = &t[n..];
        }
        if t.is_empty() {
            return;
        }
        match self.cur.dest {
            Dest::Pict => {
                if let Some(p) = self.pict.as_mut() {
                    p.hex(t);
                }
            }
            Dest::Info => {}
            _ => self.bytes.extend_from_slice(t),
        }
    }

    fn encoding(&self) -> &'static Encoding {
        let font = self.cur.font.or(self.default_font);
        let cp = font
            .and_then(|f| self.fonts.get(&f).copied())
            .unwrap_or(self.doc_cp);
        for_codepage(cp)
    }

    /// Decodes buffered text bytes with the current font's code page and emits them.
    fn flush(&mut self) {
        if self.bytes.is_empty() {
            return;
        }
        let bytes = std::mem::take(&mut self.bytes);
        if bytes.is_ascii() {
            // ASCII is the same in every code page RTF uses (Shift-JIS trail bytes never
            // stand alone, and a lone one would only ever come from a broken file).
            let s = std::str::from_utf8(&bytes).unwrap_or_default();
            self.emit(s);
        } else {
            let (s, _, _) = self.encoding().decode(&bytes);
            let s = s.into_owned();
            self.emit(&s);
        }
        let mut bytes = bytes;
        bytes.clear();
        self.bytes = bytes;
    }

    fn resolve_surrogate(&mut self) {
        if self.high_surrogate {
            self.high_surrogate = false;
            self.emit_raw("\u{FFFD}");
        }
    }

    fn emit(&mut self, s: &str) {
        self.resolve_surrogate();
        self.emit_raw(s);
    }

    fn emit_raw(&mut self, s: &str) {
        match self.cur.dest {
            Dest::Body => {
                if !self.cur.hidden {
                    let (mut style, size) = (self.cur.style, self.cur.size);
                    style.italic |= self.cur.underline && self.cur.field.is_none();
                    let flow = self.flow();
                    flow.look(s, size, style.bold);
                    flow.text(s, style);
                }
            }
            Dest::FontTable => {
                if s.contains(';') {
                    self.commit_font();
                }
            }
            Dest::Stylesheet => {
                self.pending_style.2.push_str(s);
                if s.contains(';') {
                    self.commit_style();
                }
            }
            Dest::InfoText(_) => self.info_text.push_str(s),
            Dest::FieldInstruction => {
                if let Some(f) = self.cur.field.and_then(|i| self.fields.get_mut(i)) {
                    if f.instruction.len() < 4096 {
                        f.instruction.push_str(s);
                    }
                }
            }
            Dest::Marker => self.marker.push_str(s),
            Dest::ShapeName => self.shape_name.push_str(s),
            Dest::ShapeValue if self.shape_value.len() < 4096 => self.shape_value.push_str(s),
            Dest::Info | Dest::Pict | Dest::ShapeValue => {}
        }
    }

    fn commit_font(&mut self) {
        if let (Some(num), charset) = self.pending_font {
            let cp = charset.unwrap_or(self.doc_cp);
            self.fonts.insert(num, cp);
        }
        self.pending_font = (None, None);
    }

    fn commit_style(&mut self) {
        let (num, outline, name) = std::mem::take(&mut self.pending_style);
        let based_on = self.pending_based_on.take();
        if num < 0 {
            return;
        }
        let name = name.trim_end_matches(';').trim().to_ascii_lowercase();
        let from_name = name
            .strip_prefix("heading")
            .and_then(|n| n.trim().parse::<u8>().ok())
            .or_else(|| (name == "title").then_some(1));
        match outline.map(|l| l + 1).or(from_name) {
            Some(level @ 1..=9) => {
                self.styles.insert(num, level.min(6));
            }
            Some(_) => {}
            // The table of contents' own heading is left out of the outline (Word gives
            // "TOC Heading" body level; LibreOffice's RTF of it keeps only the base).
            None if matches!(name.as_str(), "toc heading" | "contents heading") => {}
            None => {
                if let Some(base) = based_on.filter(|&b| b != num) {
                    self.based_on.insert(num, base);
                }
            }
        }
    }

    /// The heading level of a paragraph style, its own or that of a style it is based on
    /// (a "Report Heading 1" based on "heading 1" is a level-1 heading).
    fn style_heading(&self, mut style: i32) -> Option<u8> {
        for _ in 0..16 {
            if let Some(level) = self.styles.get(&style) {
                return Some(*level);
            }
            style = *self.based_on.get(&style)?;
        }
        None
    }

    fn group_end(&mut self) {
        if self.overflow > 0 {
            self.overflow -= 1;
            return;
        }
        let Some(parent) = self.stack.pop() else {
            return; // unbalanced `}`: ignore
        };
        let old = std::mem::replace(&mut self.cur, parent);
        if old.dest == Dest::ShapeValue && self.cur.dest != Dest::ShapeValue {
            // Word and LibreOffice keep a picture's alt text in `wzDescription`.
            let value = std::mem::take(&mut self.shape_value);
            if let (true, Some(p)) = (
                self.shape_name.trim() == "wzDescription",
                self.pict.as_mut(),
            ) {
                p.alt = Some(value.trim().to_owned()).filter(|v| !v.is_empty());
            }
        }
        if old.dest == Dest::Pict && self.cur.dest != Dest::Pict {
            if let Some(p) = self.pict.take() {
                self.images += 1;
                if let Some(image) = p.into_image(self.images) {
                    self.push_image(image);
                }
            }
        }
        if old.dest == Dest::FontTable && self.pending_font.0.is_some() {
            self.commit_font();
        }
        if old.dest == Dest::Stylesheet
            && self.cur.dest == Dest::Stylesheet
            && !self.pending_style.2.is_empty()
        {
            self.commit_style();
        }
        if old.dest == Dest::Marker && self.cur.dest != Dest::Marker {
            let marker = std::mem::take(&mut self.marker);
            self.flow().set_marker(marker);
        }
        if let Dest::InfoText(field) = old.dest {
            if self.cur.dest != old.dest {
                self.commit_info(field);
            }
        }
        if let Some(id) = old.field {
            if self.cur.field != Some(id) {
                self.finish_field(id);
            }
        }
        if let Some(id) = old.footnote {
            if self.cur.footnote != Some(id) && self.flows.len() > 1 {
                if let Some(flow) = self.flows.pop() {
                    let blocks = flow.finish();
                    let label = (self.notes.len() + 1).to_string();
                    if !blocks.is_empty() {
                        self.notes.push(Block::Note {
                            label: label.clone(),
                            blocks,
                        });
                        self.flow().inline(Inline::NoteRef(label));
                    }
                }
            }
        }
    }

    fn push_image(&mut self, image: Image) {
        if !self.cur.hidden {
            self.flow().image_block(image);
        }
    }

    fn commit_info(&mut self, field: InfoField) {
        let text = std::mem::take(&mut self.info_text).trim().to_owned();
        let date = std::mem::take(&mut self.date);
        let m = &mut self.info.metadata;
        let iso = || {
            let [y, mo, d, h, mi] = date;
            (y > 0 && (1..=12).contains(&mo) && (1..=31).contains(&d)).then(|| {
                format!(
                    "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:00",
                    h.clamp(0, 23),
                    mi.clamp(0, 59)
                )
            })
        };
        match field {
            InfoField::Title if !text.is_empty() => m.title = Some(text),
            InfoField::Author if !text.is_empty() => m.author = Some(text),
            InfoField::Subject if !text.is_empty() => m.subject = Some(text),
            InfoField::Keywords if !text.is_empty() => self.info.keywords = Some(text),
            InfoField::Created => m.created = iso(),
            InfoField::Modified => m.modified = iso(),
            _ => {}
        }
    }

    fn finish_field(&mut self, id: usize) {
        let Some(field) = self.fields.get_mut(id) else {
            return;
        };
        let Some((depth, mark, paragraph)) = field.result.take() else {
            return;
        };
        let Some(href) = hyperlink_target(&field.instruction) else {
            return;
        };
        if depth == self.flows.len() && paragraph == self.paragraphs {
            self.flow().wrap_link(mark, href);
        }
    }

    fn para_props(&self) -> ParaProps {
        let heading = match self.cur.outline {
            Some(l) if l <= 8 => Some((l + 1).min(6)),
            Some(_) => None,
            None => self.style_heading(self.cur.para_style),
        };
        ParaProps {
            heading,
            in_table: self.cur.in_table,
            list: self.cur.list,
            list_level: self.cur.list_level,
            indent: self.cur.indent,
            first_indent: self.cur.first_indent,
            styled: self.cur.para_style != 0,
        }
    }

    fn skip_group(&mut self) {
        self.lexer.skip_group();
        if self.overflow > 0 {
            self.overflow -= 1;
        } else if let Some(parent) = self.stack.pop() {
            self.cur = parent;
        }
    }

    fn symbol(&mut self, c: u8) {
        match c {
            b'*' => self.star = self.at_group_start,
            b'\\' | b'{' | b'}' => self.emit(std::str::from_utf8(&[c]).unwrap_or_default()),
            b'~' => self.emit("\u{a0}"),
            b'_' => self.emit("-"),
            _ => {} // \- optional hyphen, \: index subentry, \| formula
        }
    }

    fn unicode(&mut self, p: i32) {
        let v = if p < 0 { p + 65536 } else { p } as u32;
        match v {
            0xD800..=0xDBFF => {
                self.resolve_surrogate();
                self.high_surrogate = true;
                self.pending_high = v;
            }
            0xDC00..=0xDFFF => {
                if self.high_surrogate {
                    self.high_surrogate = false;
                    let c = char::from_u32(
                        0x10000 + ((self.pending_high - 0xD800) << 10) + (v - 0xDC00),
                    );
                    let mut buf = [0u8; 4];
                    let s = c.unwrap_or('\u{FFFD}').encode_utf8(&mut buf);
                    self.emit_raw(s);
                } else {
                    self.emit("\u{FFFD}");
                }
            }
            _ => {
                if v == 0xFEFF {
                    // A zero-width no-break space (BOM) carries nothing for a reader.
                    self.skip_chars = self.cur.uc;
                    return;
                }
                let c = char::from_u32(v)
                    .filter(|&c| c != '\0')
                    .unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                let s = c.encode_utf8(&mut buf);
                // A \u inside a font-table name and the like still reaches the right place.
                let s = s.to_owned();
                self.emit(&s);
            }
        }
        self.skip_chars = self.cur.uc;
    }
}

/// The target of a `HYPERLINK "url"` (or `HYPERLINK \l "anchor"`) field instruction.
fn hyperlink_target(instruction: &str) -> Option<String> {
    let rest = instruction.trim_start().strip_prefix("HYPERLINK")?.trim();
    let anchor = rest.starts_with("\\l");
    let quoted = rest
        .split('"')
        .nth(1)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let target = match quoted {
        Some(q) => q.to_owned(),
        None => rest
            .split_whitespace()
            .find(|w| !w.starts_with('\\'))?
            .to_owned(),
    };
    Some(if anchor { format!("#{target}") } else { target })
}

#[cfg(test)]
mod tests {
    use super::hyperlink_target;

    #[test]
    fn hyperlink_instructions() {
        assert_eq!(
            hyperlink_target(" HYPERLINK \"http://x.org\" ").as_deref(),
            Some("http://x.org")
        );
        assert_eq!(
            hyperlink_target("HYPERLINK \\l \"_Toc1\"").as_deref(),
            Some("#_Toc1")
        );
        assert_eq!(
            hyperlink_target("HYPERLINK http://y"),
            Some("http://y".into())
        );
        assert_eq!(hyperlink_target("SEQ Figure"), None);
    }
}
