//! `check`'s flags: the tree, its site URL and layout, the report, and `--online`'s requests.

use clap::{Args, ValueEnum};

use super::document::LayoutArg;
use super::resolve::ResolutionArgs;
use super::values::count;

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

/// `check --online`: external links fetched. Every flag here needs --online (or
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
