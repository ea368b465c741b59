//! `check --format github` and `--format sarif`: the broken links as GitHub Actions
//! workflow-command annotations, and as a SARIF 2.1.0 log for code-scanning views. Both name
//! each page as DIR joined with its path in the tree, so that a workflow run from the
//! repository's root finds the file.

use std::io::{self, Write};
use std::path::Path;

use crate::site::Verdict;

use super::report::{page_path, summary, BrokenTarget, Grouped, Referrer};
use super::run::CheckTotals;

/// What one broken link says: `missing x.html (<a href> "x.html")`, with what an online check
/// found.
fn message(t: &BrokenTarget, r: &Referrer) -> String {
    let detail = t
        .detail
        .as_deref()
        .map(|d| format!(": {d}"))
        .unwrap_or_default();
    format!(
        "{} {}{detail} ({} \"{}\")",
        t.verdict.name(),
        t.target,
        r.element_place(),
        r.original
    )
}

/// Workflow-command data: `%`, CR and LF as `%25`, `%0D`, `%0A` (GitHub Actions "workflow
/// commands", as `escapeData` of actions/toolkit's `command.ts` writes them); the characters
/// every output escapes ([`crate::report::needs_escape`]) shown as `\u{…}`.
fn data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if crate::report::needs_escape(c) => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// A workflow-command property value: as [`data`], and `:` and `,` as `%3A` and `%2C`
/// (`escapeProperty`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One `::error file=…,line=…,col=…,title=…::message` line per broken link, then the summary
/// as a plain log line.
pub fn write_github(
    out: &mut impl Write,
    grouped: &Grouped,
    totals: &CheckTotals,
    dir: &Path,
) -> io::Result<()> {
    let targets = grouped.targets();
    for t in &targets {
        for r in t.referrers {
            let mut props = format!("file={}", property(&page_path(dir, &r.file)));
            if let (Some(line), Some(col)) = (r.line, r.column) {
                props.push_str(&format!(",line={line},col={col}"));
            }
            props.push_str(&format!(
                ",title={}",
                property(&format!("linkbase: {}", t.verdict.name()))
            ));
            writeln!(out, "::error {props}::{}", data(&message(t, r)))?;
        }
    }
    writeln!(out, "{}", summary(totals, targets.len()))
}

/// What each verdict means, for the SARIF rules.
fn rule_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Missing => "A link names a file that is not in the tree.",
        Verdict::MissingFragment => "A link names an id the target page does not have.",
        Verdict::HttpError => "An external link answered with an error status.",
        Verdict::Unreachable => "An external link could not be reached.",
        Verdict::BadAddress => "A mailto: or tel: link is not a valid address.",
        Verdict::LeftAbsolute => {
            "A link to a file of the copy is written as its address on the web: from disk it \
             leaves the copy."
        }
        _ => "A link leaves the site's root.",
    }
}

/// A path as a SARIF `artifactLocation.uri` (a URI reference, SARIF 2.1.0 §3.4.3): every byte
/// but unreserved characters and `/` percent-encoded.
fn uri_reference(path: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~')
        .remove(b'/');
    percent_encoding::utf8_percent_encode(path, KEEP).to_string()
}

/// A SARIF 2.1.0 log (OASIS SARIF v2.1.0): one run of linkbase, a rule per verdict found, a
/// result per broken link at its page, line and column. Columns count Unicode code points
/// (`columnKind`, §3.14.17), as every linkbase position does. Written as it is serialized, a
/// result at a time (members in name order), so memory does not grow with the results.
pub fn write_sarif(out: &mut impl Write, grouped: &Grouped, dir: &Path) -> io::Result<()> {
    let targets = grouped.targets();
    let mut verdicts: Vec<Verdict> = targets.iter().map(|t| t.verdict).collect();
    verdicts.dedup();
    let log = SarifLog {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        runs: [SarifRun {
            column_kind: "unicodeCodePoints",
            results: SarifResults {
                targets: &targets,
                dir,
            },
            tool: SarifTool {
                driver: SarifDriver {
                    name: "linkbase",
                    rules: verdicts
                        .iter()
                        .map(|v| SarifRule {
                            id: v.name(),
                            short_description: Text {
                                text: rule_text(*v).to_owned(),
                            },
                        })
                        .collect(),
                    version: env!("CARGO_PKG_VERSION"),
                },
            },
        }],
        version: "2.1.0",
    };
    crate::report::write_json(&mut *out, &log, true)?;
    writeln!(out)
}

#[derive(serde::Serialize)]
struct SarifLog<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    runs: [SarifRun<'a>; 1],
    version: &'static str,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRun<'a> {
    column_kind: &'static str,
    results: SarifResults<'a>,
    tool: SarifTool,
}

#[derive(serde::Serialize)]
struct SarifTool {
    driver: SarifDriver,
}

#[derive(serde::Serialize)]
struct SarifDriver {
    name: &'static str,
    rules: Vec<SarifRule>,
    version: &'static str,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule {
    id: &'static str,
    short_description: Text,
}

#[derive(serde::Serialize)]
struct Text {
    text: String,
}

/// Every broken link as a result, made as it is written.
struct SarifResults<'a> {
    targets: &'a [BrokenTarget<'a>],
    dir: &'a Path,
}

impl serde::Serialize for SarifResults<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for t in self.targets {
            for r in t.referrers {
                seq.serialize_element(&SarifResult {
                    level: "error",
                    locations: [SarifLocation {
                        physical_location: Physical {
                            artifact_location: Artifact {
                                uri: uri_reference(&page_path(self.dir, &r.file)),
                            },
                            region: r.line.zip(r.column).map(|(line, col)| Region {
                                start_column: col,
                                start_line: line,
                            }),
                        },
                    }],
                    message: Text {
                        text: message(t, r),
                    },
                    rule_id: t.verdict.name(),
                })?;
            }
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    level: &'static str,
    locations: [SarifLocation; 1],
    message: Text,
    rule_id: &'static str,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    physical_location: Physical,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical {
    artifact_location: Artifact,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(serde::Serialize)]
struct Artifact {
    uri: String,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_column: usize,
    start_line: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_commands_are_escaped_as_github_reads_them() {
        assert_eq!(data("50%\r\nnext: a, b"), "50%25%0D%0Anext: a, b");
        assert_eq!(property("a: b, c%"), "a%3A b%2C c%25");
        assert_eq!(data("\u{202e}x\u{1b}"), "\\u{202e}x\\u{1b}");
    }

    #[test]
    fn pages_are_named_from_the_directory_given() {
        assert_eq!(
            page_path(Path::new("public/"), "a/b.html"),
            "public/a/b.html"
        );
        assert_eq!(page_path(Path::new("."), "b.html"), "b.html");
        assert_eq!(
            uri_reference("public/a b/é.html"),
            "public/a%20b/%C3%A9.html"
        );
    }
}
