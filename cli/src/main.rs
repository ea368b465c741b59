//! `linkbase`: the command-line client of the linkbase library. Exit codes: 0 success, 1 the
//! command found problems it was asked to find, 2 bad usage or unusable input.

mod args;
mod checkout;
mod ciout;
mod config;
mod load;
mod man;
mod online;
mod page;
mod run;
mod said;
mod tree;
mod verbs;
mod walk;

use load::default_encoding;
pub(crate) use run::{set_jobs, with_output, Exit, Failure, Fatal};
pub(crate) use said::{say_reserialized, say_skipped_parts};
use tree::local_url;
use verbs::{run_base, run_links, run_rewrite};
mod warc;
use linkbase::fs as fsout;

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use std::path::Path;

use linkbase::pipeline::Options;
use linkbase::report::write_jsonl;
use linkbase::text::{escape_controls, write_tsv};
use linkbase::{Resolver, RewriteOptions};

use args::{CheckArgs, CheckFormat, Cli, Command, ResolveArgs};

fn main() -> ExitCode {
    let cli = Cli::from_env();
    let result = match cli.command {
        Command::Resolve(args) => run_resolve(&args),
        Command::Rewrite(args) => run_rewrite(&args),
        Command::Links(args) => run_links(&args),
        Command::Base(args) => run_base(&args),
        Command::Check(mut args) => match config::apply(&mut args) {
            Ok(()) => run_check(&args),
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
                    linkbase::text::escape_controls(&e.to_string())
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
        eprintln!("linkbase: {}", linkbase::text::escape_controls(s));
    }
    tree.add_to(&mut site);
    tree::set_layout(&mut site, args.layout, &args.dir);
    config::set_lookups(&mut site, args).map_err(Fatal)?;
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
    tree.refuse_nothing_to_check(&rules.skip_pages, &args.dir)?;
    let online = if args.online.online {
        Some(online::Config::from_args(&args.online, &args.dir)?)
    } else {
        None
    };
    let format = args.format;
    let broken_only = args.broken_only;
    set_jobs(args.jobs)?;
    let mut grouped = checkout::Grouped::for_format(format);
    let mut unreadable: Vec<(String, String)> = Vec::new();
    let mut report = |out: &mut dyn Write| -> io::Result<(walk::CheckTotals, walk::Counts)> {
        let mut out = BufWriter::new(out);
        if format == CheckFormat::Tsv {
            writeln!(
                out,
                "file\tverdict\ttarget\t{}",
                linkbase::text::TSV_COLUMNS.join("\t")
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
                let records: &[_] = if broken_only {
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
                                linkbase::text::tsv_escape(&r.file),
                                r.verdict.name(),
                                linkbase::text::tsv_escape(r.target.as_deref().unwrap_or(""))
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
            CheckFormat::Junit => {
                checkout::write_junit(&mut out, &grouped, &totals, &unreadable, &args.dir)?
            }
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
