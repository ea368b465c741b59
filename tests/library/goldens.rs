//! Golden files for the HTML pipeline (issue 3): every case under `fixtures/html/<case>/` runs
//! through [`linkbase::pipeline::rewrite`] and [`linkbase::pipeline::links`] with the options of
//! its `meta.json`, and the output must equal `expected.html`, `expected.links.jsonl` and
//! `expected.base.json` byte for byte (see `fixtures/README.md`).
//!
//! - On a mismatch the actual output is written beside the expected file as `<file>.actual`.
//! - `LINKBASE_BLESS=1` rewrites the expected files from the actual output (never for a case in
//!   the ledger). Bless is a convenience: read every blessed file against HTML-RULES.
//! - `fixtures/html/KNOWN_FAILURES.txt` is the ledger of cases known to fail (the library is
//!   wrong, the fixture is right). A listed case that passes fails the suite.
//! - `LINKBASE_GOLDEN=<substring>` runs only the cases whose name contains it.
//! - Every output is re-parsed and its tree compared with the input's (HTML-RULES §6): same
//!   elements and attributes in the same order, same text, and every changed attribute value
//!   accounted for by a rewritten link of the report (`iframe srcdoc` and `<noscript>` contents
//!   are compared as documents of their own; `<meta>` charset declarations may follow
//!   `output_charset`).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use linkbase::dom::{AttrNs, Document, ElementNs, ElementRef};
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::report::{write_jsonl, LinkRecord};
use linkbase::{BaseLayers, HeaderBase, Headers, Profile, ResolveOptions, RewriteOptions};
use serde::Deserialize;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/html");
const LEDGER: &str = "KNOWN_FAILURES.txt";
const MIN_CASES: usize = 40;

/// `meta.json`: what is known about the document from outside, and the options of the run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    /// Which HTML-RULES section the case exercises.
    about: String,
    /// Where a real document came from (package, version, path): for people, not the run.
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
    /// `--url`: the retrieval URI.
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    content_base: Option<String>,
    #[serde(default)]
    content_location: Option<String>,
    #[serde(default)]
    default_base: Option<String>,
    /// `--header 'Name: value'`, in order.
    #[serde(default)]
    headers: Vec<String>,
    /// `--headers FILE`: a raw header block in the case directory.
    #[serde(default)]
    headers_file: Option<String>,
    /// `--header-base entity|browser`.
    #[serde(default)]
    header_base: Option<String>,
    /// `--charset`: the transport charset.
    #[serde(default)]
    charset: Option<String>,
    /// `--output-charset`.
    #[serde(default)]
    output_charset: Option<String>,
    /// `--profile`.
    #[serde(default)]
    profile: Option<String>,
    /// `--drop-base`.
    #[serde(default)]
    drop_base: bool,
}

/// The inputs of one case, as the CLI's `load` builds them.
struct Prepared {
    bytes: Vec<u8>,
    layers: BaseLayers,
    charset: Option<String>,
    diagnostics: Vec<linkbase::Diagnostic>,
    resolve: ResolveOptions,
    output_encoding: Option<&'static encoding_rs::Encoding>,
    drop_base: bool,
}

impl Prepared {
    fn input<'a>(&'a self, name: &'a str) -> HtmlInput<'a> {
        HtmlInput {
            name,
            bytes: &self.bytes,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }
}

fn prepare(dir: &Path, meta: &Meta) -> Result<Prepared, String> {
    let bytes = std::fs::read(dir.join("input.html")).map_err(|e| format!("input.html: {e}"))?;
    let mut headers = match &meta.headers_file {
        Some(file) => {
            let raw = std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
            Headers::parse(&String::from_utf8_lossy(&raw))
        }
        None => Headers::new(),
    };
    for line in &meta.headers {
        if !headers.push_line(line) {
            return Err(format!(
                "meta.json headers: {line:?} is not \"Name: value\""
            ));
        }
    }
    let mut layers = BaseLayers {
        content_base: meta.content_base.clone(),
        content_location: meta.content_location.clone(),
        retrieval_uri: meta.url.clone(),
        default_base: meta.default_base.clone(),
    };
    let mode = match meta.header_base.as_deref() {
        None | Some("entity") => HeaderBase::Entity,
        Some("browser") => HeaderBase::Browser,
        Some(other) => return Err(format!("meta.json header_base: {other:?}")),
    };
    let diagnostics = layers.add_headers(&headers, mode);
    let charset = meta.charset.clone().or_else(|| {
        headers
            .get("Content-Type")
            .and_then(linkbase::decode::charset_from_content_type)
    });
    let profile = match &meta.profile {
        Some(p) => p
            .parse::<Profile>()
            .map_err(|e| format!("meta.json profile {p:?}: {e:?}"))?,
        None => Profile::default(),
    };
    let output_encoding = match &meta.output_charset {
        Some(label) => Some(
            encoding_rs::Encoding::for_label(label.as_bytes())
                .ok_or_else(|| format!("meta.json output_charset {label:?}: not a label"))?,
        ),
        None => None,
    };
    Ok(Prepared {
        bytes,
        layers,
        charset,
        diagnostics,
        resolve: ResolveOptions::for_profile(profile),
        output_encoding,
        drop_base: meta.drop_base,
    })
}

/// The three outputs of a case, and the report of the rewrite run (for the tree check).
struct Actual {
    html: Vec<u8>,
    links: Vec<u8>,
    base: Vec<u8>,
    rewrite_links: Vec<LinkRecord>,
}

fn run(name: &str, p: &Prepared) -> Result<Actual, String> {
    // `rewrite` with the case's options; `links` and `base` as the CLI runs them (no
    // --drop-base, no --output-charset: those are rewrite's options).
    let rewrite_options = Options {
        rewrite: RewriteOptions {
            resolve: p.resolve,
            drop_base: p.drop_base,
            relink: None,
        },
        output_encoding: p.output_encoding,
        ..Options::default()
    };
    let report_options = Options {
        rewrite: RewriteOptions {
            resolve: p.resolve,
            drop_base: false,
            relink: None,
        },
        ..Options::default()
    };
    let rewritten =
        pipeline::rewrite(&p.input(name), &rewrite_options).map_err(|e| format!("rewrite: {e}"))?;
    let report =
        pipeline::links(&p.input(name), &report_options).map_err(|e| format!("links: {e}"))?;
    let mut links = Vec::new();
    write_jsonl(&mut links, &report.links).map_err(|e| e.to_string())?;
    let mut base = Vec::new();
    write_jsonl(&mut base, std::slice::from_ref(&report.base)).map_err(|e| e.to_string())?;
    Ok(Actual {
        html: rewritten.bytes,
        links,
        base,
        rewrite_links: rewritten.report.links,
    })
}

/// The first difference between two byte strings, with some context, for the failure message.
fn short_diff(expected: &[u8], actual: &[u8]) -> String {
    let at = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let line = 1 + expected[..at].iter().filter(|&&b| b == b'\n').count();
    let window = |s: &[u8]| {
        let from = at.saturating_sub(60);
        let to = (at + 100).min(s.len());
        s.get(from..to)
            .unwrap_or_default()
            .escape_ascii()
            .to_string()
    };
    format!(
        "first difference at byte {at} (line {line}; expected {} bytes, actual {} bytes)\n      expected: …{}…\n      actual:   …{}…",
        expected.len(),
        actual.len(),
        window(expected),
        window(actual)
    )
}

/// A document's text for the tree check: decoded as the pipeline decodes it.
fn parse_bytes(bytes: &[u8], label: Option<&str>) -> Result<Document, String> {
    let decoded = linkbase::decode::decode(bytes, label).map_err(|e| e.to_string())?;
    Document::parse(&decoded.text).map_err(|e| e.to_string())
}

/// A rewritten link of the report: what was written, and what replaced it.
#[derive(Debug, Clone)]
struct Change {
    original: String,
    resolved: String,
}

/// Rewritten links not yet matched to a changed attribute or text, by
/// (srcdoc depth, element, attribute), in document order.
type Pending = HashMap<(usize, String, Option<String>), VecDeque<Change>>;

fn attr_name(ns: AttrNs, name: &str) -> String {
    match ns {
        AttrNs::XLink => format!("xlink:{name}"),
        AttrNs::Xml => format!("xml:{name}"),
        _ => name.to_owned(),
    }
}

fn attrs(e: &ElementRef) -> Vec<(String, String)> {
    let mut out = Vec::new();
    e.for_each_attr(|ns, name, value| out.push((attr_name(ns, name), value.to_owned())));
    out
}

/// HTML-RULES §6: the output's tree is the input's, rewritten values aside.
fn compare_trees(
    input: &Document,
    output: &Document,
    depth: usize,
    drop_base: bool,
    output_charset: Option<&str>,
    pending: &mut Pending,
    problems: &mut Vec<String>,
) {
    let mut ins: Vec<&ElementRef> = input.elements().iter().collect();
    if drop_base {
        // The chosen <base> (the first HTML one with href, outside templates) is removed.
        if let Some(i) = ins.iter().position(|e| {
            e.ns() == ElementNs::Html
                && e.name() == "base"
                && !e.in_template()
                && e.attr("href").is_some()
        }) {
            ins.remove(i);
            take(pending, depth, "base", Some("href"));
        }
    }
    let outs: Vec<&ElementRef> = output.elements().iter().collect();
    if ins.len() != outs.len() {
        problems.push(format!(
            "depth {depth}: {} elements in the input, {} in the output",
            ins.len(),
            outs.len()
        ));
    }
    for (a, b) in ins.iter().zip(&outs) {
        let here = format!("depth {depth}, <{}> #{}", a.name(), a.id().0);
        if (a.name(), a.ns(), a.in_template()) != (b.name(), b.ns(), b.in_template()) {
            problems.push(format!("{here}: became <{}> ({:?})", b.name(), b.ns()));
            return;
        }
        let (a_attrs, b_attrs) = (attrs(a), attrs(b));
        let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        if names(&a_attrs) != names(&b_attrs) {
            problems.push(format!(
                "{here}: attributes {:?} became {:?}",
                names(&a_attrs),
                names(&b_attrs)
            ));
            continue;
        }
        for ((name, old), (_, new)) in a_attrs.iter().zip(&b_attrs) {
            if old == new {
                continue;
            }
            if a.name() == "iframe" && name == "srcdoc" {
                match (Document::parse(old), Document::parse(new)) {
                    (Ok(i), Ok(o)) => {
                        compare_trees(&i, &o, depth + 1, false, None, pending, problems)
                    }
                    _ => problems.push(format!("{here}: srcdoc does not parse")),
                }
                continue;
            }
            if output_charset.is_some_and(|label| declares_charset(a, name, new, label)) {
                // Declared difference: <meta> charset declarations follow --output-charset.
                continue;
            }
            let style = name == "style";
            if let Err(why) = account(pending, depth, a.name(), Some(name), old, new, style) {
                problems.push(format!("{here} @{name}: {old:?} → {new:?}: {why}"));
            }
        }
        let (old, new) = (a.text(), b.text());
        if old != new && a.name() == "noscript" {
            // Parsed as text (scripting on), but markup for consumers without scripting.
            match (Document::parse(&old), Document::parse(&new)) {
                (Ok(i), Ok(o)) => compare_trees(&i, &o, depth, false, None, pending, problems),
                _ => problems.push(format!("{here}: noscript contents do not parse")),
            }
        } else if old != new {
            let css = a.name() == "style";
            if !css || account(pending, depth, a.name(), None, &old, &new, true).is_err() {
                problems.push(format!("{here}: text {old:?} became {new:?}"));
            }
        }
    }
}

/// A `<meta charset>` or `<meta http-equiv=content-type content>` now naming `label`.
fn declares_charset(e: &ElementRef, attribute: &str, new: &str, label: &str) -> bool {
    let content_type = e
        .attr("http-equiv")
        .is_some_and(|h| h.trim().eq_ignore_ascii_case("content-type"));
    e.name() == "meta"
        && (attribute == "charset" || (attribute == "content" && content_type))
        && new
            .to_ascii_lowercase()
            .contains(&label.to_ascii_lowercase())
}

fn take(pending: &mut Pending, depth: usize, element: &str, attribute: Option<&str>) {
    let key = (depth, element.to_owned(), attribute.map(str::to_owned));
    if let Some(q) = pending.get_mut(&key) {
        q.pop_front();
    }
}

/// Explains a changed value by the next rewritten links of the report for that element and
/// attribute: putting each link's original back where its resolved form stands must give the
/// old value. CSS is re-quoted and re-escaped as needed, so there the resolved forms must appear
/// in order instead.
fn account(
    pending: &mut Pending,
    depth: usize,
    element: &str,
    attribute: Option<&str>,
    old: &str,
    new: &str,
    css: bool,
) -> Result<(), String> {
    let key = (depth, element.to_owned(), attribute.map(str::to_owned));
    let queue = pending.entry(key).or_default();
    if queue.is_empty() {
        return Err("changed, but the report has no rewritten link for it".into());
    }
    // CSS escapes (`\(`) are the serializer's business: compare without backslashes there.
    let unescaped = new.replace('\\', "");
    let mut rebuilt = String::new();
    let mut rest = if css { unescaped.as_str() } else { new };
    while let Some(link) = queue.front().cloned() {
        let mut resolved = link.resolved.clone();
        if css {
            resolved = resolved.replace('\\', "");
        }
        let Some(at) = rest.find(&resolved) else {
            if css && !rebuilt.is_empty() {
                // The rest of the queue belongs to later values.
                return Ok(());
            }
            return Err(format!(
                "the report's next rewritten link ({:?} → {resolved:?}) is not in the new value",
                link.original
            ));
        };
        queue.pop_front();
        let len = resolved.len();
        rebuilt.push_str(&rest[..at]);
        rebuilt.push_str(if css { "url" } else { &link.original });
        rest = &rest[at + len..];
        if !css && format!("{rebuilt}{rest}") == old {
            return Ok(());
        }
    }
    if css || format!("{rebuilt}{rest}") == old {
        Ok(())
    } else {
        Err(format!(
            "the report's links do not explain the change (rebuilt {:?})",
            format!("{rebuilt}{rest}")
        ))
    }
}

fn tree_check(p: &Prepared, actual: &Actual) -> Vec<String> {
    let mut problems = Vec::new();
    let input = parse_bytes(&p.bytes, p.charset.as_deref());
    let out_label = p.output_encoding.map(|e| e.name()).or(p.charset.as_deref());
    let output = parse_bytes(&actual.html, out_label);
    let (input, output) = match (input, output) {
        (Ok(i), Ok(o)) => (i, o),
        (i, o) => {
            return vec![format!(
                "re-parse failed: input {:?}, output {:?}",
                i.err(),
                o.err()
            )]
        }
    };
    let mut pending = Pending::new();
    for link in actual.rewrite_links.iter().filter(|l| l.rewritten) {
        pending
            .entry((
                link.srcdoc_depth,
                link.element.clone(),
                link.attribute.clone(),
            ))
            .or_default()
            .push_back(Change {
                original: link.original.clone(),
                resolved: link.resolved.clone().unwrap_or_default(),
            });
    }
    let output_charset = p.output_encoding.map(|e| e.name());
    compare_trees(
        &input,
        &output,
        0,
        p.drop_base,
        output_charset,
        &mut pending,
        &mut problems,
    );
    for ((depth, element, attribute), left) in pending {
        for l in left {
            problems.push(format!(
                "depth {depth}: the report says <{element}> {attribute:?} {:?} was rewritten to {:?}, but the output's tree does not show it",
                l.original, l.resolved
            ));
        }
    }
    problems
}

fn read_ledger() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(Path::new(ROOT).join(LEDGER)).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((name, why)) => (name.to_owned(), why.trim().to_owned()),
            None => (l.to_owned(), String::new()),
        })
        .collect()
}

fn case_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(ROOT)
        .unwrap_or_else(|e| panic!("{ROOT}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Runs one case; returns its problems (empty: it passes).
fn check_case(dir: &Path, bless: bool) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let meta: Meta = match std::fs::read_to_string(dir.join("meta.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => return vec![format!("meta.json: {e}")],
    };
    if meta.about.trim().is_empty() {
        return vec!["meta.json: \"about\" must say which rule the case exercises".into()];
    }
    let prepared = match prepare(dir, &meta) {
        Ok(p) => p,
        Err(e) => return vec![e],
    };
    let actual = match run(&format!("{name}/input.html"), &prepared) {
        Ok(a) => a,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    for (file, bytes) in [
        ("expected.html", &actual.html),
        ("expected.links.jsonl", &actual.links),
        ("expected.base.json", &actual.base),
    ] {
        let path = dir.join(file);
        let side = dir.join(format!("{file}.actual"));
        if bless {
            std::fs::write(&path, bytes).unwrap();
        }
        match std::fs::read(&path) {
            Ok(expected) if &expected == bytes => {
                let _ = std::fs::remove_file(&side);
            }
            Ok(expected) => {
                std::fs::write(&side, bytes).unwrap();
                problems.push(format!("{file}: {}", short_diff(&expected, bytes)));
            }
            Err(e) => {
                std::fs::write(&side, bytes).unwrap();
                problems.push(format!("{file}: {e} (actual output in {file}.actual)"));
            }
        }
    }
    problems.extend(
        tree_check(&prepared, &actual)
            .into_iter()
            .map(|p| format!("tree: {p}")),
    );
    problems
}

#[test]
fn html_goldens() {
    let bless = std::env::var_os("LINKBASE_BLESS").is_some_and(|v| v == "1");
    let filter = std::env::var("LINKBASE_GOLDEN").unwrap_or_default();
    let ledger = read_ledger();
    let dirs = case_dirs();
    assert!(
        dirs.len() >= MIN_CASES,
        "{ROOT}: {} cases, expected at least {MIN_CASES}",
        dirs.len()
    );
    let names: BTreeSet<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut report = String::new();
    let mut failed = 0;
    for stale in ledger.keys().filter(|k| !names.contains(*k)) {
        failed += 1;
        writeln!(report, "{LEDGER}: {stale:?} names no case").unwrap();
    }
    let (mut ran, mut expected_failures) = (0, 0);
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !name.contains(&filter) {
            continue;
        }
        ran += 1;
        let known = ledger.get(&name);
        let problems = check_case(dir, bless && known.is_none());
        match (known, problems.is_empty()) {
            (None, true) => {}
            (Some(_), false) => expected_failures += 1,
            (None, false) => {
                failed += 1;
                writeln!(report, "FAIL {name}").unwrap();
                for p in problems {
                    writeln!(report, "    {p}").unwrap();
                }
            }
            (Some(why), true) => {
                failed += 1;
                writeln!(
                    report,
                    "UNEXPECTED PASS {name} (listed in {LEDGER}: {why}); remove it from the ledger"
                )
                .unwrap();
            }
        }
    }
    assert!(ran > 0, "LINKBASE_GOLDEN={filter:?} matches no case");
    eprintln!(
        "html goldens: {ran} run, {expected_failures} known failures, {failed} failed{}",
        if bless { " (blessed)" } else { "" }
    );
    assert!(failed == 0, "{failed} golden case(s) failed:\n{report}");
}

/// The tree check is itself checked: it accepts an explained change and catches the rest.
#[test]
fn tree_check_catches_unexplained_changes() {
    let check = |input: &str, output: &str, links: &[(&str, &str, &str)]| {
        let mut pending = Pending::new();
        for (element, attribute, original) in links {
            pending
                .entry((0, (*element).to_owned(), Some((*attribute).to_owned())))
                .or_default()
                .push_back(Change {
                    original: (*original).to_owned(),
                    resolved: format!("http://h/{original}"),
                });
        }
        let mut problems = Vec::new();
        let (i, o) = (
            Document::parse(input).unwrap(),
            Document::parse(output).unwrap(),
        );
        compare_trees(&i, &o, 0, false, None, &mut pending, &mut problems);
        problems.extend(pending.values().flatten().map(|c| format!("left: {c:?}")));
        problems
    };
    let a = [("a", "href", "x")];
    assert_eq!(
        check("<a href=x>t</a>", "<a href='http://h/x'>t</a>", &a),
        Vec::<String>::new()
    );
    let s = [("img", "srcset", "a.png"), ("img", "srcset", "b.png")];
    let srcset = check(
        "<img srcset='a.png 1x, b.png 2x'>",
        "<img srcset='http://h/a.png 1x, http://h/b.png 2x'>",
        &s,
    );
    assert_eq!(srcset, Vec::<String>::new());
    // Caught: a value the links do not explain, a change without a link, a renamed element, a
    // lost attribute, changed text, and a rewritten link the output does not show.
    assert!(!check("<a href=x>t</a>", "<a href='http://h/y'>t</a>", &a).is_empty());
    assert!(!check("<a id=x>t</a>", "<a id='http://h/x'>t</a>", &[]).is_empty());
    assert!(!check("<a href=x>t</a>", "<b href=x>t</b>", &[]).is_empty());
    assert!(!check("<a href=x id=i>t</a>", "<a href=x>t</a>", &[]).is_empty());
    assert!(!check("<a href=x>t</a>", "<a href=x>u</a>", &[]).is_empty());
    assert!(!check("<a href=x>t</a>", "<a href=x>t</a>", &a).is_empty());
}
