//! The stages, in order, and nothing else:
//! input → [`decode`](crate::decode) → [`Document::parse`] → [`base`](crate::base) →
//! [`rewrite::plan`] → [`rewrite::apply`] → [`serialize`](crate::serialize) / [`report`](crate::report).

use encoding_rs::Encoding;

use crate::base::{outer_base, BaseLayers};
use crate::decode::{self, Decoded};
use crate::dom::{Document, ParseLimits};
use crate::error::{Diagnostic, Error};
use crate::report::{BaseRecord, LinkRecord, Report};
use crate::rewrite::{self, Plan, RewriteOptions};
use crate::serialize;

/// An HTML document and what is known about it from outside.
#[derive(Debug, Clone, Default)]
pub struct HtmlInput<'a> {
    /// How to name it in errors (a path, or `-`).
    pub name: &'a str,
    /// Its bytes, as stored or received.
    pub bytes: &'a [u8],
    /// The base layers outside the document (§5.1.2–§5.1.4).
    pub layers: BaseLayers,
    /// The transport-layer charset label (`--charset`, or Content-Type's `charset`).
    pub charset: Option<String>,
    /// Findings about the input made before the pipeline (ignored headers, …), carried into
    /// the report.
    pub diagnostics: Vec<Diagnostic>,
}

/// How to process.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Resolution and rewriting choices.
    pub rewrite: RewriteOptions,
    /// Write the output in this encoding instead of the document's own.
    pub output_encoding: Option<&'static Encoding>,
    /// Bounds on parsing hostile input.
    pub limits: ParseLimits,
}

/// The output of [`rewrite`].
#[derive(Debug, Clone)]
pub struct Rewritten {
    /// The rewritten document, encoded.
    pub bytes: Vec<u8>,
    /// Its base and links.
    pub report: Report,
}

/// Rewrites every relative URL of an HTML document to absolute form.
///
/// # Errors
/// [`Error::Decode`] for binary input, [`Error::Unsupported`] for an encoding that cannot be
/// written back, [`Error::Limit`] for crafted input past the parser bounds, [`Error::BadBase`]
/// for an unusable `--url` or `--default-base`.
///
/// ```
/// use linkbase::pipeline::{rewrite, HtmlInput, Options};
/// use linkbase::BaseLayers;
///
/// let input = HtmlInput {
///     name: "page.html",
///     bytes: b"<a href='../x'>x</a>",
///     layers: BaseLayers { retrieval_uri: Some("http://h/a/b/page.html".into()), ..Default::default() },
///     ..Default::default()
/// };
/// let out = rewrite(&input, &Options::default())?;
/// assert_eq!(
///     String::from_utf8(out.bytes).unwrap(),
///     r#"<html><head></head><body><a href="http://h/a/x">x</a></body></html>"#
/// );
/// # Ok::<(), linkbase::Error>(())
/// ```
pub fn rewrite(input: &HtmlInput<'_>, options: &Options) -> Result<Rewritten, Error> {
    let (decoded, doc, plan, mut diagnostics) = analyse(input, options)?;
    rewrite::apply(&doc, &plan);
    let encoding = options.output_encoding.unwrap_or(decoded.encoding);
    if encoding != decoded.encoding {
        serialize::retarget_charset_declarations(&doc, encoding);
    }
    let bytes = serialize::serialize(&doc, encoding, decoded.bom);
    diagnostics.extend(plan.diagnostics.iter().cloned());
    Ok(Rewritten {
        bytes,
        report: report(&decoded, &plan, diagnostics, None),
    })
}

/// Every link of an HTML document with its resolution, and the document's base.
///
/// # Errors
/// As [`rewrite`].
pub fn links(input: &HtmlInput<'_>, options: &Options) -> Result<Report, Error> {
    let (decoded, _doc, plan, mut diagnostics) = analyse(input, options)?;
    diagnostics.extend(plan.diagnostics.iter().cloned());
    Ok(report(&decoded, &plan, diagnostics, None))
}

/// Decode, parse, establish the base and plan: everything but changing the document.
fn analyse(
    input: &HtmlInput<'_>,
    options: &Options,
) -> Result<(Decoded, Document, Plan, Vec<Diagnostic>), Error> {
    let decoded =
        decode::decode(input.bytes, input.charset.as_deref()).map_err(|source| Error::Decode {
            input: input.name.to_owned(),
            source,
        })?;
    if decoded.encoding == encoding_rs::REPLACEMENT {
        // HTML LS maps ISO-2022-KR, HZ-GB-2312 and friends to "replacement", which decodes the
        // whole document to one U+FFFD: rewriting would destroy it, so refuse instead.
        return Err(Error::Unsupported {
            input: input.name.to_owned(),
            message: "its charset maps to the \"replacement\" encoding (HTML LS), which cannot be decoded without destroying it".into(),
        });
    }
    let mut diagnostics = input.diagnostics.clone();
    diagnostics.extend(
        decoded
            .diagnostics
            .iter()
            .map(|d| Diagnostic::new("encoding", d.clone())),
    );
    let doc = Document::parse_with_limits(&decoded.text, options.limits).map_err(|source| {
        Error::Limit {
            input: input.name.to_owned(),
            source,
        }
    })?;
    let outer = outer_base(&input.layers, options.rewrite.resolve, &mut diagnostics)?;
    let plan = rewrite::plan(&doc, &outer, &options.rewrite);
    Ok((decoded, doc, plan, diagnostics))
}

fn report(
    decoded: &Decoded,
    plan: &Plan,
    diagnostics: Vec<Diagnostic>,
    part: Option<&str>,
) -> Report {
    Report {
        base: BaseRecord {
            part: part.map(str::to_owned),
            base: plan.base.uri.as_ref().map(|u| u.to_string()),
            base_source: plan.base.source,
            encoding: decoded.encoding.name(),
            encoding_source: decoded.source,
            diagnostics,
        },
        links: plan
            .links
            .iter()
            .map(|l| LinkRecord::new(l, part))
            .collect(),
    }
}
