//! One document through the engine, as its role says: the whole input (streamed where it can
//! be, an error stopping the run), a MIME part (kept as it was with a `part-skipped`
//! diagnostic where it cannot be read or written back), an archived record (its error said
//! and counted); HTML through the pipeline, a stylesheet through the one stylesheet path.

use std::borrow::Cow;

use super::sink::{Done, Output};
use crate::base::outer_base;
use crate::engine::stream::Links;
use crate::error::{Diagnostic, DiagnosticCode, Error};
use crate::pipeline::{self, HtmlInput, Options, PathInput};
use crate::report::{BaseRecord, LinkRecord, LinkTally, Report};
use crate::source::{Back, Body, Document, Kind, Layers, PartBack};

/// What a verb wants of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// Its base record and every link record.
    Links,
    /// Its base record; its links counted.
    Base,
    /// Its rewritten body (to go back into its input), its base record, its links counted.
    Rewrite,
    /// As `Rewrite`, for a file of its own (`--extract`): a MIME part's body whatever its
    /// transfer encoding, not encoded back.
    Extract,
}

/// What became of one document.
pub(crate) struct Outcome {
    pub done: Done,
    /// [`Want::Links`] (and a MIME part's, always): its link records, in order.
    pub links: Vec<LinkRecord>,
    /// [`Want::Rewrite`], [`Want::Extract`]: its new body, when it changed and can go back.
    pub new: Option<Vec<u8>>,
}

impl Outcome {
    fn of(report: Report, new: Option<Vec<u8>>) -> Outcome {
        let mut links = LinkTally::default();
        report.links.iter().for_each(|l| links.add(l));
        Outcome {
            done: Done {
                base: report.base,
                links,
            },
            links: report.links,
            new,
        }
    }
}

/// The options for `document`: URLs in conditional comments count in e-mail unless the options
/// say.
fn options_for<'o>(document: &Document<'_>, options: &'o Options) -> Cow<'o, Options> {
    if document.conditional_comments && options.conditional_comments.is_none() {
        return Cow::Owned(Options {
            conditional_comments: Some(true),
            ..options.clone()
        });
    }
    Cow::Borrowed(options)
}

/// The pipeline's input for a document in memory with layers as given.
fn html_input<'d>(document: &'d Document<'_>, bytes: &'d [u8]) -> Option<HtmlInput<'d>> {
    let Layers::Given(layers) = &document.layers else {
        return None;
    };
    Some(HtmlInput {
        name: &document.name,
        bytes,
        layers: layers.clone(),
        charset: document.charset.clone(),
        diagnostics: document.diagnostics.clone(),
    })
}

fn path_input<'d>(document: &'d Document<'_>, path: &'d std::path::Path) -> Option<PathInput<'d>> {
    let Layers::Given(layers) = &document.layers else {
        return None;
    };
    Some(PathInput {
        name: &document.name,
        path,
        layers: layers.clone(),
        charset: document.charset.clone(),
        diagnostics: document.diagnostics.clone(),
    })
}

/// One document in memory, `want` as said; a MIME part never fails (its trouble is a
/// `part-skipped` diagnostic in its record).
///
/// # Errors
/// As the pipeline's, for a whole input or an archived record.
pub(crate) fn in_memory(
    document: &Document<'_>,
    options: &Options,
    want: Want,
) -> Result<Outcome, Error> {
    let options = options_for(document, options);
    let options = options.as_ref();
    let bytes = match &document.body {
        Body::Bytes(b) => b.as_ref(),
        Body::File(path) => {
            // A streamed document kept in memory after all (a rewrite into memory).
            return std::fs::read(path)
                .map_err(|source| Error::Io {
                    input: document.name.clone(),
                    source,
                })
                .and_then(|bytes| {
                    let document = Document {
                        body: Body::Bytes(Cow::Owned(bytes)),
                        ..document.shallow()
                    };
                    in_memory(&document, options, want)
                });
        }
    };
    if let Back::Part(back) = &document.back {
        return Ok(match document.kind {
            Kind::Css => css_part(document, back, bytes, options, want),
            _ => html_part(document, back, bytes, options, want),
        });
    }
    if document.kind == Kind::Css {
        return css(document, bytes, options, want);
    }
    let Some(input) = html_input(document, bytes) else {
        return Err(settled(document));
    };
    let mut outcome = match want {
        Want::Links => Outcome::of(pipeline::links(&input, options)?, None),
        Want::Base => Outcome {
            done: Done {
                base: pipeline::base(&input, options)?,
                links: LinkTally::default(),
            },
            links: Vec::new(),
            new: None,
        },
        Want::Rewrite | Want::Extract => {
            let mut new = Vec::with_capacity(bytes.len() + bytes.len() / 8);
            let written = pipeline::rewrite_to(&input, options, &mut new)?;
            let new = (new != bytes).then_some(new);
            let new = match (&document.back, new) {
                (Back::Conversion(r), Some(new)) if want == Want::Rewrite => Some(
                    r.conversion(&new, written.base.encoding)
                        .map_err(|source| Error::Io {
                            input: document.name.clone(),
                            source,
                        })?,
                ),
                (_, new) => new,
            };
            Outcome {
                done: Done {
                    base: written.base,
                    links: written.links,
                },
                links: Vec::new(),
                new,
            }
        }
    };
    outcome.done.base.origin.clone_from(&document.origin);
    for l in &mut outcome.links {
        l.origin.clone_from(&document.origin);
    }
    Ok(outcome)
}

/// A document whose layers are settled is a MIME part's; another role cannot take one.
fn settled(document: &Document<'_>) -> Error {
    Error::Io {
        input: document.name.clone(),
        source: std::io::Error::other("a document with settled layers outside a message"),
    }
}

/// The whole input: its links given to `on_link` as they are found (and counted by the caller),
/// or its rewrite written to `out` as it is made, so memory does not grow with it (a document past the stream threshold:
/// read from its file twice, not held at all).
///
/// # Errors
/// As the pipeline's.
pub(crate) fn whole(
    document: &Document<'_>,
    options: &Options,
    want: Want,
    out: Option<&mut (dyn Output + '_)>,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<Done, Error> {
    let options = options_for(document, options);
    let options = options.as_ref();
    let mut tally = LinkTally::default();
    let base = match (&document.body, want, out) {
        (Body::Bytes(bytes), Want::Links, _) => {
            let input = html_input(document, bytes).ok_or_else(|| settled(document))?;
            pipeline::links_each(&input, options, on_link)?
        }
        (Body::Bytes(bytes), Want::Base, _) => {
            let input = html_input(document, bytes).ok_or_else(|| settled(document))?;
            pipeline::base(&input, options)?
        }
        (Body::Bytes(bytes), _, Some(out)) => {
            let input = html_input(document, bytes).ok_or_else(|| settled(document))?;
            let written = pipeline::rewrite_to(&input, options, out.writer())?;
            tally = written.links;
            written.base
        }
        (Body::File(path), Want::Links, _) => {
            let input = path_input(document, path).ok_or_else(|| settled(document))?;
            pipeline::links_path(&input, options, on_link)?
        }
        (Body::File(path), Want::Base, _) => {
            let input = path_input(document, path).ok_or_else(|| settled(document))?;
            pipeline::links_path(&input, options, &mut |_| {})?
        }
        (Body::File(path), _, Some(out)) => {
            let input = path_input(document, path).ok_or_else(|| settled(document))?;
            // Output of one's own is written while the base is checked, and rewound if it was
            // guessed wrong; a pipe is written once, after a first walk settles the base.
            match out.rewindable() {
                Ok(out) => {
                    let written = pipeline::rewrite_path_rewinding(&input, options, out)?;
                    tally = written.links;
                    written.base
                }
                Err(out) => pipeline::rewrite_path(&input, options, out, &mut |l| tally.add(&l))?.0,
            }
        }
        (_, _, None) => {
            let outcome = in_memory(document, options, want)?;
            outcome.links.into_iter().for_each(&mut *on_link);
            return Ok(outcome.done);
        }
    };
    Ok(Done { base, links: tally })
}

/// The record of a part that is not read, with why.
fn part_skipped(document: &Document<'_>, back: &PartBack, why: String) -> Outcome {
    let mut diagnostics = document.diagnostics.clone();
    diagnostics.push(back.skipped(format!("left as it was: {why}")));
    Outcome {
        done: Done {
            base: BaseRecord {
                origin: document.origin.clone(),
                base: None,
                base_source: crate::BaseSource::None,
                encoding: "",
                encoding_source: crate::decode::EncodingSource::Fallback,
                diagnostics,
            },
            links: LinkTally::default(),
        },
        links: Vec::new(),
        new: None,
    }
}

/// An HTML part: its base from its headings, its references matched to the message's parts;
/// rewritten where it can go back (its text is not lost, its transfer encoding can be written).
fn html_part(
    document: &Document<'_>,
    back: &PartBack,
    body: &[u8],
    options: &Options,
    want: Want,
) -> Outcome {
    let Layers::Settled(outer) = &document.layers else {
        return part_skipped(document, back, "its headings were not read".into());
    };
    let source = crate::engine::Source {
        name: &document.name,
        bytes: body,
        charset: document.charset.as_deref(),
        outer,
        diagnostics: document.diagnostics.clone(),
    };
    let analysed = match crate::engine::analyse(source, options, Links::Keep) {
        Ok(a) => a,
        Err(e) => return part_skipped(document, back, e.to_string()),
    };
    let path = document.origin.part.as_deref();
    let mut report = analysed.report(path, body);
    report.set_origin(&document.origin);
    for link in &mut report.links {
        // A same-document reference (`#top`) loads nothing: it names no other part.
        if link.same_document {
            continue;
        }
        if let Some(resolved) = &link.resolved {
            link.target_part = back.targets.part(resolved);
        }
    }
    let lossless = analysed.lossless();
    // A file of its own takes the decoded body in any transfer encoding.
    let writable = lossless && (want == Want::Extract || back.writable());
    let changes = analysed.has_changes();
    if changes && !writable {
        // Reported and resolved, but not changed: say so, and do not claim a rewrite.
        let why = if lossless {
            back.unwritable()
        } else {
            format!(
                "the part left as it was: {}",
                crate::decode::text_loss_reason(
                    analysed.decoded().encoding.name(),
                    analysed.decoded().source
                )
            )
        };
        report.base.diagnostics.push(back.skipped(why));
        for link in &mut report.links {
            link.rewritten = false;
        }
    }
    let mut new = None;
    if matches!(want, Want::Rewrite | Want::Extract) && writable && changes {
        // Spliced into the part's own decoded bytes where the plan matches exactly, as for a
        // bare document; else the part's tree serialized.
        let (html, engine) = crate::engine::write_out(body, &analysed, options);
        if let Some(d) = crate::engine::reserialized(engine, &mut report) {
            report.base.diagnostics.push(d);
        }
        new = Some(html);
    }
    Outcome::of(report, new)
}

/// A `text/css` part: its URLs resolved against the part's base and, when rewriting, replaced
/// byte-faithfully in its own charset ([`pipeline::stylesheet`]); with a relinker (`--extract`),
/// the relinker writes the URLs it knows.
fn css_part(
    document: &Document<'_>,
    back: &PartBack,
    body: &[u8],
    options: &Options,
    want: Want,
) -> Outcome {
    let Layers::Settled(outer) = &document.layers else {
        return part_skipped(document, back, "its headings were not read".into());
    };
    // Only a page's parts are relinked (`--extract`): a tree's relinker leaves a message's
    // stylesheets as they are.
    let unlinked;
    let options = if want != Want::Extract && options.rewrite.relink.is_some() {
        unlinked = Options {
            rewrite: crate::RewriteOptions {
                relink: None,
                ..options.rewrite.clone()
            },
            ..options.clone()
        };
        &unlinked
    } else {
        options
    };
    // A file of its own takes the decoded body in any transfer encoding.
    let extract = want == Want::Extract && options.rewrite.relink.is_some();
    let writable = extract || back.writable();
    let rewrite = matches!(want, Want::Rewrite | Want::Extract);
    let mut diagnostics = document.diagnostics.clone();
    let sheet = match pipeline::stylesheet(
        body,
        document.charset.as_deref(),
        &outer.base,
        &mut diagnostics,
        options,
        rewrite && writable,
        &mut |resolved| back.targets.part(resolved),
    ) {
        Ok(sheet) => sheet,
        Err(why) => return part_skipped(document, back, why),
    };
    let mut report = sheet.report;
    report.set_origin(&document.origin);
    if !writable {
        for l in &mut report.links {
            l.rewritten = false;
        }
    }
    let mut new = None;
    if let Some(encoding) = sheet.unmappable {
        report.base.diagnostics.push(back.skipped(format!(
            "a new URL cannot be written in {encoding}; the part left as it was"
        )));
        for l in &mut report.links {
            l.rewritten = false;
        }
    } else if sheet.new.is_some() {
        new = sheet.new;
    } else if sheet.changes && !writable {
        report
            .base
            .diagnostics
            .push(back.skipped(back.encoding_unwritable()));
    }
    Outcome::of(report, new)
}

/// A stylesheet of its own (an archived one, a file of a tree): resolved against its layers.
fn css(
    document: &Document<'_>,
    body: &[u8],
    options: &Options,
    want: Want,
) -> Result<Outcome, Error> {
    let mut diagnostics = document.diagnostics.clone();
    let outer = match &document.layers {
        Layers::Given(layers) => outer_base(layers, options.rewrite.resolve, &mut diagnostics)?,
        Layers::Settled(outer) => outer.clone(),
    };
    let rewrite = matches!(want, Want::Rewrite | Want::Extract);
    let sheet = pipeline::stylesheet(
        body,
        document.charset.as_deref(),
        &outer.base,
        &mut diagnostics,
        options,
        rewrite,
        &mut |_| None,
    );
    let why = match sheet {
        Ok(sheet) => {
            let new = sheet.new;
            let mut outcome = Outcome::of(sheet.report, new);
            outcome.done.base.origin.clone_from(&document.origin);
            for l in &mut outcome.links {
                l.origin.clone_from(&document.origin);
            }
            return Ok(outcome);
        }
        Err(why) => why,
    };
    let mut report = Report {
        base: BaseRecord {
            origin: document.origin.clone(),
            base: outer.base.uri.as_ref().map(|u| u.to_string()),
            base_source: outer.base.source,
            encoding: "",
            encoding_source: crate::decode::EncodingSource::Fallback,
            diagnostics,
        },
        links: Vec::new(),
    };
    report.base.diagnostics.push(Diagnostic::new(
        DiagnosticCode::Encoding,
        format!("left as it was: {why}"),
    ));
    Ok(Outcome::of(report, None))
}

impl Document<'_> {
    /// The document without its body (and how it goes back): what is known about it.
    fn shallow(&self) -> Document<'static> {
        Document {
            name: self.name.clone(),
            body: Body::Bytes(Cow::Borrowed(&[])),
            kind: self.kind,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            origin: self.origin.clone(),
            diagnostics: self.diagnostics.clone(),
            conditional_comments: self.conditional_comments,
            back: Back::Whole,
        }
    }
}
