//! ③–⑥ The streaming engine (issue 9, `../shared/STREAMING.md`): the document is never parsed
//! into a tree. lol_html, used read-only, tokenizes the bytes as they are; a small tree-context
//! layer adds what a tokenizer does not model; the rules of [`crate::rewrite`] decide every URL;
//! and the output is the input with only the changed values replaced (byte ranges, in source
//! order).
//!
//! **Who reads which bytes.** lol_html reports only the elements after which the bytes are read
//! otherwise than as markup or in another namespace ([`REPORTED`]: `<script>`, `<svg>`, `<math>`
//! and everything inside foreign content), and it alone reads script data, foreign content and
//! decides namespaces. The markup between two reported elements is read by [`scan::Scanner`]
//! with the data-state rules (tags, comments, DOCTYPE, raw text and RCDATA); it hands on only
//! the start tags whose name or attribute names the rules care about, and each start tag's
//! name and attributes are read from its own bytes ([`tag::RawTag`]). Why not lol_html's
//! `element!("*")`: making it lex and dispatch every tag cost more than a whole naive rewrite
//! (23.6 M instructions of 28.6 M on `library/functions.html`). Every tag lol_html reports is
//! a checkpoint: the scanner must stand exactly at it, or the document goes to the DOM engine
//! ([`Fallback::ScanMismatch`]).
//!
//! **Base first.** Pass 1 looks for the first HTML `<base href>` outside `<template>` contents,
//! and runs only when the bytes `<base` occur at all; pass 2 resolves every URL against the base
//! so settled. Where token order is not tree order for the base (a `<base>` inside a table, which
//! foster parenting moves, or after `<frameset>`, which the tree builder ignores), the document
//! goes to the DOM engine instead ([`Fallback`]).
//!
//! **The tree-context layer** (STREAMING.md §2): `<template>` depth (its `<base>` never counts;
//! its links are still rewritten), `<image>` read as `img` in HTML, the first of duplicate
//! attributes only, `xlink:href` by namespace, SVG names in their HTML LS case, `<style>` text,
//! `<noscript>` (raw text to lol_html, as with scripting on: its bytes are run through a nested
//! pass, as consumers without scripting read them, offsets mapped back) and `iframe srcdoc`
//! (a document of its own, rewritten by a nested pass).
//!
//! Known differences from the DOM engine, by design: links are reported per source occurrence
//! (an `<a>` cloned by the adoption agency is one link; a nested `<form action>`, inert in the
//! DOM, is reported and rewritten, which is harmless); the attributes of a second `<html>` or
//! `<body>` tag are rewritten where they are written.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;

use crate::base::{with_base_element, Base, Outer};
use crate::decode::{self, Decoded, EncodingSource};
use crate::dom::{AttrNs, ElementNs, NodeId};
use crate::error::Diagnostic;
use crate::report::LinkTally;
use crate::rewrite::{EditTarget, ElementView, Found, Link, Planner, RewriteOptions, MAX_NESTING};
use crate::splice::{decode_attribute, value_splice, Fallback, Splices};

mod scan;
mod tag;
use tag::{tree_name, RawTag};

/// lol_html's buffers are bounded by this; a longer tag or comment is handed to the DOM engine.
const MEMORY_LIMIT: usize = 64 * 1024 * 1024;

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";
const SVG_NS: &str = "http://www.w3.org/2000/svg";
const MATHML_NS: &str = "http://www.w3.org/1998/Math/MathML";

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

/// What the engine does with each link once it is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Every link kept, in source order ([`Streamed::links`]).
    Keep,
    /// Only counted ([`Streamed::tally`]): memory does not grow with the number of links.
    Tally,
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
    let encoding = decoded.encoding;
    let mut diagnostics = Vec::new();
    let tentative = matches!(
        decoded.source,
        EncodingSource::Meta | EncodingSource::Fallback
    );
    let chosen = find_base(bytes, encoding, tentative, outer, options, 0)?;
    let base = with_base_element(
        &outer.base,
        chosen.as_ref().map(|(_, href)| href.as_str()),
        options.resolve,
        &mut diagnostics,
    );
    let pass = Pass {
        mode: Mode::Rewrite,
        bytes,
        offset: 0,
        encoding,
        outer,
        options,
        depth: 0,
        nesting: 0,
        chosen: chosen.map(|(at, _)| NodeId(at)),
        tentative,
        report_bases: true,
    };
    let mut out = pass.run_in_memory(base.clone(), links)?;
    diagnostics.append(&mut out.diagnostics);
    Ok(Streamed {
        base,
        links: out.found.links,
        tally: out.tally.unwrap_or_default(),
        diagnostics,
        splices: out.splices,
    })
}

/// The streaming engine over a document too large to hold, read twice from `open()`: pass 1
/// reads it whole for the base (and everything else that could send it to the DOM engine);
/// pass 2 writes the output to `out` as it reads and gives every link to `on_link` as found.
/// Memory stays flat: the longest tag, and `<style>`/`<noscript>` raw text up to
/// [`MAX_HOLD`]. `decoded` is the sniffing of the document's head. Returns the base, the
/// diagnostics, and whether malformed byte sequences were met.
pub(crate) fn run_streaming(
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read>>,
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
    let tentative = matches!(
        decoded.source,
        EncodingSource::Meta | EncodingSource::Fallback
    );
    let mut chunks = ReaderChunks::new(open().map_err(StreamError::Io)?);
    let found = find_base_in(&mut chunks, encoding, tentative, outer, options)?;
    let mut diagnostics = Vec::new();
    let base = with_base_element(
        &outer.base,
        found.as_ref().map(|(_, href)| href.as_str()),
        options.resolve,
        &mut diagnostics,
    );
    let pass = Pass {
        mode: Mode::Rewrite,
        bytes: &[],
        offset: 0,
        encoding,
        outer,
        options,
        depth: 0,
        nesting: 0,
        chosen: found.map(|(at, _)| NodeId(at)),
        // Pass 1 has read every `<meta>`.
        tentative: false,
        report_bases: true,
    };
    let io = StreamIo::new(out, on_link);
    let mut chunks = CheckedChunks::new(open().map_err(StreamError::Io)?, decoded);
    let mut out = pass.run_chunks(base.clone(), &mut chunks, Some(io), None)?;
    diagnostics.append(&mut out.diagnostics);
    Ok((base, diagnostics, chunks.malformed))
}

/// Chunks, checked on the way for byte sequences malformed in the document's encoding.
struct CheckedChunks<R> {
    inner: ReaderChunks<R>,
    decoder: encoding_rs::Decoder,
    buffer: Vec<u8>,
    malformed: bool,
    /// The byte order mark is not text.
    skip_bom: bool,
}

impl<R: std::io::Read> CheckedChunks<R> {
    fn new(reader: R, decoded: &Decoded) -> CheckedChunks<R> {
        CheckedChunks {
            inner: ReaderChunks::new(reader),
            decoder: decoded.encoding.new_decoder_without_bom_handling(),
            buffer: vec![0; 16 * 1024],
            malformed: false,
            skip_bom: decoded.bom,
        }
    }
}

impl<R: std::io::Read> Chunks for CheckedChunks<R> {
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
        let chunk = self.inner.next_chunk()?;
        if let (Some(chunk), false) = (chunk, self.malformed) {
            let mut input = chunk;
            if std::mem::take(&mut self.skip_bom) {
                let bom = encoding_rs::Encoding::for_bom(chunk).map_or(0, |(_, n)| n);
                input = input.get(bom..).unwrap_or_default();
            }
            loop {
                let (result, read, _) =
                    self.decoder
                        .decode_to_utf8_without_replacement(input, &mut self.buffer, false);
                input = input.get(read..).unwrap_or_default();
                match result {
                    encoding_rs::DecoderResult::InputEmpty => break,
                    encoding_rs::DecoderResult::OutputFull => {}
                    encoding_rs::DecoderResult::Malformed(..) => {
                        self.malformed = true;
                        break;
                    }
                }
            }
        }
        Ok(chunk)
    }
}

/// An `iframe srcdoc` document (UTF-8 text, HTML LS §4.8.5) through the streaming engine: its
/// links, and its new text when any URL changed; `None` when the DOM engine must take it.
pub(crate) fn nested_document(
    text: &str,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
) -> Option<(Vec<Link>, Option<String>)> {
    let bytes = text.as_bytes();
    let encoding = encoding_rs::UTF_8;
    let mut diagnostics = Vec::new();
    let chosen = find_base(bytes, encoding, false, outer, options, depth).ok()?;
    let base = with_base_element(
        &outer.base,
        chosen.as_ref().map(|(_, href)| href.as_str()),
        options.resolve,
        &mut diagnostics,
    );
    let pass = Pass {
        mode: Mode::Rewrite,
        bytes,
        offset: 0,
        encoding,
        outer,
        options,
        depth,
        nesting: 0,
        chosen: chosen.map(|(at, _)| NodeId(at)),
        tentative: false,
        report_bases: true,
    };
    let out = pass.run(base.clone()).ok()?;
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
    let outer = Outer {
        base: Base::none(),
        document_uri: None,
    };
    let options = RewriteOptions::default();
    let pass = Pass {
        mode: Mode::Targets,
        bytes,
        offset: 0,
        encoding,
        outer: &outer,
        options: &options,
        depth: 0,
        nesting: 0,
        chosen: None,
        tentative,
        report_bases: false,
    };
    Ok(pass.run_in_memory(Base::none(), Links::Keep)?.targets)
}

/// Pass 1 over a document in memory ([`Mode::FindBase`]): the first HTML `<base>` with an
/// `href` outside `<template>` contents (its start tag's offset and its decoded `href`), or why
/// token order cannot settle it. Skipped when `<base` does not occur in the bytes.
fn find_base(
    bytes: &[u8],
    encoding: &'static Encoding,
    tentative: bool,
    outer: &Outer,
    options: &RewriteOptions,
    depth: usize,
) -> Result<Option<(usize, String)>, Fallback> {
    if !may_have_base_href(bytes) {
        return Ok(None);
    }
    let pass = Pass {
        mode: Mode::FindBase { full: false },
        bytes,
        offset: 0,
        encoding,
        outer,
        options,
        depth,
        nesting: 0,
        chosen: None,
        tentative,
        report_bases: false,
    };
    Ok(pass.run_in_memory(outer.base.clone(), Links::Keep)?.base)
}

/// Pass 1 over a document read chunk by chunk: the whole document is walked with pass 2's tree
/// context ([`Mode::FindBase`] with `full`), so whatever would send pass 2 to the DOM engine
/// does so here, before pass 2 writes a byte.
fn find_base_in(
    chunks: &mut dyn Chunks,
    encoding: &'static Encoding,
    tentative: bool,
    outer: &Outer,
    options: &RewriteOptions,
) -> Result<Option<(usize, String)>, StreamError> {
    let pass = Pass {
        mode: Mode::FindBase { full: true },
        bytes: &[],
        offset: 0,
        encoding,
        outer,
        options,
        depth: 0,
        nesting: 0,
        chosen: None,
        tentative,
        report_bases: false,
    };
    // The walk reads the input through its window: it is written nowhere.
    let mut sink = std::io::sink();
    let mut ignore = |_: Link| {};
    let io = StreamIo::new(&mut sink, &mut ignore);
    Ok(pass
        .run_chunks(outer.base.clone(), chunks, Some(io), None)?
        .base)
}

/// Why a streamed document could not be finished.
#[derive(Debug)]
pub(crate) enum StreamError {
    /// The DOM engine must take it.
    Fallback(Fallback),
    /// Reading or writing failed.
    Io(std::io::Error),
}

/// The bytes of a document, chunk by chunk.
pub(crate) trait Chunks {
    /// The next chunk; `None` at the end.
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>>;
}

/// A document in memory: one chunk.
struct SliceChunks<'a>(Option<&'a [u8]>);

impl Chunks for SliceChunks<'_> {
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
        Ok(self.0.take())
    }
}

/// A document read from a reader, 64 KiB at a time.
pub(crate) struct ReaderChunks<R> {
    reader: R,
    buffer: Vec<u8>,
}

impl<R: std::io::Read> ReaderChunks<R> {
    /// Chunks of `reader`.
    pub(crate) fn new(reader: R) -> ReaderChunks<R> {
        ReaderChunks {
            reader,
            buffer: vec![0; 64 * 1024],
        }
    }
}

impl<R: std::io::Read> Chunks for ReaderChunks<R> {
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
        let n = loop {
            match self.reader.read(&mut self.buffer) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        Ok((n > 0).then(|| self.buffer.get(..n)).flatten())
    }
}

/// Whether the bytes `<base` occur, ASCII case-insensitively.
fn may_have_base_href(bytes: &[u8]) -> bool {
    // `<b` and `<B` are rare enough in text that finding them is faster than visiting every `<`.
    // Each `<base` is read as a start tag (its attributes end at its `>`, quotes respected): a
    // base element without `href` (`<base target=_blank>`, common) never sets the base, and one
    // in a comment or a script only costs a needless pass 1.
    [b"<b", b"<B"].iter().any(|needle| {
        memchr::memmem::find_iter(bytes, needle).any(|i| {
            let tag = RawTag::new(bytes.get(i..).unwrap_or_default());
            tag.is("base") && tag.has_attr("href")
        })
    })
}

/// What a walk over the document is for. All three read the markup with one tree-context layer
/// ([`Walk`]) and so hand a document to the DOM engine for the same reasons (issue 22).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Pass 2: every URL planned, and the values that change spliced.
    Rewrite,
    /// Pass 1: the first HTML `<base>` with an `href` outside `<template>` contents. With
    /// `full`, the walk goes on to the end, so that everything that could send pass 2 to the
    /// DOM engine is known before pass 2 writes a byte; without, it stops at that base.
    FindBase { full: bool },
    /// The fragment targets (HTML LS "find a potential indicated element"): every `id`, and the
    /// `name` of every HTML `a`, outside `<template>` contents.
    Targets,
}

/// One walk over `bytes` (the document, or `<noscript>` markup inside it at `offset`).
struct Pass<'a> {
    mode: Mode,
    bytes: &'a [u8],
    /// Where `bytes` starts in the document (for `<noscript>` markup).
    offset: usize,
    encoding: &'static Encoding,
    outer: &'a Outer,
    options: &'a RewriteOptions,
    /// `iframe srcdoc` depth.
    depth: usize,
    /// `<noscript>` depth.
    nesting: usize,
    /// The `<base>` pass 1 chose (its start tag's offset).
    chosen: Option<NodeId>,
    /// The encoding is only tentative: a `<meta>` declaring another one sends the document to
    /// the DOM engine, which re-decodes it (HTML LS "change the encoding").
    tentative: bool,
    /// Report `<base href>` elements other than the chosen one.
    report_bases: bool,
}

/// What one pass produces.
struct PassOut {
    found: Found,
    /// [`Links::Tally`]: the settled links are counted here and dropped.
    tally: Option<LinkTally>,
    splices: Vec<(Range<usize>, Vec<u8>)>,
    diagnostics: Vec<Diagnostic>,
    /// [`Mode::FindBase`]: the chosen `<base>`, its start tag's offset and decoded `href`.
    base: Option<(usize, String)>,
    /// [`Mode::Targets`]: the fragment targets, in source order.
    targets: Vec<String>,
}

/// An end tag lol_html reported: where it is (document offsets) and what it ends. Recorded by
/// an end tag handler (which must be `'static`) and acted on, in source order with the tags the
/// scanner finds, before anything after it.
struct Ended {
    tag: Range<usize>,
    event: EndEvent,
}

/// Records `event` at `end`, an end tag of a pass that starts at `offset`.
fn push_end(
    events: &RefCell<Vec<Ended>>,
    offset: usize,
    end: &lol_html::html_content::EndTag<'_>,
    event: EndEvent,
) {
    let at = end.source_location().bytes();
    events.borrow_mut().push(Ended {
        tag: offset + at.start..offset + at.end,
        event,
    });
}

/// The elements lol_html reports to pass 2: those after whose start tag the bytes are read
/// otherwise (raw text, RCDATA, script data, plaintext; HTML LS §13.2.6.4.7 "in body"), the
/// foreign content and everything in it, and `<template>`. The markup between them is read by
/// [`scan::Scanner`].
const REPORTED: &str = "script, svg, math, svg *, math *";

/// [`REPORTED`]'s names: a start tag of one of them found by the scanner means it and lol_html
/// read the markup differently.
const REPORTED_NAMES: [&str; 3] = ["script", "svg", "math"];

/// Whether a tag name (as written) is one of [`REPORTED_NAMES`].
fn is_reported(name: &[u8]) -> bool {
    REPORTED_NAMES
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
}

/// The HTML elements whose content lol_html reads as raw text, RCDATA, script data or
/// plaintext (its tree builder simulator, for a start tag in HTML content).
/// `<script>`, or one of the scanner's raw text and RCDATA elements.
fn switches_text(raw: &RawTag<'_>) -> bool {
    raw.is("script") || scan::raw_text_index(raw.name()).is_some()
}

/// How far [`Walk::sync`] reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// To a tag lol_html reported: the scan must stand exactly at it.
    Checkpoint,
    /// As far as the bytes read so far go.
    Partial,
    /// To the end of the input.
    End,
}

enum EndEvent {
    /// The end of raw text, RCDATA or script data other than `<style>` and `<noscript>`.
    RawText,
    /// `</template>`; `false` when lol_html closed the template at another end tag.
    Template(bool),
    /// The end of an SVG `<title>`, `<desc>` or `<foreignObject>`; `proper`: at its own end tag.
    IntegrationPoint {
        proper: bool,
    },
    /// The end of `<svg>` (`svg`) or `<math>`; `proper`: at its own end tag (lol_html also
    /// pops it at an end tag of an element around it, `<form><svg></form>`, where the tree
    /// builder keeps it open).
    Foreign {
        svg: bool,
        proper: bool,
    },
    Style {
        node: NodeId,
        content: Range<usize>,
    },
    Noscript {
        node: NodeId,
        content: Range<usize>,
    },
}

/// The state an element handler works on.
struct Walk<'p, 'w> {
    pass: &'p Pass<'p>,
    planner: Planner<'p>,
    out: PassOut,
    template: usize,
    /// Open `<svg>` and `<math>` elements.
    svg: usize,
    math: usize,
    /// Open SVG HTML integration points (`<title>`, `<desc>`, `<foreignObject>`).
    integration: usize,
    /// Open HTML `<table>` elements ([`Mode::FindBase`] only): a `<base>` in a table is moved
    /// by foster parenting. Elements closed implicitly are not counted down, which can only
    /// send a later base to the DOM engine.
    table: usize,
    meta_seen: bool,
    bail: Option<Fallback>,
    /// [`Mode::FindBase`] without `full`: the base is found, nothing after it matters.
    done: bool,
    /// An HTML `<style>` (`true`) or `<noscript>` whose end tag has not come (raw text runs to
    /// the end of the input when it never does), with where its content starts.
    open: Option<(bool, NodeId, usize)>,
    /// An SVG `<style>` whose end tag has not come: its text is markup, not raw text.
    svg_style: Option<NodeId>,
    /// Writing as the input is read (pass 2 of [`run_streaming`]); `None`: splices are
    /// collected for the whole document.
    io: Option<StreamIo<'w>>,
    /// Reads the markup between the elements lol_html reports.
    scan: scan::Scanner,
    /// What a scan found, to act on (kept to reuse its allocation).
    found_tags: Vec<scan::Found>,
}

/// Pass 2 writing as it reads: the output, every link as found, and the input not yet written.
struct StreamIo<'a> {
    out: &'a mut dyn std::io::Write,
    on_link: &'a mut dyn FnMut(Link),
    /// Input bytes from `start` on: read, not yet written.
    window: Vec<u8>,
    start: usize,
    /// Output from here on is held: the content of a `<style>` or `<noscript>` (this element),
    /// whose URLs are known only at its end tag.
    hold: Option<(usize, NodeId)>,
    /// The next splice of `PassOut::splices` to write.
    next_splice: usize,
    /// A held element given up on (past [`MAX_HOLD`]): its end is not acted on.
    abandoned: Option<NodeId>,
    error: Option<std::io::Error>,
}

impl<'a> StreamIo<'a> {
    /// Writing to `out` from the start of the input, links to `on_link`.
    fn new(out: &'a mut dyn std::io::Write, on_link: &'a mut dyn FnMut(Link)) -> StreamIo<'a> {
        StreamIo {
            out,
            on_link,
            window: Vec::new(),
            start: 0,
            hold: None,
            next_splice: 0,
            abandoned: None,
            error: None,
        }
    }
}

/// How much of a document in memory the scanner reads before what it found is acted on (the
/// unit tests and the fuzz targets use a small odd step so every input crosses step boundaries).
const SCAN_STEP: usize = if cfg!(any(test, fuzzing)) {
    61
} else {
    64 * 1024
};

/// The most raw text (`<style>`, `<noscript>`) held to rewrite its URLs when streaming; a larger
/// element is copied as it is, with a diagnostic.
const MAX_HOLD: usize = 16 * 1024 * 1024;

impl<'a> Pass<'a> {
    /// Pass 2 over the bytes in memory, every link kept.
    fn run(&self, base: Base) -> Result<PassOut, Fallback> {
        self.run_in_memory(base, Links::Keep)
    }

    /// Pass 2 over the bytes in memory.
    fn run_in_memory(&self, base: Base, links: Links) -> Result<PassOut, Fallback> {
        let tally = (links == Links::Tally).then(LinkTally::default);
        match self.run_chunks(base, &mut SliceChunks(Some(self.bytes)), None, tally) {
            Ok(out) => Ok(out),
            Err(StreamError::Fallback(why)) => Err(why),
            Err(StreamError::Io(_)) => Err(Fallback::Tokenizer),
        }
    }

    /// Pass 2 over `chunks`; with `io`, written out as it is read (links to its `on_link`);
    /// with `tally`, links counted there instead of kept.
    fn run_chunks<'w>(
        &self,
        base: Base,
        chunks: &mut dyn Chunks,
        io: Option<StreamIo<'w>>,
        tally: Option<LinkTally>,
    ) -> Result<PassOut, StreamError> {
        let mut planner_diagnostics = Vec::new();
        let mut planner = Planner::new(
            base,
            self.outer,
            self.options,
            self.depth,
            self.encoding,
            &mut planner_diagnostics,
        );
        planner.nested = Some(nested_document);
        let walk = RefCell::new(Walk {
            pass: self,
            planner,
            out: PassOut {
                found: Found::default(),
                tally,
                splices: Vec::new(),
                diagnostics: planner_diagnostics,
                base: None,
                targets: Vec::new(),
            },
            template: 0,
            svg: 0,
            math: 0,
            integration: 0,
            table: 0,
            meta_seen: false,
            bail: None,
            done: false,
            open: None,
            svg_style: None,
            io,
            scan: scan::Scanner::new(self.offset),
            found_tags: Vec::new(),
        });
        let events: Rc<RefCell<Vec<Ended>>> = Rc::default();
        let lol_encoding = lol_html::AsciiCompatibleEncoding::new(self.encoding)
            .ok_or(StreamError::Fallback(Fallback::Tokenizer))?;
        let handler_events = events.clone();
        let settings = lol_html::Settings::new()
            .with_encoding(lol_encoding)
            .with_memory_settings(
                lol_html::MemorySettings::new().with_max_allowed_memory_usage(MEMORY_LIMIT),
            )
            .append_element_content_handler(lol_html::element!(REPORTED, |el| {
                let mut walk = walk.borrow_mut();
                walk.reported(el, &handler_events);
                walk.deliver_links();
                if walk.stopped() {
                    return Err("fallback".into());
                }
                Ok(())
            }));
        // With no mutation, lol_html's output is its input: how much it has passed on is the
        // watermark up to which everything is decided (every handler before it has run).
        let emitted = std::cell::Cell::new(0usize);
        let mut rewriter =
            lol_html::HtmlRewriter::new(settings, |c: &[u8]| emitted.set(emitted.get() + c.len()));
        let mut result = Ok(());
        let mut fed = 0;
        loop {
            let chunk = match chunks.next_chunk() {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => return Err(StreamError::Io(e)),
            };
            fed += chunk.len();
            if let Some(io) = &mut walk.borrow_mut().io {
                io.window.extend_from_slice(chunk);
            }
            result = rewriter.write(chunk);
            if result.is_err() {
                break;
            }
            let mut walk = walk.borrow_mut();
            walk.sync(&events, self.offset + fed, Reach::Partial);
            walk.deliver_links();
            if walk.stopped() {
                break;
            }
            // Written up to what lol_html has passed on (every handler before it has run) and
            // the scanner has read (every tag before it has been acted on).
            let settled = if walk.scan.is_opaque() {
                emitted.get()
            } else {
                emitted.get().min(walk.scan.settled() - self.offset)
            };
            walk.flush(self.offset + settled);
            walk.bound_hold(fed);
        }
        let result = if result.is_ok() {
            rewriter.end()
        } else {
            drop(rewriter);
            result
        };
        let mut walk = walk.into_inner();
        if let Some(why) = walk.bail {
            return Err(StreamError::Fallback(why));
        }
        if walk.done {
            return Ok(walk.out);
        }
        result.map_err(|_| StreamError::Fallback(Fallback::Tokenizer))?;
        walk.sync(&events, self.offset + fed, Reach::End);
        // Raw text without an end tag runs to the end of the input (HTML LS §13.2.5.3).
        if let Some((style, node, start)) = walk.open.take() {
            let content = start..self.offset + fed;
            walk.end(if style {
                EndEvent::Style { node, content }
            } else {
                EndEvent::Noscript { node, content }
            });
        }
        walk.deliver_links();
        if walk.svg_style.is_some() {
            walk.bail = Some(Fallback::ForeignStyle);
        }
        if let Some(why) = walk.bail {
            return Err(StreamError::Fallback(why));
        }
        if let Some(io) = &mut walk.io {
            io.hold = None;
        }
        walk.flush(self.offset + fed);
        if let Some(e) = walk.io.as_mut().and_then(|io| io.error.take()) {
            return Err(StreamError::Io(e));
        }
        if let Some(io) = &mut walk.io {
            io.out.flush().map_err(StreamError::Io)?;
        }
        let mut out = walk.out;
        out.splices.sort_by_key(|(r, _)| r.start);
        Ok(out)
    }
}

/// A start tag as the rules see it.
struct Tag {
    id: NodeId,
    name: String,
    ns: ElementNs,
    /// Namespace, local name, decoded value, the raw value's range in the document (`None`
    /// for a valueless attribute) and where the name ends (to give a valueless one a value).
    attrs: Vec<TagAttr>,
}

struct TagAttr {
    ns: AttrNs,
    name: String,
    value: String,
    range: Option<Range<usize>>,
    name_end: Option<usize>,
    /// The raw value decodes in the document's encoding, so a new one can be written.
    writable: bool,
}

impl ElementView for Tag {
    fn id(&self) -> NodeId {
        self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn ns(&self) -> ElementNs {
        self.ns
    }
    fn attr(&self, name: &str) -> Option<String> {
        self.attrs
            .iter()
            .find(|a| a.ns == AttrNs::None && a.name == name)
            .map(|a| a.value.clone())
    }
    fn for_each_attr(&self, f: &mut dyn FnMut(AttrNs, &str, &str)) {
        for a in &self.attrs {
            f(a.ns, &a.name, &a.value);
        }
    }
}

impl Walk<'_, '_> {
    /// Whether the walk ends here: the DOM engine must take the document, or (pass 1) the
    /// base is found.
    fn stopped(&self) -> bool {
        self.bail.is_some() || self.done
    }

    /// Whether the walk reads an attribute of this raw name (ASCII case-insensitively).
    fn reads(&self, raw: &[u8]) -> bool {
        is_read_attribute(raw)
            || (self.pass.mode == Mode::Targets
                && (raw.eq_ignore_ascii_case(b"id") || raw.eq_ignore_ascii_case(b"name")))
    }

    /// Whether a start tag can matter to this walk: a name the context layer tracks, or an
    /// attribute it reads.
    fn matters(&self, raw: &RawTag<'_>) -> bool {
        matters_name(raw.name())
            || (matches!(self.pass.mode, Mode::FindBase { .. }) && raw.is("table"))
            || raw.attrs().any(|a| self.reads(raw.get(a.name)))
    }

    /// A start tag at `tag` (document offsets) in namespace `ns`: one lol_html reports (`el`),
    /// or one the scanner found between them (HTML, and never one lol_html reports).
    fn start(
        &mut self,
        tag: Range<usize>,
        ns: ElementNs,
        mut el: Option<&mut lol_html::html_content::Element<'_, '_>>,
        events: &Rc<RefCell<Vec<Ended>>>,
    ) {
        let pass = self.pass;
        let at = tag.start;
        // The tag's own bytes are at hand: they have not been written yet.
        let Some(raw) = self.input(tag.clone()).map(RawTag::new) else {
            return;
        };
        let in_foreign =
            matches!(ns, ElementNs::Svg | ElementNs::MathMl) || self.svg + self.math > 0;
        if in_foreign && is_breakout(&tree_name(raw.name(), pass.encoding), &raw) {
            // HTML LS §13.2.6.5: these start tags leave foreign content in the tree; lol_html
            // keeps some of them in SVG or MathML (`<svg><svg><i>`, `<svg><svg><s><e href>`),
            // so what follows them may be read in the wrong namespace, link or not. Where it
            // does leave (`<svg><i>` is HTML to it), the open `<svg>` it popped never ends for
            // our count, and a later `<svg/>` leaves it in SVG (`<svg><i><svg/><e href>`).
            self.bail = Some(Fallback::MathMlStray);
            return;
        }
        // Most start tags hold no URL and need no context (measured: decoding every value of
        // every tag was half the time): answer those from the raw bytes, without allocating.
        if !self.matters(&raw) {
            return;
        }
        // The tokenizer reads U+0000 in a name as U+FFFD (HTML LS "tag name state").
        let mut name = tree_name(raw.name(), pass.encoding);
        if ns == ElementNs::Html && matches!(name.as_str(), "frame" | "frameset") {
            // The tree keeps a <frame> only inside <frameset> (in body it is ignored), and after
            // <frameset> it ignores almost everything (`<frameset><a href>`): which is which takes
            // the tree builder's insertion modes, so the DOM engine decides.
            self.bail = Some(Fallback::Frame);
            return;
        }
        if self.math > 0 {
            // Inside MathML, lol_html's idea of which elements are HTML (integration points) and
            // which end tags close what parts from the tree builder's (`<math><a><mi></a><a
            // href>`: MathML `a` in the tree). A link there is rare: the DOM engine takes it.
            self.bail = Some(Fallback::MathMlStray);
            return;
        }
        if ns == ElementNs::MathMl && !is_mathml_element(&name) {
            // Not a MathML element: it is in MathML content only because lol_html did not leave
            // it where the tree builder does (an HTML end tag in foreign content, such as
            // `<a><math></a>`, pops back to HTML there).
            self.bail = Some(Fallback::MathMlStray);
            return;
        }
        if ns == ElementNs::Html && name == "image" {
            // HTML LS "in body": a start tag `image` is treated as `img`.
            name = "img".to_owned();
        } else if ns == ElementNs::Svg {
            if let Some(adjusted) = svg_tag_name(&name) {
                name = adjusted.to_owned();
            }
        }
        if matches!(name.as_str(), "svg" | "math") {
            let svg = name == "svg";
            // lol_html starts a namespace at every <svg>/<math>; the tree builder puts a <math>
            // inside SVG content (and an <svg> inside MathML) in the outer namespace.
            if (svg && self.math > 0) || (!svg && self.svg > 0) {
                self.bail = Some(Fallback::ForeignNesting);
                return;
            }
            let events = events.clone();
            let offset = pass.offset;
            let closes = el.as_mut().map(|el| {
                el.on_end_tag(lol_html::end_tag!(move |end| {
                    let proper = end
                        .name()
                        .eq_ignore_ascii_case(if svg { "svg" } else { "math" });
                    push_end(&events, offset, end, EndEvent::Foreign { svg, proper });
                    Ok(())
                }))
            });
            if closes.is_some_and(|c| c.is_ok()) {
                if svg {
                    self.svg += 1;
                } else {
                    self.math += 1;
                }
            }
        }
        let end = tag.end;
        let tag = self.tag(at, tag.end - tag.start, NodeId(at), name, ns);
        let html = ns == ElementNs::Html;
        // The <template> element itself is outside its contents.
        let in_template = self.template > 0;
        match (html, tag.name.as_str()) {
            (true, "template") => {
                self.template += 1;
                let events = events.clone();
                let offset = pass.offset;
                if let Some(el) = el.as_mut() {
                    let _ = el.on_end_tag(lol_html::end_tag!(move |end| {
                        let proper = end.name().eq_ignore_ascii_case("template");
                        push_end(&events, offset, end, EndEvent::Template(proper));
                        Ok(())
                    }));
                }
            }
            (true, "meta") if pass.tentative && !self.meta_seen && self.template == 0 => {
                let declared = decode::meta_element_encoding(
                    tag.attr("charset").as_deref(),
                    tag.attr("http-equiv").as_deref(),
                    tag.attr("content").as_deref(),
                );
                if let Some(encoding) = declared {
                    self.meta_seen = true;
                    if encoding != pass.encoding {
                        self.bail = Some(Fallback::LateMeta);
                        return;
                    }
                }
            }
            (true, "base") if pass.report_bases && self.template == 0 => {
                if let Some(href) = tag.attr("href") {
                    if Some(tag.id) != pass.chosen {
                        self.out.diagnostics.push(Diagnostic::new(
                            crate::error::DiagnosticCode::DuplicateBase,
                            format!("<base href={href:?}> is not the first base element with an href; browsers ignore it"),
                        ));
                    }
                }
            }
            _ => {}
        }
        match pass.mode {
            Mode::Rewrite => {}
            Mode::FindBase { full } => self.choose_base(&tag, in_template, full),
            Mode::Targets => self.target(&tag, in_template),
        }
        if self.stopped() {
            return;
        }
        let content = (tag.name == "style" && matches!(ns, ElementNs::Html | ElementNs::Svg))
            .then_some(true)
            .or((html && tag.name == "noscript").then_some(false));
        if let Some(style) = content {
            let events = events.clone();
            let node = tag.id;
            let offset = pass.offset;
            let start = end;
            if html {
                self.open = Some((style, node, start));
            } else if self.svg_style.is_some() {
                // A <style> inside an SVG <style>: the outer one holds markup.
                self.bail = Some(Fallback::ForeignStyle);
                return;
            } else {
                self.svg_style = Some(node);
            }
            if let Some(io) = &mut self.io {
                io.hold.get_or_insert((start, node));
            }
            if let Some(el) = el.as_mut() {
                let _ = el.on_end_tag(lol_html::end_tag!(move |end| {
                    let content = start..offset + end.source_location().bytes().start;
                    push_end(
                        &events,
                        offset,
                        end,
                        if style {
                            EndEvent::Style { node, content }
                        } else {
                            EndEvent::Noscript { node, content }
                        },
                    );
                    Ok(())
                }));
            }
        }
        if pass.mode != Mode::Rewrite {
            return;
        }
        let before = self.out.found.edits.len();
        let links_before = self.out.found.links.len();
        self.planner
            .attributes(&mut self.out.found, &tag, pass.chosen);
        let edits: Vec<_> = self.out.found.edits.drain(before..).collect();
        for edit in edits {
            let EditTarget::Attribute { ns, name } = &edit.target else {
                continue;
            };
            let Some(attr) = tag.attrs.iter().find(|a| a.ns == *ns && a.name == *name) else {
                continue;
            };
            if !attr.writable {
                // Reported as resolved, but the raw value is not text in the document's
                // encoding: writing a new one would lose bytes.
                for link in self
                    .out
                    .found
                    .links
                    .get_mut(links_before..)
                    .unwrap_or_default()
                {
                    // The links of an `iframe srcdoc` document are the attribute's too.
                    let inside_srcdoc = name == "srcdoc" && link.srcdoc_depth > pass.depth;
                    if inside_srcdoc
                        || link.attribute.as_deref() == Some(attribute_name(*ns, name).as_str())
                    {
                        link.rewritten = false;
                    }
                }
                continue;
            }
            let byte = |i: usize| self.input(i..i + 1).and_then(|b| b.first().copied());
            let Some(splice) = value_splice(&byte, attr.range.clone(), attr.name_end, &edit.new)
            else {
                continue;
            };
            let (encoded, _, _) = pass.encoding.encode(&splice.1);
            self.push_splice(splice.0, encoded.into_owned());
        }
    }

    /// Pass 1 ([`Mode::FindBase`]) at a start tag the context layer let through: the first
    /// HTML `<base href>` outside template contents is the one (HTML LS §4.2.3 "frozen base
    /// URL"), unless foster parenting could move it.
    fn choose_base(&mut self, tag: &Tag, in_template: bool, full: bool) {
        match (tag.ns, tag.name.as_str()) {
            (ElementNs::Html, "table") => self.table += 1,
            (ElementNs::Html, "base") if !in_template && self.out.base.is_none() => {
                let Some(href) = tag
                    .attrs
                    .iter()
                    .find(|a| a.ns == AttrNs::None && a.name == "href")
                else {
                    return;
                };
                if self.table > 0 {
                    self.bail = Some(Fallback::AmbiguousBase);
                } else if !href.writable {
                    // Bytes that do not decode: the DOM engine decides what the tree holds.
                    self.bail = Some(Fallback::Undecodable);
                } else {
                    self.out.base = Some((tag.id.0, href.value.clone()));
                    self.done = !full;
                }
            }
            // lol_html stays in SVG after a self-closing `<svg/>`, and after an `<svg>` closed
            // by another end tag (`<a><svg></a>`), where the tree is back in HTML: a `<base>`
            // it reads as SVG's with no `<svg>` open to us may be HTML's.
            (ElementNs::Svg, "base") if self.svg == 0 => self.bail = Some(Fallback::MathMlStray),
            _ => {}
        }
    }

    /// [`Mode::Targets`] at a start tag the context layer let through: its `id`, and an HTML
    /// `a`'s `name` (HTML LS "find a potential indicated element"), outside template contents.
    fn target(&mut self, tag: &Tag, in_template: bool) {
        let value = |name: &str| {
            tag.attrs
                .iter()
                .find(|a| a.ns == AttrNs::None && a.name == name)
        };
        let anchor = tag.name == "a";
        let foreign = tag.ns != ElementNs::Html || self.svg + self.math > 0;
        if foreign && (tag.name == "template" || (anchor && value("name").is_some())) {
            self.bail = Some(Fallback::ForeignTarget);
            return;
        }
        let id = value("id");
        let name = value("name").filter(|_| anchor);
        if id.iter().chain(name.iter()).any(|a| !a.writable) {
            self.bail = Some(Fallback::UndecodableTarget);
            return;
        }
        if in_template {
            return;
        }
        let targets = &mut self.out.targets;
        targets.extend(id.iter().chain(name.iter()).map(|a| a.value.clone()));
    }

    /// The element's attributes as the tree would have them (the tag is the `len` bytes at
    /// document offset `at`).
    fn tag(&self, at: usize, len: usize, id: NodeId, name: String, ns: ElementNs) -> Tag {
        let encoding = self.pass.encoding;
        let raw = RawTag::new(self.input(at..at + len).unwrap_or_default());
        let mut attrs: Vec<TagAttr> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for a in raw.attrs() {
            if !self.reads(raw.get(a.name.clone())) {
                continue;
            }
            let raw_name = tree_name(raw.get(a.name.clone()), encoding);
            // Only the first of duplicate attributes exists in the tree (HTML LS §13.2.5.33).
            if seen.contains(&raw_name) {
                continue;
            }
            seen.push(raw_name.clone());
            let (attr_ns, local) = if ns == ElementNs::Html {
                (AttrNs::None, raw_name)
            } else {
                foreign_attribute(raw_name)
            };
            let value_raw = a.value.clone().map(|v| raw.get(v)).unwrap_or_default();
            let decoded = decode_attribute(value_raw, encoding);
            let writable = decoded.is_some();
            let value = decoded.unwrap_or_else(|| {
                let lossy = encoding.decode_without_bom_handling(value_raw).0;
                decode_attribute(lossy.as_bytes(), encoding_rs::UTF_8).unwrap_or_default()
            });
            attrs.push(TagAttr {
                ns: attr_ns,
                name: local,
                value,
                range: a.value.map(|v| at + v.start..at + v.end),
                name_end: Some(at + a.name.end),
                writable,
            });
        }
        Tag {
            id,
            name,
            ns,
            attrs,
        }
    }

    /// Acts on everything before `upto` in source order: the end tags lol_html reported (in
    /// `events`) and the start tags the scanner finds between them.
    fn sync(&mut self, events: &Rc<RefCell<Vec<Ended>>>, upto: usize, reach: Reach) {
        let pending = std::mem::take(&mut *events.borrow_mut());
        for ended in pending {
            if self.stopped() {
                return;
            }
            if self.scan.is_opaque() {
                // Raw text ends only at its own end tag, which lol_html reports.
                if !matches!(
                    ended.event,
                    EndEvent::RawText | EndEvent::Style { .. } | EndEvent::Noscript { .. }
                ) || self.svg_style.is_some()
                {
                    self.bail = Some(Fallback::ScanMismatch);
                    return;
                }
            } else {
                self.scan_to(ended.tag.start, Reach::Checkpoint);
            }
            self.scan.resume_at(ended.tag.end);
            self.end(ended.event);
        }
        if !self.stopped() {
            self.scan_to(upto, reach);
        }
    }

    /// Scans to `limit`, acting on each start tag found.
    fn scan_to(&mut self, limit: usize, reach: Reach) {
        if self.stopped() || self.scan.is_opaque() {
            return;
        }
        let foreign = self.svg + self.math > 0;
        // In foreign content every start tag found is a disagreement with lol_html, and so is
        // `</br>` or `</p>`: the tree builder leaves foreign content for them (HTML LS "in
        // foreign content": they break out as a breakout start tag does), lol_html does not.
        let interest = if foreign {
            &scan::Interest {
                name: |_| true,
                attr: |_| true,
                end_name: |name| {
                    name.eq_ignore_ascii_case(b"br") || name.eq_ignore_ascii_case(b"p")
                },
            }
        } else {
            match self.pass.mode {
                Mode::Rewrite => &scan::Interest {
                    name: |name| matters_name(name) || is_reported(name),
                    attr: is_read_attribute,
                    end_name: |name| name.eq_ignore_ascii_case(b"template"),
                },
                Mode::FindBase { .. } => &scan::Interest {
                    name: |name| {
                        matters_name(name)
                            || is_reported(name)
                            || name.eq_ignore_ascii_case(b"table")
                    },
                    attr: is_read_attribute,
                    end_name: |name| {
                        name.eq_ignore_ascii_case(b"template")
                            || name.eq_ignore_ascii_case(b"table")
                    },
                },
                Mode::Targets => &scan::Interest {
                    name: |name| matters_name(name) || is_reported(name),
                    attr: |name| {
                        is_read_attribute(name)
                            || name.eq_ignore_ascii_case(b"id")
                            || name.eq_ignore_ascii_case(b"name")
                    },
                    end_name: |name| name.eq_ignore_ascii_case(b"template"),
                },
            }
        };
        // In memory the window is the whole document: it is read a slice at a time, so that
        // the tags found (and, counting links, the links) do not pile up between two tags
        // lol_html reports (the scanner resumes where it stopped).
        let step = match self.io {
            Some(_) => usize::MAX,
            None => SCAN_STEP,
        };
        let mut found = std::mem::take(&mut self.found_tags);
        loop {
            let before = self.scan.settled();
            let upto = limit.min(before.saturating_add(step));
            let (window, base) = match &self.io {
                Some(io) => (io.window.as_slice(), io.start),
                None => (self.pass.bytes, self.pass.offset),
            };
            self.scan.scan(
                scan::Window {
                    bytes: window,
                    base,
                    eof: reach == Reach::End,
                },
                upto,
                foreign,
                interest,
                &mut |f| found.push(f),
            );
            self.act_on(&mut found, foreign);
            self.deliver_links();
            // Standing where it stood, the scanner waits for input that is not there yet (a
            // construct cut by the end of what was read): a larger step would not move it.
            let stuck = self.scan.settled() == before;
            if upto >= limit || stuck || self.stopped() || self.scan.is_opaque() {
                break;
            }
        }
        self.found_tags = found;
        if reach == Reach::Checkpoint && !self.stopped() && !self.scan.is_at(limit) {
            // The scanner and lol_html read the markup before this tag differently.
            self.bail = Some(Fallback::ScanMismatch);
        }
    }

    /// Acts on what a scan found, in source order.
    fn act_on(&mut self, found: &mut Vec<scan::Found>, foreign: bool) {
        for item in found.drain(..) {
            if self.stopped() {
                break;
            }
            match item {
                scan::Found::StartTag(tag) => {
                    let reported = self
                        .input(tag.clone())
                        .map(RawTag::new)
                        .is_some_and(|raw| is_reported(raw.name()));
                    if foreign || reported {
                        // In foreign content lol_html reports every element; and it reports
                        // these names everywhere: one found here was read otherwise by lol_html.
                        self.bail = Some(Fallback::ScanMismatch);
                        break;
                    }
                    self.start(tag, ElementNs::Html, None, &Rc::default());
                }
                scan::Found::EndTag(_) if foreign => {
                    self.bail = Some(Fallback::ForeignEnd);
                    break;
                }
                scan::Found::EndTag(tag) => {
                    // A template is closed by its own end tag only (it is a scope boundary).
                    // (`</template …>` read from its `/` on names the element.)
                    let Some(raw) = self.input(tag.clone()).and_then(|raw| raw.get(1..)) else {
                        continue;
                    };
                    let raw = RawTag::new(raw);
                    if raw.is("template") {
                        self.template = self.template.saturating_sub(1);
                    } else if raw.is("table") {
                        self.table = self.table.saturating_sub(1);
                    }
                }
                scan::Found::TextEnd { tag, name, content } => {
                    let node = NodeId(tag);
                    match name {
                        b"style" => self.end(EndEvent::Style { node, content }),
                        b"noscript" => self.end(EndEvent::Noscript { node, content }),
                        _ => {}
                    }
                }
            }
        }
    }

    /// A start tag lol_html reports: what comes before it, then the tag.
    fn reported(
        &mut self,
        el: &mut lol_html::html_content::Element<'_, '_>,
        events: &Rc<RefCell<Vec<Ended>>>,
    ) {
        let offset = self.pass.offset;
        let location = el.source_location().bytes();
        let tag = offset + location.start..offset + location.end;
        self.sync(events, tag.start, Reach::Checkpoint);
        if self.scan.is_opaque() {
            // lol_html reports no tag inside raw text: it did not read this as raw text.
            self.bail = Some(Fallback::ScanMismatch);
        }
        if self.stopped() {
            return;
        }
        let ns = match el.namespace_uri() {
            HTML_NS => ElementNs::Html,
            SVG_NS => ElementNs::Svg,
            MATHML_NS => ElementNs::MathMl,
            _ => ElementNs::Other,
        };
        let Some(raw) = self.input(tag.clone()).map(RawTag::new) else {
            return;
        };
        // lol_html gives SVG's HTML integration points (`<svg><title>`) the namespace of their
        // content, HTML; and an HTML `<title>` inside `<foreignObject>` reads the same.
        let integration_point = self.svg > 0
            && ns == ElementNs::Html
            && ["title", "desc", "foreignobject"].iter().any(|n| raw.is(n));
        if integration_point && self.matters(&raw) {
            self.bail = Some(Fallback::IntegrationPoint);
            return;
        }
        // Inside SVG a `<title>` is left to the scanner's checks: RCDATA to lol_html only when
        // it is HTML's (a tag the scanner then finds in it sends the document to the DOM engine).
        let raw_text =
            ns == ElementNs::Html && !(integration_point && raw.is("title")) && switches_text(&raw);
        let is_style_or_noscript = raw.is("style") || raw.is("noscript");
        let name = raw.name().to_ascii_lowercase();
        if self.integration > 0 {
            // An element inside an SVG integration point: lol_html and the tree builder part on
            // which end tags close the point (`<svg><title><t></title>` leaves the title open in
            // the tree: an HTML element is current), and so on the namespace of what follows.
            self.bail = Some(Fallback::IntegrationPoint);
            return;
        }
        if integration_point {
            // An end tag of an SVG element around it closes it in the tree (and lol_html pops it
            // then, running this handler) while lol_html goes on reading HTML: the namespace of
            // what follows is in doubt (`<svg><mi><title></mi><mi href>`).
            let events = events.clone();
            let closes = el.on_end_tag(lol_html::end_tag!(move |end| {
                let proper = end.name().as_bytes().eq_ignore_ascii_case(&name);
                push_end(&events, offset, end, EndEvent::IntegrationPoint { proper });
                Ok(())
            }));
            if closes.is_ok() {
                self.integration += 1;
            }
        }
        self.scan.resume_at(tag.end);
        if raw_text {
            self.scan.opaque();
            if !is_style_or_noscript {
                let events = events.clone();
                let _ = el.on_end_tag(lol_html::end_tag!(move |end| {
                    push_end(&events, offset, end, EndEvent::RawText);
                    Ok(())
                }));
            }
        }
        self.start(tag, ns, Some(el), events);
    }

    /// The end of an element whose content matters.
    fn end(&mut self, event: EndEvent) {
        let pass = self.pass;
        if let EndEvent::Style { node, .. } | EndEvent::Noscript { node, .. } = &event {
            self.open = None;
            if let Some(io) = &mut self.io {
                if io.hold.is_some_and(|(_, n)| n == *node) {
                    io.hold = None;
                }
                if io.abandoned == Some(*node) {
                    io.abandoned = None;
                    return;
                }
            }
        }
        match event {
            EndEvent::RawText => {}
            EndEvent::Template(true) => self.template = self.template.saturating_sub(1),
            EndEvent::Template(false) => self.bail = Some(Fallback::TemplateEnd),
            EndEvent::Foreign { proper: false, .. }
            | EndEvent::IntegrationPoint { proper: false } => {
                self.bail = Some(Fallback::ForeignEnd)
            }
            EndEvent::IntegrationPoint { proper: true } => {
                self.integration = self.integration.saturating_sub(1);
            }
            EndEvent::Foreign { svg: true, .. } => self.svg = self.svg.saturating_sub(1),
            EndEvent::Foreign { svg: false, .. } => self.math = self.math.saturating_sub(1),
            EndEvent::Style { node, content } => {
                if self.svg_style == Some(node) {
                    self.svg_style = None;
                    // Foreign content: `<` starts markup and `&` a reference, which the tree
                    // builder reads and raw text would not.
                    let raw = self.input(content.clone()).unwrap_or_default();
                    if raw.iter().any(|b| matches!(b, b'<' | b'&')) {
                        self.bail = Some(Fallback::ForeignStyle);
                        return;
                    }
                }
                if pass.mode != Mode::Rewrite {
                    return;
                }
                let raw = self.input(content.clone()).unwrap_or_default();
                let (text, malformed) = pass.encoding.decode_without_bom_handling(raw);
                let text = text.into_owned();
                let before = self.out.found.edits.len();
                let links_before = self.out.found.links.len();
                self.planner.style_text(&mut self.out.found, node, text);
                let edits: Vec<_> = self.out.found.edits.drain(before..).collect();
                for edit in edits {
                    let (encoded, _, unmappable) = pass.encoding.encode(&edit.new);
                    if malformed || unmappable {
                        // Malformed bytes would be lost, and `&#N;` means nothing in raw text:
                        // the stylesheet is kept as it was, so none of its URLs is rewritten.
                        for link in self
                            .out
                            .found
                            .links
                            .get_mut(links_before..)
                            .unwrap_or_default()
                        {
                            link.rewritten = false;
                        }
                        continue;
                    }
                    self.push_splice(content.clone(), encoded.into_owned());
                }
            }
            // Only pass 2 reads `<noscript>` markup (as consumers without scripting do): to the
            // tree builder, and so to pass 1 and to fragment targets, it is raw text.
            EndEvent::Noscript { .. } if pass.mode != Mode::Rewrite => {}
            EndEvent::Noscript { node, content } => {
                let raw = self.input(content.clone()).unwrap_or_default().to_vec();
                if pass.nesting >= MAX_NESTING {
                    // Said as the DOM engine says it (`Planner::element`), for every such
                    // `<noscript>`: what it holds is not read, so not judged either.
                    let planner = &self.planner;
                    planner.nesting_limit(&mut self.out.found, node, "noscript", None);
                    return;
                }
                if raw.iter().all(u8::is_ascii_whitespace) {
                    return;
                }
                // HTML LS §4.12.2: consumers without scripting read the content as markup; a
                // `<base>` inside it does not count (chosen is none, nothing reported).
                let inner = Pass {
                    bytes: &raw,
                    offset: content.start,
                    nesting: pass.nesting + 1,
                    chosen: None,
                    tentative: false,
                    report_bases: false,
                    ..*pass
                };
                match inner.run(self.planner.base().clone()) {
                    Ok(out) => {
                        self.out
                            .found
                            .links
                            .extend(out.found.links.into_iter().map(|mut l| {
                                l.node = node;
                                l
                            }));
                        for (range, bytes) in out.splices {
                            self.push_splice(range, bytes);
                        }
                    }
                    // Written as it is read, the document cannot go to the DOM engine now.
                    Err(why) if self.io.is_some() => self.out.diagnostics.push(Diagnostic::new(
                        crate::error::DiagnosticCode::NoscriptKept,
                        format!("a <noscript> was left as it was: {}", why.describe()),
                    )),
                    Err(why) => self.bail = Some(why),
                }
            }
        }
    }

    /// The input bytes at `range` (document offsets), if still at hand.
    fn input(&self, range: Range<usize>) -> Option<&[u8]> {
        let base = match &self.io {
            Some(io) => io.start,
            None => self.pass.offset,
        };
        let local = range.start.checked_sub(base)?..range.end.checked_sub(base)?;
        match &self.io {
            Some(io) => io.window.get(local),
            None => self.pass.bytes.get(local),
        }
    }

    /// A change, in source order.
    fn push_splice(&mut self, range: Range<usize>, bytes: Vec<u8>) {
        let splices = &mut self.out.splices;
        let sorted = splices.last().is_none_or(|(r, _)| r.start <= range.start);
        splices.push((range, bytes));
        if !sorted {
            let from = self.io.as_ref().map_or(0, |io| io.next_splice);
            if let Some(pending) = splices.get_mut(from..) {
                pending.sort_by_key(|(r, _)| r.start);
            }
        }
    }

    /// Streaming: every link found so far goes to the caller.
    fn deliver_links(&mut self) {
        if let Some(io) = &mut self.io {
            for link in self.out.found.links.drain(..) {
                (io.on_link)(link);
            }
        } else if let Some(tally) = &mut self.out.tally {
            for link in self.out.found.links.drain(..) {
                tally.add_link(&link);
            }
        }
    }

    /// Streaming: writes the output up to `upto` (a document offset every handler before which
    /// has run), or up to the start of held raw text, and forgets the input written.
    fn flush(&mut self, upto: usize) {
        let Some(io) = &mut self.io else {
            return;
        };
        let limit = io.hold.map_or(upto, |(h, _)| h.min(upto));
        let mut written = io.start;
        let mut result = Ok(());
        while written < limit && result.is_ok() {
            match self.out.splices.get(io.next_splice) {
                Some((range, text)) if range.start <= written => {
                    result = io.out.write_all(text);
                    written = written.max(range.end);
                    io.next_splice += 1;
                }
                next => {
                    let stop = next.map_or(limit, |(r, _)| r.start.min(limit));
                    let bytes = io
                        .window
                        .get(written - io.start..stop - io.start)
                        .unwrap_or_default();
                    result = io.out.write_all(bytes);
                    written = stop;
                }
            }
        }
        if let Err(e) = result {
            io.error.get_or_insert(e);
        }
        // A splice can end past what lol_html has passed on (inside the tag it just read).
        let done = (written - io.start).min(io.window.len());
        io.window.drain(..done);
        io.start += done;
        if io.next_splice > 1024 {
            self.out.splices.drain(..io.next_splice);
            io.next_splice = 0;
        }
    }

    /// Streaming: raw text held past [`MAX_HOLD`] is given up on (copied as it is).
    fn bound_hold(&mut self, fed: usize) {
        let Some(io) = &mut self.io else {
            return;
        };
        let Some((hold, node)) = io.hold else {
            return;
        };
        if fed.saturating_sub(hold) <= MAX_HOLD {
            return;
        }
        io.hold = None;
        io.abandoned = Some(node);
        if self.open.is_some_and(|(_, n, _)| n == node) {
            self.open = None;
        }
        self.out.diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::RawTextKept,
            format!(
                "a <style> or <noscript> longer than {} MiB was copied as it is, its URLs not rewritten",
                MAX_HOLD >> 20
            ),
        ));
    }
}

/// Whether the rules read an attribute of this raw name (ASCII case-insensitively): a URL
/// attribute of the table, `xlink:href`, or one a condition or the context layer reads.
fn is_read_attribute(raw: &[u8]) -> bool {
    crate::rewrite::targets::is_url_attribute_bytes(raw)
        || [&b"xlink:href"[..], b"type", b"http-equiv", b"charset"]
            .iter()
            .any(|n| raw.eq_ignore_ascii_case(n))
}

/// How the report names an attribute.
fn attribute_name(ns: AttrNs, name: &str) -> String {
    match ns {
        AttrNs::XLink => format!("xlink:{name}"),
        _ => name.to_owned(),
    }
}

/// HTML LS "adjust foreign attributes": `xlink:href` is `href` in the XLink namespace, and so on.
fn foreign_attribute(name: String) -> (AttrNs, String) {
    if let Some(local) = name.strip_prefix("xlink:") {
        return (AttrNs::XLink, local.to_owned());
    }
    if let Some(local) = name.strip_prefix("xml:") {
        return (AttrNs::Xml, local.to_owned());
    }
    if name == "xmlns" || name.starts_with("xmlns:") {
        return (AttrNs::Other, name);
    }
    (AttrNs::None, name)
}

/// HTML LS §13.2.6.5 "any other start tag" in foreign content: the start tags that break out of
/// SVG and MathML into HTML (`font` only with `color`, `face` or `size`).
fn is_breakout(name: &str, raw: &RawTag<'_>) -> bool {
    match name {
        "b" | "big" | "blockquote" | "body" | "br" | "center" | "code" | "dd" | "div" | "dl"
        | "dt" | "em" | "embed" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "head" | "hr" | "i"
        | "img" | "li" | "listing" | "menu" | "meta" | "nobr" | "ol" | "p" | "pre" | "ruby"
        | "s" | "small" | "span" | "strong" | "strike" | "sub" | "sup" | "table" | "tt" | "u"
        | "ul" | "var" => true,
        "font" => ["color", "face", "size"].iter().any(|a| raw.has_attr(a)),
        _ => false,
    }
}

/// Whether the context layer tracks elements of this name (as written).
fn matters_name(name: &[u8]) -> bool {
    // Most names are shorter than any of these, or longer: the length decides first.
    (3..=8).contains(&name.len())
        && [
            "template", "meta", "base", "style", "noscript", "svg", "math", "frameset",
        ]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
}

/// The elements of MathML (MathML 3 and MathML Core), which lol_html and the tree builder both
/// put in the MathML namespace.
fn is_mathml_element(name: &str) -> bool {
    matches!(
        name,
        "math"
            | "mi"
            | "mo"
            | "mn"
            | "ms"
            | "mtext"
            | "mspace"
            | "mglyph"
            | "mrow"
            | "mfrac"
            | "msqrt"
            | "mroot"
            | "mstyle"
            | "merror"
            | "mpadded"
            | "mphantom"
            | "mfenced"
            | "menclose"
            | "msub"
            | "msup"
            | "msubsup"
            | "munder"
            | "mover"
            | "munderover"
            | "mmultiscripts"
            | "mprescripts"
            | "none"
            | "mtable"
            | "mtr"
            | "mtd"
            | "mlabeledtr"
            | "maligngroup"
            | "malignmark"
            | "mstack"
            | "mlongdiv"
            | "msgroup"
            | "msrow"
            | "mscarries"
            | "mscarry"
            | "msline"
            | "maction"
            | "semantics"
            | "annotation"
            | "annotation-xml"
    )
}

/// HTML LS "adjust SVG tag names" (§13.2.6.5, the table in "any other start tag" in foreign
/// content): lol_html lowercases, the tree has these in camel case.
fn svg_tag_name(lower: &str) -> Option<&'static str> {
    const NAMES: [&str; 37] = [
        "altGlyph",
        "altGlyphDef",
        "altGlyphItem",
        "animateColor",
        "animateMotion",
        "animateTransform",
        "clipPath",
        "feBlend",
        "feColorMatrix",
        "feComponentTransfer",
        "feComposite",
        "feConvolveMatrix",
        "feDiffuseLighting",
        "feDisplacementMap",
        "feDistantLight",
        "feDropShadow",
        "feFlood",
        "feFuncA",
        "feFuncB",
        "feFuncG",
        "feFuncR",
        "feGaussianBlur",
        "feImage",
        "feMerge",
        "feMergeNode",
        "feMorphology",
        "feOffset",
        "fePointLight",
        "feSpecularLighting",
        "feSpotLight",
        "feTile",
        "feTurbulence",
        "foreignObject",
        "glyphRef",
        "linearGradient",
        "radialGradient",
        "textPath",
    ];
    NAMES
        .iter()
        .find(|n| n.eq_ignore_ascii_case(lower))
        .copied()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    /// Pass 1 over `bytes` in memory, no base outside.
    fn find_base(
        bytes: &[u8],
        encoding: &'static Encoding,
    ) -> Result<Option<(usize, String)>, Fallback> {
        let outer = Outer {
            base: Base::none(),
            document_uri: None,
        };
        super::find_base(
            bytes,
            encoding,
            false,
            &outer,
            &RewriteOptions::default(),
            0,
        )
    }

    /// `html` rewritten against `http://h/a/b` by the streaming engine alone.
    fn rewrite(html: &str) -> String {
        let bytes = html.as_bytes();
        let decoded = decode::sniff_only(bytes, Some("utf-8")).unwrap();
        let uri = crate::Uri::parse("http://h/a/b").ok();
        let outer = Outer {
            base: Base {
                uri: uri.clone(),
                source: crate::BaseSource::RetrievalUri,
            },
            document_uri: uri,
        };
        let streamed = run(
            bytes,
            &decoded,
            &outer,
            &RewriteOptions::default(),
            Links::Keep,
        )
        .unwrap();
        String::from_utf8(streamed.apply(bytes)).unwrap()
    }

    #[test]
    fn only_url_bytes_change() {
        assert_eq!(
            rewrite("<P CLASS=x>&nbsp;<a  HREF = 'a?x=1&amp;y=2' href=dup>a</a><image src=i>"),
            "<P CLASS=x>&nbsp;<a  HREF = 'http://h/a/a?x=1&amp;y=2' href=dup>a</a><image src=http://h/a/i>"
        );
        assert_eq!(
            rewrite("<svg><a xlink:href=s href=t></a></svg><a xlink:href=u>"),
            "<svg><a xlink:href=http://h/a/s href=http://h/a/t></a></svg><a xlink:href=u>"
        );
        assert_eq!(
            rewrite("<template><base href=/t/></template><a href=x>"),
            "<template><base href=http://h/t/></template><a href=http://h/a/x>"
        );
    }

    /// Found by `fuzz/engines.rs`: raw text whose end tag never comes runs to the end of the
    /// input, and its URLs count (the DOM engine rewrote them, the streaming engine skipped them).
    #[test]
    fn raw_text_without_an_end_tag_runs_to_the_end() {
        assert_eq!(
            rewrite("<noscript><a href=x>x</a>"),
            "<noscript><a href=http://h/a/x>x</a>"
        );
        assert_eq!(
            rewrite("<style>p{background:url(x.png)}"),
            "<style>p{background:url(http://h/a/x.png)}"
        );
        assert_eq!(
            rewrite("<noscript><a href=x></noscript><a href=y>"),
            "<noscript><a href=http://h/a/x></noscript><a href=http://h/a/y>"
        );
    }

    /// A reader that gives a few bytes at a time (1 to 7, seeded), so every boundary falls
    /// somewhere inside tags, values, references and raw text.
    struct Dribble {
        data: Vec<u8>,
        at: usize,
        seed: u64,
    }

    impl std::io::Read for Dribble {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.seed ^= self.seed << 13;
            self.seed ^= self.seed >> 7;
            self.seed ^= self.seed << 17;
            let n = ((self.seed % 7) as usize + 1)
                .min(buf.len())
                .min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// Streaming from a reader (pass 1 whole, pass 2 written as read, at random chunk sizes)
    /// gives the bytes and links of the in-memory run, or hands over the same documents.
    #[test]
    fn streaming_at_random_chunk_sizes_is_the_in_memory_run() {
        let mut docs: Vec<Vec<u8>> = [
            "<p><a href=a>a</a><base href='/x/'><img src=i srcset='b 1x, c 2x'>",
            "<style>p{background:url(s.png)}</style><noscript><img src=n></noscript><a href=z>",
            "<iframe srcdoc=\"<a href=&quot;q&quot;>q</a>\"></iframe><a href>e</a>",
            "<noscript><a href=x>x</a>",
            "<svg><image xlink:href=s /></svg><template><base href=t></template><a href='&amp;'>",
            "<table><base href=/t/></table>",
        ]
        .iter()
        .map(|d| d.as_bytes().to_vec())
        .collect();
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/html");
        let mut dirs: Vec<_> = std::fs::read_dir(fixtures)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        dirs.sort();
        for dir in dirs {
            if let Ok(bytes) = std::fs::read(dir.join("input.html")) {
                docs.push(bytes);
            }
        }
        let uri = crate::Uri::parse("http://h/a/b").ok();
        let outer = Outer {
            base: Base {
                uri: uri.clone(),
                source: crate::BaseSource::RetrievalUri,
            },
            document_uri: uri,
        };
        let options = RewriteOptions::default();
        let mut compared = 0;
        for (n, doc) in docs.iter().enumerate() {
            let Ok(decoded) = decode::sniff_only(doc, None) else {
                continue;
            };
            let in_memory = run(doc, &decoded, &outer, &options, Links::Keep);
            // Counting instead of keeping changes nothing else.
            let tallied = run(doc, &decoded, &outer, &options, Links::Tally);
            if let (Ok(kept), Ok(counted)) = (&in_memory, &tallied) {
                let mut tally = LinkTally::default();
                kept.links.iter().for_each(|l| tally.add_link(l));
                assert_eq!(counted.tally, tally, "{}", String::from_utf8_lossy(doc));
                assert!(counted.links.is_empty());
                assert_eq!(counted.splices, kept.splices);
                assert_eq!(counted.base, kept.base);
            } else {
                assert_eq!(in_memory.is_ok(), tallied.is_ok());
            }
            let mut seed = 0x9e37_79b9_7f4a_7c15 ^ n as u64;
            let mut open = || {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                Ok(Box::new(Dribble {
                    data: doc.clone(),
                    at: 0,
                    seed: seed | 1,
                }) as Box<dyn std::io::Read>)
            };
            let mut out = Vec::new();
            let mut links = Vec::new();
            let streamed =
                run_streaming(&mut open, &decoded, &outer, &options, &mut out, &mut |l| {
                    links.push(l)
                });
            let text = String::from_utf8_lossy(doc);
            match (in_memory, streamed) {
                (Ok(expected), Ok((base, _, _))) => {
                    assert_eq!(out, expected.apply(doc), "{text}");
                    assert_eq!(base, expected.base, "{text}");
                    assert_eq!(links, expected.links, "{text}");
                    compared += 1;
                }
                (Err(_), Err(StreamError::Fallback(_))) => assert!(out.is_empty(), "{text}"),
                (a, b) => panic!("{text}: in memory {:?}, streamed {:?}", a.err(), b.err()),
            }
        }
        assert!(compared > 80, "{compared}");
    }

    /// Pass 2 over `doc` without a base, its encoding sniffed.
    /// Each of `docs` goes to the DOM engine, for `why`.
    fn assert_handed_over(why: Fallback, docs: &[&[u8]]) {
        for doc in docs {
            let run = streamed(doc);
            assert_eq!(run.err(), Some(why), "{}", String::from_utf8_lossy(doc));
        }
    }

    fn streamed(doc: &[u8]) -> Result<Streamed, Fallback> {
        let outer = Outer {
            base: Base::none(),
            document_uri: None,
        };
        let decoded = decode::sniff_only(doc, None).unwrap();
        run(
            doc,
            &decoded,
            &outer,
            &RewriteOptions::default(),
            Links::Keep,
        )
    }

    /// Found by `fuzz/engines.rs`: after `<svg><i>` (HTML to lol_html too) a self-closing
    /// `<svg/>` left lol_html in SVG: `<e href>` became an SVG link the tree does not have.
    #[test]
    fn a_breakout_tag_lol_html_reads_as_html_goes_to_the_dom_engine() {
        let run = streamed(b"<svg><i><svg/><e href=x>");
        assert_eq!(run.err(), Some(Fallback::MathMlStray));
    }

    /// Found by `fuzz/engines.rs`: `</br>` and `</p>` leave foreign content in the tree (what
    /// follows is HTML: `<e href>` has no URL), not to lol_html.
    #[test]
    fn br_and_p_end_tags_in_foreign_content_go_to_the_dom_engine() {
        assert_handed_over(
            Fallback::ForeignEnd,
            &[
                b"<svg><svg></br><e href=x>",
                b"<svg></P><a href=x>",
                b"<math><mi></mi></br><a href=x>",
            ],
        );
        // Outside foreign content they are nothing special.
        assert!(streamed(b"<svg></svg></br></p><a href=x>").is_ok());
    }

    /// A tag cut by the end of the input and longer than a scan step: the scanner waits for
    /// the rest (none comes) and the step loop must not wait with it.
    #[test]
    fn a_tag_cut_by_the_end_longer_than_a_step_ends() {
        let mut doc = b"<p>x</p><a title=\"".to_vec();
        doc.extend(std::iter::repeat_n(b'y', 10 * SCAN_STEP));
        for tail in [&b""[..], b"\"", b"<", b"\" href=z"] {
            let mut doc = doc.clone();
            doc.extend_from_slice(tail);
            let run = streamed(&doc).unwrap();
            assert!(run.links.is_empty(), "{tail:?}");
            assert!(run.splices.is_empty(), "{tail:?}");
        }
    }

    /// Found by `fuzz/engines.rs`: `<a><math></a>` leaves MathML in the tree (an HTML end tag
    /// in foreign content pops back to HTML), not in lol_html: what it then reads as MathML but
    /// MathML does not have, and a `<base>` it reads as foreign, go to the DOM engine.
    #[test]
    fn html_read_as_mathml_goes_to_the_dom_engine() {
        assert_handed_over(
            Fallback::MathMlStray,
            &[
                b"<svg><svg><i href=x>",
                b"<math><math><img src=x>",
                // A breakout tag without attributes: what follows is HTML in the tree.
                b"<svg><svg><s><e href>",
            ],
        );
        let frame = b"<frame src=x>";
        let framed = streamed(frame);
        assert_eq!(framed.err(), Some(Fallback::Frame));
        // After <frameset> the tree ignores the <a> (found by fuzz/engines.rs).
        let frameset = b"<frameset><a href=x>";
        let framed = streamed(frameset);
        assert_eq!(framed.err(), Some(Fallback::Frame));
        // lol_html pops `<math>` at `</a>` (its end tag handler runs); the tree builder does too
        // here (the adoption agency), but not always (`<form><math></form>`): the DOM engine.
        let doc = b"<a><math></a><a href=x>";
        let run = streamed(doc);
        assert_eq!(run.err(), Some(Fallback::ForeignEnd));
        // Pass 1 walks with pass 2's tree context, so it hands over for pass 2's reason.
        let base = b"<a><math></a><base href=b/>";
        assert_eq!(
            find_base(base, encoding_rs::UTF_8).err(),
            Some(Fallback::ForeignEnd)
        );
        // lol_html's namespace stays SVG after `<svg/>` and after `<a><svg></a>`; the tree's
        // does not (found by fuzz/engines.rs). After `<svg/>` no `<svg>` is open to lol_html's
        // selectors either: the scanner reads the `<base>` as HTML, as the tree builder does.
        // After `<a><svg></a>` the `</a>` closing `<svg>` hands the document over. Inside an
        // open `<svg>` it is SVG's, and not a base.
        assert_eq!(
            find_base(b"<svg/><base href>", encoding_rs::UTF_8),
            Ok(Some((6, String::new())))
        );
        assert_eq!(
            find_base(b"<a><svg></a><base href=x/>", encoding_rs::UTF_8),
            Err(Fallback::ForeignEnd)
        );
        assert_eq!(
            find_base(b"<svg><base href=x/></svg>", encoding_rs::UTF_8).unwrap(),
            None
        );
        // A link inside MathML, even in an HTML integration point, is the DOM engine's.
        let inside = b"<math><mi>x</mi><mtext><a href=y>y</a></mtext></math>";
        let run = streamed(inside);
        assert_eq!(run.err(), Some(Fallback::MathMlStray));
        let fine = b"<math><mi>x</mi></math><a href=y>y</a>";
        assert!(streamed(fine).is_ok());
    }

    /// Found by `fuzz/pipeline.rs`: an `iframe srcdoc` (or a `<style>`) whose bytes do not decode
    /// is not written back, so the links in it are not rewritten either (they were reported so).
    #[test]
    fn links_of_an_undecodable_srcdoc_are_not_rewritten() {
        let uri = crate::Uri::parse("http://h/a/b").ok();
        let outer = Outer {
            base: Base {
                uri: uri.clone(),
                source: crate::BaseSource::RetrievalUri,
            },
            document_uri: uri,
        };
        let doc = b"<iframe srcdoc=\"<a href=x\x81>\"></iframe>";
        let decoded = decode::sniff_only(doc, Some("utf-8")).unwrap();
        let run = run(
            doc,
            &decoded,
            &outer,
            &RewriteOptions::default(),
            Links::Keep,
        )
        .unwrap();
        assert!(!run.links.is_empty());
        assert!(run.links.iter().all(|l| !l.rewritten), "{:?}", run.links);
        assert_eq!(run.apply(doc), doc.to_vec());
        // The same for a `<style>` kept as it was because its bytes are malformed.
        let style = b"<style>@import 'a.css'; p{x:\x81}</style>";
        let run = super::run(
            style,
            &decoded,
            &outer,
            &RewriteOptions::default(),
            Links::Keep,
        )
        .unwrap();
        assert_eq!(run.links.len(), 1);
        assert!(run.links.iter().all(|l| !l.rewritten), "{:?}", run.links);
        assert_eq!(run.apply(style), style.to_vec());
    }

    /// Found by `fuzz/engines.rs`: lol_html gives an SVG `<title>` the namespace of its content
    /// (HTML), so its `href` would be read as HTML's; such an element goes to the DOM engine. A
    /// plain `<title>` in an icon streams.
    #[test]
    fn svg_integration_points_with_urls_go_to_the_dom_engine() {
        let doc = b"<svg><title href=x>q";
        let run = streamed(doc);
        assert_eq!(run.err(), Some(Fallback::IntegrationPoint));
        // `</mi>` closes the title and the SVG `mi` in the tree: the next `mi` is SVG's.
        let doc = b"<svg><mi><title></mi><mi href=>/";
        let run = streamed(doc);
        assert_eq!(run.err(), Some(Fallback::ForeignEnd));
        // An element in the title: `</title>` is ignored by the tree (an HTML element is
        // current), not by lol_html.
        assert_handed_over(
            Fallback::IntegrationPoint,
            &[
                b"<svg><title><t>x</title><a href>",
                b"<svg><foreignObject><a href=x></a></foreignObject></svg>",
            ],
        );
        let icon = b"<svg><title>Icon</title><path d=x/></svg><a href=y>";
        let run = streamed(icon).unwrap();
        assert_eq!(run.links.len(), 1);
    }

    /// Found by `fuzz/engines.rs`: `</form>` pops an `<svg>` inside the form to lol_html (its end
    /// tag handler runs), while the tree builder only removes the form and keeps the SVG element
    /// open, so `<f href>` after it is SVG (a link). Such documents go to the DOM engine.
    #[test]
    fn foreign_content_closed_by_another_end_tag_goes_to_the_dom_engine() {
        let doc = b"<form><svg></form><f href=x>";
        let run = streamed(doc);
        assert_eq!(run.err(), Some(Fallback::ForeignEnd));
        let fine = b"<svg></svg><a href=x>";
        let run = streamed(fine).unwrap();
        assert_eq!(run.links.len(), 1);
    }

    /// Found by `fuzz/engines.rs`: `</form>` inside a template closes the template to lol_html
    /// (its handler runs) but not to the tree builder, for which a template is a scope boundary:
    /// the `<base>` after it is template content. Both passes count templates by their own end
    /// tags (the scanner reads them), as the tree builder does, so neither is the base.
    #[test]
    fn a_template_closed_by_another_end_tag_goes_to_the_dom_engine() {
        let utf8 = encoding_rs::UTF_8;
        let doc = b"<form><template></form><base href=\"x/\">";
        assert_eq!(find_base(doc, utf8), Ok(None));
        // Pass 2 counts templates by their own end tags (the scanner reads them), as the tree
        // builder does: the link is template content, rewritten.
        let run = streamed(b"<form><template></form><a href=x>").unwrap();
        assert_eq!(run.links.len(), 1);
        let fine = b"<template><base href=t/></template><base href=x/>";
        assert_eq!(
            find_base(fine, utf8).unwrap().map(|(_, v)| v).as_deref(),
            Some("x/")
        );
    }

    /// Found by `fuzz/engines.rs`: a NUL in a tag or attribute name is U+FFFD to the tokenizer.
    #[test]
    fn nul_in_names_reads_as_the_replacement_character() {
        let input = crate::pipeline::HtmlInput {
            name: "t",
            bytes: &[
                &[b' '; 9000][..],
                b"<svg><u\0se href=x /><a x\0=1 href=y>y</a></svg>",
            ]
            .concat(),
            layers: crate::BaseLayers {
                retrieval_uri: Some("http://h/".into()),
                ..Default::default()
            },
            // (NUL bytes in the first 8 KiB read as binary.)
            ..Default::default()
        };
        let names = |engine| {
            let options = crate::pipeline::Options {
                engine,
                ..Default::default()
            };
            crate::pipeline::links(&input, &options)
                .unwrap()
                .links
                .into_iter()
                .map(|l| (l.element, l.attribute))
                .collect::<Vec<_>>()
        };
        let stream = names(crate::pipeline::EngineChoice::Auto);
        assert_eq!(stream, names(crate::pipeline::EngineChoice::Dom));
        assert_eq!(stream[0].0, "u\u{FFFD}se");
    }

    /// Found by `fuzz/engines.rs`: `href=` with nothing before `>` has its `=` already; a new
    /// value goes after it (an `="…"` after the name made `href="…"=`, a second attribute).
    #[test]
    fn an_empty_unquoted_value_gets_its_value_after_the_equals_sign() {
        let input = crate::pipeline::HtmlInput {
            name: "t",
            bytes: b"<base href=\"http://b/x/\"><a href=>j</a><a href = >k</a><a href>m</a>",
            layers: crate::BaseLayers {
                retrieval_uri: Some("http://h/p.html".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let out = crate::pipeline::rewrite(&input, &Default::default()).unwrap();
        assert_eq!(out.engine, crate::pipeline::Engine::Stream);
        assert_eq!(
            String::from_utf8(out.bytes).unwrap(),
            "<base href=\"http://b/x/\"><a href=\"http://b/x/\">j</a><a href =\"http://b/x/\" >k</a><a href=\"http://b/x/\">m</a>"
        );
    }

    /// Found by `fuzz/engines.rs`: lol_html's `Attribute::value` sniffs a byte order mark at
    /// the start of a value (and decodes `FE FF …` as UTF-16); the base is read from its bytes.
    #[test]
    fn base_href_is_read_from_its_own_bytes() {
        let utf8 = encoding_rs::UTF_8;
        let found = find_base(b"<p>x</p><base href=\"\xEF\xBB\xBFx/\">", utf8);
        assert_eq!(
            found.unwrap().map(|(_, v)| v).as_deref(),
            Some("\u{feff}x/")
        );
        let found = find_base(b"<base href=\xFE\xFF\xFF\xFF><a href=y>", utf8);
        assert_eq!(found.err(), Some(Fallback::Undecodable));
        // A BOM before a name: U+FEFF is part of the name, `\u{feff}href` is not `href`.
        let found = find_base(b"<base \xEF\xBB\xBFhref=/><base href=b/>", utf8);
        assert_eq!(found.unwrap().map(|(_, v)| v).as_deref(), Some("b/"));
        // Split across chunks, as from a file.
        let doc = b"<p>xxxxxxxxxxxxxx</p><base href='a&amp;b/'>";
        for size in 1..doc.len() {
            let chunks: Vec<&[u8]> = doc.chunks(size).collect();
            let mut iter = chunks.iter();
            struct Many<'a, 'b>(&'b mut std::slice::Iter<'a, &'a [u8]>);
            impl Chunks for Many<'_, '_> {
                fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
                    Ok(self.0.next().copied())
                }
            }
            let outer = Outer {
                base: Base::none(),
                document_uri: None,
            };
            let options = RewriteOptions::default();
            let found = find_base_in(&mut Many(&mut iter), utf8, false, &outer, &options);
            assert_eq!(
                found.unwrap().map(|(_, v)| v).as_deref(),
                Some("a&b/"),
                "{size}"
            );
        }
    }

    /// Found by `fuzz/engines.rs`: an SVG `<style>` is not raw text. Markup inside it makes
    /// elements, references decode, and one left open holds the rest of the document as
    /// children: all go to the DOM engine; a plain one is streamed.
    #[test]
    fn foreign_style_with_markup_goes_to_the_dom_engine() {
        assert_handed_over(
            Fallback::ForeignStyle,
            &[
                b"<svg><style>r{fill:url(/s)}<g/></style></svg>",
                b"<svg><style>r{fill:url(a&amp;b)}</style></svg>",
                b"<svg><style>r{fill:url(/s)",
                b"<svg><style>a<style>r{fill:url(#g)}</style></svg>",
            ],
        );
        let fine = b"<svg><style>r{fill:url(/s)}</style></svg><style>a<b{}</style>";
        assert!(streamed(fine).is_ok());
    }

    /// Found by `fuzz/engines.rs`: `<svg><math><mi xlink:href>` is an SVG `mi` in the tree
    /// (a `<math>` in SVG content stays SVG), a MathML integration point to lol_html.
    #[test]
    fn foreign_nesting_goes_to_the_dom_engine() {
        let doc = b"<svg><math><mi xlink:href=m></mi></math></svg>";
        let run = streamed(doc);
        assert_eq!(run.err(), Some(Fallback::ForeignNesting));
        let fine = b"<svg></svg><math><mi></mi></math><svg><a href=x></a></svg>";
        assert!(streamed(fine).is_ok());
    }

    #[test]
    fn base_tag_with_href_is_found_in_any_case() {
        assert!(may_have_base_href(b"<p><BASE href=x>"));
        assert!(may_have_base_href(b"<bAsE\tHREF>"));
        assert!(may_have_base_href(b"<base target=_blank><base/href=x>"));
        assert!(!may_have_base_href(
            b"<p>base<bas e><basefont href=x><bAsE>"
        ));
        // Pass 1 is needed only for a base element with href: quotes hide what looks like one.
        assert!(!may_have_base_href(
            b"<base target=_blank><base title='a href=x'>"
        ));
        assert!(may_have_base_href(b"<base title='>' href=x>"));
    }

    #[test]
    fn pass_one_finds_the_first_base_outside_templates() {
        let utf8 = encoding_rs::UTF_8;
        let found = find_base(
            b"<template><base href=t></template><base href='a&amp;b'><base href=c>",
            utf8,
        )
        .unwrap();
        assert_eq!(found, Some((34, "a&b".to_owned())));
        assert_eq!(find_base(b"<p>no base", utf8).unwrap(), None);
        assert_eq!(
            find_base(b"<table><tr><td><base href=x>", utf8),
            Err(Fallback::AmbiguousBase)
        );
        // A frameset sends pass 2 to the DOM engine wherever it is; pass 1 hands over for the
        // same reason.
        assert_eq!(
            find_base(b"<frameset></frameset><base href=x>", utf8),
            Err(Fallback::Frame)
        );
        assert_eq!(
            find_base(b"<table></table><base href=x>", utf8).unwrap(),
            Some((15, "x".to_owned()))
        );
    }
}
