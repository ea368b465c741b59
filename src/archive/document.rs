//! An archived HTML record through the pipeline: its links, or its rewritten bytes, each
//! report tagged with the record it came from.

use super::record::HtmlRecord;
use crate::error::Error;
use crate::pipeline::{self, Options, Rewritten};
use crate::report::Report;

/// Links of an archived document, each tagged with its record.
///
/// # Errors
/// As [`pipeline::links`]; `name` names the archive.
pub fn links(record: &HtmlRecord, name: &str, options: &Options) -> Result<Report, Error> {
    let mut report = pipeline::links(&record.input(name), options)?;
    tag(&mut report, record);
    Ok(report)
}

/// The rewritten document, its report tagged with its record.
///
/// # Errors
/// As [`pipeline::rewrite`].
pub fn rewrite(record: &HtmlRecord, name: &str, options: &Options) -> Result<Rewritten, Error> {
    let mut out = pipeline::rewrite(&record.input(name), options)?;
    tag(&mut out.report, record);
    Ok(out)
}

fn tag(report: &mut Report, record: &HtmlRecord) {
    report.base.warc = Some(record.reference.clone());
    for l in &mut report.links {
        l.warc = Some(record.reference.clone());
    }
    report.set_content_type(&record.content_type);
}
