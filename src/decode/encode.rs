//! The reverse of decoding: text back into the document's encoding (docs/html-rules.md §5).

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};

/// Encodes `text` for output in `encoding`, writing a BOM first when `bom` is true.
///
/// Characters the encoding cannot represent become decimal numeric character references
/// (`&#NNNN;`), as `encoding_rs`'s `Encoding::encode` does for HTML. Text decoded by [`decode`](super::decode)
/// without errors comes back byte for byte. Per encoding:
///
/// - UTF-16LE/BE: written here, since `encoding_rs` has no UTF-16 encoder (its
///   `output_encoding()` maps them to UTF-8, which would change the document's encoding). Every
///   character is representable; the BOM is U+FEFF in the same byte order.
/// - `replacement`: written as UTF-8, its output encoding (Encoding Standard "get an output
///   encoding"); it cannot encode anything, and decoding gave only U+FFFD anyway.
/// - x-user-defined: `encoding_rs` encodes it: U+F780–U+F7FF go back to bytes 0x80–0xFF, ASCII
///   stays, anything else becomes `&#NNNN;`, so decoded x-user-defined text round-trips.
/// - A BOM is written only for UTF-8 (and `replacement`, written as UTF-8) and UTF-16; other
///   encodings have none, so `bom` is ignored for them.
///
/// ```
/// use linkbase::decode::encode;
/// assert_eq!(encode("café 日", encoding_rs::WINDOWS_1252, false), b"caf\xE9 &#26085;");
/// assert_eq!(encode("a", encoding_rs::UTF_16BE, true), b"\xFE\xFF\0a");
/// ```
#[must_use]
pub fn encode(text: &str, encoding: &'static Encoding, bom: bool) -> Vec<u8> {
    if encoding == UTF_16LE {
        return encode_utf16(text, bom, u16::to_le_bytes);
    }
    if encoding == UTF_16BE {
        return encode_utf16(text, bom, u16::to_be_bytes);
    }
    // After the UTF-16 cases, `output_encoding` only changes `replacement` (to UTF-8).
    let encoding = encoding.output_encoding();
    if encoding == UTF_8 {
        return encode_utf8(text, bom);
    }
    // Legacy encodings: unmappable characters become decimal NCRs. Borrowed (all-ASCII) output
    // is copied once; owned output is moved.
    let (bytes, _, _) = encoding.encode(text);
    bytes.into_owned()
}

/// UTF-8 output: the text's own bytes, after a BOM if asked for.
fn encode_utf8(text: &str, bom: bool) -> Vec<u8> {
    const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
    let mut out = Vec::with_capacity(text.len() + UTF8_BOM.len());
    if bom {
        out.extend_from_slice(UTF8_BOM);
    }
    out.extend_from_slice(text.as_bytes());
    out
}

/// UTF-16 output in the byte order given by `to_bytes`, after a BOM (U+FEFF) if asked for.
fn encode_utf16(text: &str, bom: bool, to_bytes: fn(u16) -> [u8; 2]) -> Vec<u8> {
    // Each UTF-8 byte becomes at most two UTF-16 bytes (ASCII exactly two).
    let mut out = Vec::with_capacity(2 * text.len() + 2);
    let bom = bom.then_some(0xFEFF_u16);
    for unit in bom.into_iter().chain(text.encode_utf16()) {
        out.extend_from_slice(&to_bytes(unit));
    }
    out
}
