//! What `--online` is told: its options read and bounded once ([`Config`]), the statuses it
//! accepts, the headers it sends, the TLS roots it trusts, where its cache is.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::target::{HostPattern, Target};
use crate::check::settings::OnlineOptions;

/// The default cache file, at the root of the checked tree.
pub const CACHE_FILE: &str = ".linkbase-cache.json";

/// The longest `Retry-After` waited for; a longer one ends the retries and is reported.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The most of a remote page read to find a fragment's id; past it the fragment is not checked
/// (said in the record), the link's status still is.
pub const MAX_PAGE: u64 = 8 << 20;

/// Remote pages read for their ids at once: each is read as it arrives, holding its ids and
/// what the walk has not settled (`crate::site::read_page_ids`), so their sum is bounded
/// whatever the concurrency.
pub(super) const MAX_BODIES: usize = 2;

/// The bounds of the durations a command line or a settings file may give: `--timeout`,
/// `--retry-wait`, `--host-interval`, `--max-time`.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);
/// The longest `--retry-wait`.
pub const MAX_RETRY_WAIT: Duration = MAX_RETRY_AFTER;
/// The longest `--host-interval`.
pub const MAX_HOST_INTERVAL: Duration = Duration::from_secs(60);
/// The longest `--max-time`.
pub const MAX_RUN_TIME: Duration = Duration::from_secs(7 * 86_400);

/// What `--online` was told.
#[derive(Debug, Clone)]
pub struct Config {
    /// Statuses that are not broken (`--accept`).
    pub accept: Accept,
    /// Each request's time (`--timeout`).
    pub timeout: Duration,
    /// `--max-time`, and the instant it ends the run's requests.
    pub max_time: Option<(Duration, Instant)>,
    /// Retries of a request (`--max-retries`).
    pub max_retries: u32,
    /// The first retry's wait, doubled each time (`--retry-wait`).
    pub retry_wait: Duration,
    /// Redirects followed (`--max-redirects`).
    pub max_redirects: u32,
    /// Requests at once (`--max-concurrency`).
    pub max_concurrency: usize,
    /// Requests at once to one host (`--host-concurrency`).
    pub host_concurrency: usize,
    /// The least time between two requests to one host (`--host-interval`).
    pub host_interval: Duration,
    /// The `User-Agent` sent.
    pub user_agent: String,
    /// How https servers are verified.
    pub tls: Tls,
    /// Headers sent with the requests to their hosts (`--header`).
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
pub(super) const MAX_CACERT: u64 = 16 << 20;

impl Tls {
    pub(super) fn new(args: &OnlineOptions) -> Result<Tls, String> {
        if args.insecure {
            return Ok(Tls::Insecure);
        }
        let Some(file) = &args.cacert else {
            return Ok(Tls::Mozilla);
        };
        let bad = |why: String| format!("--cacert {}: {why}", file.display());
        let pem = crate::fs::read_named_file(file, MAX_CACERT).map_err(bad)?;
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

    pub(super) fn config(&self) -> ureq::tls::TlsConfig {
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
    /// A file below `dir`, `rel` to it.
    Below {
        /// The directory, the user's.
        dir: PathBuf,
        /// The file, below it.
        rel: PathBuf,
    },
    /// A file the user named.
    Named(PathBuf),
}

impl CacheFile {
    pub(super) fn path(&self) -> PathBuf {
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
    /// `args` checked and bounded, for a check of the tree at `root` (where the default cache
    /// file is).
    ///
    /// # Errors
    /// A value out of its bounds or not of its form, named with its flag.
    pub fn new(args: &OnlineOptions, root: &Path) -> Result<Config, String> {
        let started = Instant::now();
        let duration = |flag: &str, text: &str, max: Option<Duration>| {
            bounded_duration(text, max).map_err(|why| format!("{flag} \"{text}\": {why}"))
        };
        let user_agent = match &args.user_agent {
            Some(ua) => {
                check_user_agent(ua).map_err(|why| format!("--user-agent \"{ua}\": {why}"))?;
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
                .map_err(|why| format!("--accept \"{}\": {why}", args.accept))?,
            timeout: request_timeout(&args.timeout)
                .map_err(|why| format!("--timeout \"{}\": {why}", args.timeout))?,
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
            tls: Tls::new(args)?,
            headers: args
                .headers
                .iter()
                .map(|h| HostHeader::parse(h).map_err(|why| format!("--header \"{h}\": {why}")))
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
    pub(super) fn request_time(&self) -> Duration {
        match self.max_time {
            Some((_, end)) => self
                .timeout
                .min(end.saturating_duration_since(Instant::now())),
            None => self.timeout,
        }
    }

    /// Whether `--max-time` has passed.
    pub(super) fn out_of_time(&self) -> bool {
        self.max_time.is_some_and(|(_, end)| Instant::now() >= end)
    }

    /// The not-checked reason of a URL `--max-time` left.
    pub(super) fn out_of_time_reason(&self) -> String {
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

    /// Whether `status` is accepted.
    pub fn accepts(&self, status: u16) -> bool {
        self.0.iter().any(|&(a, b)| (a..=b).contains(&status))
    }
}

/// `--header 'HOST: NAME: VALUE'`: a header sent to one host only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostHeader {
    pub(super) host: HostPattern,
    pub(super) name: ureq::http::HeaderName,
    pub(super) value: ureq::http::HeaderValue,
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
    pub(super) fn applies_to(&self, target: &Target) -> bool {
        self.host.matches(target)
    }
}

pub(super) fn say_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// Seconds since 1970, now.
pub(super) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
