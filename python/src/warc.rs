//! `read_warc()` and its iterator: the HTML records of a WARC or ARC file, each with its links,
//! read without the GIL a record at a time; damage listed on the reader, never raised.

use linkbase::input::InputKind;
use linkbase::pipeline::Options;
use linkbase::{Report, ResolveOptions, RewriteOptions};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::{header_base, profile, run, topy, ArchiveError, LinkColumns};

/// The iterator read_warc() returns: one dict per HTML record of a WARC file, in file order
/// (typed as linkbase.WarcRecord). Its attributes say what has been read so far: counts,
/// damaged, failed.
///
/// Example:
///     >>> import linkbase
///     >>> reader = linkbase.read_warc("crawl.warc.gz")  # doctest: +SKIP
///     >>> for record in reader:  # doctest: +SKIP
///     ...     print(record["warc_target_uri"], len(record["links"]))
///     >>> reader.counts["html"], reader.damaged  # doctest: +SKIP
///     (12, [])
#[pyclass(module = "linkbase")]
pub(crate) struct WarcReader {
    archive: Option<linkbase::archive::Archive>,
    options: Options,
    name: String,
    damaged: Vec<(u64, Option<String>, String)>,
    failed: Vec<(String, u64, String)>,
    /// Keeps a copied file object alive while it is read.
    _spool: Option<tempfile::NamedTempFile>,
    /// The links of a record that did not fit in the last batch (`_next_columns`).
    pending: Option<(
        linkbase::archive::RecordRef,
        std::vec::IntoIter<linkbase::LinkRecord>,
    )>,
}

/// The next HTML record of `archive` with its links; damage and failures are listed on the way.
fn next_html(
    archive: &mut linkbase::archive::Archive,
    options: &Options,
    name: &str,
    damaged: &mut Vec<(u64, Option<String>, String)>,
    failed: &mut Vec<(String, u64, String)>,
) -> PyResult<Option<(Box<linkbase::archive::HtmlRecord>, Report)>> {
    for event in archive.by_ref() {
        match event {
            linkbase::archive::Event::Html(h) => {
                match linkbase::archive::links(&h, name, options) {
                    Ok(report) => return Ok(Some((h, report))),
                    Err(e) => failed.push((h.id().to_owned(), h.offset, e.to_string())),
                }
            }
            linkbase::archive::Event::Damaged(d) => {
                damaged.push((d.offset, d.record_id, d.message));
            }
            // A record past a bound is one that could not be read; a revisit whose
            // original is not in the file is one that cannot be.
            linkbase::archive::Event::Skipped {
                reference,
                offset,
                message: Some(m),
                ..
            } => failed.push((reference.id().to_owned(), offset, m)),
            linkbase::archive::Event::Skipped { .. } | linkbase::archive::Event::Other(_) => {}
        }
        // Ctrl-C between records (after one is accounted for, so none is lost): this
        // loop can walk a whole archive without returning to Python, which runs signal
        // handlers only where the GIL is held (PyErr_CheckSignals raises
        // KeyboardInterrupt).
        Python::attach(|py| py.check_signals())?;
    }
    Ok(None)
}

#[pymethods]
impl WarcReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let this = &mut *slf;
        let Some(archive) = this.archive.as_mut() else {
            return Ok(None);
        };
        let options = &this.options;
        let name = this.name.as_str();
        let (damaged, failed) = (&mut this.damaged, &mut this.failed);
        let found = run(py, || next_html(archive, options, name, damaged, failed))?;
        let Some((h, report)) = found else {
            return Ok(None);
        };
        // The base record's own serde form, so a record has every field of the CLI's `base`
        // record of it (`warc_*`, `content_type`, `truncated`, `encoding_source`, …), then where
        // it is in the file and its links.
        let dict = topy::to_python(py, &report.base)?.cast_into::<pyo3::types::PyDict>()?;
        dict.set_item("offset", h.offset)?;
        dict.set_item("status", h.status)?;
        dict.set_item("revisit_of", &h.revisit_of)?;
        dict.set_item("links", topy::to_python(py, &report.links)?)?;
        Ok(Some(dict.into_any()))
    }

    /// The link table's next rows, at most `max_rows` (and about `max_bytes` of strings), in
    /// Arrow's columnar layout: `(rows, columns)` in linkbase.spark.COLUMNS order, each column
    /// `(null_count, buffers)`; None at the end. No Python object is made per link:
    /// linkbase.arrow.link_batches wraps the buffers as a pyarrow RecordBatch.
    #[pyo3(signature = (max_rows = 65536, max_bytes = 16 << 20))]
    #[allow(clippy::type_complexity)]
    fn _next_columns<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
        max_rows: usize,
        max_bytes: usize,
    ) -> PyResult<Option<(usize, Vec<(usize, Vec<Option<Bound<'py, PyBytes>>>)>)>> {
        let this = &mut *slf;
        let Some(archive) = this.archive.as_mut() else {
            return Ok(None);
        };
        let options = &this.options;
        let name = this.name.as_str();
        let (damaged, failed, pending) = (&mut this.damaged, &mut this.failed, &mut this.pending);
        let max_rows = max_rows.max(1);
        let columns = run(py, || {
            let mut columns = LinkColumns::default();
            loop {
                if let Some((record, links)) = pending.as_mut() {
                    for link in links.by_ref() {
                        columns.push(record, &link)?;
                        if columns.rows >= max_rows || columns.bytes() >= max_bytes {
                            return Ok(columns);
                        }
                    }
                }
                *pending = None;
                match next_html(archive, options, name, damaged, failed)? {
                    Some((h, report)) => {
                        *pending = Some((h.reference.clone(), report.links.into_iter()));
                    }
                    None => return Ok(columns),
                }
            }
        })?;
        if columns.rows == 0 {
            return Ok(None);
        }
        Ok(Some(columns.into_py(py)))
    }

    /// What has been read so far: records, html, skipped, damaged, revisits.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let counts = self
            .archive
            .as_ref()
            .map(linkbase::archive::Archive::counts)
            .unwrap_or_default();
        topy::to_python(py, &counts)
    }

    /// The damage met so far: (offset, record id or None, message) tuples.
    #[getter]
    fn damaged(&self) -> Vec<(u64, Option<String>, String)> {
        self.damaged.clone()
    }

    /// Records that could not be read: HTML the pipeline refused, or past a bound (a payload
    /// that inflates too far): (record id, offset, message) tuples.
    #[getter]
    fn failed(&self) -> Vec<(String, u64, String)> {
        self.failed.clone()
    }
}

/// The HTML records of a WARC file (.warc or .warc.gz, a gzip member per record or one for the
/// whole file) or an ARC file (.arc or .arc.gz, v1 or v2, read as WARC: its URL line is the
/// target URI), each as a document of its own: its WARC-Target-URI is its retrieval URI and its
/// archived HTTP headers its entity (RFC 2396 §5.1.2–§5.1.3); a revisit is read as its original.
///
/// Arguments:
///     source: a path (str or os.PathLike), or a binary file object (copied to a temporary file:
///         a revisit's original is read again from the file; io.BytesIO(data) for bytes).
///     start, end: read only the records that start in this byte range of the file (end None:
///         to its end), to split one file into tasks. Any offsets do: both are moved to the
///         next record boundary (gzip member, or verified WARC/1. record), so ranges that meet
///         (0..a, a..b, b..None) give every record exactly once, the last one of a range read
///         whole past its end. A .warc.gz of one gzip member has no boundary inside: the range
///         holding 0 reads all of it. A revisit whose original lies before the range is still
///         resolved (the records before it are indexed once, when one is needed).
///     profile: rfc2396 (default), rfc1808, rfc3986 or whatwg.
///     header_base: entity (default) or browser.
///
/// Returns:
///     A WarcReader: an iterator of dicts (linkbase.WarcRecord): the fields of the CLI's
///     `base` record of it (part, base (the URI or None), base_source, encoding,
///     encoding_source, diagnostics, warc_record_id, warc_target_uri, warc_date, truncated when
///     the record was cut short, content_type: the media type it was read as), then offset,
///     status, revisit_of, and
///     links (as links() gives them, each with the record's warc_record_id, warc_target_uri,
///     warc_date and content_type). Damage in the archive does not
///     raise: it is listed in the reader's damaged, and counts says what was read.
///
/// Raises:
///     ArchiveError: the file cannot be opened or read at all.
///     UsageError: an unknown profile or header_base.
///     TypeError: a file object opened in text mode.
///
/// Example:
///     >>> import linkbase
///     >>> for record in linkbase.read_warc("crawl.warc.gz"):  # doctest: +SKIP
///     ...     for link in record["links"]:
///     ...         print(record["warc_target_uri"], link["resolved"], link["base_source"])
#[pyfunction]
#[pyo3(signature = (source, start = 0, end = None, *, profile = "rfc2396", header_base = "entity"))]
pub(crate) fn read_warc(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    start: u64,
    end: Option<u64>,
    profile: &str,
    header_base: &str,
) -> PyResult<WarcReader> {
    let resolve = ResolveOptions::for_profile(self::profile(profile)?);
    let mode = self::header_base(header_base)?;
    let text_mode = || {
        PyTypeError::new_err(
            "read_warc: the file object is opened in text mode; open it in binary mode \
             (open(path, \"rb\")), or pass the path",
        )
    };
    let (path, name, spool) = if source.hasattr("read")? {
        let io = py.import("io")?;
        if source.is_instance(&io.getattr("TextIOBase")?)? {
            return Err(text_mode());
        }
        // A binary file object: copied out, a MiB at a time.
        let mut spool = tempfile::NamedTempFile::new()
            .map_err(|e| ArchiveError::new_err(format!("cannot create a temporary file: {e}")))?;
        loop {
            let chunk = source.call_method1("read", (1usize << 20,)).map_err(|e| {
                if e.is_instance_of::<pyo3::exceptions::PyUnicodeDecodeError>(py) {
                    text_mode()
                } else {
                    e
                }
            })?;
            let bytes: &[u8] = chunk.extract().map_err(|_| text_mode())?;
            if bytes.is_empty() {
                break;
            }
            std::io::Write::write_all(&mut spool, bytes)
                .map_err(|e| ArchiveError::new_err(format!("temporary file: {e}")))?;
        }
        let name = source
            .getattr("name")
            .ok()
            .and_then(|n| n.extract::<String>().ok())
            .unwrap_or_else(|| "<file>".to_owned());
        (spool.path().to_owned(), name, Some(spool))
    } else {
        let os = py.import("os")?;
        let path: std::path::PathBuf = os.call_method1("fspath", (source,))?.extract()?;
        let name = path.display().to_string();
        (path, name, None)
    };
    // A device, a directory, a FIFO is no archive (reading /dev/zero would never end); nor is a
    // file whose content and name are neither WARC's nor ARC's: both are said, not read.
    let meta =
        std::fs::metadata(&path).map_err(|e| ArchiveError::new_err(format!("{name}: {e}")))?;
    if !meta.is_file() {
        return Err(ArchiveError::new_err(format!(
            "{name}: not a regular file (a device, a directory, a pipe): read_warc reads WARC and \
             ARC files"
        )));
    }
    let mut head = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 64 * 1024), &mut head))
        .map_err(|e| ArchiveError::new_err(format!("{name}: {e}")))?;
    let kind = linkbase::input::classify(&name, &head);
    if !matches!(kind, InputKind::Warc | InputKind::Arc) {
        return Err(ArchiveError::new_err(format!(
            "{name}: not a WARC or ARC file (it starts with neither a WARC/ record nor an ARC URL \
             line, and its name is not .warc, .warc.gz, .arc or .arc.gz): read documents with \
             links(), rewrite(), base()"
        )));
    }
    let archive = linkbase::archive::Archive::open_range(
        &path,
        linkbase::archive::ArchiveOptions {
            header_base: mode,
            ..Default::default()
        },
        start,
        end,
    )
    .map_err(|e| ArchiveError::new_err(e.to_string()))?;
    Ok(WarcReader {
        archive: Some(archive),
        options: Options {
            rewrite: RewriteOptions {
                resolve,
                drop_base: false,
                relink: None,
            },
            ..Options::default()
        },
        name,
        damaged: Vec::new(),
        failed: Vec::new(),
        _spool: spool,
        pending: None,
    })
}
