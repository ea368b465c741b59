//! `check --online` on a tree written by someone else (a pull request's): what its links and
//! the servers they lead to can and cannot make linkbase send (docs/sites.md, "What a checked
//! tree can and cannot make linkbase do"). Every server is one these tests start on 127.0.0.1;
//! the default's refusal of private addresses is tested by runs without `--allow-private`.

use std::sync::Arc;
use std::time::Duration;

use super::online::*;
use super::sites::s;

/// `http://127.0.0.1:B\@localhost:A/x` is host 127.0.0.1:B to a browser (and to the request)
/// and localhost:A to RFC 3986: the header the user scoped to localhost:A must not reach B,
/// nor B's own, since the link says two things; the run says so.
#[test]
fn a_header_never_follows_a_host_the_two_grammars_read_differently() {
    let a = Server::start(routes);
    let b = Server::start(routes);
    let tricky = format!("http://127.0.0.1:{}\\@localhost:{}/ok", b.port, a.port);
    let dir = site(&[tricky.clone(), b.url("/ok")]);
    let to_a = format!("localhost:{}: Authorization: Bearer T", a.port);
    let to_b = format!("127.0.0.1:{}: X-B: b", b.port);
    let run = check(
        dir.path(),
        &[
            "--online", "--header", &to_a, "--header", &to_b, "--format", "jsonl",
        ],
    );
    // The tricky link is a 404 on B: broken, exit 1.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(a.seen().is_empty(), "{:?}", a.log());
    let seen = b.seen();
    // Asked where a browser goes (HEAD, then GET to confirm its 404).
    let tricky_seen: Vec<_> = seen.iter().filter(|r| r.path != "/ok").collect();
    assert!(!tricky_seen.is_empty());
    for r in &tricky_seen {
        assert_eq!(r.path, format!("/@localhost:{}/ok", a.port));
    }
    for r in &tricky_seen {
        assert!(!r.headers.contains_key("authorization"), "{r:?}");
        assert!(!r.headers.contains_key("x-b"), "{r:?}");
    }
    // B's own header still goes with B's own, plain link.
    let plain: Vec<_> = seen.iter().filter(|r| r.path == "/ok").collect();
    assert_eq!(plain.len(), 1);
    assert_eq!(plain[0].headers["x-b"], "b");
    assert!(!plain[0].headers.contains_key("authorization"));
    assert!(
        run.stderr.contains(&format!(
            "linkbase: {}: RFC 3986 reads the host localhost:{} in it, browsers 127.0.0.1:{}: \
             requested where browsers go, without --header\n",
            tricky.replace('\\', "\\\\"),
            a.port,
            b.port
        )),
        "{}",
        run.stderr
    );
    let records = records(&run);
    assert_eq!(
        records[0].2["rfc3986_host"],
        format!("localhost:{}", a.port)
    );
    assert_eq!(
        records[0].2["url"],
        format!("http://127.0.0.1:{}/@localhost:{}/ok", b.port, a.port)
    );
}

/// Every spelling of one host counts against its one limit: the backslash trick, the numeric
/// forms of an IPv4 address, a trailing dot, the default port written out.
#[test]
fn no_spelling_of_a_host_escapes_its_limit() {
    let slow = |_: &Seen, _: usize| Reply {
        delay: Duration::from_millis(30),
        ..reply(200)
    };
    let b = Server::start(slow);
    let p = b.port;
    let mut links = Vec::new();
    for i in 0..8 {
        links.push(format!("http://127.0.0.1:{p}\\@h{i}.example:1/{i}"));
        links.push(format!("http://2130706433:{p}/a{i}"));
        links.push(format!("http://127.1:{p}/b{i}"));
        links.push(format!("http://0x7f.0.0.1:{p}/c{i}"));
        links.push(format!("http://127.0.0.1.:{p}/d{i}"));
        links.push(format!("HTTP://127.0.0.1:{p}/e{i}"));
    }
    let dir = site(&links);
    let run = check(
        dir.path(),
        &[
            "--online",
            "--host-concurrency",
            "2",
            "--max-concurrency",
            "48",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(b.log().len(), 48);
    assert!(b.gauge.max() <= 2, "per host: {}", b.gauge.max());
}

/// Without --allow-private no request goes to a loopback, private, link-local or unspecified
/// address, however the link spells it; each such link is excluded with its reason, counted,
/// and said on stderr. With it, the loopback server is asked.
#[test]
fn private_addresses_are_refused_by_default() {
    let server = Server::start(routes);
    let p = server.port;
    let loopback = [
        server.url("/ok"),
        format!("http://localhost:{p}/ok"),
        format!("http://2130706433:{p}/ok"),
        format!("http://0x7f000001:{p}/ok"),
    ];
    let mut links = loopback.to_vec();
    // Names the system's resolver may not know (they are loopback by definition all the same).
    links.extend([
        format!("http://LOCALHOST.:{p}/ok"),
        format!("http://sub.localhost:{p}/ok"),
        format!("http://[::ffff:127.0.0.1]:{p}/ok"),
    ]);
    links.extend(
        [
            "http://0.0.0.0:9/",
            "http://[::1]:9/",
            "http://169.254.169.254/latest/meta-data/",
            "http://10.1.2.3/",
            "http://192.168.1.1/admin",
            "http://[fd00::1]/",
            "http://100.64.0.1/",
        ]
        .map(String::from),
    );
    let dir = site(&links);
    let run = check_default(dir.path(), &["--online", "--format", "jsonl"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(server.seen().is_empty(), "{:?}", server.log());
    let reasons: Vec<(String, String)> = records(&run)
        .into_iter()
        .map(|(o, v, online)| {
            let why = online["excluded"].as_str().unwrap_or("").to_owned();
            (format!("{v} {}", o.replace(&p.to_string(), "P")), why)
        })
        .collect();
    let loopback_why =
        |a: &str| format!("a loopback address ({a}): not requested without --allow-private");
    assert_eq!(
        reasons,
        [
            ("excluded http://127.0.0.1:P/ok", loopback_why("127.0.0.1")),
            ("excluded http://localhost:P/ok", loopback_why("localhost")),
            ("excluded http://2130706433:P/ok", loopback_why("127.0.0.1")),
            ("excluded http://0x7f000001:P/ok", loopback_why("127.0.0.1")),
            ("excluded http://LOCALHOST.:P/ok", loopback_why("localhost")),
            (
                "excluded http://sub.localhost:P/ok",
                loopback_why("sub.localhost")
            ),
            (
                "excluded http://[::ffff:127.0.0.1]:P/ok",
                loopback_why("[::ffff:127.0.0.1]")
            ),
            (
                "excluded http://0.0.0.0:9/",
                "an unspecified address (0.0.0.0): not requested without --allow-private".into()
            ),
            ("excluded http://[::1]:9/", loopback_why("[::1]")),
            (
                "excluded http://169.254.169.254/latest/meta-data/",
                "a link-local address (169.254.169.254): not requested without --allow-private"
                    .into()
            ),
            (
                "excluded http://10.1.2.3/",
                "a private address (10.1.2.3): not requested without --allow-private".into()
            ),
            (
                "excluded http://192.168.1.1/admin",
                "a private address (192.168.1.1): not requested without --allow-private".into()
            ),
            (
                "excluded http://[fd00::1]/",
                "a private address ([fd00::1]): not requested without --allow-private".into()
            ),
            (
                "excluded http://100.64.0.1/",
                "a shared (carrier-grade NAT) address (100.64.0.1): not requested without \
                 --allow-private"
                    .into()
            ),
        ]
        .map(|(a, b)| (a.to_owned(), b))
    );
    assert!(
        summary(&run).ends_with(
            "0 external (0 checked online, 0 from the cache); 0 unresolvable; 14 excluded (14 to \
             private addresses); 0 not checked"
        ),
        "{}",
        summary(&run)
    );
    assert!(
        run.stderr.contains(
            "linkbase: http://169.254.169.254/latest/meta-data/: excluded: a link-local address \
             (169.254.169.254): not requested without --allow-private\n"
        ),
        "{}",
        run.stderr
    );
    // Excluded links are not unchecked ones: --fail-on-unchecked does not fail for them.
    let run = check_default(dir.path(), &["--online", "--fail-on-unchecked"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // --allow-private: the loopback server is asked (the other addresses are not in this run).
    let dir = site(&loopback);
    let run = check_default(dir.path(), &["--online", "--allow-private"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Three spellings of one URL are one request; localhost is another host name.
    assert_eq!(server.log(), ["HEAD /ok", "HEAD /ok"]);
}

/// A redirect is a request of its own: its target is read and judged as a link's is, by the
/// address policy and by the exclude patterns. The first hop goes through a proxy the user set
/// (on 127.0.0.1, as every server here), for a name that is not private.
#[test]
fn every_redirect_is_judged_as_a_link_is() {
    let inner = Server::start(routes);
    let secret = inner.url("/secret");
    let local = format!("http://localhost:{}/secret", inner.port);
    let proxy = Server::start(move |r: &Seen, _| match r.path.as_str() {
        "/to-loopback" => redirect(302, &secret),
        "/to-localhost" => redirect(301, &local),
        "/to-metadata" => redirect(307, "http://169.254.169.254/latest/meta-data/"),
        _ => reply(404),
    });
    let dir = site(&[
        "http://public.invalid/to-loopback".into(),
        "http://public.invalid/to-localhost".into(),
        "http://public.invalid/to-metadata".into(),
    ]);
    let proxy_url = format!("http://127.0.0.1:{}", proxy.port);
    let run = check_default(
        dir.path(),
        &["--online", "--format", "jsonl"],
        &[("HTTP_PROXY", &proxy_url)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(inner.seen().is_empty(), "{:?}", inner.log());
    let excluded: Vec<(String, String)> = records(&run)
        .into_iter()
        .map(|(_, v, online)| {
            (
                v,
                online["excluded"]
                    .as_str()
                    .unwrap_or("")
                    .replace(&inner.port.to_string(), "P"),
            )
        })
        .collect();
    assert_eq!(
        excluded,
        [
            (
                "excluded",
                "redirected to a loopback address (127.0.0.1): not requested without --allow-private"
            ),
            (
                "excluded",
                "redirected to a loopback address (localhost): not requested without --allow-private"
            ),
            (
                "excluded",
                "redirected to a link-local address (169.254.169.254): not requested without \
                 --allow-private"
            ),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    // The exclude patterns apply to a redirect's target too: it is never requested.
    let server = Server::start(|r: &Seen, _| match r.path.as_str() {
        "/hop" => redirect(302, "/private/x"),
        _ => reply(200),
    });
    let dir = site(&[server.url("/hop")]);
    let run = check(
        dir.path(),
        &["--online", "--exclude", "/private/", "--format", "jsonl"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(server.log(), ["HEAD /hop"]);
    let records = records(&run);
    assert_eq!(records[0].1, "excluded");
    assert_eq!(
        records[0].2["excluded"],
        format!(
            "redirected to {}, which --exclude or .linkbaseignore excludes",
            server.url("/private/x")
        )
    );
    assert!(
        summary(&run).contains("; 1 excluded; 0 not checked"),
        "{}",
        summary(&run)
    );
}

/// A server that trickles its answer is cut by --timeout (connect, head and body), and the run
/// by --max-time: what is left is not-checked, counted, and fails --fail-on-unchecked.
#[test]
fn trickling_servers_end_by_the_timeout_and_the_run_by_max_time() {
    let server = Server::start(|r: &Seen, _| match r.path.as_str() {
        // The status line at once, then a byte of the head every 50 ms.
        "/head" => Reply {
            body: vec![b'x'; 1000],
            trickle: Duration::from_millis(50),
            trickle_from: 12,
            ..reply(200)
        },
        // The whole head at once, then the body a byte every 50 ms.
        "/body" => Reply {
            headers: vec![("Content-Type", "text/html".into())],
            body: b"<p id=x>".repeat(1000),
            trickle: Duration::from_millis(50),
            trickle_from: 80,
            ..reply(200)
        },
        _ => Reply {
            delay: Duration::from_secs(30),
            ..reply(200)
        },
    });
    let dir = site(&[server.url("/head"), server.url("/body#x")]);
    let run = check(
        dir.path(),
        &[
            "--online",
            "--timeout",
            "500ms",
            "--max-retries",
            "0",
            "--format",
            "jsonl",
        ],
    );
    let got = records(&run);
    assert_eq!(got[0].1, "unreachable", "{}", run.stderr);
    assert_eq!(got[0].2["error"], "timed out after 500 ms");
    assert_eq!(got[1].1, "not-checked", "{}", run.stderr);
    let fragment = got[1].2["fragment"]["not-checked"].as_str().unwrap();
    assert!(
        fragment.starts_with("not checked: the page could not be read: "),
        "{fragment}"
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    // Twenty links to a server that answers after 30 s, with requests allowed 10 minutes
    // each: --max-time ends them all, and the run.
    let links: Vec<String> = (0..20)
        .map(|i| server.url(&format!("/stall/{i}")))
        .collect();
    let dir = site(&links);
    let run = check(
        dir.path(),
        &[
            "--online",
            "--timeout",
            "10m",
            "--max-time",
            "1s",
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for (original, verdict, online) in records(&run) {
        assert_eq!(verdict, "not-checked", "{original}");
        assert_eq!(online["not_checked"], "not checked: --max-time 1 s reached");
    }
    assert!(
        summary(&run).ends_with("; 20 not checked: 20 past --max-time"),
        "{}",
        summary(&run)
    );
    let run = check(
        dir.path(),
        &["--online", "--max-time", "500ms", "--fail-on-unchecked"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
}

/// What a flag or a settings file gives is checked where it is read: a header or a user agent
/// that would split a request is bad usage (exit 2), never a panic.
#[test]
fn header_values_are_checked_before_any_request() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/ok")]);
    for (args, expected) in [
        (
            vec!["--user-agent", "probe\r\nX-Injected: 1"],
            "linkbase: --user-agent \"probe\\r\\nX-Injected: 1\": a header value cannot hold \
             control characters (CR, LF, …)\n",
        ),
        (
            vec!["--header", "127.0.0.1: X: a\nb"],
            "linkbase: --header \"127.0.0.1: X: a\\nb\": the value holds a control character \
             (CR, LF, …)\n",
        ),
        (
            vec!["--header", "127.0.0.1: X\u{1}: a"],
            "linkbase: --header \"127.0.0.1: X\\x01: a\": \"X\\x01\" is not a header name\n",
        ),
    ] {
        let mut all = vec!["--online"];
        all.extend(args);
        let run = check(dir.path(), &all);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert_eq!(run.stderr, expected);
    }
    std::fs::write(
        dir.path().join("linkbase.toml"),
        "[online]\nuser_agent = \"a\\r\\nb\"\n",
    )
    .unwrap();
    let run = check(dir.path(), &["--online"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(
            "linkbase.toml: user_agent = \"a\\r\\nb\": a header value cannot hold control \
             characters (CR, LF, …)\n"
        ),
        "{}",
        run.stderr
    );
    assert!(server.seen().is_empty());
}

/// The cache keeps what a run with --allow-private learnt apart: a run without it asks again
/// (and refuses), rather than trust an answer it would not have asked for.
#[test]
fn an_answer_learnt_with_allow_private_is_not_used_without_it() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/ok")]);
    let run = check(dir.path(), &["--online", "--cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = check_default(
        dir.path(),
        &["--online", "--cache", "--format", "jsonl"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(records(&run)[0].1, "excluded");
    assert_eq!(server.log(), ["HEAD /ok"]);
    // With it again: from the cache.
    let run = check(dir.path(), &["--online", "--cache"]);
    assert!(
        summary(&run).contains("(1 checked online, 1 from the cache)"),
        "{}",
        summary(&run)
    );
    assert_eq!(server.log(), ["HEAD /ok"]);
}

/// Remote pages are read for their ids as they stream in: a page past the bound is said, not
/// held; one only a full parse could read is not-checked, not guessed.
#[test]
fn remote_ids_come_from_the_stream() {
    let gauge = Arc::new(Gauge::default());
    let server = Server::start_with(gauge, |r: &Seen, _| match r.path.as_str() {
        "/frames" => html("<frameset><frame src=a></frameset><a id=there>"),
        "/late" => html(&format!(
            "<p id=early>{}<p id=late>",
            "<b>x</b>".repeat(100_000)
        )),
        _ => reply(404),
    });
    let dir = site(&[
        server.url("/late#late"),
        server.url("/late#nowhere"),
        server.url("/frames#there"),
    ]);
    let run = check(dir.path(), &["--online", "--format", "jsonl"]);
    let got: Vec<(String, String)> = records(&run)
        .into_iter()
        .map(|(o, v, online)| {
            (
                format!("{v} {}", o.replace(&server.port.to_string(), "P")),
                online["fragment"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("ok http://127.0.0.1:P/late#late", "\"found\""),
            (
                "missing-fragment http://127.0.0.1:P/late#nowhere",
                "\"missing\""
            ),
            (
                "not-checked http://127.0.0.1:P/frames#there",
                "{\"not-checked\":\"not checked: the page needs a full parse to find its ids (a \
                 <frame> or <frameset>: the tree keeps frames only in a frameset, and ignores \
                 most of what follows <frameset>)\"}"
            ),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned())),
        "{}",
        run.stderr
    );
    assert!(!s(dir.path()).is_empty());
}
