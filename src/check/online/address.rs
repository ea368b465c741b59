//! Which addresses a request may go to. By default only globally reachable ones: a checked
//! tree (its links, its redirects, the names its links use) must not make the runner reach
//! its own loopback, its private network or a cloud metadata service (169.254.169.254).
//! Judged twice: on the host as the URL names it (an IP literal in any of the URL Standard's
//! spellings, `localhost`), before any request; and on every address a name resolves to, in the
//! resolver of the HTTP client ([`Guard`]), so that the address connected to is always one that
//! was judged — after every redirect too, since each hop is a request of its own.
//!
//! The ranges are those of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890
//! and its updates) whose "Globally Reachable" is false, and multicast.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not globally reachable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    /// 0.0.0.0, `::` (and the rest of 0.0.0.0/8, "this network", RFC 791).
    Unspecified,
    /// 127.0.0.0/8, `::1`, `localhost` (RFC 6761 §6.3).
    Loopback,
    /// 10/8, 172.16/12, 192.168/16 (RFC 1918), fc00::/7 (RFC 4193), fec0::/10 (site-local).
    Private,
    /// 100.64.0.0/10, carrier-grade NAT (RFC 6598).
    SharedAddressSpace,
    /// 169.254.0.0/16 (RFC 3927), fe80::/10: link-local, where cloud metadata services live.
    LinkLocal,
    /// 192.0.2/24, 198.51.100/24, 203.0.113/24 (RFC 5737), 2001:db8::/32 (RFC 3849).
    Documentation,
    /// 198.18.0.0/15 (RFC 2544), 2001:2::/48 (RFC 5180).
    Benchmarking,
    /// 224.0.0.0/4, ff00::/8.
    Multicast,
    /// 255.255.255.255 (RFC 919).
    Broadcast,
    /// 240.0.0.0/4, 192.0.0.0/24 (RFC 6890), and the IPv6 blocks reserved or not globally
    /// reachable (IPv4-compatible, discard-only, IETF protocol assignments, local NAT64).
    Reserved,
}

impl AddressClass {
    /// The class in words, with an article: "a loopback address".
    pub fn describe(self) -> &'static str {
        match self {
            AddressClass::Unspecified => "an unspecified address",
            AddressClass::Loopback => "a loopback address",
            AddressClass::Private => "a private address",
            AddressClass::SharedAddressSpace => "a shared (carrier-grade NAT) address",
            AddressClass::LinkLocal => "a link-local address",
            AddressClass::Documentation => "a documentation address",
            AddressClass::Benchmarking => "a benchmarking address",
            AddressClass::Multicast => "a multicast address",
            AddressClass::Broadcast => "the broadcast address",
            AddressClass::Reserved => "a reserved address",
        }
    }
}

/// An address refused, and the name or URL host it was reached by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The kind of address it is.
    pub class: AddressClass,
    /// The address (or `localhost`), as said.
    pub address: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): not requested without --allow-private",
            self.class.describe(),
            self.address
        )
    }
}

impl std::error::Error for Refused {}

/// The class of `ip`, or `None` for a globally reachable address.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    use AddressClass as C;
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_unspecified() => C::Unspecified,
        (0, ..) => C::Unspecified,
        (127, ..) => C::Loopback,
        (10, ..) => C::Private,
        (172, 16..=31, _) | (192, 168, _) => C::Private,
        (100, 64..=127, _) => C::SharedAddressSpace,
        (169, 254, _) => C::LinkLocal,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => C::Documentation,
        (198, 18..=19, _) => C::Benchmarking,
        (192, 0, 0) => C::Reserved,
        _ if ip.is_broadcast() => C::Broadcast,
        (224..=239, ..) => C::Multicast,
        (240..=255, ..) => C::Reserved,
        _ => return None,
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    use AddressClass as C;
    let s = ip.segments();
    // Addresses that carry an IPv4 address a connection ends up at: judged by it.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    Some(match s {
        _ if ip.is_unspecified() => C::Unspecified,
        _ if ip.is_loopback() => C::Loopback,
        // NAT64 (RFC 6052): the IPv4 address it translates to.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return classify_v4(embedded(hi, lo)),
        // 6to4 (RFC 3056): the IPv4 address of the relay's other end.
        [0x2002, hi, lo, ..] => return classify_v4(embedded(hi, lo)),
        // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1).
        [0, 0, 0, 0, 0, 0, ..] => C::Reserved,
        [0x64, 0xff9b, 1, ..] => C::Reserved,
        [0x100, 0, 0, 0, ..] => C::Reserved,
        [0x2001, 0xdb8, ..] => C::Documentation,
        [0x2001, 2, 0, ..] => C::Benchmarking,
        // 2001::/23, IETF protocol assignments, but for the blocks the registry says are
        // globally reachable (AMT, AS112-v6, ORCHIDv2).
        [0x2001, 3, ..] | [0x2001, 4, 0x112, ..] | [0x2001, 0x20..=0x2f, ..] => return None,
        [0x2001, 0..=0x1ff, ..] => C::Reserved,
        [0x5f00, ..] => C::Reserved,
        [x, ..] if x & 0xfe00 == 0xfc00 => C::Private,
        [x, ..] if x & 0xffc0 == 0xfec0 => C::Private,
        [x, ..] if x & 0xffc0 == 0xfe80 => C::LinkLocal,
        [x, ..] if x & 0xff00 == 0xff00 => C::Multicast,
        _ => return None,
    })
}

/// The verdict on a host as a URL names it, before any name is resolved: an IP literal by its
/// address (the URL Standard reads `2130706433`, `0x7f.1` and `127.1` as 127.0.0.1 already),
/// `localhost` and its subdomains as loopback (RFC 6761 §6.3); `None` for a name, which is
/// judged on what it resolves to.
pub fn host_refusal(host: &url::Host<&str>) -> Option<Refused> {
    let (class, address) = match host {
        url::Host::Ipv4(ip) => (classify_v4(*ip)?, ip.to_string()),
        url::Host::Ipv6(ip) => (classify_v6(*ip)?, format!("[{ip}]")),
        url::Host::Domain(name) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            let loopback = name.eq_ignore_ascii_case("localhost")
                || name
                    .rsplit_once('.')
                    .is_some_and(|(_, tld)| tld.eq_ignore_ascii_case("localhost"));
            if !loopback {
                return None;
            }
            (AddressClass::Loopback, name.to_ascii_lowercase())
        }
    };
    Some(Refused { class, address })
}

/// The HTTP client's resolver: the system's, with every address that is not globally reachable
/// dropped (unless private addresses are allowed); a name left with none is refused with the
/// class of the first (a [`Refused`] inside the I/O error). The proxy the environment names is
/// the user's and is not judged: through it the proxy resolves names, and only the host as the
/// URL names it is judged ([`host_refusal`]).
#[derive(Debug, Default)]
pub struct Guard {
    /// Requests may go to addresses that are not globally reachable.
    pub allow_private: bool,
    inner: ureq::unversioned::resolver::DefaultResolver,
}

impl Guard {
    /// The guard of a run, allowing private addresses or not.
    pub fn new(allow_private: bool) -> Guard {
        Guard {
            allow_private,
            inner: ureq::unversioned::resolver::DefaultResolver::default(),
        }
    }
}

impl ureq::unversioned::resolver::Resolver for Guard {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        let addrs = self.inner.resolve(uri, config, timeout)?;
        let to_proxy = config.proxy().is_some_and(|p| p.uri() == uri);
        if self.allow_private || to_proxy {
            return Ok(addrs);
        }
        let mut kept = self.inner.empty();
        let mut refused = None;
        for addr in addrs.iter() {
            match classify(addr.ip()) {
                None => kept.push(*addr),
                Some(class) => {
                    refused.get_or_insert_with(|| Refused {
                        class,
                        address: addr.ip().to_string(),
                    });
                }
            }
        }
        match refused {
            Some(refused) if kept.is_empty() => Err(ureq::Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                refused,
            ))),
            _ => Ok(kept),
        }
    }
}

/// The [`Refused`] inside an error of the HTTP client, if the resolver refused the address.
pub fn refused_in(e: &ureq::Error) -> Option<&Refused> {
    match e {
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<Refused>(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use AddressClass as C;

    fn class(ip: &str) -> Option<AddressClass> {
        classify(ip.parse().unwrap())
    }

    #[test]
    fn addresses_by_class() {
        for (ip, expected) in [
            ("0.0.0.0", Some(C::Unspecified)),
            ("0.1.2.3", Some(C::Unspecified)),
            ("127.0.0.1", Some(C::Loopback)),
            ("127.255.0.9", Some(C::Loopback)),
            ("10.1.2.3", Some(C::Private)),
            ("172.16.0.1", Some(C::Private)),
            ("172.31.255.255", Some(C::Private)),
            ("172.32.0.1", None),
            ("192.168.1.1", Some(C::Private)),
            ("100.64.0.1", Some(C::SharedAddressSpace)),
            ("100.128.0.1", None),
            ("169.254.169.254", Some(C::LinkLocal)),
            ("192.0.2.1", Some(C::Documentation)),
            ("198.18.0.1", Some(C::Benchmarking)),
            ("192.0.0.8", Some(C::Reserved)),
            ("224.0.0.1", Some(C::Multicast)),
            ("240.0.0.1", Some(C::Reserved)),
            ("255.255.255.255", Some(C::Broadcast)),
            ("8.8.8.8", None),
            ("93.184.216.34", None),
            ("::", Some(C::Unspecified)),
            ("::1", Some(C::Loopback)),
            ("::ffff:127.0.0.1", Some(C::Loopback)),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::a9fe:a9fe", Some(C::LinkLocal)),
            ("64:ff9b::808:808", None),
            ("2002:7f00:1::", Some(C::Loopback)),
            ("fc00::1", Some(C::Private)),
            ("fd12:3456::1", Some(C::Private)),
            ("fe80::1", Some(C::LinkLocal)),
            ("fec0::1", Some(C::Private)),
            ("ff02::1", Some(C::Multicast)),
            ("2001:db8::1", Some(C::Documentation)),
            ("2001::1", Some(C::Reserved)),
            ("2001:4860:4860::8888", None),
            ("2606:4700::1111", None),
        ] {
            assert_eq!(class(ip), expected, "{ip}");
        }
    }

    /// A name is judged on what it resolves to (here `localhost`, which every system resolves
    /// to a loopback address), past any spelling rule.
    #[test]
    fn names_are_judged_on_their_addresses() {
        use ureq::unversioned::resolver::Resolver;
        let uri: ureq::http::Uri = "http://localhost:9/".parse().unwrap();
        let config = ureq::Agent::config_builder().build();
        let timeout = ureq::unversioned::transport::NextTimeout::default();
        let e = Guard::new(false)
            .resolve(&uri, &config, timeout)
            .unwrap_err();
        let refused = refused_in(&e).unwrap();
        assert_eq!(refused.class, C::Loopback);
        assert!(
            ["127.0.0.1", "::1"].contains(&refused.address.as_str()),
            "{refused}"
        );
        let addrs = Guard::new(true).resolve(&uri, &config, timeout).unwrap();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()));
    }

    #[test]
    fn hosts_as_urls_name_them() {
        let refused = |url: &str| {
            let u = url::Url::parse(url).unwrap();
            host_refusal(&u.host().unwrap()).map(|r| (r.class, r.address))
        };
        let loopback = |a: &str| Some((C::Loopback, a.to_owned()));
        assert_eq!(refused("http://127.0.0.1:8080/"), loopback("127.0.0.1"));
        assert_eq!(refused("http://2130706433/"), loopback("127.0.0.1"));
        assert_eq!(refused("http://0x7f.1/"), loopback("127.0.0.1"));
        assert_eq!(refused("http://127.1/"), loopback("127.0.0.1"));
        assert_eq!(refused("http://LOCALHOST./x"), loopback("localhost"));
        assert_eq!(refused("http://a.b.localhost/"), loopback("a.b.localhost"));
        assert_eq!(refused("http://[::1]/"), loopback("[::1]"));
        assert_eq!(
            refused("http://0.0.0.0/"),
            Some((C::Unspecified, "0.0.0.0".to_owned()))
        );
        assert_eq!(refused("http://example.com/"), None);
        assert_eq!(refused("http://localhost.example/"), None);
    }
}
