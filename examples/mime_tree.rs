//! Prints the MIME part tree of a message: path, type, transfer encoding, Content-Location,
//! Content-ID, body span. `cargo run --example mime_tree -- FILE.mht`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use linkbase::input::mime;

fn main() {
    let path = std::env::args().nth(1).expect("usage: mime_tree FILE");
    let bytes = std::fs::read(&path).expect("read");
    let tree = mime::parse(&bytes).expect("parse");
    for (i, p) in tree.parts.iter().enumerate() {
        let depth = tree.ancestors(i).len();
        println!(
            "{:indent$}{} {} cte={} cl={:?} cid={:?} body={:?}",
            "",
            mime::display_path(&p.path),
            p.mime_type,
            p.transfer_encoding,
            p.content_location,
            p.content_id,
            p.body,
            indent = depth * 2
        );
    }
    for d in &tree.diagnostics {
        println!("! {d}");
    }
    for (part, d) in &tree.skipped {
        println!("! part {part} skipped: {d}");
    }
}
