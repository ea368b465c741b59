//! The requests: the fetcher (HEAD, GET, redirects, retries, the run's time limit) on a pool
//! of threads, and remote pages read for their fragment ids.

use std::io::Read;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::check::settings::Progress;
use crate::site::FragmentIds;

use super::address;
use super::answer::*;
use super::config::*;
use super::schedule::*;
use super::target::Target;

/// The most of an unwanted body read so that its connection can be used again.
pub(super) const DRAIN: u64 = 16 << 10;

/// A page to read for its ids: its body, its transport charset, and where the answer goes.
pub(super) type IdsTask = (
    ureq::BodyReader<'static>,
    Option<String>,
    std::sync::mpsc::SyncSender<Result<FragmentIds, String>>,
);

/// The threads that read remote pages for their ids, [`MAX_BODIES`] of them: what a page with
/// a million ids needs is then needed at most that many times at once, and the allocator
/// reuses it for the next page on the same thread (freed memory stays with the thread that
/// freed it: spread over every worker, a run of such pages would keep one page's worth per
/// worker).
pub(super) struct IdReaders {
    /// The readers' queue; closed (`None`) when the workers are done, and the readers end.
    tasks: Mutex<Option<std::sync::mpsc::Sender<IdsTask>>>,
}

impl IdReaders {
    /// Reads `body` for its ids on one of the readers, waiting for a free one.
    fn read(
        &self,
        body: ureq::BodyReader<'static>,
        charset: Option<String>,
    ) -> Result<FragmentIds, String> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let sent = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_some_and(|tasks| tasks.send((body, charset, tx)).is_ok());
        if !sent {
            return Err("not checked: no reader for the page".to_owned());
        }
        rx.recv()
            .unwrap_or_else(|_| Err("not checked: the page's reader failed".to_owned()))
    }
}

/// A reader's loop: each page of the queue read for its ids.
pub(super) fn read_ids_from(tasks: &Mutex<std::sync::mpsc::Receiver<IdsTask>>) {
    loop {
        let task = tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv();
        let Ok((mut body, charset, answer)) = task else {
            return;
        };
        let ids = crate::site::read_page_ids(&mut body, charset.as_deref(), MAX_PAGE)
            .map_err(|e| format!("not checked: {e}"));
        let _ = answer.send(ids);
    }
}

pub(super) type Fetched = (Job, Answer, Vec<(String, Option<Fragment>)>);

/// Every job on `max_concurrency` threads (fewer when there are fewer jobs).
pub(super) fn fetch_all(
    jobs: Vec<Job>,
    config: &Config,
    excluded: &(dyn Fn(&str) -> bool + Sync),
    progress: &dyn Progress,
) -> Vec<Fetched> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let threads = config.max_concurrency.min(jobs.len());
    let sched = Scheduler::new(jobs, config);
    let (tasks, queue) = std::sync::mpsc::channel::<IdsTask>();
    let queue = Mutex::new(queue);
    let readers = IdReaders {
        tasks: Mutex::new(Some(tasks)),
    };
    let agent_config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(config.timeout))
        .user_agent(config.user_agent.as_str())
        .tls_config(config.tls.config())
        .max_idle_connections(config.max_concurrency)
        .max_idle_connections_per_host(config.host_concurrency)
        .build();
    let agent = ureq::Agent::with_parts(
        agent_config,
        ureq::unversioned::transport::DefaultConnector::default(),
        address::Guard::new(config.allow_private),
    );
    let trust = HeadTrust::default();
    let done: Mutex<Vec<Fetched>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..MAX_BODIES {
            s.spawn(|| read_ids_from(&queue));
        }
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let fetcher = Fetcher {
                        agent: &agent,
                        config,
                        sched: &sched,
                        readers: &readers,
                        trust: &trust,
                        excluded,
                    };
                    while let Some((job, held)) = sched.next_job() {
                        match fetcher.run(job, held) {
                            Ok(fetched) => {
                                progress.inc();
                                done.lock()
                                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                                    .push(fetched);
                            }
                            Err(job) => sched.requeue(*job),
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            let _ = w.join();
        }
        // The workers are done: the readers' queue closes, and they end.
        readers
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
    });
    let mut done = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    done.sort_by(|a, b| a.0.target.request().cmp(b.0.target.request()));
    done
}

pub(super) struct Fetcher<'a> {
    pub(super) agent: &'a ureq::Agent,
    pub(super) config: &'a Config,
    pub(super) sched: &'a Scheduler,
    readers: &'a IdReaders,
    pub(super) trust: &'a HeadTrust,
    pub(super) excluded: &'a (dyn Fn(&str) -> bool + Sync),
}

/// How a URL is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    Head,
    Get,
    /// GET, and the page read (for its ids) while the request holds its host's slot.
    GetPage,
}

/// What one request brought back.
pub(super) enum Reply {
    Status {
        status: u16,
        location: Option<String>,
        retry_after: Option<String>,
        /// With [`Method::GetPage`]: the page's ids, or why they were not read.
        ids: Option<Result<FragmentIds, String>>,
    },
    Failed {
        error: String,
        timeout: bool,
    },
    /// The address is not one requests go to.
    Refused(address::Refused),
    /// `--max-time` passed before or during the request.
    OutOfTime,
}

/// What one request of a chain is sent with.
#[derive(Clone, Copy)]
pub(super) struct Ask {
    method: Method,
    /// `--header`s may go with it.
    headers: bool,
}

impl Fetcher<'_> {
    /// The job's URL checked: its answer, and each fragment's fate; or the job given back,
    /// its HEAD answer kept, to wait for what another request learns of its directory.
    /// `held`: a slot of the job's host was taken when it was handed out.
    pub(super) fn run(&self, mut job: Job, held: bool) -> Result<Fetched, Box<Job>> {
        let mut held = held;
        let key = job.target.host_key().to_owned();
        if self.config.out_of_time() {
            if held {
                self.sched.release(&key);
            }
            let answer = Answer {
                not_checked: Some(self.config.out_of_time_reason()),
                ..Answer::default()
            };
            let fragments = job.fragments.iter().map(|f| (f.clone(), None)).collect();
            return Ok((job, answer, fragments));
        }
        let headers = job.headers_allowed();
        let ask = |method| Ask { method, headers };
        let wants_body = job
            .fragments
            .iter()
            .any(|f| !FragmentIds::default().names(f) && !f.starts_with(":~:"));
        let (answer, ids) = if wants_body {
            self.chain(ask(Method::GetPage), &job.target, &mut held)
        } else if self.trust.distrusted(&job.target) {
            self.chain(ask(Method::Get), &job.target, &mut held)
        } else {
            let set_aside = job.head.take();
            let waited = set_aside.is_some();
            let head = match set_aside {
                Some(head) => head,
                None => self.chain(ask(Method::Head), &job.target, &mut held).0,
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
                        self.sched.release(&key);
                    }
                    self.trust.settle(&job.target)
                }
                Some(404 | 410) => self.trust.claim(&job.target),
                _ => Claim::Verify,
            };
            match claim {
                Claim::Keep => (head, None),
                Claim::Wait => {
                    if held {
                        self.sched.release(&key);
                    }
                    job.head = Some(head);
                    return Err(Box::new(job));
                }
                Claim::Verify => {
                    let get = self.chain(ask(Method::Get), &job.target, &mut held);
                    self.trust.learn(&job.target, &head, &get.0);
                    get
                }
            }
        };
        if held {
            self.sched.release(&key);
        }
        let settled = answer.status.is_some();
        let fragments = match (wants_body, answer.status, ids) {
            (false, ..) => job
                .fragments
                .iter()
                .map(|f| (f.clone(), settled.then_some(Fragment::Found)))
                .collect(),
            (true, Some(s), Some(ids)) if self.config.accept.accepts(s) => job
                .fragments
                .iter()
                .map(|f| {
                    let found = match &ids {
                        Ok(ids) if ids.names(f) || f.starts_with(":~:") => Fragment::Found,
                        Ok(_) => Fragment::Missing,
                        Err(why) => Fragment::NotChecked(why.clone()),
                    };
                    (f.clone(), Some(found))
                })
                .collect(),
            _ => job.fragments.iter().map(|f| (f.clone(), None)).collect(),
        };
        Ok((job, answer, fragments))
    }

    /// The ids of the page `response` brings, read as it arrives if it is HTML (see
    /// [`crate::site::read_page_ids`]), at most [`MAX_PAGE`] of it.
    fn read_ids(&self, response: ureq::http::Response<ureq::Body>) -> Result<FragmentIds, String> {
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
            return Err(format!("not checked: {mime}, not HTML"));
        }
        let charset = content_type.split(';').skip(1).find_map(|p| {
            let (k, v) = p.split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| v.trim().trim_matches('"').to_owned())
        });
        self.readers
            .read(response.into_body().into_reader(), charset)
    }

    /// `target` requested as `ask` says, redirects followed: the answer, and the last page's
    /// ids (with [`Method::GetPage`]). Each redirect's target is read as the first URL was
    /// ([`Target`]), and judged as it was: an address that is not globally reachable, or a URL
    /// the exclude patterns match, ends the chain as excluded.
    pub(super) fn chain(
        &self,
        ask: Ask,
        target: &Target,
        held: &mut bool,
    ) -> (Answer, Option<Result<FragmentIds, String>>) {
        let mut answer = Answer::default();
        let mut current = target.clone();
        let mut seen = vec![target.request().to_owned()];
        let mut ask = ask;
        loop {
            let reply = self.with_retries(ask, &current, held);
            match reply {
                Reply::Failed { error, .. } => {
                    let bad = error.starts_with("not a URL");
                    answer.error = Some(error);
                    answer.bad_address = bad && answer.redirects.is_empty();
                    return (answer, None);
                }
                Reply::Refused(refused) => {
                    answer.excluded = Some(if answer.redirects.is_empty() {
                        refused.to_string()
                    } else {
                        format!("redirected to {refused}")
                    });
                    answer.private = true;
                    return (answer, None);
                }
                Reply::OutOfTime => {
                    answer.not_checked = Some(self.config.out_of_time_reason());
                    return (answer, None);
                }
                Reply::Status {
                    status,
                    location,
                    ids,
                    ..
                } => {
                    let Some(location) = location.filter(|_| is_redirect(status)) else {
                        answer.status = Some(status);
                        return (answer, ids);
                    };
                    let location = location.trim();
                    let next = match current.resolve(location) {
                        Ok(next) => next,
                        Err(_) => {
                            answer.error =
                                Some(format!("{status} to {location:?}, which is not a URL"));
                            return (answer, None);
                        }
                    };
                    let next_text = next.as_str().to_owned();
                    answer.redirects.push(Hop {
                        status,
                        to: next_text.clone(),
                    });
                    if seen.contains(&next_text) {
                        answer.error = Some("redirect loop".to_owned());
                        return (answer, None);
                    }
                    if answer.redirects.len() > self.config.max_redirects as usize {
                        answer.error =
                            Some(format!("more than {} redirects", self.config.max_redirects));
                        return (answer, None);
                    }
                    let next = match Target::from_url(next) {
                        Ok(next) => next,
                        Err(_) => {
                            answer.error = Some(format!("redirected to {next_text}, not http(s)"));
                            return (answer, None);
                        }
                    };
                    if !self.config.allow_private {
                        if let Some(refused) = address::host_refusal(&next.host()) {
                            answer.excluded = Some(format!("redirected to {refused}"));
                            answer.private = true;
                            return (answer, None);
                        }
                    }
                    if (self.excluded)(next.request()) {
                        answer.excluded = Some(format!(
                            "redirected to {next}, which --exclude or .linkbaseignore excludes"
                        ));
                        return (answer, None);
                    }
                    // The scope of --header follows the request, to the host it now names.
                    ask.headers = true;
                    seen.push(next_text);
                    current = next;
                }
            }
        }
    }

    /// One request, retried on 429, 500, 502, 503, 504 (unless accepted) and timeouts.
    pub(super) fn with_retries(&self, ask: Ask, target: &Target, held: &mut bool) -> Reply {
        let mut attempt = 0;
        loop {
            let reply = self.once(ask, target, held);
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
                Reply::Refused(_) | Reply::OutOfTime => (false, None),
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
            let wait = wait.min(MAX_RETRY_AFTER);
            if let Some((_, end)) = self.config.max_time {
                if Instant::now() + wait >= end {
                    return Reply::OutOfTime;
                }
            }
            std::thread::sleep(wait);
        }
    }

    /// One request (one slot of its host, taken and given back).
    pub(super) fn once(&self, ask: Ask, target: &Target, held: &mut bool) -> Reply {
        let key = target.host_key();
        if !std::mem::take(held) && !self.sched.acquire(key) {
            return Reply::OutOfTime;
        }
        let reply = self.send(ask, target);
        self.sched.release(key);
        reply
    }

    pub(super) fn send(&self, ask: Ask, target: &Target) -> Reply {
        let time = self.config.request_time();
        if time.is_zero() {
            return Reply::OutOfTime;
        }
        let uri = match target.request().parse::<ureq::http::Uri>() {
            Ok(u) => u,
            Err(e) => {
                return Reply::Failed {
                    error: format!("not a URL a request can be made for: {e}"),
                    timeout: false,
                }
            }
        };
        let request = if ask.method == Method::Head {
            self.agent.head(uri)
        } else {
            self.agent.get(uri)
        };
        let mut request = request.config().timeout_global(Some(time)).build();
        if ask.headers {
            for h in self.config.headers.iter().filter(|h| h.applies_to(target)) {
                request = request.header(h.name.clone(), h.value.clone());
            }
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
                let wanted = ask.method == Method::GetPage
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
                let ids = wanted.then(|| self.read_ids(response));
                if self.config.out_of_time() && ids.as_ref().is_some_and(Result::is_err) {
                    return Reply::OutOfTime;
                }
                Reply::Status {
                    status,
                    location,
                    retry_after,
                    ids,
                }
            }
            Err(e) => {
                if let Some(refused) = address::refused_in(&e) {
                    return Reply::Refused(refused.clone());
                }
                let timeout = matches!(e, ureq::Error::Timeout(_))
                    || matches!(&e, ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut);
                if timeout && self.config.out_of_time() {
                    return Reply::OutOfTime;
                }
                let error = if timeout {
                    format!("timed out after {}", say_duration(time))
                } else {
                    failure_text(&e)
                };
                Reply::Failed { error, timeout }
            }
        }
    }
}

/// A failure says how many attempts it took.
pub(super) fn said_attempts(reply: Reply, attempts: u32) -> Reply {
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
pub(super) fn tls_text(e: &rustls::Error) -> String {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::Condvar;

    fn job(host: &str, n: usize) -> Job {
        Job {
            target: Target::parse(&format!("http://{host}/{n}")).unwrap(),
            names: BTreeMap::new(),
            fragments: BTreeSet::new(),
            head: None,
        }
    }

    fn scheduler(jobs: Vec<Job>, host_limit: usize) -> Scheduler {
        let mut st = SchedState::new(jobs);
        for id in 0..st.hosts.len() {
            st.place(id, Some(host_limit));
        }
        Scheduler {
            state: Mutex::new(st),
            wake: Condvar::new(),
            host_limit,
            interval: Duration::ZERO,
            deadline: None,
        }
    }

    fn next(sched: &Scheduler) -> String {
        let (job, held) = sched.next_job().unwrap();
        assert!(held);
        job.target.request().to_owned()
    }

    /// Jobs are handed out to the host with the fewest requests in flight, then the most left:
    /// hosts advance together rather than one after the other.
    #[test]
    fn hosts_are_served_in_turn() {
        let mut jobs = Vec::new();
        for (host, n) in [("a", 3), ("b", 5), ("c", 1)] {
            jobs.extend((0..n).map(|i| job(host, i)));
        }
        let sched = scheduler(jobs, 2);
        // b (most left), a, then c (none in flight), b again (more left than a), a.
        let first: Vec<String> = (0..5).map(|_| next(&sched)).collect();
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
        for host in ["b:80", "a:80", "b:80", "b:80"] {
            sched.release(host);
            rest.push(next(&sched));
        }
        assert_eq!(
            rest,
            ["http://b/2", "http://a/2", "http://b/3", "http://b/4"]
        );
        assert!(sched.next_job().is_none());
    }

    /// Every spelling of one host shares its limit.
    #[test]
    fn spellings_of_a_host_share_its_slots() {
        let jobs = [
            "http://127.0.0.1/a",
            "http://2130706433/b",
            "http://127.1:80/c",
        ]
        .iter()
        .map(|u| Job {
            target: Target::parse(u).unwrap(),
            names: BTreeMap::new(),
            fragments: BTreeSet::new(),
            head: None,
        })
        .collect();
        let sched = scheduler(jobs, 1);
        assert_eq!(next(&sched), "http://127.0.0.1/a");
        // The host is at its limit: nothing is handed out until its request ends.
        assert!(sched.lock().ready.is_empty());
        sched.release("127.0.0.1:80");
        assert_eq!(next(&sched), "http://127.0.0.1/b");
    }

    /// Past `--max-time`, jobs are handed out without a slot, to be answered at once.
    #[test]
    fn past_the_deadline_jobs_come_without_slots() {
        let mut sched = scheduler(vec![job("a", 0), job("a", 1)], 1);
        sched.deadline = Some(Instant::now());
        let (_, held) = sched.next_job().unwrap();
        assert!(!held);
        let (_, held) = sched.next_job().unwrap();
        assert!(!held);
        assert!(sched.next_job().is_none());
        assert!(!sched.acquire("a:80"));
    }
}
