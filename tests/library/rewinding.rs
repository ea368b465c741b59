//! `pipeline::rewrite_path_rewinding` (what `linkbase rewrite FILE -o OUT` runs on a large
//! file): the base is guessed from the bytes and checked by the one walk that writes; a wrong
//! guess or a hand-over to the DOM engine rewinds the output and writes it again. Whatever the
//! path, the output, the base record and the links counted must be those of the document
//! rewritten in memory (`pipeline::rewrite`), and the rewinds must be the ones expected.

use std::io::{Read, Write};
use std::path::Path;

use linkbase::pipeline::{self, HtmlInput, Options, PathInput, Rewind};
use linkbase::BaseLayers;

/// Output in memory that counts how often it was taken back.
#[derive(Default)]
struct Taken {
    bytes: Vec<u8>,
    rewinds: usize,
}

impl Write for Taken {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Rewind for Taken {
    fn rewind(&mut self) -> std::io::Result<()> {
        self.bytes.clear();
        self.rewinds += 1;
        Ok(())
    }
}

/// The document through the rewinding path, read `step` bytes at a time, against the same
/// document in memory; returns how often the output was rewound.
fn check(name: &str, doc: &[u8], step: usize) -> usize {
    let layers = BaseLayers {
        retrieval_uri: Some("http://h/d/page.html".into()),
        ..BaseLayers::default()
    };
    let options = Options::default();
    let expected = pipeline::rewrite(
        &HtmlInput {
            name: "t.html",
            bytes: doc,
            layers: layers.clone(),
            ..HtmlInput::default()
        },
        &options,
    )
    .unwrap();
    let input = PathInput {
        name: "t.html",
        path: Path::new("t.html"),
        layers,
        charset: None,
        diagnostics: Vec::new(),
    };
    let mut open =
        || -> std::io::Result<Box<dyn Read + '_>> { Ok(Box::new(Stepped { bytes: doc, step })) };
    let mut out = Taken::default();
    let written = pipeline::stream_reopened_rewinding(&input, &mut open, &options, &mut out)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        String::from_utf8_lossy(&out.bytes),
        String::from_utf8_lossy(&expected.bytes),
        "{name}"
    );
    let json = |b: &linkbase::BaseRecord| serde_json::to_string(b).unwrap();
    assert_eq!(json(&written.base), json(&expected.report.base), "{name}");
    assert_eq!(written.links.links, expected.report.links.len(), "{name}");
    assert_eq!(written.engine, expected.engine, "{name}");
    out.rewinds
}

/// A reader returning at most `step` bytes per read.
struct Stepped<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl Read for Stepped<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

#[test]
fn a_guess_that_holds_is_written_once() {
    for step in [7, 4096] {
        let at_end = check(
            "base at the end",
            b"<p><a href=x>x</a><img src='i.png'></p><base href=http://b/c/>",
            step,
        );
        assert_eq!(at_end, 0);
        assert_eq!(check("no base", b"<a href=x>x</a>", step), 0);
        assert_eq!(
            check(
                "base without href first",
                b"<base target=_top><base href=/r/><a href=x>",
                step
            ),
            0
        );
    }
}

#[test]
fn a_wrong_guess_is_rewound_and_written_on_the_base_the_walk_found() {
    for step in [7, 4096] {
        for (name, doc) in [
            (
                "in a comment",
                &b"<!-- <base href=http://wrong/> --><a href=x>x</a><base href=http://right/>"[..],
            ),
            (
                "in a template",
                b"<template><base href=http://wrong/></template><a href=x><base href=http://right/>",
            ),
            ("in a script", b"<script>'<base href=http://wrong/>'</script><a href=x>x</a>"),
            ("in an attribute", b"<a title='<base href=http://wrong/>' href=x>x</a>"),
        ] {
            assert_eq!(check(name, doc, step), 1, "{name}");
        }
    }
}

#[test]
fn a_hand_over_to_the_dom_engine_is_rewound_and_written_by_it() {
    for step in [7, 4096] {
        // HTML LS §13.2.6.4.7: `<frame>` outside `<frameset>`: the tree builder decides.
        let rewinds = check(
            "frameset",
            b"<a href=x>x</a><frameset><frame src=f.html></frameset>",
            step,
        );
        assert_eq!(rewinds, 1);
        // A `<noscript>` whose markup only the tree builder can read (found by
        // `fuzz/engines.rs`): written once it would be kept as it is; rewound, the DOM engine
        // takes the page, as in memory.
        let rewinds = check(
            "noscript",
            b"<p>x<noscript>f<frameset><noscript>f<frame src=f.html>",
            step,
        );
        assert_eq!(rewinds, 1);
    }
}

#[test]
fn many_base_tags_without_href_leave_the_walk_to_find_the_base() {
    let mut doc = "<base target=_top>".repeat(100);
    doc.push_str("<a href=x>x</a><base href=http://right/>");
    // The guess gives up (`Guess::Unknown`): the walk finds the base and writes again.
    assert_eq!(check("unknown", doc.as_bytes(), 4096), 1);
}
