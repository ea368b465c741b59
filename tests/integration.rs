//! Integration tests: the one test binary for everything that runs the CLI or the whole pipeline.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod integration {
    pub mod cli_resolve;
    pub mod util;
}
