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
            .and_then(linkbase::decode::charset_from_content_type);
        Ok(Prepared {
            layers,
            charset,
            diagnostics,
            options: Options {
                rewrite: RewriteOptions {
                    resolve: ResolveOptions::for_profile(profile),
                    drop_base: false,
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

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("LimitError", py.get_type::<LimitError>())?;
    m.add("BadBase", py.get_type::<BadBase>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite, m)?)?;
    m.add_function(wrap_pyfunction!(links, m)?)?;
    m.add_function(wrap_pyfunction!(base, m)?)?;
    Ok(())
}
