//! `check --online` (issue 25): the links that leave the site, fetched. Every distinct
//! `http(s)` URL of the run is requested once, on a pool of threads bounded over all hosts and
//! per host; `mailto:` and `tel:` are checked by syntax; a `#fragment` is looked up among the
//! ids of the remote page with the library's own id extraction and id rules (those of local
//! pages). Verdicts can be kept in a cache file so that a rerun makes no request for a URL
//! checked recently.
//!
//! Requests: HEAD first, GET where HEAD is refused or unreliable (see `fetch::HeadTrust`) or
//! a fragment must be found in the body; redirects followed one
//! by one (the chain is reported; a loop or more than `--max-redirects` is unreachable);
//! retries with a doubling wait on 429, 500, 502, 503, 504 and timeouts, a `Retry-After`
//! replacing the wait when it is at most [`MAX_RETRY_AFTER`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use linkbase::site::Verdict;

use crate::Fatal;

mod cache;
mod fetch;
use cache::*;
use fetch::*;

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
    pub tls: Tls,
    pub headers: Vec<HostHeader>,
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

impl Tls {
    fn from_args(args: &crate::args::OnlineArgs) -> Result<Tls, Fatal> {
        if args.insecure {
            return Ok(Tls::Insecure);
        }
        let Some(file) = &args.cacert else {
            return Ok(Tls::Mozilla);
        };
        let bad = |why: String| Fatal(format!("--cacert {}: {why}", file.display()));
        let pem = std::fs::read(file).map_err(|e| bad(e.to_string()))?;
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
            tls: Tls::from_args(args)?,
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
            head: None,
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
                    crate::text::escape_controls(&format!("{}#{fragment}", job.url)),
                    crate::text::escape_controls(why)
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
