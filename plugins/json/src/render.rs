//! The Markdown-facing view of a JSON tree, as document-model blocks.
//!
//! Rules, chosen so a person can read the result:
//! - an array whose items are all objects with scalar values becomes a table; the columns are
//!   the union of the keys in first-seen order, a missing key an empty cell;
//! - an array of scalars becomes a bullet list;
//! - object members holding objects or arrays become headings (down to level 6) over their
//!   content; scalar members gather in a "key: value" list;
//! - anything else nests as lists ("key:" with the value's items below).

use crate::parse::Node;
use quire_plugin_api::{Block, Cell, Inline, List, ListItem, Style, Table};
use std::collections::HashMap;

/// Blocks for the whole document.
pub fn blocks(root: &Node) -> Vec<Block> {
    let mut out = Vec::new();
    match root {
        Node::Object(members) => object_blocks(members, 1, &mut out),
        Node::Array(items) => array_blocks(items, 1, &mut out),
        scalar => out.push(Block::text(scalar_text(scalar))),
    }
    out
}

/// Display text of a scalar: strings as they are, numbers as written.
pub fn scalar_text(node: &Node) -> String {
    match node {
        Node::Null => "null".into(),
        Node::Bool(b) => b.to_string(),
        Node::Number(n) => n.clone(),
        Node::String(s) => s.clone(),
        Node::Array(items) if items.is_empty() => "[]".into(),
        Node::Object(members) if members.is_empty() => "{}".into(),
        Node::Array(_) | Node::Object(_) => String::new(),
    }
}

fn is_leaf(node: &Node) -> bool {
    match node {
        Node::Array(items) => items.is_empty(),
        Node::Object(members) => members.is_empty(),
        _ => true,
    }
}

fn object_blocks(members: &[(String, Node)], level: u8, out: &mut Vec<Block>) {
    if level > 6 {
        out.push(Block::List(object_list(members)));
        return;
    }
    let mut pending: Vec<ListItem> = Vec::new();
    for (key, value) in members {
        if is_leaf(value) || is_scalar_array(value) {
            pending.push(member_item(key, value));
            continue;
        }
        if !pending.is_empty() {
            out.push(bullets(std::mem::take(&mut pending)));
        }
        out.push(Block::heading(level, key.clone()));
        match value {
            Node::Object(inner) => object_blocks(inner, level + 1, out),
            Node::Array(items) => array_blocks(items, level + 1, out),
            _ => {}
        }
    }
    if !pending.is_empty() {
        out.push(bullets(pending));
    }
}

fn array_blocks(items: &[Node], _level: u8, out: &mut Vec<Block>) {
    if let Some(table) = flat_table(items) {
        out.push(Block::Table(table));
    } else if items.iter().all(is_leaf) {
        out.push(bullets(items.iter().map(leaf_item).collect()));
    } else {
        out.push(Block::List(array_list(items)));
    }
}

fn is_scalar_array(node: &Node) -> bool {
    matches!(node, Node::Array(items) if items.iter().all(is_leaf))
}

fn bullets(items: Vec<ListItem>) -> Block {
    Block::List(List {
        ordered: false,
        start: 1,
        items,
    })
}

fn item(blocks: Vec<Block>) -> ListItem {
    ListItem {
        blocks,
        checked: None,
    }
}

fn leaf_item(node: &Node) -> ListItem {
    item(vec![Block::text(scalar_text(node))])
}

/// `key: value` for leaves; `key:` over a nested list otherwise.
fn member_item(key: &str, value: &Node) -> ListItem {
    let label = Inline::styled(key.to_owned(), Style::BOLD);
    if is_leaf(value) {
        return item(vec![Block::Paragraph(vec![
            label,
            Inline::plain(format!(": {}", scalar_text(value))),
        ])]);
    }
    let nested = match value {
        Node::Object(members) => object_list(members),
        Node::Array(items) => array_list(items),
        _ => unreachable!("leaves handled above"),
    };
    item(vec![
        Block::Paragraph(vec![label, Inline::plain(":")]),
        Block::List(nested),
    ])
}

fn object_list(members: &[(String, Node)]) -> List {
    List {
        ordered: false,
        start: 1,
        items: members.iter().map(|(k, v)| member_item(k, v)).collect(),
    }
}

fn array_list(items: &[Node]) -> List {
    let ordered = !items.iter().all(is_leaf);
    List {
        ordered,
        start: 1,
        items: items
            .iter()
            .map(|v| match v {
                Node::Object(members) if !members.is_empty() => {
                    item(vec![Block::List(object_list(members))])
                }
                Node::Array(inner) if !inner.is_empty() => {
                    item(vec![Block::List(array_list(inner))])
                }
                leaf => leaf_item(leaf),
            })
            .collect(),
    }
}

/// A table when every item is a non-empty object whose values are all leaves.
fn flat_table(items: &[Node]) -> Option<Table> {
    if items.is_empty() {
        return None;
    }
    // Columns in first-seen order, with an index so wide tables stay linear.
    let mut columns: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for it in items {
        let Node::Object(members) = it else {
            return None;
        };
        if members.is_empty() || !members.iter().all(|(_, v)| is_leaf(v)) {
            return None;
        }
        for (k, _) in members {
            index.entry(k.as_str()).or_insert_with(|| {
                columns.push(k);
                columns.len() - 1
            });
        }
    }
    let mut rows = Vec::with_capacity(items.len() + 1);
    rows.push(columns.iter().map(|c| Cell::text(*c)).collect());
    for it in items {
        let Node::Object(members) = it else {
            return None;
        };
        let mut row: Vec<Cell> = (0..columns.len()).map(|_| Cell::text("")).collect();
        // In source order, so the last of duplicate keys wins, as in serde_json's Value.
        for (k, v) in members {
            if let Some(&i) = index.get(k.as_str()) {
                row[i] = Cell::text(scalar_text(v));
            }
        }
        rows.push(row);
    }
    Some(Table {
        header_rows: 1,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn render(text: &str) -> Vec<Block> {
        blocks(&parse(text, 512, &mut || Ok(())).unwrap())
    }

    #[test]
    fn flat_objects_become_a_table_with_union_of_keys() {
        let b = render(r#"[{"b":1,"a":"x"},{"a":"y","c":null}]"#);
        let [Block::Table(t)] = b.as_slice() else {
            panic!("{b:?}")
        };
        let text: Vec<Vec<String>> = t
            .rows
            .iter()
            .map(|r| r.iter().map(|c| crate::tests_text(&c.content)).collect())
            .collect();
        assert_eq!(
            text,
            vec![
                vec!["b", "a", "c"],
                vec!["1", "x", ""],
                vec!["", "y", "null"]
            ]
        );
        assert_eq!(t.header_rows, 1);
    }

    #[test]
    fn objects_become_headings_and_key_value_lists() {
        let b = render(r#"{"name":"n","inner":{"k":[1,2]},"list":[{"x":{"y":1}}]}"#);
        assert!(matches!(&b[0], Block::List(l) if l.items.len() == 1));
        assert_eq!(b[1], Block::heading(1, "inner"));
        assert!(matches!(&b[2], Block::List(_)));
        assert_eq!(b[3], Block::heading(1, "list"));
        assert!(matches!(&b[4], Block::List(l) if l.ordered));
    }

    #[test]
    fn scalars_and_deep_objects() {
        assert_eq!(render("42"), vec![Block::text("42")]);
        let deep = format!("{}1{}", r#"{"a":"#.repeat(10), "}".repeat(10));
        let b = render(&deep);
        assert_eq!(b.len(), 7);
        assert!(matches!(&b[6], Block::List(_)));
    }
}
