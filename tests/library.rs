//! Library tests over the fixture trees and the html5lib suite (vendored in `tests/html5lib/`):
//! the streaming engine against the DOM engine, rewritten documents re-parsed to the same tree,
//! nesting bounds. (The golden outputs are `tests/goldens.rs`; the command-line tests are the
//! `linkbase-cli` package's, in `cli/tests/`.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod library {
    mod differential;
    mod door;
    mod nesting;
    mod rewinding;
    mod tree_safety;
    mod valid_uris;
}
