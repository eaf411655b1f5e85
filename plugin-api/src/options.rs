//! Per-job options a client may choose (issue 14): which pages to convert, a password for an
//! encrypted document, OCR on every page, and the OCR languages. Converters read them through
//! [`crate::Context::options`]; the defaults are the contract's behaviour.

use std::fmt;

/// Pages of a PDF or slides of a presentation, 1-based: `1-3,7`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRanges {
    /// Inclusive ranges, sorted and merged.
    ranges: Vec<(u32, u32)>,
}

impl PageRanges {
    /// Largest page number accepted (a range past it is refused, not silently clipped).
    pub const MAX_PAGE: u32 = 1_000_000;

    /// Parses `1-3,7`, `5-`, ` 2 , 4 - 6 `. Numbers start at 1; a range runs upwards; `5-`
    /// means page 5 to the end. At most 100 ranges.
    pub fn parse(text: &str) -> std::result::Result<PageRanges, String> {
        let mut ranges = Vec::new();
        let items: Vec<&str> = text.split(',').map(str::trim).collect();
        if items.len() > 100 {
            return Err("At most 100 page ranges can be given".into());
        }
        for item in items {
            if item.is_empty() {
                return Err("Expected page numbers and ranges like 1-3,7".into());
            }
            let number = |s: &str| -> std::result::Result<u32, String> {
                let s = s.trim();
                match s.parse::<u32>() {
                    Ok(n) if (1..=Self::MAX_PAGE).contains(&n) => Ok(n),
                    _ => Err(format!(
                        "'{s}' is not a page number (pages are numbered from 1)"
                    )),
                }
            };
            let (first, last) = match item.split_once('-') {
                None => {
                    let n = number(item)?;
                    (n, n)
                }
                Some((a, b)) if b.trim().is_empty() => (number(a)?, Self::MAX_PAGE),
                Some((a, b)) => (number(a)?, number(b)?),
            };
            if last < first {
                return Err(format!("The range {item} runs backwards"));
            }
            ranges.push((first, last));
        }
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some((_, end)) if a <= end.saturating_add(1) => *end = (*end).max(b),
                _ => merged.push((a, b)),
            }
        }
        Ok(PageRanges { ranges: merged })
    }

    /// Whether page `n` (1-based) is selected.
    pub fn contains(&self, n: u32) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= n && n <= b)
    }

    /// How many of pages `1..=total` are selected.
    pub fn count_within(&self, total: u32) -> u32 {
        self.ranges
            .iter()
            .filter(|(a, _)| *a <= total)
            .map(|&(a, b)| b.min(total) - a + 1)
            .sum()
    }
}

impl fmt::Display for PageRanges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(a, b)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match (a == b, b == Self::MAX_PAGE) {
                (true, _) => write!(f, "{a}")?,
                (false, true) => write!(f, "{a}-")?,
                (false, false) => write!(f, "{a}-{b}")?,
            }
        }
        Ok(())
    }
}

/// The options of one job. `Debug` never shows the password.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct JobOptions {
    /// Pages (PDF) or slides (presentations) to convert; `None`: all.
    pub pages: Option<PageRanges>,
    /// The password of an encrypted document (PDF, OOXML).
    pub password: Option<String>,
    /// OCR every page, even one with a text layer (which is then ignored); needs OCR on.
    pub force_ocr: bool,
    /// The job's OCR languages (`OCR_LANGUAGE` syntax); `None`: the server's setting.
    pub ocr_languages: Option<String>,
}

impl JobOptions {
    /// Whether page or slide `n` (1-based) is to be converted.
    pub fn wants_page(&self, n: u32) -> bool {
        self.pages.as_ref().is_none_or(|p| p.contains(n))
    }

    /// How many of `total` pages or slides are converted.
    pub fn page_count(&self, total: u32) -> u32 {
        self.pages.as_ref().map_or(total, |p| p.count_within(total))
    }

    /// The error for a selection that names none of the document's `total` pages or slides.
    pub fn no_selected_page(&self, total: u32, noun: &str) -> crate::Error {
        let range = self
            .pages
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let plural = if total == 1 { "" } else { "s" };
        crate::Error::unsupported(format!(
            "The document has {total} {noun}{plural}; none of the requested {noun}s ({range}) exists."
        ))
    }
}

impl fmt::Debug for JobOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobOptions")
            .field("pages", &self.pages.as_ref().map(ToString::to_string))
            .field("password", &self.password.as_ref().map(|_| "[redacted]"))
            .field("force_ocr", &self.force_ocr)
            .field("ocr_languages", &self.ocr_languages)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_merge_and_count() {
        let r = PageRanges::parse(" 7, 1-3 ,2-4").unwrap();
        assert_eq!(r.to_string(), "1-4,7");
        assert!(r.contains(4) && r.contains(7) && !r.contains(5));
        assert_eq!(r.count_within(6), 4);
        assert_eq!(r.count_within(100), 5);
        let open = PageRanges::parse("5-").unwrap();
        assert!(open.contains(900) && !open.contains(4));
        assert_eq!(open.count_within(7), 3);
        assert_eq!(open.to_string(), "5-");
    }

    #[test]
    fn bad_ranges_are_refused() {
        for bad in ["", "0", "3-1", "a", "1,,2", "-3", "1-2-3", "99999999"] {
            assert!(PageRanges::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn debug_hides_the_password() {
        let o = JobOptions {
            password: Some("hunter2".into()),
            ..Default::default()
        };
        assert!(!format!("{o:?}").contains("hunter2"));
    }
}
