//! `rewrite MBOX`: each message rewritten as an `.eml` is, the mbox written
//! back with only what changed re-encoded; mboxrd `>From ` quoting and mboxcl2 `Content-Length`
//! kept right. Round trips: read, rewrite, read back.

use super::util::{jsonl, linkbase};

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

/// An mboxrd mailbox: an HTML message whose body has `From ` and `>From ` lines (quoted once
/// more in the file), a plain message, and a quoted-printable HTML part in a multipart one.
const MBOXRD: &str = "From alice@example.org Mon Jan  1 00:00:00 2001\n\
From: alice@example.org\n\
Message-ID: <one@example.org>\n\
Content-Type: text/html\n\
Content-Location: http://h/one/\n\
\n\
<a href=x.html>x</a>\n\
>From the archive\n\
>>From a quote\n\
\n\
From bob@example.org Mon Jan  1 00:00:01 2001\n\
From: bob@example.org\n\
Content-Type: text/plain\n\
\n\
>From plain text, left alone\n\
\n\
From carol@example.org Mon Jan  1 00:00:02 2001\r\n\
From: carol@example.org\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/related; boundary=\"b\"\r\n\
\r\n\
--b\r\n\
Content-Type: text/html; charset=utf-8\r\n\
Content-Transfer-Encoding: quoted-printable\r\n\
Content-Location: http://h/three/index.html\r\n\
\r\n\
<p class=3D\"c\">caf=C3=A9 <img src=3D\"../img/a.png\"></p>\r\n\
--b\r\n\
Content-Type: text/plain\r\n\
\r\n\
>From inside a part\r\n\
--b--\r\n";

/// The resolved URL of each link, by message.
fn resolved(stdout: &str) -> Vec<(String, String, String)> {
    jsonl(stdout)
        .iter()
        .map(|l| {
            (
                l["mbox_message"].to_string(),
                l["original"].as_str().unwrap().to_owned(),
                l["resolved"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn rewrite_writes_the_mbox_back_with_only_links_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "in.mbox", MBOXRD.as_bytes());
    let out = dir.path().join("out.mbox");
    let run = linkbase(&["rewrite", &path, "-o", out.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, format!("linkbase: {path}: 3 messages read\n"));
    // Written independently of the writer: the input with the two URLs replaced, in the HTML
    // message as written and in the quoted-printable part as quoted-printable.
    let want = MBOXRD
        .replace("href=x.html", "href=http://h/one/x.html")
        .replace("src=3D\"../img/a.png\"", "src=3D\"http://h/img/a.png\"");
    let got = String::from_utf8(std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(got, want);
    // Read back: the same messages and links, now absolute.
    let before = linkbase(&["links", &path], b"");
    let after = linkbase(&["links", out.to_str().unwrap()], b"");
    assert_eq!(after.code, 0, "{}", after.stderr);
    let want_links: Vec<(String, String, String)> = resolved(&before.stdout)
        .into_iter()
        .map(|(m, _, r)| (m, r.clone(), r))
        .collect();
    assert_eq!(
        want_links,
        [
            (
                "0".into(),
                "http://h/one/x.html".into(),
                "http://h/one/x.html".into()
            ),
            (
                "2".into(),
                "http://h/img/a.png".into(),
                "http://h/img/a.png".into()
            ),
        ]
    );
    assert_eq!(resolved(&after.stdout), want_links);
    // Rewriting again changes nothing: every message is copied as it is.
    let again = linkbase(&["rewrite", out.to_str().unwrap()], b"");
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.stdout, want);
    // From stdin, to stdout.
    let piped = linkbase(&["rewrite", "-"], MBOXRD.as_bytes());
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert_eq!(piped.stdout, want);
    assert_eq!(piped.stderr, "linkbase: stdin: 3 messages read\n");
}

/// mboxcl2: a message framed by its Content-Length (a `From ` line in its body, unquoted) is
/// read whole, and written back with the Content-Length of its new body.
#[test]
fn rewrite_keeps_mboxcl2_framing() {
    let body =
        "<a href=\"a.html\">a</a>\n\nFrom a line that is no envelope Mon Jan  1 00:00:00 2001\n";
    let mbox = format!(
        "From alice@example.org Mon Jan  1 00:00:00 2001\n\
Content-Type: text/html\n\
Content-Location: http://h/d/\n\
Content-Length: {}\n\
\n\
{body}\n\
From bob@example.org Mon Jan  1 00:00:01 2001\n\
Content-Type: text/html\n\
Content-Length: 20\n\
\n\
<a href=b.html>b</a>",
        body.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "cl2.mbox", mbox.as_bytes());
    let links = linkbase(&["links", &path], b"");
    assert_eq!(links.code, 0, "{}", links.stderr);
    // Two messages: the From line in the first body is its text, not a third message.
    assert_eq!(links.stderr, format!("linkbase: {path}: 2 messages read\n"));
    let run = linkbase(&["rewrite", &path], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let new_body = body.replace("a.html", "http://h/d/a.html");
    // The second message has no Content-Location: its link resolves against `thismessage:/`
    // (RFC 2557 §5) and keeps its text.
    let want = mbox.replace(
        &format!("Content-Length: {}\n\n{body}", body.len()),
        &format!("Content-Length: {}\n\n{new_body}", new_body.len()),
    );
    assert_eq!(run.stdout, want);
    assert_eq!(run.stderr, format!("linkbase: {path}: 2 messages read\n"));
    let dir_out = write(&dir, "cl2-out.mbox", run.stdout.as_bytes());
    let back = linkbase(&["links", &dir_out], b"");
    assert_eq!(
        resolved(&back.stdout)
            .into_iter()
            .map(|(_, o, _)| o)
            .collect::<Vec<_>>(),
        ["http://h/d/a.html", "b.html"]
    );
}

/// `links --format tsv` of an mbox ends each row with its message's place (`mbox_message`, as
/// the JSON records carry it), after the columns every input has.
#[test]
fn links_tsv_of_an_mbox_names_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(&dir, "box.mbox", MBOXRD.as_bytes());
    let run = linkbase(&["links", "--format", "tsv", &input], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "part\telement\tattribute\toriginal\tresolved\tbase\tbase_source\tsame_document\t\
         diagnostic\ttarget_part\tline\tcolumn\tmbox_message\n\
         1\ta\thref\tx.html\thttp://h/one/x.html\thttp://h/one/\tcontent-location\tfalse\t\t\t1\t9\t0\n\
         1\timg\tsrc\t../img/a.png\thttp://h/img/a.png\thttp://h/three/index.html\t\
         content-location\tfalse\t\t\t1\t29\t2\n"
    );
    // One message alone has no such column: its input is no mbox.
    let one = MBOXRD.split("\n\nFrom bob").next().unwrap();
    let eml = write(&dir, "one.eml", one.split_once('\n').unwrap().1.as_bytes());
    let run = linkbase(&["links", "--format", "tsv", &eml], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().next(),
        Some(
            "part\telement\tattribute\toriginal\tresolved\tbase\tbase_source\tsame_document\t\
             diagnostic\ttarget_part\tline\tcolumn"
        )
    );
}

/// An mbox past the stream threshold is read from its file (or from stdin's spool) a message at
/// a time and written back as it goes: the same bytes as read in memory, the bytes before the
/// first message copied and said (exit 1), every message counted.
#[test]
fn an_mbox_read_from_its_file_is_written_back_as_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!("not a message\n\n{MBOXRD}");
    let path = write(&dir, "in.mbox", input.as_bytes());
    let want = input
        .replace("href=x.html", "href=http://h/one/x.html")
        .replace("src=3D\"../img/a.png\"", "src=3D\"http://h/img/a.png\"");
    for threshold in ["64", "1000000"] {
        let run = linkbase(&["rewrite", &path, "--stream-threshold", threshold], b"");
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert_eq!(run.stdout, want, "threshold {threshold}");
        assert_eq!(
            run.stderr,
            format!(
                "linkbase: {path}: 15 bytes before the first `From ` line belong to no message: \
                 skipped\nlinkbase: {path}: 3 messages read\n"
            )
        );
    }
    // MimeKit's mbox (29 mails, Content-Length fields that fall short, `From - ` envelopes):
    // streamed and in memory alike.
    let mimekit = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/mbox/mimekit/content-length.mbox.txt"
    );
    let args = |threshold| {
        [
            "rewrite",
            mimekit,
            "--url",
            "http://h/x/",
            "--stream-threshold",
            threshold,
        ]
    };
    let streamed = linkbase(&args("100"), b"");
    let in_memory = linkbase(&args("100000000"), b"");
    assert_eq!(streamed.code, 0, "{}", streamed.stderr);
    assert_eq!(streamed.stdout, in_memory.stdout);
    assert_eq!(streamed.stderr, in_memory.stderr);
    assert!(
        streamed.stderr.ends_with(": 29 messages read\n"),
        "{}",
        streamed.stderr
    );
}
