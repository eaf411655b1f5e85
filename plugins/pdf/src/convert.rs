//! One conversion from bytes to a [`Document`]: two passes over the pages.
//!
//! The first pass reads each page once through PDFium (characters, images, links, OCR for
//! scanned pages) and keeps compact runs of words, not characters, so memory grows with the
//! text of the document, not with its glyph count. Between the passes the document's body
//! font size and running headers/footers are known; the second pass lays out each page.

use crate::blocks::{self, DocStyle, Link};
use crate::furniture::{self, PageItems};
use crate::geom::PageTransform;
use crate::layout::{self, Item};
use crate::unicode_map::MapCheck;
use crate::{engine, glyphs, images, meta, scan, tables};
use pdfium_render::prelude::*;
use quire_plugin_api::{
    Block, Context, Document, DocumentKind, Error, Image, ImageRules, Inline, Input, OcrImage,
    Part, Result,
};
use std::collections::BTreeMap;
use std::path::Path;

/// What the first pass keeps of a page.
struct PageData {
    height: f32,
    items: Vec<Item>,
    /// Images and tables placed on the page, as blocks.
    objects: Vec<Option<Block>>,
    links: Vec<Link>,
    /// Paragraphs read by OCR from a scanned page.
    ocr: Option<Vec<Block>>,
    /// Text written in another direction than the page's body, one paragraph per line.
    aside: Vec<Block>,
}

pub fn convert(
    library: &Path,
    rules: &ImageRules,
    input: &Input<'_>,
    ctx: &mut Context<'_>,
) -> Result<Document> {
    let pdfium = engine::lock(library)?;
    let doc = engine::open_with(&pdfium, input.bytes, ctx.options().password.as_deref())?;
    let pages = doc.pages();
    let count = u32::try_from(pages.len()).unwrap_or(0);
    if count > ctx.limits.max_parts {
        return Err(Error::limit(format!(
            "The PDF has {count} pages, more than the limit of {}",
            ctx.limits.max_parts
        )));
    }
    let mut document = Document::new(DocumentKind::Paged, "PDF Document");
    document.metadata = meta::metadata(&doc);
    document
        .metadata
        .extra
        .insert("num_pages".into(), serde_json::Value::from(count));

    let mut sizes: BTreeMap<u32, usize> = BTreeMap::new();
    // Images are scaled down to the configured box from their raw pixels only when OCR is
    // off: OCR reads an embedded image from its encoded bytes and wants every pixel.
    let mut budget = images::Budget::new((!ctx.ocr_enabled()).then(|| rules.clone()));
    let mut unmapped = Unmapped::default();
    // The job's `pages` (all by default): the others are never read; progress counts only
    // the selected ones, and the pages keep their real numbers.
    let selected = ctx.options().page_count(count);
    if selected == 0 && count > 0 {
        return Err(ctx.options().no_selected_page(count, "page"));
    }
    // The fast text path reads what it can without PDFium building pages (content/); its
    // reader also serves the pages PDFium reads (`CodeFixes`), fast path on or off.
    let fast_on = crate::content::enabled();
    let mut fast =
        crate::content::FastDoc::open(input.bytes, ctx.limits.max_inflated_bytes, count as usize);
    let mut fast_pages = 0u32;
    let mut numbers: Vec<u32> = Vec::with_capacity(selected as usize);
    let mut data: Vec<PageData> = Vec::with_capacity(selected as usize);
    for index in 0..count {
        let number = index + 1;
        if !ctx.options().wants_page(number) {
            continue;
        }
        ctx.check()?;
        if let Some(f) = fast.as_mut().filter(|_| fast_on) {
            if let Some(page) =
                read_fast_page(f, index as usize, number, &mut sizes, &mut budget, ctx)?
            {
                fast_pages += 1;
                data.push(page);
                numbers.push(number);
                ctx.progress(numbers.len() as u64, u64::from(selected));
                continue;
            }
        }
        let fixes = fast
            .as_mut()
            .map(|f| f.code_fixes(index as usize))
            .unwrap_or_default();
        let inherits = fast
            .as_ref()
            .is_some_and(|f| f.inherits_resources(index as usize));
        let page = match pages.get(index as i32) {
            Ok(mut page) => read_page(
                &mut page,
                &doc,
                &fixes,
                inherits,
                number,
                &mut sizes,
                &mut budget,
                &mut unmapped,
                ctx,
            )?,
            Err(_) => {
                ctx.warn(format!(
                    "Page {number} could not be read: the file is damaged there"
                ));
                PageData {
                    height: 0.0,
                    items: Vec::new(),
                    objects: Vec::new(),
                    links: Vec::new(),
                    ocr: None,
                    aside: Vec::new(),
                }
            }
        };
        data.push(page);
        numbers.push(number);
        ctx.progress(numbers.len() as u64, u64::from(selected));
    }
    drop(doc);
    drop(pdfium);
    if crate::content::counting() {
        // Development only (`QUIRE_PDF_FASTPATH=count`): the share the fast path read.
        eprintln!(
            "quire-pdf-fastpath: {fast_pages} of {} pages",
            numbers.len()
        );
    }
    unmapped.warn(ctx);

    let mut style = DocStyle::from_histogram(&sizes);
    style.learn_bold_lines(data.iter().map(|p| p.items.as_slice()));
    let marks = furniture::detect(
        &data
            .iter()
            .map(|p| PageItems {
                items: &p.items,
                height: p.height,
            })
            .collect::<Vec<_>>(),
        style.body_size,
    );
    // The column gutters pages have shown so far, for pages whose own are unclear.
    let mut grid = crate::layout::ColumnGrid::default();
    for (index, (page, (top, bottom))) in data.into_iter().zip(marks).enumerate() {
        let number = numbers[index];
        // A paragraph that runs over the page break stays whole, on the page it starts on
        // (not across pages left out by the job's `pages`); a numbered list keeps counting.
        let follows = index > 0 && numbers[index - 1] + 1 == number;
        let carry = document
            .parts
            .last()
            .filter(|_| follows)
            .and_then(|p| blocks::open_number(&p.blocks));
        let mut part = layout_page(page, number, &style, &top, &bottom, &mut grid, carry);
        if let Some(prev) = document.parts.last_mut().filter(|_| follows) {
            let blocks = std::mem::take(&mut part.blocks);
            let before = prev.blocks.len();
            blocks::join_pages(&mut prev.blocks, blocks);
            part.blocks = prev.blocks.split_off(before);
        }
        document.parts.push(part);
    }
    deepen_numbered_headings(&mut document);
    if document.metadata.title.is_none() {
        document.metadata.title = first_heading(&document);
    }
    // An empty result is never silent: say why when nothing else has.
    let empty =
        crate::flatten::document_text(&document).trim().is_empty() && document.images().is_empty();
    if empty && ctx.warnings().is_empty() {
        ctx.warn(if count == 0 {
            "The PDF has no pages that could be read; the file may be damaged.".to_string()
        } else {
            "No text or images could be read from this PDF; the file may be damaged, or its \
             text may be drawn as shapes."
                .to_string()
        });
    }
    Ok(document)
}

/// The share of a page's characters in fonts without a usable Unicode mapping from which the
/// page's text layer is not trusted.
const UNMAPPED_SHARE: f32 = 0.3;

/// Pages whose text layer was found unusable and kept (OCR off), for one warning.
#[derive(Default)]
struct Unmapped {
    pages: Vec<u32>,
    fonts: Vec<String>,
}

impl Unmapped {
    fn add(&mut self, page: u32, fonts: &[&str]) {
        self.pages.push(page);
        for f in fonts {
            if !self.fonts.iter().any(|x| x == f) {
                self.fonts.push((*f).to_owned());
            }
        }
    }

    fn warn(&self, ctx: &mut Context<'_>) {
        if self.pages.is_empty() {
            return;
        }
        let pages = page_list(&self.pages);
        let names: Vec<String> = self
            .fonts
            .iter()
            .map(|f| strip_subset_tag(f))
            .filter(|f| !f.is_empty())
            .take(3)
            .map(|f| format!("\"{f}\""))
            .collect();
        let fonts = if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        };
        let (noun, verb, them, images) = if self.pages.len() == 1 {
            ("Page", "uses", "it", "its image")
        } else {
            ("Pages", "use", "them", "their images")
        };
        ctx.warn(format!(
            "{noun} {pages} {verb} a font without a usable Unicode mapping{fonts}, so the \
             text read from {them} is likely wrong; convert with OCR on to read {them} from \
             {images}."
        ));
    }
}

/// "1-3, 7" for pages 1, 2, 3 and 7.
fn page_list(pages: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pages.len() {
        let mut j = i;
        while j + 1 < pages.len() && pages[j + 1] == pages[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}-{}", pages[i], pages[j])
        } else {
            pages[i].to_string()
        });
        i = j + 1;
    }
    out.join(", ")
}

/// "Helvetica" for "ABCDEF+Helvetica" (a subset's tag says nothing to a reader).
fn strip_subset_tag(name: &str) -> &str {
    match name.split_once('+') {
        Some((tag, rest)) if tag.len() == 6 && tag.bytes().all(|b| b.is_ascii_uppercase()) => rest,
        _ => name,
    }
}

/// The first pass over one page.
#[allow(clippy::too_many_arguments)]
fn read_page(
    page: &mut PdfPage<'_>,
    document: &PdfDocument<'_>,
    fixes: &crate::content::CodeFixes,
    inherits_resources: bool,
    number: u32,
    sizes: &mut BTreeMap<u32, usize>,
    budget: &mut images::Budget,
    unmapped: &mut Unmapped,
    ctx: &mut Context<'_>,
) -> Result<PageData> {
    let transform = page_transform(page);
    let (_, height) = transform.display_size();
    // Links first: flattening below takes the page's annotations away.
    let links = links(page, &transform);
    let read = |page: &PdfPage<'_>, check: &mut MapCheck| {
        page.text().ok().map(|text| {
            let mut glyphs = glyphs::page_glyphs(&text, page, &transform, check, fixes);
            glyphs::drop_overprints(&mut glyphs);
            glyphs
        })
    };
    // PDFium gives a flattened page that took its resources from the page tree a resource
    // dictionary of its own without them: the page's fonts are lost and its text comes out
    // as glyph codes. Such a page with fields is read before flattening too, and that
    // reading is kept when only flattening made the codes unreadable.
    let fields = has_form_fields(page);
    let before = (inherits_resources && fields).then(|| {
        let mut check = MapCheck::default();
        (read(page, &mut check), check)
    });
    // PDFium rewrites a flattened page's content but its loaded objects still point at the
    // old one (iterating them crashed PDFium on IRS forms from pdf.js's and pdfminer's test
    // files): the page is loaded again and read from the new load.
    let reloaded = if fields && flatten_form_fields(page, number, ctx) {
        document.pages().get(number as i32 - 1).ok()
    } else {
        None
    };
    let page: &PdfPage<'_> = reloaded.as_ref().unwrap_or(page);
    let mut check = MapCheck::default();
    let mut glyphs = read(page, &mut check);
    if let Some((Some(unflattened), before)) = before {
        if check.verdict().0 >= UNMAPPED_SHARE && before.verdict().0 < UNMAPPED_SHARE {
            ctx.warn(format!(
                "The values of the form fields on page {number} were not read: the page takes \
                 its fonts from the document's page tree, and reading its fields loses them."
            ));
            glyphs = Some(unflattened);
            check = before;
        }
    }
    let mut glyphs = glyphs.unwrap_or_else(|| {
        ctx.warn(format!(
            "The text of page {number} could not be read: its content is damaged"
        ));
        Vec::new()
    });
    // Text in a font without a usable Unicode mapping is codes, not characters: such a page
    // is read from its image when OCR is on (the text layer is dropped), else reported.
    let mut ocr = None;
    let (share, fonts) = check.verdict();
    // `force_ocr`: the page is read from its image whatever its text layer holds.
    if share >= UNMAPPED_SHARE || ctx.force_ocr() {
        match scan::ocr_page(page, &transform, ctx)? {
            Some(blocks) => {
                ocr = Some(blocks);
                glyphs.clear();
            }
            None => unmapped.add(number, &fonts),
        }
    }
    let (width, _) = transform.display_size();
    let oriented = glyphs::orient(glyphs, width, height);
    let objects = images::collect(page, document, &transform, budget, ctx);
    finish_page(
        oriented,
        objects,
        &transform,
        links,
        ocr,
        Some(page),
        number,
        sizes,
        ctx,
    )
}

/// The first pass over one page through the fast path (`content`), or `None` when that
/// path cannot read it: nothing has been changed then, and PDFium reads the page.
fn read_fast_page(
    fast: &mut crate::content::FastDoc<'_>,
    index: usize,
    number: u32,
    sizes: &mut BTreeMap<u32, usize>,
    budget: &mut images::Budget,
    ctx: &mut Context<'_>,
) -> Result<Option<PageData>> {
    if ctx.force_ocr() {
        return Ok(None);
    }
    let Some(page) = fast.page(index) else {
        return Ok(None);
    };
    let transform = page.transform;
    // A page whose text is codes rather than characters goes to PDFium (OCR, warnings).
    if page.check.verdict().0 >= UNMAPPED_SHARE {
        return Ok(None);
    }
    let mut glyphs = page.glyphs;
    glyphs::drop_overprints(&mut glyphs);
    let (width, height) = transform.display_size();
    let oriented = glyphs::orient(glyphs, width, height);
    let page_area = (width * height).max(1.0);
    // A scanned page goes to PDFium when OCR is on (it renders the page); with OCR off it
    // is its image and a warning, read here as on any page.
    if ctx.ocr_enabled()
        && scan::is_scanned(
            oriented.body.len(),
            (page.covered / page_area).min(1.0),
            page.has_graphics,
        )
    {
        return Ok(None);
    }
    // Images: those the budget will embed must be JPEGs passed through as stored, or grey or
    // RGB samples the fast path decodes (PDFium decodes every other kind).
    // Nothing is counted or warned about until every image to embed has its bytes; `None`
    // is an image over the document's image limit, decided in order as `images::collect` does.
    let max_pixels = ctx.limits.max_image_pixels;
    let mut kept = budget.kept;
    let mut encoded: Vec<Option<images::Encoded>> = Vec::with_capacity(page.images.len());
    for img in &page.images {
        if kept >= ctx.limits.max_images {
            encoded.push(None);
            continue;
        }
        let (w, h) = (img.width.max(0) as u32, img.height.max(0) as u32);
        encoded.push(Some(match images::check_pixels(w, h, max_pixels) {
            Err(reason) => Err(reason),
            Ok(()) => {
                if let Some(data) = fast.jpeg(img) {
                    kept += 1;
                    Ok((data, "image/jpeg", "jpg", w, h))
                } else if let Some((pixels, color, pw, ph)) = fast.pixels(img, budget.fit()) {
                    let png = images::encode_pixels(pixels, pw, ph, color, budget.fit());
                    kept += u32::from(png.is_ok());
                    png.map(|(png, w, h)| (png, "image/png", "png", w, h))
                } else {
                    return Ok(None);
                }
            }
        }));
    }
    let mut placed = Vec::with_capacity(page.images.len());
    for (img, encoded) in page.images.iter().zip(encoded) {
        budget.seen += 1;
        let name_base = format!("image{}", budget.seen);
        let image = match encoded {
            Some(encoded) => images::entry(budget, &name_base, encoded, ctx),
            None => images::over_budget(budget, &name_base, ctx),
        };
        placed.push(images::Placed {
            rect: img.rect,
            image,
        });
    }
    let objects = images::Objects {
        images: placed,
        image_coverage: (page.covered / page_area).min(1.0),
        has_graphics: page.has_graphics,
        rules: page.rules,
        marks: page.marks,
    };
    finish_page(
        oriented, objects, &transform, page.links, None, None, number, sizes, ctx,
    )
    .map(Some)
}

/// The rest of the first pass, wherever glyphs and objects came from: the page turned to
/// its body's direction, OCR of a scanned page, runs, tables, images.
#[allow(clippy::too_many_arguments)]
fn finish_page(
    oriented: glyphs::Oriented,
    mut objects: images::Objects,
    transform: &PageTransform,
    mut links: Vec<Link>,
    mut ocr: Option<Vec<Block>>,
    page: Option<&PdfPage<'_>>,
    number: u32,
    sizes: &mut BTreeMap<u32, usize>,
    ctx: &mut Context<'_>,
) -> Result<PageData> {
    let (width, mut height) = transform.display_size();
    let turns = oriented.turns;
    let glyphs = oriented.body;
    if turns != 0 {
        // A page printed sideways: everything is read in the turned frame.
        for p in &mut objects.images {
            p.rect = glyphs::turn_rect(&p.rect, turns, width, height);
        }
        for r in objects.rules.iter_mut().chain(objects.marks.iter_mut()) {
            *r = glyphs::turn_rect(r, turns, width, height);
        }
        if turns % 2 == 1 {
            height = width;
        }
    }
    // Text in another direction (a rotated margin line) becomes paragraphs of its own at
    // the end of the page, never letters inside the body's lines.
    let aside: Vec<Block> = oriented
        .aside
        .into_iter()
        .flat_map(|g| {
            glyphs::runs(g)
                .into_iter()
                .map(|r| r.text())
                .filter(|t| !t.trim().is_empty())
                .collect::<Vec<_>>()
        })
        .map(Block::text)
        .collect();
    if ocr.is_some() {
        // Read by OCR above.
    } else if scan::is_scanned(glyphs.len(), objects.image_coverage, objects.has_graphics) {
        let read = match page {
            Some(page) => scan::ocr_page(page, transform, ctx)?,
            None => None,
        };
        match read {
            Some(blocks) => ocr = Some(blocks),
            None => ctx.warn(format!(
                "Page {number} has no text layer; enable use_ocr to read it"
            )),
        }
    } else {
        for g in &glyphs {
            *sizes.entry((g.size * 2.0).round() as u32).or_default() += 1;
        }
    }
    let mut runs = glyphs::runs(glyphs);
    picture_bullets(&objects.marks, &mut runs);
    let mut items: Vec<Item> = runs.into_iter().map(Item::Run).collect();
    let mut placed = Vec::new();
    for (rect, table) in tables::extract(&objects.rules, &mut items) {
        items.push(Item::Object {
            index: placed.len(),
            rect,
        });
        placed.push(Some(Block::Table(table)));
    }
    if ocr.is_none() {
        for p in objects.images {
            let mut image = p.image;
            ocr_image(&mut image, ctx)?;
            items.push(Item::Object {
                index: placed.len(),
                rect: p.rect,
            });
            placed.push(Some(Block::Image(Box::new(image))));
        }
    }
    if turns != 0 {
        for l in &mut links {
            l.rect = glyphs::turn_rect(&l.rect, turns, width, transform.display_size().1);
        }
    }
    Ok(PageData {
        height,
        items,
        objects: placed,
        links,
        ocr,
        aside,
    })
}

/// Whether the page has form widgets.
fn has_form_fields(page: &PdfPage<'_>) -> bool {
    page.annotations().iter().any(|a| {
        matches!(
            a.annotation_type(),
            PdfPageAnnotationType::Widget | PdfPageAnnotationType::XfaWidget
        )
    })
}

/// Form fields (text boxes, check boxes, choices) show their values through appearance
/// streams that are not page content, so PDFium's text page leaves them out; a filled form
/// would lose every answer. Pages with form widgets are flattened first (in memory only):
/// the fields' appearances become page content and are read like the rest of the page.
/// Called for a page with form widgets; true when it was flattened.
fn flatten_form_fields(page: &mut PdfPage<'_>, number: u32, ctx: &mut Context<'_>) -> bool {
    if page.flatten().is_err() {
        ctx.warn(format!(
            "The form fields on page {number} could not be read; their values are missing."
        ));
        return false;
    }
    true
}

/// Picture bullets: a small image just left of the start of a text run, on its line, becomes
/// a "•" run so the list finder sees a marker.
fn picture_bullets(marks: &[crate::geom::Rect], runs: &mut Vec<glyphs::Run>) {
    let mut bullets = Vec::new();
    for mark in marks {
        let follows = runs.iter().any(|r| {
            let gap = r.rect.x0 - mark.x1;
            mark.height() <= 1.5 * r.size
                && gap >= 0.0
                && gap <= 3.0 * r.size
                && mark.v_overlap(&r.rect) >= 0.5 * mark.height()
        });
        let covered = runs
            .iter()
            .any(|r| r.rect.x0 <= mark.x0 && r.rect.x1 >= mark.x1 && mark.v_overlap(&r.rect) > 0.0);
        if follows && !covered {
            let size = runs
                .iter()
                .find(|r| mark.v_overlap(&r.rect) > 0.0)
                .map_or(mark.height(), |r| r.size);
            bullets.push(glyphs::Run {
                words: vec![crate::layout::Word {
                    text: "•".into(),
                    rect: *mark,
                    size,
                    bold: false,
                    italic: false,
                    space_before: true,
                }],
                rect: *mark,
                baseline: mark.y1,
                size,
                rtl: false,
                chars: 1,
            });
        }
    }
    runs.extend(bullets);
}

/// Reads the text of an embedded image when the job asked for OCR.
fn ocr_image(image: &mut Image, ctx: &mut Context<'_>) -> Result<()> {
    if !ctx.ocr_enabled() || image.data.is_empty() {
        return Ok(());
    }
    if image.width.unwrap_or(0) < 32 || image.height.unwrap_or(0) < 16 {
        return Ok(());
    }
    let request = OcrImage {
        data: &image.data,
        mime: &image.mime,
        dpi: None,
    };
    match ctx.ocr(&request) {
        Some(Ok(out)) => {
            let text = out.text.trim();
            if !text.is_empty() {
                image.ocr_text = Some(text.to_string());
            }
        }
        Some(Err(e)) if e.is_temporary() || e.kind() == quire_plugin_api::ErrorKind::Timeout => {
            return Err(e)
        }
        Some(Err(e)) => ctx.warn(format!("OCR failed on {}: {}", image.name, e.message())),
        None => {}
    }
    Ok(())
}

fn page_transform(page: &PdfPage<'_>) -> PageTransform {
    let media = page.boundaries().media().map(|b| b.bounds);
    let (left, bottom, right, top) = match media {
        Ok(r) => (
            r.left().value,
            r.bottom().value,
            r.right().value,
            r.top().value,
        ),
        Err(_) => (0.0, 0.0, page.width().value, page.height().value),
    };
    let quarter_turns = match page.rotation() {
        Ok(PdfPageRenderRotation::Degrees90) => 1,
        Ok(PdfPageRenderRotation::Degrees180) => 2,
        Ok(PdfPageRenderRotation::Degrees270) => 3,
        _ => 0,
    };
    PageTransform {
        left: left.min(right),
        bottom: bottom.min(top),
        right: left.max(right),
        top: bottom.max(top),
        quarter_turns,
    }
}

/// Link areas with a URI action.
fn links(page: &PdfPage<'_>, transform: &PageTransform) -> Vec<Link> {
    let mut out = Vec::new();
    for link in page.links().iter() {
        let Some(action) = link.action() else {
            continue;
        };
        let Some(uri) = action.as_uri_action().and_then(|u| u.uri().ok()) else {
            continue;
        };
        let uri = uri.trim().trim_end_matches('\0').to_string();
        if uri.is_empty() {
            continue;
        }
        if let Ok(r) = link.rect() {
            out.push(Link {
                rect: transform.rect(
                    r.left().value,
                    r.bottom().value,
                    r.right().value,
                    r.top().value,
                ),
                href: uri,
            });
        }
    }
    out
}

/// The second pass: reading order and blocks for one page.
fn layout_page(
    page: PageData,
    number: u32,
    style: &DocStyle,
    top: &[usize],
    bottom: &[usize],
    grid: &mut crate::layout::ColumnGrid,
    carry: Option<u64>,
) -> Part {
    let mut part = Part::page(number);
    let PageData {
        items,
        mut objects,
        links,
        ocr,
        aside,
        ..
    } = page;
    // Running headers, footers and page numbers are furniture: left out of the text, so
    // they do not interrupt a paragraph that runs over a page break or repeat on every page.
    let body: Vec<Item> = items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !top.contains(i) && !bottom.contains(i))
        .map(|(_, item)| item)
        .collect();
    let mut out = blocks::page_blocks(
        layout::regions_in(body, grid),
        style,
        &links,
        &mut objects,
        carry,
    );
    if let Some(ocr) = ocr {
        out.extend(ocr);
    }
    // Objects not placed in a region (none expected) still belong to the page.
    out.extend(objects.into_iter().flatten());
    out.extend(aside);
    part.blocks = out;
    part
}

fn first_heading(doc: &Document) -> Option<String> {
    doc.parts
        .iter()
        .flat_map(|p| &p.blocks)
        .find_map(|b| match b {
            Block::Heading { content, .. } => {
                let text = quire_plugin_api::text::fold_whitespace(&run_text(content));
                (!text.is_empty()).then_some(text)
            }
            _ => None,
        })
}

/// The text of a block's text runs, joined as they stand (the PDF plugin's headings hold
/// nothing else).
fn run_text(content: &[Inline]) -> String {
    content
        .iter()
        .filter_map(|i| match i {
            Inline::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// How many parts a heading's section number has ("2" 1, "2.1" 2, "2.1.3." 3), when its text
/// starts with one followed by a word; parts are one to three digits.
fn section_depth(text: &str) -> Option<usize> {
    let (number, rest) = text.trim_start().split_once(char::is_whitespace)?;
    let depth = crate::blocks::section_number(number)?;
    rest.trim_start()
        .starts_with(char::is_alphabetic)
        .then_some(depth)
}

/// Numbered section headings one level under the headings whose numbers they extend: "2.1
/// Methods" set like "2 Results" (bold at the body size both, where the face says nothing
/// of rank) is a level deeper. Only when the document numbers headings at the first depth
/// and deeper; a heading is only ever moved down, to the level of its depth under the usual
/// level of the first-depth headings.
fn deepen_numbered_headings(doc: &mut Document) {
    let depth_of = |content: &[Inline]| section_depth(&run_text(content));
    let mut first_levels = [0usize; 7];
    let mut deeper = false;
    for block in doc.parts.iter().flat_map(|p| &p.blocks) {
        if let Block::Heading { level, content } = block {
            match depth_of(content) {
                Some(1) => first_levels[usize::from(*level).min(6)] += 1,
                Some(_) => deeper = true,
                None => {}
            }
        }
    }
    let Some(base) = (1..=6).max_by_key(|&l| (first_levels[l], std::cmp::Reverse(l))) else {
        return;
    };
    if !deeper || first_levels[base] == 0 {
        return;
    }
    for block in doc.parts.iter_mut().flat_map(|p| &mut p.blocks) {
        if let Block::Heading { level, content } = block {
            if let Some(depth) = depth_of(content).filter(|&d| d >= 2) {
                let want = (base + depth - 1).min(6) as u8;
                *level = (*level).max(want);
            }
        }
    }
}

/// Runs of every page with their boxes, for debugging layout decisions.
#[doc(hidden)]
pub fn debug_runs(library: &Path, bytes: &[u8]) -> Result<Vec<String>> {
    let pdfium = engine::lock(library)?;
    let doc = engine::open(&pdfium, bytes)?;
    let mut out = Vec::new();
    for (i, page) in doc.pages().iter().enumerate() {
        let transform = page_transform(&page);
        out.push(format!("=== page {} {:?}", i + 1, transform));
        let text = page
            .text()
            .map_err(|e| Error::malformed("no text").with_detail(format!("{e:?}")))?;
        for ch in text.chars().iter().take(20) {
            out.push(format!(
                "char {:?} font={} weight={:?} gen={:?} loose={:?} size={} origin={:?}",
                ch.unicode_char(),
                ch.font_name(),
                ch.font_weight(),
                ch.is_generated(),
                ch.loose_bounds().ok().map(|b| (
                    b.left().value,
                    b.bottom().value,
                    b.right().value,
                    b.top().value
                )),
                ch.scaled_font_size().value,
                ch.origin().ok().map(|(x, y)| (x.value, y.value))
            ));
        }
        let mut glyphs = glyphs::page_glyphs(
            &text,
            &page,
            &transform,
            &mut MapCheck::default(),
            &Default::default(),
        );
        glyphs::drop_overprints(&mut glyphs);
        for run in glyphs::runs(glyphs) {
            out.push(format!(
                "run [{:.1} {:.1} {:.1} {:.1}] base {:.1} size {:.1}: {}",
                run.rect.x0,
                run.rect.y0,
                run.rect.x1,
                run.rect.y1,
                run.baseline,
                run.size,
                run.text()
            ));
        }
    }
    Ok(out)
}

/// Fast path against PDFium, page by page: which pages the fast path reads and where its
/// glyphs and marks differ from PDFium's (development and tests).
#[doc(hidden)]
pub fn debug_fastpath(library: &Path, bytes: &[u8]) -> Result<Vec<String>> {
    let pdfium = engine::lock(library)?;
    let doc = engine::open(&pdfium, bytes)?;
    let count = doc.pages().len() as usize;
    let mut out = Vec::new();
    let Some(mut fast) = crate::content::FastDoc::open(bytes, u64::MAX, count) else {
        out.push(format!(
            "document: not read by the fast path ({count} pages)"
        ));
        return Ok(out);
    };
    for (i, page) in doc.pages().iter().enumerate() {
        let fp = match fast.page_or_why(i) {
            Ok(fp) => fp,
            Err(why) => {
                out.push(format!("page {}: fallback {why}", i + 1));
                continue;
            }
        };
        let transform = page_transform(&page);
        let mut ours = fp.glyphs;
        glyphs::drop_overprints(&mut ours);
        let mut theirs = match page.text() {
            Ok(text) => glyphs::page_glyphs(
                &text,
                &page,
                &transform,
                &mut MapCheck::default(),
                &Default::default(),
            ),
            Err(_) => Vec::new(),
        };
        glyphs::drop_overprints(&mut theirs);
        let text = |g: &[glyphs::Glyph]| {
            let mut s = String::new();
            for x in g {
                if x.space_before {
                    s.push(' ');
                }
                x.text.push_to(&mut s);
            }
            s
        };
        let (a, b) = (text(&ours), text(&theirs));
        let mut notes = Vec::new();
        if format!("{transform:?}") != format!("{:?}", fp.transform) {
            notes.push(format!("transform {:?} vs {:?}", fp.transform, transform));
        }
        if a != b {
            let diff = a
                .chars()
                .zip(b.chars())
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            let ctx_a: String = a.chars().skip(diff.saturating_sub(30)).take(70).collect();
            let ctx_b: String = b.chars().skip(diff.saturating_sub(30)).take(70).collect();
            notes.push(format!(
                "text differs at {diff} ({} vs {} glyphs):\n   fast  {ctx_a:?}\n   pdfium {ctx_b:?}",
                ours.len(),
                theirs.len()
            ));
        } else {
            let mut worst = (0.0f32, 0usize);
            let mut style = 0;
            let mut size = 0.0f32;
            for (k, (x, y)) in ours.iter().zip(&theirs).enumerate() {
                let d = (x.rect.x0 - y.rect.x0)
                    .abs()
                    .max((x.rect.x1 - y.rect.x1).abs())
                    .max((x.rect.y0 - y.rect.y0).abs())
                    .max((x.rect.y1 - y.rect.y1).abs())
                    .max((x.baseline - y.baseline).abs())
                    .max((x.origin_x - y.origin_x).abs());
                if d > worst.0 {
                    worst = (d, k);
                }
                size = size.max((x.size - y.size).abs());
                if (x.bold, x.italic, x.dir) != (y.bold, y.italic, y.dir) {
                    style += 1;
                }
            }
            if worst.0 > 0.05 || style > 0 || size > 0.05 {
                let k = worst.1;
                notes.push(format!(
                    "geometry: worst {:.2} at {k} {:?} fast {:?} base {:.2} pdfium {:?} base {:.2}; size {size:.2}; style diffs {style}",
                    worst.0, ours[k].text, ours[k].rect, ours[k].baseline, theirs[k].rect, theirs[k].baseline
                ));
                if style > 0 {
                    if let Some((x, y)) = ours
                        .iter()
                        .zip(&theirs)
                        .find(|(x, y)| (x.bold, x.italic, x.dir) != (y.bold, y.italic, y.dir))
                    {
                        notes.push(format!(
                            "   style fast {:?} pdfium {:?} at {:?}",
                            (x.bold, x.italic, x.dir),
                            (y.bold, y.italic, y.dir),
                            x.text
                        ));
                    }
                }
            }
        }
        let mut budget = images::Budget::default();
        let mut ctx = Context::new();
        let objects = images::collect(&page, &doc, &transform, &mut budget, &mut ctx);
        let rs = |v: &[crate::geom::Rect]| {
            v.iter()
                .map(|r| format!("[{:.1} {:.1} {:.1} {:.1}]", r.x0, r.y0, r.x1, r.y1))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if rs(&objects.rules) != rs(&fp.rules) {
            notes.push(format!(
                "rules {} vs {}:\n   fast  {}\n   pdfium {}",
                fp.rules.len(),
                objects.rules.len(),
                rs(&fp.rules).chars().take(300).collect::<String>(),
                rs(&objects.rules).chars().take(300).collect::<String>()
            ));
        }
        if rs(&objects.marks) != rs(&fp.marks) {
            notes.push(format!(
                "marks: fast {} pdfium {}",
                rs(&fp.marks),
                rs(&objects.marks)
            ));
        }
        let page_area = {
            let (w, h) = transform.display_size();
            (w * h).max(1.0)
        };
        if objects.has_graphics != fp.has_graphics
            || objects.images.len() != fp.images.len()
            || ((fp.covered / page_area).min(1.0) - objects.image_coverage).abs() > 0.001
        {
            notes.push(format!(
                "graphics {} vs {}, images {} vs {}, coverage {:.3} vs {:.3}",
                fp.has_graphics,
                objects.has_graphics,
                fp.images.len(),
                objects.images.len(),
                (fp.covered / page_area).min(1.0),
                objects.image_coverage
            ));
        }
        let pl = links(&page, &transform);
        let fl: Vec<String> = fp
            .links
            .iter()
            .map(|l| format!("{} {:?}", l.href, l.rect))
            .collect();
        let ql: Vec<String> = pl
            .iter()
            .map(|l| format!("{} {:?}", l.href, l.rect))
            .collect();
        if fl != ql {
            notes.push(format!("links fast {fl:?} pdfium {ql:?}"));
        }
        if notes.is_empty() {
            out.push(format!("page {}: same", i + 1));
        } else {
            out.push(format!("page {}: DIFF {}", i + 1, notes.join("\n  ")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod numbered_tests {
    use super::{deepen_numbered_headings, section_depth};
    use quire_plugin_api::{Block, Document, DocumentKind, Inline, Part};

    fn heading(level: u8, text: &str) -> Block {
        Block::Heading {
            level,
            content: vec![Inline::plain(text)],
        }
    }

    #[test]
    fn section_numbers_are_read() {
        assert_eq!(section_depth("2 Results"), Some(1));
        assert_eq!(section_depth("2. Results"), Some(1));
        assert_eq!(section_depth("2.1 Methods"), Some(2));
        assert_eq!(section_depth("2.1.3. Detail"), Some(3));
        assert_eq!(section_depth("2019 was a year"), None);
        assert_eq!(section_depth("2.5 %"), None);
        assert_eq!(section_depth("Results"), None);
    }

    #[test]
    fn numbered_subsections_go_under_their_sections() {
        let mut doc = Document::new(DocumentKind::Paged, "t");
        let mut part = Part::page(1);
        part.blocks = vec![
            heading(1, "A Title"),
            heading(2, "1 Introduction"),
            heading(2, "1.1 Scope"),
            heading(2, "2 Results"),
            heading(3, "2.1 Methods"),
            heading(2, "2.1.1 Detail"),
            heading(2, "Appendix"),
        ];
        doc.parts.push(part);
        deepen_numbered_headings(&mut doc);
        let levels: Vec<u8> = doc.parts[0]
            .blocks
            .iter()
            .map(|b| match b {
                Block::Heading { level, .. } => *level,
                _ => 0,
            })
            .collect();
        assert_eq!(levels, [1, 2, 3, 2, 3, 4, 2]);
    }
}
