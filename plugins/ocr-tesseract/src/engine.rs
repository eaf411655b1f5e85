//! One Tesseract engine per thread, and the OpenMP set-up that keeps it fast.
//!
//! Thread model: a `TessBaseAPI` is not thread-safe, and creating one costs ~0.1 s (it loads the
//! language model), so each thread that calls [`recognize`] keeps its own engine in a
//! `thread_local!` slot, created on first use and reused for every later image on that thread.
//! The host runs conversions on a small, fixed set of worker threads, so this is a handful of
//! engines (~70 MB each) for the process lifetime, freed when a thread ends.
//!
//! OpenMP: Debian's libtesseract is built with OpenMP and asks for several threads per
//! parallel region (`num_threads(...)` clauses in its LSTM code). On a 2-core machine shared
//! with other work the extra threads spin and recognition gets 2-3x *slower* (10 generated
//! pages: 14.4 s wall by default, 5.7 s with `OMP_THREAD_LIMIT=1`). `OMP_THREAD_LIMIT` cannot
//! be set from here: libgomp reads its environment in a constructor when the library is loaded,
//! i.e. before `main` (setting it with `set_var` was measured to change nothing, and `setenv`
//! races with other threads' `getenv`). Instead each engine thread, before its engine exists,
//! calls `omp_set_dynamic(1)` and `omp_set_num_threads(1)` (looked up with `dlsym`; no-ops
//! when libtesseract has no OpenMP). Dynamic mode lets libgomp give a region fewer threads than
//! its clause asks when the cores are busy (same 10 pages: 4.3 s). Operators who want a hard
//! cap set `OMP_THREAD_LIMIT=1` in the service environment (the host can set it for job
//! processes it spawns).
//!
//! Orientation: the engine reads with fully automatic segmentation (PSM 3, what the
//! `tesseract` CLI does by default). Orientation detection runs only when that reading does
//! not look upright (see [`looks_upright`]): a second, small engine with the `osd` data says
//! how the page is turned, and the page is read again turned upright. Before 2026-11-25 every
//! page went through PSM 1 (orientation and script detection on every page, +0.2 s) and the
//! PDF plugin then read pages with a low confidence three more times at 180/90/270 degrees.

use crate::capi::{self, Engine, PSM_AUTO, PSM_OSD_ONLY};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// What identifies an engine: data directory, `+`-joined languages, and page segmentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineKey {
    pub datapath: PathBuf,
    pub languages: String,
    /// Whether `osd.traineddata` is installed: pages that do not read as upright text are
    /// then checked for a 90/180/270-degree turn and read again upright.
    pub osd: bool,
}

/// This thread's engines: the reading engine and, once a page needed it, the orientation one.
struct Engines {
    key: EngineKey,
    read: Engine,
    osd: Option<Engine>,
}

thread_local! {
    static ENGINES: RefCell<Option<Engines>> = const { RefCell::new(None) };
}

/// `omp_set_num_threads(1)` and `omp_set_dynamic(1)` for the calling thread, when
/// libtesseract brought an OpenMP runtime.
fn limit_openmp_here(api: &capi::Api) {
    if let Some(set) = api.openmp_function(c"omp_set_num_threads") {
        set(1);
    }
    // omp_set_dynamic(1) lets the runtime give a parallel region fewer threads than its
    // num_threads clause asks for.
    if let Some(set) = api.openmp_function(c"omp_set_dynamic") {
        set(1);
    }
}

/// Pixels handed to Tesseract: 8-bit gray, one byte per pixel, rows packed.
pub struct GrayPage<'a> {
    pub pixels: &'a [u8],
    pub width: u32,
    pub height: u32,
    pub dpi: Option<u32>,
}

/// Text and mean confidence (0..=100) of one page.
pub struct Recognized {
    pub text: String,
    pub confidence: i32,
}

/// A reading at or above this mean confidence (0..=100) is taken as upright without looking
/// at its words. Upside-down and sideways readings measured 0-40 on the generated pages;
/// upright noisy scans 55-90.
const UPRIGHT_CONFIDENCE: i32 = 70;
/// Orientation detection must be at least this sure (Tesseract's OSD confidence, roughly a
/// log-likelihood margin) before a page is turned.
const MIN_OSD_CONFIDENCE: f32 = 1.0;

/// Recognises a page with this thread's engine (created on first use), turning it upright
/// first when it does not read as upright text.
pub fn recognize(key: &EngineKey, page: &GrayPage<'_>) -> Result<Recognized, String> {
    let api = capi::api()?;
    ENGINES.with(|slot| {
        let mut slot = slot.borrow_mut();
        let mut engines = match slot.take() {
            Some(e) if &e.key == key => e,
            _ => Engines {
                key: key.clone(),
                read: create(api, key)?,
                osd: None,
            },
        };
        // On an error the engines are dropped and the next call creates fresh ones.
        let first = read(&mut engines.read, page)?;
        let mut best = first;
        if key.osd && !looks_upright(&best) {
            if engines.osd.is_none() {
                engines.osd = Some(create_osd(api, key)?);
            }
            let osd = engines.osd.as_mut().expect("just created");
            osd.set_gray_image(page.pixels, page.width, page.height)?;
            if let Some(dpi) = page.dpi.filter(|d| (70..=2400).contains(d)) {
                osd.set_source_resolution(dpi);
            }
            let found = osd.detect_orientation();
            osd.clear();
            if let Some(o) =
                found.filter(|o| o.degrees % 360 != 0 && o.confidence >= MIN_OSD_CONFIDENCE)
            {
                // OSD gives the text's angle counter-clockwise; the page turns back clockwise.
                let (pixels, width, height) = turn(page, 360 - o.degrees.rem_euclid(360));
                let turned = GrayPage {
                    pixels: &pixels,
                    width,
                    height,
                    dpi: page.dpi,
                };
                let again = read(&mut engines.read, &turned)?;
                if again.confidence > best.confidence {
                    best = again;
                }
            }
        }
        engines.read.clear();
        *slot = Some(engines);
        Ok(best)
    })
}

fn read(engine: &mut Engine, page: &GrayPage<'_>) -> Result<Recognized, String> {
    engine
        .set_gray_image(page.pixels, page.width, page.height)
        .map_err(|e| format!("set image: {e}"))?;
    if let Some(dpi) = page.dpi.filter(|d| (70..=2400).contains(d)) {
        engine.set_source_resolution(dpi);
    }
    engine.recognize().map_err(|e| format!("recognise: {e}"))?;
    let text = engine.text().map_err(|e| format!("get text: {e}"))?;
    let confidence = engine.mean_text_conf();
    Ok(Recognized { text, confidence })
}

/// The cheap test: a reading is upright when Tesseract is confident, or when enough of its
/// words are common short words of the languages it reads (an upside-down page reads as
/// consonant soup with almost none).
pub fn looks_upright(r: &Recognized) -> bool {
    if r.confidence >= UPRIGHT_CONFIDENCE {
        return true;
    }
    let (words, common) = quire_plugin_api::text::common_words(&r.text);
    if words < 8 {
        // Too little text to judge by words: only a fair confidence counts.
        return r.confidence >= UPRIGHT_CONFIDENCE / 2 && words > 0;
    }
    common * 10 >= words
}

/// The page turned clockwise by `degrees` (a multiple of 90).
fn turn(page: &GrayPage<'_>, degrees: i32) -> (Vec<u8>, u32, u32) {
    let (w, h) = (page.width as usize, page.height as usize);
    let src = page.pixels;
    match degrees.rem_euclid(360) {
        90 => {
            // out is h wide, w high: out(x, y) = src(y, h - 1 - x)
            let mut out = vec![0u8; w * h];
            for y in 0..w {
                for x in 0..h {
                    out[y * h + x] = src[(h - 1 - x) * w + y];
                }
            }
            (out, h as u32, w as u32)
        }
        180 => {
            let mut out = src.to_vec();
            out.reverse();
            (out, w as u32, h as u32)
        }
        270 => {
            // out(x, y) = src(w - 1 - y, x)
            let mut out = vec![0u8; w * h];
            for y in 0..w {
                for x in 0..h {
                    out[y * h + x] = src[x * w + (w - 1 - y)];
                }
            }
            (out, h as u32, w as u32)
        }
        _ => (src.to_vec(), w as u32, h as u32),
    }
}

fn create(api: &'static capi::Api, key: &EngineKey) -> Result<Engine, String> {
    limit_openmp_here(api);
    let datapath = path_str(&key.datapath)?;
    let mut engine = Engine::new(api, datapath, &key.languages)?;
    // Tesseract's progress chatter ("Estimating resolution as ...") goes nowhere.
    engine.set_variable("debug_file", "/dev/null");
    // Sauvola local thresholding (Tesseract 5): uneven paper and speckle on scans otherwise
    // split lines into false columns (CER 66% -> 3% on the generated noisy scan). Older
    // versions do not know the variable; they keep their global Otsu.
    engine.set_variable("thresholding_method", "2");
    engine.set_page_seg_mode(PSM_AUTO);
    Ok(engine)
}

fn create_osd(api: &'static capi::Api, key: &EngineKey) -> Result<Engine, String> {
    let datapath = path_str(&key.datapath)?;
    let mut engine = Engine::new(api, datapath, "osd")?;
    engine.set_variable("debug_file", "/dev/null");
    engine.set_variable("thresholding_method", "2");
    engine.set_page_seg_mode(PSM_OSD_ONLY);
    Ok(engine)
}

fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| "the language data path is not UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_move_pixels_clockwise() {
        // 3 x 2:  a b c / d e f
        let src = [1u8, 2, 3, 4, 5, 6];
        let page = GrayPage {
            pixels: &src,
            width: 3,
            height: 2,
            dpi: None,
        };
        // Clockwise: d a / e b / f c
        assert_eq!(turn(&page, 90), (vec![4, 1, 5, 2, 6, 3], 2, 3));
        assert_eq!(turn(&page, 180), (vec![6, 5, 4, 3, 2, 1], 3, 2));
        // Counter-clockwise: c f / b e / a d
        assert_eq!(turn(&page, 270), (vec![3, 6, 2, 5, 1, 4], 2, 3));
    }

    #[test]
    fn upright_test_uses_confidence_then_words() {
        let r = |text: &str, confidence| Recognized {
            text: text.into(),
            confidence,
        };
        assert!(looks_upright(&r("anything", 85)));
        assert!(looks_upright(&r(
            "The committee reviewed the budget and agreed to fund the library",
            50
        )));
        assert!(!looks_upright(&r(
            "eseyoed peulejuod jjas Asea ue Ul UMOpyJePW PU NOSTL 0} UOISJOAUOD JUBSLUNDOP",
            50
        )));
        assert!(!looks_upright(&r("", 0)));
    }
}
