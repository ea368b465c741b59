//! Transfer encodings undone (RFC 2045 §6).

/// A leaf's body without its Content-Transfer-Encoding (RFC 2045 §6).
///
/// Quoted-printable is decoded here: both mailparse and the quoted_printable crate drop raw 8-bit
/// bytes in their lenient mode, and Word writes GB2312 text raw inside QP parts. RFC 2045 §6.7
/// asks a robust decoder to keep what is not a valid escape, which this does. Base64 goes through
/// mailparse; a body that does not decode is an error, so the part is left as it was rather than
/// read (and rewritten) in its encoded form.
pub(super) fn decode_body(
    raw: &[u8],
    transfer_encoding: &str,
    base64: impl FnOnce() -> Result<Vec<u8>, mailparse::MailParseError>,
) -> Result<Vec<u8>, String> {
    match transfer_encoding {
        "quoted-printable" => Ok(decode_quoted_printable(raw)),
        "base64" => base64().map_err(|e| e.to_string()),
        _ => Ok(raw.to_vec()),
    }
}

/// RFC 2045 §6.7: `=XX` is a byte, `=` at a line end is a soft break, anything else is kept as
/// it is (including raw 8-bit bytes and a lone `=`).
pub(super) fn decode_quoted_printable(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    let hex = |b: u8| char::from(b).to_digit(16);
    while let Some(&b) = raw.get(i) {
        if b != b'=' {
            out.push(b);
            i += 1;
            continue;
        }
        match (
            raw.get(i + 1).and_then(|&h| hex(h)),
            raw.get(i + 2).and_then(|&l| hex(l)),
        ) {
            (Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
            }
            // Soft line break, with trailing whitespace tolerated (RFC 2045 §6.7 rule 3).
            _ => {
                let mut j = i + 1;
                while matches!(raw.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                match (raw.get(j), raw.get(j + 1)) {
                    (Some(b'\r'), Some(b'\n')) => i = j + 2,
                    (Some(b'\n'), _) => i = j + 1,
                    (None, _) => i = j,
                    _ => {
                        out.push(b'=');
                        i += 1;
                    }
                }
            }
        }
    }
    out
}
