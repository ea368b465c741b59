//! The cache file: statuses kept per URL with the time they were asked, read without following
//! a symbolic link, written through a temporary file and a rename.
//!
//! Memory follows the run, not the file: the file is read as a stream and only the entries of
//! the run's URLs are kept (a file of a million entries costs the time to read it, not its
//! size), and the file written holds the run's URLs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use super::answer::*;
use super::config::*;

/// The cache file: per URL as requested (fragment included), when it was checked and its
/// answer.
#[derive(Debug, Default, serde::Serialize)]
pub(super) struct Cache {
    /// The file format; another one is read as empty.
    pub(super) version: u32,
    pub(super) entries: BTreeMap<String, Entry>,
    /// This run allows private addresses: entries asked with them may be used.
    #[serde(skip)]
    pub(super) allow_private: bool,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Entry {
    /// Seconds since 1970 (UTC).
    pub(super) checked: u64,
    /// Asked with `--allow-private`: used only by a run that allows it too (the same URL may
    /// be refused otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) allow_private: bool,
    #[serde(flatten)]
    pub(super) answer: Answer,
}

pub(super) const CACHE_VERSION: u32 = 1;

/// What of the file is kept while it is read.
pub(super) struct Keep<'a> {
    wanted: &'a BTreeSet<String>,
    now: u64,
    max_age: u64,
}

impl Keep<'_> {
    fn keeps(&self, key: &str, e: &Entry) -> bool {
        self.wanted.contains(key) && e.checked <= self.now && self.now - e.checked <= self.max_age
    }
}

/// The file's top level: `version`, and `entries` read one at a time.
pub(super) struct FileSeed<'a>(&'a Keep<'a>);

#[derive(Default)]
pub(super) struct Read {
    version: Option<u32>,
    entries: BTreeMap<String, Entry>,
}

impl<'de> DeserializeSeed<'de> for FileSeed<'_> {
    type Value = Read;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Read, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_> {
    type Value = Read;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a linkbase cache (an object with version and entries)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
        let mut read = Read::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => read.version = Some(map.next_value()?),
                "entries" => read.entries = map.next_value_seed(EntriesSeed(self.0))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(read)
    }
}

/// `entries`: each entry of a URL the run asks for read, the others skipped unread.
pub(super) struct EntriesSeed<'a>(&'a Keep<'a>);

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_> {
    type Value = BTreeMap<String, Entry>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_> {
    type Value = BTreeMap<String, Entry>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of URLs")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kept = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if self.0.wanted.contains(&key) {
                let entry: Entry = map.next_value()?;
                if self.0.keeps(&key, &entry) {
                    kept.insert(key, entry);
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(kept)
    }
}

impl Cache {
    /// The cache file's fresh entries for the URLs in `wanted`; a file that is missing, unreadable or
    /// not ours is said (unless missing) and read as empty: the run checks everything again.
    pub(super) fn load(
        file: &CacheFile,
        max_age: Duration,
        wanted: &BTreeSet<String>,
        allow_private: bool,
        say: &mut dyn FnMut(&str),
    ) -> Cache {
        let mut cache = Cache {
            version: CACHE_VERSION,
            entries: BTreeMap::new(),
            allow_private,
        };
        let path = file.path();
        // Never through a symbolic link (the tree may come from elsewhere).
        let opened = match file {
            CacheFile::Below { dir, rel } => crate::fs::open_tree_file(dir, rel),
            CacheFile::Named(p) => {
                if std::fs::symlink_metadata(p).is_err() {
                    return cache;
                }
                crate::fs::open_regular(p, None, false).map(Some)
            }
        };
        let keep = Keep {
            wanted,
            now: unix_now(),
            max_age: max_age.as_secs(),
        };
        let read = opened.and_then(|opened| {
            let Some(f) = opened else {
                return Ok(None);
            };
            let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(f));
            let read = FileSeed(&keep)
                .deserialize(&mut de)
                .and_then(|r| de.end().map(|()| r))
                .map_err(|e| e.to_string())?;
            Ok(Some(read))
        });
        match read {
            Ok(None) => {}
            Ok(Some(read)) if read.version == Some(CACHE_VERSION) => cache.entries = read.entries,
            Ok(Some(read)) => say(&format!(
                "{}: a cache of version {}, not {CACHE_VERSION}; not used (it will be replaced)",
                path.display(),
                read.version.map_or("none".to_owned(), |v| v.to_string())
            )),
            Err(e) => say(&format!(
                "{}: not used as a cache (it will be replaced): {}",
                path.display(),
                crate::text::escape_controls(&crate::text::excerpt(&e, 160))
            )),
        }
        cache
    }

    /// The answer kept for `url`, unless it was asked with private addresses allowed and this
    /// run does not allow them (it is kept in the file all the same).
    pub(super) fn fresh(&self, url: &str) -> Option<&Answer> {
        self.entries
            .get(url)
            .filter(|e| self.allow_private || !e.allow_private)
            .map(|e| &e.answer)
    }

    pub(super) fn put(&mut self, url: &str, answer: &Answer, now: u64, allow_private: bool) {
        self.entries.insert(
            url.to_owned(),
            Entry {
                checked: now,
                allow_private,
                answer: answer.clone(),
            },
        );
    }

    /// Written through a temporary file and a rename; a file below a directory without
    /// following a symbolic link on the way (one at its place is replaced). A temporary file a
    /// killed run left beside a named file is removed, and `say` told.
    pub(super) fn save(&self, file: &CacheFile, say: &mut dyn FnMut(&str)) -> Result<(), String> {
        let mut text = serde_json::to_vec_pretty(self).map_err(|e| e.to_string())?;
        text.push(b'\n');
        let contents = crate::fs::Contents::Bytes(&text);
        match file {
            CacheFile::Below { dir, rel } => {
                let dir = crate::fs::Dir::open(dir, false)?;
                let (dir, name) = dir.file_of(rel, false)?;
                crate::fs::write_in(
                    &dir,
                    name,
                    contents,
                    crate::fs::Target::Output,
                    crate::fs::Durability::Each,
                )
            }
            CacheFile::Named(path) => {
                crate::fs::write(path, contents, crate::fs::Target::Output, &mut |stale| {
                    say(&crate::fs::removed_notice(stale));
                })
            }
        }
    }
}
