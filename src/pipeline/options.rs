//! What goes into the pipeline and what comes out: a document in memory or in a file, the
//! options, and how the output was written.

use crate::base::BaseLayers;
use crate::engine::dom::ParseLimits;
use crate::error::Diagnostic;
use crate::report::{BaseRecord, LinkTally, Report};
use crate::rewrite::RewriteOptions;
use encoding_rs::Encoding;

/// An HTML document and what is known about it from outside.
#[derive(Debug, Clone, Default)]
pub struct HtmlInput<'a> {
    /// How to name it in errors (a path, or `-`).
    pub name: &'a str,
    /// Its bytes, as stored or received.
    pub bytes: &'a [u8],
    /// The base layers outside the document (§5.1.2–§5.1.4).
    pub layers: BaseLayers,
    /// The transport-layer charset label (`--charset`, or Content-Type's `charset`).
    pub charset: Option<String>,
    /// Findings about the input made before the pipeline (ignored headers, …), carried into
    /// the report.
    pub diagnostics: Vec<Diagnostic>,
}

/// How to process.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Resolution and rewriting choices.
    pub rewrite: RewriteOptions,
    /// Write the output in this encoding instead of the document's own.
    pub output_encoding: Option<&'static Encoding>,
    /// Bounds on parsing hostile input.
    pub limits: ParseLimits,
    /// Rewrite and report URLs inside downlevel-hidden conditional comments
    /// (`<!--[if mso]> … <![endif]-->`), which Outlook renders and browsers ignore. `None`: on
    /// for HTML parts of MIME messages (e-mail), off for plain documents.
    pub conditional_comments: Option<bool>,
    /// Which engine analyses and writes HTML.
    pub engine: EngineChoice,
    /// The encoding of a document that declares none (no BOM, transport charset or `<meta>`),
    /// instead of windows-1252 (`--default-charset`; HTML LS §13.2.3.2 step 8).
    pub default_encoding: Option<&'static Encoding>,
}

impl Options {
    /// `label` (`--default-charset`, named `flag` in errors) as the encoding of a document that
    /// declares none: a WHATWG Encoding Standard label of an ASCII-compatible encoding, since a
    /// page without a byte order mark or a declaration cannot be read in another.
    ///
    /// # Errors
    /// Not a label, or one of an encoding such a page cannot be read in.
    pub fn default_encoding_for(
        label: Option<&str>,
        flag: &str,
    ) -> Result<Option<&'static Encoding>, String> {
        let Some(label) = label else {
            return Ok(None);
        };
        match Encoding::for_label(label.trim().as_bytes()) {
            None => Err(format!(
                "{flag} {label:?}: not an encoding label (WHATWG Encoding Standard labels, \
                 such as utf-8, windows-1252, shift_jis)"
            )),
            Some(e) if e == encoding_rs::REPLACEMENT || !e.is_ascii_compatible() => Err(format!(
                "{flag} {label:?}: names {}, which a page without a byte order mark or a \
                 declaration cannot be read in",
                e.name()
            )),
            Some(e) => Ok(Some(e)),
        }
    }
}

/// Which engine analyses and writes HTML documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineChoice {
    /// The streaming engine (`src/stream/`): no tree, only URL bytes change; the DOM engine
    /// takes the rare document it cannot settle exactly (a `dom-engine` diagnostic says why).
    #[default]
    Auto,
    /// The DOM engine (html5ever): every document parsed into a tree. The reference the
    /// streaming engine is tested against.
    Dom,
}

/// The output of [`rewrite()`](crate::pipeline::rewrite).
#[derive(Debug, Clone)]
pub struct Rewritten {
    /// The rewritten document, encoded.
    pub bytes: Vec<u8>,
    /// Its base and links.
    pub report: Report,
    /// How the bytes were written.
    pub engine: Engine,
}

/// How a rewritten document was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// The streaming engine: no tree; the input's bytes with only the changed URL values
    /// replaced (`src/stream/`).
    Stream,
    /// The DOM engine's plan spliced into the input's bytes.
    Splice,
    /// The tree serialized, because the splicer could not match the plan exactly (the reason),
    /// or `--output-charset` asked for another encoding (`None`).
    Serialize(Option<crate::engine::fallback::Fallback>),
}

/// What [`rewrite_to`](crate::pipeline::rewrite_to) wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The document's base.
    pub base: BaseRecord,
    /// Its links, counted.
    pub links: LinkTally,
    /// The engine that wrote it.
    pub engine: Engine,
}

/// An HTML document in a file, read as a stream ([`rewrite_path`](crate::pipeline::rewrite_path), [`links_path`](crate::pipeline::links_path)).
#[derive(Debug, Clone)]
pub struct PathInput<'a> {
    /// How to name it in errors.
    pub name: &'a str,
    /// Where it is. It is opened twice (the base first), and once more to count the lines of
    /// the links' positions, so it must not change meanwhile.
    pub path: &'a std::path::Path,
    /// The base layers outside the document (§5.1.2–§5.1.4).
    pub layers: BaseLayers,
    /// The transport-layer charset label.
    pub charset: Option<String>,
    /// Findings about the input made before the pipeline.
    pub diagnostics: Vec<Diagnostic>,
}
