//! The per-job options of issue 14, as form fields of `POST /api/v1/jobs`: `image_mode`,
//! `pages`, `password`, `force_ocr`, `ocr_language`. Validated here (every mistake one
//! entry of the 422 answer), kept in the job's spec (all but the password, see `secrets`),
//! echoed in the Job only when the client sent them, and handed to the conversion child.

use super::errors::FieldError;
use super::upload::parse_bool;
use crate::render::ImageOutput;
use quire_plugin_api::{JobOptions, PageRanges};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The form fields this module reads.
pub const FIELDS: [&str; 5] = [
    "image_mode",
    "pages",
    "password",
    "force_ocr",
    "ocr_language",
];

/// Longest password accepted (Office allows 255 characters; PDF far fewer).
const MAX_PASSWORD: usize = 1024;

/// What the client chose, as the job keeps it (no password: only whether one was given).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chosen {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_mode: Option<ImageOutput>,
    /// Normalised (`1-3,7`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_ocr: Option<bool>,
    /// Normalised (`en,de`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr_language: Option<String>,
    /// A password was given (it is kept apart, see `secrets`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub password: bool,
}

impl Chosen {
    pub fn image_output(&self) -> ImageOutput {
        self.image_mode.unwrap_or_default()
    }

    /// The options for the converter, with the password when there is one.
    pub fn job_options(&self, password: Option<String>) -> JobOptions {
        JobOptions {
            pages: self
                .pages
                .as_deref()
                .and_then(|p| PageRanges::parse(p).ok()),
            password,
            force_ocr: self.force_ocr.unwrap_or(false),
            ocr_languages: self.ocr_language.clone(),
        }
    }
}

/// A password on its way from the form to the store and from the worker to its conversion
/// child (inside the spec line on the child's stdin, never its command line or
/// environment): `Debug` never shows it.
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Password(pub String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password([redacted])")
    }
}

/// Reads and checks the option fields; every problem is pushed to `errors`.
pub fn read(
    text: impl Fn(&str) -> Option<String>,
    use_ocr: bool,
    ocr_provider: &str,
    errors: &mut Vec<FieldError>,
) -> (Chosen, Option<Password>) {
    let mut chosen = Chosen::default();
    if let Some(v) = text("image_mode") {
        match ImageOutput::parse(v.trim()) {
            Some(m) => chosen.image_mode = Some(m),
            None => errors.push(FieldError::new(
                "image_mode",
                "enum",
                "Input should be 'embedded', 'referenced', 'placeholder' or 'none'",
                Some(json!(v)),
            )),
        }
    }
    if let Some(v) = text("pages") {
        match PageRanges::parse(&v) {
            Ok(p) => chosen.pages = Some(p.to_string()),
            Err(msg) => errors.push(FieldError::new(
                "pages",
                "value_error",
                format!("{msg}; expected pages like 1-3,7 (a range may be open: 5-)"),
                Some(json!(v)),
            )),
        }
    }
    if let Some(v) = text("force_ocr") {
        match parse_bool(&v) {
            Some(b) => {
                chosen.force_ocr = Some(b);
                if b && !use_ocr {
                    errors.push(FieldError::new(
                        "force_ocr",
                        "value_error",
                        "force_ocr needs use_ocr=true",
                        Some(json!(v)),
                    ));
                }
            }
            None => errors.push(FieldError::new(
                "force_ocr",
                "bool_parsing",
                "Input should be a valid boolean: true/false, 1/0, yes/no or on/off",
                Some(json!(v)),
            )),
        }
    }
    if let Some(v) = text("ocr_language") {
        match normalise_languages(&v) {
            Err(msg) => errors.push(FieldError::new(
                "ocr_language",
                "value_error",
                msg,
                Some(json!(v)),
            )),
            Ok(_) if !use_ocr => errors.push(FieldError::new(
                "ocr_language",
                "value_error",
                "ocr_language needs use_ocr=true",
                Some(json!(v)),
            )),
            Ok(langs) => match provider_refuses(ocr_provider, &langs) {
                Some(msg) => errors.push(FieldError::new(
                    "ocr_language",
                    "value_error",
                    msg,
                    Some(json!(v)),
                )),
                None => chosen.ocr_language = Some(langs),
            },
        }
    }
    let mut password = None;
    // The value is never echoed in an error (no `input`), logged or stored with the job.
    if let Some(v) = text("password") {
        if v.is_empty() || v.chars().count() > MAX_PASSWORD {
            errors.push(FieldError::new(
                "password",
                "value_error",
                format!("The password must be 1 to {MAX_PASSWORD} characters long"),
                None,
            ));
        } else {
            chosen.password = true;
            password = Some(Password(v));
        }
    }
    (chosen, password)
}

/// The checks that need the detected type or the OCR provider itself, after the form was
/// read: `pages` only for PDFs and presentations, `password` only for types that can be
/// encrypted, and `ocr_language` against what the provider has installed (its readiness
/// with the job's languages in place of `OCR_LANGUAGE`, which names what is missing).
pub async fn check_for_type(
    shared: &super::Shared,
    form: &super::upload::CreateForm,
    mime: &str,
) -> Result<(), super::errors::ApiError> {
    let mut errors = Vec::new();
    let converter = shared
        .registry
        .converter_for(mime)
        .map(|d| d.id)
        .unwrap_or("");
    if form.options.pages.is_some() && !matches!(converter, "pdf" | "pptx") {
        errors.push(FieldError::new(
            "pages",
            "value_error",
            "pages applies to PDF documents and presentations only",
            form.options.pages.as_ref().map(|p| json!(p)),
        ));
    }
    if let (Some(pages), true) = (&form.options.pages, matches!(converter, "pdf" | "pptx")) {
        if let Some(total) = part_count(&form.file, form.size, converter).await {
            let ranges = PageRanges::parse(pages).map_err(super::errors::ApiError::internal)?;
            if total > 0 && ranges.count_within(total) == 0 {
                let noun = if converter == "pdf" { "page" } else { "slide" };
                let plural = if total == 1 { "" } else { "s" };
                errors.push(FieldError::new(
                    "pages",
                    "value_error",
                    format!(
                        "The document has {total} {noun}{plural}; none of the requested {noun}s ({pages}) exists"
                    ),
                    Some(json!(pages)),
                ));
            }
        }
    }
    if form.password.is_some() && !matches!(converter, "pdf" | "docx" | "pptx" | "spreadsheet") {
        errors.push(FieldError::new(
            "password",
            "value_error",
            "password applies to PDF, DOCX, XLSX and PPTX files only",
            None,
        ));
    }
    if let (Some(langs), Some(provider)) = (&form.options.ocr_language, &form.ocr_provider) {
        if form.use_ocr {
            if let Ok(descriptor) = shared.registry.ocr_provider(provider) {
                let mut config = shared.config.plugin_config();
                config.ocr.language = langs.clone();
                let readiness =
                    tokio::task::spawn_blocking(move || (descriptor.readiness)(&config))
                        .await
                        .map_err(super::errors::ApiError::internal)?;
                if !readiness.ready {
                    errors.push(FieldError::new(
                        "ocr_language",
                        "value_error",
                        format!("{provider} cannot read {langs}: {}", readiness.detail),
                        Some(json!(langs)),
                    ));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(super::errors::ApiError::Invalid(errors))
    }
}

/// The page (PDF) or slide (PPTX) count of the upload, read cheaply (`page_count`), or `None`
/// when it cannot be (the conversion then judges the `pages` value, as before).
async fn part_count(file: &super::upload::Upload, form_size: u64, converter: &str) -> Option<u32> {
    use super::page_count::{pdf_pages, pptx_slides, Source};
    let count: fn(&mut dyn Source) -> Option<u32> = if converter == "pdf" {
        pdf_pages
    } else {
        pptx_slides
    };
    // A reader bug must never cost more than this check: a panic counts as "cannot tell".
    let guarded = move |src: &mut dyn Source| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| count(src)))
            .ok()
            .flatten()
    };
    let started = std::time::Instant::now();
    let total = match file {
        super::upload::Upload::Memory(bytes) => guarded(&mut std::io::Cursor::new(&bytes[..])),
        super::upload::Upload::Stored {
            head, local: None, ..
        } => {
            // Without a local copy the first bytes are all there is: enough only when they are
            // the whole file (`upload::needs_local_copy` gives PDFs and ZIPs a copy).
            if (head.len() as u64) < form_size {
                None
            } else {
                guarded(&mut std::io::Cursor::new(&head[..]))
            }
        }
        super::upload::Upload::Disk(part)
        | super::upload::Upload::Stored {
            local: Some(part), ..
        } => {
            let path = part.path().to_path_buf();
            tokio::task::spawn_blocking(move || guarded(&mut std::fs::File::open(path).ok()?))
                .await
                .ok()
                .flatten()
        }
    };
    tracing::debug!(
        total,
        elapsed_us = started.elapsed().as_micros() as u64,
        "page count at upload"
    );
    total
}

/// `en, DE` → `en,de`: comma-separated language codes as `OCR_LANGUAGE` takes them (ISO
/// 639-1, or Tesseract's names such as `chi_tra`), at most 8.
pub fn normalise_languages(v: &str) -> Result<String, String> {
    let codes: Vec<String> = v
        .split([',', '+'])
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    if codes.len() > 8 {
        return Err("At most 8 OCR languages can be given".into());
    }
    for c in &codes {
        let ok =
            (2..=12).contains(&c.len()) && c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_');
        if !ok {
            return Err(format!(
                "'{c}' is not a language code; expected codes like en or en,de"
            ));
        }
    }
    let mut unique: Vec<String> = Vec::new();
    for c in codes {
        if !unique.contains(&c) {
            unique.push(c);
        }
    }
    Ok(unique.join(","))
}

/// Languages the PP-OCR models of provider_two read: Latin-script languages and Chinese and
/// Japanese (one recogniser; no Cyrillic, Greek, Arabic, Indic or Hangul model is shipped).
const PROVIDER_TWO_LANGUAGES: &[&str] = &[
    "en", "de", "fr", "es", "it", "pt", "nl", "pl", "cs", "sk", "sl", "hr", "ro", "hu", "sv", "da",
    "fi", "no", "nb", "nn", "is", "et", "lv", "lt", "tr", "ca", "eu", "gl", "ga", "cy", "af", "sw",
    "id", "ms", "vi", "la", "eng", "deu", "fra", "spa", "ita", "por", "nld", "zh", "ja", "chi_sim",
    "jpn",
];

/// Why a provider cannot take these languages (checked at creation without loading it;
/// provider_one's installed language data is checked by [`super::api`] through the
/// provider's readiness).
fn provider_refuses(provider: &str, langs: &str) -> Option<String> {
    if provider != "provider_two" {
        return None;
    }
    let unknown: Vec<&str> = langs
        .split(',')
        .filter(|l| !PROVIDER_TWO_LANGUAGES.contains(l))
        .collect();
    (!unknown.is_empty()).then(|| {
        format!(
            "provider_two reads Latin-script languages, Chinese and Japanese only, not {}; use provider_one for other scripts",
            unknown.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn options_are_normalised_and_kept() {
        let mut errors = Vec::new();
        let (chosen, password) = read(
            form(&[
                ("image_mode", "referenced"),
                ("pages", "7, 1-3"),
                ("force_ocr", "yes"),
                ("ocr_language", "EN, de"),
                ("password", "s3cret"),
            ]),
            true,
            "provider_one",
            &mut errors,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(chosen.image_mode, Some(ImageOutput::Referenced));
        assert_eq!(chosen.pages.as_deref(), Some("1-3,7"));
        assert_eq!(chosen.ocr_language.as_deref(), Some("en,de"));
        assert!(chosen.password);
        assert_eq!(password.unwrap().0, "s3cret");
        let kept = serde_json::to_string(&chosen).unwrap();
        assert!(!kept.contains("s3cret"), "{kept}");
    }

    #[test]
    fn mistakes_are_each_reported_and_the_password_never_echoed() {
        let mut errors = Vec::new();
        let long = "x".repeat(2000);
        read(
            form(&[
                ("image_mode", "inline"),
                ("pages", "3-1"),
                ("force_ocr", "true"),
                ("ocr_language", "ru"),
                ("password", &long),
            ]),
            false,
            "provider_one",
            &mut errors,
        );
        let fields: Vec<_> = [
            "image_mode",
            "pages",
            "force_ocr",
            "ocr_language",
            "password",
        ]
        .into_iter()
        .filter(|f| errors.iter().any(|e| e.is_about(f)))
        .collect();
        assert_eq!(fields.len(), 5, "{errors:?}");
        let text = serde_json::to_string(&errors).unwrap();
        assert!(!text.contains(&long));
    }

    #[test]
    fn provider_two_refuses_scripts_it_cannot_read() {
        let mut errors = Vec::new();
        read(
            form(&[("ocr_language", "en,ru")]),
            true,
            "provider_two",
            &mut errors,
        );
        assert_eq!(errors.len(), 1);
        assert!(errors[0].msg.contains("ru"), "{}", errors[0].msg);
    }
}
