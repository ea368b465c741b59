//! An archived HTML record through the pipeline: its links, or its rewritten bytes, each
//! report tagged with the record it came from.

use super::record::HtmlRecord;
use crate::error::Error;
use crate::pipeline::{self, Options, Rewritten};
use crate::report::{BaseRecord, Report};

/// Links of an archived document, each tagged with its record.
///
/// # Errors
/// As [`pipeline::links`]; `name` names the archive.
pub fn links(record: &HtmlRecord, name: &str, options: &Options) -> Result<Report, Error> {
    let mut report = pipeline::links(&record.input(name), options)?;
    tag(&mut report, record);
    Ok(report)
}

/// The base record of an archived document, tagged with its record; its links are counted,
/// not kept ([`pipeline::base`]).
///
/// # Errors
/// As [`pipeline::base`]; `name` names the archive.
pub fn base(record: &HtmlRecord, name: &str, options: &Options) -> Result<BaseRecord, Error> {
    let mut report = Report {
        base: pipeline::base(&record.input(name), options)?,
        links: Vec::new(),
    };
    tag(&mut report, record);
    Ok(report.base)
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
    report.set_origin(&crate::report::Origin {
        warc: Some(record.reference.clone()),
        content_type: Some(record.content_type.clone()),
        ..crate::report::Origin::default()
    });
}
