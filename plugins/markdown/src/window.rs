//! Parsing large Markdown a window at a time, with exactly the events of one whole parse.
//!
//! pulldown-cmark builds the block tree of its whole input (a node of about 50 bytes per block
//! and per inline item) before it gives the first event: for 100 MB of prose with some
//! emphasis and links, about a gigabyte. Block structure is decided line by line, top to
//! bottom, and once a top-level block has ended, nothing after it can change it; inline
//! content is parsed per block. The only thing shared across blocks is the set of link
//! reference and footnote definitions (`[label]: …`, `[^label]: …`), and one look ahead:
//! with YAML metadata blocks enabled, a `---` line opens one when a `---` or `...` line
//! follows anywhere later.
//!
//! So a text without any `]:` is parsed a window of lines at a time. In each window, every
//! event before the start of the window's last top-level block is final (that block may be
//! cut by the window's end); the next window starts at the line where that block starts. A
//! window holding a single top-level block (a huge list or code block) grows until it holds
//! two or reaches the end, and one with a possible metadata opener before its last block
//! grows to the first possible closer after it (so the window's parse finds the same one).
//! A text with a `]:` anywhere, or no larger than a window, is parsed whole. (The converter
//! reads front matter itself and no longer enables metadata blocks; the look ahead stays for
//! any caller that does.) Each event comes with its offset in `source`, as one whole parse's
//! `into_offset_iter` gives it.

use pulldown_cmark::{Event, Options, Parser};
use quire_plugin_api::Result;

/// Bytes of text a window holds at first (it ends at the next line end).
pub const WINDOW: usize = 1 << 18;

/// Calls `f` with every event of parsing `source` with `options` and where in `source` it
/// starts, in order: the events of `Parser::new_ext(source, options)`, from windows of about
/// `window` bytes when that is exact (see the module notes).
pub fn for_each_event<'a>(
    source: &'a str,
    options: Options,
    window: usize,
    f: &mut dyn FnMut(Event<'a>, usize) -> Result<()>,
) -> Result<()> {
    if source.len() <= window || source.contains("]:") {
        for (event, range) in Parser::new_ext(source, options).into_offset_iter() {
            f(event, range.start)?;
        }
        return Ok(());
    }
    let closers = metadata_closers(source);
    let mut start = 0;
    let mut size = window.max(1);
    while start < source.len() {
        // The end of the line holding byte start + size (bytes: that may be inside a character).
        let from = start.saturating_add(size).min(source.len());
        let end = match source.as_bytes()[from..].iter().position(|&b| b == b'\n') {
            Some(i) => from + i + 1,
            None => source.len(),
        };
        let text = &source[start..end];
        if end == source.len() {
            for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
                f(event, start + range.start)?;
            }
            return Ok(());
        }
        let events: Vec<_> = Parser::new_ext(text, options).into_offset_iter().collect();
        let Some((last, offset)) = last_top_level_block(&events) else {
            size = size.saturating_mul(2);
            continue;
        };
        let line = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        if last == 0 || !text[line..offset].bytes().all(|b| b == b' ' || b == b'\t') {
            // One block so far (it may go on past the window), or a block that does not
            // start a line: take a larger window.
            size = size.saturating_mul(2);
            continue;
        }
        if let Some(opener) = last_metadata_opener(&text[..line]) {
            let after = start + opener;
            let next = closers.partition_point(|&c| c <= after);
            if let Some(&closer) = closers.get(next) {
                let closer_end = source[closer..]
                    .find('\n')
                    .map_or(source.len(), |i| closer + i);
                if closer_end >= end {
                    // Take the window to the end of that closer's line.
                    size = closer_end - start;
                    continue;
                }
            }
        }
        for (event, range) in events.into_iter().take(last) {
            f(event, start + range.start)?;
        }
        start += line;
        size = window.max(1);
    }
    Ok(())
}

/// Where each line that could close a YAML metadata block starts: `---` or `...` at the start
/// of a line, then only spaces (pulldown-cmark's test, or a wider one).
fn metadata_closers(source: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r', ' ']);
        if body == "---" || body == "..." {
            out.push(at);
        }
        at += line.len();
    }
    out
}

/// The start of the last line of `text` that could open a YAML metadata block: three dashes
/// and only whitespace after them (after any container markers: a wider test than
/// pulldown-cmark's).
fn last_metadata_opener(text: &str) -> Option<usize> {
    let mut end = text.len();
    while end > 0 {
        let start = text[..end - 1].rfind('\n').map_or(0, |i| i + 1);
        let body = text[start..end].trim_end();
        if let Some(rest) = body.strip_suffix("---") {
            if !rest.ends_with('-') {
                return Some(start);
            }
        }
        end = start;
    }
    None
}

/// The index and byte offset of the first event of the last top-level block.
fn last_top_level_block(events: &[(Event<'_>, std::ops::Range<usize>)]) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut last = None;
    for (i, (event, range)) in events.iter().enumerate() {
        match event {
            Event::Start(_) => {
                if depth == 0 {
                    last = Some((i, range.start));
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ if depth == 0 => last = Some((i, range.start)),
            _ => {}
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTIONS: Options = Options::ENABLE_TABLES
        .union(Options::ENABLE_STRIKETHROUGH)
        .union(Options::ENABLE_TASKLISTS)
        .union(Options::ENABLE_FOOTNOTES)
        .union(Options::ENABLE_YAML_STYLE_METADATA_BLOCKS);

    /// Each event with where it starts.
    fn windowed(source: &str, window: usize) -> Vec<(Event<'_>, usize)> {
        let mut out = Vec::new();
        for_each_event(source, OPTIONS, window, &mut |e, at| {
            out.push((e, at));
            Ok(())
        })
        .unwrap();
        out
    }

    /// Blocks whose extent depends on what follows them: fences and HTML blocks that span
    /// blank lines, lists that go on after blank lines (loose) or stop, lazy continuation,
    /// setext underlines, tables, quotes, indented code, `---` that could open a metadata
    /// block, thematic breaks that look like list items, and unclosed constructs.
    const SNIPPETS: &[&str] = &[
        "# Heading with *emphasis*",
        "A paragraph with **bold**, `code`, [a link](http://x.y \"t\") and ~~strike~~.",
        "A paragraph\nover two lines\nand a third.",
        "Setext heading\n===",
        "Another\n---",
        "---\ntitle: not front matter\n---",
        "```\ncode\n\nwith a blank line\n```",
        "~~~rust\nfn main() {}\n\n\n~~~",
        "```\nunclosed fence\n\nruns on",
        "    indented code\n\n    after a blank",
        "<!-- a comment\n\nwith a blank line -->",
        "<pre>\npre\n\ntext\n</pre>",
        "<div>\nhtml block\n</div>",
        "- item one\n- item two",
        "- loose one\n\n- loose two\n\n  continued",
        "1. first\n2. second\n\n3. third",
        "7) seven\n8) eight",
        "* * *",
        "***",
        "- [ ] task\n- [x] done",
        "> quote\nlazy continuation\n\n> another quote",
        "> ```\n> fence in quote\n\nafter",
        "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |",
        "| not | a table |",
        "Text with a footnote reference[^1] and <span>inline html</span> &amp; &copy;.",
        "- item\n\n  ```\n  code in item\n\n  more\n  ```\n\nafter",
        "  indented paragraph",
        "<script>\nlet x = 1;\n\nlet y = 2;\n</script>",
        "text *open emphasis\n\nclosed later*",
        "\\# not a heading",
        "+ plus list\n+ plus",
        "1. a\n   - nested\n     - deeper\n\n   back in a",
        "...",
        "---",
        "> ---\n> quoted after a rule",
        "- ---\n- item",
        "Para before a rule\n\n---\nright after it",
        "Ünïcödé — ☃ and \u{a0}non-breaking spaces, 日本語のテキスト.",
    ];

    /// A seeded mix of the snippets with one, two or three line ends between them.
    fn document(seed: u64, blocks: usize) -> String {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        let mut out = String::new();
        for _ in 0..blocks {
            out.push_str(SNIPPETS[next() % SNIPPETS.len()]);
            out.push_str(["\n", "\n\n", "\n\n\n"][next() % 3]);
        }
        out
    }

    #[test]
    fn windows_give_the_events_of_one_whole_parse() {
        for seed in 0..300 {
            let source = document(seed, 60);
            let whole: Vec<(Event<'_>, usize)> = Parser::new_ext(&source, OPTIONS)
                .into_offset_iter()
                .map(|(e, r)| (e, r.start))
                .collect();
            for window in [1, 17, 64, 200, 1000] {
                let got = windowed(&source, window);
                if let Some(i) =
                    (0..got.len().max(whole.len())).find(|&i| got.get(i) != whole.get(i))
                {
                    panic!(
                        "seed {seed}, window {window}: event {i} is {:?}, whole parse {:?}\n{source}",
                        got.get(i),
                        whole.get(i)
                    );
                }
            }
        }
    }

    #[test]
    fn definitions_anywhere_mean_one_whole_parse() {
        let source =
            "[a][r] and a note[^n]\n\n".repeat(20) + "[r]: http://x.y\n\n[^n]: The note.\n";
        let whole: Vec<(Event<'_>, usize)> = Parser::new_ext(&source, OPTIONS)
            .into_offset_iter()
            .map(|(e, r)| (e, r.start))
            .collect();
        assert!(whole
            .iter()
            .any(|(e, _)| matches!(e, Event::FootnoteReference(_))));
        assert_eq!(windowed(&source, 16), whole);
    }
}
