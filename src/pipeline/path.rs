//! The entry points for a document in a file of any size, read as a stream (and a large
//! document in memory, read the same way): memory stays flat in the size of the page.

use super::memory::{analyse, links, rewrite};
use super::options::{Engine, EngineChoice, HtmlInput, Options, PathInput, Written};
use crate::base::outer_base;
use crate::decode;
use crate::engine::stream::Links;
use crate::engine::{encoding_diagnostics, sniffed};
use crate::error::{Diagnostic, Error};
use crate::report::{BaseRecord, LinkRecord, LinkTally};
use crate::rewrite;

/// [`rewrite()`] for a document in a file of any size: read twice (the base is settled first),
/// written to `out` as it is read, each link given to `on_link` as it is found, so memory stays
/// flat in the size of the page (the longest tag, and `<style>`/`<noscript>` text up to 16 MiB).
/// A document the streaming engine hands over is read whole and goes through the DOM engine,
/// before anything is written. Returns the base record and the engine that wrote it.
///
/// # Errors
/// As [`rewrite()`], and [`Error::Io`] when reading or writing fails (the output may then be
/// incomplete: write to a temporary file and rename it on success).
pub fn rewrite_path(
    input: &PathInput<'_>,
    options: &Options,
    out: &mut dyn std::io::Write,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<(BaseRecord, Engine), Error> {
    stream_path(
        input,
        &mut open_file(input.path),
        options,
        StreamOut::Once(out),
        on_link,
    )
    .map(|(base, engine, _)| (base, engine))
}

pub use crate::engine::Rewind;

/// [`rewrite_path`] into output that can be taken back, such as a file ([`Rewind`]): the base
/// is guessed from a quick read of the bytes and the document rewritten as it is read, the guess
/// checked on the way; where it was wrong (a `<base>` in a comment or a template) or the DOM
/// engine must take the document, `out` is rewound and written again. [`rewrite_path`] walks
/// every document twice instead. The links are counted.
///
/// # Errors
/// As [`rewrite_path`].
pub fn rewrite_path_rewinding(
    input: &PathInput<'_>,
    options: &Options,
    out: &mut dyn Rewind,
) -> Result<Written, Error> {
    let mut tally = LinkTally::default();
    let (base, engine, counted) = stream_path(
        input,
        &mut open_file(input.path),
        options,
        StreamOut::Rewinding(out),
        &mut |l| tally.add(&l),
    )?;
    tally += counted;
    Ok(Written {
        base,
        links: tally,
        engine,
    })
}

/// [`links()`] for a document in a file of any size, each link given to `on_link` as it is
/// found (see [`rewrite_path`]).
///
/// # Errors
/// As [`rewrite_path`].
pub fn links_path(
    input: &PathInput<'_>,
    options: &Options,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<BaseRecord, Error> {
    stream_path(
        input,
        &mut open_file(input.path),
        options,
        StreamOut::Links,
        on_link,
    )
    .map(|(base, ..)| base)
}

/// A reader of a document that can be read again from its start ([`stream_reopened`]).
#[cfg(feature = "oracle")]
#[doc(hidden)]
pub type Reopen<'a> = dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'a>> + 'a;

/// The file at `path`, buffered, opened anew at each call.
fn open_file(
    path: &std::path::Path,
) -> impl FnMut() -> std::io::Result<Box<dyn std::io::Read>> + '_ {
    move || {
        std::fs::File::open(path)
            .map(|f| Box::new(std::io::BufReader::new(f)) as Box<dyn std::io::Read>)
    }
}

/// Test hook, not part of the API: [`rewrite_path`] (with `out`) or [`links_path`] (without)
/// reading the document through `open` (called once per read of it, each time from its start)
/// instead of opening `input.path`, which is not used. The streaming engine's chunks are what
/// the readers return, so a test can put a chunk boundary anywhere (every
/// golden through 1-byte, 61-byte and random chunks).
///
/// # Errors
/// As [`rewrite_path`].
#[cfg(feature = "oracle")]
#[doc(hidden)]
pub fn stream_reopened(
    input: &PathInput<'_>,
    open: &mut Reopen<'_>,
    options: &Options,
    out: Option<&mut dyn std::io::Write>,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<(BaseRecord, Engine), Error> {
    let out = match out {
        Some(out) => StreamOut::Once(out),
        None => StreamOut::Links,
    };
    stream_path(input, open, options, out, on_link).map(|(base, engine, _)| (base, engine))
}

/// Test hook, not part of the API: [`rewrite_path_rewinding`] reading the document through
/// `open` (as [`stream_reopened`]).
///
/// # Errors
/// As [`rewrite_path`].
#[cfg(feature = "oracle")]
#[doc(hidden)]
pub fn stream_reopened_rewinding(
    input: &PathInput<'_>,
    open: &mut Reopen<'_>,
    options: &Options,
    out: &mut dyn Rewind,
) -> Result<Written, Error> {
    let mut tally = LinkTally::default();
    let (base, engine, counted) =
        stream_path(input, open, options, StreamOut::Rewinding(out), &mut |l| {
            tally.add(&l)
        })?;
    tally += counted;
    Ok(Written {
        base,
        links: tally,
        engine,
    })
}

/// Where a streamed document goes.
enum StreamOut<'a> {
    /// Nowhere: its links only ([`links_path`]).
    Links,
    /// Written once, in order ([`rewrite_path`]): the base and every reason to hand the
    /// document over are settled by a first walk before the first byte is written.
    Once(&'a mut dyn std::io::Write),
    /// Written while the base is checked, taken back when the check fails
    /// ([`rewrite_path_rewinding`]); the links are counted.
    Rewinding(&'a mut dyn Rewind),
}

/// Counts what goes through, so a failure can tell whether output has begun.
struct Counting<'a> {
    inner: &'a mut dyn std::io::Write,
    written: u64,
}

impl std::io::Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A streamed document's base record, from what the streaming engine found; `diagnostics`:
/// what was found about it before.
fn streamed_base_record(
    file: crate::engine::stream::StreamedFile,
    mut diagnostics: Vec<Diagnostic>,
) -> BaseRecord {
    let decoded = &file.decoded;
    diagnostics.extend(encoding_diagnostics(decoded));
    if file.malformed {
        diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::Encoding,
            decode::malformed_note(decoded.encoding),
        ));
    }
    diagnostics.extend(file.diagnostics);
    BaseRecord {
        origin: crate::report::Origin::default(),
        base: file.base.uri.as_ref().map(|u| u.to_string()),
        base_source: file.base.source,
        encoding: decoded.encoding.name(),
        encoding_source: decoded.source,
        diagnostics,
    }
}

/// `out` as a writer borrowed for no longer than itself.
fn writer<'x>(out: &'x mut (dyn std::io::Write + '_)) -> &'x mut (dyn std::io::Write + 'x) {
    out
}

/// A document streamed from `open()` to `out`; links to `on_link` (with
/// [`StreamOut::Rewinding`], those of the streaming engine counted in the returned tally).
fn stream_path<'r>(
    input: &PathInput<'_>,
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    options: &Options,
    out: StreamOut<'_>,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<(BaseRecord, Engine, LinkTally), Error> {
    use crate::engine::stream::StreamError;
    use std::io::Read;
    let name = input.name;
    let io_error = |source| Error::Io {
        input: name.to_owned(),
        source,
    };
    let mut diagnostics = input.diagnostics.clone();
    let outer = outer_base(&input.layers, options.rewrite.resolve, &mut diagnostics)?;
    let mut head = Vec::new();
    open()
        .and_then(|f| f.take(8192).read_to_end(&mut head))
        .map_err(io_error)?;
    let (decoded, streaming) = sniffed(
        name,
        decode::sniff_head_with_default(&head, input.charset.as_deref(), options.default_encoding),
        options,
    )?;
    let mut sink = std::io::sink();
    let (rewriting, out) = match out {
        StreamOut::Rewinding(out) if streaming => {
            match crate::engine::stream::run_streaming_rewinding(
                open,
                &decoded,
                &outer,
                &options.rewrite,
                out,
            ) {
                Ok(file) => {
                    let tally = file.tally;
                    return Ok((
                        streamed_base_record(file, diagnostics),
                        Engine::Stream,
                        tally,
                    ));
                }
                Err(StreamError::Io(e)) => return Err(io_error(e)),
                // The engine has taken back what it wrote.
                Err(e) => {
                    let why = Some(e.fallback());
                    let dom = dom_path(input, open, options, Some(out), on_link, why)?;
                    return Ok((dom.0, dom.1, LinkTally::default()));
                }
            }
        }
        StreamOut::Rewinding(out) => (true, writer(out)),
        StreamOut::Once(out) => (true, writer(out)),
        StreamOut::Links => (false, writer(&mut sink)),
    };
    let mut fallback = None;
    // The links' positions are read from a reader of their own.
    let open = std::cell::RefCell::new(open);
    let mut reopen = || (open.borrow_mut())();
    let mut reopen_for_positions = || (open.borrow_mut())();
    if streaming {
        match crate::engine::stream::settle_streaming(
            &mut reopen,
            &decoded,
            &outer,
            &options.rewrite,
        ) {
            Ok(settled) => {
                let mut counted = Counting {
                    inner: &mut *out,
                    written: 0,
                };
                let encoding = settled.decoded.encoding;
                let mut sweep = crate::position::Sweep::new(&mut reopen_for_positions, encoding);
                let mut deliver = |l: rewrite::Link| {
                    let position = l.offset.and_then(|o| sweep.position(o));
                    on_link(LinkRecord::new(&l, None).at(position));
                };
                match settled.write(&mut reopen, &mut counted, &mut deliver) {
                    Ok(file) => {
                        let record = streamed_base_record(file, diagnostics);
                        return Ok((record, Engine::Stream, LinkTally::default()));
                    }
                    Err(StreamError::Io(e)) => return Err(io_error(e)),
                    // Pass 1 saw nothing of this: the file changed between the two reads.
                    Err(_) if counted.written > 0 => {
                        return Err(Error::Changed {
                            input: name.to_owned(),
                        })
                    }
                    Err(e) => fallback = Some(e.fallback()),
                }
            }
            Err(StreamError::Io(e)) => return Err(io_error(e)),
            Err(e) => fallback = Some(e.fallback()),
        }
    }
    let out = rewriting.then_some(out);
    let (base, engine) = dom_path(input, &mut reopen, options, out, on_link, fallback)?;
    Ok((base, engine, LinkTally::default()))
}

/// The DOM engine on a document the streaming engine handed over (`why`) or was not asked to
/// take: read whole into memory, written to `out` when rewriting, its links to `on_link`.
fn dom_path<'r>(
    input: &PathInput<'_>,
    open: &mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    options: &Options,
    out: Option<&mut dyn std::io::Write>,
    on_link: &mut dyn FnMut(LinkRecord),
    why: Option<crate::engine::Fallback>,
) -> Result<(BaseRecord, Engine), Error> {
    use std::io::Read;
    let name = input.name;
    let io_error = |source| Error::Io {
        input: name.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    open()
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(io_error)?;
    let mut html_diagnostics = input.diagnostics.clone();
    html_diagnostics.extend(why.map(crate::engine::Fallback::diagnostic));
    let html = HtmlInput {
        name,
        bytes: &bytes,
        layers: input.layers.clone(),
        charset: input.charset.clone(),
        diagnostics: html_diagnostics,
    };
    let dom = Options {
        engine: EngineChoice::Dom,
        ..options.clone()
    };
    let (report, engine) = match out {
        Some(out) => {
            let rewritten = rewrite(&html, &dom)?;
            out.write_all(&rewritten.bytes).map_err(io_error)?;
            out.flush().map_err(io_error)?;
            (rewritten.report, rewritten.engine)
        }
        None => (links(&html, &dom)?, Engine::Serialize(None)),
    };
    for link in report.links {
        on_link(link);
    }
    Ok((report.base, engine))
}

/// The largest document [`links_each`] analyses with every link kept before handing them on; a
/// larger one is streamed, so the records never pile up (a 13 MB page of 500,000 links kept
/// them in 400 MB).
const KEEP_LINKS_UP_TO: usize = 1 << 20;

/// [`links()`] with each link given to `on_link` in source order instead of collected, so
/// memory does not grow with the number of links: a document past 1 MiB is read twice by the
/// streaming engine (the first read settles the base and whatever would hand the document to
/// the DOM engine, so no link given on is taken back), as [`links_path`] reads a file.
///
/// # Errors
/// As [`links()`].
pub fn links_each(
    input: &HtmlInput<'_>,
    options: &Options,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<BaseRecord, Error> {
    // The streamed path does not read conditional comments (`--conditional-comments`).
    if input.bytes.len() <= KEEP_LINKS_UP_TO || options.conditional_comments == Some(true) {
        let a = analyse(input, options, Links::Keep)?;
        return Ok(a.deliver(None, input.bytes, on_link));
    }
    let streamed = PathInput {
        name: input.name,
        path: std::path::Path::new(input.name),
        layers: input.layers.clone(),
        charset: input.charset.clone(),
        diagnostics: input.diagnostics.clone(),
    };
    let mut open =
        || Ok(Box::new(std::io::Cursor::new(input.bytes)) as Box<dyn std::io::Read + '_>);
    stream_path(&streamed, &mut open, options, StreamOut::Links, on_link).map(|(base, ..)| base)
}
