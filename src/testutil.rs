//! Test helpers shared by the unit tests: a deterministic pseudo-random generator for the
//! "never panics on any input" tests (no dependency, reproducible from its seed).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

/// xorshift64 (Marsaglia 2003).
pub(crate) struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }

    /// Up to `max_len` pieces of `alphabet`, concatenated.
    pub fn string(&mut self, alphabet: &[&str], max_len: usize) -> String {
        let len = self.below(max_len + 1);
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())])
            .collect()
    }
}
