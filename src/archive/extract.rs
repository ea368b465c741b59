//! `rewrite X.warc --extract DIR`: a record's target URI as a path inside DIR, names kept apart
//! when two URLs meet on one file, stylesheets relinked, links between extracted pages relative.

use std::collections::HashMap;

use super::record::OtherRecord;
use crate::layout::{adjust_extension, escape_name, wget_last_name, Kind, Layout, Restrict};
use crate::pipeline::Options;

/// Where `--extract` writes a record: `host[:port]/path` in wget's layout with `-E`
/// ([`crate::layout`], the rule `rewrite DIR --relative` and `check` read trees by): each
/// segment percent-decoded, a directory path given `index.html`, the query kept after `?` in
/// the name, and `.html` (for a page, `kind` [`Kind::Html`]) or `.css` (a stylesheet) appended
/// when the name does not end so, so that every file opens from disk as what it is
/// (`sub.php?id=1` → `sub.php?id=1.html`, `s.css?v=1` → `s.css?v=1.css`). A default port is not
/// written. `None` for a URI with no host. Any scheme with a host is named (a MIME page's
/// parts are `thismessage://`): the caller leaves out what is not the site's
/// ([`crate::layout::of_the_web`]).
///
/// The URI is hostile: every component of the result is a plain file name. Empty,
/// `.` and `..` path segments (decoded) are dropped (a name never climbs out). Inside a
/// component, `/` (a query may hold one), `\`, NUL and the other control characters are
/// percent-encoded, and a component longer than [`EXTRACT_NAME_MAX`] bytes is cut and given a
/// stable hash of the whole. Documented collisions: a byte and its `%XX` spelling (`a b` and
/// `a%20b`) give the same name, as with wget; so do `a/../b` and `a/b` (segments dropped, not
/// resolved). Such URLs are kept apart by [`ExtractNames`], which gives all but the first
/// another name.
pub fn extract_path(target_uri: &str, kind: Kind) -> Option<std::path::PathBuf> {
    extract_path_in(target_uri, kind, Layout::Wget)
}

/// [`extract_path`] in another layout (`rewrite --extract --layout`): [`Layout::Plain`] names
/// a file by its path alone (the query dropped, no extension added: query variants then meet
/// on one name, and [`ExtractNames`] keeps them apart); [`Layout::Httrack`] as HTTrack does
/// ([`crate::layout::httrack_last_name`]; a port after `_`).
pub fn extract_path_in(target_uri: &str, kind: Kind, layout: Layout) -> Option<std::path::PathBuf> {
    let uri = crate::UriRef::parse(target_uri);
    let scheme = uri.scheme?;
    let mut host = uri.authority?.rsplit('@').next()?.to_ascii_lowercase();
    if host.is_empty() || host.starts_with('.') {
        return None;
    }
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => "",
    };
    if !default_port.is_empty() {
        if let Some(h) = host.strip_suffix(default_port) {
            host = h.to_owned();
        }
    }
    if layout == Layout::Httrack {
        if let Some((h, port)) = host.rsplit_once(':') {
            host = format!("{h}_{port}");
        }
    }
    let mut path = std::path::PathBuf::from(extract_component(&host));
    let decoded: Vec<String> = uri
        .path
        .split('/')
        .skip(1)
        .map(crate::uri::percent_decode)
        .collect();
    let (last, dirs) = match decoded.split_last() {
        Some((last, dirs)) => (last.as_str(), dirs),
        None => ("", &[][..]),
    };
    for s in dirs {
        if s.is_empty() || s == "." || s == ".." {
            continue;
        }
        path.push(extract_component(&escape_name(s, Restrict::Unix)));
    }
    let last = if last == "." || last == ".." {
        ""
    } else {
        last
    };
    let query = uri.query.map(crate::uri::percent_decode);
    let name = match layout {
        Layout::Plain => wget_last_name(last, None, Restrict::Unix),
        Layout::Httrack => crate::layout::httrack_last_name(last, query.as_deref(), kind),
        _ => adjust_extension(
            &wget_last_name(last, query.as_deref(), Restrict::Unix),
            kind,
        )
        .into_owned(),
    };
    path.push(extract_component(&name));
    Some(path)
}

/// The longest file name [`extract_path`] makes, in bytes: `NAME_MAX` of Linux, macOS and the
/// BSDs. A longer component keeps its first bytes and ends in `~` and 16 hex digits of the
/// SHA-1 of the whole component, so it stays distinct and stable from run to run.
pub const EXTRACT_NAME_MAX: usize = 255;

/// One URI component as a file name: `/`, `\` and control characters (C0, DEL, C1) percent-encoded;
/// never empty, `.` or `..`; at most [`EXTRACT_NAME_MAX`] bytes.
fn extract_component(raw: &str) -> String {
    let mut name = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c == '/' || c == '\\' || c.is_control() {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                name.push_str(&format!("%{b:02X}"));
            }
        } else {
            name.push(c);
        }
    }
    if name.is_empty() || name == "." || name == ".." {
        // Unreachable through extract_path (such segments are dropped or replaced); kept so the
        // guarantee does not rest on the caller.
        name = if name.is_empty() {
            "_".to_owned()
        } else {
            name.replace('.', "%2E")
        };
    }
    if name.len() <= EXTRACT_NAME_MAX {
        return name;
    }
    use sha1::Digest;
    let digest = sha1::Sha1::digest(name.as_bytes());
    let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let mut cut = EXTRACT_NAME_MAX - 1 - hash.len();
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}~{hash}", name.get(..cut).unwrap_or(""))
}

/// A stylesheet record rewritten by the rules of a MIME message's CSS parts: each `url()` and
/// `@import` URL resolved against the record's target URI, then written as the relinker of
/// `options` says (`rewrite --extract --relative`: a relative path to an extracted file) or
/// absolute; `url(#x)`, `url()` and fictitious results are left as they are. Its encoding is
/// CSS Syntax §3.2's (a BOM, the archived charset, `@charset`, UTF-8) and is kept. `None` when
/// nothing changes, or the text cannot be decoded or the new URLs written in its encoding
/// (the bytes are then kept as they are).
pub fn rewrite_stylesheet(record: &OtherRecord, options: &Options) -> Option<Vec<u8>> {
    let uri = record.reference.warc_target_uri.as_deref()?;
    let charset = record
        .content_type
        .as_deref()
        .and_then(crate::decode::charset_from_content_type);
    stylesheet_relinked(&record.payload, uri, charset.as_deref(), options)
}

/// [`rewrite_stylesheet`] for a stylesheet's bytes `body` retrieved from `uri`, with the
/// charset its transport gave (`None` for a file of a tree): `rewrite DIR --relative` relinks
/// a tree's stylesheets by it. The one stylesheet path (`pipeline/stylesheet.rs`), as for
/// a message's CSS parts, with `uri` as the base.
pub fn stylesheet_relinked(
    body: &[u8],
    uri: &str,
    charset: Option<&str>,
    options: &Options,
) -> Option<Vec<u8>> {
    let base = crate::Base {
        uri: Some(crate::Uri::parse(uri).ok()?),
        source: crate::BaseSource::RetrievalUri,
    };
    crate::pipeline::stylesheet(
        body,
        charset,
        &base,
        &mut Vec::new(),
        options,
        true,
        &mut |_| None,
    )
    .ok()?
    .new
}

/// Whether an archived `Content-Type` is CSS (`text/css`).
pub fn is_stylesheet(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|t| t.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/css"))
}

/// The file names of one extraction, decided before anything is written, so that no two URLs
/// share a file and no file stands where a directory must be.
///
/// The rule, in record order (the first record of a URL decides its place in the order):
/// - a URL keeps its [`extract_path`] name unless that name is taken; a later capture of the
///   same URL (the same target URI string) is the same file, and replaces the earlier one;
/// - names are compared case-folded, so a mirror copied to a case-insensitive file system stays
///   whole: `/A.html` and `/a.html` are two files even there;
/// - a name that another URL's path needs as a directory (`/a` beside `/a/` or `/a/b`) is
///   taken by that directory: the directory keeps its name, as every page below it does;
/// - a URL whose name is taken gets the first free `~N` (N = 2, 3, …) inserted before the
///   extension of its last component (before the `?` of a query kept in the name):
///   `a.html` → `a~2.html`, `a.css?v=1` → `a~2.css?v=1`, `a` → `a~2`. The same archive always
///   gives the same names.
///
/// Each such URL is a [`ExtractCollision`], to be said and counted.
#[derive(Debug, Clone, Default)]
pub struct ExtractNames {
    /// Target URI → its file.
    by_uri: HashMap<String, std::path::PathBuf>,
    /// [`extract_path`] name → the file of the first URL that had it: a link whose resolved URL
    /// differs from a target URI only in what the name drops (host case, dot segments) finds it.
    by_name: HashMap<std::path::PathBuf, std::path::PathBuf>,
    /// A redirect's URL → the file of where it leads ([`ExtractNames::follow`]).
    redirects: HashMap<String, std::path::PathBuf>,
    /// The names' layout.
    layout: Layout,
}

/// A URL that could not have its [`extract_path`] name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractCollision {
    /// The URL moved.
    pub uri: String,
    /// The URL that holds the name: as its file, or as a directory of its path.
    pub holder: String,
    /// Whether the name is the holder's directory (`/a` beside `/a/b`).
    pub directory: bool,
    /// The name it would have had.
    pub name: std::path::PathBuf,
    /// The name it has.
    pub file: std::path::PathBuf,
}

/// A path as one case-folded key: components joined by `/` (no component holds one).
fn folded(path: &std::path::Path) -> String {
    let mut key = String::new();
    for c in path.components() {
        if !key.is_empty() {
            key.push('/');
        }
        key.push_str(&c.as_os_str().to_string_lossy().to_lowercase());
    }
    key
}

/// `name` with `~n` before the extension of its last component (see [`ExtractNames`]), kept
/// within [`EXTRACT_NAME_MAX`] bytes.
fn with_suffix(name: &std::path::Path, n: u64) -> std::path::PathBuf {
    let last = name
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (file, query) = match last.find('?') {
        Some(i) => last.split_at(i),
        None => (last.as_str(), ""),
    };
    let (mut stem, ext) = match file.rfind('.') {
        Some(i) if i > 0 => (
            file.get(..i).unwrap_or("").to_owned(),
            file.get(i..).unwrap_or(""),
        ),
        _ => (file.to_owned(), ""),
    };
    let suffix = format!("~{n}");
    let mut tail = format!("{suffix}{ext}{query}");
    if tail.len() >= EXTRACT_NAME_MAX {
        tail = suffix;
        stem = file.to_owned();
    }
    let mut cut = EXTRACT_NAME_MAX.saturating_sub(tail.len()).min(stem.len());
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    stem.truncate(cut);
    name.with_file_name(format!("{stem}{tail}"))
}

impl ExtractNames {
    /// Names the URLs `uris` (target URIs, in record order, each with what wget `-E` knows of
    /// its record; repeats are later captures).
    /// Returns the names and the URLs that could not keep theirs. A URI [`extract_path`] cannot
    /// name has no file.
    pub fn assign<'a>(
        uris: impl IntoIterator<Item = (&'a str, Kind)>,
    ) -> (ExtractNames, Vec<ExtractCollision>) {
        ExtractNames::assign_in(uris, Layout::Wget)
    }

    /// [`ExtractNames::assign`] with the names of `layout` ([`extract_path_in`]).
    pub fn assign_in<'a>(
        uris: impl IntoIterator<Item = (&'a str, Kind)>,
        layout: Layout,
    ) -> (ExtractNames, Vec<ExtractCollision>) {
        let mut order: Vec<(&str, std::path::PathBuf, std::path::PathBuf)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (uri, kind) in uris {
            if seen.insert(uri) {
                if let (Some(name), Some(plain)) = (
                    extract_path_in(uri, kind, layout),
                    extract_path_in(uri, Kind::Other, layout),
                ) {
                    order.push((uri, name, plain));
                }
            }
        }
        // Every directory some path needs, with the first URL needing it.
        let mut directories: HashMap<String, &str> = HashMap::new();
        for (uri, name, _) in &order {
            for dir in name.ancestors().skip(1) {
                if dir.as_os_str().is_empty() {
                    break;
                }
                directories.entry(folded(dir)).or_insert(uri);
            }
        }
        let mut names = ExtractNames {
            layout,
            ..ExtractNames::default()
        };
        let mut files: HashMap<String, &str> = HashMap::new();
        // Per clashing name, the suffix to try next: K URLs on one name probe K times, not K²/2
        // (an archive of 100,000 case variants of one URL is hostile input too).
        let mut next_suffix: HashMap<String, u64> = HashMap::new();
        let mut collisions = Vec::new();
        for (uri, name, plain) in order {
            let key = folded(&name);
            let holder = files
                .get(&key)
                .map(|h| (*h, false))
                .or_else(|| directories.get(&key).map(|h| (*h, true)));
            let file = match holder {
                None => {
                    files.insert(key, uri);
                    name.clone()
                }
                Some((holder, directory)) => {
                    let n = next_suffix.entry(key).or_insert(2);
                    let file = loop {
                        let candidate = with_suffix(&name, *n);
                        let k = folded(&candidate);
                        *n += 1;
                        if !files.contains_key(&k) && !directories.contains_key(&k) {
                            files.insert(k, uri);
                            break candidate;
                        }
                    };
                    collisions.push(ExtractCollision {
                        uri: uri.to_owned(),
                        holder: holder.to_owned(),
                        directory,
                        name: name.clone(),
                        file: file.clone(),
                    });
                    file
                }
            };
            names.by_name.entry(plain).or_insert_with(|| file.clone());
            names.by_uri.insert(uri.to_owned(), file);
        }
        (names, collisions)
    }

    /// The file of a URL: its own when it is a target URI named here, else that of where it
    /// redirects to ([`ExtractNames::follow`]), else that of the first target URI with the same
    /// [`extract_path`] name.
    pub fn file(&self, uri: &str) -> Option<&std::path::Path> {
        match self.by_uri.get(uri).or_else(|| self.redirects.get(uri)) {
            Some(f) => Some(f),
            None => self
                .by_name
                .get(&extract_path_in(uri, Kind::Other, self.layout)?)
                .map(|f| f.as_path()),
        }
    }

    /// Redirects followed, as wget `-k` does: each `(from, to)` (a redirect's URL and its
    /// `Location` resolved against it) whose `from` has no file of its own and whose `to` leads,
    /// in at most [`crate::input::MAX_REDIRECTS`] more redirects, to a file: links to `from`
    /// go to that file. Returns how many were followed.
    pub fn follow(&mut self, redirects: &[(String, String)]) -> usize {
        let next: HashMap<&str, &str> = redirects
            .iter()
            .map(|(from, to)| (from.as_str(), to.as_str()))
            .collect();
        let mut followed = 0;
        for (from, to) in redirects {
            if self.by_uri.contains_key(from) || self.redirects.contains_key(from) {
                continue;
            }
            let mut at = to.as_str();
            for _ in 0..=crate::input::MAX_REDIRECTS {
                if let Some(file) = self.by_uri.get(at) {
                    self.redirects.insert(from.clone(), file.clone());
                    followed += 1;
                    break;
                }
                match next.get(at) {
                    Some(n) => at = n,
                    None => break,
                }
            }
        }
        followed
    }

    /// How many files the names make.
    pub fn len(&self) -> usize {
        self.by_uri.len()
    }

    /// Whether no URL has a file.
    pub fn is_empty(&self) -> bool {
        self.by_uri.is_empty()
    }
}

/// `rewrite --extract DIR --relative`: a link to a page extracted from the same archive becomes
/// the relative path between the two files ([`ExtractNames`] names them), fragment kept; every
/// other link is absolute.
#[derive(Debug, Clone, Default)]
pub struct ExtractRelinker {
    names: std::sync::Arc<ExtractNames>,
}

impl ExtractRelinker {
    /// Links between the files `names` gives.
    pub fn new(names: std::sync::Arc<ExtractNames>) -> ExtractRelinker {
        ExtractRelinker { names }
    }
}

impl crate::rewrite::Relink for ExtractRelinker {
    fn relink(&self, document: &str, resolved: &str) -> Option<String> {
        let (without_fragment, fragment) = match resolved.split_once('#') {
            Some((u, f)) => (u, Some(f)),
            None => (resolved, None),
        };
        let from = self.names.file(document)?;
        let to = self.names.file(without_fragment)?;
        file_link(from, to, fragment)
    }
}

/// The link from the extracted file `from` to the extracted file `to` (both below one
/// directory), with `fragment`: the relative path between them, or the fragment alone when they
/// are one file. A file name is a path segment: `?` (a query kept in the name), `#`, `%` and the
/// like are percent-encoded. `None` for a name that is not UTF-8.
pub(crate) fn file_link(
    from: &std::path::Path,
    to: &std::path::Path,
    fragment: Option<&str>,
) -> Option<String> {
    let mut out = String::new();
    if !(from == to && fragment.is_some()) {
        let names = |p: &std::path::Path| -> Option<Vec<String>> {
            p.components()
                .map(|c| c.as_os_str().to_str().map(str::to_owned))
                .collect()
        };
        let (from_dirs, to) = (names(from.parent()?)?, names(to)?);
        let from_dirs: Vec<&str> = from_dirs.iter().map(String::as_str).collect();
        let to: Vec<&str> = to.iter().map(String::as_str).collect();
        crate::site::relative_path(&from_dirs, &to, &mut out);
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    Some(out)
}

/// `rewrite --extract`: a page whose encoding only its archived `Content-Type` gave would be
/// read from disk in another one (a file has no transport). Its encoding is declared with
/// `<meta charset="…">` inserted at the top of `<head>` (after the `<head>` start tag, else
/// after `<html>`, else before the first other element or text), where the HTML LS prescan
/// (§13.2.3.2) finds it first; every other byte is kept. `None` for an encoding that is not
/// ASCII-compatible (UTF-16: the bytes of a declaration would not read as one, and a BOM
/// already says it).
///
/// ```
/// use linkbase::archive::declare_charset;
/// let page = b"<!DOCTYPE html><!-- <head> --><HTML><Head lang=ru><title>x</title>";
/// assert_eq!(
///     declare_charset(page, "windows-1251").unwrap(),
///     b"<!DOCTYPE html><!-- <head> --><HTML><Head lang=ru><meta charset=\"windows-1251\"><title>x</title>"
/// );
/// assert_eq!(declare_charset(b"<p>x", "koi8-r").unwrap(), b"<meta charset=\"KOI8-R\"><p>x");
/// assert_eq!(declare_charset(b"<p>x", "UTF-16LE"), None);
/// ```
pub fn declare_charset(html: &[u8], encoding: &str) -> Option<Vec<u8>> {
    let known = encoding_rs::Encoding::for_label(encoding.as_bytes())?;
    if !known.is_ascii_compatible() {
        return None;
    }
    let at = head_top(html);
    let mut out = Vec::with_capacity(html.len() + 32 + encoding.len());
    out.extend_from_slice(html.get(..at).unwrap_or_default());
    out.extend_from_slice(format!("<meta charset=\"{}\">", known.name()).as_bytes());
    out.extend_from_slice(html.get(at..).unwrap_or_default());
    Some(out)
}

/// Where the top of `<head>` is in `html` (see [`declare_charset`]): a scan of tags that
/// skips comments, doctypes and processing instructions, reading quoted attribute values.
fn head_top(html: &[u8]) -> usize {
    let find = |from: usize, needle: &[u8]| {
        html.get(from..)
            .and_then(|rest| memchr::memmem::find(rest, needle))
            .map(|i| from + i)
    };
    // The end of the tag starting at `start` (after its `>`), quotes respected.
    let tag_end = |start: usize| {
        let mut quote = None;
        for (i, &b) in html.iter().enumerate().skip(start) {
            match (quote, b) {
                (Some(q), _) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(b),
                (None, b'>') => return i + 1,
                _ => {}
            }
        }
        html.len()
    };
    let mut after_html = None;
    let mut i = 0;
    // A BOM stays first.
    if html.starts_with(b"\xEF\xBB\xBF") {
        i = 3;
    }
    let mut text_start = i;
    while let Some(lt) = html
        .get(i..)
        .and_then(|r| memchr::memchr(b'<', r))
        .map(|p| i + p)
    {
        // Text other than white space before a tag: the head is implied before it.
        if html
            .get(text_start..lt)
            .is_some_and(|t| t.iter().any(|b| !b.is_ascii_whitespace()))
        {
            return after_html.unwrap_or(text_start);
        }
        let rest = html.get(lt + 1..).unwrap_or_default();
        if rest.starts_with(b"!--") {
            i = find(lt + 4, b"-->").map_or(html.len(), |e| e + 3);
        } else if rest.starts_with(b"!") || rest.starts_with(b"?") || rest.starts_with(b"/") {
            i = tag_end(lt + 1);
        } else if rest.first().is_some_and(u8::is_ascii_alphabetic) {
            let name: Vec<u8> = rest
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .map(u8::to_ascii_lowercase)
                .collect();
            match name.as_slice() {
                b"head" => return tag_end(lt + 1),
                b"html" => {
                    i = tag_end(lt + 1);
                    after_html = Some(i);
                }
                _ => return after_html.unwrap_or(lt),
            }
        } else {
            // A `<` that starts no tag is text.
            return after_html.unwrap_or(text_start);
        }
        text_start = i;
    }
    after_html.unwrap_or(text_start.min(html.len()))
}
