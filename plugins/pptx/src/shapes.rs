//! A slide's shape tree (`p:spTree`) read into positioned shapes.
//!
//! A recursive-descent reader over quick-xml events, matching local names only so the
//! Transitional and Strict namespaces read alike. Group shapes are flattened: their children's
//! offsets are mapped through the group's transform (`a:off`/`a:ext` against
//! `a:chOff`/`a:chExt`), so reading order can be decided on slide coordinates. Markup
//! compatibility blocks (`mc:AlternateContent`) are read from one branch only: the first
//! `mc:Choice` we can read, else the `mc:Fallback`.

use crate::text::{self, Para};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quire_ooxml::Relationship;
use std::collections::HashMap;

/// Deepest nesting of groups and markup-compatibility blocks followed; deeper ones are
/// skipped, so hostile nesting cannot exhaust the stack.
const MAX_GROUP_DEPTH: usize = 64;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placeholder {
    /// `type` attribute (`title`, `ctrTitle`, `body`, `ftr`...); "obj" when absent.
    pub kind: String,
    pub idx: Option<String>,
}

#[derive(Debug)]
pub enum Content {
    Text(Vec<Para>),
    Table {
        rows: Vec<Vec<TableCell>>,
        first_row: bool,
    },
    Picture {
        embed: Option<String>,
        descr: Option<String>,
        /// For an embedded workbook or document shown as its content (`p:oleObj`, not an
        /// icon): the relationship of its part, converted in the picture's place when the
        /// host can.
        object: Option<String>,
    },
    Chart {
        rid: String,
    },
    /// SmartArt: the relationship id of its data part (`dgm:relIds r:dm`).
    Diagram {
        rid: String,
    },
}

#[derive(Debug)]
pub struct TableCell {
    pub paras: Vec<Para>,
    pub colspan: u32,
    pub rowspan: u32,
    /// Covered by a merge (hMerge/vMerge): not emitted.
    pub covered: bool,
}

#[derive(Debug)]
pub struct Shape {
    pub placeholder: Option<Placeholder>,
    /// Offset in slide EMU, when the shape (or its layout placeholder) has one.
    pub pos: Option<(i64, i64)>,
    pub content: Content,
    /// The text body's own list style (`a:lstStyle`), when it says anything of bullets or
    /// margins.
    pub levels: Option<Box<text::Levels>>,
}

/// An affine map from a group's child coordinates to its parent's.
#[derive(Debug, Clone, Copy)]
struct Transform {
    off: (f64, f64),
    scale: (f64, f64),
    ch_off: (f64, f64),
}

impl Transform {
    const IDENTITY: Transform = Transform {
        off: (0.0, 0.0),
        scale: (1.0, 1.0),
        ch_off: (0.0, 0.0),
    };

    fn apply(&self, (x, y): (i64, i64)) -> (i64, i64) {
        (
            (self.off.0 + (x as f64 - self.ch_off.0) * self.scale.0) as i64,
            (self.off.1 + (y as f64 - self.ch_off.1) * self.scale.1) as i64,
        )
    }

    fn then(&self, outer: &Transform) -> Transform {
        // outer(inner(p)) as one transform
        let off = outer.apply((self.off.0 as i64, self.off.1 as i64));
        Transform {
            off: (off.0 as f64, off.1 as f64),
            scale: (self.scale.0 * outer.scale.0, self.scale.1 * outer.scale.1),
            ch_off: self.ch_off,
        }
    }
}

pub fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

fn attr_i64(e: &BytesStart<'_>, local: &[u8]) -> Option<i64> {
    attr(e, local).and_then(|v| v.trim().parse().ok())
}

/// Reads every shape of a slide, layout or notes part, in document order.
pub fn read_shapes(xml: &[u8], rels: &HashMap<String, Relationship>) -> Vec<Shape> {
    let mut reader = Reader::from_reader(xml);
    let mut out = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.local_name().as_ref() == b"spTree" => {
                read_tree(&mut reader, &Transform::IDENTITY, rels, &mut out, 0);
                break;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}

/// Reads children of `spTree` or `grpSp` until the closing tag.
fn read_tree(
    reader: &mut Reader<&[u8]>,
    tf: &Transform,
    rels: &HashMap<String, Relationship>,
    out: &mut Vec<Shape>,
    depth: usize,
) {
    let mut tf = *tf;
    let outer = tf;
    loop {
        let e = match reader.read_event() {
            Ok(Event::Start(e)) => e,
            Ok(Event::End(_)) | Ok(Event::Eof) | Err(_) => return,
            _ => continue,
        };
        match e.local_name().as_ref() {
            b"grpSpPr" => {
                if let Some(inner) = read_group_xfrm(reader) {
                    tf = inner.then(&outer);
                }
            }
            b"grpSp" if depth < MAX_GROUP_DEPTH => {
                read_tree(reader, &tf, rels, out, depth + 1);
            }
            b"sp" | b"cxnSp" => {
                if let Some(s) = read_sp(reader, &e, &tf, rels) {
                    out.push(s);
                }
            }
            b"pic" => out.push(read_pic(reader, &e, &tf)),
            b"graphicFrame" => out.extend(read_frame(reader, &e, &tf, rels)),
            b"AlternateContent" if depth < MAX_GROUP_DEPTH => {
                read_alternate(reader, &tf, rels, out, depth);
            }
            _ => {
                let _ = reader.read_to_end(e.name());
            }
        }
    }
}

/// `mc:AlternateContent`: the first `mc:Choice` whose namespaces we read
/// (`quire_ooxml::reads_choice`), else the `mc:Fallback`, is read as shapes, the rest skipped.
fn read_alternate(
    reader: &mut Reader<&[u8]>,
    tf: &Transform,
    rels: &HashMap<String, Relationship>,
    out: &mut Vec<Shape>,
    depth: usize,
) {
    let mut done = false;
    loop {
        let e = match reader.read_event() {
            Ok(Event::Start(e)) => e,
            Ok(Event::End(_)) | Ok(Event::Eof) | Err(_) => return,
            _ => continue,
        };
        let readable = match e.local_name().as_ref() {
            b"Choice" => quire_ooxml::reads_choice(&attr(&e, b"Requires").unwrap_or_default()),
            b"Fallback" => true,
            _ => false,
        };
        if !done && readable {
            done = true;
            read_tree(reader, tf, rels, out, depth + 1);
        } else {
            let _ = reader.read_to_end(e.name());
        }
    }
}

/// Reads `a:xfrm` inside `p:grpSpPr`, consuming through the end of `grpSpPr`.
fn read_group_xfrm(reader: &mut Reader<&[u8]>) -> Option<Transform> {
    let (mut off, mut ext, mut ch_off, mut ch_ext) = (None, None, None, None);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                let pair =
                    |x: &[u8], y: &[u8]| Some((attr_i64(&e, x)? as f64, attr_i64(&e, y)? as f64));
                match e.local_name().as_ref() {
                    b"off" => off = pair(b"x", b"y"),
                    b"ext" => ext = pair(b"cx", b"cy"),
                    b"chOff" => ch_off = pair(b"x", b"y"),
                    b"chExt" => ch_ext = pair(b"cx", b"cy"),
                    _ => {}
                }
            }
            Ok(Event::End(e)) if e.local_name().as_ref() == b"grpSpPr" => break,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    let off = off?;
    let (ext, ch_ext) = (ext.unwrap_or((1.0, 1.0)), ch_ext.unwrap_or((1.0, 1.0)));
    let scale = |a: f64, b: f64| if b.abs() < 1.0 { 1.0 } else { a / b };
    Some(Transform {
        off,
        scale: (scale(ext.0, ch_ext.0), scale(ext.1, ch_ext.1)),
        ch_off: ch_off.unwrap_or(off),
    })
}

/// Reads `p:nvXxPr`'s `p:ph` and `p:cNvPr`; positions from `a:off`; text from `p:txBody`.
fn read_sp(
    reader: &mut Reader<&[u8]>,
    start: &BytesStart<'_>,
    tf: &Transform,
    rels: &HashMap<String, Relationship>,
) -> Option<Shape> {
    let end = start.name().as_ref().to_vec();
    let mut placeholder = None;
    let mut pos = None;
    let mut paras = Vec::new();
    let mut levels = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"ph" => {
                    placeholder = Some(Placeholder {
                        kind: attr(&e, b"type").unwrap_or_else(|| "obj".into()),
                        idx: attr(&e, b"idx"),
                    })
                }
                b"off" if pos.is_none() => {
                    if let (Some(x), Some(y)) = (attr_i64(&e, b"x"), attr_i64(&e, b"y")) {
                        pos = Some(tf.apply((x, y)));
                    }
                }
                b"txBody" => (paras, levels) = text::read_body_and_levels(reader, rels),
                _ => {}
            },
            Ok(Event::End(e)) if e.name().as_ref() == end.as_slice() => break,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    if paras.is_empty() && placeholder.is_none() {
        return None;
    }
    Some(Shape {
        placeholder,
        pos,
        content: Content::Text(paras),
        levels,
    })
}

fn read_pic(reader: &mut Reader<&[u8]>, start: &BytesStart<'_>, tf: &Transform) -> Shape {
    let end = start.name().as_ref().to_vec();
    let (mut embed, mut descr, mut pos) = (None, None, None);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"cNvPr" => {
                    descr = attr(&e, b"descr").filter(|d| !d.trim().is_empty());
                }
                b"blip" => {
                    embed = attr(&e, b"embed").or_else(|| attr(&e, b"link").map(|_| String::new()))
                }
                b"off" if pos.is_none() => {
                    if let (Some(x), Some(y)) = (attr_i64(&e, b"x"), attr_i64(&e, b"y")) {
                        pos = Some(tf.apply((x, y)));
                    }
                }
                _ => {}
            },
            Ok(Event::End(e)) if e.name().as_ref() == end.as_slice() => break,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    Shape {
        placeholder: None,
        pos,
        levels: None,
        content: Content::Picture {
            embed: embed.filter(|e| !e.is_empty()),
            descr,
            object: None,
        },
    }
}

/// `p:graphicFrame`: a table, a chart, SmartArt, an embedded object's preview picture, or
/// something else (skipped).
fn read_frame(
    reader: &mut Reader<&[u8]>,
    start: &BytesStart<'_>,
    tf: &Transform,
    rels: &HashMap<String, Relationship>,
) -> Option<Shape> {
    let end = start.name().as_ref().to_vec();
    let mut pos = None;
    let mut content = None;
    let mut object = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"off" if pos.is_none() => {
                    if let (Some(x), Some(y)) = (attr_i64(&e, b"x"), attr_i64(&e, b"y")) {
                        pos = Some(tf.apply((x, y)));
                    }
                }
                // a workbook, Word document or Equation Editor 3.0 formula shown as its
                // content (not an icon)
                b"oleObj" if object.is_none() => {
                    let shown = !matches!(attr(&e, b"showAsIcon").as_deref(), Some("1" | "true"));
                    let kind = attr(&e, b"progId").is_some_and(|p| {
                        quire_ooxml::embedded::converts(&p) || quire_ooxml::mtef::is_equation(&p)
                    });
                    if shown && kind {
                        object = attr(&e, b"id").filter(|i| !i.is_empty());
                    }
                }
                b"tbl" => {
                    content = Some(read_table(reader, rels));
                }
                b"chart" => {
                    if let Some(rid) = attr(&e, b"id") {
                        content = Some(Content::Chart { rid });
                    }
                }
                b"relIds" => {
                    if let Some(rid) = attr(&e, b"dm") {
                        content = Some(Content::Diagram { rid });
                    }
                }
                // An embedded or linked object (`p:oleObj`): its preview picture stands for
                // it, as PowerPoint shows it (the first one, from whichever branch of an
                // `mc:AlternateContent` carries it).
                b"blip" if content.is_none() => {
                    content = Some(Content::Picture {
                        embed: attr(&e, b"embed").filter(|e| !e.is_empty()),
                        descr: None,
                        object: None,
                    });
                }
                _ => {}
            },
            Ok(Event::End(e)) if e.name().as_ref() == end.as_slice() => break,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    let content = match (content, object) {
        (Some(Content::Picture { embed, descr, .. }), object) => Content::Picture {
            embed,
            descr,
            object,
        },
        (None, Some(object)) => Content::Picture {
            embed: None,
            descr: None,
            object: Some(object),
        },
        (content, _) => content?,
    };
    Some(Shape {
        placeholder: None,
        pos,
        content,
        levels: None,
    })
}

fn read_table(reader: &mut Reader<&[u8]>, rels: &HashMap<String, Relationship>) -> Content {
    let mut rows: Vec<Vec<TableCell>> = Vec::new();
    let mut first_row = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"tblPr" => {
                    first_row = attr(&e, b"firstRow").is_some_and(|v| v == "1" || v == "true")
                }
                b"tr" => rows.push(Vec::new()),
                b"tc" => {
                    let flag = |n: &[u8]| attr(&e, n).is_some_and(|v| v == "1" || v == "true");
                    let span = |n: &[u8]| {
                        attr(&e, n)
                            .and_then(|v| v.parse::<u32>().ok())
                            .unwrap_or(1)
                            .clamp(1, 1000)
                    };
                    let cell = TableCell {
                        paras: Vec::new(),
                        colspan: span(b"gridSpan"),
                        rowspan: span(b"rowSpan"),
                        covered: flag(b"hMerge") || flag(b"vMerge"),
                    };
                    if let Some(row) = rows.last_mut() {
                        row.push(cell);
                    }
                }
                b"txBody" => {
                    let paras = text::read_body(reader, rels);
                    if let Some(cell) = rows.last_mut().and_then(|r| r.last_mut()) {
                        cell.paras = paras;
                    }
                }
                _ => {}
            },
            Ok(Event::End(e)) if e.local_name().as_ref() == b"tbl" => break,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    Content::Table { rows, first_row }
}
