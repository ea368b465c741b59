//! One URL value by the rules (docs/html-rules.md §3): resolved against the base, kept
//! relative where resolving would change its meaning, then written in the form the caller wants.

use super::*;

impl Planner<'_> {
    /// docs/html-rules.md §3 for one URL value; then, with [`RewriteOptions::relink`], the form the
    /// caller wants written (a relative path in an offline mirror).
    pub(super) fn resolve_value(&self, ctx: &UrlContext<'_>, raw: &str, in_css: bool) -> Outcome {
        let mut outcome = self.resolve_url(ctx, raw, in_css);
        // Written and reported as a URI, in every profile: a space or a non-ASCII
        // character resolved by an RFC profile is percent-encoded as a browser would send it.
        if let Some(resolved) = &outcome.resolved {
            if let std::borrow::Cow::Owned(valid) = crate::uri::valid_uri(resolved, self.encoding) {
                if outcome.replacement.as_ref() == Some(resolved) {
                    outcome.replacement = Some(valid.clone());
                }
                outcome.resolved = Some(valid);
            }
        }
        if let (Some(relink), Some(resolved)) = (&self.options.relink, &outcome.resolved) {
            // A document without a URL of its own (a mail part with no Content-Location) is
            // `""`: a relinker that needs it declines, one that knows its file does not.
            let document = self.document_uri.as_ref().map_or("", |d| d.as_str());
            if outcome.same_document && self.stays_in_page() {
                // RFC 2396 §4.2: `#x` and `""` name the document they are in, and so they do in
                // the file it becomes: kept as written (`""` is no file name, `#` no fragment).
                outcome.replacement = None;
                outcome.relinked = Some(Relinked::Relative);
            } else if let Some(text) = relink.0.relink(document, resolved) {
                outcome.replacement =
                    (text != raw.trim_matches(is_ascii_whitespace)).then_some(text);
                outcome.relinked = Some(Relinked::Relative);
            } else {
                let why = relink.0.why_absolute(document, resolved);
                outcome.relinked = Some(Relinked::Absolute(why));
            }
        }
        if outcome.replacement.is_none() && self.written != self.encoding {
            outcome.replacement = self.transcoding_safe(raw);
        }
        outcome
    }

    /// A value left as written, in the form that keeps its meaning once the output is
    /// transcoded: the URL Standard encodes a query's non-ASCII characters in the document's
    /// encoding ("query state"), so re-encoded text would name another URL (`?ß` in
    /// windows-1252 is `?%DF`, in UTF-8 `?%C3%9F`). `None` when the two read it alike.
    fn transcoding_safe(&self, raw: &str) -> Option<String> {
        let value = raw.trim_matches(is_ascii_whitespace);
        let valid = crate::uri::valid_uri(value, self.encoding);
        (valid != crate::uri::valid_uri(value, self.written)).then(|| valid.into_owned())
    }

    fn resolve_url(&self, ctx: &UrlContext<'_>, raw: &str, in_css: bool) -> Outcome {
        let value = raw.trim_matches(is_ascii_whitespace);
        let keep = |resolved: Option<String>,
                    same_document: bool,
                    diagnostic: Option<Diagnostic>| Outcome {
            resolved,
            replacement: None,
            same_document,
            diagnostic,
            relinked: None,
        };
        // Left as it was: the resolver (or the URL parser) refused it.
        let unresolvable = |e: crate::uri::ResolveError| {
            let d = Diagnostic::new(crate::error::DiagnosticCode::Unresolvable, e.to_string());
            keep(None, false, Some(d))
        };
        if value.is_empty() {
            return match ctx.role {
                // `<a href="">` is the current document: same-document policy below.
                Role::Hyperlink => self.same_document(ctx, ""),
                // `action=""` submits to the document URL, whatever the base: kept.
                Role::FormAction => keep(
                    self.document_uri
                        .as_ref()
                        .map(|u| u.without_fragment().to_owned()),
                    true,
                    None,
                ),
                _ => keep(
                    None,
                    false,
                    Some(Diagnostic::new(
                        crate::error::DiagnosticCode::EmptyUrl,
                        "an empty value names no resource; kept empty",
                    )),
                ),
            };
        }
        let reference = UriRef::parse(value);
        if self.stays_absolute(&reference) {
            // docs/html-rules.md §3: absolute references stay byte-identical. Under the whatwg profile
            // the report still gives what a browser makes of them (`new URL(ref, base)`): the
            // URL Standard parses absolute URLs too (`https:x` is `https://x/`, a bad
            // host fails), and the browser reads the unchanged bytes the same way.
            if self.options.resolve.profile == Profile::Whatwg {
                // Without any base, as `new URL(ref)` reads it: the same serialization.
                let parsed = match ctx.resolver {
                    Some(resolver) => resolver.resolve(value).map(|r| r.uri),
                    None => crate::uri::whatwg_absolute(value, self.encoding),
                };
                return match parsed {
                    Ok(uri) => {
                        let diagnostic = self.profile_sensitive(ctx.resolver, value, &uri);
                        keep(Some(uri), false, diagnostic)
                    }
                    Err(e) => unresolvable(e),
                };
            }
            // `http:g` is absolute here, relative to an http: base in a browser.
            let diagnostic = self.profile_sensitive(ctx.resolver, value, value);
            return keep(Some(value.to_owned()), false, diagnostic);
        }
        if reference.is_same_document() {
            if in_css || ctx.local_fragments {
                // `url(#x)` and SVG `href="#x"` are local references whatever the base.
                let at = self.document_uri.as_ref().or(self.base.uri.as_ref());
                return keep(
                    at.map(|u| format!("{}{value}", u.without_fragment())),
                    true,
                    None,
                );
            }
            return self.same_document(ctx, value);
        }
        let Some(resolver) = ctx.resolver else {
            return keep(
                None,
                false,
                Some(Diagnostic::new(
                    crate::error::DiagnosticCode::NoBase,
                    "no base URI: the relative reference is left as it was",
                )),
            );
        };
        match resolver.resolve(value) {
            Ok(r) => {
                let resolved = r.uri;
                let replacement =
                    (resolved != raw && !is_fictitious(&resolved)).then(|| resolved.clone());
                let diagnostic = self.profile_sensitive(Some(resolver), value, &resolved);
                Outcome {
                    resolved: Some(resolved),
                    replacement,
                    same_document: false,
                    diagnostic,
                    relinked: None,
                }
            }
            Err(e) => unresolvable(e),
        }
    }

    /// The `profile-sensitive` diagnostic, when the other side of the RFC 2396 / URL Standard
    /// divide resolves `value` against the same base to another URL (`crate::uri::Contrast`
    /// says where the two part ways).
    fn profile_sensitive(
        &self,
        resolver: Option<&Resolver>,
        value: &str,
        resolved: &str,
    ) -> Option<Diagnostic> {
        let contrast = self.contrast.as_ref()?;
        // Only links resolved against the document's base (not a nested document's).
        if !std::ptr::eq(resolver?, self.resolver.as_ref()?) {
            return None;
        }
        let other = contrast.other(value, resolved)?;
        let (rfc, profile, whatwg) = match self.options.resolve.profile {
            Profile::Whatwg => (other, contrast.profile(), resolved.to_owned()),
            p => (resolved.to_owned(), p, other),
        };
        Some(Diagnostic::new(
            crate::error::DiagnosticCode::ProfileSensitive,
            format!(
                "{} resolves it to {rfc}; whatwg (the URL Standard, as browsers) to {whatwg}",
                profile.name()
            ),
        ))
    }

    /// Whether a same-document reference still names this document once relinked (a mirror's
    /// file, a mail part's): unless a `<base>` element sends it to another document, as in a
    /// browser (HTML LS "parse a URL" against the document's base URL). A base from a MIME
    /// heading or the retrieval URI places the document; it is not another one.
    fn stays_in_page(&self) -> bool {
        self.keep_same_document || self.base.source != crate::BaseSource::BaseElement
    }

    /// A same-document reference (`#x`, or `""` on a hyperlink): kept when the base is the
    /// document's own URL, else written in absolute form (docs/html-rules.md §3).
    fn same_document(&self, ctx: &UrlContext<'_>, value: &str) -> Outcome {
        let resolved = ctx
            .resolver
            .and_then(|r| r.resolve(value).ok())
            .map(|r| r.uri);
        let replacement = match &resolved {
            Some(r) if !self.keep_same_document && r != value && !is_fictitious(r) => {
                Some(r.clone())
            }
            _ => None,
        };
        Outcome {
            resolved,
            replacement,
            same_document: true,
            diagnostic: None,
            relinked: None,
        }
    }

    /// Whether a reference with a scheme is left alone. It is, unless the profile reads it as
    /// relative: the same-scheme loophole of RFC 2396 §5.2 step 3 (`--same-scheme compat`), or
    /// WHATWG's rule for a special scheme equal to the base's without `//` (`http:g`).
    fn stays_absolute(&self, reference: &UriRef<'_>) -> bool {
        let Some(scheme) = reference.scheme else {
            return false;
        };
        let Some(base) = self.base.uri.as_ref() else {
            return true;
        };
        let same = scheme.eq_ignore_ascii_case(base.scheme()) && reference.authority.is_none();
        let relative = match self.options.resolve.profile {
            // `http:g` means `http://g/` against a base of another scheme, but is relative to an
            // http: base: once --drop-base removes the base, the document's own URL may be one.
            // Written in absolute form, it means the same under any base.
            Profile::Whatwg if self.options.drop_base => {
                is_special(scheme) && reference.authority.is_none()
            }
            Profile::Whatwg => same && is_special(scheme),
            _ => {
                same && self.options.resolve.same_scheme == SameScheme::Compat
                    && crate::uri::is_known_hierarchical(scheme)
            }
        };
        !relative
    }
}
