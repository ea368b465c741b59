//! `links` and `base` of an mbox (issue 23): each message goes through the MIME message path
//! as an `.eml` would, and each record gains the message's place (`mbox_message`, from 0) and
//! its `Message-ID` (`message_id`, or null).

use std::io::{BufWriter, Write};

use linkbase::input::mbox::{self, MboxMessage};
use linkbase::message::{self, MessageInput};
use linkbase::pipeline::Options;
use linkbase::{Headers, Report};

use crate::args::{BaseFormat, LinksFormat};
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

/// Every message read through the MIME path, in order; messages that cannot be read are said.
fn read_all(loaded: &Loaded, options: &Options) -> (Vec<(MboxMessage, Vec<Report>)>, u64) {
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
    let mut out = Vec::new();
    for m in messages {
        let label = format!("{shown} message {} (offset {})", m.index, m.offset);
        let input = MessageInput {
            name: &label,
            bytes: &m.bytes,
            layers: loaded.layers.clone(),
        };
        match message::links_message(&input, options) {
            Ok(reports) => {
                if say_skipped_parts(&label, &reports) > 0 {
                    problems += 1;
                }
                out.push((m, reports));
            }
            Err(e) => {
                eprintln!("linkbase: {}", escape_controls(&e.to_string()));
                problems += 1;
            }
        }
    }
    eprintln!(
        "linkbase: {name}: {} read",
        say::n(out.len() as u64, "message")
    );
    (out, problems)
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
