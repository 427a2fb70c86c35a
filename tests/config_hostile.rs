//! Hostile configuration files: paths that are not regular files, files near the 4 MiB cap
//! with 100,000 servers or env keys, and values too long to quote whole.

mod common;

use std::time::Duration;

use common::Sandbox;

/// Every command here must answer well within this; a blocking open would hang forever.
const BOUND: Duration = Duration::from_secs(30);

/// `config check` on a project whose `.mcp.json` is whatever `make` put there.
fn check_unreadable(make: impl FnOnce(&std::path::Path)) {
    let sb = Sandbox::new();
    let path = sb.project.join(".mcp.json");
    make(&path);
    let out = sb
        .cmd()
        .args(["config", "check"])
        .timeout(BOUND)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("{}: error[unreadable]", path.display())),
        "{text}"
    );
    assert!(text.contains("not a regular file"), "{text}");
}

#[test]
fn a_fifo_is_unreadable_without_blocking() {
    check_unreadable(|path| {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
    });
}

#[test]
fn a_socket_is_unreadable() {
    check_unreadable(|path| {
        let listener = std::os::unix::net::UnixListener::bind(path).expect("bind");
        // The socket file stays after the listener closes; nobody needs to accept.
        drop(listener);
    });
}

#[test]
fn a_directory_is_unreadable() {
    check_unreadable(|path| std::fs::create_dir(path).expect("mkdir"));
}

#[test]
fn a_device_is_unreadable() {
    check_unreadable(|path| std::os::unix::fs::symlink("/dev/zero", path).expect("symlink"));
}
