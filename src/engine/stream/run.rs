//! The streaming engine's entry points: a document in memory, a document streamed from its file
//! (pass 1 then pass 2), an `iframe srcdoc` document, and the fragment targets.

use std::io::Read as _;

use encoding_rs::Encoding;

use super::chunks::{CheckedChunks, Chunks, ReaderChunks};
use super::tag::{read_tag, RawTag};
use super::walk::*;
use crate::base::{with_base_element, Base, Outer};
use crate::decode::Decoded;
use crate::engine::Fallback;
use crate::error::Diagnostic;
use crate::report::LinkTally;
use crate::rewrite::{Link, RewriteOptions};
use crate::splice::{decode_attribute, Splices};
use crate::tree::NodeId;

/// What the streaming engine found and decided for one document.
#[derive(Debug)]
pub(crate) struct Streamed {
    /// The base every URL was resolved against.
    pub base: Base,
    /// Every URL occurrence, in source order (none with [`Links::Tally`]).
    pub links: Vec<Link>,
    /// With [`Links::Tally`], the links counted instead of kept.
    pub tally: LinkTally,
    /// Document-level findings (ignored bases, …).
    pub diagnostics: Vec<Diagnostic>,
    /// The changes to the input's bytes.
    pub splices: Splices,
}

impl Streamed {
    /// The input with the changes written in.
    pub(crate) fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        crate::splice::apply(bytes, &self.splices)
    }
}

/// The streaming engine over a whole document whose encoding is sniffed (`decoded`) and whose
/// outer layers are `outer`; `Err` says why the DOM engine must take it.
pub(crate) fn run(
    bytes: &[u8],
    decoded: &Decoded,
    outer: &Outer,
    options: &RewriteOptions,
    links: Links,
) -> Result<Streamed, Fallback> {
    if options.drop_base {
        // Which bases may go depends on every link of the document (rewrite::drop_bases).
        return Err(Fallback::DropBase);
    }
    let tentative = decoded.source.is_tentative();
    let (base, diagnostics, out) =
        rewrite_guessing_base(bytes, decoded.encoding, tentative, outer, options, 0, links)?;
    Ok(Streamed {
        base,
        links: out.found.links,
        tally: out.tally.unwrap_or_default(),
        diagnostics,
        splices: out.splices,
    })
}

/// Pass 2 over a document in memory, its base guessed from the bytes (the first `<base>` start
/// tag with an `href`, [`guess_base`]) and checked by the walk itself ([`Pass::verify`]); when
/// the tree context says otherwise (the guess sits in a comment, a template, SVG, …), the walk
/// is made again on the base it found. So one walk settles both, where a separate pass 1 read
/// the document up to its base first (all of it when the base comes last).
fn rewrite_guessing_base(
    bytes: &[u8],
    encoding: &'static Encoding,
    tentative: bool,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
    links: Links,
) -> Result<(Base, Vec<Diagnostic>, PassOut), Fallback> {
    let attempt = |chosen: Option<(usize, String)>, verify: bool| {
        let mut diagnostics = Vec::new();
        let (base, pass) = Pass {
            tentative,
            ..Pass::over(Mode::Rewrite, bytes, encoding, outer, options, depth)
        }
        .on_base(chosen, verify, &mut diagnostics);
        let mut out = pass.run_in_memory(base.clone(), links)?;
        diagnostics.append(&mut out.diagnostics);
        Ok((base, diagnostics, out))
    };
    let mut budget = GUESS_TAGS;
    let guess = guess_base(bytes, encoding, &mut budget);
    // Without a `<base href` in the bytes there is no base element to find.
    let verify = guess != Guess::NoBase;
    let (base, diagnostics, out) = attempt(guess.chosen(), verify)?;
    if !verify || out.base == guess.chosen() {
        return Ok((base, diagnostics, out));
    }
    attempt(out.base, false)
}

impl<'a> Pass<'a> {
    /// A walk in `mode` over the whole of `bytes` (none when the document comes in chunks), with
    /// nothing chosen, guessed or reported: callers set what differs.
    pub(super) fn over(
        mode: Mode,
        bytes: &'a [u8],
        encoding: &'static Encoding,
        outer: &'a Outer,
        options: &'a RewriteOptions,
        depth: usize,
    ) -> Pass<'a> {
        Pass {
            nested: nested_document,
            mode,
            bytes,
            offset: 0,
            encoding,
            outer,
            options,
            depth,
            nesting: 0,
            chosen: None,
            tentative: false,
            report_bases: false,
            verify: false,
        }
    }

    /// This pass as pass 2 on the base element `chosen` (its start tag's offset and `href`, or
    /// none): the base it gives (its findings to `diagnostics`), and the pass, reporting every
    /// other base element and, with `verify`, checking the choice as it walks.
    fn on_base(
        self,
        chosen: Option<(usize, String)>,
        verify: bool,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> (Base, Pass<'a>) {
        let base = with_base_element(
            &self.outer.base,
            chosen.as_ref().map(|(_, href)| href.as_str()),
            self.options.resolve,
            diagnostics,
        );
        let pass = Pass {
            report_bases: true,
            chosen: chosen.map(|(at, _)| NodeId(at)),
            verify,
            ..self
        };
        (base, pass)
    }
}

/// The streaming engine over a document too large to hold, read twice from `open()`: pass 1
/// reads it whole for the base (and everything else that could send it to the DOM engine);
/// pass 2 writes the output to `out` as it reads and gives every link to `on_link` as found.
/// Memory stays flat: the longest tag, and `<style>`/`<noscript>` raw text up to
/// [`MAX_HOLD`]. `decoded` is the sniffing of the document's head. Returns the base, the
/// diagnostics, and whether malformed byte sequences were met.
pub(crate) fn run_streaming<'r>(
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    decoded: &Decoded,
    outer: &Outer,
    options: &RewriteOptions,
    out: &mut dyn std::io::Write,
    on_link: &mut dyn FnMut(Link),
) -> Result<(Base, Vec<Diagnostic>, bool), StreamError> {
    if options.drop_base {
        return Err(StreamError::Fallback(Fallback::DropBase));
    }
    let encoding = decoded.encoding;
    let tentative = decoded.source.is_tentative();
    let mut chunks = ReaderChunks::new(open().map_err(StreamError::Io)?);
    let found = find_base_in(&mut chunks, encoding, tentative, outer, options)?;
    let mut diagnostics = Vec::new();
    // Pass 1 has read every `<meta>`: the encoding is settled (`tentative` false).
    let (base, pass) = Pass::over(Mode::Rewrite, &[], encoding, outer, options, 0).on_base(
        found,
        false,
        &mut diagnostics,
    );
    let io = StreamIo::new(out, on_link);
    let mut chunks = CheckedChunks::new(open().map_err(StreamError::Io)?, decoded);
    let mut out = pass.run_chunks(base.clone(), &mut chunks, Some(io), None)?;
    diagnostics.append(&mut out.diagnostics);
    Ok((base, diagnostics, chunks.malformed))
}

/// [`run_streaming`] into output that can be taken back: the base is guessed from a quick read
/// of the bytes ([`guess_base_in`]) and pass 2 writes at once, checking the guess as it goes
/// ([`Pass::verify`]); a wrong guess rewinds `out` and pass 2 runs again on the base it found,
/// and a hand-over to the DOM engine rewinds `out` before it is returned. The document is read
/// once for the guess (a memchr over its bytes) and once to rewrite it, where [`run_streaming`]
/// walks it twice. Returns the base, the diagnostics, whether malformed byte sequences were met,
/// and the links, counted.
pub(crate) fn run_streaming_rewinding<'r>(
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    decoded: &Decoded,
    outer: &Outer,
    options: &RewriteOptions,
    out: &mut dyn crate::engine::Rewind,
) -> Result<(Base, Vec<Diagnostic>, bool, LinkTally), StreamError> {
    if options.drop_base {
        return Err(StreamError::Fallback(Fallback::DropBase));
    }
    let encoding = decoded.encoding;
    let tentative = decoded.source.is_tentative();
    let guess = guess_base_in(&mut open().map_err(StreamError::Io)?, encoding)
        .map_err(StreamError::Io)?
        .chosen();
    let mut attempt =
        |chosen: Option<(usize, String)>, verify: bool, out: &mut dyn crate::engine::Rewind| {
            let mut diagnostics = Vec::new();
            let (base, pass) = Pass {
                tentative,
                ..Pass::over(Mode::Rewrite, &[], encoding, outer, options, 0)
            }
            .on_base(chosen, verify, &mut diagnostics);
            let mut tally = LinkTally::default();
            let mut count = |l: Link| tally.add_link(&l);
            let io = StreamIo {
                rewindable: true,
                ..StreamIo::new(out, &mut count)
            };
            let mut chunks = CheckedChunks::new(open().map_err(StreamError::Io)?, decoded);
            let mut done = pass.run_chunks(base.clone(), &mut chunks, Some(io), None)?;
            diagnostics.append(&mut done.diagnostics);
            Ok((base, diagnostics, chunks.malformed, tally, done.base))
        };
    // Every run checks: unlike in memory, a missing guess is not taken to mean no base.
    let result = match attempt(guess.clone(), true, out) {
        Ok((base, diagnostics, malformed, tally, found)) if found == guess => {
            return Ok((base, diagnostics, malformed, tally));
        }
        Ok((.., found)) => {
            out.rewind().map_err(StreamError::Io)?;
            attempt(found, false, out)
        }
        Err(e) => Err(e),
    };
    match result {
        Ok((base, diagnostics, malformed, tally, _)) => Ok((base, diagnostics, malformed, tally)),
        Err(StreamError::Fallback(why)) => {
            out.rewind().map_err(StreamError::Io)?;
            Err(StreamError::Fallback(why))
        }
        Err(e) => Err(e),
    }
}

/// An `iframe srcdoc` document (UTF-8 text, HTML LS §4.8.5) through the streaming engine: its
/// links, and its new text when any URL changed; `None` when the DOM engine must take it.
pub(crate) fn nested_document(
    text: &str,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
) -> Result<(Vec<Link>, Option<String>), Diagnostic> {
    match streamed_nested_document(text, outer, options, depth) {
        Some(done) => Ok(done),
        // What the streaming engine hands over, the DOM engine takes, as for a whole document.
        None => crate::engine::dom::plan::nested_document(text, outer, options, depth),
    }
}

/// [`nested_document`] by the streaming engine, `None` when the DOM engine must take it.
fn streamed_nested_document(
    text: &str,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
) -> Option<(Vec<Link>, Option<String>)> {
    let bytes = text.as_bytes();
    let (base, diagnostics, out) = rewrite_guessing_base(
        bytes,
        encoding_rs::UTF_8,
        false,
        outer,
        options,
        depth,
        Links::Keep,
    )
    .ok()?;
    let streamed = Streamed {
        base,
        links: out.found.links,
        tally: LinkTally::default(),
        diagnostics,
        splices: out.splices,
    };
    let new = (!streamed.splices.is_empty())
        .then(|| String::from_utf8(streamed.apply(bytes)).ok())
        .flatten();
    Some((streamed.links, new))
}

/// The fragment targets of a document, for `#fragment` links: every `id`, and the `name` of
/// every HTML `a`, outside `<template>` contents (HTML LS "find a potential indicated element"),
/// read with pass 2's tree context ([`Mode::Targets`]).
/// `tentative`: the encoding came from the prescan or the default, so a `<meta>` declaring
/// another one sends the document to the DOM engine (which decodes it again).
pub(crate) fn fragment_ids(
    bytes: &[u8],
    encoding: &'static Encoding,
    tentative: bool,
) -> Result<Vec<String>, Fallback> {
    with_targets_pass(bytes, encoding, tentative, |pass| {
        Ok(pass.run_in_memory(Base::none(), Links::Keep)?.targets)
    })
}

/// [`fragment_ids`] of a document read from `reader` as it arrives (a remote page): the walk
/// holds only what it has not settled, never the whole document.
pub(crate) fn fragment_ids_read(
    reader: &mut dyn std::io::Read,
    encoding: &'static Encoding,
    tentative: bool,
) -> Result<Vec<String>, StreamError> {
    with_targets_pass(&[], encoding, tentative, |pass| {
        // The walk reads the input through its window: it is written nowhere.
        let mut sink = std::io::sink();
        let mut ignore = |_: Link| {};
        let io = StreamIo::new(&mut sink, &mut ignore);
        let mut chunks = ReaderChunks::new(reader);
        Ok(pass
            .run_chunks(Base::none(), &mut chunks, Some(io), None)?
            .targets)
    })
}

/// `run` on the [`Mode::Targets`] pass over `bytes` (none for a document read in chunks).
fn with_targets_pass<T>(
    bytes: &[u8],
    encoding: &'static Encoding,
    tentative: bool,
    run: impl FnOnce(&Pass<'_>) -> T,
) -> T {
    let outer = Outer {
        base: Base::none(),
        document_uri: None,
    };
    let options = RewriteOptions::default();
    let pass = Pass {
        tentative,
        ..Pass::over(Mode::Targets, bytes, encoding, &outer, &options, 0)
    };
    run(&pass)
}

/// The base a walk over a document in memory finds ([`Pass::verify`], the rules pass 1 has),
/// or why token order cannot settle it: what pass 2 checks its guess against.
#[cfg(test)]
pub(super) fn find_base(
    bytes: &[u8],
    encoding: &'static Encoding,
    tentative: bool,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
) -> Result<Option<(usize, String)>, Fallback> {
    let pass = Pass {
        tentative,
        verify: true,
        ..Pass::over(Mode::Rewrite, bytes, encoding, outer, options, depth)
    };
    Ok(pass.run_in_memory(outer.base.clone(), Links::Tally)?.base)
}

/// Pass 1 over a document read chunk by chunk: the whole document is walked with pass 2's tree
/// context ([`Mode::FindBase`]), so whatever would send pass 2 to the DOM engine
/// does so here, before pass 2 writes a byte.
pub(super) fn find_base_in(
    chunks: &mut dyn Chunks,
    encoding: &'static Encoding,
    tentative: bool,
    outer: &Outer,
    options: &RewriteOptions,
) -> Result<Option<(usize, String)>, StreamError> {
    let pass = Pass {
        tentative,
        ..Pass::over(Mode::FindBase, &[], encoding, outer, options, 0)
    };
    // The walk reads the input through its window: it is written nowhere.
    let mut sink = std::io::sink();
    let mut ignore = |_: Link| {};
    let io = StreamIo::new(&mut sink, &mut ignore);
    Ok(pass
        .run_chunks(outer.base.clone(), chunks, Some(io), None)?
        .base)
}

/// What the bytes say of the base before the walk reads them with the tree context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Guess {
    /// No `<base>` start tag with an `href` in the bytes: the document has no base element.
    NoBase,
    /// The first one: its offset and decoded `href`. It may sit in a comment, a script, a
    /// template or SVG, so the walk checks it.
    At(usize, String),
    /// Too many `<base>` tags without an `href` to read them all cheaply: the walk finds it.
    Unknown,
}

impl Guess {
    /// The guessed base element, if any.
    fn chosen(&self) -> Option<(usize, String)> {
        match self {
            Guess::At(at, href) => Some((*at, href.clone())),
            Guess::NoBase | Guess::Unknown => None,
        }
    }
}

/// The most `<base>` tags without an `href` read for a guess, and the most bytes of each: past
/// them the guess is [`Guess::Unknown`], so hostile input (a million `<base` and no `>`)
/// costs a bounded read, not one per tag to the end of the document.
const GUESS_TAGS: usize = 64;
const GUESS_TAG_BYTES: usize = 64 << 10;

/// Whether `bytes` start with a `<base` start tag: its name ends at whitespace, `/`, `>` or the
/// end (HTML LS §13.2.5.8). Read from the five bytes, not the whole name: `<b<b<b…` costs as
/// much as it is long.
fn is_base_tag(bytes: &[u8]) -> bool {
    bytes
        .get(1..5)
        .is_some_and(|name| name.eq_ignore_ascii_case(b"base"))
        && bytes
            .get(5)
            .is_none_or(|&b| super::tag::is_space(b) || b == b'/' || b == b'>')
}

/// The first `<base>` start tag with an `href` in the bytes, read without the tree context;
/// `budget` counts the tags without one still to be read ([`GUESS_TAGS`]).
pub(super) fn guess_base(bytes: &[u8], encoding: &'static Encoding, budget: &mut usize) -> Guess {
    // `<b` and `<B` are rare enough in text that finding them is faster than visiting every `<`.
    // Each `<base` is read as a start tag (its attributes end at its `>`, quotes respected): a
    // base element without `href` (`<base target=_blank>`, common) never sets the base.
    let mut hits: Vec<usize> = [b"<b", b"<B"]
        .iter()
        .flat_map(|needle| {
            memchr::memmem::find_iter(bytes, needle)
                .filter(|&i| is_base_tag(bytes.get(i..).unwrap_or_default()))
                .take(GUESS_TAGS + 1)
        })
        .collect();
    hits.sort_unstable();
    let mut kept = Vec::new();
    for i in hits {
        let end = bytes.len().min(i.saturating_add(GUESS_TAG_BYTES));
        let bytes = bytes.get(i..end).unwrap_or_default();
        let lexed = read_tag(bytes, |n| n.eq_ignore_ascii_case(b"href"), &mut kept);
        let tag = RawTag::new(bytes, lexed);
        if let Some(href) = tag.find("href") {
            let value = href
                .value
                .clone()
                .and_then(|v| decode_attribute(tag.get(v), encoding));
            return Guess::At(i, value.unwrap_or_default());
        }
        if *budget == 0 {
            return Guess::Unknown;
        }
        *budget -= 1;
    }
    Guess::NoBase
}

/// [`guess_base`] over a document read from `reader` a megabyte at a time. What has been read
/// is searched but for its last 64 KiB, which waits for the next read so that a tag there is
/// whole (a longer tag may be misread: the walk's check catches that).
pub(super) fn guess_base_in(
    reader: &mut dyn std::io::Read,
    encoding: &'static Encoding,
) -> std::io::Result<Guess> {
    const READ: usize = 1 << 20;
    let mut budget = GUESS_TAGS;
    const TAIL: usize = 64 << 10;
    let mut buf: Vec<u8> = Vec::with_capacity(READ + TAIL);
    let mut start = 0;
    loop {
        let before = buf.len();
        let n = reader.take(READ as u64).read_to_end(&mut buf)?;
        let end = n == 0 || buf.len() - before < READ;
        let settled = if end {
            buf.len()
        } else {
            buf.len().saturating_sub(TAIL)
        };
        match guess_base(
            buf.get(..settled).unwrap_or_default(),
            encoding,
            &mut budget,
        ) {
            Guess::At(at, href) => return Ok(Guess::At(start + at, href)),
            Guess::Unknown => return Ok(Guess::Unknown),
            Guess::NoBase if end => return Ok(Guess::NoBase),
            Guess::NoBase => {}
        }
        buf.drain(..settled);
        start += settled;
    }
}
