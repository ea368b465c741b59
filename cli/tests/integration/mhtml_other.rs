//! MHTML files written by other projects: Chromium's MHTML test files
//! (`fixtures/mhtml-other/chromium/`, BSD-3-Clause, its LICENSE and SOURCE.md beside them) and
//! the team's shared corpus (`../shared/corpus/mhtml/`, its SOURCES.md there; references named
//! `shared-corpus__*`), each
//! HTML part's base and plain URL attributes compared with `fixtures/mhtml-other/expected/*.json`,
//! written by `scripts/fixtures/mhtml_reference.py`: Python's email package, html.parser and
//! `urljoin`, none of linkbase. A file in which the email package finds a defect (a bad
//! boundary, no closing delimiter) must be said by linkbase (a `mime-malformed` line, exit 1);
//! one without, read in silence (exit 0).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::util::{jsonl, linkbase, URL_ATTRS};

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The reference files, and the MHTML files they are of (each one has its reference).
fn references() -> Vec<PathBuf> {
    let root = Path::new(REPO).join("fixtures/mhtml-other");
    let mut inputs = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        if name == "expected" || !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let file = f.unwrap().file_name().into_string().unwrap();
            if [".mht", ".mhtml", ".eml"].iter().any(|e| file.ends_with(e)) {
                inputs.push(format!("{name}__{file}.json"));
            }
        }
    }
    // The shared corpus stays in ../shared; without it, its references are not compared.
    let corpus = super::mhtml::corpus();
    for file in corpus.iter().flatten() {
        let file = file.file_name().unwrap().to_str().unwrap();
        inputs.push(format!("shared-corpus__{file}.json"));
    }
    inputs.sort();
    let mut refs: Vec<PathBuf> = std::fs::read_dir(root.join("expected"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    if corpus.is_none() {
        refs.retain(|r| !r.to_str().unwrap().contains("/shared-corpus__"));
    }
    refs.sort();
    let names: Vec<String> = refs
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names, inputs,
        "every MHTML file has its reference, and no other"
    );
    refs
}

#[test]
fn every_html_part_matches_the_independent_reference() {
    let refs = references();
    assert!(refs.len() >= 5);
    let mut failures = Vec::new();
    for reference in refs {
        let want: Value =
            serde_json::from_str(&std::fs::read_to_string(&reference).unwrap()).unwrap();
        let file = want["file"].as_str().unwrap();
        let path = format!("{REPO}/{file}");
        let links = linkbase(&["links", &path], b"");
        let bases = linkbase(&["base", &path, "--format", "jsonl"], b"");
        // The HTML parts' bases, in message order.
        let got: Vec<(Value, Value)> = jsonl(&bases.stdout)
            .into_iter()
            .filter(|b| b["content_type"] == "text/html")
            .map(|b| (b["part"].clone(), b["base"].clone()))
            .collect();
        let parts = want["parts"].as_array().unwrap();
        let expected: Vec<(Value, Value)> = parts
            .iter()
            .map(|p| (p["part"].clone(), p["base"].clone()))
            .collect();
        if got != expected {
            failures.push(format!(
                "{file}: bases\n  linkbase:  {got:?}\n  reference: {expected:?}"
            ));
        }
        // Each HTML part's plain URL attributes, in document order.
        let records = jsonl(&links.stdout);
        for p in parts {
            let got: Vec<Value> = records
                .iter()
                .filter(|l| l["part"] == p["part"] && l["kind"] == "url" && l["srcdoc_depth"] == 0)
                .filter(|l| {
                    let pair = (
                        l["element"].as_str().unwrap_or_default(),
                        l["attribute"].as_str().unwrap_or_default(),
                    );
                    URL_ATTRS.contains(&pair)
                })
                .map(|l| {
                    Value::Array(vec![
                        l["element"].clone(),
                        l["attribute"].clone(),
                        l["original"].clone(),
                        l["resolved"].clone(),
                    ])
                })
                .collect();
            if &got != p["links"].as_array().unwrap() {
                failures.push(format!(
                    "{file} part {}: links\n  linkbase:  {got:?}\n  reference: {:?}",
                    p["part"], p["links"]
                ));
            }
        }
        // Damage the email package finds is said; a sound file is read in silence.
        let defects = !want["defects"].as_array().unwrap().is_empty();
        for run in [&links, &bases] {
            let said = run.stderr.contains(": mime-malformed at offset ")
                && run
                    .stderr
                    .contains("the message is read past damage, as said");
            let ok = if defects {
                said && run.code == 1
            } else {
                run.stderr.is_empty() && run.code == 0
            };
            if !ok {
                failures.push(format!(
                    "{file}: defects {:?}, exit {}, stderr {:?}",
                    want["defects"], run.code, run.stderr
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
