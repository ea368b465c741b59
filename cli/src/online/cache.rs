//! The cache file: statuses kept per URL with the time they were asked, read without following
//! a symbolic link, written through a temporary file and a rename.

use std::collections::BTreeMap;
use std::io::Read;
use std::time::Duration;

use super::*;

/// The cache file: per URL (fragment included), when it was checked and its answer.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Cache {
    /// The file format; another one is read as empty.
    pub(super) version: u32,
    pub(super) entries: BTreeMap<String, Entry>,
    /// Entries older than this many seconds are neither used nor kept.
    #[serde(skip)]
    pub(super) max_age: u64,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Entry {
    /// Seconds since 1970 (UTC).
    pub(super) checked: u64,
    #[serde(flatten)]
    pub(super) answer: Answer,
}

pub(super) const CACHE_VERSION: u32 = 1;

impl Cache {
    /// The cache file's fresh entries; a file that is missing, unreadable or not ours is said
    /// (unless missing) and read as empty: the run checks everything again.
    pub(super) fn load(file: &CacheFile, max_age: Duration) -> Cache {
        let mut cache = Cache {
            version: CACHE_VERSION,
            entries: BTreeMap::new(),
            max_age: max_age.as_secs(),
        };
        let path = file.path();
        if std::fs::symlink_metadata(&path).is_err() {
            return cache;
        }
        // Never through a symbolic link (the tree may come from elsewhere).
        let read = crate::fsout::open_regular(&path, None, false).and_then(|mut f| {
            let mut text = Vec::new();
            f.read_to_end(&mut text).map_err(|e| e.to_string())?;
            serde_json::from_slice::<Cache>(&text).map_err(|e| e.to_string())
        });
        match read {
            Ok(read) if read.version == CACHE_VERSION => {
                let now = unix_now();
                cache.entries = read
                    .entries
                    .into_iter()
                    .filter(|(_, e)| e.checked <= now && now - e.checked <= cache.max_age)
                    .collect();
            }
            Ok(read) => eprintln!(
                "linkbase: {}: a cache of version {}, not {CACHE_VERSION}; not used (it will be replaced)",
                path.display(),
                read.version
            ),
            Err(e) => eprintln!(
                "linkbase: {}: not used as a cache (it will be replaced): {e}",
                path.display()
            ),
        }
        cache
    }

    pub(super) fn fresh(&self, url: &str) -> Option<&Answer> {
        self.entries.get(url).map(|e| &e.answer)
    }

    pub(super) fn put(&mut self, url: &str, answer: &Answer, now: u64) {
        self.entries.insert(
            url.to_owned(),
            Entry {
                checked: now,
                answer: answer.clone(),
            },
        );
    }

    /// Written through a temporary file and a rename; the tree's own file without following a
    /// symbolic link (one there is replaced).
    pub(super) fn save(&self, file: &CacheFile) -> Result<(), String> {
        let mut text = serde_json::to_vec_pretty(self).map_err(|e| e.to_string())?;
        text.push(b'\n');
        let contents = crate::fsout::Contents::Bytes(&text);
        match file {
            CacheFile::InTree { root } => {
                let dir = crate::fsout::Dir::open(root, false)?;
                crate::fsout::write_in(
                    &dir,
                    std::ffi::OsStr::new(CACHE_FILE),
                    contents,
                    crate::fsout::Target::Output,
                    crate::fsout::Durability::Each,
                )
            }
            CacheFile::Named(path) => {
                crate::fsout::write(path, contents, crate::fsout::Target::Output)
            }
        }
    }
}
