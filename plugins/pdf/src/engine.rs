//! Binding to the PDFium shared library, and the one lock every use of it goes through.
//!
//! PDFium is a C++ library with process-wide state and no thread safety. We load
//! `libpdfium.so` at run time (never at start-up: a missing library fails the PDF job that
//! needs it with a clear message, not the whole service) and keep the single `Pdfium` handle
//! behind a global mutex that a conversion holds from opening the document to dropping it.
//! `pdfium-render`'s `thread_safe` feature is off: it took a second, process-wide lock around
//! every FFI call (several per character of text), which this lock makes redundant. The host
//! runs conversions in child processes anyway, so the lock is rarely contended.

use pdfium_render::prelude::*;
use quire_plugin_api::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The bound library, or why binding failed (kept so every later job fails the same way fast).
static PDFIUM: OnceLock<std::result::Result<Mutex<Engine>, String>> = OnceLock::new();

/// The `Pdfium` handle, reachable only through [`lock`].
pub struct Engine(Pdfium);

// SAFETY: without `pdfium-render`'s `thread_safe` feature `Pdfium` is not `Send` (it holds
// raw pointers into PDFium). The only instance lives in `PDFIUM`'s mutex, so PDFium is used
// by one thread at a time, and every document and page made from it borrows the guard and
// is dropped before the lock is released.
unsafe impl Send for Engine {}

impl std::ops::Deref for Engine {
    type Target = Pdfium;

    fn deref(&self) -> &Pdfium {
        &self.0
    }
}

/// Where to look for `libpdfium.so`: `PDFIUM_LIB_PATH` (a file or a folder) wins, then
/// `<runtime_dir>/lib/libpdfium.so`.
pub fn library_path(runtime_dir: &Path) -> PathBuf {
    if let Some(p) = std::env::var_os("PDFIUM_LIB_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_dir() {
            Pdfium::pdfium_platform_library_name_at_path(&p)
        } else {
            p
        };
    }
    Pdfium::pdfium_platform_library_name_at_path(&runtime_dir.join("lib"))
}

/// Binds PDFium (once per process) and locks it for the caller's conversion.
pub fn lock(library: &Path) -> Result<MutexGuard<'static, Engine>> {
    let bound = PDFIUM.get_or_init(|| {
        keep_heap();
        Pdfium::bind_to_library(library)
            .map(|bindings| {
                init_with_own_fonts(&*bindings, library);
                Mutex::new(Engine(Pdfium::new(bindings)))
            })
            .map_err(|e| format!("{}: {e:?}", library.display()))
    });
    match bound {
        // A conversion that panicked while holding the lock leaves PDFium usable: every
        // document it opened has been dropped during unwinding.
        Ok(m) => Ok(m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())),
        Err(detail) => Err(Error::internal(
            "The PDF engine (PDFium) is not installed or cannot be loaded.",
        )
        .with_detail(detail)),
    }
}

/// Initialises PDFium with its font folders set to `fonts/` beside the library's folder (in
/// the runtime directory; absent unless an operator puts fonts there), before
/// `Pdfium::new` initialises it with defaults (a second initialisation does nothing).
///
/// By default PDFium maps a font a PDF names but does not embed to a system font, and on
/// the first such font scans every font file under `/usr/share/fonts` and the X11 folders:
/// 316 files and about 3,600 system calls on a Debian machine with Noto installed, a
/// quarter of a small PDF's conversion, in every conversion process. Its own built-in fonts
/// (the standard 14 and generic serif, sans and mono) then stand in for every font not
/// embedded, which gives the text what it needs (codes, widths and positions come from the
/// PDF) and makes the output independent of the fonts a machine happens to have.
fn init_with_own_fonts(bindings: &dyn PdfiumLibraryBindings, library: &Path) {
    let folder = library
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/nonexistent"))
        .join("fonts");
    let Ok(folder) = std::ffi::CString::new(folder.as_os_str().as_encoded_bytes()) else {
        return;
    };
    let mut paths: [*const std::os::raw::c_char; 2] = [folder.as_ptr(), std::ptr::null()];
    // SAFETY: an all-zero config is valid (null pointers, default renderer); version 2 reads
    // the font paths and the V8 fields (null: unused without XFA). PDFium copies the paths
    // during the call, while `folder` and `paths` are alive.
    unsafe {
        let mut config: FPDF_LIBRARY_CONFIG = std::mem::zeroed();
        config.version = 2;
        config.m_pUserFontPaths = paths.as_mut_ptr();
        bindings.FPDF_InitLibraryWithConfig(&config);
    }
}

/// Keeps freed memory in the process's heap instead of handing it back to the kernel.
///
/// PDFium builds a text page in vectors of a few hundred kilobytes that grow by doubling and
/// are freed with the page. With glibc's defaults each such block is mapped fresh (or the
/// heap's top trimmed) and every page of it faulted in again for the next PDF page: page
/// faults were about a quarter of a text-only conversion (122,000 on a 500-page document,
/// 16,000 with these settings). Blocks up to 4 MiB now come from the heap and up to 16 MiB
/// of free heap top is kept. Process-wide, set once when PDFium is first bound; the host
/// runs conversions in child processes, so this stays within the PDF job's process.
fn keep_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::raw::c_int;
        extern "C" {
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        // glibc's <malloc.h>.
        const M_TRIM_THRESHOLD: c_int = -1;
        const M_MMAP_THRESHOLD: c_int = -3;
        // SAFETY: mallopt only changes the allocator's thresholds; both values are in range.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 4 << 20);
            mallopt(M_TRIM_THRESHOLD, 16 << 20);
        }
    }
}

/// Whether PDFium can be bound from `library` (for readiness listings and tests).
pub fn available(library: &Path) -> bool {
    lock(library).is_ok()
}

/// Opens a document from memory: with no password first, then with the empty password
/// (some writers need it spelled out); a document that needs a real password fails as
/// encrypted, anything else that does not open as malformed.
pub fn open<'a>(pdfium: &'a Pdfium, bytes: &'a [u8]) -> Result<PdfDocument<'a>> {
    open_with(pdfium, bytes, None)
}

/// [`open`] with the job's password, when it gave one: the document is opened with it (an
/// unencrypted document opens whatever the password), and a wrong one fails as encrypted.
pub fn open_with<'a>(
    pdfium: &'a Pdfium,
    bytes: &'a [u8],
    password: Option<&str>,
) -> Result<PdfDocument<'a>> {
    if let Some(password) = password {
        return match pdfium.load_pdf_from_byte_slice(bytes, Some(password)) {
            Ok(doc) => Ok(doc),
            Err(e) if is_password_error(&e) => Err(Error::encrypted(
                "The password given does not open this PDF",
            )),
            Err(e) => Err(open_error(e)),
        };
    }
    let first = match pdfium.load_pdf_from_byte_slice(bytes, None) {
        Ok(doc) => return Ok(doc),
        Err(e) => e,
    };
    if is_password_error(&first) {
        return match pdfium.load_pdf_from_byte_slice(bytes, Some("")) {
            Ok(doc) => Ok(doc),
            Err(e) if is_password_error(&e) => Err(Error::encrypted(
                "The PDF is encrypted and no password was given",
            )),
            Err(e) => Err(open_error(e)),
        };
    }
    Err(open_error(first))
}

fn is_password_error(e: &PdfiumError) -> bool {
    matches!(
        e,
        PdfiumError::PdfiumLibraryInternalError(
            PdfiumInternalError::PasswordError | PdfiumInternalError::SecurityError
        )
    )
}

fn open_error(e: PdfiumError) -> Error {
    match e {
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::SecurityError) => {
            Error::encrypted("The PDF uses a security handler that is not supported")
                .with_detail(format!("{e:?}"))
        }
        _ => Error::malformed("The file is not a readable PDF: it is damaged or truncated")
            .with_detail(format!("{e:?}")),
    }
}
