//! Pass 2 writing as it reads: the input window, splices in source order, links handed on,
//! and raw text held until its URLs are known.

use std::ops::Range;

use super::walk::*;
use crate::error::Diagnostic;

/// The most raw text (`<style>`, `<noscript>`) held to rewrite its URLs when streaming; a larger
/// element is copied as it is, with a diagnostic.
pub(super) const MAX_HOLD: usize = 16 * 1024 * 1024;

impl Walk<'_, '_> {
    /// The input bytes at `range` (document offsets), if still at hand.
    pub(super) fn input(&self, range: Range<usize>) -> Option<&[u8]> {
        let base = match &self.io {
            Some(io) => io.start,
            None => self.pass.offset,
        };
        let local = range.start.checked_sub(base)?..range.end.checked_sub(base)?;
        match &self.io {
            Some(io) => io.window.get(local),
            None => self.pass.bytes.get(local),
        }
    }

    /// A change, in source order.
    pub(super) fn push_splice(&mut self, range: Range<usize>, bytes: Vec<u8>) {
        let splices = &mut self.out.splices;
        let sorted = splices.last().is_none_or(|(r, _)| r.start <= range.start);
        splices.push((range, bytes));
        if !sorted {
            let from = self.io.as_ref().map_or(0, |io| io.next_splice);
            if let Some(pending) = splices.get_mut(from..) {
                pending.sort_by_key(|(r, _)| r.start);
            }
        }
    }

    /// Every link found so far goes to the caller, or is counted ([`Links::Tally`]).
    pub(super) fn deliver_links(&mut self) {
        if let Some(tally) = &mut self.out.tally {
            for link in self.out.found.links.drain(..) {
                tally.add_link(&link);
            }
            if let Some(counted) = &mut self.out.found.counted {
                for facts in counted.drain(..) {
                    tally.add_facts(&facts);
                }
            }
        } else if let Some(io) = &mut self.io {
            for link in self.out.found.links.drain(..) {
                (io.on_link)(link);
            }
        }
    }

    /// Streaming: writes the output up to `upto` (a document offset every handler before which
    /// has run), or up to the start of held raw text, and forgets the input written.
    pub(super) fn flush(&mut self, upto: usize) {
        let Some(io) = &mut self.io else {
            return;
        };
        let limit = io.hold.map_or(upto, |(h, _)| h.min(upto));
        let mut written = io.start;
        let mut result = Ok(());
        while written < limit && result.is_ok() {
            match self.out.splices.get(io.next_splice) {
                Some((range, text)) if range.start <= written => {
                    result = io.out.write_all(text);
                    written = written.max(range.end);
                    io.next_splice += 1;
                }
                next => {
                    let stop = next.map_or(limit, |(r, _)| r.start.min(limit));
                    let bytes = io
                        .window
                        .get(written - io.start..stop - io.start)
                        .unwrap_or_default();
                    result = io.out.write_all(bytes);
                    written = stop;
                }
            }
        }
        if let Err(e) = result {
            io.error.get_or_insert(e);
        }
        // A splice can end past what lol_html has passed on (inside the tag it just read).
        let done = (written - io.start).min(io.window.len());
        io.window.drain(..done);
        io.start += done;
        if io.next_splice > 1024 {
            self.out.splices.drain(..io.next_splice);
            io.next_splice = 0;
        }
    }

    /// Streaming: raw text held past [`MAX_HOLD`] is given up on (copied as it is).
    pub(super) fn bound_hold(&mut self, fed: usize) {
        let Some(io) = &mut self.io else {
            return;
        };
        let Some((hold, node)) = io.hold else {
            return;
        };
        if fed.saturating_sub(hold) <= MAX_HOLD {
            return;
        }
        io.hold = None;
        io.abandoned = Some(node);
        if self.open.is_some_and(|(_, n, _)| n == node) {
            self.open = None;
        }
        self.out.diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::RawTextKept,
            format!(
                "a <style> or <noscript> longer than {} MiB was copied as it is, its URLs not rewritten",
                MAX_HOLD >> 20
            ),
        ));
    }
}

/// Output a streamed run can take back: what was written is discarded and writing starts again
/// from nothing (a file truncated to empty). With it the streaming engine writes while it checks
/// its guess of the base, instead of reading the whole document for the base first.
pub trait Rewind: std::io::Write {
    /// Discards everything written so far.
    ///
    /// # Errors
    /// When the output cannot be taken back.
    fn rewind(&mut self) -> std::io::Result<()>;
}
