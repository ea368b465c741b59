//! The streaming engine's entry points: a document in memory, a document streamed from its file
//! (pass 1 then pass 2), an `iframe srcdoc` document, and the fragment targets.

use encoding_rs::Encoding;

use super::chunks::{CheckedChunks, Chunks, ReaderChunks};
use super::tag::RawTag;
use super::walk::*;
use crate::base::{with_base_element, Base, Outer};
use crate::decode::{Decoded, EncodingSource};
use crate::engine::Fallback;
use crate::error::Diagnostic;
use crate::report::LinkTally;
use crate::rewrite::{Link, RewriteOptions};
use crate::splice::Splices;
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
        nested: nested_document,
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
        nested: nested_document,
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
        nested: nested_document,
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
        nested: nested_document,
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
pub(super) fn find_base(
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
        nested: nested_document,
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
pub(super) fn find_base_in(
    chunks: &mut dyn Chunks,
    encoding: &'static Encoding,
    tentative: bool,
    outer: &Outer,
    options: &RewriteOptions,
) -> Result<Option<(usize, String)>, StreamError> {
    let pass = Pass {
        nested: nested_document,
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

/// Whether the bytes `<base` occur, ASCII case-insensitively.
pub(super) fn may_have_base_href(bytes: &[u8]) -> bool {
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
