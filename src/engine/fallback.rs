//! Why the streaming engine hands a document to the DOM engine, and why a document is written
//! from its tree: every reason, with the words the `dom-engine` and `reserialized` diagnostics
//! say it in.

/// Why the splicer handed a document back to the serializer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fallback {
    /// An edit of element text (`<style>` CSS, `<noscript>` markup).
    TextEdit,
    /// An edit whose occurrence was not found in the source, or was found with two outcomes.
    Unmatched,
    /// lol_html cannot tokenize the encoding, or reported an error (ambiguity, memory).
    Tokenizer,
    /// A raw value does not decode in the document's encoding.
    Undecodable,
    /// A `<base>` whose place in the tree token order cannot settle: inside a table (foster
    /// parenting moves it) or after `<frameset>` (the tree builder ignores it).
    AmbiguousBase,
    /// A `<meta>` beyond the prescan declares another encoding than the tentative one: the
    /// document is decoded again (HTML LS "change the encoding").
    LateMeta,
    /// A `<math>` inside SVG content or an `<svg>` inside MathML, which the tree builder puts
    /// in the outer namespace and lol_html does not.
    ForeignNesting,
    /// An SVG `<style>` holding markup, a character reference or no end tag: in foreign content
    /// its text is parsed as markup (elements, references), not as raw text.
    ForeignStyle,
    /// An end tag that lol_html lets close a `<template>` and the tree builder does not (a
    /// template is a scope boundary: `<form><template></form>` leaves it open).
    TemplateEnd,
    /// An element lol_html reads as MathML or SVG that the tree builder puts in HTML: one MathML
    /// does not have (`<a>`, `<base>`), after an HTML end tag that popped back out of MathML
    /// (`<a><math></a>`), or a start tag that breaks out of foreign content (`<svg><svg><i>`).
    MathMlStray,
    /// A `<frame>` or `<frameset>`: the tree keeps a frame only inside `<frameset>`, ignores
    /// it in a body, and ignores almost every element after `<frameset>`.
    Frame,
    /// The scanner that reads the markup between the elements lol_html reports, and lol_html,
    /// disagree on where a construct ends (or the scanner finds a tag lol_html should have
    /// reported): neither is trusted.
    ScanMismatch,
    /// An end tag other than its own that closes `<svg>`, `<math>` or an SVG integration point
    /// to lol_html: the tree builder may keep it open (`<form><svg></form>`: the form is removed
    /// from the stack, the SVG element stays), or close it where lol_html goes on reading HTML
    /// (`<svg><mi><title></mi>`); or `</br>` / `</p>` in foreign content, which the tree
    /// builder leaves foreign content for and lol_html does not.
    ForeignEnd,
    /// An SVG `<title>`, `<desc>` or `<foreignObject>` with attributes the rules read or with
    /// elements in it: lol_html gives these elements the namespace of their content (HTML), the
    /// tree SVG's, and the two part on which end tags close them.
    IntegrationPoint,
    /// Removing a `<base>` that opens the document would leave it starting with the bytes of a
    /// byte order mark, which would change its encoding when it is read again.
    LeadingBom,
    /// A fragment target (`id`, `a@name`) whose bytes do not decode: the tree holds U+FFFD
    /// where the decoder met them.
    UndecodableTarget,
    /// An `a@name` or a `<template>` in or beside SVG/MathML: whether the name is a target, or
    /// the template hides what it holds, depends on namespaces the tree builder may set
    /// otherwise than lol_html.
    ForeignTarget,
}

impl Fallback {
    /// The `dom-engine` diagnostic that says the DOM engine took the document and why.
    pub(crate) fn diagnostic(self) -> crate::error::Diagnostic {
        crate::error::Diagnostic::new(
            crate::error::DiagnosticCode::DomEngine,
            format!("the DOM engine handled this document: {}", self.describe()),
        )
    }

    /// Why, in words, for the `dom-engine` diagnostic.
    pub fn describe(self) -> &'static str {
        match self {
            Fallback::TextEdit => "an edit of element text",
            Fallback::Unmatched => "an edit not found in the source",
            Fallback::Tokenizer => {
                "lol_html cannot tokenize it (its encoding, a parsing ambiguity or a token past the memory bound)"
            }
            Fallback::Undecodable => "a <base href> that does not decode in the document's encoding",
            Fallback::AmbiguousBase => {
                "a <base> inside a table or after <frameset>, where tree order is not source order"
            }
            Fallback::LateMeta => "a <meta> beyond the prescan changes the encoding",
            Fallback::ForeignNesting => "a <math> inside <svg> or an <svg> inside <math>",
            Fallback::TemplateEnd => "an end tag that closes a <template> to lol_html only",
            Fallback::Frame => {
                "a <frame> or <frameset>: the tree keeps frames only in a frameset, and ignores most of what follows <frameset>"
            }
            Fallback::MathMlStray => {
                "an element read as MathML or SVG that the tree builder puts in HTML"
            }
            Fallback::ForeignStyle => {
                "an SVG <style> holding markup, a character reference or no end tag"
            }
            Fallback::ForeignEnd => {
                "an end tag that closes <svg>, <math> or an SVG <title>, <desc> or <foreignObject> otherwise than the tree builder does"
            }
            Fallback::IntegrationPoint => {
                "an SVG <title>, <desc> or <foreignObject> with URL attributes or elements in it (lol_html reads them as HTML)"
            }
            Fallback::LeadingBom => {
                "removing the <base> that opens it would leave a byte order mark first"
            }
            Fallback::UndecodableTarget => "an id or a name that does not decode in the document's encoding",
            Fallback::ForeignTarget => "an <a name> or a <template> in or beside SVG or MathML",
            Fallback::ScanMismatch => {
                "the tag scanner and lol_html read the markup differently (foreign content, script)"
            }
        }
    }
}
