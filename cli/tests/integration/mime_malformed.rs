//! MIME: a multipart whose boundary is wrong or missing, or that
//! has no closing delimiter, and a message nested past the depth limit are read as far as they
//! can be and said (a `mime-malformed` or `part-skipped` line, a summary line, exit 1).

use super::util::{linkbase, Run};

const HTML_PART: &str =
    "Content-Type: text/html\r\nContent-Location: http://h/a/\r\n\r\n<a href=x>x</a>\r\n";

/// A message whose top-level Content-Type is `content_type` and whose body is `body`.
fn message(content_type: &str, body: &str) -> Vec<u8> {
    format!("MIME-Version: 1.0\r\nContent-Type: {content_type}\r\n\r\n{body}").into_bytes()
}

/// Where `needle` first occurs in `bytes`, plus `skip`: offsets the diagnostics must name,
/// found here by plain search of the test's own bytes.
fn at(bytes: &[u8], needle: &str, skip: usize) -> usize {
    bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .unwrap()
        + skip
}

/// Where the top-level body starts: after the heading's blank line.
fn body_start(bytes: &[u8]) -> usize {
    at(bytes, "\r\n\r\n", 4)
}

/// `linkbase ARGS... -` on `bytes` (named `-` in messages): the run, and each link record as
/// `part resolved`.
fn run(args: &[&str], bytes: &[u8]) -> (Run, Vec<String>) {
    let mut all = args.to_vec();
    all.push("-");
    let run = linkbase(&all, bytes);
    let links = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            format!(
                "{} {}",
                v["part"].as_str().unwrap_or("-"),
                v["resolved"].as_str().unwrap_or("-")
            )
        })
        .collect();
    (run, links)
}

/// `links`, `base` and `rewrite` of `bytes` each say `stderr` exactly and exit 1, and `links`
/// gives no link.
fn said_by_every_command(bytes: &[u8], stderr: &str) {
    for command in ["links", "base", "rewrite"] {
        let (r, links) = run(&[command], bytes);
        if command == "links" {
            assert!(links.is_empty());
        }
        assert_eq!(r.stderr, stderr, "{command}");
        assert_eq!(r.code, 1, "{command}");
    }
}

const SUMMARY: &str =
    "linkbase: -: 1 mime-malformed diagnostic above: the message is read past damage, as said\n";

#[test]
fn a_boundary_that_never_occurs_is_sniffed_from_the_first_delimiter_line() {
    let body = format!("--BBB\r\n{HTML_PART}--BBB--\r\n");
    let bytes = message("multipart/related; boundary=\"AAA\"", &body);
    let (r, links) = run(&["links"], &bytes);
    assert_eq!(links, ["1 http://h/a/x"]);
    assert_eq!(
        r.stderr,
        format!("linkbase: -: mime-malformed at offset {}: part 0 (multipart/related): its boundary \"AAA\" never occurs; the boundary \"BBB\" of its first delimiter line is used\n{SUMMARY}", body_start(&bytes))
    );
    assert_eq!(r.code, 1);
    // Rewritten in place like any part.
    let (r, _) = run(&["rewrite"], &bytes);
    assert_eq!(
        r.stdout,
        String::from_utf8(bytes)
            .unwrap()
            .replace("href=x", "href=http://h/a/x")
    );
    assert_eq!(r.code, 1);
}

#[test]
fn a_missing_boundary_parameter_is_sniffed_too() {
    let body = format!("preamble\r\n--BBB\r\n{HTML_PART}--BBB--\r\n");
    let bytes = message("multipart/related", &body);
    let (r, links) = run(&["links"], &bytes);
    assert_eq!(links, ["1 http://h/a/x"]);
    assert_eq!(
        r.stderr,
        format!("linkbase: -: mime-malformed at offset {}: part 0 (multipart/related): it has no boundary parameter; the boundary \"BBB\" of its first delimiter line is used\n{SUMMARY}", body_start(&bytes))
    );
    assert_eq!(r.code, 1);
}

#[test]
fn a_multipart_without_any_delimiter_line_is_read_as_one_part() {
    let bytes = message("multipart/related; boundary=B", HTML_PART);
    let (r, links) = run(&["links"], &bytes);
    assert_eq!(links, ["1 http://h/a/x"]);
    assert_eq!(
        r.stderr,
        format!("linkbase: -: mime-malformed at offset {}: part 0 (multipart/related): its boundary \"B\" never occurs and no line is a delimiter; its body is read as one part\n{SUMMARY}", body_start(&bytes))
    );
    assert_eq!(r.code, 1);
}

#[test]
fn a_multipart_without_its_closing_delimiter_ends_at_the_end_of_the_input() {
    let body = format!("--B\r\n{HTML_PART}--B\r\nContent-Type: text/html\r\nContent-Location: http://h/c/\r\n\r\n<img src=i.png>");
    let bytes = message("multipart/related; boundary=B", &body);
    let (r, links) = run(&["links"], &bytes);
    assert_eq!(links, ["1 http://h/a/x", "2 http://h/c/i.png"]);
    // Said where the close delimiter was due: the end of the input.
    assert_eq!(
        r.stderr,
        format!("linkbase: -: mime-malformed at offset {}: part 0: no closing boundary \"--B--\"; the message is truncated: its last part ends at the end of the input\n{SUMMARY}", bytes.len())
    );
    assert_eq!(r.code, 1);
}

#[test]
fn a_message_nested_thirty_levels_deep_is_said_and_exits_1() {
    let mut bytes = HTML_PART.as_bytes().to_vec();
    let wrapper = message("message/rfc822", "");
    for _ in 0..30 {
        bytes = [&wrapper[..], &bytes].concat();
    }
    // Wrappers 0 to 16 are parts 1, 1.1, …; the message enclosed in the 17th (part 1 and 16
    // `.1`s) is not read: it starts after 17 wrappers' headings.
    let part = format!("1{}", ".1".repeat(16));
    said_by_every_command(
        &bytes,
        &format!(
            "linkbase: -: part-skipped at offset {}: part {part} (message/rfc822): the enclosed message is not read, kept as it was (limit: MIME message depth 16)\n\
linkbase: -: 1 part-skipped diagnostic above: what it names is kept as it was\n",
            17 * wrapper.len()
        ),
    );
}

/// Chromium's `invalid-bad-boundary.mht` shape (fixtures/mhtml-other/chromium): the opening
/// delimiter is not at a line start, so the first delimiter line is the close delimiter; the
/// multipart has no part, which is said (it gave no output, no message and exit 0).
#[test]
fn a_multipart_whose_first_delimiter_line_closes_it_is_said() {
    let body = format!("BadBoundary--b\r\n{HTML_PART}--b--\r\n");
    let bytes = message("multipart/related; boundary=b", &body);
    said_by_every_command(
        &bytes,
        &format!(
            "linkbase: -: mime-malformed at offset {}: part 0: multipart without parts (its first \
delimiter line is its close delimiter: what comes before it is preamble, not read)\n{SUMMARY}",
            at(&bytes, "\n--b--", 1)
        ),
    );
}

/// Chromium's `invalid-bad-boundary2.mht` shape: the opening delimiter has a dash too few, so
/// the HTML part falls in the preamble and only the next part is read; the lost part is said
/// (it was silent: the preamble is text to skip, unless it holds the boundary).
#[test]
fn a_preamble_holding_the_boundary_is_said() {
    let image = "Content-Type: image/png\r\nContent-Location: http://h/i.png\r\n\r\nPNG\r\n";
    let body = format!("preamble\r\n-b\r\n{HTML_PART}--b\r\n{image}--b--\r\n");
    let bytes = message("multipart/related; boundary=b", &body);
    said_by_every_command(
        &bytes,
        &format!(
            "linkbase: -: mime-malformed at offset {}: part 0: its preamble has a line with its boundary \
that is no delimiter line (\"-b\"): what comes before its first delimiter line is not read\n{SUMMARY}",
            at(&bytes, "\n-b\r\n", 1)
        ),
    );
    // An ordinary preamble is no damage.
    let body =
        format!("This is a multi-part message in MIME format.\r\n--b\r\n{HTML_PART}--b--\r\n");
    let (r, links) = run(&["links"], &message("multipart/related; boundary=b", &body));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(links, ["1 http://h/a/x"]);
}

/// Offsets are the file's, not the part's: damage in a multipart nested in another (its
/// closing delimiter missing, its boundary wrong) is named where it is in the file.
#[test]
fn nested_damage_is_named_at_its_offset_in_the_file() {
    let inner = format!(
        "Content-Type: multipart/alternative; boundary=\"in\"\r\n\r\n--IN\r\n{HTML_PART}--IN--\r\n"
    );
    let body = format!("--out\r\n{inner}--out\r\nContent-Type: image/png\r\n\r\nPNG\r\n");
    let bytes = message("multipart/mixed; boundary=out", &body);
    let (r, links) = run(&["links"], &bytes);
    assert_eq!(links, ["1.1 http://h/a/x"]);
    // The inner body starts after its heading's blank line; the outer close delimiter is
    // due at the end of the input.
    let inner_body = at(&bytes, "\"in\"\r\n\r\n", 8);
    assert_eq!(
        r.stderr,
        format!(
            "linkbase: -: mime-malformed at offset {inner_body}: part 1 (multipart/alternative): its boundary \"in\" never occurs; the boundary \"IN\" of its first delimiter line is used\n\
linkbase: -: mime-malformed at offset {}: part 0: no closing boundary \"--out--\"; the message is truncated: its last part ends at the end of the input\n\
linkbase: -: 2 mime-malformed diagnostics above: the message is read past damage, as said\n",
            bytes.len()
        )
    );
    assert_eq!(r.code, 1);
}

/// A base64 body that does not decode is left as it was, said at the offset where its body
/// starts.
#[test]
fn an_undecodable_part_is_named_at_its_body() {
    let body = "--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\nPGE+!!!*\r\n--b--\r\n";
    let bytes = message("multipart/related; boundary=b", body);
    said_by_every_command(
        &bytes,
        &format!(
            "linkbase: - part 1: part-skipped at offset {}: left as it was: its body cannot be decoded\n\
linkbase: -: 1 part-skipped diagnostic above: what it names is kept as it was\n",
            at(&bytes, "PGE+", 0)
        ),
    );
}

/// Inside a base64-encoded message/rfc822 (RFC 2046 §5.2.1 forbids it; producers do it), the
/// file has no byte for the damage itself: it is named at the encoded body's start.
#[test]
fn damage_inside_an_encoded_enclosed_message_is_named_at_the_encoded_body() {
    use base64::Engine as _;
    let enclosed = message("multipart/related; boundary=B", HTML_PART);
    let encoded = base64::engine::general_purpose::STANDARD.encode(&enclosed);
    let body = format!(
        "--o\r\nContent-Type: message/rfc822\r\nContent-Transfer-Encoding: base64\r\n\r\n{encoded}\r\n--o--\r\n"
    );
    let bytes = message("multipart/mixed; boundary=o", &body);
    let (r, links) = run(&["links"], &bytes);
    assert_eq!(links, ["1.1 http://h/a/x"]);
    assert_eq!(
        r.stderr,
        format!(
            "linkbase: -: mime-malformed at offset {at}: part 1 (multipart/related): its boundary \"B\" never occurs and no line is a delimiter; its body is read as one part\n\
linkbase: - part 1.1: part-skipped at offset {at}: inside an encoded message/rfc822: links reported, the part left as it was\n\
linkbase: -: 1 mime-malformed diagnostic above: the message is read past damage, as said\n\
linkbase: -: 1 part-skipped diagnostic above: what it names is kept as it was\n",
            at = at(&bytes, &encoded, 0)
        )
    );
}

/// In an mbox the offset is the mbox file's: past the envelope lines, and past the `>` that
/// quoted `From ` lines lost when they were read (mboxrd).
#[test]
fn mbox_damage_is_named_at_its_offset_in_the_mbox() {
    let first = "From a@h Mon Jan  1 00:00:00 2001\r\nFrom: a@h\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\n>From here\r\n\r\n";
    let quoted = ">From me\r\n>>From you\r\n";
    let second = format!(
        "From b@h Mon Jan  1 00:00:00 2001\r\nFrom: b@h\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=b\r\n\r\n{quoted}--b\r\n{HTML_PART}--b\r\n"
    );
    let bytes = format!("{first}{second}").into_bytes();
    let (r, links) = run(&["links"], &bytes);
    assert_eq!(links, ["1 http://h/a/x"]);
    let second_at = first.len();
    // The close delimiter is due at the end of the file.
    assert_eq!(
        r.stderr,
        format!(
            "linkbase: stdin message 1 (offset {second_at}): mime-malformed at offset {}: part 0: no closing boundary \"--b--\"; the message is truncated: its last part ends at the end of the input\n\
linkbase: stdin message 1 (offset {second_at}): 1 mime-malformed diagnostic above: the message is read past damage, as said\n\
linkbase: stdin: 2 messages read\n",
            bytes.len()
        )
    );
    // Damage in the preamble, after the quoted lines: its stray line is named in the file,
    // past the two `>` the reading took away.
    let second = format!(
        "From b@h Mon Jan  1 00:00:00 2001\r\nFrom: b@h\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=b\r\n\r\n{quoted}-b\r\n{HTML_PART}--b\r\n{HTML_PART}--b--\r\n"
    );
    let bytes = format!("{first}{second}").into_bytes();
    let (r, _) = run(&["links"], &bytes);
    assert_eq!(
        r.stderr,
        format!(
            "linkbase: stdin message 1 (offset {second_at}): mime-malformed at offset {}: part 0: its preamble has a line with its boundary that is no delimiter line (\"-b\"): what comes before its first delimiter line is not read\n\
linkbase: stdin message 1 (offset {second_at}): 1 mime-malformed diagnostic above: the message is read past damage, as said\n\
linkbase: stdin: 2 messages read\n",
            at(&bytes, "\n-b\r\n", 1)
        )
    );
}

/// Eudora 4's nested boundaries begin with the outer one (`…_123456789==_.REL` inside
/// `…_123456789==_`): a line is a delimiter only when it is the delimiter alone, as Python's
/// email package, MimeKit, stalwart's mail-parser and zbateson's mail-mime-parser read it, so
/// the HTML part is 1.1.2 (not 2.2, after an empty part 1), its images are found, and the
/// ambiguity is a `mime` diagnostic at the line's offset. The message is written the way
/// Eudora 4.2 wrote Hunny Software's sample m2005 (`fixtures/mail/eudora-nested-boundary.eml`,
/// made for this repository).
#[test]
fn eudora_nested_boundary_that_begins_with_the_outer_one() {
    let path = format!(
        "{}/../fixtures/mail/eudora-nested-boundary.eml",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap();
    let run = linkbase(
        &[
            "links",
            "--format",
            "tsv",
            "--url",
            "http://example.org/mail/",
            &path,
        ],
        b"",
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let rows: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let got: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[4], r[9])).collect();
    assert_eq!(
        got,
        [
            ("1.1.2", "http://example.org/mail/news/today.html", ""),
            (
                "1.1.2",
                "cid:4.2.0.58.20260101000000.00a00000@pop.example.org.2",
                "1.2"
            ),
            (
                "1.1.2",
                "cid:4.2.0.58.20260101000000.00a00000@pop.example.org.3",
                "1.3"
            ),
        ]
    );
    let run = linkbase(&["base", &path], b"");
    let base: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let line = "--=====================_123456789==_.REL";
    assert_eq!(base["diagnostics"][0]["code"], "mime");
    assert_eq!(base["diagnostics"][0]["offset"], at(&bytes, line, 0));
    assert!(base["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains(&format!("the line {line:?} begins with its boundary")));
    // `rewrite --extract` finds the inline images.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("page");
    let run = linkbase(&["rewrite", &path, "--extract", out.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("2 links to them made relative"),
        "{}",
        run.stderr
    );
    for name in ["index.html", "one.png", "two.png"] {
        assert!(
            out.join("message").join(name).is_file(),
            "{name}: {}",
            run.stderr
        );
    }
    let page = std::fs::read_to_string(out.join("message/index.html")).unwrap();
    assert!(page.contains("src=\"one.png\""), "{page}");
}

/// A multipart whose delimiter lines all go on after the boundary: read by RFC 2046 §5.1.1's
/// note (a line that begins with the delimiter is one), and said.
#[test]
fn delimiter_lines_that_all_go_on_are_read_by_rfc_2046() {
    let bytes = message(
        "multipart/related; boundary=b",
        &format!("--b trailing\r\n{HTML_PART}--b-- trailing\r\n"),
    );
    let run = linkbase(&["base", "-"], &bytes);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let base: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(base["part"], "1");
    assert_eq!(base["base"], "http://h/a/");
    assert_eq!(base["diagnostics"][0]["code"], "mime");
    assert_eq!(base["diagnostics"][0]["offset"], body_start(&bytes));
}
