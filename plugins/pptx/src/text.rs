//! DrawingML text bodies (`p:txBody`, `a:txBody`): paragraphs of styled runs, their list
//! level and bullet, and the grouping of bulleted paragraphs into nested lists.

use quick_xml::events::Event;
use quick_xml::Reader;
use quire_ooxml::Relationship;
use quire_plugin_api::{Block, Inline, List, ListItem, Style};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bullet {
    /// No bullet markup: the shape decides (body placeholders show bullets).
    Inherit,
    None,
    Char,
    Number,
}

#[derive(Debug, Clone)]
pub struct Para {
    pub level: u8,
    pub bullet: Bullet,
    pub inlines: Vec<Inline>,
}

impl Para {
    pub fn plain_text(&self) -> String {
        inline_text(&self.inlines)
    }
}

pub fn inline_text(inlines: &[Inline]) -> String {
    let mut s = String::new();
    for i in inlines {
        match i {
            Inline::Text { text, .. } => s.push_str(text),
            Inline::Link(link) => s.push_str(&inline_text(&link.content)),
            Inline::Break => s.push('\n'),
            _ => {}
        }
    }
    s
}

fn flag(v: Option<String>) -> bool {
    v.is_some_and(|v| v == "1" || v == "true")
}

/// Reads paragraphs until the end of the current text body element.
pub fn read_body(reader: &mut Reader<&[u8]>, rels: &HashMap<String, Relationship>) -> Vec<Para> {
    let mut paras = Vec::new();
    let mut depth = 1usize;
    let mut para: Option<Para> = None;
    let mut style = Style::PLAIN;
    let mut link: Option<String> = None;
    let mut in_text = false;
    let mut in_ppr = false;
    loop {
        let ev = reader.read_event();
        let (e, empty) = match ev {
            Ok(Event::Start(e)) => {
                depth += 1;
                (e, false)
            }
            Ok(Event::Empty(e)) => (e, true),
            Ok(Event::Text(t)) if in_text => {
                if let (Some(p), Ok(t)) = (para.as_mut(), t.unescape()) {
                    push_text(p, &t, style, link.as_deref());
                }
                continue;
            }
            Ok(Event::End(e)) => {
                depth -= 1;
                match e.local_name().as_ref() {
                    b"t" => in_text = false,
                    b"pPr" => in_ppr = false,
                    b"p" => {
                        if let Some(p) = para.take() {
                            paras.push(p);
                        }
                    }
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                continue;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => continue,
        };
        match e.local_name().as_ref() {
            b"p" => {
                para = Some(Para {
                    level: 0,
                    bullet: Bullet::Inherit,
                    inlines: Vec::new(),
                });
                if empty {
                    // an empty paragraph element
                    para = None;
                }
            }
            b"pPr" => {
                if let Some(p) = para.as_mut() {
                    p.level = crate::shapes::attr(&e, b"lvl")
                        .and_then(|v| v.parse::<u8>().ok())
                        .unwrap_or(0)
                        .min(8);
                }
                in_ppr = !empty;
            }
            b"buChar" | b"buBlip" if in_ppr => {
                if let Some(p) = para.as_mut() {
                    p.bullet = Bullet::Char;
                }
            }
            b"buAutoNum" if in_ppr => {
                if let Some(p) = para.as_mut() {
                    p.bullet = Bullet::Number;
                }
            }
            b"buNone" if in_ppr => {
                if let Some(p) = para.as_mut() {
                    p.bullet = Bullet::None;
                }
            }
            b"r" | b"fld" => {
                style = Style::PLAIN;
                link = None;
            }
            b"rPr" => {
                style = Style {
                    bold: flag(crate::shapes::attr(&e, b"b")),
                    italic: flag(crate::shapes::attr(&e, b"i")),
                    strike: crate::shapes::attr(&e, b"strike").is_some_and(|v| v != "noStrike"),
                };
            }
            b"hlinkClick" => {
                link = crate::shapes::attr(&e, b"id")
                    .and_then(|id| rels.get(&id))
                    .filter(|r| r.external)
                    .map(|r| r.target.clone());
            }
            b"t" if !empty => in_text = true,
            b"br" => {
                if let Some(p) = para.as_mut() {
                    p.inlines.push(Inline::Break);
                }
            }
            _ => {}
        }
    }
    paras.retain(|p| !p.plain_text().trim().is_empty());
    paras
}

fn push_text(p: &mut Para, text: &str, style: Style, link: Option<&str>) {
    let text = text.replace('\u{b}', "\n");
    if let Some(href) = link {
        if let Some(Inline::Link(link)) = p.inlines.last_mut() {
            if link.href == href {
                append(&mut link.content, &text, style);
                return;
            }
        }
        p.inlines.push(Inline::link(
            href.to_owned(),
            None,
            vec![Inline::styled(text, style)],
        ));
        return;
    }
    append(&mut p.inlines, &text, style);
}

fn append(inlines: &mut Vec<Inline>, text: &str, style: Style) {
    if let Some(Inline::Text {
        text: prev,
        style: s,
    }) = inlines.last_mut()
    {
        if *s == style || text.trim().is_empty() {
            prev.push_str(text);
            return;
        }
    }
    inlines.push(Inline::styled(text, style));
}

/// Turns a shape's paragraphs into blocks: list paragraphs (bulleted, or any paragraph of a
/// body placeholder without `buNone`) become nested lists by level; others are paragraphs.
/// Numbered and bulleted items at a list's outer level make separate lists, since one
/// Markdown list is either ordered or not.
pub fn to_blocks(paras: Vec<Para>, body_placeholder: bool) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut pending: Vec<Para> = Vec::new();
    for p in paras {
        let is_item = match p.bullet {
            Bullet::Char | Bullet::Number => true,
            Bullet::None => false,
            Bullet::Inherit => body_placeholder,
        };
        if is_item {
            let base = pending.iter().map(|q| q.level).min();
            let outer = pending.iter().find(|q| Some(q.level) == base);
            if base.is_some_and(|b| p.level <= b)
                && outer
                    .is_some_and(|q| (q.bullet == Bullet::Number) != (p.bullet == Bullet::Number))
            {
                blocks.push(Block::List(build_list(&std::mem::take(&mut pending))));
            }
            pending.push(p);
        } else {
            if !pending.is_empty() {
                blocks.push(Block::List(build_list(&std::mem::take(&mut pending))));
            }
            blocks.push(Block::Paragraph(p.inlines));
        }
    }
    if !pending.is_empty() {
        blocks.push(Block::List(build_list(&pending)));
    }
    blocks
}

/// The number `N.` a paragraph's text starts with, followed by a space and more text.
fn leading_number(inlines: &[Inline]) -> Option<u64> {
    let Some(Inline::Text { text, .. }) = inlines.first() else {
        return None;
    };
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 3 {
        return None;
    }
    let rest = &text[digits..];
    let after = rest.strip_prefix('.')?;
    if !after.starts_with([' ', '\u{a0}', '\t']) || after.trim().is_empty() && inlines.len() == 1 {
        return None;
    }
    text[..digits].parse().ok()
}

/// Bulleted paragraphs that carry their own consecutive numbers ("1. Finalize pricing",
/// "2. Hire", typed into a body placeholder whose style is a bullet) read as a numbered
/// list: the first number, when every item at the list's level has the next one.
fn self_numbered(items: &[Para], base: u8) -> Option<u64> {
    let numbers: Vec<Option<u64>> = items
        .iter()
        .filter(|p| p.level == base)
        .map(|p| leading_number(&p.inlines))
        .collect();
    if numbers.len() < 2 {
        return None;
    }
    let first = numbers[0]?;
    numbers
        .iter()
        .enumerate()
        .all(|(k, n)| *n == Some(first + k as u64))
        .then_some(first)
}

/// The paragraph without its leading `N.` and the space after it.
fn strip_number(inlines: &[Inline]) -> Vec<Inline> {
    let mut out = inlines.to_vec();
    if let Some(Inline::Text { text, .. }) = out.first_mut() {
        let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let rest = text[digits + 1..].trim_start().to_string();
        *text = rest;
    }
    out
}

/// Builds a nested list: items deeper than the first item's level nest under the item before.
fn build_list(items: &[Para]) -> List {
    let base = items.iter().map(|p| p.level).min().unwrap_or(0);
    let ordered = items.first().is_some_and(|p| p.bullet == Bullet::Number);
    let mut list = List {
        ordered,
        start: 1,
        items: Vec::new(),
    };
    let mut i = 0;
    let numbered = if ordered {
        None
    } else {
        self_numbered(items, base)
    };
    if let Some(first) = numbered {
        list.ordered = true;
        list.start = first;
    }
    while i < items.len() {
        if items[i].level == base {
            let inlines = if numbered.is_some() {
                strip_number(&items[i].inlines)
            } else {
                items[i].inlines.clone()
            };
            list.items.push(ListItem {
                blocks: vec![Block::Paragraph(inlines)],
                checked: None,
            });
            i += 1;
        } else {
            let start = i;
            while i < items.len() && items[i].level > base {
                i += 1;
            }
            let sub = build_list(&items[start..i]);
            match list.items.last_mut() {
                Some(item) => item.blocks.push(Block::List(sub)),
                None => list.items.push(ListItem {
                    blocks: vec![Block::List(sub)],
                    checked: None,
                }),
            }
        }
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn para(level: u8, bullet: Bullet, t: &str) -> Para {
        Para {
            level,
            bullet,
            inlines: vec![Inline::plain(t)],
        }
    }

    #[test]
    fn nests_lists_by_level() {
        let blocks = to_blocks(
            vec![
                para(0, Bullet::None, "intro"),
                para(0, Bullet::Char, "a"),
                para(1, Bullet::Char, "a1"),
                para(0, Bullet::Char, "b"),
            ],
            false,
        );
        assert_eq!(blocks.len(), 2);
        let Block::List(list) = &blocks[1] else {
            panic!("not a list")
        };
        assert_eq!(list.items.len(), 2);
        assert!(matches!(list.items[0].blocks[1], Block::List(_)));
    }

    #[test]
    fn numbered_items_after_bullets_are_a_list_of_their_own() {
        let blocks = to_blocks(
            vec![
                para(0, Bullet::Inherit, "bullet"),
                para(1, Bullet::Inherit, "sub bullet"),
                para(0, Bullet::Number, "first"),
                para(1, Bullet::Char, "under first"),
                para(0, Bullet::Number, "second"),
                para(0, Bullet::Inherit, "bullet again"),
            ],
            true,
        );
        let kinds: Vec<(bool, usize)> = blocks
            .iter()
            .map(|b| match b {
                Block::List(l) => (l.ordered, l.items.len()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(kinds, [(false, 1), (true, 2), (false, 1)]);
    }

    #[test]
    fn bulleted_paragraphs_that_carry_their_own_numbers_are_a_numbered_list() {
        let blocks = to_blocks(
            vec![
                para(0, Bullet::Inherit, "1. Finalize pricing model"),
                para(0, Bullet::Inherit, "2. Hire two engineers"),
                para(0, Bullet::Inherit, "3. Launch in March"),
            ],
            true,
        );
        let Block::List(list) = &blocks[0] else {
            panic!("{blocks:?}")
        };
        assert!(list.ordered, "{list:?}");
        assert_eq!(list.start, 1);
        let texts: Vec<String> = list
            .items
            .iter()
            .map(|i| match &i.blocks[0] {
                Block::Paragraph(p) => inline_text(p),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "Finalize pricing model",
                "Hire two engineers",
                "Launch in March"
            ]
        );
        // Not a sequence (or a lone number): the text stays as written, bullets and all.
        let blocks = to_blocks(
            vec![
                para(0, Bullet::Inherit, "2024. A year of growth"),
                para(0, Bullet::Inherit, "7. Seven is not next"),
            ],
            true,
        );
        let Block::List(list) = &blocks[0] else {
            panic!("{blocks:?}")
        };
        assert!(!list.ordered);
        assert!(
            matches!(&list.items[0].blocks[0], Block::Paragraph(p) if inline_text(p) == "2024. A year of growth")
        );
    }
}
