//! The plugin registry: every converter and OCR provider linked into this binary.
//!
//! Deterministic by construction: descriptors are sorted by id, a duplicate id stops start-up
//! naming both crates, every plugin crate the build names must have registered something, a
//! lookup miss is answered with what is available, and a type or provider whose plugin was
//! compiled out of this build gets its own message.

use quire_plugin_api::{
    converter_descriptors, ocr_provider_descriptors, ConverterDescriptor, OcrProviderDescriptor,
    PluginConfig, Readiness,
};
use std::collections::BTreeMap;
use std::fmt;

/// The OCR provider ids of the interface, sorted by id: the order of every list that names them
/// (`quire plugins`, the start-up line, `/ready`'s map).
pub const OCR_PROVIDER_IDS: [&str; 3] = ["provider_one", "provider_three", "provider_two"];

/// The plugin crates this build links (one cfg-gated entry per feature), for the start-up check
/// that each registered something. Kept beside the `use` list in `lib.rs`.
pub const LINKED_PLUGIN_CRATES: &[&str] = &[
    #[cfg(feature = "docx")]
    "quire-plugin-docx",
    #[cfg(feature = "html")]
    "quire-plugin-html",
    #[cfg(feature = "image")]
    "quire-plugin-image",
    #[cfg(feature = "json")]
    "quire-plugin-json",
    #[cfg(feature = "markdown")]
    "quire-plugin-markdown",
    #[cfg(feature = "pdf")]
    "quire-plugin-pdf",
    #[cfg(feature = "pptx")]
    "quire-plugin-pptx",
    #[cfg(feature = "rtf")]
    "quire-plugin-rtf",
    #[cfg(feature = "spreadsheet")]
    "quire-plugin-spreadsheet",
    #[cfg(feature = "text")]
    "quire-plugin-text",
    #[cfg(feature = "xml")]
    "quire-plugin-xml",
    #[cfg(feature = "ocr-ppocr")]
    "quire-ocr-ppocr",
    #[cfg(feature = "ocr-tesseract")]
    "quire-ocr-tesseract",
    #[cfg(feature = "ocr-vision")]
    "quire-ocr-vision",
];

/// Which plugin feature serves each MIME type, so a miss can say "compiled out".
const MIME_FEATURES: &[(&str, &str)] = &[
    ("application/pdf", "pdf"),
    (crate::detect::mime::DOCX, "docx"),
    (crate::detect::mime::PPTX, "pptx"),
    (crate::detect::mime::PPTM, "pptx"),
    (crate::detect::mime::POTX, "pptx"),
    (crate::detect::mime::POTM, "pptx"),
    (crate::detect::mime::XLSX, "spreadsheet"),
    (crate::detect::mime::XLSM, "spreadsheet"),
    (crate::detect::mime::XLSB, "spreadsheet"),
    (crate::detect::mime::XLS, "spreadsheet"),
    (crate::detect::mime::ODS, "spreadsheet"),
    ("text/csv", "spreadsheet"),
    ("text/plain", "text"),
    ("text/markdown", "markdown"),
    ("text/html", "html"),
    ("application/xml", "xml"),
    ("application/json", "json"),
    ("application/rtf", "rtf"),
    ("image/png", "image"),
    ("image/jpeg", "image"),
    ("image/gif", "image"),
    ("image/bmp", "image"),
    ("image/webp", "image"),
    ("image/tiff", "image"),
];

const OCR_FEATURES: &[(&str, &str)] = &[
    ("provider_one", "ocr-tesseract"),
    ("provider_two", "ocr-ppocr"),
    ("provider_three", "ocr-vision"),
];

/// Why the registry could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    DuplicateConverter {
        id: &'static str,
        first: &'static str,
        second: &'static str,
    },
    DuplicateMime {
        mime: &'static str,
        first: &'static str,
        second: &'static str,
    },
    DuplicateProvider {
        id: &'static str,
        first: &'static str,
        second: &'static str,
    },
    UnknownProviderId {
        id: &'static str,
        krate: &'static str,
    },
    RegisteredNothing {
        krate: &'static str,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::DuplicateConverter { id, first, second } => write!(
                f,
                "converter id `{id}` is registered twice, by crates `{first}` and `{second}`"
            ),
            RegistryError::DuplicateMime {
                mime,
                first,
                second,
            } => write!(
                f,
                "MIME type `{mime}` is claimed by two converters, `{first}` and `{second}`"
            ),
            RegistryError::DuplicateProvider { id, first, second } => write!(
                f,
                "OCR provider id `{id}` is registered twice, by crates `{first}` and `{second}`"
            ),
            RegistryError::UnknownProviderId { id, krate } => write!(
                f,
                "crate `{krate}` registers OCR provider `{id}`, which is not one of {}",
                OCR_PROVIDER_IDS.join(", ")
            ),
            RegistryError::RegisteredNothing { krate } => write!(
                f,
                "plugin crate `{krate}` is linked into this build but registered nothing"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// A failed lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupError {
    /// A known type whose plugin is not in this build.
    CompiledOut { what: String, feature: &'static str },
    /// Nothing handles it; `available` lists what does.
    Unknown {
        what: String,
        available: Vec<String>,
    },
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::CompiledOut { what, feature } => write!(
                f,
                "{what} is supported by quire but its plugin (feature `{feature}`) is not built into this binary"
            ),
            LookupError::Unknown { what, available } => {
                write!(f, "{what} is not available; available: {}", available.join(", "))
            }
        }
    }
}

impl std::error::Error for LookupError {}

/// The sorted, checked set of plugins in this binary.
#[derive(Debug, Clone)]
pub struct Registry {
    converters: Vec<&'static ConverterDescriptor>,
    by_mime: BTreeMap<&'static str, &'static ConverterDescriptor>,
    providers: Vec<&'static OcrProviderDescriptor>,
}

impl Registry {
    /// Collects and checks every descriptor registered through `inventory`.
    pub fn from_inventory() -> Result<Registry, RegistryError> {
        Registry::build(
            converter_descriptors().collect(),
            ocr_provider_descriptors().collect(),
            LINKED_PLUGIN_CRATES,
        )
    }

    /// Builds a registry from explicit descriptors (tests use this to check the rules).
    pub fn build(
        mut converters: Vec<&'static ConverterDescriptor>,
        mut providers: Vec<&'static OcrProviderDescriptor>,
        linked_crates: &[&'static str],
    ) -> Result<Registry, RegistryError> {
        converters.sort_by(|a, b| a.id.cmp(b.id).then(a.crate_name.cmp(b.crate_name)));
        for pair in converters.windows(2) {
            if pair[0].id == pair[1].id {
                return Err(RegistryError::DuplicateConverter {
                    id: pair[0].id,
                    first: pair[0].crate_name,
                    second: pair[1].crate_name,
                });
            }
        }
        let mut by_mime = BTreeMap::new();
        for d in &converters {
            for mime in d.mime_types {
                if let Some(prev) = by_mime.insert(*mime, *d) {
                    return Err(RegistryError::DuplicateMime {
                        mime,
                        first: prev.crate_name,
                        second: d.crate_name,
                    });
                }
            }
        }
        providers.sort_by(|a, b| a.id.cmp(b.id).then(a.crate_name.cmp(b.crate_name)));
        for pair in providers.windows(2) {
            if pair[0].id == pair[1].id {
                return Err(RegistryError::DuplicateProvider {
                    id: pair[0].id,
                    first: pair[0].crate_name,
                    second: pair[1].crate_name,
                });
            }
        }
        if let Some(p) = providers.iter().find(|p| !OCR_PROVIDER_IDS.contains(&p.id)) {
            return Err(RegistryError::UnknownProviderId {
                id: p.id,
                krate: p.crate_name,
            });
        }
        for krate in linked_crates {
            let registered = converters.iter().any(|d| d.crate_name == *krate)
                || providers.iter().any(|p| p.crate_name == *krate);
            if !registered {
                return Err(RegistryError::RegisteredNothing { krate });
            }
        }
        Ok(Registry {
            converters,
            by_mime,
            providers,
        })
    }

    /// Converters sorted by id.
    pub fn converters(&self) -> &[&'static ConverterDescriptor] {
        &self.converters
    }

    /// OCR providers sorted by id.
    pub fn ocr_providers(&self) -> &[&'static OcrProviderDescriptor] {
        &self.providers
    }

    /// The converter for a detected MIME type.
    pub fn converter_for(&self, mime: &str) -> Result<&'static ConverterDescriptor, LookupError> {
        if let Some(d) = self.by_mime.get(mime) {
            return Ok(d);
        }
        if let Some((_, feature)) = MIME_FEATURES.iter().find(|(m, _)| *m == mime) {
            return Err(LookupError::CompiledOut {
                what: format!("The file type {mime}"),
                feature,
            });
        }
        Err(LookupError::Unknown {
            what: format!("The file type {mime}"),
            available: self.supported_extensions(),
        })
    }

    /// The OCR provider with this id.
    pub fn ocr_provider(&self, id: &str) -> Result<&'static OcrProviderDescriptor, LookupError> {
        if let Some(p) = self.providers.iter().find(|p| p.id == id) {
            return Ok(p);
        }
        if let Some((_, feature)) = OCR_FEATURES.iter().find(|(p, _)| *p == id) {
            return Err(LookupError::CompiledOut {
                what: format!("OCR provider {id}"),
                feature,
            });
        }
        Err(LookupError::Unknown {
            what: format!("OCR provider {id}"),
            available: self.providers.iter().map(|p| p.id.to_owned()).collect(),
        })
    }

    /// Readiness of each of the three interface providers; a provider compiled out is not ready.
    pub fn ocr_readiness(&self, config: &PluginConfig) -> BTreeMap<String, Readiness> {
        OCR_PROVIDER_IDS
            .iter()
            .map(|id| {
                let state = match self.providers.iter().find(|p| p.id == *id) {
                    Some(p) => (p.readiness)(config),
                    None => Readiness::not_ready("not built into this binary"),
                };
                (id.to_string(), state)
            })
            .collect()
    }

    /// Readiness of every converter built into this binary: a converter is ready when its
    /// factory accepts the configuration (the PDF converter's checks that PDFium is there).
    pub fn converter_readiness(&self, config: &PluginConfig) -> BTreeMap<String, Readiness> {
        self.converters
            .iter()
            .map(|d| {
                let state = match (d.factory)(config) {
                    Ok(_) => Readiness::ready("ready"),
                    Err(e) => Readiness::not_ready(e.message()),
                };
                (d.id.to_string(), state)
            })
            .collect()
    }

    /// One line for the start-up log: which converters and OCR providers are ready, and why
    /// the others are not. The flag is true when a converter built into this binary is down.
    pub fn readiness_summary(
        &self,
        converters: &BTreeMap<String, Readiness>,
        ocr: &BTreeMap<String, Readiness>,
    ) -> (String, bool) {
        fn list(states: &BTreeMap<String, Readiness>, ready: bool) -> String {
            let items: Vec<String> = states
                .iter()
                .filter(|(_, r)| r.ready == ready)
                .map(|(id, r)| {
                    if ready {
                        id.clone()
                    } else {
                        format!("{id} ({})", r.detail)
                    }
                })
                .collect();
            if items.is_empty() {
                "none".into()
            } else {
                items.join(", ")
            }
        }
        let built_in: Vec<&str> = self.providers.iter().map(|p| p.id).collect();
        let ocr: BTreeMap<String, Readiness> = ocr
            .iter()
            .filter(|(id, _)| built_in.contains(&id.as_str()))
            .map(|(id, r)| (id.clone(), r.clone()))
            .collect();
        let down = converters.values().any(|r| !r.ready);
        let line = format!(
            "converters ready: {}; not ready: {}. OCR providers ready: {}; not ready: {}",
            list(converters, true),
            list(converters, false),
            list(&ocr, true),
            list(&ocr, false),
        );
        (line, down)
    }

    /// Whether a MIME type has a converter in this build.
    pub fn supports(&self, mime: &str) -> bool {
        self.by_mime.contains_key(mime)
    }

    /// Upper-case extensions this build converts, sorted ("CSV", "DOCX", ...).
    pub fn supported_extensions(&self) -> Vec<String> {
        let mut exts: Vec<String> = self
            .converters
            .iter()
            .flat_map(|d| d.extensions.iter().map(|e| e.to_ascii_uppercase()))
            .collect();
        exts.sort();
        exts.dedup();
        exts
    }

    /// The "Supported: ..." list used in 415 answers.
    pub fn supported_summary(&self) -> String {
        self.supported_extensions().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_plugin_api::{Converter, Error, Result};

    fn no_factory(_: &PluginConfig) -> Result<Box<dyn Converter>> {
        Err(Error::internal("test"))
    }

    static A: ConverterDescriptor = ConverterDescriptor {
        id: "a",
        name: "A",
        crate_name: "crate-a",
        mime_types: &["text/a"],
        extensions: &["a"],
        factory: no_factory,
    };
    static A2: ConverterDescriptor = ConverterDescriptor {
        id: "a",
        name: "A again",
        crate_name: "crate-a2",
        mime_types: &["text/a2"],
        extensions: &["a2"],
        factory: no_factory,
    };
    static B: ConverterDescriptor = ConverterDescriptor {
        id: "b",
        name: "B",
        crate_name: "crate-b",
        mime_types: &["text/a"],
        extensions: &["b"],
        factory: no_factory,
    };

    #[test]
    fn duplicate_ids_name_both_crates() {
        let err = Registry::build(vec![&A2, &A], vec![], &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "converter id `a` is registered twice, by crates `crate-a` and `crate-a2`"
        );
    }

    #[test]
    fn duplicate_mime_is_refused() {
        let err = Registry::build(vec![&B, &A], vec![], &[]).unwrap_err();
        assert!(matches!(
            err,
            RegistryError::DuplicateMime { mime: "text/a", .. }
        ));
    }

    #[test]
    fn linked_crate_that_registered_nothing_is_refused() {
        let err = Registry::build(vec![&A], vec![], &["crate-a", "crate-z"]).unwrap_err();
        assert_eq!(err, RegistryError::RegisteredNothing { krate: "crate-z" });
    }

    #[test]
    fn misses_say_compiled_out_or_list_what_exists() {
        let reg = Registry::build(vec![&A], vec![], &["crate-a"]).unwrap();
        assert!(reg.converter_for("text/a").is_ok());
        let err = reg.converter_for("application/pdf").unwrap_err();
        assert!(matches!(
            err,
            LookupError::CompiledOut { feature: "pdf", .. }
        ));
        assert!(err.to_string().contains("not built into this binary"));
        let err = reg.converter_for("video/mp4").unwrap_err();
        assert_eq!(
            err.to_string(),
            "The file type video/mp4 is not available; available: A"
        );
        let ready = reg.ocr_readiness(&PluginConfig::default());
        assert_eq!(ready.len(), 3);
        assert!(ready.values().all(|r| !r.ready));
    }

    #[test]
    fn the_real_registry_is_consistent() {
        let reg = Registry::from_inventory().expect("registry builds");
        let ids: Vec<_> = reg.converters().iter().map(|d| d.id).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
