//! One input opened through the library's door (`linkbase::source::open`): its bytes (stdin
//! spooled to a temporary file past the stream threshold), the base layers and header fields
//! the options give; and the library options the command asks for.

use std::io::{self, Read, Write};

use linkbase::pipeline::{self, Options};
use linkbase::source::{Content, Input, Source};
use linkbase::{BaseLayers, HeaderBase, Headers, RewriteOptions};

use crate::args::{self, HeaderBaseArg, InputArgs};
use crate::Fatal;

/// An input's documents, and the temporary file stdin went to when it was too large to hold.
pub(crate) struct Opened {
    pub(crate) source: Source<'static>,
    /// Removed when dropped, after the source.
    pub(crate) _spool: Option<tempfile::NamedTempFile>,
}

/// stdin: its bytes, or past `threshold` bytes, the temporary file it was spooled to (so that
/// memory stays flat and a document can be read twice, its base first).
fn read_stdin(
    threshold: u64,
) -> Result<(Content<'static>, Option<tempfile::NamedTempFile>), Fatal> {
    let stdin_error = |e: io::Error| Fatal(format!("stdin: {e}"));
    let mut stdin = io::stdin().lock();
    let mut bytes = Vec::new();
    (&mut stdin)
        .take(threshold.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(stdin_error)?;
    if bytes.len() as u64 <= threshold {
        return Ok((Content::Bytes(bytes.into()), None));
    }
    let mut spool = tempfile::NamedTempFile::new().map_err(|e| {
        Fatal(format!(
            "stdin: cannot create a temporary file to hold it: {e}"
        ))
    })?;
    spool
        .write_all(&bytes)
        .and_then(|()| io::copy(&mut stdin, &mut spool).map(drop))
        .and_then(|()| spool.flush())
        .map_err(stdin_error)?;
    Ok((Content::Path(spool.path().to_owned()), Some(spool)))
}

/// The input named by `args` (a path, or `-` for stdin), opened with the layers, header fields
/// and charset its options give, for `verb` (`rewrite`, `links`, `base`). The library's errors
/// about what the user gave name the flag.
pub(crate) fn open(args: &InputArgs, verb: &str) -> Result<Opened, Fatal> {
    let name = args.input.clone();
    let (content, spool) = match name.as_str() {
        "-" => read_stdin(args.stream_threshold)?,
        _ => {
            not_a_url(&name, verb)?;
            (Content::Path(name.clone().into()), None)
        }
    };
    let mut headers = match &args.headers_file {
        Some(path) => {
            let raw = std::fs::read(path).map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            // Header blocks are ASCII by RFC; other bytes are kept as replacement characters.
            Headers::parse(&String::from_utf8_lossy(&raw))
        }
        None => Headers::new(),
    };
    for line in &args.headers {
        if !headers.push_line(line) {
            return Err(Fatal(format!(
                "--header {line:?}: expected \"Name: value\""
            )));
        }
    }
    let input = Input {
        name,
        content,
        layers: BaseLayers {
            content_base: args.content_base.clone(),
            content_location: args.content_location.clone(),
            retrieval_uri: args.url.clone(),
            default_base: args.default_base.clone(),
        },
        headers,
        header_base: match args.header_base {
            HeaderBaseArg::Entity => HeaderBase::Entity,
            HeaderBaseArg::Browser => HeaderBase::Browser,
        },
        charset: args.charset.clone(),
        stream_threshold: args.stream_threshold,
    };
    let source = linkbase::source::open(input).map_err(|e| flagged(e, args))?;
    if let Some(doubt) = source.doubt() {
        let shown = if args.input == "-" {
            "stdin"
        } else {
            &args.input
        };
        eprintln!(
            "linkbase: {}: {}",
            linkbase::text::escape_controls(shown),
            linkbase::text::escape_controls(doubt)
        );
    }
    Ok(Opened {
        source,
        _spool: spool,
    })
}

/// An INPUT that is a web address and no file: linkbase reads files and fetches no page, which
/// is said with how to save one and give its URL (rather than "No such file or directory").
fn not_a_url(input: &str, verb: &str) -> Result<(), Fatal> {
    let absent =
        std::fs::symlink_metadata(input).is_err_and(|e| e.kind() == io::ErrorKind::NotFound);
    if !(absent && linkbase::layout::of_the_web(input)) {
        return Ok(());
    }
    // For a shell: in single quotes, a quote in the URL percent-encoded (RFC 3986 §2.1; the
    // message is printed with its backslashes escaped, so `'\''` would not survive).
    let quoted = format!("'{}'", input.replace('\'', "%27"));
    Err(Fatal(format!(
        "{input}: no such file; linkbase reads pages from files and does not fetch them: save \
         the page, then give its URL with --url: curl -o page.html {quoted} && linkbase {verb} \
         page.html --url {quoted}"
    )))
}

/// The library's error, naming the flag that gave what it is about (the library names the
/// layer: it does not know which flag, parameter or record field gave it).
fn flagged(e: linkbase::Error, args: &InputArgs) -> Fatal {
    match e {
        linkbase::Error::BadBase {
            option,
            value,
            source,
        } => {
            let flag = match option {
                "the default base" => "--default-base",
                "the Content-Base" => "--content-base",
                "the Content-Location" => "--content-location",
                _ => "--url",
            };
            Fatal(format!("{flag} {value:?}: {source}"))
        }
        linkbase::Error::NotForArchive { layer, .. } => {
            let flag = match layer {
                "the retrieval URI" => "--url",
                "a Content-Base" => "--content-base",
                "a Content-Location" => "--content-location",
                _ if !args.headers.is_empty() => "--header",
                _ => "--headers",
            };
            Fatal(format!(
                "{flag} does not apply to a WARC file: each record's WARC-Target-URI is its \
                 retrieval URI (RFC 2396 §5.1.3) and its archived HTTP headers are its entity \
                 (§5.1.2)"
            ))
        }
        e => Fatal::from(e),
    }
}

pub(crate) fn options(
    args: &InputArgs,
    drop_base: bool,
    output_charset: Option<&str>,
) -> Result<Options, Fatal> {
    let output_encoding = match output_charset {
        Some(label) => Some(
            encoding_rs::Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| {
                Fatal(format!("--output-charset {label:?}: not an encoding label"))
            })?,
        ),
        None => None,
    };
    Ok(Options {
        rewrite: RewriteOptions {
            resolve: args.resolution.options(),
            drop_base,
            relink: None,
        },
        output_encoding,
        default_encoding: default_encoding(args.default_charset.as_deref(), "--default-charset")?,
        conditional_comments: args.conditional_comments.map(|s| s == args::Switch::On),
        engine: match args.engine {
            args::EngineArg::Auto => pipeline::EngineChoice::Auto,
            args::EngineArg::Dom => pipeline::EngineChoice::Dom,
        },
        ..Options::default()
    })
}

/// `--default-charset LABEL` (`check --charset`): the encoding of pages that declare none. An
/// encoding_rs (WHATWG) label; one no undeclared page can be read in is refused too.
pub(crate) fn default_encoding(
    label: Option<&str>,
    flag: &str,
) -> Result<Option<&'static encoding_rs::Encoding>, Fatal> {
    Options::default_encoding_for(label, flag).map_err(Fatal)
}
