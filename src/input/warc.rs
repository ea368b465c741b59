//! ① WARC records (ISO 28500: WARC/1.0 and WARC/1.1), one at a time, from a `.warc` or a
//! `.warc.gz` (one gzip member per record, as the standard's Annex D has it), in memory that does
//! not grow with the archive.
//!
//! A damaged archive is read as far as it can be, as warcio does: a truncated or corrupt gzip
//! member (the first one included), a `Content-Length` that does not end where the record ends or
//! runs past the end of the file, garbage between records. A record whose `Content-Length` is off
//! (or whose terminator is short) is read again from its block's start up to the next `WARC/1.`
//! version line, and that is its block when it is within [`SALVAGE_SLACK`] of the length declared;
//! a record the archive ends inside is read as far as it goes ([`Record::truncated`]). Such a
//! record says what was wrong ([`Record::damage`]). What cannot be read is an [`Item::Damaged`]
//! naming the offset and how many bytes were skipped to which offset, and reading goes on at the
//! next record: the next gzip member after the damaged record's, or the next `WARC/1.` version
//! line from the start of the damaged block (at a line start or not: damage need not end with a
//! newline). Nothing is dropped without a word. A `.warc.gz` made of one member (`gzip
//! file.warc`) is read record by record too; offsets inside it are [`Place`]s.
//!
//! Why not a WARC crate: `fastwarc` 2.0 and `warc` 0.4 were measured on the corpus archive
//! (BENCHMARKS.md): both read it fast, but both stop at the first damaged record, and `fastwarc`
//! returns a truncated last record as if it were whole. The framing is a few lines; the
//! recovery is the point, so it is ours. gzip is `flate2`.

use std::io::{self, BufRead, Read, Seek, SeekFrom};

use super::headers::Headers;

/// The magic bytes of a gzip member (RFC 1952 §2.3.1: ID1, ID2, CM = deflate).
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
/// A record's header block is never longer than this (fastwarc and warcio use 32–64 KiB).
const MAX_HEADER: usize = 64 * 1024;
/// Buffer of decompressed bytes; also how far the start of a file is searched for gzip.
const CHUNK: usize = 64 * 1024;

/// Whether `head` (the first bytes of a file) is a WARC file: `WARC/` or a gzip member. A gzip
/// member is only taken for WARC when it decompresses to `WARC/`.
pub fn looks_like_warc(head: &[u8]) -> bool {
    if head.starts_with(b"WARC/") {
        return true;
    }
    if !head.starts_with(&GZIP_MAGIC) {
        return false;
    }
    let mut out = [0u8; 5];
    let mut dec = flate2::bufread::GzDecoder::new(head);
    let mut n = 0;
    while n < out.len() {
        match dec.read(out.get_mut(n..).unwrap_or_default()) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    out.get(..n) == Some(&b"WARC/"[..])
}

/// One WARC record: its header fields and, when kept, its block.
#[derive(Debug, Clone)]
pub struct Record {
    /// Where it starts in the file: the record's first byte, or for `.warc.gz` the start of
    /// the gzip member that holds it (as CDX indexes give it).
    pub offset: u64,
    /// Where it starts in its gzip member, when the member holds several records (`gzip
    /// file.warc`): the decompressed bytes before it; 0 otherwise. See [`WarcReader::skip_within`].
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
    /// The block, when it was kept (see [`WarcReader::keep`]).
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
    fn new(at: Place, record_id: Option<String>, message: String) -> Damage {
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
        if let Some(id) = &self.record_id {
            write!(f, " (record {id})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// What reading gave next.
#[derive(Debug, Clone)]
pub enum Item {
    /// A whole record.
    Record(Record),
    /// Damage, skipped; reading goes on after it.
    Damaged(Damage),
}

/// Decides from a record's fields and length whether its block is held.
type Keep = dyn FnMut(&Headers, u64) -> bool + Send + Sync;

/// Reads records from a WARC file (`R` is usually a `BufReader<File>`; seeking is needed to
/// resume after a corrupt gzip member).
pub struct WarcReader<R: BufRead + Seek> {
    src: Source<R>,
    keep: Box<Keep>,
    done: bool,
    /// [`WarcReader::range`]: reading ends at the first record (or damage) at or past this
    /// offset.
    stop: Option<u64>,
}

impl<R: BufRead + Seek> std::fmt::Debug for WarcReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarcReader")
            .field("gzip", &self.src.is_gzip())
            .finish_non_exhaustive()
    }
}

impl<R: BufRead + Seek> WarcReader<R> {
    /// A reader of the archive in `inner`, positioned at a record (the start of the file, or a
    /// record's [`Record::offset`]). gzip is recognised by its magic bytes.
    pub fn new(mut inner: R) -> io::Result<WarcReader<R>> {
        let start = inner.stream_position()?;
        // The first bytes, read and then sought back over (a buffer may hold fewer).
        let mut head = Vec::with_capacity(CHUNK);
        (&mut inner).take(CHUNK as u64).read_to_end(&mut head)?;
        inner.seek(SeekFrom::Start(start))?;
        // gzip when it starts with a member, and also when a damaged first member is followed
        // by one (one bad byte in the first header must not make the file unreadable): the
        // damaged member is then reported and skipped like any other.
        Ok(WarcReader {
            src: Source::new(inner, is_gzip_head(&head), start),
            keep: Box::new(|_, _| true),
            done: false,
            stop: None,
        })
    }

    /// A reader of the records of the archive in `inner` that start in the byte range
    /// `start..end` (`None`: to the end of the file), to split one archive into tasks.
    ///
    /// Both ends are moved to the first record boundary at or after them ([`next_boundary`]):
    /// the reader starts at `start`'s and gives every record and every damage up to, and
    /// without, the first at or past `end`'s, reading the last record whole past `end` if need
    /// be. Ranges that meet (`a..b`, `b..c`) therefore give each record of the file exactly
    /// once, wherever the cut falls: inside a gzip member, on a boundary, inside a record. A
    /// `.warc.gz` made of one member (`gzip file.warc`) has no boundary inside it: the range
    /// holding offset 0 reads it all, the others nothing.
    ///
    /// # Errors
    /// When the file cannot be read or sought.
    pub fn range(mut inner: R, start: u64, end: Option<u64>) -> io::Result<WarcReader<R>> {
        inner.seek(SeekFrom::Start(0))?;
        let mut head = Vec::with_capacity(CHUNK);
        (&mut inner).take(CHUNK as u64).read_to_end(&mut head)?;
        let gzip = is_gzip_head(&head);
        let from = next_boundary(&mut inner, start, gzip)?;
        let stop = match end {
            Some(end) => next_boundary(&mut inner, end, gzip)?,
            None => None,
        };
        let begin = from.unwrap_or(0);
        inner.seek(SeekFrom::Start(begin))?;
        Ok(WarcReader {
            src: Source::new(inner, gzip, begin),
            keep: Box::new(|_, _| true),
            // No boundary at or after `start`: nothing starts in the range.
            done: from.is_none(),
            stop,
        })
    }

    /// Which blocks to hold in memory, from the record's header fields and `Content-Length`;
    /// the others are skipped as they are read (a video record of gigabytes costs no memory).
    pub fn keep(mut self, keep: impl FnMut(&Headers, u64) -> bool + Send + Sync + 'static) -> Self {
        self.keep = Box::new(keep);
        self
    }

    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.src.is_gzip()
    }

    fn read_record(&mut self) -> Option<Item> {
        // Blank lines between records are tolerated (some writers emit extra CRLFs).
        match self.src.skip_blank_lines() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => return Some(self.damaged_stream(e, None)),
        }
        let at = self.src.place();
        if self.stop.is_some_and(|stop| at.offset >= stop) {
            // WarcReader::range: the next range's first record.
            return None;
        }
        let header = match self.src.read_header() {
            Ok(h) => h,
            Err(e) => return Some(self.damaged_stream(e, Some(at))),
        };
        let Some(header) = header else {
            let skip = self.src.skip_to_record(None);
            return Some(Item::Damaged(Damage::new(
                at,
                None,
                format!("not a WARC record (no WARC/ version line){skip}"),
            )));
        };
        let (version, headers) = parse_header(&header);
        let id = headers.get("WARC-Record-ID").map(str::to_owned);
        let Some(length) = headers
            .get("Content-Length")
            .and_then(|v| v.trim().parse::<u64>().ok())
        else {
            let skip = self.src.skip_to_record(None);
            return Some(Item::Damaged(Damage::new(
                at,
                id,
                format!("no valid Content-Length{skip}"),
            )));
        };
        // Where the block starts, to read it again when its length proves wrong.
        let block_start = self.src.position();
        let block_at = self.src.place();
        let keep = (self.keep)(&headers, length);
        let mut block = Vec::new();
        let mut got = 0;
        let read = if keep {
            let r = self.src.read_vec(length, &mut block);
            got = block.len() as u64;
            r
        } else {
            self.src.discard(length, &mut got)
        };
        let mut record = Record {
            offset: at.offset,
            within: at.within,
            raw_end: None,
            version,
            headers,
            content_length: length,
            block: keep.then_some(block),
            damage: None,
            truncated: false,
        };
        if let Err(e) = read {
            if e.kind() != io::ErrorKind::UnexpectedEof {
                // A corrupt member: the records in between are read again from the next one.
                self.src.member_start = block_at.offset;
                return Some(self.damaged_stream(e, Some(at)).with_id(id, length));
            }
            // A truncated gzip member: the block is read as far as it goes (warcio and pywb
            // read it too), and reading goes on at a later member, if there is one.
            record.truncated = true;
            record.damage = Some(format!(
                "truncated: {e}, {got} bytes into a block of Content-Length {length}; read as far as it goes"
            ));
            if !matches!(self.src.resync(), Ok(true)) {
                self.done = true;
            }
            return Some(Item::Record(record));
        }
        // The block is followed by CRLF CRLF (ISO 28500 §4).
        let mut tail = [0u8; 4];
        let tail_got = match self.src.read_up_to(&mut tail) {
            Ok(n) => n,
            Err(e) => return Some(self.damaged_stream(e, Some(at)).with_id(id, length)),
        };
        let tail = tail.get(..tail_got).unwrap_or_default();
        let whole = got == length
            && (tail == b"\r\n\r\n"
                || tail == b"\n\n"
                || (tail_got < 4
                    && tail.iter().all(|b| *b == b'\r' || *b == b'\n')
                    && self.src.at_eof()));
        if whole {
            record.raw_end = self.src.boundary();
            return Some(Item::Record(record));
        }
        // A Content-Length that does not end the record (too short, too long, past the end of
        // the file) or a terminator short of a line end. The next record may start inside the
        // claimed block: the block is read again from its start up to the next version line, as
        // warcio resynchronises, and is the record's block when it is near the length declared.
        let seen = record.block.take().map(|mut b| {
            b.extend_from_slice(tail);
            b
        });
        if let Err(e) = self.src.reread_from(block_start, block_at, seen) {
            self.done = true;
            return Some(Item::Damaged(Damage::new(
                at,
                id,
                format!("Content-Length {length} does not end at the record's end; then: {e}"),
            )));
        }
        let mut salvaged = Vec::new();
        let bound = length.saturating_add(SALVAGE_SLACK);
        let skip = self
            .src
            .skip_to_record(keep.then_some((&mut salvaged, bound)));
        if skip.overflow {
            // Far from the length declared: not this record's block.
            let what = if got < length {
                "runs past the end of the archive"
            } else {
                "does not end at the record's end"
            };
            return Some(Item::Damaged(Damage::new(
                at,
                id,
                format!("Content-Length {length} {what}{skip}"),
            )));
        }
        // What ends the block: its terminator, whole or in part; none when the archive ends
        // inside the block.
        let real = skip.read - terminator_len(&skip.tail).min(skip.read);
        let truncated = got < length && matches!(skip.end, SkipEnd::Eof) && real == skip.read;
        let found = match skip.end {
            SkipEnd::Record(next) => format!("the next record, at {next}"),
            SkipEnd::Eof => "the end of the archive".to_owned(),
            SkipEnd::Damage => "the damage said next".to_owned(),
        };
        record.damage = Some(if truncated {
            format!(
                "truncated: the archive ends {real} bytes into a block of Content-Length {length}; read as far as it goes"
            )
        } else if real == length {
            format!(
                "the block is not followed by CRLF CRLF (ISO 28500 §4) but by {} bytes up to {found}; read whole",
                skip.read - real
            )
        } else {
            format!(
                "Content-Length {length} does not end at the record's end: its block is {real} bytes, read up to {found}"
            )
        });
        record.truncated = truncated;
        if keep {
            salvaged.truncate(usize::try_from(real).unwrap_or(usize::MAX));
            record.block = Some(salvaged);
        }
        if matches!(skip.end, SkipEnd::Eof) {
            record.raw_end = self.src.boundary();
        }
        Some(Item::Record(record))
    }

    /// The stream failed (a corrupt or truncated gzip member, or a short read): say so, and go
    /// on at the next member or record.
    fn damaged_stream(&mut self, e: io::Error, at: Option<Place>) -> Item {
        let at = at.unwrap_or_else(|| self.src.place());
        let what = if e.kind() == io::ErrorKind::UnexpectedEof {
            "truncated: the archive ends inside this record".to_owned()
        } else {
            e.to_string()
        };
        match self.src.resync() {
            Ok(true) => {}
            Ok(false) => self.done = true,
            Err(_) => self.done = true,
        }
        Item::Damaged(Damage::new(at, None, what))
    }

    /// Skips `n` decompressed bytes: from a gzip member's start to a record inside it
    /// ([`Record::within`]).
    ///
    /// # Errors
    /// When the stream fails.
    pub fn skip_within(mut self, n: u64) -> io::Result<Self> {
        let mut done = 0;
        self.src.discard(n, &mut done)?;
        Ok(self)
    }
}

/// Whether a file starting with `head` is read as gzip: it starts with a member, or a damaged
/// first member is followed by one (one bad byte in the first header must not make the file
/// unreadable: the damaged member is then reported and skipped like any other).
fn is_gzip_head(head: &[u8]) -> bool {
    head.starts_with(&GZIP_MAGIC)
        || (!head.starts_with(b"WARC/")
            && (head.starts_with(&GZIP_MAGIC[..1])
                || memchr::memmem::find(head, &GZIP_MAGIC).is_some()))
}

/// The first record boundary at or after `from` in a WARC file, where [`WarcReader::range`]
/// starts and stops; `None` when there is none before the end of the file. 0 is a boundary.
///
/// In a `.warc.gz` a boundary is a gzip member that decompresses to `WARC/`. In a `.warc` it is
/// a `WARC/1.` version line at a line start whose header gives a `Content-Length` ending in
/// CRLF CRLF followed by the end of the file or another `WARC/` line: a payload quoting a
/// whole WARC record (an archived `.warc`, uncompressed) can pass for one, so uncompressed
/// archives of archives are read unsplit.
///
/// # Errors
/// When the file cannot be read or sought.
pub fn next_boundary<R: BufRead + Seek>(
    inner: &mut R,
    from: u64,
    gzip: bool,
) -> io::Result<Option<u64>> {
    if from == 0 {
        return Ok(Some(0));
    }
    // In a .warc the byte before the version line is searched too: it must end a line.
    let (needle, back): (&[u8], u64) = if gzip {
        (&GZIP_MAGIC, 0)
    } else {
        (b"\nWARC/1.", 1)
    };
    let mut at = from - back;
    let mut buf = Vec::with_capacity(CHUNK);
    loop {
        inner.seek(SeekFrom::Start(at))?;
        buf.clear();
        (&mut *inner).take(CHUNK as u64).read_to_end(&mut buf)?;
        let mut i = 0;
        while let Some(k) = buf
            .get(i..)
            .and_then(|rest| memchr::memmem::find(rest, needle))
        {
            let candidate = at + (i + k) as u64 + back;
            if record_starts_at(inner, candidate, gzip)? {
                return Ok(Some(candidate));
            }
            i += k + 1;
        }
        if buf.len() < CHUNK {
            return Ok(None);
        }
        // The needle may straddle two chunks.
        at += (buf.len() - (needle.len() - 1)) as u64;
    }
}

/// Whether a record starts at `at` (see [`next_boundary`]).
fn record_starts_at<R: BufRead + Seek>(inner: &mut R, at: u64, gzip: bool) -> io::Result<bool> {
    inner.seek(SeekFrom::Start(at))?;
    let mut head = Vec::new();
    let want = if gzip { CHUNK } else { MAX_HEADER + 4 };
    (&mut *inner).take(want as u64).read_to_end(&mut head)?;
    if gzip {
        return Ok(head.starts_with(&GZIP_MAGIC) && looks_like_warc(&head));
    }
    let crlf = memchr::memmem::find(&head, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = memchr::memmem::find(&head, b"\n\n").map(|i| (i, i + 2));
    let Some((header_end, block_start)) = (match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }) else {
        return Ok(false);
    };
    let (_, headers) = parse_header(head.get(..header_end).unwrap_or_default());
    let Some(length) = headers
        .get("Content-Length")
        .and_then(|v| v.trim().parse::<u64>().ok())
    else {
        return Ok(false);
    };
    let Some(block_end) = at
        .checked_add(block_start as u64)
        .and_then(|s| s.checked_add(length))
    else {
        return Ok(false);
    };
    inner.seek(SeekFrom::Start(block_end))?;
    let mut tail = Vec::with_capacity(16);
    (&mut *inner).take(16).read_to_end(&mut tail)?;
    let ends = tail
        .iter()
        .take_while(|b| **b == b'\r' || **b == b'\n')
        .count();
    let next = tail.get(ends..).unwrap_or_default();
    Ok((tail.starts_with(b"\r\n\r\n") || tail.starts_with(b"\n\n"))
        && (next.is_empty() || next.starts_with(b"WARC/") || b"WARC/".starts_with(next)))
}

/// How many bytes at the end of `bytes` are a record's terminator (CRLF CRLF, or what there is
/// of it): the last line ends, at most two.
fn terminator_len(bytes: &[u8]) -> u64 {
    let mut rest = bytes;
    let mut n = 0;
    for _ in 0..2 {
        if let Some(r) = rest.strip_suffix(b"\r\n") {
            rest = r;
            n += 2;
        } else if let Some(r) = rest.strip_suffix(b"\n") {
            rest = r;
            n += 1;
        } else {
            break;
        }
    }
    n
}

/// Where a record is: its [`Record::offset`], and its place in its gzip member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Place {
    /// The file offset (of the record, or of the gzip member holding it).
    pub offset: u64,
    /// In a gzip member that holds several records: how many decompressed bytes of it come
    /// before this record (0 for the first, and in a `.warc`).
    pub within: u64,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "offset {}", self.offset)?;
        if self.within > 0 {
            write!(f, " (byte {} of its gzip member)", self.within)?;
        }
        Ok(())
    }
}

/// How far [`Source::skip_to_record`] went.
struct Skip {
    /// Bytes skipped (the next record's version line not counted).
    read: u64,
    /// What ended the skip.
    end: SkipEnd,
    /// The bytes passed the bound they were kept within.
    overflow: bool,
    /// The last bytes skipped (up to 16).
    tail: Vec<u8>,
}

enum SkipEnd {
    Record(Place),
    Eof,
    Damage,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let read = self.read;
        match self.end {
            SkipEnd::Record(at) => write!(f, "; skipped {read} bytes to the next record, at {at}"),
            SkipEnd::Eof => write!(f, "; skipped {read} bytes to the end of the archive"),
            SkipEnd::Damage => write!(f, "; skipped {read} bytes, up to the damage said next"),
        }
    }
}

impl Item {
    fn with_id(self, id: Option<String>, length: u64) -> Item {
        match self {
            Item::Damaged(mut d) => {
                d.record_id = id;
                d.message = format!("{} (Content-Length {length})", d.message);
                Item::Damaged(d)
            }
            other => other,
        }
    }
}

impl<R: BufRead + Seek> Iterator for WarcReader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if self.done {
            return None;
        }
        let item = self.read_record();
        if item.is_none() {
            self.done = true;
        }
        item
    }
}

/// The version line and the fields of a header block (without its final blank line).
fn parse_header(block: &[u8]) -> (String, Headers) {
    // Field values are UTF-8 in WARC/1.1 (§4); other bytes become replacement characters.
    let text = String::from_utf8_lossy(block);
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let version = first.trim_end_matches('\r').trim().to_owned();
    let mut headers = Headers::new();
    let mut last: Option<(String, String)> = None;
    for line in rest.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.starts_with([' ', '\t']) {
            // Folded continuation (ISO 28500 §4, as RFC 2616).
            if let Some((_, v)) = &mut last {
                v.push(' ');
                v.push_str(line.trim());
            }
            continue;
        }
        if let Some((n, v)) = last.take() {
            headers.push_field(&n, &v);
        }
        if let Some((name, value)) = line.split_once(':') {
            if !name.trim().is_empty() {
                last = Some((name.trim().to_owned(), value.trim().to_owned()));
            }
        }
    }
    if let Some((n, v)) = last {
        headers.push_field(&n, &v);
    }
    (version, headers)
}

/// The decompressed byte stream, with the file offsets a record needs.
struct Source<R: BufRead + Seek> {
    inner: Inner<R>,
    buf: Vec<u8>,
    pos: usize,
    /// Bytes pushed back (a record found again inside an over-long block).
    pending: Vec<u8>,
    pending_pos: usize,
    /// Decompressed bytes consumed so far (for a `.warc`, the file offset).
    consumed: u64,
    /// The file offset of the gzip member the buffer's bytes come from.
    member_start: u64,
    /// `consumed` where that member's first decompressed byte is: a record's place inside a
    /// member that holds several (`gzip file.warc` makes one member of the whole file).
    member_base: u64,
    /// The file's length, once a `.warc.gz` has been read to its end.
    eof_at: Option<u64>,
    /// A stream error met while looking ahead, for the next read to report.
    stashed: Option<io::Error>,
}

enum Inner<R: BufRead + Seek> {
    Plain(R),
    Gzip(Box<Option<flate2::bufread::GzDecoder<R>>>),
}

impl<R: BufRead + Seek> Source<R> {
    fn new(inner: R, gzip: bool, start: u64) -> Source<R> {
        Source {
            inner: if gzip {
                Inner::Gzip(Box::new(Some(flate2::bufread::GzDecoder::new(inner))))
            } else {
                Inner::Plain(inner)
            },
            buf: Vec::new(),
            pos: 0,
            pending: Vec::new(),
            pending_pos: 0,
            consumed: start,
            member_start: start,
            member_base: start,
            eof_at: None,
            stashed: None,
        }
    }

    fn is_gzip(&self) -> bool {
        matches!(self.inner, Inner::Gzip(_))
    }

    /// The offset a record starting at the next byte is named by.
    fn record_offset(&self) -> u64 {
        match self.inner {
            Inner::Plain(_) => self.position(),
            Inner::Gzip(_) => self.member_start,
        }
    }

    /// The file offset here, when it is a boundary a whole record can be copied up to: in a
    /// `.warc`, always; in a `.warc.gz`, when the member ends here.
    fn boundary(&mut self) -> Option<u64> {
        match &mut self.inner {
            Inner::Plain(_) => Some(self.consumed),
            Inner::Gzip(_) => {
                if self.pos < self.buf.len() || self.pending_pos < self.pending.len() {
                    return None;
                }
                // Read on: a member ending here shows as the next fill starting a new one.
                let before = self.member_start;
                match self.fill() {
                    Ok(0) => self.eof_at,
                    Ok(_) if self.member_start != before => Some(self.member_start),
                    Ok(_) => None,
                    Err(e) => {
                        // The next member is damaged: this record still ended its own. The error
                        // is the next read's, which reports it and resynchronises.
                        self.stashed = Some(e);
                        (self.member_start != before).then_some(self.member_start)
                    }
                }
            }
        }
    }

    /// Refills the buffer when it is empty; the number of bytes available.
    fn fill(&mut self) -> io::Result<usize> {
        if let Some(e) = self.stashed.take() {
            return Err(e);
        }
        if self.pending_pos < self.pending.len() {
            return Ok(self.pending.len() - self.pending_pos);
        }
        if self.pos < self.buf.len() {
            return Ok(self.buf.len() - self.pos);
        }
        self.buf.resize(CHUNK, 0);
        self.pos = 0;
        loop {
            let n = match &mut self.inner {
                Inner::Plain(r) => r.read(&mut self.buf),
                Inner::Gzip(d) => match d.as_mut() {
                    Some(d) => d.read(&mut self.buf),
                    None => Ok(0),
                },
            };
            let n = match n {
                Ok(n) => n,
                Err(e) => {
                    self.buf.clear();
                    let at = self.member_start;
                    return Err(io::Error::new(
                        e.kind(),
                        if e.kind() == io::ErrorKind::UnexpectedEof {
                            format!("gzip member at offset {at} is truncated")
                        } else {
                            format!("gzip member at offset {at} is corrupt ({e})")
                        },
                    ));
                }
            };
            if n > 0 {
                self.buf.truncate(n);
                return Ok(n);
            }
            // End of a gzip member: another may follow.
            if !self.next_member()? {
                self.buf.clear();
                return Ok(0);
            }
        }
    }

    /// Starts the next gzip member, if the file has one.
    fn next_member(&mut self) -> io::Result<bool> {
        let Inner::Gzip(slot) = &mut self.inner else {
            return Ok(false);
        };
        let Some(dec) = slot.as_mut() else {
            return Ok(false);
        };
        let r = dec.get_mut();
        if r.fill_buf()?.is_empty() {
            // Stays at EOF: the finished decoder gives 0 again, and a resync can still seek.
            self.eof_at = Some(r.stream_position()?);
            return Ok(false);
        }
        let Some(dec) = slot.take() else {
            return Ok(false);
        };
        let mut r = dec.into_inner();
        self.member_start = r.stream_position()?;
        self.member_base = self.consumed;
        **slot = Some(flate2::bufread::GzDecoder::new(r));
        Ok(true)
    }

    fn chunk(&self) -> &[u8] {
        if self.pending_pos < self.pending.len() {
            self.pending.get(self.pending_pos..).unwrap_or_default()
        } else {
            self.buf.get(self.pos..).unwrap_or_default()
        }
    }

    fn consume(&mut self, n: usize) {
        if self.pending_pos < self.pending.len() {
            self.pending_pos += n;
            if self.pending_pos >= self.pending.len() {
                self.pending.clear();
                self.pending_pos = 0;
            }
        } else {
            self.pos += n;
            self.consumed += n as u64;
        }
    }

    fn at_eof(&mut self) -> bool {
        matches!(self.fill(), Ok(0))
    }

    fn push_back(&mut self, mut bytes: Vec<u8>) {
        bytes.extend_from_slice(self.pending.get(self.pending_pos..).unwrap_or_default());
        self.pending = bytes;
        self.pending_pos = 0;
    }

    /// Skips CR and LF bytes; false at the end of the input.
    fn skip_blank_lines(&mut self) -> io::Result<bool> {
        loop {
            if self.fill()? == 0 {
                return Ok(false);
            }
            let c = self.chunk();
            let n = c
                .iter()
                .take_while(|b| **b == b'\r' || **b == b'\n')
                .count();
            let all = n == c.len();
            self.consume(n);
            if !all {
                return Ok(true);
            }
        }
    }

    /// The header block up to and without its blank line; `None` when the next bytes are not a
    /// version line (`WARC/`), or the block is past [`MAX_HEADER`].
    fn read_header(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.fill()? == 0 {
            return Ok(None);
        }
        let c = self.chunk();
        if !(c.starts_with(b"WARC/") || (c.len() < 5 && b"WARC/".starts_with(c))) {
            return Ok(None);
        }
        let mut header = Vec::new();
        // Where the current line starts in `header`: a line may arrive in pieces.
        let mut line_start = 0;
        loop {
            if self.fill()? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let c = self.chunk();
            match memchr::memchr(b'\n', c) {
                Some(i) => {
                    let line_len = i + 1;
                    header.extend_from_slice(c.get(..line_len).unwrap_or_default());
                    self.consume(line_len);
                    let line = header.get(line_start..).unwrap_or_default();
                    if line == b"\r\n" || line == b"\n" {
                        header.truncate(line_start);
                        return Ok(Some(header));
                    }
                    line_start = header.len();
                }
                None => {
                    let n = c.len();
                    header.extend_from_slice(c);
                    self.consume(n);
                }
            }
            if header.len() > MAX_HEADER {
                return Ok(None);
            }
        }
    }

    /// Skips to the next version line (`WARC/1.`), at a line start or not (damage need not end
    /// with a newline). The bytes skipped are appended to `keep`, when given, while it holds no
    /// more than its bound (a salvaged block, [`SALVAGE_SLACK`]).
    fn skip_to_record(&mut self, mut keep: Option<(&mut Vec<u8>, u64)>) -> Skip {
        const VERSION: &[u8] = b"WARC/1.";
        let mut read = 0u64;
        let mut overflow = false;
        // The last bytes skipped: the terminator of the record before, when there is one.
        let mut tail: Vec<u8> = Vec::with_capacity(32);
        // Bytes of VERSION matched so far. VERSION has no border (no proper prefix that is also
        // a suffix), so on a mismatch the match restarts at the mismatching byte: linear.
        let mut matched = 0;
        let end = loop {
            match self.fill() {
                Ok(0) => break SkipEnd::Eof,
                Ok(_) => {}
                Err(e) => {
                    // The next read reports it, and resynchronises.
                    self.stashed = Some(e);
                    break SkipEnd::Damage;
                }
            }
            let c = self.chunk();
            let mut n = 0;
            if matched == 0 {
                n = memchr::memchr(b'W', c).unwrap_or(c.len());
            }
            while matched < VERSION.len() {
                let Some(&b) = c.get(n) else {
                    break;
                };
                n += 1;
                if VERSION.get(matched) == Some(&b) {
                    matched += 1;
                } else {
                    matched = usize::from(b == b'W');
                    if matched == 0 {
                        break;
                    }
                }
            }
            if let Some((out, bound)) = keep.as_mut() {
                if out.len() as u64 + n as u64 > bound.saturating_add(VERSION.len() as u64) {
                    overflow = true;
                } else {
                    out.extend_from_slice(c.get(..n).unwrap_or_default());
                }
            }
            tail.extend_from_slice(c.get(n.saturating_sub(16)..n).unwrap_or_default());
            tail.drain(..tail.len().saturating_sub(16));
            self.consume(n);
            read += n as u64;
            if matched == VERSION.len() {
                self.push_back(VERSION.to_vec());
                read -= VERSION.len() as u64;
                tail.truncate(tail.len().saturating_sub(VERSION.len()));
                if let Some((out, _)) = keep.as_mut() {
                    out.truncate(out.len().saturating_sub(VERSION.len()));
                }
                break SkipEnd::Record(self.place());
            }
        };
        Skip {
            read,
            end,
            overflow,
            tail,
        }
    }

    /// The record starting at the next byte: its offset, and its place in its gzip member.
    fn place(&self) -> Place {
        Place {
            offset: self.record_offset(),
            within: match self.inner {
                Inner::Plain(_) => 0,
                Inner::Gzip(_) => self.position().saturating_sub(self.member_base),
            },
        }
    }

    /// Up to `length` bytes appended to `out`: fewer at the end of the input, or up to a stream
    /// error (what was read before it stays in `out`).
    fn read_vec(&mut self, length: u64, out: &mut Vec<u8>) -> io::Result<()> {
        out.reserve(usize::try_from(length.min(1 << 20)).unwrap_or(0));
        let mut left = length;
        while left > 0 {
            if self.fill()? == 0 {
                break;
            }
            let c = self.chunk();
            let n = c.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            out.extend_from_slice(c.get(..n).unwrap_or_default());
            self.consume(n);
            left -= n as u64;
        }
        Ok(())
    }

    /// Skips up to `length` bytes, counting them in `done` (up to a stream error too).
    fn discard(&mut self, length: u64, done: &mut u64) -> io::Result<()> {
        while *done < length {
            if self.fill()? == 0 {
                break;
            }
            let n = self
                .chunk()
                .len()
                .min(usize::try_from(length - *done).unwrap_or(usize::MAX));
            self.consume(n);
            *done += n as u64;
        }
        Ok(())
    }

    /// Where the next byte is: the file offset for a `.warc` (pushed-back bytes counted back).
    fn position(&self) -> u64 {
        let pending = self.pending.len().saturating_sub(self.pending_pos) as u64;
        self.consumed.saturating_sub(pending)
    }

    /// Goes back to a block's start (`position`, and `at`, its place, as they were there) to
    /// read it again; `seen` is what was read of it since, when it was kept. A `.warc` is sought
    /// back; in a `.warc.gz`, the bytes seen are pushed back while the read stayed in the
    /// record's member, else the member is decompressed again up to the block.
    fn reread_from(&mut self, position: u64, at: Place, seen: Option<Vec<u8>>) -> io::Result<()> {
        match (&mut self.inner, seen) {
            (Inner::Plain(r), _) => {
                r.seek(SeekFrom::Start(position))?;
                self.buf.clear();
                self.pos = 0;
                self.pending.clear();
                self.pending_pos = 0;
                self.consumed = position;
                Ok(())
            }
            (Inner::Gzip(_), Some(seen)) if self.member_start == at.offset => {
                self.push_back(seen);
                Ok(())
            }
            (Inner::Gzip(_), _) => self.seek_within(at),
        }
    }

    /// In a `.warc.gz`: decompresses the member at `at.offset` again, up to `at.within` (a
    /// record in a member that holds several). Costs the member's bytes up to there; holds none.
    fn seek_within(&mut self, at: Place) -> io::Result<()> {
        let Inner::Gzip(slot) = &mut self.inner else {
            return Ok(());
        };
        let Some(dec) = slot.take() else {
            return Ok(());
        };
        let mut r = dec.into_inner();
        r.seek(SeekFrom::Start(at.offset))?;
        **slot = Some(flate2::bufread::GzDecoder::new(r));
        self.stashed = None;
        self.buf.clear();
        self.pos = 0;
        self.pending.clear();
        self.pending_pos = 0;
        self.eof_at = None;
        self.member_start = at.offset;
        self.member_base = self.consumed;
        let mut done = 0;
        self.discard(at.within, &mut done)
    }

    fn read_up_to(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut got = 0;
        while got < out.len() {
            if self.fill()? == 0 {
                break;
            }
            let c = self.chunk();
            let n = c.len().min(out.len() - got);
            if let (Some(dst), Some(src)) = (out.get_mut(got..got + n), c.get(..n)) {
                dst.copy_from_slice(src);
            }
            self.consume(n);
            got += n;
        }
        Ok(got)
    }

    /// After a stream error: for gzip, go on at the next gzip member after the damaged one's
    /// start; false when there is none. A plain file has no stream errors to resume from.
    fn resync(&mut self) -> io::Result<bool> {
        self.stashed = None;
        self.buf.clear();
        self.pos = 0;
        self.pending.clear();
        self.pending_pos = 0;
        self.member_base = self.consumed;
        let Inner::Gzip(slot) = &mut self.inner else {
            return Ok(false);
        };
        let Some(dec) = slot.take() else {
            return Ok(false);
        };
        let mut r = dec.into_inner();
        r.seek(SeekFrom::Start(self.member_start + 1))?;
        let mut at = self.member_start + 1;
        loop {
            let c = r.fill_buf()?;
            if c.is_empty() {
                return Ok(false);
            }
            match memchr::memmem::find(c, &GZIP_MAGIC) {
                Some(i) => {
                    at += i as u64;
                    r.seek(SeekFrom::Start(at))?;
                    self.member_start = at;
                    self.eof_at = None;
                    **slot = Some(flate2::bufread::GzDecoder::new(r));
                    return Ok(true);
                }
                None => {
                    // Keep the last two bytes: the magic may straddle chunks.
                    let n = c.len().saturating_sub(2).max(1);
                    r.consume(n);
                    at += n as u64;
                }
            }
        }
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
        self.warc_record_id
            .as_deref()
            .unwrap_or("(no WARC-Record-ID)")
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use std::io::{Cursor, Write};

    fn record(kind: &str, uri: &str, block: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{uri}>\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        r.extend_from_slice(block);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap_or_default();
        e.finish().unwrap_or_default()
    }

    fn read_all(bytes: Vec<u8>) -> Vec<Item> {
        match WarcReader::new(Cursor::new(bytes)) {
            Ok(r) => r.collect(),
            Err(e) => panic!("{e}"),
        }
    }

    fn summary(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Record(r) => format!(
                    "{}@{}..{:?} {}{}",
                    r.target_uri().unwrap_or("-"),
                    if r.within > 0 {
                        format!("{}+{}", r.offset, r.within)
                    } else {
                        r.offset.to_string()
                    },
                    r.raw_end,
                    String::from_utf8_lossy(r.block.as_deref().unwrap_or_default()),
                    match (&r.damage, r.truncated) {
                        (Some(d), true) => format!(" [truncated] {d}"),
                        (Some(d), false) => format!(" [damaged] {d}"),
                        (None, _) => String::new(),
                    }
                ),
                Item::Damaged(d) => format!("damaged@{} {}", d.offset, d.message),
            })
            .collect()
    }

    /// The items of `bytes` read as the ranges cut at `cuts` (ascending), one after the other.
    fn read_ranges(bytes: &[u8], cuts: &[u64]) -> Vec<Item> {
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        let mut items = Vec::new();
        for (i, start) in bounds.iter().enumerate() {
            let end = bounds.get(i + 1).copied();
            let reader = WarcReader::range(Cursor::new(bytes.to_vec()), *start, end).unwrap();
            items.extend(reader);
        }
        items
    }

    /// Archives to split: records whose payloads hold `WARC/1.` lines and gzip's magic bytes.
    fn splittable() -> Vec<Vec<u8>> {
        let mut records = vec![record("warcinfo", "info", b"software: t\r\n")];
        for i in 0..6 {
            let block = format!(
                "HTTP/1.1 200 OK\r\n\r\n<pre>\nWARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n</pre>{}",
                "x".repeat(i * 37)
            );
            let mut block = block.into_bytes();
            block.extend_from_slice(&GZIP_MAGIC);
            records.push(record("response", &format!("http://h/{i}"), &block));
        }
        let plain: Vec<u8> = records.concat();
        let members: Vec<u8> = records.iter().flat_map(|r| gz(r)).collect();
        let one_member = gz(&plain);
        vec![plain, members, one_member]
    }

    #[test]
    fn ranges_cut_anywhere_read_every_record_once() {
        for bytes in splittable() {
            let whole = summary(&read_all(bytes.clone()));
            assert_eq!(whole.len(), 7);
            let len = bytes.len() as u64;
            // One cut at every byte: inside a record or a member, exactly at a boundary, at 0
            // and at the end.
            for cut in 0..=len {
                assert_eq!(summary(&read_ranges(&bytes, &[cut])), whole, "cut at {cut}");
            }
            // Many small ranges, of every width up to a record's length.
            for width in (1..300).step_by(7) {
                let cuts: Vec<u64> = (1..).map(|k| k * width).take_while(|c| *c < len).collect();
                assert_eq!(summary(&read_ranges(&bytes, &cuts)), whole, "width {width}");
            }
        }
    }

    #[test]
    fn ranges_start_at_record_boundaries() {
        let [plain, members, _] = <[Vec<u8>; 3]>::try_from(splittable()).unwrap();
        for (bytes, gzip) in [(plain, false), (members, true)] {
            let offsets: Vec<u64> = read_all(bytes.clone())
                .iter()
                .map(|i| match i {
                    Item::Record(r) => r.offset,
                    Item::Damaged(d) => panic!("{d}"),
                })
                .collect();
            let mut cursor = Cursor::new(bytes.clone());
            let mut found = Vec::new();
            let mut at = 0;
            while let Some(b) = next_boundary(&mut cursor, at, gzip).unwrap() {
                found.push(b);
                at = b + 1;
            }
            assert_eq!(found, offsets);
        }
    }

    #[test]
    fn damaged_archives_split_lose_nothing() {
        // Garbage between records, a Content-Length too long, a corrupt member.
        let (a, b, c) = (
            record("response", "http://h/a", b"aaaa"),
            record("response", "http://h/b", b"bbbb"),
            record("response", "http://h/c", b"cccc"),
        );
        let mut long = b.clone();
        let at = memchr::memmem::find(&long, b"Content-Length: 4").unwrap();
        long[at + 16] = b'9';
        let plain = [a.clone(), b"garbage\r\n".to_vec(), long, c.clone()].concat();
        let mut bad = gz(&b);
        let n = bad.len();
        bad[n / 2] ^= 0xff;
        let members = [gz(&a), bad, gz(&c)].concat();
        for bytes in [plain, members] {
            let whole = summary(&read_all(bytes.clone()));
            let records = |items: &[String]| -> Vec<String> {
                items
                    .iter()
                    .filter(|s| !s.starts_with("damaged"))
                    .cloned()
                    .collect()
            };
            for cut in 0..=bytes.len() as u64 {
                let got = summary(&read_ranges(&bytes, &[cut]));
                assert_eq!(records(&got), records(&whole), "cut at {cut}");
            }
        }
    }

    #[test]
    fn plain_records_with_offsets() {
        let a = record("response", "http://a/", b"AAA");
        let b = record("resource", "http://b/", b"");
        let mut file = a.clone();
        file.extend_from_slice(&b);
        let items = read_all(file);
        let end = a.len() + b.len();
        assert_eq!(
            summary(&items),
            [
                format!("http://a/@0..Some({}) AAA", a.len()),
                format!("http://b/@{}..Some({end}) ", a.len()),
            ]
        );
    }

    #[test]
    fn gzip_members_with_offsets() {
        let (a, b) = (
            gz(&record("response", "http://a/", b"AAA")),
            gz(&record("response", "http://b/", b"BB")),
        );
        let mut file = a.clone();
        file.extend_from_slice(&b);
        let total = file.len();
        assert!(looks_like_warc(&file));
        assert_eq!(
            summary(&read_all(file)),
            [
                format!("http://a/@0..Some({}) AAA", a.len()),
                format!("http://b/@{}..Some({total}) BB", a.len()),
            ]
        );
    }

    #[test]
    fn garbage_between_records_is_skipped_and_said() {
        let mut file = record("response", "http://a/", b"A");
        file.extend_from_slice(b"junk line\r\nmore junk\r\n");
        file.extend_from_slice(&record("response", "http://b/", b"B"));
        let s = summary(&read_all(file));
        assert_eq!(s.len(), 3);
        assert!(s[1].starts_with("damaged@"), "{s:?}");
        assert!(s[2].starts_with("http://b/@"), "{s:?}");
    }

    #[test]
    fn wrong_content_length_is_said_and_the_next_record_read() {
        for delta in [-2i64, 5, 40] {
            let mut a = record("response", "http://a/", b"0123456789");
            let cl = b"Content-Length: 10";
            let at = memchr::memmem::find(&a, cl).unwrap_or(0);
            let new = format!("Content-Length: {}", 10 + delta);
            a.splice(at..at + cl.len(), new.bytes());
            let next = a.len();
            a.extend_from_slice(&record("response", "http://b/", b"B"));
            a.extend_from_slice(&record("response", "http://c/", b"C"));
            let s = summary(&read_all(a));
            // Read up to the next record, as warcio does: the block and the records after.
            assert_eq!(
                s[0],
                format!("http://a/@0..None 0123456789 [damaged] Content-Length {} does not end at the record's end: its block is 10 bytes, read up to the next record, at offset {next}", 10 + delta),
                "{delta}"
            );
            assert!(s[1].starts_with("http://b/"), "{delta}: {s:?}");
            assert!(s[2].starts_with("http://c/"), "{delta}: {s:?}");
        }
    }

    #[test]
    fn truncated_and_corrupt_members_are_said() {
        let a = gz(&record("response", "http://a/", b"AAA"));
        let b = gz(&record("response", "http://b/", &[b'x'; 5000]));
        let c = gz(&record("response", "http://c/", b"C"));
        // A corrupt member in the middle: the next one is still read.
        let mut file = a.clone();
        let mut bad = b.clone();
        for x in bad.iter_mut().skip(20).take(30) {
            *x ^= 0x55;
        }
        file.extend_from_slice(&bad);
        file.extend_from_slice(&c);
        let s = summary(&read_all(file));
        assert!(s[0].starts_with("http://a/"), "{s:?}");
        assert!(s.iter().any(|x| x.starts_with("damaged@")), "{s:?}");
        assert!(
            s.last().is_some_and(|x| x.starts_with("http://c/")),
            "{s:?}"
        );
        // A truncated last member.
        let mut file = a.clone();
        file.extend_from_slice(b.get(..b.len() / 2).unwrap_or_default());
        let s = summary(&read_all(file));
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(
            s[1].starts_with(&format!("damaged@{} truncated", a.len())),
            "{s:?}"
        );
        // Garbage between members.
        let mut file = a.clone();
        file.extend_from_slice(b"GARBAGE\x1f\x8bGARBAGE");
        file.extend_from_slice(&c);
        let s = summary(&read_all(file));
        assert!(s[0].starts_with("http://a/"), "{s:?}");
        assert!(s.iter().any(|x| x.starts_with("damaged@")), "{s:?}");
        assert!(
            s.last().is_some_and(|x| x.starts_with("http://c/")),
            "{s:?}"
        );
    }

    /// A reader that hands out one byte at a time: every line of a header block arrives in
    /// pieces (a CR at the end of one buffer, its LF at the start of the next).
    struct Trickle(Cursor<Vec<u8>>);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }

    impl BufRead for Trickle {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            let pos = self.0.position() as usize;
            let data = self.0.get_ref();
            Ok(&data[pos.min(data.len())..(pos + 1).min(data.len())])
        }
        fn consume(&mut self, n: usize) {
            self.0.consume(n);
        }
    }

    impl Seek for Trickle {
        fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
            self.0.seek(pos)
        }
    }

    #[test]
    fn records_arriving_in_pieces_read_the_same() {
        let mut file = record("response", "http://a/", b"AAA");
        file.extend_from_slice(&record("response", "http://b/", b"BB"));
        for bytes in [file.clone(), gz(&file)] {
            let items: Vec<Item> = WarcReader::new(Trickle(Cursor::new(bytes)))
                .unwrap()
                .collect();
            let s = summary(&items);
            assert_eq!(s.len(), 2, "{s:?}");
            assert!(
                s[0].starts_with("http://a/") && s[0].ends_with(" AAA"),
                "{s:?}"
            );
            assert!(
                s[1].starts_with("http://b/") && s[1].ends_with(" BB"),
                "{s:?}"
            );
        }
    }

    #[test]
    fn blocks_not_kept_are_skipped() {
        let mut file = record("response", "http://a/", b"AAA");
        file.extend_from_slice(&record("metadata", "http://a/", b"META"));
        let items: Vec<Item> = match WarcReader::new(Cursor::new(file)) {
            Ok(r) => r
                .keep(|h, _| h.get("WARC-Type") == Some("response"))
                .collect(),
            Err(e) => panic!("{e}"),
        };
        let kept: Vec<bool> = items
            .iter()
            .map(|i| matches!(i, Item::Record(r) if r.block.is_some()))
            .collect();
        assert_eq!(kept, [true, false]);
    }

    #[test]
    fn arbitrary_bytes_never_panic_or_hang() {
        let base = {
            let mut f = record("response", "http://a/", b"AAA");
            f.extend_from_slice(&record("response", "http://b/", b"BB"));
            f
        };
        for cut in 0..base.len() {
            let _ = read_all(base.get(..cut).unwrap_or_default().to_vec());
            let _ = read_all(gz(base.get(..cut).unwrap_or_default()));
        }
    }

    /// Issue 21 D11: a `Content-Length` past the end of the file does not take the records
    /// after it along: the next `WARC/` line inside the claimed block ends the record.
    #[test]
    fn content_length_past_eof_keeps_the_records_after() {
        let (b, c) = (
            record("response", "http://b/", b"BB"),
            record("response", "http://c/", b"C"),
        );
        for claimed in [100u64, MAX_HEADER as u64 * 3, 1 << 40] {
            let mut a = record("response", "http://a/", b"AAA");
            let at = memchr::memmem::find(&a, b"Content-Length: 3").unwrap();
            a.splice(at..at + 17, format!("Content-Length: {claimed}").bytes());
            let mut file = a.clone();
            file.extend_from_slice(&b);
            file.extend_from_slice(&c);
            let (ab, end) = (a.len() + b.len(), file.len());
            assert_eq!(
                summary(&read_all(file)),
                [
                    format!("http://a/@0..None AAA [damaged] Content-Length {claimed} does not end at the record's end: its block is 3 bytes, read up to the next record, at offset {}", a.len()),
                    format!("http://b/@{}..Some({ab}) BB", a.len()),
                    format!("http://c/@{ab}..Some({end}) C"),
                ],
                "{claimed}"
            );
            // One member per record: the next member is the next record.
            let (a, b, c) = (gz(&a), gz(&b), gz(&c));
            let file = [a.clone(), b.clone(), c].concat();
            let (ab, end) = (a.len() + b.len(), file.len());
            assert_eq!(
                summary(&read_all(file)),
                [
                    format!("http://a/@0..None AAA [damaged] Content-Length {claimed} does not end at the record's end: its block is 3 bytes, read up to the next record, at offset {}", a.len()),
                    format!("http://b/@{}..Some({ab}) BB", a.len()),
                    format!("http://c/@{ab}..Some({end}) C"),
                ],
                "gzip {claimed}"
            );
        }
    }

    /// Issue 21 D12: damage that does not end with a newline does not swallow the intact record
    /// that follows it.
    #[test]
    fn damage_without_a_newline_does_not_swallow_the_next_record() {
        let a = record("response", "http://a/", b"A");
        let b = record("response", "http://b/", b"B");
        let mut file = a.clone();
        file.extend_from_slice(b"junk");
        file.extend_from_slice(&b);
        let at = a.len() + 4;
        let end = at + b.len();
        assert_eq!(
            summary(&read_all(file)),
            [
                format!("http://a/@0..Some({}) A", a.len()),
                format!(
                    "damaged@{} not a WARC record (no WARC/ version line); skipped 4 bytes to the next record, at offset {at}",
                    a.len()
                ),
                format!("http://b/@{at}..Some({end}) B"),
            ]
        );
        // A Content-Length two bytes short: the rest of the block and its CRLF CRLF are skipped
        // up to the next record, which is read whole.
        let mut a = record("response", "http://a/", b"0123456789");
        let at = memchr::memmem::find(&a, b"Content-Length: 10").unwrap();
        a.splice(at..at + 18, b"Content-Length: 8".iter().copied());
        let mut file = a.clone();
        file.extend_from_slice(&b);
        let end = a.len() + b.len();
        assert_eq!(
            summary(&read_all(file)),
            [
                format!("http://a/@0..None 0123456789 [damaged] Content-Length 8 does not end at the record's end: its block is 10 bytes, read up to the next record, at offset {}", a.len()),
                format!("http://b/@{}..Some({end}) B", a.len()),
            ]
        );
    }

    /// Issue 21 D13: one bad byte in the first gzip member's header costs that member only.
    #[test]
    fn a_bad_first_member_header_costs_that_member_only() {
        let a = gz(&record("response", "http://a/", b"AAA"));
        let b = gz(&record("response", "http://b/", b"BB"));
        for (at, byte) in [(0usize, 0x00u8), (1, 0x00), (2, 0x09), (3, 0xff)] {
            let mut bad = a.clone();
            bad[at] = byte;
            let mut file = bad.clone();
            file.extend_from_slice(&b);
            let s = summary(&read_all(file.clone()));
            assert_eq!(s.len(), 2, "byte {at}: {s:?}");
            assert!(s[0].starts_with("damaged@0 "), "byte {at}: {s:?}");
            assert_eq!(
                s[1],
                format!("http://b/@{}..Some({}) BB", a.len(), file.len()),
                "byte {at}"
            );
        }
    }

    /// Issue 23: a block read up to the next record is the record's only when it is near the
    /// length declared ([`SALVAGE_SLACK`]); a block not kept is found again in a gzip member
    /// holding several records by decompressing the member again.
    #[test]
    fn salvage_is_bounded_and_works_on_blocks_not_kept() {
        let big = vec![b'x'; SALVAGE_SLACK as usize + 100];
        let mut a = record("response", "http://a/", &big);
        let cl = format!("Content-Length: {}", big.len());
        let at = memchr::memmem::find(&a, cl.as_bytes()).unwrap();
        a.splice(at..at + cl.len(), b"Content-Length: 1".iter().copied());
        let b = record("response", "http://b/", b"B");
        let file = [a.clone(), b.clone()].concat();
        assert_eq!(
            summary(&read_all(file)),
            [
                format!(
                    "damaged@0 Content-Length 1 does not end at the record's end; skipped {} bytes to the next record, at offset {}",
                    big.len() + 4,
                    a.len()
                ),
                format!("http://b/@{}..Some({}) B", a.len(), a.len() + b.len()),
            ]
        );
        // One gzip member, blocks not kept, a Content-Length 3 bytes short.
        let mut a = record("metadata", "http://a/", b"0123456789");
        let at = memchr::memmem::find(&a, b"Content-Length: 10").unwrap();
        a.splice(at..at + 18, b"Content-Length: 7".iter().copied());
        let file = gz(&[a.clone(), b.clone()].concat());
        let end = file.len();
        let items: Vec<Item> = WarcReader::new(Cursor::new(file))
            .unwrap()
            .keep(|h, _| h.get("WARC-Type") == Some("response"))
            .collect();
        assert_eq!(
            summary(&items),
            [
                format!("http://a/@0..None  [damaged] Content-Length 7 does not end at the record's end: its block is 10 bytes, read up to the next record, at offset 0 (byte {} of its gzip member)", a.len()),
                format!("http://b/@0+{}..Some({end}) B", a.len()),
            ]
        );
    }

    /// Garbage after a member: the record before it still ends at its member's end, and the
    /// member after the garbage is read.
    #[test]
    fn garbage_after_a_member_keeps_both_neighbours() {
        let a = gz(&record("response", "http://a/", b"AAA"));
        let c = gz(&record("response", "http://c/", b"C"));
        let file = [a.clone(), b"GARBAGE".to_vec(), c.clone()].concat();
        let end = file.len();
        assert_eq!(
            summary(&read_all(file)),
            [
                format!("http://a/@0..Some({}) AAA", a.len()),
                format!(
                    "damaged@{} gzip member at offset {} is corrupt (invalid gzip header)",
                    a.len(),
                    a.len()
                ),
                format!("http://c/@{}..Some({end}) C", a.len() + 7),
            ]
        );
    }
}
