//! `iter_links()`: the links of a document one at a time, for documents too large to hold a
//! dict per link. The library reads the document on a thread of its own and hands each link
//! record through a bounded channel (`pipeline::links_each`, which keeps none of them); the
//! iterator makes a dict of one when Python asks for it. Memory holds the document, the channel
//! and the dicts the caller keeps, not one record per link.

use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;

use linkbase::pipeline::{self, HtmlInput};
use linkbase::report::{BaseRecord, LinkTally};
use linkbase::LinkRecord;
use pyo3::prelude::*;

use super::{to_py, topy, warn, Job, Prepared, UnresolvedError, INPUT_NAME};

/// How many link records wait in the channel for Python at most.
const QUEUED: usize = 1024;

/// What the reading thread sends.
enum Sent {
    Link(Box<LinkRecord>),
    Done(Box<Result<BaseRecord, linkbase::Error>>),
}

/// The iterator iter_links() returns: one dict per link (the fields of links()), in document
/// order.
#[pyclass(module = "linkbase")]
pub(crate) struct LinkIter {
    /// Links still to come from the reading thread (an HTML document).
    rx: Option<Mutex<Receiver<Sent>>>,
    /// Or the links of a message, already read (each holds its records).
    ready: std::vec::IntoIter<LinkRecord>,
    tally: LinkTally,
    strict: bool,
}

#[pymethods]
impl LinkIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let this = &mut *slf;
        if let Some(link) = this.ready.next() {
            return topy::to_python(py, &link).map(Some);
        }
        let Some(rx) = this.rx.as_ref() else {
            return Ok(None);
        };
        // Waiting for the reading thread is done without the GIL.
        let got = py.detach(|| rx.lock().ok()?.recv().ok());
        match got {
            Some(Sent::Link(link)) => {
                this.tally.add(&link);
                topy::to_python(py, &*link).map(Some)
            }
            Some(Sent::Done(result)) => {
                this.rx = None;
                let base = (*result).map_err(to_py)?;
                if let Some(summary) = this.tally.unresolved_summary(&base) {
                    let mut line = summary.to_string();
                    if summary.reason == "no base" {
                        line.push_str(
                            "; give the document's URL with url= (or a base with headers=)",
                        );
                    }
                    if this.strict {
                        return Err(UnresolvedError::new_err(line));
                    }
                    warn(py, &line)?;
                }
                Ok(None)
            }
            None => {
                this.rx = None;
                Err(super::Error::new_err(
                    "internal error: the thread reading the document stopped; please report it \
                     with the input",
                ))
            }
        }
    }
}

/// The iterator of `job`'s links: an HTML document is read on a thread of its own, a message
/// (its parts, or an mbox's messages) through `links()`.
pub(crate) fn links_of(py: Python<'_>, job: Job<'_>, strict: bool) -> PyResult<LinkIter> {
    if job.message() {
        let (_, reports) = job.run(py, false)?;
        job.unresolved(py, &reports, strict)?;
        let links: Vec<LinkRecord> = reports.into_iter().flat_map(|r| r.links).collect();
        return Ok(LinkIter {
            rx: None,
            ready: links.into_iter(),
            tally: LinkTally::default(),
            strict,
        });
    }
    let bytes = job.doc.as_slice().to_vec();
    let Prepared {
        layers,
        charset,
        diagnostics,
        options,
    } = job.prepared;
    let (tx, rx) = sync_channel(QUEUED);
    std::thread::Builder::new()
        .name("linkbase-iter-links".to_owned())
        .spawn(move || {
            let input = HtmlInput {
                name: INPUT_NAME,
                bytes: &bytes,
                layers,
                charset,
                diagnostics,
            };
            // A caller that stops iterating drops the receiver: the rest is read and dropped.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pipeline::links_each(&input, &options, &mut |link| {
                    let _ = tx.send(Sent::Link(Box::new(link)));
                })
            }));
            if let Ok(result) = result {
                let _ = tx.send(Sent::Done(Box::new(result)));
            }
        })
        .map_err(|e| super::Error::new_err(format!("cannot start a thread: {e}")))?;
    Ok(LinkIter {
        rx: Some(Mutex::new(rx)),
        ready: Vec::new().into_iter(),
        tally: LinkTally::default(),
        strict,
    })
}
