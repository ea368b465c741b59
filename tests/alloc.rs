//! The resolver's allocation promise, counted: `resolve()` allocates exactly once (its result
//! string) and `resolve_into()` with a warm buffer not at all, over the benchmark corpus
//! (`benches/data/refs.txt`) and the RFC 2396 Appendix C examples, for rfc2396 and rfc3986;
//! and the memory promise of `links_each`, the live heap's peak measured while it runs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// Needs Cargo.toml's `unsafe_code` at "deny", not "forbid": the library keeps its own
// `#![forbid(unsafe_code)]`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use linkbase::{Profile, ResolveOptions, Resolver};

thread_local! {
    /// Allocations (alloc, alloc_zeroed, realloc) made by this thread. Per thread, so tests
    /// running in parallel do not see each other's.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    /// Bytes this thread has allocated and not freed (frees of another thread's memory make
    /// it low, never wrong for a measurement on one thread), and the highest it reached.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

/// The system allocator, counting.
struct Counting;

fn bump(grown: i64) {
    // `try_with`: the thread-local may be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    live(grown);
}

fn live(change: i64) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + change);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

fn size(layout: Layout) -> i64 {
    i64::try_from(layout.size()).unwrap_or(i64::MAX)
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counter is a const-initialised thread-local without a destructor,
// so touching it never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump(size(layout));
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump(size(layout));
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump(i64::try_from(new_size).unwrap_or(i64::MAX) - size(layout));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(-size(layout));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

const RFC_BASE: &str = "http://a/b/c/d;p?q";
const RFC_REFS: [&str; 42] = [
    "g:h",
    "g",
    "./g",
    "g/",
    "/g",
    "//g",
    "?y",
    "g?y",
    "#s",
    "g#s",
    "g?y#s",
    ";x",
    "g;x",
    "g;x?y#s",
    ".",
    "./",
    "..",
    "../",
    "../g",
    "../..",
    "../../",
    "../../g",
    "",
    "../../../g",
    "../../../../g",
    "/./g",
    "/../g",
    "g.",
    ".g",
    "g..",
    "..g",
    "./../g",
    "./g/.",
    "g/./h",
    "g/../h",
    "g;x=1/./y",
    "g;x=1/../y",
    "g?y/./x",
    "g?y/../x",
    "g#s/./x",
    "g#s/../x",
    "http:g",
];

/// (base, references) pairs: the RFC examples, then the corpus's sections.
fn cases() -> Vec<(String, Vec<String>)> {
    let mut cases = vec![(
        RFC_BASE.to_owned(),
        RFC_REFS.iter().map(|r| (*r).to_owned()).collect(),
    )];
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/data/refs.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for line in text.lines() {
        if let Some(base) = line.strip_prefix("## base: ") {
            cases.push((base.to_owned(), Vec::new()));
        } else if !line.starts_with("## ") {
            cases.last_mut().unwrap().1.push(line.to_owned());
        }
    }
    cases
}

fn check(profile: Profile) {
    let cases = cases();
    let resolvers: Vec<(Resolver, &[String])> = cases
        .iter()
        .map(|(base, refs)| {
            let options = ResolveOptions::for_profile(profile);
            (Resolver::new(base, options).unwrap(), refs.as_slice())
        })
        .collect();
    let calls: usize = resolvers.iter().map(|(_, refs)| refs.len()).sum();
    assert!(
        calls > 9_000,
        "{calls} references: is benches/data/refs.txt complete?"
    );

    // resolve(): one allocation per call, the result string.
    for (resolver, refs) in &resolvers {
        for r in *refs {
            let before = allocations();
            let resolved = resolver.resolve(r);
            let made = allocations() - before;
            assert!(resolved.is_ok(), "{profile} {r:?}: {resolved:?}");
            assert_eq!(made, 1, "{profile}: resolve({r:?}) allocated {made} times");
        }
    }

    // resolve_into(): a first pass grows the buffer, the second allocates nothing.
    let mut out = String::new();
    for (resolver, refs) in &resolvers {
        for r in *refs {
            resolver.resolve_into(r, &mut out).unwrap();
        }
    }
    let before = allocations();
    for (resolver, refs) in &resolvers {
        for r in *refs {
            resolver.resolve_into(r, &mut out).unwrap();
        }
    }
    let made = allocations() - before;
    assert_eq!(
        made, 0,
        "{profile}: {calls} resolve_into calls with a warm buffer allocated {made} times"
    );
}

#[test]
fn rfc2396_allocates_only_the_result() {
    check(Profile::Rfc2396);
}

#[test]
fn rfc3986_allocates_only_the_result() {
    check(Profile::Rfc3986);
}

/// The most heap `f` holds at once beyond what was live when it began, in bytes.
fn peak_during(f: impl FnOnce()) -> i64 {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    f();
    PEAK.with(Cell::get) - start
}

/// `links_each` hands each link on as found: what it holds does not grow with the number of
/// links (`pipeline::links`, which keeps them, holds far more: the comparison shows the
/// measurement sees the records).
#[test]
fn links_each_holds_no_record_it_has_handed_on() {
    use linkbase::pipeline::{self, HtmlInput, Options};
    let page = |links: usize| {
        let mut doc = String::from("<!doctype html><title>t</title><body>");
        for i in 0..links {
            doc.push_str(&format!(
                "<a href=\"../section/chapter/p{i}.html\">{i}</a>\n"
            ));
        }
        doc.into_bytes()
    };
    let measure = |bytes: &[u8], each: bool| {
        let input = HtmlInput {
            name: "t.html",
            bytes,
            layers: linkbase::BaseLayers {
                retrieval_uri: Some("http://h/d/t.html".into()),
                ..Default::default()
            },
            ..HtmlInput::default()
        };
        let options = Options::default();
        let mut seen = 0usize;
        let peak = peak_during(|| {
            if each {
                pipeline::links_each(&input, &options, &mut |_| seen += 1).unwrap();
            } else {
                seen = pipeline::links(&input, &options).unwrap().links.len();
            }
        });
        (peak, seen)
    };
    let small = page(25_000);
    let large = page(100_000);
    assert!(small.len() > 1 << 20, "past the kept-links limit (1 MiB)");
    let (each_small, n_small) = measure(&small, true);
    let (each_large, n_large) = measure(&large, true);
    let (kept_large, n_kept) = measure(&large, false);
    assert_eq!((n_small, n_large, n_kept), (25_000, 100_000, 100_000));
    // Four times the links: the same memory, give or take the reader's buffers.
    assert!(
        each_large < each_small + (1 << 20),
        "links_each held {each_small} bytes for 25,000 links, {each_large} for 100,000"
    );
    assert!(
        kept_large > 10 * each_large,
        "links kept {kept_large} bytes, links_each {each_large}"
    );
}
