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
// Only the tests read URLs without rewriting so far.
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
mod tests;
