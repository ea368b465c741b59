//! `check DIR`: the flags (merged with the settings file by `config.rs`) made into the library's
//! options, `linkbase::check::run` on them, its records printed in the chosen format, its
//! summary said, its exit code.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;

use linkbase::check::{self, CheckOptions, CheckSink, CheckTotals, Grouped, OnlineOptions, Page};
use linkbase::pipeline::Options;
use linkbase::report::write_jsonl;
use linkbase::text::{escape_controls, tsv_escape, write_tsv, TSV_COLUMNS};

use crate::args::{CheckArgs, CheckFormat, OnlineArgs};
use crate::load::default_encoding;
use crate::verbs::Pool;
use crate::walk::Progress;
use crate::{config, set_jobs, with_output, Exit, Failure, Fatal};

/// `check DIR --site-url URL` (or `--local`).
pub(crate) fn run_check(args: &CheckArgs) -> Result<Exit, Failure> {
    let mut options = Options::default();
    options.rewrite.resolve = args.resolution.options();
    options.default_encoding = default_encoding(
        args.default_charset.as_deref(),
        "--default-charset (--charset)",
    )?;
    let options = CheckOptions {
        dir: args.dir.clone(),
        site_url: args.site_url.clone(),
        root_dir: args.root_dir.clone(),
        layout: crate::tree::layout(args.layout),
        options,
        exclude: args.exclude.clone(),
        include: args.include.clone(),
        exclude_path: args.exclude_path.clone(),
        remap: args.remap.clone(),
        index_files: args.index_files.clone(),
        fallback_extensions: args.fallback_extensions.clone(),
        online: args.online.online.then(|| online_options(&args.online)),
    };
    // A bad name is said with where it came from (the flag, or the settings file and its key).
    let mut probe = linkbase::site::Site::new("file:///").map_err(Fatal::from)?;
    config::set_lookups(&mut probe, args).map_err(Fatal)?;
    set_jobs(args.jobs)?;
    let format = args.format;
    let mut printer = Printer {
        grouped: Grouped::new(matches!(format, CheckFormat::Jsonl | CheckFormat::Tsv)),
        unreadable: Vec::new(),
        format,
        broken_only: args.broken_only,
    };
    let progress = Progress::new(0, "check: ids", "pages");
    with_output(args.output.as_deref(), |out| {
        let mut out = BufWriter::new(out);
        if format == CheckFormat::Tsv {
            writeln!(out, "file\tverdict\ttarget\t{}", TSV_COLUMNS.join("\t"))?;
        }
        let mut sink = Sink {
            printer: &mut printer,
            out: &mut out,
        };
        let summary = check::run(&options, &Pool, &progress, &mut sink).map_err(|e| match e {
            check::CheckError::Io(e) => Failure::from(e),
            e => Fatal(e.to_string()).into(),
        })?;
        let totals = &summary.totals;
        printer.finish(&mut out, totals, &args.dir)?;
        out.flush()?;
        // Said on stderr in every format, so a CI log shows it whatever the report's form;
        // once on a terminal.
        if check::summary_on_stderr(
            matches!(
                format,
                CheckFormat::Human | CheckFormat::Markdown | CheckFormat::Github
            ),
            args.output.is_none(),
            io::stdout().is_terminal(),
            io::stderr().is_terminal(),
        ) {
            eprintln!(
                "linkbase: check: {}",
                check::summary(totals, printer.grouped.targets().len())
            );
        }
        Ok(if summary.failed > 0 {
            Exit::Unusable
        } else if totals.broken > 0 || (args.fail_on_unchecked && totals.unchecked() > 0) {
            Exit::Problems
        } else {
            Exit::Ok
        })
    })
}

/// The `--online` flags, as the library takes them.
fn online_options(a: &OnlineArgs) -> OnlineOptions {
    OnlineOptions {
        accept: a.accept.clone(),
        timeout: a.timeout.clone(),
        max_time: a.max_time.clone(),
        max_retries: a.max_retries,
        retry_wait: a.retry_wait.clone(),
        max_redirects: a.max_redirects,
        max_concurrency: a.max_concurrency,
        host_concurrency: a.host_concurrency,
        host_interval: a.host_interval.clone(),
        allow_private: a.allow_private,
        insecure: a.insecure,
        cacert: a.cacert.clone(),
        user_agent: a.user_agent.clone(),
        headers: a.headers.clone(),
        cache: a.cache.clone(),
        cache_below: a.cache_below.clone(),
        max_cache_age: a.max_cache_age.clone(),
    }
}

/// What the report keeps across pages: the broken targets, the pages that could not be read.
struct Printer {
    grouped: Grouped,
    unreadable: Vec<(String, String)>,
    format: CheckFormat,
    broken_only: bool,
}

impl Printer {
    /// One page's records, printed as they come in the formats that list every record, kept
    /// for the grouped report (and the summary's count of broken targets) in every format.
    fn page(&mut self, out: &mut BufWriter<&mut dyn Write>, page: Page<'_>) -> io::Result<()> {
        let listed = matches!(self.format, CheckFormat::Jsonl | CheckFormat::Tsv);
        if listed {
            // `--broken-only`: a 178k-link site writes 78 MB of records, nearly all `ok`.
            let all = page.with_online();
            let records = all
                .iter()
                .filter(|r| !self.broken_only || r.record.verdict.is_broken());
            match self.format {
                CheckFormat::Jsonl if page.is_online() => {
                    let kept: Vec<_> = records.collect();
                    write_jsonl(out, &kept)?;
                }
                CheckFormat::Jsonl => {
                    let kept: Vec<_> = records.map(|r| r.record).collect();
                    write_jsonl(out, &kept)?;
                }
                _ => {
                    for r in records.map(|r| r.record) {
                        let mut line = Vec::new();
                        write_tsv(&mut line, std::slice::from_ref(&r.link), false, false)?;
                        write!(
                            out,
                            "{}\t{}\t{}\t",
                            tsv_escape(&r.file),
                            r.verdict.name(),
                            tsv_escape(r.target.as_deref().unwrap_or(""))
                        )?;
                        out.write_all(&line)?;
                    }
                }
            }
        }
        self.grouped.add(page);
        Ok(())
    }

    /// The grouped report, after the last page.
    fn finish(&self, mut out: &mut dyn Write, totals: &CheckTotals, dir: &Path) -> io::Result<()> {
        let grouped = &self.grouped;
        match self.format {
            CheckFormat::Human => check::write_human(&mut out, grouped, totals),
            CheckFormat::Json => check::write_json(&mut out, grouped, totals),
            CheckFormat::Markdown => check::write_markdown(&mut out, grouped, totals),
            CheckFormat::Junit => {
                check::write_junit(&mut out, grouped, totals, &self.unreadable, dir)
            }
            CheckFormat::Github => check::write_github(&mut out, grouped, totals, dir),
            CheckFormat::Sarif => check::write_sarif(&mut out, grouped, dir),
            CheckFormat::Jsonl | CheckFormat::Tsv => Ok(()),
        }
    }
}

/// The run's sink: pages to the printer, what the run says to stderr.
struct Sink<'a, 'w> {
    printer: &'a mut Printer,
    out: &'a mut BufWriter<&'w mut dyn Write>,
}

impl CheckSink for Sink<'_, '_> {
    fn page(&mut self, page: Page<'_>) -> io::Result<()> {
        self.printer.page(self.out, page)
    }

    fn unreadable(&mut self, file: &str, why: &str) -> io::Result<()> {
        self.printer
            .unreadable
            .push((file.to_owned(), why.to_owned()));
        eprintln!(
            "linkbase: {}: {}",
            escape_controls(file),
            escape_controls(why)
        );
        Ok(())
    }

    fn say(&mut self, message: &str) {
        eprintln!("linkbase: {message}");
    }
}
