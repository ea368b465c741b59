//! Names: which elements lol_html reports, which tags and attributes matter, and the HTML LS
//! tables of foreign content (breakout tags, MathML elements, SVG names, foreign attributes).

use super::scan;
use super::tag::RawTag;
use crate::tree::AttrNs;

pub(super) const HTML_NS: &str = "http://www.w3.org/1999/xhtml";
pub(super) const SVG_NS: &str = "http://www.w3.org/2000/svg";
pub(super) const MATHML_NS: &str = "http://www.w3.org/1998/Math/MathML";

/// The elements lol_html reports to pass 2: those after whose start tag the bytes are read
/// otherwise (raw text, RCDATA, script data, plaintext; HTML LS §13.2.6.4.7 "in body"), the
/// foreign content and everything in it, and `<template>`. The markup between them is read by
/// [`scan::Scanner`].
pub(super) const REPORTED: &str = "script, svg, math, svg *, math *";

/// [`REPORTED`]'s names: a start tag of one of them found by the scanner means it and lol_html
/// read the markup differently.
pub(super) const REPORTED_NAMES: [&str; 3] = ["script", "svg", "math"];

/// Whether a tag name (as written) is one of [`REPORTED_NAMES`].
pub(super) fn is_reported(name: &[u8]) -> bool {
    REPORTED_NAMES
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
}

/// The HTML elements whose content lol_html reads as raw text, RCDATA, script data or
/// plaintext (its tree builder simulator, for a start tag in HTML content).
/// `<script>`, or one of the scanner's raw text and RCDATA elements.
pub(super) fn switches_text(raw: &RawTag<'_>) -> bool {
    raw.is("script") || scan::raw_text_index(raw.name()).is_some()
}

/// The start tags that switch the tokenizer to another text state (HTML LS §13.2.6.4.7),
/// which the tree builder ignores in some insertion modes ("in select", "in frameset").
const TEXT_SWITCHING: [&str; 10] = [
    "textarea",
    "title",
    "plaintext",
    "script",
    "style",
    "iframe",
    "xmp",
    "noembed",
    "noframes",
    "noscript",
];

/// The start tags that take the tree builder out of "in select" before its end tag.
const SELECT_ENDING: [&str; 4] = ["select", "textarea", "input", "keygen"];

/// Whether [`Guard`] reads start tags of this name (as written).
pub(super) fn is_guarded(name: &[u8]) -> bool {
    let any = |names: &[&str]| {
        names
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
    };
    (3..=9).contains(&name.len())
        && (any(&TEXT_SWITCHING) || any(&SELECT_ENDING) || any(&["template", "frameset"]))
}

/// lol_html's ambiguity guard (its `tree_builder_simulator/ambiguity_guard.rs`), kept where the
/// scanner reads alone: inside `<select>` and after `<frameset>` the tree builder ignores some
/// start tags, so whether one that switches the tokenizer's text state ([`TEXT_SWITCHING`])
/// does so is not known from the tokens; there the DOM engine takes the document, where
/// lol_html would have stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Guard {
    #[default]
    Outside,
    InSelect,
    /// `<template>` elements open in a `<select>`.
    InTemplateInSelect(usize),
    InOrAfterFrameset,
}

impl Guard {
    /// A start tag (its name as written); `false` where its text state is in doubt.
    pub(super) fn start(&mut self, name: &[u8]) -> bool {
        let is = |n: &str| name.eq_ignore_ascii_case(n.as_bytes());
        let switching = || TEXT_SWITCHING.iter().any(|n| is(n));
        match *self {
            Guard::Outside if is("select") => *self = Guard::InSelect,
            Guard::Outside if is("frameset") => *self = Guard::InOrAfterFrameset,
            Guard::Outside => {}
            Guard::InSelect if SELECT_ENDING.iter().any(|n| is(n)) => *self = Guard::Outside,
            Guard::InSelect if is("template") => *self = Guard::InTemplateInSelect(1),
            // "in select" reads `<script>` as "in head" does.
            Guard::InSelect => return is("script") || !switching(),
            Guard::InTemplateInSelect(depth) if is("template") => {
                *self = Guard::InTemplateInSelect(depth.saturating_add(1));
            }
            Guard::InTemplateInSelect(_) => return !switching(),
            Guard::InOrAfterFrameset => return is("noframes") || !switching(),
        }
        true
    }

    /// An end tag (its name as written).
    pub(super) fn end(&mut self, name: &[u8]) {
        match *self {
            Guard::InSelect if name.eq_ignore_ascii_case(b"select") => *self = Guard::Outside,
            Guard::InTemplateInSelect(depth) if name.eq_ignore_ascii_case(b"template") => {
                *self = if depth == 1 {
                    Guard::InSelect
                } else {
                    Guard::InTemplateInSelect(depth - 1)
                };
            }
            _ => {}
        }
    }
}

/// Whether the rules read an attribute of this raw name (ASCII case-insensitively): a URL
/// attribute of the table, `xlink:href`, or one a condition or the context layer reads.
pub(super) fn is_read_attribute(raw: &[u8]) -> bool {
    crate::rewrite::targets::is_url_attribute_bytes(raw)
        || [&b"xlink:href"[..], b"type", b"http-equiv", b"charset"]
            .iter()
            .any(|n| raw.eq_ignore_ascii_case(n))
}

/// How the report names an attribute.
pub(super) fn attribute_name(ns: AttrNs, name: &str) -> String {
    match ns {
        AttrNs::XLink => format!("xlink:{name}"),
        _ => name.to_owned(),
    }
}

/// HTML LS "adjust foreign attributes": `xlink:href` is `href` in the XLink namespace, and so on.
pub(super) fn foreign_attribute(name: String) -> (AttrNs, String) {
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

/// HTML LS §13.2.6.5 "any other start tag" in foreign content: the start tags that break out of
/// SVG and MathML into HTML (`font` only with `color`, `face` or `size`).
pub(super) fn is_breakout(name: &str, raw: &RawTag<'_>) -> bool {
    // `raw` keeps the attributes of [`is_breakout_attribute`].
    match name {
        "b" | "big" | "blockquote" | "body" | "br" | "center" | "code" | "dd" | "div" | "dl"
        | "dt" | "em" | "embed" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "head" | "hr" | "i"
        | "img" | "li" | "listing" | "menu" | "meta" | "nobr" | "ol" | "p" | "pre" | "ruby"
        | "s" | "small" | "span" | "strong" | "strike" | "sub" | "sup" | "table" | "tt" | "u"
        | "ul" | "var" => true,
        "font" => FONT_BREAKOUT.iter().any(|a| raw.has_attr(a)),
        _ => false,
    }
}

/// The attributes that make a `<font>` start tag break out of foreign content.
const FONT_BREAKOUT: [&str; 3] = ["color", "face", "size"];

/// Whether [`is_breakout`] reads an attribute of this raw name.
pub(super) fn is_breakout_attribute(raw: &[u8]) -> bool {
    FONT_BREAKOUT
        .iter()
        .any(|a| raw.eq_ignore_ascii_case(a.as_bytes()))
}

/// Whether the context layer tracks elements of this name (as written).
pub(super) fn matters_name(name: &[u8]) -> bool {
    // Most names are shorter than any of these, or longer: the length decides first.
    (3..=8).contains(&name.len())
        && [
            "template", "meta", "base", "style", "noscript", "svg", "math", "frameset",
        ]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
}

/// The elements of MathML (MathML 3 and MathML Core), which lol_html and the tree builder both
/// put in the MathML namespace.
pub(super) fn is_mathml_element(name: &str) -> bool {
    matches!(
        name,
        "math"
            | "mi"
            | "mo"
            | "mn"
            | "ms"
            | "mtext"
            | "mspace"
            | "mglyph"
            | "mrow"
            | "mfrac"
            | "msqrt"
            | "mroot"
            | "mstyle"
            | "merror"
            | "mpadded"
            | "mphantom"
            | "mfenced"
            | "menclose"
            | "msub"
            | "msup"
            | "msubsup"
            | "munder"
            | "mover"
            | "munderover"
            | "mmultiscripts"
            | "mprescripts"
            | "none"
            | "mtable"
            | "mtr"
            | "mtd"
            | "mlabeledtr"
            | "maligngroup"
            | "malignmark"
            | "mstack"
            | "mlongdiv"
            | "msgroup"
            | "msrow"
            | "mscarries"
            | "mscarry"
            | "msline"
            | "maction"
            | "semantics"
            | "annotation"
            | "annotation-xml"
    )
}

/// HTML LS "adjust SVG tag names" (§13.2.6.5, the table in "any other start tag" in foreign
/// content): lol_html lowercases, the tree has these in camel case.
pub(super) fn svg_tag_name(lower: &str) -> Option<&'static str> {
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
