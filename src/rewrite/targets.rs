//! Where URLs live in HTML: one table, each row citing its source (docs/html-rules.md §2).
//!
//! Not URLs, never touched: `usemap` (a hash-name reference, HTML LS §4.8.14), `itemtype`
//! (absolute by definition), `data-*`, `xml:base` (ignored by HTML LS).

use crate::tree::ElementView;
use crate::tree::{AttrNs, ElementNs};

/// How an attribute value holds its URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The whole value is one URL (whitespace around it stripped).
    Url,
    /// HTML LS "parse a srcset attribute".
    Srcset,
    /// URLs separated by ASCII whitespace.
    SpaceList,
    /// URLs separated by commas (HTML 4.01 `applet@archive`).
    CommaList,
    /// `<meta http-equiv=refresh content>`: HTML LS "shared declarative refresh steps".
    Refresh,
    /// A `style` attribute: a CSS declaration list.
    Css,
    /// `iframe@srcdoc`: a whole document, rewritten recursively.
    Srcdoc,
}

/// What an attribute's URL means, where that changes the rules (docs/html-rules.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A resource: an empty value means "nothing" and stays empty.
    Resource,
    /// A hyperlink (`a`/`area@href`): the empty value is a same-document reference.
    Hyperlink,
    /// A form submission target: empty submits to the document URL, not the base; kept.
    FormAction,
    /// Resolved against the document URL rather than the base (`html@manifest`, as appcache did).
    DocumentRelative,
    /// Relative to the element's `codebase` (HTML 4.01 §13.3 `object@classid`/`archive`,
    /// `applet@archive`/`code`).
    CodebaseRelative,
    /// An SVG reference: a fragment alone is a local reference whatever the base (SVG 2
    /// §5.6 / CSS Values 4 "local URL"), except on a navigation link (`svg:a`).
    SvgReference,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    /// Element local names this row applies to; empty = every element of the namespace.
    pub elements: &'static [&'static str],
    /// The element namespace.
    pub ns: ElementNs,
    /// The attribute namespace.
    pub attr_ns: AttrNs,
    /// The attribute local name.
    pub attr: &'static str,
    /// How the value holds URLs.
    pub kind: Kind,
    /// What the URL means.
    pub role: Role,
    /// Where the rule comes from.
    pub source: &'static str,
}

const fn row(
    elements: &'static [&'static str],
    attr: &'static str,
    kind: Kind,
    role: Role,
    source: &'static str,
) -> Row {
    Row {
        elements,
        ns: ElementNs::Html,
        attr_ns: AttrNs::None,
        attr,
        kind,
        role,
        source,
    }
}

use Kind::*;
use Role::*;

/// Every URL-bearing attribute linkbase rewrites.
pub(crate) static TABLE: &[Row] = &[
    row(&["a", "area"], "href", Url, Hyperlink, "HTML LS §4.6.1 hyperlinks"),
    row(&["link"], "href", Url, Resource, "HTML LS §4.2.4 the link element"),
    row(&["base"], "href", Url, Resource, "HTML LS §4.2.3 (rewritten to the established base)"),
    row(
        &["img", "script", "iframe", "frame", "embed", "audio", "video", "track", "source"],
        "src",
        Url,
        Resource,
        "HTML LS §4.8 embedded content; HTML 4.01 §16.2.2 frame",
    ),
    row(&["input"], "src", Url, Resource, "HTML LS §4.10.5.1.20 image button (type=image only)"),
    row(&["video"], "poster", Url, Resource, "HTML LS §4.8.9 the video element"),
    row(&["form"], "action", Url, FormAction, "HTML LS §4.10.18.6 form submission"),
    row(&["button", "input"], "formaction", Url, FormAction, "HTML LS §4.10.18.6"),
    row(&["blockquote", "q", "del", "ins"], "cite", Url, Resource, "HTML LS §4.4.4, §4.5.7, §4.7"),
    row(&["object"], "data", Url, Resource, "HTML LS §4.8.7 (codebase ignored, as browsers do)"),
    row(&["img", "frame", "iframe"], "longdesc", Url, Resource, "HTML 4.01 §13.2, §16.2.2, §16.5"),
    row(&["img"], "lowsrc", Url, Resource, "Netscape 2 extension (obsolete, HTML LS §16.3)"),
    row(
        &["body", "table", "thead", "tbody", "tfoot", "tr", "td", "th"],
        "background",
        Url,
        Resource,
        "HTML 4.01 §7.5.1; HTML LS §15.3.2 rendering (obsolete)",
    ),
    row(&[], "itemid", Url, Resource, "HTML LS §5.2.2 microdata (global)"),
    row(&["html"], "manifest", Url, DocumentRelative, "HTML 5.0 §5.7 appcache (obsolete; the document URL)"),
    row(&["img", "source"], "srcset", Srcset, Resource, "HTML LS §4.8.4.3.10 parse a srcset attribute"),
    row(&["link"], "imagesrcset", Srcset, Resource, "HTML LS §4.2.4 the link element"),
    row(&["a", "area"], "ping", SpaceList, Resource, "HTML LS §4.6.6 hyperlink auditing"),
    row(&["object"], "archive", SpaceList, CodebaseRelative, "HTML 4.01 §13.3 (relative to codebase)"),
    row(&["applet"], "archive", CommaList, CodebaseRelative, "HTML 4.01 §13.4 (comma-separated)"),
    row(&["head"], "profile", SpaceList, Resource, "HTML 4.01 §7.4.4.3 meta data profiles"),
    row(&["applet"], "code", Url, CodebaseRelative, "HTML 4.01 §13.4 (relative to codebase)"),
    row(&["applet", "object"], "codebase", Url, Resource, "HTML 4.01 §13.3, §13.4 (against the base)"),
    row(&["object"], "classid", Url, CodebaseRelative, "HTML 4.01 §13.3 (relative to codebase)"),
    row(&["meta"], "content", Refresh, Resource, "HTML LS §4.2.5.3 refresh (http-equiv=refresh only)"),
    row(&["iframe"], "srcdoc", Srcdoc, Resource, "HTML LS §4.8.5 iframe srcdoc (a document of its own)"),
    row(&[], "style", Css, Resource, "HTML LS §3.2.6 the style attribute; CSS Syntax"),
    Row {
        elements: &[],
        ns: ElementNs::Svg,
        attr_ns: AttrNs::None,
        attr: "href",
        kind: Url,
        role: SvgReference,
        source: "SVG 2 §5.6.4 href (a, image, use, feImage, pattern, gradients, textPath, mpath, script, …)",
    },
    Row {
        elements: &[],
        ns: ElementNs::Svg,
        attr_ns: AttrNs::XLink,
        attr: "href",
        kind: Url,
        role: SvgReference,
        source: "SVG 1.1 §5.3.2 xlink:href (same elements)",
    },
    Row {
        elements: &[],
        ns: ElementNs::Svg,
        attr_ns: AttrNs::None,
        attr: "style",
        kind: Css,
        role: Resource,
        source: "SVG 2 §6.4 style attribute",
    },
    Row {
        elements: &[],
        ns: ElementNs::MathMl,
        attr_ns: AttrNs::None,
        attr: "style",
        kind: Css,
        role: Resource,
        source: "MathML Core §2.1.3 global attributes",
    },
];

/// The row for an attribute of `element`, if it holds URLs.
pub(crate) fn classify(
    element: &impl ElementView,
    attr_ns: AttrNs,
    attr: &str,
) -> Option<&'static Row> {
    // Most attributes (class, id, alt, …) hold no URL: answer those without scanning the table.
    if !is_url_attribute_name(attr) {
        return None;
    }
    let ns = element.ns();
    let name = element.name();
    let row = TABLE.iter().find(|r| {
        r.attr == attr
            && r.attr_ns == attr_ns
            && r.ns == ns
            && (r.elements.is_empty() || r.elements.contains(&name))
    })?;
    // Conditions that depend on other attributes.
    match (name, attr) {
        ("input", "src") => {
            let image = element
                .attr("type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("image"));
            image.then_some(row)
        }
        ("meta", "content") => {
            let refresh = element
                .attr("http-equiv")
                .is_some_and(|h| h.trim().eq_ignore_ascii_case("refresh"));
            refresh.then_some(row)
        }
        _ => Some(row),
    }
}

/// Whether some row of [`TABLE`] names this attribute (a test keeps the two in step).
pub(crate) fn is_url_attribute_name(attr: &str) -> bool {
    is_url_attribute_bytes(attr.as_bytes())
}

/// [`is_url_attribute_name`] on a name as written, ASCII case-insensitively (the streaming
/// engine asks it of every attribute name in the document, so it looks at the length and the
/// first letter before comparing).
pub(crate) fn is_url_attribute_bytes(attr: &[u8]) -> bool {
    let Some(&first) = attr.first() else {
        return false;
    };
    let candidates: &[&[u8]] = match (attr.len(), first.to_ascii_lowercase()) {
        (3, b's') => &[b"src"],
        (4, b'h') => &[b"href"],
        (4, b'c') => &[b"cite", b"code"],
        (4, b'd') => &[b"data"],
        (4, b'p') => &[b"ping"],
        (5, b's') => &[b"style"],
        (6, b'a') => &[b"action"],
        (6, b'i') => &[b"itemid"],
        (6, b'l') => &[b"lowsrc"],
        (6, b'p') => &[b"poster"],
        (6, b's') => &[b"srcset", b"srcdoc"],
        (7, b'a') => &[b"archive"],
        (7, b'c') => &[b"classid", b"content"],
        (7, b'p') => &[b"profile"],
        (8, b'c') => &[b"codebase"],
        (8, b'l') => &[b"longdesc"],
        (8, b'm') => &[b"manifest"],
        (10, b'b') => &[b"background"],
        (10, b'f') => &[b"formaction"],
        (11, b'i') => &[b"imagesrcset"],
        _ => return false,
    };
    candidates.iter().any(|c| attr.eq_ignore_ascii_case(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_filter_knows_every_row() {
        for r in TABLE {
            assert!(is_url_attribute_name(r.attr), "{}", r.attr);
            assert!(
                is_url_attribute_bytes(r.attr.to_ascii_uppercase().as_bytes()),
                "{}",
                r.attr
            );
        }
        for other in [
            "class", "id", "hrefs", "sr", "", "title", "usemap", "data-src",
        ] {
            assert!(!is_url_attribute_name(other), "{other}");
        }
    }

    #[test]
    fn no_row_names_a_non_url_attribute() {
        for r in TABLE {
            assert!(!matches!(r.attr, "usemap" | "itemtype") && !r.attr.starts_with("data-"));
            assert!(!r.source.is_empty());
        }
    }

    #[test]
    fn rows_do_not_overlap() {
        for (i, a) in TABLE.iter().enumerate() {
            for b in TABLE.iter().skip(i + 1) {
                let same_attr = a.attr == b.attr && a.attr_ns == b.attr_ns && a.ns == b.ns;
                let overlap = a.elements.is_empty()
                    || b.elements.is_empty()
                    || a.elements.iter().any(|e| b.elements.contains(e));
                assert!(
                    !(same_attr && overlap),
                    "{} / {}: {:?} {:?}",
                    a.attr,
                    b.attr,
                    a.elements,
                    b.elements
                );
            }
        }
    }
}
