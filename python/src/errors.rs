//! The exceptions the module raises, the library's errors as them, warnings, and the one way
//! library work runs: without the GIL, a panic turned into `linkbase.Error`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;

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

/// A `LinkbaseWarning` with `line`.
pub(crate) fn warn(py: Python<'_>, line: &str) -> PyResult<()> {
    let category = py.get_type::<LinkbaseWarning>();
    let line = std::ffi::CString::new(line.replace('\0', " "))
        .map_err(|e| Error::new_err(e.to_string()))?;
    // stacklevel 1: the caller's line (this function is not a Python frame).
    PyErr::warn(py, category.as_any(), &line, 1)
}

/// The library's error as the matching Python exception, with the library's message.
pub(crate) fn to_py(e: linkbase::Error) -> PyErr {
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
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> PyResult<T> + Send,
) -> PyResult<T> {
    py.detach(|| {
        catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| {
            Err(Error::new_err(
                "internal error: linkbase panicked; please report it with the input",
            ))
        })
    })
}
