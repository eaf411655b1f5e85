//! A page's content stream read for text and marks: every glyph with its Unicode text,
//! position, box and font, and the paths and images `images::collect` looks at.
//!
//! What PDFium's text page gives is reproduced where the layout depends on it: loose boxes
//! (origin to advance across, the font's descent to ascent scaled by the matrix's `a`),
//! the spaces it generates for gaps (half a space inside a `TJ`, a quarter of the wider
//! character between text objects) and a break at each new line. Anything this reader does
//! not follow makes it give up on the page ([`Fail`]): rotated or mirrored text, inline
//! images, unknown operators, fonts [`super::fonts`] refuses, codes without text.

use super::fonts::{Font, Fonts};
use super::object::{Dict, Doc, Lexer, Obj, Stream, Tok};
use crate::geom::{PageTransform, Rect};
use crate::glyphs::{Glyph, GlyphText};
use std::rc::Rc;

/// The page cannot be read here: PDFium reads it.
#[derive(Debug)]
pub struct Fail(pub u32);

type R<T> = Result<T, Fail>;

/// An image drawn on the page: its box in display space and its stream.
pub struct ImageUse {
    pub rect: Rect,
    pub stream: Rc<Stream>,
    pub width: i64,
    pub height: i64,
}

/// What a page draws, read from its content.
#[derive(Default)]
pub struct PageContent {
    pub glyphs: Vec<Glyph>,
    /// (font name, character) of each glyph, for the Unicode-map check.
    pub checked: Vec<(Rc<Font>, char)>,
    pub rules: Vec<Rect>,
    pub marks: Vec<Rect>,
    /// Images that are content (not marks), in drawing order.
    pub images: Vec<ImageUse>,
    /// Small images that are marks.
    pub image_marks: Vec<Rect>,
    /// Summed display area of all images.
    pub covered: f32,
    pub has_graphics: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct M([f64; 6]);

impl M {
    const ID: M = M([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    /// self × other (apply self first).
    fn then(&self, o: &M) -> M {
        let [a, b, c, d, e, f] = self.0;
        let [a2, b2, c2, d2, e2, f2] = o.0;
        M([
            a * a2 + b * c2,
            a * b2 + b * d2,
            c * a2 + d * c2,
            c * b2 + d * d2,
            e * a2 + f * c2 + e2,
            e * b2 + f * d2 + f2,
        ])
    }
    fn apply(&self, x: f64, y: f64) -> (f64, f64) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }
}

#[derive(Clone)]
struct GState {
    ctm: M,
    tc: f64,
    tw: f64,
    th: f64,
    tl: f64,
    tfs: f64,
    rise: f64,
    font: Option<Rc<Font>>,
    lw: f64,
}

/// The last glyph shown, for PDFium's generated spaces.
struct Last {
    space: bool,
}

/// A text object (one showing operator) as PDFium's text page compares it with the next:
/// position, scale, and its first and last characters (widths in text space units).
#[derive(Clone, Copy)]
struct ObjInfo {
    x: f64,
    y: f64,
    a: f64,
    d: f64,
    tfs: f64,
    /// Glyphs in the object.
    items: usize,
    /// Width (1/1000 em) of the first and last character.
    first_w: f64,
    last_w: f64,
    /// Origin of the last character from the object's, in text space.
    last_x: f64,
    last_space: bool,
    /// Vertical extent in user space.
    bottom: f64,
    top: f64,
}

/// A glyph of the current line, for PDFium's dropping of a character drawn again at its
/// own place.
struct Recent {
    code: u32,
    font: *const Font,
    x: f64,
    y: f64,
}

/// Deepest nesting of form XObjects followed.
const MAX_FORM_DEPTH: u32 = 12;
/// Most operators one page may run (forms included).
const MAX_OPS: usize = 4_000_000;
/// Path segments over which a path is a drawing, not a grid (as in `images`).
const MAX_PATH_SEGMENTS: usize = 400;

pub struct Interp<'d, 'a> {
    doc: &'d Doc<'a>,
    fonts: &'d mut Fonts,
    transform: PageTransform,
    pub out: PageContent,
    gs: GState,
    stack: Vec<GState>,
    tm: M,
    tlm: M,
    ops: usize,
    last: Option<Last>,
    prev_obj: Option<ObjInfo>,
    cur_obj: Option<ObjInfo>,
    recent: Vec<Recent>,
    pending_space: bool,
    /// Path under construction, user space: segments (kind, point).
    path: Vec<(u8, (f64, f64))>,
    /// Open marked-content sequences: whether each carries an `/ActualText`.
    marked: Vec<bool>,
    /// The open `/ActualText` replacement: its text (`None` when it has no printable
    /// character: the span shows nothing) and how many glyphs it has covered.
    actual: Option<(Option<String>, u32)>,
}

impl<'d, 'a> Interp<'d, 'a> {
    pub fn new(doc: &'d Doc<'a>, fonts: &'d mut Fonts, transform: PageTransform) -> Self {
        Interp {
            doc,
            fonts,
            transform,
            out: PageContent::default(),
            gs: GState {
                ctm: M::ID,
                tc: 0.0,
                tw: 0.0,
                th: 1.0,
                tl: 0.0,
                tfs: 0.0,
                rise: 0.0,
                font: None,
                lw: 1.0,
            },
            stack: Vec::new(),
            tm: M::ID,
            tlm: M::ID,
            ops: 0,
            last: None,
            prev_obj: None,
            cur_obj: None,
            recent: Vec::new(),
            pending_space: false,
            path: Vec::new(),
            marked: Vec::new(),
            actual: None,
        }
    }

    pub fn run(&mut self, content: &[u8], resources: Option<&Dict>, depth: u32) -> R<()> {
        let mut lx = Lexer::new(content, 0);
        let mut operands: Vec<Obj> = Vec::with_capacity(8);
        let base_depth = self.stack.len();
        while let Some(tok) = lx.next_tok() {
            let op = match tok {
                Tok::Word(w) => w,
                Tok::Int(i) => {
                    operands.push(Obj::Int(i));
                    continue;
                }
                Tok::Real(r) => {
                    operands.push(Obj::Real(r));
                    continue;
                }
                other => {
                    let o = super::object::token_object(&mut lx, other, 0).ok_or(Fail(line!()))?;
                    operands.push(o);
                    continue;
                }
            };
            self.ops += 1;
            if self.ops > MAX_OPS || operands.len() > 64 {
                return Err(Fail(line!()));
            }
            self.op(op, &operands, resources, depth)?;
            operands.clear();
        }
        // Unbalanced q inside a stream is closed at its end.
        if self.stack.len() > base_depth {
            self.gs = self.stack[base_depth].clone();
            self.stack.truncate(base_depth);
        }
        Ok(())
    }

    fn op(&mut self, op: &[u8], a: &[Obj], res: Option<&Dict>, depth: u32) -> R<()> {
        let n = |i: usize| -> R<f64> { a.get(i).and_then(Obj::as_f64).ok_or(Fail(line!())) };
        match op {
            b"q" => {
                if self.stack.len() > 256 {
                    return Err(Fail(line!()));
                }
                self.stack.push(self.gs.clone());
            }
            b"Q" => {
                if let Some(g) = self.stack.pop() {
                    self.gs = g;
                }
            }
            b"cm" => {
                let m = M([n(0)?, n(1)?, n(2)?, n(3)?, n(4)?, n(5)?]);
                self.gs.ctm = m.then(&self.gs.ctm);
            }
            b"w" => self.gs.lw = n(0)?,
            b"BT" => {
                self.tm = M::ID;
                self.tlm = M::ID;
            }
            b"ET" => {}
            b"Tc" => self.gs.tc = n(0)?,
            b"Tw" => self.gs.tw = n(0)?,
            b"Tz" => self.gs.th = n(0)? / 100.0,
            b"TL" => self.gs.tl = n(0)?,
            b"Ts" => self.gs.rise = n(0)?,
            b"Tr" => {}
            b"Tf" => {
                let name = a.first().and_then(Obj::as_name).ok_or(Fail(line!()))?;
                self.gs.tfs = n(1)?;
                let fonts = res
                    .and_then(|r| self.doc.get_in(r, b"Font"))
                    .ok_or(Fail(line!()))?;
                let entry = fonts
                    .as_dict()
                    .and_then(|d| d.get(name))
                    .ok_or(Fail(line!()))?
                    .clone();
                self.gs.font = Some(self.fonts.get(self.doc, &entry).ok_or(Fail(line!()))?);
            }
            b"Td" => self.td(n(0)?, n(1)?),
            b"TD" => {
                self.gs.tl = -n(1)?;
                self.td(n(0)?, n(1)?);
            }
            b"Tm" => {
                self.tm = M([n(0)?, n(1)?, n(2)?, n(3)?, n(4)?, n(5)?]);
                self.tlm = self.tm;
            }
            b"T*" => self.td(0.0, -self.gs.tl),
            b"Tj" => {
                let s = a.first().and_then(Obj::as_str).ok_or(Fail(line!()))?;
                self.show(&[Obj::Str(Rc::from(s))])?;
            }
            b"'" => {
                self.td(0.0, -self.gs.tl);
                let s = a.first().and_then(Obj::as_str).ok_or(Fail(line!()))?;
                self.show(&[Obj::Str(Rc::from(s))])?;
            }
            b"\"" => {
                self.gs.tw = n(0)?;
                self.gs.tc = n(1)?;
                self.td(0.0, -self.gs.tl);
                let s = a.get(2).and_then(Obj::as_str).ok_or(Fail(line!()))?;
                self.show(&[Obj::Str(Rc::from(s))])?;
            }
            b"TJ" => {
                let arr = a.first().and_then(Obj::as_array).ok_or(Fail(line!()))?;
                self.show(arr)?;
            }
            // Paths.
            b"m" => self.path.push((b'm', self.user(n(0)?, n(1)?))),
            b"l" => self.path.push((b'l', self.user(n(0)?, n(1)?))),
            b"c" => {
                self.path.push((b'c', self.user(n(0)?, n(1)?)));
                self.path.push((b'c', self.user(n(2)?, n(3)?)));
                self.path.push((b'c', self.user(n(4)?, n(5)?)));
            }
            b"v" | b"y" => {
                self.path.push((b'c', self.user(n(0)?, n(1)?)));
                self.path.push((b'c', self.user(n(2)?, n(3)?)));
            }
            b"h" => self.path.push((b'h', (0.0, 0.0))),
            b"re" => {
                let (x, y, w, h) = (n(0)?, n(1)?, n(2)?, n(3)?);
                self.path.push((b'm', self.user(x, y)));
                self.path.push((b'l', self.user(x + w, y)));
                self.path.push((b'l', self.user(x + w, y + h)));
                self.path.push((b'l', self.user(x, y + h)));
                self.path.push((b'h', (0.0, 0.0)));
            }
            b"S" | b"s" => self.paint(true, op == b"s"),
            b"f" | b"F" | b"f*" => self.paint(false, false),
            b"B" | b"B*" => self.paint(true, false),
            b"b" | b"b*" => self.paint(true, true),
            b"n" => self.path.clear(),
            b"W" | b"W*" => {}
            b"sh" => self.out.has_graphics = true,
            b"gs" => {
                // A graphics state that sets the font changes the text: PDFium reads it.
                let name = a.first().and_then(Obj::as_name).ok_or(Fail(line!()))?;
                let states = res.and_then(|r| self.doc.get_in(r, b"ExtGState"));
                let state = states
                    .as_ref()
                    .and_then(Obj::as_dict)
                    .and_then(|d| d.get(name))
                    .and_then(|o| self.doc.resolve(o));
                if let Some(d) = state.as_ref().and_then(Obj::as_dict) {
                    if d.get(b"Font").is_some() {
                        return Err(Fail(line!()));
                    }
                    if let Some(lw) = d
                        .get(b"LW")
                        .and_then(|o| self.doc.resolve(o))
                        .and_then(|o| o.as_f64())
                    {
                        self.gs.lw = lw;
                    }
                }
            }
            b"Do" => {
                let name = a.first().and_then(Obj::as_name).ok_or(Fail(line!()))?;
                self.xobject(name, res, depth)?;
            }
            b"BI" => return Err(Fail(line!())),
            b"BDC" | b"DP" => {
                // Marked content with /ActualText replaces its glyphs in PDFium's text. One
                // glyph replaced (a ligature, as Chromium writes them: `/Span <</ActualText
                // (ff)>> BDC <07AE> Tj EMC`) is read here; anything more goes to PDFium.
                let props = match a.get(1) {
                    Some(Obj::Name(p)) => res
                        .and_then(|r| self.doc.get_in(r, b"Properties"))
                        .and_then(|ps| ps.as_dict().and_then(|d| d.get(p)).cloned())
                        .and_then(|o| self.doc.resolve(&o)),
                    Some(o) => Some(o.clone()),
                    None => None,
                };
                let actual = props
                    .as_ref()
                    .and_then(Obj::as_dict)
                    .and_then(|d| d.get(b"ActualText"))
                    .map(|t| self.doc.resolve(t));
                let carries = actual.is_some();
                if let Some(text) = actual {
                    if op == b"DP" || self.actual.is_some() {
                        return Err(Fail(line!()));
                    }
                    let text = text
                        .as_ref()
                        .and_then(Obj::as_str)
                        .and_then(text_string)
                        .ok_or(Fail(line!()))?;
                    // PDFium reads a span whose text is empty as if it had none, and shows
                    // nothing for one without a printable character.
                    if !text.is_empty() {
                        let printable = text.chars().any(|c| {
                            (c as u32 > 0x80 && (c as u32) < 0xFFFD)
                                || (c.is_ascii() && !c.is_ascii_control())
                        });
                        self.actual = Some((printable.then_some(text), 0));
                    }
                }
                if op == b"BDC" {
                    self.marked.push(carries && self.actual.is_some());
                }
            }
            b"BMC" => self.marked.push(false),
            b"EMC" => {
                if self.marked.pop() == Some(true) {
                    self.actual = None;
                }
            }
            b"MP" | b"BX" | b"EX" | b"J" | b"j" | b"M" | b"d" | b"ri" | b"i" | b"CS" | b"cs"
            | b"SC" | b"SCN" | b"sc" | b"scn" | b"G" | b"g" | b"RG" | b"rg" | b"K" | b"k"
            | b"d0" | b"d1" => {}
            _ => return Err(Fail(line!())),
        }
        Ok(())
    }

    fn td(&mut self, tx: f64, ty: f64) {
        self.tlm = M([1.0, 0.0, 0.0, 1.0, tx, ty]).then(&self.tlm);
        self.tm = self.tlm;
    }

    fn user(&self, x: f64, y: f64) -> (f64, f64) {
        self.gs.ctm.apply(x, y)
    }

    fn display(&self, x: f64, y: f64) -> (f32, f32) {
        self.transform.point(x as f32, y as f32)
    }

    /// The text matrix when it is upright: rotated, skewed or mirrored text goes through
    /// PDFium.
    fn upright_text_matrix(&self) -> R<M> {
        let m = self.text_matrix();
        let [a, b, c, d, _, _] = m.0;
        if b.abs() > 1e-6 * a.abs()
            || c.abs() > 1e-6 * d.abs()
            || a.is_nan()
            || d.is_nan()
            || a <= 0.0
            || d <= 0.0
        {
            return Err(Fail(line!()));
        }
        Ok(m)
    }

    /// A glyph's writing direction (quarter turns in display space) and its effective size
    /// (`vertical_scale`, the font size times the matrix's vertical scale, or the box's height
    /// where that is degenerate); a box that is not finite fails the page.
    fn glyph_frame(&self, rect: &Rect, vertical_scale: f64) -> R<(u8, f32)> {
        if !(rect.x0.is_finite()
            && rect.y0.is_finite()
            && rect.x1.is_finite()
            && rect.y1.is_finite())
        {
            return Err(Fail(line!()));
        }
        let dd = (-90.0 * f32::from(self.transform.quarter_turns)).rem_euclid(360.0);
        let dir = (((dd + 45.0) / 90.0).floor() as u8) % 4;
        let mut size = vertical_scale.abs() as f32;
        if !size.is_finite() || size <= 0.1 {
            size = rect.height().max(1.0);
        }
        Ok((dir, size))
    }

    /// A text-showing operator: glyphs of its strings, moved by its numbers.
    fn show(&mut self, items: &[Obj]) -> R<()> {
        let font = self.gs.font.clone().ok_or(Fail(line!()))?;
        let (tfs, th, tc, tw) = (self.gs.tfs, self.gs.th, self.gs.tc, self.gs.tw);
        if tfs.is_nan() || th.is_nan() || tfs <= 0.0 || th <= 0.0 {
            return Err(Fail(line!()));
        }
        // PDFium subtracts a base spacing it works out from Tc: not followed here.
        if tc.abs() > 0.001 {
            return Err(Fail(line!()));
        }
        let mut first_in_object = true;
        // Kerning seen since the last glyph of this object (user units, PDFium's "spacing").
        let mut kerning: Option<f64> = None;
        for item in items {
            match item {
                Obj::Int(_) | Obj::Real(_) if font.vertical.is_some() => {
                    let ty = -item.as_f64().unwrap_or(0.0) / 1000.0 * tfs;
                    self.tm = M([1.0, 0.0, 0.0, 1.0, 0.0, ty]).then(&self.tm);
                }
                Obj::Int(_) | Obj::Real(_) => {
                    let k = item.as_f64().unwrap_or(0.0);
                    let tx = -k / 1000.0 * tfs * th;
                    self.tm = M([1.0, 0.0, 0.0, 1.0, tx, 0.0]).then(&self.tm);
                    if !first_in_object {
                        let m = self.text_matrix();
                        // PDFium: -fontsize_h * kerning / 1000 (the last number counts).
                        let size_h = (m.0[0].hypot(m.0[2])) * tfs;
                        kerning = Some(-size_h * k / 1000.0);
                    }
                }
                Obj::Str(s) => {
                    let mut rest: &[u8] = s;
                    while !rest.is_empty() {
                        let (code, len) = font.next_code(rest).ok_or(Fail(line!()))?;
                        rest = &rest[len..];
                        let (text, w0) = font.code_text(code, len).ok_or(Fail(line!()))?;
                        let w0 = f64::from(w0);
                        let word_space = if len == 1 && code == 32 { tw } else { 0.0 };
                        if let Some((vy, w1)) = font.vertical {
                            self.vertical_glyph(&font, &text, w0, f64::from(vy), first_in_object)?;
                            first_in_object = false;
                            let ty = f64::from(w1) / 1000.0 * tfs + tc + word_space;
                            self.tm = M([1.0, 0.0, 0.0, 1.0, 0.0, ty]).then(&self.tm);
                            continue;
                        }
                        self.glyph(&font, code, &text, w0, first_in_object, kerning.take())?;
                        first_in_object = false;
                        let tx = (w0 / 1000.0 * tfs + tc + word_space) * th;
                        self.tm = M([1.0, 0.0, 0.0, 1.0, tx, 0.0]).then(&self.tm);
                    }
                }
                _ => return Err(Fail(line!())),
            }
        }
        if let Some(o) = self.cur_obj.take() {
            self.prev_obj = Some(o);
        }
        Ok(())
    }

    /// Text space to user space for the current glyph, horizontal scale applied.
    fn text_matrix(&self) -> M {
        let th = self.gs.th;
        let t = self.tm.0;
        M([t[0] * th, t[1] * th, t[2], t[3], t[4], t[5]]).then(&self.gs.ctm)
    }

    #[allow(clippy::too_many_arguments)]
    fn glyph(
        &mut self,
        font: &Rc<Font>,
        code: u32,
        text: &str,
        w0: f64,
        first_in_object: bool,
        kerning: Option<f64>,
    ) -> R<()> {
        let replaced;
        let text = match self.actual.as_mut() {
            None => text,
            Some((replacement, shown)) => {
                *shown += 1;
                if *shown > 1 {
                    return Err(Fail(line!()));
                }
                match replacement {
                    Some(t) => {
                        replaced = t.clone();
                        replaced.as_str()
                    }
                    None => return Ok(()),
                }
            }
        };
        let m = self.upright_text_matrix()?;
        let [a, _, c, d, _, _] = m.0;
        let tfs = self.gs.tfs;
        let (ox, oy) = m.apply(0.0, self.gs.rise);
        let width_user = a * w0 / 1000.0 * tfs;
        let scale = a * tfs / 1000.0;
        let bottom = oy + f64::from(font.descent) * scale;
        let top = oy + f64::from(font.ascent) * scale;
        // PDFium's generated spaces and line breaks (`CPDF_TextPage`).
        let size_h = a.hypot(c) * tfs;
        let first_char = text.chars().next().unwrap_or(' ');
        let is_space = text == " " || text == "\u{a0}";
        if first_in_object {
            if let Some(prev) = self.prev_obj {
                self.between_objects(&prev, ox, oy, a, w0, bottom, top, first_char)?;
            }
            self.cur_obj = Some(ObjInfo {
                x: ox,
                y: oy,
                a,
                d,
                tfs,
                items: 0,
                first_w: w0,
                last_w: w0,
                last_x: 0.0,
                last_space: is_space,
                bottom,
                top,
            });
        } else if let (Some(k), Some(last)) = (kerning, &self.last) {
            if !last.space && k != 0.0 {
                let threshold = match font.space_width() {
                    Some(sw) if size_h * sw / 1000.0 <= size_h / 3.0 => size_h * sw / 2000.0,
                    _ => size_h * normalize(w0.abs(), 300.0, 500.0, 700.0) / 1000.0,
                };
                if threshold > 0.0 && k >= threshold {
                    self.pending_space = true;
                }
            }
        }
        if let Some(o) = self.cur_obj.as_mut() {
            o.items += 1;
            o.last_w = w0;
            o.last_x = (ox - o.x) / o.a;
            o.last_space = is_space;
        }
        self.last = Some(Last { space: is_space });
        // A character drawn again at (about) its own place in the same line: PDFium keeps one.
        let near = 0.07 * tfs * a;
        let font_ptr = Rc::as_ptr(font);
        if self.recent.iter().rev().take(7).any(|r| {
            r.code == code
                && r.font == font_ptr
                && (r.x - ox).abs() < near
                && (r.y - oy).abs() < near
        }) {
            return Ok(());
        }
        self.recent.push(Recent {
            code,
            font: font_ptr,
            x: ox,
            y: oy,
        });
        let rect = self.transform.rect(
            ox as f32,
            bottom as f32,
            (ox + width_user) as f32,
            top as f32,
        );
        let (origin_x, baseline) = self.display(ox, oy);
        let (dir, size) = self.glyph_frame(&rect, tfs * d)?;
        let (bold, italic) = font.style;
        for ch in text.chars() {
            if ch == ' '
                || ch == '\u{a0}'
                || ch == '\u{3000}'
                || ch == '\t'
                || ch == '\r'
                || ch == '\n'
            {
                // PDFium reports no space before a page's first character.
                self.pending_space = !self.out.glyphs.is_empty();
                continue;
            }
            // PDFium's text page splits the Latin ligatures into their letters.
            let pieces: &[char] = match ch {
                '\u{fb00}' => &['f', 'f'],
                '\u{fb01}' => &['f', 'i'],
                '\u{fb02}' => &['f', 'l'],
                '\u{fb03}' => &['f', 'f', 'i'],
                '\u{fb04}' => &['f', 'f', 'l'],
                '\u{fb05}' => &['\u{17f}', 't'],
                '\u{fb06}' => &['s', 't'],
                _ => &[ch],
            };
            for &p in pieces {
                let t = if p == '\u{2}' || p == '\u{ad}' {
                    GlyphText::Char('\u{ad}')
                } else {
                    GlyphText::Char(p)
                };
                self.out.checked.push((font.clone(), p));
                self.out.glyphs.push(Glyph {
                    text: t,
                    rect,
                    baseline,
                    size,
                    bold,
                    italic,
                    space_before: std::mem::take(&mut self.pending_space)
                        && !self.out.glyphs.is_empty(),
                    rtl: false,
                    dir,
                    origin_x,
                });
            }
        }
        Ok(())
    }

    /// A glyph of a font written vertically: its horizontal origin is the position vector
    /// `(w0 / 2, vy)` left of and below the pen, as PDFium places it. A text object's
    /// glyphs follow each other without spaces (as PDFium reads them when it has the font),
    /// a space before its first; the text objects around it are compared as if it were not
    /// there (PDFium without a font for it shows nothing).
    fn vertical_glyph(
        &mut self,
        font: &Rc<Font>,
        text: &str,
        w0: f64,
        vy: f64,
        first_in_object: bool,
    ) -> R<()> {
        if self.actual.is_some() {
            return Err(Fail(line!()));
        }
        let m = self.upright_text_matrix()?;
        let [a, _, _, d, _, _] = m.0;
        let tfs = self.gs.tfs;
        let (ox, oy) = m.apply(-w0 / 2000.0 * tfs, self.gs.rise - vy / 1000.0 * tfs);
        let scale = a * tfs / 1000.0;
        let rect = self.transform.rect(
            ox as f32,
            (oy + f64::from(font.descent) * scale) as f32,
            (ox + a * w0 / 1000.0 * tfs) as f32,
            (oy + f64::from(font.ascent) * scale) as f32,
        );
        let (origin_x, baseline) = self.display(ox, oy);
        let (dir, size) = self.glyph_frame(&rect, tfs * d)?;
        let (bold, italic) = font.style;
        let mut space = first_in_object && !self.out.glyphs.is_empty();
        for ch in text.chars() {
            if ch.is_whitespace() {
                continue;
            }
            self.out.checked.push((font.clone(), ch));
            self.out.glyphs.push(Glyph {
                text: GlyphText::Char(ch),
                rect,
                baseline,
                size,
                bold,
                italic,
                space_before: std::mem::take(&mut space),
                rtl: false,
                dir,
                origin_x,
            });
        }
        Ok(())
    }

    /// What PDFium's text page puts between the previous text object and this one: a line
    /// break, a space, nothing, or a soft hyphen in place of a hyphen ending the line. A text
    /// object that PDFium would move before the previous one on their line (it orders a
    /// line's objects by position) makes the page go to PDFium.
    #[allow(clippy::too_many_arguments)]
    fn between_objects(
        &mut self,
        prev: &ObjInfo,
        ox: f64,
        oy: f64,
        a: f64,
        w0: f64,
        bottom: f64,
        top: f64,
        first_char: char,
    ) -> R<()> {
        if prev.last_w <= 0.0 || w0 <= 0.0 || prev.first_w <= 0.0 {
            return Err(Fail(line!()));
        }
        let this_w = w0 * self.gs.tfs / 1000.0;
        let last_width = prev.last_w * prev.tfs / 1000.0;
        // Same line, and order, on the page as drawn: PDFium orders a line's objects in the
        // turned frame of a page with /Rotate, which reads upside-down pages backwards and
        // scrambles their spaces ("mun" for "num"); the page's own frame is read here, so a
        // turned page reads as it would upright.
        let t_user = (last_width * prev.a).max(this_w * a) / 4.0;
        let unturned = crate::geom::PageTransform {
            quarter_turns: 0,
            ..self.transform
        };
        let (px, py) = unturned.point(prev.x as f32, prev.y as f32);
        let (tx, ty) = unturned.point(ox as f32, oy as f32);
        if (ty - py).abs() as f64 <= 2.0 * t_user && tx < px {
            return Err(Fail(line!()));
        }
        let pos = ((ox - prev.x) / prev.a, (oy - prev.y) / prev.d);
        let mut threshold = last_width.max(this_w) / 4.0;
        if last_width < this_w {
            threshold *= (1.0 / prev.a).hypot(1.0 / prev.d) / std::f64::consts::SQRT_2;
        }
        let end_line = (top - bottom) > 4.5
            && (prev.top - prev.bottom) > 4.5
            && top.min(prev.top) <= bottom.max(prev.bottom);
        let mut newline = end_line
            || ((pos.1 > threshold * 2.0 || pos.1 < threshold * -3.0)
                && (pos.1.abs() >= 1.0 || pos.1.abs() > pos.0.abs()));
        if newline
            && !end_line
            && prev.items > 1
            && prev.last_x > 0.0
            && self.transform.quarter_turns == 0
        {
            let inside = |x: f64, y: f64, lo: f64, hi: f64| {
                (0.0..=1000.0).contains(&x) && y >= lo && y <= hi
            };
            if inside(ox, oy, prev.bottom, prev.top) || inside(prev.x, prev.y, bottom, top) {
                newline = false;
            }
        }
        if newline {
            // A hyphen ending a line between letters is PDFium's soft hyphen (U+0002), with
            // no break after it; spaces after the hyphen do not count.
            let n = self.out.glyphs.len();
            let letter = |t: &GlyphText| matches!(t, GlyphText::Char(c) if c.is_alphabetic());
            let hyphen = n >= 2
                && self.out.glyphs[n - 1].text == GlyphText::Char('-')
                && !self.out.glyphs[n - 1].space_before
                && letter(&self.out.glyphs[n - 2].text)
                && first_char.is_alphanumeric();
            if hyphen {
                self.out.glyphs[n - 1].text = GlyphText::Char('\u{ad}');
                self.pending_space = false;
            } else {
                self.pending_space = true;
            }
            self.recent.clear();
            return Ok(());
        }
        if first_char == ' ' || prev.last_space {
            return Ok(());
        }
        let wider = prev.last_w.max(w0);
        let mut threshold2 = normalize(wider, 400.0, 700.0, 800.0);
        threshold2 *= if prev.last_w >= w0 {
            prev.tfs
        } else {
            self.gs.tfs
        };
        threshold2 /= 1000.0;
        if (threshold2 < 1.4881 && threshold2 > 1.4879)
            || (threshold2 < 1.39001 && threshold2 > 1.38999)
        {
            threshold2 *= 1.5;
        }
        let last_pos = prev.last_x;
        let space = if (last_pos + last_width - pos.0).abs() <= threshold2 {
            false
        } else {
            let threshold_pos = threshold2 + last_width;
            let diff = pos.0 - last_pos;
            diff.abs() > threshold_pos
                || (pos.0 < 0.0 && -threshold_pos > diff)
                || diff > this_w + last_width
        };
        if space {
            self.pending_space = true;
        }
        Ok(())
    }

    fn paint(&mut self, stroke: bool, close: bool) {
        if close {
            self.path.push((b'h', (0.0, 0.0)));
        }
        let path = std::mem::take(&mut self.path);
        if path.iter().all(|(k, _)| *k == b'h') {
            return;
        }
        self.out.has_graphics = true;
        // Bounds in user space (points as drawn, the stroke's half width around them).
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for (k, (x, y)) in &path {
            if *k != b'h' {
                x0 = x0.min(*x);
                y0 = y0.min(*y);
                x1 = x1.max(*x);
                y1 = y1.max(*y);
            }
        }
        if stroke {
            let [a, b, c, d, _, _] = self.gs.ctm.0;
            let scale = ((a * d - b * c).abs()).sqrt();
            let hw = self.gs.lw.max(0.0) * scale / 2.0;
            let horizontal = (y1 - y0).abs() < 1e-9;
            let vertical = (x1 - x0).abs() < 1e-9;
            if !vertical || horizontal {
                y0 -= hw;
                y1 += hw;
            }
            if !horizontal || vertical {
                x0 -= hw;
                x1 += hw;
            }
        }
        let (ax, ay) = self.display(x0, y0);
        let (bx, by) = self.display(x1, y1);
        let r = Rect::new(ax, ay, bx, by);
        if crate::images::is_rule(&r) {
            self.out.rules.push(r);
            return;
        }
        let (w, h) = (r.width(), r.height());
        if (1.5..=crate::images::MARK_MAX_SIDE).contains(&w)
            && (1.5..=crate::images::MARK_MAX_SIDE).contains(&h)
            && w <= 2.0 * h
            && h <= 2.0 * w
        {
            self.out.marks.push(r);
            return;
        }
        if path.len() > MAX_PATH_SEGMENTS {
            return;
        }
        let mut start: Option<(f32, f32)> = None;
        let mut last: Option<(f32, f32)> = None;
        for (k, (x, y)) in &path {
            match k {
                b'm' => {
                    let p = self.display(*x, *y);
                    start = Some(p);
                    last = Some(p);
                }
                b'l' => {
                    let p = self.display(*x, *y);
                    if let Some(a) = last {
                        self.line(a, p);
                    }
                    last = Some(p);
                }
                b'h' => {
                    if let (Some(a), Some(s)) = (last, start) {
                        self.line(a, s);
                    }
                    last = start;
                }
                _ => last = Some(self.display(*x, *y)),
            }
        }
    }

    fn line(&mut self, a: (f32, f32), b: (f32, f32)) {
        let r = Rect::new(a.0, a.1, b.0, b.1);
        if (r.height() <= 1.0 && r.width() >= crate::images::RULE_MIN_LENGTH)
            || (r.width() <= 1.0 && r.height() >= crate::images::RULE_MIN_LENGTH)
        {
            self.out.rules.push(r);
        }
    }

    fn xobject(&mut self, name: &[u8], res: Option<&Dict>, depth: u32) -> R<()> {
        let xobjects = res
            .and_then(|r| self.doc.get_in(r, b"XObject"))
            .ok_or(Fail(line!()))?;
        let entry = xobjects
            .as_dict()
            .and_then(|d| d.get(name))
            .ok_or(Fail(line!()))?;
        let Some(Obj::Stream(s)) = self.doc.resolve(entry) else {
            return Err(Fail(line!()));
        };
        let subtype = s
            .dict
            .get(b"Subtype")
            .and_then(Obj::as_name)
            .ok_or(Fail(line!()))?;
        match subtype {
            b"Image" => {
                self.out.has_graphics = true;
                let (x0, y0) = self.user(0.0, 0.0);
                let corners = [
                    self.user(1.0, 0.0),
                    self.user(0.0, 1.0),
                    self.user(1.0, 1.0),
                ];
                let (mut a, mut b, mut c, mut d) = (x0, y0, x0, y0);
                for (x, y) in corners {
                    a = a.min(x);
                    b = b.min(y);
                    c = c.max(x);
                    d = d.max(y);
                }
                let (ax, ay) = self.display(a, b);
                let (bx, by) = self.display(c, d);
                let rect = Rect::new(ax, ay, bx, by);
                let dim = |k: &[u8]| self.doc.get_in(&s.dict, k).and_then(|o| o.as_i64());
                let (w, h) = (dim(b"Width").unwrap_or(0), dim(b"Height").unwrap_or(0));
                self.out.covered += rect.area();
                let tiny_pixels = w * h < 64;
                let min = crate::images::MIN_SIDE;
                let icon = rect.width() < 3.0 * min && rect.height() < 3.0 * min;
                if rect.width() < min || rect.height() < min || icon || tiny_pixels {
                    if rect.width() >= 1.5 && rect.height() >= 1.5 && rect.width() < 3.0 * min {
                        self.out.image_marks.push(rect);
                    }
                } else {
                    self.out.images.push(ImageUse {
                        rect,
                        stream: s.clone(),
                        width: w,
                        height: h,
                    });
                }
                Ok(())
            }
            b"Form" => {
                if depth >= MAX_FORM_DEPTH {
                    return Err(Fail(line!()));
                }
                let data = self.doc.decode(&s).ok_or(Fail(line!()))?;
                let matrix = match s.dict.get(b"Matrix").and_then(|m| self.doc.resolve(m)) {
                    Some(Obj::Array(v)) if v.len() == 6 => {
                        let mut m = [0.0; 6];
                        for (i, x) in v.iter().enumerate() {
                            m[i] = x.as_f64().ok_or(Fail(line!()))?;
                        }
                        M(m)
                    }
                    None => M::ID,
                    _ => return Err(Fail(line!())),
                };
                let own = self.doc.get_in(&s.dict, b"Resources");
                let saved = self.gs.clone();
                let depth_before = self.stack.len();
                self.gs.ctm = matrix.then(&self.gs.ctm);
                let (tm, tlm) = (self.tm, self.tlm);
                let result = match own.as_ref().and_then(Obj::as_dict) {
                    Some(r) => self.run(&data, Some(r), depth + 1),
                    None => self.run(&data, res, depth + 1),
                };
                self.stack.truncate(depth_before);
                self.gs = saved;
                self.tm = tm;
                self.tlm = tlm;
                result
            }
            _ => Err(Fail(line!())),
        }
    }
}

/// PDFium's `NormalizeThreshold`: a share of a character width that shrinks as it grows.
fn normalize(t: f64, t1: f64, t2: f64, t3: f64) -> f64 {
    if t < t1 {
        t / 2.0
    } else if t < t2 {
        t / 4.0
    } else if t < t3 {
        t / 5.0
    } else {
        t / 6.0
    }
}

/// A PDF text string: UTF-16BE after its byte-order mark, UTF-8 after its mark (PDF 2.0), or
/// PDFDocEncoding, read here where it agrees with Latin-1 (`None` for the bytes where it
/// does not).
fn text_string(bytes: &[u8]) -> Option<String> {
    if let Some(units) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = units
            .chunks_exact(2)
            .map(|u| u16::from_be_bytes([u[0], u[1]]))
            .collect();
        return String::from_utf16(&units).ok();
    }
    if let Some(utf8) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8(utf8.to_vec()).ok();
    }
    bytes
        .iter()
        .map(|&b| match b {
            0x18..=0x1F | 0x7F..=0xA0 | 0xAD => None,
            _ => Some(char::from(b)),
        })
        .collect()
}
