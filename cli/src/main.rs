//! `linkbase`: the command-line client of the linkbase library. Exit codes: 0 success, 1 the
//! command found problems it was asked to find, 2 bad usage or unusable input.

mod args;
mod check;
mod config;
mod load;
mod man;
mod page;
mod run;
mod said;
mod tree;
mod verbs;
mod walk;

pub(crate) use run::{say_removed, set_jobs, with_output, Exit, Failure, Fatal};
pub(crate) use said::{say_reserialized, say_skipped_parts};
use verbs::{run_base, run_links, run_rewrite};
mod warc;

use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;

use linkbase::report::write_jsonl;
use linkbase::text::escape_controls;
use linkbase::Resolver;

use args::{Cli, Command, ResolveArgs};

fn main() -> ExitCode {
    let cli = Cli::from_env();
    let result = match cli.command {
        Command::Resolve(args) => run_resolve(&args),
        Command::Rewrite(args) => run_rewrite(&args),
        Command::Links(args) => run_links(&args),
        Command::Base(args) => run_base(&args),
        Command::Check(mut args) => match config::apply(&mut args) {
            Ok(()) => check::run_check(&args),
            Err(e) => Err(Fatal(format!("check: {e}")).into()),
        },
        Command::Completions { shell } => run_completions(shell),
        Command::Man(args) => run_man(&args),
    };
    match result {
        Ok(exit) => ExitCode::from(exit as u8),
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Fatal(Fatal(message))) => {
            // Messages quote names and values from the input.
            eprintln!("linkbase: {}", linkbase::text::escape_controls(&message));
            ExitCode::from(Exit::Unusable as u8)
        }
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
                    linkbase::text::escape_controls(&e.to_string())
                );
            }
        }
        if json {
            let (resolved, same_document, error) = match &result {
                Ok(same) => (Some(buffer.as_str()), *same, None),
                Err(e) => (None, false, Some(e.to_string())),
            };
            let record = linkbase::report::ResolveRecord {
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
