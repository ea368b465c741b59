//! lol_html as this crate runs it: read-only (its output is its input, dropped or only counted),
//! in the document's encoding, with one bound on its buffers. The streaming engine's walk, the
//! DOM engine's splicer and the conditional-comment reader all start here.

use encoding_rs::Encoding;

/// lol_html's buffers are bounded by this: a longer tag or comment stops it with an error (the
/// streaming engine then hands the document to the DOM engine; the other readers give up).
pub(crate) const MEMORY_LIMIT: usize = 64 * 1024 * 1024;

/// Settings for a read-only run over bytes in `encoding`, handlers to be added; `None` when
/// lol_html cannot read the encoding (it reads ASCII-compatible encodings only).
pub(crate) fn settings<'h, 's>(encoding: &'static Encoding) -> Option<lol_html::Settings<'h, 's>> {
    let encoding = lol_html::AsciiCompatibleEncoding::new(encoding)?;
    Some(
        lol_html::Settings::new()
            .with_encoding(encoding)
            .with_memory_settings(
                lol_html::MemorySettings::new().with_max_allowed_memory_usage(MEMORY_LIMIT),
            ),
    )
}

/// Whether a document in `encoding` can be read by its bytes: lol_html, and the streaming
/// engine's scanner, read ASCII-compatible encodings only (not UTF-16, ISO-2022-JP or the
/// replacement encoding), where every byte below 0x80 is the ASCII character.
pub(crate) fn reads(encoding: &'static Encoding) -> bool {
    encoding != encoding_rs::REPLACEMENT
        && lol_html::AsciiCompatibleEncoding::new(encoding).is_some()
}

/// Runs the handlers of `settings` over the whole of `bytes`; `false` when lol_html stopped (a
/// handler's error, or the memory bound).
pub(crate) fn read_all(bytes: &[u8], settings: lol_html::Settings<'_, '_>) -> bool {
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(bytes).and_then(|()| rewriter.end()).is_ok()
}
