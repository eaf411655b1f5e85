//! Image modes (`image_mode`, issue 14) and the image files of `referenced` output.
//!
//! - `embedded` (default): the contract's base64 (`data:` URIs in Markdown, the `images` map
//!   in JSON, whose text names each image by file name).
//! - `referenced`: Markdown and JSON text link `images/<name>`; the files are written beside
//!   the output ([`write_images`]); JSON leaves its `images` map out.
//! - `placeholder`: `<!-- image: alt -->` where the image stood; no map.
//! - `none`: images left out entirely; no map.

use quire_plugin_api::Document;
use std::path::Path;

/// The folder, relative to the output, that `referenced` links point into.
pub const IMAGE_DIR: &str = "images";

/// The job's `image_mode`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ImageOutput {
    #[default]
    Embedded,
    Referenced,
    Placeholder,
    None,
}

impl ImageOutput {
    pub fn parse(value: &str) -> Option<ImageOutput> {
        match value {
            "embedded" => Some(ImageOutput::Embedded),
            "referenced" => Some(ImageOutput::Referenced),
            "placeholder" => Some(ImageOutput::Placeholder),
            "none" => Some(ImageOutput::None),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ImageOutput::Embedded => "embedded",
            ImageOutput::Referenced => "referenced",
            ImageOutput::Placeholder => "placeholder",
            ImageOutput::None => "none",
        }
    }

    /// How a Markdown result shows images.
    pub fn markdown(self) -> super::ImageMode {
        match self {
            ImageOutput::Embedded => super::ImageMode::DataUri,
            ImageOutput::Referenced => super::ImageMode::Linked,
            ImageOutput::Placeholder => super::ImageMode::Placeholder,
            ImageOutput::None => super::ImageMode::Omit,
        }
    }

    /// How the text inside a JSON result shows images.
    pub fn json_text(self) -> super::ImageMode {
        match self {
            ImageOutput::Embedded => super::ImageMode::Reference,
            other => other.markdown(),
        }
    }
}

/// Writes every embedded image of `doc` into `dir` (created at the first image), one file per image under its
/// unique name (names are made safe and unique by `images::normalize_document`). Returns how
/// many were written.
pub fn write_images(doc: &Document, dir: &Path) -> std::io::Result<usize> {
    let mut written = 0;
    for image in doc.images() {
        if image.skipped.is_some() || image.data.is_empty() {
            continue;
        }
        let name = Path::new(&image.name);
        // Never a path: the normaliser already reduced names to one component.
        if name.components().count() != 1 || image.name.starts_with('.') {
            continue;
        }
        if written == 0 {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(dir.join(name), &image.data)?;
        written += 1;
    }
    Ok(written)
}

/// The MIME type of an image file by its extension (the names carry their format's).
pub fn image_content_type(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "bmp" => "image/bmp",
        _ => return None,
    })
}
