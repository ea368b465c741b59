//! The walk: one tree-context layer over the markup, for every pass ([`Mode`]). lol_html reports
//! the elements after which bytes are read otherwise; the scanner reads the markup between them.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;

use super::chunks::{Chunks, SliceChunks};
use super::names::*;
use super::scan;
use super::tag::{read_tag, Lexed, RawAttr, RawTag};
use crate::base::{Base, Outer};
use crate::engine::fallback::Fallback;
use crate::error::Diagnostic;
use crate::report::LinkTally;
use crate::rewrite::{Found, Link, NestedDocument, Planner, RewriteOptions};
use crate::tree::{ElementNs, NodeId};

mod between;

/// What a walk over the document is for. All three read the markup with one tree-context layer
/// ([`Walk`]) and so hand a document to the DOM engine for the same reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Pass 2: every URL planned, and the values that change spliced.
    Rewrite,
    /// Pass 1: the first HTML `<base>` with an `href` outside `<template>` contents, the walk
    /// going on to the end, so that everything that could send pass 2 to the DOM engine is
    /// known before pass 2 writes a byte.
    FindBase,
    /// The fragment targets (HTML LS "find a potential indicated element"): every `id`, and the
    /// `name` of every HTML `a`, outside `<template>` contents.
    Targets,
}

/// `--drop-base` in a walk of [`Mode::Rewrite`]: not asked for; assumed possible (every base
/// element of the document with an `href` is removed where it is met, and the walk counts the
/// links that would still need one, [`PassOut::still_relative`]); or decided against, where a
/// walk found such links (the chosen base element stays, its `href` made absolute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dropping {
    Off,
    Assumed,
    Kept,
}

/// One walk over `bytes` (the document, or `<noscript>` markup inside it at `offset`).
pub(super) struct Pass<'a> {
    pub(super) mode: Mode,
    /// How an `iframe srcdoc` document inside is rewritten (the engine's entry point, handed in
    /// from above so that the walk does not call back up into it).
    pub(super) nested: NestedDocument,
    pub(super) bytes: &'a [u8],
    /// Where `bytes` starts in the document (for `<noscript>` markup).
    pub(super) offset: usize,
    pub(super) encoding: &'static Encoding,
    pub(super) outer: &'a Outer,
    pub(super) options: &'a RewriteOptions,
    /// `iframe srcdoc` depth.
    pub(super) depth: usize,
    /// `<noscript>` depth.
    pub(super) nesting: usize,
    /// The `<base>` pass 1 chose (its start tag's offset).
    pub(super) chosen: Option<NodeId>,
    /// The encoding is only tentative: a `<meta>` declaring another one sends the document to
    /// the DOM engine, which re-decodes it (HTML LS "change the encoding").
    pub(super) tentative: bool,
    /// Report `<base href>` elements other than the chosen one.
    pub(super) report_bases: bool,
    /// [`Mode::Rewrite`] on a guessed `chosen` (the first `<base href>` in the bytes, unread
    /// by the tree context): the walk also finds the base as pass 1 would
    /// ([`PassOut::base`]), so the caller can tell whether the guess held.
    pub(super) verify: bool,
    /// `--drop-base`.
    pub(super) dropping: Dropping,
    /// lol_html reads the document beside the scanner (script data and foreign content are its,
    /// and every tag it reports is a checkpoint the scanner must stand at); else the scanner
    /// reads every byte alone, and the walk is made again with lol_html where it meets what it
    /// leaves to it (MathML; in SVG, a tag that breaks out of it, an end tag it cannot match, an
    /// HTML integration point with elements inside). Why: lol_html's tokenizer costs about as
    /// much as a whole naive rewrite (BENCHMARKS.md), and pages rarely hold what needs it.
    pub(super) lol_html: bool,
}

impl Pass<'_> {
    /// Whether this walk finds the base: pass 1, or pass 2 checking its guess.
    pub(super) fn finds_base(&self) -> bool {
        self.mode == Mode::FindBase || self.verify
    }
}

/// What one pass produces.
pub(super) struct PassOut {
    pub(super) found: Found,
    /// [`Links::Tally`]: the settled links are counted here and dropped.
    pub(super) tally: Option<LinkTally>,
    pub(super) splices: Vec<(Range<usize>, Vec<u8>)>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// [`Mode::FindBase`] (and [`Pass::verify`]): the chosen `<base>`, its start tag's offset
    /// and decoded `href`.
    pub(super) base: Option<(usize, String)>,
    /// [`Mode::Targets`]: the fragment targets, in source order.
    pub(super) targets: Vec<String>,
    /// [`Dropping::Assumed`]: the links that still need a base element, so the assumption
    /// failed when there are any.
    pub(super) still_relative: usize,
}

/// An end tag lol_html reported: where it is (document offsets) and what it ends. Recorded by
/// an end tag handler (which must be `'static`) and acted on, in source order with the tags the
/// scanner finds, before anything after it.
pub(super) struct Ended {
    pub(super) tag: Range<usize>,
    pub(super) event: EndEvent,
}

/// Records `event` at `end`, an end tag of a pass that starts at `offset`.
pub(super) fn push_end(
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

/// The SVG elements open while the scanner reads alone: their names (ASCII lowercase) in one
/// buffer, innermost last, so opening one allocates nothing once the buffer has grown.
#[derive(Debug, Default)]
pub(super) struct Foreign {
    names: Vec<u8>,
    /// Where each name ends in `names`.
    ends: Vec<usize>,
    /// How many are `svg` elements.
    pub(super) svgs: usize,
    /// How many are HTML integration points (`title`, `desc`, `foreignObject`).
    pub(super) integration: usize,
}

impl Foreign {
    /// Deeper than this, SVG content is left to lol_html.
    pub(super) const MAX_DEPTH: usize = 1024;

    pub(super) fn is_open(&self) -> bool {
        !self.ends.is_empty()
    }

    pub(super) fn depth(&self) -> usize {
        self.ends.len()
    }

    /// An element opens (`name` in ASCII lowercase).
    pub(super) fn push(&mut self, name: &[u8]) {
        self.names.extend_from_slice(name);
        self.ends.push(self.names.len());
        self.count(name, 1);
    }

    /// An end tag `name` (as written): the elements up to the innermost of that name close;
    /// `false` when none is open.
    pub(super) fn close(&mut self, name: &[u8]) -> bool {
        let Some(i) = (0..self.ends.len())
            .rev()
            .find(|&i| self.name(i).eq_ignore_ascii_case(name))
        else {
            return false;
        };
        while self.ends.len() > i {
            let last = self.ends.len() - 1;
            let closing = self.name(last).to_vec();
            self.count(&closing, 0);
            self.ends.pop();
            let start = self.ends.last().copied().unwrap_or(0);
            self.names.truncate(start);
        }
        true
    }

    /// The name of the element at depth `i`.
    fn name(&self, i: usize) -> &[u8] {
        let start = i
            .checked_sub(1)
            .and_then(|p| self.ends.get(p))
            .copied()
            .unwrap_or(0);
        let end = self.ends.get(i).copied().unwrap_or(start);
        self.names.get(start..end).unwrap_or_default()
    }

    /// Counts an element of `name` opening (`1`) or closing (`0`).
    fn count(&mut self, name: &[u8], open: usize) {
        let counter = match name {
            b"svg" => &mut self.svgs,
            b"title" | b"desc" | b"foreignobject" => &mut self.integration,
            _ => return,
        };
        *counter = if open == 1 {
            *counter + 1
        } else {
            counter.saturating_sub(1)
        };
    }
}

/// How far [`Walk::sync`] reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// To a tag lol_html reported: the scan must stand exactly at it.
    Checkpoint,
    /// As far as the bytes read so far go.
    Partial,
    /// To the end of the input.
    End,
}

pub(super) enum EndEvent {
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
pub(super) struct Walk<'p, 'w> {
    pub(super) pass: &'p Pass<'p>,
    pub(super) planner: Planner<'p>,
    pub(super) out: PassOut,
    pub(super) template: usize,
    /// Open `<svg>` and `<math>` elements.
    pub(super) svg: usize,
    pub(super) math: usize,
    /// Open SVG HTML integration points (`<title>`, `<desc>`, `<foreignObject>`).
    pub(super) integration: usize,
    /// Open HTML `<table>` elements ([`Pass::finds_base`] only): a `<base>` in a table is moved
    /// by foster parenting. Elements closed implicitly are not counted down, which can only
    /// send a later base to the DOM engine.
    pub(super) table: usize,
    /// The encoding the first `<meta>` declaring one declares ([`Pass::tentative`] only).
    pub(super) meta: Option<&'static Encoding>,
    pub(super) bail: Option<Fallback>,
    /// An HTML `<style>` (`true`) or `<noscript>` whose end tag has not come (raw text runs to
    /// the end of the input when it never does), with where its content starts.
    pub(super) open: Option<(bool, NodeId, usize)>,
    /// An SVG `<style>` whose end tag has not come (and where its content starts): its text is
    /// markup, not raw text.
    pub(super) svg_style: Option<(NodeId, usize)>,
    /// Writing as the input is read (pass 2 of a document streamed from its file); `None`: splices are
    /// collected for the whole document.
    pub(super) io: Option<StreamIo<'w>>,
    /// Reads the markup between the elements lol_html reports.
    pub(super) scan: scan::Scanner,
    /// What a scan found, to act on (kept to reuse its allocations).
    pub(super) finds: scan::Finds,
    /// The attributes kept of a tag lol_html reports (kept to reuse its allocation).
    pub(super) kept: Vec<RawAttr>,
    /// The scanner reads alone ([`Pass::lol_html`] false).
    pub(super) own: bool,
    /// Reading alone, the scanner met what it leaves to lol_html: the walk is made again with
    /// it ([`StreamError::Restart`]).
    pub(super) restart: bool,
    /// lol_html's ambiguity guard, kept while the scanner reads alone.
    pub(super) guard: Guard,
    /// Reading alone: the SVG elements open, innermost last ([`Foreign`]).
    pub(super) foreign: Foreign,
    /// Reading alone, the walk entered or left SVG content: what the scanner read after it was
    /// read in the other context, and is read again.
    pub(super) rescan: bool,
}

/// Pass 2 writing as it reads: the output, every link as found, and the input not yet written.
pub(super) struct StreamIo<'a> {
    pub(super) out: &'a mut dyn std::io::Write,
    pub(super) on_link: &'a mut dyn FnMut(Link),
    /// Input bytes from `start` on: read, not yet written.
    pub(super) window: Vec<u8>,
    pub(super) start: usize,
    /// Output from here on is held: the content of a `<style>` or `<noscript>` (this element),
    /// whose URLs are known only at its end tag.
    pub(super) hold: Option<(usize, NodeId)>,
    /// The next splice of `PassOut::splices` to write.
    pub(super) next_splice: usize,
    /// A held element given up on (past [`MAX_HOLD`]): its end is not acted on.
    pub(super) abandoned: Option<NodeId>,
    pub(super) error: Option<std::io::Error>,
    /// The output can be taken back ([`super::output::Rewind`]): what the in-memory walk
    /// hands to the DOM engine, this one hands over too, rather than keep it as it is.
    pub(super) rewindable: bool,
}

impl<'a> StreamIo<'a> {
    /// Writing to `out` from the start of the input, links to `on_link`.
    pub(super) fn new(
        out: &'a mut dyn std::io::Write,
        on_link: &'a mut dyn FnMut(Link),
    ) -> StreamIo<'a> {
        StreamIo {
            out,
            on_link,
            window: Vec::new(),
            start: 0,
            hold: None,
            next_splice: 0,
            abandoned: None,
            error: None,
            rewindable: false,
        }
    }
}

/// How much of a document in memory the scanner reads before what it found is acted on (the
/// unit tests and the fuzz targets use a small odd step so every input crosses step boundaries).
pub(super) const SCAN_STEP: usize = if cfg!(any(test, fuzzing)) {
    61
} else {
    64 * 1024
};

impl<'a> Pass<'a> {
    /// Pass 2 over the bytes in memory; where `--drop-base` was assumed and some link still
    /// needs the base element, again with the base element kept.
    pub(super) fn run_dropping(&self, base: Base, links: Links) -> Result<PassOut, StreamError> {
        let out = self.run_in_memory(base.clone(), links)?;
        if self.dropping != Dropping::Assumed || out.still_relative == 0 {
            return Ok(out);
        }
        Pass {
            dropping: Dropping::Kept,
            ..*self
        }
        .run_in_memory(base, links)
    }

    /// Pass 2 over the bytes in memory.
    pub(super) fn run_in_memory(&self, base: Base, links: Links) -> Result<PassOut, StreamError> {
        let tally = (links == Links::Tally).then(LinkTally::default);
        let mut chunks = SliceChunks(Some(self.bytes));
        match self.run_chunks(base.clone(), &mut chunks, None, tally) {
            Err(StreamError::Restart) => Pass {
                lol_html: true,
                ..*self
            }
            .run_chunks(base, &mut SliceChunks(Some(self.bytes)), None, tally),
            done => done,
        }
    }

    /// Pass 2 over `chunks`; with `io`, written out as it is read (links to its `on_link`);
    /// with `tally`, links counted there instead of kept.
    pub(super) fn run_chunks<'w>(
        &self,
        base: Base,
        chunks: &mut dyn Chunks,
        io: Option<StreamIo<'w>>,
        tally: Option<LinkTally>,
    ) -> Result<PassOut, StreamError> {
        let mut planner_diagnostics = Vec::new();
        let planner = Planner::new(
            base,
            self.outer,
            self.options,
            self.depth,
            self.encoding,
            self.nested,
            &mut planner_diagnostics,
        );
        let walk = RefCell::new(Walk {
            pass: self,
            planner,
            out: PassOut {
                found: Found {
                    // Counted links need no record, unless `--drop-base` reads them.
                    counted: (tally.is_some() && self.dropping == Dropping::Off).then(Vec::new),
                    ..Found::default()
                },
                tally,
                splices: Vec::new(),
                diagnostics: planner_diagnostics,
                base: None,
                targets: Vec::new(),
                still_relative: 0,
            },
            template: 0,
            svg: 0,
            math: 0,
            integration: 0,
            table: 0,
            meta: None,
            bail: None,
            open: None,
            svg_style: None,
            io,
            scan: scan::Scanner::new(self.offset),
            finds: scan::Finds::default(),
            kept: Vec::new(),
            own: !self.lol_html,
            restart: false,
            guard: Guard::default(),
            foreign: Foreign::default(),
            rescan: false,
        });
        // lol_html and the scanner read ASCII-compatible encodings only.
        if !crate::tokenize::reads(self.encoding) {
            return Err(StreamError::Fallback(Fallback::Tokenizer));
        }
        walk.borrow_mut().scan.read_scripts(!self.lol_html);
        let events: Rc<RefCell<Vec<Ended>>> = Rc::default();
        let handler_events = events.clone();
        // With no mutation, lol_html's output is its input: how much it has passed on is the
        // watermark up to which everything is decided (every handler before it has run).
        let emitted = std::cell::Cell::new(0usize);
        let lol_html = || {
            // Past its memory bound lol_html stops: the DOM engine takes the document.
            let settings = crate::tokenize::settings(self.encoding)
                .ok_or(StreamError::Fallback(Fallback::Tokenizer))?;
            let settings =
                settings.append_element_content_handler(lol_html::element!(REPORTED, |el| {
                    let mut walk = walk.borrow_mut();
                    walk.reported(el, &handler_events);
                    walk.deliver_links();
                    if walk.stopped() {
                        return Err("fallback".into());
                    }
                    Ok(())
                }));
            let sink = |c: &[u8]| emitted.set(emitted.get() + c.len());
            Ok(lol_html::HtmlRewriter::new(settings, sink))
        };
        let mut rewriter = if self.lol_html {
            Some(lol_html()?)
        } else {
            None
        };
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
            if let Some(rewriter) = rewriter.as_mut() {
                result = rewriter.write(chunk);
                if result.is_err() {
                    break;
                }
            }
            let mut walk = walk.borrow_mut();
            walk.sync(&events, self.offset + fed, Reach::Partial);
            walk.deliver_links();
            if walk.stopped() {
                break;
            }
            // Written up to what lol_html has passed on (every handler before it has run) and
            // the scanner has read (every tag before it has been acted on).
            let settled = if walk.own {
                walk.scan.settled()
            } else if walk.scan.is_opaque() {
                self.offset + emitted.get()
            } else {
                (self.offset + emitted.get()).min(walk.scan.settled())
            };
            walk.flush(settled);
            walk.bound_hold(fed);
            walk.bound_window();
        }
        let result = match (rewriter, result) {
            (Some(rewriter), Ok(())) => rewriter.end(),
            (_, result) => result,
        };
        let mut walk = walk.into_inner();
        if walk.restart {
            return Err(StreamError::Restart);
        }
        if let Some(why) = walk.bail {
            return Err(walk.error(why));
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
        if walk.restart {
            return Err(StreamError::Restart);
        }
        if let Some(why) = walk.bail {
            return Err(walk.error(why));
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
        if self.dropping == Dropping::Kept && out.still_relative > 0 {
            out.diagnostics
                .push(crate::rewrite::base_kept(out.still_relative));
        }
        Ok(out)
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

/// Why a streamed document could not be finished.
#[derive(Debug)]
pub(crate) enum StreamError {
    /// The DOM engine must take it.
    Fallback(Fallback),
    /// A `<meta>` past the prescan declares this encoding, another than the tentative one: the
    /// document is to be read again in it (HTML LS "change the encoding").
    Reread(&'static Encoding),
    /// The scanner, reading alone, met what it leaves to lol_html: the walk is to be made again
    /// with lol_html ([`Pass::lol_html`]).
    Restart,
    /// Reading or writing failed.
    Io(std::io::Error),
}

impl StreamError {
    /// Why the DOM engine takes a document this error stopped in memory.
    pub(crate) fn fallback(self) -> Fallback {
        match self {
            StreamError::Fallback(why) => why,
            StreamError::Reread(_) => Fallback::LateMeta,
            // Only a document that changed between two reads gives this where it is not
            // handled.
            StreamError::Restart => Fallback::ScanMismatch,
            StreamError::Io(_) => Fallback::Tokenizer,
        }
    }
}

impl Walk<'_, '_> {
    /// Reading alone, the scanner met what it leaves to lol_html.
    pub(super) fn leave_to_lol_html(&mut self) {
        self.restart = true;
    }

    /// Streaming without lol_html: the bytes read and not yet written (a tag or comment the
    /// scanner has not seen the end of; raw text held, itself bounded by [`MAX_HOLD`]) are
    /// bounded as lol_html bounds its buffers.
    fn bound_window(&mut self) {
        let unsettled = match &self.io {
            Some(io) if self.own => io.window.len(),
            _ => 0,
        };
        if unsettled > crate::tokenize::MEMORY_LIMIT {
            self.bail = Some(Fallback::Tokenizer);
        }
    }

    /// What the walk stopped for (`why`) says to its caller.
    fn error(&self, why: Fallback) -> StreamError {
        match (why, self.meta) {
            (Fallback::LateMeta, Some(encoding)) => StreamError::Reread(encoding),
            _ => StreamError::Fallback(why),
        }
    }
}
