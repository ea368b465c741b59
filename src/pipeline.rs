//! The stages, in order, and nothing else: input → the outer `base` layers →
//! the engines' one entry (`engine::analyse`: sniffed, walked by the streaming engine or parsed
//! by the DOM engine, written back) → [`report`](crate::report).
//!
//! The rooms, in the order a document goes through them: `options` (what goes in and comes
//! out), `memory` (a document in memory), `path` (a document in a file, streamed), `stylesheet`
//! (a stylesheet as a document).

pub(crate) mod options;
mod memory;
mod path;
mod stylesheet;

pub use crate::engine::Fallback;
pub use memory::{base, fragment_ids, links, rewrite, rewrite_to};
pub use options::{Engine, EngineChoice, HtmlInput, Options, PathInput, Rewritten, Written};
pub use path::{links_each, links_path, rewrite_path, rewrite_path_rewinding, Rewind};
#[cfg(feature = "oracle")]
pub use path::{stream_reopened, stream_reopened_rewinding, Reopen};
pub(crate) use stylesheet::css_encoding;
pub(crate) use stylesheet::stylesheet;
