//! The names of the tree both engines build (the DOM engine) or follow (the streaming engine),
//! and the element view the URL rules read: what the rules, the engines and the reports share.

/// An element's position in tree order (pre-order, template contents included where they
/// stand). Stable for a given parse of given text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct NodeId(pub usize);

/// The namespaces an element can be in, as far as URL rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementNs {
    /// HTML.
    Html,
    /// SVG (`<svg>` and everything inside it).
    Svg,
    /// MathML.
    MathMl,
    /// Anything else.
    Other,
}

/// The namespace of an attribute name: none (the usual case), or XLink (`xlink:href`), etc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrNs {
    /// No namespace: `href`, `src` …
    None,
    /// `xlink:` attributes in SVG.
    XLink,
    /// `xml:` attributes.
    Xml,
    /// Anything else.
    Other,
}

/// An element as the rules see it: what the DOM's [`ElementRef`] and the streaming engine's
/// start tag (the streaming engine) both provide, so both apply one set of rules.
pub(crate) trait ElementView {
    /// Where it is: tree position (DOM) or the start tag's byte offset (stream).
    fn id(&self) -> NodeId;
    /// The local name, lower-case for HTML (`image` already read as `img`).
    fn name(&self) -> &str;
    /// The namespace.
    fn ns(&self) -> ElementNs;
    /// The first no-namespace attribute `name`.
    fn attr(&self, name: &str) -> Option<String>;
    /// Every attribute that counts (the first of duplicates), in source order.
    fn for_each_attr(&self, f: &mut dyn FnMut(AttrNs, &str, &str));
}
