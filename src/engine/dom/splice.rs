//! The DOM plan written into the input's own bytes (issue 9, first step).
//!
//! Serializing the parsed tree changes bytes that are not URLs (`&nbsp;`, quotes, self-closing
//! slashes, implied `<tbody>`) and can even change the tree a browser builds. Here the DOM still
//! decides *what* changes (base, every URL, HTML LS semantics), but the output is the input with
//! only the changed attribute values replaced: lol_html, used read-only, gives each start tag's
//! attribute-value byte ranges (never its mutation API, which rebuilds the whole tag); the raw
//! value is decoded by the HTML attribute-value rules and matched with the plan's edits by
//! (element, attribute, old value); the new value is escaped for the quoting in use and encoded in
//! the document's encoding.
//!
//! Anything this cannot match exactly returns `None`, and the caller serializes the tree as
//! before: an edit of element text (`<style>`, `<noscript>`), an edit whose occurrence is not
//! found in the source, two edits of one (element, attribute, value) with different results, a
//! tokenizer lol_html refuses (UTF-16, ISO-2022-JP) or a parsing ambiguity it reports.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;

use super::plan::Plan;
use super::Document;
use crate::engine::Fallback;
use crate::rewrite::EditTarget;
use crate::splice::{decode_attribute, escaped, value_splice, Splices};
use crate::tree::AttrNs;

/// The key an edit and a source occurrence share.
type Key = (String, String, String);

/// One start tag as the source has it: its name, and each attribute's name and value range.
pub(super) struct SourceTag {
    pub(super) name: String,
    pub(super) html: bool,
    pub(super) range: Range<usize>,
    pub(super) attrs: Vec<SourceAttr>,
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
    let tags = Rc::new(RefCell::new(Vec::new()));
    let sink = tags.clone();
    let settings = settings.append_element_content_handler(lol_html::element!("*", move |el| {
        let name = el.tag_name();
        if !elements.contains(&name) {
            return Ok(());
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
            html: el.namespace_uri() == "http://www.w3.org/1999/xhtml",
            range: el.source_location().bytes(),
            attrs,
        });
        Ok(())
    }));
    if !crate::tokenize::read_all(bytes, settings) {
        return Err(Fallback::Tokenizer);
    }
    Ok(tags.take())
}

/// The DOM engine's plan (and `extra` values at known ranges) as changes to the input's bytes,
/// or why that cannot be done exactly.
pub(crate) fn splice(
    bytes: &[u8],
    doc: &Document,
    plan: &Plan,
    encoding: &'static Encoding,
    extra: &[(Range<usize>, String)],
) -> Result<Splices, Fallback> {
    if plan.edits.is_empty() && extra.is_empty() {
        return Ok(Splices::new());
    }
    // Per key: the new value, how many of the tree's elements have an edit for it, and how many
    // source occurrences were matched.
    let mut changes: HashMap<Key, (String, usize, usize)> = HashMap::new();
    // Per `<base href>` value removed: removals planned, source occurrences matched.
    let mut removals: HashMap<String, (usize, usize)> = HashMap::new();
    for edit in &plan.edits {
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
            EditTarget::Remove | EditTarget::Text => return Err(Fallback::TextEdit),
        }
    }
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
    let mut attrs: HashSet<String> = changes.keys().map(|(_, a, _)| a.clone()).collect();
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
    // Every edit must have found its own occurrence, no more and no fewer: lol_html's namespace
    // can differ from the tree's (`<svg><math><mi><image>` is an SVG `image` in the tree, an
    // HTML `img` to lol_html), and an edit left unmatched would be reported made but not written.
    if changes.values().any(|(_, edits, n)| n != edits)
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
