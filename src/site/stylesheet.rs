//! The links of a stylesheet of the tree (`check`): each `url()` and `@import` found by the CSS
//! rules the rewrite relinks a stylesheet by (`crate::rewrite::css`: a real tokenizer, escapes
//! decoded, bad tokens and strings that are not URLs left out), resolved against the file's URL,
//! with its line and column.

use crate::position::Cursor;
use crate::report::LinkRecord;
use crate::rewrite::css::{css_urls, CssKind};
use crate::rewrite::{Link, LinkKind};
use crate::uri::Resolver;

/// Every `url()` and `@import` reference of the stylesheet `bytes`, retrieved from `url`, as
/// records: the element is `url` or `@import` (there is none), the line and column those of the
/// value's first character (1-based, in characters of the decoded text, as a page's).
///
/// Its encoding is CSS Syntax §3.2's for a file without a transport charset (a byte order mark,
/// else `@charset`, else UTF-8); bytes that are not in it read as U+FFFD. `url(#x)` (a
/// reference into the document the stylesheet applies to) and `url()` are not links to check,
/// as the rewrite leaves them.
pub(crate) fn links(
    bytes: &[u8],
    url: &str,
    options: &crate::pipeline::Options,
) -> Vec<LinkRecord> {
    let (encoding, _, bom) = crate::pipeline::css_encoding(bytes, None);
    let (text, _) = encoding.decode_without_bom_handling(bytes.get(bom..).unwrap_or_default());
    let resolver = Resolver::new(url, options.rewrite.resolve)
        .ok()
        .map(|r| r.with_query_encoding(encoding));
    let mut cursor = Cursor::new(encoding_rs::UTF_8, b"");
    let mut out = Vec::new();
    for found in css_urls(&text, CssKind::Stylesheet) {
        let value = found.value.trim();
        if value.is_empty() || value.starts_with('#') {
            continue;
        }
        let start = value_start(&text, found.token.clone());
        if let Some(before) = text.as_bytes().get(cursor.at()..start) {
            cursor.advance(before);
        }
        let resolved = resolver
            .as_ref()
            .and_then(|r| r.resolve(value).ok())
            .map(|r| crate::uri::valid_uri(&r.uri, encoding).into_owned());
        let (element, kind) = if found.import {
            ("@import", LinkKind::CssImport)
        } else {
            ("url", LinkKind::Css)
        };
        let link = Link {
            node: crate::tree::NodeId(0),
            element: element.to_owned(),
            attribute: None,
            kind,
            original: value.to_owned(),
            rewritten: false,
            diagnostic: None,
            srcdoc_depth: 0,
            same_document: false,
            base: Some(url.to_owned()),
            base_source: crate::BaseSource::RetrievalUri,
            offset: Some(start),
            relinked: None,
            resolved,
        };
        out.push(LinkRecord::from_link(link, None).at(Some(cursor.position())));
    }
    out
}

/// Where the value of the URL token spanning `token` starts: after `url(`, the whitespace and
/// the quote, or after the quote of a string.
fn value_start(css: &str, token: std::ops::Range<usize>) -> usize {
    let Some(text) = css.get(token.clone()) else {
        return token.start;
    };
    let mut at = match text.find('(') {
        Some(open) if !text.starts_with(['"', '\'']) => open + 1,
        _ => 0,
    };
    let rest = text.get(at..).unwrap_or_default();
    at += rest.len()
        - rest
            .trim_start_matches([' ', '\t', '\n', '\r', '\x0C'])
            .len();
    if text.get(at..).is_some_and(|r| r.starts_with(['"', '\''])) {
        at += 1;
    }
    token.start + at
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_reference_with_its_place() {
        let css =
            "@charset \"utf-8\";\n@import url(\"/css/extra.css\") screen;\n@import 'more.css';\n\
                   /* url(not-a-link.png) */\nh1 { background: url( img/é.png ) }\n\
                   p { background: URL(a\\)b.png), url(#clip), url() }\n\
                   .x { mask: image-set(\"m.svg\" 1x) }\n";
        let links = links(
            css.as_bytes(),
            "https://h/site/css/main.css",
            &crate::pipeline::Options::default(),
        );
        type Found<'a> = (
            &'a str,
            &'a str,
            Option<&'a str>,
            Option<usize>,
            Option<usize>,
        );
        let got: Vec<Found<'_>> = links
            .iter()
            .map(|l| {
                (
                    l.element.as_str(),
                    l.original.as_str(),
                    l.resolved.as_deref(),
                    l.line,
                    l.column,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "@import",
                    "/css/extra.css",
                    Some("https://h/css/extra.css"),
                    Some(2),
                    Some(14)
                ),
                (
                    "@import",
                    "more.css",
                    Some("https://h/site/css/more.css"),
                    Some(3),
                    Some(10)
                ),
                (
                    "url",
                    "img/é.png",
                    Some("https://h/site/css/img/%C3%A9.png"),
                    Some(5),
                    Some(23)
                ),
                (
                    "url",
                    "a)b.png",
                    Some("https://h/site/css/a)b.png"),
                    Some(6),
                    Some(21)
                ),
                (
                    "url",
                    "m.svg",
                    Some("https://h/site/css/m.svg"),
                    Some(7),
                    Some(23)
                ),
            ]
        );
        assert!(links.iter().all(|l| l.attribute.is_none()));
        assert_eq!(links.first().unwrap().kind, LinkKind::CssImport);
    }

    /// A stylesheet in another encoding (`@charset`) is read in it; a byte order mark wins.
    #[test]
    fn the_encoding_is_css_s() {
        let mut latin = b"@charset \"iso-8859-1\";\na { b: url(caf".to_vec();
        latin.extend_from_slice(b"\xe9.png) }");
        let l = links(&latin, "https://h/", &crate::pipeline::Options::default());
        assert_eq!(l.first().unwrap().original, "café.png");
        assert_eq!(
            l.first().unwrap().resolved.as_deref(),
            Some("https://h/caf%C3%A9.png")
        );
        assert_eq!(
            (l.first().unwrap().line, l.first().unwrap().column),
            (Some(2), Some(12))
        );
        let bom = b"\xef\xbb\xbfa{b:url(x.png)}";
        let l = links(bom, "https://h/", &crate::pipeline::Options::default());
        assert_eq!(
            (l.first().unwrap().line, l.first().unwrap().column),
            (Some(1), Some(9))
        );
    }
}
