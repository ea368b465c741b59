//! A WARC record as read: its headers and block, where it is, damage met around it, and the
//! reference link and base records carry to it.

pub use crate::error::Place;
use crate::input::headers::Headers;

/// One WARC record: its header fields and, when kept, its block.
#[derive(Debug, Clone)]
pub struct Record {
    /// Where it starts in the file: the record's first byte, or for `.warc.gz` the start of
    /// the gzip member that holds it (as CDX indexes give it).
    pub offset: u64,
    /// Where it starts in its gzip member, when the member holds several records (`gzip
    /// file.warc`): the decompressed bytes before it; 0 otherwise. See `WarcReader::skip_within`.
    pub within: u64,
    /// Where the input has been read to when the record ends, when that is a record boundary
    /// of the file (always in a `.warc`; in a `.warc.gz`, when the record ends its member).
    pub raw_end: Option<u64>,
    /// The version line (`WARC/1.0`).
    pub version: String,
    /// The named fields (`WARC-Type`, `WARC-Target-URI`, `Content-Length`, …).
    pub headers: Headers,
    /// The block's length (`Content-Length`).
    pub content_length: u64,
    /// The block, when it was kept (see `WarcReader::keep`).
    pub block: Option<Vec<u8>>,
    /// What was wrong with the record when it was read past damage (a `Content-Length` that
    /// does not end it, a short terminator, the archive ending inside it), as warcio reads it.
    pub damage: Option<String>,
    /// The archive ends inside the block: it is read as far as it goes.
    pub truncated: bool,
}

/// A salvaged block may be this much longer than its `Content-Length` says; further, the bytes
/// up to the next record are not taken for the record's block (they are said and skipped).
pub const SALVAGE_SLACK: u64 = 64 * 1024;

impl Record {
    /// `WARC-Type`, lower-cased.
    pub fn record_type(&self) -> String {
        self.headers
            .get("WARC-Type")
            .unwrap_or("")
            .to_ascii_lowercase()
    }

    /// `WARC-Record-ID` (`<urn:uuid:…>`).
    pub fn record_id(&self) -> Option<&str> {
        self.headers.get("WARC-Record-ID")
    }

    /// `WARC-Target-URI`, without the angle brackets WARC/1.0's grammar had and some writers
    /// still emit.
    pub fn target_uri(&self) -> Option<&str> {
        self.headers.get("WARC-Target-URI").map(strip_angle)
    }

    /// `WARC-Date`.
    pub fn date(&self) -> Option<&str> {
        self.headers.get("WARC-Date")
    }
}

/// `<x>` → `x`.
pub(crate) fn strip_angle(value: &str) -> &str {
    let v = value.trim();
    v.strip_prefix('<')
        .and_then(|v| v.strip_suffix('>'))
        .unwrap_or(v)
}

/// A stretch of the archive that could not be read as a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// Where it starts (as [`Record::offset`]).
    pub offset: u64,
    /// Where it starts in its gzip member (as [`Record::within`]).
    pub within: u64,
    /// The record's `WARC-Record-ID`, when its header could be read.
    pub record_id: Option<String>,
    /// What was wrong, and what was skipped.
    pub message: String,
}

impl Damage {
    pub(super) fn new(at: Place, record_id: Option<String>, message: String) -> Damage {
        Damage {
            offset: at.offset,
            within: at.within,
            record_id,
            message,
        }
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = Place {
            offset: self.offset,
            within: self.within,
        };
        write!(f, "{at}")?;
        match self.record_id.as_deref().map(str::trim) {
            Some("") => write!(f, " (a record with an empty WARC-Record-ID)")?,
            Some(_) => write!(
                f,
                " (record {})",
                self.record_id.as_deref().unwrap_or_default()
            )?,
            None => {}
        }
        write!(f, ": {}", self.message)
    }
}

/// Which archived record a link or a base came from: the fields `links` and `base` add to each
/// JSON record for WARC input.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecordRef {
    /// `WARC-Record-ID`.
    pub warc_record_id: Option<String>,
    /// `WARC-Target-URI`.
    pub warc_target_uri: Option<String>,
    /// `WARC-Date`.
    pub warc_date: Option<String>,
    /// The archive ends inside the record: its block was read as far as it goes. Present only
    /// when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl RecordRef {
    /// The record's ID, for messages.
    pub fn id(&self) -> &str {
        match self.warc_record_id.as_deref().map(str::trim) {
            None => "(no WARC-Record-ID)",
            Some("") => "(empty WARC-Record-ID)",
            Some(_) => self.warc_record_id.as_deref().unwrap_or_default(),
        }
    }

    pub(crate) fn of(record: &Record) -> RecordRef {
        RecordRef {
            warc_record_id: record.record_id().map(str::to_owned),
            warc_target_uri: record.target_uri().map(str::to_owned),
            warc_date: record.date().map(str::to_owned),
            truncated: record.truncated,
        }
    }
}
