//! Serialization through html5ever's `HtmlSerializer`, driven by our own iterative walk.
//!
//! We drive it ourselves rather than calling rcdom's `Serialize` impl for two reasons:
//! rcdom's walk skips `<template>` contents (they live beside the children, not among them), and
//! html5ever writes a doctype as `<!DOCTYPE name>` only, dropping the public and system
//! identifiers that decide quirks mode — a change of meaning we must not make.

use std::io::{self, Write};

use html5ever::serialize::{HtmlSerializer, SerializeOpts, Serializer, TraversalScope};
use html5ever::QualName;
use markup5ever_rcdom::{Handle, NodeData};

enum Op {
    Open(Handle),
    /// The children to write inside an element: for `<template>`, its contents' children.
    Close(QualName),
}

/// The children of `root`, serialized. `scripting_enabled`: as the tree was parsed — HTML LS
/// §13.3 writes the text of a `<noscript>` raw only when scripting is enabled; in a tree parsed
/// with scripting disabled (`<noscript>` markup) its text was read with its character
/// references, so it must be escaped again or `&lt;script&gt;` becomes a live element.
pub(super) fn serialize(root: &Handle, size_hint: usize, scripting_enabled: bool) -> String {
    // Rewritten URLs make the output a little longer than the input.
    let mut out = Vec::with_capacity(size_hint + size_hint / 8 + 64);
    // Writing to a Vec cannot fail; html5ever only returns the writer's errors.
    if write(root, &mut out, scripting_enabled).is_err() {
        out.clear();
    }
    // The serializer writes only what it was given as &str, so the bytes are UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn write(root: &Handle, out: &mut Vec<u8>, scripting_enabled: bool) -> io::Result<()> {
    let opts = SerializeOpts {
        scripting_enabled,
        traversal_scope: TraversalScope::ChildrenOnly(None),
        // A tree from the parser is always well formed, but an edited one must never panic.
        create_missing_parent: true,
    };
    let mut ser = HtmlSerializer::new(out, opts);
    let mut ops: Vec<Op> = root
        .children
        .borrow()
        .iter()
        .rev()
        .cloned()
        .map(Op::Open)
        .collect();
    while let Some(op) = ops.pop() {
        match op {
            Op::Close(name) => ser.end_elem(name)?,
            Op::Open(node) => match &node.data {
                NodeData::Element {
                    name,
                    attrs,
                    template_contents,
                    ..
                } => {
                    ser.start_elem(
                        name.clone(),
                        attrs.borrow().iter().map(|a| (&a.name, &a.value[..])),
                    )?;
                    ops.push(Op::Close(name.clone()));
                    let contents = template_contents.borrow();
                    let source = contents.as_ref().unwrap_or(&node);
                    for child in source.children.borrow().iter().rev() {
                        ops.push(Op::Open(child.clone()));
                    }
                }
                NodeData::Doctype {
                    name,
                    public_id,
                    system_id,
                } => write_doctype(&mut ser.writer, name, public_id, system_id)?,
                NodeData::Text { contents } => ser.write_text(&contents.borrow())?,
                NodeData::Comment { contents } => ser.write_comment(contents)?,
                NodeData::ProcessingInstruction { target, contents } => {
                    ser.write_processing_instruction(target, contents)?
                }
                NodeData::Document => {}
            },
        }
    }
    Ok(())
}

/// `<!DOCTYPE name PUBLIC "p" "s">`, keeping the identifiers the parser read (HTML LS §13.2.5.54
/// onwards read them; quirks mode depends on them).
fn write_doctype(
    out: &mut impl Write,
    name: &str,
    public_id: &str,
    system_id: &str,
) -> io::Result<()> {
    write!(out, "<!DOCTYPE {name}")?;
    if !public_id.is_empty() {
        write!(out, " PUBLIC {}", quoted(public_id))?;
        if !system_id.is_empty() {
            write!(out, " {}", quoted(system_id))?;
        }
    } else if !system_id.is_empty() {
        write!(out, " SYSTEM {}", quoted(system_id))?;
    }
    out.write_all(b">")
}

/// An identifier in the quotes it can be written in (it cannot contain both kinds).
fn quoted(id: &str) -> String {
    if id.contains('"') {
        format!("'{id}'")
    } else {
        format!("\"{id}\"")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::engine::dom::Document;

    #[test]
    fn doctype_identifiers_survive() {
        let html = r#"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html><head></head><body></body></html>"#;
        assert_eq!(Document::parse(html).unwrap().to_html(), html);
        let html = r#"<!DOCTYPE html SYSTEM "about:legacy-compat"><html><head></head><body></body></html>"#;
        assert_eq!(Document::parse(html).unwrap().to_html(), html);
    }

    #[test]
    fn template_contents_survive() {
        let html =
            "<html><head></head><body><template><a href=\"x\">y</a></template></body></html>";
        assert_eq!(Document::parse(html).unwrap().to_html(), html);
    }
}
