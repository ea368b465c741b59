//! `linkbase.check`: a site's tree checked as `linkbase check DIR` does it, through the
//! library's `check::run`, with the GIL released; its records (the fields of the CLI's JSON
//! Lines) and totals made into Python objects at the end.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use linkbase::check::{
    CheckError, CheckOptions, CheckSink, NoProgress, OnlineOptions, Page, Record,
};
use linkbase::pipeline::Options;
use linkbase::site::CheckRecord;
use linkbase::verb::Workers;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::topy::to_python;
use crate::{profile, run, Error, UsageError};

/// The pages of a check on `n` threads of their own.
struct Threads(usize);

impl Workers for Threads {
    fn each(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..self.0.min(count).max(1) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    task(i);
                });
            }
        });
    }
}

/// A record and what the online check found of it, kept until the GIL is taken again.
struct Kept {
    record: CheckRecord,
    online: Option<linkbase::check::online::Outcome>,
}

/// What a check gives Python.
#[derive(Default)]
struct Collect {
    records: Vec<Kept>,
    broken_only: bool,
    unreadable: Vec<(String, String)>,
    messages: Vec<String>,
}

impl CheckSink for Collect {
    fn page(&mut self, page: Page<'_>) -> std::io::Result<()> {
        for record in page.records.iter() {
            if self.broken_only && !record.verdict.is_broken() {
                continue;
            }
            self.records.push(Kept {
                online: page.online(record).cloned(),
                record: record.clone(),
            });
        }
        Ok(())
    }

    fn unreadable(&mut self, file: &str, why: &str) -> std::io::Result<()> {
        self.unreadable.push((file.to_owned(), why.to_owned()));
        Ok(())
    }

    fn say(&mut self, message: &str) {
        self.messages.push(message.to_owned());
    }
}

/// The site at `path` checked for broken links, as `linkbase check` does it.
///
/// Arguments:
///     path: the site's root directory (str or os.PathLike).
///     site_url: the URL the root is published at; each file's URL is this joined with its path.
///     local: instead of site_url, the tree as it browses from disk (each page at its file: URL;
///         absolute http(s) links are external). One of site_url and local is needed.
///     online: fetch the external links (http(s)), check mailto:/tel: by syntax.
///     allow_private: with online, requests may go to addresses that are not globally reachable
///         (loopback, private networks): refused by default, as the CLI's --allow-private.
///     exclude, include, exclude_path, remap, index_files, fallback_extensions: as the CLI's
///         flags of the same names (lists of str; index_files None: the default).
///     profile: rfc2396 (default), rfc1808, rfc3986 or whatwg.
///     default_charset: the encoding of a page that declares none (a WHATWG label), instead of
///         windows-1252.
///     timeout, max_retries, max_redirects, accept, user_agent, headers: as the CLI's --online
///         flags (headers: "HOST: NAME: VALUE" strings).
///     broken_only: only the broken links' records.
///     jobs: threads reading pages (default: every core).
///
/// Returns:
///     A dict: "records", a list of dicts with the fields of `check --format jsonl` (file,
///     verdict, target, the link's fields, and "online" for an external link checked online);
///     "totals", the counts of the summary line (pages, links, internal, external, broken, …);
///     "failed", files that could not be checked; "unreadable", [file, why] pairs; "messages",
///     what the CLI says on stderr.
///
/// Raises:
///     UsageError: no site_url nor local, both, or a bad option, a directory that is not one,
///         a tree with nothing to check.
///
/// Example:
///     >>> import linkbase, pathlib, tempfile
///     >>> d = pathlib.Path(tempfile.mkdtemp())
///     >>> _ = (d / "index.html").write_text('<a href="gone.html">x</a>')
///     >>> r = linkbase.check(d, site_url="https://example.org/")
///     >>> [(x["file"], x["verdict"], x["target"]) for x in r["records"]]
///     [('index.html', 'missing', 'gone.html')]
#[pyfunction]
#[pyo3(signature = (
    path, *, site_url = None, local = false, online = false, allow_private = false,
    exclude = Vec::new(), include = Vec::new(), exclude_path = Vec::new(), remap = Vec::new(),
    index_files = None, fallback_extensions = Vec::new(), profile = "rfc2396", default_charset = None,
    timeout = "20s".to_owned(), max_retries = 3, max_redirects = 10,
    accept = "200..=299".to_owned(), user_agent = None, headers = Vec::new(),
    broken_only = false, jobs = None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn check<'py>(
    py: Python<'py>,
    path: PathBuf,
    site_url: Option<String>,
    local: bool,
    online: bool,
    allow_private: bool,
    exclude: Vec<String>,
    include: Vec<String>,
    exclude_path: Vec<String>,
    remap: Vec<String>,
    index_files: Option<Vec<String>>,
    fallback_extensions: Vec<String>,
    profile: &str,
    default_charset: Option<&str>,
    timeout: String,
    max_retries: usize,
    max_redirects: usize,
    accept: String,
    user_agent: Option<String>,
    headers: Vec<String>,
    broken_only: bool,
    jobs: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    match (&site_url, local) {
        (None, false) => {
            return Err(UsageError::new_err(
                "check needs site_url (the URL the tree is published at) or local=True (the \
                 tree as it browses from disk)",
            ))
        }
        (Some(_), true) => {
            return Err(UsageError::new_err(
                "site_url and local=True: one or the other",
            ))
        }
        _ => {}
    }
    let mut options = Options::default();
    options.rewrite.resolve = linkbase::ResolveOptions::for_profile(self::profile(profile)?);
    options.default_encoding = Options::default_encoding_for(default_charset, "default_charset")
        .map_err(UsageError::new_err)?;
    let options = CheckOptions {
        dir: path,
        site_url,
        options,
        exclude,
        include,
        exclude_path,
        remap,
        index_files,
        fallback_extensions,
        online: online.then(|| OnlineOptions {
            allow_private,
            timeout,
            max_retries,
            max_redirects,
            accept,
            user_agent,
            headers,
            ..OnlineOptions::default()
        }),
        ..CheckOptions::default()
    };
    let threads = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let (collect, summary) = run(py, || {
        let mut collect = Collect {
            broken_only,
            ..Collect::default()
        };
        let summary = linkbase::check::run(&options, &Threads(threads), &NoProgress, &mut collect)
            .map_err(|e| match e {
                CheckError::Unusable(why) => UsageError::new_err(why),
                e => Error::new_err(e.to_string()),
            })?;
        Ok((collect, summary))
    })?;
    let records: Vec<Record<'_>> = collect
        .records
        .iter()
        .map(|k| Record {
            record: &k.record,
            online: k.online.as_ref(),
        })
        .collect();
    let out = PyDict::new(py);
    out.set_item("records", to_python(py, &records)?)?;
    out.set_item("totals", to_python(py, &summary.totals)?)?;
    out.set_item("failed", summary.failed)?;
    out.set_item("unreadable", collect.unreadable)?;
    out.set_item("messages", collect.messages)?;
    Ok(out.into_any())
}
