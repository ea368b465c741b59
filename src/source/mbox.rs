//! An mbox's documents: each message read as a MIME message ([`super::message`]) is, its
//! records tagged with its place and `Message-ID` ([`MboxRef`](crate::input::mbox::MboxRef))
//! and the places its diagnostics name moved from the message's bytes to the file's. A rewrite
//! joins the mbox back with only the messages that changed re-framed
//! ([`crate::input::mbox::join`]); a message that cannot be read is kept as it was.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::{self, Write};

use super::document::{Item, Skipped};
use super::message::{put_back, splice, MessageDocuments, Splice};
use super::reader::{Reader, Summary, WriteBack, Wrote};
use crate::base::BaseLayers;
use crate::input::mbox::{self, MboxMessage};

/// The messages of an mbox, one after another.
pub(crate) struct Mbox<'a> {
    /// The name messages are labelled with.
    name: String,
    bytes: Cow<'a, [u8]>,
    layers: BaseLayers,
    resolve: crate::ResolveOptions,
    messages: Vec<MboxMessage>,
    /// The next message to open.
    next: usize,
    current: Option<MessageDocuments<'static>>,
    /// What comes before the next message's documents (the bytes before the first message).
    pending: VecDeque<Item<'a>>,
    read: u64,
    incomplete: bool,
    /// A rewrite: each message's splices, and each message's new bytes once it has ended.
    splices: Vec<(usize, Splice)>,
    new: Vec<Option<Vec<u8>>>,
}

impl<'a> Mbox<'a> {
    pub(crate) fn new(name: &str, bytes: Cow<'a, [u8]>, layers: BaseLayers) -> Mbox<'a> {
        let name = name.to_owned();
        let (messages, preamble) = mbox::split(&bytes);
        let mut pending = VecDeque::new();
        if preamble > 0 {
            pending.push_back(Item::Skipped(Skipped {
                said: vec![format!(
                    "{name}: {preamble} byte{} before the first `From ` line belong to no \
                     message: skipped",
                    if preamble == 1 { "" } else { "s" }
                )],
                end: None,
                error: None,
            }));
        }
        Mbox {
            new: vec![None; messages.len()],
            name,
            bytes,
            layers,
            resolve: crate::ResolveOptions::default(),
            messages,
            next: 0,
            current: None,
            incomplete: !pending.is_empty(),
            pending,
            read: 0,
            splices: Vec::new(),
        }
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

    fn next(&mut self) -> Option<Item<'a>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if let Some(item) = self.current.as_mut().and_then(Reader::next) {
                return Some(item);
            }
            self.current = None;
            let m = self.messages.get_mut(self.next)?;
            self.next += 1;
            let label = format!("{} message {} (offset {})", self.name, m.index, m.offset);
            let read = MessageDocuments::read(&label, &m.bytes, &self.layers);
            // The message's place without its bytes, which stay here.
            let reference = m.reference();
            let bytes = std::mem::take(&mut m.bytes);
            let place = m.clone();
            m.bytes = bytes;
            match read {
                Ok(mut documents) => {
                    self.read += 1;
                    documents.resolve_with(self.resolve);
                    self.current = Some(documents.in_mbox(place, reference));
                }
                Err(e) => {
                    self.incomplete = true;
                    self.pending.push_back(Item::Skipped(Skipped {
                        said: vec![e.to_string()],
                        end: None,
                        error: Some(e),
                    }));
                }
            }
        }
    }

    fn write(
        &mut self,
        item: &Item<'a>,
        new: Option<Vec<u8>>,
        _: &mut dyn Write,
    ) -> io::Result<Wrote> {
        if let Item::MessageEnd(end) = item {
            let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.splices)
                .into_iter()
                .partition(|(m, _)| *m == end.message);
            self.splices = rest;
            let mine = mine.into_iter().map(|(_, s)| s).collect();
            if let (Some(m), Some(slot)) = (
                self.messages.get(end.message),
                self.new.get_mut(end.message),
            ) {
                *slot = Some(splice(&m.bytes, mine));
            }
            return Ok(Wrote::Copied);
        }
        match put_back(item, new) {
            Some(splice) => {
                self.splices.push(splice);
                Ok(Wrote::Changed)
            }
            None => Ok(Wrote::Copied),
        }
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(&mbox::join(&self.bytes, &self.messages, &self.new))
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
