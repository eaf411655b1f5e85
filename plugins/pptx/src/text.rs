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

/// What a list style (`a:lstStyle`, a master's `p:bodyStyle`) says of one paragraph level
/// (`a:lvl1pPr` … `a:lvl9pPr`): its bullet and its text's left margin, when it says them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelStyle {
    pub bullet: Option<Bullet>,
    pub margin: Option<i64>,
}

/// A list style's nine levels.
pub type Levels = [LevelStyle; 9];

/// Reads the `a:lvlNpPr` children of the list style element just opened (`a:lstStyle`,
/// `p:bodyStyle`), up to its end. `None` when it says nothing of bullets or margins.
pub fn read_levels(reader: &mut Reader<&[u8]>) -> Option<Box<Levels>> {
    let mut levels: Levels = Default::default();
    let mut current: Option<usize> = None;
    let mut depth = 1usize;
    let mut said = false;
    loop {
        let (e, empty) = match reader.read_event() {
            Ok(Event::Start(e)) => {
                depth += 1;
                (e, false)
            }
            Ok(Event::Empty(e)) => (e, true),
            Ok(Event::End(e)) => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
                if level_index(e.local_name().as_ref()).is_some() {
                    current = None;
                }
                continue;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => continue,
        };
        let name = e.local_name();
        if let Some(k) = level_index(name.as_ref()) {
            let margin = crate::shapes::attr(&e, b"marL").and_then(|v| v.parse().ok());
            levels[k].margin = margin;
            said |= margin.is_some();
            current = (!empty).then_some(k);
            continue;
        }
        let Some(k) = current else { continue };
        let bullet = match name.as_ref() {
            b"buNone" => Bullet::None,
            b"buChar" | b"buBlip" => Bullet::Char,
            b"buAutoNum" => Bullet::Number,
            _ => continue,
        };
        levels[k].bullet = Some(bullet);
        said = true;
    }
    said.then(|| Box::new(levels))
}

/// `lvl1pPr` … `lvl9pPr` as 0 … 8.
fn level_index(name: &[u8]) -> Option<usize> {
    match name {
        [b'l', b'v', b'l', d @ b'1'..=b'9', b'p', b'P', b'r'] => Some(usize::from(d - b'1')),
        _ => None,
    }
}

/// Gives the paragraphs of a body placeholder what their shape's, layout's and master's list
/// styles say of their level, nearest first (`styles`), where the paragraph says nothing
/// itself: the text's left margin, a bullet of `buNone` (a layout's text placeholder
/// without bullets, a caption; before, every paragraph of it was a list item), and an
/// automatic number (`buAutoNum`: the paragraph is a numbered item). A shape with
/// no bullet anywhere whose unmarked paragraphs stand on two or more levels keeps those as a
/// list: the indentation is an outline (pandoc writes lists into a caption placeholder so);
/// so does a shape where other paragraphs carry a `buNone` of their own.
pub fn inherit_levels(paras: &mut [Para], styles: &[&Levels]) {
    let inherited = |p: &Para| {
        let level = usize::from(p.level).min(8);
        styles.iter().find_map(|s| s[level].bullet)
    };
    let bulleted = |p: &Para| match p.bullet {
        Bullet::Char | Bullet::Number => true,
        Bullet::None => false,
        Bullet::Inherit => !matches!(inherited(p), Some(Bullet::None)),
    };
    let mut unmarked = paras.iter().filter(|p| p.bullet == Bullet::Inherit);
    let first = unmarked.next().map(|p| p.level);
    let outline = !paras.iter().any(bulleted) && unmarked.any(|p| Some(p.level) != first);
    // A producer that marks its plain paragraphs `buNone` one by one (pandoc) means the
    // unmarked ones beside them as list items, whatever the placeholder's style says.
    let contrasted = paras.iter().any(|p| p.bullet == Bullet::None);
    for p in paras.iter_mut() {
        if !outline
            && !contrasted
            && p.bullet == Bullet::Inherit
            && inherited(p) == Some(Bullet::None)
        {
            p.bullet = Bullet::None;
        }
        // an automatic number the styles give the level (a quiz template's master numbers
        // its answers A., B., C.) makes the paragraph a numbered item, as PowerPoint shows it
        if p.bullet == Bullet::Inherit && inherited(p) == Some(Bullet::Number) {
            p.bullet = Bullet::Number;
        }
        if p.margin.is_none() {
            let level = usize::from(p.level).min(8);
            p.margin = styles.iter().find_map(|s| s[level].margin);
        }
    }
}

#[derive(Debug, Clone)]
pub struct Para {
    pub level: u8,
    pub bullet: Bullet,
    pub inlines: Vec<Inline>,
    /// The left margin of the paragraph's text in EMU (`a:pPr marL`), when the paragraph
    /// sets it itself.
    pub margin: Option<i64>,
    /// A further paragraph of the list item at `level` (set while grouping, see
    /// [`to_blocks`]).
    pub continues: bool,
    /// The number an automatically numbered paragraph's list starts at (`a:buAutoNum
    /// startAt`), when the paragraph says it.
    pub start: Option<u64>,
    /// All the paragraph's text comes from slide-number fields (`a:fld type="slidenum"`):
    /// page furniture wherever it stands. (A date field stays: a text box showing the date
    /// is content as often as not.)
    pub auto_only: bool,
}

impl Para {
    pub fn plain_text(&self) -> String {
        inline_text(&self.inlines)
    }

    /// Whether a shape's paragraphs are nothing but a slide number (a text box holding the
    /// slide-number field in the corner of a slide or of a notes page): furniture, as the
    /// slide-number placeholder is.
    pub fn all_furniture(paras: &[Para]) -> bool {
        !paras.is_empty() && paras.iter().all(|p| p.auto_only)
    }
}

pub fn inline_text(inlines: &[Inline]) -> String {
    let mut s = String::new();
    for i in inlines {
        match i {
            Inline::Text { text, .. } | Inline::Math { tex: text, .. } => s.push_str(text),
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
    read_body_and_levels(reader, rels).0
}

/// [`read_body`], with the body's own list style ([`read_levels`]).
pub fn read_body_and_levels(
    reader: &mut Reader<&[u8]>,
    rels: &HashMap<String, Relationship>,
) -> (Vec<Para>, Option<Box<Levels>>) {
    let mut levels = None;
    let mut paras = Vec::new();
    let mut depth = 1usize;
    let mut para: Option<Para> = None;
    let mut style = Style::PLAIN;
    let mut link: Option<String> = None;
    let mut in_text = false;
    let mut in_ppr = false;
    // inside a slide-number field; whether the paragraph has other text
    let mut in_auto = false;
    let mut other_text = false;
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
                    if !in_auto && !t.trim().is_empty() {
                        other_text = true;
                    }
                    if in_auto && !other_text {
                        p.auto_only = true;
                    }
                    push_text(p, &t, style, link.as_deref());
                }
                continue;
            }
            Ok(Event::End(e)) => {
                depth -= 1;
                match e.local_name().as_ref() {
                    b"t" => in_text = false,
                    b"pPr" => in_ppr = false,
                    b"fld" => in_auto = false,
                    b"p" => {
                        if let Some(mut p) = para.take() {
                            p.auto_only &= !other_text;
                            paras.push(p);
                        }
                        other_text = false;
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
            b"lstStyle" if !empty && para.is_none() => {
                // read to its end, which the depth count then never sees
                depth -= 1;
                levels = read_levels(reader);
            }
            b"p" => {
                para = Some(Para {
                    level: 0,
                    bullet: Bullet::Inherit,
                    inlines: Vec::new(),
                    margin: None,
                    continues: false,
                    start: None,
                    auto_only: false,
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
                    p.margin = crate::shapes::attr(&e, b"marL").and_then(|v| v.parse().ok());
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
                    p.start = crate::shapes::attr(&e, b"startAt").and_then(|v| v.parse().ok());
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
                in_auto = e.local_name().as_ref() == b"fld"
                    && !empty
                    && crate::shapes::attr(&e, b"type").as_deref() == Some("slidenum");
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
            // PowerPoint's formula (`a14:m`, in the `mc:Choice` its readers take): its Office
            // Math as LaTeX; read through its end here, which the depth count then never sees
            b"m" if !empty && para.is_some() => {
                depth -= 1;
                if let (Some(p), Some((tex, display))) =
                    (para.as_mut(), quire_ooxml::omml::read_formula(reader))
                {
                    p.inlines.push(Inline::Math { tex, display });
                }
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
    (paras, levels)
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

/// Whether the unbulleted paragraph `p` sits under the text of `item` (one of the open list
/// items): a further paragraph of it. By their left margins when both set them (PowerPoint
/// and pandoc write `marL` on such paragraphs; bullets that inherit theirs from the master
/// often do not); otherwise by level: a deeper level is indented further, and the same
/// level without a bullet or a margin of its own keeps the item's text margin. A paragraph
/// set at the margin is never under an item.
fn continues(p: &Para, item: &Para) -> bool {
    /// Margins this close count as equal (about 1 mm).
    const SLACK_EMU: i64 = 36_000;
    match (p.margin, item.margin) {
        (Some(0), _) => false,
        (Some(m), Some(i)) => m + SLACK_EMU >= i,
        (margin, _) => {
            p.level > item.level
                || (p.level == item.level && margin.is_none() && p.bullet == Bullet::None)
        }
    }
}

/// The open item an unbulleted paragraph continues, if any: the deepest of the last item
/// and the items it is nested in whose text the paragraph sits under ([`continues`]).
fn continued_item(pending: &[Para], p: &Para) -> Option<u8> {
    let mut deepest = u8::MAX;
    for item in pending.iter().rev().filter(|q| !q.continues) {
        if item.level >= deepest {
            continue;
        }
        if continues(p, item) {
            return Some(item.level);
        }
        deepest = item.level;
    }
    None
}

/// Turns a shape's paragraphs into blocks: list paragraphs (bulleted, or any paragraph of a
/// body placeholder without `buNone`) become nested lists by level; an unbulleted paragraph
/// under an open item's text is a further paragraph of that item ([`continued_item`]);
/// others are paragraphs and end the list. Numbered and bulleted items at a list's outer
/// level make separate lists, since one Markdown list is either ordered or not.
pub fn to_blocks(paras: Vec<Para>, body_placeholder: bool) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut pending: Vec<Para> = Vec::new();
    for mut p in paras {
        let is_item = match p.bullet {
            Bullet::Char | Bullet::Number => true,
            Bullet::None => false,
            Bullet::Inherit => body_placeholder,
        };
        if !is_item {
            if let Some(level) = continued_item(&pending, &p) {
                p.level = level;
                p.continues = true;
                pending.push(p);
                continue;
            }
        }
        if is_item {
            let base = pending.iter().map(|q| q.level).min();
            let outer = pending
                .iter()
                .find(|q| Some(q.level) == base && !q.continues);
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
        .filter(|p| p.level == base && !p.continues)
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
        // PowerPoint numbers a list from its first item's `startAt`
        start: items
            .first()
            .filter(|_| ordered)
            .and_then(|p| p.start)
            .unwrap_or(1),
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
        if items[i].level == base && items[i].continues {
            let more = Block::Paragraph(items[i].inlines.clone());
            match list.items.last_mut() {
                Some(item) => item.blocks.push(more),
                None => list.items.push(ListItem {
                    blocks: vec![more],
                    checked: None,
                }),
            }
            i += 1;
        } else if items[i].level == base {
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
            margin: None,
            continues: false,
            start: None,
            auto_only: false,
        }
    }

    fn at(margin: i64, p: Para) -> Para {
        Para {
            margin: Some(margin),
            ..p
        }
    }

    fn item_texts(list: &List) -> Vec<Vec<String>> {
        list.items
            .iter()
            .map(|i| {
                i.blocks
                    .iter()
                    .map(|b| match b {
                        Block::Paragraph(p) => inline_text(p),
                        Block::List(l) => format!("list of {}", l.items.len()),
                        other => panic!("{other:?}"),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn unbulleted_paragraphs_under_an_items_text_continue_it() {
        // pandoc's PPTX: an item's further paragraph is buNone one level deeper, its left
        // margin at the item's text; a numbered item's own margin is explicit, a bulleted
        // item's comes from the master. A paragraph back at the margin ends the list.
        let blocks = to_blocks(
            vec![
                para(0, Bullet::Inherit, "a"),
                at(342900, para(1, Bullet::None, "more of a")),
                para(0, Bullet::Inherit, "b"),
                at(685800, para(1, Bullet::Number, "b1")),
                at(685800, para(2, Bullet::None, "more of b1")),
                para(1, Bullet::Inherit, "b2"),
                // under b's text, not b2's: b's paragraph after its nested list
                at(342900, para(1, Bullet::None, "more of b")),
                // same level, no bullet, no margin of its own: under the item's text
                para(0, Bullet::Inherit, "c"),
                para(0, Bullet::None, "more of c"),
                at(0, para(0, Bullet::None, "after the list")),
            ],
            true,
        );
        assert_eq!(blocks.len(), 2, "{blocks:#?}");
        let Block::List(list) = &blocks[0] else {
            panic!("{blocks:#?}")
        };
        assert_eq!(
            item_texts(list),
            [
                vec!["a", "more of a"],
                vec!["b", "list of 2", "more of b"],
                vec!["c", "more of c"],
            ]
        );
        let Block::List(inner) = &list.items[1].blocks[1] else {
            panic!("{list:#?}")
        };
        // b1 keeps its paragraph; b2 follows it in the list nested in b
        assert_eq!(item_texts(inner), [vec!["b1", "more of b1"], vec!["b2"]]);
        assert_eq!(blocks[1], Block::text("after the list"));
    }

    #[test]
    fn a_paragraph_left_of_the_items_text_ends_the_list() {
        let blocks = to_blocks(
            vec![
                at(685800, para(1, Bullet::Char, "deep item")),
                at(342900, para(2, Bullet::None, "left of its text")),
                at(342900, para(0, Bullet::Char, "item")),
                para(0, Bullet::Inherit, "text box paragraph"),
            ],
            false,
        );
        let kinds: Vec<&str> = blocks
            .iter()
            .map(|b| match b {
                Block::List(_) => "list",
                Block::Paragraph(_) => "paragraph",
                _ => "other",
            })
            .collect();
        assert_eq!(
            kinds,
            ["list", "paragraph", "list", "paragraph"],
            "{blocks:#?}"
        );
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
