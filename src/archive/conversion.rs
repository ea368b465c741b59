//! The conversion records `rewrite X.warc -o Y.warc` writes (WARC 1.1 §6.8): their headers,
//! record ids and dates, and the gzip member each becomes.

use std::io::{self, Write};

use super::record::HtmlRecord;

/// A WARC/1.1 `conversion` record (ISO 28500 §6.8) holding `payload`, the rewritten form of
/// `original`'s document: `WARC-Refers-To` the original, digests of the block. `date` is its
/// `WARC-Date` (see [`warc_date_now`]). The record ID is the name-based UUID
/// ([`conversion_id`]) of the original's ID and the payload's digest, so the same input gives
/// the same archive, and another tool can recompute it.
pub fn conversion_record(
    original: &HtmlRecord,
    payload: &[u8],
    encoding: &str,
    date: &str,
) -> Vec<u8> {
    use sha1::Digest as _;
    let digest = sha1::Sha1::digest(payload);
    let digest = format!("sha1:{}", data_encoding::BASE32.encode(&digest));
    let id = conversion_id(original.id(), &digest);
    let mut out = Vec::with_capacity(payload.len() + 512);
    let mut head = String::from("WARC/1.1\r\nWARC-Type: conversion\r\n");
    head.push_str(&format!("WARC-Record-ID: <urn:uuid:{id}>\r\n"));
    head.push_str(&format!("WARC-Date: {date}\r\n"));
    if let Some(uri) = &original.reference.warc_target_uri {
        head.push_str(&format!("WARC-Target-URI: {uri}\r\n"));
    }
    if let Some(orig) = &original.reference.warc_record_id {
        head.push_str(&format!("WARC-Refers-To: {orig}\r\n"));
    }
    head.push_str(&format!("Content-Type: text/html; charset={encoding}\r\n"));
    head.push_str(&format!("WARC-Block-Digest: {digest}\r\n"));
    head.push_str(&format!("WARC-Payload-Digest: {digest}\r\n"));
    head.push_str(&format!("Content-Length: {}\r\n\r\n", payload.len()));
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// A record as its own gzip member (ISO 28500 Annex D).
pub fn gzip_member(record: &[u8]) -> io::Result<Vec<u8>> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(record)?;
    e.finish()
}

/// The namespace of conversion record IDs: itself the RFC 4122 §4.3 version-5 UUID of the name
/// `urn:x-linkbase:warc-conversion` in the URL namespace (Appendix C,
/// 6ba7b811-9dad-11d1-80b4-00c04fd430c8).
pub const CONVERSION_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x17aba958_8c7e_5142_b677_b76a636c4ef5);

/// The ID of the conversion record of the record `original_id` (its `WARC-Record-ID` as
/// written, `<urn:uuid:…>`) whose new payload has the `WARC-Payload-Digest` `digest`
/// (`sha1:BASE32`): the RFC 4122 §4.3 name-based UUID (version 5, SHA-1) in
/// [`CONVERSION_NAMESPACE`] of the name `ORIGINAL_ID` LF `DIGEST` (UTF-8), as Python's
/// `uuid.uuid5(namespace, f"{original_id}\n{digest}")` computes it (docs/archives.md).
pub fn conversion_id(original_id: &str, digest: &str) -> uuid::Uuid {
    uuid::Uuid::new_v5(
        &CONVERSION_NAMESPACE,
        format!("{original_id}\n{digest}").as_bytes(),
    )
}

/// Now as a `WARC-Date` (`2026-11-25T14:37:39Z`, W3C-ISO8601 in UTC); `SOURCE_DATE_EPOCH`, when
/// set, stands for now (reproducible outputs).
pub fn warc_date_now() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0))
        });
    warc_date(secs)
}

/// Seconds since the Unix epoch as a `WARC-Date`.
pub fn warc_date(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The namespace is what it says it is, and an ID is what Python's `uuid.uuid5` gives for
    /// the same namespace and name (computed with CPython 3.11).
    #[test]
    fn conversion_ids_are_rfc_4122_name_based_uuids() {
        assert_eq!(
            uuid::Uuid::new_v5(
                &uuid::Uuid::NAMESPACE_URL,
                b"urn:x-linkbase:warc-conversion"
            ),
            CONVERSION_NAMESPACE
        );
        let id = conversion_id(
            "<urn:uuid:12345678-1234-5678-1234-567812345678>",
            "sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        );
        assert_eq!(id.to_string(), "0ba98836-a1a9-5b7b-ad1b-26a166ce265b");
        assert_eq!(id.get_version_num(), 5);
    }
}
