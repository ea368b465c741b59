//! One input, loaded: its bytes (or, past the stream threshold, its path), its base layers,
//! headers and charset from the options, and the library options the command asks for.

use std::io::{self, Read, Write};

use linkbase::input::InputKind;
use linkbase::message::MessageInput;
use linkbase::pipeline::{self, HtmlInput, Options};
use linkbase::{BaseLayers, HeaderBase, Headers, RewriteOptions};

use crate::args::{self, HeaderBaseArg, InputArgs};
use crate::Fatal;

/// The document's bytes and everything known about it from the options.
pub(crate) struct Loaded {
    pub(crate) name: String,
    /// The whole document; for a large one, its first 64 KiB.
    pub(crate) bytes: Vec<u8>,
    /// A document past `--stream-threshold`: where it is (stdin spooled to a temporary file).
    pub(crate) large: Option<Large>,
    pub(crate) layers: BaseLayers,
    pub(crate) charset: Option<String>,
    pub(crate) diagnostics: Vec<linkbase::Diagnostic>,
    /// A WARC file (stdin spooled to a temporary file): read record by record, never whole.
    pub(crate) warc: Option<Large>,
    /// The archive in `warc` is an ARC file (read by the same reader, as WARC records).
    pub(crate) arc: bool,
    /// An mbox: many messages (`mbox.rs`), read from `large` a message at a time.
    pub(crate) mbox: bool,
}

impl Loaded {
    /// A MIME message (`.eml`, `.mht`, `.mhtml`, or an RFC 822 heading naming MIME) rather than
    /// a bare HTML document.
    pub(crate) fn is_message(&self) -> bool {
        linkbase::input::classify(&self.name, &self.bytes) == InputKind::Message
    }

    pub(crate) fn message_input(&self) -> MessageInput<'_> {
        MessageInput {
            name: &self.name,
            bytes: &self.bytes,
            layers: self.layers.clone(),
        }
    }

    pub(crate) fn path_input<'a>(&'a self, large: &'a Large) -> pipeline::PathInput<'a> {
        pipeline::PathInput {
            name: &self.name,
            path: &large.path,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }

    pub(crate) fn html_input(&self) -> HtmlInput<'_> {
        HtmlInput {
            name: &self.name,
            bytes: &self.bytes,
            layers: self.layers.clone(),
            charset: self.charset.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }
}

/// A document too large to hold: a file, or stdin spooled to one.
pub(crate) struct Large {
    pub(crate) path: std::path::PathBuf,
    /// Removed when dropped.
    pub(crate) _spool: Option<tempfile::NamedTempFile>,
}

/// The document's bytes, or its head and where it is when it passes `threshold` bytes.
pub(crate) fn read_input(name: &str, threshold: u64) -> Result<(Vec<u8>, Option<Large>), Fatal> {
    const HEAD: u64 = 64 * 1024;
    if name != "-" {
        let meta = std::fs::metadata(name).map_err(|e| Fatal(format!("{name}: {e}")))?;
        if meta.is_file() && meta.len() > threshold {
            let mut head = Vec::new();
            std::fs::File::open(name)
                .and_then(|f| f.take(HEAD).read_to_end(&mut head))
                .map_err(|e| Fatal(format!("{name}: {e}")))?;
            let large = Large {
                path: name.into(),
                _spool: None,
            };
            return Ok((head, Some(large)));
        }
        let bytes = std::fs::read(name).map_err(|e| Fatal(format!("{name}: {e}")))?;
        return Ok((bytes, None));
    }
    let stdin_error = |e: io::Error| Fatal(format!("stdin: {e}"));
    let mut stdin = io::stdin().lock();
    let mut bytes = Vec::new();
    (&mut stdin)
        .take(threshold.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(stdin_error)?;
    if bytes.len() as u64 <= threshold {
        return Ok((bytes, None));
    }
    // Past the threshold: the rest goes to a temporary file, so that memory stays flat and the
    // document can be read twice (its base first).
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
    bytes.truncate(HEAD as usize);
    bytes.shrink_to_fit();
    let large = Large {
        path: spool.path().to_owned(),
        _spool: Some(spool),
    };
    Ok((bytes, Some(large)))
}

/// Where the input is as a file: `large`'s, the named file, or stdin (`bytes`, all of it)
/// spooled to a temporary file.
fn as_file(name: &str, bytes: &[u8], large: Option<Large>) -> Result<Large, Fatal> {
    Ok(match large {
        Some(l) => l,
        None if name == "-" => {
            let mut spool = tempfile::NamedTempFile::new()
                .and_then(|mut f| f.write_all(bytes).map(|()| f))
                .map_err(|e| Fatal(format!("stdin: cannot spool it to a temporary file: {e}")))?;
            spool.flush().map_err(|e| Fatal(format!("stdin: {e}")))?;
            Large {
                path: spool.path().to_owned(),
                _spool: Some(spool),
            }
        }
        None => Large {
            path: name.into(),
            _spool: None,
        },
    })
}

/// The input; a large one (past `--stream-threshold`) only as its head and where it is, unless
/// it is a MIME message (those are read whole).
pub(crate) fn load_input(args: &InputArgs) -> Result<Loaded, Fatal> {
    let name = args.input.clone();
    let (mut bytes, mut large) = read_input(&name, args.stream_threshold)?;
    let sniffed = linkbase::input::sniff(&name, &bytes);
    let kind = sniffed.kind;
    if let Some(doubt) = &sniffed.doubt {
        let shown = if name == "-" { "stdin" } else { &name };
        eprintln!(
            "linkbase: {}: {}",
            crate::text::escape_controls(shown),
            crate::text::escape_controls(doubt)
        );
    }
    if matches!(kind, InputKind::Warc | InputKind::Arc) {
        let source = as_file(&name, &bytes, large)?;
        return Ok(Loaded {
            name,
            bytes: Vec::new(),
            large: None,
            layers: BaseLayers::default(),
            charset: None,
            diagnostics: Vec::new(),
            warc: Some(source),
            arc: kind == InputKind::Arc,
            mbox: false,
        });
    }
    // A message is read whole; an mbox is read from its file a message at a time (`mbox.rs`).
    if let (InputKind::Message, Some(l)) = (kind, &large) {
        bytes = std::fs::read(&l.path).map_err(|e| Fatal(format!("{name}: {e}")))?;
        large = None;
    }
    if kind == InputKind::Mbox {
        large = Some(as_file(&name, &bytes, large.take())?);
    }
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
    // The library's error names the layer; the user gave these as flags, so name the flag.
    for (flag, value) in [("--url", &args.url), ("--default-base", &args.default_base)] {
        if let Some(value) = value {
            linkbase::Uri::parse(value.trim())
                .map_err(|e| Fatal(format!("{flag} {value:?}: {e}")))?;
        }
    }
    let mut layers = BaseLayers {
        content_base: args.content_base.clone(),
        content_location: args.content_location.clone(),
        retrieval_uri: args.url.clone(),
        default_base: args.default_base.clone(),
    };
    let mode = match args.header_base {
        HeaderBaseArg::Entity => HeaderBase::Entity,
        HeaderBaseArg::Browser => HeaderBase::Browser,
    };
    let diagnostics = layers.add_headers(&headers, mode);
    let charset = args.charset.clone().or_else(|| {
        headers
            .get("Content-Type")
            .and_then(linkbase::input::charset_from_content_type)
    });
    Ok(Loaded {
        name,
        bytes,
        large,
        layers,
        charset,
        diagnostics,
        warc: None,
        arc: false,
        mbox: kind == InputKind::Mbox,
    })
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
    let Some(label) = label else {
        return Ok(None);
    };
    match encoding_rs::Encoding::for_label(label.trim().as_bytes()) {
        None => Err(Fatal(format!(
            "{flag} {label:?}: not an encoding label (WHATWG Encoding Standard labels, \
             such as utf-8, windows-1252, shift_jis)"
        ))),
        Some(e) if e == encoding_rs::REPLACEMENT || !e.is_ascii_compatible() => {
            Err(Fatal(format!(
                "{flag} {label:?}: names {}, which a page without a byte order mark or a \
             declaration cannot be read in",
                e.name()
            )))
        }
        Some(e) => Ok(Some(e)),
    }
}
