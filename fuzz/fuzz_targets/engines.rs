//! Fuzzes the streaming engine against the DOM engine, its oracle.
//!
//! Input: the first byte chooses the options (bit 0: profile `rfc2396`/`whatwg`; bit 1: no
//! retrieval URI), the rest is the document's bytes.
//!
//! Checked, for every input both engines accept:
//!
//! - nothing panics or hangs (run with `-timeout=10`);
//! - both engines find the same base, unless the streaming engine handed the document to the
//!   DOM engine (then they are the same engine);
//! - the multisets of (element, attribute, resolved) agree, apart from the documented classes
//!   of `tests/library/differential.rs` (adoption-agency clones of `<a>`; the attributes of a
//!   nested `<form>` and of a second `<html>`/`<body>` tag, which the tree drops);
//! - fidelity: the streaming output is the input outside the changed ranges; checked as "the
//!   html5ever tree of the output equals that of the input with attribute values masked",
//!   unless a `<style>` or `<noscript>` text changed (its URLs are text, not attributes);
//! - idempotence: rewriting the output again changes nothing;
//! - the fragment targets (`id`, `a@name`, outside `<template>` contents) that `check` uses are
//!   the same set from both engines;
//! - the scanner reading every byte alone writes the bytes and reports the links it writes and
//!   reports with lol_html beside it from the start (`with_lol_html`), wherever both stream,
//!   and hands no document over that lol_html's reading keeps;
//! - the file entries (`rewrite_path`, two walks into output written once, and
//!   `rewrite_path_rewinding`, one walk on a guessed base into output rewound when the guess or
//!   the engine was wrong), reading 61 bytes at a time, write the in-memory bytes with the same
//!   engine and base.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use linkbase::dom::Document;
use linkbase::pipeline::{self, EngineChoice, HtmlInput, Options};
use linkbase::{BaseLayers, Profile, Report, ResolveOptions, RewriteOptions};

const URL: &str = "http://h/a/b/c.html";

type Key = (String, String, String);

fn multiset(report: &Report) -> BTreeMap<Key, usize> {
    let mut set = BTreeMap::new();
    for l in &report.links {
        let key = (
            l.element.clone(),
            l.attribute.clone().unwrap_or_default(),
            l.resolved.clone().unwrap_or(l.original.clone()),
        );
        *set.entry(key).or_insert(0) += 1;
    }
    set
}

fn masked_tree(html: &str) -> Option<String> {
    // Every attribute value emptied in the tree itself (masking the serialized text would also
    // hit `="` in text).
    let doc = Document::parse(html).ok()?;
    for element in doc.elements() {
        let mut names = Vec::new();
        element.for_each_attr(|ns, name, _| names.push((ns, name.to_owned())));
        for (ns, name) in names {
            element.set_attr(ns, &name, "");
        }
    }
    Some(doc.to_html())
}

/// A reader handing out at most 61 bytes per read.
struct Stepped<'a>(&'a [u8]);

impl std::io::Read for Stepped<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(buf.len()).min(61);
        let (head, rest) = self.0.split_at(n);
        buf[..n].copy_from_slice(head);
        self.0 = rest;
        Ok(n)
    }
}

/// Output in memory that can be taken back.
struct Rewound(Vec<u8>);

impl std::io::Write for Rewound {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl pipeline::Rewind for Rewound {
    fn rewind(&mut self) -> std::io::Result<()> {
        self.0.clear();
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, html)) = data.split_first() else {
        return;
    };
    let profile = if selector & 1 == 0 {
        Profile::Rfc2396
    } else {
        Profile::Whatwg
    };
    let layers = BaseLayers {
        retrieval_uri: (selector & 2 == 0).then(|| URL.to_owned()),
        ..BaseLayers::default()
    };
    let options = |engine| Options {
        rewrite: RewriteOptions {
            resolve: ResolveOptions::for_profile(profile),
            drop_base: false,
            relink: None,
        },
        engine,
        ..Options::default()
    };
    let input = HtmlInput {
        name: "fuzz.html",
        bytes: html,
        layers: layers.clone(),
        charset: Some("utf-8".into()),
        ..HtmlInput::default()
    };
    // The fragment targets `check` verifies `#id` links against: the same set (a set: the
    // adoption agency clones elements with their ids in the tree) from both engines.
    let ids = |engine| {
        pipeline::fragment_ids(&input, &options(engine))
            .ok()
            .map(|mut ids| {
                ids.sort();
                ids.dedup();
                ids
            })
    };
    if let (Some(stream_ids), Some(dom_ids)) = (ids(EngineChoice::Auto), ids(EngineChoice::Dom)) {
        assert_eq!(stream_ids, dom_ids, "the same fragment targets");
    }
    let (Ok(stream), Ok(dom)) = (
        pipeline::rewrite(&input, &options(EngineChoice::Auto)),
        pipeline::links(&input, &options(EngineChoice::Dom)),
    ) else {
        return;
    };
    // The scanner alone, and checked by lol_html at every element lol_html reports.
    if let Ok(checked) =
        linkbase::with_lol_html(|| pipeline::rewrite(&input, &options(EngineChoice::Auto)))
    {
        if checked.engine == pipeline::Engine::Stream {
            assert_eq!(stream.engine, checked.engine, "the scanner alone hands no more over");
            assert_eq!(stream.bytes, checked.bytes, "the scanner alone writes the same");
            assert_eq!(stream.report.links, checked.report.links, "and reports the same");
        }
    }
    // The file entries (a document past the stream threshold), read 61 bytes at a time, write
    // what the in-memory rewrite does: walked twice into output written once, and on the
    // guessed base into output rewound when the guess or the engine was wrong.
    let path_input = pipeline::PathInput {
        name: "fuzz.html",
        path: std::path::Path::new("fuzz.html"),
        layers: layers.clone(),
        charset: Some("utf-8".into()),
        diagnostics: Vec::new(),
    };
    let mut open = || -> std::io::Result<Box<dyn std::io::Read + '_>> {
        Ok(Box::new(Stepped(html)))
    };
    let auto = options(EngineChoice::Auto);
    let mut once = Vec::new();
    let (base, engine) =
        pipeline::stream_reopened(&path_input, &mut open, &auto, Some(&mut once), &mut |_| {})
            .expect("the file entry accepts what memory accepts");
    // By design, written once it keeps a `<noscript>` whose markup the DOM engine would have
    // to read (pass 1 reads no `<noscript>`), and says so.
    let kept = base
        .diagnostics
        .iter()
        .any(|d| d.code == linkbase::DiagnosticCode::NoscriptKept);
    if !kept {
        assert_eq!(once, stream.bytes, "written once: the in-memory bytes");
        assert_eq!(engine, stream.engine, "written once: the same engine");
        assert_eq!(base.base, stream.report.base.base, "written once: the same base");
    }
    let mut rewound = Rewound(Vec::new());
    let written = pipeline::stream_reopened_rewinding(&path_input, &mut open, &auto, &mut rewound)
        .expect("the rewinding entry accepts what memory accepts");
    assert_eq!(rewound.0, stream.bytes, "rewinding: the in-memory bytes");
    assert_eq!(written.engine, stream.engine, "rewinding: the same engine");
    assert_eq!(written.base.base, stream.report.base.base, "rewinding: the same base");
    if stream.engine != pipeline::Engine::Stream {
        return;
    }
    assert_eq!(stream.report.base.base, dom.base.base, "same base");
    let (s, d) = (multiset(&stream.report), multiset(&dom));
    for key in s.keys().chain(d.keys()) {
        let (sn, dn) = (
            s.get(key).copied().unwrap_or(0),
            d.get(key).copied().unwrap_or(0),
        );
        let (element, attribute, _) = key;
        let explained = sn == dn
            || (dn > sn && sn > 0 && element == "a")
            || (sn > dn
                && matches!(
                    (element.as_str(), attribute.as_str()),
                    ("form", _) | ("html", _) | ("body", _)
                ));
        assert!(explained, "{key:?}: stream {sn}, dom {dn}");
    }

    // Fidelity, as the tree sees it.
    let rewritten = |f: &dyn Fn(&linkbase::LinkRecord) -> bool| {
        stream.report.links.iter().any(|l| l.rewritten && f(l))
    };
    let noscript = html
        .windows(9)
        .any(|w| w.eq_ignore_ascii_case(b"<noscript"));
    let text_changed = rewritten(&|l| l.attribute.is_none()) || (noscript && rewritten(&|_| true));
    if let (Ok(a), Ok(b)) = (
        std::str::from_utf8(html),
        std::str::from_utf8(&stream.bytes),
    ) {
        if !text_changed {
            assert_eq!(masked_tree(a), masked_tree(b), "same tree, values aside");
        }
    }

    // Idempotence.
    let again = HtmlInput {
        name: "fuzz.html (rewritten)",
        bytes: &stream.bytes,
        layers,
        charset: Some("utf-8".into()),
        ..HtmlInput::default()
    };
    if let Ok(second) = pipeline::rewrite(&again, &options(EngineChoice::Auto)) {
        if second.engine == pipeline::Engine::Stream {
            assert_eq!(
                second.bytes, stream.bytes,
                "a second rewrite changes nothing"
            );
        }
    }
});
