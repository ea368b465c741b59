//! `check DIR`: a site's tree checked for broken links, as the command line's `check` does it,
//! offline and (with the `online` feature) online. The stages, in data-flow order: the options
//! and what the check gives (`options.rs`), what it leaves alone (`filter.rs`), the run
//! (`run.rs`: the tree walked, pages read for their ids, external links checked online, links
//! checked), the external links fetched (`online/`), and the reports made of its records
//! (`report.rs`: human, JSON, Markdown, JUnit; `ci.rs`: GitHub annotations, SARIF).
//!
//! ```no_run
//! use linkbase::check::{self, CheckOptions, CheckSink, NoProgress, Page};
//!
//! struct Broken(usize);
//! impl CheckSink for Broken {
//!     fn page(&mut self, page: Page<'_>) -> std::io::Result<()> {
//!         self.0 += page.records.iter().filter(|r| r.verdict.is_broken()).count();
//!         Ok(())
//!     }
//!     fn unreadable(&mut self, _: &str, _: &str) -> std::io::Result<()> {
//!         Ok(())
//!     }
//!     fn say(&mut self, message: &str) {
//!         eprintln!("{message}");
//!     }
//! }
//!
//! let options = CheckOptions {
//!     dir: "site".into(),
//!     site_url: Some("https://example.org/".into()),
//!     ..CheckOptions::default()
//! };
//! let mut broken = Broken(0);
//! let summary = check::run(&options, &linkbase::InOrder, &NoProgress, &mut broken)?;
//! assert_eq!(summary.totals.broken, broken.0);
//! # Ok::<(), linkbase::check::CheckError>(())
//! ```

mod settings;
mod options;
mod filter;
mod run;
#[cfg(feature = "online")]
pub mod online;
mod report;
mod ci;

pub use ci::{write_github, write_sarif};
pub use filter::{path_globs, CheckRules, Filter, Remap, IGNORE_FILE, MAX_IGNORE_FILE};
pub use options::{CheckOptions, CheckSink, Page, Record};
pub use report::{
    page_path, summary, summary_on_stderr, write_human, write_json, write_junit, write_markdown,
    BrokenTarget, Grouped, Referrer,
};
pub use run::{run, CheckError, CheckTotals, Summary};
pub use settings::{NoProgress, OnlineOptions, Progress};
