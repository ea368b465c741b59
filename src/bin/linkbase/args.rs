//! Command-line arguments (clap), turned into library options in one place.

use clap::{Args, Parser, Subcommand, ValueEnum};
use linkbase::{DotSegments, Profile, ResolveOptions, SameScheme};

/// Find the base URI of a document (RFC 2396 §5.1) and make its relative links absolute (§5.2).
#[derive(Debug, Parser)]
#[command(name = "linkbase", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Resolve references against a base URI, one result per reference.
    ///
    /// References come from the arguments, else one per line from stdin (an empty line is the
    /// empty reference). Exit 0 when all resolved, 1 when some could not be, 2 on bad usage or
    /// an unusable base.
    Resolve(ResolveArgs),
}

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The base URI; must be absolute (have a scheme).
    #[arg(long, value_name = "URI")]
    pub base: String,
    #[command(flatten)]
    pub resolution: ResolutionArgs,
    /// Print one JSON object per reference: {"ref", "resolved", "same_document", "error"}.
    #[arg(long)]
    pub json: bool,
    /// The references to resolve; read from stdin, one per line, when none are given.
    #[arg(value_name = "REF", allow_hyphen_values = true)]
    pub refs: Vec<String>,
}

/// The resolution options shared by every command.
#[derive(Debug, Args, Clone)]
pub struct ResolutionArgs {
    /// Resolution algorithm.
    #[arg(long, value_enum, default_value_t = ProfileArg::Rfc2396)]
    pub profile: ProfileArg,
    /// RFC 2396 §5.2 step 6g: more ".." than the base path has levels [default: keep; rfc3986
    /// and whatwg always remove].
    #[arg(long, value_enum, value_name = "POLICY")]
    pub dot_segments: Option<DotSegmentsArg>,
    /// RFC 2396 §5.2 step 3: "http:g" against an http base stays "http:g" (strict) or becomes
    /// relative (compat; hierarchical schemes only).
    #[arg(long, value_enum, default_value_t = SameSchemeArg::Strict, value_name = "MODE")]
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
