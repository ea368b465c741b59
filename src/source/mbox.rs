//! An mbox's documents: each message read as a MIME message ([`super::message`]) is, its
//! records tagged with its place and `Message-ID` ([`MboxRef`](crate::input::mbox::MboxRef))
//! and the places its diagnostics name moved from the message's bytes to the file's. The mbox
//! is read a message at a time ([`MboxReader`]), from memory or from its file: memory holds the
//! messages being read, not the mbox. A rewrite writes the mbox back as it goes, with only the
//! messages that changed re-framed ([`crate::input::mbox::write_message`]); the bytes before the
//! first message and a message that cannot be read are copied as they were.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Seek, SeekFrom, Write};

use super::document::{Item, Skipped};
use super::message::{put_back, splice, MessageDocuments, Splice};
use super::reader::{Reader, Summary, WriteBack, Wrote};
use crate::base::BaseLayers;
use crate::error::{Error, MimeError};
use crate::input::mbox::{self, MboxMessage, MboxReader};

/// What an mbox is read from.
pub(crate) trait Stream: BufRead + Seek {}
impl<T: BufRead + Seek> Stream for T {}

/// The messages of an mbox, one after another.
pub(crate) struct Mbox<'a> {
    /// The name messages are labelled with.
    name: String,
    reader: MboxReader<Box<dyn Stream + 'a>>,
    layers: BaseLayers,
    resolve: crate::ResolveOptions,
    current: Option<MessageDocuments<'static>>,
    /// What comes before the next message's documents (the bytes before the first message, a
    /// message that cannot be read).
    pending: VecDeque<Item<'a>>,
    read: u64,
    incomplete: bool,
    /// The messages read whose end is not written yet (a rewrite puts them back), with the
    /// splices of their rewritten parts.
    held: VecDeque<(MboxMessage, Vec<Splice>)>,
    /// How far the input has been written back.
    written: u64,
    /// Whether the bytes before the first message have been looked at.
    preamble_said: bool,
    /// A message read whole ([`Reader::next_message`]) and given at the next call.
    waiting: Option<io::Result<MboxMessage>>,
}

impl<'a> Mbox<'a> {
    /// The mbox `stream`, named `name`.
    ///
    /// # Errors
    /// When `stream` cannot tell its size.
    pub(crate) fn new(
        name: &str,
        stream: Box<dyn Stream + 'a>,
        layers: BaseLayers,
    ) -> io::Result<Mbox<'a>> {
        Ok(Mbox {
            name: name.to_owned(),
            reader: MboxReader::new(stream)?,
            layers,
            resolve: crate::ResolveOptions::default(),
            current: None,
            pending: VecDeque::new(),
            read: 0,
            incomplete: false,
            held: VecDeque::new(),
            written: 0,
            preamble_said: false,
            waiting: None,
        })
    }

    /// The mbox in memory.
    pub(crate) fn from_bytes(name: &str, bytes: Cow<'a, [u8]>, layers: BaseLayers) -> Mbox<'a> {
        // A cursor over memory always knows its size.
        Mbox::new(name, Box::new(io::Cursor::new(bytes)), layers)
            .unwrap_or_else(|_| unreachable!("a cursor over memory knows its size"))
    }

    /// Says the bytes before the first message, once that is known (the first message, or the
    /// end, read).
    fn say_preamble(&mut self) {
        if std::mem::replace(&mut self.preamble_said, true) {
            return;
        }
        if let Some(said) = self.preamble() {
            self.incomplete = true;
            self.pending.push_back(Item::Skipped(Skipped {
                said: vec![said],
                end: None,
                error: None,
            }));
        }
    }

    /// The bytes before the first message, said, when there are some (known once the first
    /// message, or the end, is read).
    fn preamble(&self) -> Option<String> {
        let preamble = self.reader.preamble();
        (preamble > 0).then(|| {
            format!(
                "{}: {preamble} byte{} before the first `From ` line belong to no message: skipped",
                self.name,
                if preamble == 1 { "" } else { "s" }
            )
        })
    }

    /// A message that is not read: said, and copied as it was by a write back.
    fn skip(&mut self, error: Error) {
        self.incomplete = true;
        self.pending.push_back(Item::Skipped(Skipped {
            said: vec![error.to_string()],
            end: None,
            error: Some(error),
        }));
    }

    /// How message `m` is named.
    fn label(&self, m: &MboxMessage) -> String {
        format!("{} message {} (offset {})", self.name, m.index, m.offset)
    }

    /// Why message `m` is not read, when it is too large to be.
    fn too_large(&self, m: &MboxMessage) -> Option<Error> {
        let size = m.too_large?;
        Some(Error::Message {
            input: self.label(m),
            source: MimeError(format!(
                "its {size} bytes pass the {} MiB a message may have (mbox::MAX_MESSAGE): not \
                 read, kept as it was",
                mbox::MAX_MESSAGE >> 20
            )),
        })
    }

    /// The message `m`'s documents, or why it cannot be read.
    fn open(&mut self, mut m: MboxMessage) {
        let label = self.label(&m);
        if let Some(e) = self.too_large(&m) {
            self.skip(e);
            return;
        }
        match MessageDocuments::read(&label, &m.bytes, &self.layers) {
            Ok(mut documents) => {
                self.read += 1;
                documents.resolve_with(self.resolve);
                let reference = m.reference();
                // The message's place without its bytes: they are held here, for the write back.
                let bytes = std::mem::take(&mut m.bytes);
                let place = m.clone();
                m.bytes = bytes;
                self.current = Some(documents.in_mbox(place, reference));
                self.held.push_back((m, Vec::new()));
            }
            Err(e) => self.skip(e),
        }
    }

    /// Copies the input from where the write back is to `to` (bytes before the first message,
    /// messages not read) to `out`, leaving the reader where it was.
    fn copy_to(&mut self, to: u64, out: &mut dyn Write) -> io::Result<()> {
        if to <= self.written {
            return Ok(());
        }
        let source = self.reader.source();
        let back = source.stream_position()?;
        source.seek(SeekFrom::Start(self.written))?;
        let copied = io::copy(&mut (&mut *source).take(to - self.written), out);
        source.seek(SeekFrom::Start(back))?;
        copied?;
        self.written = to;
        Ok(())
    }
}

impl<'a> Reader<'a> for Mbox<'a> {
    fn resolve_with(&mut self, resolve: crate::ResolveOptions) {
        self.resolve = resolve;
    }

    fn default_retrieval_uri(&mut self, uri: &str) {
        self.layers
            .retrieval_uri
            .get_or_insert_with(|| uri.to_owned());
    }

    fn next_message(&mut self) -> Option<Result<super::input::MboxPage, Skipped>> {
        let next = match self.waiting.take() {
            Some(waiting) => waiting,
            None => {
                let next = self.reader.next();
                if !std::mem::replace(&mut self.preamble_said, true) {
                    if let Some(said) = self.preamble() {
                        // Said first; the message waits for the next call.
                        self.waiting = next;
                        return Some(Err(Skipped {
                            said: vec![said],
                            end: None,
                            error: None,
                        }));
                    }
                }
                next?
            }
        };
        let error = match next {
            Ok(m) => match self.too_large(&m) {
                None => {
                    return Some(Ok(super::input::MboxPage {
                        index: m.index,
                        name: self.label(&m),
                        bytes: m.bytes,
                        layers: self.layers.clone(),
                    }))
                }
                Some(e) => e,
            },
            Err(source) => Error::Io {
                input: self.name.clone(),
                source,
            },
        };
        Some(Err(Skipped {
            said: vec![error.to_string()],
            end: None,
            error: Some(error),
        }))
    }

    fn next(&mut self) -> Option<Item<'a>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if let Some(item) = self.current.as_mut().and_then(Reader::next) {
                return Some(item);
            }
            self.current = None;
            match self.reader.next() {
                Some(Ok(m)) => {
                    self.say_preamble();
                    self.open(m);
                }
                Some(Err(source)) => {
                    self.say_preamble();
                    self.skip(Error::Io {
                        input: self.name.clone(),
                        source,
                    });
                }
                None => {
                    self.say_preamble();
                    if self.pending.is_empty() {
                        return None;
                    }
                }
            }
        }
    }

    fn write(
        &mut self,
        item: &Item<'a>,
        new: Option<Vec<u8>>,
        out: &mut dyn Write,
    ) -> io::Result<Wrote> {
        if let Item::MessageEnd(end) = item {
            let Some(at) = self.held.iter().position(|(m, _)| m.index == end.message) else {
                return Ok(Wrote::Copied);
            };
            // Messages end in file order: those held before it were not rewritten.
            let (m, splices) = self
                .held
                .drain(..=at)
                .next_back()
                .unwrap_or_else(|| unreachable!("`at` is in range"));
            self.copy_to(m.offset, out)?;
            let bytes = (!splices.is_empty()).then(|| splice(&m.bytes, splices));
            mbox::write_message(self.reader.source(), &m, bytes.as_deref(), out)?;
            self.written = m.end;
            return Ok(Wrote::Copied);
        }
        match put_back(item, new) {
            Some((message, splice)) => {
                if let Some((_, splices)) = self.held.iter_mut().find(|(m, _)| m.index == message) {
                    splices.push(splice);
                }
                Ok(Wrote::Changed)
            }
            None => Ok(Wrote::Copied),
        }
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let end = self.reader.source().seek(SeekFrom::End(0))?;
        self.copy_to(end, out)
    }

    fn summary(&self) -> Option<Summary> {
        Some(Summary::Mbox {
            read: self.read,
            incomplete: self.incomplete,
        })
    }

    fn write_back(&self) -> WriteBack {
        WriteBack::Message
    }
}
