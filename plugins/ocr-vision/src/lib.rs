//! provider_three: OCR by an AI vision model behind an OpenAI-compatible chat-completions API.
//!
//! `POST {base}/chat/completions` with `Authorization: Bearer KEY`, one user message holding the
//! instruction ([`payload::PROMPT`]) and the image as a `data:` URL; the transcription comes back
//! in `choices[0].message.content`. OpenAI, vLLM, Ollama, LM Studio, llama.cpp's server and most
//! gateways speak this dialect.
//!
//! HTTP is blocking (`ureq`): a conversion is synchronous work on a host worker thread, and a
//! blocking client hides no async runtime that could clash with the host's. Retries and the
//! request cap are in [`http`].
//!
//! The per-job request cap (`vision_max_requests_per_job`) is counted per provider instance:
//! the host builds a provider for each job (process), so the instance count is the job count.
//! The API key is never logged: [`VisionProvider`]'s `Debug` redacts it and error details never
//! include request headers.

mod http;
mod payload;

use quire_plugin_api::{
    register_ocr_provider, Error, Limits, OcrConfig, OcrImage, OcrOutput, OcrProvider,
    OcrProviderDescriptor, PluginConfig, Readiness, Result,
};
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

pub use http::MAX_ATTEMPTS;
pub use payload::PROMPT;

pub const DESCRIPTOR: OcrProviderDescriptor = OcrProviderDescriptor {
    id: "provider_three",
    name: "AI vision (OpenAI-compatible)",
    crate_name: env!("CARGO_PKG_NAME"),
    readiness,
    factory,
};

register_ocr_provider!(DESCRIPTOR);

const NO_KEY: &str = "OCR_PROVIDER_THREE_API_KEY is not set";

/// Ready when an API key is configured and the base URL is an http(s) URL. No network probe:
/// readiness is asked often (`/ready`), and a service hiccup should not mark quire unready.
fn readiness(config: &PluginConfig) -> Readiness {
    match check(&config.ocr) {
        Ok(()) => Readiness::ready(format!(
            "model {} at {}",
            config.ocr.vision_model, config.ocr.vision_base_url
        )),
        Err(e) => Readiness::not_ready(e.message().to_owned()),
    }
}

fn check(config: &OcrConfig) -> Result<()> {
    if config
        .vision_api_key
        .as_deref()
        .is_none_or(|k| k.trim().is_empty())
    {
        return Err(Error::internal(NO_KEY));
    }
    let base = config.vision_base_url.trim();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(Error::internal(
            "OCR_PROVIDER_THREE_BASE_URL must start with http:// or https://",
        ));
    }
    if config.vision_model.trim().is_empty() {
        return Err(Error::internal("OCR_PROVIDER_THREE_MODEL is empty"));
    }
    Ok(())
}

fn factory(config: &PluginConfig) -> Result<Box<dyn OcrProvider>> {
    Ok(Box::new(VisionProvider::new(&config.ocr)?))
}

/// The AI vision provider. One instance per job; see the module docs for the request cap.
pub struct VisionProvider {
    agent: ureq::Agent,
    url: String,
    key: String,
    model: String,
    /// `OCR_LANGUAGE` (or the job's `ocr_language`) as a hint in the instruction, when it is
    /// not the default `en`.
    language_hint: Option<String>,
    max_requests: u32,
    sent: AtomicU32,
    backoff: Duration,
    max_pixels: u64,
}

impl fmt::Debug for VisionProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VisionProvider")
            .field("url", &self.url)
            .field("key", &"<redacted>")
            .field("model", &self.model)
            .field("max_requests", &self.max_requests)
            .field("sent", &self.sent.load(Ordering::Relaxed))
            .finish()
    }
}

impl VisionProvider {
    pub fn new(config: &OcrConfig) -> Result<Self> {
        check(config)?;
        let timeout = Duration::from_secs(config.vision_timeout_secs.max(1));
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .user_agent(concat!("quire/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Ok(VisionProvider {
            agent,
            url: format!(
                "{}/chat/completions",
                config.vision_base_url.trim().trim_end_matches('/')
            ),
            key: config
                .vision_api_key
                .clone()
                .unwrap_or_default()
                .trim()
                .to_owned(),
            model: config.vision_model.trim().to_owned(),
            language_hint: Some(config.language.trim().to_owned())
                .filter(|l| !l.is_empty() && l != "en"),
            max_requests: config.vision_max_requests_per_job,
            sent: AtomicU32::new(0),
            backoff: http::Endpoint::default_backoff(),
            max_pixels: Limits::default().max_image_pixels,
        })
    }

    /// Shortens the first retry wait (tests).
    pub fn with_backoff(mut self, base: Duration) -> Self {
        self.backoff = base;
        self
    }

    /// HTTP requests sent so far (retries included).
    pub fn requests_sent(&self) -> u32 {
        self.sent.load(Ordering::SeqCst)
    }
}

impl OcrProvider for VisionProvider {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput> {
        let (data, mime) = payload::prepare_image(image.data, self.max_pixels)?;
        let body = payload::request_body(&self.model, &data, mime, self.language_hint.as_deref());
        drop(data);
        let endpoint = http::Endpoint {
            agent: &self.agent,
            url: &self.url,
            key: &self.key,
            sent: &self.sent,
            max_requests: self.max_requests,
            backoff: self.backoff,
        };
        let answer = http::post_with_retries(&endpoint, &body)?;
        // A truncated answer (`finish_reason: length`) is still the start of the page's text;
        // it is returned as is (the interface has no place for a per-image warning).
        let (text, _truncated) = payload::parse_answer(&answer)?;
        Ok(OcrOutput {
            text,
            confidence: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_needs_a_key() {
        let mut config = PluginConfig::default();
        assert_eq!(readiness(&config), Readiness::not_ready(NO_KEY));
        config.ocr.vision_api_key = Some("  ".into());
        assert!(!readiness(&config).ready);
        config.ocr.vision_api_key = Some("sk-secret".into());
        assert!(readiness(&config).ready);
    }

    #[test]
    fn debug_never_shows_the_key() {
        let config = OcrConfig {
            vision_api_key: Some("sk-very-secret".into()),
            ..OcrConfig::default()
        };
        let p = VisionProvider::new(&config).unwrap();
        let shown = format!("{p:?}");
        assert!(!shown.contains("sk-very-secret") && shown.contains("<redacted>"));
        assert_eq!(p.url, "https://api.openai.com/v1/chat/completions");
    }
}
