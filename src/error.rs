//! Fatal errors (the document cannot be processed) and diagnostics (something in it was left as
//! it was, and why). A diagnostic never stops the run; an error stops it before anything is
//! written.

use crate::decode::DecodeError;
use crate::engine::dom::LimitHit;
use crate::uri::ResolveError;

/// Why a MIME message could not be read at all (its top-level heading).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a readable MIME message: {0}")]
pub struct MimeError(pub(crate) String);

/// Why a document could not be processed. The CLI maps every variant to exit code 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a text document, or not in a usable encoding.
    #[error("{input}: {source}")]
    Decode {
        /// The input's name (a path, or `-`).
        input: String,
        /// What was wrong.
        #[source]
        source: DecodeError,
    },
    /// The document passes a parser bound (see [`crate::engine::dom::ParseLimits`]).
    #[error("{input}: refusing to parse: {source}")]
    Limit {
        /// The input's name.
        input: String,
        /// Which bound.
        #[source]
        source: LimitHit,
    },
    /// A base layer the caller gave (the retrieval URI, the default base) is not a usable URI.
    #[error("{option} {value:?}: {source}")]
    BadBase {
        /// The layer: `the retrieval URI` (`--url`, a WARC-Target-URI), `the default base`,
        /// `the Content-Base` or `the Content-Location`.
        option: &'static str,
        /// Its value.
        value: String,
        /// Why it is unusable.
        #[source]
        source: ResolveError,
    },
    /// Rewriting would replace the document's malformed bytes with U+FFFD and lose text: nothing is written. `links` and `base` still report, with a diagnostic.
    #[error("{input}: {}", crate::decode::text_loss_reason(encoding, *encoding_source))]
    TextLoss {
        /// The input's name.
        input: String,
        /// The encoding the bytes were read in.
        encoding: &'static str,
        /// Where that encoding came from.
        encoding_source: crate::decode::EncodingSource,
    },
    /// Raw text (`<script>`, `<style>`, …) holds a character the output encoding cannot
    /// represent: a character reference there would change the content, so nothing is written.
    #[error(
        "{input}: <{tag}> holds U+{:04X} ({character}), which {encoding} cannot represent, and in \
         its raw text a character reference would change the content; nothing was written \
         (choose an output encoding that can represent it, such as UTF-8)",
        u32::from(*character)
    )]
    RawTextLoss {
        /// The input's name.
        input: String,
        /// The raw-text element.
        tag: &'static str,
        /// The first character the output encoding lacks.
        character: char,
        /// The output encoding.
        encoding: &'static str,
    },
    /// The charset maps to the "replacement" encoding (HTML LS: ISO-2022-KR, HZ-GB-2312, …),
    /// which decodes the whole document to one U+FFFD.
    #[error(
        "{input}: its charset maps to the \"replacement\" encoding (HTML LS), which cannot be \
         decoded without destroying it"
    )]
    ReplacementEncoding {
        /// The input's name.
        input: String,
    },
    /// A file read twice (its base first, then its links) changed between the two reads.
    #[error("{input}: it changed while it was being read")]
    Changed {
        /// The input's name.
        input: String,
    },
    /// A MIME message whose top-level heading cannot be read.
    #[error("{input}: {source}")]
    Message {
        /// The input's name.
        input: String,
        /// Why.
        #[source]
        source: MimeError,
    },
    /// A message asked for as a page (`rewrite --extract`) has no HTML part.
    #[error("{input}: the message has no HTML part to write as a page")]
    NoHtmlPart {
        /// The input's name.
        input: String,
    },
    /// A message asked for as a page has an HTML part whose body cannot be decoded.
    #[error("{input}: the body of the message's HTML part cannot be decoded")]
    UndecodableHtmlPart {
        /// The input's name.
        input: String,
    },
    /// A base layer given for an archive, whose records each have their own (RFC 2396
    /// §5.1.3: the `WARC-Target-URI`; §5.1.2: the archived HTTP headers).
    #[error(
        "{input}: {layer} does not apply to an archive: each record's WARC-Target-URI is its \
         retrieval URI (RFC 2396 §5.1.3) and its archived HTTP headers are its entity (§5.1.2)"
    )]
    NotForArchive {
        /// The input's name.
        input: String,
        /// What was given: `the retrieval URI`, `a Content-Base`, `a Content-Location`, `header
        /// fields`.
        layer: &'static str,
    },
    /// Reading or writing failed.
    #[error("{input}: {source}")]
    Io {
        /// The path involved.
        input: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// What a [`Diagnostic`] is about: one stable, kebab-case name each (`base-ignored`), the same
/// in JSON reports, messages and the CLI's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DiagnosticCode {
    /// A URL could not be resolved (RFC 2396 §5.2 has no answer, or the profile refuses it).
    Unresolvable,
    /// No base at all: relative references stay as written.
    NoBase,
    /// A base layer (`<base href>`, a header, an option) could not serve and was skipped.
    BaseIgnored,
    /// `--drop-base` kept the `<base>`: some references could not be made absolute and still
    /// need it.
    BaseKept,
    /// A `<base href>` after the first: browsers ignore it (HTML LS "frozen base URL").
    DuplicateBase,
    /// `Content-Base` / `Content-Location` not used as a base under `--header-base browser`.
    HeaderIgnored,
    /// The retrieval URI is the end of a saved redirect chain (RFC 2396 §5.1.3).
    RedirectChain,
    /// About the document's encoding: an unknown label, malformed bytes.
    Encoding,
    /// An empty URL value, left empty.
    EmptyUrl,
    /// A `<noscript>`'s content left as it was (it could not be settled), and why.
    NoscriptKept,
    /// A `<style>` or `<noscript>` too long to hold while streaming, copied as it is.
    RawTextKept,
    /// An `iframe srcdoc` document past the parser's bounds, left as it was.
    Unparsed,
    /// The DOM engine handled the document, and why.
    DomEngine,
    /// `rewrite` wrote the document from its parsed tree, and why: markup besides the URL values
    /// is as the serializer writes it, and URLs inside conditional comments are left as written.
    Reserialized,
    /// About the MIME structure of a message.
    Mime,
    /// A MIME part left as it was, and why.
    PartSkipped,
    /// A MIME structure read past damage: a multipart whose boundary never occurs or
    /// is not declared (its delimiter sniffed, or its body read as one part), a multipart without
    /// its closing delimiter (its last part ends at the end of the input). Says what was read.
    MimeMalformed,
    /// About an archived HTTP payload (codings that do not decode, a chunked body that is not).
    WarcPayload,
    /// A WARC record read past damage, as warcio reads it: a `Content-Length` that does not end
    /// it, a short terminator, the archive ending inside it (`truncated`).
    WarcRecord,
    /// Markup nested in markup (`iframe srcdoc`, `<noscript>` in `<noscript>`) past the nesting
    /// limit: left as it was, its links neither reported nor rewritten.
    NestingLimit,
    /// RFC 2396 and the URL Standard (the whatwg profile) resolve this link to different URLs
    /// (`?y`, `..` above the root, `\`): the message gives both. A mirror or a
    /// checker meant to match browsers should use `--profile whatwg`.
    ProfileSensitive,
}

impl DiagnosticCode {
    /// The kebab-case name (`base-ignored`).
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticCode::Unresolvable => "unresolvable",
            DiagnosticCode::NoBase => "no-base",
            DiagnosticCode::ProfileSensitive => "profile-sensitive",
            DiagnosticCode::BaseIgnored => "base-ignored",
            DiagnosticCode::BaseKept => "base-kept",
            DiagnosticCode::DuplicateBase => "duplicate-base",
            DiagnosticCode::HeaderIgnored => "header-ignored",
            DiagnosticCode::RedirectChain => "redirect-chain",
            DiagnosticCode::Encoding => "encoding",
            DiagnosticCode::EmptyUrl => "empty-url",
            DiagnosticCode::NoscriptKept => "noscript-kept",
            DiagnosticCode::RawTextKept => "raw-text-kept",
            DiagnosticCode::Unparsed => "unparsed",
            DiagnosticCode::DomEngine => "dom-engine",
            DiagnosticCode::Reserialized => "reserialized",
            DiagnosticCode::Mime => "mime",
            DiagnosticCode::PartSkipped => "part-skipped",
            DiagnosticCode::MimeMalformed => "mime-malformed",
            DiagnosticCode::WarcPayload => "warc-payload",
            DiagnosticCode::WarcRecord => "warc-record",
            DiagnosticCode::NestingLimit => "nesting-limit",
        }
    }

    /// Whether `diagnostic`, as a record prints it ([`Diagnostic`]'s `code: message`), is of
    /// this code.
    pub fn names(self, diagnostic: &str) -> bool {
        diagnostic
            .strip_prefix(self.as_str())
            .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(" at "))
    }
}

impl std::fmt::Display for DiagnosticCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something in the document that was left as it was, or a choice worth knowing about.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// What it is about.
    pub code: DiagnosticCode,
    /// A sentence for people.
    pub message: String,
    /// Where in the input file it is, for damage to a container (a MIME structure, a part
    /// skipped): serialized as `offset` (and `within`), absent otherwise.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub at: Option<Place>,
}

impl Diagnostic {
    /// A diagnostic with this code and message.
    pub fn new(code: DiagnosticCode, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            at: None,
        }
    }

    /// The same, about the input's bytes at `at`.
    #[must_use]
    pub fn at(self, at: Place) -> Diagnostic {
        Diagnostic {
            at: Some(at),
            ..self
        }
    }
}

/// `code: message`, or `code at offset N: message` when it has a place.
impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.code)?;
        if let Some(at) = &self.at {
            write!(f, " at {at}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Where something is in an input file: the one way offsets are said, for archive records and
/// their damage (WARC, ARC) and for MIME and mbox damage alike (`offset N`, and `(byte M of its
/// gzip member)` inside a member).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Place {
    /// The file offset: of the record, or of the gzip member holding it; of the byte of a MIME
    /// message (or mbox) a diagnostic is about.
    pub offset: u64,
    /// In a gzip member that holds several records: how many decompressed bytes of it come
    /// before this record (0 for the first, and in a `.warc`).
    #[serde(skip_serializing_if = "is_zero")]
    pub within: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "offset {}", self.offset)?;
        if self.within > 0 {
            write!(f, " (byte {} of its gzip member)", self.within)?;
        }
        Ok(())
    }
}
