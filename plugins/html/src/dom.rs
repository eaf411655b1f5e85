//! A compact arena DOM built by html5ever's tree builder.
//!
//! html5ever parses; this module only stores what it produces. Nodes live in one `Vec` and
//! link to each other by index, so building costs one push per node, dropping the tree is a
//! flat deallocation (no recursion, whatever the nesting), and the converter walks it without
//! reference counting. Comments, doctypes and processing instructions are kept only as inert
//! placeholders because the tree builder needs handles for them.

use crate::guard::DepthGuard;
use html5ever::interface::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{BufferQueue, Tokenizer, TokenizerOpts};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{local_name, ns, Attribute, LocalName, QualName, TokenizerResult};
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

/// Index of a node in [`Dom::nodes`].
pub type NodeId = usize;
/// The absent link.
pub const NONE: NodeId = usize::MAX;

pub struct Node {
    pub parent: NodeId,
    pub first_child: NodeId,
    pub last_child: NodeId,
    pub prev: NodeId,
    pub next: NodeId,
    pub data: NodeData,
}

pub enum NodeData {
    Document,
    Element(Element),
    Text(StrTendril),
    /// Comment, doctype or processing instruction: never rendered.
    Inert,
}

pub struct Element {
    pub name: Rc<QualName>,
    pub attrs: Vec<Attribute>,
}

impl Element {
    /// The local name when the element is in the HTML namespace.
    pub fn html_name(&self) -> Option<&LocalName> {
        (self.name.ns == ns!(html)).then_some(&self.name.local)
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.ns == ns!() && &*a.name.local == name)
            .map(|a| &*a.value)
    }
}

/// The parsed document: node 0 is the document node.
pub struct Dom {
    pub nodes: Vec<Node>,
}

impl Dom {
    pub const ROOT: NodeId = 0;

    /// Parses a whole document, feeding html5ever in chunks so `between` (a deadline check)
    /// runs regularly on big inputs; an error from it stops parsing. Nesting beyond
    /// `max_depth` open elements is cut (see [`crate::guard`]); the flag says whether it was.
    pub fn parse<E>(
        text: &str,
        max_depth: usize,
        mut between: impl FnMut() -> Result<(), E>,
    ) -> Result<(Dom, bool), E> {
        const CHUNK: usize = 256 * 1024;
        let builder = TreeBuilder::new(Sink::default(), TreeBuilderOpts::default());
        let tokenizer = Tokenizer::new(
            DepthGuard::new(builder, max_depth),
            TokenizerOpts::default(),
        );
        let queue = BufferQueue::default();
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = rest.len().min(CHUNK);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (chunk, tail) = rest.split_at(cut);
            queue.push_back(StrTendril::from_slice(chunk));
            // `Script` results only pause for a script engine; there is none, so go on.
            while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
            rest = tail;
            between()?;
        }
        tokenizer.end();
        let cut = tokenizer.sink.cut.get();
        Ok((tokenizer.sink.inner.sink.finish(), cut))
    }

    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id)
    }

    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes.get(id)?.data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }

    /// Children of a node, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            dom: self,
            next: self.nodes.get(id).map_or(NONE, |n| n.first_child),
        }
    }

    /// Visits every node under `id` in document order (not `id` itself), without recursion;
    /// `visit` returns whether to descend into the node's children.
    pub fn walk_subtree(&self, id: NodeId, mut visit: impl FnMut(NodeId, &Node) -> bool) {
        self.walk_subtree_leaving(id, |child, node, leaving| !leaving && visit(child, node));
    }

    /// [`Dom::walk_subtree`], also told when the walk leaves a node whose children it
    /// entered (`leaving` true; the answer is then ignored).
    pub fn walk_subtree_leaving(
        &self,
        id: NodeId,
        mut visit: impl FnMut(NodeId, &Node, bool) -> bool,
    ) {
        let Some(root) = self.nodes.get(id) else {
            return;
        };
        let mut cur = root.first_child;
        while let Some(node) = self.nodes.get(cur) {
            if visit(cur, node, false) && node.first_child != NONE {
                cur = node.first_child;
                continue;
            }
            // Next sibling, else the next sibling of the nearest ancestor below `id`.
            let mut at = cur;
            cur = NONE;
            while let Some(n) = self.nodes.get(at) {
                if n.next != NONE {
                    cur = n.next;
                    break;
                }
                if n.parent == id || n.parent == NONE {
                    break;
                }
                at = n.parent;
                if let Some(parent) = self.nodes.get(at) {
                    visit(at, parent, true);
                }
            }
        }
    }
}

pub struct Children<'a> {
    dom: &'a Dom,
    next: NodeId,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let id = self.next;
        let node = self.dom.nodes.get(id)?;
        self.next = node.next;
        Some(id)
    }
}

/// A handle carries the element name so `elem_name` can lend it without borrowing the arena.
#[derive(Clone)]
struct Handle {
    id: NodeId,
    name: Option<Rc<QualName>>,
}

struct Sink {
    nodes: RefCell<Vec<Node>>,
    unnamed: QualName,
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            nodes: RefCell::new(vec![new_node(NodeData::Document)]),
            unnamed: QualName::new(None, ns!(), local_name!("")),
        }
    }
}

fn new_node(data: NodeData) -> Node {
    Node {
        parent: NONE,
        first_child: NONE,
        last_child: NONE,
        prev: NONE,
        next: NONE,
        data,
    }
}

impl Sink {
    fn push(&self, data: NodeData) -> NodeId {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(new_node(data));
        nodes.len() - 1
    }

    fn detach(nodes: &mut [Node], id: NodeId) {
        let Some(node) = nodes.get(id) else { return };
        let (parent, prev, next) = (node.parent, node.prev, node.next);
        if prev != NONE {
            nodes[prev].next = next;
        } else if parent != NONE {
            nodes[parent].first_child = next;
        }
        if next != NONE {
            nodes[next].prev = prev;
        } else if parent != NONE {
            nodes[parent].last_child = prev;
        }
        let node = &mut nodes[id];
        node.parent = NONE;
        node.prev = NONE;
        node.next = NONE;
    }

    fn append_child(nodes: &mut [Node], parent: NodeId, child: NodeId) {
        Self::detach(nodes, child);
        let last = nodes[parent].last_child;
        nodes[child].parent = parent;
        nodes[child].prev = last;
        if last != NONE {
            nodes[last].next = child;
        } else {
            nodes[parent].first_child = child;
        }
        nodes[parent].last_child = child;
    }

    fn insert_before(nodes: &mut [Node], sibling: NodeId, child: NodeId) {
        Self::detach(nodes, child);
        let parent = nodes[sibling].parent;
        let prev = nodes[sibling].prev;
        nodes[child].parent = parent;
        nodes[child].next = sibling;
        nodes[child].prev = prev;
        nodes[sibling].prev = child;
        if prev != NONE {
            nodes[prev].next = child;
        } else if parent != NONE {
            nodes[parent].first_child = child;
        }
    }

    /// Appends text to an existing text node (the tree builder wants adjacent text merged).
    fn merge_text(nodes: &mut [Node], target: NodeId, text: &StrTendril) -> bool {
        match nodes.get_mut(target) {
            Some(Node {
                data: NodeData::Text(existing),
                ..
            }) => {
                existing.push_tendril(text);
                true
            }
            _ => false,
        }
    }
}

impl TreeSink for Sink {
    type Handle = Handle;
    type Output = Dom;
    type ElemName<'a>
        = &'a QualName
    where
        Self: 'a;

    fn finish(self) -> Dom {
        Dom {
            nodes: self.nodes.into_inner(),
        }
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        Handle {
            id: Dom::ROOT,
            name: None,
        }
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> &'a QualName {
        target.name.as_deref().unwrap_or(&self.unnamed)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, _: ElementFlags) -> Handle {
        let name = Rc::new(name);
        let id = self.push(NodeData::Element(Element {
            name: Rc::clone(&name),
            attrs,
        }));
        Handle {
            id,
            name: Some(name),
        }
    }

    fn create_comment(&self, _text: StrTendril) -> Handle {
        Handle {
            id: self.push(NodeData::Inert),
            name: None,
        }
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Handle {
        Handle {
            id: self.push(NodeData::Inert),
            name: None,
        }
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        let mut nodes = self.nodes.borrow_mut();
        let Some(last) = nodes.get(parent.id).map(|n| n.last_child) else {
            return;
        };
        match child {
            NodeOrText::AppendNode(node) => Self::append_child(&mut nodes, parent.id, node.id),
            NodeOrText::AppendText(text) => {
                if !Self::merge_text(&mut nodes, last, &text) {
                    nodes.push(new_node(NodeData::Text(text)));
                    let id = nodes.len() - 1;
                    Self::append_child(&mut nodes, parent.id, id);
                }
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        let has_parent = self
            .nodes
            .borrow()
            .get(element.id)
            .is_some_and(|n| n.parent != NONE);
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &Handle) -> Handle {
        // Template contents are never rendered: the element itself stands in for them.
        target.clone()
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x.id == y.id
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &Handle, child: NodeOrText<Handle>) {
        let mut nodes = self.nodes.borrow_mut();
        let Some(prev) = nodes.get(sibling.id).map(|n| n.prev) else {
            return;
        };
        match child {
            NodeOrText::AppendNode(node) => Self::insert_before(&mut nodes, sibling.id, node.id),
            NodeOrText::AppendText(text) => {
                if !Self::merge_text(&mut nodes, prev, &text) {
                    nodes.push(new_node(NodeData::Text(text)));
                    let id = nodes.len() - 1;
                    Self::insert_before(&mut nodes, sibling.id, id);
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        if let Some(Node {
            data: NodeData::Element(element),
            ..
        }) = nodes.get_mut(target.id)
        {
            for attr in attrs {
                if !element.attrs.iter().any(|a| a.name == attr.name) {
                    element.attrs.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &Handle) {
        Self::detach(&mut self.nodes.borrow_mut(), target.id);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        let mut nodes = self.nodes.borrow_mut();
        let Some(mut child) = nodes.get(node.id).map(|n| n.first_child) else {
            return;
        };
        while child != NONE {
            let next = nodes[child].next;
            Self::append_child(&mut nodes, new_parent.id, child);
            child = next;
        }
    }
}
