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

/// Why a document whose bytes are malformed in `encoding` is not rewritten (issue 14): what
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

/// [`sniff_only`] with the default encoding of [`decode_with_default`].
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
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )]

    use super::*;
    use encoding_rs::{EUC_JP, GB18030, GBK, ISO_8859_2, SHIFT_JIS, X_USER_DEFINED};
    use encoding_rs::{UTF_16BE, UTF_16LE};

    fn ok(bytes: &[u8], label: Option<&str>) -> Decoded {
        decode(bytes, label).expect("decodes")
    }

    // --- BOM -------------------------------------------------------------------------------

    #[test]
    fn utf8_bom_wins_over_transport_and_meta() {
        let d = ok(
            b"\xEF\xBB\xBF<meta charset=shift_jis>\xC3\xA9",
            Some("windows-1252"),
        );
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.source, EncodingSource::Bom);
        assert!(d.bom);
        assert_eq!(d.text, "<meta charset=shift_jis>é");
        assert_eq!(
            d.diagnostics,
            ["byte order mark (UTF-8) overrides transport charset label \"windows-1252\""]
        );
    }

    #[test]
    fn utf16le_bom() {
        let d = ok(b"\xFF\xFE<\0p\0>\0\xE5\x65", None);
        assert_eq!(
            (d.encoding, d.source, d.bom),
            (UTF_16LE, EncodingSource::Bom, true)
        );
        assert_eq!(d.text, "<p>日");
        assert!(d.diagnostics.is_empty());
    }

    #[test]
    fn utf16be_bom() {
        let d = ok(b"\xFE\xFF\0<\0p\0>\x65\xE5", Some("utf-16be"));
        assert_eq!(
            (d.encoding, d.source, d.bom),
            (UTF_16BE, EncodingSource::Bom, true)
        );
        assert_eq!(d.text, "<p>日");
        // The label agrees with the BOM: nothing to report.
        assert!(d.diagnostics.is_empty());
    }

    // --- Transport label -------------------------------------------------------------------

    #[test]
    fn transport_label_is_trimmed_and_beats_meta() {
        let d = ok(b"<meta charset=utf-8>\x93\xFA", Some("  Shift_JIS\t"));
        assert_eq!(
            (d.encoding, d.source, d.bom),
            (SHIFT_JIS, EncodingSource::Transport, false)
        );
        assert_eq!(d.text, "<meta charset=utf-8>日");
    }

    #[test]
    fn unknown_transport_label_is_reported_and_sniffing_continues() {
        let d = ok(b"<meta charset=euc-jp>\xC6\xFC", Some("foo"));
        assert_eq!((d.encoding, d.source), (EUC_JP, EncodingSource::Meta));
        assert_eq!(d.text, "<meta charset=euc-jp>日");
        assert_eq!(
            d.diagnostics,
            ["unknown transport charset label \"foo\"; ignored"]
        );
    }

    #[test]
    fn utf16_transport_label_is_used_as_is_without_bom() {
        let d = ok(b"<\0p\0>\0", Some("utf-16le"));
        assert_eq!(
            (d.encoding, d.source, d.bom),
            (UTF_16LE, EncodingSource::Transport, false)
        );
        assert_eq!(d.text, "<p>");
        // "utf-16" is a label of UTF-16LE.
        assert_eq!(ok(b"a\0", Some("utf-16")).text, "a");
    }

    #[test]
    fn replacement_transport_label_decodes_to_one_replacement_character() {
        let d = ok(b"<p>hello</p>", Some("iso-2022-kr"));
        assert_eq!(
            (d.encoding, d.text.as_str(), d.had_errors),
            (REPLACEMENT, "\u{FFFD}", true)
        );
        assert_eq!(
            d.diagnostics,
            [
                "transport charset label names the replacement encoding: the document decodes to U+FFFD",
                "malformed byte sequences for replacement were replaced by U+FFFD",
            ]
        );
    }

    // --- Fallback, errors, binary ----------------------------------------------------------

    #[test]
    fn fallback_is_windows_1252() {
        let d = ok(b"<p>caf\xE9 \x80</p>", None);
        assert_eq!(
            (d.encoding, d.source, d.bom),
            (WINDOWS_1252, EncodingSource::Fallback, false)
        );
        assert_eq!(d.text, "<p>café €</p>");
        assert!(!d.had_errors);
        assert!(d.diagnostics.is_empty());
    }

    #[test]
    fn malformed_input_is_recorded() {
        let d = ok(b"a\xFFb", Some("utf-8"));
        assert_eq!((d.text.as_str(), d.had_errors), ("a\u{FFFD}b", true));
        assert_eq!(
            d.diagnostics,
            ["malformed byte sequences for UTF-8 were replaced by U+FFFD"]
        );
    }

    #[test]
    fn nul_in_first_8192_bytes_is_binary() {
        assert_eq!(
            decode(b"\x89PNG\r\n\x1a\n\0\0", None).unwrap_err(),
            DecodeError::Binary { offset: 8 }
        );
        assert_eq!(
            decode(b"ab\0", Some("utf-8")).unwrap_err(),
            DecodeError::Binary { offset: 2 }
        );
        // An unknown label is no UTF-16 label.
        assert_eq!(
            decode(b"\0", Some("foo")).unwrap_err(),
            DecodeError::Binary { offset: 0 }
        );
        assert_eq!(
            DecodeError::Binary { offset: 8 }.to_string(),
            "binary data, not a text document (NUL byte at offset 8)"
        );
    }

    #[test]
    fn nul_after_8192_bytes_or_after_a_bom_is_text() {
        let mut late = vec![b'a'; BINARY_SNIFF_LIMIT];
        late.push(0);
        assert_eq!(ok(&late, None).text.len(), BINARY_SNIFF_LIMIT + 1);
        assert_eq!(ok(b"\xEF\xBB\xBFa\0", None).text, "a\0");
    }

    #[test]
    fn bomless_utf16_without_utf16_label_is_binary() {
        // Even with the UTF-16 XML declaration the prescan would recognise: see the report.
        let doc = b"<\0?\0x\0m\0l\0";
        assert_eq!(
            decode(doc, None).unwrap_err(),
            DecodeError::Binary { offset: 1 }
        );
    }

    // --- Prescan: <meta> -------------------------------------------------------------------

    #[test]
    fn prescan_meta_charset_forms() {
        assert_eq!(prescan(b"<meta charset=\"shift_jis\">"), Some(SHIFT_JIS));
        assert_eq!(prescan(b"<meta charset='EUC-JP'>"), Some(EUC_JP));
        assert_eq!(prescan(b"<META CHARSET=iso-8859-2>"), Some(ISO_8859_2));
        assert_eq!(prescan(b"<meta/charset=gbk />"), Some(GBK));
        // An unquoted value runs to whitespace or `>`: the `/` is part of it, `gbk/` is no label.
        assert_eq!(prescan(b"<meta/charset=gbk/>"), None);
        assert_eq!(prescan(b"<meta\ncharset = \" utf-8 \">"), Some(UTF_8));
        assert_eq!(prescan(b"<meta name=x charset=gb18030 >"), Some(GB18030));
    }

    #[test]
    fn prescan_decode_uses_meta() {
        let d = ok(b"<meta charset=shift_jis>\x93\xFA", None);
        assert_eq!(
            (d.encoding, d.source, d.text.as_str()),
            (
                SHIFT_JIS,
                EncodingSource::Meta,
                "<meta charset=shift_jis>日"
            )
        );
    }

    #[test]
    fn prescan_http_equiv_content_needs_pragma() {
        let pragma = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=euc-jp\">";
        assert_eq!(prescan(pragma), Some(EUC_JP));
        // The pragma may come after `content`.
        let after = b"<meta content='text/html;charset=shift_jis' http-equiv=content-type>";
        assert_eq!(prescan(after), Some(SHIFT_JIS));
        // No pragma: `content` alone is ignored, and so is a different http-equiv.
        assert_eq!(
            prescan(b"<meta content=\"text/html; charset=euc-jp\">"),
            None
        );
        assert_eq!(
            prescan(b"<meta http-equiv=refresh content=\"charset=euc-jp\">"),
            None
        );
    }

    #[test]
    fn prescan_charset_attribute_needs_no_pragma_and_beats_content() {
        let both = b"<meta content='text/html; charset=euc-jp' charset=shift_jis>";
        assert_eq!(prescan(both), Some(SHIFT_JIS));
        // A failed `charset` still blocks a later `content` and needs no pragma: nothing.
        let failed = b"<meta charset=bogus content='charset=euc-jp' http-equiv=content-type>";
        assert_eq!(prescan(failed), None);
    }

    #[test]
    fn prescan_repeated_attributes_are_ignored() {
        assert_eq!(
            prescan(b"<meta charset=euc-jp charset=shift_jis>"),
            Some(EUC_JP)
        );
        let pragma = b"<meta http-equiv=refresh http-equiv=content-type content='charset=gbk'>";
        assert_eq!(prescan(pragma), None);
    }

    #[test]
    fn prescan_goes_on_after_a_meta_without_charset() {
        let doc = b"<meta name=viewport content=x><meta charset=bogus><meta charset=euc-jp>";
        assert_eq!(prescan(doc), Some(EUC_JP));
    }

    #[test]
    fn prescan_utf16_label_means_utf8_and_x_user_defined_means_windows_1252() {
        assert_eq!(prescan(b"<meta charset=utf-16le>"), Some(UTF_8));
        assert_eq!(prescan(b"<meta charset=UTF-16>"), Some(UTF_8));
        let pragma = b"<meta http-equiv=content-type content='charset=utf-16be'>";
        assert_eq!(prescan(pragma), Some(UTF_8));
        assert_eq!(
            prescan(b"<meta charset=x-user-defined>"),
            Some(WINDOWS_1252)
        );
    }

    #[test]
    fn prescan_meta_content_extraction() {
        let with = |content: &str| {
            let doc = format!("<meta http-equiv=content-type content=\"{content}\">");
            prescan(doc.as_bytes())
        };
        assert_eq!(
            with("text/html; CHARSET = 'shift_jis' ; x"),
            Some(SHIFT_JIS)
        );
        assert_eq!(with("charsetcharset=euc-jp"), Some(EUC_JP));
        assert_eq!(with("charset x charset=gbk"), Some(GBK));
        assert_eq!(with("charset=euc-jp;foo"), Some(EUC_JP));
        assert_eq!(with("charset=euc-jp foo"), Some(EUC_JP));
        assert_eq!(with("charset='euc-jp"), None, "unmatched quote");
        assert_eq!(with("charset="), None, "no next character");
        assert_eq!(with("text/html"), None);
        assert_eq!(with("charset=nope"), None);
    }

    #[test]
    fn prescan_meta_needs_space_or_slash() {
        assert_eq!(prescan(b"<metacharset=euc-jp>"), None);
        assert_eq!(prescan(b"<metax charset=euc-jp>"), None);
        assert_eq!(prescan(b"<meta\tcharset=euc-jp>"), Some(EUC_JP));
    }

    // --- Prescan: what it skips ------------------------------------------------------------

    #[test]
    fn prescan_skips_comments() {
        assert_eq!(
            prescan(b"<!-- <meta charset=gbk> --><meta charset=euc-jp>"),
            Some(EUC_JP)
        );
        // `<!-->` and `<!--->` are whole comments: the dashes may be those of `<!--`.
        assert_eq!(prescan(b"<!--><meta charset=euc-jp>"), Some(EUC_JP));
        assert_eq!(prescan(b"<!---><meta charset=euc-jp>"), Some(EUC_JP));
        // `->` does not end a comment.
        assert_eq!(
            prescan(b"<!-- -> <meta charset=gbk> --><meta charset=euc-jp>"),
            Some(EUC_JP)
        );
        // An unterminated comment runs out of bytes.
        assert_eq!(prescan(b"<!-- <meta charset=gbk>"), None);
    }

    #[test]
    fn prescan_skips_attributes_of_other_tags() {
        let quoted = b"<div title='<meta charset=gbk>'><meta charset=euc-jp>";
        assert_eq!(prescan(quoted), Some(EUC_JP));
        let end_tag = b"</p title=\"<meta charset=gbk>\"><meta charset=euc-jp>";
        assert_eq!(prescan(end_tag), Some(EUC_JP));
        // An unquoted `>` ends the tag; what follows is scanned again.
        assert_eq!(prescan(b"<a x=y><meta charset=euc-jp>"), Some(EUC_JP));
    }

    #[test]
    fn prescan_skips_bang_slash_and_question_constructs() {
        // `<?` hides a `<meta` up to the first `>`, quotes or not.
        let php = b"<!DOCTYPE html></ x><?php echo '<meta charset=gbk>' ?><meta charset=euc-jp>";
        assert_eq!(prescan(php), Some(EUC_JP));
        // So text after an early `>` is scanned again.
        assert_eq!(prescan(b"<?x a='>'<meta charset=gbk>?>"), Some(GBK));
        assert_eq!(
            prescan(b"<!DOCTYPE html><meta charset=euc-jp>"),
            Some(EUC_JP)
        );
        assert_eq!(
            prescan(b"</ <meta charset=gbk>><meta charset=euc-jp>"),
            Some(EUC_JP)
        );
    }

    #[test]
    fn prescan_looks_at_the_first_1024_bytes_only() {
        let meta = b"<meta charset=euc-jp>";
        let mut doc = vec![b' '; prescan::PRESCAN_LIMIT - meta.len()];
        doc.extend_from_slice(meta);
        assert_eq!(prescan(&doc), Some(EUC_JP));
        doc.insert(0, b' ');
        // The `>` is now byte 1025: the meta is cut and the prescan runs out of bytes.
        assert_eq!(prescan(&doc), None);
        assert_eq!(ok(&doc, None).source, EncodingSource::Fallback);
    }

    #[test]
    fn prescan_running_out_inside_a_meta_aborts() {
        // Cut inside an unquoted value or before the closing quote: no result, per the standard.
        assert_eq!(prescan(b"<meta charset=euc-jp"), None);
        assert_eq!(prescan(b"<meta charset=\"euc-jp"), None);
        // Even a complete quoted value needs a byte after it.
        assert_eq!(prescan(b"<meta charset=\"euc-jp\""), None);
        assert_eq!(prescan(b"<meta charset=\"euc-jp\" "), None);
    }

    // --- Prescan: XML declarations ---------------------------------------------------------

    #[test]
    fn prescan_utf16_xml_declaration() {
        assert_eq!(prescan(b"<\0?\0x\0m\0l\0"), Some(UTF_16LE));
        assert_eq!(prescan(b"\0<\0?\0x\0m\0l"), Some(UTF_16BE));
    }

    #[test]
    fn prescan_xml_declaration_when_no_meta() {
        let decl = b"<?xml version=\"1.0\" encoding = 'Shift_JIS'?><p>";
        assert_eq!(prescan(decl), Some(SHIFT_JIS));
        // A <meta> wins over the declaration.
        assert_eq!(
            prescan(b"<?xml encoding='gbk'?><meta charset=euc-jp>"),
            Some(EUC_JP)
        );
        // UTF-16 in a declaration readable as ASCII means UTF-8.
        assert_eq!(prescan(b"<?xml encoding=\"UTF-16\"?>"), Some(UTF_8));
        // Not at the start, case-sensitive, spaces inside, or outside the declaration: nothing.
        assert_eq!(prescan(b" <?xml encoding='gbk'?>"), None);
        assert_eq!(prescan(b"<?XML encoding='gbk'?>"), None);
        assert_eq!(prescan(b"<?xml encoding=' gbk'?>"), None);
        assert_eq!(prescan(b"<?xml version='1.0'?> encoding='gbk'"), None);
    }

    #[test]
    fn prescan_empty_and_plain_text() {
        assert_eq!(prescan(b""), None);
        assert_eq!(prescan(b"<"), None);
        assert_eq!(prescan(b"plain text, no markup"), None);
    }

    // --- charset_from_content_type ---------------------------------------------------------

    #[test]
    fn content_type_charset() {
        let get = |value: &str| charset_from_content_type(value);
        assert_eq!(get("text/html; charset=UTF-8").as_deref(), Some("utf-8"));
        assert_eq!(
            get("text/html;charset=\"Shift_JIS\"").as_deref(),
            Some("shift_jis")
        );
        assert_eq!(
            get(" TEXT/HTML; Charset=ISO-8859-1 ").as_deref(),
            Some("iso-8859-1")
        );
        assert_eq!(get("text/html; charset=foo").as_deref(), Some("foo"));
        assert_eq!(get("text/html"), None);
        assert_eq!(get("text/html; charset="), None);
        assert_eq!(get("not a mime type"), None);
    }

    // --- encode: round trips and NCRs ------------------------------------------------------

    /// Decodes with `label`, checks the text, re-encodes, and expects the input back.
    fn round_trip(bytes: &[u8], label: Option<&str>, text: &str, encoding: &'static Encoding) {
        let d = ok(bytes, label);
        assert_eq!(
            (d.text.as_str(), d.encoding, d.had_errors),
            (text, encoding, false)
        );
        assert_eq!(encode(&d.text, d.encoding, d.bom), bytes);
    }

    #[test]
    fn round_trip_utf8_with_and_without_bom() {
        let text = "<p>héllo 日本 😀</p>\r\n";
        round_trip(text.as_bytes(), Some("utf-8"), text, UTF_8);
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        round_trip(&with_bom, None, text, UTF_8);
    }

    #[test]
    fn round_trip_legacy_encodings() {
        round_trip(b"caf\xE9 \x80\x93", None, "café €“", WINDOWS_1252);
        round_trip(
            b"\x93\xFA\x96\x7B\x8C\xEA",
            Some("shift_jis"),
            "日本語",
            SHIFT_JIS,
        );
        round_trip(
            b"\xC6\xFC\xCB\xDC\xB8\xEC",
            Some("euc-jp"),
            "日本語",
            EUC_JP,
        );
        round_trip(b"\xD6\xD0\xCE\xC4\x80", Some("gbk"), "中文€", GBK);
        let gb18030 = b"\xD6\xD0\xCE\xC4\x81\x30\x81\x30\x94\x39\xFC\x36";
        round_trip(gb18030, Some("gb18030"), "中文\u{80}😀", GB18030);
        round_trip(b"\xA3\xF3d\xBC", Some("iso-8859-2"), "Łódź", ISO_8859_2);
    }

    #[test]
    fn round_trip_utf16() {
        round_trip(
            b"\xFF\xFEa\0\xE5\x65\x3D\xD8\x00\xDE",
            None,
            "a日😀",
            UTF_16LE,
        );
        round_trip(
            b"\xFE\xFF\0a\x65\xE5\xD8\x3D\xDE\x00",
            None,
            "a日😀",
            UTF_16BE,
        );
        round_trip(b"a\0\xE5\x65", Some("utf-16le"), "a日", UTF_16LE);
        round_trip(b"\0a\x65\xE5", Some("utf-16be"), "a日", UTF_16BE);
    }

    #[test]
    fn round_trip_meta_declared_document() {
        let doc = b"<meta charset=shift_jis><p>\x93\xFA\x96\x7B</p>";
        round_trip(doc, None, "<meta charset=shift_jis><p>日本</p>", SHIFT_JIS);
    }

    #[test]
    fn unrepresentable_characters_become_decimal_ncrs() {
        assert_eq!(encode("日", WINDOWS_1252, false), b"&#26085;");
        // The ISO-8859-1 label is windows-1252, which has €: use ISO-8859-2, which has not.
        let latin2 = Encoding::for_label(b"iso-8859-2").unwrap();
        assert_eq!(encode("€Ł😀", latin2, false), b"&#8364;\xA3&#128512;");
        assert_eq!(encode("😀", SHIFT_JIS, false), b"&#128512;");
    }

    #[test]
    fn encode_bom_only_where_one_exists() {
        assert_eq!(encode("a", UTF_8, true), b"\xEF\xBB\xBFa");
        assert_eq!(encode("a", UTF_16LE, true), b"\xFF\xFEa\0");
        assert_eq!(encode("a", UTF_16BE, false), b"\0a");
        assert_eq!(encode("a", WINDOWS_1252, true), b"a");
        assert_eq!(encode("", UTF_16LE, false), b"");
    }

    #[test]
    fn encode_replacement_as_utf8_and_x_user_defined_natively() {
        assert_eq!(
            encode("\u{FFFD}é", REPLACEMENT, false),
            "\u{FFFD}é".as_bytes()
        );
        let d = ok(b"a\x80\xFF", Some("x-user-defined"));
        assert_eq!(
            (d.text.as_str(), d.encoding),
            ("a\u{F780}\u{F7FF}", X_USER_DEFINED)
        );
        assert_eq!(encode(&d.text, d.encoding, d.bom), b"a\x80\xFF");
        assert_eq!(encode("日", X_USER_DEFINED, false), b"&#26085;");
    }

    #[test]
    fn encoding_source_serializes_kebab_case() {
        let names = [
            EncodingSource::Bom,
            EncodingSource::Transport,
            EncodingSource::Meta,
            EncodingSource::Fallback,
        ]
        .map(|source| serde_json::to_string(&source).unwrap());
        assert_eq!(
            names,
            ["\"bom\"", "\"transport\"", "\"meta\"", "\"fallback\""]
        );
    }

    // --- No panic on any input -------------------------------------------------------------

    use crate::testutil::XorShift;

    /// Fragments that steer random input into every branch of the prescan.
    const FRAGMENTS: &[&[u8]] = &[
        b"<meta ",
        b"<META/",
        b"charset",
        b"=",
        b"\"",
        b"'",
        b">",
        b"/",
        b" ",
        b"\t",
        b"<",
        b"</",
        b"<!--",
        b"-->",
        b"<!",
        b"<?",
        b"<?xml ",
        b"encoding",
        b"content=",
        b";",
        b"http-equiv=content-type ",
        b"utf-16",
        b"shift_jis",
        b"x-user-defined",
        b"\0",
        b"\xEF\xBB\xBF",
        b"\xFF\xFE",
        b"\xFE\xFF",
        b"<\0?\0x\0",
        b"a",
    ];

    fn random_document(rng: &mut XorShift) -> Vec<u8> {
        let len = rng.below(1600);
        let mut doc = Vec::with_capacity(len + 32);
        while doc.len() < len {
            if rng.next() % 2 == 0 {
                doc.extend_from_slice(FRAGMENTS[rng.below(FRAGMENTS.len())]);
            } else {
                doc.push(rng.next().to_le_bytes()[0]);
            }
        }
        doc
    }

    #[test]
    fn no_panic_on_random_input() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let labels = [
            None,
            Some("utf-16le"),
            Some("utf-16be"),
            Some("bogus"),
            Some("shift_jis"),
        ];
        for _ in 0..4000 {
            let doc = random_document(&mut rng);
            let found = prescan(&doc);
            // Only the first 1024 bytes count.
            assert_eq!(
                found,
                prescan(&doc[..doc.len().min(prescan::PRESCAN_LIMIT)])
            );
            for label in labels {
                if let Ok(d) = decode(&doc, label) {
                    let _ = encode(&d.text, d.encoding, d.bom);
                }
            }
        }
    }
}
