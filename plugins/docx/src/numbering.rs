//! `word/numbering.xml`: list definitions and the counters Word keeps while it lays out a
//! document.
//!
//! A paragraph names a `w:num` (numId) and a level; the num points at an `w:abstractNum`
//! holding each level's format (`bullet`, `decimal`, `lowerLetter`, ...), label template
//! (`%1.%2.`) and start value. Counters belong to the abstract definition, so two nums that
//! share one continue each other's numbering, except where a num carries a `startOverride`,
//! which restarts that level the first time the num is used. Labels are computed in document
//! order while the model is built, so they match what Word shows.

use crate::xml::{attr, name, Ev, Xml};
use quire_plugin_api::Result;
use std::collections::{HashMap, HashSet};

const LEVELS: usize = 9;

#[derive(Debug, Clone, Default)]
struct Level {
    fmt: String,
    text: String,
    start: i64,
    legal: bool,
    /// The level's left indent in twips (`w:pPr/w:ind`), when it gives one.
    indent: Option<i64>,
}

#[derive(Debug, Default)]
struct Abstract {
    levels: [Option<Level>; LEVELS],
    style_link: Option<String>,
}

#[derive(Debug, Default)]
struct Num {
    abstract_id: String,
    start_overrides: [Option<i64>; LEVELS],
    level_overrides: [Option<Level>; LEVELS],
}

/// What a list paragraph's label is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LabelKind {
    Bullet,
    /// A number; `plain` when the label is just `N.` in decimal, which a Markdown ordered
    /// list reproduces exactly.
    Ordered {
        value: i64,
        plain: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Label {
    pub text: String,
    pub kind: LabelKind,
    pub level: u8,
    /// The abstract definition the paragraph counts in: one list, whichever num names it.
    pub list: String,
    /// The level's left indent in twips, when the definition gives one.
    pub indent: Option<i64>,
}

#[derive(Debug, Default)]
pub(crate) struct Numbering {
    abstracts: HashMap<String, Abstract>,
    nums: HashMap<String, Num>,
    counters: HashMap<String, [Option<i64>; LEVELS]>,
    used: HashSet<String>,
}

fn parse_int(v: Option<String>) -> Option<i64> {
    v.and_then(|v| v.trim().parse().ok())
}

impl Numbering {
    pub(crate) fn parse(bytes: &[u8], max_depth: u32) -> Result<Numbering> {
        let mut n = Numbering::default();
        let mut x = Xml::new(bytes, max_depth, "numbering.xml");
        loop {
            match x.next()? {
                Ev::Start(e) if name(&e) == b"abstractNum" => {
                    let id = attr(&e, b"abstractNumId").unwrap_or_default();
                    let a = parse_abstract(&mut x)?;
                    n.abstracts.insert(id, a);
                }
                Ev::Start(e) if name(&e) == b"num" => {
                    let id = attr(&e, b"numId").unwrap_or_default();
                    let num = parse_num(&mut x)?;
                    n.nums.insert(id, num);
                }
                Ev::Eof => break,
                _ => {}
            }
        }
        Ok(n)
    }

    fn level(&self, num: &Num, ilvl: usize) -> Option<Level> {
        if let Some(l) = &num.level_overrides[ilvl] {
            return Some(l.clone());
        }
        let mut abs = self.abstracts.get(&num.abstract_id)?;
        // A definition that only links to a numbering style: follow the link once.
        if abs.levels.iter().all(Option::is_none) {
            if let Some(link) = &abs.style_link {
                if let Some(other) = self.abstracts.values().find(|a| {
                    a.style_link.as_deref() == Some(link) && a.levels.iter().any(Option::is_some)
                }) {
                    abs = other;
                }
            }
        }
        abs.levels[ilvl].clone()
    }

    /// Advances the counters for a paragraph in list `num_id` at `ilvl` and returns its label.
    pub(crate) fn next(&mut self, num_id: &str, ilvl: u8) -> Option<Label> {
        let ilvl = usize::from(ilvl).min(LEVELS - 1);
        let num = self.nums.get(num_id)?;
        let level = self.level(num, ilvl)?;
        let key = num.abstract_id.clone();
        let levels: Vec<Option<Level>> = (0..LEVELS).map(|l| self.level(num, l)).collect();
        let overrides = num.start_overrides;
        let first_use = self.used.insert(num_id.to_owned());
        let counters = self.counters.entry(key.clone()).or_default();
        if first_use {
            for (l, o) in overrides.iter().enumerate() {
                if let Some(start) = o {
                    counters[l] = Some(start - 1);
                }
            }
        }
        let value = counters[ilvl].map_or(level.start, |v| v + 1);
        counters[ilvl] = Some(value);
        // A level skipped over (level 3 straight after level 1) shows its start value and
        // counts as used, so the next item at that level is start + 1, as Word numbers it.
        for (l, c) in counters.iter_mut().enumerate().take(ilvl) {
            if c.is_none() {
                *c = Some(levels[l].as_ref().map_or(1, |d| d.start));
            }
        }
        for c in counters.iter_mut().skip(ilvl + 1) {
            *c = None;
        }
        if level.fmt == "bullet" {
            return Some(Label {
                text: String::new(),
                kind: LabelKind::Bullet,
                level: ilvl as u8,
                list: key,
                indent: level.indent,
            });
        }
        let mut text = String::new();
        let mut chars = level.text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%' {
                if let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    chars.next();
                    let l = (d as usize).saturating_sub(1).min(LEVELS - 1);
                    let def = levels[l].clone().unwrap_or_default();
                    let v = counters[l].unwrap_or(def.start);
                    let fmt = if level.legal || def.legal {
                        "decimal"
                    } else {
                        def.fmt.as_str()
                    };
                    text.push_str(&format_number(v, fmt));
                    continue;
                }
            }
            text.push(c);
        }
        let plain = level.fmt == "decimal" && level.text == format!("%{}.", ilvl + 1);
        if level.fmt == "none" && text.trim().is_empty() {
            return None;
        }
        Some(Label {
            text,
            kind: LabelKind::Ordered { value, plain },
            level: ilvl as u8,
            list: key,
            indent: level.indent,
        })
    }
}

fn level_prop(e: &quick_xml::events::BytesStart<'_>, level: &mut Level) {
    match name(e) {
        b"numFmt" => level.fmt = attr(e, b"val").unwrap_or_else(|| "decimal".into()),
        b"lvlText" => level.text = attr(e, b"val").unwrap_or_default(),
        b"start" => level.start = parse_int(attr(e, b"val")).unwrap_or(1),
        b"isLgl" => level.legal = crate::xml::on_off(e),
        _ => {}
    }
}

fn parse_level(x: &mut Xml<'_>) -> Result<Level> {
    let mut level = Level {
        fmt: "decimal".into(),
        // a level without w:start counts from zero (ECMA-376 17.9.25), as Word and
        // LibreOffice number it
        start: 0,
        ..Level::default()
    };
    let mut depth = 0u32;
    loop {
        match x.next()? {
            Ev::Start(e) => {
                // mc:AlternateContent around numFmt: the Choice's format wins, read first.
                if depth == 0 || name(&e) == b"Choice" || name(&e) == b"Fallback" {
                    level_prop(&e, &mut level);
                }
                depth += 1;
            }
            Ev::Empty(e) => {
                if depth == 0 || (name(&e) == b"numFmt" && level.fmt == "decimal") {
                    level_prop(&e, &mut level);
                } else if depth == 1 && name(&e) == b"ind" {
                    level.indent = crate::xml::indent(&e);
                }
            }
            Ev::End => {
                if depth == 0 {
                    return Ok(level);
                }
                depth -= 1;
            }
            Ev::Eof => return Ok(level),
            Ev::Text(_) => {}
        }
    }
}

fn parse_abstract(x: &mut Xml<'_>) -> Result<Abstract> {
    let mut a = Abstract::default();
    loop {
        match x.next()? {
            Ev::Start(e) if name(&e) == b"lvl" => {
                let ilvl = parse_int(attr(&e, b"ilvl")).unwrap_or(0);
                let level = parse_level(x)?;
                if (0..LEVELS as i64).contains(&ilvl) {
                    a.levels[ilvl as usize] = Some(level);
                }
            }
            Ev::Start(_) => x.skip()?,
            Ev::Empty(e) if matches!(name(&e), b"numStyleLink" | b"styleLink") => {
                a.style_link = attr(&e, b"val");
            }
            Ev::End | Ev::Eof => return Ok(a),
            _ => {}
        }
    }
}

fn parse_num(x: &mut Xml<'_>) -> Result<Num> {
    let mut num = Num::default();
    loop {
        match x.next()? {
            Ev::Empty(e) if name(&e) == b"abstractNumId" => {
                num.abstract_id = attr(&e, b"val").unwrap_or_default();
            }
            Ev::Start(e) if name(&e) == b"lvlOverride" => {
                let ilvl = parse_int(attr(&e, b"ilvl")).unwrap_or(0);
                let slot = (0..LEVELS as i64).contains(&ilvl).then_some(ilvl as usize);
                loop {
                    match x.next()? {
                        Ev::Empty(o) if name(&o) == b"startOverride" => {
                            if let Some(l) = slot {
                                num.start_overrides[l] =
                                    Some(parse_int(attr(&o, b"val")).unwrap_or(1));
                            }
                        }
                        Ev::Start(o) if name(&o) == b"lvl" => {
                            let level = parse_level(x)?;
                            if let Some(l) = slot {
                                num.level_overrides[l] = Some(level);
                            }
                        }
                        Ev::Start(_) => x.skip()?,
                        Ev::End | Ev::Eof => break,
                        _ => {}
                    }
                }
            }
            Ev::Start(_) => x.skip()?,
            Ev::End | Ev::Eof => return Ok(num),
            _ => {}
        }
    }
}

/// Formats a counter as Word's `numFmt` says; unknown formats fall back to decimal.
pub(crate) fn format_number(v: i64, fmt: &str) -> String {
    match fmt {
        "lowerLetter" => letters(v, b'a'),
        "upperLetter" => letters(v, b'A'),
        "lowerRoman" => roman(v).to_lowercase(),
        "upperRoman" => roman(v),
        "decimalZero" if (0..10).contains(&v) => format!("0{v}"),
        "ordinal" => {
            let suffix = match (v % 100, v % 10) {
                (11..=13, _) => "th",
                (_, 1) => "st",
                (_, 2) => "nd",
                (_, 3) => "rd",
                _ => "th",
            };
            format!("{v}{suffix}")
        }
        "none" => String::new(),
        _ => v.to_string(),
    }
}

/// a, b, ..., z, aa, bb, ... as Word counts letters.
fn letters(v: i64, base: u8) -> String {
    if v <= 0 {
        return v.to_string();
    }
    let v = v - 1;
    let c = char::from(base + (v % 26) as u8);
    std::iter::repeat_n(c, (v / 26 + 1).min(50) as usize).collect()
}

fn roman(v: i64) -> String {
    u64::try_from(v)
        .ok()
        .and_then(quire_plugin_api::text::roman)
        .unwrap_or_else(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(format_number(3, "lowerLetter"), "c");
        assert_eq!(format_number(27, "lowerLetter"), "aa");
        assert_eq!(format_number(14, "upperRoman"), "XIV");
        assert_eq!(format_number(2, "lowerRoman"), "ii");
        assert_eq!(format_number(22, "ordinal"), "22nd");
    }

    #[test]
    fn counts_levels_and_restarts() {
        let xml = br#"<w:numbering xmlns:w="w">
<w:abstractNum w:abstractNumId="0">
 <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
 <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1.%2)"/></w:lvl>
</w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>"#;
        let mut n = Numbering::parse(xml, 64).unwrap();
        let l = n.next("1", 0).unwrap();
        assert_eq!(l.text, "1.");
        assert_eq!(
            l.kind,
            LabelKind::Ordered {
                value: 1,
                plain: true
            }
        );
        assert_eq!(n.next("1", 1).unwrap().text, "1.a)");
        assert_eq!(n.next("1", 1).unwrap().text, "1.b)");
        assert_eq!(n.next("1", 0).unwrap().text, "2.");
        assert_eq!(n.next("1", 1).unwrap().text, "2.a)");
        assert_eq!(n.next("2", 0).unwrap().text, "5.");
        assert_eq!(n.next("3", 0).unwrap().kind, LabelKind::Bullet);
        assert!(n.next("9", 0).is_none());
    }

    #[test]
    fn a_level_without_a_start_counts_from_zero() {
        // Tika's override_list_numbering: an ordinal first level with no w:start reads
        // "0th", "1st", … in Word and LibreOffice; its second level starts at 1.
        let xml = br#"<w:numbering xmlns:w="w"><w:abstractNum w:abstractNumId="8">
 <w:lvl w:ilvl="0"><w:numFmt w:val="ordinal"/><w:lvlText w:val="%1"/></w:lvl>
 <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>
</w:abstractNum><w:num w:numId="4"><w:abstractNumId w:val="8"/></w:num></w:numbering>"#;
        let mut n = Numbering::parse(xml, 64).unwrap();
        assert_eq!(n.next("4", 0).unwrap().text, "0th");
        assert_eq!(n.next("4", 0).unwrap().text, "1st");
        assert_eq!(n.next("4", 1).unwrap().text, "1st.1");
    }
}
