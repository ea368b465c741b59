//! Archives written by other tools: other projects' test WARC/ARC files
//! (`fixtures/warc/{warcio,jwarc,corentinb-warc}/`, `fixtures/arc/warcio/`) and WARC files
//! written here by wget (`--warc-file`, `--warc-dedup`), warcio and warcprox against a local
//! server (`fixtures/warc/generated/`, made by `scripts/fixtures/make_warcs.py`).
//!
//! Every HTML record's base and plain URL attributes are compared with
//! `fixtures/warc/expected/*.json`, written at generation time by
//! `scripts/fixtures/warc_reference.py`: warcio's framing and decoding, Python's html.parser and
//! `urljoin`, none of linkbase. Every file's record count is warcio's, every revisit whose
//! original warcio does not find in the file is named with warcio's offset, and every damaged
//! or odd file is named with its offset and exits 1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::util::{jsonl, linkbase, URL_ATTRS};

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// What a file that is damaged or odd prints on stderr, exactly (`{}` is the file's path):
/// read by hand against the bytes. Its record count may differ from warcio's, which reads some
/// damage differently; every other file's count is warcio's.
const DAMAGE: &[(&str, &[&str])] = &[
    // warcio's test of a Content-Length one byte short (the block ends a byte later, where the
    // next record's `\r\n\r\nWARC/1.0` is), its records split across gzip members oddly:
    // warcio cannot read it (the reference reads it decompressed).
    (
        "warc/warcio/example-wrong-chunks.warc.gz",
        &[
            "linkbase: {}: record <urn:uuid:80d63307-60af-43e0-903f-574b2f432b7e> at offset 0 read past damage: Content-Length 1613 does not end at the record's end: its block is 1614 bytes, read up to the next record, at offset 1130 (byte 4 of its gzip member)",
            "linkbase: {}: 2 records read: 1 HTML (0 of them revisits), 1 skipped, 0 damaged, 1 read past damage",
        ],
    ),
    // warcio's truncated file: a Content-Length 2 bytes short (warcio: "Record not followed by
    // newline, perhaps Content-Length is invalid").
    (
        "warc/warcio/example-trunc.warc",
        &[
            "linkbase: {}: record <urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005> at offset 1197 read past damage: Content-Length 973 does not end at the record's end: its block is 975 bytes, read up to the next record, at offset 2566",
            "linkbase: {}: 4 records read: 1 HTML (0 of them revisits), 3 skipped, 0 damaged, 1 read past damage",
        ],
    ),
    // Lengths of -1 and `abc`: the lines with them are not URL lines; none has a block.
    (
        "arc/warcio/bad.arc",
        &[
            "linkbase: {}: damaged record at offset 0: not an ARC record (no URL line); 202 bytes skipped to the next URL line, at offset 202",
            "linkbase: {}: record (no WARC-Record-ID) at offset 202 read past damage: Archive-length 1 ends 69 bytes before the end of the file: the block is read up to it",
            "linkbase: {}: 1 record read: 0 HTML (0 of them revisits), 1 skipped, 1 damaged, 1 read past damage",
        ],
    ),
    // 12 bytes short of its Archive-length: read as far as it goes.
    (
        "arc/warcio/example-space-in-url.arc",
        &[
            "linkbase: {}: record (no WARC-Record-ID) at offset 151 read past damage: the file ends 1579 bytes into its 1591-byte block: read as far as it goes",
            "linkbase: {}: 2 records read: 1 HTML (0 of them revisits), 1 skipped, 0 damaged, 1 read past damage",
        ],
    ),
];

struct Expected {
    archive: String,
    records_total: u64,
    orphans: Vec<(String, u64)>,
    records: Vec<Value>,
}

fn expected_files() -> Vec<PathBuf> {
    let dir = Path::new(REPO).join("fixtures/warc/expected");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> Expected {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    Expected {
        archive: v["archive"].as_str().unwrap().to_owned(),
        records_total: v["records_total"].as_u64().unwrap(),
        orphans: v["revisits_without_original"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                (
                    o["id"].as_str().unwrap().to_owned(),
                    o["offset"].as_u64().unwrap(),
                )
            })
            .collect(),
        records: v["records"].as_array().unwrap().clone(),
    }
}

/// A record's key: its ID (`null` for ARC) and target URI, as JSON text. A space in a target
/// URI is written `%20`: warcio writes it so ("Replacing spaces in invalid WARC-Target-URI"),
/// linkbase keeps the URI as archived.
fn key(v: &Value, id: &str, uri: &str) -> (String, String) {
    (v[id].to_string(), v[uri].to_string().replace(' ', "%20"))
}

/// Fixture archives warcio gives up on (`warc_reference.py` says so and writes no reference):
/// their records are checked by the tests named here instead.
const WARCIO_CANNOT_READ: [&str; 2] = [
    // No version block, then a URL line cut short ("Unknown archive format"): arc.rs,
    // `jwat_arc_without_a_version_block`.
    "arc/jwat/invalid-arcfile-record-then-garbage.arc",
    // Content-Lengths off by a few bytes ("Unknown archive format" past the fourth record):
    // `webarchive_commons_response_without_a_target_uri` below.
    "warc/webarchive-commons/link-extraction-test.warc",
];

#[test]
fn every_html_record_matches_the_independent_reference() {
    let files = expected_files();
    // Every fixture archive has its reference (none forgotten by the generator).
    let mut archives = Vec::new();
    for dir in ["warc", "arc"] {
        let root = Path::new(REPO).join("fixtures").join(dir);
        for sub in std::fs::read_dir(&root).unwrap() {
            let sub = sub.unwrap().path();
            for f in std::fs::read_dir(&sub).unwrap() {
                let name = f.unwrap().file_name().into_string().unwrap();
                let archive = [".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.gz.bad"]
                    .iter()
                    .any(|e| name.ends_with(e));
                let dir_name = sub.file_name().unwrap().to_str().unwrap();
                let path = format!("{dir}/{dir_name}/{name}");
                if archive && !WARCIO_CANNOT_READ.contains(&path.as_str()) {
                    archives.push(format!("{dir}__{dir_name}__{name}.json"));
                }
            }
        }
    }
    archives.sort();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, archives);
    let mut failures = Vec::new();
    for file in &files {
        let want = load(file);
        let path = format!("{REPO}/{}", want.archive);
        let links = linkbase(&["links", &path], b"");
        let bases = linkbase(&["base", &path], b"");
        assert_eq!(links.stderr, bases.stderr, "{}", want.archive);
        // The base records, one per HTML record, in file order.
        let got_bases: Vec<(String, String, Value)> = jsonl(&bases.stdout)
            .iter()
            .map(|b| {
                let (id, uri) = key(b, "warc_record_id", "warc_target_uri");
                // The base as given (a target URI as archived: see `key`).
                let base = b["base"].as_str().map(|b| b.replace(' ', "%20"));
                (id, uri, base.map_or(Value::Null, Value::String))
            })
            .collect();
        let want_bases: Vec<(String, String, Value)> = want
            .records
            .iter()
            .map(|r| {
                let (id, uri) = key(r, "id", "target_uri");
                (id, uri, r["base"].clone())
            })
            .collect();
        if got_bases != want_bases {
            failures.push(format!(
                "{}: bases\n  linkbase:  {got_bases:?}\n  reference: {want_bases:?}",
                want.archive
            ));
        }
        // The plain URL attributes of each record, in document order.
        let mut got_links: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
        for l in jsonl(&links.stdout) {
            let pair = (
                l["element"].as_str().unwrap_or_default(),
                l["attribute"].as_str().unwrap_or_default(),
            );
            if l["kind"] != "url" || l["srcdoc_depth"] != 0 || !URL_ATTRS.contains(&pair) {
                continue;
            }
            got_links
                .entry(key(&l, "warc_record_id", "warc_target_uri"))
                .or_default()
                .push(Value::Array(vec![
                    l["element"].clone(),
                    l["attribute"].clone(),
                    l["original"].clone(),
                    l["resolved"].clone(),
                ]));
        }
        for r in &want.records {
            let k = key(r, "id", "target_uri");
            let got = got_links.remove(&k).unwrap_or_default();
            let expected = r["links"].as_array().unwrap();
            if &got != expected {
                failures.push(format!(
                    "{} record {k:?}: links\n  linkbase:  {got:?}\n  reference: {expected:?}",
                    want.archive
                ));
            }
        }
        if !got_links.is_empty() {
            failures.push(format!(
                "{}: links of records the reference has none of: {:?}",
                want.archive,
                got_links.keys()
            ));
        }
        // stderr: a damaged file's exactly; any other's summary counts warcio's records, every
        // revisit whose original is not in the file is named at warcio's offset, and nothing
        // else is said.
        let damage = DAMAGE
            .iter()
            .find(|(name, _)| want.archive == format!("fixtures/{name}"));
        let code = if let Some((_, lines)) = damage {
            let expected: String = lines
                .iter()
                .map(|l| l.replace("{}", &path) + "\n")
                .collect();
            if links.stderr != expected {
                failures.push(format!(
                    "{}: stderr\n  got:  {:?}\n  want: {expected:?}",
                    want.archive, links.stderr
                ));
            }
            1
        } else {
            let mut lines: Vec<&str> = links.stderr.lines().collect();
            let summary = lines.pop().unwrap_or_default();
            let prefix = format!("linkbase: {path}: {} read: ", records(want.records_total));
            if !summary.starts_with(&prefix) {
                failures.push(format!(
                    "{}: summary {summary:?}, want it to start {prefix:?}",
                    want.archive
                ));
            }
            let starts: Vec<String> = want
                .orphans
                .iter()
                .map(|(id, offset)| {
                    format!(
                        "linkbase: {path}: record {id} at offset {offset} skipped: its original is not in this file"
                    )
                })
                .collect();
            let unmatched: Vec<&&str> = lines
                .iter()
                .filter(|l| !starts.iter().any(|s| l.starts_with(s.as_str())))
                .collect();
            if lines.len() != starts.len() || !unmatched.is_empty() {
                failures.push(format!(
                    "{}: stderr\n  got:  {lines:#?}\n  want a line starting with each of: {starts:#?}",
                    want.archive
                ));
            }
            i32::from(!starts.is_empty())
        };
        if links.code != code {
            failures.push(format!(
                "{}: exit {}, want {code}: {}",
                want.archive, links.code, links.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn records(n: u64) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}

/// webarchive-commons' `link-extraction-test.warc` (`fixtures/warc/webarchive-commons/`,
/// Apache-2.0): its last record, at 10562, is a response with neither `WARC-Target-URI` nor
/// `WARC-Record-ID`. With nothing else to give a base it is skipped and said (it was counted
/// in silence); with `--default-base` its links are read, as webarchive-commons reads them.
#[test]
fn webarchive_commons_response_without_a_target_uri() {
    let path = format!("{REPO}/fixtures/warc/webarchive-commons/link-extraction-test.warc");
    let run = linkbase(&["links", &path], b"");
    assert!(
        run.stderr.contains(&format!(
            "linkbase: {path}: record (no WARC-Record-ID) at offset 10562 skipped: a response \
             without WARC-Target-URI, and nothing else to give its base"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.ends_with(&format!(
            "linkbase: {path}: 8 records read: 6 HTML (0 of them revisits), 2 skipped, 0 \
             damaged, 4 read past damage\n"
        )),
        "{}",
        run.stderr
    );
    // Its page has no URL attribute (webarchive-commons reads URLs out of its onclick
    // scripts): its base record says where its base came from, and why.
    let run = linkbase(
        &["base", "--default-base", "http://example.com/x/", &path],
        b"",
    );
    let bases = jsonl(&run.stdout);
    let orphan: Vec<_> = bases
        .iter()
        .filter(|b| b["warc_target_uri"].is_null())
        .collect();
    assert_eq!(orphan.len(), 1, "{}", run.stdout);
    assert_eq!(orphan[0]["base"], "http://example.com/x/");
    assert_eq!(orphan[0]["base_source"], "default");
    assert_eq!(orphan[0]["diagnostics"][0]["code"], "warc-record");
    assert!(
        run.stderr.ends_with(
            "8 records read: 7 HTML (0 of them revisits), 1 skipped, 0 damaged, 4 read past damage\n"
        ),
        "{}",
        run.stderr
    );
}

/// A record whose Content-Encoding does not decode, and whose stored bytes are no HTML either,
/// is skipped and said with its offset (it was counted as skipped in silence).
#[test]
fn an_undecodable_payload_is_said() {
    let block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n\x01\x02garbage";
    let record = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:u1>\r\n\
         WARC-Target-URI: http://h/\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n{block}\r\n\r\n",
        block.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.warc");
    std::fs::write(&path, &record).unwrap();
    let path = path.to_str().unwrap();
    let run = linkbase(&["links", path], b"");
    assert!(
        run.stderr.starts_with(&format!(
            "linkbase: {path}: record <urn:uuid:u1> at offset 0 skipped: Content-Encoding: gzip \
             does not decode ("
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .ends_with("1 record read: 0 HTML (0 of them revisits), 1 skipped, 0 damaged\n"),
        "{}",
        run.stderr
    );
    // An empty WARC-Record-ID is named so (it read `record  at`, and `(record )` in damage):
    // here a Content-Length 100 bytes past the end of the file.
    let bad = record.replace("<urn:uuid:u1>", "").replace(
        &format!("Content-Length: {}\r\n\r\nHTTP", block.len()),
        &format!("Content-Length: {}\r\n\r\nHTTP", block.len() + 100),
    );
    std::fs::write(path, bad).unwrap();
    let run = linkbase(&["links", path], b"");
    assert!(
        run.stderr.contains(&format!(
            "linkbase: {path}: record (empty WARC-Record-ID) at offset 0 read past damage: \
             Content-Length 177"
        )),
        "{}",
        run.stderr
    );
}
