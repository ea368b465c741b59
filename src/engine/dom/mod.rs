//! ③ The document tree: html5ever parsing into markup5ever_rcdom, behind this façade.
//!
//! No rcdom type leaves this module: rcdom is unsupported upstream (its crates.io release is an
//! "unofficial" one), so the rest of the crate talks to [`Document`] and [`ElementRef`] only and
//! the tree implementation can be swapped here alone.
//!
//! Every walk is iterative (an explicit stack), so a document nested 100,000 levels deep cannot
//! overflow the call stack; rcdom's own `Drop` is iterative too.

mod guard;
pub(crate) mod driver;
pub(crate) mod output;
mod serialize;
pub mod plan;
pub(crate) mod source;

use crate::tree::ElementView;
pub use crate::tree::{AttrNs, ElementNs, NodeId};
pub use guard::{LimitHit, ParseLimits};

use std::cell::{Cell, OnceCell};
use std::rc::Rc;

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{ns, parse_document, Namespace, ParseOpts};
use markup5ever_rcdom::{Handle, NodeData, RcDom};

/// A parsed HTML document.
pub struct Document {
    dom: RcDom,
    /// The length of the parsed text: the serializer's output is about as long.
    source_len: usize,
    /// Parsed as a fragment: the tree's one `html` element holds the fragment's nodes.
    fragment: bool,
    /// Elements in tree order, built on first use: the index of an element here is its
    /// [`NodeId`], which is how an edit plan names a place in the tree.
    elements: OnceCell<Vec<ElementRef>>,
}

/// An element of a [`Document`].
#[derive(Clone)]
pub struct ElementRef {
    handle: Handle,
    id: NodeId,
    in_template: bool,
    /// How many HTML `<noscript>` elements it sits in.
    noscripts: usize,
}

impl Document {
    /// Parses decoded text as an HTML document (HTML LS §13.2, through html5ever), within the
    /// default [`ParseLimits`].
    ///
    /// # Errors
    /// [`LimitHit`] when the document passes a bound: HTML parsing recovers from every syntax
    /// error, but crafted nesting would make it take quadratic time or memory.
    pub fn parse(text: &str) -> Result<Document, LimitHit> {
        Document::parse_with_limits(text, ParseLimits::default())
    }

    /// As [`Document::parse`], with explicit limits.
    ///
    /// # Errors
    /// [`LimitHit`] when the document passes a bound.
    pub fn parse_with_limits(text: &str, limits: ParseLimits) -> Result<Document, LimitHit> {
        if guard::too_many_attributes(text, limits.max_attributes) {
            return Err(LimitHit::Attributes(limits.max_attributes));
        }
        // Fed in chunks so that a tripped bound stops the work within one chunk.
        const CHUNK: usize = 16 * 1024;
        let tripped = Rc::new(Cell::new(None));
        let sink = guard::GuardedSink::new(limits, text.len(), tripped.clone());
        let mut parser = parse_document(sink, ParseOpts::default());
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = rest.len().min(CHUNK);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (chunk, tail) = rest.split_at(cut);
            parser.process(StrTendril::from_slice(chunk));
            if let Some(hit) = tripped.get() {
                return Err(hit);
            }
            rest = tail;
        }
        let dom = parser.finish().into_dom();
        if let Some(hit) = tripped.get() {
            return Err(hit);
        }
        Ok(Document {
            dom,
            source_len: text.len(),
            fragment: false,
            elements: OnceCell::new(),
        })
    }

    /// Parses `text` as the contents of a `<body>` with scripting disabled (HTML LS "HTML
    /// fragment parsing algorithm"): the markup a `<noscript>` holds for consumers without
    /// scripting. Within the same bounds as [`Document::parse`].
    ///
    /// # Errors
    /// [`LimitHit`] when the fragment passes a bound.
    pub fn parse_fragment(text: &str, limits: ParseLimits) -> Result<Document, LimitHit> {
        if guard::too_many_attributes(text, limits.max_attributes) {
            return Err(LimitHit::Attributes(limits.max_attributes));
        }
        let tripped = Rc::new(Cell::new(None));
        let sink = guard::GuardedSink::new(limits, text.len(), tripped.clone());
        let mut opts = ParseOpts::default();
        opts.tree_builder.scripting_enabled = false;
        let context = html5ever::QualName::new(None, ns!(html), html5ever::local_name!("body"));
        let dom = html5ever::parse_fragment(sink, opts, context, Vec::new(), false)
            .one(StrTendril::from_slice(text))
            .into_dom();
        if let Some(hit) = tripped.get() {
            return Err(hit);
        }
        Ok(Document {
            dom,
            source_len: text.len(),
            fragment: true,
            elements: OnceCell::new(),
        })
    }

    /// Every element in tree order. Elements inside `<template>` contents are included (their
    /// URLs are markup too) and flagged with [`ElementRef::in_template`].
    pub fn elements(&self) -> &[ElementRef] {
        self.elements
            .get_or_init(|| collect_elements(&self.dom.document))
    }

    /// Parsed with scripting disabled ([`Document::parse_fragment`]): a `<noscript>` in it holds
    /// elements, not text.
    pub fn scripting_disabled(&self) -> bool {
        self.fragment
    }

    /// The element with this id.
    pub fn element(&self, id: NodeId) -> Option<&ElementRef> {
        self.elements().get(id.0)
    }

    /// Serializes the document as HTML text (HTML LS "serializing HTML fragments" of the
    /// document's children), template contents and full doctypes included.
    pub fn to_html(&self) -> String {
        if self.fragment {
            // The fragment's nodes are the children of the one `html` element.
            let root = self.dom.document.children.borrow().first().cloned();
            return root
                .map(|r| serialize::serialize(&r, self.source_len, false))
                .unwrap_or_default();
        }
        serialize::serialize(&self.dom.document, self.source_len, true)
    }
}

/// Pre-order walk with an explicit stack; template contents follow their `<template>`.
fn collect_elements(root: &Handle) -> Vec<ElementRef> {
    let mut out = Vec::new();
    // (node, inside template contents, `<noscript>` ancestors)
    let mut stack: Vec<(Handle, bool, usize)> = vec![(root.clone(), false, 0)];
    while let Some((node, in_template, noscripts)) = stack.pop() {
        let mut inner = in_template;
        let mut below = noscripts;
        if let NodeData::Element {
            name,
            template_contents,
            ..
        } = &node.data
        {
            out.push(ElementRef {
                handle: node.clone(),
                id: NodeId(out.len()),
                in_template,
                noscripts,
            });
            if name.ns == ns!(html) && &*name.local == "noscript" {
                below += 1;
            }
            if let Some(contents) = template_contents.borrow().as_ref() {
                // Children are pushed after, so they pop first: the template's own children
                // (none, for a parsed template) come before its contents.
                stack.push((contents.clone(), true, below));
                inner = in_template;
            }
        }
        for child in node.children.borrow().iter().rev() {
            stack.push((child.clone(), inner, below));
        }
    }
    out
}

impl ElementRef {
    /// This element's place in tree order.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// Whether this element is inside `<template>` contents (inert: its `<base>` does not count).
    pub fn in_template(&self) -> bool {
        self.in_template
    }

    /// Whether this element is a `<base>` that can set the document's base URL: an HTML `base`
    /// outside `<template>` contents (HTML LS §4.2.3; an SVG `base` or one in inert template
    /// contents is only an element with a URL attribute).
    pub fn is_document_base(&self) -> bool {
        self.is_html("base") && !self.in_template
    }

    /// How many HTML `<noscript>` elements it sits in (in a tree parsed with scripting
    /// disabled, each is a level of `<noscript>` markup).
    pub fn noscript_ancestors(&self) -> usize {
        self.noscripts
    }

    /// The local name, lower-case for HTML elements (`a`, `img`, `linearGradient` in SVG).
    pub fn name(&self) -> &str {
        match &self.handle.data {
            NodeData::Element { name, .. } => &name.local,
            _ => "",
        }
    }

    /// The element's namespace.
    pub fn ns(&self) -> ElementNs {
        match &self.handle.data {
            NodeData::Element { name, .. } => match name.ns {
                ns!(html) => ElementNs::Html,
                ns!(svg) => ElementNs::Svg,
                ns!(mathml) => ElementNs::MathMl,
                _ => ElementNs::Other,
            },
            _ => ElementNs::Other,
        }
    }

    /// Whether this is the HTML element `name`.
    pub fn is_html(&self, name: &str) -> bool {
        self.ns() == ElementNs::Html && self.name() == name
    }

    /// The value of the no-namespace attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<String> {
        self.attr_ns(AttrNs::None, name)
    }

    /// The value of attribute `name` in namespace `ns`, if present.
    pub fn attr_ns(&self, ns: AttrNs, name: &str) -> Option<String> {
        let NodeData::Element { attrs, .. } = &self.handle.data else {
            return None;
        };
        let attrs = attrs.borrow();
        attrs
            .iter()
            .find(|a| attr_ns(&a.name.ns) == ns && &*a.name.local == name)
            .map(|a| a.value.to_string())
    }

    /// Calls `f` with every attribute: its namespace, local name and value, in source order.
    pub fn for_each_attr(&self, mut f: impl FnMut(AttrNs, &str, &str)) {
        if let NodeData::Element { attrs, .. } = &self.handle.data {
            for a in attrs.borrow().iter() {
                f(attr_ns(&a.name.ns), &a.name.local, &a.value);
            }
        }
    }

    /// Replaces the value of an existing attribute; says whether it was there.
    pub fn set_attr(&self, ns: AttrNs, name: &str, value: &str) -> bool {
        let NodeData::Element { attrs, .. } = &self.handle.data else {
            return false;
        };
        let mut attrs = attrs.borrow_mut();
        match attrs
            .iter_mut()
            .find(|a| attr_ns(&a.name.ns) == ns && &*a.name.local == name)
        {
            Some(a) => {
                a.value = StrTendril::from_slice(value);
                true
            }
            None => false,
        }
    }

    /// The concatenated text of this element's text children (the CSS of a `<style>`).
    pub fn text(&self) -> String {
        let mut s = String::new();
        for child in self.handle.children.borrow().iter() {
            if let NodeData::Text { contents } = &child.data {
                s.push_str(&contents.borrow());
            }
        }
        s
    }

    /// Replaces the text children with one text node holding `text`, keeping element children
    /// (a `<style>` has none) where they were.
    pub fn set_text(&self, text: &str) {
        let children = self.handle.children.borrow();
        let mut first = true;
        for child in children.iter() {
            if let NodeData::Text { contents } = &child.data {
                let value = if first { text } else { "" };
                *contents.borrow_mut() = StrTendril::from_slice(value);
                first = false;
            }
        }
        drop(children);
        if first {
            let node = markup5ever_rcdom::Node::new(NodeData::Text {
                contents: std::cell::RefCell::new(StrTendril::from_slice(text)),
            });
            node.parent.set(Some(std::rc::Rc::downgrade(&self.handle)));
            self.handle.children.borrow_mut().push(node);
        }
    }
}

impl ElementRef {
    /// Removes this element (and what it contains) from the tree.
    pub fn detach(&self) {
        let parent = self.handle.parent.take();
        if let Some(parent) = parent.as_ref().and_then(|w| w.upgrade()) {
            parent
                .children
                .borrow_mut()
                .retain(|c| !std::rc::Rc::ptr_eq(c, &self.handle));
        }
    }
}

impl std::fmt::Debug for ElementRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}> #{}", self.name(), self.id.0)
    }
}

fn attr_ns(ns: &Namespace) -> AttrNs {
    match *ns {
        ns!() => AttrNs::None,
        ns!(xlink) => AttrNs::XLink,
        ns!(xml) => AttrNs::Xml,
        _ => AttrNs::Other,
    }
}

/// The rules read a DOM element through the view both engines give.
impl ElementView for ElementRef {
    fn id(&self) -> NodeId {
        ElementRef::id(self)
    }
    fn name(&self) -> &str {
        ElementRef::name(self)
    }
    fn ns(&self) -> ElementNs {
        ElementRef::ns(self)
    }
    fn attr(&self, name: &str) -> Option<String> {
        ElementRef::attr(self, name)
    }
    fn for_each_attr(&self, f: &mut dyn FnMut(AttrNs, &str, &str)) {
        ElementRef::for_each_attr(self, f);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn elements_in_tree_order_with_template_contents() {
        let doc = Document::parse(
            "<p><a href=x>1</a><template><base href=t><img src=i></template><svg><a href=s/></svg>",
        )
        .unwrap();
        let names: Vec<_> = doc
            .elements()
            .iter()
            .map(|e| (e.name().to_owned(), e.in_template(), e.ns()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("html".into(), false, ElementNs::Html),
                ("head".into(), false, ElementNs::Html),
                ("body".into(), false, ElementNs::Html),
                ("p".into(), false, ElementNs::Html),
                ("a".into(), false, ElementNs::Html),
                ("template".into(), false, ElementNs::Html),
                ("base".into(), true, ElementNs::Html),
                ("img".into(), true, ElementNs::Html),
                ("svg".into(), false, ElementNs::Svg),
                ("a".into(), false, ElementNs::Svg),
            ]
        );
    }

    #[test]
    fn attributes_and_text() {
        let doc = Document::parse("<style>a{}</style><svg><use xlink:href='#i'/></svg>").unwrap();
        let style = doc.elements().iter().find(|e| e.name() == "style").unwrap();
        assert_eq!(style.text(), "a{}");
        style.set_text("b{}");
        let useel = doc.elements().iter().find(|e| e.name() == "use").unwrap();
        assert_eq!(useel.attr_ns(AttrNs::XLink, "href").as_deref(), Some("#i"));
        assert!(useel.set_attr(AttrNs::XLink, "href", "#j"));
        assert!(!useel.set_attr(AttrNs::None, "href", "#j"));
        assert_eq!(
            doc.to_html(),
            "<html><head><style>b{}</style></head><body><svg><use xlink:href=\"#j\"></use></svg></body></html>"
        );
    }

    #[test]
    fn nesting_within_the_bound_parses_and_serializes_without_recursion() {
        let text = "<div>".repeat(2000);
        let doc = Document::parse(&text).unwrap();
        assert_eq!(doc.elements().len(), 2003);
        assert_eq!(doc.to_html().len(), "<div></div>".len() * 2000 + 39);
    }

    #[test]
    fn crafted_nesting_is_refused_quickly() {
        let text = "<div>".repeat(200_000);
        assert_eq!(Document::parse(&text).err(), Some(LimitHit::Depth(2048)));
        let text = "<b id=N>x".repeat(100_000);
        assert_eq!(Document::parse(&text).err(), Some(LimitHit::Depth(2048)));
    }

    #[test]
    fn formatting_element_reconstruction_is_bounded() {
        let text: String = (0..10_000).map(|i| format!("<p><b id={i}>")).collect();
        assert!(matches!(Document::parse(&text), Err(LimitHit::Elements(_))));
    }

    /// The DOM engine's memory is bounded by a node budget, whatever the input's
    /// size: elements that the input-size bound allows (a flat run of `<a href=a>`) and
    /// comments alike.
    #[test]
    fn the_node_budget_bounds_flat_documents() {
        for unit in ["<a href=a>", "<!---->"] {
            let text = unit.repeat(200_001);
            assert_eq!(
                Document::parse(&text).err(),
                Some(LimitHit::Nodes(200_000)),
                "{unit}"
            );
        }
        assert!(Document::parse(&"<a href=a>".repeat(190_000)).is_ok());
    }
}
