//! `links` and `base` of an mbox (issue 23): each message goes through the MIME message path
//! as an `.eml` would, and each record gains the message's place (`mbox_message`, from 0) and
//! its `Message-ID` (`message_id`, or null).

use std::io::{BufWriter, Write};

use linkbase::input::mbox::MboxMessage;
use linkbase::message::mbox::{self, Mbox};
use linkbase::pipeline::Options;
use linkbase::Report;

use crate::args::{BaseFormat, LinksFormat, RewriteArgs};
use crate::load::Loaded;
use crate::text::{escape_controls, write_tsv};
use crate::{say, say_skipped_parts, Exit, Failure};

/// Says what an mbox read gave on stderr, in file order: bytes before the first message, each
/// message's problems (`trouble`, which says them and whether there were any) or error, and the
/// count read. How many problems there were.
fn said<T>(loaded: &Loaded, read: &Mbox<T>, trouble: &mut dyn FnMut(&str, &T) -> bool) -> u64 {
    let name = escape_controls(shown(loaded));
    let mut problems = 0;
    if read.preamble > 0 {
        eprintln!(
            "linkbase: {name}: {} before the first `From ` line belong to no message: skipped",
            say::n(read.preamble as u64, "byte")
        );
        problems += 1;
    }
    for (m, result) in read.messages.iter().zip(&read.results) {
        match result {
            Ok(value) => problems += u64::from(trouble(&mbox::label(shown(loaded), m), value)),
            Err(e) => {
                eprintln!("linkbase: {}", escape_controls(&e.to_string()));
                problems += 1;
            }
        }
    }
    eprintln!(
        "linkbase: {name}: {} read",
        say::n(
            read.results.iter().filter(|r| r.is_ok()).count() as u64,
            "message"
        )
    );
    problems
}

/// The name messages are labelled with (stdin for `-`).
fn shown(loaded: &Loaded) -> &str {
    if loaded.name == "-" {
        "stdin"
    } else {
        &loaded.name
    }
}

/// Every message read through the MIME path, in order; messages that cannot be read are said.
fn read_all(loaded: &Loaded, options: &Options) -> (Vec<(MboxMessage, Vec<Report>)>, u64) {
    let read = mbox::links(shown(loaded), &loaded.bytes, &loaded.layers, options);
    let problems = said(loaded, &read, &mut |label, reports| {
        say_skipped_parts(label, reports) > 0
    });
    let messages = read
        .messages
        .into_iter()
        .zip(read.results)
        .filter_map(|(m, r)| Some((m, r.ok()?)))
        .collect();
    (messages, problems)
}

/// `rewrite MBOX`: each message through the MIME message rewrite, as an `.eml` would be; the
/// mbox written back with only the messages that changed re-framed (`mbox::join`), and in them
/// only the parts that changed re-encoded. A message that cannot be read is kept as it was.
pub(crate) fn rewrite(loaded: &Loaded, args: &RewriteArgs, options: &Options) -> (Vec<u8>, Exit) {
    let (bytes, read) = mbox::rewrite(shown(loaded), &loaded.bytes, &loaded.layers, options);
    let problems = said(loaded, &read, &mut |label, r| {
        crate::say_message(args, label, &r.reports) == Exit::Problems
    });
    let exit = if problems > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    };
    (bytes, exit)
}

pub(crate) fn links(
    loaded: &Loaded,
    format: LinksFormat,
    options: &Options,
    out: &mut dyn Write,
) -> Result<Exit, Failure> {
    let (messages, problems) = read_all(loaded, options);
    let mut out = BufWriter::new(out);
    if matches!(format, LinksFormat::Tsv) {
        write_tsv(&mut out, &[], true)?;
    }
    for (_, reports) in &messages {
        for r in reports {
            match format {
                LinksFormat::Jsonl => linkbase::report::write_jsonl(&mut out, &r.links)?,
                LinksFormat::Tsv => write_tsv(&mut out, &r.links, false)?,
            }
        }
    }
    out.flush()?;
    Ok(if problems > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    })
}

pub(crate) fn base(
    loaded: &Loaded,
    format: BaseFormat,
    root_only: bool,
    options: &Options,
    out: &mut dyn Write,
) -> Result<Exit, Failure> {
    let (messages, problems) = read_all(loaded, options);
    let mut out = BufWriter::new(out);
    for (m, reports) in &messages {
        for b in reports
            .iter()
            .map(|r| &r.base)
            .filter(|b| !root_only || b.origin.root != Some(false))
        {
            match format {
                BaseFormat::Jsonl => {
                    linkbase::report::write_jsonl(&mut out, std::slice::from_ref(b))?
                }
                BaseFormat::Text => {
                    write!(out, "{}\t", m.index)?;
                    crate::text::write_base_line(&mut out, b)?;
                }
            }
        }
    }
    out.flush()?;
    Ok(if problems > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    })
}
