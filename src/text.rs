//! Text for people and line-oriented tools: link records as TSV, any text for a terminal with
//! its control characters shown as escapes (the JSON writer escapes the same set,
//! [`crate::report::needs_escape`]), and counted nouns ("1 record", "2 records": every count a
//! message says goes through [`n`] or [`n_as`]).

use std::io::{self, Write};

use crate::report::{needs_escape, BaseRecord, LinkRecord};

/// The columns of `links --format tsv`, in order; the first line of the output names them.
pub const TSV_COLUMNS: [&str; 12] = [
    "part",
    "element",
    "attribute",
    "original",
    "resolved",
    "base",
    "base_source",
    "same_document",
    "diagnostic",
    "target_part",
    "line",
    "column",
];

/// The column `links --format tsv` adds after [`TSV_COLUMNS`] for an mbox: the message's place
/// in the file, from 0 (the JSON records' `mbox_message`).
pub const TSV_MBOX_COLUMN: &str = "mbox_message";

/// Writes link records as tab-separated values with a header line. Tabs, newlines and
/// backslashes inside values are escaped as `\t`, `\n`, `\r`, `\\`; an absent value is empty.
/// With `mbox`, each row ends with its message's place ([`TSV_MBOX_COLUMN`]).
///
/// # Errors
/// The writer's.
pub fn write_tsv(
    out: &mut impl Write,
    records: &[LinkRecord],
    header: bool,
    mbox: bool,
) -> io::Result<()> {
    if header {
        write!(out, "{}", TSV_COLUMNS.join("\t"))?;
        if mbox {
            write!(out, "\t{TSV_MBOX_COLUMN}")?;
        }
        writeln!(out)?;
    }
    for r in records {
        let same = if r.same_document { "true" } else { "false" };
        let number = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
        let (line, column) = (number(r.line), number(r.column));
        let message = match (mbox, &r.origin.mbox) {
            (true, m) => Some(number(m.as_ref().map(|m| m.mbox_message))),
            (false, _) => None,
        };
        let fields = [
            r.origin.part.as_deref().unwrap_or(""),
            &r.element,
            r.attribute.as_deref().unwrap_or(""),
            &r.original,
            r.resolved.as_deref().unwrap_or(""),
            r.base.as_deref().unwrap_or(""),
            r.base_source.name(),
            same,
            r.diagnostic.as_deref().unwrap_or(""),
            r.target_part.as_deref().unwrap_or(""),
            &line,
            &column,
        ];
        let line: Vec<String> = fields
            .iter()
            .copied()
            .chain(message.as_deref())
            .map(tsv_escape)
            .collect();
        writeln!(out, "{}", line.join("\t"))?;
    }
    Ok(())
}

/// A value for a TSV field: backslashes and control characters escaped (see [`escape_controls`]).
pub fn tsv_escape(s: &str) -> String {
    if !s.chars().any(|c| c == '\\' || needs_escape(c)) {
        return s.to_owned();
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            c if needs_escape(c) => push_escaped(&mut o, c),
            c => o.push(c),
        }
    }
    o
}

/// Text for a terminal or a line-oriented report: control characters (C0, DEL, C1), the
/// bidirectional controls and the Unicode line separators are shown as escapes (`\n`, `\t`,
/// `\x1b`, `\u{202e}`), and a backslash as `\\`, so a hostile file name or href can neither
/// forge a line nor drive the terminal nor reorder what is shown. The one rule for every text
/// output; [`crate::report::write_json`] escapes the same set in JSON's syntax.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c == '\\' || needs_escape(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(tsv_escape(s))
}

fn push_escaped(o: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        '\t' => o.push_str("\\t"),
        '\n' => o.push_str("\\n"),
        '\r' => o.push_str("\\r"),
        c if (c as u32) < 0x80 => {
            let _ = write!(o, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(o, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// One base record as `base --format text` writes it: where its document is first (so each
/// line says which it is about: `Origin::places`, such as its MIME part's path), then the base
/// and where it came from.
pub fn write_base_line(out: &mut impl Write, b: &BaseRecord) -> io::Result<()> {
    for place in b.origin.places() {
        write!(out, "{}\t", escape_controls(&place))?;
    }
    writeln!(
        out,
        "{}\t{}",
        escape_controls(b.base.as_deref().unwrap_or("")),
        b.base_source
    )
}

/// At most `max` characters of `s`, an ellipsis said where it was cut: how an error quotes what
/// a file holds (escaped where it is printed), never more.
pub fn excerpt(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", s.get(..at).unwrap_or_default()),
        None => s.to_owned(),
    }
}

/// `count` followed by `noun`, with an `s` unless the count is one: `n(1, "page")` is
/// "1 page", `n(0, "page")` "0 pages".
pub fn n(count: impl Count, noun: &str) -> String {
    let count = count.get();
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// [`n`] for a noun with its own plural: `n_as(2, "MIME message", "MIME messages")`, or a
/// phrase whose noun is not last: `n_as(1, "link left", "links left")`.
pub fn n_as(count: impl Count, one: &str, many: &str) -> String {
    let count = count.get();
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}

/// What [`n`] counts: the integer types counts come in.
pub trait Count {
    /// The count, as the widest of them.
    fn get(self) -> u64;
}

impl Count for u64 {
    fn get(self) -> u64 {
        self
    }
}

impl Count for usize {
    fn get(self) -> u64 {
        u64::try_from(self).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_every_other_count_plural() {
        assert_eq!(n(0u64, "record"), "0 records");
        assert_eq!(n(1u64, "record"), "1 record");
        assert_eq!(n(2u64, "record"), "2 records");
        assert_eq!(n(1usize, "WARC file"), "1 WARC file");
        assert_eq!(n_as(1u64, "link left", "links left"), "1 link left");
        assert_eq!(n_as(3u64, "link left", "links left"), "3 links left");
    }
}
