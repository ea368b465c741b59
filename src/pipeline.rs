//! The stages, in order, and nothing else:
//! input → `decode` → `Document::parse` → `base` →
//! the DOM engine's plan and its application → the serializer / [`report`](crate::report);
//! the streaming engine does the same in one walk of the bytes.
//!
//! The rooms, in the order a document goes through them: `options` (what goes in and comes
//! out), `analyse` (decoded, analysed by an engine, refused where text would be lost, written,
//! reported), `memory` (a document in memory), `path` (a document in a file, streamed), `stylesheet` (a
//! stylesheet as a document).

mod options;
mod analyse;
mod memory;
mod path;
mod stylesheet;

pub use crate::engine::Fallback;
pub(crate) use analyse::{analyse_html, report, reserialized, write_out};
pub use memory::{base, fragment_ids, links, rewrite, rewrite_to};
pub use options::{Engine, EngineChoice, HtmlInput, Options, PathInput, Rewritten, Written};
pub use path::{links_each, links_path, rewrite_path, rewrite_path_rewinding, Rewind};
#[cfg(feature = "oracle")]
pub use path::{stream_reopened, stream_reopened_rewinding, Reopen};
pub(crate) use stylesheet::css_encoding;
pub(crate) use stylesheet::stylesheet;
