//! `rewrite --extract DIR` names: any text as a WARC-Target-URI through
//! `archive::extract_path_in`, in every layout and for every kind of record (names
//! are percent-decoded first, so `%2E%2E`, `%2F` and `%00` must be caught after decoding).
//! Every name is relative and stays under DIR: each component is
//! non-empty, not `.` or `..`, holds no `/`, `\`, NUL or other control character, and is at most
//! `EXTRACT_NAME_MAX` bytes; the same URI always gives the same name.
#![no_main]

use std::path::Component;

use libfuzzer_sys::fuzz_target;
use linkbase::archive::{extract_path_in, EXTRACT_NAME_MAX};
use linkbase::layout::{Kind, Layout};

fuzz_target!(|data: &[u8]| {
    let Ok(uri) = std::str::from_utf8(data) else {
        return;
    };
    for layout in [Layout::Wget, Layout::Plain, Layout::Httrack] {
        for kind in [Kind::Html, Kind::Css, Kind::Other] {
            check(uri, layout, kind);
        }
    }
});

fn check(uri: &str, layout: Layout, kind: Kind) {
    let Some(path) = extract_path_in(uri, kind, layout) else {
        return;
    };
    assert!(path.is_relative(), "{uri:?} -> {path:?}");
    let mut count = 0;
    for component in path.components() {
        count += 1;
        let Component::Normal(name) = component else {
            panic!("{uri:?} -> {path:?}: component {component:?}");
        };
        let name = name.to_str().expect("names are UTF-8");
        assert!(!name.is_empty() && name != "." && name != "..", "{uri:?} -> {path:?}");
        assert!(name.len() <= EXTRACT_NAME_MAX, "{uri:?} -> {path:?}");
        assert!(
            !name.chars().any(|c| c == '/' || c == '\\' || c.is_control()),
            "{uri:?} -> {path:?}"
        );
    }
    // A host and a file name at least.
    assert!(count >= 2, "{uri:?} -> {path:?}");
    assert_eq!(extract_path_in(uri, kind, layout), Some(path), "stable");
}
