//! The streaming engine against its yardsticks, in one group (`engine`): lol_html 3's naive
//! rewrite (what a Rust user would write instead: every `href` and `src` joined with the page's
//! URL through lol_html's mutation API, output to a buffer; `benches/common/lol_html_naive.rs`,
//! the same crate version linkbase reads with) and a floor (the bytes read, and every `<` found
//! with memchr: what any reader of the markup pays).
//!
//! Two inputs:
//!
//! - `largest`: the 40 largest pages of Debian's `python3.11-doc` (about 18 MB), each in memory:
//!   `pipeline::rewrite_to` into a buffer, as `linkbase rewrite` writes a page; and the same
//!   with lol_html reading beside the scanner (`linkbase-with-lol_html`: what its tokenizer
//!   costs where the scanner does not need it);
//! - `concat200`: one page of about 200 MB, cppreference pages concatenated (written once to
//!   `target/bench-data/concat200.html`, cut after a `</html>`), streamed from its file:
//!   `pipeline::rewrite_path_rewinding` into output that counts the bytes (memory stays flat:
//!   BENCHMARKS.md gives the peak RSS of the command line on it); the naive rewrite reads the file
//!   whole and writes into a buffer; the floor reads it 64 KiB at a time.
//!
//! `bash benches/corpus.sh` installs the corpus; without it the bench says so and measures
//! nothing. Run: `cargo bench --bench engine` (a few minutes; `-- largest` for one input).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/lol_html_naive.rs"]
mod naive;

use std::hint::black_box;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use linkbase::pipeline::{self, HtmlInput, Options, PathInput};
use linkbase::BaseLayers;

const PYTHON_ROOT: &str = "/usr/share/doc/python3.11/html/";
const PYTHON_URL: &str = "https://docs.python.org/3.11/";
const CPPREF_ROOT: &str = "/usr/share/cppreference/doc/html/en/";
const CONCAT_URL: &str = "https://en.cppreference.com/w/concat200.html";
const CONCAT_BYTES: u64 = 200_000_000;

/// Every regular `*.html` file under `root`, sorted.
fn html_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = std::fs::symlink_metadata(&path).map(|m| m.file_type()) else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "html") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The 40 largest python-doc pages: (path, URL, bytes).
fn largest() -> Vec<(String, String, Vec<u8>)> {
    let mut pages: Vec<_> = html_files(Path::new(PYTHON_ROOT))
        .into_iter()
        .map(|p| (std::fs::metadata(&p).map_or(0, |m| m.len()), p))
        .collect();
    pages.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    pages
        .into_iter()
        .take(40)
        .map(|(_, p)| {
            let rel = p
                .strip_prefix(PYTHON_ROOT)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (
                p.to_string_lossy().into_owned(),
                format!("{PYTHON_URL}{rel}"),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// The 200 MB page, written once: cppreference's pages in path order, concatenated until the
/// size is reached, cut after the last `</html>`.
fn concat200() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let path = dir.join("concat200.html");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= CONCAT_BYTES - (1 << 20)) {
        return path;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let mut data = Vec::with_capacity(CONCAT_BYTES as usize + (1 << 20));
    'fill: loop {
        for page in html_files(Path::new(CPPREF_ROOT)) {
            data.extend_from_slice(&std::fs::read(page).unwrap());
            if data.len() as u64 >= CONCAT_BYTES {
                break 'fill;
            }
        }
    }
    let end = data
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</html>"))
        .map_or(data.len(), |i| i + 7);
    data.truncate(end);
    std::fs::write(&path, &data).unwrap();
    path
}

/// The floor: every `<` of the bytes found.
fn floor(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'<', bytes).count()
}

/// Output that counts what is written and can be taken back.
#[derive(Default)]
struct Counted(u64);

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl pipeline::Rewind for Counted {
    fn rewind(&mut self) -> std::io::Result<()> {
        self.0 = 0;
        Ok(())
    }
}

/// Each page rewritten into a buffer, as `linkbase rewrite` writes a page.
fn rewrite_all(pages: &[(String, String, Vec<u8>)], options: &Options) {
    for (name, url, bytes) in pages {
        let input = HtmlInput {
            name,
            bytes,
            layers: BaseLayers {
                retrieval_uri: Some(url.clone()),
                ..BaseLayers::default()
            },
            ..HtmlInput::default()
        };
        let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
        pipeline::rewrite_to(&input, options, &mut out).unwrap();
        black_box(out);
    }
}

fn bench(c: &mut Criterion) {
    if !Path::new(PYTHON_ROOT).is_dir() || !Path::new(CPPREF_ROOT).is_dir() {
        eprintln!("engine bench skipped: the corpus is missing (run `bash benches/corpus.sh`)");
        return;
    }
    let options = Options::default();
    let mut g = c.benchmark_group("engine");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));

    let pages = largest();
    let total: u64 = pages.iter().map(|(_, _, b)| b.len() as u64).sum();
    let urls: Vec<url::Url> = pages
        .iter()
        .map(|(_, u, _)| url::Url::parse(u).unwrap())
        .collect();
    g.throughput(Throughput::Bytes(total));
    g.bench_function("largest/linkbase", |b| {
        b.iter(|| rewrite_all(&pages, &options));
    });
    // The same, lol_html reading every page beside the scanner (as before the scanner read
    // alone): what lol_html's tokenizer costs where the scanner does not need it.
    g.bench_function("largest/linkbase-with-lol_html", |b| {
        b.iter(|| linkbase::with_lol_html(|| rewrite_all(&pages, &options)));
    });
    g.bench_function("largest/lol_html-naive", |b| {
        b.iter(|| {
            for ((_, _, bytes), url) in pages.iter().zip(&urls) {
                black_box(naive::lol_html_naive(bytes, url).unwrap());
            }
        });
    });
    g.bench_function("largest/floor", |b| {
        b.iter(|| {
            for (_, _, bytes) in &pages {
                black_box(floor(black_box(bytes)));
            }
        });
    });

    let path = concat200();
    let size = std::fs::metadata(&path).unwrap().len();
    let name = path.to_string_lossy().into_owned();
    let base = url::Url::parse(CONCAT_URL).unwrap();
    g.throughput(Throughput::Bytes(size));
    g.bench_function("concat200/linkbase", |b| {
        b.iter(|| {
            let input = PathInput {
                name: &name,
                path: &path,
                layers: BaseLayers {
                    retrieval_uri: Some(CONCAT_URL.to_owned()),
                    ..BaseLayers::default()
                },
                charset: None,
                diagnostics: Vec::new(),
            };
            let mut out = Counted::default();
            pipeline::rewrite_path_rewinding(&input, &options, &mut out).unwrap();
            black_box(out.0);
        });
    });
    g.bench_function("concat200/lol_html-naive", |b| {
        b.iter(|| {
            let bytes = std::fs::read(&path).unwrap();
            black_box(naive::lol_html_naive(&bytes, &base).unwrap());
        });
    });
    g.bench_function("concat200/floor", |b| {
        b.iter(|| {
            let mut file = std::fs::File::open(&path).unwrap();
            let mut buf = vec![0; 64 << 10];
            let mut found = 0;
            loop {
                let n = file.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                found += floor(&buf[..n]);
            }
            black_box(found);
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
