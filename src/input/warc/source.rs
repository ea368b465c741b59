//! The bytes of a WARC file: plain, or gzip members (one per record, or one for the whole
//! file), read with their places; a block cut short or running long salvaged up to the next
//! record.

use std::io::{self, BufRead, Read, Seek, SeekFrom};

use super::record::*;

/// The decompressed byte stream, with the file offsets a record needs.
pub(super) struct Source<R: BufRead + Seek> {
    pub(super) inner: Inner<R>,
    pub(super) buf: Vec<u8>,
    pub(super) pos: usize,
    /// Bytes pushed back (a record found again inside an over-long block).
    pub(super) pending: Vec<u8>,
    pub(super) pending_pos: usize,
    /// Decompressed bytes consumed so far (for a `.warc`, the file offset).
    pub(super) consumed: u64,
    /// The file offset of the gzip member the buffer's bytes come from.
    pub(super) member_start: u64,
    /// `consumed` where that member's first decompressed byte is: a record's place inside a
    /// member that holds several (`gzip file.warc` makes one member of the whole file).
    pub(super) member_base: u64,
    /// The file's length, once a `.warc.gz` has been read to its end.
    pub(super) eof_at: Option<u64>,
    /// A stream error met while looking ahead, for the next read to report.
    pub(super) stashed: Option<io::Error>,
}

pub(super) enum Inner<R: BufRead + Seek> {
    Plain(R),
    Gzip(Box<Option<flate2::bufread::GzDecoder<R>>>),
}

impl<R: BufRead + Seek> Source<R> {
    pub(super) fn new(inner: R, gzip: bool, start: u64) -> Source<R> {
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

    pub(super) fn is_gzip(&self) -> bool {
        matches!(self.inner, Inner::Gzip(_))
    }

    /// The offset a record starting at the next byte is named by.
    pub(super) fn record_offset(&self) -> u64 {
        match self.inner {
            Inner::Plain(_) => self.position(),
            Inner::Gzip(_) => self.member_start,
        }
    }

    /// The file offset here, when it is a boundary a whole record can be copied up to: in a
    /// `.warc`, always; in a `.warc.gz`, when the member ends here.
    pub(super) fn boundary(&mut self) -> Option<u64> {
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
    pub(super) fn fill(&mut self) -> io::Result<usize> {
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
    pub(super) fn next_member(&mut self) -> io::Result<bool> {
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

    pub(super) fn chunk(&self) -> &[u8] {
        if self.pending_pos < self.pending.len() {
            self.pending.get(self.pending_pos..).unwrap_or_default()
        } else {
            self.buf.get(self.pos..).unwrap_or_default()
        }
    }

    pub(super) fn consume(&mut self, n: usize) {
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

    pub(super) fn at_eof(&mut self) -> bool {
        matches!(self.fill(), Ok(0))
    }

    pub(super) fn push_back(&mut self, mut bytes: Vec<u8>) {
        bytes.extend_from_slice(self.pending.get(self.pending_pos..).unwrap_or_default());
        self.pending = bytes;
        self.pending_pos = 0;
    }

    /// Skips CR and LF bytes; false at the end of the input.
    pub(super) fn skip_blank_lines(&mut self) -> io::Result<bool> {
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
    pub(super) fn read_header(&mut self) -> io::Result<Option<Vec<u8>>> {
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
    pub(super) fn skip_to_record(&mut self, mut keep: Option<(&mut Vec<u8>, u64)>) -> Skip {
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
    pub(super) fn place(&self) -> Place {
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
    pub(super) fn read_vec(&mut self, length: u64, out: &mut Vec<u8>) -> io::Result<()> {
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
    pub(super) fn discard(&mut self, length: u64, done: &mut u64) -> io::Result<()> {
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
    pub(super) fn position(&self) -> u64 {
        let pending = self.pending.len().saturating_sub(self.pending_pos) as u64;
        self.consumed.saturating_sub(pending)
    }

    /// Goes back to a block's start (`position`, and `at`, its place, as they were there) to
    /// read it again; `seen` is what was read of it since, when it was kept. A `.warc` is sought
    /// back; in a `.warc.gz`, the bytes seen are pushed back while the read stayed in the
    /// record's member, else the member is decompressed again up to the block.
    pub(super) fn reread_from(
        &mut self,
        position: u64,
        at: Place,
        seen: Option<Vec<u8>>,
    ) -> io::Result<()> {
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
    pub(super) fn seek_within(&mut self, at: Place) -> io::Result<()> {
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

    pub(super) fn read_up_to(&mut self, out: &mut [u8]) -> io::Result<usize> {
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
    pub(super) fn resync(&mut self) -> io::Result<bool> {
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

/// How far [`Source::skip_to_record`] went.
pub(super) struct Skip {
    /// Bytes skipped (the next record's version line not counted).
    pub(super) read: u64,
    /// What ended the skip.
    pub(super) end: SkipEnd,
    /// The bytes passed the bound they were kept within.
    pub(super) overflow: bool,
    /// The last bytes skipped (up to 16).
    pub(super) tail: Vec<u8>,
}

pub(super) enum SkipEnd {
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

/// The magic bytes of a gzip member (RFC 1952 §2.3.1: ID1, ID2, CM = deflate).
pub(super) const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// A record's header block is never longer than this (fastwarc and warcio use 32–64 KiB).
pub(super) const MAX_HEADER: usize = 64 * 1024;

/// Buffer of decompressed bytes; also how far the start of a file is searched for gzip.
pub(super) const CHUNK: usize = 64 * 1024;
