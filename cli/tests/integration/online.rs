//! `check --online` against HTTP servers these tests start on
//! 127.0.0.1 (no other address is ever reached: proxy variables are removed from every run but
//! the one that tests them, whose proxy is such a server), and its cache.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::sites::{s, tmp};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub(super) struct Seen {
    pub(super) method: String,
    pub(super) path: String,
    pub(super) headers: HashMap<String, String>,
}

/// What a route answers.
pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) headers: Vec<(&'static str, String)>,
    pub(super) body: Vec<u8>,
    /// Wait this long before answering.
    pub(super) delay: Duration,
    /// When not zero: the answer's first `trickle_from` bytes at once, then one byte at a time
    /// this far apart (a server that trickles its head or its body).
    pub(super) trickle: Duration,
    pub(super) trickle_from: usize,
}

pub(super) fn reply(status: u16) -> Reply {
    Reply {
        status,
        headers: Vec::new(),
        body: Vec::new(),
        delay: Duration::ZERO,
        trickle: Duration::ZERO,
        trickle_from: 0,
    }
}

pub(super) fn html(body: &str) -> Reply {
    Reply {
        headers: vec![("Content-Type", "text/html; charset=utf-8".into())],
        body: body.as_bytes().to_vec(),
        ..reply(200)
    }
}

pub(super) fn redirect(status: u16, to: &str) -> Reply {
    Reply {
        headers: vec![("Location", to.to_owned())],
        ..reply(status)
    }
}

/// The request counts shared by servers (the global limit spans them).
#[derive(Default)]
pub(super) struct Gauge {
    now: AtomicUsize,
    max: AtomicUsize,
}

impl Gauge {
    pub(super) fn enter(&self) {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(now, Ordering::SeqCst);
    }

    pub(super) fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }

    pub(super) fn max(&self) -> usize {
        self.max.load(Ordering::SeqCst)
    }
}

pub(super) type Route = dyn Fn(&Seen, usize) -> Reply + Send + Sync;

/// An HTTP/1.1 server on 127.0.0.1 (keep-alive, a thread per connection; `CONNECT` accepted as
/// a proxy would, the tunnelled requests then served by the same routes). `route` gets each
/// request and how many requests for that path came before it.
pub(super) struct Server {
    pub(super) port: u16,
    pub(super) seen: Arc<Mutex<Vec<Seen>>>,
    pub(super) gauge: Arc<Gauge>,
}

impl Server {
    pub(super) fn start(route: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static) -> Server {
        Server::start_with(Arc::new(Gauge::default()), route)
    }

    pub(super) fn start_with(
        total: Arc<Gauge>,
        route: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        Server::start_on(listener, total, None, route)
    }

    /// Serves on `listener`, over TLS when `tls` is given.
    pub(super) fn start_on(
        listener: TcpListener,
        total: Arc<Gauge>,
        tls: Option<Arc<rustls::ServerConfig>>,
        route: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let port = listener.local_addr().unwrap().port();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let gauge = Arc::new(Gauge::default());
        let route: Arc<Route> = Arc::new(route);
        {
            let (seen, gauge) = (seen.clone(), gauge.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let (seen, gauge, total, route, tls) = (
                        seen.clone(),
                        gauge.clone(),
                        total.clone(),
                        route.clone(),
                        tls.clone(),
                    );
                    std::thread::spawn(move || {
                        let gauges: [&Gauge; 2] = [&gauge, &total];
                        let _ = match tls {
                            // A handshake the client refuses ends in the first read.
                            Some(config) => rustls::ServerConnection::new(config)
                                .map_err(std::io::Error::other)
                                .and_then(|c| {
                                    serve(
                                        rustls::StreamOwned::new(c, stream),
                                        &seen,
                                        &gauges,
                                        &*route,
                                    )
                                }),
                            None => serve(stream, &seen, &gauges, &*route),
                        };
                    });
                }
            });
        }
        Server { port, seen, gauge }
    }

    /// An HTTPS server on 127.0.0.1 with a self-signed certificate for 127.0.0.1 made for this
    /// run (rcgen), and that certificate in PEM.
    pub(super) fn start_tls(
        route: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static,
    ) -> (Server, String) {
        let rcgen::CertifiedKey { cert, signing_key } =
            rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(
            rustls::pki_types::PrivatePkcs8KeyDer::from(signing_key.serialize_der()),
        );
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], key)
        .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let server = Server::start_on(
            listener,
            Arc::new(Gauge::default()),
            Some(Arc::new(config)),
            route,
        );
        (server, cert.pem())
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub(super) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// `METHOD path` of every request, in order of arrival.
    pub(super) fn log(&self) -> Vec<String> {
        self.seen()
            .iter()
            .map(|s| format!("{} {}", s.method, s.path))
            .collect()
    }
}

pub(super) fn serve(
    stream: impl Read + Write,
    seen: &Mutex<Vec<Seen>>,
    gauges: &[&Gauge],
    route: &Route,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
            return Ok(());
        };
        let (method, path) = (method.to_owned(), path.to_owned());
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 {
                return Ok(());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let request = Seen {
            method,
            path,
            headers,
        };
        let before = {
            let mut seen = seen.lock().unwrap();
            let n = seen.iter().filter(|s| s.path == request.path).count();
            seen.push(request.clone());
            n
        };
        if request.method == "CONNECT" {
            reader
                .get_mut()
                .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
            continue;
        }
        for g in gauges {
            g.enter();
        }
        let r = route(&request, before);
        std::thread::sleep(r.delay);
        let mut head = format!(
            "HTTP/1.1 {} X\r\nContent-Length: {}\r\n",
            r.status,
            r.body.len()
        );
        for (k, v) in &r.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        if request.method != "HEAD" {
            bytes.extend_from_slice(&r.body);
        }
        // Out of the count before the answer leaves: the client cannot send its next request
        // before it has this one's answer, so the count never lags behind the client's.
        for g in gauges {
            g.leave();
        }
        if r.trickle.is_zero() {
            reader.get_mut().write_all(&bytes)?;
        } else {
            let (first, rest) = bytes.split_at(r.trickle_from.min(bytes.len()));
            reader.get_mut().write_all(first)?;
            for b in rest {
                reader.get_mut().flush()?;
                std::thread::sleep(r.trickle);
                reader.get_mut().write_all(std::slice::from_ref(b))?;
            }
        }
        reader.get_mut().flush()?;
    }
}

pub(super) struct Run {
    pub(super) code: i32,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

pub(super) const PROXY_VARS: [&str; 8] = [
    "ALL_PROXY",
    "all_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// `linkbase check DIR --site-url https://site.example/ ARGS`, with no proxy unless `env` sets
/// one. The servers are on 127.0.0.1, so a run with `--online` allows private addresses (the
/// tests of the default's refusal use [`check_default`]).
pub(super) fn check_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut args = args.to_vec();
    if args.contains(&"--online") {
        args.push("--allow-private");
    }
    check_default(dir, &args, env)
}

/// [`check_env`] without `--allow-private`.
pub(super) fn check_default(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_linkbase"));
    command
        .args(["check", s(dir), "--site-url", "https://site.example/"])
        .args(args)
        .stdin(Stdio::null());
    for v in PROXY_VARS {
        command.env_remove(v);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

pub(super) fn check(dir: &Path, args: &[&str]) -> Run {
    check_env(dir, args, &[])
}

/// A site of one page linking to `links`.
pub(super) fn site(links: &[String]) -> tempfile::TempDir {
    let dir = tmp();
    let body: String = links
        .iter()
        .map(|l| format!("<a href=\"{l}\">x</a>\n"))
        .collect();
    std::fs::write(dir.path().join("index.html"), body).unwrap();
    dir
}

pub(super) fn summary(run: &Run) -> &str {
    run.stderr
        .lines()
        .find_map(|l| l.strip_prefix("linkbase: check: "))
        .unwrap_or_else(|| panic!("no summary on stderr: {}", run.stderr))
}

/// The human report with the server's address written as `SERVER`.
pub(super) fn report(run: &Run, server: &Server) -> String {
    run.stdout
        .replace(&format!("127.0.0.1:{}", server.port), "SERVER")
}

/// `(original, verdict, online)` of every `--format jsonl` record.
pub(super) fn records(run: &Run) -> Vec<(String, String, Value)> {
    run.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (
                v["original"].as_str().unwrap().to_owned(),
                v["verdict"].as_str().unwrap().to_owned(),
                v["online"].clone(),
            )
        })
        .collect()
}

/// `(original, verdict)` of every `--format jsonl` record, the server's address written as
/// `SERVER`.
pub(super) fn verdicts(run: &Run, server: &Server) -> Vec<(String, String)> {
    records(run)
        .into_iter()
        .map(|(o, v, _)| {
            (
                o.replace(&format!("127.0.0.1:{}", server.port), "SERVER"),
                v,
            )
        })
        .collect()
}

/// A port nothing listens on (bound, then closed).
pub(super) fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(super) fn routes(r: &Seen, before: usize) -> Reply {
    match (r.method.as_str(), r.path.as_str()) {
        (_, "/ok") => reply(200),
        (_, "/gone") => reply(404),
        (_, "/410") => reply(410),
        (_, "/forbidden") => reply(403),
        ("HEAD", "/get-only/page") => reply(405),
        ("GET", "/get-only/page") => reply(200),
        (_, "/r1") => redirect(301, "/r2"),
        (_, "/r2") => redirect(302, "r3"),
        (_, "/r3") => redirect(307, "/ok"),
        (_, "/to-gone") => redirect(308, "/gone"),
        (_, "/loop-a") => redirect(302, "/loop-b"),
        (_, "/loop-b") => redirect(302, "/loop-a"),
        (_, "/page") => html("<h1 id=intro>Intro</h1><a name=old>x</a><p id=gr%C3%B6%C3%9Fe>"),
        (_, "/file.pdf") => Reply {
            headers: vec![("Content-Type", "application/pdf".into())],
            body: b"%PDF".to_vec(),
            ..reply(200)
        },
        (_, "/busy") if before == 0 => Reply {
            headers: vec![("Retry-After", "1".into())],
            ..reply(429)
        },
        (_, "/busy") => reply(200),
        (_, "/flaky") if before == 0 => reply(500),
        (_, "/flaky") => reply(200),
        (_, "/down") => reply(503),
        (_, "/huge") => html(&format!("<p id=end>{}", " ".repeat(9 << 20))),
        (_, "/slow") => Reply {
            delay: Duration::from_secs(3),
            ..reply(200)
        },
        _ => reply(404),
    }
}

#[test]
fn external_links_get_verdicts_with_their_answers() {
    let server = Server::start(routes);
    let u = |p: &str| server.url(p);
    let dir = site(&[
        u("/ok"),
        u("/gone"),
        u("/410"),
        u("/get-only/page"),
        u("/r1"),
        u("/to-gone"),
        u("/loop-a"),
        u("/page#intro"),
        u("/page#old"),
        u("/page#gr%C3%B6%C3%9Fe"),
        u("/page#top"),
        u("/page#nowhere"),
        u("/file.pdf#page=2"),
        "mailto:someone@example.com".into(),
        "mailto:nobody".into(),
        "tel:+1-201-555-0123".into(),
        "javascript:void(0)".into(),
        u("/ok"),
    ]);
    // One request at a time: the order of the log below is the order of the URLs.
    let run = check(
        dir.path(),
        &["--online", "--retry-wait", "10ms", "--max-concurrency", "1"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        report(&run, &server),
        "missing-fragment http://SERVER/page#nowhere  (1 link on 1 page): 200 OK, no such id in the page
    index.html:12:10: <a href> \"http://SERVER/page#nowhere\"
http-error http://SERVER/410  (1 link on 1 page): 410 Gone
    index.html:3:10: <a href> \"http://SERVER/410\"
http-error http://SERVER/gone  (1 link on 1 page): 404 Not Found
    index.html:2:10: <a href> \"http://SERVER/gone\"
http-error http://SERVER/to-gone  (1 link on 1 page): 404 Not Found after 308 http://SERVER/gone
    index.html:6:10: <a href> \"http://SERVER/to-gone\"
unreachable http://SERVER/loop-a  (1 link on 1 page): redirect loop after 302 http://SERVER/loop-b -> 302 http://SERVER/loop-a
    index.html:7:10: <a href> \"http://SERVER/loop-a\"
bad-address mailto:nobody  (1 link on 1 page): \"nobody\" is not an e-mail address
    index.html:15:10: <a href> \"mailto:nobody\"
1 page, 18 links: 0 internal, 6 broken (0 outside the site root, 6 external) to 6 targets; 18 external (16 checked online, 0 from the cache); 0 unresolvable; 0 excluded; 2 not checked: 1 another scheme, 1 remote fragment not looked up
"
    );
    assert_eq!(summary(&run), run.stdout.lines().last().unwrap());
    // Each distinct URL once; HEAD first, GET after a refused HEAD (405 here), GET at once
    // for a fragment, one GET for a page whatever its fragments. A HEAD 404/410 is asked again
    // with GET until one GET has confirmed it in that directory of the host (/410): /gone and
    // the /gone that /to-gone leads to are then taken as HEAD answered them.
    assert_eq!(
        server.log(),
        [
            "HEAD /410",
            "GET /410",
            "GET /file.pdf",
            "HEAD /get-only/page",
            "GET /get-only/page",
            "HEAD /gone",
            "HEAD /loop-a",
            "HEAD /loop-b",
            "HEAD /ok",
            "GET /page",
            "HEAD /r1",
            "HEAD /r2",
            "HEAD /r3",
            "HEAD /ok",
            "HEAD /to-gone",
            "HEAD /gone",
        ]
    );
    // The redirect chain of a link that ends well is in its record.
    let run = check(
        dir.path(),
        &["--online", "--format", "jsonl", "--broken-only"],
    );
    assert_eq!(run.code, 1);
    let run = check(dir.path(), &["--online", "--format", "jsonl"]);
    let by_original: HashMap<String, (String, Value)> = records(&run)
        .into_iter()
        .map(|(o, v, online)| (o, (v, online)))
        .collect();
    let (verdict, online) = &by_original[&u("/r1")];
    assert_eq!(verdict, "ok");
    assert_eq!(
        online,
        &serde_json::json!({
            "url": u("/r1"),
            "status": 200,
            "redirects": [
                {"status": 301, "to": u("/r2")},
                {"status": 302, "to": u("/r3")},
                {"status": 307, "to": u("/ok")},
            ],
            "cached": false,
        })
    );
    // A fragment that cannot be looked up is not-checked, never ok.
    let (verdict, online) = &by_original[&u("/file.pdf#page=2")];
    assert_eq!(verdict, "not-checked");
    assert_eq!(
        online["fragment"],
        serde_json::json!({"not-checked": "not checked: application/pdf, not HTML"})
    );
    assert_eq!(by_original["tel:+1-201-555-0123"].0, "ok");
    assert_eq!(by_original["javascript:void(0)"].0, "external");
    assert_eq!(by_original["javascript:void(0)"].1, Value::Null);
}

#[test]
fn a_page_past_the_bound_leaves_its_fragment_unchecked_and_says_so() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/huge#end")]);
    let run = check(dir.path(), &["--online", "--format", "jsonl", "--cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records = records(&run);
    assert_eq!(records[0].1, "not-checked");
    assert_eq!(
        records[0].2["fragment"],
        serde_json::json!({"not-checked": "not checked: the page is larger than 8 MiB"})
    );
    assert_eq!(
        run.stderr.lines().next().unwrap(),
        format!(
            "linkbase: {}: fragment not checked: the page is larger than 8 MiB",
            server.url("/huge#end")
        )
    );
    // Not kept: the next run tries again.
    let cache = std::fs::read_to_string(dir.path().join(".linkbase-cache.json")).unwrap();
    assert!(!cache.contains("/huge"), "{cache}");
    // Counted as not checked, so --fail-on-unchecked fails the run.
    assert!(
        summary(&run).ends_with("; 1 not checked: 1 remote fragment not looked up"),
        "{}",
        summary(&run)
    );
    let run = check(dir.path(), &["--online", "--fail-on-unchecked"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
}

#[test]
fn accept_decides_which_statuses_are_ok() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/forbidden"), server.url("/ok")]);
    let run = check(dir.path(), &["--online"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.starts_with("http-error "), "{}", run.stdout);
    let run = check(dir.path(), &["--online", "--accept", "200..=299,403"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        summary(&run),
        "1 page, 2 links: 0 internal, 0 broken (0 outside the site root, 0 external) to 0 targets; 2 external (2 checked online, 0 from the cache); 0 unresolvable; 0 excluded; 0 not checked"
    );
    let run = check(dir.path(), &["--online", "--accept", "200..300,4xx"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "linkbase: --accept \"200..300,4xx\": \"4xx\" is not a status code (100-999) or a range such as 200..=299\n"
    );
    // Online options without --online are bad usage, not silently ignored.
    let run = check(dir.path(), &["--accept", "200"]);
    assert_eq!(run.code, 2);
}

/// A host whose HEAD is right in one directory and wrong in another (routes that know only
/// GET answer HEAD 404).
fn head_lies_in_app(r: &Seen, _: usize) -> Reply {
    match (r.method.as_str(), r.path.as_str()) {
        (_, p) if p.starts_with("/static/") => reply(404),
        ("HEAD", p) if p.starts_with("/app/") => reply(404),
        (_, p) if p.starts_with("/app/") => reply(200),
        _ => reply(500),
    }
}

#[test]
fn a_head_404_is_asked_again_with_get_until_its_directory_has_shown_which_to_trust() {
    let server = Server::start(head_lies_in_app);
    let mut links: Vec<String> = (0..6)
        .map(|i| server.url(&format!("/static/{i}")))
        .collect();
    links.extend((0..4).map(|i| server.url(&format!("/app/{i}"))));
    let dir = site(&links);
    // Concurrently: several HEAD 404s of a directory come back before the first GET has
    // answered; they wait for it rather than each asking GET.
    let run = check(dir.path(), &["--online", "--format", "jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let mut expected: Vec<(String, String)> = (0..6)
        .map(|i| (format!("http://SERVER/static/{i}"), "http-error".to_owned()))
        .collect();
    expected.extend((0..4).map(|i| (format!("http://SERVER/app/{i}"), "ok".to_owned())));
    assert_eq!(verdicts(&run, &server), expected);
    let count = |method: &str, dir: &str| {
        server
            .seen()
            .iter()
            .filter(|s| s.method == method && s.path.starts_with(dir))
            .count()
    };
    assert_eq!(count("HEAD", "/static/"), 6);
    assert_eq!(count("GET", "/static/"), 1);
    // Every /app/ URL is asked with GET, most without a HEAD first (how many HEADs were sent
    // before the first GET answered depends on timing).
    assert_eq!(count("GET", "/app/"), 4);
    // One request at a time, the order is known: once GET contradicted HEAD in /app/, the
    // rest of /app/ is asked with GET alone.
    let server = Server::start(head_lies_in_app);
    let links: Vec<String> = (0..3).map(|i| server.url(&format!("/app/{i}"))).collect();
    let dir = site(&links);
    let run = check(dir.path(), &["--online", "--max-concurrency", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        server.log(),
        ["HEAD /app/0", "GET /app/0", "GET /app/1", "GET /app/2"]
    );
}

#[test]
fn redirects_past_the_limit_are_unreachable_and_the_last_is_not_requested() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/r1")]);
    let run = check(dir.path(), &["--online", "--max-redirects", "2"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        report(&run, &server).lines().next().unwrap(),
        "unreachable http://SERVER/r1  (1 link on 1 page): more than 2 redirects after 301 http://SERVER/r2 -> 302 http://SERVER/r3 -> 307 http://SERVER/ok"
    );
    assert_eq!(server.log(), ["HEAD /r1", "HEAD /r2", "HEAD /r3"]);
    // Three are allowed with 3.
    let run = check(dir.path(), &["--online", "--max-redirects", "3"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn retries_wait_for_retry_after_and_give_up_in_the_end() {
    let server = Server::start(routes);
    let dir = site(&[
        server.url("/busy"),
        server.url("/flaky"),
        server.url("/down"),
    ]);
    let run = check(
        dir.path(),
        &["--online", "--retry-wait", "10ms", "--max-retries", "2"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        report(&run, &server),
        "http-error http://SERVER/down  (1 link on 1 page): 503 Service Unavailable
    index.html:3:10: <a href> \"http://SERVER/down\"
1 page, 3 links: 0 internal, 1 broken (0 outside the site root, 1 external) to 1 target; 3 external (3 checked online, 0 from the cache); 0 unresolvable; 0 excluded; 0 not checked
"
    );
    let mut log = server.log();
    log.sort();
    // 429 (Retry-After: 1) then 200; 500 then 200; 503 three times (two retries), then GET
    // would not help: a 5xx is no refused HEAD.
    assert_eq!(
        log,
        [
            "HEAD /busy",
            "HEAD /busy",
            "HEAD /down",
            "HEAD /down",
            "HEAD /down",
            "HEAD /flaky",
            "HEAD /flaky"
        ]
    );
}

#[test]
fn a_refused_connection_is_unreachable() {
    let refused = format!("http://127.0.0.1:{}/x", closed_port());
    let dir = site(std::slice::from_ref(&refused));
    let run = check(dir.path(), &["--online"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        format!(
            "unreachable {refused}  (1 link on 1 page): connection refused
    index.html:1:10: <a href> \"{refused}\"
1 page, 1 link: 0 internal, 1 broken (0 outside the site root, 1 external) to 1 target; 1 external (1 checked online, 0 from the cache); 0 unresolvable; 0 excluded; 0 not checked
"
        )
    );
}

#[test]
fn a_slow_answer_times_out_after_its_retries() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/slow")]);
    let run = check(
        dir.path(),
        &[
            "--online",
            "--timeout",
            "200ms",
            "--max-retries",
            "1",
            "--retry-wait",
            "10ms",
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        report(&run, &server),
        "unreachable http://SERVER/slow  (1 link on 1 page): timed out after 200 ms (2 attempts)
    index.html:1:10: <a href> \"http://SERVER/slow\"
1 page, 1 link: 0 internal, 1 broken (0 outside the site root, 1 external) to 1 target; 1 external (1 checked online, 0 from the cache); 0 unresolvable; 0 excluded; 0 not checked
"
    );
    assert_eq!(server.log(), ["HEAD /slow", "HEAD /slow"]);
}

#[test]
fn a_rerun_asks_the_cache_and_makes_no_request() {
    let server = Server::start(routes);
    let dir = site(&[
        server.url("/ok"),
        server.url("/gone"),
        server.url("/page#intro"),
        server.url("/down"),
    ]);
    let args = [
        "--online",
        "--cache",
        "--retry-wait",
        "1ms",
        "--max-retries",
        "0",
    ];
    let first = check(dir.path(), &args);
    assert_eq!(first.code, 1);
    let requests = server.log().len();
    assert_eq!(requests, 5, "{:?}", server.log());
    let second = check(dir.path(), &args);
    assert_eq!(
        server.log().len(),
        requests + 1,
        "only the 503 is asked again"
    );
    assert_eq!(server.log().last().unwrap(), "HEAD /down");
    assert_eq!(
        report(&second, &server),
        "http-error http://SERVER/down  (1 link on 1 page): 503 Service Unavailable
    index.html:4:10: <a href> \"http://SERVER/down\"
http-error http://SERVER/gone  (1 link on 1 page): 404 Not Found (cached)
    index.html:2:10: <a href> \"http://SERVER/gone\"
1 page, 4 links: 0 internal, 2 broken (0 outside the site root, 2 external) to 2 targets; 4 external (4 checked online, 3 from the cache); 0 unresolvable; 0 excluded; 0 not checked
"
    );
    // The cache keeps statuses, not verdicts: --accept applies to cached answers too.
    let third = check(
        dir.path(),
        &[&args[..], &["--accept", "200..=299,404,503"]].concat(),
    );
    assert_eq!(third.code, 0, "{}", third.stdout);
    // The file: plain sorted JSON, without the 503.
    let cache: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".linkbase-cache.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(cache["version"], 1);
    let keys: Vec<&str> = cache["entries"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            server.url("/gone"),
            server.url("/ok"),
            server.url("/page#intro")
        ]
    );
    assert_eq!(
        cache["entries"][server.url("/page#intro")]["fragment"],
        "found"
    );
}

#[test]
fn an_old_cache_entry_is_checked_again_and_dropped() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/ok")]);
    let cache = dir.path().join("my-cache.json");
    let cache_arg = format!("--cache={}", s(&cache));
    check(dir.path(), &["--online", &cache_arg]);
    assert_eq!(server.log(), ["HEAD /ok"]);
    // Checked two days ago.
    let mut json: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    let checked = json["entries"][server.url("/ok")]["checked"]
        .as_u64()
        .unwrap();
    json["entries"][server.url("/ok")]["checked"] = (checked - 2 * 86_400).into();
    std::fs::write(&cache, json.to_string()).unwrap();
    let run = check(
        dir.path(),
        &["--online", &cache_arg, "--max-cache-age", "3d"],
    );
    assert_eq!(run.code, 0);
    assert_eq!(server.log().len(), 1, "within --max-cache-age");
    let run = check(
        dir.path(),
        &["--online", &cache_arg, "--max-cache-age", "1d"],
    );
    assert_eq!(server.log().len(), 2, "older than --max-cache-age");
    assert!(summary(&run).contains("(1 checked online, 0 from the cache)"));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    assert!(
        json["entries"][server.url("/ok")]["checked"]
            .as_u64()
            .unwrap()
            >= checked
    );
    // A cache that is not ours is said, and replaced.
    std::fs::write(&cache, "not json").unwrap();
    let run = check(dir.path(), &["--online", &cache_arg]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.starts_with(&format!(
            "linkbase: {}: not used as a cache (it will be replaced): ",
            s(&cache)
        )),
        "{}",
        run.stderr
    );
    assert_eq!(server.log().len(), 3);
}

#[test]
fn the_tree_cache_never_writes_through_a_symbolic_link() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/ok")]);
    let outside = tmp();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join(".linkbase-cache.json")).unwrap();
    let run = check(dir.path(), &["--online", "--cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let meta = std::fs::symlink_metadata(dir.path().join(".linkbase-cache.json")).unwrap();
    assert!(meta.file_type().is_file());
}

#[test]
fn excluded_links_are_never_requested_and_remaps_are_requested_instead() {
    let server = Server::start(routes);
    let dir = site(&[
        server.url("/ok"),
        server.url("/private/a"),
        server.url("/ignored"),
        "https://old.example/ok".into(),
    ]);
    std::fs::write(dir.path().join(".linkbaseignore"), "# ours\n/ignored$\n").unwrap();
    let remap = format!("https://old.example/ {}", server.url("/"));
    let run = check(
        dir.path(),
        &["--online", "--exclude", "/private/", "--remap", &remap],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        server.log(),
        ["HEAD /ok"],
        "one request: the remapped link is the same URL"
    );
    assert_eq!(
        summary(&run),
        "1 page, 4 links: 0 internal, 0 broken (0 outside the site root, 0 external) to 0 targets; 2 external (2 checked online, 0 from the cache); 0 unresolvable; 2 excluded; 0 not checked"
    );
}

#[test]
fn headers_go_to_their_host_only_and_the_user_agent_to_all() {
    let a = Server::start(routes);
    let b = Server::start(routes);
    let to_b = b.url("/ok");
    let c = Server::start(move |_, _| redirect(302, &to_b));
    let dir = site(&[a.url("/ok"), b.url("/gone"), c.url("/hop")]);
    let a_host = format!("127.0.0.1:{}", a.port);
    let c_host = format!("127.0.0.1:{}", c.port);
    let header_a = format!("{a_host}: X-Token: secret a");
    let header_c = format!("{c_host}: Authorization: Bearer c");
    let run = check(
        dir.path(),
        &[
            "--online",
            "--header",
            &header_a,
            "--header",
            &header_c,
            "--user-agent",
            "probe/1.0",
        ],
    );
    assert_eq!(run.code, 1);
    let a_seen = a.seen();
    assert_eq!(a_seen.len(), 1);
    assert_eq!(a_seen[0].headers["x-token"], "secret a");
    assert_eq!(a_seen[0].headers["user-agent"], "probe/1.0");
    for r in b.seen() {
        assert!(!r.headers.contains_key("x-token"), "{r:?}");
        assert!(
            !r.headers.contains_key("authorization"),
            "redirected: {r:?}"
        );
        assert_eq!(r.headers["user-agent"], "probe/1.0");
    }
    assert_eq!(c.seen()[0].headers["authorization"], "Bearer c");
    let run = check(dir.path(), &["--online", "--header", "X-Token: no host"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("expected 'HOST: NAME: VALUE'"),
        "{}",
        run.stderr
    );
}

#[test]
fn limits_per_host_and_over_all_hosts_hold() {
    let total = Arc::new(Gauge::default());
    let slow = |_: &Seen, _: usize| Reply {
        delay: Duration::from_millis(30),
        ..reply(200)
    };
    let a = Server::start_with(total.clone(), slow);
    let b = Server::start_with(total.clone(), slow);
    let c = Server::start_with(total.clone(), slow);
    let mut links = Vec::new();
    for n in 0..12 {
        links.push(a.url(&format!("/{n}")));
        links.push(b.url(&format!("/{n}")));
        links.push(c.url(&format!("/{n}")));
    }
    let dir = site(&links);
    let run = check(
        dir.path(),
        &[
            "--online",
            "--host-concurrency",
            "2",
            "--max-concurrency",
            "4",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for server in [&a, &b, &c] {
        assert_eq!(server.log().len(), 12);
        assert!(server.gauge.max() <= 2, "per host: {}", server.gauge.max());
    }
    assert!(total.max() <= 4, "over all hosts: {}", total.max());
    // One request at a time per host, spaced.
    let d = Server::start(slow);
    let links: Vec<String> = (0..6).map(|n| d.url(&format!("/{n}"))).collect();
    let dir = site(&links);
    let run = check(
        dir.path(),
        &[
            "--online",
            "--host-concurrency",
            "1",
            "--host-interval",
            "1ms",
        ],
    );
    assert_eq!(run.code, 0);
    assert_eq!(d.log().len(), 6);
    assert_eq!(d.gauge.max(), 1);
}

#[test]
fn proxy_variables_are_honoured() {
    // The proxy is a server of ours: it accepts CONNECT and answers the tunnelled request.
    let proxy = Server::start(routes);
    let dir = site(&[
        "http://far-away.invalid/ok".into(),
        "http://bücher.invalid/ok".into(),
    ]);
    let proxy_url = format!("http://127.0.0.1:{}", proxy.port);
    let run = check_env(
        dir.path(),
        &["--online", "--charset", "utf-8"],
        &[("HTTP_PROXY", &proxy_url)],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // A non-ASCII host is asked for in its IDNA form, as a browser does.
    let mut log = proxy.log();
    log.sort();
    assert_eq!(
        log,
        [
            "CONNECT far-away.invalid:80",
            "CONNECT xn--bcher-kva.invalid:80",
            "HEAD /ok",
            "HEAD /ok"
        ]
    );
    // NO_PROXY: asked directly.
    let direct = Server::start(routes);
    let dir = site(&[direct.url("/ok")]);
    let run = check_env(
        dir.path(),
        &["--online"],
        &[("HTTP_PROXY", &proxy_url), ("NO_PROXY", "127.0.0.1")],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(proxy.log().len(), 4);
    assert_eq!(direct.log(), ["HEAD /ok"]);
}

#[test]
fn without_online_nothing_is_requested() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/ok"), server.url("/gone")]);
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 0);
    assert_eq!(
        summary(&run),
        "1 page, 2 links: 0 internal, 0 broken (0 outside the site root) to 0 targets; 2 external (listed, not fetched); 0 unresolvable; 0 excluded; 2 not checked: 2 external (no --online)"
    );
    assert!(server.log().is_empty());
    assert!(!dir.path().join(".linkbase-cache.json").exists());
}

#[test]
fn online_reports_in_every_grouped_format() {
    let server = Server::start(routes);
    let dir = site(&[server.url("/gone")]);
    let run = check(dir.path(), &["--online", "--format", "json"]);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["broken"][0]["verdict"], "http-error");
    assert_eq!(json["broken"][0]["detail"], "404 Not Found");
    assert_eq!(json["summary"]["checked_online"], 1);
    assert_eq!(json["summary"]["broken_external"], 1);
    assert_eq!(json["summary"]["not_checked"], 0);
    let run = check(dir.path(), &["--online", "--format", "markdown"]);
    assert!(
        report(&run, &server)
            .contains("| http-error | `http://SERVER/gone` (404 Not Found) | 1 | 1 |"),
        "{}",
        run.stdout
    );
    let run = check(dir.path(), &["--online", "--format", "junit"]);
    assert!(
        report(&run, &server).contains(&format!(
            "<testcase classname=\"linkbase.check.http-error\" name=\"http://SERVER/gone\" \
             file=\"{}/index.html\" line=\"1\">\n      \
             <failure type=\"http-error\" message=\"1 link on 1 page: 404 Not Found\">\
             index.html:1:10: &lt;a href&gt; &quot;http://SERVER/gone&quot;</failure>",
            dir.path().display()
        )),
        "{}",
        run.stdout
    );
}

#[test]
fn an_untrusted_certificate_is_a_verdict_and_insecure_or_cacert_accept_it() {
    let (server, pem) = Server::start_tls(routes);
    let dir = site(&[
        server.url("/ok").replace("http:", "https:"),
        server.url("/gone").replace("http:", "https:"),
    ]);
    // Self-signed: not a root the client knows. A verdict for each link, no request made.
    let run = check(dir.path(), &["--online", "--max-retries", "0"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        report(&run, &server),
        "unreachable https://SERVER/gone  (1 link on 1 page): the server's certificate is not issued by a trusted authority (self-signed?); --insecure or --cacert FILE accepts it
    index.html:2:10: <a href> \"https://SERVER/gone\"
unreachable https://SERVER/ok  (1 link on 1 page): the server's certificate is not issued by a trusted authority (self-signed?); --insecure or --cacert FILE accepts it
    index.html:1:10: <a href> \"https://SERVER/ok\"
1 page, 2 links: 0 internal, 2 broken (0 outside the site root, 2 external) to 2 targets; 2 external (2 checked online, 0 from the cache); 0 unresolvable; 0 excluded; 0 not checked
"
    );
    assert!(server.seen().is_empty());
    // --insecure: the links are judged by their statuses.
    let run = check(dir.path(), &["--online", "--insecure", "--format", "jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let expected = [
        ("https://SERVER/ok".to_owned(), "ok".to_owned()),
        ("https://SERVER/gone".to_owned(), "http-error".to_owned()),
    ];
    assert_eq!(verdicts(&run, &server), expected);
    // --cacert with the server's certificate: the same, with verification.
    let ca = tmp();
    let ca_file = ca.path().join("ca.pem");
    std::fs::write(&ca_file, &pem).unwrap();
    let run = check(
        dir.path(),
        &["--online", "--cacert", s(&ca_file), "--format", "jsonl"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(verdicts(&run, &server), expected);
    // A file with no certificate is refused before any request.
    std::fs::write(&ca_file, "not a certificate\n").unwrap();
    let before = server.seen().len();
    let run = check(dir.path(), &["--online", "--cacert", s(&ca_file)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: --cacert {}: no PEM certificate in it\n",
            ca_file.display()
        )
    );
    assert_eq!(server.seen().len(), before);
    // The same from a settings file given with --config, its path relative to the file.
    std::fs::create_dir(ca.path().join("certs")).unwrap();
    std::fs::write(ca.path().join("certs/ca.pem"), &pem).unwrap();
    let settings = ca.path().join("ci.toml");
    std::fs::write(
        &settings,
        "[online]\nenabled = true\nallow_private = true\ncacert = \"certs/ca.pem\"\n",
    )
    .unwrap();
    let run = check(dir.path(), &["--format", "jsonl", "--config", s(&settings)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(verdicts(&run, &server), expected);
    // The checked tree's own linkbase.toml may not choose the CAs: whoever could write the
    // tree could then read the --header secrets sent over TLS.
    std::fs::write(
        dir.path().join("linkbase.toml"),
        "[online]\nenabled = true\ncacert = \"../ca.pem\"\n",
    )
    .unwrap();
    let run = check(dir.path(), &["--format", "jsonl"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: check: {}: cacert: not taken from the checked tree's own settings (give \
             the file with --config to trust it, or the flag on the command line)\n",
            dir.path().join("linkbase.toml").display()
        )
    );
}

#[test]
fn an_ipv6_loopback_server_is_checked_by_its_bracketed_address() {
    let listener = match TcpListener::bind("[::1]:0") {
        Ok(l) => l,
        Err(e) => {
            eprintln!("skipped: this machine has no IPv6 loopback ([::1]): {e}");
            return;
        }
    };
    let server = Server::start_on(listener, Arc::new(Gauge::default()), None, routes);
    let base = format!("http://[::1]:{}", server.port);
    let dir = site(&[
        format!("{base}/ok"),
        format!("{base}/gone"),
        format!("{base}/r1"),
        format!("{base}/page#intro"),
        format!("{base}/page#nowhere"),
    ]);
    let header = format!("[::1]:{}: X-Token: t", server.port);
    let run = check(dir.path(), &["--online", "--header", &header]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout.replace(&format!("[::1]:{}", server.port), "[::1]:PORT"),
        "missing-fragment http://[::1]:PORT/page#nowhere  (1 link on 1 page): 200 OK, no such id in the page
    index.html:5:10: <a href> \"http://[::1]:PORT/page#nowhere\"
http-error http://[::1]:PORT/gone  (1 link on 1 page): 404 Not Found
    index.html:2:10: <a href> \"http://[::1]:PORT/gone\"
1 page, 5 links: 0 internal, 2 broken (0 outside the site root, 2 external) to 2 targets; 5 external (5 checked online, 0 from the cache); 0 unresolvable; 0 excluded; 0 not checked
"
    );
    // The header scoped to [::1]:PORT went with every request, redirects included.
    let seen = server.seen();
    assert!(!seen.is_empty());
    assert!(seen
        .iter()
        .all(|r| r.headers.get("x-token").map(String::as_str) == Some("t")));
}
