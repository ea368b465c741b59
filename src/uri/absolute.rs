//! An absolute URI, owned (a base), and percent-decoding for comparing names.

use std::str::FromStr;

use super::options::ResolveError;
use super::parse::{authority_error, Offsets, UriRef};

/// A reference's authority, when it has one, checked ([`authority_error`]).
///
/// # Errors
/// [`ResolveError::BadAuthority`] for a malformed one.
pub(crate) fn check_authority(text: &str) -> Result<(), ResolveError> {
    match UriRef::parse(text).authority.and_then(authority_error) {
        Some(reason) => Err(ResolveError::BadAuthority {
            uri: text.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

/// RFC 2396 §2.4.1: `%XX` escapes decoded (the bytes read as UTF-8, lossily); an invalid escape
/// is kept as written. For comparing names (file paths, fragments, Content-IDs), never for
/// rewriting a reference.
pub(crate) fn percent_decode(s: &str) -> String {
    percent_decode_except(s, |_| false)
}

/// [`percent_decode`], an escape kept as written where `keep` says so of the byte it stands
/// for (wget2 keeps the escapes of delimiters in its file names).
pub(crate) fn percent_decode_except(s: &str, keep: impl Fn(u8) -> bool) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |k: usize| bytes.get(k).and_then(|c| char::from(*c).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                let decoded = u8::try_from(h * 16 + l).unwrap_or(b'?');
                if keep(decoded) {
                    out.extend_from_slice(bytes.get(i..i + 3).unwrap_or_default());
                } else {
                    out.push(decoded);
                }
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An absolute URI (RFC 2396 §3: it has a scheme), owned: one string plus component offsets.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Uri {
    text: String,
    pub(super) offsets: Offsets,
}

impl Uri {
    /// Parses an absolute URI.
    ///
    /// # Errors
    /// [`ResolveError::RelativeBase`] when `text` has no scheme (RFC 2396 §3.1): such a string
    /// cannot be a base for resolution (§5.2 needs an absolute base).
    ///
    /// ```
    /// use linkbase::Uri;
    /// let base = Uri::parse("http://a/b/c/d;p?q")?;
    /// assert_eq!(base.scheme(), "http");
    /// assert!(Uri::parse("../x").is_err());
    /// # Ok::<(), linkbase::ResolveError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Uri, ResolveError> {
        let offsets = Offsets::of(text);
        if offsets.scheme.is_none() {
            return Err(ResolveError::RelativeBase(text.to_owned()));
        }
        Ok(Uri {
            text: text.to_owned(),
            offsets,
        })
    }

    /// Parses an absolute URI a caller states as a base (a retrieval URI, a default base): as
    /// [`Uri::parse`], and its authority must be well formed (an IP literal host closed, RFC
    /// 2732 §3). A document's own `<base>` is read by [`Uri::parse`] and its resolver.
    ///
    /// # Errors
    /// As [`Uri::parse`]; [`ResolveError::BadAuthority`] for a malformed authority.
    ///
    /// ```
    /// use linkbase::Uri;
    /// assert!(Uri::parse_stated("http://[::1]:8080/a").is_ok());
    /// assert!(Uri::parse_stated("http://[::1/a").is_err());
    /// ```
    pub fn parse_stated(text: &str) -> Result<Uri, ResolveError> {
        let uri = Uri::parse(text)?;
        check_authority(text)?;
        Ok(uri)
    }

    /// The whole URI as a string.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The scheme, without its `:`.
    pub fn scheme(&self) -> &str {
        self.as_ref().scheme.unwrap_or_default()
    }

    /// The components, borrowed.
    pub fn as_ref(&self) -> UriRef<'_> {
        self.offsets.slice(&self.text)
    }

    /// This URI without its fragment: the URI of the document itself (RFC 2396 §4.1).
    pub fn without_fragment(&self) -> &str {
        match &self.offsets.fragment {
            // The '#' sits just before the fragment.
            Some(f) => self
                .text
                .get(..f.start.saturating_sub(1))
                .unwrap_or(&self.text),
            None => &self.text,
        }
    }
}

impl std::fmt::Display for Uri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::fmt::Debug for Uri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Uri({:?})", self.text)
    }
}

impl FromStr for Uri {
    type Err = ResolveError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Uri::parse(s)
    }
}
