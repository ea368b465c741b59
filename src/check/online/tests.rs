//! The online check's rules, one by one.

#![allow(clippy::unwrap_used)]
use std::time::Duration;

use super::config::*;
use super::fetch::{http_date, retry_after_wait};
use super::run::*;
use super::target::Target;

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
    assert!(w.applies_to(&t("http://a.example.com/")) && !w.applies_to(&t("http://example.com/")));
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
