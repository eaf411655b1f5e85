use super::*;
use quire_plugin_api::{Block, Inline, Input, List, Style, Table};

fn convert_bytes(bytes: &[u8]) -> Document {
    let input = Input {
        bytes,
        file_name: "a.html",
        mime: "text/html",
    };
    HtmlConverter
        .convert(&input, &mut Context::new())
        .expect("html always converts")
}

fn convert(html: &str) -> Document {
    convert_bytes(html.as_bytes())
}

fn blocks(doc: &Document) -> &[Block] {
    &doc.parts[0].blocks
}

#[test]
fn headings_paragraphs_emphasis_links() {
    let doc = convert(
        "<html lang=en><head><title> My  page </title><style>p{}</style><script>var x</script></head>\
         <body><h1>Main <i>title</i></h1><div>Intro <b> bold </b>and <a href='/x' title=' Go  to\n x '> link </a>.\
         <p>Second<br>line</p></div><s>gone</s> <del>old</del></body></html>",
    );
    assert_eq!(doc.type_label, "HTML Document");
    assert_eq!(doc.metadata.title.as_deref(), Some("My page"));
    assert_eq!(doc.metadata.extra["language"], "en");
    let b = blocks(&doc);
    assert_eq!(
        b[0],
        Block::Heading {
            level: 1,
            content: vec![
                Inline::plain("Main "),
                Inline::styled("title", Style::ITALIC)
            ]
        }
    );
    assert_eq!(
        b[1],
        Block::Paragraph(vec![
            Inline::plain("Intro "),
            Inline::styled("bold", Style::BOLD),
            Inline::plain(" and "),
            Inline::link("/x", Some("Go to x".into()), vec![Inline::plain("link")]),
            Inline::plain(" ."),
        ])
    );
    assert_eq!(
        b[2],
        Block::Paragraph(vec![
            Inline::plain("Second"),
            Inline::Break,
            Inline::plain("line")
        ])
    );
    let Block::Paragraph(p) = &b[3] else {
        panic!("{b:?}")
    };
    assert!(matches!(&p[0], Inline::Text { text, style } if text == "gone old" && style.strike));
    assert_eq!(b.len(), 4);
}

#[test]
fn nested_lists_and_description_lists() {
    let doc = convert(
        "<ol start=4><li>four<ul><li>inner <b>x</b></li><li><input type=checkbox checked> done</li></ul></li>\
         <li><p>five</p></li></ol><dl><dt>Term</dt><dd>Definition</dd></dl>",
    );
    let b = blocks(&doc);
    let Block::List(List {
        ordered: true,
        start: 4,
        items,
    }) = &b[0]
    else {
        panic!("{b:?}")
    };
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].blocks[0], Block::text("four"));
    let Block::List(inner) = &items[0].blocks[1] else {
        panic!("{:?}", items[0])
    };
    assert!(!inner.ordered);
    assert_eq!(inner.items[1].checked, Some(true));
    assert_eq!(inner.items[1].blocks, vec![Block::text("done")]);
    assert_eq!(items[1].blocks, vec![Block::text("five")]);
    assert_eq!(
        b[1],
        Block::Paragraph(vec![Inline::styled("Term", Style::BOLD)])
    );
    assert_eq!(b[2], Block::text("Definition"));
}

#[test]
fn tables_with_headers_and_spans() {
    let doc = convert(
        "<table><caption>Cap</caption><thead><tr><th colspan=2>H</th></tr></thead>\
         <tbody><tr><td rowspan=9>a<br>b</td><td><p>x</p><p>y</p></td></tr><tr><td>z</td></tr></tbody></table>\
         <table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>\
         <table><tr><td><h2>Layout</h2><p>only</p></td></tr></table>",
    );
    let b = blocks(&doc);
    assert_eq!(b[0], Block::text("Cap"));
    let Block::Table(t) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(t.header_rows, 1);
    assert_eq!(t.rows[0][0].colspan, 2);
    assert_eq!(t.rows[1][0].rowspan, 2, "clamped to the remaining rows");
    assert_eq!(t.rows[1][0].content, vec![Inline::plain("a b")]);
    assert_eq!(t.rows[1][1].content, vec![Inline::plain("x y")]);
    let Block::Table(t2) = &b[2] else {
        panic!("{b:?}")
    };
    assert_eq!(t2.header_rows, 1);
    assert_eq!(b[3], Block::heading(2, "Layout"));
    assert_eq!(b[4], Block::text("only"));
}

/// The text of a cell as one string, line breaks as `\n`.
fn cell_text(cell: &quire_plugin_api::Cell) -> String {
    cell.content
        .iter()
        .map(|i| match i {
            Inline::Break => "\n".to_owned(),
            other => walk::plain_text(std::slice::from_ref(other)),
        })
        .collect()
}

#[test]
fn nested_table_in_a_data_cell_is_flattened_into_its_cell() {
    // A 2-column data table; one cell holds a small table (with a link and an empty cell),
    // another a table that nests one more.
    let doc = convert(
        "<p>Before</p><table><tr><th>Name</th><th>Sizes</th></tr>\
         <tr><td>Shirt</td><td>Sizes: <table><caption>cm</caption><tr><td>S</td><td><b>10</b></td></tr>\
         <tr><td>M</td><td></td><td><a href='/m'>12</a></td></tr></table>in stock</td></tr>\
         <tr><td>Hat</td><td>one size<table><tr><td>x</td><td><table><tr><td>1</td><td>2</td></tr>\
         <tr><td>3</td><td>4</td></tr></table></td></tr></table></td></tr></table><p>After</p>",
    );
    let b = blocks(&doc);
    assert_eq!(b.len(), 3, "{b:?}");
    assert_eq!(b[0], Block::text("Before"));
    let Block::Table(t) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(t.header_rows, 1);
    let texts: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(cell_text).collect())
        .collect();
    assert_eq!(
        texts,
        [
            ["Name", "Sizes"],
            ["Shirt", "Sizes:\ncm\nS | 10\nM | 12\nin stock"],
            ["Hat", "one size\nx | 1 | 2; 3 | 4"],
        ]
    );
    // Styles and links inside the nested cells survive the flattening.
    assert!(t.rows[1][1]
        .content
        .iter()
        .any(|i| matches!(i, Inline::Text { text, style } if text == "10" && style.bold)));
    assert!(t.rows[1][1]
        .content
        .iter()
        .any(|i| matches!(i, Inline::Link(l) if l.href == "/m")));
    assert_eq!(b[2], Block::text("After"));
}

#[test]
fn layout_wrapper_around_a_data_table_keeps_the_data_table() {
    // A 1x1 wrapper; a one-row sidebar/content layout; a layout whose cells hold headings and
    // lists. The wrappers go, their content stays in order, the data tables stay tables, and
    // a small table inside a data cell is flattened into that cell.
    let data = "<table><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>2</td></tr>\
                <tr><td>Cake</td><td><table><tr><td>slice</td><td>3</td></tr><tr><td>whole</td><td>20</td></tr></table></td></tr></table>";
    let wrappers = [
        format!("<table width=100%><tr><td><p>Intro</p>{data}<p>After</p></td></tr></table>"),
        format!("<table><tr><td>Intro</td><td>{data}</td><td>After</td></tr></table>"),
        format!(
            "<table><tr><td><h2>Intro</h2></td><td>{data}</td></tr>\
             <tr><td><ul><li>After</li></ul></td><td></td></tr></table>"
        ),
    ];
    for html in wrappers {
        let doc = convert(&html);
        let b = blocks(&doc);
        let tables: Vec<&Table> = b
            .iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .collect();
        assert_eq!(tables.len(), 1, "{html}: {b:?}");
        let t = tables[0];
        assert_eq!(t.header_rows, 1, "{html}");
        let texts: Vec<Vec<String>> = t
            .rows
            .iter()
            .map(|r| r.iter().map(cell_text).collect())
            .collect();
        assert_eq!(
            texts,
            [
                ["Item", "Price"],
                ["Tea", "2"],
                ["Cake", "slice | 3\nwhole | 20"]
            ],
            "{html}"
        );
        let table_at = b.iter().position(|x| matches!(x, Block::Table(_))).unwrap();
        let before = walk::plain_text(match &b[..table_at] {
            [Block::Paragraph(p) | Block::Heading { content: p, .. }] => p,
            other => panic!("{html}: {other:?}"),
        });
        assert_eq!(before, "Intro", "{html}");
        assert!(
            format!("{:?}", &b[table_at + 1..]).contains("After"),
            "{html}: {b:?}"
        );
    }
}

#[test]
fn a_large_nested_table_makes_the_outer_table_layout() {
    // Flattening twelve rows into one cell would hide a table; the outer table is layout.
    let rows: String = (1..=12)
        .map(|i| format!("<tr><td>r{i}</td><td>{i}</td></tr>"))
        .collect();
    let html = format!(
        "<table><tr><td>Logo</td><td>Title</td></tr><tr><td>Menu</td><td><table>{rows}</table></td></tr></table>"
    );
    let doc = convert(&html);
    let b = blocks(&doc);
    let [Block::Paragraph(_), Block::Paragraph(_), Block::Paragraph(_), Block::Table(t)] = b else {
        panic!("{b:?}")
    };
    assert_eq!(t.rows.len(), 12);
}

#[test]
fn pre_code_quote_rule_and_images() {
    let doc = convert(
        "<pre><code class=\"language-rust\">fn main() {\n    x &lt; y;\n}\n</code></pre>\
         <p>Use <code> cargo  run </code> now</p><blockquote><p>Quoted</p></blockquote><hr>\
         <img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"logo\" width=10>\
         <p>Remote <img src=\"https://x.y/a.png\" alt=\"a duck\"> here</p>\
         <p><img src=\"data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAEALAAAAAABAAEAAAIBTAA7\" alt=\"spacer\"></p>",
    );
    let b = blocks(&doc);
    assert_eq!(
        b[0],
        Block::Code {
            language: Some("rust".into()),
            text: "fn main() {\n    x < y;\n}".into()
        }
    );
    assert_eq!(
        b[1],
        Block::Paragraph(vec![
            Inline::plain("Use "),
            Inline::Code("cargo run".into()),
            Inline::plain(" now"),
        ])
    );
    assert_eq!(b[2], Block::Quote(vec![Block::text("Quoted")]));
    assert_eq!(b[3], Block::Rule);
    let Block::Image(img) = &b[4] else {
        panic!("{b:?}")
    };
    assert_eq!(
        (img.name.as_str(), img.mime.as_str()),
        ("image1.png", "image/png")
    );
    assert_eq!(img.alt.as_deref(), Some("logo"));
    assert_eq!(img.width, Some(10));
    assert_eq!(b[5], Block::text("Remote a duck here"));
    assert_eq!(
        b[6],
        Block::text("spacer"),
        "a 1x1 GIF is not kept as an image"
    );
}

#[test]
fn block_elements_inside_preformatted_text_keep_their_own_lines() {
    // An unclosed <p> inside <pre> is a child of the pre (the parser keeps it there), as are
    // the divs a syntax highlighter writes one per line.
    let doc = convert(
        "<pre>first<p>second</pre><pre><div>a = 1</div><div>b = 2</div>tail</pre>\
         <pre>x<span>y</span><br>z</pre>",
    );
    let b = blocks(&doc);
    let texts: Vec<&str> = b
        .iter()
        .map(|b| match b {
            Block::Code { text, .. } => text.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, ["first\nsecond", "a = 1\nb = 2\ntail", "xy\nz"]);
}

#[test]
fn invisible_content_is_dropped() {
    let doc = convert(
        "<body><nav>Menu</nav><noscript>Enable JS</noscript><template><p>T</p></template>\
         <p hidden>H</p><p style='display: none'>D</p><span aria-hidden=true>A</span>\
         <datalist><option>O</option></datalist><p>Visible</p>\
         <svg><title>icon</title><desc>D</desc><g>loose</g></svg><div role=navigation>N</div></body>",
    );
    assert_eq!(blocks(&doc), [Block::text("Visible")]);
    assert_eq!(doc.metadata.title, None);
}

#[test]
fn form_controls_and_object_fallbacks_read_as_a_browser_shows_them() {
    let doc = convert(
        "<p>Size <select><option>S<option selected>M<option>L</select> or \
         <select><optgroup label=g><option label='Extra large'>XL</optgroup></select>\
         <button>Order</button><input type=submit value=Send><input type=text value=typed>\
         <input type=hidden value=secret></p><textarea>Dear\nSir</textarea><option>Loose</option>\
         <object data=movie.swf><param name=q value=high><p>Fallback <b>text</b></p></object>",
    );
    assert_eq!(
        blocks(&doc),
        [
            Block::text("Size M or Extra large Order Send"),
            Block::text("Dear Sir"),
            Block::text("Loose"),
            Block::Paragraph(vec![
                Inline::plain("Fallback "),
                Inline::styled("text", Style::BOLD),
            ]),
        ]
    );
}

#[test]
fn svg_and_mathml_show_their_drawn_text() {
    let doc = convert(
        "<p>Chart<svg><title>icon</title><g>loose<text x=1>Sales <tspan>2024</tspan></text></g>\
         <foreignObject><b>inside</b></foreignObject></svg></p>\
         <p>So<math><mi>x</mi><mo>=</mo><mn>2</mn></math>holds\
         <math><semantics><mi>y</mi><annotation encoding='application/x-tex'>y</annotation>\
         </semantics></math>and<math alttext='z^2'><msup><mi>z</mi><mn>2</mn></msup></math></p>",
    );
    assert_eq!(
        blocks(&doc),
        [
            Block::Paragraph(vec![
                Inline::plain("Chart Sales 2024 "),
                Inline::styled("inside", Style::BOLD),
            ]),
            // token text, unless the page carries the formula's TeX (an annotation, alttext)
            Block::Paragraph(vec![
                Inline::plain("So x=2 holds "),
                Inline::Math {
                    tex: "y".into(),
                    display: false
                },
                Inline::plain(" and "),
                Inline::Math {
                    tex: "z^2".into(),
                    display: false
                },
            ]),
        ]
    );
}

#[test]
fn charsets_are_honoured() {
    let doc = convert_bytes(
        b"<html><head><meta charset=\"windows-1251\"><title>\xcf\xf0\xe8\xe2\xe5\xf2</title></head><body><p>\xcf\xf0\xe8\xe2\xe5\xf2</p></body></html>",
    );
    assert_eq!(doc.metadata.title.as_deref(), Some("Привет"));
    assert_eq!(doc.metadata.extra["encoding"], "windows-1251");
    let utf16: Vec<u8> = "<p>Grüße</p>"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let doc = convert_bytes(&utf16);
    assert_eq!(blocks(&doc), [Block::text("Grüße")]);
    let mut bom = vec![0xFE, 0xFF];
    bom.extend("<h1>Hi</h1>".encode_utf16().flat_map(u16::to_be_bytes));
    let doc = convert_bytes(&bom);
    assert_eq!(doc.metadata.title.as_deref(), Some("Hi"));
}

#[test]
fn deep_nesting_does_not_overflow() {
    let n = 100_000;
    let html = format!("{}deep text{}", "<div>".repeat(n), "</div>".repeat(n));
    let started = std::time::Instant::now();
    let doc = convert(&html);
    assert_eq!(blocks(&doc), [Block::text("deep text")]);
    eprintln!("100k nested divs: {:?}", started.elapsed());
    let html = format!("{}x", "<ul><li>".repeat(20_000));
    let _ = convert(&html);
    let html = format!("{}x", "<blockquote>".repeat(20_000));
    let _ = convert(&html);
    let html = format!("{}x", "<table><tr><td>".repeat(5_000));
    let _ = convert(&html);
    let html = format!("{}x", "<b><i>".repeat(20_000));
    let _ = convert(&html);
}

#[test]
fn configured_depth_limit_keeps_text() {
    let html = format!(
        "{}<p>inner <b>bold</b></p>{}",
        "<div>".repeat(50),
        "</div>".repeat(50)
    );
    let input = Input {
        bytes: html.as_bytes(),
        file_name: "a.html",
        mime: "text/html",
    };
    let limits = quire_plugin_api::Limits {
        max_depth: 10,
        ..Default::default()
    };
    let mut ctx = Context::new().with_limits(limits);
    let doc = HtmlConverter.convert(&input, &mut ctx).expect("converts");
    assert_eq!(blocks(&doc), [Block::text("inner bold")]);
    assert!(!ctx.warnings().is_empty());
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut x: u32 = 7;
    let pieces: [&[u8]; 14] = [
        b"<", b">", b"</", b"div", b"table", b"td", b"a href=", b"\"", b"&amp;", b"<!--", b"\xff",
        b" ", b"li", b"pre",
    ];
    let mut bytes = Vec::new();
    for _ in 0..30_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.extend_from_slice(pieces[(x >> 16) as usize % pieces.len()]);
    }
    let _ = convert_bytes(&bytes);
    let _ = convert_bytes(b"");
    let _ = convert_bytes(&[0xFF, 0xFE, 0x3C]);
}

#[test]
fn a_list_that_opens_with_bare_levels_goes_on_under_the_list_before() {
    // LibreOffice's HTML: a list that goes one or two levels deeper than the list above it is
    // written as a new list wrapped in levels with no item of their own.
    let doc = convert(
        "<ul><li><p>a</p><li><p>b</p></ul>\
         <ol><ol><li value=1><p>b1</p></ol></ol>\
         <ul><ul><ul><li><p>b1x</p></ul></ul></ul>\
         <p>after</p><ol><ol><li><p>alone</p></ol></ol>",
    );
    let b = blocks(&doc);
    let Block::List(top) = &b[0] else {
        panic!("{b:?}")
    };
    assert_eq!(top.items.len(), 2);
    let [Block::Paragraph(_), Block::List(level1)] = top.items[1].blocks.as_slice() else {
        panic!("{top:?}")
    };
    assert!(level1.ordered);
    let [Block::Paragraph(p), Block::List(level2)] = level1.items[0].blocks.as_slice() else {
        panic!("{level1:?}")
    };
    assert_eq!(p, &vec![Inline::plain("b1")]);
    assert_eq!(level2.items[0].blocks, [Block::text("b1x")]);
    // after other text there is no list to go on: left as it is
    assert!(
        matches!(&b[2], Block::List(List { items, .. }) if matches!(items[0].blocks.as_slice(), [Block::List(_)]))
    );
}

#[test]
fn a_first_paragraph_that_says_the_title_is_the_title_heading() {
    // LibreOffice's HTML export of a document with a Title paragraph: a centred bold <p>.
    let doc = convert(
        "<html><head><title>My Great Report</title></head><body>\
         <p align=center><font size=5><b>My\nGreat  Report</b></font></p>\
         <h1>Intro</h1><p>Some text.</p></body></html>",
    );
    let b = blocks(&doc);
    assert_eq!(
        b[0],
        Block::Heading {
            level: 1,
            content: vec![Inline::plain("My Great Report")]
        }
    );
    assert!(matches!(b[1], Block::Heading { level: 1, .. }));
    // Not when a heading comes first, when the text differs, when it holds a link, or when
    // it is not bold throughout.
    for body in [
        "<h2>Other</h2><p><b>My Great Report</b></p>",
        "<p><b>My Great Report, draft</b></p>",
        "<p><a href='/'>My Great Report</a></p>",
        "<p>My Great Report</p>",
        "<p><b>My Great</b> Report</p>",
    ] {
        let doc = convert(&format!(
            "<html><head><title>My Great Report</title></head><body>{body}</body></html>"
        ));
        assert!(
            !matches!(blocks(&doc)[0], Block::Heading { level: 1, .. }),
            "{body}"
        );
    }
}

#[test]
fn two_line_breaks_part_paragraphs() {
    // Pages without `<p>` (Paul Graham's essays, mail archives) part their paragraphs with
    // `<br><br>`: a blank line. One `<br>` stays a line break; three count as two; inside a
    // link the lines stay together, and a table cell's text stays in its cell.
    let doc = convert(
        "<body>Title<br><br>One <b>line</b><br>two<br> <br>\n<br>Next <a href='/x'>a<br><br>b</a> end\
         <table><tr><th>k</th><th>v</th></tr><tr><td>c<br><br>d</td><td>e</td></tr></table></body>",
    );
    let b = blocks(&doc);
    assert_eq!(b[0], Block::text("Title"));
    assert_eq!(
        b[1],
        Block::Paragraph(vec![
            Inline::plain("One "),
            Inline::styled("line", Style::BOLD),
            Inline::Break,
            Inline::plain("two"),
        ])
    );
    assert_eq!(
        b[2],
        Block::Paragraph(vec![
            Inline::plain("Next "),
            Inline::link(
                "/x",
                None,
                vec![Inline::plain("a"), Inline::Break, Inline::plain("b")]
            ),
            Inline::plain(" end"),
        ])
    );
    let Block::Table(t) = &b[3] else {
        panic!("{b:?}")
    };
    assert_eq!(t.rows[1][0].content, vec![Inline::plain("c d")]);
    assert_eq!(b.len(), 4);
}

#[test]
fn an_iframes_srcdoc_shows_in_its_place() {
    let doc = convert(
        "<body><p>outside</p><iframe srcdoc=\"<h2>Framed</h2><p>this is the &lt;b&gt;iframe&lt;/b&gt; content</p>\
         <script>gone()</script><iframe srcdoc='<p>inner frame</p>'></iframe>\"></iframe>\
         <iframe src='https://example.com/x.html'>fallback never shown</iframe><p>after</p>\
         <table><tr><th>Name</th><th>Value</th></tr><tr><td>cell <iframe srcdoc='<p>one</p><p>two</p>'></iframe></td>\
         <td>2</td></tr></table></body>",
    );
    let b = blocks(&doc);
    assert_eq!(b[0], Block::Paragraph(vec![Inline::plain("outside")]));
    assert_eq!(
        b[1],
        Block::Heading {
            level: 2,
            content: vec![Inline::plain("Framed")]
        }
    );
    assert_eq!(
        b[2],
        Block::Paragraph(vec![
            Inline::plain("this is the "),
            Inline::styled("iframe", Style::BOLD),
            Inline::plain(" content")
        ])
    );
    assert_eq!(b[3], Block::Paragraph(vec![Inline::plain("inner frame")]));
    assert_eq!(b[4], Block::Paragraph(vec![Inline::plain("after")]));
    let Block::Table(table) = &b[5] else {
        panic!("a table, got {:?}", b[5]);
    };
    assert_eq!(cell_text(&table.rows[1][0]), "cell one two");
    assert_eq!(b.len(), 6);
}

#[test]
fn frames_inside_frames_stop_at_the_depth_limit() {
    // Each level escapes the next; a deep enough chain must end, not overflow the stack.
    let mut html = String::from("<p>core</p>");
    for _ in 0..40 {
        html = format!(
            "<iframe srcdoc=\"{}\"></iframe>",
            html.replace('&', "&amp;").replace('"', "&quot;")
        );
    }
    let input = Input {
        bytes: html.as_bytes(),
        file_name: "a.html",
        mime: "text/html",
    };
    let mut ctx = Context::new();
    ctx.limits.max_depth = 64;
    let doc = HtmlConverter.convert(&input, &mut ctx).expect("converts");
    assert!(blocks(&doc).is_empty());
    assert!(ctx.warnings().iter().any(|w| w.contains("nested deeper")));
}

#[test]
fn formulas_read_as_latex_from_the_tex_the_page_carries() {
    // pandoc's HTML (MathJax delimiters in a math span), KaTeX (a TeX annotation beside its
    // hidden HTML rendering), MediaWiki (a hidden MathML copy and a fallback picture whose alt
    // text is the TeX), MathML with TeX alttext; MathML without TeX keeps its token text.
    let doc = convert(
        "<p>Sum <span class=\"math inline\">\\(a_1 + b^2\\)</span> here.</p>\
         <p><span class=\"math display\">\\[\\int_0^1 x\\,dx\\]</span></p>\
         <p>KaTeX <span class=\"katex\"><span class=\"katex-mathml\"><math><semantics><mrow><mi>x</mi></mrow>\
         <annotation encoding=\"application/x-tex\">x^{2}</annotation></semantics></math></span>\
         <span class=\"katex-html\" aria-hidden=\"true\">x2</span></span> end.</p>\
         <p>Wiki <span class=\"mwe-math-element\"><span class=\"mwe-math-mathml-inline\" style=\"display: none;\">\
         <math alttext=\"{\\displaystyle E=mc^{2}}\"><mi>E</mi></math></span>\
         <img src=\"https://wikimedia.org/x.svg\" class=\"mwe-math-fallback-image-inline\" alt=\"{\\displaystyle E=mc^{2}}\"></span>.</p>\
         <p><math display=\"block\" alttext=\"\\frac{1}{2}\"><mfrac><mn>1</mn><mn>2</mn></mfrac></math></p>\
         <p>Plain <math><mi>y</mi><mo>=</mo><mn>3</mn></math> stays.</p>\
         <p><span class=\"math inline\">not delimited</span></p>",
    );
    let math = |tex: &str, display: bool| Inline::Math {
        tex: tex.into(),
        display,
    };
    let b = blocks(&doc);
    assert_eq!(
        b[0],
        Block::Paragraph(vec![
            Inline::plain("Sum "),
            math("a_1 + b^2", false),
            Inline::plain(" here.")
        ])
    );
    assert_eq!(b[1], Block::Paragraph(vec![math("\\int_0^1 x\\,dx", true)]));
    assert_eq!(
        b[2],
        Block::Paragraph(vec![
            Inline::plain("KaTeX "),
            math("x^{2}", false),
            Inline::plain(" end.")
        ])
    );
    assert_eq!(
        b[3],
        Block::Paragraph(vec![
            Inline::plain("Wiki "),
            math("E=mc^{2}", false),
            Inline::plain(".")
        ])
    );
    assert_eq!(b[4], Block::Paragraph(vec![math("\\frac{1}{2}", true)]));
    assert_eq!(
        b[5],
        Block::Paragraph(vec![Inline::plain("Plain y=3 stays.")])
    );
    assert_eq!(b[6], Block::Paragraph(vec![Inline::plain("not delimited")]));
}
