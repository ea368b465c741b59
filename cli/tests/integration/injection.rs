//! Names and URLs from pages, archives and trees reach no output raw when they
//! hold control or bidirectional characters. Text outputs show them as `\x1b`, `\u{202e}`,
//! `\n` (`linkbase::report::escape_controls`); JSON as `\u001b`, `\u202e`; JUnit XML as
//! `&#x202E;`, with the C0 controls XML 1.0 cannot carry shown as in text.

use super::sites::{s, tmp};
use super::util::linkbase;

/// Anything an attacker could use: ESC (a terminal sequence), RLO (reorders what is shown), a
/// newline (forges a line), DEL, a C1 control and the Arabic letter mark.
fn raw(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c, '\u{1b}' | '\u{202e}' | '\u{7f}' | '\u{85}' | '\u{61c}'))
}

fn page(dir: &std::path::Path) -> std::path::PathBuf {
    let page = dir.join("p.html");
    std::fs::write(
        &page,
        "<meta charset=utf-8><base href=\"http://h/\u{1b}[2J\u{202e}/\">\
         <a href=\"q\u{1b}\u{202e}\u{7f}\u{85}\u{61c}\">x</a>",
    )
    .unwrap();
    page
}

#[test]
fn base_links_and_resolve_escape_what_they_print() {
    let dir = tmp();
    let page = page(dir.path());
    let text = linkbase(&["base", s(&page), "--format", "text"], b"");
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert_eq!(text.stdout, "http://h/\\x1b[2J\\u{202e}/\tbase-element\n");
    let jsonl = linkbase(&["base", s(&page), "--format", "jsonl"], b"");
    assert_eq!(
        jsonl.stdout,
        "{\"part\":null,\"base\":\"http://h/\\u001b[2J\\u202e/\",\"base_source\":\"base-element\",\
         \"encoding\":\"UTF-8\",\"encoding_source\":\"meta\",\"diagnostics\":[]}\n"
    );
    let links = linkbase(&["links", s(&page), "--format", "jsonl"], b"");
    assert!(!raw(&links.stdout), "{}", links.stdout);
    assert!(
        links
            .stdout
            .contains("\"original\":\"q\\u001b\\u202e\\u007f\\u0085\\u061c\""),
        "{}",
        links.stdout
    );
    let tsv = linkbase(&["links", s(&page), "--format", "tsv"], b"");
    assert!(!raw(&tsv.stdout), "{}", tsv.stdout);
    assert!(
        tsv.stdout
            .contains("\tq\\x1b\\u{202e}\\x7f\\u{85}\\u{61c}\t"),
        "{}",
        tsv.stdout
    );

    let reference = "a\u{1b}\u{202e}b";
    let text = linkbase(&["resolve", "--base", "http://h/", reference], b"");
    assert_eq!(text.stdout, "http://h/a\\x1b\\u{202e}b\n");
    let jsonl = linkbase(
        &[
            "resolve",
            "--base",
            "http://h/",
            "--format",
            "jsonl",
            reference,
        ],
        b"",
    );
    assert_eq!(
        jsonl.stdout,
        "{\"ref\":\"a\\u001b\\u202eb\",\"resolved\":\"http://h/a\\u001b\\u202eb\",\
         \"same_document\":false,\"error\":null}\n"
    );
    // A fatal message quoting the input.
    let bad = linkbase(&["resolve", "--base", "\u{1b}\u{202e}", "x"], b"");
    assert_eq!(bad.code, 2);
    assert!(!raw(&bad.stderr), "{}", bad.stderr);
    assert!(bad.stderr.contains("u{1b}"), "{}", bad.stderr);
}

#[test]
fn every_check_format_escapes_names_and_urls() {
    let dir = tmp();
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("evil\u{1b}[31m\u{202e}\nx.html"),
        "<meta charset=utf-8><a href=\"m\u{1b}[2J\u{202e}z.html\">x</a>",
    )
    .unwrap();
    let run = |format: &str| {
        let run = linkbase(
            &[
                "check",
                s(&site),
                "--site-url",
                "http://s/",
                "--format",
                format,
            ],
            b"",
        );
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        assert!(!raw(&run.stdout), "{format}: {}", run.stdout);
        assert!(!raw(&run.stderr), "{format}: {}", run.stderr);
        run.stdout
    };
    for format in ["human", "tsv"] {
        let out = run(format);
        assert!(
            out.contains("evil\\x1b[31m\\u{202e}\\nx.html"),
            "{format}: {out}"
        );
    }
    // Markdown escapes the escapes' backslashes once more.
    let markdown = run("markdown");
    assert!(
        markdown.contains(r"| evil\\x1b[31m\\u{202e}\\nx.html:1:30 (`m\\x1b[2J\\u{202e}z.html`) |"),
        "{markdown}"
    );
    let json = run("json");
    assert!(
        json.contains(r#""file": "evil\u001b[31m\u202e\nx.html","#),
        "{json}"
    );
    assert!(
        json.contains(r#""target": "m\u001b[2J\u202ez.html","#),
        "{json}"
    );
    let jsonl = run("jsonl");
    assert!(
        jsonl.starts_with(r#"{"file":"evil\u001b[31m\u202e\nx.html","#),
        "{jsonl}"
    );
    assert_eq!(
        run("junit"),
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <testsuites name=\"linkbase check\" tests=\"2\" failures=\"1\" errors=\"0\">\n  \
         <testsuite name=\"linkbase check\" tests=\"2\" failures=\"1\" errors=\"0\">\n    \
         <testcase classname=\"linkbase.check.missing\" name=\"m\\x1b[2J&#x202E;z.html\" \
         file=\"{}/evil\\x1b[31m&#x202E;&#10;x.html\" line=\"1\">\n      \
         <failure type=\"missing\" message=\"1 link on 1 page\">evil\\x1b[31m\\u{{202e}}\\nx.html:1:30: \
         &lt;a href&gt; &quot;m\\x1b[2J\\u{{202e}}z.html&quot;</failure>\n    </testcase>\n    \
         <testcase classname=\"linkbase.check\" name=\"every other link\"><system-out>1 page, 1 link: \
         1 internal, 1 broken (0 outside the site root) to 1 target; 0 external (listed, not fetched); \
         0 unresolvable; 0 excluded; 0 not checked</system-out></testcase>\n  \
         </testsuite>\n</testsuites>\n", s(&site))
    );
}

/// `base` of a WARC file: the record's target URI and the page's base, escaped.
#[test]
fn warc_base_text_escapes_target_and_base() {
    let dir = tmp();
    let block = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
                 <base href=\"http://h/\u{1b}[2J/\"><a href=x>x</a>";
    let warc = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
         WARC-Target-URI: http://h/\u{202e}/p\r\nWARC-Date: 2024-01-01T00:00:00Z\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
        block.len()
    );
    let path = dir.path().join("a.warc");
    std::fs::write(&path, warc).unwrap();
    let run = linkbase(&["base", s(&path), "--format", "text"], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "http://h/\\u{202e}/p\thttp://h/\\x1b[2J/\tbase-element\n"
    );
}

/// `rewrite`'s summaries name the file as text outputs show it (already so; kept so).
#[test]
fn rewrite_summaries_escape_file_names() {
    let dir = tmp();
    let page = dir.path().join("e\u{1b}[2J\u{202e}\nx.html");
    std::fs::write(&page, "<a href=\"a\">x</a>").unwrap();
    let run = linkbase(&["rewrite", s(&page)], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.ends_with(
        "e\\x1b[2J\\u{202e}\\nx.html: 1 of 1 link left relative or unresolvable (no base)\n"
    ));
    assert!(!raw(&run.stderr), "{}", run.stderr);
}
