//! ① ARC files (the Internet Archive's format before WARC): what one looks like.
//!
//! An ARC file opens with a version block, a record whose URL line starts `filedesc://`:
//! `filedesc://NAME IP DATE text/plain LENGTH` (v1 and v2 alike). A `.arc.gz` holds one gzip
//! member per record, the version block first.

use std::io::{self, BufRead, Read, Seek, SeekFrom};

use super::headers::Headers;
use super::warc::{Damage, Item, Place, Record, WarcReader, SALVAGE_SLACK};

mod url_line;
mod write;

use url_line::{find_url_line, parse_url_line, trim_nl, MAX_LINE};
pub use write::{read_member, replace_payload};

/// The gzip magic and deflate method byte (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Whether `head` (the first bytes of a file) is an ARC file: it starts with an ARC version
/// block's URL line (`filedesc://`), or with a record's URL line (a file without its version
/// block, as jwat and warcio read it), plain or in a first gzip member that decompresses to
/// one.
pub fn looks_like_arc(head: &[u8]) -> bool {
    if head.starts_with(&GZIP_MAGIC) {
        let mut out = Vec::with_capacity(4096);
        let dec = flate2::bufread::GzDecoder::new(head);
        // A truncated member still gives what it decompressed so far.
        let _ = dec.take(4096).read_to_end(&mut out);
        return starts_arc(&out);
    }
    starts_arc(head)
}

/// `filedesc://…` (no other kind of input starts so; the rest of the line, even a damaged
/// one such as a length of `-1`, is the reader's to judge and report), or a whole URL line
/// ([`parse_url_line`]: a URL with its scheme, an IP address, a 12 to 14-digit date, a type, a
/// length) followed by a line end.
fn starts_arc(head: &[u8]) -> bool {
    if head.starts_with(b"filedesc://") {
        return true;
    }
    let Some(end) = memchr::memchr(b'\n', head) else {
        return false;
    };
    head.get(..end)
        .is_some_and(|line| parse_url_line(line, 1).is_some())
}

/// Reads the records of an ARC file (v1 or v2 URL lines; plain, or one gzip member per record)
/// as WARC [`Record`]s, so that everything built on the WARC reader reads ARC unchanged: the
/// version block (`filedesc://`) is a `warcinfo` record; a record whose block is an HTTP
/// response (`HTTP/…`) is a `response` (`Content-Type: application/http; msgtype=response`),
/// any other a `resource` with the URL line's content type. `WARC-Target-URI` is the URL line's
/// URL, `WARC-Date` its 14-digit date (`YYYY-MM-DDThh:mm:ssZ`), `WARC-IP-Address` its address.
/// ARC records have no ID: `WARC-Record-ID` is absent.
///
/// Damage is read past and said, never dropped in silence: a block that ends before its
/// `Archive-length` does (the rest of the file is shorter) is read as far as it goes and
/// flagged [`Record::truncated`]; an `Archive-length` that runs past the next URL line is cut
/// there, and one that ends before the next URL line is read up to it (up to
/// [`SALVAGE_SLACK`] further), each with [`Record::damage`]; bytes that are no record, and a
/// corrupt gzip member, are [`Item::Damaged`] naming the offset and what was skipped.
pub struct ArcReader<R: BufRead + Seek> {
    src: Stream<R>,
    keep: Box<Keep>,
    /// The URL-line layout: 1 (5 fields) or 2 (10 fields), from the version block.
    version: u8,
    done: bool,
    /// Where the record being read starts (blank lines before it passed): what an error names.
    record_start: u64,
    /// Nothing has been read yet: the first record should be the version block.
    first: bool,
}

type Keep = dyn FnMut(&Headers, u64) -> bool + Send + Sync;

impl<R: BufRead + Seek> std::fmt::Debug for ArcReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArcReader")
            .field("gzip", &self.src.gzip)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// An ARC date (`YYYYMMDDhhmmss`, or without the seconds) as a WARC date; another shape as is.
fn warc_date(date: &str) -> String {
    let d = date.as_bytes();
    let part = |r: std::ops::Range<usize>| d.get(r).and_then(|p| std::str::from_utf8(p).ok());
    match (
        part(0..4),
        part(4..6),
        part(6..8),
        part(8..10),
        part(10..12),
    ) {
        (Some(y), Some(mo), Some(da), Some(h), Some(mi)) => {
            let s = part(12..14).unwrap_or("00");
            format!("{y}-{mo}-{da}T{h}:{mi}:{s}Z")
        }
        _ => date.to_owned(),
    }
}

impl<R: BufRead + Seek> ArcReader<R> {
    /// A reader of the ARC file in `inner`, from its start. gzip is recognised by its magic
    /// bytes.
    ///
    /// # Errors
    /// When `inner` cannot be read.
    pub fn new(mut inner: R) -> io::Result<ArcReader<R>> {
        let gzip = inner.fill_buf()?.starts_with(&GZIP_MAGIC);
        let start = inner.stream_position()?;
        Ok(ArcReader {
            src: Stream::new(inner, gzip, start),
            keep: Box::new(|_, _| true),
            version: 1,
            done: false,
            record_start: 0,
            first: true,
        })
    }

    /// Which blocks to hold in memory, from the synthesized header fields and the length (as
    /// `WarcReader::keep`).
    #[must_use]
    pub fn keep(mut self, keep: impl FnMut(&Headers, u64) -> bool + Send + Sync + 'static) -> Self {
        self.keep = Box::new(keep);
        self
    }

    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.src.gzip
    }

    fn damaged(&mut self, at: u64, message: String) -> Item {
        Item::Damaged(Damage {
            offset: self.src.place(at).offset,
            within: self.src.place(at).within,
            record_id: None,
            message,
        })
    }

    /// Reads lines from the current position until one is a URL line (left unread) or the
    /// file ends; how many bytes were passed.
    fn skip_to_url_line(&mut self) -> io::Result<u64> {
        let mut skipped = 0;
        loop {
            let Some(line) = self.src.read_line()? else {
                return Ok(skipped);
            };
            if parse_url_line(trim_nl(&line), self.version).is_some() {
                self.src.unread(line);
                return Ok(skipped);
            }
            skipped += line.len() as u64;
        }
    }

    /// Where a skip to the next URL line stopped: `the next URL line, at …` or `the end of the
    /// file`.
    fn upto_note(&self) -> String {
        if self.src.at_eof() {
            "the end of the file".to_owned()
        } else {
            format!("the next URL line, at {}", self.src.place(self.src.logical))
        }
    }

    /// Whether the next line is a URL line (left unread).
    fn next_is_url_line(&mut self) -> io::Result<bool> {
        let Some(line) = self.src.read_line()? else {
            return Ok(false);
        };
        let url = parse_url_line(trim_nl(&line), self.version).is_some();
        self.src.unread(line);
        Ok(url)
    }

    fn skip_note(&mut self, skipped: u64) -> String {
        let end = self.src.logical;
        if self.src.at_eof() {
            format!("; {skipped} bytes skipped to the end of the file")
        } else {
            format!(
                "; {skipped} bytes skipped to the next URL line, at {}",
                self.src.place(end)
            )
        }
    }

    fn read_item(&mut self) -> io::Result<Option<Item>> {
        // Blank lines between records (the terminator, and extra ones) are tolerated.
        let first = std::mem::take(&mut self.first);
        let line = loop {
            match self.src.read_line()? {
                // An empty file is no archive (an ARC file opens with its version block).
                None if first => return Ok(Some(
                    self.damaged(
                        0,
                        "the file is empty: no ARC record, not even the filedesc:// version block \
                         an ARC file opens with"
                            .to_owned(),
                    ),
                )),
                None => return Ok(None),
                Some(l) if trim_nl(&l).iter().all(|b| b.is_ascii_whitespace()) => {}
                Some(l) => break l,
            }
        };
        let at = self.src.logical - line.len() as u64;
        self.record_start = at;
        let Some(url_line) = parse_url_line(trim_nl(&line), self.version) else {
            let skipped = line.len() as u64 + self.skip_to_url_line()?;
            let note = self.skip_note(skipped);
            return Ok(Some(
                self.damaged(at, format!("not an ARC record (no URL line){note}")),
            ));
        };
        let length = url_line.length;
        let mut headers = Headers::new();
        let filedesc = url_line.url.starts_with("filedesc://");
        headers.push_line(&format!("WARC-Target-URI: {}", url_line.url));
        headers.push_line(&format!("WARC-Date: {}", warc_date(&url_line.date)));
        headers.push_line(&format!("WARC-IP-Address: {}", url_line.ip));
        headers.push_line(&format!("Content-Length: {length}"));
        // Whether the block is a response is known once it is read: it is asked as one.
        let mut asked = headers.clone();
        asked.push_line("WARC-Type: response");
        // The version block is held for its first byte (the version); one past `MAX_LINE` is a
        // hostile length, streamed past like any block not wanted, so memory stays bounded.
        let keep = (filedesc && length <= MAX_LINE as u64) || (self.keep)(&asked, length);
        let block_at = self.src.logical;
        let mut block = Vec::new();
        let mut damage = None;
        let mut truncated = false;
        // Lengths that prove wrong where a block is not held, read past as WARC's are: the
        // bytes up to the next URL line are the block, and that is said.
        let mut handled = false;
        let got = if filedesc && length > MAX_LINE as u64 {
            // A version block is a few lines: a length past MAX_LINE is no version block's.
            let passed = self.skip_to_url_line()?;
            let upto = self.upto_note();
            damage = Some(format!(
                "the version block's Archive-length {length} is past the {} KiB a version block \
                 may have: its block is read up to {upto}, {passed} bytes",
                MAX_LINE >> 10
            ));
            handled = true;
            passed
        } else if keep {
            self.src.read_upto(length, Some(&mut block))?
        } else if self.src.gzip {
            // A record is a gzip member of its own: a block that runs on into a member starting
            // with a URL line ends with its member.
            let (got, cut) = self.src.discard_in_member(length)?;
            if cut && self.next_is_url_line()? {
                damage = Some(format!(
                    "Archive-length {length} runs past its gzip member, {got} bytes into its \
                     block: the block ends with its member"
                ));
                handled = true;
                got
            } else {
                got + self.src.read_upto(length - got, None)?
            }
        } else {
            let got = self.src.read_upto(length, None)?;
            if got < length && self.src.rewind_plain(block_at)? {
                // Past the end of the file: read again from the block's start, up to the next
                // URL line.
                let passed = self.skip_to_url_line()?;
                if self.src.at_eof() {
                    passed
                } else {
                    damage = Some(format!(
                        "Archive-length {length} runs past the end of the file: the block is read \
                         up to the next URL line, {passed} bytes into it"
                    ));
                    handled = true;
                    passed
                }
            } else {
                got
            }
        };
        // What follows must be the end, or (after newlines) the next URL line.
        let follows_well = |s: &mut Self| -> io::Result<bool> {
            let mut newlines = Vec::new();
            loop {
                match s.src.read_line()? {
                    None => {
                        s.src.unread(newlines);
                        return Ok(true);
                    }
                    Some(l) if trim_nl(&l).is_empty() => newlines.extend_from_slice(&l),
                    Some(l) => {
                        let ok = parse_url_line(trim_nl(&l), s.version).is_some();
                        newlines.extend_from_slice(&l);
                        s.src.unread(newlines);
                        return Ok(ok);
                    }
                }
            }
        };
        if handled {
            // Said above.
        } else if got < length {
            // The file ends inside the block. A URL line inside it means the length was too
            // long: the block ends there, and the rest is read again as records.
            if let Some(cut) = find_url_line(&block, self.version) {
                let rest = block.split_off(cut);
                let kept = block.len() as u64;
                block.truncate(trim_nl(&block).len());
                self.src.unread(rest);
                damage = Some(format!(
                    "Archive-length {length} runs past the next URL line, {kept} bytes into its \
                     block: the block is read up to it"
                ));
            } else {
                truncated = true;
                damage = Some(format!(
                    "the file ends {got} bytes into its {length}-byte block: read as far as it goes"
                ));
            }
        } else if !follows_well(self)? {
            // Too long, and the file goes on past the block: the next URL line starts inside
            // the block (and may end after it); the block is cut there.
            let next = self.src.read_line()?.unwrap_or_default();
            let mut probe = block.clone();
            probe.extend_from_slice(&next);
            let cut = keep
                .then(|| find_url_line(&probe, self.version))
                .flatten()
                .filter(|&c| c <= block.len());
            if let Some(cut) = cut {
                let rest = probe.split_off(cut);
                block = probe;
                let kept = block.len() as u64;
                block.truncate(trim_nl(&block).len());
                self.src.unread(rest);
                damage = Some(format!(
                    "Archive-length {length} runs past the next URL line, {kept} bytes into its \
                     block: the block is read up to it"
                ));
            } else {
                self.src.unread(next);
                // Too short: the block goes on to the next URL line.
                let mut extra = Vec::new();
                let mut passed = 0u64;
                let mut upto = "the end of the file";
                while let Some(l) = self.src.read_line()? {
                    if parse_url_line(trim_nl(&l), self.version).is_some() {
                        self.src.unread(l);
                        upto = "the next URL line";
                        break;
                    }
                    passed += l.len() as u64;
                    if passed <= SALVAGE_SLACK {
                        extra.extend_from_slice(&l);
                    }
                }
                if passed <= SALVAGE_SLACK {
                    let real = trim_nl(&extra).len();
                    extra.truncate(real);
                    if keep {
                        block.extend_from_slice(&extra);
                    }
                    damage = Some(format!(
                        "Archive-length {length} ends {real} bytes before {upto}: the block is \
                         read up to it"
                    ));
                } else {
                    let note = self.skip_note(passed);
                    let item = self.damaged(
                        block_at + length,
                        format!("bytes after the record's Archive-length ({length}) that are no record{note}"),
                    );
                    self.src.pending_item = Some(item);
                    damage = Some(format!(
                        "Archive-length {length} does not end the record (what follows is no URL line)"
                    ));
                }
            }
        }
        if first && !filedesc {
            // jwat and warcio read such a file's records; it is said, as damage read past.
            let missing = "the file has no version block (its first record is not a filedesc:// \
                           one): its records are read by their URL lines";
            damage = Some(match damage {
                Some(d) => format!("{missing}; {d}"),
                None => missing.to_owned(),
            });
        }
        let http = block.starts_with(b"HTTP/");
        let kind = if filedesc {
            "warcinfo"
        } else if http {
            "response"
        } else {
            "resource"
        };
        if filedesc {
            if let Some(v) = block.first().filter(|b| b.is_ascii_digit()) {
                self.version = v - b'0';
            }
        }
        headers.push_line(&format!("WARC-Type: {kind}"));
        if http {
            headers.push_line("Content-Type: application/http; msgtype=response");
        } else if !url_line.content_type.is_empty() && url_line.content_type != "no-type" {
            headers.push_line(&format!("Content-Type: {}", url_line.content_type));
        }
        let place = self.src.place(at);
        let raw_end = (!self.src.gzip).then_some(self.src.logical);
        Ok(Some(Item::Record(Record {
            offset: place.offset,
            within: place.within,
            raw_end,
            version: format!("ARC/{}", self.version),
            headers,
            content_length: length,
            block: keep.then_some(block),
            damage,
            truncated,
        })))
    }
}

impl<R: BufRead + Seek> Iterator for ArcReader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if let Some(item) = self.src.pending_item.take() {
            return Some(item);
        }
        if self.done {
            return None;
        }
        self.record_start = self.src.logical;
        match self.read_item() {
            Ok(Some(item)) => Some(item),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                // A corrupt gzip member (or a read error): said, and reading resumes at the
                // next member, if the file is gzip.
                let from = self.src.place(self.record_start);
                let resumed = self.src.resync_member();
                let note = match resumed {
                    Some(offset) => format!("skipped to the next gzip member, at offset {offset}"),
                    None => {
                        self.done = true;
                        "the rest of the file is skipped".to_owned()
                    }
                };
                Some(Item::Damaged(Damage {
                    offset: from.offset,
                    within: from.within,
                    record_id: None,
                    message: format!("cannot be read ({e}); {note}"),
                }))
            }
        }
    }
}

/// What an archive's records are read from: a WARC reader or an ARC reader, behind one
/// iterator of WARC [`Item`]s (`archive::Archive` holds one).
pub enum Framing<R: BufRead + Seek> {
    /// ISO 28500.
    Warc(WarcReader<R>),
    /// The Internet Archive's ARC, read as WARC records ([`ArcReader`]).
    Arc(Box<ArcReader<R>>),
}

impl<R: BufRead + Seek> Framing<R> {
    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        match self {
            Framing::Warc(r) => r.is_gzip(),
            Framing::Arc(r) => r.is_gzip(),
        }
    }
}

impl<R: BufRead + Seek> Iterator for Framing<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        match self {
            Framing::Warc(r) => r.next(),
            Framing::Arc(r) => r.next(),
        }
    }
}

/// The file's bytes, decompressed when it is gzip (member after member), with bytes put back
/// in front, and where each gzip member starts.
struct Stream<R: BufRead + Seek> {
    gzip: bool,
    /// The plain file, or the file between gzip members.
    inner: Option<R>,
    member: Option<flate2::bufread::GzDecoder<R>>,
    /// Bytes put back, read first (in order).
    front: Vec<u8>,
    /// Where reading is, in the decompressed bytes.
    logical: u64,
    /// Where gzip members start: (decompressed position, file offset), the last few.
    members: Vec<(u64, u64)>,
    /// Where the file starts.
    start: u64,
    eof: bool,
    /// Damage found while reading a record, given after it.
    pending_item: Option<Item>,
}

impl<R: BufRead + Seek> Stream<R> {
    fn new(inner: R, gzip: bool, start: u64) -> Stream<R> {
        Stream {
            gzip,
            inner: Some(inner),
            member: None,
            front: Vec::new(),
            logical: 0,
            members: Vec::new(),
            start,
            eof: false,
            pending_item: None,
        }
    }

    /// The file offset of decompressed position `at` (for gzip, its member's, and how far
    /// into the member it is).
    fn place(&self, at: u64) -> Place {
        if !self.gzip {
            return Place {
                offset: self.start + at,
                within: 0,
            };
        }
        let (from, offset) = self
            .members
            .iter()
            .rev()
            .find(|(l, _)| *l <= at)
            .copied()
            .unwrap_or((0, self.start));
        Place {
            offset,
            within: at - from,
        }
    }

    fn at_eof(&self) -> bool {
        self.eof && self.front.is_empty()
    }

    /// Raw bytes into `buf` (0 at the end of the file).
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.eof {
            return Ok(0);
        }
        if !self.gzip {
            let n = match &mut self.inner {
                Some(r) => r.read(buf)?,
                None => 0,
            };
            self.eof = n == 0;
            return Ok(n);
        }
        loop {
            if let Some(m) = &mut self.member {
                let n = m.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                // The member ended: the file goes on after it.
                self.inner = self
                    .member
                    .take()
                    .map(flate2::bufread::GzDecoder::into_inner);
                continue;
            }
            let Some(mut inner) = self.inner.take() else {
                self.eof = true;
                return Ok(0);
            };
            if inner.fill_buf()?.is_empty() {
                self.inner = Some(inner);
                self.eof = true;
                return Ok(0);
            }
            let offset = inner.stream_position()?;
            // The position the pending bytes in front were read at is already counted.
            let logical = self.logical + self.front.len() as u64;
            self.members.push((logical, offset));
            if self.members.len() > 64 {
                self.members.remove(0);
            }
            self.member = Some(flate2::bufread::GzDecoder::new(inner));
        }
    }

    /// Makes `front` hold at least one byte, unless the file has ended.
    fn more(&mut self) -> io::Result<bool> {
        if !self.front.is_empty() {
            return Ok(true);
        }
        let mut buf = vec![0u8; 64 * 1024];
        let n = self.fill(&mut buf)?;
        buf.truncate(n);
        self.front = buf;
        Ok(n > 0)
    }

    /// The next line with its `\n` (the last one may have none); `None` at the end. A line
    /// longer than [`MAX_LINE`] is given in pieces.
    fn read_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        while self.more()? {
            let (take, done) = match memchr::memchr(b'\n', &self.front) {
                Some(i) => (i + 1, true),
                None => (self.front.len(), false),
            };
            let take = take.min(MAX_LINE - line.len());
            line.extend(self.front.drain(..take));
            self.logical += take as u64;
            if done || line.len() >= MAX_LINE {
                break;
            }
        }
        Ok((!line.is_empty()).then_some(line))
    }

    /// Reads `n` bytes (fewer at the end of the file) into `out`, or past them; how many.
    fn read_upto(&mut self, n: u64, mut out: Option<&mut Vec<u8>>) -> io::Result<u64> {
        let mut got = 0u64;
        while got < n && self.more()? {
            let take = (n - got).min(self.front.len() as u64) as usize;
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(self.front.get(..take).unwrap_or_default());
            }
            self.front.drain(..take);
            got += take as u64;
            self.logical += take as u64;
        }
        Ok(got)
    }

    /// Reads past `n` bytes (fewer at the end of the file), stopping early where a gzip member
    /// starts after the first byte: how many, and whether it stopped so.
    fn discard_in_member(&mut self, n: u64) -> io::Result<(u64, bool)> {
        let mut got = 0u64;
        while got < n {
            if self.front.is_empty() {
                let members = self.members.len();
                let at = self.logical;
                if !self.more()? {
                    break;
                }
                let started = self.members.len() > members
                    || self
                        .members
                        .last()
                        .is_some_and(|m| m.0 == at && members == 0);
                if started && got > 0 && self.members.last().is_some_and(|m| m.0 == at) {
                    return Ok((got, true));
                }
            }
            let take = (n - got).min(self.front.len() as u64) as usize;
            self.front.drain(..take);
            got += take as u64;
            self.logical += take as u64;
        }
        Ok((got, false))
    }

    /// In a plain file, goes back to decompressed position `to` (the file's own): `false` for
    /// gzip, which cannot.
    fn rewind_plain(&mut self, to: u64) -> io::Result<bool> {
        if self.gzip {
            return Ok(false);
        }
        let Some(inner) = self.inner.as_mut() else {
            return Ok(false);
        };
        inner.seek(SeekFrom::Start(self.start + to))?;
        self.front.clear();
        self.logical = to;
        self.eof = false;
        Ok(true)
    }

    /// Puts `bytes` back in front, to be read again.
    fn unread(&mut self, mut bytes: Vec<u8>) {
        self.logical -= bytes.len() as u64;
        bytes.append(&mut self.front);
        self.front = bytes;
    }

    /// After a corrupt gzip member: reading goes on at the next gzip magic in the file after
    /// the member's start; its offset, or `None` when there is none (or the file is plain).
    fn resync_member(&mut self) -> Option<u64> {
        if !self.gzip {
            return None;
        }
        let start = self.members.last().map(|m| m.1)?;
        let mut inner = match self.member.take() {
            Some(m) => m.into_inner(),
            None => self.inner.take()?,
        };
        inner.seek(SeekFrom::Start(start + 1)).ok()?;
        let mut pos = start + 1;
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let buf = inner.fill_buf().ok()?;
            if buf.is_empty() {
                self.eof = true;
                self.front.clear();
                return None;
            }
            let mut hay = std::mem::take(&mut carry);
            let base = pos - hay.len() as u64;
            hay.extend_from_slice(buf);
            let n = buf.len();
            if let Some(i) = memchr::memmem::find(&hay, &GZIP_MAGIC) {
                let found = base + i as u64;
                inner.seek(SeekFrom::Start(found)).ok()?;
                self.front.clear();
                self.inner = Some(inner);
                return Some(found);
            }
            inner.consume(n);
            pos += n as u64;
            carry = hay
                .get(hay.len().saturating_sub(2)..)
                .unwrap_or_default()
                .to_vec();
        }
    }
}

#[cfg(test)]
mod sniff_tests;

#[cfg(test)]
mod write_tests;
