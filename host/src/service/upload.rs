//! `POST /api/v1/jobs` body: multipart parsed as it streams, the file written straight to
//! `UPLOAD_DIR/<job id>.part` with the size limit enforced per chunk.
//!
//! Small files (up to the store's inline limit, [`super::store::Store::inline_input_limit`],
//! 64 KiB on the embedded store) stay in a buffer of at most that size and are committed with the job
//! record in the store's group commit: creating, syncing and renaming a file per upload costs
//! far more than the upload itself (ext4 inode allocation under the directory lock, plus an
//! fsync). The first chunk that would pass the limit spills the buffer to the `.part` file and
//! streaming goes on from there, so a large upload is never held in memory.
//!
//! With an object store (`STORAGE_URL`) a file past the inline limit goes to the bucket instead,
//! as it arrives ([`super::storage::InputUpload`]: a multipart upload sent part by part while
//! the body is read), with its first [`SNIFF_LEN`] bytes kept for type detection and a local
//! copy only where a check reads further ([`needs_local_copy`]).
//!
//! A rejected, invalid or aborted upload leaves no file behind: [`PartialFile`] removes it when
//! dropped, which also covers a client that disconnects mid-body (axum drops the handler
//! future); in the object store, the multipart upload is aborted or the object deleted. The
//! client's filename is kept only as text; the path is derived from the job id.

use super::errors::{ApiError, FieldError};
use super::job::{client_file_name, OutputFormat};
use super::storage::{InputUpload, Storage};
use crate::detect::SNIFF_LEN;
use crate::render::chunks::ChunkOptions;
use axum::extract::Multipart;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;

/// Text fields are small; anything longer is refused rather than buffered.
const MAX_TEXT_FIELD: usize = 16 * 1024;
const MAX_FIELDS: usize = 64;
/// After a 413 the partial file is already gone; the rest of the body is read and discarded,
/// within these bounds, so that clients which send the whole body before reading the answer
/// still receive the 413 instead of a reset connection.
const MAX_DISCARD: u64 = 256 << 20;
const DISCARD_TIME: std::time::Duration = std::time::Duration::from_secs(30);

/// A file that is removed on drop unless [`PartialFile::keep`] moved it into place.
pub struct PartialFile {
    path: Option<PathBuf>,
}

impl PartialFile {
    pub fn new(path: PathBuf) -> PartialFile {
        PartialFile { path: Some(path) }
    }

    pub fn path(&self) -> &Path {
        self.path.as_deref().unwrap_or(Path::new(""))
    }

    /// Renames the file to `dest` and stops guarding it.
    pub async fn keep(mut self, dest: &Path) -> std::io::Result<()> {
        if let Some(path) = self.path.take() {
            if let Err(e) = tokio::fs::rename(&path, dest).await {
                let _ = std::fs::remove_file(&path);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Where the uploaded bytes are.
pub enum Upload {
    /// A small file, whole (at most the inline limit).
    Memory(Vec<u8>),
    /// A file streamed to `UPLOAD_DIR`, synced to disk.
    Disk(PartialFile),
    /// A file streamed to the object store as it arrived (`STORAGE_URL`), with what the
    /// upload's checks read: its first [`SNIFF_LEN`] bytes (the whole file when shorter), and
    /// a local copy only for the types whose checks read further ([`needs_local_copy`]).
    Stored {
        upload: InputUpload,
        head: Vec<u8>,
        local: Option<PartialFile>,
    },
}

impl Upload {
    /// Removes what a refused upload left: the stored object (waited for), a local file.
    pub async fn discard(self) {
        if let Upload::Stored { upload, .. } = self {
            upload.discard().await;
        }
    }
}

/// Whether the checks of an upload that starts with `head` (its first [`SNIFF_LEN`] bytes)
/// read beyond it, so that a file streamed to the object store also needs a local copy while
/// the request is checked: ZIP and OLE2 containers (type detection reads the ZIP's central
/// directory at the end, or the compound file's directory, `detect::detect_file`), and PDF
/// (the `pages` check counts pages from the cross-reference table at the end,
/// `page_count::pdf_pages`; the `pages` field may come after the file in the form, so every
/// PDF gets the copy). Everything else is detected from its first bytes alone.
pub fn needs_local_copy(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04")
        || head.starts_with(b"PK\x05\x06")
        || head.starts_with(&[0xD0, 0xCF, 0x11, 0xE0])
        || head[..head.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
}

/// Where a file larger than the inline limit goes while it is received.
// One per upload in flight, never in a collection: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Spill {
    /// `UPLOAD_DIR/<id>.part` (the local folders).
    Disk(PartialFile, tokio::fs::File),
    /// The object store, with the first bytes kept and, once they show the type needs it, a
    /// local copy of the whole file.
    Stored {
        upload: InputUpload,
        head: Vec<u8>,
        local: Option<(PartialFile, tokio::fs::File)>,
        part_path: PathBuf,
    },
}

impl Spill {
    async fn write(&mut self, mut chunk: &[u8]) -> Result<(), ApiError> {
        match self {
            Spill::Disk(_, out) => out.write_all(chunk).await?,
            Spill::Stored {
                upload,
                head,
                local,
                part_path,
            } => {
                upload.write(chunk).await.map_err(store_error)?;
                if local.is_none() && head.len() < SNIFF_LEN {
                    let take = (SNIFF_LEN - head.len()).min(chunk.len());
                    head.extend_from_slice(&chunk[..take]);
                    chunk = &chunk[take..];
                    if head.len() == SNIFF_LEN && needs_local_copy(head) {
                        let guard = PartialFile::new(part_path.clone());
                        let mut out = tokio::fs::File::create(guard.path()).await?;
                        out.write_all(head).await?;
                        *local = Some((guard, out));
                    }
                }
                if let Some((_, out)) = local {
                    out.write_all(chunk).await?;
                }
            }
        }
        Ok(())
    }

    /// The body has ended: the file is complete where it went.
    async fn finish(self) -> Result<Upload, ApiError> {
        match self {
            Spill::Disk(guard, mut out) => {
                out.flush().await?;
                out.sync_data().await?;
                Ok(Upload::Disk(guard))
            }
            Spill::Stored {
                mut upload,
                head,
                local,
                ..
            } => {
                // The local copy is scratch space for the checks: flushed, not synced.
                let local = match local {
                    Some((guard, mut out)) => {
                        out.flush().await?;
                        Some(guard)
                    }
                    None => None,
                };
                upload.finish().await.map_err(store_error)?;
                Ok(Upload::Stored {
                    upload,
                    head,
                    local,
                })
            }
        }
    }

    async fn discard(self) {
        if let Spill::Stored { upload, .. } = self {
            upload.discard().await;
        }
    }
}

/// A failure to send the upload to the object store: the contract's 503, as for the job store.
pub fn store_error(e: std::io::Error) -> ApiError {
    if super::storage::is_remote_error(&e) {
        tracing::error!(error = %e, "cannot store the upload in the object store");
        ApiError::StoreUnavailable(format!("object store: {e}"))
    } else {
        e.into()
    }
}

/// The validated form.
pub struct CreateForm {
    pub file: Upload,
    pub file_name: String,
    pub size: u64,
    pub output_format: OutputFormat,
    pub use_ocr: bool,
    pub ocr_provider: Option<String>,
    pub webhook_url: Option<String>,
    /// The per-job options (issue 14) and the password, kept apart.
    pub options: super::options::Chosen,
    pub password: Option<super::options::Password>,
    /// The chunk options of an `output_format=chunks` job.
    pub chunking: Option<ChunkOptions>,
}

/// What the OCR-provider check needs to know about this server.
pub struct OcrPolicy<'a> {
    /// Providers built into this binary.
    pub built: &'a [&'a str],
    pub provider_three_key: bool,
    /// The tokenizer files chunks jobs may name (`CHUNK_TOKENIZERS`).
    pub tokenizers: &'a [(String, PathBuf)],
}

pub const OCR_PROVIDERS: [&str; 3] = ["provider_one", "provider_two", "provider_three"];

/// Every field `POST /api/v1/jobs` accepts; anything else is refused with 422 naming it.
pub const ACCEPTED_FIELDS: [&str; 14] = [
    "file",
    "output_format",
    "use_ocr",
    "ocr_provider",
    "webhook_url",
    // Per-job options (issue 14, `options.rs`).
    "image_mode",
    "pages",
    "password",
    "force_ocr",
    "ocr_language",
    // Chunks jobs only (`render::chunks::OPTION_FIELDS`).
    "max_tokens",
    "overlap_tokens",
    "tokenizer",
    "include_heading_path",
];

/// Where [`read_form`] puts a file over the inline limit: `part_path` with the local folders,
/// the object store (`storage.start_input(id)`) with `STORAGE_URL`, `part_path` then being
/// the place of the local copy some types need ([`needs_local_copy`]).
pub struct Destination<'a> {
    pub storage: &'a Storage,
    pub id: &'a str,
    pub part_path: PathBuf,
}

/// Reads the whole form. A file of at most `inline_max` bytes is kept in memory; a larger one
/// streams to its [`Destination`]. A refused form leaves nothing behind there.
pub async fn read_form(
    multipart: Option<Multipart>,
    dest: Destination<'_>,
    max_size: u64,
    inline_max: usize,
    ocr: &OcrPolicy<'_>,
) -> Result<CreateForm, ApiError> {
    let mut file: Option<Upload> = None;
    let read = read_fields(multipart, &dest, max_size, inline_max, &mut file).await;
    let refused = match read {
        Ok(fields) => match validate(fields, &mut file, ocr) {
            Ok(form) => return Ok(form),
            Err(e) => e,
        },
        Err(e) => e,
    };
    if let Some(file) = file {
        file.discard().await;
    }
    Err(refused)
}

/// What [`read_fields`] found besides the file.
struct Fields {
    file_name: String,
    size: u64,
    file_error: Option<FieldError>,
    texts: Vec<(String, String)>,
    extra: Vec<FieldError>,
}

async fn read_fields(
    multipart: Option<Multipart>,
    dest: &Destination<'_>,
    max_size: u64,
    inline_max: usize,
    file: &mut Option<Upload>,
) -> Result<Fields, ApiError> {
    let mut file_name = String::new();
    let mut size: u64 = 0;
    let mut file_error: Option<FieldError> = None;
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut extra: Vec<FieldError> = Vec::new();
    if let Some(mut multipart) = multipart {
        let mut fields = 0;
        while let Some(mut field) = multipart.next_field().await.map_err(bad_body)? {
            fields += 1;
            if fields > MAX_FIELDS {
                return Err(ApiError::BadRequest("Too many form fields".into()));
            }
            let name = field.name().unwrap_or_default().to_string();
            if name == "file" {
                if file.is_some() || file_error.is_some() {
                    // One job converts one file: a second part is an error, not skipped.
                    if !extra.iter().any(|e: &FieldError| e.is_about("file")) {
                        extra.push(FieldError::new(
                            "file",
                            "value_error",
                            "Only one file can be uploaded per job; send one request per file",
                            None,
                        ));
                    }
                    continue;
                }
                let Some(raw_name) = field.file_name().map(str::to_string) else {
                    file_error = Some(FieldError::new(
                        "file",
                        "value_error",
                        "Expected a file upload (a form part with a filename)",
                        None,
                    ));
                    continue;
                };
                file_name = client_file_name(&raw_name);
                let mut small: Vec<u8> = Vec::new();
                let mut spill: Option<Spill> = None;
                loop {
                    let chunk = match field.chunk().await {
                        Ok(Some(chunk)) => chunk,
                        Ok(None) => break,
                        Err(e) => {
                            if let Some(spill) = spill {
                                spill.discard().await;
                            }
                            return Err(bad_body(e));
                        }
                    };
                    size += chunk.len() as u64;
                    if size > max_size {
                        if let Some(spill) = spill.take() {
                            spill.discard().await;
                        }
                        let deadline = tokio::time::Instant::now() + DISCARD_TIME;
                        let mut discarded = 0u64;
                        while discarded <= MAX_DISCARD {
                            match tokio::time::timeout_at(deadline, field.chunk()).await {
                                Ok(Ok(Some(chunk))) => discarded += chunk.len() as u64,
                                _ => break,
                            }
                        }
                        drop(field);
                        discard_fields(&mut multipart, deadline, discarded).await;
                        return Err(ApiError::TooLarge(max_size));
                    }
                    if spill.is_none() && size <= inline_max as u64 {
                        small.extend_from_slice(&chunk);
                        continue;
                    }
                    let out = match &mut spill {
                        Some(s) => s,
                        None => {
                            let mut started = match dest.storage.start_input(dest.id) {
                                None => {
                                    let guard = PartialFile::new(dest.part_path.clone());
                                    let out = tokio::fs::File::create(guard.path()).await?;
                                    Spill::Disk(guard, out)
                                }
                                Some(upload) => Spill::Stored {
                                    upload,
                                    head: Vec::new(),
                                    local: None,
                                    part_path: dest.part_path.clone(),
                                },
                            };
                            started.write(&std::mem::take(&mut small)).await?;
                            spill.insert(started)
                        }
                    };
                    out.write(&chunk).await?;
                }
                *file = Some(match spill {
                    Some(spill) => spill.finish().await?,
                    None => Upload::Memory(small),
                });
            } else if ACCEPTED_FIELDS.contains(&name.as_str()) {
                let mut value = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(bad_body)? {
                    value.extend_from_slice(&chunk);
                    if value.len() > MAX_TEXT_FIELD {
                        return Err(ApiError::Invalid(vec![FieldError::new(
                            &name,
                            "string_too_long",
                            "The value is too long",
                            None,
                        )]));
                    }
                }
                texts.push((name, String::from_utf8_lossy(&value).into_owned()));
            } else if !extra.iter().any(|e| e.is_about(&name)) {
                extra.push(FieldError::new(
                    &name,
                    "extra_forbidden",
                    format!(
                        "Unknown field; the accepted fields are {}",
                        ACCEPTED_FIELDS.join(", ")
                    ),
                    None,
                ));
            }
        }
    }
    Ok(Fields {
        file_name,
        size,
        file_error,
        texts,
        extra,
    })
}

/// The form's fields checked; every invalid one comes back in one 422.
fn validate(
    fields: Fields,
    file: &mut Option<Upload>,
    ocr: &OcrPolicy<'_>,
) -> Result<CreateForm, ApiError> {
    let Fields {
        file_name,
        size,
        file_error,
        texts,
        extra,
    } = fields;
    let text = |name: &str| {
        texts
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut errors = extra;
    match (&*file, file_error) {
        (_, Some(e)) => errors.push(e),
        (None, None) => errors.push(FieldError::missing("file")),
        (Some(_), None) if size == 0 => errors.push(FieldError::new(
            "file",
            "value_error",
            "The uploaded file is empty",
            None,
        )),
        _ => {}
    }
    let output_format = match text("output_format") {
        None => {
            errors.push(FieldError::missing("output_format"));
            None
        }
        Some(v) => match OutputFormat::parse(v.trim()) {
            Some(f) => Some(f),
            None => {
                errors.push(FieldError::new(
                    "output_format",
                    "enum",
                    "Input should be 'md', 'json' or 'chunks'",
                    Some(json!(v)),
                ));
                None
            }
        },
    };
    let use_ocr = match text("use_ocr") {
        None => false,
        Some(v) => match parse_bool(&v) {
            Some(b) => b,
            None => {
                errors.push(FieldError::new(
                    "use_ocr",
                    "bool_parsing",
                    "Input should be a valid boolean: true/false, 1/0, yes/no or on/off",
                    Some(json!(v)),
                ));
                false
            }
        },
    };
    let ocr_provider = match text("ocr_provider").map(|v| v.trim().to_string()) {
        None => "provider_one".to_string(),
        Some(v) if v.is_empty() => "provider_one".to_string(),
        Some(v) => v,
    };
    if !OCR_PROVIDERS.contains(&ocr_provider.as_str()) {
        errors.push(FieldError::new(
            "ocr_provider",
            "enum",
            "Input should be 'provider_one', 'provider_two' or 'provider_three'",
            Some(json!(ocr_provider)),
        ));
    } else if use_ocr {
        if !ocr.built.contains(&ocr_provider.as_str()) {
            errors.push(FieldError::new(
                "ocr_provider",
                "value_error",
                format!("OCR provider {ocr_provider} is not built into this server"),
                Some(json!(ocr_provider)),
            ));
        } else if ocr_provider == "provider_three" && !ocr.provider_three_key {
            errors.push(FieldError::new(
                "ocr_provider",
                "value_error",
                "OCR provider provider_three needs an API key (OCR_PROVIDER_THREE_API_KEY) configured on the server",
                Some(json!(ocr_provider)),
            ));
        }
    }
    // An empty `webhook_url` is refused like any other string that is not a URL (the OpenAPI
    // document says so; before, it silently meant "none").
    let webhook_url = match text("webhook_url").map(|v| v.trim().to_string()) {
        None => None,
        Some(v) => {
            if crate::config::is_http_url(&v) && v.len() <= 2048 {
                Some(v)
            } else {
                errors.push(FieldError::new(
                    "webhook_url",
                    "url_parsing",
                    "Input should be a valid URL with the http or https scheme",
                    Some(Value::String(v)),
                ));
                None
            }
        }
    };
    let (options, password) = super::options::read(text, use_ocr, &ocr_provider, &mut errors);
    let chunks = output_format == Some(OutputFormat::Chunks);
    let chunking = match ChunkOptions::from_fields(&text, chunks, ocr.tokenizers) {
        Ok(opts) => chunks.then_some(opts),
        Err(refused) => {
            for (field, kind, message, value) in refused {
                errors.push(FieldError::new(
                    field,
                    kind,
                    message,
                    value.map(Value::String),
                ));
            }
            None
        }
    };
    if !errors.is_empty() {
        return Err(ApiError::Invalid(errors));
    }
    match (file.take(), output_format) {
        (Some(file), Some(output_format)) => Ok(CreateForm {
            file,
            file_name,
            size,
            output_format,
            use_ocr,
            ocr_provider: Some(ocr_provider),
            webhook_url,
            options,
            password,
            chunking,
        }),
        _ => Err(ApiError::internal("form validation fell through")),
    }
}

/// The fields after an oversized file, read and dropped (see [`MAX_DISCARD`]).
async fn discard_fields(
    multipart: &mut Multipart,
    deadline: tokio::time::Instant,
    mut discarded: u64,
) {
    'fields: while discarded <= MAX_DISCARD {
        let Ok(Ok(Some(mut next))) =
            tokio::time::timeout_at(deadline, multipart.next_field()).await
        else {
            break;
        };
        loop {
            match tokio::time::timeout_at(deadline, next.chunk()).await {
                Ok(Ok(Some(chunk))) => discarded += chunk.len() as u64,
                _ => break,
            }
            if discarded > MAX_DISCARD {
                break 'fields;
            }
        }
    }
}

fn bad_body(e: axum::extract::multipart::MultipartError) -> ApiError {
    ApiError::BadRequest(format!(
        "There was an error parsing the body: {}",
        e.body_text()
    ))
}

/// `use_ocr`: true/false, 1/0, yes/no, on/off, any case.
pub fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}
