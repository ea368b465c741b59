//! `linkbase`: the command-line client of the linkbase library. Exit codes: 0 success, 1 the
//! command found problems it was asked to find, 2 bad usage or unusable input.

mod args;

use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;

use clap::Parser;
use linkbase::Resolver;

use args::{Cli, Command, ResolveArgs};

/// The documented exit codes (CONTRACT.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    Ok = 0,
    Problems = 1,
    Unusable = 2,
}

/// A fatal error: printed as `linkbase: <message>`, exit 2.
struct Fatal(String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Self {
        Fatal(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Resolve(args) => run_resolve(&args),
    };
    match result {
        Ok(exit) => ExitCode::from(exit as u8),
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Fatal(Fatal(message))) => {
            eprintln!("linkbase: {message}");
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

impl From<Fatal> for Failure {
    fn from(f: Fatal) -> Self {
        Failure::Fatal(f)
    }
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
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = 0usize;
    let mut buffer = String::new();
    let mut one = |reference: &str, out: &mut BufWriter<io::StdoutLock<'_>>| -> io::Result<()> {
        let result = resolver.resolve_into(reference, &mut buffer);
        if let Err(e) = &result {
            failed += 1;
            if !args.json {
                eprintln!("linkbase: {e}");
            }
        }
        if args.json {
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
            serde_json::to_writer(&mut *out, &record)?;
            writeln!(out)
        } else {
            // An unresolvable reference still gets its line, empty, so lines stay aligned.
            writeln!(out, "{buffer}")
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
