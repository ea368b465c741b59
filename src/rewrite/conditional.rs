//! URLs inside downlevel-hidden conditional comments:
//! `<!--[if gte vml 1]> <v:imagedata src="image001.png"/> <![endif]-->`.
//!
//! Browsers ignore these comments, but Outlook and Word render their markup (VML backgrounds,
//! `v:imagedata`, `v:fill`), so in e-mail HTML their relative URLs are as live as any other. The
//! comment's markup is tokenized on its own (lol_html, read-only) and each URL attribute value's
//! byte range in the document is reported, so the splicer changes only those bytes.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;

/// The attributes that carry URLs in conditional-comment markup: VML's `src` (`v:imagedata`,
/// `v:fill`, `v:image`), `href` (`v:shape`, `a`), and the HTML attributes of docs/html-rules.md that
/// Outlook's Word engine renders.
const URL_ATTRIBUTES: &[&str] = &[
    "src",
    "href",
    "background",
    "o:href",
    "poster",
    "action",
    "lowsrc",
];

/// The URL attributes inside the conditional comments of `bytes`, resolved like the tree's
/// against `base`, each with its value's range in the document.
pub(crate) fn urls(
    bytes: &[u8],
    base: &crate::Base,
    outer: &crate::base::Outer,
    options: &super::RewriteOptions,
    encoding: &'static Encoding,
) -> Vec<(Range<usize>, super::LooseUrl)> {
    let found: Vec<_> = scan(bytes, encoding)
        .into_iter()
        .filter_map(|u| {
            let raw = bytes.get(u.range.clone())?;
            let value = crate::splice::decode_attribute(raw, encoding)?;
            Some((u.range, (u.element, u.attribute, value)))
        })
        .collect();
    let values: Vec<_> = found.iter().map(|(_, v)| v.clone()).collect();
    let planned = super::plan_loose_urls(base, outer, options, encoding, &values);
    found
        .into_iter()
        .map(|(r, _)| r)
        .zip(planned)
        .map(|(range, mut url)| {
            url.link.offset = Some(range.start);
            (range, url)
        })
        .collect()
}

/// One URL attribute inside a conditional comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommentUrl {
    /// The element's name as written (`v:imagedata`).
    pub element: String,
    /// The attribute's name.
    pub attribute: String,
    /// The value's byte range in the document.
    pub range: Range<usize>,
}

/// Every URL attribute inside the conditional comments of `bytes`, in source order. Empty when
/// the bytes hold no `[if` at all (most documents), without a tokenizer pass.
pub(crate) fn scan(bytes: &[u8], encoding: &'static Encoding) -> Vec<CommentUrl> {
    if !bytes.windows(4).any(|w| w.eq_ignore_ascii_case(b"[if ")) {
        return Vec::new();
    }
    let Some(settings) = crate::tokenize::settings(encoding) else {
        return Vec::new();
    };
    let comments = Rc::new(RefCell::new(Vec::new()));
    let sink = comments.clone();
    let settings = settings.append_document_content_handler(lol_html::doc_comments!(move |c| {
        sink.borrow_mut().push(c.source_location().bytes());
        Ok(())
    }));
    if !crate::tokenize::read_all(bytes, settings) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for comment in comments.take() {
        if let Some(inner) = conditional_markup(bytes, comment) {
            out.extend(urls_in(bytes, inner, encoding));
        }
    }
    out
}

/// The markup range of a downlevel-hidden conditional comment `<!--[if …]> markup <![endif]-->`.
fn conditional_markup(bytes: &[u8], comment: Range<usize>) -> Option<Range<usize>> {
    let text_start = comment.start.checked_add(4)?;
    let text_end = comment.end.checked_sub(3)?;
    let text = bytes.get(text_start..text_end)?;
    if bytes.get(comment.start..text_start) != Some(b"<!--") {
        return None;
    }
    let lead = text.iter().take_while(|b| b.is_ascii_whitespace()).count();
    if !text.get(lead..lead + 3)?.eq_ignore_ascii_case(b"[if") {
        return None;
    }
    let open = text.windows(2).position(|w| w == b"]>")? + 2;
    let close = text
        .windows(9)
        .rposition(|w| w.eq_ignore_ascii_case(b"<![endif]"))?;
    (open <= close).then(|| text_start + open..text_start + close)
}

/// The URL attributes of the markup at `range`, with document offsets.
fn urls_in(bytes: &[u8], range: Range<usize>, encoding: &'static Encoding) -> Vec<CommentUrl> {
    let Some(markup) = bytes.get(range.clone()) else {
        return Vec::new();
    };
    let found = Rc::new(RefCell::new(Vec::new()));
    let sink = found.clone();
    let offset = range.start;
    let Some(settings) = crate::tokenize::settings(encoding) else {
        return Vec::new();
    };
    let settings = settings.append_element_content_handler(lol_html::element!("*", move |el| {
        let element = el.tag_name();
        let mut seen: Vec<String> = Vec::new();
        for a in el.attributes() {
            let name = a.name();
            if seen.contains(&name) {
                continue;
            }
            seen.push(name.clone());
            if !URL_ATTRIBUTES.contains(&name.as_str()) {
                continue;
            }
            if let Some(value) = a.value_source_location() {
                let r = value.bytes();
                sink.borrow_mut().push(CommentUrl {
                    element: element.clone(),
                    attribute: name,
                    range: r.start + offset..r.end + offset,
                });
            }
        }
        Ok(())
    }));
    if !crate::tokenize::read_all(markup, settings) {
        return Vec::new();
    }
    found.take()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn finds_vml_and_html_urls_inside_conditional_comments_only() {
        let doc = b"<p><img src=a.png><!--[if gte vml 1]><v:background fill=\"t\">\
<v:fill type=frame src=\"bg.jpg\"/></v:background><![endif]--><!-- plain <img src=no.png> -->\
<!--[if !mso]><!--><img src=visible.png><!--<![endif]-->\
<!--[if gte mso 9]><table background=\"tb.gif\"><tr><td><v:imagedata src='image001.png' o:title=\"\"/></td></tr></table><![endif]-->";
        let found = scan(doc, encoding_rs::UTF_8);
        let got: Vec<(String, String, String)> = found
            .iter()
            .map(|u| {
                (
                    u.element.clone(),
                    u.attribute.clone(),
                    String::from_utf8_lossy(&doc[u.range.clone()]).into_owned(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("v:fill".into(), "src".into(), "bg.jpg".into()),
                ("table".into(), "background".into(), "tb.gif".into()),
                ("v:imagedata".into(), "src".into(), "image001.png".into()),
            ]
        );
    }

    #[test]
    fn no_conditional_comment_no_pass() {
        assert!(scan(b"<a href=x>", encoding_rs::UTF_8).is_empty());
        assert!(scan(b"<!--[if x]> unterminated -->", encoding_rs::UTF_8).is_empty());
    }
}
