//! One error type for every plugin, with a kind the host maps to job outcomes.
//!
//! The message is shown to the user as the job's `error_message`, so it must say what happened
//! in words a person understands ("The PDF is encrypted and no password was given") and never
//! carry a stack trace, a Rust type name or a server path.

use std::fmt;

/// What went wrong, in the host's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input is of a type no plugin handles, or uses a feature the plugin does not support.
    Unsupported,
    /// The input is damaged or not what it claims to be.
    Malformed,
    /// The input is password-protected or encrypted.
    Encrypted,
    /// The input exceeds a configured limit (size, pages, pixels, entries, output).
    LimitExceeded,
    /// The conversion ran past its deadline or was cancelled.
    Timeout,
    /// A temporary failure (an OCR service answered 503); retrying later may succeed.
    Temporary,
    /// A fault in quire itself or its environment (a model missing, a library not loadable).
    Internal,
}

impl ErrorKind {
    /// Stable lower-case name, used in logs, metrics and job metadata.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Malformed => "malformed",
            ErrorKind::Encrypted => "encrypted",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Temporary => "temporary",
            ErrorKind::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A plugin error: a kind, a message for people, and optionally a detail for the log only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    detail: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            detail: None,
        }
    }

    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    pub fn malformed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Malformed, message)
    }

    pub fn encrypted(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Encrypted, message)
    }

    pub fn limit(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::LimitExceeded, message)
    }

    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Timeout, message)
    }

    pub fn temporary(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Temporary, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// Attaches a technical detail (a parser's own message) that goes to the log, not the user.
    pub fn with_detail(mut self, detail: impl fmt::Display) -> Self {
        self.detail = Some(detail.to_string());
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The sentence shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The technical detail for the log, if any.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// Whether retrying the same work later may succeed.
    pub fn is_temporary(&self) -> bool {
        self.kind == ErrorKind::Temporary
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
