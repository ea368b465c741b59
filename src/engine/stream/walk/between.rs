//! The walk between the elements lol_html reports: the scanner's start tags acted on in source
//! order, each reported end or start tag met where the scanner stands.

use super::*;

impl Walk<'_, '_> {
    /// Acts on everything before `upto` in source order: the end tags lol_html reported (in
    /// `events`) and the start tags the scanner finds between them.
    pub(in crate::engine::stream) fn sync(
        &mut self,
        events: &Rc<RefCell<Vec<Ended>>>,
        upto: usize,
        reach: Reach,
    ) {
        let pending = std::mem::take(&mut *events.borrow_mut());
        for ended in pending {
            if self.stopped() {
                return;
            }
            if self.scan.is_opaque() {
                // Raw text ends only at its own end tag, which lol_html reports.
                if !matches!(
                    ended.event,
                    EndEvent::RawText | EndEvent::Style { .. } | EndEvent::Noscript { .. }
                ) || self.svg_style.is_some()
                {
                    self.bail = Some(Fallback::ScanMismatch);
                    return;
                }
            } else {
                self.scan_to(ended.tag.start, Reach::Checkpoint);
            }
            self.scan.resume_at(ended.tag.end);
            self.end(ended.event);
        }
        if !self.stopped() {
            self.scan_to(upto, reach);
        }
    }

    /// What the scanner is to find, in the context the walk is in: whether it reads foreign
    /// content, and the tags it hands on.
    fn interest(&self) -> (bool, &'static scan::Interest) {
        let foreign = self.svg + self.math > 0;
        // In foreign content every start tag found is a disagreement with lol_html, and so is
        // `</br>` or `</p>`: the tree builder leaves foreign content for them (HTML LS "in
        // foreign content": they break out as a breakout start tag does), lol_html does not.
        // (Every name is asked for: which attributes are kept does not matter.)
        let interest: &'static scan::Interest = if foreign && self.own {
            // Every element and end tag, to keep the SVG elements open ([`Foreign`]); the
            // attributes any mode reads.
            &scan::Interest {
                name: |_| true,
                attr: |name| {
                    is_read_attribute(name)
                        || name.eq_ignore_ascii_case(b"id")
                        || name.eq_ignore_ascii_case(b"name")
                },
                end_name: |_| true,
            }
        } else if foreign {
            &scan::Interest {
                name: |_| true,
                attr: is_read_attribute,
                end_name: |name| {
                    name.eq_ignore_ascii_case(b"br") || name.eq_ignore_ascii_case(b"p")
                },
            }
        } else {
            match self.pass.mode {
                Mode::Rewrite if !self.pass.verify => &scan::Interest {
                    name: |name| matters_name(name) || is_reported(name) || is_guarded(name),
                    attr: is_read_attribute,
                    end_name: |name| {
                        name.eq_ignore_ascii_case(b"template")
                            || name.eq_ignore_ascii_case(b"select")
                    },
                },
                Mode::Rewrite | Mode::FindBase => &scan::Interest {
                    name: |name| {
                        matters_name(name)
                            || is_reported(name)
                            || is_guarded(name)
                            || name.eq_ignore_ascii_case(b"table")
                    },
                    attr: is_read_attribute,
                    end_name: |name| {
                        name.eq_ignore_ascii_case(b"template")
                            || name.eq_ignore_ascii_case(b"table")
                            || name.eq_ignore_ascii_case(b"select")
                    },
                },
                Mode::Targets => &scan::Interest {
                    name: |name| matters_name(name) || is_reported(name) || is_guarded(name),
                    attr: |name| {
                        is_read_attribute(name)
                            || name.eq_ignore_ascii_case(b"id")
                            || name.eq_ignore_ascii_case(b"name")
                    },
                    end_name: |name| {
                        name.eq_ignore_ascii_case(b"template")
                            || name.eq_ignore_ascii_case(b"select")
                    },
                },
            }
        };
        (foreign, interest)
    }

    /// Scans to `limit`, acting on each start tag found.
    pub(in crate::engine::stream) fn scan_to(&mut self, limit: usize, reach: Reach) {
        if self.stopped() || self.scan.is_opaque() {
            return;
        }
        // In memory the window is the whole document: it is read a slice at a time, so that
        // the tags found (and, counting links, the links) do not pile up between two tags
        // lol_html reports (the scanner resumes where it stopped).
        let step = match self.io {
            Some(_) => usize::MAX,
            None => SCAN_STEP,
        };
        let mut found = std::mem::take(&mut self.finds);
        loop {
            // Asked again at each step: the context changes where the scanner reads alone.
            let (foreign, interest) = self.interest();
            let before = self.scan.settled();
            let upto = limit.min(before.saturating_add(step));
            let (window, base) = match &self.io {
                Some(io) => (io.window.as_slice(), io.start),
                None => (self.pass.bytes, self.pass.offset),
            };
            self.scan.scan(
                scan::Window {
                    bytes: window,
                    base,
                    eof: reach == Reach::End,
                },
                upto,
                foreign,
                interest,
                &mut found,
            );
            self.act_on(&mut found, foreign);
            self.deliver_links();
            if std::mem::take(&mut self.rescan) && !self.stopped() {
                continue;
            }
            // Standing where it stood, the scanner waits for input that is not there yet (a
            // construct cut by the end of what was read): a larger step would not move it.
            let stuck = self.scan.settled() == before;
            if upto >= limit || stuck || self.stopped() || self.scan.is_opaque() {
                break;
            }
        }
        self.finds = found;
        if reach == Reach::Checkpoint && !self.stopped() && !self.scan.is_at(limit) {
            // The scanner and lol_html read the markup before this tag differently.
            self.bail = Some(Fallback::ScanMismatch);
        }
    }

    /// Acts on what a scan found, in source order.
    pub(in crate::engine::stream) fn act_on(&mut self, found: &mut scan::Finds, foreign: bool) {
        let scan::Finds { items, attrs } = found;
        for item in items.drain(..) {
            if self.stopped() {
                break;
            }
            match item {
                scan::Found::StartTag {
                    tag,
                    name_end,
                    attrs: kept,
                    self_closing,
                } => {
                    let lexed = Lexed {
                        name_end,
                        attrs: attrs.get(kept).unwrap_or_default(),
                    };
                    if self.own {
                        let was = self.foreign.is_open();
                        let end = tag.end;
                        self.own_start(tag, lexed, self_closing);
                        if self.foreign.is_open() != was {
                            // What follows was read in the other context: read it again.
                            self.scan.resume_at(end);
                            self.rescan = true;
                            break;
                        }
                        continue;
                    }
                    let name = self.input(tag.start + 1..tag.start + name_end);
                    if foreign || name.is_some_and(is_reported) {
                        // In foreign content lol_html reports every element; and it reports
                        // these names everywhere: one found here was read otherwise by lol_html.
                        self.bail = Some(Fallback::ScanMismatch);
                        break;
                    }
                    self.start(tag, lexed, ElementNs::Html, None, &Rc::default());
                }
                scan::Found::EndTag { tag, name_end } if self.own => {
                    let was = self.foreign.is_open();
                    let end = tag.end;
                    self.own_end(tag, name_end);
                    if self.foreign.is_open() != was {
                        self.scan.resume_at(end);
                        self.rescan = true;
                        break;
                    }
                }
                scan::Found::EndTag { .. } if foreign => {
                    self.bail = Some(Fallback::ForeignEnd);
                    break;
                }
                scan::Found::EndTag { tag, name_end } => {
                    // A template is closed by its own end tag only (it is a scope boundary).
                    let name = self
                        .input(tag.start + 2..tag.start + name_end)
                        .unwrap_or_default();
                    if name.eq_ignore_ascii_case(b"template") {
                        self.template = self.template.saturating_sub(1);
                    } else if name.eq_ignore_ascii_case(b"table") {
                        self.table = self.table.saturating_sub(1);
                    }
                }
                scan::Found::TextEnd { tag, name, content } => {
                    let node = NodeId(tag);
                    match name {
                        b"style" => self.end(EndEvent::Style { node, content }),
                        b"noscript" => self.end(EndEvent::Noscript { node, content }),
                        _ => {}
                    }
                }
            }
        }
        attrs.clear();
    }

    /// A start tag the scanner found reading alone: in HTML, through lol_html's ambiguity
    /// guard; `<svg>` opens SVG content, where the tree builder's rules for foreign content are
    /// kept as far as they are simple (HTML LS §13.2.6.5: every start tag an element, closed by
    /// `/>` or by its end tag); what is not is left to lol_html ([`Walk::leave_to_lol_html`]).
    fn own_start(&mut self, tag: Range<usize>, lexed: Lexed<'_>, self_closing: bool) {
        let Some(name) = self.input(tag.start + 1..tag.start + lexed.name_end) else {
            return;
        };
        let svg = name.eq_ignore_ascii_case(b"svg");
        let math = name.eq_ignore_ascii_case(b"math");
        let mut guard = self.guard;
        let outside = guard == Guard::Outside;
        let clear = guard.start(name);
        // The name as the foreign content rules read it (SVG elements only).
        let lower = (svg || self.foreign.is_open()).then(|| name.to_ascii_lowercase());
        // lol_html's guard reads every start tag, in foreign content too; SVG where the tree
        // builder may ignore it (in a `<select>`) is lol_html's, as MathML is.
        if math || (svg && !outside) {
            self.leave_to_lol_html();
            return;
        }
        self.guard = guard;
        if !clear {
            self.bail = Some(Fallback::Tokenizer);
            return;
        }
        let Some(lower) = lower else {
            self.start(tag, lexed, ElementNs::Html, None, &Rc::default());
            return;
        };
        // An SVG element: the tree's rules for foreign content, where they are simple.
        let raw = RawTag::new(self.input(tag.clone()).unwrap_or_default(), lexed);
        let integration_point = matches!(lower.as_slice(), b"title" | b"desc" | b"foreignobject");
        let breaks_out = is_breakout(&String::from_utf8_lossy(&lower), &raw) || lower == b"font";
        if self.foreign.integration > 0
            || breaks_out
            || (integration_point && self.matters(&raw))
            || self.foreign.depth() >= Foreign::MAX_DEPTH
        {
            self.leave_to_lol_html();
            return;
        }
        if !self_closing {
            self.foreign.push(&lower);
        }
        self.svg = self.foreign.svgs;
        self.integration = self.foreign.integration;
        self.start(tag, lexed, ElementNs::Svg, None, &Rc::default());
    }

    /// An end tag the scanner found reading alone: in SVG content, it closes the innermost
    /// element of its name (HTML LS §13.2.6.5 "any other end tag"), or is left to lol_html where
    /// none is open (the tree builder then reads it by the HTML rules, which may close the
    /// `<svg>` or not).
    fn own_end(&mut self, tag: Range<usize>, name_end: usize) {
        let Some(name) = self.input(tag.start + 2..tag.start + name_end) else {
            return;
        };
        let mut guard = self.guard;
        guard.end(name);
        let template = name.eq_ignore_ascii_case(b"template");
        let table = name.eq_ignore_ascii_case(b"table");
        // `</br>` and `</p>` leave foreign content in the tree.
        let breaks_out = name.eq_ignore_ascii_case(b"br") || name.eq_ignore_ascii_case(b"p");
        let style = name.eq_ignore_ascii_case(b"style");
        let lower = self.foreign.is_open().then(|| name.to_ascii_lowercase());
        self.guard = guard;
        let Some(lower) = lower else {
            if template {
                self.template = self.template.saturating_sub(1);
            } else if table {
                self.table = self.table.saturating_sub(1);
            }
            return;
        };
        let closed = !breaks_out && self.foreign.close(&lower);
        if !closed {
            self.leave_to_lol_html();
            return;
        }
        self.svg = self.foreign.svgs;
        self.integration = self.foreign.integration;
        if let Some((node, start)) = self.svg_style.filter(|_| style) {
            let content = start..tag.start;
            self.end(EndEvent::Style { node, content });
        }
    }

    /// A start tag lol_html reports: what comes before it, then the tag.
    pub(in crate::engine::stream) fn reported(
        &mut self,
        el: &mut lol_html::html_content::Element<'_, '_>,
        events: &Rc<RefCell<Vec<Ended>>>,
    ) {
        let offset = self.pass.offset;
        let location = el.source_location().bytes();
        let tag = offset + location.start..offset + location.end;
        self.sync(events, tag.start, Reach::Checkpoint);
        if self.scan.is_opaque() {
            // lol_html reports no tag inside raw text: it did not read this as raw text.
            self.bail = Some(Fallback::ScanMismatch);
        }
        if self.stopped() {
            return;
        }
        let ns = match el.namespace_uri() {
            HTML_NS => ElementNs::Html,
            SVG_NS => ElementNs::Svg,
            MATHML_NS => ElementNs::MathMl,
            _ => ElementNs::Other,
        };
        // The tag is lexed once, here: the attributes the walk reads, and those that make a
        // `<font>` break out of foreign content.
        let mut kept = std::mem::take(&mut self.kept);
        let Some(bytes) = self.input(tag.clone()) else {
            return;
        };
        let lexed = read_tag(
            bytes,
            |name| self.reads(name) || is_breakout_attribute(name),
            &mut kept,
        );
        let raw = RawTag::new(bytes, lexed);
        // lol_html gives SVG's HTML integration points (`<svg><title>`) the namespace of their
        // content, HTML; and an HTML `<title>` inside `<foreignObject>` reads the same.
        let integration_point = self.svg > 0
            && ns == ElementNs::Html
            && ["title", "desc", "foreignobject"].iter().any(|n| raw.is(n));
        if integration_point && self.matters(&raw) {
            self.bail = Some(Fallback::IntegrationPoint);
            return;
        }
        // Inside SVG a `<title>` is left to the scanner's checks: RCDATA to lol_html only when
        // it is HTML's (a tag the scanner then finds in it sends the document to the DOM engine).
        let raw_text =
            ns == ElementNs::Html && !(integration_point && raw.is("title")) && switches_text(&raw);
        let is_style_or_noscript = raw.is("style") || raw.is("noscript");
        let name = raw.name().to_ascii_lowercase();
        if self.integration > 0 {
            // An element inside an SVG integration point: lol_html and the tree builder part on
            // which end tags close the point (`<svg><title><t></title>` leaves the title open in
            // the tree: an HTML element is current), and so on the namespace of what follows.
            self.bail = Some(Fallback::IntegrationPoint);
            return;
        }
        if integration_point {
            // An end tag of an SVG element around it closes it in the tree (and lol_html pops it
            // then, running this handler) while lol_html goes on reading HTML: the namespace of
            // what follows is in doubt (`<svg><mi><title></mi><mi href>`).
            let events = events.clone();
            let closes = el.on_end_tag(lol_html::end_tag!(move |end| {
                let proper = end.name().as_bytes().eq_ignore_ascii_case(&name);
                push_end(&events, offset, end, EndEvent::IntegrationPoint { proper });
                Ok(())
            }));
            if closes.is_ok() {
                self.integration += 1;
            }
        }
        self.scan.resume_at(tag.end);
        if raw_text {
            self.scan.opaque();
            if !is_style_or_noscript {
                let events = events.clone();
                let _ = el.on_end_tag(lol_html::end_tag!(move |end| {
                    push_end(&events, offset, end, EndEvent::RawText);
                    Ok(())
                }));
            }
        }
        self.start(tag, lexed, ns, Some(el), events);
        self.kept = kept;
    }
}
