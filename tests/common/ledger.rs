//! The one format of the expected-failure ledgers, and its one reader, included
//! by every suite that keeps a ledger (`#[path]`: the conformance and WPT trials, the HTML
//! goldens, the CLI's MHTML cases):
//!
//! - one trial name per line, exactly as the runner prints it (surrounding whitespace trimmed);
//! - a line whose first non-blank character is `#` is a comment (say why an entry is there in a
//!   comment above it); blank lines are ignored;
//! - a listed trial must fail: one that passes fails the suite (remove its line with the fix),
//!   and so does a listed name that names no trial (the ledger cannot go stale).
#![allow(dead_code)] // each suite uses its part

use std::collections::BTreeSet;
use std::path::Path;

/// The names a ledger lists, and where it is (for messages).
#[derive(Debug, Clone)]
pub struct Ledger {
    file: String,
    names: BTreeSet<String>,
}

impl Ledger {
    /// Reads the ledger at `path`; panics when it cannot be read (a ledger that is not there
    /// would pass every listed failure as a failure).
    pub fn read(path: impl AsRef<Path>) -> Ledger {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("ledger {}: {e}", path.display()));
        Ledger::parse(&path.display().to_string(), &text)
    }

    /// The ledger of `text`, named `file` in messages.
    pub fn parse(file: &str, text: &str) -> Ledger {
        let names = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect();
        Ledger {
            file: file.to_owned(),
            names,
        }
    }

    /// Whether `name` is listed (expected to fail).
    pub fn lists(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The verdict for the trial `name`, to be given its outcome (see [`Verdict::judge`]).
    pub fn verdict(&self, name: &str) -> Verdict {
        Verdict {
            listed: self.lists(name),
            file: self.file.clone(),
        }
    }

    /// The verdict of an outcome of the trial `name`.
    pub fn judge(&self, name: &str, outcome: Result<(), String>) -> Result<(), String> {
        self.verdict(name).judge(outcome)
    }

    /// Listed names starting with `prefix` that are not among `ran`: one message each.
    pub fn stale<'a>(&self, prefix: &str, ran: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let ran: BTreeSet<&str> = ran.into_iter().collect();
        self.names
            .iter()
            .filter(|n| n.starts_with(prefix) && !ran.contains(n.as_str()))
            .map(|n| format!("{} lists {n:?}, which names no trial", self.file))
            .collect()
    }

    /// The listed names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }
}

/// Whether one trial is listed, detached from the ledger (for a trial's closure).
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The trial is listed: it must fail.
    pub listed: bool,
    file: String,
}

impl Verdict {
    /// An unlisted trial keeps its outcome; a listed one passes by failing, and fails by
    /// passing.
    pub fn judge(&self, outcome: Result<(), String>) -> Result<(), String> {
        match (self.listed, outcome) {
            (false, outcome) => outcome,
            (true, Err(_)) => Ok(()),
            (true, Ok(())) => Err(format!(
                "passes, but {} lists it as an expected failure: remove its line",
                self.file
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn listed_trials_must_fail_and_entries_must_name_trials() {
        use super::Ledger;
        let ledger = Ledger::parse(
            "L",
            "# why a fails\n  a  \n\n   # indented comment\nb: \"x y\" #s\n",
        );
        assert_eq!(ledger.names().collect::<Vec<_>>(), ["a", "b: \"x y\" #s"]);
        assert_eq!(ledger.judge("a", Err("no".into())), Ok(()));
        assert!(matches!(ledger.judge("a", Ok(())), Err(m) if m.contains("L lists it")));
        assert_eq!(ledger.judge("c", Ok(())), Ok(()));
        assert_eq!(ledger.judge("c", Err("no".into())), Err("no".into()));
        assert_eq!(ledger.stale("", ["a"]).len(), 1);
        assert!(ledger.stale("a", ["x"]).len() == 1 && ledger.stale("z", []).is_empty());
    }
}
