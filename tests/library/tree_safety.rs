//! Rewriting must never change the tree a browser builds. Every
//! document of the html5lib tree-construction suite (`tests/html5lib/*.dat`, MIT, vendored) is
//! rewritten against a base, and html5ever's tree of the output must equal its tree of the input
//! with attribute values masked. The old serializer round trip failed this for about 70
//! documents; the streaming engine (and the DOM plan's splicer) changes only URL values.
//! Documents still written through the serializer (see `splice::Fallback`) are counted and must
//! hold too.

use std::path::Path;

use linkbase::dom::Document;
use linkbase::pipeline::{self, Engine, HtmlInput, Options};
use linkbase::BaseLayers;

const SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/html5lib");

/// Every `#data` section of a `.dat` file that is a whole document (not a fragment case).
fn documents(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for test in text.split("\n\n#data\n") {
        let test = test.strip_prefix("#data\n").unwrap_or(test);
        if test.contains("\n#document-fragment") {
            continue;
        }
        if let Some((data, _)) = test.split_once("\n#errors") {
            out.push(data.to_owned());
        }
    }
    out
}

/// The serialized tree with every attribute value emptied: the structure, names and text remain.
fn masked_tree(html: &str) -> Option<String> {
    // Every attribute value emptied in the tree itself (masking the serialized text would also
    // hit `="` in text).
    let doc = Document::parse(html).ok()?;
    for element in doc.elements() {
        let mut names = Vec::new();
        element.for_each_attr(|ns, name, _| names.push((ns, name.to_owned())));
        for (ns, name) in names {
            element.set_attr(ns, &name, "");
        }
    }
    Some(doc.to_html())
}

#[test]
fn html5lib_documents_keep_their_tree_when_rewritten() {
    let suite = Path::new(SUITE);
    let mut files: Vec<_> = std::fs::read_dir(suite)
        .unwrap_or_else(|e| panic!("{SUITE}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    let (mut total, mut spliced, mut serialized, mut refused) = (0, 0, 0, 0);
    let mut changed = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, data) in documents(&text).into_iter().enumerate() {
            total += 1;
            let input = HtmlInput {
                name: "t.html",
                bytes: data.as_bytes(),
                layers: BaseLayers {
                    retrieval_uri: Some("http://example.com/a/b/page.html".into()),
                    ..BaseLayers::default()
                },
                charset: Some("utf-8".into()),
                ..HtmlInput::default()
            };
            let Ok(out) = pipeline::rewrite(&input, &Options::default()) else {
                refused += 1;
                continue;
            };
            match out.engine {
                Engine::Stream | Engine::Splice => spliced += 1,
                _ => serialized += 1,
            }
            let output = String::from_utf8(out.bytes).unwrap();
            if masked_tree(&data) != masked_tree(&output) {
                changed.push(format!(
                    "{} #{n} ({:?}): {data:?}",
                    file.file_name().unwrap().to_string_lossy(),
                    out.engine
                ));
            }
        }
    }
    eprintln!(
        "{total} documents: {spliced} spliced, {serialized} serialized, {refused} refused, {} changed tree",
        changed.len()
    );
    assert!(total > 1500, "the suite was read ({total} documents)");
    assert!(
        changed.is_empty(),
        "{} changed tree:\n{}",
        changed.len(),
        changed.join("\n")
    );
}
