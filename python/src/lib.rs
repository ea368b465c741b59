//! `linkbase._native`: the Python face of the linkbase library (PyO3). The public module is
//! `linkbase` (python/linkbase/__init__.py), which re-exports everything from here.
//!
//! Every entry point copies what it needs out of Python objects, then runs the library with the
//! GIL released (`Python::detach`), so threads calling it run on all cores.
#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};

use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::{
    BaseLayers, HeaderBase, Headers, Profile, ResolveOptions, Resolver, RewriteOptions,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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

/// The name documents carry in error messages: Python callers pass bytes, not files.
const INPUT_NAME: &str = "<html>";

/// The library's error as the matching Python exception, with the library's message.
fn to_py(e: linkbase::Error) -> PyErr {
    let message = e.to_string();
    match e {
        linkbase::Error::Decode { .. } => DecodeError::new_err(message),
        linkbase::Error::Limit { .. } => LimitError::new_err(message),
        linkbase::Error::BadBase { .. } => BadBase::new_err(message),
        linkbase::Error::Unsupported { .. } => UnsupportedError::new_err(message),
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

/// Everything the pipeline needs, owned, so it can cross into the GIL-free closure.
struct Prepared {
    layers: BaseLayers,
    charset: Option<String>,
    diagnostics: Vec<linkbase::Diagnostic>,
    options: Options,
}

impl Prepared {
    /// Mirrors the CLI's `load`/`options`: `url` is the retrieval URI (§5.1.3), the headers give
    /// the entity layer (§5.1.2) under `header_base`, Content-Type's charset the transport label.
    fn new(
        url: Option<String>,
        headers_obj: Option<&Bound<'_, PyAny>>,
        profile_name: &str,
        header_base_name: &str,
    ) -> PyResult<Prepared> {
        let profile = profile(profile_name)?;
        let mode = header_base(header_base_name)?;
        let headers = headers(headers_obj)?;
        let mut layers = BaseLayers {
            retrieval_uri: url,
            ..BaseLayers::default()
        };
        let diagnostics = layers.add_headers(&headers, mode);
        let charset = headers
            .get("Content-Type")
            .and_then(linkbase::input::charset_from_content_type);
        Ok(Prepared {
            layers,
            charset,
            diagnostics,
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

    fn input<'a>(&self, html: &'a [u8]) -> HtmlInput<'a> {
        HtmlInput {
            name: INPUT_NAME,
            bytes: html,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }
}

/// resolve(base, ref, profile="rfc2396") -> str | None
///
/// `ref` resolved against `base`; `None` when the reference cannot be resolved (a relative
/// reference against an opaque base such as `mailto:`). Raises `BadBase` for an unusable base.
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

/// rewrite(html, *, url=None, headers=None, profile="rfc2396", header_base="entity") -> bytes
#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity"))]
fn rewrite<'py>(
    py: Python<'py>,
    html: &[u8],
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let prepared = Prepared::new(url, headers, profile, header_base)?;
    let bytes = run(py, || {
        pipeline::rewrite(&prepared.input(html), &prepared.options)
            .map(|r| r.bytes)
            .map_err(to_py)
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// links(html, *, url=None, headers=None, profile="rfc2396", header_base="entity") -> list[dict]
#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity"))]
fn links<'py>(
    py: Python<'py>,
    html: &[u8],
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let prepared = Prepared::new(url, headers, profile, header_base)?;
    let report = run(py, || {
        pipeline::links(&prepared.input(html), &prepared.options).map_err(to_py)
    })?;
    // The records' own serde form, so the dicts have exactly the CLI's JSONL fields.
    Ok(pythonize::pythonize(py, &report.links)?)
}

/// base(html, *, url=None, headers=None, profile="rfc2396", header_base="entity") -> dict
#[pyfunction]
#[pyo3(signature = (html, *, url = None, headers = None, profile = "rfc2396", header_base = "entity"))]
fn base<'py>(
    py: Python<'py>,
    html: &[u8],
    url: Option<String>,
    headers: Option<&Bound<'py, PyAny>>,
    profile: &str,
    header_base: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let prepared = Prepared::new(url, headers, profile, header_base)?;
    let report = run(py, || {
        pipeline::links(&prepared.input(html), &prepared.options).map_err(to_py)
    })?;
    Ok(pythonize::pythonize(py, &report.base)?)
}

/// read_warc(source, *, profile="rfc2396", header_base="entity") -> Iterator[dict]
///
/// The HTML records of a WARC file (`.warc` or `.warc.gz`), one dict each: the record's
/// `warc_record_id`, `warc_target_uri`, `warc_date`, `offset`, `status`, `revisit_of`, its
/// `base` (the URI, or None) and `base_source`, `encoding`, `diagnostics`, and its `links` (as
/// `links()`, each with the record's fields).
/// `source` is a path or a binary file object (copied to a temporary file: a revisit's original
/// is read again from the file). Damage in the archive does not raise: it is listed in the
/// iterator's `damaged`, and `counts` says what was read.
#[pyclass(module = "linkbase")]
struct WarcReader {
    archive: Option<linkbase::archive::Archive>,
    options: Options,
    name: String,
    damaged: Vec<(u64, Option<String>, String)>,
    failed: Vec<(String, u64, String)>,
    /// Keeps a copied file object alive while it is read.
    _spool: Option<tempfile::NamedTempFile>,
}

#[pymethods]
impl WarcReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let this = &mut *slf;
        let Some(archive) = this.archive.as_mut() else {
            return Ok(None);
        };
        let options = this.options.clone();
        let name = this.name.as_str();
        let (damaged, failed) = (&mut this.damaged, &mut this.failed);
        let found = run(py, || {
            for event in archive.by_ref() {
                match event {
                    linkbase::archive::Event::Html(h) => {
                        match linkbase::archive::links(&h, name, &options) {
                            Ok(report) => return Ok(Some((h, report))),
                            Err(e) => failed.push((h.id().to_owned(), h.offset, e.to_string())),
                        }
                    }
                    linkbase::archive::Event::Damaged(d) => {
                        damaged.push((d.offset, d.record_id, d.message));
                    }
                    // A record past a bound is one that could not be read; a revisit whose
                    // original is not in the file (issue 23) is one that cannot be.
                    linkbase::archive::Event::Skipped {
                        reference,
                        offset,
                        message: Some(m),
                        ..
                    } => failed.push((
                        reference
                            .warc_record_id
                            .unwrap_or_else(|| "(no WARC-Record-ID)".to_owned()),
                        offset,
                        m,
                    )),
                    linkbase::archive::Event::Skipped { .. }
                    | linkbase::archive::Event::Other(_) => {}
                }
                // Ctrl-C between records (after one is accounted for, so none is lost): this
                // loop can walk a whole archive without returning to Python, which runs signal
                // handlers only where the GIL is held (PyErr_CheckSignals raises
                // KeyboardInterrupt).
                Python::attach(|py| py.check_signals())?;
            }
            Ok(None)
        })?;
        let Some((h, report)) = found else {
            return Ok(None);
        };
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("warc_record_id", &h.reference.warc_record_id)?;
        dict.set_item("warc_target_uri", &h.reference.warc_target_uri)?;
        dict.set_item("warc_date", &h.reference.warc_date)?;
        dict.set_item("offset", h.offset)?;
        dict.set_item("status", h.status)?;
        dict.set_item("revisit_of", &h.revisit_of)?;
        // CONTRACT.md: `base` is the URI and `base_source` its layer, as in `links` records.
        dict.set_item("base", &report.base.base)?;
        dict.set_item("base_source", report.base.base_source.name())?;
        dict.set_item("encoding", report.base.encoding)?;
        dict.set_item(
            "diagnostics",
            pythonize::pythonize(py, &report.base.diagnostics)?,
        )?;
        dict.set_item("links", pythonize::pythonize(py, &report.links)?)?;
        Ok(Some(dict.into_any()))
    }

    /// What has been read so far: records, html, skipped, damaged, revisits.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let counts = self
            .archive
            .as_ref()
            .map(linkbase::archive::Archive::counts)
            .unwrap_or_default();
        Ok(pythonize::pythonize(py, &counts)?)
    }

    /// The damage met so far: (offset, record id or None, message) tuples.
    #[getter]
    fn damaged(&self) -> Vec<(u64, Option<String>, String)> {
        self.damaged.clone()
    }

    /// Records that could not be read: HTML the pipeline refused, or past a bound (a payload
    /// that inflates too far): (record id, offset, message) tuples.
    #[getter]
    fn failed(&self) -> Vec<(String, u64, String)> {
        self.failed.clone()
    }
}

#[pyfunction]
#[pyo3(signature = (source, *, profile = "rfc2396", header_base = "entity"))]
fn read_warc(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    profile: &str,
    header_base: &str,
) -> PyResult<WarcReader> {
    let resolve = ResolveOptions::for_profile(self::profile(profile)?);
    let mode = self::header_base(header_base)?;
    let (path, name, spool) = if source.hasattr("read")? {
        // A binary file object: copied out, a MiB at a time.
        let mut spool = tempfile::NamedTempFile::new()
            .map_err(|e| ArchiveError::new_err(format!("cannot create a temporary file: {e}")))?;
        loop {
            let chunk = source.call_method1("read", (1usize << 20,))?;
            let bytes: &[u8] = chunk.extract().map_err(|_| {
                PyTypeError::new_err("read_warc: the file object must be opened in binary mode")
            })?;
            if bytes.is_empty() {
                break;
            }
            std::io::Write::write_all(&mut spool, bytes)
                .map_err(|e| ArchiveError::new_err(format!("temporary file: {e}")))?;
        }
        let name = source
            .getattr("name")
            .ok()
            .and_then(|n| n.extract::<String>().ok())
            .unwrap_or_else(|| "<file>".to_owned());
        (spool.path().to_owned(), name, Some(spool))
    } else {
        let os = py.import("os")?;
        let path: std::path::PathBuf = os.call_method1("fspath", (source,))?.extract()?;
        let name = path.display().to_string();
        (path, name, None)
    };
    let archive = linkbase::archive::Archive::open(
        &path,
        linkbase::archive::ArchiveOptions {
            header_base: mode,
            ..Default::default()
        },
    )
    .map_err(|e| ArchiveError::new_err(e.to_string()))?;
    Ok(WarcReader {
        archive: Some(archive),
        options: Options {
            rewrite: RewriteOptions {
                resolve,
                drop_base: false,
                relink: None,
            },
            ..Options::default()
        },
        name,
        damaged: Vec::new(),
        failed: Vec::new(),
        _spool: spool,
    })
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
    m.add_class::<WarcReader>()?;
    m.add_function(wrap_pyfunction!(read_warc, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite, m)?)?;
    m.add_function(wrap_pyfunction!(links, m)?)?;
    m.add_function(wrap_pyfunction!(base, m)?)?;
    Ok(())
}
