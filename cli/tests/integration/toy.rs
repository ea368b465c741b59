//! The tests' toy archive (`linkbase::input::toy`, built with the library's `oracle` feature,
//! which the tests turn on): a format added in the library alone — a parser, a reader, an arm
//! of the door's match, a field of `Origin` — is read and written back by the command line,
//! which has no line of its own for it.

use super::util::{jsonl, linkbase};

/// Two entries: one with a relative link, one whose link stays as it is, then damage.
fn toy() -> Vec<u8> {
    let one = "<a href=b.html>b</a>";
    let two = "<a href='#top'>top</a>";
    format!(
        "LINKBASE-TOY\nhttp://h/dir/a.html {}\n{one}\nhttp://h/c.html {}\n{two}\nhttp://h/cut 99\nshort",
        one.len(),
        two.len()
    )
    .into_bytes()
}

#[test]
fn a_format_of_the_library_alone_runs_through_every_command() {
    let links = linkbase(&["links", "-"], &toy());
    assert_eq!(links.code, 1, "{}", links.stderr);
    let records = jsonl(&links.stdout);
    let got: Vec<_> = records
        .iter()
        .map(|r| (r["toy_entry"].as_u64(), r["resolved"].as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (Some(0), Some("http://h/dir/b.html")),
            (Some(1), Some("http://h/c.html#top"))
        ]
    );
    assert_eq!(
        links.stderr,
        "linkbase: -: damaged entry at offset 99: cut short\n"
    );

    let base = linkbase(&["base", "-", "--format", "text"], &toy());
    assert_eq!(
        base.stdout,
        "entry 0\thttp://h/dir/a.html\tretrieval-uri\nentry 1\thttp://h/c.html\tretrieval-uri\n"
    );

    let rewrite = linkbase(&["rewrite", "-"], &toy());
    let one = "<a href=http://h/dir/b.html>b</a>";
    assert_eq!(
        rewrite.stdout,
        format!(
            "LINKBASE-TOY\nhttp://h/dir/a.html {}\n{one}\nhttp://h/c.html 22\n<a href='#top'>top</a>\nhttp://h/cut 99\nshort",
            one.len()
        )
    );
}
