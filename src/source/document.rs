//! A document and what else an input holds ([`Item`]): what the readers give and the verbs
//! take.

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::base::{BaseLayers, Outer};
use crate::error::{Diagnostic, Error, Place};
use crate::report::{BaseRecord, Origin};

/// A document: what the engine reads, and what is known about it from outside.
#[derive(Debug)]
pub struct Document<'a> {
    /// How it is named in errors: the input's name, with its MIME part or its mbox message.
    pub name: String,
    /// Its bytes.
    pub body: Body<'a>,
    /// What it is.
    pub kind: Kind,
    /// Its base outside the document.
    pub layers: Layers,
    /// The transport charset label (`--charset`, Content-Type's `charset`).
    pub charset: Option<String>,
    /// Where it is in its input; its records carry it.
    pub origin: Origin,
    /// What was found about it before it is read (ignored headers, a damaged record), carried
    /// into its base record.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether URLs inside downlevel-hidden conditional comments count when the options do not
    /// say: in e-mail, whose HTML Outlook renders.
    pub conditional_comments: bool,
    /// How it goes back into its input when rewritten.
    pub(crate) back: Back,
}

/// A document's bytes.
#[derive(Debug)]
pub enum Body<'a> {
    /// In memory.
    Bytes(Cow<'a, [u8]>),
    /// In a file, read as a stream (twice: its base first); it must not change meanwhile.
    File(PathBuf),
}

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// HTML.
    Html,
    /// A stylesheet (`text/css`): its `url()` and `@import` URLs.
    Css,
}

/// A document's base outside itself (RFC 2396 §5.1.2–§5.1.4).
#[derive(Debug, Clone)]
pub enum Layers {
    /// As given: resolved when the document is read (a bare document, an archived record).
    Given(BaseLayers),
    /// Settled already: a MIME part's, from the headings around it (RFC 2557 §5).
    Settled(Outer),
}

/// What a document is to its input, which says what becomes of its trouble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// The whole input: an error stops the run, and a rewrite is the output itself.
    Whole,
    /// A part of a MIME message: a part that cannot be read or written back is kept as it
    /// was, with a `part-skipped` diagnostic, and the message goes on.
    Part,
    /// A record of an archive: one that cannot be read is said with its record and counted,
    /// and the archive goes on.
    Record,
}

impl Document<'_> {
    /// What it is to its input.
    pub fn role(&self) -> Role {
        match self.back {
            Back::Whole => Role::Whole,
            Back::Part(_) => Role::Part,
            Back::Conversion(_) | Back::InPlace(_) | Back::Entry(_) => Role::Record,
        }
    }

    /// Where it is in its input, for messages: an archived record's offset (and place in its
    /// gzip member); `None` for the others.
    pub fn place(&self) -> Option<crate::input::warc::Place> {
        match &self.back {
            Back::Conversion(r) | Back::InPlace(r) => Some(r.record.place()),
            _ => None,
        }
    }

    /// How it is named in a message about it, after its input's name: `record ID at PLACE` for an
    /// archived record, `entry N` for an entry; `None` for a document of its own or a part,
    /// which have their own names.
    pub fn describe(&self) -> Option<String> {
        match &self.back {
            Back::Conversion(r) | Back::InPlace(r) => {
                Some(format!("record {} at {}", r.record.id(), r.record.place()))
            }
            Back::Entry(i) => Some(format!("entry {i}")),
            _ => None,
        }
    }

    /// Its bytes in memory (`None` for a document streamed from a file).
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Bytes(b) => Some(b),
            Body::File(_) => None,
        }
    }
}

/// How a rewritten document goes back into its input.
#[derive(Debug)]
pub(crate) enum Back {
    /// It is the input.
    Whole,
    /// A MIME part, re-encoded in its transfer encoding and put back where it was.
    Part(PartBack),
    /// An archived record, followed by a `conversion` record of its new payload (WARC).
    Conversion(RecordBack),
    /// An archived record, replaced where it stands by the same record with its new payload
    /// (ARC, which has no conversion records).
    InPlace(RecordBack),
    /// An entry of an archive its reader writes again whole, the entries that changed in their
    /// new form.
    #[cfg_attr(not(feature = "oracle"), allow(dead_code))]
    Entry(usize),
}

/// What an input holds, in order: its documents, and what is said beside them.
#[derive(Debug)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // moved a few times per document, never stored in bulk
pub enum Item<'a> {
    /// A document.
    Document(Document<'a>),
    /// What could not be a document but has a record: a MIME part not read (a limit, an
    /// unreadable heading, an undecodable body), or a message's own damage where no part
    /// carries it. `base` lists it; its diagnostics say why.
    Unread(BaseRecord),
    /// Something not read as a document: damage in an archive (a record read past it, too), a
    /// record that is not HTML, bytes before an mbox's first message, a message that cannot be
    /// read.
    Skipped(Skipped),
    /// The documents of one MIME message have all come (what is said of a message's parts is
    /// said together).
    MessageEnd(MessageEnd),
}

/// The end of a MIME message's documents ([`Item::MessageEnd`]).
#[derive(Debug)]
pub struct MessageEnd {
    /// How the message is named (the input's name, or an mbox message's label).
    pub name: String,
    /// Its place in its input (an mbox's).
    pub(crate) message: usize,
}

/// Something an input holds that was not read as a document ([`Item::Skipped`]).
#[derive(Debug)]
pub struct Skipped {
    /// What is worth saying about it, a line each, naming the input (`NAME: damaged record at
    /// …`); nothing for a record with nothing to say (one that is not HTML).
    pub said: Vec<String>,
    /// The error, when it is one (an mbox message that cannot be read).
    pub error: Option<Error>,
    /// Where the record it is about ends in the input, when that is a boundary (what a write
    /// back copies up to).
    pub(crate) end: Option<u64>,
}

/// How a MIME part goes back into its message.
#[derive(Debug)]
pub(crate) struct PartBack {
    /// The message's place in its input (an mbox's; 0 for a message of its own).
    pub message: usize,
    /// The part's index in the message's tree.
    pub index: usize,
    /// Where its body is in the message (`None` inside an enclosed message that had to be
    /// transfer-decoded first: it can be read, not written back).
    pub span: Option<Range<usize>>,
    /// Its Content-Transfer-Encoding, lower-case.
    pub transfer_encoding: String,
    /// The line ending of its heading, which its re-encoded body uses.
    pub eol: &'static str,
    /// Where its body starts in the input, for diagnostics.
    pub body_at: Place,
    /// The parts its references may name.
    pub targets: Targets,
}

/// What a resolved reference from a document names in its input: the path of the message part
/// it loads (RFC 2557 §8.2, RFC 2392), when one does.
#[derive(Clone)]
pub(crate) struct Targets(pub Arc<Target>);

/// The part a resolved reference names ([`Targets`]).
pub(crate) type Target = dyn Fn(&str) -> Option<String> + Send + Sync;

impl Targets {
    /// The part `resolved` names.
    pub(crate) fn part(&self, resolved: &str) -> Option<String> {
        (self.0)(resolved)
    }
}

impl std::fmt::Debug for Targets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Targets")
    }
}

/// How an archived record goes back.
#[derive(Debug)]
pub(crate) struct RecordBack {
    /// The record (its payload is the document's body).
    pub record: Box<crate::archive::HtmlRecord>,
    /// The `WARC-Date` of the run's conversion records.
    pub date: Arc<str>,
    /// The archive is gzip-compressed: so is what goes back.
    pub gzip: bool,
}
