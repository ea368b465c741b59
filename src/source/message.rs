//! A MIME message's documents: each `text/html` and `text/css` body part, with its base from
//! its headings (docs/mhtml.md §4, RFC 2557 §5) and the means to match its references to the
//! message's parts (RFC 2557 §8.2, RFC 2392); a rewritten part is re-encoded in its own
//! Content-Transfer-Encoding and line endings and put back where it was, every other byte of the
//! message copied as it was.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};
use std::ops::Range;
use std::sync::Arc;

use base64::Engine as _;

use super::document::{Back, Body, Document, Item, Kind, Layers, MessageEnd, PartBack, Targets};
use super::reader::{Reader, WriteBack, Wrote};
use crate::base::{heading_base, layer_value, BaseLayers, Outer};
use crate::error::{Diagnostic, DiagnosticCode, Error, Place};
use crate::input::mbox::MboxRef;
use crate::input::mime::{self, MessageTree, PartKind};
use crate::report::{BaseRecord, Origin};

impl PartBack {
    /// Whether its transfer encoding can be written back where it is.
    pub(crate) fn writable(&self) -> bool {
        self.span.is_some() && is_writable(&self.transfer_encoding)
    }

    /// Why an HTML part whose links would change cannot be written back.
    pub(crate) fn unwritable(&self) -> String {
        if self.span.is_none() {
            "inside an encoded message/rfc822: links reported, the part left as it was".to_owned()
        } else {
            self.encoding_unwritable()
        }
    }

    /// Why a part's Content-Transfer-Encoding cannot be written back.
    pub(crate) fn encoding_unwritable(&self) -> String {
        format!(
            "Content-Transfer-Encoding {:?} cannot be written back; the part left as it was",
            self.transfer_encoding
        )
    }

    /// The splice that puts `new`, the part's rewritten body, back: re-encoded in its transfer
    /// encoding, at its body's place in the message; `None` when it cannot go back.
    fn encoded(&self, new: Vec<u8>) -> Option<Splice> {
        // The text transfer encodings write their own line ends (`eol`), from LF.
        let new = if self.transfer_encoding == "base64" {
            new
        } else {
            from_crlf(&new)
        };
        let encoded = transfer_encode(&new, &self.transfer_encoding, self.eol)?;
        Some((self.span.clone()?, encoded))
    }

    /// A `part-skipped` diagnostic at the part's body.
    pub(crate) fn skipped(&self, why: String) -> Diagnostic {
        Diagnostic::new(DiagnosticCode::PartSkipped, why).at(self.body_at)
    }
}

/// A message's documents, in message order, then its parts not read; then the end of the
/// message ([`Item::MessageEnd`]).
pub(crate) struct MessageDocuments<'a> {
    /// The message's name (an mbox message's label).
    name: String,
    bytes: Cow<'a, [u8]>,
    tree: MessageTree,
    layers: BaseLayers,
    /// How its headings resolve (the run's profile).
    resolve: crate::ResolveOptions,
    /// Built at the first part, with `resolve`.
    index: Option<Arc<PartIndex>>,
    root: Option<usize>,
    /// The next part to look at.
    next: usize,
    /// Nothing given yet: the first record carries the tree's diagnostics.
    first: bool,
    /// Past the parts: the records of the parts not read, then the end.
    tail: Option<std::vec::IntoIter<Item<'a>>>,
    /// From an mbox: the message's place, and where its bytes are in the file.
    mbox: Option<(usize, MboxRef, crate::input::mbox::MboxMessage)>,
    splices: Vec<Splice>,
}

impl<'a> MessageDocuments<'a> {
    /// The documents of the message `bytes`, named `name`; `layers`: the outer layers
    /// (`--url` as RFC 2557 §5(d)), `--content-base` and `--content-location` standing as a
    /// heading around the whole message.
    ///
    /// # Errors
    /// [`Error::Message`] when its top-level heading cannot be read.
    pub(crate) fn open(
        name: &str,
        bytes: Cow<'a, [u8]>,
        layers: &BaseLayers,
    ) -> Result<MessageDocuments<'a>, Error> {
        let tree = parse(name, &bytes)?;
        Ok(MessageDocuments::of(name, bytes, tree, layers))
    }

    fn of(
        name: &str,
        bytes: Cow<'a, [u8]>,
        tree: MessageTree,
        layers: &BaseLayers,
    ) -> MessageDocuments<'a> {
        MessageDocuments {
            name: name.to_owned(),
            bytes,
            root: tree.root_document(),
            tree,
            layers: layers.clone(),
            resolve: crate::ResolveOptions::default(),
            index: None,
            next: 0,
            first: true,
            tail: None,
            mbox: None,
            splices: Vec::new(),
        }
    }

    /// The message `bytes` of an mbox, read without keeping them (the mbox keeps them, and
    /// puts the message back).
    pub(crate) fn read(
        name: &str,
        bytes: &[u8],
        layers: &BaseLayers,
    ) -> Result<MessageDocuments<'static>, Error> {
        let tree = parse(name, bytes)?;
        Ok(MessageDocuments::of(name, Cow::Borrowed(&[]), tree, layers))
    }

    /// The message is message `m` of an mbox (its bytes are not needed): its records say so
    /// (`reference`), and the places its diagnostics name are in the mbox file.
    pub(crate) fn in_mbox(
        mut self,
        m: crate::input::mbox::MboxMessage,
        reference: MboxRef,
    ) -> Self {
        self.mbox = Some((m.index, reference, m));
        self
    }

    /// The message with its rewritten parts put back.
    pub(crate) fn spliced(&mut self) -> Vec<u8> {
        splice(&self.bytes, std::mem::take(&mut self.splices))
    }

    /// `place` (in the message) where it is in the input file.
    fn place(&self, place: Place) -> Place {
        match &self.mbox {
            Some((_, _, m)) => m.file_place(place),
            None => place,
        }
    }

    fn origin(&self, path: &str, i: usize, content_type: &str) -> Origin {
        Origin {
            part: Some(path.to_owned()),
            root: Some(Some(i) == self.root),
            content_type: Some(content_type.to_owned()),
            mbox: self.mbox.as_ref().map(|(_, r, _)| r.clone()),
            ..Origin::default()
        }
    }

    /// The tree's own diagnostics, for the first record, with their places in the file.
    fn tree_diagnostics(&mut self) -> Vec<Diagnostic> {
        if !std::mem::take(&mut self.first) {
            return Vec::new();
        }
        let mut all = self.tree.diagnostics.clone();
        for d in &mut all {
            d.at = d.at.map(|at| self.place(at));
        }
        all
    }

    /// The record of something that is not a document, with no base and no encoding.
    fn unread(&self, origin: Origin, diagnostics: Vec<Diagnostic>) -> Item<'a> {
        Item::Unread(BaseRecord {
            origin,
            base: None,
            base_source: crate::BaseSource::None,
            encoding: "",
            encoding_source: crate::decode::EncodingSource::Fallback,
            diagnostics,
        })
    }

    /// Part `i` as a document, or as the record of a part that cannot be read; `None` for a
    /// part that is neither HTML nor CSS.
    fn part(&mut self, i: usize) -> Option<Item<'a>> {
        let part = self.tree.parts.get(i)?;
        let kind = match part.mime_type.as_str() {
            _ if part.kind != PartKind::Leaf => return None,
            "text/css" => Kind::Css,
            "text/html" => Kind::Html,
            _ => return None,
        };
        let path = mime::display_path(&part.path).to_owned();
        let origin = self.origin(&path, i, &part.mime_type);
        let body_at = self.place(part.body_at);
        let mut diagnostics = self.tree_diagnostics();
        let heads = headings(&self.tree, i, &self.layers);
        let resolve = self.resolve;
        let base = heading_base(&heads, &self.layers, resolve, true, &mut diagnostics);
        let index = self
            .index
            .get_or_insert_with(|| {
                let keys = part_keys(&self.tree, &self.layers, resolve);
                Arc::new(PartIndex::new(&self.tree, &keys))
            })
            .clone();
        let scopes = index.scopes(&self.tree, i);
        let part = self.tree.parts.get_mut(i)?;
        let Some(body) = part.decoded.take() else {
            diagnostics.push(
                Diagnostic::new(
                    DiagnosticCode::PartSkipped,
                    "left as it was: its body cannot be decoded",
                )
                .at(body_at),
            );
            return Some(self.unread(origin, diagnostics));
        };
        // The part's own URL: its Content-Location made absolute, else the retrieval URI.
        let document_uri = index
            .keys
            .get(i)
            .cloned()
            .flatten()
            .and_then(|k| crate::Uri::parse(&k).ok())
            .or_else(|| {
                self.layers
                    .retrieval_uri
                    .as_deref()
                    .and_then(|u| crate::Uri::parse(u).ok())
            });
        let back = PartBack {
            message: self.mbox.as_ref().map_or(0, |(m, _, _)| *m),
            index: i,
            span: part.body.clone(),
            transfer_encoding: part.transfer_encoding.clone(),
            eol: part.eol,
            body_at,
            targets: Targets(Arc::new(move |resolved: &str| {
                let t = index.target(&scopes, resolved)?;
                index.paths.get(t).cloned()
            })),
        };
        Some(Item::Document(Document {
            name: format!("{} part {path}", self.name),
            body: Body::Bytes(Cow::Owned(body)),
            kind,
            layers: Layers::Settled(Outer { base, document_uri }),
            charset: part.charset.clone(),
            origin,
            diagnostics,
            conditional_comments: true,
            back: Back::Part(back),
        }))
    }

    /// What follows the parts: the message's own damage when no part carried it, each part not
    /// read, and the end of the message.
    fn tail(&mut self) -> Vec<Item<'a>> {
        let mut out = Vec::new();
        if self.first && !self.tree.diagnostics.is_empty() {
            let mut origin = self.origin("0", usize::MAX, "");
            origin.content_type = self.tree.parts.first().map(|p| p.mime_type.clone());
            let diagnostics = self.tree_diagnostics();
            out.push(self.unread(origin, diagnostics));
        }
        for (path, diagnostic) in &self.tree.skipped {
            let mut origin = self.origin(path, usize::MAX, "");
            origin.content_type = None;
            let mut diagnostic = diagnostic.clone();
            diagnostic.at = diagnostic.at.map(|at| self.place(at));
            out.push(self.unread(origin, vec![diagnostic]));
        }
        out.push(Item::MessageEnd(MessageEnd {
            name: self.name.clone(),
            message: self.mbox.as_ref().map_or(0, |(m, _, _)| *m),
        }));
        out
    }
}

impl<'a> Reader<'a> for MessageDocuments<'a> {
    fn resolve_with(&mut self, resolve: crate::ResolveOptions) {
        self.resolve = resolve;
    }

    fn default_retrieval_uri(&mut self, uri: &str) {
        self.layers
            .retrieval_uri
            .get_or_insert_with(|| uri.to_owned());
    }

    fn next(&mut self) -> Option<Item<'a>> {
        while self.tail.is_none() {
            let i = self.next;
            if i >= self.tree.parts.len() {
                self.tail = Some(self.tail().into_iter());
                break;
            }
            self.next += 1;
            if let Some(item) = self.part(i) {
                self.first = false;
                return Some(item);
            }
        }
        self.tail.as_mut()?.next()
    }

    fn write(
        &mut self,
        item: &Item<'a>,
        new: Option<Vec<u8>>,
        _: &mut dyn Write,
    ) -> io::Result<Wrote> {
        match put_back(item, new) {
            Some((_, splice)) => {
                self.splices.push(splice);
                Ok(Wrote::Changed)
            }
            None => Ok(Wrote::Copied),
        }
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(&self.spliced())
    }

    fn message(&self) -> Option<super::input::MessageInput<'_>> {
        Some(super::input::MessageInput {
            name: &self.name,
            bytes: &self.bytes,
            layers: self.layers.clone(),
        })
    }

    fn write_back(&self) -> WriteBack {
        WriteBack::Message
    }
}

/// A part's place in its message, and its new bytes there.
pub(super) type Splice = (Range<usize>, Vec<u8>);

/// The message `bytes`, named `name`, as a tree of parts.
fn parse(name: &str, bytes: &[u8]) -> Result<MessageTree, Error> {
    mime::parse(bytes).map_err(|source| Error::Message {
        input: name.to_owned(),
        source,
    })
}

/// The splice a rewritten part's `new` body makes in its message, and the message's place in
/// its input; `None` for anything else, or a part that cannot go back.
pub(super) fn put_back(item: &Item<'_>, new: Option<Vec<u8>>) -> Option<(usize, Splice)> {
    let (Item::Document(doc), Some(new)) = (item, new) else {
        return None;
    };
    let Back::Part(back) = &doc.back else {
        return None;
    };
    Some((back.message, back.encoded(new)?))
}

/// Each part's Content-Location resolved against the headings around it (RFC 2557 §8.2(c)):
/// what a reference is matched against, and what names a part's file (`message::page`).
pub(crate) fn part_keys(
    tree: &MessageTree,
    layers: &BaseLayers,
    resolve: crate::ResolveOptions,
) -> Vec<Option<String>> {
    (0..tree.parts.len())
        .map(|i| {
            let part = tree.parts.get(i)?;
            let location = part.content_location.as_deref()?;
            let base = heading_base(
                &headings(tree, i, layers),
                layers,
                resolve,
                false,
                &mut Vec::new(),
            );
            layer_value(location, &base, resolve)
                .ok()
                .map(|u| u.to_string())
        })
        .collect()
}

/// The headings around part `i`, outermost first, ending with the part's own; the caller's
/// `--content-location` / `--content-base` stand as a heading around the whole message.
fn headings<'t>(
    tree: &'t MessageTree,
    i: usize,
    layers: &'t BaseLayers,
) -> Vec<(Option<&'t str>, Option<&'t str>)> {
    let mut chain: Vec<usize> = tree.ancestors(i);
    chain.reverse();
    chain.push(i);
    let mut out = vec![(
        layers.content_location.as_deref(),
        layers.content_base.as_deref(),
    )];
    out.extend(
        chain
            .into_iter()
            .filter_map(|p| tree.parts.get(p))
            .map(|p| (p.content_location.as_deref(), p.content_base.as_deref())),
    );
    out
}

/// Each multipart/related aggregate's members by resolved Content-Location and by Content-ID,
/// built once per message, so that matching a reference costs a hash lookup per enclosing
/// aggregate rather than a walk over every part.
#[derive(Debug)]
struct PartIndex {
    /// Each part's resolved Content-Location ([`part_keys`]).
    keys: Vec<Option<String>>,
    /// Each part's path ([`mime::display_path`]).
    paths: Vec<String>,
    /// Per aggregate (the multipart/related's index): its first member with each resolved
    /// Content-Location (RFC 2557 §8.2(c)).
    locations: HashMap<usize, HashMap<String, usize>>,
    /// Per aggregate: its first member with each Content-ID.
    cids: HashMap<usize, HashMap<String, usize>>,
    /// Per aggregate: its first member with each `cid:` Content-Location (a label, which
    /// resolves to no key in `locations`; see [`PartIndex::target`]).
    cid_labels: HashMap<usize, HashMap<String, usize>>,
}

impl PartIndex {
    /// `keys`: each part's resolved Content-Location.
    fn new(tree: &MessageTree, keys: &[Option<String>]) -> Self {
        let mut index = PartIndex {
            keys: keys.to_vec(),
            paths: tree
                .parts
                .iter()
                .map(|p| mime::display_path(&p.path).to_owned())
                .collect(),
            locations: HashMap::new(),
            cids: HashMap::new(),
            cid_labels: HashMap::new(),
        };
        for (a, part) in tree.parts.iter().enumerate() {
            if part.mime_type != "multipart/related" {
                continue;
            }
            // The aggregate's members: descendants, without entering nested aggregates or
            // messages (which may be targets themselves, RFC 2557 example 9.6), in message
            // order, so the first member seen with a key is the one a walk would find first.
            let mut stack: Vec<usize> = part.children.iter().rev().copied().collect();
            while let Some(j) = stack.pop() {
                let Some(p) = tree.parts.get(j) else {
                    continue;
                };
                if let Some(Some(k)) = keys.get(j) {
                    index
                        .locations
                        .entry(a)
                        .or_default()
                        .entry(k.clone())
                        .or_insert(j);
                }
                if let Some(id) = p.content_id.as_deref() {
                    index
                        .cids
                        .entry(a)
                        .or_default()
                        .entry(id.to_owned())
                        .or_insert(j);
                }
                if let Some(label) = p
                    .content_location
                    .as_deref()
                    .filter(|l| crate::base::is_cid(l))
                {
                    index
                        .cid_labels
                        .entry(a)
                        .or_default()
                        .entry(label.to_owned())
                        .or_insert(j);
                }
                if p.kind == PartKind::Multipart && p.mime_type != "multipart/related" {
                    stack.extend(p.children.iter().rev());
                }
            }
        }
        index
    }

    /// The aggregates a reference from part `from` may name a part of: the enclosing
    /// multipart/related, innermost first, up to the enclosing message (RFC 2557 §7, §8.3).
    fn scopes(&self, tree: &MessageTree, from: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for a in tree.ancestors(from) {
            let Some(part) = tree.parts.get(a) else {
                break;
            };
            if part.kind == PartKind::Message {
                break;
            }
            if part.mime_type == "multipart/related" {
                out.push(a);
            }
        }
        out
    }

    /// RFC 2557 §8.2(d) and §8.3: the part a resolved reference names, searched in the
    /// innermost enclosing aggregate first, then the enclosing ones (`scopes`) — not in
    /// siblings. `cid:` references match Content-IDs (RFC 2392: `%`-decoded, brackets
    /// stripped; the raw form too, as RFC 2392's own example needs); in an aggregate, the first
    /// part that matches either form wins.
    ///
    /// One exception to §8.3, for Chromium's MHTML: a `cid:` reference no Content-ID matches
    /// names the part whose Content-Location is that very `cid:` URL, octet for octet (§8.2(d)'s
    /// comparison). Chromium saves stylesheets as parts labelled only
    /// `Content-Location: cid:css-…@mhtml.blink`, referenced by that URL, and its reader finds
    /// subresources by Content-Location and by Content-ID alike; without this they match
    /// nothing, and `rewrite --extract` leaves the page without its styles.
    fn target(&self, scopes: &[usize], resolved: &str) -> Option<usize> {
        let cid = crate::base::is_cid(resolved)
            .then(|| resolved.get(4..))
            .flatten();
        let decoded_cid = cid.map(crate::uri::percent_decode);
        // A browser loading `img.png#frag` fetches `img.png`: the fragment is not part of the
        // resource's URL (RFC 2396 §4.1), so it takes no part in matching a Content-Location;
        // it stays in the resolved URL.
        let unfragmented = resolved.split_once('#').map(|(before, _)| before);
        let (table, forms) = match cid {
            Some(raw) => (&self.cids, [Some(raw), decoded_cid.as_deref()]),
            None => (&self.locations, [Some(resolved), unfragmented]),
        };
        let found = scopes.iter().find_map(|a| {
            let members = table.get(a)?;
            forms
                .iter()
                .flatten()
                .filter_map(|k| members.get(*k))
                .min()
                .copied()
        });
        found.or_else(|| {
            cid?;
            scopes
                .iter()
                .find_map(|a| self.cid_labels.get(a)?.get(resolved).copied())
        })
    }
}

/// Whether [`transfer_encode`] can write this Content-Transfer-Encoding.
fn is_writable(encoding: &str) -> bool {
    matches!(
        encoding,
        "7bit" | "8bit" | "binary" | "quoted-printable" | "base64"
    )
}

/// The body in its Content-Transfer-Encoding, lines ended with `eol`, encoded lines within 76
/// characters (RFC 2045 §6.7, §6.8). `None` for an encoding we do not write.
fn transfer_encode(body: &[u8], encoding: &str, eol: &str) -> Option<Vec<u8>> {
    // The HTML serializer ends lines with LF (the parser normalised CRLF, HTML LS §13.2.3.5).
    let with_eol = |bytes: &[u8]| -> Vec<u8> {
        if eol == "\n" {
            return bytes.to_vec();
        }
        let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 40);
        for &b in bytes {
            if b == b'\n' {
                out.extend_from_slice(eol.as_bytes());
            } else {
                out.push(b);
            }
        }
        out
    };
    match encoding {
        "7bit" | "8bit" | "binary" => Some(with_eol(body)),
        "quoted-printable" => {
            // quoted_printable writes CRLF line breaks; text mode keeps CRLF pairs as breaks.
            let crlf = if eol == "\r\n" {
                with_eol(body)
            } else {
                to_crlf(body)
            };
            let encoded = quoted_printable::encode(crlf);
            Some(if eol == "\n" {
                from_crlf(&encoded)
            } else {
                encoded
            })
        }
        "base64" => {
            let text = base64::engine::general_purpose::STANDARD.encode(body);
            let mut out = Vec::with_capacity(text.len() + text.len() / 76 * 2 + 2);
            for (n, line) in text.as_bytes().chunks(76).enumerate() {
                if n > 0 {
                    out.extend_from_slice(eol.as_bytes());
                }
                out.extend_from_slice(line);
            }
            Some(out)
        }
        _ => None,
    }
}

fn to_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 40);
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

fn from_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(b);
        i += 1;
    }
    out
}

/// The input with each span replaced; spans are leaves' bodies, so they do not overlap.
pub(super) fn splice(input: &[u8], mut splices: Vec<Splice>) -> Vec<u8> {
    splices.sort_by_key(|(r, _)| r.start);
    let mut out = Vec::with_capacity(input.len() + 1024);
    let mut at = 0;
    for (range, bytes) in splices {
        if range.start < at || range.end > input.len() {
            continue;
        }
        out.extend_from_slice(input.get(at..range.start).unwrap_or_default());
        out.extend_from_slice(&bytes);
        at = range.end;
    }
    out.extend_from_slice(input.get(at..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn transfer_encodings_keep_line_endings_and_width() {
        let body = "<p>caf\u{e9} ".repeat(30) + "\n<a>x</a>\n";
        for eol in ["\r\n", "\n"] {
            let qp = transfer_encode(body.as_bytes(), "quoted-printable", eol).unwrap();
            let text = String::from_utf8(qp.clone()).unwrap();
            assert!(text.split(eol).all(|l| l.len() <= 76), "{text}");
            if eol == "\n" {
                assert!(!text.contains('\r'));
            }
            // Strict decoding wants CRLF line breaks.
            let crlf = if eol == "\n" {
                to_crlf(&qp)
            } else {
                qp.clone()
            };
            let decoded =
                quoted_printable::decode(&crlf, quoted_printable::ParseMode::Strict).unwrap();
            assert_eq!(from_crlf(&decoded), body.as_bytes());
            let b64 = transfer_encode(body.as_bytes(), "base64", eol).unwrap();
            let text = String::from_utf8(b64).unwrap();
            assert!(text.split(eol).all(|l| l.len() <= 76));
            let joined: String = text.split(eol).collect();
            assert_eq!(
                base64::engine::general_purpose::STANDARD
                    .decode(joined)
                    .unwrap(),
                body.as_bytes()
            );
        }
        assert_eq!(transfer_encode(b"a\nb", "8bit", "\r\n").unwrap(), b"a\r\nb");
        assert_eq!(transfer_encode(b"a", "x-uuencode", "\n"), None);
    }
}
