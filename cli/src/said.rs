//! What a run of `links`, `base` or `rewrite` says on stderr, whatever the input: each
//! document's trouble as its role calls for (the whole input's ignored layers and links left
//! relative; a MIME message's parts skipped or read past damage, said together when the message
//! ends; an archived record that could not be read), what the input holds that was not read,
//! and the closing line of an input of many documents; and the exit code that calls for.

use linkbase::report::{BaseRecord, LinkTally, Report};
use linkbase::source::{Document, MessageEnd, Role, Skipped, Source, WriteBack};
use linkbase::verb::Done;
use linkbase::{Diagnostic, DiagnosticCode};

use crate::args::RewriteArgs;
use crate::Exit;
use linkbase::text as say;
use linkbase::text::escape_controls;

/// Which verb is running: what is said depends on it.
#[derive(Clone, Copy)]
pub(crate) enum Verb<'a> {
    Links,
    Base,
    Rewrite(&'a RewriteArgs),
}

/// The stderr of one run, and what its exit code needs.
pub(crate) struct Said<'a> {
    verb: Verb<'a>,
    /// The records of the MIME message being read, said together when it ends.
    message: Vec<(BaseRecord, LinkTally)>,
    /// Messages with trouble said.
    problems: u64,
    /// Archived records that could not be read or written back.
    failed: u64,
    /// The whole input left links relative, and `--fail-on-unresolved` asks for exit 1.
    unresolved: bool,
}

impl<'a> Said<'a> {
    pub(crate) fn new(verb: Verb<'a>) -> Said<'a> {
        Said {
            verb,
            message: Vec::new(),
            problems: 0,
            failed: 0,
            unresolved: false,
        }
    }

    /// A document done, or why it could not be read.
    pub(crate) fn document(&mut self, d: &Document<'_>, done: Result<Done, linkbase::Error>) {
        let done = match done {
            Ok(done) => done,
            Err(e) => {
                self.failed += 1;
                eprintln!(
                    "linkbase: {}: {}: {}",
                    escape_controls(&d.name),
                    escape_controls(&d.describe().unwrap_or_default()),
                    escape_controls(&e.to_string())
                );
                return;
            }
        };
        match (d.role(), self.verb) {
            (Role::Part, _) => self.message.push((done.base, done.links)),
            (Role::Whole, Verb::Rewrite(args)) => self.whole(args, &d.name, &done),
            (Role::Record, Verb::Rewrite(_)) => say_reserialized(&d.name, &done.base),
            _ => {}
        }
    }

    /// What `rewrite` says of the whole input: the layers it ignored, a document written from
    /// its tree, the links it left relative, a `<base>` `--relative` removed.
    fn whole(&mut self, args: &RewriteArgs, name: &str, done: &Done) {
        let base = &done.base;
        for d in &base.diagnostics {
            if matches!(
                d.code,
                DiagnosticCode::BaseIgnored
                    | DiagnosticCode::HeaderIgnored
                    | DiagnosticCode::Reserialized
            ) {
                say_diagnostic(name, base, d);
            }
        }
        let name = escape_controls(name);
        let unresolved = done.links.unresolved_summary(base);
        if let Some(summary) = &unresolved {
            eprintln!("linkbase: {name}: {summary}");
        }
        say_base_removed_by_relative(args, &name, std::slice::from_ref(base));
        self.unresolved |= unresolved.is_some() && args.fail_on_unresolved;
    }

    /// The record of a part not read.
    pub(crate) fn unread(&mut self, record: BaseRecord) {
        self.message.push((record, LinkTally::default()));
    }

    /// What was not read as a document: what is said of it makes the run exit 1.
    pub(crate) fn skipped(&mut self, s: &Skipped) {
        for line in &s.said {
            eprintln!("linkbase: {}", escape_controls(line));
        }
        self.problems += u64::from(!s.said.is_empty());
    }

    /// A MIME message's documents have all come: its trouble, said together.
    pub(crate) fn message_end(&mut self, end: &MessageEnd) {
        let records = std::mem::take(&mut self.message);
        let trouble = match self.verb {
            Verb::Rewrite(args) => say_message(args, &end.name, &records) == Exit::Problems,
            _ => say_skipped(&end.name, records.iter().map(|(b, _)| b)) > 0,
        };
        self.problems += u64::from(trouble);
    }

    /// A rewritten record the archive could not take back: why.
    pub(crate) fn refused(&mut self, why: &str) {
        self.failed += 1;
        eprintln!("linkbase: {}", escape_controls(why));
    }

    /// The closing line of an input of many documents (what was read; `tail`: what a rewrite
    /// wrote, where, its time), and the run's exit code: 1 for trouble said, records that could
    /// not be read, an input not read whole.
    pub(crate) fn finish(self, source: &Source<'_>, tail: &str) -> Exit {
        let summary = source.summary();
        if let Some(summary) = &summary {
            let failed = if self.failed > 0 {
                format!(
                    ", {} could not be processed",
                    say::n(self.failed, "HTML record")
                )
            } else {
                String::new()
            };
            eprintln!(
                "linkbase: {}: {summary}{failed}{tail}",
                escape_controls(source.name())
            );
        }
        let incomplete = summary.is_some_and(|s| s.incomplete());
        if self.problems > 0 || self.failed > 0 || incomplete || self.unresolved {
            Exit::Problems
        } else {
            Exit::Ok
        }
    }
}

/// `rewrite FILE --relative` without --drop-base: says that a `<base>` element went, when one
/// did (and only then).
pub(crate) fn say_base_removed_by_relative(args: &RewriteArgs, name: &str, bases: &[BaseRecord]) {
    if args.relative && !args.drop_base && bases.iter().any(BaseRecord::base_removed) {
        eprintln!(
            "linkbase: {name}: --relative: the <base> element is removed (it would redirect the relative links)"
        );
    }
}

/// What a rewrite of an archive adds to its closing line: what it changed.
pub(crate) fn written(source: &Source<'_>) -> Option<String> {
    match source.write_back() {
        WriteBack::Conversions { .. } => {
            Some(say::n(source.changed(), "conversion record") + " added")
        }
        WriteBack::InPlace { .. } => {
            Some(say::n(source.changed(), "record") + " rewritten in place")
        }
        _ => None,
    }
}

/// What the rewrite of a message (`name`: the input, or an mbox's message) says on stderr: the
/// links each part left relative, the parts skipped, a base `--relative` removed; and the exit
/// code that calls for.
fn say_message(args: &RewriteArgs, name: &str, records: &[(BaseRecord, LinkTally)]) -> Exit {
    let mut unresolved = None;
    for (base, links) in records {
        if let Some(summary) = links.unresolved_summary(base) {
            eprintln!(
                "linkbase: {} part {}: {summary}",
                escape_controls(name),
                base.origin.part.as_deref().unwrap_or("?")
            );
            unresolved = Some(summary);
        }
    }
    let skipped = say_skipped(name, records.iter().map(|(b, _)| b));
    let bases: Vec<_> = records.iter().map(|(b, _)| b.clone()).collect();
    say_base_removed_by_relative(args, &escape_controls(name), &bases);
    match unresolved {
        _ if skipped > 0 => Exit::Problems,
        Some(_) if args.fail_on_unresolved => Exit::Problems,
        _ => Exit::Ok,
    }
}

/// One diagnostic of `base` on stderr, `linkbase: NAME[ part P]: code[ at offset N]: message`,
/// control characters made visible. A message's own diagnostics name their part in the message;
/// a part's own diagnostics get its name here.
pub(crate) fn say_diagnostic(name: &str, base: &BaseRecord, d: &Diagnostic) {
    let name = escape_controls(name);
    let said = d.to_string();
    let said = escape_controls(&said);
    match base.origin.part.as_deref() {
        Some(part) if !d.message.starts_with("part ") => {
            eprintln!("linkbase: {name} part {}: {said}", escape_controls(part))
        }
        _ => eprintln!("linkbase: {name}: {said}"),
    }
}

/// A document or MIME part `rewrite` wrote from its parsed tree (its `reserialized`
/// diagnostic), said on stderr: more than its URL values changed.
pub(crate) fn say_reserialized(name: &str, base: &BaseRecord) {
    for d in &base.diagnostics {
        if d.code == DiagnosticCode::Reserialized {
            say_diagnostic(name, base, d);
        }
    }
}

/// Says on stderr each MIME part of a message that was not read or not rewritten (its
/// `part-skipped` diagnostics) and each structure read past damage (its `mime-malformed`
/// diagnostics), then how many of each: such a run exits 1. Returns the counts.
pub(crate) fn say_skipped_parts(name: &str, reports: &[Report]) -> usize {
    say_skipped(name, reports.iter().map(|r| &r.base))
}

fn say_skipped<'r>(name: &str, bases: impl Iterator<Item = &'r BaseRecord> + Clone) -> usize {
    for base in bases.clone() {
        say_reserialized(name, base);
    }
    let (mut skipped, mut malformed) = (0, 0);
    for base in bases {
        for d in &base.diagnostics {
            match d.code {
                DiagnosticCode::PartSkipped => skipped += 1,
                DiagnosticCode::MimeMalformed => malformed += 1,
                _ => continue,
            }
            say_diagnostic(name, base, d);
        }
    }
    let name = escape_controls(name);
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
