//! WARC records through the pipeline: each archived HTML response is a document whose
//! retrieval URI (RFC 2396 §5.1.3) is its `WARC-Target-URI` and whose encapsulating entity
//! (§5.1.2) is the archived HTTP response, headers and all.
//!
//! [`Archive`] reads a WARC file record by record ([`crate::input::warc`]) and gives one
//! [`Event`] per record: an [`HtmlRecord`] ready for [`links`] or [`rewrite`], a skipped record
//! (not HTML, not a response), or damage. The HTTP payload is decoded first
//! (`Transfer-Encoding: chunked`, `Content-Encoding: gzip`, `deflate`, `br`). A `revisit` record
//! of the identical-payload-digest profile is resolved to the original's payload, found in the
//! same file by `WARC-Refers-To`, by `WARC-Refers-To-Target-URI` + `WARC-Refers-To-Date`, or by
//! payload digest (a `response` or a `resource`, in its own gzip member or in one shared by the
//! whole file), and resolved against the revisit's own target URI. A revisit whose original is
//! not in the file is skipped, said (what it refers to) and counted.
//!
//! [`conversion_record`] writes a rewritten payload as a WARC/1.1 `conversion` record that
//! refers to the original.

mod conversion;
mod document;
mod extract;
mod payload;
mod reader;
mod record;
#[cfg(test)]
mod tests;

pub use crate::input::warc::RecordRef;
pub use conversion::{
    conversion_id, conversion_record, gzip_member, warc_date, warc_date_now, CONVERSION_NAMESPACE,
};
pub use document::{base, links, rewrite};
pub(crate) use extract::file_link;
pub use extract::{
    declare_charset, extract_path, extract_path_in, is_stylesheet, rewrite_stylesheet,
    stylesheet_relinked, ExtractCollision, ExtractNames, ExtractRelinker, EXTRACT_NAME_MAX,
};
pub use payload::{SkipReason, MAX_DECODE_RATIO, MAX_PAYLOAD, MIN_DECODE_BUDGET};
pub use reader::{Archive, SHARED_MEMBER_CACHE};
pub(crate) use reader::{Store, Stored};
pub use record::{ArchiveOptions, Counts, Event, HtmlRecord, OtherRecord};
