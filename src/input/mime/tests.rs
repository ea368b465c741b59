//! The MIME reader's unit tests: headings, multipart splitting, damage, limits.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::framing::sniff_boundary;
use super::transfer::decode_quoted_printable;
use super::*;

#[test]
fn sniffed_boundaries_are_the_first_delimiter_like_line() {
    assert_eq!(
        sniff_boundary(b"x\r\n--\r\n--  \r\n---\x01\r\n--ok--\r\n--later\r\n").as_deref(),
        Some("ok")
    );
    assert_eq!(sniff_boundary(b"--=_a b\r\n").as_deref(), Some("=_a b"));
    assert_eq!(sniff_boundary(b"no delimiter\r\n-x\r\n"), None);
    assert_eq!(sniff_boundary(&[b'-'; 80]), None);
}

/// The parts of `mail` in pre-order, as mailparse splits them (not descending into
/// enclosed messages): media type and body span.
fn mailparse_parts(
    mail: &mailparse::ParsedMail<'_>,
    origin: usize,
    out: &mut Vec<(String, Range<usize>)>,
) {
    let body = match mail.get_body_encoded() {
        mailparse::body::Body::Base64(b) | mailparse::body::Body::QuotedPrintable(b) => b.get_raw(),
        mailparse::body::Body::SevenBit(b) | mailparse::body::Body::EightBit(b) => b.get_raw(),
        mailparse::body::Body::Binary(b) => b.get_raw(),
    };
    let at = body.as_ptr() as usize - origin;
    out.push((mail.ctype.mimetype.clone(), at..at + body.len()));
    // Only a `multipart/` type is read as a multipart here (mailparse: `multipart…`).
    if mail.ctype.mimetype.starts_with("multipart/") {
        for sub in &mail.subparts {
            mailparse_parts(sub, origin, out);
        }
    }
}

/// The split done here gives the parts mailparse gives, with the same byte
/// spans, on every fixture and corpus message, and on the edge cases of its delimiter rule.
#[test]
fn parts_are_split_as_mailparse_splits_them() {
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["fixtures/mhtml", "../shared/corpus/mhtml"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            // The corpus beside the checkout: optional, but not in CI (`CI` set).
            let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"));
            assert!(!ci, "{dir} is missing; CI must have it");
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if [".eml", ".mht", ".mhtml"].iter().any(|x| name.ends_with(x)) {
                inputs.push((name, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    assert!(inputs.len() >= 20, "{} messages", inputs.len());
    for edge in [
        // A delimiter not at a line start, no close delimiter.
        "Content-Type: multipart/mixed; boundary=b\n\npre --b\n--b\nContent-Type: text/html\n\nx --b y\n--b\n\nz\n",
        // Close delimiter at the very end, CRLF, an empty part, a preamble and epilogue.
        "Content-Type: multipart/mixed; boundary=b\r\n\r\npre\r\n--b\r\n\r\n--b\r\n\r\nx\r\n--b--",
        // The body starts with the delimiter; a delimiter with nothing after it.
        "Content-Type: multipart/mixed; boundary=b\n\n--b\n\na\n--b",
        // A digest: parts default to message/rfc822.
        "Content-Type: multipart/digest; boundary=d\n\n--d\n\nSubject: x\n\nbody\n--d--\n",
    ] {
        inputs.push((edge.into(), edge.as_bytes().to_vec()));
    }
    for (name, bytes) in &inputs {
        let mail = mailparse::parse_mail(bytes).unwrap();
        let mut want = Vec::new();
        mailparse_parts(&mail, bytes.as_ptr() as usize, &mut want);
        let tree = parse(bytes).unwrap();
        // Enclosed messages are descended into here, not by mailparse.
        let in_message = |i: usize| {
            tree.ancestors(i)
                .iter()
                .any(|&a| tree.parts[a].kind == PartKind::Message)
        };
        let got: Vec<(String, Range<usize>)> = (0..tree.parts.len())
            .filter(|&i| !in_message(i))
            .map(|i| {
                let p = &tree.parts[i];
                (p.mime_type.clone(), p.body.clone().unwrap())
            })
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// A line that begins with the delimiter and goes on (`--bz` where the boundary is `b`) is no
/// delimiter line where another line is the delimiter alone, as Python's email package, MimeKit,
/// stalwart's mail-parser and zbateson's read it (mailparse, which splits on any line that
/// begins with it, as RFC 2046 §5.1.1's note allows, differs here): it stays in its part, and a
/// `mime` diagnostic names it at its offset.
#[test]
fn a_line_that_begins_with_the_delimiter_is_no_delimiter() {
    let bytes = b"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html\n\nx\n--bz\n\nz\n--b--\n";
    let tree = parse(bytes).unwrap();
    let types: Vec<&str> = tree.parts.iter().map(|p| p.mime_type.as_str()).collect();
    assert_eq!(types, ["multipart/mixed", "text/html"]);
    let body = tree.parts[1].body.clone().unwrap();
    assert_eq!(&bytes[body], b"x\n--bz\n\nz");
    let at = bytes.windows(4).position(|w| w == b"--bz").unwrap() as u64;
    let d = &tree.diagnostics[0];
    assert_eq!(
        (d.code, d.at.map(|p| p.offset)),
        (DiagnosticCode::Mime, Some(at))
    );
    assert!(
        d.message.contains("\"--bz\" begins with its boundary"),
        "{}",
        d.message
    );
}

/// Multiparts nested past [`MAX_NESTING`]: the innermost one's parts are not read, and a
/// `part-skipped` diagnostic names it, its type and the limit with its value.
#[test]
fn nesting_past_the_limit_is_said() {
    let mut s = String::new();
    for i in 0..MAX_NESTING + 1 {
        s += &format!("Content-Type: multipart/mixed; boundary=\"b{i}x\"\n\n--b{i}x\n");
    }
    s += "Content-Type: text/html\n\n<a href=x>x</a>\n";
    let tree = parse(s.as_bytes()).unwrap();
    assert_eq!(tree.parts.len(), MAX_NESTING);
    let skipped: Vec<(String, String)> = tree
        .skipped
        .iter()
        .map(|(p, d)| (p.clone(), d.to_string()))
        .collect();
    let path = vec!["1"; MAX_NESTING - 1].join(".");
    // Part 1.1.… (99 levels) is the multipart bounded `b99x`: its one part, not read, starts
    // after its delimiter line.
    let unread = s.find("--b99x\n").unwrap() + "--b99x\n".len();
    assert_eq!(
        skipped,
        [(path.clone(), format!(
            "part-skipped at offset {unread}: part {path} (multipart/mixed): nested 100 levels deep: its parts (1) are not read, kept as they were (limit: MIME nesting depth 100)"
        ))]
    );
}

/// Heading fields past [`MAX_FIELDS`] are not read (memory), and a diagnostic says so;
/// the part itself is read.
#[test]
fn heading_fields_past_the_limit_are_said() {
    let mut s = "X: y\n".repeat(MAX_FIELDS);
    s += "Content-Type: image/png\n\n<a href=x>\n";
    let tree = parse(s.as_bytes()).unwrap();
    assert_eq!(tree.parts.len(), 1);
    assert_eq!(tree.parts[0].mime_type, "text/plain");
    assert_eq!(tree.parts[0].decoded.as_deref(), Some(&b"<a href=x>\n"[..]));
    let diagnostics: Vec<String> = tree.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(
        diagnostics,
        ["mime at offset 0: part 1: 1 heading fields past the first 1000 are not read (limit: MIME heading fields 1000)"]
    );
}

/// Past [`MAX_PARTS`], the rest of a multipart's parts are not read, and one diagnostic says
/// how many, from which part on, and the limit.
#[test]
fn parts_past_the_limit_are_said() {
    let extra = 3;
    let mut s =
        String::from("Content-Type: multipart/mixed; boundary=b\nContent-Location: http://h/m\n\n");
    // The top multipart counts as one part.
    s += &"--b\n\n".repeat(MAX_PARTS - 1 + extra);
    s += "--b--\n";
    let tree = parse(s.as_bytes()).unwrap();
    assert_eq!(tree.parts.len(), MAX_PARTS);
    assert_eq!(tree.diagnostics, []);
    let skipped: Vec<(String, String)> = tree
        .skipped
        .iter()
        .map(|(p, d)| (p.clone(), d.to_string()))
        .collect();
    // Part MAX_PARTS, the first not read, starts after the MAX_PARTS-th delimiter line.
    let (line, _) = s.match_indices("--b\n").nth(MAX_PARTS - 1).unwrap();
    assert_eq!(
        skipped,
        [("0".to_owned(), format!(
            "part-skipped at offset {}: part 0 (multipart/mixed, Content-Location \"http://h/m\"): {extra} of its parts, from part {} on, are not read, kept as they were (limit: MIME parts {MAX_PARTS})",
            line + 4,
            MAX_PARTS
        ))]
    );
}

#[test]
fn quoted_printable_keeps_raw_8bit_and_soft_breaks() {
    let raw = b"caf\xe9 =E9t\xc4\xe3 x=\r\nyz=  \nw a=3Db =zz=";
    assert_eq!(
        decode_quoted_printable(raw),
        b"caf\xe9 \xe9t\xc4\xe3 xyzw a=b =zz"
    );
}
