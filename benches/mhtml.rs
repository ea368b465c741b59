//! MIME/MHTML throughput: `rewrite_message` and `links_message` on the two large real
//! samples, beside the plain HTML pipeline (`pipeline::rewrite` / `pipeline::links`) on the same
//! HTML parts' transfer-decoded bodies, in the same run.
//!
//! Samples (read in place, never copied): `../shared/corpus/mhtml/`
//! - `06-chrome-iframes-cid-css.mhtml`: 1,256,883 bytes, 125 parts, 62 HTML parts (QP);
//! - `09-newsletter-rfc2047-content-location.eml`: 1,697,916 bytes, one 7bit HTML part and 18
//!   base64 PNGs.
//!
//! `mime::parse` (the adapter alone) is measured too, to show where the message path's extra
//! time goes. Throughput is in bytes: of the whole message for the message functions and the
//! adapter, of the HTML bodies (their sum) for the pipeline, where one iteration runs every HTML
//! part once, each with its own charset and its absolute Content-Location as `--url` (the base
//! and document URL the message path gives it; parts without one get no base here,
//! `thismessage:/` there). When `../shared` is missing the bench says so and measures nothing.
//!
//! `mhtml/hostile` measures `links_message` on generated messages of 10,000 and 20,000 parts, each
//! linked from the root page (the throughput stays the same when the size doubles).
//!
//! Run: `cargo bench --bench mhtml -- --warm-up-time 2 --measurement-time 10`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use linkbase::input::mime::{self, PartKind};
use linkbase::message::{links_message, rewrite_message, MessageInput};
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::BaseLayers;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/mhtml");
const SAMPLES: [(&str, &str); 2] = [
    ("06", "06-chrome-iframes-cid-css.mhtml"),
    ("09", "09-newsletter-rfc2047-content-location.eml"),
];

/// One HTML part, as the plain pipeline gets it.
struct HtmlPart {
    body: Vec<u8>,
    charset: Option<String>,
    layers: BaseLayers,
}

fn html_parts(bytes: &[u8]) -> Vec<HtmlPart> {
    let tree = mime::parse(bytes).unwrap();
    tree.parts
        .iter()
        .filter(|p| p.kind == PartKind::Leaf && p.mime_type == "text/html")
        .map(|p| HtmlPart {
            body: p.decoded.clone().unwrap_or_default(),
            charset: p.charset.clone(),
            layers: BaseLayers {
                retrieval_uri: p
                    .content_location
                    .clone()
                    .filter(|cl| cl.contains(':') && !cl.starts_with("cid:")),
                ..BaseLayers::default()
            },
        })
        .collect()
}

/// The `parts N` message of `benches/hostile/mime.py`: a multipart/related of `n`
/// image parts and a root page linking to each by a relative URL.
fn many_parts(n: usize) -> Vec<u8> {
    let mut s = String::from(
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/html\r\nContent-Location: http://h/index.html\r\n\r\n",
    );
    for i in 0..n {
        s += &format!("<img src=\"i/{i}.png\">\r\n");
    }
    for i in 0..n {
        s += &format!(
            "--b\r\nContent-Type: image/png\r\nContent-Location: http://h/i/{i}.png\r\n\r\nPNG\r\n"
        );
    }
    s += "--b--\r\n";
    s.into_bytes()
}

/// Hostile messages: throughput in bytes must not fall as the message doubles.
fn hostile(c: &mut Criterion) {
    let options = Options::default();
    let mut group = c.benchmark_group("mhtml/hostile");
    group.sample_size(10);
    for n in [10_000, 20_000] {
        let bytes = many_parts(n);
        let input = MessageInput {
            name: "parts.mht",
            bytes: &bytes,
            layers: BaseLayers::default(),
        };
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("links_message ({n} parts)"), |b| {
            b.iter(|| black_box(links_message(black_box(&input), &options).unwrap()))
        });
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    hostile(c);
    if !Path::new(CORPUS).is_dir() {
        eprintln!("{CORPUS} is missing: the MHTML benchmarks are skipped");
        return;
    }
    let options = Options::default();
    for (id, file) in SAMPLES {
        let path = Path::new(CORPUS).join(file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let parts = html_parts(&bytes);
        let html_bytes: usize = parts.iter().map(|p| p.body.len()).sum();
        eprintln!(
            "{file}: {} bytes, {} HTML parts, {html_bytes} bytes of decoded HTML",
            bytes.len(),
            parts.len()
        );
        let input = MessageInput {
            name: file,
            bytes: &bytes,
            layers: BaseLayers::default(),
        };

        let mut group = c.benchmark_group(format!("mhtml/{id}"));
        group.sample_size(20);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("rewrite_message", |b| {
            b.iter(|| black_box(rewrite_message(black_box(&input), &options).unwrap()))
        });
        group.bench_function("links_message", |b| {
            b.iter(|| black_box(links_message(black_box(&input), &options).unwrap()))
        });
        // The MIME adapter alone: where the message path's extra time goes.
        group.bench_function("mime::parse", |b| {
            b.iter(|| black_box(mime::parse(black_box(&bytes)).unwrap()))
        });
        group.throughput(Throughput::Bytes(html_bytes as u64));
        group.bench_function("pipeline::rewrite (HTML parts)", |b| {
            b.iter(|| {
                for p in &parts {
                    let html = HtmlInput {
                        name: file,
                        bytes: &p.body,
                        layers: p.layers.clone(),
                        charset: p.charset.clone(),
                        ..HtmlInput::default()
                    };
                    black_box(pipeline::rewrite(black_box(&html), &options).unwrap());
                }
            })
        });
        group.bench_function("pipeline::links (HTML parts)", |b| {
            b.iter(|| {
                for p in &parts {
                    let html = HtmlInput {
                        name: file,
                        bytes: &p.body,
                        layers: p.layers.clone(),
                        charset: p.charset.clone(),
                        ..HtmlInput::default()
                    };
                    black_box(pipeline::links(black_box(&html), &options).unwrap());
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
