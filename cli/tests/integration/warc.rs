//! WARC input: `links`, `base` and `rewrite` of archives built here, byte by byte,
//! from the format's grammar (ISO 28500 §4), independently of the reader under test. Each HTML
//! record's expected links are computed by running the single-document path on its payload
//! with `--url` (the target URI) and `--headers` (the archived HTTP head).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;

use serde_json::Value;

use super::util::{expected_links, jsonl, linkbase};

/// One record of a test archive.
struct Rec {
    kind: &'static str,
    id: String,
    uri: &'static str,
    extra: Vec<(&'static str, String)>,
    content_type: &'static str,
    block: Vec<u8>,
}

impl Rec {
    fn bytes(&self) -> Vec<u8> {
        let mut head = format!(
            "WARC/1.1\r\nWARC-Type: {}\r\nWARC-Record-ID: {}\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n",
            self.kind, self.id
        );
        if !self.uri.is_empty() {
            head.push_str(&format!("WARC-Target-URI: {}\r\n", self.uri));
        }
        for (n, v) in &self.extra {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        if !self.content_type.is_empty() {
            head.push_str(&format!("Content-Type: {}\r\n", self.content_type));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", self.block.len()));
        let mut out = head.into_bytes();
        out.extend_from_slice(&self.block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn id(n: u32) -> String {
    format!("<urn:uuid:00000000-0000-4000-8000-{n:012}>")
}

const HTTP: &str = "application/http; msgtype=response";

fn response(n: u32, uri: &'static str, head: &str, body: &[u8]) -> Rec {
    let mut block = head.replace('\n', "\r\n").into_bytes();
    block.extend_from_slice(b"\r\n");
    block.extend_from_slice(body);
    Rec {
        kind: "response",
        id: id(n),
        uri,
        extra: Vec::new(),
        content_type: HTTP,
        block,
    }
}

fn chunked(body: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for c in body.chunks(size) {
        out.extend_from_slice(format!("{:x};ext=1\r\n", c.len()).as_bytes());
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\nX-Trailer: 1\r\n\r\n");
    out
}

const PAGE_NEW: &[u8] =
    b"<!doctype html><title>new</title><a href=\"a.html\">a</a> <img src=\"../img/x.png\">";
const PAGE_BASE: &[u8] =
    b"<html><head><base href=\"http://cdn.ex.org/root/\"></head><img src=\"i.png\"><a href=\"/top\">t</a>";
const PAGE_ZIPPED: &[u8] =
    b"<html><link rel=stylesheet href=\"s.css\"><p style=\"background:url(bg.png)\"><a href=\"?q=1#f\">q</a>";
const PAGE_1252: &[u8] =
    b"<html><a href=\"caf\xe9.html\">caf\xe9</a> <a href=\"x.html?k=\xe9\">k</a>";

/// An HTML record as the single-document path sees it: (record id, target URI, HTTP head,
/// payload).
type Page = (String, &'static str, String, Vec<u8>);

/// The test archive's records, and its HTML pages.
fn records() -> (Vec<Rec>, Vec<Page>) {
    let zipped = chunked(&gz(PAGE_ZIPPED), 7);
    let heads = [
        "HTTP/1.1 301 Moved Permanently\nLocation: /new/\nContent-Type: text/html\n",
        "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\nContent-Location: /other/index.html\n",
        "HTTP/1.1 200 OK\nContent-Type: text/html\n",
        "HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked\nContent-Encoding: gzip\n",
        "HTTP/1.1 200 OK\nContent-Type: text/html; charset=windows-1252\n",
    ];
    let moved: &[u8] = b"<a href=\"new/\">moved</a>";
    let mut recs = vec![Rec {
        kind: "warcinfo",
        id: id(1),
        uri: "",
        extra: Vec::new(),
        content_type: "application/warc-fields",
        block: b"software: test\r\n".to_vec(),
    }];
    recs.push(response(2, "http://ex.org/old", heads[0], moved));
    recs.push(response(3, "http://ex.org/new/", heads[1], PAGE_NEW));
    recs.push(response(4, "http://ex.org/based.html", heads[2], PAGE_BASE));
    recs.push(response(
        5,
        "http://ex.org/z/zipped.html",
        heads[3],
        &zipped,
    ));
    recs.push(response(
        6,
        "http://ex.org/l/latin.html",
        heads[4],
        PAGE_1252,
    ));
    recs.push(Rec {
        kind: "revisit",
        id: id(7),
        uri: "http://ex.org/again/",
        extra: vec![
            (
                "WARC-Profile",
                "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest".into(),
            ),
            ("WARC-Refers-To", id(3)),
        ],
        content_type: HTTP,
        block: b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec(),
    });
    recs.push(response(
        8,
        "http://ex.org/x.png",
        "HTTP/1.1 200 OK\nContent-Type: image/png\n",
        b"\x89PNG\r\n\x1a\n",
    ));
    let html = vec![
        (
            id(2),
            "http://ex.org/old",
            heads[0].to_owned(),
            moved.to_vec(),
        ),
        (
            id(3),
            "http://ex.org/new/",
            heads[1].to_owned(),
            PAGE_NEW.to_vec(),
        ),
        (
            id(4),
            "http://ex.org/based.html",
            heads[2].to_owned(),
            PAGE_BASE.to_vec(),
        ),
        (
            id(5),
            "http://ex.org/z/zipped.html",
            heads[2].to_owned(),
            PAGE_ZIPPED.to_vec(),
        ),
        (
            id(6),
            "http://ex.org/l/latin.html",
            heads[4].to_owned(),
            PAGE_1252.to_vec(),
        ),
        // The revisit: the original's payload, under the revisit's URI and headers.
        (
            id(7),
            "http://ex.org/again/",
            heads[2].to_owned(),
            PAGE_NEW.to_vec(),
        ),
    ];
    (recs, html)
}

struct Archive {
    dir: tempfile::TempDir,
}

impl Archive {
    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_str().unwrap().to_owned()
    }
}

/// `test.warc`, `test.warc.gz` (a member per record) and `damaged.warc.gz` (the same with a
/// truncated last member) in a fresh directory.
fn build() -> Archive {
    let dir = tempfile::Builder::new()
        .prefix("linkbase-warc-")
        .tempdir()
        .unwrap();
    let (recs, _) = records();
    let plain: Vec<u8> = recs.iter().flat_map(Rec::bytes).collect();
    let gzipped: Vec<u8> = recs.iter().flat_map(|r| gz(&r.bytes())).collect();
    let mut damaged = gzipped.clone();
    let last = gz(&response(
        9,
        "http://ex.org/cut.html",
        "HTTP/1.1 200 OK\nContent-Type: text/html\n",
        &[b'x'; 3000],
    )
    .bytes());
    damaged.extend_from_slice(&last[..last.len() / 2]);
    std::fs::write(dir.path().join("test.warc"), plain).unwrap();
    std::fs::write(dir.path().join("test.warc.gz"), gzipped).unwrap();
    std::fs::write(dir.path().join("damaged.warc.gz"), damaged).unwrap();
    Archive { dir }
}

/// Link records without the WARC fields, grouped by record.
fn by_record(links: &[Value]) -> BTreeMap<String, Vec<Value>> {
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for l in links {
        let mut l = l.clone();
        let obj = l.as_object_mut().unwrap();
        let id = obj
            .remove("warc_record_id")
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned();
        obj.remove("warc_target_uri");
        obj.remove("warc_date");
        out.entry(id).or_default().push(l);
    }
    out
}

#[test]
fn links_of_every_html_record_match_the_single_document_path() {
    let a = build();
    let (_, html) = records();
    for name in ["test.warc", "test.warc.gz"] {
        let run = linkbase(&["links", &a.path(name)], b"");
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("8 records read: 6 HTML (1 of them revisits), 2 skipped, 0 damaged"),
            "{name}: {}",
            run.stderr
        );
        let links = jsonl(&run.stdout);
        let got = by_record(&links);
        assert_eq!(got.len(), html.len(), "{name}: {:?}", got.keys());
        for (id, uri, head, payload) in &html {
            let want = expected_links(a.dir.path(), uri, head, payload);
            assert_eq!(got.get(id), Some(&want), "{name}: record {id} ({uri})");
        }
        // Spot checks, by hand from RFC 2396 §5.1–5.2.
        let resolved = |orig: &str, record: u32| -> Vec<(String, String)> {
            links
                .iter()
                .filter(|l| l["original"] == orig && l["warc_record_id"] == id(record).as_str())
                .map(|l| {
                    (
                        l["resolved"].as_str().unwrap_or("").to_owned(),
                        l["base_source"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        };
        let one = |r: &str, s: &str| vec![(r.to_owned(), s.to_owned())];
        assert_eq!(
            resolved("new/", 2),
            one("http://ex.org/new/", "retrieval-uri")
        );
        assert_eq!(
            resolved("a.html", 3),
            one("http://ex.org/other/a.html", "content-location")
        );
        assert_eq!(
            resolved("i.png", 4),
            one("http://cdn.ex.org/root/i.png", "base-element")
        );
        assert_eq!(
            resolved("bg.png", 5),
            one("http://ex.org/z/bg.png", "retrieval-uri")
        );
        assert_eq!(
            resolved("?q=1#f", 5),
            one("http://ex.org/z/?q=1#f", "retrieval-uri")
        );
        assert_eq!(
            resolved("a.html", 7),
            one("http://ex.org/again/a.html", "retrieval-uri")
        );
        let l = links
            .iter()
            .find(|l| l["warc_record_id"] == id(3).as_str())
            .unwrap();
        assert_eq!(l["warc_target_uri"], "http://ex.org/new/");
        assert_eq!(l["warc_date"], "2026-01-02T03:04:05Z");
    }
}

#[test]
fn base_prints_a_line_per_html_record() {
    let a = build();
    let run = linkbase(&["base", &a.path("test.warc.gz"), "--format", "text"], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "http://ex.org/old\thttp://ex.org/old\tretrieval-uri\n\
         http://ex.org/new/\thttp://ex.org/other/index.html\tcontent-location\n\
         http://ex.org/based.html\thttp://cdn.ex.org/root/\tbase-element\n\
         http://ex.org/z/zipped.html\thttp://ex.org/z/zipped.html\tretrieval-uri\n\
         http://ex.org/l/latin.html\thttp://ex.org/l/latin.html\tretrieval-uri\n\
         http://ex.org/again/\thttp://ex.org/again/\tretrieval-uri\n"
    );
    let run = linkbase(&["base", &a.path("test.warc")], b"");
    let bases = jsonl(&run.stdout);
    assert_eq!(bases.len(), 6);
    assert_eq!(bases[4]["encoding"], "windows-1252");
    assert_eq!(bases[4]["warc_record_id"], id(6).as_str());
    // --header-base browser: Content-Location is not a base.
    let run = linkbase(
        &[
            "base",
            &a.path("test.warc"),
            "--format",
            "text",
            "--header-base",
            "browser",
        ],
        b"",
    );
    assert!(
        run.stdout
            .contains("http://ex.org/new/\thttp://ex.org/new/\tretrieval-uri\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn damage_is_said_with_its_offset_and_the_rest_is_read() {
    let a = build();
    let run = linkbase(&["links", &a.path("damaged.warc.gz")], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let whole = std::fs::metadata(a.path("test.warc.gz")).unwrap().len();
    assert!(
        run.stderr
            .contains(&format!("damaged record at offset {whole}: ")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("truncated"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("8 records read: 6 HTML (1 of them revisits), 2 skipped, 1 damaged"),
        "{}",
        run.stderr
    );
    assert_eq!(by_record(&jsonl(&run.stdout)).len(), 6);
}

#[test]
fn stdin_and_refused_layers() {
    let a = build();
    let bytes = std::fs::read(a.path("test.warc.gz")).unwrap();
    let run = linkbase(&["base", "-", "--format", "text"], &bytes);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 6);
    let run = linkbase(&["links", &a.path("test.warc"), "--url", "http://x/"], b"");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--url does not apply to a WARC file"),
        "{}",
        run.stderr
    );
    let run = linkbase(
        &[
            "rewrite",
            &a.path("test.warc.gz"),
            "-o",
            &a.path("out.warc"),
        ],
        b"",
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("gzip-compressed"), "{}", run.stderr);
}

/// Splits an uncompressed archive into (header fields, block) pairs, by its Content-Lengths.
fn split_records(mut bytes: &[u8]) -> Vec<(BTreeMap<String, String>, Vec<u8>)> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = std::str::from_utf8(&bytes[..end]).unwrap();
        let fields: BTreeMap<String, String> = head
            .lines()
            .skip(1)
            .map(|l| {
                let (n, v) = l.split_once(':').unwrap();
                (n.trim().to_ascii_lowercase(), v.trim().to_owned())
            })
            .collect();
        let len: usize = fields["content-length"].parse().unwrap();
        let block = bytes[end + 4..end + 4 + len].to_vec();
        assert_eq!(&bytes[end + 4 + len..end + 8 + len], b"\r\n\r\n");
        bytes = &bytes[end + 8 + len..];
        out.push((fields, block));
    }
    out
}

#[test]
fn rewrite_adds_a_conversion_record_after_each_changed_page() {
    use sha1::Digest as _;
    let a = build();
    let (recs, html) = records();
    for name in ["test.warc", "test.warc.gz"] {
        let out = a.path(&format!("out-{name}"));
        let run = linkbase(&["rewrite", &a.path(name), "-o", &out], b"");
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stderr.contains("6 conversion records added"),
            "{}",
            run.stderr
        );
        let written = std::fs::read(&out).unwrap();
        let plain = if name.ends_with(".gz") {
            let mut d = flate2::read::MultiGzDecoder::new(&written[..]);
            let mut v = Vec::new();
            d.read_to_end(&mut v).unwrap();
            // One gzip member per record: the originals' members are the input's, unchanged.
            let input = std::fs::read(a.path(name)).unwrap();
            let first = gz(&recs[0].bytes());
            assert_eq!(&written[..first.len()], &input[..first.len()]);
            v
        } else {
            written
        };
        let records = split_records(&plain);
        // Every original, in order, each HTML one followed by its conversion.
        let types: Vec<&str> = records
            .iter()
            .map(|(f, _)| f["warc-type"].as_str())
            .collect();
        assert_eq!(
            types,
            [
                "warcinfo",
                "response",
                "conversion",
                "response",
                "conversion",
                "response",
                "conversion",
                "response",
                "conversion",
                "response",
                "conversion",
                "revisit",
                "conversion",
                "response"
            ]
        );
        let originals: Vec<Vec<u8>> = records
            .iter()
            .filter(|(f, _)| f["warc-type"] != "conversion")
            .map(|(_, b)| b.clone())
            .collect();
        let input_blocks: Vec<Vec<u8>> = recs.iter().map(|r| r.block.clone()).collect();
        assert_eq!(originals, input_blocks);
        let conversions: Vec<_> = records
            .iter()
            .filter(|(f, _)| f["warc-type"] == "conversion")
            .collect();
        for ((fields, block), (rid, uri, head, payload)) in conversions.iter().zip(&html) {
            assert_eq!(&fields["warc-refers-to"], rid);
            assert_eq!(fields["warc-target-uri"], *uri);
            let digest = format!(
                "sha1:{}",
                data_encoding::BASE32.encode(&sha1::Sha1::digest(block))
            );
            assert_eq!(fields["warc-block-digest"], digest);
            // The payload is what `rewrite` makes of the page as a file.
            let page = a.dir.path().join("p.html");
            let headers = a.dir.path().join("h.txt");
            std::fs::write(&page, payload).unwrap();
            std::fs::write(&headers, head).unwrap();
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_linkbase"))
                .args(["rewrite", page.to_str().unwrap(), "--url", uri, "--headers"])
                .arg(&headers)
                .output()
                .unwrap();
            assert!(child.status.success());
            assert_eq!(block, &std::mem::take(&mut child.stdout), "{uri}");
        }
        // The windows-1252 page stays in windows-1252.
        let latin = &conversions[4];
        assert!(latin.0["content-type"].ends_with("charset=windows-1252"));
        assert!(
            latin.1.windows(4).any(|w| w == b"caf\xe9"),
            "{:?}",
            String::from_utf8_lossy(&latin.1)
        );
    }
}

#[test]
fn extract_writes_a_browsable_tree() {
    let a = build();
    let dir = a.path("mirror");
    let run = linkbase(
        &["rewrite", &a.path("test.warc.gz"), "--extract", &dir],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let read = |p: &str| std::fs::read(Path::new(&dir).join(p)).unwrap();
    // The charset only the archived Content-Type gave is declared where <head> begins
    // (implied here, before <title>), every other byte kept.
    assert_eq!(
        read("ex.org/new/index.html"),
        b"<!doctype html><meta charset=\"UTF-8\"><title>new</title><a href=\"http://ex.org/other/a.html\">a</a> <img src=\"http://ex.org/img/x.png\">"
    );
    assert!(Path::new(&dir).join("ex.org/based.html").is_file());
    assert!(Path::new(&dir).join("ex.org/again/index.html").is_file());
    // The 301 page is not a page of the site; the image is a file of it.
    assert!(!Path::new(&dir).join("ex.org/old").exists());
    assert_eq!(read("ex.org/x.png"), b"\x89PNG\r\n\x1a\n");
    assert!(
        run.stderr.contains(
            "5 pages and 1 other file written to {dir} (1 redirect to an extracted file followed)"
                .replace("{dir}", &dir)
                .as_str()
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn extract_relative_links_the_extracted_pages_to_each_other() {
    let a = build();
    let head = "HTTP/1.1 200 OK\nContent-Type: text/html\n";
    let recs = [
        response(
            1,
            "http://site.org/docs/a.html",
            head,
            b"<base href=\"http://site.org/docs/\"><a href=\"b.html#s\">b</a> <a href=\"../\">home</a> <img src=\"x.png\"> <a href=\"http://elsewhere.org/\">e</a>",
        ),
        response(2, "http://site.org/docs/b.html", head, b"<a id=s href=\"a.html?v=1\">a?v</a>"),
        response(3, "http://site.org/", head, b"<a href=\"docs/a.html\">a</a>"),
        response(4, "http://site.org/docs/a.html?v=1", head, b"v1"),
    ];
    let path = a.path("site.warc.gz");
    std::fs::write(
        &path,
        recs.iter()
            .flat_map(|r| gz(&r.bytes()))
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let dir = a.path("rel");
    let run = linkbase(&["rewrite", &path, "--extract", &dir, "--relative"], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let read =
        |p: &str| String::from_utf8(std::fs::read(Path::new(&dir).join(p)).unwrap()).unwrap();
    assert_eq!(
        read("site.org/docs/a.html"),
        "<a href=\"b.html#s\">b</a> <a href=\"../index.html\">home</a> <img src=\"http://site.org/docs/x.png\"> <a href=\"http://elsewhere.org/\">e</a>"
    );
    // wget -E's name: the query kept, `.html` ensured after it.
    assert_eq!(
        read("site.org/docs/b.html"),
        "<a id=s href=\"a.html%3Fv=1.html\">a?v</a>"
    );
    assert_eq!(read("site.org/index.html"), "<a href=\"docs/a.html\">a</a>");
    assert_eq!(read("site.org/docs/a.html?v=1.html"), "v1");
    let no_extract = linkbase(&["rewrite", &path, "--relative"], b"");
    assert_eq!(no_extract.code, 2);
    assert!(
        no_extract.stderr.contains("needs --extract DIR"),
        "{}",
        no_extract.stderr
    );
}

/// A record whose `Content-Encoding` inflates past 100 times its stored body
/// (4 MiB at least) is skipped, said with its record, offset and the bound, counted, and the
/// run exits 1; the record after it is read. A record whose payload holds thousands of `HTTP/`
/// heads is one response with a chain too long to follow: its base stays its target URI.
#[test]
fn decode_bombs_and_endless_redirect_heads_are_bounded_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let page = b"<a href=a>".repeat(600_000);
    let bomb = response(
        1,
        "http://h/bomb",
        "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip, gzip\n",
        &gz(&gz(&page)),
    )
    .bytes();
    let mut heads = "HTTP/1.1 301 M\r\nLocation: a/\r\n".repeat(5000);
    heads.push_str("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>");
    let chain = Rec {
        kind: "response",
        id: id(2),
        uri: "http://h/chain/",
        extra: Vec::new(),
        content_type: HTTP,
        block: heads.into_bytes(),
    }
    .bytes();
    let path = dir.path().join("hostile.warc");
    std::fs::write(&path, [bomb.clone(), chain].concat()).unwrap();
    let run = linkbase(&["base", path.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let stored = bomb.len() - memchr_find(&bomb, b"\r\n\r\n\x1f\x8b").unwrap() - 4 - 4;
    let name = path.display();
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {name}: record {} at offset 0 skipped: Content-Encoding: gzip, gzip inflates its {stored} stored bytes past 4194304 bytes (MAX_DECODE_RATIO: 100 times the stored body, at least 4 MiB)\n\
linkbase: {name}: 2 records read: 1 HTML (0 of them revisits), 1 skipped (1 past a limit), 0 damaged\n",
            id(1)
        )
    );
    let records = jsonl(&run.stdout);
    assert_eq!(records.len(), 1, "{}", run.stdout);
    assert_eq!(records[0]["base"], "http://h/chain/");
    assert_eq!(
        records[0]["diagnostics"][0]["message"],
        "the header block's redirect chain has 5000 redirects, more than the 20 a browser follows (Fetch §4.4); the retrieval URI stays http://h/chain/ (first Location: a/, last Location: a/)"
    );
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// WARC damage through the command line: a Content-Length past the end of the file (read
/// up to the next record), damage
/// without a newline, a bad byte in the first gzip member's header. Each is one damage line with
/// its offsets, the intact records are all read, and the run exits 1.
#[test]
fn recovery_reads_every_intact_record_after_damage() {
    let dir = tempfile::tempdir().unwrap();
    let page = |n: u32, uri: &'static str| {
        response(
            n,
            uri,
            "HTTP/1.1 200 OK\nContent-Type: text/html\n",
            b"<a href=x>x</a>",
        )
    };
    let (a, b, c) = (
        page(1, "http://h/a").bytes(),
        page(2, "http://h/b").bytes(),
        page(3, "http://h/c").bytes(),
    );
    let claimed = a.len() * 10;
    let text = String::from_utf8(a.clone()).unwrap();
    let cl = text
        .lines()
        .find(|l| l.starts_with("Content-Length: "))
        .unwrap()
        .trim_end()
        .to_owned();
    let block_len: usize = cl["Content-Length: ".len()..].parse().unwrap();
    let long = text.replace(&cl, &format!("Content-Length: {claimed}"));
    let uris = |run: &super::util::Run| -> Vec<String> {
        let mut u: Vec<String> = jsonl(&run.stdout)
            .iter()
            .map(|l| l["warc_target_uri"].as_str().unwrap_or("").to_owned())
            .collect();
        u.dedup();
        u
    };
    // Past the end of the file.
    let path = dir.path().join("long.warc");
    std::fs::write(&path, [long.as_bytes(), &b, &c].concat()).unwrap();
    let run = linkbase(&["links", path.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {0}: record {1} at offset 0 read past damage: Content-Length {claimed} does not end at the record's end: its block is {block_len} bytes, read up to the next record, at offset {2}\n\
linkbase: {0}: 3 records read: 3 HTML (0 of them revisits), 0 skipped, 0 damaged, 1 read past damage\n",
            path.display(),
            id(1),
            long.len()
        )
    );
    // The record is read up to the next one, as warcio reads it.
    assert_eq!(uris(&run), ["http://h/a", "http://h/b", "http://h/c"]);
    // Garbage without a newline before an intact record.
    let path = dir.path().join("junk.warc");
    std::fs::write(&path, [&a[..], b"junk", &b].concat()).unwrap();
    let run = linkbase(&["links", path.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {0}: damaged record at offset {1}: not a WARC record (no WARC/ version line); skipped 4 bytes to the next record, at offset {2}\n\
linkbase: {0}: 2 records read: 2 HTML (0 of them revisits), 0 skipped, 1 damaged\n",
            path.display(),
            a.len(),
            a.len() + 4
        )
    );
    assert_eq!(uris(&run), ["http://h/a", "http://h/b"]);
    // A bad byte in the first gzip member's magic.
    let mut first = gz(&a);
    first[1] = 0;
    let path = dir.path().join("bad.warc.gz");
    std::fs::write(&path, [first.clone(), gz(&b), gz(&c)].concat()).unwrap();
    let run = linkbase(&["links", path.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "linkbase: {}: damaged record at offset 0: gzip member at offset 0 is corrupt",
            path.display()
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .ends_with("2 records read: 2 HTML (0 of them revisits), 0 skipped, 1 damaged\n"),
        "{}",
        run.stderr
    );
    assert_eq!(uris(&run), ["http://h/b", "http://h/c"]);
}

/// An uncompressed archive of `recs` at `dir/name`.
fn archive_of(dir: &Path, name: &str, recs: &[Rec]) -> String {
    let path = dir.join(name);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(&path, recs.iter().flat_map(Rec::bytes).collect::<Vec<u8>>()).unwrap();
    path.to_str().unwrap().to_owned()
}

const HTML_200: &str = "HTTP/1.1 200 OK\nContent-Type: text/html\n";

/// Every file under `dir`, relative, sorted (links not followed).
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let kind = e.file_type().unwrap();
            if kind.is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).unwrap().to_owned();
                out.push(rel.to_str().unwrap().to_owned());
            }
        }
    }
    out.sort();
    out
}

/// A `/` in a target URI's query made directories, and `..` in it climbed out
/// of DIR.
#[test]
fn extract_names_from_hostile_target_uris_stay_inside_the_directory() {
    let a = build();
    let top = Path::new(&a.path("top")).to_owned();
    let path = archive_of(
        &top.join("x"),
        "hostile.warc",
        &[
            response(
                1,
                "http://ex.org/p?x=/../../../../../ESCAPED.html",
                HTML_200,
                b"escape",
            ),
            response(2, "http://ex.org/a\\..\\..\\b.html", HTML_200, b"backslash"),
        ],
    );
    let dir = top.join("x/y/mirror");
    let run = linkbase(&["rewrite", &path, "--extract", dir.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        files_under(&top),
        [
            "x/hostile.warc",
            "x/y/mirror/ex.org/a%5C..%5C..%5Cb.html",
            "x/y/mirror/ex.org/p?x=%2F..%2F..%2F..%2F..%2F..%2FESCAPED.html",
        ]
    );
    assert!(run.stderr.contains("2 pages written"), "{}", run.stderr);
}

/// `--extract` followed a symbolic link to a directory inside DIR and replaced
/// files elsewhere. Now the link is not written through, the page is reported with its path,
/// and the other pages are written.
#[test]
fn extract_never_writes_through_a_symbolic_link_in_the_directory() {
    let a = build();
    let top = Path::new(&a.path("top")).to_owned();
    let outside = top.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("a.html"), b"precious").unwrap();
    let dir = top.join("mirror");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("ex.org")).unwrap();
    let path = archive_of(
        &top,
        "in.warc",
        &[
            response(1, "http://ex.org/a.html", HTML_200, b"replaced"),
            response(2, "http://other.org/b.html", HTML_200, b"b"),
        ],
    );
    let run = linkbase(&["rewrite", &path, "--extract", dir.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let d = dir.display();
    // The summary line: the archive's own counts (not this test's subject), then the pages.
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "linkbase: {path}: record <urn:uuid:00000000-0000-4000-8000-000000000001> at offset 0: \
             {d}/ex.org/a.html not written: {d}/ex.org: a symbolic link in the tree; not written or read through"
        )
    );
    assert!(
        lines[1].contains(&format!(
            "; 1 page written to {d} (1 could not be written, see above); "
        )),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(outside.join("a.html")).unwrap(), b"precious");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    assert_eq!(std::fs::read(dir.join("other.org/b.html")).unwrap(), b"b");
}

/// `--extract` stopped at the first page it could not write (a file stood where
/// a directory must be), naming no path. Now it names it and goes on.
#[test]
fn extract_reports_a_page_it_cannot_write_and_goes_on() {
    let a = build();
    let top = Path::new(&a.path("top")).to_owned();
    let path = archive_of(
        &top,
        "blog.warc",
        &[
            response(1, "http://site.org/blog/post1", HTML_200, b"post1"),
            response(2, "http://site.org/about", HTML_200, b"about"),
        ],
    );
    let dir = top.join("mirror");
    std::fs::create_dir_all(dir.join("site.org")).unwrap();
    std::fs::write(dir.join("site.org/blog"), b"not ours").unwrap();
    let run = linkbase(&["rewrite", &path, "--extract", dir.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let d = dir.display();
    // The summary line: the archive's own counts (not this test's subject), then the pages.
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "linkbase: {path}: record <urn:uuid:00000000-0000-4000-8000-000000000001> at offset 0: \
             {d}/site.org/blog/post1.html not written: {d}/site.org/blog: exists and is not a directory (a regular file)"
        )
    );
    assert!(
        lines[1].contains(&format!(
            "; 1 page written to {d} (1 could not be written, see above); "
        )),
        "{}",
        run.stderr
    );
    assert_eq!(files_under(&dir), ["site.org/about.html", "site.org/blog"]);
    assert_eq!(
        std::fs::read(dir.join("site.org/blog")).unwrap(),
        b"not ours"
    );
}

/// URLs that map to one file name (`/blog` beside `/blog/post1`, `Page.html` beside
/// `page.html` on a case-insensitive file system, `a/./b` beside `a/b`) overwrote each other in
/// silence, and the summary counted pages that were not there. Now the first keeps the name,
/// the others get `~2`, `~3` before the extension, each said on a line; links go to each URL's
/// own file; the summary counts the files.
#[test]
fn extract_never_overwrites_a_page_with_another_urls() {
    let a = build();
    let top = Path::new(&a.path("top")).to_owned();
    let path = archive_of(
        &top,
        "names.warc",
        &[
            response(
                1,
                "http://site.org/blog.html",
                HTML_200,
                b"<a href=blog.html/post1>p</a> <a href=Page.html>P</a> <a href=page.html>p</a>",
            ),
            response(
                2,
                "http://site.org/blog.html/post1",
                HTML_200,
                b"<a href=../blog.html>b</a>",
            ),
            response(3, "http://site.org/Page.html", HTML_200, b"Page"),
            response(4, "http://site.org/page.html", HTML_200, b"page"),
            response(5, "http://site.org/./page.html", HTML_200, b"dot"),
            response(6, "http://site.org/page.html", HTML_200, b"page again"),
        ],
    );
    for relative in [false, true] {
        let dir = top.join(if relative { "rel" } else { "abs" });
        let mut argv = vec!["rewrite", &path, "--extract", dir.to_str().unwrap()];
        if relative {
            argv.push("--relative");
        }
        let run = linkbase(&argv, b"");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = dir.display();
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(
            lines[..3],
            [
                format!(
                    "linkbase: {path}: http://site.org/blog.html/post1 and http://site.org/blog.html map to one name, \
                     {d}/site.org/blog.html, a directory of http://site.org/blog.html/post1; \
                     http://site.org/blog.html is written to {d}/site.org/blog~2.html"
                ),
                format!(
                    "linkbase: {path}: http://site.org/Page.html and http://site.org/page.html map to one name, \
                     {d}/site.org/page.html; http://site.org/page.html is written to {d}/site.org/page~2.html"
                ),
                format!(
                    "linkbase: {path}: http://site.org/Page.html and http://site.org/./page.html map to one name, \
                     {d}/site.org/page.html; http://site.org/./page.html is written to {d}/site.org/page~3.html"
                ),
            ]
        );
        assert_eq!(lines.len(), 4, "{}", run.stderr);
        let files = files_under(&dir);
        assert_eq!(
            files,
            [
                "site.org/Page.html",
                "site.org/blog.html/post1.html",
                "site.org/blog~2.html",
                "site.org/page~2.html",
                "site.org/page~3.html",
            ]
        );
        assert!(
            lines[3].contains(&format!(
                "; 5 pages written to {d} (3 URLs renamed to keep them apart, see above; \
                 1 later capture of an extracted URL replaced the earlier); "
            )),
            "{}",
            run.stderr
        );
        let read = |p: &str| String::from_utf8(std::fs::read(dir.join(p)).unwrap()).unwrap();
        assert_eq!(read("site.org/Page.html"), "Page");
        assert_eq!(read("site.org/page~2.html"), "page again");
        assert_eq!(read("site.org/page~3.html"), "dot");
        if relative {
            assert_eq!(
                read("site.org/blog~2.html"),
                "<a href=blog.html/post1.html>p</a> <a href=Page.html>P</a> <a href=page~2.html>p</a>"
            );
            assert_eq!(
                read("site.org/blog.html/post1.html"),
                "<a href=../blog~2.html>b</a>"
            );
        }
    }
}

/// `--extract` wrote only the HTML pages (an unstyled mirror), and a link to a URL
/// whose record is a redirect stayed absolute. Now every 2xx record is a file (its content
/// coding undone), a stylesheet's `url()` and `@import` are relinked as a MIME message's CSS
/// parts are, and a redirect to an extracted file is followed as wget `-k` does.
#[test]
fn extract_writes_stylesheets_images_scripts_fonts_and_follows_redirects() {
    let a = build();
    let top = Path::new(&a.path("top")).to_owned();
    let css = "@import \"more.css\";\nbody{background:url(../img/a.png)}\n@font-face{src:url(\"/f/x.woff2\")}\na{background:url(#x)}";
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe";
    let js: &[u8] = b"console.log('<a href=/x>');";
    let js_record = response(
        5,
        "http://s.org/js/app.js",
        "HTTP/1.1 200 OK\nContent-Type: application/javascript\nContent-Encoding: gzip\n",
        &gz(js),
    );
    let path = archive_of(
        &top,
        "site.warc",
        &[
            response(
                1,
                "http://s.org/",
                HTML_200,
                b"<link rel=stylesheet href=css/site.css><img src=img/a.png><script src=/js/app.js></script><a href=/old>old</a> <a href=/gone>gone</a>",
            ),
            response(
                2,
                "http://s.org/css/site.css",
                "HTTP/1.1 200 OK\nContent-Type: text/css; charset=utf-8\n",
                css.as_bytes(),
            ),
            response(3, "http://s.org/img/a.png", "HTTP/1.1 200 OK\nContent-Type: image/png\n", png),
            response(4, "http://s.org/f/x.woff2", "HTTP/1.1 200 OK\nContent-Type: font/woff2\n", b"wOF2\0\x01"),
            js_record,
            response(6, "http://s.org/old", "HTTP/1.1 301 Moved Permanently\nLocation: /new.html\n", b""),
            response(7, "http://s.org/new.html", HTML_200, b"<a href=/>home</a>"),
            response(8, "http://s.org/gone", "HTTP/1.1 302 Found\nLocation: http://elsewhere.org/\n", b""),
            // A revisit of the image, under another URL (wget --warc-dedup).
            Rec {
                kind: "revisit",
                id: id(9),
                uri: "http://s.org/img/b.png",
                extra: vec![
                    (
                        "WARC-Profile",
                        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest".into(),
                    ),
                    ("WARC-Refers-To", id(3)),
                ],
                content_type: HTTP,
                block: b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n".to_vec(),
            },
        ],
    );
    let dir = top.join("mirror");
    let run = linkbase(
        &[
            "rewrite",
            &path,
            "--extract",
            dir.to_str().unwrap(),
            "--relative",
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        files_under(&dir),
        [
            "s.org/css/site.css",
            "s.org/f/x.woff2",
            "s.org/img/a.png",
            "s.org/img/b.png",
            "s.org/index.html",
            "s.org/js/app.js",
            "s.org/new.html",
        ]
    );
    let read = |p: &str| std::fs::read(dir.join(p)).unwrap();
    assert_eq!(
        String::from_utf8(read("s.org/index.html")).unwrap(),
        "<link rel=stylesheet href=css/site.css><img src=img/a.png><script src=js/app.js></script><a href=new.html>old</a> <a href=http://s.org/gone>gone</a>"
    );
    assert_eq!(
        String::from_utf8(read("s.org/css/site.css")).unwrap(),
        "@import \"http://s.org/css/more.css\";\nbody{background:url(../img/a.png)}\n@font-face{src:url(\"../f/x.woff2\")}\na{background:url(#x)}"
    );
    assert_eq!(read("s.org/img/a.png"), png);
    assert_eq!(read("s.org/img/b.png"), png);
    assert_eq!(read("s.org/js/app.js"), js);
    assert_eq!(
        String::from_utf8(read("s.org/new.html")).unwrap(),
        "<a href=index.html>home</a>"
    );
    let summary = run.stderr.lines().last().unwrap();
    assert!(
        summary.contains(&format!(
            "; 2 pages and 5 other files written to {} (1 redirect to an extracted file followed); ",
            dir.display()
        )),
        "{}",
        run.stderr
    );
    // Without --relative, the stylesheet's links are absolute.
    let abs = top.join("abs");
    let run = linkbase(&["rewrite", &path, "--extract", abs.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        String::from_utf8(std::fs::read(abs.join("s.org/css/site.css")).unwrap()).unwrap(),
        "@import \"http://s.org/css/more.css\";\nbody{background:url(http://s.org/img/a.png)}\n@font-face{src:url(\"http://s.org/f/x.woff2\")}\na{background:url(#x)}"
    );
}

/// Counts say "1 record", "1 conversion record", "1 page", never "1 records".
#[test]
fn one_record_one_conversion_one_page_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    let path = archive_of(
        dir.path(),
        "one.warc",
        &[response(
            1,
            "http://ex.org/a.html",
            HTML_200,
            b"<a href=b>b</a>",
        )],
    );
    let out = dir.path().join("out.warc");
    let run = linkbase(&["rewrite", &path, "-o", out.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        super::util::untimed(&run.stderr),
        format!(
            "linkbase: {path}: 1 record read: 1 HTML (0 of them revisits), 0 skipped, 0 damaged; \
             1 conversion record added; written to {}; T s\n",
            out.display()
        )
    );
    let extracted = dir.path().join("x");
    let run = linkbase(
        &["rewrite", &path, "--extract", extracted.to_str().unwrap()],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("; 1 page written to {}; ", extracted.display())),
        "{}",
        run.stderr
    );
    // --relative: no <base> notice when none went, and the count when one did.
    let run = linkbase(
        &[
            "rewrite",
            &path,
            "--extract",
            dir.path().join("r").to_str().unwrap(),
            "--relative",
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("<base>"), "{}", run.stderr);
    let based = archive_of(
        dir.path(),
        "based.warc",
        &[
            response(
                1,
                "http://ex.org/a.html",
                HTML_200,
                b"<base href=\"/d/\"><a href=b>b</a>",
            ),
            response(2, "http://ex.org/d/b", HTML_200, b"<a href=../a.html>a</a>"),
        ],
    );
    let run = linkbase(
        &[
            "rewrite",
            &based,
            "--extract",
            dir.path().join("b").to_str().unwrap(),
            "--relative",
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "; <base> removed from 1 page (by --relative: it would redirect the relative links); "
        ),
        "{}",
        run.stderr
    );
}

/// Each record's base and link records say the media type the document was
/// read as: the archived HTTP `Content-Type`'s essence, a `resource` record's own, `text/html`
/// when none was declared and the payload was sniffed.
#[test]
fn records_carry_their_content_type() {
    let dir = tempfile::tempdir().unwrap();
    let path = archive_of(
        dir.path(),
        "types.warc",
        &[
            response(
                1,
                "http://ex.org/x.xhtml",
                "HTTP/1.1 200 OK\nContent-Type: Application/XHTML+XML; charset=utf-8\n",
                b"<html xmlns=\"http://www.w3.org/1999/xhtml\"><a href=\"a\">a</a></html>",
            ),
            response(
                2,
                "http://ex.org/sniffed",
                "HTTP/1.1 200 OK\n",
                b"<html><a href=\"b\">b</a>",
            ),
            Rec {
                kind: "resource",
                id: id(3),
                uri: "http://ex.org/dir/",
                extra: Vec::new(),
                content_type: "text/html; charset=utf-8",
                block: b"<a href=\"c\">c</a>".to_vec(),
            },
        ],
    );
    let run = linkbase(&["links", &path], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got: Vec<(String, String)> = jsonl(&run.stdout)
        .iter()
        .map(|l| (l["original"].to_string(), l["content_type"].to_string()))
        .collect();
    assert_eq!(
        got,
        [
            ("\"a\"".to_owned(), "\"application/xhtml+xml\"".to_owned()),
            ("\"b\"".to_owned(), "\"text/html\"".to_owned()),
            ("\"c\"".to_owned(), "\"text/html\"".to_owned()),
        ]
    );
    let run = linkbase(&["base", &path], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let types: Vec<Value> = jsonl(&run.stdout)
        .iter()
        .map(|b| b["content_type"].clone())
        .collect();
    assert_eq!(types, ["application/xhtml+xml", "text/html", "text/html"]);
}
