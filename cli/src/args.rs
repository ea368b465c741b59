//! Command-line arguments (clap), turned into library options in one place.

use clap::{Args, Parser, Subcommand, ValueEnum};
use linkbase::{DotSegments, Profile, ResolveOptions, SameScheme};

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

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The site's root directory.
    #[arg(value_name = "DIR")]
    pub dir: std::path::PathBuf,
    /// The URL the root is published at; each file's URL is this joined with its path.
    /// Needed unless --local (or site_url or local in a settings file).
    #[arg(long, value_name = "URL", help_heading = "Site")]
    pub site_url: Option<String>,
    /// Check the tree as it browses from disk: each page at its own file: URL (an offline
    /// mirror made by `rewrite DIR --relative`); absolute http(s) links are external. DIR is the
    /// web root /-rooted links start from (/docs/x.html is DIR/docs/x.html), as a server has it;
    /// --root-dir chooses another.
    #[arg(long, conflicts_with = "site_url", help_heading = "Site")]
    pub local: bool,
    /// How the tree names the file of a URL: wget keeps a link's query in the file name
    /// (page.html?x=1, or page.html@x=1 with --restrict-file-names=windows) and -E appends
    /// .html or .css (sub.php.html, s.css?v=1.css); plain reads the query as the server's;
    /// httrack reads HTTrack's index (hts-cache/new.txt). auto: wget's when a name holds a `?`
    /// or ends like x.php.html, HTTrack's beside its index (said on stderr). With --extract:
    /// the names written (auto: wget's with -E; plain: the path alone; httrack: page681a.html).
    #[arg(long, value_enum, default_value_t = LayoutArg::Auto, help_heading = "Site")]
    pub layout: LayoutArg,
    /// human: broken targets, each with the links to it, and a summary; json: the same as one
    /// object; markdown: a table (for CI job summaries, PR comments); junit: JUnit XML, a test
    /// case per broken target (file and line: its first link); github: a GitHub Actions
    /// ::error annotation per broken link (file, line, col); sarif: a SARIF 2.1.0 log for
    /// code-scanning views; jsonl / tsv: every link with its verdict, for tools.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human, help_heading = "Output")]
    pub format: CheckFormat,
    /// Write the report here instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    pub output: Option<std::path::PathBuf>,
    /// Leave links whose URL (resolved, else as written; with --online also as requested, and
    /// every redirect's target) matches this regular expression unchecked (repeatable).
    /// DIR/.linkbaseignore adds one pattern a line (# comments).
    #[arg(long, value_name = "REGEX", help_heading = "Filters")]
    pub exclude: Vec<String>,
    /// Check links matching this regular expression even when an exclude pattern matches
    /// (repeatable).
    #[arg(long, value_name = "REGEX", help_heading = "Filters")]
    pub include: Vec<String>,
    /// Do not check the links of the pages (and stylesheets) whose path below DIR matches this
    /// glob (repeatable; `drafts/**`, `**/*.print.html`; `*` stays within a directory). They
    /// remain link targets, with their ids.
    #[arg(long, value_name = "GLOB", help_heading = "Filters")]
    pub exclude_path: Vec<String>,
    /// 'PREFIX TARGET': check links whose resolved URL starts with PREFIX as if it were
    /// TARGET: a URL prefix, or a directory (a path) inside DIR (repeatable; the first match
    /// applies).
    #[arg(long, value_name = "PREFIX TARGET", help_heading = "Filters")]
    pub remap: Vec<String>,
    /// Worker threads (default: every core; at most 256).
    #[arg(long, short = 'j', value_name = "N", value_parser = count::<0, 256>, help_heading = "Site")]
    pub jobs: Option<usize>,
    /// With --local: the web root that /-rooted links (`<a href="/docs/x.html">`) start from
    /// [default: DIR]. /docs/x.html names ROOT/docs/x.html, checked like any internal link when
    /// it lies in DIR, counted as not checked (outside the tree) when it does not. A file: URL
    /// outside ROOT is read the same way, as a server would serve it, except one beside ROOT on
    /// disk (in ROOT's top directory, where a relative ../ out of ROOT lands): outside-root.
    #[arg(
        long,
        value_name = "ROOT",
        conflicts_with = "site_url",
        help_heading = "Site"
    )]
    pub root_dir: Option<std::path::PathBuf>,
    /// What a link to a directory names, comma-separated: the first of these files the
    /// directory has (index.html,README.md), `.` for the directory itself (it has no ids); a
    /// directory with none is missing. '' (no name): every link to a directory is missing, each
    /// must name a file. As lychee's --index-files; a name stays below the directory
    /// [default: index.html].
    #[arg(
        long,
        value_name = "NAME,...",
        value_delimiter = ',',
        help_heading = "Site"
    )]
    pub index_files: Option<Vec<String>>,
    /// Pretty URLs: a link to a file the tree does not have (/about) names the first of
    /// NAME.EXT it has (about.html), extensions tried in order, comma-separated (html,htm);
    /// also a directory the index files do not settle, or one the tree does not have (/about/).
    /// As lychee's --fallback-extensions, except that the extension is appended (v1.2 looks
    /// for v1.2.html, not v1.html).
    #[arg(
        long,
        value_name = "EXT,...",
        value_delimiter = ',',
        help_heading = "Site"
    )]
    pub fallback_extensions: Vec<String>,
    /// The encoding of pages that declare none (no byte order mark or <meta> charset) instead
    /// of HTML's windows-1252 default, e.g. utf-8 (a WHATWG label). Never overrides a
    /// declaration. Also spelled --charset here (files have no transport charset).
    #[arg(
        long,
        value_name = "LABEL",
        visible_alias = "charset",
        help_heading = "Input"
    )]
    pub default_charset: Option<String>,
    /// Exit 1 when any link was not checked (external without --online, outside the tree, an
    /// unsupported scheme, unresolvable, a remote fragment that could not be looked up, past
    /// --max-time), as for a broken one. Excluded links do not count.
    #[arg(long, help_heading = "Output")]
    pub fail_on_unchecked: bool,
    /// With `--format jsonl` or `tsv`: only the records of broken links (the grouped formats
    /// list only broken targets already). The summary still counts every link.
    #[arg(long, help_heading = "Output")]
    pub broken_only: bool,
    /// Read settings from this TOML file instead of DIR/linkbase.toml (read when present, as a
    /// regular file of at most 1 MiB): each key a flag of this command (site_url, format,
    /// exclude, remap, …; the online ones in an [online] table, `enabled = true` for --online).
    /// Flags on the command line win. Paths in a file are relative to its directory and must
    /// stay inside it. Only a file named here may set allow_private, insecure or cacert.
    #[arg(long, value_name = "FILE", help_heading = "Site")]
    pub config: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub online: OnlineArgs,
    #[command(flatten)]
    pub resolution: ResolutionArgs,
    /// The flags the command line gave (clap ids): a settings file fills only the others.
    #[arg(skip)]
    pub given: Vec<String>,
}

/// A count within bounds, for flags whose value a settings file may also give: the same bound
/// from either (`-j 100000` would start 100,000 threads).
pub fn count<const MIN: usize, const MAX: usize>(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if n < MIN {
        return Err(format!("must be at least {MIN}"));
    }
    if n > MAX {
        return Err(format!("at most {MAX}"));
    }
    Ok(n)
}

/// `check --online`: external links fetched (issue 25). Every flag here needs --online (or
/// `enabled = true` in a settings file's [online] table).
#[derive(Debug, Args)]
pub struct OnlineArgs {
    /// Check external links too: every distinct http(s) URL of the run once (HEAD, then GET
    /// where HEAD is refused; GET when a #fragment must be found in the page), redirects
    /// followed; mailto: and tel: by syntax. --exclude, .linkbaseignore and --remap apply
    /// first: an excluded link is never requested. Proxies come from ALL_PROXY, HTTPS_PROXY,
    /// HTTP_PROXY (the first set serves every scheme) and NO_PROXY.
    #[arg(long, help_heading = "Online")]
    pub online: bool,
    /// The statuses that make a link ok: codes and ranges, comma-separated (`200..=299,403`;
    /// `200..300` excludes 300). Judged on the last answer of a redirect chain.
    #[arg(
        long,
        value_name = "CODES",
        default_value = "200..=299",
        help_heading = "Online"
    )]
    pub accept: String,
    /// The most one request may take, from connecting to the last byte of the body (a server
    /// that trickles its answer included), e.g. 20s, 500ms (at most 10m). A request that timed
    /// out is retried (--max-retries).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "20s",
        help_heading = "Online"
    )]
    pub timeout: String,
    /// The most the whole run may take, e.g. 10m: requests not made or not finished by then
    /// end, and their links are not-checked (counted, and failing --fail-on-unchecked)
    /// [default: no limit].
    #[arg(long, value_name = "DURATION", help_heading = "Online")]
    pub max_time: Option<String>,
    /// Retries of a request answered 429, 500, 502, 503 or 504, or timed out (at most 10).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 3,
        value_parser = count::<0, 10>,
        help_heading = "Online"
    )]
    pub max_retries: usize,
    /// The wait before the first retry, doubled for each next one (at most 60s); a
    /// Retry-After header replaces it (up to 60 s: a longer one ends the retries, and the
    /// status stands).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "1s",
        help_heading = "Online"
    )]
    pub retry_wait: String,
    /// Redirects followed from one URL (at most 50); more is reported as unreachable, as is a
    /// loop.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10,
        value_parser = count::<0, 50>,
        help_heading = "Online"
    )]
    pub max_redirects: usize,
    /// Requests in flight at once, over all hosts (at most 256).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 64,
        value_parser = count::<1, 256>,
        help_heading = "Online"
    )]
    pub max_concurrency: usize,
    /// Requests in flight at once to one host: its name and port as a browser reads the URL
    /// (at most 256).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 8,
        value_parser = count::<1, 256>,
        help_heading = "Online"
    )]
    pub host_concurrency: usize,
    /// The least time between the starts of two requests to one host (a rate limit: 100ms is
    /// at most 10 a second; at most 60s) [default: none].
    #[arg(long, value_name = "DURATION", help_heading = "Online")]
    pub host_interval: Option<String>,
    /// Request loopback, private, link-local and other addresses that are not globally
    /// reachable too (127.0.0.1, 10.0.0.0/8, 169.254.169.254, fd00::/8, localhost, …). Without
    /// it, a link or a redirect to such an address, or to a name that resolves only to such
    /// addresses, is excluded (the reason names the address) and never requested.
    #[arg(long, help_heading = "Online")]
    pub allow_private: bool,
    /// Accept any certificate from an https server (self-signed, expired, issued for another
    /// name), as lychee's --insecure: the link is judged by its status alone.
    #[arg(long, help_heading = "Online")]
    pub insecure: bool,
    /// Verify https servers against the CA certificates in this PEM file instead of the bundled
    /// Mozilla roots (as curl's --cacert). To keep the public roots too, give a file that holds
    /// them as well, e.g. /etc/ssl/certs/ca-certificates.crt with your CA appended.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "insecure",
        help_heading = "Online"
    )]
    pub cacert: Option<std::path::PathBuf>,
    /// The User-Agent header of every request [default: linkbase/VERSION].
    #[arg(long, value_name = "UA", help_heading = "Online")]
    pub user_agent: Option<String>,
    /// 'HOST: NAME: VALUE': send this header to HOST only (host, host:port, or *.domain for
    /// its subdomains; repeatable), e.g. 'api.example.com: Authorization: Bearer TOKEN'.
    /// Never sent to another host, redirects included, nor with a link whose host a browser
    /// and RFC 3986 read differently.
    #[arg(
        long = "header",
        value_name = "HOST: NAME: VALUE",
        help_heading = "Online"
    )]
    pub headers: Vec<String>,
    /// Keep verdicts in a cache file and make no request for a URL checked within
    /// --max-cache-age: DIR/.linkbase-cache.json, or --cache=FILE. Plain JSON, sorted; safe
    /// to commit or to keep in a CI cache. It keeps the URLs of the last run; errors and
    /// 429/5xx answers are not kept.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 0..=1,
        require_equals = true,
        help_heading = "Online"
    )]
    pub cache: Option<Option<std::path::PathBuf>>,
    /// How old a cached verdict may be to be used, e.g. 1d, 12h, 30m (older ones are checked
    /// again and dropped from the file).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "1d",
        help_heading = "Online"
    )]
    pub max_cache_age: String,
    /// A cache named by a settings file: the directory its path is confined to (set by the
    /// merge, never on the command line).
    #[arg(skip)]
    pub cache_below: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum CheckFormat {
    Human,
    Json,
    Markdown,
    Junit,
    Jsonl,
    Tsv,
    /// GitHub Actions workflow commands: an `::error file=…,line=…,col=…::` annotation per
    /// broken link.
    Github,
    /// A SARIF 2.1.0 log, for code-scanning views.
    Sarif,
}

#[derive(Debug, Args)]
pub struct RewriteArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write the result here instead of stdout.
    #[arg(
        short = 'o',
        long,
        value_name = "FILE",
        conflicts_with = "in_place",
        help_heading = "Output"
    )]
    pub output: Option<std::path::PathBuf>,
    /// Replace INPUT with the result (temporary file, then rename).
    #[arg(long, help_heading = "Output")]
    pub in_place: bool,
    /// Encode the output in this encoding (a WHATWG label) instead of the document's own;
    /// <meta charset> declarations follow.
    #[arg(long, value_name = "LABEL", help_heading = "Output")]
    pub output_charset: Option<String>,
    /// With a WARC file as INPUT: write each archived page (2xx responses and resources),
    /// rewritten, and every other 2xx record (stylesheets with their url() rewritten, scripts,
    /// images, fonts as they are), under DIR as wget -E names its files (DIR/host/path, the
    /// query kept in the name, .html and .css ensured, a directory's page as index.html; see
    /// --layout), instead of an archive with conversion records. Links
    /// to a redirect whose target is extracted lead to the target. Two URLs never share a file:
    /// one whose name is taken (by another URL, or as a directory; compared ignoring case) gets
    /// ~2, ~3 before the extension, and is said. With a MIME message (.eml, .mht): its page
    /// (the root HTML part) and every part it references as files, cid: and Content-Location
    /// references made relative paths to them, so the page opens from file:// with its images
    /// (DIR/host/path for a part whose Content-Location has a host, else DIR/message/NAME);
    /// parts nothing references are named, not written. With an mbox: each message's page so
    /// below DIR/N, N its place in the mbox from 0.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["output", "in_place"], help_heading = "Output")]
    pub extract: Option<std::path::PathBuf>,
    /// Remove the <base> element instead of making its href absolute.
    #[arg(long, help_heading = "Output")]
    pub drop_base: bool,
    /// With a directory INPUT: the URL the directory is published at. Each file's URL is this
    /// joined with its path; HTML and MIME files are rewritten, others copied to -o OUTDIR.
    #[arg(long, value_name = "URL", help_heading = "Site")]
    pub site_url: Option<String>,
    /// An offline mirror: a link to a file of the tree (by --site-url, as check maps URLs to
    /// files) becomes the shortest relative path to it, every other link absolute; <base>
    /// elements are removed. For a single INPUT, --root DIR names the tree it belongs to.
    /// With a WARC file and --extract DIR: links between extracted pages become relative.
    #[arg(long, help_heading = "Site")]
    pub relative: bool,
    /// With a directory INPUT and -o OUTDIR: a symbolic link to a file outside the tree is
    /// copied into OUTDIR as a file (a portable mirror: it survives a move) instead of being
    /// recreated as a link to the same file. Off by default: nothing outside the tree is read.
    #[arg(long, requires = "output", help_heading = "Site")]
    pub copy_outside_links: bool,
    /// With --relative and a single INPUT: the root of the tree INPUT is a page of.
    #[arg(long, value_name = "DIR", requires = "relative", help_heading = "Site")]
    pub root: Option<std::path::PathBuf>,
    /// How the tree names the file of a URL: wget keeps a link's query in the file name
    /// (page.html?x=1, or page.html@x=1 with --restrict-file-names=windows) and -E appends
    /// .html or .css (sub.php.html, s.css?v=1.css); plain reads the query as the server's;
    /// httrack reads HTTrack's index (hts-cache/new.txt). auto: wget's when a name holds a `?`
    /// or ends like x.php.html, HTTrack's beside its index (said on stderr).
    #[arg(long, value_enum, default_value_t = LayoutArg::Auto, help_heading = "Site")]
    pub layout: LayoutArg,
    /// Worker threads for a directory (default: every core; at most 256).
    #[arg(long, short = 'j', value_name = "N", value_parser = count::<0, 256>, help_heading = "Site")]
    pub jobs: Option<usize>,
    /// Exit 1 when any link of an HTML document was left relative or unresolvable (a one-line
    /// summary on stderr says so either way). Exit codes: 0 done, 1 links left unresolved with
    /// this flag (or, for a directory, files left unchanged), 2 bad usage or unusable input.
    #[arg(long, help_heading = "Exit status")]
    pub fail_on_unresolved: bool,
}

#[derive(Debug, Args)]
pub struct LinksArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: JSON Lines (one object per link) or tab-separated values with a header.
    #[arg(long, value_enum, default_value_t = LinksFormat::Jsonl, help_heading = "Output")]
    pub format: LinksFormat,
    /// Write the records here instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    pub output: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct BaseArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: a JSON object per document, or "BASE<TAB>SOURCE" text.
    #[arg(long, value_enum, default_value_t = BaseFormat::Jsonl, help_heading = "Output")]
    pub format: BaseFormat,
    /// Write the records here instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    pub output: Option<std::path::PathBuf>,
    /// For a MIME/MHTML message, print only the root document's base (RFC 2557 §5: the `start`
    /// part of multipart/related, else its first part). A bare HTML document is its own root.
    #[arg(long, help_heading = "Output")]
    pub root: bool,
}

/// `--layout`: how a tree names the file of a URL (`linkbase::layout::Layout`).
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Default)]
pub enum LayoutArg {
    /// wget's where the names say so (a `?` in a name, `x.php.html`), HTTrack's where an
    /// hts-cache/ directory is at the root, else plain.
    #[default]
    Auto,
    /// A server's tree: a link's query is not part of the file name.
    Plain,
    /// wget's names: the query kept in the name (`?`, or `@` with
    /// --restrict-file-names=windows), -E's .html and .css, names percent-decoded.
    Wget,
    /// HTTrack's tree (read as plain for now).
    Httrack,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Switch {
    On,
    Off,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LinksFormat {
    Jsonl,
    Tsv,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum BaseFormat {
    Jsonl,
    Text,
}

/// The input and its base layers (RFC 2396 §5.1), shared by rewrite, links and base.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The document: a path, or - for stdin.
    #[arg(value_name = "INPUT", default_value = "-")]
    pub input: String,
    /// §5.1.3 the URI the document was retrieved from (after redirects).
    #[arg(long, value_name = "URI", help_heading = "Base")]
    pub url: Option<String>,
    /// §5.1.2 Content-Base of the encapsulating entity.
    #[arg(long, value_name = "URI", help_heading = "Base")]
    pub content_base: Option<String>,
    /// §5.1.2 Content-Location of the encapsulating entity (may be relative: resolved against
    /// --url, then --default-base).
    #[arg(long, value_name = "URI", help_heading = "Base")]
    pub content_location: Option<String>,
    /// A header field of the encapsulating entity, "Name: value" (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "Base")]
    pub headers: Vec<String>,
    /// A raw HTTP response or MIME header block (e.g. from curl -D or wget -S; the last
    /// response of a redirect chain counts).
    #[arg(long = "headers", value_name = "FILE", help_heading = "Base")]
    pub headers_file: Option<std::path::PathBuf>,
    /// Whether Content-Base / Content-Location from --header/--headers set the base: entity
    /// (RFC 2396 §5.1.2, RFC 2068/2616, MHTML) or browser (RFC 7231 §3.1.4.2: they do not).
    /// --content-base and --content-location always count.
    #[arg(long, value_enum, default_value_t = HeaderBaseArg::Entity, value_name = "MODE", help_heading = "Base")]
    pub header_base: HeaderBaseArg,
    /// §5.1.4 the application default base, used when no other layer gives one.
    #[arg(long, value_name = "URI", help_heading = "Base")]
    pub default_base: Option<String>,
    /// The transport charset (a WHATWG label); overrides a Content-Type charset from headers
    /// and the document's <meta> (only a byte order mark wins over it).
    #[arg(long, value_name = "LABEL", help_heading = "Input")]
    pub charset: Option<String>,
    /// The encoding of a document that declares none (no byte order mark, transport charset or
    /// <meta> charset), instead of HTML's windows-1252 default: e.g. utf-8 for a static site
    /// whose pages do not say. Never overrides a declaration (--charset does).
    #[arg(long, value_name = "LABEL", help_heading = "Input")]
    pub default_charset: Option<String>,
    /// URLs inside downlevel-hidden conditional comments (`<!--[if mso]> … <![endif]-->`), which
    /// Outlook renders and browsers ignore: rewritten and reported (kind conditional-comment).
    /// Default: on for MIME messages (e-mail), off for web pages.
    #[arg(long, value_enum, value_name = "ON|OFF", help_heading = "Input")]
    pub conditional_comments: Option<Switch>,
    /// auto: the streaming engine (only URL bytes change), handing the rare document it cannot
    /// settle exactly to the DOM engine (a `dom-engine` diagnostic says why); dom: parse every
    /// document into a tree (the reference the streaming engine is tested against).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto, value_name = "ENGINE", help_heading = "Input")]
    pub engine: EngineArg,
    /// Documents larger than this many bytes are streamed: read twice (stdin is spooled to a
    /// temporary file first), written as they are read, in memory that does not grow with them.
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20, hide = true)]
    pub stream_threshold: u64,
    #[command(flatten)]
    pub resolution: ResolutionArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EngineArg {
    Auto,
    Dom,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum HeaderBaseArg {
    Entity,
    Browser,
}

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

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;
    use clap::Parser;

    fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
        args.iter().map(Into::into).collect()
    }

    #[test]
    fn one_subcommand_parses_as_the_whole_parser_does() {
        let lines: [&[&str]; 13] = [
            &["linkbase", "rewrite", "--url", "http://h/", "page.html"],
            &[
                "linkbase",
                "rewrite",
                "-",
                "--drop-base",
                "--profile",
                "whatwg",
                "-o",
                "out",
            ],
            &[
                "linkbase",
                "rewrite",
                "site",
                "--site-url",
                "http://h/",
                "--relative",
                "-j",
                "2",
            ],
            &[
                "linkbase",
                "links",
                "--format",
                "tsv",
                "--charset",
                "koi8-r",
                "--header",
                "A: b",
            ],
            &[
                "linkbase",
                "links",
                "--same-scheme",
                "compat",
                "--dot-segments",
                "keep",
                "x",
            ],
            &[
                "linkbase",
                "base",
                "--content-location",
                "http://h/x",
                "--engine",
                "dom",
            ],
            &[
                "linkbase",
                "resolve",
                "--base",
                "http://a/b/c",
                "../g",
                "-x",
                "?y",
            ],
            &[
                "linkbase",
                "check",
                "site",
                "--site-url",
                "http://h/",
                "--exclude",
                "^x",
            ],
            &["linkbase", "check", "site", "--local", "--format", "json"],
            &[
                "linkbase",
                "check",
                "site",
                "--local",
                "--root-dir",
                ".",
                "--charset",
                "utf-8",
                "--fail-on-unchecked",
            ],
            &["linkbase", "links", "--default-charset", "utf-8", "x"],
            &[
                "linkbase",
                "check",
                "site",
                "--local",
                "--online",
                "--cache",
                "--accept",
                "200..=299,403",
                "--header",
                "h: A: b",
                "--host-interval",
                "10ms",
            ],
            &[
                "linkbase",
                "check",
                "--online",
                "--cache=c.json",
                "--max-cache-age",
                "12h",
                "site",
                "--local",
            ],
        ];
        for args in lines {
            let one = Cli::parse_one(&os(args)).unwrap_or_else(|| panic!("{args:?}"));
            let whole = Cli::try_parse_from(os(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert_eq!(format!("{one:?}"), format!("{whole:?}"), "{args:?}");
        }
    }

    #[test]
    fn help_version_and_errors_go_to_the_whole_parser() {
        let lines: [&[&str]; 7] = [
            &["linkbase", "rewrite", "--help"],
            &["linkbase", "links", "-h"],
            &["linkbase", "--version"],
            &["linkbase", "rewrite", "--no-such-flag"],
            &["linkbase", "check"],
            &["linkbase", "man"],
            &["linkbase"],
        ];
        for args in lines {
            assert!(Cli::parse_one(&os(args)).is_none(), "{args:?}");
        }
    }
}
