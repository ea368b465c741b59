//! A site's tree of files, walked once: what each file is (a page, a message, a stylesheet,
//! another file), what is skipped and why; then the tree told to a [`Site`] (its files, its
//! directories, its crawler's layout, the hosts a crawler's copy keeps).
//!
//! Nothing outside the root is read: symbolic links are followed only when they resolve inside
//! the root (directories never, so there are no cycles), link targets are looked up in the
//! walked file list, not on disk, and each file is opened through [`fs::open_regular`], which
//! refuses anything but the regular file the walk saw (a file swapped for a link or a FIFO
//! meanwhile). FIFOs, sockets and devices are reported, never opened.

use std::io;

use crate::text::escape_controls;
use std::path::{Path, PathBuf};

use crate::fs;
use crate::layout::Layout;
use crate::site::Site;

/// What a file of the tree is to us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// An HTML page (`.html`, `.htm`, `.xhtml`, `.shtml`).
    Html,
    /// A MIME message (`.eml`, `.mht`, `.mhtml`).
    Message,
    /// A stylesheet: relinked under `rewrite DIR --relative` (its url() and @import), else
    /// copied as other files are.
    Css,
    /// Any other file: a link target, never read for links.
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
    /// The file, below the root as given.
    pub path: PathBuf,
    /// What it is, by its name.
    pub kind: FileKind,
    /// A symbolic link to a file inside the root.
    pub is_link: bool,
    /// The file the walk saw (for a link, its target): only this file is read.
    pub id: fs::Snapshot,
}

/// The tree, walked.
pub struct Tree {
    /// The root as given.
    pub root: PathBuf,
    /// The files, sorted by `rel`.
    pub entries: Vec<Entry>,
    /// Symbolic links not followed, and unreadable directories: reported, not fatal.
    pub skipped: Vec<Passed>,
    /// Regular files whose path is not UTF-8, relative to the root, and what the walk saw.
    pub undecodable: Vec<(PathBuf, fs::Snapshot)>,
    /// FIFOs, sockets and device nodes: never read (a FIFO would block the run), never copied,
    /// each reported and counted.
    pub special: Vec<String>,
    /// The directories below the root (`/`-separated), empty ones included: link targets when
    /// a directory is its own index (`check --index-files .`).
    pub dirs: Vec<String>,
}

/// What the walk passed over, in the order met: said by the command that walked, which knows
/// what becomes of a symbolic link leaving the root ([`Tree::notices`]).
pub enum Passed {
    /// Said as it is: a symbolic link not followed, a directory that cannot be read.
    Said(String),
    /// A symbolic link to a file outside the root (its path in the tree).
    LeavingRoot(String),
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
                skipped.push(Passed::Said(format!("{}: {e}", dir.display())));
                continue;
            }
        };
        children.sort_by_key(|c| c.file_name());
        let mut subdirs = Vec::new();
        for child in children {
            let name = child.file_name();
            // Our own temporary files and lock are never part of the site.
            if crate::fs::is_own_name(name.as_encoded_bytes()) {
                continue;
            }
            let rel = rel_dir.join(&name);
            // lstat: a link is seen as a link.
            let meta = match child.metadata() {
                Ok(meta) => meta,
                Err(e) => {
                    skipped.push(Passed::Said(format!("{}: {e}", visible_path(&rel))));
                    continue;
                }
            };
            let file_type = meta.file_type();
            if !(file_type.is_file() || file_type.is_dir() || file_type.is_symlink()) {
                special.push(format!(
                    "{}: {}, not a regular file; skipped",
                    visible_path(&rel),
                    fs::kind_of(&meta)
                ));
                continue;
            }
            let Some(rel_str) = rel.to_str().map(str::to_owned) else {
                // Unix names are bytes; a site's URLs are text. Such a file is not rewritten
                // or checked, but it is reported, never dropped (an -o copy keeps it).
                if file_type.is_dir() {
                    subdirs.push(rel);
                } else if file_type.is_file() {
                    undecodable.push((rel, fs::Snapshot::of(&meta)));
                } else {
                    skipped.push(Passed::Said(format!(
                        "{}: the name is not UTF-8; not followed",
                        visible_path(&rel)
                    )));
                }
                continue;
            };
            let mut id = fs::Snapshot::of(&meta);
            if file_type.is_symlink() {
                // Follow only into the root, and only to files.
                match child.path().canonicalize() {
                    Ok(target) if target.starts_with(&canonical_root) => {
                        match std::fs::metadata(&target) {
                            Ok(t) if t.is_file() => id = fs::Snapshot::of(&t),
                            Ok(t) if t.is_dir() => {
                                skipped.push(Passed::Said(format!(
                                    "{rel_str}: a symbolic link to a directory; not followed"
                                )));
                                continue;
                            }
                            Ok(t) => {
                                special.push(format!(
                                    "{rel_str}: a symbolic link to {}, not a regular file; skipped",
                                    fs::kind_of(&t)
                                ));
                                continue;
                            }
                            Err(_) => {
                                skipped.push(Passed::Said(format!(
                                    "{rel_str}: a dangling symbolic link"
                                )));
                                continue;
                            }
                        }
                    }
                    Ok(target) if target.is_dir() => {
                        skipped.push(Passed::Said(format!(
                            "{rel_str}: a symbolic link to a directory; not followed"
                        )));
                        continue;
                    }
                    Ok(_) => {
                        skipped.push(Passed::LeavingRoot(rel_str.clone()));
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
                        skipped.push(Passed::Said(format!("{rel_str}: a dangling symbolic link")));
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
    /// What the walk passed over, then the files that are not regular files, each a line to
    /// say; a symbolic link leaving the root is said with `leaving`, what the command does
    /// with it.
    pub fn notices<'a>(&'a self, leaving: &'a str) -> impl Iterator<Item = String> + 'a {
        self.skipped
            .iter()
            .map(move |p| match p {
                Passed::Said(s) => s.clone(),
                Passed::LeavingRoot(rel) => {
                    format!("{rel}: a symbolic link leaving the site root; {leaving}")
                }
            })
            .chain(self.special.iter().cloned())
    }

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
    pub fn checked(&self) -> impl Iterator<Item = &Entry> {
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
    ) -> Result<(), String> {
        let dir = visible_path(dir);
        let checked = self.checked().count();
        if checked == 0 {
            let others = match self.entries.len() + self.undecodable.len() {
                0 => String::new(),
                1 => "; its one other file is not read for links".to_owned(),
                n => format!("; its {n} other files are not read for links"),
            };
            return Err(format!(
                "{dir}: nothing to check: no page (*.html, *.htm, *.xhtml, *.shtml) or \
                 stylesheet (*.css) in it{others}"
            ));
        }
        if self.checked().all(|e| skip.is_match(&e.rel)) {
            return Err(format!(
                "{dir}: nothing to check: --exclude-path leaves out every page and stylesheet \
                 in it ({})",
                crate::text::n(checked, "file")
            ));
        }
        Ok(())
    }
}

impl Entry {
    /// Opens the file the walk saw, and only it: see [`fs::open_regular`].
    pub fn open(&self) -> Result<std::fs::File, String> {
        fs::open_regular(&self.path, Some(&self.id), self.is_link)
    }

    /// Reads the whole file the walk saw.
    pub fn read(&self) -> Result<(Vec<u8>, fs::Snapshot), String> {
        fs::read_with_snapshot(self.open()?).map_err(|e| e.to_string())
    }
}

/// A path for a message: control characters made visible, so a hostile name cannot forge lines
/// or drive the terminal.
pub fn visible_path(path: &Path) -> String {
    escape_controls(&path.to_string_lossy()).into_owned()
}

/// HTTrack's index of a project, in the tree or in the directory above it.
const HTTRACK_INDEX: &str = "hts-cache/new.txt";

/// The most of HTTrack's index read (a line of a few hundred bytes per URL crawled).
const MAX_HTTRACK_INDEX: u64 = 128 << 20;

/// `--layout`: the layout the files of `site` are read with, chosen (`Some`) or detected
/// (`crate::layout::Layout::detect`, or HTTrack's index beside the tree: a host directory
/// of an HTTrack project); a detected one is said, with how to refuse it. Under HTTrack's, its
/// index `hts-cache/new.txt` (in the tree or its parent) names the files of URLs.
pub fn set_layout(site: &mut Site, chosen: Option<Layout>, root: &Path, say: &mut dyn FnMut(&str)) {
    // The tree's own file (or its project's, beside it): read as the tree's settings are, only
    // as a regular file reached without a symbolic link, and bounded.
    let rel = Path::new(HTTRACK_INDEX);
    let index = [root.to_path_buf(), root.join("..")]
        .into_iter()
        .find_map(|dir| fs::open_tree_file(&dir, rel).transpose());
    let layout = match chosen {
        Some(layout) => layout,
        None => {
            match Layout::detect(site.files()).or_else(|| index.as_ref().map(|_| Layout::Httrack)) {
                Some(found) => {
                    say(&format!(
                        "{}: read in {}'s layout ({}); --layout plain to read it otherwise",
                        escape_controls(&root.display().to_string()),
                        found.name(),
                        if found == Layout::Httrack {
                            "HTTrack's hts-cache/ index in it or beside it"
                        } else {
                            "file names hold a query or -E's .html after a script's extension"
                        }
                    ));
                    found
                }
                None => Layout::Plain,
            }
        }
    };
    if layout == Layout::Httrack {
        match index.map(|opened| opened.and_then(|f| fs::read_at_most(f, MAX_HTTRACK_INDEX))) {
            Some(Ok(bytes)) => add_httrack_index(site, &String::from_utf8_lossy(&bytes)),
            Some(Err(e)) => say(&format!(
                "{}: HTTrack's index not read ({e}): URLs with a query are not found",
                escape_controls(&root.display().to_string())
            )),
            None => say(&format!(
                "{}: no hts-cache/new.txt in the tree or beside it: HTTrack's names of \
                 URLs with a query are not known",
                escape_controls(&root.display().to_string())
            )),
        }
    }
    site.set_layout(layout);
}

/// `check --local`: a crawler saves a site under a directory named by its host (wget
/// `host[:port]`, `host+port` with --restrict-file-names=windows; HTTrack `host_port`): DIR
/// itself, or one at its top. Links to that host whose file the copy has are then
/// `left-absolute`, not external (`crate::site::Site::add_mirrored_host`).
pub fn add_mirrored_hosts(site: &mut Site, dir: &Path, tree: &Tree) {
    let own = fs::resolve_path(dir)
        .ok()
        .and_then(|d| d.file_name().and_then(|n| n.to_str()).map(str::to_owned));
    let mut tops: Vec<&str> = tree
        .entries
        .iter()
        .filter_map(|e| e.rel.split_once('/').map(|(top, _)| top))
        .collect();
    tops.dedup();
    for (name, prefix) in own
        .as_deref()
        .map(|n| (n, ""))
        .into_iter()
        .chain(tops.into_iter().map(|t| (t, t)))
    {
        if let Some(authority) = host_of_directory(name) {
            site.add_mirrored_host(&authority, prefix);
        }
    }
}

/// The authority a crawler's host directory stands for, when the name reads as one: a host
/// name with a dot (or `localhost`), or an IPv4 address, and perhaps a port after `:`, `+`
/// or `_`.
fn host_of_directory(name: &str) -> Option<String> {
    let (host, port) = match name.rfind([':', '+', '_']) {
        Some(i) => {
            let port = name.get(i + 1..)?;
            if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (name.get(..i)?, Some(port))
        }
        None => (name, None),
    };
    let hostlike = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && (host.contains('.') || host.eq_ignore_ascii_case("localhost"))
        && !host.starts_with('.')
        && !host.ends_with('.');
    hostlike.then(|| match port {
        Some(p) => format!("{host}:{p}"),
        None => host.to_owned(),
    })
}

/// Each file HTTrack's index names, matched to the tree by the longest tail of its recorded
/// path that is a file of the tree (the project may have moved since the crawl).
fn add_httrack_index(site: &mut Site, index: &str) {
    let files: std::collections::HashSet<String> = site.files().map(str::to_owned).collect();
    for (url, path) in crate::layout::httrack_index(index) {
        let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
        let found = (0..parts.len())
            .map(|k| parts.get(k..).unwrap_or_default().join("/"))
            .find(|tail| files.contains(tail));
        if let Some(rel) = found {
            site.add_saved(&url, &rel);
        }
    }
}

/// The `file:` URL of a directory, for `check --local`.
pub fn local_url(dir: &Path) -> Result<String, String> {
    let abs = fs::resolve_path(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let text = abs
        .to_str()
        .ok_or_else(|| format!("{}: the path is not UTF-8", dir.display()))?;
    let site = Site::new("file:///").map_err(|e| e.to_string())?;
    let url = site.file_url(text.trim_start_matches('/'));
    Ok(if url.ends_with('/') {
        url
    } else {
        format!("{url}/")
    })
}
