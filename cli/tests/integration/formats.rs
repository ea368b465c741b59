//! Inputs that are neither HTML nor MIME nor WARC (issue 23): ARC archives and mbox mailboxes
//! are recognized by name and by content, and never read as one HTML page.

use std::io::Write;

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

const ARC_HEAD: &[u8] = b"filedesc://old.arc 0.0.0.0 20010101000000 text/plain 77\n\
1 0 Alexa Internet\n\
URL IP-address Archive-date Content-type Archive-length\n\n";

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

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

const ARC_REFUSED: &str = ": an ARC archive (.arc, .arc.gz): this input format is not supported \
yet; convert it to WARC first (for example with warcio or jwarc)\n";

#[test]
fn arc_is_refused_by_name_and_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let paths = [
        write(&dir, "old.arc", ARC_HEAD),
        write(&dir, "OLD.ARC.GZ", &gzip(ARC_HEAD)),
        write(&dir, "sniffed.bin", ARC_HEAD),
        write(&dir, "sniffed.gz", &gzip(ARC_HEAD)),
    ];
    for cmd in ["links", "base", "rewrite"] {
        for path in &paths {
            let run = linkbase(&[cmd, path], b"");
            assert_eq!(run.code, 2, "{cmd} {path}");
            assert_eq!(run.stdout, "", "{cmd} {path}");
            assert_eq!(run.stderr, format!("linkbase: {path}{ARC_REFUSED}"));
        }
        for bytes in [ARC_HEAD.to_vec(), gzip(ARC_HEAD)] {
            let run = linkbase(&[cmd], &bytes);
            assert_eq!(run.code, 2);
            assert_eq!(run.stderr, format!("linkbase: stdin{ARC_REFUSED}"));
        }
    }
}
