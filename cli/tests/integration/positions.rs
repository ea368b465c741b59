//! Positions and CI output: the line and column of every link in every
//! format, `--format github` (workflow commands, escaped) and `--format sarif` (SARIF 2.1.0).

use std::path::Path;

use serde_json::Value;

use super::util::{jsonl, linkbase};

/// A page whose broken links sit in an attribute after a non-ASCII character, in an `iframe
/// srcdoc` document, in `<noscript>` markup, in a `<style>` element, and in a name with the
/// characters workflow commands escape.
const PAGE: &str = "<!doctype html><meta charset=utf-8>\n\
<p>é <a href=\"gone.html\">a</a>\n\
<iframe srcdoc=\"<a href=&quot;inner.html&quot;>i</a>\"></iframe>\n\
<noscript><img src=\"ns.png\"></noscript>\n\
<style>\n\
b { background: url(bg.png) }\n\
</style>\n\
<a href=\"ok.html#top\">ok</a> <a href=\"a,b%.html\">c</a>\n";

fn site() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("linkbase-positions-")
        .tempdir()
        .unwrap();
    let root = dir.path().join("p");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("index.html"), PAGE).unwrap();
    std::fs::write(root.join("ok.html"), "<h1 id=top>t</h1>\n").unwrap();
    dir
}

/// `check p --local --format FORMAT`, run from the directory holding `p`.
fn check(dir: &Path, format: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(["check", "p", "--local", "--format", format])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{format}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_format_says_where_each_link_is() {
    let dir = site();
    // Columns count characters (é is one); a srcdoc link is at its srcdoc attribute, markup in
    // <noscript> at the noscript's text, CSS at the <style> text.
    let human = check(dir.path(), "human");
    let expected = "\
missing a,b%.html  (1 link on 1 page)
    index.html:8:39: <a href> \"a,b%.html\"
missing bg.png  (1 link on 1 page)
    index.html:5:8: <style> \"bg.png\"
missing gone.html  (1 link on 1 page)
    index.html:2:15: <a href> \"gone.html\"
missing inner.html  (1 link on 1 page)
    index.html:3:17: <a href> \"inner.html\"
missing ns.png  (1 link on 1 page)
    index.html:4:11: <img src> \"ns.png\"
";
    assert!(human.starts_with(expected), "{human}");
    let github = check(dir.path(), "github");
    let expected = "\
::error file=p/index.html,line=8,col=39,title=linkbase%3A missing::missing a,b%25.html (<a href> \"a,b%25.html\")
::error file=p/index.html,line=5,col=8,title=linkbase%3A missing::missing bg.png (<style> \"bg.png\")
::error file=p/index.html,line=2,col=15,title=linkbase%3A missing::missing gone.html (<a href> \"gone.html\")
::error file=p/index.html,line=3,col=17,title=linkbase%3A missing::missing inner.html (<a href> \"inner.html\")
::error file=p/index.html,line=4,col=11,title=linkbase%3A missing::missing ns.png (<img src> \"ns.png\")
2 pages, 6 links: 6 internal, 5 broken (0 outside the site root) to 5 targets; 0 external (listed, not fetched); 0 unresolvable; 0 excluded; 0 not checked
";
    assert_eq!(github, expected);
    let positions: Vec<(String, u64, u64)> = jsonl(&check(dir.path(), "jsonl"))
        .iter()
        .map(|r| {
            (
                r["original"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
                r["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("gone.html", 2, 15),
        ("inner.html", 3, 17),
        ("ns.png", 4, 11),
        ("bg.png", 5, 8),
        ("ok.html#top", 8, 10),
        ("a,b%.html", 8, 39),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(o, l, c)| (o.to_string(), *l, *c))
        .collect();
    assert_eq!(positions, expected);
    let tsv = check(dir.path(), "tsv");
    let mut lines = tsv.lines();
    assert!(lines
        .next()
        .unwrap()
        .ends_with("\ttarget_part\tline\tcolumn"));
    assert!(lines.next().unwrap().ends_with("\t2\t15"), "{tsv}");
    let junit = check(dir.path(), "junit");
    assert!(
        junit.contains("index.html:2:15: &lt;a href&gt; &quot;gone.html&quot;"),
        "{junit}"
    );
    let markdown = check(dir.path(), "markdown");
    assert!(
        markdown.contains("| index.html:2:15 (`gone.html`) |"),
        "{markdown}"
    );
}

/// The `required` properties of the SARIF 2.1.0 schema (OASIS, `sarif-schema-2.1.0.json`) for
/// each object linkbase writes, and the properties the schema defines for it among those we
/// use (every object there has `additionalProperties: false`).
const SARIF_OBJECTS: &[(&str, &[&str], &[&str])] = &[
    (
        "sarifLog",
        &["version", "runs"],
        &["$schema", "version", "runs"],
    ),
    ("run", &["tool"], &["tool", "results", "columnKind"]),
    ("tool", &["driver"], &["driver"]),
    ("toolComponent", &["name"], &["name", "version", "rules"]),
    ("reportingDescriptor", &["id"], &["id", "shortDescription"]),
    ("multiformatMessageString", &["text"], &["text"]),
    (
        "result",
        &["message"],
        &["ruleId", "level", "message", "locations"],
    ),
    ("message", &[], &["text"]),
    ("location", &[], &["physicalLocation"]),
    ("physicalLocation", &[], &["artifactLocation", "region"]),
    ("artifactLocation", &[], &["uri"]),
    ("region", &[], &["startLine", "startColumn"]),
];

fn sarif_object(value: &Value, kind: &str) {
    let (_, required, allowed) = SARIF_OBJECTS.iter().find(|(k, _, _)| *k == kind).unwrap();
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{kind}: {value}"));
    for key in *required {
        assert!(object.contains_key(*key), "{kind} lacks {key}: {value}");
    }
    for key in object.keys() {
        assert!(allowed.contains(&key.as_str()), "{kind}: {key} in {value}");
    }
}

#[test]
fn sarif_has_the_shape_the_schema_requires() {
    let dir = site();
    let log: Value = serde_json::from_str(&check(dir.path(), "sarif")).unwrap();
    sarif_object(&log, "sarifLog");
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    sarif_object(run, "run");
    // The schema's enum; our columns count code points.
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    sarif_object(&run["tool"], "tool");
    sarif_object(&run["tool"]["driver"], "toolComponent");
    assert_eq!(run["tool"]["driver"]["name"], "linkbase");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 1);
    for rule in rules {
        sarif_object(rule, "reportingDescriptor");
        sarif_object(&rule["shortDescription"], "multiformatMessageString");
    }
    let results = run["results"].as_array().unwrap();
    let mut seen = Vec::new();
    for result in results {
        sarif_object(result, "result");
        sarif_object(&result["message"], "message");
        assert!(["none", "note", "warning", "error"].contains(&result["level"].as_str().unwrap()));
        let location = &result["locations"][0];
        sarif_object(location, "location");
        let physical = &location["physicalLocation"];
        sarif_object(physical, "physicalLocation");
        sarif_object(&physical["artifactLocation"], "artifactLocation");
        sarif_object(&physical["region"], "region");
        let (line, column) = (
            physical["region"]["startLine"].as_u64().unwrap(),
            physical["region"]["startColumn"].as_u64().unwrap(),
        );
        // The schema's minimum for both.
        assert!(line >= 1 && column >= 1);
        seen.push((
            result["ruleId"].as_str().unwrap().to_owned(),
            physical["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .to_owned(),
            line,
            column,
        ));
    }
    let at = |l, c| ("missing".to_owned(), "p/index.html".to_owned(), l, c);
    assert_eq!(seen, [at(8, 39), at(5, 8), at(2, 15), at(3, 17), at(4, 11)]);
}

#[test]
fn a_streamed_document_has_the_positions_of_one_in_memory() {
    let dir = site();
    let page = dir.path().join("p/index.html");
    let page = page.to_str().unwrap();
    let whole = linkbase(&["links", page], b"");
    let streamed = linkbase(&["links", page, "--stream-threshold", "1"], b"");
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    assert_eq!(streamed.stdout, whole.stdout);
    let lines: Vec<_> = jsonl(&whole.stdout)
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(lines, [(2, 15), (3, 17), (4, 11), (5, 8), (8, 10), (8, 39)]);
}
