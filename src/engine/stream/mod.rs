//! ③–⑥ The streaming engine: the document is never parsed
//! into a tree. lol_html, used read-only, tokenizes the bytes as they are; a small tree-context
//! layer adds what a tokenizer does not model; the rules of [`crate::rewrite`] decide every URL;
//! and the output is the input with only the changed values replaced (byte ranges, in source
//! order).
//!
//! **Who reads which bytes.** lol_html reports only the elements after which the bytes are read
//! otherwise than as markup or in another namespace ([`REPORTED`]: `<script>`, `<svg>`, `<math>`
//! and everything inside foreign content), and it alone reads script data, foreign content and
//! decides namespaces. The markup between two reported elements is read by [`scan::Scanner`]
//! with the data-state rules (tags, comments, DOCTYPE, raw text and RCDATA); it hands on only
//! the start tags whose name or attribute names the rules care about, each with its name and the
//! attributes the walk reads as the one start-tag lexer saw them ([`tag::Lexer`]: no tag is
//! lexed twice; a tag lol_html reports is lexed once, from its own bytes). Why not lol_html's
//! `element!("*")`: making it lex and dispatch every tag cost more than a whole naive rewrite
//! (23.6 M instructions of 28.6 M on `library/functions.html`). Every tag lol_html reports is
//! a checkpoint: the scanner must stand exactly at it, or the document goes to the DOM engine
//! ([`Fallback::ScanMismatch`]).
//!
//! **Base first, guessed and checked.** The base is the first HTML `<base href>` outside
//! `<template>` contents. A memchr read of the bytes guesses it (the first `<base` start tag
//! with an `href`, [`run::guess_base`]); pass 2 resolves every URL against the guess and, as it
//! walks, finds the base by the tree context's rules ([`walk::Pass::verify`]). Where the two
//! differ (the guess sat in a comment, a script or a template) pass 2 runs again on the base it
//! found: in memory the splices are dropped; streamed from a file, the output is rewound
//! ([`Rewind`]) or, where it cannot be, a pass 1 walks the whole document for
//! the base and every reason to hand it over before pass 2 writes a byte. Where token order is
//! not tree order for the base (a `<base>` inside a table, which foster parenting moves, or
//! after `<frameset>`, which the tree builder ignores), the document goes to the DOM engine
//! instead ([`Fallback`]).
//!
//! **The tree-context layer**: `<template>` depth (its `<base>` never counts;
//! its links are still rewritten), `<image>` read as `img` in HTML, the first of duplicate
//! attributes only, `xlink:href` by namespace, SVG names in their HTML LS case, `<style>` text,
//! `<noscript>` (raw text to lol_html, as with scripting on: its bytes are run through a nested
//! pass, as consumers without scripting read them, offsets mapped back) and `iframe srcdoc`
//! (a document of its own, rewritten by a nested pass).
//!
//! Known differences from the DOM engine, by design: links are reported per source occurrence
//! (an `<a>` cloned by the adoption agency is one link; a nested `<form action>`, inert in the
//! DOM, is reported and rewritten, which is harmless); the attributes of a second `<html>` or
//! `<body>` tag are rewritten where they are written.

mod chunks;
mod element;
mod names;
mod output;
mod run;
mod scan;
mod tag;
mod walk;
#[cfg(test)]
mod tests;

pub use output::Rewind;
#[cfg(any(test, feature = "oracle"))]
pub use run::with_lol_html;
pub(crate) use run::{
    fragment_ids, fragment_ids_read, run, run_streaming_rewinding, settle_streaming, Streamed,
    StreamedFile,
};
pub(crate) use walk::{Links, StreamError};
