//! `rewrite MESSAGE --extract DIR`: a mail or a saved page as files that open
//! from `file://` with their images. The bundled examples (`examples/mail/`, written by
//! `scripts/make-examples.py`) are extracted, the files compared byte for byte, and
//! `scripts/check-page.py` (the standard library's HTML parser, independent of linkbase) must
//! find every `src`, `href` and CSS `url()` of the page on disk.

use std::path::Path;
use std::process::Command;

use super::sites::tmp;
use super::util::{linkbase, untimed, Run};

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The files below `dir`, as sorted relative paths.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// `linkbase rewrite INPUT --extract OUT`.
fn extract(input: &Path, out: &Path) -> Run {
    let (input, out) = (input.to_str().unwrap(), out.to_str().unwrap());
    linkbase(&["rewrite", input, "--extract", out], b"")
}

/// `python3 scripts/check-page.py PAGE`: its exit code and what it printed.
fn check_page(page: &Path) -> (i32, String) {
    let out = Command::new("python3")
        .arg(Path::new(REPO).join("scripts/check-page.py"))
        .arg(page)
        .current_dir(page.parent().unwrap())
        .output()
        .expect("python3 runs scripts/check-page.py");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// A PNG's width and height (its IHDR): the saved image is the part's decoded body, not its
/// base64 text.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn a_mail_with_inline_images_becomes_a_page_with_its_images() {
    let dir = tmp();
    let out = dir.path().join("page");
    let mail = Path::new(REPO).join("examples/mail/newsletter.eml");
    let run = extract(&mail, &out);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let name = mail.display();
    let shown = out.display();
    assert_eq!(
        untimed(&run.stderr),
        format!(
            "linkbase: {name} part 1.1 (text/plain) not written: not referenced by the page\n\
             linkbase: {name} part 2 (application/pdf \"programme.pdf\") not written: not referenced by the page\n\
             linkbase: {name}: 4 files written to {shown}; the page: {shown}/message/index.html; \
             4 links to them made relative; 2 parts not written, see above; T s\n"
        )
    );
    assert_eq!(
        files(&out),
        [
            "message/banner.png",
            "message/bg.png",
            "message/index.html",
            "message/logo.png"
        ]
    );
    // Only the URL bytes changed: `cid:` references became the files' names; the link relative
    // to the part's Content-Base became absolute (it names no part).
    let page = std::fs::read_to_string(out.join("message/index.html")).unwrap();
    let expected = concat!(
        "<!doctype html>\r\n",
        "<html><head><meta charset=\"utf-8\"><title>Example news, January</title>\r\n",
        "<style>.head { background: url(bg.png) }</style></head>\r\n",
        "<body>\r\n",
        "<table width=\"100%\" background=\"bg.png\"><tr><td class=\"head\">\r\n",
        "<img src=\"logo.png\" alt=\"Example\" width=\"48\" height=\"16\">\r\n",
        "</td></tr></table>\r\n",
        "<h1>January at Example</h1>\r\n",
        "<p><img src=\"banner.png\" alt=\"banner\"></p>\r\n",
        "<p>Read it <a href=\"https://example.com/news/january.html\">on the web</a>, or see ",
        "<a href=\"https://example.com/site/news.html#2026\">the news page</a>.</p>\r\n",
        "</body></html>\r\n",
    );
    // The charset its heading gave, kept by a byte order mark (the file has no heading).
    assert_eq!(
        page.replace("\r\n", "\n"),
        format!("\u{feff}{}", expected.replace("\r\n", "\n"))
    );
    for (file, size) in [
        ("logo.png", (48, 16)),
        ("banner.png", (120, 24)),
        ("bg.png", (8, 8)),
    ] {
        let bytes = std::fs::read(out.join("message").join(file)).unwrap();
        assert_eq!(png_size(&bytes), size, "{file}");
    }
    let (code, said) = check_page(&out.join("message/index.html"));
    assert_eq!(
        (code, said.as_str()),
        (
            0,
            "6 references in 1 file: 0 fail, 2 links to other sites not followed\n"
        )
    );
    // The checker fails when an image is not there: it can tell.
    std::fs::remove_file(out.join("message/logo.png")).unwrap();
    let (code, said) = check_page(&out.join("message/index.html"));
    assert_eq!(code, 1, "{said}");
    assert!(
        said.starts_with("index.html: <img src> 'logo.png': no such file logo.png\n"),
        "{said}"
    );
}

#[test]
fn a_saved_page_keeps_its_site_layout_and_its_stylesheet_finds_its_image() {
    let dir = tmp();
    let out = dir.path().join("saved");
    let mht = Path::new(REPO).join("examples/mail/saved-page.mht");
    let run = extract(&mht, &out);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        untimed(&run.stderr),
        format!(
            "linkbase: {}: 4 files written to {}; the page: {}/blog.example.com/2026/post.html; \
             3 links to them made relative; T s\n",
            mht.display(),
            out.display(),
            out.display()
        )
    );
    assert_eq!(
        files(&out),
        [
            "blog.example.com/2026/post.html",
            "blog.example.com/css/blog.css",
            "blog.example.com/img/bg.png",
            "blog.example.com/img/photo.png"
        ]
    );
    let page = std::fs::read_to_string(out.join("blog.example.com/2026/post.html")).unwrap();
    // Links to parts stay relative paths; `./` names no part and becomes absolute.
    assert!(page.contains("<link rel=\"stylesheet\" href=\"../css/blog.css\">"));
    assert!(page.contains("<a href=\"http://blog.example.com/2026/\">All posts</a>"));
    assert!(page.contains("<img src=\"../img/photo.png\" alt=\"photo\">"));
    assert_eq!(
        std::fs::read_to_string(out.join("blog.example.com/css/blog.css")).unwrap(),
        "body { background: url(../img/bg.png) }"
    );
    let (code, said) = check_page(&out.join("blog.example.com/2026/post.html"));
    assert_eq!(
        (code, said.as_str()),
        (
            0,
            "4 references in 2 files: 0 fail, 1 link to other sites not followed\n"
        )
    );
}

/// Names from the message are hostile input: a Content-Location climbing with `..`, a file
/// name with `/` — every file stays below DIR; two parts with one name are kept apart (said).
#[test]
fn part_names_stay_inside_the_directory_and_apart() {
    let message = concat!(
        "MIME-Version: 1.0\r\n",
        "Content-Type: multipart/related; boundary=\"b\"\r\n",
        "\r\n",
        "--b\r\n",
        "Content-Type: text/html\r\n",
        "\r\n",
        "<img src=\"cid:a\"><img src=\"cid:b\"><img src=\"cid:c\"><a href=\"cid:nowhere\">x</a>\r\n",
        "--b\r\n",
        "Content-Type: image/png\r\n",
        "Content-ID: <a>\r\n",
        "Content-Disposition: inline; filename=\"../../escape.png\"\r\n",
        "\r\n",
        "A\r\n",
        "--b\r\n",
        "Content-Type: image/png\r\n",
        "Content-ID: <b>\r\n",
        "Content-Location: http://h/../../up.png\r\n",
        "\r\n",
        "B\r\n",
        "--b\r\n",
        "Content-Type: image/png\r\n",
        "Content-ID: <c>\r\n",
        "Content-Disposition: inline; filename=\"../../escape.png\"\r\n",
        "\r\n",
        "C\r\n",
        "--b--\r\n"
    );
    let dir = tmp();
    let input = dir.path().join("m.eml");
    std::fs::write(&input, message).unwrap();
    let out = dir.path().join("out");
    let run = extract(&input, &out);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        files(&out),
        [
            "h/up.png",
            "message/.._.._escape.png",
            "message/.._.._escape~2.png",
            "message/index.html"
        ]
    );
    let page = std::fs::read_to_string(out.join("message/index.html")).unwrap();
    assert_eq!(
        page,
        "<img src=\".._.._escape.png\"><img src=\"../h/up.png\">\
         <img src=\".._.._escape~2.png\"><a href=\"cid:nowhere\">x</a>"
    );
    assert_eq!(
        run.stderr.lines().next().unwrap(),
        format!(
            "linkbase: {}: thismessage://message/.._.._escape.png#2 and \
             thismessage://message/.._.._escape.png#4 map to one name, {}; \
             thismessage://message/.._.._escape.png#4 is written to {}",
            input.display(),
            out.join("message/.._.._escape.png").display(),
            out.join("message/.._.._escape~2.png").display()
        )
    );
}

#[test]
fn extract_of_a_plain_page_is_refused() {
    let dir = tmp();
    let page = dir.path().join("p.html");
    std::fs::write(&page, "<a href=x>x</a>").unwrap();
    let out = dir.path().join("out");
    let run = extract(&page, &out);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "linkbase: --extract DIR needs a WARC or ARC file, a MIME message (.eml, .mht) or an \
         mbox, as INPUT\n"
    );
    assert!(!out.exists());
}

/// The bundled examples are what `scripts/make-examples.py` writes: the script is their source,
/// and an edit of either alone fails here.
#[test]
fn examples_are_what_the_generator_writes() {
    let out = Command::new("python3")
        .arg(Path::new(REPO).join("scripts/make-examples.py"))
        .arg("--check")
        .output()
        .expect("python3 runs scripts/make-examples.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A message with no HTML part has no page: refused (exit 2), nothing written.
#[test]
fn a_message_without_html_is_refused() {
    let dir = tmp();
    let input = dir.path().join("plain.eml");
    std::fs::write(
        &input,
        "MIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nhello\r\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = extract(&input, &out);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {}: the message has no HTML part to write as a page\n",
            input.display()
        )
    );
    assert!(!out.exists());
}

/// Chrome's saved pages label each stylesheet `Content-Location: cid:css-…@mhtml.blink` (no
/// Content-ID) and link it by that URL: the extracted page links the stylesheet's
/// file, as Chromium's reader finds it; it was left out ("not referenced by the page").
#[test]
fn a_chrome_stylesheet_labelled_by_a_cid_location_is_extracted_and_linked() {
    let dir = tmp();
    let input = dir.path().join("c.mhtml");
    std::fs::write(
        &input,
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; boundary=\"B\"\r\n\r\n\
--B\r\nContent-Type: text/html\r\nContent-ID: <frame-1@mhtml.blink>\r\nContent-Location: https://ex.org/dir/page.html\r\n\r\n\
<link rel=\"stylesheet\" href=\"cid:css-1@mhtml.blink\"><img src=\"i.png\">\r\n\
--B\r\nContent-Type: text/css\r\nContent-Location: cid:css-1@mhtml.blink\r\n\r\n\
@charset \"utf-8\";\r\nbody { color: red }\r\n\
--B\r\nContent-Type: image/png\r\nContent-Location: https://ex.org/dir/i.png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0K\r\n--B--\r\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = extract(&input, &out);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        files(&out),
        [
            "ex.org/dir/i.png",
            "ex.org/dir/page.html",
            "message/part-2.css"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("ex.org/dir/page.html")).unwrap(),
        "<link rel=\"stylesheet\" href=\"../../message/part-2.css\"><img src=\"i.png\">"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("message/part-2.css")).unwrap(),
        "@charset \"utf-8\";\r\nbody { color: red }"
    );
}

/// A newsletter's part placed by `heading` (a Content-Base or a Content-Location), with
/// same-document references and one to the part by its URL.
fn newsletter(heading: &str) -> String {
    format!(
        "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"B\"\r\n\r\n\
--B\r\nContent-Type: text/html; charset=us-ascii\r\n{heading}: https://shop.example/news/\r\n\r\n\
<a href=\"#legal\">terms</a> <a href=\"#\">top</a> <a href=\"\">again</a> \
<a href=\"https://shop.example/news/#legal\">by URL</a> <img src=\"logo.png\"> \
<a href=\"more.html\">more</a>\r\n<p id=\"legal\">Legal</p>\r\n\
--B\r\nContent-Type: image/png\r\nContent-Location: https://shop.example/news/logo.png\r\n\r\nPNG\r\n--B--\r\n"
    )
}

/// RFC 2396 §4.2: a same-document reference (`#legal`, `#`, `""`) stays in the page written from
/// a part, whatever base its heading gives (the page opened from disk would leave for the live
/// site); so does a reference to the part's own Content-Location. Under `rewrite DIR --relative`
/// the message's part keeps them too. A plain `rewrite` makes them absolute, as before.
#[test]
fn same_document_references_stay_in_the_page() {
    let dir = tmp();
    for (heading, page, by_url, logo) in [
        (
            "Content-Base",
            "message/index.html",
            "https://shop.example/news/#legal",
            "../shop.example/news/logo.png",
        ),
        (
            "Content-Location",
            "shop.example/news/index.html",
            "#legal",
            "logo.png",
        ),
    ] {
        let input = dir.path().join(format!("{heading}.eml"));
        std::fs::write(&input, newsletter(heading)).unwrap();
        let out = dir.path().join(format!("{heading}-page"));
        let run = extract(&input, &out);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            std::fs::read_to_string(out.join(page)).unwrap(),
            format!(
                "<a href=\"#legal\">terms</a> <a href=\"#\">top</a> <a href=\"\">again</a> \
                 <a href=\"{by_url}\">by URL</a> <img src=\"{logo}\"> \
                 <a href=\"https://shop.example/news/more.html\">more</a>\r\n\
                 <p id=\"legal\">Legal</p>"
            ),
            "{heading}"
        );
    }
    // In a tree made relative: the message's part keeps its in-page links.
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("news.eml"), newsletter("Content-Base")).unwrap();
    let out = dir.path().join("mirror");
    let (tree_arg, out_arg) = (tree.to_str().unwrap(), out.to_str().unwrap());
    let run = linkbase(
        &[
            "rewrite",
            tree_arg,
            "--site-url",
            "http://h/",
            "--relative",
            "-o",
            out_arg,
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mail = std::fs::read_to_string(out.join("news.eml")).unwrap();
    assert!(
        mail.contains(
            "<a href=\"#legal\">terms</a> <a href=\"#\">top</a> <a href=\"\">again</a> \
             <a href=\"https://shop.example/news/#legal\">by URL</a> \
             <img src=\"https://shop.example/news/logo.png\"> \
             <a href=\"https://shop.example/news/more.html\">more</a>\r\n"
        ),
        "{mail}"
    );
    // Without a relinker, the heading's base applies (docs/html-rules.md §3).
    let input = dir.path().join("Content-Base.eml");
    let run = linkbase(&["rewrite", input.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "<a href=\"https://shop.example/news/#legal\">terms</a> \
             <a href=\"https://shop.example/news/#\">top</a> \
             <a href=\"https://shop.example/news/\">again</a>"
        ),
        "{}",
        run.stdout
    );
}

/// `rewrite MBOX --extract DIR`: each message with an HTML part becomes its page below `DIR/N`
/// (N its place in the mbox, from 0), as `rewrite MESSAGE --extract DIR/N` writes it; a plain
/// message is counted, the bytes before the first message said; exit 1 for what was skipped.
#[test]
fn an_mbox_is_extracted_a_page_per_message() {
    let dir = tmp();
    let mbox = format!(
        "stray\n\nFrom a@example.org Mon Jan  1 00:00:00 2001\n\
         Content-Type: text/html\nContent-Location: http://h/one/\n\n<a href=x.html>x</a> <a href=#top>top</a>\n\n\
         From b@example.org Mon Jan  1 00:00:01 2001\nContent-Type: text/plain\n\nplain\n\n\
         From c@example.org Mon Jan  1 00:00:02 2001\n{}",
        newsletter("Content-Base")
    );
    let input = dir.path().join("box.mbox");
    std::fs::write(&input, mbox).unwrap();
    let out = dir.path().join("pages");
    let run = extract(&input, &out);
    let (name, shown) = (input.display(), out.display());
    assert_eq!(
        untimed(&run.stderr),
        format!(
            "linkbase: {name}: 7 bytes before the first `From ` line belong to no message: skipped\n\
             linkbase: {name} message 0 (offset 7): 1 file written to {shown}/0; the page: \
             {shown}/0/h/one/index.html; 0 links to them made relative; T s\n\
             linkbase: {name} message 2 (offset 228): 2 files written to {shown}/2; the page: \
             {shown}/2/message/index.html; 1 link to them made relative; T s\n\
             linkbase: {name}: 2 pages written below {shown} (one directory per message, named by \
             its place from 0); 1 message without an HTML part, not written; 1 skipped, see above; T s\n"
        )
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        files(&out),
        [
            "0/h/one/index.html",
            "2/message/index.html",
            "2/shop.example/news/logo.png"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("0/h/one/index.html")).unwrap(),
        "<a href=http://h/one/x.html>x</a> <a href=#top>top</a>\n"
    );
    assert!(std::fs::read_to_string(out.join("2/message/index.html"))
        .unwrap()
        .starts_with("<a href=\"#legal\">terms</a> "));
}
