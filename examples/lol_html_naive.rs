//! The baseline of issue 9's speed figure, as one process per page: `benches/common/
//! lol_html_naive.rs` (lol_html 3 rewriting every `href` and `src`, one `url::Url::join` each) on
//! one page, written to stdout. The same function is the `lol_html-naive` group of
//! `benches/pipeline.rs`.
//!
//! `cargo build --release --example lol_html_naive`, then
//! `target/release/examples/lol_html_naive URL FILE > out.html`; `BENCHMARKS.md` times it against
//! `linkbase rewrite --url URL FILE`.
#![allow(clippy::expect_used)]

use std::io::Write;

#[path = "../benches/common/lol_html_naive.rs"]
mod naive;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: lol_html_naive URL FILE");
        std::process::exit(2);
    };
    let base = url::Url::parse(&url).expect("a URL");
    let bytes = std::fs::read(path).expect("a readable file");
    let out = naive::lol_html_naive(&bytes, &base).expect("lol_html reads it");
    std::io::stdout().write_all(&out).expect("stdout");
}
