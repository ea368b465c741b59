//! The DOM engine's driver: a document decoded (again, where a late `<meta>` changes the
//! encoding), parsed within the bounds, its base established and its edits planned; refused
//! where writing it from the tree would lose text; and the tree written out when it must be.

use std::ops::Range;

use super::output as serialize;
use super::plan::{self, Plan};
use super::Document;
use crate::base::Outer;
use crate::decode::{self, Decoded};
use crate::error::{Diagnostic, Error};
use crate::pipeline::options::Options;
use crate::rewrite;

/// A document decoded, parsed, with its base established and its edits planned.
pub(crate) struct Analysed {
    pub decoded: Decoded,
    pub doc: Document,
    pub plan: Plan,
    pub diagnostics: Vec<Diagnostic>,
    /// URLs inside conditional comments, with their value ranges in the input.
    pub loose: Vec<(Range<usize>, rewrite::LooseUrl)>,
}

/// The DOM engine: decode, parse into a tree, establish the base and plan.
pub(crate) fn analyse_dom(
    name: &str,
    bytes: &[u8],
    charset: Option<&str>,
    mut diagnostics: Vec<Diagnostic>,
    outer: &Outer,
    options: &Options,
) -> Result<Analysed, Error> {
    let (mut decoded, doc) = decode_and_parse(name, bytes, charset, options)?;
    diagnostics.extend(encoding_diagnostics(&decoded));
    // The tree holds the text now; the decoded copy is not needed again.
    decoded.text = String::new();
    let written = options.output_encoding.unwrap_or(decoded.encoding);
    let mut plan = plan::plan(&doc, outer, &options.rewrite, decoded.encoding, written);
    super::source::locate(bytes, decoded.encoding, &doc, &mut plan.links);
    diagnostics.extend(plan.diagnostics.iter().cloned());
    let loose = if options.conditional_comments == Some(true) {
        rewrite::conditional::urls(bytes, &plan.base, outer, &options.rewrite, decoded.encoding)
    } else {
        Vec::new()
    };
    Ok(Analysed {
        decoded,
        doc,
        plan,
        diagnostics,
        loose,
    })
}

/// Stages ② and ③: decode (refusing the `replacement` encoding) and parse within the bounds.
pub(crate) fn decode_and_parse(
    name: &str,
    bytes: &[u8],
    charset: Option<&str>,
    options: &Options,
) -> Result<(Decoded, Document), Error> {
    let decoded = decode::decode_with_default(bytes, charset, options.default_encoding).map_err(
        |source| Error::Decode {
            input: name.to_owned(),
            source,
        },
    )?;
    refuse_replacement(name, &decoded)?;
    let parse = |text: &str| {
        Document::parse_with_limits(text, options.limits).map_err(|source| Error::Limit {
            input: name.to_owned(),
            source,
        })
    };
    let doc = parse(&decoded.text)?;
    // HTML LS "change the encoding" (§13.2.3.4): while the encoding is only tentative (it came
    // from the prescan or the default), a `<meta>` the 1,024-byte prescan did not reach but the
    // tree builder meets switches to its encoding, and a browser re-reads the document in it.
    if decoded.source.is_tentative() {
        let declared = doc
            .elements()
            .iter()
            .filter(|e| e.is_html("meta") && !e.in_template())
            .find_map(|e| {
                decode::meta_element_encoding(
                    e.attr("charset").as_deref(),
                    e.attr("http-equiv").as_deref(),
                    e.attr("content").as_deref(),
                )
            });
        if let Some(encoding) = declared.filter(|&e| e != decoded.encoding) {
            if let Some(again) =
                decode::changed_by_late_meta(bytes, &decoded, encoding, decode::decode_with_default)
            {
                let doc = parse(&again.text)?;
                return Ok((again, doc));
            }
        }
    }
    Ok((decoded, doc))
}

/// Bytes that are malformed in the chosen encoding decode to U+FFFD, and a document serialized
/// from that text has lost them for good (a windows-1251 page served as UTF-8 comes back as a
/// page of U+FFFD). Nothing is written instead; `links` and `base` still report.
pub(crate) fn refuse_text_loss(name: &str, a: &Analysed) -> Result<(), Error> {
    if !a.decoded.had_errors {
        return Ok(());
    }
    Err(text_loss(name, &a.decoded))
}

/// The refusal of [`refuse_text_loss`], for a document decoded as `decoded`.
pub(crate) fn text_loss(name: &str, decoded: &Decoded) -> Error {
    Error::TextLoss {
        input: name.to_owned(),
        encoding: decoded.encoding.name(),
        encoding_source: decoded.source,
    }
}

/// `--output-charset`: a character the output encoding cannot represent is written as `&#N;`,
/// which text and attribute values decode back; raw text (`<script>`, `<style>`, `<xmp>`, …)
/// does not, so there it would change the script or stylesheet. Refused.
pub(crate) fn refuse_raw_text_loss(
    name: &str,
    a: &Analysed,
    options: &Options,
) -> Result<(), Error> {
    const RAW_TEXT: [&str; 8] = [
        "script",
        "style",
        "xmp",
        "iframe",
        "noembed",
        "noframes",
        "noscript",
        "plaintext",
    ];
    let Some(encoding) = options.output_encoding else {
        return Ok(());
    };
    // UTF-8 and UTF-16 represent everything (and the replacement encoding is written as UTF-8).
    if encoding == a.decoded.encoding
        || encoding == encoding_rs::UTF_8
        || encoding == encoding_rs::UTF_16LE
        || encoding == encoding_rs::UTF_16BE
        || encoding == encoding_rs::REPLACEMENT
    {
        return Ok(());
    }
    for element in a.doc.elements() {
        let Some(tag) = RAW_TEXT.iter().find(|t| element.is_html(t)) else {
            continue;
        };
        let text = element.text();
        if !encoding.encode(&text).2 {
            continue;
        }
        let mut buffer = [0u8; 4];
        let first = text
            .chars()
            .find(|c| encoding.encode(c.encode_utf8(&mut buffer)).2)
            .unwrap_or('\u{FFFD}');
        return Err(Error::RawTextLoss {
            input: name.to_owned(),
            tag,
            character: first,
            encoding: encoding.name(),
        });
    }
    Ok(())
}

/// Applies the plan and serializes in the output encoding.
pub(crate) fn finish(a: &Analysed, options: &Options) -> Vec<u8> {
    plan::apply(&a.doc, &a.plan);
    let encoding = options.output_encoding.unwrap_or(a.decoded.encoding);
    if encoding != a.decoded.encoding {
        serialize::retarget_charset_declarations(&a.doc, encoding);
    }
    serialize::serialize(&a.doc, encoding, a.decoded.bom)
}

/// HTML LS maps ISO-2022-KR, HZ-GB-2312 and friends to "replacement", which decodes the whole
/// document to one U+FFFD: rewriting would destroy it, so refuse instead.
pub(crate) fn refuse_replacement(name: &str, decoded: &Decoded) -> Result<(), Error> {
    if decoded.encoding == encoding_rs::REPLACEMENT {
        return Err(Error::ReplacementEncoding {
            input: name.to_owned(),
        });
    }
    Ok(())
}

/// What the decoder noted (an unknown label, malformed bytes) as `encoding` diagnostics.
pub(crate) fn encoding_diagnostics(decoded: &Decoded) -> impl Iterator<Item = Diagnostic> + '_ {
    decoded
        .diagnostics
        .iter()
        .map(|d| Diagnostic::new(crate::error::DiagnosticCode::Encoding, d.clone()))
}
