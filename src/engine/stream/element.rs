//! A start tag as the tree would have it, what each pass does at it, and the end of the
//! elements whose content matters.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use super::names::*;
use super::tag::{tree_name, Lexed, RawTag};
use super::walk::*;
use crate::decode::{self};
use crate::engine::fallback::Fallback;
use crate::error::Diagnostic;
use crate::rewrite::{EditTarget, ElementView, MAX_NESTING};
use crate::splice::{decode_attribute, value_splice};
use crate::tree::{AttrNs, ElementNs, NodeId};

/// A start tag as the rules see it.
pub(super) struct Tag {
    pub(super) id: NodeId,
    pub(super) name: String,
    pub(super) ns: ElementNs,
    /// Namespace, local name, decoded value, the raw value's range in the document (`None`
    /// for a valueless attribute) and where the name ends (to give a valueless one a value).
    pub(super) attrs: Vec<TagAttr>,
}

pub(super) struct TagAttr {
    pub(super) ns: AttrNs,
    pub(super) name: String,
    pub(super) value: String,
    pub(super) range: Option<Range<usize>>,
    pub(super) name_end: Option<usize>,
    /// The raw value decodes in the document's encoding, so a new one can be written.
    pub(super) writable: bool,
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

impl Walk<'_, '_> {
    /// The links found since there were `from`.
    fn links_since(&mut self, from: usize) -> &mut [crate::rewrite::Link] {
        self.out.found.links.get_mut(from..).unwrap_or_default()
    }

    /// Whether the walk ends here: the DOM engine must take the document, or (pass 1) the
    /// base is found.
    pub(super) fn stopped(&self) -> bool {
        self.bail.is_some() || self.restart
    }

    /// Whether the walk reads an attribute of this raw name (ASCII case-insensitively).
    pub(super) fn reads(&self, raw: &[u8]) -> bool {
        is_read_attribute(raw)
            || (self.pass.mode == Mode::Targets
                && (raw.eq_ignore_ascii_case(b"id") || raw.eq_ignore_ascii_case(b"name")))
    }

    /// Whether a start tag can matter to this walk: a name the context layer tracks, or an
    /// attribute it reads.
    pub(super) fn matters(&self, raw: &RawTag<'_>) -> bool {
        matters_name(raw.name())
            || (self.pass.finds_base() && raw.is("table"))
            || raw.attrs().any(|a| self.reads(raw.get(a.name.clone())))
    }

    /// A start tag at `tag` (document offsets) in namespace `ns`: one lol_html reports (`el`),
    /// or one the scanner found between them (HTML, and never one lol_html reports).
    pub(super) fn start(
        &mut self,
        tag: Range<usize>,
        lexed: Lexed<'_>,
        ns: ElementNs,
        mut el: Option<&mut lol_html::html_content::Element<'_, '_>>,
        events: &Rc<RefCell<Vec<Ended>>>,
    ) {
        let pass = self.pass;
        let at = tag.start;
        // The tag's own bytes are at hand: they have not been written yet.
        let Some(raw) = self.input(tag.clone()).map(|b| RawTag::new(b, lexed)) else {
            return;
        };
        let in_foreign =
            matches!(ns, ElementNs::Svg | ElementNs::MathMl) || self.svg + self.math > 0;
        if in_foreign && is_breakout(&tree_name(raw.name(), pass.encoding), &raw) {
            // HTML LS §13.2.6.5: these start tags leave foreign content in the tree; lol_html
            // keeps some of them in SVG or MathML (`<svg><svg><i>`, `<svg><svg><s><e href>`),
            // so what follows them may be read in the wrong namespace, link or not. Where it
            // does leave (`<svg><i>` is HTML to it), the open `<svg>` it popped never ends for
            // our count, and a later `<svg/>` leaves it in SVG (`<svg><i><svg/><e href>`).
            self.bail = Some(Fallback::MathMlStray);
            return;
        }
        // Most start tags hold no URL and need no context (measured: decoding every value of
        // every tag was half the time): answer those from the raw bytes, without allocating.
        if !self.matters(&raw) {
            return;
        }
        // The tokenizer reads U+0000 in a name as U+FFFD (HTML LS "tag name state").
        let mut name = tree_name(raw.name(), pass.encoding);
        if ns == ElementNs::Html && matches!(name.as_str(), "frame" | "frameset") {
            // The tree keeps a <frame> only inside <frameset> (in body it is ignored), and after
            // <frameset> it ignores almost everything (`<frameset><a href>`): which is which takes
            // the tree builder's insertion modes, so the DOM engine decides.
            self.bail = Some(Fallback::Frame);
            return;
        }
        if self.math > 0 {
            // Inside MathML, lol_html's idea of which elements are HTML (integration points) and
            // which end tags close what parts from the tree builder's (`<math><a><mi></a><a
            // href>`: MathML `a` in the tree). A link there is rare: the DOM engine takes it.
            self.bail = Some(Fallback::MathMlStray);
            return;
        }
        if ns == ElementNs::MathMl && !is_mathml_element(&name) {
            // Not a MathML element: it is in MathML content only because lol_html did not leave
            // it where the tree builder does (an HTML end tag in foreign content, such as
            // `<a><math></a>`, pops back to HTML there).
            self.bail = Some(Fallback::MathMlStray);
            return;
        }
        if ns == ElementNs::Html && name == "image" {
            // HTML LS "in body": a start tag `image` is treated as `img`.
            name = "img".to_owned();
        } else if ns == ElementNs::Svg {
            if let Some(adjusted) = svg_tag_name(&name) {
                name = adjusted.to_owned();
            }
        }
        if matches!(name.as_str(), "svg" | "math") {
            let svg = name == "svg";
            // lol_html starts a namespace at every <svg>/<math>; the tree builder puts a <math>
            // inside SVG content (and an <svg> inside MathML) in the outer namespace.
            if (svg && self.math > 0) || (!svg && self.svg > 0) {
                self.bail = Some(Fallback::ForeignNesting);
                return;
            }
            let events = events.clone();
            let offset = pass.offset;
            let closes = el.as_mut().map(|el| {
                el.on_end_tag(lol_html::end_tag!(move |end| {
                    let proper = end
                        .name()
                        .eq_ignore_ascii_case(if svg { "svg" } else { "math" });
                    push_end(&events, offset, end, EndEvent::Foreign { svg, proper });
                    Ok(())
                }))
            });
            if closes.is_some_and(|c| c.is_ok()) {
                if svg {
                    self.svg += 1;
                } else {
                    self.math += 1;
                }
            }
        }
        let end = tag.end;
        let tag = self.tag(tag, lexed, NodeId(at), name, ns);
        let html = ns == ElementNs::Html;
        // The <template> element itself is outside its contents.
        let in_template = self.template > 0;
        match (html, tag.name.as_str()) {
            (true, "template") => {
                self.template += 1;
                let events = events.clone();
                let offset = pass.offset;
                if let Some(el) = el.as_mut() {
                    let _ = el.on_end_tag(lol_html::end_tag!(move |end| {
                        let proper = end.name().eq_ignore_ascii_case("template");
                        push_end(&events, offset, end, EndEvent::Template(proper));
                        Ok(())
                    }));
                }
            }
            (true, "meta") if pass.tentative && self.meta.is_none() && self.template == 0 => {
                let declared = decode::meta_element_encoding(
                    tag.attr("charset").as_deref(),
                    tag.attr("http-equiv").as_deref(),
                    tag.attr("content").as_deref(),
                );
                if let Some(encoding) = declared {
                    self.meta = Some(encoding);
                    if encoding != pass.encoding {
                        // Read again in it (HTML LS "change the encoding").
                        self.bail = Some(Fallback::LateMeta);
                        return;
                    }
                }
            }
            (true, "base") if pass.report_bases && self.template == 0 => {
                if let Some(href) = tag.attr("href") {
                    if Some(tag.id) != pass.chosen {
                        self.out.diagnostics.push(Diagnostic::new(
                            crate::error::DiagnosticCode::DuplicateBase,
                            format!("<base href={href:?}> is not the first base element with an href; browsers ignore it"),
                        ));
                    }
                }
            }
            _ => {}
        }
        match pass.mode {
            Mode::Rewrite if pass.verify => self.choose_base(&tag, in_template),
            Mode::Rewrite => {}
            Mode::FindBase => self.choose_base(&tag, in_template),
            Mode::Targets => self.target(&tag, in_template),
        }
        if self.stopped() {
            return;
        }
        let content = (tag.name == "style" && matches!(ns, ElementNs::Html | ElementNs::Svg))
            .then_some(true)
            .or((html && tag.name == "noscript").then_some(false));
        if let Some(style) = content {
            let events = events.clone();
            let node = tag.id;
            let offset = pass.offset;
            let start = end;
            if html {
                self.open = Some((style, node, start));
            } else if self.svg_style.is_some() {
                // A <style> inside an SVG <style>: the outer one holds markup.
                self.bail = Some(Fallback::ForeignStyle);
                return;
            } else {
                self.svg_style = Some((node, start));
            }
            if let Some(io) = &mut self.io {
                io.hold.get_or_insert((start, node));
            }
            if let Some(el) = el.as_mut() {
                let _ = el.on_end_tag(lol_html::end_tag!(move |end| {
                    let content = start..offset + end.source_location().bytes().start;
                    push_end(
                        &events,
                        offset,
                        end,
                        if style {
                            EndEvent::Style { node, content }
                        } else {
                            EndEvent::Noscript { node, content }
                        },
                    );
                    Ok(())
                }));
            }
        }
        if pass.mode != Mode::Rewrite {
            return;
        }
        let before = self.out.found.edits.len();
        let links_before = self.out.found.links.len();
        self.planner
            .attributes(&mut self.out.found, &tag, pass.chosen);
        // Each link is where its attribute's value is (a valueless one: where its name ends).
        for link in self.links_since(links_before) {
            let held_by = link.held_by(pass.depth);
            link.offset = tag
                .attrs
                .iter()
                .find(|a| Some(attribute_name(a.ns, &a.name).as_str()) == held_by)
                .and_then(|a| a.range.as_ref().map(|r| r.start).or(a.name_end));
        }
        // A base element of the document: the one chosen, or another that `--drop-base` removes.
        let document_base = html && tag.name == "base" && !in_template;
        if pass.dropping != Dropping::Off {
            self.count_needing_base(links_before, document_base);
            let other = document_base && Some(tag.id) != pass.chosen;
            if other && pass.dropping == Dropping::Assumed && tag.attr("href").is_some() {
                // What the element holds goes with it.
                self.out.found.edits.truncate(before);
                self.remove(at..end);
                return;
            }
        }
        // Taken while they are written, and given back empty (its allocation kept).
        let mut edits = std::mem::take(&mut self.out.found.edits);
        for edit in edits.drain(before..) {
            let (ns, name, new) = match &edit.target {
                EditTarget::Attribute { ns, name } => (*ns, name.as_str(), edit.new.as_str()),
                // The chosen base element, dropped; or, where some link still needs it, kept
                // with its href made absolute.
                EditTarget::Remove if pass.dropping == Dropping::Assumed => {
                    self.remove(at..end);
                    continue;
                }
                EditTarget::Remove => {
                    let base = self.planner.base();
                    let Some(uri) = base
                        .uri
                        .as_ref()
                        .filter(|_| base.source == crate::base::BaseSource::BaseElement)
                        .map(|u| u.to_string())
                    else {
                        continue;
                    };
                    if edit.old == uri {
                        continue;
                    }
                    self.write_value(&tag, links_before, AttrNs::None, "href", &uri);
                    continue;
                }
                EditTarget::Text => continue,
            };
            self.write_value(&tag, links_before, ns, name, new);
        }
        self.out.found.edits = edits;
    }

    /// The splice that gives the attribute `ns:name` of `tag` the value `new`, unless its raw
    /// value does not decode: then the links found since `links_before` that it holds are
    /// marked as not rewritten (writing a new value would lose bytes).
    fn write_value(&mut self, tag: &Tag, links_before: usize, ns: AttrNs, name: &str, new: &str) {
        let pass = self.pass;
        let Some(attr) = tag.attrs.iter().find(|a| a.ns == ns && a.name == name) else {
            return;
        };
        if !attr.writable {
            for link in self.links_since(links_before) {
                // The links of an `iframe srcdoc` document are the attribute's too.
                let inside_srcdoc = name == "srcdoc" && link.srcdoc_depth > pass.depth;
                if inside_srcdoc
                    || link.attribute.as_deref() == Some(attribute_name(ns, name).as_str())
                {
                    link.rewritten = false;
                }
            }
            return;
        }
        let byte = |i: usize| self.input(i..i + 1).and_then(|b| b.first().copied());
        let Some(splice) = value_splice(&byte, attr.range.clone(), attr.name_end, new) else {
            return;
        };
        let (encoded, _, _) = pass.encoding.encode(&splice.1);
        self.push_splice(splice.0, encoded.into_owned());
    }

    /// `--drop-base`: counts the links found since `from` that still need a base element
    /// ([`crate::rewrite::needs_base_element`]); `document_base`: they are the attributes of a
    /// base element of the document, whose own href is none of them.
    pub(super) fn count_needing_base(&mut self, from: usize, document_base: bool) {
        let pass = self.pass;
        let base = self.planner.base();
        let links = self.out.found.links.get(from..).unwrap_or_default();
        let needing = links
            .iter()
            .filter(|l| {
                let own = document_base
                    && l.srcdoc_depth == pass.depth
                    && l.attribute.as_deref() == Some("href");
                crate::rewrite::needs_base_element(l, own, base, pass.outer, pass.options)
            })
            .count();
        self.out.still_relative += needing;
    }

    /// `--drop-base`: a base element's start tag at `range` removed, unless the document would
    /// then start with the bytes of a byte order mark (they would change its encoding).
    fn remove(&mut self, range: Range<usize>) {
        if range.start == 0 {
            let after = self.input(range.end..range.end + 3).or_else(|| {
                // Fewer bytes are at hand near the end of what was read.
                (1..3)
                    .rev()
                    .find_map(|n| self.input(range.end..range.end + n))
            });
            let bom_like = after.is_some_and(|a| {
                [&[0xEF, 0xBB, 0xBF][..], &[0xFE, 0xFF], &[0xFF, 0xFE]]
                    .iter()
                    .any(|bom| bom.starts_with(a) || a.starts_with(bom))
            });
            if bom_like {
                self.bail = Some(Fallback::LeadingBom);
                return;
            }
        }
        self.push_splice(range, Vec::new());
    }

    /// Pass 1 ([`Mode::FindBase`]) at a start tag the context layer let through: the first
    /// HTML `<base href>` outside template contents is the one (HTML LS §4.2.3 "frozen base
    /// URL"), unless foster parenting could move it.
    pub(super) fn choose_base(&mut self, tag: &Tag, in_template: bool) {
        match (tag.ns, tag.name.as_str()) {
            (ElementNs::Html, "table") => self.table += 1,
            (ElementNs::Html, "base") if !in_template && self.out.base.is_none() => {
                let Some(href) = tag
                    .attrs
                    .iter()
                    .find(|a| a.ns == AttrNs::None && a.name == "href")
                else {
                    return;
                };
                if self.table > 0 {
                    self.bail = Some(Fallback::AmbiguousBase);
                } else if !href.writable {
                    // Bytes that do not decode: the DOM engine decides what the tree holds.
                    self.bail = Some(Fallback::Undecodable);
                } else {
                    self.out.base = Some((tag.id.0, href.value.clone()));
                }
            }
            // lol_html stays in SVG after a self-closing `<svg/>`, and after an `<svg>` closed
            // by another end tag (`<a><svg></a>`), where the tree is back in HTML: a `<base>`
            // it reads as SVG's with no `<svg>` open to us may be HTML's.
            (ElementNs::Svg, "base") if self.svg == 0 => self.bail = Some(Fallback::MathMlStray),
            _ => {}
        }
    }

    /// [`Mode::Targets`] at a start tag the context layer let through: its `id`, and an HTML
    /// `a`'s `name` (HTML LS "find a potential indicated element"), outside template contents.
    pub(super) fn target(&mut self, tag: &Tag, in_template: bool) {
        let value = |name: &str| {
            tag.attrs
                .iter()
                .find(|a| a.ns == AttrNs::None && a.name == name)
        };
        let anchor = tag.name == "a";
        let foreign = tag.ns != ElementNs::Html || self.svg + self.math > 0;
        if foreign && (tag.name == "template" || (anchor && value("name").is_some())) {
            self.bail = Some(Fallback::ForeignTarget);
            return;
        }
        let id = value("id");
        let name = value("name").filter(|_| anchor);
        if id.iter().chain(name.iter()).any(|a| !a.writable) {
            self.bail = Some(Fallback::UndecodableTarget);
            return;
        }
        if in_template {
            return;
        }
        let targets = &mut self.out.targets;
        targets.extend(id.iter().chain(name.iter()).map(|a| a.value.clone()));
    }

    /// The element's attributes as the tree would have them (the tag is at `tag`, document
    /// offsets, and the lexer kept the first of each name it reads).
    pub(super) fn tag(
        &self,
        tag: Range<usize>,
        lexed: Lexed<'_>,
        id: NodeId,
        name: String,
        ns: ElementNs,
    ) -> Tag {
        let encoding = self.pass.encoding;
        let at = tag.start;
        let raw = RawTag::new(self.input(tag).unwrap_or_default(), lexed);
        let mut attrs: Vec<TagAttr> = Vec::new();
        for a in raw.attrs() {
            if !self.reads(raw.get(a.name.clone())) {
                continue;
            }
            let raw_name = tree_name(raw.get(a.name.clone()), encoding);
            let (attr_ns, local) = if ns == ElementNs::Html {
                (AttrNs::None, raw_name)
            } else {
                foreign_attribute(raw_name)
            };
            let value_raw = a.value.clone().map(|v| raw.get(v)).unwrap_or_default();
            let decoded = decode_attribute(value_raw, encoding);
            let writable = decoded.is_some();
            let value = decoded.unwrap_or_else(|| {
                let lossy = encoding.decode_without_bom_handling(value_raw).0;
                decode_attribute(lossy.as_bytes(), encoding_rs::UTF_8).unwrap_or_default()
            });
            attrs.push(TagAttr {
                ns: attr_ns,
                name: local,
                value,
                range: a.value.as_ref().map(|v| at + v.start..at + v.end),
                name_end: Some(at + a.name.end),
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
    pub(super) fn end(&mut self, event: EndEvent) {
        let pass = self.pass;
        if let EndEvent::Style { node, .. } | EndEvent::Noscript { node, .. } = &event {
            self.open = None;
            if let Some(io) = &mut self.io {
                if io.hold.is_some_and(|(_, n)| n == *node) {
                    io.hold = None;
                }
                if io.abandoned == Some(*node) {
                    io.abandoned = None;
                    return;
                }
            }
        }
        match event {
            EndEvent::RawText => {}
            EndEvent::Template(true) => self.template = self.template.saturating_sub(1),
            EndEvent::Template(false) => self.bail = Some(Fallback::TemplateEnd),
            EndEvent::Foreign { proper: false, .. }
            | EndEvent::IntegrationPoint { proper: false } => {
                self.bail = Some(Fallback::ForeignEnd)
            }
            EndEvent::IntegrationPoint { proper: true } => {
                self.integration = self.integration.saturating_sub(1);
            }
            EndEvent::Foreign { svg: true, .. } => self.svg = self.svg.saturating_sub(1),
            EndEvent::Foreign { svg: false, .. } => self.math = self.math.saturating_sub(1),
            EndEvent::Style { node, content } => {
                if self.svg_style.is_some_and(|(n, _)| n == node) {
                    self.svg_style = None;
                    // Foreign content: `<` starts markup and `&` a reference, which the tree
                    // builder reads and raw text would not.
                    let raw = self.input(content.clone()).unwrap_or_default();
                    if raw.iter().any(|b| matches!(b, b'<' | b'&')) {
                        self.bail = Some(Fallback::ForeignStyle);
                        return;
                    }
                }
                if pass.mode != Mode::Rewrite {
                    return;
                }
                let raw = self.input(content.clone()).unwrap_or_default();
                let (text, malformed) = pass.encoding.decode_without_bom_handling(raw);
                let text = text.into_owned();
                let before = self.out.found.edits.len();
                let links_before = self.out.found.links.len();
                self.planner.style_text(&mut self.out.found, node, text);
                for link in self.links_since(links_before) {
                    link.offset = Some(content.start);
                }
                if pass.dropping != Dropping::Off {
                    self.count_needing_base(links_before, false);
                }
                let edits: Vec<_> = self.out.found.edits.drain(before..).collect();
                for edit in edits {
                    let (encoded, _, unmappable) = pass.encoding.encode(&edit.new);
                    if malformed || unmappable {
                        // Malformed bytes would be lost, and `&#N;` means nothing in raw text:
                        // the stylesheet is kept as it was, so none of its URLs is rewritten.
                        for link in self.links_since(links_before) {
                            link.rewritten = false;
                        }
                        continue;
                    }
                    self.push_splice(content.clone(), encoded.into_owned());
                }
            }
            // Only pass 2 reads `<noscript>` markup (as consumers without scripting do): to the
            // tree builder, and so to pass 1 and to fragment targets, it is raw text.
            EndEvent::Noscript { .. } if pass.mode != Mode::Rewrite => {}
            EndEvent::Noscript { node, content } => {
                let raw = self.input(content.clone()).unwrap_or_default().to_vec();
                if pass.nesting >= MAX_NESTING {
                    // Said as the DOM engine says it (`Planner::element`), for every such
                    // `<noscript>`: what it holds is not read, so not judged either.
                    let planner = &self.planner;
                    planner.nesting_limit(&mut self.out.found, node, "noscript", None);
                    if let Some(link) = self.out.found.links.last_mut() {
                        link.offset = Some(content.start);
                    }
                    return;
                }
                if raw.iter().all(u8::is_ascii_whitespace) {
                    return;
                }
                // HTML LS §4.12.2: consumers without scripting read the content as markup; a
                // `<base>` inside it does not count (chosen is none, nothing reported).
                let inner = Pass {
                    bytes: &raw,
                    offset: content.start,
                    nesting: pass.nesting + 1,
                    chosen: None,
                    tentative: false,
                    report_bases: false,
                    verify: false,
                    // Its base elements go or stay by its own links, as for a document.
                    dropping: if pass.dropping == Dropping::Off {
                        Dropping::Off
                    } else {
                        Dropping::Assumed
                    },
                    ..*pass
                };
                let inner = inner
                    .run_dropping(self.planner.base().clone(), Links::Keep)
                    .map_err(StreamError::fallback);
                match inner {
                    Ok(out) => {
                        let links_before = self.out.found.links.len();
                        self.out
                            .found
                            .links
                            .extend(out.found.links.into_iter().map(|mut l| {
                                // Where the markup is (as the DOM engine, which parses it
                                // apart from the document, can tell).
                                l.node = node;
                                l.offset = Some(content.start);
                                l
                            }));
                        if pass.dropping != Dropping::Off {
                            self.count_needing_base(links_before, false);
                        }
                        for (range, bytes) in out.splices {
                            self.push_splice(range, bytes);
                        }
                    }
                    // Written as it is read, the document cannot go to the DOM engine now,
                    // unless what was written can be taken back.
                    Err(why) if self.io.as_ref().is_some_and(|io| !io.rewindable) => {
                        self.out.diagnostics.push(Diagnostic::new(
                            crate::error::DiagnosticCode::NoscriptKept,
                            format!("a <noscript> was left as it was: {}", why.describe()),
                        ))
                    }
                    Err(why) => self.bail = Some(why),
                }
            }
        }
    }
}
