//! A bare HTML document: the input is its one document, and a rewrite of it is the output.

use std::io::{self, Write};

use super::document::{Document, Item};
use super::reader::{Reader, WriteBack, Wrote};

/// The one document of an HTML input.
pub(crate) struct Html<'a> {
    document: Option<Document<'a>>,
}

impl<'a> Html<'a> {
    pub(crate) fn new(document: Document<'a>) -> Html<'a> {
        Html {
            document: Some(document),
        }
    }
}

impl<'a> Reader<'a> for Html<'a> {
    fn default_retrieval_uri(&mut self, uri: &str) {
        if let Some(super::document::Layers::Given(layers)) =
            self.document.as_mut().map(|d| &mut d.layers)
        {
            layers.retrieval_uri.get_or_insert_with(|| uri.to_owned());
        }
    }

    fn next(&mut self) -> Option<Item<'a>> {
        self.document.take().map(Item::Document)
    }

    fn write(&mut self, _: &Item<'a>, _: Option<Vec<u8>>, _: &mut dyn Write) -> io::Result<Wrote> {
        // The document is written as it is rewritten: it is the output.
        Ok(Wrote::Copied)
    }

    fn finish(&mut self, _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn write_back(&self) -> WriteBack {
        WriteBack::Document
    }
}
