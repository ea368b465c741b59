//! ④ Establishing the base URI, RFC 2396 §5.1, innermost layer first, remembering which layer
//! gave it:
//!
//! 1. §5.1.1 base embedded in the content: the first `<base href>` (docs/html-rules.md §1);
//! 2. §5.1.2 base from the encapsulating entity: `Content-Base`, then `Content-Location`
//!    (RFC 2068 §14.11/§14.15, RFC 2110 §5, RFC 2557 §5);
//! 3. §5.1.3 the URI used to retrieve the document (after redirects);
//! 4. §5.1.4 an application default.
//!
//! A relative value in any layer is resolved against the layers outside it.

use crate::error::Diagnostic;
use crate::input::{Headers, MAX_REDIRECTS};
use crate::uri::{ResolveError, ResolveOptions, Resolver, Uri, UriRef};

/// Which layer of RFC 2396 §5.1 supplied the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BaseSource {
    /// §5.1.1: the document's `<base href>`.
    BaseElement,
    /// §5.1.2: a `Content-Base` header of the encapsulating entity (RFC 2068, RFC 2110).
    ContentBase,
    /// §5.1.2: a `Content-Location` header of the encapsulating entity (RFC 2616, RFC 2557).
    ContentLocation,
    /// §5.1.3: the retrieval URI.
    RetrievalUri,
    /// §5.1.4: the application's default.
    Default,
    /// No layer gave a base: relative references cannot be resolved.
    None,
}

impl BaseSource {
    /// The name used in reports (`base-element`, `content-base`, …).
    pub fn name(self) -> &'static str {
        match self {
            BaseSource::BaseElement => "base-element",
            BaseSource::ContentBase => "content-base",
            BaseSource::ContentLocation => "content-location",
            BaseSource::RetrievalUri => "retrieval-uri",
            BaseSource::Default => "default",
            BaseSource::None => "none",
        }
    }
}

impl std::fmt::Display for BaseSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A base URI and the layer it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The absolute base URI; `None` when no layer supplied one.
    pub uri: Option<Uri>,
    /// Which layer supplied it.
    pub source: BaseSource,
}

impl Base {
    /// No base at all.
    pub fn none() -> Base {
        Base {
            uri: None,
            source: BaseSource::None,
        }
    }
}

/// How header fields from `--header`/`--headers` count toward the base (HTTP changed
/// its mind, so both readings are offered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderBase {
    /// `Content-Base`, then `Content-Location`, are the encapsulating entity's base: RFC 2396
    /// §5.1.2 with RFC 2068 §14.11/§14.15, RFC 2616 §14.14 and RFC 2110/2557 (default).
    #[default]
    Entity,
    /// They are not a base, as RFC 7231 §3.1.4.2 (App. B) and browsers have it: the base is
    /// `<base href>`, else the retrieval URI. The fields are reported as ignored.
    Browser,
}

/// The layers outside the document's content (§5.1.2–§5.1.4), as the caller knows them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaseLayers {
    /// §5.1.2 `Content-Base` of the encapsulating entity.
    pub content_base: Option<String>,
    /// §5.1.2 `Content-Location` of the encapsulating entity.
    pub content_location: Option<String>,
    /// §5.1.3 the retrieval URI, after redirects.
    pub retrieval_uri: Option<String>,
    /// §5.1.4 the application default.
    pub default_base: Option<String>,
}

impl BaseLayers {
    /// Adds the entity layer from a header block, under `mode`. Explicit values already set
    /// (from `--content-base` / `--content-location`) win over the headers. Returns what was
    /// ignored, as diagnostics.
    ///
    /// When the block holds a redirect chain (several responses), each 3xx `Location` is resolved
    /// against the URI before it, starting from [`BaseLayers::retrieval_uri`], and the last one
    /// becomes the retrieval URI: §5.1.3 names the URI *after* redirects. The fields used are the
    /// last response's. A `redirect-chain` diagnostic lists the hops.
    pub fn add_headers(&mut self, headers: &Headers, mode: HeaderBase) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        self.follow_redirects(headers, &mut diagnostics);
        for (name, slot) in [
            ("Content-Base", &mut self.content_base),
            ("Content-Location", &mut self.content_location),
        ] {
            let Some(value) = headers.get(name) else {
                continue;
            };
            match mode {
                HeaderBase::Entity => {
                    if slot.is_none() {
                        *slot = Some(value.to_owned());
                    }
                }
                HeaderBase::Browser => diagnostics.push(Diagnostic::new(
                    crate::error::DiagnosticCode::HeaderIgnored,
                    format!(
                        "{name}: {value} is not a base in the browser header mode (browsers take none from headers; RFC 7231 §3.1.4.2)"
                    ),
                )),
            }
        }
        diagnostics
    }
}

impl BaseLayers {
    fn follow_redirects(&mut self, headers: &Headers, diagnostics: &mut Vec<Diagnostic>) {
        let hops: Vec<&str> = headers
            .earlier_responses()
            .iter()
            .filter(|r| r.is_redirect())
            .filter_map(|r| r.location.as_deref())
            .collect();
        let Some(first) = hops.first() else {
            return;
        };
        let count = headers.redirect_count();
        if count > MAX_REDIRECTS {
            // A browser gives a network error instead of this document (Fetch §4.4), so no hop
            // of the chain is the URI it was retrieved from: the retrieval URI stays as given.
            diagnostics.push(Diagnostic::new(
                crate::error::DiagnosticCode::RedirectChain,
                format!(
                    "the header block's redirect chain has {count} redirects, more than the {MAX_REDIRECTS} a browser follows (Fetch §4.4); the retrieval URI stays {} (first Location: {}, last Location: {})",
                    self.retrieval_uri.as_deref().unwrap_or("unknown"),
                    first.trim(),
                    headers.last_redirect_location().unwrap_or("").trim(),
                ),
            ));
            return;
        }
        // HTTP resolves Location by RFC 3986 (RFC 9110 §10.2.2), whatever profile the document
        // itself is resolved with.
        let options = crate::ResolveOptions::for_profile(crate::Profile::Rfc3986);
        let mut current = self.retrieval_uri.clone();
        let mut path = current.iter().cloned().collect::<Vec<_>>();
        for location in hops {
            let location = location.trim();
            let next = match &current {
                Some(base) => crate::uri::resolve(base, location, options)
                    .map(|r| r.uri)
                    .ok(),
                None => crate::Uri::parse(location).ok().map(|u| u.to_string()),
            };
            match next {
                Some(next) => {
                    path.push(next.clone());
                    current = Some(next);
                }
                None => {
                    diagnostics.push(Diagnostic::new(
                        crate::error::DiagnosticCode::RedirectChain,
                        format!(
                            "Location: {location} cannot be resolved{}; the retrieval URI stays {}",
                            match &current {
                                Some(b) => format!(" against {b}"),
                                None =>
                                    " (the document has no retrieval URI to resolve it against)"
                                        .to_owned(),
                            },
                            current.as_deref().unwrap_or("unknown")
                        ),
                    ));
                    return;
                }
            }
        }
        diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::RedirectChain,
            format!(
                "the retrieval URI is the end of the redirect chain (RFC 2396 §5.1.3): {}",
                path.join(" -> ")
            ),
        ));
        self.retrieval_uri = current;
    }
}

/// The base outside the document, and the document's own URL.
#[derive(Debug, Clone)]
pub struct Outer {
    /// The base from layers 2–4: what applies when the document has no usable `<base>` (the
    /// HTML LS "fallback base URL").
    pub base: Base,
    /// The document's own URL (HTML LS "document's URL"): the retrieval URI, else the default.
    /// Same-document references are kept as they are when the base equals it.
    pub document_uri: Option<Uri>,
}

/// Layers 2–4 of §5.1, outermost first, each relative value resolved against what lies outside.
///
/// # Errors
/// [`crate::Error::BadBase`] when the retrieval URI or the default base is not an absolute URI:
/// those are the caller's own statements (`--url`, a WARC-Target-URI, `--default-base`), not the
/// document's, so a bad one stops the run. The error names the layer, not an option: a library
/// does not know which flag, parameter or record field gave it.
pub fn outer_base(
    layers: &BaseLayers,
    options: ResolveOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Outer, crate::Error> {
    let absolute = |option: &'static str, value: &str| {
        Uri::parse(value.trim()).map_err(|source| crate::Error::BadBase {
            option,
            value: value.to_owned(),
            source,
        })
    };
    let mut base = Base::none();
    if let Some(value) = &layers.default_base {
        base = Base {
            uri: Some(absolute("the default base", value)?),
            source: BaseSource::Default,
        };
    }
    if let Some(value) = &layers.retrieval_uri {
        base = Base {
            uri: Some(absolute("the retrieval URI", value)?),
            source: BaseSource::RetrievalUri,
        };
    }
    let document_uri = base.uri.clone();
    apply_heading(
        &mut base,
        layers.content_location.as_deref(),
        layers.content_base.as_deref(),
        options,
        Labels::Report,
        diagnostics,
    );
    Ok(Outer { base, document_uri })
}

/// Whether a `cid:` Content-Location that cannot be a base is worth a diagnostic: not in MIME
/// headings, where it is a normal label (Chrome writes one on every CSS part).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Labels {
    Report,
    Quiet,
}

/// One heading's base layer (RFC 2396 §5.1.2): its `Content-Location`, then its `Content-Base`,
/// each resolved against `base` and replacing it — so Content-Base beats Content-Location in the
/// same heading (RFC 2068 §14.11, RFC 2110 §5). A value that cannot serve is reported.
fn apply_heading(
    base: &mut Base,
    location: Option<&str>,
    content_base: Option<&str>,
    options: ResolveOptions,
    labels: Labels,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (value, source) in [
        (location, BaseSource::ContentLocation),
        (content_base, BaseSource::ContentBase),
    ] {
        let Some(value) = value else { continue };
        match layer_value(value, base, options) {
            Ok(uri) => {
                *base = Base {
                    uri: Some(uri),
                    source,
                }
            }
            Err(_) if labels == Labels::Quiet && is_cid(value) => {}
            Err(why) => diagnostics.push(Diagnostic::new(
                crate::error::DiagnosticCode::BaseIgnored,
                format!(
                    "{}: {value:?} is not a usable base: {why}",
                    header_name(source)
                ),
            )),
        }
    }
}

fn header_name(source: BaseSource) -> &'static str {
    match source {
        BaseSource::ContentBase => "Content-Base",
        BaseSource::ContentLocation => "Content-Location",
        _ => "base",
    }
}

/// A header value without the `"…"` or `<…>` that senders put around URIs in text (RFC 2396
/// Appendix E; RFC 2110 writes `Content-Base: "http://…"`). Neither `"` nor `<`/`>` can be in a
/// URI, so removing one enclosing pair never changes one that was written bare.
fn strip_delimiters(value: &str) -> &str {
    let inner = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('<').and_then(|v| v.strip_suffix('>')));
    match inner {
        Some(inner) => inner.trim_matches(is_ascii_whitespace),
        None => value,
    }
}

/// A layer's value made absolute against the base outside it.
pub(crate) fn layer_value(
    value: &str,
    outer: &Base,
    options: ResolveOptions,
) -> Result<Uri, String> {
    let value = strip_delimiters(value.trim_matches(is_ascii_whitespace));
    let reference = UriRef::parse(value);
    // RFC 2557 §8.3: a `cid:` Content-Location is a label for matching, never a base.
    if reference
        .scheme
        .is_some_and(|s| s.eq_ignore_ascii_case("cid") || s.eq_ignore_ascii_case("mid"))
    {
        return Err("a cid:/mid: location is a label, not a base (RFC 2557 §8.3)".to_owned());
    }
    if reference.scheme.is_some() {
        return Uri::parse(value).map_err(|e| e.to_string());
    }
    let Some(outer_uri) = &outer.uri else {
        return Err("it is relative and there is no base outside it to resolve it against".into());
    };
    let resolved = Resolver::new(outer_uri.as_str(), options)
        .and_then(|r| r.resolve(value))
        .map_err(|e: ResolveError| e.to_string())?;
    Uri::parse(&resolved.uri).map_err(|e| e.to_string())
}

/// The base of a MIME body part's content from its headings (docs/mhtml.md §4, RFC 2557 §5, RFC 2110
/// §5): start from `thismessage:/` (RFC 2557 §5(e)), then the caller's default and retrieval URI
/// (§5(d)), then every heading from the outermost to the part's own — each one's
/// `Content-Location`, then `Content-Base`, resolved against what lies outside it — so the
/// innermost usable value wins and Content-Base beats Content-Location in one heading.
/// `headings` lists the part indices outermost first; `own_location` says whether the last
/// heading's Content-Location counts (it does for the part's base; it does not when the part's
/// own Content-Location is what is being resolved, RFC 2557 §8.2(c)).
pub fn heading_base(
    headings: &[(Option<&str>, Option<&str>)],
    layers: &BaseLayers,
    options: ResolveOptions,
    own_location: bool,
    diagnostics: &mut Vec<Diagnostic>,
) -> Base {
    let mut base = Base {
        uri: Uri::parse("thismessage:/").ok(),
        source: BaseSource::Default,
    };
    let mut outer_layers = Vec::new();
    if let Some(d) = &layers.default_base {
        outer_layers.push((d.as_str(), BaseSource::Default));
    }
    if let Some(u) = &layers.retrieval_uri {
        outer_layers.push((u.as_str(), BaseSource::RetrievalUri));
    }
    for (value, source) in outer_layers {
        if let Ok(uri) = Uri::parse(value.trim()) {
            base = Base {
                uri: Some(uri),
                source,
            };
        }
    }
    let last = headings.len().saturating_sub(1);
    for (i, (location, content_base)) in headings.iter().enumerate() {
        let location = if i == last && !own_location {
            None
        } else {
            *location
        };
        apply_heading(
            &mut base,
            location,
            *content_base,
            options,
            Labels::Quiet,
            diagnostics,
        );
    }
    base
}

/// §5.1.1 for HTML: the document's `<base href>` value (the first `base` in tree order that has
/// one), resolved against the outer base. A value that cannot serve is ignored and reported, and
/// the outer base applies (HTML LS "set the frozen base URL").
pub fn with_base_element(
    outer: &Base,
    href: Option<&str>,
    options: ResolveOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> Base {
    let Some(href) = href else {
        return outer.clone();
    };
    let trimmed = href.trim_matches(is_ascii_whitespace);
    // HTML LS: a data: or javascript: base URL is not used.
    let scheme = UriRef::parse(trimmed).scheme;
    if scheme
        .is_some_and(|s| s.eq_ignore_ascii_case("data") || s.eq_ignore_ascii_case("javascript"))
    {
        diagnostics.push(Diagnostic::new(
            crate::error::DiagnosticCode::BaseIgnored,
            format!("<base href={href:?}>: a data: or javascript: base is ignored (HTML LS \"set the frozen base URL\")"),
        ));
        return outer.clone();
    }
    let resolved = match &outer.uri {
        // An empty href resolves to the outer base without its fragment (§4.2, docs/html-rules.md §1).
        Some(o) => Resolver::new(o.as_str(), options)
            .and_then(|r| r.resolve(trimmed))
            .map(|r| r.uri)
            .map_err(|e| e.to_string()),
        None if scheme.is_some() => Ok(trimmed.to_owned()),
        None => Err(
            "it is relative and no layer outside the document gives a base to resolve it against"
                .to_owned(),
        ),
    };
    // HTML LS "set the frozen base URL": a base the URL parser refuses (a space in the host,
    // say) is not used, whatever profile resolves the links.
    let resolved = resolved.and_then(|s| match url::Url::parse(&s) {
        Ok(_) => Ok(s),
        Err(e) => Err(format!(
            "it cannot be parsed as a URL ({e}; HTML LS \"set the frozen base URL\")"
        )),
    });
    match resolved.and_then(|s| Uri::parse(&s).map_err(|e| e.to_string())) {
        Ok(uri) => Base {
            uri: Some(uri),
            source: BaseSource::BaseElement,
        },
        Err(why) => {
            diagnostics.push(Diagnostic::new(
                crate::error::DiagnosticCode::BaseIgnored,
                format!("<base href={href:?}> is not a usable base: {why}"),
            ));
            outer.clone()
        }
    }
}

/// HTML LS "ASCII whitespace": tab, LF, FF, CR, space.
pub(crate) fn is_ascii_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

/// Whether `value` is a `cid:` URL (RFC 2392; the scheme in any case, spaces around it): a
/// Content-Location label, never a base (RFC 2557 §8.3).
pub(crate) fn is_cid(value: &str) -> bool {
    value
        .trim()
        .get(..4)
        .is_some_and(|s| s.eq_ignore_ascii_case("cid:"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn layers(
        cb: Option<&str>,
        cl: Option<&str>,
        url: Option<&str>,
        def: Option<&str>,
    ) -> BaseLayers {
        BaseLayers {
            content_base: cb.map(Into::into),
            content_location: cl.map(Into::into),
            retrieval_uri: url.map(Into::into),
            default_base: def.map(Into::into),
        }
    }

    fn outer(l: &BaseLayers) -> (Option<String>, BaseSource, Vec<Diagnostic>) {
        let mut d = Vec::new();
        let o = outer_base(l, ResolveOptions::default(), &mut d).unwrap();
        (o.base.uri.map(|u| u.to_string()), o.base.source, d)
    }

    #[test]
    fn precedence_innermost_first() {
        let all = layers(
            Some("http://cb/x/"),
            Some("http://cl/y/"),
            Some("http://url/z"),
            Some("http://def/"),
        );
        assert_eq!(outer(&all).0.as_deref(), Some("http://cb/x/"));
        assert_eq!(outer(&all).1, BaseSource::ContentBase);
        let l = layers(
            None,
            Some("http://cl/y/"),
            Some("http://url/z"),
            Some("http://def/"),
        );
        assert_eq!(outer(&l).1, BaseSource::ContentLocation);
        let l = layers(None, None, Some("http://url/z"), Some("http://def/"));
        assert_eq!(outer(&l).1, BaseSource::RetrievalUri);
        let l = layers(None, None, None, Some("http://def/"));
        assert_eq!(outer(&l).1, BaseSource::Default);
        assert_eq!(outer(&BaseLayers::default()).1, BaseSource::None);
    }

    #[test]
    fn relative_layers_resolve_outward() {
        let l = layers(None, Some("../c/"), Some("http://h/a/b/doc"), None);
        assert_eq!(outer(&l).0.as_deref(), Some("http://h/a/c/"));
        // Nothing outside: ignored, reported, falls back.
        let l = layers(None, Some("c/"), None, None);
        let (uri, source, d) = outer(&l);
        assert_eq!((uri, source), (None, BaseSource::None));
        assert_eq!(d.len(), 1);
        // cid: is a label.
        let l = layers(None, Some("cid:x@y"), Some("http://h/"), None);
        assert_eq!(outer(&l).1, BaseSource::RetrievalUri);
    }

    #[test]
    fn bad_url_option_is_an_error() {
        let mut d = Vec::new();
        let e = outer_base(
            &layers(None, None, Some("not/absolute"), None),
            ResolveOptions::default(),
            &mut d,
        );
        assert!(matches!(
            e,
            Err(crate::Error::BadBase {
                option: "the retrieval URI",
                ..
            })
        ));
        // The layer is named, not a command-line option the caller may not have used.
        assert!(e
            .err()
            .unwrap()
            .to_string()
            .starts_with("the retrieval URI \"not/absolute\": "));
    }

    #[test]
    fn base_element_rules() {
        let o = Base {
            uri: Some(Uri::parse("http://h/a/b#f").unwrap()),
            source: BaseSource::RetrievalUri,
        };
        let mut d = Vec::new();
        let opts = ResolveOptions::default();
        let b = with_base_element(&o, Some(" ../x/ "), opts, &mut d);
        assert_eq!(
            (b.uri.unwrap().as_str(), b.source),
            ("http://h/x/", BaseSource::BaseElement)
        );
        let b = with_base_element(&o, Some(""), opts, &mut d);
        assert_eq!(b.uri.unwrap().as_str(), "http://h/a/b");
        let b = with_base_element(&o, Some("?q"), opts, &mut d);
        assert_eq!(b.uri.unwrap().as_str(), "http://h/a/?q");
        assert!(d.is_empty());
        let b = with_base_element(&o, Some("javascript:alert(1)"), opts, &mut d);
        assert_eq!(b.source, BaseSource::RetrievalUri);
        let b = with_base_element(&Base::none(), Some("rel/"), opts, &mut d);
        assert_eq!(b.source, BaseSource::None);
        assert_eq!(d.len(), 2);
    }

    #[test]
    fn browser_mode_ignores_header_bases() {
        let h = Headers::parse("Content-Location: http://cl/\nContent-Base: http://cb/\n");
        let mut l = BaseLayers::default();
        assert_eq!(l.add_headers(&h, HeaderBase::Browser).len(), 2);
        assert_eq!(l, BaseLayers::default());
        assert!(l.add_headers(&h, HeaderBase::Entity).is_empty());
        assert_eq!(l.content_base.as_deref(), Some("http://cb/"));
        // An explicit option wins over the header.
        let mut l = BaseLayers {
            content_location: Some("http://explicit/".into()),
            ..Default::default()
        };
        l.add_headers(&h, HeaderBase::Entity);
        assert_eq!(l.content_location.as_deref(), Some("http://explicit/"));
    }

    /// `n` relative redirects (`a0/`, `a1/`, …), then the document's response.
    fn chain(n: usize) -> Headers {
        let mut text: String = (0..n)
            .map(|i| format!("HTTP/1.1 302 Found\r\nLocation: a{i}/\r\n\r\n"))
            .collect();
        text.push_str("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n");
        Headers::parse(&text)
    }

    fn follow(headers: &Headers) -> (Option<String>, Vec<String>) {
        let mut l = layers(None, None, Some("http://h/"), None);
        let d = l.add_headers(headers, HeaderBase::Entity);
        (l.retrieval_uri, d.into_iter().map(|d| d.message).collect())
    }

    /// 20 redirects are followed (Fetch §4.4); a longer chain is refused with one
    /// short diagnostic and the retrieval URI as given, and the block keeps only what that needs.
    #[test]
    fn redirect_chains_stop_at_twenty_hops() {
        let (uri, d) = follow(&chain(20));
        let end: String = (0..20).map(|i| format!("a{i}/")).collect();
        assert_eq!(uri.as_deref(), Some(&*format!("http://h/{end}")));
        assert_eq!(d.len(), 1);
        for n in [21, 4000] {
            let headers = chain(n);
            assert!(headers.earlier_responses().len() <= 21, "{n}");
            assert_eq!(
                follow(&headers),
                (
                    Some("http://h/".to_owned()),
                    vec![format!(
                        "the header block's redirect chain has {n} redirects, more than the 20 a browser follows (Fetch §4.4); the retrieval URI stays http://h/ (first Location: a0/, last Location: a{}/)",
                        n - 1
                    )]
                )
            );
        }
    }

    /// A library message names the layer, not a command-line option.
    #[test]
    fn an_unresolvable_hop_names_the_missing_layer() {
        let h =
            Headers::parse("HTTP/1.1 301 Moved\r\nLocation: /a/\r\n\r\nHTTP/1.1 200 OK\r\n\r\n");
        let mut l = BaseLayers::default();
        let d: Vec<String> = l
            .add_headers(&h, HeaderBase::Entity)
            .into_iter()
            .map(|d| d.message)
            .collect();
        assert_eq!(
            d,
            ["Location: /a/ cannot be resolved (the document has no retrieval URI to resolve it against); the retrieval URI stays unknown"]
        );
    }
}
