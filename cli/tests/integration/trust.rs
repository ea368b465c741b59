//! A checked tree is data, not commands (docs/sites.md, "What a checked tree can and cannot
//! make linkbase do"): its `linkbase.toml`, `.linkbaseignore` and HTTrack index are read only as
//! regular files inside it, bounded, never echoed beyond a short excerpt; the paths its settings
//! name stay inside it; its numbers are bounded; and flags always win over settings files.

use super::util::linkbase;

fn tree(page: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("linkbase-trust-")
        .tempdir()
        .unwrap();
    std::fs::write(dir.path().join("index.html"), page).unwrap();
    dir
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// The tree's own settings cannot name a file outside it to write: the audit's
/// `cache = "../victim.txt"` replaced the file with JSON, with no flag on the command line.
#[test]
fn the_tree_s_settings_write_nothing_outside_it() {
    let outside = tree("");
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let dir = outside.path().join("site");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<a href=x.html>x</a>").unwrap();
    std::fs::write(
        dir.join("linkbase.toml"),
        "local = true\n[online]\nenabled = true\ncache = \"../victim.txt\"\n",
    )
    .unwrap();
    let run = linkbase(&["check", s(&dir)], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: check: {0}/linkbase.toml: cache = \"../victim.txt\": must be a path \
             inside {0} (relative, without ..)\n",
            dir.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    // Through a directory of the tree that is a link out of it: refused too.
    std::os::unix::fs::symlink(outside.path(), dir.join("out")).unwrap();
    std::fs::write(
        dir.join("linkbase.toml"),
        "local = true\n[online]\nenabled = true\ncache = \"out/victim.txt\"\n",
    )
    .unwrap();
    let run = linkbase(&["check", s(&dir)], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("a symbolic link in the tree; not written or read through"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
}

/// A `.linkbaseignore` that links to a secret of the runner (`/proc/self/environ`, a key) is
/// not read, and nothing of a bad line is printed but a short excerpt naming the line.
#[test]
fn the_ignore_file_is_never_a_way_to_print_a_secret() {
    let dir = tree("<a href=x.html>x</a>");
    let secrets = tree("");
    let secret = secrets.path().join("environ");
    std::fs::write(&secret, "AWS_SECRET_ACCESS_KEY=(hunter2\n").unwrap();
    std::os::unix::fs::symlink(&secret, dir.path().join(".linkbaseignore")).unwrap();
    let run = linkbase(&["check", s(dir.path()), "--local"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(&format!(
            "linkbase: {}/.linkbaseignore: a symbolic link: read only as a regular file of the \
             tree, never through a link\n",
            dir.path().display()
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("hunter2"), "{}", run.stderr);
    // The same for /proc/self/environ itself.
    std::fs::remove_file(dir.path().join(".linkbaseignore")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", dir.path().join(".linkbaseignore")).unwrap();
    let run = linkbase(&["check", s(dir.path()), "--local"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!run.stderr.contains("PATH="), "{}", run.stderr);
    // A bad pattern of the tree's own file: its line, and 60 characters of it at most.
    std::fs::remove_file(dir.path().join(".linkbaseignore")).unwrap();
    let long = format!("(unclosed {}\u{1b}[31m", "s".repeat(5000));
    std::fs::write(
        dir.path().join(".linkbaseignore"),
        format!("# ok\n^x\n{long}\n"),
    )
    .unwrap();
    let run = linkbase(&["check", s(dir.path()), "--local"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {}/.linkbaseignore:3: \"(unclosed {}…\" is not a regular expression: \
             unclosed character class\n",
            dir.path().display(),
            "s".repeat(50)
        )
    );
}

/// Files that are not regular files, or too large, are refused at once: a FIFO would block the
/// run for ever, a link to /dev/zero would read until memory runs out.
#[test]
fn the_tree_s_settings_file_is_a_regular_file_or_nothing() {
    let dir = tree("<a href=x.html>x</a>");
    let toml = dir.path().join("linkbase.toml");
    std::os::unix::fs::symlink("/dev/zero", &toml).unwrap();
    let run = linkbase(&["check", s(dir.path()), "--local"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("a symbolic link"), "{}", run.stderr);
    std::fs::remove_file(&toml).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(&toml)
        .status()
        .unwrap()
        .success());
    let run = linkbase(&["check", s(dir.path()), "--local"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: check: {}: a FIFO (named pipe), not a regular file; not read\n",
            toml.display()
        )
    );
    std::fs::remove_file(&toml).unwrap();
    // A .linkbaseignore FIFO: the same.
    let ignore = dir.path().join(".linkbaseignore");
    assert!(std::process::Command::new("mkfifo")
        .arg(&ignore)
        .status()
        .unwrap()
        .success());
    let run = linkbase(&["check", s(dir.path()), "--local"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("FIFO"), "{}", run.stderr);
    std::fs::remove_file(&ignore).unwrap();
    // Numbers are bounded whoever gives them: 100,000 threads is not a setting.
    std::fs::write(&toml, "local = true\njobs = 100000\n").unwrap();
    let run = linkbase(&["check", s(dir.path())], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: check: {}: jobs = 100000: at most 256\n",
            toml.display()
        )
    );
    let run = linkbase(&["check", s(dir.path()), "--local", "-j", "100000"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("invalid value '100000' for '--jobs <N>': at most 256"),
        "{}",
        run.stderr
    );
}

/// Flags override the settings file everywhere; no flag value panics.
#[test]
fn flags_win_over_the_settings_file() {
    let dir = tree("<a href=x.html>x</a>");
    std::fs::write(dir.path().join("x.html"), "").unwrap();
    std::fs::write(
        dir.path().join("linkbase.toml"),
        "site_url = \"https://example.com/\"\nformat = \"json\"\n",
    )
    .unwrap();
    // --local on the command line replaces the file's site_url.
    let run = linkbase(
        &["check", s(dir.path()), "--local", "--format", "human"],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("2 pages, 1 link: 1 internal"),
        "{}",
        run.stdout
    );
    // A bad value with a settings file present is bad usage, as without one.
    let run = linkbase(&["check", s(dir.path()), "--format", "xml"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("invalid value 'xml' for '--format <FORMAT>'"),
        "{}",
        run.stderr
    );
    // No site at all: the message says both ways.
    std::fs::remove_file(dir.path().join("linkbase.toml")).unwrap();
    let run = linkbase(&["check", s(dir.path())], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "linkbase: check: no --site-url URL (the URL the tree is published at) nor --local (the \
         tree as it browses from disk): check needs one of them (or site_url or local in \
         linkbase.toml)\n"
    );
}

/// `rewrite DIR` reads one file of the tree for itself, HTTrack's index: the same rules.
#[test]
fn rewrite_reads_the_httrack_index_as_data() {
    let project = tree("");
    let dir = project.path().join("example.com");
    std::fs::create_dir_all(dir.join("hts-cache")).unwrap();
    std::fs::write(dir.join("index.html"), "<a href=\"a.html\">a</a>").unwrap();
    let secrets = tree("");
    std::fs::write(secrets.path().join("new.txt"), "SECRET").unwrap();
    std::os::unix::fs::symlink(
        secrets.path().join("new.txt"),
        dir.join("hts-cache/new.txt"),
    )
    .unwrap();
    let out = project.path().join("out");
    let rewrite = || {
        linkbase(
            &[
                "rewrite",
                s(&dir),
                "--site-url",
                "https://example.com/",
                "--layout",
                "httrack",
                "-o",
                s(&out),
            ],
            b"",
        )
    };
    let run = rewrite();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "linkbase: {}: HTTrack's index not read (a symbolic link: read only as a regular \
             file of the tree, never through a link): URLs with a query are not found\n",
            dir.display()
        )),
        "{}",
        run.stderr
    );
    // A FIFO in its place is not waited on.
    std::fs::remove_file(dir.join("hts-cache/new.txt")).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(dir.join("hts-cache/new.txt"))
        .status()
        .unwrap()
        .success());
    let run = rewrite();
    assert!(run.stderr.contains("FIFO"), "{}", run.stderr);
}
