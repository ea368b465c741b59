//! ③ The two engines, side by side: the streaming span splicer (`stream`, the default) and the
//! html5ever DOM (`dom`: the fallback and the differential oracle); why a document goes from
//! the first to the second ([`Fallback`]); and the one entry that hands a document to them
//! ([`analyse`]) and writes it back.

mod analysis;
pub mod dom;
pub(crate) mod fallback;
pub(crate) mod stream;

pub(crate) use analysis::{
    analyse, reserialized, reserialized_diagnostic, sniffed, unclaim_loose, write_into, write_out,
    Analysis, Source,
};
pub(crate) use dom::driver::{
    decode_and_parse, encoding_diagnostics, refuse_raw_text_loss, refuse_text_loss,
};
pub use fallback::Fallback;
pub use stream::Rewind;
