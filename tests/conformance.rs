//! Data-driven resolution conformance: one trial per vector, named `<profile>: <ref> against
//! <base>`. Vectors come from the RFCs (`conformance/resolution.json`, a copy of
//! `../shared/conformance/resolution.json`) and from linkbase's own choices
//! (`conformance/linkbase.json`). `conformance/expected_failures.txt` is a ledger of trial names
//! known to fail (the one format, `common/ledger.rs`); a listed trial that passes is itself a
//! failure, so the ledger stays honest.
//!
//! Run one case: `cargo test --test conformance -- 'rfc2396: ../g'`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::HashSet;
use std::path::Path;

#[path = "common/ledger.rs"]
mod ledger;
#[path = "common/shared.rs"]
mod shared;
use ledger::Ledger;

use libtest_mimic::{Arguments, Failed, Trial};
use linkbase::{DotSegments, Profile, ResolveError, ResolveOptions, Resolver, SameScheme};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Vectors {
    groups: Vec<Group>,
}

#[derive(Debug, Clone, Deserialize)]
struct Group {
    source: String,
    profile: String,
    base: String,
    #[serde(default)]
    dot_segments: Option<String>,
    #[serde(default)]
    same_scheme: Option<String>,
    #[serde(default)]
    base_error: Option<String>,
    cases: Vec<Case>,
}

#[derive(Debug, Clone, Deserialize)]
struct Case {
    #[serde(rename = "ref")]
    reference: String,
    #[serde(default)]
    expected: Option<String>,
    #[serde(default)]
    expected_compat: Option<String>,
    #[serde(default)]
    same_document: Option<bool>,
    #[serde(default)]
    error: Option<String>,
}

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance");

fn load(name: &str) -> Vectors {
    let path = Path::new(DIR).join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn options(group: &Group, compat: bool) -> ResolveOptions {
    ResolveOptions {
        profile: group.profile.parse::<Profile>().unwrap(),
        dot_segments: group
            .dot_segments
            .as_deref()
            .map(|d| d.parse::<DotSegments>().unwrap()),
        same_scheme: if compat {
            SameScheme::Compat
        } else {
            group
                .same_scheme
                .as_deref()
                .map_or(SameScheme::Strict, |s| s.parse().unwrap())
        },
    }
}

fn error_kind(e: &ResolveError) -> &'static str {
    match e {
        ResolveError::RelativeBase(_) => "relative_base",
        ResolveError::OpaqueBase { .. } => "opaque_base",
        ResolveError::AboveRoot(_) => "above_root",
        ResolveError::Whatwg { .. } => "whatwg",
        ResolveError::PolicyNotApplicable(_) => "policy",
        _ => "other",
    }
}

fn check_case(group: &Group, case: &Case, compat: bool) -> Result<(), Failed> {
    let resolver = Resolver::new(&group.base, options(group, compat))
        .map_err(|e| format!("base refused: {e}"))?;
    let got = resolver.resolve(&case.reference);
    let expected = if compat {
        case.expected_compat.as_ref()
    } else {
        case.expected.as_ref()
    };
    match (got, expected, &case.error) {
        (Ok(r), Some(want), None) => {
            if &r.uri != want {
                return Err(format!("got {:?}, expected {want:?}", r.uri).into());
            }
            if let Some(same) = case.same_document {
                if r.same_document != same {
                    return Err(
                        format!("same_document {}, expected {same}", r.same_document).into(),
                    );
                }
            }
            Ok(())
        }
        (Err(e), None, Some(kind)) if error_kind(&e) == kind => Ok(()),
        (got, _, _) => Err(format!(
            "got {got:?}, expected {:?}",
            expected.map_or_else(|| format!("error {:?}", case.error), |e| e.clone())
        )
        .into()),
    }
}

type Runner = Box<dyn FnOnce() -> Result<(), Failed> + Send>;

fn trials_from(file: &str, trials: &mut Vec<(String, Runner)>, names: &mut HashSet<String>) {
    for group in load(file).groups {
        let mut flags = String::new();
        if let Some(d) = &group.dot_segments {
            flags.push_str(&format!(" [dot-segments {d}]"));
        }
        if let Some(s) = &group.same_scheme {
            flags.push_str(&format!(" [same-scheme {s}]"));
        }
        if let Some(kind) = group.base_error.clone() {
            let name = format!("{}: base {:?}{flags} is refused", group.profile, group.base);
            let g = group.clone();
            trials.push((
                name.clone(),
                Box::new(move || match Resolver::new(&g.base, options(&g, false)) {
                    Err(e) if error_kind(&e) == kind => Ok(()),
                    other => Err(format!("got {other:?}, expected error {kind}").into()),
                }),
            ));
            names.insert(name);
            continue;
        }
        for case in &group.cases {
            let mut variants = vec![false];
            if case.expected_compat.is_some() {
                variants.push(true);
            }
            for compat in variants {
                let suffix = if compat { " [same-scheme compat]" } else { "" };
                let name = format!(
                    "{}: {:?} against {}{flags}{suffix}",
                    group.profile, case.reference, group.base
                );
                assert!(
                    names.insert(name.clone()),
                    "duplicate trial name {name} ({})",
                    group.source
                );
                let (g, c) = (group.clone(), case.clone());
                trials.push((name, Box::new(move || check_case(&g, &c, compat))));
            }
        }
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    let mut names = HashSet::new();
    trials_from("resolution.json", &mut trials, &mut names);
    trials_from("linkbase.json", &mut trials, &mut names);
    assert!(
        trials.len() > 150,
        "the suite lost its vectors: {} trials",
        trials.len()
    );

    // The copy must stay in sync with the shared original when it is there.
    trials.push((
        "vectors: copy matches ../shared/conformance/resolution.json".to_owned(),
        Box::new(|| {
            let shared =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/resolution.json");
            let Ok(original) = std::fs::read(&shared) else {
                // Not beside this checkout: the copy stands alone (but not in CI).
                return shared::missing("the original of the conformance vectors", &shared)
                    .map_err(Failed::from);
            };
            let copy = std::fs::read(Path::new(DIR).join("resolution.json"))?;
            if original != copy {
                return Err(
                    "tests/conformance/resolution.json differs from the shared vectors".into(),
                );
            }
            Ok(())
        }),
    ));

    // The ledger (tests/common/ledger.rs): a listed trial must fail; a listed trial that passes
    // fails, and so does a listed name that names no trial.
    let ledger = Ledger::read(Path::new(DIR).join("expected_failures.txt"));
    let stale = ledger.stale("", names.iter().map(String::as_str));
    let mut trials: Vec<Trial> = trials
        .into_iter()
        .map(|(name, run)| {
            let verdict = ledger.verdict(&name);
            let kind = if verdict.listed {
                "expected failure"
            } else {
                ""
            };
            Trial::test(name, move || {
                verdict
                    .judge(run().map_err(|e| e.message().unwrap_or_default().to_owned()))
                    .map_err(Failed::from)
            })
            .with_kind(kind)
        })
        .collect();
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
