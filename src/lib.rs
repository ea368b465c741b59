//! # linkbase
//!
//! Find the base URI of a document — its `<base href>`, the `Content-Base` / `Content-Location`
//! of the message or response around it, the URI it was retrieved from, or a default
//! (RFC 2396 §5.1) — and make every relative link in it absolute (RFC 2396 §5.2), changing
//! nothing but the URL bytes.
//!
//! ## Where to start
//!
//! | you have | call | you get |
//! | --- | --- | --- |
//! | any input: an HTML page, a MIME message, an mbox, a WARC or ARC file | [`open`], then [`verb::links`], [`verb::base`], [`verb::rewrite`] | each document's records to your [`Sink`], in order; the input written back |
//! | one reference and a base | [`Resolver::resolve`], [`resolve()`] | the absolute URI ([`Resolved`]) |
//! | an HTML document (bytes) | [`pipeline::rewrite`], [`pipeline::links`] | the rewritten bytes, a [`Report`] of every link with its [`BaseSource`] |
//! | the same, written to a file or a pipe | [`pipeline::rewrite_to`] | the bytes written as they are produced, the links counted ([`LinkTally`]) |
//! | a document too large to hold | [`pipeline::rewrite_path`], [`pipeline::links_path`] | the same, streamed in flat memory |
//! | a MIME message, `.eml`, `.mht`, whatever its name | [`message::rewrite_message`], [`message::links_message`] | per HTML and CSS part |
//! | a WARC file, record by record | [`archive::Archive`], then [`archive::links`] / [`archive::rewrite`] | per archived page, damage reported |
//! | a site tree | [`site::Site`] | URL ↔ file mapping, link verdicts, [`site::Site::relative`] paths for mirrors |
//!
//! The base layers outside a document are a [`BaseLayers`] (`--url`, headers through
//! [`BaseLayers::add_headers`], a default); how to resolve is [`ResolveOptions`] with a
//! [`Profile`]: RFC 2396 (the default and the normative text), RFC 1808, RFC 3986, or WHATWG
//! (browsers, through the `url` crate).
//!
//! ```
//! use linkbase::pipeline::{rewrite, HtmlInput, Options};
//! use linkbase::{BaseLayers, BaseSource};
//!
//! let input = HtmlInput {
//!     name: "page.html",
//!     bytes: b"<base href='/docs/'><a href=intro.html>Intro</a>",
//!     layers: BaseLayers {
//!         retrieval_uri: Some("http://example.com/guide/page.html".into()),
//!         ..Default::default()
//!     },
//!     ..Default::default()
//! };
//! let out = rewrite(&input, &Options::default())?;
//! // Only the URL values changed; the quotes (or their absence) are the input's.
//! assert_eq!(
//!     out.bytes,
//!     b"<base href='http://example.com/docs/'><a href=http://example.com/docs/intro.html>Intro</a>"
//! );
//! assert_eq!(out.report.base.base_source, BaseSource::BaseElement);
//! # Ok::<(), linkbase::Error>(())
//! ```
//!
//! The resolver is the core: RFC 2396 §5.2 step by step (`uri/resolve.rs` cites each step).
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
//!
//! ## Errors and diagnostics
//!
//! An [`Error`] stops a document (binary input, an unusable base given by the caller, a bound
//! passed); a [`Diagnostic`] says what was left as it was and why, and never stops anything.
//! Nothing here panics on any input (the parsers are fuzzed: `fuzz/`).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Every type a public signature shows can be named by its user: a private module's types are
// re-exported below.
#![deny(unnameable_types)]

/// Declares modules that are the library's own: private, and public (hidden from the
/// documentation, no stability promise) only with the `oracle` feature, for this repository's
/// tests, benches and fuzz targets, which use the DOM engine as the streaming engine's oracle
/// and reach into the stages (as lol_html's `integration_test`).
macro_rules! internal {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "oracle")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "oracle"))]
        mod $name;
    )*};
}

// The stages, in the order data flows through them. The API is the public modules (the door,
// the verbs, the single-document pipeline, the formats' own: messages, archives, sites and
// their file layouts) and the re-exports below.
pub mod input;
pub mod source;
internal!(decode);
pub(crate) mod tree;
mod tokenize;
internal!(base, uri, rewrite);
mod splice;
mod engine;
pub mod report;
pub mod text;
internal!(position, error);
pub mod pipeline;
pub mod verb;
pub mod message;
pub mod layout;
pub mod archive;
pub mod site;
#[cfg(unix)]
pub mod fs;
#[cfg(unix)]
pub mod walk;
#[cfg(unix)]
pub mod check;
#[cfg(test)]
mod testutil;

pub use base::{Base, BaseLayers, BaseSource, HeaderBase, Outer};
pub use decode::{DecodeError, EncodingSource};
#[cfg(feature = "oracle")]
#[doc(hidden)]
pub use engine::dom;
pub use engine::dom::{LimitHit, NodeId, ParseLimits};
#[cfg(feature = "oracle")]
#[doc(hidden)]
pub use engine::stream::with_lol_html;
pub use error::{Diagnostic, DiagnosticCode, Error, MimeError, Place};
pub use input::Headers;
pub use position::Position;
pub use report::{BaseRecord, LinkRecord, LinkTally, Origin, Report};
pub use rewrite::{KeptAbsolute, Link, LinkKind, Relink, Relinked, Relinker, RewriteOptions};
pub use source::{open, Document, Input, Item, Source};
pub use uri::{
    resolve, DotSegments, Profile, ResolveError, ResolveOptions, Resolved, Resolver, SameScheme,
    Uri, UriRef,
};
pub use verb::{InOrder, Sink};

/// The examples of docs/library.md, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryDocDoctests;
