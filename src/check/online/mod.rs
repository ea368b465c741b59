//! `check --online`: the links that leave the site, fetched. Every distinct
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

pub mod address;
mod answer;
mod cache;
mod config;
mod fetch;
mod run;
mod schedule;
pub mod target;

pub(crate) use answer::wanted;
pub use answer::{Answer, Fragment, Hop, Outcome, Results};
pub use config::{
    bounded_duration, check_user_agent, request_timeout, Accept, CacheFile, Config, HostHeader,
    Tls, CACHE_FILE, MAX_HOST_INTERVAL, MAX_PAGE, MAX_RETRY_AFTER, MAX_RETRY_WAIT, MAX_RUN_TIME,
    MAX_TIMEOUT,
};
pub use run::check;
pub use target::{HostPattern, Target};

#[cfg(test)]
mod tests;
