#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use super::*;
use CssKind::{Declarations, Stylesheet};

/// `(value, token text, import)` of every URL, for readable assertions.
fn found(css: &str, kind: CssKind) -> Vec<(String, &str, bool)> {
    css_urls(css, kind)
        .into_iter()
        .map(|u| (u.value.into_owned(), &css[u.token], u.import))
        .collect()
}

fn url(value: &str, token: &'static str) -> (String, &'static str, bool) {
    (value.to_owned(), token, false)
}

fn import(value: &str, token: &'static str) -> (String, &'static str, bool) {
    (value.to_owned(), token, true)
}

/// Rewrites every URL `v` (except `#…` ones) to `http://h/` + `v`.
fn absolutize(css: &str, kind: CssKind) -> Option<String> {
    rewrite_css(css, kind, &mut |u| {
        (!u.value.starts_with('#')).then(|| format!("http://h/{}", u.value))
    })
}

/// Rewrites every URL to `new`.
fn replace_all(css: &str, kind: CssKind, new: &str) -> Option<String> {
    rewrite_css(css, kind, &mut |_| Some(new.to_owned()))
}

#[test]
fn style_attribute_unquoted() {
    let css = "background: url(a.png)";
    assert_eq!(css_urls(css, Declarations)[0].token, 12..22);
    assert_eq!(found(css, Declarations), vec![url("a.png", "url(a.png)")]);
    assert!(matches!(
        css_urls(css, Declarations)[0].value,
        Cow::Borrowed(_)
    ));
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("background: url(http://h/a.png)")
    );
}

#[test]
fn quoted_with_spaces_inside_parens() {
    let css = "background:url( 'a b.png' )";
    assert_eq!(found(css, Declarations), vec![url("a b.png", "'a b.png'")]);
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("background:url( 'http://h/a b.png' )")
    );
}

#[test]
fn unquoted_with_spaces_inside_parens() {
    let css = "a{b:url( a.png\t)}";
    assert_eq!(found(css, Stylesheet), vec![url("a.png", "url( a.png\t)")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("a{b:url( http://h/a.png\t)}")
    );
    let css = "b:URL(a.png)";
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("b:URL(http://h/a.png)")
    );
}

#[test]
fn escaped_quote_in_string() {
    let css = r#"b: url("x\"y.png")"#;
    assert_eq!(
        found(css, Declarations),
        vec![url("x\"y.png", r#""x\"y.png""#)]
    );
    assert!(matches!(
        css_urls(css, Declarations)[0].value,
        Cow::Owned(_)
    ));
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some(r#"b: url("http://h/x\"y.png")"#)
    );
    // The other quote needs no escape.
    let css = r#"b: url('x"y\'z.png')"#;
    assert_eq!(
        found(css, Declarations),
        vec![url("x\"y'z.png", r#"'x"y\'z.png'"#)]
    );
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some(r#"b: url('http://h/x"y\'z.png')"#)
    );
}

#[test]
fn escaped_paren_in_unquoted() {
    let css = r"b: url(a\(b.png)";
    assert_eq!(
        found(css, Declarations),
        vec![url("a(b.png", r"url(a\(b.png)")]
    );
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some(r"b: url(http://h/a\(b.png)")
    );
    let css = r"b: url(a\)b.png)";
    assert_eq!(
        found(css, Declarations),
        vec![url("a)b.png", r"url(a\)b.png)")]
    );
    // Hex escapes and an escaped function name.
    let css = r"b: u\72l(\61 .png)";
    assert_eq!(
        found(css, Declarations),
        vec![url("a.png", r"u\72l(\61 .png)")]
    );
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some(r"b: u\72l(http://h/a.png)")
    );
}

#[test]
fn import_string() {
    let css = "@import \"a.css\";";
    assert_eq!(found(css, Stylesheet), vec![import("a.css", "\"a.css\"")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("@import \"http://h/a.css\";")
    );
    let css = "@import 'x' screen;";
    assert_eq!(found(css, Stylesheet), vec![import("x", "'x'")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("@import 'http://h/x' screen;")
    );
    let css = "@IMPORT/**/'x';";
    assert_eq!(found(css, Stylesheet), vec![import("x", "'x'")]);
}

#[test]
fn import_url() {
    let css = "@import url(b.css) screen;";
    assert_eq!(found(css, Stylesheet), vec![import("b.css", "url(b.css)")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("@import url(http://h/b.css) screen;")
    );
    let css = "@import url( \"c.css\" ) print;";
    assert_eq!(found(css, Stylesheet), vec![import("c.css", "\"c.css\"")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("@import url( \"http://h/c.css\" ) print;")
    );
}

#[test]
fn import_only_at_top_level_of_stylesheets() {
    // Not a stylesheet: a string after `@import` is just a string.
    assert!(found("@import \"a.css\";", Declarations).is_empty());
    // `@import` inside a block is invalid CSS.
    assert!(found("@media print { @import \"a.css\"; }", Stylesheet).is_empty());
    // Only the token right after `@import`.
    assert_eq!(
        found("@import \"a.css\" \"b.css\";", Stylesheet),
        vec![import("a.css", "\"a.css\"")]
    );
    // A `url()` is a URL everywhere, but is an import only after `@import`.
    assert_eq!(
        found(
            "@import url(a.css); @media print { @import url(b.css); }",
            Stylesheet
        ),
        vec![import("a.css", "url(a.css)"), url("b.css", "url(b.css)")]
    );
    assert_eq!(
        found("@import url(a.css)", Declarations),
        vec![url("a.css", "url(a.css)")]
    );
}

#[test]
fn font_face_src() {
    let css = r#"@font-face { src: url(f.woff2) format("woff2"), url(f.woff) }"#;
    assert_eq!(
        found(css, Stylesheet),
        vec![url("f.woff2", "url(f.woff2)"), url("f.woff", "url(f.woff)")]
    );
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some(
            r#"@font-face { src: url(http://h/f.woff2) format("woff2"), url(http://h/f.woff) }"#
        )
    );
}

#[test]
fn media_block() {
    let css = "@media print { .x { background: url(p.png) } }";
    assert_eq!(found(css, Stylesheet), vec![url("p.png", "url(p.png)")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("@media print { .x { background: url(http://h/p.png) } }")
    );
}

#[test]
fn comments_untouched() {
    let css = "/* url(comment.png) */ a { b: url(c.png) }";
    assert_eq!(found(css, Stylesheet), vec![url("c.png", "url(c.png)")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("/* url(comment.png) */ a { b: url(http://h/c.png) }")
    );
    // Unterminated comment: nothing after it is CSS.
    assert!(found("a { b: 1 } /* url(x.png)", Stylesheet).is_empty());
}

#[test]
fn image_set_strings_are_urls() {
    let css = r#"background: image-set(url(a.png) 1x, "b.png" 2x)"#;
    assert_eq!(
        found(css, Declarations),
        vec![url("a.png", "url(a.png)"), url("b.png", "\"b.png\"")]
    );
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some(r#"background: image-set(url(http://h/a.png) 1x, "http://h/b.png" 2x)"#)
    );
    // Prefixed, any case; a string inside `type()` is a MIME type, not a URL.
    let css = r#"b: -WebKit-Image-Set('c.avif' type("image/avif") 1x)"#;
    assert_eq!(found(css, Declarations), vec![url("c.avif", "'c.avif'")]);
    // Strings elsewhere are not URLs.
    assert!(found(
        r#"a::before { content: "x.png"; font-family: "a.css" }"#,
        Stylesheet
    )
    .is_empty());
    assert!(found(r#"b: format("x.png") attr(x, "y.png")"#, Declarations).is_empty());
}

#[test]
fn empty_url_reported() {
    assert_eq!(found("b: url()", Declarations), vec![url("", "url()")]);
    assert_eq!(found("b: url(  )", Declarations), vec![url("", "url(  )")]);
    assert_eq!(found("b: url(\"\")", Declarations), vec![url("", "\"\"")]);
    // A replacer that keeps "" leaves everything alone.
    assert_eq!(
        rewrite_css("b: url()", Declarations, &mut |u| (!u.value.is_empty())
            .then(|| "x".to_owned())),
        None
    );
    // An empty unquoted url() keeps its inner whitespace when replaced.
    assert_eq!(
        replace_all("b: url( )", Declarations, "x").as_deref(),
        Some("b: url( x)")
    );
}

#[test]
fn local_reference_kept_byte_identical() {
    let css = "fill: url(#grad); stroke: url( '#g2' )";
    assert_eq!(
        found(css, Declarations),
        vec![url("#grad", "url(#grad)"), url("#g2", "'#g2'")]
    );
    assert_eq!(absolutize(css, Declarations), None);
    let css = "fill: url(#grad); mask: url(m.svg#m)";
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("fill: url(#grad); mask: url(http://h/m.svg#m)")
    );
}

#[test]
fn replacement_needing_escapes_in_unquoted_form() {
    assert_eq!(
        replace_all("b: url(a.png)", Declarations, "http://h/a b(c).png").as_deref(),
        Some(r"b: url(http://h/a\ b\(c\).png)")
    );
    assert_eq!(
        replace_all("b: url(a.png)", Declarations, "x'y\"z\\w").as_deref(),
        Some(r#"b: url(x\'y\"z\\w)"#)
    );
    // Controls become hex escapes; the space after one is part of it.
    assert_eq!(
        replace_all("b: url(a.png)", Declarations, "a\tb\nc\u{7F}d").as_deref(),
        Some(r"b: url(a\9 b\A c\7F d)")
    );
    // `<` is escaped so a URL can never close a `<style>` element.
    assert_eq!(
        replace_all("b: url(a.png)", Declarations, "x</style>").as_deref(),
        Some(r"b: url(x\3C /style>)")
    );
    // The escaped forms read back as the new value.
    for new in [
        "http://h/a b(c).png",
        "a\tb\nc\u{7F}d",
        "x'y\"z\\w",
        "1 2\r3\x0C4",
    ] {
        let out = replace_all("b: url(a.png)", Declarations, new).unwrap();
        assert_eq!(found(&out, Declarations)[0].0, new, "{out}");
    }
}

#[test]
fn replacement_needing_escapes_in_quoted_form() {
    assert_eq!(
        replace_all(r#"b: url("a.png")"#, Declarations, "a\"b'c\\d\ne").as_deref(),
        Some(r#"b: url("a\"b'c\\d\A e")"#)
    );
    assert_eq!(
        replace_all("b: url('a.png')", Declarations, "a\"b'c (d)").as_deref(),
        Some(r#"b: url('a"b\'c (d)')"#)
    );
    for new in ["a\"b'c\\d\ne", "x\r\x0C\t y", "é 😀 (x)", "0</style>"] {
        for css in [
            r#"b: url("a.png")"#,
            "b: url('a.png')",
            "b: image-set('a' 1x)",
        ] {
            let out = replace_all(css, Declarations, new).unwrap();
            assert_eq!(found(&out, Declarations)[0].0, new, "{out}");
        }
    }
}

#[test]
fn same_value_is_no_change() {
    // Even though the original is spelled with escapes.
    let css = r"b: url(\61 .png)";
    assert_eq!(replace_all(css, Declarations, "a.png"), None);
    assert_eq!(rewrite_css(css, Declarations, &mut |_| None), None);
}

#[test]
fn whitespace_and_crlf_preserved() {
    let css = "a {\r\n\tb: url(x.png);\r\n\tc:\turl( \"y.png\" )\r\n}\r\n";
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("a {\r\n\tb: url(http://h/x.png);\r\n\tc:\turl( \"http://h/y.png\" )\r\n}\r\n")
    );
    let css = "b:url(\r\n x.png\r\n)";
    assert_eq!(
        found(css, Declarations),
        vec![url("x.png", "url(\r\n x.png\r\n)")]
    );
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("b:url(\r\n http://h/x.png\r\n)")
    );
}

#[test]
fn non_ascii() {
    let css = "b: url(ü/é.png); c: url('日本.png')";
    let urls = css_urls(css, Declarations);
    assert_eq!(urls[0].value, "ü/é.png");
    assert_eq!(urls[0].token, 3..17);
    assert_eq!(urls[1].value, "日本.png");
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("b: url(http://h/ü/é.png); c: url('http://h/日本.png')")
    );
    assert_eq!(
        replace_all("b: url(a)", Declarations, "http://h/ü é").as_deref(),
        Some(r"b: url(http://h/ü\ é)")
    );
}

#[test]
fn unterminated_url_at_eof_is_reported_and_closed_on_rewrite() {
    let css = "b: url(a.png";
    assert_eq!(found(css, Declarations), vec![url("a.png", "url(a.png")]);
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("b: url(http://h/a.png)")
    );
    let css = "b: url(a.png  ";
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("b: url(http://h/a.png  )")
    );
    // An escaped `)` at the end does not close it.
    let css = r"b: url(a\)";
    assert_eq!(found(css, Declarations), vec![url("a)", r"url(a\)")]);
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some(r"b: url(http://h/a\))")
    );
}

#[test]
fn unterminated_string_at_eof_is_reported_and_closed_on_rewrite() {
    let css = "b: url(\"a.png";
    assert_eq!(found(css, Declarations), vec![url("a.png", "\"a.png")]);
    assert_eq!(
        absolutize(css, Declarations).as_deref(),
        Some("b: url(\"http://h/a.png\"")
    );
    let css = "@import 'a.css";
    assert_eq!(found(css, Stylesheet), vec![import("a.css", "'a.css")]);
    assert_eq!(
        absolutize(css, Stylesheet).as_deref(),
        Some("@import 'http://h/a.css'")
    );
}

#[test]
fn bad_tokens_are_not_urls() {
    // Whitespace inside an unquoted URL: a <bad-url-token>.
    assert!(found("b: url(a b.png)", Declarations).is_empty());
    assert!(found("b: url(a(b).png)", Declarations).is_empty());
    assert!(found("b: url(a\"b)", Declarations).is_empty());
    // A newline ends a string: a <bad-string-token>.
    assert!(found("b: url(\"a\nb.png\")", Declarations).is_empty());
    // Nothing after a bad token is lost.
    assert_eq!(
        found("b: url(a b); c: url(c.png)", Declarations),
        vec![url("c.png", "url(c.png)")]
    );
    assert_eq!(
        found("b: url(\"a\n c: url(c.png)", Declarations),
        vec![url("c.png", "url(c.png)")]
    );
}

#[test]
fn nested_functions_and_blocks() {
    let css = "a { b: var(--x, url(v.png)); c: [url(s.png)]; d: calc((1)) url(e.png) }";
    assert_eq!(
        found(css, Stylesheet),
        vec![
            url("v.png", "url(v.png)"),
            url("s.png", "url(s.png)"),
            url("e.png", "url(e.png)")
        ]
    );
    let css =
        "@supports (background: url(x.png)) { a { b: cross-fade(url(c.png), url(d.png)) } }";
    assert_eq!(found(css, Stylesheet).len(), 3);
    // Unbalanced closers at any level do not stop the walk.
    let css = ") ] } a { b: url(x.png) ] ) c: url(y.png) }";
    assert_eq!(found(css, Stylesheet).len(), 2);
}

#[test]
fn deep_nesting_does_not_overflow() {
    for (open, close) in [
        ("(", ")"),
        ("[", "]"),
        ("{", "}"),
        ("f(", ")"),
        ("image-set(", ")"),
        ("([{", "}])"),
    ] {
        let depth = 100_000;
        let mut css = open.repeat(depth);
        css.push_str("url(deep.png)");
        css.push_str(&close.repeat(depth));
        css.push_str(" url(after.png)");
        let urls = css_urls(&css, Stylesheet);
        // The deep one is beyond MAX_DEPTH and left alone; the one after the blocks is found.
        assert!(urls.iter().all(|u| u.value != "deep.png"), "{open}");
        assert_eq!(
            urls.last().map(|u| u.value.as_ref()),
            Some("after.png"),
            "{open}"
        );
        let out = absolutize(&css, Stylesheet).unwrap();
        assert!(out.ends_with(" url(http://h/after.png)"));
        assert_eq!(out.len(), css.len() + "http://h/".len() * (urls.len()));
    }
    // Unclosed nesting to the end of input.
    let css = "(".repeat(100_000);
    assert!(css_urls(&css, Declarations).is_empty());
}

#[test]
fn nesting_up_to_max_depth_is_walked() {
    let depth = usize::from(MAX_DEPTH);
    let css = format!("{}url(x.png){}", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(found(&css, Declarations), vec![url("x.png", "url(x.png)")]);
    let css = format!(
        "{}url(x.png){}",
        "(".repeat(depth + 1),
        ")".repeat(depth + 1)
    );
    assert!(found(&css, Declarations).is_empty());
    // A `url("…")` function at the limit: its string would be one level deeper.
    let css = format!(
        "{}url(\"x\"){}",
        "(".repeat(depth - 1),
        ")".repeat(depth - 1)
    );
    assert_eq!(found(&css, Declarations), vec![url("x", "\"x\"")]);
}

#[test]
fn nothing_to_do_is_none() {
    assert_eq!(absolutize("", Declarations), None);
    assert_eq!(absolutize("color: red", Declarations), None);
    assert_eq!(absolutize("a { color: red } @media x {}", Stylesheet), None);
    assert_eq!(
        rewrite_css("b: url(a.png)", Declarations, &mut |_| None),
        None
    );
}

#[test]
fn replacer_sees_each_url_once_in_order() {
    let css = "@import url(i.css); a { b: url(1) url('2') image-set(\"3\" 1x) }";
    let mut seen = Vec::new();
    let out = rewrite_css(css, Stylesheet, &mut |u| {
        seen.push((u.value.to_string(), u.import));
        None
    });
    assert_eq!(out, None);
    assert_eq!(
        seen,
        vec![
            ("i.css".to_owned(), true),
            ("1".to_owned(), false),
            ("2".to_owned(), false),
            ("3".to_owned(), false)
        ]
    );
}

use crate::testutil::XorShift;

#[test]
fn pseudo_random_inputs_never_panic() {
    let alphabet = [
        "url(",
        "URL(",
        "url(\"",
        "image-set(",
        "@import",
        "@media",
        "\"",
        "'",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ";",
        ":",
        ",",
        " ",
        "\n",
        "\r\n",
        "\t",
        "\\",
        "\\)",
        "\\29 ",
        "/*",
        "*/",
        "a",
        "b.png",
        "#",
        "é",
        "日",
        "\0",
        "-->",
        "<!--",
    ];
    let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
    for i in 0..4000 {
        let css = rng.string(&alphabet, 29);
        let kind = if i % 2 == 0 { Stylesheet } else { Declarations };
        let urls = css_urls(&css, kind);
        let mut last = 0;
        for u in &urls {
            assert!(u.token.start >= last, "{css:?}: {urls:?}");
            assert!(css.get(u.token.clone()).is_some(), "{css:?}: {urls:?}");
            last = u.token.end;
        }
        // Identity and a changing rewrite; the changed output has the same URLs, changed.
        assert_eq!(
            rewrite_css(&css, kind, &mut |u| Some(u.value.to_string())),
            None
        );
        let out = rewrite_css(&css, kind, &mut |u| Some(format!("{}x (y)", u.value)));
        assert_eq!(out.is_some(), !urls.is_empty(), "{css:?}");
        if let Some(out) = out {
            let again = css_urls(&out, kind);
            let old: Vec<String> = urls.iter().map(|u| format!("{}x (y)", u.value)).collect();
            let new: Vec<String> = again.iter().map(|u| u.value.to_string()).collect();
            assert_eq!(old, new, "{css:?} -> {out:?}");
        }
    }
}
