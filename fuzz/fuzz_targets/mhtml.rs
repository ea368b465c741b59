//! Fuzzes the MIME adapter (`linkbase::input::mime::parse`) and the message stages on top of it:
//! per-part bases from the headings (docs/mhtml.md §4), part matching, re-encoding and splicing
//! (`linkbase::message::links_message` / `rewrite_message`, `Options::default()`, no outer
//! layers).
//!
//! Input: the bytes of a message, any bytes.
//!
//! Checked:
//!
//! - nothing panics (and nothing hangs: run with `-timeout=10`);
//! - the part tree is consistent: index 0 is the top, parents come before their children and
//!   list them, body spans lie inside the input, leaf spans do not overlap;
//! - `links_message` fails exactly when `rewrite_message` fails, with the same error, and only
//!   when `mime::parse` fails too; their reports are the same apart from the `part-skipped`
//!   notes a rewrite adds;
//! - every HTML part that was analysed has a base (`thismessage:/` at worst, RFC 2557 §5(e)),
//!   never a `cid:`/`mid:` one (a label, §8.3), and every `target_part` names a part of the tree;
//! - when no link of any report is `rewritten`, the output is the input byte for byte;
//! - the limits hold (at most `MAX_PARTS` parts), every skipped part has its own record with a
//!   `part-skipped` diagnostic, and when nothing was skipped and mailparse reads the message,
//!   the parts outside enclosed messages are the ones mailparse splits, with the same spans
//!   (linkbase splits multiparts itself, with a linear search), unless a multipart's
//!   boundary was sniffed or its body read as one part.
#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use linkbase::input::mime::{self, PartKind};
use linkbase::message::{links_message, rewrite_message, MessageInput};
use linkbase::pipeline::Options;
use linkbase::{BaseSource, Report};

fuzz_target!(|data: &[u8]| {
    let tree = mime::parse(data);
    let mut paths = BTreeSet::new();
    if let Ok(tree) = &tree {
        let mut leaves = Vec::new();
        for (i, part) in tree.parts.iter().enumerate() {
            paths.insert(mime::display_path(&part.path).to_owned());
            assert_eq!(part.parent.is_none(), i == 0, "only the top has no parent");
            if let Some(p) = part.parent {
                assert!(p < i, "parents come first");
                assert!(tree.parts[p].children.contains(&i), "parent lists child");
            }
            for &c in &part.children {
                assert_eq!(tree.parts[c].parent, Some(i), "child names its parent");
            }
            if let Some(span) = &part.body {
                assert!(
                    span.start <= span.end && span.end <= data.len(),
                    "span {span:?} outside {} bytes",
                    data.len()
                );
                if part.kind == PartKind::Leaf {
                    leaves.push(span.clone());
                }
            }
            // The root choice and the ancestor walk must not panic either.
            let _ = tree.related_root(i);
            assert!(tree.ancestors(i).len() < tree.parts.len());
        }
        assert!(tree.parts.len() <= mime::MAX_PARTS, "past the parts limit");
        for (_, d) in &tree.skipped {
            assert_eq!(d.code, linkbase::DiagnosticCode::PartSkipped, "{d}");
        }
        // Heading fields past the limit are not read here (mailparse reads them all).
        let all_fields = !tree
            .diagnostics
            .iter()
            .any(|d| d.message.contains("limit: MIME heading fields"));
        // A boundary sniffed, or a body read as one part: mailparse splits nothing.
        let framed_as_declared = !tree.diagnostics.iter().any(|d| {
            d.code == linkbase::DiagnosticCode::MimeMalformed
                && (d.message.contains("of its first delimiter line is used")
                    || d.message.contains("its body is read as one part"))
        });
        if let (true, true, true, Ok(mail)) = (
            tree.skipped.is_empty(),
            all_fields,
            framed_as_declared,
            mailparse::parse_mail(data),
        ) {
            let mut want = Vec::new();
            mailparse_parts(&mail, data.as_ptr() as usize, &mut want);
            let in_message = |i: usize| {
                tree.ancestors(i)
                    .iter()
                    .any(|&a| tree.parts[a].kind == PartKind::Message)
            };
            let got: Vec<(String, Option<std::ops::Range<usize>>)> = (0..tree.parts.len())
                .filter(|&i| !in_message(i))
                .map(|i| (tree.parts[i].mime_type.clone(), tree.parts[i].body.clone()))
                .collect();
            assert_eq!(got, want, "split as mailparse splits");
        }
        leaves.sort_by_key(|s| (s.start, s.end));
        for w in leaves.windows(2) {
            assert!(w[0].end <= w[1].start, "leaf bodies overlap: {w:?}");
        }
    }

    let input = MessageInput {
        name: "fuzz.eml",
        bytes: data,
        layers: Default::default(),
    };
    let options = Options::default();
    let links = links_message(&input, &options);
    let rewritten = rewrite_message(&input, &options);
    let (reports, out) = match (links, rewritten) {
        (Ok(reports), Ok(out)) => (reports, out),
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "links and rewrite fail alike");
            assert!(tree.is_err(), "a message that parses is not refused: {a}");
            return;
        }
        (a, b) => panic!("links {:?} but rewrite {:?}", a.err(), b.err()),
    };
    assert!(tree.is_ok(), "a refused tree gives an error");

    if let Ok(tree) = &tree {
        let skipped: Vec<(Option<&str>, Vec<String>)> = tree
            .skipped
            .iter()
            .map(|(p, d)| (Some(p.as_str()), vec![d.message.clone()]))
            .collect();
        let records: Vec<(Option<&str>, Vec<String>)> = reports
            .iter()
            .rev()
            .take(skipped.len())
            .rev()
            .map(|r| {
                (
                    r.base.origin.part.as_deref(),
                    r.base.diagnostics.iter().map(|d| d.message.clone()).collect(),
                )
            })
            .collect();
        assert_eq!(records, skipped, "each skipped part has its own record, last");
    }

    let strip = |rs: &[Report]| -> Vec<Report> {
        rs.iter()
            .cloned()
            .map(|mut r| {
                r.base
                    .diagnostics
                    .retain(|d| d.code != linkbase::DiagnosticCode::PartSkipped);
                r
            })
            .collect()
    };
    assert_eq!(
        strip(&reports),
        strip(&out.reports),
        "links and rewrite agree"
    );

    for r in &reports {
        let analysed = !r.base.encoding.is_empty();
        if analysed {
            let base = r.base.base.as_deref().unwrap_or_default();
            assert!(
                !base.is_empty(),
                "an analysed part has a base: {:?}",
                r.base
            );
            let lower = base.to_ascii_lowercase();
            if matches!(
                r.base.base_source,
                BaseSource::ContentLocation | BaseSource::ContentBase
            ) {
                assert!(
                    !lower.starts_with("cid:") && !lower.starts_with("mid:"),
                    "a cid:/mid: location is a label, not a base: {base}"
                );
            }
        }
        for l in &r.links {
            if let Some(t) = &l.target_part {
                assert!(paths.contains(t), "target {t} is not a part");
            }
        }
    }

    if out
        .reports
        .iter()
        .all(|r| r.links.iter().all(|l| !l.rewritten))
    {
        assert!(
            out.bytes == data,
            "nothing rewritten, yet the output differs"
        );
    }
});

/// The parts of `mail` in pre-order as mailparse splits them: lower-case type, body span.
fn mailparse_parts(
    mail: &mailparse::ParsedMail<'_>,
    origin: usize,
    out: &mut Vec<(String, Option<std::ops::Range<usize>>)>,
) {
    use mailparse::body::Body;
    let body = match mail.get_body_encoded() {
        Body::Base64(b) | Body::QuotedPrintable(b) => b.get_raw(),
        Body::SevenBit(b) | Body::EightBit(b) => b.get_raw(),
        Body::Binary(b) => b.get_raw(),
    };
    let at = body.as_ptr() as usize - origin;
    out.push((
        mail.ctype.mimetype.to_ascii_lowercase(),
        Some(at..at + body.len()),
    ));
    // linkbase reads as a multipart only a `multipart/` type (mailparse: `multipart…`).
    if mail.ctype.mimetype.starts_with("multipart/") {
        for sub in &mail.subparts {
            mailparse_parts(sub, origin, out);
        }
    }
}
