//! A document decoded, analysed by one of the two engines (the streaming engine, or the DOM
//! engine's plan), refused where writing it would lose text, written out and reported.

use super::options::{Engine, EngineChoice, HtmlInput, Options};
use crate::base::{outer_base, Outer};
use crate::decode::{self, Decoded};
use crate::engine::dom::output as serialize;
use crate::engine::dom::plan::{self, Plan};
use crate::engine::dom::Document;
use crate::engine::stream::Links;
use crate::error::{Diagnostic, Error};
use crate::report::{BaseRecord, LinkRecord, Report};
use crate::rewrite;
use encoding_rs::Encoding;

/// Issue 22: a document written from its tree (the splicer could not match the plan exactly,
/// or another output encoding was asked for) has more than its URL values changed: the
/// serializer writes markup its own way (quotes, implied tags, character references), and
/// comments as the tree holds them, so URLs inside conditional comments stay as written and
/// their records must not claim them. Both are said in a `reserialized` diagnostic on the
/// rewrite's base record; `None` for an engine that spliced.
pub(crate) fn reserialized(engine: Engine, report: &mut Report) -> Option<Diagnostic> {
    let Engine::Serialize(why) = engine else {
        return None;
    };
    let mut kept = 0;
    for link in &mut report.links {
        kept += usize::from(unclaim_loose(link));
    }
    Some(reserialized_diagnostic(why, kept))
}

/// A conditional-comment URL in a document written from its tree (see [`reserialized`]):
/// not rewritten. Whether it was claimed.
pub(crate) fn unclaim_loose(link: &mut LinkRecord) -> bool {
    let claimed = link.kind == rewrite::LinkKind::ConditionalComment && link.rewritten;
    if claimed {
        link.rewritten = false;
    }
    claimed
}

/// The `reserialized` diagnostic of [`reserialized`]: why the tree was written, and how many
/// conditional-comment URLs that left as written.
pub(crate) fn reserialized_diagnostic(
    why: Option<crate::engine::Fallback>,
    kept: usize,
) -> Diagnostic {
    let why = why.map_or("another output encoding", crate::engine::Fallback::describe);
    let mut message = format!(
        "written from its parsed tree ({why}): markup besides the URL values is as the serializer writes it"
    );
    if kept > 0 {
        message.push_str(&format!(
            "; {kept} URL{} inside conditional comments left as written",
            if kept == 1 { "" } else { "s" }
        ));
    }
    Diagnostic::new(crate::error::DiagnosticCode::Reserialized, message)
}

/// The rewritten bytes: the streaming engine's splices; or, from the DOM engine, its plan
/// spliced into the input where it can be matched exactly, else the tree serialized.
pub(crate) fn write_out(bytes: &[u8], analysis: &Analysis, options: &Options) -> (Vec<u8>, Engine) {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    match write_into(bytes, analysis, options, &mut out) {
        Ok(engine) => (out, engine),
        // Writing into memory does not fail.
        Err(_) => (Vec::new(), Engine::Stream),
    }
}

/// [`write_out`] to `out`: the streaming engine's output goes straight from the input's bytes
/// and the splices, never held whole.
pub(crate) fn write_into(
    bytes: &[u8],
    analysis: &Analysis,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<Engine> {
    let a = match analysis {
        Analysis::Stream(s) => {
            // Conditional-comment URLs (rare) join the engine's splices in source order.
            let mut loose: Vec<(std::ops::Range<usize>, Vec<u8>)> = s
                .loose
                .iter()
                .filter_map(|(range, l)| {
                    let new = l.replacement.as_ref()?;
                    let (range, text) = crate::splice::escaped(bytes, range.clone(), new);
                    let (encoded, _, _) = s.decoded.encoding.encode(&text);
                    Some((range, encoded.into_owned()))
                })
                .collect();
            if loose.is_empty() {
                crate::splice::write_spliced(bytes, &s.streamed.splices, out)?;
            } else {
                loose.extend(s.streamed.splices.iter().cloned());
                loose.sort_by_key(|(r, _)| r.start);
                crate::splice::write_spliced(bytes, &loose, out)?;
            }
            return Ok(Engine::Stream);
        }
        Analysis::Dom(a) => a,
    };
    if options
        .output_encoding
        .is_some_and(|e| e != a.decoded.encoding)
    {
        out.write_all(&finish(a, options))?;
        return Ok(Engine::Serialize(None));
    }
    let extra: Vec<_> = a
        .loose
        .iter()
        .filter_map(|(range, l)| Some((range.clone(), l.replacement.clone()?)))
        .collect();
    match crate::engine::dom::splice::splice(bytes, &a.doc, &a.plan, a.decoded.encoding, &extra) {
        Ok(splices) => {
            crate::splice::write_spliced(bytes, &splices, out)?;
            Ok(Engine::Splice)
        }
        Err(why) => {
            out.write_all(&finish(a, options))?;
            Ok(Engine::Serialize(Some(why)))
        }
    }
}

/// Issue 14: bytes that are malformed in the chosen encoding decode to U+FFFD, and a document
/// serialized from that text has lost them for good (a windows-1251 page served as UTF-8 comes
/// back as a page of U+FFFD). Nothing is written instead; `links` and `base` still report.
pub(crate) fn refuse_text_loss(name: &str, a: &Analysed) -> Result<(), Error> {
    if !a.decoded.had_errors {
        return Ok(());
    }
    Err(text_loss(name, &a.decoded))
}

/// `--output-charset`: a character the output encoding cannot represent is written as `&#N;`,
/// which text and attribute values decode back; raw text (`<script>`, `<style>`, `<xmp>`, …)
/// does not, so there it would change the script or stylesheet (issue 9 item 9). Refused.
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

/// The refusal of [`refuse_text_loss`], for a document decoded as `decoded`.
pub(crate) fn text_loss(name: &str, decoded: &Decoded) -> Error {
    Error::TextLoss {
        input: name.to_owned(),
        encoding: decoded.encoding.name(),
        encoding_source: decoded.source,
    }
}

/// A document analysed by one of the two engines.
pub(crate) enum Analysis {
    /// By the streaming engine.
    Stream(Box<StreamAnalysed>),
    /// By the DOM engine.
    Dom(Box<Analysed>),
}

/// A document tokenized, with its base established and its changes decided as byte ranges.
pub(crate) struct StreamAnalysed {
    pub decoded: Decoded,
    pub streamed: crate::engine::stream::Streamed,
    pub diagnostics: Vec<Diagnostic>,
    /// URLs inside conditional comments, with their value ranges in the input.
    pub loose: Vec<(std::ops::Range<usize>, rewrite::LooseUrl)>,
}

impl Analysis {
    /// How the document was decoded (the text is not kept).
    pub(crate) fn decoded(&self) -> &Decoded {
        match self {
            Analysis::Stream(s) => &s.decoded,
            Analysis::Dom(a) => &a.decoded,
        }
    }

    /// Whether the rewrite changes any byte.
    pub(crate) fn has_changes(&self) -> bool {
        let loose = match self {
            Analysis::Stream(s) => &s.loose,
            Analysis::Dom(a) => &a.loose,
        };
        let planned = match self {
            Analysis::Stream(s) => !s.streamed.splices.is_empty(),
            Analysis::Dom(a) => !a.plan.edits.is_empty(),
        };
        planned || loose.iter().any(|(_, l)| l.replacement.is_some())
    }

    /// Whether writing the document back keeps every byte that is not a URL: always for the
    /// streaming engine, which copies them; for the DOM engine only when the text decoded
    /// without error.
    pub(crate) fn lossless(&self) -> bool {
        match self {
            Analysis::Stream(_) => true,
            Analysis::Dom(a) => !a.decoded.had_errors,
        }
    }
}

/// A document decoded, parsed, with its base established and its edits planned.
pub(crate) struct Analysed {
    pub decoded: Decoded,
    pub doc: Document,
    pub plan: Plan,
    pub diagnostics: Vec<Diagnostic>,
    /// URLs inside conditional comments, with their value ranges in the input.
    pub loose: Vec<(std::ops::Range<usize>, rewrite::LooseUrl)>,
}

/// Decode, parse, establish the base and plan: everything but changing the document.
pub(super) fn analyse(
    input: &HtmlInput<'_>,
    options: &Options,
    links: Links,
) -> Result<Analysis, Error> {
    let mut diagnostics = input.diagnostics.clone();
    let outer = outer_base(&input.layers, options.rewrite.resolve, &mut diagnostics)?;
    analyse_html(
        input.name,
        input.bytes,
        input.charset.as_deref(),
        diagnostics,
        &outer,
        options,
        links,
    )
}

/// A document's sniffed encoding (HTML LS §13.2.3), refused where it cannot be written back,
/// and whether the streaming engine is to try it: asked for, and no other output encoding.
pub(super) fn sniffed(
    name: &str,
    sniff: Result<Decoded, decode::DecodeError>,
    options: &Options,
) -> Result<(Decoded, bool), Error> {
    let decoded = sniff.map_err(|source| Error::Decode {
        input: name.to_owned(),
        source,
    })?;
    refuse_replacement(name, &decoded)?;
    let transcode = options
        .output_encoding
        .is_some_and(|e| e != decoded.encoding);
    Ok((decoded, !transcode && options.engine == EngineChoice::Auto))
}

/// The HTML stages for a document whose outer base is already known (a bare document, or a
/// MIME body part): the streaming engine, unless it hands the document to the DOM engine (the
/// reason is reported as a `dom-engine` diagnostic) or another output encoding is asked for.
pub(crate) fn analyse_html(
    name: &str,
    bytes: &[u8],
    charset: Option<&str>,
    mut diagnostics: Vec<Diagnostic>,
    outer: &Outer,
    options: &Options,
    links: Links,
) -> Result<Analysis, Error> {
    let (decoded, streaming) = sniffed(
        name,
        decode::sniff_only_with_default(bytes, charset, options.default_encoding),
        options,
    )?;
    if streaming {
        match crate::engine::stream::run(bytes, &decoded, outer, &options.rewrite, links) {
            Ok(streamed) => {
                diagnostics.extend(encoding_diagnostics(&decoded));
                diagnostics.extend(streamed.diagnostics.iter().cloned());
                let loose = if options.conditional_comments == Some(true) {
                    conditional_comment_urls(
                        bytes,
                        &streamed.base,
                        outer,
                        options,
                        decoded.encoding,
                    )
                } else {
                    Vec::new()
                };
                return Ok(Analysis::Stream(Box::new(StreamAnalysed {
                    decoded,
                    streamed,
                    diagnostics,
                    loose,
                })));
            }
            Err(why) => diagnostics.extend(why.diagnostic()),
        }
    }
    analyse_dom(name, bytes, charset, diagnostics, outer, options)
        .map(|a| Analysis::Dom(Box::new(a)))
}

/// What the decoder noted (an unknown label, malformed bytes) as `encoding` diagnostics.
pub(super) fn encoding_diagnostics(decoded: &Decoded) -> impl Iterator<Item = Diagnostic> + '_ {
    decoded
        .diagnostics
        .iter()
        .map(|d| Diagnostic::new(crate::error::DiagnosticCode::Encoding, d.clone()))
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
    crate::engine::dom::locate::locate(bytes, decoded.encoding, &doc, &mut plan.links);
    diagnostics.extend(plan.diagnostics.iter().cloned());
    let loose = if options.conditional_comments == Some(true) {
        conditional_comment_urls(bytes, &plan.base, outer, options, decoded.encoding)
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

/// Issue 14: the URL attributes inside conditional comments, resolved like the tree's.
pub(super) fn conditional_comment_urls(
    bytes: &[u8],
    base: &crate::Base,
    outer: &Outer,
    options: &Options,
    encoding: &'static Encoding,
) -> Vec<(std::ops::Range<usize>, rewrite::LooseUrl)> {
    let found: Vec<_> = rewrite::conditional::scan(bytes, encoding)
        .into_iter()
        .filter_map(|u| {
            let raw = bytes.get(u.range.clone())?;
            let value = crate::splice::decode_attribute(raw, encoding)?;
            Some((u.range, (u.element, u.attribute, value)))
        })
        .collect();
    let values: Vec<_> = found.iter().map(|(_, v)| v.clone()).collect();
    let planned = rewrite::plan_loose_urls(base, outer, &options.rewrite, encoding, &values);
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

/// Stages ② and ③: decode (refusing the `replacement` encoding) and parse within the bounds.
pub(super) fn decode_and_parse(
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
    if matches!(
        decoded.source,
        decode::EncodingSource::Meta | decode::EncodingSource::Fallback
    ) {
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
            if let Ok(mut again) = decode::decode(bytes, Some(encoding.name())) {
                let from = decoded.encoding.name();
                again.source = decode::EncodingSource::Meta;
                again.diagnostics.retain(|d| !d.contains("transport"));
                again.diagnostics.push(format!(
                    "a <meta> declaring {} beyond the 1,024-byte prescan changed the encoding from \
                     {from} (HTML LS \"change the encoding\"); the document was decoded again",
                    encoding.name()
                ));
                let doc = parse(&again.text)?;
                return Ok((again, doc));
            }
        }
    }
    Ok((decoded, doc))
}

/// HTML LS maps ISO-2022-KR, HZ-GB-2312 and friends to "replacement", which decodes the whole
/// document to one U+FFFD: rewriting would destroy it, so refuse instead.
pub(super) fn refuse_replacement(name: &str, decoded: &Decoded) -> Result<(), Error> {
    if decoded.encoding == encoding_rs::REPLACEMENT {
        return Err(Error::ReplacementEncoding {
            input: name.to_owned(),
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

/// As [`report`], taking the analysis: the links' strings move into the records.
pub(crate) fn into_report(analysis: Analysis, part: Option<&str>, bytes: &[u8]) -> Report {
    let mut links = Vec::new();
    let base = deliver(analysis, part, bytes, &mut |l| links.push(l));
    Report { base, links }
}

/// The base record, and each link as a record to `on_link` in source order, the analysis
/// consumed as they go; `bytes` is the document, for the links' positions.
pub(super) fn deliver(
    analysis: Analysis,
    part: Option<&str>,
    bytes: &[u8],
    on_link: &mut dyn FnMut(LinkRecord),
) -> BaseRecord {
    let base = report_base(&analysis, part);
    let encoding = analysis.decoded().encoding;
    let (links, loose) = match analysis {
        Analysis::Stream(s) => (s.streamed.links, s.loose),
        Analysis::Dom(a) => (a.plan.links, a.loose),
    };
    let links: Vec<_> = links
        .into_iter()
        .chain(loose.into_iter().map(|(_, l)| l.link))
        .collect();
    let offsets: Vec<_> = links.iter().map(|l| l.offset).collect();
    let positions = crate::position::positions(bytes, encoding, &offsets);
    for (link, position) in links.into_iter().zip(positions) {
        on_link(LinkRecord::from_link(link, part).at(position));
    }
    base
}

pub(super) fn report_base(analysis: &Analysis, part: Option<&str>) -> BaseRecord {
    let (base, diagnostics) = match analysis {
        Analysis::Stream(s) => (&s.streamed.base, &s.diagnostics),
        Analysis::Dom(a) => (&a.plan.base, &a.diagnostics),
    };
    let decoded = analysis.decoded();
    BaseRecord {
        origin: crate::report::Origin::part(part),
        base: base.uri.as_ref().map(|u| u.to_string()),
        base_source: base.source,
        encoding: decoded.encoding.name(),
        encoding_source: decoded.source,
        diagnostics: diagnostics.clone(),
    }
}

/// The report of an analysis of `bytes` (the document, for the links' positions).
pub(crate) fn report(analysis: &Analysis, part: Option<&str>, bytes: &[u8]) -> Report {
    let (links, loose) = match analysis {
        Analysis::Stream(s) => (&s.streamed.links, &s.loose),
        Analysis::Dom(a) => (&a.plan.links, &a.loose),
    };
    let links: Vec<_> = links
        .iter()
        .chain(loose.iter().map(|(_, l)| &l.link))
        .collect();
    let offsets: Vec<_> = links.iter().map(|l| l.offset).collect();
    let encoding = analysis.decoded().encoding;
    let positions = crate::position::positions(bytes, encoding, &offsets);
    Report {
        base: report_base(analysis, part),
        links: links
            .into_iter()
            .zip(positions)
            .map(|(l, p)| LinkRecord::new(l, part).at(p))
            .collect(),
    }
}
