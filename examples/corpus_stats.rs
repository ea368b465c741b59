//! Throughput, memory and fidelity of the HTML pipeline over a real-page corpus (issue 3).
//!
//! ```text
//! bash benches/corpus.sh > /tmp/corpus.txt
//! cargo run --release --example corpus_stats -- /tmp/corpus.txt
//! ```
//!
//! The argument is a file listing one HTML path per line (`-` reads the list from stdin). Every
//! file is read into memory first; then, single-threaded, in this one process:
//!
//! 1. **Throughput** (`--passes N`, default 3). Each pass takes every file once and runs each
//!    mode on it, one after the other, in an order that rotates from file to file, so the modes
//!    share the machine's load evenly. Per mode and pass: total time and MB/s (10^6 bytes of
//!    input per second). The modes:
//!    - `html5ever`: `decode` → `html5ever::parse_document` into a bare `RcDom` (`.one(text)`) →
//!      `html5ever::serialize` of rcdom's `SerializableHandle` → `encode`: html5ever alone.
//!    - `floor`: `decode` → `Document::parse` → `to_html` → `encode`: our façade, no rewriting.
//!    - `links`: `pipeline::links` (decode, parse, base, plan, report; no output document).
//!    - `rewrite`: `pipeline::rewrite` (all of the above, then apply, serialize, encode).
//!
//!    Results are dropped inside the timed region (freeing the tree is part of the cost).
//! 2. **Memory**. A counting global allocator records, for each call, the peak of heap bytes
//!    allocated during the call beyond what was live before it (the input bytes are the
//!    caller's, so they are not counted); reported as the largest peak and the largest
//!    peak ÷ input size. The process's own peak RSS (`VmHWM`) is printed too, but it includes
//!    the whole corpus held in memory; for RSS per mode, run with `--stream --modes M` under
//!    `/usr/bin/time -v`.
//! 3. **Stages** (`--stages`): wall time of each pipeline stage of `rewrite`, called one by one
//!    through the public API, and the heap each stage holds on the largest input.
//! 4. **Fidelity** (skipped with `--no-fidelity`): how much of the input survives, byte for
//!    byte, in the `floor` output and in the `rewrite` output. For one file,
//!
//!    ```text
//!    fidelity = (bytes of the input in the longest common subsequence of input and output) / input bytes
//!    ```
//!
//!    computed as the total length of the matching blocks of a diff (the `similar` crate):
//!    first over lines (patience: unique lines as anchors, Myers between them), then a Myers
//!    diff over the bytes of every changed run of lines (runs separated by less than 256 equal
//!    bytes are diffed together). Runs longer than 256 bytes are diffed in overlapping windows
//!    that follow the alignment (see `byte_diff`); on 100 sample files this gives the same
//!    figure as one Myers diff per run. Equal lines count whole. This is a lower bound of the
//!    true byte LCS (the line pass can only hide matches, never invent them). A file whose diff
//!    passes its deadline (`--deadline-ms`, default 5000) keeps coarser matches there; such
//!    files are counted (none on the Debian corpus). Reported: the bytes-weighted aggregate over
//!    the corpus, the median and 10th percentile per file, the share of byte-identical files,
//!    the share of output bytes copied from the input, and where the lost bytes go (a heuristic
//!    classification of every changed run, and the most frequent exact changes).
//!
//! Other options: `--sample N` (N files evenly spread over the list), `--modes a,b` (a subset
//! of the modes), `--stream` (read each file when it is used instead of all up front),
//! `--dump DIR` (write the floor and rewrite output of each file as DIR/NNNN.{floor,rewrite}.html
//! next to DIR/NNNN.in.html, for reading diffs by hand).
//!
//! Each file's URL (the retrieval URI, so the base) is its public address:
//! `/usr/share/doc/python3.11/html/X` → `https://docs.python.org/3.11/X`,
//! `/usr/share/cppreference/doc/html/en/X.html` → `https://en.cppreference.com/w/X`, anything
//! else → `file://` + its path.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// The counting allocator below is the one unsafe item: `GlobalAlloc` is an unsafe trait.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use linkbase::decode;
use linkbase::dom::Document;
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::BaseLayers;
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};

// --- allocation counting ------------------------------------------------------------------------

/// The system allocator, counting live bytes and their high-water mark.
///
/// The program is single-threaded, so the counters are updated with a plain load and store
/// (no read-modify-write): that keeps the counting cost to two `mov`s per call, the same in every
/// mode, instead of a locked instruction.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let live = LIVE.load(Relaxed) + n;
    LIVE.store(live, Relaxed);
    if live > PEAK.load(Relaxed) {
        PEAK.store(live, Relaxed);
    }
}

fn shrink(n: usize) {
    LIVE.store(LIVE.load(Relaxed).saturating_sub(n), Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grow(new_size - layout.size());
            } else {
                shrink(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its time and the peak of heap bytes it added to what was live before.
fn measured<T>(f: impl FnOnce() -> T) -> (Duration, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let start = Instant::now();
    let out = f();
    drop(std::hint::black_box(out));
    let elapsed = start.elapsed();
    (elapsed, PEAK.load(Relaxed).saturating_sub(before))
}

/// `VmHWM` of /proc/self/status, in bytes.
fn vm_hwm() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

// --- the corpus -----------------------------------------------------------------------------------

struct Page {
    path: PathBuf,
    url: String,
    /// Empty under `--stream` (read when used).
    bytes: Vec<u8>,
    len: usize,
}

impl Page {
    fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.bytes.len() == self.len {
            std::borrow::Cow::Borrowed(&self.bytes)
        } else {
            std::borrow::Cow::Owned(std::fs::read(&self.path).unwrap())
        }
    }
}

/// The public URL of a corpus file (see the module documentation).
fn url_for(path: &Path) -> String {
    let p = path.to_string_lossy();
    if let Some(rest) = p.strip_prefix("/usr/share/doc/python3.11/html/") {
        format!("https://docs.python.org/3.11/{rest}")
    } else if let Some(rest) = p.strip_prefix("/usr/share/cppreference/doc/html/en/") {
        format!(
            "https://en.cppreference.com/w/{}",
            rest.strip_suffix(".html").unwrap_or(rest)
        )
    } else {
        format!("file://{p}")
    }
}

// --- the modes ------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Html5ever,
    Floor,
    Links,
    Rewrite,
}

impl Mode {
    const ALL: [Mode; 4] = [Mode::Html5ever, Mode::Floor, Mode::Links, Mode::Rewrite];

    fn name(self) -> &'static str {
        match self {
            Mode::Html5ever => "html5ever",
            Mode::Floor => "floor",
            Mode::Links => "links",
            Mode::Rewrite => "rewrite",
        }
    }

    /// Runs the mode on one document; the result is dropped by the caller.
    fn run(self, name: &str, url: &str, bytes: &[u8]) -> usize {
        match self {
            Mode::Html5ever => html5ever_round_trip(bytes).len(),
            Mode::Floor => floor(bytes).len(),
            Mode::Links => pipeline::links(&input(name, url, bytes), &Options::default())
                .map(|r| r.links.len())
                .unwrap_or(0),
            Mode::Rewrite => rewrite(name, url, bytes).len(),
        }
    }
}

fn input<'a>(name: &'a str, url: &str, bytes: &'a [u8]) -> HtmlInput<'a> {
    HtmlInput {
        name,
        bytes,
        layers: BaseLayers {
            retrieval_uri: Some(url.to_owned()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// decode → html5ever into a bare RcDom → html5ever's serializer → encode.
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
    let text = String::from_utf8(out).unwrap();
    decode::encode(&text, decoded.encoding, decoded.bom)
}

/// decode → `Document::parse` → `to_html` → encode: the pipeline without base, plan or apply.
fn floor(bytes: &[u8]) -> Vec<u8> {
    let decoded = decode::decode(bytes, None).unwrap();
    let doc = Document::parse(&decoded.text).unwrap();
    decode::encode(&doc.to_html(), decoded.encoding, decoded.bom)
}

fn rewrite(name: &str, url: &str, bytes: &[u8]) -> Vec<u8> {
    pipeline::rewrite(&input(name, url, bytes), &Options::default())
        .map(|r| r.bytes)
        .unwrap_or_default()
}

// --- fidelity -------------------------------------------------------------------------------------

/// Why a changed run of bytes changed (a heuristic on its old and new bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Cause {
    Doctype,
    Quoting,
    SelfClosing,
    CharRef,
    Whitespace,
    Tags,
    Case,
    Other,
}

impl Cause {
    fn label(self) -> &'static str {
        match self {
            Cause::Doctype => "doctype",
            Cause::Quoting => "attribute quotes (added, or ' → \")",
            Cause::SelfClosing => "self-closing ` /` dropped",
            Cause::CharRef => "character references (&…; written differently)",
            Cause::Whitespace => "whitespace (inside tags, moved text)",
            Cause::Tags => "tags implied, moved or dropped",
            Cause::Case => "letter case (names)",
            Cause::Other => "other",
        }
    }
}

fn classify(old: &[u8], new: &[u8], old_at: usize, input: &[u8], doctype_end: usize) -> Cause {
    let only = |s: &[u8], f: fn(u8) -> bool| s.iter().all(|&b| f(b));
    let quote = |b: u8| b == b'"' || b == b'\'';
    if old_at < doctype_end {
        return Cause::Doctype;
    }
    if only(old, quote) && only(new, quote) {
        return Cause::Quoting;
    }
    let next = input.get(old_at + old.len()).copied();
    let trimmed: Vec<u8> = old
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    if new.is_empty() && trimmed == b"/" && matches!(next, Some(b'>')) {
        return Cause::SelfClosing;
    }
    if old.contains(&b'&') || new.contains(&b'&') || old.contains(&b';') {
        return Cause::CharRef;
    }
    if only(old, |b| b.is_ascii_whitespace()) && only(new, |b| b.is_ascii_whitespace()) {
        return Cause::Whitespace;
    }
    if old.contains(&b'<') || new.contains(&b'<') || old.contains(&b'>') || new.contains(&b'>') {
        return Cause::Tags;
    }
    if !old.is_empty() && old.eq_ignore_ascii_case(new) {
        return Cause::Case;
    }
    // Myers may hand a quote over with its neighbours (`="` for `=`): quotes added or changed
    // beside whitespace only.
    let strip = |s: &[u8]| -> Vec<u8> { s.iter().copied().filter(|&b| !quote(b)).collect() };
    if (old.iter().any(|&b| quote(b)) || new.iter().any(|&b| quote(b))) && strip(old) == strip(new)
    {
        return Cause::Quoting;
    }
    Cause::Other
}

/// Where the input's doctype ends (0 when it has none at the start).
fn doctype_end(input: &[u8]) -> usize {
    let start = input
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let head = &input[start..];
    if head.len() >= 9 && head[..9].eq_ignore_ascii_case(b"<!doctype") {
        head.iter()
            .position(|&b| b == b'>')
            .map_or(0, |i| start + i + 1)
    } else {
        0
    }
}

#[derive(Default)]
struct FidelityTotals {
    input_bytes: u64,
    matched_bytes: u64,
    output_bytes: u64,
    identical_files: usize,
    deadline_files: usize,
    line_deadline_files: usize,
    per_file: Vec<f64>,
    lost_by_cause: HashMap<Cause, u64>,
    added_by_cause: HashMap<Cause, u64>,
    /// (old, new) → (occurrences, lost input bytes)
    changes: HashMap<(Vec<u8>, Vec<u8>), (u64, u64)>,
}

/// The line pass: patience (unique lines as anchors, Myers between them) is near-linear on
/// documents whose every line changed, where Myers over lines is quadratic.
const LINE_ALGORITHM: Algorithm = Algorithm::Patience;

/// Equal runs of lines up to this many bytes between two changed runs are diffed with them …
const MERGE_EQUAL_BYTES: usize = 256;
/// … as long as the region is no longer than this (the byte diff is quadratic in the worst case).
const MERGE_REGION_BYTES: usize = 2048;
/// Changed regions longer than this are diffed in overlapping windows of this many input bytes
/// (see [`byte_diff`]).
const WINDOW: usize = 256;
/// How long the line pass may take on one file.
const LINE_DEADLINE: Duration = Duration::from_millis(250);

fn lines(s: &[u8]) -> Vec<&[u8]> {
    s.split_inclusive(|&b| b == b'\n').collect()
}

/// What a diff reports: matched bytes, and every changed run as (old bytes, new bytes, offset
/// of the old bytes in the input).
struct Sink<'f> {
    matched: usize,
    change: &'f mut ChangeFn<'f>,
}

/// Called with (old bytes, new bytes, offset of the old bytes in the input) per changed run.
type ChangeFn<'f> = dyn FnMut(&[u8], &[u8], usize) + 'f;

/// Diffs `old` (input) against `new` (output): lines first, then bytes inside changed runs.
fn diff(
    old: &[u8],
    new: &[u8],
    deadline: Duration,
    mut change: impl FnMut(&[u8], &[u8], usize),
) -> FileFidelity {
    let until = Instant::now() + deadline;
    if old == new {
        return FileFidelity {
            matched: old.len(),
            deadline_hit: false,
            line_deadline_hit: false,
        };
    }
    let mut sink = Sink {
        matched: 0,
        change: &mut change,
    };
    let old_lines = lines(old);
    let new_lines = lines(new);
    // Byte offset of the start of every line (and the end).
    let offsets = |ls: &[&[u8]]| {
        let mut v = Vec::with_capacity(ls.len() + 1);
        let mut at = 0;
        v.push(0);
        for l in ls {
            at += l.len();
            v.push(at);
        }
        v
    };
    let old_off = offsets(&old_lines);
    let new_off = offsets(&new_lines);
    // Changed runs of lines separated by short equal runs are diffed as one region: a line diff
    // happily matches a blank line far from where it belongs, and splitting a changed region
    // there can only lose byte matches (the bytes of the region's equal lines are still found).
    let mut region: Option<(usize, usize, usize, usize)> = None;
    let flush = |region: &mut Option<(usize, usize, usize, usize)>, sink: &mut Sink<'_>| {
        if let Some((o0, o1, n0, n1)) = region.take() {
            let ob = old_off[o0]..old_off[o1];
            let nb = new_off[n0]..new_off[n1];
            byte_diff(&old[ob.clone()], &new[nb], ob.start, until, sink);
        }
    };
    // The line pass gets a short deadline of its own: past it, `similar` hands the rest over as
    // one changed run, which the windowed byte diff then covers.
    let line_until = Instant::now() + LINE_DEADLINE;
    let mut line_deadline_hit = false;
    for op in capture_diff_slices_deadline(LINE_ALGORITHM, &old_lines, &new_lines, Some(line_until))
    {
        line_deadline_hit |= Instant::now() > line_until;
        let (o, n) = (op.old_range(), op.new_range());
        if let DiffOp::Equal { .. } = op {
            let bytes = old_off[o.end] - old_off[o.start];
            let region_bytes = region.map_or(0, |(o0, o1, n0, n1)| {
                (old_off[o1] - old_off[o0]).max(new_off[n1] - new_off[n0])
            });
            if bytes > MERGE_EQUAL_BYTES || region_bytes > MERGE_REGION_BYTES {
                flush(&mut region, &mut sink);
                sink.matched += bytes;
                continue;
            }
        }
        region = Some(match region {
            None => (o.start, o.end, n.start, n.end),
            Some((o0, _, n0, _)) => (o0, o.end, n0, n.end),
        });
    }
    flush(&mut region, &mut sink);
    FileFidelity {
        matched: sink.matched,
        deadline_hit: Instant::now() > until,
        line_deadline_hit,
    }
}

/// Byte-level Myers diff of one changed region (`at`: its offset in the input).
///
/// A region up to [`WINDOW`] input bytes is diffed whole. A longer one (a page whose every line
/// changed, like an index whose every line holds a rewritten link) is diffed in windows: input
/// `[i, i + WINDOW)` against output `[j, j + k)`, k in proportion to the lengths left plus
/// a quarter window of slack; the ops up to the middle of the input
/// window are kept (cut inside an equal run, so both sides are in step there) and the next
/// window starts at that cut. Edits here are local (a value rewritten, a quote added), so the
/// windows see every alignment a whole diff would; the result is a lower bound of the whole
/// region's LCS.
fn byte_diff(os: &[u8], ns: &[u8], at: usize, until: Instant, sink: &mut Sink<'_>) {
    if os.is_empty() || ns.is_empty() {
        if !os.is_empty() || !ns.is_empty() {
            (sink.change)(os, ns, at);
        }
        return;
    }
    let (mut i, mut j) = (0, 0);
    loop {
        let whole = os.len() - i <= WINDOW;
        let (oe, ne) = if whole {
            (os.len(), ns.len())
        } else {
            // The output window is in proportion to what is left of both sides, plus slack.
            let rest = (ns.len() - j) as f64 / (os.len() - i) as f64;
            (
                i + WINDOW,
                (j + (WINDOW as f64 * rest) as usize + WINDOW / 4).min(ns.len()),
            )
        };
        let (ow, nw) = (&os[i..oe], &ns[j..ne]);
        let ops = capture_diff_slices_deadline(Algorithm::Myers, ow, nw, Some(until));
        // Where to stop keeping ops: (old, new) offsets inside the window.
        let cut = if whole {
            (ow.len(), nw.len())
        } else {
            window_cut(&ops, WINDOW / 2).unwrap_or((ow.len(), nw.len()))
        };
        for op in &ops {
            let (o, n) = (op.old_range(), op.new_range());
            if o.start >= cut.0 && n.start >= cut.1 {
                break;
            }
            let (o, n) = (o.start..o.end.min(cut.0), n.start..n.end.min(cut.1));
            match op {
                DiffOp::Equal { .. } => sink.matched += o.len(),
                _ => (sink.change)(&ow[o.clone()], &nw[n], at + i + o.start),
            }
        }
        i += cut.0;
        j += cut.1;
        if i >= os.len() || j >= ns.len() {
            if i < os.len() || j < ns.len() {
                (sink.change)(&os[i..], &ns[j..], at + i);
            }
            return;
        }
    }
}

/// Where to cut a window's ops: inside the equal run that spans input offset `half`, else at the
/// end of the last equal run before it, else at the end of the first one after it. `None` when
/// the window has no equal run at all.
fn window_cut(ops: &[DiffOp], half: usize) -> Option<(usize, usize)> {
    let mut before = None;
    for op in ops {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            if old_index <= half && half < old_index + len {
                return Some((half, new_index + (half - old_index)));
            }
            if old_index + len <= half {
                before = Some((old_index + len, new_index + len));
            } else {
                return Some(before.unwrap_or((old_index + len, new_index + len)));
            }
        }
    }
    before
}

struct FileFidelity {
    matched: usize,
    deadline_hit: bool,
    /// The line pass ran out of time (the rest was diffed by windows of bytes).
    line_deadline_hit: bool,
}

impl FidelityTotals {
    fn add(
        &mut self,
        name: &Path,
        input: &[u8],
        output: &[u8],
        deadline: Duration,
        classify_changes: bool,
    ) {
        let dt_end = doctype_end(input);
        let f = diff(input, output, deadline, |o, n, at| {
            if !classify_changes {
                return;
            }
            let cause = classify(o, n, at, input, dt_end);
            *self.lost_by_cause.entry(cause).or_default() += o.len() as u64;
            *self.added_by_cause.entry(cause).or_default() += n.len() as u64;
            let key = (o[..o.len().min(48)].to_vec(), n[..n.len().min(48)].to_vec());
            let e = self.changes.entry(key).or_default();
            e.0 += 1;
            e.1 += o.len() as u64;
        });
        self.input_bytes += input.len() as u64;
        self.output_bytes += output.len() as u64;
        self.matched_bytes += f.matched as u64;
        self.identical_files += usize::from(input == output);
        self.line_deadline_files += usize::from(f.line_deadline_hit);
        if f.deadline_hit {
            eprintln!("diff deadline passed: {}", name.display());
            self.deadline_files += 1;
        }
        self.per_file.push(if input.is_empty() {
            1.0
        } else {
            f.matched as f64 / input.len() as f64
        });
    }

    fn report(&mut self, what: &str, files: usize) {
        self.per_file.sort_by(f64::total_cmp);
        let median = self.per_file.get(self.per_file.len() / 2).copied();
        let p10 = self.per_file.get(self.per_file.len() / 10).copied();
        let lost = self.input_bytes - self.matched_bytes;
        println!("\n== fidelity: {what}");
        println!(
            "  input {} bytes, output {} bytes ({:+.2}%), matched {} bytes",
            self.input_bytes,
            self.output_bytes,
            100.0 * (self.output_bytes as f64 / self.input_bytes as f64 - 1.0),
            self.matched_bytes
        );
        println!(
            "  FIDELITY (bytes-weighted): {:.4}%   lost: {lost} bytes ({:.4}%)",
            pct(self.matched_bytes, self.input_bytes),
            pct(lost, self.input_bytes)
        );
        println!(
            "  output bytes copied from the input: {:.4}% (new: {} bytes); similarity 2·matched/(in+out): {:.4}%",
            pct(self.matched_bytes, self.output_bytes),
            self.output_bytes - self.matched_bytes,
            pct(2 * self.matched_bytes, self.input_bytes + self.output_bytes)
        );
        println!(
            "  per file: median {:.4}%, 10th percentile {:.4}%, byte-identical files {} of {files} ({:.2}%)",
            median.unwrap_or(0.0) * 100.0,
            p10.unwrap_or(0.0) * 100.0,
            self.identical_files,
            pct(self.identical_files as u64, files as u64)
        );
        println!(
            "  files whose diff passed its deadline (figure is a lower bound there): {}; whose line pass did (windowed byte diff for the rest): {}",
            self.deadline_files, self.line_deadline_files
        );
        if self.lost_by_cause.is_empty() {
            return;
        }
        let mut causes: Vec<_> = self.lost_by_cause.iter().map(|(c, b)| (*c, *b)).collect();
        causes.sort_by_key(|(c, b)| (std::cmp::Reverse(*b), *c));
        println!("  lost input bytes by cause (heuristic), and output bytes added:");
        for (cause, bytes) in causes {
            println!(
                "    {:<52} lost {:>10} ({:6.2}% of lost)  added {:>10}",
                cause.label(),
                bytes,
                pct(bytes, lost),
                self.added_by_cause.get(&cause).copied().unwrap_or(0)
            );
        }
        let mut changes: Vec<_> = self.changes.iter().collect();
        changes.sort_by_key(|(k, (n, b))| (std::cmp::Reverse(*b + *n), (*k).clone()));
        println!("  most frequent changes (old → new: occurrences, lost bytes):");
        for ((o, n), (count, bytes)) in changes.into_iter().take(25) {
            println!(
                "    {:>24} → {:<24} {count:>9} ×  {bytes:>9} B",
                show(o),
                show(n)
            );
        }
    }
}

fn show(b: &[u8]) -> String {
    let mut s = String::from("`");
    for c in String::from_utf8_lossy(b).chars() {
        match c {
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            c => s.push(c),
        }
    }
    s.push('`');
    s
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

// --- main -----------------------------------------------------------------------------------------

struct Args {
    list: String,
    passes: usize,
    modes: Vec<Mode>,
    sample: Option<usize>,
    stream: bool,
    fidelity: bool,
    stages: bool,
    deadline: Duration,
    dump: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args {
        list: String::new(),
        passes: 3,
        modes: Mode::ALL.to_vec(),
        sample: None,
        stream: false,
        fidelity: true,
        stages: false,
        deadline: Duration::from_millis(5000),
        dump: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--passes" => a.passes = it.next().unwrap().parse().unwrap(),
            "--sample" => a.sample = Some(it.next().unwrap().parse().unwrap()),
            "--modes" => {
                a.modes = it
                    .next()
                    .unwrap()
                    .split(',')
                    .map(|m| {
                        *Mode::ALL
                            .iter()
                            .find(|x| x.name() == m)
                            .unwrap_or_else(|| panic!("unknown mode {m}"))
                    })
                    .collect();
            }
            "--stream" => a.stream = true,
            "--no-fidelity" => a.fidelity = false,
            "--stages" => a.stages = true,
            "--deadline-ms" => {
                a.deadline = Duration::from_millis(it.next().unwrap().parse().unwrap());
            }
            "--dump" => a.dump = Some(it.next().unwrap().into()),
            s if s.starts_with("--") => panic!("unknown option {s}"),
            s => a.list = s.to_owned(),
        }
    }
    assert!(
        !a.list.is_empty(),
        "usage: corpus_stats [options] LISTFILE (see the source for options)"
    );
    a
}

fn load(a: &Args) -> Vec<Page> {
    let list = if a.list == "-" {
        std::io::read_to_string(std::io::stdin()).unwrap()
    } else {
        std::fs::read_to_string(&a.list).unwrap_or_else(|e| panic!("{}: {e}", a.list))
    };
    let mut paths: Vec<PathBuf> = list
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(PathBuf::from)
        .collect();
    if let Some(n) = a.sample {
        if n < paths.len() {
            let step = paths.len() as f64 / n as f64;
            paths = (0..n)
                .map(|i| paths[(i as f64 * step) as usize].clone())
                .collect();
        }
    }
    paths
        .into_iter()
        .map(|path| {
            let (bytes, len) = if a.stream {
                (Vec::new(), std::fs::metadata(&path).unwrap().len() as usize)
            } else {
                let b = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let n = b.len();
                (b, n)
            };
            Page {
                url: url_for(&path),
                path,
                bytes,
                len,
            }
        })
        .collect()
}

/// The heap peaks of one mode.
#[derive(Default)]
struct Peak {
    heap: usize,
    heap_at: String,
    ratio: f64,
    ratio_at: String,
    on_largest: usize,
}

impl Peak {
    fn add(&mut self, page: &Page, heap: usize, largest: bool) {
        let name = || format!("{} ({} bytes)", page.path.display(), page.len);
        if heap > self.heap {
            self.heap = heap;
            self.heap_at = name();
        }
        let ratio = heap as f64 / page.len.max(1) as f64;
        if ratio > self.ratio {
            self.ratio = ratio;
            self.ratio_at = name();
        }
        if largest {
            self.on_largest = self.on_largest.max(heap);
        }
    }
}

fn mbps(bytes: u64, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

fn main() {
    let a = args();
    let pages = load(&a);
    let total: u64 = pages.iter().map(|p| p.len as u64).sum();
    let largest = pages.iter().max_by_key(|p| p.len).unwrap();
    println!(
        "corpus: {} files, {total} bytes ({:.1} MB); largest {} bytes ({})",
        pages.len(),
        total as f64 / 1e6,
        largest.len,
        largest.path.display()
    );

    // 1. Throughput and memory.
    let n = a.modes.len();
    let mut peak: Vec<Peak> = (0..n).map(|_| Peak::default()).collect();
    let mut best = vec![Duration::MAX; n];
    let mut pass_times = Vec::new();
    for pass in 0..a.passes {
        let mut times = vec![Duration::ZERO; n];
        for (i, page) in pages.iter().enumerate() {
            let bytes = page.bytes();
            let name = page.path.to_str().unwrap_or("?");
            for k in 0..n {
                let m = (i + pass + k) % n;
                let mode = a.modes[m];
                let (t, heap) = measured(|| mode.run(name, &page.url, &bytes));
                times[m] += t;
                peak[m].add(page, heap, std::ptr::eq(page, largest));
            }
        }
        let line: Vec<String> = (0..n)
            .map(|m| {
                format!(
                    "{} {:.2} s = {:.1} MB/s",
                    a.modes[m].name(),
                    times[m].as_secs_f64(),
                    mbps(total, times[m])
                )
            })
            .collect();
        println!("pass {}: {}", pass + 1, line.join(" | "));
        for m in 0..n {
            best[m] = best[m].min(times[m]);
        }
        pass_times.push(times);
    }
    if a.passes > 0 {
        println!("\n== throughput (single thread; best pass per mode, and ratios per pass)");
        let floor_at = a.modes.iter().position(|&m| m == Mode::Floor);
        for (m, (mode, best)) in a.modes.iter().zip(&best).enumerate() {
            let mut s = format!(
                "  {:<10} {:7.2} s  {:7.1} MB/s",
                mode.name(),
                best.as_secs_f64(),
                mbps(total, *best)
            );
            if let Some(f) = floor_at {
                let ratios: Vec<String> = pass_times
                    .iter()
                    .map(|t| format!("{:.3}", t[m].as_secs_f64() / t[f].as_secs_f64()))
                    .collect();
                let _ = write!(s, "   time ÷ floor per pass: {}", ratios.join(", "));
            }
            println!("{s}");
        }
        println!(
            "\n== memory (heap allocated during one call, beyond what was live before it)\n  largest input: {} bytes",
            largest.len
        );
        for (mode, p) in a.modes.iter().zip(&peak) {
            println!(
                "  {:<10} on the largest input {:>10} bytes ({:.2}×); largest peak {:>10} bytes ({:.2}× the largest input) at {}; largest peak ÷ own input {:.2}× at {}",
                mode.name(),
                p.on_largest,
                p.on_largest as f64 / largest.len as f64,
                p.heap,
                p.heap as f64 / largest.len as f64,
                p.heap_at,
                p.ratio,
                p.ratio_at
            );
        }
    }

    // 2. Wall time per stage of rewrite.
    if a.stages {
        stages(&pages, total);
    }

    // 3. Fidelity.
    if a.fidelity || a.dump.is_some() {
        if let Some(dir) = &a.dump {
            std::fs::create_dir_all(dir).unwrap();
        }
        let mut floor_f = FidelityTotals::default();
        let mut rewrite_f = FidelityTotals::default();
        let mut rewrite_vs_floor = FidelityTotals::default();
        let start = Instant::now();
        for (i, page) in pages.iter().enumerate() {
            let bytes = page.bytes();
            let name = page.path.to_str().unwrap_or("?");
            let fl = floor(&bytes);
            let rw = rewrite(name, &page.url, &bytes);
            if let Some(dir) = &a.dump {
                std::fs::write(dir.join(format!("{i:04}.in.html")), &bytes[..]).unwrap();
                std::fs::write(dir.join(format!("{i:04}.floor.html")), &fl).unwrap();
                std::fs::write(dir.join(format!("{i:04}.rewrite.html")), &rw).unwrap();
            }
            if a.fidelity {
                floor_f.add(&page.path, &bytes, &fl, a.deadline, true);
                rewrite_f.add(&page.path, &bytes, &rw, a.deadline, false);
                rewrite_vs_floor.add(&page.path, &fl, &rw, a.deadline, true);
            }
        }
        if a.fidelity {
            println!(
                "\n(fidelity diffs took {:.1} s)",
                start.elapsed().as_secs_f64()
            );
            floor_f.report(
                "floor (parse + serialize, no rewriting) vs input",
                pages.len(),
            );
            rewrite_f.report("rewrite vs input", pages.len());
            rewrite_vs_floor.report(
                "rewrite vs floor (what the URL edits alone change)",
                pages.len(),
            );
        }
    }

    if let Some(hwm) = vm_hwm() {
        println!(
            "\nprocess peak RSS (VmHWM): {hwm} bytes ({:.1} MB){}",
            hwm as f64 / 1e6,
            if a.stream {
                ""
            } else {
                "; includes the corpus held in memory"
            }
        );
    }
}

/// Wall time of each stage of `rewrite`, called one by one through the public API, and the heap
/// each stage holds on the largest input.
fn stages(pages: &[Page], total: u64) {
    use linkbase::base::outer_base;
    use linkbase::report::LinkRecord;
    const N: usize = 8;
    let names = [
        "decode",
        "parse (tokenizer + tree builder)",
        "base + plan",
        "apply",
        "serialize (to_html)",
        "encode",
        "report (link records)",
        "drop (tree, plan, strings)",
    ];
    let mut t = [Duration::ZERO; N];
    // On the largest input: (live after the stage, peak during it), beyond what was live before.
    let mut mem = [(0usize, 0usize); N];
    let largest = pages.iter().map(|p| p.len).max().unwrap_or(0);
    let options = Options::default();
    for page in pages {
        let bytes = page.bytes();
        let base = LIVE.load(Relaxed);
        let track = page.len == largest;
        let mut clock = Instant::now();
        let mut lap = |i: usize, t: &mut [Duration; N], mem: &mut [(usize, usize); N]| {
            let now = Instant::now();
            t[i] += now - clock;
            if track {
                mem[i] = (
                    LIVE.load(Relaxed).saturating_sub(base),
                    PEAK.load(Relaxed).saturating_sub(base),
                );
                PEAK.store(LIVE.load(Relaxed), Relaxed);
            }
            clock = Instant::now();
        };
        PEAK.store(base, Relaxed);
        let decoded = decode::decode(&bytes, None).unwrap();
        lap(0, &mut t, &mut mem);
        let doc = Document::parse(&decoded.text).unwrap();
        lap(1, &mut t, &mut mem);
        let mut diagnostics = Vec::new();
        let layers = BaseLayers {
            retrieval_uri: Some(page.url.clone()),
            ..Default::default()
        };
        let outer = outer_base(&layers, options.rewrite.resolve, &mut diagnostics).unwrap();
        let plan = linkbase::dom::plan::plan(
            &doc,
            &outer,
            &options.rewrite,
            decoded.encoding,
            decoded.encoding,
        );
        lap(2, &mut t, &mut mem);
        linkbase::dom::plan::apply(&doc, &plan);
        lap(3, &mut t, &mut mem);
        let html = doc.to_html();
        lap(4, &mut t, &mut mem);
        let out = decode::encode(&html, decoded.encoding, decoded.bom);
        lap(5, &mut t, &mut mem);
        let records: Vec<LinkRecord> = plan
            .links
            .iter()
            .map(|l| LinkRecord::new(l, None))
            .collect();
        lap(6, &mut t, &mut mem);
        std::hint::black_box((&out, &records));
        drop((records, out, html, plan, doc, decoded, diagnostics, outer));
        lap(7, &mut t, &mut mem);
    }
    println!("\n== rewrite, heap by stage on the largest input ({largest} bytes): live after the stage, peak during it");
    for (name, (live, peak)) in names.iter().zip(mem) {
        println!(
            "  {:<34} live {:>10} ({:5.2}×)  peak {:>10} ({:5.2}×)",
            name,
            live,
            live as f64 / largest.max(1) as f64,
            peak,
            peak as f64 / largest.max(1) as f64
        );
    }
    let sum: Duration = t.iter().sum();
    println!("\n== rewrite, stage by stage (wall time)");
    for (name, d) in names.iter().zip(t) {
        println!(
            "  {:<34} {:7.3} s  {:5.1}%",
            name,
            d.as_secs_f64(),
            100.0 * d.as_secs_f64() / sum.as_secs_f64()
        );
    }
    println!(
        "  {:<34} {:7.3} s  = {:.1} MB/s",
        "total",
        sum.as_secs_f64(),
        mbps(total, sum)
    );
}
