//! WARC: every record is read or said. Archives are built here
//! byte by byte (ISO 28500 §4), each with the one oddity under test.

use std::io::Write;

use serde_json::Value;

use super::util::{linkbase, Run};

const PROFILE: &str =
    "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n";
const PAGE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
const HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";

/// A record: `cl` is the Content-Length written (the block's length when `None`), `end` what
/// follows the block (CRLF CRLF in a whole record).
fn rec(kind: &str, n: u32, uri: &str, extra: &str, block: &[u8], cl: Option<usize>) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{n}>\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2020-01-01T00:00:00Z\r\n{extra}Content-Length: {}\r\n\r\n",
        cl.unwrap_or(block.len())
    )
    .into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

const HTTP: &str = "Content-Type: application/http; msgtype=response\r\n";

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// `links` of `bytes` written as `name`: the run, and (target URI, resolved, truncated) of each
/// link record.
fn links(name: &str, bytes: &[u8]) -> (Run, Vec<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let p = path.to_str().unwrap().to_owned();
    let run = linkbase(&["links", &p], b"");
    let got = run
        .stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            format!(
                "{} {}{}",
                v["warc_target_uri"].as_str().unwrap_or("-"),
                v["resolved"].as_str().unwrap_or("-"),
                if v["truncated"] == Value::Bool(true) {
                    " truncated"
                } else {
                    ""
                }
            )
        })
        .collect();
    let stderr = run.stderr.replace(&format!("{p}: "), "");
    (run, got, stderr)
}

#[test]
fn single_member_gzip_resolves_revisits_whatever_their_place() {
    let info = rec(
        "warcinfo",
        0,
        "",
        "Content-Type: application/warc-fields\r\n",
        b"software: x\r\n",
        None,
    );
    let a = rec(
        "response",
        1,
        "http://h/a/",
        &format!("{HTTP}WARC-Payload-Digest: sha1:AAAA\r\n"),
        PAGE,
        None,
    );
    let r = rec(
        "revisit",
        2,
        "http://h/b/",
        &format!("{HTTP}{PROFILE}WARC-Refers-To: <urn:uuid:1>\r\n"),
        HEAD,
        None,
    );
    // `gzip file.warc`: one member for the whole file.
    let file = [info.clone(), a.clone(), r.clone()].concat();
    let (run, got, stderr) = links("one.warc.gz", &gz(&file));
    let both = ["http://h/a/ http://h/a/x", "http://h/b/ http://h/b/x"];
    assert_eq!(got, both);
    assert_eq!(
        stderr,
        "linkbase: 3 records read: 2 HTML (1 of them revisits), 1 skipped, 0 damaged\n"
    );
    assert_eq!(run.code, 0);
    // A revisit of a record that is not there, in the same member: said with its place.
    let gone = rec(
        "revisit",
        8,
        "http://h/g/",
        &format!("{HTTP}{PROFILE}WARC-Refers-To: <urn:uuid:gone>\r\n"),
        HEAD,
        None,
    );
    let (run, got, stderr) = links("one.warc.gz", &gz(&[file.clone(), gone].concat()));
    assert_eq!(got, both);
    assert_eq!(
        stderr,
        format!("linkbase: record <urn:uuid:8> at offset 0 (byte {} of its gzip member) skipped: its original is not in this file (refers to record <urn:uuid:gone>)\n\
linkbase: 4 records read: 2 HTML (1 of them revisits), 2 skipped (1 revisit whose original is not in the file), 0 damaged\n", file.len())
    );
    assert_eq!(run.code, 1);
}

#[test]
fn a_revisit_of_a_resource_record_is_resolved() {
    // warcit: a directory URL is a revisit, without a block, of the `resource` record of its
    // index file; the payload does not sniff as HTML, its record's Content-Type says it is.
    let res = rec(
        "resource",
        5,
        "http://h/dir/index.html",
        "Content-Type: text/html\r\nWARC-Payload-Digest: sha1:BBBB\r\n",
        b"<meta charset=utf-8><a href=x>x</a>",
        None,
    );
    let rv = rec(
        "revisit",
        6,
        "http://h/dir/",
        &format!("{PROFILE}WARC-Refers-To-Target-URI: http://h/dir/index.html\r\nWARC-Refers-To-Date: 2020-01-01T00:00:00Z\r\nWARC-Payload-Digest: sha1:BBBB\r\n"),
        b"",
        None,
    );
    let (run, got, stderr) = links("res.warc", &[res, rv].concat());
    assert_eq!(
        got,
        [
            "http://h/dir/index.html http://h/dir/x",
            "http://h/dir/ http://h/dir/x"
        ]
    );
    assert_eq!(
        stderr,
        "linkbase: 2 records read: 2 HTML (1 of them revisits), 0 skipped, 0 damaged\n"
    );
    assert_eq!(run.code, 0);
}

#[test]
fn a_revisit_whose_original_is_absent_is_said_counted_and_exits_1() {
    let a = rec("response", 1, "http://h/a/", HTTP, PAGE, None);
    let r = rec(
        "revisit",
        7,
        "http://h/e/",
        &format!("{HTTP}{PROFILE}WARC-Refers-To: <urn:uuid:elsewhere>\r\nWARC-Payload-Digest: sha1:CCCC\r\n"),
        HEAD,
        None,
    );
    let at = a.len();
    let (run, got, stderr) = links("absent.warc", &[a, r].concat());
    assert_eq!(got, ["http://h/a/ http://h/a/x"]);
    assert_eq!(
        stderr,
        format!(
            "linkbase: record <urn:uuid:7> at offset {at} skipped: its original is not in this file (refers to record <urn:uuid:elsewhere>, payload sha1:CCCC)\n\
linkbase: 2 records read: 1 HTML (0 of them revisits), 1 skipped (1 revisit whose original is not in the file), 0 damaged\n"
        )
    );
    assert_eq!(run.code, 1);
}

#[test]
fn a_content_length_three_bytes_off_is_read_up_to_the_next_record() {
    let c = rec("response", 3, "http://h/c/", HTTP, PAGE, None);
    for delta in [-3i64, 3] {
        let cl = (PAGE.len() as i64 + delta) as usize;
        let a = rec("response", 1, "http://h/a/", HTTP, PAGE, Some(cl));
        let next = a.len();
        let (run, got, stderr) = links("off.warc", &[a, c.clone()].concat());
        assert_eq!(
            got,
            ["http://h/a/ http://h/a/x", "http://h/c/ http://h/c/x"],
            "{delta}"
        );
        assert_eq!(
            stderr,
            format!(
                "linkbase: record <urn:uuid:1> at offset 0 read past damage: Content-Length {cl} does not end at the record's end: its block is {} bytes, read up to the next record, at offset {next}\n\
linkbase: 2 records read: 2 HTML (0 of them revisits), 0 skipped, 0 damaged, 1 read past damage\n",
                PAGE.len()
            ),
            "{delta}"
        );
        assert_eq!(run.code, 1, "{delta}");
    }
}

#[test]
fn a_truncated_last_record_is_read_as_far_as_it_goes_and_flagged() {
    let c = rec("response", 3, "http://h/c/", HTTP, PAGE, None);
    let page = [PAGE, b" <a href=y>y</a><a href=z>z</a>"].concat();
    let t = rec("response", 9, "http://h/t/", HTTP, &page, None);
    // Cut inside the last link: x and y are read, z is not.
    let cut = t.len() - 12;
    let at = c.len();
    let (run, got, stderr) = links("cut.warc", &[&c[..], &t[..cut]].concat());
    assert_eq!(
        got,
        [
            "http://h/c/ http://h/c/x",
            "http://h/t/ http://h/t/x truncated",
            "http://h/t/ http://h/t/y truncated",
        ]
    );
    assert_eq!(
        stderr,
        format!(
            "linkbase: record <urn:uuid:9> at offset {at} read past damage: truncated: the archive ends {} bytes into a block of Content-Length {}; read as far as it goes\n\
linkbase: 2 records read: 2 HTML (0 of them revisits), 0 skipped, 0 damaged, 1 read past damage\n",
            page.len() - 8,
            page.len()
        )
    );
    assert_eq!(run.code, 1);
}

#[test]
fn after_a_one_crlf_terminator_offsets_stay_exact() {
    let a = rec("response", 1, "http://h/a/", HTTP, PAGE, None);
    let one = &a[..a.len() - 2];
    let c = rec("response", 3, "http://h/c/", HTTP, PAGE, None);
    let d = rec("response", 4, "http://h/d/", HTTP, PAGE, None);
    let file = [one, &c[..], b"junk", &d[..]].concat();
    let (c_at, junk_at) = (one.len(), one.len() + c.len());
    let uris = [
        "http://h/a/ http://h/a/x",
        "http://h/c/ http://h/c/x",
        "http://h/d/ http://h/d/x",
    ];
    let (run, got, stderr) = links("one.warc", &file);
    assert_eq!(got, uris);
    assert_eq!(
        stderr,
        format!(
            "linkbase: record <urn:uuid:1> at offset 0 read past damage: the block is not followed by CRLF CRLF (ISO 28500 §4) but by 2 bytes up to the next record, at offset {c_at}; read whole\n\
linkbase: damaged record at offset {junk_at}: not a WARC record (no WARC/ version line); skipped 4 bytes to the next record, at offset {}\n\
linkbase: 3 records read: 3 HTML (0 of them revisits), 0 skipped, 1 damaged, 1 read past damage\n",
            junk_at + 4
        )
    );
    assert_eq!(run.code, 1);
    // The same as one gzip member: offsets inside the member.
    let (run, got, stderr) = links("one.warc.gz", &gz(&file));
    assert_eq!(got, uris);
    assert_eq!(
        stderr,
        format!(
            "linkbase: record <urn:uuid:1> at offset 0 read past damage: the block is not followed by CRLF CRLF (ISO 28500 §4) but by 2 bytes up to the next record, at offset 0 (byte {c_at} of its gzip member); read whole\n\
linkbase: damaged record at offset 0 (byte {junk_at} of its gzip member): not a WARC record (no WARC/ version line); skipped 4 bytes to the next record, at offset 0 (byte {} of its gzip member)\n\
linkbase: 3 records read: 3 HTML (0 of them revisits), 0 skipped, 1 damaged, 1 read past damage\n",
            junk_at + 4
        )
    );
    assert_eq!(run.code, 1);
}
