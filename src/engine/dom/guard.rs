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
    /// The most nodes (elements, comments, processing instructions) the parser builds, whatever
    /// the input's size: the DOM engine's memory budget. A node costs about 1 KB by the time
    /// the pipeline is done with it (the rcdom node, its attributes, the façade's element list,
    /// a link record), and one costs as little as 4 input bytes (`<a>` … or `<!---->`), so
    /// without this a 16 MB page took 1.6 GB. Real pages stay far below it.
    pub max_nodes: usize,
    /// The most attributes one tag may carry. html5ever checks each new attribute against all
    /// earlier ones of its tag (duplicates are dropped, HTML LS §13.2.5.33), which is quadratic:
    /// 200,000 attributes took 13.7 s. Real pages stay below a hundred.
    pub max_attributes: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_depth: 2048,
            extra_elements: 10_000,
            max_nodes: 200_000,
            max_attributes: 10_000,
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
    /// A tag with more attributes than `max_attributes`.
    Attributes(usize),
    /// More nodes than `max_nodes`.
    Nodes(usize),
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
            LimitHit::Attributes(n) => write!(
                f,
                "a tag has more than {n} attributes (the parser's duplicate check grows with the square of their number)"
            ),
            LimitHit::Nodes(n) => write!(
                f,
                "the DOM engine would build more than {n} nodes, its memory budget (max_nodes: about 1 KB each)"
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
    nodes: Cell<usize>,
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
            nodes: Cell::new(0),
            tripped,
        }
    }

    /// Counts one more node against [`ParseLimits::max_nodes`].
    fn count_node(&self) {
        let n = self.nodes.get() + 1;
        self.nodes.set(n);
        if n > self.limits.max_nodes {
            self.trip(LimitHit::Nodes(self.limits.max_nodes));
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
        self.count_node();
        self.dom.create_element(name, attrs, flags)
    }
    fn create_comment(&self, text: StrTendril) -> Handle {
        self.count_node();
        self.dom.create_comment(text)
    }
    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        self.count_node();
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

/// Whether some tag of `text` carries more than `limit` attributes, found in one linear pass
/// before html5ever (whose duplicate-attribute check is quadratic) sees the text. The scan
/// follows the tokenizer where it matters for counting: comments and other markup declarations
/// are skipped, attribute values are read quoted or unquoted, and the text of raw-text elements
/// (`script`, `style`, …) is skipped to its end tag. It may count a few attributes more than
/// the tokenizer would (never fewer in well-formed markup), which at a bound of thousands is
/// harmless.
pub(super) fn too_many_attributes(text: &str, limit: usize) -> bool {
    let b = text.as_bytes();
    let at = |i: usize| b.get(i).copied();
    let find = |from: usize, needle: &[u8]| -> Option<usize> {
        let hay = b.get(from..)?;
        hay.windows(needle.len())
            .position(|w| w.eq_ignore_ascii_case(needle))
            .map(|p| from + p)
    };
    let mut i = 0;
    while let Some(lt) = b.get(i..).and_then(|r| r.iter().position(|&c| c == b'<')) {
        i += lt + 1;
        match at(i) {
            Some(b'!') => {
                let end = if b.get(i..i + 3) == Some(b"!--") {
                    find(i + 3, b"-->").map(|e| e + 3)
                } else {
                    find(i, b">").map(|e| e + 1)
                };
                match end {
                    Some(e) => i = e,
                    None => return false,
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'/' => {
                let name_start = if c == b'/' { i + 1 } else { i };
                let mut j = name_start;
                while at(j).is_some_and(|c| !c.is_ascii_whitespace() && c != b'/' && c != b'>') {
                    j += 1;
                }
                let name = b
                    .get(name_start..j)
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let mut count = 0usize;
                loop {
                    while at(j).is_some_and(|c| c.is_ascii_whitespace() || c == b'/') {
                        j += 1;
                    }
                    match at(j) {
                        None => return false,
                        Some(b'>') => break,
                        Some(_) => {}
                    }
                    count += 1;
                    if count > limit {
                        return true;
                    }
                    // The name (a leading `=` belongs to it, as in the tokenizer).
                    j += 1;
                    while at(j).is_some_and(|c| {
                        !c.is_ascii_whitespace() && c != b'/' && c != b'>' && c != b'='
                    }) {
                        j += 1;
                    }
                    while at(j).is_some_and(|c| c.is_ascii_whitespace()) {
                        j += 1;
                    }
                    if at(j) != Some(b'=') {
                        continue;
                    }
                    j += 1;
                    while at(j).is_some_and(|c| c.is_ascii_whitespace()) {
                        j += 1;
                    }
                    match at(j) {
                        Some(q @ (b'"' | b'\'')) => {
                            match b.get(j + 1..).and_then(|r| r.iter().position(|&c| c == q)) {
                                Some(p) => j += p + 2,
                                None => return false,
                            }
                        }
                        _ => {
                            while at(j).is_some_and(|c| !c.is_ascii_whitespace() && c != b'>') {
                                j += 1;
                            }
                        }
                    }
                }
                i = j + 1;
                if c != b'/' {
                    match name.as_slice() {
                        b"plaintext" => return false,
                        b"script" | b"style" | b"textarea" | b"title" | b"xmp" | b"iframe"
                        | b"noembed" | b"noframes" | b"noscript" => {
                            let mut close = b"</".to_vec();
                            close.extend_from_slice(&name);
                            match find(i, &close) {
                                Some(e) => i = e,
                                None => return false,
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod attribute_tests {
    use super::too_many_attributes;

    #[test]
    fn counts_attributes_of_one_tag() {
        assert!(!too_many_attributes("<a x y z>", 3));
        assert!(too_many_attributes("<a x y z w>", 3));
        assert!(too_many_attributes("<a x=1 y='a b c' z=\"q r\" w>", 3));
        assert!(!too_many_attributes("<a x=1 y='a b c d e f' z>", 3));
        // Attributes of different tags do not add up.
        assert!(!too_many_attributes("<a x y z><b x y z>", 3));
        // Comments and raw text are not tags.
        assert!(!too_many_attributes("<!-- <a a b c d e> --><p>", 3));
        assert!(!too_many_attributes("<script><a a b c d e></script>", 3));
        assert!(too_many_attributes("<script></script><a a b c d>", 3));
        assert!(!too_many_attributes("<plaintext><a a b c d e>", 3));
        // Unfinished input ends the scan.
        assert!(!too_many_attributes("<a x='", 3));
    }

    #[test]
    fn linear_on_a_huge_tag() {
        let mut page = String::from("<p");
        for n in 0..200_000 {
            page.push_str(&format!(" a{n}"));
        }
        page.push('>');
        assert!(too_many_attributes(&page, 10_000));
    }
}
