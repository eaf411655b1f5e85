//! The fast path on small hand-written PDFs (each test fails without the reader's part it
//! names).

use super::FastDoc;

/// A PDF of numbered objects (1: catalog, 2: pages, then `objects` from 3 on); each page
/// object must say `/Parent 2 0 R`. Streams are written with their right length.
fn pdf(pages: &[u32], objects: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
    pdf_tree(pages, "", objects)
}

/// [`pdf`] with `tree` added to the page tree's root (entries its pages inherit).
fn pdf_tree(pages: &[u32], tree: &str, objects: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    let kids: Vec<String> = pages.iter().map(|p| format!("{p} 0 R")).collect();
    let mut all: Vec<(String, Option<&[u8]>)> = vec![
        ("<< /Type /Catalog /Pages 2 0 R >>".into(), None),
        (
            format!(
                "<< /Type /Pages /Kids [{}] /Count {} {tree}>>",
                kids.join(" "),
                pages.len()
            ),
            None,
        ),
    ];
    all.extend(objects.iter().map(|(d, s)| ((*d).to_string(), *s)));
    for (i, (dict, stream)) in all.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        match stream {
            Some(data) => {
                let d = dict.replace("LEN", &data.len().to_string());
                out.extend_from_slice(d.as_bytes());
                out.extend_from_slice(b"\nstream\n");
                out.extend_from_slice(data);
                out.extend_from_slice(b"\nendstream");
            }
            None => out.extend_from_slice(dict.as_bytes()),
        }
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", all.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            all.len() + 1
        )
        .as_bytes(),
    );
    out
}

const HELVETICA: &str =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

fn page(content_obj: u32, extra: &str) -> String {
    format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents {content_obj} 0 R \
         /Resources << /Font << /F1 5 0 R >> {extra} >> >>"
    )
}

/// A one-page PDF: the page (object 3) draws `content` (4) with `font` as /F1 (5); `more`
/// are objects 6 on.
fn one_page(content: &[u8], font: &str, more: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
    let page = page(4, "");
    let mut objects: Vec<(&str, Option<&[u8]>)> = vec![
        (&page, None),
        ("<< /Length LEN >>", Some(content)),
        (font, None),
    ];
    objects.extend_from_slice(more);
    pdf(&[3], &objects)
}

/// The page's text with a space where a glyph has one before it.
fn text(bytes: &[u8]) -> Option<String> {
    let mut doc = FastDoc::open(bytes, u64::MAX, 1)?;
    let p = doc.page(0)?;
    let mut s = String::new();
    for g in &p.glyphs {
        if g.space_before {
            s.push(' ');
        }
        g.text.push_to(&mut s);
    }
    Some(s)
}

#[test]
fn tj_kerning_moves_glyphs_and_a_wide_gap_is_a_space() {
    let content = b"BT /F1 10 Tf 100 700 Td [(A) -200 (B) 600 (C) -100 (D)] TJ ET";
    let bytes = one_page(content, HELVETICA, &[]);
    let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
    let p = doc.page(0).unwrap();
    let x: Vec<f32> = p.glyphs.iter().map(|g| g.origin_x).collect();
    // A is 6.67 wide at 10 pt; -200 moves B 2 right; 600 moves C 6 left of B's end.
    assert!((x[0] - 100.0).abs() < 0.01);
    assert!((x[1] - (100.0 + 6.67 + 2.0)).abs() < 0.01, "{x:?}");
    assert!((x[2] - (x[1] + 6.67 - 6.0)).abs() < 0.01, "{x:?}");
    // A gap of 0.2 em (over half of Helvetica's 0.278 em space) is a word break for
    // PDFium, one of 0.1 em is not.
    assert_eq!(text(&bytes).unwrap(), "A BCD");
}

#[test]
fn a_tounicode_bfrange_gives_the_text() {
    let cmap: &[u8] = b"begincmap 1 begincodespacerange <00> <FF> endcodespacerange \
        1 beginbfrange <01> <03> <0048> endbfrange 1 beginbfchar <04> <0021> endbfchar endcmap";
    let font = "<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Custom /FirstChar 1 /LastChar 4 \
        /Widths [500 500 500 500] /ToUnicode 6 0 R /FontDescriptor 7 0 R >>";
    let content = b"BT /F1 12 Tf 50 500 Td <01020304> Tj ET";
    let bytes = one_page(
        content,
        font,
        &[
            ("<< /Length LEN >>", Some(cmap)),
            (
                "<< /Type /FontDescriptor /FontName /ABCDEF+Custom /Flags 32 /FontBBox [0 -200 1000 900] \
                 /Ascent 800 /Descent -200 /StemV 80 /FontFile3 8 0 R >>",
                None,
            ),
            ("<< /Length LEN >>", Some(b"")),
        ],
    );
    assert_eq!(text(&bytes).unwrap(), "HIJ!");
}

#[test]
fn differences_name_glyphs_through_the_glyph_list() {
    let font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica \
        /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [65 /Eacute /germandbls] >> >>";
    let content = b"BT /F1 10 Tf 50 500 Td (ABC) Tj ET";
    let bytes = one_page(content, font, &[]);
    assert_eq!(text(&bytes).unwrap(), "\u{c9}\u{df}C");
}

#[test]
fn form_xobjects_are_read_in_place_with_their_matrix() {
    let form = b"BT /F1 10 Tf 0 0 Td (Inside) Tj ET 0 0 m 100 0 l S";
    let content = b"BT /F1 10 Tf 50 700 Td (Before) Tj ET q 1 0 0 1 200 300 cm /X1 Do Q";
    let bytes = pdf(
        &[3],
        &[
            (&page(4, "/XObject << /X1 6 0 R >>"), None),
            ("<< /Length LEN >>", Some(content)),
            (HELVETICA, None),
            (
                "<< /Type /XObject /Subtype /Form /BBox [0 0 500 500] /Matrix [1 0 0 1 10 20] \
                 /Length LEN >>",
                Some(form),
            ),
        ],
    );
    let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
    let p = doc.page(0).unwrap();
    let inside = &p.glyphs[6];
    assert_eq!(inside.text, crate::glyphs::GlyphText::Char('I'));
    // Form matrix then the page's cm: (210, 320) in user space, 800 - 320 from the top.
    assert!((inside.origin_x - 210.0).abs() < 0.01 && (inside.baseline - 480.0).abs() < 0.01);
    assert_eq!(p.rules.len(), 1);
    assert!((p.rules[0].x0 - 210.0).abs() < 0.6 && (p.rules[0].x1 - 310.0).abs() < 0.6);
}

#[test]
fn a_rotated_page_is_read_in_display_space() {
    let content = b"BT /F1 10 Tf 100 700 Td (Up) Tj ET";
    let page90 = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Rotate 90 /Contents 4 0 R \
        /Resources << /Font << /F1 5 0 R >> >> >>";
    let bytes = pdf(
        &[3],
        &[
            (page90, None),
            ("<< /Length LEN >>", Some(content)),
            (HELVETICA, None),
        ],
    );
    let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
    let p = doc.page(0).unwrap();
    assert_eq!(p.transform.quarter_turns, 1);
    let g = &p.glyphs[0];
    // Turned a quarter clockwise: user (100, 700) is display (700, 100), writing downwards.
    assert!((g.origin_x - 700.0).abs() < 0.01 && (g.baseline - 100.0).abs() < 0.01);
    assert_eq!(g.dir, 3);
}

#[test]
fn damaged_or_unknown_content_falls_back() {
    // Content that is not there, an unknown operator, a Type3 font: no fast page.
    let good = page(4, "");
    let missing = pdf(
        &[3],
        &[
            (&page(9, ""), None),
            ("<< /Length LEN >>", Some(b"BT ET")),
            (HELVETICA, None),
        ],
    );
    assert!(FastDoc::open(&missing, u64::MAX, 1).is_none_or(|mut d| d.page(0).is_none()));
    // A stream without its length is read to its "endstream", as PDFium does.
    let no_length = pdf(
        &[3],
        &[
            (&good, None),
            ("<< >>", Some(b"BT /F1 10 Tf (Hi) Tj ET")),
            (HELVETICA, None),
        ],
    );
    assert_eq!(text(&no_length).as_deref(), Some("Hi"));
    let unknown_op = pdf(
        &[3],
        &[
            (&good, None),
            (
                "<< /Length LEN >>",
                Some(b"BT /F1 10 Tf (A) Tj ET 1 2 frobnicate"),
            ),
            (HELVETICA, None),
        ],
    );
    assert!(FastDoc::open(&unknown_op, u64::MAX, 1)
        .unwrap()
        .page(0)
        .is_none());
    let type3 = pdf(
        &[3],
        &[
            (&good, None),
            ("<< /Length LEN >>", Some(b"BT /F1 10 Tf (A) Tj ET")),
            (
                "<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [1 0 0 1 0 0] \
                 /CharProcs << >> /Encoding << /Differences [65 /a] >> /FirstChar 65 /LastChar 65 \
                 /Widths [1] >>",
                None,
            ),
        ],
    );
    assert!(FastDoc::open(&type3, u64::MAX, 1)
        .unwrap()
        .page(0)
        .is_none());
    // A truncated Flate stream.
    let z = miniz_oxide::deflate::compress_to_vec_zlib(b"BT /F1 10 Tf (Hello) Tj ET", 6);
    let cut = &z[..z.len() / 2];
    let truncated = pdf(
        &[3],
        &[
            (&good, None),
            ("<< /Length LEN /Filter /FlateDecode >>", Some(cut)),
            (HELVETICA, None),
        ],
    );
    assert!(FastDoc::open(&truncated, u64::MAX, 1)
        .unwrap()
        .page(0)
        .is_none());
}

#[test]
fn a_hyphen_at_a_line_end_is_pdfiums_soft_hyphen() {
    let content = b"BT /F1 10 Tf 50 700 Td (co-) Tj 0 -12 Td (operate) Tj 0 -12 Td (a -) Tj 0 -12 Td (b ex- ) Tj 0 -12 Td (tra) Tj ET";
    let bytes = one_page(content, HELVETICA, &[]);
    assert_eq!(text(&bytes).unwrap(), "co\u{ad}operate a - b ex\u{ad}tra");
}

/// A Type0 font (object 5) over a CID font (6) with a descriptor (7) whose `FontFile2` (8)
/// maps "A".."C" to glyphs 5..7 and the space to glyph 3; no `ToUnicode`. `cid_extra` goes
/// into the CID font (a `CIDToGIDMap`, say), `more` are objects 9 on (9 is the page's
/// XObject `/X1`).
fn type0_embedded(content: &[u8], cid_extra: &str, more: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
    let program = super::truetype::tests::font_with_cmap(&[(0x20, 0x20, 3), (0x41, 0x43, 5)]);
    let cid = format!(
        "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Emb \
         /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> \
         /FontDescriptor 7 0 R /DW 500 {cid_extra} >>"
    );
    let extra = if more.is_empty() {
        ""
    } else {
        "/XObject << /X1 9 0 R >>"
    };
    let page = page(4, extra);
    let mut objects: Vec<(&str, Option<&[u8]>)> = vec![
        (&page, None),
        ("<< /Length LEN >>", Some(content)),
        (
            "<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Emb /Encoding /Identity-H \
             /DescendantFonts [6 0 R] >>",
            None,
        ),
        (&cid, None),
        (
            "<< /Type /FontDescriptor /FontName /ABCDEF+Emb /Flags 4 /FontBBox [0 -200 1000 900] \
             /Ascent 800 /Descent -200 /StemV 80 /FontFile2 8 0 R >>",
            None,
        ),
        ("<< /Length LEN >>", Some(&program)),
    ];
    objects.extend_from_slice(more);
    pdf(&[3], &objects)
}

#[test]
fn a_type0_font_without_tounicode_reads_its_embedded_cmap() {
    // Glyphs 5, 6, 3, 7 (CID = glyph): "AB C". Without the program's cmap the font was refused.
    let bytes = type0_embedded(b"BT /F1 10 Tf 50 500 Td <0005000600030007> Tj ET", "", &[]);
    assert_eq!(text(&bytes).unwrap(), "AB C");
    // Through a CIDToGIDMap stream: CIDs 1, 2 are glyphs 7, 5.
    let map: &[u8] = &[0, 0, 0, 7, 0, 5];
    let bytes = type0_embedded(
        b"BT /F1 10 Tf 50 500 Td <00010002> Tj ET",
        "/CIDToGIDMap 9 0 R",
        &[("<< /Length LEN >>", Some(map))],
    );
    assert_eq!(text(&bytes).unwrap(), "CA");
    // A code the program has no character for: the page goes to PDFium.
    let bytes = type0_embedded(b"BT /F1 10 Tf 50 500 Td <0009> Tj ET", "", &[]);
    assert!(text(&bytes).is_none());
}

#[test]
fn pdfiums_codes_are_fixed_by_the_font_name_it_reports() {
    let bytes = type0_embedded(b"BT /F1 10 Tf 50 500 Td <0005> Tj ET", "", &[]);
    let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
    let fixes = doc.code_fixes(0);
    assert!(!fixes.is_empty());
    assert_eq!(fixes.get("ABCDEF+Emb", 5), Some('A'));
    assert_eq!(fixes.get("ABCDEF+Emb", 0x20), None);
    assert_eq!(fixes.get("Emb", 5), None);
    // Another font of the same BaseFont in a form on the page (object 10, the form 9). PDFium
    // reports a TrueType font without its subset tag: no clash. A Type1 font keeps it: the
    // name is ambiguous and nothing is fixed.
    for (subtype, fixed) in [("TrueType", Some('A')), ("Type1", None)] {
        let other = format!(
            "<< /Type /Font /Subtype /{subtype} /BaseFont /ABCDEF+Emb /FirstChar 32 \
             /LastChar 32 /Widths [250] >>"
        );
        let bytes = type0_embedded(
            b"BT /F1 10 Tf 50 500 Td <0005> Tj ET /X1 Do",
            "",
            &[
                (
                    "<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] \
                     /Resources << /Font << /F2 10 0 R >> >> /Length LEN >>",
                    Some(b"BT /F2 10 Tf ( ) Tj ET"),
                ),
                (&other, None),
            ],
        );
        let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
        assert_eq!(doc.code_fixes(0).get("ABCDEF+Emb", 5), fixed, "{subtype}");
    }
}

#[test]
fn vertical_writing_in_a_predefined_cmap_is_read() {
    // pdfminer's simple3: a Japanese font named by the JIS `V` CMap, not embedded, with no
    // descriptor. PDFium shows nothing for it without a Japanese font on the system.
    let font = "<< /Type /Font /Subtype /Type0 /BaseFont /Ryumin-Light-V /Encoding /V \
        /DescendantFonts [<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Ryumin-Light \
        /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 1 >> >>] >>";
    let content = b"BT /F1 48 Tf 10 500 Td ($\"$$) Tj ET";
    let bytes = one_page(content, font, &[]);
    let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
    let p = doc.page(0).unwrap();
    let t: Vec<_> = p.glyphs.iter().map(|g| g.text).collect();
    use crate::glyphs::GlyphText::Char;
    assert_eq!(t, [Char('\u{3042}'), Char('\u{3044}')]);
    // Where PDFium puts them: half the advance left of the pen, 0.88 em below it, and
    // one em further down for the next (display y grows downwards from 800).
    let g = &p.glyphs;
    assert!((g[0].origin_x + 14.0).abs() < 0.01, "{}", g[0].origin_x);
    assert!(
        (g[0].baseline - (800.0 - 457.76)).abs() < 0.01,
        "{}",
        g[0].baseline
    );
    assert!((g[1].baseline - g[0].baseline - 48.0).abs() < 0.01);
    // Horizontal codes of the same kind: Shift_JIS and UCS-2.
    for (cmap, codes) in [
        (
            "90ms-RKSJ-H",
            &b"BT /F1 12 Tf 10 500 Td <82a082a25c> Tj ET"[..],
        ),
        (
            "UniJIS-UCS2-H",
            &b"BT /F1 12 Tf 10 500 Td <30423044> Tj ET"[..],
        ),
    ] {
        let font = font.replace("/Encoding /V", &format!("/Encoding /{cmap}"));
        let bytes = one_page(codes, &font, &[]);
        let want = if cmap.starts_with("90ms") {
            "\u{3042}\u{3044}\u{a5}"
        } else {
            "\u{3042}\u{3044}"
        };
        assert_eq!(text(&bytes).as_deref(), Some(want), "{cmap}");
    }
    // Widths by CID cannot be followed through such a CMap: PDFium reads the page.
    let with_w = font.replace("/Supplement 1 >>", "/Supplement 1 >> /W [1 [500]]");
    let bytes = one_page(content, &with_w, &[]);
    assert!(text(&bytes).is_none());
}

/// The pixels the fast path decodes from a page drawing one image whose dictionary has
/// `dict` in it (`/Width 8 /Height 8` given) and whose stream is `data`.
fn image_pixels(dict: &str, data: &[u8], extra: &[(&str, Option<&[u8]>)]) -> Option<Vec<u8>> {
    let content = b"q 400 0 0 200 100 300 cm /Im1 Do Q";
    let image =
        format!("<< /Type /XObject /Subtype /Image /Width 8 /Height 8 {dict} /Length LEN >>");
    let page = page(4, "/XObject << /Im1 6 0 R >>");
    let mut objects: Vec<(&str, Option<&[u8]>)> = vec![
        (&page, None),
        ("<< /Length LEN >>", Some(content)),
        (HELVETICA, None),
        (&image, Some(data)),
    ];
    objects.extend_from_slice(extra);
    let bytes = pdf(&[3], &objects);
    let mut doc = FastDoc::open(&bytes, u64::MAX, 1)?;
    let p = doc.page(0)?;
    assert_eq!(p.images.len(), 1, "the image is read as content");
    doc.pixels(&p.images[0], None).map(|(px, ..)| px)
}

#[test]
fn grey_and_rgb_samples_are_decoded_and_other_kinds_left_to_pdfium() {
    let grey: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
    // Raw 8-bit grey.
    assert_eq!(
        image_pixels("/ColorSpace /DeviceGray /BitsPerComponent 8", &grey, &[]),
        Some(grey.clone())
    );
    // Flate with the PNG "Up" predictor on every row, as PNG-minded writers store images.
    let mut predicted = Vec::new();
    for (y, row) in grey.chunks(8).enumerate() {
        predicted.push(2u8);
        let above = if y == 0 {
            [0u8; 8].as_slice()
        } else {
            &grey[(y - 1) * 8..y * 8]
        };
        predicted.extend(row.iter().zip(above).map(|(b, a)| b.wrapping_sub(*a)));
    }
    let flate = miniz_oxide::deflate::compress_to_vec_zlib(&predicted, 6);
    assert_eq!(
        image_pixels(
            "/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode \
             /DecodeParms << /Predictor 12 /Colors 1 /BitsPerComponent 8 /Columns 8 >>",
            &flate,
            &[]
        ),
        Some(grey.clone())
    );
    // One bit per pixel, 1 white: each row one byte, 0b1010_0000 and so on.
    let bits: Vec<u8> = (0..8u8).map(|y| 0b1010_0000 >> y).collect();
    let expanded: Vec<u8> = bits
        .iter()
        .flat_map(|b| (0..8).map(move |x| if b & (0x80 >> x) != 0 { 255 } else { 0 }))
        .collect();
    assert_eq!(expanded[..8], [255, 0, 255, 0, 0, 0, 0, 0]);
    assert_eq!(
        image_pixels("/ColorSpace /DeviceGray /BitsPerComponent 1", &bits, &[]),
        Some(expanded)
    );
    // Device RGB.
    let rgb: Vec<u8> = (0..192u32).map(|i| (i * 7 % 256) as u8).collect();
    assert_eq!(
        image_pixels("/ColorSpace /DeviceRGB /BitsPerComponent 8", &rgb, &[]),
        Some(rgb.clone())
    );
    // Left to PDFium: a soft mask, a /Decode array, CMYK, colour through an ICC profile,
    // indexed colour, 16 bits, a stream shorter than the image, a filter the fast path does
    // not decode.
    for dict in [
        "/ColorSpace [/ICCBased 7 0 R] /BitsPerComponent 8",
        "/ColorSpace /DeviceGray /BitsPerComponent 8 /SMask 7 0 R",
        "/ColorSpace /DeviceGray /BitsPerComponent 8 /Decode [1 0]",
        "/ColorSpace /DeviceCMYK /BitsPerComponent 8",
        "/ColorSpace [/Indexed /DeviceRGB 1 <000000FFFFFF>] /BitsPerComponent 8",
        "/ColorSpace /DeviceGray /BitsPerComponent 16",
        "/ColorSpace /DeviceRGB /BitsPerComponent 8",
        "/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /RunLengthDecode",
    ] {
        assert_eq!(
            image_pixels(
                dict,
                &grey,
                &[(
                    "<< /Type /XObject /Subtype /Image /Width 8 /Height 8 \
                     /ColorSpace /DeviceGray /BitsPerComponent 8 /Length LEN >>",
                    Some(&grey)
                )]
            ),
            None,
            "{dict}"
        );
    }
}

#[test]
fn a_glyph_with_actual_text_reads_as_that_text() {
    let read = |content: &[u8]| text(&one_page(content, HELVETICA, &[]));
    // One glyph replaced (a ligature as Chromium writes it), in PDFDocEncoding and UTF-16.
    assert_eq!(
        read(b"BT /F1 10 Tf 100 700 Td (A) Tj /Span <</ActualText (ff)>> BDC (x) Tj EMC (B) Tj ET")
            .as_deref(),
        Some("AffB")
    );
    assert_eq!(
        read(b"BT /F1 10 Tf 100 700 Td (A) Tj /Span <</ActualText <FEFF0066006C>>> BDC (x) Tj EMC ET")
            .as_deref(),
        Some("Afl")
    );
    // Marked content without it changes nothing; a span over two glyphs goes to PDFium.
    assert_eq!(
        read(b"BT /F1 10 Tf 100 700 Td /P <</MCID 0>> BDC (Ax) Tj EMC ET").as_deref(),
        Some("Ax")
    );
    assert_eq!(
        read(b"BT /F1 10 Tf 100 700 Td /Span <</ActualText (ff)>> BDC (xy) Tj EMC ET"),
        None
    );
}

#[test]
fn an_upside_down_page_is_read_in_its_own_order() {
    // Two text objects on one line of a page turned by /Rotate 180: in the turned frame the
    // second stands left of the first (PDFium moves it before), on the page it follows.
    let content = b"BT /F1 10 Tf 100 700 Td (ab) Tj ET BT /F1 10 Tf 130 700 Td (cd) Tj ET";
    let page180 = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Rotate 180 \
        /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>";
    let bytes = pdf(
        &[3],
        &[
            (page180, None),
            ("<< /Length LEN >>", Some(content)),
            (HELVETICA, None),
        ],
    );
    assert_eq!(text(&bytes).as_deref(), Some("ab cd"));
}

#[test]
fn a_font_without_ascent_and_descent_takes_its_box() {
    // LibreOffice writes /Ascent 0 /Descent 0 for its embedded subsets.
    let cmap: &[u8] = b"begincmap 1 begincodespacerange <00> <FF> endcodespacerange \
        1 beginbfrange <01> <03> <0048> endbfrange endcmap";
    let font = "<< /Type /Font /Subtype /TrueType /BaseFont /BAAAAA+NotoSerif-Regular \
        /FirstChar 1 /LastChar 3 /Widths [500 500 500] /ToUnicode 6 0 R /FontDescriptor 7 0 R >>";
    let content = b"BT /F1 10 Tf 50 500 Td <010203> Tj ET";
    let bytes = one_page(
        content,
        font,
        &[
            ("<< /Length LEN >>", Some(cmap)),
            (
                "<< /Type /FontDescriptor /FontName /BAAAAA+NotoSerif-Regular /Flags 4 \
                 /FontBBox [-693 -389 2796 1048] /Ascent 0 /Descent 0 /StemV 80 /FontFile2 8 0 R >>",
                None,
            ),
            ("<< /Length LEN >>", Some(b"")),
        ],
    );
    let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
    let p = doc.page(0).expect("read by the fast path");
    let g = &p.glyphs[0];
    assert!((g.rect.height() - 14.37).abs() < 0.01, "{:?}", g.rect);
    assert_eq!(text(&bytes).as_deref(), Some("HIJ"));
}

#[test]
fn an_image_too_big_for_the_box_is_shrunk_as_it_inflates() {
    // 64 x 40 grey in Flate (and the same as 1-bit, raw), into a 16 x 16 box: read row by row
    // and shrunk by areas, the same pixels as shrinking the whole decoded image.
    let grey: Vec<u8> = (0..64 * 40u32).map(|i| ((i * 7) % 251) as u8).collect();
    let bits: Vec<u8> = (0..40 * 8u32).map(|i| (i * 37 % 256) as u8).collect();
    let ones: Vec<u8> = bits
        .chunks(8)
        .flat_map(|r| {
            (0..64).map(move |x| {
                if r[x / 8] & (0x80 >> (x % 8)) != 0 {
                    255
                } else {
                    0
                }
            })
        })
        .collect();
    let flate = miniz_oxide::deflate::compress_to_vec_zlib(&grey, 6);
    let fit = quire_plugin_api::ImageRules {
        max_width: 16,
        max_height: 16,
        ..Default::default()
    };
    for (dict, data, full) in [
        ("/BitsPerComponent 8 /Filter /FlateDecode", &flate, &grey),
        ("/BitsPerComponent 1", &bits, &ones),
    ] {
        let content = b"q 400 0 0 250 100 300 cm /Im1 Do Q";
        let image = format!(
            "<< /Type /XObject /Subtype /Image /Width 64 /Height 40 /ColorSpace /DeviceGray \
             {dict} /Length LEN >>"
        );
        let page = page(4, "/XObject << /Im1 6 0 R >>");
        let bytes = pdf(
            &[3],
            &[
                (&page, None),
                ("<< /Length LEN >>", Some(content)),
                (HELVETICA, None),
                (&image, Some(data)),
            ],
        );
        let mut doc = FastDoc::open(&bytes, u64::MAX, 1).unwrap();
        let p = doc.page(0).unwrap();
        let (px, _, w, h) = doc.pixels(&p.images[0], Some(&fit)).unwrap();
        let expected = quire_plugin_api::pixels::shrink_by_areas(full, 64, 40, 1, 16, 16).unwrap();
        assert_eq!((px, w, h), expected, "{dict}");
        assert_eq!((w, h), (16, 10));
    }
}

#[test]
fn a_page_that_takes_its_resources_from_the_page_tree_says_so() {
    // Page 3 has its own resources, page 4 takes the tree's.
    let own = page(5, "");
    let inherited =
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 5 0 R >>".to_string();
    let content: &[u8] = b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET";
    let bytes = pdf_tree(
        &[3, 4],
        "/Resources << /Font << /F1 6 0 R >> >> ",
        &[
            (&own, None),
            (&inherited, None),
            ("<< /Length LEN >>", Some(content)),
            (HELVETICA, None),
        ],
    );
    let doc = FastDoc::open(&bytes, u64::MAX, 2).expect("readable");
    assert!(!doc.inherits_resources(0));
    assert!(doc.inherits_resources(1));
}
