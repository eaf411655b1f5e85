//! The image converter: PNG, JPEG, GIF, BMP, WebP and TIFF pictures as an `image` document.
//!
//! An image document is one part per frame holding a [`Block::Image`] (plus the OCR text below
//! it when the job asked for OCR). The header is read and the pixel count checked before any
//! decoding, so decompression bombs fail fast with a clear message; decoding itself runs under
//! `image::Limits` (see [`decode`]).
//!
//! Which bytes are embedded: the original file when it can be shown as it is (a single-frame
//! PNG, JPEG, GIF or BMP that needs no rotation; WebP and single-page TIFF too, which the host
//! converts to PNG); a re-encoded frame otherwise (EXIF orientation applied, the first frame of an
//! animated GIF, each page of a multi-page TIFF). The host scales and re-encodes every embedded
//! image by the configured rules, for all plugins alike.

mod decode;
mod encode;
mod frames;
mod metadata;

use decode::{check_pixels, decode, format_name, guess_format, read_header, Frame};
use image::ImageFormat;
use quire_plugin_api::{
    register_converter, Block, Context, Converter, ConverterDescriptor, Document, DocumentKind,
    Error, ErrorKind, Image, ImageRules, ImageSummary, Input, OcrImage, Part, PluginConfig, Result,
};

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "image",
    name: "Image",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &[
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/bmp",
        "image/webp",
        "image/tiff",
    ],
    extensions: &["png", "jpg", "jpeg", "gif", "bmp", "webp", "tif", "tiff"],
    factory,
};

register_converter!(DESCRIPTOR);

fn factory(config: &PluginConfig) -> Result<Box<dyn Converter>> {
    Ok(Box::new(ImageConverter {
        rules: config.images.clone(),
    }))
}

/// Converts one picture file.
pub struct ImageConverter {
    rules: ImageRules,
}

impl ImageConverter {
    pub fn new(rules: ImageRules) -> Self {
        ImageConverter { rules }
    }
}

impl Converter for ImageConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        let bytes = input.bytes;
        let format = guess_format(bytes, input.mime)?;
        let header = read_header(bytes, format)?;
        check_pixels(header.width, header.height, ctx.limits.max_image_pixels)?;
        ctx.check()?;

        let max_parts = ctx.limits.max_parts.max(1);
        let tiff_pages = if format == ImageFormat::Tiff {
            frames::tiff_pages(bytes, max_parts.saturating_add(1))?
        } else {
            Vec::new()
        };
        let mut doc = Document::new(DocumentKind::Image, "Image");
        let mut ocr_texts = Vec::new();
        let (width, height, frames) = if tiff_pages.len() > 1 {
            self.convert_pages(bytes, &tiff_pages, &mut doc, &mut ocr_texts, ctx)?
        } else {
            let frames = match format {
                ImageFormat::Gif => frames::gif_frames(bytes, max_parts),
                ImageFormat::WebP => frames::webp_frames(bytes),
                _ => 1,
            };
            let frame = decode(bytes, format, ctx.limits.max_image_pixels)?;
            let (w, h) = (frame.image.width(), frame.image.height());
            metadata::fill(
                &mut doc.metadata,
                frame.exif.as_deref(),
                frame.xmp.as_deref(),
            );
            let mut part = Part::section();
            let mut image = if frames == 1 && !frame.reoriented {
                let mut img = Image::new(
                    format!("image1.{}", extension(format)),
                    format.to_mime_type(),
                    bytes.to_vec(),
                );
                img.width = Some(w);
                img.height = Some(h);
                img
            } else {
                self.embedded(&frame, format == ImageFormat::Jpeg, 1)?
            };
            let original = (format, bytes);
            self.read_text(&frame, Some(original), &mut image, &mut ocr_texts, ctx)?;
            part.blocks.push(Block::Image(Box::new(image)));
            doc.parts.push(part);
            ctx.progress(1, 1);
            (w, h, frames)
        };

        doc.image = Some(ImageSummary {
            width,
            height,
            format: format_name(format).into(),
            frames,
            ocr_text: if ctx.ocr_enabled() {
                let read: Vec<&str> = ocr_texts
                    .iter()
                    .map(String::as_str)
                    .filter(|t| !t.is_empty())
                    .collect();
                Some(read.join("\n\n"))
            } else {
                None
            },
            ocr_provider: ctx.ocr_provider_id().map(str::to_owned),
        });
        Ok(doc)
    }
}

impl ImageConverter {
    /// One part per page of a multi-page TIFF. A page over the pixel limit or damaged is listed
    /// as skipped (with a warning) so the other pages still convert.
    fn convert_pages(
        &self,
        bytes: &[u8],
        pages: &[u64],
        doc: &mut Document,
        ocr_texts: &mut Vec<String>,
        ctx: &mut Context<'_>,
    ) -> Result<(u32, u32, u32)> {
        let max_parts = ctx.limits.max_parts.max(1) as usize;
        if pages.len() > max_parts {
            ctx.warn(format!(
                "The TIFF has more than {max_parts} pages; only the first {max_parts} were converted."
            ));
        }
        let pages = &pages[..pages.len().min(max_parts)];
        let total = pages.len() as u64;
        let mut first_size = (0, 0);
        for (i, &offset) in pages.iter().enumerate() {
            ctx.check()?;
            let number = i as u32 + 1;
            let mut part = Part::page(number);
            match self.decode_page(bytes, offset, ctx.limits.max_image_pixels) {
                Ok(frame) => {
                    if i == 0 {
                        first_size = (frame.image.width(), frame.image.height());
                        metadata::fill(
                            &mut doc.metadata,
                            frame.exif.as_deref(),
                            frame.xmp.as_deref(),
                        );
                    }
                    let mut image = self.embedded(&frame, false, number)?;
                    self.read_text(&frame, None, &mut image, ocr_texts, ctx)?;
                    part.blocks.push(Block::Image(Box::new(image)));
                }
                Err(e) if i == 0 => return Err(e),
                Err(e) => {
                    ctx.warn(format!(
                        "Page {number} of the TIFF was skipped: {}",
                        e.message()
                    ));
                    let mut image =
                        Image::new(format!("page{number}.png"), "image/tiff", Vec::new());
                    image.skipped = Some(e.message().to_owned());
                    part.blocks.push(Block::Image(Box::new(image)));
                }
            }
            doc.parts.push(part);
            ctx.progress(i as u64 + 1, total);
        }
        Ok((first_size.0, first_size.1, pages.len() as u32))
    }

    fn decode_page(&self, bytes: &[u8], offset: u64, max_pixels: u64) -> Result<Frame> {
        let copy = frames::tiff_with_first_page(bytes, offset)
            .ok_or_else(|| Error::malformed("The TIFF image has a damaged header."))?;
        let header = read_header(&copy, ImageFormat::Tiff)?;
        check_pixels(header.width, header.height, max_pixels)?;
        decode(&copy, ImageFormat::Tiff, max_pixels)
    }

    /// A re-encoded frame ready for embedding.
    fn embedded(&self, frame: &Frame, as_jpeg: bool, number: u32) -> Result<Image> {
        let encoded = encode::for_embedding(&frame.image, as_jpeg, &self.rules)?;
        let ext = if encoded.mime == "image/jpeg" {
            "jpg"
        } else {
            "png"
        };
        let mut image = Image::new(format!("image{number}.{ext}"), encoded.mime, encoded.data);
        image.width = Some(frame.image.width());
        image.height = Some(frame.image.height());
        Ok(image)
    }

    /// Runs OCR on a frame when the job asked for it; the text goes into the image. `original` is the source file when it is one frame that needs no
    /// rotation: PNG and JPEG are then sent as they are.
    fn read_text(
        &self,
        frame: &Frame,
        original: Option<(ImageFormat, &[u8])>,
        image: &mut Image,
        ocr_texts: &mut Vec<String>,
        ctx: &mut Context<'_>,
    ) -> Result<()> {
        if !ctx.ocr_enabled() {
            return Ok(());
        }
        let reusable = original.filter(|(format, _)| {
            !frame.reoriented && matches!(format, ImageFormat::Png | ImageFormat::Jpeg)
        });
        let encoded;
        let request = match reusable {
            Some((format, data)) => OcrImage {
                data,
                mime: format.to_mime_type(),
                dpi: None,
            },
            None => {
                encoded = encode::png_full(&frame.image)?;
                OcrImage {
                    data: &encoded.data,
                    mime: encoded.mime,
                    dpi: None,
                }
            }
        };
        let output = match ctx.ocr(&request) {
            None => return Ok(()),
            Some(Ok(output)) => output,
            // Input the provider cannot read: keep the picture, say so, go on.
            Some(Err(e))
                if matches!(
                    e.kind(),
                    ErrorKind::Malformed | ErrorKind::Unsupported | ErrorKind::LimitExceeded
                ) =>
            {
                ctx.warn(format!(
                    "Text could not be read from {}: {}",
                    image.name,
                    e.message()
                ));
                return Ok(());
            }
            Some(Err(e)) => return Err(e),
        };
        let text = output.text.trim().to_owned();
        // The renderer prints `ocr_text` below the image (Markdown) and in `content.ocr_text`
        // (JSON); adding paragraphs here as well would print the text twice.
        if !text.is_empty() {
            image.ocr_text = Some(text.clone());
        }
        ocr_texts.push(text);
        Ok(())
    }
}

fn extension(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "jpg",
        ImageFormat::Tiff => "tif",
        other => other.extensions_str().first().copied().unwrap_or("img"),
    }
}
