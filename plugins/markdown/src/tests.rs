use super::*;
use quire_plugin_api::{Block, Inline, Input, List, Style};

fn convert(md: &str) -> Document {
    convert_bytes(md.as_bytes())
}

fn convert_bytes(bytes: &[u8]) -> Document {
    let input = Input {
        bytes,
        file_name: "a.md",
        mime: "text/markdown",
    };
    MarkdownConverter
        .convert(&input, &mut Context::new())
        .expect("markdown always converts")
}

fn blocks(doc: &Document) -> &[Block] {
    &doc.parts[0].blocks
}

#[test]
fn headings_paragraphs_and_title() {
    let doc = convert("Setext title\n============\n\n## Second\n\nSome *it* **bold** ~~gone~~ `code` [link](https://x.y \"The \\\"y\\\" site\").\nsoft\\\nhard\n");
    assert_eq!(doc.type_label, "Markdown Document");
    assert_eq!(doc.metadata.title.as_deref(), Some("Setext title"));
    let b = blocks(&doc);
    assert_eq!(b[0], Block::heading(1, "Setext title"));
    assert_eq!(b[1], Block::heading(2, "Second"));
    let Block::Paragraph(p) = &b[2] else {
        panic!("{:?}", b[2])
    };
    assert_eq!(p[0], Inline::plain("Some "));
    assert_eq!(p[1], Inline::styled("it", Style::ITALIC));
    assert_eq!(p[3], Inline::styled("bold", Style::BOLD));
    assert!(matches!(&p[5], Inline::Text { text, style } if text == "gone" && style.strike));
    assert_eq!(p[7], Inline::Code("code".into()));
    assert_eq!(
        p[9],
        Inline::link(
            "https://x.y",
            Some("The \"y\" site".into()),
            vec![Inline::plain("link")]
        )
    );
    assert_eq!(p[10], Inline::plain(". soft"));
    assert_eq!(p[11], Inline::Break);
    assert_eq!(p[12], Inline::plain("hard"));
}

#[test]
fn nested_lists_with_start_and_tasks() {
    let doc = convert("3. three\n4. four\n   - inner a\n   - [x] inner b\n\n- [ ] todo\n");
    let b = blocks(&doc);
    let Block::List(List {
        ordered: true,
        start: 3,
        items,
    }) = &b[0]
    else {
        panic!("{b:?}")
    };
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].blocks, vec![Block::text("three")]);
    let Block::List(inner) = &items[1].blocks[1] else {
        panic!("{:?}", items[1])
    };
    assert!(!inner.ordered);
    assert_eq!(inner.items[1].checked, Some(true));
    assert_eq!(inner.items[1].blocks, vec![Block::text("inner b")]);
    let Block::List(todo) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(todo.items[0].checked, Some(false));
}

#[test]
fn tables_code_quotes_and_rules() {
    let doc = convert(
        "| A | B |\n|---|:-:|\n| 1 | **2** |\n| x \\| y | |\n\n```rust title\nfn main() {}\n```\n\n    indented\n\n> quoted\n> > deeper\n\n---\n",
    );
    let b = blocks(&doc);
    let Block::Table(t) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(t.header_rows, 1);
    assert_eq!(t.rows.len(), 3);
    assert_eq!(t.rows[1][1].content, vec![Inline::styled("2", Style::BOLD)]);
    assert_eq!(t.rows[2][0].content, vec![Inline::plain("x | y")]);
    assert_eq!(
        b[1],
        Block::Code {
            language: Some("rust".into()),
            text: "fn main() {}".into()
        }
    );
    assert_eq!(
        b[2],
        Block::Code {
            language: None,
            text: "indented".into()
        }
    );
    assert_eq!(
        b[3],
        Block::Quote(vec![
            Block::text("quoted"),
            Block::Quote(vec![Block::text("deeper")])
        ])
    );
    assert_eq!(b[4], Block::Rule);
}

#[test]
fn images_footnotes_and_html() {
    let doc = convert(
        "![logo](data:image/png;base64,iVBORw0KGgo=)\n\nSee ![remote](https://e.x/a.png) and note[^n].\n\n[^n]: The note.\n\n<div align=\"center\">\n<b>raw</b>\n</div>\n\nInline <kbd>Ctrl</kbd><br>next <!-- hidden -->\n",
    );
    let b = blocks(&doc);
    let Block::Image(img) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(img.mime, "image/png");
    assert_eq!(img.name, "image1.png");
    assert_eq!(img.alt.as_deref(), Some("logo"));
    assert_eq!(img.data, b"\x89PNG\r\n\x1a\n");
    let Block::Paragraph(p) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(
        p[1],
        Inline::link("https://e.x/a.png", None, vec![Inline::plain("remote")])
    );
    assert_eq!(p[3], Inline::NoteRef("n".into()));
    // The HTML block reads as what it shows: the bold word, no markup.
    assert_eq!(
        b[2],
        Block::Paragraph(vec![Inline::styled("raw", Style::BOLD)])
    );
    let Block::Paragraph(p) = &b[3] else {
        panic!("{b:?}")
    };
    assert_eq!(p[0], Inline::plain("Inline Ctrl"));
    assert_eq!(p[1], Inline::Break);
    assert_eq!(p[2], Inline::plain("next"));
    assert_eq!(
        b.last(),
        Some(&Block::Note {
            label: "n".into(),
            blocks: vec![Block::text("The note.")]
        })
    );
}

#[test]
fn inline_html_tags_format_words_and_vanish() {
    let doc = convert(
        "Ta<u>ble</u> <b>bold</b> <EM>it</EM> <a href=\"https://e.x/\" title='T'>site</a> <x-tag>kept</x-tag> <b>open\n\nnext</b>\n",
    );
    let b = blocks(&doc);
    let Block::Paragraph(p) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(p[0], Inline::plain("Table "));
    assert_eq!(p[1], Inline::styled("bold", Style::BOLD));
    assert_eq!(p[3], Inline::styled("it", Style::ITALIC));
    assert_eq!(
        p[5],
        Inline::link(
            "https://e.x/",
            Some("T".into()),
            vec![Inline::plain("site")]
        )
    );
    assert_eq!(p[6], Inline::plain(" <x-tag>kept</x-tag> "));
    assert_eq!(p[7], Inline::styled("open", Style::BOLD));
    // a tag left open ends with its paragraph; a stray closing tag is dropped
    assert_eq!(b[1], Block::text("next"));
}

#[test]
fn front_matter_and_legacy_encoding() {
    let doc = convert("---\ntitle: \"From YAML\"\nauthor: Ann\n---\n# Heading\n");
    assert_eq!(doc.metadata.title.as_deref(), Some("From YAML"));
    assert_eq!(doc.metadata.author.as_deref(), Some("Ann"));
    assert_eq!(blocks(&doc), [Block::heading(1, "Heading")]);
    let doc = convert_bytes(b"# Gr\xfc\xdfe aus M\xfcnchen und K\xf6ln\n");
    assert_eq!(
        doc.metadata.title.as_deref(),
        Some("Grüße aus München und Köln")
    );
    assert_eq!(doc.metadata.extra["encoding"], "windows-1252");
}

#[test]
fn deep_nesting_is_flattened_not_overflowed() {
    let deep = ">".repeat(20_000) + " bottom\n";
    let doc = convert(&deep);
    let mut depth = 0;
    let mut blocks = blocks(&doc);
    while let [Block::Quote(inner)] = blocks {
        depth += 1;
        blocks = inner;
    }
    assert!(depth <= 128, "depth {depth}");
    assert_eq!(blocks, [Block::text("bottom")]);

    let lists: String = (0..300)
        .map(|i| format!("{}- x\n", "  ".repeat(i)))
        .collect();
    let _ = convert(&lists);
    let _ = convert(&("- ".repeat(20_000) + "x\n"));
    let _ = convert(&("1. > ".repeat(5_000) + "x\n"));
    let _ = convert(&"[".repeat(50_000));
    let _ = convert(&"*a **b ".repeat(20_000));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut x: u32 = 99;
    let alphabet = b"#*_`[]()!<>|-+=~\\\n :1.\t\"'h";
    let mut bytes = Vec::new();
    for _ in 0..50_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.push(alphabet[(x >> 16) as usize % alphabet.len()]);
    }
    let _ = convert_bytes(&bytes);
    let _ = convert_bytes(&[0xff, 0xfe, 0x00]);
}

#[test]
fn ocr_grounding_lines_are_layout_not_text() {
    // DeepSeek-OCR's Markdown: a `<|ref|>label<|/ref|><|det|>[[box]]<|/det|>` line before each
    // block. The lines go; the blocks and prose that merely mentions the tokens stay.
    let doc = convert(
        "<|ref|>title<|/ref|><|det|>[[171, 101, 825, 150]]<|/det|>\n# DocLayNet\n\n\
         <|ref|>text<|/ref|><|det|>[[143, 164, 311, 227]]<|/det|>\nBirgit Pfitzmann\n\n\
         <|ref|>table<|/ref|><|det|>[[1, 2, 3, 4], [5, 6, 7, 8]]<|/det|>\n\
         The token <|det|> opens a box.\n",
    );
    let b = blocks(&doc);
    assert_eq!(b[0], Block::heading(1, "DocLayNet"));
    assert_eq!(b[1], Block::text("Birgit Pfitzmann"));
    assert_eq!(b.len(), 3, "{b:?}");
    let Block::Paragraph(p) = &b[2] else {
        panic!("{b:?}")
    };
    let text: String = p
        .iter()
        .map(|i| match i {
            Inline::Text { text, .. } => text.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(text, "The token <|det|> opens a box.");
}

#[test]
fn html_blocks_read_as_their_content() {
    // A README's usual HTML: a centred logo and badge line, a table, a collapsed section,
    // a script; none of it may show as markup or as a code block.
    let doc = convert(concat!(
        "<p align=\"center\">\n  <img alt=\"Quire logo\" src=\"https://e.x/logo.png\" width=\"120\">\n</p>\n\n",
        "<h1 align=\"center\">Quire</h1>\n\n",
        "Intro with ![inline](data:image/png;base64,iVBORw0KGgo=).\n\n",
        "<table>\n<tr><th>Name</th><th>Value</th></tr>\n<tr><td>alpha</td><td>1</td></tr>\n</table>\n\n",
        "<details>\n<summary>More options</summary>\n\nHidden *text*.\n\n</details>\n\n",
        "<div><img alt=\"second\" src=\"data:image/png;base64,iVBORw0KGgo=\"></div>\n\n",
        "<script>alert(1)</script>\n\n",
        "- item\n\n  <p>in item</p>\n",
    ));
    assert_eq!(doc.metadata.title.as_deref(), Some("Quire"));
    let b = blocks(&doc);
    let shown = format!("{b:?}");
    assert!(!shown.contains("Code"), "{b:#?}");
    assert!(!shown.contains("alert"), "{b:#?}");
    assert!(!shown.contains("<"), "{b:#?}");
    assert_eq!(b[0], Block::text("Quire logo"));
    assert_eq!(
        b[1],
        Block::Heading {
            level: 1,
            content: vec![Inline::plain("Quire")]
        }
    );
    let Block::Table(t) = &b[3] else {
        panic!("{b:#?}")
    };
    assert_eq!(t.rows.len(), 2);
    assert_eq!(b[4], Block::text("More options"));
    let Block::Paragraph(p) = &b[5] else {
        panic!("{b:#?}")
    };
    assert_eq!(p[1], Inline::styled("text", Style::ITALIC));
    // The HTML block's image is numbered after the Markdown image before it.
    let Block::Image(img) = &b[6] else {
        panic!("{b:#?}")
    };
    assert_eq!(img.name, "image2.png");
    assert_eq!(img.alt.as_deref(), Some("second"));
    let Block::List(list) = &b[7] else {
        panic!("{b:#?}")
    };
    assert_eq!(list.items[0].blocks[1], Block::text("in item"));
    assert_eq!(b.len(), 8, "{b:#?}");
}
