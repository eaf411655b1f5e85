//! PowerPoint presentations (PPTX, PPTM, POTX, POTM) to quire's document model.
//!
//! The package is read with [`quire_ooxml::SafeZip`] (entry count, inflated size and ratio
//! limits) and quick-xml. Slides come in presentation order (`p:sldIdLst`); each becomes a
//! `Part::slide` whose blocks are the title (heading level 2) and then the shapes in reading
//! order (top to bottom, then left to right, groups flattened). Speaker notes go to
//! `part.notes`; comments follow the slide's content. Macros (`vbaProject.bin`) and embedded
//! objects are never read.

mod media;
mod shapes;
mod slide;
mod text;

use quick_xml::events::Event;
use quick_xml::Reader;
use quire_ooxml::{relationships, SafeZip};
use quire_plugin_api::{
    register_converter, Context, Converter, ConverterDescriptor, Document, DocumentKind, Error,
    Input, PluginConfig, Result,
};

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "pptx",
    name: "PowerPoint presentations (PPTX, PPTM, POTX, POTM)",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &[
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
        "application/vnd.openxmlformats-officedocument.presentationml.template",
        "application/vnd.ms-powerpoint.template.macroEnabled.12",
    ],
    extensions: &["pptx", "pptm", "potx", "potm"],
    factory,
};

register_converter!(DESCRIPTOR);

fn factory(_config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(PptxConverter))
}

/// The converter; it holds no state.
#[derive(Debug, Default, Clone, Copy)]
pub struct PptxConverter;

impl Converter for PptxConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        let limits = ctx.limits.clone();
        let mut zip = SafeZip::open(input.bytes, &limits, "PowerPoint")?;
        let mut doc = Document::new(DocumentKind::Presentation, "PowerPoint Presentation");
        let core = quire_ooxml::core_properties(&mut zip);
        doc.metadata.title = core.title;
        doc.metadata.author = core.creator;
        doc.metadata.subject = core.subject;
        doc.metadata.created = core.created;
        doc.metadata.modified = core.modified;

        let pres_part = relationships(&mut zip, "")?
            .into_values()
            .find(|r| r.kind == "officeDocument" && !r.external)
            .map(|r| r.target)
            .unwrap_or_else(|| "ppt/presentation.xml".to_owned());
        let Some(pres_xml) = zip.read(&pres_part)? else {
            return Err(Error::malformed(
                "The file is not a valid PowerPoint presentation: it has no presentation part.",
            ));
        };
        let pres = read_presentation(&pres_xml);
        drop(pres_xml);
        doc.metadata.slide_width = pres.size.map(|s| s.0);
        doc.metadata.slide_height = pres.size.map(|s| s.1);
        let rels = relationships(&mut zip, &pres_part)?;
        let mut slide_parts: Vec<String> = pres
            .slide_ids
            .iter()
            .filter_map(|id| rels.get(id))
            .filter(|r| !r.external && r.kind == "slide")
            .map(|r| r.target.clone())
            .collect();
        if slide_parts.is_empty() {
            // no slide list (damaged or unusual producer): fall back to slide parts by number
            let mut found: Vec<(u32, String)> = zip
                .names()
                .iter()
                .filter_map(|n| {
                    let num = n.strip_prefix("ppt/slides/slide")?.strip_suffix(".xml")?;
                    Some((num.parse().ok()?, n.clone()))
                })
                .collect();
            found.sort();
            slide_parts = found.into_iter().map(|(_, n)| n).collect();
        }
        if slide_parts.len() as u64 > u64::from(limits.max_parts) {
            return Err(Error::limit(format!(
                "The presentation has {} slides, more than the limit of {}.",
                slide_parts.len(),
                limits.max_parts
            )));
        }
        let authors = slide::comment_authors(&mut zip);
        // The job's `pages` (all slides by default): the others are skipped, progress counts
        // the selected ones, and the document keeps its whole count in `num_slides`.
        let count = u32::try_from(slide_parts.len()).unwrap_or(u32::MAX);
        let total = u64::from(ctx.options().page_count(count));
        if ctx.options().pages.is_some() {
            if total == 0 && count > 0 {
                return Err(ctx.options().no_selected_page(count, "slide"));
            }
            doc.metadata.extra.insert("num_slides".into(), count.into());
        }
        let mut state = slide::State::default();
        let mut done = 0;
        for (i, part) in slide_parts.iter().enumerate() {
            let number = i as u32 + 1;
            if !ctx.options().wants_page(number) {
                continue;
            }
            ctx.check()?;
            let slide = slide::convert(&mut zip, part, number, &authors, &mut state, ctx)?;
            doc.parts.push(slide);
            done += 1;
            ctx.progress(done, total);
        }
        Ok(doc)
    }
}

struct Presentation {
    slide_ids: Vec<String>,
    size: Option<(u64, u64)>,
}

fn read_presentation(xml: &[u8]) -> Presentation {
    let mut reader = Reader::from_reader(xml);
    let mut out = Presentation {
        slide_ids: Vec::new(),
        size: None,
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                b"sldId" => {
                    // the relationship id is the prefixed `r:id`; the plain `id` is numeric
                    let rid = e
                        .attributes()
                        .flatten()
                        .find(|a| a.key.local_name().as_ref() == b"id" && a.key.prefix().is_some())
                        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()));
                    if let Some(rid) = rid {
                        out.slide_ids.push(rid);
                    }
                }
                b"sldSz" => {
                    let cx = shapes::attr(&e, b"cx").and_then(|v| v.parse().ok());
                    let cy = shapes::attr(&e, b"cy").and_then(|v| v.parse().ok());
                    if let (Some(cx), Some(cy)) = (cx, cy) {
                        out.size = Some((cx, cy));
                    }
                }
                _ => {}
            },
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}
