//! What a URL got: its answer (status, redirects, error, the fragment's fate) and the verdict
//! that makes of it ([`Outcome`]), by URL ([`Results`]).

use std::collections::HashMap;

use crate::site::Verdict;

use super::address;
use super::config::*;

/// One redirect: its status and where it led (resolved).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hop {
    /// The status of the answer that redirected.
    pub status: u16,
    /// Where it led (resolved).
    pub to: String,
}

/// What became of a fragment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fragment {
    /// The page has the id.
    Found,
    /// The page was read and has no such id.
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
    /// What became of the fragment asked, when one was.
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
    pub(super) fn bad_address(e: impl Into<String>) -> Answer {
        Answer {
            bad_address: true,
            error: Some(e.into()),
            ..Answer::default()
        }
    }

    pub(super) fn refused(refused: &address::Refused) -> Answer {
        Answer {
            excluded: Some(refused.to_string()),
            private: true,
            ..Answer::default()
        }
    }

    /// Whether the cache keeps it: an answer that will likely be the same tomorrow (not an
    /// error, a 429 or a 5xx, nor a fragment left unchecked), and made by a request (not a
    /// refusal, which depends on the run's flags).
    pub(super) fn lasting(&self) -> bool {
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
    /// What the URL got.
    pub answer: Answer,
    /// From the cache file: no request was made.
    pub cached: bool,
    /// RFC 3986 reads another host in the URL as written: that host (the request went where
    /// the URL Standard reads it, without `--header`s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rfc3986_host: Option<String>,
    #[serde(skip)]
    /// The link's verdict, made of the answer.
    pub verdict: Verdict,
}

impl Outcome {
    pub(super) fn new(url: &str, answer: Answer, cached: bool, accept: &Accept) -> Outcome {
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

pub(super) fn status_text(status: u16) -> String {
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
    pub(super) by_url: HashMap<String, Outcome>,
}

impl Results {
    /// The outcome of `url` (as the link has it, after `--remap`).
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

pub(super) fn scheme(url: &str) -> Option<String> {
    let (s, _) = url.split_once(':')?;
    (!s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)))
    .then(|| s.to_ascii_lowercase())
}
