//! The archive reader: records in order, revisits resolved against their originals (in the
//! same file, in a shared gzip member, or before a byte range), damage reported.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use super::payload::*;
use super::record::*;
use crate::base::BaseLayers;
use crate::error::{Diagnostic, Error};
use crate::input::arc::{ArcReader, Framing};
pub use crate::input::warc::RecordRef;
use crate::input::warc::{self, Item, Record, WarcReader};
use crate::input::Headers;

/// Where an archive's bytes are: a file (opened again to read a revisit's original and, for a
/// rewrite, to copy its records), or memory.
#[derive(Debug, Clone)]
pub(crate) enum Store {
    File(std::path::PathBuf),
    Memory(std::sync::Arc<[u8]>),
}

/// An archive's bytes opened for reading: a buffered file, or a cursor over memory.
pub(crate) enum Stored {
    File(BufReader<File>),
    Memory(io::Cursor<std::sync::Arc<[u8]>>),
}

impl Store {
    /// The bytes from their start, buffered by `capacity` bytes (a file's).
    pub(crate) fn open(&self, capacity: usize) -> io::Result<Stored> {
        Ok(match self {
            Store::File(path) => {
                Stored::File(BufReader::with_capacity(capacity, File::open(path)?))
            }
            Store::Memory(bytes) => Stored::Memory(io::Cursor::new(bytes.clone())),
        })
    }
}

impl io::Read for Stored {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stored::File(f) => f.read(buf),
            Stored::Memory(m) => m.read(buf),
        }
    }
}

impl BufRead for Stored {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Stored::File(f) => f.fill_buf(),
            Stored::Memory(m) => m.fill_buf(),
        }
    }
    fn consume(&mut self, amount: usize) {
        match self {
            Stored::File(f) => f.consume(amount),
            Stored::Memory(m) => m.consume(amount),
        }
    }
}

impl Seek for Stored {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            Stored::File(f) => f.seek(to),
            Stored::Memory(m) => m.seek(to),
        }
    }
}

/// A WARC file, read record by record.
pub struct Archive {
    store: Store,
    /// How it is named in errors.
    name: String,
    reader: Framing<Stored>,
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
            .field("store", &self.store)
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
pub(super) struct RecentRecords {
    pub(super) records: HashMap<warc::Place, Record>,
    order: std::collections::VecDeque<warc::Place>,
    pub(super) bytes: usize,
}

impl RecentRecords {
    pub(super) fn add(&mut self, record: &Record) {
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

    pub(super) fn get(&self, at: warc::Place) -> Option<&Record> {
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
        let name = path.display().to_string();
        Archive::open_store(Store::File(path.to_owned()), &name, options, start, end)
    }

    /// An archive (WARC or ARC) held in memory; `name` names it in errors.
    ///
    /// # Errors
    /// [`Error::Io`] when its first record cannot be read (a gzip header that is not one).
    pub fn from_bytes(
        bytes: impl Into<std::sync::Arc<[u8]>>,
        name: &str,
        options: ArchiveOptions,
    ) -> Result<Archive, Error> {
        Archive::open_store(Store::Memory(bytes.into()), name, options, 0, None)
    }

    pub(crate) fn open_store(
        store: Store,
        name: &str,
        options: ArchiveOptions,
        start: u64,
        end: Option<u64>,
    ) -> Result<Archive, Error> {
        let io_error = |source| Error::Io {
            input: name.to_owned(),
            source,
        };
        let mut file = store.open(256 * 1024).map_err(io_error)?;
        // The rule every input is classified by: an ARC file by its content, else its name.
        let arc = start == 0
            && end.is_none()
            && crate::input::classify(name, file.fill_buf().map_err(io_error)?)
                == crate::input::InputKind::Arc;
        let reader = if arc {
            Framing::Arc(Box::new(
                ArcReader::new(file).map_err(io_error)?.keep(wanted),
            ))
        } else if start == 0 && end.is_none() {
            Framing::Warc(WarcReader::new(file).map_err(io_error)?.keep(wanted))
        } else {
            Framing::Warc(
                WarcReader::range(file, start, end)
                    .map_err(io_error)?
                    .keep(wanted),
            )
        };
        Ok(Archive {
            store,
            name: name.to_owned(),
            reader,
            options,
            originals: HashMap::new(),
            recent: RecentRecords::default(),
            counts: Counts::default(),
            others: false,
            unindexed_prefix: (start > 0).then_some(start),
        })
    }

    /// The same archive opened again, from its first record, with the same options.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be opened.
    pub fn reopen(&self) -> Result<Archive, Error> {
        Archive::open_store(
            self.store.clone(),
            &self.name,
            self.options.clone(),
            0,
            None,
        )
    }

    /// Indexes the originals before the range ([`Archive::open_range`]), as a whole read would
    /// have indexed them by now.
    fn index_prefix(&mut self) {
        let Some(start) = self.unindexed_prefix.take() else {
            return;
        };
        let Ok(file) = self.store.open(8 * 1024) else {
            return;
        };
        let Ok(reader) = WarcReader::range(file, 0, Some(start)) else {
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

    /// Whether it is an ARC file (read as WARC records).
    pub fn is_arc(&self) -> bool {
        matches!(self.reader, Framing::Arc(_))
    }

    /// Where its bytes are.
    pub(crate) fn store(&self) -> &Store {
        &self.store
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
                None => read_record_at(&self.store, found.at).ok()??,
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
                None => read_record_at(&self.store, found.at).ok()??,
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
pub(super) fn read_record_at(store: &Store, at: warc::Place) -> io::Result<Option<Record>> {
    let mut file = store.open(8 * 1024)?;
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
    let target = outer.target_uri();
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
    if target.is_none() {
        // No retrieval URI (§5.1.3): the links are still read when a base can come from
        // elsewhere (a `<base>`, the archived Content-Location or Content-Base, the default
        // base), as webarchive-commons reads them; else the record is skipped, and said.
        let elsewhere = options.default_base.is_some()
            || http.as_ref().is_some_and(|h| {
                h.get("Content-Location").is_some() || h.get("Content-Base").is_some()
            })
            || memchr::memmem::find(&payload.to_ascii_lowercase(), b"<base").is_some();
        if !elsewhere {
            return Err((
                SkipReason::NoTargetUri,
                Some(
                    "a response without WARC-Target-URI, and nothing else to give its base (no \
                     <base>, archived Content-Location or Content-Base, or --default-base): its \
                     links cannot be resolved"
                        .to_owned(),
                ),
            ));
        }
        diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::WarcRecord,
            "no WARC-Target-URI: its base is its <base>, its archived Content-Location or \
             Content-Base, or the default base, without a retrieval URI (RFC 2396 §5.1.3)"
                .to_owned(),
        ));
    }
    let mut layers = BaseLayers {
        retrieval_uri: target.map(str::to_owned),
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
        content_type: essence(content_type.as_deref()).unwrap_or_else(|| "text/html".to_owned()),
        diagnostics,
        revisit_of: None,
        damage: record.damage.clone(),
    })
}

/// The record a `response` or `resource` is when it is not a document for the pipeline (see
/// [`OtherRecord`]): its payload decoded as [`HtmlRecord`]'s is.
pub(super) fn other_of(record: &Record) -> Result<OtherRecord, (SkipReason, Option<String>)> {
    record.target_uri().ok_or((
        SkipReason::NoTargetUri,
        Some("a response without WARC-Target-URI: no URL to name its file by".to_owned()),
    ))?;
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
