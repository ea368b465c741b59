//! The one start-tag lexer: the tokenizer's tag states (HTML LS §13.2.5.8 "tag name state",
//! §13.2.5.32–.42 "before attribute name" to "self-closing start tag"), resumable at any byte.
//! The scanner runs it over the markup as it comes ([`super::scan::Scanner`]), keeping the
//! attributes its walk reads, so no tag it finds is lexed again; a tag lol_html reports (and a
//! `<base>` the guess reads) is lexed once, whole ([`read_tag`]).
//!
//! Why not lol_html's attribute objects: they are built on first use, one allocation per name
//! and value, and it decodes names and values with byte-order-mark sniffing (a UTF-8 BOM at the
//! start of a value switches it to UTF-16). Reading the tag's bytes is cheaper (measured: it was
//! most of the element handler's time on tags without URLs) and gives the ranges the tokenizer
//! used: every delimiter of these states is ASCII, and in the ASCII-compatible encodings
//! lol_html accepts no byte of a multi-byte character is one of them (trail bytes are
//! 0x30–0x39 or ≥ 0x40; the delimiters are whitespace, `"`, `'`, `/`, `=`, `>`).

use std::ops::Range;

use encoding_rs::Encoding;

/// One attribute as written: its name's range and its value's (inside the quotes, if any).
/// `value` is `None` for an attribute without a value (`hidden`, `href=` followed by `>`).
/// The lexer gives offsets of its input; a kept attribute ([`Keep`]) is relative to the tag's `<`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawAttr {
    pub name: Range<usize>,
    pub value: Option<Range<usize>>,
}

/// HTML LS: the whitespace of the tokenizer (a CR is a LF once the input stream is preprocessed).
pub(super) fn is_space(b: u8) -> bool {
    class(b) & SPACE != 0
}

/// Byte classes of the tag states.
const SPACE: u8 = 1;
const SLASH: u8 = 2;
const GT: u8 = 4;
const EQ: u8 = 8;
const QUOTE: u8 = 16;

/// The class of each byte in the tag states.
#[allow(clippy::indexing_slicing)] // Evaluated at compile time: an index out of range cannot build.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[0x0c] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[b' ' as usize] = SPACE;
    t[b'/' as usize] = SLASH;
    t[b'>' as usize] = GT;
    t[b'=' as usize] = EQ;
    t[b'"' as usize] = QUOTE;
    t[b'\'' as usize] = QUOTE;
    t
};

/// The class of a byte in the tag states.
fn class(b: u8) -> u8 {
    CLASS.get(usize::from(b)).copied().unwrap_or(0)
}

/// Where the lexer is in a tag. The self-closing start tag state reads like "before attribute
/// name", and so does "after attribute value (quoted)".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    Name,
    BeforeAttr,
    AttrName,
    AfterAttrName,
    BeforeValue,
    Quoted(u8),
    Unquoted,
}

/// What the lexer reports, as it reads: the tag's name, then each attribute once it is whole.
/// Names come with their bytes; every range is an offset of the lexer's input.
pub(crate) trait Sink {
    fn tag_name(&mut self, name: &[u8], range: Range<usize>);
    fn attr(&mut self, name: &[u8], attr: RawAttr);
}

/// The tag states, resumable: fed the bytes of a tag in as many pieces as they come. Positions
/// are offsets of the whole input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lexer {
    at: At,
    /// Where the name being read (the tag's or an attribute's) starts.
    name: usize,
    /// Where the attribute name ends (in the states after it).
    name_end: usize,
    /// Where the attribute value being read starts.
    value: usize,
    /// The last byte read before an attribute was a `/` (HTML LS "self-closing start tag
    /// state": a `>` right after it closes a self-closing tag).
    slash: bool,
}

impl Lexer {
    /// A tag whose name starts at offset `name` (after `<`, or `</`).
    pub(crate) fn new(name: usize) -> Lexer {
        Lexer {
            at: At::Name,
            name,
            name_end: name,
            value: name,
            slash: false,
        }
    }

    /// After [`Lexer::lex`] returned the end of a tag: whether it is self-closing (`/>`).
    pub(crate) fn self_closing(&self) -> bool {
        self.slash
    }

    /// Reads `bytes` (from input offset `base`) from offset `from` on: the offset just past the
    /// tag's `>`; or `None` when the bytes end first, the state kept for the next ones (fed from
    /// where these end; the bytes from the name being read on must still be among them).
    pub(crate) fn lex(
        &mut self,
        bytes: &[u8],
        base: usize,
        from: usize,
        sink: &mut impl Sink,
    ) -> Option<usize> {
        let mut i = from.checked_sub(base)?;
        // The end of a run of bytes none of whose classes is in `stop`.
        let run = |mut i: usize, stop: u8| {
            while bytes.get(i).is_some_and(|&b| class(b) & stop == 0) {
                i += 1;
            }
            i
        };
        let text = |r: &Range<usize>| slice(bytes, base, r);
        loop {
            let &b = bytes.get(i)?;
            let c = class(b);
            self.at = match self.at {
                At::Name => {
                    i = run(i, SPACE | SLASH | GT);
                    if i >= bytes.len() {
                        return None;
                    }
                    let name = self.name..base + i;
                    sink.tag_name(text(&name), name);
                    At::BeforeAttr
                }
                At::BeforeAttr => {
                    if c & GT != 0 {
                        return Some(base + i + 1);
                    }
                    i += 1;
                    self.slash = c & SLASH != 0;
                    if c & (SPACE | SLASH) != 0 {
                        continue;
                    }
                    // Any other character, `=` included, starts a name.
                    self.name = base + i - 1;
                    At::AttrName
                }
                At::AttrName => {
                    i = run(i, SPACE | SLASH | GT | EQ);
                    if i >= bytes.len() {
                        return None;
                    }
                    self.name_end = base + i;
                    At::AfterAttrName
                }
                At::AfterAttrName => {
                    if c & SPACE != 0 {
                        i += 1;
                        continue;
                    }
                    if b == b'=' {
                        i += 1;
                        At::BeforeValue
                    } else {
                        // Only a `=` gives the name a value.
                        let name = self.name..self.name_end;
                        sink.attr(text(&name), RawAttr { name, value: None });
                        At::BeforeAttr
                    }
                }
                At::BeforeValue => {
                    if c & SPACE != 0 {
                        i += 1;
                        continue;
                    }
                    if c & GT != 0 {
                        // `href=>`: missing-attribute-value, the tag ends with an empty value.
                        let name = self.name..self.name_end;
                        sink.attr(text(&name), RawAttr { name, value: None });
                        return Some(base + i + 1);
                    }
                    if c & QUOTE != 0 {
                        i += 1;
                        self.value = base + i;
                        At::Quoted(b)
                    } else {
                        self.value = base + i;
                        At::Unquoted
                    }
                }
                At::Quoted(q) => {
                    i += bytes.get(i..).and_then(|rest| memchr::memchr(q, rest))?;
                    self.value_read(bytes, base, base + i, sink);
                    i += 1;
                    At::BeforeAttr
                }
                At::Unquoted => {
                    i = run(i, SPACE | GT);
                    if i >= bytes.len() {
                        return None;
                    }
                    self.value_read(bytes, base, base + i, sink);
                    At::BeforeAttr
                }
            };
        }
    }

    /// The value being read ends at `end`: the attribute is whole.
    fn value_read(&self, bytes: &[u8], base: usize, end: usize, sink: &mut impl Sink) {
        let name = self.name..self.name_end;
        sink.attr(
            slice(bytes, base, &name),
            RawAttr {
                name,
                value: Some(self.value..end),
            },
        );
    }

    /// The bytes end inside the tag, at offset `end` (after [`Lexer::lex`] returned `None`):
    /// what is being read is reported as far as it goes. (The tokenizer drops a tag cut by the
    /// end of the input; this is for a reader given a tag cut short.)
    pub(crate) fn finish(&mut self, bytes: &[u8], base: usize, end: usize, sink: &mut impl Sink) {
        let text = |r: &Range<usize>| slice(bytes, base, r);
        match self.at {
            At::Name => {
                let name = self.name..end;
                sink.tag_name(text(&name), name);
            }
            At::BeforeAttr => {}
            At::AttrName | At::AfterAttrName | At::BeforeValue => {
                if self.at == At::AttrName {
                    self.name_end = end;
                }
                let name = self.name..self.name_end;
                sink.attr(text(&name), RawAttr { name, value: None });
            }
            At::Quoted(_) | At::Unquoted => self.value_read(bytes, base, end, sink),
        }
        self.at = At::BeforeAttr;
    }
}

/// The bytes at input offsets `r` of `bytes`, which start at offset `base`.
fn slice<'b>(bytes: &'b [u8], base: usize, r: &Range<usize>) -> &'b [u8] {
    bytes
        .get(r.start.saturating_sub(base)..r.end.saturating_sub(base))
        .unwrap_or_default()
}

/// Keeps `attr` (named `name`) of the tag whose bytes from its `<` (at input offset `start`) are
/// `tag`, relative to the `<`, unless an attribute of the same name (ASCII case-insensitively)
/// is kept: later duplicates are not in the tree (HTML LS §13.2.5.33). Every reader keeps only
/// the names it reads, from fixed tables, so `attrs` is never longer than its table, whatever
/// the tag holds: a tag of a million attributes keeps a handful.
pub(crate) fn keep_first(
    attrs: &mut Vec<RawAttr>,
    tag: &[u8],
    start: usize,
    name: &[u8],
    attr: RawAttr,
) {
    let seen = attrs.iter().any(|a| {
        tag.get(a.name.clone())
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    });
    if !seen {
        attrs.push(RawAttr {
            name: attr.name.start - start..attr.name.end - start,
            value: attr.value.map(|v| v.start - start..v.end - start),
        });
    }
}

/// A [`Sink`] that keeps the attributes `wanted` accepts (by name as written), the first of
/// each name ([`keep_first`]), from a tag lexed whole.
struct Keep<'t, 'k, W> {
    tag: &'t [u8],
    wanted: W,
    attrs: &'k mut Vec<RawAttr>,
    name_end: usize,
}

impl<W: Fn(&[u8]) -> bool> Sink for Keep<'_, '_, W> {
    fn tag_name(&mut self, _: &[u8], range: Range<usize>) {
        self.name_end = range.end;
    }

    fn attr(&mut self, name: &[u8], attr: RawAttr) {
        if (self.wanted)(name) {
            keep_first(self.attrs, self.tag, 0, name, attr);
        }
    }
}

/// A start tag as the lexer read it: where its name ends and the attributes kept ([`Keep`]),
/// relative to its `<`.
#[derive(Clone, Copy)]
pub(crate) struct Lexed<'a> {
    pub name_end: usize,
    pub attrs: &'a [RawAttr],
}

/// Lexes the whole start tag `bytes` (from its `<` to its `>`, or cut short), keeping in `attrs`
/// (cleared first) the attributes `wanted` accepts.
pub(crate) fn read_tag<'a>(
    bytes: &[u8],
    wanted: impl Fn(&[u8]) -> bool,
    attrs: &'a mut Vec<RawAttr>,
) -> Lexed<'a> {
    attrs.clear();
    let mut keep = Keep {
        tag: bytes,
        wanted,
        attrs,
        name_end: bytes.len(),
    };
    let mut lexer = Lexer::new(1);
    if lexer.lex(bytes, 0, 1, &mut keep).is_none() {
        lexer.finish(bytes, 0, bytes.len(), &mut keep);
    }
    let attrs: &'a Vec<RawAttr> = keep.attrs;
    Lexed {
        name_end: keep.name_end,
        attrs: attrs.as_slice(),
    }
}

/// The bytes of one start tag, from its `<` to its `>`, with what the lexer read of them.
#[derive(Clone, Copy)]
pub(crate) struct RawTag<'a> {
    bytes: &'a [u8],
    lexed: Lexed<'a>,
}

impl<'a> RawTag<'a> {
    /// The tag at `bytes` (which starts with `<`), as the lexer read it.
    pub(crate) fn new(bytes: &'a [u8], lexed: Lexed<'a>) -> RawTag<'a> {
        RawTag { bytes, lexed }
    }

    /// The name as written (any case).
    pub(crate) fn name(&self) -> &'a [u8] {
        self.bytes.get(1..self.lexed.name_end).unwrap_or_default()
    }

    /// Whether the name is `lower` (ASCII case-insensitively).
    pub(crate) fn is(&self, lower: &str) -> bool {
        self.name().eq_ignore_ascii_case(lower.as_bytes())
    }

    /// The bytes at `range` (relative to the `<`).
    pub(crate) fn get(&self, range: Range<usize>) -> &'a [u8] {
        self.bytes.get(range).unwrap_or_default()
    }

    /// The attributes kept, in source order.
    pub(crate) fn attrs(&self) -> impl Iterator<Item = &'a RawAttr> {
        self.lexed.attrs.iter()
    }

    /// The attribute named `lower` (an ASCII name: a name as written matches it ASCII
    /// case-insensitively exactly when its tree name is `lower`), if it was kept.
    pub(crate) fn find(&self, lower: &str) -> Option<&'a RawAttr> {
        self.attrs().find(|a| {
            self.get(a.name.clone())
                .eq_ignore_ascii_case(lower.as_bytes())
        })
    }

    /// Whether an attribute named `lower` was kept.
    pub(crate) fn has_attr(&self, lower: &str) -> bool {
        self.find(lower).is_some()
    }
}

/// A name as the tokenizer gives it to the tree: decoded (without BOM sniffing: a U+FEFF at its
/// start stays), ASCII upper case lowered, U+0000 read as U+FFFD.
pub(crate) fn tree_name(raw: &[u8], encoding: &'static Encoding) -> String {
    if raw.iter().all(|b| b.is_ascii() && *b != 0) {
        let mut name = String::with_capacity(raw.len());
        name.extend(raw.iter().map(|b| char::from(b.to_ascii_lowercase())));
        return name;
    }
    encoding
        .decode_without_bom_handling(raw)
        .0
        .to_ascii_lowercase()
        .replace('\0', "\u{FFFD}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything the lexer reports, every attribute kept.
    #[derive(Default)]
    struct All {
        name: Option<Range<usize>>,
        attrs: Vec<RawAttr>,
    }

    impl Sink for All {
        fn tag_name(&mut self, _: &[u8], range: Range<usize>) {
            self.name = Some(range);
        }
        fn attr(&mut self, _: &[u8], attr: RawAttr) {
            self.attrs.push(attr);
        }
    }

    /// The whole tag `bytes` lexed `step` bytes at a time (every piece from the tag's start,
    /// as the scanner holds it), and lexed in one go: they must agree.
    fn lex_all(bytes: &[u8], step: usize) -> All {
        let mut whole = All::default();
        let mut lexer = Lexer::new(1);
        if lexer.lex(bytes, 0, 1, &mut whole).is_none() {
            lexer.finish(bytes, 0, bytes.len(), &mut whole);
        }
        let mut pieces = All::default();
        let mut lexer = Lexer::new(1);
        let mut fed = 1;
        let mut ended = false;
        while fed < bytes.len() && !ended {
            let to = (fed + step).min(bytes.len());
            ended = lexer
                .lex(bytes.get(..to).unwrap_or_default(), 0, fed, &mut pieces)
                .is_some();
            fed = to;
        }
        if !ended {
            lexer.finish(bytes, 0, bytes.len(), &mut pieces);
        }
        assert_eq!(whole.name, pieces.name, "{step} bytes at a time");
        assert_eq!(whole.attrs, pieces.attrs, "{step} bytes at a time");
        whole
    }

    fn attrs(tag: &str) -> Vec<(String, Option<String>)> {
        for step in 1..4 {
            lex_all(tag.as_bytes(), step);
        }
        let get = |r: Range<usize>| {
            String::from_utf8_lossy(tag.as_bytes().get(r).unwrap_or_default()).into_owned()
        };
        lex_all(tag.as_bytes(), tag.len())
            .attrs
            .into_iter()
            .map(|a| (get(a.name), a.value.map(get)))
            .collect()
    }

    fn name(tag: &[u8]) -> &[u8] {
        let mut attrs = Vec::new();
        let lexed = read_tag(tag, |_| false, &mut attrs);
        tag.get(1..lexed.name_end).unwrap_or_default()
    }

    fn pair(name: &str, value: Option<&str>) -> (String, Option<String>) {
        (name.to_owned(), value.map(str::to_owned))
    }

    #[test]
    fn names_and_values_as_the_tokenizer_reads_them() {
        assert_eq!(name(b"<A\nhref=x>"), b"A");
        assert_eq!(name(b"<br/>"), b"br");
        assert_eq!(name(b"<br"), b"br");
        assert_eq!(
            attrs(r#"<a href="x y" src='z'  alt=w hidden>"#),
            vec![
                pair("href", Some("x y")),
                pair("src", Some("z")),
                pair("alt", Some("w")),
                pair("hidden", None),
            ]
        );
        // `=` first is a name character; `/` between attributes is skipped; no space needed
        // after a quoted value.
        assert_eq!(
            attrs(r#"<a =x/href="a"src=b/>"#),
            vec![
                pair("=x", None),
                pair("href", Some("a")),
                pair("src", Some("b/"))
            ]
        );
        // Whitespace around `=`; `>` inside quotes; an empty value and a missing one.
        assert_eq!(
            attrs("<a href = \"a>b\" x='' y=>"),
            vec![
                pair("href", Some("a>b")),
                pair("x", Some("")),
                pair("y", None)
            ]
        );
        // Quotes and `<` inside an unquoted value or a name are characters.
        assert_eq!(
            attrs("<a h\"ref=a'b<c d>"),
            vec![pair("h\"ref", Some("a'b<c")), pair("d", None)]
        );
        // A tag cut short: what is being read goes as far as the bytes do.
        assert_eq!(
            attrs("<a b c=\"d"),
            vec![pair("b", None), pair("c", Some("d"))]
        );
        assert_eq!(attrs("<a b="), vec![pair("b", None)]);
        assert_eq!(attrs("<a bc"), vec![pair("bc", None)]);
    }

    /// A reader keeps the names it reads, the first of each (in any case), however many the
    /// tag holds.
    #[test]
    fn only_the_first_of_each_wanted_name_is_kept() {
        let tag = b"<a HREF=1 x=2 href=3 Src='4' src>";
        let mut attrs = Vec::new();
        let lexed = read_tag(
            tag,
            |n| n.eq_ignore_ascii_case(b"href") || n.eq_ignore_ascii_case(b"src"),
            &mut attrs,
        );
        let raw = RawTag::new(tag, lexed);
        assert_eq!(raw.name(), b"a");
        let kept: Vec<_> = raw
            .attrs()
            .map(|a| (raw.get(a.name.clone()), a.value.clone().map(|v| raw.get(v))))
            .collect();
        assert_eq!(
            kept,
            vec![(&b"HREF"[..], Some(&b"1"[..])), (b"Src", Some(b"4"))]
        );
        assert!(raw.has_attr("src") && !raw.has_attr("x"));
        let mut hostile = b"<a".to_vec();
        for i in 0..100_000 {
            hostile.extend_from_slice(format!(" href={i} a{i}").as_bytes());
        }
        hostile.push(b'>');
        let lexed = read_tag(&hostile, |n| n.eq_ignore_ascii_case(b"href"), &mut attrs);
        assert_eq!(lexed.attrs.len(), 1);
    }

    #[test]
    fn tree_names() {
        assert_eq!(tree_name(b"HRef", encoding_rs::UTF_8), "href");
        assert_eq!(tree_name(b"a\0b", encoding_rs::UTF_8), "a\u{FFFD}b");
        assert_eq!(
            tree_name("\u{FEFF}HREF".as_bytes(), encoding_rs::UTF_8),
            "\u{FEFF}href"
        );
        assert_eq!(tree_name(b"\xc9", encoding_rs::WINDOWS_1252), "\u{c9}");
    }

    /// Every start tag lol_html reads in `html`: its attributes' name and value ranges as
    /// lol_html gives them and as the lexer reads them (whole, and cut in pieces).
    fn both_readings(html: &[u8]) -> Vec<(Vec<RawAttr>, Vec<RawAttr>)> {
        let seen = std::cell::RefCell::new(Vec::new());
        let settings = lol_html::Settings::new().append_element_content_handler(
            lol_html::element!("*", |el| {
                let tag = el.source_location().bytes();
                let rel = |r: Range<usize>| r.start - tag.start..r.end - tag.start;
                let theirs = el
                    .attributes()
                    .iter()
                    .map(|a| RawAttr {
                        name: rel(a.name_source_location().map(|l| l.bytes()).unwrap_or(0..0)),
                        value: a.value_source_location().map(|l| rel(l.bytes())),
                    })
                    .collect();
                let bytes = html.get(tag).unwrap_or_default();
                let ours = lex_all(bytes, 7).attrs;
                seen.borrow_mut().push((theirs, ours));
                Ok(())
            }),
        );
        let mut rewriter = lol_html::HtmlRewriter::new(settings, |_: &[u8]| {});
        if rewriter.write(html).and_then(|()| rewriter.end()).is_err() {
            return Vec::new();
        }
        seen.into_inner()
    }

    /// The lexer agrees with lol_html on every start tag of the html5lib
    /// tree-construction suite (`tests/html5lib`, vendored) and of the fixtures.
    #[test]
    fn agrees_with_lol_html_on_every_tag_of_the_suites() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut documents: Vec<Vec<u8>> = Vec::new();
        let suite = root.join("tests/html5lib");
        for entry in std::fs::read_dir(&suite).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            for test in text.split("#data\n").skip(1) {
                if let Some((data, _)) = test.split_once("\n#errors") {
                    documents.push(data.as_bytes().to_vec());
                }
            }
        }
        assert!(documents.len() > 1500, "{}: not read", suite.display());
        for dir in std::fs::read_dir(root.join("fixtures/html"))
            .into_iter()
            .flatten()
            .flatten()
        {
            for entry in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if entry.path().extension().is_some_and(|e| e == "html") {
                    documents.push(std::fs::read(entry.path()).unwrap_or_default());
                }
            }
        }
        documents.push(b"<a =x/href='a'src=b/ c = d e=>".to_vec());
        assert!(documents.len() > 10, "no documents found");
        let mut tags = 0;
        for html in &documents {
            for (theirs, ours) in both_readings(html) {
                assert_eq!(theirs, ours, "in {:?}", String::from_utf8_lossy(html));
                tags += 1;
            }
        }
        assert!(tags > 1000, "only {tags} start tags read");
        eprintln!(
            "{} documents, {tags} start tags: the same attribute ranges",
            documents.len()
        );
    }
}
