//! libtesseract's C API, loaded with `dlopen` the first time OCR needs it.
//!
//! Why not link it: libtesseract pulls in about 57 shared libraries (libcurl, libarchive, GnuTLS,
//! Kerberos, libgomp, ...). Linked into the binary, the dynamic loader maps and relocates all of
//! them at every start of every `quire` process, OCR or not: `quire convert tiny.txt` spent
//! most of its time there (see ARCHITECTURE.md, 2026-11-25). Loaded here, only a process
//! that reads an image with provider_one pays for it, once.
//!
//! The functions used are the stable C API of `tesseract/capi.h` (the same signatures in
//! Tesseract 4 and 5). The library is looked up by its Debian soname first. A missing library
//! is an ordinary "not ready" reason naming the package, not a start-up failure.

use std::ffi::{c_char, c_float, c_int, c_uchar, c_void, CStr, CString};
use std::sync::OnceLock;

/// Shared-object names tried in order: Debian 12's soname, older sonames, the development link.
const LIBRARY_NAMES: &[&CStr] = &[
    c"libtesseract.so.5",
    c"libtesseract.so.4",
    c"libtesseract.so",
];

/// Page segmentation modes used here (`TessPageSegMode`).
pub const PSM_AUTO: c_int = 3;
pub const PSM_OSD_ONLY: c_int = 0;

type Handle = *mut c_void;

type FnVersion = unsafe extern "C" fn() -> *const c_char;
type FnDeleteText = unsafe extern "C" fn(*const c_char);
type FnCreate = unsafe extern "C" fn() -> Handle;
type FnHandle = unsafe extern "C" fn(Handle);
type FnInit3 = unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int;
type FnSetVariable = unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int;
type FnHandleInt = unsafe extern "C" fn(Handle, c_int);
type FnSetImage = unsafe extern "C" fn(Handle, *const c_uchar, c_int, c_int, c_int, c_int);
type FnRecognize = unsafe extern "C" fn(Handle, *mut c_void) -> c_int;
type FnGetText = unsafe extern "C" fn(Handle) -> *mut c_char;
type FnHandleToInt = unsafe extern "C" fn(Handle) -> c_int;
type FnDetectOs = unsafe extern "C" fn(
    Handle,
    *mut c_int,
    *mut c_float,
    *mut *const c_char,
    *mut c_float,
) -> c_int;

/// The resolved entry points. Every pointer comes from `dlsym` on a library that is never
/// closed, so they stay valid for the life of the process.
pub struct Api {
    version: FnVersion,
    delete_text: FnDeleteText,
    create: FnCreate,
    delete: FnHandle,
    init3: FnInit3,
    set_variable: FnSetVariable,
    set_page_seg_mode: FnHandleInt,
    set_image: FnSetImage,
    set_source_resolution: FnHandleInt,
    recognize: FnRecognize,
    get_utf8_text: FnGetText,
    mean_text_conf: FnHandleToInt,
    detect_orientation_script: FnDetectOs,
    clear: FnHandle,
    /// The library's handle, for looking up OpenMP's entry points among its dependencies.
    lib: usize,
}

static API: OnceLock<Result<Api, String>> = OnceLock::new();

/// The loaded API, loading the library on the first call; the reason when it cannot be loaded
/// (remembered: installing the library later needs a restart, as for any shared library).
pub fn api() -> Result<&'static Api, String> {
    API.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Api, String> {
    let mut last_error = String::new();
    for name in LIBRARY_NAMES {
        // SAFETY: a NUL-terminated name; the library's constructors run here, once, and the
        // handle is never closed.
        let lib = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if lib.is_null() {
            last_error = dl_error();
            continue;
        }
        return resolve(lib).map_err(|missing| {
            format!(
                "{} has no function {missing}; it is not a Tesseract 4 or 5 library",
                name.to_string_lossy()
            )
        });
    }
    Err(format!(
        "libtesseract is not installed (apt-get install libtesseract5): {last_error}"
    ))
}

fn dl_error() -> String {
    // SAFETY: dlerror returns a thread-local NUL-terminated message or NULL.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        String::new()
    } else {
        // SAFETY: non-null, NUL-terminated, valid until the next dl* call on this thread.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// Looks a symbol up in the library and its dependencies.
fn symbol(lib: *mut c_void, name: &CStr) -> Option<*mut c_void> {
    // SAFETY: a live handle and a NUL-terminated name.
    let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

fn resolve(lib: *mut c_void) -> Result<Api, &'static str> {
    macro_rules! sym {
        ($name:literal, $ty:ty) => {{
            let p = symbol(lib, $name).ok_or_else(|| $name.to_str().unwrap_or("?"))?;
            // SAFETY: the symbol is the C function of this name from tesseract/capi.h, whose
            // signature is `$ty`.
            unsafe { std::mem::transmute::<*mut c_void, $ty>(p) }
        }};
    }
    Ok(Api {
        version: sym!(c"TessVersion", FnVersion),
        delete_text: sym!(c"TessDeleteText", FnDeleteText),
        create: sym!(c"TessBaseAPICreate", FnCreate),
        delete: sym!(c"TessBaseAPIDelete", FnHandle),
        init3: sym!(c"TessBaseAPIInit3", FnInit3),
        set_variable: sym!(c"TessBaseAPISetVariable", FnSetVariable),
        set_page_seg_mode: sym!(c"TessBaseAPISetPageSegMode", FnHandleInt),
        set_image: sym!(c"TessBaseAPISetImage", FnSetImage),
        set_source_resolution: sym!(c"TessBaseAPISetSourceResolution", FnHandleInt),
        recognize: sym!(c"TessBaseAPIRecognize", FnRecognize),
        get_utf8_text: sym!(c"TessBaseAPIGetUTF8Text", FnGetText),
        mean_text_conf: sym!(c"TessBaseAPIMeanTextConf", FnHandleToInt),
        detect_orientation_script: sym!(c"TessBaseAPIDetectOrientationScript", FnDetectOs),
        clear: sym!(c"TessBaseAPIClear", FnHandle),
        lib: lib as usize,
    })
}

impl Api {
    /// The library's version ("5.3.0").
    pub fn version(&self) -> String {
        // SAFETY: TessVersion returns a static NUL-terminated string.
        let v = unsafe { (self.version)() };
        if v.is_null() {
            return String::new();
        }
        // SAFETY: non-null static string.
        unsafe { CStr::from_ptr(v) }.to_string_lossy().into_owned()
    }

    /// An OpenMP runtime function of the library's dependencies, when it has one.
    pub fn openmp_function(&self, name: &CStr) -> Option<extern "C" fn(c_int)> {
        let p = symbol(self.lib as *mut c_void, name)?;
        // SAFETY: omp_set_num_threads and omp_set_dynamic take one int in every OpenMP runtime.
        Some(unsafe { std::mem::transmute::<*mut c_void, extern "C" fn(c_int)>(p) })
    }
}

/// One `TessBaseAPI`, deleted on drop. Not thread-safe: `Send`, not `Sync`.
pub struct Engine {
    api: &'static Api,
    handle: Handle,
}

// SAFETY: a TessBaseAPI may move between threads; it is only used through `&mut self`.
unsafe impl Send for Engine {}

/// Where the orientation detector puts the page's text: clockwise degrees the page must be
/// turned to read upright (0, 90, 180, 270) and its confidence.
#[derive(Debug, Clone, Copy)]
pub struct Orientation {
    pub degrees: i32,
    pub confidence: f32,
}

impl Engine {
    /// An engine for `languages` (`eng+deu`) with data from `datapath`.
    pub fn new(api: &'static Api, datapath: &str, languages: &str) -> Result<Engine, String> {
        let c_path = CString::new(datapath).map_err(|_| "NUL in the data path".to_owned())?;
        let c_lang = CString::new(languages).map_err(|_| "NUL in the languages".to_owned())?;
        // SAFETY: TessBaseAPICreate has no preconditions.
        let handle = unsafe { (api.create)() };
        if handle.is_null() {
            return Err("TessBaseAPICreate failed".into());
        }
        let engine = Engine { api, handle };
        // SAFETY: live handle, NUL-terminated strings.
        let rc = unsafe { (api.init3)(handle, c_path.as_ptr(), c_lang.as_ptr()) };
        if rc != 0 {
            return Err(format!("init {languages} failed"));
        }
        Ok(engine)
    }

    /// Sets a Tesseract variable; false when the library does not know it.
    pub fn set_variable(&mut self, name: &str, value: &str) -> bool {
        let (Ok(n), Ok(v)) = (CString::new(name), CString::new(value)) else {
            return false;
        };
        // SAFETY: live handle, NUL-terminated strings.
        unsafe { (self.api.set_variable)(self.handle, n.as_ptr(), v.as_ptr()) != 0 }
    }

    pub fn set_page_seg_mode(&mut self, mode: c_int) {
        // SAFETY: live handle; mode is a TessPageSegMode value.
        unsafe { (self.api.set_page_seg_mode)(self.handle, mode) }
    }

    /// Gives the engine an 8-bit gray image (`width * height` bytes). Tesseract copies it.
    pub fn set_gray_image(&mut self, pixels: &[u8], width: u32, height: u32) -> Result<(), String> {
        let w = c_int::try_from(width).map_err(|_| "image too wide".to_owned())?;
        let h = c_int::try_from(height).map_err(|_| "image too tall".to_owned())?;
        if pixels.len() as u64 != u64::from(width) * u64::from(height) {
            return Err("pixel buffer does not match the image size".into());
        }
        // SAFETY: the buffer holds width*height bytes, one byte per pixel, rows packed;
        // SetImage copies them into its own Pix.
        unsafe { (self.api.set_image)(self.handle, pixels.as_ptr(), w, h, 1, w) };
        Ok(())
    }

    pub fn set_source_resolution(&mut self, ppi: u32) {
        // SAFETY: live handle.
        unsafe { (self.api.set_source_resolution)(self.handle, ppi as c_int) }
    }

    /// Runs recognition on the current image.
    pub fn recognize(&mut self) -> Result<(), String> {
        // SAFETY: live handle with an image set; no progress monitor.
        let rc = unsafe { (self.api.recognize)(self.handle, std::ptr::null_mut()) };
        if rc == 0 {
            Ok(())
        } else {
            Err("recognition failed".into())
        }
    }

    /// The recognised text (recognises first when needed).
    pub fn text(&mut self) -> Result<String, String> {
        // SAFETY: live handle; the returned string is ours to free with TessDeleteText.
        let p = unsafe { (self.api.get_utf8_text)(self.handle) };
        if p.is_null() {
            return Err("no text".into());
        }
        // SAFETY: non-null NUL-terminated string from Tesseract.
        let text = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        // SAFETY: allocated by GetUTF8Text.
        unsafe { (self.api.delete_text)(p) };
        Ok(text)
    }

    /// Mean word confidence 0..=100 of the last recognition.
    pub fn mean_text_conf(&mut self) -> i32 {
        // SAFETY: live handle.
        unsafe { (self.api.mean_text_conf)(self.handle) }
    }

    /// Orientation of the current image (needs an engine initialised with `osd`).
    pub fn detect_orientation(&mut self) -> Option<Orientation> {
        let (mut deg, mut conf, mut script_conf) = (0 as c_int, 0 as c_float, 0 as c_float);
        let mut script: *const c_char = std::ptr::null();
        // SAFETY: live handle with an image set; out-pointers to locals. The script name
        // Tesseract 5 writes points into the OSD engine's character set (not a copy), so it
        // is not freed.
        let ok = unsafe {
            (self.api.detect_orientation_script)(
                self.handle,
                &mut deg,
                &mut conf,
                &mut script,
                &mut script_conf,
            )
        };
        (ok != 0).then_some(Orientation {
            degrees: deg,
            confidence: conf,
        })
    }

    /// Frees the image and results (the engine stays initialised).
    pub fn clear(&mut self) {
        // SAFETY: live handle.
        unsafe { (self.api.clear)(self.handle) }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: the handle was created by TessBaseAPICreate and is deleted once.
        unsafe { (self.api.delete)(self.handle) }
    }
}
