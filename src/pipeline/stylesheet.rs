//! A stylesheet as a document: its encoding (CSS Syntax §3.2), its `url()` and `@import` URLs
//! resolved against its base and, when rewriting, replaced byte-faithfully in its own encoding.
//! The one path for a MIME message's `text/css` parts, an archive's stylesheets and a mirror's.

use crate::base::Base;
use crate::decode::EncodingSource;
use crate::error::Diagnostic;
use crate::report::{BaseRecord, LinkRecord, Origin, Report};
use crate::rewrite::css::{rewrite_css, CssKind};
use crate::rewrite::LinkKind;

use super::options::Options;

/// A stylesheet read (and rewritten).
pub(crate) struct Sheet {
    /// Its base record (its encoding, and `diagnostics` as given) and every URL, in order; a
    /// link is `rewritten` when its new value differs.
    pub report: Report,
    /// With `rewrite`: the new bytes (the BOM kept, the text in the stylesheet's encoding) when
    /// a URL changed and every new one can be written in that encoding.
    pub new: Option<Vec<u8>>,
    /// With `rewrite`: a URL changed but cannot be written in the stylesheet's encoding (the
    /// encoding's name); the bytes stay as they are.
    pub unmappable: Option<&'static str>,
    /// Some URL's text changes (whether or not the new text was asked for or can be written).
    pub changes: bool,
}

/// CSS Syntax §3.2 "determine the fallback encoding": a BOM (its length is returned), the
/// transport charset, an `@charset "…";` at the very start, else UTF-8.
pub(crate) fn css_encoding(
    body: &[u8],
    charset: Option<&str>,
) -> (&'static encoding_rs::Encoding, EncodingSource, usize) {
    if let Some((enc, len)) = encoding_rs::Encoding::for_bom(body) {
        return (enc, EncodingSource::Bom, len);
    }
    if let Some(enc) = charset.and_then(|c| encoding_rs::Encoding::for_label(c.trim().as_bytes())) {
        return (enc, EncodingSource::Transport, 0);
    }
    // "the first 1024 bytes … begin with `@charset "` XX* `";` where each XX byte is a value
    // other than 0x22 or 0x3B".
    let head = body.get(..body.len().min(1024)).unwrap_or(body);
    let declared = head
        .strip_prefix(b"@charset \"")
        .and_then(|rest| {
            let end = rest.iter().position(|b| matches!(b, b'"' | b';'))?;
            (rest.get(end..end + 2) == Some(b"\";")).then(|| rest.get(..end))?
        })
        .and_then(encoding_rs::Encoding::for_label)
        // "If the return value was UTF-16BE or UTF-16LE, use UTF-8."
        .map(|e| {
            if e == encoding_rs::UTF_16BE || e == encoding_rs::UTF_16LE {
                encoding_rs::UTF_8
            } else {
                e
            }
        });
    match declared {
        Some(enc) => (enc, EncodingSource::CharsetRule, 0),
        None => (encoding_rs::UTF_8, EncodingSource::Fallback, 0),
    }
}

/// The stylesheet `body` (transport charset `charset`) with its URLs resolved against `base`.
/// Each resolved URL is written as the relinker of `options` says (`--extract`, `--relative`),
/// else absolute; `url(#x)` (local to the document that uses the stylesheet), `url()` and a
/// fictitious result (`thismessage:`, which still names its part: RFC 2557 §8.2(d)) keep their
/// text. `target` names the part a resolved URL loads, in a message. `diagnostics` go first in
/// the base record (they are left where they are when the stylesheet cannot be read).
///
/// # Errors
/// Why the stylesheet cannot be read: its bytes are not valid in its encoding.
pub(crate) fn stylesheet(
    body: &[u8],
    charset: Option<&str>,
    base: &Base,
    diagnostics: &mut Vec<Diagnostic>,
    options: &Options,
    rewrite: bool,
    target: &mut dyn FnMut(&str) -> Option<String>,
) -> Result<Sheet, String> {
    let (encoding, source, bom) = css_encoding(body, charset);
    let Some(text) = encoding
        .decode_without_bom_handling_and_without_replacement(body.get(bom..).unwrap_or_default())
    else {
        return Err(format!("its bytes are not valid {}", encoding.name()));
    };
    let resolve = options.rewrite.resolve;
    let relink = options.rewrite.relink.as_ref();
    let base_text = base.uri.as_ref().map(|u| u.to_string());
    let resolver = base
        .uri
        .as_ref()
        .and_then(|u| crate::Resolver::new(u.as_str(), resolve).ok());
    let document = base_text.clone().unwrap_or_default();
    let mut links = Vec::new();
    // Where each URL's token starts in the text, for its position.
    let mut offsets = Vec::new();
    let new_text = rewrite_css(&text, CssKind::Stylesheet, &mut |url| {
        offsets.push(Some(url.token.start));
        let value = url.value.trim();
        let kind = if url.import {
            LinkKind::CssImport
        } else {
            LinkKind::Css
        };
        let local = value.is_empty() || value.starts_with('#');
        let outcome = match (&resolver, local) {
            (_, true) => Ok(None),
            (Some(r), false) => r
                .resolve(value)
                .map(|r| Some(r.uri))
                .map_err(|e| e.to_string()),
            (None, false) => Err("no base URI: the relative reference is left as it was".into()),
        };
        let (resolved, diagnostic) = match outcome {
            Ok(r) => (r, None),
            Err(e) => (None, Some(format!("unresolvable: {e}"))),
        };
        let relinked = match (relink, &resolved) {
            (Some(r), Some(resolved)) => r.0.relink(&document, resolved),
            _ => None,
        };
        let replacement = match relinked {
            Some(text) => (text != value).then_some(text),
            None => resolved
                .as_ref()
                .filter(|r| r.as_str() != value && !crate::rewrite::is_fictitious(r))
                .cloned(),
        };
        let target_part = resolved.as_deref().and_then(&mut *target);
        links.push(LinkRecord {
            origin: Origin::default(),
            element: String::new(),
            attribute: None,
            original: url.value.to_string(),
            resolved,
            base: base_text.clone(),
            base_source: base.source,
            same_document: local && !value.is_empty(),
            kind,
            rewritten: replacement.is_some(),
            diagnostic,
            srcdoc_depth: 0,
            target_part,
            line: None,
            column: None,
            relinked: None,
        });
        replacement
    });
    let positions = crate::position::positions(text.as_bytes(), encoding_rs::UTF_8, &offsets);
    for (link, position) in links.iter_mut().zip(positions) {
        link.line = position.map(|p| p.line);
        link.column = position.map(|p| p.column);
    }
    let (mut new, mut unmappable) = (None, None);
    if let (true, Some(new_text)) = (rewrite, &new_text) {
        let (encoded, _, lost) = encoding.encode(new_text);
        if lost {
            unmappable = Some(encoding.name());
        } else {
            let mut css = body.get(..bom).unwrap_or_default().to_vec();
            css.extend_from_slice(&encoded);
            new = Some(css);
        }
    }
    let record = BaseRecord {
        origin: Origin::default(),
        base: base_text,
        base_source: base.source,
        encoding: encoding.name(),
        encoding_source: source,
        diagnostics: std::mem::take(diagnostics),
    };
    Ok(Sheet {
        report: Report {
            base: record,
            links,
        },
        new,
        unmappable,
        changes: new_text.is_some(),
    })
}
