//! `links` and `base` of an mbox (issue 23): each message goes through the MIME message path
//! as an `.eml` would, and each record gains the message's place (`mbox_message`, from 0) and
//! its `Message-ID` (`message_id`, or null). The mbox is read from its file a message at a
//! time (`input::mbox::MboxReader`): what a message gives is written and said before the next
//! is read, so memory holds one message, never the mailbox.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};

use linkbase::input::mbox::{MboxMessage, MboxReader};
use linkbase::message::mbox;
use linkbase::pipeline::Options;
use linkbase::Report;

use crate::args::{BaseFormat, LinksFormat, RewriteArgs};
use crate::load::Loaded;
use crate::text::{escape_controls, write_tsv};
use crate::{say, say_skipped_parts, Exit, Failure, Fatal};

/// The name messages are labelled with (stdin for `-`).
fn shown(loaded: &Loaded) -> &str {
    if loaded.name == "-" {
        "stdin"
    } else {
        &loaded.name
    }
}

/// The mbox's reader, from its file (stdin was spooled to one).
fn open(loaded: &Loaded) -> Result<MboxReader<BufReader<File>>, Fatal> {
    let name = escape_controls(shown(loaded));
    let path = loaded
        .large
        .as_ref()
        .map(|l| l.path.clone())
        .unwrap_or_else(|| loaded.name.clone().into());
    File::open(&path)
        .map(|f| BufReader::with_capacity(256 * 1024, f))
        .and_then(MboxReader::new)
        .map_err(|e| Fatal(format!("{name}: {e}")))
}

/// What is said of an mbox as it is read, in file order: bytes before the first message, each
/// message's problems or error, and at the end the count read. `problems` counts what was
/// said.
struct Said<'a> {
    name: &'a str,
    preamble_said: bool,
    read: u64,
    problems: u64,
}

impl<'a> Said<'a> {
    fn new(name: &'a str) -> Self {
        Said {
            name,
            preamble_said: false,
            read: 0,
            problems: 0,
        }
    }

    /// Before the first message's results: the bytes before it.
    fn preamble(&mut self, preamble: u64) {
        if self.preamble_said {
            return;
        }
        self.preamble_said = true;
        if preamble > 0 {
            eprintln!(
                "linkbase: {}: {} before the first `From ` line belong to no message: skipped",
                escape_controls(self.name),
                say::n(preamble, "byte")
            );
            self.problems += 1;
        }
    }

    /// A message: its `trouble` (which says its problems and whether there were any), or its
    /// error.
    fn message<T>(
        &mut self,
        result: &Result<T, linkbase::Error>,
        trouble: impl FnOnce(&T) -> bool,
    ) {
        match result {
            Ok(value) => {
                self.read += 1;
                self.problems += u64::from(trouble(value));
            }
            Err(e) => {
                eprintln!("linkbase: {}", escape_controls(&e.to_string()));
                self.problems += 1;
            }
        }
    }

    /// The count read, and the exit code.
    fn end(mut self, preamble: u64) -> Exit {
        self.preamble(preamble);
        eprintln!(
            "linkbase: {}: {} read",
            escape_controls(self.name),
            say::n(self.read, "message")
        );
        if self.problems > 0 {
            Exit::Problems
        } else {
            Exit::Ok
        }
    }
}

/// Every message read through the MIME path, in order, each message's reports given to `each`
/// as it is read; messages that cannot be read are said. The exit code.
fn read_each(
    loaded: &Loaded,
    options: &Options,
    mut each: impl FnMut(&MboxMessage, &[Report]) -> std::io::Result<()>,
) -> Result<Exit, Failure> {
    let name = shown(loaded);
    let mut reader = open(loaded)?;
    let mut said = Said::new(name);
    let mut failure = None;
    let result = mbox::each_message(
        name,
        &mut reader,
        &loaded.layers,
        |input| linkbase::message::links_message(input, options),
        |m, mut result| {
            if m.index == 0 {
                // The bytes before the first message: all that came before it.
                said.preamble(m.offset);
            }
            if let Ok(reports) = &mut result {
                mbox::tag(m, reports);
            }
            said.message(&result, |reports| {
                say_skipped_parts(&mbox::label(name, m), reports) > 0
            });
            if let (Ok(reports), None) = (&result, &failure) {
                if let Err(e) = each(m, reports) {
                    failure = Some(e);
                }
            }
        },
    );
    if let Some(e) = failure {
        return Err(e.into());
    }
    result.map_err(|e| Fatal(escape_controls(&e.to_string()).into_owned()))?;
    Ok(said.end(reader.preamble()))
}

/// `rewrite MBOX`: each message through the MIME message rewrite, as an `.eml` would be; the
/// mbox written back with only the messages that changed re-framed (`input::mbox::join`), and
/// in them only the parts that changed re-encoded. A message that cannot be read is kept as it
/// was. Read a message at a time; the output is built in memory (it goes where `rewrite`'s
/// output goes: stdout, `-o`, in place).
pub(crate) fn rewrite(
    loaded: &Loaded,
    args: &RewriteArgs,
    options: &Options,
) -> Result<(Vec<u8>, Exit), Failure> {
    let name = shown(loaded);
    let mut reader = open(loaded)?;
    let mut said = Said::new(name);
    let mut out = Vec::new();
    let result = mbox::rewrite_to(
        name,
        &mut reader,
        &loaded.layers,
        options,
        &mut out,
        |m, result| {
            if m.index == 0 {
                said.preamble(m.offset);
            }
            said.message(&result, |r| {
                crate::say_message(args, &mbox::label(name, m), &r.reports) == Exit::Problems
            });
        },
    );
    result.map_err(|e| Fatal(escape_controls(&e.to_string()).into_owned()))?;
    Ok((out, said.end(reader.preamble())))
}

pub(crate) fn links(
    loaded: &Loaded,
    format: LinksFormat,
    options: &Options,
    out: &mut dyn Write,
) -> Result<Exit, Failure> {
    let mut out = BufWriter::new(out);
    if matches!(format, LinksFormat::Tsv) {
        write_tsv(&mut out, &[], true)?;
    }
    let exit = read_each(loaded, options, |_, reports| {
        for r in reports {
            match format {
                LinksFormat::Jsonl => linkbase::report::write_jsonl(&mut out, &r.links)?,
                LinksFormat::Tsv => write_tsv(&mut out, &r.links, false)?,
            }
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(exit)
}

pub(crate) fn base(
    loaded: &Loaded,
    format: BaseFormat,
    root_only: bool,
    options: &Options,
    out: &mut dyn Write,
) -> Result<Exit, Failure> {
    let mut out = BufWriter::new(out);
    let exit = read_each(loaded, options, |m, reports| {
        for b in reports
            .iter()
            .map(|r| &r.base)
            .filter(|b| !root_only || b.root != Some(false))
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
        Ok(())
    })?;
    out.flush()?;
    Ok(exit)
}
