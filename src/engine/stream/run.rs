//! The streaming engine's entry points: a document in memory, a document streamed from its file
//! (pass 1 then pass 2), an `iframe srcdoc` document, and the fragment targets.

use std::io::Read as _;

use encoding_rs::Encoding;

use super::chunks::{CheckedChunks, Chunks, ReaderChunks};
use super::tag::{read_tag, RawTag};
use super::walk::*;
use crate::base::{with_base_element, Base, Outer};
use crate::decode::Decoded;
use crate::engine::fallback::Fallback;
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
/// outer layers are `outer`: how it was decoded in the end (a `<meta>` past the prescan may
/// change the encoding: the document is then read again in it, as a browser does), and what
/// the engine found; `Err` says why the DOM engine must take it.
pub(crate) fn run(
    bytes: &[u8],
    mut decoded: Decoded,
    outer: &Outer,
    options: &RewriteOptions,
    links: Links,
) -> Result<(Decoded, Streamed), Fallback> {
    let mut tentative = decoded.source.is_tentative();
    let (base, diagnostics, out) = loop {
        let encoding = decoded.encoding;
        match rewrite_guessing_base(bytes, encoding, tentative, outer, options, 0, links) {
            Ok(done) => break done,
            Err(StreamError::Reread(declared)) if tentative => {
                let sniff = crate::decode::sniff_only_with_default;
                decoded = read_again(bytes, &decoded, declared, sniff)?;
                // The encoding is certain now (HTML LS §13.2.3.4).
                tentative = false;
            }
            Err(e) => return Err(e.fallback()),
        }
    };
    let streamed = Streamed {
        base,
        links: out.found.links,
        tally: out.tally.unwrap_or_default(),
        diagnostics,
        splices: out.splices,
    };
    Ok((decoded, streamed))
}

/// `before` changed to `declared` by a late `<meta>`, its `bytes` read by `sniff`; the DOM
/// engine takes a document whose new encoding the engine cannot read by its bytes.
fn read_again(
    bytes: &[u8],
    before: &Decoded,
    declared: &'static Encoding,
    sniff: crate::decode::Sniff,
) -> Result<Decoded, Fallback> {
    crate::decode::changed_by_late_meta(bytes, before, declared, sniff)
        .filter(|d| crate::tokenize::reads(d.encoding))
        .ok_or(Fallback::LateMeta)
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
) -> Result<(Base, Vec<Diagnostic>, PassOut), StreamError> {
    let attempt = |chosen: Option<(usize, String)>, verify: bool, dropping: Dropping| {
        let mut diagnostics = Vec::new();
        let (base, pass) = Pass {
            tentative,
            dropping,
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
    let dropping = dropping(options);
    let mut chosen = guess.chosen();
    let mut done = attempt(chosen.clone(), verify, dropping)?;
    if verify && done.2.base != chosen {
        chosen = done.2.base.clone();
        done = attempt(chosen.clone(), false, dropping)?;
    }
    if dropping == Dropping::Assumed && done.2.still_relative > 0 {
        return attempt(chosen, false, Dropping::Kept);
    }
    Ok(done)
}

#[cfg(any(test, feature = "oracle"))]
thread_local! {
    static WITH_LOL_HTML: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Test hook, not part of the API: `f` run with lol_html reading every document beside the
/// scanner from its start (`Pass::lol_html`), as the oracle of the scanner reading alone.
#[cfg(any(test, feature = "oracle"))]
pub fn with_lol_html<R>(f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            WITH_LOL_HTML.with(|w| w.set(false));
        }
    }
    WITH_LOL_HTML.with(|w| w.set(true));
    let _reset = Reset;
    f()
}

/// Whether walks start with lol_html ([`with_lol_html`]); else the scanner reads alone.
fn lol_html_from_the_start() -> bool {
    #[cfg(any(test, feature = "oracle"))]
    return WITH_LOL_HTML.with(std::cell::Cell::get);
    #[cfg(not(any(test, feature = "oracle")))]
    false
}

/// How a walk starts on `--drop-base`: assuming every base element can go.
fn dropping(options: &RewriteOptions) -> Dropping {
    if options.drop_base {
        Dropping::Assumed
    } else {
        Dropping::Off
    }
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
            lol_html: lol_html_from_the_start(),
            dropping: if mode == Mode::Rewrite {
                dropping(options)
            } else {
                Dropping::Off
            },
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

/// What the streaming engine made of a document streamed from its file.
pub(crate) struct StreamedFile {
    /// How it was decoded in the end (a late `<meta>` may change the encoding).
    pub decoded: Decoded,
    /// The base every URL was resolved against.
    pub base: Base,
    /// Document-level findings.
    pub diagnostics: Vec<Diagnostic>,
    /// Byte sequences malformed in its encoding were met (and copied as they are).
    pub malformed: bool,
    /// The links, counted ([`run_streaming_rewinding`]; [`Settled::write`] hands each on).
    pub tally: LinkTally,
}

/// A document read from `open()` as it begins, for its encoding's sniffing.
fn head<'r>(
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
) -> Result<Vec<u8>, StreamError> {
    let mut head = Vec::new();
    open()
        .and_then(|f| f.take(8192).read_to_end(&mut head))
        .map_err(StreamError::Io)?;
    Ok(head)
}

/// The streaming engine over a document too large to hold, read from `open()`, first settled
/// ([`Settled::write`] then writes it): pass 1 reads it whole for the base (and everything else
/// that could send it to the DOM engine, or make it be read in another encoding); with
/// `--drop-base`, a walk that writes nothing decides whether the base elements can go.
/// `decoded` is the sniffing of the document's head.
pub(crate) fn settle_streaming<'a, 'r>(
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    decoded: &Decoded,
    outer: &'a Outer,
    options: &'a RewriteOptions,
) -> Result<Settled<'a>, StreamError> {
    let mut decoded = decoded.clone();
    let mut tentative = decoded.source.is_tentative();
    let mut lol_html = false;
    let found = loop {
        let mut chunks = ReaderChunks::new(open().map_err(StreamError::Io)?);
        let encoding = decoded.encoding;
        match find_base_in(&mut chunks, encoding, tentative, lol_html, outer, options) {
            Err(StreamError::Reread(declared)) if tentative => {
                let sniff = crate::decode::sniff_head_with_default;
                decoded = read_again(&head(open)?, &decoded, declared, sniff)
                    .map_err(StreamError::Fallback)?;
                tentative = false;
            }
            Err(StreamError::Restart) if !lol_html => lol_html = true,
            found => break found?,
        }
    };
    let mut diagnostics = Vec::new();
    // Pass 1 has read every `<meta>`: the encoding is settled (`tentative` false); and it has
    // read everything the scanner leaves to lol_html.
    let (base, mut pass) = Pass {
        lol_html,
        ..Pass::over(Mode::Rewrite, &[], decoded.encoding, outer, options, 0)
    }
    .on_base(found, false, &mut diagnostics);
    if pass.dropping == Dropping::Assumed {
        let mut sink = std::io::sink();
        let mut ignore = |_: Link| {};
        let io = StreamIo::new(&mut sink, &mut ignore);
        let mut chunks = ReaderChunks::new(open().map_err(StreamError::Io)?);
        let counted = Pass {
            report_bases: false,
            ..pass
        }
        .run_chunks(
            base.clone(),
            &mut chunks,
            Some(io),
            Some(LinkTally::default()),
        )?;
        if counted.still_relative > 0 {
            pass.dropping = Dropping::Kept;
        }
    }
    Ok(Settled {
        decoded,
        base,
        diagnostics,
        pass,
    })
}

/// A document streamed from its file, settled by [`settle_streaming`]: its encoding, base and
/// every choice made; only pass 2 is left.
pub(crate) struct Settled<'a> {
    /// How it is decoded (a late `<meta>` may have changed the encoding).
    pub decoded: Decoded,
    base: Base,
    diagnostics: Vec<Diagnostic>,
    pass: Pass<'a>,
}

impl Settled<'_> {
    /// Pass 2: the output written to `out` as the document is read from `open()` again, every
    /// link given to `on_link` as found. Memory stays flat: the longest tag, and
    /// `<style>`/`<noscript>` raw text up to [`MAX_HOLD`].
    pub(crate) fn write<'r>(
        self,
        open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
        out: &mut dyn std::io::Write,
        on_link: &mut dyn FnMut(Link),
    ) -> Result<StreamedFile, StreamError> {
        let Settled {
            decoded,
            base,
            mut diagnostics,
            pass,
        } = self;
        let io = StreamIo::new(out, on_link);
        let mut chunks = CheckedChunks::new(open().map_err(StreamError::Io)?, &decoded);
        let mut done = pass.run_chunks(base.clone(), &mut chunks, Some(io), None)?;
        diagnostics.append(&mut done.diagnostics);
        Ok(StreamedFile {
            malformed: chunks.malformed,
            decoded,
            base,
            diagnostics,
            tally: LinkTally::default(),
        })
    }
}

/// [`settle_streaming`] and [`Settled::write`] into output that can be taken back: the base is guessed from a quick read
/// of the bytes ([`guess_base_in`]) and pass 2 writes at once, checking the guess as it goes
/// ([`Pass::verify`]); a wrong guess rewinds `out` and pass 2 runs again on the base it found,
/// and so does a late `<meta>` that changes the encoding, or `--drop-base` where some link
/// still needs the base element; a hand-over to the DOM engine rewinds `out` before it is
/// returned. The document is read once for the guess (a memchr over its bytes) and once to
/// rewrite it, where pass 1 and pass 2 walk it twice. The links are counted.
pub(crate) fn run_streaming_rewinding<'r>(
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    decoded: &Decoded,
    outer: &Outer,
    options: &RewriteOptions,
    out: &mut dyn super::output::Rewind,
) -> Result<StreamedFile, StreamError> {
    let mut decoded = decoded.clone();
    let guess = guess_base_in(&mut open().map_err(StreamError::Io)?, decoded.encoding)
        .map_err(StreamError::Io)?
        .chosen();
    let attempt = |open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
                   decoded: &Decoded,
                   (tentative, lol_html): (bool, bool),
                   chosen: Option<(usize, String)>,
                   verify: bool,
                   dropping: Dropping,
                   out: &mut dyn super::output::Rewind| {
        let mut diagnostics = Vec::new();
        let (base, pass) = Pass {
            tentative,
            dropping,
            lol_html,
            ..Pass::over(Mode::Rewrite, &[], decoded.encoding, outer, options, 0)
        }
        .on_base(chosen, verify, &mut diagnostics);
        // The links are counted ([`Links::Tally`]), not handed on.
        let mut ignore = |_: Link| {};
        let io = StreamIo {
            rewindable: true,
            ..StreamIo::new(out, &mut ignore)
        };
        let mut chunks = CheckedChunks::new(open().map_err(StreamError::Io)?, decoded);
        let tally = Some(LinkTally::default());
        let mut done = pass.run_chunks(base.clone(), &mut chunks, Some(io), tally)?;
        diagnostics.append(&mut done.diagnostics);
        let file = StreamedFile {
            decoded: decoded.clone(),
            base,
            diagnostics,
            malformed: chunks.malformed,
            tally: done.tally.unwrap_or_default(),
        };
        Ok((file, done.base, done.still_relative))
    };
    let mut tentative = decoded.source.is_tentative();
    let mut lol_html = false;
    let mut dropping = dropping(options);
    // Every run checks: unlike in memory, a missing guess is not taken to mean no base.
    let mut chosen = guess;
    let mut verify = true;
    let result = loop {
        match attempt(
            open,
            &decoded,
            (tentative, lol_html),
            chosen.clone(),
            verify,
            dropping,
            out,
        ) {
            Ok((file, found, still_relative)) => {
                if verify && found != chosen {
                    chosen = found;
                    verify = false;
                } else if dropping == Dropping::Assumed && still_relative > 0 {
                    dropping = Dropping::Kept;
                } else {
                    break Ok(file);
                }
            }
            Err(StreamError::Reread(declared)) if tentative => {
                let sniff = crate::decode::sniff_head_with_default;
                match read_again(&head(open)?, &decoded, declared, sniff) {
                    Ok(again) => decoded = again,
                    Err(why) => break Err(StreamError::Fallback(why)),
                }
                tentative = false;
                // The guess was read in the other encoding: read it again in this one.
                chosen = guess_base_in(&mut open().map_err(StreamError::Io)?, decoded.encoding)
                    .map_err(StreamError::Io)?
                    .chosen();
                verify = true;
            }
            Err(StreamError::Restart) if !lol_html => lol_html = true,
            Err(e) => break Err(e),
        }
        out.rewind().map_err(StreamError::Io)?;
    };
    match result {
        Err(StreamError::Fallback(why)) => {
            out.rewind().map_err(StreamError::Io)?;
            Err(StreamError::Fallback(why))
        }
        result => result,
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
    with_targets_pass(bytes, encoding, tentative, false, |pass| {
        pass.run_in_memory(Base::none(), Links::Keep)
            .map(|out| out.targets)
            .map_err(StreamError::fallback)
    })
}

/// [`fragment_ids`] of a document read from `reader` as it arrives (a remote page): the walk
/// holds only what it has not settled, never the whole document.
pub(crate) fn fragment_ids_read(
    reader: &mut dyn std::io::Read,
    encoding: &'static Encoding,
    tentative: bool,
) -> Result<Vec<String>, StreamError> {
    // Read once, as it arrives: lol_html reads beside the scanner from the start, so the walk
    // never has to be made again.
    with_targets_pass(&[], encoding, tentative, true, |pass| {
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

/// `run` on the [`Mode::Targets`] pass over `bytes` (none for a document read in chunks);
/// `lol_html`: lol_html reads beside the scanner from the start ([`Pass::lol_html`]).
fn with_targets_pass<T>(
    bytes: &[u8],
    encoding: &'static Encoding,
    tentative: bool,
    lol_html: bool,
    run: impl FnOnce(&Pass<'_>) -> T,
) -> T {
    let outer = Outer {
        base: Base::none(),
        document_uri: None,
    };
    let options = RewriteOptions::default();
    let pass = Pass {
        tentative,
        lol_html: lol_html || lol_html_from_the_start(),
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
    pass.run_in_memory(outer.base.clone(), Links::Tally)
        .map(|out| out.base)
        .map_err(StreamError::fallback)
}

/// Pass 1 over a document read chunk by chunk: the whole document is walked with pass 2's tree
/// context ([`Mode::FindBase`]), so whatever would send pass 2 to the DOM engine
/// does so here, before pass 2 writes a byte.
pub(super) fn find_base_in(
    chunks: &mut dyn Chunks,
    encoding: &'static Encoding,
    tentative: bool,
    lol_html: bool,
    outer: &Outer,
    options: &RewriteOptions,
) -> Result<Option<(usize, String)>, StreamError> {
    let pass = Pass {
        tentative,
        lol_html,
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
