//! One slide to a `Part`: title first, shapes in reading order, notes, comments.
//!
//! Placeholders often carry no position of their own; they inherit it from the slide layout
//! (matched by `idx`, then by type) or the master (by the master's type: a master has only
//! title, body and furniture placeholders, so a content or subtitle placeholder takes the
//! body's place), which are read once and cached.

use crate::shapes::{self, Content, Placeholder, Shape};
use crate::{media, text};
use quick_xml::events::Event;
use quick_xml::Reader;
use quire_ooxml::chart;
use quire_ooxml::{relationships, Relationship, SafeZip};
use quire_plugin_api::{Block, Cell, Context, Inline, Part, Result, Style, Table};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A layout's or master's placeholder: where a slide's placeholder of its kind stands when it
/// says nothing itself, and the list style its text inherits.
struct Template {
    placeholder: Placeholder,
    pos: Option<(i64, i64)>,
    levels: Option<Box<text::Levels>>,
}

/// A layout's or master's placeholders, and a master's body text style (`p:bodyStyle`).
#[derive(Default)]
struct Templates {
    placeholders: Vec<Template>,
    body_style: Option<Box<text::Levels>>,
}

impl Templates {
    /// The layout placeholder a slide placeholder inherits from: by `idx`, then by type.
    fn in_layout(&self, ph: &Placeholder) -> Option<&Template> {
        let list = &self.placeholders;
        ph.idx
            .as_ref()
            .and_then(|idx| {
                list.iter()
                    .find(|t| t.placeholder.idx.as_ref() == Some(idx))
            })
            .or_else(|| list.iter().find(|t| t.placeholder.kind == ph.kind))
    }

    /// The layout placeholder whose text style a slide placeholder inherits: the one of its
    /// `idx` when it has one (another placeholder of its type is another text box), else the
    /// one of its type.
    fn style_in_layout(&self, ph: &Placeholder) -> Option<&Template> {
        self.placeholders.iter().find(|t| match &ph.idx {
            Some(idx) => t.placeholder.idx.as_ref() == Some(idx),
            None => t.placeholder.kind == ph.kind,
        })
    }

    /// The master placeholder a slide or layout placeholder inherits from, by the master's type.
    fn in_master(&self, ph: &Placeholder) -> Option<&Template> {
        self.placeholders
            .iter()
            .find(|t| master_kind(&t.placeholder.kind) == master_kind(&ph.kind))
    }
}

/// What is shared between slides: layout/master placeholders, images counted.
#[derive(Default)]
pub struct State {
    templates: HashMap<String, Rc<Templates>>,
    /// Each layout's master part, read from the layout's relationships once.
    masters: HashMap<String, Option<String>>,
    images: u32,
    /// Footer texts already shown: a footer repeated on every slide is shown once, where it
    /// first appears (a varying footer is shown on each slide that carries it).
    footers: HashSet<String>,
}

/// Placeholder kinds that are slide furniture, not content.
fn is_furniture(kind: &str) -> bool {
    matches!(kind, "sldNum" | "dt" | "sldImg")
}

fn is_title(p: &Option<Placeholder>) -> bool {
    p.as_ref()
        .is_some_and(|p| p.kind == "title" || p.kind == "ctrTitle")
}

/// The master placeholder a slide or layout placeholder of this type inherits from.
fn master_kind(kind: &str) -> &str {
    match kind {
        "title" | "ctrTitle" => "title",
        "dt" | "ftr" | "sldNum" | "hdr" => kind,
        _ => "body",
    }
}

/// A body placeholder, whose paragraphs are list items unless their styles say otherwise.
fn is_body(p: &Option<Placeholder>) -> bool {
    p.as_ref()
        .is_some_and(|p| p.kind == "body" || p.kind == "obj")
}

fn templates(zip: &mut SafeZip<'_>, part: &str, state: &mut State) -> Rc<Templates> {
    if let Some(t) = state.templates.get(part) {
        return Rc::clone(t);
    }
    let rels = relationships(zip, part).unwrap_or_default();
    let found = match zip.read(part) {
        Ok(Some(xml)) => Templates {
            placeholders: shapes::read_shapes(&xml, &rels)
                .into_iter()
                .filter_map(|s| {
                    Some(Template {
                        placeholder: s.placeholder?,
                        pos: s.pos,
                        levels: s.levels,
                    })
                })
                .collect(),
            body_style: body_style(&xml),
        },
        _ => Templates::default(),
    };
    let found = Rc::new(found);
    state.templates.insert(part.to_owned(), Rc::clone(&found));
    found
}

/// A master's `p:txStyles/p:bodyStyle` levels.
fn body_style(xml: &[u8]) -> Option<Box<text::Levels>> {
    let mut reader = Reader::from_reader(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.local_name().as_ref() == b"bodyStyle" => {
                return text::read_levels(&mut reader);
            }
            Ok(Event::Eof) | Err(_) => return None,
            _ => {}
        }
    }
}

/// Fills in what the slide's placeholders inherit from its layout and master: a position, and
/// for a body placeholder's paragraphs the bullet and margin of their level
/// ([`text::inherit_levels`]: the shape's own list style, the layout placeholder's, the master
/// placeholder's, the master's body style).
fn inherit(
    zip: &mut SafeZip<'_>,
    rels: &HashMap<String, Relationship>,
    shapes: &mut [Shape],
    state: &mut State,
) {
    if shapes.iter().all(|s| {
        (s.pos.is_some() || s.placeholder.is_none())
            && !(is_body(&s.placeholder) && matches!(s.content, Content::Text(_)))
    }) {
        return;
    }
    let Some(layout) = rels
        .values()
        .find(|r| r.kind == "slideLayout" && !r.external)
        .map(|r| r.target.clone())
    else {
        return;
    };
    let layout_t = templates(zip, &layout, state);
    let master = match state.masters.get(&layout) {
        Some(master) => master.clone(),
        None => {
            let master = relationships(zip, &layout)
                .unwrap_or_default()
                .into_values()
                .find(|r| r.kind == "slideMaster" && !r.external)
                .map(|r| r.target);
            state.masters.insert(layout.clone(), master.clone());
            master
        }
    };
    let master_t = master
        .map(|m| templates(zip, &m, state))
        .unwrap_or_default();
    for s in shapes.iter_mut() {
        let Some(ph) = &s.placeholder else { continue };
        let in_layout = layout_t.in_layout(ph);
        let in_master = master_t.in_master(ph);
        if s.pos.is_none() {
            s.pos = in_layout.and_then(|t| t.pos).or_else(|| in_master?.pos);
        }
        if !is_body(&s.placeholder) {
            continue;
        }
        if let Content::Text(paras) = &mut s.content {
            let styles: Vec<&text::Levels> = [
                s.levels.as_deref(),
                layout_t
                    .style_in_layout(ph)
                    .and_then(|t| t.levels.as_deref()),
                in_master.and_then(|t| t.levels.as_deref()),
                master_t.body_style.as_deref(),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !styles.is_empty() {
                text::inherit_levels(paras, &styles);
            }
        }
    }
}

pub fn convert(
    zip: &mut SafeZip<'_>,
    part_name: &str,
    number: u32,
    authors: &HashMap<String, String>,
    state: &mut State,
    ctx: &mut Context<'_>,
) -> Result<Part> {
    let mut part = Part::slide(number);
    let Some(xml) = zip.read(part_name)? else {
        ctx.warn(format!("Slide {number} is missing from the file."));
        return Ok(part);
    };
    let rels = relationships(zip, part_name)?;
    let mut shapes = shapes::read_shapes(&xml, &rels);
    drop(xml);
    inherit(zip, &rels, &mut shapes, state);

    // the title first
    if let Some(i) = shapes.iter().position(|s| {
        is_title(&s.placeholder) && matches!(&s.content, Content::Text(p) if !p.is_empty())
    }) {
        let shape = shapes.remove(i);
        if let Content::Text(paras) = shape.content {
            let mut content: Vec<Inline> = Vec::new();
            for (k, p) in paras.into_iter().enumerate() {
                if k > 0 {
                    content.push(Inline::plain(" "));
                }
                content.extend(p.inlines.into_iter().map(|i| match i {
                    Inline::Break => Inline::plain(" "),
                    other => other,
                }));
            }
            let title = text::inline_text(&content)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            part.name = Some(title);
            part.blocks.push(Block::Heading { level: 2, content });
        }
    }

    // reading order: top to bottom, then left to right; unpositioned shapes keep their order last
    let mut order: Vec<usize> = (0..shapes.len()).collect();
    order.sort_by_key(|&i| {
        let (x, y) = shapes[i].pos.unwrap_or((i64::MAX, i64::MAX));
        (y, x)
    });
    let mut slots: Vec<Option<Shape>> = shapes.into_iter().map(Some).collect();
    for i in order {
        let Some(shape) = slots[i].take() else {
            continue;
        };
        shape_blocks(zip, &rels, shape, number, state, ctx, &mut part.blocks)?;
    }

    // speaker notes
    if let Some(notes) = rels
        .values()
        .find(|r| r.kind == "notesSlide" && !r.external)
    {
        let target = notes.target.clone();
        if let Ok(Some(xml)) = zip.read(&target) {
            let notes_rels = relationships(zip, &target).unwrap_or_default();
            for shape in shapes::read_shapes(&xml, &notes_rels) {
                let furniture = shape
                    .placeholder
                    .as_ref()
                    .is_some_and(|p| is_furniture(&p.kind));
                if let (false, Content::Text(paras)) = (furniture, shape.content) {
                    if !text::Para::all_furniture(&paras) {
                        part.notes.extend(text::to_blocks(paras, false));
                    }
                }
            }
        }
    }

    // comments (legacy and modern)
    let mut comment_parts: Vec<&Relationship> = rels
        .values()
        .filter(|r| r.kind == "comments" && !r.external)
        .collect();
    comment_parts.sort_by(|a, b| a.id.cmp(&b.id));
    for rel in comment_parts {
        if let Ok(Some(xml)) = zip.read(&rel.target) {
            for (author, text) in read_comments(&xml) {
                let who = authors
                    .get(&author)
                    .cloned()
                    .unwrap_or_else(|| "Unknown".into());
                part.blocks.push(Block::Paragraph(vec![
                    Inline::styled(format!("Comment by {who}:"), Style::ITALIC),
                    Inline::plain(format!(" {text}")),
                ]));
            }
        }
    }
    Ok(part)
}

fn shape_blocks(
    zip: &mut SafeZip<'_>,
    rels: &HashMap<String, Relationship>,
    shape: Shape,
    number: u32,
    state: &mut State,
    ctx: &mut Context<'_>,
    out: &mut Vec<Block>,
) -> Result<()> {
    match shape.content {
        Content::Text(paras) => {
            let kind = shape.placeholder.as_ref().map(|p| p.kind.as_str());
            if kind.is_some_and(is_furniture) || text::Para::all_furniture(&paras) {
                return Ok(());
            }
            if kind == Some("ftr") {
                let text: String = paras
                    .iter()
                    .map(|p| text::inline_text(&p.inlines))
                    .collect::<Vec<_>>()
                    .join(" ");
                let key = text.split_whitespace().collect::<Vec<_>>().join(" ");
                if !state.footers.insert(key) {
                    return Ok(());
                }
            }
            let body = matches!(kind, Some("body") | Some("obj"));
            if is_title(&shape.placeholder) {
                // a second title on the slide reads as a paragraph
                out.extend(paras.into_iter().map(|p| Block::Paragraph(p.inlines)));
            } else {
                out.extend(text::to_blocks(paras, body));
            }
        }
        Content::Table { rows, first_row } => {
            let rows: Vec<Vec<Cell>> = rows
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .filter(|c| !c.covered)
                        .map(|c| {
                            let mut content = Vec::new();
                            for (k, p) in c.paras.into_iter().enumerate() {
                                if k > 0 {
                                    content.push(Inline::Break);
                                }
                                content.extend(p.inlines);
                            }
                            Cell {
                                content,
                                colspan: c.colspan,
                                rowspan: c.rowspan,
                            }
                        })
                        .collect()
                })
                .collect();
            if !rows.is_empty() {
                out.push(Block::Table(Table {
                    header_rows: usize::from(first_row),
                    rows,
                }));
            }
        }
        Content::Picture {
            embed,
            descr,
            object,
        } => {
            // an object with no preview picture that the host does not convert stays out, as
            // PowerPoint files written without one always did
            let bare_object = object.is_some() && embed.is_none();
            if let Some(blocks) = object
                .and_then(|id| rels.get(&id).filter(|r| !r.external).cloned())
                .map(|rel| match zip.read(&rel.target)? {
                    // an Equation Editor 3.0 formula: its LaTeX, a line of its own
                    Some(bytes) => match quire_ooxml::mtef::ole_latex(&bytes) {
                        Some(tex) => Ok(Some(vec![Block::Paragraph(vec![Inline::Math {
                            tex,
                            display: true,
                        }])])),
                        None => quire_ooxml::embedded::object_blocks(&bytes, &rel.target, ctx),
                    },
                    None => Ok(None),
                })
                .transpose()?
                .flatten()
            {
                out.extend(blocks);
                return Ok(());
            }
            if bare_object {
                return Ok(());
            }
            if let Some(img) = media::picture(
                zip,
                rels,
                embed.as_deref(),
                descr.as_deref(),
                number,
                &mut state.images,
                ctx,
            )? {
                out.push(Block::Image(Box::new(img)));
            }
        }
        Content::Diagram { rid } => {
            let Some(rel) = rels.get(&rid).filter(|r| !r.external) else {
                return Ok(());
            };
            let target = rel.target.clone();
            if let Ok(Some(xml)) = zip.read(&target) {
                out.extend(quire_ooxml::diagram::list(&xml));
            }
        }
        Content::Chart { rid } => {
            let Some(rel) = rels.get(&rid).filter(|r| !r.external) else {
                return Ok(());
            };
            let target = rel.target.clone();
            match zip.read(&target) {
                Ok(Some(xml)) => out.extend(chart::read(&xml).blocks()),
                Ok(None) => ctx.warn(format!(
                    "A chart on slide {number} is missing; it was skipped."
                )),
                Err(e) if e.kind() == quire_plugin_api::ErrorKind::Malformed => ctx.warn(format!(
                    "A chart on slide {number} is damaged; it was skipped."
                )),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// Comment authors by id: "Name (initials)".
pub fn comment_authors(zip: &mut SafeZip<'_>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for part in ["ppt/commentAuthors.xml", "ppt/authors.xml"] {
        let Ok(Some(xml)) = zip.read(part) else {
            continue;
        };
        let mut reader = Reader::from_reader(xml.as_slice());
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) | Ok(Event::Empty(e))
                    if matches!(e.local_name().as_ref(), b"cmAuthor" | b"author") =>
                {
                    let id = shapes::attr(&e, b"id").unwrap_or_default();
                    let name = shapes::attr(&e, b"name").unwrap_or_default();
                    let label = match shapes::attr(&e, b"initials").filter(|i| !i.is_empty()) {
                        Some(i) => format!("{name} ({i})"),
                        None => name,
                    };
                    out.insert(id, label);
                }
                Ok(Event::Eof) | Err(_) => break,
                _ => {}
            }
        }
    }
    out
}

/// (author id, text) of each comment in a comments part.
fn read_comments(xml: &[u8]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut reader = Reader::from_reader(xml);
    let mut in_text = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => match e.local_name().as_ref() {
                b"cm" => out.push((
                    shapes::attr(&e, b"authorId").unwrap_or_default(),
                    String::new(),
                )),
                b"text" | b"t" => in_text = true,
                b"p" => {
                    if let Some((_, t)) = out.last_mut() {
                        if !t.is_empty() {
                            t.push(' ');
                        }
                    }
                }
                _ => {}
            },
            Ok(Event::Text(t)) if in_text => {
                if let (Some((_, s)), Ok(t)) = (out.last_mut(), t.unescape()) {
                    s.push_str(&t);
                }
            }
            Ok(Event::End(e)) if matches!(e.local_name().as_ref(), b"text" | b"t") => {
                in_text = false
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out.retain(|(_, t)| !t.trim().is_empty());
    out
}
