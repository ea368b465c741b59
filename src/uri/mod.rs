//! URI references and their resolution: RFC 2396 only, with RFC 1808, RFC 3986 and WHATWG as
//! selectable profiles. No DOM, no I/O, no character encodings here.
//!
//! - [`UriRef`]: a reference split into components (§4.3, Appendix B), borrowed.
//! - [`Uri`]: an owned absolute URI (one `String` plus component offsets), used as a base.
//! - [`Resolver`]: a base plus [`ResolveOptions`]; resolves references per §5.2.
//! - `contrast.rs`: where the RFC profiles and the URL Standard resolve a reference to different
//!   URLs (the `profile-sensitive` diagnostic).

mod absolute;
mod contrast;
mod options;
mod parse;
mod path;
mod resolve;
mod rfc1808;
mod valid;
mod whatwg;

pub use absolute::Uri;
pub(crate) use absolute::{check_authority, percent_decode, percent_decode_except};
pub(crate) use contrast::Contrast;
pub use options::{DotSegments, Profile, ResolveError, ResolveOptions, SameScheme};
pub use parse::UriRef;
pub(crate) use path::is_known_hierarchical;
pub use resolve::{resolve, Resolved, Resolver};
pub(crate) use valid::valid_uri;
pub(crate) use whatwg::is_special;
#[cfg(not(feature = "oracle"))]
pub(crate) use whatwg::whatwg_absolute;
// WPT's cases without a base, for tests/wpt.rs: an absolute URL read as `new URL(input)` reads it.
#[cfg(feature = "oracle")]
#[doc(hidden)]
pub use whatwg::whatwg_absolute;
