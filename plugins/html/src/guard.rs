//! A token filter between html5ever's tokenizer and tree builder that bounds nesting.
//!
//! The tree builder's scope checks walk the stack of open elements, so input such as 100,000
//! nested `<div>`s costs quadratic time (20 s in release builds) long before the converter's
//! own depth limit applies. This filter keeps a cheap model of the open elements (tags that
//! need an explicit end tag) and, once it is `limit` deep, drops further start tags and their
//! matching end tags. Their text still reaches the tree, attached to the deepest kept element,
//! which is what a depth limit means. Raw-text elements (`script`, `style`, `textarea`, ...)
//! are never dropped, because their start tag switches the tokenizer's state.

use html5ever::tokenizer::{Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::LocalName;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

pub struct DepthGuard<S> {
    pub inner: S,
    limit: usize,
    open: RefCell<Vec<LocalName>>,
    dropped: RefCell<HashMap<LocalName, u32>>,
    pub cut: Cell<bool>,
}

impl<S> DepthGuard<S> {
    pub fn new(inner: S, limit: usize) -> Self {
        DepthGuard {
            inner,
            limit,
            open: RefCell::new(Vec::new()),
            dropped: RefCell::new(HashMap::new()),
            cut: Cell::new(false),
        }
    }

    /// Whether the token should be withheld from the tree builder.
    fn filter(&self, tag: &Tag) -> bool {
        let name = &*tag.name;
        if is_void(name) || has_optional_end(name) || is_raw_text(name) {
            return false;
        }
        match tag.kind {
            TagKind::StartTag => {
                let mut open = self.open.borrow_mut();
                if open.len() >= self.limit {
                    *self
                        .dropped
                        .borrow_mut()
                        .entry(tag.name.clone())
                        .or_insert(0) += 1;
                    self.cut.set(true);
                    return true;
                }
                open.push(tag.name.clone());
                false
            }
            TagKind::EndTag => {
                if let Some(n) = self.dropped.borrow_mut().get_mut(&tag.name) {
                    if *n > 0 {
                        *n -= 1;
                        return true;
                    }
                }
                let mut open = self.open.borrow_mut();
                if let Some(pos) = open.iter().rposition(|n| *n == tag.name) {
                    open.truncate(pos);
                }
                false
            }
        }
    }
}

impl<S: TokenSink> TokenSink for DepthGuard<S> {
    type Handle = S::Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<S::Handle> {
        if let Token::TagToken(tag) = &token {
            if self.filter(tag) {
                return TokenSinkResult::Continue;
            }
        }
        self.inner.process_token(token, line_number)
    }

    fn end(&self) {
        self.inner.end()
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "keygen"
            | "basefont"
            | "bgsound"
            | "frame"
    )
}

/// Elements the tree builder closes implicitly; they never nest on their own.
fn has_optional_end(name: &str) -> bool {
    matches!(
        name,
        "html"
            | "head"
            | "body"
            | "p"
            | "li"
            | "dt"
            | "dd"
            | "tr"
            | "td"
            | "th"
            | "thead"
            | "tbody"
            | "tfoot"
            | "option"
            | "optgroup"
            | "colgroup"
            | "caption"
            | "rb"
            | "rt"
            | "rp"
            | "rtc"
    )
}

fn is_raw_text(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "noscript"
            | "plaintext"
            | "template"
    )
}
