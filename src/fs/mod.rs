//! Every file linkbase writes goes through here, so that no run can destroy data nor
//! write or read outside where it should:
//!
//! - a temporary file named `.linkbase-*.tmp` in the target's own directory, renamed over the
//!   target only once it is complete (a reader, or a killed run, sees the old file or the new
//!   one, never half of one); a live run holds flock(2) on its temporary file, so the next run
//!   of any command writing there removes the ones a killed run left, and only those;
//! - below a root the user named, directories are opened (and created) one component at a time
//!   with `openat(2)` and `O_NOFOLLOW`, and files are created, replaced and renamed relative to
//!   their directory's descriptor: a symbolic link planted in an output tree, even one swapped in
//!   during the run, is never written through, and nothing lands outside the root;
//! - the rename replaces a symbolic link at the target instead of writing through it;
//! - a file replaced in place keeps its owner, group, mode and extended attributes (POSIX ACLs
//!   among them), and is not replaced (nor recreated) when it changed or vanished since it was
//!   read;
//! - a tree's file is read through [`open_regular`]: `O_NOFOLLOW | O_NONBLOCK`, then checked to be
//!   the regular file the walk saw, so a file swapped for a link or a FIFO after the walk is
//!   neither read nor waited on;
//! - an advisory lock on the tree's root directory, and shared locks on the directories above
//!   it, keep a second run out of a tree being written or of any tree inside or around it (the
//!   directories themselves are locked, so no lock file is left in the tree).

mod read;
mod write;

pub use read::*;
pub use write::*;

#[cfg(test)]
mod tests;
