//! An mbox's messages through the MIME message path (issue 23), for the CLI and Python alike:
//! each message is read as an `.eml` would be, its records tagged with its place and
//! `Message-ID` ([`MboxRef`](crate::input::mbox::MboxRef)); a rewrite joins the mbox back with
//! only the messages that changed re-framed (`input::mbox::join`).

use crate::error::Error;
use std::io::{BufRead, Read, Seek};

use crate::input::mbox::{self, MboxMessage, MboxReader};
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

/// Every message `reader` reads, through `run`, each given to `sink` with what it gave, in file
/// order, with the outer `layers` (`--url` and the like apply to each message as to an `.eml`):
/// one message is in memory at a time. A message past [`mbox::MAX_MESSAGE`] is not read: its
/// result is an error that says so.
///
/// # Errors
/// [`Error::Io`] when the mbox cannot be read (what was read before is given to `sink`).
pub fn each_message<R: BufRead + Seek, T>(
    name: &str,
    reader: &mut MboxReader<R>,
    layers: &BaseLayers,
    mut run: impl FnMut(&MessageInput<'_>) -> Result<T, Error>,
    mut sink: impl FnMut(&MboxMessage, Result<T, Error>),
) -> Result<(), Error> {
    for m in reader.by_ref() {
        let m = m.map_err(|source| Error::Io {
            input: name.to_owned(),
            source,
        })?;
        let result = read_one(name, &m, layers, &mut run);
        sink(&m, result);
    }
    Ok(())
}

/// One message through `run`, or the error of a message too large to hold.
fn read_one<T>(
    name: &str,
    m: &MboxMessage,
    layers: &BaseLayers,
    run: &mut impl FnMut(&MessageInput<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let label = label(name, m);
    if let Some(size) = m.too_large {
        return Err(Error::Message {
            input: label,
            source: crate::error::MimeError(format!(
                "its {size} bytes pass the {} MiB a message may have (mbox::MAX_MESSAGE): not \
                 read, kept as it was",
                mbox::MAX_MESSAGE >> 20
            )),
        });
    }
    run(&MessageInput {
        name: &label,
        bytes: &m.bytes,
        layers: layers.clone(),
    })
}

/// Every message of `bytes` through `run`, in order (see [`each_message`]).
fn each<T>(
    name: &str,
    bytes: &[u8],
    layers: &BaseLayers,
    run: impl FnMut(&MessageInput<'_>) -> Result<T, Error>,
) -> Mbox<T> {
    let mut messages = Vec::new();
    let mut results = Vec::new();
    let mut preamble = bytes.len();
    if let Ok(mut reader) = MboxReader::new(std::io::Cursor::new(bytes)) {
        // A Cursor over bytes cannot fail to read.
        let _ = each_message(name, &mut reader, layers, run, |m, r| {
            messages.push(m.clone());
            results.push(r);
        });
        preamble = usize::try_from(reader.preamble()).unwrap_or(bytes.len());
    }
    Mbox {
        messages,
        results,
        preamble,
    }
}

/// Every message `reader` reads, rewritten (as [`rewrite_message`] does) and written to `out`
/// as [`rewrite`] joins them (a message that could not be read is copied as it was), one
/// message in memory at a time; `sink` gets each message and what its rewrite gave (the bytes
/// already written). Bytes before the first message are copied first.
///
/// # Errors
/// [`Error::Io`] when the mbox cannot be read or `out` written.
pub fn rewrite_to<R: BufRead + Seek, W: std::io::Write>(
    name: &str,
    reader: &mut MboxReader<R>,
    layers: &BaseLayers,
    options: &Options,
    out: &mut W,
    mut sink: impl FnMut(&MboxMessage, Result<RewrittenMessage, Error>),
) -> Result<(), Error> {
    let io = |source| Error::Io {
        input: name.to_owned(),
        source,
    };
    let from = reader.source().stream_position().map_err(io)?;
    let mut copied_preamble = false;
    while let Some(m) = reader.next() {
        let m = m.map_err(io)?;
        if !copied_preamble {
            copied_preamble = true;
            let source = reader.source();
            let back = source.stream_position().map_err(io)?;
            source.seek(std::io::SeekFrom::Start(from)).map_err(io)?;
            std::io::copy(&mut (&mut *source).take(m.offset - from), out).map_err(io)?;
            source.seek(std::io::SeekFrom::Start(back)).map_err(io)?;
        }
        let mut result = read_one(name, &m, layers, &mut |input| {
            rewrite_message(input, options)
        });
        let bytes = match &mut result {
            Ok(r) => {
                tag(&m, &mut r.reports);
                Some(std::mem::take(&mut r.bytes))
            }
            Err(_) => None,
        };
        mbox::write_message(reader.source(), &m, bytes.as_deref(), out).map_err(io)?;
        sink(&m, result);
    }
    if !copied_preamble {
        // No message: the whole file is preamble, copied as it is.
        let source = reader.source();
        source.seek(std::io::SeekFrom::Start(from)).map_err(io)?;
        std::io::copy(source, out).map_err(io)?;
    }
    Ok(())
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
pub fn tag(m: &MboxMessage, reports: &mut [Report]) {
    let place = m.reference();
    for r in reports {
        r.set_mbox(&place);
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
