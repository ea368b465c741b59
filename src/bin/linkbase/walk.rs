//! Whole-site runs: walk a directory tree once, then rewrite or check its files on every core.
//!
//! A file that fails is reported and counted, and the run goes on. Nothing outside the root is
//! read: symbolic links are followed only when they resolve inside the root (directories never,
//! so there are no cycles), and link targets are looked up in the walked file list, not on disk.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::site::{Site, Target, Verdict};
use linkbase::{BaseLayers, LinkRecord};
use rayon::prelude::*;

/// What a file of the tree is to us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Html,
    Message,
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
}

/// The tree, walked.
pub struct Tree {
    pub entries: Vec<Entry>,
    /// Symbolic links not followed, and unreadable directories: reported, not fatal.
    pub skipped: Vec<String>,
}

fn kind_of(path: &Path) -> FileKind {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("html" | "htm" | "xhtml" | "shtml") => FileKind::Html,
        Some("eml" | "mht" | "mhtml") => FileKind::Message,
        _ => FileKind::Other,
    }
}

/// Walks `root` iteratively, in sorted order so output is deterministic.
pub fn walk(root: &Path) -> io::Result<Tree> {
    let canonical_root = root.canonicalize()?;
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
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
            let rel = rel_dir.join(child.file_name());
            let Some(rel_str) = rel.to_str().map(|s| s.replace('\\', "/")) else {
                skipped.push(format!("{}: the name is not UTF-8", rel.display()));
                continue;
            };
            let Ok(file_type) = child.file_type() else {
                continue;
            };
            if file_type.is_symlink() {
                // Follow only into the root, and only to files.
                match child.path().canonicalize() {
                    Ok(target) if target.starts_with(&canonical_root) && target.is_file() => {}
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
                        });
                        continue;
                    }
                    Err(_) => {
                        skipped.push(format!("{rel_str}: a dangling symbolic link"));
                        continue;
                    }
                }
            } else if file_type.is_dir() {
                subdirs.push(rel);
                continue;
            } else if !file_type.is_file() {
                continue;
            }
            entries.push(Entry {
                kind: kind_of(&rel),
                path: root.join(&rel),
                rel: rel_str,
                is_link: file_type.is_symlink(),
            });
        }
        // Reverse so the stack pops them in sorted order.
        stack.extend(subdirs.into_iter().rev());
    }
    entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Tree { entries, skipped })
}

/// A progress bar that appears only on a terminal, and only once a run has taken a second.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: std::sync::atomic::AtomicBool,
}

impl Progress {
    pub fn new(total: usize, message: &'static str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} files, {elapsed}")
        {
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

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Counts of a run.
#[derive(Debug, Default)]
pub struct Counts {
    pub failed: AtomicUsize,
}

/// Prints a file's failure and counts it.
fn fail(counts: &Counts, rel: &str, message: impl std::fmt::Display) {
    counts.failed.fetch_add(1, Ordering::Relaxed);
    eprintln!("linkbase: {rel}: {message}");
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

/// `rewrite DIR`: every HTML and MIME file rewritten against its own URL; with `out`, every
/// other file copied unchanged; with `in_place`, rewritten files replaced atomically.
pub fn rewrite_tree(
    tree: &Tree,
    site: &Site,
    out: Option<&Path>,
    options: &Options,
    write: impl Fn(&Path, &[u8]) -> Result<(), String> + Sync,
) -> Counts {
    let counts = Counts::default();
    let progress = Progress::new(tree.entries.len(), "rewrite");
    tree.entries.par_iter().for_each(|entry| {
        let result = rewrite_one(entry, site, out, options, &write);
        if let Err(e) = result {
            fail(&counts, &entry.rel, e);
        }
        progress.inc();
    });
    progress.finish();
    counts
}

fn rewrite_one(
    entry: &Entry,
    site: &Site,
    out: Option<&Path>,
    options: &Options,
    write: &(impl Fn(&Path, &[u8]) -> Result<(), String> + Sync),
) -> Result<(), String> {
    let target = match out {
        Some(dir) => dir.join(&entry.rel),
        None => entry.path.clone(),
    };
    if entry.is_link && out.is_none() {
        // In place, a link inside the tree is left a link: its target is rewritten on its own.
        return Ok(());
    }
    if entry.kind == FileKind::OutsideLink {
        if let Some(dir) = out {
            // Absolute, so that it names the same file from OUTDIR.
            let link = entry.path.canonicalize().map_err(|e| e.to_string())?;
            let target = dir.join(&entry.rel);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            let _ = std::fs::remove_file(&target);
            std::os::unix::fs::symlink(link, &target).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    if entry.kind == FileKind::Other {
        if let Some(parent) = target.parent().filter(|_| out.is_some()) {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            std::fs::copy(&entry.path, &target).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    let bytes = std::fs::read(&entry.path).map_err(|e| e.to_string())?;
    let url = site.file_url(&entry.rel);
    let new = match entry.kind {
        FileKind::Html => {
            pipeline::rewrite(&html_input(&entry.rel, &bytes, url), options)
                .map_err(|e| e.to_string())?
                .bytes
        }
        _ => {
            linkbase::message::rewrite_message(
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
            .map_err(|e| e.to_string())?
            .bytes
        }
    };
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    write(&target, &new)
}

/// One line of `check --format jsonl`.
#[derive(Debug, serde::Serialize)]
pub struct CheckRecord {
    /// The page the link is on, relative to the root.
    pub file: String,
    #[serde(flatten)]
    pub link: LinkRecord,
    /// The verdict.
    pub verdict: Verdict,
    /// For internal links: the file it names.
    pub target: Option<String>,
}

/// Totals of a check.
#[derive(Debug, Default)]
pub struct CheckTotals {
    pub pages: usize,
    pub links: usize,
    pub internal: usize,
    pub external: usize,
    pub broken: usize,
    pub outside_root: usize,
    pub unresolvable: usize,
}

/// `check DIR`: pass 1 collects every page's fragment ids; pass 2 checks every link, in chunks of
/// pages so memory stays bounded by the ids plus one chunk, and hands each chunk's records to
/// `emit` in file order.
pub fn check_tree(
    tree: &Tree,
    site: &mut Site,
    options: &Options,
    mut emit: impl FnMut(&[CheckRecord]) -> io::Result<()>,
) -> io::Result<(CheckTotals, Counts)> {
    let counts = Counts::default();
    for entry in &tree.entries {
        site.add_file(&entry.rel);
    }
    let pages: Vec<&Entry> = tree
        .entries
        .iter()
        .filter(|e| e.kind == FileKind::Html)
        .collect();
    let progress = Progress::new(pages.len() * 2, "check");
    let ids: Vec<(String, Option<Vec<String>>)> = pages
        .par_iter()
        .map(|entry| {
            let ids = std::fs::read(&entry.path).ok().and_then(|bytes| {
                let input = html_input(&entry.rel, &bytes, site.file_url(&entry.rel));
                pipeline::fragment_ids(&input, options).ok()
            });
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
    for chunk in pages.chunks(64) {
        let results: Vec<Result<Vec<CheckRecord>, String>> = chunk
            .par_iter()
            .map(|entry| {
                let r = check_page(entry, site, options);
                progress.inc();
                r
            })
            .collect();
        for (entry, result) in chunk.iter().zip(results) {
            match result {
                Ok(records) => {
                    totals.pages += 1;
                    for r in &records {
                        totals.links += 1;
                        match r.verdict {
                            Verdict::External => totals.external += 1,
                            Verdict::Unresolvable => totals.unresolvable += 1,
                            Verdict::OutsideRoot => totals.outside_root += 1,
                            _ => totals.internal += 1,
                        }
                        if r.verdict.is_broken() {
                            totals.broken += 1;
                        }
                    }
                    emit(&records)?;
                }
                Err(e) => fail(&counts, &entry.rel, e),
            }
        }
    }
    progress.finish();
    Ok((totals, counts))
}

fn check_page(entry: &Entry, site: &Site, options: &Options) -> Result<Vec<CheckRecord>, String> {
    let bytes = std::fs::read(&entry.path).map_err(|e| e.to_string())?;
    let input = html_input(&entry.rel, &bytes, site.file_url(&entry.rel));
    let report = pipeline::links(&input, options).map_err(|e| e.to_string())?;
    Ok(report
        .links
        .into_iter()
        // The <base href> is where links resolve from, not a link to check.
        .filter(|l| l.element != "base")
        .map(|link| {
            let (verdict, target) = site.check(link.resolved.as_deref());
            let target = match target {
                Target::Internal { path, .. } => Some(path),
                _ => None,
            };
            CheckRecord {
                file: entry.rel.clone(),
                link,
                verdict,
                target,
            }
        })
        .collect())
}

/// The human summary's lines for broken links.
pub fn write_human(out: &mut impl Write, records: &[CheckRecord]) -> io::Result<()> {
    for r in records.iter().filter(|r| r.verdict.is_broken()) {
        let place = match &r.link.attribute {
            Some(a) => format!("<{} {a}>", r.link.element),
            None => format!("<{}>", r.link.element),
        };
        writeln!(
            out,
            "{}: {} {:?} -> {}: {}",
            r.file,
            place,
            r.link.original,
            r.link.resolved.as_deref().unwrap_or("(unresolved)"),
            r.verdict.name()
        )?;
    }
    Ok(())
}
