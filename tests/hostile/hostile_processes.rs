//! No process outlives mcpdeck: a server's descendant that left its process group with `setsid`
//! and ignores SIGTERM is re-parented to mcpdeck (a child subreaper) and killed and reaped at
//! shutdown.

use crate::common;

use std::time::Duration;

use common::{Sandbox, alive, fixture, gone_within};
use serde_json::json;

#[test]
fn setsid_grandchild_ignoring_sigterm_is_reaped_at_shutdown() {
    let sb = Sandbox::new();
    let pidfile = sb.dir.path().join("grandchild.pid");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": {
            "command": fixture(),
            "args": ["stdio", "--setsid-grandchild"],
            "env": {"FIXTURE_GRANDCHILD_PID": pidfile.to_string_lossy()},
        }}})
        .to_string(),
    );
    let out = sb
        .cmd()
        .args(["call", "fx", "echo", "text=hi"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("the grandchild started")
        .trim()
        .parse()
        .expect("a pid");
    let gone = gone_within(pid, Duration::from_secs(5));
    if !gone && alive(pid) {
        // Do not leave it behind if the assertion fails.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(gone, "the setsid grandchild {pid} outlived mcpdeck");
}
