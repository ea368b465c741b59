//! Link the `linkbase` binary as a position-dependent executable on Linux.
//!
//! Why: the DOM engine's static tables (html5ever's named character references, the atom sets of
//! `web_atoms`) hold ~27,000 pointers. In a position-independent executable the dynamic loader
//! rewrites every one at start-up (`_dl_relocate_object`, half of all page faults of a run on a
//! small page: 1.9 ms against 1.3 ms per process, see BENCHMARKS.md). A non-PIE link resolves them
//! at link time. The trade-off is ASLR of the executable's own image (heap, stack and shared
//! libraries are still randomised); packagers who want PIE set `LINKBASE_PIE=1` when building.

fn main() {
    println!("cargo:rerun-if-env-changed=LINKBASE_PIE");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu && std::env::var_os("LINKBASE_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
