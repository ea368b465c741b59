//! `links` and `base` of an mbox (issue 23): each message goes through the MIME message path
//! as an `.eml` would, and each record gains the message's place (`mbox_message`, from 0) and
//! its `Message-ID` (`message_id`, or null).

use std::io::{BufWriter, Write};

use linkbase::input::mbox::{self, MboxMessage};
use linkbase::message::{self, MessageInput};
use linkbase::pipeline::Options;
use linkbase::{Headers, Report};

use crate::args::{BaseFormat, LinksFormat, RewriteArgs};
use crate::load::Loaded;
use crate::text::{escape_controls, write_tsv};
use crate::{say, say_skipped_parts, Exit, Failure};

/// The `Message-ID` of a message's heading.
fn message_id(m: &MboxMessage) -> Option<String> {
    let end = memchr_blank(&m.bytes);
    let heading = String::from_utf8_lossy(m.bytes.get(..end).unwrap_or_default());
    Headers::parse(&heading)
        .get("Message-ID")
        .map(|v| v.trim().to_owned())
}

fn memchr_blank(bytes: &[u8]) -> usize {
    let crlf = find(bytes, b"\r\n\r\n");
    let lf = find(bytes, b"\n\n");
    crlf.into_iter().chain(lf).min().unwrap_or(bytes.len())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// What one message gave, and whether it had problems (said already).
type Outcome<T> = Result<(T, bool), linkbase::Error>;

/// Every message of the mbox through `run` (given its label for messages, `NAME message I
/// (offset O)`), in order: the messages, what each gave (`None`: it could not be read, which is
/// said), and how many problems there were (bytes before the first message, messages not read,
/// messages with problems).
fn each<T>(
    loaded: &Loaded,
    run: &mut dyn FnMut(&str, &MessageInput<'_>) -> Outcome<T>,
) -> (Vec<MboxMessage>, Vec<Option<T>>, u64) {
    let shown = if loaded.name == "-" {
        "stdin"
    } else {
        &loaded.name
    };
    let name = escape_controls(shown);
    let (messages, preamble) = mbox::split(&loaded.bytes);
    let mut problems = 0;
    if preamble > 0 {
        eprintln!(
            "linkbase: {name}: {} before the first `From ` line belong to no message: skipped",
            say::n(preamble as u64, "byte")
        );
        problems += 1;
    }
    let mut out = Vec::with_capacity(messages.len());
    for m in &messages {
        let label = format!("{shown} message {} (offset {})", m.index, m.offset);
        let input = MessageInput {
            name: &label,
            bytes: &m.bytes,
            layers: loaded.layers.clone(),
        };
        match run(&label, &input) {
            Ok((value, trouble)) => {
                problems += u64::from(trouble);
                out.push(Some(value));
            }
            Err(e) => {
                eprintln!("linkbase: {}", escape_controls(&e.to_string()));
                problems += 1;
                out.push(None);
            }
        }
    }
    eprintln!(
        "linkbase: {name}: {} read",
        say::n(out.iter().flatten().count() as u64, "message")
    );
    (messages, out, problems)
}

/// Every message read through the MIME path, in order; messages that cannot be read are said.
fn read_all(loaded: &Loaded, options: &Options) -> (Vec<(MboxMessage, Vec<Report>)>, u64) {
    let (messages, reports, problems) = each(loaded, &mut |label, input| {
        message::links_message(input, options).map(|r| {
            let trouble = say_skipped_parts(label, &r) > 0;
            (r, trouble)
        })
    });
    let read = messages
        .into_iter()
        .zip(reports)
        .filter_map(|(m, r)| Some((m, r?)))
        .collect();
    (read, problems)
}

/// `rewrite MBOX`: each message through the MIME message rewrite, as an `.eml` would be; the
/// mbox written back with only the messages that changed re-framed (`mbox::join`), and in them
/// only the parts that changed re-encoded. A message that cannot be read is kept as it was.
pub(crate) fn rewrite(loaded: &Loaded, args: &RewriteArgs, options: &Options) -> (Vec<u8>, Exit) {
    let (messages, new, problems) = each(loaded, &mut |label, input| {
        message::rewrite_message(input, options).map(|r| {
            let trouble = crate::say_message(args, label, &r.reports) == Exit::Problems;
            (r.bytes, trouble)
        })
    });
    let bytes = mbox::join(&loaded.bytes, &messages, &new);
    let exit = if problems > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    };
    (bytes, exit)
}

/// A record as a JSON line (fields in the order of every other input's records) with the
/// message's place and ID added last.
fn write_tagged(
    out: &mut impl Write,
    record: &impl serde::Serialize,
    m: &MboxMessage,
    id: &Option<String>,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    linkbase::report::write_jsonl(&mut line, std::slice::from_ref(record))?;
    while matches!(line.last(), Some(b'\n' | b'}')) {
        line.pop();
    }
    let id = serde_json::to_string(id).unwrap_or_else(|_| "null".to_owned());
    writeln!(
        out,
        "{},\"mbox_message\":{},\"message_id\":{id}}}",
        String::from_utf8_lossy(&line),
        m.index
    )
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
    for (m, reports) in &messages {
        let id = message_id(m);
        for r in reports {
            match format {
                LinksFormat::Jsonl => {
                    for l in &r.links {
                        write_tagged(&mut out, l, m, &id)?;
                    }
                }
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
        let id = message_id(m);
        for b in reports
            .iter()
            .map(|r| &r.base)
            .filter(|b| !root_only || b.root != Some(false))
        {
            match format {
                BaseFormat::Jsonl => write_tagged(&mut out, b, m, &id)?,
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
