//! The tests' toy archive ([`crate::input::toy`]): each entry an HTML document retrieved from
//! its URL; a rewrite writes the archive again with the entries that changed. Everything a
//! format needs besides its parser is here, one arm of `open`'s match, and one field of
//! [`Origin`] (`toy_entry`) with its place in [`Origin::places`].

use std::borrow::Cow;
use std::io::{self, Write};

use super::document::{Back, Body, Document, Item, Kind, Layers, Skipped};
use super::reader::{Reader, WriteBack, Wrote};
use crate::base::BaseLayers;
use crate::input::toy::{self, Entry};
use crate::report::Origin;

/// The entries of a toy archive, one after another.
pub(crate) struct Toy<'a> {
    name: String,
    bytes: Cow<'a, [u8]>,
    layers: BaseLayers,
    entries: Vec<Entry>,
    damage: Option<String>,
    next: usize,
    new: Vec<Option<Vec<u8>>>,
}

impl<'a> Toy<'a> {
    pub(crate) fn new(name: &str, bytes: Cow<'a, [u8]>, layers: BaseLayers) -> Toy<'a> {
        let (entries, damage) = toy::split(&bytes);
        Toy {
            name: name.to_owned(),
            new: vec![None; entries.len()],
            bytes,
            layers,
            entries,
            damage,
            next: 0,
        }
    }
}

impl<'a> Reader<'a> for Toy<'a> {
    fn next(&mut self) -> Option<Item<'a>> {
        let i = self.next;
        self.next += 1;
        let Some(entry) = self.entries.get(i) else {
            return self.damage.take().map(|d| {
                Item::Skipped(Skipped {
                    said: vec![format!("{}: damaged entry at {d}", self.name)],
                    error: None,
                    end: None,
                })
            });
        };
        let body = self.bytes.get(entry.body.clone()).unwrap_or_default();
        Some(Item::Document(Document {
            name: self.name.clone(),
            body: Body::Bytes(Cow::Owned(body.to_vec())),
            kind: Kind::Html,
            layers: Layers::Given(BaseLayers {
                retrieval_uri: Some(entry.url.clone()),
                ..self.layers.clone()
            }),
            charset: None,
            origin: Origin {
                toy_entry: Some(i),
                ..Origin::default()
            },
            diagnostics: Vec::new(),
            conditional_comments: false,
            back: Back::Entry(i),
        }))
    }

    fn write(
        &mut self,
        item: &Item<'a>,
        new: Option<Vec<u8>>,
        _: &mut dyn Write,
    ) -> io::Result<Wrote> {
        let (Item::Document(d), Some(new)) = (item, new) else {
            return Ok(Wrote::Copied);
        };
        match (&d.back, self.new.get_mut(entry(&d.back))) {
            (Back::Entry(_), Some(slot)) => {
                *slot = Some(new);
                Ok(Wrote::Changed)
            }
            _ => Ok(Wrote::Copied),
        }
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(&toy::join(&self.bytes, &self.entries, &self.new))
    }

    fn write_back(&self) -> WriteBack {
        WriteBack::Entries
    }
}

/// The entry a document is.
fn entry(back: &Back) -> usize {
    match back {
        Back::Entry(i) => *i,
        _ => usize::MAX,
    }
}
