//! The baseline of issue 9's speed figure, as one process per page: what a Rust user would write
//! instead of linkbase. lol_html 3 rewrites every `href` and `src` through its mutation API, one
//! `url::Url::join` per value (no `<base>`, `srcset`, CSS or encoding rules), and the page goes to
//! stdout. The same function is the `lol_html-naive` group of `benches/pipeline.rs`.
//!
//! `cargo build --release --example lol_html_naive`, then
//! `target/release/examples/lol_html_naive URL FILE > out.html`; `BENCHMARKS.md` times it against
//! `linkbase rewrite --url URL FILE`.
#![allow(clippy::expect_used)]

use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: lol_html_naive URL FILE");
        std::process::exit(2);
    };
    let base = url::Url::parse(&url).expect("a URL");
    let bytes = std::fs::read(path).expect("a readable file");
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    let join = |attr: &'static str| {
        let base = &base;
        move |el: &mut lol_html::html_content::Element<'_, '_>| {
            if let Some(v) = el.get_attribute(attr) {
                if let Ok(u) = base.join(&v) {
                    el.set_attribute(attr, u.as_str())?;
                }
            }
            Ok(())
        }
    };
    let settings = lol_html::Settings::new()
        .append_element_content_handler(lol_html::element!("[href]", join("href")))
        .append_element_content_handler(lol_html::element!("[src]", join("src")));
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |c: &[u8]| out.extend_from_slice(c));
    rewriter.write(&bytes).expect("lol_html reads it");
    rewriter.end().expect("lol_html reads it");
    std::io::stdout().write_all(&out).expect("stdout");
}
