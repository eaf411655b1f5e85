//! Settings the host hands to plugin factories once its configuration has loaded.
//!
//! Plugins never read environment variables or files themselves: the host resolves
//! `config.toml` and the environment (figment) and passes the relevant values here.

use std::path::PathBuf;

/// How images are normalised before they are embedded in any output (interface "Limits").
#[derive(Debug, Clone, PartialEq)]
pub struct ImageRules {
    /// `IMAGE_MAX_WIDTH`, default 2048.
    pub max_width: u32,
    /// `IMAGE_MAX_HEIGHT`, default 2048.
    pub max_height: u32,
    /// `IMAGE_COMPRESSION_QUALITY` for JPEG re-encoding, 1..=100, default 95.
    pub jpeg_quality: u8,
}

impl Default for ImageRules {
    fn default() -> Self {
        ImageRules {
            max_width: 2048,
            max_height: 2048,
            jpeg_quality: 95,
        }
    }
}

/// OCR settings shared by the providers; each provider reads the fields it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrConfig {
    /// `OCR_LANGUAGE`, an ISO 639-1 code or a comma-separated list ("en", "en,de"). Default "en".
    pub language: String,
    /// `OCR_USE_GPU`; default false. Providers without GPU support ignore it.
    pub use_gpu: bool,
    /// `OCR_PROVIDER_TWO_TEXT_THRESHOLD` (0.7).
    pub text_threshold: f32,
    /// `OCR_PROVIDER_TWO_LINK_THRESHOLD` (0.4).
    pub link_threshold: f32,
    /// `OCR_PROVIDER_TWO_LOW_TEXT` (0.4).
    pub low_text: f32,
    /// Where downloaded OCR models live (`OCR_MODEL_DIR`, default `./vendor-runtime/models`).
    pub model_dir: PathBuf,
    /// `OCR_PROVIDER_THREE_API_KEY`; `None` means provider_three is not ready.
    pub vision_api_key: Option<String>,
    /// `OCR_PROVIDER_THREE_BASE_URL`, an OpenAI-compatible API root.
    pub vision_base_url: String,
    /// `OCR_PROVIDER_THREE_MODEL`.
    pub vision_model: String,
    /// Per-request timeout for provider_three, seconds.
    pub vision_timeout_secs: u64,
    /// Per-job cap on requests to provider_three.
    pub vision_max_requests_per_job: u32,
}

impl Default for OcrConfig {
    fn default() -> Self {
        OcrConfig {
            language: "en".into(),
            use_gpu: false,
            text_threshold: 0.7,
            link_threshold: 0.4,
            low_text: 0.4,
            model_dir: PathBuf::from("vendor-runtime/models"),
            vision_api_key: None,
            vision_base_url: "https://api.openai.com/v1".into(),
            vision_model: "gpt-4o-mini".into(),
            vision_timeout_secs: 60,
            vision_max_requests_per_job: 50,
        }
    }
}

/// Everything a plugin factory may consult.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginConfig {
    pub images: ImageRules,
    pub ocr: OcrConfig,
    /// Where native runtime libraries fetched by the set-up step live (e.g. `libpdfium.so`);
    /// `QUIRE_RUNTIME_DIR`, default `./vendor-runtime`.
    pub runtime_dir: PathBuf,
    /// `SPREADSHEET_SAMPLE_ROWS` (default 5).
    pub spreadsheet_sample_rows: usize,
}

impl Default for PluginConfig {
    fn default() -> Self {
        PluginConfig {
            images: ImageRules::default(),
            ocr: OcrConfig::default(),
            runtime_dir: PathBuf::from("vendor-runtime"),
            spreadsheet_sample_rows: 5,
        }
    }
}
