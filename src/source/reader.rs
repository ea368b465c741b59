//! A source: a format's reader behind one face, and what it says when read to its end.

use std::io::{self, Write};

use super::document::Item;
use crate::input::InputKind;

/// What a source says when it is read to its end, for inputs of many documents.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Summary {
    /// An archive: what was read.
    Archive(crate::archive::Counts),
    /// An mbox: how many messages were read, and whether any bytes or messages were not.
    Mbox {
        /// Messages read.
        read: u64,
        /// Something was not read (bytes before the first message, a message).
        incomplete: bool,
    },
}

impl Summary {
    /// Whether the input was not read whole, or read past damage: a run exits 1.
    pub fn incomplete(&self) -> bool {
        match self {
            Summary::Archive(counts) => counts.incomplete(),
            Summary::Mbox { incomplete, .. } => *incomplete,
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Summary::Archive(counts) => counts.fmt(f),
            Summary::Mbox { read, .. } => write!(
                f,
                "{read} message{} read",
                if *read == 1 { "" } else { "s" }
            ),
        }
    }
}

/// How a source writes its input back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteBack {
    /// The document is the output.
    Document,
    /// The message (or mbox) with its changed parts re-encoded in place.
    Message,
    /// Every record copied, a WARC `conversion` record after each one whose links changed;
    /// compressed like the input.
    Conversions {
        /// The input is gzip-compressed, and so is the output.
        gzip: bool,
    },
    /// Every record copied, each one whose links changed replaced where it stands (ARC);
    /// compressed like the input.
    InPlace {
        /// The input is gzip-compressed, and so is the output.
        gzip: bool,
    },
    /// The input written again, each entry that changed in its new form.
    Entries,
}

/// What a write back did with one document beyond copying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wrote {
    /// Nothing beyond the input's bytes.
    Copied,
    /// Its new form was added or put in.
    Changed,
    /// It was left as it was, and why (`record at offset … not rewritten: why`).
    Refused(String),
}

/// A format's reader: its items in order, and its write back.
pub(crate) trait Reader<'a> {
    /// How references in the input's own structure resolve (a MIME message's headings): the
    /// run's profile. Given before the first item.
    fn resolve_with(&mut self, _resolve: crate::ResolveOptions) {}
    /// Where the input came from, learnt after it was opened: its documents' retrieval URI
    /// where none was given (an archive's records have their own).
    fn default_retrieval_uri(&mut self, _uri: &str) {}
    fn next(&mut self) -> Option<Item<'a>>;
    /// Writes the input up to and with `item` to `out`; `new`: the document's new body, when it
    /// changed (prepared by [`Back::prepare`]).
    fn write(
        &mut self,
        item: &Item<'a>,
        new: Option<Vec<u8>>,
        out: &mut dyn Write,
    ) -> io::Result<Wrote>;
    /// Writes what remains of the input after the last item.
    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()>;
    fn summary(&self) -> Option<Summary> {
        None
    }
    fn archive(&self) -> Option<&crate::archive::Archive> {
        None
    }
    fn message(&self) -> Option<super::input::MessageInput<'_>> {
        None
    }
    /// An mbox's next message, whole, or why it cannot be read; `None` at the end, and for
    /// inputs that are not an mbox.
    fn next_message(&mut self) -> Option<Result<super::input::MboxPage, super::document::Skipped>> {
        None
    }
    fn write_back(&self) -> WriteBack;
}

/// An input's documents, in order ([`open`](super::open)).
pub struct Source<'a> {
    name: String,
    kind: InputKind,
    reader: Box<dyn Reader<'a> + 'a>,
    changed: u64,
    doubt: Option<String>,
}

impl std::fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl<'a> Iterator for Source<'a> {
    type Item = Item<'a>;

    fn next(&mut self) -> Option<Item<'a>> {
        self.reader.next()
    }
}

impl<'a> Source<'a> {
    pub(crate) fn new(
        name: String,
        kind: InputKind,
        reader: Box<dyn Reader<'a> + 'a>,
        doubt: Option<String>,
    ) -> Self {
        Source {
            name,
            kind,
            reader,
            changed: 0,
            doubt,
        }
    }

    /// Why the input's format is a guess, when it is one ([`crate::input::Sniffed::doubt`]): a
    /// line the caller should say (the CLI on stderr, Python as a warning).
    pub fn doubt(&self) -> Option<&str> {
        self.doubt.as_deref()
    }

    /// How the input is named in errors.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the input is.
    pub fn kind(&self) -> InputKind {
        self.kind
    }

    /// Resolves references in the input's own structure (a MIME message's Content-Location
    /// headings, RFC 2557 §5) under `resolve`, the run's profile; the verbs call it with their
    /// options. Before the first item only.
    pub fn resolve_with(&mut self, resolve: crate::ResolveOptions) {
        self.reader.resolve_with(resolve);
    }

    /// Where the input came from, when the caller learns it after opening it (a page's URL in
    /// its site): the retrieval URI (RFC 2396 §5.1.3) of its documents, unless one was given.
    /// Before the first item only; an archive's records keep their own.
    pub fn default_retrieval_uri(&mut self, uri: &str) {
        self.reader.default_retrieval_uri(uri);
    }

    /// How a rewrite writes the input back.
    pub fn write_back(&self) -> WriteBack {
        self.reader.write_back()
    }

    /// The archive, for a source of one: what `rewrite --extract` reads (again, with the
    /// records that are not HTML).
    pub fn archive(&self) -> Option<&crate::archive::Archive> {
        self.reader.archive()
    }

    /// The MIME message, for a source of one: what `rewrite --extract` makes a page of.
    pub fn message(&self) -> Option<super::input::MessageInput<'_>> {
        self.reader.message()
    }

    /// For an mbox: its next message whole (`rewrite --extract` writes a page of each), or why
    /// it cannot be read (the bytes before the first message, a message too large); `None` at
    /// the end and for other inputs. Instead of the source's documents, not beside them.
    pub fn next_message(
        &mut self,
    ) -> Option<Result<super::input::MboxPage, super::document::Skipped>> {
        self.reader.next_message()
    }

    /// What was read, once the source is read to its end (inputs of many documents).
    pub fn summary(&self) -> Option<Summary> {
        self.reader.summary()
    }

    /// How many documents a rewrite put back changed (conversion records added, ARC records
    /// replaced, MIME parts re-encoded).
    pub fn changed(&self) -> u64 {
        self.changed
    }

    pub(crate) fn write(
        &mut self,
        item: &Item<'a>,
        new: Option<Vec<u8>>,
        out: &mut dyn Write,
    ) -> io::Result<Wrote> {
        let wrote = self.reader.write(item, new, out)?;
        self.changed += u64::from(wrote == Wrote::Changed);
        Ok(wrote)
    }

    pub(crate) fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.reader.finish(out)
    }
}
