//! ① What comes in: the header block of the encapsulating entity (an HTTP response or a MIME
//! heading, RFC 2396 §5.1.2), and MIME messages (`mime`).

mod headers;
pub mod mime;
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
}

/// Classifies an input by its name (`.warc`, `.warc.gz`; `.eml`, `.mht`, `.mhtml`; any case),
/// else by its first bytes ([`warc::looks_like_warc`], [`mime::looks_like_message`]). `name`
/// may be empty (bytes from a program: only the content counts); `head` needs only the first
/// 4 KiB. WARC is tested first.
///
/// ```
/// use linkbase::input::{classify, InputKind};
///
/// assert_eq!(classify("page.html", b"<a href=x>"), InputKind::Html);
/// assert_eq!(classify("", b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p>"), InputKind::Message);
/// assert_eq!(classify("MAIL.EML", b""), InputKind::Message);
/// assert_eq!(classify("", b"WARC/1.1\r\n"), InputKind::Warc);
/// ```
pub fn classify(name: &str, head: &[u8]) -> InputKind {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".warc") || lower.ends_with(".warc.gz") || warc::looks_like_warc(head) {
        return InputKind::Warc;
    }
    let ext = std::path::Path::new(&lower)
        .extension()
        .and_then(|e| e.to_str());
    if matches!(ext, Some("eml" | "mht" | "mhtml")) || mime::looks_like_message(head) {
        return InputKind::Message;
    }
    InputKind::Html
}
