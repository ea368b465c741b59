//! Every file the CLI writes goes through here, so that no run can destroy data (issue 15) nor
//! write or read outside where it should (issue 21):
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

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

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

    fn of_stat(st: &rustix::fs::Stat) -> Snapshot {
        // The widths of `struct stat` fields vary by target; these conversions are lossless on
        // every Unix the CLI builds for.
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

    fn unchanged(&self, now: &Snapshot) -> bool {
        self.same_file(now)
            && self.size == now.size
            && self.mtime == now.mtime
            && self.mtime_nsec == now.mtime_nsec
    }

    fn kind(&self) -> &'static str {
        file_kind(FileType::from_raw_mode(self.mode as _))
    }
}

/// What a file is, in words, for messages: "a FIFO (named pipe)".
pub fn kind_of(meta: &Metadata) -> &'static str {
    file_kind(FileType::from_raw_mode(meta.mode() as _))
}

/// A file type in words, for messages.
fn file_kind(kind: FileType) -> &'static str {
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

/// What to put in the new file.
pub enum Contents<'a> {
    Bytes(&'a [u8]),
    /// A copy of this open file, streamed (images and fonts can be large).
    CopyOf(&'a mut File),
    /// Whatever this writes (a document rewritten as it is read); an error leaves the target
    /// as it was.
    Written(&'a mut dyn FnMut(&mut Output<'_>) -> io::Result<()>),
}

/// The file a [`Contents::Written`] writer writes, buffered. The temporary file behind a new
/// file can be taken back ([`linkbase::pipeline::Rewind`]); a device or FIFO written into
/// cannot.
pub struct Output<'f> {
    buf: io::BufWriter<&'f mut File>,
    rewindable: bool,
}

impl Write for Output<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.write(bytes)
    }
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.write_all(bytes)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.buf.flush()
    }
}

impl linkbase::pipeline::Rewind for Output<'_> {
    fn rewind(&mut self) -> io::Result<()> {
        if !self.rewindable {
            return Err(io::Error::other("a device or FIFO cannot be written again"));
        }
        self.buf.flush()?;
        let file = self.buf.get_mut();
        file.set_len(0)?;
        file.seek(io::SeekFrom::Start(0)).map(drop)
    }
}

impl linkbase::verb::Output for Output<'_> {
    fn rewindable(&mut self) -> Result<&mut dyn linkbase::pipeline::Rewind, &mut dyn Write> {
        if self.rewindable {
            Ok(self)
        } else {
            Err(self)
        }
    }
    fn writer(&mut self) -> &mut dyn Write {
        self
    }
}

/// How the target relates to what was read.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    /// An output of its own: a new file gets the permissions creating a file normally gives
    /// (0666 less the umask); an existing one is replaced (a symbolic link there is replaced,
    /// not followed).
    Output,
    /// The file that was read, replaced in place: it keeps owner, group, mode and extended
    /// attributes, and is left alone when it no longer is what was read.
    InPlace(&'a Snapshot),
}

/// When the data reaches the disk.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync(2) before the rename: one file, durable when the command returns.
    Each,
    /// No fsync per file: the caller runs [`Dir::sync`] (syncfs(2)) once at the end. A tree of
    /// 100,000 small files would otherwise spend most of its time in fsync (issue 21).
    AtEnd,
}

/// A directory, open: files and directories below it are named relative to this descriptor.
pub struct Dir {
    fd: OwnedFd,
    /// For messages only.
    path: PathBuf,
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
    /// one sync of a [`Durability::AtEnd`] run.
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

    /// Makes `name` a symbolic link to `target` (through a temporary name and a rename, so an
    /// existing file or link there is replaced, never followed).
    pub fn symlink(&self, name: &OsStr, target: &Path) -> Result<(), String> {
        for _ in 0..TEMP_ATTEMPTS {
            let tmp = temp_name();
            match rustix::fs::symlinkat(target, &self.fd, tmp.as_str()) {
                Ok(()) => {}
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(e.to_string()),
            }
            return rustix::fs::renameat(&self.fd, tmp.as_str(), &self.fd, name).map_err(|e| {
                let _ = rustix::fs::unlinkat(&self.fd, tmp.as_str(), AtFlags::empty());
                e.to_string()
            });
        }
        Err("cannot find a free temporary name".into())
    }
}

/// Directories below a root: never through a symbolic link (`O_NOFOLLOW` on the last component
/// of each openat, which is the only one).
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Opens a file of a tree for reading, confined at open time (issue 21, D3/D4): `O_NOFOLLOW`
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

fn open_regular_at(
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

/// Attempts at a free temporary name before giving up (names are unique per process and time,
/// so a clash is someone else's file of the same name).
const TEMP_ATTEMPTS: usize = 16;

/// `.linkbase-<pid>-<counter>-<nanoseconds>.tmp`: unique within the process by the counter,
/// across processes by the pid, across pid reuse by the time.
fn temp_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{TMP_PREFIX}{}-{n}-{nanos:08x}{TMP_SUFFIX}",
        std::process::id()
    )
}

/// A temporary file of ours, locked (flock) while we write it, removed unless renamed.
struct Temp<'d> {
    dir: &'d Dir,
    name: String,
    file: File,
    renamed: bool,
}

impl<'d> Temp<'d> {
    fn create(dir: &'d Dir) -> Result<Temp<'d>, String> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for _ in 0..TEMP_ATTEMPTS {
            let name = temp_name();
            // 0666 less the umask, as any newly created file.
            let fd =
                match rustix::fs::openat(&dir.fd, name.as_str(), flags, Mode::from_raw_mode(0o666))
                {
                    Ok(fd) => fd,
                    Err(Errno::EXIST) => continue,
                    Err(e) => {
                        return Err(format!(
                            "cannot create a temporary file in {}: {e}",
                            dir.path.display()
                        ))
                    }
                };
            let temp = Temp {
                dir,
                name,
                file: File::from(fd),
                renamed: false,
            };
            // Locked, so that a cleaner ([`remove_stale_temps_in`]) knows the file is live; a
            // cleaner that took it between the create and the lock has removed it: next name.
            if rustix::fs::flock(&temp.file, FlockOperation::NonBlockingLockExclusive).is_ok()
                && dir.stat_at(OsStr::new(&temp.name)).is_ok_and(|s| {
                    temp.file
                        .metadata()
                        .is_ok_and(|m| s.same_file(&Snapshot::of(&m)))
                })
            {
                return Ok(temp);
            }
        }
        Err(format!(
            "cannot create a temporary file in {}: no free name",
            dir.path.display()
        ))
    }

    fn rename_to(mut self, name: &OsStr) -> Result<(), String> {
        rustix::fs::renameat(&self.dir.fd, self.name.as_str(), &self.dir.fd, name)
            .map_err(|e| io::Error::from(e).to_string())?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = rustix::fs::unlinkat(&self.dir.fd, self.name.as_str(), AtFlags::empty());
        }
    }
}

/// Writes `contents` to `path`, a file the user named (its directory's path is followed as
/// given), through a temporary file in the same directory and a rename; first removes the
/// temporary files a killed run left in that directory (and says so).
pub fn write(path: &Path, contents: Contents<'_>, target: Target<'_>) -> Result<(), String> {
    let dir_path = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Some(name) = path.file_name() else {
        return Err("not a file name".into());
    };
    let dir = Dir::open(dir_path, false)?;
    // `-o /dev/null`, `-o /dev/stdout`, `-o FIFO`: a device or a pipe the user named is written
    // to, as a shell's `>` does; a rename would replace it with a regular file (run as root,
    // `check -o /dev/null` did exactly that to /dev/null).
    if matches!(target, Target::Output) {
        let followed = rustix::fs::statat(&dir.fd, name, AtFlags::empty());
        if let Ok(st) = followed {
            let kind = FileType::from_raw_mode(st.st_mode as _);
            if matches!(kind, FileType::CharacterDevice | FileType::Fifo) {
                return write_to_device(&dir, name, contents);
            }
        }
    }
    say_removed(&remove_stale_temps_in(&dir));
    write_in(&dir, name, contents, target, Durability::Each)
}

/// Writes `contents` straight into the character device or FIFO `name` of `dir` (opened for
/// writing only, never created or truncated).
fn write_to_device(dir: &Dir, name: &OsStr, contents: Contents<'_>) -> Result<(), String> {
    let fd = rustix::fs::openat(
        &dir.fd,
        name,
        OFlags::WRONLY | OFlags::CLOEXEC | OFlags::NOCTTY,
        Mode::empty(),
    )
    .map_err(|e| io::Error::from(e).to_string())?;
    write_contents(&mut File::from(fd), contents, false).map_err(|e| e.to_string())
}

/// `contents` written into `file`, which can be taken back (`rewindable`: a new file of ours).
fn write_contents(file: &mut File, contents: Contents<'_>, rewindable: bool) -> io::Result<()> {
    match contents {
        Contents::Bytes(bytes) => file.write_all(bytes),
        Contents::CopyOf(source) => io::copy(source, file).map(drop),
        Contents::Written(write) => {
            let mut out = Output {
                buf: io::BufWriter::with_capacity(WRITE_BUFFER, file),
                rewindable,
            };
            write(&mut out).and_then(|()| out.flush())
        }
    }
}

/// Writes `contents` to the file `name` of `dir` through a temporary file and a rename.
pub fn write_in(
    dir: &Dir,
    name: &OsStr,
    contents: Contents<'_>,
    target: Target<'_>,
    durability: Durability,
) -> Result<(), String> {
    if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
        return Err(format!("{}: not a file name", name.to_string_lossy()));
    }
    let mut tmp = Temp::create(dir)?;
    write_contents(&mut tmp.file, contents, true)
        .and_then(|()| match durability {
            Durability::Each => tmp.file.sync_all(),
            Durability::AtEnd => Ok(()),
        })
        .map_err(|e| e.to_string())?;
    match target {
        Target::Output => {
            // An existing regular file keeps its permissions (as before issue 15).
            if let Ok(now) = dir.stat_at(name) {
                if FileType::from_raw_mode(now.mode as _) == FileType::RegularFile {
                    rustix::fs::fchmod(&tmp.file, Mode::from_raw_mode((now.mode & 0o7777) as _))
                        .map_err(|e| io::Error::from(e).to_string())?;
                }
            }
        }
        Target::InPlace(before) => {
            still_as_read(dir, name, before)?;
            keep_attributes(dir, name, before, &tmp.file)?;
            // Again, as close to the rename as can be.
            still_as_read(dir, name, before)?;
        }
    }
    tmp.rename_to(name)
}

/// One file of an extraction (`rewrite --extract DIR`: a WARC file's pages, a message's parts)
/// written at `rel` below `root`, through the confined writer: no symbolic link below `root` is
/// followed, directories are made as needed.
pub fn write_below(root: &Dir, rel: &Path, bytes: &[u8]) -> Result<(), String> {
    root.file_of(rel, true).and_then(|(d, file)| {
        write_in(
            &d,
            file,
            Contents::Bytes(bytes),
            Target::Output,
            Durability::AtEnd,
        )
    })
}

/// A file to be replaced in place must still be what was read: someone else's edit or removal
/// meanwhile wins.
fn still_as_read(dir: &Dir, name: &OsStr, before: &Snapshot) -> Result<(), String> {
    match dir.stat_at(name) {
        Ok(now) if before.unchanged(&now) => Ok(()),
        Ok(_) => Err("changed by someone else while it was being rewritten; \
             left as they wrote it"
            .into()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err("removed by someone else while it was being rewritten; not recreated".into())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Gives the replacement of a file rewritten in place everything the original had: owner and
/// group, extended attributes (POSIX ACLs are the `system.posix_acl_access` and
/// `system.posix_acl_default` attributes, acl(5)), and mode, exactly. Without the ACL, the
/// group bits of an ACL'd file's mode (its ACL mask, acl(5) "ACL_MASK") would become the owning
/// group's permissions: `r--` widened to `rw-` (issue 21, D9). An attribute that cannot be kept
/// leaves the file as it was.
fn keep_attributes(dir: &Dir, name: &OsStr, before: &Snapshot, tmp: &File) -> Result<(), String> {
    use xattr::FileExt;
    std::os::unix::fs::fchown(tmp, Some(before.uid), Some(before.gid))
        .map_err(|e| format!("cannot keep the owner and group: {e}; left as it was"))?;
    let original = dir
        .open_regular(name, Some(before))
        .map_err(|e| format!("{e}; left as it was"))?;
    let unsupported = |e: &io::Error| e.raw_os_error() == Some(Errno::OPNOTSUPP.raw_os_error());
    let names: Vec<std::ffi::OsString> = match original.list_xattr() {
        Ok(names) => names.collect(),
        Err(e) if unsupported(&e) => Vec::new(),
        Err(e) => {
            return Err(format!(
                "cannot read the extended attributes: {e}; left as it was"
            ))
        }
    };
    // The new file may have inherited attributes the original lacks (a default ACL of the
    // directory): they go.
    if let Ok(inherited) = tmp.list_xattr() {
        for extra in inherited.filter(|n| !names.contains(n)) {
            tmp.remove_xattr(&extra).map_err(|e| {
                format!(
                    "cannot remove the inherited attribute {}: {e}; left as it was",
                    extra.to_string_lossy()
                )
            })?;
        }
    }
    for attr in &names {
        let value = original.get_xattr(attr).map_err(|e| {
            format!(
                "cannot read the attribute {}: {e}; left as it was",
                attr.to_string_lossy()
            )
        })?;
        if let Some(value) = value {
            tmp.set_xattr(attr, &value).map_err(|e| {
                format!(
                    "cannot keep the attribute {}: {e}; left as it was",
                    attr.to_string_lossy()
                )
            })?;
        }
    }
    // Last: after chown (which may clear set-id bits) and after the ACL (whose mask is the
    // mode's group bits, so both agree).
    rustix::fs::fchmod(tmp, Mode::from_raw_mode((before.mode & 0o7777) as _))
        .map_err(|e| io::Error::from(e).to_string())
}

/// An exclusive advisory lock (flock(2)) on a tree's root directory and shared locks on the
/// directories above it, held until dropped.
pub struct TreeLock {
    _dirs: Vec<File>,
}

impl TreeLock {
    /// Takes the lock of the tree at `root`, or says that another run holds it, on this tree
    /// or on one inside or around it (issue 21): a run holds its root exclusively and every
    /// directory above it shared, so a run on `DIR/sub` (which needs `DIR` shared) and a run on
    /// `DIR`'s parent (which needs the parent exclusively) are both kept out while `DIR` is
    /// being written, and the other way round. A directory above that cannot be opened (no
    /// read permission) is not locked.
    pub fn acquire(root: &Path) -> Result<TreeLock, String> {
        let dir = File::open(root).map_err(|e| format!("{}: {e}", root.display()))?;
        let busy = |path: &Path| {
            format!(
                "{}: another linkbase run is writing this tree, or a tree inside it or around it \
                 ({}); try again when it has finished",
                root.display(),
                path.display()
            )
        };
        let mut dirs = Vec::new();
        let canonical = resolve_path(root).map_err(|e| format!("{}: {e}", root.display()))?;
        for ancestor in canonical.ancestors().skip(1) {
            let Ok(above) = File::open(ancestor) else {
                continue;
            };
            match rustix::fs::flock(&above, FlockOperation::NonBlockingLockShared) {
                Ok(()) => dirs.push(above),
                Err(Errno::WOULDBLOCK) => return Err(busy(ancestor)),
                // A file system without flock: no lock there, as before.
                Err(_) => {}
            }
        }
        match rustix::fs::flock(&dir, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {
                dirs.push(dir);
                Ok(TreeLock { _dirs: dirs })
            }
            Err(Errno::WOULDBLOCK) => Err(busy(&canonical)),
            Err(e) => Err(format!("{}: cannot lock: {e}", root.display())),
        }
    }
}

/// Removes the temporary files a killed run left in `dir` (not below it): those no live run
/// holds locked. Says which.
pub fn remove_stale_temps_in(dir: &Dir) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(entries) = rustix::fs::Dir::read_from(&dir.fd) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if !is_temp_name(name.as_bytes()) || entry.file_type() == FileType::Directory {
            continue;
        }
        // A symbolic link or a FIFO of that name is not ours: open_regular refuses both.
        let Ok(file) = dir.open_regular(name, None) else {
            continue;
        };
        if rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
            continue;
        }
        let same = dir.stat_at(name).is_ok_and(|s| {
            file.metadata()
                .is_ok_and(|m| s.same_file(&Snapshot::of(&m)))
        });
        if same && rustix::fs::unlinkat(&dir.fd, name, AtFlags::empty()).is_ok() {
            removed.push(dir.path.join(name).display().to_string());
        }
    }
    removed
}

/// Removes the temporary files a killed run left anywhere under `root` (directories opened
/// without following symbolic links).
pub fn remove_stale_temps(root: &Dir) -> Vec<String> {
    let mut removed = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(dir) = root.sub(&rel, false) else {
            continue;
        };
        removed.extend(remove_stale_temps_in(&dir));
        let Ok(entries) = rustix::fs::Dir::read_from(&dir.fd) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if entry.file_type() == FileType::Directory && name != "." && name != ".." {
                stack.push(rel.join(name));
            }
        }
    }
    removed
}

/// Says each temporary file removed.
pub fn say_removed(removed: &[String]) {
    for stale in removed {
        eprintln!(
            "linkbase: removed {}, left by an interrupted run",
            crate::text::escape_controls(stale)
        );
    }
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

#[cfg(test)]
mod tests;
