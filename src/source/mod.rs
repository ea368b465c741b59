//! The door every input comes in by. [`open`] takes an [`Input`] (bytes, a file, a reader),
//! tells its format by [`crate::input::sniff`], and gives a [`Source`]: the input's
//! documents in order — the document itself for a bare HTML file, each HTML and CSS part of a
//! MIME message, those of each message of an mbox, each HTML record of a WARC or ARC file —
//! with what could not be read said beside them ([`Item`]), and the means to write the input
//! back with its documents rewritten (MIME transfer encodings, the mbox join, WARC conversion
//! records, ARC records replaced in place).
//!
//! Each format is one reader here (`html.rs`, `message.rs`, `mbox.rs`, `archive.rs`) and one
//! arm of [`open`]'s `match`; what a document says about its place in the input is one
//! [`Origin`] field. The verbs ([`crate::verb`]) run any source the same way.

mod input;
mod document;
mod reader;
mod html;
mod message;
mod mbox;
mod archive;
#[cfg(feature = "oracle")]
mod toy;

use crate::error::Error;
use crate::input::{self as formats, InputKind};
use crate::report::Origin;

pub(crate) use document::{Back, PartBack};
pub use document::{Body, Document, Item, Kind, Layers, MessageEnd, Role, Skipped};
pub use input::{Content, Input, MboxPage, MessageInput, STREAM_THRESHOLD};
pub(crate) use message::{part_keys, MessageDocuments};
pub(crate) use reader::{Reader, Wrote};
pub use reader::{Source, Summary, WriteBack};

/// The layers a caller states, checked before any document is read: the retrieval URI and the
/// default base are absolute URIs ([`crate::Uri::parse_stated`]); a Content-Base or
/// Content-Location given with an authority has a well-formed one (a relative one is resolved
/// against what lies outside it).
fn stated(layers: &crate::BaseLayers) -> Result<(), Error> {
    type Check = fn(&str) -> Result<(), crate::ResolveError>;
    let absolute: Check = |v| crate::Uri::parse_stated(v).map(drop);
    let authority: Check = crate::uri::check_authority;
    let checks = [
        ("the retrieval URI", &layers.retrieval_uri, absolute),
        ("the default base", &layers.default_base, absolute),
        ("the Content-Base", &layers.content_base, authority),
        ("the Content-Location", &layers.content_location, authority),
    ];
    for (option, value, check) in checks {
        if let Some(value) = value {
            check(value.trim()).map_err(|source| Error::BadBase {
                option,
                value: value.clone(),
                source,
            })?;
        }
    }
    Ok(())
}

/// Opens `input`: reads it (or, for a large HTML file, an mbox or an archive, its head), tells
/// its format ([`crate::input::sniff`]: by content, then by name; a guess is
/// [`Source::doubt`]) and gives its documents.
///
/// # Errors
/// [`Error::Io`] when it cannot be read; [`Error::BadBase`] for an unusable retrieval URI or
/// default base, or a Content-Base or Content-Location with a malformed authority; [`Error::NotForArchive`] for layers given to an archive; [`Error::Message`]
/// for a MIME message whose heading cannot be read.
pub fn open<'a>(input: Input<'a>) -> Result<Source<'a>, Error> {
    let Input {
        mut name,
        content,
        mut layers,
        headers,
        header_base,
        charset,
        stream_threshold,
    } = input;
    let io_error = |name: &str| {
        let name = name.to_owned();
        move |source| Error::Io {
            input: name.clone(),
            source,
        }
    };
    let read = input::read(content, stream_threshold).map_err(io_error(&name))?;
    let sniffed = formats::sniff(&name, read.head());
    let kind = sniffed.kind;
    if name.is_empty() {
        name = placeholder(kind).to_owned();
    }
    // An mbox's messages are labelled `stdin message N (offset O)` when it comes from stdin.
    if kind == InputKind::Mbox && name == "-" {
        name = "stdin".to_owned();
    }
    let reader: Box<dyn Reader<'a> + 'a> = match kind {
        InputKind::Warc | InputKind::Arc => {
            let given = [
                ("the retrieval URI", layers.retrieval_uri.is_some()),
                ("a Content-Base", layers.content_base.is_some()),
                ("a Content-Location", layers.content_location.is_some()),
                ("header fields", !headers.is_empty()),
            ];
            if let Some((layer, _)) = given.iter().find(|(_, g)| *g) {
                return Err(Error::NotForArchive { input: name, layer });
            }
            stated(&layers)?;
            let options = crate::archive::ArchiveOptions {
                header_base,
                default_base: layers.default_base,
                charset,
            };
            Box::new(archive::Records::open(&name, read, options)?)
        }
        _ => {
            stated(&layers)?;
            let diagnostics = layers.add_headers(&headers, header_base);
            let charset = charset.or_else(|| {
                headers
                    .get("Content-Type")
                    .and_then(formats::charset_from_content_type)
            });
            match kind {
                InputKind::Message => Box::new(message::MessageDocuments::open(
                    &name,
                    read.whole().map_err(io_error(&name))?,
                    &layers,
                )?),
                #[cfg(feature = "oracle")]
                InputKind::Toy => Box::new(toy::Toy::new(
                    &name,
                    read.whole().map_err(io_error(&name))?,
                    layers,
                )),
                // Read a message at a time: from its file when it is large.
                InputKind::Mbox => Box::new(match read {
                    input::Loaded::Large { path, .. } => {
                        let file = std::fs::File::open(&path).map_err(io_error(&name))?;
                        let file = std::io::BufReader::with_capacity(256 * 1024, file);
                        mbox::Mbox::new(&name, Box::new(file), layers).map_err(io_error(&name))?
                    }
                    read => mbox::Mbox::from_bytes(
                        &name,
                        read.whole().map_err(io_error(&name))?,
                        layers,
                    ),
                }),
                _ => Box::new(html::Html::new(Document {
                    name: name.clone(),
                    body: read.body(),
                    kind: Kind::Html,
                    layers: Layers::Given(layers),
                    charset,
                    origin: Origin::default(),
                    diagnostics,
                    conditional_comments: false,
                    back: Back::Whole,
                })),
            }
        }
    };
    Ok(Source::new(name, kind, reader, sniffed.doubt))
}

/// How an input without a name is named, by what it is.
fn placeholder(kind: InputKind) -> &'static str {
    match kind {
        InputKind::Message => "<message>",
        InputKind::Mbox => "<mbox>",
        InputKind::Warc => "<warc>",
        InputKind::Arc => "<arc>",
        _ => "<html>",
    }
}
