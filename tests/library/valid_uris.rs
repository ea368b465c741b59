//! `links` never reports, and `rewrite` never writes, a resolved URL with a raw
//! space, control character or non-ASCII character, in any profile and any document encoding
//! (RFC 2396 §2.4.3; the characters are percent-encoded as the URL Standard does).

use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::{BaseLayers, Profile, ResolveOptions};
use proptest::prelude::*;

/// References with the characters a URI cannot hold mixed into URI-ish pieces.
fn reference() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a"),
            Just("/"),
            Just("../"),
            Just("?q="),
            Just("#f"),
            Just(" "),
            Just("\u{1}"),
            Just("\u{7f}"),
            Just("\t"),
            Just("ü"),
            Just("日本"),
            Just("\u{202e}"),
            Just("\""),
            Just("<"),
            Just("`"),
            Just("{"),
            Just("%"),
            Just("//ü.example/"),
            Just("//ü "),
            Just("http://h/ä "),
        ],
        1..8,
    )
    .prop_map(|parts| parts.concat())
}

/// `s` as an attribute value between double quotes.
fn attribute(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;")
}

/// Whether `uri` is free of what a URI cannot hold (a space, a control, non-ASCII).
fn is_uri(uri: &str) -> bool {
    uri.bytes().all(|b| b > b' ' && b < 0x7f)
}

proptest! {
    #[test]
    fn resolved_and_written_urls_are_uris(
        r in reference(),
        profile in prop::sample::select(Profile::ALL.to_vec()),
        charset in prop::sample::select(vec!["utf-8", "windows-1252", "shift_jis", "utf-16le"]),
    ) {
        let html = format!(
            "<a href=\"{a}\">x</a><img src=\"{a}\"><style>p{{background:url(\"{c}\")}}</style>",
            a = attribute(&r),
            c = r.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\a "),
        );
        let (bytes, _, _) = encoding_rs::Encoding::for_label(charset.as_bytes())
            .unwrap()
            .encode(&html);
        // encoding_rs encodes UTF-16 labels as UTF-8 (the Encoding Standard); write it by hand.
        let bytes: Vec<u8> = if charset == "utf-16le" {
            html.encode_utf16().flat_map(u16::to_le_bytes).collect()
        } else {
            bytes.into_owned()
        };
        let input = HtmlInput {
            name: "t.html",
            bytes: &bytes,
            charset: Some(charset.into()),
            layers: BaseLayers {
                retrieval_uri: Some("http://h/d/p.html".into()),
                ..BaseLayers::default()
            },
            ..HtmlInput::default()
        };
        let mut options = Options::default();
        options.rewrite.resolve = ResolveOptions::for_profile(profile);
        let Ok(out) = pipeline::rewrite(&input, &options) else { return Ok(()) };
        for link in &out.report.links {
            if let Some(resolved) = &link.resolved {
                prop_assert!(is_uri(resolved), "{profile:?} {charset}: reported {resolved:?}");
            }
        }
        // What was written: the links of the output, read in its encoding, at the places the
        // first pass rewrote.
        let again = HtmlInput { bytes: &out.bytes, ..input };
        let written = pipeline::links(&again, &options).unwrap();
        prop_assert_eq!(written.links.len(), out.report.links.len());
        for (before, after) in out.report.links.iter().zip(&written.links) {
            if before.rewritten {
                prop_assert!(is_uri(&after.original), "{profile:?} {charset}: wrote {:?}", after.original);
            }
        }
    }
}
