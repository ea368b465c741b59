//! The stages, in order, and nothing else:
//! input → `decode` → `Document::parse` → [`base`](crate::base) →
//! the DOM engine's plan and its application → the serializer / [`report`](crate::report);
//! the streaming engine does the same in one walk of the bytes.

use encoding_rs::Encoding;

use crate::base::{outer_base, BaseLayers, Outer};
use crate::decode::{self, Decoded};
use crate::engine::dom::output as serialize;
use crate::engine::dom::plan::{self, Plan};
use crate::engine::dom::{Document, ParseLimits};
use crate::engine::stream::Links;
use crate::error::{Diagnostic, Error};
use crate::report::{BaseRecord, LinkRecord, LinkTally, Report};
use crate::rewrite::{self, RewriteOptions};

pub use crate::engine::Fallback;

/// An HTML document and what is known about it from outside.
#[derive(Debug, Clone, Default)]
pub struct HtmlInput<'a> {
    /// How to name it in errors (a path, or `-`).
    pub name: &'a str,
    /// Its bytes, as stored or received.
    pub bytes: &'a [u8],
    /// The base layers outside the document (§5.1.2–§5.1.4).
    pub layers: BaseLayers,
    /// The transport-layer charset label (`--charset`, or Content-Type's `charset`).
    pub charset: Option<String>,
    /// Findings about the input made before the pipeline (ignored headers, …), carried into
    /// the report.
    pub diagnostics: Vec<Diagnostic>,
}

/// How to process.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Resolution and rewriting choices.
    pub rewrite: RewriteOptions,
    /// Write the output in this encoding instead of the document's own.
    pub output_encoding: Option<&'static Encoding>,
    /// Bounds on parsing hostile input.
    pub limits: ParseLimits,
    /// Rewrite and report URLs inside downlevel-hidden conditional comments
    /// (`<!--[if mso]> … <![endif]-->`), which Outlook renders and browsers ignore. `None`: on
    /// for HTML parts of MIME messages (e-mail), off for plain documents.
    pub conditional_comments: Option<bool>,
    /// Which engine analyses and writes HTML.
    pub engine: EngineChoice,
    /// The encoding of a document that declares none (no BOM, transport charset or `<meta>`),
    /// instead of windows-1252 (`--default-charset`; HTML LS §13.2.3.2 step 8).
    pub default_encoding: Option<&'static Encoding>,
}

/// Which engine analyses and writes HTML documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineChoice {
    /// The streaming engine (`src/stream/`): no tree, only URL bytes change; the DOM engine
    /// takes the rare document it cannot settle exactly (a `dom-engine` diagnostic says why).
    #[default]
    Auto,
    /// The DOM engine (html5ever): every document parsed into a tree. The reference the
    /// streaming engine is tested against.
    Dom,
}

/// The output of [`rewrite()`].
#[derive(Debug, Clone)]
pub struct Rewritten {
    /// The rewritten document, encoded.
    pub bytes: Vec<u8>,
    /// Its base and links.
    pub report: Report,
    /// How the bytes were written.
    pub engine: Engine,
}

/// How a rewritten document was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// The streaming engine: no tree; the input's bytes with only the changed URL values
    /// replaced (`src/stream/`).
    Stream,
    /// The DOM engine's plan spliced into the input's bytes.
    Splice,
    /// The tree serialized, because the splicer could not match the plan exactly (the reason),
    /// or `--output-charset` asked for another encoding (`None`).
    Serialize(Option<crate::engine::Fallback>),
}

/// The serializer writes comments as the tree holds them: URLs inside conditional comments are
/// changed only by the splicer, so a serialized document must not claim them.
pub(crate) fn unclaim_loose(report: &mut Report) {
    for link in &mut report.links {
        if link.kind == rewrite::LinkKind::ConditionalComment {
            link.rewritten = false;
        }
    }
}

/// The rewritten bytes: the streaming engine's splices; or, from the DOM engine, its plan
/// spliced into the input where it can be matched exactly, else the tree serialized.
pub(crate) fn write_out(bytes: &[u8], analysis: &Analysis, options: &Options) -> (Vec<u8>, Engine) {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    match write_into(bytes, analysis, options, &mut out) {
        Ok(engine) => (out, engine),
        // Writing into memory does not fail.
        Err(_) => (Vec::new(), Engine::Stream),
    }
}

/// [`write_out`] to `out`: the streaming engine's output goes straight from the input's bytes
/// and the splices, never held whole.
pub(crate) fn write_into(
    bytes: &[u8],
    analysis: &Analysis,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<Engine> {
    let a = match analysis {
        Analysis::Stream(s) => {
            // Conditional-comment URLs (rare) join the engine's splices in source order.
            let mut loose: Vec<(std::ops::Range<usize>, Vec<u8>)> = s
                .loose
                .iter()
                .filter_map(|(range, l)| {
                    let new = l.replacement.as_ref()?;
                    let (range, text) = crate::splice::escaped(bytes, range.clone(), new);
                    let (encoded, _, _) = s.decoded.encoding.encode(&text);
                    Some((range, encoded.into_owned()))
                })
                .collect();
            if loose.is_empty() {
                crate::splice::write_spliced(bytes, &s.streamed.splices, out)?;
            } else {
                loose.extend(s.streamed.splices.iter().cloned());
                loose.sort_by_key(|(r, _)| r.start);
                crate::splice::write_spliced(bytes, &loose, out)?;
            }
            return Ok(Engine::Stream);
        }
        Analysis::Dom(a) => a,
    };
    if options
        .output_encoding
        .is_some_and(|e| e != a.decoded.encoding)
    {
        out.write_all(&finish(a, options))?;
        return Ok(Engine::Serialize(None));
    }
    let extra: Vec<_> = a
        .loose
        .iter()
        .filter_map(|(range, l)| Some((range.clone(), l.replacement.clone()?)))
        .collect();
    match crate::engine::dom::splice::splice(bytes, &a.doc, &a.plan, a.decoded.encoding, &extra) {
        Ok(splices) => {
            crate::splice::write_spliced(bytes, &splices, out)?;
            Ok(Engine::Splice)
        }
        Err(why) => {
            out.write_all(&finish(a, options))?;
            Ok(Engine::Serialize(Some(why)))
        }
    }
}

/// Rewrites every relative URL of an HTML document to absolute form.
///
/// # Errors
/// [`Error::Decode`] for binary input, [`Error::ReplacementEncoding`], [`Error::TextLoss`] or
/// [`Error::RawTextLoss`] for text that cannot be written back, [`Error::Limit`] for crafted input past the parser bounds, [`Error::BadBase`]
/// for an unusable `--url` or `--default-base`.
///
/// ```
/// use linkbase::pipeline::{rewrite, HtmlInput, Options};
/// use linkbase::BaseLayers;
///
/// let input = HtmlInput {
///     name: "page.html",
///     bytes: b"<a href='../x'>x</a>",
///     layers: BaseLayers { retrieval_uri: Some("http://h/a/b/page.html".into()), ..Default::default() },
///     ..Default::default()
/// };
/// let out = rewrite(&input, &Options::default())?;
/// assert_eq!(
///     String::from_utf8(out.bytes).unwrap(),
///     // Only the URL changed: the quotes, and everything else, are the input's.
///     "<a href='http://h/a/x'>x</a>"
/// );
/// assert_eq!(out.engine, linkbase::pipeline::Engine::Stream);
/// # Ok::<(), linkbase::Error>(())
/// ```
pub fn rewrite(input: &HtmlInput<'_>, options: &Options) -> Result<Rewritten, Error> {
    let mut bytes = Vec::with_capacity(input.bytes.len() + input.bytes.len() / 8);
    let mut links = Vec::new();
    let (base, _, engine) = write_document(input, options, &mut bytes, Links::Keep, &mut |l| {
        links.push(l)
    })?;
    Ok(Rewritten {
        bytes,
        report: Report { base, links },
        engine,
    })
}

/// What [`rewrite_to`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The document's base.
    pub base: BaseRecord,
    /// Its links, counted.
    pub links: LinkTally,
    /// The engine that wrote it.
    pub engine: Engine,
}

/// [`rewrite()`] written to `out`, its links counted rather than kept: the output goes
/// straight from the input's bytes and the changed URL values, so memory holds the input and
/// little else (what `linkbase rewrite` does with one document). Nothing is written when the
/// document is refused.
///
/// # Errors
/// As [`rewrite()`], and [`Error::Io`] when writing to `out` fails (the output is then
/// incomplete: write to a temporary file and rename it on success).
///
/// ```
/// use linkbase::pipeline::{rewrite_to, HtmlInput, Options};
/// use linkbase::BaseLayers;
///
/// let input = HtmlInput {
///     name: "page.html",
///     bytes: b"<a href=x>x</a><a href='#top'>top</a>",
///     layers: BaseLayers { retrieval_uri: Some("http://h/d/page.html".into()), ..Default::default() },
///     ..Default::default()
/// };
/// let mut out = Vec::new();
/// let written = rewrite_to(&input, &Options::default(), &mut out)?;
/// assert_eq!(out, b"<a href=http://h/d/x>x</a><a href='#top'>top</a>");
/// // The same-document reference is right as it is and not counted.
/// assert_eq!((written.links.links, written.links.unresolved), (1, 0));
/// # Ok::<(), linkbase::Error>(())
/// ```
pub fn rewrite_to(
    input: &HtmlInput<'_>,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> Result<Written, Error> {
    let mut tally = LinkTally::default();
    let (base, counted, engine) =
        write_document(input, options, out, Links::Tally, &mut |l| tally.add(&l))?;
    tally += counted;
    Ok(Written {
        base,
        links: tally,
        engine,
    })
}

/// The document rewritten to `out`; then its links, those the engine kept to `on_link`, those
/// it counted (with [`Links::Tally`]) as the returned tally.
fn write_document(
    input: &HtmlInput<'_>,
    options: &Options,
    out: &mut dyn std::io::Write,
    links: Links,
    on_link: &mut dyn FnMut(LinkRecord),
) -> Result<(BaseRecord, LinkTally, Engine), Error> {
    let a = analyse(input, options, links)?;
    if let Analysis::Dom(dom) = &a {
        refuse_text_loss(input.name, dom)?;
        refuse_raw_text_loss(input.name, dom, options)?;
    }
    let engine = write_into(input.bytes, &a, options, out).map_err(|source| Error::Io {
        input: input.name.to_owned(),
        source,
    })?;
    // The serializer writes comments as the tree holds them (see `unclaim_loose`).
    let unclaim = !matches!(engine, Engine::Splice | Engine::Stream);
    let counted = match &a {
        Analysis::Stream(s) => s.streamed.tally,
        Analysis::Dom(_) => LinkTally::default(),
    };
    let base = deliver(a, None, input.bytes, &mut |mut l| {
        if unclaim && l.kind == rewrite::LinkKind::ConditionalComment {
            l.rewritten = false;
        }
        on_link(l);
    });
    Ok((base, counted, engine))
}

/// Issue 14: bytes that are malformed in the chosen encoding decode to U+FFFD, and a document
/// serialized from that text has lost them for good (a windows-1251 page served as UTF-8 comes
/// back as a page of U+FFFD). Nothing is written instead; `links` and `base` still report.
pub(crate) fn refuse_text_loss(name: &str, a: &Analysed) -> Result<(), Error> {
    if !a.decoded.had_errors {
        return Ok(());
    }
    Err(text_loss(name, &a.decoded))
}

/// `--output-charset`: a character the output encoding cannot represent is written as `&#N;`,
/// which text and attribute values decode back; raw text (`<script>`, `<style>`, `<xmp>`, …)
/// does not, so there it would change the script or stylesheet (issue 9 item 9). Refused.
pub(crate) fn refuse_raw_text_loss(
    name: &str,
    a: &Analysed,
    options: &Options,
) -> Result<(), Error> {
    const RAW_TEXT: [&str; 8] = [
        "script",
        "style",
        "xmp",
        "iframe",
        "noembed",
        "noframes",
        "noscript",
        "plaintext",
    ];
    let Some(encoding) = options.output_encoding else {
        return Ok(());
    };
    // UTF-8 and UTF-16 represent everything (and the replacement encoding is written as UTF-8).
    if encoding == a.decoded.encoding
        || encoding == encoding_rs::UTF_8
        || encoding == encoding_rs::UTF_16LE
        || encoding == encoding_rs::UTF_16BE
        || encoding == encoding_rs::REPLACEMENT
    {
        return Ok(());
    }
    for element in a.doc.elements() {
        let Some(tag) = RAW_TEXT.iter().find(|t| element.is_html(t)) else {
            continue;
        };
        let text = element.text();
        if !encoding.encode(&text).2 {
            continue;
        }
        let mut buffer = [0u8; 4];
        let first = text
            .chars()
            .find(|c| encoding.encode(c.encode_utf8(&mut buffer)).2)
            .unwrap_or('\u{FFFD}');
        return Err(Error::RawTextLoss {
            input: name.to_owned(),
            tag,
            character: first,
            encoding: encoding.name(),
        });
    }
    Ok(())
}

/// The refusal of [`refuse_text_loss`], for a document decoded as `decoded`.
pub(crate) fn text_loss(name: &str, decoded: &Decoded) -> Error {
    Error::TextLoss {
        input: name.to_owned(),
        encoding: decoded.encoding.name(),
        encoding_source: decoded.source,
    }
}

/// An HTML document in a file, read as a stream ([`rewrite_path`], [`links_path`]).
#[derive(Debug, Clone)]
pub struct PathInput<'a> {
    /// How to name it in errors.
    pub name: &'a str,
    /// Where it is. It is opened twice (the base first), and once more to count the lines of
    /// the links' positions, so it must not change meanwhile.
    pub path: &'a std::path::Path,
    /// The base layers outside the document (§5.1.2–§5.1.4).
    pub layers: BaseLayers,
    /// The transport-layer charset label.
    pub charset: Option<String>,
    /// Findings about the input made before the pipeline.
    pub diagnostics: Vec<Diagnostic>,
}

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
/// the readers return, so a test can put a chunk boundary anywhere (issue 22 item 5: every
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

/// A streamed document's base record, from what the streaming engine found.
fn streamed_base_record(
    base: &crate::Base,
    decoded: &Decoded,
    mut diagnostics: Vec<Diagnostic>,
    found: Vec<Diagnostic>,
    malformed: bool,
) -> BaseRecord {
    diagnostics.extend(
        decoded
            .diagnostics
            .iter()
            .map(|d| Diagnostic::new(crate::error::DiagnosticCode::Encoding, d.clone())),
    );
    if malformed {
        diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::Encoding,
            format!(
                "malformed byte sequences for {} (copied as they are; only URL values are rewritten)",
                decoded.encoding.name()
            ),
        ));
    }
    diagnostics.extend(found);
    BaseRecord {
        part: None,
        base: base.uri.as_ref().map(|u| u.to_string()),
        base_source: base.source,
        encoding: decoded.encoding.name(),
        encoding_source: decoded.source,
        diagnostics,
        root: None,
        warc: None,
        content_type: None,
        mbox: None,
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
    let decoded =
        decode::sniff_head_with_default(&head, input.charset.as_deref(), options.default_encoding)
            .map_err(|source| Error::Decode {
                input: name.to_owned(),
                source,
            })?;
    refuse_replacement(name, &decoded)?;
    let transcode = options
        .output_encoding
        .is_some_and(|e| e != decoded.encoding);
    let streaming = !transcode && options.engine == EngineChoice::Auto;
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
                Ok((base, found, malformed, tally)) => {
                    let record =
                        streamed_base_record(&base, &decoded, diagnostics, found, malformed);
                    return Ok((record, Engine::Stream, tally));
                }
                Err(StreamError::Io(e)) => return Err(io_error(e)),
                // The engine has taken back what it wrote.
                Err(StreamError::Fallback(why)) => {
                    let dom = dom_path(input, open, options, Some(out), on_link, Some(why))?;
                    return Ok((dom.0, dom.1, LinkTally::default()));
                }
            }
        }
        StreamOut::Rewinding(out) => (true, writer(out)),
        StreamOut::Once(out) => (true, writer(out)),
        StreamOut::Links => (false, writer(&mut sink)),
    };
    let mut fallback = None;
    // The links' positions are read from a reader of their own (issue 25).
    let open = std::cell::RefCell::new(open);
    let mut reopen = || (open.borrow_mut())();
    let mut reopen_for_positions = || (open.borrow_mut())();
    if streaming {
        let mut counted = Counting {
            inner: &mut *out,
            written: 0,
        };
        let mut sweep = crate::position::Sweep::new(&mut reopen_for_positions, decoded.encoding);
        let mut deliver = |l: rewrite::Link| {
            let position = l.offset.and_then(|o| sweep.position(o));
            on_link(LinkRecord::new(&l, None).at(position));
        };
        match crate::engine::stream::run_streaming(
            &mut reopen,
            &decoded,
            &outer,
            &options.rewrite,
            &mut counted,
            &mut deliver,
        ) {
            Ok((base, found, malformed)) => {
                let record = streamed_base_record(&base, &decoded, diagnostics, found, malformed);
                return Ok((record, Engine::Stream, LinkTally::default()));
            }
            Err(StreamError::Io(e)) => return Err(io_error(e)),
            Err(StreamError::Fallback(why)) => {
                if counted.written > 0 {
                    // Pass 1 saw nothing of this: the file changed between the two reads.
                    return Err(Error::Changed {
                        input: name.to_owned(),
                    });
                }
                fallback = Some(why);
            }
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
    if let Some(why) = why.filter(|w| *w != crate::engine::Fallback::DropBase) {
        html_diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::DomEngine,
            format!("the DOM engine handled this document: {}", why.describe()),
        ));
    }
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

/// Every link of an HTML document with its resolution, and the document's base.
///
/// # Errors
/// As [`rewrite()`].
pub fn links(input: &HtmlInput<'_>, options: &Options) -> Result<Report, Error> {
    let a = analyse(input, options, Links::Keep)?;
    Ok(into_report(a, None, input.bytes))
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
        return Ok(deliver(a, None, input.bytes, on_link));
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

/// The base record of an HTML document alone: [`links()`] without the link records, whose
/// memory would grow with the document (the streaming engine counts the links instead).
///
/// # Errors
/// As [`links()`].
pub fn base(input: &HtmlInput<'_>, options: &Options) -> Result<BaseRecord, Error> {
    let a = analyse(input, options, Links::Tally)?;
    Ok(report_base(&a, None))
}

/// A document analysed by one of the two engines.
pub(crate) enum Analysis {
    /// By the streaming engine.
    Stream(Box<StreamAnalysed>),
    /// By the DOM engine.
    Dom(Box<Analysed>),
}

/// A document tokenized, with its base established and its changes decided as byte ranges.
pub(crate) struct StreamAnalysed {
    pub decoded: Decoded,
    pub streamed: crate::engine::stream::Streamed,
    pub diagnostics: Vec<Diagnostic>,
    /// URLs inside conditional comments, with their value ranges in the input.
    pub loose: Vec<(std::ops::Range<usize>, rewrite::LooseUrl)>,
}

impl Analysis {
    /// How the document was decoded (the text is not kept).
    pub(crate) fn decoded(&self) -> &Decoded {
        match self {
            Analysis::Stream(s) => &s.decoded,
            Analysis::Dom(a) => &a.decoded,
        }
    }

    /// Whether the rewrite changes any byte.
    pub(crate) fn has_changes(&self) -> bool {
        let loose = match self {
            Analysis::Stream(s) => &s.loose,
            Analysis::Dom(a) => &a.loose,
        };
        let planned = match self {
            Analysis::Stream(s) => !s.streamed.splices.is_empty(),
            Analysis::Dom(a) => !a.plan.edits.is_empty(),
        };
        planned || loose.iter().any(|(_, l)| l.replacement.is_some())
    }

    /// Whether writing the document back keeps every byte that is not a URL: always for the
    /// streaming engine, which copies them; for the DOM engine only when the text decoded
    /// without error.
    pub(crate) fn lossless(&self) -> bool {
        match self {
            Analysis::Stream(_) => true,
            Analysis::Dom(a) => !a.decoded.had_errors,
        }
    }
}

/// A document decoded, parsed, with its base established and its edits planned.
pub(crate) struct Analysed {
    pub decoded: Decoded,
    pub doc: Document,
    pub plan: Plan,
    pub diagnostics: Vec<Diagnostic>,
    /// URLs inside conditional comments, with their value ranges in the input.
    pub loose: Vec<(std::ops::Range<usize>, rewrite::LooseUrl)>,
}

/// Decode, parse, establish the base and plan: everything but changing the document.
fn analyse(input: &HtmlInput<'_>, options: &Options, links: Links) -> Result<Analysis, Error> {
    let mut diagnostics = input.diagnostics.clone();
    let outer = outer_base(&input.layers, options.rewrite.resolve, &mut diagnostics)?;
    analyse_html(
        input.name,
        input.bytes,
        input.charset.as_deref(),
        diagnostics,
        &outer,
        options,
        links,
    )
}

/// The HTML stages for a document whose outer base is already known (a bare document, or a
/// MIME body part): the streaming engine, unless it hands the document to the DOM engine (the
/// reason is reported as a `dom-engine` diagnostic) or another output encoding is asked for.
pub(crate) fn analyse_html(
    name: &str,
    bytes: &[u8],
    charset: Option<&str>,
    mut diagnostics: Vec<Diagnostic>,
    outer: &Outer,
    options: &Options,
    links: Links,
) -> Result<Analysis, Error> {
    let decoded = decode::sniff_only_with_default(bytes, charset, options.default_encoding)
        .map_err(|source| Error::Decode {
            input: name.to_owned(),
            source,
        })?;
    refuse_replacement(name, &decoded)?;
    let transcode = options
        .output_encoding
        .is_some_and(|e| e != decoded.encoding);
    if !transcode && options.engine == EngineChoice::Auto {
        match crate::engine::stream::run(bytes, &decoded, outer, &options.rewrite, links) {
            Ok(streamed) => {
                diagnostics.extend(
                    decoded.diagnostics.iter().map(|d| {
                        Diagnostic::new(crate::error::DiagnosticCode::Encoding, d.clone())
                    }),
                );
                diagnostics.extend(streamed.diagnostics.iter().cloned());
                let loose = if options.conditional_comments == Some(true) {
                    conditional_comment_urls(
                        bytes,
                        &streamed.base,
                        outer,
                        options,
                        decoded.encoding,
                    )
                } else {
                    Vec::new()
                };
                return Ok(Analysis::Stream(Box::new(StreamAnalysed {
                    decoded,
                    streamed,
                    diagnostics,
                    loose,
                })));
            }
            Err(crate::engine::Fallback::DropBase) => {}
            Err(why) => diagnostics.push(Diagnostic::new(
                crate::error::DiagnosticCode::DomEngine,
                format!("the DOM engine handled this document: {}", why.describe()),
            )),
        }
    }
    analyse_dom(name, bytes, charset, diagnostics, outer, options)
        .map(|a| Analysis::Dom(Box::new(a)))
}

/// The DOM engine: decode, parse into a tree, establish the base and plan.
pub(crate) fn analyse_dom(
    name: &str,
    bytes: &[u8],
    charset: Option<&str>,
    mut diagnostics: Vec<Diagnostic>,
    outer: &Outer,
    options: &Options,
) -> Result<Analysed, Error> {
    let (mut decoded, doc) = decode_and_parse(name, bytes, charset, options)?;
    diagnostics.extend(
        decoded
            .diagnostics
            .iter()
            .map(|d| Diagnostic::new(crate::error::DiagnosticCode::Encoding, d.clone())),
    );
    // The tree holds the text now; the decoded copy is not needed again.
    decoded.text = String::new();
    let mut plan = plan::plan(&doc, outer, &options.rewrite, decoded.encoding);
    crate::engine::dom::locate::locate(bytes, decoded.encoding, &doc, &mut plan.links);
    diagnostics.extend(plan.diagnostics.iter().cloned());
    let loose = if options.conditional_comments == Some(true) {
        conditional_comment_urls(bytes, &plan.base, outer, options, decoded.encoding)
    } else {
        Vec::new()
    };
    Ok(Analysed {
        decoded,
        doc,
        plan,
        diagnostics,
        loose,
    })
}

/// Issue 14: the URL attributes inside conditional comments, resolved like the tree's.
fn conditional_comment_urls(
    bytes: &[u8],
    base: &crate::Base,
    outer: &Outer,
    options: &Options,
    encoding: &'static Encoding,
) -> Vec<(std::ops::Range<usize>, rewrite::LooseUrl)> {
    let found: Vec<_> = rewrite::conditional::scan(bytes, encoding)
        .into_iter()
        .filter_map(|u| {
            let raw = bytes.get(u.range.clone())?;
            let value = crate::splice::decode_attribute(raw, encoding)?;
            Some((u.range, (u.element, u.attribute, value)))
        })
        .collect();
    let values: Vec<_> = found.iter().map(|(_, v)| v.clone()).collect();
    let planned = rewrite::plan_loose_urls(base, outer, &options.rewrite, encoding, &values);
    found
        .into_iter()
        .map(|(r, _)| r)
        .zip(planned)
        .map(|(range, mut url)| {
            url.link.offset = Some(range.start);
            (range, url)
        })
        .collect()
}

/// Stages ② and ③: decode (refusing the `replacement` encoding) and parse within the bounds.
fn decode_and_parse(
    name: &str,
    bytes: &[u8],
    charset: Option<&str>,
    options: &Options,
) -> Result<(Decoded, Document), Error> {
    let decoded = decode::decode_with_default(bytes, charset, options.default_encoding).map_err(
        |source| Error::Decode {
            input: name.to_owned(),
            source,
        },
    )?;
    refuse_replacement(name, &decoded)?;
    let parse = |text: &str| {
        Document::parse_with_limits(text, options.limits).map_err(|source| Error::Limit {
            input: name.to_owned(),
            source,
        })
    };
    let doc = parse(&decoded.text)?;
    // HTML LS "change the encoding" (§13.2.3.4): while the encoding is only tentative (it came
    // from the prescan or the default), a `<meta>` the 1,024-byte prescan did not reach but the
    // tree builder meets switches to its encoding, and a browser re-reads the document in it.
    if matches!(
        decoded.source,
        decode::EncodingSource::Meta | decode::EncodingSource::Fallback
    ) {
        let declared = doc
            .elements()
            .iter()
            .filter(|e| e.is_html("meta") && !e.in_template())
            .find_map(|e| {
                decode::meta_element_encoding(
                    e.attr("charset").as_deref(),
                    e.attr("http-equiv").as_deref(),
                    e.attr("content").as_deref(),
                )
            });
        if let Some(encoding) = declared.filter(|&e| e != decoded.encoding) {
            if let Ok(mut again) = decode::decode(bytes, Some(encoding.name())) {
                let from = decoded.encoding.name();
                again.source = decode::EncodingSource::Meta;
                again.diagnostics.retain(|d| !d.contains("transport"));
                again.diagnostics.push(format!(
                    "a <meta> declaring {} beyond the 1,024-byte prescan changed the encoding from \
                     {from} (HTML LS \"change the encoding\"); the document was decoded again",
                    encoding.name()
                ));
                let doc = parse(&again.text)?;
                return Ok((again, doc));
            }
        }
    }
    Ok((decoded, doc))
}

/// HTML LS maps ISO-2022-KR, HZ-GB-2312 and friends to "replacement", which decodes the whole
/// document to one U+FFFD: rewriting would destroy it, so refuse instead.
fn refuse_replacement(name: &str, decoded: &Decoded) -> Result<(), Error> {
    if decoded.encoding == encoding_rs::REPLACEMENT {
        return Err(Error::ReplacementEncoding {
            input: name.to_owned(),
        });
    }
    Ok(())
}

/// Applies the plan and serializes in the output encoding.
pub(crate) fn finish(a: &Analysed, options: &Options) -> Vec<u8> {
    plan::apply(&a.doc, &a.plan);
    let encoding = options.output_encoding.unwrap_or(a.decoded.encoding);
    if encoding != a.decoded.encoding {
        serialize::retarget_charset_declarations(&a.doc, encoding);
    }
    serialize::serialize(&a.doc, encoding, a.decoded.bom)
}

/// As [`report`], taking the analysis: the links' strings move into the records.
pub(crate) fn into_report(analysis: Analysis, part: Option<&str>, bytes: &[u8]) -> Report {
    let mut links = Vec::new();
    let base = deliver(analysis, part, bytes, &mut |l| links.push(l));
    Report { base, links }
}

/// The base record, and each link as a record to `on_link` in source order, the analysis
/// consumed as they go; `bytes` is the document, for the links' positions.
fn deliver(
    analysis: Analysis,
    part: Option<&str>,
    bytes: &[u8],
    on_link: &mut dyn FnMut(LinkRecord),
) -> BaseRecord {
    let base = report_base(&analysis, part);
    let encoding = analysis.decoded().encoding;
    let (links, loose) = match analysis {
        Analysis::Stream(s) => (s.streamed.links, s.loose),
        Analysis::Dom(a) => (a.plan.links, a.loose),
    };
    let links: Vec<_> = links
        .into_iter()
        .chain(loose.into_iter().map(|(_, l)| l.link))
        .collect();
    let offsets: Vec<_> = links.iter().map(|l| l.offset).collect();
    let positions = crate::position::positions(bytes, encoding, &offsets);
    for (link, position) in links.into_iter().zip(positions) {
        on_link(LinkRecord::from_link(link, part).at(position));
    }
    base
}

fn report_base(analysis: &Analysis, part: Option<&str>) -> BaseRecord {
    let (base, diagnostics) = match analysis {
        Analysis::Stream(s) => (&s.streamed.base, &s.diagnostics),
        Analysis::Dom(a) => (&a.plan.base, &a.diagnostics),
    };
    let decoded = analysis.decoded();
    BaseRecord {
        part: part.map(str::to_owned),
        base: base.uri.as_ref().map(|u| u.to_string()),
        base_source: base.source,
        encoding: decoded.encoding.name(),
        encoding_source: decoded.source,
        diagnostics: diagnostics.clone(),
        root: None,
        warc: None,
        content_type: None,
        mbox: None,
    }
}

/// The report of an analysis of `bytes` (the document, for the links' positions).
pub(crate) fn report(analysis: &Analysis, part: Option<&str>, bytes: &[u8]) -> Report {
    let (links, loose) = match analysis {
        Analysis::Stream(s) => (&s.streamed.links, &s.loose),
        Analysis::Dom(a) => (&a.plan.links, &a.loose),
    };
    let links: Vec<_> = links
        .iter()
        .chain(loose.iter().map(|(_, l)| &l.link))
        .collect();
    let offsets: Vec<_> = links.iter().map(|l| l.offset).collect();
    let encoding = analysis.decoded().encoding;
    let positions = crate::position::positions(bytes, encoding, &offsets);
    Report {
        base: report_base(analysis, part),
        links: links
            .into_iter()
            .zip(positions)
            .map(|(l, p)| LinkRecord::new(l, part).at(p))
            .collect(),
    }
}

/// The fragment targets of an HTML document: every `id`, and the `name` of every `a` (HTML LS
/// "find a potential indicated element"), for checking `#fragment` links.
///
/// # Errors
/// As [`links`].
pub fn fragment_ids(input: &HtmlInput<'_>, options: &Options) -> Result<Vec<String>, Error> {
    if options.engine == EngineChoice::Auto {
        let decoded = decode::sniff_only_with_default(
            input.bytes,
            input.charset.as_deref(),
            options.default_encoding,
        )
        .map_err(|source| Error::Decode {
            input: input.name.to_owned(),
            source,
        })?;
        if decoded.encoding != encoding_rs::REPLACEMENT {
            let tentative = matches!(
                decoded.source,
                decode::EncodingSource::Meta | decode::EncodingSource::Fallback
            );
            if let Ok(ids) =
                crate::engine::stream::fragment_ids(input.bytes, decoded.encoding, tentative)
            {
                return Ok(ids);
            }
        }
    }
    let (_, doc) = decode_and_parse(input.name, input.bytes, input.charset.as_deref(), options)?;
    let mut ids = Vec::new();
    for element in doc.elements().iter().filter(|e| !e.in_template()) {
        if let Some(id) = element.attr("id") {
            ids.push(id);
        }
        if element.is_html("a") {
            if let Some(name) = element.attr("name") {
                ids.push(name);
            }
        }
    }
    Ok(ids)
}
