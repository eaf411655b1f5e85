//! A tiny PDF writer for tests: pages of text in the standard Helvetica fonts and optional
//! raw RGB images, an Info dictionary, a correct cross-reference table.

/// A piece of text at a position (points from the bottom-left corner).
pub struct Text {
    pub x: f32,
    pub y: f32,
    pub size: f32,
    pub bold: bool,
    pub text: String,
    /// Counter-clockwise rotation of the text in degrees (a multiple of 90).
    pub angle: u16,
}

pub fn text(x: f32, y: f32, size: f32, s: &str) -> Text {
    Text {
        x,
        y,
        size,
        bold: false,
        text: s.to_string(),
        angle: 0,
    }
}

pub fn bold(x: f32, y: f32, size: f32, s: &str) -> Text {
    Text {
        bold: true,
        ..text(x, y, size, s)
    }
}

/// An RGB image drawn at a rectangle.
pub struct Picture {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    pub px_w: u32,
    pub px_h: u32,
    /// Black samples whose shape is in a soft mask (a left-to-right alpha ramp), as TeX and
    /// plotting tools write line art.
    pub soft_mask: bool,
}

#[derive(Default)]
pub struct Page {
    pub texts: Vec<Text>,
    pub pictures: Vec<Picture>,
    pub link: Option<(f32, f32, f32, f32, String)>,
    /// Stroked straight lines `(x0, y0, x1, y1)`.
    pub lines: Vec<(f32, f32, f32, f32)>,
    /// The page's `/Rotate` (clockwise degrees, a multiple of 90).
    pub rotate: u16,
    /// Filled discs `(centre x, centre y, radius)`, as browsers draw list bullets.
    pub discs: Vec<(f32, f32, f32)>,
    /// The regular font has no usable Unicode mapping: its codes are the characters' minus
    /// 29 (as TrueType subsets number glyphs) under glyph names PDFium does not know, so the
    /// text layer reads "7KH" for "The".
    pub unmapped_font: bool,
    /// The regular font's `ToUnicode` map gives the capitals A–Z as mathematical italic
    /// capitals (U+1D434 on), characters outside the Basic Multilingual Plane written as
    /// UTF-16 surrogate pairs, as TeX math fonts map them.
    pub astral_font: bool,
    /// A filled-in text form field `(x0, y0, x1, y1, value)`: a widget annotation whose
    /// appearance stream shows the value (not page content).
    pub field: Option<(f32, f32, f32, f32, String)>,
}

pub struct Info<'a> {
    pub title: &'a str,
    pub author: &'a str,
    pub created: &'a str,
}

/// A PDF string literal body in WinAnsiEncoding ("•" is byte 0x95).
fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' | '(' | ')' => {
                out.push('\\');
                out.push(c);
            }
            '•' => out.push_str("\\225"),
            c if (c as u32) < 0x80 => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\{:03o}", c as u32)),
            _ => out.push('?'),
        }
    }
    out
}

/// A string literal body whose codes are the ASCII characters' minus 29.
fn shifted(s: &str) -> String {
    s.chars()
        .map(|c| format!("\\{:03o}", (c as u32).clamp(32, 126) - 29))
        .collect()
}

pub fn pdf(pages: &[Page], info: Option<Info<'_>>) -> Vec<u8> {
    // 1 catalog, 2 pages, 3 Helvetica, 4 Helvetica-Bold, 5 info, 6 an unmapped Helvetica, 7 and
    // 8 a Helvetica mapped outside the Basic Multilingual Plane; then per page: page, content, images, link annotation.
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        Vec::new(), // pages, filled below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"
            .to_vec(),
        Vec::new(), // info, filled below
    ];
    let info_id = 5;
    let shifted_font_id = 6;
    let names: Vec<String> = (3..=97).map(|c| format!("/g{c}")).collect();
    objects.push(
        format!(
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding \
             /Differences [3 {}] >> >>",
            names.join(" ")
        )
        .into_bytes(),
    );
    // 7 a Helvetica whose ToUnicode map (8) gives A-Z as U+1D434 on.
    let astral_font_id = 7;
    objects.push(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding \
          /ToUnicode 8 0 R >>"
            .to_vec(),
    );
    let cmap = "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
                /CMapName /Astral def /CMapType 2 def\n\
                1 begincodespacerange <00> <FF> endcodespacerange\n\
                1 beginbfrange <41> <5A> <D835DC34> endbfrange\n\
                endcmap CMapName currentdict /CMap defineresource pop end end";
    let mut cmap_stream = format!("<< /Length {} >>\nstream\n", cmap.len()).into_bytes();
    cmap_stream.extend_from_slice(cmap.as_bytes());
    cmap_stream.extend_from_slice(b"\nendstream");
    objects.push(cmap_stream);
    objects[info_id - 1] = match &info {
        Some(i) => format!(
            "<< /Title ({}) /Author ({}) /CreationDate ({}) >>",
            escape(i.title),
            escape(i.author),
            i.created
        )
        .into_bytes(),
        None => b"<< >>".to_vec(),
    };
    let mut kids = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    for page in pages {
        let page_id = objects.len() + 1;
        let content_id = page_id + 1;
        let first_image_id = content_id + 1;
        let first_mask_id = first_image_id + page.pictures.len();
        let masks = page.pictures.iter().filter(|p| p.soft_mask).count();
        let annot_id = first_mask_id + masks;
        kids.push(format!("{page_id} 0 R"));
        let mut content = String::new();
        for t in &page.texts {
            let (c, s) = match t.angle % 360 {
                90 => (0, 1),
                180 => (-1, 0),
                270 => (0, -1),
                _ => (1, 0),
            };
            content.push_str(&format!(
                "BT /{} {} Tf {c} {s} {} {c} {} {} Tm ({}) Tj ET\n",
                if t.bold { "F2" } else { "F1" },
                t.size,
                -s,
                t.x,
                t.y,
                if page.unmapped_font && !t.bold {
                    shifted(&t.text)
                } else {
                    escape(&t.text)
                }
            ));
        }
        for (cx, cy, r) in &page.discs {
            // Four Bezier quarters (k = 0.5523), filled.
            let k = 0.5523 * r;
            content.push_str(&format!(
                "{} {cy} m {} {} {} {} {cx} {} c {} {} {} {} {} {cy} c \
                 {} {} {} {} {cx} {} c {} {} {} {} {} {cy} c f\n",
                cx + r,
                cx + r,
                cy + k,
                cx + k,
                cy + r,
                cy + r,
                cx - k,
                cy + r,
                cx - r,
                cy + k,
                cx - r,
                cx - r,
                cy - k,
                cx - k,
                cy - r,
                cy - r,
                cx + k,
                cy - r,
                cx + r,
                cy - k,
                cx + r,
            ));
        }
        for (x0, y0, x1, y1) in &page.lines {
            content.push_str(&format!("0.5 w {x0} {y0} m {x1} {y1} l S\n"));
        }
        let mut xobjects = String::new();
        for (k, p) in page.pictures.iter().enumerate() {
            content.push_str(&format!(
                "q {} 0 0 {} {} {} cm /Im{k} Do Q\n",
                p.w, p.h, p.x, p.y
            ));
            xobjects.push_str(&format!("/Im{k} {} 0 R ", first_image_id + k));
        }
        let field_id = annot_id + usize::from(page.link.is_some());
        let mut annots: Vec<String> = Vec::new();
        if page.link.is_some() {
            annots.push(format!("{annot_id} 0 R"));
        }
        if page.field.is_some() {
            annots.push(format!("{field_id} 0 R"));
            fields.push(format!("{field_id} 0 R"));
        }
        let annots = if annots.is_empty() {
            String::new()
        } else {
            format!("/Annots [{}]", annots.join(" "))
        };
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate {} /Contents {content_id} 0 R \
                 /Resources << /Font << /F1 {} 0 R /F2 4 0 R >> /XObject << {xobjects}>> >> {annots} >>",
                page.rotate,
                if page.unmapped_font {
                    shifted_font_id
                } else if page.astral_font {
                    astral_font_id
                } else {
                    3
                }
            )
            .into_bytes(),
        );
        let mut stream = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
        stream.extend_from_slice(content.as_bytes());
        stream.extend_from_slice(b"\nendstream");
        objects.push(stream);
        let mut mask_streams = Vec::new();
        for p in &page.pictures {
            let mut data = Vec::with_capacity((p.px_w * p.px_h * 3) as usize);
            for y in 0..p.px_h {
                for x in 0..p.px_w {
                    if p.soft_mask {
                        data.extend_from_slice(&[0, 0, 0]);
                    } else {
                        data.extend_from_slice(&[
                            (x * 255 / p.px_w.max(1)) as u8,
                            (y * 255 / p.px_h.max(1)) as u8,
                            128,
                        ]);
                    }
                }
            }
            let smask = if p.soft_mask {
                let alpha: Vec<u8> = (0..p.px_h)
                    .flat_map(|_| (0..p.px_w).map(|x| (x * 255 / p.px_w.max(1)) as u8))
                    .collect();
                let mut m = format!(
                    "<< /Type /XObject /Subtype /Image /Width {} /Height {} /ColorSpace /DeviceGray \
                     /BitsPerComponent 8 /Length {} >>\nstream\n",
                    p.px_w,
                    p.px_h,
                    alpha.len()
                )
                .into_bytes();
                m.extend_from_slice(&alpha);
                m.extend_from_slice(b"\nendstream");
                mask_streams.push(m);
                format!("/SMask {} 0 R ", first_mask_id + mask_streams.len() - 1)
            } else {
                String::new()
            };
            let mut stream = format!(
                "<< /Type /XObject /Subtype /Image /Width {} /Height {} /ColorSpace /DeviceRGB \
                 /BitsPerComponent 8 {smask}/Length {} >>\nstream\n",
                p.px_w,
                p.px_h,
                data.len()
            )
            .into_bytes();
            stream.extend_from_slice(&data);
            stream.extend_from_slice(b"\nendstream");
            objects.push(stream);
        }
        objects.extend(mask_streams);
        if let Some((x0, y0, x1, y1, uri)) = &page.link {
            objects.push(
                format!(
                    "<< /Type /Annot /Subtype /Link /Rect [{x0} {y0} {x1} {y1}] /Border [0 0 0] \
                     /A << /S /URI /URI ({}) >> >>",
                    escape(uri)
                )
                .into_bytes(),
            );
        }
        if let Some((x0, y0, x1, y1, value)) = &page.field {
            let (w, h) = (x1 - x0, y1 - y0);
            objects.push(
                format!(
                    "<< /Type /Annot /Subtype /Widget /F 4 /FT /Tx /T (field{field_id}) /V ({v}) \
                     /Rect [{x0} {y0} {x1} {y1}] /DA (/F1 10 Tf 0 g) /AP << /N {} 0 R >> >>",
                    field_id + 1,
                    v = escape(value)
                )
                .into_bytes(),
            );
            let ap = format!(
                "/Tx BMC BT /F1 10 Tf 2 {} Td ({}) Tj ET EMC",
                h / 2.0 - 3.0,
                escape(value)
            );
            let mut stream = format!(
                "<< /Type /XObject /Subtype /Form /BBox [0 0 {w} {h}] \
                 /Resources << /Font << /F1 3 0 R >> >> /Length {} >>\nstream\n",
                ap.len()
            )
            .into_bytes();
            stream.extend_from_slice(ap.as_bytes());
            stream.extend_from_slice(b"\nendstream");
            objects.push(stream);
        }
    }
    if !fields.is_empty() {
        objects[0] = format!(
            "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [{}] /DA (/F1 10 Tf 0 g) >> >>",
            fields.join(" ")
        )
        .into_bytes();
    }
    objects[1] = format!(
        "<< /Type /Pages /Kids [{}] /Count {} >>",
        kids.join(" "),
        pages.len()
    )
    .into_bytes();
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, obj) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(obj);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R /Info 5 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}
