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

/// What an input is ([`sniff`]), and, when the guess is not certain, why it was made: a line
/// a caller should say (the CLI on stderr, Python as a warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sniffed {
    /// What it is read as.
    pub kind: InputKind,
    /// Why that is a guess, when it is one.
    pub doubt: Option<String>,
}

/// Classifies an input by its content, whatever its name; by its name only when the content
/// does not say. `name` may be empty (bytes from a program: only the content counts); `head`
/// is the input's first bytes (the more the better for a mail heading: the CLI gives 64 KiB).
/// In order:
/// - WARC by content ([`warc::looks_like_warc`]);
/// - ARC by content ([`arc::looks_like_arc`]: a `filedesc://` version block, or a URL line
///   without one, plain or as the first gzip member);
/// - mbox by content ([`mbox::looks_like_mbox`]: a `From ` envelope line, then a heading);
/// - a MIME message by content ([`mime::looks_like_message`]: a heading naming MIME, however
///   many `Received:` lines come first);
/// - then by name: `.warc`, `.warc.gz` WARC; `.arc`, `.arc.gz` ARC; `.mbox` mbox; `.eml`,
///   `.mht`, `.mhtml` a MIME message (names are compared in any case);
/// - a heading of mail fields (`From:`, `Received:`, `Subject:`, …) without MIME's: a mail
///   (RFC 2045 §5.2: text/plain), said as a guess;
/// - else HTML.
///
/// A guess is said ([`Sniffed::doubt`]): an mbox whose first envelope line has no date (`From -
/// `), content that says otherwise than the name, a mail without MIME fields.
///
/// ```
/// use linkbase::input::{classify, sniff, InputKind};
///
/// assert_eq!(classify("page.html", b"<a href=x>"), InputKind::Html);
/// assert_eq!(classify("", b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p>"), InputKind::Message);
/// assert_eq!(classify("MAIL.EML", b""), InputKind::Message);
/// assert_eq!(classify("", b"WARC/1.1\r\n"), InputKind::Warc);
/// assert_eq!(classify("old.ARC.GZ", b""), InputKind::Arc);
/// assert_eq!(classify("", b"filedesc://a.arc 0.0.0.0 20010101000000 text/plain 70\n"), InputKind::Arc);
/// assert_eq!(classify("", b"From a@b.org Mon Jan  1 00:00:00 2001\nFrom: a@b.org\n\n"), InputKind::Mbox);
/// assert_eq!(classify("inbox.mbox", b""), InputKind::Mbox);
/// // By content, whatever the name; a guess is said.
/// let sniffed = sniff("inbox.txt", b"From - \nSubject: x\n\nbody\n");
/// assert_eq!(sniffed.kind, InputKind::Mbox);
/// assert!(sniffed.doubt.is_some());
/// ```
pub fn sniff(name: &str, head: &[u8]) -> Sniffed {
    #[cfg(feature = "oracle")]
    if toy::looks_like_toy(head) {
        return Sniffed {
            kind: InputKind::Toy,
            doubt: None,
        };
    }
    let lower = name.to_ascii_lowercase();
    let by_name = if lower.ends_with(".warc") || lower.ends_with(".warc.gz") {
        Some(InputKind::Warc)
    } else if lower.ends_with(".arc") || lower.ends_with(".arc.gz") {
        Some(InputKind::Arc)
    } else {
        match std::path::Path::new(&lower)
            .extension()
            .and_then(|e| e.to_str())
        {
            Some("mbox") => Some(InputKind::Mbox),
            Some("eml" | "mht" | "mhtml") => Some(InputKind::Message),
            _ => None,
        }
    };
    let sure = |kind| Sniffed { kind, doubt: None };
    let by_content = if warc::looks_like_warc(head) {
        Some(sure(InputKind::Warc))
    } else if arc::looks_like_arc(head) {
        Some(sure(InputKind::Arc))
    } else if let Some(dated) = mbox::envelope_then_field(head) {
        Some(Sniffed {
            kind: InputKind::Mbox,
            doubt: (!dated).then(|| {
                "read as an mbox: it starts with a `From ` line followed by a heading, though \
                 that envelope line has no date"
                    .to_owned()
            }),
        })
    } else if mime::looks_like_message(head) {
        Some(sure(InputKind::Message))
    } else {
        None
    };
    match (by_content, by_name) {
        (Some(mut content), Some(named)) if content.kind != named => {
            let said = format!(
                "its name says {}, but its content is {}: read as {}",
                named.what(),
                content.kind.what(),
                content.kind.what()
            );
            content.doubt = Some(match content.doubt {
                Some(d) => format!("{said}; {d}"),
                None => said,
            });
            content
        }
        (Some(content), _) => content,
        (None, Some(named)) => sure(named),
        (None, None) if mime::looks_like_mail(head) => Sniffed {
            kind: InputKind::Message,
            doubt: Some(
                "read as a mail: it starts with a heading of mail fields, though none of them \
                 is MIME's (no MIME-Version or Content-Type: text/plain, RFC 2045 §5.2)"
                    .to_owned(),
            ),
        },
        (None, None) => sure(InputKind::Html),
    }
}

/// Classifies an input by its content, else its name: [`sniff`]'s kind.
pub fn classify(name: &str, head: &[u8]) -> InputKind {
    sniff(name, head).kind
}

impl InputKind {
    /// What it is, in a sentence: `an mbox`.
    fn what(self) -> &'static str {
        match self {
            InputKind::Html => "an HTML document",
            InputKind::Message => "a MIME message",
            InputKind::Warc => "a WARC archive",
            InputKind::Arc => "an ARC archive",
            InputKind::Mbox => "an mbox",
            #[cfg(feature = "oracle")]
            InputKind::Toy => "the tests' toy archive",
        }
    }
}
