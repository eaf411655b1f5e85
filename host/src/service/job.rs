//! The job record: what the API shows, what the store keeps, and the pieces workers change.
//!
//! A job is split in two: [`JobSpec`], fixed when the job is created, and [`JobState`], changed
//! by claims, progress, completion and webhook delivery. The Redis store keeps the spec as one
//! opaque JSON field and the state as separate hash fields, so its Lua scripts change scalars
//! only and never re-encode JSON.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Attempts a job gets before a lost worker fails it for good (decisions.md: "up to 3").
pub const MAX_ATTEMPTS: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pending,
    Processing,
    Completed,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Processing => "processing",
            Status::Completed => "completed",
            Status::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "pending" => Some(Status::Pending),
            "processing" => Some(Status::Processing),
            "completed" => Some(Status::Completed),
            "failed" => Some(Status::Failed),
            _ => None,
        }
    }

    pub fn is_final(self) -> bool {
        matches!(self, Status::Completed | Status::Failed)
    }
}

/// `md` or `json`: the renderer's type, also the job field.
pub use crate::render::OutputFormat;

/// Facts fixed at creation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub id: String,
    /// The client's file name (last path component only); never used as a path.
    pub file_name: String,
    pub output_format: OutputFormat,
    pub use_ocr: bool,
    pub ocr_provider: Option<String>,
    /// The URL the client gave, echoed in the job.
    pub webhook_url: Option<String>,
    /// Where the completion notification goes: the client's URL or `DEFAULT_WEBHOOK_URL`.
    pub notify_url: Option<String>,
    /// Absolute URL of this job's result endpoint.
    pub result_url: String,
    pub created_at: DateTime<Utc>,
    /// Size of the upload in bytes.
    pub input_bytes: u64,
    /// MIME type detected at upload.
    pub mime: String,
    /// The upload is kept in the store with the record (small files on the embedded store),
    /// not under `UPLOAD_DIR`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub input_in_store: bool,
    /// The per-job options the client sent (issue 14); never the password itself.
    #[serde(default, skip_serializing_if = "is_default")]
    pub options: super::options::Chosen,
    /// The chunk options of an `output_format=chunks` job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunking: Option<crate::render::chunks::ChunkOptions>,
}

fn is_default(c: &super::options::Chosen) -> bool {
    *c == super::options::Chosen::default()
}

/// Everything that changes after creation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobState {
    pub status: Status,
    pub progress: u8,
    /// Claims so far; also the fencing token of the current attempt.
    pub attempts: u32,
    pub updated_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    pub error_message: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    /// Webhook delivery outcome, shown as `metadata.webhook`.
    pub webhook: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub spec: JobSpec,
    pub state: JobState,
    /// The tenant that created the job when API keys are on (`service::auth::Caller`); never
    /// shown, never changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

impl Job {
    pub fn new(spec: JobSpec) -> Job {
        let now = spec.created_at;
        Job {
            spec,
            state: JobState {
                status: Status::Pending,
                progress: 0,
                attempts: 0,
                updated_at: now,
                completed_at: None,
                error_message: None,
                metadata: None,
                webhook: None,
            },
            owner: None,
        }
    }

    /// The Job resource of the interface.
    pub fn view(&self) -> JobView {
        let mut metadata = self.state.metadata.clone();
        if let Some(webhook) = &self.state.webhook {
            metadata
                .get_or_insert_with(Map::new)
                .insert("webhook".into(), webhook.clone());
        }
        JobView {
            id: self.spec.id.clone(),
            status: self.state.status,
            progress: self.state.progress,
            file_name: self.spec.file_name.clone(),
            output_format: self.spec.output_format,
            use_ocr: self.spec.use_ocr,
            ocr_provider: if self.spec.use_ocr {
                self.spec.ocr_provider.clone()
            } else {
                None
            },
            webhook_url: self.spec.webhook_url.clone(),
            created_at: timestamp(self.spec.created_at),
            updated_at: timestamp(self.state.updated_at),
            completed_at: self.state.completed_at.map(timestamp),
            error_message: self.state.error_message.clone(),
            metadata,
            image_mode: self.spec.options.image_mode,
            pages: self.spec.options.pages.clone(),
            force_ocr: self.spec.options.force_ocr,
            ocr_language: self.spec.options.ocr_language.clone(),
        }
    }
}

/// A job as the API shows it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct JobView {
    /// UUID v4.
    pub id: String,
    pub status: Status,
    /// Percentage 0 to 100.
    pub progress: u8,
    pub file_name: String,
    pub output_format: OutputFormat,
    pub use_ocr: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Facts about the run: detected MIME type, converter, sizes, parts, duration, warnings,
    /// webhook delivery outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Map<String, Value>>,
    /// The job's `image_mode`, when the client sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_mode: Option<crate::render::ImageOutput>,
    /// The job's `pages`, normalised (`1-3,7`), when the client sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    /// The job's `force_ocr`, when the client sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_ocr: Option<bool>,
    /// The job's `ocr_language`, normalised (`en,de`), when the client sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr_language: Option<String>,
}

/// RFC 3339 in UTC with `Z` and milliseconds.
pub fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Milliseconds since the epoch, the unit of leases and schedules in both stores.
pub fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// The download name: the upload's name without its extension, plus `.md` / `.json` /
/// `.chunks.json`.
pub fn download_name(file_name: &str, format: OutputFormat) -> String {
    let stem = match file_name.rfind('.') {
        Some(0) | None => file_name,
        Some(i) => &file_name[..i],
    };
    format!("{stem}.{}", format.extension())
}

/// The last path component of a client-supplied name, with control characters dropped.
/// Browsers send a bare name, but some clients send `C:\\dir\\x.pdf` or `../x.pdf`. A
/// backslash is a path separator only in what is plainly a Windows path (a drive letter,
/// a UNC share, `.\\` or `..\\`); elsewhere it is part of the name (`back\\slash.txt`,
/// a legal file name on Unix), which the contract keeps unchanged.
pub fn client_file_name(raw: &str) -> String {
    let after_slash = raw.rsplit('/').next().unwrap_or(raw);
    let last = if is_windows_path(raw) {
        after_slash.rsplit('\\').next().unwrap_or(after_slash)
    } else {
        after_slash
    };
    let cleaned: String = last.chars().filter(|c| !c.is_control()).collect();
    let cleaned = cleaned.trim().to_string();
    if cleaned.is_empty() || cleaned == "." || cleaned == ".." {
        "upload".to_string()
    } else {
        cleaned
    }
}

/// `C:\\…`, `\\\\server\\…`, `.\\…`, `..\\…`.
fn is_windows_path(raw: &str) -> bool {
    let b = raw.as_bytes();
    let drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\';
    drive || raw.starts_with("\\\\") || raw.starts_with(".\\") || raw.starts_with("..\\")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn download_names_follow_the_rules() {
        assert_eq!(
            download_name("Report (final).pdf", OutputFormat::Markdown),
            "Report (final).md"
        );
        assert_eq!(download_name("a.b.docx", OutputFormat::Json), "a.b.json");
        assert_eq!(download_name("noext", OutputFormat::Markdown), "noext.md");
        assert_eq!(
            download_name(".hidden", OutputFormat::Markdown),
            ".hidden.md"
        );
    }

    #[test]
    fn client_names_are_never_paths() {
        assert_eq!(client_file_name("../../etc/passwd"), "passwd");
        assert_eq!(client_file_name("C:\\Users\\x\\Doc 1.pdf"), "Doc 1.pdf");
        assert_eq!(client_file_name(".."), "upload");
        assert_eq!(client_file_name("a\u{0}b\n.txt"), "ab.txt");
        assert_eq!(client_file_name("..\\..\\x.pdf"), "x.pdf");
        assert_eq!(client_file_name("\\\\server\\share\\y.docx"), "y.docx");
    }

    #[test]
    fn a_backslash_in_a_plain_name_is_kept() {
        assert_eq!(client_file_name("back\\slash.txt"), "back\\slash.txt");
        assert_eq!(
            download_name(&client_file_name("back\\slash.txt"), OutputFormat::Markdown),
            "back\\slash.md"
        );
    }
}
