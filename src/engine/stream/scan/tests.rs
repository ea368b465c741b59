#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;

const ALL: Interest = Interest {
    name: |_| true,
    attr: |_| true,
    end_name: |_| true,
};

/// What a scan of `html` finds, fed `step` bytes at a time, the window starting where the
/// scanner has settled (the engine forgets the input up to there, at most).
fn found(html: &[u8], step: usize, cdata: bool, interest: &Interest) -> Finds {
    found_reading_scripts(html, step, cdata, interest, false)
}

/// [`found`], the scanner reading `<script>` content itself (`scripts`).
fn found_reading_scripts(
    html: &[u8],
    step: usize,
    cdata: bool,
    interest: &Interest,
    scripts: bool,
) -> Finds {
    let mut s = Scanner::new(0);
    s.read_scripts(scripts);
    let mut out = Finds::default();
    let mut fed = 0;
    while fed < html.len() {
        fed = (fed + step.max(1)).min(html.len());
        let base = s.settled();
        s.scan(
            Window {
                bytes: html.get(base..fed).unwrap_or_default(),
                base,
                eof: fed == html.len(),
            },
            usize::MAX,
            cdata,
            interest,
            &mut out,
        );
    }
    out
}

/// The start tags of `html` read in one go, and read a byte at a time.
fn start_tags(html: &str) -> Vec<String> {
    let read = |step: usize| -> Vec<String> {
        found(html.as_bytes(), step, false, &ALL)
            .items
            .into_iter()
            .filter_map(|f| match f {
                Found::StartTag { tag, .. } => Some(html.get(tag).unwrap_or_default().to_owned()),
                _ => None,
            })
            .collect()
    };
    let whole = read(html.len());
    assert_eq!(whole, read(1), "byte at a time differs for {html:?}");
    assert_eq!(whole, read(3), "3 bytes at a time differs for {html:?}");
    whole
}

#[test]
fn tags_comments_and_text() {
    assert_eq!(
        start_tags("a < b <p>x</p><a href='>'>y<br/>"),
        ["<p>", "<a href='>'>", "<br/>"]
    );
    assert_eq!(start_tags("<a b\"c='d>'>e<x y='"), ["<a b\"c='d>'>"]);
    assert_eq!(start_tags("<a x=\"1\"y=2>"), ["<a x=\"1\"y=2>"]);
    // Comments end at `-->`, `--!>`, and at once for `<!-->` and `<!--->`.
    assert_eq!(
        start_tags("<!-- <a> --><b><!--><i><!---><u><!-- --!><s><!-- -- > --><q>"),
        ["<b>", "<i>", "<u>", "<s>", "<q>"]
    );
    assert_eq!(start_tags("<!-- a --!-- <x> --><y>"), ["<y>"]);
    assert_eq!(start_tags("<!-- <!-- --><z>"), ["<z>"]);
    // DOCTYPE, bogus comments (to the first `>`), `</>` and end tags with attributes.
    assert_eq!(
        start_tags("<!DOCTYPE html \"<a>\"><b><? x <c> ?><d></ x><e></><f></p a='>'><g>"),
        ["<b>", "<d>", "<e>", "<f>", "<g>"]
    );
    // CDATA is a bogus comment in HTML content: it ends at the first `>`.
    assert_eq!(start_tags("<![CDATA[<a>]]><b>"), ["<b>"]);
    // A tag cut by the end of the input is no tag.
    assert_eq!(start_tags("<p><a href='x"), ["<p>"]);
    assert_eq!(start_tags("<!-- <a>"), Vec::<String>::new());
}

#[test]
fn raw_text_and_rcdata_end_at_their_own_end_tag() {
    assert_eq!(
        start_tags("<style><a></styles></style><b><title></titlex><i></TITLE\n><u>"),
        ["<style>", "<b>", "<title>", "<u>"]
    );
    assert_eq!(
        start_tags("<textarea></textarea/><p><noscript><a href=x></noscript><q>"),
        ["<textarea>", "<p>", "<noscript>", "<q>"]
    );
    assert_eq!(start_tags("<plaintext></plaintext><a>"), ["<plaintext>"]);
    assert_eq!(start_tags("<xmp><a></xmp"), ["<xmp>"]);
    // The content range of each.
    let html = b"<style>x</style><iframe>y</iframe a>";
    let ends: Vec<_> = found(html, html.len(), false, &ALL)
        .items
        .into_iter()
        .filter_map(|f| match f {
            Found::TextEnd { tag, content, .. } => Some((tag, content)),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [(0, 7..8), (16, 24..25)]);
}

#[test]
fn end_tags_cut_anywhere_keep_their_name() {
    let html = b"<p></p></TEMPLATE\n x='>'></template>";
    let templates = Interest {
        name: |_| false,
        attr: |_| false,
        end_name: |n| n.eq_ignore_ascii_case(b"template"),
    };
    for step in 1..4 {
        let ends: Vec<_> = found(html, step, false, &templates)
            .items
            .into_iter()
            .filter_map(|f| match f {
                Found::EndTag { tag, name_end } => Some((tag.start, tag.end, name_end)),
                _ => None,
            })
            .collect();
        assert_eq!(ends, vec![(7, 25, 10), (25, 36, 10)], "step {step}");
    }
}

/// A start tag found comes with its name and the attributes asked for, as the lexer reads
/// the whole tag, however the bytes come; a tag of many attributes keeps the first of each
/// name asked for, and no more.
#[test]
fn start_tags_come_with_the_attributes_asked_for() {
    let urls = Interest {
        name: |_| false,
        attr: |n| n.eq_ignore_ascii_case(b"href") || n.eq_ignore_ascii_case(b"src"),
        end_name: |_| false,
    };
    let mut html = b"<p class=x><A x=1 HREF='a b' src href=c>t</a><img\nsrc=\"i\"/>".to_vec();
    html.extend_from_slice(b"<a");
    for i in 0..5_000 {
        html.extend_from_slice(format!(" href={i} SRC x{i}=y").as_bytes());
    }
    html.push(b'>');
    let text =
        |r: Range<usize>| String::from_utf8_lossy(html.get(r).unwrap_or_default()).into_owned();
    for step in [1, 3, 61, html.len()] {
        let finds = found(&html, step, false, &urls);
        let mut tags = Vec::new();
        for f in &finds.items {
            let Found::StartTag {
                tag,
                name_end,
                attrs,
                ..
            } = f
            else {
                continue;
            };
            let kept = finds.attrs.get(attrs.clone()).unwrap_or_default();
            let bytes = html.get(tag.clone()).unwrap_or_default();
            let mut whole = Vec::new();
            let lexed = super::super::tag::read_tag(bytes, urls.attr, &mut whole);
            assert_eq!(
                (*name_end, kept),
                (lexed.name_end, lexed.attrs),
                "step {step}"
            );
            let at = |r: &Range<usize>| tag.start + r.start..tag.start + r.end;
            tags.push((
                text(tag.start + 1..tag.start + name_end),
                kept.iter()
                    .map(|a| (text(at(&a.name)), a.value.as_ref().map(|v| text(at(v)))))
                    .collect::<Vec<_>>(),
            ));
        }
        let pair = |n: &str, v: Option<&str>| (n.to_owned(), v.map(str::to_owned));
        assert_eq!(
            tags,
            vec![
                (
                    "A".to_owned(),
                    vec![pair("HREF", Some("a b")), pair("src", None)]
                ),
                ("img".to_owned(), vec![pair("src", Some("i"))]),
                (
                    "a".to_owned(),
                    vec![pair("href", Some("0")), pair("SRC", None)]
                ),
            ],
            "step {step}"
        );
    }
}

/// Where the scanner, reading scripts itself, says the first `<script>` of `html` ends
/// (its end tag's `<`), fed `step` bytes at a time.
fn script_end(html: &[u8], step: usize) -> Option<usize> {
    let out = found_reading_scripts(html, step, false, &ALL, true);
    out.items.into_iter().find_map(|f| match f {
        Found::TextEnd {
            name: b"script",
            content,
            ..
        } => Some(content.end),
        _ => None,
    })
}

/// Where lol_html says the first `<script>` of `html` ends.
fn lol_html_script_end(html: &[u8]) -> Option<usize> {
    let end = std::rc::Rc::new(std::cell::Cell::new(None));
    let seen = end.clone();
    let settings = lol_html::Settings::new().append_element_content_handler(lol_html::element!(
        "script",
        move |el| {
            let seen = seen.clone();
            if seen.get().is_none() {
                el.on_end_tag(lol_html::end_tag!(move |e| {
                    seen.set(Some(e.source_location().bytes().start));
                    Ok(())
                }))?;
            }
            Ok(())
        }
    ));
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(html).unwrap();
    rewriter.end().unwrap();
    end.get()
}

#[test]
fn script_data_and_its_escapes_end_where_the_tokenizer_ends_them() {
    let cases: [(&str, Option<usize>); 8] = [
        ("<script>a</script><a>", Some(9)),
        ("<script>a</SCRIPT\n><a>", Some(9)),
        ("<script>a</scripts></script>", Some(19)),
        ("<script><!--</script>x</script>", Some(12)),
        ("<script><!--<script></script>x</script>", Some(30)),
        ("<script><!--<script>--></script>", Some(23)),
        ("<script><!-- <script>- -></script></script>", Some(34)),
        ("<script><!-- x --> <script></script>", Some(27)),
    ];
    for (html, end) in cases {
        for step in [1, 2, 3, html.len()] {
            assert_eq!(script_end(html.as_bytes(), step), end, "{html:?} by {step}");
        }
        assert_eq!(
            lol_html_script_end(html.as_bytes()),
            end,
            "lol_html: {html:?}"
        );
    }
}

/// Script data made of the pieces its states turn on, read by the scanner in pieces of
/// every size and by lol_html (which implements the same states), end at the same byte.
#[test]
fn script_data_ends_where_lol_html_ends_it() {
    const PIECES: [&str; 18] = [
        "<!--",
        "-->",
        "<script>",
        "</script>",
        "<script ",
        "</script/",
        "-",
        "--",
        "<",
        ">",
        "x",
        "<!-",
        "</scrip",
        "<scripts>",
        "<SCRIPT>",
        " ",
        "/",
        "</",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(seed >> 33).unwrap_or(0) % n
    };
    for _ in 0..3000 {
        let mut html = String::from("<script>");
        for _ in 0..next(12) {
            html.push_str(PIECES[next(PIECES.len())]);
        }
        html.push_str("</script><a href=y>");
        let expected = lol_html_script_end(html.as_bytes());
        for step in [1, 3, 7, html.len()] {
            assert_eq!(
                script_end(html.as_bytes(), step),
                expected,
                "{html:?} by {step}"
            );
        }
    }
}

#[test]
fn cdata_in_foreign_content() {
    let html = b"<![CDATA[<a>]]]><b>";
    let tags: Vec<_> = found(html, html.len(), true, &ALL)
        .items
        .into_iter()
        .filter_map(|f| match f {
            Found::StartTag { tag, .. } => Some((tag.start, tag.end)),
            _ => None,
        })
        .collect();
    assert_eq!(tags, vec![(16, 19)]);
}

#[test]
fn stops_at_the_limit_between_constructs() {
    let html = b"<p>x<!-- y --><a>";
    let mut s = Scanner::new(0);
    let mut finds = Finds::default();
    s.scan(
        Window {
            bytes: html,
            base: 0,
            eof: false,
        },
        14,
        false,
        &ALL,
        &mut finds,
    );
    assert!(s.is_at(14));
    assert_eq!(finds.items.len(), 1);
    // A comment that runs past a limit is not a checkpoint.
    let mut s = Scanner::new(0);
    s.scan(
        Window {
            bytes: html,
            base: 0,
            eof: false,
        },
        6,
        false,
        &ALL,
        &mut finds,
    );
    assert!(!s.is_at(6));
}
