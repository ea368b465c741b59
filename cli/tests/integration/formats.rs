//! mbox mailboxes (issue 23) are recognized by name and by content, and never read as one HTML
//! page: refused with a message naming the input and the format (ARC input: `arc.rs`).

use super::util::linkbase;

const MBOX: &[u8] = b"From alice@example.org Mon Jan  1 00:00:00 2001\n\
From: alice@example.org\n\
Content-Type: text/html\n\
\n\
<a href=x>x</a>\n\
\n\
From bob@example.org Mon Jan  1 00:00:01 2001\n\
From: bob@example.org\n\
Content-Type: text/html\n\
\n\
<a href=y>y</a>\n";

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

const MBOX_REFUSED: &str =
    ": an mbox mailbox (many mails after `From ` lines): this input format is \
not supported yet; split it into one .eml file per message first\n";

#[test]
fn mbox_is_refused_by_name_and_by_content() {
    let dir = tempfile::tempdir().unwrap();
    // By name, whatever the content; by content, whatever the name.
    let named = write(&dir, "INBOX.MBOX", b"<p>anything</p>");
    let sniffed = write(&dir, "mail.txt", MBOX);
    for cmd in ["links", "base", "rewrite"] {
        for path in [&named, &sniffed] {
            let run = linkbase(&[cmd, path], b"");
            assert_eq!(run.code, 2, "{cmd} {path}");
            assert_eq!(run.stdout, "", "{cmd} {path}");
            assert_eq!(run.stderr, format!("linkbase: {path}{MBOX_REFUSED}"));
        }
        let run = linkbase(&[cmd], MBOX);
        assert_eq!(run.code, 2);
        assert_eq!(run.stderr, format!("linkbase: stdin{MBOX_REFUSED}"));
    }
}

#[test]
fn from_lines_that_are_not_mbox() {
    // An HTML page that opens with the word "From".
    let run = linkbase(
        &["base", "--url", "http://h/a/"],
        b"From here on <a href=x>x</a>\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("http://h/a/"), "{}", run.stdout);
    // An .eml that opens with its envelope line stays one message.
    let dir = tempfile::tempdir().unwrap();
    let eml = write(
        &dir,
        "one.eml",
        b"From alice@example.org Mon Jan  1 00:00:00 2001\n\
MIME-Version: 1.0\n\
Content-Type: text/html\n\
Content-Location: http://h/m/\n\
\n\
<a href=x>x</a>\n",
    );
    let run = linkbase(&["links", &eml], b"");
    assert_eq!(run.stderr, "");
    assert_eq!(run.code, 0);
}
