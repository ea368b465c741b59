//! The document commands' flags (`rewrite`, `links`, `base`) and the input and base layers they
//! share.

use clap::{Args, ValueEnum};

use super::resolve::ResolutionArgs;
use super::values::count;

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
