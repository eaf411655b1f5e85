//! SmartArt diagrams (`dgm:relIds r:dm` in a drawing): the text of the diagram's data part
//! as a bulleted list, shared by PPTX and DOCX. The data part is the diagram's content: its
//! points (`dgm:pt`) hold the texts, its connections (`dgm:cxn`, type `parOf` by default)
//! say which point is the child of which and in what order (`srcOrd`). The points are listed
//! in the order they were created, not the order the diagram shows (a node inserted later
//! comes last), so the list follows the connections from the document point down; a point no
//! connection reaches keeps its place at the end. The cached drawing (`dsp:` shapes) holds
//! the same text laid out, so it is not read as well.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use quire_plugin_api::{Block, List, ListItem};
use std::collections::HashMap;

#[derive(Debug, Default)]
struct Point {
    id: String,
    kind: String,
    text: String,
}

fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

/// The texts of a diagram data part with their depth (0 for the top level), in the order
/// the diagram shows them.
pub fn nodes(xml: &[u8]) -> Vec<(usize, String)> {
    let mut points: Vec<Point> = Vec::new();
    // parent id -> (order, child id)
    let mut children: HashMap<String, Vec<(i64, String)>> = HashMap::new();
    let mut reader = Reader::from_reader(xml);
    let mut cur: Option<Point> = None;
    let mut in_text = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => match e.local_name().as_ref() {
                b"pt" => {
                    cur = Some(Point {
                        id: attr(&e, b"modelId").unwrap_or_default(),
                        kind: attr(&e, b"type").unwrap_or_else(|| "node".into()),
                        text: String::new(),
                    })
                }
                b"t" => in_text = true,
                b"p" => {
                    if let Some(c) = cur.as_mut().filter(|c| !c.text.is_empty()) {
                        c.text.push(' ');
                    }
                }
                b"cxn" => connection(&e, &mut children),
                _ => {}
            },
            Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"pt" => points.push(Point {
                    id: attr(&e, b"modelId").unwrap_or_default(),
                    kind: attr(&e, b"type").unwrap_or_else(|| "node".into()),
                    text: String::new(),
                }),
                b"cxn" => connection(&e, &mut children),
                _ => {}
            },
            Ok(Event::Text(t)) if in_text => {
                if let (Some(c), Ok(t)) = (cur.as_mut(), t.unescape()) {
                    c.text.push_str(&t);
                }
            }
            Ok(Event::End(e)) => match e.local_name().as_ref() {
                b"t" => in_text = false,
                b"pt" => {
                    if let Some(mut c) = cur.take() {
                        c.text = c.text.split_whitespace().collect::<Vec<_>>().join(" ");
                        points.push(c);
                    }
                }
                _ => {}
            },
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    for list in children.values_mut() {
        list.sort_by_key(|(order, _)| *order);
    }
    let by_id: HashMap<&str, usize> = points
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i))
        .collect();
    let mut seen = vec![false; points.len()];
    let mut out = Vec::new();
    // Depth-first from each document point (the diagram's root), iteratively.
    let roots: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].kind == "doc")
        .collect();
    for root in roots {
        let mut stack = vec![(root, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let is_text = points[i].kind == "node" && !points[i].text.is_empty();
            if is_text {
                out.push((depth, points[i].text.clone()));
            }
            let next = if points[i].kind == "doc" {
                0
            } else {
                depth + usize::from(is_text)
            };
            if let Some(kids) = children.get(&points[i].id) {
                for (_, kid) in kids.iter().rev() {
                    if let Some(&k) = by_id.get(kid.as_str()) {
                        if !seen[k] {
                            stack.push((k, next));
                        }
                    }
                }
            }
        }
    }
    for (i, p) in points.iter().enumerate() {
        if !seen[i] && p.kind == "node" && !p.text.is_empty() {
            out.push((0, p.text.clone()));
        }
    }
    out
}

fn connection(e: &BytesStart<'_>, children: &mut HashMap<String, Vec<(i64, String)>>) {
    if attr(e, b"type").is_some_and(|t| t != "parOf") {
        return;
    }
    let (Some(src), Some(dest)) = (attr(e, b"srcId"), attr(e, b"destId")) else {
        return;
    };
    let order = attr(e, b"srcOrd")
        .and_then(|o| o.trim().parse().ok())
        .unwrap_or(0);
    children.entry(src).or_default().push((order, dest));
}

/// The texts of a diagram data part in the order the diagram shows them, without depth.
pub fn texts(xml: &[u8]) -> Vec<String> {
    nodes(xml).into_iter().map(|(_, t)| t).collect()
}

/// A diagram data part as a bulleted list, nested as its points are; `None` when it holds
/// no text.
pub fn list(xml: &[u8]) -> Option<Block> {
    to_list(nodes(xml))
}

/// The [`nodes`] of a diagram as a bulleted list, nested by depth.
pub fn to_list(nodes: Vec<(usize, String)>) -> Option<Block> {
    if nodes.is_empty() {
        return None;
    }
    let mut stack: Vec<List> = vec![new_list()];
    for (depth, text) in nodes {
        // Never deeper than one level below the current one.
        let depth = depth.min(stack.len());
        while stack.len() > depth + 1 {
            close(&mut stack);
        }
        if stack.len() == depth {
            if stack[depth - 1].items.is_empty() {
                stack[depth - 1].items.push(ListItem::default());
            }
            stack.push(new_list());
        }
        if let Some(top) = stack.last_mut() {
            top.items.push(ListItem {
                blocks: vec![Block::text(text)],
                checked: None,
            });
        }
    }
    while stack.len() > 1 {
        close(&mut stack);
    }
    stack.pop().map(Block::List)
}

fn new_list() -> List {
    List {
        ordered: false,
        start: 1,
        items: Vec::new(),
    }
}

fn close(stack: &mut Vec<List>) {
    if let Some(done) = stack.pop() {
        if let Some(item) = stack.last_mut().and_then(|l| l.items.last_mut()) {
            item.blocks.push(Block::List(done));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagram whose points were created out of order ("Ship" inserted first, "Plan" with
    /// its child "Budget" later): the list follows the connections.
    const DATA: &[u8] = br#"<dgm:dataModel xmlns:dgm="d" xmlns:a="a"><dgm:ptLst>
        <dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>
        <dgm:pt modelId="3"><dgm:t><a:p><a:r><a:t>Build &amp; ship</a:t></a:r></a:p></dgm:t></dgm:pt>
        <dgm:pt modelId="1"><dgm:t><a:p><a:r><a:t>Plan</a:t></a:r><a:r><a:t>ning</a:t></a:r></a:p>
          <a:p><a:r><a:t>phase</a:t></a:r></a:p></dgm:t></dgm:pt>
        <dgm:pt modelId="9" type="pres"/>
        <dgm:pt modelId="5" type="parTrans"><dgm:t><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>
        <dgm:pt modelId="2"><dgm:t><a:p><a:r><a:t>Budget</a:t></a:r></a:p></dgm:t></dgm:pt>
        <dgm:pt modelId="7"><dgm:t><a:p><a:r><a:t>Loose</a:t></a:r></a:p></dgm:t></dgm:pt>
        </dgm:ptLst><dgm:cxnLst>
        <dgm:cxn modelId="c1" srcId="0" destId="3" srcOrd="1" destOrd="0"/>
        <dgm:cxn modelId="c2" srcId="0" destId="1" srcOrd="0" destOrd="0"/>
        <dgm:cxn modelId="c3" srcId="1" destId="2" srcOrd="0" destOrd="0"/>
        <dgm:cxn modelId="c4" type="presOf" srcId="1" destId="9" srcOrd="0" destOrd="0"/>
        </dgm:cxnLst></dgm:dataModel>"#;

    #[test]
    fn points_follow_the_connections() {
        assert_eq!(
            nodes(DATA),
            vec![
                (0, "Planning phase".to_owned()),
                (1, "Budget".to_owned()),
                (0, "Build & ship".to_owned()),
                (0, "Loose".to_owned()),
            ]
        );
    }

    #[test]
    fn nested_list() {
        let Some(Block::List(top)) = list(DATA) else {
            panic!("no list");
        };
        assert_eq!(top.items.len(), 3);
        assert!(matches!(top.items[0].blocks.get(1), Some(Block::List(l)) if l.items.len() == 1));
        assert!(list(b"<dgm:dataModel/>").is_none());
    }
}
