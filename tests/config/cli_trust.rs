//! Project trust end to end through the real binary: inert until trusted, the fingerprint, what
//! keeps trust and what flips it to `changed`, canonical roots, refusal without a TTY, corrupt
//! stores, revoke, and that nothing ever spawns while reading configuration.

use crate::common;

use common::Sandbox;

const BASE: &str = r#"{
  "mcpServers": {
    "local": {
      "type": "stdio",
      "command": "node",
      "args": ["server.js", "--port", "1"],
      "cwd": "srv",
      "env": {"API_TOKEN": "${API_TOKEN}", "LEVEL": "info"},
      "requestTimeoutMs": 5000
    },
    "remote": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"}
    }
  }
}"#;

fn trusted(sb: &Sandbox, text: &str) {
    sb.write("project/.mcp.json", text);
    sb.cmd().args(["trust", "--yes"]).assert().code(0);
    assert_eq!(sb.trust_state(), "trusted");
}

#[test]
fn untrusted_project_servers_are_inert_until_trusted() {
    let sb = Sandbox::new();
    sb.write("project/.mcp.json", BASE);
    assert_eq!(sb.trust_state(), "untrusted");
    assert_eq!(sb.server("local")["state"], "inert");
    assert_eq!(sb.server("remote")["state"], "inert");
    let fingerprint = sb.json(&["status", "--json"])["result"]["project"]["fingerprint"].clone();
    sb.cmd().args(["trust", "--yes"]).assert().code(0);
    assert_eq!(sb.trust_state(), "trusted");
    assert_eq!(sb.server("local")["state"], "disconnected");

    let store_path = sb.home.join("mcpdeck/trust.json");
    let store: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&store_path).expect("store")).expect("json");
    let canonical = std::fs::canonicalize(&sb.project).expect("canonical");
    assert_eq!(
        store["projects"][0]["root"],
        canonical.to_str().expect("utf8")
    );
    assert_eq!(store["projects"][0]["fingerprint"], fingerprint);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&store_path)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
}

#[test]
fn trust_prints_every_definition_in_full_with_risks() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"r": {"command": "npx", "args": ["-y", "some-mcp-server", "--very-long-argument-that-is-not-abridged-at-all"], "env": {"KEY_FILE": "/etc/x", "API_TOKEN": "${API_TOKEN}"}}}}"#,
    );
    let out = sb.cmd().args(["trust", "--yes"]).output().expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf8");
    for expected in [
        "command  npx",
        "args[0]  -y",
        "args[1]  some-mcp-server",
        "args[2]  --very-long-argument-that-is-not-abridged-at-all",
        "env      API_TOKEN=${API_TOKEN}",
        "! args[1]: package runner without a pinned version",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in {text}");
    }
    let cwd = format!(
        "cwd      {}",
        std::fs::canonicalize(&sb.project)
            .expect("canonical")
            .display()
    );
    assert!(text.contains(&cwd), "{text}");
}

#[test]
fn cosmetic_edits_keep_trust() {
    let sb = Sandbox::new();
    trusted(&sb, BASE);
    let reordered = r#"{"mcpServers":{"remote":{"headers":{"Authorization":"Bearer ${REMOTE_TOKEN}"},"url":"https://api.example.com/mcp","type":"http"},
"local":{"requestTimeoutMs":5000,"env":{"LEVEL":"info","API_TOKEN":"${API_TOKEN}"},"cwd":"srv","args":["server.js","--port","1"],"command":"node","type":"stdio"}}}"#;
    for variant in [
        BASE.replace('\n', "\r\n"),
        BASE.replace("  ", "\t"),
        reordered.to_owned(),
    ] {
        sb.write("project/.mcp.json", &variant);
        assert_eq!(sb.trust_state(), "trusted", "{variant}");
    }
}

#[test]
fn every_substantive_edit_flips_to_changed() {
    let edits: &[(&str, &str, &str)] = &[
        ("command", r#""command": "node""#, r#""command": "nodejs""#),
        ("an arg", r#""--port", "1""#, r#""--port", "2""#),
        ("env key", r#""LEVEL": "info""#, r#""LOG_LEVEL": "info""#),
        ("reference", r#""${API_TOKEN}""#, r#""${OTHER_TOKEN}""#),
        ("cwd", r#""cwd": "srv""#, r#""cwd": "..""#),
        (
            "url",
            "https://api.example.com/mcp",
            "https://evil.example.com/mcp",
        ),
        (
            "header",
            r#""Authorization": "Bearer ${REMOTE_TOKEN}""#,
            r#""Authorization": "Bearer ${REMOTE_TOKEN}", "X-Extra": "1""#,
        ),
        ("type", r#""type": "http""#, r#""type": "streamable-http""#),
        (
            "timeout",
            r#""requestTimeoutMs": 5000"#,
            r#""requestTimeoutMs": 6000"#,
        ),
    ];
    let sb = Sandbox::new();
    for (what, from, to) in edits {
        trusted(&sb, BASE);
        assert!(BASE.contains(from), "{what}: fixture lacks {from}");
        sb.write("project/.mcp.json", &BASE.replace(from, to));
        assert_eq!(sb.trust_state(), "changed", "{what} should flip trust");
        assert_eq!(
            sb.server("local")["state"],
            "inert",
            "{what}: project servers inert again"
        );
        assert_eq!(sb.server("remote")["state"], "inert");
    }
    sb.write("project/.mcp.json", BASE);
    assert_eq!(
        sb.trust_state(),
        "trusted",
        "reverting restores the trusted fingerprint"
    );
    sb.write(
        "project/.mcpdeck/mcp.json",
        r#"{"mcpServers": {"more": {"command": "x"}}}"#,
    );
    assert_eq!(sb.trust_state(), "changed", "a new project file counts");
}

#[test]
fn changed_trust_shows_the_difference() {
    let sb = Sandbox::new();
    trusted(&sb, BASE);
    sb.write(
        "project/.mcp.json",
        &BASE.replace(r#""--port", "1""#, r#""--port", "9""#),
    );
    let out = sb.cmd().args(["trust"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "no TTY and no --yes: refused");
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(text.contains("~ changed .mcp.json local"), "{text}");
    assert!(
        text.contains(r#""--port","1""#) && text.contains(r#""--port","9""#),
        "{text}"
    );
    assert_eq!(sb.trust_state(), "changed");
}

#[test]
fn refusal_without_tty_writes_nothing() {
    let sb = Sandbox::new();
    sb.write("project/.mcp.json", BASE);
    sb.cmd()
        .arg("trust")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("pass --yes"));
    assert!(!sb.home.join("mcpdeck/trust.json").exists());
    assert_eq!(sb.trust_state(), "untrusted");
}

#[test]
fn symlinked_project_resolves_and_moved_project_is_untrusted() {
    let sb = Sandbox::new();
    trusted(&sb, BASE);
    #[cfg(unix)]
    {
        let link = sb.dir.path().join("link");
        std::os::unix::fs::symlink(&sb.project, &link).expect("symlink");
        let v: serde_json::Value = serde_json::from_slice(
            &sb.cmd_in(&link)
                .args(["status", "--json"])
                .output()
                .expect("runs")
                .stdout,
        )
        .expect("json");
        assert_eq!(v["result"]["project"]["trust"], "trusted");
        assert_eq!(
            v["result"]["project"]["root"],
            std::fs::canonicalize(&sb.project)
                .expect("c")
                .to_str()
                .expect("utf8")
        );
    }
    let moved = sb.dir.path().join("moved");
    std::fs::rename(&sb.project, &moved).expect("move");
    let v: serde_json::Value = serde_json::from_slice(
        &sb.cmd_in(&moved)
            .args(["status", "--json"])
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("json");
    assert_eq!(v["result"]["project"]["trust"], "untrusted");
}

#[test]
fn parent_trust_is_not_inherited() {
    let sb = Sandbox::new();
    trusted(&sb, BASE);
    let child = sb.project.join("child");
    std::fs::create_dir_all(&child).expect("mkdir");
    std::fs::write(child.join(".mcp.json"), BASE).expect("write");
    let v: serde_json::Value = serde_json::from_slice(
        &sb.cmd_in(&child)
            .args(["status", "--json"])
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("json");
    assert_eq!(v["result"]["project"]["trust"], "untrusted");
}

#[test]
fn project_files_cannot_grant_trust() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"s": {"command": "x", "trust": true, "autoApprove": ["*"]}}, "trust": true, "mode": "audit"}"#,
    );
    assert_eq!(sb.trust_state(), "untrusted");
    assert_eq!(sb.server("s")["state"], "invalid");
    let v = sb.json(&["config", "check", "--json"]);
    let paths: Vec<String> = v["result"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| {
            f["diagnostics"]
                .as_array()
                .expect("d")
                .iter()
                .map(|d| d["path"].as_str().expect("p").to_owned())
        })
        .collect();
    assert_eq!(
        paths,
        [
            "trust",
            "mode",
            "mcpServers.s.trust",
            "mcpServers.s.autoApprove"
        ]
    );
}

#[test]
fn a_corrupt_store_is_reported_and_never_overwritten() {
    let sb = Sandbox::new();
    sb.write("project/.mcp.json", BASE);
    let store = sb.write("config/mcpdeck/trust.json", "{ this is not json");
    let status = sb.json(&["status", "--json"]);
    assert_eq!(status["result"]["project"]["trust"], "untrusted");
    assert!(
        status["result"]["project"]["trustStoreProblem"]
            .as_str()
            .expect("problem")
            .contains("not a valid trust store")
    );
    sb.cmd()
        .args(["trust", "--yes"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("will not overwrite it"));
    sb.cmd().args(["trust", "--revoke"]).assert().code(1);
    assert_eq!(
        std::fs::read_to_string(&store).expect("store"),
        "{ this is not json"
    );
}

#[test]
fn revoke_removes_the_entry() {
    let sb = Sandbox::new();
    trusted(&sb, BASE);
    sb.cmd()
        .args(["trust", "--revoke"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("revoked trust"));
    assert_eq!(sb.trust_state(), "untrusted");
    sb.cmd()
        .args(["trust", "--revoke"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("was not trusted"));
}

#[test]
fn no_project_config_has_nothing_to_trust() {
    let sb = Sandbox::new();
    assert_eq!(sb.trust_state(), "no-project-config");
    sb.cmd()
        .args(["trust", "--yes"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("nothing to trust"));
}

#[test]
fn reading_configuration_never_spawns_anything() {
    let sb = Sandbox::new();
    let marker = sb.dir.path().join("marker");
    let cmd = format!(
        r#"{{"mcpServers": {{"m": {{"command": "sh", "args": ["-c", "touch {}"]}}, "u": {{"command": "/usr/bin/touch", "args": ["{}"]}}}}}}"#,
        marker.display(),
        marker.display()
    );
    sb.write("project/.mcp.json", &cmd);
    sb.write(
        "config/mcpdeck/mcp.json",
        &cmd.replace("\"m\"", "\"m2\"").replace("\"u\"", "\"u2\""),
    );
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["config", "check"],
        &["config", "show"],
        &["proxy", "{}"],
        &["trust", "--yes"],
        &["status"],
        &["config", "show", "m", "--json"],
    ] {
        sb.cmd().args(args).output().expect("runs");
        assert!(!marker.exists(), "{args:?} spawned a configured command");
    }
    assert_eq!(sb.trust_state(), "trusted");
}

#[test]
fn trusting_an_already_trusted_project_succeeds_without_a_terminal() {
    let sb = Sandbox::new();
    trusted(&sb, BASE);
    // No --yes and no terminal: nothing needs confirming, so it is not a refusal.
    sb.cmd()
        .arg("trust")
        .assert()
        .code(0)
        .stdout(predicates::str::contains("already trusted"));
    let v = sb.json(&["trust", "--json"]);
    assert_eq!(v["result"]["outcome"], "already_trusted");
}
