//! The verbs over a source: documents in batches on the workers, what they came to given to
//! the sink in the input's order, a rewrite written back as the source writes its input.

use std::io;
use std::sync::Mutex;

use super::document::{self, in_memory, Want};
use super::sink::{Found, Output, Sink, Workers};
use crate::error::Error;
use crate::pipeline::Options;
use crate::source::{Item, Role, Source};

/// A batch holds at most this many items, or this many bytes of documents: memory stays flat in
/// the input's size while every worker has work.
const BATCH_ITEMS: usize = 64;
const BATCH_BYTES: usize = 32 * 1024 * 1024;

/// Every link of every document, in order, to `sink` (and each document's record).
///
/// # Errors
/// A whole input's error ([`Error::Decode`], …); [`Error::Io`] when the sink fails.
pub fn links(
    source: &mut Source<'_>,
    options: &Options,
    workers: &dyn Workers,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    run(source, options, workers, Want::Links, None, sink)
}

/// Every document's base record, in order, to `sink`; links are counted, not kept.
///
/// # Errors
/// As [`links`].
pub fn base(
    source: &mut Source<'_>,
    options: &Options,
    workers: &dyn Workers,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    run(source, options, workers, Want::Base, None, sink)
}

/// The input with every document rewritten, written back to `out` as the source writes it
/// ([`Source::write_back`]); each document's record to `sink`. Nothing is written for a whole
/// input that is refused.
///
/// # Errors
/// As [`links`]; [`Error::Io`] when writing fails (the output is then incomplete: write to a
/// temporary file and rename it on success).
pub fn rewrite(
    source: &mut Source<'_>,
    options: &Options,
    workers: &dyn Workers,
    out: &mut dyn Output,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    run(source, options, workers, Want::Rewrite, Some(out), sink)
}

/// The fragment targets of each HTML document (every `id`, and the `name` of every `a`: HTML
/// LS "find a potential indicated element"), for checking `#fragment` links, to `found`.
///
/// # Errors
/// A whole input's error; what `found` returns.
pub fn fragment_targets(
    source: &mut Source<'_>,
    options: &Options,
    found: &mut Found<'_>,
) -> Result<(), Error> {
    source.resolve_with(options.rewrite.resolve);
    let name = source.name().to_owned();
    for item in source {
        let Item::Document(document) = item else {
            continue;
        };
        let ids = match (document.bytes(), &document.layers) {
            (Some(bytes), crate::source::Layers::Given(layers)) => crate::pipeline::fragment_ids(
                &crate::pipeline::HtmlInput {
                    name: &document.name,
                    bytes,
                    layers: layers.clone(),
                    charset: document.charset.clone(),
                    diagnostics: Vec::new(),
                },
                options,
            ),
            (Some(bytes), crate::source::Layers::Settled(_)) => crate::pipeline::fragment_ids(
                &crate::pipeline::HtmlInput {
                    name: &document.name,
                    bytes,
                    charset: document.charset.clone(),
                    ..Default::default()
                },
                options,
            ),
            (None, _) => std::fs::read(match &document.body {
                crate::source::Body::File(p) => p.as_path(),
                crate::source::Body::Bytes(_) => std::path::Path::new(""),
            })
            .map_err(|source| Error::Io {
                input: document.name.clone(),
                source,
            })
            .and_then(|bytes| {
                crate::pipeline::fragment_ids(
                    &crate::pipeline::HtmlInput {
                        name: &document.name,
                        bytes: &bytes,
                        charset: document.charset.clone(),
                        ..Default::default()
                    },
                    options,
                )
            }),
        };
        match ids {
            Err(e) if document.role() == Role::Whole => return Err(e),
            ids => found(&document, ids).map_err(|source| Error::Io {
                input: name.clone(),
                source,
            })?,
        }
    }
    Ok(())
}

/// What a document of a batch came to, for its place in the order.
struct Slot(Mutex<Option<Result<document::Outcome, Error>>>);

fn run<'o>(
    source: &mut Source<'_>,
    options: &Options,
    workers: &dyn Workers,
    want: Want,
    mut out: Option<&mut (dyn Output + 'o)>,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    source.resolve_with(options.rewrite.resolve);
    let name = source.name().to_owned();
    let io_error = |source| Error::Io {
        input: name.clone(),
        source,
    };
    let mut whole = None;
    loop {
        let mut batch = Vec::new();
        let mut bytes = 0;
        for item in source.by_ref() {
            match &item {
                Item::Document(d) if d.role() == Role::Whole => {
                    whole = Some(item);
                    break;
                }
                Item::Document(d) => bytes += d.bytes().map_or(0, <[u8]>::len),
                _ => {}
            }
            batch.push(item);
            if batch.len() >= BATCH_ITEMS || bytes >= BATCH_BYTES {
                break;
            }
        }
        if batch.is_empty() && whole.is_none() {
            break;
        }
        let slots: Vec<Slot> = batch.iter().map(|_| Slot(Mutex::new(None))).collect();
        let task = |i: usize| {
            if let (Some(Item::Document(d)), Some(slot)) = (batch.get(i), slots.get(i)) {
                let outcome = in_memory(d, options, want);
                if let Ok(mut s) = slot.0.lock() {
                    *s = Some(outcome);
                }
            }
        };
        // One document, or none, is read here: handing it to a worker would only cost.
        match batch
            .iter()
            .filter(|i| matches!(i, Item::Document(_)))
            .count()
        {
            0 => {}
            1 => (0..batch.len()).for_each(task),
            _ => workers.each(batch.len(), &task),
        }
        for (item, slot) in batch.into_iter().zip(slots) {
            let outcome = slot.0.into_inner().ok().flatten();
            let new = deliver(&item, outcome, sink).map_err(io_error)?;
            if let Some(out) = out.as_mut() {
                let wrote = source.write(&item, new, out.writer()).map_err(io_error)?;
                if let (crate::source::Wrote::Refused(why), Item::Document(d)) = (&wrote, &item) {
                    sink.refused(d, why).map_err(io_error)?;
                }
            }
        }
        if let Some(Item::Document(d)) = whole.take() {
            let mut failed = None;
            let mut counted = crate::report::LinkTally::default();
            let out = out.as_deref_mut();
            let mut done = document::whole(&d, options, want, out, &mut |l| {
                counted.add(&l);
                if failed.is_none() {
                    failed = sink.link(l).err();
                }
            })?;
            if let Some(e) = failed {
                return Err(io_error(e));
            }
            done.links += counted;
            sink.document(&d, Ok(done)).map_err(io_error)?;
        }
    }
    if let Some(out) = out.as_mut() {
        source.finish(out.writer()).map_err(io_error)?;
    }
    Ok(())
}

/// `item` and what it came to, to `sink`; the new body of a document that changed.
fn deliver(
    item: &Item<'_>,
    outcome: Option<Result<document::Outcome, Error>>,
    sink: &mut dyn Sink,
) -> io::Result<Option<Vec<u8>>> {
    match (item, outcome) {
        (Item::Document(d), Some(Ok(outcome))) => {
            if !outcome.links.is_empty() {
                sink.links(outcome.links)?;
            }
            sink.document(d, Ok(outcome.done))?;
            Ok(outcome.new)
        }
        (Item::Document(d), Some(Err(e))) => {
            sink.document(d, Err(e))?;
            Ok(None)
        }
        (Item::Unread(record), _) => sink.unread(record.clone()).map(|()| None),
        (Item::Skipped(s), _) => sink.skipped(s).map(|()| None),
        (Item::MessageEnd(end), _) => sink.message_end(end).map(|()| None),
        _ => Ok(None),
    }
}
