//! RTF tokens from raw bytes.
//!
//! RTF is a 7-bit format of groups (`{`…`}`), control words (`\b0`, `\u8212`), control
//! symbols (`\~`, `\'e9`) and text. The lexer never fails: anything unexpected is text or is
//! dropped, numbers saturate, and `\binN` hands out raw bytes on request. Skipping a whole
//! group (an ignored destination such as `\*\themedata`) is done here byte-wise, which is far
//! faster than tokenizing megabytes of hex we would throw away.

/// One token. Text borrows from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    GroupStart,
    GroupEnd,
    /// A control word with its optional numeric parameter.
    Word(&'a [u8], Option<i32>),
    /// A control symbol such as `\~` or `\*` (not `\'hh`, which is [`Token::Hex`]).
    Symbol(u8),
    /// A byte given as `\'hh`.
    Hex(u8),
    /// A run of literal text bytes (line breaks removed by the caller's rules: we drop them).
    Text(&'a [u8]),
}

pub struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

/// Control words are at most 32 letters (spec); longer runs are cut there.
const MAX_WORD: usize = 32;

impl<'a> Lexer<'a> {
    pub fn new(s: &'a [u8]) -> Self {
        Lexer { s, pos: 0 }
    }

    pub fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            let &b = self.s.get(self.pos)?;
            match b {
                b'{' => {
                    self.pos += 1;
                    return Some(Token::GroupStart);
                }
                b'}' => {
                    self.pos += 1;
                    return Some(Token::GroupEnd);
                }
                b'\\' => return Some(self.control()),
                b'\r' | b'\n' | 0 => {
                    self.pos += 1;
                    continue;
                }
                _ => {
                    let start = self.pos;
                    while let Some(&c) = self.s.get(self.pos) {
                        if matches!(c, b'{' | b'}' | b'\\' | b'\r' | b'\n' | 0) {
                            break;
                        }
                        self.pos += 1;
                    }
                    return Some(Token::Text(&self.s[start..self.pos]));
                }
            }
        }
    }

    fn control(&mut self) -> Token<'a> {
        self.pos += 1; // the backslash
        let Some(&c) = self.s.get(self.pos) else {
            return Token::Text(b"");
        };
        if c.is_ascii_alphabetic() {
            let start = self.pos;
            while self.pos - start < MAX_WORD
                && self.s.get(self.pos).is_some_and(u8::is_ascii_alphabetic)
            {
                self.pos += 1;
            }
            let word = &self.s[start..self.pos];
            let mut param = None;
            let negative = self.s.get(self.pos) == Some(&b'-')
                && self.s.get(self.pos + 1).is_some_and(u8::is_ascii_digit);
            if negative {
                self.pos += 1;
            }
            if self.s.get(self.pos).is_some_and(u8::is_ascii_digit) {
                let mut v: i64 = 0;
                while let Some(&d) = self.s.get(self.pos) {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    v = (v * 10 + i64::from(d - b'0')).min(i64::from(i32::MAX) + 1);
                    self.pos += 1;
                }
                let v = if negative { -v } else { v };
                param = Some(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32);
            }
            // One space after a control word is its delimiter, not text.
            if self.s.get(self.pos) == Some(&b' ') {
                self.pos += 1;
            }
            return Token::Word(word, param);
        }
        self.pos += 1;
        match c {
            b'\'' => {
                let hex = |b: u8| (b as char).to_digit(16);
                let hi = self.s.get(self.pos).and_then(|&b| hex(b));
                let lo = self.s.get(self.pos + 1).and_then(|&b| hex(b));
                match (hi, lo) {
                    (Some(h), Some(l)) => {
                        self.pos += 2;
                        Token::Hex((h * 16 + l) as u8)
                    }
                    _ => Token::Text(b""),
                }
            }
            // A backslash before a line break is a paragraph mark.
            b'\r' | b'\n' => Token::Word(b"par", None),
            _ => Token::Symbol(c),
        }
    }

    /// Takes `n` raw bytes (after `\binN`), fewer if the input ends.
    /// Whether nothing but text is left: no group and no control word follows.
    pub fn only_text_left(&self) -> bool {
        self.s
            .get(self.pos..)
            .is_none_or(|rest| !rest.iter().any(|&b| b == b'{' || b == b'\\'))
    }

    pub fn take_binary(&mut self, n: usize) -> &'a [u8] {
        let end = self.pos.saturating_add(n).min(self.s.len());
        let out = &self.s[self.pos..end];
        self.pos = end;
        out
    }

    /// Skips to just after the `}` closing the current group (or to the end of input).
    pub fn skip_group(&mut self) {
        let mut depth = 1usize;
        while let Some(&b) = self.s.get(self.pos) {
            self.pos += 1;
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                b'\\' => {
                    if self.s[self.pos..].starts_with(b"bin") {
                        // \binN inside a skipped group: jump over the binary bytes too.
                        self.pos -= 1;
                        if let Token::Word(b"bin", Some(n)) = self.control() {
                            self.take_binary(usize::try_from(n).unwrap_or(0));
                        }
                    } else {
                        self.pos += 1; // whatever follows is escaped (\{, \}, \\)
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &[u8]) -> Vec<Token<'_>> {
        let mut l = Lexer::new(s);
        std::iter::from_fn(|| l.next_token()).collect()
    }

    #[test]
    fn tokens() {
        assert_eq!(
            all(b"{\\b0 x\\'e9\\u-10240 \\~\r\n\\par}"),
            vec![
                Token::GroupStart,
                Token::Word(b"b", Some(0)),
                Token::Text(b"x"),
                Token::Hex(0xe9),
                Token::Word(b"u", Some(-10240)),
                Token::Symbol(b'~'),
                Token::Word(b"par", None),
                Token::GroupEnd
            ]
        );
    }

    #[test]
    fn hostile_input_is_harmless() {
        assert_eq!(
            all(b"\\fs99999999999999999"),
            vec![Token::Word(b"fs", Some(i32::MAX))]
        );
        assert_eq!(all(b"\\"), vec![Token::Text(b"")]);
        assert_eq!(all(b"\\'z"), vec![Token::Text(b""), Token::Text(b"z")]);
        let mut l = Lexer::new(b"a{b\\}{\\bin2 }}}c}d");
        l.next_token();
        l.next_token();
        l.skip_group();
        assert_eq!(l.next_token(), Some(Token::Text(b"d")));
        assert_eq!(Lexer::new(b"xy").take_binary(usize::MAX), b"xy");
    }
}
