//! The archive reader's unit tests.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::conversion::*;
use super::payload::*;
use super::reader::*;
use super::*;
use crate::input::warc;
use crate::layout::Kind;
use crate::pipeline::Options;

#[test]
fn dechunk_follows_rfc_9112() {
    assert_eq!(
        dechunk(b"3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n").as_deref(),
        Some(&b"abcde"[..])
    );
    assert_eq!(dechunk(b"<html>"), None);
    assert_eq!(dechunk(b"ffffffffffffffffff\r\nx"), None);
}

#[test]
fn html_is_recognised_by_type_or_sniffed() {
    assert!(is_html(Some("text/html; charset=utf-8"), b""));
    assert!(is_html(Some("application/xhtml+xml"), b""));
    assert!(!is_html(Some("text/css"), b"<html>"));
    assert!(is_html(None, b"  <!DOCTYPE html><p>"));
    assert!(is_html(Some(""), b"<HTML>"));
    assert!(!is_html(None, b"%PDF-1.4"));
    assert!(!is_html(None, b"<abbr>"));
}

#[test]
fn warc_dates_are_utc_iso8601() {
    assert_eq!(warc_date(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(warc_date(1_795_000_000), "2026-11-18T11:06:40Z");
    assert_eq!(warc_date(0), "1970-01-01T00:00:00Z");
}

#[test]
fn extract_paths_are_wget_names_inside_the_directory() {
    let p = |u: &str| extract_path(u, Kind::Other).map(|p| p.display().to_string());
    assert_eq!(
        p("http://Example.org/").as_deref(),
        Some("example.org/index.html")
    );
    assert_eq!(
        p("http://h:8080/a/b/").as_deref(),
        Some("h:8080/a/b/index.html")
    );
    assert_eq!(
        p("http://h/a/../../x.html?q=1").as_deref(),
        Some("h/a/x.html?q=1")
    );
    assert_eq!(p("http://h/..").as_deref(), Some("h/index.html"));
    assert_eq!(p("mailto:x@y"), None);
}

#[test]
fn extract_names_never_leave_the_directory() {
    let p = |u: &str| extract_path(u, Kind::Other).map(|p| p.display().to_string());
    // A `/` in the query no longer makes directories.
    assert_eq!(
        p("http://ex.org/p?x=/../../../../../ESCAPED.html").as_deref(),
        Some("ex.org/p?x=%2F..%2F..%2F..%2F..%2F..%2FESCAPED.html")
    );
    assert_eq!(
        p("http://h/a\\..\\b/c\u{1b}[2J\u{0}\u{85}.html").as_deref(),
        Some("h/a%5C..%5Cb/c%1B[2J%00%C2%85.html")
    );
    assert_eq!(p("http://../x"), None);
    assert_eq!(p("http://h\u{7}x/").as_deref(), Some("h%07x/index.html"));
}

#[test]
fn long_extract_names_are_cut_with_a_stable_hash() {
    let long = "x".repeat(300);
    let path = extract_path(&format!("http://h/{long}/{long}?q"), Kind::Other).unwrap();
    let names: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_str().unwrap().to_owned())
        .collect();
    assert_eq!(names.len(), 3);
    assert_eq!(names[1].len(), EXTRACT_NAME_MAX);
    assert_eq!(names[2].len(), EXTRACT_NAME_MAX);
    assert_eq!(
        names[1],
        format!("{}~{}", "x".repeat(238), "02fd68253071f895")
    );
    assert_ne!(names[1], names[2], "the hash is of the whole component");
    // A multibyte character is never cut in half.
    let path = extract_path(&format!("http://h/{}", "é".repeat(200)), Kind::Other).unwrap();
    assert!(path.to_str().unwrap().len() <= 2 + EXTRACT_NAME_MAX);
}

fn rec(kind: &str, id: &str, uri: &str, extra: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <{id}>\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2020-01-01T00:00:00Z\r\n{extra}Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

#[test]
fn revisits_find_their_original_by_id_target_and_date_or_digest() {
    let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
    let head = b"HTTP/1.1 200 OK\r\n\r\n";
    let profile =
        "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n";
    let mut file = rec(
        "response",
        "o1",
        "http://h/a/",
        "WARC-Payload-Digest: sha1:AAAA\r\n",
        page,
    );
    // Heritrix: target URI and date of the original.
    file.extend(rec("revisit", "r1", "http://h/b/", &format!("{profile}WARC-Refers-To-Target-URI: http://h/a/\r\nWARC-Refers-To-Date: 2020-01-01T00:00:00Z\r\n"), head));
    // Only the payload digest.
    file.extend(rec(
        "revisit",
        "r2",
        "http://h/c/",
        &format!("{profile}WARC-Payload-Digest: sha1:AAAA\r\n"),
        head,
    ));
    // An original that is not in the file.
    file.extend(rec(
        "revisit",
        "r3",
        "http://h/d/",
        &format!("{profile}WARC-Refers-To: <elsewhere>\r\n"),
        head,
    ));
    let dir = std::env::temp_dir().join(format!("linkbase-revisit-{}", std::process::id()));
    std::fs::write(&dir, &file).unwrap();
    let archive = Archive::open(&dir, ArchiveOptions::default()).unwrap();
    let got: Vec<String> = archive
        .map(|e| match e {
            Event::Html(h) => {
                let report = links(&h, "t", &Options::default()).unwrap();
                format!(
                    "{} {:?}",
                    report.links[0].resolved.as_deref().unwrap_or(""),
                    h.revisit_of
                )
            }
            Event::Skipped { reason, .. } => reason.name().to_owned(),
            Event::Damaged(d) => d.to_string(),
            Event::Other(o) => format!("other {}", o.id()),
        })
        .collect();
    std::fs::remove_file(&dir).unwrap();
    assert_eq!(
        got,
        [
            "http://h/a/x None",
            "http://h/b/x Some(\"<o1>\")",
            "http://h/c/x Some(\"<o1>\")",
            "revisit-without-original",
        ]
    );
}

/// A record inside a gzip member that holds several is read back from its place
/// (what a revisit does when its original has left [`RecentRecords`]).
#[test]
fn records_inside_a_shared_gzip_member_are_read_back_from_their_place() {
    let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
    let a = rec("response", "a", "http://h/a/", "", page);
    let b = rec("response", "b", "http://h/b/", "", page);
    let bytes = gzip_member(&[a.clone(), b].concat()).unwrap();
    let at = warc::Place {
        offset: 0,
        within: a.len() as u64,
    };
    let got = read_record_at(&Store::Memory(bytes.into()), at)
        .unwrap()
        .unwrap();
    assert_eq!(got.record_id(), Some("<b>"));
    assert_eq!((got.offset, got.within), (0, a.len() as u64));
    // The cache drops the oldest records past its bound.
    let mut recent = RecentRecords::default();
    let mut big = got.clone();
    big.block = Some(vec![0; SHARED_MEMBER_CACHE / 2 + 1]);
    recent.add(&big);
    big.within += 1;
    recent.add(&big);
    assert!(recent.get(at).is_none());
    assert_eq!(recent.records.len(), 1);
    assert_eq!(recent.bytes, SHARED_MEMBER_CACHE / 2 + 1);
}

/// Two URLs never share a file; a file never takes a directory's name.
#[test]
fn extract_names_never_share_a_file() {
    let (names, collisions) = ExtractNames::assign(
        [
            "http://h/a",
            "http://h/a/",
            "http://h/A.html",
            "http://h/a.html",
            "http://H/a.html",
            "http://h/a~2.html",
            "http://h/s.css?v=1",
            "http://h/a.html",
            "http://h/./s.css?v=1",
        ]
        .map(|u| (u, Kind::Other)),
    );
    let file = |u: &str| names.file(u).unwrap().to_str().unwrap().to_owned();
    assert_eq!(file("http://h/a"), "h/a~2");
    assert_eq!(file("http://h/a/"), "h/a/index.html");
    assert_eq!(file("http://h/A.html"), "h/A.html");
    assert_eq!(file("http://h/a.html"), "h/a~2.html");
    assert_eq!(file("http://H/a.html"), "h/a~3.html");
    assert_eq!(file("http://h/a~2.html"), "h/a~2~2.html");
    assert_eq!(file("http://h/s.css?v=1"), "h/s.css?v=1");
    assert_eq!(file("http://h/./s.css?v=1"), "h/s~2.css?v=1");
    // A link to an equivalent spelling finds the first file of the name.
    assert_eq!(file("http://h/./A.html"), "h/A.html");
    assert_eq!(names.len(), 8);
    let moved: Vec<(&str, &str, bool)> = collisions
        .iter()
        .map(|c| (c.uri.as_str(), c.holder.as_str(), c.directory))
        .collect();
    assert_eq!(
        moved,
        [
            ("http://h/a", "http://h/a/", true),
            ("http://h/a.html", "http://h/A.html", false),
            ("http://H/a.html", "http://h/A.html", false),
            ("http://h/a~2.html", "http://h/a.html", false),
            ("http://h/./s.css?v=1", "http://h/s.css?v=1", false),
        ]
    );
    let long = format!("http://h/{}.html", "x".repeat(250));
    let (names, _) = ExtractNames::assign(
        [
            long.as_str(),
            &format!("http://h/./{}.html", "x".repeat(250)),
        ]
        .map(|u| (u, Kind::Other)),
    );
    let f = names
        .file(&format!("http://h/./{}.html", "x".repeat(250)))
        .unwrap();
    assert!(f.file_name().unwrap().len() <= EXTRACT_NAME_MAX);
    assert!(f.to_str().unwrap().ends_with("~2.html"));
}

/// A redirect to an extracted file is followed, in chains, within bounds; one
/// with a file of its own, or leading nowhere extracted, is not.
#[test]
fn extract_redirects_lead_to_the_file_of_their_target() {
    let (mut names, _) =
        ExtractNames::assign(["http://h/new.html", "http://h/kept"].map(|u| (u, Kind::Other)));
    let r = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    let mut loop_ = vec![
        r("http://h/l1", "http://h/l2"),
        r("http://h/l2", "http://h/l1"),
    ];
    loop_.extend([
        r("http://h/old", "http://h/older"),
        r("http://h/older", "http://h/new.html"),
        r("http://h/kept", "http://h/new.html"),
        r("http://h/out", "http://elsewhere/"),
    ]);
    assert_eq!(names.follow(&loop_), 2);
    let file = |u: &str| names.file(u).map(|p| p.to_str().unwrap().to_owned());
    assert_eq!(file("http://h/old").as_deref(), Some("h/new.html"));
    assert_eq!(file("http://h/older").as_deref(), Some("h/new.html"));
    assert_eq!(file("http://h/kept").as_deref(), Some("h/kept"));
    assert_eq!(file("http://h/out"), None);
    assert_eq!(file("http://h/l1"), None);
}

#[test]
fn extracted_pages_link_to_each_other_relatively() {
    use crate::rewrite::Relink as _;
    let (names, collisions) = ExtractNames::assign(
        [
            "http://h/a/b.html",
            "http://h/",
            "http://h/s?q=1",
            "http://other/x.html",
        ]
        .map(|u| (u, Kind::Other)),
    );
    assert!(collisions.is_empty());
    let r = ExtractRelinker::new(std::sync::Arc::new(names));
    let rel = |d: &str, u: &str| r.relink(d, u);
    assert_eq!(
        rel("http://h/a/b.html", "http://h/").as_deref(),
        Some("../index.html")
    );
    assert_eq!(
        rel("http://h/", "http://h/a/b.html#t").as_deref(),
        Some("a/b.html#t")
    );
    assert_eq!(
        rel("http://h/", "http://h/s?q=1").as_deref(),
        Some("s%3Fq=1")
    );
    assert_eq!(
        rel("http://h/a/b.html", "http://other/x.html").as_deref(),
        Some("../../other/x.html")
    );
    assert_eq!(
        rel("http://h/a/b.html", "http://h/a/b.html#x").as_deref(),
        Some("#x")
    );
    assert_eq!(rel("http://h/", "http://h/missing.html"), None);
}

/// `--extract` names files by the rule trees are read with (wget's, with
/// `-E`): decoded names, the query in the name, `.html` and `.css` ensured, no default port.
#[test]
fn extract_names_are_wget_e_names() {
    let p = |u: &str, k: Kind| extract_path(u, k).map(|p| p.display().to_string());
    assert_eq!(
        p("http://h:80/sub/page.php?id=1", Kind::Html).as_deref(),
        Some("h/sub/page.php?id=1.html")
    );
    assert_eq!(
        p("https://h:443/style.css?v=1", Kind::Css).as_deref(),
        Some("h/style.css?v=1.css")
    );
    assert_eq!(
        p("http://h/a%20b/%D1%81.html", Kind::Html).as_deref(),
        Some("h/a b/с.html")
    );
    assert_eq!(
        p("http://h/%2E%2E/x.png?a=%2F", Kind::Other).as_deref(),
        Some("h/x.png?a=%2F")
    );
    assert_eq!(p("http://h/", Kind::Html).as_deref(), Some("h/index.html"));
    // The same rule as a wget tree's lookup: its first candidate on Unix.
    assert_eq!(
        crate::layout::wget_candidates(&["sub"], "page.php", Some("id=1"))[1],
        "sub/page.php?id=1.html"
    );
}
