//! # linkbase
//!
//! Find the base URI of an HTML document (RFC 2396 §5.1) and make every relative link in it
//! absolute (RFC 2396 §5.2).
//!
//! The resolver is the core: RFC 2396 §5.2 step by step, with RFC 1808, RFC 3986 and browser
//! (WHATWG) behaviour as selectable [`Profile`]s.
//!
//! ```
//! use linkbase::{Resolver, ResolveOptions, Profile};
//!
//! let base = "http://a/b/c/d;p?q";
//! let rfc2396 = Resolver::new(base, ResolveOptions::default())?;
//! assert_eq!(rfc2396.resolve("../g")?.uri, "http://a/b/g");
//! assert_eq!(rfc2396.resolve("?y")?.uri, "http://a/b/c/?y");
//!
//! // The same reference under the other profiles.
//! let rfc3986 = Resolver::new(base, ResolveOptions::for_profile(Profile::Rfc3986))?;
//! assert_eq!(rfc3986.resolve("?y")?.uri, "http://a/b/c/d;p?y");
//!
//! // A reference to the current document (RFC 2396 §4.2) is flagged.
//! let r = rfc2396.resolve("#s")?;
//! assert_eq!(r.uri, "http://a/b/c/d;p?q#s");
//! assert!(r.same_document);
//! # Ok::<(), linkbase::ResolveError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

// The stages, in the order data flows through them.
pub mod input;
pub mod decode;
pub mod dom;
pub mod base;
pub mod uri;
pub mod rewrite;
pub mod splice;
pub(crate) mod stream;
pub mod serialize;
pub mod report;
pub mod error;
pub mod pipeline;
pub mod message;
pub mod archive;
pub mod site;
#[cfg(test)]
mod testutil;

pub use base::{Base, BaseLayers, BaseSource, HeaderBase};
pub use error::{Diagnostic, Error};
pub use input::Headers;
pub use report::{BaseRecord, LinkRecord, Report};
pub use rewrite::{Relink, Relinker, RewriteOptions};
pub use uri::{
    resolve, DotSegments, Profile, ResolveError, ResolveOptions, Resolved, Resolver, SameScheme,
    Uri, UriRef,
};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
