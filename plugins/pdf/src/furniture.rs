//! Running headers and footers: lines in the top or bottom band of a page that repeat on
//! other pages (digits ignored; on half the pages, or on at least three), or that are just a
//! page number.
//!
//! They are left out of the text: repeated on every page they are noise to a reader or a
//! retrieval index, and they would interrupt paragraphs that run over a page break.

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
///
/// A line in a band is furniture when it repeats on other pages (digits ignored), when it is
/// a page number, when it carries the page's own number beside a few words ("Acme Ltd | 3")
/// or stands apart from the body on the line of a page number,
/// or, at the top of a one-page document, when it is set smaller than the body text (a running
/// head there has nothing to repeat on). In a document of several pages a line at the top that
/// does not repeat is content: a running head repeats, a title or a note on one page does not.
pub fn detect(pages: &[PageItems<'_>], body_size: f32) -> Vec<(Vec<usize>, Vec<usize>)> {
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
        .zip(pages)
        .enumerate()
        .map(|(index, (cands, page))| {
            let mut top = Vec::new();
            let mut bottom = Vec::new();
            for (i, is_top, key) in cands {
                // On half the pages, or on three of a longer document: books and reports
                // change their running heads and footers by part (front matter, chapters).
                let count = counts.get(&key).copied().unwrap_or(0);
                let repeats = pages_n >= 2 && count >= 2 && (count * 2 >= pages_n || count >= 3);
                let Item::Run(run) = &page.items[i] else {
                    continue;
                };
                let text = run.text();
                let words = text.split_whitespace().count();
                // Above the body and apart from it: set smaller than the body, or at most at
                // body size, plain, short and followed by a gap of more than a blank line.
                let gap_below = page
                    .items
                    .iter()
                    .filter_map(|other| match other {
                        Item::Run(o) if o.rect.y0 >= run.rect.y1 - 0.1 => {
                            Some(o.rect.y0 - run.rect.y1)
                        }
                        _ => None,
                    })
                    .reduce(f32::min)
                    .unwrap_or(0.0);
                // The nearest line above or below (its run nearest in height): (gap, size);
                // lines set tight can touch or overlap a little (a negative gap).
                let nearest = |below: bool| {
                    let c = run.rect.center_y();
                    page.items
                        .iter()
                        .filter_map(|other| match other {
                            Item::Run(o) => {
                                let d = o.rect.center_y() - c;
                                let other_line = if below { d } else { -d } > 0.5 * run.size;
                                other_line.then_some((d.abs(), o))
                            }
                            _ => None,
                        })
                        .min_by(|x, y| x.0.total_cmp(&y.0))
                        .map(|(_, o)| {
                            let gap = if below {
                                o.rect.y0 - run.rect.y1
                            } else {
                                run.rect.y0 - o.rect.y1
                            };
                            (gap, o.size)
                        })
                };
                // Small type that runs on at its own size within a line's space above or below
                // (the rows of a table set smaller than the body, at the top of a page) is body.
                let close = |n: Option<(f32, f32)>| {
                    n.is_some_and(|(gap, size)| {
                        gap < 0.8 * run.size && (size - run.size).abs() <= 0.05 * run.size
                    })
                };
                let runs_on = close(nearest(true)) || close(nearest(false));
                let plain = run.words.iter().all(|w| !w.bold);
                let small_head = is_top
                    && pages_n == 1
                    && words <= 12
                    && !runs_on
                    && (run.size < 0.92 * body_size
                        || (run.size <= 1.02 * body_size
                            && plain
                            && words <= 10
                            && gap_below >= 1.5 * run.size));
                // A bare number in a row of other text that runs on into the next line is a
                // table cell (a table that goes on over the page break), not a page number.
                let same_line = |o: &crate::glyphs::Run| {
                    !std::ptr::eq(o, run)
                        && (o.rect.center_y() - run.rect.center_y()).abs() < 0.5 * run.size
                };
                let in_row = key == "#"
                    && runs_on
                    && page.items.iter().any(|other| match other {
                        Item::Run(o) if same_line(o) => {
                            let k = normalize(&o.text());
                            !k.is_empty()
                                && !is_page_number(&k)
                                && counts.get(&k).copied().unwrap_or(0) < 2
                        }
                        _ => false,
                    });
                // A few words apart from the body on the line of a page number ("208   Global
                // Study on Legal Aid"): the running title beside a printed page number, which
                // need not be the page's index (a book's pages cut out of it).
                // Apart: a line's height or more from the nearest line on the body's side;
                // the number set at about the line's size (not a fraction's numerator).
                let apart = nearest(is_top).is_none_or(|(gap, _)| gap >= run.size);
                let beside_number = words <= 10
                    && !runs_on
                    && apart
                    && run.size <= 1.05 * body_size
                    && !is_page_number(&key)
                    && page.items.iter().any(|other| match other {
                        Item::Run(o) if same_line(o) => {
                            o.size >= 0.8 * run.size && is_page_number(&normalize(&o.text()))
                        }
                        _ => false,
                    });
                // A list marker set apart from its item's text ("–" then the words): an
                // item that happens to open several pages, not a running head.
                let marker = || {
                    !key.chars().any(|c| c.is_alphanumeric() || c == '#')
                        && page.items.iter().any(|other| match other {
                            Item::Run(o) if same_line(o) => o.rect.x0 >= run.rect.x1,
                            _ => false,
                        })
                };
                if ((repeats || is_page_number(&key)) && !in_row && !marker())
                    || (words <= 8
                        && run.size <= 1.05 * body_size
                        && carries_number(&text, index + 1))
                    || small_head
                    || beside_number
                {
                    if is_top {
                        top.push(i);
                    } else {
                        bottom.push(i);
                    }
                }
            }
            // A page whose text is mostly in its bands (the same short note on every page)
            // has no body for these lines to be furniture around.
            let (mut band_chars, mut body_chars) = (0usize, 0usize);
            for (i, item) in page.items.iter().enumerate() {
                if let Item::Run(run) = item {
                    if top.contains(&i) || bottom.contains(&i) {
                        band_chars += run.chars;
                    } else {
                        body_chars += run.chars;
                    }
                }
            }
            if band_chars >= body_chars {
                return (Vec::new(), Vec::new());
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

/// Whether a short line starts or ends with the page's own number ("Acme Ltd | 3", "3 Notes").
fn carries_number(text: &str, number: usize) -> bool {
    let n = number.to_string();
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '|' | '\u{2022}' | '\u{b7}'))
        .filter(|t| !t.is_empty())
        .collect();
    tokens.len() >= 2 && (tokens[0] == n || tokens[tokens.len() - 1] == n)
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

    use crate::geom::Rect;
    use crate::glyphs::Run;
    use crate::layout::Word;

    /// Pages of US letter height holding `items`.
    fn letter_pages<'a>(items: &[&'a [Item]]) -> Vec<PageItems<'a>> {
        items
            .iter()
            .map(|items| PageItems {
                items,
                height: 792.0,
            })
            .collect()
    }

    fn run(x: f32, y: f32, text: &str) -> Item {
        let rect = Rect::new(x, y, x + 6.0 * text.len() as f32, y + 10.0);
        Item::Run(Run {
            words: vec![Word {
                text: text.to_string(),
                rect,
                size: 10.0,
                bold: false,
                italic: false,
                space_before: false,
            }],
            rect,
            baseline: y + 8.0,
            size: 10.0,
            rtl: false,
            chars: text.chars().count(),
        })
    }

    /// A line of body text across the page at `y`.
    fn body(y: f32) -> Item {
        run(50.0, y, "Plain body text that runs across the page")
    }

    #[test]
    fn a_list_marker_that_opens_several_pages_is_not_a_running_head() {
        // Three pages that each open with a dash item, the dash a run of its own; the
        // running head above repeats too and is furniture.
        let page = |item: &'static str| {
            vec![
                run(50.0, 20.0, "Annual Review"),
                run(50.0, 50.0, "\u{2013}"),
                run(70.0, 50.0, item),
                body(100.0),
                body(114.0),
            ]
        };
        let (p1, p2, p3) = (page("First"), page("Second"), page("Third"));
        let pages = letter_pages(&[&p1, &p2, &p3]);
        for (top, bottom) in detect(&pages, 10.0) {
            assert_eq!(top, vec![0]);
            assert!(bottom.is_empty());
        }
    }

    #[test]
    fn a_number_cell_at_the_top_of_a_page_is_not_a_page_number() {
        // Page 1 ends with its page number; page 2 starts with the rows of a table that went
        // on over the break, the first cell of each row a bare number.
        let page1 = vec![
            body(100.0),
            body(114.0),
            body(128.0),
            run(290.0, 760.0, "1"),
        ];
        let page2 = vec![
            run(50.0, 30.0, "17"),
            run(150.0, 30.0, "Alpha"),
            run(250.0, 30.0, "Red"),
            run(50.0, 44.0, "18"),
            run(150.0, 44.0, "Beta"),
            run(250.0, 44.0, "Blue"),
            body(100.0),
            body(114.0),
            body(128.0),
            run(290.0, 760.0, "2"),
        ];
        let pages = letter_pages(&[&page1, &page2]);
        let marks = detect(&pages, 10.0);
        assert_eq!(marks[0], (vec![], vec![3]));
        assert_eq!(
            marks[1],
            (vec![], vec![9]),
            "the cells stay, the page number goes"
        );
    }

    #[test]
    fn a_running_title_beside_a_printed_page_number_is_furniture() {
        // One page, two printed pages side by side (208 and 209 of a book): each footer is
        // its page number and a title on one line, apart from the body. A row at the bottom
        // of a table that ends in a number, close under the rows above it, stays.
        let page = vec![
            body(100.0),
            body(114.0),
            body(128.0),
            run(50.0, 730.0, "Total items"),
            run(250.0, 730.0, "12"),
            run(50.0, 744.0, "Total costs"),
            run(250.0, 744.0, "208"),
            run(50.0, 765.0, "208"),
            run(80.0, 765.0, "Global Study on Legal Aid"),
            run(400.0, 765.0, "Annex"),
            run(560.0, 765.0, "209"),
        ];
        let pages = letter_pages(&[&page]);
        let marks = detect(&pages, 10.0);
        assert_eq!(marks[0], (vec![], vec![7, 8, 9, 10]));
    }

    #[test]
    fn a_page_number_above_the_body_is_still_furniture() {
        let page = |n: &str| vec![run(290.0, 30.0, n), body(100.0), body(114.0), body(128.0)];
        let (p1, p2) = (page("1"), page("2"));
        let pages = letter_pages(&[&p1, &p2]);
        let marks = detect(&pages, 10.0);
        assert_eq!(marks[1], (vec![0], vec![]));
    }

    #[test]
    fn a_line_at_the_top_of_one_page_of_several_is_content() {
        // Two pages; only the first has a short line in its top band, set small and apart
        // from the body (a note, a date): it repeats nowhere, so it stays.
        let mut note = run(50.0, 30.0, "Draft for review");
        if let Item::Run(r) = &mut note {
            r.size = 8.0;
            r.words[0].size = 8.0;
        }
        let p1 = vec![note, body(100.0), body(114.0), body(128.0)];
        let p2 = vec![body(100.0), body(114.0), body(128.0)];
        let pages = letter_pages(&[&p1, &p2]);
        assert_eq!(detect(&pages, 10.0)[0], (vec![], vec![]));
        // The same line on a one-page document is still taken for its running head.
        let one = letter_pages(&[&p1]);
        assert_eq!(detect(&one, 10.0)[0], (vec![0], vec![]));
    }

    #[test]
    fn a_footer_of_one_part_of_a_long_document_is_furniture() {
        // Twelve pages: the front matter (pages 1-3) has its own footer, a chapter (pages
        // 4-12) another. A line of the bottom band on two pages only is content.
        let pages: Vec<Vec<Item>> = (1..=12)
            .map(|n| {
                let mut items = vec![body(100.0), body(114.0), body(128.0)];
                items.push(if n <= 3 {
                    run(
                        50.0,
                        760.0,
                        "© Copyright Acme Corp. 2014. All rights reserved.",
                    )
                } else {
                    run(50.0, 760.0, "Chapter 1. Securing the data")
                });
                if n == 5 || n == 9 {
                    items[0] = run(50.0, 740.0, "See the appendix for the full list");
                }
                items
            })
            .collect();
        let refs: Vec<&[Item]> = pages.iter().map(Vec::as_slice).collect();
        let marks = detect(&letter_pages(&refs), 10.0);
        for (n, (top, bottom)) in marks.iter().enumerate() {
            assert!(top.is_empty(), "page {}", n + 1);
            // Item 0 of pages 5 and 9 (a line in the band on two pages) stays.
            assert_eq!(bottom, &[3], "page {}", n + 1);
        }
    }

    #[test]
    fn page_numbers() {
        assert!(is_page_number(&normalize("12")));
        assert!(is_page_number(&normalize("- 3 -")));
        assert!(is_page_number(&normalize("Page 3 of 10")));
        assert!(is_page_number(&normalize("iv")));
        assert!(!is_page_number(&normalize("Introduction")));
    }

    #[test]
    fn the_pages_own_number_beside_a_name() {
        assert!(carries_number("Acme Ltd | 3", 3));
        assert!(carries_number("3 Annual Review", 3));
        assert!(!carries_number("Acme Ltd | 4", 3));
        assert!(!carries_number("3", 3));
    }
}
