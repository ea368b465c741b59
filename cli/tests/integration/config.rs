//! `linkbase.toml` and `check --config FILE`: the file's settings apply, the
//! command line wins over them, and an unknown key is an error naming the file and the key.

use super::util::linkbase;

fn tree(config: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("linkbase-config-")
        .tempdir()
        .unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<a href=gone.html>g</a>\n<a href=lost.html>l</a>\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("linkbase.toml"), config).unwrap();
    dir
}

#[test]
fn the_file_applies_and_the_command_line_wins() {
    let dir =
        tree("site_url = \"https://example.com/\"\nformat = \"github\"\nexclude = [\"gone\"]\n");
    let d = dir.path().to_str().unwrap();
    // No --site-url, no --format: both from the file, and its exclude.
    let run = linkbase(&["check", d], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first = run.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("::error file=") && first.ends_with(",line=2,col=9,title=linkbase%3A missing::missing lost.html (<a href> \"lost.html\")"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("::error"))
            .count(),
        1
    );
    // --format and --exclude on the command line replace the file's.
    let run = linkbase(&["check", d, "--format", "jsonl", "--exclude", "lost"], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let broken: Vec<_> = super::util::jsonl(&run.stdout)
        .into_iter()
        .filter(|r| r["verdict"] == "missing")
        .map(|r| r["original"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(broken, ["gone.html"]);
    // --config names another file; DIR/linkbase.toml is then not read.
    let other = dir.path().join("other.toml");
    std::fs::write(&other, "local = true\nformat = \"json\"\n").unwrap();
    let run = linkbase(&["check", d, "--config", other.to_str().unwrap()], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["summary"]["broken_targets"], 2);
}

#[test]
fn an_unknown_key_names_the_file_and_the_key() {
    let dir = tree("site_url = \"https://example.com/\"\n[online]\ntimout = \"5s\"\n");
    let d = dir.path().to_str().unwrap();
    let run = linkbase(&["check", d], b"");
    assert_eq!(run.code, 2);
    let file = dir.path().join("linkbase.toml");
    let expected = format!(
        "linkbase: check: {}: line 3: unknown field `timout`, expected one of",
        file.display()
    );
    assert!(run.stderr.starts_with(&expected), "{}", run.stderr);
    // A --config file that is not there is an error too (a missing DIR/linkbase.toml is not).
    let run = linkbase(&["check", d, "--config", "/nonexistent/linkbase.toml"], b"");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("linkbase: check: /nonexistent/linkbase.toml: "),
        "{}",
        run.stderr
    );
}
