//! `rewrite DIR`: a whole tree rewritten (or a mirror made), with its closing summary.

use std::path::Path;

use linkbase::pipeline::Options;
use linkbase::text::escape_controls;

use crate::args::{LayoutArg, RewriteArgs};
use crate::load::options;
use crate::{set_jobs, walk, Exit, Failure, Fatal};
use clap::ValueEnum;
use linkbase::fs as fsout;
use linkbase::text as say;

/// The site `--site-url` names (the library's error says what is wrong with it, the flag is ours).
pub(crate) fn site(url: &str) -> Result<linkbase::site::Site, Fatal> {
    linkbase::site::Site::new(url).map_err(|e| Fatal(format!("--site-url {e}")))
}

/// `rewrite DIR --site-url URL (-o OUTDIR | --in-place)`.
pub(crate) fn run_rewrite_tree(args: &RewriteArgs) -> Result<Exit, Failure> {
    let started = std::time::Instant::now();
    let root = Path::new(&args.input.input);
    let site_url = args.site_url.as_deref().ok_or_else(|| {
        Fatal(format!(
            "{}: a directory needs --site-url URL{}",
            root.display(),
            if args.relative {
                " (--relative maps its files to URLs by it)"
            } else {
                ""
            }
        ))
    })?;
    let mut site = site(site_url)?;
    if args.output.is_none() && !args.in_place {
        return Err(Fatal(format!(
            "{}: a directory needs -o OUTDIR or --in-place",
            root.display()
        ))
        .into());
    }
    let mut options = options(&args.input, args.drop_base, args.output_charset.as_deref())?;
    // Everything that could lose data is refused before anything is written.
    if let Some(out) = &args.output {
        fsout::refuse_nested_output(root, out).map_err(Fatal)?;
    }
    let locked = match &args.output {
        Some(out) => out.as_path(),
        None => root,
    };
    let written = fsout::Dir::open(locked, true).map_err(Fatal)?;
    let _lock = fsout::TreeLock::acquire(locked).map_err(Fatal)?;
    // With the lock held, any temporary file of ours in the tree is a killed run's.
    for stale in fsout::remove_stale_temps(&written) {
        crate::say_removed(&stale);
    }
    let destination = match &args.output {
        Some(_) => walk::Destination::Out(&written),
        None => walk::Destination::InPlace(&written),
    };
    let tree = walk::walk(root).map_err(|e| Fatal(format!("{}: {e}", root.display())))?;
    let leaving = match (&args.output, args.copy_outside_links) {
        (Some(_), true) => "its file copied into OUTDIR (--copy-outside-links)",
        (Some(_), false) => {
            "not read, made again in OUTDIR as an absolute link to the same file \
             (--copy-outside-links copies the file instead)"
        }
        (None, _) => "not read, left as it is",
    };
    for s in tree.notices(leaving) {
        eprintln!("linkbase: {}", linkbase::text::escape_controls(&s));
    }
    set_jobs(args.jobs)?;
    let mut implied_drop = false;
    // The files give the pages their URLs in the tree's layout (a wget page `page.html?x=1`
    // was fetched with its query), and --relative its links' targets.
    for entry in &tree.entries {
        site.add_file(&entry.rel);
    }
    linkbase::walk::set_layout(&mut site, layout(args.layout), root, &mut |m| {
        eprintln!("linkbase: {m}")
    });
    if args.relative {
        implied_drop = relative_options(&mut options, &site);
    }
    let counts = walk::rewrite_tree(&tree, &site, destination, &options, args.copy_outside_links);
    // One sync for the whole tree, not an fsync (a disk flush) per file: the run's writes are
    // on disk when it returns.
    let synced = written.sync();
    if let Err(e) = &synced {
        eprintln!("linkbase: {}", linkbase::text::escape_controls(e));
    }
    let load = |n: &std::sync::atomic::AtomicUsize| n.load(std::sync::atomic::Ordering::Relaxed);
    let unresolved_pages = load(&counts.unresolved_pages);
    let skipped_parts = load(&counts.skipped_parts);
    let failed = load(&counts.failed);
    let summary = TreeSummary {
        pages: load(&counts.pages),
        links: load(&counts.links),
        left: load(&counts.unresolved_links),
        left_pages: unresolved_pages,
        reasons: counts
            .reasons
            .lock()
            .map(|r| r.iter().copied().collect())
            .unwrap_or_default(),
        relative: args.relative,
        relinked: counts.relinked.lock().map(|t| *t).unwrap_or_default(),
        as_browsers: options.rewrite.resolve.profile == linkbase::Profile::Whatwg,
        others: load(&counts.others),
        failed,
        copied: load(&counts.copied_unchanged),
        total: tree.entries.len() + tree.undecodable.len() + tree.special.len(),
        special: tree.special.len(),
        skipped_parts,
        bases_removed: load(&counts.bases_removed),
        outside_copied: load(&counts.outside_copied),
        base_by_relative: implied_drop,
        output: args.output.as_deref(),
        seconds: started.elapsed().as_secs_f64(),
    };
    eprintln!("linkbase: rewrite: {}", summary.line());
    if failed > 0 || !tree.special.is_empty() || synced.is_err() {
        return Ok(Exit::Problems);
    }
    if skipped_parts > 0 || (unresolved_pages > 0 && args.fail_on_unresolved) {
        return Ok(Exit::Problems);
    }
    Ok(Exit::Ok)
}

/// `--relative`: links to files of the tree become relative paths (`Site::relative`), and
/// `<base>` elements go, since they would redirect those paths. True when that is --relative's
/// doing (no --drop-base): the run says so when it removed some.
pub(crate) fn relative_options(options: &mut Options, site: &linkbase::site::Site) -> bool {
    options.rewrite.relink = Some(linkbase::Relinker(std::sync::Arc::new(site.clone())));
    let implied = !options.rewrite.drop_base;
    options.rewrite.drop_base = true;
    implied
}

/// The one closing line of `rewrite DIR`, in `check`'s style: what was read, what became of its
/// links and files, where the output went, and how long it took.
pub(crate) struct TreeSummary<'a> {
    pub(crate) pages: usize,
    pub(crate) links: usize,
    /// Links left relative or unresolvable, on `left_pages` pages, for `reasons`.
    pub(crate) left: usize,
    pub(crate) left_pages: usize,
    pub(crate) reasons: Vec<&'static str>,
    pub(crate) relative: bool,
    /// The links counted together: with `--relative`, what became of the resolved ones (made
    /// relative, or left absolute and why); the profile-sensitive ones.
    pub(crate) relinked: linkbase::LinkTally,
    /// Links were resolved as browsers resolve them (`--profile whatwg`).
    pub(crate) as_browsers: bool,
    /// Files that are not pages: copied to OUT, or left in place.
    pub(crate) others: usize,
    /// Files that could not be rewritten, of `total`; `copied` of them copied unchanged.
    pub(crate) failed: usize,
    pub(crate) copied: usize,
    pub(crate) total: usize,
    pub(crate) special: usize,
    pub(crate) skipped_parts: usize,
    pub(crate) bases_removed: usize,
    /// Symbolic links leaving the tree copied as files (`--copy-outside-links`).
    pub(crate) outside_copied: usize,
    /// The `<base>` elements went because of --relative, not --drop-base.
    pub(crate) base_by_relative: bool,
    /// -o OUTDIR, or in place.
    pub(crate) output: Option<&'a Path>,
    pub(crate) seconds: f64,
}

impl TreeSummary<'_> {
    pub(crate) fn line(&self) -> String {
        let resolved = self.links - self.left.min(self.links);
        let mut line = format!(
            "{}, {}: ",
            say::n(self.pages, "page"),
            say::n(self.links, "link")
        );
        if self.relative {
            line += &self.relinked_part(resolved);
        } else {
            line += &format!("{resolved} absolute");
        }
        line += &format!(", {}", self.left);
        line += " left relative or unresolvable";
        if self.left > 0 {
            line += &format!(
                " on {} ({})",
                say::n(self.left_pages, "page"),
                self.reasons.join(", ")
            );
        }
        if self.relinked.profile_sensitive > 0 {
            // Profile-sensitive links are counted apart: where the profiles part, a mirror follows the one it was made
            // with, and a browser follows the URL Standard.
            line += &format!(
                "; {} that RFC 2396 and browsers resolve differently (profile-sensitive, \
                 listed by `links`{})",
                say::n(self.relinked.profile_sensitive, "link"),
                if self.as_browsers {
                    ""
                } else {
                    "; --profile whatwg resolves as browsers"
                }
            );
        }
        line += &match self.output {
            Some(_) => format!("; {} copied", say::n(self.others, "other file")),
            None => format!("; {} left as they were", say::n(self.others, "other file")),
        };
        if self.failed == 0 {
            line += "; 0 failed";
        } else {
            let what = match self.output {
                Some(_) if self.copied == self.failed => "copied unchanged".to_owned(),
                Some(_) if self.copied == 0 => "not written to the output".to_owned(),
                Some(_) => format!(
                    "{} copied unchanged, {} not written to the output",
                    self.copied,
                    self.failed - self.copied
                ),
                None => "left unchanged".to_owned(),
            };
            line += &format!(
                "; {} of {} failed ({what}, see above)",
                self.failed,
                say::n(self.total, "file")
            );
        }
        if self.special > 0 {
            line += &format!(
                "; {} (FIFOs, sockets, devices) skipped, {}",
                say::n_as(
                    self.special,
                    "file not a regular file",
                    "files not regular files"
                ),
                if self.output.is_some() {
                    "not in the output"
                } else {
                    "left alone"
                }
            );
        }
        if self.skipped_parts > 0 {
            line += &format!(
                "; {} with parts left as they were or read past damage (see above)",
                say::n(self.skipped_parts, "MIME message")
            );
        }
        if self.outside_copied > 0 {
            line += &format!(
                "; {} leaving the tree copied as files",
                say::n(self.outside_copied, "symbolic link")
            );
        }
        if self.bases_removed > 0 {
            line += &format!(
                "; <base> removed from {}{}",
                say::n(self.bases_removed, "page"),
                if self.base_by_relative {
                    " (by --relative: it would redirect the relative links)"
                } else {
                    ""
                }
            );
        }
        line += &match self.output {
            Some(out) => format!(
                "; written to {}",
                escape_controls(&out.display().to_string())
            ),
            None => "; rewritten in place".to_owned(),
        };
        line + &format!("; {:.2} s", self.seconds)
    }

    /// `--relative`: how many of the `resolved` links were made relative, and how many were left
    /// absolute and why (a link to the site's own page left on the live site is said apart from
    /// links to other sites). Links the relinker is not asked about (a `<base>`
    /// element's href, which --relative removes; a MIME part's links) are said as such, so the
    /// parts add up to `resolved`.
    fn relinked_part(&self, resolved: usize) -> String {
        let reasons: Vec<String> = self
            .relinked
            .left_absolute()
            .map(|(k, n)| format!("{n} {}", k.name()))
            .collect();
        let absolute: usize = self.relinked.left_absolute().map(|(_, n)| n).sum();
        let mut part = format!(
            "{} made relative, {absolute} left absolute",
            self.relinked.relative
        );
        if !reasons.is_empty() {
            part += &format!(" ({})", reasons.join(", "));
        }
        let rest = resolved.saturating_sub(self.relinked.relative + absolute);
        if rest > 0 {
            part += &format!(", {rest} not relinked (<base> hrefs, MIME parts' links)");
        }
        part
    }
}

/// `rewrite FILE --relative --site-url URL --root DIR`: FILE is a page of the tree at DIR,
/// published at URL.
pub(crate) fn single_relative(
    args: &RewriteArgs,
    source: &mut linkbase::source::Source<'_>,
    options: &mut Options,
) -> Result<(), Fatal> {
    let (Some(site_url), Some(root)) = (&args.site_url, &args.root) else {
        return Err(Fatal(
            "--relative with a single INPUT needs --site-url URL and --root DIR (the tree the page belongs to)".into(),
        ));
    };
    let mut site = site(site_url)?;
    let tree = walk::walk(root).map_err(|e| Fatal(format!("{}: {e}", root.display())))?;
    for entry in &tree.entries {
        site.add_file(&entry.rel);
    }
    linkbase::walk::set_layout(&mut site, layout(args.layout), root, &mut |m| {
        eprintln!("linkbase: {m}")
    });
    let file = fsout::resolve_path(Path::new(&args.input.input))
        .map_err(|e| Fatal(format!("{}: {e}", args.input.input)))?;
    let root_abs =
        fsout::resolve_path(root).map_err(|e| Fatal(format!("{}: {e}", root.display())))?;
    let rel = file
        .strip_prefix(&root_abs)
        .ok()
        .and_then(|r| r.to_str())
        .map(|r| r.replace(std::path::MAIN_SEPARATOR, "/"))
        .ok_or_else(|| {
            Fatal(format!(
                "{}: not a file under --root {}",
                args.input.input,
                root.display()
            ))
        })?;
    source.default_retrieval_uri(&site.file_url(&rel));
    relative_options(options, &site);
    Ok(())
}

/// `--layout`: the layout chosen (by its name); `None`: detected.
pub(crate) fn layout(arg: LayoutArg) -> Option<linkbase::layout::Layout> {
    use linkbase::layout::Layout;
    let name = arg.to_possible_value()?;
    [Layout::Plain, Layout::Wget, Layout::Httrack]
        .into_iter()
        .find(|l| l.name() == name.get_name())
}
