//! The configuration CLI against real files in temporary XDG homes: precedence across all five
//! layers, shadowing (fail closed), `config check` / `config show` / `status` shapes and exit
//! codes, sanitised output.

use crate::common;

use common::Sandbox;

fn layers(sb: &Sandbox) -> (std::path::PathBuf, std::path::PathBuf) {
    sb.write(
        "config/mcp/mcp.json",
        r#"{"mcpServers": {"s": {"command": "shared"}, "a": {"command": "a"}}}"#,
    );
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"s": {"command": "user"}, "b": {"command": "b"}}}"#,
    );
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"s": {"command": "project"}, "c": {"command": "c"}}}"#,
    );
    sb.write(
        "project/.mcpdeck/mcp.json",
        r#"{"mcpServers": {"s": {"command": "deck"}, "d": {"command": "d"}}}"#,
    );
    let f1 = sb.write(
        "extra/one.json",
        r#"{"mcpServers": {"s": {"command": "one"}}}"#,
    );
    let f2 = sb.write(
        "extra/two.json",
        r#"{"mcpServers": {"s": {"command": "two"}, "e": {"command": "e"}}}"#,
    );
    (f1, f2)
}

#[test]
fn five_layers_in_precedence_order_with_shadowing() {
    let sb = Sandbox::new();
    let (f1, f2) = layers(&sb);
    let out = sb
        .cmd()
        .args([
            "--config",
            f1.to_str().expect("utf8"),
            "--config",
            f2.to_str().expect("utf8"),
        ])
        .args(["status", "--json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let servers = status["result"]["servers"].as_array().expect("servers");
    let names: Vec<&str> = servers
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    // The built-in `workspace` server is always present.
    assert_eq!(names, ["a", "b", "c", "d", "e", "s", "workspace"]);
    let s = servers.iter().find(|s| s["name"] == "s").expect("s");
    assert_eq!(s["source"]["layer"], "command-line");
    assert!(
        s["source"]["file"]
            .as_str()
            .expect("file")
            .ends_with("extra/two.json")
    );
    let shadowed: Vec<(&str, &str)> = s["shadowed"]
        .as_array()
        .expect("shadowed")
        .iter()
        .map(|x| {
            let file = x["file"].as_str().expect("file");
            (
                x["layer"].as_str().expect("layer"),
                file.rsplit_once('/')
                    .map_or(file, |(d, _)| d.rsplit('/').next().unwrap_or(d)),
            )
        })
        .collect();
    assert_eq!(
        shadowed,
        [
            ("command-line", "extra"),
            ("project-mcpdeck", ".mcpdeck"),
            ("project", "project"),
            ("user", "mcpdeck"),
            ("shared-user", "mcp")
        ]
    );
    let files: Vec<&str> = status["result"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["layer"].as_str().expect("layer"))
        .collect();
    assert_eq!(
        files,
        [
            "shared-user",
            "user",
            "project",
            "project-mcpdeck",
            "command-line",
            "command-line"
        ]
    );
}

#[test]
fn config_show_reports_the_winner_as_written() {
    let sb = Sandbox::new();
    let (_, f2) = layers(&sb);
    let v: serde_json::Value = serde_json::from_slice(
        &sb.cmd()
            .args([
                "--config",
                f2.to_str().expect("utf8"),
                "config",
                "show",
                "s",
                "--json",
            ])
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("json");
    let servers = v["result"]["servers"].as_array().expect("servers");
    assert_eq!(servers.len(), 1);
    assert_eq!(
        servers[0]["definition"],
        serde_json::json!({"command": "two"})
    );
    assert_eq!(
        servers[0]["shadowed"].as_array().expect("shadowed").len(),
        4
    );
}

#[test]
fn an_invalid_higher_definition_shadows_and_never_falls_back() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"gh": {"command": "good"}, "api": {"command": "good"}}}"#,
    );
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"gh": {"command": "x", "oops": 1}, "api": {"command": "project"}}}"#,
    );
    let gh = sb.server("gh");
    assert_eq!(gh["state"], "invalid");
    assert_eq!(gh["source"]["layer"], "project");
    assert_eq!(gh["shadowed"][0]["layer"], "user");
    let api = sb.server("api");
    assert_eq!(
        api["state"], "inert",
        "untrusted project definition still wins, inert"
    );
    assert_eq!(api["shadowed"][0]["layer"], "user");
}

#[test]
fn config_check_names_three_problems_and_exits_1() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {
  "gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_x1y2z3"}},
  "api": {"serverUrl": "https://api.example.com/mcp", "url": "https://api.example.com/mcp"},
  "old": {"type": "sse", "url": "https://api.example.com/sse"}
}}"#,
    );
    let out = sb.cmd().args(["config", "check"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf8");
    let file = sb.project.join(".mcp.json");
    let file = file.display();
    assert!(
        text.contains(&format!(
            "{file}:2:39: error[literal_secret] at mcpServers.gh.env.GITHUB_TOKEN"
        )),
        "{text}"
    );
    assert!(
        text.contains("help: literal token in `GITHUB_TOKEN`; use `${GITHUB_TOKEN}` and export it"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{file}:3:11: error[unknown_field] at mcpServers.api.serverUrl"
        )),
        "{text}"
    );
    assert!(text.contains("did you mean `url`?"), "{text}");
    assert!(
        text.contains(&format!(
            "{file}:4:19: error[sse_unsupported] at mcpServers.old.type"
        )),
        "{text}"
    );
    assert!(text.contains("3 error(s), 0 warning(s)"), "{text}");
    assert!(
        !text.contains("ghp_x1y2z3"),
        "the literal secret is never echoed"
    );

    let v = sb.json(&["config", "check", "--json"]);
    assert_eq!(v["ok"], false);
    assert_eq!(
        v["result"]["counts"],
        serde_json::json!({"errors": 3, "warnings": 0})
    );
}

#[test]
fn config_check_is_clean_on_good_files() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"a": {"command": "a"}}}"#,
    );
    sb.cmd()
        .args(["config", "check"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("configuration is clean"));
    let v = sb.json(&["config", "check", "--json"]);
    assert_eq!(v["ok"], true);
}

#[test]
fn a_missing_config_argument_and_a_broken_file_are_errors_but_others_load() {
    let sb = Sandbox::new();
    sb.write("config/mcpdeck/mcp.json", "{ not json");
    sb.write(
        "config/mcp/mcp.json",
        r#"{"mcpServers": {"ok": {"command": "a"}}}"#,
    );
    let out = sb
        .cmd()
        .args(["--config", "/nonexistent/x.json", "config", "check"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.contains("/nonexistent/x.json: error[file_missing]"),
        "{text}"
    );
    assert!(
        text.contains("mcpdeck/mcp.json:1:3: error[syntax]"),
        "{text}"
    );
    assert_eq!(sb.server("ok")["state"], "disconnected");
}

#[test]
fn oversized_and_non_utf8_files_are_rejected_without_parsing() {
    let sb = Sandbox::new();
    let big = format!(
        "{{\"mcpServers\": {{}}, \"pad\": \"{}\"}}",
        "x".repeat(4 * 1024 * 1024)
    );
    sb.write("project/.mcp.json", &big);
    std::fs::create_dir_all(sb.project.join(".mcpdeck")).expect("mkdir");
    std::fs::write(sb.project.join(".mcpdeck").join("mcp.json"), b"\xff\xfe{}").expect("write");
    let v = sb.json(&["config", "check", "--json"]);
    let codes: Vec<String> = v["result"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| {
            f["diagnostics"]
                .as_array()
                .expect("diags")
                .iter()
                .map(|d| d["code"].as_str().expect("code").to_owned())
        })
        .collect();
    assert_eq!(codes, ["too_large", "not_utf8"]);
}

#[test]
fn home_dot_config_is_used_without_xdg_config_home() {
    let sb = Sandbox::new();
    sb.write(
        ".config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"from-home": {"command": "a"}}}"#,
    );
    let out = sb
        .cmd()
        .env_remove("XDG_CONFIG_HOME")
        .args(["status", "--json"])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["result"]["servers"][0]["name"], "from-home");
}

#[test]
fn status_json_shape_and_proxy_status_agree() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"api": {"url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${MCPDECK_TEST_TOKEN}"}}}}"#,
    );
    let status = sb.json(&["status", "--json"]);
    assert_eq!(status["ok"], true);
    assert_eq!(status["operation"], "status");
    let api = &status["result"]["servers"][0];
    assert_eq!(api["state"], "disconnected");
    assert_eq!(api["transport"], "http");
    assert_eq!(
        api["references"],
        serde_json::json!([{"field": "headers.Authorization", "variable": "MCPDECK_TEST_TOKEN", "set": false}])
    );
    assert_eq!(status["result"]["project"]["trust"], "no-project-config");
    for request in ["{}", r#"{"operation":"status"}"#] {
        assert_eq!(
            sb.json(&["proxy", request, "--json"]),
            status,
            "proxy {request}"
        );
    }
    let out = sb
        .cmd()
        .env("MCPDECK_TEST_TOKEN", "s3cr3t-value")
        .args(["status", "--json"])
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(text.contains(r#""set":true"#));
    assert!(
        !text.contains("s3cr3t-value"),
        "status never resolves a reference"
    );
}

#[test]
fn human_status_lists_provenance_and_trust() {
    let sb = Sandbox::new();
    sb.write("config/mcpdeck/mcp.json", r#"{"mcpServers": {"local": {"command": "a"}, "gh": {"command": "b", "env": {"GH_TOKEN": "${GH_TOKEN}"}}}}"#);
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"local": {"command": "c"}}}"#,
    );
    let out = sb.cmd().arg("status").output().expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.contains("trust    untrusted — project servers are inert"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("local")
            && l.contains("inert")
            && l.contains("project ")
            && l.contains(".mcp.json:1")),
        "{text}"
    );
    assert!(text.contains("shadows user "), "{text}");
    assert!(
        text.contains("${GH_TOKEN} in env.GH_TOKEN (NOT SET)"),
        "{text}"
    );
}

#[test]
fn hostile_config_text_is_sanitised_in_every_output() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        "{\"mcpServers\": {\"evil\\u001b[2J\\u202e\": {\"command\": \"x\\u001b]52;c;aGk=\\u0007\", \"bogus\\u200b\": 1}}}",
    );
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["config", "check"],
        &["config", "check", "--json"],
        &["config", "show"],
        &["config", "show", "--json"],
        &["trust", "--yes"],
    ] {
        let out = sb.cmd().args(args).output().expect("runs");
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(
                !stream.contains(&0x1b),
                "{args:?} printed a raw ESC: {text}"
            );
            assert!(
                !stream.contains(&0x07),
                "{args:?} printed a raw BEL: {text}"
            );
            for forbidden in ['\u{202e}', '\u{200b}'] {
                assert!(
                    !text.contains(forbidden),
                    "{args:?} printed {forbidden:?}: {text}"
                );
            }
        }
    }
    let text =
        String::from_utf8(sb.cmd().arg("status").output().expect("runs").stdout).expect("utf8");
    assert!(text.contains("evil␛[2J⟨U+202E⟩"), "{text}");
}

#[test]
fn unknown_server_in_config_show_lists_names() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"alpha": {"command": "a"}, "beta": {"command": "b"}}}"#,
    );
    sb.cmd()
        .args(["config", "show", "gamma"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "no server named `gamma`; configured: alpha, beta",
        ));
}

#[test]
fn a_missing_project_directory_is_a_usage_error() {
    let sb = Sandbox::new();
    sb.cmd_in(&sb.project.join("nope"))
        .arg("status")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("project directory"));
}
