//! Converter-level tests on RTF written here.

use super::*;
use quire_plugin_api::{Block, ErrorKind, Inline};

fn convert(rtf: &[u8]) -> Result<Document> {
    let input = Input {
        bytes: rtf,
        file_name: "t.rtf",
        mime: "application/rtf",
    };
    RtfConverter.convert(&input, &mut Context::new())
}

fn blocks(rtf: &str) -> Vec<Block> {
    convert(rtf.as_bytes()).unwrap().parts.remove(0).blocks
}

fn text_of(inlines: &[Inline]) -> String {
    inlines
        .iter()
        .map(|i| match i {
            Inline::Text { text, .. } => text.clone(),
            Inline::Link(link) => text_of(&link.content),
            Inline::Break => "\n".into(),
            _ => String::new(),
        })
        .collect()
}

#[test]
fn paragraphs_styles_and_specials() {
    let b = blocks(
        r"{\rtf1\ansi{\fonttbl{\f0 Arial;}}{\colortbl;\red0\green0\blue0;}\pard Plain {\b bold} \i italic\i0  end\par
{\*\unknown hidden}caf\'e9 \emdash\~\lquote q\rquote\line next\par}",
    );
    let Block::Paragraph(p) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(text_of(p), "Plain bold italic end");
    assert!(p
        .iter()
        .any(|i| matches!(i, Inline::Text { text, style } if text == "bold" && style.bold)));
    assert!(p
        .iter()
        .any(|i| matches!(i, Inline::Text { text, style } if text == "italic" && style.italic)));
    let Block::Paragraph(p) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(text_of(p), "café —\u{a0}‘q’\nnext");
}

#[test]
fn code_pages_and_unicode() {
    let b = blocks(
        r"{\rtf1\ansi\ansicpg1251{\fonttbl{\f0\fcharset0 A;}{\f1\fcharset128 MS Gothic;}}\f0\'cf\'f0\'e8{\f1\'93\'fa\'96\'7b}\uc1\u8364?\u-10179\u-8694 ?x\par}",
    );
    assert_eq!(b[0], Block::text("При日本€😊x"));
}

#[test]
fn headings_from_styles_and_outline_levels() {
    let b = blocks(
        r"{\rtf1{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 Heading 2;}{\*\cs10 Default Paragraph Font;}}
\pard\s1 Title\par\pard\s2 Sub\par\pard\outlinelevel2 Deep\par\pard Body\par}",
    );
    assert_eq!(b[0], Block::heading(1, "Title"));
    assert_eq!(b[1], Block::heading(2, "Sub"));
    assert_eq!(b[2], Block::heading(3, "Deep"));
    assert_eq!(b[3], Block::text("Body"));
}

#[test]
fn styles_based_on_a_heading_are_headings() {
    let b = blocks(
        r"{\rtf1{\stylesheet{\s0 Normal;}{\s2\sbasedon0 heading 2;}{\s20\sbasedon2 Report Heading 2;}{\s21\sbasedon20 Report Heading 2 Red;}{\s22\sbasedon2\outlinelevel9 Quiet Heading;}{\s23\sbasedon0 Body Text;}{\s24\sbasedon24 Loop;}{\s25\sbasedon2 Contents Heading;}}
\pard\s20 Custom\par\pard\s21 Deeper chain\par\pard\s22 Says body\par\pard\s23 Body\par\pard\s24 Loop\par\pard\s25 Contents\par}",
    );
    assert_eq!(b[0], Block::heading(2, "Custom"));
    assert_eq!(b[1], Block::heading(2, "Deeper chain"));
    assert_eq!(b[2], Block::text("Says body"));
    assert_eq!(b[3], Block::text("Body"));
    assert_eq!(b[4], Block::text("Loop"));
    assert_eq!(b[5], Block::text("Contents"));
}

#[test]
fn lists_of_separate_overrides_nest_by_indent() {
    // As LibreOffice writes Word's "List Bullet", "List Bullet 2", "List Number 3": each
    // style its own list override at level 0, one indent step further.
    let b = blocks(
        r#"{\rtf1\pard{\listtext\'b7\tab}\ilvl0\ls1\li360 top\par
\pard{\listtext\'b7\tab}\ilvl0\ls2\li720 second\par
\pard{\listtext 1.\tab}\ilvl0\ls3\li1080 third\par
\pard{\listtext\'b7\tab}\ilvl0\ls2\li720 second again\par
\pard{\listtext\'b7\tab}\ilvl0\ls1\li360 top again\par
\pard{\listtext\'b7\tab}\ilvl1\ls1\li720 level one of top\par}"#,
    );
    let [Block::List(top)] = b.as_slice() else {
        panic!("{b:#?}")
    };
    assert_eq!(top.items.len(), 2, "{top:#?}");
    let Block::List(second) = &top.items[0].blocks[1] else {
        panic!("{top:#?}")
    };
    assert_eq!(second.items.len(), 2);
    assert!(matches!(&second.items[0].blocks[1], Block::List(third) if third.ordered));
    assert!(matches!(&top.items[1].blocks[1], Block::List(l) if l.items.len() == 1));
}

#[test]
fn indented_paragraphs_without_a_marker_continue_the_item() {
    let b = blocks(
        r#"{\rtf1\pard{\listtext\'b7\tab}\ilvl0\ls1\li360 top\par
\pard{\listtext\'b7\tab}\ilvl0\ls2\li720 second\par
\pard\li360 more of top\par
\pard{\listtext\'b7\tab}\ilvl0\ls2\li720 second again\par
\pard\li720 more of second again\par
\pard{\listtext\'b7\tab}\ilvl0\ls1\li360 top again\par
\pard after\par}"#,
    );
    let [Block::List(top), after] = b.as_slice() else {
        panic!("{b:#?}")
    };
    assert_eq!(after, &Block::text("after"));
    assert_eq!(top.items.len(), 2, "{top:#?}");
    let first = &top.items[0].blocks;
    assert!(
        matches!(&first[1], Block::List(l) if l.items.len() == 1),
        "{first:#?}"
    );
    assert_eq!(first[2], Block::text("more of top"));
    // the second list under "top" after its further paragraph, then "top again"
    let Block::List(second) = &first[3] else {
        panic!("{first:#?}")
    };
    assert_eq!(
        second.items[0].blocks[1],
        Block::text("more of second again")
    );
    assert_eq!(top.items[1].blocks, [Block::text("top again")]);
}

#[test]
fn a_wider_cell_spans_the_columns_its_edges_cover() {
    // LibreOffice writes a horizontally merged cell as one cell with a wider \cellx.
    let b = blocks(
        r"{\rtf1\trowd\cellx1000\cellx2000\cellx3000\pard\intbl a\cell b\cell c\cell\row
\trowd\cellx1000\cellx3005\pard\intbl\cell wide right\cell\row
\trowd\cellx2000\cellx3000\pard\intbl wide left\cell z\cell\row
\pard after\par}",
    );
    let Block::Table(t) = &b[0] else {
        panic!("{b:?}")
    };
    let spans: Vec<Vec<(String, u32)>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(|c| (text_of(&c.content), c.colspan)).collect())
        .collect();
    assert_eq!(
        spans,
        [
            vec![("a".into(), 1), ("b".into(), 1), ("c".into(), 1)],
            vec![("".into(), 1), ("wide right".into(), 2)],
            vec![("wide left".into(), 2), ("z".into(), 1)],
        ]
    );
}

#[test]
fn bytes_after_the_documents_last_brace_are_not_text() {
    let b = blocks("{\\rtf1\\ansi Body\\par\n}\r\n\u{fffd}8$DM\u{fffd}q junk");
    assert_eq!(b, [Block::text("Body")]);
    // A stray brace before more RTF still reads what follows it.
    let b = blocks("{\\rtf1\\ansi one\\par}} two\\par}");
    assert_eq!(b, [Block::text("one"), Block::text("two")]);
}

#[test]
fn nested_tables_fallback_text_is_not_read_twice() {
    // Word follows every nested row with `{\nonesttables …}`: the same cells as plain
    // paragraphs for readers that cannot nest tables.
    let b = blocks(
        r"{\rtf1\trowd\cellx5000
\pard\intbl\itap2 inner a\nestcell inner b\nestcell
{\*\nesttableprops\trowd\cellx2000\cellx4000\nestrow}{\nonesttables inner a\tab inner b\par}
\pard\intbl\itap1 outer\cell\row
\pard after\par}",
    );
    let Block::Table(t) = &b[0] else {
        panic!("{b:?}")
    };
    let text = text_of(&t.rows[0][0].content);
    assert_eq!(text.matches("inner a").count(), 1, "{text:?}");
    assert!(text.contains("outer"), "{text:?}");
    assert_eq!(b[1], Block::text("after"));
}

#[test]
fn tables_lists_links_and_footnotes() {
    let b = blocks(
        r#"{\rtf1\trowd\trhdr\cellx1000\cellx2000\pard\intbl A\cell B\cell\row\trowd\cellx1000\cellx2000\pard\intbl 1\par 2\cell 3\cell\row
\pard{\listtext 1.\tab}\ls1 one\par{\listtext 2.\tab}\ls1 two\par{\listtext\'b7\tab}\ls2 dot\par
\pard See {\field{\*\fldinst HYPERLINK "http://x.org/"}{\fldrslt link}} here{\footnote \pard Note text\par}.\par}"#,
    );
    let Block::Table(t) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(t.header_rows, 1);
    assert_eq!(t.rows.len(), 2);
    assert_eq!(text_of(&t.rows[1][0].content), "1\n2");
    let Block::List(l) = &b[1] else {
        panic!("{b:?}")
    };
    assert!(l.ordered);
    assert_eq!(l.items.len(), 2);
    let Block::List(l) = &b[2] else {
        panic!("{b:?}")
    };
    assert!(!l.ordered);
    let Block::Paragraph(p) = &b[3] else {
        panic!("{b:?}")
    };
    assert!(p.iter().any(|i| matches!(i, Inline::Link(l) if l.href == "http://x.org/" && text_of(&l.content) == "link")));
    assert!(p
        .iter()
        .any(|i| matches!(i, Inline::NoteRef(l) if l == "1")));
    assert!(
        matches!(&b[4], Block::Note { label, blocks } if label == "1" && blocks[0] == Block::text("Note text"))
    );
}

#[test]
fn pictures_and_metadata() {
    let doc = convert(
        br"{\rtf1{\info{\title My title}{\author Ann}{\creatim\yr2024\mo3\dy1\hr10\min5}}
{\*\shppict{\pict\pngblip\picwgoal1500\pichgoal750 89504e47}}{\nonshppict{\pict\wmetafile8 0102}}
{\pict\jpegblip\bin3 abc}\par}",
    )
    .unwrap();
    assert_eq!(doc.metadata.title.as_deref(), Some("My title"));
    assert_eq!(doc.metadata.author.as_deref(), Some("Ann"));
    assert_eq!(doc.metadata.created.as_deref(), Some("2024-03-01T10:05:00"));
    let images = doc.images();
    assert_eq!(images.len(), 2);
    assert_eq!(
        (images[0].mime.as_str(), images[0].data.as_slice()),
        ("image/png", &[0x89, 0x50, 0x4e, 0x47][..])
    );
    assert_eq!((images[0].width, images[0].height), (Some(100), Some(50)));
    assert_eq!(
        (images[1].mime.as_str(), images[1].data.as_slice()),
        ("image/jpeg", &b"abc"[..])
    );
}

#[test]
fn a_pictures_alt_text_comes_from_its_properties() {
    // As Word and LibreOffice write it; other shape properties and the name are not alt text.
    let doc = convert(
        br"{\rtf1{\*\shppict{\pict{\*\picprop{\sp{\sn wzName}{\sv Picture 1}}{\sp{\sn wzDescription}{\sv A caf\'e9 \u8212\'3f chart}}{\sp{\sn fLine}{\sv 0}}}\pngblip 89504e47}}
{\*\shppict{\pict{\*\picprop{\sp{\sn wzDescription}{\sv }}}\pngblip 89504e47}}\par}",
    )
    .unwrap();
    let images = doc.images();
    assert_eq!(images.len(), 2);
    assert_eq!(images[0].alt.as_deref(), Some("A café — chart"));
    assert_eq!(images[0].data, [0x89, 0x50, 0x4e, 0x47]);
    assert_eq!(images[1].alt, None);
}

#[test]
fn hostile_input_never_panics() {
    assert_eq!(
        convert(b"not rtf").unwrap_err().kind(),
        ErrorKind::Malformed
    );
    let mut deep = b"{\\rtf1 ".to_vec();
    deep.extend(std::iter::repeat_n(b'{', 200_000));
    deep.extend(b"x\\b\\u99999999999 \\'zz\\bin999999999 ");
    assert!(convert(&deep).is_ok());
    let unbalanced = b"{\\rtf1 a}}}}} b {\\*\\x {{ \\par";
    assert!(convert(unbalanced).is_ok());
    for cut in [1, 7, 30, 90] {
        let doc = br"{\rtf1{\fonttbl{\f0\fcharset128 G;}}\f0\'93\'fa{\field{\*\fldinst HYPERLINK x}{\fldrslt y";
        let _ = convert(&doc[..cut.min(doc.len())]);
    }
}

#[test]
fn deadline_is_honoured() {
    let big = format!("{{\\rtf1 {}}}", "word \\b x\\b0 ".repeat(50_000));
    let input = Input {
        bytes: big.as_bytes(),
        file_name: "t.rtf",
        mime: "application/rtf",
    };
    let mut ctx =
        Context::new().with_deadline(std::time::Instant::now() - std::time::Duration::from_secs(1));
    assert_eq!(
        RtfConverter.convert(&input, &mut ctx).unwrap_err().kind(),
        ErrorKind::Timeout
    );
}

#[test]
fn typed_markers_with_a_hanging_indent_are_lists() {
    // pandoc's RTF writer has no list table: each item is a hanging-indented paragraph that
    // starts with its marker and a tab, nested by its left indent.
    let b = blocks(
        r"{\rtf1\ansi{\fonttbl{\f0 Helvetica;}}
{\pard \ql \f0 \sa180 \li0 \fi0 Before.\par}
{\pard \ql \f0 \sa0 \li360 \fi-360 \bullet \tx360\tab item {\b one}\par}
{\pard \ql \f0 \sa0 \li720 \fi-360 \endash \tx360\tab nested two\par}
{\pard \ql \f0 \sa0 \li1080 \fi-360 \bullet \tx360\tab deep three\sa180\par}
{\pard \ql \f0 \sa0 \li360 \fi-360 \bullet \tx360\tab item four\sa180\par}
{\pard \ql \f0 \sa180 \li0 \fi0 Between.\par}
{\pard \ql \f0 \sa0 \li360 \fi-360 1.\tx360\tab first\par}
{\pard \ql \f0 \sa0 \li360 \fi-360 2.\tx360\tab second\par}
{\pard \ql \f0 \sa0 \li720 \fi-360 a.\tx360\tab sub\sa180\par}
{\pard \ql \f0 \sa180 \li0 \fi0 3.\tab Not a list: no hanging indent.\par}
}",
    );
    let [Block::Paragraph(_), Block::List(bullets), Block::Paragraph(_), Block::List(numbers), Block::Paragraph(last)] =
        b.as_slice()
    else {
        panic!("{b:?}")
    };
    assert!(!bullets.ordered);
    assert_eq!(bullets.items.len(), 2);
    let Block::Paragraph(one) = &bullets.items[0].blocks[0] else {
        panic!("{bullets:?}")
    };
    assert_eq!(text_of(one), "item one");
    let Block::List(nested) = &bullets.items[0].blocks[1] else {
        panic!("{bullets:?}")
    };
    assert_eq!(nested.items[0].blocks[0], Block::text("nested two"));
    let Block::List(deep) = &nested.items[0].blocks[1] else {
        panic!("{nested:?}")
    };
    assert_eq!(deep.items[0].blocks[0], Block::text("deep three"));
    assert_eq!(bullets.items[1].blocks[0], Block::text("item four"));
    assert!(numbers.ordered && numbers.start == 1 && numbers.items.len() == 2);
    let Block::List(sub) = &numbers.items[1].blocks[1] else {
        panic!("{numbers:?}")
    };
    assert!(sub.ordered);
    assert_eq!(text_of(last), "3.\tNot a list: no hanging indent.");
}

#[test]
fn bold_text_set_like_the_headings_is_a_heading() {
    // pandoc's RTF: the title is centred 18-point bold like the level-1 headings, but has no
    // \outlinelevel; body text is 12 points.
    let b = blocks(
        r"{\rtf1\ansi{\fonttbl{\f0 Helvetica;}}
{\pard \qc \f0 \sa180 \li0 \fi0 \b \fs36 The Title\par}
{\pard \ql \f0 \sa180 \li0 \fi0 \outlinelevel0 \b \fs36 Head {\i One}\par}
{\pard \ql \f0 \sa180 \li0 \fi0 Body text that runs on for a while, {\b bold here}.\par}
{\pard \ql \f0 \sa180 \li0 \fi0 \b Bold body paragraph.\par}
{\pard \ql \f0 \sa180 \li0 \fi0 \b \fs30 Bigger bold, unlike any heading.\par}
{\pard \ql \f0 \sa180 \li0 \fi0 \b \fs32 Set like the level-2 headings below.\par}
{\pard \ql \f0 \sa180 \li0 \fi0 \outlinelevel1 \b \fs32 Head Two\par}
{\pard \s82 \b \fs36 Contents\par}
}",
    );
    let kinds: Vec<String> = b
        .iter()
        .map(|b| match b {
            Block::Heading { level, content } => format!("h{level} {}", text_of(content)),
            Block::Paragraph(p) => format!("p {}", text_of(p)),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "h1 The Title",
            "h1 Head One",
            "p Body text that runs on for a while, bold here.",
            "p Bold body paragraph.",
            "p Bigger bold, unlike any heading.",
            "h2 Set like the level-2 headings below.",
            "h2 Head Two",
            // a style that is no heading style (a table of contents' own heading) is kept
            "p Contents"
        ]
    );
}

#[test]
fn a_further_paragraph_between_numbered_items_keeps_one_list() {
    // An item's second paragraph (indented like its text, no marker) between two numbered
    // items: the list goes on, numbered 1, 2.
    let b = blocks(
        r"{\rtf1\ansi{\fonttbl{\f0 Helvetica;}}
{\pard \ql \f0 \sa180 \li360 \fi-360 1.\tx360\tab One\par}
{\pard \ql \f0 \sa180 \li360 \fi0 More of one.\par}
{\pard \ql \f0 \sa180 \li360 \fi-360 2.\tx360\tab Two\par}
{\pard \ql \f0 \sa180 \li360 \fi0 More of two.\par}
}",
    );
    let [Block::List(l)] = b.as_slice() else {
        panic!("{b:?}")
    };
    assert!(l.ordered);
    assert_eq!(l.items.len(), 2);
    assert_eq!(
        l.items[1].blocks,
        [Block::text("Two"), Block::text("More of two.")]
    );
}

#[test]
fn tables_libreoffice_joined_part_again() {
    // A three-column table and a four-column one with no paragraph between, as LibreOffice
    // writes them: one run of rows whose right edges cross.
    let three = r"\trowd\cellx2880\cellx5760\cellx8640\pard\intbl a\cell b\cell c\cell\row";
    let four = r"\trowd\cellx2160\cellx4320\cellx6480\cellx8640\pard\intbl w\cell x\cell y\cell z\cell\row";
    let b = blocks(&format!(
        "{{\\rtf1 {three}\n{three}\n{four}\n{four}\n{four}\n\\pard after\\par}}"
    ));
    let widths: Vec<Vec<usize>> = b
        .iter()
        .filter_map(|b| match b {
            Block::Table(t) => Some(t.rows.iter().map(Vec::len).collect()),
            _ => None,
        })
        .collect();
    assert_eq!(widths, [vec![3, 3], vec![4, 4, 4]]);
}

#[test]
fn underline_reads_as_emphasis_except_on_links() {
    let b = blocks(
        r#"{\rtf1 plain {\ul under}\ulnone  x {\field{\*\fldinst HYPERLINK "http://x.org"}{\fldrslt {\ul\ulc0 link}}} \uldb\ulc0 more\ul0  end\par}"#,
    );
    let Block::Paragraph(p) = &b[0] else {
        panic!("{b:?}")
    };
    let italic: Vec<(String, bool)> = p
        .iter()
        .flat_map(|i| match i {
            Inline::Text { text, style } => vec![(text.trim().to_owned(), style.italic)],
            Inline::Link(link) => link
                .content
                .iter()
                .filter_map(|c| match c {
                    Inline::Text { text, style } => Some((text.trim().to_owned(), style.italic)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        })
        .filter(|(t, _)| !t.is_empty())
        .collect();
    let of = |w: &str| italic.iter().find(|(t, _)| t == w).map(|(_, i)| *i);
    assert_eq!(
        (of("under"), of("link"), of("more"), of("end")),
        (Some(true), Some(false), Some(true), Some(false)),
        "{italic:?}"
    );
}

#[test]
fn a_bulleted_list_after_a_numbered_one_nests_its_items() {
    // LibreOffice gives each level a list of its own, nested by indent.
    let item = |marker: &str, ls: u32, li: u32, text: &str| {
        format!(
            r"\pard\plain {{\listtext\pard\plain {marker}\tab}}\ilvl0\ls{ls} \li{li}\fi-360 {text}\par"
        )
    };
    let bullet = r"\u61623\'3f";
    let rtf = format!(
        "{{\\rtf1\\ansi {}\n{}\n{}\n{}\n}}",
        item("5.", 4, 360, "five"),
        item(bullet, 1, 360, "top"),
        item(bullet, 2, 720, "middle"),
        item(bullet, 3, 1080, "deep"),
    );
    let b = blocks(&rtf);
    let [Block::List(numbered), Block::List(bullets)] = b.as_slice() else {
        panic!("{b:?}")
    };
    assert!(numbered.ordered && !bullets.ordered);
    let Block::List(middle) = &bullets.items[0].blocks[1] else {
        panic!("{bullets:?}")
    };
    assert!(matches!(&middle.items[0].blocks[1], Block::List(deep) if deep.items.len() == 1));
}
