//! The URL Standard's own test vectors (WPT `url/resources/urltestdata.json`, BSD-3-Clause, of
//! 2026-07-11; see `tests/wpt/README.md`), run through the `whatwg`
//! profile: one trial per case that resolves an input against a base, and one per case
//! without a base, read as the profile reads an absolute URL of a document without a base (and a
//! URL it wrote, read back): the `url` crate's parser with the profile's corrections. The two
//! must agree where an absolute URL is both (fuzz/pipeline.rs found a `file:` host that one
//! corrected and the other dropped). `tests/wpt/expected_failures.txt` is the ledger of known failures (the one format,
//! `common/ledger.rs`); a listed trial that passes fails the suite, so the ledger only shrinks.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/ledger.rs"]
mod ledger;

use libtest_mimic::{Arguments, Failed, Trial};
use linkbase::uri::whatwg_absolute;
use linkbase::{Profile, ResolveOptions, Resolver};
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/wpt");

fn main() {
    let args = Arguments::from_args();
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/urltestdata.json")).unwrap())
            .unwrap();
    let ledger = ledger::Ledger::read(format!("{DIR}/expected_failures.txt"));
    let mut trials = Vec::new();
    let mut names = Vec::new();
    for (n, case) in data.as_array().unwrap().iter().enumerate() {
        let Some(case) = case.as_object() else {
            continue; // a comment string
        };
        let input = case["input"].as_str().unwrap().to_owned();
        let base = case.get("base").and_then(Value::as_str).map(str::to_owned);
        let expected = if case.get("failure").and_then(Value::as_bool) == Some(true) {
            None
        } else {
            Some(case["href"].as_str().unwrap().to_owned())
        };
        let name = match &base {
            Some(base) => format!("wpt {n}: {input:?} against {base:?}"),
            None => format!("wpt {n}: {input:?} alone"),
        };
        let verdict = ledger.verdict(&name);
        let kind = if verdict.listed {
            "expected failure"
        } else {
            ""
        };
        names.push(name.clone());
        trials.push(
            Trial::test(name, move || {
                let options = ResolveOptions::for_profile(Profile::Whatwg);
                let got = match &base {
                    Some(base) => Resolver::new(base, options)
                        .ok()
                        .and_then(|r| r.resolve(&input).ok())
                        .map(|r| r.uri),
                    None => whatwg_absolute(&input, encoding_rs::UTF_8).ok(),
                };
                let outcome = if got == expected {
                    Ok(())
                } else {
                    Err(format!("expected {expected:?}, got {got:?}"))
                };
                verdict.judge(outcome).map_err(Failed::from)
            })
            .with_kind(kind),
        );
    }
    assert!(trials.len() > 300, "the vectors were read");
    let stale = ledger.stale("", names.iter().map(String::as_str));
    trials.push(Trial::test(
        "ledger: every entry names a trial",
        move || {
            if stale.is_empty() {
                Ok(())
            } else {
                Err(stale.join("\n").into())
            }
        },
    ));
    libtest_mimic::run(&args, trials).exit();
}
