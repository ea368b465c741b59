//! Site runs that can never destroy data or write outside their tree, and the
//! related site-run guarantees (links left unresolved are counted, output to a device stays a
//! device). One regression test per
//! failure the audit found.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::sites::{copy_tree, expected, fixture, s, snapshot, tmp, Node, BASIC_URL};
use super::util::{linkbase, untimed};

/// A copy of `fixtures/sites/basic` at `dir/site`.
fn basic_site(dir: &Path) -> PathBuf {
    let site = dir.join("site");
    copy_tree(&fixture("basic"), &site);
    site
}

#[test]
fn output_directory_that_is_the_input_is_refused_and_nothing_is_touched() {
    let dir = tmp();
    let site = basic_site(dir.path());
    let before = snapshot(&site);
    std::fs::create_dir(site.join("docs/sub")).unwrap();
    let spellings = [
        s(&site).to_owned(),
        format!("{}/", s(&site)),
        format!("{}/./", s(&site)),
        format!("{}/docs/sub/../..", s(&site)),
    ];
    for out in &spellings {
        let run = linkbase(
            &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", out],
            b"",
        );
        assert_eq!(run.code, 2, "{out}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("the output directory is the input directory"),
            "{out}: {}",
            run.stderr
        );
    }
    // Through a symbolic link to the input, too.
    let alias = dir.path().join("alias");
    std::os::unix::fs::symlink(&site, &alias).unwrap();
    let run = linkbase(
        &[
            "rewrite",
            s(&site),
            "--site-url",
            BASIC_URL,
            "-o",
            s(&alias),
        ],
        b"",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    std::fs::remove_dir(site.join("docs/sub")).unwrap();
    // Every byte of every file, images and stylesheets included, is as it was.
    assert_eq!(snapshot(&site), before);
}

#[test]
fn output_directory_inside_the_input_is_refused() {
    let dir = tmp();
    let site = basic_site(dir.path());
    let before = snapshot(&site);
    for out in ["out", "docs/out", "docs/../out"] {
        let target = format!("{}/{out}", s(&site));
        let run = linkbase(
            &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", &target],
            b"",
        );
        assert_eq!(run.code, 2, "{out}: {}", run.stderr);
        assert!(
            run.stderr.contains("lies inside the input directory"),
            "{}",
            run.stderr
        );
    }
    assert_eq!(snapshot(&site), before, "nothing was written, not even OUT");
    // Nor around it: `-o ..` would write DIR/site/x.html's output over DIR/x.html.
    let parent = site.parent().unwrap();
    let run = linkbase(
        &[
            "rewrite",
            s(&site),
            "--site-url",
            BASIC_URL,
            "-o",
            s(parent),
        ],
        b"",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("contains the input directory"),
        "{}",
        run.stderr
    );
    assert_eq!(snapshot(&site), before);
}

#[test]
fn output_file_that_is_the_input_is_refused_without_in_place() {
    let dir = tmp();
    let page = dir.path().join("page.html");
    let original = b"<a href='x'>x</a>".to_vec();
    std::fs::write(&page, &original).unwrap();
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(&page, &link).unwrap();
    let dotted = format!("{}/./page.html", s(dir.path()));
    for out in [s(&page), s(&link), dotted.as_str()] {
        let run = linkbase(&["rewrite", "--url", "http://h/", s(&page), "-o", out], b"");
        assert_eq!(run.code, 2, "{out}: {}", run.stderr);
        assert!(run.stderr.contains("use --in-place"), "{}", run.stderr);
    }
    assert_eq!(std::fs::read(&page).unwrap(), original);
    let run = linkbase(
        &["rewrite", "--url", "http://h/", s(&page), "--in-place"],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&page).unwrap(),
        r#"<a href='http://h/x'>x</a>"#
    );
}

#[test]
fn symbolic_links_in_the_output_are_replaced_never_written_through() {
    let dir = tmp();
    let site = basic_site(dir.path());
    let out = dir.path().join("out");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("victim.png"), b"precious").unwrap();
    std::fs::write(outside.join("victim.html"), b"precious page").unwrap();
    // Links where an earlier run (or someone else) left them: a file, a page, and a directory.
    std::fs::create_dir_all(out.join("assets")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.png"), out.join("assets/logo.png")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.html"), out.join("about.html")).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("docs")).unwrap();

    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", s(&out)],
        b"",
    );
    // The pages under the symlinked directory are not written there, and say so; the summary
    // says they are not in the output (it said "copied unchanged").
    assert_eq!(run.code, 1, "{}", run.stderr);
    let summary = run.stderr.lines().last().unwrap();
    assert!(
        summary.starts_with("linkbase: rewrite: ")
            && summary.contains("; 3 of 7 files failed (not written to the output, see above);"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("out/docs: a symbolic link in the tree; not written or read through"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(outside.join("victim.png")).unwrap(),
        b"precious"
    );
    assert_eq!(
        std::fs::read(outside.join("victim.html")).unwrap(),
        b"precious page"
    );
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        2,
        "nothing created outside"
    );
    // The links to files were replaced by the files themselves.
    let after = snapshot(&out);
    assert_eq!(
        after["assets/logo.png"],
        Node::File(std::fs::read(site.join("assets/logo.png")).unwrap())
    );
    let about = std::fs::read_to_string(out.join("about.html")).unwrap();
    assert!(about.contains("https://example.com/site/"), "{about}");
    assert_eq!(
        std::fs::read_to_string(out.join("index.html")).unwrap(),
        expected("basic.rewrite/index.html")
    );
}

#[test]
fn in_place_keeps_owner_group_and_mode() {
    if !nix_is_root() {
        eprintln!("skipped: keeping the owner and group needs a run as root to set them up");
        return;
    }
    let dir = tmp();
    let site = basic_site(dir.path());
    let page = site.join("index.html");
    std::os::unix::fs::chown(&page, Some(4242), Some(4343)).unwrap();
    std::fs::set_permissions(&page, std::fs::Permissions::from_mode(0o640)).unwrap();
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&page).unwrap(),
        expected("basic.rewrite/index.html")
    );
    let meta = std::fs::metadata(&page).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4242, 4343));
    assert_eq!(meta.mode() & 0o7777, 0o640);
}

#[test]
fn in_place_keeps_mode_for_everyone() {
    let dir = tmp();
    let site = basic_site(dir.path());
    let page = site.join("about.html");
    std::fs::set_permissions(&page, std::fs::Permissions::from_mode(0o604)).unwrap();
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let meta = std::fs::metadata(&page).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o604);
}

/// Whether this process may give files away (root with CAP_CHOWN: `.ci/run` also runs these
/// tests as uid 0 without capabilities, where root is an ordinary user).
fn nix_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("CapEff:"))
            .and_then(|caps| u64::from_str_radix(caps.trim(), 16).ok())
            .is_some_and(|caps| caps & 1 != 0) // bit 0: CAP_CHOWN
    })
}

#[test]
fn a_second_in_place_run_is_kept_out() {
    let dir = tmp();
    let site = basic_site(dir.path());
    let before = snapshot(&site);
    // flock(1) holds the same lock a linkbase run takes: the root directory, exclusively.
    let mut holder = Command::new("flock")
        .args([s(&site), "sleep", "30"])
        .stdin(Stdio::null())
        .spawn()
        .expect("flock(1) from util-linux");
    // Wait until it holds the lock (a non-blocking probe fails while it does).
    for _ in 0..100 {
        let probe = Command::new("flock")
            .args(["-n", s(&site), "true"])
            .status()
            .unwrap();
        if !probe.success() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
        b"",
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("another linkbase run is writing this tree"),
        "{}",
        run.stderr
    );
    assert_eq!(snapshot(&site), before);
}

/// Holds flock(1) on `path` (`-s`: shared) until killed; returns once it holds it. `-o`: the
/// lock is flock's own, not inherited by its `sleep`, so killing flock releases it.
fn hold_lock(path: &Path, shared: bool) -> std::process::Child {
    let mut args = vec!["-o"];
    if shared {
        args.push("-s");
    }
    args.extend([s(path), "sleep", "30"]);
    let holder = Command::new("flock")
        .args(&args)
        .stdin(Stdio::null())
        .spawn()
        .expect("flock(1) from util-linux");
    // Held once an exclusive non-blocking probe fails.
    for _ in 0..250 {
        let probe = Command::new("flock")
            .args(["-n", s(path), "true"])
            .status()
            .unwrap();
        if !probe.success() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    holder
}

/// The lock covered only the named root, so `--in-place` on DIR and on DIR/docs ran
/// at once. A run holds its root exclusively and every directory above it shared.
#[test]
fn runs_on_nested_trees_keep_each_other_out() {
    let dir = tmp();
    let site = basic_site(dir.path());
    let before = snapshot(&site);
    let in_place = |root: &Path| {
        linkbase(
            &["rewrite", s(root), "--site-url", BASIC_URL, "--in-place"],
            b"",
        )
    };
    // A run on the whole tree (its root held exclusively): a run inside it is kept out.
    let mut holder = hold_lock(&site, false);
    let inner = in_place(&site.join("docs"));
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(inner.code, 2, "{}", inner.stderr);
    assert_eq!(
        inner.stderr,
        format!(
            "linkbase: {}: another linkbase run is writing this tree, or a tree inside it or \
             around it ({}); try again when it has finished\n",
            site.join("docs").display(),
            site.canonicalize().unwrap().display()
        )
    );
    // A run inside the tree (the tree's root held shared): a run on the whole tree is kept out.
    let mut holder = hold_lock(&site, true);
    let outer = in_place(&site);
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(outer.code, 2, "{}", outer.stderr);
    assert!(
        outer
            .stderr
            .contains("another linkbase run is writing this tree, or a tree inside it"),
        "{}",
        outer.stderr
    );
    assert_eq!(snapshot(&site), before);
}

/// The temporary file of a killed single-file or WARC `-o` run stayed forever. The
/// next run writing in that directory removes it; a live run's (locked) is left alone.
#[test]
fn temporary_files_of_killed_single_file_and_warc_runs_are_removed_by_the_next_run() {
    let dir = tmp();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<a href=x>x</a>").unwrap();
    let stale = out.join(".linkbase-4242-0-00000000.tmp");
    std::fs::write(&stale, "half a page").unwrap();
    let live = out.join(".linkbase-live.tmp");
    std::fs::write(&live, "being written").unwrap();
    let mut holder = hold_lock(&live, false);
    let run = linkbase(
        &[
            "rewrite",
            s(&page),
            "--url",
            "http://h/",
            "-o",
            s(&out.join("page.html")),
        ],
        b"",
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: removed {}, left by an interrupted run\n",
            stale.display()
        )
    );
    assert!(!stale.exists());
    assert!(live.exists(), "a live run's temporary file is left alone");
    assert_eq!(
        std::fs::read_to_string(out.join("page.html")).unwrap(),
        "<a href=http://h/x>x</a>"
    );
    // A WARC -o run: the same.
    let warc = dir.path().join("in.warc");
    std::fs::write(&warc, "WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:x:1>\r\nContent-Length: 0\r\n\r\n\r\n\r\n").unwrap();
    std::fs::write(&stale, "half an archive").unwrap();
    let run = linkbase(&["rewrite", s(&warc), "-o", s(&out.join("out.warc"))], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Both (in directory order): the live run's file is now a killed run's.
    assert!(
        run.stderr.contains(&format!(
            "linkbase: removed {}, left by an interrupted run\n",
            stale.display()
        )),
        "{}",
        run.stderr
    );
    assert!(!stale.exists());
    assert!(!live.exists(), "no longer locked: a killed run's");
}

#[test]
fn temporary_files_of_a_killed_run_are_cleaned_and_never_copied_or_checked() {
    let dir = tmp();
    let site = basic_site(dir.path());
    std::fs::write(site.join(".linkbase-AbC123.tmp"), b"half a page").unwrap();
    std::fs::write(site.join("docs/.linkbase-x.tmp"), b"half").unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("docs")).unwrap();
    std::fs::write(out.join("docs/.linkbase-old.tmp"), b"stale").unwrap();

    let check = linkbase(
        &[
            "check",
            s(&site),
            "--site-url",
            BASIC_URL,
            "--format",
            "jsonl",
        ],
        b"",
    );
    assert!(!check.stdout.contains(".linkbase-"), "{}", check.stdout);

    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", s(&out)],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("left by an interrupted run"),
        "{}",
        run.stderr
    );
    assert!(
        snapshot(&out).keys().all(|k| !k.contains(".linkbase-")),
        "{:?}",
        snapshot(&out).keys()
    );

    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(snapshot(&site).keys().all(|k| !k.contains(".linkbase-")));
}

#[test]
fn names_that_are_not_utf8_are_copied_and_reported_not_skipped() {
    let dir = tmp();
    let site = basic_site(dir.path());
    let name = OsStr::from_bytes(b"caf\xe9.html");
    std::fs::write(site.join(name), b"<a href=x>latin-1 name</a>").unwrap();
    let out = dir.path().join("out");
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", s(&out)],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "the name is not UTF-8, so it has no URL; links not rewritten, copied unchanged"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(out.join(name)).unwrap(),
        b"<a href=x>latin-1 name</a>"
    );

    let check = linkbase(&["check", s(&site), "--site-url", BASIC_URL], b"");
    assert_eq!(check.code, 2, "{}", check.stderr);
    assert!(check.stderr.contains("not UTF-8"), "{}", check.stderr);
}

#[test]
fn hostile_names_and_hrefs_cannot_forge_lines_or_drive_the_terminal() {
    let dir = tmp();
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("evil\nfake: <a href> \"x\" -> y: missing.html"),
        "<meta charset=utf-8><a href=\"missing\u{1b}[2J.html\">x</a><a href=\"a\u{202e}b.html\">y</a>",
    )
    .unwrap();
    let run = linkbase(&["check", s(&site), "--site-url", BASIC_URL], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{202e}'));
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            r#"missing a\u{202e}b.html  (1 link on 1 page)"#,
            r#"    evil\nfake: <a href> "x" -> y: missing.html:1:62: <a href> "a\u{202e}b.html""#,
            r#"missing missing\x1b[2J.html  (1 link on 1 page)"#,
            r#"    evil\nfake: <a href> "x" -> y: missing.html:1:30: <a href> "missing\x1b[2J.html""#,
            "1 page, 2 links: 2 internal, 2 broken (0 outside the site root) to 2 targets; 0 external (listed, not fetched); 0 unresolvable; 0 excluded; 0 not checked",
        ],
        "{}",
        run.stdout
    );
    let tsv = linkbase(
        &[
            "check",
            s(&site),
            "--site-url",
            BASIC_URL,
            "--format",
            "tsv",
        ],
        b"",
    );
    assert!(!tsv.stdout.contains('\u{1b}'), "{}", tsv.stdout);
    assert_eq!(tsv.stdout.lines().count(), 3, "{}", tsv.stdout);
}

#[test]
fn encoded_traversal_is_outside_the_root_and_encoded_slash_is_no_separator() {
    let dir = tmp();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("docs")).unwrap();
    std::fs::write(site.join("docs/index.html"), "docs").unwrap();
    std::fs::write(
        site.join("index.html"),
        "<a href=\"docs/..%2f..%2f..%2fetc%2fpasswd\">1</a><a href=\"docs%2Findex.html\">2</a>\
         <a href=\"docs/index.html\">3</a>",
    )
    .unwrap();
    let run = linkbase(
        &[
            "check",
            s(&site),
            "--site-url",
            BASIC_URL,
            "--format",
            "tsv",
        ],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let verdicts: Vec<(&str, &str)> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[1], f[2])
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("outside-root", ""),
            ("missing", "docs%2Findex.html"),
            ("ok", "docs/index.html")
        ]
    );
}

/// A run killed at random points leaves every file either as it was or as the finished run
/// writes it, never torn, and the next run leaves no temporary file behind.
#[test]
fn killed_in_place_runs_leave_every_file_old_or_new() {
    let dir = tmp();
    // A tree big enough that a run takes a while: 40 copies of the basic site's pages.
    let template = dir.path().join("template");
    for n in 0..40 {
        copy_tree(&fixture("basic"), &template.join(format!("copy{n}")));
    }
    let old = snapshot(&template);
    let finished = dir.path().join("finished");
    copy_tree(&template, &finished);
    let run = linkbase(
        &[
            "rewrite",
            s(&finished),
            "--site-url",
            BASIC_URL,
            "--in-place",
            "-j",
            "2",
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let new = snapshot(&finished);

    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for round in 0..8 {
        let site = dir.path().join(format!("round{round}"));
        copy_tree(&template, &site);
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_millis(seed % 60);
        let mut child = Command::new(env!("CARGO_BIN_EXE_linkbase"))
            .args([
                "rewrite",
                s(&site),
                "--site-url",
                BASIC_URL,
                "--in-place",
                "-j",
                "2",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        child.wait().unwrap();
        for (rel, node) in snapshot(&site) {
            if rel.contains(".linkbase-") {
                continue;
            }
            assert!(
                old.get(&rel) == Some(&node) || new.get(&rel) == Some(&node),
                "round {round} ({delay:?}): {rel} is neither old nor new"
            );
        }
        let again = linkbase(
            &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
            b"",
        );
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert_eq!(
            snapshot(&site),
            new,
            "round {round}: the next run finishes the job"
        );
    }
}

/// Site runs say how many links they left relative or unresolvable, and
/// `--fail-on-unresolved` makes that exit 1.
#[test]
fn site_runs_summarise_unresolved_links() {
    let dir = tmp();
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("a.html"),
        "<base href=\"mailto:q@r\"><a href=\"x\">x</a><a href=\"mailto:a@b\">m</a>",
    )
    .unwrap();
    std::fs::write(site.join("b.html"), "<a href=\"y\">y</a>").unwrap();
    let out = dir.path().join("out");
    let run = linkbase(
        &[
            "rewrite",
            s(&site),
            "--site-url",
            "http://s/",
            "-o",
            s(&out),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The run's one summary line says how many links were left, on how many pages, and why.
    assert_eq!(
        untimed(&run.stderr),
        format!(
            "linkbase: rewrite: 2 pages, 4 links: 3 absolute, 1 left relative or unresolvable on \
             1 page (opaque base); 0 other files copied; 0 failed; written to {}; T s\n",
            out.display()
        )
    );
    let out2 = dir.path().join("out2");
    let run = linkbase(
        &[
            "rewrite",
            s(&site),
            "--site-url",
            "http://s/",
            "-o",
            s(&out2),
            "--fail-on-unresolved",
        ],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    // A MIME message: per part.
    let mail = b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<base href=\"mailto:x@y\"><a href=g>g</a>\r\n";
    let run = linkbase(&["rewrite", "--fail-on-unresolved"], mail);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "linkbase: - part 1: 1 of 2 links left relative or unresolvable (opaque base)\n"
    );
}

/// Found running `check DIR -o /dev/null` as root for a benchmark: the report went through a
/// temporary file renamed over the path, so /dev/null became a regular file for the whole
/// machine (and the next programs reading it read the report). A character device or a FIFO the
/// user names is written to, as a shell's `>` does; it stays what it was.
#[test]
fn output_to_a_device_or_a_fifo_writes_into_it_and_leaves_it_there() {
    use std::os::unix::fs::FileTypeExt;
    let is_char_device = |p: &Path| std::fs::metadata(p).unwrap().file_type().is_char_device();
    assert!(is_char_device(Path::new("/dev/null")));
    let run = linkbase(
        &[
            "check",
            s(&fixture("basic")),
            "--site-url",
            BASIC_URL,
            "--format",
            "jsonl",
            "-o",
            "/dev/null",
        ],
        b"",
    );
    assert_eq!(run.code, 1, "broken links, written fine: {}", run.stderr);
    assert!(
        is_char_device(Path::new("/dev/null")),
        "/dev/null is still a device"
    );

    let dir = tmp();
    let fifo = dir.path().join("report.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let run = linkbase(
        &[
            "check",
            s(&fixture("basic")),
            "--site-url",
            BASIC_URL,
            "--format",
            "jsonl",
            "-o",
            s(&fifo),
        ],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = reader.join().unwrap();
    assert_eq!(
        report.lines().count(),
        38,
        "every record came through the FIFO"
    );
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}
