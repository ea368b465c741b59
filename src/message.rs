//! MIME messages through the pipeline: each `text/html` body part gets its base from its
//! headings (docs/mhtml.md §4), goes through the HTML stages, has its references matched to the
//! message's parts (RFC 2557 §8.2, RFC 2392), and — when rewritten — is re-encoded in its own
//! charset, Content-Transfer-Encoding and line endings and put back where it was. Every other
//! byte of the message is copied as it was.

use std::collections::HashMap;
use std::ops::Range;

use base64::Engine as _;

use crate::base::{heading_base, layer_value, BaseLayers, Outer};
use crate::error::{Diagnostic, Error};
use crate::input::mime::{self, MessageTree, PartKind};
use crate::pipeline::{analyse_html, report, reserialized, write_out, Options};
use crate::report::{BaseRecord, Origin, Report};

pub mod mbox;
pub mod page;

/// A MIME message and what is known about it from outside.
#[derive(Debug, Clone, Default)]
pub struct MessageInput<'a> {
    /// How to name it in errors.
    pub name: &'a str,
    /// The message's bytes.
    pub bytes: &'a [u8],
    /// Outer layers: `--url` (RFC 2557 §5(d)), `--default-base`; `--content-base` and
    /// `--content-location` act as a heading around the whole message.
    pub layers: BaseLayers,
}

/// The output of [`rewrite_message`].
#[derive(Debug, Clone)]
pub struct RewrittenMessage {
    /// The message with its changed HTML parts re-encoded in place.
    pub bytes: Vec<u8>,
    /// One report per HTML part, in message order.
    pub reports: Vec<Report>,
}

/// Rewrites the HTML parts of a MIME message.
///
/// # Errors
/// [`Error::Decode`] when the input is not a readable MIME message, [`Error::BadBase`] for an
/// unusable `--url` / `--default-base`. Trouble inside one part only leaves that part as it was,
/// with a diagnostic in its report.
pub fn rewrite_message(
    input: &MessageInput<'_>,
    options: &Options,
) -> Result<RewrittenMessage, Error> {
    let done = process(input, options, Mode::Rewrite)?;
    Ok(RewrittenMessage {
        bytes: done.bytes,
        reports: done.reports,
    })
}

/// The links of every HTML part of a MIME message.
///
/// # Errors
/// As [`rewrite_message`].
pub fn links_message(input: &MessageInput<'_>, options: &Options) -> Result<Vec<Report>, Error> {
    Ok(process(input, options, Mode::Links)?.reports)
}

/// What [`process`] does with the HTML and CSS parts.
#[derive(Clone, Copy)]
pub(crate) enum Mode<'a> {
    /// Read and report only.
    Links,
    /// Rewrite, spliced back into the message in each part's own transfer encoding.
    Rewrite,
    /// Rewrite for files of their own ([`page`]): each changed part's new body kept decoded,
    /// whatever its transfer encoding; part `i`'s links written by its relinker, when it has
    /// one.
    Extract(&'a HashMap<usize, crate::Relinker>),
}

/// What [`process`] made.
pub(crate) struct Processed {
    /// The message with its changed parts put back ([`Mode::Rewrite`]).
    pub bytes: Vec<u8>,
    /// One report per HTML and CSS part, in message order, then the parts not read.
    pub reports: Vec<Report>,
    /// [`Mode::Extract`]: each changed part's new body (its charset, no transfer encoding).
    pub bodies: HashMap<usize, Vec<u8>>,
}

/// Each part's Content-Location resolved against the headings around it (RFC 2557 §8.2(c)):
/// what a reference is matched against, and what names a part's file ([`page`]).
pub(crate) fn part_keys(
    tree: &MessageTree,
    layers: &BaseLayers,
    resolve: crate::ResolveOptions,
) -> Vec<Option<String>> {
    (0..tree.parts.len())
        .map(|i| {
            let part = tree.parts.get(i)?;
            let location = part.content_location.as_deref()?;
            let base = heading_base(
                &headings(tree, i, layers),
                layers,
                resolve,
                false,
                &mut Vec::new(),
            );
            layer_value(location, &base, resolve)
                .ok()
                .map(|u| u.to_string())
        })
        .collect()
}

pub(crate) fn process(
    input: &MessageInput<'_>,
    options: &Options,
    mode: Mode<'_>,
) -> Result<Processed, Error> {
    let rewrite = !matches!(mode, Mode::Links);
    let relinkers = match mode {
        Mode::Extract(r) => Some(r),
        _ => None,
    };
    let mut bodies = HashMap::new();
    // The caller's own statements are checked like a bare document's.
    crate::base::outer_base(
        &BaseLayers {
            content_base: None,
            content_location: None,
            ..input.layers.clone()
        },
        options.rewrite.resolve,
        &mut Vec::new(),
    )?;
    let tree = mime::parse(input.bytes).map_err(|source| Error::Message {
        input: input.name.to_owned(),
        source,
    })?;
    let resolve = options.rewrite.resolve;
    let keys = part_keys(&tree, &input.layers, resolve);
    let index = PartIndex::new(&tree, &keys);
    let root = tree.root_document();
    let mut reports = Vec::new();
    let mut splices: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
    let tree_diagnostics = &tree.diagnostics;
    for (i, part) in tree.parts.iter().enumerate() {
        if part.kind == PartKind::Leaf && part.mime_type == "text/css" {
            let first = reports.is_empty();
            let relink = relinkers.and_then(|r| r.get(&i));
            let (mut report, new_css) =
                css_part(&tree, &index, i, input, options, (rewrite, relink));
            if let Some(css) = new_css {
                if relinkers.is_some() {
                    bodies.insert(i, css);
                } else if let (Some(span), Some(encoded)) = (
                    &part.body,
                    transfer_encode(&css, &part.transfer_encoding, part.eol),
                ) {
                    splices.push((span.clone(), encoded));
                }
            }
            if first {
                let mut all = tree_diagnostics.clone();
                all.append(&mut report.base.diagnostics);
                report.base.diagnostics = all;
            }
            report.set_origin(&Origin {
                root: Some(Some(i) == root),
                content_type: Some(part.mime_type.clone()),
                ..report.base.origin.clone()
            });
            reports.push(report);
            continue;
        }
        if part.kind != PartKind::Leaf || part.mime_type != "text/html" {
            continue;
        }
        let path = mime::display_path(&part.path).to_owned();
        let mut diagnostics = if reports.is_empty() {
            tree_diagnostics.clone()
        } else {
            Vec::new()
        };
        let heads = headings(&tree, i, &input.layers);
        let base = heading_base(&heads, &input.layers, resolve, true, &mut diagnostics);
        // The part's own URL: its Content-Location made absolute, else the retrieval URI.
        let document_uri = keys
            .get(i)
            .cloned()
            .flatten()
            .and_then(|k| crate::Uri::parse(&k).ok())
            .or_else(|| {
                input
                    .layers
                    .retrieval_uri
                    .as_deref()
                    .and_then(|u| crate::Uri::parse(u).ok())
            });
        let outer = Outer { base, document_uri };
        let name = format!("{} part {path}", input.name);
        // E-mail HTML: Outlook renders conditional comments, so their URLs count by default.
        let mut part_options = Options {
            conditional_comments: Some(options.conditional_comments.unwrap_or(true)),
            ..options.clone()
        };
        if let Some(r) = relinkers {
            part_options.rewrite.relink = r.get(&i).cloned();
            // `<base>` goes only where there is one: dropping it takes the DOM engine, which
            // may serialize the part (a `<base` start tag needs those bytes).
            let has_base = part
                .decoded
                .as_deref()
                .is_some_and(|b| b.windows(5).any(|w| w.eq_ignore_ascii_case(b"<base")));
            part_options.rewrite.drop_base &= has_base;
        }
        let analysed = match part
            .decoded
            .as_deref()
            .ok_or_else(|| "its body cannot be decoded".to_owned())
            .and_then(|body| {
                analyse_html(
                    &name,
                    body,
                    part.charset.as_deref(),
                    diagnostics.clone(),
                    &outer,
                    &part_options,
                    crate::engine::stream::Links::Keep,
                )
                .map_err(|e| e.to_string())
            }) {
            Ok(a) => a,
            Err(e) => {
                diagnostics.push(
                    Diagnostic::new(
                        crate::error::DiagnosticCode::PartSkipped,
                        format!("left as it was: {e}"),
                    )
                    .at(part.body_at),
                );
                let mut base = empty_base(Some(path), diagnostics);
                base.origin.root = Some(Some(i) == root);
                base.origin.content_type = Some(part.mime_type.clone());
                reports.push(Report {
                    base,
                    links: Vec::new(),
                });
                continue;
            }
        };
        let body = part.decoded.as_deref().unwrap_or_default();
        let mut part_report = report(&analysed, Some(&path), body);
        part_report.set_origin(&Origin {
            part: Some(path.clone()),
            root: Some(Some(i) == root),
            content_type: Some(part.mime_type.clone()),
            ..Origin::default()
        });
        let scopes = index.scopes(i);
        for link in &mut part_report.links {
            // A same-document reference (`#top`) loads nothing: it names no other part.
            if link.same_document {
                continue;
            }
            if let Some(resolved) = &link.resolved {
                link.target_part = index
                    .target(&scopes, resolved)
                    .and_then(|t| tree.parts.get(t))
                    .map(|t| mime::display_path(&t.path).to_owned());
            }
        }
        let lossless = analysed.lossless();
        // A file of its own takes the decoded body in any transfer encoding.
        let writable = lossless
            && (relinkers.is_some() || part.body.is_some() && is_writable(&part.transfer_encoding));
        let changes = analysed.has_changes();
        if changes && !writable {
            // Reported and resolved, but not changed: say so, and do not claim a rewrite.
            let why = if !lossless {
                format!(
                    "the part left as it was: {}",
                    crate::decode::text_loss_reason(
                        analysed.decoded().encoding.name(),
                        analysed.decoded().source
                    )
                )
            } else if part.body.is_none() {
                "inside an encoded message/rfc822: links reported, the part left as it was"
                    .to_owned()
            } else {
                format!(
                    "Content-Transfer-Encoding {:?} cannot be written back; the part left as it was",
                    part.transfer_encoding
                )
            };
            part_report.base.diagnostics.push(
                Diagnostic::new(crate::error::DiagnosticCode::PartSkipped, why).at(part.body_at),
            );
            for link in &mut part_report.links {
                link.rewritten = false;
            }
        }
        if rewrite && writable && changes {
            // Spliced into the part's own decoded bytes where the plan matches exactly, as for a
            // bare document; else the part's tree serialized.
            // (The part was analysed from its decoded body, so there is one.)
            let body = part.decoded.as_deref().unwrap_or_default();
            let (html, engine) = write_out(body, &analysed, &part_options);
            if let Some(d) = reserialized(engine, &mut part_report) {
                part_report.base.diagnostics.push(d);
            }
            if relinkers.is_some() {
                bodies.insert(i, html);
                reports.push(part_report);
                continue;
            }
            // The text transfer encodings write their own line ends (`part.eol`), from LF.
            let html = if part.transfer_encoding == "base64" {
                html
            } else {
                from_crlf(&html)
            };
            let encoded = transfer_encode(&html, &part.transfer_encoding, part.eol);
            if let (Some(span), Some(encoded)) = (&part.body, encoded) {
                splices.push((span.clone(), encoded));
            }
        }
        reports.push(part_report);
    }
    if reports.is_empty() && !tree_diagnostics.is_empty() {
        // No HTML or CSS part carries the message's diagnostics: a record of the message as a
        // whole does, so that nothing goes unsaid.
        let mut base = empty_base(Some("0".to_owned()), tree_diagnostics.clone());
        base.origin.root = Some(false);
        base.origin.content_type = tree.parts.first().map(|p| p.mime_type.clone());
        reports.push(Report {
            base,
            links: Vec::new(),
        });
    }
    // Each part not read (a limit, an unreadable heading) has a record of its own, after the
    // others: its links are not in any report, and its bytes are kept as they were.
    for (path, diagnostic) in &tree.skipped {
        let mut base = empty_base(Some(path.clone()), vec![diagnostic.clone()]);
        base.origin.root = Some(false);
        reports.push(Report {
            base,
            links: Vec::new(),
        });
    }
    Ok(Processed {
        bytes: splice(input.bytes, splices),
        reports,
        bodies,
    })
}

/// A `text/css` part: its `url()` and `@import` URLs resolved against the part's base (its
/// headings, as for an HTML part: RFC 2557 §5) and, when rewriting, replaced byte-faithfully in
/// its own charset and transfer encoding ([`crate::pipeline::stylesheet`]). With `relink`
/// (`--extract`), the relinker writes the URLs it knows. Returns the part's new bytes (its
/// charset, no transfer encoding) when they changed and can be written.
fn css_part(
    tree: &MessageTree,
    index: &PartIndex<'_>,
    i: usize,
    input: &MessageInput<'_>,
    options: &Options,
    (rewrite, relink): (bool, Option<&crate::Relinker>),
) -> (Report, Option<Vec<u8>>) {
    let resolve = options.rewrite.resolve;
    let Some(part) = tree.parts.get(i) else {
        return (
            Report {
                base: empty_base(None, Vec::new()),
                links: Vec::new(),
            },
            None,
        );
    };
    let path = mime::display_path(&part.path).to_owned();
    let mut diagnostics = Vec::new();
    let heads = headings(tree, i, &input.layers);
    let base = heading_base(&heads, &input.layers, resolve, true, &mut diagnostics);
    let skipped = |mut diagnostics: Vec<Diagnostic>, why: String| {
        diagnostics.push(
            Diagnostic::new(
                crate::error::DiagnosticCode::PartSkipped,
                format!("left as it was: {why}"),
            )
            .at(part.body_at),
        );
        (
            Report {
                base: empty_base(Some(path.clone()), diagnostics),
                links: Vec::new(),
            },
            None,
        )
    };
    let Some(body) = part.decoded.as_deref() else {
        return skipped(diagnostics, "its body cannot be decoded".into());
    };
    // A file of its own (`relink`) takes the decoded body in any transfer encoding.
    let writable = relink.is_some() || part.body.is_some() && is_writable(&part.transfer_encoding);
    let scopes = index.scopes(i);
    let part_options = Options {
        rewrite: crate::RewriteOptions {
            relink: relink.cloned(),
            ..options.rewrite.clone()
        },
        ..options.clone()
    };
    let sheet = match crate::pipeline::stylesheet(
        body,
        part.charset.as_deref(),
        &base,
        &mut diagnostics,
        &part_options,
        rewrite && writable,
        &mut |resolved| {
            index
                .target(&scopes, resolved)
                .and_then(|t| tree.parts.get(t))
                .map(|t| mime::display_path(&t.path).to_owned())
        },
    ) {
        Ok(sheet) => sheet,
        Err(why) => return skipped(diagnostics, why),
    };
    let mut report = sheet.report;
    report.set_origin(&Origin::part(Some(&path)));
    let mut edit = None;
    if !writable {
        for l in &mut report.links {
            l.rewritten = false;
        }
    }
    if let Some(encoding) = sheet.unmappable {
        report.base.diagnostics.push(
            Diagnostic::new(
                crate::error::DiagnosticCode::PartSkipped,
                format!("a new URL cannot be written in {encoding}; the part left as it was"),
            )
            .at(part.body_at),
        );
        for l in &mut report.links {
            l.rewritten = false;
        }
    } else if let Some(css) = sheet.new {
        // The text transfer encodings write their own line ends (`part.eol`), from LF.
        edit = Some(if part.transfer_encoding == "base64" || relink.is_some() {
            css
        } else {
            from_crlf(&css)
        });
    } else if sheet.changes && !writable {
        report.base.diagnostics.push(
            Diagnostic::new(
                crate::error::DiagnosticCode::PartSkipped,
                format!(
                "Content-Transfer-Encoding {:?} cannot be written back; the part left as it was",
                part.transfer_encoding
            ),
            )
            .at(part.body_at),
        );
    }
    (report, edit)
}

/// The base record of a part left as it was: no base, no encoding.
fn empty_base(part: Option<String>, diagnostics: Vec<Diagnostic>) -> BaseRecord {
    BaseRecord {
        origin: Origin {
            part,
            ..Origin::default()
        },
        base: None,
        base_source: crate::BaseSource::None,
        encoding: "",
        encoding_source: crate::decode::EncodingSource::Fallback,
        diagnostics,
    }
}

/// The headings around part `i`, outermost first, ending with the part's own; the caller's
/// `--content-location` / `--content-base` stand as a heading around the whole message.
fn headings<'t>(
    tree: &'t MessageTree,
    i: usize,
    layers: &'t BaseLayers,
) -> Vec<(Option<&'t str>, Option<&'t str>)> {
    let mut chain: Vec<usize> = tree.ancestors(i);
    chain.reverse();
    chain.push(i);
    let mut out = vec![(
        layers.content_location.as_deref(),
        layers.content_base.as_deref(),
    )];
    out.extend(
        chain
            .into_iter()
            .filter_map(|p| tree.parts.get(p))
            .map(|p| (p.content_location.as_deref(), p.content_base.as_deref())),
    );
    out
}

/// Each multipart/related aggregate's members by resolved Content-Location and by Content-ID,
/// built once per message, so that matching a reference costs a hash lookup per enclosing
/// aggregate rather than a walk over every part (issue 21, D7).
struct PartIndex<'t> {
    tree: &'t MessageTree,
    /// Per aggregate (the multipart/related's index): its first member with each resolved
    /// Content-Location (RFC 2557 §8.2(c)).
    locations: HashMap<usize, HashMap<&'t str, usize>>,
    /// Per aggregate: its first member with each Content-ID.
    cids: HashMap<usize, HashMap<&'t str, usize>>,
    /// Per aggregate: its first member with each `cid:` Content-Location (a label, which
    /// resolves to no key in `locations`; see [`PartIndex::target`]).
    cid_labels: HashMap<usize, HashMap<&'t str, usize>>,
}

impl<'t> PartIndex<'t> {
    /// `keys`: each part's resolved Content-Location.
    fn new(tree: &'t MessageTree, keys: &'t [Option<String>]) -> Self {
        let mut index = PartIndex {
            tree,
            locations: HashMap::new(),
            cids: HashMap::new(),
            cid_labels: HashMap::new(),
        };
        for (a, part) in tree.parts.iter().enumerate() {
            if part.mime_type != "multipart/related" {
                continue;
            }
            // The aggregate's members: descendants, without entering nested aggregates or
            // messages (which may be targets themselves, RFC 2557 example 9.6), in message
            // order, so the first member seen with a key is the one a walk would find first.
            let mut stack: Vec<usize> = part.children.iter().rev().copied().collect();
            while let Some(j) = stack.pop() {
                let Some(p) = tree.parts.get(j) else {
                    continue;
                };
                if let Some(Some(k)) = keys.get(j) {
                    index
                        .locations
                        .entry(a)
                        .or_default()
                        .entry(k.as_str())
                        .or_insert(j);
                }
                if let Some(id) = p.content_id.as_deref() {
                    index.cids.entry(a).or_default().entry(id).or_insert(j);
                }
                if let Some(label) = p
                    .content_location
                    .as_deref()
                    .filter(|l| crate::base::is_cid(l))
                {
                    index
                        .cid_labels
                        .entry(a)
                        .or_default()
                        .entry(label)
                        .or_insert(j);
                }
                if p.kind == PartKind::Multipart && p.mime_type != "multipart/related" {
                    stack.extend(p.children.iter().rev());
                }
            }
        }
        index
    }

    /// The aggregates a reference from part `from` may name a part of: the enclosing
    /// multipart/related, innermost first, up to the enclosing message (RFC 2557 §7, §8.3).
    fn scopes(&self, from: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for a in self.tree.ancestors(from) {
            let Some(part) = self.tree.parts.get(a) else {
                break;
            };
            if part.kind == PartKind::Message {
                break;
            }
            if part.mime_type == "multipart/related" {
                out.push(a);
            }
        }
        out
    }

    /// RFC 2557 §8.2(d) and §8.3: the part a resolved reference names, searched in the
    /// innermost enclosing aggregate first, then the enclosing ones (`scopes`) — not in
    /// siblings. `cid:` references match Content-IDs (RFC 2392: `%`-decoded, brackets
    /// stripped; the raw form too, as RFC 2392's own example needs); in an aggregate, the first
    /// part that matches either form wins.
    ///
    /// One exception to §8.3, for Chromium's MHTML: a `cid:` reference no Content-ID matches
    /// names the part whose Content-Location is that very `cid:` URL, octet for octet (§8.2(d)'s
    /// comparison). Chromium saves stylesheets as parts labelled only
    /// `Content-Location: cid:css-…@mhtml.blink`, referenced by that URL, and its reader finds
    /// subresources by Content-Location and by Content-ID alike; without this they match
    /// nothing, and `rewrite --extract` leaves the page without its styles.
    fn target(&self, scopes: &[usize], resolved: &str) -> Option<usize> {
        let cid = crate::base::is_cid(resolved)
            .then(|| resolved.get(4..))
            .flatten();
        let decoded_cid = cid.map(crate::uri::percent_decode);
        // A browser loading `img.png#frag` fetches `img.png`: the fragment is not part of the
        // resource's URL (RFC 2396 §4.1), so it takes no part in matching a Content-Location
        // (issue 14); it stays in the resolved URL.
        let unfragmented = resolved.split_once('#').map(|(before, _)| before);
        let (table, forms) = match cid {
            Some(raw) => (&self.cids, [Some(raw), decoded_cid.as_deref()]),
            None => (&self.locations, [Some(resolved), unfragmented]),
        };
        let found = scopes.iter().find_map(|a| {
            let members = table.get(a)?;
            forms
                .iter()
                .flatten()
                .filter_map(|k| members.get(k))
                .min()
                .copied()
        });
        found.or_else(|| {
            cid?;
            scopes
                .iter()
                .find_map(|a| self.cid_labels.get(a)?.get(resolved).copied())
        })
    }
}

/// Whether [`transfer_encode`] can write this Content-Transfer-Encoding.
fn is_writable(encoding: &str) -> bool {
    matches!(
        encoding,
        "7bit" | "8bit" | "binary" | "quoted-printable" | "base64"
    )
}

/// The body in its Content-Transfer-Encoding, lines ended with `eol`, encoded lines within 76
/// characters (RFC 2045 §6.7, §6.8). `None` for an encoding we do not write.
fn transfer_encode(body: &[u8], encoding: &str, eol: &str) -> Option<Vec<u8>> {
    // The HTML serializer ends lines with LF (the parser normalised CRLF, HTML LS §13.2.3.5).
    let with_eol = |bytes: &[u8]| -> Vec<u8> {
        if eol == "\n" {
            return bytes.to_vec();
        }
        let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 40);
        for &b in bytes {
            if b == b'\n' {
                out.extend_from_slice(eol.as_bytes());
            } else {
                out.push(b);
            }
        }
        out
    };
    match encoding {
        "7bit" | "8bit" | "binary" => Some(with_eol(body)),
        "quoted-printable" => {
            // quoted_printable writes CRLF line breaks; text mode keeps CRLF pairs as breaks.
            let crlf = if eol == "\r\n" {
                with_eol(body)
            } else {
                to_crlf(body)
            };
            let encoded = quoted_printable::encode(crlf);
            Some(if eol == "\n" {
                from_crlf(&encoded)
            } else {
                encoded
            })
        }
        "base64" => {
            let text = base64::engine::general_purpose::STANDARD.encode(body);
            let mut out = Vec::with_capacity(text.len() + text.len() / 76 * 2 + 2);
            for (n, line) in text.as_bytes().chunks(76).enumerate() {
                if n > 0 {
                    out.extend_from_slice(eol.as_bytes());
                }
                out.extend_from_slice(line);
            }
            Some(out)
        }
        _ => None,
    }
}

fn to_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 40);
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

fn from_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(b);
        i += 1;
    }
    out
}

/// The input with each span replaced; spans are leaves' bodies, so they do not overlap.
fn splice(input: &[u8], mut splices: Vec<(Range<usize>, Vec<u8>)>) -> Vec<u8> {
    splices.sort_by_key(|(r, _)| r.start);
    let mut out = Vec::with_capacity(input.len() + 1024);
    let mut at = 0;
    for (range, bytes) in splices {
        if range.start < at || range.end > input.len() {
            continue;
        }
        out.extend_from_slice(input.get(at..range.start).unwrap_or_default());
        out.extend_from_slice(&bytes);
        at = range.end;
    }
    out.extend_from_slice(input.get(at..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests;
