//! Binding to the PDFium shared library, and the one lock every use of it goes through.
//!
//! PDFium is a C++ library with process-wide state and no thread safety. We load
//! `libpdfium.so` at run time (never at start-up: a missing library fails the PDF job that
//! needs it with a clear message, not the whole service) and keep the single `Pdfium` handle
//! behind a global mutex that a conversion holds from opening the document to dropping it.
//! `pdfium-render`'s own `thread_safe` feature additionally serialises each FFI call; the
//! host runs conversions in child processes anyway, so the lock is rarely contended.

use pdfium_render::prelude::*;
use quire_plugin_api::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The bound library, or why binding failed (kept so every later job fails the same way fast).
static PDFIUM: OnceLock<std::result::Result<Mutex<Pdfium>, String>> = OnceLock::new();

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
pub fn lock(library: &Path) -> Result<MutexGuard<'static, Pdfium>> {
    let bound = PDFIUM.get_or_init(|| {
        Pdfium::bind_to_library(library)
            .map(|bindings| Mutex::new(Pdfium::new(bindings)))
            .map_err(|e| format!("{}: {e:?}", library.display()))
    });
    match bound {
        // A conversion that panicked while holding the lock leaves PDFium usable: every
        // document it opened has been dropped during unwinding.
        Ok(m) => Ok(m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())),
        Err(detail) => Err(Error::internal(
            "The PDF engine (PDFium) is not installed: run scripts/setup.sh",
        )
        .with_detail(detail)),
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
