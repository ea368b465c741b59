//! A document argument through the library's door and verbs: its bytes (borrowed where they
//! can be), what the caller knows about it, the records the verb gives, and what Python is told
//! of what could not be read.

use linkbase::input::InputKind;
use linkbase::pipeline::Options;
use linkbase::source::Input;
use linkbase::verb::{self, InOrder, Sink};
use linkbase::{
    BaseLayers, HeaderBase, Headers, LinkTally, Report, ResolveOptions, RewriteOptions,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::{
    header_base, headers, profile, run, to_py, warn, BadBase, UnresolvedError, UsageError,
};

/// The document argument's bytes: a `bytes` object (borrowed, not copied) or a copy of any
/// other buffer or of a `str`'s UTF-8.
pub(crate) enum DocBytes<'py> {
    Shared(Bound<'py, PyBytes>),
    Owned(Vec<u8>),
}

impl DocBytes<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            DocBytes::Shared(b) => b.as_bytes(),
            DocBytes::Owned(v) => v,
        }
    }
}

/// The document argument: `bytes`, any other bytes-like object (`bytearray`, `memoryview`, …,
/// copied: the GIL is released while the library reads it), or `str` (the text itself, not a
/// path: encoded as UTF-8, and read as UTF-8 whatever it declares). The flag says it was `str`;
/// the name is the file's, for a path.
///
/// One rule for paths: an `os.PathLike` (`pathlib.Path`) names a file, read whole (its name then
/// counts as the CLI's does, [`linkbase::input::sniff`]); a `str` is always text, and a `str`
/// that is a single line naming an existing file is refused (`UsageError`), since reading it as
/// a page of text would silently find no links.
fn document<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(DocBytes<'py>, bool, String)> {
    let py = obj.py();
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok((DocBytes::Shared(bytes.clone()), false, String::new()));
    }
    if let Ok(text) = obj.cast::<PyString>() {
        let text = text.to_cow()?;
        let one_line = !text.is_empty() && text.len() < 4096 && !text.contains(['\n', '<']);
        if one_line && std::path::Path::new(text.trim()).is_file() {
            return Err(UsageError::new_err(format!(
                "html: {text:?} names a file, but a str is the document's text, not a path: pass \
                 pathlib.Path({text:?}) to read the file, or its bytes (open({text:?}, \"rb\").read())"
            )));
        }
        return Ok((
            DocBytes::Owned(text.as_bytes().to_vec()),
            true,
            String::new(),
        ));
    }
    if obj.is_instance(&py.import("os")?.getattr("PathLike")?)? {
        let path: std::path::PathBuf =
            py.import("os")?.call_method1("fspath", (obj,))?.extract()?;
        let name = path.display().to_string();
        let bytes = std::fs::read(&path)
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{name}: {e}")))?;
        return Ok((DocBytes::Owned(bytes), false, name));
    }
    let view = py
        .import("builtins")?
        .getattr("memoryview")?
        .call1((obj,))
        .map_err(|_| {
            let name = obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| "?".to_owned());
            PyTypeError::new_err(format!(
                "html: expected bytes, bytearray, memoryview (any bytes-like object), str (the text) \
                 or pathlib.Path (a file), not {name}"
            ))
        })?;
    let bytes = view.call_method0("tobytes")?.cast_into::<PyBytes>()?;
    Ok((DocBytes::Shared(bytes), false, String::new()))
}

/// The document and how to read it.
pub(crate) struct Job<'py> {
    pub(crate) doc: DocBytes<'py>,
    pub(crate) kind: InputKind,
    pub(crate) text: bool,
    /// The file's name, for a path (else empty: named by what it turns out to be).
    pub(crate) name: String,
    pub(crate) prepared: Prepared,
}

impl<'py> Job<'py> {
    /// The document argument classified as the CLI classifies its input (one rule:
    /// `linkbase::input::sniff`, by content, then by a path's name); a guess is warned, as the
    /// CLI says it on stderr. A WARC archive is refused: its records are documents of their
    /// own, with their own URLs.
    pub(crate) fn new(obj: &Bound<'py, PyAny>, prepared: Prepared) -> PyResult<Job<'py>> {
        let (doc, text, name) = document(obj)?;
        let sniffed = linkbase::input::sniff(&name, doc.as_slice());
        let kind = sniffed.kind;
        if let Some(doubt) = &sniffed.doubt {
            let shown = if name.is_empty() { "html" } else { &name };
            warn(obj.py(), &format!("{shown}: {doubt}"))?;
        }
        if kind == InputKind::Arc {
            return Err(UsageError::new_err(
                "html: this is an ARC archive, not a document: read its records with \
                 linkbase.read_warc(path) (it reads ARC as WARC; read_warc(io.BytesIO(data)) for \
                 bytes in memory)",
            ));
        }
        if kind == InputKind::Warc {
            return Err(UsageError::new_err(
                "html: this is a WARC archive, not a document: read its records with \
                 linkbase.read_warc(path) (or read_warc(io.BytesIO(data)) for bytes in memory)",
            ));
        }
        let mut prepared = prepared;
        if text {
            // A str is already decoded text: its UTF-8 encoding is the transport charset, above
            // any <meta charset> or Content-Type it carries (HTML LS §13.2.3.2 step 4); a
            // message's parts keep their own.
            prepared.charset = Some("utf-8".to_owned());
        }
        Ok(Job {
            doc,
            kind,
            text,
            name,
            prepared,
        })
    }

    /// Reports (one for a document, one per HTML or CSS part of a message, of each message of
    /// an mbox) with their links counted and, when `rewrite`, the rewritten bytes: what the
    /// CLI's `links` / `rewrite` compute, through the same door and verbs. What the CLI says on
    /// stderr about what it could not read (an mbox message, the bytes before its first one, a
    /// MIME part skipped or read past damage) is warned (`LinkbaseWarning`): never silent.
    pub(crate) fn run(&self, py: Python<'_>, want: Want) -> PyResult<Read> {
        let read = self.read(py, want)?;
        let problems = read
            .problems
            .iter()
            .cloned()
            .chain(read.reports.iter().flat_map(|r| {
                r.base
                    .diagnostics
                    .iter()
                    .filter(|d| {
                        matches!(
                            d.code,
                            linkbase::DiagnosticCode::PartSkipped
                                | linkbase::DiagnosticCode::MimeMalformed
                        )
                    })
                    // The message's own diagnostics name their part already (as the CLI says them).
                    .map(|d| {
                        let named = d.message.starts_with("part ");
                        format!("{}{d}", where_in(&r.base, !named))
                    })
            }));
        for line in problems.collect::<Vec<_>>() {
            warn(py, &line)?;
        }
        Ok(read)
    }

    /// [`Job::run`]'s reading, and what could not be read.
    fn read(&self, py: Python<'_>, want: Want) -> PyResult<Read> {
        let bytes = self.doc.as_slice();
        let prepared = &self.prepared;
        let name = self.name.as_str();
        run(py, || {
            let mut source = linkbase::source::open(prepared.input(name, bytes)).map_err(to_py)?;
            // A rewrite counts its links, not keeps them: memory stays the document's, however
            // many links it has.
            let mut collect = Collect {
                keep_links: want != Want::Rewrite,
                ..Collect::default()
            };
            let mut out = Vec::new();
            match want {
                Want::Links => verb::links(&mut source, &prepared.options, &InOrder, &mut collect),
                Want::Base => verb::base(&mut source, &prepared.options, &InOrder, &mut collect),
                Want::Rewrite => verb::rewrite(
                    &mut source,
                    &prepared.options,
                    &InOrder,
                    &mut out,
                    &mut collect,
                ),
            }
            .map_err(to_py)?;
            Ok(Read {
                bytes: (want == Want::Rewrite).then_some(out),
                reports: collect.reports,
                tallies: collect.tallies,
                problems: collect.problems,
            })
        })
    }

    /// `strict`: raise `UnresolvedError` when links were left relative or unresolvable;
    /// otherwise say so with a `LinkbaseWarning` per document (per part of a message), as the
    /// CLI says it on stderr.
    pub(crate) fn unresolved(&self, py: Python<'_>, read: &Read, strict: bool) -> PyResult<()> {
        let mut said = Vec::new();
        for (report, tally) in read.reports.iter().zip(&read.tallies) {
            let Some(summary) = tally.unresolved_summary(&report.base) else {
                continue;
            };
            let mut line = format!("{}{summary}", where_in(&report.base, true));
            if summary.reason == "no base" {
                line.push_str("; give the document's URL with url= (or a base with headers=)");
            }
            said.push(line);
        }
        if said.is_empty() {
            return Ok(());
        }
        if strict {
            return Err(UnresolvedError::new_err(said.join("; ")));
        }
        for line in said {
            warn(py, &line)?;
        }
        Ok(())
    }
}

/// Where in an mbox and a message a record is, as warnings name it: `message 2 part 1.2: `
/// (without the part unless `part`; empty for a bare document).
fn where_in(base: &linkbase::report::BaseRecord, part: bool) -> String {
    let mut out = Vec::new();
    if let Some(m) = &base.origin.mbox {
        out.push(format!("message {}", m.mbox_message));
    }
    if let (Some(p), true) = (&base.origin.part, part) {
        out.push(format!("part {p}"));
    }
    if out.is_empty() {
        return String::new();
    }
    format!("{}: ", out.join(" "))
}

/// What the door needs besides the bytes, owned, so it can cross into the GIL-free closure.
pub(crate) struct Prepared {
    url: Option<String>,
    headers: Headers,
    header_base: HeaderBase,
    charset: Option<String>,
    pub(crate) options: Options,
}

impl Prepared {
    /// Mirrors the CLI's: `url` is the retrieval URI (§5.1.3), the headers give the entity layer
    /// (§5.1.2) under `header_base`, Content-Type's charset the transport label.
    pub(crate) fn new(
        url: Option<String>,
        headers_obj: Option<&Bound<'_, PyAny>>,
        profile_name: &str,
        header_base_name: &str,
    ) -> PyResult<Prepared> {
        let profile = profile(profile_name)?;
        let header_base = header_base(header_base_name)?;
        // The library's error names the layer (the retrieval URI); the caller gave it as url=.
        if let Some(value) = &url {
            linkbase::Uri::parse(value.trim())
                .map_err(|e| BadBase::new_err(format!("url={value:?}: {e}")))?;
        }
        Ok(Prepared {
            url,
            headers: headers(headers_obj)?,
            header_base,
            charset: None,
            options: Options {
                rewrite: RewriteOptions {
                    resolve: ResolveOptions::for_profile(profile),
                    drop_base: false,
                    relink: None,
                },
                ..Options::default()
            },
        })
    }

    /// The door's input: `bytes` (not copied), named `name` (empty: by what they turn out to
    /// be).
    pub(crate) fn input<'a>(&self, name: &str, bytes: &'a [u8]) -> Input<'a> {
        Input {
            layers: BaseLayers {
                retrieval_uri: self.url.clone(),
                ..BaseLayers::default()
            },
            headers: self.headers.clone(),
            header_base: self.header_base,
            charset: self.charset.clone(),
            ..Input::bytes(name, bytes)
        }
    }
}

/// What a verb wants of the document.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    Links,
    Base,
    Rewrite,
}

/// What [`Job::read`] read: the rewritten bytes, one report per document (links kept for
/// `links`) with its links counted, and what could not be read.
pub(crate) struct Read {
    pub(crate) bytes: Option<Vec<u8>>,
    pub(crate) reports: Vec<Report>,
    tallies: Vec<LinkTally>,
    problems: Vec<String>,
}

/// The verbs' sink: every record kept, what was not read said.
#[derive(Default)]
struct Collect {
    /// Whether link records are kept (not for a rewrite: its links are counted).
    keep_links: bool,
    links: Vec<linkbase::LinkRecord>,
    reports: Vec<Report>,
    tallies: Vec<LinkTally>,
    problems: Vec<String>,
}

impl Sink for Collect {
    fn link(&mut self, link: linkbase::LinkRecord) -> std::io::Result<()> {
        if self.keep_links {
            self.links.push(link);
        }
        Ok(())
    }
    fn links(&mut self, mut links: Vec<linkbase::LinkRecord>) -> std::io::Result<()> {
        if !self.keep_links {
            return Ok(());
        }
        if self.links.is_empty() {
            self.links = links;
        } else {
            self.links.append(&mut links);
        }
        Ok(())
    }
    fn document(
        &mut self,
        _: &linkbase::source::Document<'_>,
        done: Result<verb::Done, linkbase::Error>,
    ) -> std::io::Result<()> {
        if let Ok(done) = done {
            self.reports.push(Report {
                base: done.base,
                links: std::mem::take(&mut self.links),
            });
            self.tallies.push(done.links);
        }
        Ok(())
    }
    fn unread(&mut self, record: linkbase::BaseRecord) -> std::io::Result<()> {
        self.reports.push(Report {
            base: record,
            links: Vec::new(),
        });
        self.tallies.push(LinkTally::default());
        Ok(())
    }
    fn skipped(&mut self, skipped: &linkbase::source::Skipped) -> std::io::Result<()> {
        match &skipped.error {
            Some(e) => self.problems.push(format!("{e}: the message is not read")),
            None => self.problems.extend(skipped.said.iter().cloned()),
        }
        Ok(())
    }
}
