//! A message as a page of files: `rewrite MESSAGE --extract DIR` writes the
//! message's root HTML part and every part it references, directly or through the parts it
//! references (a stylesheet's images, a frame's parts), each as a file; references to them —
//! `cid:` (RFC 2392) or a Content-Location (RFC 2557 §8.2) — become relative paths between the
//! files, so the page opens from `file://` with its images.
//!
//! One rule for which part a reference names: the links report's `target_part` (the message's
//! part index, [`super::links_message`]); one rule for file names: [`crate::archive::ExtractNames`]
//! (a WARC extraction's), given each part's resolved Content-Location when it has a host, else a
//! name under `message/` (docs/mail.md says which).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use super::{part_keys, process, MessageInput, Mode};
use crate::archive::{extract_path, file_link, ExtractCollision, ExtractNames};
use crate::error::Error;
use crate::input::mime::{self, MessageTree, PartKind};
use crate::layout::Kind;
use crate::pipeline::Options;
use crate::report::Report;

/// One file of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFile {
    /// The part's IMAP section (`1.2`).
    pub part: String,
    /// Its media type (`image/png`).
    pub mime_type: String,
    /// Where it goes, relative to the extraction directory.
    pub path: PathBuf,
    /// Its bytes: the body transfer-decoded, and for HTML and CSS parts rewritten.
    pub bytes: Vec<u8>,
}

/// A leaf part not written, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The part's IMAP section.
    pub part: String,
    /// Its media type, and its file name when the heading gives one.
    pub what: String,
    /// Why: `not referenced by the page`, or `its body cannot be decoded`.
    pub why: &'static str,
}

/// What [`extract_page`] made.
#[derive(Debug, Clone)]
pub struct MessagePage {
    /// The files, the root page first.
    pub files: Vec<PageFile>,
    /// One report per HTML and CSS part, as [`super::rewrite_message`] gives them.
    pub reports: Vec<Report>,
    /// Parts whose name another part had first ([`ExtractNames`]), written under another name.
    pub collisions: Vec<ExtractCollision>,
    /// Leaf parts not written.
    pub left_out: Vec<LeftOut>,
    /// Links that lead to a file of the page (as relative paths).
    pub relinked: u64,
}

/// The relinker of one part: its links to parts written become relative paths from its file.
struct PartRelinker {
    /// The part's own file.
    from: PathBuf,
    /// A link's resolved URL (without its fragment) → the file of the part it names.
    to: HashMap<String, PathBuf>,
}

impl crate::rewrite::Relink for PartRelinker {
    fn relink(&self, _document: &str, resolved: &str) -> Option<String> {
        let (url, fragment) = match resolved.split_once('#') {
            Some((u, f)) => (u, Some(f)),
            None => (resolved, None),
        };
        file_link(&self.from, self.to.get(url)?, fragment)
    }
}

/// The message's root HTML part and every part it references, as files with relative links
/// between them. `<base>` elements go (`drop_base`): a base would redirect the relative paths.
/// References to parts that are not in the message, and to other sites, are written absolute
/// as by `rewrite`; leaf parts no written part references are listed in
/// [`MessagePage::left_out`], not written.
///
/// # Errors
/// As [`super::rewrite_message`]; [`Error::NoHtmlPart`] or [`Error::UndecodableHtmlPart`] when
/// the message has no HTML part that can be a page.
pub fn extract_page(input: &MessageInput<'_>, options: &Options) -> Result<MessagePage, Error> {
    let mut options = options.clone();
    options.rewrite.drop_base = true;
    let reports = process(input, &options, Mode::Links)?.reports;
    let tree = mime::parse(input.bytes).map_err(|source| Error::Message {
        input: input.name.to_owned(),
        source,
    })?;
    let Some(root) = tree.root_document() else {
        return Err(Error::NoHtmlPart {
            input: input.name.to_owned(),
        });
    };
    if tree.parts.get(root).is_none_or(|p| p.decoded.is_none()) {
        return Err(Error::UndecodableHtmlPart {
            input: input.name.to_owned(),
        });
    }
    let by_path: HashMap<&str, usize> = tree
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| (mime::display_path(&p.path), i))
        .collect();
    let by_part: HashMap<usize, &Report> = reports
        .iter()
        .filter_map(|r| Some((*by_path.get(r.base.origin.part.as_deref()?)?, r)))
        .collect();
    // The parts to write: the root, then what written parts name, breadth first (so the root's
    // own references get their names first). Only leaves are files.
    let mut order = vec![root];
    let mut seen: HashSet<usize> = order.iter().copied().collect();
    let mut queue: VecDeque<usize> = order.iter().copied().collect();
    while let Some(i) = queue.pop_front() {
        let Some(report) = by_part.get(&i) else {
            continue;
        };
        for link in &report.links {
            let Some(t) = link.target_part.as_deref().and_then(|t| by_path.get(t)) else {
                continue;
            };
            let leaf = tree.parts.get(*t).is_some_and(|p| p.kind == PartKind::Leaf);
            if leaf && seen.insert(*t) {
                order.push(*t);
                queue.push_back(*t);
            }
        }
    }
    let mut left_out = Vec::new();
    order.retain(|&i| {
        let readable = tree.parts.get(i).is_some_and(|p| p.decoded.is_some());
        if !readable {
            left_out.push(left(&tree, i, "its body cannot be decoded"));
        }
        readable
    });
    for (i, p) in tree.parts.iter().enumerate() {
        if p.kind == PartKind::Leaf && !seen.contains(&i) {
            left_out.push(left(&tree, i, "not referenced by the page"));
        }
    }
    // Names.
    let keys = part_keys(&tree, &input.layers, options.rewrite.resolve);
    // Each name URI ends in `#SECTION` (no part of a file name): two parts with one
    // Content-Location or one file name are two URIs of one name, which `ExtractNames` keeps
    // apart (`~2`) and reports.
    let uris: Vec<String> = order
        .iter()
        .map(|&i| {
            let uri = name_uri(&tree, &keys, i, i == root);
            let uri = uri.split_once('#').map_or(uri.as_str(), |(u, _)| u);
            format!("{uri}#{}", section_name(&tree, i))
        })
        .collect();
    let (names, collisions) = ExtractNames::assign(
        order
            .iter()
            .zip(&uris)
            .map(|(&i, u)| (u.as_str(), name_kind(&tree, i))),
    );
    let file_of: HashMap<usize, PathBuf> = order
        .iter()
        .zip(&uris)
        .filter_map(|(&i, u)| Some((i, names.file(u)?.to_path_buf())))
        .collect();
    // Each written HTML or CSS part's relinker.
    let mut relinkers = HashMap::new();
    for &i in &order {
        let (Some(report), Some(from)) = (by_part.get(&i), file_of.get(&i)) else {
            continue;
        };
        let mut to = HashMap::new();
        for link in &report.links {
            let target = link.target_part.as_deref().and_then(|t| by_path.get(t));
            if let (Some(resolved), Some(file)) =
                (&link.resolved, target.and_then(|t| file_of.get(t)))
            {
                let url = resolved
                    .split_once('#')
                    .map_or(resolved.as_str(), |(u, _)| u);
                to.insert(url.to_owned(), file.clone());
            }
        }
        let relinker = PartRelinker {
            from: from.clone(),
            to,
        };
        relinkers.insert(i, crate::Relinker(Arc::new(relinker)));
    }
    let done = process(input, &options, Mode::Extract(&relinkers))?;
    let mut bodies = done.bodies;
    let done_reports: HashMap<usize, &Report> = done
        .reports
        .iter()
        .filter(|r| r.base.origin.part.is_some() && r.base.encoding == "UTF-8")
        .filter_map(|r| Some((*by_path.get(r.base.origin.part.as_deref()?)?, r)))
        .collect();
    let files = order
        .iter()
        .filter_map(|&i| {
            let part = tree.parts.get(i)?;
            let mut bytes = match bodies.remove(&i) {
                Some(b) => b,
                None => part.decoded.clone()?,
            };
            if let Some(report) = done_reports.get(&i) {
                with_declared_charset(&report.base, &mut bytes);
            }
            Some(PageFile {
                part: mime::display_path(&part.path).to_owned(),
                mime_type: part.mime_type.clone(),
                path: file_of.get(&i)?.clone(),
                bytes,
            })
        })
        .collect();
    let relinked = done
        .reports
        .iter()
        .flat_map(|r| &r.links)
        .filter(|l| {
            let target = l.target_part.as_deref().and_then(|t| by_path.get(t));
            target.is_some_and(|t| file_of.contains_key(t))
        })
        .count() as u64;
    Ok(MessagePage {
        files,
        reports: done.reports,
        collisions,
        left_out,
        relinked,
    })
}

/// A UTF-8 HTML or CSS part whose charset its heading gives (`Content-Type: text/html;
/// charset=utf-8`) would lose it as a file, where nothing else may declare it: from `file://` a
/// browser guesses. A byte order mark declares it and is not markup (HTML LS "decode" and CSS
/// Syntax §3.2: a BOM wins over everything and is not part of the text), so it is added. A
/// part in another charset given by its heading is written as it is (saying it would take
/// markup).
fn with_declared_charset(base: &crate::report::BaseRecord, bytes: &mut Vec<u8>) {
    use crate::decode::EncodingSource;
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let html = base.encoding == "UTF-8" && base.encoding_source == EncodingSource::Transport;
    if html && !bytes.starts_with(BOM) {
        bytes.splice(0..0, BOM.iter().copied());
    }
}

/// The directory, inside the extraction directory, of parts without a Content-Location that
/// names a file on a host: a name URI of this prefix becomes `message/NAME`.
const MESSAGE_DIR: &str = "thismessage://message/";

/// The URI a written part is named by ([`ExtractNames`]): its resolved Content-Location when
/// that has a host (`http://h/img/a.png` → `h/img/a.png`, as a WARC extraction names it); else
/// `message/NAME`, NAME being the last segment of its Content-Location (`thismessage:/image1`),
/// else the file name its heading gives (Content-Disposition `filename`, Content-Type `name`),
/// else `index.html` for the root page, else `part-SECTION`. An HTML or CSS part's file ends in
/// `.html` or `.css` ([`name_kind`]: added by the names' one rule, wget `-E`'s): from `file://`
/// a browser takes a file's type from its extension, and applies a stylesheet only as
/// `text/css`.
fn name_uri(tree: &MessageTree, keys: &[Option<String>], i: usize, root: bool) -> String {
    let key = keys.get(i).cloned().flatten();
    if let Some(k) = &key {
        if extract_path(k, Kind::Other).is_some() {
            return k.clone();
        }
    }
    let part = tree.parts.get(i);
    let from_key = key.as_deref().and_then(|k| {
        let path = crate::UriRef::parse(k).path;
        let last = path.rsplit('/').next()?;
        (!last.is_empty()).then(|| last.to_owned())
    });
    let from_heading = part.and_then(|p| {
        let disposition = p.headers.get("Content-Disposition").map(|v| {
            mailparse::parse_content_disposition(v)
                .params
                .get("filename")
                .cloned()
        });
        let ctype = p
            .headers
            .get("Content-Type")
            .map(|v| mailparse::parse_content_type(v).params.get("name").cloned());
        let name = disposition.flatten().or(ctype.flatten())?;
        // A file name, not a path: what would split it or end it is replaced.
        let name: String = name
            .chars()
            .map(|c| match c {
                '/' | '\\' | '?' | '#' => '_',
                c => c,
            })
            .collect();
        (!name.trim().is_empty()).then_some(name)
    });
    let name = from_key.or(from_heading).unwrap_or_else(|| match root {
        true => "index.html".to_owned(),
        false => format!("part-{}", section_name(tree, i)),
    });
    format!("{MESSAGE_DIR}{name}")
}

/// What the file-naming rule ([`crate::layout::adjust_extension`], through [`ExtractNames`])
/// needs of part `i`: the parts the message module reads as HTML and CSS (`text/html`,
/// `text/css`) are named as pages and stylesheets, so their files end in `.html` / `.css`.
fn name_kind(tree: &MessageTree, i: usize) -> Kind {
    match tree.parts.get(i).map(|p| p.mime_type.as_str()) {
        Some("text/html") => Kind::Html,
        Some("text/css") => Kind::Css,
        _ => Kind::Other,
    }
}

/// Part `i`'s IMAP section as a file name (`1.2`).
fn section_name(tree: &MessageTree, i: usize) -> String {
    tree.parts
        .get(i)
        .map_or("0", |p| mime::display_path(&p.path))
        .to_owned()
}

fn left(tree: &MessageTree, i: usize, why: &'static str) -> LeftOut {
    let part = tree.parts.get(i);
    let name = part
        .and_then(|p| p.headers.get("Content-Disposition"))
        .and_then(|v| {
            mailparse::parse_content_disposition(v)
                .params
                .get("filename")
                .cloned()
        });
    let mime_type = part.map_or("", |p| p.mime_type.as_str());
    LeftOut {
        part: section_name(tree, i),
        what: match name {
            Some(n) => format!("{mime_type} {n:?}"),
            None => mime_type.to_owned(),
        },
        why,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::path::Path;

    /// A one-part message of `mime_type`, for the names of its part.
    fn tree(mime_type: &str) -> MessageTree {
        let message = format!("Content-Type: {mime_type}\r\n\r\nx");
        mime::parse(message.as_bytes()).unwrap()
    }

    /// HTML and CSS parts are named by the extraction's rule with their kind: `.html` / `.css`
    /// after the whole name, query included, as wget `-E` (`layout::adjust_extension`).
    #[test]
    fn html_and_css_files_end_in_their_extension() {
        let html = tree("text/html");
        let css = tree("text/css");
        let png = tree("image/png");
        let cases = [
            (&html, "thismessage://message/page#1", "message/page.html"),
            (&html, "thismessage://message/a.HTM#1", "message/a.HTM"),
            (&html, "http://h/dir/#1", "h/dir/index.html"),
            (&html, "http://h/p?x=1#1", "h/p?x=1.html"),
            (&css, "http://h/site.css#1", "h/site.css"),
            (&css, "http://h/style#1", "h/style.css"),
            (&png, "thismessage://message/image1#1", "message/image1"),
        ];
        for (t, uri, expected) in cases {
            let (names, _) = ExtractNames::assign([(uri, name_kind(t, 0))]);
            assert_eq!(names.file(uri), Some(Path::new(expected)), "{uri}");
        }
    }

    #[test]
    fn parts_without_a_located_name_are_named_under_message() {
        let t = tree("image/png");
        let key = |k: &str| vec![Some(k.to_owned())];
        assert_eq!(
            name_uri(&t, &key("http://h/i/a.png"), 0, false),
            "http://h/i/a.png"
        );
        assert_eq!(
            name_uri(&t, &key("thismessage:/image1"), 0, false),
            "thismessage://message/image1"
        );
        assert_eq!(
            name_uri(&t, &[None], 0, false),
            "thismessage://message/part-1"
        );
        assert_eq!(
            name_uri(&tree("text/html"), &[None], 0, true),
            "thismessage://message/index.html"
        );
    }
}
