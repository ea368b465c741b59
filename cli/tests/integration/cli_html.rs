//! `linkbase rewrite`, `links` and `base` on HTML documents, as docs/usage.md describes them.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::util::{jsonl, linkbase, Run};

const URL: &str = "http://h/a/b/p.html";
const DOC: &[u8] = b"<a href=\"../x\">x</a>";
const DOC_OUT: &str = r#"<a href="http://h/a/x">x</a>"#;

/// A fresh temporary directory, removed when dropped. (`tempfile` is a dependency of the `cli`
/// feature, which the `linkbase` binary these tests run needs anyway.)
fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("linkbase-cli-html-")
        .tempdir()
        .expect("temporary directory")
}

/// Writes `bytes` to `dir/name` and returns the path.
fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test file");
    path
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Like `util::linkbase`, for output that is not UTF-8: (exit code, stdout bytes, stderr).
fn linkbase_bytes(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linkbase");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `util::linkbase` for runs expected to fail: linkbase may refuse before it reads stdin, so
/// a closed stdin pipe is not an error here.
fn linkbase_refusing(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linkbase");
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The documented fields (docs/usage.md) of a `links --format jsonl` record (more fields are allowed and
/// ignored), checking that each is present.
fn contract_fields(record: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for key in [
        "part",
        "element",
        "attribute",
        "original",
        "resolved",
        "base",
        "base_source",
        "same_document",
    ] {
        let value = record
            .get(key)
            .unwrap_or_else(|| panic!("field {key} missing from {record}"));
        out.insert(key.to_owned(), value.clone());
    }
    Value::Object(out)
}

/// `base --format jsonl` for `stdin` with `args`: (base, base_source) of the one record.
fn base_of(args: &[&str], stdin: &[u8]) -> (Value, String) {
    let mut all = vec!["base"];
    all.extend_from_slice(args);
    let run = linkbase(&all, stdin);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    let records = jsonl(&run.stdout);
    assert_eq!(records.len(), 1, "{}", run.stdout);
    (
        records[0]["base"].clone(),
        records[0]["base_source"].as_str().unwrap().to_owned(),
    )
}

// ---------------------------------------------------------------------------------------------
// rewrite: where the input comes from and where the output goes

#[test]
fn rewrite_stdin_to_stdout() {
    let run = linkbase(&["rewrite", "--url", URL], DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, DOC_OUT);
    assert_eq!(run.stderr, "");
    // `-` names stdin explicitly.
    let run = linkbase(&["rewrite", "--url", URL, "-"], DOC);
    assert_eq!((run.code, run.stdout.as_str()), (0, DOC_OUT));
}

#[test]
fn rewrite_from_a_path_to_stdout() {
    let dir = tmp();
    let input = file(dir.path(), "page.html", DOC);
    let run = linkbase(&["rewrite", "--url", URL, s(&input)], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, DOC_OUT);
    assert_eq!(
        std::fs::read(&input).unwrap(),
        DOC,
        "the input is not touched"
    );
}

#[test]
fn rewrite_to_an_output_file() {
    let dir = tmp();
    let input = file(dir.path(), "page.html", DOC);
    let output = dir.path().join("out.html");
    let run = linkbase(&["rewrite", "--url", URL, s(&input), "-o", s(&output)], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    assert_eq!(std::fs::read_to_string(&output).unwrap(), DOC_OUT);
    assert_eq!(std::fs::read(&input).unwrap(), DOC);
    // An existing output file is replaced; from stdin too; and no temporary file is left over.
    let run = linkbase(
        &["rewrite", "--url", "http://other/", "--output", s(&output)],
        b"<img src=i>",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        // Spliced into the input: the value stays unquoted, as written.
        r#"<img src=http://other/i>"#
    );
    assert_eq!(listing(dir.path()), ["out.html", "page.html"]);
}

#[cfg(unix)]
#[test]
fn rewrite_output_file_gets_the_usual_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp();
    let output = dir.path().join("out.html");
    let run = linkbase(&["rewrite", "--url", URL, "-o", s(&output)], DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // What the umask makes of a file anyone else creates here.
    let reference = file(dir.path(), "reference", b"");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        format!("{:o}", mode(&output)),
        format!("{:o}", mode(&reference))
    );
}

#[test]
fn rewrite_in_place_replaces_the_file_and_keeps_its_permissions() {
    let dir = tmp();
    let input = file(dir.path(), "page.html", DOC);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let run = linkbase(&["rewrite", "--in-place", "--url", URL, s(&input)], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), DOC_OUT);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&input).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640, "permissions kept: {mode:o}");
    }
    assert_eq!(listing(dir.path()), ["page.html"], "no temporary file left");
}

#[test]
fn rewrite_in_place_on_error_leaves_the_original_and_writes_nothing() {
    let dir = tmp();
    let binary: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR<a href=x>";
    let input = file(dir.path(), "image.html", binary);
    let run = linkbase(&["rewrite", "--in-place", "--url", URL, s(&input)], b"");
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains(s(&input)), "{}", run.stderr);
    assert!(run.stderr.contains("binary"), "{}", run.stderr);
    assert_eq!(std::fs::read(&input).unwrap(), binary, "byte-identical");
    assert_eq!(listing(dir.path()), ["image.html"], "nothing written");
}

#[test]
fn missing_or_unreadable_input_exits_2_naming_it() {
    let dir = tmp();
    let missing = dir.path().join("missing.html");
    let output = dir.path().join("out.html");
    for command in ["rewrite", "links", "base"] {
        let run = linkbase(&[command, "--url", URL, s(&missing)], b"");
        assert_eq!(run.code, 2, "{command}");
        assert_eq!(run.stdout, "", "{command}");
        assert!(
            run.stderr.contains(s(&missing)),
            "{command}: {}",
            run.stderr
        );
    }
    // A directory cannot be read as a document.
    let run = linkbase(&["rewrite", "--url", URL, s(dir.path())], b"");
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains(s(dir.path())), "{}", run.stderr);
    // With -o, the output file is not created.
    let run = linkbase(&["rewrite", s(&missing), "-o", s(&output)], b"");
    assert_eq!(run.code, 2);
    assert!(!output.exists());
    // A missing --headers file is named too.
    let headers = dir.path().join("headers.txt");
    let run = linkbase_refusing(&["base", "--headers", s(&headers)], DOC);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains(s(&headers)), "{}", run.stderr);
}

#[test]
fn relative_url_exits_2_and_writes_nothing() {
    let dir = tmp();
    let input = file(dir.path(), "page.html", DOC);
    let output = dir.path().join("out.html");
    let run = linkbase(
        &["rewrite", "--url", "a/b.html", s(&input), "-o", s(&output)],
        b"",
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("--url") && run.stderr.contains("\"a/b.html\""),
        "{}",
        run.stderr
    );
    assert!(!output.exists(), "nothing written");
    let run = linkbase(
        &["rewrite", "--in-place", "--url", "a/b.html", s(&input)],
        b"",
    );
    assert_eq!(run.code, 2);
    assert_eq!(std::fs::read(&input).unwrap(), DOC);
    assert_eq!(listing(dir.path()), ["page.html"]);
    // To stdout, and for the other commands and the other base option.
    for args in [
        &["rewrite", "--url", "a/b.html"][..],
        &["links", "--url", "a/b.html"][..],
        &["base", "--url", "a/b.html"][..],
        &["rewrite", "--default-base", "no-scheme/"][..],
    ] {
        let run = linkbase_refusing(args, DOC);
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(!run.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn in_place_needs_a_file() {
    for args in [
        &["rewrite", "--in-place", "--url", URL][..],
        &["rewrite", "--in-place", "--url", URL, "-"][..],
    ] {
        let run = linkbase_refusing(args, DOC);
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(run.stderr.contains("--in-place"), "{}", run.stderr);
    }
    // -o and --in-place together is bad usage.
    let dir = tmp();
    let input = file(dir.path(), "page.html", DOC);
    let output = dir.path().join("out.html");
    let run = linkbase(&["rewrite", "--in-place", "-o", s(&output), s(&input)], b"");
    assert_eq!(run.code, 2);
    assert!(!output.exists());
    assert_eq!(std::fs::read(&input).unwrap(), DOC);
}

#[test]
fn binary_stdin_exits_2_and_writes_nothing() {
    let run = linkbase_refusing(&["rewrite", "--url", URL], b"GIF89a\0\0<a href=x>");
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("linkbase: -: "), "{}", run.stderr);
}

// ---------------------------------------------------------------------------------------------
// links and base reports

const LINKS_DOC: &[u8] = br##"<base href="../d/"><a href="x">x</a><a href="#top">t</a><img src="http://abs/i.png" srcset="s1.png 1x, s2.png 2x">"##;

#[test]
fn links_jsonl_has_the_contract_fields_in_document_order() {
    let run = linkbase(&["links", "--url", URL, "--format", "jsonl"], LINKS_DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records: Vec<Value> = jsonl(&run.stdout).iter().map(contract_fields).collect();
    let record = |element, attribute, original, resolved: &str, same_document| {
        json!({
            "part": null, "element": element, "attribute": attribute, "original": original,
            "resolved": resolved, "base": "http://h/a/d/", "base_source": "base-element",
            "same_document": same_document,
        })
    };
    assert_eq!(
        records,
        [
            base_element_record(),
            record("a", "href", "x", "http://h/a/d/x", false),
            record("a", "href", "#top", "http://h/a/d/#top", true),
            record("img", "src", "http://abs/i.png", "http://abs/i.png", false),
            record("img", "srcset", "s1.png", "http://h/a/d/s1.png", false),
            record("img", "srcset", "s2.png", "http://h/a/d/s2.png", false),
        ]
    );
    // jsonl is the default.
    let default = linkbase(&["links", "--url", URL], LINKS_DOC);
    assert_eq!(default.stdout, run.stdout);
}

/// The record of LINKS_DOC's `<base href="../d/">`: resolved against the retrieval URI, like
/// every record's `base` names what its `original` was resolved against.
fn base_element_record() -> Value {
    json!({
        "part": null, "element": "base", "attribute": "href", "original": "../d/",
        "resolved": "http://h/a/d/", "base": "http://h/a/b/p.html", "base_source": "retrieval-uri",
        "same_document": false,
    })
}

#[test]
fn links_base_element_record_names_the_base_it_was_resolved_against() {
    let run = linkbase(&["links", "--url", URL], br#"<base href="sub/">"#);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records: Vec<Value> = jsonl(&run.stdout).iter().map(contract_fields).collect();
    assert_eq!(
        records,
        [json!({
            "part": null, "element": "base", "attribute": "href", "original": "sub/",
            "resolved": "http://h/a/b/sub/", "base": URL, "base_source": "retrieval-uri",
            "same_document": false,
        })]
    );
}

#[test]
fn links_without_a_base_have_null_resolutions() {
    let run = linkbase(
        &["links"],
        b"<a href=\"x\">x</a><a href=\"mailto:m@h\">m</a>",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records: Vec<Value> = jsonl(&run.stdout).iter().map(contract_fields).collect();
    assert_eq!(
        records,
        [
            json!({"part": null, "element": "a", "attribute": "href", "original": "x",
                   "resolved": null, "base": null, "base_source": "none", "same_document": false}),
            json!({"part": null, "element": "a", "attribute": "href", "original": "mailto:m@h",
                   "resolved": "mailto:m@h", "base": null, "base_source": "none",
                   "same_document": false}),
        ]
    );
}

#[test]
fn links_same_document_references() {
    let run = linkbase(
        &["links", "--url", URL],
        b"<a href=\"#top\">t</a><a href=\"\">e</a><a href=\"y#f\">y</a>",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got: Vec<(Value, Value, Value)> = jsonl(&run.stdout)
        .iter()
        .map(|r| {
            (
                r["original"].clone(),
                r["resolved"].clone(),
                r["same_document"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (json!("#top"), json!("http://h/a/b/p.html#top"), json!(true)),
            (json!(""), json!("http://h/a/b/p.html"), json!(true)),
            (json!("y#f"), json!("http://h/a/b/y#f"), json!(false)),
        ]
    );
}

#[test]
fn links_tsv_is_a_header_and_one_row_per_link() {
    let run = linkbase(&["links", "--url", URL, "--format", "tsv"], LINKS_DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut lines = run.stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(
        header.get(..8).unwrap(),
        [
            "part",
            "element",
            "attribute",
            "original",
            "resolved",
            "base",
            "base_source",
            "same_document"
        ]
    );
    let rows: Vec<BTreeMap<&str, &str>> = lines
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            assert_eq!(cells.len(), header.len(), "{line:?}");
            header.iter().copied().zip(cells).collect()
        })
        .collect();
    let contract = |r: &BTreeMap<&str, &str>| -> Vec<String> {
        header[..8].iter().map(|k| r[k].to_owned()).collect()
    };
    let got: Vec<Vec<String>> = rows.iter().map(contract).collect();
    let row = |cells: [&str; 8]| cells.map(str::to_owned).to_vec();
    assert_eq!(
        got,
        [
            row([
                "",
                "base",
                "href",
                "../d/",
                "http://h/a/d/",
                "http://h/a/b/p.html",
                "retrieval-uri",
                "false"
            ]),
            row([
                "",
                "a",
                "href",
                "x",
                "http://h/a/d/x",
                "http://h/a/d/",
                "base-element",
                "false"
            ]),
            row([
                "",
                "a",
                "href",
                "#top",
                "http://h/a/d/#top",
                "http://h/a/d/",
                "base-element",
                "true"
            ]),
            row([
                "",
                "img",
                "src",
                "http://abs/i.png",
                "http://abs/i.png",
                "http://h/a/d/",
                "base-element",
                "false"
            ]),
            row([
                "",
                "img",
                "srcset",
                "s1.png",
                "http://h/a/d/s1.png",
                "http://h/a/d/",
                "base-element",
                "false"
            ]),
            row([
                "",
                "img",
                "srcset",
                "s2.png",
                "http://h/a/d/s2.png",
                "http://h/a/d/",
                "base-element",
                "false"
            ]),
        ]
    );
    // Tabs and newlines in values are escaped, so a row stays one line.
    let run = linkbase(
        &["links", "--format", "tsv", "--url", URL],
        b"<a href=\"a\tb\">x</a>",
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[1].starts_with("\ta\thref\ta\\tb\t"), "{:?}", lines[1]);
}

#[test]
fn base_jsonl_and_text() {
    let run = linkbase(&["base", "--url", URL, "--format", "jsonl"], DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records = jsonl(&run.stdout);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["part"], Value::Null);
    assert_eq!(records[0]["base"], URL);
    assert_eq!(records[0]["base_source"], "retrieval-uri");
    assert_eq!(linkbase(&["base", "--url", URL], DOC).stdout, run.stdout);

    let run = linkbase(&["base", "--url", URL, "--format", "text"], DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "http://h/a/b/p.html\tretrieval-uri\n");
    let run = linkbase(
        &["base", "--url", URL, "--format", "text"],
        b"<base href=\"../d/\">",
    );
    assert_eq!(run.stdout, "http://h/a/d/\tbase-element\n");
    let run = linkbase(&["base", "--format", "text"], DOC);
    assert_eq!(run.stdout, "\tnone\n");
    let (base, source) = base_of(&[], DOC);
    assert_eq!((base, source.as_str()), (Value::Null, "none"));
}

// ---------------------------------------------------------------------------------------------
// Base layers, RFC 2396 §5.1

#[test]
fn layer_precedence_innermost_first() {
    let all = [
        "--content-base",
        "http://cb/d/",
        "--content-location",
        "http://cl/e/",
        "--url",
        URL,
        "--default-base",
        "http://def/",
    ];
    let cases: &[(&[&str], &str, &str)] = &[
        (&all, "http://cb/d/", "content-base"),
        (&all[2..], "http://cl/e/", "content-location"),
        (&all[4..], URL, "retrieval-uri"),
        (&all[6..], "http://def/", "default"),
        (&[], "", "none"),
    ];
    for (args, base, source) in cases {
        let (got_base, got_source) = base_of(args, DOC);
        assert_eq!(got_base.as_str().unwrap_or(""), *base, "{args:?}");
        assert_eq!(got_source, *source, "{args:?}");
    }
    // The document's <base href> beats them all, and is resolved against them.
    let mut args = all.to_vec();
    args.push("--format");
    args.push("text");
    let run = linkbase(
        &[&["base"][..], &args].concat(),
        b"<base href=\"x/\"><a href=y>",
    );
    assert_eq!(run.stdout, "http://cb/d/x/\tbase-element\n");
}

#[test]
fn content_base_and_content_location_options() {
    let run = linkbase(
        &["rewrite", "--url", URL, "--content-base", "http://cb/d/"],
        DOC,
    );
    assert_eq!(run.stdout, r#"<a href="http://cb/x">x</a>"#);
    // A relative Content-Location is resolved against the retrieval URI.
    let run = linkbase(
        &["links", "--url", URL, "--content-location", "../cl/"],
        b"<a href=\"x\">x</a>",
    );
    let records: Vec<Value> = jsonl(&run.stdout).iter().map(contract_fields).collect();
    assert_eq!(
        records,
        [
            json!({"part": null, "element": "a", "attribute": "href", "original": "x",
                "resolved": "http://h/a/cl/x", "base": "http://h/a/cl/",
                "base_source": "content-location", "same_document": false})
        ]
    );
    // A relative one with nothing outside it is ignored (and reported).
    let run = linkbase(&["base", "--content-location", "rel/"], DOC);
    let record = &jsonl(&run.stdout)[0];
    assert_eq!(record["base_source"], "none");
    assert_eq!(record["diagnostics"][0]["code"], "base-ignored");
}

#[test]
fn header_options() {
    let (base, source) = base_of(
        &["--url", URL, "--header", "Content-Location: http://hl/z/"],
        DOC,
    );
    assert_eq!(
        (base, source.as_str()),
        (json!("http://hl/z/"), "content-location")
    );
    let (base, source) = base_of(
        &[
            "--url",
            URL,
            "--header",
            "content-location: http://hl/z/",
            "--header",
            "Content-Base: http://hb/",
        ],
        DOC,
    );
    assert_eq!(
        (base, source.as_str()),
        (json!("http://hb/"), "content-base")
    );
    // --content-location wins over the same field from --header.
    let (base, _) = base_of(
        &[
            "--header",
            "Content-Location: http://hl/",
            "--content-location",
            "http://explicit/",
        ],
        DOC,
    );
    assert_eq!(base, json!("http://explicit/"));
    // A --header that is not "Name: value" is bad usage.
    let run = linkbase_refusing(&["base", "--header", "no colon"], DOC);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no colon"), "{}", run.stderr);
}

/// A redirect chain as `curl -sD` saves it: the last response is the document's.
const REDIRECTS: &[u8] = b"HTTP/1.1 301 Moved Permanently\r\n\
Location: http://h/final/\r\n\
Content-Location: http://first/\r\n\
Content-Type: text/html; charset=koi8-r\r\n\
\r\n\
HTTP/1.1 200 OK\r\n\
Content-Type: text/html; charset=iso-8859-2\r\n\
Content-Location: http://final/dir/\r\n\
\r\n";

#[test]
fn headers_file_with_a_redirect_chain_uses_the_last_response() {
    let dir = tmp();
    let headers = file(dir.path(), "headers.txt", REDIRECTS);
    let run = linkbase(&["base", "--url", URL, "--headers", s(&headers)], DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let record = &jsonl(&run.stdout)[0];
    assert_eq!(record["base"], "http://final/dir/");
    assert_eq!(record["base_source"], "content-location");
    // Its Content-Type charset is the transport charset.
    assert_eq!(record["encoding"], "ISO-8859-2");
    assert_eq!(record["encoding_source"], "transport");

    let run = linkbase(&["rewrite", "--url", URL, "--headers", s(&headers)], DOC);
    assert_eq!(run.stdout, r#"<a href="http://final/x">x</a>"#);
    // A header block without a status line (a MIME heading) works too.
    let mime = file(dir.path(), "mime.txt", b"Content-Base: http://mb/d/\n");
    let (base, source) = base_of(&["--headers", s(&mime)], DOC);
    assert_eq!(
        (base, source.as_str()),
        (json!("http://mb/d/"), "content-base")
    );
}

#[test]
fn header_base_browser_ignores_header_bases() {
    let dir = tmp();
    let headers = file(dir.path(), "headers.txt", REDIRECTS);
    let run = linkbase(
        &[
            "base",
            "--url",
            URL,
            "--headers",
            s(&headers),
            "--header",
            "Content-Base: http://hb/",
            "--header-base",
            "browser",
        ],
        DOC,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let record = &jsonl(&run.stdout)[0];
    // Browsers, too, use the URL after redirects: the chain is followed; only the
    // entity's Content-Base / Content-Location are ignored.
    assert_eq!(record["base"], "http://h/final/");
    assert_eq!(record["base_source"], "retrieval-uri");
    let codes: Vec<&str> = record["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["redirect-chain", "header-ignored", "header-ignored"]
    );
    // The charset still comes from the headers.
    assert_eq!(record["encoding"], "ISO-8859-2");
    let run = linkbase(
        &[
            "rewrite",
            "--url",
            URL,
            "--headers",
            s(&headers),
            "--header-base",
            "browser",
        ],
        DOC,
    );
    // `../x` against the end of the chain, http://h/final/.
    assert_eq!(run.stdout, r#"<a href="http://h/x">x</a>"#);
    // Explicit --content-base / --content-location still count.
    let (base, source) = base_of(
        &[
            "--url",
            URL,
            "--content-base",
            "http://cb/",
            "--header-base",
            "browser",
        ],
        DOC,
    );
    assert_eq!(
        (base, source.as_str()),
        (json!("http://cb/"), "content-base")
    );
    // entity is the default.
    let (_, source) = base_of(&["--url", URL, "--headers", s(&headers)], DOC);
    assert_eq!(source, "content-location");
}

#[test]
fn default_base_applies_only_when_nothing_else_does() {
    let (base, source) = base_of(&["--default-base", "http://def/x/"], DOC);
    assert_eq!((base, source.as_str()), (json!("http://def/x/"), "default"));
    let run = linkbase(&["rewrite", "--default-base", "http://def/x/y"], DOC);
    assert_eq!(run.stdout, r#"<a href="http://def/x">x</a>"#);
    let (_, source) = base_of(&["--default-base", "http://def/", "--url", URL], DOC);
    assert_eq!(source, "retrieval-uri");
    // A relative <base href> is resolved against it.
    let run = linkbase(
        &[
            "base",
            "--default-base",
            "http://def/x/y",
            "--format",
            "text",
        ],
        b"<base href=\"rel/\">",
    );
    assert_eq!(run.stdout, "http://def/x/rel/\tbase-element\n");
    // A relative Content-Location is resolved against it when there is no --url.
    let (base, _) = base_of(
        &[
            "--default-base",
            "http://def/x/y",
            "--content-location",
            "../cl/",
        ],
        DOC,
    );
    assert_eq!(base, json!("http://def/cl/"));
}

// ---------------------------------------------------------------------------------------------
// Encodings

#[test]
fn charset_overrides_the_meta_and_the_headers() {
    let doc = b"<meta charset=\"utf-8\"><p>\xe9</p><a href=\"caf\xe9\">x</a>";
    let (code, out, err) = linkbase_bytes(
        &["rewrite", "--url", "http://h/", "--charset", "iso-8859-1"],
        doc,
    );
    assert_eq!(code, 0, "{err}");
    // Read as windows-1252 (the WHATWG meaning of iso-8859-1) and written back in it: é stays
    // one byte, and the rest of the document is kept.
    assert_eq!(
        out,
        b"<meta charset=\"utf-8\"><p>\xe9</p><a href=\"http://h/caf%C3%A9\">x</a>"
    );
    // Without --charset the <meta> says UTF-8, and \xe9 is malformed there.
    let run = linkbase(&["base"], doc);
    let record = &jsonl(&run.stdout)[0];
    assert_eq!(
        (&record["encoding"], &record["encoding_source"]),
        (&json!("UTF-8"), &json!("meta"))
    );
    // --charset wins over a Content-Type charset from --header.
    let run = linkbase(
        &[
            "base",
            "--header",
            "Content-Type: text/html; charset=koi8-r",
            "--charset",
            "latin1",
        ],
        doc,
    );
    let record = &jsonl(&run.stdout)[0];
    assert_eq!(
        (&record["encoding"], &record["encoding_source"]),
        (&json!("windows-1252"), &json!("transport"))
    );
    let run = linkbase(
        &[
            "base",
            "--header",
            "Content-Type: text/html; charset=koi8-r",
        ],
        doc,
    );
    assert_eq!(jsonl(&run.stdout)[0]["encoding"], "KOI8-R");
}

#[test]
fn output_charset_reencodes_and_retargets_declarations() {
    let (code, out, err) = linkbase_bytes(
        &["rewrite", "--url", "http://h/", "--output-charset", "utf-8"],
        b"<meta charset=\"windows-1252\"><p>\xe9</p><a href=\"caf\xe9\">x</a>",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "<html><head><meta charset=\"UTF-8\"></head><body><p>é</p><a href=\"http://h/caf%C3%A9\">x</a></body></html>"
    );
    // To a legacy encoding: what it cannot represent becomes a character reference.
    let (code, out, err) = linkbase_bytes(
        &["rewrite", "--output-charset", "latin1"],
        "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"><p>é € 日</p>"
            .as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head><body><p>\xe9 \x80 &#26085;</p></body></html>"
    );
    let run = linkbase_refusing(&["rewrite", "--output-charset", "no-such-encoding"], DOC);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no-such-encoding"), "{}", run.stderr);
}

/// A document written from its parsed tree has more than its URLs changed (here the
/// implied `<html>`, `<head>` and `<body>`), and the conditional comment's URL stays as it was:
/// both are said on stderr, never silently.
#[test]
fn a_document_written_from_its_tree_is_said() {
    let dir = tmp();
    let input = file(
        dir.path(),
        "p.html",
        b"<!--[if IE]><link href=\"ie.css\" rel=stylesheet><![endif]--><a href=x>y</a>",
    );
    let args = |more: &[&'static str]| {
        let mut a = vec![
            "rewrite",
            "--url",
            "http://h/",
            "--conditional-comments",
            "on",
        ];
        a.extend_from_slice(more);
        a.push(s(&input));
        a
    };
    let run = linkbase(&args(&["--output-charset", "utf-8"]), b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "<!--[if IE]><link href=\"ie.css\" rel=stylesheet><![endif]--><html><head></head><body><a href=\"http://h/x\">y</a></body></html>"
    );
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {}: reserialized: written from its parsed tree (another output encoding): \
             markup besides the URL values is as the serializer writes it; 1 URL inside conditional \
             comments left as written\n",
            input.display()
        )
    );
    // Spliced, nothing to say: the conditional comment's URL is rewritten too.
    let run = linkbase(&args(&[]), b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    assert_eq!(
        run.stdout,
        "<!--[if IE]><link href=\"http://h/ie.css\" rel=stylesheet><![endif]--><a href=http://h/x>y</a>"
    );
    // The splicer cannot place the plan (an SVG `<image>` the tree builder and lol_html read
    // apart): written from the tree, and said with the reason.
    let svg = file(
        dir.path(),
        "svg.html",
        b"<svg><math><mi><image href=\"a.png\"/></mi></math></svg><svg><image href=\"a.png\"/></svg>",
    );
    let run = linkbase(&["rewrite", "--url", "http://h/", s(&svg)], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {}: reserialized: written from its parsed tree (an edit not found in the \
             source): markup besides the URL values is as the serializer writes it\n",
            svg.display()
        )
    );
}

#[test]
#[ignore = "bug: rewrite pushes a <meta charset> out of the 1024-byte prescan window when the URLs before it grow"]
fn rewrite_keeps_the_charset_declaration_where_the_prescan_finds_it() {
    // HTML LS §4.2.5.4: the declaration must be serialized within the first 1024 bytes. The
    // input has it at byte 916; absolutized <link> URLs before it push it past 1024.
    let links: String = (0..40)
        .map(|i| format!("<link rel=x href=\"r{i}\">"))
        .collect();
    let mut doc = format!("<head>{links}<meta charset=\"shift_jis\"></head>").into_bytes();
    doc.extend_from_slice(b"<a href=\"\x93\xfa.html\">j</a>");
    let dir = tmp();
    let input = file(dir.path(), "sjis.html", &doc);
    let run = linkbase(&["base", s(&input)], b"");
    assert_eq!(jsonl(&run.stdout)[0]["encoding"], "Shift_JIS");
    let output = dir.path().join("out.html");
    let run = linkbase(&["rewrite", "--url", URL, s(&input), "-o", s(&output)], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Read back without the transport layer, the output must still be Shift_JIS.
    let run = linkbase(&["links", s(&output)], b"");
    let last = jsonl(&run.stdout).pop().unwrap();
    assert_eq!(last["original"], "http://h/a/b/日.html");
}

#[test]
#[ignore = "bug: unencodable characters become &#N; inside <style>/<script>, where HTML does not decode them"]
fn output_charset_does_not_put_character_references_in_raw_text() {
    // In raw text an NCR is read literally: the style would show "&#26085;". A CSS escape
    // (\65e5) would do for <style>; where nothing can (script), the run must fail (exit 2).
    let (code, out, err) = linkbase_bytes(
        &[
            "rewrite",
            "--charset",
            "utf-8",
            "--output-charset",
            "windows-1252",
        ],
        "<style>p::before{content:\"日\"}</style><p title=\"日\">日</p>".as_bytes(),
    );
    if code == 2 {
        assert!(err.contains("windows-1252"), "{err}");
        assert!(out.is_empty());
        return;
    }
    assert_eq!(code, 0, "{err}");
    let out = String::from_utf8(out).unwrap();
    assert!(!out.contains("content:\"&#26085;\""), "{out}");
    assert!(out.contains("<p title=\"&#26085;\">&#26085;</p>"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Rewriting options

#[test]
fn drop_base_removes_the_base_element() {
    let doc = b"<head><base href=\"../d/\"></head><a href=\"x\">x</a>";
    let run = linkbase(&["rewrite", "--url", URL], doc);
    assert_eq!(
        run.stdout,
        r#"<head><base href="http://h/a/d/"></head><a href="http://h/a/d/x">x</a>"#
    );
    let run = linkbase(&["rewrite", "--url", URL, "--drop-base"], doc);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The element's bytes go, and nothing else.
    assert_eq!(run.stdout, r#"<head></head><a href="http://h/a/d/x">x</a>"#);
}

#[test]
fn drop_base_leaves_no_later_base_in_effect() {
    // The base is the document URL, so "#x" is kept as written; after the first <base> goes,
    // the second one would make it http://b/#x.
    let run = linkbase(
        &["rewrite", "--url", "http://h/p.html", "--drop-base"],
        b"<base href=\"p.html\"><base href=\"http://b/\"><a href=\"#x\">x</a>",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("<base"), "{}", run.stdout);
}

#[test]
fn drop_base_keeps_a_base_that_left_urls_relative() {
    // "rel" cannot be resolved against mailto:m@h and is kept; without the <base> a browser
    // resolves it against http://h/p.html instead.
    let doc = b"<base href=\"mailto:m@h\"><a href=\"rel\">r</a>";
    let run = linkbase(&["rewrite", "--url", "http://h/p.html", "--drop-base"], doc);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plain = linkbase(&["rewrite", "--url", "http://h/p.html"], doc);
    assert_eq!(run.stdout, plain.stdout);
}

/// `rewrite` of a document at http://h/a/c.html, its bases dropped, browser resolution.
const DROP_BASE_WHATWG: [&str; 6] = [
    "rewrite",
    "--url",
    "http://h/a/c.html",
    "--drop-base",
    "--profile",
    "whatwg",
];

#[test]
fn drop_base_keeps_a_base_that_a_template_base_href_needs() {
    // Found by fuzz/pipeline.rs: a <base> in <template> contents is no base of the document,
    // only a URL; left relative (against an opaque base) it changes meaning once the document's
    // <base> goes, so that one stays, and a second run changes nothing.
    let doc = b"<base href=\"ht:tp//o/q\"><template><base href=\"tp\"></template>";
    assert_written_unchanged(&DROP_BASE_WHATWG, doc);
}

/// `rewrite` with `args` succeeds and writes `doc` byte for byte.
fn assert_written_unchanged(args: &[&str], doc: &[u8]) {
    let run = linkbase(args, doc);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.as_bytes(), doc);
}

/// `rewrite` of a document at http://h/a/c.html, its bases dropped, RFC 2396 resolution.
const DROP_BASE: [&str; 4] = ["rewrite", "--url", "http://h/a/c.html", "--drop-base"];

#[test]
fn drop_base_keeps_a_base_that_an_svg_base_href_needs() {
    // Found by fuzz/pipeline.rs: an SVG `base` element is no base of the document either.
    // `http:x` is opaque under RFC 2396, so `up/` stays relative, and means another URL once the
    // HTML <base> goes: that one stays.
    let doc = b"<base href=\"http:x\"><svg><base href=\"up/\"></svg>";
    assert_written_unchanged(&DROP_BASE, doc);
}

#[test]
fn drop_base_keeps_a_base_that_noscript_kept_links_need() {
    // Found by fuzz/pipeline.rs: links in <noscript> markup the DOM engine cannot write back
    // (its <html> tag has attributes, and a `<noscript>` inside hides the link from the lol_html
    // read its edits are matched in) stay as written; relative, they need the base.
    let doc = b"<base href=\"http://b/x/\"><noscript><html manifest=p><noscript><a href=\"y\">y</a></noscript>";
    let dom: Vec<&str> = DROP_BASE
        .iter()
        .copied()
        .chain(["--engine", "dom"])
        .collect();
    assert_written_unchanged(&dom, doc);
    // The streaming engine splices the markup where it is written: the links are made absolute
    // (`manifest` against the document's URL) and the base can go.
    assert_eq!(
        linkbase(&DROP_BASE, doc).stdout,
        "<noscript><html manifest=http://h/a/p><noscript><a href=\"http://b/x/y\">y</a></noscript>"
    );
}

#[test]
fn drop_base_removes_an_unusable_base_too() {
    // Found by fuzz/pipeline.rs: the unusable href of an ignored <base> counted as a reference
    // still needing the base, so the base was kept and given the document's URL (which a second
    // run then dropped). Browsers ignore it; it goes with the others.
    let doc = b"<base href=\"http://exa mple/\"><a href=x>x</a>";
    assert_eq!(
        linkbase(&DROP_BASE_WHATWG, doc).stdout,
        "<a href=http://h/a/x>x</a>"
    );
}

#[test]
fn drop_base_keeps_the_bytes_of_a_kept_base_already_absolute() {
    // Found by fuzz/pipeline.rs: `h:&lt;` is the absolute `h:<` already; writing it anew as
    // `h:<` changed bytes for no reason (and a second rewrite changed the first one's output).
    let doc = b"<base href=\"h:&lt;\"><a href=t>t</a>";
    for profile in ["rfc2396", "whatwg"] {
        let args = [
            "rewrite",
            "--url",
            "http://h/p.html",
            "--drop-base",
            "--profile",
            profile,
        ];
        let run = linkbase(&args, doc);
        assert_eq!(run.stdout.as_bytes(), doc, "{profile}: {}", run.stderr);
    }
}

#[test]
fn drop_base_never_leaves_a_byte_order_mark_first() {
    // Found by fuzz/pipeline.rs: removing the opening <base> left FF FE first, which a browser
    // (and linkbase) then reads as a UTF-16LE byte order mark: the whole page would change.
    let doc = b"<base href=x>\xff\xfe f";
    let (code, out, err) =
        linkbase_bytes(&["rewrite", "--url", "http://h/p.html", "--drop-base"], doc);
    assert_eq!(code, 0, "{err}");
    assert!(!out.starts_with(b"\xff\xfe"), "{out:?}");
    let (code, _, err) = linkbase_bytes(&["rewrite", "--url", "http://h/p.html"], &out);
    assert_eq!(code, 0, "the output reads as it was written: {err}");
}

#[test]
fn drop_base_writes_scheme_only_references_absolute_under_whatwg() {
    // Found by fuzz/pipeline.rs: against <base href=p:> a browser reads `http:b` as
    // http://b/; without the base, against the document's http: URL, as a relative path. Kept
    // as written while the base was removed, it changed meaning.
    let doc = b"<base href=p:><a href=http:b>b</a>";
    let run = linkbase(&DROP_BASE_WHATWG, doc);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "<a href=http://b/>b</a>");
    // Under --same-scheme compat `http:b` is relative to an http: base and has no absolute form
    // to write: the base stays. Under the strict default it is absolute anyway: the base goes.
    let compat = [
        "rewrite",
        "--url",
        "http://h/a/c.html",
        "--drop-base",
        "--same-scheme",
        "compat",
    ];
    assert_eq!(
        linkbase(&compat, doc).stdout,
        "<base href=p:><a href=http:b>b</a>"
    );
    let strict = ["rewrite", "--url", "http://h/a/c.html", "--drop-base"];
    assert_eq!(linkbase(&strict, doc).stdout, "<a href=http:b>b</a>");
}

#[test]
fn whatwg_reports_absolute_urls_as_a_browser_reads_them_without_a_base_too() {
    // Found by fuzz/pipeline.rs: with a base, `i:/"` was reported as the URL Standard writes it
    // (i:/%22); without one, as written.
    for args in [
        &["links", "--profile", "whatwg"][..],
        &["links", "--profile", "whatwg", "--url", "e:"],
    ] {
        let run = linkbase(args, b"<a href='i:/\"'>x</a>");
        assert!(
            run.stdout.contains(r#""resolved":"i:/%22""#),
            "{args:?}: {}",
            run.stdout
        );
    }
}

#[test]
fn noscript_html_attributes_the_dom_engine_cannot_write_are_said() {
    // Found by fuzz/pipeline.rs: an <html> tag inside <noscript> markup gives its attributes to
    // the fragment's root, which the DOM engine's serialization does not write back; the link
    // was reported resolved and silently left. The streaming engine splices it.
    // Where the markup's own text takes the values (lol_html finds each element), the DOM
    // engine writes them there too; here a `<noscript>` inside hides the link from lol_html.
    let doc = b"<noscript><html manifest=p><noscript><a href=y></noscript>";
    let dom = linkbase(
        &["links", "--url", "http://h/c.html", "--engine", "dom"],
        doc,
    );
    assert!(
        dom.stdout
            .contains(r#""rewritten":false,"diagnostic":"noscript-kept: "#),
        "{}",
        dom.stdout
    );
    let stream = linkbase(&["rewrite", "--url", "http://h/c.html"], doc);
    assert_eq!(
        stream.stdout,
        "<noscript><html manifest=http://h/p><noscript><a href=http://h/y></noscript>"
    );
    let dom = linkbase(
        &["rewrite", "--url", "http://h/c.html", "--engine", "dom"],
        b"<noscript><html manifest=p>",
    );
    assert_eq!(dom.stdout, "<noscript><html manifest=http://h/p>");
}

#[test]
fn whatwg_same_scheme_file_references_are_relative() {
    // Found by fuzz/pipeline.rs: `file:c` against a file: base takes the base's host (URL
    // Standard, file state); kept as written, it changed meaning once --drop-base removed the
    // base (a browser then reads it against the document's URL: file:///c).
    let doc = b"<base href=file://h/d/><a href=\"file:c\">c</a><a href=\"file:/e\">e</a>";
    for extra in [&[][..], &["--drop-base"]] {
        let mut args = vec!["rewrite", "--url", "http://x/p.html", "--profile", "whatwg"];
        args.extend_from_slice(extra);
        let run = linkbase(&args, doc);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout
                .contains("<a href=\"file://h/d/c\">c</a><a href=\"file://h/e\">e</a>"),
            "{extra:?}: {}",
            run.stdout
        );
    }
}

#[test]
fn srcset_and_ping_items_stay_whole_when_the_base_has_a_space() {
    // The RFC profiles keep the space of the base; the rewritten lists must still hold the same
    // URLs (e.g. written with %20), not "http://h/my" plus descriptors or extra items.
    let doc = b"<base href=\"http://h/my dir/\"><img srcset=\"a.png 1x, b.png 2x\"><a href=x ping=\"p q\">x</a>";
    let resolved = |stdout: &str| -> Vec<String> {
        jsonl(stdout)
            .iter()
            .filter(|r| r["attribute"] == "srcset" || r["attribute"] == "ping")
            .map(|r| r["resolved"].as_str().unwrap_or("").replace(' ', "%20"))
            .collect()
    };
    let before = linkbase(&["links"], doc);
    assert_eq!(
        resolved(&before.stdout),
        [
            "http://h/my%20dir/a.png",
            "http://h/my%20dir/b.png",
            "http://h/my%20dir/p",
            "http://h/my%20dir/q"
        ]
    );
    let rewritten = linkbase(&["rewrite"], doc);
    assert_eq!(rewritten.code, 0, "{}", rewritten.stderr);
    let after = linkbase(&["links"], rewritten.stdout.as_bytes());
    assert_eq!(resolved(&after.stdout), resolved(&before.stdout));
}

#[test]
fn noscript_inside_noscript_markup_is_markup_once() {
    // Without scripting, a <noscript> inside <noscript> markup holds elements: `&lt;a` in it is
    // text, not a tag (found by fuzz/engines.rs: the DOM engine parsed that text again). Both
    // engines agree.
    for engine in ["auto", "dom"] {
        let run = |doc: &[u8]| {
            jsonl(&linkbase(&["links", "--engine", engine, "--url", "http://h/"], doc).stdout)
                .iter()
                .map(|r| r["resolved"].as_str().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        };
        assert!(
            run(b"<noscript><noscript>&lt;a href=x>").is_empty(),
            "{engine}"
        );
        assert_eq!(
            run(b"<noscript><noscript><a href=x></noscript></noscript>"),
            ["http://h/x"],
            "{engine}"
        );
    }
}

#[test]
fn noscript_markup_with_an_html_start_tag_is_rewritten_where_it_is_written() {
    // The DOM engine's fragment parser puts manifest=a on its own root element, which its
    // serialized text (that root's children) would lose; both engines write the values into
    // the markup where they are written instead, byte for byte, --drop-base or not.
    let doc = b"<noscript><html manifest=a><img src=i></noscript>";
    let links = linkbase(&["links", "--url", "http://h/d/"], doc);
    let reported: Vec<(Value, Value)> = jsonl(&links.stdout)
        .iter()
        .map(|r| (r["resolved"].clone(), r["rewritten"].clone()))
        .collect();
    assert_eq!(
        reported,
        [
            (json!("http://h/d/a"), json!(true)),
            (json!("http://h/d/i"), json!(true))
        ]
    );
    for extra in [&[][..], &["--drop-base"], &["--engine", "dom"]] {
        let mut args = vec!["rewrite", "--url", "http://h/d/"];
        args.extend_from_slice(extra);
        let run = linkbase(&args, doc);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (
                0,
                "<noscript><html manifest=http://h/d/a><img src=http://h/d/i></noscript>"
            ),
            "{extra:?}"
        );
    }
}

#[test]
fn applet_archive_items_stay_whole_when_the_base_has_a_comma() {
    let doc =
        b"<base href=\"http://h/p,q/\"><applet code=C.class archive=\"a.jar,b.jar\"></applet>";
    let archive = |stdout: &str| -> Vec<String> {
        jsonl(stdout)
            .iter()
            .filter(|r| r["attribute"] == "archive")
            .map(|r| r["resolved"].as_str().unwrap_or("").replace(',', "%2C"))
            .collect()
    };
    let before = linkbase(&["links"], doc);
    assert_eq!(
        archive(&before.stdout),
        ["http://h/p%2Cq/a.jar", "http://h/p%2Cq/b.jar"]
    );
    let rewritten = linkbase(&["rewrite"], doc);
    assert_eq!(rewritten.code, 0, "{}", rewritten.stderr);
    let after = linkbase(&["links"], rewritten.stdout.as_bytes());
    assert_eq!(archive(&after.stdout), archive(&before.stdout));
}

#[test]
fn profile_whatwg() {
    let doc = b"<a href=\"a b?c\">1</a><a href=\"http:g\">2</a><a href=\"../../../../g\">3</a>";
    let run = linkbase(&["rewrite", "--url", URL], doc);
    assert_eq!(
        run.stdout,
        r#"<a href="http://h/a/b/a%20b?c">1</a><a href="http:g">2</a><a href="http://h/../../g">3</a>"#
    );
    let run = linkbase(&["rewrite", "--url", URL, "--profile", "whatwg"], doc);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        r#"<a href="http://h/a/b/a%20b?c">1</a><a href="http://h/a/b/g">2</a><a href="http://h/g">3</a>"#
    );
}

// ---------------------------------------------------------------------------------------------
// `| head -1`

/// Runs `linkbase args` on a document with many links, reads one line of its output and closes
/// the pipe: returns (exit code, the line, stderr).
fn read_one_line_and_close(args: &[&str]) -> (i32, String, String) {
    let dir = tmp();
    let html: String = (0..5000)
        .map(|i| format!("<a href=\"p{i}.html\">{i}</a>\n"))
        .collect();
    let input = file(dir.path(), "big.html", html.as_bytes());
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(args)
        .arg(s(&input))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linkbase");
    let mut line = String::new();
    {
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut line).unwrap();
        // Dropping the reader closes the pipe: the next write gets EPIPE.
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        line,
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn broken_pipe_exits_0_quietly() {
    for args in [
        &["links", "--url", URL, "--format", "tsv"][..],
        &["rewrite", "--url", URL][..],
    ] {
        let (code, line, stderr) = read_one_line_and_close(args);
        assert!(!line.is_empty(), "{args:?}");
        assert_eq!((code, stderr.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn broken_pipe_exits_0_quietly_for_jsonl() {
    let (code, line, stderr) = read_one_line_and_close(&["links", "--url", URL]);
    assert!(line.starts_with('{'), "{line}");
    assert_eq!((code, stderr.as_str()), (0, ""));
}

/// A windows-1251 page served as UTF-8 used to come back as a page of U+FFFD,
/// still declaring windows-1251, with exit 0. The streaming engine copies every byte
/// that is not a URL value, so the malformed bytes come back as they were and only the link
/// changes, `--drop-base` included. Where the DOM engine must write the document
/// (`--engine dom`, `--output-charset`), nothing is written (the input kept intact in place) and
/// the reason names the encoding and where it came from.
#[test]
fn malformed_bytes_in_the_chosen_encoding_are_never_replaced() {
    let (cyrillic, _, _) = encoding_rs::WINDOWS_1251.encode("Привет, мир");
    let mut page = b"<meta charset=\"windows-1251\"><p>".to_vec();
    page.extend_from_slice(&cyrillic);
    page.extend_from_slice(b"</p><a href=\"x.html\">x</a>");
    let dir = tmp();
    let path = file(dir.path(), "page.html", &page);

    let mut expected = b"<meta charset=\"windows-1251\"><p>".to_vec();
    expected.extend_from_slice(&cyrillic);
    expected.extend_from_slice(b"</p><a href=\"http://h/a/b/x.html\">x</a>");
    // --drop-base splices too (the page has no base element: nothing else changes).
    for extra in [None, Some("--drop-base")] {
        let mut args = vec!["rewrite", "--url", URL, "--charset", "utf-8", s(&path)];
        args.extend(extra);
        let (code, stdout, stderr) = linkbase_bytes(&args, b"");
        assert_eq!((code, stderr.as_str()), (0, ""), "{extra:?}");
        assert_eq!(stdout, expected, "{extra:?}: only the URL bytes changed");
    }

    // The DOM engine would decode the text, so it refuses.
    let (code, stdout, stderr) = linkbase_bytes(
        &[
            "rewrite",
            "--url",
            URL,
            "--charset",
            "utf-8",
            "--engine",
            "dom",
            s(&path),
        ],
        b"",
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("its bytes are not valid UTF-8 (the encoding the transport charset (Content-Type or the caller's) gave)"),
        "{stderr}"
    );
    let (code, _, stderr) = linkbase_bytes(
        &[
            "rewrite",
            "--url",
            URL,
            "--charset",
            "utf-8",
            "--engine",
            "dom",
            "--in-place",
            s(&path),
        ],
        b"",
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::read(&path).unwrap(), page, "the input is intact");

    // links still reports, with the malformed-bytes diagnostic.
    let run = linkbase(
        &["links", "--url", URL, "--charset", "utf-8", s(&path)],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("\"resolved\":\"http://h/a/b/x.html\""),
        "{}",
        run.stdout
    );

    // With the right encoding, the text survives: decoding the output in the encoding it
    // declares gives the input's text back, links aside.
    let (code, out, stderr) = linkbase_bytes(&["rewrite", "--url", URL, s(&path)], b"");
    assert_eq!(code, 0, "{stderr}");
    let (text, _, errors) = encoding_rs::WINDOWS_1251.decode(&out);
    assert!(!errors);
    assert!(text.contains("<meta charset=\"windows-1251\">"), "{text}");
    assert!(text.contains("<p>Привет, мир</p>"), "{text}");
    assert!(text.contains("href=\"http://h/a/b/x.html\""), "{text}");
}

/// `curl -L -D headers.txt` saves the whole chain; each 3xx Location is
/// resolved against the URI before it and the last is the retrieval URI (RFC 2396 §5.1.3),
/// while the entity fields are the last response's.
#[test]
fn redirect_chain_in_a_header_file_gives_the_retrieval_uri() {
    let dir = tmp();
    let headers = file(
        dir.path(),
        "headers.txt",
        b"HTTP/1.1 301 Moved Permanently\r\nLocation: /new/dir/\r\nContent-Location: /ignored/\r\n\r\n\
HTTP/1.1 302 Found\r\nLocation: ../final/index.html?q=1\r\n\r\n\
HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n",
    );
    let page = file(dir.path(), "page.html", b"<a href=\"x.html\">x</a>");
    let base = base_record(
        &[
            "--url",
            "http://h/old/page.html",
            "--headers",
            s(&headers),
            s(&page),
        ],
        b"",
    );
    assert_eq!(base["base"], "http://h/new/final/index.html?q=1");
    assert_eq!(base["base_source"], "retrieval-uri");
    assert_eq!(
        base["diagnostics"],
        json!([{
            "code": "redirect-chain",
            "message": "the retrieval URI is the end of the redirect chain (RFC 2396 §5.1.3): http://h/old/page.html -> http://h/new/dir/ -> http://h/new/final/index.html?q=1"
        }])
    );
    let run = linkbase(
        &[
            "links",
            "--url",
            "http://h/old/page.html",
            "--headers",
            s(&headers),
            s(&page),
        ],
        b"",
    );
    assert!(
        run.stdout
            .contains("\"resolved\":\"http://h/new/final/x.html\""),
        "{}",
        run.stdout
    );
    // Without --url, an absolute Location still gives the retrieval URI; a relative one cannot.
    let absolute = file(
        dir.path(),
        "abs.txt",
        b"HTTP/1.1 301 Moved\r\nLocation: https://h2/a/\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
    );
    let base = base_record(&["--headers", s(&absolute), s(&page)], b"");
    assert_eq!(base["base"], "https://h2/a/");
    let relative = file(
        dir.path(),
        "rel.txt",
        b"HTTP/1.1 301 Moved\r\nLocation: /a/\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
    );
    let base = base_record(&["--headers", s(&relative), s(&page)], b"");
    assert_eq!(base["base_source"], "none");
    assert_eq!(base["diagnostics"][0]["code"], "redirect-chain");
}

/// The one `base` record of a bare document.
fn base_record(args: &[&str], stdin: &[u8]) -> Value {
    let mut all = vec!["base"];
    all.extend_from_slice(args);
    let run = linkbase(&all, stdin);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    let records = jsonl(&run.stdout);
    assert_eq!(records.len(), 1, "{}", run.stdout);
    records[0].clone()
}

/// One tag with 200,000 attributes took 13.7 s in html5ever's quadratic
/// duplicate check; past the documented bound (10,000 per tag) the DOM engine refuses it at
/// once, naming the bound, and nothing is written. The streaming engine reads
/// attributes in linear time and needs no bound.
#[test]
fn a_tag_with_too_many_attributes_is_refused() {
    let mut page = String::from("<p");
    for n in 0..200_000 {
        page.push_str(&format!(" a{n}=x"));
    }
    page.push_str("><a href=y>y</a>");
    let run = linkbase(&["rewrite", "--url", URL], page.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run
        .stdout
        .ends_with(" a199999=x><a href=http://h/a/b/y>y</a>"));
    // The DOM engine refuses it.
    let run = linkbase_refusing(
        &["rewrite", "--engine", "dom", "--url", URL],
        page.as_bytes(),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.stderr,
        "linkbase: -: refusing to parse: a tag has more than 10000 attributes (the parser's duplicate check grows with the square of their number)\n"
    );
    // 9,000 attributes are fine.
    let mut page = String::from("<p");
    for n in 0..9_000 {
        page.push_str(&format!(" a{n}"));
    }
    page.push_str("><a href=y>y</a>");
    let run = linkbase(&["links", "--url", URL], page.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("\"resolved\":\"http://h/a/b/y\""),
        "{}",
        run.stdout
    );
}

/// The output is the input with only URL values replaced: quoting, entities, spacing,
/// duplicate attributes and the `image` alias as written.
#[test]
fn rewrite_splices_only_url_values() {
    let doc = "<!doctype html><P CLASS=x>&nbsp;caf&eacute;<br/>\n\
<a   HREF = 'a?x=1&amp;y=2'  title=\"&quot;q&quot;\">a</a>\n\
<a href=b href=c>dup</a><image src=i.png><img src=\"we&#105;rd\">\n\
<area href=\"sp ace\"><a href=q?copy=1&copy=2>c</a><table><td>cell</table>";
    let run = linkbase(&["rewrite", "--url", "http://h/d/p.html"], doc.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "<!doctype html><P CLASS=x>&nbsp;caf&eacute;<br/>\n\
<a   HREF = 'http://h/d/a?x=1&amp;y=2'  title=\"&quot;q&quot;\">a</a>\n\
<a href=http://h/d/b href=c>dup</a><image src=http://h/d/i.png><img src=\"http://h/d/weird\">\n\
<area href=\"http://h/d/sp%20ace\"><a href=\"http://h/d/q?copy=1&amp;copy=2\">c</a><table><td>cell</table>"
    );
    // Idempotent: the output, rewritten again, is the same bytes.
    let again = linkbase(
        &["rewrite", "--url", "http://h/d/p.html"],
        run.stdout.as_bytes(),
    );
    assert_eq!(again.stdout, run.stdout);
}

// ---------------------------------------------------------------------------------------------
// Header values as senders write them

#[test]
fn rewrite_content_base_in_quotes_or_angle_brackets_is_the_uri_inside() {
    for value in ["\"http://x/a/\"", "<http://x/a/>", " < http://x/a/ > "] {
        let run = linkbase(
            &["rewrite", "--content-base", value],
            b"<a href=\"g\">x</a>",
        );
        assert_eq!(run.code, 0, "{value}: {}", run.stderr);
        assert_eq!(run.stdout, "<a href=\"http://x/a/g\">x</a>", "{value}");
        assert_eq!(run.stderr, "", "{value}");
    }
}

#[test]
fn rewrite_header_content_base_in_angle_brackets_beats_the_url() {
    let run = linkbase(
        &[
            "rewrite",
            "--url",
            "http://u/",
            "--header",
            "Content-Base: <http://x/a/>",
        ],
        b"<a href=\"g\">x</a>",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "<a href=\"http://x/a/g\">x</a>");
}

#[test]
fn rewrite_unusable_header_base_is_reported_naming_the_header() {
    let run = linkbase(
        &["rewrite", "--header", "Content-Location: <cid:part1>"],
        b"<a href=\"g\">x</a>",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "<a href=\"g\">x</a>");
    assert_eq!(
        run.stderr,
        "linkbase: -: base-ignored: Content-Location: \"<cid:part1>\" is not a usable base: a cid:/mid: location is a label, not a base (RFC 2557 §8.3)\n\
         linkbase: -: 1 of 1 link left relative or unresolvable (bad base)\n"
    );
}

// ---------------------------------------------------------------------------------------------
// No silent no-ops

const TWO_LINKS: &[u8] = b"<a href=\"g\">x</a><a href=\"http://x/\">y</a><a href=\"#f\">z</a>";

#[test]
fn rewrite_without_a_base_says_so_and_exits_0() {
    let run = linkbase(&["rewrite"], TWO_LINKS);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "linkbase: -: 1 of 2 links left relative or unresolvable (no base)\n"
    );
}

#[test]
fn rewrite_fail_on_unresolved_exits_1_and_still_writes() {
    let run = linkbase(&["rewrite", "--fail-on-unresolved"], TWO_LINKS);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "<a href=\"g\">x</a><a href=\"http://x/\">y</a><a href=\"#f\">z</a>"
    );
    assert_eq!(
        run.stderr,
        "linkbase: -: 1 of 2 links left relative or unresolvable (no base)\n"
    );
}

#[test]
fn rewrite_fail_on_unresolved_with_a_base_exits_0_silently() {
    let run = linkbase(
        &["rewrite", "--fail-on-unresolved", "--url", "http://a/b"],
        TWO_LINKS,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
}

#[test]
fn rewrite_against_an_opaque_base_says_so() {
    let run = linkbase(
        &["rewrite", "--fail-on-unresolved"],
        b"<base href=\"mailto:a@b\"><a href=\"g\">x</a>",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "linkbase: -: 1 of 2 links left relative or unresolvable (opaque base)\n"
    );
}

#[test]
fn rewrite_with_an_unusable_content_base_says_bad_base() {
    let run = linkbase(
        &["rewrite", "--content-base", "relative/"],
        b"<a href=\"g\">x</a>",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "linkbase: -: base-ignored: Content-Base: \"relative/\" is not a usable base: it is relative and there is no base outside it to resolve it against\n\
         linkbase: -: 1 of 1 link left relative or unresolvable (bad base)\n"
    );
}

// One reader of a meta content charset, so `charset = x` is retargeted too.
#[test]
fn output_charset_retargets_a_content_charset_with_spaces_around_the_equals() {
    let (code, out, err) = linkbase_bytes(
        &["rewrite", "--url", "http://h/", "--output-charset", "utf-8"],
        b"<meta http-equiv=\"content-type\" content=\"text/html; charset = iso-8859-2\"><p>\xb1</p>",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "<html><head><meta http-equiv=\"content-type\" content=\"text/html; charset = UTF-8\"></head><body><p>ą</p></body></html>"
    );
}

/// URLs inside downlevel-hidden conditional comments, which Outlook renders:
/// off by default for web pages, on for MIME messages, byte-faithful, reported with their kind.
#[test]
fn conditional_comment_urls_are_rewritten_for_email() {
    let html = "<p><img src=\"a.png\"><!--[if gte vml 1]><v:fill type=frame src=\"bg.jpg\"/>\
<v:imagedata src='image001.png' o:title=\"\"/><![endif]--><!-- <img src=plain.png> --></p>";
    let url = "http://h/d/p.html";
    let off = linkbase(&["rewrite", "--url", url], html.as_bytes());
    assert_eq!(
        off.stdout,
        html.replace("src=\"a.png\"", "src=\"http://h/d/a.png\"")
    );
    let on = linkbase(
        &["rewrite", "--url", url, "--conditional-comments", "on"],
        html.as_bytes(),
    );
    assert_eq!(
        on.stdout,
        "<p><img src=\"http://h/d/a.png\"><!--[if gte vml 1]><v:fill type=frame src=\"http://h/d/bg.jpg\"/>\
<v:imagedata src='http://h/d/image001.png' o:title=\"\"/><![endif]--><!-- <img src=plain.png> --></p>"
    );
    let links = linkbase(
        &["links", "--url", url, "--conditional-comments", "on"],
        html.as_bytes(),
    );
    let kinds: Vec<(String, String)> = jsonl(&links.stdout)
        .iter()
        .map(|r| {
            (
                r["element"].as_str().unwrap().to_owned(),
                r["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("img".into(), "url".into()),
            ("v:fill".into(), "conditional-comment".into()),
            ("v:imagedata".into(), "conditional-comment".into()),
        ]
    );
    // A MIME message: on by default, off on request.
    let mail = format!(
        "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\
Content-Location: http://m/x/mail.html\r\n\r\n{html}\r\n"
    );
    let run = linkbase(&["rewrite"], mail.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("src=\"http://m/x/bg.jpg\"")
            && run.stdout.contains("src='http://m/x/image001.png'"),
        "{}",
        run.stdout
    );
    let run = linkbase(
        &["rewrite", "--conditional-comments", "off"],
        mail.as_bytes(),
    );
    assert!(run.stdout.contains("src=\"bg.jpg\""), "{}", run.stdout);
    assert!(
        run.stdout.contains("src=\"http://m/x/a.png\""),
        "{}",
        run.stdout
    );
}

/// Under the whatwg profile every reference, absolute ones included, is
/// reported as a browser's `new URL(ref, base)` gives it (the bytes stay as written, and the
/// browser reads them the same way): `https:x` is `https://x/`, an invalid bracketed host is
/// unresolvable, and a `ws:` query is UTF-8 even in a Shift_JIS document (URL Standard: the
/// document's encoding is for special schemes other than ws/wss).
#[test]
fn whatwg_profile_parses_absolute_references_too() {
    let doc = b"<meta charset=shift_jis><a href=\"https:x\">1</a><a href=\"http://[bad/\">2</a>\
<a href=\"ws://h/?\x93\xfa\">3</a><a href=\"http://h/?\x93\xfa\">4</a>";
    let run = linkbase(
        &[
            "links",
            "--url",
            "http://base.example/d/p.html",
            "--profile",
            "whatwg",
        ],
        doc,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got: Vec<(Value, Value)> = jsonl(&run.stdout)
        .iter()
        .skip(1) // the <meta> has no URL; the first record is the first <a>
        .map(|r| (r["resolved"].clone(), r["rewritten"].clone()))
        .collect();
    let first = jsonl(&run.stdout)[0]["resolved"].clone();
    assert_eq!(first, json!("https://x/"));
    assert_eq!(
        got,
        [
            (Value::Null, json!(false)),
            (json!("ws://h/?%E6%97%A5"), json!(false)),
            (json!("http://h/?%93%FA"), json!(false)),
        ]
    );
    let (code, out, err) = linkbase_bytes(
        &[
            "rewrite",
            "--url",
            "http://base.example/d/p.html",
            "--profile",
            "whatwg",
        ],
        doc,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, doc, "absolute references stay as written");
}

/// A `<meta charset>` past the 1,024-byte prescan still changes the encoding
/// while it is tentative (HTML LS "change the encoding"), as browsers re-decode; a transport
/// charset (certain) is not overridden.
#[test]
fn a_late_meta_charset_changes_a_tentative_encoding() {
    let mut doc = format!("<!-- {} -->", "x".repeat(1100)).into_bytes();
    doc.extend_from_slice(b"<meta charset=\"windows-1251\"><a href=\"\xef\xf0\xe8.html\">x</a>");
    let run = linkbase(&["links", "--url", "http://h/"], &doc);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("\"resolved\":\"http://h/%D0%BF%D1%80%D0%B8.html\""),
        "{}",
        run.stdout
    );
    let base = base_record(&["--url", "http://h/"], &doc);
    assert_eq!(base["encoding"], "windows-1251");
    assert_eq!(base["encoding_source"], "meta");
    // A transport charset is certain: the late meta does not change it.
    let base = base_record(&["--url", "http://h/", "--charset", "iso-8859-2"], &doc);
    assert_eq!(base["encoding"], "ISO-8859-2");
    // The rewrite keeps the page's bytes (windows-1251 in, windows-1251 out); the URL is
    // written as a browser requests it (UTF-8 in the path).
    let (code, out, err) = linkbase_bytes(&["rewrite", "--url", "http://h/"], &doc);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with(b"<a href=\"http://h/%D0%BF%D1%80%D0%B8.html\">x</a>"));
}

/// A document past `--stream-threshold` (16 MiB by default; 0 here) is read
/// twice from its file (stdin spooled to a temporary file first) and written as it is read.
/// The bytes, the links, the base and the summary are those of the in-memory run, for a file, for
/// stdin, with `-o`, with `--in-place`, and when the DOM engine must take the document.
#[test]
fn large_documents_stream_with_the_same_results() {
    let dir = tmp();
    let docs: [&[u8]; 4] = [
        b"<p><a href=a>a</a><style>p{background:url(s.png)}</style><a href=#top>t</a>\
          <noscript><img src=n></noscript><base href='/x/'>",
        // A base inside a table: the DOM engine takes it.
        b"<table><tr><td><base href=/t/></td></tr></table><a href=b>b</a>",
        // No base at all: links are left relative, and the summary says so.
        b"<a href=c>c</a><img src=d>",
        b"\xEF\xBB\xBF<meta charset=utf-8><a href='caf\xC3\xA9?a=1&amp;b=2'>x</a>",
    ];
    for (n, doc) in docs.iter().enumerate() {
        let path = file(dir.path(), &format!("d{n}.html"), doc);
        let url: &[&str] = if n == 2 { &[] } else { &["--url", URL] };
        let with = |extra: &[&str], input: &str| {
            let mut args = vec!["rewrite"];
            args.extend_from_slice(url);
            args.extend_from_slice(extra);
            args.push(input);
            args.into_iter().map(str::to_owned).collect::<Vec<_>>()
        };
        let run = |args: Vec<String>, stdin: &[u8]| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            linkbase_bytes(&args, stdin)
        };
        let expected = run(with(&[], s(&path)), b"");
        assert_eq!(expected.0, 0, "{}", expected.2);
        for (extra, stdin) in [(vec![], &b""[..]), (vec!["-"], *doc)] {
            let input = extra.first().copied().unwrap_or(s(&path));
            let streamed = run(with(&["--stream-threshold", "0"], input), stdin);
            // Stdin is named `-` in messages.
            let stderr = expected.2.replace(s(&path), input);
            assert_eq!(
                streamed,
                (expected.0, expected.1.clone(), stderr),
                "doc {n} from {input}"
            );
        }
        let out = dir.path().join(format!("o{n}.html"));
        let streamed = run(
            with(&["--stream-threshold", "0", "-o", s(&out)], s(&path)),
            b"",
        );
        assert_eq!((streamed.0, streamed.2.as_str()), (0, expected.2.as_str()));
        assert_eq!(std::fs::read(&out).unwrap(), expected.1, "doc {n} -o");
        let copy = file(dir.path(), &format!("p{n}.html"), doc);
        let streamed = run(
            with(&["--stream-threshold", "0", "--in-place"], s(&copy)),
            b"",
        );
        assert_eq!(streamed.0, 0, "{}", streamed.2);
        assert_eq!(
            std::fs::read(&copy).unwrap(),
            expected.1,
            "doc {n} --in-place"
        );

        for command in ["links", "base"] {
            let mut args = vec![command];
            args.extend_from_slice(url);
            let whole = linkbase(&[args.clone(), vec![s(&path)]].concat(), b"");
            args.extend_from_slice(&["--stream-threshold", "0", s(&path)]);
            let streamed = linkbase(&args, b"");
            assert_eq!(
                (streamed.code, streamed.stdout, streamed.stderr),
                (whole.code, whole.stdout, whole.stderr),
                "doc {n} {command}"
            );
        }
    }
}

/// `--output-charset` writes `&#N;` for what it cannot encode, which raw text
/// would keep literally: a script or stylesheet holding such a character is refused.
#[test]
fn output_charset_refuses_what_raw_text_cannot_hold() {
    let dir = tmp();
    for (tag, doc) in [
        (
            "script",
            "<meta charset=utf-8><script>var s = \"\u{2603}\";</script><a href=x>x</a>",
        ),
        (
            "style",
            "<meta charset=utf-8><style>p:before{content:\"\u{2603}\"}</style>",
        ),
    ] {
        let out = dir.path().join(format!("{tag}.html"));
        let run = linkbase_refusing(
            &[
                "rewrite",
                "--url",
                URL,
                "--output-charset",
                "windows-1252",
                "-o",
                s(&out),
            ],
            doc.as_bytes(),
        );
        assert_eq!(run.code, 2, "{tag}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "<{tag}> holds U+2603 (\u{2603}), which windows-1252 cannot represent"
            )),
            "{}",
            run.stderr
        );
        assert!(!out.exists());
    }
    // In text, the reference decodes back to the character: written.
    let run = linkbase(
        &["rewrite", "--url", URL, "--output-charset", "windows-1252"],
        "<meta charset=utf-8><p>\u{2603}</p><script>var ok = 1;</script>".as_bytes(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("<p>&#9731;</p>"), "{}", run.stdout);
    // SVG's <script> is not raw text: its references decode.
    let run = linkbase(
        &["rewrite", "--url", URL, "--output-charset", "windows-1252"],
        "<meta charset=utf-8><svg><script>var s = \"\u{2603}\";</script></svg>".as_bytes(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// A web address as INPUT, with no file of that name: linkbase fetches no page, and says how to
/// save one and give its URL (it used to say "No such file or directory"). A file of that name
/// is read as any file.
#[test]
fn a_url_as_input_is_refused_with_how_to_save_the_page() {
    for command in ["rewrite", "links", "base"] {
        let run = linkbase(&[command, "https://example.com/page.html"], b"");
        assert_eq!(run.code, 2, "{command}");
        assert_eq!(run.stdout, "", "{command}");
        assert_eq!(
            run.stderr,
            format!(
                "linkbase: https://example.com/page.html: no such file; linkbase reads pages from \
                 files and does not fetch them: save the page, then give its URL with --url: curl \
                 -o page.html 'https://example.com/page.html' && linkbase {command} page.html \
                 --url 'https://example.com/page.html'\n"
            )
        );
    }
    // A quote in the URL is percent-encoded in the command shown.
    let run = linkbase(&["links", "http://h/it's"], b"");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .ends_with("curl -o page.html 'http://h/it%27s' && linkbase links page.html --url 'http://h/it%27s'\n"),
        "{}",
        run.stderr
    );
    // A file that happens to be named so is read.
    let dir = tmp();
    let named = dir.path().join("http:");
    std::fs::create_dir(&named).unwrap();
    std::fs::write(named.join("p.html"), DOC).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(["rewrite", "--url", URL, "http://p.html"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(String::from_utf8(run.stdout).unwrap(), DOC_OUT);
}

/// A malformed host in a base the caller gives (an IP literal not closed: RFC 2732 §3) is refused
/// naming the flag, exit 2; a closed one is used.
#[test]
fn a_malformed_host_in_a_given_base_is_refused_naming_the_flag() {
    for flag in [
        "--url",
        "--default-base",
        "--content-base",
        "--content-location",
    ] {
        let run = linkbase_refusing(&["rewrite", flag, "http://[::1"], DOC);
        assert_eq!(run.code, 2, "{flag}");
        assert_eq!(run.stdout, "", "{flag}");
        assert_eq!(
            run.stderr,
            format!(
                "linkbase: {flag} \"http://[::1\": \"http://[::1\" has no usable host: its IP \
                 literal host has no closing `]` (RFC 2732 §3)\n"
            )
        );
    }
    let run = linkbase_refusing(&["links", "--url", "http://[::1]x/"], DOC);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "linkbase: --url \"http://[::1]x/\": \"http://[::1]x/\" has no usable host: after its IP \
         literal host comes only `:` and a port of digits (RFC 2732 §3)\n"
    );
    let run = linkbase(&["rewrite", "--url", "http://[::1]:8080/a/b/p.html"], DOC);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, r#"<a href="http://[::1]:8080/a/x">x</a>"#);
}
