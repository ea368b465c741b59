//! The DOM engine's plan: the base read from the tree (RFC 2396 §5.1.1, HTML LS §4.2.3), every
//! element of the tree through the URL rules of [`crate::rewrite`], `<noscript>` markup and
//! `iframe srcdoc` documents parsed and planned in turn, `--drop-base`, and the plan carried out
//! on the tree.

use encoding_rs::Encoding;

use super::{Document, ElementRef, ParseLimits};
use crate::base::{with_base_element, Base, BaseSource, Outer};
use crate::error::Diagnostic;
use crate::rewrite::{Edit, EditTarget, Found, Link, Planner, RewriteOptions, MAX_NESTING};
use crate::tree::{AttrNs, ElementNs, NodeId};
use crate::uri::ResolveOptions;

#[doc(hidden)] // The DOM engine's plan: for the oracle tests (see lib.rs).
/// Everything the rewriter decided for one document.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The base that applies, and where it came from.
    pub base: Base,
    /// The changes, in document order.
    pub edits: Vec<Edit>,
    /// Every URL occurrence, in document order.
    pub links: Vec<Link>,
    /// Document-level diagnostics (ignored bases, …).
    pub diagnostics: Vec<Diagnostic>,
}

#[doc(hidden)] // The DOM engine's plan: for the oracle tests (see lib.rs).
/// Plans the rewriting of `doc`, whose outer layers are `outer` and whose character encoding
/// is `encoding` (queries are encoded in it); the output is written in `written` (another
/// encoding when transcoding).
pub fn plan(
    doc: &Document,
    outer: &Outer,
    options: &RewriteOptions,
    encoding: &'static Encoding,
    written: &'static Encoding,
) -> Plan {
    plan_at_depth(doc, outer, options, 0, (encoding, written))
}

#[doc(hidden)] // The DOM engine's plan: for the oracle tests (see lib.rs).
/// docs/html-rules.md §1 and RFC 2396 §5.1.1: the base of `doc` given its outer layers, and the `<base>`
/// element that supplied or tried to supply it (the first HTML `base` with an `href`, in tree
/// order, outside `<template>` contents). Later `<base href>` elements are reported.
pub fn establish(
    doc: &Document,
    outer: &Outer,
    options: ResolveOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Base, Option<(NodeId, String)>) {
    let mut candidates = doc
        .elements()
        .iter()
        .filter(|e| e.is_document_base())
        .filter_map(|e| e.attr("href").map(|h| (e.id(), h)));
    let chosen = candidates.next();
    for (_, href) in candidates {
        diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::DuplicateBase,
            format!("<base href={href:?}> is not the first base element with an href; browsers ignore it"),
        ));
    }
    let base = with_base_element(
        &outer.base,
        chosen.as_ref().map(|(_, h)| h.as_str()),
        options,
        diagnostics,
    );
    (base, chosen)
}

fn plan_at_depth(
    doc: &Document,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
    (encoding, written): (&'static Encoding, &'static Encoding),
) -> Plan {
    let mut diagnostics = Vec::new();
    let (base, chosen) = establish(doc, outer, options.resolve, &mut diagnostics);
    let context = Context {
        outer,
        options,
        depth,
        encoding,
        written,
    };
    plan_with_base(doc, &context, base, chosen, diagnostics)
}

/// What a plan is made in: the layers outside, the options, how deep in `srcdoc` documents, and
/// the document's encoding.
#[derive(Clone, Copy)]
struct Context<'a> {
    outer: &'a Outer,
    options: &'a RewriteOptions,
    depth: usize,
    encoding: &'static Encoding,
    /// The encoding the output is written in.
    written: &'static Encoding,
}

fn plan_with_base(
    doc: &Document,
    context: &Context<'_>,
    base: Base,
    chosen: Option<(NodeId, String)>,
    mut diagnostics: Vec<Diagnostic>,
) -> Plan {
    let Context {
        outer,
        options,
        depth,
        encoding,
        written,
    } = *context;
    let planner = Planner::new(
        base.clone(),
        outer,
        options,
        depth,
        encoding,
        nested_document,
        &mut diagnostics,
    )
    .written_in(written);
    let mut found = Found::default();
    let chosen_id = chosen.as_ref().map(|(id, _)| *id);
    for element in doc.elements() {
        plan_element(
            &planner,
            &mut found,
            element,
            chosen_id,
            doc.scripting_disabled(),
        );
    }
    let Found {
        mut edits, links, ..
    } = found;
    if options.drop_base {
        drop_bases(
            doc,
            &base,
            outer,
            options,
            chosen_id,
            &links,
            &mut edits,
            &mut diagnostics,
        );
    }
    Plan {
        base,
        edits,
        links,
        diagnostics,
    }
}

/// `--drop-base`: every `<base href>` goes, not just the one that counted — unless some link
/// still needs a base element ([`crate::rewrite::needs_base_element`]); then the chosen one is
/// kept (made absolute) and that is reported.
#[allow(clippy::too_many_arguments)]
fn drop_bases(
    doc: &Document,
    base: &Base,
    outer: &Outer,
    options: &RewriteOptions,
    chosen: Option<NodeId>,
    links: &[Link],
    edits: &mut Vec<Edit>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    // A `<base href>` of its own is no reference resolved against the base (an unusable one is
    // ignored by browsers, and goes with the rest); one in `<template>` contents or in SVG is no
    // base of the document, only a URL that stays.
    let own_base = |l: &Link| {
        l.attribute.as_deref() == Some("href")
            && doc
                .element(l.node)
                .is_some_and(ElementRef::is_document_base)
    };
    let count = links
        .iter()
        .filter(|l| crate::rewrite::needs_base_element(l, own_base(l), base, outer, options))
        .count();
    if count > 0 {
        edits.retain(|e| e.target != EditTarget::Remove);
        let from_element = base.source == BaseSource::BaseElement;
        if let (Some(id), Some(uri), true) = (chosen, &base.uri, from_element) {
            // Already absolute as written (`h:&lt;` reads as `h:<`): its bytes stay as they are.
            let href = doc.element(id).and_then(|e| e.attr("href"));
            if let Some(old) = href.filter(|old| *old != uri.to_string()) {
                edits.push(Edit {
                    node: id,
                    target: EditTarget::Attribute {
                        ns: AttrNs::None,
                        name: "href".to_owned(),
                    },
                    old,
                    new: uri.to_string(),
                    reason: "HTML LS §4.2.3: the base element's href, made absolute",
                });
            }
        }
        diagnostics.push(crate::rewrite::base_kept(count));
        return;
    }
    for e in doc.elements() {
        if e.is_document_base() && Some(e.id()) != chosen {
            if let Some(old) = e.attr("href") {
                edits.push(Edit {
                    node: e.id(),
                    target: EditTarget::Remove,
                    old,
                    new: String::new(),
                    reason: "dropping the base: every base element with an href is removed",
                });
            }
        }
    }
}

#[doc(hidden)] // The DOM engine's plan: for the oracle tests (see lib.rs).
/// Carries out `plan` on `doc`.
pub fn apply(doc: &Document, plan: &Plan) {
    for edit in &plan.edits {
        let Some(element) = doc.element(edit.node) else {
            continue;
        };
        match &edit.target {
            EditTarget::Attribute { ns, name } => {
                element.set_attr(*ns, name, &edit.new);
            }
            EditTarget::Text => element.set_text(&edit.new),
            EditTarget::Remove => element.detach(),
        }
    }
}

/// An `iframe srcdoc` document (UTF-8 text, HTML LS §4.8.5) through the DOM engine: its links,
/// and its new text when any URL changed; why not, when it cannot be parsed within the bounds.
pub(crate) fn nested_document(
    text: &str,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
) -> Result<(Vec<Link>, Option<String>), Diagnostic> {
    let inner = Document::parse(text).map_err(|hit| {
        Diagnostic::new(
            crate::error::DiagnosticCode::Unparsed,
            format!("srcdoc left as it was: {hit}"),
        )
    })?;
    // An about:srcdoc document is UTF-8 (HTML LS §4.8.5), whatever the outer output's encoding:
    // the attribute value's text is what it holds.
    let utf8 = encoding_rs::UTF_8;
    let plan = plan_at_depth(&inner, outer, options, depth, (utf8, utf8));
    let new = (!plan.edits.is_empty()).then(|| written_back(text, &inner, &plan));
    Ok((plan.links, new))
}

/// Markup parsed apart (an `iframe srcdoc` document, `<noscript>` markup) with `plan` carried
/// out: its `text` with the plan spliced in where every edit is found there, as for a
/// document; else its tree serialized.
fn written_back(text: &str, doc: &Document, plan: &Plan) -> String {
    spliced(text, doc, plan).unwrap_or_else(|| {
        apply(doc, plan);
        doc.to_html()
    })
}

/// [`written_back`] by splicing alone.
fn spliced(text: &str, doc: &Document, plan: &Plan) -> Option<String> {
    let utf8 = encoding_rs::UTF_8;
    let splices = super::source::splice(text.as_bytes(), doc, &plan.edits, utf8, &[]).ok()?;
    String::from_utf8(crate::splice::apply(text.as_bytes(), &splices)).ok()
}

/// One element of a tree; `scripting_disabled`: the tree is `<noscript>` markup, where a
/// `<noscript>` holds elements (its text is not markup to parse again).
fn plan_element(
    planner: &Planner<'_>,
    out: &mut Found,
    element: &ElementRef,
    chosen_base: Option<NodeId>,
    scripting_disabled: bool,
) {
    // `<style>` contents (HTML and SVG): a stylesheet against the document base.
    if element.name() == "style" && matches!(element.ns(), ElementNs::Html | ElementNs::Svg) {
        style_element(planner, out, element);
    }
    if scripting_disabled {
        // `<noscript>` markup (level 1), where `<noscript>` elements hold markup one level
        // deeper: the streaming engine's nested passes stop at the same level.
        let level = 1 + element.noscript_ancestors();
        if level > MAX_NESTING {
            return;
        }
        if level == MAX_NESTING && element.is_html("noscript") {
            planner.nesting_limit(out, element.id(), "noscript", None);
        }
    } else if element.is_html("noscript") {
        noscript(planner, out, element);
    }
    planner.attributes(out, element, chosen_base);
}

fn style_element(planner: &Planner<'_>, out: &mut Found, element: &ElementRef) {
    planner.style_text(out, element.id(), element.text());
}

/// `<noscript>`: parsed with scripting on (as browsers that run scripts do), its contents
/// are text; consumers without scripting — crawlers, link checkers, mail readers — read them
/// as markup. That markup is parsed as a fragment, rewritten against our base, and written
/// back as the element's text, which the serializer emits as it is.
fn noscript(planner: &Planner<'_>, out: &mut Found, element: &ElementRef) {
    // Not bounded by the srcdoc depth: `<noscript>` levels are counted on their own.
    let text = element.text();
    if text.trim().is_empty() {
        return;
    }
    let Ok(fragment) = Document::parse_fragment(&text, ParseLimits::default()) else {
        return;
    };
    let outer = Outer {
        base: planner.base().clone(),
        document_uri: planner.document_uri().cloned(),
    };
    // Same document, same base: a <base> inside <noscript> does not count.
    let context = Context {
        outer: &outer,
        options: planner.options(),
        depth: planner.depth(),
        encoding: planner.encoding(),
        written: planner.written(),
    };
    let plan = plan_with_base(
        &fragment,
        &context,
        planner.base().clone(),
        None,
        Vec::new(),
    );
    // Written into the markup's own text where every edit is found there, as for a document;
    // else the fragment serialized.
    let spliced = spliced(&text, &fragment, &plan);
    // Serialized, an <html> start tag inside the markup adds its attributes to the fragment's
    // root, which is not written back: then the text is kept as it was.
    let mut root_has_attributes = false;
    if let Some(root) = fragment.elements().first() {
        root.for_each_attr(|_, _, _| root_has_attributes = true);
    }
    let writable = spliced.is_some() || !root_has_attributes;
    out.links.extend(plan.links.iter().cloned().map(|mut l| {
        l.node = element.id();
        if l.rewritten && !writable {
            // Said, not dropped in silence (the streaming engine, splicing the raw text,
            // does write these).
            l.rewritten = false;
            l.diagnostic.get_or_insert_with(|| {
                Diagnostic::new(
                    crate::error::DiagnosticCode::NoscriptKept,
                    "left as it was: an <html> tag in this <noscript> markup has attributes, \
                     which the DOM engine cannot write back",
                )
            });
        }
        l
    }));
    if plan.edits.is_empty() {
        return;
    }
    let (new, reason) = match spliced {
        Some(new) => (new, super::source::NOSCRIPT_SPLICED),
        None if writable => {
            apply(&fragment, &plan);
            (fragment.to_html(), super::source::NOSCRIPT_SERIALIZED)
        }
        None => return,
    };
    out.edits.push(Edit {
        node: element.id(),
        target: EditTarget::Text,
        old: text,
        new,
        reason,
    });
}
