//! Fonts whose characters cannot be trusted: no usable Unicode mapping.
//!
//! A font without a `ToUnicode` map whose glyph names PDFium does not know gives the character
//! *codes* as text. Two shapes are common. Codes below U+0020 (or in the private use area)
//! come out as control characters that read as nothing. Codes that are a fixed offset from
//! the letters (subset fonts numbering their glyphs in the font's own order, typically 29 below
//! ASCII) come out as well-formed but wrong letters: "The committee" reads "7KH FRPPLWWHH".
//!
//! Both are recognised per font on each page from the characters alone, without a
//! dictionary: the first by the share of control and private-use characters, the second when
//! the font's Latin letters (in either case) are distributed like no language while one fixed
//! shift of every code turns them into lower-case letters distributed like running text in a
//! European language. Nothing is
//! rewritten: a page whose text is mostly such characters is read by OCR when OCR is on, and
//! otherwise the document carries a warning.

/// Fewer characters than this in one font on one page are not judged.
const MIN_CHARS: u32 = 20;
/// Latin letters needed to judge a font by its vowels.
const MIN_LETTERS: u32 = 40;

/// The characters of one font on one page.
struct Sample {
    /// Counts of code points below 128.
    ascii: [u32; 128],
    /// Code points from 128 up that are ordinary characters.
    other: u32,
    /// Control characters, U+FFFD and private-use code points: codes with no character.
    unmapped: u32,
}

impl Default for Sample {
    fn default() -> Self {
        Sample {
            ascii: [0; 128],
            other: 0,
            unmapped: 0,
        }
    }
}

impl Sample {
    fn total(&self) -> u32 {
        self.ascii.iter().sum::<u32>() + self.other + self.unmapped
    }

    /// Whether the font's text is codes rather than characters.
    fn unusable(&self) -> bool {
        let total = self.total();
        if total < MIN_CHARS {
            return false;
        }
        if self.unmapped * 4 >= total {
            return true;
        }
        let letters: u32 = (b'A'..=b'Z')
            .chain(b'a'..=b'z')
            .map(|c| self.ascii[c as usize])
            .sum();
        if letters < MIN_LETTERS || letters * 2 < total {
            return false;
        }
        // Letters in either case, as written.
        let mut folded = [0u32; 26];
        for (i, n) in folded.iter_mut().enumerate() {
            *n = self.ascii[b'a' as usize + i] + self.ascii[b'A' as usize + i];
        }
        let as_written = likeness(&folded);
        if as_written >= 0.75 {
            return false;
        }
        // Every code moved by one shift: the lower-case letters it gives, when they are most
        // of the text.
        let ascii: u32 = self.ascii.iter().sum();
        let best = (-96i32..=96)
            .filter(|&s| s != 0)
            .filter_map(|shift| {
                let mut lower = [0u32; 26];
                for (code, &n) in self.ascii.iter().enumerate() {
                    if let Ok(c) = u8::try_from(code as i32 + shift) {
                        if c.is_ascii_lowercase() {
                            lower[usize::from(c - b'a')] += n;
                        }
                    }
                }
                let count: u32 = lower.iter().sum();
                (count * 5 >= ascii * 3).then(|| likeness(&lower))
            })
            .fold(0.0f32, f32::max);
        best >= 0.85 && best - as_written >= 0.2
    }
}

/// Letter frequencies of running text, per cent, averaged over English, French, German and
/// Spanish: close enough to any European language written in Latin letters.
const LETTER_FREQUENCY: [f32; 26] = [
    8.5, 1.4, 3.2, 4.0, 13.5, 1.3, 1.9, 3.5, 7.0, 0.4, 0.6, 4.6, 2.8, 7.8, 6.5, 2.4, 0.5, 6.8, 6.8,
    6.8, 4.3, 1.0, 0.9, 0.3, 0.8, 0.6,
];

/// How much a letter histogram looks like running text: the cosine of it and
/// [`LETTER_FREQUENCY`] (0.85-0.97 for prose, about 0.5 for letters in no language).
fn likeness(histogram: &[u32; 26]) -> f32 {
    let (mut dot, mut a, mut b) = (0.0f32, 0.0f32, 0.0f32);
    for (&n, &f) in histogram.iter().zip(&LETTER_FREQUENCY) {
        let n = n as f32;
        dot += n * f;
        a += n * n;
        b += f * f;
    }
    if a == 0.0 {
        return 0.0;
    }
    dot / (a.sqrt() * b.sqrt())
}

/// The characters of a page, by font.
#[derive(Default)]
pub struct MapCheck {
    fonts: Vec<(String, Sample)>,
    current: usize,
}

impl MapCheck {
    fn sample(&mut self, font: &str) -> &mut Sample {
        let found = match self.fonts.get(self.current) {
            Some((name, _)) if name == font => Some(self.current),
            _ => self.fonts.iter().position(|(name, _)| name == font),
        };
        self.current = found.unwrap_or_else(|| {
            self.fonts.push((font.to_owned(), Sample::default()));
            self.fonts.len() - 1
        });
        &mut self.fonts[self.current].1
    }

    /// Counts one visible character of `font`.
    pub fn add(&mut self, font: &str, c: char) {
        let sample = self.sample(font);
        let code = c as u32;
        if code < 128 && !c.is_control() {
            sample.ascii[code as usize] += 1;
        } else if c.is_control()
            || c == '\u{fffd}'
            || matches!(code, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
        {
            sample.unmapped += 1;
        } else {
            sample.other += 1;
        }
    }

    /// The share of the page's characters in fonts without a usable mapping, and those
    /// fonts' names.
    pub fn verdict(&self) -> (f32, Vec<&str>) {
        let total: u32 = self.fonts.iter().map(|(_, s)| s.total()).sum();
        let mut bad = 0;
        let mut names = Vec::new();
        for (name, sample) in &self.fonts {
            if sample.unusable() {
                bad += sample.total();
                names.push(name.as_str());
            }
        }
        if total == 0 {
            return (0.0, names);
        }
        (bad as f32 / total as f32, names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(font_text: &[(&str, &str)]) -> (f32, Vec<String>) {
        let mut check = MapCheck::default();
        for (font, text) in font_text {
            for c in text.chars().filter(|c| *c != ' ') {
                check.add(font, c);
            }
        }
        let (share, names) = check.verdict();
        (share, names.into_iter().map(str::to_owned).collect())
    }

    const PROSE: &str = "The committee reviewed the annual report and agreed that the figures \
                         for the second quarter should be published with the notes.";

    fn shifted(text: &str, by: u32) -> String {
        text.chars()
            .map(|c| {
                if c == ' ' {
                    ' '
                } else {
                    char::from_u32(c as u32 - by).unwrap()
                }
            })
            .collect()
    }

    #[test]
    fn ordinary_text_in_many_shapes_is_usable() {
        for text in [
            PROSE,
            &PROSE.to_uppercase(),
            "Der Ausschuss prüfte den Jahresbericht und stimmte zu, dass die Zahlen veröffentlicht werden.",
            "Komise přezkoumala výroční zprávu a souhlasila, že čísla za druhé čtvrtletí zveřejní.",
            "Комитет рассмотрел годовой отчёт и согласился опубликовать данные за второй квартал.",
            "委员会审查了年度报告并同意第二季度的数字应与方法说明一起发布委员会审查了年度报告",
            "fn main() { let xs = vec![1, 2, 3]; for x in xs.iter() { println!(\"{x}\"); } }",
            "0x1F 0x3C 0x4D 0xFF 0x2B 0x11 0x7A 0x9C 0xDE 0xAD 0xBE 0xEF 0x10 0x20 0x30 0x40",
            "SKU-7781 XR-200 BK-12 TRX-9 PLC-4410 DNS-88 HTTP-2 SMTP-25 NTP-123 SSH-22 FTP-21 \
             SKU-7782 XR-300 BK-14 TRX-7 PLC-4411 DNS-89 HTTP-3 SMTP-26 NTP-124 SSH-23 FTP-20",
        ] {
            let (share, names) = check(&[("F1", text)]);
            assert_eq!(share, 0.0, "{text}: {names:?}");
        }
    }

    #[test]
    fn codes_a_fixed_offset_from_the_letters_are_recognised() {
        // "7KH FRPPLWWHH": glyph numbers 29 below ASCII, as TrueType subsets number them.
        for by in [29, 28, 30, 31] {
            let (share, names) =
                check(&[("Body", &shifted(PROSE, by)), ("Title", "Annual Report")]);
            assert!(share > 0.8, "shift {by}: {share}");
            assert_eq!(names, ["Body"], "shift {by}");
        }
    }

    #[test]
    fn control_and_private_use_codes_are_recognised() {
        let controls: String = PROSE
            .chars()
            .map(|c| char::from_u32((c as u32) % 31 + 1).unwrap())
            .collect();
        let (share, _) = check(&[("F1", &controls)]);
        assert!(share > 0.9, "{share}");
        let private: String = PROSE
            .chars()
            .map(|c| char::from_u32(0xF000 + c as u32).unwrap())
            .collect();
        assert!(check(&[("F2", &private)]).0 > 0.9);
        // A few symbol-font bullets in the private use area are not a broken font.
        assert_eq!(
            check(&[("Symbol", "\u{f0b7}\u{f0b7}\u{f0b7}"), ("F1", PROSE)]).0,
            0.0
        );
    }
}
