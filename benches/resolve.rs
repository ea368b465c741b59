//! Resolver throughput: how fast references are made absolute, against `url::Url::join`.
//!
//! Input: `benches/data/refs.txt`, the ~10,000 `href` and `src` values of 44 real pages (Python
//! 3.11 and cppreference documentation, from their Debian packages; see the file's header and
//! `benches/data/extract_refs.py`), each resolved against the public URL of the page it came
//! from, plus the RFC 2396 Appendix C examples against `http://a/b/c/d;p?q`. One iteration
//! resolves the whole set; throughput is in references.
//!
//! Every base is parsed once, outside the timed loop: a [`Resolver`] per page for linkbase, a
//! [`url::Url`] per page for `Url::join`. Results go through `black_box`.
//!
//! Run: `cargo bench --bench resolve -- --warm-up-time 1 --measurement-time 5`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use linkbase::{Profile, ResolveOptions, Resolver};

/// One page: its URL and the references found in it, in document order.
struct Section {
    base: String,
    refs: Vec<String>,
}

/// Reads `benches/data/refs.txt`: `## ` lines are comments, `## base: URL` opens a section,
/// every other line (an empty one too) is a reference.
fn corpus() -> Vec<Section> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/data/refs.txt");
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e} (regenerate with benches/data/extract_refs.py)"));
    let mut sections: Vec<Section> = Vec::new();
    for line in text.lines() {
        if let Some(base) = line.strip_prefix("## base: ") {
            sections.push(Section {
                base: base.to_owned(),
                refs: Vec::new(),
            });
        } else if !line.starts_with("## ") {
            sections
                .last_mut()
                .expect("a reference before the first '## base:' line")
                .refs
                .push(line.to_owned());
        }
    }
    sections
}

fn resolvers(sections: &[Section], profile: Profile) -> Vec<(Resolver, &[String])> {
    sections
        .iter()
        .map(|s| {
            let r = Resolver::new(&s.base, ResolveOptions::for_profile(profile)).unwrap();
            (r, s.refs.as_slice())
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let sections = corpus();
    let n: usize = sections.iter().map(|s| s.refs.len()).sum();
    let throughput = Throughput::Elements(n as u64);

    for (profile, group_name) in [
        (Profile::Rfc2396, "linkbase rfc2396"),
        (Profile::Rfc3986, "linkbase rfc3986"),
    ] {
        let pages = resolvers(&sections, profile);

        let mut group = c.benchmark_group(format!("{group_name} resolve_into (reused buffer)"));
        group.throughput(throughput.clone());
        group.bench_function(format!("{n} refs"), |b| {
            let mut out = String::new();
            b.iter(|| {
                for (resolver, refs) in &pages {
                    for r in *refs {
                        let same_document = resolver.resolve_into(black_box(r), &mut out);
                        black_box((same_document.is_ok(), out.as_str()));
                    }
                }
            });
        });
        group.finish();

        let mut group = c.benchmark_group(format!("{group_name} resolve (new String)"));
        group.throughput(throughput.clone());
        group.bench_function(format!("{n} refs"), |b| {
            b.iter(|| {
                for (resolver, refs) in &pages {
                    for r in *refs {
                        black_box(resolver.resolve(black_box(r)).ok());
                    }
                }
            });
        });
        group.finish();
    }

    let pages: Vec<(url::Url, &[String])> = sections
        .iter()
        .map(|s| (url::Url::parse(&s.base).unwrap(), s.refs.as_slice()))
        .collect();
    let mut group = c.benchmark_group("url::Url::join");
    group.throughput(throughput);
    group.bench_function(format!("{n} refs"), |b| {
        b.iter(|| {
            for (base, refs) in &pages {
                for r in *refs {
                    black_box(base.join(black_box(r)).ok());
                }
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
