//! `rewrite MESSAGE.eml --extract DIR` (also `.mht`, `.mhtml`): the message's page and the parts
//! it references as files below DIR, links between them relative
//! (`linkbase::message::page`), written through the one confined writer (`fsout`).

use std::path::Path;

use linkbase::message::{page, MessageInput};
use linkbase::pipeline::Options;

use crate::{Exit, Failure, Fatal};
use linkbase::fs as fsout;
use linkbase::text as say;
use linkbase::text::escape_controls;

/// Writes the page of `input` below `dir`; says what was written, what was left out and why,
/// and where the page is. Exit 1 when a file could not be written or a part could not be read.
pub fn extract(input: &MessageInput<'_>, dir: &Path, options: &Options) -> Result<Exit, Failure> {
    let started = std::time::Instant::now();
    let made = page::extract_page(input, options).map_err(Fatal::from)?;
    write_page(input, made, dir, started)
}

/// `rewrite MBOX --extract DIR`: each message's page below `DIR/N`, N its place in the mbox
/// (from 0), as `rewrite MESSAGE --extract DIR/N` writes it; a message with no HTML part is
/// counted, one that cannot be read said. Exit 1 when one could not be read or written.
pub fn extract_mbox(
    source: &mut linkbase::source::Source<'_>,
    dir: &Path,
    options: &Options,
) -> Result<Exit, Failure> {
    let started = std::time::Instant::now();
    let (mut pages, mut plain, mut unread) = (0u64, 0u64, 0u64);
    let mut exit = Exit::Ok;
    while let Some(next) = source.next_message() {
        let message = match next {
            Ok(m) => m,
            Err(skipped) => {
                for said in &skipped.said {
                    eprintln!("linkbase: {}", escape_controls(said));
                }
                unread += 1;
                continue;
            }
        };
        let began = std::time::Instant::now();
        let input = message.input();
        let made = match page::extract_page(&input, options) {
            Ok(made) => made,
            Err(linkbase::Error::NoHtmlPart { .. }) => {
                plain += 1;
                continue;
            }
            Err(e) => {
                eprintln!("linkbase: {}", escape_controls(&e.to_string()));
                unread += 1;
                continue;
            }
        };
        let sub = dir.join(message.index.to_string());
        pages += 1;
        match write_page(&input, made, &sub, began) {
            Ok(Exit::Ok) => {}
            Ok(_) => exit = Exit::Problems,
            Err(Failure::Fatal(Fatal(e))) => {
                eprintln!(
                    "linkbase: {}: {}",
                    escape_controls(input.name),
                    escape_controls(&e)
                );
                exit = Exit::Problems;
            }
            Err(e) => return Err(e),
        }
    }
    let mut line = format!(
        "{}: {} written below {} (one directory per message, named by its place from 0)",
        escape_controls(source.name()),
        say::n(pages, "page"),
        escape_controls(&dir.display().to_string()),
    );
    if plain > 0 {
        line += &format!(
            "; {} without an HTML part, not written",
            say::n(plain, "message")
        );
    }
    if unread > 0 {
        line += &format!("; {unread} skipped, see above");
        exit = Exit::Problems;
    }
    eprintln!("linkbase: {line}; {:.2} s", started.elapsed().as_secs_f64());
    Ok(exit)
}

/// Writes `made`, the page of `input`, below `dir`, and says what it did.
fn write_page(
    input: &MessageInput<'_>,
    made: page::MessagePage,
    dir: &Path,
    started: std::time::Instant,
) -> Result<Exit, Failure> {
    let name = escape_controls(input.name);
    for c in &made.collisions {
        crate::warc::say_collision(input.name, dir, c);
    }
    let skipped = crate::say_skipped_parts(input.name, &made.reports);
    for report in &made.reports {
        if let Some(summary) = report.unresolved_summary() {
            eprintln!(
                "linkbase: {name} part {}: {summary}",
                report.base.origin.part.as_deref().unwrap_or("?")
            );
        }
    }
    for l in &made.left_out {
        eprintln!(
            "linkbase: {name} part {} ({}) not written: {}",
            l.part,
            escape_controls(&l.what),
            l.why
        );
    }
    let root = fsout::Dir::open(dir, true).map_err(Fatal)?;
    let _lock = fsout::TreeLock::acquire(dir).map_err(Fatal)?;
    for stale in fsout::remove_stale_temps(&root) {
        crate::say_removed(&stale);
    }
    let shown = |rel: &Path| escape_controls(&dir.join(rel).display().to_string()).into_owned();
    let mut unwritten = 0u64;
    for file in &made.files {
        if let Err(e) = fsout::write_below(&root, &file.path, &file.bytes) {
            unwritten += 1;
            eprintln!(
                "linkbase: {name} part {}: {} not written: {}",
                file.part,
                shown(&file.path),
                escape_controls(&e)
            );
        }
    }
    let synced = root.sync();
    if let Err(e) = &synced {
        eprintln!("linkbase: {}", escape_controls(e));
    }
    let bases_removed = made
        .reports
        .iter()
        .filter(|r| r.base.base_removed())
        .count() as u64;
    let mut notes = vec![format!(
        "{} to them made relative",
        say::n(made.relinked, "link")
    )];
    if bases_removed > 0 {
        notes.push(format!(
            "<base> removed from {} (it would redirect the relative links)",
            say::n(bases_removed, "part")
        ));
    }
    if !made.left_out.is_empty() {
        notes.push(format!(
            "{} not written, see above",
            say::n(made.left_out.len() as u64, "part")
        ));
    }
    if unwritten > 0 {
        notes.push(format!("{unwritten} could not be written, see above"));
    }
    let page = made
        .files
        .first()
        .map(|f| shown(&f.path))
        .unwrap_or_default();
    eprintln!(
        "linkbase: {name}: {} written to {}; the page: {page}; {}; {:.2} s",
        say::n(made.files.len() as u64, "file"),
        escape_controls(&dir.display().to_string()),
        notes.join("; "),
        started.elapsed().as_secs_f64()
    );
    Ok(if unwritten > 0 || synced.is_err() || skipped > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    })
}
