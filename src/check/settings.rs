//! What `--online` is told ([`OnlineOptions`]), and what counts a run's progress
//! ([`Progress`]): the settings every stage of a check reads, the online check included.

use std::path::PathBuf;

/// What `--online` is told, as the command line's flags give it (durations as text: `20s`,
/// `500ms`); checked and bounded by [`check::online::Config::new`](crate::check).
#[derive(Debug, Clone)]
pub struct OnlineOptions {
    /// Statuses that are not broken (`200..=299,403`).
    pub accept: String,
    /// Each request's time.
    pub timeout: String,
    /// The whole online check's time.
    pub max_time: Option<String>,
    /// Retries of a request that timed out or was answered 429, 500, 502, 503, 504.
    pub max_retries: usize,
    /// The first retry's wait (doubled each time).
    pub retry_wait: String,
    /// Redirects followed.
    pub max_redirects: usize,
    /// Requests at once.
    pub max_concurrency: usize,
    /// Requests at once to one host.
    pub host_concurrency: usize,
    /// The least time between two requests to one host.
    pub host_interval: Option<String>,
    /// Requests may go to addresses that are not globally reachable (loopback, private
    /// networks, link-local…): refused by default.
    pub allow_private: bool,
    /// https servers not verified.
    pub insecure: bool,
    /// https servers verified against these CAs (a PEM file) rather than the Mozilla roots.
    pub cacert: Option<PathBuf>,
    /// The `User-Agent` sent (default: `linkbase/VERSION`).
    pub user_agent: Option<String>,
    /// `HOST: NAME: VALUE`: a header sent with the requests to HOST.
    pub headers: Vec<String>,
    /// The cache: `None` off; `Some(None)` the tree's `.linkbase-cache.json`; `Some(Some(FILE))`.
    pub cache: Option<Option<PathBuf>>,
    /// With `cache`'s file: the directory it is confined to (a settings file's own), read and
    /// written without following a symbolic link; `None`: the user named it.
    pub cache_below: Option<PathBuf>,
    /// The age past which a cached verdict is asked again.
    pub max_cache_age: String,
}

impl Default for OnlineOptions {
    /// The command line's defaults.
    fn default() -> Self {
        OnlineOptions {
            accept: "200..=299".to_owned(),
            timeout: "20s".to_owned(),
            max_time: None,
            max_retries: 3,
            retry_wait: "1s".to_owned(),
            max_redirects: 10,
            max_concurrency: 64,
            host_concurrency: 8,
            host_interval: None,
            allow_private: false,
            insecure: false,
            cacert: None,
            user_agent: None,
            headers: Vec::new(),
            cache: None,
            cache_below: None,
            max_cache_age: "1d".to_owned(),
        }
    }
}

/// Something that counts a run's progress (a terminal's bar); called from any thread.
pub trait Progress: Sync {
    /// A new stage of `total` things, called `label`.
    fn start(&self, label: &'static str, total: usize);
    /// One more done.
    fn inc(&self);
    /// The run is over.
    fn finish(&self) {}
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &'static str, _: usize) {}
    fn inc(&self) {}
}
