//! `rewrite DIR`: the tree the library walked (`linkbase::walk`), its files rewritten or copied
//! on every core; the progress bar of whole-site runs (`check` included).
//!
//! A file that fails is reported and counted, and the run goes on.

use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use linkbase::fs::{
    self as fsout, copy_unchanged, refuse_same_file, Contents, DirCache, Target as FileTarget,
};
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::site::Site;
pub(crate) use linkbase::walk::{walk, Entry, FileKind, Tree};
use linkbase::BaseLayers;
use rayon::prelude::*;

/// A progress bar that appears only on a terminal, and only once a run has taken a second.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: std::sync::atomic::AtomicBool,
}

/// The bar's template: what it counts is named (`pages`, `files`), with the time so far and
/// the time left.
pub fn progress_template(unit: &str) -> String {
    format!("{{msg}} {{bar:40}} {{pos}}/{{len}} {unit}, {{elapsed}}, ETA {{eta}}")
}

impl Progress {
    /// A bar over `total` things called `unit` (plural), labelled `message`.
    pub fn new(total: usize, message: &'static str, unit: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(&progress_template(unit)) {
            bar.set_style(style);
        }
        bar.set_message(message);
        Progress {
            bar,
            start: Instant::now(),
            shown: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub fn inc(&self) {
        self.bar.inc(1);
        if !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed() > Duration::from_secs(1)
            && io::stderr().is_terminal()
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// The same bar, back at 0 for a second pass over the same things, labelled `message`.
    pub fn restart(&self, message: &'static str) {
        self.bar.set_message(message);
        self.bar.reset();
    }

    /// A new total (the second pass of `check` reads fewer pages under `--exclude-path`).
    pub fn set_total(&self, total: usize) {
        self.bar.set_length(total as u64);
    }

    /// The position, for tests.
    #[cfg(test)]
    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Clears the bar: the run's summary line is printed once, by the caller, never by the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl linkbase::check::Progress for Progress {
    fn start(&self, label: &'static str, total: usize) {
        self.restart(label);
        self.set_total(total);
    }

    fn inc(&self) {
        Progress::inc(self);
    }

    fn finish(&self) {
        Progress::finish(self);
    }
}

/// Counts of a run.
#[derive(Debug, Default)]
pub struct Counts {
    pub failed: AtomicUsize,
    /// Of the failed files of an `-o` run, those copied to OUT unchanged (the others are not in
    /// OUT at all: the summary says both).
    pub copied_unchanged: AtomicUsize,
    /// Symbolic links leaving the tree whose file was copied into OUT (`--copy-outside-links`).
    pub outside_copied: AtomicUsize,
    /// Pages with links left relative or unresolvable, and how many such links.
    pub unresolved_pages: AtomicUsize,
    pub unresolved_links: AtomicUsize,
    /// MIME messages with parts left as they were (`part-skipped`) or read past damage
    /// (`mime-malformed`), each said.
    pub skipped_parts: AtomicUsize,
    /// `rewrite DIR`: pages (HTML files and MIME messages) rewritten, their links (same-document
    /// references aside), the files that are not pages (copied to OUT, or left in place), and
    /// the pages whose `<base>` elements went (`--drop-base`, `--relative`).
    pub pages: AtomicUsize,
    pub links: AtomicUsize,
    pub others: AtomicUsize,
    pub bases_removed: AtomicUsize,
    /// Why links were left relative, each reason once (`no base`, `bad base`, …).
    pub reasons: std::sync::Mutex<std::collections::BTreeSet<&'static str>>,
    /// Every page's links counted together: with `--relative`, those made relative and those
    /// left absolute, by reason; the profile-sensitive ones.
    pub relinked: std::sync::Mutex<linkbase::LinkTally>,
}

/// What one page of `rewrite DIR` came to.
#[derive(Debug, Default)]
pub struct PageTally {
    /// A page (HTML or MIME), not a file copied or a link made.
    pub page: bool,
    pub links: usize,
    pub unresolved: usize,
    pub reasons: Vec<&'static str>,
    pub base_removed: bool,
    /// Every link counted, for what the relinker made of them.
    pub tally: linkbase::LinkTally,
}

impl PageTally {
    fn add(&mut self, base: &linkbase::BaseRecord, tally: linkbase::LinkTally, drop_base: bool) {
        self.page = true;
        self.tally += tally;
        self.links += tally.links;
        if let Some(summary) = tally.unresolved_summary(base) {
            self.unresolved += summary.unresolved;
            self.reasons.push(summary.reason);
        }
        self.base_removed |= drop_base && base.base_removed();
    }
}

/// Prints a file's failure and counts it.
fn fail(counts: &Counts, rel: &str, message: impl std::fmt::Display) {
    counts.failed.fetch_add(1, Ordering::Relaxed);
    eprintln!(
        "linkbase: {}: {}",
        linkbase::text::escape_controls(rel),
        linkbase::text::escape_controls(&message.to_string())
    );
}

fn html_input<'a>(name: &'a str, bytes: &'a [u8], url: String) -> HtmlInput<'a> {
    HtmlInput {
        name,
        bytes,
        layers: BaseLayers {
            retrieval_uri: Some(url),
            ..BaseLayers::default()
        },
        ..HtmlInput::default()
    }
}

/// Where `rewrite DIR` writes.
#[derive(Clone, Copy)]
pub enum Destination<'a> {
    /// A separate tree (checked before the run not to be the input or inside it), open.
    Out(&'a fsout::Dir),
    /// Each file replaced in place; the input tree's root, open.
    InPlace(&'a fsout::Dir),
}

/// A file that could not be rewritten: why, and whether OUT has it unchanged anyway.
struct FileError {
    message: String,
    copied: bool,
}

impl From<String> for FileError {
    fn from(message: String) -> Self {
        FileError {
            message,
            copied: false,
        }
    }
}

/// `rewrite DIR`: every HTML and MIME file rewritten against its own URL. With an output tree,
/// every other file is copied unchanged, and so is a page that cannot be rewritten: the copy has
/// no holes. In place, such a page is left as it was. Either way it is reported and counted.
/// Nothing is synced per file: the caller syncs the written tree once at the end.
pub fn rewrite_tree(
    tree: &Tree,
    site: &Site,
    destination: Destination<'_>,
    options: &Options,
    copy_outside: bool,
) -> Counts {
    let counts = Counts::default();
    let fail_file = |rel: &str, e: FileError| {
        if e.copied {
            counts.copied_unchanged.fetch_add(1, Ordering::Relaxed);
        }
        fail(&counts, rel, e.message);
    };
    let progress = Progress::new(
        tree.entries.len() + tree.undecodable.len(),
        "rewrite",
        "files",
    );
    tree.entries
        .par_iter()
        .for_each_init(DirCache::default, |dirs, entry| {
            match rewrite_one(
                entry,
                site,
                destination,
                (options, copy_outside),
                dirs,
                &counts,
            ) {
                Ok(page) if !page.page => {
                    counts.others.fetch_add(1, Ordering::Relaxed);
                }
                Ok(page) => {
                    counts.pages.fetch_add(1, Ordering::Relaxed);
                    counts.links.fetch_add(page.links, Ordering::Relaxed);
                    if page.base_removed {
                        counts.bases_removed.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Ok(mut relinked) = counts.relinked.lock() {
                        *relinked += page.tally;
                    }
                    if page.unresolved > 0 {
                        counts.unresolved_pages.fetch_add(1, Ordering::Relaxed);
                        counts
                            .unresolved_links
                            .fetch_add(page.unresolved, Ordering::Relaxed);
                        if let Ok(mut reasons) = counts.reasons.lock() {
                            reasons.extend(page.reasons);
                        }
                    }
                }
                Err(e) => fail_file(&entry.rel, e),
            }
            progress.inc();
        });
    for (rel, id) in &tree.undecodable {
        let (outcome, copied) = match destination {
            Destination::Out(out) => {
                match fsout::open_regular(&tree.root.join(rel), Some(id), false)
                    .and_then(|mut f| copy_unchanged(&mut f, out, rel, &mut DirCache::default()))
                {
                    Ok(()) => ("copied unchanged".to_owned(), true),
                    Err(e) => (format!("and it could not be copied: {e}"), false),
                }
            }
            Destination::InPlace(_) => ("left unchanged".to_owned(), false),
        };
        fail_file(
            &rel.to_string_lossy(),
            FileError {
                message: format!(
                    "the name is not UTF-8, so it has no URL; links not rewritten, {outcome}"
                ),
                copied,
            },
        );
        progress.inc();
    }
    progress.finish();
    counts
}

/// Rewrites one file; says how many of its links were left relative or unresolvable.
fn rewrite_one(
    entry: &Entry,
    site: &Site,
    destination: Destination<'_>,
    (options, copy_outside): (&Options, bool),
    dirs: &mut DirCache,
    counts: &Counts,
) -> Result<PageTally, FileError> {
    let rel = Path::new(&entry.rel);
    let out = match destination {
        Destination::Out(out) => Some(out),
        Destination::InPlace(_) => None,
    };
    if entry.is_link && out.is_none() {
        // In place, a link inside the tree is left a link: its target is rewritten on its own.
        return Ok(PageTally::default());
    }
    if entry.kind == FileKind::OutsideLink {
        if let (Some(out), true) = (out, copy_outside) {
            // A portable mirror: the file the link names, as a file, so the
            // mirror keeps it when moved. Only on request: by default nothing outside the tree
            // is read. The walk saw the link, not its file: opened regular-only.
            let mut file = fsout::open_regular(&entry.path, None, true)?;
            copy_unchanged(&mut file, out, rel, dirs)?;
            counts.outside_copied.fetch_add(1, Ordering::Relaxed);
        } else if let Some(out) = out {
            // Absolute, so that it names the same file from OUTDIR.
            let link = entry.path.canonicalize().map_err(|e| e.to_string())?;
            let (dir, name) = dirs.file_of(out, rel, true)?;
            dir.symlink(name, &link)?;
        }
        return Ok(PageTally::default());
    }
    if entry.kind == FileKind::Other
        || (entry.kind == FileKind::Css && options.rewrite.relink.is_none())
    {
        if let Some(out) = out {
            copy_unchanged(&mut entry.open()?, out, rel, dirs)?;
        }
        return Ok(PageTally::default());
    }
    let (bytes, snapshot) = entry.read()?;
    let url = site.file_url(&entry.rel);
    let drop_base = options.rewrite.drop_base;
    let mut tally = PageTally::default();
    let rewritten = match entry.kind {
        // A stylesheet of a mirror: each url() made relative to the file it names; kept as it
        // was when nothing changes or its text cannot be decoded (`stylesheet_relinked`).
        FileKind::Css => Ok(
            linkbase::archive::stylesheet_relinked(&bytes, &url, None, options)
                .unwrap_or_else(|| bytes.clone()),
        ),
        FileKind::Html => {
            // Only the count of links left relative is needed: they are counted, not kept.
            let mut new = Vec::with_capacity(bytes.len() + bytes.len() / 8);
            pipeline::rewrite_to(&html_input(&entry.rel, &bytes, url), options, &mut new).map(|w| {
                crate::say_reserialized(&entry.rel, &w.base);
                tally.add(&w.base, w.links, drop_base);
                new
            })
        }
        _ => linkbase::message::rewrite_message(
            &linkbase::message::MessageInput {
                name: &entry.rel,
                bytes: &bytes,
                layers: BaseLayers {
                    retrieval_uri: Some(url),
                    ..BaseLayers::default()
                },
            },
            options,
        )
        .map(|r| {
            if crate::say_skipped_parts(&entry.rel, &r.reports) > 0 {
                counts.skipped_parts.fetch_add(1, Ordering::Relaxed);
            }
            for report in &r.reports {
                let mut links = linkbase::LinkTally::default();
                report.links.iter().for_each(|l| links.add(l));
                tally.add(&report.base, links, drop_base);
            }
            // A message is one page, with or without HTML parts.
            tally.page = true;
            r.bytes
        }),
    };
    let new = match (rewritten, out) {
        (Ok(done), _) => done,
        (Err(e), Some(out)) => {
            // No holes in the copy: the page as it was (the bytes read, not the file again),
            // and the failure reported.
            let (dir, name) = dirs.file_of(out, rel, true)?;
            let copied = fsout::write_in(
                dir,
                name,
                Contents::Bytes(&bytes),
                FileTarget::Output,
                fsout::Durability::AtEnd,
            );
            return Err(match copied {
                Ok(()) => FileError {
                    message: format!("{e}; copied unchanged"),
                    copied: true,
                },
                Err(copy) => format!("{e}; and it could not be copied: {copy}").into(),
            });
        }
        (Err(e), None) => return Err(format!("{e}; left unchanged").into()),
    };
    match destination {
        Destination::Out(out) => {
            let (dir, name) = dirs.file_of(out, rel, true)?;
            refuse_same_file(&snapshot, dir, name)?;
            fsout::write_in(
                dir,
                name,
                Contents::Bytes(&new),
                FileTarget::Output,
                fsout::Durability::AtEnd,
            )?;
        }
        // Nothing to change: the file is not touched at all (its mtime stays).
        Destination::InPlace(_) if new == bytes => {}
        Destination::InPlace(root) => {
            let (dir, name) = dirs.file_of(root, rel, false)?;
            fsout::write_in(
                dir,
                name,
                Contents::Bytes(&new),
                FileTarget::InPlace(&snapshot),
                fsout::Durability::AtEnd,
            )?;
        }
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_bar_counts_pages_once_per_pass_with_an_eta() {
        let template = progress_template("pages");
        assert!(template.contains("{pos}/{len} pages"), "{template}");
        assert!(template.contains("ETA {eta}"), "{template}");
        assert!(
            ProgressStyle::with_template(&template).is_ok(),
            "{template}"
        );
        let bar = Progress::new(3, "check: ids", "pages");
        (0..3).for_each(|_| bar.inc());
        assert_eq!(bar.position(), 3);
        bar.restart("check: links");
        assert_eq!(bar.position(), 0);
        (0..3).for_each(|_| bar.inc());
        assert_eq!(bar.position(), 3);
        bar.finish();
    }
}
