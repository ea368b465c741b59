//! Where the tree's elements are in the input's bytes: the tree has no source positions, so its
//! elements are matched with the start tags lol_html reads in the source (read-only, never its
//! mutation API, which rebuilds the whole tag), by name, attribute and decoded value, in order.
//! The same matching gives every link its offset ([`locate`]) and turns the plan into byte
//! splices ([`splice`]), which `crate::splice` writes: the DOM engine decides *what* changes
//! (base, every URL, HTML LS semantics), the output is the input with only the changed values
//! replaced.
//!
//! **Locating.** The k-th element of the tree with a key is given the k-th source tag with that
//! key. The tree builder can clone an element (HTML LS "adoption agency algorithm" and
//! "reconstruct the active formatting elements" copy an `<a>` with its `href`): a clone has no
//! tag of its own and takes the last one matched for its key. Where it moves one (foster
//! parenting out of a table), elements with the same key and value can trade positions. A
//! document lol_html cannot read (UTF-16, ISO-2022-JP) is read in its UTF-8 decoding
//! ([`crate::position::located_text`]).
//!
//! **Splicing.** Serializing the parsed tree changes bytes that are not URLs (`&nbsp;`, quotes,
//! self-closing slashes, implied `<tbody>`) and can even change the tree a browser builds. The
//! raw value is decoded by the HTML attribute-value rules and matched with the plan's edits by
//! (element, attribute, old value); the new value is escaped for the quoting in use and encoded
//! in the document's encoding. Anything this cannot match exactly is an error, and the caller
//! serializes the tree: an edit whose occurrence is not found in the source, two edits of one
//! (element, attribute, value) with different results, a tokenizer lol_html refuses (UTF-16,
//! ISO-2022-JP) or a parsing ambiguity it reports.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;

use super::{Document, ElementRef};
use crate::engine::fallback::Fallback;
use crate::rewrite::Link;
use crate::rewrite::{Edit, EditTarget};
use crate::splice::{decode_attribute, escaped, value_splice, Splices};
use crate::tree::{AttrNs, ElementNs, NodeId};

/// The key an edit or a link and a source occurrence share: the element's name, the attribute
/// (`""` for the element's text) and its decoded value (`""` for text).
type Key = (String, String, String);

/// One start tag as the source has it: its name, and each attribute's name and value range.
pub(super) struct SourceTag {
    pub(super) name: String,
    pub(super) html: bool,
    pub(super) range: Range<usize>,
    pub(super) attrs: Vec<SourceAttr>,
    /// An element whose text a plan may edit ([`text_element`]): its content, to its end tag
    /// or the end of the input.
    pub(super) content: Option<Range<usize>>,
}

/// The reason of a `<noscript>` edit whose new text is the old with its URL values replaced.
pub(super) const NOSCRIPT_SPLICED: &str =
    "HTML LS §4.12.2: noscript markup, as consumers without scripting read it";

/// The reason of a `<noscript>` edit whose new text is its markup's tree serialized: not
/// byte-faithful, so the document is written from its tree ([`serialized_text`]).
pub(super) const NOSCRIPT_SERIALIZED: &str =
    "HTML LS §4.12.2: noscript markup, as consumers without scripting read it, serialized";

/// Whether an edit's new text was written from a tree, not spliced into the old.
fn serialized_text(edit: &Edit) -> bool {
    edit.reason == NOSCRIPT_SERIALIZED
}

/// HTML LS §13.2.4.3 "the list of active formatting elements": the elements the tree builder
/// clones.
const FORMATTING: [&str; 14] = [
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Whether a plan may edit the text of this element: an HTML `<style>` or `<noscript>` (raw
/// text to both lol_html and the tree, whose scripting is on), or an SVG `<style>` (whose text
/// is markup: it is matched only where that holds no markup and no character reference).
fn text_element(e: &ElementRef) -> bool {
    e.is_html("style") || e.is_html("noscript") || (e.ns() == ElementNs::Svg && e.name() == "style")
}

impl SourceTag {
    /// Its name as the tree has it: HTML LS "in body", a start tag `image` is treated as `img`
    /// (SVG has its own `image`).
    pub(super) fn tree_name(&self) -> String {
        if self.html && self.name == "image" {
            "img".to_owned()
        } else {
            self.name.clone()
        }
    }

    /// Its attributes that exist in the tree: only the first of duplicates does (HTML LS
    /// §13.2.5.33).
    pub(super) fn tree_attrs(&self) -> impl Iterator<Item = &SourceAttr> {
        let mut seen: Vec<&str> = Vec::new();
        self.attrs.iter().filter(move |a| {
            let first = !seen.contains(&a.name.as_str());
            seen.push(&a.name);
            first
        })
    }
}

/// One attribute of a [`SourceTag`]: its name, its value's range (`None` without a value) and
/// where its name ends.
pub(super) struct SourceAttr {
    pub(super) name: String,
    pub(super) value: Option<Range<usize>>,
    pub(super) name_end: Option<usize>,
}

/// The start tags of `bytes` named in `elements`, with their attributes named in `attrs`, in
/// source order (lol_html, read-only). Filtering here keeps the pass cheap: most tags and
/// attributes of a page have nothing to change.
pub(super) fn source_tags(
    bytes: &[u8],
    encoding: &'static Encoding,
    elements: HashSet<String>,
    attrs: HashSet<String>,
) -> Result<Vec<SourceTag>, Fallback> {
    let settings = crate::tokenize::settings(encoding).ok_or(Fallback::Tokenizer)?;
    let tags: Rc<RefCell<Vec<SourceTag>>> = Rc::default();
    let sink = tags.clone();
    let settings = settings.append_element_content_handler(lol_html::element!("*", move |el| {
        let name = el.tag_name();
        if !elements.contains(&name) {
            return Ok(());
        }
        let html = el.namespace_uri() == "http://www.w3.org/1999/xhtml";
        let svg = el.namespace_uri() == "http://www.w3.org/2000/svg";
        let range = el.source_location().bytes();
        let mut content = None;
        if (html && (name == "style" || name == "noscript")) || (svg && name == "style") {
            // To the end of the input unless its end tag comes.
            content = Some(range.end..usize::MAX);
            let index = sink.borrow().len();
            let ends = sink.clone();
            el.on_end_tag(lol_html::end_tag!(move |end| {
                let at = end.source_location().bytes().start;
                if let Some(Some(c)) = ends.borrow_mut().get_mut(index).map(|t| &mut t.content) {
                    c.end = at;
                }
                Ok(())
            }))?;
        }
        let attrs = el
            .attributes()
            .iter()
            .map(|a| SourceAttr {
                name: a.name(),
                value: a.value_source_location().map(|l| l.bytes()),
                name_end: a.name_source_location().map(|l| l.bytes().end),
            })
            // Kept in order (the first of duplicates counts), but only names that matter.
            .filter(|a| attrs.contains(&a.name))
            .collect();
        sink.borrow_mut().push(SourceTag {
            name,
            html,
            range,
            attrs,
            content,
        });
        Ok(())
    }));
    if !crate::tokenize::read_all(bytes, settings) {
        return Err(Fallback::Tokenizer);
    }
    let mut tags = tags.take();
    for content in tags.iter_mut().filter_map(|t| t.content.as_mut()) {
        content.end = content.end.min(bytes.len());
    }
    Ok(tags)
}

/// Raw text as the tree holds it (HTML LS §13.2.5.3 RAWTEXT state, after §13.2.3.5's newline
/// normalization), when writing the tree's text back there would give these very bytes: they
/// decode in the document's encoding and hold no carriage return and no NUL (which the tree
/// holds otherwise); in foreign content (not `html`), no markup either.
fn raw_text(raw: &[u8], encoding: &'static Encoding, html: bool) -> Option<String> {
    if raw.iter().any(|&b| b == b'\r' || b == 0) {
        return None;
    }
    // In foreign content the text is markup: `<` starts a tag and `&` a reference.
    if !html && raw.iter().any(|&b| b == b'<' || b == b'&') {
        return None;
    }
    let (text, malformed) = encoding.decode_without_bom_handling(raw);
    (!malformed).then(|| text.into_owned())
}

/// The DOM engine's plan, its `edits` (and `extra` values at known ranges), as changes to the
/// input's bytes, or why that cannot be done exactly.
pub(crate) fn splice(
    bytes: &[u8],
    doc: &Document,
    edits: &[Edit],
    encoding: &'static Encoding,
    extra: &[(Range<usize>, String)],
) -> Result<Splices, Fallback> {
    if edits.is_empty() && extra.is_empty() {
        return Ok(Splices::new());
    }
    if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
        return utf16_splice(bytes, doc, edits, encoding, extra);
    }
    // Per key: the new value, how many of the tree's elements have an edit for it, and how many
    // source occurrences were matched.
    let mut changes: HashMap<Key, (String, usize, usize)> = HashMap::new();
    // Per `<base href>` value removed: removals planned, source occurrences matched.
    let mut removals: HashMap<String, (usize, usize)> = HashMap::new();
    for edit in edits {
        let element = doc
            .element(edit.node)
            .map(|e| e.name().to_ascii_lowercase())
            .ok_or(Fallback::Unmatched)?;
        match &edit.target {
            EditTarget::Attribute { ns, name } => {
                let attr = source_name(*ns, name).ok_or(Fallback::Unmatched)?;
                let entry = changes
                    .entry((element, attr, edit.old.clone()))
                    .or_insert_with(|| (edit.new.clone(), 0, 0));
                if entry.0 != edit.new {
                    return Err(Fallback::Unmatched);
                }
                entry.1 += 1;
            }
            EditTarget::Remove if element == "base" => {
                removals.entry(edit.old.clone()).or_default().0 += 1;
            }
            EditTarget::Text
                if doc.element(edit.node).is_some_and(text_element) && !serialized_text(edit) =>
            {
                let entry = changes
                    .entry((element, String::new(), edit.old.clone()))
                    .or_insert_with(|| (edit.new.clone(), 0, 0));
                if entry.0 != edit.new {
                    return Err(Fallback::Unmatched);
                }
                entry.1 += 1;
            }
            EditTarget::Remove | EditTarget::Text => return Err(Fallback::TextEdit),
        }
    }
    let texts = changes.keys().any(|(_, attr, _)| attr.is_empty());
    // Source occurrences are matched by value: when an element of the tree has a key that is
    // edited elsewhere but is to stay as it is itself (an ignored second `<base href="">`
    // beside the first, made absolute), the bytes cannot tell them apart.
    let mut in_tree: HashMap<Key, usize> = HashMap::new();
    let mut bases_in_tree: HashMap<String, usize> = HashMap::new();
    for e in doc.elements() {
        let element = e.name().to_ascii_lowercase();
        e.for_each_attr(|ns, name, value| {
            let Some(attr) = source_name(ns, name) else {
                return;
            };
            let key = (element.clone(), attr, value.to_owned());
            if changes.contains_key(&key) {
                *in_tree.entry(key).or_default() += 1;
            }
        });
        if element == "base" {
            if let Some(href) = e.attr("href").filter(|h| removals.contains_key(h)) {
                *bases_in_tree.entry(href).or_default() += 1;
            }
        }
        if texts && text_element(e) {
            let key = (element.clone(), String::new(), e.text());
            if changes.contains_key(&key) {
                *in_tree.entry(key).or_default() += 1;
            }
        }
    }
    let ambiguous = changes
        .iter()
        .any(|(key, (_, edits, _))| in_tree.get(key).copied().unwrap_or(0) > *edits)
        || removals
            .iter()
            .any(|(href, (edits, _))| bases_in_tree.get(href).copied().unwrap_or(0) > *edits);
    if ambiguous {
        return Err(Fallback::Unmatched);
    }
    let mut elements: HashSet<String> = changes.keys().map(|(e, _, _)| e.clone()).collect();
    let mut attrs: HashSet<String> = changes
        .keys()
        .map(|(_, a, _)| a.clone())
        .filter(|a| !a.is_empty())
        .collect();
    if elements.contains("img") {
        elements.insert("image".to_owned());
    }
    if !removals.is_empty() {
        elements.insert("base".to_owned());
        attrs.insert("href".to_owned());
    }
    let mut splices: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
    // Values whose ranges are already known (inside conditional comments).
    for (range, new) in extra {
        let (replace, text) = escaped(bytes, range.clone(), new);
        splices.push((replace, encoding.encode(&text).0.into_owned()));
    }
    for tag in source_tags(bytes, encoding, elements, attrs)? {
        let name = tag.tree_name();
        if let Some(content) = tag.content.clone().filter(|_| texts) {
            let text = bytes
                .get(content.clone())
                .and_then(|raw| raw_text(raw, encoding, tag.html));
            if let Some((new, _, count)) =
                text.and_then(|t| changes.get_mut(&(name.clone(), String::new(), t)))
            {
                let (encoded, _, unmappable) = encoding.encode(new);
                if unmappable {
                    // `&#N;` means nothing in raw text.
                    return Err(Fallback::TextEdit);
                }
                *count += 1;
                splices.push((content, encoded.into_owned()));
            }
        }
        for SourceAttr {
            name: attr,
            value: range,
            name_end,
        } in tag.tree_attrs()
        {
            // An attribute without a value has the value "" in the tree.
            let value = match range {
                Some(range) => {
                    let raw = bytes.get(range.clone()).ok_or(Fallback::Unmatched)?;
                    decode_attribute(raw, encoding).ok_or(Fallback::Undecodable)?
                }
                None => String::new(),
            };
            if name == "base" && attr == "href" {
                if let Some((_, count)) = removals.get_mut(&value) {
                    *count += 1;
                    splices.push((tag.range.clone(), Vec::new()));
                    continue;
                }
            }
            let key = (name.clone(), attr.clone(), value);
            if let Some((new, _, count)) = changes.get_mut(&key) {
                let byte = |i: usize| bytes.get(i).copied();
                let Some((replace, text)) = value_splice(&byte, range.clone(), *name_end, new)
                else {
                    continue;
                };
                *count += 1;
                let (encoded, _, _) = encoding.encode(&text);
                splices.push((replace, encoded.into_owned()));
            }
        }
    }
    // Every edit must have found an occurrence, and no occurrence be left over: lol_html's
    // namespace can differ from the tree's (`<svg><math><mi><image>` is an SVG `image` in the
    // tree, an HTML `img` to lol_html), and an edit left unmatched would be reported made but not
    // written. Fewer occurrences of a formatting element than edits are the tree builder's clones
    // (HTML LS "adoption agency algorithm", "reconstruct the active formatting elements": `<a
    // href><center><img></a></center>` gives two `<a href>` elements of one tag): every element
    // of the tree with that key is edited alike (no element keeps it, checked above), so every
    // occurrence takes the new value. (Their names are the same in every namespace, so no
    // occurrence of them is counted under another key.)
    let clones = |(element, _, _): &Key, edits: usize, n: usize| {
        n > 0 && n < edits && FORMATTING.contains(&element.as_str())
    };
    if changes
        .iter()
        .any(|(key, (_, edits, n))| n != edits && !clones(key, *edits, *n))
        || removals.values().any(|(edits, n)| n != edits)
    {
        return Err(Fallback::Unmatched);
    }
    splices.sort_by_key(|(r, _)| r.start);
    // A removed <base> contains its own href's range: what it contains is already replaced.
    let mut end = 0;
    splices.retain(|(range, _)| {
        let keep = range.start >= end;
        if keep {
            end = range.end;
        }
        keep
    });
    if splices.last().is_some_and(|(r, _)| r.end > bytes.len()) {
        return Err(Fallback::Unmatched);
    }
    // A document's first bytes decide its encoding when they are a byte order mark (HTML LS
    // §13.2.3.1): removing what comes first must not make one out of what follows.
    if let Some((first, new)) = splices.first() {
        let after = bytes.get(first.end..).unwrap_or_default();
        if first.start == 0 && new.is_empty() && Encoding::for_bom(after).is_some() {
            return Err(Fallback::LeadingBom);
        }
    }
    Ok(splices)
}

/// [`splice`] for a UTF-16 document, which lol_html cannot read: the plan is matched in the
/// document's UTF-8 text and each change written at the place of its characters in the
/// document's own bytes, encoded in UTF-16.
fn utf16_splice(
    bytes: &[u8],
    doc: &Document,
    edits: &[Edit],
    encoding: &'static Encoding,
    extra: &[(Range<usize>, String)],
) -> Result<Splices, Fallback> {
    // Values inside conditional comments are not read in UTF-16 (`crate::rewrite::conditional`).
    if !extra.is_empty() {
        return Err(Fallback::Tokenizer);
    }
    let (text, starts) = utf16_text(bytes, encoding).ok_or(Fallback::Tokenizer)?;
    let at = |offset: usize| {
        starts
            .binary_search_by_key(&offset, |&(utf8, _)| utf8)
            .ok()
            .and_then(|i| starts.get(i))
            .map(|&(_, byte)| byte)
    };
    let big_endian = encoding == encoding_rs::UTF_16BE;
    let mut out = Splices::new();
    for (range, new) in splice(text.as_bytes(), doc, edits, encoding_rs::UTF_8, &[])? {
        let (Some(start), Some(end)) = (at(range.start), at(range.end)) else {
            return Err(Fallback::Unmatched);
        };
        let new = String::from_utf8(new).map_err(|_| Fallback::Unmatched)?;
        let units = new.encode_utf16().flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        });
        out.push((start..end, units.collect()));
    }
    Ok(out)
}

/// A UTF-16 document's text (its byte order mark left out), and where each character starts
/// in it and in the bytes, with both ends; `None` where a code unit is malformed (the text
/// would not be the bytes').
fn utf16_text(bytes: &[u8], encoding: &'static Encoding) -> Option<(String, Vec<(usize, usize)>)> {
    let big_endian = encoding == encoding_rs::UTF_16BE;
    let bom: &[u8] = if big_endian { b"\xFE\xFF" } else { b"\xFF\xFE" };
    let unit = |i: usize| {
        let pair = [*bytes.get(i)?, *bytes.get(i + 1)?];
        Some(if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        })
    };
    let mut i = if bytes.starts_with(bom) { 2 } else { 0 };
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut starts = Vec::new();
    while i < bytes.len() {
        let first = unit(i)?;
        let (c, len) = match first {
            0xD800..=0xDBFF => {
                let second = unit(i + 2)?;
                let units = [first, second];
                let c = char::decode_utf16(units).next()?.ok()?;
                (c, 4)
            }
            0xDC00..=0xDFFF => return None,
            _ => (char::from_u32(u32::from(first))?, 2),
        };
        starts.push((text.len(), i));
        text.push(c);
        i += len;
    }
    starts.push((text.len(), bytes.len()));
    Some((text, starts))
}

/// An attribute's name as lol_html gives it in the source (`xlink:href`), or `None` for a
/// namespace the source cannot spell.
pub(super) fn source_name(ns: AttrNs, name: &str) -> Option<String> {
    let name = name.to_ascii_lowercase();
    match ns {
        AttrNs::None => Some(name),
        AttrNs::XLink => Some(format!("xlink:{name}")),
        AttrNs::Xml => Some(format!("xml:{name}")),
        AttrNs::Other => None,
    }
}

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
