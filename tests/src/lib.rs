//! End-to-end tests of the conversion library live in `tests/`; this crate holds only what
//! several of them share.

use quire_plugin_api::PluginConfig;
use std::path::{Path, PathBuf};

pub use quire_testkit::workspace;

/// The shared corpus (`QUIRE_CORPUS`, else `../shared/corpus` beside the workspace), when it
/// is there.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("QUIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/corpus"));
    dir.join("MANIFEST.tsv").is_file().then_some(dir)
}

/// The plugin configuration of the tests: the checkout's runtime files (PDFium, OCR models).
pub fn plugin_config() -> PluginConfig {
    let mut config = PluginConfig {
        runtime_dir: workspace().join("vendor-runtime"),
        ..PluginConfig::default()
    };
    config.ocr.model_dir = workspace().join("vendor-runtime/models");
    config
}

/// Every document of the shared corpus (`<corpus>/<type>/<file>`), sorted; the hand-checked
/// ground truth under `groundtruth/` is not a document to convert.
pub fn corpus_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(corpus).unwrap().flatten() {
        let p = dir.path();
        if !p.is_dir() || p.file_name().is_some_and(|n| n == "groundtruth") {
            continue;
        }
        for f in std::fs::read_dir(&p).unwrap().flatten() {
            if f.path().is_file() {
                files.push(f.path());
            }
        }
    }
    files.sort();
    files
}
