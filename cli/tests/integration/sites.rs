//! Whole sites: `linkbase check DIR` and `linkbase rewrite DIR` on the hand-made trees
//! of `fixtures/sites/`, compared with the hand-verified outputs of `fixtures/sites/expected/`.
//!
//! Symbolic links and FIFOs cannot be committed reliably, so the tests that need them make them
//! in a temporary copy of a tree.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::util::{jsonl, linkbase, untimed, Run};

/// The URL `fixtures/sites/basic` is checked and rewritten against.
pub(crate) const BASIC_URL: &str = "https://example.com/site/";
/// The URL of `fixtures/sites/clean` and `fixtures/sites/links` (`clean` links to `/docs/`).
const DOCS_URL: &str = "https://example.net/docs/";

fn sites() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sites")
}

pub(crate) fn fixture(name: &str) -> PathBuf {
    sites().join(name)
}

pub(crate) fn expected(name: &str) -> String {
    let path = sites().join("expected").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub(crate) fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

pub(crate) fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("linkbase-sites-")
        .tempdir()
        .expect("temporary directory")
}

/// Copies the regular files and directories of `from` into `to` (created).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// What a tree holds, without following symbolic links: `/`-separated path to contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    File(Vec<u8>),
    Link(PathBuf),
    Other,
}

pub(crate) fn snapshot(root: &Path) -> BTreeMap<String, Node> {
    fn go(root: &Path, dir: &Path, out: &mut BTreeMap<String, Node>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                out.insert(rel, Node::Link(std::fs::read_link(&path).unwrap()));
            } else if kind.is_dir() {
                go(root, &path, out);
            } else if kind.is_file() {
                out.insert(rel, Node::File(std::fs::read(&path).unwrap()));
            } else {
                out.insert(rel, Node::Other);
            }
        }
    }
    let mut out = BTreeMap::new();
    go(root, root, &mut out);
    out
}

fn is_html(rel: &str) -> bool {
    rel.ends_with(".html")
}

/// Runs `linkbase`, killing it after `limit`: a FIFO that got opened would hang it forever.
fn linkbase_within(limit: Duration, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linkbase");
    // Drain the pipes on threads so a full pipe cannot stall the child.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        stdout.read_to_end(&mut v).unwrap();
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        stderr.read_to_end(&mut v).unwrap();
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("linkbase {args:?} still running after {limit:?}: it opened a FIFO?");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.join().unwrap()).unwrap(),
        stderr: String::from_utf8(err.join().unwrap()).unwrap(),
    }
}

fn check(dir: &Path, url: &str, extra: &[&str]) -> Run {
    let mut args = vec!["check", s(dir), "--site-url", url];
    args.extend_from_slice(extra);
    linkbase(&args, b"")
}

/// (file, original) → verdict, from `check --format jsonl`.
fn verdicts(stdout: &str) -> BTreeMap<(String, String), String> {
    jsonl(stdout)
        .into_iter()
        .map(|r| {
            (
                (
                    r["file"].as_str().unwrap().to_owned(),
                    r["original"].as_str().unwrap().to_owned(),
                ),
                r["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

// ----- check -----------------------------------------------------------------------------------

/// The stderr summary of `check` on `fixtures/sites/basic`, in every format.
const BASIC_SUMMARY: &str = "linkbase: check: 5 pages and 1 stylesheet, 38 links: 36 internal, 12 broken (2 outside the site root) to 9 targets; 2 external (listed, not fetched); 0 unresolvable; 0 excluded; 2 not checked: 1 external (no --online), 1 another scheme\n";

#[test]
fn check_jsonl_is_the_hand_verified_output() {
    let run = check(&fixture("basic"), BASIC_URL, &["--format", "jsonl"]);
    assert_eq!(run.code, 1, "broken links found: exit 1\n{}", run.stderr);
    assert_eq!(run.stderr, BASIC_SUMMARY);
    assert_eq!(run.stdout, expected("basic.check.jsonl"));
}

#[test]
fn check_jsonl_verdicts_one_by_one() {
    // The same facts as the expected file, spelled out so a regression names the case.
    let run = check(&fixture("basic"), BASIC_URL, &["--format", "jsonl"]);
    let v = verdicts(&run.stdout);
    let at = |file: &str, original: &str| {
        v.get(&(file.to_owned(), original.to_owned()))
            .unwrap_or_else(|| panic!("no record for {file} {original:?}"))
            .as_str()
    };
    for (file, original, verdict) in [
        ("index.html", "about.html", "ok"),
        ("index.html", "docs/", "ok"),
        ("index.html", "docs", "ok"),
        ("index.html", "nowhere.html", "missing"),
        ("index.html", "about.html#team", "ok"),
        ("index.html", "about.html#nobody", "missing-fragment"),
        ("index.html", "about.html#history", "ok"),
        ("index.html", "#top-heading", "ok"),
        ("index.html", "#no-such-heading", "missing-fragment"),
        ("index.html", "docs/a%20b.html#intro", "ok"),
        ("index.html", "../../../../etc/passwd", "outside-root"),
        ("index.html", "/../etc/passwd", "outside-root"),
        ("index.html", "/site/../site/about.html", "ok"),
        (
            "index.html",
            "https://example.com/site/about.html?lang=en",
            "ok",
        ),
        ("index.html", "https://example.org/elsewhere", "external"),
        ("index.html", "mailto:someone@example.org", "external"),
        ("index.html", "assets/style.css", "ok"),
        ("index.html", "assets/missing.css", "missing"),
        ("index.html", "assets/logo.png", "ok"),
        ("index.html", "assets/banner.png", "missing"),
        ("index.html", "assets/logo@2x.png", "missing"),
        ("about.html", "./", "ok"),
        ("about.html", "index.html#top", "ok"),
        ("docs/index.html", "a b.html", "ok"),
        ("docs/index.html", "../assets/", "missing"),
        ("docs/a b.html", "#intro", "ok"),
        ("docs/a b.html", "../about.html#nobody", "missing-fragment"),
        // <base href="../assets/"> moves every relative link of the page.
        ("docs/based.html", "logo.png", "ok"),
        ("docs/based.html", "style.css", "ok"),
        ("docs/based.html", "index.html", "missing"),
        ("docs/based.html", "#part", "missing"),
        ("docs/based.html", "../docs/index.html", "ok"),
    ] {
        assert_eq!(at(file, original), verdict, "{file}: {original:?}");
    }
    // The <base href> itself is where links resolve from, not a link.
    assert!(!v.contains_key(&("docs/based.html".into(), "../assets/".into())));
}

#[test]
fn check_human_is_the_hand_verified_output() {
    let run = check(&fixture("basic"), BASIC_URL, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stderr, BASIC_SUMMARY);
    assert_eq!(run.stdout, expected("basic.check.txt"));
}

#[test]
fn check_tsv_has_its_header_and_one_row_per_link() {
    let run = check(&fixture("basic"), BASIC_URL, &["--format", "tsv"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let header = run.stdout.lines().next().unwrap();
    assert_eq!(
        header,
        "file\tverdict\ttarget\tpart\telement\tattribute\toriginal\tresolved\tbase\tbase_source\tsame_document\tdiagnostic\ttarget_part\tline\tcolumn"
    );
    for line in run.stdout.lines() {
        assert_eq!(line.split('\t').count(), 15, "{line:?}");
    }
    assert_eq!(run.stdout, expected("basic.check.tsv"));
}

#[test]
fn check_output_is_the_same_on_one_thread_and_on_two() {
    for format in ["human", "json", "markdown", "junit", "jsonl", "tsv"] {
        let one = check(
            &fixture("basic"),
            BASIC_URL,
            &["--format", format, "-j", "1"],
        );
        let two = check(
            &fixture("basic"),
            BASIC_URL,
            &["--format", format, "-j", "2"],
        );
        assert_eq!((one.code, &one.stdout), (two.code, &two.stdout), "{format}");
    }
}

/// A tree of `n` pages in a few directories, each linking to the next (by id, some missing).
fn generated_tree(dir: &Path, n: usize) {
    for i in 0..n {
        let sub = dir.join(format!("d{}", i % 5));
        std::fs::create_dir_all(&sub).unwrap();
        let next = (i + 1) % n;
        let fragment = if i % 7 == 0 { "nope" } else { "s" };
        let missing = if i % 11 == 0 {
            r#"<a href="/x/../gone.html">gone</a>"#
        } else {
            ""
        };
        let page = format!(
            "<title>{i}</title><h1 id=s>{i}</h1><a href=\"../d{}/p{next}.html#{fragment}\">next</a>\
             <a href=\"../\">home</a><img srcset=\"../img{i}.png 2x\">{missing}",
            next % 5
        );
        std::fs::write(sub.join(format!("p{i}.html")), page).unwrap();
    }
    std::fs::write(dir.join("index.html"), "<a href=d0/p0.html>start</a>").unwrap();
}

#[test]
fn check_output_is_the_same_on_one_thread_and_on_two_past_one_chunk() {
    // check_tree works in chunks of 64 pages: 300 pages make five.
    let dir = tmp();
    generated_tree(dir.path(), 300);
    for format in ["human", "json", "markdown", "junit", "jsonl", "tsv"] {
        let one = check(dir.path(), BASIC_URL, &["--format", format, "-j", "1"]);
        let two = check(dir.path(), BASIC_URL, &["--format", format, "-j", "2"]);
        assert_eq!(one.code, 1);
        assert_eq!(one.stdout, two.stdout, "{format}");
    }
    let human = check(dir.path(), BASIC_URL, &[]);
    // 300 × (next, home, srcset) + 28 × gone + index's one link; broken: 43 fragments
    // (i % 7 == 0), 300 images, 28 outside the root (i % 11 == 0).
    assert_eq!(
        human.stdout.lines().last().unwrap(),
        // 344 targets: 43 pages#nope, 300 images, one /gone.html.
        "301 pages, 929 links: 929 internal, 371 broken (28 outside the site root) to 344 targets; 0 external (listed, not fetched); 0 unresolvable; 0 excluded; 0 not checked"
    );
}

#[test]
fn check_a_tree_without_broken_links_exits_0() {
    let run = check(&fixture("clean"), DOCS_URL, &[]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            0,
            format!("linkbase: check: {}", expected("clean.check.txt")).as_str()
        )
    );
    assert_eq!(run.stdout, expected("clean.check.txt"));
    let jsonl_run = check(&fixture("clean"), DOCS_URL, &["--format", "jsonl"]);
    assert_eq!(jsonl_run.code, 0);
    assert!(jsonl(&jsonl_run.stdout)
        .iter()
        .all(|r| r["verdict"] == "ok" || r["verdict"] == "external"));
}

#[test]
fn check_reports_a_binary_page_and_goes_on() {
    let dir = tmp();
    copy_tree(&fixture("basic"), dir.path());
    std::fs::write(
        dir.path().join("binary.html"),
        b"<p>\0\0\0\x01\x02 not text</p>",
    )
    .unwrap();
    let run = check(dir.path(), BASIC_URL, &["--format", "jsonl"]);
    assert_eq!(run.code, 2, "a file failed: exit 2");
    assert!(
        run.stderr.starts_with("linkbase: binary.html: ") && run.stderr.contains("binary"),
        "{}",
        run.stderr
    );
    // Every other page is still checked, exactly as without it.
    assert_eq!(run.stdout, expected("basic.check.jsonl"));
}

#[test]
fn check_needs_an_absolute_site_url() {
    let missing = linkbase(&["check", s(&fixture("basic"))], b"");
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("--site-url"), "{}", missing.stderr);
    for url in [
        "site/",
        "/site/",
        "example.com/site/",
        "mailto:x@example.com",
        // An IP literal not closed (RFC 2732 §3) is no host.
        "http://[::1/site/",
    ] {
        let run = check(&fixture("basic"), url, &[]);
        assert_eq!(run.code, 2, "{url}");
        assert_eq!(run.stdout, "", "{url}");
        assert!(
            run.stderr.starts_with("linkbase: --site-url"),
            "{url}: {}",
            run.stderr
        );
    }
}

#[test]
fn check_on_a_file_is_unusable_input() {
    let run = check(&fixture("basic").join("index.html"), BASIC_URL, &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn check_with_a_percent_encoded_site_path() {
    let plain = verdicts(&check(&fixture("basic"), BASIC_URL, &["--format", "jsonl"]).stdout);
    let run = check(
        &fixture("basic"),
        "https://example.com/my%20site/",
        &["--format", "jsonl"],
    );
    let encoded = verdicts(&run.stdout);
    // Relative links do not name the site path, so their verdicts cannot depend on it.
    for ((file, original), verdict) in &plain {
        if original.starts_with('/') || original.contains(':') {
            continue;
        }
        assert_eq!(
            encoded.get(&(file.clone(), original.clone())),
            Some(verdict),
            "{file}: {original:?}"
        );
    }
}

#[test]
fn check_treats_the_default_port_as_the_same_site() {
    let run = check(
        &fixture("basic"),
        "https://example.com:443/site/",
        &["--format", "jsonl"],
    );
    let v = verdicts(&run.stdout);
    assert_eq!(
        v[&(
            "index.html".to_owned(),
            "https://example.com/site/about.html?lang=en".to_owned()
        )],
        "ok"
    );
}

#[test]
fn check_tsv_escapes_file_names() {
    let dir = tmp();
    std::fs::write(
        dir.path().join("a\tb.html"),
        "<a href=\"a%09b.html\">me</a>",
    )
    .unwrap();
    let run = check(dir.path(), BASIC_URL, &["--format", "tsv"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for line in run.stdout.lines() {
        assert_eq!(line.split('\t').count(), 15, "{line:?}");
    }
    assert!(run.stdout.contains("a\\tb.html\tok\ta\\tb.html\t"));
}

// ----- symbolic links --------------------------------------------------------------------------

/// A temporary copy of `fixtures/sites/links` at `site/` with, beside it, `outside/secret.fifo`
/// (a FIFO: opening it for reading would block forever) and `outside/secret.txt` (mode 000), and
/// inside it: `inside.html -> page.html`, `outside.txt -> ../outside/secret.fifo`,
/// `unreadable.txt -> ../outside/secret.txt`, `linked-dir -> .`, `dangling.html -> nothing.html`
/// and `fifo.html`, a FIFO.
#[cfg(unix)]
fn links_tree() -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = tmp();
    let site = dir.path().join("site");
    let outside = dir.path().join("outside");
    copy_tree(&fixture("links"), &site);
    std::fs::create_dir(&outside).unwrap();
    mkfifo(&outside.join("secret.fifo"));
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::fs::set_permissions(
        outside.join("secret.txt"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    symlink("page.html", site.join("inside.html")).unwrap();
    symlink("../outside/secret.fifo", site.join("outside.txt")).unwrap();
    symlink("../outside/secret.txt", site.join("unreadable.txt")).unwrap();
    symlink(".", site.join("linked-dir")).unwrap();
    symlink("nothing.html", site.join("dangling.html")).unwrap();
    mkfifo(&site.join("fifo.html"));
    (dir, site)
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn check_follows_symlinks_inside_the_root_only() {
    let (_dir, site) = links_tree();
    let run = linkbase_within(
        Duration::from_secs(60),
        &[
            "check",
            s(&site),
            "--site-url",
            DOCS_URL,
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "linkbase: dangling.html: a dangling symbolic link\n\
         linkbase: linked-dir: a symbolic link to a directory; not followed\n\
         linkbase: outside.txt: a symbolic link leaving the site root; counted as present, not read\n\
         linkbase: unreadable.txt: a symbolic link leaving the site root; counted as present, not read\n\
         linkbase: fifo.html: a FIFO (named pipe), not a regular file; skipped\n\
         linkbase: check: 3 pages, 10 links: 10 internal, 5 broken (0 outside the site root) to 4 targets; 0 external (listed, not fetched); 0 unresolvable; 0 excluded; 0 not checked\n"
    );
    let v = verdicts(&run.stdout);
    let at = |file: &str, original: &str| v[&(file.to_owned(), original.to_owned())].clone();
    assert_eq!(at("index.html", "page.html#here"), "ok");
    // Followed: a file, and a page whose ids and links count.
    assert_eq!(at("index.html", "inside.html#here"), "ok");
    assert_eq!(at("inside.html", "gone.html"), "missing");
    assert_eq!(at("inside.html", "index.html"), "ok");
    // Outside the root: present, never opened (the FIFO would have hung the run).
    assert_eq!(at("index.html", "outside.txt"), "ok");
    // A directory link is not followed, so nothing below it exists.
    assert_eq!(at("index.html", "linked-dir/page.html"), "missing");
    assert_eq!(at("index.html", "dangling.html"), "missing");
    // A FIFO in the tree is not a file: reported above, never opened.
    assert_eq!(at("index.html", "fifo.html"), "missing");
    let pages: std::collections::BTreeSet<String> = jsonl(&run.stdout)
        .iter()
        .map(|r| r["file"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        pages.into_iter().collect::<Vec<_>>(),
        ["index.html", "inside.html", "page.html"]
    );
}

#[cfg(unix)]
#[test]
fn rewrite_tree_with_symlinks_finishes_and_reads_nothing_outside() {
    let (dir, site) = links_tree();
    let out = dir.path().join("out");
    let run = linkbase_within(
        Duration::from_secs(60),
        &["rewrite", s(&site), "--site-url", DOCS_URL, "-o", s(&out)],
    );
    // The FIFO is not copied, and that is said: the output is not the whole tree.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        untimed(&run.stderr).replace(s(&out), "OUT"),
        "linkbase: dangling.html: a dangling symbolic link\n\
         linkbase: linked-dir: a symbolic link to a directory; not followed\n\
         linkbase: outside.txt: a symbolic link leaving the site root; not read, made again in \
         OUTDIR as an absolute link to the same file (--copy-outside-links copies the file instead)\n\
         linkbase: unreadable.txt: a symbolic link leaving the site root; not read, made again in \
         OUTDIR as an absolute link to the same file (--copy-outside-links copies the file instead)\n\
         linkbase: fifo.html: a FIFO (named pipe), not a regular file; skipped\n\
         linkbase: rewrite: 3 pages, 10 links: 10 absolute, 0 left relative or unresolvable; \
         2 other files copied; 0 failed; 1 file not a regular file (FIFOs, sockets, devices) \
         skipped, not in the output; written to OUT; T s\n"
    );
    let tree = snapshot(&out);
    assert_eq!(
        tree.keys().cloned().collect::<Vec<_>>(),
        [
            "index.html",
            "inside.html",
            "outside.txt",
            "page.html",
            "unreadable.txt"
        ]
    );
    // The in-root link became a page of its own, rewritten against its own URL.
    assert!(matches!(&tree["inside.html"], Node::File(b)
        if String::from_utf8_lossy(b).contains(r#"href="https://example.net/docs/gone.html""#)));
    assert!(matches!(tree["outside.txt"], Node::Link(_)));
    assert!(matches!(tree["unreadable.txt"], Node::Link(_)));
}

#[cfg(unix)]
#[test]
fn rewrite_o_keeps_outside_symlinks_pointing_at_the_same_file() {
    let (dir, site) = links_tree();
    let out = dir.path().join("elsewhere/deeper/out");
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", DOCS_URL, "-o", s(&out)],
        b"",
    );
    // 1: the FIFO of the tree is skipped (and said).
    assert_eq!(run.code, 1, "{}", run.stderr);
    let original = std::fs::canonicalize(site.join("unreadable.txt")).unwrap();
    let copy = std::fs::canonicalize(out.join("unreadable.txt"));
    assert_eq!(copy.ok(), Some(original));
}

#[cfg(unix)]
#[test]
fn rewrite_in_place_through_a_symlink_uses_the_links_own_url() {
    use std::os::unix::fs::symlink;
    let dir = tmp();
    let site = dir.path().join("site");
    copy_tree(&fixture("basic"), &site);
    // In another directory than its target, so the two URLs resolve `./` differently.
    symlink("../about.html", site.join("docs/alias.html")).unwrap();
    let out = dir.path().join("out");
    let o = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", s(&out)],
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    // -j 1 makes the order deterministic: about.html comes before docs/alias.html.
    let run = linkbase(
        &[
            "rewrite",
            s(&site),
            "--site-url",
            BASIC_URL,
            "--in-place",
            "-j",
            "1",
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let alias = site.join("docs/alias.html");
    let kept_link = std::fs::read_link(&alias).ok() == Some(PathBuf::from("../about.html"));
    let same_as_o = std::fs::symlink_metadata(&alias)
        .unwrap()
        .file_type()
        .is_file()
        && std::fs::read(&alias).unwrap() == std::fs::read(out.join("docs/alias.html")).unwrap();
    assert!(
        kept_link || same_as_o,
        "docs/alias.html is neither the link nor -o's rewrite:\n{}",
        String::from_utf8_lossy(&std::fs::read(&alias).unwrap())
    );
}

// ----- rewrite ---------------------------------------------------------------------------------

#[test]
fn rewrite_o_rewrites_every_page_against_its_own_url_and_copies_the_rest() {
    let dir = tmp();
    let out = dir.path().join("out");
    let run = linkbase(
        &[
            "rewrite",
            s(&fixture("basic")),
            "--site-url",
            BASIC_URL,
            "-o",
            s(&out),
        ],
        b"",
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    // One closing line: 5 pages and 2 other files; 35 links that are not
    // same-document references (check counts 38 with those 3), all absolute; three of them
    // (`/../etc/passwd`, `../../../../etc/passwd`, `/site/../site/about.html`) resolved
    // otherwise by browsers.
    assert_eq!(
        untimed(&run.stderr),
        format!(
            "linkbase: rewrite: 5 pages, 35 links: 35 absolute, 0 left relative or unresolvable; \
             3 links that RFC 2396 and browsers resolve differently (profile-sensitive, listed \
             by `links`; --profile whatwg resolves as browsers); 2 other files copied; 0 \
             failed; written to {}; T s\n",
            out.display()
        )
    );
    let before = snapshot(&fixture("basic"));
    let after = snapshot(&out);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (rel, node) in &before {
        if is_html(rel) {
            assert_ne!(&after[rel], node, "{rel} rewritten");
        } else {
            assert_eq!(&after[rel], node, "{rel} byte-identical");
        }
    }
    for rel in ["index.html", "docs/a b.html", "docs/based.html"] {
        let got = std::fs::read_to_string(out.join(rel)).unwrap();
        assert_eq!(got, expected(&format!("basic.rewrite/{rel}")), "{rel}");
    }
    // Rewriting changes no verdict: every link resolves where it did.
    let resolved = |dir: &Path| -> Vec<(String, String, String)> {
        jsonl(&check(dir, BASIC_URL, &["--format", "jsonl"]).stdout)
            .iter()
            .map(|r| {
                (
                    r["file"].as_str().unwrap().to_owned(),
                    r["resolved"].as_str().unwrap().to_owned(),
                    r["verdict"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(resolved(&fixture("basic")), resolved(&out));
}

#[test]
fn rewrite_o_is_the_same_on_one_thread_and_on_two() {
    let dir = tmp();
    generated_tree(&dir.path().join("site"), 200);
    let site = dir.path().join("site");
    for j in ["1", "2"] {
        let out = dir.path().join(format!("out{j}"));
        let run = linkbase(
            &[
                "rewrite",
                s(&site),
                "--site-url",
                BASIC_URL,
                "-o",
                s(&out),
                "-j",
                j,
            ],
            b"",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    assert_eq!(
        snapshot(&dir.path().join("out1")),
        snapshot(&dir.path().join("out2"))
    );
}

#[cfg(unix)]
#[test]
fn rewrite_o_gives_pages_the_usual_permissions() {
    // Not tempfile's private 0600: what creating a file there gives (0666 less the umask), so a
    // web server running as another user can read the published tree.
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp();
    let out = dir.path().join("out");
    let run = linkbase(
        &[
            "rewrite",
            s(&fixture("basic")),
            "--site-url",
            BASIC_URL,
            "-o",
            s(&out),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reference = out.join("reference");
    std::fs::write(&reference, b"").unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for page in ["index.html", "docs/a b.html"] {
        assert_eq!(
            format!("{:o}", mode(&out.join(page))),
            format!("{:o}", mode(&reference)),
            "{page}"
        );
    }
}

#[test]
fn rewrite_in_place_rewrites_pages_and_leaves_the_rest() {
    let dir = tmp();
    let site = dir.path().join("site");
    copy_tree(&fixture("basic"), &site);
    let out = dir.path().join("out");
    let o = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", s(&out)],
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let before = snapshot(&site);
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
        b"",
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(
        untimed(&run.stderr),
        "linkbase: rewrite: 5 pages, 35 links: 35 absolute, 0 left relative or unresolvable; \
         3 links that RFC 2396 and browsers resolve differently (profile-sensitive, listed by \
         `links`; --profile whatwg resolves as browsers); 2 other files left as they were; 0 \
         failed; rewritten in place; T s\n"
    );
    let after = snapshot(&site);
    // The same names: no temporary file left behind, nothing added.
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    assert_eq!(after, snapshot(&out), "the same bytes as -o");
    for (rel, node) in &before {
        if !is_html(rel) {
            assert_eq!(&after[rel], node, "{rel} untouched");
        }
    }
    assert_eq!(
        std::fs::read_to_string(site.join("index.html")).unwrap(),
        expected("basic.rewrite/index.html")
    );
    // A second run changes nothing: absolute links stay byte-identical.
    let again = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
        b"",
    );
    assert_eq!(again.code, 0);
    assert_eq!(snapshot(&site), after);
}

#[test]
fn rewrite_reports_a_failing_file_and_goes_on() {
    let dir = tmp();
    let site = dir.path().join("site");
    copy_tree(&fixture("basic"), &site);
    std::fs::write(
        site.join("docs/binary.html"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "-o", s(&out)],
        b"",
    );
    assert_eq!(run.code, 1, "a file could not be rewritten: exit 1");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(
        lines[0].starts_with("linkbase: docs/binary.html: ")
            && lines[0].ends_with("; copied unchanged"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("linkbase: rewrite: 5 pages, ")
            && lines[1].contains("; 1 of 8 files failed (copied unchanged, see above); "),
        "{}",
        lines[1]
    );
    // Every other file was still written, and the failing one copied as it was: no holes.
    let after = snapshot(&out);
    assert_eq!(after.len(), 8);
    assert_eq!(
        after["docs/binary.html"],
        Node::File(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec())
    );
    assert_eq!(
        std::fs::read_to_string(out.join("index.html")).unwrap(),
        expected("basic.rewrite/index.html")
    );

    // In place: the failing file is left as it was, the others rewritten, no temporary files.
    let run = linkbase(
        &["rewrite", s(&site), "--site-url", BASIC_URL, "--in-place"],
        b"",
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("docs/binary.html") && run.stderr.contains("left unchanged"),
        "{}",
        run.stderr
    );
    let in_place = snapshot(&site);
    assert_eq!(in_place.len(), 8);
    assert_eq!(
        in_place["docs/binary.html"],
        Node::File(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec())
    );
    assert_eq!(
        std::fs::read_to_string(site.join("index.html")).unwrap(),
        expected("basic.rewrite/index.html")
    );
}

#[test]
fn rewrite_a_directory_needs_an_absolute_site_url_and_a_destination() {
    let dir = tmp();
    let out = dir.path().join("out");
    let basic = fixture("basic");
    let missing = linkbase(&["rewrite", s(&basic), "-o", s(&out)], b"");
    assert_eq!(missing.code, 2);
    assert_eq!(
        missing.stderr,
        format!(
            "linkbase: {}: a directory needs --site-url URL\n",
            s(&basic)
        )
    );
    for url in ["site/", "/site/", "//example.com/site/"] {
        let run = linkbase(
            &["rewrite", s(&basic), "--site-url", url, "-o", s(&out)],
            b"",
        );
        assert_eq!(run.code, 2, "{url}");
        assert!(
            run.stderr.starts_with("linkbase: --site-url"),
            "{url}: {}",
            run.stderr
        );
    }
    let nowhere = linkbase(&["rewrite", s(&basic), "--site-url", BASIC_URL], b"");
    assert_eq!(nowhere.code, 2);
    assert!(nowhere.stderr.contains("-o OUTDIR or --in-place"));
    assert!(!out.exists(), "nothing written");
}

/// An `<a name>` that the tree builder puts outside SVG/MathML (a breakout tag, an
/// `</a>` closing through foreign content) is a fragment target, and `check` must find links to
/// it good; the tokenizer alone reads these `<a>` tags as foreign, and said "missing-fragment".
#[test]
fn fragments_after_foreign_content_breakouts_are_found() {
    for page in [
        "<svg><svg><i><a name=n>x</a>",
        "<svg><i><svg/><a name=n>x</a>",
        "<a><math></a><a name=n>x</a>",
    ] {
        let dir = tmp();
        std::fs::write(dir.path().join("t.html"), page).unwrap();
        std::fs::write(dir.path().join("index.html"), "<a href=\"t.html#n\">t</a>").unwrap();
        let run = check(dir.path(), "http://h/", &["--format", "jsonl"]);
        assert_eq!(run.code, 0, "{page}: {}", run.stdout);
        assert_eq!(
            verdicts(&run.stdout),
            BTreeMap::from([(("index.html".into(), "t.html#n".into()), "ok".into())]),
            "{page}"
        );
    }
}

/// `--broken-only` keeps the record formats to the broken links (a 178k-link
/// site wrote 78 MB of JSONL, nearly all `ok`); the summary still counts every link.
#[test]
fn check_broken_only_lists_only_broken_records() {
    for format in ["jsonl", "tsv"] {
        let all = check(&fixture("basic"), BASIC_URL, &["--format", format]);
        let broken = check(
            &fixture("basic"),
            BASIC_URL,
            &["--format", format, "--broken-only"],
        );
        assert_eq!(broken.code, 1, "{}", broken.stderr);
        assert_eq!(broken.stderr, all.stderr, "the summary counts every link");
        let header = usize::from(format == "tsv");
        let verdict = |line: &str| -> String {
            if format == "jsonl" {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                v["verdict"].as_str().unwrap().to_owned()
            } else {
                line.split('\t').nth(1).unwrap().to_owned()
            }
        };
        let kept: Vec<&str> = broken.stdout.lines().skip(header).collect();
        let expected: Vec<&str> = all
            .stdout
            .lines()
            .skip(header)
            .filter(|l| {
                matches!(
                    verdict(l).as_str(),
                    "missing" | "missing-fragment" | "outside-root"
                )
            })
            .collect();
        assert_eq!(
            kept.len(),
            12,
            "{format}: the 12 broken links of the summary"
        );
        assert_eq!(kept, expected, "{format}");
    }
}

/// `--exclude-path GLOB` leaves the links of matching pages unchecked (they
/// stay link targets, ids included), says how many in the summary, and a bad glob is bad usage.
#[test]
fn check_exclude_path_skips_the_links_of_matching_pages() {
    let run = check(
        &fixture("basic"),
        BASIC_URL,
        &["--format", "jsonl", "--exclude-path", "docs/**"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let files: std::collections::BTreeSet<String> = run
        .stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["file"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["about.html", "index.html"]
    );
    assert!(
        run.stderr.starts_with(
            "linkbase: check: 2 pages and 1 stylesheet (3 not checked: --exclude-path), 25 links:"
        ),
        "{}",
        run.stderr
    );
    // `*` stays within a directory: only the top-level pages go.
    let top = check(&fixture("basic"), BASIC_URL, &["--exclude-path", "*.html"]);
    assert!(
        top.stderr.starts_with(
            "linkbase: check: 3 pages and 1 stylesheet (2 not checked: --exclude-path),"
        ),
        "{}",
        top.stderr
    );
    let bad = check(&fixture("basic"), BASIC_URL, &["--exclude-path", "["]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("--exclude-path \"[\""),
        "{}",
        bad.stderr
    );
}
