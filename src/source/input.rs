//! What a caller gives ([`Input`]), and the input read: its bytes, or the head of a large file
//! and where it is.

use std::borrow::Cow;
use std::io::{self, Read};
use std::path::PathBuf;

use crate::base::{BaseLayers, HeaderBase};
use crate::input::Headers;

use super::document::Body;

/// A file this large or larger is not read into memory when it holds an HTML document: the
/// document is streamed from it (read twice, in memory that does not grow with it). What the
/// command line uses unless `--stream-threshold` says otherwise.
pub const STREAM_THRESHOLD: u64 = 16 << 20;

/// What a caller gives: the input, and what is known about it from outside.
#[derive(Debug)]
pub struct Input<'a> {
    /// How to name the input in errors and diagnostics: a path, `-` for stdin, or a name of
    /// the caller's. Empty: named by what it turns out to be (`<html>`, `<message>`, `<mbox>`,
    /// `<warc>`, `<arc>`).
    pub name: String,
    /// Its bytes, or where they are.
    pub content: Content<'a>,
    /// The base layers outside the document (RFC 2396 §5.1.2–§5.1.4): a bare document's, and
    /// each message's (`--url` names where the whole message came from). An archive's records
    /// have their own: giving one a retrieval URI, a Content-Base, a Content-Location or header
    /// fields is an error ([`Error::NotForArchive`](crate::Error::NotForArchive)); its default base applies to every record.
    pub layers: BaseLayers,
    /// The header fields of the encapsulating entity (§5.1.2), read as `header_base` says:
    /// Content-Base and Content-Location become layers under `layers`' own, Content-Type's
    /// charset is the transport charset.
    pub headers: Headers,
    /// Whether Content-Base / Content-Location in `headers` (and an archive's archived headers)
    /// are bases.
    pub header_base: HeaderBase,
    /// The transport charset label, over Content-Type's (and over an archived record's).
    pub charset: Option<String>,
    /// A file at least this large holding an HTML document is streamed from the file, not read
    /// into memory ([`STREAM_THRESHOLD`] by default).
    pub stream_threshold: u64,
}

/// Where an input's bytes are.
pub enum Content<'a> {
    /// In memory (borrowed: nothing is copied for a bare document).
    Bytes(Cow<'a, [u8]>),
    /// In a file: an HTML document past the stream threshold is streamed from it, an archive is
    /// read record by record, anything else is read whole.
    Path(PathBuf),
    /// Behind a reader, read to its end into memory (give a path for inputs too large to hold).
    Reader(Box<dyn Read + 'a>),
}

impl std::fmt::Debug for Content<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Content::Bytes(b) => write!(f, "Bytes({} bytes)", b.len()),
            Content::Path(p) => write!(f, "Path({})", p.display()),
            Content::Reader(_) => f.write_str("Reader"),
        }
    }
}

impl<'a> Input<'a> {
    /// `bytes`, named `name` in errors.
    pub fn bytes(name: impl Into<String>, bytes: impl Into<Cow<'a, [u8]>>) -> Input<'a> {
        Input::of(name.into(), Content::Bytes(bytes.into()))
    }

    /// The file at `path`, named by its path in errors.
    pub fn path(path: impl Into<PathBuf>) -> Input<'a> {
        let path = path.into();
        Input::of(path.display().to_string(), Content::Path(path))
    }

    /// What `reader` gives to its end, named `name` in errors.
    pub fn reader(name: impl Into<String>, reader: impl Read + 'a) -> Input<'a> {
        Input::of(name.into(), Content::Reader(Box::new(reader)))
    }

    fn of(name: String, content: Content<'a>) -> Input<'a> {
        Input {
            name,
            content,
            layers: BaseLayers::default(),
            headers: Headers::new(),
            header_base: HeaderBase::default(),
            charset: None,
            stream_threshold: STREAM_THRESHOLD,
        }
    }
}

/// An input read: its bytes, or for a file past the threshold, its head and its path.
pub(crate) enum Loaded<'a> {
    Bytes(Cow<'a, [u8]>),
    Large {
        head: Vec<u8>,
        path: PathBuf,
    },
    /// A file under the threshold, read whole; its path kept (an archive is read from it).
    File {
        bytes: Vec<u8>,
        path: PathBuf,
    },
}

impl<'a> Loaded<'a> {
    pub(crate) fn head(&self) -> &[u8] {
        match self {
            Loaded::Bytes(b) => b,
            Loaded::Large { head, .. } => head,
            Loaded::File { bytes, .. } => bytes,
        }
    }

    /// The whole input in memory (a large file read now).
    pub(crate) fn whole(self) -> io::Result<Cow<'a, [u8]>> {
        Ok(match self {
            Loaded::Bytes(b) => b,
            Loaded::Large { path, .. } => Cow::Owned(std::fs::read(path)?),
            Loaded::File { bytes, .. } => Cow::Owned(bytes),
        })
    }

    /// A bare document's body: in memory, or streamed from its file when large.
    pub(crate) fn body(self) -> Body<'a> {
        match self {
            Loaded::Bytes(b) => Body::Bytes(b),
            Loaded::Large { path, .. } => Body::File(path),
            Loaded::File { bytes, .. } => Body::Bytes(Cow::Owned(bytes)),
        }
    }
}

/// How much of a large file is read to tell its format.
const HEAD: u64 = 64 * 1024;

pub(crate) fn read(content: Content<'_>, threshold: u64) -> io::Result<Loaded<'_>> {
    match content {
        Content::Bytes(b) => Ok(Loaded::Bytes(b)),
        Content::Reader(mut r) => {
            let mut bytes = Vec::new();
            r.read_to_end(&mut bytes)?;
            Ok(Loaded::Bytes(Cow::Owned(bytes)))
        }
        Content::Path(path) => {
            let meta = std::fs::metadata(&path)?;
            if meta.is_file() && meta.len() > threshold {
                let mut head = Vec::new();
                std::fs::File::open(&path)?
                    .take(HEAD)
                    .read_to_end(&mut head)?;
                return Ok(Loaded::Large { head, path });
            }
            let bytes = std::fs::read(&path)?;
            Ok(Loaded::File { bytes, path })
        }
    }
}

/// A message of an mbox, whole ([`super::Source::next_message`]): what `rewrite --extract`
/// makes a page of, a message at a time.
#[derive(Debug, Clone)]
pub struct MboxPage {
    /// Its place in the mbox, from 0.
    pub index: usize,
    /// How it is named in errors (`box.mbox message 2 (offset 512)`).
    pub name: String,
    /// The message, `>From ` lines unquoted.
    pub bytes: Vec<u8>,
    /// The outer layers given for the mbox.
    pub layers: BaseLayers,
}

impl MboxPage {
    /// The message, as a message is given.
    pub fn input(&self) -> MessageInput<'_> {
        MessageInput {
            name: &self.name,
            bytes: &self.bytes,
            layers: self.layers.clone(),
        }
    }
}

/// A MIME message and what is known about it from outside.
#[derive(Debug, Clone, Default)]
pub struct MessageInput<'a> {
    /// How to name it in errors.
    pub name: &'a str,
    /// The message's bytes.
    pub bytes: &'a [u8],
    /// Outer layers: `--url` (RFC 2557 §5(d)), `--default-base`; `--content-base` and
    /// `--content-location` act as a heading around the whole message.
    pub layers: BaseLayers,
}
