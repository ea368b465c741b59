//! Writing confined: a temporary file renamed over the target, in place or in a tree's own
//! directory, a tree's lock.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Seek, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

use super::read::*;
use crate::text::escape_controls;

/// The buffer of a document written as it is produced: a page is written in spliced pieces
/// (the bytes between URL values, then a value), so 64 KiB writes rather than std's 8 KiB keep
/// the system calls few (a 2.5 MB page: 40 instead of 320).
pub const WRITE_BUFFER: usize = 64 * 1024;

/// What to put in the new file.
pub enum Contents<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// A copy of this open file, streamed (images and fonts can be large).
    CopyOf(&'a mut File),
    /// Whatever this writes (a document rewritten as it is read); an error leaves the target
    /// as it was.
    Written(&'a mut dyn FnMut(&mut Output<'_>) -> io::Result<()>),
}

/// The file a [`Contents::Written`] writer writes, buffered. The temporary file behind a new
/// file can be taken back ([`crate::pipeline::Rewind`]); a device or FIFO written into
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

impl crate::pipeline::Rewind for Output<'_> {
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

impl crate::verb::Output for Output<'_> {
    fn rewindable(&mut self) -> Result<&mut dyn crate::pipeline::Rewind, &mut dyn Write> {
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
    /// 100,000 small files would otherwise spend most of its time in fsync.
    AtEnd,
}

impl Dir {
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
/// temporary files a killed run left in that directory, each handed to `removed` as it goes
/// (the caller says so: [`removed_notice`]).
pub fn write(
    path: &Path,
    contents: Contents<'_>,
    target: Target<'_>,
    removed: &mut dyn FnMut(&str),
) -> Result<(), String> {
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
    for stale in remove_stale_temps_in(&dir) {
        removed(&stale);
    }
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
            // An existing regular file keeps its permissions.
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
/// group's permissions: `r--` widened to `rw-`. An attribute that cannot be kept
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
    /// or on one inside or around it: a run holds its root exclusively and every
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
/// holds locked. Returns their paths.
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

/// What to say of a temporary file removed because a killed run left it
/// ([`remove_stale_temps`], [`write()`]), control characters escaped:
/// `removed NAME, left by an interrupted run`.
pub fn removed_notice(name: &str) -> String {
    format!(
        "removed {}, left by an interrupted run",
        crate::text::escape_controls(name)
    )
}

/// The directory of the last file a worker wrote: entries are sorted, so the files of a
/// directory come in a row and each directory is opened about once per worker instead of once
/// per file (100,000 files: 200,000 fewer system calls).
#[derive(Default)]
pub struct DirCache {
    parent: PathBuf,
    dir: Option<Dir>,
}

impl DirCache {
    /// [`Dir::file_of`], through the cache.
    pub fn file_of<'r>(
        &mut self,
        root: &Dir,
        rel: &'r Path,
        create: bool,
    ) -> Result<(&Dir, &'r OsStr), String> {
        let name = rel.file_name().ok_or_else(|| {
            format!(
                "{}: not a file name",
                escape_controls(&rel.to_string_lossy())
            )
        })?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        let dir = match self.dir.take() {
            Some(dir) if self.parent == parent => dir,
            _ => root.sub(parent, create)?,
        };
        self.parent = parent.to_path_buf();
        Ok((self.dir.insert(dir), name))
    }
}

/// Copies the open `source` to `out/rel` through a temporary file, creating directories below
/// `out` without going through symbolic links.
pub fn copy_unchanged(
    source: &mut std::fs::File,
    out: &Dir,
    rel: &Path,
    dirs: &mut DirCache,
) -> Result<(), String> {
    let (dir, name) = dirs.file_of(out, rel, true)?;
    let snapshot = source.metadata().map_err(|e| e.to_string())?;
    refuse_same_file(&Snapshot::of(&snapshot), dir, name)?;
    write_in(
        dir,
        name,
        Contents::CopyOf(source),
        Target::Output,
        Durability::AtEnd,
    )
}

/// An output that is the input file itself (through links, or a tree nested in a way the
/// up-front check cannot see) would lose it.
pub fn refuse_same_file(source: &Snapshot, dir: &Dir, name: &OsStr) -> Result<(), String> {
    if let Ok(b) = dir.stat_at(name) {
        if source.same_file(&b) {
            return Err(format!(
                "{}: the output is the input file itself; not written",
                escape_controls(&dir.path().join(name).to_string_lossy())
            ));
        }
    }
    Ok(())
}

/// `-o FILE` naming the input itself (or a link to it) would replace the input: that is what
/// `--in-place` is for, so it must be said.
pub fn refuse_output_is_input(
    input: &Path,
    output: &Path,
    input_snapshot: Option<&Snapshot>,
) -> Result<(), String> {
    let same_path = matches!(
        (resolve_path(input), resolve_path(output)),
        (Ok(a), Ok(b)) if a == b
    );
    let same_file = match (input_snapshot, std::fs::metadata(output)) {
        (Some(a), Ok(b)) => a.same_file(&Snapshot::of(&b)),
        _ => false,
    };
    if same_path || same_file {
        return Err(format!(
            "{}: the output is the input file; use --in-place to rewrite a file in place",
            output.display()
        ));
    }
    Ok(())
}

/// An output tree that is the input tree, or lies inside it, would have its own output read
/// back. Both paths are compared with `.`, `..` and symbolic links resolved.
pub fn refuse_nested_output(root: &Path, out: &Path) -> Result<(), String> {
    let resolved_root = resolve_path(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let resolved_out = resolve_path(out).map_err(|e| format!("{}: {e}", out.display()))?;
    if resolved_out == resolved_root {
        return Err(format!(
            "{}: the output directory is the input directory; use --in-place to rewrite a tree \
             in place",
            out.display()
        ));
    }
    // OUTDIR around DIR: `OUT/site/x.html` of a page `DIR/site/x.html` would be the input file
    // `DIR/x.html` when DIR is `OUT/site`.
    if resolved_root.starts_with(&resolved_out) {
        return Err(format!(
            "{}: the output directory contains the input directory {}; its files could be \
             overwritten: choose one outside it",
            out.display(),
            root.display()
        ));
    }
    if resolved_out.starts_with(&resolved_root) {
        return Err(format!(
            "{}: the output directory lies inside the input directory {}; choose one outside it",
            out.display(),
            root.display()
        ));
    }
    Ok(())
}
