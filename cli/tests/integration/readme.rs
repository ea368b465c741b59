//! The README's and docs' commands: every command README.md and docs/*.md show runs
//! here and what it prints is compared with what they show, so a newcomer who copies them gets
//! what they read.
//!
//! Rules:
//! - Each command runs through `sh -c` from a temporary directory holding the repository's
//!   `fixtures`, `examples`, `scripts` and `benches` (symbolic links), so relative inputs are the repository's and
//!   relative outputs (`-o mirror`, `> page.html`) land in the temporary directory; `linkbase` is
//!   the binary under test, first on `PATH`.
//! - A ```` ```console ```` block is a terminal session: each `$ ` line is a command, the lines up
//!   to the next `$ ` line what it prints. The command's stdout and stderr are both a
//!   pseudo-terminal, as for the reader (so `check` prints its summary once, and stderr lines come
//!   where a terminal shows them). `…` matches any text, within a line or across lines; trailing
//!   whitespace and trailing blank lines are ignored. The exit code is not compared (a README
//!   that means it shows it, `; echo "exit $?"`).
//! - `$ cat FILE` with FILE not in the repository is the README giving an input: FILE is
//!   written with the lines shown.
//! - `cargo run --release -- ARGS`, in either kind of block, runs as `linkbase ARGS`.
//! - A ```` ```sh ```` block shows no output: each `linkbase` line must exit 0, or the code a
//!   comment line above it names (`exit 1`). Other commands there (`cargo install`, `pip
//!   install`, …) are skipped.
//! - Every input is bundled (`examples/`, `fixtures/`). What cannot run inside the test suite
//!   (installing, the suite itself, the Python package) is skipped by a token it contains
//!   (`SKIPS`) and named on stderr; exactly those commands are skipped, and every other one runs.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::sites::tmp;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Commands not run, by a token they contain, and why: python/test.sh builds and tests the
/// Python package, `.ci/run` the install from packaged sources.
const SKIPS: &[(&str, &str)] = &[
    ("cargo install", "installs the binary under test"),
    ("cargo test", "the test suite itself"),
    (
        "pip install",
        "builds the Python package (python/test.sh does)",
    ),
    (
        "python -m linkbase.spark",
        "needs the Python package and Spark (python/test.sh runs the job)",
    ),
];

/// How many commands are skipped: each SKIPS token, once (the README and docs/python.md).
const SKIPPED: usize = 5;

/// One command of the README and what it should give.
struct Step {
    /// The README's line, for messages.
    shown: String,
    /// What runs (`linkbase …`).
    command: String,
    /// For a console block, the lines shown after the command.
    output: Option<String>,
    /// For a sh block, the exit code to expect.
    exit: i32,
}

/// The fenced blocks of `text` in language `lang`, as their lines.
fn blocks<'a>(text: &'a str, lang: &str) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    let mut open_lang = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("```") {
            match current.take() {
                Some(lines) => {
                    if open_lang == lang {
                        out.push(lines);
                    }
                }
                None => {
                    open_lang = rest.trim().to_string();
                    current = Some(Vec::new());
                }
            }
        } else if let Some(lines) = current.as_mut() {
            lines.push(line);
        }
    }
    out
}

/// What runs for a command the text shows: `cargo run --release -- ARGS` (the binary built from
/// the checkout) as `linkbase ARGS`, the binary under test.
fn as_run(shown: &str) -> String {
    match shown.strip_prefix("cargo run --release -- ") {
        Some(args) => format!("linkbase {args}"),
        None => shown.to_owned(),
    }
}

fn console_steps(block: &[&str]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for line in block {
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                shown: line.to_string(),
                command: as_run(command),
                output: Some(String::new()),
                exit: 0,
            });
        } else {
            let step = steps.last_mut().expect("a console block starts with `$ `");
            let output = step.output.as_mut().unwrap();
            output.push_str(line);
            output.push('\n');
        }
    }
    steps
}

fn sh_steps(block: &[&str]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut comment = String::new();
    let mut pending = String::new();
    for line in block {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if pending.is_empty() && line.starts_with('#') {
            comment = line.to_string();
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head.trim_end());
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        let shown = std::mem::take(&mut pending);
        let command = as_run(&shown);
        let exit = comment
            .split("exit ")
            .nth(1)
            .and_then(|rest| {
                rest.split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or(0);
        comment.clear();
        steps.push(Step {
            shown,
            command,
            output: None,
            exit,
        });
    }
    steps
}

/// Runs `command` with `sh -c` in `dir`, stdout and stderr on one pseudo-terminal: the exit code
/// and what a terminal would show (line ends as `\n`).
fn run(dir: &Path, bin: &Path, command: &str) -> (i32, String) {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let slave = File::options()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
        .open(name.to_str().unwrap())
        .unwrap();
    let path = match std::env::var_os("PATH") {
        Some(rest) => std::env::join_paths(
            std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&rest)),
        )
        .unwrap(),
        None => bin.as_os_str().to_owned(),
    };
    let mut child = {
        let mut sh = Command::new("sh");
        sh.arg("-c")
            .arg(command)
            .current_dir(dir)
            .env("PATH", path)
            .env_remove("SOURCE_DATE_EPOCH")
            .stdin(Stdio::null())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        sh.spawn().expect("spawn sh")
        // `sh` and its copies of the terminal are dropped here: the master's reads end once
        // the child and its children have closed theirs.
    };
    let mut master = File::from(master);
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            // Linux: every slave descriptor is closed.
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::IO.raw_os_error()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("reading the terminal of {command:?}: {e}"),
        }
    }
    let status = child.wait().unwrap();
    let text = String::from_utf8(bytes)
        .expect("terminal output is UTF-8")
        .replace("\r\n", "\n");
    (status.code().unwrap_or(-1), text)
}

/// Trailing whitespace of each line and trailing blank lines removed.
fn normal(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end_matches('\n').to_string()
}

/// Whether `text` is `pattern` with each `…` standing for any text.
fn matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('…').collect();
    let (first, rest) = parts.split_first().unwrap();
    let Some(mut text) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return text.is_empty();
    };
    for part in middle {
        match text.find(part) {
            Some(at) => text = &text[at + part.len()..],
            None => return false,
        }
    }
    text.ends_with(last)
}

/// A temporary directory with `fixtures`, `examples`, `scripts` and `benches` of the repository,
/// and `bin/linkbase`.
fn workdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tmp();
    let repo = Path::new(REPO).canonicalize().unwrap();
    for name in ["fixtures", "examples", "scripts", "benches"] {
        std::os::unix::fs::symlink(repo.join(name), dir.path().join(name)).unwrap();
    }
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_linkbase"), bin.join("linkbase")).unwrap();
    (dir, bin)
}

/// README.md, then docs/*.md by name: the texts whose commands run.
fn texts() -> Vec<(String, String)> {
    let repo = Path::new(REPO);
    let mut names: Vec<PathBuf> = std::fs::read_dir(repo.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    names.sort();
    std::iter::once(repo.join("README.md"))
        .chain(names)
        .map(|p| {
            let name = p.strip_prefix(repo).unwrap().display().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn readme_commands_print_what_the_readme_shows() {
    let mut ran = Vec::new();
    let mut skipped = Vec::new();
    let mut failures = Vec::new();

    // Console blocks: one session, so a file a text shows with `cat` serves the later blocks.
    let (session, bin) = workdir();
    let texts = texts();
    // Each step named by its text, for messages.
    let steps = |lang: &str, of: fn(&[&str]) -> Vec<Step>| -> Vec<Step> {
        let mut out = Vec::new();
        for (name, text) in &texts {
            for block in blocks(text, lang) {
                for mut step in of(&block) {
                    step.shown = format!("{name}: {}", step.shown);
                    out.push(step);
                }
            }
        }
        out
    };
    let console = steps("console", console_steps);
    let sh = steps("sh", sh_steps);
    let (scratch, sh_bin) = workdir();
    for (step, dir, bin) in console
        .iter()
        .map(|s| (s, session.path(), &bin))
        .chain(sh.iter().map(|s| (s, scratch.path(), &sh_bin)))
    {
        if let Some((token, why)) = SKIPS.iter().find(|(t, _)| step.command.contains(t)) {
            skipped.push(format!("{}  [{token}: {why}]", step.shown));
            continue;
        }
        let words: Vec<&str> = step.command.split_whitespace().collect();
        if step.output.is_none() && words.first() != Some(&"linkbase") {
            skipped.push(format!("{}  [not a linkbase command]", step.shown));
            continue;
        }
        if let (["cat", file], Some(output)) = (words.as_slice(), &step.output) {
            if !dir.join(file).exists() {
                std::fs::write(dir.join(file), output).unwrap();
                continue;
            }
        }
        let (code, printed) = run(dir, bin, &step.command);
        ran.push(step.shown.clone());
        match &step.output {
            Some(expected) => {
                if !matches(&normal(expected), &normal(&printed)) {
                    failures.push(format!(
                        "{}\n--- the text shows:\n{}\n--- it prints (exit {code}):\n{}",
                        step.shown,
                        normal(expected),
                        normal(&printed)
                    ));
                }
            }
            None => {
                if code != step.exit {
                    failures.push(format!(
                        "{}\n--- exits {code}, the text says {}:\n{}",
                        step.shown, step.exit, printed
                    ));
                }
            }
        }
    }
    eprintln!(
        "README and docs: {} commands run, {} skipped:",
        ran.len(),
        skipped.len()
    );
    for line in &ran {
        eprintln!("  ran: {line}");
    }
    for line in &skipped {
        eprintln!("  skipped: {line}");
    }
    assert!(
        failures.is_empty(),
        "{} commands of the README and docs do not print what they show:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert_eq!(
        skipped.len(),
        SKIPPED,
        "exactly the commands SKIPS names are skipped: {skipped:#?}"
    );
}

#[test]
fn ellipsis_matches_any_text() {
    assert!(matches("a…c", "abbbc"));
    assert!(matches("a\n…\nc", "a\nb\nb\nc"));
    assert!(matches("a…", "a"));
    assert!(!matches("a…c", "ab"));
    assert!(!matches("abc", "abcd"));
    assert!(matches("x…y…z", "xyz"));
    assert!(!matches("x…yz…z", "xyz"));
}
