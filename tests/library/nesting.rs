//! Issue 21 (D15, D17): markup nested in markup (`<noscript>` inside `<noscript>`, `iframe
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

/// D17, found by `fuzz/pipeline.rs`: `&lt;` inside a `<noscript>` nested in `<noscript>`
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
    // --drop-base (serialized: the <base> goes).
    let mut drop = options(EngineChoice::Auto);
    drop.rewrite.drop_base = true;
    assert_eq!(
        rewritten(html, &drop),
        "<html><head></head><body>t<noscript>%<noscript>%&lt;a h</noscript></noscript></body></html>"
    );
    // Written again, nothing changes (the text is still text).
    assert_eq!(rewritten(dom, &options(EngineChoice::Dom)), dom);
}
