//! What `check` leaves alone or reads elsewhere: the links it is told not to check
//! (`--exclude`, `--include`, the tree's `.linkbaseignore`), the pages it does not read
//! (`--exclude-path`), and `--remap`.

use std::collections::BTreeMap;
use std::path::Path;

#[cfg(feature = "online")]
use crate::site::{CheckRecord, Verdict};

/// The ignore file at the root of a checked tree: one regular expression a line, `#` comments.
pub const IGNORE_FILE: &str = ".linkbaseignore";

/// The most of the ignore file read (it is the tree's: see `docs/sites.md`).
pub const MAX_IGNORE_FILE: u64 = 1 << 20;

/// The most memory the patterns of a run compile to (each of the include and the exclude
/// sets): past it the patterns are refused, with how to make them fewer.
const MAX_PATTERNS_SIZE: usize = 64 << 20;

/// Which links are checked: a link whose URL (resolved, else as written) matches an exclude
/// pattern is not checked, unless it matches an include pattern (includes win, as in lychee).
#[derive(Debug, Default)]
pub struct Filter {
    include: Patterns,
    exclude: Patterns,
}

/// One side's patterns. Those that are an anchored literal (`^https://x\.example/`, `^https?://a/`:
/// the start, then a finite set of strings) are a table of prefixes, matched by a lookup per
/// prefix length; the others are one automaton (a `RegexSet`). Memory and the time of a match
/// then grow with what the patterns hold, not with one compiled program per pattern, and a
/// list of thousands of prefixes does not overflow the automaton's cache.
#[derive(Debug, Default)]
struct Patterns {
    /// By length: the prefixes of that length.
    prefixes: BTreeMap<usize, std::collections::HashSet<Vec<u8>>>,
    set: Option<regex::RegexSet>,
}

impl Patterns {
    fn is_match(&self, url: &str) -> bool {
        let bytes = url.as_bytes();
        self.prefixes
            .iter()
            .take_while(|(len, _)| **len <= bytes.len())
            .any(|(len, set)| bytes.get(..*len).is_some_and(|p| set.contains(p)))
            || self.set.as_ref().is_some_and(|s| s.is_match(url))
    }
}

/// The strings `pattern` matches at the start of a text, when that is all it says: `^` and then
/// a finite, exact set of strings (regex-syntax's literal extraction), with no other assertion.
fn anchored_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::{literal, Hir, HirKind, Look};
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let (first, rest) = parts.split_first()?;
    if !matches!(first.kind(), HirKind::Look(Look::Start)) {
        return None;
    }
    let rest = Hir::concat(rest.to_vec());
    if !rest.properties().look_set().is_empty() {
        return None;
    }
    let seq = literal::Extractor::new().extract(&rest);
    if !seq.is_exact() {
        return None;
    }
    Some(
        seq.literals()?
            .iter()
            .map(|l| l.as_bytes().to_vec())
            .collect(),
    )
}

/// One pattern and where it came from (`--exclude`, `DIR/.linkbaseignore:3`).
struct Pattern {
    text: String,
    whence: String,
}

impl Filter {
    /// From `--include`, `--exclude` and the root's ignore file (when there is one).
    pub fn new(include: &[String], exclude: &[String], root: &Path) -> Result<Filter, String> {
        let flag = |flag: &str, ps: &[String]| -> Vec<Pattern> {
            ps.iter()
                .map(|p| Pattern {
                    text: p.clone(),
                    whence: flag.to_owned(),
                })
                .collect()
        };
        let mut excludes = flag("--exclude", exclude);
        excludes.extend(ignore_file(root)?);
        Ok(Filter {
            include: patterns(&flag("--include", include))?,
            exclude: patterns(&excludes)?,
        })
    }

    /// Whether the link with this URL is left unchecked.
    pub fn excludes(&self, url: &str) -> bool {
        self.exclude.is_match(url) && !self.include.is_match(url)
    }
}

/// The patterns of `DIR/.linkbaseignore`: read only as a regular file of the tree of at most
/// [`MAX_IGNORE_FILE`], never through a symbolic link (`fsout::read_tree_file`).
fn ignore_file(root: &Path) -> Result<Vec<Pattern>, String> {
    let path = root.join(IGNORE_FILE);
    let bytes = crate::fs::read_tree_file(root, Path::new(IGNORE_FILE), MAX_IGNORE_FILE)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let Some(bytes) = bytes else {
        return Ok(Vec::new());
    };
    let mut patterns = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let whence = format!("{}:{}", path.display(), n + 1);
        let line = std::str::from_utf8(line)
            .map_err(|_| format!("{whence}: not UTF-8"))?
            .trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        patterns.push(Pattern {
            text: line.to_owned(),
            whence,
        });
    }
    Ok(patterns)
}

/// `patterns` as [`Patterns`]: anchored literals as prefixes, the others as one automaton.
fn patterns(patterns: &[Pattern]) -> Result<Patterns, String> {
    let mut out = Patterns::default();
    let mut others = Vec::new();
    for p in patterns {
        match anchored_literals(&p.text) {
            Some(literals) => {
                for l in literals {
                    out.prefixes.entry(l.len()).or_default().insert(l);
                }
            }
            None => others.push(p),
        }
    }
    out.set = set(&others)?;
    Ok(out)
}

/// One automaton for `patterns`; a bad one is named by where it came from, quoted as a short
/// excerpt (a pattern may come from the checked tree).
fn set(patterns: &[&Pattern]) -> Result<Option<regex::RegexSet>, String> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let build = |ps: &[&str]| {
        regex::RegexSetBuilder::new(ps)
            .size_limit(MAX_PATTERNS_SIZE)
            .dfa_size_limit(MAX_PATTERNS_SIZE)
            .build()
    };
    let texts: Vec<&str> = patterns.iter().map(|p| p.text.as_str()).collect();
    match build(&texts) {
        Ok(set) => Ok(Some(set)),
        Err(regex::Error::CompiledTooBig(limit)) => Err(format!(
            "{}: {} patterns compile to more than {} MiB; join them into fewer, broader ones",
            patterns.first().map_or("", |p| p.whence.as_str()),
            patterns.len(),
            limit >> 20
        )),
        Err(_) => {
            // Which one: each alone, until the bad one is found.
            for p in patterns.iter().copied() {
                if let Err(e) = build(&[p.text.as_str()]) {
                    let why = match &e {
                        regex::Error::Syntax(text) => text
                            .lines()
                            .find_map(|l| l.strip_prefix("error: "))
                            .unwrap_or("not valid")
                            .to_owned(),
                        e => e.to_string(),
                    };
                    return Err(format!(
                        "{}: \"{}\" is not a regular expression: {why}",
                        p.whence,
                        crate::text::excerpt(&p.text, 60)
                    ));
                }
            }
            Err("the exclude and include patterns do not compile".to_owned())
        }
    }
}

/// `--remap 'PREFIX TARGET'`: links whose resolved URL starts with PREFIX are checked as if it
/// were TARGET — a URL prefix, or a directory of the tree (checked as the site's URL for it).
#[derive(Debug, Clone)]
pub struct Remap {
    from: String,
    to: String,
}

impl Remap {
    /// Parses `PREFIX TARGET`. A TARGET without `://` is a directory (a path, as any other
    /// argument: relative to the working directory) that must lie inside the checked tree;
    /// `dir_url` gives its URL in the site, or `None` when it is outside.
    pub fn parse(spec: &str, dir_url: impl Fn(&str) -> Option<String>) -> Result<Remap, String> {
        let mut parts = spec.split_whitespace();
        let (Some(from), Some(to), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!(
                "--remap {spec:?}: expected 'PREFIX TARGET' (a URL prefix, then a URL prefix or a directory inside the checked tree)"
            ));
        };
        let to = if to.contains("://") {
            to.to_owned()
        } else {
            let mut url = dir_url(to).ok_or_else(|| {
                format!("--remap {spec:?}: {to} is not a directory inside the checked tree")
            })?;
            if !url.ends_with('/') {
                url.push('/');
            }
            url
        };
        Ok(Remap {
            from: from.to_owned(),
            to,
        })
    }

    /// `url` with the first matching prefix replaced.
    pub fn apply<'a>(remaps: &[Remap], url: &'a str) -> std::borrow::Cow<'a, str> {
        for r in remaps {
            if let Some(rest) = url.strip_prefix(&r.from) {
                return format!("{}{rest}", r.to).into();
            }
        }
        url.into()
    }
}

/// `--exclude-path` globs (gitignore-like: `*` within a directory, `**` across), matched against
/// a page's path below DIR; a bad one is bad usage naming it.
pub fn path_globs(globs: &[String]) -> Result<globset::GlobSet, String> {
    let mut set = globset::GlobSetBuilder::new();
    for g in globs {
        let glob = globset::GlobBuilder::new(g)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("--exclude-path {g:?}: {e}"))?;
        set.add(glob);
    }
    set.build().map_err(|e| format!("--exclude-path: {e}"))
}

/// What `check` leaves alone or reads elsewhere.
#[derive(Debug, Default)]
pub struct CheckRules {
    /// The links not checked (`--exclude`, `--include`, `.linkbaseignore`).
    pub filter: Filter,
    /// `--remap`, in order: the first whose prefix matches applies.
    pub remaps: Vec<Remap>,
    /// `--exclude-path`: pages whose links are not checked (still link targets, with their ids).
    pub skip_pages: globset::GlobSet,
}

impl CheckRules {
    /// The URL `--online` checks for a link: its resolution, remapped; `None` for a link it
    /// does not check (internal, or a scheme it does not know).
    #[cfg(feature = "online")]
    pub(super) fn online_url(&self, r: &CheckRecord) -> Option<String> {
        let resolved = r.link.resolved.as_deref()?;
        let url = Remap::apply(&self.remaps, resolved);
        super::online::wanted(&url).then(|| url.into_owned())
    }

    /// The online verdict of an external link (`None` for any other link, or without
    /// `--online`).
    #[cfg(feature = "online")]
    pub fn outcome<'a>(
        &self,
        results: Option<&'a super::online::Results>,
        r: &CheckRecord,
    ) -> Option<&'a super::online::Outcome> {
        if r.target.is_some() || r.verdict == Verdict::OutsideRoot {
            return None;
        }
        let outcome = results?.get(&self.online_url(r)?)?;
        // A link the exclude patterns left alone has no online verdict; one the online check
        // excluded (an address, a redirect) has its reason.
        (r.verdict != Verdict::Excluded || outcome.verdict == Verdict::Excluded).then_some(outcome)
    }
}

impl crate::site::CheckRules for CheckRules {
    fn excludes(&self, url: &str) -> bool {
        self.filter.excludes(url)
    }

    fn remap(&self, resolved: &str) -> Option<String> {
        match Remap::apply(&self.remaps, resolved) {
            std::borrow::Cow::Owned(s) => Some(s),
            std::borrow::Cow::Borrowed(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn pats(ps: &[&str]) -> Patterns {
        let ps: Vec<Pattern> = ps
            .iter()
            .map(|p| Pattern {
                text: (*p).to_owned(),
                whence: "test".to_owned(),
            })
            .collect();
        patterns(&ps).unwrap()
    }

    #[test]
    fn includes_win_over_excludes() {
        let f = Filter {
            include: pats(&["keep"]),
            exclude: pats(&["^https://x/", "^https://z/"]),
        };
        assert!(f.excludes("https://x/a"));
        assert!(!f.excludes("https://x/keep"));
        assert!(!f.excludes("https://y/a"));
        assert!(f.excludes("https://z/a"));
        assert!(!Filter::default().excludes("https://x/a"));
    }

    /// Anchored literals are matched as prefixes, every other pattern by the automaton; both
    /// say what the regular expression says.
    #[test]
    fn literal_prefixes_match_as_their_patterns_do() {
        assert_eq!(
            anchored_literals(r"^https?://h1\.ex/"),
            Some(vec![b"https://h1.ex/".to_vec(), b"http://h1.ex/".to_vec()])
        );
        for p in [r"^a$", r"^a\b", "a", r"^a.*b", r"^(?i)abc[a-z]+", "(?m)^a"] {
            assert_eq!(anchored_literals(p), None, "{p}");
        }
        let patterns = [
            r"^https?://h1\.ex/",
            r"^https://a\.example/(docs|api)/",
            r"^x$",
            r"\.pdf$",
            "^",
        ];
        let urls = [
            "https://h1.ex/a",
            "http://h1.ex/",
            "https://h12.ex/",
            "https://a.example/api/v1",
            "https://a.example/blog/",
            "x",
            "xy",
            "https://b/f.pdf",
            "",
        ];
        for p in patterns {
            let ours = pats(&[p]);
            let theirs = regex::Regex::new(p).unwrap();
            for u in urls {
                assert_eq!(ours.is_match(u), theirs.is_match(u), "{p} {u}");
            }
        }
    }

    #[test]
    fn remaps_to_urls_and_directories() {
        let dir = |d: &str| (!d.contains("..")).then(|| format!("https://site/{d}"));
        let a = Remap::parse(
            "https://docs.python.org/3/ https://docs.python.org/3.11/",
            dir,
        )
        .unwrap();
        let b = Remap::parse("https://old/ api", dir).unwrap();
        let remaps = [a, b];
        assert_eq!(
            Remap::apply(&remaps, "https://docs.python.org/3/x.html"),
            "https://docs.python.org/3.11/x.html"
        );
        assert_eq!(Remap::apply(&remaps, "https://old/y"), "https://site/api/y");
        assert_eq!(Remap::apply(&remaps, "https://other/"), "https://other/");
        assert!(Remap::parse("one", dir).is_err());
        assert!(Remap::parse("https://a/ ../up", dir).is_err());
    }
}
