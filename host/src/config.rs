//! Service configuration: built-in defaults < `config.toml` < environment variables (figment).
//!
//! Every setting has one name, the environment variable of the interface (`MAX_FILE_SIZE`,
//! `FILE_TTL_HOURS`, ...); in `config.toml` the same name is written in lower case
//! (`max_file_size = 104857600`). The file is read from `QUIRE_CONFIG`, or `./config.toml` when
//! that variable is unset (a missing default file is fine; a missing named file is an error).
//!
//! A bad value stops start-up with a message naming the setting and what it accepts: a service
//! that silently ran with a default it was told not to use is worse than one that refuses to start.

use figment::providers::{Format, Serialized, Toml};
use figment::Figment;
use quire_plugin_api::{ImageRules, OcrConfig, PluginConfig};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// Every environment variable the service reads, in `config.toml` order.
pub const SETTINGS: &[&str] = &[
    "HOST",
    "PORT",
    "API_PREFIX",
    "PUBLIC_BASE_URL",
    "ALLOWED_ORIGINS",
    "LOG_FORMAT",
    "LOG_LEVEL",
    "MAX_FILE_SIZE",
    "FILE_TTL_HOURS",
    "UPLOAD_DIR",
    "OUTPUT_DIR",
    "DATA_DIR",
    "REDIS_URL",
    "REDIS_KEY_PREFIX",
    "WORKERS",
    "CONVERSION_TIMEOUT",
    "CONVERSION_MAX_MEMORY",
    "JOB_LEASE_SECONDS",
    "SHUTDOWN_GRACE_SECONDS",
    "WORKER_METRICS_PORT",
    "WEBHOOK_TIMEOUT",
    "WEBHOOK_MAX_RETRIES",
    "WEBHOOK_BACKOFF_SECONDS",
    "WEBHOOK_SECRET",
    "WEBHOOK_BLOCK_PRIVATE",
    "DEFAULT_WEBHOOK_URL",
    "IMAGE_COMPRESSION_QUALITY",
    "IMAGE_MAX_WIDTH",
    "IMAGE_MAX_HEIGHT",
    "SPREADSHEET_SAMPLE_ROWS",
    "OCR_LANGUAGE",
    "OCR_USE_GPU",
    "OCR_PROVIDER_TWO_TEXT_THRESHOLD",
    "OCR_PROVIDER_TWO_LINK_THRESHOLD",
    "OCR_PROVIDER_TWO_LOW_TEXT",
    "OCR_PROVIDER_THREE_API_KEY",
    "OCR_PROVIDER_THREE_BASE_URL",
    "OCR_PROVIDER_THREE_MODEL",
    "OCR_PROVIDER_THREE_TIMEOUT",
    "OCR_PROVIDER_THREE_MAX_REQUESTS",
    "OCR_MODEL_DIR",
    "QUIRE_RUNTIME_DIR",
    "MAX_DECOMPRESSED_SIZE",
    "CONVERSION_CHILD_MAX_RSS",
    "HTTP_HEADER_TIMEOUT",
    "HTTP_IDLE_TIMEOUT",
    "HTTP_MIN_UPLOAD_RATE",
    "HTTP_MAX_CONNECTIONS",
    "API_KEYS",
    "API_KEYS_FILE",
    "MAX_QUEUED_JOBS",
    "RATE_LIMIT_PER_KEY",
    "CHUNK_TOKENIZERS",
    "MCP_ALLOWED_DIRS",
    "STORAGE_URL",
    "S3_ENDPOINT",
    "S3_FORCE_PATH_STYLE",
    "S3_PRESIGNED_RESULTS",
    "S3_PRESIGNED_EXPIRY",
];

/// The resolved configuration. Field names are the settings' names in lower case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub host: String,
    pub port: u16,
    pub api_prefix: String,
    pub public_base_url: Option<String>,
    pub allowed_origins: String,
    pub log_format: LogFormat,
    pub log_level: String,
    pub max_file_size: u64,
    pub file_ttl_hours: f64,
    pub upload_dir: PathBuf,
    pub output_dir: PathBuf,
    pub data_dir: PathBuf,
    pub redis_url: Option<String>,
    pub redis_key_prefix: String,
    /// 0 means "one per CPU".
    pub workers: usize,
    pub conversion_timeout: u64,
    pub conversion_max_memory: u64,
    pub job_lease_seconds: u64,
    pub shutdown_grace_seconds: u64,
    /// `quire worker` serves `/metrics` and `/health` on `HOST:WORKER_METRICS_PORT` when set.
    pub worker_metrics_port: Option<u16>,
    pub webhook_timeout: u64,
    pub webhook_max_retries: u32,
    pub webhook_backoff_seconds: f64,
    pub webhook_secret: Option<String>,
    pub webhook_block_private: bool,
    pub default_webhook_url: Option<String>,
    pub image_compression_quality: u8,
    pub image_max_width: u32,
    pub image_max_height: u32,
    pub spreadsheet_sample_rows: usize,
    pub ocr_language: String,
    pub ocr_use_gpu: bool,
    pub ocr_provider_two_text_threshold: f32,
    pub ocr_provider_two_link_threshold: f32,
    pub ocr_provider_two_low_text: f32,
    pub ocr_provider_three_api_key: Option<String>,
    pub ocr_provider_three_base_url: String,
    pub ocr_provider_three_model: String,
    pub ocr_provider_three_timeout: u64,
    pub ocr_provider_three_max_requests: u32,
    pub ocr_model_dir: PathBuf,
    pub quire_runtime_dir: PathBuf,
    /// Bytes a conversion may inflate from compressed data (ZIP parts, PDF streams), counted
    /// while inflating; past it the file is refused.
    pub max_decompressed_size: u64,
    /// A conversion child whose peak resident memory passed this is replaced after its job.
    pub conversion_child_max_rss: u64,
    /// Seconds a client has to send a request's headers (also how long an idle keep-alive
    /// connection waits for its next request).
    pub http_header_timeout: u64,
    /// Seconds a connection may move no bytes in either direction before it is closed.
    pub http_idle_timeout: u64,
    /// Bytes per second an upload must keep up, measured over 5-second windows (0: no minimum).
    pub http_min_upload_rate: u64,
    /// Open connections at most; more wait in the listen queue.
    pub http_max_connections: usize,
    /// API keys, comma-separated (`service::auth`): set, every `/api/v1` route but health and
    /// readiness needs one. Held only as hashes once the service has started.
    pub api_keys: Option<String>,
    /// A file of API keys, one per line (`#` starts a comment); read at start-up.
    pub api_keys_file: Option<PathBuf>,
    /// Jobs waiting at most; beyond it `POST /api/v1/jobs` answers 429 (unset: unlimited).
    pub max_queued_jobs: Option<u64>,
    /// Requests per minute per API key when keys are on (unset: no limit).
    pub rate_limit_per_key: Option<u32>,
    /// HuggingFace `tokenizer.json` files chunks jobs may name: `name=path` pairs, comma
    /// separated (`render::tokenize::parse_files`).
    pub chunk_tokenizers: String,
    /// Folders whose files the MCP `convert` tool may read by path (`:`-separated); unset:
    /// the working directory for `quire mcp`, none over HTTP.
    pub mcp_allowed_dirs: Option<String>,
    /// Where uploads and results live between hosts (`service::storage`): unset, the local
    /// `UPLOAD_DIR` and `OUTPUT_DIR`; `s3://bucket/prefix`, an S3-compatible object store (the
    /// local folders then hold only the files of conversions running on this host).
    pub storage_url: Option<String>,
    /// The S3 endpoint for stores other than AWS (MinIO, Ceph RGW, Garage, R2...).
    pub s3_endpoint: Option<String>,
    /// Path-style requests (`endpoint/bucket/key`) instead of virtual-hosted style.
    pub s3_force_path_style: bool,
    /// Results and images answered with a 307 to a presigned URL instead of streamed.
    pub s3_presigned_results: bool,
    /// Seconds a presigned result URL stays valid.
    pub s3_presigned_expiry: u64,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

impl Default for Config {
    fn default() -> Self {
        let plugin = PluginConfig::default();
        Config {
            host: "0.0.0.0".into(),
            port: 8000,
            api_prefix: "/api/v1".into(),
            public_base_url: None,
            allowed_origins: "*".into(),
            log_format: LogFormat::Text,
            log_level: "info".into(),
            max_file_size: 104_857_600,
            file_ttl_hours: 24.0,
            storage_url: None,
            s3_endpoint: None,
            s3_force_path_style: false,
            s3_presigned_results: false,
            s3_presigned_expiry: 300,
            upload_dir: "./uploads".into(),
            output_dir: "./outputs".into(),
            data_dir: "./data".into(),
            redis_url: None,
            redis_key_prefix: "quire:".into(),
            workers: 0,
            conversion_timeout: 300,
            conversion_max_memory: 2 << 30,
            job_lease_seconds: 30,
            shutdown_grace_seconds: 30,
            worker_metrics_port: None,
            webhook_timeout: 30,
            webhook_max_retries: 3,
            webhook_backoff_seconds: 1.0,
            webhook_secret: None,
            webhook_block_private: false,
            default_webhook_url: None,
            image_compression_quality: plugin.images.jpeg_quality,
            image_max_width: plugin.images.max_width,
            image_max_height: plugin.images.max_height,
            spreadsheet_sample_rows: plugin.spreadsheet_sample_rows,
            ocr_language: plugin.ocr.language,
            ocr_use_gpu: plugin.ocr.use_gpu,
            ocr_provider_two_text_threshold: plugin.ocr.text_threshold,
            ocr_provider_two_link_threshold: plugin.ocr.link_threshold,
            ocr_provider_two_low_text: plugin.ocr.low_text,
            ocr_provider_three_api_key: None,
            ocr_provider_three_base_url: plugin.ocr.vision_base_url,
            ocr_provider_three_model: plugin.ocr.vision_model,
            ocr_provider_three_timeout: plugin.ocr.vision_timeout_secs,
            ocr_provider_three_max_requests: plugin.ocr.vision_max_requests_per_job,
            // Empty: looked up (see `crate::runtime`), so quire runs from any directory.
            ocr_model_dir: PathBuf::new(),
            quire_runtime_dir: PathBuf::new(),
            max_decompressed_size: 256 << 20,
            conversion_child_max_rss: 200 << 20,
            http_header_timeout: 10,
            http_idle_timeout: 60,
            http_min_upload_rate: 4096,
            http_max_connections: 4096,
            api_keys: None,
            api_keys_file: None,
            max_queued_jobs: None,
            rate_limit_per_key: None,
            chunk_tokenizers: String::new(),
            mcp_allowed_dirs: None,
        }
    }
}

/// A setting that could not be used; start-up stops with this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn bad(setting: &str, accepts: &str, got: impl fmt::Display) -> ConfigError {
    ConfigError(format!(
        "invalid setting {setting}: expected {accepts}, got {got}"
    ))
}

impl Config {
    /// The tokenizer files of `CHUNK_TOKENIZERS`, parsed.
    pub fn chunk_tokenizer_files(&self) -> Result<Vec<(String, PathBuf)>, ConfigError> {
        crate::render::tokenize::parse_files(&self.chunk_tokenizers)
            .map_err(|e| bad("CHUNK_TOKENIZERS", "name=path pairs, comma separated", e))
    }

    /// Defaults < config file (`QUIRE_CONFIG` or `./config.toml`) < process environment.
    pub fn load() -> Result<Config, ConfigError> {
        let file = std::env::var_os("QUIRE_CONFIG").map(PathBuf::from);
        if let Some(path) = &file {
            if !path.is_file() {
                return Err(ConfigError(format!(
                    "QUIRE_CONFIG names {}, which is not a readable file",
                    path.display()
                )));
            }
        }
        let path = file.unwrap_or_else(|| PathBuf::from("config.toml"));
        let env: Vec<(String, String)> = std::env::vars().collect();
        Self::from_sources(Some(&path), &env)
    }

    /// Resolves the configuration from an optional TOML file and the given variables
    /// (the environment in production, a literal list in tests).
    pub fn from_sources(
        file: Option<&std::path::Path>,
        env: &[(String, String)],
    ) -> Result<Config, ConfigError> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(path) = file {
            if path.is_file() {
                figment = figment.merge(Toml::file(path));
            }
        }
        // Empty variables count as unset (`REDIS_URL=` in a compose file means "no Redis").
        let mut vars: Vec<(String, String)> = Vec::new();
        for (key, value) in env {
            if SETTINGS.contains(&key.as_str()) && !value.trim().is_empty() {
                vars.push((key.to_ascii_lowercase(), value.clone()));
            }
        }
        // Strings are kept as written: a secret "12345" must not turn into a number.
        let string_keys: Vec<&str> = STRING_SETTINGS.to_vec();
        for (key, value) in &vars {
            if string_keys.contains(&key.as_str()) {
                figment = figment.merge(Serialized::default(key, value.clone()));
            } else {
                figment = figment.merge(Serialized::default(key, parse_scalar(value)));
            }
        }
        let from_env: Vec<String> = vars.iter().map(|(k, _)| k.clone()).collect();
        let config: Config = figment
            .extract()
            .map_err(|e| describe_figment_error(e, &from_env, file))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks ranges and formats serde cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, path) in self.chunk_tokenizer_files()? {
            if !path.is_file() {
                return Err(bad(
                    "CHUNK_TOKENIZERS",
                    "name=path pairs naming tokenizer.json files that exist",
                    format!("{name}={}", path.display()),
                ));
            }
        }
        if !self.api_prefix.starts_with('/') || self.api_prefix.ends_with('/') {
            return Err(bad(
                "API_PREFIX",
                "a path starting with '/' and not ending with '/' (e.g. /api/v1)",
                &self.api_prefix,
            ));
        }
        if let Some(url) = &self.storage_url {
            crate::service::storage::parse_url(url)
                .map_err(|accepts| bad("STORAGE_URL", accepts, url))?;
        }
        if let Some(url) = &self.s3_endpoint {
            if !is_http_url(url) {
                return Err(bad("S3_ENDPOINT", "an http:// or https:// URL", url));
            }
        }
        if !(1..=604_800).contains(&self.s3_presigned_expiry) {
            return Err(bad(
                "S3_PRESIGNED_EXPIRY",
                "a number of seconds from 1 to 604800 (7 days, the S3 maximum)",
                self.s3_presigned_expiry,
            ));
        }
        if self.max_file_size == 0 {
            return Err(bad("MAX_FILE_SIZE", "a positive number of bytes", 0));
        }
        if !(self.file_ttl_hours.is_finite() && self.file_ttl_hours > 0.0) {
            return Err(bad(
                "FILE_TTL_HOURS",
                "a positive number of hours",
                self.file_ttl_hours,
            ));
        }
        if self.conversion_timeout == 0 {
            return Err(bad("CONVERSION_TIMEOUT", "a positive number of seconds", 0));
        }
        if self.conversion_max_memory < (64 << 20) {
            return Err(bad(
                "CONVERSION_MAX_MEMORY",
                "a number of bytes of at least 67108864 (64 MiB)",
                self.conversion_max_memory,
            ));
        }
        if self.max_decompressed_size < (1 << 20) {
            return Err(bad(
                "MAX_DECOMPRESSED_SIZE",
                "a number of bytes of at least 1048576 (1 MiB)",
                self.max_decompressed_size,
            ));
        }
        for (name, value) in [
            ("HTTP_HEADER_TIMEOUT", self.http_header_timeout),
            ("HTTP_IDLE_TIMEOUT", self.http_idle_timeout),
            ("HTTP_MAX_CONNECTIONS", self.http_max_connections as u64),
        ] {
            if value == 0 {
                return Err(bad(name, "a positive number", 0));
            }
        }
        if self.max_queued_jobs == Some(0) {
            return Err(bad(
                "MAX_QUEUED_JOBS",
                "a positive number of jobs (unset for no limit)",
                0,
            ));
        }
        if self.rate_limit_per_key == Some(0) {
            return Err(bad(
                "RATE_LIMIT_PER_KEY",
                "a positive number of requests per minute (unset for no limit)",
                0,
            ));
        }
        if self.job_lease_seconds == 0 {
            return Err(bad("JOB_LEASE_SECONDS", "a positive number of seconds", 0));
        }
        if self.webhook_timeout == 0 {
            return Err(bad("WEBHOOK_TIMEOUT", "a positive number of seconds", 0));
        }
        if !(self.webhook_backoff_seconds.is_finite() && self.webhook_backoff_seconds >= 0.0) {
            return Err(bad(
                "WEBHOOK_BACKOFF_SECONDS",
                "a number of seconds, 0 or more",
                self.webhook_backoff_seconds,
            ));
        }
        if !(1..=100).contains(&self.image_compression_quality) {
            return Err(bad(
                "IMAGE_COMPRESSION_QUALITY",
                "an integer from 1 to 100",
                self.image_compression_quality,
            ));
        }
        if self.image_max_width == 0 {
            return Err(bad("IMAGE_MAX_WIDTH", "a positive number of pixels", 0));
        }
        if self.image_max_height == 0 {
            return Err(bad("IMAGE_MAX_HEIGHT", "a positive number of pixels", 0));
        }
        for (name, value) in [
            (
                "OCR_PROVIDER_TWO_TEXT_THRESHOLD",
                self.ocr_provider_two_text_threshold,
            ),
            (
                "OCR_PROVIDER_TWO_LINK_THRESHOLD",
                self.ocr_provider_two_link_threshold,
            ),
            ("OCR_PROVIDER_TWO_LOW_TEXT", self.ocr_provider_two_low_text),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(bad(name, "a number from 0 to 1", value));
            }
        }
        for (name, value) in [
            ("PUBLIC_BASE_URL", &self.public_base_url),
            ("DEFAULT_WEBHOOK_URL", &self.default_webhook_url),
        ] {
            if let Some(url) = value {
                if !is_http_url(url) {
                    return Err(bad(name, "an http:// or https:// URL", url));
                }
            }
        }
        if let Some(url) = &self.redis_url {
            if !(url.starts_with("redis://")
                || url.starts_with("rediss://")
                || url.starts_with("unix://")
                || url.starts_with("redis+unix://"))
            {
                return Err(bad(
                    "REDIS_URL",
                    "a redis:// or rediss:// URL",
                    "a value of another scheme",
                ));
            }
        }
        if self.allowed_origins.trim().is_empty() {
            return Err(bad(
                "ALLOWED_ORIGINS",
                "'*' or a comma-separated list of origins",
                "an empty list",
            ));
        }
        if tracing_subscriber::EnvFilter::try_new(&self.log_level).is_err() {
            return Err(bad(
                "LOG_LEVEL",
                "a level (error, warn, info, debug, trace) or a tracing filter",
                &self.log_level,
            ));
        }
        Ok(())
    }

    /// The number of in-process conversion workers (`WORKERS`, 0 = one per CPU).
    pub fn worker_count(&self) -> usize {
        if self.workers > 0 {
            self.workers
        } else {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        }
    }

    /// `ALLOWED_ORIGINS` split on commas; `None` means any origin (`*`).
    pub fn allowed_origin_list(&self) -> Option<Vec<String>> {
        let list: Vec<String> = self
            .allowed_origins
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if list.iter().any(|s| s == "*") {
            None
        } else {
            Some(list)
        }
    }

    /// Retention as a duration.
    pub fn file_ttl(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.file_ttl_hours * 3600.0)
    }

    /// The runtime folder in use: the setting, or where [`crate::runtime`] finds one.
    pub fn runtime_dir(&self) -> PathBuf {
        crate::runtime::runtime_dir(&self.quire_runtime_dir)
    }

    /// Readiness of every converter and of the three OCR providers, a not-ready detail about a
    /// missing runtime file followed by what to do for the way quire was installed.
    #[allow(clippy::type_complexity)]
    pub fn readiness(
        &self,
        registry: &crate::registry::Registry,
    ) -> (
        std::collections::BTreeMap<String, quire_plugin_api::Readiness>,
        std::collections::BTreeMap<String, quire_plugin_api::Readiness>,
    ) {
        let plugin_config = self.plugin_config();
        let mut converters = registry.converter_readiness(&plugin_config);
        let mut ocr = registry.ocr_readiness(&plugin_config);
        for states in [&mut converters, &mut ocr] {
            crate::runtime::explain_missing_files(
                states,
                &self.quire_runtime_dir,
                &plugin_config.runtime_dir,
            );
        }
        (converters, ocr)
    }

    /// What the plugins get.
    pub fn plugin_config(&self) -> PluginConfig {
        let runtime_dir = self.runtime_dir();
        PluginConfig {
            images: ImageRules {
                max_width: self.image_max_width,
                max_height: self.image_max_height,
                jpeg_quality: self.image_compression_quality,
            },
            ocr: OcrConfig {
                language: self.ocr_language.clone(),
                use_gpu: self.ocr_use_gpu,
                text_threshold: self.ocr_provider_two_text_threshold,
                link_threshold: self.ocr_provider_two_link_threshold,
                low_text: self.ocr_provider_two_low_text,
                model_dir: crate::runtime::model_dir(&self.ocr_model_dir, &runtime_dir),
                vision_api_key: self.ocr_provider_three_api_key.clone(),
                vision_base_url: self.ocr_provider_three_base_url.clone(),
                vision_model: self.ocr_provider_three_model.clone(),
                vision_timeout_secs: self.ocr_provider_three_timeout,
                vision_max_requests_per_job: self.ocr_provider_three_max_requests,
            },
            runtime_dir,
            spreadsheet_sample_rows: self.spreadsheet_sample_rows,
        }
    }
}

/// Settings whose values are text whatever they look like.
const STRING_SETTINGS: &[&str] = &[
    "host",
    "api_prefix",
    "public_base_url",
    "allowed_origins",
    "log_level",
    "upload_dir",
    "output_dir",
    "data_dir",
    "redis_url",
    "redis_key_prefix",
    "webhook_secret",
    "default_webhook_url",
    "ocr_language",
    "ocr_provider_three_api_key",
    "ocr_provider_three_base_url",
    "ocr_provider_three_model",
    "ocr_model_dir",
    "quire_runtime_dir",
    "api_keys",
    "api_keys_file",
    "chunk_tokenizers",
    "mcp_allowed_dirs",
    "storage_url",
    "s3_endpoint",
];

/// Environment values for non-text settings: numbers and booleans as such, the rest as text
/// (so serde reports "expected u64, found string" naming the setting).
fn parse_scalar(value: &str) -> figment::value::Value {
    use figment::value::{Num, Value};
    let v = value.trim();
    if let Ok(n) = v.parse::<u64>() {
        return Value::from(Num::U64(n));
    }
    if let Ok(n) = v.parse::<i64>() {
        return Value::from(Num::I64(n));
    }
    if let Ok(f) = v.parse::<f64>() {
        return Value::from(Num::F64(f));
    }
    match v.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => return Value::from(true),
        "false" | "no" | "off" => return Value::from(false),
        _ => {}
    }
    Value::from(v.to_string())
}

fn describe_figment_error(
    error: figment::Error,
    from_env: &[String],
    file: Option<&std::path::Path>,
) -> ConfigError {
    let mut lines = Vec::new();
    for e in error {
        let key = e.path.last().cloned().unwrap_or_default();
        let setting = if key.is_empty() {
            "configuration".to_string()
        } else {
            key.to_ascii_uppercase()
        };
        let source = if from_env.contains(&key) {
            " (from the environment)".to_string()
        } else {
            match file {
                Some(path) => format!(" (from {})", path.display()),
                None => String::new(),
            }
        };
        let accepts = accepts_hint(&setting);
        lines.push(format!(
            "invalid setting {setting}{source}: {}{accepts}",
            e.kind
        ));
    }
    ConfigError(lines.join("; "))
}

fn accepts_hint(setting: &str) -> String {
    let hint = match setting {
        "LOG_FORMAT" => "json or text",
        "PORT" | "WORKER_METRICS_PORT" => "a port number 0-65535",
        "WEBHOOK_BLOCK_PRIVATE" | "OCR_USE_GPU" => "true or false",
        "MAX_FILE_SIZE"
        | "CONVERSION_MAX_MEMORY"
        | "MAX_DECOMPRESSED_SIZE"
        | "CONVERSION_CHILD_MAX_RSS" => "a number of bytes",
        "HTTP_HEADER_TIMEOUT" | "HTTP_IDLE_TIMEOUT" => "a number of seconds",
        "HTTP_MIN_UPLOAD_RATE" => "a number of bytes per second (0: no minimum)",
        "HTTP_MAX_CONNECTIONS" => "a whole number",
        "MAX_QUEUED_JOBS" => "a positive number of jobs",
        "RATE_LIMIT_PER_KEY" => "a positive number of requests per minute",
        "CONVERSION_TIMEOUT" | "WEBHOOK_TIMEOUT" | "JOB_LEASE_SECONDS" => "a number of seconds",
        "FILE_TTL_HOURS" => "a number of hours",
        "WORKERS" | "WEBHOOK_MAX_RETRIES" | "SPREADSHEET_SAMPLE_ROWS" => "a whole number",
        "IMAGE_COMPRESSION_QUALITY" => "an integer from 1 to 100",
        _ => return String::new(),
    };
    format!(" (accepts {hint})")
}

/// Whether `url` is an absolute http(s) URL with a host.
pub fn is_http_url(url: &str) -> bool {
    match reqwest::Url::parse(url) {
        Ok(u) => {
            matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_match_the_contract() {
        let c = Config::from_sources(None, &[]).unwrap();
        assert_eq!(c.max_file_size, 104_857_600);
        assert_eq!(c.file_ttl_hours, 24.0);
        assert_eq!(c.api_prefix, "/api/v1");
        assert_eq!(c.port, 8000);
        assert_eq!(c.webhook_timeout, 30);
        assert_eq!(c.webhook_max_retries, 3);
        assert_eq!(c.plugin_config().images.jpeg_quality, 95);
        assert!(c.allowed_origin_list().is_none());
    }

    #[test]
    fn environment_overrides_file_overrides_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "max_file_size = 10\nport = 9000\nwebhook_secret = \"a\"\n",
        )
        .unwrap();
        let c = Config::from_sources(
            Some(&path),
            &env(&[
                ("PORT", "9100"),
                ("WEBHOOK_SECRET", "12345"),
                ("PATH", "/bin"),
            ]),
        )
        .unwrap();
        assert_eq!(c.max_file_size, 10);
        assert_eq!(c.port, 9100);
        assert_eq!(c.webhook_secret.as_deref(), Some("12345"));
    }

    #[test]
    fn bad_values_name_the_setting() {
        let e = Config::from_sources(None, &env(&[("MAX_FILE_SIZE", "lots")])).unwrap_err();
        assert!(e.0.contains("MAX_FILE_SIZE"), "{e}");
        let e = Config::from_sources(None, &env(&[("LOG_FORMAT", "xml")])).unwrap_err();
        assert!(e.0.contains("LOG_FORMAT"), "{e}");
        let e =
            Config::from_sources(None, &env(&[("IMAGE_COMPRESSION_QUALITY", "0")])).unwrap_err();
        assert!(e.0.contains("IMAGE_COMPRESSION_QUALITY"), "{e}");
        let e =
            Config::from_sources(None, &env(&[("DEFAULT_WEBHOOK_URL", "ftp://x")])).unwrap_err();
        assert!(e.0.contains("DEFAULT_WEBHOOK_URL"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "no_such_setting = 1\n").unwrap();
        let e = Config::from_sources(Some(&path), &[]).unwrap_err();
        assert!(e.0.contains("no_such_setting"), "{e}");
    }

    /// `config.toml` in the repository documents every setting with its default.
    #[test]
    fn repository_config_toml_documents_every_default() {
        let path = quire_testkit::workspace().join("config.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        for setting in SETTINGS {
            let key = setting.to_ascii_lowercase();
            assert!(
                text.contains(&format!("# {key} = ")),
                "config.toml does not document {key}"
            );
        }
        // Uncommenting every line whose default is a plain value gives the built-in defaults.
        let defaults = Config::default();
        let dir = tempfile::tempdir().unwrap();
        let uncommented: String = text
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .filter(|l| {
                let key = l.split(' ').next().unwrap_or_default();
                SETTINGS.contains(&key.to_ascii_uppercase().as_str())
                    && !matches!(
                        key,
                        "public_base_url"
                            | "redis_url"
                            | "webhook_secret"
                            | "default_webhook_url"
                            | "ocr_provider_three_api_key"
                            | "worker_metrics_port"
                            | "api_keys"
                            | "api_keys_file"
                            | "max_queued_jobs"
                            | "rate_limit_per_key"
                            | "mcp_allowed_dirs"
                            | "storage_url"
                            | "s3_endpoint"
                            // Examples: unset, these are looked up (`crate::runtime`).
                            | "ocr_model_dir"
                            | "quire_runtime_dir"
                    )
            })
            .map(|l| format!("{}\n", l.split(" #").next().unwrap_or(l)))
            .collect();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, uncommented).unwrap();
        let parsed = Config::from_sources(Some(&file), &[]).unwrap();
        assert_eq!(parsed, defaults);
    }

    #[test]
    fn booleans_accept_common_spellings() {
        let c = Config::from_sources(None, &env(&[("WEBHOOK_BLOCK_PRIVATE", "yes")])).unwrap();
        assert!(c.webhook_block_private);
    }
}
