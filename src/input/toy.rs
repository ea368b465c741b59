//! A toy archive, for this repository's tests only (`oracle`): the smallest format with many
//! documents, to show what adding a format takes and that the command line and the Python module
//! change nowhere for it (DEVELOPING.md, "Adding a format"). `LINKBASE-TOY` on a line of its own,
//! then entries: a line `URL LENGTH`, LENGTH bytes of HTML, a line end.

use std::ops::Range;

/// The first line of a toy archive.
pub const MAGIC: &[u8] = b"LINKBASE-TOY\n";

/// Whether `head` opens a toy archive.
pub fn looks_like_toy(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// One entry: where it came from and where its bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its URL.
    pub url: String,
    /// Its bytes in the archive.
    pub body: Range<usize>,
    /// Where its `URL LENGTH` line starts.
    pub start: usize,
}

/// The entries of `bytes`, and what is wrong past the last one that could be read.
pub fn split(bytes: &[u8]) -> (Vec<Entry>, Option<String>) {
    let mut entries = Vec::new();
    let mut at = MAGIC.len();
    while at < bytes.len() {
        let rest = bytes.get(at..).unwrap_or_default();
        let Some(eol) = rest.iter().position(|&b| b == b'\n') else {
            return (entries, Some(format!("offset {at}: no line end")));
        };
        let line = String::from_utf8_lossy(rest.get(..eol).unwrap_or_default()).into_owned();
        let parsed = line
            .rsplit_once(' ')
            .and_then(|(url, n)| Some((url.to_owned(), n.parse::<usize>().ok()?)));
        let Some((url, length)) = parsed else {
            return (entries, Some(format!("offset {at}: not `URL LENGTH`")));
        };
        let start = at + eol + 1;
        let end = start.saturating_add(length);
        if end >= bytes.len() || bytes.get(end) != Some(&b'\n') {
            return (entries, Some(format!("offset {at}: cut short")));
        }
        entries.push(Entry {
            url,
            body: start..end,
            start: at,
        });
        at = end + 1;
    }
    (entries, None)
}

/// `bytes` with entry `i`'s body replaced by `new[i]` where that is `Some`, its length line
/// written anew.
pub fn join(bytes: &[u8], entries: &[Entry], new: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for (entry, new) in entries.iter().zip(new) {
        let Some(new) = new else { continue };
        out.extend_from_slice(bytes.get(at..entry.start).unwrap_or_default());
        out.extend_from_slice(format!("{} {}\n", entry.url, new.len()).as_bytes());
        out.extend_from_slice(new);
        at = entry.body.end;
    }
    out.extend_from_slice(bytes.get(at..).unwrap_or_default());
    out
}
