//! What a check is told ([`CheckOptions`]) and what it gives, and to whom: each page's
//! records to a [`CheckSink`].

use std::io;
use std::path::PathBuf;

use crate::layout::Layout;
use crate::pipeline::Options;
use crate::site::CheckRecord;

pub use super::settings::OnlineOptions;

/// What `check` is told: the command line's `check` flags, as plain values (the command line
/// merges its settings file into them first).
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// The site's root directory.
    pub dir: PathBuf,
    /// The URL the root is published at (`--site-url`); `None`: the tree as it browses from
    /// disk (`--local`), each page at its own `file:` URL.
    pub site_url: Option<String>,
    /// Under `--local`: the web root /-rooted links start from (`--root-dir`; default: `dir`).
    pub root_dir: Option<PathBuf>,
    /// How file names map to URLs (`--layout`); `None`: detected, and said.
    pub layout: Option<Layout>,
    /// How pages are read: the resolution profile, the default encoding.
    pub options: Options,
    /// Links whose URL matches one of these regular expressions are not checked
    /// (`--exclude`; the tree's `.linkbaseignore` adds its own)…
    pub exclude: Vec<String>,
    /// …unless it matches one of these (`--include`).
    pub include: Vec<String>,
    /// Pages and stylesheets not read for links, as globs of their path below `dir`
    /// (`--exclude-path`).
    pub exclude_path: Vec<String>,
    /// `PREFIX TARGET`: links starting with PREFIX checked as if they started with TARGET, a URL
    /// or a directory of the tree (`--remap`).
    pub remap: Vec<String>,
    /// The names a link to a directory stands for (`--index-files`; `None`: the default).
    pub index_files: Option<Vec<String>>,
    /// Extensions tried for a link to a file the tree does not have (`--fallback-extensions`).
    pub fallback_extensions: Vec<String>,
    /// External links fetched (`--online`); `None`: listed, not fetched.
    pub online: Option<OnlineOptions>,
}

/// One page (or stylesheet) checked: its path below the root and its records, in document
/// order, with what the online check found for its external links.
pub struct Page<'a> {
    /// `/`-separated, relative to the root.
    pub file: &'a str,
    /// The page's records; a sink may take them (`drain`), nothing else reads them after it.
    pub records: &'a mut Vec<CheckRecord>,
    #[cfg(feature = "online")]
    pub(super) online: Option<(&'a super::online::Results, &'a super::filter::CheckRules)>,
}

impl Page<'_> {
    /// What the online check found for `record` (an external link, with `online`).
    #[cfg(feature = "online")]
    pub fn online(&self, record: &CheckRecord) -> Option<&super::online::Outcome> {
        let (results, rules) = self.online?;
        rules.outcome(Some(results), record)
    }

    /// Whether the run checked external links online.
    pub fn is_online(&self) -> bool {
        #[cfg(feature = "online")]
        return self.online.is_some();
        #[cfg(not(feature = "online"))]
        false
    }

    /// The records with their online outcomes, as `check --format jsonl` writes them.
    pub fn with_online(&self) -> Vec<Record<'_>> {
        self.records
            .iter()
            .map(|record| Record {
                record,
                #[cfg(feature = "online")]
                online: self.online(record),
            })
            .collect()
    }
}

/// A record as reported: the link, its verdict and, for an external link checked online, what
/// the check found (`online`).
#[derive(Debug, serde::Serialize)]
pub struct Record<'a> {
    /// The link and its verdict.
    #[serde(flatten)]
    pub record: &'a CheckRecord,
    /// What the online check found.
    #[cfg(feature = "online")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub online: Option<&'a super::online::Outcome>,
}

/// Where a check's findings go, in file order.
pub trait CheckSink {
    /// A page or stylesheet checked.
    fn page(&mut self, page: Page<'_>) -> io::Result<()>;
    /// A page or stylesheet that could not be read, and why: its links are not checked.
    fn unreadable(&mut self, file: &str, why: &str) -> io::Result<()>;
    /// What the run says as it goes (a file skipped, a layout detected, a URL refused), control
    /// characters already escaped: the command line prints it on stderr.
    fn say(&mut self, message: &str);
}
