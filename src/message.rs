//! MIME messages, whatever their name or content says: the documents of a message
//! ([`crate::source`]: each `text/html` and `text/css` part with its base from its headings,
//! docs/mhtml.md §4) through the verbs' document path, put back in their own
//! Content-Transfer-Encoding when rewritten; and a message as a page of files ([`page`]).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::base::BaseLayers;
use crate::error::Error;
use crate::pipeline::Options;
use crate::report::Report;
use crate::source::{Back, Item, MessageDocuments, Reader};
use crate::verb::Want;

pub mod page;

pub use crate::source::MessageInput;

/// The output of [`rewrite_message`].
#[derive(Debug, Clone)]
pub struct RewrittenMessage {
    /// The message with its changed HTML parts re-encoded in place.
    pub bytes: Vec<u8>,
    /// One report per HTML part, in message order.
    pub reports: Vec<Report>,
}

/// Rewrites the HTML parts of a MIME message.
///
/// # Errors
/// [`Error::Decode`] when the input is not a readable MIME message, [`Error::BadBase`] for an
/// unusable `--url` / `--default-base`. Trouble inside one part only leaves that part as it was,
/// with a diagnostic in its report.
pub fn rewrite_message(
    input: &MessageInput<'_>,
    options: &Options,
) -> Result<RewrittenMessage, Error> {
    let done = process(input, options, Mode::Rewrite)?;
    Ok(RewrittenMessage {
        bytes: done.bytes,
        reports: done.reports,
    })
}

/// The links of every HTML part of a MIME message.
///
/// # Errors
/// As [`rewrite_message`].
pub fn links_message(input: &MessageInput<'_>, options: &Options) -> Result<Vec<Report>, Error> {
    Ok(process(input, options, Mode::Links)?.reports)
}

/// What [`process`] does with the HTML and CSS parts.
#[derive(Clone, Copy)]
pub(crate) enum Mode<'a> {
    /// Read and report only.
    Links,
    /// Rewrite, spliced back into the message in each part's own transfer encoding.
    Rewrite,
    /// Rewrite for files of their own ([`page`]): each changed part's new body kept decoded,
    /// whatever its transfer encoding; part `i`'s links written by its relinker, when it has
    /// one.
    Extract(&'a HashMap<usize, crate::Relinker>),
}

/// What [`process`] made.
pub(crate) struct Processed {
    /// The message with its changed parts put back ([`Mode::Rewrite`]).
    pub bytes: Vec<u8>,
    /// One report per HTML and CSS part, in message order, then the parts not read.
    pub reports: Vec<Report>,
    /// [`Mode::Extract`]: each changed part's new body (its charset, no transfer encoding).
    pub bodies: HashMap<usize, Vec<u8>>,
}

pub(crate) use crate::source::part_keys;

pub(crate) fn process(
    input: &MessageInput<'_>,
    options: &Options,
    mode: Mode<'_>,
) -> Result<Processed, Error> {
    // The caller's own statements are checked like a bare document's.
    crate::base::outer_base(
        &BaseLayers {
            content_base: None,
            content_location: None,
            ..input.layers.clone()
        },
        options.rewrite.resolve,
        &mut Vec::new(),
    )?;
    let mut documents =
        MessageDocuments::open(input.name, Cow::Borrowed(input.bytes), &input.layers)?;
    documents.resolve_with(options.rewrite.resolve);
    let want = match mode {
        Mode::Links => Want::Links,
        Mode::Rewrite => Want::Rewrite,
        Mode::Extract(_) => Want::Extract,
    };
    let mut reports = Vec::new();
    let mut bodies = HashMap::new();
    while let Some(item) = documents.next() {
        let document = match &item {
            Item::Document(d) => d,
            Item::Unread(record) => {
                reports.push(Report {
                    base: record.clone(),
                    links: Vec::new(),
                });
                continue;
            }
            _ => continue,
        };
        let Back::Part(back) = &document.back else {
            continue;
        };
        let part_options = match mode {
            Mode::Extract(relinkers) => {
                let mut o = options.clone();
                o.rewrite.relink = relinkers.get(&back.index).cloned();
                // `<base>` goes only where there is one: dropping it takes the DOM engine,
                // which may serialize the part (a `<base` start tag needs those bytes).
                let has_base = document
                    .bytes()
                    .is_some_and(|b| b.windows(5).any(|w| w.eq_ignore_ascii_case(b"<base")));
                o.rewrite.drop_base &= has_base;
                Cow::Owned(o)
            }
            _ => Cow::Borrowed(options),
        };
        // A part never fails: its trouble is a `part-skipped` diagnostic in its record.
        let outcome = crate::verb::in_memory(document, &part_options, want)?;
        match mode {
            Mode::Extract(_) => {
                if let Some(new) = outcome.new {
                    bodies.insert(back.index, new);
                }
            }
            Mode::Rewrite => {
                documents
                    .write(&item, outcome.new, &mut std::io::sink())
                    .map_err(|source| Error::Io {
                        input: input.name.to_owned(),
                        source,
                    })?;
            }
            Mode::Links => {}
        }
        reports.push(Report {
            base: outcome.done.base,
            links: outcome.links,
        });
    }
    Ok(Processed {
        bytes: documents.spliced(),
        reports,
        bodies,
    })
}

#[cfg(test)]
mod tests;
