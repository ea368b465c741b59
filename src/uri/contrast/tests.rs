#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::expect_used,
    clippy::indexing_slicing
)]
use super::*;

use proptest::prelude::*;

const PROFILES: [Profile; 4] = [
    Profile::Rfc2396,
    Profile::Rfc1808,
    Profile::Rfc3986,
    Profile::Whatwg,
];

/// `reference` against `base` under `profile`, and whether the other side resolves it to another
/// URL: `Some(other)` from [`Contrast::other`], checked against the comparison made for every
/// reference (no shortcut). A difference the shortcut would hide fails here. Same-document
/// references never reach the rule (the rewrite keeps them apart).
fn contrasted(base: &str, profile: Profile, reference: &str) -> Option<String> {
    if UriRef::parse(reference).is_same_document() {
        return None;
    }
    let contrast = Contrast::new(base, profile, encoding_rs::UTF_8)?;
    let this = Resolver::new(base, ResolveOptions::for_profile(profile)).ok()?;
    let resolved = this.resolve(reference).ok()?.uri;
    let found = contrast.other(reference, &resolved);
    let full = contrast
        .resolver
        .resolve(reference)
        .ok()
        .map(|r| r.uri)
        .filter(|other| differ(other, &resolved, encoding_rs::UTF_8));
    assert_eq!(
        found, full,
        "{reference:?} against {base:?} under {profile:?}: {resolved}"
    );
    found
}

/// The same-scheme cases: `http:g` (RFC 2396 §5.2 step 3 reads it as absolute; the URL Standard
/// as relative to a base of the same scheme) and its kin, each said.
#[test]
fn the_steps_where_the_two_part_ways_are_said() {
    let base = "http://a/b/c/d;p?q";
    for (reference, rfc, whatwg) in [
        ("http:g", "http:g", "http://a/b/c/g"),
        ("HTTP:g", "HTTP:g", "http://a/b/c/g"),
        ("http:/g", "http:/g", "http://a/g"),
        ("https:g", "https:g", "https://g/"),
        ("ftp:g", "ftp:g", "ftp://g/"),
        ("http:///g", "http:///g", "http://g/"),
        ("///g", "http:///g", "http://g/"),
        ("../../../g", "http://a/../g", "http://a/g"),
        ("%2e%2e/g", "http://a/b/c/%2e%2e/g", "http://a/b/g"),
        ("/%2E/g", "http://a/%2E/g", "http://a/g"),
        ("?y", "http://a/b/c/?y", "http://a/b/c/d;p?y"),
        ("g\\h", "http://a/b/c/g\\h", "http://a/b/c/g/h"),
    ] {
        let other = contrasted(base, Profile::Rfc2396, reference);
        assert_eq!(other.as_deref(), Some(whatwg), "{reference}");
        let back = contrasted(base, Profile::Whatwg, reference);
        assert_eq!(back.as_deref(), Some(rfc), "{reference}");
    }
    // Where they agree, nothing is said (and most references are not even asked).
    for reference in [
        "g",
        "./g",
        "g/",
        "/g",
        "//g",
        "g?y",
        "g;x",
        "foo:g",
        "mailto:x@y",
        "a b",
    ] {
        assert_eq!(
            contrasted(base, Profile::Rfc2396, reference),
            None,
            "{reference}"
        );
    }
    assert!(!may_differ("g/h.html?x=1#f"));
    // Under the same-scheme compatibility reading, `http:g` is relative in RFC 2396 too.
    let compat = ResolveOptions {
        same_scheme: crate::uri::SameScheme::Compat,
        ..ResolveOptions::for_profile(Profile::Rfc2396)
    };
    let resolved = Resolver::new(base, compat)
        .unwrap()
        .resolve("http:g")
        .unwrap()
        .uri;
    let contrast = Contrast::new(base, Profile::Rfc2396, encoding_rs::UTF_8).unwrap();
    assert_eq!(contrast.other("http:g", &resolved), None);
    // A `file:` base with a drive letter: the URL Standard keeps it under a path-absolute
    // reference.
    assert_eq!(
        contrasted("file:///C:/a/b", Profile::Rfc2396, "/x").as_deref(),
        Some("file:///C:/x")
    );
}

/// Every reference and base of the conformance vectors and of WPT's urltestdata, under each
/// profile: wherever the two sides give different URLs, [`Contrast::other`] says so.
#[test]
fn no_difference_in_the_test_suites_is_missed() {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let root = env!("CARGO_MANIFEST_DIR");
    for file in ["resolution.json", "linkbase.json"] {
        let text = std::fs::read_to_string(format!("{root}/tests/conformance/{file}")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for g in v["groups"].as_array().unwrap() {
            let base = g["base"].as_str().unwrap();
            for c in g["cases"].as_array().unwrap() {
                pairs.push((base.to_owned(), c["ref"].as_str().unwrap().to_owned()));
            }
        }
    }
    let text = std::fs::read_to_string(format!("{root}/tests/wpt/urltestdata.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for case in v.as_array().unwrap() {
        if let (Some(input), Some(base)) = (case["input"].as_str(), case["base"].as_str()) {
            pairs.push((base.to_owned(), input.to_owned()));
        }
    }
    assert!(pairs.len() > 500, "{}", pairs.len());
    let mut said = 0;
    for (base, reference) in &pairs {
        for profile in PROFILES {
            said += usize::from(contrasted(base, profile, reference).is_some());
        }
    }
    assert!(said > 100, "{said}");
}

/// References built from the pieces where the algorithms part ways, against bases that have
/// them too.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "g",
        "h.html",
        ".",
        "..",
        "%2e",
        "%2E%2e",
        ".%2e",
        "/",
        "//",
        "///",
        "\\",
        "?",
        "?y",
        "#f",
        ";p",
        "http:",
        "HTTP:",
        "https:",
        "ftp:",
        "file:",
        "foo:",
        "x:",
        "C|",
        "c:",
        " ",
        "\t",
        "\u{1}",
        "@",
        ":80",
        "a b",
        "é",
        "%2f",
        "[::1]",
        "%",
        "%zz",
        "~",
        "localhost",
    ])
}

fn reference() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 1..6).prop_map(|p| p.concat())
}

fn base() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "http://a/b/c/d;p?q",
        "https://h:443/x/",
        "http://a",
        "http://a/b/../c",
        "http://a/%2e%2e/c/d",
        "foo://h/p/q",
        "file:///C:/dir/f",
        "file:///usr/share/doc/",
        "ftp://h/d/f",
        "http://a/b/c/d;p?q#f",
        "http://a/b%2Fc/d",
        "mailto:x@y",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn the_shortcut_never_hides_a_difference(b in base(), r in reference()) {
        for profile in PROFILES {
            contrasted(b, profile, &r);
        }
    }
}
