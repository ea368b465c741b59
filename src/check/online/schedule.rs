//! The scheduler of requests over hosts (global and per-host limits, intervals, hosts served in
//! turn), and when a HEAD answer stands for a GET's ([`HeadTrust`]).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::answer::*;
use super::config::*;
use super::target::Target;

/// One page to request: its URL (no fragment), the URLs as written that ask for it (by
/// fragment; `None`: without one), the fragments links ask of it.
pub(super) struct Job {
    pub(super) target: Target,
    pub(super) names: BTreeMap<Option<String>, Vec<String>>,
    pub(super) fragments: BTreeSet<String>,
    /// The answer to its HEAD, set aside while another request learns whether HEAD can be
    /// trusted in its directory (see [`HeadTrust`]).
    pub(super) head: Option<Answer>,
}

impl Job {
    /// Whether a `--header` may go with its first request: not when the URL as written names
    /// another host to RFC 3986 than to the URL Standard (see [`Target::other_reading`]).
    pub(super) fn headers_allowed(&self) -> bool {
        self.names
            .values()
            .flatten()
            .all(|url| self.target.other_reading(url).is_none())
    }
}

/// Whether a HEAD answer stands for a GET's, per host and directory. RFC 9110 §9.3.2 says a
/// server answers HEAD as it would GET, but some do not: 405 or 501 (HEAD not implemented), a
/// 403 from bot filters, a 404 from routes that know only GET. So a HEAD answered 405, 501 or
/// 4xx (but 429) is asked again with GET — except a 404 or 410 where an earlier GET in the same
/// directory of the same host confirmed a HEAD 404/410: a missing page is the common answer of
/// a broken link, and checking every one twice doubles the cost of the broken ones (lychee
/// asks only GET; linkinator asks GET again after any non-2xx HEAD). A directory where GET
/// contradicted HEAD is asked with GET alone from then on.
#[derive(Default)]
pub(super) struct HeadTrust {
    pub(super) by_dir: Mutex<HashMap<String, Trust>>,
    /// Told when a directory is no longer `Checking`.
    pub(super) learnt: Condvar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trust {
    /// A GET is confirming a HEAD 404/410 in this directory.
    Checking,
    /// A GET confirmed a HEAD 404/410 here.
    Trusted,
    /// A GET contradicted a HEAD here.
    Distrusted,
}

/// What to do with a HEAD 404/410.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Claim {
    /// Keep it: HEAD's 404s are confirmed here.
    Keep,
    /// Ask GET (this request is the one that learns).
    Verify,
    /// Another request is learning: set the answer aside for now.
    Wait,
}

impl HeadTrust {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Trust>> {
        self.by_dir
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Host and directory of `target`: `h:8080/docs/` for `http://h:8080/docs/a.html?q`.
    pub(super) fn key(target: &Target) -> String {
        let path = crate::UriRef::parse(target.request()).path;
        let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
        format!("{}{dir}", target.host_key())
    }

    pub(super) fn distrusted(&self, target: &Target) -> bool {
        self.lock().get(&Self::key(target)) == Some(&Trust::Distrusted)
    }

    pub(super) fn claim(&self, target: &Target) -> Claim {
        let mut map = self.lock();
        match map.entry(Self::key(target)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(Trust::Checking);
                Claim::Verify
            }
            std::collections::hash_map::Entry::Occupied(o) => match o.get() {
                Trust::Trusted => Claim::Keep,
                Trust::Checking => Claim::Wait,
                Trust::Distrusted => Claim::Verify,
            },
        }
    }

    /// As [`HeadTrust::claim`], but waiting for the request that is learning (for an answer
    /// already set aside once: it is not given back twice).
    pub(super) fn settle(&self, target: &Target) -> Claim {
        let key = Self::key(target);
        let mut map = self.lock();
        while map.get(&key) == Some(&Trust::Checking) {
            map = self
                .learnt
                .wait(map)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        drop(map);
        self.claim(target)
    }

    /// What a GET after a refused HEAD taught: the same status confirms a 404/410; another
    /// status contradicts HEAD; no answer teaches nothing (another request may learn). Only
    /// the request that claimed a directory ends its `Checking`.
    pub(super) fn learn(&self, target: &Target, head: &Answer, get: &Answer) {
        let mut map = self.lock();
        let key = Self::key(target);
        let now = map.get(&key).copied();
        match (head.status, get.status) {
            (Some(h), Some(g)) if h != g => {
                map.insert(key, Trust::Distrusted);
            }
            (Some(404 | 410), Some(_)) if now != Some(Trust::Distrusted) => {
                map.insert(key, Trust::Trusted);
            }
            // The learning request got no answer: the next 404 learns instead.
            (Some(404 | 410), _) if now == Some(Trust::Checking) => {
                map.remove(&key);
            }
            _ => {}
        }
        drop(map);
        self.learnt.notify_all();
    }
}

/// One host: the jobs not started, requests in flight, the earliest start of the next one,
/// and where it stands in the scheduler's sets.
#[derive(Default)]
pub(super) struct Host {
    pub(super) queue: VecDeque<Job>,
    pub(super) in_flight: usize,
    pub(super) next_start: Option<Instant>,
    /// Its key in `ready` or in `later`, when it is in one.
    pub(super) placed: Option<Place>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Ready(Rank),
    Later(Instant),
}

/// The order hosts are served in: the fewest requests in flight, then the most left to do, then
/// the host's name (its id follows the names' order): every host advances together, so the run
/// does not end on a few hosts held to their limit while the other threads have nothing to do.
pub(super) type Rank = (usize, Reverse<usize>, usize);

/// The jobs not started, per host, and every host's state. Handing out a job or a slot costs
/// a logarithm of the number of hosts: the hosts that can take a request now are kept in
/// order (`ready`), those waiting for their interval by time (`later`); a host at its limit is
/// in neither until a request of it ends.
pub(super) struct Scheduler {
    pub(super) state: Mutex<SchedState>,
    pub(super) wake: Condvar,
    pub(super) host_limit: usize,
    pub(super) interval: Duration,
    /// `--max-time`'s end: after it, jobs are handed out without a slot, to be answered
    /// without a request.
    pub(super) deadline: Option<Instant>,
}

#[derive(Default)]
pub(super) struct SchedState {
    pub(super) hosts: Vec<Host>,
    pub(super) ids: HashMap<String, usize>,
    pub(super) ready: BTreeSet<Rank>,
    pub(super) later: BTreeSet<(Instant, usize)>,
    /// Jobs in the queues.
    pub(super) queued: usize,
    /// Past `--max-time`: the host jobs are taken from next.
    pub(super) drain_from: usize,
}

impl SchedState {
    /// Every job, queued by host; host ids in the order of the hosts' keys. No host is placed
    /// yet ([`SchedState::place`]).
    pub(super) fn new(jobs: Vec<Job>) -> SchedState {
        let mut by_host: BTreeMap<String, VecDeque<Job>> = BTreeMap::new();
        for job in jobs {
            by_host
                .entry(job.target.host_key().to_owned())
                .or_default()
                .push_back(job);
        }
        let mut st = SchedState::default();
        for (key, queue) in by_host {
            let id = st.id(&key);
            st.queued += queue.len();
            if let Some(h) = st.hosts.get_mut(id) {
                h.queue = queue;
            }
        }
        st
    }

    pub(super) fn id(&mut self, key: &str) -> usize {
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        let id = self.hosts.len();
        self.hosts.push(Host::default());
        self.ids.insert(key.to_owned(), id);
        id
    }

    /// Puts host `id` where it belongs now: ready, waiting for its interval, or nowhere (no
    /// job left, or at its limit).
    pub(super) fn place(&mut self, id: usize, limit: Option<usize>) {
        let Some(h) = self.hosts.get_mut(id) else {
            return;
        };
        match h.placed.take() {
            Some(Place::Ready(rank)) => {
                self.ready.remove(&rank);
            }
            Some(Place::Later(t)) => {
                self.later.remove(&(t, id));
            }
            None => {}
        }
        if h.queue.is_empty() || limit.is_some_and(|l| h.in_flight >= l) {
            return;
        }
        let place = match h.next_start {
            Some(t) if t > Instant::now() => {
                self.later.insert((t, id));
                Place::Later(t)
            }
            _ => {
                let rank = (h.in_flight, Reverse(h.queue.len()), id);
                self.ready.insert(rank);
                Place::Ready(rank)
            }
        };
        h.placed = Some(place);
    }
}

impl Scheduler {
    pub(super) fn new(jobs: Vec<Job>, config: &Config) -> Scheduler {
        let mut sched = Scheduler {
            state: Mutex::new(SchedState::default()),
            wake: Condvar::new(),
            host_limit: config.host_concurrency,
            interval: config.host_interval,
            deadline: config.max_time.map(|(_, end)| end),
        };
        let mut st = SchedState::new(jobs);
        for id in 0..st.hosts.len() {
            st.place(id, Some(sched.host_limit));
        }
        sched.state = Mutex::new(st);
        sched
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, SchedState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The next job whose host can take a request now, with that request's slot taken (so a
    /// worker never waits on a busy host while another host has work), and whether a slot was
    /// taken (none once `--max-time` has passed); `None` when all are handed out.
    pub(super) fn next_job(&self) -> Option<(Job, bool)> {
        let limit = Some(self.host_limit);
        let mut st = self.lock();
        loop {
            if st.queued == 0 {
                return None;
            }
            let now = Instant::now();
            if self.out_of_time() {
                // Host by host from where the last one was taken (each scanned once, whatever
                // the number of hosts), then from the start for a job given back meanwhile.
                let n = st.hosts.len();
                let from = st.drain_from.min(n);
                let id = (from..n)
                    .chain(0..from)
                    .find(|&i| st.hosts.get(i).is_some_and(|h| !h.queue.is_empty()))?;
                st.drain_from = id;
                let job = st.hosts.get_mut(id).and_then(|h| h.queue.pop_front());
                st.queued -= 1;
                st.place(id, limit);
                return job.map(|j| (j, false));
            }
            // Hosts whose interval has passed are ready.
            while let Some(&(t, id)) = st.later.first() {
                if t > now {
                    break;
                }
                st.place(id, limit);
            }
            if let Some(&(_, _, id)) = st.ready.first() {
                let interval = self.interval;
                let job = st.hosts.get_mut(id).and_then(|h| {
                    h.in_flight += 1;
                    h.next_start = Some(now + interval);
                    h.queue.pop_front()
                });
                st.queued -= 1;
                st.place(id, limit);
                if let Some(job) = job {
                    return Some((job, true));
                }
                continue;
            }
            let wake_at = [st.later.first().map(|&(t, _)| t), self.deadline]
                .into_iter()
                .flatten()
                .min();
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

    /// Takes a request slot of the host `key` (waiting for one, and for the host's interval);
    /// `false` when `--max-time` passed first.
    pub(super) fn acquire(&self, key: &str) -> bool {
        let mut st = self.lock();
        loop {
            if self.out_of_time() {
                return false;
            }
            let id = st.id(key);
            let limit = self.host_limit;
            let interval = self.interval;
            let start = st.hosts.get_mut(id).and_then(|h| {
                (h.in_flight < limit).then(|| {
                    let now = Instant::now();
                    let start = h.next_start.map_or(now, |t| t.max(now));
                    h.next_start = Some(start + interval);
                    h.in_flight += 1;
                    start
                })
            });
            if let Some(start) = start {
                st.place(id, Some(limit));
                drop(st);
                let wait = start.saturating_duration_since(Instant::now());
                let wait = match self.deadline {
                    Some(d) => wait.min(d.saturating_duration_since(Instant::now())),
                    None => wait,
                };
                std::thread::sleep(wait);
                return true;
            }
            st = match self.deadline {
                Some(d) => {
                    self.wake
                        .wait_timeout(st, d.saturating_duration_since(Instant::now()))
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

    /// A job handed out and given back: to the end of its host's queue.
    pub(super) fn requeue(&self, job: Job) {
        let mut st = self.lock();
        let id = st.id(job.target.host_key());
        if let Some(h) = st.hosts.get_mut(id) {
            h.queue.push_back(job);
        }
        st.queued += 1;
        st.place(id, Some(self.host_limit));
        drop(st);
        self.wake.notify_all();
    }

    pub(super) fn release(&self, key: &str) {
        let mut st = self.lock();
        if let Some(&id) = st.ids.get(key) {
            if let Some(h) = st.hosts.get_mut(id) {
                h.in_flight = h.in_flight.saturating_sub(1);
            }
            st.place(id, Some(self.host_limit));
        }
        drop(st);
        self.wake.notify_all();
    }
}
