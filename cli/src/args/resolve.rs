//! `resolve`'s flags, and the resolution options every command shares.

use clap::{Args, ValueEnum};
use linkbase::{DotSegments, Profile, ResolveOptions, SameScheme};

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The base URI; must be absolute (have a scheme).
    #[arg(long, value_name = "URI", help_heading = "Base")]
    pub base: String,
    #[command(flatten)]
    pub resolution: ResolutionArgs,
    /// The same as --format jsonl (the spelling before --format; kept for scripts, hidden).
    #[arg(long, hide = true)]
    pub json: bool,
    /// text: one resolved URI a line (an empty line when it cannot be resolved); jsonl: one
    /// JSON object per reference, {"ref", "resolved", "same_document", "error"}.
    #[arg(long, value_enum, default_value_t = ResolveFormat::Text, help_heading = "Output")]
    pub format: ResolveFormat,
    /// Write the results here instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    pub output: Option<std::path::PathBuf>,
    /// The references to resolve; read from stdin, one per line, when none are given.
    #[arg(value_name = "REF", allow_hyphen_values = true)]
    pub refs: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ResolveFormat {
    Text,
    Jsonl,
}

/// The resolution options shared by every command.
#[derive(Debug, Args, Clone)]
pub struct ResolutionArgs {
    /// Resolution algorithm.
    #[arg(long, value_enum, default_value_t = ProfileArg::Rfc2396, help_heading = "Resolution")]
    pub profile: ProfileArg,
    /// RFC 2396 §5.2 step 6g: more ".." than the base path has levels [default: keep; rfc3986
    /// and whatwg always remove].
    #[arg(long, value_enum, value_name = "POLICY", help_heading = "Resolution")]
    pub dot_segments: Option<DotSegmentsArg>,
    /// RFC 2396 §5.2 step 3: "http:g" against an http base stays "http:g" (strict) or becomes
    /// relative (compat; hierarchical schemes only).
    #[arg(long, value_enum, default_value_t = SameSchemeArg::Strict, value_name = "MODE", help_heading = "Resolution")]
    pub same_scheme: SameSchemeArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ProfileArg {
    Rfc2396,
    Rfc1808,
    Rfc3986,
    Whatwg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DotSegmentsArg {
    Keep,
    Remove,
    Error,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SameSchemeArg {
    Strict,
    Compat,
}

impl ResolutionArgs {
    pub fn options(&self) -> ResolveOptions {
        ResolveOptions {
            profile: match self.profile {
                ProfileArg::Rfc2396 => Profile::Rfc2396,
                ProfileArg::Rfc1808 => Profile::Rfc1808,
                ProfileArg::Rfc3986 => Profile::Rfc3986,
                ProfileArg::Whatwg => Profile::Whatwg,
            },
            dot_segments: self.dot_segments.map(|d| match d {
                DotSegmentsArg::Keep => DotSegments::Keep,
                DotSegmentsArg::Remove => DotSegments::Remove,
                DotSegmentsArg::Error => DotSegments::Error,
            }),
            same_scheme: match self.same_scheme {
                SameSchemeArg::Strict => SameScheme::Strict,
                SameSchemeArg::Compat => SameScheme::Compat,
            },
        }
    }
}
