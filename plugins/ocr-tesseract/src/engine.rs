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

use std::cell::RefCell;
use std::ffi::c_int;
use std::path::{Path, PathBuf};
use tesseract::{PageSegMode, Tesseract};

/// What identifies an engine: data directory, `+`-joined languages, and page segmentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineKey {
    pub datapath: PathBuf,
    pub languages: String,
    /// Orientation and script detection (PSM 1) when `osd.traineddata` is installed: it turns
    /// pages rotated by 90°/180° upright; otherwise fully automatic segmentation (PSM 3).
    pub osd: bool,
}

thread_local! {
    static ENGINE: RefCell<Option<(EngineKey, Tesseract)>> = const { RefCell::new(None) };
}

/// `omp_set_num_threads(1)` and `omp_set_dynamic(1)` for the calling thread, when an OpenMP
/// runtime is loaded.
fn limit_openmp_here() {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol up.
    let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"omp_set_num_threads".as_ptr()) };
    if !symbol.is_null() {
        // SAFETY: omp_set_num_threads has this C signature in every OpenMP runtime.
        let set: extern "C" fn(c_int) = unsafe { std::mem::transmute(symbol) };
        set(1);
    }
    // SAFETY: as above; omp_set_dynamic(int) lets the runtime give a parallel region fewer
    // threads than its num_threads clause asks for.
    let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"omp_set_dynamic".as_ptr()) };
    if !symbol.is_null() {
        // SAFETY: omp_set_dynamic has this C signature in every OpenMP runtime.
        let set: extern "C" fn(c_int) = unsafe { std::mem::transmute(symbol) };
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

/// Recognises a page with this thread's engine (created on first use).
pub fn recognize(key: &EngineKey, page: &GrayPage<'_>) -> Result<Recognized, String> {
    ENGINE.with(|slot| {
        let mut slot = slot.borrow_mut();
        let engine = match slot.take() {
            Some((k, engine)) if &k == key => engine,
            _ => create(key)?,
        };
        let width = c_int::try_from(page.width).map_err(|_| "image too wide".to_owned())?;
        let height = c_int::try_from(page.height).map_err(|_| "image too tall".to_owned())?;
        // Each call below consumes the engine and gives it back; on an error it is dropped and
        // the next call creates a fresh one.
        let mut engine = engine
            .set_frame(page.pixels, width, height, 1, width)
            .map_err(|e| format!("set image: {e}"))?;
        if let Some(dpi) = page.dpi.filter(|d| (70..=2400).contains(d)) {
            engine = engine.set_source_resolution(dpi as c_int);
        }
        let mut engine = engine.recognize().map_err(|e| format!("recognise: {e}"))?;
        let text = engine.get_text().map_err(|e| format!("get text: {e}"))?;
        let confidence = engine.mean_text_conf();
        *slot = Some((key.clone(), engine));
        Ok(Recognized { text, confidence })
    })
}

fn create(key: &EngineKey) -> Result<Tesseract, String> {
    limit_openmp_here();
    let datapath = path_str(&key.datapath)?;
    let engine = Tesseract::new(Some(datapath), Some(&key.languages))
        .map_err(|e| format!("init {}: {e}", key.languages))?
        // Tesseract's progress chatter ("Estimating resolution as ...") goes nowhere.
        .set_variable("debug_file", "/dev/null")
        .map_err(|e| format!("set variable: {e}"))?;
    // Sauvola local thresholding (Tesseract 5): uneven paper and speckle on scans otherwise
    // split lines into false columns (CER 66% -> 3% on the generated noisy scan). Older
    // versions do not know the variable; they keep their global Otsu.
    let mut engine = match engine.set_variable("thresholding_method", "2") {
        Ok(engine) => engine,
        Err(_) => Tesseract::new(Some(datapath), Some(&key.languages))
            .map_err(|e| format!("init {}: {e}", key.languages))?,
    };
    engine.set_page_seg_mode(if key.osd {
        PageSegMode::PsmAutoOsd
    } else {
        PageSegMode::PsmAuto
    });
    Ok(engine)
}

fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| "the language data path is not UTF-8".to_owned())
}
