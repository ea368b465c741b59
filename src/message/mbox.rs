//! An mbox's messages through the MIME message path (issue 23), for the CLI and Python alike:
//! each message is read as an `.eml` would be, its records tagged with its place and
//! `Message-ID` ([`MboxRef`](crate::input::mbox::MboxRef)); a rewrite joins the mbox back with
//! only the messages that changed re-framed (`input::mbox::join`).

use crate::error::Error;
use crate::input::mbox::{self, MboxMessage};
use crate::pipeline::Options;
use crate::report::Report;
use crate::BaseLayers;

use super::{links_message, rewrite_message, MessageInput, RewrittenMessage};

/// The messages of an mbox and what each gave.
#[derive(Debug)]
pub struct Mbox<T> {
    /// The messages, in file order.
    pub messages: Vec<MboxMessage>,
    /// What each message gave, in the same order; an error is the message's own (it names the
    /// message by its [`label`]).
    pub results: Vec<Result<T, Error>>,
    /// Bytes before the first `From ` line: they belong to no message and are not read.
    pub preamble: usize,
}

/// How a message is named in errors and diagnostics: `NAME message I (offset O)`.
pub fn label(name: &str, m: &MboxMessage) -> String {
    format!("{name} message {} (offset {})", m.index, m.offset)
}

/// Every message of `bytes` through `run`, in order, with the outer `layers` (`--url` and the
/// like apply to each message as to an `.eml`).
fn each<T>(
    name: &str,
    bytes: &[u8],
    layers: &BaseLayers,
    mut run: impl FnMut(&MessageInput<'_>) -> Result<T, Error>,
) -> Mbox<T> {
    let (messages, preamble) = mbox::split(bytes);
    let results = messages
        .iter()
        .map(|m| {
            let label = label(name, m);
            run(&MessageInput {
                name: &label,
                bytes: &m.bytes,
                layers: layers.clone(),
            })
        })
        .collect();
    Mbox {
        messages,
        results,
        preamble,
    }
}

/// The reports of every HTML and CSS part of every message (as [`links_message`] gives
/// them), each record tagged with its message.
pub fn links(
    name: &str,
    bytes: &[u8],
    layers: &BaseLayers,
    options: &Options,
) -> Mbox<Vec<Report>> {
    let mut read = each(name, bytes, layers, |input| links_message(input, options));
    for (m, result) in read.messages.iter().zip(&mut read.results) {
        if let Ok(reports) = result {
            tag(m, reports);
        }
    }
    read
}

/// Each record of `m`'s `reports` tagged with the message, and the places its diagnostics
/// name moved from the message's bytes to the mbox file's.
fn tag(m: &MboxMessage, reports: &mut [Report]) {
    let place = m.reference();
    for r in reports {
        r.base.origin.mbox = Some(place.clone());
        for l in &mut r.links {
            l.origin.mbox = Some(place.clone());
        }
        for d in &mut r.base.diagnostics {
            d.at = d.at.map(|at| m.file_place(at));
        }
    }
}

/// Every message rewritten (as [`rewrite_message`] does), each report tagged with its message,
/// and the mbox written back: a message that could not be read is kept as it was.
pub fn rewrite(
    name: &str,
    bytes: &[u8],
    layers: &BaseLayers,
    options: &Options,
) -> (Vec<u8>, Mbox<RewrittenMessage>) {
    let mut read = each(name, bytes, layers, |input| rewrite_message(input, options));
    let mut new = Vec::with_capacity(read.messages.len());
    for (m, result) in read.messages.iter().zip(&mut read.results) {
        if let Ok(r) = result {
            tag(m, &mut r.reports);
        }
        // The bytes go to the joined mbox; the reports stay.
        new.push(result.as_mut().ok().map(|r| std::mem::take(&mut r.bytes)));
    }
    let out = mbox::join(bytes, &read.messages, &new);
    (out, read)
}
