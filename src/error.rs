//! Fatal errors (the document cannot be processed) and diagnostics (something in it was left as
//! it was, and why). A diagnostic never stops the run; an error stops it before anything is
//! written.

use crate::decode::DecodeError;
use crate::dom::LimitHit;
use crate::uri::ResolveError;

/// Why a document could not be processed. The CLI maps every variant to exit code 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a text document, or not in a usable encoding.
    #[error("{input}: {source}")]
    Decode {
        /// The input's name (a path, or `-`).
        input: String,
        /// What was wrong.
        #[source]
        source: DecodeError,
    },
    /// The document passes a parser bound (see [`crate::dom::ParseLimits`]).
    #[error("{input}: refusing to parse: {source}")]
    Limit {
        /// The input's name.
        input: String,
        /// Which bound.
        #[source]
        source: LimitHit,
    },
    /// A base-layer option (`--url`, `--default-base`) is not a usable URI.
    #[error("{option} {value:?}: {source}")]
    BadBase {
        /// The option, as the user typed it.
        option: &'static str,
        /// Its value.
        value: String,
        /// Why it is unusable.
        #[source]
        source: ResolveError,
    },
    /// The document's encoding cannot be written back.
    #[error("{input}: {message}")]
    Unsupported {
        /// The input's name.
        input: String,
        /// What is unsupported.
        message: String,
    },
    /// Reading or writing failed.
    #[error("{input}: {source}")]
    Io {
        /// The path involved.
        input: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Something in the document that was left as it was, or a choice worth knowing about.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// A stable, kebab-case identifier: `unresolvable`, `base-ignored`, `duplicate-base`,
    /// `header-ignored`, `encoding`, `empty-url`, `no-base`.
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic with this code and message.
    pub fn new(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}
