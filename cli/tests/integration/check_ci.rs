//! `check` for CI: `--exclude`/`--include`, `.linkbaseignore`, `--remap`, grouped
//! broken targets, the json / markdown / junit formats, `-o`, the stderr summary and exit codes.

use std::path::Path;

use serde_json::Value;

use super::sites::{copy_tree, fixture, s, tmp, BASIC_URL};
use super::util::{linkbase, Run};

fn check(dir: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["check", s(dir), "--site-url", BASIC_URL];
    args.extend_from_slice(extra);
    linkbase(&args, b"")
}

fn summary(run: &Run) -> &str {
    run.stderr
        .lines()
        .find_map(|l| l.strip_prefix("linkbase: check: "))
        .unwrap_or_else(|| panic!("no summary on stderr: {}", run.stderr))
}

#[test]
fn exclude_and_include_patterns() {
    let basic = fixture("basic");
    let run = check(&basic, &["--exclude", "/assets/", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    // assets/: banner.png, logo@2x.png, missing.css, the three links to assets/index.html, and
    // the links to assets that exist.
    assert_eq!(v["summary"]["broken_targets"], 5, "{}", run.stdout);
    assert!(v["summary"]["excluded"].as_u64().unwrap() >= 6);
    assert!(
        !run.stdout.contains("\"target\": \"assets/"),
        "{}",
        run.stdout
    );
    // An include wins over an exclude.
    let run = check(
        &basic,
        &[
            "--exclude",
            "/assets/",
            "--include",
            "banner",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["summary"]["broken_targets"], 6);
    assert!(run.stdout.contains("\"target\": \"assets/banner.png\""));
    // Everything excluded: nothing broken, exit 0.
    let run = check(&basic, &["--exclude", "."]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(summary(&run).ends_with("0 broken (0 outside the site root) to 0 targets; 0 external (listed, not fetched); 0 unresolvable; 38 excluded; 0 not checked"));
    // A bad pattern is bad usage.
    let run = check(&basic, &["--exclude", "("]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("--exclude: \"(\" is not a regular expression"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_ignore_file_adds_excludes() {
    let dir = tmp();
    copy_tree(&fixture("basic"), dir.path());
    std::fs::write(
        dir.path().join(".linkbaseignore"),
        "# generated at deploy time\n\nnowhere\\.html$\n  /etc/passwd  \n",
    )
    .unwrap();
    let run = check(dir.path(), &["--format", "json"]);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["summary"]["broken_targets"], 6, "{}", run.stdout);
    assert_eq!(v["summary"]["excluded"], 3);
    assert!(!run.stdout.contains("nowhere.html"));
    std::fs::write(dir.path().join(".linkbaseignore"), "ok\n[\n").unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains(".linkbaseignore:2: \"[\" is not a regular expression"),
        "{}",
        run.stderr
    );
}

#[test]
fn one_missing_target_is_one_entry_however_many_pages_link_to_it() {
    let dir = tmp();
    for i in 0..50 {
        std::fs::write(
            dir.path().join(format!("p{i:02}.html")),
            "<link rel=stylesheet href=style.css><a href=p00.html#gone>x</a>",
        )
        .unwrap();
    }
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "missing style.css  (50 links on 50 pages)");
    assert_eq!(lines[1], "    p00.html:1:27: <link href> \"style.css\"");
    assert_eq!(lines[11], "    … and 40 more");
    assert_eq!(
        lines[12],
        "missing-fragment p00.html#gone  (50 links on 50 pages)"
    );
    assert_eq!(lines.len(), 12 * 2 + 1);
    assert_eq!(
        summary(&run),
        "50 pages, 100 links: 100 internal, 100 broken (0 outside the site root) to 2 targets; 0 external (listed, not fetched); 0 unresolvable; 0 excluded; 0 not checked"
    );
}

#[test]
fn junit_parses_back_with_a_case_per_broken_target() {
    let out = tmp();
    let report = out.path().join("report.xml");
    let run = check(&fixture("basic"), &["--format", "junit", "-o", s(&report)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let xml = std::fs::read_to_string(&report).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    // The 9 broken targets the markdown report lists, and one passing case for the rest.
    assert_eq!(suite.attribute("tests"), Some("10"));
    assert_eq!(suite.attribute("failures"), Some("9"));
    assert_eq!(suite.attribute("errors"), Some("0"));
    let cases: Vec<(String, String, Option<String>, Option<String>)> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| {
            let failure = c.children().find(|n| n.has_tag_name("failure"));
            (
                c.attribute("classname").unwrap().to_owned(),
                c.attribute("name").unwrap().to_owned(),
                failure
                    .and_then(|f| f.attribute("message"))
                    .map(str::to_owned),
                failure.and_then(|f| f.text()).map(str::to_owned),
            )
        })
        .collect();
    let names: Vec<&str> = cases.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(
        names,
        [
            "assets/banner.png",
            "assets/index.html",
            "assets/logo@2x.png",
            "assets/missing.css",
            "nowhere.html",
            "about.html#nobody",
            "index.html#no-such-heading",
            "https://example.com/../../../etc/passwd",
            "https://example.com/../etc/passwd",
            "every other link",
        ]
    );
    // CI views merge cases of one name (lychee issue #2302): every name is unique.
    let unique: std::collections::BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len());
    let fragment = &cases[5];
    assert_eq!(fragment.0, "linkbase.check.missing-fragment");
    assert_eq!(fragment.2.as_deref(), Some("2 links on 2 pages"));
    assert_eq!(
        fragment.3.as_deref(),
        Some(concat!(
            "docs/a b.html:6:61: <a href> \"../about.html#nobody\"\n",
            "index.html:17:14: <a href> \"about.html#nobody\""
        ))
    );
    let rest = suite
        .children()
        .rfind(|n| n.has_tag_name("testcase"))
        .unwrap();
    assert!(rest.children().all(|n| !n.has_tag_name("failure")));
    let said = rest
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap();
    assert_eq!(said, summary(&run));
}

#[test]
fn junit_clean_run_has_one_passing_case() {
    let run = linkbase(
        &[
            "check",
            s(&fixture("clean")),
            "--site-url",
            "https://example.net/docs/",
            "--format",
            "junit",
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = roxmltree::Document::parse(&run.stdout).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].attribute("name"), Some("every other link"));
    assert!(!run.stdout.contains("<failure"));
}

#[test]
fn markdown_is_a_table_of_broken_targets() {
    let run = check(&fixture("basic"), &["--format", "markdown"]);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "## linkbase check: 12 broken links to 9 targets on 5 pages"
    );
    assert_eq!(
        lines[2],
        "| verdict | target | links | pages | linked from |"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("| missing")).count(),
        7
    );
    assert!(lines.contains(&"| missing | `assets/index.html` | 3 | 2 | docs/based.html:8:10 (`index.html`)<br>docs/based.html:9:10 (`#part`)<br>docs/index.html:7:68 (`../assets/`) |"));
}

#[test]
fn json_groups_every_referrer() {
    let run = check(&fixture("basic"), &["--format", "json"]);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["summary"]["broken"], 12);
    let assets = v["broken"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["target"] == "assets/index.html")
        .unwrap();
    assert_eq!(
        (assets["links"].as_u64(), assets["pages"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(assets["referrers"][2]["original"], "../assets/");
}

#[test]
fn remap_checks_another_prefix_against_the_tree() {
    let dir = tmp();
    std::fs::create_dir(dir.path().join("api")).unwrap();
    std::fs::write(dir.path().join("api/x.html"), "<p id=here>x</p>").unwrap();
    std::fs::write(dir.path().join("old.html"), "o").unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<a href=https://old.example.org/docs/old.html>old</a>\
         <a href=https://old.example.org/docs/gone.html>gone</a>\
         <a href=https://cdn.example.org/v1/x.html#here>cdn</a>\
         <a href=https://cdn.example.org/v1/x.html#nope>cdn2</a>",
    )
    .unwrap();
    let without = check(dir.path(), &[]);
    assert_eq!(without.code, 0, "{}", without.stdout);
    assert!(summary(&without).contains("4 external"));
    let run = check(
        dir.path(),
        &[
            "--remap",
            "https://old.example.org/docs/ https://example.com/site/",
            "--remap",
            &format!("https://cdn.example.org/v1/ {}", s(&dir.path().join("api"))),
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let targets: Vec<(&str, &str)> = v["broken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["verdict"].as_str().unwrap(),
                b["target"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        targets,
        [
            ("missing", "gone.html"),
            ("missing-fragment", "api/x.html#nope")
        ]
    );
    let bad = check(dir.path(), &["--remap", "only-one"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("expected 'PREFIX TARGET'"),
        "{}",
        bad.stderr
    );
}

#[test]
fn hostile_names_stay_inside_their_junit_and_markdown_cells() {
    let dir = tmp();
    std::fs::write(
        dir.path().join("evil\n| x | <b>\u{1}.html"),
        "<meta charset=utf-8><a href=\"missing\u{1b}[2J|x.html\">x</a>",
    )
    .unwrap();
    let junit = check(dir.path(), &["--format", "junit"]);
    assert_eq!(junit.code, 1, "{}", junit.stderr);
    let doc = roxmltree::Document::parse(&junit.stdout).unwrap();
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase"))
        .unwrap();
    // U+0001 and ESC cannot be in XML 1.0 at all: shown as text output shows them.
    assert_eq!(case.attribute("name"), Some("missing\\x1b[2J|x.html"));
    let failure = case
        .children()
        .find(|n| n.has_tag_name("failure"))
        .and_then(|n| n.text());
    assert_eq!(
        failure,
        // One line per link: the page's line feed is shown, not written.
        Some("evil\\n| x | <b>\\x01.html:1:30: <a href> \"missing\\x1b[2J|x.html\"")
    );
    let md = check(dir.path(), &["--format", "markdown"]);
    assert!(
        !md.stdout.contains('\u{1b}') && !md.stdout.contains("<b>"),
        "{}",
        md.stdout
    );
    let rows: Vec<&str> = md
        .stdout
        .lines()
        .filter(|l| l.starts_with("| missing"))
        .collect();
    assert_eq!(rows.len(), 1, "{}", md.stdout);
    // Every `|` inside a cell is escaped: the row has its five cells.
    assert_eq!(
        rows[0].replace("\\|", "").matches('|').count(),
        6,
        "{}",
        rows[0]
    );
}

#[test]
fn every_command_that_writes_takes_o_file() {
    let dir = tmp();
    let page = fixture("basic").join("index.html");
    let links_out = dir.path().join("links.tsv");
    let run = linkbase(
        &[
            "links",
            s(&page),
            "--url",
            BASIC_URL,
            "--format",
            "tsv",
            "-o",
            s(&links_out),
        ],
        b"",
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    let to_stdout = linkbase(
        &["links", s(&page), "--url", BASIC_URL, "--format", "tsv"],
        b"",
    );
    assert_eq!(
        std::fs::read_to_string(&links_out).unwrap(),
        to_stdout.stdout
    );
    let base_out = dir.path().join("base.jsonl");
    let run = linkbase(
        &["base", s(&page), "--url", BASIC_URL, "-o", s(&base_out)],
        b"",
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert!(std::fs::read_to_string(&base_out)
        .unwrap()
        .starts_with("{\"part\":null,\"base\":\"https://example.com/site/\""));
    // A failed run leaves no file behind.
    let missing = dir.path().join("never.jsonl");
    let run = linkbase(&["links", "/nonexistent/page.html", "-o", s(&missing)], b"");
    assert_eq!(run.code, 2);
    assert!(!missing.exists());
}
