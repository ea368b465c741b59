//! Whole-site runs: walk a directory tree once, then rewrite or check its files on every core.
//!
//! A file that fails is reported and counted, and the run goes on. Nothing outside the root is
//! read: symbolic links are followed only when they resolve inside the root (directories never,
//! so there are no cycles), link targets are looked up in the walked file list, not on disk, and
//! each file is opened through `fsout::open_regular`, which refuses anything but the regular file
//! the walk saw (a file swapped for a link or a FIFO meanwhile). FIFOs, sockets and devices are
//! reported and counted, never opened.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use linkbase::fs::{self as fsout, Contents, Target as FileTarget};
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::site::{Site, Verdict};
use linkbase::BaseLayers;
use rayon::prelude::*;

/// What a file of the tree is to us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Html,
    Message,
    /// A stylesheet: relinked under `rewrite DIR --relative` (its url() and @import), else
    /// copied as other files are.
    Css,
    Other,
    /// A symbolic link to a file outside the root: it exists for link checks, but is never
    /// read (an `-o` copy recreates the link).
    OutsideLink,
}

/// One file of the tree.
#[derive(Debug, Clone)]
pub struct Entry {
    /// `/`-separated, relative to the root.
    pub rel: String,
    pub path: PathBuf,
    pub kind: FileKind,
    /// A symbolic link to a file inside the root.
    pub is_link: bool,
    /// The file the walk saw (for a link, its target): only this file is read (issue 21, D3).
    pub id: fsout::Snapshot,
}

/// The tree, walked.
pub struct Tree {
    /// The root as given.
    pub root: PathBuf,
    pub entries: Vec<Entry>,
    /// Symbolic links not followed, and unreadable directories: reported, not fatal.
    pub skipped: Vec<String>,
    /// Regular files whose path is not UTF-8, relative to the root, and what the walk saw.
    pub undecodable: Vec<(PathBuf, fsout::Snapshot)>,
    /// FIFOs, sockets and device nodes: never read (a FIFO would block the run), never copied,
    /// each reported and counted (issue 21, D4).
    pub special: Vec<String>,
    /// The directories below the root (`/`-separated), empty ones included: link targets when
    /// a directory is its own index (`check --index-files .`).
    pub dirs: Vec<String>,
}

fn kind_of(path: &Path) -> FileKind {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    // A crawler keeps a URL's query in the name (wget: `page.html?x=1`): the name before it
    // says what the file is when the whole name does not.
    let before_query = name.split_once('?').map(|(n, _)| n);
    for name in std::iter::once(name).chain(before_query) {
        let ext = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("html" | "htm" | "xhtml" | "shtml") => return FileKind::Html,
            Some("eml" | "mht" | "mhtml") => return FileKind::Message,
            Some("css") => return FileKind::Css,
            _ => {}
        }
    }
    FileKind::Other
}

/// Walks `root` iteratively, in sorted order so output is deterministic.
pub fn walk(root: &Path) -> io::Result<Tree> {
    let canonical_root = root.canonicalize()?;
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    let mut undecodable = Vec::new();
    let mut special = Vec::new();
    let mut dirs = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel_dir) = stack.pop() {
        let dir = root.join(&rel_dir);
        let mut children: Vec<_> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd.filter_map(Result::ok).collect(),
            Err(e) => {
                skipped.push(format!("{}: {e}", dir.display()));
                continue;
            }
        };
        children.sort_by_key(|c| c.file_name());
        let mut subdirs = Vec::new();
        for child in children {
            let name = child.file_name();
            // Our own temporary files and lock are never part of the site.
            if linkbase::fs::is_own_name(name.as_encoded_bytes()) {
                continue;
            }
            let rel = rel_dir.join(&name);
            // lstat: a link is seen as a link.
            let meta = match child.metadata() {
                Ok(meta) => meta,
                Err(e) => {
                    skipped.push(format!("{}: {e}", visible_path(&rel)));
                    continue;
                }
            };
            let file_type = meta.file_type();
            if !(file_type.is_file() || file_type.is_dir() || file_type.is_symlink()) {
                special.push(format!(
                    "{}: {}, not a regular file; skipped",
                    visible_path(&rel),
                    fsout::kind_of(&meta)
                ));
                continue;
            }
            let Some(rel_str) = rel.to_str().map(str::to_owned) else {
                // Unix names are bytes; a site's URLs are text. Such a file is not rewritten
                // or checked, but it is reported, never dropped (an -o copy keeps it).
                if file_type.is_dir() {
                    subdirs.push(rel);
                } else if file_type.is_file() {
                    undecodable.push((rel, fsout::Snapshot::of(&meta)));
                } else {
                    skipped.push(format!(
                        "{}: the name is not UTF-8; not followed",
                        visible_path(&rel)
                    ));
                }
                continue;
            };
            let mut id = fsout::Snapshot::of(&meta);
            if file_type.is_symlink() {
                // Follow only into the root, and only to files.
                match child.path().canonicalize() {
                    Ok(target) if target.starts_with(&canonical_root) => {
                        match std::fs::metadata(&target) {
                            Ok(t) if t.is_file() => id = fsout::Snapshot::of(&t),
                            Ok(t) if t.is_dir() => {
                                skipped.push(format!(
                                    "{rel_str}: a symbolic link to a directory; not followed"
                                ));
                                continue;
                            }
                            Ok(t) => {
                                special.push(format!(
                                    "{rel_str}: a symbolic link to {}, not a regular file; skipped",
                                    fsout::kind_of(&t)
                                ));
                                continue;
                            }
                            Err(_) => {
                                skipped.push(format!("{rel_str}: a dangling symbolic link"));
                                continue;
                            }
                        }
                    }
                    Ok(target) if target.is_dir() => {
                        skipped.push(format!(
                            "{rel_str}: a symbolic link to a directory; not followed"
                        ));
                        continue;
                    }
                    Ok(_) => {
                        skipped.push(format!("{rel_str}: a symbolic link leaving the site root; counted as present, not read"));
                        entries.push(Entry {
                            kind: FileKind::OutsideLink,
                            path: root.join(&rel),
                            rel: rel_str,
                            is_link: true,
                            id,
                        });
                        continue;
                    }
                    Err(_) => {
                        skipped.push(format!("{rel_str}: a dangling symbolic link"));
                        continue;
                    }
                }
            } else if file_type.is_dir() {
                dirs.push(rel_str);
                subdirs.push(rel);
                continue;
            }
            entries.push(Entry {
                kind: kind_of(&rel),
                path: root.join(&rel),
                rel: rel_str,
                is_link: file_type.is_symlink(),
                id,
            });
        }
        // Reverse so the stack pops them in sorted order.
        stack.extend(subdirs.into_iter().rev());
    }
    entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    undecodable.sort_by(|a, b| a.0.cmp(&b.0));
    special.sort();
    Ok(Tree {
        root: root.to_path_buf(),
        entries,
        skipped,
        undecodable,
        special,
        dirs,
    })
}

impl Tree {
    /// The tree's files and directories recorded in `site`, as link targets.
    pub fn add_to(&self, site: &mut Site) {
        for entry in &self.entries {
            site.add_file(&entry.rel);
        }
        for dir in &self.dirs {
            site.add_dir(dir);
        }
    }

    /// The files `check` reads for links: the pages (HTML) and the stylesheets.
    fn checked(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.kind, FileKind::Html | FileKind::Css))
    }

    /// "Nothing checked" is an error, never an all clear: a tree with no page or stylesheet
    /// (or whose every one `--exclude-path` leaves out) says what was looked for.
    pub fn refuse_nothing_to_check(
        &self,
        skip: &globset::GlobSet,
        dir: &Path,
    ) -> Result<(), crate::Fatal> {
        let dir = visible_path(dir);
        let checked = self.checked().count();
        if checked == 0 {
            let others = match self.entries.len() + self.undecodable.len() {
                0 => String::new(),
                1 => "; its one other file is not read for links".to_owned(),
                n => format!("; its {n} other files are not read for links"),
            };
            return Err(crate::Fatal(format!(
                "{dir}: nothing to check: no page (*.html, *.htm, *.xhtml, *.shtml) or \
                 stylesheet (*.css) in it{others}"
            )));
        }
        if self.checked().all(|e| skip.is_match(&e.rel)) {
            return Err(crate::Fatal(format!(
                "{dir}: nothing to check: --exclude-path leaves out every page and stylesheet \
                 in it ({})",
                linkbase::text::n(checked, "file")
            )));
        }
        Ok(())
    }
}

impl Entry {
    /// Opens the file the walk saw, and only it: see [`fsout::open_regular`].
    fn open(&self) -> Result<std::fs::File, String> {
        fsout::open_regular(&self.path, Some(&self.id), self.is_link)
    }

    /// Reads the whole file the walk saw.
    fn read(&self) -> Result<(Vec<u8>, fsout::Snapshot), String> {
        fsout::read_with_snapshot(self.open()?).map_err(|e| e.to_string())
    }
}

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

impl crate::online::Progress for Progress {
    fn start(&self, label: &'static str, total: usize) {
        self.restart(label);
        self.set_total(total);
    }

    fn inc(&self) {
        Progress::inc(self);
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
    /// Pages with links left relative or unresolvable, and how many such links (issue 10).
    pub unresolved_pages: AtomicUsize,
    pub unresolved_links: AtomicUsize,
    /// MIME messages with parts left as they were (`part-skipped`, issue 21) or read past damage
    /// (`mime-malformed`, issue 23), each said.
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
        self.base_removed |= drop_base && base_removed(base);
    }
}

/// Whether `--drop-base` took a `<base>` element out of the document `base` describes: one set
/// the base or was ignored (relative, unusable), and none was kept for links that need it.
pub fn base_removed(base: &linkbase::BaseRecord) -> bool {
    base.base_removed()
}

/// A path for a message: control characters made visible, so a hostile name cannot forge lines
/// or drive the terminal.
pub fn visible_path(path: &Path) -> String {
    linkbase::text::escape_controls(&path.to_string_lossy()).into_owned()
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

/// The directory of the last file a worker wrote: entries are sorted, so the files of a
/// directory come in a row and each directory is opened about once per worker instead of once
/// per file (100,000 files: 200,000 fewer system calls).
#[derive(Default)]
struct DirCache {
    parent: PathBuf,
    dir: Option<fsout::Dir>,
}

impl DirCache {
    /// [`fsout::Dir::file_of`], through the cache.
    fn file_of<'r>(
        &mut self,
        root: &fsout::Dir,
        rel: &'r Path,
        create: bool,
    ) -> Result<(&fsout::Dir, &'r std::ffi::OsStr), String> {
        let name = rel
            .file_name()
            .ok_or_else(|| format!("{}: not a file name", visible_path(rel)))?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        let dir = match self.dir.take() {
            Some(dir) if self.parent == parent => dir,
            _ => root.sub(parent, create)?,
        };
        self.parent = parent.to_path_buf();
        Ok((self.dir.insert(dir), name))
    }
}

/// Copies the open `source` to `out/rel` through a temporary file, creating directories below
/// `out` without going through symbolic links.
fn copy_unchanged(
    source: &mut std::fs::File,
    out: &fsout::Dir,
    rel: &Path,
    dirs: &mut DirCache,
) -> Result<(), String> {
    let (dir, name) = dirs.file_of(out, rel, true)?;
    let snapshot = source.metadata().map_err(|e| e.to_string())?;
    refuse_same_file(&fsout::Snapshot::of(&snapshot), dir, name)?;
    fsout::write_in(
        dir,
        name,
        Contents::CopyOf(source),
        FileTarget::Output,
        fsout::Durability::AtEnd,
    )
}

/// An output that is the input file itself (through links, or a tree nested in a way the
/// up-front check cannot see) would lose it.
fn refuse_same_file(
    source: &fsout::Snapshot,
    dir: &fsout::Dir,
    name: &std::ffi::OsStr,
) -> Result<(), String> {
    if let Ok(b) = dir.stat_at(name) {
        if source.same_file(&b) {
            return Err(format!(
                "{}: the output is the input file itself; not written",
                visible_path(&dir.path().join(name))
            ));
        }
    }
    Ok(())
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
            // A portable mirror (issue 24 item 5): the file the link names, as a file, so the
            // mirror keeps it when moved. Only on request: by default nothing outside the tree
            // is read (issue 21). The walk saw the link, not its file: opened regular-only.
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

pub use linkbase::site::CheckRecord;

/// Totals of a check.
#[derive(Debug, Default)]
pub struct CheckTotals {
    pub pages: usize,
    /// Stylesheets (`.css` files) whose `url()` and `@import` references were checked.
    pub stylesheets: usize,
    pub links: usize,
    pub internal: usize,
    pub external: usize,
    pub broken: usize,
    pub outside_root: usize,
    /// Of `internal` and `broken`: links to a file of the copy written as its address on the
    /// web (`left-absolute`, issue 24): counted as the site's own, not as external.
    pub left_absolute: usize,
    pub unresolvable: usize,
    pub excluded: usize,
    /// Pages and stylesheets whose links were not checked (`--exclude-path`).
    pub pages_excluded: usize,
    /// Of `external`: the links to a `file:` URL outside the tree (under `--local`, outside the
    /// web root's part that is the tree).
    pub outside_tree: usize,
    /// Of `external`: the links with a scheme that is neither http(s) nor file (mailto:, …)
    /// and not checked.
    pub other_scheme: usize,
    /// Whether external links were checked (`--online`).
    pub online: bool,
    /// Of `external`: the links checked online (http(s) fetched, mailto:/tel: by syntax).
    pub checked_online: usize,
    /// Of `checked_online`: the links whose verdict came from the cache.
    pub cached: usize,
    /// Of `broken`: external links.
    pub broken_external: usize,
    /// Of `excluded`: links not requested because of the address they lead to (without
    /// `--allow-private`).
    pub private_addresses: usize,
    /// Of `external`: links fetched but not settled: a remote fragment that could not be
    /// looked up, and links `--max-time` left.
    pub fragments_unchecked: usize,
    pub out_of_time: usize,
}

impl CheckTotals {
    /// The links not checked: external (by reason) and unresolvable. Excluded links were left
    /// unchecked on request and are counted apart.
    pub fn unchecked(&self) -> usize {
        self.external - self.checked_online + self.unresolvable
    }

    /// Of `external`, the http(s) links not fetched (without --online).
    pub fn web(&self) -> usize {
        self.external
            - self.outside_tree
            - self.other_scheme
            - self.checked_online
            - self.fragments_unchecked
            - self.out_of_time
    }

    /// An external link the online check answered.
    fn count_online(&mut self, outcome: &crate::online::Outcome) {
        match outcome.verdict {
            Verdict::Excluded => {
                self.excluded += 1;
                self.private_addresses += usize::from(outcome.answer.private);
                return;
            }
            Verdict::NotChecked if outcome.answer.not_checked.is_some() => self.out_of_time += 1,
            Verdict::NotChecked => self.fragments_unchecked += 1,
            _ => self.checked_online += 1,
        }
        self.external += 1;
        self.cached += usize::from(outcome.cached);
        if outcome.verdict.is_broken() {
            self.broken += 1;
            self.broken_external += 1;
        }
    }

    fn count_external(&mut self, resolved: Option<&str>) {
        self.external += 1;
        let scheme = resolved
            .and_then(|r| r.split_once(':'))
            .map(|(s, _)| s.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("http" | "https") => {}
            Some("file") => self.outside_tree += 1,
            _ => self.other_scheme += 1,
        }
    }
}

/// What `check` leaves alone or reads elsewhere (issue 11).
#[derive(Debug, Default)]
pub struct CheckRules {
    pub filter: crate::checkout::Filter,
    pub remaps: Vec<crate::checkout::Remap>,
    /// `--exclude-path`: pages whose links are not checked (still link targets, with their ids).
    pub skip_pages: globset::GlobSet,
}

impl CheckRules {
    /// The URL `--online` checks for a link: its resolution, remapped; `None` for a link it
    /// does not check (internal, or a scheme it does not know).
    fn online_url(&self, r: &CheckRecord) -> Option<String> {
        let resolved = r.link.resolved.as_deref()?;
        let url = crate::checkout::Remap::apply(&self.remaps, resolved);
        crate::online::wanted(&url).then(|| url.into_owned())
    }

    /// The online verdict of an external link (`None` for any other link, or without
    /// `--online`).
    pub fn outcome<'a>(
        &self,
        results: Option<&'a crate::online::Results>,
        r: &CheckRecord,
    ) -> Option<&'a crate::online::Outcome> {
        if r.target.is_some() || r.verdict == Verdict::OutsideRoot {
            return None;
        }
        let outcome = results?.get(&self.online_url(r)?)?;
        // A link the exclude patterns left alone has no online verdict; one the online check
        // excluded (an address, a redirect) has its reason.
        (r.verdict != Verdict::Excluded || outcome.verdict == Verdict::Excluded).then_some(outcome)
    }
}

/// Per page handed to `emit`: its records (or why it could not be read), and the online
/// verdicts of the run.
pub type Emitted<'a> = (
    Result<&'a mut Vec<CheckRecord>, &'a str>,
    Option<&'a crate::online::Results>,
);

/// `check DIR`: pass 1 collects every page's fragment ids; pass 2 checks every link of the pages
/// and stylesheets, in chunks so memory stays bounded by the ids plus one chunk, and hands each
/// chunk's records to `emit` in file order.
///
/// With `online`, a pass between the two lists every external URL (http(s), mailto:, tel:)
/// of the run, which are checked before any link is reported.
pub fn check_tree(
    tree: &Tree,
    site: &mut Site,
    options: &Options,
    rules: &CheckRules,
    online: Option<&crate::online::Config>,
    mut emit: impl FnMut(&str, Emitted<'_>) -> io::Result<()>,
) -> io::Result<(CheckTotals, Counts)> {
    let counts = Counts::default();
    let pages: Vec<&Entry> = tree.checked().collect();
    // Two passes over the pages, each counted once: the bar goes to the page count twice, and
    // says which pass it is, rather than counting 2 × pages as files.
    let html = pages.iter().filter(|e| e.kind == FileKind::Html).count();
    let progress = Progress::new(html, "check: ids", "pages");
    let ids: Vec<(String, Option<Vec<String>>)> = pages
        .par_iter()
        .filter(|entry| entry.kind == FileKind::Html)
        .map(|entry| {
            let ids = entry
                .read()
                .ok()
                .and_then(|(bytes, _)| site.page_ids(&entry.rel, &bytes, options).ok());
            progress.inc();
            (entry.rel.clone(), ids)
        })
        .collect();
    for (rel, ids) in &ids {
        if let Some(ids) = ids {
            site.add_ids(rel, ids.iter().map(String::as_str));
        }
    }
    drop(ids);
    let site = &*site;
    let mut totals = CheckTotals::default();
    let (skipped, pages): (Vec<&Entry>, Vec<&Entry>) = pages
        .into_iter()
        .partition(|e| rules.skip_pages.is_match(&e.rel));
    totals.pages_excluded = skipped.len();
    let online = match online {
        Some(config) => {
            progress.restart("check: external");
            progress.set_total(pages.len());
            let urls = external_urls(&pages, site, options, rules, &progress);
            let excluded = |url: &str| rules.filter.excludes(url);
            let results = crate::online::check(urls, config, &excluded, &progress)
                .map_err(|crate::Fatal(e)| io::Error::other(e))?;
            totals.online = true;
            Some(results)
        }
        None => None,
    };
    let online = online.as_ref();
    progress.restart("check: links");
    progress.set_total(pages.len());
    for chunk in pages.chunks(64) {
        let results: Vec<Result<Vec<CheckRecord>, String>> = chunk
            .par_iter()
            .map(|entry| {
                let r = check_page(entry, site, options, rules);
                progress.inc();
                r
            })
            .collect();
        for (entry, result) in chunk.iter().zip(results) {
            match result {
                Ok(mut records) => {
                    if entry.kind == FileKind::Css {
                        totals.stylesheets += 1;
                    } else {
                        totals.pages += 1;
                    }
                    for r in &mut records {
                        totals.links += 1;
                        if r.verdict == Verdict::External {
                            if let Some(outcome) = rules.outcome(online, r) {
                                r.verdict = outcome.verdict;
                                totals.count_online(outcome);
                                continue;
                            }
                        }
                        match r.verdict {
                            Verdict::External => {
                                totals.count_external(r.link.resolved.as_deref());
                            }
                            Verdict::Unresolvable => totals.unresolvable += 1,
                            Verdict::OutsideRoot => totals.outside_root += 1,
                            Verdict::Excluded => totals.excluded += 1,
                            Verdict::LeftAbsolute => {
                                totals.internal += 1;
                                totals.left_absolute += 1;
                            }
                            _ => totals.internal += 1,
                        }
                        if r.verdict.is_broken() {
                            totals.broken += 1;
                        }
                    }
                    emit(&entry.rel, (Ok(&mut records), online))?;
                }
                Err(e) => {
                    emit(&entry.rel, (Err(&e), online))?;
                    fail(&counts, &entry.rel, e);
                }
            }
        }
    }
    progress.finish();
    Ok((totals, counts))
}

/// Every distinct URL `--online` checks, over all pages (a page that cannot be read is
/// reported by the pass that follows).
fn external_urls(
    pages: &[&Entry],
    site: &Site,
    options: &Options,
    rules: &CheckRules,
    progress: &Progress,
) -> std::collections::BTreeSet<String> {
    pages
        .par_iter()
        .map(|entry| {
            let urls: std::collections::BTreeSet<String> = check_page(entry, site, options, rules)
                .unwrap_or_default()
                .iter()
                .filter(|r| r.verdict == Verdict::External)
                .filter_map(|r| rules.online_url(r))
                .collect();
            progress.inc();
            urls
        })
        .reduce(std::collections::BTreeSet::new, |mut a, b| {
            a.extend(b);
            a
        })
}

fn check_page(
    entry: &Entry,
    site: &Site,
    options: &Options,
    rules: &CheckRules,
) -> Result<Vec<CheckRecord>, String> {
    let (bytes, _) = entry.read()?;
    if entry.kind == FileKind::Css {
        return Ok(site.check_stylesheet(&entry.rel, &bytes, options, rules));
    }
    site.check_page(&entry.rel, &bytes, options, rules)
        .map_err(|e| e.to_string())
}

impl linkbase::site::CheckRules for CheckRules {
    fn excludes(&self, url: &str) -> bool {
        self.filter.excludes(url)
    }

    fn remap(&self, resolved: &str) -> Option<String> {
        match crate::checkout::Remap::apply(&self.remaps, resolved) {
            std::borrow::Cow::Owned(s) => Some(s),
            std::borrow::Cow::Borrowed(_) => None,
        }
    }
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
