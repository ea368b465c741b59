//! The verbs: what a run does with a [`Source`](crate::source::Source)'s documents — [`links`], [`base`],
//! [`rewrite`], [`fragment_targets`] — each the same for every format. What they find goes to a
//! [`Sink`] in the input's order (a printer, a collector); a rewrite writes the input back to an
//! [`Output`]. The documents of a batch (an archive's records, a message's parts) are read by
//! [`Workers`], one after another or on many threads; a document that is the whole input is
//! streamed, its links handed on as they are found.
//!
//! `sink.rs` (what the verbs give and take), `document.rs` (one document through the engine,
//! as its role says), `run.rs` (the verbs: batches, the order, the write back).

mod sink;
mod document;
mod run;

pub(crate) use document::{in_memory, Want};
pub use run::{base, fragment_targets, links, rewrite};
pub use sink::{Done, Found, InOrder, Output, Sink, Workers};
