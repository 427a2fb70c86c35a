//! Stdio servers in a sandbox, through the real binary and its launcher: the hostile probe
//! fixture reads a canary outside its rules, writes outside them, connects over TCP to a
//! loopback port it was not given, sends UDP and starts more processes than its limit — each
//! blocked in the sandbox (the canary in no output) and each working without it.

#![allow(clippy::unwrap_used)]

use std::net::{TcpListener, UdpSocket};
use std::path::Path;

use crate::common::{Sandbox, fixture};
use serde_json::{Value, json};

struct Scene {
    sb: Sandbox,
    canary: String,
    canary_file: String,
    allowed: String,
    outside: String,
    given: TcpListener,
    other: TcpListener,
    udp: UdpSocket,
}

fn scene(sandbox: &Value) -> Scene {
    let sb = Sandbox::new();
    let root = sb.dir.path();
    let canary = format!("canary-{}", std::process::id());
    let canary_file = sb.write("secret/canary.txt", &canary);
    let allowed = sb.write("allowed/readme.txt", "allowed text");
    std::fs::create_dir_all(root.join("out")).unwrap();
    let given = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let mut rules = sandbox.clone();
    let dir = |d: &str| root.join(d).to_string_lossy().into_owned();
    rules["read"] = json!([dir("allowed")]);
    rules["write"] = json!([dir("out")]);
    if rules.get("net").is_none() {
        rules["net"] = json!({"connect": [given.local_addr().unwrap().port()]});
    }
    let servers = json!({
        "open": {"command": fixture(), "args": ["probe"]},
        "boxed": {"command": fixture(), "args": ["probe"], "sandbox": rules},
    });
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
    Scene {
        canary,
        canary_file: canary_file.to_string_lossy().into_owned(),
        allowed: allowed.to_string_lossy().into_owned(),
        outside: root.join("outside.txt").to_string_lossy().into_owned(),
        sb,
        given,
        other,
        udp,
    }
}

/// Calls the probe on `server`: the tool's text, with everything printed (for the canary).
fn probe(s: &Scene, server: &str, action: &str, target: &str) -> (String, String) {
    let out =
        s.sb.cmd()
            .args(["call", server, "probe", &format!("action={action}")])
            .arg(format!("target={target}"))
            .arg("--json")
            .write_stdin("")
            .output()
            .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {all}"));
    let text = v
        .pointer("/result/text")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no text: {all}"))
        .to_owned();
    (text, all)
}

fn port(l: &TcpListener) -> String {
    l.local_addr().unwrap().port().to_string()
}

#[test]
fn the_probe_is_blocked_in_the_sandbox_and_works_without_it() {
    let s = scene(&json!({}));
    // Without a sandbox, every probe succeeds.
    let (read, _) = probe(&s, "open", "read", &s.canary_file);
    assert_eq!(read, format!("done: {}", s.canary));
    assert_eq!(probe(&s, "open", "write", &s.outside).0, "done: wrote");
    assert_eq!(
        probe(&s, "open", "tcp", &port(&s.other)).0,
        "done: connected"
    );
    // In it: its own rules work …
    assert_eq!(
        probe(&s, "boxed", "read", &s.allowed).0,
        "done: allowed text"
    );
    let inside = s.sb.dir.path().join("out/written.txt");
    let (wrote, _) = probe(&s, "boxed", "write", &inside.to_string_lossy());
    assert_eq!(wrote, "done: wrote");
    assert_eq!(
        probe(&s, "boxed", "tcp", &port(&s.given)).0,
        "done: connected"
    );
    // … and nothing else does.
    std::fs::remove_file(&s.outside).unwrap();
    let (read, all) = probe(&s, "boxed", "read", &s.canary_file);
    assert!(read.starts_with("blocked: Permission denied"), "{read}");
    assert!(!all.contains(&s.canary), "the canary leaked: {all}");
    let (wrote, _) = probe(&s, "boxed", "write", &s.outside);
    assert!(wrote.starts_with("blocked: Permission denied"), "{wrote}");
    assert!(!Path::new(&s.outside).exists());
    let (tcp, _) = probe(&s, "boxed", "tcp", &port(&s.other));
    assert!(tcp.starts_with("blocked: Permission denied"), "{tcp}");
}

#[test]
fn net_none_refuses_udp_and_tcp_too() {
    let s = scene(&json!({"net": "none"}));
    let udp_port = s.udp.local_addr().unwrap().port().to_string();
    let mut buf = [0u8; 16];
    assert_eq!(probe(&s, "open", "udp", &udp_port).0, "done: sent 5 bytes");
    assert_eq!(s.udp.recv(&mut buf).unwrap(), 5);
    let (udp, _) = probe(&s, "boxed", "udp", &udp_port);
    assert!(udp.starts_with("blocked: Permission denied"), "{udp}");
    assert!(s.udp.recv(&mut buf).is_err(), "a datagram arrived");
    let (tcp, _) = probe(&s, "boxed", "tcp", &port(&s.given));
    assert!(tcp.starts_with("blocked: Permission denied"), "{tcp}");
}

/// `mcpdeck` as an ordinary user: the process limit is a per-user resource limit, which the
/// kernel does not apply to root, so as root the scene is handed to `nobody` (`setpriv`).
fn as_ordinary_user(s: &Scene, args: &[&str]) -> (String, String) {
    let root = rustix::process::getuid().is_root();
    let bin = env!("CARGO_BIN_EXE_mcpdeck");
    let mut cmd = if root {
        chown_tree(s.sb.dir.path());
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
        c
    } else {
        std::process::Command::new(bin)
    };
    let out = cmd
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", s.sb.dir.path())
        .env("XDG_CONFIG_HOME", &s.sb.home)
        .env("MCPDECK_CREDENTIAL_STORE", "file")
        .arg("--cwd")
        .arg(&s.sb.project)
        .args(args)
        .arg("--json")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("setpriv (util-linux) runs mcpdeck as nobody");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {all}"));
    let text = v
        .pointer("/result/text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    (text.to_owned(), all)
}

fn chown_tree(dir: &Path) {
    std::os::unix::fs::chown(dir, Some(65534), Some(65534)).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            chown_tree(&path);
        } else {
            std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
        }
    }
}

#[test]
fn the_process_limit_stops_the_probe_starting_more() {
    let s = scene(&json!({"limits": {"processes": 40}}));
    let call =
        |server| as_ordinary_user(&s, &["call", server, "probe", "action=spawn", "target=60"]);
    let (open, all) = call("open");
    assert_eq!(open, "done: started 60 processes", "{all}");
    let (boxed, all) = call("boxed");
    let started: usize = boxed
        .strip_prefix("blocked: after ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not blocked: {all}"));
    assert!(started < 40, "{boxed}");
}

#[test]
fn as_root_a_process_limit_refuses_to_start_the_server() {
    if !rustix::process::getuid().is_root() {
        eprintln!("SKIPPED: runs as root only (the limit is applied to ordinary users above)");
        return;
    }
    let s = scene(&json!({"limits": {"processes": 40}}));
    let out =
        s.sb.cmd()
            .args([
                "call",
                "boxed",
                "probe",
                "action=spawn",
                "target=1",
                "--json",
            ])
            .write_stdin("")
            .output()
            .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("does not apply to root"), "{text}");
}

#[test]
fn a_server_failing_in_its_sandbox_says_so_and_names_the_path() {
    let s = scene(&json!({"net": "none"}));
    let servers = json!({"cat": {
        "command": "sh",
        "args": ["-c", format!("cat {}; exit 3", s.canary_file)],
        "sandbox": {"read": []},
    }});
    s.sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
    let out =
        s.sb.cmd()
            .args(["tools", "cat", "--json"])
            .write_stdin("")
            .output()
            .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("runs sandboxed (read none"), "{text}");
    assert!(
        text.contains(&format!("refused `{}`", s.canary_file)),
        "{text}"
    );
    assert!(!text.contains(&s.canary));
    let status = s.sb.server("cat");
    assert_eq!(
        status["sandbox"],
        "read none · write none · exec command · net none"
    );
}

/// A sandboxed server that answers `initialize` and only then trips over its sandbox (reads a
/// file it was not given, and exits) fails with the same explanation as one failing at start.
#[test]
fn a_server_failing_after_its_start_says_it_runs_sandboxed() {
    let s = scene(&json!({"net": "none"}));
    // Answers `initialize` with its id, reads `notifications/initialized` and `tools/list`,
    // then tries the canary and exits.
    let script = format!(
        r#"read -r line; id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/'); printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"late","version":"1"}}}}}}\n' "$id"; read -r line; read -r line; cat {}; exit 3"#,
        s.canary_file
    );
    let servers = json!({"late": {
        "command": "sh",
        "args": ["-c", script],
        "sandbox": {"read": []},
    }});
    s.sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
    let out =
        s.sb.cmd()
            .args(["tools", "late", "--json"])
            .write_stdin("")
            .output()
            .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("\"exited\""), "{text}");
    assert!(text.contains("runs sandboxed (read none"), "{text}");
    assert!(
        text.contains(&format!("refused `{}`", s.canary_file)),
        "{text}"
    );
    assert!(!text.contains(&s.canary));
}

/// The user's `projectSandbox` confines a trusted project's stdio servers that have no sandbox
/// of their own (`.` is the project); a definition's own sandbox wins; the default shows in
/// `status` and the trust review, and changing it leaves the project trusted.
#[test]
fn the_user_default_confines_a_trusted_projects_servers() {
    let sb = crate::common::Sandbox::new();
    let canary = format!("canary-{}", std::process::id());
    let canary_file = sb.write("secret/canary.txt", &canary);
    let inside = sb.write("project/readme.txt", "project text");
    let user = |default: &str| {
        sb.write(
            "config/mcpdeck/mcp.json",
            &format!(r#"{{"projectSandbox": {default}, "mcpServers": {{}}}}"#),
        );
    };
    user(r#""read-only-project""#);
    let servers = json!({
        "bare": {"command": fixture(), "args": ["probe"]},
        "own": {"command": fixture(), "args": ["probe"], "sandbox": "no-network"},
    });
    sb.write(
        "project/.mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
    let review = sb.stdout(&["trust", "--yes"]);
    assert!(
        review.contains("sandbox  read-only-project · read . · write none · exec command · net none · from your projectSandbox"),
        "{review}"
    );
    let call = |server: &str, target: &Path| {
        let out = sb
            .cmd()
            .args(["call", server, "probe", "action=read"])
            .arg(format!("target={}", target.display()))
            .arg("--json")
            .write_stdin("")
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {all}"));
        let text = v.pointer("/result/text").and_then(Value::as_str);
        (
            text.unwrap_or_else(|| panic!("no text: {all}")).to_owned(),
            all,
        )
    };
    assert_eq!(call("bare", &inside).0, "done: project text");
    let (read, all) = call("bare", &canary_file);
    assert!(read.starts_with("blocked: Permission denied"), "{read}");
    assert!(!all.contains(&canary), "the canary leaked: {all}");
    // Its own sandbox (which may read everything) replaces the default whole.
    assert_eq!(call("own", &canary_file).0, format!("done: {canary}"));
    let bare = sb.server("bare");
    assert!(
        bare["sandbox"]
            .as_str()
            .is_some_and(|s| s.ends_with("· from your projectSandbox")),
        "{bare:#}"
    );
    let own = sb.server("own");
    assert!(
        own["sandbox"]
            .as_str()
            .is_some_and(|s| s.starts_with("no-network") && !s.contains("projectSandbox")),
        "{own:#}"
    );
    // Loosening the default is the operator's business: the project stays trusted.
    user(r#""project""#);
    assert_eq!(sb.trust_state(), "trusted");
    let bare = sb.server("bare");
    assert!(
        bare["sandbox"]
            .as_str()
            .is_some_and(|s| s.starts_with("project · read . · write .")),
        "{bare:#}"
    );
}
