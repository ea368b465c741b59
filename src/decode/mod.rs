//! Stage ②: bytes in, decoded text out — and the reverse for output.
//!
//! html5ever only ever sees text decoded here (its own byte input is lossy), so every rule about
//! character encodings lives in this module:
//!
//! - [`decode`] runs the encoding sniffing algorithm of HTML LS §13.2.3.2 "Determining the
//!   character encoding": byte order mark, transport-layer charset, `<meta>` prescan
//!   (`prescan`), then the windows-1252 fallback; it records where the encoding came from
//!   ([`EncodingSource`]) and refuses binary data ([`DecodeError::Binary`]).
//! - `encode` writes text back in the document's encoding, so the output keeps the input's bytes
//!   wherever the text is unchanged.
//! - [`charset_from_content_type`] pulls the transport-layer label out of a `Content-Type` value.

use encoding_rs::{Encoding, REPLACEMENT, UTF_8, WINDOWS_1252};

// The encoding sniffing algorithm is here; the `<meta>` prescan and the encoder have files of
// their own.
mod encode;
mod prescan;

pub use encode::encode;
use prescan::is_utf16;
pub use prescan::prescan;
pub(crate) use prescan::{meta_content_charset_label, meta_element_encoding};

/// How many bytes are searched for a NUL byte before the input is declared binary. Text
/// documents in ASCII-compatible encodings never contain NUL; images, archives and PDFs almost
/// always do early on. git makes the same call on its first 8000 bytes.
const BINARY_SNIFF_LIMIT: usize = 8192;

/// Where the document's encoding came from (HTML LS "confidence" sources), in sniffing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncodingSource {
    /// A byte order mark (HTML LS §13.2.3.2 step 1, "BOM sniff"; confidence *certain*).
    Bom,
    /// A transport-layer label: `--charset` or the `charset` parameter of a `Content-Type`
    /// (step 4; confidence *certain*).
    Transport,
    /// A `<meta charset>`, a `<meta http-equiv=Content-Type content=…>` or an XML declaration
    /// found by `prescan` (step 5; confidence *tentative*).
    Meta,
    /// A stylesheet's `@charset "…";` rule (CSS Syntax §3.2 step 3): a `text/css` part or
    /// record only.
    CharsetRule,
    /// Nothing declared an encoding: the default (step 8; confidence *tentative*): windows-1252,
    /// or the one the caller chose for undeclared documents (`--default-charset`); for a
    /// stylesheet, UTF-8 (CSS Syntax §3.2 step 5).
    Fallback,
}

impl EncodingSource {
    /// Whether the encoding is only *tentative* (HTML LS §13.2.3.1 confidence): a `<meta>` found
    /// by the prescan or the default, which a later `<meta>` may still change.
    pub fn is_tentative(self) -> bool {
        matches!(self, EncodingSource::Meta | EncodingSource::Fallback)
    }

    /// Where the encoding came from, in words for a message.
    pub fn describe(self) -> &'static str {
        match self {
            EncodingSource::Bom => "its byte order mark",
            EncodingSource::Transport => "the transport charset (Content-Type or the caller's)",
            EncodingSource::Meta => "its <meta> charset declaration",
            EncodingSource::CharsetRule => "its @charset rule",
            EncodingSource::Fallback => {
                "the default (windows-1252, or the caller's default charset; nothing declared an encoding)"
            }
        }
    }
}

/// Why a document whose bytes are malformed in `encoding` is not rewritten: what
/// [`crate::Error::TextLoss`] says, and a MIME part left as it was for that reason.
pub fn text_loss_reason(encoding: &str, source: EncodingSource) -> String {
    format!(
        "its bytes are not valid {encoding} (the encoding {} gave); rewriting would replace the \
         malformed bytes with U+FFFD and lose text, so nothing was written (give the right \
         encoding as its charset)",
        source.describe()
    )
}

/// A decoded document: its text and how the encoding was determined.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The document's text, without the byte order mark.
    pub text: String,
    /// The encoding used to decode, after the HTML LS adjustments (a UTF-16 label in a `<meta>`
    /// means UTF-8; x-user-defined in a `<meta>` means windows-1252).
    pub encoding: &'static Encoding,
    /// Where [`Decoded::encoding`] came from.
    pub source: EncodingSource,
    /// The input started with a byte order mark, so the output should too.
    pub bom: bool,
    /// Malformed byte sequences were replaced by U+FFFD, so re-encoding will not give the input
    /// back byte for byte.
    pub had_errors: bool,
    /// Non-fatal findings for the report, e.g. an unknown charset label that was ignored.
    pub diagnostics: Vec<String>,
}

/// Why bytes could not be decoded as a text document.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// A NUL byte within the first 8192 bytes of input that has no byte order mark and no UTF-16
    /// transport label: the input is not an HTML document.
    #[error("binary data, not a text document (NUL byte at offset {offset})")]
    Binary {
        /// Offset of the first NUL byte in the input.
        offset: usize,
    },
}

/// The transport-layer charset: a label from --charset or the `charset` parameter of a
/// Content-Type header value (parse that with the `mime` crate: `value.parse::<mime::Mime>()`,
/// `get_param(mime::CHARSET)`).
///
/// The label is returned as found (lowercased by `mime`), not resolved: `decode` resolves it, so
/// that an unknown label becomes a diagnostic there. Surrounding whitespace of the header value is
/// trimmed first (HTTP strips it; `mime` would reject it). A value `mime` cannot parse, a missing
/// parameter and an empty `charset=` all give `None`.
///
/// ```
/// use linkbase::decode::charset_from_content_type;
/// assert_eq!(charset_from_content_type("text/html; charset=\"Shift_JIS\"").as_deref(), Some("shift_jis"));
/// assert_eq!(charset_from_content_type("text/html"), None);
/// ```
#[must_use]
pub fn charset_from_content_type(content_type: &str) -> Option<String> {
    let mime = content_type.trim().parse::<mime::Mime>().ok()?;
    let charset = mime.get_param(mime::CHARSET)?;
    let label = charset.as_str().trim();
    (!label.is_empty()).then(|| label.to_owned())
}

/// HTML LS encoding sniffing: BOM → transport label → <meta> prescan (first 1024 bytes) →
/// fallback windows-1252.
///
/// This is HTML LS §13.2.3.2 "Determining the character encoding" without the steps that need a
/// browser (user override, parent document, history, frequency analysis), whose place the
/// windows-1252 fallback takes. The whole input is then decoded at once; the BOM is stripped here
/// rather than by `encoding_rs`, so the BOM decision is the sniffing algorithm's alone.
///
/// A transport label is used as it is, UTF-16 included (only a `<meta>` UTF-16 label is turned
/// into UTF-8). An unknown transport label is reported in [`Decoded::diagnostics`] and sniffing
/// goes on with the prescan.
///
/// ```
/// use linkbase::decode::{decode, EncodingSource};
/// let d = decode(b"<meta charset=shift_jis><p>\x93\xFA</p>", None)?;
/// assert_eq!(d.text, "<meta charset=shift_jis><p>日</p>");
/// assert_eq!(d.encoding, encoding_rs::SHIFT_JIS);
/// assert_eq!(d.source, EncodingSource::Meta);
/// # Ok::<(), linkbase::decode::DecodeError>(())
/// ```
///
/// # Errors
///
/// [`DecodeError::Binary`] when the input has no byte order mark, the transport label is not
/// UTF-16, and a NUL byte occurs within the first 8192 bytes.
#[cfg(any(test, feature = "oracle"))]
pub fn decode(bytes: &[u8], transport_label: Option<&str>) -> Result<Decoded, DecodeError> {
    decode_with_default(bytes, transport_label, None)
}

/// [`decode`] with `default` instead of windows-1252 for a document that declares no encoding
/// (no BOM, no transport label, nothing found by the prescan): HTML LS §13.2.3.2 step 8's
/// "user-specified default character encoding". It never overrides a declaration.
///
/// ```
/// use linkbase::decode::{decode_with_default, EncodingSource};
/// let d = decode_with_default("<p>grüß</p>".as_bytes(), None, Some(encoding_rs::UTF_8))?;
/// assert_eq!((d.text.as_str(), d.source), ("<p>grüß</p>", EncodingSource::Fallback));
/// let d = decode_with_default(b"<meta charset=windows-1252>\xE9", None, Some(encoding_rs::UTF_8))?;
/// assert_eq!(d.text, "<meta charset=windows-1252>é");
/// # Ok::<(), linkbase::decode::DecodeError>(())
/// ```
///
/// # Errors
/// As [`decode`].
pub fn decode_with_default(
    bytes: &[u8],
    transport_label: Option<&str>,
    default: Option<&'static Encoding>,
) -> Result<Decoded, DecodeError> {
    let mut diagnostics = Vec::new();
    let sniffed = sniff(bytes, transport_label, default, &mut diagnostics)?;
    // The BOM is only in the input when `sniff` found one, so this never cuts text.
    let body = bytes.get(sniffed.bom_len..).unwrap_or_default();
    // `Cow::Borrowed` (valid UTF-8, or ASCII in an ASCII-compatible encoding) is copied once by
    // `into_owned`; `Cow::Owned` is the decoder's own buffer, moved without a copy.
    let (text, had_errors) = sniffed.encoding.decode_without_bom_handling(body);
    if had_errors {
        diagnostics.push(format!(
            "malformed byte sequences for {} were replaced by U+FFFD",
            sniffed.encoding.name()
        ));
    }
    Ok(Decoded {
        text: text.into_owned(),
        encoding: sniffed.encoding,
        source: sniffed.source,
        bom: sniffed.bom_len > 0,
        had_errors,
        diagnostics,
    })
}

/// [`decode`]'s sniffing without the decoding: the encoding, its source and the BOM, with the
/// text left empty. For the streaming engine, which reads the bytes as they are and decodes
/// only attribute values. Malformed bytes are looked for (without allocating) and reported, but
/// they are not a loss here: bytes outside URL values are copied, never decoded and re-encoded.
///
/// # Errors
/// As [`decode`].
#[cfg(test)]
pub fn sniff_only(bytes: &[u8], transport_label: Option<&str>) -> Result<Decoded, DecodeError> {
    sniff_only_with_default(bytes, transport_label, None)
}

/// `sniff_only` with the default encoding of [`decode_with_default`].
///
/// # Errors
/// As [`decode`].
pub fn sniff_only_with_default(
    bytes: &[u8],
    transport_label: Option<&str>,
    default: Option<&'static Encoding>,
) -> Result<Decoded, DecodeError> {
    let mut diagnostics = Vec::new();
    let sniffed = sniff(bytes, transport_label, default, &mut diagnostics)?;
    let body = bytes.get(sniffed.bom_len..).unwrap_or_default();
    let had_errors = is_malformed(body, sniffed.encoding);
    if had_errors {
        diagnostics.push(malformed_note(sniffed.encoding));
    }
    Ok(Decoded {
        text: String::new(),
        encoding: sniffed.encoding,
        source: sniffed.source,
        bom: sniffed.bom_len > 0,
        had_errors,
        diagnostics,
    })
}

/// [`decode`]'s sniffing of a document's first bytes (the binary check reads 8,192, the
/// prescan 1,024), for a document read as a stream, with the default encoding of
/// [`decode_with_default`]: the text is left empty and malformed bytes are not looked for here.
///
/// # Errors
/// As [`decode`].
pub fn sniff_head_with_default(
    head: &[u8],
    transport_label: Option<&str>,
    default: Option<&'static Encoding>,
) -> Result<Decoded, DecodeError> {
    let mut diagnostics = Vec::new();
    let sniffed = sniff(head, transport_label, default, &mut diagnostics)?;
    Ok(Decoded {
        text: String::new(),
        encoding: sniffed.encoding,
        source: sniffed.source,
        bom: sniffed.bom_len > 0,
        had_errors: false,
        diagnostics,
    })
}

/// How a document's bytes are read for its encoding: [`decode_with_default`] (with the
/// text), [`sniff_only_with_default`] (without) or [`sniff_head_with_default`] (its head).
pub(crate) type Sniff =
    fn(&[u8], Option<&str>, Option<&'static Encoding>) -> Result<Decoded, DecodeError>;

/// HTML LS "change the encoding" (§13.2.3.4): a document whose encoding was only tentative
/// (`before`, from the prescan or the default) declares `encoding` in a `<meta>` the 1,024-byte
/// prescan did not reach, so a browser reads it again in that encoding. The document's `bytes`
/// read again by `sniff` with that encoding, its source a `<meta>`, said in a diagnostic;
/// `None` when they cannot be read so.
pub(crate) fn changed_by_late_meta(
    bytes: &[u8],
    before: &Decoded,
    encoding: &'static Encoding,
    sniff: Sniff,
) -> Option<Decoded> {
    let mut again = sniff(bytes, Some(encoding.name()), None).ok()?;
    again.source = EncodingSource::Meta;
    again.diagnostics.retain(|d| !d.contains("transport"));
    again.diagnostics.push(format!(
        "a <meta> declaring {} beyond the 1,024-byte prescan changed the encoding from {} \
         (HTML LS \"change the encoding\"); the document was decoded again",
        encoding.name(),
        before.encoding.name()
    ));
    Some(again)
}

/// What is said of a document with byte sequences malformed in `encoding` that the streaming
/// engine reads: its bytes are copied, not decoded, so nothing is lost.
pub fn malformed_note(encoding: &'static Encoding) -> String {
    format!(
        "malformed byte sequences for {} (copied as they are; only URL values are rewritten)",
        encoding.name()
    )
}

/// Whether `body` holds a byte sequence that is malformed in `encoding`.
fn is_malformed(body: &[u8], encoding: &'static Encoding) -> bool {
    if encoding == UTF_8 {
        return std::str::from_utf8(body).is_err();
    }
    if encoding.is_ascii_compatible() && body.is_ascii() {
        return false;
    }
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut buffer = [0u8; 8192];
    let mut input = body;
    loop {
        let (result, read, _) =
            decoder.decode_to_utf8_without_replacement(input, &mut buffer, true);
        match result {
            encoding_rs::DecoderResult::InputEmpty => return false,
            encoding_rs::DecoderResult::Malformed(..) => return true,
            encoding_rs::DecoderResult::OutputFull => {
                input = input.get(read..).unwrap_or_default();
            }
        }
    }
}

/// The outcome of the sniffing steps: which encoding, why, and how long the BOM is.
struct Sniffed {
    encoding: &'static Encoding,
    source: EncodingSource,
    bom_len: usize,
}

/// HTML LS §13.2.3.2 "Determining the character encoding", steps 1 (BOM sniff), 4 (transport
/// layer), 5 (prescan) and 8 (default: `default`, else windows-1252), with the binary check
/// between 4 and 5.
fn sniff(
    bytes: &[u8],
    transport_label: Option<&str>,
    default: Option<&'static Encoding>,
    diagnostics: &mut Vec<String>,
) -> Result<Sniffed, DecodeError> {
    // Step 1. "BOM sniff": a BOM overrides everything, the transport layer included.
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        if let Some(label) = transport_label {
            note_label_overridden_by_bom(label, encoding, diagnostics);
        }
        return Ok(Sniffed {
            encoding,
            source: EncodingSource::Bom,
            bom_len,
        });
    }
    let transport = transport_label.and_then(|label| transport_encoding(label, diagnostics));
    // BOM-less UTF-16 is full of NUL bytes, so it is the one text exempt from the binary check,
    // and only when the transport layer vouches for it.
    if !transport.is_some_and(is_utf16) {
        reject_binary(bytes)?;
    }
    let (encoding, source) = match transport {
        Some(encoding) => (encoding, EncodingSource::Transport),
        None => match prescan(bytes) {
            Some(encoding) => (encoding, EncodingSource::Meta),
            // Step 8: "an implementation-defined or user-specified default character encoding".
            None => (default.unwrap_or(WINDOWS_1252), EncodingSource::Fallback),
        },
    };
    if encoding == REPLACEMENT {
        diagnostics.push(replacement_diagnostic(source));
    }
    Ok(Sniffed {
        encoding,
        source,
        bom_len: 0,
    })
}

/// Step 4: the transport label, resolved with the Encoding Standard's "get an encoding"
/// (`Encoding::for_label` trims ASCII whitespace and ignores ASCII case). An unknown label is
/// reported and ignored, so sniffing continues with the prescan, as a browser does.
fn transport_encoding(label: &str, diagnostics: &mut Vec<String>) -> Option<&'static Encoding> {
    let label = label.trim();
    let encoding = Encoding::for_label(label.as_bytes());
    if encoding.is_none() {
        diagnostics.push(format!(
            "unknown transport charset label {label:?}; ignored"
        ));
    }
    encoding
}

/// Reports a transport label that the BOM overrode, unless it named the BOM's own encoding.
fn note_label_overridden_by_bom(
    label: &str,
    bom_encoding: &'static Encoding,
    diagnostics: &mut Vec<String>,
) {
    let label = label.trim();
    if Encoding::for_label(label.as_bytes()) != Some(bom_encoding) {
        diagnostics.push(format!(
            "byte order mark ({}) overrides transport charset label {label:?}",
            bom_encoding.name()
        ));
    }
}

/// The replacement encoding (labels such as `iso-2022-kr`, `hz-gb-2312`) decodes any non-empty
/// input to a single U+FFFD: the Encoding Standard does this on purpose, because those encodings
/// can smuggle markup past filters. We follow it, and say so, because the output loses the text.
fn replacement_diagnostic(source: EncodingSource) -> String {
    let from = match source {
        EncodingSource::Transport => "transport charset label",
        _ => "charset found by the <meta> prescan",
    };
    format!("{from} names the replacement encoding: the document decodes to U+FFFD")
}

/// Rejects input with a NUL byte in its first [`BINARY_SNIFF_LIMIT`] bytes.
fn reject_binary(bytes: &[u8]) -> Result<(), DecodeError> {
    let head = bytes.get(..BINARY_SNIFF_LIMIT).unwrap_or(bytes);
    match head.iter().position(|&b| b == 0) {
        Some(offset) => Err(DecodeError::Binary { offset }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
