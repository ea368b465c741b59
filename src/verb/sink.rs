//! What a verb gives its findings to ([`Sink`]), how it runs a batch ([`Workers`]), where a
//! rewrite writes ([`Output`]).

use std::io::{self, Write};

use crate::engine::Rewind;
use crate::error::Error;
use crate::report::{BaseRecord, LinkRecord, LinkTally};
use crate::source::{Document, MessageEnd, Skipped};

/// What became of one document.
#[derive(Debug, Clone)]
pub struct Done {
    /// Its base record (its origin, its diagnostics).
    pub base: BaseRecord,
    /// Its links, counted.
    pub links: LinkTally,
}

/// Where a verb's findings go, in the input's order. Every method but
/// [`document`](Sink::document) does nothing unless implemented.
pub trait Sink {
    /// A link record ([`links`](super::links) only), before its document's [`document`](Sink::document).
    ///
    /// # Errors
    /// Stops the run (a writer's error).
    fn link(&mut self, _link: LinkRecord) -> io::Result<()> {
        Ok(())
    }

    /// The link records of one document at once ([`links`](super::links) only), in order:
    /// [`link`](Sink::link) each, unless implemented.
    ///
    /// # Errors
    /// Stops the run.
    fn links(&mut self, links: Vec<LinkRecord>) -> io::Result<()> {
        links.into_iter().try_for_each(|l| self.link(l))
    }

    /// A document done, or why it could not be read. Only an archived record fails here (a
    /// whole input's error ends the run; a MIME part's trouble is a `part-skipped` diagnostic
    /// in its record).
    ///
    /// # Errors
    /// Stops the run.
    fn document(&mut self, document: &Document<'_>, done: Result<Done, Error>) -> io::Result<()>;

    /// A record of something read that is not a document ([`Item::Unread`](crate::source::Item::Unread)).
    ///
    /// # Errors
    /// Stops the run.
    fn unread(&mut self, _record: BaseRecord) -> io::Result<()> {
        Ok(())
    }

    /// Something not read as a document ([`Item::Skipped`](crate::source::Item::Skipped)).
    ///
    /// # Errors
    /// Stops the run.
    fn skipped(&mut self, _skipped: &Skipped) -> io::Result<()> {
        Ok(())
    }

    /// A MIME message's documents have all come.
    ///
    /// # Errors
    /// Stops the run.
    fn message_end(&mut self, _end: &MessageEnd) -> io::Result<()> {
        Ok(())
    }

    /// A [`rewrite`](super::rewrite) could not put a document back into its input (an ARC record read past
    /// damage), and kept it as it was: why, naming the input.
    ///
    /// # Errors
    /// Stops the run.
    fn refused(&mut self, _document: &Document<'_>, _why: &str) -> io::Result<()> {
        Ok(())
    }
}

/// How a verb runs the documents of a batch.
pub trait Workers: Sync {
    /// Calls `task(i)` for every `i` in `0..count`, in any order and on any threads, and
    /// returns when every call has.
    fn each(&self, count: usize, task: &(dyn Fn(usize) + Sync));
}

/// [`Workers`] that run every document on the caller's thread, one after another.
#[derive(Debug, Clone, Copy, Default)]
pub struct InOrder;

impl Workers for InOrder {
    fn each(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..count).for_each(task);
    }
}

/// Where a [`rewrite`](super::rewrite) writes: any writer; output that can be taken back (a file of one's own)
/// lets a document streamed from a file be written as it is read ([`Rewind`]).
pub trait Output {
    /// As output that can be taken back, or (`Err`) as a plain writer.
    fn rewindable(&mut self) -> Result<&mut dyn Rewind, &mut dyn Write>;

    /// As a plain writer.
    fn writer(&mut self) -> &mut dyn Write;
}

impl Output for Vec<u8> {
    fn rewindable(&mut self) -> Result<&mut dyn Rewind, &mut dyn Write> {
        Err(self)
    }
    fn writer(&mut self) -> &mut dyn Write {
        self
    }
}

impl<W: Write> Output for io::BufWriter<W> {
    fn rewindable(&mut self) -> Result<&mut dyn Rewind, &mut dyn Write> {
        Err(self)
    }
    fn writer(&mut self) -> &mut dyn Write {
        self
    }
}

/// What [`fragment_targets`](super::fragment_targets) gives each document's targets (or why it has none) to.
pub type Found<'f> = dyn FnMut(&Document<'_>, Result<Vec<String>, Error>) -> io::Result<()> + 'f;
