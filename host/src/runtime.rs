//! Where the runtime files live: the PDFium library (`lib/libpdfium.so`) and the OCR models
//! (`models/`), fetched by `scripts/setup.sh` or shipped in the release archive.
//!
//! Nothing here depends on the working directory unless everything else fails, so `quire`
//! works the same started from anywhere. The first folder that exists wins:
//!
//! 1. the explicit setting (`QUIRE_RUNTIME_DIR` / `quire_runtime_dir`), used even when it
//!    does not exist, so a typo is reported rather than silently replaced;
//! 2. beside the executable: `<exe dir>/../lib/quire`, `<exe dir>/../share/quire`
//!    (the release archive's layout and a packaged install's);
//! 3. the system locations a package installs to: `/usr/local/lib/quire`, `/usr/lib/quire`;
//! 4. `vendor-runtime` in the working directory or the nearest of its parents that has one
//!    (a checkout, from any of its folders: the tests run in a crate's folder);
//! 5. `vendor-runtime` in the nearest parent of the executable's folder that has one (a
//!    checkout's own `target/`);
//! 6. the source tree this binary was built from (`<workspace>/vendor-runtime`, fixed at
//!    compile time), so a development build finds what `scripts/setup.sh` fetched wherever
//!    it is run. It is last because it can be stale: cargo reuses a crate compiled in another
//!    checkout that shares its target folder, and that checkout may be gone.

use std::path::{Path, PathBuf};

/// The folder name `scripts/setup.sh` fills in a checkout.
const CHECKOUT_DIR: &str = "vendor-runtime";

/// Every place looked at, in order, for a runtime folder that was not set explicitly.
pub fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.canonicalize().ok())
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    if let Some(dir) = &exe_dir {
        out.push(dir.join("../lib/quire"));
        out.push(dir.join("../share/quire"));
    }
    out.push(PathBuf::from("/usr/local/lib/quire"));
    out.push(PathBuf::from("/usr/lib/quire"));
    out.push(PathBuf::from(".").join(CHECKOUT_DIR));
    let cwd = std::env::current_dir().ok();
    out.extend(
        [cwd, exe_dir]
            .iter()
            .flatten()
            .map(PathBuf::as_path)
            .filter_map(nearest_checkout_dir),
    );
    out.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(CHECKOUT_DIR),
    );
    out
}

/// `vendor-runtime` in the nearest parent of `start` that has one (not in `start` itself).
fn nearest_checkout_dir(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .skip(1)
        .map(|dir| dir.join(CHECKOUT_DIR))
        .find(|dir| dir.is_dir())
}

/// The runtime folder: `explicit` when set (non-empty), else the first candidate that holds
/// runtime files, else `./vendor-runtime` (whose absence readiness then reports).
pub fn runtime_dir(explicit: &Path) -> PathBuf {
    if !explicit.as_os_str().is_empty() {
        return explicit.to_path_buf();
    }
    first_with_runtime_files(&candidates()).unwrap_or_else(|| PathBuf::from(".").join(CHECKOUT_DIR))
}

/// The OCR model folder: `explicit` when set, else `<runtime dir>/models`.
pub fn model_dir(explicit: &Path, runtime_dir: &Path) -> PathBuf {
    if !explicit.as_os_str().is_empty() {
        return explicit.to_path_buf();
    }
    runtime_dir.join("models")
}

/// What to do about a missing runtime file, for the way this quire was installed: the
/// setting to check when it was given, `scripts/setup.sh` in a source checkout, the archive
/// to unpack again for an install (where `scripts/setup.sh` does not exist).
pub fn missing_files_hint(explicit: &Path, dir: &Path) -> String {
    if !explicit.as_os_str().is_empty() {
        return format!(
            "QUIRE_RUNTIME_DIR (quire_runtime_dir) names {}: point it at the folder that holds \
             lib/libpdfium.so and models/, or unset it to use the files installed with quire.",
            dir.display()
        );
    }
    if !dir.is_dir() {
        let looked: Vec<String> = candidates()
            .iter()
            .map(|c| c.display().to_string())
            .collect();
        return format!(
            "No runtime folder was found (looked in {}): unpack the release archive again \
             (bin/ and lib/quire/ side by side), or run scripts/setup.sh in a source checkout.",
            looked.join(", ")
        );
    }
    if dir.file_name().is_some_and(|n| n == CHECKOUT_DIR) {
        return "Run scripts/setup.sh in the source checkout to fetch the runtime files."
            .to_string();
    }
    format!(
        "The installation in {} is incomplete: unpack the release archive again, or set \
         QUIRE_RUNTIME_DIR to a folder that holds lib/libpdfium.so and models/.",
        dir.display()
    )
}

/// Adds [`missing_files_hint`] to each not-ready detail that names a file in the runtime
/// folder (the PDF converter's "there is no <dir>/lib/libpdfium.so").
pub fn explain_missing_files(
    states: &mut std::collections::BTreeMap<String, quire_plugin_api::Readiness>,
    explicit: &Path,
    dir: &Path,
) {
    let shown = dir.display().to_string();
    for r in states.values_mut() {
        if !r.ready && r.detail.contains(&shown) {
            r.detail = format!("{} {}", r.detail, missing_files_hint(explicit, dir));
        }
    }
}

fn first_with_runtime_files(candidates: &[PathBuf]) -> Option<PathBuf> {
    candidates
        .iter()
        .find(|dir| dir.join("lib").is_dir() || dir.join("models").is_dir())
        .map(|dir| normalise(dir))
}

/// `a/b/../c` → `a/c` for display (the folders exist, so canonicalising is safe).
fn normalise(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_setting_wins_even_when_missing() {
        let p = Path::new("/no/such/runtime");
        assert_eq!(runtime_dir(p), p);
        assert_eq!(model_dir(Path::new("/m"), p), Path::new("/m"));
        assert_eq!(model_dir(Path::new(""), p), p.join("models"));
    }

    #[test]
    fn the_first_folder_holding_runtime_files_is_chosen() {
        let root = tempfile::tempdir().unwrap();
        let empty = root.path().join("empty");
        let with_models = root.path().join("a");
        let with_lib = root.path().join("b");
        std::fs::create_dir_all(&empty).unwrap();
        std::fs::create_dir_all(with_models.join("models")).unwrap();
        std::fs::create_dir_all(with_lib.join("lib")).unwrap();
        let got = first_with_runtime_files(&[
            root.path().join("missing"),
            empty,
            with_models.clone(),
            with_lib,
        ]);
        assert_eq!(got, Some(with_models.canonicalize().unwrap()));
        assert_eq!(first_with_runtime_files(&[root.path().join("x")]), None);
    }

    #[test]
    fn places_beside_the_executable_come_before_the_working_directory() {
        let c = candidates();
        let cwd = c
            .iter()
            .position(|p| p == &PathBuf::from(".").join(CHECKOUT_DIR))
            .unwrap();
        let exe = c.iter().position(|p| p.ends_with("../lib/quire")).unwrap();
        let system = c
            .iter()
            .position(|p| p == Path::new("/usr/lib/quire"))
            .unwrap();
        assert!(exe < system && system < cwd, "{c:?}");
    }

    #[test]
    fn a_checkout_is_found_from_any_folder_inside_it() {
        let root = tempfile::tempdir().unwrap();
        let deep = root.path().join("plugins/pdf/tests");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(nearest_checkout_dir(&deep), None);
        std::fs::create_dir_all(root.path().join(CHECKOUT_DIR)).unwrap();
        assert_eq!(
            nearest_checkout_dir(&deep),
            Some(root.path().join(CHECKOUT_DIR))
        );
        // The folder itself is `./vendor-runtime`, listed on its own.
        assert_eq!(nearest_checkout_dir(root.path()), None);
    }

    #[test]
    fn the_hint_fits_the_install() {
        let root = tempfile::tempdir().unwrap();
        let checkout = root.path().join(CHECKOUT_DIR);
        let install = root.path().join("lib/quire");
        std::fs::create_dir_all(&checkout).unwrap();
        std::fs::create_dir_all(&install).unwrap();
        let none = Path::new("");
        assert!(missing_files_hint(none, &checkout).contains("scripts/setup.sh"));
        let archive = missing_files_hint(none, &install);
        assert!(
            !archive.contains("setup.sh") && archive.contains("release archive"),
            "{archive}"
        );
        let missing = missing_files_hint(none, &root.path().join("gone"));
        assert!(missing.contains("release archive") && missing.contains("looked in"));
        let set = missing_files_hint(&install, &install);
        assert!(
            set.contains("QUIRE_RUNTIME_DIR") && !set.contains("setup.sh"),
            "{set}"
        );
    }
}
