//! A URL as the request is made for it: one reading, the URL Standard's (the `url` crate, as a
//! browser reads a link), from which every decision about the request is taken — the host its
//! `--header`s are scoped to, the host whose limits it counts against, the address policy, the
//! exclude patterns it is matched against, the key of the cache — and the request itself. A
//! redirect's target is read the same way, against the URL it answered.
//!
//! RFC 3986 reads some authorities otherwise (`http://a:1\@b:2/` is host `b` to it, `a` to a
//! browser, which ends the authority at `\`): such a link is still checked where the request
//! goes, but said, and sent without any `--header` ([`Target::other_reading`]).

use std::fmt;

/// A URL requests are made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    url: url::Url,
    /// `host:port`: the per-host key (see [`Target::host_key`]).
    key: String,
}

impl Target {
    /// An http(s) URL with a host, or why it is not one a request can be made for.
    pub fn parse(text: &str) -> Result<Target, String> {
        let url = url::Url::parse(text).map_err(|e| e.to_string())?;
        Target::from_url(url)
    }

    /// `location` (a redirect's) read against this URL; the fragment dropped, as it is not
    /// requested.
    pub fn resolve(&self, location: &str) -> Result<url::Url, String> {
        let mut url = self.url.join(location).map_err(|e| e.to_string())?;
        url.set_fragment(None);
        Ok(url)
    }

    /// `url` as a target: http(s), with a host.
    pub fn from_url(url: url::Url) -> Result<Target, String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("{}: not http(s)", url.scheme()));
        }
        let host = url.host_str().filter(|h| !h.is_empty()).ok_or("no host")?;
        let port = url.port_or_known_default().ok_or("no port")?;
        let key = format!("{}:{port}", fold(host));
        Ok(Target { url, key })
    }

    /// The host and port requests count against: the host as the URL Standard writes it (lower
    /// case, IDNA, every spelling of an IPv4 address as its dotted form), without a trailing
    /// dot, and the port with the scheme's default filled in. No two spellings of one host get
    /// two keys.
    pub fn host_key(&self) -> &str {
        &self.key
    }

    /// The host, as the URL Standard reads it.
    pub fn host(&self) -> url::Host<&str> {
        self.url.host().unwrap_or(url::Host::Domain(""))
    }

    /// The host as a `--header` matches it (see [`Target::host_key`]).
    pub fn host_name(&self) -> &str {
        self.key.rsplit_once(':').map_or(&self.key, |(h, _)| h)
    }

    /// The port requested: the URL's, or its scheme's default.
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or(0)
    }

    /// The URL as it is requested (and as exclude patterns and the cache see it): without its
    /// fragment.
    pub fn request(&self) -> &str {
        let s = self.url.as_str();
        s.split_once('#').map_or(s, |(u, _)| u)
    }

    /// Where this URL's authority ends up when `text` (the URL as written) is read by RFC 3986
    /// instead (Appendix B: the authority runs to the next `/`, `?` or `#`, its user
    /// information to the last `@`), when that is another host or port than the one requested:
    /// `text`'s host as RFC 3986 reads it, for the diagnostic.
    pub fn other_reading(&self, text: &str) -> Option<String> {
        let authority = crate::UriRef::parse(text.trim()).authority;
        let Some(authority) = authority else {
            return Some("no host".to_owned());
        };
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = split_port(hostport);
        let port = match port {
            None | Some("") => self.url.port_or_known_default(),
            Some(p) => p.parse::<u16>().ok(),
        };
        let same = url::Host::parse(host)
            .ok()
            .is_some_and(|h| fold(&h.to_string()) == self.host_name())
            && port == Some(self.port());
        (!same).then(|| hostport.to_owned())
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.request())
    }
}

/// `host[:port]` split (an IPv6 literal keeps its brackets).
pub fn split_port(hostport: &str) -> (&str, Option<&str>) {
    if hostport.starts_with('[') {
        return match hostport.find(']') {
            Some(end) => {
                let (host, rest) = hostport.split_at(end + 1);
                (host, rest.strip_prefix(':'))
            }
            None => (hostport, None),
        };
    }
    match hostport.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (hostport, None),
    }
}

/// A host name without the trailing dot of a fully qualified name (`example.com.` is the host
/// `example.com`).
fn fold(host: &str) -> &str {
    match host.strip_suffix('.') {
        Some(h) if !h.is_empty() => h,
        _ => host,
    }
}

/// A host a `--header` is scoped to: `example.com`, `example.com:8080`, `[::1]:80`, or
/// `*.example.com` (its subdomains), read as the URL Standard reads a host (so `EXAMPLE.com`,
/// `bücher.example` and `2130706433` name what a URL spelling them names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    host: String,
    port: Option<u16>,
    subdomains: bool,
}

impl HostPattern {
    /// `HOST` or `*.DOMAIN`, or why not.
    pub fn parse(spec: &str) -> Result<HostPattern, String> {
        let (subdomains, rest) = match spec.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, spec),
        };
        let (host, port) = split_port(rest);
        let port = match port {
            None => None,
            Some(p) => Some(
                p.parse::<u16>()
                    .map_err(|_| format!("\"{p}\" is not a port"))?,
            ),
        };
        let parsed = url::Host::parse(host).map_err(|e| format!("\"{host}\": {e}"))?;
        if subdomains && !matches!(parsed, url::Host::Domain(_)) {
            return Err("*. goes before a domain name".to_owned());
        }
        Ok(HostPattern {
            host: fold(&parsed.to_string()).to_owned(),
            port,
            subdomains,
        })
    }

    /// Whether `target`'s host is this pattern's.
    pub fn matches(&self, target: &Target) -> bool {
        let host = target.host_name();
        let host_ok = if self.subdomains {
            host.strip_suffix(self.host.as_str())
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.'))
        } else {
            host == self.host
        };
        host_ok && self.port.is_none_or(|p| p == target.port())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn key(url: &str) -> String {
        Target::parse(url).unwrap().host_key().to_owned()
    }

    #[test]
    fn every_spelling_of_a_host_is_one_key() {
        for url in [
            "http://127.0.0.1/",
            "http://127.0.0.1:80/",
            "http://2130706433/x",
            "HTTP://0x7f.0.0.1/",
            "http://127.1/",
            "http://user:pw@127.0.0.1/",
            "http://127.0.0.1\\x",
            "http://127.0.0.1.:80/",
        ] {
            assert_eq!(key(url), "127.0.0.1:80", "{url}");
        }
        assert_eq!(key("https://Example.COM./a"), "example.com:443");
        assert_eq!(key("https://bücher.example/"), "xn--bcher-kva.example:443");
        assert_eq!(key("http://[::1]:8080/"), "[::1]:8080");
        assert!(Target::parse("ftp://example.com/").is_err());
        assert!(Target::parse("mailto:a@b").is_err());
        assert!(Target::parse("http:///x").is_ok_and(|t| t.host_key() == "x:80"));
    }

    #[test]
    fn the_other_grammar_is_compared() {
        let t = |u: &str| (Target::parse(u).unwrap(), u.to_owned());
        // RFC 3986 and the URL Standard agree here (spellings aside).
        for u in [
            "http://a.example/x",
            "http://USER@A.example:80/x",
            "http://2130706433/",
            "https://bücher.example/",
            "http://a.example./",
        ] {
            let (target, text) = t(u);
            assert_eq!(target.other_reading(&text), None, "{u}");
        }
        // The backslash ends the authority for a browser only.
        let (target, text) = t("http://127.0.0.1:1\\@localhost:2/x");
        assert_eq!(target.host_key(), "127.0.0.1:1");
        assert_eq!(target.request(), "http://127.0.0.1:1/@localhost:2/x");
        assert_eq!(target.other_reading(&text).as_deref(), Some("localhost:2"));
        let (target, text) = t("http:\\\\evil.example\\x");
        assert_eq!(target.host_key(), "evil.example:80");
        assert_eq!(target.other_reading(&text).as_deref(), Some("no host"));
    }

    #[test]
    fn header_hosts_match_as_urls_read_them() {
        let target = |u: &str| Target::parse(u).unwrap();
        let p = HostPattern::parse("API.example.com").unwrap();
        assert!(p.matches(&target("https://api.example.com/x")));
        assert!(p.matches(&target("http://api.example.com.:8080/x")));
        assert!(!p.matches(&target("https://example.com/")));
        let p = HostPattern::parse("127.0.0.1:8080").unwrap();
        assert!(p.matches(&target("http://2130706433:8080/")));
        assert!(!p.matches(&target("http://127.0.0.1:8081/")));
        let p = HostPattern::parse("example.com:443").unwrap();
        assert!(p.matches(&target("https://example.com/")));
        assert!(!p.matches(&target("http://example.com/")));
        let p = HostPattern::parse("*.example.com").unwrap();
        assert!(p.matches(&target("https://a.b.example.com/")));
        assert!(!p.matches(&target("https://example.com/")));
        assert!(!p.matches(&target("https://badexample.com/")));
        let p = HostPattern::parse("[::1]").unwrap();
        assert!(p.matches(&target("http://[0:0::1]:9/")));
        assert!(HostPattern::parse("*.127.0.0.1").is_err());
        assert!(HostPattern::parse("a b").is_err());
        assert!(HostPattern::parse("h:99999").is_err());
    }
}
