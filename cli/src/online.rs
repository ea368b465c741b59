//! `check --online` (issue 25): the links that leave the site, fetched. Every distinct
//! `http(s)` URL of the run is requested once, on a pool of threads bounded over all hosts and
//! per host; `mailto:` and `tel:` are checked by syntax; a `#fragment` is looked up among the
//! ids of the remote page with the library's own id extraction and id rules (those of local
//! pages). Verdicts can be kept in a cache file so that a rerun makes no request for a URL
//! checked recently.
//!
//! Requests: HEAD first, GET where HEAD is refused (405, 501, and any other 4xx but 429: many
//! servers answer HEAD wrongly) or a fragment must be found in the body; redirects followed one
//! by one (the chain is reported; a loop or more than `--max-redirects` is unreachable);
//! retries with a doubling wait on 429, 500, 502, 503, 504 and timeouts, a `Retry-After`
//! replacing the wait when it is at most [`MAX_RETRY_AFTER`].

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use linkbase::site::{FragmentIds, Verdict};

use crate::Fatal;

/// The default cache file, at the root of the checked tree.
pub const CACHE_FILE: &str = ".linkbase-cache.json";

/// The longest `Retry-After` waited for; a longer one ends the retries and is reported.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The most of a remote page read to find a fragment's id; past it the fragment is not checked
/// (said in the record), the link's status still is.
pub const MAX_PAGE: u64 = 8 << 20;

/// Remote pages held in memory at once (read and parsed for their ids): memory stays below
/// `MAX_BODIES × MAX_PAGE` plus the parse, whatever the concurrency.
const MAX_BODIES: usize = 4;

/// What `--online` was told.
#[derive(Debug, Clone)]
pub struct Config {
    pub accept: Accept,
    pub timeout: Duration,
    pub max_retries: u32,
    pub retry_wait: Duration,
    pub max_redirects: u32,
    pub max_concurrency: usize,
    pub host_concurrency: usize,
    pub host_interval: Duration,
    pub user_agent: String,
    pub headers: Vec<HostHeader>,
    /// The cache file and the age past which its verdicts are not used.
    pub cache: Option<(CacheFile, Duration)>,
}

/// Where the cache lives: the tree's own file (read and written without following a symbolic
/// link), or one the user named.
#[derive(Debug, Clone)]
pub enum CacheFile {
    InTree { root: PathBuf },
    Named(PathBuf),
}

impl CacheFile {
    fn path(&self) -> PathBuf {
        match self {
            CacheFile::InTree { root } => root.join(CACHE_FILE),
            CacheFile::Named(p) => p.clone(),
        }
    }
}

impl Config {
    pub fn from_args(args: &crate::args::OnlineArgs, root: &Path) -> Result<Config, Fatal> {
        let duration = |flag: &str, text: &str| {
            parse_duration(text).ok_or_else(|| {
                Fatal(format!(
                    "{flag} {text:?}: expected a duration such as 500ms, 20s, 12h or 1d"
                ))
            })
        };
        let at_least_one = |flag: &str, n: usize| {
            if n == 0 {
                Err(Fatal(format!("{flag} 0: must be at least 1")))
            } else {
                Ok(n)
            }
        };
        Ok(Config {
            accept: Accept::parse(&args.accept)?,
            timeout: duration("--timeout", &args.timeout)?,
            max_retries: args.max_retries,
            retry_wait: duration("--retry-wait", &args.retry_wait)?,
            max_redirects: args.max_redirects,
            max_concurrency: at_least_one("--max-concurrency", args.max_concurrency)?,
            host_concurrency: at_least_one("--host-concurrency", args.host_concurrency)?,
            host_interval: match &args.host_interval {
                Some(t) => duration("--host-interval", t)?,
                None => Duration::ZERO,
            },
            user_agent: args
                .user_agent
                .clone()
                .unwrap_or_else(|| format!("linkbase/{}", env!("CARGO_PKG_VERSION"))),
            headers: args
                .headers
                .iter()
                .map(|h| HostHeader::parse(h))
                .collect::<Result<_, _>>()?,
            cache: match &args.cache {
                None => None,
                Some(file) => Some((
                    match file {
                        Some(p) => CacheFile::Named(p.clone()),
                        None => CacheFile::InTree {
                            root: root.to_owned(),
                        },
                    },
                    duration("--max-cache-age", &args.max_cache_age)?,
                )),
            },
        })
    }
}

/// `500ms`, `20s`, `30m`, `12h`, `1d`, `2w`, and sums of them (`1h30m`); a bare number is
/// seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(n) = text.parse::<u64>() {
        return Some(Duration::from_secs(n));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let one = match &rest[..unit] {
            "ms" => Duration::from_millis(n),
            "s" => Duration::from_secs(n),
            "m" => Duration::from_secs(n.checked_mul(60)?),
            "h" => Duration::from_secs(n.checked_mul(3600)?),
            "d" => Duration::from_secs(n.checked_mul(86_400)?),
            "w" => Duration::from_secs(n.checked_mul(604_800)?),
            _ => return None,
        };
        total = total.checked_add(one)?;
        rest = &rest[unit..];
    }
    (!text.is_empty()).then_some(total)
}

/// `--accept`: the statuses that make a link ok.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accept(Vec<(u16, u16)>);

impl Accept {
    /// `200..=299,403`, `200..300`, `204`.
    pub fn parse(text: &str) -> Result<Accept, Fatal> {
        let bad = |part: &str| {
            Fatal(format!(
                "--accept {text:?}: {part:?} is not a status code (100-999) or a range such as 200..=299"
            ))
        };
        let code = |s: &str, part: &str| {
            s.trim()
                .parse::<u16>()
                .ok()
                .filter(|c| (100..=999).contains(c))
                .ok_or_else(|| bad(part))
        };
        let mut ranges = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let range = if let Some((a, b)) = part.split_once("..=") {
                (code(a, part)?, code(b, part)?)
            } else if let Some((a, b)) = part.split_once("..") {
                let end = code(b, part)?;
                (code(a, part)?, end.checked_sub(1).ok_or_else(|| bad(part))?)
            } else {
                let c = code(part, part)?;
                (c, c)
            };
            if range.0 > range.1 {
                return Err(bad(part));
            }
            ranges.push(range);
        }
        if ranges.is_empty() {
            return Err(bad(text));
        }
        Ok(Accept(ranges))
    }

    pub fn accepts(&self, status: u16) -> bool {
        self.0.iter().any(|&(a, b)| (a..=b).contains(&status))
    }
}

/// `--header 'HOST: NAME: VALUE'`: a header sent to one host only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostHeader {
    /// `example.com`, `example.com:8080`, or `*.example.com` (its subdomains).
    host: String,
    name: String,
    value: String,
}

impl HostHeader {
    pub fn parse(spec: &str) -> Result<HostHeader, Fatal> {
        let bad = || {
            Fatal(format!(
                "--header {spec:?}: expected 'HOST: NAME: VALUE' (the header NAME: VALUE, sent to HOST only)"
            ))
        };
        // The host ends at the first colon followed by a space (host:port has none).
        let (host, header) = spec.split_once(": ").ok_or_else(bad)?;
        let (name, value) = header.split_once(':').ok_or_else(bad)?;
        let (host, name, value) = (host.trim(), name.trim(), value.trim());
        let token = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        };
        if host.is_empty() || host.contains(['/', ' ']) || !token(name) {
            return Err(bad());
        }
        if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
            return Err(bad());
        }
        Ok(HostHeader {
            host: host.to_ascii_lowercase(),
            name: name.to_owned(),
            value: value.to_owned(),
        })
    }

    /// Whether this header goes to a URL of this authority (`host` or `host:port`, lower case).
    fn applies_to(&self, authority: &str) -> bool {
        let host = host_of(authority);
        if let Some(domain) = self.host.strip_prefix("*.") {
            return host.ends_with(&format!(".{domain}"));
        }
        self.host == authority || self.host == host
    }
}

/// The host of an authority (`h:8080` → `h`, `[::1]:80` → `[::1]`).
fn host_of(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map_or(authority, |i| &authority[..=i]);
    }
    authority.rsplit_once(':').map_or(authority, |(h, _)| h)
}

/// The authority of an http(s) URL, lower case and without user information: the key of the
/// per-host limits and of `--header`.
fn authority(url: &str) -> Option<String> {
    let r = linkbase::UriRef::parse(url);
    let a = r.authority?;
    let a = a.rsplit_once('@').map_or(a, |(_, h)| h);
    (!a.is_empty()).then(|| a.to_ascii_lowercase())
}

/// One redirect: its status and where it led (resolved).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hop {
    pub status: u16,
    pub to: String,
}

/// What became of a fragment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fragment {
    Found,
    Missing,
    /// Not looked up, and why (not HTML, past [`MAX_PAGE`]).
    NotChecked(String),
}

/// The answer for one URL as requested (fragment included): what the report shows, and what
/// the cache keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    /// The last answer's status (none: no usable answer, see `error`).
    #[serde(default)]
    pub status: Option<u16>,
    /// The redirects followed, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<Hop>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragment: Option<Fragment>,
    /// Why there is no usable answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The URL is not one a request can be made for (or a malformed mailto:/tel:).
    #[serde(skip)]
    pub bad_address: bool,
}

impl Answer {
    fn bad_address(e: impl Into<String>) -> Answer {
        Answer {
            bad_address: true,
            error: Some(e.into()),
            ..Answer::default()
        }
    }

    /// Whether the cache keeps it: an answer that will likely be the same tomorrow (not an
    /// error, a 429 or a 5xx, nor a fragment left unchecked).
    fn lasting(&self) -> bool {
        self.error.is_none()
            && self.status.is_some_and(|s| s != 408 && s != 429 && s < 500)
            && !matches!(self.fragment, Some(Fragment::NotChecked(_)))
    }
}

/// The verdict on one URL: what the report says of every link to it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Outcome {
    /// The URL requested (after `--remap`, without the fragment).
    pub url: String,
    #[serde(flatten)]
    pub answer: Answer,
    /// From the cache file: no request was made.
    pub cached: bool,
    #[serde(skip)]
    pub verdict: Verdict,
}

impl Outcome {
    fn new(url: &str, answer: Answer, cached: bool, accept: &Accept) -> Outcome {
        let verdict = match (answer.status, &answer.fragment) {
            (Some(s), _) if !accept.accepts(s) => Verdict::HttpError,
            (Some(_), Some(Fragment::Missing)) => Verdict::MissingFragment,
            (Some(_), _) => Verdict::Ok,
            // mailto: and tel: checked by syntax.
            (None, _) if answer.error.is_none() => Verdict::Ok,
            (None, _) if answer.bad_address => Verdict::BadAddress,
            (None, _) => Verdict::Unreachable,
        };
        Outcome {
            url: url.split('#').next().unwrap_or(url).to_owned(),
            answer,
            cached,
            verdict,
        }
    }

    /// What the report says after the target: `404 Not Found`, `connection refused`, the
    /// redirects, `(cached)`.
    pub fn detail(&self) -> String {
        let a = &self.answer;
        let mut text = match (a.status, &a.error) {
            (_, Some(e)) => e.clone(),
            (Some(s), None) => status_text(s),
            (None, None) => String::new(),
        };
        if a.fragment == Some(Fragment::Missing) {
            text.push_str(", no such id in the page");
        }
        if !a.redirects.is_empty() {
            let hops: Vec<String> = a
                .redirects
                .iter()
                .map(|h| format!("{} {}", h.status, h.to))
                .collect();
            text.push_str(&format!(" after {}", hops.join(" -> ")));
        }
        if self.cached {
            text.push_str(" (cached)");
        }
        text
    }
}

fn status_text(status: u16) -> String {
    match ureq::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(reason) => format!("{status} {reason}"),
        None => status.to_string(),
    }
}

/// The verdicts of a run, by URL as checked (after `--remap`, fragment included).
#[derive(Debug, Default)]
pub struct Results {
    by_url: HashMap<String, Outcome>,
}

impl Results {
    pub fn get(&self, url: &str) -> Option<&Outcome> {
        self.by_url.get(url)
    }
}

/// Whether `url` is one `--online` checks: http(s), mailto:, tel:.
pub fn wanted(url: &str) -> bool {
    matches!(
        scheme(url).as_deref(),
        Some("http" | "https" | "mailto" | "tel")
    )
}

fn scheme(url: &str) -> Option<String> {
    let (s, _) = url.split_once(':')?;
    (!s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)))
    .then(|| s.to_ascii_lowercase())
}

/// Checks every URL (http(s) fetched, mailto:/tel: by syntax), each distinct one once; reads
/// and updates the cache.
pub fn check(
    urls: BTreeSet<String>,
    config: &Config,
    progress: &crate::walk::Progress,
) -> Result<Results, Fatal> {
    let mut cache = match &config.cache {
        Some((file, max_age)) => Cache::load(file, *max_age),
        None => Cache::default(),
    };
    let mut results = Results::default();
    // Pages to request: the URL without its fragment, with every fragment asked of it.
    let mut pages: BTreeMap<String, (bool, BTreeSet<String>)> = BTreeMap::new();
    for url in urls {
        match scheme(&url).as_deref() {
            Some("mailto" | "tel") => {
                let answer = syntax(&url);
                let outcome = Outcome::new(&url, answer, false, &config.accept);
                results.by_url.insert(url, outcome);
            }
            _ => {
                if let Some(answer) = cache.fresh(&url) {
                    let outcome = Outcome::new(&url, answer.clone(), true, &config.accept);
                    results.by_url.insert(url, outcome);
                    continue;
                }
                let (page, fragment) = match url.split_once('#') {
                    Some((p, f)) => (p.to_owned(), Some(f.to_owned())),
                    None => (url.clone(), None),
                };
                let (bare, fragments) = pages.entry(page).or_default();
                match fragment {
                    Some(f) => {
                        fragments.insert(f);
                    }
                    None => *bare = true,
                }
            }
        }
    }
    let jobs: Vec<Job> = pages
        .into_iter()
        .map(|(url, (bare, fragments))| Job {
            host: authority(&url).unwrap_or_default(),
            url,
            bare,
            fragments,
        })
        .collect();
    progress.restart("check: online");
    progress.set_total(jobs.len());
    let mut fetched = fetch_all(jobs, config, progress);
    fetched.sort_by(|a, b| a.0.url.cmp(&b.0.url));
    let now = unix_now();
    for (job, page, per_fragment) in fetched {
        let mut each = |url: String, answer: Answer| {
            if answer.lasting() {
                cache.put(&url, &answer, now);
            }
            let outcome = Outcome::new(&url, answer, false, &config.accept);
            results.by_url.insert(url, outcome);
        };
        for (fragment, found) in per_fragment {
            // The link is still judged by its status; the fragment's fate is said, not hidden
            // in the records.
            if let Some(Fragment::NotChecked(why)) = &found {
                eprintln!(
                    "linkbase: {}: fragment {}",
                    linkbase::report::escape_controls(&format!("{}#{fragment}", job.url)),
                    linkbase::report::escape_controls(why)
                );
            }
            let mut answer = page.clone();
            answer.fragment = found;
            each(format!("{}#{fragment}", job.url), answer);
        }
        // The page itself, when some link names it without a fragment.
        if job.bare {
            each(job.url.clone(), page);
        }
    }
    if let Some((file, _)) = &config.cache {
        if let Err(e) = cache.save(file) {
            eprintln!(
                "linkbase: {}: the cache was not written: {e}",
                file.path().display()
            );
        }
    }
    Ok(results)
}

/// `mailto:` (RFC 6068: comma-separated addr-specs, percent-encoded; none is allowed, as in
/// `mailto:?to=…`) and `tel:` (RFC 3966: a number of digits and visual separators, `+` for a
/// global one, then `;parameters`).
fn syntax(url: &str) -> Answer {
    let ok = Answer::default();
    let (scheme_name, rest) = url.split_once(':').unwrap_or((url, ""));
    let rest = rest.split('#').next().unwrap_or("");
    if scheme_name.eq_ignore_ascii_case("mailto") {
        let to = rest.split('?').next().unwrap_or("");
        let decoded = percent_decode(to);
        for address in decoded.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            let valid = address.rsplit_once('@').is_some_and(|(local, domain)| {
                !local.is_empty()
                    && !local.contains(char::is_whitespace)
                    && !domain.is_empty()
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains("..")
                    && (domain.starts_with('[')
                        || domain
                            .chars()
                            .all(|c| c.is_alphanumeric() || c == '-' || c == '.'))
            });
            if !valid {
                return Answer::bad_address(format!("{address:?} is not an e-mail address"));
            }
        }
        ok
    } else {
        let number = percent_decode(rest.split(';').next().unwrap_or(""));
        let digits = number.trim_start_matches('+');
        let valid = digits.chars().any(|c| c.is_ascii_digit())
            && digits
                .chars()
                .all(|c| c.is_ascii_hexdigit() || "-.()*#".contains(c))
            && !digits.contains('+');
        if valid {
            ok
        } else {
            Answer::bad_address(format!("{number:?} is not a telephone number"))
        }
    }
}

fn percent_decode(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if let (b'%', [h, l, more @ ..]) = (b, tail) {
            if let (Some(h), Some(l)) = ((*h as char).to_digit(16), (*l as char).to_digit(16)) {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'%'));
                rest = more;
                continue;
            }
        }
        out.push(b);
        rest = tail;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One page to request: its URL (no fragment), its host, the fragments links ask of it.
struct Job {
    url: String,
    host: String,
    /// Some link names the URL without a fragment.
    bare: bool,
    fragments: BTreeSet<String>,
}

/// Per host: requests in flight and the earliest start of the next one.
#[derive(Default)]
struct HostState {
    in_flight: usize,
    next_start: Option<Instant>,
}

/// The jobs not started, per host, and every host's state.
struct Scheduler {
    state: Mutex<SchedState>,
    wake: Condvar,
    host_limit: usize,
    interval: Duration,
}

struct SchedState {
    queues: BTreeMap<String, VecDeque<Job>>,
    hosts: HashMap<String, HostState>,
}

impl Scheduler {
    fn lock(&self) -> std::sync::MutexGuard<'_, SchedState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next job whose host can take a request now, with that request's slot taken (so a
    /// worker never waits on a busy host while another host has work); `None` when all are
    /// handed out.
    fn next_job(&self) -> Option<Job> {
        let mut st = self.lock();
        loop {
            if st.queues.is_empty() {
                return None;
            }
            let now = Instant::now();
            let mut wake_at: Option<Instant> = None;
            let mut chosen = None;
            for host in st.queues.keys() {
                let h = st.hosts.get(host);
                let in_flight = h.map_or(0, |h| h.in_flight);
                let next = h.and_then(|h| h.next_start);
                if in_flight >= self.host_limit {
                    continue;
                }
                match next {
                    Some(t) if t > now => wake_at = Some(wake_at.map_or(t, |w| w.min(t))),
                    _ => {
                        chosen = Some(host.clone());
                        break;
                    }
                }
            }
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
    fn acquire(&self, host: &str) {
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

    fn release(&self, host: &str) {
        let mut st = self.lock();
        if let Some(h) = st.hosts.get_mut(host) {
            h.in_flight = h.in_flight.saturating_sub(1);
        }
        drop(st);
        self.wake.notify_all();
    }
}

/// A counting semaphore: remote pages held at once.
struct Bodies {
    free: Mutex<usize>,
    wake: Condvar,
}

/// A page held in memory: given back when dropped.
struct Permit<'a>(&'a Bodies);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.0.give();
    }
}

impl Bodies {
    fn take(&self) -> Permit<'_> {
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

    fn give(&self) {
        *self
            .free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
        self.wake.notify_one();
    }
}

type Fetched = (Job, Answer, Vec<(String, Option<Fragment>)>);

/// Every job on `max_concurrency` threads (fewer when there are fewer jobs).
fn fetch_all(jobs: Vec<Job>, config: &Config, progress: &crate::walk::Progress) -> Vec<Fetched> {
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
        .max_idle_connections(config.max_concurrency)
        .max_idle_connections_per_host(config.host_concurrency)
        .build()
        .into();
    let done: Mutex<Vec<Fetched>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let fetcher = Fetcher {
                    agent: &agent,
                    config,
                    sched: &sched,
                    bodies: &bodies,
                };
                while let Some(job) = sched.next_job() {
                    let (answer, fragments) = fetcher.run(&job);
                    progress.inc();
                    done.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((job, answer, fragments));
                }
            });
        }
    });
    done.into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

struct Fetcher<'a> {
    agent: &'a ureq::Agent,
    config: &'a Config,
    sched: &'a Scheduler,
    bodies: &'a Bodies,
}

/// How a URL is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Head,
    Get,
    /// GET, and the page read (for its ids) while the request holds its host's slot.
    GetPage,
}

/// A remote page read for its ids: its bytes and transport charset, or why it was not read;
/// it counts against [`MAX_BODIES`] until dropped.
struct Page<'a> {
    read: Result<(Vec<u8>, Option<String>), String>,
    _permit: Option<Permit<'a>>,
}

/// What one request brought back.
enum Reply<'a> {
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
    /// The job's URL checked: its answer, and each fragment's fate.
    fn run(&self, job: &Job) -> (Answer, Vec<(String, Option<Fragment>)>) {
        // A first slot of the job's host was taken when it was handed out.
        let mut held = true;
        let wants_body = job
            .fragments
            .iter()
            .any(|f| !FragmentIds::default().names(f) && !f.starts_with(":~:"));
        let mut answer;
        let mut page;
        if wants_body {
            (answer, page) = self.chain(Method::GetPage, &job.url, &mut held);
        } else {
            (answer, page) = self.chain(Method::Head, &job.url, &mut held);
            let refused = answer.status.is_some_and(|s| {
                !self.config.accept.accepts(s)
                    && (s == 501 || ((400..500).contains(&s) && s != 429))
            });
            if refused {
                (answer, page) = self.chain(Method::Get, &job.url, &mut held);
            }
        }
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
        (answer, fragments)
    }

    /// The page of `response`, read up to [`MAX_PAGE`] if it is HTML.
    fn read_page(&self, mut response: ureq::http::Response<ureq::Body>) -> Page<'a> {
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
    fn chain(&self, method: Method, url: &str, held: &mut bool) -> (Answer, Option<Page<'a>>) {
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
    fn with_retries(&self, method: Method, url: &str, held: &mut bool) -> Reply<'a> {
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
    fn once(&self, method: Method, url: &str, held: &mut bool) -> Reply<'a> {
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

    fn send(&self, method: Method, url: &str, host: &str) -> Reply<'a> {
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
            Ok(response) => {
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
fn said_attempts(reply: Reply<'_>, attempts: u32) -> Reply<'_> {
    match reply {
        Reply::Failed { error, timeout } if attempts > 1 => Reply::Failed {
            error: format!("{error} ({attempts} attempts)"),
            timeout,
        },
        r => r,
    }
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// The ids of a page read by [`Fetcher::read_page`], found by the library's extraction (the
/// streaming engine, with the DOM engine's fallback), as for the pages of the tree.
fn ids_of(url: &str, page: Page<'_>) -> Result<FragmentIds, String> {
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
fn failure_text(e: &ureq::Error) -> String {
    use std::io::ErrorKind as K;
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

fn say_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
fn retry_after_wait(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = http_date(value)?;
    Some(Duration::from_secs(at.saturating_sub(unix_now())))
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as seconds since 1970.
fn http_date(text: &str) -> Option<u64> {
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

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The cache file: per URL (fragment included), when it was checked and its answer.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Cache {
    /// The file format; another one is read as empty.
    version: u32,
    entries: BTreeMap<String, Entry>,
    /// Entries older than this many seconds are neither used nor kept.
    #[serde(skip)]
    max_age: u64,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Entry {
    /// Seconds since 1970 (UTC).
    checked: u64,
    #[serde(flatten)]
    answer: Answer,
}

const CACHE_VERSION: u32 = 1;

impl Cache {
    /// The cache file's fresh entries; a file that is missing, unreadable or not ours is said
    /// (unless missing) and read as empty: the run checks everything again.
    fn load(file: &CacheFile, max_age: Duration) -> Cache {
        let mut cache = Cache {
            version: CACHE_VERSION,
            entries: BTreeMap::new(),
            max_age: max_age.as_secs(),
        };
        let path = file.path();
        if std::fs::symlink_metadata(&path).is_err() {
            return cache;
        }
        // Never through a symbolic link (the tree may come from elsewhere).
        let read = crate::fsout::open_regular(&path, None, false).and_then(|mut f| {
            let mut text = Vec::new();
            f.read_to_end(&mut text).map_err(|e| e.to_string())?;
            serde_json::from_slice::<Cache>(&text).map_err(|e| e.to_string())
        });
        match read {
            Ok(read) if read.version == CACHE_VERSION => {
                let now = unix_now();
                cache.entries = read
                    .entries
                    .into_iter()
                    .filter(|(_, e)| e.checked <= now && now - e.checked <= cache.max_age)
                    .collect();
            }
            Ok(read) => eprintln!(
                "linkbase: {}: a cache of version {}, not {CACHE_VERSION}; not used (it will be replaced)",
                path.display(),
                read.version
            ),
            Err(e) => eprintln!(
                "linkbase: {}: not used as a cache (it will be replaced): {e}",
                path.display()
            ),
        }
        cache
    }

    fn fresh(&self, url: &str) -> Option<&Answer> {
        self.entries.get(url).map(|e| &e.answer)
    }

    fn put(&mut self, url: &str, answer: &Answer, now: u64) {
        self.entries.insert(
            url.to_owned(),
            Entry {
                checked: now,
                answer: answer.clone(),
            },
        );
    }

    /// Written through a temporary file and a rename; the tree's own file without following a
    /// symbolic link (one there is replaced).
    fn save(&self, file: &CacheFile) -> Result<(), String> {
        let mut text = serde_json::to_vec_pretty(self).map_err(|e| e.to_string())?;
        text.push(b'\n');
        let contents = crate::fsout::Contents::Bytes(&text);
        match file {
            CacheFile::InTree { root } => {
                let dir = crate::fsout::Dir::open(root, false)?;
                crate::fsout::write_in(
                    &dir,
                    std::ffi::OsStr::new(CACHE_FILE),
                    contents,
                    crate::fsout::Target::Output,
                    crate::fsout::Durability::Each,
                )
            }
            CacheFile::Named(path) => {
                crate::fsout::write(path, contents, crate::fsout::Target::Output)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("12h"), Some(Duration::from_secs(43_200)));
        assert_eq!(parse_duration("1h30m"), Some(Duration::from_secs(5_400)));
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("20"), Some(Duration::from_secs(20)));
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("1x"), None);
        assert_eq!(parse_duration("h"), None);
    }

    #[test]
    fn accepted_statuses() {
        let a = Accept::parse("200..=299,403").unwrap();
        assert!(a.accepts(200) && a.accepts(299) && a.accepts(403));
        assert!(!a.accepts(300) && !a.accepts(404));
        let b = Accept::parse("200..300, 429").unwrap();
        assert!(b.accepts(299) && !b.accepts(300) && b.accepts(429));
        assert!(Accept::parse("abc").is_err());
        assert!(Accept::parse("300..=200").is_err());
        assert!(Accept::parse("").is_err());
    }

    #[test]
    fn host_headers() {
        let h = HostHeader::parse("api.example.com: Authorization: Bearer a:b").unwrap();
        assert_eq!(h.name, "Authorization");
        assert_eq!(h.value, "Bearer a:b");
        assert!(h.applies_to("api.example.com"));
        assert!(h.applies_to("api.example.com:8443"));
        assert!(!h.applies_to("example.com"));
        let p = HostHeader::parse("127.0.0.1:8080: X-Token: t").unwrap();
        assert!(p.applies_to("127.0.0.1:8080"));
        assert!(!p.applies_to("127.0.0.1:8081"));
        let w = HostHeader::parse("*.example.com: X: y").unwrap();
        assert!(w.applies_to("a.example.com") && !w.applies_to("example.com"));
        assert!(HostHeader::parse("Authorization: Bearer x").is_err());
        assert!(HostHeader::parse("h: Bad Name: x").is_err());
    }

    #[test]
    fn addresses() {
        assert!(syntax("mailto:a@example.com").error.is_none());
        assert!(syntax("mailto:a@example.com,b@x.org?subject=hi")
            .error
            .is_none());
        assert!(syntax("mailto:?to=a@example.com").error.is_none());
        assert!(syntax("mailto:a%40example.com").error.is_none());
        assert!(syntax("mailto:nobody").bad_address);
        assert!(syntax("mailto:a@b..c").bad_address);
        assert!(syntax("tel:+1-201-555-0123").error.is_none());
        assert!(syntax("tel:7042;phone-context=example.com").error.is_none());
        assert!(syntax("tel:call-me").bad_address);
    }

    #[test]
    fn retry_after_dates() {
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(http_date("yesterday"), None);
        assert_eq!(retry_after_wait("7"), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_after_wait("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
    }
}
