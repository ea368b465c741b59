//! HTML pipeline throughput on a fixed subset of the real-page corpus: 20 pages of
//! Debian's `python3.11-doc` and `cppreference-doc-en-html` (1.88 MB), listed in [`PAGES`].
//! `bash benches/corpus.sh` installs the packages; without them the bench prints a message and
//! measures nothing.
//!
//! One iteration runs a mode over all 20 pages; throughput is in input bytes. Groups:
//!
//! - `html5ever`: decode → `html5ever::parse_document` into a bare `RcDom` → html5ever's
//!   serializer → encode (html5ever alone, without our façade);
//! - `floor`: decode → `Document::parse` → `to_html` → encode (no base, no plan, no edits);
//! - `lol_html-naive`: the baseline a Rust user would write instead: lol_html 3
//!   rewriting `href` and `src` through its mutation API with one `Url::join` per value;
//! - `links`, `rewrite`: `pipeline::links` / `pipeline::rewrite` (the streaming engine);
//! - `links-dom`, `rewrite-dom`: the same with `EngineChoice::Dom` (the html5ever tree).
//!
//! Each page's retrieval URI is its public URL (`https://docs.python.org/3.11/…`,
//! `https://en.cppreference.com/w/…`), so relative links are resolved and rewritten.
//!
//! Run: `cargo bench --bench pipeline` (under a minute). The whole corpus, with memory and
//! fidelity: `examples/corpus_stats.rs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/lol_html_naive.rs"]
mod naive;
use naive::lol_html_naive;

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput,
};
use linkbase::decode;
use linkbase::dom::Document;
use linkbase::pipeline::{self, EngineChoice, HtmlInput, Options};
use linkbase::BaseLayers;

const PYTHON_ROOT: &str = "/usr/share/doc/python3.11/html/";
const PYTHON_URL: &str = "https://docs.python.org/3.11/";
const CPPREF_ROOT: &str = "/usr/share/cppreference/doc/html/en/";
const CPPREF_URL: &str = "https://en.cppreference.com/w/";

/// (root, path under it): 10 Python pages (prose, API reference, an index), 10 cppreference
/// pages (tables, navigation boxes, code).
const PAGES: [(&str, &str); 20] = [
    (PYTHON_ROOT, "index.html"),
    (PYTHON_ROOT, "glossary.html"),
    (PYTHON_ROOT, "genindex-A.html"),
    (PYTHON_ROOT, "tutorial/introduction.html"),
    (PYTHON_ROOT, "library/os.path.html"),
    (PYTHON_ROOT, "library/re.html"),
    (PYTHON_ROOT, "library/pathlib.html"),
    (PYTHON_ROOT, "library/functions.html"),
    (PYTHON_ROOT, "library/json.html"),
    (PYTHON_ROOT, "c-api/list.html"),
    (CPPREF_ROOT, "cpp/container/vector.html"),
    (CPPREF_ROOT, "cpp/algorithm.html"),
    (CPPREF_ROOT, "cpp/header.html"),
    (CPPREF_ROOT, "cpp/string/basic_string.html"),
    (CPPREF_ROOT, "cpp/language/templates.html"),
    (CPPREF_ROOT, "c/io/fprintf.html"),
    (CPPREF_ROOT, "cpp/thread/mutex.html"),
    (CPPREF_ROOT, "cpp/utility/variant.html"),
    (CPPREF_ROOT, "cpp/atomic/memory_order.html"),
    (CPPREF_ROOT, "cpp/numeric/valarray/operator_arith3.html"),
];

struct Page {
    name: String,
    url: String,
    bytes: Vec<u8>,
}

/// The pages, or `None` (with a message) when the corpus is not installed.
fn pages() -> Option<Vec<Page>> {
    let mut out = Vec::new();
    for (root, path) in PAGES {
        let name = format!("{root}{path}");
        let Ok(bytes) = std::fs::read(&name) else {
            eprintln!(
                "pipeline bench skipped: {name} is missing (run `bash benches/corpus.sh` to install the corpus)"
            );
            return None;
        };
        let url = if root == PYTHON_ROOT {
            format!("{PYTHON_URL}{path}")
        } else {
            format!("{CPPREF_URL}{}", path.strip_suffix(".html").unwrap_or(path))
        };
        out.push(Page { name, url, bytes });
    }
    Some(out)
}

fn input<'a>(page: &'a Page) -> HtmlInput<'a> {
    HtmlInput {
        name: &page.name,
        bytes: &page.bytes,
        layers: BaseLayers {
            retrieval_uri: Some(page.url.clone()),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn html5ever_round_trip(bytes: &[u8]) -> Vec<u8> {
    use html5ever::serialize::{SerializeOpts, TraversalScope};
    use html5ever::tendril::TendrilSink;
    use markup5ever_rcdom::{RcDom, SerializableHandle};

    let decoded = decode::decode(bytes, None).unwrap();
    let dom =
        html5ever::parse_document(RcDom::default(), Default::default()).one(decoded.text.as_str());
    let mut out = Vec::with_capacity(decoded.text.len() + decoded.text.len() / 8);
    let handle: SerializableHandle = dom.document.clone().into();
    html5ever::serialize(
        &mut out,
        &handle,
        SerializeOpts {
            traversal_scope: TraversalScope::ChildrenOnly(None),
            ..Default::default()
        },
    )
    .unwrap();
    decode::encode(
        &String::from_utf8(out).unwrap(),
        decoded.encoding,
        decoded.bom,
    )
}

fn floor(bytes: &[u8]) -> Vec<u8> {
    let decoded = decode::decode(bytes, None).unwrap();
    let doc = Document::parse(&decoded.text).unwrap();
    decode::encode(&doc.to_html(), decoded.encoding, decoded.bom)
}

/// A group measured in input bytes, sized so that the four groups take under a minute.
fn group_of<'c>(c: &'c mut Criterion, name: &str, total: u64) -> BenchmarkGroup<'c, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(total))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g
}

fn bench(c: &mut Criterion) {
    let Some(pages) = pages() else {
        return;
    };
    let total: u64 = pages.iter().map(|p| p.bytes.len() as u64).sum();
    let options = Options::default();
    let label = format!("{} pages, {total} bytes", pages.len());

    let mut g = group_of(c, "html5ever", total);
    g.bench_function(&label, |b| {
        b.iter(|| {
            for p in &pages {
                black_box(html5ever_round_trip(black_box(&p.bytes)));
            }
        });
    });
    g.finish();

    let mut g = group_of(c, "floor", total);
    g.bench_function(&label, |b| {
        b.iter(|| {
            for p in &pages {
                black_box(floor(black_box(&p.bytes)));
            }
        });
    });
    g.finish();

    let mut g = group_of(c, "lol_html-naive", total);
    let urls: Vec<url::Url> = pages
        .iter()
        .map(|p| url::Url::parse(&p.url).unwrap())
        .collect();
    g.bench_function(&label, |b| {
        b.iter(|| {
            for (p, u) in pages.iter().zip(&urls) {
                black_box(lol_html_naive(black_box(&p.bytes), u).unwrap());
            }
        });
    });
    g.finish();

    let dom = Options {
        engine: EngineChoice::Dom,
        ..Options::default()
    };
    for (name, options) in [("links", &options), ("links-dom", &dom)] {
        let mut g = group_of(c, name, total);
        g.bench_function(&label, |b| {
            b.iter(|| {
                for p in &pages {
                    black_box(pipeline::links(black_box(&input(p)), options).unwrap());
                }
            });
        });
        g.finish();
    }
    for (name, options) in [("rewrite", &options), ("rewrite-dom", &dom)] {
        let mut g = group_of(c, name, total);
        g.bench_function(&label, |b| {
            b.iter(|| {
                for p in &pages {
                    black_box(pipeline::rewrite(black_box(&input(p)), options).unwrap());
                }
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
