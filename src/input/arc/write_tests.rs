#![allow(clippy::unwrap_used)]
use super::replace_payload;

/// The URL line's last field and the HTTP Content-Length follow the new payload; a body
/// that is not the payload as it stands (chunked here) is refused, not half-written.
#[test]
fn replace_payload_recomputes_lengths_or_refuses() {
    let block = "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc";
    let raw = format!(
        "http://h/ 1.2.3.4 20010101000000 text/html {}\n{block}\n",
        block.len()
    );
    let out = replace_payload(raw.as_bytes(), b"abc", b"abcdef").unwrap();
    let new_block = "HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nabcdef";
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!(
            "http://h/ 1.2.3.4 20010101000000 text/html {}\n{new_block}\n",
            new_block.len()
        )
    );
    let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    let raw = format!(
        "http://h/ 1.2.3.4 20010101000000 text/html {}\n{chunked}\n",
        chunked.len()
    );
    assert!(replace_payload(raw.as_bytes(), b"abc", b"abcdef").is_err());
    assert!(replace_payload(b"no newline", b"", b"").is_err());
    assert!(replace_payload(b"http://h/ 1 2 3 99\nshort\n", b"short", b"x").is_err());
}
