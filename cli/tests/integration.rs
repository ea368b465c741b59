//! Command-line tests: the one test binary for everything that runs `linkbase`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

/// The expected-failure ledger, one format for every suite (shared with the library's tests).
#[path = "../../tests/common/ledger.rs"]
mod ledger;
/// Data in `../shared`: a notice when missing, a failure under CI.
#[path = "../../tests/common/shared.rs"]
mod shared;

mod integration {
    pub mod cli_html;
    pub mod cli_resolve;
    mod safety;
    pub mod sites;
    mod check_ci;
    pub mod check_local;
    mod check_tree;
    mod positions;
    mod config;
    mod online;
    mod online_trust;
    mod trust;
    mod mirror;
    pub mod mhtml;
    pub mod util;
    mod warc;
    mod crawl;
    mod warc_salvage;
    mod formats;
    mod mbox_rewrite;
    mod arc;
    mod archives;
    mod mime_malformed;
    mod mhtml_other;
    mod injection;
    mod feedback;
    mod help;
    mod readme;
    mod mail_page;
    mod cli_doc;
    mod byte_faithful;
    mod toy;
}
