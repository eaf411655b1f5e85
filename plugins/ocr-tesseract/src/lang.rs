//! `OCR_LANGUAGE` (ISO 639-1, comma-separated) to Tesseract language names, and where
//! Tesseract's language data lives on this machine.

use std::path::{Path, PathBuf};

/// ISO 639-1 codes and the Tesseract `traineddata` names they map to.
const ISO_TO_TESSERACT: &[(&str, &str)] = &[
    ("en", "eng"),
    ("de", "deu"),
    ("fr", "fra"),
    ("es", "spa"),
    ("it", "ita"),
    ("pt", "por"),
    ("nl", "nld"),
    ("ru", "rus"),
    ("zh", "chi_sim"),
    ("ja", "jpn"),
    ("ko", "kor"),
    ("ar", "ara"),
    ("pl", "pol"),
    ("cs", "ces"),
    ("sv", "swe"),
    ("da", "dan"),
    ("fi", "fin"),
    ("no", "nor"),
    ("tr", "tur"),
    ("el", "ell"),
    ("uk", "ukr"),
    ("hi", "hin"),
];

/// Tesseract language names for a configured language list ("en,de" → ["eng", "deu"]).
/// Codes Tesseract already uses ("eng", "chi_tra") pass through unchanged; anything else is an
/// error naming the code.
pub fn tesseract_languages(configured: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for code in configured
        .split([',', '+'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        let lower = code.to_ascii_lowercase();
        let name = ISO_TO_TESSERACT
            .iter()
            .find(|(iso, _)| *iso == lower)
            .map(|(_, t)| (*t).to_owned())
            .or_else(|| {
                let known_shape =
                    lower.len() >= 3 && lower.chars().all(|c| c.is_ascii_lowercase() || c == '_');
                known_shape.then_some(lower.clone())
            })
            .ok_or_else(|| format!("OCR_LANGUAGE '{code}' is not a language Tesseract knows"))?;
        if !out.contains(&name) {
            out.push(name);
        }
    }
    if out.is_empty() {
        out.push("eng".into());
    }
    Ok(out)
}

/// Directories searched for `*.traineddata`, in order: `TESSDATA_PREFIX` (which libtesseract
/// itself honours, so we look where it would), then the Debian package locations.
fn candidate_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(prefix) = std::env::var_os("TESSDATA_PREFIX") {
        let prefix = PathBuf::from(prefix);
        dirs.push(prefix.join("tessdata"));
        dirs.push(prefix);
    }
    for dir in [
        "/usr/share/tesseract-ocr/5/tessdata",
        "/usr/share/tesseract-ocr/4.00/tessdata",
        "/usr/share/tessdata",
        "/usr/local/share/tessdata",
    ] {
        dirs.push(PathBuf::from(dir));
    }
    dirs
}

/// The first data directory holding every language, or the name of the first missing one.
pub fn find_tessdata(languages: &[String]) -> Result<PathBuf, String> {
    let dirs = candidate_dirs();
    if let Some(dir) = dirs.iter().find(|d| has_all(d, languages)) {
        return Ok(dir.clone());
    }
    let missing = languages
        .iter()
        .find(|l| !dirs.iter().any(|d| has(d, l)))
        .cloned()
        .unwrap_or_else(|| languages.join("+"));
    Err(missing)
}

/// Every language whose data is installed in a searched directory (`osd`, orientation data,
/// is no language), sorted: what a person may choose instead of a missing one.
pub fn installed() -> Vec<String> {
    let mut names: Vec<String> = candidate_dirs()
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let lang = name.strip_suffix(".traineddata")?;
            (lang != "osd").then(|| lang.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// [`installed`] for a message: `eng, deu`, or `none` when no data is installed.
pub fn installed_list() -> String {
    let names = installed();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn has(dir: &Path, language: &str) -> bool {
    dir.join(format!("{language}.traineddata")).is_file()
}

fn has_all(dir: &Path, languages: &[String]) -> bool {
    languages.iter().all(|l| has(dir, l))
}

/// Whether orientation-and-script data is there (page segmentation mode 1 needs it).
pub fn has_osd(dir: &Path) -> bool {
    has(dir, "osd")
}

/// The Debian package that installs a language's data.
pub fn debian_package(language: &str) -> String {
    format!("tesseract-ocr-{}", language.replace('_', "-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_iso_codes() {
        assert_eq!(tesseract_languages("en").unwrap(), ["eng"]);
        assert_eq!(tesseract_languages("en, de").unwrap(), ["eng", "deu"]);
        assert_eq!(tesseract_languages("zh,ja").unwrap(), ["chi_sim", "jpn"]);
        assert_eq!(
            tesseract_languages("eng+chi_tra").unwrap(),
            ["eng", "chi_tra"]
        );
        assert_eq!(tesseract_languages("").unwrap(), ["eng"]);
        assert!(tesseract_languages("x1").is_err());
        assert_eq!(debian_package("chi_sim"), "tesseract-ocr-chi-sim");
    }
}
