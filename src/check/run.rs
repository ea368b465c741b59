//! `check DIR`: the tree walked, told to a [`Site`], its pages read twice (their fragment ids,
//! then their links), the external links checked online in between when asked; each page's
//! records to the sink in file order, with the totals at the end.

use std::io;
use std::path::Path;
use std::sync::Mutex;

use crate::pipeline::Options;
use crate::site::{CheckRecord, Site, Verdict};
use crate::text::escape_controls;
use crate::verb::Workers;
use crate::walk::{self, Entry, FileKind, Tree};

use super::filter::{self, CheckRules, Filter, Remap};
use super::options::{CheckOptions, CheckSink, Page};
use super::settings::Progress;

/// Why a check could not run, or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The options or the tree cannot be checked (bad usage, unusable input): the message
    /// names the option or the file, and the problem.
    #[error("{0}")]
    Unusable(String),
    /// The sink failed (a closed pipe, a full disk).
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// What a check came to.
#[derive(Debug, Default)]
pub struct Summary {
    /// The links counted, by verdict.
    pub totals: CheckTotals,
    /// Files that could not be checked: pages that could not be read (each given to
    /// [`CheckSink::unreadable`]), and files whose name is not UTF-8 (said).
    pub failed: usize,
}

/// Totals of a check: the counts of its summary line.
#[derive(Debug, Default, serde::Serialize)]
pub struct CheckTotals {
    /// Pages (HTML files) whose links were checked.
    pub pages: usize,
    /// Stylesheets (`.css` files) whose `url()` and `@import` references were checked.
    pub stylesheets: usize,
    /// Every link counted.
    pub links: usize,
    /// Links to the site's own files (found or not).
    pub internal: usize,
    /// Links that leave the site.
    pub external: usize,
    /// Broken links: a missing file or fragment, a link outside the root, an external link that failed online.
    pub broken: usize,
    /// Of `broken`: links to a file outside the site's root.
    pub outside_root: usize,
    /// Of `internal` and `broken`: links to a file of the copy written as its address on the
    /// web (`left-absolute`): counted as the site's own, not as external.
    pub left_absolute: usize,
    /// Links that resolve to no URL.
    pub unresolvable: usize,
    /// Links not checked on request (`--exclude`) or by the address they lead to.
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
    /// Of `external`: links `--max-time` left unchecked.
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
    #[cfg(feature = "online")]
    fn count_online(&mut self, outcome: &super::online::Outcome) {
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

    /// A link's verdict counted (one the online check did not answer).
    fn count(&mut self, r: &CheckRecord) {
        self.links += 1;
        match r.verdict {
            Verdict::External => self.count_external(r.link.resolved.as_deref()),
            Verdict::Unresolvable => self.unresolvable += 1,
            Verdict::OutsideRoot => self.outside_root += 1,
            Verdict::Excluded => self.excluded += 1,
            Verdict::LeftAbsolute => {
                self.internal += 1;
                self.left_absolute += 1;
            }
            _ => self.internal += 1,
        }
        if r.verdict.is_broken() {
            self.broken += 1;
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

/// Checks the tree `options.dir`: pass 1 collects every page's fragment ids; pass 2 checks
/// every link of the pages and stylesheets, in chunks so memory stays bounded by the ids plus
/// one chunk, and hands each page's records to `sink` in file order. With `options.online`, a
/// pass between the two checks every external URL (http(s), mailto:, tel:) of the run once.
/// Pages are read on `workers`.
///
/// What the tree holds never widens what is read or sent: files are read only as the regular
/// files the walk saw inside the root (`fs::open_regular`), the tree's `.linkbaseignore` only
/// adds exclusions, and requests go to addresses that are not globally reachable only with
/// [`OnlineOptions::allow_private`](super::OnlineOptions::allow_private), which the tree cannot
/// set (docs/sites.md).
///
/// # Errors
/// [`CheckError::Unusable`]: `dir` is not a directory, the site URL or a pattern is bad, the
/// tree has nothing to check, or `online` is asked of a build without the `online` feature;
/// [`CheckError::Io`]: the sink's error.
pub fn run(
    options: &CheckOptions,
    workers: &dyn Workers,
    progress: &dyn Progress,
    sink: &mut dyn CheckSink,
) -> Result<Summary, CheckError> {
    let unusable = CheckError::Unusable;
    let dir = &options.dir;
    if !dir.is_dir() {
        return Err(unusable(format!(
            "{}: not a directory (check takes the site's root)",
            dir.display()
        )));
    }
    let site_url = match &options.site_url {
        Some(url) => url.clone(),
        None => walk::local_url(dir).map_err(unusable)?,
    };
    let mut site = Site::new(&site_url).map_err(|e| unusable(format!("--site-url {e}")))?;
    if options.site_url.is_none() {
        // `--local`: the checked directory (or --root-dir) is the web root of /-rooted links.
        let root = match &options.root_dir {
            Some(root) if !root.is_dir() => {
                return Err(unusable(format!(
                    "--root-dir {}: not a directory (the web root /-rooted links start from)",
                    root.display()
                )))
            }
            Some(root) => walk::local_url(root).map_err(unusable)?,
            None => site_url.clone(),
        };
        site.set_web_root(&root)
            .map_err(|e| unusable(e.to_string()))?;
    }
    let tree = walk::walk(dir).map_err(|e| unusable(format!("{}: {e}", dir.display())))?;
    for s in tree.notices("counted as present, not read") {
        sink.say(&escape_controls(&s));
    }
    tree.add_to(&mut site);
    walk::set_layout(&mut site, options.layout, dir, &mut |m| sink.say(m));
    if let Some(names) = &options.index_files {
        site.set_index_files(names)
            .map_err(|e| unusable(format!("--index-files: {e}")))?;
    }
    site.set_fallback_extensions(&options.fallback_extensions)
        .map_err(|e| unusable(format!("--fallback-extensions: {e}")))?;
    if options.site_url.is_none() {
        walk::add_mirrored_hosts(&mut site, dir, &tree);
    }
    for (rel, _) in &tree.undecodable {
        sink.say(&format!(
            "{}: the name is not UTF-8, so it has no URL; not checked",
            walk::visible_path(rel)
        ));
    }
    let rules = CheckRules {
        skip_pages: filter::path_globs(&options.exclude_path).map_err(unusable)?,
        filter: Filter::new(&options.include, &options.exclude, dir).map_err(unusable)?,
        remaps: options
            .remap
            .iter()
            .map(|spec| Remap::parse(spec, |to| directory_url(&site, dir, to)))
            .collect::<Result<_, _>>()
            .map_err(unusable)?,
    };
    tree.refuse_nothing_to_check(&rules.skip_pages, dir)
        .map_err(unusable)?;
    #[cfg(feature = "online")]
    let online = match &options.online {
        Some(online) => Some(super::online::Config::new(online, dir).map_err(unusable)?),
        None => None,
    };
    #[cfg(not(feature = "online"))]
    if options.online.is_some() {
        return Err(unusable(
            "--online: this linkbase was built without its `online` feature".to_owned(),
        ));
    }
    let run = Run {
        tree: &tree,
        options: &options.options,
        rules: &rules,
        workers,
        progress,
    };
    #[cfg(feature = "online")]
    let (totals, failed) = run.check(&mut site, online.as_ref(), sink)?;
    #[cfg(not(feature = "online"))]
    let (totals, failed) = run.check(&mut site, sink)?;
    Ok(Summary {
        totals,
        failed: failed + tree.undecodable.len(),
    })
}

/// `--remap PREFIX DIR`: the URL of DIR, a directory of the tree.
fn directory_url(site: &Site, root: &Path, dir: &str) -> Option<String> {
    let root = crate::fs::resolve_path(root).ok()?;
    let path = crate::fs::resolve_path(Path::new(dir)).ok()?;
    if !path.is_dir() {
        return None;
    }
    let rel = path.strip_prefix(&root).ok()?.to_str()?;
    Some(site.file_url(&rel.replace(std::path::MAIN_SEPARATOR, "/")))
}

/// One check's fixed parts.
struct Run<'a> {
    tree: &'a Tree,
    options: &'a Options,
    rules: &'a CheckRules,
    workers: &'a dyn Workers,
    progress: &'a dyn Progress,
}

/// `f` of every item on `workers`, in the items' order.
fn in_parallel<T: Sync, R: Send>(
    workers: &dyn Workers,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    workers.each(items.len(), &|i| {
        if let (Some(item), Some(slot)) = (items.get(i), slots.get(i)) {
            let r = f(item);
            if let Ok(mut s) = slot.lock() {
                *s = Some(r);
            }
        }
    });
    slots
        .into_iter()
        .filter_map(|s| s.into_inner().ok().flatten())
        .collect()
}

impl Run<'_> {
    /// The two passes (three with `online`); the totals, and the pages that could not be read.
    fn check(
        &self,
        site: &mut Site,
        #[cfg(feature = "online")] online: Option<&super::online::Config>,
        sink: &mut dyn CheckSink,
    ) -> Result<(CheckTotals, usize), CheckError> {
        let Run {
            tree,
            options,
            rules,
            workers,
            progress,
        } = *self;
        let pages: Vec<&Entry> = tree.checked().collect();
        // Two passes over the pages, each counted once: the bar goes to the page count twice,
        // and says which pass it is, rather than counting 2 × pages as files.
        let html: Vec<&Entry> = pages
            .iter()
            .copied()
            .filter(|e| e.kind == FileKind::Html)
            .collect();
        progress.start("check: ids", html.len());
        let ids = in_parallel(workers, &html, |entry| {
            let ids = entry
                .read()
                .ok()
                .and_then(|(bytes, _)| site.page_ids(&entry.rel, &bytes, options).ok());
            progress.inc();
            ids
        });
        for (entry, ids) in html.iter().zip(&ids) {
            if let Some(ids) = ids {
                site.add_ids(&entry.rel, ids.iter().map(String::as_str));
            }
        }
        drop(ids);
        let site = &*site;
        let mut totals = CheckTotals::default();
        let (skipped, pages): (Vec<&Entry>, Vec<&Entry>) = pages
            .into_iter()
            .partition(|e| rules.skip_pages.is_match(&e.rel));
        totals.pages_excluded = skipped.len();
        #[cfg(feature = "online")]
        let online = match online {
            Some(config) => {
                progress.start("check: external", pages.len());
                let urls = self.external_urls(&pages, site);
                let excluded = |url: &str| rules.filter.excludes(url);
                let results =
                    super::online::check(urls, config, &excluded, progress, &mut |m| sink.say(m));
                totals.online = true;
                Some(results)
            }
            None => None,
        };
        #[cfg(feature = "online")]
        let online = online.as_ref();
        progress.start("check: links", pages.len());
        let mut failed = 0;
        for chunk in pages.chunks(64) {
            let results = in_parallel(workers, chunk, |entry| {
                let r = check_page(entry, site, options, rules);
                progress.inc();
                r
            });
            for (entry, result) in chunk.iter().zip(results) {
                match result {
                    Ok(mut records) => {
                        if entry.kind == FileKind::Css {
                            totals.stylesheets += 1;
                        } else {
                            totals.pages += 1;
                        }
                        for r in &mut records {
                            #[cfg(feature = "online")]
                            if r.verdict == Verdict::External {
                                if let Some(outcome) = rules.outcome(online, r) {
                                    totals.links += 1;
                                    r.verdict = outcome.verdict;
                                    totals.count_online(outcome);
                                    continue;
                                }
                            }
                            totals.count(r);
                        }
                        sink.page(Page {
                            file: &entry.rel,
                            records: &mut records,
                            #[cfg(feature = "online")]
                            online: online.map(|results| (results, rules)),
                        })?;
                    }
                    Err(e) => {
                        failed += 1;
                        sink.unreadable(&entry.rel, &e)?;
                    }
                }
            }
        }
        progress.finish();
        Ok((totals, failed))
    }

    /// Every distinct URL `--online` checks, over all pages (a page that cannot be read is
    /// reported by the pass that follows).
    #[cfg(feature = "online")]
    fn external_urls(&self, pages: &[&Entry], site: &Site) -> std::collections::BTreeSet<String> {
        let per_page = in_parallel(self.workers, pages, |entry| {
            let urls: std::collections::BTreeSet<String> =
                check_page(entry, site, self.options, self.rules)
                    .unwrap_or_default()
                    .iter()
                    .filter(|r| r.verdict == Verdict::External)
                    .filter_map(|r| self.rules.online_url(r))
                    .collect();
            self.progress.inc();
            urls
        });
        per_page.into_iter().flatten().collect()
    }
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
