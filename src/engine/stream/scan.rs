//! The markup between the tags lol_html reports: start tags, end tags, comments, DOCTYPEs and
//! bogus comments, read by the tokenizer's data-state rules (HTML LS §13.2.5.1 "data state" to
//! §13.2.5.52 "bogus comment state", and "CDATA section state" in foreign content).
//!
//! Why: asking lol_html for every start tag (`element!("*")`) makes it lex and dispatch every
//! tag, which alone cost more than a whole naive href/src rewrite (measured: 23.6 M against
//! 28.6 M instructions on `library/functions.html`). So lol_html is asked only for the elements
//! whose content changes how the bytes after them are read (raw text, RCDATA, script data,
//! `<plaintext>`, foreign content, templates), and the markup between two of them is read here,
//! where only data-state rules apply. Every tag lol_html reports is a checkpoint: the scan must
//! reach it exactly between two constructs, or the document goes to the DOM engine.
//!
//! The scanner is resumable at any byte: a comment or a tag cut by a chunk boundary is finished
//! when the next chunk comes, without reading its start again. Tags are read by the one
//! start-tag lexer ([`super::tag::Lexer`]); a start tag found is handed on with its name and the
//! attributes the walk reads, as the lexer saw them, so it is never lexed again.

use std::ops::Range;

use super::tag::{is_space, keep_first, Lexer, RawAttr, Sink};

/// Where the scanner is inside a construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Text, between constructs.
    Data,
    /// A start tag (`end == false`) or an end tag that started at [`Scanner::start`], read by
    /// [`Scanner::lexer`].
    Tag {
        end: bool,
    },
    Comment(CommentAt),
    /// A bogus comment or a DOCTYPE: both end at the next `>` (HTML LS "bogus comment state";
    /// the DOCTYPE states end at `>` even inside a quoted identifier).
    ToGt,
    /// A CDATA section (foreign content only): to `]]>`.
    Cdata,
    /// Raw text, RCDATA or script data that lol_html reads; the scanner waits to be moved past
    /// its end tag ([`Scanner::resume_at`]).
    Opaque,
    /// The content of a raw text or RCDATA element (`RAW_TEXT[name]`) whose start tag is at
    /// `tag`: to its appropriate end tag (HTML LS §13.2.5.9–.20), or to the end of the input
    /// for `<plaintext>`.
    RawText {
        name: usize,
        tag: usize,
        content: usize,
    },
    /// The content of a `<script>` whose start tag is at `tag`, read by the scanner itself
    /// ([`Scanner::read_scripts`]): script data and its escapes (§13.2.5.4, .15–.31).
    Script {
        tag: usize,
        content: usize,
        at: ScriptAt,
    },
}

/// Where script data is: the script data state, or one of its escaped states (the "less-than
/// sign", "escape start", "end tag" and "double escape" states look ahead a few bytes instead,
/// so they are not kept: a construct cut by the end of the bytes read is read again whole).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScriptAt {
    Data,
    Escaped,
    EscapedDash,
    EscapedDashDash,
    Double,
    DoubleDash,
    DoubleDashDash,
}

/// What [`script_data`] found.
#[derive(Debug, PartialEq, Eq)]
enum ScriptStep {
    /// The appropriate end tag `</script` starts here.
    End(usize),
    /// The bytes ended: go on from here (at a construct they cut, or their end) in this state.
    More(usize, ScriptAt),
}

/// Whether `bytes` at `at` hold `word` (ASCII case-insensitively) followed by whitespace, `/`
/// or `>`: `Some(true)`; `Some(false)` when they do not; `None` when they end before it is
/// decided.
fn word_then_delimiter(bytes: &[u8], at: usize, word: &[u8]) -> Option<bool> {
    let rest = bytes.get(at..).unwrap_or_default();
    let n = word.len().min(rest.len());
    let prefix = rest.get(..n).unwrap_or_default();
    if !word
        .get(..n)
        .is_some_and(|w| w.eq_ignore_ascii_case(prefix))
    {
        return Some(false);
    }
    let delimiter = rest.get(word.len())?;
    Some(is_space(*delimiter) || matches!(delimiter, b'/' | b'>'))
}

/// The state after a byte of script data other than `-`, `<` and `>`: a run of dashes ends.
fn after_other(at: ScriptAt) -> ScriptAt {
    use ScriptAt::*;
    match at {
        EscapedDash | EscapedDashDash => Escaped,
        DoubleDash | DoubleDashDash => Double,
        other => other,
    }
}

/// Reads script data from `i` in state `at` (HTML LS §13.2.5.4 "script data state" and
/// §13.2.5.15–.31): where the appropriate end tag `</script` is, or where to go on.
/// `eof`: the bytes end the input, so a construct they cut is text.
fn script_data(bytes: &[u8], mut i: usize, mut at: ScriptAt, eof: bool) -> ScriptStep {
    use ScriptAt::*;
    let cut = |lt: usize, at: ScriptAt| ScriptStep::More(lt, at);
    loop {
        let rest = bytes.get(i..).unwrap_or_default();
        let found = if at == Data {
            memchr::memchr(b'<', rest)
        } else {
            memchr::memchr3(b'<', b'-', b'>', rest)
        };
        let Some(j) = found else {
            if !rest.is_empty() {
                at = after_other(at);
            }
            return ScriptStep::More(bytes.len(), at);
        };
        let k = i + j;
        let b = bytes.get(k).copied().unwrap_or(b'<');
        // A byte other than `-`, `<` and `>` ends a run of dashes: bytes were skipped.
        if k > i {
            at = after_other(at);
        }
        if b == b'-' {
            at = match at {
                Escaped => EscapedDash,
                EscapedDash | EscapedDashDash => EscapedDashDash,
                Double => DoubleDash,
                DoubleDash | DoubleDashDash => DoubleDashDash,
                Data => Data,
            };
            i = k + 1;
            continue;
        }
        if b == b'>' {
            // Only right after `--` does `>` end the escape.
            at = match at {
                EscapedDashDash | DoubleDashDash => Data,
                EscapedDash => Escaped,
                DoubleDash => Double,
                other => other,
            };
            i = k + 1;
            continue;
        }
        let lt = k;
        let next = bytes.get(lt + 1).copied();
        match (at, next) {
            (_, None) if eof => return ScriptStep::More(bytes.len(), at),
            (_, None) => return cut(lt, at),
            (Data | Escaped | EscapedDash | EscapedDashDash, Some(b'/')) => {
                match word_then_delimiter(bytes, lt + 2, b"script") {
                    Some(true) => return ScriptStep::End(lt),
                    None if !eof => return cut(lt, at),
                    _ => {}
                }
                at = if at == Data { Data } else { Escaped };
                i = lt + 2;
            }
            (Data, Some(b'!')) => {
                let dashes = bytes.get(lt + 2..lt + 4);
                match dashes {
                    Some(b"--") => {
                        at = EscapedDashDash;
                        i = lt + 4;
                    }
                    None if !eof && bytes.get(lt + 2).is_none_or(|&d| d == b'-') => {
                        return cut(lt, at);
                    }
                    _ => i = lt + 2,
                }
            }
            (Escaped | EscapedDash | EscapedDashDash, Some(c)) if c.is_ascii_alphabetic() => {
                match word_then_delimiter(bytes, lt + 1, b"script") {
                    Some(true) => {
                        // The delimiter is read in the double escaped state.
                        at = Double;
                        i = lt + 1 + 6;
                    }
                    None if !eof => return cut(lt, at),
                    _ => {
                        at = Escaped;
                        i = lt + 1;
                    }
                }
            }
            (Double | DoubleDash | DoubleDashDash, Some(b'/')) => {
                match word_then_delimiter(bytes, lt + 2, b"script") {
                    Some(true) => {
                        at = Escaped;
                        i = lt + 2 + 6;
                    }
                    None if !eof => return cut(lt, at),
                    _ => {
                        at = Double;
                        i = lt + 2;
                    }
                }
            }
            (Data, _) => i = lt + 1,
            (Escaped | EscapedDash | EscapedDashDash, _) => {
                at = Escaped;
                i = lt + 1;
            }
            (Double | DoubleDash | DoubleDashDash, _) => {
                at = Double;
                i = lt + 1;
            }
        }
    }
}

/// The HTML elements whose content is raw text or RCDATA to the tokenizer (HTML LS §13.2.6.4.7
/// "in body": `<noscript>` as with scripting on, as lol_html reads it), and `<plaintext>`
/// (last: it has no end tag). `<script>` is lol_html's: its escapes make script data another
/// matter.
const RAW_TEXT: [&[u8]; 9] = [
    b"style",
    b"textarea",
    b"title",
    b"xmp",
    b"iframe",
    b"noembed",
    b"noframes",
    b"noscript",
    b"plaintext",
];

/// The comment states (§13.2.5.43–.52). The "comment less-than sign" states only report parse
/// errors: each of them goes on exactly as "comment", "comment end dash" or "comment end"
/// would, so they are not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CommentAt {
    Start,
    StartDash,
    Text,
    EndDash,
    End,
    EndBang,
}

/// The data-state reader. Positions are document offsets.
#[derive(Debug)]
pub(crate) struct Scanner {
    /// Everything before this has been read.
    pos: usize,
    /// Where the construct being read started.
    start: usize,
    state: State,
    /// The tag states of the tag being read.
    lexer: Lexer,
    /// What it has read of it.
    tag: TagRead,
    /// It reads `<script>` content itself ([`Scanner::read_scripts`]).
    scripts: bool,
}

/// What a start tag switches the tokenizer to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Switch {
    /// Raw text or RCDATA: `RAW_TEXT[index]`.
    RawText(usize),
    /// Script data.
    Script,
}

/// What the scanner has read of the tag being read.
#[derive(Debug, Default)]
struct TagRead {
    /// Its name or an attribute's is one [`Interest`] asks for.
    hit: bool,
    /// A start tag of one of [`RAW_TEXT`], or `<script>` when the scanner reads scripts.
    switch: Option<Switch>,
    /// Where its name ends, relative to its `<`.
    name_end: usize,
    /// The attributes of a start tag [`Interest::attr`] accepts, the first of each name
    /// ([`keep_first`]: bounded by the names it accepts), relative to its `<`.
    attrs: Vec<RawAttr>,
}

/// The scanner's [`Sink`] for the tag at `start`.
struct TagSink<'s> {
    read: &'s mut TagRead,
    interest: &'s Interest,
    end: bool,
    scripts: bool,
    /// The tag's bytes from its `<`, as far as they have come.
    tag: &'s [u8],
    start: usize,
}

impl Sink for TagSink<'_> {
    fn tag_name(&mut self, name: &[u8], range: Range<usize>) {
        self.read.name_end = range.end - self.start;
        if self.end {
            self.read.hit |= (self.interest.end_name)(name);
        } else {
            self.read.hit |= (self.interest.name)(name);
            self.read.switch = match raw_text_index(name) {
                Some(index) => Some(Switch::RawText(index)),
                None if self.scripts && name.eq_ignore_ascii_case(b"script") => {
                    Some(Switch::Script)
                }
                None => None,
            };
        }
    }

    fn attr(&mut self, name: &[u8], attr: RawAttr) {
        if !self.end && (self.interest.attr)(name) {
            self.read.hit = true;
            keep_first(&mut self.read.attrs, self.tag, self.start, name, attr);
        }
    }
}

/// Which of [`RAW_TEXT`] a start tag name (as written) is.
pub(crate) fn raw_text_index(name: &[u8]) -> Option<usize> {
    if !(3..=9).contains(&name.len()) {
        return None;
    }
    RAW_TEXT.iter().position(|w| name.eq_ignore_ascii_case(w))
}

/// The input a [`Scanner::scan`] reads: `bytes` from document offset `base`; `eof`: they end
/// the input.
#[derive(Clone, Copy)]
pub(crate) struct Window<'a> {
    pub bytes: &'a [u8],
    pub base: usize,
    pub eof: bool,
}

/// What a [`Scanner::scan`] found.
#[derive(Debug)]
pub(crate) enum Found {
    /// A complete start tag: where its name ends (relative to its `<`), its attributes
    /// [`Interest::attr`] accepts (the first of each name), at `attrs` in [`Finds::attrs`], and
    /// whether it is self-closing.
    StartTag {
        tag: Range<usize>,
        name_end: usize,
        attrs: Range<usize>,
        self_closing: bool,
    },
    /// A complete end tag, and where its name ends (relative to its `<`).
    EndTag { tag: Range<usize>, name_end: usize },
    /// The end of the raw text or RCDATA after the start tag at `tag` (of element `name`, in
    /// lower case): its content.
    TextEnd {
        tag: usize,
        name: &'static [u8],
        content: Range<usize>,
    },
}

/// What scans found, in source order, to act on; with the attributes of the start tags.
#[derive(Default)]
pub(crate) struct Finds {
    pub(crate) items: Vec<Found>,
    pub(crate) attrs: Vec<RawAttr>,
}

impl Scanner {
    pub(crate) fn new(at: usize) -> Scanner {
        Scanner {
            pos: at,
            start: at,
            state: State::Data,
            lexer: Lexer::new(at),
            tag: TagRead::default(),
            scripts: false,
        }
    }

    /// From here on, the content of a `<script>` start tag found is read by the scanner (script
    /// data, HTML LS §13.2.5.4), where lol_html read it: no element lol_html reports is then
    /// expected.
    pub(crate) fn read_scripts(&mut self, on: bool) {
        self.scripts = on;
    }

    /// Whether the scanner stands exactly at `at`: between constructs, or reading a tag that
    /// starts there (cut by the end of the bytes read before).
    pub(crate) fn is_at(&self, at: usize) -> bool {
        match self.state {
            State::Data => self.pos == at,
            State::Tag { .. } => self.start == at,
            _ => false,
        }
    }

    /// Whether it waits for lol_html to report the end of raw text.
    pub(crate) fn is_opaque(&self) -> bool {
        self.state == State::Opaque
    }

    /// Up to where the output can be written, and the input forgotten: not past a tag being
    /// read (its values may change, and its name is read again from its start).
    pub(crate) fn settled(&self) -> usize {
        match self.state {
            State::Tag { .. } => self.start,
            _ => self.pos,
        }
    }

    /// Goes on after a construct lol_html read (a tag it reported, the end tag of raw text).
    pub(crate) fn resume_at(&mut self, at: usize) {
        self.pos = at;
        self.start = at;
        self.state = State::Data;
    }

    /// A start tag (`end`: an end tag) at `lt`, to be read from its name on.
    fn start_tag(&mut self, lt: usize, end: bool) {
        let name = lt + 1 + usize::from(end);
        self.start = lt;
        self.pos = name;
        self.state = State::Tag { end };
        self.lexer = Lexer::new(name);
        self.tag.hit = false;
        self.tag.switch = None;
        self.tag.name_end = name - lt;
        self.tag.attrs.clear();
    }

    /// From here on the bytes are raw text, RCDATA or script data, until [`Scanner::resume_at`].
    pub(crate) fn opaque(&mut self) {
        self.state = State::Opaque;
    }

    /// Reads `input`, starting no construct at or after `limit`, and adds to `found` each tag
    /// `interest` asks for and each end of raw text. A construct cut by the end of the
    /// bytes is finished by the next call, unless they end the input (then it runs to the end,
    /// and a tag cut by the end of the input is no tag). `cdata`: in foreign content, where
    /// `<![CDATA[` starts a CDATA section.
    pub(crate) fn scan(
        &mut self,
        input: Window<'_>,
        limit: usize,
        cdata: bool,
        interest: &Interest,
        found: &mut Finds,
    ) {
        let Window {
            bytes: window,
            base,
            eof,
        } = input;
        let len = base + window.len();
        let byte = |at: usize| at.checked_sub(base).and_then(|i| window.get(i)).copied();
        let from = |at: usize| {
            at.checked_sub(base)
                .and_then(|i| window.get(i..))
                .unwrap_or_default()
        };
        loop {
            if self.pos >= len {
                if eof && self.state != State::Opaque {
                    // A construct cut by the end of the input: a comment or DOCTYPE is emitted,
                    // a tag is dropped (HTML LS "EOF in tag"); either way nothing follows.
                    self.pos = len;
                    self.state = State::Data;
                }
                return;
            }
            if self.state != State::Data && self.start >= limit {
                // A construct that starts at the limit is not this scan's (it may be the tag
                // lol_html reports there).
                return;
            }
            match self.state {
                State::Opaque => return,
                State::Data => {
                    if self.pos >= limit {
                        return;
                    }
                    let stop = limit.min(len);
                    let text = from(self.pos).get(..stop - self.pos).unwrap_or_default();
                    let Some(i) = memchr::memchr(b'<', text) else {
                        self.pos = stop;
                        continue;
                    };
                    let lt = self.pos + i;
                    let Some(next) = byte(lt + 1) else {
                        // `<` last: what it starts is not known yet.
                        self.pos = if eof { len } else { lt };
                        return;
                    };
                    self.start = lt;
                    match next {
                        b if b.is_ascii_alphabetic() => self.start_tag(lt, false),
                        b'/' => match byte(lt + 2) {
                            None if eof => self.pos = len,
                            None => {
                                self.pos = lt;
                                return;
                            }
                            Some(b) if b.is_ascii_alphabetic() => self.start_tag(lt, true),
                            // `</>`: nothing at all.
                            Some(b'>') => self.pos = lt + 3,
                            Some(_) => {
                                self.pos = lt + 2;
                                self.state = State::ToGt;
                            }
                        },
                        b'!' => {
                            let rest = from(lt + 2);
                            let starts = |word: &[u8]| {
                                rest.len() >= word.len()
                                    && rest
                                        .get(..word.len())
                                        .is_some_and(|r| r.eq_ignore_ascii_case(word))
                            };
                            // A prefix of what could follow, cut by the end of the window.
                            let cut = |word: &[u8]| {
                                rest.len() < word.len()
                                    && word
                                        .get(..rest.len())
                                        .is_some_and(|w| w.eq_ignore_ascii_case(rest))
                            };
                            if rest.starts_with(b"--") {
                                self.pos = lt + 4;
                                self.state = State::Comment(CommentAt::Start);
                            } else if starts(b"doctype") {
                                self.pos = lt + 9;
                                self.state = State::ToGt;
                            } else if cdata && rest.starts_with(b"[CDATA[") {
                                self.pos = lt + 9;
                                self.state = State::Cdata;
                            } else if !eof
                                && (cut(b"--") || cut(b"doctype") || (cdata && cut(b"[CDATA[")))
                            {
                                self.pos = lt;
                                return;
                            } else {
                                self.pos = lt + 2;
                                self.state = State::ToGt;
                            }
                        }
                        // The `?` is the bogus comment's first character.
                        b'?' => {
                            self.pos = lt + 1;
                            self.state = State::ToGt;
                        }
                        // A `<` that starts nothing is text.
                        _ => self.pos = lt + 1,
                    }
                }
                State::ToGt => match memchr::memchr(b'>', from(self.pos)) {
                    Some(i) => self.resume_at(self.pos + i + 1),
                    None => self.pos = len,
                },
                State::Cdata => match memchr::memmem::find(from(self.pos), b"]]>") {
                    Some(i) => self.resume_at(self.pos + i + 3),
                    None if eof => self.pos = len,
                    // A `]]` at the end may be the start of the end.
                    None => {
                        self.pos = len.saturating_sub(2).max(self.pos);
                        return;
                    }
                },
                State::Comment(at) => self.comment(at, from(self.pos)),
                State::Tag { end } => {
                    let mut sink = TagSink {
                        read: &mut self.tag,
                        interest,
                        end,
                        scripts: self.scripts,
                        tag: from(self.start),
                        start: self.start,
                    };
                    let Some(tag_end) = self.lexer.lex(window, base, self.pos, &mut sink) else {
                        self.pos = len;
                        continue;
                    };
                    if end {
                        let tag = self.start..tag_end;
                        self.resume_at(tag_end);
                        if self.tag.hit {
                            let name_end = self.tag.name_end;
                            found.items.push(Found::EndTag { tag, name_end });
                        }
                    } else {
                        self.finish_start(tag_end, cdata, found);
                    }
                }
                State::Script { tag, content, at } => {
                    let Some(i) = self.pos.checked_sub(base) else {
                        return;
                    };
                    match script_data(window, i, at, eof) {
                        ScriptStep::End(lt) => {
                            let lt = base + lt;
                            found.items.push(Found::TextEnd {
                                tag,
                                name: b"script",
                                content: content..lt,
                            });
                            // Its end tag, read on from the end of its name.
                            self.start_tag(lt, true);
                            self.pos = lt + 2 + b"script".len();
                        }
                        ScriptStep::More(i, at) => {
                            self.pos = base + i;
                            self.state = State::Script { tag, content, at };
                            if self.pos < len {
                                // A construct cut by the end of the bytes read.
                                return;
                            }
                        }
                    }
                }
                State::RawText { name, tag, content } => {
                    let Some(word) = RAW_TEXT.get(name).copied() else {
                        return;
                    };
                    if name == RAW_TEXT.len() - 1 {
                        // `<plaintext>`: no end tag ends it.
                        self.pos = len;
                        continue;
                    }
                    let bytes = from(self.pos);
                    let mut i = 0;
                    let mut ended = false;
                    while let Some(j) = memchr::memchr(b'<', bytes.get(i..).unwrap_or_default()) {
                        let lt = i + j;
                        let cand = bytes.get(lt..).unwrap_or_default();
                        // `</` name, then whitespace, `/` or `>`: the appropriate end tag.
                        let whole = cand.len() > word.len() + 2;
                        let matches = cand.get(1) == Some(&b'/')
                            && cand
                                .get(2..(2 + word.len()).min(cand.len()))
                                .is_some_and(|n| {
                                    word.get(..n.len())
                                        .is_some_and(|w| n.eq_ignore_ascii_case(w))
                                })
                            || cand.len() == 1;
                        if matches && !whole && !eof {
                            // Cut by the end of the bytes read: decided by the next ones.
                            self.pos += lt;
                            return;
                        }
                        let delimited = cand
                            .get(2 + word.len())
                            .is_some_and(|&b| is_space(b) || b == b'/' || b == b'>');
                        if matches && whole && delimited {
                            let at = self.pos + lt;
                            found.items.push(Found::TextEnd {
                                tag,
                                name: word,
                                content: content..at,
                            });
                            // Its end tag, read on from the end of its name.
                            self.start_tag(at, true);
                            self.pos = at + 2 + word.len();
                            ended = true;
                            break;
                        }
                        i = lt + 1;
                    }
                    if !ended {
                        self.pos += bytes.len();
                    }
                }
            }
        }
    }

    /// After the start tag read from [`Scanner::start`] to `end`: it is found when it was a
    /// hit, and raw text or RCDATA follows when it is one of [`RAW_TEXT`] in HTML content.
    fn finish_start(&mut self, end: usize, cdata: bool, found: &mut Finds) {
        let tag = self.start;
        self.resume_at(end);
        if self.tag.hit {
            let from = found.attrs.len();
            found.attrs.extend_from_slice(&self.tag.attrs);
            found.items.push(Found::StartTag {
                tag: tag..end,
                name_end: self.tag.name_end,
                attrs: from..found.attrs.len(),
                self_closing: self.lexer.self_closing(),
            });
        }
        match self.tag.switch.filter(|_| !cdata) {
            Some(Switch::RawText(name)) => {
                self.state = State::RawText {
                    name,
                    tag,
                    content: end,
                }
            }
            Some(Switch::Script) => {
                self.state = State::Script {
                    tag,
                    content: end,
                    at: ScriptAt::Data,
                }
            }
            None => {}
        }
    }

    /// Reads comment bytes from `self.pos`; at its end, back to data.
    fn comment(&mut self, mut at: CommentAt, bytes: &[u8]) {
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            at = match (at, b) {
                (CommentAt::Text, _) => {
                    match memchr::memchr(b'-', bytes.get(i..).unwrap_or_default()) {
                        Some(j) => {
                            i += j + 1;
                            at = CommentAt::EndDash;
                            continue;
                        }
                        None => {
                            i = bytes.len();
                            continue;
                        }
                    }
                }
                (
                    CommentAt::Start | CommentAt::StartDash | CommentAt::End | CommentAt::EndBang,
                    b'>',
                ) => {
                    self.resume_at(self.pos + i + 1);
                    return;
                }
                (CommentAt::Start, b'-') => CommentAt::StartDash,
                (CommentAt::StartDash | CommentAt::EndDash | CommentAt::End, b'-') => {
                    CommentAt::End
                }
                (CommentAt::EndBang, b'-') => CommentAt::EndDash,
                (CommentAt::End, b'!') => CommentAt::EndBang,
                // Anything else is comment text, read again in the comment state.
                _ => {
                    at = CommentAt::Text;
                    continue;
                }
            };
            i += 1;
        }
        self.pos += bytes.len();
        self.state = State::Comment(at);
    }
}

/// Which tags a scan reports: a start tag whose name `name` accepts or with an attribute name
/// `attr` accepts (both as written), an end tag whose name `end_name` accepts. The others are
/// skipped, which is most tags. The attributes `attr` accepts are handed on with the tag: its
/// names come from a fixed table, which bounds how many a tag keeps ([`keep_first`]).
pub(crate) struct Interest {
    pub name: fn(&[u8]) -> bool,
    pub attr: fn(&[u8]) -> bool,
    pub end_name: fn(&[u8]) -> bool,
}

#[cfg(test)]
mod tests;
