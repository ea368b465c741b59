//! Helpers shared by the integration tests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The output of one `linkbase` run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `linkbase` with `args`, feeding `stdin`.
pub fn linkbase(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linkbase");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
    }
}

/// `stderr` with the run time that ends a summary line (`; 0.12 s`, the one figure a test
/// cannot know) written as `; T s`.
pub fn untimed(stderr: &str) -> String {
    stderr
        .lines()
        .map(|line| match line.rsplit_once("; ") {
            Some((head, time))
                if time.ends_with(" s")
                    && time.len() > 2
                    && time
                        .trim_end_matches(" s")
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '.') =>
            {
                format!("{head}; T s\n")
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

/// JSON lines, one value each; a line that is not JSON fails the test, naming it.
pub fn jsonl(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The single-document path on a payload: `links FILE --url URI --headers HEAD`, what an
/// archived record's links must equal, each with the `content_type` an archived record's
/// link carries: the essence of the head's `Content-Type`, `text/html` when it has none.
pub fn expected_links(
    dir: &std::path::Path,
    uri: &str,
    head: &str,
    payload: &[u8],
) -> Vec<serde_json::Value> {
    let page = dir.join("page.html");
    let headers = dir.join("headers.txt");
    std::fs::write(&page, payload).unwrap();
    std::fs::write(&headers, head).unwrap();
    let run = linkbase(
        &[
            "links",
            page.to_str().unwrap(),
            "--url",
            uri,
            "--headers",
            headers.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let content_type = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.split(';').next().unwrap().trim().to_ascii_lowercase())
        .unwrap_or_else(|| "text/html".to_owned());
    let mut links = jsonl(&run.stdout);
    for l in &mut links {
        l["content_type"] = serde_json::Value::String(content_type.clone());
    }
    links
}

/// The (element, attribute) pairs the independent references find (`URL_ATTRS` of
/// `scripts/fixtures/html_reference.py`): the plain URL attributes they compare.
pub const URL_ATTRS: &[(&str, &str)] = &[
    ("a", "href"),
    ("area", "href"),
    ("link", "href"),
    ("img", "src"),
    ("script", "src"),
    ("iframe", "src"),
    ("frame", "src"),
    ("embed", "src"),
    ("source", "src"),
    ("video", "src"),
    ("audio", "src"),
    ("track", "src"),
    ("form", "action"),
    ("input", "src"),
    ("blockquote", "cite"),
    ("q", "cite"),
    ("del", "cite"),
    ("ins", "cite"),
];

/// (verdict, target) of each broken target of a `check --format json` report.
pub fn broken_targets(report: &serde_json::Value) -> Vec<(String, String)> {
    report["broken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["verdict"].as_str().unwrap().to_owned(),
                b["target"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}
