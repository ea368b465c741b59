//! docs/html-rules.md §6, checked on every golden output: the output, re-parsed, is the input's tree
//! (same elements and attributes in the same order, same text), every changed attribute value
//! accounted for by a rewritten link of the report (`iframe srcdoc` and `<noscript>` contents
//! are compared as documents of their own; `<meta>` charset declarations may follow
//! `output_charset`).

use std::collections::{HashMap, VecDeque};

use linkbase::dom::{AttrNs, Document, ElementNs, ElementRef};
use linkbase::report::LinkRecord;

/// A document's text for the tree check: decoded as the pipeline decodes it.
fn parse_bytes(bytes: &[u8], label: Option<&str>) -> Result<Document, String> {
    let decoded = linkbase::decode::decode(bytes, label).map_err(|e| e.to_string())?;
    Document::parse(&decoded.text).map_err(|e| e.to_string())
}

/// A rewritten link of the report: what was written, and what replaced it.
#[derive(Debug, Clone)]
struct Change {
    original: String,
    resolved: String,
}

/// Rewritten links not yet matched to a changed attribute or text, by
/// (srcdoc depth, element, attribute), in document order.
type Pending = HashMap<(usize, String, Option<String>), VecDeque<Change>>;

fn attr_name(ns: AttrNs, name: &str) -> String {
    match ns {
        AttrNs::XLink => format!("xlink:{name}"),
        AttrNs::Xml => format!("xml:{name}"),
        _ => name.to_owned(),
    }
}

fn attrs(e: &ElementRef) -> Vec<(String, String)> {
    let mut out = Vec::new();
    e.for_each_attr(|ns, name, value| out.push((attr_name(ns, name), value.to_owned())));
    out
}

/// docs/html-rules.md §6: the output's tree is the input's, rewritten values aside.
fn compare_trees(
    input: &Document,
    output: &Document,
    depth: usize,
    drop_base: bool,
    output_charset: Option<&str>,
    pending: &mut Pending,
    problems: &mut Vec<String>,
) {
    let mut ins: Vec<&ElementRef> = input.elements().iter().collect();
    if drop_base {
        // The chosen <base> (the first HTML one with href, outside templates) is removed.
        if let Some(i) = ins.iter().position(|e| {
            e.ns() == ElementNs::Html
                && e.name() == "base"
                && !e.in_template()
                && e.attr("href").is_some()
        }) {
            ins.remove(i);
            take(pending, depth, "base", Some("href"));
        }
    }
    let outs: Vec<&ElementRef> = output.elements().iter().collect();
    if ins.len() != outs.len() {
        problems.push(format!(
            "depth {depth}: {} elements in the input, {} in the output",
            ins.len(),
            outs.len()
        ));
    }
    for (a, b) in ins.iter().zip(&outs) {
        let here = format!("depth {depth}, <{}> #{}", a.name(), a.id().0);
        if (a.name(), a.ns(), a.in_template()) != (b.name(), b.ns(), b.in_template()) {
            problems.push(format!("{here}: became <{}> ({:?})", b.name(), b.ns()));
            return;
        }
        let (a_attrs, b_attrs) = (attrs(a), attrs(b));
        let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        if names(&a_attrs) != names(&b_attrs) {
            problems.push(format!(
                "{here}: attributes {:?} became {:?}",
                names(&a_attrs),
                names(&b_attrs)
            ));
            continue;
        }
        for ((name, old), (_, new)) in a_attrs.iter().zip(&b_attrs) {
            if old == new {
                continue;
            }
            if a.name() == "iframe" && name == "srcdoc" {
                match (Document::parse(old), Document::parse(new)) {
                    (Ok(i), Ok(o)) => {
                        compare_trees(&i, &o, depth + 1, false, None, pending, problems)
                    }
                    _ => problems.push(format!("{here}: srcdoc does not parse")),
                }
                continue;
            }
            if output_charset.is_some_and(|label| declares_charset(a, name, new, label)) {
                // Declared difference: <meta> charset declarations follow --output-charset.
                continue;
            }
            let style = name == "style";
            if let Err(why) = account(pending, depth, a.name(), Some(name), old, new, style) {
                problems.push(format!("{here} @{name}: {old:?} → {new:?}: {why}"));
            }
        }
        let (old, new) = (a.text(), b.text());
        if old != new && a.name() == "noscript" {
            // Parsed as text (scripting on), but markup for consumers without scripting.
            match (Document::parse(&old), Document::parse(&new)) {
                (Ok(i), Ok(o)) => compare_trees(&i, &o, depth, false, None, pending, problems),
                _ => problems.push(format!("{here}: noscript contents do not parse")),
            }
        } else if old != new {
            let css = a.name() == "style";
            if !css || account(pending, depth, a.name(), None, &old, &new, true).is_err() {
                problems.push(format!("{here}: text {old:?} became {new:?}"));
            }
        }
    }
}

/// A `<meta charset>` or `<meta http-equiv=content-type content>` now naming `label`.
fn declares_charset(e: &ElementRef, attribute: &str, new: &str, label: &str) -> bool {
    let content_type = e
        .attr("http-equiv")
        .is_some_and(|h| h.trim().eq_ignore_ascii_case("content-type"));
    e.name() == "meta"
        && (attribute == "charset" || (attribute == "content" && content_type))
        && new
            .to_ascii_lowercase()
            .contains(&label.to_ascii_lowercase())
}

fn take(pending: &mut Pending, depth: usize, element: &str, attribute: Option<&str>) {
    let key = (depth, element.to_owned(), attribute.map(str::to_owned));
    if let Some(q) = pending.get_mut(&key) {
        q.pop_front();
    }
}

/// Explains a changed value by the next rewritten links of the report for that element and
/// attribute: putting each link's original back where its resolved form stands must give the
/// old value. CSS is re-quoted and re-escaped as needed, so there the resolved forms must appear
/// in order instead.
fn account(
    pending: &mut Pending,
    depth: usize,
    element: &str,
    attribute: Option<&str>,
    old: &str,
    new: &str,
    css: bool,
) -> Result<(), String> {
    let key = (depth, element.to_owned(), attribute.map(str::to_owned));
    let queue = pending.entry(key).or_default();
    if queue.is_empty() {
        return Err("changed, but the report has no rewritten link for it".into());
    }
    // CSS escapes (`\(`) are the serializer's business: compare without backslashes there.
    let unescaped = new.replace('\\', "");
    let mut rebuilt = String::new();
    let mut rest = if css { unescaped.as_str() } else { new };
    while let Some(link) = queue.front().cloned() {
        let mut resolved = link.resolved.clone();
        if css {
            resolved = resolved.replace('\\', "");
        }
        let Some(at) = rest.find(&resolved) else {
            if css && !rebuilt.is_empty() {
                // The rest of the queue belongs to later values.
                return Ok(());
            }
            return Err(format!(
                "the report's next rewritten link ({:?} → {resolved:?}) is not in the new value",
                link.original
            ));
        };
        queue.pop_front();
        let len = resolved.len();
        rebuilt.push_str(&rest[..at]);
        rebuilt.push_str(if css { "url" } else { &link.original });
        rest = &rest[at + len..];
        if !css && format!("{rebuilt}{rest}") == old {
            return Ok(());
        }
    }
    if css || format!("{rebuilt}{rest}") == old {
        Ok(())
    } else {
        Err(format!(
            "the report's links do not explain the change (rebuilt {:?})",
            format!("{rebuilt}{rest}")
        ))
    }
}

/// The tree of `output` (written in `output_encoding`, else in the input's `label`) against the
/// tree of `input` (read with the transport charset `label`), every changed value explained by
/// the rewritten `links`.
pub fn tree_check(
    input: &[u8],
    label: Option<&str>,
    output: &[u8],
    output_encoding: Option<&'static encoding_rs::Encoding>,
    drop_base: bool,
    links: &[LinkRecord],
) -> Vec<String> {
    let mut problems = Vec::new();
    let input = parse_bytes(input, label);
    let out_label = output_encoding.map(|e| e.name()).or(label);
    let output = parse_bytes(output, out_label);
    let (input, output) = match (input, output) {
        (Ok(i), Ok(o)) => (i, o),
        (i, o) => {
            return vec![format!(
                "re-parse failed: input {:?}, output {:?}",
                i.err(),
                o.err()
            )]
        }
    };
    let mut pending = Pending::new();
    for link in links.iter().filter(|l| l.rewritten) {
        pending
            .entry((
                link.srcdoc_depth,
                link.element.clone(),
                link.attribute.clone(),
            ))
            .or_default()
            .push_back(Change {
                original: link.original.clone(),
                resolved: link.resolved.clone().unwrap_or_default(),
            });
    }
    let output_charset = output_encoding.map(|e| e.name());
    compare_trees(
        &input,
        &output,
        0,
        drop_base,
        output_charset,
        &mut pending,
        &mut problems,
    );
    for ((depth, element, attribute), left) in pending {
        for l in left {
            problems.push(format!(
                "depth {depth}: the report says <{element}> {attribute:?} {:?} was rewritten to {:?}, but the output's tree does not show it",
                l.original, l.resolved
            ));
        }
    }
    problems
}

/// The tree check is itself checked: it accepts an explained change and catches the rest.
pub fn tree_check_catches_unexplained_changes() {
    let check = |input: &str, output: &str, links: &[(&str, &str, &str)]| {
        let mut pending = Pending::new();
        for (element, attribute, original) in links {
            pending
                .entry((0, (*element).to_owned(), Some((*attribute).to_owned())))
                .or_default()
                .push_back(Change {
                    original: (*original).to_owned(),
                    resolved: format!("http://h/{original}"),
                });
        }
        let mut problems = Vec::new();
        let (i, o) = (
            Document::parse(input).unwrap(),
            Document::parse(output).unwrap(),
        );
        compare_trees(&i, &o, 0, false, None, &mut pending, &mut problems);
        problems.extend(pending.values().flatten().map(|c| format!("left: {c:?}")));
        problems
    };
    let a = [("a", "href", "x")];
    assert_eq!(
        check("<a href=x>t</a>", "<a href='http://h/x'>t</a>", &a),
        Vec::<String>::new()
    );
    let s = [("img", "srcset", "a.png"), ("img", "srcset", "b.png")];
    let srcset = check(
        "<img srcset='a.png 1x, b.png 2x'>",
        "<img srcset='http://h/a.png 1x, http://h/b.png 2x'>",
        &s,
    );
    assert_eq!(srcset, Vec::<String>::new());
    // Caught: a value the links do not explain, a change without a link, a renamed element, a
    // lost attribute, changed text, and a rewritten link the output does not show.
    assert!(!check("<a href=x>t</a>", "<a href='http://h/y'>t</a>", &a).is_empty());
    assert!(!check("<a id=x>t</a>", "<a id='http://h/x'>t</a>", &[]).is_empty());
    assert!(!check("<a href=x>t</a>", "<b href=x>t</b>", &[]).is_empty());
    assert!(!check("<a href=x id=i>t</a>", "<a href=x>t</a>", &[]).is_empty());
    assert!(!check("<a href=x>t</a>", "<a href=x>u</a>", &[]).is_empty());
    assert!(!check("<a href=x>t</a>", "<a href=x>t</a>", &a).is_empty());
}
