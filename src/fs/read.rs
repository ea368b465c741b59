//! Reading confined: what a file was when read, directories opened below a root without
//! following a link, a tree's files opened only as the regular files they were seen to be.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

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
    pub(super) ino: u64,
    size: u64,
    mtime: i64,
    mtime_nsec: i64,
    pub(super) mode: u32,
    pub(super) uid: u32,
    pub(super) gid: u32,
}

impl Snapshot {
    /// What the file `meta` describes is now.
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

    pub(super) fn of_stat(st: &rustix::fs::Stat) -> Snapshot {
        // The widths of `struct stat` fields vary by target; these conversions are lossless on
        // every Unix linkbase builds for.
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Snapshot {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mtime: st.st_mtime as i64,
            mtime_nsec: st.st_mtime_nsec as i64,
            mode: st.st_mode as u32,
            uid: st.st_uid,
            gid: st.st_gid,
        }
    }

    /// The same file (not necessarily the same contents).
    pub fn same_file(&self, other: &Snapshot) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }

    pub(super) fn unchanged(&self, now: &Snapshot) -> bool {
        self.same_file(now)
            && self.size == now.size
            && self.mtime == now.mtime
            && self.mtime_nsec == now.mtime_nsec
    }

    pub(super) fn kind(&self) -> &'static str {
        file_kind(FileType::from_raw_mode(self.mode as _))
    }
}

/// What a file is, in words, for messages: "a FIFO (named pipe)".
pub fn kind_of(meta: &Metadata) -> &'static str {
    file_kind(FileType::from_raw_mode(meta.mode() as _))
}

/// A file type in words, for messages.
pub(super) fn file_kind(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "a file of unknown type",
    }
}

/// A directory, open: files and directories below it are named relative to this descriptor.
pub struct Dir {
    pub(super) fd: OwnedFd,
    /// For messages only.
    pub(super) path: PathBuf,
}

impl Dir {
    /// The directory the user named (symbolic links in its path are the user's to follow),
    /// created with its parents if `create`.
    pub fn open(path: &Path, create: bool) -> Result<Dir, String> {
        if create {
            std::fs::create_dir_all(path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let fd = rustix::fs::open(path, dir_flags() & !OFlags::NOFOLLOW, Mode::empty())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// The directory `rel` below this one, opened one component at a time without following a
    /// symbolic link, and created where missing if `create`.
    pub fn sub(&self, rel: &Path, create: bool) -> Result<Dir, String> {
        let mut fd: Option<OwnedFd> = None;
        let mut path = self.path.clone();
        for component in rel.components() {
            let name = match component {
                Component::Normal(name) => name,
                Component::CurDir => continue,
                _ => return Err(format!("{}: not a plain relative path", rel.display())),
            };
            path.push(name);
            let at = fd.as_ref().map_or(self.fd.as_fd(), AsFd::as_fd);
            if create {
                match rustix::fs::mkdirat(at, name, Mode::from_raw_mode(0o777)) {
                    // Exists (or another worker made it meanwhile): what it is is checked below.
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(format!("{}: {e}", path.display())),
                }
            }
            let next = rustix::fs::openat(at, name, dir_flags(), Mode::empty()).map_err(|e| {
                match rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => format!(
                        "{}: a symbolic link in the tree; not written or read through",
                        path.display()
                    ),
                    Ok(st) if FileType::from_raw_mode(st.st_mode) != FileType::Directory => {
                        format!(
                            "{}: exists and is not a directory ({})",
                            path.display(),
                            file_kind(FileType::from_raw_mode(st.st_mode))
                        )
                    }
                    _ => format!("{}: {e}", path.display()),
                }
            })?;
            fd = Some(next);
        }
        Ok(match fd {
            Some(fd) => Dir { fd, path },
            None => Dir {
                fd: self.fd.try_clone().map_err(|e| e.to_string())?,
                path,
            },
        })
    }

    /// The directory of the file `rel` below this one (see [`Dir::sub`]) and the file's name.
    pub fn file_of<'r>(&self, rel: &'r Path, create: bool) -> Result<(Dir, &'r OsStr), String> {
        let name = rel
            .file_name()
            .ok_or_else(|| format!("{}: not a file name", rel.display()))?;
        Ok((
            self.sub(rel.parent().unwrap_or(Path::new("")), create)?,
            name,
        ))
    }

    /// The directory's path, as given (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Commits everything written on this directory's file system to disk (syncfs(2)): the
    /// one sync of a [`Durability::AtEnd`](super::Durability::AtEnd) run.
    pub fn sync(&self) -> Result<(), String> {
        rustix::fs::syncfs(&self.fd)
            .map_err(|e| format!("{}: cannot sync: {e}", self.path.display()))
    }

    /// What `name` in this directory is now (a symbolic link itself, not followed).
    pub fn stat_at(&self, name: &OsStr) -> io::Result<Snapshot> {
        rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)
            .map(|st| Snapshot::of_stat(&st))
            .map_err(io::Error::from)
    }

    /// Opens the regular file `name` of this directory for reading: see [`open_regular`].
    pub fn open_regular(&self, name: &OsStr, expected: Option<&Snapshot>) -> Result<File, String> {
        open_regular_at(self.fd.as_fd(), name, expected, false)
    }
}

/// Directories below a root: never through a symbolic link (`O_NOFOLLOW` on the last component
/// of each openat, which is the only one).
pub(super) fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Opens a file of a tree for reading, confined at open time: `O_NOFOLLOW`
/// (unless `follow`, for a link the walk saw resolve inside the root) and `O_NONBLOCK` (a FIFO
/// swapped in opens at once instead of waiting for a writer; on a regular file the flag does
/// nothing), then fstat(2): only a regular file is returned, and with `expected`, only the very
/// file (device and inode) the walk saw.
pub fn open_regular(
    path: &Path,
    expected: Option<&Snapshot>,
    follow: bool,
) -> Result<File, String> {
    open_regular_at(rustix::fs::CWD, path.as_os_str(), expected, follow)
}

pub(super) fn open_regular_at(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &OsStr,
    expected: Option<&Snapshot>,
    follow: bool,
) -> Result<File, String> {
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::openat(dir, name, flags, Mode::empty()).map_err(|e| match e {
        Errno::LOOP => "a symbolic link now (not when the tree was walked); not read".to_owned(),
        e => io::Error::from(e).to_string(),
    })?;
    let now = rustix::fs::fstat(&fd).map_err(|e| io::Error::from(e).to_string())?;
    let now = Snapshot::of_stat(&now);
    if FileType::from_raw_mode(now.mode as _) != FileType::RegularFile {
        return Err(format!("{}, not a regular file; not read", now.kind()));
    }
    if let Some(expected) = expected {
        if !expected.same_file(&now) {
            return Err("replaced by another file since the tree was walked; not read".into());
        }
    }
    Ok(File::from(fd))
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

/// Reads a whole open file, keeping what it was when read.
pub fn read_with_snapshot(mut file: File) -> io::Result<(Vec<u8>, Snapshot)> {
    let snapshot = Snapshot::of(&file.metadata()?);
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok((bytes, snapshot))
}

/// A file below `dir` that linkbase reads for its own use, from a tree it does not trust (the
/// checked tree's `linkbase.toml` and `.linkbaseignore`, HTTrack's index, a cache, a file a
/// settings file names): `rel`'s directories opened one at a time without following a symbolic
/// link ([`Dir::sub`]), and the file itself only if it is a regular file (not a link, a FIFO or
/// a device: a link to `/proc/self/environ` or `/dev/zero`, a FIFO that would block). `Ok(None)`
/// when there is no such file. `dir` itself is the user's and is followed as given.
pub fn open_tree_file(dir: &Path, rel: &Path) -> Result<Option<File>, String> {
    let root = Dir::open(dir, false)?;
    let (parent, name) = match root.file_of(rel, false) {
        Ok(found) => found,
        Err(_) if !dir.join(rel).parent().is_some_and(Path::exists) => return Ok(None),
        Err(e) => return Err(e),
    };
    let seen = match parent.stat_at(name) {
        Ok(seen) => seen,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    match FileType::from_raw_mode(seen.mode as _) {
        FileType::RegularFile => {}
        FileType::Symlink => {
            return Err(
                "a symbolic link: read only as a regular file of the tree, never through a link"
                    .into(),
            )
        }
        _ => return Err(format!("{}, not a regular file; not read", seen.kind())),
    }
    parent.open_regular(name, Some(&seen)).map(Some)
}

/// [`open_tree_file`], read whole: at most `limit` bytes, or an error saying the file is larger
/// (a tree's settings are small; a file past the bound is refused, not cut).
pub fn read_tree_file(dir: &Path, rel: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let Some(file) = open_tree_file(dir, rel)? else {
        return Ok(None);
    };
    read_at_most(file, limit).map(Some)
}

/// All of `file`, or an error if it is longer than `limit` bytes.
pub fn read_at_most(file: File, limit: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {}: not read", say_bytes(limit)));
    }
    Ok(bytes)
}

/// A file the user named (`--config FILE`, `--cacert FILE`): followed as given, but read only
/// if it is a regular file (a FIFO would block, `/dev/zero` never ends) of at most `limit`
/// bytes.
pub fn read_named_file(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    read_at_most(open_regular(path, None, true)?, limit)
}

/// `1 MiB`, `512 KiB`, `100 bytes`.
fn say_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}
