//! Writing an ARC record back with a new payload, and reading one `.arc.gz` member whole.

use std::io::{self, BufRead, Read, Seek};

/// The ARC record `raw` (its URL line, block and the line end after it, uncompressed) with its
/// payload `old` replaced by `new`: the block's HTTP head kept (its `Content-Length` set to the
/// new length), the URL line kept but for its last field, the block's length (ARC file format
/// 1.0, "URL record definition": `Archive-length`, v1 and v2 alike).
///
/// # Errors
/// Why the record cannot be written so: no URL line, or a block whose body is not `old` as it
/// stands (a transfer or content coding the payload was decoded from, damage).
pub fn replace_payload(raw: &[u8], old: &[u8], new: &[u8]) -> Result<Vec<u8>, String> {
    let line_end = memchr::memchr(b'\n', raw).ok_or("no URL line")?;
    let line = raw.get(..line_end).unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let field = line
        .iter()
        .rposition(|&b| b == b' ')
        .ok_or("no length field on the URL line")?;
    let length: usize = std::str::from_utf8(line.get(field + 1..).unwrap_or_default())
        .ok()
        .and_then(|l| l.parse().ok())
        .ok_or("no length field on the URL line")?;
    let block_at = line_end + 1;
    let block = raw
        .get(block_at..block_at + length)
        .ok_or("the block is shorter than its Archive-length")?;
    let head_len = if block.starts_with(b"HTTP/") {
        let crlf = memchr::memmem::find(block, b"\r\n\r\n").map(|i| i + 4);
        let lf = memchr::memmem::find(block, b"\n\n").map(|i| i + 2);
        crlf.into_iter().chain(lf).min().unwrap_or(block.len())
    } else {
        0
    };
    // The record must end with its block: what follows is its line end, no other record (a
    // gzip member holding two records is not one record's bytes).
    let after = raw.get(block_at + length..).unwrap_or_default();
    if after.iter().any(|b| !matches!(b, b'\r' | b'\n')) {
        return Err("more than one record follows its block: left as it was".to_owned());
    }
    let (head, body) = block.split_at(head_len);
    if body != old {
        return Err(
            "its payload was transfer- or content-decoded from the block: \
                    left as it was"
                .to_owned(),
        );
    }
    let mut block = Vec::with_capacity(head.len() + new.len());
    let mut at = 0;
    while at < head.len() {
        let rest = head.get(at..).unwrap_or_default();
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let l = rest.get(..end).unwrap_or_default();
        match l.get(..15) {
            Some(n) if n.eq_ignore_ascii_case(b"Content-Length:") => {
                let eol = if l.ends_with(b"\r\n") { "\r\n" } else { "\n" };
                block.extend_from_slice(n);
                block.extend_from_slice(format!(" {}{eol}", new.len()).as_bytes());
            }
            _ => block.extend_from_slice(l),
        }
        at += end;
    }
    block.extend_from_slice(new);
    let mut out = Vec::with_capacity(raw.len() + new.len());
    out.extend_from_slice(raw.get(..field + 1).unwrap_or_default());
    out.extend_from_slice(block.len().to_string().as_bytes());
    out.extend_from_slice(raw.get(line.len()..block_at).unwrap_or_default());
    out.extend_from_slice(&block);
    out.extend_from_slice(raw.get(block_at + length..).unwrap_or_default());
    Ok(out)
}

/// The gzip member `r` is at, decompressed, and its compressed length: an `.arc.gz` record's
/// bytes (a member each), for [`replace_payload`]. `None` when it decompresses to more than
/// `limit` bytes.
///
/// # Errors
/// When `r` cannot be read, or is no gzip member.
pub fn read_member<R: BufRead + Seek>(r: &mut R, limit: u64) -> io::Result<Option<(Vec<u8>, u64)>> {
    let start = r.stream_position()?;
    let mut out = Vec::new();
    // bufread::GzDecoder consumes exactly its member (with its trailer) from `r`.
    let mut member = flate2::bufread::GzDecoder::new(&mut *r);
    (&mut member).take(limit + 1).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Ok(None);
    }
    let end = r.stream_position()?;
    Ok(Some((out, end - start)))
}
