//! What `check` says (issue 11): the links it is told to leave alone (`--exclude`, `--include`,
//! `.linkbaseignore`), `--remap`, and the grouped report in the formats CI systems read
//! (human, json, markdown, junit).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use linkbase::site::Verdict;
use linkbase::text::escape_controls as esc;

use crate::walk::{CheckRecord, CheckTotals};
use crate::Fatal;
use linkbase::text as say;

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
    pub fn new(include: &[String], exclude: &[String], root: &Path) -> Result<Filter, Fatal> {
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
fn ignore_file(root: &Path) -> Result<Vec<Pattern>, Fatal> {
    let path = root.join(IGNORE_FILE);
    let bytes = linkbase::fs::read_tree_file(root, Path::new(IGNORE_FILE), MAX_IGNORE_FILE)
        .map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
    let Some(bytes) = bytes else {
        return Ok(Vec::new());
    };
    let mut patterns = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let whence = format!("{}:{}", path.display(), n + 1);
        let line = std::str::from_utf8(line)
            .map_err(|_| Fatal(format!("{whence}: not UTF-8")))?
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
fn patterns(patterns: &[Pattern]) -> Result<Patterns, Fatal> {
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
fn set(patterns: &[&Pattern]) -> Result<Option<regex::RegexSet>, Fatal> {
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
        Err(regex::Error::CompiledTooBig(limit)) => Err(Fatal(format!(
            "{}: {} patterns compile to more than {} MiB; join them into fewer, broader ones",
            patterns.first().map_or("", |p| p.whence.as_str()),
            patterns.len(),
            limit >> 20
        ))),
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
                    return Err(Fatal(format!(
                        "{}: \"{}\" is not a regular expression: {why}",
                        p.whence,
                        linkbase::text::excerpt(&p.text, 60)
                    )));
                }
            }
            Err(Fatal(
                "the exclude and include patterns do not compile".to_owned(),
            ))
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
    pub fn parse(spec: &str, dir_url: impl Fn(&str) -> Option<String>) -> Result<Remap, Fatal> {
        let mut parts = spec.split_whitespace();
        let (Some(from), Some(to), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(Fatal(format!(
                "--remap {spec:?}: expected 'PREFIX TARGET' (a URL prefix, then a URL prefix or a directory inside the checked tree)"
            )));
        };
        let to = if to.contains("://") {
            to.to_owned()
        } else {
            let mut url = dir_url(to).ok_or_else(|| {
                Fatal(format!(
                    "--remap {spec:?}: {to} is not a directory inside the checked tree"
                ))
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

/// One link to a broken target.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Referrer {
    pub file: String,
    pub element: String,
    pub attribute: Option<String>,
    pub original: String,
    pub resolved: Option<String>,
    /// Where the link's value is in the page (1-based; the column in characters).
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl Referrer {
    /// `file:line:column`, or `file` where the link was not located.
    pub fn place(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", self.file),
            _ => self.file.clone(),
        }
    }

    /// `file:line:column: <a href> "original"`: one line of a report, controls made visible.
    pub fn line(&self) -> String {
        format!(
            "{}: {} \"{}\"",
            esc(&self.place()),
            esc(&self.element_place()),
            esc(&self.original).replace('"', "\\\"")
        )
    }

    /// `<a href>`: the element and attribute the link is in; `url()` or `@import` in a
    /// stylesheet (`linkbase::site::Site::check_stylesheet`: no element, no attribute).
    pub fn element_place(&self) -> String {
        match (&self.attribute, self.element.as_str()) {
            (Some(a), _) => format!("<{} {a}>", self.element),
            (None, "url") => "url()".to_owned(),
            (None, "@import") => "@import".to_owned(),
            (None, _) => format!("<{}>", self.element),
        }
    }
}

/// Every link to one broken target.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BrokenTarget<'a> {
    pub verdict: Verdict,
    /// The file of the tree (with `#fragment` for a missing fragment), or the URL for a link
    /// outside the root.
    pub target: String,
    pub links: usize,
    pub pages: usize,
    /// For an external link checked online: the answer (`404 Not Found`, `connection refused`,
    /// redirects, `(cached)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub referrers: &'a [Referrer],
}

/// The grouped report, built as pages are checked.
#[derive(Debug, Default)]
pub struct Grouped {
    targets: BTreeMap<(u8, String), Vec<Referrer>>,
    /// Per target key: what the online check said of it.
    details: BTreeMap<(u8, String), String>,
    /// The report is the records themselves (jsonl, tsv): the broken targets are only counted
    /// (for the summary), their links not kept.
    count_only: bool,
}

fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Missing => 0,
        Verdict::MissingFragment => 1,
        Verdict::HttpError => 3,
        Verdict::Unreachable => 4,
        Verdict::BadAddress => 5,
        Verdict::LeftAbsolute => 6,
        _ => 2,
    }
}

impl Grouped {
    /// The grouping a report in `format` needs: the links of every broken target for a grouped
    /// report, the count of targets for one that lists every record.
    pub fn for_format(format: crate::args::CheckFormat) -> Grouped {
        use crate::args::CheckFormat as F;
        Grouped {
            count_only: matches!(format, F::Jsonl | F::Tsv),
            ..Grouped::default()
        }
    }

    /// Adds one page's records (`records` may be empty: a page with no links); `detail` says
    /// what an online check found for a record. A grouped report takes the records (the broken
    /// ones' text moves into it, nothing is copied); otherwise they are left as they are.
    pub fn add_page(
        &mut self,
        records: &mut Vec<CheckRecord>,
        detail: impl Fn(&CheckRecord) -> Option<String>,
    ) {
        if self.count_only {
            for r in records.iter().filter(|r| r.verdict.is_broken()) {
                let key = Self::key(r);
                self.targets.entry(key).or_default();
            }
            return;
        }
        for r in records.drain(..).filter(|r| r.verdict.is_broken()) {
            let detail = detail(&r);
            let key = Self::key(&r);
            let referrer = Referrer {
                file: r.file,
                element: r.link.element,
                attribute: r.link.attribute,
                original: r.link.original,
                resolved: r.link.resolved,
                line: r.link.line,
                column: r.link.column,
            };
            if let Some(d) = detail {
                self.details.entry(key.clone()).or_insert(d);
            }
            // Most broken targets have one link: room for one (a default vector's first push
            // makes room for four, 200,000 targets of one link took 120 MB).
            self.targets
                .entry(key)
                .or_insert_with(|| Vec::with_capacity(1))
                .push(referrer);
        }
    }

    /// The key a broken record is grouped by: its verdict's rank, then verdict and target.
    fn key(r: &CheckRecord) -> (u8, String) {
        let target = match (r.verdict, &r.target) {
            (Verdict::MissingFragment, Some(t)) => {
                let fragment = r
                    .link
                    .resolved
                    .as_deref()
                    .and_then(|u| u.split_once('#'))
                    .map_or("", |(_, f)| f);
                format!("{t}#{fragment}")
            }
            (_, Some(t)) => t.clone(),
            (_, None) => r.link.resolved.clone().unwrap_or_default(),
        };
        (
            rank(r.verdict),
            format!("{}\u{0}{target}", r.verdict.name()),
        )
    }

    /// The broken targets, missing files first, then missing fragments, then links leaving the
    /// root; by target within each.
    pub fn targets(&self) -> Vec<BrokenTarget<'_>> {
        self.targets
            .iter()
            .map(|(full_key, refs)| {
                let key = &full_key.1;
                let (verdict, target) = key.split_once('\u{0}').unwrap_or(("", key));
                let mut pages: Vec<&str> = refs.iter().map(|r| r.file.as_str()).collect();
                pages.dedup();
                BrokenTarget {
                    verdict: match verdict {
                        "missing" => Verdict::Missing,
                        "missing-fragment" => Verdict::MissingFragment,
                        "http-error" => Verdict::HttpError,
                        "unreachable" => Verdict::Unreachable,
                        "bad-address" => Verdict::BadAddress,
                        "left-absolute" => Verdict::LeftAbsolute,
                        _ => Verdict::OutsideRoot,
                    },
                    target: target.to_owned(),
                    links: refs.len(),
                    pages: pages.len(),
                    detail: self.details.get(full_key).cloned(),
                    referrers: refs,
                }
            })
            .collect()
    }
}

/// The one-line summary (stdout for human, stderr for every format).
/// `--exclude-path` globs (gitignore-like: `*` within a directory, `**` across), matched against
/// a page's path below DIR; a bad one is bad usage naming it.
pub fn path_globs(globs: &[String]) -> Result<globset::GlobSet, crate::Fatal> {
    let mut set = globset::GlobSetBuilder::new();
    for g in globs {
        let glob = globset::GlobBuilder::new(g)
            .literal_separator(true)
            .build()
            .map_err(|e| crate::Fatal(format!("--exclude-path {g:?}: {e}")))?;
        set.add(glob);
    }
    set.build()
        .map_err(|e| crate::Fatal(format!("--exclude-path: {e}")))
}

pub fn summary(t: &CheckTotals, targets: usize) -> String {
    let stylesheets = if t.stylesheets > 0 {
        format!(" and {}", say::n(t.stylesheets, "stylesheet"))
    } else {
        String::new()
    };
    let pages_excluded = if t.pages_excluded > 0 {
        format!(" ({} not checked: --exclude-path)", t.pages_excluded)
    } else {
        String::new()
    };
    let left_absolute = if t.left_absolute > 0 {
        format!(", {} left absolute to a file of the copy", t.left_absolute)
    } else {
        String::new()
    };
    let (broken_external, external) = if t.online {
        (
            format!(", {} external", t.broken_external),
            format!(
                "{} checked online, {} from the cache",
                t.checked_online, t.cached
            ),
        )
    } else {
        (String::new(), "listed, not fetched".to_owned())
    };
    let private = if t.private_addresses > 0 {
        format!(
            " ({} to {})",
            t.private_addresses,
            if t.private_addresses == 1 {
                "a private address"
            } else {
                "private addresses"
            }
        )
    } else {
        String::new()
    };
    format!(
        "{}{stylesheets}{pages_excluded}, {}: {} internal, {} broken ({} outside the site root{left_absolute}{broken_external}) to {}; {} external ({external}); {} unresolvable; {} excluded{private}",
        say::n(t.pages, "page"),
        say::n(t.links, "link"),
        t.internal + t.outside_root,
        t.broken,
        t.outside_root,
        say::n(targets, "target"),
        t.external,
        t.unresolvable,
        t.excluded
    ) + &not_checked(t)
}

/// Whether the summary line goes to stderr too. It does in every format, so a CI log shows it
/// whatever the report's form, except when the report itself ends with it (human, markdown)
/// and is written to stdout while stdout and stderr are both terminals: the user would read
/// the same line twice (issue 26: "the summary line prints twice on a terminal").
pub fn summary_on_stderr(
    format: crate::args::CheckFormat,
    to_stdout: bool,
    stdout_terminal: bool,
    stderr_terminal: bool,
) -> bool {
    use crate::args::CheckFormat;
    let report_has_it = matches!(
        format,
        CheckFormat::Human | CheckFormat::Markdown | CheckFormat::Github
    );
    !(report_has_it && to_stdout && stdout_terminal && stderr_terminal)
}

/// The summary's last clause: how many links were not checked, and why, so that a run that
/// checked nothing never reads as all clear: "; 3 not checked: 2 external (no --online), 1
/// outside the tree".
fn not_checked(t: &CheckTotals) -> String {
    let reasons: Vec<String> = [
        (t.web(), "external (no --online)"),
        (t.outside_tree, "outside the tree"),
        (t.other_scheme, "another scheme"),
        (t.unresolvable, "unresolvable"),
        (t.fragments_unchecked, "remote fragment not looked up"),
        (t.out_of_time, "past --max-time"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, why)| format!("{n} {why}"))
    .collect();
    if reasons.is_empty() {
        "; 0 not checked".to_owned()
    } else {
        format!("; {} not checked: {}", t.unchecked(), reasons.join(", "))
    }
}

/// Referrers shown per target in the human and Markdown reports (JSON has them all).
const SHOWN: usize = 10;

pub fn write_human(
    out: &mut impl Write,
    grouped: &Grouped,
    totals: &CheckTotals,
) -> io::Result<()> {
    let targets = grouped.targets();
    for t in &targets {
        writeln!(
            out,
            "{} {}  ({} on {}){}",
            t.verdict.name(),
            esc(&t.target),
            say::n(t.links, "link"),
            say::n(t.pages, "page"),
            t.detail
                .as_deref()
                .map(|d| format!(": {}", esc(d)))
                .unwrap_or_default()
        )?;
        for r in t.referrers.iter().take(SHOWN) {
            writeln!(out, "    {}", r.line())?;
        }
        if t.referrers.len() > SHOWN {
            writeln!(out, "    … and {} more", t.referrers.len() - SHOWN)?;
        }
    }
    writeln!(out, "{}", summary(totals, targets.len()))
}

#[derive(serde::Serialize)]
struct JsonReport<'a> {
    summary: JsonSummary,
    broken: &'a [BrokenTarget<'a>],
}

#[derive(serde::Serialize)]
struct JsonSummary {
    pages: usize,
    /// Stylesheets whose references were checked (only when there are some).
    #[serde(skip_serializing_if = "Option::is_none")]
    stylesheets: Option<usize>,
    links: usize,
    internal: usize,
    broken: usize,
    broken_targets: usize,
    outside_root: usize,
    /// Of `internal` and `broken`: `left-absolute` links (only when there are some).
    #[serde(skip_serializing_if = "Option::is_none")]
    left_absolute: Option<usize>,
    external: usize,
    unresolvable: usize,
    excluded: usize,
    /// External and unresolvable links: nothing was checked about them.
    not_checked: usize,
    /// Of `external`: `file:` URLs outside the tree.
    outside_tree: usize,
    /// Of `external`: neither http(s) nor file.
    other_scheme: usize,
    /// With `--online`: of `external`, the links checked online, those answered from the
    /// cache, and the broken ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    checked_online: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cached: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    broken_external: Option<usize>,
    /// With `--online`: of `excluded`, the links to addresses that are not globally reachable
    /// (without `--allow-private`); of `not_checked`, the remote fragments not looked up and
    /// the links `--max-time` left.
    #[serde(skip_serializing_if = "Option::is_none")]
    private_addresses: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fragments_unchecked: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    out_of_time: Option<usize>,
}

pub fn write_json(out: &mut impl Write, grouped: &Grouped, t: &CheckTotals) -> io::Result<()> {
    let targets = grouped.targets();
    let report = JsonReport {
        summary: JsonSummary {
            pages: t.pages,
            stylesheets: (t.stylesheets > 0).then_some(t.stylesheets),
            links: t.links,
            internal: t.internal + t.outside_root,
            broken: t.broken,
            broken_targets: targets.len(),
            outside_root: t.outside_root,
            left_absolute: (t.left_absolute > 0).then_some(t.left_absolute),
            external: t.external,
            unresolvable: t.unresolvable,
            excluded: t.excluded,
            not_checked: t.unchecked(),
            outside_tree: t.outside_tree,
            other_scheme: t.other_scheme,
            checked_online: t.online.then_some(t.checked_online),
            cached: t.online.then_some(t.cached),
            broken_external: t.online.then_some(t.broken_external),
            private_addresses: t.online.then_some(t.private_addresses),
            fragments_unchecked: t.online.then_some(t.fragments_unchecked),
            out_of_time: t.online.then_some(t.out_of_time),
        },
        broken: &targets,
    };
    linkbase::report::write_json(&mut *out, &report, true)?;
    writeln!(out)
}

/// A Markdown cell: no `|`, no line breaks, no HTML.
fn md(s: &str) -> String {
    esc(s)
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('`', "'")
}

pub fn write_markdown(out: &mut impl Write, grouped: &Grouped, t: &CheckTotals) -> io::Result<()> {
    let targets = grouped.targets();
    writeln!(
        out,
        "## linkbase check: {} to {} on {}\n",
        say::n(t.broken, "broken link"),
        say::n(targets.len(), "target"),
        say::n(t.pages, "page")
    )?;
    if !targets.is_empty() {
        writeln!(out, "| verdict | target | links | pages | linked from |")?;
        writeln!(out, "| --- | --- | ---: | ---: | --- |")?;
        for b in &targets {
            let mut from: Vec<String> = b
                .referrers
                .iter()
                .take(3)
                .map(|r| format!("{} (`{}`)", md(&r.place()), md(&r.original)))
                .collect();
            if b.referrers.len() > 3 {
                from.push(format!("… {} more", b.referrers.len() - 3));
            }
            writeln!(
                out,
                "| {} | `{}`{} | {} | {} | {} |",
                b.verdict.name(),
                md(&b.target),
                b.detail
                    .as_deref()
                    .map(|d| format!(" ({})", md(d)))
                    .unwrap_or_default(),
                b.links,
                b.pages,
                from.join("<br>")
            )?;
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", summary(t, targets.len()))
}

/// XML 1.0 text: the five escapes; the characters every output escapes
/// ([`linkbase::report::needs_escape`]) as character references where XML 1.0 §2.2 allows them
/// (`&#x202E;`), and C0 controls it cannot carry at all shown as `\x1b`, as in text output.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // As references, so attribute-value normalisation keeps them too.
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 => out.push_str(&esc(&c.to_string())),
            c if linkbase::report::needs_escape(c) => {
                out.push_str(&format!("&#x{:X};", u32::from(c)));
            }
            // Not characters in XML 1.0 §2.2.
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: a test case per broken target (named by it, its class the verdict), failing
/// with every link to it; a page that could not be read is an error case; one passing case
/// stands for every other link (its output the summary line), so a clean run has a test too.
/// Names are unique, since CI views merge cases of one name (lychee issue #2302).
///
/// A case's `file` and `line` attributes (not in Ant's schema, but what test reporters read
/// to link a case to its source: GitLab's unit test reports read `file`, as pytest writes
/// them) are those of its first link: DIR joined with the page's path, as the github and sarif
/// formats name it; the failure's text lists every link with its line and column.
pub fn write_junit(
    out: &mut impl Write,
    grouped: &Grouped,
    totals: &CheckTotals,
    unreadable: &[(String, String)],
    dir: &Path,
) -> io::Result<()> {
    let targets = grouped.targets();
    let tests = targets.len() + unreadable.len() + 1;
    let (failures, errors) = (targets.len(), unreadable.len());
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    let counts = format!(r#"tests="{tests}" failures="{failures}" errors="{errors}""#);
    writeln!(out, r#"<testsuites name="linkbase check" {counts}>"#)?;
    writeln!(out, r#"  <testsuite name="linkbase check" {counts}>"#)?;
    for t in &targets {
        let verdict = t.verdict.name();
        let place = t.referrers.first().map_or(String::new(), |r| {
            let line = r
                .line
                .map(|l| format!(r#" line="{l}""#))
                .unwrap_or_default();
            format!(
                r#" file="{}"{line}"#,
                xml(&crate::ciout::page_path(dir, &r.file))
            )
        });
        writeln!(
            out,
            r#"    <testcase classname="linkbase.check.{verdict}" name="{}"{place}>"#,
            xml(&t.target)
        )?;
        let lines: Vec<String> = t.referrers.iter().map(Referrer::line).collect();
        writeln!(
            out,
            r#"      <failure type="{verdict}" message="{}">{}</failure>"#,
            xml(&format!(
                "{} on {}{}",
                say::n(t.links, "link"),
                say::n(t.pages, "page"),
                t.detail
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )),
            xml(&lines.join("\n"))
        )?;
        writeln!(out, "    </testcase>")?;
    }
    for (file, error) in unreadable {
        writeln!(
            out,
            r#"    <testcase classname="linkbase.check.unreadable" name="{}" file="{}">"#,
            xml(file),
            xml(&crate::ciout::page_path(dir, file))
        )?;
        writeln!(
            out,
            r#"      <error type="unreadable" message="{}"/>"#,
            xml(error)
        )?;
        writeln!(out, "    </testcase>")?;
    }
    // Its output is the run's summary line: what was checked, and what was not.
    writeln!(
        out,
        r#"    <testcase classname="linkbase.check" name="every other link"><system-out>{}</system-out></testcase>"#,
        xml(&summary(totals, targets.len()))
    )?;
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_summary_is_said_once_on_a_terminal() {
        use crate::args::CheckFormat::{Human, Json, Jsonl, Markdown};
        // Report on a terminal that is also stderr: the report's last line is the summary.
        assert!(!summary_on_stderr(Human, true, true, true));
        assert!(!summary_on_stderr(Markdown, true, true, true));
        // Piped, redirected, or written with -o: stderr has the only copy a log sees.
        assert!(summary_on_stderr(Human, true, false, true));
        assert!(summary_on_stderr(Human, true, true, false));
        assert!(summary_on_stderr(Human, false, true, true));
        // Formats whose report has no summary line say it on stderr, terminal or not.
        assert!(summary_on_stderr(Json, true, true, true));
        assert!(summary_on_stderr(Jsonl, true, true, true));
    }

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

    #[test]
    fn xml_text_is_escaped_and_valid() {
        assert_eq!(
            xml("<a href=\"x\">&'\u{1}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\\x01"
        );
        assert_eq!(
            xml("a\u{1b}[31m\u{202e}b\n\u{85}\u{7f}\u{fffe}"),
            "a\\x1b[31m&#x202E;b&#10;&#x85;&#x7F;\u{FFFD}"
        );
    }
}
