//! A WARC record's HTTP payload: the head split from the body, transfer and content codings
//! undone within a budget, and whether it is HTML.

use std::io::{self, Read};

use crate::error::Diagnostic;
use crate::input::Headers;

/// An HTML payload is held in memory up to this size (decoded); larger ones are skipped, said
/// and counted (a 256 MiB web page is not a page; a decompression bomb is not one either).
pub const MAX_PAYLOAD: u64 = 256 * 1024 * 1024;

/// A `Content-Encoding` may inflate the stored body at most this many times
/// ([`MIN_DECODE_BUDGET`] whatever the body's size): HTML compresses 5–20 times; deflate can
/// reach 1,032 times per layer, and layers multiply (`gzip, gzip`), so a 559-byte record could
/// become gigabytes. The bound applies to the whole chain of codings, against the stored body.
pub const MAX_DECODE_RATIO: u64 = 100;

/// What any body may inflate to, however small it is stored.
pub const MIN_DECODE_BUDGET: u64 = 4 * 1024 * 1024;

/// Why a record was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SkipReason {
    /// `warcinfo`, `request`, `metadata`, an earlier `conversion`, …
    NotAResponse,
    /// A response or resource whose payload is not HTML.
    NotHtml,
    /// A `revisit` whose original is not in the same input (wget `--warc-dedup` refers to
    /// earlier files): said in the event's message, and counted.
    RevisitWithoutOriginal,
    /// A `response` without `WARC-Target-URI`: there is no retrieval URI to resolve against.
    NoTargetUri,
    /// The payload's content coding could not be decoded.
    Undecodable,
    /// The record passes a bound: a block past [`MAX_PAYLOAD`], or a content coding that
    /// inflates past [`MAX_DECODE_RATIO`]. Said in the event's message.
    PastLimit,
}

impl SkipReason {
    /// A short name (`not-html`).
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::NotAResponse => "not-a-response",
            SkipReason::NotHtml => "not-html",
            SkipReason::RevisitWithoutOriginal => "revisit-without-original",
            SkipReason::NoTargetUri => "no-target-uri",
            SkipReason::Undecodable => "undecodable-payload",
            SkipReason::PastLimit => "past-limit",
        }
    }
}

/// The HTTP message's head (status line and fields) and body.
pub(super) fn split_http(block: &[u8]) -> (&[u8], &[u8]) {
    let crlf = memchr::memmem::find(block, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = memchr::memmem::find(block, b"\n\n").map(|i| (i, i + 2));
    let end = match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    };
    match end {
        Some((head, body)) => (
            block.get(..head).unwrap_or_default(),
            block.get(body..).unwrap_or_default(),
        ),
        None => (block, &[]),
    }
}

/// A `Content-Type`'s essence (RFC 9110 §8.3.1: `type/subtype`, case-insensitive, so
/// lower-cased), or `None` when it is absent or empty.
pub(super) fn essence(content_type: Option<&str>) -> Option<String> {
    let essence = content_type?
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    (!essence.is_empty()).then_some(essence)
}

/// `text/html` or `application/xhtml+xml`; with no Content-Type, sniffed as the MIME Sniffing
/// Standard's "HTML" patterns do (a tag name after leading whitespace).
pub(super) fn is_html(content_type: Option<&str>, payload: &[u8]) -> bool {
    if let Some(essence) = essence(content_type) {
        return essence == "text/html" || essence == "application/xhtml+xml";
    }
    let start = payload
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .unwrap_or(payload.len());
    let head = payload.get(start..).unwrap_or_default();
    const PATTERNS: [&[u8]; 17] = [
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<script",
        b"<iframe",
        b"<h1",
        b"<div",
        b"<font",
        b"<table",
        b"<a",
        b"<style",
        b"<title",
        b"<b",
        b"<body",
        b"<br",
        b"<p",
        b"<!--",
    ];
    PATTERNS.iter().any(|p| {
        head.len() > p.len()
            && head
                .get(..p.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(p))
            && (p == b"<!--" || head.get(p.len()).is_some_and(|b| matches!(b, b' ' | b'>')))
    })
}

/// The payload with `Transfer-Encoding: chunked` and `Content-Encoding` removed (RFC 9112 §7.1,
/// RFC 9110 §8.4). A coding that cannot be undone leaves the record skipped, with a reason.
pub(super) fn decode_payload(
    http: &Headers,
    body: &[u8],
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<u8>, (SkipReason, Option<String>)> {
    // One budget for the whole chain of codings, from what is stored.
    let budget = (body.len() as u64)
        .saturating_mul(MAX_DECODE_RATIO)
        .clamp(MIN_DECODE_BUDGET, MAX_PAYLOAD);
    let mut payload = body.to_vec();
    let chunked = http
        .get("Transfer-Encoding")
        .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    if chunked {
        match dechunk(&payload) {
            Some(p) => payload = p,
            // Many crawlers store the payload already de-chunked and keep the header.
            None => diagnostics.push(Diagnostic::new(
                crate::error::DiagnosticCode::WarcPayload,
                "Transfer-Encoding: chunked, but the payload is not chunked; used as it is",
            )),
        }
    }
    let codings = http
        .get("Content-Encoding")
        .unwrap_or("")
        .to_ascii_lowercase();
    for coding in codings.split(',').map(str::trim).rev() {
        let decoded = match coding {
            "" | "identity" => continue,
            "gzip" | "x-gzip" => bounded(flate2::read::MultiGzDecoder::new(&payload[..]), budget),
            "deflate" => {
                bounded(flate2::read::ZlibDecoder::new(&payload[..]), budget).or_else(|e| match e {
                    Decoded::PastBudget => Err(e),
                    Decoded::Io(_) => {
                        bounded(flate2::read::DeflateDecoder::new(&payload[..]), budget)
                    }
                })
            }
            "br" => bounded(
                brotli_decompressor::Decompressor::new(&payload[..], 4096),
                budget,
            ),
            _ => Err(Decoded::Io(io::Error::other("unknown content coding"))),
        };
        match decoded {
            Ok(p) => payload = p,
            Err(Decoded::PastBudget) => {
                return Err((
                    SkipReason::PastLimit,
                    Some(format!(
                        "Content-Encoding: {codings} inflates its {} stored bytes past {budget} bytes (MAX_DECODE_RATIO: {MAX_DECODE_RATIO} times the stored body, at least {} MiB)",
                        body.len(),
                        MIN_DECODE_BUDGET >> 20
                    )),
                ))
            }
            Err(Decoded::Io(e)) => {
                // Stored decoded by the crawler despite the header? Then it reads as text.
                if is_html(None, &payload) {
                    diagnostics.push(Diagnostic::new(
                        crate::error::DiagnosticCode::WarcPayload,
                        format!("Content-Encoding: {coding} does not decode ({e}); the payload is used as it is"),
                    ));
                    break;
                }
                return Err((
                    SkipReason::Undecodable,
                    Some(format!(
                        "Content-Encoding: {coding} does not decode ({e}), and what is stored is \
                         no HTML: its payload cannot be read"
                    )),
                ));
            }
        }
    }
    Ok(payload)
}

/// Why a content coding gave no payload.
pub(super) enum Decoded {
    /// It does not decode.
    Io(io::Error),
    /// It inflates past the budget.
    PastBudget,
}

/// Decodes up to `budget` bytes; one more is an error, found without holding more.
pub(super) fn bounded(r: impl Read, budget: u64) -> Result<Vec<u8>, Decoded> {
    let mut out = Vec::new();
    r.take(budget.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(Decoded::Io)?;
    if out.len() as u64 > budget {
        return Err(Decoded::PastBudget);
    }
    Ok(out)
}

/// RFC 9112 §7.1: `size [; ext] CRLF data CRLF` … `0 CRLF [trailers] CRLF`. `None` when the body
/// is not in that form.
pub(super) fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = memchr::memchr(b'\n', rest)?;
        let line = rest.get(..line_end)?;
        let size_text = line.split(|b| *b == b';').next()?;
        let size_text = std::str::from_utf8(size_text).ok()?.trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        rest = rest.get(line_end + 1..)?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size..)?;
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .unwrap_or(rest);
    }
}
