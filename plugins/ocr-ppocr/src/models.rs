//! Loading the three PP-OCR models and the recognition dictionary.
//!
//! The models are plain `.onnx` files run by `rten`, a pure-Rust runtime: nothing to link, and a
//! loaded [`rten::Model`] is `Sync`, so one set serves every thread. Loading takes well under a
//! second, so the set is loaded once per model directory and cached for the process (readiness
//! and every provider instance share it).
//!
//! The recognition model carries its own alphabet: PaddleOCR's exporter stores the dictionary,
//! one character per line, in the ONNX `metadata_props["character"]` entry, and rten exposes
//! ONNX metadata through [`rten::ModelMetadata::get`]. The model's classes are CTC blank (0),
//! then the dictionary in order, then a space (PaddleOCR's `use_space_char`); the class count
//! of the output is checked against that at load time, so a mismatched model fails readiness
//! instead of producing garbage.

use rten::{Model, NodeId};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

pub const DET_FILE: &str = "PP-OCRv6_det_small.onnx";
pub const REC_FILE: &str = "PP-OCRv6_rec_small.onnx";
pub const CLS_FILE: &str = "ch_ppocr_mobile_v2.0_cls_mobile.onnx";

/// One loaded network with its single input and output.
pub struct Net {
    pub model: Model,
    pub input: NodeId,
    pub output: NodeId,
}

impl Net {
    fn load(path: &Path) -> Result<Net, String> {
        // Weight prepacking was measured: no gain in CPU time on these models.
        let model = Model::load_file(path).map_err(|e| format!("{}: {e}", file_name(path)))?;
        let input = *model
            .input_ids()
            .first()
            .ok_or_else(|| format!("{} has no input", file_name(path)))?;
        let output = *model
            .output_ids()
            .first()
            .ok_or_else(|| format!("{} has no output", file_name(path)))?;
        Ok(Net {
            model,
            input,
            output,
        })
    }
}

/// The detector, the direction classifier, the recogniser and its alphabet.
pub struct Models {
    pub det: Net,
    pub cls: Net,
    pub rec: Net,
    /// Class index to text: `[""(blank), dictionary..., " "]`.
    pub alphabet: Vec<String>,
    /// Input height the recogniser was trained for (48 for PP-OCRv6).
    pub rec_height: usize,
    pub load_time_ms: u128,
}

impl Models {
    pub fn load(dir: &Path) -> Result<Models, String> {
        let start = Instant::now();
        check_files(dir)?;
        let det = Net::load(&dir.join(DET_FILE))?;
        let cls = Net::load(&dir.join(CLS_FILE))?;
        let rec = Net::load(&dir.join(REC_FILE))?;
        let dict = rec
            .model
            .metadata()
            .get("character")
            .ok_or_else(|| format!("{REC_FILE} carries no character dictionary"))?;
        let alphabet = alphabet_from_dictionary(dict);
        let rec_info = rec.model.node_info(rec.input);
        let rec_height = rec_info
            .and_then(|i| i.shape())
            .and_then(|s| s.get(2).cloned())
            .and_then(|d| match d {
                rten::Dimension::Fixed(n) => Some(n),
                rten::Dimension::Symbolic(_) => None,
            })
            .unwrap_or(48);
        let classes = rec
            .model
            .node_info(rec.output)
            .and_then(|i| i.shape())
            .and_then(|s| s.last().cloned());
        if let Some(rten::Dimension::Fixed(n)) = classes {
            if n != alphabet.len() {
                return Err(format!(
                    "{REC_FILE} has {n} classes but its dictionary gives {}",
                    alphabet.len()
                ));
            }
        }
        Ok(Models {
            det,
            cls,
            rec,
            alphabet,
            rec_height,
            load_time_ms: start.elapsed().as_millis(),
        })
    }
}

/// Blank, the dictionary's lines in order, then a space.
pub fn alphabet_from_dictionary(dict: &str) -> Vec<String> {
    let mut alphabet = Vec::with_capacity(dict.len() / 2 + 2);
    alphabet.push(String::new());
    alphabet.extend(
        dict.split('\n')
            .map(|s| s.strip_suffix('\r').unwrap_or(s).to_string()),
    );
    // A trailing newline would leave an empty last entry that is not a class.
    if alphabet.len() > 1 && alphabet.last().is_some_and(|s| s.is_empty()) {
        alphabet.pop();
    }
    alphabet.push(" ".to_string());
    alphabet
}

/// Whether the three files are present (a stat each, never cached).
pub fn check_files(dir: &Path) -> Result<(), String> {
    for f in [DET_FILE, REC_FILE, CLS_FILE] {
        if !dir.join(f).is_file() {
            return Err(format!(
                "model file {f} is missing from the OCR model directory {}.",
                dir.display()
            ));
        }
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

type Cached = Result<Arc<Models>, String>;

/// The process-wide model sets, one per directory, each loaded at most once.
fn cache() -> &'static Mutex<HashMap<PathBuf, Arc<OnceLock<Cached>>>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<OnceLock<Cached>>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The models in `dir`, loading them on first use. Missing files are re-checked on every call
/// (so running the set-up step later makes the provider ready); a file that is present but
/// fails to load is remembered, and replacing it needs a restart.
pub fn shared(dir: &Path) -> Cached {
    check_files(dir)?;
    let slot = {
        let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
        map.entry(dir.to_path_buf()).or_default().clone()
    };
    slot.get_or_init(|| Models::load(dir).map(Arc::new)).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabet_has_blank_first_and_space_last() {
        let a = alphabet_from_dictionary("a\nb\nc\n");
        assert_eq!(a, ["", "a", "b", "c", " "]);
        let a = alphabet_from_dictionary("x\r\ny");
        assert_eq!(a, ["", "x", "y", " "]);
    }
}
