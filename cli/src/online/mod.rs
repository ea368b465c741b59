//! `check --online` (issue 25): the links that leave the site, fetched. Every distinct
//! `http(s)` URL of the run is requested once, on a pool of threads bounded over all hosts and
//! per host; `mailto:` and `tel:` are checked by syntax; a `#fragment` is looked up among the
//! ids of the remote page with the library's own id rules (those of local pages), read as the
//! page streams in. Verdicts can be kept in a cache file so that a rerun makes no request for a
//! URL checked recently.
//!
//! Each URL is read once, as the URL Standard reads it ([`target`]), and every decision about
//! its requests is taken on that reading; no request goes to an address that is not globally
//! reachable unless `--allow-private` ([`address`]).
//!
//! Requests: HEAD first, GET where HEAD is refused or unreliable (see `fetch::HeadTrust`) or
//! a fragment must be found in the body; redirects followed one
//! by one (the chain is reported; a loop or more than `--max-redirects` is unreachable; a
//! target excluded, or at a private address, ends the chain as excluded);
//! retries with a doubling wait on 429, 500, 502, 503, 504 and timeouts, a `Retry-After`
//! replacing the wait when it is at most [`MAX_RETRY_AFTER`]. Each request ends by `--timeout`
//! (connecting, the answer and its body), and all of them by `--max-time`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use linkbase::site::Verdict;

use crate::Fatal;

pub mod address;
mod cache;
mod fetch;
pub mod target;
use cache::*;
pub use fetch::Progress;
use fetch::*;
pub use target::{HostPattern, Target};

/// The default cache file, at the root of the checked tree.
pub const CACHE_FILE: &str = ".linkbase-cache.json";

/// The longest `Retry-After` waited for; a longer one ends the retries and is reported.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The most of a remote page read to find a fragment's id; past it the fragment is not checked
/// (said in the record), the link's status still is.
pub const MAX_PAGE: u64 = 8 << 20;

/// Remote pages read for their ids at once: each is read as it arrives, holding its ids and
/// what the walk has not settled (`linkbase::site::read_page_ids`), so their sum is bounded
/// whatever the concurrency.
const MAX_BODIES: usize = 2;

/// The bounds of the durations a command line or a settings file may give: `--timeout`,
/// `--retry-wait`, `--host-interval`, `--max-time`.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);
pub const MAX_RETRY_WAIT: Duration = MAX_RETRY_AFTER;
pub const MAX_HOST_INTERVAL: Duration = Duration::from_secs(60);
pub const MAX_RUN_TIME: Duration = Duration::from_secs(7 * 86_400);

/// What `--online` was told.
#[derive(Debug, Clone)]
pub struct Config {
    pub accept: Accept,
    pub timeout: Duration,
    /// `--max-time`, and the instant it ends the run's requests.
    pub max_time: Option<(Duration, Instant)>,
    pub max_retries: u32,
    pub retry_wait: Duration,
    pub max_redirects: u32,
    pub max_concurrency: usize,
    pub host_concurrency: usize,
    pub host_interval: Duration,
    pub user_agent: String,
    pub tls: Tls,
    pub headers: Vec<HostHeader>,
    /// Requests may go to addresses that are not globally reachable.
    pub allow_private: bool,
    /// The cache file and the age past which its verdicts are not used.
    pub cache: Option<(CacheFile, Duration)>,
}

/// How https servers are verified.
#[derive(Debug, Clone)]
pub enum Tls {
    /// Against the Mozilla roots built in (webpki-roots).
    Mozilla,
    /// Not at all (`--insecure`).
    Insecure,
    /// Against these CAs (`--cacert FILE`).
    Roots(Vec<ureq::tls::Certificate<'static>>),
}

/// The most of a `--cacert` file read (a system bundle is a few hundred KiB).
const MAX_CACERT: u64 = 16 << 20;

impl Tls {
    fn from_args(args: &crate::args::OnlineArgs) -> Result<Tls, Fatal> {
        if args.insecure {
            return Ok(Tls::Insecure);
        }
        let Some(file) = &args.cacert else {
            return Ok(Tls::Mozilla);
        };
        let bad = |why: String| Fatal(format!("--cacert {}: {why}", file.display()));
        let pem = linkbase::fs::read_named_file(file, MAX_CACERT).map_err(bad)?;
        let mut certs = Vec::new();
        for item in ureq::tls::parse_pem(&pem) {
            if let ureq::tls::PemItem::Certificate(c) = item.map_err(|e| bad(e.to_string()))? {
                certs.push(c);
            }
        }
        if certs.is_empty() {
            return Err(bad("no PEM certificate in it".to_owned()));
        }
        Ok(Tls::Roots(certs))
    }

    fn config(&self) -> ureq::tls::TlsConfig {
        let b = ureq::tls::TlsConfig::builder();
        match self {
            Tls::Mozilla => b,
            Tls::Insecure => b.disable_verification(true),
            Tls::Roots(certs) => b.root_certs(ureq::tls::RootCerts::new_with_certs(certs)),
        }
        .build()
    }
}

/// Where the cache lives: a file below a directory, read and written without following a
/// symbolic link (the tree's own `DIR/.linkbase-cache.json`, or the path a settings file names,
/// inside its directory); or a file the user named on the command line.
#[derive(Debug, Clone)]
pub enum CacheFile {
    Below { dir: PathBuf, rel: PathBuf },
    Named(PathBuf),
}

impl CacheFile {
    fn path(&self) -> PathBuf {
        match self {
            CacheFile::Below { dir, rel } => dir.join(rel),
            CacheFile::Named(p) => p.clone(),
        }
    }
}

/// `text` as a duration no longer than `max`, or why not (for a flag or a settings file to
/// say).
pub fn bounded_duration(text: &str, max: impl Into<Option<Duration>>) -> Result<Duration, String> {
    let d = parse_duration(text)
        .ok_or_else(|| "expected a duration such as 500ms, 20s, 12h or 1d".to_owned())?;
    match max.into() {
        Some(max) if d > max => Err(format!("at most {}", say_duration(max))),
        _ => Ok(d),
    }
}

/// `--timeout`: a duration of at most [`MAX_TIMEOUT`], and not zero (a request with no time is
/// no request).
pub fn request_timeout(text: &str) -> Result<Duration, String> {
    let d = bounded_duration(text, MAX_TIMEOUT)?;
    if d.is_zero() {
        return Err("must be more than 0".to_owned());
    }
    Ok(d)
}

/// A `User-Agent` a request can carry (the HTTP client's own rule for a header value: no
/// control character but tab).
pub fn check_user_agent(ua: &str) -> Result<(), String> {
    ureq::http::HeaderValue::from_str(ua)
        .map(drop)
        .map_err(|_| "a header value cannot hold control characters (CR, LF, …)".to_owned())
}

impl Config {
    pub fn from_args(args: &crate::args::OnlineArgs, root: &Path) -> Result<Config, Fatal> {
        let started = Instant::now();
        let duration = |flag: &str, text: &str, max: Option<Duration>| {
            bounded_duration(text, max).map_err(|why| Fatal(format!("{flag} \"{text}\": {why}")))
        };
        let user_agent = match &args.user_agent {
            Some(ua) => {
                check_user_agent(ua)
                    .map_err(|why| Fatal(format!("--user-agent \"{ua}\": {why}")))?;
                ua.clone()
            }
            None => format!("linkbase/{}", env!("CARGO_PKG_VERSION")),
        };
        let max_time = match &args.max_time {
            Some(t) => {
                let d = duration("--max-time", t, Some(MAX_RUN_TIME))?;
                started.checked_add(d).map(|end| (d, end))
            }
            None => None,
        };
        Ok(Config {
            accept: Accept::parse(&args.accept)
                .map_err(|why| Fatal(format!("--accept \"{}\": {why}", args.accept)))?,
            timeout: request_timeout(&args.timeout)
                .map_err(|why| Fatal(format!("--timeout \"{}\": {why}", args.timeout)))?,
            max_time,
            max_retries: u32::try_from(args.max_retries).unwrap_or(u32::MAX),
            retry_wait: duration("--retry-wait", &args.retry_wait, Some(MAX_RETRY_WAIT))?,
            max_redirects: u32::try_from(args.max_redirects).unwrap_or(u32::MAX),
            max_concurrency: args.max_concurrency.max(1),
            host_concurrency: args.host_concurrency.max(1),
            host_interval: match &args.host_interval {
                Some(t) => duration("--host-interval", t, Some(MAX_HOST_INTERVAL))?,
                None => Duration::ZERO,
            },
            user_agent,
            tls: Tls::from_args(args)?,
            headers: args
                .headers
                .iter()
                .map(|h| {
                    HostHeader::parse(h).map_err(|why| Fatal(format!("--header \"{h}\": {why}")))
                })
                .collect::<Result<_, _>>()?,
            allow_private: args.allow_private,
            cache: match &args.cache {
                None => None,
                Some(file) => Some((
                    match (file, &args.cache_below) {
                        (Some(p), Some(dir)) => CacheFile::Below {
                            dir: dir.clone(),
                            rel: p.clone(),
                        },
                        (Some(p), None) => CacheFile::Named(p.clone()),
                        (None, _) => CacheFile::Below {
                            dir: root.to_owned(),
                            rel: PathBuf::from(CACHE_FILE),
                        },
                    },
                    duration("--max-cache-age", &args.max_cache_age, None)?,
                )),
            },
        })
    }

    /// How long a request may take now: `--timeout`, or less when `--max-time` ends sooner
    /// (zero when it has passed).
    fn request_time(&self) -> Duration {
        match self.max_time {
            Some((_, end)) => self
                .timeout
                .min(end.saturating_duration_since(Instant::now())),
            None => self.timeout,
        }
    }

    /// Whether `--max-time` has passed.
    fn out_of_time(&self) -> bool {
        self.max_time.is_some_and(|(_, end)| Instant::now() >= end)
    }

    /// The not-checked reason of a URL `--max-time` left.
    fn out_of_time_reason(&self) -> String {
        let limit = self.max_time.map_or(Duration::ZERO, |(d, _)| d);
        format!("not checked: --max-time {} reached", say_duration(limit))
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
    /// `200..=299,403`, `200..300`, `204`; or why not.
    pub fn parse(text: &str) -> Result<Accept, String> {
        let bad = |part: &str| {
            format!("\"{part}\" is not a status code (100-999) or a range such as 200..=299")
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
    host: HostPattern,
    name: ureq::http::HeaderName,
    value: ureq::http::HeaderValue,
}

impl HostHeader {
    /// `HOST: NAME: VALUE`, or why not: the name a token and the value without control
    /// characters, by the HTTP client's own rules (RFC 9110 §5.1, §5.5), so that a request is
    /// never refused or split by what a flag or a settings file gave.
    pub fn parse(spec: &str) -> Result<HostHeader, String> {
        let shape = || {
            "expected 'HOST: NAME: VALUE' (the header NAME: VALUE, sent to HOST only)".to_owned()
        };
        // The host ends at the first colon followed by a space (host:port has none).
        let (host, header) = spec.split_once(": ").ok_or_else(shape)?;
        let (name, value) = header.split_once(':').ok_or_else(shape)?;
        let (host, name, value) = (host.trim(), name.trim(), value.trim());
        if host.is_empty() || host.contains(['/', ' ']) {
            return Err(shape());
        }
        let host = HostPattern::parse(host).map_err(|why| format!("the host {why}"))?;
        let name = ureq::http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("\"{name}\" is not a header name"))?;
        let value = ureq::http::HeaderValue::from_str(value)
            .map_err(|_| "the value holds a control character (CR, LF, …)".to_owned())?;
        Ok(HostHeader { host, name, value })
    }

    /// Whether this header goes with a request for `target`.
    fn applies_to(&self, target: &Target) -> bool {
        self.host.matches(target)
    }
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
    /// Not requested, and why: an address that is not globally reachable, a redirect to an
    /// excluded URL (the verdict `excluded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// Not settled, and why: `--max-time` passed (the verdict `not-checked`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_checked: Option<String>,
    /// The URL is not one a request can be made for (or a malformed mailto:/tel:).
    #[serde(skip)]
    pub bad_address: bool,
    /// The refusal was of an address's class (`--allow-private` would request it).
    #[serde(skip)]
    pub private: bool,
}

impl Answer {
    fn bad_address(e: impl Into<String>) -> Answer {
        Answer {
            bad_address: true,
            error: Some(e.into()),
            ..Answer::default()
        }
    }

    fn refused(refused: &address::Refused) -> Answer {
        Answer {
            excluded: Some(refused.to_string()),
            private: true,
            ..Answer::default()
        }
    }

    /// Whether the cache keeps it: an answer that will likely be the same tomorrow (not an
    /// error, a 429 or a 5xx, nor a fragment left unchecked), and made by a request (not a
    /// refusal, which depends on the run's flags).
    fn lasting(&self) -> bool {
        self.error.is_none()
            && self.excluded.is_none()
            && self.not_checked.is_none()
            && self.status.is_some_and(|s| s != 408 && s != 429 && s < 500)
            && !matches!(self.fragment, Some(Fragment::NotChecked(_)))
    }
}

/// The verdict on one URL: what the report says of every link to it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Outcome {
    /// The URL requested (after `--remap`, as the URL Standard writes it, without the
    /// fragment).
    pub url: String,
    #[serde(flatten)]
    pub answer: Answer,
    /// From the cache file: no request was made.
    pub cached: bool,
    /// RFC 3986 reads another host in the URL as written: that host (the request went where
    /// the URL Standard reads it, without `--header`s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rfc3986_host: Option<String>,
    #[serde(skip)]
    pub verdict: Verdict,
}

impl Outcome {
    fn new(url: &str, answer: Answer, cached: bool, accept: &Accept) -> Outcome {
        let verdict = match (answer.status, &answer.fragment) {
            _ if answer.excluded.is_some() => Verdict::Excluded,
            _ if answer.not_checked.is_some() => Verdict::NotChecked,
            (Some(s), _) if !accept.accepts(s) => Verdict::HttpError,
            (Some(_), Some(Fragment::Missing)) => Verdict::MissingFragment,
            (Some(_), Some(Fragment::NotChecked(_))) => Verdict::NotChecked,
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
            rfc3986_host: None,
            verdict,
        }
    }

    /// What the report says after the target: `404 Not Found`, `connection refused`, the
    /// redirects, `(cached)`.
    pub fn detail(&self) -> String {
        let a = &self.answer;
        let mut text = match (a.status, &a.error, &a.excluded, &a.not_checked) {
            (_, _, Some(why), _) | (_, _, _, Some(why)) | (_, Some(why), ..) => why.clone(),
            (Some(s), None, None, None) => status_text(s),
            (None, None, None, None) => String::new(),
        };
        match &a.fragment {
            Some(Fragment::Missing) => text.push_str(", no such id in the page"),
            Some(Fragment::NotChecked(why)) => text.push_str(&format!(", fragment {why}")),
            _ => {}
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

/// One URL of the run, read: the page requested (its key in the cache and in `pages`) and the
/// fragment asked of it; or the answer it gets without a request.
enum Reading {
    Page {
        target: Target,
        fragment: Option<String>,
        /// RFC 3986 reads another host in the URL as written (see [`Target::other_reading`]).
        other: Option<String>,
    },
    /// Answered without a request; with the URL as it would have been requested, when it is
    /// one.
    Settled(Answer, Option<Target>),
}

/// `url` as the run reads it: [`Target`], the address policy on the host it names, and the
/// exclude patterns on the URL as it would be requested.
fn read(url: &str, config: &Config, excluded: &dyn Fn(&str) -> bool) -> Reading {
    let target = match Target::parse(url) {
        Ok(t) => t,
        Err(e) => {
            return Reading::Settled(
                Answer::bad_address(format!("not a URL a request can be made for: {e}")),
                None,
            )
        }
    };
    if !config.allow_private {
        if let Some(refused) = address::host_refusal(&target.host()) {
            return Reading::Settled(Answer::refused(&refused), Some(target));
        }
    }
    if excluded(target.request()) {
        let answer = Answer {
            excluded: Some(format!(
                "excluded as requested: {} (--exclude, .linkbaseignore)",
                target.request()
            )),
            ..Answer::default()
        };
        return Reading::Settled(answer, Some(target));
    }
    let other = target.other_reading(url);
    // The fragment as written: ids are matched as the page's own links match them.
    let fragment = url.split_once('#').map(|(_, f)| f.to_owned());
    Reading::Page {
        target,
        fragment,
        other,
    }
}

/// Checks every URL (http(s) fetched, mailto:/tel: by syntax), each distinct one once; reads
/// and updates the cache. `excluded` is the run's exclude rule, applied again to each URL as
/// it is requested and to every redirect's target.
pub fn check(
    urls: BTreeSet<String>,
    config: &Config,
    excluded: &(dyn Fn(&str) -> bool + Sync),
    progress: &dyn Progress,
) -> Result<Results, Fatal> {
    let mut results = Results::default();
    // Pages to request, by the URL requested: its target, whether some link names it without
    // a fragment, the fragments asked of it, and the URLs (as written) that name it.
    let mut pages: BTreeMap<String, Page> = BTreeMap::new();
    let mut settled_keys: BTreeSet<String> = BTreeSet::new();
    // URLs whose host RFC 3986 reads otherwise: that host, and the one requested.
    let mut others: HashMap<String, (String, String)> = HashMap::new();
    for url in urls {
        match scheme(&url).as_deref() {
            Some("mailto" | "tel") => {
                let answer = syntax(&url);
                let outcome = Outcome::new(&url, answer, false, &config.accept);
                results.by_url.insert(url, outcome);
            }
            _ => match read(&url, config, excluded) {
                Reading::Settled(answer, target) => {
                    let mut outcome = Outcome::new(&url, answer, false, &config.accept);
                    if let Some(target) = target {
                        outcome.url = target.request().to_owned();
                        // What the cache knows of it stays in the file for a run that asks.
                        let fragment = url.split_once('#').map(|(_, f)| f);
                        settled_keys.insert(match fragment {
                            Some(f) => format!("{target}#{f}"),
                            None => target.request().to_owned(),
                        });
                    }
                    results.by_url.insert(url, outcome);
                }
                Reading::Page {
                    target,
                    fragment,
                    other,
                } => {
                    if let Some(host) = other {
                        others.insert(url.clone(), (host, target.host_key().to_owned()));
                    }
                    let page = pages
                        .entry(target.request().to_owned())
                        .or_insert_with(|| Page::new(target));
                    page.asked_by(url, fragment);
                }
            },
        }
    }
    let mut said: Vec<_> = others.iter().collect();
    said.sort();
    for (url, (host, requested)) in said {
        eprintln!(
            "linkbase: {}: RFC 3986 reads the host {} in it, browsers {requested}: requested \
             where browsers go, without --header",
            linkbase::text::escape_controls(url),
            linkbase::text::escape_controls(host),
        );
    }
    let mut cache = match &config.cache {
        Some((file, max_age)) => {
            let mut wanted: BTreeSet<String> = pages.values().flat_map(Page::keys).collect();
            wanted.append(&mut settled_keys);
            Cache::load(file, *max_age, &wanted, config.allow_private)
        }
        None => Cache::default(),
    };
    // Whatever the cache has is not requested.
    let mut jobs: Vec<Job> = Vec::new();
    for (_, mut page) in pages {
        page.take_cached(&cache, &config.accept, &mut results);
        if let Some(job) = page.into_job() {
            jobs.push(job);
        }
    }
    progress.start("check: online", jobs.len());
    let fetched = fetch_all(jobs, config, excluded, progress);
    let now = unix_now();
    for (job, page, per_fragment) in fetched {
        let mut each = |key: String, answer: Answer, names: &[String]| {
            if answer.lasting() {
                cache.put(&key, &answer, now, config.allow_private);
            }
            for url in names {
                let mut outcome = Outcome::new(url, answer.clone(), false, &config.accept);
                outcome.url = job.target.request().to_owned();
                outcome.rfc3986_host = others.get(url).map(|(h, _)| h.clone());
                results.by_url.insert(url.clone(), outcome);
            }
        };
        for (fragment, found) in per_fragment {
            // The link is still judged by its status; the fragment's fate is said, not hidden
            // in the records.
            if let Some(Fragment::NotChecked(why)) = &found {
                eprintln!(
                    "linkbase: {}: fragment {}",
                    linkbase::text::escape_controls(&format!("{}#{fragment}", job.target)),
                    linkbase::text::escape_controls(why)
                );
            }
            let mut answer = page.clone();
            answer.fragment = found;
            let names = job
                .names
                .get(&Some(fragment.clone()))
                .cloned()
                .unwrap_or_default();
            each(format!("{}#{fragment}", job.target), answer, &names);
        }
        // The page itself, when some link names it without a fragment.
        if let Some(names) = job.names.get(&None) {
            each(job.target.request().to_owned(), page, names);
        }
    }
    // Never silent: each URL the address policy kept from being requested is said once.
    let mut refused: Vec<(&String, &Outcome)> = results
        .by_url
        .iter()
        .filter(|(_, o)| o.answer.private)
        .collect();
    refused.sort_by(|a, b| a.0.cmp(b.0));
    for (url, outcome) in refused {
        eprintln!(
            "linkbase: {}: excluded: {}",
            linkbase::text::escape_controls(url),
            linkbase::text::escape_controls(&outcome.detail())
        );
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

/// A page to request: its target, and the URLs (as written) that ask for it, by fragment
/// (`None`: without one).
struct Page {
    target: Target,
    names: BTreeMap<Option<String>, Vec<String>>,
}

impl Page {
    fn new(target: Target) -> Page {
        Page {
            target,
            names: BTreeMap::new(),
        }
    }

    fn asked_by(&mut self, url: String, fragment: Option<String>) {
        self.names.entry(fragment).or_default().push(url);
    }

    /// The cache keys of what is asked: the page, and the page with each fragment.
    fn keys(&self) -> impl Iterator<Item = String> + '_ {
        self.names.keys().map(|f| match f {
            Some(f) => format!("{}#{f}", self.target),
            None => self.target.request().to_owned(),
        })
    }

    /// What the cache answers is answered, and no longer asked.
    fn take_cached(&mut self, cache: &Cache, accept: &Accept, results: &mut Results) {
        let target = &self.target;
        self.names.retain(|fragment, urls| {
            let key = match fragment {
                Some(f) => format!("{target}#{f}"),
                None => target.request().to_owned(),
            };
            let Some(answer) = cache.fresh(&key) else {
                return true;
            };
            for url in urls.iter() {
                let mut outcome = Outcome::new(url, answer.clone(), true, accept);
                outcome.url = target.request().to_owned();
                results.by_url.insert(url.clone(), outcome);
            }
            false
        });
    }

    fn into_job(self) -> Option<Job> {
        if self.names.is_empty() {
            return None;
        }
        Some(Job {
            fragments: self.names.keys().flatten().cloned().collect(),
            target: self.target,
            names: self.names,
            head: None,
        })
    }
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
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
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
        let t = |u: &str| Target::parse(u).unwrap();
        let h = HostHeader::parse("api.example.com: Authorization: Bearer a:b").unwrap();
        assert_eq!(h.name, "authorization");
        assert_eq!(h.value, "Bearer a:b");
        assert!(h.applies_to(&t("https://api.example.com/")));
        assert!(h.applies_to(&t("https://API.example.com:8443/")));
        assert!(!h.applies_to(&t("https://example.com/")));
        // The host a browser reads, not RFC 3986's.
        assert!(!h.applies_to(&t("https://evil.example\\@api.example.com/")));
        let p = HostHeader::parse("127.0.0.1:8080: X-Token: t").unwrap();
        assert!(p.applies_to(&t("http://127.0.0.1:8080/")));
        assert!(!p.applies_to(&t("http://127.0.0.1:8081/")));
        let w = HostHeader::parse("*.example.com: X: y").unwrap();
        assert!(
            w.applies_to(&t("http://a.example.com/")) && !w.applies_to(&t("http://example.com/"))
        );
        for (spec, why) in [
            ("Authorization: Bearer x", "expected 'HOST: NAME: VALUE'"),
            ("h: Bad Name: x", "\"Bad Name\" is not a header name"),
            (
                "h: X: a\r\nInjected: 1",
                "the value holds a control character",
            ),
            ("h:1:2: X: y", "the host"),
        ] {
            let e = HostHeader::parse(spec).unwrap_err();
            assert!(e.starts_with(why), "{spec:?}: {e}");
        }
        assert!(check_user_agent("probe/1.0 (+https://x.example/)").is_ok());
        assert!(check_user_agent("a\r\nX-Injected: 1").is_err());
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
