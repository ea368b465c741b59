//! Integration tests: the one test binary for everything that runs the CLI or the whole pipeline.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod integration {
    pub mod cli_html;
    pub mod cli_resolve;
    mod differential;
    mod goldens;
    mod safety;
    pub mod sites;
    mod check_ci;
    mod mirror;
    mod tree_safety;
    pub mod mhtml;
    pub mod util;
    mod warc;
}
