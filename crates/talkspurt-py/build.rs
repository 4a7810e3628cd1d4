//! Bakes the git commit the extension is built from into the module
//! (`_core.__git_commit__`, empty when unknown), so a manifest written by an
//! installed wheel names the source it came from (issue 25's provenance):
//! `talkspurt.versions.git_commit` reads a checkout's files when running
//! from one and this otherwise.
//!
//! Only this repository's commit counts: a source tree unpacked inside some
//! other repository (a venv in a project's checkout, an sdist under one)
//! must not take that repository's HEAD, so git's top level must be this
//! workspace's root. Uncommitted changes are not detected.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(root).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    // crates/talkspurt-py → the workspace root.
    let root = manifest.join("../..").canonicalize().unwrap_or_else(|_| manifest.join("../.."));
    let ours = git(&root, &["rev-parse", "--show-toplevel"])
        .and_then(|t| Path::new(&t).canonicalize().ok())
        .is_some_and(|t| t == root);
    let commit = if ours { git(&root, &["rev-parse", "HEAD"]).unwrap_or_default() } else { String::new() };
    println!("cargo:rustc-env=TALKSPURT_GIT_COMMIT={commit}");
    if ours {
        // Build again when HEAD moves: a checkout (HEAD), a commit on the
        // branch (its ref), or refs packed.
        let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
        if let Some(r) = git(&root, &["symbolic-ref", "-q", "HEAD"]) {
            watch.push(r);
        }
        for w in watch {
            if let Some(p) = git(&root, &["rev-parse", "--git-path", &w]) {
                let p = if Path::new(&p).is_absolute() { PathBuf::from(p) } else { root.join(p) };
                // A missing file would count as changed on every build.
                if p.exists() {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
