//! `iter_links()`: the links of a document one at a time, for documents too large to hold a
//! dict per link. The library reads the document on a thread of its own, through the door and
//! the `links` verb, and hands each link record through a bounded channel (the sink keeps none
//! of them); the iterator makes a dict of one when Python asks for it. Memory holds the
//! document, the channel and the dicts the caller keeps, not one record per link.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

use linkbase::input::InputKind;
use linkbase::report::{BaseRecord, LinkTally};
use linkbase::verb::{self, InOrder, Sink};
use linkbase::LinkRecord;
use pyo3::prelude::*;

use crate::job::{Job, Want};
use crate::{to_py, topy, warn, UnresolvedError};

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
                Err(crate::Error::new_err(
                    "internal error: the thread reading the document stopped; please report it \
                     with the input",
                ))
            }
        }
    }
}

/// The sink of the reading thread: each link sent as it comes, the document's base at its end.
struct Channel(SyncSender<Sent>);

impl Sink for Channel {
    fn link(&mut self, link: LinkRecord) -> std::io::Result<()> {
        // A caller that stops iterating drops the receiver: the rest is read and dropped.
        let _ = self.0.send(Sent::Link(Box::new(link)));
        Ok(())
    }
    fn links(&mut self, links: Vec<LinkRecord>) -> std::io::Result<()> {
        links.into_iter().try_for_each(|l| self.link(l))
    }
    fn document(
        &mut self,
        _: &linkbase::source::Document<'_>,
        done: Result<verb::Done, linkbase::Error>,
    ) -> std::io::Result<()> {
        let _ = self.0.send(Sent::Done(Box::new(done.map(|d| d.base))));
        Ok(())
    }
}

/// The iterator of `job`'s links: an HTML document is read on a thread of its own, a message
/// (its parts, or an mbox's messages) as `links()` reads it.
pub(crate) fn links_of(py: Python<'_>, job: Job<'_>, strict: bool) -> PyResult<LinkIter> {
    if job.kind != InputKind::Html {
        let read = job.run(py, Want::Links)?;
        job.unresolved(py, &read, strict)?;
        let links: Vec<LinkRecord> = read.reports.into_iter().flat_map(|r| r.links).collect();
        return Ok(LinkIter {
            rx: None,
            ready: links.into_iter(),
            tally: LinkTally::default(),
            strict,
        });
    }
    let bytes = job.doc.as_slice().to_vec();
    let name = job.name;
    let prepared = job.prepared;
    let (tx, rx) = sync_channel(QUEUED);
    std::thread::Builder::new()
        .name("linkbase-iter-links".to_owned())
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut sink = Channel(tx.clone());
                linkbase::source::open(prepared.input(&name, &bytes)).and_then(|mut source| {
                    verb::links(&mut source, &prepared.options, &InOrder, &mut sink)
                })
            }));
            // An error before the document was read (or instead of it) ends the iteration.
            if let Ok(Err(e)) = result {
                let _ = tx.send(Sent::Done(Box::new(Err(e))));
            }
        })
        .map_err(|e| crate::Error::new_err(format!("cannot start a thread: {e}")))?;
    Ok(LinkIter {
        rx: Some(Mutex::new(rx)),
        ready: Vec::new().into_iter(),
        tally: LinkTally::default(),
        strict,
    })
}
