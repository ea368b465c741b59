//! Every file the CLI writes goes through here, so that no run can destroy data (issue 15):
//!
//! - a temporary file named `.linkbase-*.tmp` in the target's own directory, renamed over the
//!   target only once it is complete (a reader, or a killed run, sees the old file or the new
//!   one, never half of one);
//! - the rename replaces a symbolic link at the target instead of writing through it, and
//!   directories are never created through a symbolic link inside an output tree;
//! - a file replaced in place keeps its owner, group and mode, and is not replaced (nor
//!   recreated) when it changed or vanished since it was read;
//! - an advisory lock on the tree's root directory keeps a second run out of a tree it is
//!   writing (the directory itself is locked, so no lock file is left in the tree).

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// The buffer of a document written as it is produced: a page is written in spliced pieces
/// (the bytes between URL values, then a value), so 64 KiB writes rather than std's 8 KiB keep
/// the system calls few (a 2.5 MB page: 40 instead of 320).
pub(crate) const WRITE_BUFFER: usize = 64 * 1024;

/// Temporary files start with this and end with [`TMP_SUFFIX`]: recognisable, so the next run
/// of the same tree removes the ones a killed run left, and no run copies or checks them.
pub const TMP_PREFIX: &str = ".linkbase-";
/// See [`TMP_PREFIX`].
pub const TMP_SUFFIX: &str = ".tmp";
/// Whether a file name is one of ours (a temporary file), never part of a site.
pub fn is_own_name(name: &[u8]) -> bool {
    is_temp_name(name)
}

/// Whether a file name is a temporary file of a linkbase run.
pub fn is_temp_name(name: &[u8]) -> bool {
    name.len() > TMP_PREFIX.len() + TMP_SUFFIX.len()
        && name.starts_with(TMP_PREFIX.as_bytes())
        && name.ends_with(TMP_SUFFIX.as_bytes())
}

/// What a file was when it was read: if any of it differs at the rename, someone else changed,
/// replaced or removed the file meanwhile, and their version wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_nsec: i64,
    mode: u32,
    uid: u32,
    gid: u32,
}

impl Snapshot {
    pub fn of(meta: &Metadata) -> Snapshot {
        Snapshot {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
            mode: meta.mode(),
            uid: meta.uid(),
            gid: meta.gid(),
        }
    }

    /// The same file (not necessarily the same contents).
    pub fn same_file(&self, other: &Snapshot) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }

    fn unchanged(&self, now: &Snapshot) -> bool {
        self.same_file(now)
            && self.size == now.size
            && self.mtime == now.mtime
            && self.mtime_nsec == now.mtime_nsec
    }
}

/// What to put in the new file.
pub enum Contents<'a> {
    Bytes(&'a [u8]),
    /// A copy of this file, streamed (images and fonts can be large).
    CopyOf(&'a Path),
    /// Whatever this writes (a document rewritten as it is read); an error leaves the target
    /// as it was.
    Written(&'a mut dyn FnMut(&mut dyn Write) -> io::Result<()>),
}

/// How the target relates to what was read.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    /// An output of its own: a new file gets the permissions creating a file normally gives
    /// (0666 less the umask); an existing one is replaced (a symbolic link there is replaced,
    /// not followed).
    Output,
    /// The file that was read, replaced in place: it keeps owner, group and mode, and is left
    /// alone when it no longer is what was read.
    InPlace(&'a Snapshot),
}

/// Writes `contents` to `path` through a temporary file in the same directory and a rename.
pub fn write(path: &Path, contents: Contents<'_>, target: Target<'_>) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(TMP_PREFIX)
        .suffix(TMP_SUFFIX)
        // Subject to the umask, as any newly created file is.
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| format!("cannot create a temporary file in {}: {e}", dir.display()))?;
    match contents {
        Contents::Bytes(bytes) => tmp.write_all(bytes),
        Contents::CopyOf(source) => {
            File::open(source).and_then(|mut f| io::copy(&mut f, &mut tmp).map(drop))
        }
        Contents::Written(write) => {
            let mut out = io::BufWriter::with_capacity(WRITE_BUFFER, tmp.as_file_mut());
            write(&mut out).and_then(|()| out.flush())
        }
    }
    .and_then(|()| tmp.as_file().sync_all())
    .map_err(|e| e.to_string())?;
    match target {
        Target::Output => {
            // An existing regular file keeps its permissions (as before issue 15).
            if let Ok(meta) = fs::symlink_metadata(path) {
                if meta.is_file() {
                    tmp.as_file()
                        .set_permissions(meta.permissions())
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        Target::InPlace(before) => {
            let file = tmp.as_file();
            std::os::unix::fs::fchown(file, Some(before.uid), Some(before.gid))
                .map_err(|e| format!("cannot keep the owner and group: {e}; left as it was"))?;
            // After chown, which may clear set-id bits.
            file.set_permissions(fs::Permissions::from_mode(before.mode & 0o7777))
                .map_err(|e| e.to_string())?;
            match fs::symlink_metadata(path) {
                Ok(meta) if before.unchanged(&Snapshot::of(&meta)) => {}
                Ok(_) => {
                    return Err("changed by someone else while it was being rewritten; \
                         left as they wrote it"
                        .into())
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err("removed by someone else while it was being rewritten; \
                         not recreated"
                        .into())
                }
                Err(e) => return Err(e.to_string()),
            }
        }
    }
    tmp.persist(path).map_err(|e| e.error.to_string())?;
    Ok(())
}

/// Creates `root/rel` and the directories between, refusing to go through a symbolic link
/// below `root` (a link planted in an output tree would send the writes elsewhere). `root`
/// itself may be anything the user named.
pub fn create_dirs_under(root: &Path, rel: &Path) -> Result<(), String> {
    fs::create_dir_all(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let mut dir = root.to_path_buf();
    for component in rel.components() {
        let Component::Normal(name) = component else {
            return Err(format!("{}: not a plain relative path", rel.display()));
        };
        dir.push(name);
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{}: a symbolic link in the output tree; not writing through it",
                    dir.display()
                ))
            }
            Ok(_) => return Err(format!("{}: exists and is not a directory", dir.display())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(&dir) {
                Ok(()) => {}
                // Another worker made it meanwhile; check what it is on the next component.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                        return Err(format!("{}: not a directory", dir.display()));
                    }
                }
                Err(e) => return Err(format!("{}: {e}", dir.display())),
            },
            Err(e) => return Err(format!("{}: {e}", dir.display())),
        }
    }
    Ok(())
}

/// An exclusive advisory lock (flock(2)) on a tree's root directory, held until dropped.
pub struct TreeLock {
    _dir: File,
}

impl TreeLock {
    /// Takes the lock of the tree at `root`, or says that another run holds it.
    pub fn acquire(root: &Path) -> Result<TreeLock, String> {
        let dir = File::open(root).map_err(|e| format!("{}: {e}", root.display()))?;
        match rustix::fs::flock(&dir, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(TreeLock { _dir: dir }),
            Err(rustix::io::Errno::WOULDBLOCK) => Err(format!(
                "{}: another linkbase run is writing this tree; try again when it has finished",
                root.display()
            )),
            Err(e) => Err(format!("{}: cannot lock: {e}", root.display())),
        }
    }
}

/// Removes the temporary files a killed run left under `root` (symbolic links are not
/// followed). Called with the tree's lock held, so none of them belongs to a live run.
pub fn remove_stale_temps(root: &Path) -> Vec<String> {
    let mut removed = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && is_temp_name(std::os::unix::ffi::OsStrExt::as_bytes(
                    entry.file_name().as_os_str(),
                ))
                && fs::remove_file(&path).is_ok()
            {
                removed.push(path.display().to_string());
            }
        }
    }
    removed
}

/// `path` made absolute, with `.`, `..` and symbolic links resolved as far as it exists; the
/// part that does not exist yet is appended lexically.
pub fn resolve_path(path: &Path) -> io::Result<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let mut out = PathBuf::from("/");
    for component in absolute.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            // `out` is canonical so far, so its parent is the real `..`.
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if let Ok(canonical) = out.canonicalize() {
                    out = canonical;
                }
            }
        }
    }
    Ok(out)
}

/// Reads a whole file, keeping what it was when read.
pub fn read_with_snapshot(path: &Path) -> io::Result<(Vec<u8>, Snapshot)> {
    let mut file = File::open(path)?;
    let snapshot = Snapshot::of(&file.metadata()?);
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok((bytes, snapshot))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("linkbase-fsout-")
            .tempdir()
            .unwrap()
    }

    #[test]
    fn in_place_write_refuses_a_file_changed_since_it_was_read() {
        let d = dir();
        let page = d.path().join("page.html");
        fs::write(&page, "old").unwrap();
        let (_, snapshot) = read_with_snapshot(&page).unwrap();
        // Someone else's edit between our read and our rename (a new size and mtime).
        std::thread::sleep(std::time::Duration::from_millis(10));
        fs::write(&page, "their edit").unwrap();
        let e = write(&page, Contents::Bytes(b"ours"), Target::InPlace(&snapshot)).unwrap_err();
        assert!(e.contains("changed by someone else"), "{e}");
        assert_eq!(fs::read(&page).unwrap(), b"their edit");
        assert_eq!(
            fs::read_dir(d.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn in_place_write_does_not_recreate_a_removed_file() {
        let d = dir();
        let page = d.path().join("page.html");
        fs::write(&page, "old").unwrap();
        let (_, snapshot) = read_with_snapshot(&page).unwrap();
        fs::remove_file(&page).unwrap();
        let e = write(&page, Contents::Bytes(b"ours"), Target::InPlace(&snapshot)).unwrap_err();
        assert!(e.contains("not recreated"), "{e}");
        assert!(!page.exists());
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn output_write_replaces_a_symbolic_link_instead_of_following_it() {
        let d = dir();
        let victim = d.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let link = d.path().join("out.html");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        write(&link, Contents::Bytes(b"new"), Target::Output).unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        assert!(fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(fs::read(&link).unwrap(), b"new");
    }

    #[test]
    fn temporary_names_are_recognised() {
        assert!(is_temp_name(b".linkbase-abc123.tmp"));
        assert!(!is_temp_name(b".linkbase-.tmp"));
        assert!(!is_temp_name(b"linkbase-abc.tmp"));
        assert!(!is_temp_name(b".linkbase-abc.html"));
    }

    #[test]
    fn paths_resolve_dots_and_links_as_far_as_they_exist() {
        let d = dir();
        let root = d.path().canonicalize().unwrap();
        fs::create_dir(root.join("a")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("l")).unwrap();
        assert_eq!(
            resolve_path(&root.join("l/./x/../y")).unwrap(),
            root.join("a/y")
        );
        assert_eq!(resolve_path(&root.join("a/..")).unwrap(), root);
    }
}
