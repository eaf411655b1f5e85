//! What the layout, table and grid tests build their pages from.

use crate::geom::Rect;
use crate::glyphs::Run;
use crate::layout::{Item, Word};
use quire_plugin_api::{Inline, Table};

/// A run of words `per_char` pt a character with half that between words, 10 pt high,
/// starting at `x`, top at `y`.
pub fn run(x: f32, y: f32, text: &str, per_char: f32) -> Item {
    let mut words = Vec::new();
    let mut at = x;
    for t in text.split_whitespace() {
        let w = per_char * t.chars().count() as f32;
        words.push(Word {
            text: t.to_string(),
            rect: Rect::new(at, y, at + w, y + 10.0),
            size: 10.0,
            bold: false,
            italic: false,
            space_before: true,
        });
        at += w + per_char / 2.0;
    }
    Item::Run(Run {
        rect: Rect::new(x, y, at - per_char / 2.0, y + 10.0),
        words,
        baseline: y + 8.0,
        size: 10.0,
        rtl: false,
        chars: text.chars().count(),
    })
}

/// Each cell's first text, row by row.
pub fn cell_texts(t: &Table) -> Vec<Vec<String>> {
    t.rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| match c.content.first() {
                    Some(Inline::Text { text, .. }) => text.clone(),
                    _ => String::new(),
                })
                .collect()
        })
        .collect()
}
