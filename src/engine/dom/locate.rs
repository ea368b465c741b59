//! Where the DOM engine's links are in the input (issue 25): the tree has no source positions,
//! so its elements are matched with the start tags lol_html reads in the source (read-only, as
//! for splicing), by name, attribute and decoded value, in order.
//!
//! The k-th element of the tree with a key is given the k-th source tag with that key. The tree
//! builder can clone an element (HTML LS "adoption agency algorithm" and "reconstruct the active
//! formatting elements" copy an `<a>` with its `href`): a clone has no tag of its own and takes
//! the last one matched for its key. Where it moves one (foster parenting out of a table),
//! elements with the same key and value can trade positions. A document lol_html cannot read
//! (UTF-16, ISO-2022-JP) is read in its UTF-8 decoding ([`crate::position::located_text`]).

use std::collections::{HashMap, HashSet, VecDeque};

use encoding_rs::Encoding;

use super::splice::{source_name, source_tags};
use super::{Document, ElementRef};
use crate::rewrite::Link;
use crate::splice::decode_attribute;
use crate::tree::NodeId;

/// An element name, the attribute holding the link (`""` for the element's text) and its
/// value (`""` for text).
type Key = (String, String, String);

/// What holds a link in the tree: an attribute of its element, or (`None`) the element's
/// text (`<style>`, and `<noscript>` markup, which the DOM engine parses apart).
fn holder(element: &ElementRef, link: &Link) -> Option<String> {
    let held = link.held_by(0)?;
    if element.is_html("noscript") {
        // A link of the markup inside names its own element; the `<noscript>` element's own
        // attributes are the noscript's.
        let own = link.element == "noscript" && tree_value(element, held).is_some();
        return own.then(|| held.to_owned());
    }
    Some(held.to_owned())
}

/// The value of the attribute `held` (its source name: `xlink:href`) of `element`.
fn tree_value(element: &ElementRef, held: &str) -> Option<String> {
    let mut value = None;
    element.for_each_attr(|ns, name, v| {
        if value.is_none() && source_name(ns, name).as_deref() == Some(held) {
            value = Some(v.to_owned());
        }
    });
    value
}

/// Sets the offset of every link of `doc`'s plan (a document of `bytes` in `encoding`); links
/// whose element cannot be matched keep `None`.
pub(crate) fn locate(
    bytes: &[u8],
    encoding: &'static Encoding,
    doc: &Document,
    links: &mut [Link],
) {
    let mut elements = HashSet::new();
    let mut attrs = HashSet::new();
    for link in links.iter() {
        if let Some(element) = doc.element(link.node) {
            elements.insert(element.name().to_ascii_lowercase());
            if let Some(held) = holder(element, link) {
                attrs.insert(held.to_ascii_lowercase());
            }
        }
    }
    if elements.is_empty() {
        return;
    }
    if elements.contains("img") {
        elements.insert("image".to_owned());
    }
    let text = crate::position::located_text(bytes, encoding);
    let read_as = if encoding.is_ascii_compatible() {
        encoding
    } else {
        encoding_rs::UTF_8
    };
    let Ok(tags) = source_tags(&text, read_as, elements, attrs) else {
        return;
    };
    let mut queues: HashMap<Key, VecDeque<usize>> = HashMap::new();
    for tag in &tags {
        let name = tag.tree_name();
        // The element's text starts where its start tag ends.
        queues
            .entry((name.clone(), String::new(), String::new()))
            .or_default()
            .push_back(tag.range.end);
        for attr in tag.tree_attrs() {
            let value = match &attr.value {
                Some(range) => text
                    .get(range.clone())
                    .and_then(|raw| decode_attribute(raw, read_as))
                    .unwrap_or_default(),
                None => String::new(),
            };
            let at = attr.value.as_ref().map(|r| r.start).or(attr.name_end);
            if let Some(at) = at {
                queues
                    .entry((name.clone(), attr.name.clone(), value))
                    .or_default()
                    .push_back(at);
            }
        }
    }
    let mut matched: HashMap<(NodeId, Option<String>), Option<usize>> = HashMap::new();
    let mut last: HashMap<Key, usize> = HashMap::new();
    for link in links.iter_mut() {
        let Some(element) = doc.element(link.node) else {
            continue;
        };
        let held = holder(element, link);
        let offset = *matched.entry((link.node, held.clone())).or_insert_with(|| {
            let value = held.as_deref().and_then(|h| tree_value(element, h));
            let key = (
                element.name().to_ascii_lowercase(),
                held.unwrap_or_default(),
                value.unwrap_or_default(),
            );
            match queues.get_mut(&key).and_then(VecDeque::pop_front) {
                Some(at) => {
                    last.insert(key, at);
                    Some(at)
                }
                None => last.get(&key).copied(),
            }
        });
        link.offset = offset;
    }
}
