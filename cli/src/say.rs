//! Counted nouns in messages: "1 record", "2 records". Every count the command line prints
//! goes through [`n`] (or [`n_as`] for a noun whose plural is not a plain -s), so no message
//! says "1 records".

/// `count` followed by `noun`, with an `s` unless the count is one: `n(1, "page")` is
/// "1 page", `n(0, "page")` "0 pages".
pub fn n(count: impl Count, noun: &str) -> String {
    let count = count.get();
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// [`n`] for a noun with its own plural: `n_as(2, "MIME message", "MIME messages")`, or a
/// phrase whose noun is not last: `n_as(1, "link left", "links left")`.
pub fn n_as(count: impl Count, one: &str, many: &str) -> String {
    let count = count.get();
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}

/// What [`n`] counts: the integer types counts come in.
pub trait Count {
    fn get(self) -> u64;
}

impl Count for u64 {
    fn get(self) -> u64 {
        self
    }
}

impl Count for usize {
    fn get(self) -> u64 {
        u64::try_from(self).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_every_other_count_plural() {
        assert_eq!(n(0u64, "record"), "0 records");
        assert_eq!(n(1u64, "record"), "1 record");
        assert_eq!(n(2u64, "record"), "2 records");
        assert_eq!(n(1usize, "WARC file"), "1 WARC file");
        assert_eq!(n_as(1u64, "link left", "links left"), "1 link left");
        assert_eq!(n_as(3u64, "link left", "links left"), "3 links left");
    }
}
