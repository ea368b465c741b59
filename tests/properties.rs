//! Property tests of the resolver: parse → recompose is the identity; an absolute reference
//! resolves to itself; every successful resolution is absolute; `same_document` follows the
//! reference's shape (RFC 2396 §4.2).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use linkbase::{Profile, ResolveOptions, Resolver, SameScheme, UriRef};
use proptest::prelude::*;

/// References built from URI-ish pieces, so that dots, slashes and delimiters meet often.
fn uriish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("/"),
            Just("."),
            Just(".."),
            Just("./"),
            Just("../"),
            Just("?"),
            Just("#"),
            Just(":"),
            Just(";"),
            Just("//"),
            Just("a"),
            Just("b"),
            Just("g"),
            Just("http:"),
            Just("x:"),
            Just("%2e"),
            Just(" "),
            Just("ü"),
            Just("\\"),
            Just("@"),
            Just("="),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

fn any_ref() -> impl Strategy<Value = String> {
    prop_oneof![uriish(), "\\PC{0,24}", ".{0,12}"]
}

fn base() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("http://a/b/c/d;p?q".to_owned()),
        Just("http://a".to_owned()),
        Just("http://a/".to_owned()),
        Just("file:///x/y/z".to_owned()),
        Just("https://h:8080/p/q/?r#f".to_owned()),
        Just("mailto:x@y".to_owned()),
        Just("foo:/a/b".to_owned()),
        uriish().prop_map(|s| format!("http://h/{s}")),
    ]
}

fn profile() -> impl Strategy<Value = Profile> {
    prop::sample::select(Profile::ALL.to_vec())
}

/// Whether `uri` has a scheme by the profile's own grammar: RFC 1808 §2.1 allows any of
/// alphanumerics, "+", "-" and "." (a digit or "." first too); RFC 2396 §3.1 wants a letter first.
fn has_scheme(p: Profile, uri: &str) -> bool {
    if p == Profile::Rfc1808 {
        let head = uri.split('#').next().unwrap_or_default();
        return head.split_once(':').is_some_and(|(s, _)| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        });
    }
    UriRef::parse(uri).scheme.is_some()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn parse_then_recompose_is_identity(s in any_ref()) {
        let r = UriRef::parse(&s);
        prop_assert_eq!(r.recompose(), s.clone());
        prop_assert_eq!(r.len(), s.len());
    }

    #[test]
    fn an_absolute_reference_resolves_to_itself(b in base(), rest in any_ref(), scheme in "[a-zA-Z][a-zA-Z0-9+.-]{0,6}", p in prop::sample::select(vec![Profile::Rfc2396, Profile::Rfc1808])) {
        let reference = format!("{scheme}:{rest}");
        // RFC 1808's parse sees '#' first; a ':' inside the fragment would not make a scheme.
        prop_assume!(UriRef::parse(&reference).scheme == Some(scheme.as_str()));
        let resolver = Resolver::new(&b, ResolveOptions { profile: p, ..ResolveOptions::default() }).unwrap();
        let r = resolver.resolve(&reference).unwrap();
        prop_assert_eq!(r.uri, reference);
    }

    #[test]
    fn every_result_is_absolute(b in base(), reference in any_ref(), p in profile(), compat in any::<bool>()) {
        let options = ResolveOptions {
            profile: p,
            same_scheme: if compat { SameScheme::Compat } else { SameScheme::Strict },
            ..ResolveOptions::default()
        };
        let Ok(resolver) = Resolver::new(&b, options) else { return Ok(()) };
        if let Ok(r) = resolver.resolve(&reference) {
            prop_assert!(has_scheme(p, &r.uri), "{:?} -> {:?}", reference, r.uri);
            prop_assert_eq!(r.same_document, UriRef::parse(&reference).is_same_document());
            // Resolving the result again changes nothing (strict mode: it is absolute). Not for
            // rfc3986: its empty-path branch keeps the base path as it is ("http://h/." + "?" gives
            // "http://h/.?") while an absolute reference has its dot segments removed (§5.2.2).
            if matches!(p, Profile::Rfc2396 | Profile::Rfc1808) && !compat {
                prop_assert_eq!(resolver.resolve(&r.uri).unwrap().uri, r.uri.clone());
            }
        }
    }

    #[test]
    fn resolution_never_fails_against_a_hierarchical_base_under_keep(reference in any_ref()) {
        let resolver = Resolver::new("http://a/b/c/d;p?q", ResolveOptions::default()).unwrap();
        prop_assert!(resolver.resolve(&reference).is_ok());
    }
}
