//! `linkbase`: the command-line client of the linkbase library. Exit codes: 0 success, 1 the
//! command found problems it was asked to find, 2 bad usage or unusable input.

mod args;
mod checkout;
mod ciout;
mod config;
mod fsout;
mod load;
mod man;
mod mbox;
mod online;
mod page;
mod say;
mod text;
mod tree;
mod walk;

use load::{default_encoding, load_input, options, Loaded};
use tree::{local_url, run_rewrite_tree, say_base_removed_by_relative, single_relative};
mod warc;

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use std::path::Path;

use crate::text::{escape_controls, write_tsv};
use linkbase::message::{self};
use linkbase::pipeline::{self, Options};
use linkbase::report::write_jsonl;
use linkbase::Report;
use linkbase::{Resolver, RewriteOptions};

use args::{
    BaseArgs, BaseFormat, CheckArgs, CheckFormat, Cli, Command, LinksArgs, LinksFormat,
    ResolveArgs, RewriteArgs,
};

/// The documented exit codes (CONTRACT.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    Ok = 0,
    Problems = 1,
    Unusable = 2,
}

/// A fatal error: printed as `linkbase: <message>`, exit 2.
#[derive(Debug)]
struct Fatal(String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Self {
        Fatal(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::from_env();
    let result = match cli.command {
        Command::Resolve(args) => run_resolve(&args),
        Command::Rewrite(args) => run_rewrite(&args),
        Command::Links(args) => run_links(&args),
        Command::Base(args) => run_base(&args),
        Command::Check(args) => run_check(&args),
        Command::Completions { shell } => run_completions(shell),
        Command::Man(args) => run_man(&args),
    };
    match result {
        Ok(exit) => ExitCode::from(exit as u8),
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Fatal(Fatal(message))) => {
            // Messages quote names and values from the input.
            eprintln!("linkbase: {}", crate::text::escape_controls(&message));
            ExitCode::from(Exit::Unusable as u8)
        }
    }
}

enum Failure {
    /// The reader of our output went away (`| head`): not an error.
    BrokenPipe,
    Fatal(Fatal),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Fatal(Fatal(e.to_string()))
        }
    }
}

impl From<linkbase::Error> for Failure {
    fn from(e: linkbase::Error) -> Self {
        match e {
            linkbase::Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe => {
                Failure::BrokenPipe
            }
            e => Failure::Fatal(Fatal::from(e)),
        }
    }
}

impl From<Fatal> for Failure {
    fn from(f: Fatal) -> Self {
        Failure::Fatal(f)
    }
}

/// `linkbase completions SHELL`: the script clap_complete makes from the argument definitions.
fn run_completions(shell: clap_complete::Shell) -> Result<Exit, Failure> {
    use clap::CommandFactory;
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "linkbase", &mut out);
    let mut stdout = io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(Exit::Ok)
}

/// `linkbase man`: the manual pages, from the same definitions as `--help`.
fn run_man(args: &args::ManArgs) -> Result<Exit, Failure> {
    man::run(args).map_err(Fatal)?;
    Ok(Exit::Ok)
}

/// One line of `resolve --json` (CONTRACT.md).
#[derive(serde::Serialize)]
struct ResolveRecord<'a> {
    #[serde(rename = "ref")]
    reference: &'a str,
    resolved: Option<&'a str>,
    same_document: bool,
    error: Option<String>,
}

fn run_resolve(args: &ResolveArgs) -> Result<Exit, Failure> {
    let resolver = Resolver::new(&args.base, args.resolution.options())
        .map_err(|e| Fatal(format!("--base: {e}")))?;
    with_output(args.output.as_deref(), |out| {
        resolve_to(args, &resolver, out)
    })
}

fn resolve_to(
    args: &ResolveArgs,
    resolver: &Resolver,
    out: &mut dyn Write,
) -> Result<Exit, Failure> {
    let json = args.json || args.format == args::ResolveFormat::Jsonl;
    let mut out = BufWriter::new(out);
    let mut failed = 0usize;
    let mut buffer = String::new();
    let mut one = |reference: &str, out: &mut BufWriter<&mut dyn Write>| -> io::Result<()> {
        let result = resolver.resolve_into(reference, &mut buffer);
        if let Err(e) = &result {
            failed += 1;
            if !json {
                eprintln!("linkbase: {}", crate::text::escape_controls(&e.to_string()));
            }
        }
        if json {
            let (resolved, same_document, error) = match &result {
                Ok(same) => (Some(buffer.as_str()), *same, None),
                Err(e) => (None, false, Some(e.to_string())),
            };
            let record = ResolveRecord {
                reference,
                resolved,
                same_document,
                error,
            };
            write_jsonl(out, std::slice::from_ref(&record))
        } else {
            // An unresolvable reference still gets its line, empty, so lines stay aligned.
            writeln!(out, "{}", escape_controls(&buffer))
        }
    };
    if args.refs.is_empty() {
        // Read and check all of stdin before writing anything: exit 2 writes nothing.
        let mut input = Vec::new();
        io::stdin().lock().read_to_end(&mut input)?;
        let mut lines = Vec::new();
        for (n, line) in input.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = std::str::from_utf8(line)
                .map_err(|_| Fatal(format!("stdin: line {} is not UTF-8", n + 1)))?;
            lines.push(line);
        }
        // A final newline ends the last line; it does not start an empty one.
        if input.ends_with(b"\n") || input.is_empty() {
            lines.pop();
        }
        for line in lines {
            one(line, &mut out)?;
        }
    } else {
        for reference in &args.refs {
            one(reference, &mut out)?;
        }
    }
    out.flush()?;
    Ok(if failed > 0 { Exit::Problems } else { Exit::Ok })
}

fn run_rewrite(args: &RewriteArgs) -> Result<Exit, Failure> {
    if Path::new(&args.input.input).is_dir() {
        return run_rewrite_tree(args);
    }
    if args.in_place && args.input.input == "-" {
        return Err(Fatal("--in-place needs an INPUT file, not stdin".into()).into());
    }
    // What the input was when read: an in-place write keeps its owner, group and mode, and is
    // refused if the file changed meanwhile.
    let input_path = Path::new(&args.input.input);
    let snapshot = match args.input.input.as_str() {
        "-" => None,
        _ => std::fs::metadata(input_path)
            .ok()
            .map(|m| fsout::Snapshot::of(&m)),
    };
    if let (Some(output), false) = (&args.output, args.in_place) {
        refuse_output_is_input(input_path, output, snapshot.as_ref())?;
    }
    let mut loaded = load_input(&args.input)?;
    let mut options = options(&args.input, args.drop_base, args.output_charset.as_deref())?;
    if args.relative && loaded.warc.is_none() {
        single_relative(args, &mut loaded, &mut options)?;
    }
    if loaded.mbox {
        if args.extract.is_some() {
            return Err(Fatal("--extract DIR needs a WARC file as INPUT".into()).into());
        }
        let (bytes, exit) = mbox::rewrite(&loaded, args, &options);
        write_rewritten(args, snapshot.as_ref(), &bytes)?;
        return Ok(exit);
    }
    if let Some(source) = &loaded.warc {
        if loaded.arc && args.extract.is_none() {
            return warc::rewrite_arc(&source.path, &loaded.name, args, &options);
        }
        return warc::rewrite(&source.path, &loaded.name, args, &options);
    }
    if let Some(dir) = &args.extract {
        if loaded.is_message() {
            return page::extract(&loaded.message_input(), dir, &options);
        }
        return Err(Fatal(
            "--extract DIR needs a WARC or ARC file, or a MIME message (.eml, .mht), as INPUT"
                .into(),
        )
        .into());
    }
    if let Some(large) = &loaded.large {
        let input = loaded.path_input(large);
        return rewrite_streamed(args, &loaded.name, snapshot.as_ref(), &mut |out| {
            // A file of ours is written while the base is checked, and rewound if it was
            // guessed wrong; a pipe is written once, after a first walk settles the base.
            match out.rewindable() {
                Ok(out) => pipeline::rewrite_path_rewinding(&input, &options, out)
                    .map(|w| (w.base, w.links)),
                Err(out) => {
                    let mut tally = linkbase::LinkTally::default();
                    pipeline::rewrite_path(&input, &options, out, &mut |l| tally.add(&l))
                        .map(|(base, _)| (base, tally))
                }
            }
        });
    }
    if !loaded.is_message() {
        let input = loaded.html_input();
        return rewrite_streamed(args, &loaded.name, snapshot.as_ref(), &mut |out| {
            pipeline::rewrite_to(&input, &options, out).map(|w| (w.base, w.links))
        });
    }
    // A MIME message: each HTML part is a document of its own, its links left relative said
    // per part.
    let rewritten =
        message::rewrite_message(&loaded.message_input(), &options).map_err(Fatal::from)?;
    let exit = say_message(args, &loaded.name, &rewritten.reports);
    write_rewritten(args, snapshot.as_ref(), &rewritten.bytes)?;
    Ok(exit)
}

/// What the rewrite of a message (`name`: the input, or an mbox's message) says on stderr: the
/// links each part left relative, the parts skipped, a base `--relative` removed; and the exit
/// code that calls for.
fn say_message(args: &RewriteArgs, name: &str, reports: &[Report]) -> Exit {
    let mut unresolved = None;
    for report in reports {
        if let Some(summary) = report.unresolved_summary() {
            eprintln!(
                "linkbase: {} part {}: {summary}",
                crate::text::escape_controls(name),
                report.base.origin.part.as_deref().unwrap_or("?")
            );
            unresolved = Some(summary);
        }
    }
    let skipped = say_skipped_parts(name, reports);
    let bases: Vec<_> = reports.iter().map(|r| r.base.clone()).collect();
    say_base_removed_by_relative(args, &escape_controls(name), &bases);
    match unresolved {
        _ if skipped > 0 => Exit::Problems,
        Some(_) if args.fail_on_unresolved => Exit::Problems,
        _ => Exit::Ok,
    }
}

/// A rewritten message's bytes to stdout, to `-o FILE`, or over the input (`--in-place`, refused
/// if the input changed since `snapshot`).
fn write_rewritten(
    args: &RewriteArgs,
    snapshot: Option<&fsout::Snapshot>,
    bytes: &[u8],
) -> Result<(), Failure> {
    let input_path = Path::new(&args.input.input);
    let (path, target) = match (&args.output, args.in_place, snapshot) {
        (_, true, Some(before)) => (input_path, fsout::Target::InPlace(before)),
        (_, true, None) => {
            return Err(Fatal(format!("{}: cannot read", input_path.display())).into())
        }
        (Some(path), false, _) => (path.as_path(), fsout::Target::Output),
        (None, false, _) => {
            let mut stdout = io::stdout().lock();
            stdout.write_all(bytes)?;
            stdout.flush()?;
            return Ok(());
        }
    };
    fsout::write(path, fsout::Contents::Bytes(bytes), target)
        .map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
    Ok(())
}

/// `-o FILE` naming the input itself (or a link to it) would replace the input: that is what
/// `--in-place` is for, so it must be said.
fn refuse_output_is_input(
    input: &Path,
    output: &Path,
    input_snapshot: Option<&fsout::Snapshot>,
) -> Result<(), Fatal> {
    let same_path = matches!(
        (fsout::resolve_path(input), fsout::resolve_path(output)),
        (Ok(a), Ok(b)) if a == b
    );
    let same_file = match (input_snapshot, std::fs::metadata(output)) {
        (Some(a), Ok(b)) => a.same_file(&fsout::Snapshot::of(&b)),
        _ => false,
    };
    if same_path || same_file {
        return Err(Fatal(format!(
            "{}: the output is the input file; use --in-place to rewrite a file in place",
            output.display()
        )));
    }
    Ok(())
}

/// The rewrite of one HTML document, produced by `produce` into a writer: to stdout, or to a
/// temporary file renamed on success (`-o`, `--in-place`). Its links are only counted, so memory
/// holds the input at most (a document past `--stream-threshold`: not even that).
type Produce<'a> = dyn FnMut(
        &mut dyn fsout::MaybeRewind,
    ) -> Result<(linkbase::BaseRecord, linkbase::LinkTally), linkbase::Error>
    + 'a;

fn rewrite_streamed(
    args: &RewriteArgs,
    name: &str,
    snapshot: Option<&fsout::Snapshot>,
    produce: &mut Produce<'_>,
) -> Result<Exit, Failure> {
    let input_path = Path::new(&args.input.input);
    let target = match (&args.output, args.in_place, snapshot) {
        (_, true, Some(before)) => Some((input_path, fsout::Target::InPlace(before))),
        (_, true, None) => {
            return Err(Fatal(format!("{}: cannot read", input_path.display())).into())
        }
        (Some(path), false, _) => Some((path.as_path(), fsout::Target::Output)),
        (None, false, _) => None,
    };
    let (base, tally) = match target {
        None => {
            let mut stdout = BufWriter::with_capacity(fsout::WRITE_BUFFER, io::stdout().lock());
            let written = produce(&mut stdout)?;
            stdout.flush()?;
            written
        }
        Some((path, target)) => {
            let mut outcome = None;
            let mut write = |w: &mut fsout::Output<'_>| {
                let result = produce(w);
                let ok = result.is_ok();
                outcome = Some(result);
                if ok {
                    Ok(())
                } else {
                    Err(io::Error::other("not written"))
                }
            };
            let written = fsout::write(path, fsout::Contents::Written(&mut write), target);
            match outcome {
                Some(Err(e)) => return Err(Fatal::from(e).into()),
                _ => written.map_err(|e| Fatal(format!("{}: {e}", path.display())))?,
            }
            match outcome {
                Some(Ok(written)) => written,
                _ => return Err(Fatal(format!("{}: not written", path.display())).into()),
            }
        }
    };
    for d in &base.diagnostics {
        if matches!(
            d.code,
            linkbase::DiagnosticCode::BaseIgnored
                | linkbase::DiagnosticCode::HeaderIgnored
                | linkbase::DiagnosticCode::Reserialized
        ) {
            say_diagnostic(name, &base, d);
        }
    }
    let name = crate::text::escape_controls(name);
    let unresolved = tally.unresolved_summary(&base);
    if let Some(summary) = &unresolved {
        eprintln!("linkbase: {name}: {summary}");
    }
    say_base_removed_by_relative(args, &name, std::slice::from_ref(&base));
    Ok(match unresolved {
        Some(_) if args.fail_on_unresolved => Exit::Problems,
        _ => Exit::Ok,
    })
}

fn run_links(args: &LinksArgs) -> Result<Exit, Failure> {
    with_output(args.output.as_deref(), |out| links_to(args, out))
}

fn links_to(args: &LinksArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let loaded = load_input(&args.input)?;
    let options = options(&args.input, false, None)?;
    if let Some(source) = &loaded.warc {
        return warc::links(
            &source.path,
            &loaded.name,
            &args.input,
            args.format,
            &options,
            out,
        );
    }
    if loaded.mbox {
        return mbox::links(&loaded, args.format, &options, out);
    }
    if loaded.large.is_some() || !loaded.is_message() {
        // Each link is written as it is found: memory does not grow with the page.
        let mut out = BufWriter::new(&mut *out);
        if matches!(args.format, LinksFormat::Tsv) {
            write_tsv(&mut out, &[], true)?;
        }
        let mut failed = None;
        let mut on_link = |l: linkbase::LinkRecord| {
            if failed.is_some() {
                return;
            }
            let written = match args.format {
                LinksFormat::Jsonl => write_jsonl(&mut out, std::slice::from_ref(&l)),
                LinksFormat::Tsv => write_tsv(&mut out, std::slice::from_ref(&l), false),
            };
            failed = written.err();
        };
        match &loaded.large {
            Some(large) => pipeline::links_path(&loaded.path_input(large), &options, &mut on_link),
            None => pipeline::links_each(&loaded.html_input(), &options, &mut on_link),
        }
        .map_err(Fatal::from)?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        out.flush()?;
        return Ok(Exit::Ok);
    }
    let reports = reports(&loaded, &options)?;
    let skipped = say_skipped_parts(&loaded.name, &reports);
    let links: Vec<_> = reports.into_iter().flat_map(|r| r.links).collect();
    let mut out = BufWriter::new(&mut *out);
    match args.format {
        LinksFormat::Jsonl => write_jsonl(&mut out, &links)?,
        LinksFormat::Tsv => write_tsv(&mut out, &links, true)?,
    }
    out.flush()?;
    Ok(if skipped > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    })
}

/// One diagnostic of `base` on stderr, `linkbase: NAME[ part P]: code[ at offset N]: message`,
/// control characters made visible. A message's own diagnostics name their part in the message;
/// a part's own diagnostics get its name here.
fn say_diagnostic(name: &str, base: &linkbase::BaseRecord, d: &linkbase::Diagnostic) {
    let name = crate::text::escape_controls(name);
    let said = d.to_string();
    let said = crate::text::escape_controls(&said);
    match base.origin.part.as_deref() {
        Some(part) if !d.message.starts_with("part ") => eprintln!(
            "linkbase: {name} part {}: {said}",
            crate::text::escape_controls(part)
        ),
        _ => eprintln!("linkbase: {name}: {said}"),
    }
}

/// Issue 22: a document or MIME part `rewrite` wrote from its parsed tree (its `reserialized`
/// diagnostic), said on stderr: more than its URL values changed.
fn say_reserialized(name: &str, base: &linkbase::BaseRecord) {
    for d in &base.diagnostics {
        if d.code == linkbase::DiagnosticCode::Reserialized {
            say_diagnostic(name, base, d);
        }
    }
}

/// Says on stderr each MIME part of a message that was not read or not rewritten (its
/// `part-skipped` diagnostics, issue 21) and each structure read past damage (its
/// `mime-malformed` diagnostics, issue 23), then how many of each: such a run exits 1. Returns
/// the counts.
fn say_skipped_parts(name: &str, reports: &[Report]) -> usize {
    for report in reports {
        say_reserialized(name, &report.base);
    }
    let (mut skipped, mut malformed) = (0, 0);
    for report in reports {
        for d in &report.base.diagnostics {
            match d.code {
                linkbase::DiagnosticCode::PartSkipped => skipped += 1,
                linkbase::DiagnosticCode::MimeMalformed => malformed += 1,
                _ => continue,
            }
            say_diagnostic(name, &report.base, d);
        }
    }
    let name = crate::text::escape_controls(name);
    if malformed > 0 {
        eprintln!(
            "linkbase: {name}: {} above: the message is read past damage, as said",
            say::n(malformed, "mime-malformed diagnostic")
        );
    }
    if skipped > 0 {
        eprintln!(
            "linkbase: {name}: {} above: what {} is kept as it was",
            say::n(skipped, "part-skipped diagnostic"),
            if skipped == 1 {
                "it names"
            } else {
                "they name"
            }
        );
    }
    skipped + malformed
}

fn run_base(args: &BaseArgs) -> Result<Exit, Failure> {
    with_output(args.output.as_deref(), |out| base_to(args, out))
}

fn base_to(args: &BaseArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let loaded = load_input(&args.input)?;
    let options = options(&args.input, false, None)?;
    if let Some(source) = &loaded.warc {
        return warc::base(
            &source.path,
            &loaded.name,
            &args.input,
            args.format,
            &options,
            out,
        );
    }
    if loaded.mbox {
        return mbox::base(&loaded, args.format, args.root, &options, out);
    }
    let reports = reports(&loaded, &options)?;
    let skipped = say_skipped_parts(&loaded.name, &reports);
    let bases: Vec<_> = reports
        .into_iter()
        .map(|r| r.base)
        .filter(|b| !args.root || b.origin.root != Some(false))
        .collect();
    let mut out = BufWriter::new(&mut *out);
    match args.format {
        BaseFormat::Jsonl => write_jsonl(&mut out, &bases)?,
        BaseFormat::Text => {
            for b in &bases {
                crate::text::write_base_line(&mut out, b)?;
            }
        }
    }
    out.flush()?;
    Ok(if skipped > 0 {
        Exit::Problems
    } else {
        Exit::Ok
    })
}

/// Runs `write` on stdout, or on `-o FILE` (a temporary file renamed when it succeeds).
fn with_output(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> Result<Exit, Failure>,
) -> Result<Exit, Failure> {
    let Some(path) = path else {
        return write(&mut io::stdout().lock());
    };
    let mut write = Some(write);
    let mut outcome = None;
    let mut run = |w: &mut fsout::Output<'_>| {
        let result = write.take().map(|f| f(w));
        let ok = matches!(result, Some(Ok(_)));
        outcome = result;
        if ok {
            Ok(())
        } else {
            Err(io::Error::other("not written"))
        }
    };
    let written = fsout::write(
        path,
        fsout::Contents::Written(&mut run),
        fsout::Target::Output,
    );
    match outcome {
        Some(Err(e)) => Err(e),
        Some(Ok(exit)) => {
            written.map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            Ok(exit)
        }
        None => Err(Fatal(format!("{}: not written", path.display())).into()),
    }
}

/// One report per document: each HTML part of a message with its links; an HTML document's
/// base alone (its link records would grow with the page).
fn reports(loaded: &Loaded, options: &Options) -> Result<Vec<Report>, Fatal> {
    if loaded.is_message() {
        return Ok(message::links_message(&loaded.message_input(), options)?);
    }
    let base = match &loaded.large {
        Some(large) => pipeline::links_path(&loaded.path_input(large), options, &mut |_| {})?,
        None => pipeline::base(&loaded.html_input(), options)?,
    };
    Ok(vec![Report {
        base,
        links: Vec::new(),
    }])
}

/// Sizes rayon's global pool (once per process: one command runs per process).
fn set_jobs(jobs: Option<usize>) -> Result<(), Fatal> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = jobs {
        builder = builder.num_threads(n.max(1));
    }
    builder
        .build_global()
        .map_err(|e| Fatal(format!("thread pool: {e}")))
}

/// `check DIR --site-url URL`.
fn run_check(args: &CheckArgs) -> Result<Exit, Failure> {
    if !args.dir.is_dir() {
        return Err(Fatal(format!(
            "{}: not a directory (check takes the site's root)",
            args.dir.display()
        ))
        .into());
    }
    let site_url = match (&args.site_url, args.local) {
        (Some(url), _) => url.clone(),
        (None, _) => local_url(&args.dir)?,
    };
    let mut site = tree::site(&site_url)?;
    if args.site_url.is_none() {
        // `--local`: the checked directory (or --root-dir) is the web root of /-rooted links.
        let root = match &args.root_dir {
            Some(root) if !root.is_dir() => {
                return Err(Fatal(format!(
                    "--root-dir {}: not a directory (the web root /-rooted links start from)",
                    root.display()
                ))
                .into())
            }
            Some(root) => local_url(root)?,
            None => site_url.clone(),
        };
        site.set_web_root(&root).map_err(Fatal::from)?;
    }
    let options = Options {
        rewrite: RewriteOptions {
            resolve: args.resolution.options(),
            drop_base: false,
            relink: None,
        },
        default_encoding: default_encoding(
            args.default_charset.as_deref(),
            "--default-charset (--charset)",
        )?,
        ..Options::default()
    };
    let tree = walk::walk(&args.dir).map_err(|e| Fatal(format!("{}: {e}", args.dir.display())))?;
    for s in tree.skipped.iter().chain(&tree.special) {
        eprintln!("linkbase: {}", crate::text::escape_controls(s));
    }
    for entry in &tree.entries {
        site.add_file(&entry.rel);
    }
    tree::set_layout(&mut site, args.layout, &args.dir);
    if args.site_url.is_none() {
        tree::add_mirrored_hosts(&mut site, &args.dir, &tree);
    }
    for (rel, _) in &tree.undecodable {
        eprintln!(
            "linkbase: {}: the name is not UTF-8, so it has no URL; not checked",
            walk::visible_path(rel)
        );
    }
    let rules = walk::CheckRules {
        skip_pages: checkout::path_globs(&args.exclude_path)?,
        filter: checkout::Filter::new(&args.include, &args.exclude, &args.dir)?,
        remaps: args
            .remap
            .iter()
            .map(|spec| {
                checkout::Remap::parse(spec, |dir| {
                    let root = fsout::resolve_path(&args.dir).ok()?;
                    let path = fsout::resolve_path(Path::new(dir)).ok()?;
                    if !path.is_dir() {
                        return None;
                    }
                    let rel = path.strip_prefix(&root).ok()?.to_str()?;
                    Some(site.file_url(&rel.replace(std::path::MAIN_SEPARATOR, "/")))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let online = if args.online.online {
        Some(online::Config::from_args(&args.online, &args.dir)?)
    } else {
        None
    };
    let format = args.format;
    let broken_only = args.broken_only;
    set_jobs(args.jobs)?;
    let mut grouped = checkout::Grouped::default();
    let mut unreadable: Vec<(String, String)> = Vec::new();
    let mut report = |out: &mut dyn Write| -> io::Result<(walk::CheckTotals, walk::Counts)> {
        let mut out = BufWriter::new(out);
        if format == CheckFormat::Tsv {
            writeln!(
                out,
                "file\tverdict\ttarget\t{}",
                crate::text::TSV_COLUMNS.join("\t")
            )?;
        }
        let (totals, counts) = walk::check_tree(
            &tree,
            &mut site,
            &options,
            &rules,
            online.as_ref(),
            |file, (page, results)| {
                let records = match page {
                    Ok(records) => records,
                    Err(e) => {
                        unreadable.push((file.to_owned(), e.to_owned()));
                        return Ok(());
                    }
                };
                // Grouped in every format: the stderr summary counts broken targets.
                grouped.add_page(records, |r| {
                    rules.outcome(results, r).map(online::Outcome::detail)
                });
                // `--broken-only`: a 178k-link site writes 78 MB of records, nearly all `ok`.
                let kept: Vec<_>;
                let records = if broken_only {
                    kept = records
                        .iter()
                        .filter(|r| r.verdict.is_broken())
                        .cloned()
                        .collect();
                    &kept[..]
                } else {
                    records
                };
                match format {
                    CheckFormat::Human
                    | CheckFormat::Json
                    | CheckFormat::Markdown
                    | CheckFormat::Junit
                    | CheckFormat::Github
                    | CheckFormat::Sarif => Ok(()),
                    CheckFormat::Jsonl if results.is_some() => {
                        // Each external link with what the online check found (`online`).
                        #[derive(serde::Serialize)]
                        struct WithOnline<'a> {
                            #[serde(flatten)]
                            record: &'a walk::CheckRecord,
                            #[serde(skip_serializing_if = "Option::is_none")]
                            online: Option<&'a online::Outcome>,
                        }
                        let records: Vec<WithOnline<'_>> = records
                            .iter()
                            .map(|record| WithOnline {
                                record,
                                online: rules.outcome(results, record),
                            })
                            .collect();
                        write_jsonl(&mut out, &records)
                    }
                    CheckFormat::Jsonl => write_jsonl(&mut out, records),
                    CheckFormat::Tsv => {
                        for r in records {
                            let mut line = Vec::new();
                            write_tsv(&mut line, std::slice::from_ref(&r.link), false)?;
                            write!(
                                out,
                                "{}\t{}\t{}\t",
                                crate::text::tsv_escape(&r.file),
                                r.verdict.name(),
                                crate::text::tsv_escape(r.target.as_deref().unwrap_or(""))
                            )?;
                            out.write_all(&line)?;
                        }
                        Ok(())
                    }
                }
            },
        )?;
        match format {
            CheckFormat::Human => checkout::write_human(&mut out, &grouped, &totals)?,
            CheckFormat::Json => checkout::write_json(&mut out, &grouped, &totals)?,
            CheckFormat::Markdown => checkout::write_markdown(&mut out, &grouped, &totals)?,
            CheckFormat::Junit => checkout::write_junit(&mut out, &grouped, &totals, &unreadable)?,
            CheckFormat::Github => ciout::write_github(&mut out, &grouped, &totals, &args.dir)?,
            CheckFormat::Sarif => ciout::write_sarif(&mut out, &grouped, &args.dir)?,
            CheckFormat::Jsonl | CheckFormat::Tsv => {}
        }
        out.flush()?;
        Ok((totals, counts))
    };
    let (totals, counts) = match &args.output {
        None => report(&mut io::stdout().lock())?,
        Some(path) => {
            let mut result = None;
            let mut write = |w: &mut fsout::Output<'_>| {
                result = Some(report(w)?);
                Ok(())
            };
            fsout::write(
                path,
                fsout::Contents::Written(&mut write),
                fsout::Target::Output,
            )
            .map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            result.ok_or_else(|| Fatal(format!("{}: not written", path.display())))?
        }
    };
    // Said on stderr in every format, so a CI log shows it whatever the report's form; once
    // on a terminal.
    if checkout::summary_on_stderr(
        format,
        args.output.is_none(),
        io::stdout().is_terminal(),
        io::stderr().is_terminal(),
    ) {
        eprintln!(
            "linkbase: check: {}",
            checkout::summary(&totals, grouped.targets().len())
        );
    }
    let failed = counts.failed.load(std::sync::atomic::Ordering::Relaxed) + tree.undecodable.len();
    Ok(if failed > 0 {
        Exit::Unusable
    } else if totals.broken > 0 || (args.fail_on_unchecked && totals.unchecked() > 0) {
        Exit::Problems
    } else {
        Exit::Ok
    })
}
