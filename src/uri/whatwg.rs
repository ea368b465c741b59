//! The whatwg profile: the `url` crate (the URL Standard's parser) with the corrections this
//! profile makes around it, and the query encoding both it and `valid.rs` use.

use super::options::ResolveError;
use super::parse::UriRef;
use super::path::Failure;

/// Whether `scheme` is one of the URL Standard's special schemes: with a base of the same
/// scheme, a reference without `//` is relative (`http:g` in the special relative state; `file:g`
/// and `file:/g` take the base's host in the file and file slash states).
pub(crate) fn is_special(scheme: &str) -> bool {
    ["http", "https", "ws", "wss", "ftp", "file"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme))
}

/// A reference as the URL parser sees it: leading and trailing C0 controls and spaces gone, and
/// every tab and newline (URL Standard "basic URL parser", first steps).
fn cleaned_reference(reference: &str) -> String {
    reference
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// Two states of the URL Standard that url 2.5.8 gets wrong for a relative reference (WPT
/// urltestdata cases the crate's own ledger lists), given as an equivalent reference it reads
/// right:
///
/// - against a special base, "special authority ignore slashes state" skips every `/` and `\`
///   before the host (`///x` against `http://example.org/` is `http://x/`), where the crate
///   takes only two and fails on an empty host;
/// - against a non-special base, `\` is no slash ("relative state" enters "relative slash
///   state" only for a special URL), so `\a` against `foo://foo/a` is the path `/\a`, where the
///   crate reads `//a`.
fn reference_as_the_standard_reads_it(base: &url::Url, reference: &str) -> Option<String> {
    let first = reference
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .next()?;
    if first != '/' && first != '\\' {
        return None;
    }
    let cleaned = cleaned_reference(reference);
    if is_special(base.scheme()) {
        let is_slash = |c: char| c == '/' || c == '\\';
        let rest = cleaned.trim_start_matches(is_slash);
        let slashes = cleaned.len() - rest.len();
        (slashes > 2 && base.scheme() != "file").then(|| format!("//{rest}"))
    } else {
        cleaned.starts_with('\\').then(|| format!("./{cleaned}"))
    }
}

/// url 2.5.8 refuses `..` the segment before a Windows drive letter (`C:`) in any scheme (its
/// `last_slash_can_be_removed`), where the URL Standard keeps drive letters only for `file:`
/// ("shorten a URL's path"): `..` against `abc://x/y/z/C:/` is `abc://x/y/z/`. For a result that
/// is not `file:`, the letter's `:` or `|` is hidden behind a private-use character while the
/// crate parses, and put back after.
struct DriveLetterMask {
    base: url::Url,
    reference: String,
    colon: &'static str,
    bar: &'static str,
}

impl DriveLetterMask {
    /// The private-use stand-ins, percent-encoded as they come out of a path.
    const COLON: (char, &'static str) = ('\u{e000}', "%EE%80%80");
    const BAR: (char, &'static str) = ('\u{e001}', "%EE%80%81");

    fn new(base: &url::Url, reference: &str) -> Option<Self> {
        // Cheap tests first: this runs for every reference.
        let bytes = reference.as_bytes();
        let dots = bytes.windows(2).any(|w| w == b"..")
            || bytes
                .windows(3)
                .any(|w| matches!(w, [b'%', b'2', e] if e | 0x20 == b'e'));
        if base.scheme() == "file" || !dots {
            return None;
        }
        let letters = |s: &str| {
            s.as_bytes()
                .windows(3)
                .any(|w| matches!(w, [b'/' | b'\\', l, b':' | b'|'] if l.is_ascii_alphabetic()))
        };
        let reference = cleaned_reference(reference);
        let own_scheme = UriRef::parse(&reference).scheme;
        let scheme = own_scheme.unwrap_or(base.scheme());
        if scheme.eq_ignore_ascii_case("file")
            || !(letters(base.path()) || letters(&format!("/{reference}")))
        {
            return None;
        }
        // Never when the stand-ins could be told apart from the input's own characters.
        let taken = |s: &str| {
            s.contains(['\u{e000}', '\u{e001}']) || s.to_ascii_lowercase().contains("%ee%80%8")
        };
        if taken(base.as_str()) || taken(&reference) {
            return None;
        }
        let mut masked_base = base.clone();
        masked_base.set_path(&mask_path(base.path(), false));
        // Only the reference's path is masked: its scheme is no drive letter, and neither is its
        // authority (`//t|/x`: a host `t|` must stay what the parser judges; found by
        // fuzz/uri_resolve.rs). The path ends at `?` or `#`.
        let special = is_special(scheme);
        let is_slash = |c: char| c == '/' || (special && c == '\\');
        let scheme_end = own_scheme.map_or(0, |s| s.len() + 1);
        let after_scheme = reference.get(scheme_end..).unwrap_or_default();
        let mut chars = after_scheme.chars();
        let authority_end =
            if chars.next().is_some_and(is_slash) && chars.next().is_some_and(is_slash) {
                let host = after_scheme.get(2..).unwrap_or_default();
                2 + host
                    .find(|c: char| is_slash(c) || c == '?' || c == '#')
                    .unwrap_or(host.len())
            } else {
                0
            };
        let (prefix, after) = reference.split_at(scheme_end + authority_end);
        let path_end = after.find(['?', '#']).unwrap_or(after.len());
        let (path, rest) = after.split_at(path_end);
        Some(Self {
            base: masked_base,
            reference: format!("{prefix}{}{rest}", mask_path(path, special)),
            colon: Self::COLON.1,
            bar: Self::BAR.1,
        })
    }

    fn unmask(&self, joined: &str) -> String {
        joined.replace(self.colon, ":").replace(self.bar, "|")
    }
}

/// `path` with the `:` or `|` of every two-letter segment that looks like a drive letter
/// replaced by its stand-in (`\` separates segments too in a special URL).
fn mask_path(path: &str, special: bool) -> String {
    let mut out = String::with_capacity(path.len());
    let mut segment_start = true;
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        let separator = c == '/' || (special && c == '\\');
        if segment_start && c.is_ascii_alphabetic() {
            let mut ahead = chars.clone();
            let letter = ahead.next();
            let after = ahead.next();
            let ends = after.is_none_or(|a| a == '/' || (special && a == '\\'));
            match letter {
                Some(':') if ends => {
                    chars.next();
                    out.push(DriveLetterMask::COLON.0);
                }
                Some('|') if ends => {
                    chars.next();
                    out.push(DriveLetterMask::BAR.0);
                }
                _ => {}
            }
        }
        segment_start = separator;
    }
    out
}

/// The URL Standard's parser on `reference`, against `base` when there is one, queries encoded
/// in `query_encoding` (UTF-8 when `None`).
fn whatwg_parse(
    reference: &str,
    base: Option<&url::Url>,
    query_encoding: Option<&'static encoding_rs::Encoding>,
) -> Result<url::Url, String> {
    // url 2.5.8 trips a debug assertion on some `file:` inputs (servo/rust-url#1114; e.g.
    // `file:'/C:` joined with `..`). Hostile input must not panic us, so a panic inside the
    // crate becomes an error for this reference only.
    let encoding = query_encoding.unwrap_or(encoding_rs::UTF_8);
    let encode = query_encoder(move |query| encode_query(encoding, query).into());
    std::panic::catch_unwind(|| {
        url::Url::options()
            .base_url(base)
            .encoding_override(
                query_encoding.map(|_| &encode as &dyn Fn(&str) -> std::borrow::Cow<'_, [u8]>),
            )
            .parse(reference)
    })
    .map_err(|_| "the url crate panicked on this input (servo/rust-url#1114)".to_owned())?
    .map_err(|e| e.to_string())
}

/// An absolute URL as a browser reads it without any base (`new URL(reference)`): the
/// `whatwg` profile reports this for absolute references of a document that has no base.
///
/// # Errors
/// [`ResolveError::Whatwg`], as against a base.
pub fn whatwg_absolute(
    reference: &str,
    encoding: &'static encoding_rs::Encoding,
) -> Result<String, ResolveError> {
    let query_encoding = (encoding != encoding_rs::UTF_8).then_some(encoding);
    whatwg_parse(reference, None, query_encoding)
        .map(|joined| file_corrections(None, reference, &joined).unwrap_or_else(|| joined.into()))
        .map_err(|reason| ResolveError::Whatwg {
            input: reference.to_owned(),
            reason,
        })
}

/// A reference as the URL parser reads it against a `file:` base, without a leading `file:`:
/// leading and trailing C0 controls and spaces, and every tab and newline, go (URL Standard).
fn file_reference_after_scheme(reference: &str) -> String {
    let cleaned = cleaned_reference(reference);
    match cleaned.get(..5) {
        Some(s) if s.eq_ignore_ascii_case("file:") => {
            cleaned.get(5..).unwrap_or_default().to_owned()
        }
        _ => cleaned,
    }
}

/// The crate's `file:` failures this profile corrects, against a base (parsed, and as written)
/// or for an absolute URL read alone, in one place so that a URL written as resolved reads back
/// as itself; `None` when the crate's result stands.
fn file_corrections(
    base: Option<(&url::Url, &str)>,
    reference: &str,
    joined: &url::Url,
) -> Option<String> {
    keep_file_host(base, reference, joined).or_else(|| keep_empty_file_segments(reference, joined))
}

/// Post-normalisation for url 2.5.8's known failure (its `expected_failures.txt`; upstream PRs
/// #890 and #1149): a `file:` URL whose path starts with a Windows drive letter (`C|`, `/C:/`,
/// `file:/C:/` against `file://host/…`) loses its host. The URL Standard keeps it: in the "file
/// state" and "file slash state" a reference without an authority of its own takes the base's
/// host, one with an authority (`file://h/C:/`, WPT `file://example.net/C:/`; `//h/c:` against a
/// `file:` base) keeps the host it names unless that "host" is itself a drive letter
/// (`file://C:/`, which the file host state reads as a path), and no later state clears it.
/// The crate's path, query and fragment are kept; only `//host` is put back. `base` (parsed, and
/// as written) is `None` for an absolute URL read alone: found by fuzz/pipeline.rs, `file:c:`
/// against `file://%22/` kept the host, but the written result, read again, lost it.
fn keep_file_host(
    base: Option<(&url::Url, &str)>,
    reference: &str,
    joined: &url::Url,
) -> Option<String> {
    if joined.scheme() != "file" || joined.host_str().is_some_and(|h| !h.is_empty()) {
        return None;
    }
    let host = match own_authority(reference) {
        Some(authority) => {
            if matches!(authority.as_bytes(), [l, b':' | b'|'] if l.is_ascii_alphabetic()) {
                return None;
            }
            file_host(&authority)?
        }
        None => {
            let (base, raw_base) = base.filter(|(b, _)| b.scheme() == "file")?;
            // The crate drops the host of a base like `file://h/C:/a/b` too: then it is read
            // from the base as written, through the crate's own host parser.
            match base.host_str().filter(|h| !h.is_empty()) {
                Some(h) => h.to_owned(),
                None => file_host(UriRef::parse(raw_base).authority?)?,
            }
        }
    };
    with_file_host(joined, &host)
}

/// The authority of a `file:` reference that has one of its own (`//h/…`, `\\h\…`, after an
/// optional `file:`).
fn own_authority(reference: &str) -> Option<String> {
    let after_scheme = file_reference_after_scheme(reference);
    let is_slash = |c: char| c == '/' || c == '\\';
    let mut lead = after_scheme.chars();
    if !(lead.next().is_some_and(is_slash) && lead.next().is_some_and(is_slash)) {
        return None;
    }
    let rest = after_scheme.get(2..).unwrap_or_default();
    rest.split(|c: char| is_slash(c) || c == '?' || c == '#')
        .next()
        .map(str::to_owned)
}

/// The host of a `file:` authority as the crate's host parser makes it (lower case, IDNA,
/// `localhost` → none); `None` for no host.
fn file_host(authority: &str) -> Option<String> {
    let parsed = url::Url::parse(&format!("file://{authority}/")).ok()?;
    parsed
        .host_str()
        .filter(|h| !h.is_empty())
        .map(str::to_owned)
}

/// `joined` (a `file:` URL the crate gave no host) with `//host` put back, when its path starts
/// with a Windows drive letter, the one case where url 2.5.8 drops a host the URL Standard keeps
/// (the path state turns `C|` into `C:` and leaves the host alone).
fn with_file_host(joined: &url::Url, host: &str) -> Option<String> {
    let path = joined.path();
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 3
        && bytes.first() == Some(&b'/')
        && bytes.get(1).is_some_and(u8::is_ascii_alphabetic)
        && bytes.get(2) == Some(&b':')
        && matches!(bytes.get(3), None | Some(b'/'));
    if !drive {
        return None;
    }
    let mut fixed = format!("file://{host}{path}");
    if let Some(q) = joined.query() {
        fixed.push('?');
        fixed.push_str(q);
    }
    if let Some(f) = joined.fragment() {
        fixed.push('#');
        fixed.push_str(f);
    }
    Some(fixed)
}

/// Post-normalisation for url 2.5.8's other `file:` failure (WPT `////one/two` against
/// `file:///`, `//localhost//pig` against `file://lion/`, `/..//x`): the crate drops the empty
/// segments a `file:` path starts with, which the URL Standard's path state keeps (`file:////pig`
/// has the path `//pig`). For a reference with an authority or an absolute path, the leading
/// empty segments of the path are counted as the path state makes them (`.` and `..` applied)
/// and the missing ones put back; the rest of the crate's result is kept as it is.
fn keep_empty_file_segments(reference: &str, joined: &url::Url) -> Option<String> {
    if joined.scheme() != "file" {
        return None;
    }
    let after_scheme = file_reference_after_scheme(reference);
    let after_scheme = after_scheme.as_str();
    let is_slash = |c: char| c == '/' || c == '\\';
    let before_query = after_scheme.split(['?', '#']).next().unwrap_or_default();
    let mut chars = before_query.chars();
    let path = match (chars.next(), chars.next()) {
        // `//host/path`: the path starts at the first slash after the host.
        (Some(a), Some(b)) if is_slash(a) && is_slash(b) => {
            let rest = before_query.get(2..).unwrap_or_default();
            rest.get(rest.find(is_slash)?..)?
        }
        (Some(a), _) if is_slash(a) => before_query,
        _ => return None,
    };
    // The URL Standard's path state over the segments after the leading slash.
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.get(1..)?.split(is_slash).collect();
    for (i, segment) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let lower = segment.to_ascii_lowercase();
        let dots = lower.replace("%2e", ".");
        match dots.as_str() {
            ".." => {
                segments.pop();
                if last {
                    segments.push("");
                }
            }
            "." => {
                if last {
                    segments.push("");
                }
            }
            _ => segments.push(segment),
        }
    }
    // Windows drive letters have rules of their own (and `keep_file_host`): left to the crate.
    let drive = |s: &str| {
        let b = s.as_bytes();
        b.len() == 2
            && b.first().is_some_and(u8::is_ascii_alphabetic)
            && matches!(b.get(1), Some(b':' | b'|'))
    };
    if segments.iter().any(|s| drive(s)) {
        return None;
    }
    // Leading slashes of the path as the standard serializes it, and as the crate did.
    let spec_path = format!("/{}", segments.join("/"));
    let want = spec_path.bytes().take_while(|b| *b == b'/').count();
    let have = joined.path().bytes().take_while(|b| *b == b'/').count();
    if want <= have {
        return None;
    }
    let missing = "/".repeat(want - have);
    let text = joined.as_str();
    let host_end = "file://".len()
        + joined.host_str().map_or(0, str::len)
        + joined.port().map_or(0, |p| p.to_string().len() + 1);
    let (head, tail) = (text.get(..host_end)?, text.get(host_end..)?);
    Some(format!("{head}{missing}{tail}"))
}

/// Gives a closure the higher-ranked signature the url crate's encoding override wants.
fn query_encoder<F>(f: F) -> F
where
    F: for<'q> Fn(&'q str) -> std::borrow::Cow<'q, [u8]>,
{
    f
}

/// URL Standard "percent-encode after encoding" for a query: the bytes of `query` in `encoding`,
/// each character the encoding cannot represent written as `%26%23` decimal `%3B` (an HTML
/// numeric reference, percent-encoded); the URL parser percent-encodes the rest.
pub(super) fn encode_query(encoding: &'static encoding_rs::Encoding, query: &str) -> Vec<u8> {
    let mut encoder = encoding.new_encoder();
    let mut out = Vec::with_capacity(query.len() + 16);
    let mut rest = query;
    let mut buffer = [0u8; 256];
    loop {
        let (result, read, written) =
            encoder.encode_from_utf8_without_replacement(rest, &mut buffer, true);
        out.extend_from_slice(buffer.get(..written).unwrap_or_default());
        rest = rest.get(read..).unwrap_or_default();
        match result {
            encoding_rs::EncoderResult::InputEmpty => break,
            encoding_rs::EncoderResult::OutputFull => {}
            encoding_rs::EncoderResult::Unmappable(c) => {
                out.extend_from_slice(format!("%26%23{}%3B", u32::from(c)).as_bytes());
            }
        }
    }
    out
}

/// Joins `reference` to `base` (`base_text` as written) the way browsers do: the URL parser
/// with this profile's corrections, into `out`.
pub(super) fn join(
    base: &url::Url,
    base_text: &str,
    reference: &str,
    query_encoding: Option<&'static encoding_rs::Encoding>,
    out: &mut String,
) -> Result<(), Failure> {
    let relative = reference_as_the_standard_reads_it(base, reference);
    let reference = relative.as_deref().unwrap_or(reference);
    let masked = DriveLetterMask::new(base, reference);
    let (parse_base, parse_reference) = match &masked {
        Some(m) => (&m.base, m.reference.as_str()),
        None => (base, reference),
    };
    let joined =
        whatwg_parse(parse_reference, Some(parse_base), query_encoding).map_err(Failure::Whatwg)?;
    if let Some(m) = masked {
        out.push_str(&m.unmask(joined.as_str()));
        return Ok(());
    }
    match file_corrections(Some((base, base_text)), reference, &joined) {
        Some(fixed) => out.push_str(&fixed),
        None => out.push_str(joined.as_str()),
    }
    Ok(())
}
