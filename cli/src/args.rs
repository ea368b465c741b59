//! Command-line arguments (clap), turned into library options in one place.

use clap::{Args, Parser, Subcommand};

/// Find the base URI of a document (RFC 2396 §5.1) and make its relative links absolute (§5.2).
#[derive(Debug, Parser)]
#[command(
    name = "linkbase",
    version,
    about,
    max_term_width = 100,
    after_help = EXAMPLES_TOP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The command line of this process. clap builds every subcommand's arguments to parse any
    /// of them, a third of the start-up of `linkbase rewrite` on a small page, and scripts run
    /// it once per page: when the first argument names a subcommand with arguments, only that
    /// one is built. Help, `--version` and every error go through the whole parser, so what a
    /// user sees does not change; [`Cli::parse_one`] yields what the whole parser would.
    pub fn from_env() -> Cli {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        if args.get(1).and_then(|a| a.to_str()) == Some("check") {
            return Cli::check_with_config(&args).unwrap_or_else(|| Cli::parse_from(args));
        }
        Cli::parse_one(&args).unwrap_or_else(|| Cli::parse_from(args))
    }

    /// `check`'s command line, parsed alone and told which flags it gave
    /// ([`CheckArgs::given`]), so that its settings file can be merged in under it
    /// (`crate::config`); `None` for anything the whole parser must answer (help, errors).
    fn check_with_config(args: &[std::ffi::OsString]) -> Option<Cli> {
        use clap::{Command as C, FromArgMatches};
        let matches = C::new("linkbase")
            .subcommand(CheckArgs::augment_args(C::new("check")))
            .try_get_matches_from(args)
            .ok()?;
        let (_, sub) = matches.subcommand()?;
        let mut check = CheckArgs::from_arg_matches(sub).ok()?;
        check.given = sub
            .ids()
            .filter(|id| {
                sub.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
            })
            .map(|id| id.as_str().to_owned())
            .collect();
        Some(Cli {
            command: Command::Check(Box::new(check)),
        })
    }

    /// `args` parsed with the named subcommand's arguments alone; `None` for anything the whole
    /// parser must answer (help, version, errors, other subcommands).
    pub fn parse_one(args: &[std::ffi::OsString]) -> Option<Cli> {
        use clap::{Command as C, FromArgMatches};
        let sub = match args.get(1)?.to_str()? {
            "rewrite" => RewriteArgs::augment_args(C::new("rewrite")),
            "links" => LinksArgs::augment_args(C::new("links")),
            "base" => BaseArgs::augment_args(C::new("base")),
            "resolve" => ResolveArgs::augment_args(C::new("resolve")),
            "check" => CheckArgs::augment_args(C::new("check")),
            _ => return None,
        };
        let matches = C::new("linkbase")
            .subcommand(sub)
            .try_get_matches_from(args)
            .ok()?;
        Cli::from_arg_matches(&matches).ok()
    }
}

/// The EXAMPLES block of each command's help (`after_help`) and manual page: short, real
/// commands. The first line is the heading; the manual renders the rest.
pub const EXAMPLES_TOP: &str = "\
Examples:
  linkbase rewrite page.html --url https://example.com/docs/page.html -o out.html
  linkbase links page.html --url https://example.com/docs/ --format tsv
  linkbase check public/ --site-url https://example.com/
  linkbase man | man -l -";

pub const EXAMPLES_RESOLVE: &str = "\
Examples:
  linkbase resolve --base 'http://a/b/c/d;p?q' ../g '?y' '#s'
  printf '../x\\n#top\\n' | linkbase resolve --base https://example.com/a/b --format jsonl
  linkbase resolve --base http://a/b/c --profile whatwg ../../../g";

pub const EXAMPLES_REWRITE: &str = "\
Examples:
  linkbase rewrite page.html --url https://example.com/docs/page.html -o out.html
  linkbase rewrite page.html --headers head.txt --url https://example.com/ --in-place
  linkbase rewrite saved.mhtml -o absolute.mhtml
  linkbase rewrite public/ --site-url https://example.com/ -o absolute/
  linkbase rewrite public/ --site-url https://example.com/ --relative -o mirror/
  linkbase rewrite crawl.warc.gz -o rewritten.warc.gz";

pub const EXAMPLES_LINKS: &str = "\
Examples:
  linkbase links page.html --url https://example.com/docs/ --format tsv
  linkbase links message.eml -o links.jsonl
  linkbase links crawl.warc.gz | jq -r .resolved";

pub const EXAMPLES_BASE: &str = "\
Examples:
  linkbase base page.html --url https://example.com/a/ --format text
  linkbase base saved.mhtml --root
  curl -s https://example.com/ | linkbase base --url https://example.com/";

pub const EXAMPLES_CHECK: &str = "\
Examples:
  linkbase check public/ --site-url https://example.com/
  linkbase check mirror/ --local --format markdown -o report.md
  linkbase check public/ --site-url https://example.com/ --online --cache --accept 200..=299,429
  linkbase check public/ --site-url https://example.com/ --exclude '/api/' --format junit -o j.xml";

pub const EXAMPLES_COMPLETIONS: &str = "\
Examples:
  linkbase completions bash > ~/.local/share/bash-completion/completions/linkbase
  linkbase completions zsh > ~/.zfunc/_linkbase";

pub const EXAMPLES_MAN: &str = "\
Examples:
  linkbase man | man -l -
  linkbase man rewrite | man -l -
  linkbase man --dir /usr/local/share/man/man1";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Resolve references against a base URI, one result per reference.
    ///
    /// References come from the arguments, else one per line from stdin (an empty line is the
    /// empty reference). Exit 0 when all resolved, 1 when some could not be, 2 on bad usage or
    /// an unusable base.
    #[command(after_help = EXAMPLES_RESOLVE)]
    Resolve(ResolveArgs),
    /// Rewrite every relative URL of a document to absolute form, keeping everything else.
    ///
    /// Writes the result to stdout, to -o FILE, or back to INPUT with --in-place (through a
    /// temporary file renamed on success: the original is untouched on any error).
    /// Exit 0 on success, 2 on unusable input or bad usage (nothing is written). For a directory:
    /// 1 when some files could not be rewritten (copied unchanged into OUTDIR, or left as they
    /// were in place).
    #[command(after_help = EXAMPLES_REWRITE)]
    Rewrite(RewriteArgs),
    /// List every URL occurrence with its resolution and the base it was resolved against.
    #[command(after_help = EXAMPLES_LINKS)]
    Links(LinksArgs),
    /// Print the established base URI and the RFC 2396 §5.1 layer that supplied it.
    #[command(after_help = EXAMPLES_BASE)]
    Base(BaseArgs),
    /// Check every link of a site tree: internal targets must exist (a directory means its
    /// index.html) and #fragments must name an id; external links are listed, not fetched,
    /// unless --online.
    ///
    /// The links are those of its pages (*.html, *.htm, *.xhtml, *.shtml) and the url() and
    /// @import references of its stylesheets (*.css), each at file:line:column. A tree with
    /// neither, or a --site-url with no host, is an error: nothing checked is never all clear.
    /// --index-files and --fallback-extensions say what a link to a directory or to a pretty URL
    /// (/about for about.html) names.
    ///
    /// With --online, every distinct external http(s) URL is requested once (concurrently,
    /// within per-host and global limits) and must answer an accepted status, its #fragment an
    /// id of the remote page; mailto: and tel: are checked by syntax; --cache keeps verdicts
    /// for reruns.
    ///
    /// Under --local, /-rooted links start from DIR (the web root; --root-dir to choose it). The
    /// summary counts the links not checked, and why (external, outside the tree, another
    /// scheme, unresolvable, a remote fragment that could not be looked up, --max-time), so a
    /// run that checked nothing never reads as all clear.
    ///
    /// The checked tree is data, not commands (a CI job may check a pull request's tree): its
    /// pages, DIR/linkbase.toml and DIR/.linkbaseignore are read only as regular files inside
    /// DIR, at most 1 MiB each, never through a symbolic link; the tree's linkbase.toml cannot
    /// set allow_private, insecure or cacert (a file given with --config can), and every path a
    /// settings file names stays inside that file's directory. No request goes to a loopback,
    /// private, link-local or other non-global address (judged on each address a name resolves
    /// to, and on every redirect) without --allow-private: such links are excluded, and said.
    /// Flags on the command line win over any settings file.
    ///
    /// Exit 0 when nothing is broken, 1 when links are broken (missing file, missing fragment,
    /// outside the site root; with --online, an external link answering a status not accepted,
    /// unreachable, or a malformed address) or, with --fail-on-unchecked, when any link was not
    /// checked, 2 when files could not be read or parsed, when there was nothing to check, or on
    /// bad usage.
    #[command(after_help = EXAMPLES_CHECK)]
    Check(Box<CheckArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    #[command(after_help = EXAMPLES_COMPLETIONS)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual (roff): linkbase(1), or one command's page; with --dir, write them all.
    ///
    /// Without arguments: linkbase(1), the overview with EXIT STATUS and FILES, to stdout. With
    /// COMMAND: linkbase-COMMAND(1). With --dir DIR: linkbase.1 and a linkbase-COMMAND.1 for
    /// every command, written into DIR (created if missing), each path printed.
    #[command(after_help = EXAMPLES_MAN)]
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (rewrite, links, base, resolve, check, completions, man).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,
    /// Write every page into this directory instead of printing one.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

mod check;
mod document;
mod resolve;
mod values;

pub use check::{CheckArgs, CheckFormat, OnlineArgs};
pub use document::{
    BaseArgs, BaseFormat, EngineArg, HeaderBaseArg, InputArgs, LayoutArg, LinksArgs, LinksFormat,
    RewriteArgs, Switch,
};
pub use resolve::{ResolveArgs, ResolveFormat};
pub use values::count;

#[cfg(test)]
mod tests;
