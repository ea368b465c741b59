//! ⑦ The span splicer: the plan's changes written into the input's own bytes (issue 9, first
//! step).
//!
//! Serializing the parsed tree changes bytes that are not URLs (`&nbsp;`, quotes, self-closing
//! slashes, implied `<tbody>`) and can even change the tree a browser builds. Here the DOM still
//! decides *what* changes (base, every URL, HTML LS semantics), but the output is the input with
//! only the changed attribute values replaced: lol_html, used read-only, gives each start tag's
//! attribute-value byte ranges (never its mutation API, which rebuilds the whole tag); the raw
//! value is decoded by the HTML attribute-value rules and matched with the plan's edits by
//! (element, attribute, old value); the new value is escaped for the quoting in use and encoded in
//! the document's encoding.
//!
//! Anything this cannot match exactly returns `None`, and the caller serializes the tree as
//! before: an edit of element text (`<style>`, `<noscript>`), an edit whose occurrence is not
//! found in the source, two edits of one (element, attribute, value) with different results, a
//! tokenizer lol_html refuses (UTF-16, ISO-2022-JP) or a parsing ambiguity it reports.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;

use crate::dom::{AttrNs, Document};
use crate::rewrite::{EditTarget, Plan};

/// Why the splicer handed a document back to the serializer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fallback {
    /// An edit of element text (`<style>` CSS, `<noscript>` markup).
    TextEdit,
    /// An edit whose occurrence was not found in the source, or was found with two outcomes.
    Unmatched,
    /// lol_html cannot tokenize the encoding, or reported an error (ambiguity, memory).
    Tokenizer,
    /// A raw value does not decode in the document's encoding.
    Undecodable,
    /// A `<base>` whose place in the tree token order cannot settle: inside a table (foster
    /// parenting moves it) or after `<frameset>` (the tree builder ignores it).
    AmbiguousBase,
    /// A `<meta>` beyond the prescan declares another encoding than the tentative one: the
    /// document is decoded again (HTML LS "change the encoding").
    LateMeta,
    /// `--drop-base`, whose choice depends on every link of the document.
    DropBase,
    /// A `<math>` inside SVG content or an `<svg>` inside MathML, which the tree builder puts
    /// in the outer namespace and lol_html does not.
    ForeignNesting,
    /// An SVG `<style>` holding markup, a character reference or no end tag: in foreign content
    /// its text is parsed as markup (elements, references), not as raw text.
    ForeignStyle,
    /// An end tag that lol_html lets close a `<template>` and the tree builder does not (a
    /// template is a scope boundary: `<form><template></form>` leaves it open).
    TemplateEnd,
    /// An element lol_html reads as MathML or SVG that the tree builder puts in HTML: one MathML
    /// does not have (`<a>`, `<base>`), after an HTML end tag that popped back out of MathML
    /// (`<a><math></a>`), or a start tag that breaks out of foreign content (`<svg><svg><i>`).
    MathMlStray,
    /// A `<frame>` or `<frameset>`: the tree keeps a frame only inside `<frameset>`, ignores
    /// it in a body, and ignores almost every element after `<frameset>` (issue 9 item 5).
    Frame,
    /// The scanner that reads the markup between the elements lol_html reports, and lol_html,
    /// disagree on where a construct ends (or the scanner finds a tag lol_html should have
    /// reported): neither is trusted.
    ScanMismatch,
    /// An end tag other than its own that closes `<svg>`, `<math>` or an SVG integration point
    /// to lol_html: the tree builder may keep it open (`<form><svg></form>`: the form is removed
    /// from the stack, the SVG element stays), or close it where lol_html goes on reading HTML
    /// (`<svg><mi><title></mi>`); or `</br>` / `</p>` in foreign content, which the tree
    /// builder leaves foreign content for and lol_html does not.
    ForeignEnd,
    /// An SVG `<title>`, `<desc>` or `<foreignObject>` with attributes the rules read or with
    /// elements in it: lol_html gives these elements the namespace of their content (HTML), the
    /// tree SVG's, and the two part on which end tags close them.
    IntegrationPoint,
    /// Removing a `<base>` that opens the document would leave it starting with the bytes of a
    /// byte order mark, which would change its encoding when it is read again.
    LeadingBom,
    /// A fragment target (`id`, `a@name`) whose bytes do not decode: the tree holds U+FFFD
    /// where the decoder met them.
    UndecodableTarget,
    /// An `a@name` or a `<template>` in or beside SVG/MathML: whether the name is a target, or
    /// the template hides what it holds, depends on namespaces the tree builder may set
    /// otherwise than lol_html.
    ForeignTarget,
}

impl Fallback {
    /// Why, in words, for the `dom-engine` diagnostic.
    pub fn describe(self) -> &'static str {
        match self {
            Fallback::TextEdit => "an edit of element text",
            Fallback::Unmatched => "an edit not found in the source",
            Fallback::Tokenizer => {
                "lol_html cannot tokenize it (its encoding, a parsing ambiguity or a token past the memory bound)"
            }
            Fallback::Undecodable => "a <base href> that does not decode in the document's encoding",
            Fallback::AmbiguousBase => {
                "a <base> inside a table or after <frameset>, where tree order is not source order"
            }
            Fallback::LateMeta => "a <meta> beyond the prescan changes the encoding",
            Fallback::DropBase => "--drop-base",
            Fallback::ForeignNesting => "a <math> inside <svg> or an <svg> inside <math>",
            Fallback::TemplateEnd => "an end tag that closes a <template> to lol_html only",
            Fallback::Frame => {
                "a <frame> or <frameset>: the tree keeps frames only in a frameset, and ignores most of what follows <frameset>"
            }
            Fallback::MathMlStray => {
                "an element read as MathML or SVG that the tree builder puts in HTML"
            }
            Fallback::ForeignStyle => {
                "an SVG <style> holding markup, a character reference or no end tag"
            }
            Fallback::ForeignEnd => {
                "an end tag that closes <svg>, <math> or an SVG <title>, <desc> or <foreignObject> otherwise than the tree builder does"
            }
            Fallback::IntegrationPoint => {
                "an SVG <title>, <desc> or <foreignObject> with URL attributes or elements in it (lol_html reads them as HTML)"
            }
            Fallback::LeadingBom => {
                "removing the <base> that opens it would leave a byte order mark first"
            }
            Fallback::UndecodableTarget => "an id or a name that does not decode in the document's encoding",
            Fallback::ForeignTarget => "an <a name> or a <template> in or beside SVG or MathML",
            Fallback::ScanMismatch => {
                "the tag scanner and lol_html read the markup differently (foreign content, script)"
            }
        }
    }
}

/// One start tag as the source has it: its name, and each attribute's name and value range.
struct SourceTag {
    name: String,
    html: bool,
    range: Range<usize>,
    attrs: Vec<SourceAttr>,
}

/// One attribute of a [`SourceTag`]: its name, its value's range (`None` without a value) and
/// where its name ends.
struct SourceAttr {
    name: String,
    value: Option<Range<usize>>,
    name_end: Option<usize>,
}

/// The start tags of `bytes` named in `elements`, with their attributes named in `attrs`, in
/// source order (lol_html, read-only). Filtering here keeps the pass cheap: most tags and
/// attributes of a page have nothing to change.
fn source_tags(
    bytes: &[u8],
    encoding: &'static Encoding,
    elements: HashSet<String>,
    attrs: HashSet<String>,
) -> Result<Vec<SourceTag>, Fallback> {
    let encoding = lol_html::AsciiCompatibleEncoding::new(encoding).ok_or(Fallback::Tokenizer)?;
    let tags = Rc::new(RefCell::new(Vec::new()));
    let sink = tags.clone();
    let settings = lol_html::Settings::new()
        .with_encoding(encoding)
        // Past this lol_html stops with an error rather than buffering an endless tag.
        .with_memory_settings(
            lol_html::MemorySettings::new().with_max_allowed_memory_usage(64 * 1024 * 1024),
        )
        .append_element_content_handler(lol_html::element!("*", move |el| {
            let name = el.tag_name();
            if !elements.contains(&name) {
                return Ok(());
            }
            let attrs = el
                .attributes()
                .iter()
                .map(|a| SourceAttr {
                    name: a.name(),
                    value: a.value_source_location().map(|l| l.bytes()),
                    name_end: a.name_source_location().map(|l| l.bytes().end),
                })
                // Kept in order (the first of duplicates counts), but only names that matter.
                .filter(|a| attrs.contains(&a.name))
                .collect();
            sink.borrow_mut().push(SourceTag {
                name,
                html: el.namespace_uri() == "http://www.w3.org/1999/xhtml",
                range: el.source_location().bytes(),
                attrs,
            });
            Ok(())
        }));
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter
        .write(bytes)
        .and_then(|()| rewriter.end())
        .map_err(|_| Fallback::Tokenizer)?;
    Ok(tags.take())
}

/// The edit plan both engines produce: ranges of the input, sorted and non-overlapping, each
/// with the bytes (in the document's encoding) that replace it. The streaming engine builds it
/// as it reads; the DOM engine's plan becomes one in [`splice`]; [`write_spliced`] writes it.
pub(crate) type Splices = Vec<(Range<usize>, Vec<u8>)>;

/// `bytes` with `splices` written in, to `out`.
pub(crate) fn write_spliced(
    bytes: &[u8],
    splices: &[(Range<usize>, Vec<u8>)],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut at = 0;
    for (range, text) in splices {
        out.write_all(bytes.get(at..range.start).unwrap_or_default())?;
        out.write_all(text)?;
        at = range.end;
    }
    out.write_all(bytes.get(at..).unwrap_or_default())
}

/// `bytes` with `splices` written in.
pub(crate) fn apply(bytes: &[u8], splices: &[(Range<usize>, Vec<u8>)]) -> Vec<u8> {
    let extra: usize = splices.iter().map(|(_, b)| b.len()).sum();
    let mut out = Vec::with_capacity(bytes.len() + extra);
    // Writing into memory does not fail.
    let _ = write_spliced(bytes, splices, &mut out);
    out
}

/// The key an edit and a source occurrence share.
type Key = (String, String, String);

/// The DOM engine's plan (and `extra` values at known ranges) as changes to the input's bytes,
/// or why that cannot be done exactly.
pub(crate) fn splice(
    bytes: &[u8],
    doc: &Document,
    plan: &Plan,
    encoding: &'static Encoding,
    extra: &[(Range<usize>, String)],
) -> Result<Splices, Fallback> {
    if plan.edits.is_empty() && extra.is_empty() {
        return Ok(Splices::new());
    }
    // Per key: the new value, how many of the tree's elements have an edit for it, and how many
    // source occurrences were matched.
    let mut changes: HashMap<Key, (String, usize, usize)> = HashMap::new();
    // Per `<base href>` value removed: removals planned, source occurrences matched.
    let mut removals: HashMap<String, (usize, usize)> = HashMap::new();
    for edit in &plan.edits {
        let element = doc
            .element(edit.node)
            .map(|e| e.name().to_ascii_lowercase())
            .ok_or(Fallback::Unmatched)?;
        match &edit.target {
            EditTarget::Attribute { ns, name } => {
                let attr = source_name(*ns, name).ok_or(Fallback::Unmatched)?;
                let entry = changes
                    .entry((element, attr, edit.old.clone()))
                    .or_insert_with(|| (edit.new.clone(), 0, 0));
                if entry.0 != edit.new {
                    return Err(Fallback::Unmatched);
                }
                entry.1 += 1;
            }
            EditTarget::Remove if element == "base" => {
                removals.entry(edit.old.clone()).or_default().0 += 1;
            }
            EditTarget::Remove | EditTarget::Text => return Err(Fallback::TextEdit),
        }
    }
    // Source occurrences are matched by value: when an element of the tree has a key that is
    // edited elsewhere but is to stay as it is itself (an ignored second `<base href="">`
    // beside the first, made absolute), the bytes cannot tell them apart.
    let mut in_tree: HashMap<Key, usize> = HashMap::new();
    let mut bases_in_tree: HashMap<String, usize> = HashMap::new();
    for e in doc.elements() {
        let element = e.name().to_ascii_lowercase();
        e.for_each_attr(|ns, name, value| {
            let Some(attr) = source_name(ns, name) else {
                return;
            };
            let key = (element.clone(), attr, value.to_owned());
            if changes.contains_key(&key) {
                *in_tree.entry(key).or_default() += 1;
            }
        });
        if element == "base" {
            if let Some(href) = e.attr("href").filter(|h| removals.contains_key(h)) {
                *bases_in_tree.entry(href).or_default() += 1;
            }
        }
    }
    let ambiguous = changes
        .iter()
        .any(|(key, (_, edits, _))| in_tree.get(key).copied().unwrap_or(0) > *edits)
        || removals
            .iter()
            .any(|(href, (edits, _))| bases_in_tree.get(href).copied().unwrap_or(0) > *edits);
    if ambiguous {
        return Err(Fallback::Unmatched);
    }
    let mut elements: HashSet<String> = changes.keys().map(|(e, _, _)| e.clone()).collect();
    let mut attrs: HashSet<String> = changes.keys().map(|(_, a, _)| a.clone()).collect();
    if elements.contains("img") {
        elements.insert("image".to_owned());
    }
    if !removals.is_empty() {
        elements.insert("base".to_owned());
        attrs.insert("href".to_owned());
    }
    let mut splices: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
    // Values whose ranges are already known (inside conditional comments).
    for (range, new) in extra {
        let (replace, text) = escaped(bytes, range.clone(), new);
        splices.push((replace, encoding.encode(&text).0.into_owned()));
    }
    for tag in source_tags(bytes, encoding, elements, attrs)? {
        // HTML LS "in body": a start tag `image` is treated as `img` (SVG has its own `image`).
        let name = if tag.html && tag.name == "image" {
            "img".to_owned()
        } else {
            tag.name
        };
        let mut seen: Vec<&str> = Vec::new();
        for SourceAttr {
            name: attr,
            value: range,
            name_end,
        } in &tag.attrs
        {
            // Only the first of duplicate attributes exists in the tree.
            if seen.contains(&attr.as_str()) {
                continue;
            }
            seen.push(attr);
            // An attribute without a value has the value "" in the tree.
            let value = match range {
                Some(range) => {
                    let raw = bytes.get(range.clone()).ok_or(Fallback::Unmatched)?;
                    decode_attribute(raw, encoding).ok_or(Fallback::Undecodable)?
                }
                None => String::new(),
            };
            if name == "base" && attr == "href" {
                if let Some((_, count)) = removals.get_mut(&value) {
                    *count += 1;
                    splices.push((tag.range.clone(), Vec::new()));
                    continue;
                }
            }
            let key = (name.clone(), attr.clone(), value);
            if let Some((new, _, count)) = changes.get_mut(&key) {
                let byte = |i: usize| bytes.get(i).copied();
                let Some((replace, text)) = value_splice(&byte, range.clone(), *name_end, new)
                else {
                    continue;
                };
                *count += 1;
                let (encoded, _, _) = encoding.encode(&text);
                splices.push((replace, encoded.into_owned()));
            }
        }
    }
    if changes.values().any(|(_, _, n)| *n == 0) || removals.values().any(|(_, n)| *n == 0) {
        return Err(Fallback::Unmatched);
    }
    splices.sort_by_key(|(r, _)| r.start);
    // A removed <base> contains its own href's range: what it contains is already replaced.
    let mut end = 0;
    splices.retain(|(range, _)| {
        let keep = range.start >= end;
        if keep {
            end = range.end;
        }
        keep
    });
    if splices.last().is_some_and(|(r, _)| r.end > bytes.len()) {
        return Err(Fallback::Unmatched);
    }
    // A document's first bytes decide its encoding when they are a byte order mark (HTML LS
    // §13.2.3.1): removing what comes first must not make one out of what follows.
    if let Some((first, new)) = splices.first() {
        let after = bytes.get(first.end..).unwrap_or_default();
        if first.start == 0 && new.is_empty() && Encoding::for_bom(after).is_some() {
            return Err(Fallback::LeadingBom);
        }
    }
    Ok(splices)
}

/// An attribute's name as lol_html gives it in the source (`xlink:href`), or `None` for a
/// namespace the source cannot spell.
fn source_name(ns: AttrNs, name: &str) -> Option<String> {
    let name = name.to_ascii_lowercase();
    match ns {
        AttrNs::None => Some(name),
        AttrNs::XLink => Some(format!("xlink:{name}")),
        AttrNs::Xml => Some(format!("xml:{name}")),
        AttrNs::Other => None,
    }
}

/// The replacement of the value at `range`: `&` and the quote in use escaped; an unquoted value
/// is quoted when the new text needs it (HTML LS §13.2.5.38 unquoted attribute value state), the
/// quotes going just outside the range.
pub(crate) fn escaped(bytes: &[u8], range: Range<usize>, new: &str) -> (Range<usize>, String) {
    let before = range
        .start
        .checked_sub(1)
        .and_then(|i| bytes.get(i))
        .copied();
    let after = bytes.get(range.end).copied();
    escaped_around(before, after, range, new)
}

/// The splice that gives an attribute the value `new`: over its value's `range`, or, for a
/// valueless attribute whose name ends at `name_end`, an `="new"` inserted after the name.
/// `byte(i)` is the document's byte at offset `i` (where known). `None` without either range.
pub(crate) fn value_splice(
    byte: &dyn Fn(usize) -> Option<u8>,
    range: Option<Range<usize>>,
    name_end: Option<usize>,
    new: &str,
) -> Option<(Range<usize>, String)> {
    match (range, name_end) {
        (Some(range), _) => {
            let before = range.start.checked_sub(1).and_then(byte);
            let after = byte(range.end);
            Some(escaped_around(before, after, range, new))
        }
        (None, Some(end)) => {
            let (_, text) = escaped_around(None, None, 0..0, new);
            let quoted = if text.starts_with('"') {
                text
            } else {
                format!("\"{text}\"")
            };
            // `href=` with nothing before `>` (or `/`) has an `=` already: the value goes after
            // it, or the `=` would start another attribute.
            let mut at = end;
            while byte(at).is_some_and(|b| crate::base::is_ascii_whitespace(char::from(b))) {
                at += 1;
            }
            Some(if byte(at) == Some(b'=') {
                (at + 1..at + 1, quoted)
            } else {
                (end..end, format!("={quoted}"))
            })
        }
        (None, None) => None,
    }
}

/// [`escaped`], given the bytes just before and after the value.
pub(crate) fn escaped_around(
    before: Option<u8>,
    after: Option<u8>,
    range: Range<usize>,
    new: &str,
) -> (Range<usize>, String) {
    let quote = match (before, after) {
        (Some(q @ (b'"' | b'\'')), Some(a)) if a == q => Some(q),
        _ => None,
    };
    let needs_quotes = new.is_empty()
        || new.bytes().any(|c| {
            matches!(
                c,
                b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'"' | b'\'' | b'=' | b'<' | b'>' | b'`'
            )
        });
    let quote = match quote {
        Some(q) => char::from(q),
        None if needs_quotes => '"',
        None => '\0',
    };
    let mut text = String::with_capacity(new.len() + 2);
    let mut rest = new;
    // Copied a run at a time up to each `&` or quote.
    while let Some(at) = memchr::memchr3(b'&', b'"', b'\'', rest.as_bytes()) {
        let (run, tail) = rest.split_at(at);
        text.push_str(run);
        let c = tail.as_bytes().first().copied();
        text.push_str(match c {
            Some(b'&') => "&amp;",
            Some(b'"') if quote == '"' => "&quot;",
            Some(b'\'') if quote == '\'' => "&#39;",
            Some(b'"') => "\"",
            _ => "'",
        });
        rest = tail.get(1..).unwrap_or_default();
    }
    text.push_str(rest);
    if quote == '"' && !matches!(before, Some(b'"')) {
        return (range, format!("\"{text}\""));
    }
    (range, text)
}

/// An attribute value as the tokenizer gives it to the tree: decoded from the document's
/// encoding, newlines normalized (HTML LS §13.2.3.5), NUL replaced, and character references
/// decoded by the attribute-value rules (§13.2.5.72–80: a named reference without `;` followed
/// by `=` or an alphanumeric is left as written).
pub(crate) fn decode_attribute(raw: &[u8], encoding: &'static Encoding) -> Option<String> {
    let (text, had_errors) = encoding.decode_without_bom_handling(raw);
    if had_errors {
        return None;
    }
    // Most values have nothing to normalize or decode.
    if memchr::memchr3(b'&', b'\r', b'\0', text.as_bytes()).is_none() {
        return Some(text.into_owned());
    }
    let text = text
        .replace("\r\n", "\n")
        .replace(['\r'], "\n")
        .replace('\0', "\u{fffd}");
    if !text.contains('&') {
        return Some(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(amp) = rest.find('&') {
        out.push_str(rest.get(..amp)?);
        rest = rest.get(amp..)?;
        let (decoded, used) = char_ref(rest);
        match decoded {
            Some(s) => out.push_str(&s),
            None => out.push('&'),
        }
        rest = rest.get(used.max(1)..)?;
    }
    out.push_str(rest);
    Some(out)
}

/// The character reference at the start of `s` (which starts with `&`), in an attribute value:
/// what it decodes to, and how many bytes it takes (`None`, 1: a lone `&`).
fn char_ref(s: &str) -> (Option<String>, usize) {
    let body = s.get(1..).unwrap_or_default();
    if let Some(num) = body.strip_prefix('#') {
        let (hex, digits) = match num.strip_prefix(['x', 'X']) {
            Some(h) => (true, h),
            None => (false, num),
        };
        let len = digits
            .find(|c: char| {
                !(if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                })
            })
            .unwrap_or(digits.len());
        if len == 0 {
            return (None, 1);
        }
        let value =
            u32::from_str_radix(digits.get(..len).unwrap_or("0"), if hex { 16 } else { 10 })
                .unwrap_or(u32::MAX);
        let semicolon = digits.get(len..).is_some_and(|r| r.starts_with(';'));
        let used = 2 + usize::from(hex) + len + usize::from(semicolon);
        return (Some(numeric(value).to_string()), used);
    }
    // Named: the longest entity name that the text starts with (HTML LS named character
    // reference state), from html5ever's own table.
    let mut best: Option<(usize, (u32, u32))> = None;
    for (i, c) in body.char_indices() {
        if !(c.is_ascii_alphanumeric() || c == ';') {
            break;
        }
        let end = i + c.len_utf8();
        let Some(name) = body.get(..end) else { break };
        match markup5ever::data::NAMED_ENTITIES.get(name) {
            Some(&(0, _)) => {}
            Some(&m) => best = Some((end, m)),
            None => break,
        }
        if c == ';' {
            break;
        }
    }
    let Some((len, (a, b))) = best else {
        return (None, 1);
    };
    let ends_with_semicolon = body.get(..len).is_some_and(|n| n.ends_with(';'));
    let next = body.get(len..).and_then(|r| r.chars().next());
    if !ends_with_semicolon && next.is_some_and(|c| c == '=' || c.is_ascii_alphanumeric()) {
        // Historical reasons: `&copy=1` in a URL stays as written.
        return (None, 1);
    }
    let mut decoded = String::new();
    decoded.extend(char::from_u32(a));
    if b != 0 {
        decoded.extend(char::from_u32(b));
    }
    (Some(decoded), 1 + len)
}

/// HTML LS §13.2.5.80 numeric character reference end state.
fn numeric(value: u32) -> char {
    const C1: [u32; 32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    match value {
        0 => '\u{fffd}',
        0x80..=0x9F => C1
            .get((value - 0x80) as usize)
            .and_then(|&v| char::from_u32(v))
            .unwrap_or('\u{fffd}'),
        v => char::from_u32(v).unwrap_or('\u{fffd}'),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn dec(s: &str) -> String {
        decode_attribute(s.as_bytes(), encoding_rs::UTF_8).unwrap()
    }

    #[test]
    fn attribute_values_decode_as_the_tokenizer_does() {
        assert_eq!(dec("a&amp;b"), "a&b");
        assert_eq!(dec("?a=1&copy=2"), "?a=1&copy=2");
        assert_eq!(dec("&copy;2"), "\u{a9}2");
        assert_eq!(dec("&copy 2"), "\u{a9} 2");
        assert_eq!(dec("&#65;&#x42;&#x43"), "ABC");
        assert_eq!(dec("&#128;"), "\u{20ac}");
        assert_eq!(dec("&#0;"), "\u{fffd}");
        assert_eq!(dec("&nosuch;&"), "&nosuch;&");
        assert_eq!(dec("a\r\nb\rc"), "a\nb\nc");
        // In an attribute, `&not` before an alphanumeric is left as written.
        assert_eq!(dec("&notin;&notit;"), "\u{2209}&notit;");
        assert_eq!(dec("&#;&#x;"), "&#;&#x;");
    }

    #[test]
    fn new_values_are_escaped_for_their_quotes() {
        let src = b"<a href=\"x\" b='y' c=z>";
        assert_eq!(escaped(src, 9..10, "a&\"'").1, "a&amp;&quot;'");
        assert_eq!(escaped(src, 15..16, "a&\"'").1, "a&amp;\"&#39;");
        assert_eq!(escaped(src, 20..21, "http://h/z").1, "http://h/z");
        assert_eq!(escaped(src, 20..21, "http://h/a b").1, "\"http://h/a b\"");
        assert_eq!(escaped(src, 20..21, "").1, "\"\"");
    }
}
