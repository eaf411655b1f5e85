//! Converter-level tests on small documents written here.

use super::*;
use quire_plugin_api::{Block, ErrorKind, Inline, List};

fn convert(xml: &str) -> Result<Document> {
    let input = Input {
        bytes: xml.as_bytes(),
        file_name: "t.xml",
        mime: "application/xml",
    };
    XmlConverter.convert(&input, &mut Context::new())
}

fn text_of(inlines: &[Inline]) -> String {
    inlines
        .iter()
        .map(|i| match i {
            Inline::Text { text, .. } => text.clone(),
            Inline::Link(link) => text_of(&link.content),
            _ => String::new(),
        })
        .collect()
}

fn blocks(xml: &str) -> Vec<Block> {
    convert(xml).unwrap().parts.remove(0).blocks
}

/// The (level, text) of each heading among `blocks`.
fn headings(blocks: &[Block]) -> Vec<(u8, String)> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, content } => Some((*level, text_of(content))),
            _ => None,
        })
        .collect()
}

#[test]
fn article_headings_paragraphs_and_title() {
    let doc = convert(
        "<article><front><title-group><article-title>The <italic>Title</italic></article-title></title-group></front>\
         <body><sec><title>Intro</title><p>Some <bold>bold</bold> text<sup>11</sup> <b>70</b>.</p>\
         <sec><label>1.1.</label><title>Deeper</title><p>x</p></sec></sec></body></article>",
    )
    .unwrap();
    assert_eq!(doc.metadata.title.as_deref(), Some("The Title"));
    let b = &doc.parts[0].blocks;
    assert!(
        matches!(&b[0], Block::Heading { level: 1, content } if text_of(content) == "The Title")
    );
    assert!(matches!(&b[1], Block::Heading { level: 2, content } if text_of(content) == "Intro"));
    let Block::Paragraph(p) = &b[2] else {
        panic!("{b:?}")
    };
    assert_eq!(text_of(p), "Some bold text¹¹ 70.");
    assert!(p
        .iter()
        .any(|i| matches!(i, Inline::Text { text, style } if text.contains("70") && !style.bold)));
    assert!(p
        .iter()
        .any(|i| matches!(i, Inline::Text { text, style } if text == "bold" && style.bold)));
    assert!(
        matches!(&b[3], Block::Heading { level: 3, content } if text_of(content) == "1.1. Deeper")
    );
}

#[test]
fn a_title_made_only_of_inline_elements_is_a_heading() {
    // The whole title is a link, or bold: no text of its own beside the inline elements.
    let b = blocks(
        "<article><body><sec><title>Intro</title><p>x</p>\
         <sec><title><ext-link xlink:href='https://e.org/m'><bold>Methods</bold></ext-link> <bold>used</bold></title><p>y</p></sec>\
         <sec><title><bold>Results</bold></title><p>z</p></sec></sec></body></article>",
    );
    let headings = headings(&b);
    assert_eq!(
        headings,
        [
            (1, "Intro".to_owned()),
            (2, "Methods used".to_owned()),
            (2, "Results".to_owned())
        ],
        "{b:#?}"
    );
    // XHTML's head holds a title and metadata: not a heading itself.
    let b = blocks(
        "<html><head><title>T</title><meta charset='utf-8'/></head><body><p>x</p></body></html>",
    );
    assert_eq!(
        b.iter()
            .filter(|b| matches!(b, Block::Heading { .. }))
            .count(),
        1,
        "{b:#?}"
    );
}

#[test]
fn rss_channel_and_items() {
    let b = blocks(
        "<rss><channel><title>Blog</title><link>https://x</link><item><title>Post</title>\
         <description>&lt;p&gt;Hello &amp;amp; bye&lt;/p&gt;</description></item></channel></rss>",
    );
    assert_eq!(b[0], Block::heading(1, "Blog"), "{b:#?}");
    // a feed of prose is a document: the channel's link reads as text, not `link: …`
    assert_eq!(b[1], Block::text("https://x"), "{b:#?}");
    assert_eq!(b[2], Block::heading(2, "Post"));
    assert_eq!(b[3], Block::text("Hello & bye"));
}

#[test]
fn escaped_html_that_opens_with_text_reads_as_html() {
    // A feed's description often starts with words: its tags are markup all the same.
    let b = blocks(
        "<rss><channel><title>Forum</title><item><title>Question</title>\
         <description>Hi all!&lt;br /&gt;\n&lt;br /&gt;\nMy code: &amp;lt;?php echo 1;</description>\
         </item></channel></rss>",
    );
    assert_eq!(b[2], Block::text("Hi all!"), "{b:#?}");
    assert_eq!(b[3], Block::text("My code: <?php echo 1;"), "{b:#?}");
    // Code shows markup as written.
    let b = blocks(
        "<article><p>Some text that reads as a paragraph of prose.</p>\
         <p>Another paragraph with a sentence <italic>and</italic> a word.</p>\
         <preformat>{ &lt;code&gt; }</preformat><code>&lt;p&gt;x&lt;/p&gt;</code></article>",
    );
    assert_eq!(b[2], Block::text("{ <code> }"), "{b:#?}");
    assert_eq!(b[3], Block::text("<p>x</p>"), "{b:#?}");
}

#[test]
fn tables_xhtml_and_cals() {
    let b = blocks(
        "<doc><table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td colspan='2'>x<p>y</p></td></tr></tbody></table>\
         <table><tgroup cols='2'><colspec colname='c1'/><colspec colname='c2'/><thead><row><entry namest='c1' nameend='c2'>T</entry></row></thead>\
         <tbody><row><entry>1</entry><entry morerows='1'>2</entry></row></tbody></tgroup></table></doc>",
    );
    let Block::Table(t) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(t.header_rows, 1);
    assert_eq!(t.rows[1][0].colspan, 2);
    // a paragraph after text in a cell starts a line of its own
    assert_eq!(
        t.rows[1][0].content,
        [Inline::plain("x"), Inline::Break, Inline::plain("y")]
    );
    let Block::Table(t) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(
        (t.header_rows, t.rows[0][0].colspan, t.rows[1][1].rowspan),
        (1, 2, 2)
    );
}

#[test]
fn lists_and_data_records() {
    let b = blocks(
        "<r><list list-type='order'><list-item><p>one</p></list-item><list-item><p>two</p></list-item></list>\
         <countries><country><name>A</name><cap>X</cap></country><country><name>B</name></country></countries>\
         <conf><host>example.org</host><port>8080</port></conf></r>",
    );
    let Block::List(l) = &b[0] else {
        panic!("{b:?}")
    };
    assert!(l.ordered);
    assert_eq!(l.items.len(), 2);
    let Block::Table(t) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(t.rows.len(), 3);
    assert_eq!(text_of(&t.rows[2][1].content), "");
    let Block::List(l) = &b[2] else {
        panic!("{b:?}")
    };
    assert_eq!(l.items.len(), 1);
}

#[test]
fn containers_keep_their_attributes() {
    // An outline-like vocabulary that is not OPML (OPML has its own reading): each node's
    // words are its `text` attribute, nested nodes its children.
    let b = blocks(
        "<outlines><body><outline text='United States' id='u1'><outline text='Alaska'/>\
         <outline text='Hawaii'/></outline><outline text='Canada'><outline text='Yukon'/>\
         </outline></body></outlines>",
    );
    let Block::List(l) = &b[0] else {
        panic!("{b:?}")
    };
    let Block::Paragraph(p) = &l.items[0].blocks[0] else {
        panic!("{l:?}")
    };
    let Block::List(outlines) = &l.items[0].blocks[1] else {
        panic!("{l:?}")
    };
    assert_eq!(text_of(p), "body:");
    let Block::Paragraph(us) = &outlines.items[0].blocks[0] else {
        panic!("{outlines:?}")
    };
    // same-named siblings are a list their parent names; one attribute reads as its value
    assert_eq!(text_of(us), "United States");
    let Block::List(states) = &outlines.items[0].blocks[1] else {
        panic!("{outlines:?}")
    };
    assert_eq!(states.items[1].blocks[0], Block::text("Hawaii"));
}

#[test]
fn declared_encoding_is_honoured() {
    let mut bytes = b"<?xml version='1.0' encoding='windows-1251'?><r><p>".to_vec();
    bytes.extend([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);
    bytes.extend(b"</p></r>");
    let input = Input {
        bytes: &bytes,
        file_name: "t.xml",
        mime: "application/xml",
    };
    let doc = XmlConverter.convert(&input, &mut Context::new()).unwrap();
    assert_eq!(doc.parts[0].blocks[0], Block::text("Привет"));
}

#[test]
fn data_is_the_tree_and_errors_are_clear() {
    let doc = convert("<a x='1'>t</a>").unwrap();
    assert_eq!(doc.data, Some(serde_json::json!(["a", {"x": "1"}, "t"])));
    assert_eq!(doc.kind, DocumentKind::StructuredData);
    assert_eq!(doc.type_label, "XML Document");
    let e = convert("<a></b>").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert!(e.message().contains("line 1"));
    assert_eq!(
        convert("{\"json\": 1}").unwrap_err().kind(),
        ErrorKind::Malformed
    );
}

#[test]
fn deep_but_allowed_nesting_converts() {
    // 500 levels (the default limit is 512) on a test thread's small stack.
    let xml = format!(
        "{}<p>deep</p>{}",
        "<d><x>".repeat(250),
        "</x></d>".repeat(250)
    );
    let doc = convert(&xml).unwrap();
    assert!(doc.data.is_some());
    let xml = format!("{}text{}", "<a>".repeat(500), "</a>".repeat(500));
    assert!(convert(&xml).is_ok());
}

#[test]
fn markdown_only_conversions_skip_the_tree() {
    let input = Input {
        bytes: b"<a><title>T</title><p>x</p></a>",
        file_name: "a.xml",
        mime: "application/xml",
    };
    let mut ctx = Context::new().with_structured_data(false);
    let doc = XmlConverter.convert(&input, &mut ctx).unwrap();
    assert_eq!(doc.data, None);
    assert!(!doc.parts[0].blocks.is_empty());
}

#[test]
fn dtd_named_entities_resolve_from_the_standard_set() {
    // As USPTO applications write them, declared in an external DTD that is never fetched.
    let xml = "<?xml version=\"1.0\"?>\n\
        <!DOCTYPE us-patent-application SYSTEM \"us-patent-application-v44.dtd\" []>\n\
        <us-patent-application><description>\
        <p id=\"p-0012\">&lsqb;0012&rsqb; The Widget&trade; joins two parts &mdash; quickly.</p>\
        <p>An &madeup; entity and another &madeup; and &other;.</p>\
        <p>A 5 &mgr;m film of &agr;-&Bgr; at &thgr;=90&deg;, &OHgr; and &ohacgr;.</p>\
        </description></us-patent-application>";
    let input = Input {
        bytes: xml.as_bytes(),
        file_name: "t.xml",
        mime: "application/xml",
    };
    let mut ctx = Context::new();
    let doc = XmlConverter.convert(&input, &mut ctx).unwrap();
    let text: String = doc.parts[0]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph(p) => Some(text_of(p)),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.contains("[0012] The Widget\u{2122} joins two parts \u{2014} quickly."),
        "{text}"
    );
    // ISO 8879's Greek sets (ISOgrk1, ISOgrk2), which the HTML5 list lacks.
    assert!(
        text.contains("A 5 μm film of α-Β at θ=90°, Ω and ώ."),
        "{text}"
    );
    assert!(
        !text.contains('&'),
        "no entity name leaks into the text: {text}"
    );
    let about: Vec<&String> = ctx
        .warnings()
        .iter()
        .filter(|w| w.contains("&madeup;"))
        .collect();
    assert_eq!(about.len(), 1, "one warning: {:?}", ctx.warnings());
    assert!(about[0].contains("&other;"));
}

#[test]
fn document_xml_reads_as_text_not_as_named_values() {
    // Prose holds most of the text: data leaves read as text without their element names, a
    // data container's leaves join into one paragraph, and empty elements (attributes are
    // markup here) add nothing.
    let b = blocks(
        "<article><info><title>On Fruit</title><author><firstname>John</firstname>\
         <surname>MacFarlane</surname></author><codes><code><k>A</k><d><y>01</y></d></code>\
         <code><k>B</k><d><y>02</y></d></code></codes></info>\
         <para>Apples are the fruit most often named in examples of this kind.</para>\
         <milestone unit='undefined' type='separator'/>\
         <variablelist><varlistentry><term>apple</term><listitem><para>A red fruit that \
         grows on trees.</para></listitem></varlistentry></variablelist></article>",
    );
    let texts: Vec<String> = b
        .iter()
        .map(|x| match x {
            Block::Heading { content, .. } => format!("H:{}", text_of(content)),
            Block::Paragraph(p) => text_of(p),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "H:On Fruit",
            "John MacFarlane",
            // a set of records: a line each
            "A 01",
            "B 02",
            "Apples are the fruit most often named in examples of this kind.",
            "apple",
            "A red fruit that grows on trees."
        ]
    );
}

#[test]
fn data_xml_keeps_names_and_a_wrapper_names_its_value() {
    // EndNote: each field's text sits in a `<style>` wrapper; the field names the value.
    let b = blocks(
        "<xml><records><record><rec-number>17</rec-number><titles><title><style face='normal' \
         size='100%'>A Study</style></title></titles><dates><year><style face='normal'>1937\
         </style></year></dates></record></records></xml>",
    );
    let Block::List(l) = &b[0] else {
        panic!("{b:?}")
    };
    let mut lines = Vec::new();
    fn walk(l: &quire_plugin_api::List, out: &mut Vec<String>) {
        for item in &l.items {
            for blk in &item.blocks {
                match blk {
                    Block::Paragraph(p) => out.push(text_of(p)),
                    Block::List(inner) => walk(inner, out),
                    _ => {}
                }
            }
        }
    }
    walk(l, &mut lines);
    assert!(lines.contains(&"title: A Study".to_owned()), "{lines:?}");
    assert!(lines.contains(&"year: 1937".to_owned()), "{lines:?}");
    assert!(!lines.iter().any(|x| x.contains("style")), "{lines:?}");
}

#[test]
fn index_terms_are_not_text_and_tei_line_beginnings_separate_words() {
    let b = blocks(
        "<article><title>Terms</title>\
         <para>Index terms<indexterm><primary>index term</primary><secondary>multi-level</secondary></indexterm> \
         consist of <indexterm><primary>food</primary></indexterm>words.</para>\
         <indexterm><primary>loose</primary></indexterm>\
         <para>A <index-term><term>jats</term></index-term>term.</para>\
         <p>There is a break<lb/>here and a hy<lb break=\"no\"/>phen.</p></article>",
    );
    let text: Vec<String> = b
        .iter()
        .map(|b| match b {
            Block::Paragraph(p) | Block::Heading { content: p, .. } => text_of(p),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        text,
        [
            "Terms",
            "Index terms consist of words.",
            "A term.",
            "There is a break here and a hyphen."
        ]
    );
}

#[test]
fn tei_tables_and_captions_held_by_the_table() {
    let b = blocks(
        "<TEI><text><body><p>Before.</p>\
         <table><head>Planets</head><row role='label'><cell>Name</cell><cell>Moons</cell></row>\
         <row><cell cols='2'>none</cell></row><row><cell>Mars</cell><cell>2</cell></row></table>\
         <table><title>Demonstration of <emphasis>simple</emphasis> tables.</title><tgroup cols='1'>\
         <tbody><row><entry>x</entry></row></tbody></tgroup></table></body></text></TEI>",
    );
    assert_eq!(b[0], Block::text("Before."), "{b:#?}");
    assert_eq!(b[1], Block::text("Planets"), "{b:#?}");
    let Block::Table(t) = &b[2] else {
        panic!("{b:#?}")
    };
    assert_eq!(t.header_rows, 1);
    assert_eq!(t.rows.len(), 3);
    assert_eq!(text_of(&t.rows[0][1].content), "Moons");
    assert_eq!(
        (text_of(&t.rows[1][0].content), t.rows[1][0].colspan),
        ("none".to_owned(), 2)
    );
    let Block::Paragraph(caption) = &b[3] else {
        panic!("{b:#?}")
    };
    assert_eq!(text_of(caption), "Demonstration of simple tables.");
    assert!(
        matches!(&b[4], Block::Table(t) if t.rows.len() == 1),
        "{b:#?}"
    );
}

#[test]
fn xbrl_facts_read_as_a_table_of_concepts_by_periods() {
    let doc = convert(
        "<xbrl xmlns='http://www.xbrl.org/2003/instance' xmlns:dei='d' xmlns:us-gaap='u' \
         xmlns:xbrldi='x' xmlns:iso4217='i'>\
         <context id='c0'><entity><identifier scheme='cik'>0000918573</identifier></entity>\
         <period><startDate>2025-04-01</startDate><endDate>2025-12-31</endDate></period></context>\
         <context id='c1'><entity><identifier scheme='cik'>0000918573</identifier><segment>\
         <xbrldi:explicitMember dimension='us-gaap:ClassAxis'>us-gaap:SeriesBPreferredStockMember</xbrldi:explicitMember>\
         </segment></entity><period><instant>2025-12-31</instant></period></context>\
         <context id='c2'><entity><identifier scheme='cik'>0000918573</identifier><segment>\
         <xbrldi:explicitMember dimension='us-gaap:ClassAxis'>us-gaap:SeriesBPreferredStockMember</xbrldi:explicitMember>\
         </segment></entity><period><instant>2025-03-31</instant></period></context>\
         <unit id='usd'><measure>iso4217:USD</measure></unit>\
         <unit id='ps'><divide><unitNumerator><measure>iso4217:USD</measure></unitNumerator>\
         <unitDenominator><measure>shares</measure></unitDenominator></divide></unit>\
         <dei:DocumentType contextRef='c0'>10-Q</dei:DocumentType>\
         <dei:EntityRegistrantName contextRef='c0'>GROOVE BOTANICALS, INC.</dei:EntityRegistrantName>\
         <dei:DocumentPeriodEndDate contextRef='c0'>2025-12-31</dei:DocumentPeriodEndDate>\
         <us-gaap:Cash contextRef='c1' unitRef='usd' decimals='0'>24896</us-gaap:Cash>\
         <us-gaap:Cash contextRef='c2' unitRef='usd' decimals='0'>133853</us-gaap:Cash>\
         <us-gaap:Cash contextRef='c1' unitRef='usd' decimals='0'>24896</us-gaap:Cash>\
         <us-gaap:EarningsPerShareBasic contextRef='c0' unitRef='ps'>0.10</us-gaap:EarningsPerShareBasic>\
         <us-gaap:Liabilities contextRef='c1' unitRef='usd' xsi:nil='true'/>\
         <us-gaap:NatureOfOperationsTextBlock contextRef='c0'>&lt;p&gt;We sell botanicals and \
         plan to assemble a portfolio of battery technologies.&lt;/p&gt;</us-gaap:NatureOfOperationsTextBlock>\
         </xbrl>",
    )
    .unwrap();
    assert_eq!(
        doc.metadata.title.as_deref(),
        Some("10-Q GROOVE BOTANICALS, INC. 2025-12-31")
    );
    let b = &doc.parts[0].blocks;
    assert_eq!(
        b[0],
        Block::heading(1, "10-Q GROOVE BOTANICALS, INC. 2025-12-31")
    );
    let Block::Table(t) = &b[1] else {
        panic!("{b:#?}")
    };
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(|c| text_of(&c.content)).collect())
        .collect();
    let row = |cells: [&str; 4]| cells.map(str::to_owned).to_vec();
    // One row per concept (with its members), one column per period named once; the
    // repeated Cash fact fills its cell once.
    assert_eq!(
        rows,
        vec![
            row([
                "Concept",
                "2025-04-01 – 2025-12-31",
                "2025-12-31",
                "2025-03-31"
            ]),
            row(["Document Type", "10-Q", "", ""]),
            row(["Entity Registrant Name", "GROOVE BOTANICALS, INC.", "", ""]),
            row(["Document Period End Date", "2025-12-31", "", ""]),
            row([
                "Cash (Series B Preferred Stock)",
                "",
                "24896 USD",
                "133853 USD"
            ]),
            row(["Earnings Per Share Basic", "0.10 USD / shares", "", ""]),
        ]
    );
    assert_eq!(t.header_rows, 1);
    assert_eq!(
        b[2],
        Block::text("We sell botanicals and plan to assemble a portfolio of battery technologies."),
        "{b:#?}"
    );
    assert_eq!(b.len(), 3, "no context or unit shown as text: {b:#?}");
}

#[test]
fn xbrl_tables_hold_at_most_four_periods_and_never_overwrite_a_value() {
    let mut xml = String::from("<xbrl xmlns='http://www.xbrl.org/2003/instance' xmlns:g='u'>");
    for y in 2020..2026 {
        xml.push_str(&format!(
            "<context id='y{y}'><entity><identifier scheme='cik'>1</identifier></entity>\
             <period><instant>{y}-12-31</instant></period></context>"
        ));
    }
    for y in 2020..2026 {
        xml.push_str(&format!("<g:Assets contextRef='y{y}'>{y}0</g:Assets>"));
    }
    // A second, different value for a cell already filled starts a new table.
    xml.push_str("<g:Assets contextRef='y2025'>1</g:Assets></xbrl>");
    let doc = convert(&xml).unwrap();
    let widths: Vec<(usize, usize)> = doc.parts[0]
        .blocks
        .iter()
        .map(|b| match b {
            Block::Table(t) => (t.rows[0].len(), t.rows.len()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(widths, [(5, 2), (3, 2), (2, 2)]);
}

fn markdown_of(xml: &str) -> String {
    let doc = convert(xml).unwrap();
    let mut out = String::new();
    for b in &doc.parts[0].blocks {
        out.push_str(&block_text(b, 0));
    }
    out
}

/// A compact view of blocks: `#N text` for headings, `- `/`1. ` items indented by depth,
/// `| a | b |` rows, `[^N] text` notes.
fn block_text(b: &Block, depth: usize) -> String {
    match b {
        Block::Heading { level, content } => format!("#{level} {}\n", inline_text(content)),
        Block::Paragraph(c) => format!("{}\n", inline_text(c)),
        Block::List(l) => l
            .items
            .iter()
            .map(|i| {
                let mark = if l.ordered { "1." } else { "-" };
                let mut s = String::new();
                for (k, b) in i.blocks.iter().enumerate() {
                    if k == 0 {
                        s.push_str(&format!(
                            "{}{mark} {}",
                            "  ".repeat(depth),
                            block_text(b, depth + 1)
                        ));
                    } else {
                        s.push_str(&block_text(b, depth + 1));
                    }
                }
                s
            })
            .collect(),
        Block::Table(t) => t
            .rows
            .iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|c| inline_text(&c.content)).collect();
                format!("| {} |\n", cells.join(" | "))
            })
            .collect(),
        Block::Note { label, blocks } => {
            let body: Vec<String> = blocks
                .iter()
                .map(|b| block_text(b, 0).trim().to_owned())
                .collect();
            format!("[^{label}] {}\n", body.join(" "))
        }
        other => format!("{other:?}\n"),
    }
}

fn inline_text(inlines: &[Inline]) -> String {
    inlines
        .iter()
        .map(|i| match i {
            Inline::Text { text, style } if style.bold => format!("**{text}**"),
            Inline::Text { text, style } if style.italic => format!("*{text}*"),
            Inline::Text { text, .. } => text.clone(),
            Inline::Link(link) => format!("[{}]({})", inline_text(&link.content), link.href),
            Inline::NoteRef(l) => format!("[^{l}]"),
            Inline::Break => "/".into(),
            _ => String::new(),
        })
        .collect()
}

#[test]
fn word_2003_xml_reads_as_a_document() {
    // Styles by id, a heading, a bold run, a tracked deletion, a footnote inside its run, a
    // numbered list whose label Word wrote out, a bullet, a table with a span and a link, a
    // text box, a comment and a field code.
    let xml = r#"<?xml version="1.0"?><?mso-application progid="Word.Document"?>
<w:wordDocument xmlns:w="http://schemas.microsoft.com/office/word/2003/wordml" xmlns:wx="http://schemas.microsoft.com/office/word/2003/auxHint" xmlns:aml="http://schemas.microsoft.com/aml/2001/core" xmlns:o="urn:schemas-microsoft-com:office:office">
<o:DocumentProperties><o:Title>Report</o:Title></o:DocumentProperties>
<w:fonts><w:font w:name="Calibri"><w:panose-1 w:val="020F0502020204030204"/></w:font></w:fonts>
<w:styles><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>
<w:body><wx:sect>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Scope</w:t></w:r></w:p>
<w:p><w:r><w:t>We were at war with </w:t></w:r><aml:annotation w:type="Word.Deletion"><aml:content><w:r><w:delText>Oceania</w:delText></w:r></aml:content></aml:annotation><w:r><w:rPr><w:b/></w:rPr><w:t>Eurasia</w:t></w:r><w:r><w:footnote><w:p><w:r><w:t>A note.</w:t></w:r></w:p></w:footnote></w:r><w:r><w:instrText> PAGE </w:instrText></w:r></w:p>
<w:p><w:pPr><w:listPr><w:ilvl w:val="0"/><w:ilfo w:val="1"/><wx:t wx:val="1."/></w:listPr></w:pPr><w:r><w:t>First</w:t></w:r></w:p>
<w:p><w:pPr><w:listPr><w:ilvl w:val="1"/><w:ilfo w:val="2"/><wx:t wx:val="&#183;"/></w:listPr></w:pPr><w:r><w:t>Inner</w:t></w:r></w:p>
<w:p><w:pPr><w:listPr><w:ilvl w:val="0"/><w:ilfo w:val="1"/><wx:t wx:val="2."/></w:listPr></w:pPr><w:r><w:t>Second</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>Both</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:hlink w:dest="https://example.org/"><w:r><w:t>site</w:t></w:r></w:hlink></w:p></w:tc><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p><w:p><w:r><w:t>y</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent><w:p><w:r><w:t>In a box</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></w:r><aml:annotation w:type="Word.Comment" aml:author="Ann"><aml:content><w:p><w:r><w:t>a comment</w:t></w:r></w:p></aml:content></aml:annotation></w:p>
<w:sectPr><w:hdr w:type="odd"><w:p><w:r><w:t>MyHeader</w:t></w:r></w:p></w:hdr><w:ftr w:type="odd"><w:p><w:r><w:t>MyFooter</w:t></w:r></w:p></w:ftr><w:pgSz w:w="12240"/></w:sectPr></wx:sect></w:body></w:wordDocument>"#;
    assert_eq!(
        convert(xml).unwrap().metadata.title.as_deref(),
        Some("Report")
    );
    assert_eq!(
        markdown_of(xml),
        "MyHeader\n#1 Scope\nWe were at war with **Eurasia**[^1]\n1. First\n  - Inner\n1. Second\n\
         | Both |\n| [site](https://example.org/) | x/y |\n[^c1]\nIn a box\nMyFooter\n\
         [^1] A note.\n[^c1] Ann: a comment\n"
    );
}

#[test]
fn flat_opc_word_reads_its_parts() {
    // Word's "XML Document": styles, numbering, relationships, footnotes, comments and
    // headers are parts of the package beside the document; a deleted table row stays out.
    let xml = r#"<?xml version="1.0" standalone="yes"?><?mso-application progid="Word.Document"?>
<pkg:package xmlns:pkg="http://schemas.microsoft.com/office/2006/xmlPackage">
<pkg:part pkg:name="/word/_rels/document.xml.rels"><pkg:xmlData><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="hyperlink" Target="https://tika.apache.org/" TargetMode="External"/><Relationship Id="rId3" Type="header" Target="header1.xml"/></Relationships></pkg:xmlData></pkg:part>
<pkg:part pkg:name="/word/document.xml"><pkg:xmlData><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="r"><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Results</w:t></w:r></w:p>
<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr></w:pPr><w:r><w:t>One</w:t></w:r></w:p>
<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr></w:pPr><w:r><w:t>Two</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">See </w:t></w:r><w:hyperlink r:id="rId9"><w:r><w:t>tika</w:t></w:r></w:hyperlink><w:r><w:footnoteReference w:id="2"/></w:r><w:r><w:commentReference w:id="0"/></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>kept</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:trPr><w:del w:id="5" w:author="a"/></w:trPr><w:tc><w:p><w:del w:id="6" w:author="a"><w:r><w:delText>gone</w:delText></w:r></w:del></w:p></w:tc></w:tr></w:tbl>
<w:sectPr><w:headerReference w:type="default" r:id="rId3"/></w:sectPr></w:body></w:document></pkg:xmlData></pkg:part>
<pkg:part pkg:name="/word/header1.xml"><pkg:xmlData><w:hdr xmlns:w="w"><w:p><w:r><w:t>Running head</w:t></w:r></w:p></w:hdr></pkg:xmlData></pkg:part>
<pkg:part pkg:name="/word/comments.xml"><pkg:xmlData><w:comments xmlns:w="w"><w:comment w:id="0" w:author="Tim"><w:p><w:r><w:t>Check this.</w:t></w:r></w:p></w:comment></w:comments></pkg:xmlData></pkg:part>
<pkg:part pkg:name="/word/styles.xml"><pkg:xmlData><w:styles xmlns:w="w"><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles></pkg:xmlData></pkg:part>
<pkg:part pkg:name="/word/numbering.xml"><pkg:xmlData><w:numbering xmlns:w="w"><w:abstractNum w:abstractNumId="7"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum><w:num w:numId="3"><w:abstractNumId w:val="7"/></w:num></w:numbering></pkg:xmlData></pkg:part>
<pkg:part pkg:name="/word/footnotes.xml"><pkg:xmlData><w:footnotes xmlns:w="w"><w:footnote w:id="2"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> The site.</w:t></w:r></w:p></w:footnote></w:footnotes></pkg:xmlData></pkg:part>
</pkg:package>"#;
    assert_eq!(
        markdown_of(xml),
        "Running head\n#2 Results\n1. One\n1. Two\nSee [tika](https://tika.apache.org/)[^1][^c1]\n| kept |\n\
         [^1] The site.\n[^c1] Tim: Check this.\n"
    );
}

#[test]
fn excel_2003_xml_reads_as_sheets_of_tables() {
    // Row and cell indexes skip empty places, a merge across leaves its cells empty, numbers
    // lose float noise, dates their midnight, booleans read as Excel shows them.
    let xml = r#"<?xml version="1.0"?><?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
<Styles><Style ss:ID="Default"><Font ss:FontName="Calibri"/></Style></Styles>
<Worksheet ss:Name="Data"><Table>
<Row><Cell><Data ss:Type="String">Name</Data></Cell><Cell ss:Index="3"><Data ss:Type="String">Value</Data></Cell></Row>
<Row ss:Index="3"><Cell ss:MergeAcross="1"><Data ss:Type="String">wide</Data></Cell><Cell><Data ss:Type="Number">1.1000000000000001</Data></Cell></Row>
<Row><Cell><Data ss:Type="DateTime">2016-04-27T00:00:00.000</Data></Cell><Cell><Data ss:Type="Boolean">1</Data></Cell><Cell><Data ss:Type="Number">42</Data></Cell></Row>
</Table></Worksheet>
<Worksheet ss:Name="Empty"/></Workbook>"#;
    assert_eq!(
        markdown_of(xml),
        "#2 Data\n| Name |  | Value |\n| wide |  | 1.1 |\n| 2016-04-27 | TRUE | 42 |\n#2 Empty\n"
    );
}

#[test]
fn excel_2003_xml_cells_show_their_number_formats() {
    // A cell's format comes from its style, a style's from its parent, a cell without a style
    // takes its row's or its column's; Excel 2003 names its built-in formats.
    let xml = r####"<?xml version="1.0"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
<Styles><Style ss:ID="Default"><NumberFormat/></Style>
<Style ss:ID="money"><NumberFormat ss:Format="&quot;$&quot;#,##0.00"/></Style>
<Style ss:ID="bold" ss:Parent="money"><Font ss:Bold="1"/></Style>
<Style ss:ID="short"><NumberFormat ss:Format="Short Date"/></Style>
<Style ss:ID="pct"><NumberFormat ss:Format="Percent"/></Style>
<Style ss:ID="two"><NumberFormat ss:Format="###0.00;\-###0.00"/></Style></Styles>
<Worksheet ss:Name="Data"><Table><Column ss:Index="3" ss:StyleID="two" ss:Span="1"/>
<Row><Cell ss:StyleID="money"><Data ss:Type="Number">1599.5</Data></Cell><Cell ss:StyleID="bold"><Data ss:Type="Number">-2</Data></Cell><Cell><Data ss:Type="Number">11698.241527095301</Data></Cell><Cell><Data ss:Type="Number">3</Data></Cell></Row>
<Row ss:StyleID="pct"><Cell ss:StyleID="short"><Data ss:Type="DateTime">1998-08-01T00:00:00.000</Data></Cell><Cell><Data ss:Type="Number">0.025</Data></Cell><Cell ss:StyleID="Default"><Data ss:Type="Number">0.1</Data></Cell><Cell><Data ss:Type="String">text</Data></Cell></Row>
</Table></Worksheet></Workbook>"####;
    assert_eq!(
        markdown_of(xml),
        "#2 Data\n| $1,599.50 | -$2.00 | 11698.24 | 3.00 |\n| 8/1/98 | 2.50% | 0.1 | text |\n"
    );
}

#[test]
fn sections_after_an_empty_document_title_are_peers() {
    // pandoc's DocBook of a document without a title: `<info><title></title></info>`, then
    // top-level sections. The first section's title is no document title above the others.
    let b = blocks(
        "<article xmlns=\"http://docbook.org/ns/docbook\"><info><title></title></info>\
         <section><title>One</title><para>a</para></section>\
         <section><title>Two</title><para>b</para>\
         <section><title>Two.one</title><para>c</para></section></section>\
         <section><title>Three</title><para>d</para></section></article>",
    );
    let heads = headings(&b);
    assert_eq!(
        heads,
        [(1, "One"), (1, "Two"), (2, "Two.one"), (1, "Three")]
            .map(|(l, t)| (l, t.to_owned()))
            .to_vec()
    );
    // With a title, the sections sit below it.
    let b = blocks(
        "<article><info><title>Doc</title></info><section><title>One</title><para>a</para></section>\
         <section><title>Two</title><para>b</para></section></article>",
    );
    let levels: Vec<u8> = b
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, .. } => Some(*level),
            _ => None,
        })
        .collect();
    assert_eq!(levels, [1, 2, 2]);
}

#[test]
fn wrapped_mixed_content_reads_as_one_line() {
    // Writers wrap long paragraphs (pandoc's JATS and DocBook at 72 columns); the line
    // breaks and indentation are insignificant whitespace, not breaks in the text.
    let b = blocks(
        "<article><body><sec><title>T</title><p>One two\n  <bold>three\n  four</bold>\n  <ext-link xlink:href=\"https://e.org/\">five\n  six</ext-link>  seven.</p>\
         <list><list-item><p><italic>Eight</italic>\n  nine</p></list-item></list></sec></body></article>",
    );
    let texts: Vec<String> = b
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph(p) => Some(text_of(p)),
            Block::List(l) => l.items.first().and_then(|i| match i.blocks.first() {
                Some(Block::Paragraph(p)) => Some(text_of(p)),
                _ => None,
            }),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["One two three four five six seven.", "Eight nine"]);
}

#[test]
fn a_paragraph_of_formatted_words_only_is_one_paragraph() {
    // pandoc's DocBook: a list item whose text is two emphasised words, one per line.
    let b = blocks(
        "<article xmlns=\"http://docbook.org/ns/docbook\"><section><title>T</title>\
         <itemizedlist><listitem><para>\n  <emphasis role=\"strong\">Ban</emphasis>\n  <emphasis>ka</emphasis>\n</para></listitem></itemizedlist>\
         <para>\n  <emphasis role=\"bold\">Alone</emphasis>\n</para></section></article>",
    );
    let Block::List(l) = &b[1] else {
        panic!("{b:?}")
    };
    let [Block::Paragraph(p)] = l.items[0].blocks.as_slice() else {
        panic!("{l:?}")
    };
    assert_eq!(text_of(p), "Ban ka");
    assert!(
        matches!(&p[0], Inline::Text { text, style } if text == "Ban" && style.bold && !style.italic)
    );
    assert!(matches!(&p[2], Inline::Text { text, style } if text == "ka" && style.italic));
    let Block::Paragraph(p) = &b[2] else {
        panic!("{b:?}")
    };
    assert!(matches!(&p[0], Inline::Text { text, style } if text == "Alone" && style.bold));
}

#[test]
fn a_list_items_label_is_its_marker() {
    // pandoc's JATS writes a label into each item of a list that does not count 1., 2., …
    let b = blocks(
        "<article><body><sec><title>T</title>\
         <list list-type=\"alpha-upper\"><list-item><label>A)</label><p>First</p></list-item>\
         <list-item><label>B)</label><p>Second</p></list-item></list>\
         <list list-type=\"order\"><list-item><label>5.</label><p>Five</p></list-item>\
         <list-item><label>6.</label><p>Six</p></list-item></list>\
         <list list-type=\"simple\"><list-item><label>(a)</label><p>Kept</p></list-item></list>\
         </sec></body></article>",
    );
    let lists: Vec<&List> = b
        .iter()
        .filter_map(|b| match b {
            Block::List(l) => Some(l),
            _ => None,
        })
        .collect();
    let first = |l: &List| match l.items[0].blocks.as_slice() {
        [Block::Paragraph(p)] => text_of(p),
        other => panic!("{other:?}"),
    };
    assert_eq!(lists.len(), 3);
    assert!(lists[0].ordered && lists[0].start == 1);
    assert_eq!(first(lists[0]), "First");
    assert!(lists[1].ordered && lists[1].start == 5);
    assert_eq!(first(lists[1]), "Five");
    // A list that names no marker keeps the label as the item's text.
    assert_eq!(first(lists[2]), "(a) Kept");
}

#[test]
fn blocks_inside_running_text_start_lines_and_code_keeps_its_whitespace() {
    // A patent claim's nested <claim-text>s are its sub-paragraphs: each on a line of its own
    // however the source is wrapped; TeX in <tex-math> keeps its line breaks.
    let b = blocks(
        "<patent><claims><claim><claim-text>1. A device comprising:\n<claim-text>a first part; and</claim-text><claim-text>a second\n part.</claim-text></claim-text></claim></claims>\
         <description><p>See <tex-math>a\n  b</tex-math> here.</p></description></patent>",
    );
    let texts: Vec<String> = b
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph(p) => Some(
                p.iter()
                    .map(|i| match i {
                        Inline::Text { text, .. } => text.clone(),
                        Inline::Break => "|".into(),
                        _ => String::new(),
                    })
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            "1. A device comprising:|a first part; and|a second part.",
            "See a\n  b here."
        ]
    );
}

#[test]
fn tei_ref_with_a_target_is_a_link() {
    // pandoc's TEI: a linked word in a heading, `<ref target=…>`; the head stays a heading.
    let b = blocks(
        "<TEI><text><body><div type=\"level1\"><head><ref target=\"https://e.org/x\">Linked words</ref>\n  <hi rendition=\"simple:italic\">more</hi></head><p>Body.</p></div></body></text></TEI>",
    );
    let Block::Heading { content, .. } = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(text_of(content), "Linked words more");
    assert!(
        matches!(&content[0], Inline::Link(l) if l.href == "https://e.org/x"),
        "{content:?}"
    );
}

#[test]
fn an_opml_outline_is_a_nested_list_with_its_notes_and_links() {
    let doc = convert(
        r#"<?xml version="1.0"?>
<opml version="2.0">
  <head><title>States</title><ownerName>Dave Winer</ownerName>
    <dateModified>Thu, 14 Jul 2005 23:41:05 GMT</dateModified></head>
  <body>
    <outline text="Far West" created="Mon, 11 Jul 2005 10:00:00 GMT">
      <outline text="&lt;strong&gt;Nevada&lt;/strong&gt;" _note="I lived here.&#10;&#10;Loved it.">
        <outline text="Reno" type="link" url="http://www.reno.gov"/>
      </outline>
    </outline>
    <outline type="rss" text="" xmlUrl="https://example.org/feed.xml"/>
  </body>
</opml>"#,
    )
    .unwrap();
    assert_eq!(doc.metadata.title.as_deref(), Some("States"));
    assert_eq!(doc.metadata.author.as_deref(), Some("Dave Winer"));
    assert_eq!(
        doc.metadata.modified.as_deref(),
        Some("Thu, 14 Jul 2005 23:41:05 GMT")
    );
    let b = &doc.parts[0].blocks;
    assert_eq!(headings(b), vec![(1, "States".to_owned())]);
    assert_eq!(b.len(), 2, "{b:?}");
    let Block::List(top) = &b[1] else {
        panic!("a list, got {:?}", b[1]);
    };
    assert_eq!(top.items.len(), 2);
    let far_west = &top.items[0].blocks;
    assert_eq!(far_west[0], Block::text("Far West"));
    let Block::List(west) = &far_west[1] else {
        panic!("a nested list, got {far_west:?}");
    };
    let nevada = &west.items[0].blocks;
    assert_eq!(nevada[0], Block::text("Nevada"));
    assert_eq!(nevada[1], Block::text("I lived here."));
    assert_eq!(nevada[2], Block::text("Loved it."));
    let Block::List(cities) = &nevada[3] else {
        panic!("a nested list, got {nevada:?}");
    };
    let Block::Paragraph(reno) = &cities.items[0].blocks[0] else {
        panic!("a paragraph");
    };
    let Inline::Link(link) = &reno[0] else {
        panic!("a link, got {reno:?}");
    };
    assert_eq!(link.href, "http://www.reno.gov");
    assert_eq!(text_of(&link.content), "Reno");
    // A subscription with no text is named by its feed.
    let Block::Paragraph(feed) = &top.items[1].blocks[0] else {
        panic!("a paragraph");
    };
    assert_eq!(text_of(feed), "https://example.org/feed.xml");
    // No attribute leaks as `name=value` text.
    let md = format!("{b:?}");
    assert!(!md.contains("created"), "{md}");
}
