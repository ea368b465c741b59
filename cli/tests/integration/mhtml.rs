//! MIME/MHTML messages: the base of each HTML part and where it came from, the
//! resolved links and the parts they name, byte identity of everything `rewrite_message` does not
//! touch, and damaged input. Rules: docs/mhtml.md §4; samples: `../shared/corpus/mhtml/`
//! (read in place, never copied; when the directory is missing the corpus tests print a notice
//! and pass, and fail under CI); synthetic fixtures: `fixtures/mhtml/` (see its README.md).
//!
//! - `LINKBASE_BLESS=1` rewrites the expected files from the actual output, never for a case in
//!   the ledger. Every blessed file must be read against docs/mhtml.md §4 (the README says what was
//!   checked).
//! - On a mismatch the actual output is written beside the expected file as `<file>.actual`.
//! - `fixtures/mhtml/KNOWN_FAILURES.txt` lists the cases known to fail because the library is
//!   wrong (the expected files say what the rules require), in the one ledger format
//!   (`tests/common/ledger.rs`). A listed case that passes fails the test, and so does a listed
//!   name that names no case, so the ledger cannot go stale.
//! - In expected JSONL, a diagnostic `"message": "*"` matches any wording (only the `code` is
//!   stated): used where the library gives no diagnostic yet, so its wording is unknown.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use linkbase::dom::Document;
use linkbase::input::mime::{self, MessageTree, PartKind};
use linkbase::message::{links_message, rewrite_message, MessageInput, RewrittenMessage};
use linkbase::pipeline::Options;
use linkbase::report::write_jsonl;
use linkbase::{BaseLayers, Report, UriRef};

use crate::ledger::Ledger;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/mhtml");
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/mhtml");
const LEDGER: &str = "KNOWN_FAILURES.txt";

type Outcome = Result<(), String>;

// ---------------------------------------------------------------------------------------------
// Harness: cases, the ledger, bless.

/// One named check; a panic inside it is a failure of that case, not of the whole test.
fn run_case(name: &str, f: impl FnOnce() -> Outcome) -> (String, Outcome) {
    let outcome = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        Err(format!("panicked: {why}"))
    });
    (name.to_owned(), outcome)
}

/// `KNOWN_FAILURES.txt`, in the one ledger format (`tests/common/ledger.rs`).
fn ledger() -> Ledger {
    Ledger::read(Path::new(FIXTURES).join(LEDGER))
}

fn is_listed(case: &str) -> bool {
    ledger().lists(case)
}

/// Fails unless every outcome agrees with the ledger: unlisted cases pass, listed cases fail.
/// `prefix` names this test's cases; a listed case with that prefix that did not run is stale.
fn settle(prefix: &str, outcomes: Vec<(String, Outcome)>) {
    let ledger = ledger();
    let mut problems = Vec::new();
    for (name, outcome) in &outcomes {
        if let (Err(why), true) = (outcome, ledger.lists(name)) {
            eprintln!("expected failure {name}:\n    {}", indent(why));
        }
        if let Err(why) = ledger.judge(name, outcome.clone()) {
            problems.push(format!("{name}: {}", indent(&why)));
        }
    }
    problems.extend(ledger.stale(prefix, outcomes.iter().map(|(n, _)| n.as_str())));
    assert!(
        problems.is_empty(),
        "{} of {} cases failed:\n{}",
        problems.len(),
        outcomes.len(),
        problems.join("\n")
    );
}

fn indent(s: &str) -> String {
    s.replace('\n', "\n    ")
}

fn bless() -> bool {
    std::env::var_os("LINKBASE_BLESS").is_some_and(|v| v == "1")
}

/// Compares `actual` with the expected file; writes `<file>.actual` on a mismatch, or the
/// expected file itself when blessing (never for a case in the ledger).
fn compare_file(case: &str, path: &Path, actual: &[u8], jsonl: bool) -> Outcome {
    let expected = std::fs::read(path).ok();
    let same = match &expected {
        Some(e) if jsonl => jsonl_matches(e, actual),
        Some(e) => e == actual,
        None => false,
    };
    let actual_path = PathBuf::from(format!("{}.actual", path.display()));
    if same {
        let _ = std::fs::remove_file(&actual_path);
        return Ok(());
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if bless() && !is_listed(case) {
        std::fs::write(path, actual).unwrap();
        let _ = std::fs::remove_file(&actual_path);
        return Ok(());
    }
    std::fs::write(&actual_path, actual).unwrap();
    Err(match expected {
        None => format!("{} is missing (LINKBASE_BLESS=1 writes it)", path.display()),
        Some(e) => format!(
            "{} differs from the actual output ({}); first difference at byte {}",
            path.display(),
            actual_path.display(),
            e.iter()
                .zip(actual)
                .position(|(a, b)| a != b)
                .unwrap_or(e.len().min(actual.len()))
        ),
    })
}

/// Byte equality, or line-by-line JSON equality where an expected diagnostic message `"*"`
/// matches any message.
fn jsonl_matches(expected: &[u8], actual: &[u8]) -> bool {
    if expected == actual {
        return true;
    }
    let (Ok(e), Ok(a)) = (std::str::from_utf8(expected), std::str::from_utf8(actual)) else {
        return false;
    };
    let e: Vec<&str> = e.lines().collect();
    let a: Vec<&str> = a.lines().collect();
    e.len() == a.len()
        && e.iter().zip(&a).all(|(e, a)| {
            match (
                serde_json::from_str::<serde_json::Value>(e),
                serde_json::from_str::<serde_json::Value>(a),
            ) {
                (Ok(e), Ok(a)) => json_matches(&e, &a, None),
                _ => false,
            }
        })
}

fn json_matches(e: &serde_json::Value, a: &serde_json::Value, key: Option<&str>) -> bool {
    use serde_json::Value;
    match (e, a) {
        (Value::String(s), Value::String(_)) if s == "*" && key == Some("message") => true,
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len()
                && e.iter()
                    .all(|(k, v)| a.get(k).is_some_and(|w| json_matches(v, w, Some(k))))
        }
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(e, a)| json_matches(e, a, key))
        }
        _ => e == a,
    }
}

// ---------------------------------------------------------------------------------------------
// Running the library.

fn input<'a>(name: &'a str, bytes: &'a [u8], layers: &BaseLayers) -> MessageInput<'a> {
    MessageInput {
        name,
        bytes,
        layers: layers.clone(),
    }
}

fn links(name: &str, bytes: &[u8], layers: &BaseLayers) -> Result<Vec<Report>, String> {
    links_message(&input(name, bytes, layers), &Options::default()).map_err(|e| e.to_string())
}

fn rewrite(name: &str, bytes: &[u8], layers: &BaseLayers) -> Result<RewrittenMessage, String> {
    rewrite_message(&input(name, bytes, layers), &Options::default()).map_err(|e| e.to_string())
}

fn bases_jsonl(reports: &[Report]) -> Vec<u8> {
    let mut out = Vec::new();
    let bases: Vec<_> = reports.iter().map(|r| r.base.clone()).collect();
    write_jsonl(&mut out, &bases).unwrap();
    out
}

fn links_jsonl(reports: &[Report]) -> Vec<u8> {
    let mut out = Vec::new();
    let links: Vec<_> = reports.iter().flat_map(|r| r.links.clone()).collect();
    write_jsonl(&mut out, &links).unwrap();
    out
}

fn report<'r>(reports: &'r [Report], part: &str) -> Result<&'r Report, String> {
    reports
        .iter()
        .find(|r| r.base.origin.part.as_deref() == Some(part))
        .ok_or_else(|| format!("no report for part {part}"))
}

/// `(original, resolved, target_part)` of every link of `part`.
fn targets(reports: &[Report], part: &str) -> Result<Vec<(String, Option<String>)>, String> {
    Ok(report(reports, part)?
        .links
        .iter()
        .map(|l| (l.original.clone(), l.target_part.clone()))
        .collect())
}

fn expect_targets(reports: &[Report], part: &str, want: &[(&str, Option<&str>)]) -> Outcome {
    let got = targets(reports, part)?;
    let want: Vec<(String, Option<String>)> = want
        .iter()
        .map(|(o, t)| ((*o).to_owned(), t.map(str::to_owned)))
        .collect();
    check(
        got == want,
        format!("part {part}: links and target parts\n  got  {got:?}\n  want {want:?}"),
    )
}

fn expect_base(reports: &[Report], part: &str, base: &str, source: &str) -> Outcome {
    let r = report(reports, part)?;
    let got = (r.base.base.as_deref(), r.base.base_source.name());
    check(
        got == (Some(base), source),
        format!("part {part}: base {got:?}, want ({base:?}, {source:?})"),
    )
}

fn check(ok: bool, why: impl Into<String>) -> Outcome {
    if ok {
        Ok(())
    } else {
        Err(why.into())
    }
}

fn all_diagnostics(reports: &[Report]) -> Vec<String> {
    reports
        .iter()
        .flat_map(|r| r.base.diagnostics.iter().map(|d| d.to_string()))
        .collect()
}

fn path_of(tree: &MessageTree, i: usize) -> String {
    mime::display_path(&tree.parts[i].path).to_owned()
}

// ---------------------------------------------------------------------------------------------
// The rewrite invariants (test 2), for the corpus and the fixtures alike.

/// Path, media type, transfer encoding, Content-Location, Content-ID.
type Shape = (String, String, String, Option<String>, Option<String>);

/// What a part looks like, for comparing the tree before and after rewriting.
fn shape(tree: &MessageTree) -> Vec<Shape> {
    tree.parts
        .iter()
        .map(|p| {
            (
                p.path.clone(),
                p.mime_type.clone(),
                p.transfer_encoding.clone(),
                p.content_location.clone(),
                p.content_id.clone(),
            )
        })
        .collect()
}

/// Leaves with a span, in byte order: (index, span).
fn leaf_spans(tree: &MessageTree) -> Vec<(usize, std::ops::Range<usize>)> {
    let mut v: Vec<_> = tree
        .parts
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == PartKind::Leaf)
        .filter_map(|(i, p)| p.body.clone().map(|s| (i, s)))
        .collect();
    v.sort_by_key(|(_, s)| (s.start, s.end));
    v
}

/// The line ending before a body (the end of the blank line that ends its heading).
fn eol_before(bytes: &[u8], at: usize) -> &'static str {
    if bytes[..at].ends_with(b"\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// Quoted-printable decoding that keeps what is not an escape as it is (raw 8-bit bytes too,
/// as producers write them), so no text is lost before comparing.
fn qp_decode_lenient(b: &[u8]) -> Vec<u8> {
    let hex = |c: Option<&u8>| c.and_then(|c| (*c as char).to_digit(16)).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'=' {
            let mut j = i + 1;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            match b.get(j) {
                Some(b'\n') => {
                    i = j + 1;
                    continue;
                }
                Some(b'\r') if b.get(j + 1) == Some(&b'\n') => {
                    i = j + 2;
                    continue;
                }
                _ => {}
            }
            if let (Some(h), Some(l)) = (hex(b.get(i + 1)), hex(b.get(i + 2))) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn transfer_decode(body: &[u8], cte: &str) -> Option<Vec<u8>> {
    match cte {
        "quoted-printable" => Some(qp_decode_lenient(body)),
        "base64" => {
            let clean: Vec<u8> = body
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            base64::engine::general_purpose::STANDARD.decode(clean).ok()
        }
        _ => Some(body.to_vec()),
    }
}

/// The non-ASCII characters of the text of an HTML body (text nodes only: URLs are attributes),
/// in order.
fn non_ascii_text(body: &[u8], charset: Option<&str>) -> Option<String> {
    let decoded = linkbase::decode::decode(body, charset).ok()?;
    let doc = Document::parse(&decoded.text).ok()?;
    Some(
        doc.elements()
            .iter()
            .flat_map(|e| {
                e.text()
                    .chars()
                    .filter(|c| !c.is_ascii())
                    .collect::<Vec<_>>()
            })
            .collect(),
    )
}

/// Test 2's assertions for one message: everything outside the changed HTML bodies is kept byte
/// for byte, the tree keeps its shape, changed bodies keep their transfer encoding's line width
/// and the part's line endings and their text, and every link the first run rewrote reads, in
/// the output, as what it resolved to (fictitious `thismessage:` ones keep their text).
fn check_rewrite(name: &str, bytes: &[u8], layers: &BaseLayers) -> Outcome {
    let before = mime::parse(bytes).map_err(|e| e.to_string())?;
    let out = rewrite(name, bytes, layers)?;
    let first = links(name, bytes, layers)?;
    let after =
        mime::parse(&out.bytes).map_err(|e| format!("the output does not re-parse: {e}"))?;
    let mut problems = Vec::new();

    // The rewrite's reports are the links reports (a rewrite may add part-skipped notes).
    let strip = |rs: &[Report]| -> Vec<Report> {
        rs.iter()
            .cloned()
            .map(|mut r| {
                r.base
                    .diagnostics
                    .retain(|d| d.code != linkbase::DiagnosticCode::PartSkipped);
                r
            })
            .collect()
    };
    if strip(&out.reports) != strip(&first) {
        problems.push("rewrite_message's reports differ from links_message's".to_owned());
    }

    // Same tree shape.
    if shape(&before) != shape(&after) {
        problems.push(format!(
            "the part tree changed shape:\n  before {:?}\n  after  {:?}",
            shape(&before),
            shape(&after)
        ));
        return Err(problems.join("\n"));
    }

    // Which parts the rewrite may change: HTML leaves whose report has a rewritten link and
    // that were not skipped.
    let may_change: BTreeSet<String> = out
        .reports
        .iter()
        .filter(|r| r.links.iter().any(|l| l.rewritten))
        .filter(|r| {
            !r.base
                .diagnostics
                .iter()
                .any(|d| d.code == linkbase::DiagnosticCode::PartSkipped)
        })
        .filter_map(|r| r.base.origin.part.clone())
        .collect();

    // Byte identity outside the changed bodies: gaps between leaf bodies are equal, unchanged
    // bodies are equal.
    let spans_in = leaf_spans(&before);
    let spans_out = leaf_spans(&after);
    let index_in: Vec<usize> = spans_in.iter().map(|(i, _)| *i).collect();
    let index_out: Vec<usize> = spans_out.iter().map(|(i, _)| *i).collect();
    if index_in != index_out {
        problems.push("leaf bodies are in another order after rewriting".to_owned());
        return Err(problems.join("\n"));
    }
    let (mut at_in, mut at_out) = (0, 0);
    let mut changed = BTreeSet::new();
    for ((i, s_in), (_, s_out)) in spans_in.iter().zip(&spans_out) {
        let path = path_of(&before, *i);
        if s_in.start < at_in || s_out.start < at_out {
            problems.push(format!("part {path}: bodies overlap"));
            continue;
        }
        if bytes[at_in..s_in.start] != out.bytes[at_out..s_out.start] {
            problems.push(format!(
                "bytes {}..{} before part {path} changed",
                at_in, s_in.start
            ));
        }
        let old = &bytes[s_in.clone()];
        let new = &out.bytes[s_out.clone()];
        if old != new {
            changed.insert(path.clone());
            if !may_change.contains(&path) {
                problems.push(format!(
                    "part {path} ({}) changed, though no link of it was rewritten",
                    before.parts[*i].mime_type
                ));
            }
            check_changed_body(&before, *i, bytes, s_in.start, old, new, &mut problems);
        }
        at_in = s_in.end;
        at_out = s_out.end;
    }
    if bytes[at_in..] != out.bytes[at_out..] {
        problems.push(format!("bytes after {at_in} changed"));
    }
    for path in may_change.difference(&changed) {
        problems.push(format!(
            "part {path} has rewritten links but its body did not change"
        ));
    }

    // The links of the output: what was rewritten now reads as what it resolved to.
    let second = links(&format!("{name} (rewritten)"), &out.bytes, layers)?;
    for r1 in &first {
        let part = r1.base.origin.part.clone().unwrap_or_default();
        let Ok(r2) = report(&second, &part) else {
            problems.push(format!("part {part}: no report after rewriting"));
            continue;
        };
        if r1.base.base != r2.base.base || r1.base.base_source != r2.base.base_source {
            problems.push(format!("part {part}: the base changed after rewriting"));
        }
        if r1.links.len() != r2.links.len() {
            problems.push(format!(
                "part {part}: {} links before, {} after",
                r1.links.len(),
                r2.links.len()
            ));
            continue;
        }
        let was_changed = changed.contains(&part);
        for (l1, l2) in r1.links.iter().zip(&r2.links) {
            let fictitious = l1
                .resolved
                .as_deref()
                .is_some_and(|r| r.to_ascii_lowercase().starts_with("thismessage:"));
            let relative = UriRef::parse(l1.original.trim()).scheme.is_none();
            if fictitious && l1.rewritten {
                problems.push(format!(
                    "part {part}: {:?} resolved against thismessage:/ but is rewritten",
                    l1.original
                ));
            }
            if was_changed
                && relative
                && !fictitious
                && !l1.same_document
                && l1.resolved.is_some()
                && !l1.original.trim().is_empty()
                && !l1.rewritten
            {
                problems.push(format!(
                    "part {part}: relative {:?} resolves to {:?} but is not rewritten",
                    l1.original, l1.resolved
                ));
            }
            let want = if l1.rewritten && was_changed {
                l1.resolved.clone().unwrap_or_default()
            } else {
                l1.original.clone()
            };
            if l2.original != want {
                problems.push(format!(
                    "part {part}: {:?} reads {:?} after rewriting, want {want:?}",
                    l1.original, l2.original
                ));
            }
            if l2.resolved != l1.resolved || l2.target_part != l1.target_part {
                problems.push(format!(
                    "part {part}: {:?} resolved to {:?} → {:?} before, {:?} → {:?} after",
                    l1.original, l1.resolved, l1.target_part, l2.resolved, l2.target_part
                ));
            }
        }
    }
    check(problems.is_empty(), problems.join("\n"))
}

/// A changed body: line width, line endings, transfer-decodable, the text kept.
fn check_changed_body(
    tree: &MessageTree,
    i: usize,
    input: &[u8],
    start: usize,
    old: &[u8],
    new: &[u8],
    problems: &mut Vec<String>,
) {
    let part = &tree.parts[i];
    let path = mime::display_path(&part.path);
    let eol = eol_before(input, start);
    let new_text = String::from_utf8_lossy(new);
    if eol == "\n" && new.contains(&b'\r') {
        problems.push(format!(
            "part {path}: CR in a rewritten body of a part with LF line ends"
        ));
    }
    if eol == "\r\n" {
        let bare = new
            .iter()
            .enumerate()
            .any(|(k, &b)| b == b'\n' && (k == 0 || new[k - 1] != b'\r'));
        if bare {
            problems.push(format!(
                "part {path}: bare LF in a rewritten body of a part with CRLF line ends"
            ));
        }
    }
    if matches!(
        part.transfer_encoding.as_str(),
        "quoted-printable" | "base64"
    ) {
        if let Some(long) = new_text.split(eol).find(|l| l.len() > 76) {
            problems.push(format!(
                "part {path}: {} line of {} characters (RFC 2045 allows 76): {long:?}",
                part.transfer_encoding,
                long.len()
            ));
        }
    }
    let Some(new_decoded) = transfer_decode(new, &part.transfer_encoding) else {
        problems.push(format!(
            "part {path}: the rewritten body does not decode as {}",
            part.transfer_encoding
        ));
        return;
    };
    // The text (not the URLs) is kept: same non-ASCII characters, in order.
    if let Some(old_decoded) = transfer_decode(old, &part.transfer_encoding) {
        let charset = part.charset.as_deref();
        let (a, b) = (
            non_ascii_text(&old_decoded, charset),
            non_ascii_text(&new_decoded, charset),
        );
        if a != b {
            let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
            problems.push(format!(
                "part {path}: text lost or changed by rewriting: {} non-ASCII characters before ({:?}…), {} after ({:?}…)",
                a.chars().count(),
                a.chars().take(12).collect::<String>(),
                b.chars().count(),
                b.chars().take(12).collect::<String>()
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Test 1 and 2: the shared corpus.

/// The shared corpus's MHTML files, or `None` (said) when `../shared` is absent.
pub(super) fn corpus() -> Option<Vec<PathBuf>> {
    let dir = Path::new(CORPUS);
    let Ok(entries) = std::fs::read_dir(dir) else {
        if let Err(e) = crate::shared::missing(
            "the MHTML corpus tests are skipped (the synthetic fixtures still run)",
            dir,
        ) {
            panic!("{e}");
        }
        return None;
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "eml" | "mht" | "mhtml"))
        })
        .collect();
    files.sort();
    Some(files)
}

fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// The hand-checked facts of docs/mhtml.md §4 and the corpus's SOURCES.md per sample, asserted on top of the
/// expected files (so a careless bless cannot hide them).
fn corpus_facts(sample: &str, bytes: &[u8], reports: &[Report]) -> Outcome {
    let tree = mime::parse(bytes).map_err(|e| e.to_string())?;
    let number = sample.get(..2).unwrap_or_default();
    match number {
        // Absolute CL per part; the relative img resolves against the HTML part's CL.
        "01" => {
            expect_base(
                reports,
                "1",
                "http://localhost/page_with_image.html",
                "content-location",
            )?;
            expect_targets(
                reports,
                "1",
                &[
                    ("http://localhost/resources/red_square.png", Some("2")),
                    ("resources/red_square.png", Some("2")),
                ],
            )
        }
        // <base href="http://localhost/"> in every frame.
        "02" | "03" => {
            check(reports.len() == 5, "five HTML parts")?;
            for r in reports {
                let part = r.base.origin.part.clone().unwrap_or_default();
                expect_base(reports, &part, "http://localhost/", "base-element")?;
            }
            if number == "03" {
                expect_targets(
                    reports,
                    "1",
                    &[
                        ("http://localhost/", None),
                        ("cid:frame0@foo.bar", Some("2")),
                        ("cid:frame1@foo.bar", Some("3")),
                        ("cid:frame2@foo.bar", Some("4")),
                        ("cid:redsquare@foo.bar", Some("6")),
                    ],
                )?;
            } else {
                expect_targets(
                    reports,
                    "1",
                    &[
                        ("http://localhost/", None),
                        ("http://localhost/frame_0.html", Some("2")),
                        ("http://localhost/frame_1.html", Some("3")),
                        ("http://localhost/frame_2.html", Some("4")),
                        ("resources/red_square.png", Some("6")),
                    ],
                )?;
            }
            Ok(())
        }
        "04" => expect_base(reports, "1", "http://example.com/", "content-location"),
        // The CSS part's CL has a query string; it is matched octet by octet.
        "05" => {
            expect_base(
                reports,
                "1",
                "https://news.ycombinator.com/",
                "content-location",
            )?;
            let r = report(reports, "1")?;
            check(
                r.links.iter().any(|l| {
                    l.original == "https://news.ycombinator.com/news.css?i3QZFyQGGgTNEupNTrnX"
                        && l.target_part.as_deref() == Some("2")
                }),
                "news.css?… targets part 2",
            )
        }
        // Frames by cid:; a cid: Content-Location (Chrome's CSS parts) is never a base; parts
        // without a CL get thismessage:/.
        "06" => {
            let html = tree
                .parts
                .iter()
                .filter(|p| p.mime_type == "text/html")
                .count();
            // A report per HTML part and per text/css part.
            let css = tree
                .parts
                .iter()
                .filter(|p| p.mime_type == "text/css")
                .count();
            check(
                reports.len() == html + css && html == 62,
                format!(
                    "62 HTML parts and {css} CSS parts, got {} reports for {html} HTML parts",
                    reports.len()
                ),
            )?;
            for r in reports {
                let base = r.base.base.clone().unwrap_or_default();
                check(
                    !base.starts_with("cid:"),
                    format!("part {:?}: cid: base {base}", r.base.origin.part),
                )?;
                let part = r.base.origin.part.clone().unwrap_or_default();
                let i = tree
                    .parts
                    .iter()
                    .position(|p| mime::display_path(&p.path) == part)
                    .unwrap();
                if tree.parts[i].content_location.is_none() {
                    expect_base(reports, &part, "thismessage:/", "default")?;
                }
            }
            let frames: Vec<_> = reports
                .iter()
                .flat_map(|r| &r.links)
                .filter(|l| l.element == "iframe" && l.original.starts_with("cid:frame-"))
                .collect();
            check(
                !frames.is_empty() && frames.iter().all(|l| l.target_part.is_some()),
                "every iframe cid:frame-… reference targets a part",
            )?;
            let part_at = |t: &str| {
                tree.parts
                    .iter()
                    .find(|p| p.path == t)
                    .ok_or("target exists")
            };
            for l in frames {
                let id = l.original.trim_start_matches("cid:");
                let p = part_at(l.target_part.as_deref().unwrap())?;
                check(
                    p.content_id.as_deref() == Some(id) && p.mime_type == "text/html",
                    format!("{} targets the frame with that Content-ID", l.original),
                )?;
            }
            // Chrome's stylesheets: `<link href="cid:css-…@mhtml.blink">` names the text/css
            // part labelled `Content-Location: cid:css-…@mhtml.blink` (no Content-ID), as
            // Chromium's reader matches it.
            let sheets: Vec<_> = reports
                .iter()
                .flat_map(|r| &r.links)
                .filter(|l| l.element == "link" && l.original.starts_with("cid:css-"))
                .collect();
            check(!sheets.is_empty(), "cid:css-… stylesheet links")?;
            for l in sheets {
                let t = l
                    .target_part
                    .as_deref()
                    .ok_or("a cid:css-… link targets a part")?;
                let p = part_at(t)?;
                check(
                    p.content_location.as_deref() == Some(l.original.as_str())
                        && p.content_id.is_none()
                        && p.mime_type == "text/css",
                    format!(
                        "{} targets the CSS part with that Content-Location",
                        l.original
                    ),
                )?;
            }
            Ok(())
        }
        "07" => {
            expect_base(
                reports,
                "1",
                "file:///C:/B133AD19/Hey.htm",
                "content-location",
            )?;
            let r = report(reports, "1")?;
            check(
                r.links.iter().any(|l| {
                    l.original == "Hey.files/image001.jpg"
                        && l.resolved.as_deref()
                            == Some("file:///C:/B133AD19/Hey.files/image001.jpg")
                        && l.target_part.as_deref() == Some("6")
                }),
                "Hey.files/image001.jpg → part 6",
            )
        }
        // Image first, HTML second, no start; relative CL `image1` with no base anywhere.
        "08" => {
            check(
                tree.related_root(0).map(|i| path_of(&tree, i)) == Some("2".into()),
                "root is part 2",
            )?;
            expect_base(reports, "2", "thismessage:/", "default")?;
            let r = report(reports, "2")?;
            let l = r.links.first().ok_or("one link")?;
            check(
                (
                    l.original.as_str(),
                    l.resolved.as_deref(),
                    l.target_part.as_deref(),
                    l.rewritten,
                ) == ("image1", Some("thismessage:/image1"), Some("1"), false),
                format!("image1 → thismessage:/image1 → part 1, kept: {l:?}"),
            )
        }
        // RFC 2047-encoded, folded CLs decoded; the start parameter names part 1.
        "09" => {
            check(
                tree.related_root(0).map(|i| path_of(&tree, i)) == Some("1".into()),
                "root is part 1 (start)",
            )?;
            for p in tree.parts.iter().filter(|p| p.mime_type == "image/png") {
                let cl = p.content_location.as_deref().unwrap_or_default();
                check(
                    cl.starts_with("http://cdn1.xamarin.com/") && !cl.contains("=?"),
                    format!("decoded CL {cl}"),
                )?;
            }
            let targeted: BTreeSet<&str> = report(reports, "1")?
                .links
                .iter()
                .filter_map(|l| l.target_part.as_deref())
                .collect();
            let want: BTreeSet<String> = (2..=19).map(|n| n.to_string()).collect();
            check(
                targeted == want.iter().map(String::as_str).collect(),
                format!("every image part 2–19 is targeted: {targeted:?}"),
            )
        }
        "10" => {
            expect_base(reports, "1", "http://localhost:3000/", "content-location")?;
            expect_targets(
                reports,
                "1",
                &[("http://localhost:3000/dot.png", Some("2"))],
            )
        }
        // Single-part: the message heading's CL is the base.
        "11" => expect_base(
            reports,
            "1",
            "http://localhost:3000/the/file/path.html",
            "content-location",
        ),
        "13" => {
            expect_base(reports, "1.2.1", "thismessage:/", "default")?;
            expect_targets(
                reports,
                "1.2.1",
                &[("cid:part1.8C5E6A81.D0C1B91A@example.com", Some("1.2.2"))],
            )
        }
        // cid → 1.2 across the alternative; the truncated enclosed message gives a diagnostic.
        "14" => {
            expect_targets(
                reports,
                "1.1.1",
                &[(
                    "cid:emedfeb92f-a786-4718-a446-98db8afb53fb@kronos",
                    Some("1.2"),
                )],
            )?;
            check(
                !tree.diagnostics.is_empty() && !all_diagnostics(reports).is_empty(),
                "a diagnostic for the truncated message/rfc822",
            )
        }
        // Truncated inside its only part: read as far as it goes, and said so.
        "15" => {
            expect_base(
                reports,
                "1",
                "http://msindwan.bitbucket.org/",
                "content-location",
            )?;
            check(
                !all_diagnostics(reports).is_empty(),
                "a diagnostic says the closing boundary is missing",
            )
        }
        _ => Err(format!(
            "no hand-checked facts for {sample}: add them to corpus_facts"
        )),
    }
}

#[test]
fn corpus_reports_match_expected() {
    let Some(files) = corpus() else { return };
    let expected = Path::new(FIXTURES).join("corpus-expected");
    let mut outcomes = Vec::new();
    for path in &files {
        let sample = stem(path);
        outcomes.push(run_case(&format!("corpus-reports/{sample}"), || {
            let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
            let name = path.file_name().unwrap().to_string_lossy();
            let reports = links(&name, &bytes, &BaseLayers::default())?;
            let case = format!("corpus-reports/{sample}");
            let a = compare_file(
                &case,
                &expected.join(format!("{sample}.base.jsonl")),
                &bases_jsonl(&reports),
                true,
            );
            let b = compare_file(
                &case,
                &expected.join(format!("{sample}.links.jsonl")),
                &links_jsonl(&reports),
                true,
            );
            let c = corpus_facts(&sample, &bytes, &reports);
            let errs: Vec<String> = [a, b, c].into_iter().filter_map(Result::err).collect();
            check(errs.is_empty(), errs.join("\n"))
        }));
    }
    assert!(outcomes.len() >= 14, "the corpus has 14 samples");
    settle("corpus-reports/", outcomes);
}

#[test]
fn corpus_rewrite_keeps_untouched_bytes() {
    let Some(files) = corpus() else { return };
    let mut outcomes = Vec::new();
    for path in &files {
        let sample = stem(path);
        outcomes.push(run_case(&format!("corpus-rewrite/{sample}"), || {
            let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
            let name = path.file_name().unwrap().to_string_lossy();
            check_rewrite(&name, &bytes, &BaseLayers::default())
        }));
    }
    settle("corpus-rewrite/", outcomes);
}

// ---------------------------------------------------------------------------------------------
// Test 3: synthetic fixtures.

fn fixture_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "eml" | "mht" | "mhtml"))
        })
        .collect();
    files.sort();
    files
}

/// The outer layers a fixture is read with (what `--url` etc. would give).
fn fixture_layers(stem: &str) -> BaseLayers {
    match stem {
        "url-no-cl" => BaseLayers {
            retrieval_uri: Some("http://r.example/saved/page.mht".into()),
            ..BaseLayers::default()
        },
        _ => BaseLayers::default(),
    }
}

/// What each fixture is about, asserted directly (the expected files hold the whole output).
fn fixture_facts(
    stem: &str,
    bytes: &[u8],
    reports: &[Report],
    rewritten: &RewrittenMessage,
) -> Outcome {
    let tree = mime::parse(bytes).map_err(|e| e.to_string())?;
    let root = |i: usize| tree.related_root(i).map(|r| path_of(&tree, r));
    match stem {
        "content-base-part" => {
            expect_base(reports, "1", "http://base.example/docs/", "content-base")?;
            expect_targets(
                reports,
                "1",
                &[
                    ("img/a.png", Some("2")),
                    ("page2.html", None),
                    ("http://other.example/abs", None),
                ],
            )
        }
        "content-base-multipart" => {
            expect_base(reports, "1", "http://mp.example/a/", "content-base")?;
            expect_targets(
                reports,
                "1",
                &[("b/c.png", Some("2")), ("../up.html", None)],
            )
        }
        "relative-cl-no-base" => {
            expect_base(
                reports,
                "1",
                "thismessage:/pages/index.html",
                "content-location",
            )?;
            expect_targets(
                reports,
                "1",
                &[
                    ("../img/a.png", Some("2")),
                    ("other.html", None),
                    ("http://example.org/x", None),
                ],
            )?;
            let l = &report(reports, "1")?.links;
            check(
                l[0].resolved.as_deref() == Some("thismessage:/img/a.png")
                    && l.iter().all(|l| !l.rewritten),
                "fictitious thismessage: URIs are not written",
            )?;
            check(
                rewritten.bytes == bytes,
                "nothing to rewrite: the output is the input",
            )
        }
        "relative-cl-heading-absolute" => {
            expect_base(
                reports,
                "1",
                "http://site.example/dir/page.html",
                "content-location",
            )?;
            expect_targets(
                reports,
                "1",
                &[
                    ("img/c.png", Some("2")),
                    ("#top", None),
                    ("sub/other.html", None),
                ],
            )
        }
        "nested-related" => {
            // Outer → inner: not matched (the inner aggregate itself is a target, 9.6).
            expect_targets(
                reports,
                "1",
                &[
                    ("outer-img.png", Some("3")),
                    ("inner-img.png", None),
                    ("cid:inner-img@n.example", None),
                    ("inner/", Some("2")),
                ],
            )?;
            // Inner → outer: matched.
            expect_targets(
                reports,
                "2.1",
                &[
                    ("../outer-img.png", Some("3")),
                    ("cid:outer-img@n.example", Some("3")),
                    ("../inner-img.png", Some("2.2")),
                    ("cid:inner-img@n.example", Some("2.2")),
                ],
            )
        }
        "sibling-related" => {
            expect_targets(
                reports,
                "1.1",
                &[
                    ("a.png", Some("1.2")),
                    ("../b/b.png", None),
                    ("cid:b@s.example", None),
                ],
            )?;
            expect_targets(
                reports,
                "2.1",
                &[("b.png", Some("2.2")), ("cid:a@s.example", None)],
            )
        }
        "rfc822-scope" => {
            // The enclosed message's HTML still gets its base from the outer heading.
            expect_base(
                reports,
                "1.1",
                "http://outer.example/msg/",
                "content-location",
            )?;
            expect_base(
                reports,
                "2.1",
                "http://outer.example/msg/",
                "content-location",
            )?;
            expect_targets(
                reports,
                "1.1",
                &[
                    ("cid:outer-img@o.example", Some("1.2")),
                    ("img.png", Some("1.2")),
                ],
            )?;
            expect_targets(
                reports,
                "2.1",
                &[
                    ("cid:outer-img@o.example", None),
                    ("img.png", None),
                    ("cid:inner-img@i.example", Some("2.2")),
                    ("inner.png", Some("2.2")),
                ],
            )
        }
        "start-root" => {
            check(
                root(0) == Some("3".into()),
                format!("root {:?}, want 3", root(0)),
            )?;
            expect_targets(
                reports,
                "3",
                &[
                    ("cid:logo@st.example", Some("1")),
                    ("cid:other@st.example", Some("2")),
                ],
            )
        }
        "type-root" => check(
            root(0) == Some("2".into()),
            format!("root {:?}, want 2", root(0)),
        ),
        "base64-html" => {
            let part = &mime::parse(&rewritten.bytes).unwrap().parts[1];
            check(part.transfer_encoding == "base64", "still base64")?;
            check(
                String::from_utf8_lossy(part.decoded.as_deref().unwrap())
                    .contains("href=\"http://b64.example/book/chapter8.html\""),
                "the decoded new body has the absolute links",
            )
        }
        "8bit-utf8" => {
            let out = String::from_utf8(rewritten.bytes.clone()).map_err(|e| e.to_string())?;
            check(
                out.contains("<p>Crème brûlée, 4 €. Ελληνικά. 日本語.</p>")
                    && out.contains("href=\"http://8bit.example/cafe/boissons.html\""),
                "raw UTF-8 text kept, link rewritten, 8bit kept",
            )
        }
        "windows-1252-qp" => {
            let out = String::from_utf8_lossy(&rewritten.bytes);
            check(
                out.contains("=AB Cr=E8me br=FBl=E9e =BB =96 4 =80, na=EFve =93quotes=94.")
                    && out.contains("http://w1252.example/cafe/carte.html"),
                "windows-1252 bytes (QP) kept, not UTF-8",
            )?;
            check(
                report(reports, "1")?.base.encoding == "windows-1252",
                "read as windows-1252",
            )
        }
        "url-no-cl" => {
            expect_base(
                reports,
                "1",
                "http://r.example/saved/page.mht",
                "retrieval-uri",
            )?;
            expect_targets(
                reports,
                "1",
                &[
                    ("img/x.png", None),
                    ("cid:img@url.example", Some("2")),
                    ("/root.html", None),
                ],
            )
        }
        "cid-forms" => expect_targets(
            reports,
            "1",
            &[
                ("cid:foo4%25foo1@bar.net", Some("2")),
                ("cid:a%2Eb@bar.net", Some("3")),
                ("CID:plain@bar.net", Some("4")),
                ("cid:nobrackets@bar.net", Some("5")),
                // No Content-ID matches it: the part labelled `Content-Location: cid:` with it
                // does (Chromium's reading, against RFC 2557 §8.3; see `PartIndex::target`).
                ("cid:label@bar.net", Some("6")),
                ("cid:missing@bar.net", None),
            ],
        ),
        "rfc822-encoded" => {
            expect_base(
                reports,
                "2.1",
                "http://enc.example/inner/page.html",
                "content-location",
            )?;
            let skipped = report(&rewritten.reports, "2.1")?
                .base
                .diagnostics
                .iter()
                .any(|d| d.code == linkbase::DiagnosticCode::PartSkipped);
            check(skipped, "the enclosed part is reported as left as it was")
        }
        "qp-raw-8bit" => {
            let part = &mime::parse(&rewritten.bytes).unwrap().parts[1];
            let body = &rewritten.bytes[part.body.clone().unwrap()];
            let decoded = qp_decode_lenient(body);
            let hello = encoding_rs::GBK.encode("你好").0.into_owned();
            check(
                decoded.windows(hello.len()).any(|w| w == hello.as_slice()),
                "the GB2312 text 你好 is still in the rewritten part",
            )
        }
        "missing-close-boundary" => {
            let diagnostics: Vec<String> = tree
                .diagnostics
                .iter()
                .map(ToString::to_string)
                .chain(all_diagnostics(reports))
                .collect();
            check(
                diagnostics
                    .iter()
                    .any(|d| d.contains("boundary") || d.contains("truncat")),
                format!("a diagnostic says the closing boundary is missing: {diagnostics:?}"),
            )
        }
        "undecodable-base64" => {
            let before = &tree.parts[1];
            let after = &mime::parse(&rewritten.bytes).unwrap().parts[1];
            let span_in = before.body.clone().unwrap();
            let span_out = after.body.clone().unwrap();
            check(
                bytes[span_in] == rewritten.bytes[span_out],
                "the undecodable part is left as it was",
            )?;
            check(
                report(reports, "1")?.links.is_empty(),
                "no links are read from undecoded base64 text",
            )?;
            check(
                !report(reports, "1")?.base.diagnostics.is_empty(),
                "a diagnostic on part 1",
            )
        }
        "eol-crlf" | "eol-lf" => Ok(()),
        _ => Err(format!(
            "no facts for fixture {stem}: add them to fixture_facts"
        )),
    }
}

#[test]
fn fixtures_match_expected() {
    let expected = Path::new(FIXTURES).join("expected");
    let files = fixture_files();
    let mut outcomes = Vec::new();
    for path in &files {
        let stem = stem(path);
        let case = format!("fixture/{stem}");
        outcomes.push(run_case(&case, || {
            let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let ext = path.extension().unwrap().to_string_lossy();
            let layers = fixture_layers(&stem);
            let reports = links(&name, &bytes, &layers)?;
            let rewritten = rewrite(&name, &bytes, &layers)?;
            let results = [
                compare_file(
                    &case,
                    &expected.join(format!("{stem}.base.jsonl")),
                    &bases_jsonl(&reports),
                    true,
                ),
                compare_file(
                    &case,
                    &expected.join(format!("{stem}.links.jsonl")),
                    &links_jsonl(&reports),
                    true,
                ),
                compare_file(
                    &case,
                    &expected.join(format!("{stem}.rewrite.{ext}")),
                    &rewritten.bytes,
                    false,
                ),
                fixture_facts(&stem, &bytes, &reports, &rewritten),
                check_rewrite(&name, &bytes, &layers),
            ];
            let errs: Vec<String> = results.into_iter().filter_map(Result::err).collect();
            check(errs.is_empty(), errs.join("\n"))
        }));
    }
    assert!(outcomes.len() >= 20, "only {} fixtures", outcomes.len());
    settle("fixture/", outcomes);
}

/// The same message in CRLF and in LF: outputs equal modulo line endings, each keeping its own.
#[test]
fn crlf_and_lf_messages_give_the_same_output() {
    let read = |f: &str| std::fs::read(Path::new(FIXTURES).join(f)).unwrap();
    let (crlf, lf) = (read("eol-crlf.eml"), read("eol-lf.eml"));
    let unix = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .replace("\r\n", "\n")
            .into_bytes()
    };
    assert_eq!(unix(&crlf), lf, "the two fixtures are one message");
    assert!(!lf.contains(&b'\r'));
    let layers = BaseLayers::default();
    let a = rewrite("eol-crlf.eml", &crlf, &layers).unwrap();
    let b = rewrite("eol-lf.eml", &lf, &layers).unwrap();
    assert_ne!(a.bytes, crlf, "something was rewritten");
    assert_eq!(unix(&a.bytes), b.bytes);
    assert!(!b.bytes.contains(&b'\r'), "LF stays LF");
    let bare_lf = a
        .bytes
        .iter()
        .enumerate()
        .any(|(k, &c)| c == b'\n' && (k == 0 || a.bytes[k - 1] != b'\r'));
    assert!(!bare_lf, "CRLF stays CRLF");
    assert_eq!(a.reports, b.reports);
}

// ---------------------------------------------------------------------------------------------
// Damaged input generated here: absurd nesting.

/// A top-level HTML part, then `depth` multiparts nested in each other, an HTML part innermost.
fn nested_multiparts(depth: usize) -> Vec<u8> {
    let mut s = String::from(
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b0x\"\r\n\r\n\
         --b0x\r\nContent-Type: text/html\r\nContent-Location: http://deep.example/top.html\r\n\r\n\
         <a href=\"x.html\">x</a>\r\n--b0x\r\n",
    );
    for i in 1..depth {
        s += &format!("Content-Type: multipart/mixed; boundary=\"b{i}x\"\r\n\r\n--b{i}x\r\n");
    }
    s += "Content-Type: text/html\r\n\r\n<a href=\"deep.html\">deep</a>\r\n";
    for i in (1..depth).rev() {
        s += &format!("--b{i}x--\r\n");
    }
    s += "--b0x--\r\n";
    s.into_bytes()
}

/// In [`nested_multiparts`], where the first part of the multipart 99 levels deep (bounded
/// `b99x`, part 2 and 98 `.1`s) starts: the first byte the nesting limit leaves unread. Found
/// by plain search.
fn first_part_of_b99x(bytes: &[u8]) -> usize {
    let line = b"\r\n--b99x\r\n";
    bytes.windows(line.len()).position(|w| w == line).unwrap() + line.len()
}

/// A top-level HTML part, then `depth` message/rfc822 parts nested in each other.
fn nested_messages(depth: usize) -> Vec<u8> {
    let mut s = String::from(
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"top\"\r\n\r\n\
         --top\r\nContent-Type: text/html\r\nContent-Location: http://deep.example/top.html\r\n\r\n\
         <a href=\"x.html\">x</a>\r\n--top\r\nContent-Type: message/rfc822\r\n\r\n",
    );
    for _ in 1..depth {
        s += "MIME-Version: 1.0\r\nContent-Type: message/rfc822\r\n\r\n";
    }
    s += "MIME-Version: 1.0\r\nContent-Type: text/html\r\n\
          Content-Location: http://deep.example/in.html\r\n\r\n<a href=\"y.html\">y</a>\r\n--top--\r\n";
    s.into_bytes()
}

/// No panic, a diagnostic about the depth, the top-level part rewritten and every other byte
/// kept.
fn check_deep(name: &str, bytes: &[u8]) -> Outcome {
    let layers = BaseLayers::default();
    let reports = links(name, bytes, &layers)?;
    check(
        !all_diagnostics(&reports).is_empty(),
        "a diagnostic about the nesting",
    )?;
    expect_targets(&reports, "1", &[("x.html", None)])?;
    check(
        report(&reports, "1")?.links[0].rewritten,
        "x.html is rewritten",
    )?;
    check_rewrite(name, bytes, &layers)
}

#[test]
fn absurd_nesting_is_survived() {
    let mut outcomes = vec![
        run_case("damaged/nested-multipart-1000", || {
            check_deep("nested-1000.eml", &nested_multiparts(1000))
        }),
        run_case("damaged/nested-rfc822-100", || {
            check_deep("nested-rfc822-100.eml", &nested_messages(100))
        }),
    ];
    // Below the bounds: everything is reached, nothing is reported.
    outcomes.push(run_case("damaged/nested-multipart-50", || {
        let bytes = nested_multiparts(50);
        let reports = links("nested-50.eml", &bytes, &BaseLayers::default())?;
        check(reports.len() == 2, "both HTML parts are reached")?;
        check_rewrite("nested-50.eml", &bytes, &BaseLayers::default())
    }));
    outcomes.push(run_case("damaged/nested-rfc822-10", || {
        let bytes = nested_messages(10);
        let reports = links("nested-rfc822-10.eml", &bytes, &BaseLayers::default())?;
        check(reports.len() == 2, "both HTML parts are reached")?;
        let inner = &reports[1];
        check(
            inner.base.base.as_deref() == Some("http://deep.example/in.html")
                && inner.links[0].rewritten,
            "the innermost part has its own base and is rewritten",
        )?;
        check_rewrite("nested-rfc822-10.eml", &bytes, &BaseLayers::default())
    }));
    settle("damaged/", outcomes);
}

/// An HTML part whose 8-bit bytes are not valid in its declared charset is
/// never re-encoded from U+FFFD text. The streaming engine copies those bytes as they
/// are, so only the link changes; the malformed bytes are reported.
#[test]
fn malformed_html_part_is_left_as_it_was() {
    let head = b"MIME-Version: 1.0\r\n\
Content-Type: text/html; charset=utf-8\r\n\
Content-Transfer-Encoding: 8bit\r\n\
Content-Location: http://h/dir/page.html\r\n\
\r\n\
<p>";
    // "Привет" in windows-1251: not UTF-8.
    let cyrillic = b"\xcf\xf0\xe8\xe2\xe5\xf2";
    let message = [&head[..], cyrillic, b"</p><a href=\"x.html\">x</a>\r\n"].concat();
    let out = rewrite("malformed.eml", &message, &BaseLayers::default()).unwrap();
    let expected = [
        &head[..],
        cyrillic,
        b"</p><a href=\"http://h/dir/x.html\">x</a>\r\n",
    ]
    .concat();
    assert_eq!(out.bytes, expected, "only the URL bytes changed");
    let links = &out.reports[0].links;
    assert_eq!(links[0].resolved.as_deref(), Some("http://h/dir/x.html"));
    assert!(links[0].rewritten);
    assert!(
        all_diagnostics(&out.reports)
            .iter()
            .any(|d| d.contains("malformed byte sequences for UTF-8 (copied as they are")),
        "{:?}",
        all_diagnostics(&out.reports)
    );
}

/// A reference with a fragment matches the part whose Content-Location is the
/// reference without it, and keeps its fragment in the resolved URL.
#[test]
fn part_matching_ignores_the_fragment() {
    let message = b"MIME-Version: 1.0\r\n\
Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"\r\n\
\r\n\
--b\r\n\
Content-Type: text/html; charset=utf-8\r\n\
Content-Location: http://h/dir/page.html\r\n\
\r\n\
<img src=\"img.png#frag\"><a href=\"page.html#top\">top</a><a href=\"other.html#x\">o</a>\r\n\
--b\r\n\
Content-Type: image/png\r\n\
Content-Location: http://h/dir/img.png\r\n\
\r\n\
PNG\r\n\
--b--\r\n";
    let reports = links("fragments.mht", message, &BaseLayers::default()).unwrap();
    let got: Vec<(String, Option<String>, Option<String>)> = reports
        .iter()
        .flat_map(|r| &r.links)
        .map(|l| {
            (
                l.original.clone(),
                l.resolved.clone(),
                l.target_part.clone(),
            )
        })
        .collect();
    let want = [
        ("img.png#frag", "http://h/dir/img.png#frag", Some("2")),
        ("page.html#top", "http://h/dir/page.html#top", Some("1")),
        ("other.html#x", "http://h/dir/other.html#x", None),
    ];
    let want: Vec<(String, Option<String>, Option<String>)> = want
        .iter()
        .map(|(o, r, t)| ((*o).into(), Some((*r).into()), t.map(Into::into)))
        .collect();
    assert_eq!(got, want);
}

/// The root is the `start` part of multipart/related (RFC 2557 §5, RFC 2387
/// §3.2), here the second part, and it is marked in the base and link records.
#[test]
fn root_is_the_start_part_and_is_marked() {
    let message = b"MIME-Version: 1.0\r\n\
Content-Type: multipart/related; boundary=\"b\"; type=\"text/html\"; start=\"<main@x>\"\r\n\
\r\n\
--b\r\n\
Content-Type: text/html\r\n\
Content-Location: http://h/frame.html\r\n\
\r\n\
<a href=\"f\">frame</a>\r\n\
--b\r\n\
Content-Type: text/html\r\n\
Content-ID: <main@x>\r\n\
Content-Location: http://h/main.html\r\n\
\r\n\
<a href=\"m\">main</a>\r\n\
--b--\r\n";
    let reports = links("start.mht", message, &BaseLayers::default()).unwrap();
    let roots: Vec<(Option<String>, Option<bool>)> = reports
        .iter()
        .map(|r| (r.base.origin.part.clone(), r.base.origin.root))
        .collect();
    assert_eq!(
        roots,
        [
            (Some("1".into()), Some(false)),
            (Some("2".into()), Some(true))
        ]
    );
    let link_roots: Vec<(String, Option<bool>)> = reports
        .iter()
        .flat_map(|r| &r.links)
        .map(|l| (l.original.clone(), l.origin.root))
        .collect();
    assert_eq!(
        link_roots,
        [("f".into(), Some(false)), ("m".into(), Some(true))]
    );
    // `base --root` prints the root's base only.
    let dir = std::env::temp_dir().join(format!("linkbase-root-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("start.mht");
    std::fs::write(&path, message).unwrap();
    let run = super::util::linkbase(
        &["base", "--root", "--format", "text", path.to_str().unwrap()],
        b"",
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "2\thttp://h/main.html\tcontent-location\n");
}

/// A message of 100,000 parts (the limit: the top-level multipart, the root page
/// and 99,998 images), each image named by a link of the root page, is read in time linear in
/// its size (each part was matched against every link: it never finished); every link names its
/// own part. The timing itself is in BENCHMARKS.md, not here.
#[test]
fn a_hundred_thousand_parts_are_each_matched() {
    let n = linkbase::input::mime::MAX_PARTS - 2;
    let mut message = String::from(
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/html\r\nContent-Location: http://h/index.html\r\n\r\n",
    );
    for i in 0..n {
        // Every other link by Content-ID, as RFC 2392 allows.
        if i % 2 == 0 {
            message += &format!("<img src=\"i/{i}.png\">\r\n");
        } else {
            message += &format!("<img src=\"cid:p{i}@h\">\r\n");
        }
    }
    for i in 0..n {
        message += &format!(
            "--b\r\nContent-Type: image/png\r\nContent-Location: http://h/i/{i}.png\r\n\
             Content-ID: <p{i}@h>\r\n\r\nPNG\r\n"
        );
    }
    message += "--b--\r\n";
    let reports = links("many.mht", message.as_bytes(), &BaseLayers::default()).unwrap();
    assert_eq!(reports.len(), 1);
    let targets: Vec<Option<&str>> = reports[0]
        .links
        .iter()
        .map(|l| l.target_part.as_deref())
        .collect();
    let want: Vec<String> = (0..n).map(|i| (i + 2).to_string()).collect();
    let want: Vec<Option<&str>> = want.iter().map(|s| Some(s.as_str())).collect();
    assert_eq!(targets, want);
}

/// Within an aggregate, the first part that matches wins, whichever form matched it: the raw
/// `cid:` form names part 3 before the %-decoded form names part 4, and the Content-Location
/// without the fragment names part 2 before the one with it names part 5 (the one-pass matcher keeps
/// the order a walk over the parts gave).
#[test]
fn the_first_matching_part_wins() {
    let message = b"MIME-Version: 1.0\r\n\
Content-Type: multipart/related; boundary=\"b\"\r\n\
\r\n\
--b\r\n\
Content-Type: text/html\r\n\
Content-Location: http://h/index.html\r\n\
\r\n\
<img src=\"cid:a%25b\"><img src=\"x.png#f\">\r\n\
--b\r\n\
Content-Location: http://h/x.png\r\n\
\r\n\
--b\r\n\
Content-ID: <a%25b>\r\n\
\r\n\
--b\r\n\
Content-ID: <a%b>\r\n\
\r\n\
--b\r\n\
Content-Location: http://h/x.png#f\r\n\
\r\n\
--b--\r\n";
    let reports = links("first.mht", message, &BaseLayers::default()).unwrap();
    expect_targets(
        &reports,
        "1",
        &[("cid:a%25b", Some("3")), ("x.png#f", Some("2"))],
    )
    .unwrap();
}

/// A part nested past the MIME nesting limit is not read; the run says which
/// part, its type and the limit with its value, counts it, and exits 1; the rest is rewritten
/// and the skipped bytes are kept as they were.
#[test]
fn a_part_nested_past_the_limit_is_said_and_exits_1() {
    let bytes = nested_multiparts(150);
    let dir = std::env::temp_dir().join(format!("linkbase-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deep.eml");
    std::fs::write(&path, &bytes).unwrap();
    let name = path.to_str().unwrap();
    let part = format!("2{}", ".1".repeat(98));
    let said = format!(
        "linkbase: {name}: part-skipped at offset {}: part {part} (multipart/mixed): nested 100 levels deep: \
         its parts (1) are not read, kept as they were (limit: MIME nesting depth 100)\n\
         linkbase: {name}: 1 part-skipped diagnostic above: what it names is kept as it was\n",
        first_part_of_b99x(&bytes)
    );
    let links = super::util::linkbase(&["links", "--format", "tsv", name], b"");
    let base = super::util::linkbase(&["base", "--format", "text", name], b"");
    let rewrite = super::util::linkbase(&["rewrite", name], b"");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((links.code, links.stderr.as_str()), (1, said.as_str()));
    assert_eq!(
        links
            .stdout
            .lines()
            .skip(1)
            .map(|l| l.split('\t').next())
            .collect::<Vec<_>>(),
        [Some("1")],
        "{}",
        links.stdout
    );
    assert_eq!((base.code, base.stderr.as_str()), (1, said.as_str()));
    assert_eq!(
        base.stdout,
        format!("1\thttp://deep.example/top.html\tcontent-location\n{part}\t\tnone\n")
    );
    assert_eq!((rewrite.code, rewrite.stderr.as_str()), (1, said.as_str()));
    let expected = String::from_utf8(bytes)
        .unwrap()
        .replace("href=\"x.html\"", "href=\"http://deep.example/x.html\"");
    assert_eq!(rewrite.stdout, expected);
}

/// In a tree run, a message with a part past a limit is said the same way, the
/// run counts such messages and exits 1; the message is still rewritten around the part.
#[test]
fn a_tree_run_says_skipped_parts_and_exits_1() {
    let bytes = nested_multiparts(150);
    let dir = std::env::temp_dir().join(format!("linkbase-deep-tree-{}", std::process::id()));
    let (site, out) = (dir.join("site"), dir.join("out"));
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("deep.eml"), &bytes).unwrap();
    let run = super::util::linkbase(
        &[
            "rewrite",
            site.to_str().unwrap(),
            "--site-url",
            "http://site.example/",
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    let written = std::fs::read(out.join("deep.eml"));
    std::fs::remove_dir_all(&dir).unwrap();
    let part = format!("2{}", ".1".repeat(98));
    assert_eq!(
        (
            run.code,
            super::util::untimed(&run.stderr)
                .replace(out.to_str().unwrap(), "OUT")
                .as_str()
        ),
        (
            1,
            format!(
                "linkbase: deep.eml: part-skipped at offset {}: part {part} (multipart/mixed): nested 100 \
                 levels deep: its parts (1) are not read, kept as they were (limit: MIME nesting \
                 depth 100)\n\
                 linkbase: deep.eml: 1 part-skipped diagnostic above: what it names is kept as it \
                 was\n\
                 linkbase: rewrite: 1 page, 1 link: 1 absolute, 0 left relative or unresolvable; 0 \
                 other files copied; 0 failed; 1 MIME message with parts left as they were or read \
                 past damage (see above); written to OUT; T s\n",
                first_part_of_b99x(&bytes)
            )
            .as_str()
        )
    );
    let expected = String::from_utf8(bytes)
        .unwrap()
        .replace("href=\"x.html\"", "href=\"http://deep.example/x.html\"");
    assert_eq!(String::from_utf8(written.unwrap()).unwrap(), expected);
}
