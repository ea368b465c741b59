//! The fragment targets of a page: a tree's pages, and a remote page read as it arrives
//! (`check --online`).

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The fragment targets of one page (every `id`, every `<a name>`), as a check matches a
/// link's fragment against them: for the pages of a tree, and for a remote page fetched by
/// `check --online`.
#[derive(Debug, Clone, Default)]
pub struct FragmentIds(HashSet<u64>);

impl FragmentIds {
    /// The targets of a page, as [`crate::pipeline::fragment_ids`] lists them.
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> FragmentIds {
        FragmentIds(ids.into_iter().map(hash_id).collect())
    }

    /// Whether `fragment` (without `#`) names a place in the page. HTML LS "find a potential
    /// indicated element": the id as written, then percent-decoded; `top` and the empty
    /// fragment name the top of any document.
    ///
    /// ```
    /// use linkbase::site::FragmentIds;
    /// let ids = FragmentIds::new(["intro", "größe"]);
    /// assert!(ids.names("intro") && ids.names("gr%C3%B6%C3%9Fe") && ids.names("TOP") && ids.names(""));
    /// assert!(!ids.names("Intro"));
    /// ```
    pub fn names(&self, fragment: &str) -> bool {
        fragment.is_empty()
            || fragment.eq_ignore_ascii_case("top")
            || self.0.contains(&hash_id(fragment))
            || self
                .0
                .contains(&hash_id(&crate::uri::percent_decode(fragment)))
    }
}

/// Why the fragment targets of a page read as it arrives were not found.
#[derive(Debug)]
#[non_exhaustive]
pub enum PageIdsError {
    /// The page is longer than the bound it was read with.
    TooLarge(u64),
    /// Its encoding cannot be read, or reading failed.
    Read(String),
    /// Only a parse of the whole document could say (the streaming walk hands such a document
    /// to the DOM engine, which holds it all): the reason.
    NeedsTree(&'static str),
}

impl std::fmt::Display for PageIdsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageIdsError::TooLarge(limit) => {
                write!(f, "the page is larger than {} MiB", limit >> 20)
            }
            PageIdsError::Read(e) => write!(f, "the page could not be read: {e}"),
            PageIdsError::NeedsTree(why) => {
                write!(f, "the page needs a full parse to find its ids ({why})")
            }
        }
    }
}

impl std::error::Error for PageIdsError {}

/// The fragment targets of a page read from `reader` as it arrives, as [`super::Site::page_ids`] finds
/// a local page's: its encoding sniffed from the transport `charset` and its first bytes (HTML
/// LS "encoding sniffing": a byte order mark, the `<meta>` prescan of the first 1,024 bytes),
/// then every `id` and `<a name>` kept as the streaming walk meets it. Memory holds the targets
/// (hashed in the result) and what the walk has not settled, never the page: at most `limit`
/// bytes are read, and a longer page is [`PageIdsError::TooLarge`]. A document the streaming
/// walk cannot settle is [`PageIdsError::NeedsTree`] rather than parsed whole.
///
/// # Errors
/// See [`PageIdsError`].
pub fn read_page_ids(
    reader: &mut dyn std::io::Read,
    charset: Option<&str>,
    limit: u64,
) -> Result<FragmentIds, PageIdsError> {
    use std::io::Read as _;
    let read_err = |e: std::io::Error| PageIdsError::Read(e.to_string());
    let mut limited = reader.take(limit + 1);
    let mut prefix = Vec::with_capacity(1024);
    (&mut limited)
        .take(1024)
        .read_to_end(&mut prefix)
        .map_err(read_err)?;
    let sniffed = crate::decode::sniff_only_with_default(&prefix, charset, None)
        .map_err(|e| PageIdsError::Read(e.to_string()))?;
    if sniffed.encoding == encoding_rs::REPLACEMENT {
        return Err(PageIdsError::Read(format!(
            "its encoding ({}) cannot be read",
            charset.unwrap_or("replacement")
        )));
    }
    let mut counted = Counted {
        inner: std::io::Cursor::new(prefix).chain(limited),
        read: 0,
    };
    let ids = crate::engine::stream::fragment_ids_read(
        &mut counted,
        sniffed.encoding,
        sniffed.source.is_tentative(),
    );
    if counted.read > limit {
        return Err(PageIdsError::TooLarge(limit));
    }
    match ids {
        Ok(ids) => Ok(FragmentIds::new(ids.iter().map(String::as_str))),
        Err(crate::engine::stream::StreamError::Io(e)) => Err(read_err(e)),
        Err(e) => Err(PageIdsError::NeedsTree(e.fallback().describe())),
    }
}

/// A reader that counts what it gives.
struct Counted<R> {
    inner: R,
    read: u64,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

fn hash_id(id: &str) -> u64 {
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}
