//! Registration, readiness and sharing across threads.

#[path = "common/testpages.rs"]
mod testpages;

use quire_ocr_ppocr as _;
use quire_plugin_api::{OcrImage, PluginConfig};

fn descriptor() -> &'static quire_plugin_api::OcrProviderDescriptor {
    quire_plugin_api::ocr_provider_descriptors()
        .find(|d| d.id == "provider_two")
        .expect("provider_two is registered")
}

fn config() -> PluginConfig {
    let mut config = PluginConfig::default();
    config.ocr.model_dir = quire_testkit::runtime_dir().join("models");
    config
}

#[test]
fn registered_with_a_name_and_honest_readiness() {
    let d = descriptor();
    assert_eq!(d.name, "PP-OCR (neural detector + recognizer)");
    assert_eq!(d.crate_name, "quire-ocr-ppocr");
    let mut missing = config();
    missing.ocr.model_dir = std::env::temp_dir().join("quire-no-models-here");
    let r = (d.readiness)(&missing);
    assert!(!r.ready);
    assert!(r.detail.contains("missing"), "{}", r.detail);
    let err = (d.factory)(&missing).err().expect("no models, no provider");
    assert_eq!(err.kind(), quire_plugin_api::ErrorKind::Internal);
    assert!(
        !err.message().contains('/'),
        "no server path in {}",
        err.message()
    );

    let config = config();
    if !config
        .ocr
        .model_dir
        .join("PP-OCRv6_rec_small.onnx")
        .is_file()
    {
        eprintln!("SKIPPED: models not installed (scripts/setup.sh)");
        return;
    }
    let r = (d.readiness)(&config);
    assert!(r.ready, "{}", r.detail);
    // Cached: a second check does not load again.
    let t = std::time::Instant::now();
    assert!((d.readiness)(&config).ready);
    assert!(t.elapsed().as_millis() < 50);
}

#[test]
fn one_provider_serves_several_threads() {
    let config = config();
    let Ok(provider) = (descriptor().factory)(&config) else {
        eprintln!("SKIPPED: models not installed");
        return;
    };
    let Some(pages) = testpages::pages() else {
        eprintln!("SKIPPED: no fonts");
        return;
    };
    let page = pages.iter().find(|p| p.name == "sans_12").expect("page");
    let provider = &provider;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(move || {
                    provider
                        .recognize(&OcrImage {
                            data: &page.data,
                            mime: page.mime,
                            dpi: None,
                        })
                        .expect("readable")
                        .text
                })
            })
            .collect();
        let texts: Vec<String> = handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect();
        assert!(texts.windows(2).all(|w| w[0] == w[1]));
        assert!(testpages::cer(&page.truth, &texts[0]) < 0.02);
    });
}
