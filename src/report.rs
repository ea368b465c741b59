//! ⑦ What linkbase tells link checkers: the base of each document and every link with its
//! resolution and base provenance (docs/usage.md, `links` and `base`).

use std::io::{self, Write};

use serde::Serialize;

use crate::base::BaseSource;
use crate::decode::EncodingSource;
use crate::error::{Diagnostic, DiagnosticCode};
use crate::rewrite::{KeptAbsolute, Link, LinkKind, Relinked};

/// One line of `linkbase links`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRecord {
    /// Where the document it is in came from (written around the link's own fields: `part`
    /// first, the rest last).
    pub origin: Origin,
    /// The element's local name.
    pub element: String,
    /// The attribute; `None` for the text of a `<style>` element.
    pub attribute: Option<String>,
    /// The URL as written.
    pub original: String,
    /// Its absolute form, or `None` when it could not be resolved.
    pub resolved: Option<String>,
    /// The base it was resolved against.
    pub base: Option<String>,
    /// Which RFC 2396 §5.1 layer gave that base.
    pub base_source: BaseSource,
    /// It names the current document (RFC 2396 §4.2).
    pub same_document: bool,
    /// The form of the occurrence (`url`, `srcset`, `css`, …).
    pub kind: LinkKind,
    /// `rewrite` changes the document here.
    pub rewritten: bool,
    /// Why it was left as it was, when worth saying.
    pub diagnostic: Option<String>,
    /// 0, or the depth of `iframe srcdoc` documents it sits in.
    pub srcdoc_depth: usize,
    /// In a MIME message: the part the resolved reference names (RFC 2557 §8.2, RFC 2392), when
    /// one does.
    pub target_part: Option<String>,
    /// The line of the value in the document (1-based; see [`crate::Position`]), or `None`
    /// where it was not located. A value inside an `iframe srcdoc` document or `<noscript>`
    /// markup is at its `srcdoc` attribute or the `<noscript>` text; a `srcset` candidate, a
    /// refresh URL or a CSS `url()` at its attribute or `<style>` text.
    pub line: Option<usize>,
    /// The column of the value (1-based, in characters), or `None` with `line`.
    pub column: Option<usize>,
    /// What a relinker made of it (`rewrite --relative`); not part of the JSON record.
    pub relinked: Option<crate::rewrite::Relinked>,
}

impl LinkRecord {
    /// The record with its line and column.
    pub fn at(mut self, position: Option<crate::position::Position>) -> LinkRecord {
        self.line = position.map(|p| p.line);
        self.column = position.map(|p| p.column);
        self
    }

    /// The record of `link`, in MIME part `part`, taking its strings.
    pub fn from_link(link: Link, part: Option<&str>) -> LinkRecord {
        LinkRecord {
            origin: Origin::part(part),
            element: link.element,
            attribute: link.attribute,
            original: link.original,
            resolved: link.resolved,
            base: link.base,
            base_source: link.base_source,
            same_document: link.same_document,
            kind: link.kind,
            rewritten: link.rewritten,
            diagnostic: link.diagnostic.map(|d| d.to_string()),
            srcdoc_depth: link.srcdoc_depth,
            target_part: None,
            line: None,
            column: None,
            relinked: link.relinked,
        }
    }

    /// The record for `link`, in MIME part `part`.
    pub fn new(link: &Link, part: Option<&str>) -> LinkRecord {
        LinkRecord {
            origin: Origin::part(part),
            element: link.element.clone(),
            attribute: link.attribute.clone(),
            original: link.original.clone(),
            resolved: link.resolved.clone(),
            base: link.base.clone(),
            base_source: link.base_source,
            same_document: link.same_document,
            kind: link.kind,
            rewritten: link.rewritten,
            diagnostic: link.diagnostic.as_ref().map(|d| d.to_string()),
            srcdoc_depth: link.srcdoc_depth,
            target_part: None,
            line: None,
            column: None,
            relinked: link.relinked,
        }
    }
}

/// One line of `linkbase base`: the established base of a document and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseRecord {
    /// Where the document came from (written around the record's own fields: `part` first,
    /// the rest last).
    pub origin: Origin,
    /// The base URI, or `None` when no layer gave one.
    pub base: Option<String>,
    /// Which RFC 2396 §5.1 layer gave it.
    pub base_source: BaseSource,
    /// The document's character encoding.
    pub encoding: &'static str,
    /// Where the encoding came from.
    pub encoding_source: EncodingSource,
    /// Non-fatal findings: ignored bases, unknown charset labels, …
    pub diagnostics: Vec<Diagnostic>,
}

/// Where a document came from inside its input: declared once, carried by its [`BaseRecord`]
/// and by each of its [`LinkRecord`]s. Every field is absent for a bare document. A new input
/// format adds its field here (and its line in the printers).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// The MIME part path (`1.2`, an IMAP section), or `None` outside a MIME message.
    pub part: Option<String>,
    /// In a MIME message: whether the document is the message's root document (RFC 2557 §5:
    /// the `start` part of multipart/related, else its first part); absent for a bare document,
    /// which is its own root.
    pub root: Option<bool>,
    /// From a WARC or ARC file: the record it is (`warc_record_id`, `warc_target_uri`,
    /// `warc_date`); absent otherwise.
    pub warc: Option<crate::input::warc::RecordRef>,
    /// In a MIME part, an archived record or an mbox message: the media type the document was
    /// read as, its essence only (RFC 2045 §5.1 `type/subtype`, lower-case; the charset is the
    /// base record's `encoding`). For a record that declared none and was sniffed as HTML,
    /// `text/html`. Absent for a bare document, whose type the caller chose.
    pub content_type: Option<String>,
    /// From an mbox: the message it is in (`mbox_message`, its place from 0, and `message_id`,
    /// its `Message-ID` or null); absent otherwise.
    pub mbox: Option<crate::input::mbox::MboxRef>,
    /// From the tests' toy archive: the entry it is (`toy_entry`, from 0).
    #[cfg(feature = "oracle")]
    #[doc(hidden)]
    pub toy_entry: Option<usize>,
}

impl Origin {
    /// Where the document is, for a line of text that names it: its mbox message's place, its
    /// archived record's target URI, its MIME part's path, outermost first (one each that it
    /// has). Empty for a bare document.
    pub fn places(&self) -> Vec<String> {
        let mut places = Vec::new();
        if let Some(m) = &self.mbox {
            places.push(m.mbox_message.to_string());
        }
        if let Some(record) = &self.warc {
            places.push(record.warc_target_uri.clone().unwrap_or_default());
        }
        #[cfg(feature = "oracle")]
        if let Some(entry) = self.toy_entry {
            places.push(format!("entry {entry}"));
        }
        if let Some(part) = &self.part {
            places.push(part.clone());
        }
        places
    }

    /// The origin of MIME part `part`, or of a bare document (`None`).
    pub fn part(part: Option<&str>) -> Origin {
        Origin {
            part: part.map(str::to_owned),
            ..Origin::default()
        }
    }
}

/// A record's JSON: `part` first, the record's own fields, then the rest of its origin, flat
/// (one level of flattening, as serde writes it fastest): the one definition of where an
/// origin's fields go, for both records. `$r` names the record in the expressions, `$origin` is
/// its origin.
macro_rules! wire {
    ($record:ty, |$r:ident| $origin:expr, { $($field:ident: $ty:ty = $value:expr),* $(,)? }) => {
        impl Serialize for $record {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct Wire<'a> {
                    part: &'a Option<String>,
                    $($field: $ty,)*
                    #[serde(skip_serializing_if = "Option::is_none")]
                    root: Option<bool>,
                    #[serde(flatten, skip_serializing_if = "Option::is_none")]
                    warc: &'a Option<crate::input::warc::RecordRef>,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    content_type: &'a Option<String>,
                    #[serde(flatten, skip_serializing_if = "Option::is_none")]
                    mbox: &'a Option<crate::input::mbox::MboxRef>,
                    #[cfg(feature = "oracle")]
                    #[serde(skip_serializing_if = "Option::is_none")]
                    toy_entry: Option<usize>,
                }
                let $r = self;
                let origin: &Origin = $origin;
                Wire {
                    part: &origin.part,
                    $($field: $value,)*
                    root: origin.root,
                    warc: &origin.warc,
                    content_type: &origin.content_type,
                    mbox: &origin.mbox,
                    #[cfg(feature = "oracle")]
                    toy_entry: origin.toy_entry,
                }
                .serialize(s)
            }
        }
    };
}

// An origin alone is written as a record writes it.
wire!(Origin, |o| o, {});

// The JSON form of a link record (docs/usage.md, `links`).
wire!(LinkRecord, |r| &r.origin, {
    element: &'a str = &r.element,
    attribute: &'a Option<String> = &r.attribute,
    original: &'a str = &r.original,
    resolved: &'a Option<String> = &r.resolved,
    base: &'a Option<String> = &r.base,
    base_source: BaseSource = r.base_source,
    same_document: bool = r.same_document,
    kind: LinkKind = r.kind,
    rewritten: bool = r.rewritten,
    diagnostic: &'a Option<String> = &r.diagnostic,
    srcdoc_depth: usize = r.srcdoc_depth,
    target_part: &'a Option<String> = &r.target_part,
    line: Option<usize> = r.line,
    column: Option<usize> = r.column,
});

// The JSON form of a base record (docs/usage.md, `base`).
wire!(BaseRecord, |r| &r.origin, {
    base: &'a Option<String> = &r.base,
    base_source: BaseSource = r.base_source,
    encoding: &'static str = r.encoding,
    encoding_source: EncodingSource = r.encoding_source,
    diagnostics: &'a [Diagnostic] = &r.diagnostics,
});

/// Everything found in one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The base.
    pub base: BaseRecord,
    /// Every link, in document order.
    pub links: Vec<LinkRecord>,
}

/// How many links of a document were left relative or unresolvable, and why (a
/// `rewrite` that could not make links absolute must not pass for one that did).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnresolvedSummary {
    /// Links that are not same-document references.
    pub links: usize,
    /// Of those, the ones with no absolute resolution.
    pub unresolved: usize,
    /// Why: `no base`, `bad base` (a base layer was given but could not be used), `opaque base`
    /// (RFC 2396 §3: nothing relative resolves against it) or `unresolvable references`.
    pub reason: &'static str,
}

impl std::fmt::Display for UnresolvedSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} link{} left relative or unresolvable ({})",
            self.unresolved,
            self.links,
            if self.links == 1 { "" } else { "s" },
            self.reason
        )
    }
}

impl BaseRecord {
    /// Whether a `<base>` element was taken out of the document (`--drop-base`, `--relative`):
    /// one set the base or was ignored (relative, unusable), and none was kept for links that
    /// need it.
    pub fn base_removed(&self) -> bool {
        let had_one = self.base_source == BaseSource::BaseElement
            || self
                .diagnostics
                .iter()
                .any(|d| d.code == DiagnosticCode::BaseIgnored);
        had_one
            && !self
                .diagnostics
                .iter()
                .any(|d| d.code == DiagnosticCode::BaseKept)
    }
}

impl Report {
    /// Gives the base record and every link record the document's origin.
    pub fn set_origin(&mut self, origin: &Origin) {
        for link in &mut self.links {
            link.origin.clone_from(origin);
        }
        self.base.origin.clone_from(origin);
    }

    /// The links left relative or unresolvable, or `None` when every link (same-document
    /// references aside, which are right as they are) has an absolute resolution.
    pub fn unresolved_summary(&self) -> Option<UnresolvedSummary> {
        let mut tally = LinkTally::default();
        self.links.iter().for_each(|l| tally.add(l));
        tally.unresolved_summary(&self.base)
    }
}

/// The counts of a document's links, for a caller that does not keep them
/// ([`crate::pipeline::rewrite_to`]: `linkbase rewrite` prints only the summary).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkTally {
    /// Links that are not same-document references (those are right as they are).
    pub links: usize,
    /// Of those, the ones with no absolute resolution.
    pub unresolved: usize,
    /// Of the resolved ones, with a relinker ([`crate::RewriteOptions::relink`]): those written
    /// in its form (relative).
    pub relative: usize,
    /// And those left absolute, by reason (indexed as [`KeptAbsolute::ALL`]).
    pub absolute: [usize; KeptAbsolute::ALL.len()],
    /// Links RFC 2396 and the URL Standard resolve differently (`profile-sensitive`).
    pub profile_sensitive: usize,
}

impl LinkTally {
    /// Counts one link.
    pub fn add(&mut self, link: &LinkRecord) {
        let sensitive = link
            .diagnostic
            .as_deref()
            .is_some_and(|d| DiagnosticCode::ProfileSensitive.names(d));
        self.count(link.same_document, link.resolved.is_some(), link.relinked);
        self.profile_sensitive += usize::from(sensitive);
    }

    pub(crate) fn add_link(&mut self, link: &crate::rewrite::Link) {
        let sensitive = link
            .diagnostic
            .as_ref()
            .is_some_and(|d| d.code == DiagnosticCode::ProfileSensitive);
        self.count(link.same_document, link.resolved.is_some(), link.relinked);
        self.profile_sensitive += usize::from(sensitive);
    }

    /// Counts a link the engine did not keep, by what a count reads of it.
    pub(crate) fn add_facts(&mut self, facts: &crate::rewrite::LinkFacts) {
        self.count(facts.same_document, facts.resolved, facts.relinked);
        self.profile_sensitive += usize::from(facts.profile_sensitive);
    }

    fn count(&mut self, same_document: bool, resolved: bool, relinked: Option<Relinked>) {
        if !same_document {
            self.links += 1;
            self.unresolved += usize::from(!resolved);
            match relinked {
                Some(Relinked::Relative) => self.relative += 1,
                Some(Relinked::Absolute(why)) => {
                    if let Some(n) = KeptAbsolute::ALL
                        .iter()
                        .position(|k| *k == why)
                        .and_then(|i| self.absolute.get_mut(i))
                    {
                        *n += 1;
                    }
                }
                None => {}
            }
        }
    }

    /// The links left absolute by a relinker, by reason, in [`KeptAbsolute::ALL`]'s order
    /// (reasons with none left out).
    pub fn left_absolute(&self) -> impl Iterator<Item = (KeptAbsolute, usize)> + '_ {
        KeptAbsolute::ALL
            .into_iter()
            .zip(self.absolute)
            .filter(|(_, n)| *n > 0)
    }

    /// The links left relative or unresolvable, or `None` when there are none.
    pub fn unresolved_summary(&self, base: &BaseRecord) -> Option<UnresolvedSummary> {
        UnresolvedSummary::from_counts(base, self.links, self.unresolved)
    }
}

impl std::ops::AddAssign for LinkTally {
    fn add_assign(&mut self, other: LinkTally) {
        self.links += other.links;
        self.unresolved += other.unresolved;
        self.relative += other.relative;
        self.profile_sensitive += other.profile_sensitive;
        for (a, b) in self.absolute.iter_mut().zip(other.absolute) {
            *a += b;
        }
    }
}

impl UnresolvedSummary {
    /// The summary for a document with this base, `links` links that are not same-document
    /// references and `unresolved` of them without an absolute resolution (for documents whose
    /// links are counted as they stream past rather than kept).
    pub fn from_counts(base: &BaseRecord, links: usize, unresolved: usize) -> Option<Self> {
        let total = links;
        if unresolved == 0 {
            return None;
        }
        let reason = match &base.base {
            None if base
                .diagnostics
                .iter()
                .any(|d| d.code == crate::error::DiagnosticCode::BaseIgnored) =>
            {
                "bad base"
            }
            None => "no base",
            Some(base) if !crate::uri::UriRef::parse(base).is_hierarchical() => "opaque base",
            Some(_) => "unresolvable references",
        };
        Some(UnresolvedSummary {
            links: total,
            unresolved,
            reason,
        })
    }
}

/// Writes records as JSON Lines.
///
/// # Errors
/// The writer's.
pub fn write_jsonl<T: Serialize>(out: &mut impl Write, records: &[T]) -> io::Result<()> {
    for record in records {
        serde_json_line(out, record)?;
    }
    Ok(())
}

fn serde_json_line<T: Serialize>(out: &mut impl Write, record: &T) -> io::Result<()> {
    write_json(&mut *out, record, false)?;
    out.write_all(b"\n")
}

/// Writes `value` as JSON (indented when `pretty`), with every character [`needs_escape`]
/// names escaped as `\uXXXX`: serde_json escapes only C0 controls, so DEL, C1 controls and
/// bidirectional controls would otherwise reach a terminal or viewer raw (RFC 8259 §7 allows
/// any character to be escaped).
///
/// # Errors
/// The writer's.
pub fn write_json<T: Serialize + ?Sized>(
    out: &mut impl Write,
    value: &T,
    pretty: bool,
) -> io::Result<()> {
    // `From` keeps an I/O error's kind (a broken pipe stays a broken pipe).
    if pretty {
        let formatter = Escaping(serde_json::ser::PrettyFormatter::new());
        value
            .serialize(&mut serde_json::Serializer::with_formatter(out, formatter))
            .map_err(io::Error::from)
    } else {
        let formatter = Escaping(serde_json::ser::CompactFormatter);
        value
            .serialize(&mut serde_json::Serializer::with_formatter(out, formatter))
            .map_err(io::Error::from)
    }
}

/// A serde_json formatter that writes [`needs_escape`] characters as `\uXXXX`; the rest is
/// the wrapped formatter's.
struct Escaping<F>(F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = rest.char_indices().find(|&(_, c)| needs_escape(c)) {
            writer.write_all(rest.get(..at).unwrap_or_default().as_bytes())?;
            // Every character of the set is in the Basic Multilingual Plane: one escape.
            write!(writer, "\\u{:04x}", u32::from(c))?;
            rest = rest.get(at + c.len_utf8()..).unwrap_or_default();
        }
        writer.write_all(rest.as_bytes())
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// The characters every output escapes: C0, DEL and C1 controls (Unicode `Cc`); the
/// bidirectional formatting characters of UAX #9 §2 (ALM U+061C, LRM/RLM U+200E–F, the
/// embeddings and overrides U+202A–E, the isolates U+2066–9); and the line and paragraph
/// separators U+2028–9, which some viewers break lines at.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// One line of `resolve --format jsonl`: a reference, its resolution (or why there is none).
#[derive(Debug, Clone, Serialize)]
pub struct ResolveRecord<'a> {
    /// The reference as given.
    #[serde(rename = "ref")]
    pub reference: &'a str,
    /// Its absolute form, or `None` when it could not be resolved.
    pub resolved: Option<&'a str>,
    /// Whether it names the base document itself (RFC 2396 §4.2).
    pub same_document: bool,
    /// Why it could not be resolved.
    pub error: Option<String>,
}
