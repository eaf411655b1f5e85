//! A small iterative JSON parser that keeps what `serde_json::Value` would lose.
//!
//! Why not `serde_json::from_slice`: its `Value` sorts object keys unless the workspace-wide
//! `preserve_order` feature is on, turns integers wider than 64 bits into lossy floats unless
//! `arbitrary_precision` is on, and recurses once per nesting level (128 levels by default).
//! Turning those features on from one plugin would silently change every other crate's
//! `serde_json` (features unify), so this parser keeps source key order, number text and
//! duplicate keys in its own [`Node`] tree, uses an explicit stack (no stack overflow at any
//! depth) and stops at a configurable depth. It follows RFC 8259 strictly, except that lone
//! UTF-16 surrogates in `\u` escapes become U+FFFD instead of failing the whole document.

use quire_plugin_api::{Error, Result};

/// A parsed JSON value with object members in source order and numbers as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// The number exactly as it appears in the source (already validated).
    Number(String),
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl Node {
    pub fn is_scalar(&self) -> bool {
        !matches!(self, Node::Array(_) | Node::Object(_))
    }
}

enum Frame {
    Array(Vec<Node>),
    Object(Vec<(String, Node)>, String),
}

/// How often (in values) the parser calls back so the host's deadline is honoured.
const CHECK_EVERY: u32 = 8192;

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

/// Parses `text`; containers nested deeper than `max_depth` fail with a limit error.
/// `check` is called every few thousand values (deadline/cancel).
pub fn parse(text: &str, max_depth: usize, check: &mut dyn FnMut() -> Result<()>) -> Result<Node> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut counter = 0u32;
    loop {
        counter += 1;
        if counter.is_multiple_of(CHECK_EVERY) {
            check()?;
        }
        // Parse one value, or open a container and go round for its first member.
        p.skip_ws();
        let mut value = match p.peek() {
            Some(b'{') | Some(b'[') => {
                if stack.len() >= max_depth {
                    return Err(Error::limit(format!(
                        "The JSON nests objects and arrays deeper than {max_depth} levels, the configured limit."
                    )));
                }
                let open = p.s[p.pos];
                p.pos += 1;
                p.skip_ws();
                if open == b'[' {
                    if p.eat(b']') {
                        Node::Array(Vec::new())
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        continue;
                    }
                } else if p.eat(b'}') {
                    Node::Object(Vec::new())
                } else {
                    let key = p.member_key()?;
                    stack.push(Frame::Object(Vec::new(), key));
                    continue;
                }
            }
            Some(_) => p.scalar()?,
            None => return Err(p.error("the document ends where a value was expected")),
        };
        // Attach the value to its container, closing containers as far as they end here.
        loop {
            match stack.last_mut() {
                None => {
                    p.skip_ws();
                    if p.pos < p.s.len() {
                        return Err(p.error("there is more text after the end of the JSON value"));
                    }
                    return Ok(value);
                }
                Some(Frame::Array(items)) => {
                    items.push(value);
                    p.skip_ws();
                    if p.eat(b',') {
                        break;
                    }
                    if !p.eat(b']') {
                        return Err(p.error("expected ',' or ']' in an array"));
                    }
                    let Some(Frame::Array(items)) = stack.pop() else {
                        unreachable!("top frame is an array")
                    };
                    value = Node::Array(items);
                }
                Some(Frame::Object(members, key)) => {
                    members.push((std::mem::take(key), value));
                    p.skip_ws();
                    if p.eat(b',') {
                        p.skip_ws();
                        *key = p.member_key()?;
                        break;
                    }
                    if !p.eat(b'}') {
                        return Err(p.error("expected ',' or '}' in an object"));
                    }
                    let Some(Frame::Object(members, _)) = stack.pop() else {
                        unreachable!("top frame is an object")
                    };
                    value = Node::Object(members);
                }
            }
        }
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> Error {
        let before = &self.s[..self.pos.min(self.s.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = before.len()
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        Error::malformed(format!(
            "The file is not valid JSON: {what} (line {line}, column {column})."
        ))
    }

    /// `"key"` then `:`, leaving the position before the member's value.
    fn member_key(&mut self) -> Result<String> {
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a member name in double quotes"));
        }
        let key = self.string()?;
        self.skip_ws();
        if !self.eat(b':') {
            return Err(self.error("expected ':' after a member name"));
        }
        Ok(key)
    }

    fn scalar(&mut self) -> Result<Node> {
        match self.peek() {
            Some(b'"') => Ok(Node::String(self.string()?)),
            Some(b't') => self.literal("true", Node::Bool(true)),
            Some(b'f') => self.literal("false", Node::Bool(false)),
            Some(b'n') => self.literal("null", Node::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error("unexpected character where a value was expected")),
        }
    }

    fn literal(&mut self, word: &str, node: Node) -> Result<Node> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(node)
        } else {
            Err(self.error("unknown word where a value was expected"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Node> {
        let start = self.pos;
        self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("a number needs digits")),
        }
        if self.eat(b'.') && self.digits() == 0 {
            return Err(self.error("a number needs digits after the decimal point"));
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if self.digits() == 0 {
                return Err(self.error("a number needs digits in its exponent"));
            }
        }
        Ok(Node::Number(self.text[start..self.pos].to_owned()))
    }

    fn hex4(&mut self) -> Result<u32> {
        let Some(hex) = self.s.get(self.pos..self.pos + 4) else {
            return Err(self.error("a \\u escape needs four hex digits"));
        };
        let mut v = 0u32;
        for &h in hex {
            let d = (h as char)
                .to_digit(16)
                .ok_or_else(|| self.error("a \\u escape needs four hex digits"))?;
            v = v * 16 + d;
        }
        self.pos += 4;
        Ok(v)
    }

    /// A string starting at the opening quote.
    fn string(&mut self) -> Result<String> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(&b) = self.s.get(self.pos) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // Only ASCII bytes stop the run, so both ends are char boundaries.
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.error("the document ends inside a string"));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => self.unicode_escape(&mut out)?,
                        _ => return Err(self.error("unknown escape sequence in a string")),
                    }
                }
                Some(_) => {
                    return Err(self.error("a control character must be escaped in a string"))
                }
                None => return Err(self.error("the document ends inside a string")),
            }
        }
    }

    fn unicode_escape(&mut self, out: &mut String) -> Result<()> {
        let first = self.hex4()?;
        let c = match first {
            0xD800..=0xDBFF => {
                if self.s[self.pos..].starts_with(b"\\u") {
                    let save = self.pos;
                    self.pos += 2;
                    let second = self.hex4()?;
                    if (0xDC00..=0xDFFF).contains(&second) {
                        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                    } else {
                        // Not a low surrogate: the first is unpaired; read the next escape again.
                        self.pos = save;
                        None
                    }
                } else {
                    None
                }
            }
            _ => char::from_u32(first),
        };
        out.push(c.unwrap_or('\u{FFFD}'));
        Ok(())
    }
}

/// Converts to `serde_json::Value`. Numbers go through `serde_json`'s own number parser, so they
/// are exact when the workspace enables `arbitrary_precision`; a number it cannot represent
/// (`1e400`) is kept as its source text in a string rather than dropped.
pub fn to_value(node: &Node) -> serde_json::Value {
    use serde_json::Value;
    match node {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(*b),
        Node::Number(text) => text
            .parse::<serde_json::Number>()
            .map(Value::Number)
            .unwrap_or_else(|_| Value::String(text.clone())),
        Node::String(s) => Value::String(s.clone()),
        Node::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        Node::Object(members) => {
            let mut map = serde_json::Map::new();
            for (k, v) in members {
                map.insert(k.clone(), to_value(v));
            }
            Value::Object(map)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Node> {
        parse(text, 512, &mut || Ok(()))
    }

    #[test]
    fn keeps_order_numbers_and_duplicates() {
        let n = p(r#"{"b": 1, "a": 123456789012345678901234567890, "b": -0.5e+3}"#).unwrap();
        assert_eq!(
            n,
            Node::Object(vec![
                ("b".into(), Node::Number("1".into())),
                (
                    "a".into(),
                    Node::Number("123456789012345678901234567890".into())
                ),
                ("b".into(), Node::Number("-0.5e+3".into())),
            ])
        );
    }

    #[test]
    fn strings_and_escapes() {
        let n = p(r#"["a\"b\\\/\n", "\uD801\udc37", "\ud800x", "\u00e9t\u00e9"]"#).unwrap();
        let Node::Array(items) = n else { panic!() };
        assert_eq!(items[0], Node::String("a\"b\\/\n".into()));
        assert_eq!(items[1], Node::String("𐐷".into()));
        assert_eq!(items[2], Node::String("\u{FFFD}x".into()));
        assert_eq!(items[3], Node::String("été".into()));
    }

    #[test]
    fn rejects_bad_json_with_positions() {
        for bad in [
            "",
            " ",
            "[1,]",
            "{\"a\" 1}",
            "[01]",
            "[1.]",
            "\"a\nb\"",
            "[1] x",
            "[",
            "{\"a\":1",
            "nul",
            "[-]",
            "{1:2}",
        ] {
            let e = p(bad).unwrap_err();
            assert_eq!(e.kind(), quire_plugin_api::ErrorKind::Malformed, "{bad:?}");
            assert!(e.message().contains("line"), "{}", e.message());
        }
    }

    #[test]
    fn deep_nesting_is_a_limit_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert_eq!(
            p(&deep).unwrap_err().kind(),
            quire_plugin_api::ErrorKind::LimitExceeded
        );
        let ok = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert!(p(&ok).is_ok());
    }

    #[test]
    fn converts_to_value() {
        let v = to_value(&p(r#"{"a":[1,2.5,true,null,"x"],"big":1e400}"#).unwrap());
        assert_eq!(v["a"], serde_json::json!([1, 2.5, true, null, "x"]));
        assert_eq!(v["big"], serde_json::json!("1e400"));
    }
}
