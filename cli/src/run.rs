//! What every command shares: its exit code, what stops it ([`Fatal`], [`Failure`]), where its
//! output goes (stdout, or `-o FILE` through the confined writer), the thread pool.

use std::io::{self, Write};
use std::path::Path;

use linkbase::fs as fsout;

/// The documented exit codes (docs/usage.md, "Exit codes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    Ok = 0,
    Problems = 1,
    Unusable = 2,
}

/// A fatal error: printed as `linkbase: <message>`, exit 2.
#[derive(Debug)]
pub(crate) struct Fatal(pub(crate) String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Self {
        Fatal(e.to_string())
    }
}

pub(crate) enum Failure {
    /// The reader of our output went away (`| head`): not an error.
    BrokenPipe,
    Fatal(Fatal),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Fatal(Fatal(e.to_string()))
        }
    }
}

impl From<linkbase::Error> for Failure {
    fn from(e: linkbase::Error) -> Self {
        match e {
            linkbase::Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe => {
                Failure::BrokenPipe
            }
            e => Failure::Fatal(Fatal::from(e)),
        }
    }
}

impl From<Fatal> for Failure {
    fn from(f: Fatal) -> Self {
        Failure::Fatal(f)
    }
}

/// Runs `write` on stdout, or on `-o FILE` (a temporary file renamed when it succeeds).
pub(crate) fn with_output(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> Result<Exit, Failure>,
) -> Result<Exit, Failure> {
    let Some(path) = path else {
        return write(&mut io::stdout().lock());
    };
    let mut write = Some(write);
    let mut outcome = None;
    let mut run = |w: &mut fsout::Output<'_>| {
        let result = write.take().map(|f| f(w));
        let ok = matches!(result, Some(Ok(_)));
        outcome = result;
        if ok {
            Ok(())
        } else {
            Err(io::Error::other("not written"))
        }
    };
    let written = fsout::write(
        path,
        fsout::Contents::Written(&mut run),
        fsout::Target::Output,
        &mut say_removed,
    );
    match outcome {
        Some(Err(e)) => Err(e),
        Some(Ok(exit)) => {
            written.map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            Ok(exit)
        }
        None => Err(Fatal(format!("{}: not written", path.display())).into()),
    }
}

/// Sizes rayon's global pool (once per process: one command runs per process).
pub(crate) fn set_jobs(jobs: Option<usize>) -> Result<(), Fatal> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = jobs {
        builder = builder.num_threads(n.max(1));
    }
    builder
        .build_global()
        .map_err(|e| Fatal(format!("thread pool: {e}")))
}

/// Says on stderr that a temporary file a killed run left was removed.
pub(crate) fn say_removed(name: &str) {
    eprintln!("linkbase: {}", fsout::removed_notice(name));
}
