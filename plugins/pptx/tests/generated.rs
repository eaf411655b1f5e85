//! Presentations built in code: order, titles, reading order, groups, lists, tables, images,
//! charts, notes, links, and hostile input.

use quire_plugin_api::{Block, Context, Converter, ErrorKind, Inline, Input};
use quire_plugin_pptx::PptxConverter;
use std::io::Write;

const P: &str = r#"xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(*name, opts).expect("start");
        w.write_all(data).expect("write");
    }
    w.finish().expect("finish").into_inner()
}

fn rels(list: &[(&str, &str, &str)]) -> String {
    let mut s = String::from(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    );
    for (id, kind, target) in list {
        let mode = if target.starts_with("http") {
            r#" TargetMode="External""#
        } else {
            ""
        };
        s.push_str(&format!(
            r#"<Relationship Id="{id}" Type="{REL}/{kind}" Target="{target}"{mode}/>"#
        ));
    }
    s.push_str("</Relationships>");
    s
}

fn sp(ph: Option<&str>, x: i64, y: i64, body: &str) -> String {
    let ph = ph
        .map(|t| format!(r#"<p:nvPr><p:ph type="{t}"/></p:nvPr>"#))
        .unwrap_or_else(|| "<p:nvPr/>".into());
    format!(
        r#"<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/>{ph}</p:nvSpPr><p:spPr><a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/>{body}</p:txBody></p:sp>"#
    )
}

fn para(text: &str) -> String {
    format!("<a:p><a:r><a:t>{text}</a:t></a:r></a:p>")
}

fn slide(shapes: &str) -> String {
    format!(
        r#"<p:sld {P}><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>{shapes}</p:spTree></p:cSld></p:sld>"#
    )
}

fn build() -> Vec<u8> {
    let png = b"\x89PNG\r\n\x1a\nfake".to_vec();
    let bullets = r#"<a:p><a:pPr><a:buChar char="*"/></a:pPr><a:r><a:t>one</a:t></a:r></a:p><a:p><a:pPr lvl="1"><a:buChar char="*"/></a:pPr><a:r><a:t>one.a</a:t></a:r></a:p><a:p><a:r><a:rPr b="1"><a:hlinkClick r:id="rLink"/></a:rPr><a:t>a link</a:t></a:r></a:p>"#;
    let group = format!(
        r#"<p:grpSp><p:nvGrpSpPr/><p:grpSpPr><a:xfrm><a:off x="0" y="5000"/><a:ext cx="10" cy="10"/><a:chOff x="0" y="0"/><a:chExt cx="10" cy="10"/></a:xfrm></p:grpSpPr>{}</p:grpSp>"#,
        sp(None, 0, 0, &para("in group"))
    );
    let table = r#"<p:graphicFrame><p:xfrm><a:off x="0" y="9000"/></p:xfrm><a:graphic><a:graphicData><a:tbl><a:tblPr firstRow="1"/><a:tr><a:tc gridSpan="2"><a:txBody><a:p><a:r><a:t>wide</a:t></a:r></a:p></a:txBody></a:tc><a:tc hMerge="1"><a:txBody><a:p/></a:txBody></a:tc></a:tr><a:tr><a:tc><a:txBody><a:p><a:r><a:t>x</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>y</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>"#;
    let pic = |rid: &str, y: i64| {
        format!(
            r#"<p:pic><p:nvPicPr><p:cNvPr id="5" name="p" descr="a chart"/></p:nvPicPr><p:blipFill><a:blip r:embed="{rid}"/></p:blipFill><p:spPr><a:xfrm><a:off x="0" y="{y}"/></a:xfrm></p:spPr></p:pic>"#
        )
    };
    let chart_frame = r#"<p:graphicFrame><p:xfrm><a:off x="0" y="12000"/></p:xfrm><a:graphic><a:graphicData><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rChart"/></a:graphicData></a:graphic></p:graphicFrame>"#;
    let chart = r#"<c:chartSpace xmlns:c="c" xmlns:a="a"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Sales</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart><c:ser><c:tx><c:v>2024</c:v></c:tx><c:cat><c:strLit><c:pt idx="0"><c:v>Q1</c:v></c:pt></c:strLit></c:cat><c:val><c:numLit><c:pt idx="0"><c:v>7</c:v></c:pt></c:numLit></c:val></c:ser></c:barChart></c:plotArea></c:chart></c:chartSpace>"#;
    // slide A (second in order): body below, title lower on the page but first in output
    let slide_a = slide(&format!(
        "{}{}{}{}{}{}{}",
        sp(None, 0, 3000, bullets),
        sp(Some("title"), 0, 8000, &para("Title A")),
        sp(None, 500, 1000, &para("right")),
        sp(None, 0, 1000, &para("left")),
        group,
        table,
        pic("rImg", 10000) + &pic("rMissing", 11000) + chart_frame,
    ));
    let slide_b = slide(&sp(Some("ctrTitle"), 0, 0, &para("First &amp; foremost")));
    let notes = format!(
        r#"<p:notes {P}><p:cSld><p:spTree>{}{}</p:spTree></p:cSld></p:notes>"#,
        sp(Some("sldImg"), 0, 0, ""),
        sp(Some("body"), 0, 0, &para("Say this"))
    );
    let pres = format!(
        r#"<p:presentation {P}><p:sldIdLst><p:sldId id="256" r:id="rB"/><p:sldId id="257" r:id="rA"/></p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>"#
    );
    zip(&[
        (
            "_rels/.rels",
            rels(&[("r1", "officeDocument", "ppt/presentation.xml")]).as_bytes(),
        ),
        ("ppt/presentation.xml", pres.as_bytes()),
        (
            "ppt/_rels/presentation.xml.rels",
            rels(&[
                ("rA", "slide", "slides/slide1.xml"),
                ("rB", "slide", "slides/slide2.xml"),
            ])
            .as_bytes(),
        ),
        ("ppt/slides/slide1.xml", slide_a.as_bytes()),
        ("ppt/slides/slide2.xml", slide_b.as_bytes()),
        (
            "ppt/slides/_rels/slide1.xml.rels",
            rels(&[
                ("rImg", "image", "../media/image1.png"),
                ("rMissing", "image", "../media/nothere.png"),
                ("rChart", "chart", "../charts/chart1.xml"),
                ("rLink", "hyperlink", "https://example.com/"),
                ("rNotes", "notesSlide", "../notesSlides/notesSlide1.xml"),
            ])
            .as_bytes(),
        ),
        ("ppt/notesSlides/notesSlide1.xml", notes.as_bytes()),
        ("ppt/charts/chart1.xml", chart.as_bytes()),
        ("ppt/media/image1.png", &png),
        ("ppt/vbaProject.bin", b"macro bytes never read"),
    ])
}

/// A presentation of one slide whose part is `slide`.
fn one_slide_deck(slide: &str) -> Vec<u8> {
    one_slide_deck_with(slide, &[])
}

/// A presentation of one slide whose part is `slide`, with more parts (the slide's
/// relationships, media).
fn one_slide_deck_with(slide: &str, parts: &[(&str, &[u8])]) -> Vec<u8> {
    let pres = format!(
        r#"<p:presentation {P}><p:sldIdLst><p:sldId id="256" r:id="rA"/></p:sldIdLst></p:presentation>"#
    );
    let rels_root = rels(&[("r1", "officeDocument", "ppt/presentation.xml")]);
    let rels_pres = rels(&[("rA", "slide", "slides/slide1.xml")]);
    let mut entries: Vec<(&str, &[u8])> = vec![
        ("_rels/.rels", rels_root.as_bytes()),
        ("ppt/presentation.xml", pres.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels_pres.as_bytes()),
        ("ppt/slides/slide1.xml", slide.as_bytes()),
    ];
    entries.extend_from_slice(parts);
    zip(&entries)
}

fn text_of(blocks: &[Block]) -> Vec<String> {
    fn inl(v: &[Inline]) -> String {
        v.iter()
            .map(|i| match i {
                Inline::Text { text, .. } => text.clone(),
                Inline::Link(link) => inl(&link.content),
                Inline::Math { tex, display } => format!("M{}:{tex}", u8::from(*display)),
                _ => String::new(),
            })
            .collect()
    }
    blocks
        .iter()
        .map(|b| match b {
            Block::Heading { content, .. } => format!("H:{}", inl(content)),
            Block::Paragraph(c) => inl(c),
            Block::List(l) => format!("L{}", l.items.len()),
            Block::Table(t) => format!("T{}", t.rows.len()),
            Block::Image(i) => format!("I:{}", i.mime),
            _ => "?".into(),
        })
        .collect()
}

/// The text of the first slide's blocks ([`text_of`]) of a presentation converted as is.
fn convert_deck(bytes: &[u8]) -> quire_plugin_api::Document {
    let input = Input {
        bytes,
        file_name: "t.pptx",
        mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    };
    PptxConverter
        .convert(&input, &mut Context::new())
        .expect("converts")
}

fn first_slide_text(bytes: &[u8]) -> Vec<String> {
    text_of(&convert_deck(bytes).parts[0].blocks)
}

#[test]
fn converts_a_generated_presentation() {
    let bytes = build();
    let input = Input {
        bytes: &bytes,
        file_name: "t.pptx",
        mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    };
    let mut ctx = Context::new();
    let doc = PptxConverter.convert(&input, &mut ctx).expect("converts");
    assert_eq!(doc.type_label, "PowerPoint Presentation");
    assert_eq!(doc.metadata.slide_width, Some(12_192_000));
    assert_eq!(doc.parts.len(), 2);
    assert_eq!(text_of(&doc.parts[0].blocks), ["H:First & foremost"]);
    assert_eq!(doc.parts[0].name.as_deref(), Some("First & foremost"));
    let a = text_of(&doc.parts[1].blocks);
    assert_eq!(
        a,
        [
            "H:Title A",
            "left",
            "right",
            "L1",
            "a link",
            "in group",
            "T2",
            "I:image/png",
            "Chart: Sales",
            "T2"
        ]
    );
    let blocks = &doc.parts[1].blocks;
    // nested bullet under "one"
    let Block::List(list) = &blocks[3] else {
        panic!("list expected")
    };
    assert!(matches!(list.items[0].blocks[1], Block::List(_)));
    // the link keeps its target
    let Block::Paragraph(p) = &blocks[4] else {
        panic!("paragraph expected")
    };
    assert!(matches!(&p[0], Inline::Link(l) if l.href == "https://example.com/"));
    // merged header cell spans two columns; the covered cell is omitted
    let Block::Table(t) = &blocks[6] else {
        panic!("table expected")
    };
    assert_eq!(
        (t.header_rows, t.rows[0].len(), t.rows[0][0].colspan),
        (1, 1, 2)
    );
    let Block::Image(img) = &blocks[7] else {
        panic!("image expected")
    };
    assert_eq!(img.data, b"\x89PNG\r\n\x1a\nfake");
    assert_eq!(img.alt.as_deref(), Some("a chart"));
    assert_eq!(text_of(&doc.parts[1].notes), ["Say this"]);
    assert!(ctx.warnings().iter().any(|w| w.contains("missing part")));
}

#[test]
fn reports_progress_per_slide() {
    let bytes = build();
    let input = Input {
        bytes: &bytes,
        file_name: "t.pptx",
        mime: "x",
    };
    let mut seen = Vec::new();
    let mut sink = |d, t| seen.push((d, t));
    let mut ctx = Context::new().with_progress(&mut sink);
    PptxConverter.convert(&input, &mut ctx).expect("converts");
    drop(ctx);
    assert_eq!(seen, [(1, 2), (2, 2)]);
}

#[test]
fn refuses_garbage_encrypted_and_bombs() {
    let convert = |bytes: &[u8], limits: Option<quire_plugin_api::Limits>| {
        let input = Input {
            bytes,
            file_name: "t.pptx",
            mime: "x",
        };
        let mut ctx = Context::new();
        if let Some(l) = limits {
            ctx = ctx.with_limits(l);
        }
        PptxConverter
            .convert(&input, &mut ctx)
            .map(|_| ())
            .unwrap_err()
            .kind()
    };
    assert_eq!(convert(b"not a zip at all", None), ErrorKind::Malformed);
    assert_eq!(
        convert(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1 rest", None),
        ErrorKind::Encrypted
    );
    let limits = quire_plugin_api::Limits {
        max_inflated_bytes: 100,
        ..Default::default()
    };
    assert_eq!(convert(&build(), Some(limits)), ErrorKind::LimitExceeded);
    let limits = quire_plugin_api::Limits {
        max_parts: 1,
        ..Default::default()
    };
    assert_eq!(convert(&build(), Some(limits)), ErrorKind::LimitExceeded);
}

struct FakeOcr;

impl quire_plugin_api::OcrProvider for FakeOcr {
    fn recognize(
        &self,
        image: &quire_plugin_api::OcrImage<'_>,
    ) -> quire_plugin_api::Result<quire_plugin_api::OcrOutput> {
        Ok(quire_plugin_api::OcrOutput {
            text: format!("text in {}", image.mime),
            confidence: None,
        })
    }
}

#[test]
fn ocr_reads_pictures_when_asked() {
    let bytes = build();
    let input = Input {
        bytes: &bytes,
        file_name: "t.pptx",
        mime: "x",
    };
    let provider = FakeOcr;
    let mut ctx = Context::new().with_ocr("fake", &provider);
    let doc = PptxConverter.convert(&input, &mut ctx).expect("converts");
    let images = doc.images();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].ocr_text.as_deref(), Some("text in image/png"));
    assert_eq!(ctx.ocr_image_count(), 1);
}

#[test]
fn deep_nesting_is_cut_off_not_a_stack_overflow() {
    let depth = 50_000;
    let mut shapes = String::new();
    for _ in 0..depth {
        shapes.push_str("<mc:AlternateContent><mc:Choice><p:grpSp><p:grpSpPr/>");
    }
    for _ in 0..depth {
        shapes.push_str("</p:grpSp></mc:Choice></mc:AlternateContent>");
    }
    let slide = format!(
        r#"<p:sld {P} xmlns:mc="mc"><p:cSld><p:spTree>{}{shapes}</p:spTree></p:cSld></p:sld>"#,
        sp(Some("title"), 0, 0, &para("Deep"))
    );
    let bytes = one_slide_deck(&slide);
    let input = Input {
        bytes: &bytes,
        file_name: "d.pptx",
        mime: "x",
    };
    let doc = PptxConverter
        .convert(&input, &mut Context::new())
        .expect("converts");
    assert_eq!(doc.parts[0].name.as_deref(), Some("Deep"));
}

#[test]
fn a_choice_needing_an_unread_namespace_gives_way_to_its_fallback() {
    // PowerPoint writes a 3D model as a Choice with a Fallback picture; a text box Choice
    // (no unread namespace) is still read from the Choice.
    let cx = r#"<mc:AlternateContent><mc:Choice Requires="am3d"><p:graphicFrame><p:xfrm><a:off x="0" y="100"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/drawing/2017/model3d"><am3d:model3d xmlns:am3d="am3d" r:embed="rM"/></a:graphicData></a:graphic></p:graphicFrame></mc:Choice><mc:Fallback>"#;
    let fallback = sp(None, 0, 100, &para("Fallback of the model"));
    let boxed = format!(
        r#"<mc:AlternateContent><mc:Choice Requires="p14">{}</mc:Choice><mc:Fallback>{}</mc:Fallback></mc:AlternateContent>"#,
        sp(None, 0, 200, &para("Choice text")),
        sp(None, 0, 200, &para("Old text"))
    );
    let slide = format!(
        r#"<p:sld {P} xmlns:mc="mc"><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>{cx}{fallback}</mc:Fallback></mc:AlternateContent>{boxed}</p:spTree></p:cSld></p:sld>"#
    );
    let bytes = one_slide_deck(&slide);
    assert_eq!(
        first_slide_text(&bytes),
        ["Fallback of the model", "Choice text"]
    );
}

#[test]
fn a_footer_repeated_on_every_slide_is_shown_once() {
    // The footer placeholder of a template carries the same text on every slide: it is
    // furniture after its first appearance. A footer that changes is shown where it changes.
    let footer = |t: &str| sp(Some("ftr"), 0, 9000, &para(t));
    let slides = [
        slide(&(sp(Some("title"), 0, 0, &para("One")) + &footer("Company confidential"))),
        slide(&(sp(Some("title"), 0, 0, &para("Two")) + &footer("Company  confidential"))),
        slide(&(sp(Some("title"), 0, 0, &para("Three")) + &footer("Draft 2"))),
    ];
    let pres = format!(
        r#"<p:presentation {P}><p:sldIdLst><p:sldId id="256" r:id="r1"/><p:sldId id="257" r:id="r2"/><p:sldId id="258" r:id="r3"/></p:sldIdLst></p:presentation>"#
    );
    let bytes = zip(&[
        (
            "_rels/.rels",
            rels(&[("r1", "officeDocument", "ppt/presentation.xml")]).as_bytes(),
        ),
        ("ppt/presentation.xml", pres.as_bytes()),
        (
            "ppt/_rels/presentation.xml.rels",
            rels(&[
                ("r1", "slide", "slides/slide1.xml"),
                ("r2", "slide", "slides/slide2.xml"),
                ("r3", "slide", "slides/slide3.xml"),
            ])
            .as_bytes(),
        ),
        ("ppt/slides/slide1.xml", slides[0].as_bytes()),
        ("ppt/slides/slide2.xml", slides[1].as_bytes()),
        ("ppt/slides/slide3.xml", slides[2].as_bytes()),
    ]);
    let input = Input {
        bytes: &bytes,
        file_name: "f.pptx",
        mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    };
    let doc = PptxConverter
        .convert(&input, &mut Context::new())
        .expect("converts");
    let texts: Vec<Vec<String>> = doc.parts.iter().map(|p| text_of(&p.blocks)).collect();
    assert_eq!(
        texts,
        [
            vec!["H:One", "Company confidential"],
            vec!["H:Two"],
            vec!["H:Three", "Draft 2"],
        ]
    );
}

#[test]
fn the_jobs_pages_choose_slides_and_keep_their_numbers() {
    let bytes = build();
    let input = Input {
        bytes: &bytes,
        file_name: "t.pptx",
        mime: "x",
    };
    let mut seen = Vec::new();
    let mut sink = |d, t| seen.push((d, t));
    let options = quire_plugin_api::JobOptions {
        pages: Some(quire_plugin_api::PageRanges::parse("2-").unwrap()),
        ..Default::default()
    };
    let mut ctx = Context::new()
        .with_options(options.clone())
        .with_progress(&mut sink);
    let doc = PptxConverter.convert(&input, &mut ctx).expect("converts");
    drop(ctx);
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(doc.parts[0].number, 2);
    assert_eq!(text_of(&doc.parts[0].blocks)[0], "H:Title A");
    assert_eq!(doc.metadata.extra["num_slides"], 2);
    assert_eq!(seen, [(1, 1)]);

    let none = quire_plugin_api::JobOptions {
        pages: Some(quire_plugin_api::PageRanges::parse("3,5-9").unwrap()),
        ..Default::default()
    };
    let err = PptxConverter
        .convert(&input, &mut Context::new().with_options(none))
        .unwrap_err();
    assert_eq!(
        err.message(),
        "The document has 2 slides; none of the requested slides (3,5-9) exists."
    );
}

#[test]
fn a_content_placeholder_takes_the_masters_body_position() {
    // As python-pptx's template: the slide's `<p:ph idx="1"/>` (a content placeholder) and
    // its layout carry no position; the master's `type="body"` one does. The body is above a
    // text box lower on the slide, so it reads first.
    let body = r#"<p:sp><p:nvSpPr><p:cNvPr id="3" name="b"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>body text</a:t></a:r></a:p></p:txBody></p:sp>"#;
    let unplaced = |ph: &str| {
        format!(
            r#"<p:sp><p:nvSpPr><p:cNvPr id="3" name="b"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/></p:txBody></p:sp>"#
        )
    };
    let s = slide(&(sp(None, 0, 5_000_000, &para("low text box")) + body));
    let layout = format!(
        r#"<p:sldLayout {P}><p:cSld><p:spTree>{}</p:spTree></p:cSld></p:sldLayout>"#,
        unplaced(r#"<p:ph idx="1"/>"#)
    );
    let master = format!(
        r#"<p:sldMaster {P}><p:cSld><p:spTree>{}{}</p:spTree></p:cSld></p:sldMaster>"#,
        sp(Some("title"), 0, 270_000, ""),
        r#"<p:sp><p:nvSpPr><p:cNvPr id="4" name="m"/><p:cNvSpPr/><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="1600200"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/></p:txBody></p:sp>"#
    );
    let pres = format!(
        r#"<p:presentation {P}><p:sldIdLst><p:sldId id="256" r:id="r1"/></p:sldIdLst></p:presentation>"#
    );
    let bytes = zip(&[
        (
            "_rels/.rels",
            rels(&[("r1", "officeDocument", "ppt/presentation.xml")]).as_bytes(),
        ),
        ("ppt/presentation.xml", pres.as_bytes()),
        (
            "ppt/_rels/presentation.xml.rels",
            rels(&[("r1", "slide", "slides/slide1.xml")]).as_bytes(),
        ),
        ("ppt/slides/slide1.xml", s.as_bytes()),
        (
            "ppt/slides/_rels/slide1.xml.rels",
            rels(&[("rL", "slideLayout", "../slideLayouts/slideLayout2.xml")]).as_bytes(),
        ),
        ("ppt/slideLayouts/slideLayout2.xml", layout.as_bytes()),
        (
            "ppt/slideLayouts/_rels/slideLayout2.xml.rels",
            rels(&[("rM", "slideMaster", "../slideMasters/slideMaster1.xml")]).as_bytes(),
        ),
        ("ppt/slideMasters/slideMaster1.xml", master.as_bytes()),
    ]);
    assert_eq!(first_slide_text(&bytes), ["L1", "low text box"]);
}

#[test]
fn an_embedded_objects_preview_picture_stands_for_it() {
    // PowerPoint 2010 and later: the object in a Choice needing VML, its preview picture in
    // the Fallback's `p:oleObj`.
    let frame = r#"<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Object 3"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="100"/><a:ext cx="10" cy="10"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/presentationml/2006/ole"><mc:AlternateContent><mc:Choice Requires="v"><p:oleObj name="Worksheet" r:id="rObj" progId="Excel.Sheet.12"><p:embed/></p:oleObj></mc:Choice><mc:Fallback><p:oleObj name="Worksheet" r:id="rObj" progId="Excel.Sheet.12"><p:embed/><p:pic><p:nvPicPr><p:cNvPr id="0" name=""/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rImg"/></p:blipFill><p:spPr/></p:pic></p:oleObj></mc:Fallback></mc:AlternateContent></a:graphicData></a:graphic></p:graphicFrame>"#;
    let slide = format!(
        r#"<p:sld {P} xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>{}{frame}</p:spTree></p:cSld></p:sld>"#,
        sp(None, 0, 0, &para("Figures"))
    );
    let slide_rels = rels(&[
        ("rImg", "image", "../media/image1.png"),
        ("rObj", "package", "../embeddings/sheet.xlsx"),
    ]);
    let deck = |slide: &str| {
        one_slide_deck_with(
            slide,
            &[
                ("ppt/slides/_rels/slide1.xml.rels", slide_rels.as_bytes()),
                ("ppt/media/image1.png", b"\x89PNG\r\n\x1a\npreview"),
                ("ppt/embeddings/sheet.xlsx", b"Q1 revenue\n12"),
            ],
        )
    };
    let blocks_of = |bytes: &[u8], ctx: &mut Context<'_>| {
        let input = Input {
            bytes,
            file_name: "ole.pptx",
            mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        };
        let doc = PptxConverter.convert(&input, ctx).expect("converts");
        text_of(&doc.parts[0].blocks)
    };
    let bytes = deck(&slide);
    assert_eq!(
        blocks_of(&bytes, &mut Context::new()),
        ["Figures", "I:image/png"]
    );
    // With the host's hook, the workbook's first sheet stands where its picture stood; shown
    // as an icon, the picture stays.
    let hook = SheetsOfLines;
    let mut ctx = Context::new().with_embedded(&hook);
    assert_eq!(blocks_of(&bytes, &mut ctx), ["Figures", "Q1 revenue", "12"]);
    let icon = slide.replace(
        r#"progId="Excel.Sheet.12">"#,
        r#"progId="Excel.Sheet.12" showAsIcon="1">"#,
    );
    assert_eq!(
        blocks_of(&deck(&icon), &mut ctx),
        ["Figures", "I:image/png"]
    );
}

#[test]
fn an_equation_editor_formula_reads_as_latex_in_place_of_its_picture() {
    // A PowerPoint 97-2003 equation: an `Equation.3` object (MTEF in its `Equation Native`
    // stream) with a preview picture. The formula replaces the picture, hook or no hook.
    let frame = r#"<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Object 3"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="100"/><a:ext cx="10" cy="10"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/presentationml/2006/ole"><p:oleObj name="Equation" r:id="rObj" progId="Equation.3"><p:embed/><p:pic><p:nvPicPr><p:cNvPr id="0" name=""/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rImg"/></p:blipFill><p:spPr/></p:pic></p:oleObj></a:graphicData></a:graphic></p:graphicFrame>"#;
    let slide = format!(
        r#"<p:sld {P}><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>{}{frame}</p:spTree></p:cSld></p:sld>"#,
        sp(None, 0, 0, &para("Energy"))
    );
    let slide_rels = rels(&[
        ("rImg", "image", "../media/image1.png"),
        ("rObj", "oleObject", "../embeddings/oleObject1.bin"),
    ]);
    // E = m c^2: header, a line with E, =, m, c and a superscript 2
    let mut mtef = vec![3, 1, 1, 3, 0, 0x0A, 0x01];
    for (tf, c) in [(3, b'E'), (6, b'='), (3, b'm'), (3, b'c')] {
        mtef.extend([0x02, tf + 128, c, 0]);
    }
    mtef.extend([
        0x03,
        15,
        0,
        0,
        0x11,
        0x01,
        0x02,
        8 + 128,
        b'2',
        0,
        0x00,
        0x00,
        0x00,
        0x00,
    ]);
    let mut cf =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, std::io::Cursor::new(Vec::new()))
            .unwrap();
    let mut native = vec![28, 0];
    native.resize(28, 0);
    native.extend_from_slice(&mtef);
    std::io::Write::write_all(&mut cf.create_stream("/Equation Native").unwrap(), &native).unwrap();
    cf.flush().unwrap();
    let ole = cf.into_inner().into_inner();
    let bytes = one_slide_deck_with(
        &slide,
        &[
            ("ppt/slides/_rels/slide1.xml.rels", slide_rels.as_bytes()),
            ("ppt/media/image1.png", b"\x89PNG\r\n\x1a\npreview"),
            ("ppt/embeddings/oleObject1.bin", &ole),
        ],
    );
    assert_eq!(first_slide_text(&bytes), ["Energy", "M1:E=mc^{2}"]);
}

#[test]
fn office_math_in_a_text_box_reads_as_latex() {
    // PowerPoint 2010+: the formula's text box in an `mc:Choice` requiring a14, its picture in
    // the Fallback. An inline formula in a sentence, and a display formula paragraph.
    let math = |inner: &str| {
        format!(
            r#"<a14:m xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main">{inner}</a14:m>"#
        )
    };
    let m = r#"xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math""#;
    let frac = format!(
        r#"<m:oMath {m}><m:f><m:fPr><m:ctrlPr><a:rPr i="1"/></m:ctrlPr></m:fPr><m:num><m:r><a:rPr i="1"/><m:t>𝑎</m:t></m:r></m:num><m:den><m:r><m:t>2</m:t></m:r></m:den></m:f></m:oMath>"#
    );
    let sqrt = format!(
        r#"<m:oMathPara {m}><m:oMathParaPr><m:jc m:val="centerGroup"/></m:oMathParaPr><m:oMath><m:rad><m:radPr><m:degHide m:val="on"/></m:radPr><m:deg/><m:e><m:r><m:t>𝑥</m:t></m:r></m:e></m:rad></m:oMath></m:oMathPara>"#
    );
    let body = format!(
        "<a:p><a:r><a:t>Half: </a:t></a:r>{}<a:r><a:t> done</a:t></a:r></a:p><a:p>{}</a:p>",
        math(&frac),
        math(&sqrt)
    );
    let shape = format!(
        r#"<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="a14">{}</mc:Choice><mc:Fallback><p:pic><p:nvPicPr><p:cNvPr id="9" name="f"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rImg"/></p:blipFill><p:spPr/></p:pic></mc:Fallback></mc:AlternateContent>"#,
        sp(None, 0, 0, &body)
    );
    let slide = format!(
        r#"<p:sld {P}><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>{shape}</p:spTree></p:cSld></p:sld>"#
    );
    let slide_rels = rels(&[("rImg", "image", "../media/image1.png")]);
    let bytes = one_slide_deck_with(
        &slide,
        &[
            ("ppt/slides/_rels/slide1.xml.rels", slide_rels.as_bytes()),
            ("ppt/media/image1.png", b"\x89PNG\r\n\x1a\npreview"),
        ],
    );
    assert_eq!(
        first_slide_text(&bytes),
        ["Half: M0:\\frac{a}{2} done", "M1:\\sqrt{x}"]
    );
}

/// A host stand-in that reads any embedded part as a workbook of two sheets, one paragraph a
/// line of the part's text on the first.
struct SheetsOfLines;

impl quire_plugin_api::EmbeddedConverter for SheetsOfLines {
    fn convert(
        &self,
        data: &[u8],
        _name_hint: Option<&str>,
        _ctx: &mut Context<'_>,
    ) -> quire_plugin_api::Result<quire_plugin_api::Document> {
        use quire_plugin_api::{Document, DocumentKind, Part, PartKind};
        let mut doc = Document::new(DocumentKind::Spreadsheet, "Workbook");
        let mut first = Part::new(PartKind::Sheet, 1);
        first
            .blocks
            .extend(String::from_utf8_lossy(data).lines().map(Block::text));
        let mut second = Part::new(PartKind::Sheet, 2);
        second.blocks.push(Block::text("another sheet"));
        doc.parts.extend([first, second]);
        Ok(doc)
    }
}

/// A presentation of one slide with its layout and master.
fn deck_with_layout(slide: &str, layout: &str, master: &str) -> Vec<u8> {
    let slide_rels = rels(&[("rL", "slideLayout", "../slideLayouts/slideLayout1.xml")]);
    let layout_rels = rels(&[("rM", "slideMaster", "../slideMasters/slideMaster1.xml")]);
    one_slide_deck_with(
        slide,
        &[
            ("ppt/slides/_rels/slide1.xml.rels", slide_rels.as_bytes()),
            ("ppt/slideLayouts/slideLayout1.xml", layout.as_bytes()),
            (
                "ppt/slideLayouts/_rels/slideLayout1.xml.rels",
                layout_rels.as_bytes(),
            ),
            ("ppt/slideMasters/slideMaster1.xml", master.as_bytes()),
        ],
    )
}

#[test]
fn a_body_placeholder_without_bullets_in_its_layout_gives_paragraphs() {
    // A template's text placeholder: its layout's list style sets `buNone` on the first level,
    // the master's body style bullets every level. The slide's paragraphs say nothing of
    // bullets. First-level paragraphs are text; a second-level one is a list item, and so is
    // every paragraph of a content placeholder the layout leaves to the master. Paragraphs on
    // two levels of a placeholder without bullets on any level are an outline: a list; and
    // unmarked paragraphs beside one that says `buNone` itself are the list it leads in.
    let placeholder = |idx: &str, lst: &str, paras: &str| {
        format!(
            r#"<p:sp><p:nvSpPr><p:cNvPr id="3" name="b"/><p:cNvSpPr/><p:nvPr><p:ph idx="{idx}"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="0" y="{idx}000"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/><a:lstStyle>{lst}</a:lstStyle>{paras}</p:txBody></p:sp>"#
        )
    };
    let level2 = r#"<a:p><a:pPr lvl="1"/><a:r><a:t>A point</a:t></a:r></a:p>"#;
    let s = slide(
        &(placeholder(
            "1",
            "",
            &(para("An opening sentence.") + level2 + &para("A closing sentence.")),
        ) + &placeholder("2", "", &(para("one") + &para("two")))
            + &placeholder("3", "", &(para("outer") + level2))
            + &placeholder(
                "4",
                "",
                &(r#"<a:p><a:pPr><a:buNone/></a:pPr><a:r><a:t>Lead:</a:t></a:r></a:p>"#.to_owned()
                    + &para("x")
                    + &para("y")),
            )),
    );
    let layout = format!(
        r#"<p:sldLayout {P}><p:cSld><p:spTree>{}</p:spTree></p:cSld></p:sldLayout>"#,
        placeholder(
            "1",
            r#"<a:lvl1pPr marL="0" indent="0"><a:buNone/></a:lvl1pPr>"#,
            ""
        ) + &placeholder(
            "4",
            r#"<a:lvl1pPr marL="0" indent="0"><a:buNone/></a:lvl1pPr>"#,
            ""
        ) + &placeholder(
            "3",
            r#"<a:lvl1pPr marL="0" indent="0"><a:buNone/></a:lvl1pPr><a:lvl2pPr marL="342900" indent="0"><a:buNone/></a:lvl2pPr>"#,
            ""
        )
    );
    let master = format!(
        r#"<p:sldMaster {P}><p:cSld><p:spTree>{}</p:spTree></p:cSld><p:txStyles><p:titleStyle/><p:bodyStyle><a:lvl1pPr marL="342900" indent="-342900"><a:buChar char="&#8226;"/></a:lvl1pPr><a:lvl2pPr marL="742950" indent="-285750"><a:buChar char="&#8211;"/></a:lvl2pPr></p:bodyStyle></p:txStyles></p:sldMaster>"#,
        sp(Some("body"), 0, 0, "")
    );
    let bytes = deck_with_layout(&s, &layout, &master);
    let input = Input {
        bytes: &bytes,
        file_name: "template.pptx",
        mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    };
    let doc = PptxConverter
        .convert(&input, &mut Context::new())
        .expect("converts");
    let blocks = &doc.parts[0].blocks;
    assert_eq!(
        text_of(blocks),
        [
            "An opening sentence.",
            "L1",
            "A closing sentence.",
            "L2",
            "L1",
            "Lead:",
            "L2"
        ],
        "{blocks:#?}"
    );
}

#[test]
fn an_automatic_numbering_starts_where_its_first_item_says() {
    // `a:buAutoNum startAt`: the list continues a count from another slide ("(3) Third"); a
    // nested numbered list keeps its own start; a numbered list without one starts at 1.
    let item = |lvl: u8, start: &str, text: &str| {
        format!(
            r#"<a:p><a:pPr lvl="{lvl}"><a:buAutoNum type="arabicPeriod"{start}/></a:pPr><a:r><a:t>{text}</a:t></a:r></a:p>"#
        )
    };
    let body = item(0, r#" startAt="3""#, "Third")
        + &item(0, r#" startAt="3""#, "Fourth")
        + &item(1, r#" startAt="7""#, "Seventh")
        + &item(1, r#" startAt="7""#, "Eighth");
    let s = slide(&(sp(None, 0, 0, &body) + &sp(None, 0, 500, &item(0, "", "First"))));
    let doc = PptxConverter
        .convert(
            &Input {
                bytes: &one_slide_deck(&s),
                file_name: "t.pptx",
                mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            },
            &mut Context::new(),
        )
        .expect("converts");
    let lists: Vec<&quire_plugin_api::List> = doc.parts[0]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::List(l) => Some(l),
            _ => None,
        })
        .collect();
    assert_eq!(lists.len(), 2, "{:#?}", doc.parts[0].blocks);
    assert!(lists[0].ordered);
    assert_eq!((lists[0].start, lists[0].items.len()), (3, 2));
    let Some(Block::List(nested)) = lists[0].items[1].blocks.last() else {
        panic!("nested list expected: {:#?}", lists[0]);
    };
    assert_eq!((nested.start, nested.items.len()), (7, 2));
    assert_eq!(lists[1].start, 1);
}

#[test]
fn a_text_box_holding_only_a_slide_number_field_is_furniture() {
    // Older decks number their notes pages with a plain text box (not a `sldNum`
    // placeholder) holding the `slidenum` field, and some put one in a slide's corner: page
    // furniture, like the placeholder. A field among other words stays, and so does a text
    // box showing the date (Tika's autodate deck: a title "Now" over the date).
    let field = |kind: &str, shown: &str| {
        format!(r#"<a:fld id="{{1}}" type="{kind}"><a:t>{shown}</a:t></a:fld>"#)
    };
    let slide_number = format!("<a:p>{}</a:p>", field("slidenum", "2"));
    let date = format!("<a:p>{}</a:p>", field("datetime1", "5/6/2024"));
    let page = format!(
        "<a:p><a:r><a:t>See page </a:t></a:r>{}</a:p>",
        field("slidenum", "2")
    );
    let s = slide(
        &(sp(None, 0, 0, &para("Agenda"))
            + &sp(None, 0, 900, &slide_number)
            + &sp(None, 500, 900, &date)
            + &sp(None, 0, 500, &page)),
    );
    let notes = format!(
        r#"<p:notes {P}><p:cSld><p:spTree>{}{}</p:spTree></p:cSld></p:notes>"#,
        sp(None, 0, 9000, &slide_number),
        sp(Some("body"), 0, 100, &para("Speak slowly"))
    );
    let slide_rels = rels(&[("rN", "notesSlide", "../notesSlides/notesSlide1.xml")]);
    let bytes = one_slide_deck_with(
        &s,
        &[
            ("ppt/slides/_rels/slide1.xml.rels", slide_rels.as_bytes()),
            ("ppt/notesSlides/notesSlide1.xml", notes.as_bytes()),
        ],
    );
    let doc = convert_deck(&bytes);
    assert_eq!(
        text_of(&doc.parts[0].blocks),
        ["Agenda", "See page 2", "5/6/2024"]
    );
    assert_eq!(text_of(&doc.parts[0].notes), ["Speak slowly"]);
}

#[test]
fn a_numbering_the_masters_body_style_gives_makes_a_numbered_list() {
    // A quiz template: the master's body style numbers every level (`buAutoNum`), the
    // slides' answer paragraphs say nothing of bullets. PowerPoint shows A., B., C.: a
    // numbered list, not bullets. A paragraph that says `buNone` itself stays text.
    let body = r#"<a:p><a:pPr><a:buNone/></a:pPr><a:r><a:t>Pick one.</a:t></a:r></a:p>"#.to_owned()
        + &para("First answer")
        + &para("Second answer");
    let s = slide(
        &(sp(Some("title"), 0, 0, &para("Question"))
            + &format!(
                r#"<p:sp><p:nvSpPr><p:cNvPr id="3" name="b"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="0" y="1000"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/>{body}</p:txBody></p:sp>"#
            )),
    );
    let layout = format!(r#"<p:sldLayout {P}><p:cSld><p:spTree/></p:cSld></p:sldLayout>"#);
    let master = format!(
        r#"<p:sldMaster {P}><p:cSld><p:spTree>{}</p:spTree></p:cSld><p:txStyles><p:titleStyle/><p:bodyStyle><a:lvl1pPr marL="342900" indent="-342900"><a:buFont typeface="+mj-lt"/><a:buAutoNum type="alphaUcPeriod"/></a:lvl1pPr></p:bodyStyle></p:txStyles></p:sldMaster>"#,
        sp(Some("body"), 0, 0, "")
    );
    let bytes = deck_with_layout(&s, &layout, &master);
    let doc = PptxConverter
        .convert(
            &Input {
                bytes: &bytes,
                file_name: "quiz.pptx",
                mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            },
            &mut Context::new(),
        )
        .expect("converts");
    let blocks = &doc.parts[0].blocks;
    assert_eq!(
        text_of(blocks),
        ["H:Question", "Pick one.", "L2"],
        "{blocks:#?}"
    );
    let Block::List(list) = &blocks[2] else {
        panic!("list expected")
    };
    assert!(list.ordered, "{list:#?}");
}
