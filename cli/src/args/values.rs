//! Value parsers several commands' flags share.

/// A count within bounds, for flags whose value a settings file may also give: the same bound
/// from either (`-j 100000` would start 100,000 threads).
pub fn count<const MIN: usize, const MAX: usize>(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if n < MIN {
        return Err(format!("must be at least {MIN}"));
    }
    if n > MAX {
        return Err(format!("at most {MAX}"));
    }
    Ok(n)
}
