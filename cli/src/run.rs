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
    match path {
        None => write(&mut io::stdout().lock()),
        Some(path) => write_file(path, fsout::Target::Output, |w| write(w)),
    }
}

/// Runs `produce` on a temporary file beside `path`, renamed over it as `target` says only when
/// `produce` succeeds: nothing is written when it fails. Its error comes first; then the
/// writer's, naming `path`.
pub(crate) fn write_file<T>(
    path: &Path,
    target: fsout::Target<'_>,
    produce: impl FnOnce(&mut fsout::Output<'_>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut produce = Some(produce);
    let mut outcome = None;
    let mut run = |w: &mut fsout::Output<'_>| {
        let result = produce.take().map(|f| f(w));
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
        target,
        &mut say_removed,
    );
    match outcome {
        Some(Err(e)) => Err(e),
        Some(Ok(value)) => {
            written.map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            Ok(value)
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
