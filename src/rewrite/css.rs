//! URLs in CSS (`<style>` elements and `style` attributes), found with a real CSS tokenizer
//! (`cssparser`, CSS Syntax Level 3) and rewritten token by token.
//!
//! What counts as a URL:
//! - a `<url-token>`: `url(a.png)`, `url( a.png )`, `URL(a\)b.png)` (escapes decoded);
//! - the `url(` function whose first argument is a string: `url("a.png")`, `url( 'a.png' )`;
//! - in a stylesheet, at top level, the string or URL after `@import` (flagged `import`);
//! - a string directly inside `image-set()` / `-webkit-image-set()`: CSS Images 4 §2.2 makes
//!   `image-set("a.png" 1x)` mean `image-set(url("a.png") 1x)`, and browsers load it. Strings
//!   nested deeper (`type("image/avif")`) are not URLs.
//!
//! Everywhere else a string is not a URL. Bad tokens are not URLs either: `url(a b)` and a
//! `url(` containing a quote or `(` are `<bad-url-token>`s, and a string broken by a newline is
//! a `<bad-string-token>`; browsers drop the declaration, so we leave the bytes alone. A token
//! cut short by the end of the input is *complete* in CSS (`url(a.png` and `url("a.png` at EOF
//! are a url token and a string token), so those are reported; a rewrite writes the closing
//! `)` or quote.
//!
//! Nesting is walked with `Parser::parse_nested_block`, which recurses; we stop descending
//! below [`MAX_DEPTH`] nested blocks and leave deeper content untouched (cssparser skips a block
//! it is not asked to enter with an explicit stack, so hostile input cannot overflow ours).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use cssparser::{ParseError, Parser, Token};

/// Where the CSS came from: a whole stylesheet (`<style>` element) or a declaration list (a
/// `style` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CssKind {
    /// A stylesheet: `@import` at top level names a URL.
    Stylesheet,
    /// A declaration list: there is no `@import`.
    Declarations,
}

/// One URL occurrence in CSS: its value (escapes decoded) and where its token lies in the
/// input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CssUrl<'a> {
    /// The URL as CSS reads it: escapes decoded, surrounding whitespace of `url( x )` removed.
    /// Borrowed from the input unless it contained escapes.
    pub value: Cow<'a, str>,
    /// The token holding the URL: the whole `url(...)` for a `<url-token>`; the string token,
    /// quotes included, for every quoted form (`url("x")`, `@import "x"`, `image-set("x")`).
    /// Its first byte tells the forms apart.
    pub token: Range<usize>,
    /// The URL of an `@import` rule.
    pub import: bool,
}

/// How deep we follow nested blocks and functions; deeper content is left untouched.
/// cssparser's own counter is a `u8`, so this stays below 255 (see `walk_css`).
const MAX_DEPTH: u8 = 128;

/// Every URL in `css`: `url(x)` in all forms (unquoted `url(a b)` is invalid; `url( a )`,
/// `url("a")`, `url('a')`, `url(a\)b)` escapes, the `url(` function with a quoted string
/// argument, and `@import "x"` / `@import url(x)` / `@import 'x' screen`), in source order, at
/// any nesting depth up to [`MAX_DEPTH`] (blocks, functions, at-rule preludes like `@font-face`
/// src, `@media` blocks, `image-set()`, etc.). Comments are skipped and untouched.
///
/// `url(#x)` and `url()` are reported like any other: the caller decides.
// Only the tests read URLs without rewriting so far; CSS parts of MHTML (issue #4) will.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn css_urls(css: &str, kind: CssKind) -> Vec<CssUrl<'_>> {
    let mut urls = Vec::new();
    walk_css(css, kind, &mut |url| urls.push(url));
    urls
}

/// Rewrites URLs: `replace` gets each URL's value and returns Some(new URL) to replace it or
/// None to keep it. Returns None when nothing changed, so callers keep the original bytes.
/// Only the URL tokens change; every other byte (comments, whitespace, other tokens) is copied
/// verbatim.
///
/// A replacement keeps the form of the original token:
/// - a `<url-token>` stays unquoted, keeping its function name's spelling and the whitespace
///   inside its parentheses; `(` `)` `'` `"` `\` and space are escaped with a backslash,
///   control characters (tab and newlines included) and `<` as hex escapes (`\A `), so the new
///   URL cannot end a `<style>` element;
/// - a string keeps its quote character; that quote and `\` are escaped with a backslash,
///   control characters and `<` as hex escapes.
///
/// A replacement equal to the current value changes nothing (the original bytes stay, escapes
/// and all).
pub(crate) fn rewrite_css(
    css: &str,
    kind: CssKind,
    replace: &mut dyn FnMut(&CssUrl<'_>) -> Option<String>,
) -> Option<String> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    walk_css(css, kind, &mut |url| {
        let Some(new) = replace(&url) else { return };
        if new == *url.value {
            return;
        }
        let (Some(before), Some(original)) =
            (css.get(copied..url.token.start), css.get(url.token.clone()))
        else {
            return;
        };
        let o = out.get_or_insert_with(|| String::with_capacity(css.len() + new.len() + 8));
        o.push_str(before);
        write_token(o, original, &new);
        copied = url.token.end;
    });
    out.map(|mut o| {
        o.push_str(css.get(copied..).unwrap_or_default());
        o
    })
}

/// Calls `emit` for every URL in `css`, in source order.
fn walk_css<'i>(css: &'i str, kind: CssKind, emit: &mut dyn FnMut(CssUrl<'i>)) {
    // Every URL form needs a `(` (url, image-set) or an `@` (@import) in the source text:
    // escapes cannot make one. Most style attributes have neither.
    let stylesheet = kind == CssKind::Stylesheet;
    if !css.bytes().any(|b| b == b'(' || (stylesheet && b == b'@')) {
        return;
    }
    let mut parser = Parser::new(css);
    // We enter at most MAX_DEPTH + 1 nested blocks (the last one only to skip it); cssparser
    // refuses to enter one at or beyond its limit *without* skipping it, so keep it out of reach.
    parser.set_nested_block_limit(MAX_DEPTH.saturating_add(2));
    let mut walker = Walker {
        css,
        stylesheet,
        emit,
    };
    walker.walk(&mut parser, 0, Context::Plain);
}

/// What the tokens at one nesting level are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Anything else: strings are not URLs.
    Plain,
    /// The arguments of `image-set()`: strings are URLs.
    ImageSet,
    /// The arguments of a `url(` function: the first token (after whitespace) is the URL string.
    UrlFunction { import: bool },
}

/// What to do with one token.
enum Action<'i> {
    Skip,
    Url(CssUrl<'i>),
    Enter(Context),
    ImportRule,
}

struct Walker<'i, 'e> {
    css: &'i str,
    stylesheet: bool,
    emit: &'e mut dyn FnMut(CssUrl<'i>),
}

impl<'i> Walker<'i, '_> {
    /// Walks the tokens of one nesting level, entering blocks and functions.
    fn walk(&mut self, parser: &mut Parser<'i>, depth: u8, context: Context) {
        let mut import_pending = false;
        let mut first = true;
        loop {
            let start = parser.position().byte_index();
            let token = match parser.next_including_whitespace_and_comments() {
                Ok(Token::WhiteSpace(_) | Token::Comment(_)) => continue,
                // Cheap: string values are borrowed, or reference-counted when they had escapes.
                Ok(token) => token.clone(),
                Err(_) => return,
            };
            let range = start..parser.position().byte_index();
            let action = match &token {
                Token::UnquotedUrl(value) => Action::Url(CssUrl {
                    value: unquoted_value(self.css, &range, value),
                    token: range,
                    import: import_pending,
                }),
                Token::QuotedString(value)
                    if import_pending
                        || context == Context::ImageSet
                        || (first && matches!(context, Context::UrlFunction { .. })) =>
                {
                    Action::Url(CssUrl {
                        value: quoted_value(self.css, &range, value),
                        token: range,
                        import: import_pending
                            || (context == Context::UrlFunction { import: true }),
                    })
                }
                Token::Function(name) => Action::Enter(if name.eq_ignore_ascii_case("url") {
                    Context::UrlFunction {
                        import: import_pending,
                    }
                } else if name.eq_ignore_ascii_case("image-set")
                    || name.eq_ignore_ascii_case("-webkit-image-set")
                {
                    Context::ImageSet
                } else {
                    Context::Plain
                }),
                Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                    Action::Enter(Context::Plain)
                }
                Token::AtKeyword(name)
                    if self.stylesheet && depth == 0 && name.eq_ignore_ascii_case("import") =>
                {
                    Action::ImportRule
                }
                _ => Action::Skip,
            };
            first = false;
            import_pending = false;
            match action {
                Action::Skip => {}
                Action::Url(url) => (self.emit)(url),
                Action::ImportRule => import_pending = true,
                Action::Enter(inner) => {
                    // Either way the block is consumed to its end; below MAX_DEPTH we look in.
                    let _ = if depth < MAX_DEPTH {
                        parser.parse_nested_block(|nested| {
                            self.walk(nested, depth + 1, inner);
                            Ok::<(), ParseError<()>>(())
                        })
                    } else {
                        parser.parse_nested_block(|_| Ok::<(), ParseError<()>>(()))
                    };
                }
            }
        }
    }
}

/// CSS whitespace (CSS Syntax §4.2: newline, tab, space; FF and CR are newlines before
/// preprocessing).
fn is_css_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0C')
}

/// The value of a `<url-token>` spanning `range`, borrowed from `css` when it has no escapes.
fn unquoted_value<'i>(css: &'i str, range: &Range<usize>, value: &str) -> Cow<'i, str> {
    // The name may be escaped (`u\72l(`) but never contains a literal `(`.
    let raw = css
        .get(range.clone())
        .and_then(|text| text.split_once('('))
        .map(|(_, inner)| {
            inner
                .strip_suffix(')')
                .unwrap_or(inner)
                .trim_matches(is_css_ws)
        });
    match raw {
        Some(raw) if raw == value => Cow::Borrowed(raw),
        _ => Cow::Owned(value.to_owned()),
    }
}

/// The value of a string token spanning `range`, borrowed from `css` when it has no escapes.
fn quoted_value<'i>(css: &'i str, range: &Range<usize>, value: &str) -> Cow<'i, str> {
    let raw = css.get(range.clone()).and_then(|text| {
        let mut chars = text.chars();
        let quote = chars.next()?;
        let inner = chars.as_str();
        Some(inner.strip_suffix(quote).unwrap_or(inner))
    });
    match raw {
        Some(raw) if raw == value => Cow::Borrowed(raw),
        _ => Cow::Owned(value.to_owned()),
    }
}

/// Writes `new` in the form of the `original` token text (see [`rewrite_css`]).
fn write_token(out: &mut String, original: &str, new: &str) {
    match original.chars().next() {
        Some(quote @ ('"' | '\'')) => {
            out.push(quote);
            for c in new.chars() {
                match c {
                    '\0'..='\x1F' | '\x7F' | '<' => hex_escape(out, c),
                    '\\' => out.push_str("\\\\"),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push(quote);
        }
        _ => {
            // `name(` and the whitespace after it, as they were.
            let paren = original.find('(').map_or(0, |i| i + 1);
            let (name, rest) = original.split_at(paren);
            let inner = rest.strip_suffix(')').unwrap_or(rest);
            let body = inner.trim_start_matches(is_css_ws);
            let lead = inner.get(..inner.len() - body.len()).unwrap_or_default();
            let body_trimmed = body.trim_end_matches(is_css_ws);
            let trail = body.get(body_trimmed.len()..).unwrap_or_default();
            if paren == 0 {
                out.push_str("url(");
            } else {
                out.push_str(name);
            }
            out.push_str(lead);
            for c in new.chars() {
                match c {
                    '\0'..='\x1F' | '\x7F' | '<' => hex_escape(out, c),
                    '(' | ')' | '\'' | '"' | '\\' | ' ' => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            // Any whitespace moved out of the value by `trim` above is harmless here.
            out.push_str(trail);
            out.push(')');
        }
    }
}

/// `\HEX ` (CSS Syntax §4.3.7: the space ends the escape and is consumed with it).
fn hex_escape(out: &mut String, c: char) {
    let _ = write!(out, "\\{:X} ", u32::from(c));
}

#[cfg(test)]
mod tests {
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
}
