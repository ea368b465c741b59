//! `rewrite X.warc --extract DIR` (and `.arc`): every archived page and file below DIR, as
//! wget names them, links between them relative with `--relative`; records are read in order,
//! HTML records processed in parallel batches, results written in record order.

use std::io;
use std::path::Path;

use linkbase::archive::{self, Archive, Event, HtmlRecord};
use linkbase::input::warc::Place;
use linkbase::pipeline::Options;
use linkbase::text::escape_controls;
use rayon::prelude::*;

use crate::args::RewriteArgs;
use crate::{Exit, Failure, Fatal};
use linkbase::fs as fsout;
use linkbase::text as say;

/// A batch holds at most this many records, or this many payload bytes: memory stays flat in
/// the archive's size while every core has work.
const BATCH_RECORDS: usize = 64;
const BATCH_BYTES: usize = 32 * 1024 * 1024;

/// `rewrite X --extract DIR` of `archive` (named `name`): a first pass names every file that
/// will be written, before any is (two URLs never share one, and links between them can become
/// relative paths); then each page and file is written.
pub(crate) fn extract(
    archive: &Archive,
    name: &str,
    args: &RewriteArgs,
    dir: &Path,
    options: &Options,
    started: std::time::Instant,
) -> Result<Exit, Failure> {
    let mut archive = archive.reopen().map_err(Fatal::from)?.with_others();
    let mut uris = Vec::new();
    let mut redirects = Vec::new();
    for event in archive.reopen().map_err(Fatal::from)?.with_others() {
        match event {
            Event::Html(h) if extracted(h.status) => uris.extend(
                h.reference
                    .warc_target_uri
                    .map(|u| (u, linkbase::layout::Kind::Html)),
            ),
            Event::Other(o) if o.is_redirect() => {
                let (Some(from), Some(location)) =
                    (o.reference.warc_target_uri, o.location.as_deref())
                else {
                    continue;
                };
                let to = linkbase::Resolver::new(&from, options.rewrite.resolve)
                    .ok()
                    .and_then(|r| r.resolve(location).ok())
                    .map(|r| r.uri.to_string());
                if let Some(to) = to {
                    redirects.push((from, to));
                }
            }
            Event::Other(o) if extracted(o.status) => {
                let kind = if archive::is_stylesheet(o.content_type.as_deref()) {
                    linkbase::layout::Kind::Css
                } else {
                    linkbase::layout::Kind::Other
                };
                uris.extend(o.reference.warc_target_uri.map(|u| (u, kind)));
            }
            _ => {}
        }
    }
    // The crawler's own records (wget's `metadata://` log and arguments) take no name: a
    // crawl of gnu.org must not see its files renamed for them.
    let (mut names, collisions) = archive::ExtractNames::assign_in(
        uris.iter()
            .filter(|(u, _)| linkbase::layout::of_the_web(u))
            .map(|(u, k)| (u.as_str(), *k)),
        match args.layout {
            crate::args::LayoutArg::Plain => linkbase::layout::Layout::Plain,
            crate::args::LayoutArg::Httrack => linkbase::layout::Layout::Httrack,
            crate::args::LayoutArg::Auto | crate::args::LayoutArg::Wget => {
                linkbase::layout::Layout::Wget
            }
        },
    );
    drop(uris);
    let followed = names.follow(&redirects) as u64;
    drop(redirects);
    let names = std::sync::Arc::new(names);
    for c in &collisions {
        say_collision(name, dir, c);
    }
    let collided = collisions.len() as u64;
    if args.relative {
        let relinker = archive::ExtractRelinker::new(names.clone());
        let mut options = options.clone();
        options.rewrite.relink = Some(linkbase::Relinker(std::sync::Arc::new(relinker)));
        // Said in the summary, with the count, when some were.
        let by_relative = !options.rewrite.drop_base;
        options.rewrite.drop_base = true;
        return write_extraction(
            &mut archive,
            name,
            dir,
            &names,
            (collided, followed),
            &options,
            by_relative,
            started,
        );
    }
    write_extraction(
        &mut archive,
        name,
        dir,
        &names,
        (collided, followed),
        options,
        false,
        started,
    )
}

/// Reads `archive` to its end: HTML records go through `work` on every core, a batch at a time,
/// and every event reaches `sink` in record order with its result.
fn run<T: Send>(
    archive: &mut Archive,
    work: impl Fn(&HtmlRecord) -> T + Sync,
    mut sink: impl FnMut(Event, Option<T>) -> io::Result<()>,
) -> io::Result<()> {
    loop {
        let mut batch = Vec::new();
        let mut bytes = 0;
        for event in archive.by_ref() {
            match &event {
                Event::Html(h) => bytes += h.payload.len(),
                Event::Other(o) => bytes += o.payload.len(),
                _ => {}
            }
            batch.push(event);
            if batch.len() >= BATCH_RECORDS || bytes >= BATCH_BYTES {
                break;
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        let results: Vec<Option<T>> = batch
            .par_iter()
            .map(|e| match e {
                Event::Html(h) => Some(work(h)),
                _ => None,
            })
            .collect();
        for (event, result) in batch.into_iter().zip(results) {
            sink(event, result)?;
        }
    }
}

/// What a run says at its end, in one line (`tail`: what a rewrite wrote, where, and its time),
/// and its exit code: damage makes it 1 (the archive is not whole, even where its records were
/// read past it), as do records past a limit, revisits whose original is not in the file, and
/// records the pipeline could not read.
fn finish(name: &str, archive: &Archive, failed: u64, tail: &str) -> Exit {
    let counts = archive.counts();
    let failed_note = if failed > 0 {
        format!(", {} could not be processed", say::n(failed, "HTML record"))
    } else {
        String::new()
    };
    eprintln!(
        "linkbase: {}: {counts}{failed_note}{tail}",
        escape_controls(name)
    );
    if counts.incomplete() || failed > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    }
}

/// Damage, records read past damage, records skipped past a bound and revisits without their
/// original, each on a line of its own.
fn say_damage(name: &str, event: &Event) {
    let salvaged = match event {
        Event::Html(h) => h.damage.as_deref().map(|d| (h.id(), h.place(), d)),
        Event::Skipped {
            reference,
            offset,
            within,
            damage: Some(d),
            ..
        } => Some((
            reference.id(),
            Place {
                offset: *offset,
                within: *within,
            },
            d.as_str(),
        )),
        _ => None,
    };
    if let Some((id, at, damage)) = salvaged {
        eprintln!(
            "linkbase: {}: record {} at {at} read past damage: {}",
            escape_controls(name),
            escape_controls(id),
            escape_controls(damage)
        );
    }
    match event {
        Event::Damaged(d) => eprintln!(
            "linkbase: {}: damaged record at {}",
            escape_controls(name),
            escape_controls(&d.to_string())
        ),
        Event::Skipped {
            reference,
            offset,
            within,
            message: Some(message),
            ..
        } => eprintln!(
            "linkbase: {}: record {} at {} skipped: {}",
            escape_controls(name),
            escape_controls(reference.id()),
            Place {
                offset: *offset,
                within: *within
            },
            escape_controls(message)
        ),
        _ => {}
    }
}

fn say_failure(name: &str, record: &HtmlRecord, e: &linkbase::Error) {
    eprintln!(
        "linkbase: {}: record {} at {}: {}",
        escape_controls(name),
        escape_controls(record.id()),
        record.place(),
        escape_controls(&e.to_string())
    );
}

/// A URL that could not have its wget name, on a line of its own: which URL holds the name, and
/// where this one goes.
pub fn say_collision(name: &str, dir: &Path, c: &archive::ExtractCollision) {
    let path = |p: &Path| escape_controls(&dir.join(p).display().to_string()).into_owned();
    eprintln!(
        "linkbase: {}: {} and {} map to one name, {}{}; {} is written to {}",
        escape_controls(name),
        escape_controls(&c.holder),
        escape_controls(&c.uri),
        path(&c.name),
        if c.directory {
            format!(", a directory of {}", escape_controls(&c.holder))
        } else {
            String::new()
        },
        escape_controls(&c.uri),
        path(&c.file),
    );
}

/// Whether `--extract` writes a record of this archived HTTP status: a 2xx response, or a
/// resource (no status).
fn extracted(status: Option<u16>) -> bool {
    status.is_none_or(|s| (200..300).contains(&s))
}

/// `rewrite IN.warc.gz --extract DIR`: each archived page (2xx responses and resources),
/// rewritten, at `DIR/host/path` as wget names its files (`archive::extract_path`: every name
/// stays under DIR), or the name `archive::ExtractNames` gave it when two URLs would share one
/// (said, and counted); a later capture of the same URI replaces an earlier one (counted). Every file goes
/// through the confined writer (no symbolic link below DIR is followed); a page that cannot be
/// written is reported with its path and the reason, and the run goes on (exit 1).
#[allow(clippy::too_many_arguments)]
fn write_extraction(
    archive: &mut Archive,
    name: &str,
    dir: &Path,
    names: &archive::ExtractNames,
    (collided, followed): (u64, u64),
    options: &Options,
    base_by_relative: bool,
    started: std::time::Instant,
) -> Result<Exit, Failure> {
    let root = fsout::Dir::open(dir, true).map_err(Fatal)?;
    let _lock = fsout::TreeLock::acquire(dir).map_err(Fatal)?;
    for stale in fsout::remove_stale_temps(&root) {
        crate::say_removed(&stale);
    }
    let mut failed = 0u64;
    // Files written, by name: a later capture of a URL replaces its file and is counted apart.
    let mut written = std::collections::HashSet::new();
    let mut recaptured = 0u64;
    // Of them, files that are not pages.
    let mut others = 0u64;
    let mut unwritten = 0u64;
    let mut unnamed = 0u64;
    // Records of the crawler's own (wget's `metadata://` arguments and log), and the first one.
    let mut own: (u64, Option<String>) = (0, None);
    let mut bases_removed = 0u64;
    // Pages given a <meta charset> for the charset only their Content-Type said.
    let mut charsets_declared = 0u64;
    let drop_base = options.rewrite.drop_base;
    run(
        archive,
        |h| {
            rewrite_record(h, name, options).map(|(bytes, w)| {
                let removed = drop_base && w.base.base_removed();
                // A file has no transport; the charset it gave is declared.
                let declared = (w.base.encoding_source == linkbase::EncodingSource::Transport)
                    .then(|| archive::declare_charset(&bytes, w.base.encoding))
                    .flatten();
                let charset = declared.is_some();
                (declared.unwrap_or(bytes), (removed, charset))
            })
        },
        |event, result| {
            say_damage(name, &event);
            // Writes `bytes` as the file of the record's target URI: `Some(new)` when written
            // (`new`: no earlier capture of the URL wrote it), `None` when the record has no
            // name or the file could not be written (counted, and said).
            let mut put = |reference: &archive::RecordRef, place: Place, bytes: &[u8]| {
                if let Some(uri) = reference
                    .warc_target_uri
                    .as_deref()
                    .filter(|u| !linkbase::layout::of_the_web(u))
                {
                    own.0 += 1;
                    own.1.get_or_insert_with(|| uri.to_owned());
                    return None;
                }
                let Some(rel) = reference
                    .warc_target_uri
                    .as_deref()
                    .and_then(|u| names.file(u))
                else {
                    unnamed += 1;
                    return None;
                };
                match fsout::write_below(&root, rel, bytes) {
                    Ok(()) => {
                        let new = written.insert(rel.to_path_buf());
                        recaptured += u64::from(!new);
                        Some(new)
                    }
                    Err(e) => {
                        unwritten += 1;
                        say_unwritten(name, reference.id(), &place.to_string(), dir, rel, &e);
                        None
                    }
                }
            };
            if let Event::Other(o) = &event {
                if !extracted(o.status) {
                    return Ok(());
                }
                let css = archive::is_stylesheet(o.content_type.as_deref())
                    .then(|| archive::rewrite_stylesheet(o, options))
                    .flatten();
                let bytes = css.as_deref().unwrap_or(&o.payload);
                if put(&o.reference, o.place(), bytes) == Some(true) {
                    others += 1;
                }
                return Ok(());
            }
            let (Event::Html(h), Some(result)) = (event, result) else {
                return Ok(());
            };
            let bytes = match result {
                Ok((b, (removed, charset))) => {
                    bases_removed += u64::from(removed && extracted(h.status));
                    charsets_declared += u64::from(charset && extracted(h.status));
                    b
                }
                Err(e) => {
                    failed += 1;
                    say_failure(name, &h, &e);
                    return Ok(());
                }
            };
            if extracted(h.status) {
                put(&h.reference, h.place(), &bytes);
            }
            Ok(())
        },
    )?;
    // One sync for every page instead of one fsync per page.
    let synced = root.sync();
    if let Err(e) = &synced {
        eprintln!("linkbase: {}", escape_controls(e));
    }
    let mut notes = Vec::new();
    if collided > 0 {
        notes.push(format!(
            "{} renamed to keep them apart, see above",
            say::n(collided, "URL")
        ));
    }
    if followed > 0 {
        notes.push(format!(
            "{} to an extracted file followed",
            say::n(followed, "redirect")
        ));
    }
    if recaptured > 0 {
        notes.push(format!(
            "{} of an extracted URL replaced the earlier",
            say::n(recaptured, "later capture")
        ));
    }
    if let (n @ 1.., Some(first)) = &own {
        // wget users do not expect wget's log and arguments among the site's files.
        notes.push(format!(
            "{} not of the web left out ({}{}: the crawler's own, not the site's)",
            say::n(*n, "record"),
            escape_controls(first),
            if *n > 1 { ", …" } else { "" }
        ));
    }
    if unnamed > 0 {
        notes.push(format!("{unnamed} without a usable target URI left out"));
    }
    if unwritten > 0 {
        notes.push(format!("{unwritten} could not be written, see above"));
    }
    let declared = if charsets_declared > 0 {
        format!(
            "; <meta charset> inserted in {} (their charset came from the archived Content-Type)",
            say::n(charsets_declared, "page")
        )
    } else {
        String::new()
    };
    let removed = if bases_removed > 0 {
        format!(
            "; <base> removed from {}{}",
            say::n(bases_removed, "page"),
            if base_by_relative {
                " (by --relative: it would redirect the relative links)"
            } else {
                ""
            }
        )
    } else {
        String::new()
    };
    let tail = format!(
        "; {} written to {}{}{removed}{declared}; {:.2} s",
        if others > 0 {
            format!(
                "{} and {}",
                say::n(written.len() as u64 - others, "page"),
                say::n(others, "other file")
            )
        } else {
            say::n(written.len() as u64, "page")
        },
        escape_controls(&dir.display().to_string()),
        if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        },
        started.elapsed().as_secs_f64()
    );
    let exit = finish(name, archive, failed, &tail);
    Ok(if unwritten > 0 || synced.is_err() {
        Exit::Problems
    } else {
        exit
    })
}

/// A file of an extraction that could not be written, with its record and the reason.
fn say_unwritten(name: &str, id: &str, place: &str, dir: &Path, rel: &Path, e: &str) {
    eprintln!(
        "linkbase: {}: record {} at {place}: {} not written: {}",
        escape_controls(name),
        escape_controls(id),
        escape_controls(&dir.join(rel).display().to_string()),
        escape_controls(e)
    );
}

/// One archived page rewritten into memory, its links counted, not kept (only the bytes and
/// the encoding are written out).
fn rewrite_record(
    h: &HtmlRecord,
    name: &str,
    options: &Options,
) -> Result<(Vec<u8>, linkbase::pipeline::Written), linkbase::Error> {
    let mut bytes = Vec::with_capacity(h.payload.len() + h.payload.len() / 8);
    let written = linkbase::pipeline::rewrite_to(&h.input(name), options, &mut bytes)?;
    crate::say_reserialized(name, &written.base);
    Ok((bytes, written))
}
