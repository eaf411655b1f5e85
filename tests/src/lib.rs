//! End-to-end tests of the conversion library live in `tests/`; this crate holds only what
//! several of them share.

use std::path::{Path, PathBuf};

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
