//! What `check` reports, grouped: every broken target with the links to it, in the formats
//! people and CI systems read (human, JSON, Markdown, JUnit XML), and the one-line summary.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use crate::site::{CheckRecord, Verdict};
use crate::text as say;
use crate::text::escape_controls as esc;

use super::options::Page;
use super::run::CheckTotals;

/// One link to a broken target.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Referrer {
    /// The page, `/`-separated below the root.
    pub file: String,
    /// The element of the link.
    pub element: String,
    /// Its attribute (none for a stylesheet's `url()`).
    pub attribute: Option<String>,
    /// The link as written.
    pub original: String,
    /// The link resolved.
    pub resolved: Option<String>,
    /// Where the link's value is in the page (1-based; the column in characters).
    pub line: Option<usize>,
    /// Its column, where known.
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
    /// stylesheet (`crate::site::Site::check_stylesheet`: no element, no attribute).
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
    /// The verdict of its links.
    pub verdict: Verdict,
    /// The file of the tree (with `#fragment` for a missing fragment), or the URL for a link
    /// outside the root.
    pub target: String,
    /// The links to it.
    pub links: usize,
    /// The pages with links to it.
    pub pages: usize,
    /// For an external link checked online: the answer (`404 Not Found`, `connection refused`,
    /// redirects, `(cached)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The links to it, in file order.
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
    /// The grouping a report needs: the links of every broken target for a grouped report;
    /// only the count of targets (`count_only`) for one that lists every record.
    pub fn new(count_only: bool) -> Grouped {
        Grouped {
            count_only,
            ..Grouped::default()
        }
    }

    /// Adds one page's records, with what the online check found of them.
    pub fn add(&mut self, page: Page<'_>) {
        #[cfg(feature = "online")]
        let online = page.online;
        self.add_page(page.records, |_r| {
            #[cfg(feature = "online")]
            return online
                .and_then(|(results, rules)| rules.outcome(Some(results), _r))
                .map(super::online::Outcome::detail);
            #[cfg(not(feature = "online"))]
            None
        });
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

/// `--format human`: the broken targets, each with (at most ten of) its links, and the summary.
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

/// `--format json`: the summary's counts and every broken target with all its links, as one object.
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
    crate::report::write_json(&mut *out, &report, true)?;
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

/// `--format markdown`: a table of the broken targets and the summary (for CI job summaries, PR comments).
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
/// ([`crate::report::needs_escape`]) as character references where XML 1.0 §2.2 allows them
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
            c if crate::report::needs_escape(c) => {
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
/// Names are unique, since CI views merge cases of one name (lychee: <https://github.com/lycheeverse/lychee/issues/2302>).
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
            format!(r#" file="{}"{line}"#, xml(&page_path(dir, &r.file)))
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
            xml(&page_path(dir, file))
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

/// A page's path as the report names it: `dir/file`, with `/` separators.
pub fn page_path(dir: &Path, file: &str) -> String {
    let dir = dir.to_string_lossy().replace('\\', "/");
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() || dir == "." {
        file.to_owned()
    } else {
        format!("{dir}/{file}")
    }
}

/// Whether the summary line goes to stderr too. It does in every format, so a CI log shows it
/// whatever the report's form, except when the report itself ends with it (human, markdown,
/// github: `report_has_it`) and is written to stdout while stdout and stderr are both
/// terminals: the user would read the same line twice.
pub fn summary_on_stderr(
    report_has_it: bool,
    to_stdout: bool,
    stdout_terminal: bool,
    stderr_terminal: bool,
) -> bool {
    !(report_has_it && to_stdout && stdout_terminal && stderr_terminal)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_summary_is_said_once_on_a_terminal() {
        let (human, markdown, json, jsonl) = (true, true, false, false);
        // Report on a terminal that is also stderr: the report's last line is the summary.
        assert!(!summary_on_stderr(human, true, true, true));
        assert!(!summary_on_stderr(markdown, true, true, true));
        // Piped, redirected, or written with -o: stderr has the only copy a log sees.
        assert!(summary_on_stderr(human, true, false, true));
        assert!(summary_on_stderr(human, true, true, false));
        assert!(summary_on_stderr(human, false, true, true));
        // Formats whose report has no summary line say it on stderr, terminal or not.
        assert!(summary_on_stderr(json, true, true, true));
        assert!(summary_on_stderr(jsonl, true, true, true));
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
