//! ① What comes in: the header block of the encapsulating entity (an HTTP response or a MIME
//! heading, RFC 2396 §5.1.2), and MIME messages (`mime`).

pub mod arc;
mod headers;
pub mod mbox;
pub mod mime;
#[cfg(feature = "oracle")]
#[doc(hidden)]
pub mod toy;
pub mod warc;

pub use crate::decode::charset_from_content_type;

pub use headers::{Headers, Response, MAX_REDIRECTS};

/// What an input is, by the rule the CLI and the Python module share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputKind {
    /// An HTML document (anything that is neither of the others).
    Html,
    /// A MIME message: e-mail or MHTML (`message::links_message`, `message::rewrite_message`).
    Message,
    /// A WARC archive (`archive::Archive`).
    Warc,
    /// An ARC archive (`.arc`, `.arc.gz`: the Internet Archive's format before WARC).
    Arc,
    /// An mbox file: many mails, each after a `From ` envelope line.
    Mbox,
    /// The tests' toy archive ([`toy`]).
    #[cfg(feature = "oracle")]
    #[doc(hidden)]
    Toy,
}

/// Classifies an input by its name, else by its first bytes. `name` may be empty (bytes from a
/// program: only the content counts); `head` needs only the first 4 KiB. In order:
/// - WARC: `.warc`, `.warc.gz`, or content ([`warc::looks_like_warc`]);
/// - ARC: `.arc`, `.arc.gz`, or content ([`arc::looks_like_arc`]: a `filedesc://` version
///   block, plain or as the first gzip member);
/// - mbox by name (`.mbox`); a MIME message by name (`.eml`, `.mht`, `.mhtml`), so an `.eml`
///   that opens with an envelope `From ` line stays one message;
/// - mbox by content ([`mbox::looks_like_mbox`]: `From ` envelope line, then a heading);
/// - a MIME message by content ([`mime::looks_like_message`]);
/// - else HTML. Names are compared in any case.
///
/// ```
/// use linkbase::input::{classify, InputKind};
///
/// assert_eq!(classify("page.html", b"<a href=x>"), InputKind::Html);
/// assert_eq!(classify("", b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p>"), InputKind::Message);
/// assert_eq!(classify("MAIL.EML", b""), InputKind::Message);
/// assert_eq!(classify("", b"WARC/1.1\r\n"), InputKind::Warc);
/// assert_eq!(classify("old.ARC.GZ", b""), InputKind::Arc);
/// assert_eq!(classify("", b"filedesc://a.arc 0.0.0.0 20010101000000 text/plain 70\n"), InputKind::Arc);
/// assert_eq!(classify("", b"From a@b.org Mon Jan  1 00:00:00 2001\nFrom: a@b.org\n\n"), InputKind::Mbox);
/// assert_eq!(classify("inbox.mbox", b""), InputKind::Mbox);
/// ```
pub fn classify(name: &str, head: &[u8]) -> InputKind {
    #[cfg(feature = "oracle")]
    if toy::looks_like_toy(head) {
        return InputKind::Toy;
    }
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".warc") || lower.ends_with(".warc.gz") || warc::looks_like_warc(head) {
        return InputKind::Warc;
    }
    if lower.ends_with(".arc") || lower.ends_with(".arc.gz") || arc::looks_like_arc(head) {
        return InputKind::Arc;
    }
    let ext = std::path::Path::new(&lower)
        .extension()
        .and_then(|e| e.to_str());
    if ext == Some("mbox") {
        return InputKind::Mbox;
    }
    if matches!(ext, Some("eml" | "mht" | "mhtml")) {
        return InputKind::Message;
    }
    if mbox::looks_like_mbox(head) {
        return InputKind::Mbox;
    }
    if mime::looks_like_message(head) {
        return InputKind::Message;
    }
    InputKind::Html
}
