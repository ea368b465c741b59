//! What reading an archive gives: HTML records (documents with their base layers), other
//! records (for `--extract`), events, why a record was skipped, and the counts of a run.

use serde::Serialize;

use super::payload::*;
use crate::base::{BaseLayers, HeaderBase};
use crate::error::Diagnostic;
pub use crate::input::warc::RecordRef;
use crate::input::warc::{self, Damage};
use crate::pipeline::HtmlInput;

/// An archived HTML document, decoded from its record and ready for the pipeline.
#[derive(Debug, Clone)]
pub struct HtmlRecord {
    /// The record it came from.
    pub reference: RecordRef,
    /// The record's offset in the file.
    pub offset: u64,
    /// Its place in a gzip member holding several records ([`warc::Record::within`]).
    pub within: u64,
    /// Where the record ends in the file, when that is a boundary (see
    /// [`warc::Record::raw_end`]).
    pub raw_end: Option<u64>,
    /// The archived HTTP status code (`None` for a `resource` record).
    pub status: Option<u16>,
    /// The payload: the document's bytes, transfer and content codings removed.
    pub payload: Vec<u8>,
    /// The base layers: the target URI, the archived headers (§5.1.2).
    pub layers: BaseLayers,
    /// The charset of the archived `Content-Type`.
    pub charset: Option<String>,
    /// The media type it was read as: the archived `Content-Type`'s essence, or `text/html`
    /// when none was declared and the payload was sniffed as HTML.
    pub content_type: String,
    /// What was found about the record before the pipeline (ignored headers, payload decoding).
    pub diagnostics: Vec<Diagnostic>,
    /// For a resolved `revisit`: the original record's ID.
    pub revisit_of: Option<String>,
    /// The record was read past damage ([`warc::Record::damage`]): what was wrong. Also a
    /// `warc-record` diagnostic of its document.
    pub damage: Option<String>,
}

impl HtmlRecord {
    /// The pipeline's input for this record; `name` names the archive in errors.
    pub fn input<'a>(&'a self, name: &'a str) -> HtmlInput<'a> {
        HtmlInput {
            name,
            bytes: &self.payload,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }

    /// Where the record is: its offset, and its place in its gzip member.
    pub fn place(&self) -> warc::Place {
        warc::Place {
            offset: self.offset,
            within: self.within,
        }
    }

    /// The record's ID, for messages.
    pub fn id(&self) -> &str {
        self.reference.id()
    }
}

/// A `response` or `resource` record the pipeline does not rewrite, with its payload: one that
/// is not HTML, or a redirect (3xx) of any type. Given only by an archive opened with
/// [`Archive::with_others`](super::Archive::with_others) (`rewrite --extract`: stylesheets, scripts, images, fonts and
/// redirects of a mirror).
#[derive(Debug, Clone)]
pub struct OtherRecord {
    /// The record it came from.
    pub reference: RecordRef,
    /// The record's offset in the file.
    pub offset: u64,
    /// Its place in a gzip member holding several records.
    pub within: u64,
    /// Where the record ends in the file, when that is a boundary.
    pub raw_end: Option<u64>,
    /// The archived HTTP status code (`None` for a `resource` record).
    pub status: Option<u16>,
    /// The archived `Content-Type` (the HTTP one, else the record's own).
    pub content_type: Option<String>,
    /// The HTTP `Location` of a redirect, as archived (not resolved).
    pub location: Option<String>,
    /// The payload, transfer and content codings removed, at most [`MAX_PAYLOAD`] bytes.
    pub payload: Vec<u8>,
    /// The record was read past damage: what was wrong.
    pub damage: Option<String>,
}

impl OtherRecord {
    /// Where the record is: its offset, and its place in its gzip member.
    pub fn place(&self) -> warc::Place {
        warc::Place {
            offset: self.offset,
            within: self.within,
        }
    }

    /// The record's ID, for messages.
    pub fn id(&self) -> &str {
        self.reference.id()
    }

    /// Whether it is a redirect: a 3xx status with a `Location`.
    pub fn is_redirect(&self) -> bool {
        self.status.is_some_and(|s| (300..400).contains(&s)) && self.location.is_some()
    }
}

/// One record of the archive, as the pipeline sees it.
#[derive(Debug, Clone)]
pub enum Event {
    /// An HTML document.
    Html(Box<HtmlRecord>),
    /// A record with nothing to resolve: not a response, not HTML, a revisit whose original is
    /// not in the file, a payload too large.
    Skipped {
        /// The record.
        reference: RecordRef,
        /// Its offset in the file.
        offset: u64,
        /// Its place in a gzip member holding several records ([`warc::Record::within`]).
        within: u64,
        /// Where it ends, when that is a boundary.
        raw_end: Option<u64>,
        /// Why, for counting and for messages.
        reason: SkipReason,
        /// What was found, when there is more to say than the reason: the bound a record
        /// passed ([`SkipReason::PastLimit`]), the original a revisit refers to
        /// ([`SkipReason::RevisitWithoutOriginal`]), which a run reports.
        message: Option<String>,
        /// The record was read past damage ([`warc::Record::damage`]): what was wrong.
        damage: Option<String>,
    },
    /// Damage in the file; reading went on after it.
    Damaged(Damage),
    /// A record that is not for the pipeline, with its payload: only from an archive opened
    /// with [`Archive::with_others`](super::Archive::with_others) (where it would otherwise be [`Event::Skipped`] as
    /// [`SkipReason::NotHtml`], or be an HTML redirect). Counted as skipped.
    Other(Box<OtherRecord>),
}

/// What was read: the summary line of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Records read whole.
    pub records: u64,
    /// HTML documents among them (revisits resolved included).
    pub html: u64,
    /// Records skipped.
    pub skipped: u64,
    /// Of the skipped records, those that pass a bound ([`SkipReason::PastLimit`]): the run
    /// did not read all it should have.
    pub past_limit: u64,
    /// Stretches of damage.
    pub damaged: u64,
    /// Revisits resolved to an original payload in the file.
    pub revisits: u64,
    /// Of the skipped records, revisits whose original is not in the file
    /// ([`SkipReason::RevisitWithoutOriginal`]).
    pub revisits_unresolved: u64,
    /// Records read past damage, as warcio reads them ([`warc::Record::damage`]): a
    /// `Content-Length` off, a short terminator, a truncated last record.
    pub salvaged: u64,
}

impl Counts {
    /// Whether the run read less than the archive holds, or read it past damage: a run with
    /// any of these exits 1.
    pub fn incomplete(&self) -> bool {
        self.damaged > 0 || self.past_limit > 0 || self.revisits_unresolved > 0 || self.salvaged > 0
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} record{} read: {} HTML ({} of them revisits), {} skipped",
            self.records,
            if self.records == 1 { "" } else { "s" },
            self.html,
            self.revisits,
            self.skipped
        )?;
        let mut notes = Vec::new();
        if self.past_limit > 0 {
            notes.push(format!("{} past a limit", self.past_limit));
        }
        if self.revisits_unresolved > 0 {
            notes.push(format!(
                "{} revisit{} whose original is not in the file",
                self.revisits_unresolved,
                if self.revisits_unresolved == 1 {
                    ""
                } else {
                    "s"
                }
            ));
        }
        if !notes.is_empty() {
            write!(f, " ({})", notes.join(", "))?;
        }
        write!(f, ", {} damaged", self.damaged)?;
        if self.salvaged > 0 {
            write!(f, ", {} read past damage", self.salvaged)?;
        }
        Ok(())
    }
}

/// How the archive's records become documents.
#[derive(Debug, Clone, Default)]
pub struct ArchiveOptions {
    /// The archived `Content-Base` / `Content-Location` are the entity's base, or not
    /// (`--header-base`).
    pub header_base: HeaderBase,
    /// §5.1.4 application default (`--default-base`).
    pub default_base: Option<String>,
    /// A charset that overrides the archived `Content-Type`'s (`--charset`).
    pub charset: Option<String>,
}
