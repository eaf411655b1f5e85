//! Conversions of PDFs generated in code: reading order, structure, metadata, images,
//! scanned pages, errors and limits.

mod support;

use quire_plugin_api::{
    Block, Context, Converter, Document, ErrorKind, Inline, Input, Limits, OcrImage, OcrOutput,
    OcrProvider, Result,
};
use quire_plugin_pdf::{
    flatten::{document_text, part_text},
    PdfConverter,
};
use support::pdfgen::{bold, pdf, text, Info, Page, Picture};

fn convert_with(bytes: &[u8], ctx: &mut Context<'_>) -> Result<Document> {
    let converter = PdfConverter::new(&support::config());
    converter.convert(
        &Input {
            bytes,
            file_name: "test.pdf",
            mime: "application/pdf",
        },
        ctx,
    )
}

fn convert(bytes: &[u8]) -> Document {
    convert_with(bytes, &mut Context::new()).expect("conversion")
}

fn body(lines: &[&str], x: f32, top: f32, size: f32) -> Vec<support::pdfgen::Text> {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| text(x, top - i as f32 * size * 1.25, size, l))
        .collect()
}

fn headings(doc: &Document) -> Vec<(u8, String)> {
    doc.parts
        .iter()
        .flat_map(|p| &p.blocks)
        .filter_map(|b| match b {
            Block::Heading { level, content } => Some((
                *level,
                content
                    .iter()
                    .filter_map(|i| match i {
                        Inline::Text { text, .. } => Some(text.clone()),
                        _ => None,
                    })
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

/// Converts a page of columns (each a list of lines, 180 pt apart) and checks it is no table
/// and that each `(end, start)` pair reads in order: one column's last line before the next
/// column's first.
fn assert_columns_read_in_order(columns: &[Vec<String>], order: &[(&str, &str)]) {
    let mut page = Page::default();
    for (k, lines) in columns.iter().enumerate() {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        page.texts
            .extend(body(&lines, 54.0 + k as f32 * 180.0, 700.0, 9.0));
    }
    let doc = convert(&pdf(&[page], None));
    let blocks = &doc.parts[0].blocks;
    assert!(
        !blocks.iter().any(|b| matches!(b, Block::Table(_))),
        "{blocks:#?}"
    );
    let text = document_text(&doc);
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s} missing:\n{text}"))
    };
    for (end, start) in order {
        assert!(at(end) < at(start), "columns interleaved:\n{text}");
    }
}

#[test]
fn two_columns_are_read_one_after_the_other() {
    let left = [
        "Left column first line of running text here",
        "left column second line of running text too",
        "left column third line of running text again",
        "left column fourth line ends the left side.",
    ];
    let right = [
        "Right column first line of running text here",
        "right column second line of running text too",
        "right column third line of running text again",
        "right column fourth line ends the right side.",
    ];
    let mut page = Page::default();
    page.texts
        .push(bold(72.0, 720.0, 18.0, "A Two Column Title"));
    page.texts.extend(body(&left, 72.0, 680.0, 10.0));
    page.texts.extend(body(&right, 320.0, 680.0, 10.0));
    let doc = convert(&pdf(&[page], None));
    let text = document_text(&doc);
    let l4 = text.find("left side.").expect("left text");
    let r1 = text.find("Right column first").expect("right text");
    let t = text.find("A Two Column Title").expect("title");
    assert!(t < l4 && l4 < r1, "columns interleaved:\n{text}");
    assert_eq!(headings(&doc), vec![(1, "A Two Column Title".to_string())]);
    // The four lines of a column are one paragraph.
    let paras = doc.parts[0]
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::Paragraph(_)))
        .count();
    assert_eq!(paras, 2, "{:#?}", doc.parts[0].blocks);
}

#[test]
fn three_columns_on_one_line_pitch_are_read_one_after_the_other() {
    // Three narrow columns of prose whose lines share their baselines (one font, one line
    // height, as a browser sets CSS columns): each side of a gutter is itself split by the next
    // gutter, which must not make the page read as a table.
    let column = |name: &str| -> Vec<String> {
        (1..=6)
            .map(|i| format!("{name} column line {i} of its prose"))
            .collect()
    };
    let columns: Vec<Vec<String>> = ["First", "Second", "Third"]
        .iter()
        .map(|n| column(n))
        .collect();
    assert_columns_read_in_order(
        &columns,
        &[
            ("First column line 6", "Second column line 1"),
            ("Second column line 6", "Third column line 1"),
        ],
    );
}

#[test]
fn a_narrow_column_of_list_items_between_prose_columns_is_a_column() {
    // Three columns on one line pitch where the middle one holds numbered items whose lines
    // are short (a narrow column wraps them after two or three words): short lines beside
    // each other are not table cells when one side is a column of list items.
    let prose = |name: &str| -> Vec<String> {
        (1..=8)
            .map(|i| format!("{name} column line {i} of its prose"))
            .collect()
    };
    let items: Vec<String> = vec![
        "1. Mixed lane",
        "harbour keel",
        "2. Amber",
        "ridge north",
        "3. Copper slate",
        "window",
        "4. Distant",
        "meadow",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_columns_read_in_order(
        &[prose("First"), items, prose("Third")],
        &[
            ("First column line 8", "Mixed lane"),
            ("meadow", "Third column line 1"),
        ],
    );
}

#[test]
fn narrow_columns_of_three_word_lines_are_columns() {
    // Three narrow columns of prose (a browser's CSS columns, justified or not) wrap after
    // three words, so their lines are as short as table cells; most of them carry on a
    // sentence and start lower-case, where a table's cells start afresh.
    let column = |name: &str| -> Vec<String> {
        let mut lines: Vec<String> = (1..=8).map(|i| format!("{name}{i} runs onward")).collect();
        lines[0] = format!("Then {name}1 runs");
        lines[4] = format!("Again {name}5 runs");
        lines
    };
    let columns: Vec<Vec<String>> = ["first", "second", "third"]
        .iter()
        .map(|n| column(n))
        .collect();
    assert_columns_read_in_order(
        &columns,
        &[("first8", "Then second1"), ("second8", "Then third1")],
    );
}

#[test]
fn columns_above_and_below_a_full_width_line_are_read_column_by_column() {
    // Three columns of prose, a line that spans all of them set on their line pitch (a
    // full-width table row or heading between CSS columns), more space under it, then three
    // more columns. No gutter runs through the page; a paragraph break shared by the upper
    // columns is the widest gap, and cutting there first leaves the lines between it and the
    // spanning line with no gap but line spacing, read row by row across the columns. The
    // cut belongs just above the spanning line, where the column structure changes.
    let size = 9.0;
    let pitch = size * 1.25;
    let mut page = Page::default();
    // One row of the three columns: "<name> column line <i> of prose" in each.
    let row = |page: &mut Page, y: f32, names: [&str; 3], i: usize| {
        for (k, name) in names.iter().enumerate() {
            page.texts.push(text(
                54.0 + k as f32 * 180.0,
                y,
                size,
                &format!("{name} column line {i} of prose"),
            ));
        }
    };
    let mut y = 700.0;
    for i in 1..=8 {
        if i == 5 {
            y -= 0.6 * pitch;
        }
        row(
            &mut page,
            y,
            ["Upper first", "Upper second", "Upper third"],
            i,
        );
        y -= pitch;
    }
    page.texts.push(text(
        54.0,
        y,
        size,
        "A spanning line of text that runs across the whole width of the page and all three of its columns",
    ));
    y -= 1.4 * pitch;
    for i in 1..=6 {
        row(
            &mut page,
            y,
            ["Lower first", "Lower second", "Lower third"],
            i,
        );
        y -= pitch;
    }
    let doc = convert(&pdf(&[page], None));
    let text = document_text(&doc);
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s} missing:\n{text}"))
    };
    for (end, start) in [
        ("Upper first column line 8", "Upper second column line 1"),
        ("Upper second column line 8", "Upper third column line 1"),
        ("Upper third column line 8", "A spanning line"),
        ("A spanning line", "Lower first column line 1"),
        ("Lower first column line 6", "Lower second column line 1"),
        ("Lower second column line 6", "Lower third column line 1"),
    ] {
        assert!(at(end) < at(start), "{end} / {start}:\n{text}");
    }
}

#[test]
fn a_run_in_numbered_heading_is_a_heading() {
    // "**5.1 Hyper Parameter Optimization** We have chosen ...": the section title set in bold
    // at the start of its first paragraph's line, as LNCS papers set their subsections.
    let mut page = Page::default();
    page.texts.extend(body(
        &[
            "The previous section ends with a sentence of ordinary running text that",
            "fills a line or two of the page before the next section starts below it.",
        ],
        72.0,
        720.0,
        10.0,
    ));
    // Helvetica-Bold "5.1 Hyper Parameter Optimization" at 10 pt is 163.4 pt wide.
    page.texts
        .push(bold(72.0, 690.0, 10.0, "5.1 Hyper Parameter Optimization"));
    page.texts.push(text(
        72.0 + 163.4 + 2.8,
        690.0,
        10.0,
        "We have chosen the data set to perform the search,",
    ));
    page.texts.extend(body(
        &["since it includes a highly diverse set of tables and more."],
        72.0,
        677.5,
        10.0,
    ));
    let doc = convert(&pdf(&[page], None));
    assert_eq!(
        headings(&doc),
        vec![(2, "5.1 Hyper Parameter Optimization".to_string())],
        "{:#?}",
        doc.parts[0].blocks
    );
    let text = document_text(&doc);
    assert!(
        text.contains(
            "Optimization\n\nWe have chosen the data set to perform the search, since it"
        ),
        "{text}"
    );
}

#[test]
fn table_like_rows_stay_rows() {
    let mut page = Page::default();
    for (i, (k, v)) in [("Name", "Alice"), ("City", "Paris"), ("Role", "Engineer")]
        .iter()
        .enumerate()
    {
        let y = 700.0 - i as f32 * 14.0;
        page.texts.push(text(72.0, y, 10.0, k));
        page.texts.push(text(300.0, y, 10.0, v));
    }
    let doc = convert(&pdf(&[page], None));
    let text = quire_plugin_api::text::fold_whitespace(&document_text(&doc));
    assert!(text.contains("Name Alice"), "{text}");
    assert!(text.contains("City Paris"), "{text}");
}

#[test]
fn a_table_set_small_at_the_top_of_a_page_is_not_a_running_head() {
    // A table in 9 pt type at the very top of the page (where a running head would be, in
    // type smaller than the body), then 11 pt prose.
    let mut page = Page::default();
    let rows = [
        ("Region", "Units", "Share"),
        ("North", "1,204", "12.5"),
        // (A cell that is a bare integer, alone in the top band, still passes for a page
        // number: not what this test is about.)
        ("South", "88.5", "3.0"),
        ("West", "9,310", "84.5"),
    ];
    for (i, (a, b, c)) in rows.iter().enumerate() {
        let y = 760.0 - i as f32 * 11.0;
        page.texts.push(text(72.0, y, 9.0, a));
        page.texts.push(text(250.0, y, 9.0, b));
        page.texts.push(text(400.0, y, 9.0, c));
    }
    page.texts.extend(body(
        &[
            "The prose of the page starts under the table and runs on for",
            "a few lines of body text set in a larger size than the table",
            "so that the table's type is the smaller one on the whole page.",
        ],
        72.0,
        700.0,
        11.0,
    ));
    let doc = convert(&pdf(&[page], None));
    let text = quire_plugin_api::text::fold_whitespace(&document_text(&doc));
    for word in ["Region", "Units", "North", "West", "84.5"] {
        assert!(text.contains(word), "{word} left out: {text}");
    }
}

#[test]
fn headings_by_size_and_metadata() {
    let mut page = Page::default();
    page.texts.push(text(72.0, 720.0, 22.0, "Introduction"));
    page.texts.extend(body(
        &[
            "The body text is set in a smaller font and runs over",
            "several lines so that it is clearly the body of the page.",
        ],
        72.0,
        690.0,
        11.0,
    ));
    page.texts.push(text(72.0, 630.0, 15.0, "Background"));
    page.texts.extend(body(
        &["More body text follows the second heading on this page."],
        72.0,
        605.0,
        11.0,
    ));
    let info = Info {
        title: "Generated Title",
        author: "Jane Doe",
        created: "D:20240301100000+02'00'",
    };
    let doc = convert(&pdf(&[page], Some(info)));
    assert_eq!(
        headings(&doc),
        vec![
            (1, "Introduction".to_string()),
            (2, "Background".to_string())
        ]
    );
    assert_eq!(doc.type_label, "PDF Document");
    assert_eq!(doc.metadata.title.as_deref(), Some("Generated Title"));
    assert_eq!(doc.metadata.author.as_deref(), Some("Jane Doe"));
    assert_eq!(
        doc.metadata.created.as_deref(),
        Some("2024-03-01T10:00:00+02:00")
    );
    assert_eq!(doc.metadata.extra["num_pages"], serde_json::json!(1));
}

#[test]
fn title_falls_back_to_first_heading() {
    let mut page = Page::default();
    page.texts
        .push(text(72.0, 720.0, 24.0, "Quarterly Numbers"));
    page.texts.extend(body(
        &["Plain body text under the heading, long enough."],
        72.0,
        690.0,
        11.0,
    ));
    let doc = convert(&pdf(&[page], None));
    assert_eq!(doc.metadata.title.as_deref(), Some("Quarterly Numbers"));
}

#[test]
fn hyphenated_line_ends_are_rejoined_and_lists_found() {
    let mut page = Page::default();
    page.texts.extend(body(
        &[
            "This paragraph shows an exam-",
            "ple of a word broken over two lines of text.",
        ],
        72.0,
        700.0,
        11.0,
    ));
    page.texts.extend(body(
        &["• First item of the list", "• Second item of the list"],
        72.0,
        640.0,
        11.0,
    ));
    page.texts.extend(body(
        &["1. Numbered one", "2. Numbered two"],
        72.0,
        590.0,
        11.0,
    ));
    let doc = convert(&pdf(&[page], None));
    let text = document_text(&doc);
    assert!(text.contains("an example of a word"), "{text}");
    let lists: Vec<_> = doc.parts[0]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::List(l) => Some((l.ordered, l.items.len())),
            _ => None,
        })
        .collect();
    assert_eq!(
        lists,
        vec![(false, 2), (true, 2)],
        "{:#?}",
        doc.parts[0].blocks
    );
    assert!(text.contains("First item of the list") && !text.contains('\u{2022}'));
}

#[test]
fn running_headers_footers_and_page_numbers_are_left_out() {
    let pages: Vec<Page> = (1..=3)
        .map(|n| {
            let mut page = Page::default();
            page.texts
                .push(text(72.0, 760.0, 9.0, "ACME Corporation Annual Report"));
            page.texts.extend(body(
                &[&format!(
                    "Body text of page {n} which is long enough to be body."
                )],
                72.0,
                700.0,
                11.0,
            ));
            page.texts.push(text(300.0, 30.0, 9.0, &format!("{n}")));
            page
        })
        .collect();
    let doc = convert(&pdf(&pages, None));
    assert_eq!(doc.parts.len(), 3);
    for (i, part) in doc.parts.iter().enumerate() {
        let text = quire_plugin_pdf::flatten::part_text(part);
        assert_eq!(
            text.trim(),
            format!(
                "Body text of page {} which is long enough to be body.",
                i + 1
            )
        );
    }
    // On a one-page document nothing repeats: a small line at the top is still a running
    // head, and a footer carrying the page's own number beside a name is furniture.
    let mut page = Page::default();
    page.texts
        .push(text(72.0, 760.0, 8.0, "Quarterly Field Notes"));
    page.texts.extend(body(
        &["The only page of this document holds its body text here."],
        72.0,
        700.0,
        11.0,
    ));
    page.texts.push(text(280.0, 30.0, 11.0, "Acme Ltd | 1"));
    let doc = convert(&pdf(&[page], None));
    assert_eq!(
        quire_plugin_pdf::flatten::part_text(&doc.parts[0]).trim(),
        "The only page of this document holds its body text here."
    );
}

#[test]
fn links_wrap_the_text_they_cover() {
    let mut page = Page::default();
    page.texts.push(text(72.0, 700.0, 11.0, "Visit"));
    page.texts.push(text(110.0, 700.0, 11.0, "example"));
    page.link = Some((108.0, 695.0, 160.0, 712.0, "https://example.com/".into()));
    let doc = convert(&pdf(&[page], None));
    let Block::Paragraph(inlines) = &doc.parts[0].blocks[0] else {
        panic!("{:#?}", doc.parts[0].blocks)
    };
    assert!(
        inlines
            .iter()
            .any(|i| matches!(i, Inline::Link(l) if l.href == "https://example.com/")),
        "{inlines:#?}"
    );
}

fn image_page() -> Vec<u8> {
    let mut page = Page::default();
    page.pictures.push(Picture {
        x: 0.0,
        y: 0.0,
        w: 612.0,
        h: 792.0,
        px_w: 40,
        px_h: 50,
        soft_mask: false,
    });
    pdf(&[page], None)
}

struct FakeOcr;

impl OcrProvider for FakeOcr {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput> {
        assert_eq!(image.mime, "image/png");
        assert!(image.data.starts_with(b"\x89PNG"));
        Ok(OcrOutput {
            text: "Scanned words\nfrom the page\n\nSecond paragraph".into(),
            confidence: Some(0.9),
        })
    }
}

#[test]
fn scanned_pages_are_read_by_ocr_or_reported() {
    let bytes = image_page();
    // Without OCR: a warning, and the page image is kept.
    let mut ctx = Context::new();
    let doc = convert_with(&bytes, &mut ctx).expect("conversion");
    assert!(
        ctx.warnings()
            .iter()
            .any(|w| w.contains("Page 1 has no text layer")),
        "{:?}",
        ctx.warnings()
    );
    let images = doc.images();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].mime, "image/png");
    assert_eq!((images[0].width, images[0].height), (Some(40), Some(50)));
    assert!(images[0].data.starts_with(b"\x89PNG"));
    // With OCR: the text becomes the page's paragraphs.
    let ocr = FakeOcr;
    let mut ctx = Context::new().with_ocr("fake", &ocr);
    let doc = convert_with(&bytes, &mut ctx).expect("conversion");
    assert_eq!(
        doc.parts[0].blocks,
        vec![
            Block::text("Scanned words from the page"),
            Block::text("Second paragraph")
        ]
    );
    assert_eq!(ctx.ocr_image_count(), 1);
}

/// What an OCR provider was given: width, height, dpi, top-left grey, bottom-left grey.
type Seen = (u32, u32, Option<u32>, u8, u8);

/// An OCR provider that records what it was given.
#[derive(Default)]
struct SeeingOcr {
    seen: std::sync::Mutex<Vec<Seen>>,
}

impl OcrProvider for SeeingOcr {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput> {
        let decoded = image::load_from_memory(image.data)
            .expect("a PNG")
            .into_luma8();
        let (w, h) = decoded.dimensions();
        self.seen.lock().unwrap().push((
            w,
            h,
            image.dpi,
            decoded.get_pixel(0, 0).0[0],
            decoded.get_pixel(0, h - 1).0[0],
        ));
        Ok(OcrOutput {
            text: "Scanned words".into(),
            confidence: Some(0.9),
        })
    }
}

#[test]
fn a_page_that_is_one_image_is_read_from_the_image_itself() {
    // A 150-dpi scan covering a letter page, drawn upright and drawn mirrored top to bottom
    // (a negative vertical scale). Its rows brighten downwards (green grows with the row).
    let scan = |flipped: bool| {
        let mut page = Page::default();
        page.pictures.push(Picture {
            x: 0.0,
            y: if flipped { 792.0 } else { 0.0 },
            w: 612.0,
            h: if flipped { -792.0 } else { 792.0 },
            px_w: 1275,
            px_h: 1650,
            soft_mask: false,
        });
        pdf(&[page], None)
    };
    for flipped in [false, true] {
        let ocr = SeeingOcr::default();
        let mut ctx = Context::new().with_ocr("seeing", &ocr);
        convert_with(&scan(flipped), &mut ctx).expect("conversion");
        let seen = ocr.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 1, "{seen:?}");
        let (w, h, dpi, top, bottom) = seen[0];
        // Its own pixels at its own resolution (a rendering would be 1700 x 2200 at 200 dpi).
        assert_eq!((w, h, dpi), (1275, 1650, Some(150)), "flipped: {flipped}");
        // As the page shows it: the first row on top, or the last one when mirrored.
        if flipped {
            assert!(top > bottom + 100, "{top} {bottom}");
        } else {
            assert!(bottom > top + 100, "{top} {bottom}");
        }
    }
}

/// Two pages of prose; the second in a font whose codes are not its characters.
fn unmapped_font_pdf() -> Vec<u8> {
    let lines = [
        "The committee reviewed the annual report and agreed that the figures for",
        "the second quarter should be published together with the notes on the",
        "methodology before the meeting of the board in the coming month.",
    ];
    let good = Page {
        texts: body(&lines, 72.0, 700.0, 11.0),
        ..Page::default()
    };
    let mut broken = Page {
        texts: body(&lines, 72.0, 700.0, 11.0),
        unmapped_font: true,
        ..Page::default()
    };
    broken.texts.push(bold(72.0, 740.0, 14.0, "Minutes"));
    pdf(&[good, broken], None)
}

#[test]
fn text_without_a_usable_unicode_map_is_reported_or_read_by_ocr() {
    let bytes = unmapped_font_pdf();
    // Without OCR: the characters are left as they are (never rewritten) and a warning names
    // the page and says what to do.
    let mut ctx = Context::new();
    let doc = convert_with(&bytes, &mut ctx).expect("conversion");
    let text = document_text(&doc);
    assert!(text.contains("7KH FRPPLWWHH"), "{text}");
    assert!(text.contains("The committee reviewed"), "{text}");
    let warnings = ctx.warnings().to_vec();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("Page 2 uses a font without a usable Unicode mapping")
            && warnings[0].contains("\"Helvetica\"")
            && warnings[0].contains("OCR"),
        "{warnings:?}"
    );
    // With OCR: that page, and only that page, is read from its image.
    let ocr = FakeOcr;
    let mut ctx = Context::new().with_ocr("fake", &ocr);
    let doc = convert_with(&bytes, &mut ctx).expect("conversion");
    assert_eq!(ctx.ocr_image_count(), 1);
    assert!(ctx.warnings().is_empty(), "{:?}", ctx.warnings());
    assert!(part_text(&doc.parts[0]).contains("The committee"));
    assert_eq!(
        doc.parts[1].blocks,
        vec![
            Block::text("Scanned words from the page"),
            Block::text("Second paragraph")
        ]
    );
}

#[test]
fn filled_form_fields_are_read_with_the_page() {
    // The values of a filled form live in its fields' appearance streams, not in the page's
    // content; they are part of what the page says.
    let page = Page {
        texts: vec![text(72.0, 700.0, 10.0, "Applicant name:")],
        field: Some((160.0, 694.0, 360.0, 712.0, "Jane Q. Example".to_string())),
        link: Some((
            72.0,
            650.0,
            200.0,
            662.0,
            "https://example.org/".to_string(),
        )),
        ..Page::default()
    };
    let mut page = page;
    page.texts.push(text(72.0, 652.0, 10.0, "Read the terms"));
    let doc = convert(&pdf(&[page], None));
    let text = document_text(&doc);
    assert!(text.contains("Applicant name: Jane Q. Example"), "{text}");
    // Links are kept although the annotations were flattened away.
    let linked = doc.parts[0]
        .blocks
        .iter()
        .any(|b| format!("{b:?}").contains("https://example.org/"));
    assert!(linked, "{:#?}", doc.parts[0].blocks);
}

#[test]
fn image_limits_skip_with_a_reason() {
    let bytes = image_page();
    let mut ctx = Context::new().with_limits(Limits {
        max_image_pixels: 100,
        ..Limits::default()
    });
    let doc = convert_with(&bytes, &mut ctx).expect("conversion");
    let images = doc.images();
    assert_eq!(images.len(), 1);
    assert!(images[0].skipped.is_some() && images[0].data.is_empty());
}

#[test]
fn errors_and_limits() {
    let err = convert_with(b"%PDF-1.4 this is not a pdf", &mut Context::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    let pages: Vec<Page> = (0..3).map(|_| Page::default()).collect();
    let mut ctx = Context::new().with_limits(Limits {
        max_parts: 2,
        ..Limits::default()
    });
    let err = convert_with(&pdf(&pages, None), &mut ctx).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    // Progress per page.
    let mut seen = Vec::new();
    let mut sink = |d, t| seen.push((d, t));
    let mut ctx = Context::new().with_progress(&mut sink);
    convert_with(&pdf(&pages, None), &mut ctx).expect("conversion");
    drop(ctx);
    assert_eq!(seen, vec![(1, 3), (2, 3), (3, 3)]);
}

#[test]
fn a_damaged_xref_is_recovered() {
    let mut page = Page::default();
    page.texts.push(text(72.0, 700.0, 11.0, "Recovered text"));
    let mut bytes = pdf(&[page], None);
    // Break every xref offset.
    let xref = bytes.windows(4).position(|w| w == b"xref").expect("xref");
    for b in &mut bytes[xref + 30..xref + 60] {
        if b.is_ascii_digit() {
            *b = b'9';
        }
    }
    let doc = convert(&bytes);
    assert!(document_text(&doc).contains("Recovered text"));
}

#[test]
fn ruled_tables_become_tables() {
    let mut page = Page::default();
    page.texts
        .extend(body(&["A paragraph before the table."], 72.0, 740.0, 11.0));
    let (xs, ys) = ([72.0, 200.0, 330.0], [700.0, 680.0, 660.0, 640.0]);
    for y in ys {
        page.lines.push((xs[0], y, xs[2], y));
    }
    for x in xs {
        page.lines.push((x, ys[0], x, ys[3]));
    }
    let rows = [["Fruit", "Price"], ["Apple", "1.20"], ["Pear", "0.95"]];
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            page.texts.push(text(xs[c] + 5.0, ys[r] - 14.0, 10.0, cell));
        }
    }
    page.texts
        .extend(body(&["A paragraph after the table."], 72.0, 610.0, 11.0));
    let doc = convert(&pdf(&[page], None));
    let blocks = &doc.parts[0].blocks;
    assert_eq!(blocks.len(), 3, "{blocks:#?}");
    let Block::Table(table) = &blocks[1] else {
        panic!("{blocks:#?}")
    };
    let cells: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| match c.content.first() {
                    Some(Inline::Text { text, .. }) => text.clone(),
                    _ => String::new(),
                })
                .collect()
        })
        .collect();
    assert_eq!(
        cells,
        vec![
            vec!["Fruit", "Price"],
            vec!["Apple", "1.20"],
            vec!["Pear", "0.95"]
        ]
    );
    assert_eq!(table.header_rows, 1);
}

#[test]
fn a_ruled_table_of_narrow_cells_wrapping_over_several_lines_is_a_table() {
    // Cells a few words long, each wrapped over three or four lines of a narrow column (as a
    // table in one column of a three-column page): a table, not boxes of paragraphs.
    let (xs, ys) = ([72.0, 122.0, 172.0, 222.0], [700.0, 650.0, 600.0, 550.0]);
    let mut page = Page::default();
    for y in ys {
        page.lines.push((xs[0], y, xs[3], y));
    }
    for x in xs {
        page.lines.push((x, ys[0], x, ys[3]));
    }
    let cell = |r: usize, c: usize| -> [String; 4] {
        [
            format!("Row{r}"),
            format!("col{c}"),
            "wraps".to_string(),
            "here".to_string(),
        ]
    };
    for (r, top) in ys.iter().take(3).enumerate() {
        for (c, left) in xs.iter().take(3).enumerate() {
            for (l, word) in cell(r, c).iter().enumerate() {
                page.texts
                    .push(text(left + 4.0, top - 10.0 - l as f32 * 10.0, 8.0, word));
            }
        }
    }
    let doc = convert(&pdf(&[page], None));
    let blocks = &doc.parts[0].blocks;
    let Some(Block::Table(table)) = blocks.first() else {
        panic!("{blocks:#?}")
    };
    assert_eq!(
        (table.rows.len(), table.rows[0].len()),
        (3, 3),
        "{table:#?}"
    );
    let first: String = table.rows[1][2]
        .content
        .iter()
        .filter_map(|i| match i {
            Inline::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(first, "Row1 col2 wraps here");
}

/// The characters a reader sees, with ordered list numbers written back as Markdown would
/// write them (`N.`), so a rewritten marker shows up as changed text.
fn text_with_list_numbers(doc: &Document) -> String {
    fn inline_text(inlines: &[Inline], out: &mut String) {
        for i in inlines {
            match i {
                Inline::Text { text, .. } | Inline::Code(text) => out.push_str(text),
                Inline::Link(link) => inline_text(&link.content, out),
                Inline::Break => out.push(' '),
                _ => {}
            }
        }
    }
    fn blocks_text(blocks: &[Block], out: &mut String) {
        for block in blocks {
            match block {
                Block::Heading { content, .. } | Block::Paragraph(content) => {
                    inline_text(content, out);
                    out.push('\n');
                }
                Block::List(l) => {
                    for (i, item) in l.items.iter().enumerate() {
                        if l.ordered {
                            out.push_str(&format!("{}. ", l.start + i as u64));
                        }
                        blocks_text(&item.blocks, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = String::new();
    for part in &doc.parts {
        blocks_text(&part.blocks, &mut out);
    }
    out
}

#[test]
fn the_plain_text_keeps_the_numbers_of_ordered_items() {
    // The numbers of an ordered list are text of the page: the document's plain text (word
    // counts, the corpus's expectation records) keeps them, where bullets are dropped.
    let mut page = Page::default();
    page.texts.extend(body(
        &[
            "1. The first of these cases is set out here",
            "2. The second of these cases follows it",
            "3. The third of these cases ends the list",
        ],
        72.0,
        700.0,
        11.0,
    ));
    let doc = convert(&pdf(&[page], None));
    assert!(
        doc.parts[0]
            .blocks
            .iter()
            .any(|b| matches!(b, Block::List(l) if l.ordered)),
        "{:#?}",
        doc.parts[0].blocks
    );
    let text = document_text(&doc);
    for item in [
        "1. The first of these cases",
        "2. The second",
        "3. The third",
    ] {
        assert!(text.contains(item), "{item} missing:\n{text}");
    }
}

#[test]
fn list_recognition_never_rewrites_the_text() {
    let mut page = Page::default();
    page.texts.extend(body(
        &[
            "Reach the front desk of the hotel at",
            "(212) 555-0100 or at the number below.",
            "(646) 555-0199 answers at night.",
        ],
        72.0,
        700.0,
        11.0,
    ));
    page.texts.extend(body(
        &["1) Bring your passport", "2) Bring the booking code"],
        72.0,
        620.0,
        11.0,
    ));
    page.texts.extend(body(
        &["1. Numbered one", "2. Numbered two"],
        72.0,
        560.0,
        11.0,
    ));
    let doc = convert(&pdf(&[page], None));
    let text = text_with_list_numbers(&doc);
    for must in [
        "(212) 555-0100",
        "(646) 555-0199",
        "1) Bring your passport",
        "2) Bring the booking code",
        "1. Numbered one",
        "2. Numbered two",
    ] {
        assert!(text.contains(must), "{must:?} missing from:\n{text}");
    }
    assert!(!text.contains("212. "), "{text}");
}

#[test]
fn soft_masked_images_keep_their_shape() {
    let mut page = Page::default();
    page.texts.push(text(
        72.0,
        720.0,
        11.0,
        "A figure drawn as line art follows.",
    ));
    page.pictures.push(Picture {
        x: 72.0,
        y: 400.0,
        w: 200.0,
        h: 100.0,
        px_w: 64,
        px_h: 32,
        soft_mask: true,
    });
    let doc = convert(&pdf(&[page], None));
    let image = doc
        .parts
        .iter()
        .flat_map(|p| &p.blocks)
        .find_map(|b| match b {
            Block::Image(i) => Some((**i).clone()),
            Block::Paragraph(inl) => inl.iter().find_map(|i| match i {
                Inline::Image(i) => Some((**i).clone()),
                _ => None,
            }),
            _ => None,
        })
        .expect("the picture is extracted");
    let decoded = image::load_from_memory(&image.data)
        .expect("a decodable image")
        .to_rgba8();
    // Composited on white, as a reader sees it: the left edge (alpha 0) is white, the right
    // edge (alpha near 255) is black. Solid black everywhere is the defect.
    let on_white = |x: u32| {
        let p = decoded.get_pixel(x, decoded.height() / 2);
        let a = u32::from(p[3]);
        (u32::from(p[0]) * a + 255 * (255 - a)) / 255
    };
    let left = on_white(0);
    let right = on_white(decoded.width() - 1);
    assert!(left > 200 && right < 60, "left {left}, right {right}");
}

#[test]
fn an_empty_result_always_carries_a_warning() {
    // A page with nothing on it, and a file whose page tree is gone: both convert, neither
    // silently.
    let blank = pdf(&[Page::default()], None);
    let mut damaged = pdf(&[Page::default()], None);
    let at = damaged
        .windows(6)
        .position(|w| w == b"/Pages")
        .expect("page tree");
    damaged[at..at + 6].copy_from_slice(b"/Pagez");
    for (name, bytes) in [("blank", blank), ("damaged", damaged)] {
        let mut ctx = Context::new();
        match convert_with(&bytes, &mut ctx) {
            Ok(doc) => {
                assert!(document_text(&doc).trim().is_empty(), "{name}");
                assert!(!ctx.warnings().is_empty(), "{name}: empty and no warning");
                for w in ctx.warnings() {
                    assert!(
                        !w.contains("Pdfium") && !w.contains("Error(") && w.ends_with('.'),
                        "{name}: a warning must be a sentence for people: {w:?}"
                    );
                }
            }
            Err(e) => assert!(!e.message().is_empty(), "{name}"),
        }
    }
}

const SIDEWAYS: [&str; 4] = [
    "The first line of a paragraph printed sideways",
    "continues here on the second line of that text",
    "and the third line follows it as a reader expects",
    "before the fourth line ends the paragraph here.",
];

/// A page whose text runs in direction `angle` (counter-clockwise degrees) on the paper,
/// laid out so that, turned upright, it reads as four lines from the top.
fn sideways_page(angle: u16) -> Page {
    let mut page = Page::default();
    for (i, line) in SIDEWAYS.iter().enumerate() {
        let step = i as f32 * 14.0;
        let (x, y) = match angle {
            90 => (100.0 + step, 100.0),
            180 => (540.0, 100.0 + step),
            270 => (500.0 - step, 700.0),
            _ => (72.0, 700.0 - step),
        };
        let mut t = text(x, y, 11.0, line);
        t.angle = angle;
        page.texts.push(t);
    }
    page
}

#[test]
fn pages_are_read_in_their_displayed_rotation() {
    let expected = SIDEWAYS.join(" ");
    // Content drawn turned on an upright page, and upright content on a page with /Rotate.
    let mut cases: Vec<(String, Page)> = [90u16, 180, 270]
        .into_iter()
        .map(|a| (format!("text at {a} degrees"), sideways_page(a)))
        .collect();
    for rotate in [90u16, 180, 270] {
        let mut page = sideways_page(0);
        page.rotate = rotate;
        cases.push((format!("/Rotate {rotate}"), page));
    }
    // A negative font size turns the glyphs half round (PDFium's character angle leaves it
    // out): upright matrices with `-11 Tf` read like text at 180 degrees, and on a page with
    // /Rotate 180 they are displayed upright.
    let flipped = |rotate: u16| {
        let mut page = sideways_page(180);
        for t in &mut page.texts {
            t.angle = 0;
            t.size = -t.size;
        }
        page.rotate = rotate;
        page
    };
    cases.push(("a negative font size".to_string(), flipped(0)));
    cases.push((
        "a negative font size on /Rotate 180".to_string(),
        flipped(180),
    ));
    for (name, page) in cases {
        let doc = convert(&pdf(&[page], None));
        let text = document_text(&doc)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(text, expected, "{name}");
    }
}

#[test]
fn characters_outside_the_basic_multilingual_plane_are_kept() {
    // PDFium gives such a character as two UTF-16 halves, each on its own.
    let page = Page {
        astral_font: true,
        texts: vec![text(72.0, 700.0, 12.0, "ABC DEF")],
        ..Page::default()
    };
    let doc = convert(&pdf(&[page], None));
    let got = document_text(&doc);
    assert!(
        got.contains("\u{1d434}\u{1d435}\u{1d436} \u{1d437}\u{1d438}\u{1d439}"),
        "{got:?}"
    );
}

#[test]
fn a_rotated_margin_line_stays_out_of_the_body() {
    let mut page = Page::default();
    page.texts.extend(body(
        &[
            "Research outcomes are important for the field",
            "and the important outcomes are reported here",
            "in a body of text that a margin line must not",
            "interleave with, letter by letter, anywhere.",
        ],
        72.0,
        700.0,
        11.0,
    ));
    let mut margin = text(30.0, 560.0, 14.0, "arXiv:2401.01234v2 [cs.CL] 5 Jan 2024");
    margin.angle = 90;
    page.texts.push(margin);
    let doc = convert(&pdf(&[page], None));
    let text = document_text(&doc);
    assert!(
        text.contains("Research outcomes are important for the field and the important"),
        "{text}"
    );
    assert!(
        text.contains("arXiv:2401.01234v2 [cs.CL] 5 Jan 2024"),
        "{text}"
    );
}

#[test]
fn bullets_drawn_as_shapes_make_list_items() {
    let mut page = Page::default();
    page.texts.push(text(
        72.0,
        720.0,
        11.0,
        "The steps below are drawn as a browser prints a list.",
    ));
    let items = [
        "Collect the signed forms from every office",
        "Scan them into the shared archive folder",
        "Send the summary to the regional manager",
    ];
    for (i, item) in items.iter().enumerate() {
        let y = 690.0 - i as f32 * 16.0;
        page.discs.push((80.0, y + 3.5, 2.2));
        page.texts.push(text(92.0, y, 11.0, item));
    }
    let doc = convert(&pdf(&[page], None));
    let lists: Vec<_> = doc.parts[0]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::List(l) => Some((l.ordered, l.items.len())),
            _ => None,
        })
        .collect();
    assert_eq!(lists, vec![(false, 3)], "{:#?}", doc.parts[0].blocks);
    let text = document_text(&doc);
    assert!(!text.contains('•'), "{text}");
    for item in items {
        assert!(text.contains(item), "{text}");
    }
}

#[test]
fn numbered_section_titles_are_headings_and_captions_are_not() {
    let para = [
        "The body of this section is ordinary running text set at the",
        "size most characters on the page use, over several lines, so",
        "that the document's statistics know what body text looks like.",
    ];
    let mut page = Page::default();
    page.texts.push(bold(72.0, 740.0, 16.0, "1. Introduction"));
    page.texts.extend(body(&para, 72.0, 715.0, 10.0));
    page.texts.push(bold(72.0, 660.0, 16.0, "2. Methods"));
    page.texts.extend(body(&para, 72.0, 635.0, 10.0));
    page.texts.push(bold(
        72.0,
        580.0,
        10.0,
        "Figure 3: Throughput of the three systems under load",
    ));
    page.texts.extend(body(&para, 72.0, 560.0, 10.0));
    page.texts.push(bold(72.0, 505.0, 16.0, "3. Results"));
    page.texts.extend(body(&para, 72.0, 480.0, 10.0));
    let doc = convert(&pdf(&[page], None));
    let found: Vec<String> = headings(&doc).into_iter().map(|(_, t)| t).collect();
    assert_eq!(
        found,
        vec!["1. Introduction", "2. Methods", "3. Results"],
        "{:#?}",
        doc.parts[0].blocks
    );
    assert!(
        !doc.parts[0]
            .blocks
            .iter()
            .any(|b| matches!(b, Block::List(_))),
        "{:#?}",
        doc.parts[0].blocks
    );
    assert!(document_text(&doc).contains("Figure 3: Throughput of the three systems under load"));
}

/// Each list of a page's blocks as (ordered, item texts), nested lists as their own entries
/// after their parent's, with the depth they stand at.
fn lists_with_depth(blocks: &[Block], depth: usize, out: &mut Vec<(usize, bool, Vec<String>)>) {
    for block in blocks {
        if let Block::List(l) = block {
            let texts = l
                .items
                .iter()
                .map(|item| {
                    item.blocks
                        .iter()
                        .filter_map(|b| match b {
                            Block::Paragraph(c) => Some(
                                c.iter()
                                    .filter_map(|i| match i {
                                        Inline::Text { text, .. } => Some(text.as_str()),
                                        _ => None,
                                    })
                                    .collect::<String>(),
                            ),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            out.push((depth, l.ordered, texts));
            for item in &l.items {
                lists_with_depth(&item.blocks, depth + 1, out);
            }
        }
    }
}

/// A page of 11-point lines 14 points apart from the top, each at its own left edge.
fn indented_lines(lines: &[(f32, &str)]) -> Page {
    let mut page = Page::default();
    for (i, (x, s)) in lines.iter().enumerate() {
        page.texts.push(text(*x, 700.0 - i as f32 * 14.0, 11.0, s));
    }
    page
}

#[test]
fn indented_items_are_nested_lists() {
    let lines = [
        (72.0, "\u{2022} Outer first"),
        (96.0, "\u{2022} Inner a"),
        (96.0, "\u{2022} Inner b"),
        (72.0, "\u{2022} Outer second"),
    ];
    let page = indented_lines(&lines);
    let doc = convert(&pdf(&[page], None));
    let mut lists = Vec::new();
    lists_with_depth(&doc.parts[0].blocks, 0, &mut lists);
    assert_eq!(
        lists,
        vec![
            (0, false, vec!["Outer first".into(), "Outer second".into()]),
            (1, false, vec!["Inner a".into(), "Inner b".into()]),
        ],
        "{:#?}",
        doc.parts[0].blocks
    );
}

#[test]
fn the_last_item_after_a_nested_list_continues_its_own_level() {
    // A numbered list whose last item follows a nested list and ends the list, as a browser
    // prints it (marker and text a narrow gap apart): its number is the next of the outer
    // level, three items up, not of the nested item just above it.
    let lines = [
        (72.0, "4. Fourth item of the outer list"),
        (72.0, "5. Fifth item of the outer list"),
        (96.0, "1. First nested item"),
        (96.0, "2. Second nested item"),
        (72.0, "6. Sixth and last item of the outer list?"),
    ];
    let mut page = indented_lines(&lines);
    page.texts.push(text(
        72.0,
        700.0 - 5.0 * 14.0 - 10.0,
        11.0,
        "A paragraph of running text follows the list and ends the page here.",
    ));
    let doc = convert(&pdf(&[page], None));
    let mut lists = Vec::new();
    lists_with_depth(&doc.parts[0].blocks, 0, &mut lists);
    assert_eq!(
        lists,
        vec![
            (
                0,
                true,
                vec![
                    "Fourth item of the outer list".into(),
                    "Fifth item of the outer list".into(),
                    "Sixth and last item of the outer list?".into()
                ]
            ),
            (
                1,
                true,
                vec!["First nested item".into(), "Second nested item".into()]
            ),
        ],
        "{:#?}",
        doc.parts[0].blocks
    );
}

#[test]
fn an_item_that_starts_with_a_nested_list_keeps_both_numbers_out_of_its_text() {
    // "9   1   Text": item 9's content begins with a nested list (as reportlab sets it).
    let mut page = Page::default();
    let rows: [(&[(f32, &str)], f32); 4] = [
        (
            &[(72.0, "8"), (96.0, "Eighth item of the outer list")],
            700.0,
        ),
        (
            &[(72.0, "9"), (96.0, "1"), (120.0, "First nested item")],
            686.0,
        ),
        (&[(96.0, "2"), (120.0, "Second nested item")], 672.0),
        (
            &[(72.0, "10"), (96.0, "Tenth item of the outer list")],
            658.0,
        ),
    ];
    for (cells, y) in rows {
        for (x, s) in cells {
            page.texts.push(text(*x, y, 11.0, s));
        }
    }
    let doc = convert(&pdf(&[page], None));
    let mut lists = Vec::new();
    lists_with_depth(&doc.parts[0].blocks, 0, &mut lists);
    assert_eq!(
        lists,
        vec![
            (
                0,
                true,
                vec![
                    "Eighth item of the outer list".into(),
                    String::new(),
                    "Tenth item of the outer list".into()
                ]
            ),
            (
                1,
                true,
                vec!["First nested item".into(), "Second nested item".into()]
            ),
        ],
        "{:#?}",
        doc.parts[0].blocks
    );
}

#[test]
fn items_with_inline_markers_continue_under_the_marker() {
    // Markers set inline (CSS ::before, no hanging indent): an item's second line starts
    // under its marker when its first word had no room on the line above.
    let mut page = Page::default();
    let para = [
        "A paragraph of running text sets the width of the column for",
        "the list below it, one line after another, each as wide as this",
    ];
    page.texts.extend(body(&para, 72.0, 700.0, 11.0));
    let items = [
        "\u{2022} The first item is long enough to run to the right edge of the",
        "column and goes on here",
        "\u{2022} The second item is short",
    ];
    page.texts.extend(body(&items, 72.0, 672.0, 11.0));
    let doc = convert(&pdf(&[page], None));
    let mut lists = Vec::new();
    lists_with_depth(&doc.parts[0].blocks, 0, &mut lists);
    assert_eq!(
        lists,
        vec![(
            0,
            false,
            vec![
                "The first item is long enough to run to the right edge of the column and goes on here"
                    .into(),
                "The second item is short".into()
            ]
        )],
        "{:#?}",
        doc.parts[0].blocks
    );
}

#[test]
fn a_list_number_close_to_its_text_is_still_a_word_of_its_own() {
    // A word processor's "15." followed by a tab to an indent it has almost passed: the gap is
    // an eighth of an em, less than a word gap between letters but clear after a period.
    let mut page = Page::default();
    // Helvetica: "1", "5" 0.556 em, "." 0.278 em; 11 pt makes "15." 15.3 pt wide.
    for (i, (n, s)) in [
        ("14.", "Fourteenth item text"),
        ("15.", "Fifteenth item text"),
        ("16.", "Sixteenth item text"),
    ]
    .iter()
    .enumerate()
    {
        let y = 700.0 - i as f32 * 14.0;
        page.texts.push(text(72.0, y, 11.0, n));
        page.texts.push(text(72.0 + 15.3 + 1.4, y, 11.0, s));
    }
    let doc = convert(&pdf(&[page], None));
    let mut lists = Vec::new();
    lists_with_depth(&doc.parts[0].blocks, 0, &mut lists);
    assert_eq!(
        lists,
        vec![(
            0,
            true,
            vec![
                "Fourteenth item text".into(),
                "Fifteenth item text".into(),
                "Sixteenth item text".into()
            ]
        )],
        "{:#?}",
        doc.parts[0].blocks
    );
}

fn paragraph_texts(doc: &Document) -> Vec<(usize, String)> {
    doc.parts
        .iter()
        .enumerate()
        .flat_map(|(p, part)| {
            part.blocks.iter().filter_map(move |b| match b {
                Block::Paragraph(c) => Some((
                    p,
                    c.iter()
                        .filter_map(|i| match i {
                            Inline::Text { text, .. } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect::<String>(),
                )),
                _ => None,
            })
        })
        .collect()
}

#[test]
fn a_paragraph_runs_on_over_column_and_page_breaks() {
    let left = [
        "The paragraph starts in the left column and runs",
        "over its four lines until the bottom of the",
        "column is reached in the middle of a sentence",
        "which then goes on at the top of the",
    ];
    let right = [
        "right column as any reader would expect and",
        "ends there. A new paragraph is not joined.",
        "Another sentence starts here and runs down",
        "to the end of the page with no full stop and",
    ];
    let mut first = Page::default();
    first.texts.extend(body(&left, 72.0, 700.0, 10.0));
    first.texts.extend(body(&right, 320.0, 700.0, 10.0));
    let mut second = Page::default();
    second.texts.extend(body(
        &["finishes on the next page.", "Then a new one starts."],
        72.0,
        700.0,
        10.0,
    ));
    let doc = convert(&pdf(&[first, second], None));
    let paras = paragraph_texts(&doc);
    assert_eq!(
        paras.first().map(|p| p.1.as_str()),
        Some(
            "The paragraph starts in the left column and runs over its four lines until the \
             bottom of the column is reached in the middle of a sentence which then goes on at \
             the top of the right column as any reader would expect and ends there. A new \
             paragraph is not joined. Another sentence starts here and runs down to the end of \
             the page with no full stop and finishes on the next page. Then a new one starts."
        ),
        "{paras:#?}"
    );
}

#[test]
fn justified_prose_is_not_a_table() {
    // Three justified lines whose stretched spaces happen to line up: prose, not a table.
    // Each line's words are anagrams of each other (equal widths), so a fixed pitch spreads
    // them evenly, as justification does.
    let lines: [&[&str]; 3] = [
        &["listen", "silent", "enlist", "tinsel", "inlets"],
        &["danger", "garden", "ranged", "gander", "danger"],
        &["master", "stream", "tamers", "maters", "stream"],
    ];
    let mut page = Page::default();
    for (i, words) in lines.iter().enumerate() {
        for (k, w) in words.iter().enumerate() {
            page.texts.push(text(
                72.0 + k as f32 * 60.0,
                700.0 - i as f32 * 12.5,
                10.0,
                w,
            ));
        }
    }
    let doc = convert(&pdf(&[page], None));
    let tables = doc.parts[0]
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::Table(_)))
        .count();
    assert_eq!(tables, 0, "{:#?}", doc.parts[0].blocks);
}

#[test]
fn justified_lines_of_three_words_in_a_narrow_column_are_prose() {
    // A justified paragraph in a narrow column: lines of three long words stretched to the
    // column's width, their wide spaces lining up by chance. Each line's words are anagrams
    // (equal widths), so its spaces are equal, as justification makes them.
    let lines: [&[&str]; 3] = [
        &["listen", "silent", "enlist"],
        &["danger", "garden", "ranged"],
        &["master", "stream", "tamers"],
    ];
    let mut page = Page::default();
    page.texts.push(text(
        72.0,
        712.5,
        10.0,
        "The opening line of the paragraph is set",
    ));
    for (i, words) in lines.iter().enumerate() {
        for (k, w) in words.iter().enumerate() {
            page.texts.push(text(
                72.0 + k as f32 * 72.0,
                700.0 - i as f32 * 12.5,
                10.0,
                w,
            ));
        }
    }
    page.texts
        .push(text(72.0, 662.5, 10.0, "and the last line ends it."));
    let doc = convert(&pdf(&[page], None));
    assert_eq!(
        doc.parts[0].blocks,
        vec![Block::text(
            "The opening line of the paragraph is set listen silent enlist danger garden \
             ranged master stream tamers and the last line ends it."
        )],
    );
}

#[test]
fn a_wide_table_with_a_wide_gap_between_two_columns_stays_one_table() {
    // Four columns whose middle gap is as wide as a column gutter: two halves that each hold
    // two columns are one table, not two columns of text.
    let rows = [
        [
            "Gasteaft Wingstong",
            "Filplohuff Tinvu",
            "Tail Spiont",
            "Kiengpost Jeal",
        ],
        [
            "Piontorweng duff",
            "76,452 units",
            "9,537 units",
            "Bust mie",
        ],
        [
            "Clefrounclind lair",
            "57.4 points",
            "Graffpaft vaing",
            "Clolang this",
        ],
        [
            "Riestham clinmil",
            "Fiongfiios viviend",
            "85.8 points",
            "49.0 points",
        ],
        [
            "Lienbrai bitfim",
            "Grerke jouff",
            "Bou jouff",
            "This joljouljeaff",
        ],
    ];
    // Columns at 60, 160 | 330, 430: the gap between the second and third is the widest.
    let xs = [60.0, 160.0, 330.0, 430.0];
    let mut page = Page::default();
    for (i, row) in rows.iter().enumerate() {
        let y = 700.0 - i as f32 * 13.0;
        for (c, cell) in row.iter().enumerate() {
            page.texts.push(text(xs[c], y, 9.0, cell));
        }
    }
    let doc = convert(&pdf(&[page], None));
    let shapes: Vec<(usize, usize)> = doc.parts[0]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Table(t) => Some((t.rows.len(), t.rows[0].len())),
            _ => None,
        })
        .collect();
    assert_eq!(shapes, vec![(5, 4)], "{:#?}", doc.parts[0].blocks);
}
