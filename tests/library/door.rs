//! The door (`linkbase::open`) and the verbs over what it gives: every format's documents with
//! their role and origin, the same records from memory as from a file, layers an archive
//! refuses.

use linkbase::source::{Content, Input, Item, Role};
use linkbase::verb::{self, Done, InOrder, Sink};
use linkbase::{open, BaseLayers, Document, Error, LinkRecord, Origin};

/// Everything a verb gives, kept.
#[derive(Default)]
struct Kept {
    links: Vec<LinkRecord>,
    documents: Vec<(Role, Origin, String)>,
    said: Vec<String>,
}

impl Sink for Kept {
    fn link(&mut self, link: LinkRecord) -> std::io::Result<()> {
        self.links.push(link);
        Ok(())
    }
    fn document(&mut self, d: &Document<'_>, done: Result<Done, Error>) -> std::io::Result<()> {
        let base = done.map_or_else(
            |e| e.to_string(),
            |d| d.base.base.clone().unwrap_or_default(),
        );
        self.documents.push((d.role(), d.origin.clone(), base));
        Ok(())
    }
    fn skipped(&mut self, s: &linkbase::source::Skipped) -> std::io::Result<()> {
        self.said.extend(s.said.iter().cloned());
        Ok(())
    }
}

fn links(input: Input<'_>) -> Kept {
    let mut source = open(input).unwrap();
    let mut kept = Kept::default();
    verb::links(&mut source, &Default::default(), &InOrder, &mut kept).unwrap();
    kept
}

fn fixture(path: &str) -> String {
    format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn each_format_gives_documents_with_their_role_and_origin() {
    // A bare document: the whole input, named by what it is.
    let source = open(Input::bytes("", &b"<a href=x>"[..])).unwrap();
    assert_eq!(source.name(), "<html>");
    let html = links(Input {
        layers: BaseLayers {
            retrieval_uri: Some("http://h/d/p".into()),
            ..Default::default()
        },
        ..Input::bytes("", &b"<a href=x>"[..])
    });
    assert_eq!(
        html.documents,
        [(Role::Whole, Origin::default(), "http://h/d/p".to_owned())]
    );
    // A message: its parts.
    let message = links(Input::path(fixture("mhtml/8bit-utf8.eml")));
    assert!(message.documents.iter().all(|(role, origin, _)| {
        *role == Role::Part && origin.part.is_some() && origin.content_type.is_some()
    }));
    // An mbox: each message's parts, with the message.
    let mbox = links(Input::path(fixture("mbox/python-mailbox.mbox")));
    assert!(!mbox.documents.is_empty());
    assert!(mbox.documents.iter().all(|(_, o, _)| o.mbox.is_some()));
}

#[test]
fn an_archive_in_memory_reads_as_its_file_does() {
    let path = fixture("warc/warcio/example-iana.org-chunked.warc");
    let from_file = links(Input::path(&path));
    let bytes = std::fs::read(&path).unwrap();
    let from_memory = links(Input::bytes("x.warc", bytes.as_slice()));
    assert!(!from_file.links.is_empty());
    assert_eq!(from_file.links, from_memory.links);
    assert!(from_file
        .documents
        .iter()
        .all(|(role, o, _)| *role == Role::Record && o.warc.is_some()));
    let from_reader = links(Input {
        content: Content::Reader(Box::new(bytes.as_slice())),
        ..Input::bytes("x.warc", &[][..])
    });
    assert_eq!(from_file.links, from_reader.links);
}

#[test]
fn an_archive_refuses_layers_its_records_have_their_own_of() {
    let path = fixture("warc/warcio/example-iana.org-chunked.warc");
    let input = Input {
        layers: BaseLayers {
            retrieval_uri: Some("http://h/".into()),
            ..Default::default()
        },
        ..Input::path(&path)
    };
    let e = open(input).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NotForArchive {
                layer: "the retrieval URI",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_rewrite_writes_each_input_back() {
    // The toy archive (test-only): a format of the library's alone.
    let toy = b"LINKBASE-TOY\nhttp://h/a/ 11\n<a href=b>x\n";
    let mut source = open(Input::bytes("", &toy[..])).unwrap();
    let mut out = Vec::new();
    let mut kept = Kept::default();
    verb::rewrite(
        &mut source,
        &Default::default(),
        &InOrder,
        &mut out,
        &mut kept,
    )
    .unwrap();
    assert_eq!(
        out,
        b"LINKBASE-TOY\nhttp://h/a/ 22\n<a href=http://h/a/b>x\n"
    );
    assert_eq!(source.changed(), 1);
    assert_eq!(kept.documents.len(), 1);
    assert!(kept.said.is_empty());
    // Items come in order, each document once.
    let items: Vec<_> = open(Input::bytes("", &toy[..])).unwrap().collect();
    assert!(matches!(items.as_slice(), [Item::Document(_)]));
}

#[test]
fn fragment_targets_of_each_document() {
    let eml = b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p id=a><a name=b>x</a>\r\n";
    let mut source = open(Input::bytes("", &eml[..])).unwrap();
    let mut found = Vec::new();
    verb::fragment_targets(&mut source, &Default::default(), &mut |d, ids| {
        found.push((d.origin.part.clone(), ids.unwrap()));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        found,
        [(Some("1".to_owned()), vec!["a".to_owned(), "b".to_owned()])]
    );
}
