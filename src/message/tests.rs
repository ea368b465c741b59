//! The MIME message stage's unit tests: part bases, matching, re-encoding, splicing.
#![allow(clippy::unwrap_used)]
use super::*;
use crate::pipeline::css_encoding;

/// An MHTML page with a stylesheet part: the stylesheet's `url()` and
/// `@import` resolve against its own Content-Location, match the image part, and are
/// rewritten in place, in its charset and quoted-printable; nothing else changes.
#[test]
fn css_parts_are_resolved_and_rewritten_byte_faithfully() {
    let message = concat!(
        "MIME-Version: 1.0\r\n",
        "Content-Type: multipart/related; boundary=\"b\"\r\n",
        "\r\n",
        "--b\r\n",
        "Content-Type: text/html\r\n",
        "Content-Location: http://h/page/index.html\r\n",
        "\r\n",
        "<link rel=stylesheet href=\"../css/site.css\">\r\n",
        "--b\r\n",
        "Content-Type: text/css; charset=windows-1252\r\n",
        "Content-Transfer-Encoding: quoted-printable\r\n",
        "Content-Location: http://h/css/site.css\r\n",
        "\r\n",
        "@import 'print.css' print;\r\n",
        "/* caf=E9 */ body { background: url( ../img/bg.png ) }\r\n",
        "svg { fill: url(#grad) } i { background: url(\"http://cdn/x.png\") }\r\n",
        "--b\r\n",
        "Content-Type: image/png\r\n",
        "Content-Location: http://h/img/bg.png\r\n",
        "\r\n",
        "PNG\r\n",
        "--b--\r\n"
    );
    let input = MessageInput {
        name: "t.mht",
        bytes: message.as_bytes(),
        layers: BaseLayers::default(),
    };
    let out = rewrite_message(&input, &Options::default()).unwrap();
    let css = out
        .reports
        .iter()
        .find(|r| r.base.origin.part.as_deref() == Some("2"))
        .unwrap();
    assert_eq!(css.base.base.as_deref(), Some("http://h/css/site.css"));
    assert_eq!(css.base.encoding, "windows-1252");
    let got: Vec<(&str, Option<&str>, Option<&str>, bool)> = css
        .links
        .iter()
        .map(|l| {
            (
                l.original.as_str(),
                l.resolved.as_deref(),
                l.target_part.as_deref(),
                l.rewritten,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("print.css", Some("http://h/css/print.css"), None, true),
            (
                "../img/bg.png",
                Some("http://h/img/bg.png"),
                Some("3"),
                true
            ),
            ("#grad", None, None, false),
            ("http://cdn/x.png", Some("http://cdn/x.png"), None, false),
        ]
    );
    let text = String::from_utf8(out.bytes).unwrap();
    let expected = message
        .replace(
            "@import 'print.css' print;",
            "@import 'http://h/css/print.css' print;",
        )
        .replace("url( ../img/bg.png )", "url( http://h/img/bg.png )")
        .replace("href=\"../css/site.css\"", "href=\"http://h/css/site.css\"");
    assert_eq!(text, expected);
}

/// CSS Syntax §3.2: a BOM, the part's charset, a well-formed `@charset "…";` in the first
/// 1024 bytes (UTF-16 read as UTF-8), else UTF-8; each says which it was (a
/// stylesheet's `@charset` is not an HTML `<meta>`).
#[test]
fn css_encoding_says_where_it_came_from() {
    use crate::decode::EncodingSource::*;
    // A label's surrounding whitespace is ignored (Encoding §4.2), so these two differ only
    // in whether the rule ends inside the first 1024 bytes.
    let inside = format!("@charset \"{}koi8-r\";", " ".repeat(1006));
    let past = format!("@charset \"{}koi8-r\";", " ".repeat(1007));
    type Case<'a> = (
        &'a [u8],
        Option<&'a str>,
        &'a str,
        crate::decode::EncodingSource,
        usize,
    );
    let cases: [Case<'_>; 10] = [
        (b"\xEF\xBB\xBFa{}", Some("koi8-r"), "UTF-8", Bom, 3),
        (
            b"@charset \"koi8-r\"; a{}",
            Some("windows-1252"),
            "windows-1252",
            Transport,
            0,
        ),
        (
            b"@charset \"koi8-r\"; a{}",
            Some("no-such"),
            "KOI8-R",
            CharsetRule,
            0,
        ),
        (b"@charset \"koi8-r\"; a{}", None, "KOI8-R", CharsetRule, 0),
        (b"@charset \"utf-16le\";", None, "UTF-8", CharsetRule, 0),
        (b"@charset \"koi8-r\" ;", None, "UTF-8", Fallback, 0),
        (b"@charset \"koi8;r\";", None, "UTF-8", Fallback, 0),
        (b"@charset 'koi8-r';", None, "UTF-8", Fallback, 0),
        (inside.as_bytes(), None, "KOI8-R", CharsetRule, 0),
        (past.as_bytes(), None, "UTF-8", Fallback, 0),
    ];
    for (body, charset, name, source, bom) in cases {
        let (enc, got, len) = css_encoding(body, charset);
        assert_eq!(
            (enc.name(), got, len),
            (name, source, bom),
            "{:?} {charset:?}",
            String::from_utf8_lossy(body)
        );
    }
}

/// Every record of a part says the part's media type, and a stylesheet's encoding source
/// is its own.
#[test]
fn part_records_carry_content_type_and_css_encoding_source() {
    let message = concat!(
        "MIME-Version: 1.0\r\n",
        "Content-Type: multipart/related; boundary=\"b\"\r\n",
        "\r\n",
        "--b\r\n",
        "Content-Type: text/HTML; charset=utf-8\r\n",
        "Content-Location: http://h/index.html\r\n",
        "\r\n",
        "<a href=a.html>a</a>\r\n",
        "--b\r\n",
        "Content-Type: text/css\r\n",
        "Content-Location: http://h/a.css\r\n",
        "\r\n",
        "@charset \"iso-8859-2\"; a { background: url(x.png) }\r\n",
        "--b\r\n",
        "Content-Type: text/css\r\n",
        "Content-Location: http://h/b.css\r\n",
        "\r\n",
        "a { background: url(y.png) }\r\n",
        "--b--\r\n"
    );
    let input = MessageInput {
        name: "t.mht",
        bytes: message.as_bytes(),
        layers: BaseLayers::default(),
    };
    let reports = links_message(&input, &Options::default()).unwrap();
    let bases: Vec<_> = reports
        .iter()
        .map(|r| {
            (
                r.base.origin.part.as_deref(),
                r.base.origin.content_type.as_deref(),
                r.base.encoding,
                r.base.encoding_source,
            )
        })
        .collect();
    use crate::decode::EncodingSource::*;
    assert_eq!(
        bases,
        [
            (Some("1"), Some("text/html"), "UTF-8", Transport),
            (Some("2"), Some("text/css"), "ISO-8859-2", CharsetRule),
            (Some("3"), Some("text/css"), "UTF-8", Fallback),
        ]
    );
    let links: Vec<_> = reports
        .iter()
        .flat_map(|r| &r.links)
        .map(|l| (l.original.as_str(), l.origin.content_type.as_deref()))
        .collect();
    assert_eq!(
        links,
        [
            ("a.html", Some("text/html")),
            ("x.png", Some("text/css")),
            ("y.png", Some("text/css")),
        ]
    );
}

#[test]
fn cid_percent_decoding() {
    assert_eq!(
        crate::uri::percent_decode("foo4%25foo1@bar.net"),
        "foo4%foo1@bar.net"
    );
    assert_eq!(crate::uri::percent_decode("a%2"), "a%2");
}
