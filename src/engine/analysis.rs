//! The one entry of the engines: a document sniffed, analysed by the streaming engine or, when
//! that hands it over (or is not asked), by the DOM engine; written back as the input's bytes
//! with the changed URL values spliced in, or from the tree where no byte-faithful answer
//! exists; and reported.

use std::ops::Range;

use super::dom::driver::{analyse_dom, encoding_diagnostics, finish, refuse_replacement, Analysed};
use super::stream::{Links, Streamed};
use crate::base::Outer;
use crate::decode::{self, Decoded};
use crate::engine::fallback::Fallback;
use crate::error::{Diagnostic, Error};
use crate::pipeline::options::{Engine, EngineChoice, Options};
use crate::report::{BaseRecord, LinkRecord, Report};
use crate::rewrite;

/// One document as the engines take it: its name (for errors), its bytes as stored, the
/// transport charset, the base layers outside it (already established) and what was found
/// about it before.
pub(crate) struct Source<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
    pub charset: Option<&'a str>,
    pub outer: &'a Outer,
    pub diagnostics: Vec<Diagnostic>,
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
    pub streamed: Streamed,
    pub diagnostics: Vec<Diagnostic>,
    /// URLs inside conditional comments, with their value ranges in the input.
    pub loose: Vec<(Range<usize>, rewrite::LooseUrl)>,
}

/// Decodes (sniffs) the document and analyses it: the streaming engine, unless it hands the
/// document to the DOM engine (the reason is reported as a `dom-engine` diagnostic), the DOM
/// engine is asked for, or another output encoding is.
pub(crate) fn analyse(
    source: Source<'_>,
    options: &Options,
    links: Links,
) -> Result<Analysis, Error> {
    let Source {
        name,
        bytes,
        charset,
        outer,
        mut diagnostics,
    } = source;
    let (decoded, streaming) = sniffed(
        name,
        decode::sniff_only_with_default(bytes, charset, options.default_encoding),
        options,
    )?;
    if streaming {
        match super::stream::run(bytes, decoded, outer, &options.rewrite, links) {
            Ok((decoded, streamed)) => {
                diagnostics.extend(encoding_diagnostics(&decoded));
                diagnostics.extend(streamed.diagnostics.iter().cloned());
                let loose = if options.conditional_comments == Some(true) {
                    rewrite::conditional::urls(
                        bytes,
                        &streamed.base,
                        outer,
                        &options.rewrite,
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
            Err(why) => diagnostics.push(why.diagnostic()),
        }
    }
    analyse_dom(name, bytes, charset, diagnostics, outer, options)
        .map(|a| Analysis::Dom(Box::new(a)))
}

/// A document's sniffed encoding (HTML LS §13.2.3), refused where it cannot be written back,
/// and whether the streaming engine is to try it: asked for, and no other output encoding.
pub(crate) fn sniffed(
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
            let loose: crate::splice::Splices = s
                .loose
                .iter()
                .filter_map(|(range, l)| {
                    let new = l.replacement.as_ref()?;
                    crate::splice::attribute(bytes, range.clone(), new, s.decoded.encoding)
                })
                .collect();
            crate::splice::write_merged(bytes, &s.streamed.splices, &loose, out)?;
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
    match super::dom::source::splice(bytes, &a.doc, &a.plan.edits, a.decoded.encoding, &extra) {
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

/// A document written from its tree (the splicer could not match the plan exactly, or another
/// output encoding was asked for) has more than its URL values changed: the serializer writes
/// markup its own way (quotes, implied tags, character references), and comments as the tree
/// holds them, so URLs inside conditional comments stay as written and their records must not
/// claim them. Both are said in a `reserialized` diagnostic on the rewrite's base record;
/// `None` for an engine that spliced.
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
pub(crate) fn reserialized_diagnostic(why: Option<Fallback>, kept: usize) -> Diagnostic {
    let why = why.map_or("another output encoding", Fallback::describe);
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

impl Analysis {
    /// How the document was decoded (the text is not kept).
    pub(crate) fn decoded(&self) -> &Decoded {
        match self {
            Analysis::Stream(s) => &s.decoded,
            Analysis::Dom(a) => &a.decoded,
        }
    }

    /// The DOM engine's analysis, if it made this one.
    pub(crate) fn dom(&self) -> Option<&Analysed> {
        match self {
            Analysis::Stream(_) => None,
            Analysis::Dom(a) => Some(a),
        }
    }

    /// What the streaming engine counted instead of keeping ([`Links::Tally`]).
    pub(crate) fn tally(&self) -> crate::report::LinkTally {
        match self {
            Analysis::Stream(s) => s.streamed.tally,
            Analysis::Dom(_) => crate::report::LinkTally::default(),
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

    /// The base record.
    pub(crate) fn base_record(&self, part: Option<&str>) -> BaseRecord {
        let (base, diagnostics) = match self {
            Analysis::Stream(s) => (&s.streamed.base, &s.diagnostics),
            Analysis::Dom(a) => (&a.plan.base, &a.diagnostics),
        };
        let decoded = self.decoded();
        BaseRecord {
            origin: crate::report::Origin::part(part),
            base: base.uri.as_ref().map(|u| u.to_string()),
            base_source: base.source,
            encoding: decoded.encoding.name(),
            encoding_source: decoded.source,
            diagnostics: diagnostics.clone(),
        }
    }

    /// The base record, and each link as a record to `on_link` in source order, the analysis
    /// consumed as they go; `bytes` is the document, for the links' positions.
    pub(crate) fn deliver(
        self,
        part: Option<&str>,
        bytes: &[u8],
        on_link: &mut dyn FnMut(LinkRecord),
    ) -> BaseRecord {
        let base = self.base_record(part);
        let encoding = self.decoded().encoding;
        let (links, loose) = match self {
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

    /// As [`Analysis::report`], the links' strings moved into the records.
    pub(crate) fn into_report(self, part: Option<&str>, bytes: &[u8]) -> Report {
        let mut links = Vec::new();
        let base = self.deliver(part, bytes, &mut |l| links.push(l));
        Report { base, links }
    }

    /// The report of an analysis of `bytes` (the document, for the links' positions).
    pub(crate) fn report(&self, part: Option<&str>, bytes: &[u8]) -> Report {
        let (links, loose) = match self {
            Analysis::Stream(s) => (&s.streamed.links, &s.loose),
            Analysis::Dom(a) => (&a.plan.links, &a.loose),
        };
        let links: Vec<_> = links
            .iter()
            .chain(loose.iter().map(|(_, l)| &l.link))
            .collect();
        let offsets: Vec<_> = links.iter().map(|l| l.offset).collect();
        let encoding = self.decoded().encoding;
        let positions = crate::position::positions(bytes, encoding, &offsets);
        Report {
            base: self.base_record(part),
            links: links
                .into_iter()
                .zip(positions)
                .map(|(l, p)| LinkRecord::new(l, part).at(p))
                .collect(),
        }
    }
}
