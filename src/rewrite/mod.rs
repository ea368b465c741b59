//! ⑥ The URL rules: find every URL of an element (docs/html-rules.md §2–§4), resolve it against the
//! base, and plan the edits that make relative ones absolute.
//!
//! The engines hand each element in (as an `ElementView`) and get back [`Edit`]s (where, old
//! value, new value, why) and a [`Link`] record per URL occurrence. The rules know no engine:
//! the DOM engine carries the edits out on its tree, the streaming engine splices them into the
//! source bytes (each edit names its element by position and its attribute by name).

pub(crate) mod conditional;
pub(crate) mod css;
pub(crate) mod refresh;
pub(crate) mod srcset;
pub(crate) mod targets;
mod resolve;
mod types;

use std::ops::Range;

use encoding_rs::Encoding;

use crate::base::{is_ascii_whitespace, Base, BaseSource, Outer};
use crate::error::Diagnostic;
pub(crate) use crate::tree::ElementView;
use crate::tree::{AttrNs, NodeId};
use crate::uri::{is_special, Contrast, Profile, Resolver, SameScheme, Uri, UriRef};
use targets::{Kind, Role};

/// How deep markup nested in markup is followed, by both engines: `iframe srcdoc` documents
/// inside `iframe srcdoc` documents, and `<noscript>` markup inside `<noscript>` markup (each
/// counted on its own). Each level is parsed again (and a srcdoc level escapes the one inside
/// it), so depth multiplies work; real pages nest one or two. Past it, a `nesting-limit` record
/// stands for the links not followed.
pub(crate) const MAX_NESTING: usize = 8;

pub(crate) use types::LinkFacts;
pub use types::{
    Edit, EditTarget, KeptAbsolute, Link, LinkKind, Relink, Relinked, Relinker, RewriteOptions,
};

/// One URL found outside the tree (inside a conditional comment): its link, and the new value
/// when the document changes there.
pub(crate) struct LooseUrl {
    pub link: Link,
    pub replacement: Option<String>,
}

/// Resolves URL attribute values found outside the tree (conditional comments) with the same
/// rules as the tree's (docs/html-rules.md §3), against the document's base.
pub(crate) fn plan_loose_urls(
    base: &Base,
    outer: &Outer,
    options: &RewriteOptions,
    encoding: &'static Encoding,
    values: &[(String, String, String)],
) -> Vec<LooseUrl> {
    let mut diagnostics = Vec::new();
    // A value outside the tree is never a document: nothing nested to rewrite.
    let no_nesting: NestedDocument = |_, _, _, _| {
        Err(Diagnostic::new(
            crate::error::DiagnosticCode::Unparsed,
            "left as it was: a document inside a conditional comment is not followed",
        ))
    };
    let planner = Planner::new(
        base.clone(),
        outer,
        options,
        0,
        encoding,
        no_nesting,
        &mut diagnostics,
    );
    values
        .iter()
        .map(|(element, attribute, value)| {
            let ctx = UrlContext {
                node: NodeId(usize::MAX),
                comma_list: false,
                element,
                attribute: Some(attribute),
                role: targets::Role::Resource,
                local_fragments: false,
                resolver: planner.resolver.as_ref(),
            };
            let outcome = planner.resolve_value(&ctx, value, false);
            let mut found = Found::default();
            let replacement = outcome.replacement.clone();
            planner.record(
                &mut found,
                &ctx,
                LinkKind::ConditionalComment,
                value,
                outcome,
                replacement.is_some(),
            );
            LooseUrl {
                link: found.links.remove(0),
                replacement,
            }
        })
        .collect()
}

/// `--drop-base`: whether `link` still needs a base element once the bases go, so the chosen one
/// must stay (made absolute): a relative reference left as written (unresolvable, without a
/// base, or in `<noscript>` markup that could not be written back; not the href of a base
/// element of the document, `own_base`, which is no reference resolved against the base), or
/// one whose meaning the base's removal would change.
pub(crate) fn needs_base_element(
    link: &Link,
    own_base: bool,
    base: &Base,
    outer: &Outer,
    options: &RewriteOptions,
) -> bool {
    let still_relative = !own_base
        && link.diagnostic.as_ref().is_some_and(|d| match d.code {
            crate::error::DiagnosticCode::Unresolvable | crate::error::DiagnosticCode::NoBase => {
                true
            }
            crate::error::DiagnosticCode::NoscriptKept => {
                link.resolved.as_deref() != Some(link.original.as_str())
            }
            _ => false,
        });
    still_relative || changes_meaning_without_base(link, base, outer, options)
}

/// `--same-scheme compat` (RFC profiles): `http:g` kept as written because the `<base>` has
/// another scheme is relative to the base left once the `<base>` goes, when that one is http:.
/// It has no absolute form to write (it is absolute already), so the `<base>` must stay.
fn changes_meaning_without_base(
    link: &Link,
    base: &Base,
    outer: &Outer,
    options: &RewriteOptions,
) -> bool {
    let compat = options.resolve.profile != Profile::Whatwg
        && options.resolve.same_scheme == SameScheme::Compat;
    let (Some(after), Some(now)) = (outer.base.uri.as_ref(), base.uri.as_ref()) else {
        return false;
    };
    let reference = UriRef::parse(link.original.trim_matches(is_ascii_whitespace));
    compat
        && !link.rewritten
        && reference.authority.is_none()
        && reference.scheme.is_some_and(|scheme| {
            scheme.eq_ignore_ascii_case(after.scheme())
                && !scheme.eq_ignore_ascii_case(now.scheme())
                && crate::uri::is_known_hierarchical(scheme)
        })
}

/// `--drop-base` could not be done: what is said when the base element stays.
pub(crate) fn base_kept(count: usize) -> Diagnostic {
    Diagnostic::new(
        crate::error::DiagnosticCode::BaseKept,
        format!(
            "the base element is kept although dropping it was asked for: {count} relative \
             reference(s) could not be made absolute and still need it"
        ),
    )
}

/// The outcome for one URL value.
struct Outcome {
    resolved: Option<String>,
    replacement: Option<String>,
    same_document: bool,
    diagnostic: Option<Diagnostic>,
    relinked: Option<Relinked>,
}

/// How the engine that rewrites the outer document rewrites a document nested in it (`iframe
/// srcdoc`, at a srcdoc depth): its links and, when anything changed, its new text; or why it
/// is left as it was. The rules know no engine: the running one hands this in.
pub(crate) type NestedDocument =
    fn(&str, &Outer, &RewriteOptions, usize) -> Result<(Vec<Link>, Option<String>), Diagnostic>;

/// What every URL of one document is resolved with (read-only while planning).
pub(crate) struct Planner<'a> {
    base: Base,
    /// `base` as text, made once: every link's record carries it.
    base_text: Option<String>,
    /// The base outside the document (what `<base href>` is resolved against).
    outer_base: Base,
    resolver: Option<Resolver>,
    /// `resolver`'s base under the other side of the RFC 2396 / URL Standard divide, for the
    /// `profile-sensitive` diagnostic.
    contrast: Option<Contrast>,
    document_resolver: Option<Resolver>,
    document_uri: Option<Uri>,
    /// docs/html-rules.md §3: same-document references stay as written when the base is the
    /// document's own URL; otherwise they get their absolute form.
    keep_same_document: bool,
    options: &'a RewriteOptions,
    depth: usize,
    /// The document's encoding (whatwg queries are encoded in it).
    encoding: &'static Encoding,
    /// The encoding the output is written in: another than `encoding` when transcoding.
    written: &'static Encoding,
    /// How `iframe srcdoc` documents are rewritten.
    nested: NestedDocument,
}

/// What planning produces.
#[derive(Default)]
pub(crate) struct Found {
    pub(crate) edits: Vec<Edit>,
    pub(crate) links: Vec<Link>,
    /// Links that are only counted: what the count reads of each URL value, instead of its
    /// [`Link`] record (a `<base>` and nested documents still give records).
    pub(crate) counted: Option<Vec<LinkFacts>>,
}

impl<'a> Planner<'a> {
    pub(crate) fn new(
        base: Base,
        outer: &Outer,
        options: &'a RewriteOptions,
        depth: usize,
        encoding: &'static Encoding,
        nested: NestedDocument,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Planner<'a> {
        let make = |uri: &Uri, diagnostics: &mut Vec<Diagnostic>| match Resolver::new(
            uri.as_str(),
            options.resolve,
        ) {
            Ok(r) => Some(r.with_query_encoding(encoding)),
            Err(e) => {
                diagnostics.push(Diagnostic::new(
                    crate::error::DiagnosticCode::NoBase,
                    format!("the base {uri} cannot be used: {e}"),
                ));
                None
            }
        };
        let resolver = base.uri.as_ref().and_then(|u| make(u, diagnostics));
        let contrast = base
            .uri
            .as_ref()
            .and_then(|u| Contrast::new(u.as_str(), options.resolve.profile, encoding));
        let document_resolver = outer
            .document_uri
            .as_ref()
            .and_then(|u| make(u, diagnostics));
        let keep_same_document = match (&base.uri, &outer.document_uri) {
            (Some(b), Some(d)) => b.without_fragment() == d.without_fragment(),
            _ => false,
        };
        Planner {
            base_text: base.uri.as_ref().map(|u| u.to_string()),
            base,
            outer_base: outer.base.clone(),
            resolver,
            contrast,
            document_resolver,
            document_uri: outer.document_uri.clone(),
            keep_same_document,
            options,
            depth,
            encoding,
            written: encoding,
            nested,
        }
    }

    /// Plans for output written in `written` (`--output-charset`), not the document's encoding.
    pub(crate) fn written_in(self, written: &'static Encoding) -> Planner<'a> {
        Planner { written, ..self }
    }

    /// The encoding the output is written in.
    pub(crate) fn written(&self) -> &'static Encoding {
        self.written
    }

    /// The base every URL is resolved against.
    pub(crate) fn base(&self) -> &Base {
        &self.base
    }

    /// The document's own URL.
    pub(crate) fn document_uri(&self) -> Option<&Uri> {
        self.document_uri.as_ref()
    }

    /// The options.
    pub(crate) fn options(&self) -> &'a RewriteOptions {
        self.options
    }

    /// How deep in `iframe srcdoc` documents.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// The document's encoding.
    pub(crate) fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// A record standing for the links of markup past [`MAX_NESTING`], not followed.
    pub(crate) fn nesting_limit(
        &self,
        out: &mut Found,
        node: NodeId,
        element: &str,
        attribute: Option<&str>,
    ) {
        let message = format!(
            "left as it was: markup nested more than {MAX_NESTING} levels deep (the nesting \
             limit, MAX_NESTING = {MAX_NESTING}) is not followed; its links are neither \
             reported nor rewritten"
        );
        let diagnostic = Diagnostic::new(crate::error::DiagnosticCode::NestingLimit, message);
        self.not_followed(out, node, element, attribute, diagnostic);
    }

    /// A record for nested markup left as it was: no URL, the reason in its diagnostic.
    pub(crate) fn not_followed(
        &self,
        out: &mut Found,
        node: NodeId,
        element: &str,
        attribute: Option<&str>,
        diagnostic: Diagnostic,
    ) {
        out.links.push(Link {
            node,
            element: element.to_owned(),
            attribute: attribute.map(str::to_owned),
            kind: LinkKind::Url,
            original: String::new(),
            resolved: None,
            same_document: false,
            rewritten: false,
            diagnostic: Some(diagnostic),
            srcdoc_depth: self.depth,
            base: self.base_text.clone(),
            base_source: self.base.source,
            offset: None,
            relinked: None,
        });
    }

    /// docs/html-rules.md §2–§3 for the attributes of one element, each read where the element
    /// holds it (no copy of its name or value).
    pub(crate) fn attributes(
        &self,
        out: &mut Found,
        element: &impl ElementView,
        chosen_base: Option<NodeId>,
    ) {
        // HTML 4.01 §13.3: classid, archive (and applet's code) are relative to codebase.
        let mut codebase_relative = false;
        element.for_each_attr(&mut |ns, name, _| {
            codebase_relative |= targets::classify(element, ns, name)
                .is_some_and(|row| row.role == Role::CodebaseRelative);
        });
        let codebase = codebase_relative
            .then(|| self.codebase_resolver(element))
            .flatten();
        element.for_each_attr(&mut |ns, name, value| {
            let Some(row) = targets::classify(element, ns, name) else {
                return;
            };
            self.attribute(
                out,
                element,
                chosen_base,
                codebase.as_ref(),
                (ns, name, value),
                row,
            );
        });
    }

    /// One attribute of [`Planner::attributes`] that the table lists (`row`).
    fn attribute(
        &self,
        out: &mut Found,
        element: &impl ElementView,
        chosen_base: Option<NodeId>,
        codebase: Option<&Resolver>,
        (ns, name, value): (AttrNs, &str, &str),
        row: &targets::Row,
    ) {
        let attribute: std::borrow::Cow<'_, str> = match ns {
            AttrNs::XLink => format!("xlink:{name}").into(),
            _ => name.into(),
        };
        if Some(element.id()) == chosen_base && name == "href" {
            self.base_href(out, element, value);
            return;
        }
        if row.kind == Kind::Srcdoc {
            self.srcdoc(out, element, value);
            return;
        }
        let resolver = match row.role {
            Role::CodebaseRelative => codebase.or(self.resolver.as_ref()),
            Role::DocumentRelative => self.document_resolver.as_ref().or(self.resolver.as_ref()),
            _ => self.resolver.as_ref(),
        };
        // A fragment alone in SVG is local, except on the navigation link svg:a.
        let local_fragments = row.role == Role::SvgReference && element.name() != "a";
        let ctx = UrlContext {
            comma_list: row.kind == Kind::CommaList,
            node: element.id(),
            element: element.name(),
            attribute: Some(&attribute),
            role: row.role,
            local_fragments,
            resolver,
        };
        let new = match row.kind {
            Kind::Url => {
                let whole = 0..value.len();
                self.splice(out, &ctx, value, LinkKind::Url, std::iter::once(whole))
            }
            Kind::Srcset => self.splice(
                out,
                &ctx,
                value,
                LinkKind::Srcset,
                srcset::srcset_urls(value),
            ),
            Kind::SpaceList => self.splice(
                out,
                &ctx,
                value,
                LinkKind::List,
                srcset::space_separated_urls(value),
            ),
            Kind::CommaList => self.splice(
                out,
                &ctx,
                value,
                LinkKind::List,
                srcset::comma_separated_urls(value),
            ),
            Kind::Refresh => self.splice(
                out,
                &ctx,
                value,
                LinkKind::Refresh,
                refresh::refresh_url(value),
            ),
            Kind::Css => self.css(out, &ctx, value, css::CssKind::Declarations),
            Kind::Srcdoc => None,
        };
        if let Some(new) = new {
            out.edits.push(Edit {
                node: element.id(),
                target: EditTarget::Attribute {
                    ns,
                    name: name.to_owned(),
                },
                old: value.to_owned(),
                new,
                reason: row.source,
            });
        }
    }

    /// The chosen `<base href>`: made absolute (the established base), or dropped on request.
    fn base_href(&self, out: &mut Found, element: &impl ElementView, value: &str) {
        let applied = self.base.source == BaseSource::BaseElement;
        let resolved = self
            .base
            .uri
            .as_ref()
            .filter(|_| applied)
            .map(|u| u.to_string());
        let mut rewritten = false;
        if self.options.drop_base {
            out.edits.push(Edit {
                node: element.id(),
                target: EditTarget::Remove,
                old: value.to_owned(),
                new: String::new(),
                reason:
                    "dropping the base: the base element is removed; every URL is absolute already",
            });
            rewritten = true;
        } else if let Some(new) = resolved.as_ref().filter(|r| *r != value) {
            out.edits.push(Edit {
                node: element.id(),
                target: EditTarget::Attribute {
                    ns: AttrNs::None,
                    name: "href".to_owned(),
                },
                old: value.to_owned(),
                new: new.clone(),
                reason: "HTML LS §4.2.3: the base element's href, made absolute",
            });
            rewritten = true;
        }
        let diagnostic = (!applied).then(|| {
            Diagnostic::new(
                crate::error::DiagnosticCode::BaseIgnored,
                "this base element's href is not a usable base",
            )
        });
        out.links.push(Link {
            node: element.id(),
            element: "base".to_owned(),
            attribute: Some("href".to_owned()),
            kind: LinkKind::Url,
            original: value.to_owned(),
            resolved,
            same_document: false,
            rewritten,
            diagnostic,
            srcdoc_depth: self.depth,
            // The base this href was resolved against: the layers outside the document.
            base: self.outer_base.uri.as_ref().map(|u| u.to_string()),
            base_source: self.outer_base.source,
            offset: None,
            relinked: None,
        });
    }

    fn codebase_resolver(&self, element: &impl ElementView) -> Option<Resolver> {
        let codebase = element.attr("codebase")?;
        let codebase = codebase.trim_matches(is_ascii_whitespace);
        if codebase.is_empty() {
            return None;
        }
        let absolute = match &self.resolver {
            Some(r) => r.resolve(codebase).ok()?.uri,
            None => codebase.to_owned(),
        };
        Resolver::new(&absolute, self.options.resolve)
            .ok()
            .map(|r| r.with_query_encoding(self.encoding))
    }

    /// Resolves the URLs at `ranges` of `value`; returns the new value when any changed.
    fn splice(
        &self,
        found: &mut Found,
        ctx: &UrlContext<'_>,
        value: &str,
        kind: LinkKind,
        ranges: impl IntoIterator<Item = Range<usize>>,
    ) -> Option<String> {
        let mut out: Option<String> = None;
        let mut copied = 0;
        for range in ranges {
            let Some(raw) = value.get(range.clone()) else {
                continue;
            };
            let mut outcome = self.resolve_value(ctx, raw, false);
            if kind == LinkKind::Refresh {
                // HTML LS §4.2.5.3 step 11.9: a quoted URL ends at its matching quote, so that
                // quote inside the new URL is percent-encoded (else the refresh would stop there).
                let quote = value
                    .get(..range.start)
                    .and_then(|before| before.chars().last())
                    .filter(|&c| c == '\'' || c == '"');
                if let Some(q) = quote {
                    let escaped = if q == '\'' { "%27" } else { "%22" };
                    // Reported as written, as `resolve_value` reports a URI made valid.
                    if outcome.resolved == outcome.replacement {
                        outcome.resolved = outcome.resolved.map(|r| r.replace(q, escaped));
                    }
                    outcome.replacement = outcome.replacement.map(|r| r.replace(q, escaped));
                }
            }
            if matches!(kind, LinkKind::Srcset | LinkKind::List) {
                // Inside a list a space (or, in srcset, a trailing comma) would split the URL.
                outcome.replacement = outcome
                    .replacement
                    .map(|r| escape_list_url(&r, kind, ctx.comma_list));
            }
            let rewritten = outcome.replacement.is_some();
            if let Some(replacement) = &outcome.replacement {
                let o = out.get_or_insert_with(|| String::with_capacity(value.len() + 64));
                o.push_str(value.get(copied..range.start).unwrap_or_default());
                o.push_str(replacement);
                copied = range.end;
            }
            self.record(found, ctx, kind, raw, outcome, rewritten);
        }
        let mut out = out?;
        out.push_str(value.get(copied..).unwrap_or_default());
        Some(out)
    }

    fn css(
        &self,
        out: &mut Found,
        ctx: &UrlContext<'_>,
        text: &str,
        kind: css::CssKind,
    ) -> Option<String> {
        let mut found = Vec::new();
        let new = css::rewrite_css(text, kind, &mut |u| {
            let outcome = self.resolve_value(ctx, &u.value, true);
            let replacement = outcome.replacement.clone();
            let link_kind = if u.import {
                LinkKind::CssImport
            } else {
                LinkKind::Css
            };
            found.push((u.value.to_string(), link_kind, outcome));
            replacement
        });
        for (raw, link_kind, outcome) in found {
            let rewritten = outcome.replacement.is_some();
            self.record(out, ctx, link_kind, &raw, outcome, rewritten);
        }
        new
    }

    /// The CSS of a `<style>` element (`node`): its `url()` and `@import` resolved, and the new
    /// text as an edit when any changed.
    pub(crate) fn style_text(&self, out: &mut Found, node: NodeId, text: String) {
        let ctx = UrlContext {
            comma_list: false,
            node,
            element: "style",
            attribute: None,
            role: Role::Resource,
            local_fragments: true,
            resolver: self.resolver.as_ref(),
        };
        if let Some(new) = self.css(out, &ctx, &text, css::CssKind::Stylesheet) {
            out.edits.push(Edit {
                node,
                target: EditTarget::Text,
                old: text,
                new,
                reason: "docs/html-rules.md §4: url() and @import in a style element",
            });
        }
    }

    /// `iframe srcdoc`: a document of its own whose fallback base is ours (HTML LS §4.8.5).
    fn srcdoc(&self, out: &mut Found, element: &impl ElementView, value: &str) {
        if self.depth >= MAX_NESTING {
            if !value.trim().is_empty() {
                self.nesting_limit(out, element.id(), element.name(), Some("srcdoc"));
            }
            return;
        }
        let outer = Outer {
            base: self.base.clone(),
            document_uri: Uri::parse("about:srcdoc").ok(),
        };
        match (self.nested)(value, &outer, self.options, self.depth + 1) {
            Ok((links, new)) => {
                out.links.extend(links.into_iter().map(|mut l| {
                    // The outer element is where a reader finds it; the inner names stay.
                    l.node = element.id();
                    l
                }));
                if let Some(new) = new {
                    out.edits.push(Edit {
                        node: element.id(),
                        target: EditTarget::Attribute {
                            ns: AttrNs::None,
                            name: "srcdoc".to_owned(),
                        },
                        old: value.to_owned(),
                        new,
                        reason: "HTML LS §4.8.5: the srcdoc document, rewritten",
                    });
                }
            }
            Err(diagnostic) => self.not_followed(
                out,
                element.id(),
                element.name(),
                Some("srcdoc"),
                diagnostic,
            ),
        }
    }

    fn record(
        &self,
        out: &mut Found,
        ctx: &UrlContext<'_>,
        kind: LinkKind,
        raw: &str,
        outcome: Outcome,
        rewritten: bool,
    ) {
        if let Some(counted) = &mut out.counted {
            counted.push(LinkFacts {
                same_document: outcome.same_document,
                resolved: outcome.resolved.is_some(),
                relinked: outcome.relinked,
                profile_sensitive: outcome
                    .diagnostic
                    .as_ref()
                    .is_some_and(|d| d.code == crate::error::DiagnosticCode::ProfileSensitive),
            });
            return;
        }
        out.links.push(Link {
            node: ctx.node,
            element: ctx.element.to_owned(),
            attribute: ctx.attribute.map(str::to_owned),
            kind,
            original: raw.to_owned(),
            resolved: outcome.resolved,
            same_document: outcome.same_document,
            rewritten,
            diagnostic: outcome.diagnostic,
            srcdoc_depth: self.depth,
            base: self.base_text.clone(),
            base_source: self.base.source,
            offset: None,
            relinked: outcome.relinked,
        });
    }
}

/// A URL made safe for a list: ASCII whitespace percent-encoded, commas too in a comma-separated
/// list, and in a srcset a trailing comma (HTML LS "parse a srcset attribute" would drop it).
fn escape_list_url(url: &str, kind: LinkKind, comma_list: bool) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            // In a comma-separated list (applet@archive) a comma would split the URL.
            ',' if comma_list => out.push_str("%2C"),
            '\t' | '\n' | '\x0C' | '\r' | ' ' => out.push_str(&format!("%{:02X}", u32::from(c))),
            c => out.push(c),
        }
    }
    if kind == LinkKind::Srcset && out.ends_with(',') {
        out.pop();
        out.push_str("%2C");
    }
    out
}

/// RFC 2557 §8.2(d): a URI resolved against `thismessage:/` is fictitious, a label for matching
/// parts inside one message; written into the document it would point nowhere, so the
/// reference keeps its relative text.
pub(crate) fn is_fictitious(uri: &str) -> bool {
    uri.get(..12)
        .is_some_and(|s| s.eq_ignore_ascii_case("thismessage:"))
}

/// Where a URL value is, for the record and the rules.
struct UrlContext<'r> {
    node: NodeId,
    /// The value is a comma-separated list (HTML 4.01 `applet@archive`).
    comma_list: bool,
    element: &'r str,
    attribute: Option<&'r str>,
    role: Role,
    local_fragments: bool,
    resolver: Option<&'r Resolver>,
}
