//! `linkbase._native`: the Python face of the linkbase library (PyO3). The public module is
//! `linkbase` (python/linkbase/__init__.py), which re-exports everything from here.
//!
//! Every entry point copies what it needs out of Python objects, then runs the library with the
//! GIL released (`Python::detach`), so threads calling it run on all cores; only the result
//! objects are made with it held (`topy.rs`), and the records are freed without it.
#![forbid(unsafe_code)]

mod check;
mod errors;
mod options;
mod job;
mod columns;
mod stream;
mod topy;
mod warc;

pub(crate) use columns::LinkColumns;
pub(crate) use errors::{
    run, to_py, warn, ArchiveError, BadBase, DecodeError, Error, LimitError, LinkbaseWarning,
    UnresolvedError, UnsupportedError, UsageError,
};
use job::{Job, Prepared, Want};
pub(crate) use options::{header_base, headers, profile};
use warc::{read_warc, WarcReader};

use linkbase::input::InputKind;
use linkbase::{ResolveOptions, Resolver};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

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
    html: the document: bytes or any bytes-like object (bytearray, memoryview); str, which is
        the text itself (not a path: a str naming an existing file raises UsageError), read as
        UTF-8 whatever it declares; or a pathlib.Path (os.PathLike), the file. An HTML document, or a
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

#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity", strict = false))]
#[doc = concat!(
"The links of links(), one dict at a time, for documents too large to hold a dict per link (a
page of millions of links): the document is read on a thread of its own and each link is made
a dict when the iteration asks for it, so memory holds the document and the dicts kept, not one
record per link. Unresolved links are warned (or raise, with strict=True) when the iteration
ends.

", doc_arguments!(), doc_strict!(), "
Returns:
    An iterator of dicts, as links() returns them.

", doc_raises!(), "    UnresolvedError: strict=True and links were left relative or unresolvable.

Example:
    >>> import linkbase
    >>> [l[\"resolved\"] for l in linkbase.iter_links(b\"<a href=x>\", url=\"http://h/p\")]
    ['http://h/x']
")]
#[allow(clippy::too_many_arguments)]
fn iter_links<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
    strict: bool,
) -> PyResult<stream::LinkIter> {
    let job = Job::new(html, Prepared::new(url, headers, profile, header_base)?)?;
    stream::links_of(py, job, strict)
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
    m.add_function(wrap_pyfunction!(check::check, m)?)?;
    m.add_function(wrap_pyfunction!(read_warc, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite, m)?)?;
    m.add_function(wrap_pyfunction!(links, m)?)?;
    m.add_function(wrap_pyfunction!(iter_links, m)?)?;
    m.add_class::<stream::LinkIter>()?;
    m.add_function(wrap_pyfunction!(base, m)?)?;
    m.add_function(wrap_pyfunction!(bases, m)?)?;
    Ok(())
}
