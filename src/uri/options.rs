//! How to resolve: the profile and its switches, and why a resolution failed.

use std::str::FromStr;

/// Which resolution algorithm to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Profile {
    /// RFC 2396 §5.2, the normative algorithm (default).
    #[default]
    Rfc2396,
    /// RFC 1808 §4: `;params` are a component, `?y` keeps the base path and params, and the empty
    /// reference inherits the whole base, fragment included.
    Rfc1808,
    /// RFC 3986 §5.2: `remove_dot_segments` everywhere, `?y` keeps the base path.
    Rfc3986,
    /// Browser behaviour (WHATWG URL Standard) through the `url` crate: normalises and
    /// percent-encodes as browsers do.
    Whatwg,
}

impl Profile {
    /// Every profile, in the order the CLI lists them.
    pub const ALL: [Profile; 4] = [
        Profile::Rfc2396,
        Profile::Rfc1808,
        Profile::Rfc3986,
        Profile::Whatwg,
    ];

    /// The name used on the command line and in test data.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc2396 => "rfc2396",
            Profile::Rfc1808 => "rfc1808",
            Profile::Rfc3986 => "rfc3986",
            Profile::Whatwg => "whatwg",
        }
    }

    /// Whether this profile leaves leading `..` segments to a [`DotSegments`] policy. RFC 3986 and
    /// WHATWG always remove them, so a policy other than [`DotSegments::Remove`] does not apply.
    pub fn has_dot_segment_choice(self) -> bool {
        matches!(self, Profile::Rfc2396 | Profile::Rfc1808)
    }
}

impl FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unknown profile {s:?} (expected rfc2396, rfc1808, rfc3986 or whatwg)")
            })
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// RFC 2396 §5.2 step 6(g): what to do with `..` segments left at the start of a merged path
/// (more `..` than the base path has levels, as in `../../../g` against `http://a/b/c/d;p?q`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DotSegments {
    /// Keep them: `http://a/../g`, as Appendix C prints (default).
    #[default]
    Keep,
    /// Remove them: `http://a/g`, as RFC 3986 and browsers do.
    Remove,
    /// Refuse the reference with [`ResolveError::AboveRoot`].
    Error,
}

impl FromStr for DotSegments {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "keep" => Ok(DotSegments::Keep),
            "remove" => Ok(DotSegments::Remove),
            "error" => Ok(DotSegments::Error),
            _ => Err(format!(
                "unknown dot-segment policy {s:?} (expected keep, remove or error)"
            )),
        }
    }
}

/// RFC 2396 §5.2 step 3: a reference with the base's own scheme, such as `http:g`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SameScheme {
    /// A reference with a scheme is absolute, whatever the scheme: `http:g` stays `http:g`
    /// (default; the "validating parser" reading).
    #[default]
    Strict,
    /// The backwards-compatible loophole: when the scheme equals the base's and is known to be
    /// hierarchical (http, https, ftp, file, …), drop it and resolve the rest as relative.
    Compat,
}

impl FromStr for SameScheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "strict" => Ok(SameScheme::Strict),
            "compat" => Ok(SameScheme::Compat),
            _ => Err(format!(
                "unknown same-scheme mode {s:?} (expected strict or compat)"
            )),
        }
    }
}

/// How to resolve: the profile and the choices its text leaves open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ResolveOptions {
    /// The algorithm.
    pub profile: Profile,
    /// Step 6(g) policy; `None` means the profile's own (`Keep` for rfc2396 and rfc1808, whose
    /// text leaves the choice open; `Remove` for rfc3986 and whatwg, which define it).
    pub dot_segments: Option<DotSegments>,
    /// Step 3 policy; the RFC profiles honour it, `whatwg` has its own rules (special schemes).
    pub same_scheme: SameScheme,
}

impl ResolveOptions {
    /// The defaults for `profile`.
    pub fn for_profile(profile: Profile) -> ResolveOptions {
        ResolveOptions {
            profile,
            ..ResolveOptions::default()
        }
    }

    /// The step 6(g) policy in force: the explicit one, else the profile's own.
    pub fn dot_segment_policy(&self) -> DotSegments {
        match self.dot_segments {
            Some(policy) => policy,
            None if self.profile.has_dot_segment_choice() => DotSegments::Keep,
            None => DotSegments::Remove,
        }
    }
}

/// Why a reference or a base could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// The base has no scheme (RFC 2396 §5.2 resolves against an absolute base only).
    #[error(
        "base URI {0:?} is not absolute: it has no scheme (RFC 2396 §5.2 needs an absolute base)"
    )]
    RelativeBase(String),
    /// A relative reference against an opaque base such as `mailto:x@y` (RFC 2396 §3, §5.2).
    #[error("cannot resolve the relative reference {reference:?} against {base:?}: the base is not hierarchical (RFC 2396 §3)")]
    OpaqueBase {
        /// The base.
        base: String,
        /// The reference.
        reference: String,
    },
    /// More `..` segments than the base path has levels, under [`DotSegments::Error`].
    #[error("reference {0:?} climbs above the root of the base path (RFC 2396 §5.2 step 6g)")]
    AboveRoot(String),
    /// The WHATWG parser refused the base or the reference.
    #[error("WHATWG URL parser refused {input:?}: {reason}")]
    Whatwg {
        /// What was refused.
        input: String,
        /// The parser's reason.
        reason: String,
    },
    /// A URI given as a base whose authority is malformed (an IP literal host not closed:
    /// `http://[::1`), RFC 2732 §3.
    #[error("{uri:?} has no usable host: {reason} (RFC 2732 §3)")]
    BadAuthority {
        /// The URI.
        uri: String,
        /// What is wrong with its authority.
        reason: &'static str,
    },
    /// A [`DotSegments`] policy was given to a profile that has no such choice.
    #[error("the {0} profile always removes dot segments; a policy to keep or refuse them applies to rfc2396 and rfc1808 only")]
    PolicyNotApplicable(Profile),
}
