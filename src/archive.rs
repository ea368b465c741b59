//! WARC records through the pipeline (issue 12): each archived HTML response is a document whose
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

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::Serialize;

use crate::base::{BaseLayers, HeaderBase};
use crate::error::{Diagnostic, Error};
pub use crate::input::warc::RecordRef;
use crate::input::warc::{self, Damage, Item, Record, WarcReader};
use crate::input::Headers;
use crate::pipeline::{self, HtmlInput, Options, Rewritten};
use crate::report::Report;

/// An HTML payload is held in memory up to this size (decoded); larger ones are skipped, said
/// and counted (a 256 MiB web page is not a page; a decompression bomb is not one either).
pub const MAX_PAYLOAD: u64 = 256 * 1024 * 1024;

/// A `Content-Encoding` may inflate the stored body at most this many times
/// ([`MIN_DECODE_BUDGET`] whatever the body's size): HTML compresses 5–20 times; deflate can
/// reach 1,032 times per layer, and layers multiply (`gzip, gzip`), so a 559-byte record could
/// become gigabytes. The bound applies to the whole chain of codings, against the stored body.
pub const MAX_DECODE_RATIO: u64 = 100;

/// What any body may inflate to, however small it is stored.
pub const MIN_DECODE_BUDGET: u64 = 4 * 1024 * 1024;

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
/// [`Archive::with_others`] (`rewrite --extract`: stylesheets, scripts, images, fonts and
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

/// The record a `response` or `resource` is when it is not a document for the pipeline (see
/// [`OtherRecord`]): its payload decoded as [`HtmlRecord`]'s is.
fn other_of(record: &Record) -> Result<OtherRecord, (SkipReason, Option<String>)> {
    record.target_uri().ok_or((SkipReason::NoTargetUri, None))?;
    let block = record
        .block
        .as_deref()
        .ok_or((SkipReason::PastLimit, None))?;
    let is_http = record.record_type() == "response"
        && (record
            .headers
            .get("Content-Type")
            .unwrap_or("")
            .to_ascii_lowercase()
            .starts_with("application/http")
            || block.starts_with(b"HTTP/"));
    let (http, body) = if is_http {
        let (head, body) = split_http(block);
        (Some(Headers::parse(&String::from_utf8_lossy(head))), body)
    } else {
        (None, block)
    };
    let content_type = match &http {
        Some(h) => h.get("Content-Type").map(str::to_owned),
        None => record
            .headers
            .get("Content-Type")
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty()),
    };
    let mut diagnostics = Vec::new();
    let payload = match &http {
        Some(h) => decode_payload(h, body, &mut diagnostics)?,
        None => body.to_vec(),
    };
    Ok(OtherRecord {
        reference: RecordRef::of(record),
        offset: record.offset,
        within: record.within,
        raw_end: record.raw_end,
        status: http.as_ref().and_then(Headers::status),
        content_type,
        location: http
            .as_ref()
            .and_then(|h| h.get("Location"))
            .map(|l| l.trim().to_owned()),
        payload,
        damage: record.damage.clone(),
    })
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
    /// with [`Archive::with_others`] (where it would otherwise be [`Event::Skipped`] as
    /// [`SkipReason::NotHtml`], or be an HTML redirect). Counted as skipped.
    Other(Box<OtherRecord>),
}

/// Why a record was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SkipReason {
    /// `warcinfo`, `request`, `metadata`, an earlier `conversion`, …
    NotAResponse,
    /// A response or resource whose payload is not HTML.
    NotHtml,
    /// A `revisit` whose original is not in the same input (wget `--warc-dedup` refers to
    /// earlier files): said in the event's message, and counted.
    RevisitWithoutOriginal,
    /// A `response` without `WARC-Target-URI`: there is no retrieval URI to resolve against.
    NoTargetUri,
    /// The payload's content coding could not be decoded.
    Undecodable,
    /// The record passes a bound: a block past [`MAX_PAYLOAD`], or a content coding that
    /// inflates past [`MAX_DECODE_RATIO`]. Said in the event's message.
    PastLimit,
}

impl SkipReason {
    /// A short name (`not-html`).
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::NotAResponse => "not-a-response",
            SkipReason::NotHtml => "not-html",
            SkipReason::RevisitWithoutOriginal => "revisit-without-original",
            SkipReason::NoTargetUri => "no-target-uri",
            SkipReason::Undecodable => "undecodable-payload",
            SkipReason::PastLimit => "past-limit",
        }
    }
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

/// A WARC file, read record by record.
pub struct Archive {
    path: std::path::PathBuf,
    reader: WarcReader<BufReader<File>>,
    options: ArchiveOptions,
    /// Where the `response` and `resource` records are, by a hash of their record ID, of their
    /// target URI + date, and of their payload digest: where a revisit's original is. Hashes
    /// keep it to a few dozen bytes per record; the record read back is checked against the
    /// revisit's reference.
    originals: HashMap<u64, Original>,
    /// The last HTML records read inside a gzip member that holds several (`gzip file.warc`),
    /// up to [`SHARED_MEMBER_CACHE`] bytes of blocks: reading one back means decompressing its
    /// member again from the start.
    recent: RecentRecords,
    counts: Counts,
    /// [`Archive::with_others`].
    others: bool,
    /// [`Archive::open_range`]: where the range starts, while the records before it are not
    /// indexed (they are, the first time a revisit's original is not found in the range).
    unindexed_prefix: Option<u64>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .field("counts", &self.counts)
            .finish_non_exhaustive()
    }
}

/// How many bytes of blocks [`Archive`] keeps of the last HTML records read inside a gzip member
/// holding several: a revisit of one of them is resolved without decompressing the member again
/// from its start (which costs the member's bytes up to the record, for each revisit).
pub const SHARED_MEMBER_CACHE: usize = 64 * 1024 * 1024;

/// The last records added, up to [`SHARED_MEMBER_CACHE`] bytes of blocks, the oldest dropped
/// first.
#[derive(Debug, Default)]
struct RecentRecords {
    records: HashMap<warc::Place, Record>,
    order: std::collections::VecDeque<warc::Place>,
    bytes: usize,
}

impl RecentRecords {
    fn add(&mut self, record: &Record) {
        let size = record.block.as_ref().map_or(0, Vec::len);
        if size > SHARED_MEMBER_CACHE {
            return;
        }
        while self.bytes + size > SHARED_MEMBER_CACHE {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(r) = self.records.remove(&old) {
                self.bytes -= r.block.as_ref().map_or(0, Vec::len);
            }
        }
        let at = warc::Place {
            offset: record.offset,
            within: record.within,
        };
        if let Some(r) = self.records.insert(at, record.clone()) {
            self.bytes -= r.block.as_ref().map_or(0, Vec::len);
        } else {
            self.order.push_back(at);
        }
        self.bytes += size;
    }

    fn get(&self, at: warc::Place) -> Option<&Record> {
        self.records.get(&at)
    }
}

/// Where a revisit's original is, and whether it is HTML (a non-HTML original is not read back).
#[derive(Debug, Clone, Copy)]
struct Original {
    at: warc::Place,
    html: bool,
}

/// The record types whose blocks are read into memory.
fn wanted(headers: &Headers, length: u64) -> bool {
    let t = headers.get("WARC-Type").unwrap_or("").to_ascii_lowercase();
    matches!(t.as_str(), "response" | "resource" | "revisit") && length <= MAX_PAYLOAD
}

impl Archive {
    /// Opens the WARC file at `path` (`.warc` or `.warc.gz`).
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be opened.
    pub fn open(path: &Path, options: ArchiveOptions) -> Result<Archive, Error> {
        Archive::open_range(path, options, 0, None)
    }

    /// Opens the records of the WARC file at `path` that start in the byte range `start..end`
    /// (`None`: to the end), as [`WarcReader::range`] reads them: ranges that meet give every
    /// record once, so one file can be read as many tasks. A revisit whose original is not in
    /// the range is looked up in the records before it (read once, blocks and all, the first
    /// time one is needed), so a range gives the events a whole read gives for its records.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be opened.
    pub fn open_range(
        path: &Path,
        options: ArchiveOptions,
        start: u64,
        end: Option<u64>,
    ) -> Result<Archive, Error> {
        let io_error = |source| Error::Io {
            input: path.display().to_string(),
            source,
        };
        let file = BufReader::with_capacity(256 * 1024, File::open(path).map_err(io_error)?);
        let reader = if start == 0 && end.is_none() {
            WarcReader::new(file)
        } else {
            WarcReader::range(file, start, end)
        }
        .map_err(io_error)?
        .keep(wanted);
        Ok(Archive {
            path: path.to_owned(),
            reader,
            options,
            originals: HashMap::new(),
            recent: RecentRecords::default(),
            counts: Counts::default(),
            others: false,
            unindexed_prefix: (start > 0).then_some(start),
        })
    }

    /// Indexes the originals before the range ([`Archive::open_range`]), as a whole read would
    /// have indexed them by now.
    fn index_prefix(&mut self) {
        let Some(start) = self.unindexed_prefix.take() else {
            return;
        };
        let Ok(file) = File::open(&self.path) else {
            return;
        };
        let Ok(reader) = WarcReader::range(BufReader::new(file), 0, Some(start)) else {
            return;
        };
        // The later record of a key wins, as in a whole read: the range's over the prefix's.
        let mut before = HashMap::new();
        for item in reader.keep(wanted) {
            if let Item::Record(record) = item {
                if matches!(record.record_type().as_str(), "response" | "resource") {
                    let original = Original {
                        at: warc::Place {
                            offset: record.offset,
                            within: record.within,
                        },
                        html: html_of(&record, None, &self.options).is_ok(),
                    };
                    for key in references(&record, false) {
                        before.insert(key_hash(&key), original);
                    }
                }
            }
        }
        for (key, original) in before {
            self.originals.entry(key).or_insert(original);
        }
    }

    /// Gives the records that are not HTML, and the redirects, as [`Event::Other`] with their
    /// payloads (`rewrite --extract`), instead of skipping them.
    #[must_use]
    pub fn with_others(mut self) -> Archive {
        self.others = true;
        self
    }

    /// What has been read so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Whether the file is gzip-compressed (`.warc.gz`).
    pub fn is_gzip(&self) -> bool {
        self.reader.is_gzip()
    }

    fn event(&mut self, item: Item) -> Event {
        let record = match item {
            Item::Damaged(d) => {
                self.counts.damaged += 1;
                return Event::Damaged(d);
            }
            Item::Record(r) => r,
        };
        self.counts.records += 1;
        if record.damage.is_some() {
            self.counts.salvaged += 1;
        }
        let skip = |(reason, message)| Event::Skipped {
            reference: RecordRef::of(&record),
            offset: record.offset,
            within: record.within,
            raw_end: record.raw_end,
            reason,
            message,
            damage: record.damage.clone(),
        };
        let mut event = match record.record_type().as_str() {
            "response" | "resource" => {
                let html = html_of(&record, None, &self.options);
                self.index(&record, html.is_ok());
                if html.is_ok() && record.within > 0 {
                    self.recent.add(&record);
                }
                match html {
                    Ok(html)
                        if self.others && html.status.is_some_and(|s| (300..400).contains(&s)) =>
                    {
                        match other_of(&record) {
                            Ok(other) => Event::Other(Box::new(other)),
                            Err(reason) => skip(reason),
                        }
                    }
                    Ok(mut html) => {
                        html.raw_end = record.raw_end;
                        Event::Html(Box::new(html))
                    }
                    Err((SkipReason::NotHtml, _)) if self.others => match other_of(&record) {
                        Ok(other) => Event::Other(Box::new(other)),
                        Err(reason) => skip(reason),
                    },
                    Err(reason) => skip(reason),
                }
            }
            "revisit" => match self.revisit(&record) {
                Ok(html) => {
                    self.counts.revisits += 1;
                    Event::Html(Box::new(html))
                }
                Err((SkipReason::NotHtml, _)) if self.others => match self.revisit_other(&record) {
                    Some(other) => Event::Other(Box::new(other)),
                    None => skip((SkipReason::NotHtml, None)),
                },
                Err(reason) => skip(reason),
            },
            _ => skip((SkipReason::NotAResponse, None)),
        };
        match &mut event {
            Event::Html(html) => {
                self.counts.html += 1;
                if let Some(damage) = &html.damage {
                    let d = Diagnostic::new(
                        crate::error::DiagnosticCode::WarcRecord,
                        format!("record at {}: {damage}", html.place()),
                    );
                    html.diagnostics.push(d);
                }
            }
            Event::Other(_) => self.counts.skipped += 1,
            Event::Skipped { reason, .. } => {
                self.counts.skipped += 1;
                match reason {
                    SkipReason::PastLimit => self.counts.past_limit += 1,
                    SkipReason::RevisitWithoutOriginal => self.counts.revisits_unresolved += 1,
                    _ => {}
                }
            }
            Event::Damaged(_) => {}
        }
        event
    }

    fn index(&mut self, record: &Record, html: bool) {
        let original = Original {
            at: warc::Place {
                offset: record.offset,
                within: record.within,
            },
            html,
        };
        for key in references(record, false) {
            self.originals.insert(key_hash(&key), original);
        }
    }

    /// A revisit's original payload, under the revisit's own target URI and headers. A revisit
    /// whose original is not in the file is said with what it refers to.
    fn revisit(&mut self, revisit: &Record) -> Result<HtmlRecord, (SkipReason, Option<String>)> {
        let wanted = references(revisit, true);
        if self.unindexed_prefix.is_some()
            && !wanted
                .iter()
                .any(|key| self.originals.contains_key(&key_hash(key)))
        {
            self.index_prefix();
        }
        let mut not_html = false;
        let original = wanted.iter().find_map(|key| {
            let found = *self.originals.get(&key_hash(key))?;
            if !found.html {
                not_html = true;
                return None;
            }
            let original = match self.recent.get(found.at) {
                Some(r) => r.clone(),
                None => read_record_at(&self.path, found.at).ok()??,
            };
            // A hash can collide: the record found must be the one referred to.
            references(&original, false)
                .contains(key)
                .then_some(original)
        });
        let Some(original) = original else {
            if not_html {
                return Err((SkipReason::NotHtml, None));
            }
            let refers = if wanted.is_empty() {
                "it names no original (no WARC-Refers-To, WARC-Refers-To-Target-URI + WARC-Refers-To-Date or WARC-Payload-Digest)".to_owned()
            } else {
                format!(
                    "its original is not in this file (refers to {})",
                    wanted.join(", ")
                )
            };
            return Err((SkipReason::RevisitWithoutOriginal, Some(refers)));
        };
        let mut html = html_of(&original, Some(revisit), &self.options)?;
        html.reference = RecordRef::of(revisit);
        html.raw_end = revisit.raw_end;
        html.offset = revisit.offset;
        html.within = revisit.within;
        html.revisit_of = original.record_id().map(str::to_owned);
        html.damage = [&original, revisit]
            .iter()
            .filter_map(|r| r.damage.as_deref())
            .next_back()
            .map(str::to_owned);
        html.reference.truncated |= original.truncated;
        Ok(html)
    }
}

impl Archive {
    /// A revisit of a record that is not HTML ([`Archive::with_others`]): the original's
    /// payload under the revisit's target URI, place and (when it has one) HTTP status.
    fn revisit_other(&mut self, revisit: &Record) -> Option<OtherRecord> {
        let original = references(revisit, true).iter().find_map(|key| {
            let found = *self.originals.get(&key_hash(key))?;
            let original = match self.recent.get(found.at) {
                Some(r) => r.clone(),
                None => read_record_at(&self.path, found.at).ok()??,
            };
            references(&original, false)
                .contains(key)
                .then_some(original)
        })?;
        let mut other = other_of(&original).ok()?;
        other.reference = RecordRef::of(revisit);
        other.reference.truncated |= original.truncated;
        other.offset = revisit.offset;
        other.within = revisit.within;
        other.raw_end = revisit.raw_end;
        if let Some(b) = revisit.block.as_deref().filter(|b| b.starts_with(b"HTTP/")) {
            let head = Headers::parse(&String::from_utf8_lossy(split_http(b).0));
            other.status = head.status().or(other.status);
            if let Some(l) = head.get("Location") {
                other.location = Some(l.trim().to_owned());
            }
        }
        other.damage = [&original, revisit]
            .iter()
            .filter_map(|r| r.damage.as_deref())
            .next_back()
            .map(str::to_owned);
        Some(other)
    }
}

/// The keys a record is found by (`referring: false`), or a revisit refers to its original by
/// (`true`): its record ID (`WARC-Refers-To`), target URI and date
/// (`WARC-Refers-To-Target-URI`, `WARC-Refers-To-Date`), payload digest.
fn references(record: &Record, referring: bool) -> Vec<String> {
    let h = &record.headers;
    let (id, uri, date) = if referring {
        (
            h.get("WARC-Refers-To"),
            h.get("WARC-Refers-To-Target-URI").map(warc::strip_angle),
            h.get("WARC-Refers-To-Date"),
        )
    } else {
        (record.record_id(), record.target_uri(), record.date())
    };
    let mut keys = Vec::new();
    if let Some(id) = id {
        keys.push(format!("record {}", id.trim()));
    }
    if let (Some(uri), Some(date)) = (uri, date) {
        keys.push(format!("{} at {}", uri.trim(), date.trim()));
    }
    if let Some(d) = h.get("WARC-Payload-Digest") {
        keys.push(format!("payload {}", d.trim()));
    }
    keys
}

fn key_hash(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl Iterator for Archive {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        let item = self.reader.next()?;
        Some(self.event(item))
    }
}

/// The record at `at` in the file (a revisit's original).
fn read_record_at(path: &Path, at: warc::Place) -> io::Result<Option<Record>> {
    let mut file = BufReader::new(File::open(path)?);
    file.seek(SeekFrom::Start(at.offset))?;
    let reader = WarcReader::new(file)?.keep(wanted).skip_within(at.within)?;
    Ok(reader.into_iter().next().and_then(|i| match i {
        Item::Record(r) => Some(r),
        Item::Damaged(_) => None,
    }))
}

/// The HTML document in a `response` or `resource` record; for a revisit, `revisit` is the
/// revisit record, whose target URI and (when it has them) HTTP headers are used.
fn html_of(
    record: &Record,
    revisit: Option<&Record>,
    options: &ArchiveOptions,
) -> Result<HtmlRecord, (SkipReason, Option<String>)> {
    let outer = revisit.unwrap_or(record);
    let target = outer.target_uri().ok_or((SkipReason::NoTargetUri, None))?;
    let block = record.block.as_deref().ok_or_else(|| {
        (
            SkipReason::PastLimit,
            Some(format!(
                "its block of {} bytes is past the {} MiB a payload may have (MAX_PAYLOAD)",
                record.content_length,
                MAX_PAYLOAD >> 20
            )),
        )
    })?;
    let is_http = record.record_type() == "response"
        && (record
            .headers
            .get("Content-Type")
            .unwrap_or("")
            .to_ascii_lowercase()
            .starts_with("application/http")
            || block.starts_with(b"HTTP/"));
    let mut diagnostics = Vec::new();
    let (http, body) = if is_http {
        let (head, body) = split_http(block);
        (Some(Headers::parse(&String::from_utf8_lossy(head))), body)
    } else {
        (None, block)
    };
    // A revisit carries the headers of its own response; they describe this capture.
    let http = match (revisit.and_then(|r| r.block.as_deref()), &http) {
        (Some(b), _) if b.starts_with(b"HTTP/") => {
            Some(Headers::parse(&String::from_utf8_lossy(split_http(b).0)))
        }
        _ => http,
    };
    // Without HTTP headers, the type is the record's own (a `resource`): the original's, for
    // a revisit of one (warcit's directory URLs), unless the revisit names one.
    let content_type = match &http {
        Some(h) => h.get("Content-Type").map(str::to_owned),
        None => [outer, record]
            .iter()
            .filter_map(|r| r.headers.get("Content-Type"))
            .map(|t| t.trim().to_ascii_lowercase())
            .find(|t| !t.is_empty() && !t.starts_with("application/http")),
    };
    let payload = match &http {
        Some(h) => decode_payload(h, body, &mut diagnostics)?,
        None => body.to_vec(),
    };
    if !is_html(content_type.as_deref(), &payload) {
        return Err((SkipReason::NotHtml, None));
    }
    let mut layers = BaseLayers {
        retrieval_uri: Some(target.to_owned()),
        default_base: options.default_base.clone(),
        ..BaseLayers::default()
    };
    if let Some(h) = &http {
        diagnostics.extend(layers.add_headers(h, options.header_base));
    }
    let charset = options.charset.clone().or_else(|| {
        content_type
            .as_deref()
            .and_then(crate::decode::charset_from_content_type)
    });
    Ok(HtmlRecord {
        reference: RecordRef::of(record),
        offset: record.offset,
        within: record.within,
        raw_end: record.raw_end,
        status: http.as_ref().and_then(Headers::status),
        payload,
        layers,
        charset,
        diagnostics,
        revisit_of: None,
        damage: record.damage.clone(),
    })
}

/// The HTTP message's head (status line and fields) and body.
fn split_http(block: &[u8]) -> (&[u8], &[u8]) {
    let crlf = memchr::memmem::find(block, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = memchr::memmem::find(block, b"\n\n").map(|i| (i, i + 2));
    let end = match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    };
    match end {
        Some((head, body)) => (
            block.get(..head).unwrap_or_default(),
            block.get(body..).unwrap_or_default(),
        ),
        None => (block, &[]),
    }
}

/// `text/html` or `application/xhtml+xml`; with no Content-Type, sniffed as the MIME Sniffing
/// Standard's "HTML" patterns do (a tag name after leading whitespace).
fn is_html(content_type: Option<&str>, payload: &[u8]) -> bool {
    if let Some(ct) = content_type {
        let essence = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !essence.is_empty() {
            return essence == "text/html" || essence == "application/xhtml+xml";
        }
    }
    let start = payload
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .unwrap_or(payload.len());
    let head = payload.get(start..).unwrap_or_default();
    const PATTERNS: [&[u8]; 17] = [
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<script",
        b"<iframe",
        b"<h1",
        b"<div",
        b"<font",
        b"<table",
        b"<a",
        b"<style",
        b"<title",
        b"<b",
        b"<body",
        b"<br",
        b"<p",
        b"<!--",
    ];
    PATTERNS.iter().any(|p| {
        head.len() > p.len()
            && head
                .get(..p.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(p))
            && (p == b"<!--" || head.get(p.len()).is_some_and(|b| matches!(b, b' ' | b'>')))
    })
}

/// The payload with `Transfer-Encoding: chunked` and `Content-Encoding` removed (RFC 9112 §7.1,
/// RFC 9110 §8.4). A coding that cannot be undone leaves the record skipped, with a reason.
fn decode_payload(
    http: &Headers,
    body: &[u8],
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<u8>, (SkipReason, Option<String>)> {
    // One budget for the whole chain of codings, from what is stored.
    let budget = (body.len() as u64)
        .saturating_mul(MAX_DECODE_RATIO)
        .clamp(MIN_DECODE_BUDGET, MAX_PAYLOAD);
    let mut payload = body.to_vec();
    let chunked = http
        .get("Transfer-Encoding")
        .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    if chunked {
        match dechunk(&payload) {
            Some(p) => payload = p,
            // Many crawlers store the payload already de-chunked and keep the header.
            None => diagnostics.push(Diagnostic::new(
                crate::error::DiagnosticCode::WarcPayload,
                "Transfer-Encoding: chunked, but the payload is not chunked; used as it is",
            )),
        }
    }
    let codings = http
        .get("Content-Encoding")
        .unwrap_or("")
        .to_ascii_lowercase();
    for coding in codings.split(',').map(str::trim).rev() {
        let decoded = match coding {
            "" | "identity" => continue,
            "gzip" | "x-gzip" => bounded(flate2::read::MultiGzDecoder::new(&payload[..]), budget),
            "deflate" => {
                bounded(flate2::read::ZlibDecoder::new(&payload[..]), budget).or_else(|e| match e {
                    Decoded::PastBudget => Err(e),
                    Decoded::Io(_) => {
                        bounded(flate2::read::DeflateDecoder::new(&payload[..]), budget)
                    }
                })
            }
            "br" => bounded(
                brotli_decompressor::Decompressor::new(&payload[..], 4096),
                budget,
            ),
            _ => Err(Decoded::Io(io::Error::other("unknown content coding"))),
        };
        match decoded {
            Ok(p) => payload = p,
            Err(Decoded::PastBudget) => {
                return Err((
                    SkipReason::PastLimit,
                    Some(format!(
                        "Content-Encoding: {codings} inflates its {} stored bytes past {budget} bytes (MAX_DECODE_RATIO: {MAX_DECODE_RATIO} times the stored body, at least {} MiB)",
                        body.len(),
                        MIN_DECODE_BUDGET >> 20
                    )),
                ))
            }
            Err(Decoded::Io(e)) => {
                // Stored decoded by the crawler despite the header? Then it reads as text.
                if is_html(None, &payload) {
                    diagnostics.push(Diagnostic::new(
                        crate::error::DiagnosticCode::WarcPayload,
                        format!("Content-Encoding: {coding} does not decode ({e}); the payload is used as it is"),
                    ));
                    break;
                }
                return Err((SkipReason::Undecodable, None));
            }
        }
    }
    Ok(payload)
}

/// Why a content coding gave no payload.
enum Decoded {
    /// It does not decode.
    Io(io::Error),
    /// It inflates past the budget.
    PastBudget,
}

/// Decodes up to `budget` bytes; one more is an error, found without holding more.
fn bounded(r: impl Read, budget: u64) -> Result<Vec<u8>, Decoded> {
    let mut out = Vec::new();
    r.take(budget.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(Decoded::Io)?;
    if out.len() as u64 > budget {
        return Err(Decoded::PastBudget);
    }
    Ok(out)
}

/// RFC 9112 §7.1: `size [; ext] CRLF data CRLF` … `0 CRLF [trailers] CRLF`. `None` when the body
/// is not in that form.
fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = memchr::memchr(b'\n', rest)?;
        let line = rest.get(..line_end)?;
        let size_text = line.split(|b| *b == b';').next()?;
        let size_text = std::str::from_utf8(size_text).ok()?.trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        rest = rest.get(line_end + 1..)?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size..)?;
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .unwrap_or(rest);
    }
}

/// Links of an archived document, each tagged with its record.
///
/// # Errors
/// As [`pipeline::links`]; `name` names the archive.
pub fn links(record: &HtmlRecord, name: &str, options: &Options) -> Result<Report, Error> {
    let mut report = pipeline::links(&record.input(name), options)?;
    tag(&mut report, record);
    Ok(report)
}

/// The rewritten document, its report tagged with its record.
///
/// # Errors
/// As [`pipeline::rewrite`].
pub fn rewrite(record: &HtmlRecord, name: &str, options: &Options) -> Result<Rewritten, Error> {
    let mut out = pipeline::rewrite(&record.input(name), options)?;
    tag(&mut out.report, record);
    Ok(out)
}

fn tag(report: &mut Report, record: &HtmlRecord) {
    report.base.warc = Some(record.reference.clone());
    for l in &mut report.links {
        l.warc = Some(record.reference.clone());
    }
}

/// A WARC/1.1 `conversion` record (ISO 28500 §6.8) holding `payload`, the rewritten form of
/// `original`'s document: `WARC-Refers-To` the original, digests of the block. `date` is its
/// `WARC-Date` (see [`warc_date_now`]). The record ID is derived from the original's ID and the
/// payload (a name-based UUID), so the same input gives the same archive.
pub fn conversion_record(
    original: &HtmlRecord,
    payload: &[u8],
    encoding: &str,
    date: &str,
) -> Vec<u8> {
    use sha1::Digest as _;
    let digest = sha1::Sha1::digest(payload);
    let digest = format!("sha1:{}", data_encoding::BASE32.encode(&digest));
    let id = name_uuid(&[original.id().as_bytes(), b"\n", digest.as_bytes()].concat());
    let mut out = Vec::with_capacity(payload.len() + 512);
    let mut head = String::from("WARC/1.1\r\nWARC-Type: conversion\r\n");
    head.push_str(&format!("WARC-Record-ID: <urn:uuid:{id}>\r\n"));
    head.push_str(&format!("WARC-Date: {date}\r\n"));
    if let Some(uri) = &original.reference.warc_target_uri {
        head.push_str(&format!("WARC-Target-URI: {uri}\r\n"));
    }
    if let Some(orig) = &original.reference.warc_record_id {
        head.push_str(&format!("WARC-Refers-To: {orig}\r\n"));
    }
    head.push_str(&format!("Content-Type: text/html; charset={encoding}\r\n"));
    head.push_str(&format!("WARC-Block-Digest: {digest}\r\n"));
    head.push_str(&format!("WARC-Payload-Digest: {digest}\r\n"));
    head.push_str(&format!("Content-Length: {}\r\n\r\n", payload.len()));
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// A record as its own gzip member (ISO 28500 Annex D).
pub fn gzip_member(record: &[u8]) -> io::Result<Vec<u8>> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(record)?;
    e.finish()
}

/// RFC 4122 §4.3 name-based UUID (version 5, SHA-1) of `name`.
fn name_uuid(name: &[u8]) -> String {
    use sha1::Digest as _;
    let h = sha1::Sha1::digest(name);
    let mut b = [0u8; 16];
    b.copy_from_slice(h.get(..16).unwrap_or(&[0; 16]));
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Now as a `WARC-Date` (`2026-11-25T14:37:39Z`, W3C-ISO8601 in UTC); `SOURCE_DATE_EPOCH`, when
/// set, stands for now (reproducible outputs).
pub fn warc_date_now() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0))
        });
    warc_date(secs)
}

/// Seconds since the Unix epoch as a `WARC-Date`.
pub fn warc_date(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Where `--extract` writes a page: `host[:port]/path`, a directory path given `index.html`, the
/// query kept after `?` in the name, as wget names its files. `None` for a URI with no host.
///
/// The URI is hostile (issue 21): every component of the result is a plain file name. Empty,
/// `.` and `..` path segments are dropped (a name never climbs out). Inside a component, `/` (a
/// query may hold one), `\`, NUL and the other control characters are percent-encoded, and a
/// component longer than [`EXTRACT_NAME_MAX`] bytes is cut and given a stable hash of the whole.
/// Documented collisions: a raw byte and its own `%XX` spelling (`a\b` and `a%5Cb`) give the
/// same name, as with wget; so do `a/../b` and `a/b` (segments dropped, not resolved). Such
/// URLs are kept apart by [`ExtractNames`], which gives all but the first another name.
pub fn extract_path(target_uri: &str) -> Option<std::path::PathBuf> {
    let uri = crate::UriRef::parse(target_uri);
    uri.scheme?;
    let host = uri.authority?.rsplit('@').next()?.to_ascii_lowercase();
    if host.is_empty() || host.starts_with('.') {
        return None;
    }
    let mut path = std::path::PathBuf::from(extract_component(&host));
    let p = uri.path;
    let mut segments: Vec<&str> = p.split('/').skip(1).collect();
    let mut last = segments.pop().unwrap_or("").to_owned();
    for s in segments {
        if s.is_empty() || s == "." || s == ".." {
            continue;
        }
        path.push(extract_component(s));
    }
    if last.is_empty() || last == "." || last == ".." {
        last = "index.html".to_owned();
    }
    if let Some(q) = uri.query {
        last = format!("{last}?{q}");
    }
    path.push(extract_component(&last));
    Some(path)
}

/// The longest file name [`extract_path`] makes, in bytes: `NAME_MAX` of Linux, macOS and the
/// BSDs. A longer component keeps its first bytes and ends in `~` and 16 hex digits of the
/// SHA-1 of the whole component, so it stays distinct and stable from run to run.
pub const EXTRACT_NAME_MAX: usize = 255;

/// One URI component as a file name: `/`, `\` and control characters (C0, DEL, C1) percent-encoded;
/// never empty, `.` or `..`; at most [`EXTRACT_NAME_MAX`] bytes.
fn extract_component(raw: &str) -> String {
    let mut name = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c == '/' || c == '\\' || c.is_control() {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                name.push_str(&format!("%{b:02X}"));
            }
        } else {
            name.push(c);
        }
    }
    if name.is_empty() || name == "." || name == ".." {
        // Unreachable through extract_path (such segments are dropped or replaced); kept so the
        // guarantee does not rest on the caller.
        name = if name.is_empty() {
            "_".to_owned()
        } else {
            name.replace('.', "%2E")
        };
    }
    if name.len() <= EXTRACT_NAME_MAX {
        return name;
    }
    use sha1::Digest;
    let digest = sha1::Sha1::digest(name.as_bytes());
    let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let mut cut = EXTRACT_NAME_MAX - 1 - hash.len();
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}~{hash}", name.get(..cut).unwrap_or(""))
}

/// A stylesheet record rewritten by the rules of a MIME message's CSS parts: each `url()` and
/// `@import` URL resolved against the record's target URI, then written as the relinker of
/// `options` says (`rewrite --extract --relative`: a relative path to an extracted file) or
/// absolute; `url(#x)`, `url()` and fictitious results are left as they are. Its encoding is
/// CSS Syntax §3.2's (a BOM, the archived charset, `@charset`, UTF-8) and is kept. `None` when
/// nothing changes, or the text cannot be decoded or the new URLs written in its encoding
/// (the bytes are then kept as they are).
pub fn rewrite_stylesheet(record: &OtherRecord, options: &Options) -> Option<Vec<u8>> {
    use crate::rewrite::css::{rewrite_css, CssKind};
    let uri = record.reference.warc_target_uri.as_deref()?;
    let charset = record
        .content_type
        .as_deref()
        .and_then(crate::decode::charset_from_content_type);
    let body = &record.payload;
    let (encoding, _, bom) = crate::message::css_encoding(body, charset.as_deref());
    let text = encoding
        .decode_without_bom_handling_and_without_replacement(body.get(bom..).unwrap_or_default())?;
    let resolver = crate::Resolver::new(uri, options.rewrite.resolve).ok()?;
    let new_text = rewrite_css(&text, CssKind::Stylesheet, &mut |url| {
        let value = url.value.trim();
        if value.is_empty() || value.starts_with('#') {
            return None;
        }
        let resolved = resolver.resolve(value).ok()?.uri;
        if crate::rewrite::is_fictitious(&resolved) {
            return None;
        }
        if let Some(relink) = &options.rewrite.relink {
            if let Some(text) = relink.0.relink(uri, &resolved) {
                return Some(text);
            }
        }
        Some(resolved.to_string())
    })?;
    let (encoded, _, unmappable) = encoding.encode(&new_text);
    if unmappable {
        return None;
    }
    let mut css = body.get(..bom).unwrap_or_default().to_vec();
    css.extend_from_slice(&encoded);
    Some(css)
}

/// Whether an archived `Content-Type` is CSS (`text/css`).
pub fn is_stylesheet(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|t| t.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/css"))
}

/// The file names of one extraction, decided before anything is written, so that no two URLs
/// share a file and no file stands where a directory must be (issue 24).
///
/// The rule, in record order (the first record of a URL decides its place in the order):
/// - a URL keeps its [`extract_path`] name unless that name is taken; a later capture of the
///   same URL (the same target URI string) is the same file, and replaces the earlier one;
/// - names are compared case-folded, so a mirror copied to a case-insensitive file system stays
///   whole: `/A.html` and `/a.html` are two files even there;
/// - a name that another URL's path needs as a directory (`/a` beside `/a/` or `/a/b`) is
///   taken by that directory: the directory keeps its name, as every page below it does;
/// - a URL whose name is taken gets the first free `~N` (N = 2, 3, …) inserted before the
///   extension of its last component (before the `?` of a query kept in the name):
///   `a.html` → `a~2.html`, `a.css?v=1` → `a~2.css?v=1`, `a` → `a~2`. The same archive always
///   gives the same names.
///
/// Each such URL is a [`ExtractCollision`], to be said and counted.
#[derive(Debug, Clone, Default)]
pub struct ExtractNames {
    /// Target URI → its file.
    by_uri: HashMap<String, std::path::PathBuf>,
    /// [`extract_path`] name → the file of the first URL that had it: a link whose resolved URL
    /// differs from a target URI only in what the name drops (host case, dot segments) finds it.
    by_name: HashMap<std::path::PathBuf, std::path::PathBuf>,
    /// A redirect's URL → the file of where it leads ([`ExtractNames::follow`]).
    redirects: HashMap<String, std::path::PathBuf>,
}

/// A URL that could not have its [`extract_path`] name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractCollision {
    /// The URL moved.
    pub uri: String,
    /// The URL that holds the name: as its file, or as a directory of its path.
    pub holder: String,
    /// Whether the name is the holder's directory (`/a` beside `/a/b`).
    pub directory: bool,
    /// The name it would have had.
    pub name: std::path::PathBuf,
    /// The name it has.
    pub file: std::path::PathBuf,
}

/// A path as one case-folded key: components joined by `/` (no component holds one).
fn folded(path: &std::path::Path) -> String {
    let mut key = String::new();
    for c in path.components() {
        if !key.is_empty() {
            key.push('/');
        }
        key.push_str(&c.as_os_str().to_string_lossy().to_lowercase());
    }
    key
}

/// `name` with `~n` before the extension of its last component (see [`ExtractNames`]), kept
/// within [`EXTRACT_NAME_MAX`] bytes.
fn with_suffix(name: &std::path::Path, n: u64) -> std::path::PathBuf {
    let last = name
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (file, query) = match last.find('?') {
        Some(i) => last.split_at(i),
        None => (last.as_str(), ""),
    };
    let (mut stem, ext) = match file.rfind('.') {
        Some(i) if i > 0 => (
            file.get(..i).unwrap_or("").to_owned(),
            file.get(i..).unwrap_or(""),
        ),
        _ => (file.to_owned(), ""),
    };
    let suffix = format!("~{n}");
    let mut tail = format!("{suffix}{ext}{query}");
    if tail.len() >= EXTRACT_NAME_MAX {
        tail = suffix;
        stem = file.to_owned();
    }
    let mut cut = EXTRACT_NAME_MAX.saturating_sub(tail.len()).min(stem.len());
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    stem.truncate(cut);
    name.with_file_name(format!("{stem}{tail}"))
}

impl ExtractNames {
    /// Names the URLs `uris` (target URIs, in record order; repeats are later captures).
    /// Returns the names and the URLs that could not keep theirs. A URI [`extract_path`] cannot
    /// name has no file.
    pub fn assign<'a>(
        uris: impl IntoIterator<Item = &'a str>,
    ) -> (ExtractNames, Vec<ExtractCollision>) {
        let mut order: Vec<(&str, std::path::PathBuf)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for uri in uris {
            if seen.insert(uri) {
                if let Some(name) = extract_path(uri) {
                    order.push((uri, name));
                }
            }
        }
        // Every directory some path needs, with the first URL needing it.
        let mut directories: HashMap<String, &str> = HashMap::new();
        for (uri, name) in &order {
            for dir in name.ancestors().skip(1) {
                if dir.as_os_str().is_empty() {
                    break;
                }
                directories.entry(folded(dir)).or_insert(uri);
            }
        }
        let mut names = ExtractNames::default();
        let mut files: HashMap<String, &str> = HashMap::new();
        // Per clashing name, the suffix to try next: K URLs on one name probe K times, not K²/2
        // (an archive of 100,000 case variants of one URL is hostile input too).
        let mut next_suffix: HashMap<String, u64> = HashMap::new();
        let mut collisions = Vec::new();
        for (uri, name) in order {
            let key = folded(&name);
            let holder = files
                .get(&key)
                .map(|h| (*h, false))
                .or_else(|| directories.get(&key).map(|h| (*h, true)));
            let file = match holder {
                None => {
                    files.insert(key, uri);
                    name.clone()
                }
                Some((holder, directory)) => {
                    let n = next_suffix.entry(key).or_insert(2);
                    let file = loop {
                        let candidate = with_suffix(&name, *n);
                        let k = folded(&candidate);
                        *n += 1;
                        if !files.contains_key(&k) && !directories.contains_key(&k) {
                            files.insert(k, uri);
                            break candidate;
                        }
                    };
                    collisions.push(ExtractCollision {
                        uri: uri.to_owned(),
                        holder: holder.to_owned(),
                        directory,
                        name: name.clone(),
                        file: file.clone(),
                    });
                    file
                }
            };
            names.by_name.entry(name).or_insert_with(|| file.clone());
            names.by_uri.insert(uri.to_owned(), file);
        }
        (names, collisions)
    }

    /// The file of a URL: its own when it is a target URI named here, else that of where it
    /// redirects to ([`ExtractNames::follow`]), else that of the first target URI with the same
    /// [`extract_path`] name.
    pub fn file(&self, uri: &str) -> Option<&std::path::Path> {
        match self.by_uri.get(uri).or_else(|| self.redirects.get(uri)) {
            Some(f) => Some(f),
            None => self.by_name.get(&extract_path(uri)?).map(|f| f.as_path()),
        }
    }

    /// Redirects followed, as wget `-k` does: each `(from, to)` (a redirect's URL and its
    /// `Location` resolved against it) whose `from` has no file of its own and whose `to` leads,
    /// in at most [`crate::input::MAX_REDIRECTS`] more redirects, to a file: links to `from`
    /// go to that file. Returns how many were followed.
    pub fn follow(&mut self, redirects: &[(String, String)]) -> usize {
        let next: HashMap<&str, &str> = redirects
            .iter()
            .map(|(from, to)| (from.as_str(), to.as_str()))
            .collect();
        let mut followed = 0;
        for (from, to) in redirects {
            if self.by_uri.contains_key(from) || self.redirects.contains_key(from) {
                continue;
            }
            let mut at = to.as_str();
            for _ in 0..=crate::input::MAX_REDIRECTS {
                if let Some(file) = self.by_uri.get(at) {
                    self.redirects.insert(from.clone(), file.clone());
                    followed += 1;
                    break;
                }
                match next.get(at) {
                    Some(n) => at = n,
                    None => break,
                }
            }
        }
        followed
    }

    /// How many files the names make.
    pub fn len(&self) -> usize {
        self.by_uri.len()
    }

    /// Whether no URL has a file.
    pub fn is_empty(&self) -> bool {
        self.by_uri.is_empty()
    }
}

/// `rewrite --extract DIR --relative`: a link to a page extracted from the same archive becomes
/// the relative path between the two files ([`ExtractNames`] names them), fragment kept; every
/// other link is absolute.
#[derive(Debug, Clone, Default)]
pub struct ExtractRelinker {
    names: std::sync::Arc<ExtractNames>,
}

impl ExtractRelinker {
    /// Links between the files `names` gives.
    pub fn new(names: std::sync::Arc<ExtractNames>) -> ExtractRelinker {
        ExtractRelinker { names }
    }
}

impl crate::rewrite::Relink for ExtractRelinker {
    fn relink(&self, document: &str, resolved: &str) -> Option<String> {
        let (without_fragment, fragment) = match resolved.split_once('#') {
            Some((u, f)) => (u, Some(f)),
            None => (resolved, None),
        };
        let from = self.names.file(document)?.to_path_buf();
        let to = self.names.file(without_fragment)?.to_path_buf();
        let mut out = String::new();
        // The page itself, with a fragment: the fragment alone. A file name is a path segment:
        // `?` (a query kept in the name), `#`, `%` and the like are percent-encoded.
        if !(from == to && fragment.is_some()) {
            let names = |p: &std::path::Path| -> Option<Vec<String>> {
                p.components()
                    .map(|c| c.as_os_str().to_str().map(str::to_owned))
                    .collect()
            };
            let (from_dirs, to) = (names(from.parent()?)?, names(&to)?);
            let from_dirs: Vec<&str> = from_dirs.iter().map(String::as_str).collect();
            let to: Vec<&str> = to.iter().map(String::as_str).collect();
            crate::site::relative_path(&from_dirs, &to, &mut out);
        }
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(f);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn dechunk_follows_rfc_9112() {
        assert_eq!(
            dechunk(b"3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n").as_deref(),
            Some(&b"abcde"[..])
        );
        assert_eq!(dechunk(b"<html>"), None);
        assert_eq!(dechunk(b"ffffffffffffffffff\r\nx"), None);
    }

    #[test]
    fn html_is_recognised_by_type_or_sniffed() {
        assert!(is_html(Some("text/html; charset=utf-8"), b""));
        assert!(is_html(Some("application/xhtml+xml"), b""));
        assert!(!is_html(Some("text/css"), b"<html>"));
        assert!(is_html(None, b"  <!DOCTYPE html><p>"));
        assert!(is_html(Some(""), b"<HTML>"));
        assert!(!is_html(None, b"%PDF-1.4"));
        assert!(!is_html(None, b"<abbr>"));
    }

    #[test]
    fn warc_dates_are_utc_iso8601() {
        assert_eq!(warc_date(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(warc_date(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(warc_date(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn extract_paths_are_wget_names_inside_the_directory() {
        let p = |u: &str| extract_path(u).map(|p| p.display().to_string());
        assert_eq!(
            p("http://Example.org/").as_deref(),
            Some("example.org/index.html")
        );
        assert_eq!(
            p("http://h:8080/a/b/").as_deref(),
            Some("h:8080/a/b/index.html")
        );
        assert_eq!(
            p("http://h/a/../../x.html?q=1").as_deref(),
            Some("h/a/x.html?q=1")
        );
        assert_eq!(p("http://h/..").as_deref(), Some("h/index.html"));
        assert_eq!(p("mailto:x@y"), None);
    }

    #[test]
    fn extract_names_never_leave_the_directory() {
        let p = |u: &str| extract_path(u).map(|p| p.display().to_string());
        // D1 of issue 21: a `/` in the query no longer makes directories.
        assert_eq!(
            p("http://ex.org/p?x=/../../../../../ESCAPED.html").as_deref(),
            Some("ex.org/p?x=%2F..%2F..%2F..%2F..%2F..%2FESCAPED.html")
        );
        assert_eq!(
            p("http://h/a\\..\\b/c\u{1b}[2J\u{0}\u{85}.html").as_deref(),
            Some("h/a%5C..%5Cb/c%1B[2J%00%C2%85.html")
        );
        assert_eq!(p("http://../x"), None);
        assert_eq!(p("http://h\u{7}x/").as_deref(), Some("h%07x/index.html"));
    }

    #[test]
    fn long_extract_names_are_cut_with_a_stable_hash() {
        let long = "x".repeat(300);
        let path = extract_path(&format!("http://h/{long}/{long}?q")).unwrap();
        let names: Vec<String> = path
            .components()
            .map(|c| c.as_os_str().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(names.len(), 3);
        assert_eq!(names[1].len(), EXTRACT_NAME_MAX);
        assert_eq!(names[2].len(), EXTRACT_NAME_MAX);
        assert_eq!(
            names[1],
            format!("{}~{}", "x".repeat(238), "02fd68253071f895")
        );
        assert_ne!(names[1], names[2], "the hash is of the whole component");
        // A multibyte character is never cut in half.
        let path = extract_path(&format!("http://h/{}", "é".repeat(200))).unwrap();
        assert!(path.to_str().unwrap().len() <= 2 + EXTRACT_NAME_MAX);
    }

    fn rec(kind: &str, id: &str, uri: &str, extra: &str, block: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <{id}>\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2020-01-01T00:00:00Z\r\n{extra}Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        r.extend_from_slice(block);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    #[test]
    fn revisits_find_their_original_by_id_target_and_date_or_digest() {
        let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
        let head = b"HTTP/1.1 200 OK\r\n\r\n";
        let profile =
            "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n";
        let mut file = rec(
            "response",
            "o1",
            "http://h/a/",
            "WARC-Payload-Digest: sha1:AAAA\r\n",
            page,
        );
        // Heritrix: target URI and date of the original.
        file.extend(rec("revisit", "r1", "http://h/b/", &format!("{profile}WARC-Refers-To-Target-URI: http://h/a/\r\nWARC-Refers-To-Date: 2020-01-01T00:00:00Z\r\n"), head));
        // Only the payload digest.
        file.extend(rec(
            "revisit",
            "r2",
            "http://h/c/",
            &format!("{profile}WARC-Payload-Digest: sha1:AAAA\r\n"),
            head,
        ));
        // An original that is not in the file.
        file.extend(rec(
            "revisit",
            "r3",
            "http://h/d/",
            &format!("{profile}WARC-Refers-To: <elsewhere>\r\n"),
            head,
        ));
        let dir = std::env::temp_dir().join(format!("linkbase-revisit-{}", std::process::id()));
        std::fs::write(&dir, &file).unwrap();
        let archive = Archive::open(&dir, ArchiveOptions::default()).unwrap();
        let got: Vec<String> = archive
            .map(|e| match e {
                Event::Html(h) => {
                    let report = links(&h, "t", &Options::default()).unwrap();
                    format!(
                        "{} {:?}",
                        report.links[0].resolved.as_deref().unwrap_or(""),
                        h.revisit_of
                    )
                }
                Event::Skipped { reason, .. } => reason.name().to_owned(),
                Event::Damaged(d) => d.to_string(),
                Event::Other(o) => format!("other {}", o.id()),
            })
            .collect();
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(
            got,
            [
                "http://h/a/x None",
                "http://h/b/x Some(\"<o1>\")",
                "http://h/c/x Some(\"<o1>\")",
                "revisit-without-original",
            ]
        );
    }

    /// Issue 23: a record inside a gzip member that holds several is read back from its place
    /// (what a revisit does when its original has left [`RecentRecords`]).
    #[test]
    fn records_inside_a_shared_gzip_member_are_read_back_from_their_place() {
        let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
        let a = rec("response", "a", "http://h/a/", "", page);
        let b = rec("response", "b", "http://h/b/", "", page);
        let path = std::env::temp_dir().join(format!("linkbase-shared-{}", std::process::id()));
        std::fs::write(&path, gzip_member(&[a.clone(), b].concat()).unwrap()).unwrap();
        let at = warc::Place {
            offset: 0,
            within: a.len() as u64,
        };
        let got = read_record_at(&path, at).unwrap().unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(got.record_id(), Some("<b>"));
        assert_eq!((got.offset, got.within), (0, a.len() as u64));
        // The cache drops the oldest records past its bound.
        let mut recent = RecentRecords::default();
        let mut big = got.clone();
        big.block = Some(vec![0; SHARED_MEMBER_CACHE / 2 + 1]);
        recent.add(&big);
        big.within += 1;
        recent.add(&big);
        assert!(recent.get(at).is_none());
        assert_eq!(recent.records.len(), 1);
        assert_eq!(recent.bytes, SHARED_MEMBER_CACHE / 2 + 1);
    }

    /// Issue 24: two URLs never share a file; a file never takes a directory's name.
    #[test]
    fn extract_names_never_share_a_file() {
        let (names, collisions) = ExtractNames::assign([
            "http://h/a",
            "http://h/a/",
            "http://h/A.html",
            "http://h/a.html",
            "http://H/a.html",
            "http://h/a~2.html",
            "http://h/s.css?v=1",
            "http://h/a.html",
            "http://h/./s.css?v=1",
        ]);
        let file = |u: &str| names.file(u).unwrap().to_str().unwrap().to_owned();
        assert_eq!(file("http://h/a"), "h/a~2");
        assert_eq!(file("http://h/a/"), "h/a/index.html");
        assert_eq!(file("http://h/A.html"), "h/A.html");
        assert_eq!(file("http://h/a.html"), "h/a~2.html");
        assert_eq!(file("http://H/a.html"), "h/a~3.html");
        assert_eq!(file("http://h/a~2.html"), "h/a~2~2.html");
        assert_eq!(file("http://h/s.css?v=1"), "h/s.css?v=1");
        assert_eq!(file("http://h/./s.css?v=1"), "h/s~2.css?v=1");
        // A link to an equivalent spelling finds the first file of the name.
        assert_eq!(file("http://h/./A.html"), "h/A.html");
        assert_eq!(names.len(), 8);
        let moved: Vec<(&str, &str, bool)> = collisions
            .iter()
            .map(|c| (c.uri.as_str(), c.holder.as_str(), c.directory))
            .collect();
        assert_eq!(
            moved,
            [
                ("http://h/a", "http://h/a/", true),
                ("http://h/a.html", "http://h/A.html", false),
                ("http://H/a.html", "http://h/A.html", false),
                ("http://h/a~2.html", "http://h/a.html", false),
                ("http://h/./s.css?v=1", "http://h/s.css?v=1", false),
            ]
        );
        let long = format!("http://h/{}.html", "x".repeat(250));
        let (names, _) = ExtractNames::assign([
            long.as_str(),
            &format!("http://h/./{}.html", "x".repeat(250)),
        ]);
        let f = names
            .file(&format!("http://h/./{}.html", "x".repeat(250)))
            .unwrap();
        assert!(f.file_name().unwrap().len() <= EXTRACT_NAME_MAX);
        assert!(f.to_str().unwrap().ends_with("~2.html"));
    }

    /// Issue 24: a redirect to an extracted file is followed, in chains, within bounds; one
    /// with a file of its own, or leading nowhere extracted, is not.
    #[test]
    fn extract_redirects_lead_to_the_file_of_their_target() {
        let (mut names, _) = ExtractNames::assign(["http://h/new.html", "http://h/kept"]);
        let r = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        let mut loop_ = vec![
            r("http://h/l1", "http://h/l2"),
            r("http://h/l2", "http://h/l1"),
        ];
        loop_.extend([
            r("http://h/old", "http://h/older"),
            r("http://h/older", "http://h/new.html"),
            r("http://h/kept", "http://h/new.html"),
            r("http://h/out", "http://elsewhere/"),
        ]);
        assert_eq!(names.follow(&loop_), 2);
        let file = |u: &str| names.file(u).map(|p| p.to_str().unwrap().to_owned());
        assert_eq!(file("http://h/old").as_deref(), Some("h/new.html"));
        assert_eq!(file("http://h/older").as_deref(), Some("h/new.html"));
        assert_eq!(file("http://h/kept").as_deref(), Some("h/kept"));
        assert_eq!(file("http://h/out"), None);
        assert_eq!(file("http://h/l1"), None);
    }

    #[test]
    fn extracted_pages_link_to_each_other_relatively() {
        use crate::rewrite::Relink as _;
        let (names, collisions) = ExtractNames::assign([
            "http://h/a/b.html",
            "http://h/",
            "http://h/s?q=1",
            "http://other/x.html",
        ]);
        assert!(collisions.is_empty());
        let r = ExtractRelinker::new(std::sync::Arc::new(names));
        let rel = |d: &str, u: &str| r.relink(d, u);
        assert_eq!(
            rel("http://h/a/b.html", "http://h/").as_deref(),
            Some("../index.html")
        );
        assert_eq!(
            rel("http://h/", "http://h/a/b.html#t").as_deref(),
            Some("a/b.html#t")
        );
        assert_eq!(
            rel("http://h/", "http://h/s?q=1").as_deref(),
            Some("s%3Fq=1")
        );
        assert_eq!(
            rel("http://h/a/b.html", "http://other/x.html").as_deref(),
            Some("../../other/x.html")
        );
        assert_eq!(
            rel("http://h/a/b.html", "http://h/a/b.html#x").as_deref(),
            Some("#x")
        );
        assert_eq!(rel("http://h/", "http://h/missing.html"), None);
    }

    #[test]
    fn name_uuids_are_version_5() {
        let u = name_uuid(b"x");
        assert_eq!(u.len(), 36);
        assert_eq!(u.as_bytes()[14], b'5');
    }
}
