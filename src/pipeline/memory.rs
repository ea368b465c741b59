//! The entry points for a document in memory: rewrite it, list its links, its base, its
//! fragment targets.

use super::options::{Engine, EngineChoice, HtmlInput, Options, Rewritten, Written};
use crate::base::outer_base;
use crate::decode;
use crate::engine::stream::Links;
use crate::engine::{
    decode_and_parse, refuse_raw_text_loss, refuse_text_loss, reserialized_diagnostic,
    unclaim_loose, write_into, Analysis, Source,
};
use crate::error::Error;
use crate::report::{BaseRecord, LinkRecord, LinkTally, Report};

/// Rewrites every relative URL of an HTML document to absolute form.
///
/// # Errors
/// [`Error::Decode`] for binary input, [`Error::ReplacementEncoding`], [`Error::TextLoss`] or
/// [`Error::RawTextLoss`] for text that cannot be written back, [`Error::Limit`] for crafted input past the parser bounds, [`Error::BadBase`]
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
///     // Only the URL changed: the quotes, and everything else, are the input's.
///     "<a href='http://h/a/x'>x</a>"
/// );
/// assert_eq!(out.engine, linkbase::pipeline::Engine::Stream);
/// # Ok::<(), linkbase::Error>(())
/// ```
pub fn rewrite(input: &HtmlInput<'_>, options: &Options) -> Result<Rewritten, Error> {
    let mut bytes = Vec::with_capacity(input.bytes.len() + input.bytes.len() / 8);
    let mut links = Vec::new();
    let (base, _, engine) = write_document(input, options, &mut bytes, Links::Keep, &mut |l| {
        links.push(l)
    })?;
    Ok(Rewritten {
        bytes,
        report: Report { base, links },
        engine,
    })
}

/// [`rewrite()`] written to `out`, its links counted rather than kept: the output goes
/// straight from the input's bytes and the changed URL values, so memory holds the input and
/// little else (what `linkbase rewrite` does with one document). Nothing is written when the
/// document is refused.
///
/// # Errors
/// As [`rewrite()`], and [`Error::Io`] when writing to `out` fails (the output is then
/// incomplete: write to a temporary file and rename it on success).
///
/// ```
/// use linkbase::pipeline::{rewrite_to, HtmlInput, Options};
/// use linkbase::BaseLayers;
///
/// let input = HtmlInput {
///     name: "page.html",
///     bytes: b"<a href=x>x</a><a href='#top'>top</a>",
///     layers: BaseLayers { retrieval_uri: Some("http://h/d/page.html".into()), ..Default::default() },
///     ..Default::default()
/// };
/// let mut out = Vec::new();
/// let written = rewrite_to(&input, &Options::default(), &mut out)?;
/// assert_eq!(out, b"<a href=http://h/d/x>x</a><a href='#top'>top</a>");
/// // The same-document reference is right as it is and not counted.
/// assert_eq!((written.links.links, written.links.unresolved), (1, 0));
/// # Ok::<(), linkbase::Error>(())
/// ```
pub fn rewrite_to(
    input: &HtmlInput<'_>,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> Result<Written, Error> {
    let mut tally = LinkTally::default();
    let (base, counted, engine) =
        write_document(input, options, out, Links::Tally, &mut |l| tally.add(&l))?;
    tally += counted;
    Ok(Written {
        base,
        links: tally,
        engine,
    })
}

/// The document rewritten to `out`; then its links, those the engine kept to `on_link`, those
/// it counted (with [`Links::Tally`]) as the returned tally.
fn write_document(
    input: &HtmlInput<'_>,
    options: &Options,
    out: &mut dyn std::io::Write,
    links: Links,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<(BaseRecord, LinkTally, Engine), Error> {
    let a = analyse(input, options, links)?;
    if let Some(dom) = a.dom() {
        refuse_text_loss(input.name, dom)?;
        refuse_raw_text_loss(input.name, dom, options)?;
    }
    let engine = write_into(input.bytes, &a, options, out).map_err(|source| Error::Io {
        input: input.name.to_owned(),
        source,
    })?;
    // Written from its tree: said, and conditional-comment URLs unclaimed (see `reserialized`).
    let reserialized = matches!(engine, Engine::Serialize(_));
    let counted = a.tally();
    let mut kept = 0;
    let mut base = a.deliver(None, input.bytes, &mut |mut l| {
        if reserialized {
            kept += usize::from(unclaim_loose(&mut l));
        }
        on_link(l);
    });
    if let Engine::Serialize(why) = engine {
        base.diagnostics.push(reserialized_diagnostic(why, kept));
    }
    Ok((base, counted, engine))
}

/// A document in memory through the engines' entry, its outer base established from its
/// layers.
pub(super) fn analyse(
    input: &HtmlInput<'_>,
    options: &Options,
    links: Links,
) -> Result<Analysis, Error> {
    let mut diagnostics = input.diagnostics.clone();
    let outer = outer_base(&input.layers, options.rewrite.resolve, &mut diagnostics)?;
    let source = Source {
        name: input.name,
        bytes: input.bytes,
        charset: input.charset.as_deref(),
        outer: &outer,
        diagnostics,
    };
    crate::engine::analyse(source, options, links)
}

/// Every link of an HTML document with its resolution, and the document's base.
///
/// # Errors
/// As [`rewrite()`].
pub fn links(input: &HtmlInput<'_>, options: &Options) -> Result<Report, Error> {
    let a = analyse(input, options, Links::Keep)?;
    Ok(a.into_report(None, input.bytes))
}

/// The base record of an HTML document alone: [`links()`] without the link records, whose
/// memory would grow with the document (the streaming engine counts the links instead).
///
/// # Errors
/// As [`links()`].
pub fn base(input: &HtmlInput<'_>, options: &Options) -> Result<BaseRecord, Error> {
    let a = analyse(input, options, Links::Tally)?;
    Ok(a.base_record(None))
}

/// The fragment targets of an HTML document: every `id`, and the `name` of every `a` (HTML LS
/// "find a potential indicated element"), for checking `#fragment` links.
///
/// # Errors
/// As [`links`].
pub fn fragment_ids(input: &HtmlInput<'_>, options: &Options) -> Result<Vec<String>, Error> {
    if options.engine == EngineChoice::Auto {
        let decoded = decode::sniff_only_with_default(
            input.bytes,
            input.charset.as_deref(),
            options.default_encoding,
        )
        .map_err(|source| Error::Decode {
            input: input.name.to_owned(),
            source,
        })?;
        if decoded.encoding != encoding_rs::REPLACEMENT {
            if let Ok(ids) = crate::engine::stream::fragment_ids(
                input.bytes,
                decoded.encoding,
                decoded.source.is_tentative(),
            ) {
                return Ok(ids);
            }
        }
    }
    let (_, doc) = decode_and_parse(input.name, input.bytes, input.charset.as_deref(), options)?;
    let mut ids = Vec::new();
    for element in doc.elements().iter().filter(|e| !e.in_template()) {
        if let Some(id) = element.attr("id") {
            ids.push(id);
        }
        if element.is_html("a") {
            if let Some(name) = element.attr("name") {
                ids.push(name);
            }
        }
    }
    Ok(ids)
}
