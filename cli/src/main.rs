//! `linkbase`: the command-line client of the linkbase library. Exit codes: 0 success, 1 the
//! command found problems it was asked to find, 2 bad usage or unusable input.

mod args;
mod checkout;
mod fsout;
mod man;
mod online;
mod say;
mod walk;
mod warc;

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use std::path::Path;

use linkbase::input::InputKind;
use linkbase::message::{self, MessageInput};
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::report::{escape_controls, write_jsonl, write_tsv};
use linkbase::Report;
use linkbase::{BaseLayers, HeaderBase, Headers, Resolver, RewriteOptions};

use args::{
    BaseArgs, BaseFormat, CheckArgs, CheckFormat, Cli, Command, HeaderBaseArg, InputArgs,
    LinksArgs, LinksFormat, ResolveArgs, RewriteArgs,
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
            eprintln!("linkbase: {}", linkbase::report::escape_controls(&message));
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
                eprintln!(
                    "linkbase: {}",
                    linkbase::report::escape_controls(&e.to_string())
                );
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

/// The document's bytes and everything known about it from the options.
struct Loaded {
    name: String,
    /// The whole document; for a large one, its first 64 KiB.
    bytes: Vec<u8>,
    /// A document past `--stream-threshold`: where it is (stdin spooled to a temporary file).
    large: Option<Large>,
    layers: BaseLayers,
    charset: Option<String>,
    diagnostics: Vec<linkbase::Diagnostic>,
    /// A WARC file (stdin spooled to a temporary file): read record by record, never whole.
    warc: Option<Large>,
}

impl Loaded {
    /// A MIME message (`.eml`, `.mht`, `.mhtml`, or an RFC 822 heading naming MIME) rather than
    /// a bare HTML document.
    fn is_message(&self) -> bool {
        linkbase::input::classify(&self.name, &self.bytes) == InputKind::Message
    }

    fn message_input(&self) -> MessageInput<'_> {
        MessageInput {
            name: &self.name,
            bytes: &self.bytes,
            layers: self.layers.clone(),
        }
    }

    fn path_input<'a>(&'a self, large: &'a Large) -> pipeline::PathInput<'a> {
        pipeline::PathInput {
            name: &self.name,
            path: &large.path,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }

    fn html_input(&self) -> HtmlInput<'_> {
        HtmlInput {
            name: &self.name,
            bytes: &self.bytes,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }
}

/// A document too large to hold: a file, or stdin spooled to one.
struct Large {
    path: std::path::PathBuf,
    /// Removed when dropped.
    _spool: Option<tempfile::NamedTempFile>,
}

/// The document's bytes, or its head and where it is when it passes `threshold` bytes.
fn read_input(name: &str, threshold: u64) -> Result<(Vec<u8>, Option<Large>), Fatal> {
    const HEAD: u64 = 64 * 1024;
    if name != "-" {
        let meta = std::fs::metadata(name).map_err(|e| Fatal(format!("{name}: {e}")))?;
        if meta.is_file() && meta.len() > threshold {
            let mut head = Vec::new();
            std::fs::File::open(name)
                .and_then(|f| f.take(HEAD).read_to_end(&mut head))
                .map_err(|e| Fatal(format!("{name}: {e}")))?;
            let large = Large {
                path: name.into(),
                _spool: None,
            };
            return Ok((head, Some(large)));
        }
        let bytes = std::fs::read(name).map_err(|e| Fatal(format!("{name}: {e}")))?;
        return Ok((bytes, None));
    }
    let stdin_error = |e: io::Error| Fatal(format!("stdin: {e}"));
    let mut stdin = io::stdin().lock();
    let mut bytes = Vec::new();
    (&mut stdin)
        .take(threshold.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(stdin_error)?;
    if bytes.len() as u64 <= threshold {
        return Ok((bytes, None));
    }
    // Past the threshold: the rest goes to a temporary file, so that memory stays flat and the
    // document can be read twice (its base first).
    let mut spool = tempfile::NamedTempFile::new().map_err(|e| {
        Fatal(format!(
            "stdin: cannot create a temporary file to hold it: {e}"
        ))
    })?;
    spool
        .write_all(&bytes)
        .and_then(|()| io::copy(&mut stdin, &mut spool).map(drop))
        .and_then(|()| spool.flush())
        .map_err(stdin_error)?;
    bytes.truncate(HEAD as usize);
    bytes.shrink_to_fit();
    let large = Large {
        path: spool.path().to_owned(),
        _spool: Some(spool),
    };
    Ok((bytes, Some(large)))
}

/// The input; a large one (past `--stream-threshold`) only as its head and where it is, unless
/// it is a MIME message (those are read whole).
fn load(args: &InputArgs) -> Result<Loaded, Fatal> {
    let name = args.input.clone();
    let (mut bytes, mut large) = read_input(&name, args.stream_threshold)?;
    let kind = linkbase::input::classify(&name, &bytes);
    if kind == InputKind::Warc {
        let source = match large {
            Some(l) => l,
            None if name == "-" => {
                let mut spool = tempfile::NamedTempFile::new()
                    .and_then(|mut f| f.write_all(&bytes).map(|()| f))
                    .map_err(|e| {
                        Fatal(format!("stdin: cannot spool it to a temporary file: {e}"))
                    })?;
                spool.flush().map_err(|e| Fatal(format!("stdin: {e}")))?;
                Large {
                    path: spool.path().to_owned(),
                    _spool: Some(spool),
                }
            }
            None => Large {
                path: name.clone().into(),
                _spool: None,
            },
        };
        return Ok(Loaded {
            name,
            bytes: Vec::new(),
            large: None,
            layers: BaseLayers::default(),
            charset: None,
            diagnostics: Vec::new(),
            warc: Some(source),
        });
    }
    let message = kind == InputKind::Message;
    if let (true, Some(l)) = (message, &large) {
        bytes = std::fs::read(&l.path).map_err(|e| Fatal(format!("{name}: {e}")))?;
        large = None;
    }
    let mut headers = match &args.headers_file {
        Some(path) => {
            let raw = std::fs::read(path).map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            // Header blocks are ASCII by RFC; other bytes are kept as replacement characters.
            Headers::parse(&String::from_utf8_lossy(&raw))
        }
        None => Headers::new(),
    };
    for line in &args.headers {
        if !headers.push_line(line) {
            return Err(Fatal(format!(
                "--header {line:?}: expected \"Name: value\""
            )));
        }
    }
    // The library's error names the layer; the user gave these as flags, so name the flag.
    for (flag, value) in [("--url", &args.url), ("--default-base", &args.default_base)] {
        if let Some(value) = value {
            linkbase::Uri::parse(value.trim())
                .map_err(|e| Fatal(format!("{flag} {value:?}: {e}")))?;
        }
    }
    let mut layers = BaseLayers {
        content_base: args.content_base.clone(),
        content_location: args.content_location.clone(),
        retrieval_uri: args.url.clone(),
        default_base: args.default_base.clone(),
    };
    let mode = match args.header_base {
        HeaderBaseArg::Entity => HeaderBase::Entity,
        HeaderBaseArg::Browser => HeaderBase::Browser,
    };
    let diagnostics = layers.add_headers(&headers, mode);
    let charset = args.charset.clone().or_else(|| {
        headers
            .get("Content-Type")
            .and_then(linkbase::input::charset_from_content_type)
    });
    Ok(Loaded {
        name,
        bytes,
        large,
        layers,
        charset,
        diagnostics,
        warc: None,
    })
}

fn options(
    args: &InputArgs,
    drop_base: bool,
    output_charset: Option<&str>,
) -> Result<Options, Fatal> {
    let output_encoding = match output_charset {
        Some(label) => Some(
            encoding_rs::Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| {
                Fatal(format!("--output-charset {label:?}: not an encoding label"))
            })?,
        ),
        None => None,
    };
    Ok(Options {
        rewrite: RewriteOptions {
            resolve: args.resolution.options(),
            drop_base,
            relink: None,
        },
        output_encoding,
        default_encoding: default_encoding(args.default_charset.as_deref(), "--default-charset")?,
        conditional_comments: args.conditional_comments.map(|s| s == args::Switch::On),
        engine: match args.engine {
            args::EngineArg::Auto => pipeline::EngineChoice::Auto,
            args::EngineArg::Dom => pipeline::EngineChoice::Dom,
        },
        ..Options::default()
    })
}

/// `--default-charset LABEL` (`check --charset`): the encoding of pages that declare none. An
/// encoding_rs (WHATWG) label; one no undeclared page can be read in is refused too.
fn default_encoding(
    label: Option<&str>,
    flag: &str,
) -> Result<Option<&'static encoding_rs::Encoding>, Fatal> {
    let Some(label) = label else {
        return Ok(None);
    };
    match encoding_rs::Encoding::for_label(label.trim().as_bytes()) {
        None => Err(Fatal(format!(
            "{flag} {label:?}: not an encoding label (WHATWG Encoding Standard labels, \
             such as utf-8, windows-1252, shift_jis)"
        ))),
        Some(e) if e == encoding_rs::REPLACEMENT || !e.is_ascii_compatible() => {
            Err(Fatal(format!(
                "{flag} {label:?}: names {}, which a page without a byte order mark or a \
             declaration cannot be read in",
                e.name()
            )))
        }
        Some(e) => Ok(Some(e)),
    }
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
    let mut loaded = load(&args.input)?;
    let mut options = options(&args.input, args.drop_base, args.output_charset.as_deref())?;
    if args.relative && loaded.warc.is_none() {
        single_relative(args, &mut loaded, &mut options)?;
    }
    if let Some(source) = &loaded.warc {
        return warc::rewrite(&source.path, &loaded.name, args, &options);
    }
    if args.extract.is_some() {
        return Err(Fatal("--extract DIR needs a WARC file as INPUT".into()).into());
    }
    if let Some(large) = &loaded.large {
        let input = loaded.path_input(large);
        return rewrite_streamed(args, &loaded.name, snapshot.as_ref(), &mut |out| {
            let mut tally = linkbase::LinkTally::default();
            pipeline::rewrite_path(&input, &options, out, &mut |l| tally.add(&l))
                .map(|(base, _)| (base, tally))
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
    let mut unresolved = None;
    for report in &rewritten.reports {
        if let Some(summary) = report.unresolved_summary() {
            eprintln!(
                "linkbase: {} part {}: {summary}",
                linkbase::report::escape_controls(&loaded.name),
                report.base.part.as_deref().unwrap_or("?")
            );
            unresolved = Some(summary);
        }
    }
    let skipped = say_skipped_parts(&loaded.name, &rewritten.reports);
    let bases: Vec<_> = rewritten.reports.iter().map(|r| r.base.clone()).collect();
    say_base_removed_by_relative(args, &escape_controls(&loaded.name), &bases);
    let bytes = rewritten.bytes;
    let exit = match unresolved {
        _ if skipped > 0 => Exit::Problems,
        Some(_) if args.fail_on_unresolved => Exit::Problems,
        _ => Exit::Ok,
    };
    let (path, target) = match (&args.output, args.in_place, &snapshot) {
        (_, true, Some(before)) => (input_path, fsout::Target::InPlace(before)),
        (_, true, None) => {
            return Err(Fatal(format!("{}: cannot read", input_path.display())).into())
        }
        (Some(path), false, _) => (path.as_path(), fsout::Target::Output),
        (None, false, _) => {
            let mut stdout = io::stdout().lock();
            stdout.write_all(&bytes)?;
            stdout.flush()?;
            return Ok(exit);
        }
    };
    fsout::write(path, fsout::Contents::Bytes(&bytes), target)
        .map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
    Ok(exit)
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
type Produce<'a> = dyn FnMut(&mut dyn Write) -> Result<(linkbase::BaseRecord, linkbase::LinkTally), linkbase::Error>
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
            let mut write = |w: &mut dyn Write| {
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
    let name = linkbase::report::escape_controls(name);
    for d in &base.diagnostics {
        if matches!(
            d.code,
            linkbase::DiagnosticCode::BaseIgnored | linkbase::DiagnosticCode::HeaderIgnored
        ) {
            eprintln!(
                "linkbase: {name}: {}",
                linkbase::report::escape_controls(&d.to_string())
            );
        }
    }
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
    let loaded = load(&args.input)?;
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
    if let Some(large) = &loaded.large {
        // Each link is written as it is found.
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
        pipeline::links_path(&loaded.path_input(large), &options, &mut on_link)
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

/// Says on stderr each MIME part of a message that was not read or not rewritten (its
/// `part-skipped` diagnostics, issue 21) and each structure read past damage (its
/// `mime-malformed` diagnostics, issue 23), then how many of each: such a run exits 1. Returns
/// the counts.
fn say_skipped_parts(name: &str, reports: &[Report]) -> usize {
    let name = linkbase::report::escape_controls(name);
    let (mut skipped, mut malformed) = (0, 0);
    for report in reports {
        for d in &report.base.diagnostics {
            match d.code {
                linkbase::DiagnosticCode::PartSkipped => skipped += 1,
                linkbase::DiagnosticCode::MimeMalformed => malformed += 1,
                _ => continue,
            }
            let message = linkbase::report::escape_controls(&d.message);
            // The message's own diagnostics name their part; a part's own name none.
            match report.base.part.as_deref() {
                Some(part) if !d.message.starts_with("part ") => {
                    eprintln!("linkbase: {name} part {part}: {}: {message}", d.code);
                }
                _ => eprintln!("linkbase: {name}: {}: {message}", d.code),
            }
        }
    }
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
    let loaded = load(&args.input)?;
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
    // A single page's base without its link records, which grow with the page.
    let reports = if loaded.large.is_none() && !loaded.is_message() {
        vec![Report {
            base: pipeline::base(&loaded.html_input(), &options)?,
            links: Vec::new(),
        }]
    } else {
        reports(&loaded, &options)?
    };
    let skipped = say_skipped_parts(&loaded.name, &reports);
    let bases: Vec<_> = reports
        .into_iter()
        .map(|r| r.base)
        .filter(|b| !args.root || b.root != Some(false))
        .collect();
    let mut out = BufWriter::new(&mut *out);
    match args.format {
        BaseFormat::Jsonl => write_jsonl(&mut out, &bases)?,
        BaseFormat::Text => {
            for b in &bases {
                // A MIME part's path comes first, so each line says which part it is about.
                if let Some(part) = &b.part {
                    write!(out, "{}\t", escape_controls(part))?;
                }
                writeln!(
                    out,
                    "{}\t{}",
                    escape_controls(b.base.as_deref().unwrap_or("")),
                    b.base_source
                )?;
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
    let mut run = |w: &mut dyn Write| {
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

/// One report per document: the HTML document, or each HTML part of a message.
fn reports(loaded: &Loaded, options: &Options) -> Result<Vec<Report>, Fatal> {
    if let Some(large) = &loaded.large {
        let base = pipeline::links_path(&loaded.path_input(large), options, &mut |_| {})?;
        return Ok(vec![Report {
            base,
            links: Vec::new(),
        }]);
    }
    if loaded.is_message() {
        Ok(message::links_message(&loaded.message_input(), options)?)
    } else {
        Ok(vec![pipeline::links(&loaded.html_input(), options)?])
    }
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

/// `rewrite DIR --site-url URL (-o OUTDIR | --in-place)`.
fn run_rewrite_tree(args: &RewriteArgs) -> Result<Exit, Failure> {
    let started = std::time::Instant::now();
    let root = Path::new(&args.input.input);
    let site_url = args.site_url.as_deref().ok_or_else(|| {
        Fatal(format!(
            "{}: a directory needs --site-url URL{}",
            root.display(),
            if args.relative {
                " (--relative maps its files to URLs by it)"
            } else {
                ""
            }
        ))
    })?;
    let mut site = linkbase::site::Site::new(site_url).map_err(Fatal::from)?;
    if args.output.is_none() && !args.in_place {
        return Err(Fatal(format!(
            "{}: a directory needs -o OUTDIR or --in-place",
            root.display()
        ))
        .into());
    }
    let mut options = options(&args.input, args.drop_base, args.output_charset.as_deref())?;
    // Everything that could lose data is refused before anything is written.
    if let Some(out) = &args.output {
        refuse_nested_output(root, out)?;
    }
    let locked = match &args.output {
        Some(out) => out.as_path(),
        None => root,
    };
    let written = fsout::Dir::open(locked, true).map_err(Fatal)?;
    let _lock = fsout::TreeLock::acquire(locked).map_err(Fatal)?;
    // With the lock held, any temporary file of ours in the tree is a killed run's.
    fsout::say_removed(&fsout::remove_stale_temps(&written));
    let destination = match &args.output {
        Some(_) => walk::Destination::Out(&written),
        None => walk::Destination::InPlace(&written),
    };
    let tree = walk::walk(root).map_err(|e| Fatal(format!("{}: {e}", root.display())))?;
    for s in tree.skipped.iter().chain(&tree.special) {
        eprintln!("linkbase: {}", linkbase::report::escape_controls(s));
    }
    set_jobs(args.jobs)?;
    let mut implied_drop = false;
    if args.relative {
        for entry in &tree.entries {
            site.add_file(&entry.rel);
        }
        implied_drop = relative_options(&mut options, &site);
    }
    let counts = walk::rewrite_tree(&tree, &site, destination, &options);
    // One sync for the whole tree instead of one fsync per file (issue 21): the run's writes
    // are on disk when it returns.
    let synced = written.sync();
    if let Err(e) = &synced {
        eprintln!("linkbase: {}", linkbase::report::escape_controls(e));
    }
    let load = |n: &std::sync::atomic::AtomicUsize| n.load(std::sync::atomic::Ordering::Relaxed);
    let unresolved_pages = load(&counts.unresolved_pages);
    let skipped_parts = load(&counts.skipped_parts);
    let failed = load(&counts.failed);
    let summary = TreeSummary {
        pages: load(&counts.pages),
        links: load(&counts.links),
        left: load(&counts.unresolved_links),
        left_pages: unresolved_pages,
        reasons: counts
            .reasons
            .lock()
            .map(|r| r.iter().copied().collect())
            .unwrap_or_default(),
        relative: args.relative,
        others: load(&counts.others),
        failed,
        copied: load(&counts.copied_unchanged),
        total: tree.entries.len() + tree.undecodable.len() + tree.special.len(),
        special: tree.special.len(),
        skipped_parts,
        bases_removed: load(&counts.bases_removed),
        base_by_relative: implied_drop,
        output: args.output.as_deref(),
        seconds: started.elapsed().as_secs_f64(),
    };
    eprintln!("linkbase: rewrite: {}", summary.line());
    if failed > 0 || !tree.special.is_empty() || synced.is_err() {
        return Ok(Exit::Problems);
    }
    if skipped_parts > 0 || (unresolved_pages > 0 && args.fail_on_unresolved) {
        return Ok(Exit::Problems);
    }
    Ok(Exit::Ok)
}

/// `--relative`: links to files of the tree become relative paths (`Site::relative`), and
/// `<base>` elements go, since they would redirect those paths. True when that is --relative's
/// doing (no --drop-base): the run says so when it removed some.
fn relative_options(options: &mut Options, site: &linkbase::site::Site) -> bool {
    options.rewrite.relink = Some(linkbase::Relinker(std::sync::Arc::new(site.clone())));
    let implied = !options.rewrite.drop_base;
    options.rewrite.drop_base = true;
    implied
}

/// `rewrite FILE --relative` without --drop-base: says that a `<base>` element went, when one
/// did (and only then).
fn say_base_removed_by_relative(args: &RewriteArgs, name: &str, bases: &[linkbase::BaseRecord]) {
    if args.relative && !args.drop_base && bases.iter().any(walk::base_removed) {
        eprintln!(
            "linkbase: {name}: --relative: the <base> element is removed (it would redirect the relative links)"
        );
    }
}

/// The one closing line of `rewrite DIR`, in `check`'s style: what was read, what became of its
/// links and files, where the output went, and how long it took.
struct TreeSummary<'a> {
    pages: usize,
    links: usize,
    /// Links left relative or unresolvable, on `left_pages` pages, for `reasons`.
    left: usize,
    left_pages: usize,
    reasons: Vec<&'static str>,
    relative: bool,
    /// Files that are not pages: copied to OUT, or left in place.
    others: usize,
    /// Files that could not be rewritten, of `total`; `copied` of them copied unchanged.
    failed: usize,
    copied: usize,
    total: usize,
    special: usize,
    skipped_parts: usize,
    bases_removed: usize,
    /// The `<base>` elements went because of --relative, not --drop-base.
    base_by_relative: bool,
    /// -o OUTDIR, or in place.
    output: Option<&'a Path>,
    seconds: f64,
}

impl TreeSummary<'_> {
    fn line(&self) -> String {
        let mut line = format!(
            "{}, {}: {} {}, {}",
            say::n(self.pages, "page"),
            say::n(self.links, "link"),
            self.links - self.left.min(self.links),
            if self.relative {
                "absolute or relative"
            } else {
                "absolute"
            },
            self.left
        );
        line += " left relative or unresolvable";
        if self.left > 0 {
            line += &format!(
                " on {} ({})",
                say::n(self.left_pages, "page"),
                self.reasons.join(", ")
            );
        }
        line += &match self.output {
            Some(_) => format!("; {} copied", say::n(self.others, "other file")),
            None => format!("; {} left as they were", say::n(self.others, "other file")),
        };
        if self.failed == 0 {
            line += "; 0 failed";
        } else {
            let what = match self.output {
                Some(_) if self.copied == self.failed => "copied unchanged".to_owned(),
                Some(_) if self.copied == 0 => "not written to the output".to_owned(),
                Some(_) => format!(
                    "{} copied unchanged, {} not written to the output",
                    self.copied,
                    self.failed - self.copied
                ),
                None => "left unchanged".to_owned(),
            };
            line += &format!(
                "; {} of {} failed ({what}, see above)",
                self.failed,
                say::n(self.total, "file")
            );
        }
        if self.special > 0 {
            line += &format!(
                "; {} (FIFOs, sockets, devices) skipped, {}",
                say::n_as(
                    self.special,
                    "file not a regular file",
                    "files not regular files"
                ),
                if self.output.is_some() {
                    "not in the output"
                } else {
                    "left alone"
                }
            );
        }
        if self.skipped_parts > 0 {
            line += &format!(
                "; {} with parts left as they were or read past damage (see above)",
                say::n(self.skipped_parts, "MIME message")
            );
        }
        if self.bases_removed > 0 {
            line += &format!(
                "; <base> removed from {}{}",
                say::n(self.bases_removed, "page"),
                if self.base_by_relative {
                    " (by --relative: it would redirect the relative links)"
                } else {
                    ""
                }
            );
        }
        line += &match self.output {
            Some(out) => format!(
                "; written to {}",
                escape_controls(&out.display().to_string())
            ),
            None => "; rewritten in place".to_owned(),
        };
        line + &format!("; {:.2} s", self.seconds)
    }
}

/// `rewrite FILE --relative --site-url URL --root DIR`: FILE is a page of the tree at DIR,
/// published at URL.
fn single_relative(
    args: &RewriteArgs,
    loaded: &mut Loaded,
    options: &mut Options,
) -> Result<(), Fatal> {
    let (Some(site_url), Some(root)) = (&args.site_url, &args.root) else {
        return Err(Fatal(
            "--relative with a single INPUT needs --site-url URL and --root DIR (the tree the page belongs to)".into(),
        ));
    };
    let mut site = linkbase::site::Site::new(site_url).map_err(Fatal::from)?;
    let tree = walk::walk(root).map_err(|e| Fatal(format!("{}: {e}", root.display())))?;
    for entry in &tree.entries {
        site.add_file(&entry.rel);
    }
    let file = fsout::resolve_path(Path::new(&args.input.input))
        .map_err(|e| Fatal(format!("{}: {e}", args.input.input)))?;
    let root_abs =
        fsout::resolve_path(root).map_err(|e| Fatal(format!("{}: {e}", root.display())))?;
    let rel = file
        .strip_prefix(&root_abs)
        .ok()
        .and_then(|r| r.to_str())
        .map(|r| r.replace(std::path::MAIN_SEPARATOR, "/"))
        .ok_or_else(|| {
            Fatal(format!(
                "{}: not a file under --root {}",
                args.input.input,
                root.display()
            ))
        })?;
    if loaded.layers.retrieval_uri.is_none() {
        loaded.layers.retrieval_uri = Some(site.file_url(&rel));
    }
    relative_options(options, &site);
    Ok(())
}

/// The `file:` URL of a directory, for `check --local`.
fn local_url(dir: &Path) -> Result<String, Fatal> {
    let abs = fsout::resolve_path(dir).map_err(|e| Fatal(format!("{}: {e}", dir.display())))?;
    let text = abs
        .to_str()
        .ok_or_else(|| Fatal(format!("{}: the path is not UTF-8", dir.display())))?;
    let site = linkbase::site::Site::new("file:///").map_err(Fatal::from)?;
    let url = site.file_url(text.trim_start_matches('/'));
    Ok(if url.ends_with('/') {
        url
    } else {
        format!("{url}/")
    })
}

/// An output tree that is the input tree, or lies inside it, would have its own output read
/// back (and, before issue 15, truncated every non-HTML file: copying a file onto itself
/// empties it). Both paths are compared with `.`, `..` and symbolic links resolved.
fn refuse_nested_output(root: &Path, out: &Path) -> Result<(), Fatal> {
    let resolved_root =
        fsout::resolve_path(root).map_err(|e| Fatal(format!("{}: {e}", root.display())))?;
    let resolved_out =
        fsout::resolve_path(out).map_err(|e| Fatal(format!("{}: {e}", out.display())))?;
    if resolved_out == resolved_root {
        return Err(Fatal(format!(
            "{}: the output directory is the input directory; use --in-place to rewrite a tree \
             in place",
            out.display()
        )));
    }
    // OUTDIR around DIR: `OUT/site/x.html` of a page `DIR/site/x.html` would be the input file
    // `DIR/x.html` when DIR is `OUT/site`.
    if resolved_root.starts_with(&resolved_out) {
        return Err(Fatal(format!(
            "{}: the output directory contains the input directory {}; its files could be \
             overwritten: choose one outside it",
            out.display(),
            root.display()
        )));
    }
    if resolved_out.starts_with(&resolved_root) {
        return Err(Fatal(format!(
            "{}: the output directory lies inside the input directory {}; choose one outside it",
            out.display(),
            root.display()
        )));
    }
    Ok(())
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
    let mut site = linkbase::site::Site::new(&site_url).map_err(Fatal::from)?;
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
        eprintln!("linkbase: {}", linkbase::report::escape_controls(s));
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
                linkbase::report::TSV_COLUMNS.join("\t")
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
                grouped.add_page(file, records, |r| {
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
                    | CheckFormat::Junit => Ok(()),
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
                                linkbase::report::tsv_escape(&r.file),
                                r.verdict.name(),
                                linkbase::report::tsv_escape(r.target.as_deref().unwrap_or(""))
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
            CheckFormat::Junit => checkout::write_junit(&mut out, &grouped, &unreadable)?,
            CheckFormat::Jsonl | CheckFormat::Tsv => {}
        }
        out.flush()?;
        Ok((totals, counts))
    };
    let (totals, counts) = match &args.output {
        None => report(&mut io::stdout().lock())?,
        Some(path) => {
            let mut result = None;
            let mut write = |w: &mut dyn Write| {
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
