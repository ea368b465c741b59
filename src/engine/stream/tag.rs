//! A start tag's name and attributes, read from the tag's own bytes by the tokenizer's states
//! (HTML LS §13.2.5.8 "tag name state" to §13.2.5.40 "self-closing start tag state").
//!
//! lol_html gives each start tag's byte range. Its attribute objects are built on first use, one
//! allocation per name and value, and it decodes names and values with byte-order-mark sniffing
//! (a UTF-8 BOM at the start of a value switches it to UTF-16). Reading the tag's bytes again is
//! cheaper (measured: it was most of the element handler's time on tags without URLs) and gives
//! the ranges the tokenizer used: every delimiter of these states is ASCII, and in the
//! ASCII-compatible encodings lol_html accepts no byte of a multi-byte character is one of them
//! (trail bytes are 0x30–0x39 or ≥ 0x40; the delimiters are whitespace, `"`, `'`, `/`, `=`, `>`).

use std::ops::Range;

use encoding_rs::Encoding;

/// The bytes of one start tag, from its `<` to its `>`.
#[derive(Clone, Copy)]
pub(crate) struct RawTag<'a> {
    bytes: &'a [u8],
    /// Where the name ends.
    name_end: usize,
}

/// One attribute as written: its name's range and its value's (inside the quotes, if any), both
/// relative to the tag's `<`. `value` is `None` for an attribute without a value (`hidden`,
/// `href=` followed by `>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawAttr {
    pub name: Range<usize>,
    pub value: Option<Range<usize>>,
}

/// HTML LS: the whitespace of the tokenizer (a CR is a LF once the input stream is preprocessed).
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

impl<'a> RawTag<'a> {
    /// The tag at `bytes` (which starts with `<`).
    pub(crate) fn new(bytes: &'a [u8]) -> RawTag<'a> {
        let name_end = bytes
            .iter()
            .skip(1)
            .position(|&b| is_space(b) || b == b'/' || b == b'>')
            .map_or(bytes.len(), |p| p + 1);
        RawTag { bytes, name_end }
    }

    /// The name as written (any case).
    pub(crate) fn name(&self) -> &'a [u8] {
        self.bytes.get(1..self.name_end).unwrap_or_default()
    }

    /// Whether the name is `lower` (ASCII case-insensitively).
    pub(crate) fn is(&self, lower: &str) -> bool {
        self.name().eq_ignore_ascii_case(lower.as_bytes())
    }

    /// The bytes at `range` (relative to the `<`).
    pub(crate) fn get(&self, range: Range<usize>) -> &'a [u8] {
        self.bytes.get(range).unwrap_or_default()
    }

    /// The attributes in source order, duplicates included.
    pub(crate) fn attrs(&self) -> RawAttrs<'a> {
        RawAttrs {
            bytes: self.bytes,
            at: self.name_end,
        }
    }

    /// Whether an attribute is named `lower` (ASCII case-insensitively).
    pub(crate) fn has_attr(&self, lower: &str) -> bool {
        self.find(lower).is_some()
    }

    /// The first attribute named `lower` (an ASCII name: a name as written matches it ASCII
    /// case-insensitively exactly when its tree name is `lower`). Later duplicates are not in
    /// the tree (HTML LS §13.2.5.33).
    pub(crate) fn find(&self, lower: &str) -> Option<RawAttr> {
        self.attrs().find(|a| {
            self.get(a.name.clone())
                .eq_ignore_ascii_case(lower.as_bytes())
        })
    }
}

/// The attributes of a [`RawTag`].
pub(crate) struct RawAttrs<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl RawAttrs<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.at += 1;
        }
    }
}

impl Iterator for RawAttrs<'_> {
    type Item = RawAttr;

    fn next(&mut self) -> Option<RawAttr> {
        // Before attribute name: whitespace is skipped; a `/` not followed by `>` is a parse
        // error that goes back here (self-closing start tag state).
        loop {
            match self.peek()? {
                b if is_space(b) || b == b'/' => self.at += 1,
                b'>' => return None,
                _ => break,
            }
        }
        // Attribute name: a `=` as its first character is part of it.
        let start = self.at;
        self.at += 1;
        while let Some(b) = self.peek() {
            if is_space(b) || matches!(b, b'/' | b'>' | b'=') {
                break;
            }
            self.at += 1;
        }
        let name = start..self.at;
        // After attribute name: only a `=` (after whitespace) gives it a value.
        self.skip_space();
        if self.peek() != Some(b'=') {
            return Some(RawAttr { name, value: None });
        }
        self.at += 1;
        // Before attribute value.
        self.skip_space();
        let value = match self.peek() {
            Some(q @ (b'"' | b'\'')) => {
                let from = self.at + 1;
                let len = self
                    .bytes
                    .get(from..)
                    .and_then(|rest| memchr::memchr(q, rest))
                    .unwrap_or_else(|| self.bytes.len().saturating_sub(from));
                self.at = from + len + 1;
                Some(from..from + len)
            }
            // `href=>`: missing-attribute-value, the tag ends with an empty value.
            Some(b'>') | None => None,
            Some(_) => {
                let from = self.at;
                while self.peek().is_some_and(|b| !is_space(b) && b != b'>') {
                    self.at += 1;
                }
                Some(from..self.at)
            }
        };
        Some(RawAttr { name, value })
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

    fn attrs(tag: &str) -> Vec<(String, Option<String>)> {
        let t = RawTag::new(tag.as_bytes());
        t.attrs()
            .map(|a| {
                (
                    String::from_utf8_lossy(t.get(a.name)).into_owned(),
                    a.value
                        .map(|v| String::from_utf8_lossy(t.get(v)).into_owned()),
                )
            })
            .collect()
    }

    fn pair(name: &str, value: Option<&str>) -> (String, Option<String>) {
        (name.to_owned(), value.map(str::to_owned))
    }

    #[test]
    fn names_and_values_as_the_tokenizer_reads_them() {
        assert_eq!(RawTag::new(b"<A\nhref=x>").name(), b"A");
        assert_eq!(RawTag::new(b"<br/>").name(), b"br");
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
    /// lol_html gives them and as [`RawTag`] reads them.
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
                let ours = RawTag::new(html.get(tag).unwrap_or_default())
                    .attrs()
                    .collect();
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

    /// The raw reading agrees with lol_html's on every start tag of the html5lib
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
