//! ⑦ Output: the tree serialized by html5ever and encoded back into the document's own
//! encoding (or the one asked for), with numeric character references for characters it cannot
//! represent (docs/html-rules.md §5).

use encoding_rs::Encoding;

use crate::decode;
use crate::engine::dom::{AttrNs, Document};

/// The document as bytes in `encoding`, with a BOM when `bom`.
pub fn serialize(doc: &Document, encoding: &'static Encoding, bom: bool) -> Vec<u8> {
    let html = doc.to_html();
    if encoding == encoding_rs::UTF_8 && !bom {
        // The serializer's output is already the bytes to write.
        return html.into_bytes();
    }
    decode::encode(&html, encoding, bom)
}

/// When the output encoding differs from the input's, the document's own declarations must
/// follow: `<meta charset>` and the charset of `<meta http-equiv=content-type>` are set to the
/// output encoding's name. Returns how many declarations changed.
pub fn retarget_charset_declarations(doc: &Document, encoding: &'static Encoding) -> usize {
    // What an encoder writes (UTF-16 is written as UTF-16 by decode::encode; the replacement
    // encoding as UTF-8).
    let name = if encoding == encoding_rs::REPLACEMENT {
        "UTF-8"
    } else {
        encoding.name()
    };
    let mut changed = 0;
    for meta in doc.elements().iter().filter(|e| e.is_html("meta")) {
        if meta.attr("charset").is_some() && meta.set_attr(AttrNs::None, "charset", name) {
            changed += 1;
        }
        let content_type = meta
            .attr("http-equiv")
            .is_some_and(|h| h.trim().eq_ignore_ascii_case("content-type"));
        if let (true, Some(content)) = (content_type, meta.attr("content")) {
            // The prescan's reader, so the label replaced is the one decoding read.
            if let Some(label) = crate::decode::meta_content_charset_label(content.as_bytes()) {
                let (start, end) = (label.start, label.end);
                let new = format!(
                    "{}{name}{}",
                    content.get(..start).unwrap_or_default(),
                    content.get(end..).unwrap_or_default()
                );
                meta.set_attr(AttrNs::None, "content", &new);
                changed += 1;
            }
        }
    }
    changed
}
