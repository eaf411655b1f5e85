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
    // The title is shown first, as pandoc and static-site generators show it.
    assert_eq!(
        blocks(&doc),
        [Block::heading(1, "From YAML"), Block::heading(1, "Heading")]
    );
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

/// The plain text of a table's rows, cell by cell.
fn table_rows(block: &Block) -> Vec<Vec<String>> {
    let Block::Table(t) = block else {
        panic!("not a table: {block:?}")
    };
    t.rows
        .iter()
        .map(|r| r.iter().map(|c| builder::plain_text(&c.content)).collect())
        .collect()
}

#[test]
fn front_matter_title_is_the_first_heading_and_only_at_the_start() {
    // pandoc reads `title:` as the document's title, which every writer shows first.
    let doc = convert("---\ntitle: \"A *pandoc* title\"\nauthor:\n- Ann\n...\n\nBody text.\n");
    assert_eq!(doc.metadata.title.as_deref(), Some("A pandoc title"));
    let b = blocks(&doc);
    let Block::Heading { level: 1, content } = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(content[1], Inline::styled("pandoc", Style::ITALIC));
    assert_eq!(builder::plain_text(content), "A pandoc title");
    assert_eq!(b[1], Block::text("Body text."));
    assert_eq!(b.len(), 2, "{b:?}");
    // The same title as the first heading of the body is not repeated (Jekyll, Obsidian).
    let doc = convert("---\ntitle: Notes\n---\n# Notes\n\ntext\n");
    assert_eq!(blocks(&doc)[0], Block::heading(1, "Notes"));
    assert_eq!(blocks(&doc).len(), 2);
    // A wrapped plain scalar is one title.
    let doc = convert("---\ntitle: A long title\n  wrapped here\nlang: en\n---\n");
    assert_eq!(
        doc.metadata.title.as_deref(),
        Some("A long title wrapped here")
    );
    // pandoc's older title block: `%` lines at the start.
    let doc = convert("% Title over\n  two lines\n% Ann; Bob\n% 2026\n\nBody.\n");
    assert_eq!(doc.metadata.title.as_deref(), Some("Title over two lines"));
    assert_eq!(doc.metadata.author.as_deref(), Some("Ann; Bob"));
    assert_eq!(blocks(&doc)[0], Block::heading(1, "Title over two lines"));
    assert_eq!(blocks(&doc)[1], Block::text("Body."));
    // Later `---` … `---` is a rule and a setext heading (CommonMark), never metadata.
    let doc = convert("Intro.\n\n---\ntitle: body\n---\n\nEnd.\n");
    let b = blocks(&doc);
    assert_eq!(b[1], Block::Rule, "{b:?}");
    assert_eq!(b[2], Block::heading(2, "title: body"));
    assert_eq!(doc.metadata.title.as_deref(), Some("title: body"));
    // Three dashes around text that is not a YAML mapping are CommonMark too.
    let doc = convert("---\nFoo\n---\nBar\n");
    let b = blocks(&doc);
    assert_eq!(b[0], Block::Rule, "{b:?}");
    assert_eq!(b[1], Block::heading(2, "Foo"));
}

#[test]
fn pandoc_simple_tables_with_captions() {
    let doc = convert(concat!(
        "Before.\n\n",
        "  Right     Left     Default\n",
        "  -------   ------   -------------\n",
        "       12   *a* b    x | y\n",
        "      123   c        \n\n",
        "  : The caption.\n\n",
        "After.\n"
    ));
    let b = blocks(&doc);
    assert_eq!(b[0], Block::text("Before."));
    assert_eq!(
        table_rows(&b[1]),
        [
            ["Right", "Left", "Default"],
            ["12", "a b", "x | y"],
            ["123", "c", ""]
        ]
    );
    let Block::Table(t) = &b[1] else {
        unreachable!()
    };
    assert_eq!(t.header_rows, 1);
    assert_eq!(t.rows[1][1].content[0], Inline::styled("a", Style::ITALIC));
    assert_eq!(b[2], Block::text("The caption."));
    assert_eq!(b[3], Block::text("After."));
    // A right-aligned header further in than its dashes; a caption with attributes.
    let doc = convert(concat!(
        "    Right Left\n",
        "  ------- ------\n",
        "       12 12\n\n",
        "  : Caption. {#t source=\"x\"}\n"
    ));
    let b = blocks(&doc);
    assert_eq!(table_rows(&b[0]), [["Right", "Left"], ["12", "12"]]);
    assert_eq!(b[1], Block::text("Caption."));
    // Without a header: dashed lines above and below.
    let doc = convert("-----  -----\nx      y\nz      w\n-----  -----\n");
    let b = blocks(&doc);
    assert_eq!(table_rows(&b[0]), [["x", "y"], ["z", "w"]]);
    let Block::Table(t) = &b[0] else {
        unreachable!()
    };
    assert_eq!(t.header_rows, 0);
    assert_eq!(b.len(), 1, "{b:?}");
}

#[test]
fn pandoc_multiline_and_grid_tables() {
    let doc = convert(concat!(
        "Table: Before the table.\n\n",
        "  --------------------------------\n",
        "  Centered   Default\n",
        "  Header     aligned\n",
        "  ---------- ---------------------\n",
        "  First      Example of a row that\n",
        "             spans two lines.\n\n",
        "  Second     Another 日本 one.\n",
        "  --------------------------------\n\n",
        "+---------+--------------+\n",
        "| Fruit   | Price        |\n",
        "+=========+==============+\n",
        "| Bananas | $1.34 and\\   |\n",
        "|         | **more**     |\n",
        "+---------+--------------+\n",
        "| 日本    | x            |\n",
        "+---------+--------------+\n",
    ));
    let b = blocks(&doc);
    assert_eq!(b[0], Block::text("Before the table."));
    assert_eq!(
        table_rows(&b[1]),
        [
            ["Centered Header", "Default aligned"],
            ["First", "Example of a row that spans two lines."],
            ["Second", "Another 日本 one."]
        ]
    );
    assert_eq!(
        table_rows(&b[2]),
        [
            ["Fruit", "Price"],
            ["Bananas", "$1.34 and more"],
            ["日本", "x"]
        ]
    );
    let Block::Table(t) = &b[2] else {
        unreachable!()
    };
    assert_eq!(t.header_rows, 1);
    assert_eq!(b.len(), 3, "{b:?}");
    // A grid table without a header row, one cell spanning two columns.
    let doc =
        convert("+-----+-----+\n| a   | b   |\n+-----+-----+\n| wide      |\n+-----+-----+\n");
    let b = blocks(&doc);
    assert_eq!(table_rows(&b[0]), [["a", "b"], ["wide", ""]]);
    let Block::Table(t) = &b[0] else {
        unreachable!()
    };
    assert_eq!(t.header_rows, 0);
}

#[test]
fn commonmark_lookalikes_of_pandoc_tables_stay_commonmark() {
    // A rule after prose, dashes in a fence, an unfinished grid: none is a table.
    for md in [
        "Some words here\n- - -\nmore\n",
        "```\nA     B\n----- -----\n1     2\n```\n",
        "+---+---+\n| a | b\n",
        "Foo\n---\nbar\n",
    ] {
        let b = blocks(&convert(md)).to_vec();
        assert!(
            !b.iter().any(|x| matches!(x, Block::Table(_))),
            "{md:?}: {b:?}"
        );
    }
}

/// An ordered list's start and its items' first paragraphs as text.
fn ordered(block: &Block) -> (u64, Vec<String>) {
    let Block::List(List {
        ordered: true,
        start,
        items,
    }) = block
    else {
        panic!("not an ordered list: {block:?}")
    };
    let texts = items
        .iter()
        .map(|i| match i.blocks.first() {
            Some(Block::Paragraph(p)) => builder::plain_text(p),
            other => format!("{other:?}"),
        })
        .collect();
    (*start, texts)
}

#[test]
fn pandoc_fancy_list_markers() {
    let doc = convert(concat!(
        "a.  alpha\n",
        "b.  beta\n\n",
        "(3) three\n",
        "(4) four\n\n",
        "iv. four\n",
        "v.  five\n\n",
        "C)  see\n",
        "D)  dee\n\n",
        "#.  auto\n",
        "#.  again\n\n",
        "-   bullet\n",
        "    i.  nested roman\n",
        "    ii. second\n",
    ));
    let b = blocks(&doc);
    assert_eq!(ordered(&b[0]), (1, vec!["alpha".into(), "beta".into()]));
    assert_eq!(ordered(&b[1]), (3, vec!["three".into(), "four".into()]));
    assert_eq!(ordered(&b[2]), (4, vec!["four".into(), "five".into()]));
    assert_eq!(ordered(&b[3]), (3, vec!["see".into(), "dee".into()]));
    assert_eq!(ordered(&b[4]), (1, vec!["auto".into(), "again".into()]));
    let Block::List(bullets) = &b[5] else {
        panic!("{b:?}")
    };
    assert_eq!(
        ordered(&bullets.items[0].blocks[1]),
        (1, vec!["nested roman".into(), "second".into()])
    );
    assert_eq!(b.len(), 6, "{b:?}");
    // One item: pandoc's writer pads the marker to four columns, or a list is nested in it.
    let doc = convert("Text.\n\nb.  one item\n\nText.\n\nc. one with\n   - a sublist\n");
    let b = blocks(&doc);
    assert_eq!(ordered(&b[1]), (2, vec!["one item".into()]));
    assert_eq!(ordered(&b[3]), (3, vec!["one with".into()]));
    // A single nested item right under its parent item (pandoc's sublist).
    let doc = convert("1.  one\n    a.  sub\n2.  two\n");
    let b = blocks(&doc);
    let Block::List(outer) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(ordered(&outer.items[0].blocks[1]), (1, vec!["sub".into()]));
}

#[test]
fn prose_that_starts_like_a_fancy_marker_stays_prose() {
    // Initials need two spaces after a capital and a period; one lettered line alone, or a
    // line inside a paragraph, is not a list.
    for md in [
        "A. Smith and B. Jones wrote it.\n\nB. Jones again.\n",
        "a. lone line\n",
        "Text goes on\na. and on\nb. and on\n",
        "e.g. this\n\ni.e. that\n",
    ] {
        let b = blocks(&convert(md)).to_vec();
        assert!(
            !b.iter().any(|x| matches!(x, Block::List(_))),
            "{md:?}: {b:?}"
        );
    }
}

#[test]
fn pandoc_attributes_are_not_text() {
    let doc = convert(concat!(
        "# Intro [x]{.underline} {#intro .unnumbered}\n\n",
        "Vi[sel]{.underline} and [**bold** span]{#s .mark} and [a link](https://e.x){.ext}.\n\n",
        "Plain [brackets] and {braces} and `[code]{.c}` stay.\n",
    ));
    let b = blocks(&doc);
    assert_eq!(b[0], Block::heading(1, "Intro x"));
    let Block::Paragraph(p) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(builder::plain_text(p), "Visel and bold span and a link.");
    assert_eq!(p[1], Inline::styled("bold", Style::BOLD));
    let Block::Paragraph(p) = &b[2] else {
        panic!("{b:?}")
    };
    assert_eq!(
        builder::plain_text(p),
        "Plain [brackets] and {braces} and [code]{.c} stay."
    );
}

#[test]
fn hugo_toml_front_matter_is_metadata() {
    let doc = convert(concat!(
        "+++\n# a comment\ntitle = \"Hugo page\"\ndate = 2026-11-28\n",
        "authors = [\"Ann\", \"Bob\"]\n[params]\ntitle = \"not this\"\n+++\n\nBody.\n"
    ));
    assert_eq!(doc.metadata.title.as_deref(), Some("Hugo page"));
    assert_eq!(doc.metadata.created.as_deref(), Some("2026-11-28"));
    assert_eq!(doc.metadata.author.as_deref(), Some("Ann, Bob"));
    let b = blocks(&doc);
    assert_eq!(b, [Block::heading(1, "Hugo page"), Block::text("Body.")]);
    // `+++` around prose is CommonMark's text.
    let doc = convert("+++\nJust text\n+++\n");
    assert!(format!("{:?}", blocks(&doc)).contains("Just text"));
}

#[test]
fn definition_lists_superscript_and_subscript_lose_their_markers() {
    // pandoc's and PHP Markdown Extra's definition lists: the term is a bold paragraph and each
    // definition its blocks, as `<dt>` and `<dd>` read; `^…^` and `~…~` are pandoc's raised
    // and lowered text, `~~…~~` still strikethrough.
    let doc = convert(
        "Apple\n:   A red fruit.\n\n    Grown in orchards.\n\nPear\n: Green.\n\nH~2~O and x^2^ are ~~gone~~.\n",
    );
    let b = blocks(&doc);
    assert_eq!(
        b,
        [
            Block::Paragraph(vec![Inline::styled("Apple", Style::BOLD)]),
            Block::text("A red fruit."),
            Block::text("Grown in orchards."),
            Block::Paragraph(vec![Inline::styled("Pear", Style::BOLD)]),
            Block::text("Green."),
            Block::Paragraph(vec![
                Inline::plain("H2O and x2 are "),
                Inline::styled(
                    "gone",
                    Style {
                        strike: true,
                        ..Style::PLAIN
                    }
                ),
                Inline::plain("."),
            ]),
        ],
        "{b:#?}"
    );
    // A colon line with no term above it stays text, and so do carets and tildes that pair
    // over white space or a path.
    let doc = convert(": not a definition\n");
    assert_eq!(blocks(&doc), [Block::text(": not a definition")]);
    let doc = convert("2^10 is 1024 and 3^5 is 243; C:\\PROGRA~1\\MICROS~1 and a^b^c and `x^2^`\n");
    assert_eq!(
        blocks(&doc),
        [Block::Paragraph(vec![
            Inline::plain("2^10 is 1024 and 3^5 is 243; C:\\PROGRA~1\\MICROS~1 and abc and "),
            Inline::Code("x^2^".into()),
        ])]
    );
}

#[test]
fn a_grid_tables_caption_is_no_definition_when_the_table_stays_text() {
    // pandoc's `tables/planets`: a grid table with row spans stays text, and its `: caption`
    // line is the caption's paragraph, not a definition of the table's text as its term.
    let doc = convert(
        "+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n+   +---+\n|   | 3 |\n+---+---+\n\n: Planets.\n",
    );
    let b = blocks(&doc);
    assert_eq!(b.last(), Some(&Block::text("Planets.")), "{b:#?}");
    assert!(
        b.iter().all(|b| !matches!(b, Block::Paragraph(p) if p.iter().any(|i| matches!(i, Inline::Text { style, .. } if style.bold)))),
        "{b:#?}"
    );
}
