//! How a multipart body is split into parts (RFC 2046 §5.1.1): the delimiter, declared or
//! sniffed, and its lines found with one linear search.

/// How a multipart's body is split into parts (RFC 2046 §5.1.1), and, when its heading does not
/// say how, what was done instead (read what can be read, as Chromium and mail clients
/// do, and say so).
#[derive(Debug, Clone)]
pub(super) struct Framing {
    /// The delimiter (`--boundary`); `None` when the body is read as one part.
    pub(super) delimiter: Option<String>,
    /// What was wrong, and what was read instead: a `mime-malformed` diagnostic.
    pub(super) repaired: Option<String>,
    /// Whether a delimiter line is the delimiter alone (then `--`, then white space: the whole
    /// line, as Python's email package, MimeKit, stalwart's mail-parser and zbateson's read it),
    /// or any line that begins with it (RFC 2046 §5.1.1's note, taken only where no line is a
    /// whole one).
    pub(super) whole_line: bool,
    /// A line that begins with the delimiter but goes on (`--b.REL` where the boundary is `b`:
    /// Eudora's nested boundaries), not read as a delimiter: where it starts, and the line. Said
    /// as a `mime` diagnostic, since RFC 2046 would read it as one.
    pub(super) ambiguous: Option<(usize, String)>,
}

impl Framing {
    /// The declared boundary when it occurs at a line start in the body; else the boundary of the
    /// body's first `--xxx` line (sniffed, as mail clients do); else, when the body has text,
    /// the body as one part; `None` for an empty body.
    pub(super) fn of(raw: &[u8], body_start: usize, declared: Option<&String>) -> Option<Framing> {
        if let Some(b) = declared {
            let d = format!("--{b}");
            let whole = Delimiters::new(raw, &d, true);
            if whole.next_line(body_start).is_some() {
                return Some(Framing {
                    ambiguous: whole.first_partial(body_start),
                    delimiter: Some(d),
                    repaired: None,
                    whole_line: true,
                });
            }
            if let Some(at) = Delimiters::new(raw, &d, false).next_line(body_start) {
                return Some(Framing {
                    ambiguous: Some((at, cut_line(raw, at))),
                    delimiter: Some(d),
                    repaired: None,
                    whole_line: false,
                });
            }
        }
        let what = match declared {
            Some(b) => format!("its boundary {b:?} never occurs"),
            None => "it has no boundary parameter".to_owned(),
        };
        let body = raw.get(body_start..).unwrap_or_default();
        if let Some(b) = sniff_boundary(body) {
            return Some(Framing {
                repaired: Some(format!(
                    "{what}; the boundary {b:?} of its first delimiter line is used"
                )),
                delimiter: Some(format!("--{b}")),
                whole_line: true,
                ambiguous: None,
            });
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(Framing {
            delimiter: None,
            repaired: Some(format!(
                "{what} and no line is a delimiter; its body is read as one part"
            )),
            whole_line: true,
            ambiguous: None,
        })
    }
}

/// The boundary of the first line of `body` that looks like a delimiter: `--` then 1 to 70
/// characters of RFC 2046 §5.1.1 `bchars`, not ending in a space (trailing whitespace and a
/// closing `--` are not part of it).
pub(super) fn sniff_boundary(body: &[u8]) -> Option<String> {
    let mut at = 0;
    loop {
        let line_start = if at == 0 && body.starts_with(b"--") {
            0
        } else {
            at + memchr::memmem::find(body.get(at..)?, b"\n--")? + 1
        };
        let rest = body.get(line_start + 2..)?;
        let line = rest
            .get(..memchr::memchr(b'\n', rest).unwrap_or(rest.len()))
            .unwrap_or_default();
        let mut b = line.trim_ascii_end();
        if let Some(open) = b.strip_suffix(b"--") {
            b = open;
        }
        let bchar = |c: &u8| c.is_ascii_alphanumeric() || b"'()+_,-./:=? ".contains(c);
        if (1..=70).contains(&b.len()) && b.iter().all(bchar) && !b.ends_with(b" ") {
            return std::str::from_utf8(b).ok().map(str::to_owned);
        }
        at = line_start + 2;
    }
}

/// Finds delimiter lines of one multipart with one precomputed searcher (`memchr::memmem`).
pub(super) struct Delimiters<'a, 'd> {
    raw: &'a [u8],
    finder: memchr::memmem::Finder<'d>,
    len: usize,
    /// Only lines that are the delimiter alone ([`Framing::whole_line`]).
    whole_line: bool,
}

impl<'a, 'd> Delimiters<'a, 'd> {
    pub(super) fn new(raw: &'a [u8], delimiter: &'d str, whole_line: bool) -> Self {
        Delimiters {
            raw,
            finder: memchr::memmem::Finder::new(delimiter.as_bytes()),
            len: delimiter.len(),
            whole_line,
        }
    }

    /// Whether the delimiter at `at` is the whole line: then `--` (a close delimiter), then
    /// spaces and tabs (transport padding), then the line end or the end of the input.
    fn whole(&self, at: usize) -> bool {
        let rest = self.raw.get(at + self.len..).unwrap_or_default();
        let rest = rest.strip_prefix(b"--").unwrap_or(rest);
        let pad = rest
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        matches!(rest.get(pad), None | Some(b'\r' | b'\n'))
    }

    /// The first delimiter at or after `from` that starts a line (or starts at `from`).
    pub(super) fn next_line(&self, from: usize) -> Option<usize> {
        let mut search = from;
        loop {
            let at = search + self.finder.find(self.raw.get(search..)?)?;
            let line_start = at == from || self.raw.get(at.checked_sub(1)?) == Some(&b'\n');
            if line_start && (!self.whole_line || self.whole(at)) {
                return Some(at);
            }
            search = at + 1;
        }
    }

    /// The first line at or after `from` that begins with the delimiter but is no whole
    /// delimiter line: where it starts, and the line.
    pub(super) fn first_partial(&self, from: usize) -> Option<(usize, String)> {
        let mut search = from;
        loop {
            let at = search + self.finder.find(self.raw.get(search..)?)?;
            let line_start = at == from || self.raw.get(at.checked_sub(1)?) == Some(&b'\n');
            if line_start && !self.whole(at) {
                return Some((at, cut_line(self.raw, at)));
            }
            search = at + 1;
        }
    }
}

/// The line starting at `at`, without its line end, cut at 80 characters.
pub(super) fn cut_line(raw: &[u8], at: usize) -> String {
    let rest = raw.get(at..).unwrap_or_default();
    let line = rest
        .get(..memchr::memchr(b'\n', rest).unwrap_or(rest.len()))
        .unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let line = line.trim_end();
    match line.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", line.get(..cut).unwrap_or_default()),
        None => line.to_owned(),
    }
}

/// `at` moved back over the LF or CRLF just before it (not before `floor`): that line end
/// belongs to the delimiter (RFC 2046 §5.1.1).
pub(super) fn strip_trailing_eol(raw: &[u8], floor: usize, mut at: usize) -> usize {
    if at > floor && raw.get(at - 1) == Some(&b'\n') {
        at -= 1;
        if at > floor && raw.get(at - 1) == Some(&b'\r') {
            at -= 1;
        }
    }
    at
}
