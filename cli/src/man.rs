//! `linkbase man`: linkbase(1) and a page per command, from the same definitions as `--help`
//! (clap_mangen renders the name, synopsis, description and options; the sections clap has no
//! place for, EXAMPLES, EXIT STATUS, FILES and SEE ALSO, are written here).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::args::{self, Cli};

/// The command tree as the pages describe it: built, so that each command's display name is
/// `linkbase-COMMAND`, without clap's `help` subcommand.
fn tree() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// The commands that get a page, in the order linkbase(1) lists them.
fn commands(top: &clap::Command) -> Vec<clap::Command> {
    top.get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect()
}

/// Roff-escaped text: backslashes, hyphens (so `--url` is not hyphenated or turned into a
/// dash), and a leading `.` or `'` that would read as a request.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// A section of preformatted lines (commands, as typed).
fn literal(out: &mut Vec<u8>, heading: &str, lines: &[&str]) -> io::Result<()> {
    writeln!(out, ".SH {heading}")?;
    writeln!(out, ".nf")?;
    for line in lines {
        writeln!(out, "{}", roff(line))?;
    }
    writeln!(out, ".fi")
}

/// A section of tagged paragraphs: (tag, text).
fn tagged(out: &mut Vec<u8>, heading: &str, items: &[(&str, &str)]) -> io::Result<()> {
    writeln!(out, ".SH {heading}")?;
    for (tag, text) in items {
        writeln!(out, ".TP\n\\fB{}\\fR\n{}", roff(tag), roff(text))?;
    }
    Ok(())
}

/// The example commands of a command's `after_help`, its heading line left out.
fn examples(cmd: &clap::Command) -> Vec<String> {
    cmd.get_after_help()
        .map(|help| {
            help.to_string()
                .lines()
                .skip(1)
                .map(|l| l.trim_start().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "The command ran and found problems it was asked to find: broken links (check), links \
         left relative with --fail-on-unresolved, references that could not be resolved \
         (resolve), files of a tree or records of an archive that could not be processed.",
    ),
    ("2", "Bad usage or unusable input: nothing was written."),
];

/// `check`'s own: what its 0, 1 and 2 mean (its description says it too, for `--help`).
const EXIT_STATUS_CHECK: &[(&str, &str)] = &[
    (
        "0",
        "No link is broken (and, with --fail-on-unchecked, every link was checked).",
    ),
    (
        "1",
        "Links are broken: a missing file or fragment, a link leaving the site root or left \
         absolute to a file of the copy; with --online, an external link answering a status not \
         accepted, unreachable, or a malformed address; with --fail-on-unchecked, a link not \
         checked.",
    ),
    (
        "2",
        "Files could not be read or parsed, there was nothing to check (no page or stylesheet \
         in DIR, every one left out by --exclude-path, a --site-url with no host), or bad usage.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "DIR/linkbase.toml",
        "check: settings (each key a flag, the online ones in an [online] table), read when \
         present, or the file --config names. Flags on the command line win. The tree's own file \
         is read only as a regular file inside DIR (no symbolic link, no FIFO or device), at most \
         1 MiB, and may not set allow_private, insecure or cacert; paths a settings file names \
         stay inside its directory.",
    ),
    (
        "DIR/.linkbaseignore",
        "check: one regular expression a line (# comments) for links to leave unchecked, as \
         --exclude; read as DIR/linkbase.toml is (a regular file of DIR, at most 1 MiB).",
    ),
    (
        "DIR/.linkbase-cache.json",
        "check --online --cache: the verdicts of external URLs (status, redirects, fragment) with \
         the time each was checked; plain sorted JSON, safe to commit or to keep in a CI cache. \
         Written through a temporary file and a rename, never through a symbolic link.",
    ),
    (
        "OUTDIR or DIR (rewrite DIR)",
        "Locked (flock) while a tree is written; temporary files an interrupted run left in it \
         are removed, and each is said.",
    ),
    (
        "*.html, *.htm, *.xhtml, *.shtml; *.eml, *.mht, *.mhtml; *.warc, *.warc.gz",
        "Inputs: HTML documents, MIME messages (RFC 822 headers then a body), WARC archives; the \
         kind is found from the content.",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[(
    "ALL_PROXY, HTTPS_PROXY, HTTP_PROXY (or lower case), NO_PROXY",
    "check --online: the proxy of every request (the first of these set serves both schemes; \
     http://, socks4:// and socks5:// proxies), and the hosts asked directly.",
)];

/// The page of `cmd` (linkbase itself, or one of its commands).
fn page(cmd: &clap::Command, top: bool, all: &[clap::Command]) -> io::Result<Vec<u8>> {
    // The NAME line is `linkbase \- what it does`: the summary `--help` starts with its name
    // (`linkbase: find …`), which would say it twice.
    let mut cmd = cmd.clone();
    let about = cmd.get_about().map(ToString::to_string);
    if let Some(rest) = about
        .as_deref()
        .and_then(|a| a.strip_prefix(&format!("{}: ", cmd.get_name())))
    {
        cmd = cmd.about(rest.to_owned());
    }
    let cmd = &cmd;
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if top {
        man.render_subcommands_section(&mut out)?;
    }
    let examples = examples(cmd);
    if !examples.is_empty() {
        let lines: Vec<&str> = examples.iter().map(String::as_str).collect();
        literal(&mut out, "EXAMPLES", &lines)?;
    }
    let exit_status = match cmd.get_name() {
        "check" => EXIT_STATUS_CHECK,
        _ => EXIT_STATUS,
    };
    tagged(&mut out, "EXIT STATUS", exit_status)?;
    if top {
        tagged(&mut out, "FILES", FILES)?;
        tagged(&mut out, "ENVIRONMENT", ENVIRONMENT)?;
    } else if cmd.get_name() == "check" {
        // The files of the checked tree.
        let tree: Vec<(&str, &str)> = FILES
            .iter()
            .copied()
            .filter(|(f, _)| f.starts_with("DIR/"))
            .collect();
        tagged(&mut out, "FILES", &tree)?;
        tagged(&mut out, "ENVIRONMENT", ENVIRONMENT)?;
    }
    writeln!(out, ".SH SEE ALSO")?;
    let mut see: Vec<String> = all
        .iter()
        .filter(|c| top || c.get_name() != cmd.get_name())
        .map(|c| format!("\\fBlinkbase\\-{}\\fR(1)", c.get_name()))
        .collect();
    if !top {
        see.insert(0, "\\fBlinkbase\\fR(1)".to_owned());
    }
    writeln!(out, "{}", see.join(", "))?;
    if top {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}

/// `linkbase man [COMMAND] [--dir DIR]`.
pub fn run(args: &args::ManArgs) -> Result<(), String> {
    let top = tree();
    let all = commands(&top);
    if let Some(dir) = &args.dir {
        for path in write_all(dir, &top, &all).map_err(|e| format!("{}: {e}", dir.display()))? {
            println!("{}", path.display());
        }
        return Ok(());
    }
    let bytes = match &args.command {
        None => page(&top, true, &all),
        Some(name) => {
            let cmd = all.iter().find(|c| c.get_name() == name).ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(clap::Command::get_name).collect();
                format!("man: no command {name:?} (one of {})", names.join(", "))
            })?;
            page(cmd, false, &all)
        }
    }
    .map_err(|e| e.to_string())?;
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(&bytes)
        .and_then(|()| stdout.flush())
        .map_err(|e| e.to_string())
}

/// linkbase.1 and linkbase-COMMAND.1 for every command, in `dir`.
fn write_all(dir: &Path, top: &clap::Command, all: &[clap::Command]) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let pages = std::iter::once((top, true)).chain(all.iter().map(|c| (c, false)));
    for (cmd, is_top) in pages {
        let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, page(cmd, is_top, all)?)?;
        written.push(path);
    }
    Ok(written)
}
