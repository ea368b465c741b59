//! The streaming engine's unit tests.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
use encoding_rs::Encoding;

use super::chunks::*;
use super::run::{find_base_in, guess_base, settle_streaming, Guess, Streamed};
use super::walk::*;
use crate::base::{Base, Outer};
use crate::decode;
use crate::engine::Fallback;
use crate::report::LinkTally;
use crate::rewrite::RewriteOptions;

/// The engine over a document in memory, its encoding as sniffed (a late `<meta>` may change it).
fn run(
    bytes: &[u8],
    decoded: &decode::Decoded,
    outer: &Outer,
    options: &RewriteOptions,
    links: Links,
) -> Result<Streamed, Fallback> {
    super::run::run(bytes, decoded.clone(), outer, options, links).map(|(_, s)| s)
}

/// A document streamed from `open()`: settled, then written to `out`, links to `on_link`.
fn run_streaming<'r>(
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    decoded: &decode::Decoded,
    outer: &Outer,
    options: &RewriteOptions,
    out: &mut dyn std::io::Write,
    on_link: &mut dyn FnMut(crate::rewrite::Link),
) -> Result<(Base, Vec<crate::Diagnostic>, bool), StreamError> {
    let file = settle_streaming(open, decoded, outer, options)?.write(open, out, on_link)?;
    Ok((file.base, file.diagnostics, file.malformed))
}

/// Pass 1 over `bytes` in memory, no base outside.
fn find_base(
    bytes: &[u8],
    encoding: &'static Encoding,
) -> Result<Option<(usize, String)>, Fallback> {
    let outer = Outer {
        base: Base::none(),
        document_uri: None,
    };
    super::run::find_base(
        bytes,
        encoding,
        false,
        &outer,
        &RewriteOptions::default(),
        0,
    )
}

/// `html` rewritten against `http://h/a/b` by the streaming engine alone.
fn rewrite(html: &str) -> String {
    let bytes = html.as_bytes();
    let decoded = decode::sniff_only(bytes, Some("utf-8")).unwrap();
    let uri = crate::Uri::parse("http://h/a/b").ok();
    let outer = Outer {
        base: Base {
            uri: uri.clone(),
            source: crate::BaseSource::RetrievalUri,
        },
        document_uri: uri,
    };
    let streamed = run(
        bytes,
        &decoded,
        &outer,
        &RewriteOptions::default(),
        Links::Keep,
    )
    .unwrap();
    String::from_utf8(streamed.apply(bytes)).unwrap()
}

#[test]
fn only_url_bytes_change() {
    assert_eq!(
        rewrite("<P CLASS=x>&nbsp;<a  HREF = 'a?x=1&amp;y=2' href=dup>a</a><image src=i>"),
        "<P CLASS=x>&nbsp;<a  HREF = 'http://h/a/a?x=1&amp;y=2' href=dup>a</a><image src=http://h/a/i>"
    );
    assert_eq!(
        rewrite("<svg><a xlink:href=s href=t></a></svg><a xlink:href=u>"),
        "<svg><a xlink:href=http://h/a/s href=http://h/a/t></a></svg><a xlink:href=u>"
    );
    assert_eq!(
        rewrite("<template><base href=/t/></template><a href=x>"),
        "<template><base href=http://h/t/></template><a href=http://h/a/x>"
    );
}

/// Found by `fuzz/engines.rs`: raw text whose end tag never comes runs to the end of the
/// input, and its URLs count (the DOM engine rewrote them, the streaming engine skipped them).
#[test]
fn raw_text_without_an_end_tag_runs_to_the_end() {
    assert_eq!(
        rewrite("<noscript><a href=x>x</a>"),
        "<noscript><a href=http://h/a/x>x</a>"
    );
    assert_eq!(
        rewrite("<style>p{background:url(x.png)}"),
        "<style>p{background:url(http://h/a/x.png)}"
    );
    assert_eq!(
        rewrite("<noscript><a href=x></noscript><a href=y>"),
        "<noscript><a href=http://h/a/x></noscript><a href=http://h/a/y>"
    );
}

/// A reader that gives a few bytes at a time (1 to 7, seeded), so every boundary falls
/// somewhere inside tags, values, references and raw text.
struct Dribble {
    data: Vec<u8>,
    at: usize,
    seed: u64,
}

impl std::io::Read for Dribble {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        let n = ((self.seed % 7) as usize + 1)
            .min(buf.len())
            .min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Streaming from a reader (pass 1 whole, pass 2 written as read, at random chunk sizes)
/// gives the bytes and links of the in-memory run, or hands over the same documents.
#[test]
fn streaming_at_random_chunk_sizes_is_the_in_memory_run() {
    let mut docs: Vec<Vec<u8>> = [
        "<p><a href=a>a</a><base href='/x/'><img src=i srcset='b 1x, c 2x'>",
        "<style>p{background:url(s.png)}</style><noscript><img src=n></noscript><a href=z>",
        "<iframe srcdoc=\"<a href=&quot;q&quot;>q</a>\"></iframe><a href>e</a>",
        "<noscript><a href=x>x</a>",
        "<svg><image xlink:href=s /></svg><template><base href=t></template><a href='&amp;'>",
        "<table><base href=/t/></table>",
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/html");
    let mut dirs: Vec<_> = std::fs::read_dir(fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        if let Ok(bytes) = std::fs::read(dir.join("input.html")) {
            docs.push(bytes);
        }
    }
    let uri = crate::Uri::parse("http://h/a/b").ok();
    let outer = Outer {
        base: Base {
            uri: uri.clone(),
            source: crate::BaseSource::RetrievalUri,
        },
        document_uri: uri,
    };
    let options = RewriteOptions::default();
    let mut compared = 0;
    for (n, doc) in docs.iter().enumerate() {
        let Ok(decoded) = decode::sniff_only(doc, None) else {
            continue;
        };
        let in_memory = run(doc, &decoded, &outer, &options, Links::Keep);
        // Counting instead of keeping changes nothing else.
        let tallied = run(doc, &decoded, &outer, &options, Links::Tally);
        if let (Ok(kept), Ok(counted)) = (&in_memory, &tallied) {
            let mut tally = LinkTally::default();
            kept.links.iter().for_each(|l| tally.add_link(l));
            assert_eq!(counted.tally, tally, "{}", String::from_utf8_lossy(doc));
            assert!(counted.links.is_empty());
            assert_eq!(counted.splices, kept.splices);
            assert_eq!(counted.base, kept.base);
        } else {
            assert_eq!(in_memory.is_ok(), tallied.is_ok());
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15 ^ n as u64;
        let mut open = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            Ok(Box::new(Dribble {
                data: doc.clone(),
                at: 0,
                seed: seed | 1,
            }) as Box<dyn std::io::Read>)
        };
        let mut out = Vec::new();
        let mut links = Vec::new();
        let streamed = run_streaming(&mut open, &decoded, &outer, &options, &mut out, &mut |l| {
            links.push(l)
        });
        let text = String::from_utf8_lossy(doc);
        match (in_memory, streamed) {
            (Ok(expected), Ok((base, _, _))) => {
                assert_eq!(out, expected.apply(doc), "{text}");
                assert_eq!(base, expected.base, "{text}");
                assert_eq!(links, expected.links, "{text}");
                compared += 1;
            }
            (Err(_), Err(StreamError::Fallback(_))) => assert!(out.is_empty(), "{text}"),
            (a, b) => panic!("{text}: in memory {:?}, streamed {:?}", a.err(), b.err()),
        }
    }
    assert!(compared > 80, "{compared}");
}

/// Pass 2 over `doc` without a base, its encoding sniffed.
/// Each of `docs` goes to the DOM engine, for `why`.
fn assert_handed_over(why: Fallback, docs: &[&[u8]]) {
    for doc in docs {
        let run = streamed(doc);
        assert_eq!(run.err(), Some(why), "{}", String::from_utf8_lossy(doc));
    }
}

fn streamed(doc: &[u8]) -> Result<Streamed, Fallback> {
    let outer = Outer {
        base: Base::none(),
        document_uri: None,
    };
    let decoded = decode::sniff_only(doc, None).unwrap();
    run(
        doc,
        &decoded,
        &outer,
        &RewriteOptions::default(),
        Links::Keep,
    )
}

/// Found by `fuzz/engines.rs`: after `<svg><i>` (HTML to lol_html too) a self-closing
/// `<svg/>` left lol_html in SVG: `<e href>` became an SVG link the tree does not have.
#[test]
fn a_breakout_tag_lol_html_reads_as_html_goes_to_the_dom_engine() {
    let run = streamed(b"<svg><i><svg/><e href=x>");
    assert_eq!(run.err(), Some(Fallback::MathMlStray));
}

/// Found by `fuzz/engines.rs`: `</br>` and `</p>` leave foreign content in the tree (what
/// follows is HTML: `<e href>` has no URL), not to lol_html.
#[test]
fn br_and_p_end_tags_in_foreign_content_go_to_the_dom_engine() {
    assert_handed_over(
        Fallback::ForeignEnd,
        &[
            b"<svg><svg></br><e href=x>",
            b"<svg></P><a href=x>",
            b"<math><mi></mi></br><a href=x>",
        ],
    );
    // Outside foreign content they are nothing special.
    assert!(streamed(b"<svg></svg></br></p><a href=x>").is_ok());
}

/// A tag cut by the end of the input and longer than a scan step: the scanner waits for
/// the rest (none comes) and the step loop must not wait with it.
#[test]
fn a_tag_cut_by_the_end_longer_than_a_step_ends() {
    let mut doc = b"<p>x</p><a title=\"".to_vec();
    doc.extend(std::iter::repeat_n(b'y', 10 * SCAN_STEP));
    for tail in [&b""[..], b"\"", b"<", b"\" href=z"] {
        let mut doc = doc.clone();
        doc.extend_from_slice(tail);
        let run = streamed(&doc).unwrap();
        assert!(run.links.is_empty(), "{tail:?}");
        assert!(run.splices.is_empty(), "{tail:?}");
    }
}

/// Found by `fuzz/engines.rs`: `<a><math></a>` leaves MathML in the tree (an HTML end tag
/// in foreign content pops back to HTML), not in lol_html: what it then reads as MathML but
/// MathML does not have, and a `<base>` it reads as foreign, go to the DOM engine.
#[test]
fn html_read_as_mathml_goes_to_the_dom_engine() {
    assert_handed_over(
        Fallback::MathMlStray,
        &[
            b"<svg><svg><i href=x>",
            b"<math><math><img src=x>",
            // A breakout tag without attributes: what follows is HTML in the tree.
            b"<svg><svg><s><e href>",
        ],
    );
    let frame = b"<frame src=x>";
    let framed = streamed(frame);
    assert_eq!(framed.err(), Some(Fallback::Frame));
    // After <frameset> the tree ignores the <a> (found by fuzz/engines.rs).
    let frameset = b"<frameset><a href=x>";
    let framed = streamed(frameset);
    assert_eq!(framed.err(), Some(Fallback::Frame));
    // lol_html pops `<math>` at `</a>` (its end tag handler runs); the tree builder does too
    // here (the adoption agency), but not always (`<form><math></form>`): the DOM engine.
    let doc = b"<a><math></a><a href=x>";
    let run = streamed(doc);
    assert_eq!(run.err(), Some(Fallback::ForeignEnd));
    // Pass 1 walks with pass 2's tree context, so it hands over for pass 2's reason.
    let base = b"<a><math></a><base href=b/>";
    assert_eq!(
        find_base(base, encoding_rs::UTF_8).err(),
        Some(Fallback::ForeignEnd)
    );
    // lol_html's namespace stays SVG after `<svg/>` and after `<a><svg></a>`; the tree's
    // does not (found by fuzz/engines.rs). After `<svg/>` no `<svg>` is open to lol_html's
    // selectors either: the scanner reads the `<base>` as HTML, as the tree builder does.
    // After `<a><svg></a>` the `</a>` closing `<svg>` hands the document over. Inside an
    // open `<svg>` it is SVG's, and not a base.
    assert_eq!(
        find_base(b"<svg/><base href>", encoding_rs::UTF_8),
        Ok(Some((6, String::new())))
    );
    assert_eq!(
        find_base(b"<a><svg></a><base href=x/>", encoding_rs::UTF_8),
        Err(Fallback::ForeignEnd)
    );
    assert_eq!(
        find_base(b"<svg><base href=x/></svg>", encoding_rs::UTF_8).unwrap(),
        None
    );
    // A link inside MathML, even in an HTML integration point, is the DOM engine's.
    let inside = b"<math><mi>x</mi><mtext><a href=y>y</a></mtext></math>";
    let run = streamed(inside);
    assert_eq!(run.err(), Some(Fallback::MathMlStray));
    let fine = b"<math><mi>x</mi></math><a href=y>y</a>";
    assert!(streamed(fine).is_ok());
}

/// Found by `fuzz/pipeline.rs`: an `iframe srcdoc` (or a `<style>`) whose bytes do not decode
/// is not written back, so the links in it are not rewritten either (they were reported so).
#[test]
fn links_of_an_undecodable_srcdoc_are_not_rewritten() {
    let uri = crate::Uri::parse("http://h/a/b").ok();
    let outer = Outer {
        base: Base {
            uri: uri.clone(),
            source: crate::BaseSource::RetrievalUri,
        },
        document_uri: uri,
    };
    let doc = b"<iframe srcdoc=\"<a href=x\x81>\"></iframe>";
    let decoded = decode::sniff_only(doc, Some("utf-8")).unwrap();
    let run = run(
        doc,
        &decoded,
        &outer,
        &RewriteOptions::default(),
        Links::Keep,
    )
    .unwrap();
    assert!(!run.links.is_empty());
    assert!(run.links.iter().all(|l| !l.rewritten), "{:?}", run.links);
    assert_eq!(run.apply(doc), doc.to_vec());
    // The same for a `<style>` kept as it was because its bytes are malformed.
    let style = b"<style>@import 'a.css'; p{x:\x81}</style>";
    let run = self::run(
        style,
        &decoded,
        &outer,
        &RewriteOptions::default(),
        Links::Keep,
    )
    .unwrap();
    assert_eq!(run.links.len(), 1);
    assert!(run.links.iter().all(|l| !l.rewritten), "{:?}", run.links);
    assert_eq!(run.apply(style), style.to_vec());
}

/// Found by `fuzz/engines.rs`: lol_html gives an SVG `<title>` the namespace of its content
/// (HTML), so its `href` would be read as HTML's; such an element goes to the DOM engine. A
/// plain `<title>` in an icon streams.
#[test]
fn svg_integration_points_with_urls_go_to_the_dom_engine() {
    let doc = b"<svg><title href=x>q";
    let run = streamed(doc);
    assert_eq!(run.err(), Some(Fallback::IntegrationPoint));
    // `</mi>` closes the title and the SVG `mi` in the tree: the next `mi` is SVG's. The
    // scanner reading alone closes them as the tree builder does; lol_html does not.
    let doc = b"<svg><mi><title></mi><mi href=>/";
    let run = super::with_lol_html(|| streamed(doc));
    assert_eq!(run.err(), Some(Fallback::ForeignEnd));
    assert!(streamed(doc).is_ok());
    // An element in the title: `</title>` is ignored by the tree (an HTML element is
    // current), not by lol_html.
    assert_handed_over(
        Fallback::IntegrationPoint,
        &[
            b"<svg><title><t>x</title><a href>",
            b"<svg><foreignObject><a href=x></a></foreignObject></svg>",
        ],
    );
    let icon = b"<svg><title>Icon</title><path d=x/></svg><a href=y>";
    let run = streamed(icon).unwrap();
    assert_eq!(run.links.len(), 1);
}

/// Found by `fuzz/engines.rs`: `</form>` pops an `<svg>` inside the form to lol_html (its end
/// tag handler runs), while the tree builder only removes the form and keeps the SVG element
/// open, so `<f href>` after it is SVG (a link). Such documents go to the DOM engine.
#[test]
fn foreign_content_closed_by_another_end_tag_goes_to_the_dom_engine() {
    let doc = b"<form><svg></form><f href=x>";
    let run = streamed(doc);
    assert_eq!(run.err(), Some(Fallback::ForeignEnd));
    let fine = b"<svg></svg><a href=x>";
    let run = streamed(fine).unwrap();
    assert_eq!(run.links.len(), 1);
}

/// Found by `fuzz/engines.rs`: `</form>` inside a template closes the template to lol_html
/// (its handler runs) but not to the tree builder, for which a template is a scope boundary:
/// the `<base>` after it is template content. Both passes count templates by their own end
/// tags (the scanner reads them), as the tree builder does, so neither is the base.
#[test]
fn a_template_closed_by_another_end_tag_goes_to_the_dom_engine() {
    let utf8 = encoding_rs::UTF_8;
    let doc = b"<form><template></form><base href=\"x/\">";
    assert_eq!(find_base(doc, utf8), Ok(None));
    // Pass 2 counts templates by their own end tags (the scanner reads them), as the tree
    // builder does: the link is template content, rewritten.
    let run = streamed(b"<form><template></form><a href=x>").unwrap();
    assert_eq!(run.links.len(), 1);
    let fine = b"<template><base href=t/></template><base href=x/>";
    assert_eq!(
        find_base(fine, utf8).unwrap().map(|(_, v)| v).as_deref(),
        Some("x/")
    );
}

/// Found by `fuzz/engines.rs`: a NUL in a tag or attribute name is U+FFFD to the tokenizer.
#[test]
fn nul_in_names_reads_as_the_replacement_character() {
    let input = crate::pipeline::HtmlInput {
        name: "t",
        bytes: &[
            &[b' '; 9000][..],
            b"<svg><u\0se href=x /><a x\0=1 href=y>y</a></svg>",
        ]
        .concat(),
        layers: crate::BaseLayers {
            retrieval_uri: Some("http://h/".into()),
            ..Default::default()
        },
        // (NUL bytes in the first 8 KiB read as binary.)
        ..Default::default()
    };
    let names = |engine| {
        let options = crate::pipeline::Options {
            engine,
            ..Default::default()
        };
        crate::pipeline::links(&input, &options)
            .unwrap()
            .links
            .into_iter()
            .map(|l| (l.element, l.attribute))
            .collect::<Vec<_>>()
    };
    let stream = names(crate::pipeline::EngineChoice::Auto);
    assert_eq!(stream, names(crate::pipeline::EngineChoice::Dom));
    assert_eq!(stream[0].0, "u\u{FFFD}se");
}

/// Found by `fuzz/engines.rs`: `href=` with nothing before `>` has its `=` already; a new
/// value goes after it (an `="…"` after the name made `href="…"=`, a second attribute).
#[test]
fn an_empty_unquoted_value_gets_its_value_after_the_equals_sign() {
    let input = crate::pipeline::HtmlInput {
        name: "t",
        bytes: b"<base href=\"http://b/x/\"><a href=>j</a><a href = >k</a><a href>m</a>",
        layers: crate::BaseLayers {
            retrieval_uri: Some("http://h/p.html".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let out = crate::pipeline::rewrite(&input, &Default::default()).unwrap();
    assert_eq!(out.engine, crate::pipeline::Engine::Stream);
    assert_eq!(
        String::from_utf8(out.bytes).unwrap(),
        "<base href=\"http://b/x/\"><a href=\"http://b/x/\">j</a><a href =\"http://b/x/\" >k</a><a href=\"http://b/x/\">m</a>"
    );
}

/// Found by `fuzz/engines.rs`: lol_html's `Attribute::value` sniffs a byte order mark at
/// the start of a value (and decodes `FE FF …` as UTF-16); the base is read from its bytes.
#[test]
fn base_href_is_read_from_its_own_bytes() {
    let utf8 = encoding_rs::UTF_8;
    let found = find_base(b"<p>x</p><base href=\"\xEF\xBB\xBFx/\">", utf8);
    assert_eq!(
        found.unwrap().map(|(_, v)| v).as_deref(),
        Some("\u{feff}x/")
    );
    let found = find_base(b"<base href=\xFE\xFF\xFF\xFF><a href=y>", utf8);
    assert_eq!(found.err(), Some(Fallback::Undecodable));
    // A BOM before a name: U+FEFF is part of the name, `\u{feff}href` is not `href`.
    let found = find_base(b"<base \xEF\xBB\xBFhref=/><base href=b/>", utf8);
    assert_eq!(found.unwrap().map(|(_, v)| v).as_deref(), Some("b/"));
    // Split across chunks, as from a file.
    let doc = b"<p>xxxxxxxxxxxxxx</p><base href='a&amp;b/'>";
    for size in 1..doc.len() {
        let chunks: Vec<&[u8]> = doc.chunks(size).collect();
        let mut iter = chunks.iter();
        struct Many<'a, 'b>(&'b mut std::slice::Iter<'a, &'a [u8]>);
        impl Chunks for Many<'_, '_> {
            fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
                Ok(self.0.next().copied())
            }
        }
        let outer = Outer {
            base: Base::none(),
            document_uri: None,
        };
        let options = RewriteOptions::default();
        let found = find_base_in(&mut Many(&mut iter), utf8, false, false, &outer, &options);
        assert_eq!(
            found.unwrap().map(|(_, v)| v).as_deref(),
            Some("a&b/"),
            "{size}"
        );
    }
}

/// Found by `fuzz/engines.rs`: an SVG `<style>` is not raw text. Markup inside it makes
/// elements, references decode, and one left open holds the rest of the document as
/// children: all go to the DOM engine; a plain one is streamed.
#[test]
fn foreign_style_with_markup_goes_to_the_dom_engine() {
    assert_handed_over(
        Fallback::ForeignStyle,
        &[
            b"<svg><style>r{fill:url(/s)}<g/></style></svg>",
            b"<svg><style>r{fill:url(a&amp;b)}</style></svg>",
            b"<svg><style>r{fill:url(/s)",
            b"<svg><style>a<style>r{fill:url(#g)}</style></svg>",
        ],
    );
    let fine = b"<svg><style>r{fill:url(/s)}</style></svg><style>a<b{}</style>";
    assert!(streamed(fine).is_ok());
}

/// Found by `fuzz/engines.rs`: `<svg><math><mi xlink:href>` is an SVG `mi` in the tree
/// (a `<math>` in SVG content stays SVG), a MathML integration point to lol_html.
#[test]
fn foreign_nesting_goes_to_the_dom_engine() {
    let doc = b"<svg><math><mi xlink:href=m></mi></math></svg>";
    let run = streamed(doc);
    assert_eq!(run.err(), Some(Fallback::ForeignNesting));
    let fine = b"<svg></svg><math><mi></mi></math><svg><a href=x></a></svg>";
    assert!(streamed(fine).is_ok());
}

#[test]
fn base_tag_with_href_is_found_in_any_case() {
    assert!(guess_base(b"<p><BASE href=x>", encoding_rs::UTF_8, &mut 64) != Guess::NoBase);
    assert!(guess_base(b"<bAsE\tHREF>", encoding_rs::UTF_8, &mut 64) != Guess::NoBase);
    assert!(
        guess_base(
            b"<base target=_blank><base/href=x>",
            encoding_rs::UTF_8,
            &mut 64
        ) != Guess::NoBase
    );
    assert!(
        guess_base(
            b"<p>base<bas e><basefont href=x><bAsE>",
            encoding_rs::UTF_8,
            &mut 64
        ) == Guess::NoBase
    );
    // Pass 1 is needed only for a base element with href: quotes hide what looks like one.
    assert!(
        guess_base(
            b"<base target=_blank><base title='a href=x'>",
            encoding_rs::UTF_8,
            &mut 64
        ) == Guess::NoBase
    );
    assert!(guess_base(b"<base title='>' href=x>", encoding_rs::UTF_8, &mut 64) != Guess::NoBase);
}

#[test]
fn pass_one_finds_the_first_base_outside_templates() {
    let utf8 = encoding_rs::UTF_8;
    let found = find_base(
        b"<template><base href=t></template><base href='a&amp;b'><base href=c>",
        utf8,
    )
    .unwrap();
    assert_eq!(found, Some((34, "a&b".to_owned())));
    assert_eq!(find_base(b"<p>no base", utf8).unwrap(), None);
    assert_eq!(
        find_base(b"<table><tr><td><base href=x>", utf8),
        Err(Fallback::AmbiguousBase)
    );
    // A frameset sends pass 2 to the DOM engine wherever it is; pass 1 hands over for the
    // same reason.
    assert_eq!(
        find_base(b"<frameset></frameset><base href=x>", utf8),
        Err(Fallback::Frame)
    );
    assert_eq!(
        find_base(b"<table></table><base href=x>", utf8).unwrap(),
        Some((15, "x".to_owned()))
    );
}
