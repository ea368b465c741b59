//! `rewrite --extract DIR` names (issue 21, D1): any text as a WARC-Target-URI through
//! `archive::extract_path`. Every name is relative and stays under DIR: each component is
//! non-empty, not `.` or `..`, holds no `/`, `\`, NUL or other control character, and is at most
//! `EXTRACT_NAME_MAX` bytes; the same URI always gives the same name.
#![no_main]

use std::path::Component;

use libfuzzer_sys::fuzz_target;
use linkbase::archive::{extract_path, EXTRACT_NAME_MAX};

fuzz_target!(|data: &[u8]| {
    let Ok(uri) = std::str::from_utf8(data) else {
        return;
    };
    let Some(path) = extract_path(uri) else {
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
    assert_eq!(extract_path(uri), Some(path), "stable");
});
