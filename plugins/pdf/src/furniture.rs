//! Running headers and footers: lines in the top or bottom band of a page that repeat on
//! other pages (digits ignored), or that are just a page number.
//!
//! They are kept (a user may want "Confidential — page 3") but taken out before the column
//! detector runs, so a header above one column is not read in the middle of the body.
//! The header goes first on the page and the footer last, and neither can be a heading.

use crate::layout::Item;
use std::collections::HashMap;

/// Share of the page height at the top and at the bottom where headers and footers live.
const BAND: f32 = 0.09;

/// A page's items before furniture is taken out, with the page height.
pub struct PageItems<'a> {
    pub items: &'a [Item],
    pub height: f32,
}

/// For every page, which items are header or footer: `(item indices at the top, at the bottom)`.
pub fn detect(pages: &[PageItems<'_>]) -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut keyed: Vec<Vec<(usize, bool, String)>> = Vec::with_capacity(pages.len());
    for page in pages {
        let mut seen_here: Vec<String> = Vec::new();
        let mut cands = Vec::new();
        for (i, item) in page.items.iter().enumerate() {
            let Item::Run(run) = item else { continue };
            let top = run.rect.y1 <= page.height * BAND;
            let bottom = run.rect.y0 >= page.height * (1.0 - BAND);
            if !(top || bottom) || run.chars > 200 {
                continue;
            }
            let key = normalize(&run.text());
            if key.is_empty() {
                continue;
            }
            if !seen_here.contains(&key) {
                seen_here.push(key.clone());
                *counts.entry(key.clone()).or_default() += 1;
            }
            cands.push((i, top, key));
        }
        keyed.push(cands);
    }
    let pages_n = pages.len();
    keyed
        .into_iter()
        .map(|cands| {
            let mut top = Vec::new();
            let mut bottom = Vec::new();
            for (i, is_top, key) in cands {
                let repeats = pages_n >= 2
                    && counts.get(&key).copied().unwrap_or(0) * 2 >= pages_n.max(2)
                    && counts.get(&key).copied().unwrap_or(0) >= 2;
                if repeats || is_page_number(&key) {
                    if is_top {
                        top.push(i);
                    } else {
                        bottom.push(i);
                    }
                }
            }
            (top, bottom)
        })
        .collect()
}

/// Lower case, digits as `#`, whitespace folded.
fn normalize(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .flat_map(char::to_lowercase)
        .collect();
    let folded = quire_plugin_api::text::fold_whitespace(&mapped);
    // "##" and "#" are the same page-number shape.
    let mut out = String::with_capacity(folded.len());
    for c in folded.chars() {
        if !(c == '#' && out.ends_with('#')) {
            out.push(c);
        }
    }
    out
}

/// "#", "- # -", "page #", "page # of #", "# / #", "ii".
fn is_page_number(key: &str) -> bool {
    let k = key.trim_matches(|c: char| c == '-' || c == '–' || c == ' ' || c == '|');
    matches!(
        k,
        "#" | "page #" | "page # of #" | "# of #" | "# / #" | "#/#" | "p. #"
    ) || (!k.is_empty() && k.len() <= 5 && k.chars().all(|c| matches!(c, 'i' | 'v' | 'x')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers() {
        assert!(is_page_number(&normalize("12")));
        assert!(is_page_number(&normalize("- 3 -")));
        assert!(is_page_number(&normalize("Page 3 of 10")));
        assert!(is_page_number(&normalize("iv")));
        assert!(!is_page_number(&normalize("Introduction")));
    }
}
