//! The online check of a run: every URL read once, settled without a request where it can be
//! (an address refused, an exclusion, the cache, `mailto:`/`tel:` syntax), the rest fetched.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::check::settings::Progress;

use super::address;
use super::answer::*;
use super::cache::*;
use super::config::*;
use super::fetch::fetch_all;
use super::schedule::Job;
use super::target::Target;

/// One URL of the run, read: the page requested (its key in the cache and in `pages`) and the
/// fragment asked of it; or the answer it gets without a request.
pub(super) enum Reading {
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
pub(super) fn read(url: &str, config: &Config, excluded: &dyn Fn(&str) -> bool) -> Reading {
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
    say: &mut dyn FnMut(&str),
) -> Results {
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
        say(&format!(
            "{}: RFC 3986 reads the host {} in it, browsers {requested}: requested \
             where browsers go, without --header",
            crate::text::escape_controls(url),
            crate::text::escape_controls(host),
        ));
    }
    let mut cache = match &config.cache {
        Some((file, max_age)) => {
            let mut wanted: BTreeSet<String> = pages.values().flat_map(Page::keys).collect();
            wanted.append(&mut settled_keys);
            Cache::load(file, *max_age, &wanted, config.allow_private, say)
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
                say(&format!(
                    "{}: fragment {}",
                    crate::text::escape_controls(&format!("{}#{fragment}", job.target)),
                    crate::text::escape_controls(why)
                ));
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
        say(&format!(
            "{}: excluded: {}",
            crate::text::escape_controls(url),
            crate::text::escape_controls(&outcome.detail())
        ));
    }
    if let Some((file, _)) = &config.cache {
        if let Err(e) = cache.save(file, say) {
            say(&format!(
                "{}: the cache was not written: {e}",
                file.path().display()
            ));
        }
    }
    results
}

/// A page to request: its target, and the URLs (as written) that ask for it, by fragment
/// (`None`: without one).
pub(super) struct Page {
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
pub(super) fn syntax(url: &str) -> Answer {
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

pub(super) fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}
