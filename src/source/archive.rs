//! A WARC or ARC file's documents: each HTML record ([`crate::archive::Archive`]: payloads
//! decoded, revisits resolved), with the damage and the records skipped said beside them. A
//! rewrite copies every record as it is and adds, right after each record whose links changed,
//! a WARC `conversion` record of its new payload; ARC has no conversion records, so such a
//! record is replaced where it stands by the same record with the new payload
//! ([`crate::input::arc::replace_payload`]).

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use super::document::{Back, Body, Document, Item, Kind, Layers, RecordBack, Skipped};
use super::input::Loaded;
use super::reader::{Reader, Summary, WriteBack, Wrote};
use crate::archive::{Archive, ArchiveOptions, Event, HtmlRecord, Store};
use crate::error::Error;
use crate::input::warc::Place;
use crate::report::Origin;

/// How much more than a record's payload its gzip member may decompress to (the URL line and
/// the archived HTTP head) before it is taken to hold more than the record.
const MEMBER_SLACK: u64 = 1 << 20;

/// The records of an archive.
pub(crate) struct Records {
    name: String,
    archive: Archive,
    /// What comes before the next document (damage it was read past).
    pending: Option<Item<'static>>,
    /// The `WARC-Date` of the conversion records of this run.
    date: Arc<str>,
    /// A rewrite: the input copied up to a record boundary at a time, and the conversion records
    /// due after the record being copied.
    copy: Option<RawCopy>,
    converted: Vec<Vec<u8>>,
}

impl Records {
    pub(crate) fn open(
        name: &str,
        read: Loaded<'_>,
        options: ArchiveOptions,
    ) -> Result<Records, Error> {
        let archive = match read {
            Loaded::Large { path, .. } | Loaded::File { path, .. } => {
                Archive::open_store(Store::File(path), name, options, 0, None)?
            }
            Loaded::Bytes(bytes) => Archive::from_bytes(bytes.into_owned(), name, options)?,
        };
        Ok(Records {
            name: name.to_owned(),
            archive,
            pending: None,
            date: crate::archive::warc_date_now().into(),
            copy: None,
            converted: Vec::new(),
        })
    }

    /// What is said of a record read past damage.
    fn past_damage(&self, id: &str, at: Place, damage: &str) -> String {
        format!(
            "{}: record {id} at {at} read past damage: {damage}",
            self.name
        )
    }

    fn document(&self, mut h: Box<HtmlRecord>) -> Document<'static> {
        let body = std::mem::take(&mut h.payload);
        let origin = Origin {
            warc: Some(h.reference.clone()),
            content_type: Some(h.content_type.clone()),
            ..Origin::default()
        };
        let layers = Layers::Given(std::mem::take(&mut h.layers));
        let charset = h.charset.take();
        let diagnostics = std::mem::take(&mut h.diagnostics);
        let record = RecordBack {
            record: h,
            date: self.date.clone(),
            gzip: self.archive.is_gzip(),
        };
        Document {
            name: self.name.clone(),
            body: Body::Bytes(body.into()),
            kind: Kind::Html,
            layers,
            charset,
            origin,
            diagnostics,
            conditional_comments: false,
            back: if self.archive.is_arc() {
                Back::InPlace(record)
            } else {
                Back::Conversion(record)
            },
        }
    }

    fn copy(&mut self) -> io::Result<&mut RawCopy> {
        if self.copy.is_none() {
            self.copy = Some(RawCopy::new(self.archive.store())?);
        }
        self.copy
            .as_mut()
            .ok_or_else(|| io::Error::other("no input"))
    }
}

impl<'a> Reader<'a> for Records {
    fn next(&mut self) -> Option<Item<'a>> {
        if let Some(item) = self.pending.take() {
            return Some(item);
        }
        let event = self.archive.next()?;
        Some(match event {
            Event::Html(h) => {
                let document = self.document(h);
                let damage = document.place().zip(match &document.back {
                    Back::Conversion(r) | Back::InPlace(r) => r.record.damage.clone(),
                    _ => None,
                });
                let item = Item::Document(document);
                match damage {
                    Some((at, damage)) => {
                        let id = match &item {
                            Item::Document(d) => d.origin.warc.as_ref().map(|r| r.id()),
                            _ => None,
                        }
                        .unwrap_or_default()
                        .to_owned();
                        self.pending = Some(item);
                        Item::Skipped(Skipped {
                            said: vec![self.past_damage(&id, at, &damage)],
                            error: None,
                            end: None,
                        })
                    }
                    None => item,
                }
            }
            Event::Skipped {
                reference,
                offset,
                within,
                raw_end,
                message,
                damage,
                ..
            } => {
                let at = Place { offset, within };
                let mut said = Vec::new();
                if let Some(d) = damage {
                    said.push(self.past_damage(reference.id(), at, &d));
                }
                if let Some(m) = message {
                    said.push(format!(
                        "{}: record {} at {at} skipped: {m}",
                        self.name,
                        reference.id()
                    ));
                }
                Item::Skipped(Skipped {
                    said,
                    error: None,
                    end: raw_end,
                })
            }
            Event::Damaged(d) => Item::Skipped(Skipped {
                said: vec![format!("{}: damaged record at {d}", self.name)],
                error: None,
                end: None,
            }),
            Event::Other(o) => Item::Skipped(Skipped {
                said: Vec::new(),
                error: None,
                end: o.raw_end,
            }),
        })
    }

    fn write(
        &mut self,
        item: &Item<'a>,
        new: Option<Vec<u8>>,
        out: &mut dyn Write,
    ) -> io::Result<Wrote> {
        let mut wrote = Wrote::Copied;
        let end = match item {
            Item::Document(d) => match &d.back {
                Back::Conversion(r) => {
                    if let Some(record) = new {
                        self.converted.push(record);
                        wrote = Wrote::Changed;
                    }
                    r.record.raw_end
                }
                Back::InPlace(r) => {
                    if let Some(new) = new {
                        let old = d.bytes().unwrap_or_default();
                        wrote = self.replace(&r.record, old, &new, out)?;
                    }
                    r.record.raw_end
                }
                _ => None,
            },
            Item::Skipped(s) => s.end,
            _ => None,
        };
        // Conversion records go right after the record (the gzip member) they convert.
        if let Some(end) = end {
            self.copy()?.copy_to(end, out)?;
            for r in self.converted.drain(..) {
                out.write_all(&r)?;
            }
        }
        Ok(wrote)
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.copy()?.copy_rest(out)?;
        for r in self.converted.drain(..) {
            out.write_all(&r)?;
        }
        Ok(())
    }

    fn summary(&self) -> Option<Summary> {
        Some(Summary::Archive(self.archive.counts()))
    }

    fn archive(&self) -> Option<&Archive> {
        Some(&self.archive)
    }

    fn write_back(&self) -> WriteBack {
        let gzip = self.archive.is_gzip();
        if self.archive.is_arc() {
            WriteBack::InPlace { gzip }
        } else {
            WriteBack::Conversions { gzip }
        }
    }
}

impl Records {
    /// ARC: the record of `h`, whose payload was `old`, replaced where it stands by the same
    /// record with `new` as its payload (its URL line's length and HTTP Content-Length
    /// recomputed). A record whose payload was decoded from a transfer or content coding, or
    /// read past damage, is kept as it was, and said.
    fn replace(
        &mut self,
        h: &HtmlRecord,
        old: &[u8],
        new: &[u8],
        out: &mut dyn Write,
    ) -> io::Result<Wrote> {
        let gzip = self.archive.is_gzip();
        let copy = self.copy()?;
        // The record's bytes: up to its end in a plain file; its gzip member (decompressed) in
        // an .arc.gz, where each record is a member of its own.
        let raw = match (gzip, h.raw_end) {
            _ if h.damage.is_some() => Err("it was read past damage: left as it was".to_owned()),
            (false, Some(end)) => Ok((copy.read_range(h.offset, end)?, end)),
            (true, _) if h.within == 0 => copy
                .read_member(h.offset, old.len() as u64 + MEMBER_SLACK)?
                .ok_or_else(|| {
                    "its gzip member holds more than this record: left as it was".to_owned()
                }),
            _ => {
                Err("it shares a gzip member with the record before it: left as it was".to_owned())
            }
        };
        let record = raw.and_then(|(raw, end)| {
            let record = crate::input::arc::replace_payload(&raw, old, new)?;
            let record = if gzip {
                crate::archive::gzip_member(&record).map_err(|e| e.to_string())?
            } else {
                record
            };
            Ok((record, end))
        });
        match record {
            Ok((record, end)) => {
                copy.copy_to(h.offset, out)?;
                out.write_all(&record)?;
                copy.at = end;
                Ok(Wrote::Changed)
            }
            Err(why) => Ok(Wrote::Refused(format!(
                "{}: record at offset {} ({}) not rewritten: {why}",
                self.name,
                h.offset,
                h.reference.warc_target_uri.as_deref().unwrap_or("")
            ))),
        }
    }
}

impl RecordBack {
    /// A WARC `conversion` record of `new`, the record's rewritten payload in `encoding`,
    /// compressed like the archive (run on a worker).
    pub(crate) fn conversion(&self, new: &[u8], encoding: &str) -> io::Result<Vec<u8>> {
        let record = crate::archive::conversion_record(&self.record, new, encoding, &self.date);
        if self.gzip {
            crate::archive::gzip_member(&record)
        } else {
            Ok(record)
        }
    }
}

/// The input's bytes, copied to the output up to a record boundary at a time.
struct RawCopy {
    file: crate::archive::Stored,
    at: u64,
}

impl RawCopy {
    fn new(store: &Store) -> io::Result<RawCopy> {
        Ok(RawCopy {
            file: store.open(64 * 1024)?,
            at: 0,
        })
    }

    fn copy_to(&mut self, end: u64, w: &mut dyn Write) -> io::Result<()> {
        if end <= self.at {
            return Ok(());
        }
        self.file.seek(SeekFrom::Start(self.at))?;
        let copied = io::copy(&mut (&mut self.file).take(end - self.at), w)?;
        self.at += copied;
        Ok(())
    }

    /// The input's bytes `start..end` (one record: bounded as its payload is).
    fn read_range(&mut self, start: u64, end: u64) -> io::Result<Vec<u8>> {
        self.file.seek(SeekFrom::Start(start))?;
        let mut out = Vec::new();
        (&mut self.file)
            .take(end.saturating_sub(start))
            .read_to_end(&mut out)?;
        Ok(out)
    }

    /// The gzip member that starts at `start`, decompressed, and where it ends in the file;
    /// `None` when it decompresses to more than `limit` bytes.
    fn read_member(&mut self, start: u64, limit: u64) -> io::Result<Option<(Vec<u8>, u64)>> {
        self.file.seek(SeekFrom::Start(start))?;
        let found = crate::input::arc::read_member(&mut self.file, limit)?;
        Ok(found.map(|(bytes, len)| (bytes, start + len)))
    }

    fn copy_rest(&mut self, w: &mut dyn Write) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(self.at))?;
        self.at += io::copy(&mut self.file, w)?;
        Ok(())
    }
}
