//! The requests: a scheduler over hosts (global and per-host limits, intervals), the fetcher
//! (HEAD, GET, redirects, retries), and remote pages read for their fragment ids.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::io::Read;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use linkbase::site::FragmentIds;

use super::*;

/// The most of an unwanted body read so that its connection can be used again.
const DRAIN: u64 = 16 << 10;

/// One page to request: its URL (no fragment), its host, the fragments links ask of it.
pub(super) struct Job {
    pub(super) url: String,
    pub(super) host: String,
    /// Some link names the URL without a fragment.
    pub(super) bare: bool,
    pub(super) fragments: BTreeSet<String>,
    /// The answer to its HEAD, set aside while another request learns whether HEAD can be
    /// trusted in its directory (see [`HeadTrust`]).
    pub(super) head: Option<Answer>,
}

/// Whether a HEAD answer stands for a GET's, per host and directory. RFC 9110 §9.3.2 says a
/// server answers HEAD as it would GET, but some do not: 405 or 501 (HEAD not implemented), a
/// 403 from bot filters, a 404 from routes that know only GET. So a HEAD answered 405, 501 or
/// 4xx (but 429) is asked again with GET — except a 404 or 410 where an earlier GET in the same
/// directory of the same host confirmed a HEAD 404/410: a missing page is the common answer of
/// a broken link, and checking every one twice doubles the cost of the broken ones (lychee
/// asks only GET; linkinator asks GET again after any non-2xx HEAD). A directory where GET
/// contradicted HEAD is asked with GET alone from then on.
#[derive(Default)]
pub(super) struct HeadTrust {
    by_dir: Mutex<HashMap<String, Trust>>,
    /// Told when a directory is no longer `Checking`.
    learnt: Condvar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trust {
    /// A GET is confirming a HEAD 404/410 in this directory.
    Checking,
    /// A GET confirmed a HEAD 404/410 here.
    Trusted,
    /// A GET contradicted a HEAD here.
    Distrusted,
}

/// What to do with a HEAD 404/410.
#[derive(Debug, PartialEq, Eq)]
enum Claim {
    /// Keep it: HEAD's 404s are confirmed here.
    Keep,
    /// Ask GET (this request is the one that learns).
    Verify,
    /// Another request is learning: set the answer aside for now.
    Wait,
}

impl HeadTrust {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Trust>> {
        self.by_dir
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Host and directory of `url`: `h:8080/docs/` for `http://h:8080/docs/a.html?q`.
    fn key(url: &str) -> String {
        let path = linkbase::UriRef::parse(url).path;
        let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
        format!("{}{dir}", authority(url).unwrap_or_default())
    }

    fn distrusted(&self, url: &str) -> bool {
        self.lock().get(&Self::key(url)) == Some(&Trust::Distrusted)
    }

    fn claim(&self, url: &str) -> Claim {
        let mut map = self.lock();
        match map.entry(Self::key(url)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(Trust::Checking);
                Claim::Verify
            }
            std::collections::hash_map::Entry::Occupied(o) => match o.get() {
                Trust::Trusted => Claim::Keep,
                Trust::Checking => Claim::Wait,
                Trust::Distrusted => Claim::Verify,
            },
        }
    }

    /// As [`HeadTrust::claim`], but waiting for the request that is learning (for an answer
    /// already set aside once: it is not given back twice).
    fn settle(&self, url: &str) -> Claim {
        let key = Self::key(url);
        let mut map = self.lock();
        while map.get(&key) == Some(&Trust::Checking) {
            map = self
                .learnt
                .wait(map)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        drop(map);
        self.claim(url)
    }

    /// What a GET after a refused HEAD taught: the same status confirms a 404/410; another
    /// status contradicts HEAD; no answer teaches nothing (another request may learn). Only
    /// the request that claimed a directory ends its `Checking`.
    fn learn(&self, url: &str, head: &Answer, get: &Answer) {
        let mut map = self.lock();
        let key = Self::key(url);
        let now = map.get(&key).copied();
        match (head.status, get.status) {
            (Some(h), Some(g)) if h != g => {
                map.insert(key, Trust::Distrusted);
            }
            (Some(404 | 410), Some(_)) if now != Some(Trust::Distrusted) => {
                map.insert(key, Trust::Trusted);
            }
            // The learning request got no answer: the next 404 learns instead.
            (Some(404 | 410), _) if now == Some(Trust::Checking) => {
                map.remove(&key);
            }
            _ => {}
        }
        drop(map);
        self.learnt.notify_all();
    }
}

/// Per host: requests in flight and the earliest start of the next one.
#[derive(Default)]
pub(super) struct HostState {
    pub(super) in_flight: usize,
    pub(super) next_start: Option<Instant>,
}

/// The jobs not started, per host, and every host's state.
pub(super) struct Scheduler {
    pub(super) state: Mutex<SchedState>,
    pub(super) wake: Condvar,
    pub(super) host_limit: usize,
    pub(super) interval: Duration,
}

pub(super) struct SchedState {
    pub(super) queues: BTreeMap<String, VecDeque<Job>>,
    pub(super) hosts: HashMap<String, HostState>,
}

impl Scheduler {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, SchedState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next job whose host can take a request now, with that request's slot taken (so a
    /// worker never waits on a busy host while another host has work); `None` when all are
    /// handed out.
    pub(super) fn next_job(&self) -> Option<Job> {
        let mut st = self.lock();
        loop {
            if st.queues.is_empty() {
                return None;
            }
            let now = Instant::now();
            let mut wake_at: Option<Instant> = None;
            // Of the hosts that can take a request now, the one with the fewest in flight, then
            // the most left to do: every host advances together, so the run does not end on a
            // few hosts held to their limit while the other threads have nothing to do.
            let mut chosen: Option<(&String, (usize, std::cmp::Reverse<usize>))> = None;
            for (host, queue) in &st.queues {
                let h = st.hosts.get(host);
                let in_flight = h.map_or(0, |h| h.in_flight);
                let next = h.and_then(|h| h.next_start);
                if in_flight >= self.host_limit {
                    continue;
                }
                match next {
                    Some(t) if t > now => wake_at = Some(wake_at.map_or(t, |w| w.min(t))),
                    _ => {
                        let rank = (in_flight, std::cmp::Reverse(queue.len()));
                        if chosen.as_ref().is_none_or(|(_, best)| rank < *best) {
                            chosen = Some((host, rank));
                        }
                    }
                }
            }
            let chosen = chosen.map(|(host, _)| host.clone());
            if let Some(host) = chosen {
                let job = st.queues.get_mut(&host).and_then(VecDeque::pop_front);
                if st.queues.get(&host).is_some_and(VecDeque::is_empty) {
                    st.queues.remove(&host);
                }
                let h = st.hosts.entry(host).or_default();
                h.in_flight += 1;
                h.next_start = Some(now + self.interval);
                if job.is_some() {
                    return job;
                }
                continue;
            }
            st = match wake_at {
                Some(t) => {
                    self.wake
                        .wait_timeout(st, t.saturating_duration_since(now))
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0
                }
                None => self
                    .wake
                    .wait(st)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            };
        }
    }

    /// Takes a request slot of `host` (waiting for one, and for the host's interval).
    pub(super) fn acquire(&self, host: &str) {
        let mut st = self.lock();
        loop {
            let h = st.hosts.entry(host.to_owned()).or_default();
            if h.in_flight < self.host_limit {
                let now = Instant::now();
                let start = h.next_start.map_or(now, |t| t.max(now));
                h.next_start = Some(start + self.interval);
                h.in_flight += 1;
                drop(st);
                std::thread::sleep(start.saturating_duration_since(now));
                return;
            }
            st = self
                .wake
                .wait(st)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// A job handed out and given back: to the end of its host's queue.
    pub(super) fn requeue(&self, job: Job) {
        let mut st = self.lock();
        st.queues
            .entry(job.host.clone())
            .or_default()
            .push_back(job);
        drop(st);
        self.wake.notify_all();
    }

    pub(super) fn release(&self, host: &str) {
        let mut st = self.lock();
        if let Some(h) = st.hosts.get_mut(host) {
            h.in_flight = h.in_flight.saturating_sub(1);
        }
        drop(st);
        self.wake.notify_all();
    }
}

/// A counting semaphore: remote pages held at once.
pub(super) struct Bodies {
    pub(super) free: Mutex<usize>,
    pub(super) wake: Condvar,
}

/// A page held in memory: given back when dropped.
pub(super) struct Permit<'a>(&'a Bodies);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.0.give();
    }
}

impl Bodies {
    pub(super) fn take(&self) -> Permit<'_> {
        let mut free = self
            .free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while *free == 0 {
            free = self
                .wake
                .wait(free)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *free -= 1;
        Permit(self)
    }

    pub(super) fn give(&self) {
        *self
            .free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
        self.wake.notify_one();
    }
}

pub(super) type Fetched = (Job, Answer, Vec<(String, Option<Fragment>)>);

/// Every job on `max_concurrency` threads (fewer when there are fewer jobs).
pub(super) fn fetch_all(
    jobs: Vec<Job>,
    config: &Config,
    progress: &crate::walk::Progress,
) -> Vec<Fetched> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let threads = config.max_concurrency.min(jobs.len());
    let mut queues: BTreeMap<String, VecDeque<Job>> = BTreeMap::new();
    for job in jobs {
        queues.entry(job.host.clone()).or_default().push_back(job);
    }
    let sched = Scheduler {
        state: Mutex::new(SchedState {
            queues,
            hosts: HashMap::new(),
        }),
        wake: Condvar::new(),
        host_limit: config.host_concurrency,
        interval: config.host_interval,
    };
    let bodies = Bodies {
        free: Mutex::new(MAX_BODIES),
        wake: Condvar::new(),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(config.timeout))
        .user_agent(config.user_agent.as_str())
        .tls_config(config.tls.config())
        .max_idle_connections(config.max_concurrency)
        .max_idle_connections_per_host(config.host_concurrency)
        .build()
        .into();
    let trust = HeadTrust::default();
    let done: Mutex<Vec<Fetched>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let fetcher = Fetcher {
                    agent: &agent,
                    config,
                    sched: &sched,
                    bodies: &bodies,
                    trust: &trust,
                };
                while let Some(job) = sched.next_job() {
                    match fetcher.run(job) {
                        Ok(fetched) => {
                            progress.inc();
                            done.lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .push(fetched);
                        }
                        Err(job) => sched.requeue(*job),
                    }
                }
            });
        }
    });
    done.into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(super) struct Fetcher<'a> {
    pub(super) agent: &'a ureq::Agent,
    pub(super) config: &'a Config,
    pub(super) sched: &'a Scheduler,
    pub(super) bodies: &'a Bodies,
    pub(super) trust: &'a HeadTrust,
}

/// How a URL is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    Head,
    Get,
    /// GET, and the page read (for its ids) while the request holds its host's slot.
    GetPage,
}

/// A remote page read for its ids: its bytes and transport charset, or why it was not read;
/// it counts against [`MAX_BODIES`] until dropped.
pub(super) struct Page<'a> {
    pub(super) read: Result<(Vec<u8>, Option<String>), String>,
    pub(super) _permit: Option<Permit<'a>>,
}

/// What one request brought back.
pub(super) enum Reply<'a> {
    Status {
        status: u16,
        location: Option<String>,
        retry_after: Option<String>,
        page: Option<Page<'a>>,
    },
    Failed {
        error: String,
        timeout: bool,
    },
}

impl<'a> Fetcher<'a> {
    /// The job's URL checked: its answer, and each fragment's fate; or the job given back,
    /// its HEAD answer kept, to wait for what another request learns of its directory.
    pub(super) fn run(&self, mut job: Job) -> Result<Fetched, Box<Job>> {
        // A first slot of the job's host was taken when it was handed out.
        let mut held = true;
        let wants_body = job
            .fragments
            .iter()
            .any(|f| !FragmentIds::default().names(f) && !f.starts_with(":~:"));
        let (answer, page) = if wants_body {
            self.chain(Method::GetPage, &job.url, &mut held)
        } else if self.trust.distrusted(&job.url) {
            self.chain(Method::Get, &job.url, &mut held)
        } else {
            let set_aside = job.head.take();
            let waited = set_aside.is_some();
            let head = match set_aside {
                Some(head) => head,
                None => self.chain(Method::Head, &job.url, &mut held).0,
            };
            let refused = head.status.is_some_and(|s| {
                !self.config.accept.accepts(s)
                    && (s == 501 || ((400..500).contains(&s) && s != 429))
            });
            let claim = match head.status {
                _ if !refused => Claim::Keep,
                Some(404 | 410) if waited => {
                    // The learning request may need this host's slot.
                    if std::mem::take(&mut held) {
                        self.sched.release(&job.host);
                    }
                    self.trust.settle(&job.url)
                }
                Some(404 | 410) => self.trust.claim(&job.url),
                _ => Claim::Verify,
            };
            match claim {
                Claim::Keep => (head, None),
                Claim::Wait => {
                    if held {
                        self.sched.release(&job.host);
                    }
                    job.head = Some(head);
                    return Err(Box::new(job));
                }
                Claim::Verify => {
                    let get = self.chain(Method::Get, &job.url, &mut held);
                    self.trust.learn(&job.url, &head, &get.0);
                    get
                }
            }
        };
        if held {
            self.sched.release(&job.host);
        }
        let fragments = if !wants_body {
            job.fragments
                .iter()
                .map(|f| (f.clone(), answer.status.map(|_| Fragment::Found)))
                .collect()
        } else {
            match (answer.status, page) {
                (Some(s), Some(page)) if self.config.accept.accepts(s) => {
                    let ids = ids_of(&job.url, page);
                    job.fragments
                        .iter()
                        .map(|f| {
                            let found = match &ids {
                                Ok(ids) => {
                                    if ids.names(f) || f.starts_with(":~:") {
                                        Fragment::Found
                                    } else {
                                        Fragment::Missing
                                    }
                                }
                                Err(why) => Fragment::NotChecked(why.clone()),
                            };
                            (f.clone(), Some(found))
                        })
                        .collect()
                }
                _ => job.fragments.iter().map(|f| (f.clone(), None)).collect(),
            }
        };
        Ok((job, answer, fragments))
    }

    /// The page of `response`, read up to [`MAX_PAGE`] if it is HTML.
    pub(super) fn read_page(&self, mut response: ureq::http::Response<ureq::Body>) -> Page<'a> {
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !mime.is_empty() && mime != "text/html" && mime != "application/xhtml+xml" {
            return Page {
                read: Err(format!("not checked: {mime}, not HTML")),
                _permit: None,
            };
        }
        let charset = content_type.split(';').skip(1).find_map(|p| {
            let (k, v) = p.split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| v.trim().trim_matches('"').to_owned())
        });
        let permit = self.bodies.take();
        let mut bytes = Vec::new();
        let read = response
            .body_mut()
            .as_reader()
            .take(MAX_PAGE + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("not checked: the page could not be read: {e}"))
            .and_then(|_| {
                if bytes.len() as u64 > MAX_PAGE {
                    Err(format!(
                        "not checked: the page is larger than {} MiB",
                        MAX_PAGE >> 20
                    ))
                } else {
                    Ok(())
                }
            });
        Page {
            read: read.map(|()| (bytes, charset)),
            _permit: Some(permit),
        }
    }

    /// `url` requested with `method`, redirects followed: the answer, and the last page (with
    /// [`Method::GetPage`]).
    pub(super) fn chain(
        &self,
        method: Method,
        url: &str,
        held: &mut bool,
    ) -> (Answer, Option<Page<'a>>) {
        let mut answer = Answer::default();
        let mut current = url.to_owned();
        let mut seen = vec![url.to_owned()];
        loop {
            let reply = self.with_retries(method, &current, held);
            match reply {
                Reply::Failed { error, .. } => {
                    let bad = error.starts_with("not a URL");
                    answer.error = Some(error);
                    answer.bad_address = bad && answer.redirects.is_empty();
                    return (answer, None);
                }
                Reply::Status {
                    status,
                    location,
                    page,
                    ..
                } => {
                    let Some(location) = location.filter(|_| is_redirect(status)) else {
                        answer.status = Some(status);
                        return (answer, page);
                    };
                    let Ok(next) = linkbase::resolve(
                        &current,
                        location.trim(),
                        linkbase::ResolveOptions {
                            profile: linkbase::Profile::Whatwg,
                            ..linkbase::ResolveOptions::default()
                        },
                    ) else {
                        answer.error =
                            Some(format!("{status} to {location:?}, which is not a URL"));
                        return (answer, None);
                    };
                    // The fragment of a redirect target is not requested.
                    let next = next.uri.split('#').next().unwrap_or("").to_owned();
                    answer.redirects.push(Hop {
                        status,
                        to: next.clone(),
                    });
                    if seen.contains(&next) {
                        answer.error = Some("redirect loop".to_owned());
                        return (answer, None);
                    }
                    if answer.redirects.len() > self.config.max_redirects as usize {
                        answer.error =
                            Some(format!("more than {} redirects", self.config.max_redirects));
                        return (answer, None);
                    }
                    if !matches!(scheme(&next).as_deref(), Some("http" | "https")) {
                        answer.error = Some(format!("redirected to {next}, not http(s)"));
                        return (answer, None);
                    }
                    seen.push(next.clone());
                    current = next;
                }
            }
        }
    }

    /// One request, retried on 429, 500, 502, 503, 504 (unless accepted) and timeouts.
    pub(super) fn with_retries(&self, method: Method, url: &str, held: &mut bool) -> Reply<'a> {
        let mut attempt = 0;
        loop {
            let reply = self.once(method, url, held);
            attempt += 1;
            let (retry, retry_after) = match &reply {
                Reply::Status {
                    status,
                    retry_after,
                    ..
                } => (
                    matches!(status, 429 | 500 | 502 | 503 | 504)
                        && !self.config.accept.accepts(*status),
                    retry_after.clone(),
                ),
                Reply::Failed { timeout, .. } => (*timeout, None),
            };
            if !retry || attempt > self.config.max_retries {
                return said_attempts(reply, attempt);
            }
            let wait = match retry_after.as_deref().map(retry_after_wait) {
                // Not worth waiting for: the status stands.
                Some(Some(w)) if w > MAX_RETRY_AFTER => return reply,
                Some(Some(w)) => w,
                _ => self
                    .config
                    .retry_wait
                    .saturating_mul(1 << (attempt - 1).min(16)),
            };
            std::thread::sleep(wait.min(MAX_RETRY_AFTER));
        }
    }

    /// One request (one slot of its host, taken and given back).
    pub(super) fn once(&self, method: Method, url: &str, held: &mut bool) -> Reply<'a> {
        let Some(host) = authority(url) else {
            return Reply::Failed {
                error: "not a URL a request can be made for (no host)".to_owned(),
                timeout: false,
            };
        };
        if !std::mem::take(held) {
            self.sched.acquire(&host);
        }
        let reply = self.send(method, url, &host);
        self.sched.release(&host);
        reply
    }

    pub(super) fn send(&self, method: Method, url: &str, host: &str) -> Reply<'a> {
        // As a browser sends it: a non-ASCII host in IDNA form, characters a request line
        // cannot carry percent-encoded.
        let sent = url::Url::parse(url).map(|mut u| {
            u.set_fragment(None);
            String::from(u)
        });
        let uri = match sent
            .as_deref()
            .map_err(ToString::to_string)
            .and_then(|u| u.parse::<ureq::http::Uri>().map_err(|e| e.to_string()))
        {
            Ok(u) => u,
            Err(e) => {
                return Reply::Failed {
                    error: format!("not a URL a request can be made for: {e}"),
                    timeout: false,
                }
            }
        };
        let mut request = if method == Method::Head {
            self.agent.head(uri)
        } else {
            self.agent.get(uri)
        };
        for h in self.config.headers.iter().filter(|h| h.applies_to(host)) {
            request = request.header(h.name.as_str(), h.value.as_str());
        }
        match request.call() {
            Ok(mut response) => {
                let header = |name: &str| {
                    response
                        .headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                };
                let status = response.status().as_u16();
                let (location, retry_after) = (header("location"), header("retry-after"));
                let wanted = method == Method::GetPage
                    && self.config.accept.accepts(status)
                    && !is_redirect(status);
                if !wanted {
                    // A short body read to its end lets the connection serve the host's next
                    // request; a longer one is dropped with its connection.
                    let _ = std::io::copy(
                        &mut response.body_mut().as_reader().take(DRAIN),
                        &mut std::io::sink(),
                    );
                }
                Reply::Status {
                    status,
                    location,
                    retry_after,
                    page: wanted.then(|| self.read_page(response)),
                }
            }
            Err(e) => {
                let timeout = matches!(e, ureq::Error::Timeout(_))
                    || matches!(&e, ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut);
                let error = if timeout {
                    format!("timed out after {}", say_duration(self.config.timeout))
                } else {
                    failure_text(&e)
                };
                Reply::Failed { error, timeout }
            }
        }
    }
}

/// A failure says how many attempts it took.
pub(super) fn said_attempts(reply: Reply<'_>, attempts: u32) -> Reply<'_> {
    match reply {
        Reply::Failed { error, timeout } if attempts > 1 => Reply::Failed {
            error: format!("{error} ({attempts} attempts)"),
            timeout,
        },
        r => r,
    }
}

pub(super) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// The ids of a page read by [`Fetcher::read_page`], found by the library's extraction (the
/// streaming engine, with the DOM engine's fallback), as for the pages of the tree.
pub(super) fn ids_of(url: &str, page: Page<'_>) -> Result<FragmentIds, String> {
    let (bytes, charset) = page.read?;
    let input = linkbase::pipeline::HtmlInput {
        name: url,
        bytes: &bytes,
        charset,
        ..linkbase::pipeline::HtmlInput::default()
    };
    let ids = linkbase::pipeline::fragment_ids(&input, &linkbase::pipeline::Options::default())
        .map_err(|e| format!("not checked: {e}"))?;
    Ok(FragmentIds::new(ids.iter().map(String::as_str)))
}

/// An error in words, without OS error numbers.
pub(super) fn failure_text(e: &ureq::Error) -> String {
    use std::io::ErrorKind as K;
    let tls = match e {
        ureq::Error::Rustls(t) => Some(t),
        ureq::Error::Io(io) => io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()),
        _ => None,
    };
    if let Some(t) = tls {
        return tls_text(t);
    }
    match e {
        ureq::Error::Io(io) => match io.kind() {
            K::ConnectionRefused => "connection refused".to_owned(),
            K::ConnectionReset => "connection reset".to_owned(),
            K::ConnectionAborted => "connection aborted".to_owned(),
            K::UnexpectedEof => "connection closed before an answer".to_owned(),
            _ => io.to_string(),
        },
        ureq::Error::HostNotFound => "host not found".to_owned(),
        ureq::Error::ConnectionFailed => "connection failed".to_owned(),
        ureq::Error::BadUri(u) => format!("not a URL a request can be made for: {u}"),
        e => e.to_string(),
    }
}

/// A TLS failure in words; a certificate refused says how to accept it.
fn tls_text(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    let rustls::Error::InvalidCertificate(c) = e else {
        return format!("TLS: {e}");
    };
    let why = match c {
        C::UnknownIssuer => "not issued by a trusted authority (self-signed?)".to_owned(),
        C::Expired | C::ExpiredContext { .. } => "expired".to_owned(),
        C::NotValidYet | C::NotValidYetContext { .. } => "not valid yet".to_owned(),
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            "not valid for this host name".to_owned()
        }
        C::Revoked => "revoked".to_owned(),
        c => format!("refused ({c:?})"),
    };
    format!("the server's certificate is {why}; --insecure or --cacert FILE accepts it")
}

pub(super) fn say_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
pub(super) fn retry_after_wait(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = http_date(value)?;
    Some(Duration::from_secs(at.saturating_sub(unix_now())))
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as seconds since 1970.
pub(super) fn http_date(text: &str) -> Option<u64> {
    let mut parts = text.split_whitespace();
    let _weekday = parts.next()?;
    let day: u64 = parts.next()?.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| Some(*m) == parts.clone().next())? as u64
        + 1;
    parts.next();
    let year: u64 = parts.next()?.parse().ok()?;
    let mut hms = parts.next()?.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if parts.next()? != "GMT" || year < 1970 {
        return None;
    }
    // Days from the civil date (H. Hinnant's algorithm).
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

pub(super) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn job(host: &str, n: usize) -> Job {
        Job {
            url: format!("http://{host}/{n}"),
            host: host.to_owned(),
            bare: true,
            fragments: BTreeSet::new(),
            head: None,
        }
    }

    /// Jobs are handed out to the host with the fewest requests in flight, then the most left:
    /// hosts advance together rather than one after the other.
    #[test]
    fn hosts_are_served_in_turn() {
        let mut queues: BTreeMap<String, VecDeque<Job>> = BTreeMap::new();
        for (host, n) in [("a", 3), ("b", 5), ("c", 1)] {
            queues.insert(host.to_owned(), (0..n).map(|i| job(host, i)).collect());
        }
        let sched = Scheduler {
            state: Mutex::new(SchedState {
                queues,
                hosts: HashMap::new(),
            }),
            wake: Condvar::new(),
            host_limit: 2,
            interval: Duration::ZERO,
        };
        // b (most left), a, then c (none in flight), b again (more left than a), a.
        let first: Vec<String> = (0..5).map(|_| sched.next_job().unwrap().url).collect();
        assert_eq!(
            first,
            [
                "http://b/0",
                "http://a/0",
                "http://c/0",
                "http://b/1",
                "http://a/1"
            ]
        );
        // a and b at their limit: each finished request lets its host go on.
        let mut rest = Vec::new();
        for host in ["b", "a", "b", "b"] {
            sched.release(host);
            rest.push(sched.next_job().unwrap().url);
        }
        assert_eq!(
            rest,
            ["http://b/2", "http://a/2", "http://b/3", "http://b/4"]
        );
        assert!(sched.next_job().is_none());
    }
}
