//! Data kept outside the repository, in `../shared` beside the checkout (the MHTML corpus, the
//! original of the conformance vectors). A test that uses it says so when it is missing: a notice
//! on a developer's machine, a failure under CI (`CI` set and not `false`/`0`, as CI services and
//! `.ci/run` set it), where a run without the data would pass having compared nothing.
#![allow(dead_code)] // each suite uses its part

use std::path::Path;

/// Whether this run is CI's.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// `path` (what it is: `what`) is missing: `Err` under CI, else a notice on stderr and `Ok`.
pub fn missing(what: &str, path: &Path) -> Result<(), String> {
    let message = format!(
        "{} is missing: {what} (../shared beside the checkout)",
        path.display()
    );
    if under_ci() {
        Err(format!("{message}; CI must have it"))
    } else {
        eprintln!("notice: {message}: skipped");
        Ok(())
    }
}
