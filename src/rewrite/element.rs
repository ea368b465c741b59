//! An element as the URL rules see it, whichever engine found it.

use crate::dom::{AttrNs, ElementNs, ElementRef, NodeId};

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
