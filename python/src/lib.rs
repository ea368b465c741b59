//! `linkbase._native`: the Python face of the linkbase library (PyO3). The public module is
//! `linkbase` (python/linkbase/__init__.py), which re-exports everything from here.
//!
//! Every entry point copies what it needs out of Python objects, then runs the library with the
//! GIL released (`Python::detach`), so threads calling it run on all cores; only the result
//! objects are made with it held (`topy.rs`), and the records are freed without it.
#![forbid(unsafe_code)]

mod columns;
use columns::LinkColumns;
mod topy;
mod warc;
use warc::{read_warc, WarcReader};

use std::panic::{catch_unwind, AssertUnwindSafe};

use linkbase::input::InputKind;
use linkbase::pipeline::Options;
use linkbase::source::Input;
use linkbase::verb::{self, InOrder, Sink};
use linkbase::{
    BaseLayers, HeaderBase, Headers, LinkTally, Profile, Report, ResolveOptions, Resolver,
    RewriteOptions,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

create_exception!(
    linkbase,
    Error,
    PyException,
    "Base class of every error linkbase raises."
);
create_exception!(
    linkbase,
    DecodeError,
    Error,
    "The bytes are not a text document, or not in a usable encoding."
);
create_exception!(
    linkbase,
    LimitError,
    Error,
    "The document passes a parser bound (crafted or absurdly nested input)."
);
create_exception!(
    linkbase,
    BadBase,
    Error,
    "A base given by the caller (url, a header's Content-Base/Content-Location, resolve's base) is not a usable URI."
);
create_exception!(
    linkbase,
    UnsupportedError,
    Error,
    "The document's encoding cannot be written back."
);
create_exception!(
    linkbase,
    UsageError,
    Error,
    "An argument value is not one linkbase knows (a profile or header_base name)."
);

create_exception!(
    linkbase,
    ArchiveError,
    Error,
    "A WARC file cannot be opened or read at all (damage inside it is reported, not raised)."
);

create_exception!(
    linkbase,
    UnresolvedError,
    Error,
    "strict=True was given and links were left relative or unresolvable (no base, a bad base, \
an opaque base, or references RFC 2396 cannot resolve); the message says how many and why."
);

create_exception!(
    linkbase,
    LinkbaseWarning,
    PyUserWarning,
    "Links were left relative or unresolvable (for lack of a base, most often); warned by \
rewrite() and links() unless strict=True, which raises UnresolvedError instead. Silence it with \
warnings.simplefilter(\"ignore\", linkbase.LinkbaseWarning)."
);

/// The document argument's bytes: a `bytes` object (borrowed, not copied) or a copy of any
/// other buffer or of a `str`'s UTF-8.
enum DocBytes<'py> {
    Shared(Bound<'py, PyBytes>),
    Owned(Vec<u8>),
}

impl DocBytes<'_> {
    fn as_slice(&self) -> &[u8] {
        match self {
            DocBytes::Shared(b) => b.as_bytes(),
            DocBytes::Owned(v) => v,
        }
    }
}

/// The document argument: `bytes`, any other bytes-like object (`bytearray`, `memoryview`, …,
/// copied: the GIL is released while the library reads it), or `str` (the text itself, not a
/// path: encoded as UTF-8, and read as UTF-8 whatever it declares). The flag says it was `str`.
fn document<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(DocBytes<'py>, bool)> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok((DocBytes::Shared(bytes.clone()), false));
    }
    if let Ok(text) = obj.cast::<PyString>() {
        return Ok((DocBytes::Owned(text.to_cow()?.as_bytes().to_vec()), true));
    }
    let py = obj.py();
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
                "html: expected bytes, bytearray, memoryview (any bytes-like object) or str, not {name}"
            ))
        })?;
    let bytes = view.call_method0("tobytes")?.cast_into::<PyBytes>()?;
    Ok((DocBytes::Shared(bytes), false))
}

/// The document and how to read it.
struct Job<'py> {
    doc: DocBytes<'py>,
    kind: InputKind,
    text: bool,
    prepared: Prepared,
}

impl<'py> Job<'py> {
    /// The document argument classified as the CLI classifies its input (one rule:
    /// `linkbase::input::classify`, by content only, there being no file name). A WARC archive
    /// is refused: its records are documents of their own, with their own URLs.
    fn new(obj: &Bound<'py, PyAny>, prepared: Prepared) -> PyResult<Job<'py>> {
        let (doc, text) = document(obj)?;
        let kind = linkbase::input::classify("", doc.as_slice());
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
            prepared,
        })
    }

    /// Reports (one for a document, one per HTML or CSS part of a message, of each message of
    /// an mbox) with their links counted and, when `rewrite`, the rewritten bytes: what the
    /// CLI's `links` / `rewrite` compute, through the same door and verbs. What the CLI says on
    /// stderr about what it could not read (an mbox message, the bytes before its first one, a
    /// MIME part skipped or read past damage) is warned (`LinkbaseWarning`): never silent.
    fn run(&self, py: Python<'_>, want: Want) -> PyResult<Read> {
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
        run(py, || {
            let mut source = linkbase::source::open(prepared.input(bytes)).map_err(to_py)?;
            let mut collect = Collect::default();
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
    fn unresolved(&self, py: Python<'_>, read: &Read, strict: bool) -> PyResult<()> {
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

/// A `LinkbaseWarning` with `line`.
fn warn(py: Python<'_>, line: &str) -> PyResult<()> {
    let category = py.get_type::<LinkbaseWarning>();
    let line = std::ffi::CString::new(line.replace('\0', " "))
        .map_err(|e| Error::new_err(e.to_string()))?;
    // stacklevel 1: the caller's line (this function is not a Python frame).
    PyErr::warn(py, category.as_any(), &line, 1)
}

/// The library's error as the matching Python exception, with the library's message.
fn to_py(e: linkbase::Error) -> PyErr {
    let message = e.to_string();
    match e {
        linkbase::Error::Decode { .. } => DecodeError::new_err(message),
        linkbase::Error::Limit { .. } => LimitError::new_err(message),
        linkbase::Error::BadBase { .. } => BadBase::new_err(message),
        linkbase::Error::TextLoss { .. }
        | linkbase::Error::RawTextLoss { .. }
        | linkbase::Error::ReplacementEncoding { .. }
        | linkbase::Error::Message { .. }
        | linkbase::Error::NoHtmlPart { .. }
        | linkbase::Error::UndecodableHtmlPart { .. } => UnsupportedError::new_err(message),
        // Io cannot happen on bytes in memory; any variant added later is still a linkbase.Error.
        _ => Error::new_err(message),
    }
}

/// Runs `work` without the GIL. The library does not panic on any input (it is fuzzed for
/// that); should it ever, the caller gets a `linkbase.Error`, not a `PanicException`.
fn run<T: Send>(py: Python<'_>, work: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.detach(|| {
        catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| {
            Err(Error::new_err(
                "internal error: linkbase panicked; please report it with the input",
            ))
        })
    })
}

fn profile(name: &str) -> PyResult<Profile> {
    name.parse::<Profile>().map_err(|_| {
        UsageError::new_err(format!(
            "profile {name:?}: expected one of rfc2396, rfc1808, rfc3986, whatwg"
        ))
    })
}

fn header_base(name: &str) -> PyResult<HeaderBase> {
    match name {
        "entity" => Ok(HeaderBase::Entity),
        "browser" => Ok(HeaderBase::Browser),
        _ => Err(UsageError::new_err(format!(
            "header_base {name:?}: expected entity or browser"
        ))),
    }
}

/// `headers` as a mapping (anything with `.items()`) or an iterable of `(name, value)` pairs.
fn headers(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Headers> {
    let mut out = Headers::new();
    let Some(obj) = obj else {
        return Ok(out);
    };
    if obj.is_none() {
        return Ok(out);
    }
    let pairs = if obj.hasattr("items")? {
        obj.call_method0("items")?
    } else {
        obj.clone()
    };
    for pair in pairs.try_iter()? {
        let (name, value): (String, String) = pair?.extract().map_err(|_| {
            PyTypeError::new_err("headers: expected a mapping of str to str or (str, str) pairs")
        })?;
        out.push_field(&name, &value);
    }
    Ok(out)
}

/// What the door needs besides the bytes, owned, so it can cross into the GIL-free closure.
struct Prepared {
    url: Option<String>,
    headers: Headers,
    header_base: HeaderBase,
    charset: Option<String>,
    options: Options,
}

impl Prepared {
    /// Mirrors the CLI's: `url` is the retrieval URI (§5.1.3), the headers give the entity layer
    /// (§5.1.2) under `header_base`, Content-Type's charset the transport label.
    fn new(
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

    /// The door's input: `bytes` (not copied), named by what they turn out to be.
    fn input<'a>(&self, bytes: &'a [u8]) -> Input<'a> {
        Input {
            layers: BaseLayers {
                retrieval_uri: self.url.clone(),
                ..BaseLayers::default()
            },
            headers: self.headers.clone(),
            header_base: self.header_base,
            charset: self.charset.clone(),
            ..Input::bytes("", bytes)
        }
    }
}

/// What a verb wants of the document.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    Links,
    Base,
    Rewrite,
}

/// What [`Job::read`] read: the rewritten bytes, one report per document (links kept for
/// `links`) with its links counted, and what could not be read.
struct Read {
    bytes: Option<Vec<u8>>,
    reports: Vec<Report>,
    tallies: Vec<LinkTally>,
    problems: Vec<String>,
}

/// The verbs' sink: every record kept, what was not read said.
#[derive(Default)]
struct Collect {
    links: Vec<linkbase::LinkRecord>,
    reports: Vec<Report>,
    tallies: Vec<LinkTally>,
    problems: Vec<String>,
}

impl Sink for Collect {
    fn link(&mut self, link: linkbase::LinkRecord) -> std::io::Result<()> {
        self.links.push(link);
        Ok(())
    }
    fn document(
        &mut self,
        _: &linkbase::source::Document<'_>,
        done: Result<&verb::Done, &linkbase::Error>,
    ) -> std::io::Result<()> {
        if let Ok(done) = done {
            self.reports.push(Report {
                base: done.base.clone(),
                links: std::mem::take(&mut self.links),
            });
            self.tallies.push(done.links);
        }
        Ok(())
    }
    fn unread(&mut self, record: &linkbase::BaseRecord) -> std::io::Result<()> {
        self.reports.push(Report {
            base: record.clone(),
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

/// `ref` resolved against `base` (RFC 2396 §5.2, or the profile's rules).
///
/// Arguments:
///     base: an absolute URI.
///     ref: a URI reference, relative or absolute.
///     profile: rfc2396 (default), rfc1808, rfc3986 or whatwg.
///
/// Returns:
///     The absolute URI as str, or None when the reference cannot be resolved (a relative
///     reference against an opaque base such as mailto:).
///
/// Raises:
///     BadBase: base is not a usable absolute URI.
///     UsageError: an unknown profile.
///
/// Example:
///     >>> import linkbase
///     >>> linkbase.resolve("http://a/b/c/d;p?q", "../g")
///     'http://a/b/g'
///     >>> linkbase.resolve("http://a/b/c/d;p?q", "?y", "rfc3986")
///     'http://a/b/c/d;p?y'
///     >>> linkbase.resolve("mailto:me@example.com", "g") is None
///     True
#[pyfunction]
#[pyo3(signature = (base, r#ref, profile = "rfc2396"))]
fn resolve(py: Python<'_>, base: &str, r#ref: &str, profile: &str) -> PyResult<Option<String>> {
    let options = ResolveOptions::for_profile(self::profile(profile)?);
    run(py, || {
        let resolver = Resolver::new(base, options)
            .map_err(|e| BadBase::new_err(format!("base {base:?}: {e}")))?;
        Ok(resolver.resolve(r#ref).ok().map(|r| r.uri))
    })
}

/// The keyword arguments rewrite(), links(), base() and bases() share, in the docstrings.
macro_rules! doc_arguments {
    () => {
        "Arguments:
    html: the document: bytes or any bytes-like object (bytearray, memoryview), or str, which is
        the text itself (not a path), read as UTF-8 whatever it declares. An HTML document, or a
        MIME message (e-mail, MHTML: a heading naming MIME-Version or Content-Type), whose HTML
        and CSS parts are each read against their own base, as the CLI does; or an mbox (mails
        after `From ` lines: mboxo, mboxrd, mboxcl2), each message read as a MIME message, its
        records carrying mbox_message (its place, from 0) and message_id, and rewritten back
        into an mbox. A WARC or ARC archive raises UsageError: read it with read_warc().
    url: the retrieval URI (RFC 2396 §5.1.3): where the document came from.
    headers: the entity's header fields (§5.1.2), a mapping or (name, value) pairs:
        Content-Base, Content-Location; Content-Type's charset is the transport charset.
    profile: rfc2396 (default), rfc1808, rfc3986 or whatwg: how references resolve.
    header_base: entity (default: Content-Base/Content-Location are bases) or browser (they
        are not, as in browsers; RFC 7231 §3.1.4.2).\n"
    };
}

/// Keyword arguments of rewrite() and links(), after those of doc_arguments!.
macro_rules! doc_strict {
    () => {
        "    strict: raise UnresolvedError when links were left relative or unresolvable (no base,
        a bad or opaque base, unresolvable references); without it, a LinkbaseWarning says so.\n"
    };
}

/// Errors every document function raises.
macro_rules! doc_raises {
    () => {
        "Raises:
    DecodeError: binary data, or an encoding that cannot be read.
    BadBase: url= is not an absolute URI.
    LimitError: the document passes a parser bound (crafted input).
    UnsupportedError: the encoding cannot be written back; a message that cannot be read.
    UsageError: an unknown profile or header_base; a WARC or ARC archive.
    TypeError: html or headers of the wrong type.\n"
    };
}

#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity", strict = false))]
#[doc = concat!(
"The document with every relative URL made absolute (RFC 2396 §5.2) against its base (§5.1),
written back in its own encoding; only URL values change. A MIME message comes back as a
message, each HTML and CSS part rewritten and re-encoded in its own charset and transfer
encoding (`linkbase rewrite message.eml`).

", doc_arguments!(), doc_strict!(), "
Returns:
    bytes, or str when html was a str.

", doc_raises!(), "    UnresolvedError: strict=True and links were left relative or unresolvable.

Warns:
    LinkbaseWarning: links were left relative or unresolvable (and strict is false).

Example:
    >>> import linkbase
    >>> linkbase.rewrite(b'<a href=\"../x.html\">x</a>', url=\"http://h/a/b/page.html\")
    b'<a href=\"http://h/a/x.html\">x</a>'
    >>> linkbase.rewrite(\"<base href=/d/><img src=i.png>\", url=\"http://h/p\")
    '<base href=http://h/d/><img src=http://h/d/i.png>'
    >>> linkbase.rewrite(b\"<a href=x>\", strict=True)
    Traceback (most recent call last):
      ...
    linkbase.UnresolvedError: 1 of 1 link left relative or unresolvable (no base); give the document's URL with url= (or a base with headers=)
")]
#[allow(clippy::too_many_arguments)]
fn rewrite<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
    strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let job = Job::new(html, Prepared::new(url, headers, profile, header_base)?)?;
    let read = job.run(py, Want::Rewrite)?;
    job.unresolved(py, &read, strict)?;
    let bytes = read.bytes.unwrap_or_default();
    if !job.text {
        return Ok(PyBytes::new(py, &bytes).into_any());
    }
    // A document given as str was read as UTF-8 and written so; a message keeps each part's
    // own charset, which may not be UTF-8.
    match String::from_utf8(bytes) {
        Ok(text) => Ok(PyString::new(py, &text).into_any()),
        Err(_) => Err(UnsupportedError::new_err(
            "<message>: the rewritten message is not UTF-8 (a part is written in its own \
             charset): pass html as bytes to get bytes",
        )),
    }
}

#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity", strict = false))]
#[doc = concat!(
"Every URL occurrence in the document, in document order (of a MIME message: of each HTML and
CSS part, in message order), with its resolution and where its base came from: the records of
`linkbase links` (JSON Lines), as dicts (typed as linkbase.LinkRecord).

", doc_arguments!(), doc_strict!(), "
Returns:
    A list of dicts: part (the MIME part path, or None), element, attribute, original, resolved
    (None when it could not be resolved), base, base_source (base-element, content-base,
    content-location, retrieval-uri, default, none), same_document, kind (url, srcset, list,
    refresh, css, css-import, …), rewritten, diagnostic, srcdoc_depth, target_part (the part a
    message's link names), line and column (1-based, the column in characters, of the value in
    the document; None where not located), and root (in a message only: the link is in its root
    document).

", doc_raises!(), "    UnresolvedError: strict=True and links were left relative or unresolvable.

Warns:
    LinkbaseWarning: links were left relative or unresolvable (and strict is false).

Example:
    >>> import linkbase
    >>> [(r[\"original\"], r[\"resolved\"], r[\"base_source\"])
    ...  for r in linkbase.links(b\"<base href=/d/><a href=x>\", url=\"http://h/p\")]
    [('/d/', 'http://h/d/', 'retrieval-uri'), ('x', 'http://h/d/x', 'base-element')]
")]
#[allow(clippy::too_many_arguments)]
fn links<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
    strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let job = Job::new(html, Prepared::new(url, headers, profile, header_base)?)?;
    let read = job.run(py, Want::Links)?;
    job.unresolved(py, &read, strict)?;
    let reports = read.reports;
    // The records' own serde form, so the dicts have exactly the CLI's JSONL fields.
    let list = topy::to_python(py, &topy::LinksOf(&reports))?;
    // Freeing the records is Rust work too: done without the GIL.
    py.detach(move || drop(reports));
    Ok(list)
}

/// The base records of a job: one for a document (without its links, as the CLI's `base`),
/// one per HTML or CSS part of a message.
fn base_records(py: Python<'_>, job: &Job<'_>) -> PyResult<Vec<linkbase::report::BaseRecord>> {
    let read = job.run(py, Want::Base)?;
    Ok(read.reports.into_iter().map(|r| r.base).collect())
}

#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity"))]
#[doc = concat!(
"The document's base URI and how it was found (the first RFC 2396 §5.1 layer that gave one),
with its encoding and the diagnostics: the record of `linkbase base --format jsonl`, as a dict
(typed as linkbase.BaseRecord). Of a MIME message, the record of its root document (RFC 2557
§5; `root` is True); bases() gives every part's.

", doc_arguments!(), "
Returns:
    A dict: part (the MIME part path, or None), base (None when no layer gave one),
    base_source, encoding, encoding_source (bom, transport, meta, charset-rule: a
    stylesheet's @charset, fallback), diagnostics (a list of {code, message}), root (in a
    message only), content_type (in a message: the media type the part was read as).

", doc_raises!(), "    Error: a message without an HTML or CSS part.

Example:
    >>> import linkbase
    >>> b = linkbase.base(b\"<base href=/d/><a href=x>\", url=\"http://h/p\")
    >>> b[\"base\"], b[\"base_source\"], b[\"encoding\"]
    ('http://h/d/', 'base-element', 'windows-1252')
")]
fn base<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let job = Job::new(html, Prepared::new(url, headers, profile, header_base)?)?;
    if job.kind == InputKind::Mbox {
        return Err(UsageError::new_err(
            "html: this is an mbox, many messages each with its own base: bases() gives every \
             message's records (each with mbox_message and message_id)",
        ));
    }
    let records = base_records(py, &job)?;
    let index = records
        .iter()
        .position(|r| r.origin.root == Some(true))
        .unwrap_or(0);
    let record = records
        .get(index)
        .ok_or_else(|| Error::new_err("<message>: no HTML or CSS part to give a base of"))?;
    topy::to_python(py, record)
}

#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity"))]
#[doc = concat!(
"Every base record: the lines of `linkbase base --format jsonl`. One for an HTML document (the
record base() returns); one per HTML or CSS part of a MIME message, in message order, each part
with its own base (its Content-Location and Content-Base headings, RFC 2557 §5).

", doc_arguments!(), "
Returns:
    A list of dicts, as base() returns (typed as linkbase.BaseRecord); empty for a message
    without an HTML or CSS part.

", doc_raises!(), "
Example:
    >>> import linkbase
    >>> [(b[\"part\"], b[\"base\"]) for b in linkbase.bases(b\"<a href=x>\", url=\"http://h/p\")]
    [(None, 'http://h/p')]
")]
fn bases<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let job = Job::new(html, Prepared::new(url, headers, profile, header_base)?)?;
    topy::to_python(py, &base_records(py, &job)?)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("LimitError", py.get_type::<LimitError>())?;
    m.add("BadBase", py.get_type::<BadBase>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("ArchiveError", py.get_type::<ArchiveError>())?;
    m.add("UnresolvedError", py.get_type::<UnresolvedError>())?;
    m.add("LinkbaseWarning", py.get_type::<LinkbaseWarning>())?;
    // The package's version is this crate's (pyproject.toml takes it from Cargo.toml).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<WarcReader>()?;
    m.add_function(wrap_pyfunction!(read_warc, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite, m)?)?;
    m.add_function(wrap_pyfunction!(links, m)?)?;
    m.add_function(wrap_pyfunction!(base, m)?)?;
    m.add_function(wrap_pyfunction!(bases, m)?)?;
    Ok(())
}
