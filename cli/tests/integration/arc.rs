//! ARC input: `links` and `base` of ARC files (v1 and v2 URL lines, plain and one
//! gzip member per record) built here byte by byte from the ARC file format's grammar, and of
//! warcio's test ARCs (`fixtures/arc/warcio/`, Apache-2.0, its LICENSE beside them). Each HTML
//! record's expected links are the single-document path's on its payload with `--url` (the URL
//! line's URL) and `--headers` (the archived HTTP head). Damage is said with its offset, exit 1.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use super::util::{expected_links, jsonl, linkbase};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// One ARC record: the URL line (v1: 5 fields, v2: 10), the block, the newline after it.
fn record(v2: bool, url: &str, date: &str, ctype: &str, block: &[u8]) -> Vec<u8> {
    let line = if v2 {
        format!(
            "{url} 10.0.0.1 {date} {ctype} 200 CHECKSUM - 0 test.arc {}\n",
            block.len()
        )
    } else {
        format!("{url} 10.0.0.1 {date} {ctype} {}\n", block.len())
    };
    let mut out = line.into_bytes();
    out.extend_from_slice(block);
    out.push(b'\n');
    out
}

fn version_block(v2: bool) -> Vec<u8> {
    let body: &[u8] = if v2 {
        b"2 0 Test\nURL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length\n"
    } else {
        b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n"
    };
    // The version block's URL line has the address 0.0.0.0 in real files.
    let r = record(
        v2,
        "filedesc://test.arc",
        "20010101000000",
        "text/plain",
        body,
    );
    String::from_utf8(r)
        .unwrap()
        .replacen("10.0.0.1", "0.0.0.0", 1)
        .into_bytes()
}

const HEAD_A: &str = "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n";
const PAGE_A: &[u8] = b"<html><a href=\"b.html\">b</a><img src=/i.png></html>";
const HEAD_C: &str =
    "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Location: http://other.example/dir/\r\n\r\n";
const PAGE_C: &[u8] = b"<base href=../up/><a href=x>x</a>";

/// (URL, HTTP head, payload) of the test archive's HTML records.
fn pages() -> Vec<(&'static str, &'static str, &'static [u8])> {
    vec![
        ("http://example.com/a/index.html", HEAD_A, PAGE_A),
        ("http://example.com/c/", HEAD_C, PAGE_C),
    ]
}

/// The test archive's records: version block, a page, an image, a `dns:` record, a page.
fn records(v2: bool) -> Vec<Vec<u8>> {
    let block = |head: &str, body: &[u8]| {
        let mut b = head.as_bytes().to_vec();
        b.extend_from_slice(body);
        b
    };
    vec![
        version_block(v2),
        record(
            v2,
            "http://example.com/a/index.html",
            "20010203040506",
            "text/html",
            &block(HEAD_A, PAGE_A),
        ),
        record(
            v2,
            "http://example.com/i.png",
            "20010203040507",
            "image/png",
            &block(
                "HTTP/1.0 200 OK\r\nContent-Type: image/png\r\n\r\n",
                b"\x89PNG\0\0",
            ),
        ),
        record(
            v2,
            "dns:example.com",
            "20010203040508",
            "text/dns",
            b"20010203040508\nexample.com. 3600 IN A 10.0.0.1\n",
        ),
        record(
            v2,
            "http://example.com/c/",
            "20010203040509",
            "text/html",
            &block(HEAD_C, PAGE_C),
        ),
    ]
}

/// The archive's link records grouped by target URI, without the record fields.
fn by_uri(links: &[Value]) -> Vec<(String, Vec<Value>)> {
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for l in links {
        let uri = l["warc_target_uri"].as_str().unwrap().to_owned();
        let mut l = l.clone();
        let o = l.as_object_mut().unwrap();
        for k in ["warc_record_id", "warc_target_uri", "warc_date"] {
            o.remove(k);
        }
        match out.last_mut() {
            Some((u, v)) if *u == uri => v.push(l),
            _ => out.push((uri, vec![l])),
        }
    }
    out
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_owned()
}

#[test]
fn links_of_every_html_record_match_the_single_document_path() {
    let dir = tempfile::tempdir().unwrap();
    for v2 in [false, true] {
        let recs = records(v2);
        let plain: Vec<u8> = recs.concat();
        let gz: Vec<u8> = recs.iter().flat_map(|r| gzip(r)).collect();
        for (name, bytes) in [("t.arc", &plain), ("t.arc.gz", &gz)] {
            let path = write(dir.path(), name, bytes);
            let run = linkbase(&["links", &path], b"");
            assert_eq!(run.code, 0, "{name} v2={v2}: {}", run.stderr);
            assert_eq!(
                run.stderr,
                format!("linkbase: {path}: 5 records read: 2 HTML (0 of them revisits), 3 skipped, 0 damaged\n")
            );
            let links = jsonl(&run.stdout);
            let got = by_uri(&links);
            let want: Vec<(String, Vec<Value>)> = pages()
                .iter()
                .map(|(uri, head, payload)| {
                    (
                        uri.to_string(),
                        expected_links(dir.path(), uri, head, payload),
                    )
                })
                .collect();
            assert_eq!(got, want, "{name} v2={v2}");
            // The record fields: no ID (ARC has none), the URL line's URL and date.
            assert_eq!(links[0]["warc_record_id"], Value::Null);
            assert_eq!(links[0]["warc_date"], "2001-02-03T04:05:06Z");
            // The same bytes from stdin.
            let run = linkbase(&["links"], bytes);
            assert_eq!(run.code, 0, "{}", run.stderr);
            assert_eq!(jsonl(&run.stdout), links);
        }
    }
}

#[test]
fn base_of_every_html_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "t.arc", &records(false).concat());
    let run = linkbase(&["base", &path, "--format", "text"], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let bases: Vec<Value> = jsonl(&linkbase(&["base", &path], b"").stdout);
    let got: Vec<(&str, &str)> = bases
        .iter()
        .map(|b| {
            (
                b["base"].as_str().unwrap(),
                b["base_source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("http://example.com/a/index.html", "retrieval-uri"),
            ("http://other.example/up/", "base-element"),
        ]
    );
}

/// warcio's test ARCs: the page's links are the single-document path's.
#[test]
fn warcio_example_arcs() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/arc/warcio");
    let raw = std::fs::read(fixtures.join("example.arc")).unwrap();
    // Independently of the reader: the second URL line, its length, the block after it.
    let text_end = raw.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let line_end = text_end + raw[text_end..].iter().position(|&b| b == b'\n').unwrap();
    let line = std::str::from_utf8(&raw[text_end..line_end]).unwrap();
    let fields: Vec<&str> = line.split(' ').collect();
    let (url, length): (&str, usize) = (fields[0], fields[4].parse().unwrap());
    let block = &raw[line_end + 1..line_end + 1 + length];
    let split = block.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = std::str::from_utf8(&block[..split]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let want = expected_links(dir.path(), url, head, &block[split..]);
    assert!(!want.is_empty());
    for name in ["example.arc", "example.arc.gz"] {
        let path = fixtures.join(name);
        let run = linkbase(&["links", path.to_str().unwrap()], b"");
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let got = by_uri(&jsonl(&run.stdout));
        assert_eq!(got, vec![(url.to_owned(), want.clone())], "{name}");
    }
}

/// Damaged ARC files: every stretch said with its offset, the run exits 1.
#[test]
fn damage_is_said_with_its_offset() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/arc/warcio");
    // warcio's file whose URL has spaces in it is 12 bytes shorter than its length says.
    let path = fixtures.join("example-space-in-url.arc");
    let path = path.to_str().unwrap();
    let run = linkbase(&["links", path], b"");
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {path}: record (no WARC-Record-ID) at offset 151 read past damage: the file \
             ends 1579 bytes into its 1591-byte block: read as far as it goes\n\
             linkbase: {path}: 2 records read: 1 HTML (0 of them revisits), 1 skipped, 0 damaged, \
             1 read past damage\n"
        )
    );
    let links = jsonl(&run.stdout);
    assert!(links.iter().all(|l| l["truncated"] == true), "{links:?}");
    assert_eq!(
        links[0]["warc_target_uri"],
        "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False"
    );
    // warcio's bad.arc: a version block of length -1, a record of length 1 followed by lines.
    let path = fixtures.join("bad.arc");
    let path = path.to_str().unwrap();
    let run = linkbase(&["links", path], b"");
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {path}: damaged record at offset 0: not an ARC record (no URL line); 202 \
             bytes skipped to the next URL line, at offset 202\n\
             linkbase: {path}: record (no WARC-Record-ID) at offset 202 read past damage: \
             Archive-length 1 ends 69 bytes before the end of the file: the block is read up to it\n\
             linkbase: {path}: 1 record read: 0 HTML (0 of them revisits), 1 skipped, 1 damaged, \
             1 read past damage\n"
        )
    );
}

#[test]
fn lengths_that_are_off_are_read_past_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(false);
    let at = |i: usize| recs[..i].iter().map(Vec::len).sum::<usize>();
    // The first page's length 5 too short, then 5 too long.
    for (delta, note) in [
        (
            -5i64,
            "Archive-length 90 ends 5 bytes before the next URL line: the block is read up to it",
        ),
        (
            5,
            "Archive-length 100 runs past the next URL line, 96 bytes into its block: the block is read up to it",
        ),
    ] {
        let mut bad = recs.clone();
        let text = String::from_utf8(bad[1].clone()).unwrap();
        let n = 95i64 + delta;
        bad[1] = text.replacen(" 95\n", &format!(" {n}\n"), 1).into_bytes();
        assert_ne!(bad[1], recs[1], "the length is 95");
        let path = write(dir.path(), "bad.arc", &bad.concat());
        let run = linkbase(&["links", &path], b"");
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "linkbase: {path}: record (no WARC-Record-ID) at offset {} read past damage: {note}\n\
                 linkbase: {path}: 5 records read: 2 HTML (0 of them revisits), 3 skipped, 0 damaged, 1 read past damage\n",
                at(1)
            ),
            "delta {delta}"
        );
        // Every page's links, as in the whole file.
        assert_eq!(
            by_uri(&jsonl(&run.stdout)).len(),
            2,
            "delta {delta}: {}",
            run.stdout
        );
    }
    // Lines between records that are no URL line: the record before is read up to the next
    // URL line (as warcio reads it), and that is said.
    let mut bad = recs.clone();
    bad.insert(2, b"garbage line\nmore\n".to_vec());
    let path = write(dir.path(), "bad.arc", &bad.concat());
    let run = linkbase(&["links", &path], b"");
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {path}: record (no WARC-Record-ID) at offset {} read past damage: \
             Archive-length 95 ends 18 bytes before the next URL line: the block is read up to it\n\
             linkbase: {path}: 5 records read: 2 HTML (0 of them revisits), 3 skipped, 0 damaged, \
             1 read past damage\n",
            at(1)
        )
    );
}

#[test]
fn a_truncated_gzip_member_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<Vec<u8>> = records(false).iter().map(|r| gzip(r)).collect();
    let mut bytes = members.concat();
    bytes.truncate(bytes.len() - 30);
    let last = members[..4].iter().map(Vec::len).sum::<usize>();
    let path = write(dir.path(), "cut.arc.gz", &bytes);
    let run = linkbase(&["links", &path], b"");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(&format!("at offset {last}")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("1 damaged") || run.stderr.contains("read past damage"));
}

/// The single-document rewrite of a payload, what an ARC record's new payload must be.
fn rewritten_payload(dir: &Path, uri: &str, head: &str, payload: &[u8]) -> Vec<u8> {
    let page = write(dir, "page.html", payload);
    let headers = write(dir, "head.txt", head.as_bytes());
    let run = linkbase(
        &["rewrite", &page, "--url", uri, "--headers", &headers],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.into_bytes()
}

/// `rewrite -o` of an ARC writes ARC: each HTML record whose links changed
/// is the same record with the new payload, its URL line's length recomputed (v1 and v2);
/// every other record byte for byte. An `.arc.gz` is written `.arc.gz`, the new record a gzip
/// member of its own in place of the old one, every other member copied as it was. Read back,
/// its links are the rewritten ones; rewritten again, nothing changes.
fn rewrite_round_trip(gz: bool) {
    let dir = tempfile::tempdir().unwrap();
    let ext = if gz { "arc.gz" } else { "arc" };
    // Each record a gzip member of its own, as .arc.gz files are.
    let pack = |records: &[Vec<u8>]| -> Vec<u8> {
        if gz {
            records.iter().flat_map(|r| gzip(r)).collect()
        } else {
            records.concat()
        }
    };
    for v2 in [false, true] {
        let input = records(v2);
        let path = write(dir.path(), &format!("t.{ext}"), &pack(&input));
        let out = dir.path().join(format!("out.{ext}"));
        let run = linkbase(&["rewrite", &path, "-o", out.to_str().unwrap()], b"");
        assert_eq!(run.code, 0, "v2={v2}: {}", run.stderr);
        assert!(
            run.stderr.starts_with(&format!(
                "linkbase: {path}: 5 records read: 2 HTML (0 of them revisits), 3 skipped, 0 \
                 damaged; 2 records rewritten in place; written to {}; ",
                out.display()
            )),
            "{}",
            run.stderr
        );
        // Built independently of the writer: the test's own record layout, new payloads.
        let page = |uri: &str, date: &str, head: &str, payload: &[u8]| {
            let mut block = head.as_bytes().to_vec();
            block.extend_from_slice(&rewritten_payload(dir.path(), uri, head, payload));
            record(v2, uri, date, "text/html", &block)
        };
        let want = pack(&[
            input[0].clone(),
            page(
                "http://example.com/a/index.html",
                "20010203040506",
                HEAD_A,
                PAGE_A,
            ),
            input[2].clone(),
            input[3].clone(),
            page("http://example.com/c/", "20010203040509", HEAD_C, PAGE_C),
        ]);
        let got = std::fs::read(&out).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "v2={v2}"
        );
        assert_ne!(got, pack(&input));
        // Read back: nothing damaged, every link now as rewritten (absolute).
        let back = linkbase(&["links", out.to_str().unwrap()], b"");
        assert_eq!(back.code, 0, "{}", back.stderr);
        let links = jsonl(&back.stdout);
        let originals: Vec<&str> = links
            .iter()
            .map(|l| l["original"].as_str().unwrap())
            .collect();
        assert_eq!(
            originals,
            [
                "http://example.com/a/b.html",
                "http://example.com/i.png",
                "http://other.example/up/",
                "http://other.example/up/x"
            ]
        );
        // Rewriting the output again changes nothing.
        let again = dir.path().join(format!("again.{ext}"));
        let run = linkbase(
            &[
                "rewrite",
                out.to_str().unwrap(),
                "-o",
                again.to_str().unwrap(),
            ],
            b"",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(std::fs::read(&again).unwrap(), got);
    }
}

#[test]
fn rewrite_writes_arc_with_lengths_recomputed() {
    rewrite_round_trip(false);
}

#[test]
fn rewrite_writes_arc_gz_a_member_per_record() {
    rewrite_round_trip(true);
}

/// warcio's example.arc.gz (Apache-2.0): written back as .arc.gz, read back with the same
/// records and its one HTML record's links as `links` resolved them.
#[test]
fn warcio_arc_gz_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = "../fixtures/arc/warcio/example.arc.gz";
    let out = dir.path().join("out.arc.gz");
    let run = linkbase(&["rewrite", input, "-o", out.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let before = linkbase(&["links", input], b"");
    let after = linkbase(&["links", out.to_str().unwrap()], b"");
    assert_eq!(after.code, 0, "{}", after.stderr);
    let (before, after) = (jsonl(&before.stdout), jsonl(&after.stdout));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a["original"], b["resolved"]);
        assert_eq!(a["resolved"], b["resolved"]);
        assert_eq!(a["warc_target_uri"], b["warc_target_uri"]);
    }
    let base = |p: &str| linkbase(&["base", p, "--format", "jsonl"], b"").stdout;
    assert_eq!(base(input), base(out.to_str().unwrap()));
}

/// An .arc.gz of one gzip member for the whole file: its records cannot be replaced one by
/// one, so each changed one is kept as it was and said, exit 1; the archive is copied whole.
#[test]
fn rewrite_of_an_arc_gz_in_one_member_keeps_records_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let input = records(false).concat();
    let path = write(dir.path(), "t.arc.gz", &gzip(&input));
    let out = dir.path().join("out.arc.gz");
    let run = linkbase(&["rewrite", &path, "-o", out.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[..2],
        [
            format!(
                "linkbase: {path}: record at offset 0 (http://example.com/a/index.html) not \
                 rewritten: it shares a gzip member with the record before it: left as it was"
            ),
            format!(
                "linkbase: {path}: record at offset 0 (http://example.com/c/) not rewritten: it \
                 shares a gzip member with the record before it: left as it was"
            ),
        ]
    );
    assert_eq!(std::fs::read(&out).unwrap(), gzip(&input));
}

/// The output is compressed like the input; another name is refused before anything is written.
#[test]
fn rewrite_of_an_arc_gz_to_a_plain_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let gz: Vec<u8> = records(false).iter().flat_map(|r| gzip(r)).collect();
    let path = write(dir.path(), "t.arc.gz", &gz);
    let out = dir.path().join("out.arc");
    let run = linkbase(&["rewrite", &path, "-o", out.to_str().unwrap()], b"");
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {}: the output archive is written gzip-compressed like the input; name it \
             .arc.gz\n",
            out.display()
        )
    );
    assert!(!out.exists());
}

#[test]
fn extract_writes_the_archived_pages() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(false);
    let gz: Vec<u8> = recs.iter().flat_map(|r| gzip(r)).collect();
    let path = write(dir.path(), "t.arc.gz", &gz);
    let out = dir.path().join("site");
    let run = linkbase(&["rewrite", &path, "--extract", out.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = std::fs::read_to_string(out.join("example.com/a/index.html")).unwrap();
    assert_eq!(
        page,
        "<html><a href=\"http://example.com/a/b.html\">b</a><img src=http://example.com/i.png></html>"
    );
    assert_eq!(
        std::fs::read(out.join("example.com/i.png")).unwrap(),
        b"\x89PNG\0\0"
    );
    assert!(out.join("example.com/c/index.html").exists());
}

/// jwat's `invalid-arcfile-record-then-garbage.arc` (`fixtures/arc/jwat/`, Apache-2.0): no
/// version block, one record, then a URL line cut short. It was read as WARC ("not a WARC
/// record", 0 records); its record is read, as jwat and warcio read it, and what is wrong is
/// said.
#[test]
fn jwat_arc_without_a_version_block() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/arc/jwat/invalid-arcfile-record-then-garbage.arc");
    let path = path.to_str().unwrap();
    let run = linkbase(&["links", path], b"");
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {path}: record (no WARC-Record-ID) at offset 0 read past damage: the file \
             has no version block (its first record is not a filedesc:// one): its records are \
             read by their URL lines; Archive-length 2248 ends 26 bytes before the end of the \
             file: the block is read up to it\n\
             linkbase: {path}: 1 record read: 1 HTML (0 of them revisits), 0 skipped, 0 damaged, \
             1 read past damage\n"
        )
    );
    let links = jsonl(&run.stdout);
    assert!(!links.is_empty());
    assert!(links
        .iter()
        .all(|l| l["warc_target_uri"] == "http://www.bt.dk/node/10297547/print"));
    assert!(links.iter().any(|l| l["resolved"]
        == "http://www.bt.dk/sites/all/themes/erhvervsbladet/css/print_article.css"));
}

/// An ARC file that starts with a record, without a version block, written the way
/// NetarchiveSuite's `input-illegal.arc` is (a v1 URL line, an HTTP response with LF line
/// ends), named `.txt`: an ARC file by its content.
#[test]
fn an_arc_without_a_version_block_by_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let block = "HTTP/1.1 200 OK\nContent-Type: text/html\n\n<a href=\"robots.html\">r</a>\n";
    let arc = format!(
        "http://www.example.dk/a/ 130.226.231.141 20041105133457 text/html {}\n{block}\n",
        block.len()
    );
    let path = write(dir.path(), "illegal.txt", arc.as_bytes());
    let run = linkbase(&["links", &path], b"");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("read past damage: the file has no version block"),
        "{}",
        run.stderr
    );
    let links = jsonl(&run.stdout);
    assert_eq!(links.len(), 1);
    assert_eq!(links[0]["resolved"], "http://www.example.dk/a/robots.html");
}

/// An empty `.arc` is no archive: said, exit 1 (it read as "0 records", exit 0).
#[test]
fn an_empty_arc_file_is_said() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["empty.arc", "empty.arc.gz", "empty.warc"] {
        let path = write(dir.path(), name, b"");
        let run = linkbase(&["links", &path], b"");
        assert_eq!(run.code, 1, "{name}");
        let what = if name.contains("warc") {
            "the file is empty (or blank lines only): no WARC record"
        } else {
            "the file is empty: no ARC record, not even the filedesc:// version block an ARC \
             file opens with"
        };
        assert_eq!(
            run.stderr,
            format!(
                "linkbase: {path}: damaged record at offset 0: {what}\n\
                 linkbase: {path}: 0 records read: 0 HTML (0 of them revisits), 0 skipped, 1 \
                 damaged\n"
            ),
            "{name}"
        );
    }
}

/// Lengths no record has, where the block is not held, recovered as WARC's are: a version
/// block's length past 64 KiB, and an Archive-length past 256 MiB that runs past the end of
/// the file (plain), or past its gzip member (`.arc.gz`). Every intact record after them is
/// read (they were all lost), and the damage is said.
#[test]
fn oversized_lengths_are_read_past() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(false);
    // The version block claims 100,000 bytes.
    let mut bad = recs.clone();
    let text = String::from_utf8(bad[0].clone()).unwrap();
    let old = text
        .lines()
        .next()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_owned();
    bad[0] = text
        .replacen(&format!(" {old}\n"), " 100000\n", 1)
        .into_bytes();
    let path = write(dir.path(), "big-filedesc.arc", &bad.concat());
    let run = linkbase(&["links", &path], b"");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(
            "read past damage: the version block's Archive-length 100000 is past the 64 KiB a \
             version block may have: its block is read up to the next URL line, at offset"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(by_uri(&jsonl(&run.stdout)).len(), 2, "{}", run.stderr);
    // The first page claims 300 MiB.
    let huge = 300u64 << 20;
    for gz in [false, true] {
        let mut bad = recs.clone();
        let text = String::from_utf8(bad[1].clone()).unwrap();
        bad[1] = text
            .replacen(" 95\n", &format!(" {huge}\n"), 1)
            .into_bytes();
        let bytes: Vec<u8> = if gz {
            bad.iter().flat_map(|r| gzip(r)).collect()
        } else {
            bad.concat()
        };
        let name = if gz { "huge.arc.gz" } else { "huge.arc" };
        let path = write(dir.path(), name, &bytes);
        let run = linkbase(&["links", &path], b"");
        assert_eq!(run.code, 1, "{name}");
        let said = if gz {
            format!("Archive-length {huge} runs past its gzip member")
        } else {
            format!("Archive-length {huge} runs past the end of the file: the block is read up to the next URL line")
        };
        assert!(run.stderr.contains(&said), "{name}: {}", run.stderr);
        // The page past a bound is skipped and said; the other page's links are all there.
        assert_eq!(
            by_uri(&jsonl(&run.stdout)).len(),
            1,
            "{name}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("5 records read"),
            "{name}: {}",
            run.stderr
        );
    }
}
