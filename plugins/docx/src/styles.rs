//! `word/styles.xml`: which paragraph styles are headings, what character formatting a style
//! carries, and which styles are tied to a numbering definition.
//!
//! Headings are found by walking the `basedOn` chain: a custom style based on "heading 2"
//! is a level-2 heading unless it says otherwise with its own `w:outlineLvl`. Built-in style
//! names in `w:name` are English in every localisation ("heading 1"), so matching the name is
//! reliable where style ids are not ("berschrift1" in German documents).

use crate::xml::{attr, name, on_off, Ev, Xml};
use quire_plugin_api::Result;
use std::collections::HashMap;

/// Character formatting a style or run sets; `None` leaves the inherited value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FmtDelta {
    pub bold: Option<bool>,
    pub italic: Option<bool>,
    pub strike: Option<bool>,
    /// Underline reads as emphasis in Markdown, except on links (which are underlined by style).
    pub underline: Option<bool>,
    pub hidden: Option<bool>,
}

impl FmtDelta {
    /// `self` over `base`.
    pub(crate) fn over(self, base: FmtDelta) -> FmtDelta {
        FmtDelta {
            bold: self.bold.or(base.bold),
            italic: self.italic.or(base.italic),
            strike: self.strike.or(base.strike),
            underline: self.underline.or(base.underline),
            hidden: self.hidden.or(base.hidden),
        }
    }

    /// Applies one `w:rPr` child element; returns false when it is not a formatting property.
    pub(crate) fn apply(&mut self, e: &quick_xml::events::BytesStart<'_>) -> bool {
        match name(e) {
            b"b" => self.bold = Some(on_off(e)),
            b"i" => self.italic = Some(on_off(e)),
            b"u" => self.underline = Some(on_off(e)),
            b"strike" | b"dstrike" => self.strike = Some(on_off(e)),
            b"vanish" | b"webHidden" | b"specVanish" => self.hidden = Some(on_off(e)),
            _ => return false,
        }
        true
    }
}

#[derive(Debug, Default)]
struct StyleDef {
    name: String,
    based_on: Option<String>,
    outline: Option<u8>,
    fmt: FmtDelta,
    num_id: Option<String>,
    ilvl: Option<u8>,
    indent: Option<i64>,
}

#[derive(Debug, Default)]
pub(crate) struct Styles {
    map: HashMap<String, StyleDef>,
    default_para: Option<String>,
}

const MAX_CHAIN: usize = 16;

impl Styles {
    pub(crate) fn parse(bytes: &[u8], max_depth: u32) -> Result<Styles> {
        let mut styles = Styles::default();
        let mut x = Xml::new(bytes, max_depth, "styles.xml");
        loop {
            match x.next()? {
                Ev::Start(e) if name(&e) == b"style" => {
                    let id = attr(&e, b"styleId").unwrap_or_default();
                    let is_para = attr(&e, b"type").as_deref() == Some("paragraph");
                    if is_para && attr(&e, b"default").is_some_and(|v| v == "1" || v == "true") {
                        styles.default_para = Some(id.clone());
                    }
                    let def = parse_style(&mut x)?;
                    styles.map.insert(id, def);
                }
                Ev::Eof => break,
                _ => {}
            }
        }
        Ok(styles)
    }

    fn chain<'s>(&'s self, style: Option<&'s str>) -> impl Iterator<Item = &'s StyleDef> + 's {
        let mut next = style.or(self.default_para.as_deref());
        std::iter::from_fn(move || {
            let def = self.map.get(next?)?;
            next = def.based_on.as_deref();
            Some(def)
        })
        .take(MAX_CHAIN)
    }

    /// The heading level (1..=9) of a paragraph with this style and direct outline level.
    pub(crate) fn heading_level(&self, style: Option<&str>, outline: Option<u8>) -> Option<u8> {
        if let Some(l) = outline {
            return (l < 9).then_some(l + 1);
        }
        for def in self.chain(style) {
            let lower = def.name.to_ascii_lowercase();
            if let Some(n) = lower.strip_prefix("heading ") {
                if let Ok(n) = n.trim().parse::<u8>() {
                    if (1..=9).contains(&n) {
                        return Some(n);
                    }
                }
            }
            if lower == "title" {
                return Some(1);
            }
            if let Some(l) = def.outline {
                return (l < 9).then_some(l + 1);
            }
        }
        None
    }

    /// Character formatting a style gives (paragraph or character style), inherited values
    /// filled in from its bases.
    pub(crate) fn fmt(&self, style: Option<&str>) -> FmtDelta {
        let mut out = FmtDelta::default();
        if style.is_none() {
            return out;
        }
        for def in self.chain(style) {
            out = out.over(def.fmt);
        }
        out
    }

    /// The numbering a paragraph style attaches (`numId`, level).
    /// The left indent (twips) a paragraph style gives, from it or a style it is based on.
    pub(crate) fn indent(&self, style: Option<&str>) -> Option<i64> {
        self.chain(style).find_map(|def| def.indent)
    }

    pub(crate) fn numbering(&self, style: Option<&str>) -> Option<(String, Option<u8>)> {
        style?;
        let mut ilvl = None;
        for def in self.chain(style) {
            ilvl = ilvl.or(def.ilvl);
            if let Some(id) = &def.num_id {
                return Some((id.clone(), ilvl));
            }
        }
        None
    }
}

fn parse_style(x: &mut Xml<'_>) -> Result<StyleDef> {
    let mut def = StyleDef::default();
    // The property containers we are inside: 1 = pPr, 2 = rPr, 3 = numPr, 0 = anything else.
    let mut stack: Vec<u8> = Vec::new();
    loop {
        match x.next()? {
            Ev::Start(e) => {
                handle(&e, &mut def, &stack);
                stack.push(match name(&e) {
                    b"pPr" => 1,
                    b"rPr" => 2,
                    b"numPr" => 3,
                    _ => 0,
                });
            }
            Ev::Empty(e) => handle(&e, &mut def, &stack),
            Ev::End => {
                if stack.pop().is_none() {
                    return Ok(def);
                }
            }
            Ev::Eof => return Ok(def),
            Ev::Text(_) => {}
        }
    }
}

fn handle(e: &quick_xml::events::BytesStart<'_>, def: &mut StyleDef, stack: &[u8]) {
    let inside = stack.last().copied();
    match (inside, name(e)) {
        (None, b"name") => def.name = attr(e, b"val").unwrap_or_default(),
        (None, b"basedOn") => def.based_on = attr(e, b"val"),
        (Some(1), b"outlineLvl") => {
            def.outline = attr(e, b"val").and_then(|v| v.trim().parse().ok())
        }
        (Some(1), b"ind") => def.indent = crate::xml::indent(e).or(def.indent),
        (Some(3), b"numId") => def.num_id = attr(e, b"val"),
        (Some(3), b"ilvl") => def.ilvl = attr(e, b"val").and_then(|v| v.trim().parse().ok()),
        (Some(2), _) => {
            def.fmt.apply(e);
        }
        _ => {}
    }
}
