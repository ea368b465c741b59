//! Issue 23 "never a silent skip", MIME: a multipart whose boundary is wrong or missing, or that
//! has no closing delimiter, and a message nested past the depth limit are read as far as they
//! can be and said (a `mime-malformed` or `part-skipped` line, a summary line, exit 1).

use super::util::{linkbase, Run};

const HTML_PART: &str =
    "Content-Type: text/html\r\nContent-Location: http://h/a/\r\n\r\n<a href=x>x</a>\r\n";

/// A message whose top-level Content-Type is `content_type` and whose body is `body`.
fn message(content_type: &str, body: &str) -> Vec<u8> {
    format!("MIME-Version: 1.0\r\nContent-Type: {content_type}\r\n\r\n{body}").into_bytes()
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
        format!("linkbase: -: mime-malformed: part 0 (multipart/related): its boundary \"AAA\" never occurs; the boundary \"BBB\" of its first delimiter line is used\n{SUMMARY}")
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
    let (r, links) = run(&["links"], &message("multipart/related", &body));
    assert_eq!(links, ["1 http://h/a/x"]);
    assert_eq!(
        r.stderr,
        format!("linkbase: -: mime-malformed: part 0 (multipart/related): it has no boundary parameter; the boundary \"BBB\" of its first delimiter line is used\n{SUMMARY}")
    );
    assert_eq!(r.code, 1);
}

#[test]
fn a_multipart_without_any_delimiter_line_is_read_as_one_part() {
    let (r, links) = run(
        &["links"],
        &message("multipart/related; boundary=B", HTML_PART),
    );
    assert_eq!(links, ["1 http://h/a/x"]);
    assert_eq!(
        r.stderr,
        format!("linkbase: -: mime-malformed: part 0 (multipart/related): its boundary \"B\" never occurs and no line is a delimiter; its body is read as one part\n{SUMMARY}")
    );
    assert_eq!(r.code, 1);
}

#[test]
fn a_multipart_without_its_closing_delimiter_ends_at_the_end_of_the_input() {
    let body = format!("--B\r\n{HTML_PART}--B\r\nContent-Type: text/html\r\nContent-Location: http://h/c/\r\n\r\n<img src=i.png>");
    let (r, links) = run(&["links"], &message("multipart/related; boundary=B", &body));
    assert_eq!(links, ["1 http://h/a/x", "2 http://h/c/i.png"]);
    assert_eq!(
        r.stderr,
        format!("linkbase: -: mime-malformed: part 0: no closing boundary \"--B--\"; the message is truncated: its last part ends at the end of the input\n{SUMMARY}")
    );
    assert_eq!(r.code, 1);
}

#[test]
fn a_message_nested_thirty_levels_deep_is_said_and_exits_1() {
    let mut bytes = HTML_PART.as_bytes().to_vec();
    for _ in 0..30 {
        bytes = [&message("message/rfc822", "")[..], &bytes].concat();
    }
    let part = format!("1{}", ".1".repeat(16));
    said_by_every_command(
        &bytes,
        &format!(
            "linkbase: -: part-skipped: part {part} (message/rfc822): the enclosed message is not read, kept as it was (limit: MIME message depth 16)\n\
linkbase: -: 1 part-skipped diagnostic above: what it names is kept as it was\n"
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
            "linkbase: -: mime-malformed: part 0: multipart without parts (its first \
delimiter line is its close delimiter: what comes before it is preamble, not read)\n{SUMMARY}"
        ),
    );
}

/// Chromium's `invalid-bad-boundary2.mht` shape: the opening delimiter has a dash too few, so
/// the HTML part falls in the preamble and only the next part is read; the lost part is said
/// (it was silent: the preamble is text to skip, unless it holds the boundary).
#[test]
fn a_preamble_holding_the_boundary_is_said() {
    let image = "Content-Type: image/png\r\nContent-Location: http://h/i.png\r\n\r\nPNG\r\n";
    let body = format!("-b\r\n{HTML_PART}--b\r\n{image}--b--\r\n");
    let bytes = message("multipart/related; boundary=b", &body);
    said_by_every_command(
        &bytes,
        &format!(
            "linkbase: -: mime-malformed: part 0: its preamble has a line with its boundary \
that is no delimiter line (\"-b\"): what comes before its first delimiter line is not read\n{SUMMARY}"
        ),
    );
    // An ordinary preamble is no damage.
    let body =
        format!("This is a multi-part message in MIME format.\r\n--b\r\n{HTML_PART}--b--\r\n");
    let (r, links) = run(&["links"], &message("multipart/related; boundary=b", &body));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(links, ["1 http://h/a/x"]);
}
