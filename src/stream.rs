//! ③–⑥ The streaming engine (issue 9, `../shared/STREAMING.md`): the document is never parsed
//! into a tree. lol_html, used read-only, tokenizes the bytes as they are and gives each start
//! tag's name, namespace and attribute-value byte ranges; a small tree-context layer adds what a
//! tokenizer does not model; the rules of [`crate::rewrite`] decide every URL; and the output is
//! the input with only the changed values replaced (byte ranges, in source order).
//!
//! **Base first.** Pass 1 looks for the first HTML `<base href>` outside `<template>` contents,
//! and runs only when the bytes `<base` occur at all; pass 2 resolves every URL against the base
//! so settled. Where token order is not tree order for the base (a `<base>` inside a table, which
//! foster parenting moves, or after `<frameset>`, which the tree builder ignores), the document
//! goes to the DOM engine instead ([`Fallback`]).
//!
//! **The tree-context layer** (STREAMING.md §2): `<template>` depth (its `<base>` never counts;
//! its links are still rewritten), `<image>` read as `img` in HTML, the first of duplicate
//! attributes only, `xlink:href` by namespace, SVG names in their HTML LS case, `<style>` text,
//! `<noscript>` (raw text to lol_html, as with scripting on: its bytes are run through a nested
//! pass, as consumers without scripting read them, offsets mapped back) and `iframe srcdoc`
//! (a document of its own, rewritten by a nested pass).
//!
//! Known differences from the DOM engine, by design: links are reported per source occurrence
//! (an `<a>` cloned by the adoption agency is one link; a nested `<form action>`, inert in the
//! DOM, is reported and rewritten, which is harmless); the attributes of a second `<html>` or
//! `<body>` tag are rewritten where they are written.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;

use crate::base::{with_base_element, Base, Outer};
use crate::decode::{self, Decoded, EncodingSource};
use crate::dom::{AttrNs, ElementNs, NodeId};
use crate::error::Diagnostic;
use crate::rewrite::{EditTarget, ElementView, Found, Link, Nested, Planner, RewriteOptions};
use crate::splice::{decode_attribute, escaped, Fallback};

/// lol_html's buffers are bounded by this; a longer tag or comment is handed to the DOM engine.
const MEMORY_LIMIT: usize = 64 * 1024 * 1024;

/// How deep `<noscript>` markup is followed inside `<noscript>` markup.
const MAX_NESTING: usize = 8;

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";
const SVG_NS: &str = "http://www.w3.org/2000/svg";
const MATHML_NS: &str = "http://www.w3.org/1998/Math/MathML";

/// What the streaming engine found and decided for one document.
#[derive(Debug)]
pub(crate) struct Streamed {
    /// The base every URL was resolved against.
    pub base: Base,
    /// Every URL occurrence, in source order.
    pub links: Vec<Link>,
    /// Document-level findings (ignored bases, …).
    pub diagnostics: Vec<Diagnostic>,
    /// The changes: a range of the input and the bytes that replace it, in source order,
    /// non-overlapping.
    pub splices: Vec<(Range<usize>, Vec<u8>)>,
}

impl Streamed {
    /// The input with the changes written in.
    pub(crate) fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        apply(bytes, &self.splices)
    }
}

/// `bytes` with `splices` (sorted, non-overlapping ranges) written in.
pub(crate) fn apply(bytes: &[u8], splices: &[(Range<usize>, Vec<u8>)]) -> Vec<u8> {
    let extra: usize = splices.iter().map(|(_, b)| b.len()).sum();
    let mut out = Vec::with_capacity(bytes.len() + extra);
    let mut at = 0;
    for (range, text) in splices {
        out.extend_from_slice(bytes.get(at..range.start).unwrap_or_default());
        out.extend_from_slice(text);
        at = range.end;
    }
    out.extend_from_slice(bytes.get(at..).unwrap_or_default());
    out
}

/// The streaming engine over a whole document whose encoding is sniffed (`decoded`) and whose
/// outer layers are `outer`; `Err` says why the DOM engine must take it.
pub(crate) fn run(
    bytes: &[u8],
    decoded: &Decoded,
    outer: &Outer,
    options: &RewriteOptions,
) -> Result<Streamed, Fallback> {
    if options.drop_base {
        // Which bases may go depends on every link of the document (rewrite::drop_bases).
        return Err(Fallback::DropBase);
    }
    let encoding = decoded.encoding;
    let mut diagnostics = Vec::new();
    let chosen = find_base(bytes, encoding)?;
    let base = with_base_element(
        &outer.base,
        chosen.as_ref().map(|(_, href)| href.as_str()),
        options.resolve,
        &mut diagnostics,
    );
    let tentative = matches!(
        decoded.source,
        EncodingSource::Meta | EncodingSource::Fallback
    );
    let pass = Pass {
        bytes,
        offset: 0,
        encoding,
        outer,
        options,
        depth: 0,
        nesting: 0,
        chosen: chosen.map(|(at, _)| NodeId(at)),
        tentative,
        report_bases: true,
    };
    let mut out = pass.run(base.clone())?;
    diagnostics.append(&mut out.diagnostics);
    Ok(Streamed {
        base,
        links: out.found.links,
        diagnostics,
        splices: out.splices,
    })
}

/// An `iframe srcdoc` document (UTF-8 text, HTML LS §4.8.5) through the streaming engine: its
/// links, and its new text when any URL changed; `None` when the DOM engine must take it.
pub(crate) fn nested_document(
    text: &str,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
) -> Option<(Vec<Link>, Option<String>)> {
    let bytes = text.as_bytes();
    let encoding = encoding_rs::UTF_8;
    let mut diagnostics = Vec::new();
    let chosen = find_base(bytes, encoding).ok()?;
    let base = with_base_element(
        &outer.base,
        chosen.as_ref().map(|(_, href)| href.as_str()),
        options.resolve,
        &mut diagnostics,
    );
    let pass = Pass {
        bytes,
        offset: 0,
        encoding,
        outer,
        options,
        depth,
        nesting: 0,
        chosen: chosen.map(|(at, _)| NodeId(at)),
        tentative: false,
        report_bases: true,
    };
    let out = pass.run(base.clone()).ok()?;
    let streamed = Streamed {
        base,
        links: out.found.links,
        diagnostics,
        splices: out.splices,
    };
    let new = (!streamed.splices.is_empty())
        .then(|| String::from_utf8(streamed.apply(bytes)).ok())
        .flatten();
    Some((streamed.links, new))
}

/// Pass 1: the first HTML `<base>` with an `href` outside `<template>` contents (its start tag's
/// offset and its decoded `href`), or why token order cannot settle it. Skipped when `<base`
/// does not occur in the bytes.
fn find_base(
    bytes: &[u8],
    encoding: &'static Encoding,
) -> Result<Option<(usize, String)>, Fallback> {
    if !contains_base_tag(bytes) {
        return Ok(None);
    }
    struct State {
        template: usize,
        table: usize,
        frameset: bool,
        found: Option<Result<(usize, String), Fallback>>,
    }
    let state = Rc::new(RefCell::new(State {
        template: 0,
        table: 0,
        frameset: false,
        found: None,
    }));
    let handler_state = state.clone();
    let lol_encoding =
        lol_html::AsciiCompatibleEncoding::new(encoding).ok_or(Fallback::Tokenizer)?;
    let settings = lol_html::Settings::new()
        .with_encoding(lol_encoding)
        .with_memory_settings(
            lol_html::MemorySettings::new().with_max_allowed_memory_usage(MEMORY_LIMIT),
        )
        .append_element_content_handler(lol_html::element!("*", move |el| {
            if el.namespace_uri() != HTML_NS {
                return Ok(());
            }
            let name = el.tag_name();
            let counter = match name.as_str() {
                "template" => Some(true),
                "table" => Some(false),
                "frameset" => {
                    handler_state.borrow_mut().frameset = true;
                    None
                }
                "base" => {
                    let mut s = handler_state.borrow_mut();
                    if s.template > 0 {
                        return Ok(());
                    }
                    let Some(href) = el.attributes().iter().find(|a| a.name() == "href") else {
                        return Ok(());
                    };
                    let found = if s.table > 0 || s.frameset {
                        Err(Fallback::AmbiguousBase)
                    } else {
                        let value = href
                            .value_source_location()
                            .and_then(|l| bytes.get(l.bytes()))
                            .map_or(Some(String::new()), |raw| decode_attribute(raw, encoding));
                        value
                            .map(|v| (el.source_location().bytes().start, v))
                            .ok_or(Fallback::Undecodable)
                    };
                    s.found = Some(found);
                    // Nothing after the first base matters to pass 1: stop here.
                    return Err("base found".into());
                }
                _ => None,
            };
            if let Some(template) = counter {
                {
                    let mut s = handler_state.borrow_mut();
                    if template {
                        s.template += 1;
                    } else {
                        s.table += 1;
                    }
                }
                let end_state = handler_state.clone();
                // Elements closed implicitly get no end tag handler: a table left open keeps
                // the count up, which can only send a later base to the DOM engine.
                let _ = el.on_end_tag(lol_html::end_tag!(move |_| {
                    let mut s = end_state.borrow_mut();
                    if template {
                        s.template = s.template.saturating_sub(1);
                    } else {
                        s.table = s.table.saturating_sub(1);
                    }
                    Ok(())
                }));
            }
            Ok(())
        }));
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |_: &[u8]| {});
    let result = rewriter.write(bytes).and_then(|()| rewriter.end());
    let found = state.borrow_mut().found.take();
    match (found, result) {
        (Some(found), _) => found.map(Some),
        (None, Ok(())) => Ok(None),
        (None, Err(_)) => Err(Fallback::Tokenizer),
    }
}

/// Whether the bytes `<base` occur, ASCII case-insensitively.
fn contains_base_tag(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'<', bytes).any(|i| {
        bytes
            .get(i + 1..i + 5)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"base"))
    })
}

/// One pass of pass 2 over `bytes` (the document, or `<noscript>` markup inside it at `offset`).
struct Pass<'a> {
    bytes: &'a [u8],
    /// Where `bytes` starts in the document (for `<noscript>` markup).
    offset: usize,
    encoding: &'static Encoding,
    outer: &'a Outer,
    options: &'a RewriteOptions,
    /// `iframe srcdoc` depth.
    depth: usize,
    /// `<noscript>` depth.
    nesting: usize,
    /// The `<base>` pass 1 chose (its start tag's offset).
    chosen: Option<NodeId>,
    /// The encoding is only tentative: a `<meta>` declaring another one sends the document to
    /// the DOM engine, which re-decodes it (HTML LS "change the encoding").
    tentative: bool,
    /// Report `<base href>` elements other than the chosen one.
    report_bases: bool,
}

/// What one pass produces.
struct PassOut {
    found: Found,
    splices: Vec<(Range<usize>, Vec<u8>)>,
    diagnostics: Vec<Diagnostic>,
}

/// The end of an element whose content matters, recorded by an end tag handler (which must be
/// `'static`) and acted on before the next start tag.
enum EndEvent {
    Template,
    Style { node: NodeId, content: Range<usize> },
    Noscript { node: NodeId, content: Range<usize> },
}

/// The state an element handler works on.
struct Walk<'a> {
    pass: &'a Pass<'a>,
    planner: Planner<'a>,
    out: PassOut,
    template: usize,
    meta_seen: bool,
    bail: Option<Fallback>,
    /// An HTML `<style>` or `<noscript>` whose end tag has not come (raw text runs to the end
    /// of the input when it never does): the event its end would give, with the content's start.
    open: Option<EndEvent>,
}

impl<'a> Pass<'a> {
    fn run(&self, base: Base) -> Result<PassOut, Fallback> {
        let mut planner_diagnostics = Vec::new();
        let mut planner = Planner::new(
            base,
            self.outer,
            self.options,
            self.depth,
            self.encoding,
            &mut planner_diagnostics,
        );
        planner.nested = Nested::Stream;
        let walk = RefCell::new(Walk {
            pass: self,
            planner,
            out: PassOut {
                found: Found::default(),
                splices: Vec::new(),
                diagnostics: planner_diagnostics,
            },
            template: 0,
            meta_seen: false,
            bail: None,
            open: None,
        });
        let events: Rc<RefCell<Vec<EndEvent>>> = Rc::default();
        let lol_encoding =
            lol_html::AsciiCompatibleEncoding::new(self.encoding).ok_or(Fallback::Tokenizer)?;
        let handler_events = events.clone();
        let settings = lol_html::Settings::new()
            .with_encoding(lol_encoding)
            .with_memory_settings(
                lol_html::MemorySettings::new().with_max_allowed_memory_usage(MEMORY_LIMIT),
            )
            .append_element_content_handler(lol_html::element!("*", |el| {
                let mut walk = walk.borrow_mut();
                let pending = std::mem::take(&mut *handler_events.borrow_mut());
                for event in pending {
                    walk.end(event);
                }
                walk.start(el, &handler_events);
                if walk.bail.is_some() {
                    return Err("fallback".into());
                }
                Ok(())
            }));
        let mut rewriter = lol_html::HtmlRewriter::new(settings, |_: &[u8]| {});
        let result = rewriter.write(self.bytes).and_then(|()| rewriter.end());
        let mut walk = walk.into_inner();
        if let Some(why) = walk.bail {
            return Err(why);
        }
        result.map_err(|_| Fallback::Tokenizer)?;
        for event in events.take() {
            walk.end(event);
        }
        // Raw text without an end tag runs to the end of the input (HTML LS §13.2.5.3).
        if let Some(event) = walk.open.take() {
            walk.end(event);
        }
        if let Some(why) = walk.bail {
            return Err(why);
        }
        let mut out = walk.out;
        out.splices.sort_by_key(|(r, _)| r.start);
        Ok(out)
    }
}

/// A start tag as the rules see it.
struct Tag {
    id: NodeId,
    name: String,
    ns: ElementNs,
    /// Namespace, local name, decoded value, the raw value's range in the document (`None`
    /// for a valueless attribute) and where the name ends (to give a valueless one a value).
    attrs: Vec<TagAttr>,
}

struct TagAttr {
    ns: AttrNs,
    name: String,
    value: String,
    range: Option<Range<usize>>,
    name_end: Option<usize>,
    /// The raw value decodes in the document's encoding, so a new one can be written.
    writable: bool,
}

impl ElementView for Tag {
    fn id(&self) -> NodeId {
        self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn ns(&self) -> ElementNs {
        self.ns
    }
    fn attr(&self, name: &str) -> Option<String> {
        self.attrs
            .iter()
            .find(|a| a.ns == AttrNs::None && a.name == name)
            .map(|a| a.value.clone())
    }
    fn for_each_attr(&self, f: &mut dyn FnMut(AttrNs, &str, &str)) {
        for a in &self.attrs {
            f(a.ns, &a.name, &a.value);
        }
    }
}

impl Walk<'_> {
    /// A start tag.
    fn start(
        &mut self,
        el: &mut lol_html::html_content::Element<'_, '_>,
        events: &Rc<RefCell<Vec<EndEvent>>>,
    ) {
        let pass = self.pass;
        // Most start tags hold no URL and need no context (measured: decoding every value of
        // every tag was half the time): answer those from the raw bytes, without allocating.
        if !self.matters(el) {
            return;
        }
        let ns = match el.namespace_uri() {
            HTML_NS => ElementNs::Html,
            SVG_NS => ElementNs::Svg,
            MATHML_NS => ElementNs::MathMl,
            _ => ElementNs::Other,
        };
        let location = el.source_location().bytes();
        let at = pass.offset + location.start;
        let mut name = el.tag_name();
        if ns == ElementNs::Html && name == "image" {
            // HTML LS "in body": a start tag `image` is treated as `img`.
            name = "img".to_owned();
        } else if ns == ElementNs::Svg {
            name = svg_tag_name(&name).unwrap_or(&name).to_owned();
        }
        let tag = self.tag(el, NodeId(at), name, ns);
        let html = ns == ElementNs::Html;
        match (html, tag.name.as_str()) {
            (true, "template") => {
                self.template += 1;
                let events = events.clone();
                let _ = el.on_end_tag(lol_html::end_tag!(move |_| {
                    events.borrow_mut().push(EndEvent::Template);
                    Ok(())
                }));
            }
            (true, "meta") if pass.tentative && !self.meta_seen && self.template == 0 => {
                let declared = decode::meta_element_encoding(
                    tag.attr("charset").as_deref(),
                    tag.attr("http-equiv").as_deref(),
                    tag.attr("content").as_deref(),
                );
                if let Some(encoding) = declared {
                    self.meta_seen = true;
                    if encoding != pass.encoding {
                        self.bail = Some(Fallback::LateMeta);
                        return;
                    }
                }
            }
            (true, "base") if pass.report_bases && self.template == 0 => {
                if let Some(href) = tag.attr("href") {
                    if Some(tag.id) != pass.chosen {
                        self.out.diagnostics.push(Diagnostic::new(
                            "duplicate-base",
                            format!("<base href={href:?}> is not the first base element with an href; browsers ignore it"),
                        ));
                    }
                }
            }
            _ => {}
        }
        let content = (tag.name == "style" && matches!(ns, ElementNs::Html | ElementNs::Svg))
            .then_some(true)
            .or((html && tag.name == "noscript").then_some(false));
        if let Some(style) = content {
            let events = events.clone();
            let node = tag.id;
            let offset = pass.offset;
            let start = location.end;
            if html {
                let content = offset + start..offset + pass.bytes.len();
                self.open = Some(if style {
                    EndEvent::Style { node, content }
                } else {
                    EndEvent::Noscript { node, content }
                });
            }
            let _ = el.on_end_tag(lol_html::end_tag!(move |end| {
                let content = offset + start..offset + end.source_location().bytes().start;
                events.borrow_mut().push(if style {
                    EndEvent::Style { node, content }
                } else {
                    EndEvent::Noscript { node, content }
                });
                Ok(())
            }));
        }
        let before = self.out.found.edits.len();
        let links_before = self.out.found.links.len();
        self.planner
            .attributes(&mut self.out.found, &tag, pass.chosen);
        let edits: Vec<_> = self.out.found.edits.drain(before..).collect();
        for edit in edits {
            let EditTarget::Attribute { ns, name } = &edit.target else {
                continue;
            };
            let Some(attr) = tag.attrs.iter().find(|a| a.ns == *ns && a.name == *name) else {
                continue;
            };
            if !attr.writable {
                // Reported as resolved, but the raw value is not text in the document's
                // encoding: writing a new one would lose bytes.
                for link in self
                    .out
                    .found
                    .links
                    .get_mut(links_before..)
                    .unwrap_or_default()
                {
                    if link.attribute.as_deref() == Some(attribute_name(*ns, name).as_str()) {
                        link.rewritten = false;
                    }
                }
                continue;
            }
            let splice = match (&attr.range, attr.name_end) {
                (Some(range), _) => {
                    let (range, text) =
                        escaped(pass.bytes, shift(range, pass.offset, false), &edit.new);
                    (shift(&range, pass.offset, true), text)
                }
                (None, Some(end)) => {
                    let (_, text) = escaped(b"", 0..0, &edit.new);
                    let quoted = if text.starts_with('"') {
                        text
                    } else {
                        format!("\"{text}\"")
                    };
                    (end..end, format!("={quoted}"))
                }
                (None, None) => continue,
            };
            let (encoded, _, _) = pass.encoding.encode(&splice.1);
            self.out.splices.push((splice.0, encoded.into_owned()));
        }
    }

    /// Whether a start tag can matter: a name the context layer tracks, or an attribute the
    /// rules read.
    fn matters(&self, el: &lol_html::html_content::Element<'_, '_>) -> bool {
        let bytes = self.pass.bytes;
        let start = el.source_location().bytes().start;
        let name = bytes
            .get(start + 1..)
            .map(|rest| {
                let end = rest
                    .iter()
                    .position(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
                    .unwrap_or(rest.len());
                rest.get(..end).unwrap_or_default()
            })
            .unwrap_or_default();
        if ["template", "meta", "base", "style", "noscript"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
        {
            return true;
        }
        el.attributes()
            .iter()
            .any(|a| match a.name_source_location() {
                Some(l) => bytes.get(l.bytes()).is_some_and(is_read_attribute),
                None => true,
            })
    }

    /// The element's attributes as the tree would have them.
    fn tag(
        &self,
        el: &lol_html::html_content::Element<'_, '_>,
        id: NodeId,
        name: String,
        ns: ElementNs,
    ) -> Tag {
        let pass = self.pass;
        let attributes = el.attributes();
        let mut attrs: Vec<TagAttr> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for a in attributes {
            let read = match a.name_source_location() {
                Some(l) => pass.bytes.get(l.bytes()).is_some_and(is_read_attribute),
                None => true,
            };
            if !read {
                continue;
            }
            let raw_name = a.name();
            // Only the first of duplicate attributes exists in the tree (HTML LS §13.2.5.33).
            if seen.contains(&raw_name) {
                continue;
            }
            seen.push(raw_name.clone());
            let (attr_ns, local) = if ns == ElementNs::Html {
                (AttrNs::None, raw_name)
            } else {
                foreign_attribute(raw_name)
            };
            let range = a.value_source_location().map(|l| l.bytes());
            let decoded = match &range {
                Some(r) => pass
                    .bytes
                    .get(r.clone())
                    .and_then(|raw| decode_attribute(raw, pass.encoding)),
                None => Some(String::new()),
            };
            let writable = decoded.is_some();
            let value = decoded.unwrap_or_else(|| {
                let raw = range
                    .clone()
                    .and_then(|r| pass.bytes.get(r))
                    .unwrap_or_default();
                let lossy = pass.encoding.decode_without_bom_handling(raw).0;
                decode_attribute(lossy.as_bytes(), encoding_rs::UTF_8).unwrap_or_default()
            });
            attrs.push(TagAttr {
                ns: attr_ns,
                name: local,
                value,
                range: range.map(|r| pass.offset + r.start..pass.offset + r.end),
                name_end: a
                    .name_source_location()
                    .map(|l| pass.offset + l.bytes().end),
                writable,
            });
        }
        Tag {
            id,
            name,
            ns,
            attrs,
        }
    }

    /// The end of an element whose content matters.
    fn end(&mut self, event: EndEvent) {
        let pass = self.pass;
        if matches!(event, EndEvent::Style { .. } | EndEvent::Noscript { .. }) {
            self.open = None;
        }
        match event {
            EndEvent::Template => self.template = self.template.saturating_sub(1),
            EndEvent::Style { node, content } => {
                let raw = pass
                    .bytes
                    .get(shift(&content, pass.offset, false))
                    .unwrap_or_default();
                let (text, malformed) = pass.encoding.decode_without_bom_handling(raw);
                let before = self.out.found.edits.len();
                self.planner
                    .style_text(&mut self.out.found, node, text.into_owned());
                let edits: Vec<_> = self.out.found.edits.drain(before..).collect();
                for edit in edits {
                    if malformed {
                        continue;
                    }
                    let (encoded, _, unmappable) = pass.encoding.encode(&edit.new);
                    if unmappable {
                        // `&#N;` means nothing in raw text: keep the stylesheet as it was.
                        continue;
                    }
                    self.out
                        .splices
                        .push((content.clone(), encoded.into_owned()));
                }
            }
            EndEvent::Noscript { node, content } => {
                let local = shift(&content, pass.offset, false);
                let raw = pass.bytes.get(local).unwrap_or_default();
                if raw.iter().all(u8::is_ascii_whitespace) || pass.nesting >= MAX_NESTING {
                    return;
                }
                // HTML LS §4.12.2: consumers without scripting read the content as markup; a
                // `<base>` inside it does not count (chosen is none, nothing reported).
                let inner = Pass {
                    bytes: raw,
                    offset: content.start,
                    nesting: pass.nesting + 1,
                    chosen: None,
                    tentative: false,
                    report_bases: false,
                    ..*pass
                };
                match inner.run(self.planner.base().clone()) {
                    Ok(mut out) => {
                        self.out
                            .found
                            .links
                            .extend(out.found.links.into_iter().map(|mut l| {
                                l.node = node;
                                l
                            }));
                        self.out.splices.append(&mut out.splices);
                    }
                    Err(why) => self.bail = Some(why),
                }
            }
        }
    }
}

/// Whether the rules read an attribute of this raw name (ASCII case-insensitively): a URL
/// attribute of the table, `xlink:href`, or one a condition or the context layer reads.
fn is_read_attribute(raw: &[u8]) -> bool {
    let mut lower = [0u8; 16];
    let Some(buf) = lower.get_mut(..raw.len()) else {
        return false;
    };
    for (l, r) in buf.iter_mut().zip(raw) {
        *l = r.to_ascii_lowercase();
    }
    let Ok(name) = std::str::from_utf8(buf) else {
        return false;
    };
    crate::rewrite::targets::is_url_attribute_name(name)
        || matches!(name, "xlink:href" | "type" | "http-equiv" | "charset")
}

/// A range moved into (`into`) or out of the coordinates of a pass that starts at `offset`.
fn shift(range: &Range<usize>, offset: usize, into: bool) -> Range<usize> {
    if into {
        range.start + offset..range.end + offset
    } else {
        range.start.saturating_sub(offset)..range.end.saturating_sub(offset)
    }
}

/// How the report names an attribute.
fn attribute_name(ns: AttrNs, name: &str) -> String {
    match ns {
        AttrNs::XLink => format!("xlink:{name}"),
        _ => name.to_owned(),
    }
}

/// HTML LS "adjust foreign attributes": `xlink:href` is `href` in the XLink namespace, and so on.
fn foreign_attribute(name: String) -> (AttrNs, String) {
    if let Some(local) = name.strip_prefix("xlink:") {
        return (AttrNs::XLink, local.to_owned());
    }
    if let Some(local) = name.strip_prefix("xml:") {
        return (AttrNs::Xml, local.to_owned());
    }
    if name == "xmlns" || name.starts_with("xmlns:") {
        return (AttrNs::Other, name);
    }
    (AttrNs::None, name)
}

/// HTML LS "adjust SVG tag names" (§13.2.6.5, the table in "any other start tag" in foreign
/// content): lol_html lowercases, the tree has these in camel case.
fn svg_tag_name(lower: &str) -> Option<&'static str> {
    const NAMES: [&str; 37] = [
        "altGlyph",
        "altGlyphDef",
        "altGlyphItem",
        "animateColor",
        "animateMotion",
        "animateTransform",
        "clipPath",
        "feBlend",
        "feColorMatrix",
        "feComponentTransfer",
        "feComposite",
        "feConvolveMatrix",
        "feDiffuseLighting",
        "feDisplacementMap",
        "feDistantLight",
        "feDropShadow",
        "feFlood",
        "feFuncA",
        "feFuncB",
        "feFuncG",
        "feFuncR",
        "feGaussianBlur",
        "feImage",
        "feMerge",
        "feMergeNode",
        "feMorphology",
        "feOffset",
        "fePointLight",
        "feSpecularLighting",
        "feSpotLight",
        "feTile",
        "feTurbulence",
        "foreignObject",
        "glyphRef",
        "linearGradient",
        "radialGradient",
        "textPath",
    ];
    NAMES
        .iter()
        .find(|n| n.eq_ignore_ascii_case(lower))
        .copied()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// `html` rewritten against `http://h/a/b` by the streaming engine alone.
    fn rewrite(html: &str) -> String {
        let bytes = html.as_bytes();
        let decoded = decode::sniff_only(bytes, Some("utf-8")).unwrap();
        let uri = crate::Uri::parse("http://h/a/b").ok();
        let outer = Outer {
            base: Base {
                uri: uri.clone(),
                source: crate::BaseSource::RetrievalUri,
            },
            document_uri: uri,
        };
        let streamed = run(bytes, &decoded, &outer, &RewriteOptions::default()).unwrap();
        String::from_utf8(streamed.apply(bytes)).unwrap()
    }

    #[test]
    fn only_url_bytes_change() {
        assert_eq!(
            rewrite("<P CLASS=x>&nbsp;<a  HREF = 'a?x=1&amp;y=2' href=dup>a</a><image src=i>"),
            "<P CLASS=x>&nbsp;<a  HREF = 'http://h/a/a?x=1&amp;y=2' href=dup>a</a><image src=http://h/a/i>"
        );
        assert_eq!(
            rewrite("<svg><a xlink:href=s href=t></a></svg><a xlink:href=u>"),
            "<svg><a xlink:href=http://h/a/s href=http://h/a/t></a></svg><a xlink:href=u>"
        );
        assert_eq!(
            rewrite("<template><base href=/t/></template><a href=x>"),
            "<template><base href=http://h/t/></template><a href=http://h/a/x>"
        );
    }

    /// Found by `fuzz/engines.rs`: raw text whose end tag never comes runs to the end of the
    /// input, and its URLs count (the DOM engine rewrote them, the streaming engine skipped them).
    #[test]
    fn raw_text_without_an_end_tag_runs_to_the_end() {
        assert_eq!(
            rewrite("<noscript><a href=x>x</a>"),
            "<noscript><a href=http://h/a/x>x</a>"
        );
        assert_eq!(
            rewrite("<style>p{background:url(x.png)}"),
            "<style>p{background:url(http://h/a/x.png)}"
        );
        assert_eq!(
            rewrite("<noscript><a href=x></noscript><a href=y>"),
            "<noscript><a href=http://h/a/x></noscript><a href=http://h/a/y>"
        );
    }

    #[test]
    fn base_tag_is_found_in_any_case() {
        assert!(contains_base_tag(b"<p><BASE href=x>"));
        assert!(contains_base_tag(b"<bAsE>"));
        assert!(!contains_base_tag(b"<p>base<bas e>"));
    }

    #[test]
    fn pass_one_finds_the_first_base_outside_templates() {
        let utf8 = encoding_rs::UTF_8;
        let found = find_base(
            b"<template><base href=t></template><base href='a&amp;b'><base href=c>",
            utf8,
        )
        .unwrap();
        assert_eq!(found, Some((34, "a&b".to_owned())));
        assert_eq!(find_base(b"<p>no base", utf8).unwrap(), None);
        assert_eq!(
            find_base(b"<table><tr><td><base href=x>", utf8),
            Err(Fallback::AmbiguousBase)
        );
        assert_eq!(
            find_base(b"<frameset></frameset><base href=x>", utf8),
            Err(Fallback::AmbiguousBase)
        );
        assert_eq!(
            find_base(b"<table></table><base href=x>", utf8).unwrap(),
            Some((15, "x".to_owned()))
        );
    }
}
