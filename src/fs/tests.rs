//! The confined writer's tests: what it refuses, and that a failure leaves the target as it was.

#![allow(clippy::unwrap_used)]
use super::*;
use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::MetadataExt;

use rustix::fs::{FileType, Mode};

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
    let (_, snapshot) = read_with_snapshot(File::open(&page).unwrap()).unwrap();
    // Someone else's edit between our read and our rename (a new size and mtime).
    std::thread::sleep(std::time::Duration::from_millis(10));
    fs::write(&page, "their edit").unwrap();
    let e = write(
        &page,
        Contents::Bytes(b"ours"),
        Target::InPlace(&snapshot),
        &mut |_| {},
    )
    .unwrap_err();
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
    let (_, snapshot) = read_with_snapshot(File::open(&page).unwrap()).unwrap();
    fs::remove_file(&page).unwrap();
    let e = write(
        &page,
        Contents::Bytes(b"ours"),
        Target::InPlace(&snapshot),
        &mut |_| {},
    )
    .unwrap_err();
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
    write(&link, Contents::Bytes(b"new"), Target::Output, &mut |_| {}).unwrap();
    assert_eq!(fs::read(&victim).unwrap(), b"precious");
    assert!(fs::symlink_metadata(&link).unwrap().is_file());
    assert_eq!(fs::read(&link).unwrap(), b"new");
}

/// The walk saw `page.html`; before the read, someone swaps it.
#[test]
fn a_file_swapped_after_the_walk_is_not_read() {
    let d = dir();
    let outside = d.path().join("outside");
    fs::write(&outside, "secret").unwrap();
    let page = d.path().join("page.html");
    fs::write(&page, "page").unwrap();
    let walked = Snapshot::of(&fs::symlink_metadata(&page).unwrap());
    // The file the walk saw: read.
    let mut text = String::new();
    open_regular(&page, Some(&walked), false)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "page");
    // Swapped for a link to a file outside.
    fs::remove_file(&page).unwrap();
    std::os::unix::fs::symlink(&outside, &page).unwrap();
    assert_eq!(
        open_regular(&page, Some(&walked), false).unwrap_err(),
        "a symbolic link now (not when the tree was walked); not read"
    );
    // Swapped for another file (a hard link to the outside one): not the file the walk saw.
    fs::remove_file(&page).unwrap();
    fs::hard_link(&outside, &page).unwrap();
    assert_eq!(
        open_regular(&page, Some(&walked), false).unwrap_err(),
        "replaced by another file since the tree was walked; not read"
    );
    // Swapped for a FIFO with no writer: refused at once instead of blocking forever.
    fs::remove_file(&page).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &page,
        FileType::Fifo,
        Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert_eq!(
        open_regular(&page, Some(&walked), false).unwrap_err(),
        "a FIFO (named pipe), not a regular file; not read"
    );
}

/// A POSIX ACL in its extended-attribute form (acl(5); the Linux `posix_acl_xattr` layout:
/// version 2, then tag, permissions and id of each entry, little-endian).
fn acl(entries: &[(u16, u16, u32)]) -> Vec<u8> {
    let mut out = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in entries {
        out.extend(tag.to_le_bytes());
        out.extend(perm.to_le_bytes());
        out.extend(id.to_le_bytes());
    }
    out
}

/// The replacement keeps extended attributes and the ACL, so the owning group
/// keeps `r--` (the mode's group bits show the ACL mask, `rw-`).
#[test]
fn in_place_write_keeps_extended_attributes_and_the_acl() {
    use xattr::FileExt;
    let d = dir();
    let page = d.path().join("page.html");
    fs::write(&page, "old").unwrap();
    let file = File::open(&page).unwrap();
    if let Err(e) = file.set_xattr("user.origin", b"crawl 7") {
        eprintln!("skipped: this file system has no user extended attributes: {e}");
        return;
    }
    const UNDEFINED: u32 = u32::MAX;
    // user::rw- user:4242:rw- group::r-- mask::rw- other::r--
    let access = acl(&[
        (0x01, 6, UNDEFINED),
        (0x02, 6, 4242),
        (0x04, 4, UNDEFINED),
        (0x10, 6, UNDEFINED),
        (0x20, 4, UNDEFINED),
    ]);
    if let Err(e) = file.set_xattr("system.posix_acl_access", &access) {
        eprintln!("skipped: this file system has no POSIX ACLs: {e}");
        return;
    }
    drop(file);
    let (_, snapshot) = read_with_snapshot(File::open(&page).unwrap()).unwrap();
    assert_eq!(snapshot.mode & 0o777, 0o664, "the group bits are the mask");
    write(
        &page,
        Contents::Bytes(b"new"),
        Target::InPlace(&snapshot),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(fs::read(&page).unwrap(), b"new");
    let after = File::open(&page).unwrap();
    assert_ne!(
        Snapshot::of(&after.metadata().unwrap()).ino,
        snapshot.ino,
        "a new file"
    );
    assert_eq!(
        after.get_xattr("user.origin").unwrap().as_deref(),
        Some(&b"crawl 7"[..])
    );
    assert_eq!(
        after.get_xattr("system.posix_acl_access").unwrap(),
        Some(access),
        "group::r-- kept, not widened to rw-"
    );
    assert_eq!(after.metadata().unwrap().mode() & 0o7777, 0o664);
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

/// A write removes the temporary file a killed run left beside its target and tells the caller
/// (the library prints nothing); the notice names it, control characters escaped.
#[test]
fn a_write_hands_the_stale_temporary_files_it_removed_to_the_caller() {
    let d = dir();
    let stale = d.path().join(".linkbase-1-1-1.tmp");
    fs::write(&stale, "half a page").unwrap();
    let mut removed = Vec::new();
    write(
        &d.path().join("page.html"),
        Contents::Bytes(b"new"),
        Target::Output,
        &mut |name| removed.push(name.to_owned()),
    )
    .unwrap();
    assert_eq!(removed, [stale.display().to_string()]);
    assert!(!stale.exists());
    assert_eq!(
        fs::read_to_string(d.path().join("page.html")).unwrap(),
        "new"
    );
    assert_eq!(
        removed_notice("a\nb.tmp"),
        "removed a\\nb.tmp, left by an interrupted run"
    );
}
