//! Markup nested in markup (`<noscript>` inside `<noscript>`, `iframe
//! srcdoc` inside `iframe srcdoc`). Both engines follow it to the same bound, say so with a
//! `nesting-limit` link record where they stop, and the serializer writes text inside nested
//! `<noscript>` markup escaped as it was read.

use linkbase::pipeline::{self, EngineChoice, HtmlInput, Options};
use linkbase::{BaseLayers, LinkRecord};

const URL: &str = "http://h/a/b/c.html";

fn input(html: &[u8]) -> HtmlInput<'_> {
    HtmlInput {
        charset: Some("utf-8".into()),
        ..sniffed(html)
    }
}

/// Without a transport charset: windows-1252 for ASCII input.
fn sniffed(html: &[u8]) -> HtmlInput<'_> {
    HtmlInput {
        name: "t.html",
        bytes: html,
        layers: BaseLayers {
            retrieval_uri: Some(URL.into()),
            ..BaseLayers::default()
        },
        ..HtmlInput::default()
    }
}

fn options(engine: EngineChoice) -> Options {
    Options {
        engine,
        ..Options::default()
    }
}

/// The rewritten text under `options`.
fn rewritten(html: &str, options: &Options) -> String {
    rewritten_from(&input(html.as_bytes()), options)
}

fn rewritten_from(input: &HtmlInput<'_>, options: &Options) -> String {
    let out = pipeline::rewrite(input, options).unwrap();
    String::from_utf8(out.bytes).unwrap()
}

/// (element, attribute, original, resolved, diagnostic code and message) of every link.
fn links(html: &[u8], engine: EngineChoice) -> Vec<(String, String, String, String, String)> {
    let report = pipeline::links(&input(html), &options(engine)).unwrap();
    report
        .links
        .iter()
        .map(|l: &LinkRecord| {
            (
                l.element.clone(),
                l.attribute.clone().unwrap_or_default(),
                l.original.clone(),
                l.resolved.clone().unwrap_or_default(),
                l.diagnostic.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// Found by `fuzz/pipeline.rs`: `&lt;` inside a `<noscript>` nested in `<noscript>`
/// markup was written back as `<`, a live tag for every reader without scripting.
#[test]
fn text_in_nested_noscript_markup_stays_escaped() {
    let html = "t<noscript>%<noscript>%&lt;a h<base href=p>";
    let dom = "<html><head></head><body>t<noscript>%<noscript>%&lt;a h\
               <base href=\"http://h/a/b/p\"></noscript></noscript></body></html>";
    assert_eq!(rewritten(html, &options(EngineChoice::Dom)), dom);
    // --output-charset (windows-1252 read, UTF-8 written) makes the first pass serialize too.
    let utf8 = Options {
        output_encoding: Some(encoding_rs::UTF_8),
        ..options(EngineChoice::Auto)
    };
    assert_eq!(rewritten_from(&sniffed(html.as_bytes()), &utf8), dom);
    // --drop-base (spliced: the <base> goes, nothing else changes).
    let mut drop = options(EngineChoice::Auto);
    drop.rewrite.drop_base = true;
    assert_eq!(rewritten(html, &drop), "t<noscript>%<noscript>%&lt;a h");
    // Written again, nothing changes (the text is still text).
    assert_eq!(rewritten(dom, &options(EngineChoice::Dom)), dom);
}

const LIMIT: &str = "nesting-limit: left as it was: markup nested more than 8 levels deep \
                     (the nesting limit, MAX_NESTING = 8) is not followed; its links are neither \
                     reported nor rewritten";

/// Found by `fuzz/engines.rs`: nine `<noscript>` deep, the streaming engine dropped the
/// link in silence and the DOM engine reported it. Both stop at the same level and say so.
#[test]
fn noscript_nested_past_the_bound_is_said_by_both_engines() {
    let seed = include_bytes!("../../fuzz/seeds/engines/noscript-nested-nine-deep");
    let html = seed.get(1..).unwrap();
    let expected = vec![(
        "noscript".to_owned(),
        String::new(),
        String::new(),
        String::new(),
        LIMIT.to_owned(),
    )];
    assert_eq!(links(html, EngineChoice::Auto), expected);
    assert_eq!(links(html, EngineChoice::Dom), expected);

    // Eight deep is followed by both; nine is not, and said even when it holds nothing (what
    // it holds is not read).
    let nested = |n: usize| format!("{}<a href=x>", "<noscript>".repeat(n));
    let link = |l: &str| {
        vec![(
            "a".to_owned(),
            "href".to_owned(),
            l.to_owned(),
            "http://h/a/b/x".to_owned(),
            String::new(),
        )]
    };
    for engine in [EngineChoice::Auto, EngineChoice::Dom] {
        assert_eq!(links(nested(8).as_bytes(), engine), link("x"), "{engine:?}");
        let empty = "<noscript>".repeat(9);
        assert_eq!(links(empty.as_bytes(), engine).len(), 1, "{engine:?}");
        assert_eq!(
            links(nested(9).as_bytes(), engine),
            vec![(
                "noscript".to_owned(),
                String::new(),
                String::new(),
                String::new(),
                LIMIT.to_owned(),
            )],
            "{engine:?}"
        );
    }
}

/// `iframe srcdoc` nested nine deep: the ninth document is not followed, and that is said.
#[test]
fn srcdoc_nested_past_the_bound_is_said_by_both_engines() {
    let mut html = "<a href=x>".to_owned();
    for _ in 0..9 {
        let escaped = html.replace('&', "&amp;").replace('"', "&quot;");
        html = format!("<iframe srcdoc=\"{escaped}\"></iframe>");
    }
    let expected = vec![(
        "iframe".to_owned(),
        "srcdoc".to_owned(),
        String::new(),
        String::new(),
        LIMIT.to_owned(),
    )];
    assert_eq!(links(html.as_bytes(), EngineChoice::Auto), expected);
    assert_eq!(links(html.as_bytes(), EngineChoice::Dom), expected);
}

/// The two nested-`<noscript>` reproducers the fuzz targets found, byte for byte
/// (their first byte is the fuzz target's option selector), with what each target checks. Both
/// were fixed together (one nesting bound; text in nested `<noscript>` markup
/// serialized escaped); the tests above hold the cases those fixes were written against.
#[test]
fn the_nested_noscript_reproducers_of_the_fuzz_targets() {
    // fuzz/engines.rs, stream 0 vs DOM 1: the seed the test above reads is the reproducer.
    let engines = b"\x00\xef\xbb\xbfp>=#<noscript>fb<noscript>f<8\x9c <noscript>\xff\xff\x98\x00\
<noscript>b\xff\x98\x00<noscript> b\xff\x98\x00<noscript>f=<noscript>\xff\xff<noscript>\
<noscript>\xc0\"><a href=> h";
    let seed = include_bytes!("../../fuzz/seeds/engines/noscript-nested-nine-deep");
    assert_eq!(&seed[..], &engines[..]);

    // fuzz/pipeline.rs, selector `t` (0x74: rfc2396, --output-charset utf-8, a retrieval URI):
    // "second pass has None, which the first pass did not". The first pass serializes (UTF-8
    // output of a windows-1252 document); `&lt;` in the inner markup must stay text.
    let pipeline = b"t<noscript>%<noscript>%&lt;a h<base href=p>";
    let html = &pipeline[1..];
    let utf8 = Options {
        output_encoding: Some(encoding_rs::UTF_8),
        ..options(EngineChoice::Auto)
    };
    let first = pipeline::rewrite(&sniffed(html), &utf8).unwrap();
    assert_eq!(
        String::from_utf8(first.bytes.clone()).unwrap(),
        "<html><head><noscript>%<noscript>%&lt;a h<base href=\"http://h/a/b/p\"></noscript>\
         </noscript></head><body></body></html>"
    );
    let again = HtmlInput {
        bytes: &first.bytes,
        ..input(&first.bytes)
    };
    let second = pipeline::rewrite(&again, &utf8).unwrap();
    assert_eq!(second.bytes, first.bytes, "idempotent");
    assert!(second.report.links.iter().all(|l| !l.rewritten));
    let resolved = |r: &linkbase::Report| -> Vec<Option<String>> {
        r.links.iter().map(|l| l.resolved.clone()).collect()
    };
    assert_eq!(resolved(&second.report), resolved(&first.report));
    assert_eq!(resolved(&first.report), [Some("http://h/a/b/p".to_owned())]);
    assert_eq!(
        links(html, EngineChoice::Auto),
        links(html, EngineChoice::Dom)
    );
}
