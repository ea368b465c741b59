//! Golden files for the HTML pipeline: every case under
//! `fixtures/html/<case>/` runs with the options of its `meta.json`, and the output must equal
//! `expected.html`, `expected.links.jsonl` and `expected.base.json` byte for byte (see
//! `fixtures/README.md`). Each case is a set of named trials, `<case>/<variant>`, lol_html's test
//! matrix (every case, both engines, many chunkings, every encoding the input can be written in):
//!
//! | variant | what runs | what must hold |
//! | --- | --- | --- |
//! | `stream` | [`pipeline::rewrite`] / [`pipeline::links`], default engine, in memory | the three files; the tree check (below) |
//! | `dom` | the same with `EngineChoice::Dom` | the links and base files, and the tree check |
//! | `dom-bytes` | the same | `expected.html` (apart, so the ledger can list the DOM engine's bytes without hiding its report) |
//! | `chunks-1`, `chunks-61`, `chunks-random`, `chunks-whole` | the streaming entry of [`pipeline::rewrite_path`] / [`pipeline::links_path`] fed by a reader returning at most 1, 61, a seeded pseudo-random 1–128 (per read), or all bytes per read; but for `chunks-1`, [`pipeline::rewrite_path_rewinding`]'s too | the three files; the tree check; the same engine as in memory; the rewinding entry's bytes and engine the same |
//! | `windows-1252`, `ISO-8859-2` | the input transcoded, read with that transport charset | `expected.html` transcoded; the links; the base record but its encoding |
//! | `UTF-16LE` | the input transcoded, with a byte order mark | the links; the base record but its encoding; the bytes (below) |
//!
//! Why this matrix:
//! - Chunks: the streaming engine keeps state across chunk boundaries (its tag scanner resumes
//!   mid-tag, attribute values are read from held bytes, `<style>`/`<noscript>` text is held):
//!   1 byte puts a boundary everywhere; 61 (odd, prime) crosses every construct at varying
//!   offsets, as the unit tests and fuzz targets do; random finds what fixed steps line up with;
//!   whole is the reader path with no boundary. In-memory runs (`stream`) scan in 64 KiB steps.
//! - Encodings: only where the result is determined: the case names no charset of its own (no
//!   `charset`, `output_charset`, Content-Type charset or byte order mark), its input decodes
//!   without error as UTF-8 or windows-1252, and every link's `original` is ASCII (a non-ASCII
//!   query is encoded in the document's encoding, so it would differ by design). windows-1252 and
//!   ISO-8859-2 are ASCII-compatible single-byte encodings that keep the streaming engine (bytes
//!   spliced): the output must be the golden in that encoding, when every character of input
//!   and golden is representable there (else the variant is not generated). UTF-16 goes to the
//!   DOM engine (lol_html cannot read it), which serializes the tree when a URL changes: then
//!   the output must be the original document written with `--output-charset UTF-16LE`, but for
//!   the byte order mark the input had and the labels of `<meta>` charset declarations (masked
//!   on both sides: written so they name the output encoding, read so they stay as they were);
//!   when nothing changes, the input's bytes, i.e. the golden in UTF-16LE.
//! - The engine that ran is not output: a `dom-engine` diagnostic ("the DOM engine handled this
//!   document: …") is left out of the base record where the variant chose the engine or the
//!   encoding (`dom`, the encodings).
//!
//! - On a mismatch the actual output is written beside the expected file as `<file>.actual`
//!   (`<file>.<variant>.actual` for the other variants).
//! - `LINKBASE_BLESS=1` runs only the `stream` trials and rewrites the expected files from their
//!   output (never for a trial in the ledger). Bless is a convenience: read every blessed file
//!   against docs/html-rules.md.
//! - `fixtures/html/KNOWN_FAILURES.txt` is the ledger of trials known to fail (the library is
//!   wrong, the fixture is right), in the one ledger format (`common/ledger.rs`).
//! - One case: `cargo test --test goldens -- base-in-svg`; one variant: `-- /chunks-1`.
//! - Every output is re-parsed and its tree compared with the input's (`goldens/tree.rs`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/ledger.rs"]
mod ledger;
#[path = "goldens/tree.rs"]
mod tree;
#[path = "goldens/chunked.rs"]
mod chunked;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use encoding_rs::{Encoding, ISO_8859_2, UTF_16LE, UTF_8, WINDOWS_1252};
use libtest_mimic::{Arguments, Failed, Trial};
use linkbase::pipeline::{self, EngineChoice, HtmlInput, Options, PathInput};
use linkbase::report::{write_jsonl, LinkRecord};
use linkbase::{BaseLayers, HeaderBase, Headers, Profile, ResolveOptions, RewriteOptions};
use serde::Deserialize;
use serde_json::Value;

use chunked::{chunked_reader_reads_in_the_sizes_asked, run_chunked, seed, Chunking};
use ledger::Ledger;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/html");
const LEDGER: &str = "KNOWN_FAILURES.txt";
const MIN_CASES: usize = 40;

/// `meta.json`: what is known about the document from outside, and the options of the run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    /// Which section of docs/html-rules.md the case exercises.
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
#[derive(Clone)]
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

impl Prepared {
    /// The options of `rewrite` (the case's), and of `links` and `base` as the CLI runs them
    /// (no --drop-base, no --output-charset: those are rewrite's options).
    fn options(&self, engine: EngineChoice) -> (Options, Options) {
        let rewrite = Options {
            rewrite: RewriteOptions {
                resolve: self.resolve,
                drop_base: self.drop_base,
                relink: None,
            },
            output_encoding: self.output_encoding,
            engine,
            ..Options::default()
        };
        let report = Options {
            rewrite: RewriteOptions {
                resolve: self.resolve,
                drop_base: false,
                relink: None,
            },
            engine,
            ..Options::default()
        };
        (rewrite, report)
    }
}

/// The three outputs of a case, and the report of the rewrite run (for the tree check).
struct Actual {
    html: Vec<u8>,
    links: Vec<LinkRecord>,
    base: linkbase::BaseRecord,
    rewrite_links: Vec<LinkRecord>,
    /// How `rewrite` wrote it.
    engine: pipeline::Engine,
}

/// In memory, through `engine`.
fn run(name: &str, p: &Prepared, engine: EngineChoice) -> Result<Actual, String> {
    let (rewrite_options, report_options) = p.options(engine);
    let rewritten =
        pipeline::rewrite(&p.input(name), &rewrite_options).map_err(|e| format!("rewrite: {e}"))?;
    let report =
        pipeline::links(&p.input(name), &report_options).map_err(|e| format!("links: {e}"))?;
    Ok(Actual {
        html: rewritten.bytes,
        links: report.links,
        base: report.base,
        rewrite_links: rewritten.report.links,
        engine: rewritten.engine,
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

fn jsonl(records: &[impl serde::Serialize]) -> Vec<u8> {
    let mut out = Vec::new();
    write_jsonl(&mut out, records).unwrap();
    out
}

/// `text` with the label after every `charset=` (any case, quoted or not) replaced by `*`.
fn mask_charsets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.to_ascii_lowercase().find("charset=") {
        let (before, after) = rest.split_at(at + "charset=".len());
        out.push_str(before);
        let quote = after.starts_with(['"', '\'']);
        let label = after[usize::from(quote)..]
            .find(|c: char| c == '"' || c == '\'' || c == '>' || c == ';' || c.is_whitespace())
            .map_or(after.len(), |n| n + usize::from(quote));
        out.push_str(&after[..usize::from(quote)]);
        out.push('*');
        rest = &after[label..];
    }
    out.push_str(rest);
    out
}

/// A base record's JSON without its `dom-engine` diagnostic (see the module's notes).
fn without_engine(mut record: Value) -> Value {
    if let Some(d) = record["diagnostics"].as_array_mut() {
        d.retain(|d| d["code"] != "dom-engine");
    }
    record
}

fn json_line(record: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(record).unwrap();
    line.push(b'\n');
    line
}

fn parse_json(bytes: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("expected.base.json: {e}"))
}

/// A golden case, loaded.
struct Case {
    name: String,
    dir: PathBuf,
    prepared: Prepared,
    /// The encoding the input decodes in, when it names none of its own and decodes cleanly as
    /// UTF-8 or windows-1252 (the encodings' precondition).
    plain: Option<&'static Encoding>,
}

impl Case {
    fn read(&self, file: &str) -> Result<Vec<u8>, String> {
        std::fs::read(self.dir.join(file)).map_err(|e| format!("{file}: {e}"))
    }

    /// Compares `actual` with `file`; on a mismatch writes it beside (`<file>[.<variant>].actual`).
    fn compare(&self, file: &str, variant: &str, expected: &[u8], actual: &[u8]) -> Option<String> {
        let side = if variant == "stream" {
            format!("{file}.actual")
        } else {
            format!("{file}.{variant}.actual")
        };
        let side = self.dir.join(side);
        if expected == actual {
            let _ = std::fs::remove_file(&side);
            return None;
        }
        std::fs::write(&side, actual).unwrap();
        Some(format!("{file}: {}", short_diff(expected, actual)))
    }

    fn tree_check(&self, p: &Prepared, html: &[u8], links: &[LinkRecord]) -> Vec<String> {
        tree::tree_check(
            &p.bytes,
            p.charset.as_deref(),
            html,
            p.output_encoding,
            p.drop_base,
            links,
        )
        .into_iter()
        .map(|p| format!("tree: {p}"))
        .collect()
    }

    /// The three files against `actual` (and the tree check); `bless` writes them first.
    fn check(&self, variant: &str, actual: &Actual, engine: bool, bless: bool) -> Vec<String> {
        let outputs = [
            ("expected.html", actual.html.clone()),
            ("expected.links.jsonl", jsonl(&actual.links)),
            (
                "expected.base.json",
                jsonl(std::slice::from_ref(&actual.base)),
            ),
        ];
        let mut problems = Vec::new();
        for (file, bytes) in outputs {
            if bless {
                std::fs::write(self.dir.join(file), &bytes).unwrap();
            }
            let (expected, bytes) = match self.read(file) {
                Ok(e) if engine || file != "expected.base.json" => (e, bytes),
                Ok(e) => match (parse_json(&e), parse_json(&bytes)) {
                    (Ok(e), Ok(a)) => {
                        (json_line(&without_engine(e)), json_line(&without_engine(a)))
                    }
                    (e, a) => {
                        problems.extend(e.err().into_iter().chain(a.err()));
                        continue;
                    }
                },
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            problems.extend(
                self.compare(file, variant, &expected, &bytes)
                    .map(|p| match file {
                        "expected.html" => format!("{p}\n      written by {:?}", actual.engine),
                        _ => p,
                    }),
            );
        }
        problems.extend(self.tree_check(&self.prepared, &actual.html, &actual.rewrite_links));
        problems
    }

    fn run_variant(&self, variant: &Variant, bless: bool) -> Result<(), String> {
        let name = format!("{}/input.html", self.name);
        let tag = variant.name();
        let problems = match *variant {
            Variant::Stream => {
                let actual = run(&name, &self.prepared, EngineChoice::Auto)?;
                self.check(&tag, &actual, true, bless)
            }
            Variant::Dom => {
                // The report (links, base) and the tree; the bytes are `dom-bytes`.
                let actual = run(&name, &self.prepared, EngineChoice::Dom)?;
                self.check(&tag, &actual, false, false)
                    .into_iter()
                    .filter(|p| !p.starts_with("expected.html:"))
                    .collect()
            }
            Variant::DomBytes => {
                let actual = run(&name, &self.prepared, EngineChoice::Dom)?;
                self.check(&tag, &actual, false, false)
                    .into_iter()
                    .filter(|p| p.starts_with("expected.html:"))
                    .collect()
            }
            Variant::Chunks(chunking) => {
                let actual = run_chunked(&name, &self.prepared, chunking)?;
                let mut problems = self.check(&tag, &actual, true, false);
                // The same engine as in memory (the chunks reached the streaming engine).
                let in_memory = run(&name, &self.prepared, EngineChoice::Auto)?.engine;
                if actual.engine != in_memory {
                    problems.push(format!(
                        "written by {:?}, in memory by {in_memory:?}",
                        actual.engine
                    ));
                }
                problems
            }
            Variant::Encoding(encoding) => self.check_encoding(&name, &tag, encoding)?,
        };
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }

    /// The case with its input written in `encoding` (see the module's notes).
    fn check_encoding(
        &self,
        name: &str,
        tag: &str,
        encoding: &'static Encoding,
    ) -> Result<Vec<String>, String> {
        let Some(source) = self.plain else {
            return Err("not eligible".into());
        };
        let p = &self.prepared;
        let text = source.decode_without_bom_handling(&p.bytes).0;
        let mut problems = Vec::new();
        let mut transcoded = Prepared {
            bytes: encode(&text, encoding)?,
            ..p.clone()
        };
        if encoding != UTF_16LE {
            transcoded.charset = Some(encoding.name().to_owned());
        }
        let actual = run(name, &transcoded, EngineChoice::Auto)?;
        let links = self.read("expected.links.jsonl")?;
        problems.extend(self.compare("expected.links.jsonl", tag, &links, &jsonl(&actual.links)));
        // The base record, but its encoding: that is the variant's.
        let expected = without_engine(parse_json(&self.read("expected.base.json")?)?);
        let mut base = without_engine(serde_json::to_value(&actual.base).unwrap());
        if base["encoding"] != encoding.name() {
            problems.push(format!(
                "encoding {} (expected {})",
                base["encoding"],
                encoding.name()
            ));
        }
        base["encoding"] = expected["encoding"].clone();
        base["encoding_source"] = expected["encoding_source"].clone();
        problems.extend(self.compare(
            "expected.base.json",
            tag,
            &json_line(&expected),
            &json_line(&base),
        ));
        let golden = source
            .decode_without_bom_handling(&self.read("expected.html")?)
            .0
            .into_owned();
        let serialized = matches!(actual.engine, pipeline::Engine::Serialize(_));
        let (html, actual_html) = match encoding == UTF_16LE && serialized {
            true => {
                // Serialized (UTF-16 always is, when a URL changes): the original document
                // written in that encoding (--output-charset) is the same document.
                let (options, _) = p.options(EngineChoice::Auto);
                let options = Options {
                    output_encoding: Some(encoding),
                    ..options
                };
                let written = pipeline::rewrite(&p.input(name), &options)
                    .map_err(|e| format!("--output-charset {}: {e}", encoding.name()))?
                    .bytes;
                // Written so, UTF-16 has no byte order mark (read so, the input's is kept), and
                // `<meta>` charset declarations name the output encoding (read so, they stay as
                // written): the one difference allowed, so labels are masked on both sides.
                let mut expected = encode("", encoding)?;
                expected.extend(written);
                let mask = |bytes: &[u8]| {
                    let text = encoding.decode_without_bom_handling(bytes).0;
                    encode(&mask_charsets(&text), encoding)
                };
                (mask(&expected)?, mask(&actual.html)?)
            }
            false => (encode(&golden, encoding)?, actual.html.clone()),
        };
        problems.extend(self.compare("expected.html", tag, &html, &actual_html));
        problems.extend(
            tree::tree_check(
                &transcoded.bytes,
                transcoded.charset.as_deref(),
                &actual.html,
                None,
                p.drop_base,
                &actual.rewrite_links,
            )
            .into_iter()
            .map(|p| format!("tree: {p}")),
        );
        Ok(problems)
    }
}

/// `text` in `encoding` (UTF-16LE by hand: encoding_rs encodes to it as UTF-8); `Err` when a
/// character is not representable.
fn encode(text: &str, encoding: &'static Encoding) -> Result<Vec<u8>, String> {
    if encoding == UTF_16LE {
        let mut out = vec![0xFF, 0xFE];
        out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        return Ok(out);
    }
    let (bytes, _, unmappable) = encoding.encode(text);
    if unmappable {
        return Err(format!("not representable in {}", encoding.name()));
    }
    Ok(bytes.into_owned())
}

/// One column of the matrix.
#[derive(Debug, Clone, Copy)]
enum Variant {
    Stream,
    Dom,
    DomBytes,
    Chunks(Chunking),
    Encoding(&'static Encoding),
}

impl Variant {
    fn name(&self) -> String {
        match self {
            Variant::Stream => "stream".into(),
            Variant::Dom => "dom".into(),
            Variant::DomBytes => "dom-bytes".into(),
            Variant::Chunks(Chunking::Bytes(n)) => format!("chunks-{n}"),
            Variant::Chunks(Chunking::Random(_)) => "chunks-random".into(),
            Variant::Chunks(Chunking::Whole) => "chunks-whole".into(),
            Variant::Encoding(e) => e.name().into(),
        }
    }
}

/// The variants of a case: all but the encodings it cannot be written in.
fn variants(case: &Case) -> Vec<Variant> {
    let mut out = vec![
        Variant::Stream,
        Variant::Dom,
        Variant::DomBytes,
        Variant::Chunks(Chunking::Bytes(1)),
        Variant::Chunks(Chunking::Bytes(61)),
        Variant::Chunks(Chunking::Random(seed(&case.name))),
        Variant::Chunks(Chunking::Whole),
    ];
    if let Some(source) = case.plain {
        let text = source.decode_without_bom_handling(&case.prepared.bytes).0;
        let golden = case.read("expected.html").unwrap_or_default();
        let golden = source.decode_without_bom_handling(&golden).0;
        for encoding in [WINDOWS_1252, ISO_8859_2, UTF_16LE] {
            if encode(&text, encoding).is_ok() && encode(&golden, encoding).is_ok() {
                out.push(Variant::Encoding(encoding));
            }
        }
    }
    out
}

/// Whether the case can be written in other encodings (see the module's notes).
fn plain_encoding(dir: &Path, p: &Prepared) -> Option<&'static Encoding> {
    if p.charset.is_some() || p.output_encoding.is_some() {
        return None;
    }
    let decoded = linkbase::decode::decode(&p.bytes, None).ok()?;
    if decoded.bom || decoded.had_errors || ![UTF_8, WINDOWS_1252].contains(&decoded.encoding) {
        return None;
    }
    let links = std::fs::read_to_string(dir.join("expected.links.jsonl")).ok()?;
    let ascii = links.lines().all(|l| {
        serde_json::from_str::<serde_json::Value>(l)
            .ok()
            .and_then(|v| v["original"].as_str().map(str::is_ascii))
            .unwrap_or(false)
    });
    ascii.then_some(decoded.encoding)
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

fn load(dir: &Path) -> Result<Case, String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let meta: Meta = std::fs::read_to_string(dir.join("meta.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("meta.json: {e}"))?;
    if meta.about.trim().is_empty() {
        return Err("meta.json: \"about\" must say which rule the case exercises".into());
    }
    let prepared = prepare(dir, &meta)?;
    let plain = plain_encoding(dir, &prepared);
    Ok(Case {
        name,
        dir: dir.to_owned(),
        prepared,
        plain,
    })
}

fn main() {
    let args = Arguments::from_args();
    let bless = std::env::var_os("LINKBASE_BLESS").is_some_and(|v| v == "1");
    let ledger = Ledger::read(Path::new(ROOT).join(LEDGER));
    let dirs = case_dirs();
    assert!(
        dirs.len() >= MIN_CASES,
        "{ROOT}: {} cases, expected at least {MIN_CASES}",
        dirs.len()
    );
    type Run = Box<dyn FnOnce() -> Result<(), String> + Send>;
    let mut runs: Vec<(String, Run)> = Vec::new();
    for dir in &dirs {
        let case = match load(dir) {
            Ok(case) => Arc::new(case),
            Err(e) => {
                let name = format!("{}/meta", dir.file_name().unwrap().to_string_lossy());
                runs.push((name, Box::new(move || Err(e))));
                continue;
            }
        };
        for variant in variants(&case) {
            if bless && !matches!(variant, Variant::Stream) {
                continue;
            }
            let name = format!("{}/{}", case.name, variant.name());
            let bless = bless && !ledger.lists(&name);
            let case = case.clone();
            runs.push((name, Box::new(move || case.run_variant(&variant, bless))));
        }
    }
    runs.push((
        "chunked reader: reads in the sizes asked".into(),
        Box::new(chunked_reader_reads_in_the_sizes_asked),
    ));
    runs.push((
        "tree check: it accepts an explained change and catches the rest".into(),
        Box::new(|| {
            tree::tree_check_catches_unexplained_changes();
            Ok(())
        }),
    ));
    if !bless {
        let stale = ledger.stale("", runs.iter().map(|(n, _)| n.as_str()));
        runs.push((
            "ledger: every entry names a trial".into(),
            Box::new(move || {
                if stale.is_empty() {
                    Ok(())
                } else {
                    Err(stale.join("\n"))
                }
            }),
        ));
    }
    let trials = runs
        .into_iter()
        .map(|(name, run)| {
            let verdict = ledger.verdict(&name);
            let kind = if verdict.listed {
                "expected failure"
            } else {
                ""
            };
            Trial::test(name, move || verdict.judge(run()).map_err(Failed::from)).with_kind(kind)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
