//! Bounds on what a hostile document can make the HTML parser do.
//!
//! html5ever follows the HTML LS tree-construction rules faithfully, and two of them are
//! super-linear on crafted input: scope checks walk the stack of open elements (so `<div>`
//! repeated 40,000 times takes seconds, 200,000 times minutes), and "reconstruct the active
//! formatting elements" re-creates every open formatting element at each new block
//! (`<p><b id=N>` repeated: 139 KB of input became 840 MB of tree). Browsers bound the first
//! (Blink flattens the tree past 512 levels); we cannot change html5ever's builder, so this
//! sink wrapper watches what it builds and trips when a bound is passed, and the driver stops
//! feeding input and reports the document as unusable. Real pages stay far below both bounds.

use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};
use markup5ever_rcdom::{Handle, NodeData, RcDom};

/// The bounds the parser is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseLimits {
    /// The deepest an element may be nested. Blink flattens past 512; real pages rarely pass 100.
    pub max_depth: usize,
    /// Elements the parser may create beyond one per input byte (every element in the source
    /// takes at least three bytes, so this allows for implied and reconstructed ones).
    pub extra_elements: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_depth: 2048,
            extra_elements: 10_000,
        }
    }
}

/// Which bound a document passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    /// Elements nested deeper than `max_depth`.
    Depth(usize),
    /// More elements than the input size allows.
    Elements(usize),
}

impl std::fmt::Display for LimitHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitHit::Depth(n) => write!(
                f,
                "elements nest deeper than {n} levels (the HTML parser's work grows with the square of the depth)"
            ),
            LimitHit::Elements(n) => write!(
                f,
                "the parser would build more than {n} elements (crafted formatting-element reconstruction)"
            ),
        }
    }
}

impl std::error::Error for LimitHit {}

/// RcDom, plus the bounds.
pub(super) struct GuardedSink {
    dom: RcDom,
    limits: ParseLimits,
    max_elements: usize,
    elements: Cell<usize>,
    tripped: Rc<Cell<Option<LimitHit>>>,
}

impl GuardedSink {
    pub(super) fn new(
        limits: ParseLimits,
        input_len: usize,
        tripped: Rc<Cell<Option<LimitHit>>>,
    ) -> Self {
        GuardedSink {
            dom: RcDom::default(),
            limits,
            max_elements: input_len.saturating_add(limits.extra_elements),
            elements: Cell::new(0),
            tripped,
        }
    }

    fn trip(&self, hit: LimitHit) {
        if self.tripped.get().is_none() {
            self.tripped.set(Some(hit));
        }
    }

    /// Whether appending an element under `parent` would pass the depth bound. Walks at most
    /// `max_depth` parents, so the cost per element is bounded too.
    fn too_deep(&self, parent: &Handle) -> bool {
        let mut node = parent.clone();
        for _ in 0..self.limits.max_depth {
            let up = node.parent.take();
            node.parent.set(up.clone());
            match up.and_then(|w| w.upgrade()) {
                Some(p) => node = p,
                None => return false,
            }
        }
        true
    }

    /// Whether `child` may go under `parent`; trips the guard when it may not.
    fn admit(&self, parent: &Handle, child: &NodeOrText<Handle>) -> bool {
        if self.tripped.get().is_some() {
            return false;
        }
        if let NodeOrText::AppendNode(node) = child {
            if matches!(node.data, NodeData::Element { .. }) && self.too_deep(parent) {
                self.trip(LimitHit::Depth(self.limits.max_depth));
                return false;
            }
        }
        true
    }

    pub(super) fn into_dom(self) -> RcDom {
        self.dom
    }
}

impl TreeSink for GuardedSink {
    type Handle = Handle;
    type Output = Self;
    type ElemName<'a>
        = <RcDom as TreeSink>::ElemName<'a>
    where
        Self: 'a;

    fn finish(self) -> Self {
        self
    }
    fn parse_error(&self, _msg: Cow<'static, str>) {
        // Parse errors are normal in real HTML; collecting them costs time and memory.
    }
    fn get_document(&self) -> Handle {
        self.dom.get_document()
    }
    fn elem_name<'a>(&'a self, target: &'a Handle) -> Self::ElemName<'a> {
        self.dom.elem_name(target)
    }
    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        let n = self.elements.get() + 1;
        self.elements.set(n);
        if n > self.max_elements {
            self.trip(LimitHit::Elements(self.max_elements));
        }
        self.dom.create_element(name, attrs, flags)
    }
    fn create_comment(&self, text: StrTendril) -> Handle {
        self.dom.create_comment(text)
    }
    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        self.dom.create_pi(target, data)
    }
    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        if self.admit(parent, &child) {
            self.dom.append(parent, child);
        }
    }
    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev: &Handle,
        child: NodeOrText<Handle>,
    ) {
        if self.admit(prev, &child) {
            self.dom.append_based_on_parent_node(element, prev, child);
        }
    }
    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.dom
            .append_doctype_to_document(name, public_id, system_id);
    }
    fn mark_script_already_started(&self, node: &Handle) {
        self.dom.mark_script_already_started(node);
    }
    fn pop(&self, node: &Handle) {
        self.dom.pop(node);
    }
    fn get_template_contents(&self, target: &Handle) -> Handle {
        self.dom.get_template_contents(target)
    }
    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        self.dom.same_node(x, y)
    }
    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.dom.set_quirks_mode(mode);
    }
    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        if self.tripped.get().is_none() {
            self.dom.append_before_sibling(sibling, new_node);
        }
    }
    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        self.dom.add_attrs_if_missing(target, attrs);
    }
    fn associate_with_form(
        &self,
        target: &Handle,
        form: &Handle,
        nodes: (&Handle, Option<&Handle>),
    ) {
        self.dom.associate_with_form(target, form, nodes);
    }
    fn remove_from_parent(&self, target: &Handle) {
        self.dom.remove_from_parent(target);
    }
    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        self.dom.reparent_children(node, new_parent);
    }
    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.dom.is_mathml_annotation_xml_integration_point(handle)
    }
    fn allow_declarative_shadow_roots(&self, _intended_parent: &Handle) -> bool {
        // Declarative shadow roots would move markup out of the tree we serialize.
        false
    }
    fn maybe_clone_an_option_into_selectedcontent(&self, option: &Handle) {
        self.dom.maybe_clone_an_option_into_selectedcontent(option);
    }
}
