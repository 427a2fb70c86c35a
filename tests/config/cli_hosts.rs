//! `mcpdeck hosts` end to end through the real binary, with each host's files (valid and broken)
//! under a sandboxed `$HOME`: the matrix, one host in detail, diagnostics with positions,
//! export → that host's reader round trips, import with its refusals, and test-connect of a
//! Claude Code project server against the demo server, refused while the project is untrusted.

use crate::common;

use std::path::Path;

use common::Sandbox;
use serde_json::Value;

/// Copies `tests/fixtures/hosts/<kind>` into the sandbox root, filling in the project path and
/// the mcpdeck binary.
fn sandbox(kind: &str) -> Sandbox {
    let sb = Sandbox::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hosts")
        .join(kind);
    let project = std::fs::canonicalize(&sb.project).expect("project");
    copy(&root, &root, &sb, &project);
    sb
}

fn copy(base: &Path, dir: &Path, sb: &Sandbox, project: &Path) {
    for entry in std::fs::read_dir(dir).expect("fixture dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            copy(base, &path, sb, project);
            continue;
        }
        let rel = path.strip_prefix(base).expect("relative");
        let text = std::fs::read_to_string(&path)
            .expect("fixture")
            .replace("@PROJECT@", project.to_str().expect("utf8"))
            .replace("@MCPDECK@", env!("CARGO_BIN_EXE_mcpdeck"));
        sb.write(rel.to_str().expect("utf8"), &text);
    }
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, Value, String) {
    let out = sb.cmd().args(args).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (
        out.status.code().expect("exit code"),
        json,
        stdout + &stderr,
    )
}

fn row<'a>(matrix: &'a Value, name: &str) -> &'a Value {
    matrix["result"]["servers"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {matrix:#}"))
}

#[test]
fn matrix_compares_every_host_with_mcpdeck() {
    let sb = sandbox("valid");
    let (code, m, _) = run(&sb, &["hosts", "--json"]);
    assert_eq!(code, 0);
    let docs = row(&m, "docs");
    assert_eq!(docs["mcpdeck"], "valid");
    for host in ["cursor", "codex", "gemini", "windsurf"] {
        assert_eq!(docs["hosts"][host]["state"], "same", "{host}: {docs:#}");
    }
    // VS Code prompts for the key and Claude Code falls back to a default: both differ there.
    for host in ["vscode", "claude-code"] {
        assert_eq!(docs["hosts"][host]["state"], "differs");
        assert_eq!(
            docs["hosts"][host]["fields"],
            serde_json::json!(["headers.Authorization"])
        );
    }
    let fs = row(&m, "fs");
    assert_eq!(fs["mcpdeck"], "absent");
    assert_eq!(fs["hosts"]["claude-code"]["state"], "only here");
    assert_eq!(fs["hosts"]["cursor"]["state"], "-");
    // The project's .mcp.json is read by both mcpdeck and Claude Code.
    assert_eq!(
        row(&m, "demo-copy")["hosts"]["claude-code"]["state"],
        "same"
    );

    let (code, _, text) = run(&sb, &["hosts"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("docs in vscode: headers.Authorization"),
        "{text}"
    );
}

#[test]
fn show_gives_provenance_shadowing_variables_and_traps() {
    let sb = sandbox("valid");
    let (code, v, _) = run(&sb, &["hosts", "show", "claude-code", "--json"]);
    assert_eq!(code, 0);
    let servers = v["result"]["servers"].as_array().expect("servers");
    let fs = servers.iter().find(|s| s["name"] == "fs").expect("fs");
    assert_eq!(fs["scope"], "local");
    assert_eq!(fs["shadowed"][0]["scope"], "user");
    assert_eq!(fs["shadowed"][0]["line"], 3);
    let docs = servers.iter().find(|s| s["name"] == "docs").expect("docs");
    assert_eq!(docs["transport"], "http");
    assert_eq!(
        docs["variables"][0],
        serde_json::json!({"field": "headers.Authorization", "kind": "env-with-default", "name": "DOCS_TOKEN", "set": false})
    );
    let traps: Vec<&str> = v["result"]["traps"]
        .as_array()
        .expect("traps")
        .iter()
        .filter_map(|t| t["code"].as_str())
        .collect();
    assert_eq!(traps, ["project_approval"]);

    let (_, v, _) = run(&sb, &["hosts", "show", "vscode", "--json"]);
    let docs = &v["result"]["servers"][0];
    assert_eq!(docs["variables"][0]["kind"], "input");
    assert_eq!(docs["variables"][0]["name"], "docs-key");
    assert_eq!(
        v["result"]["files"][1]["present"], true,
        "JSONC with comments is fine for VS Code"
    );

    let (code, _, text) = run(&sb, &["hosts", "show", "codex"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("variable DOCS_TOKEN: NOT SET  (in headers.Authorization)"),
        "{text}"
    );
    let (code, _, text) = run(&sb, &["hosts", "show", "nonsense"]);
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("invalid value 'nonsense'")
            && text
                .contains("possible values: claude-code, cursor, vscode, codex, gemini, windsurf"),
        "{text}"
    );
}

#[test]
fn check_reports_each_hosts_rules_with_positions() {
    let sb = sandbox("valid");
    let (code, v, out) = run(&sb, &["hosts", "check", "--json"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(v["result"]["counts"]["errors"], 0);

    let sb = sandbox("broken");
    let (code, _, text) = run(&sb, &["hosts", "check"]);
    assert_eq!(code, 1, "{text}");
    let root = sb.dir.path().to_str().expect("utf8").to_owned();
    let project = std::fs::canonicalize(&sb.project).expect("project");
    let project = project.to_str().expect("utf8");
    for expected in [
        format!("{root}/.claude.json:3:15: error[missing_type] at mcpServers.remote"),
        format!("{root}/.claude.json:4:60: error[literal_secret] at mcpServers.keyed.env.API_KEY"),
        format!("{project}/.cursor/mcp.json:3:47: error[syntax]"),
        format!("{project}/.vscode/mcp.json:3:16: error[missing_type] at servers.untyped"),
        format!(
            "{project}/.vscode/mcp.json:4:91: error[undefined_input] at servers.prompted.headers.X-Key"
        ),
        format!("{root}/.codex/config.toml:3:1: error[transport_conflict] at mcp_servers.mixed"),
        format!(
            "{root}/.codex/config.toml:7:1: error[literal_secret] at mcp_servers.inline.bearer_token"
        ),
        format!(
            "{root}/.gemini/settings.json:4:27: warning[unpinned_package] at mcpServers.latest.args"
        ),
        format!(
            "{root}/.codeium/windsurf/mcp_config.json:3:24: error[type_mismatch] at mcpServers.num.command"
        ),
        format!(
            "{root}/.codeium/windsurf/mcp_config.json:4:73: warning[unknown_field] at mcpServers.legacy.comand"
        ),
    ] {
        assert!(text.contains(&expected), "missing `{expected}` in:\n{text}");
    }
    assert!(text.contains("Claude Code loads no server from"), "{text}");
    assert!(
        !text.contains("sk-live-0123456789") && !text.contains("tok-0123456789"),
        "secrets printed:\n{text}"
    );
    let (_, v, _) = run(&sb, &["hosts", "show", "claude-code", "--json"]);
    let keyed = v["result"]["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .find(|s| s["name"] == "keyed")
        .expect("keyed");
    assert_ne!(keyed["definition"]["env"]["API_KEY"], "sk-live-0123456789");
}

const DECK: &str = r#"{
  "mcpServers": {
    "local": {
      "command": "node",
      "args": ["server.js", "--port", "7"],
      "env": {"API_TOKEN": "${API_TOKEN}", "LEVEL": "info"}
    },
    "remote": {
      "url": "https://api.example.com/mcp",
      "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}", "X-Team": "core"}
    }
  }
}"#;

/// Where each host keeps its user file, relative to the sandbox root.
fn user_file(host: &str) -> &'static str {
    match host {
        "claude-code" => ".claude.json",
        "cursor" => ".cursor/mcp.json",
        "vscode" => "config/Code/User/mcp.json",
        "codex" => ".codex/config.toml",
        "gemini" => ".gemini/settings.json",
        _ => ".codeium/windsurf/mcp_config.json",
    }
}

fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(existing) => merge(existing, v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (slot, other) => *slot = other,
    }
}

#[test]
fn export_then_read_back_gives_the_same_definition_for_every_host() {
    for host in [
        "claude-code",
        "cursor",
        "vscode",
        "codex",
        "gemini",
        "windsurf",
    ] {
        let sb = Sandbox::new();
        sb.write("config/mcpdeck/mcp.json", DECK);
        let mut json_doc = Value::Object(serde_json::Map::new());
        let mut toml_doc = String::new();
        for server in ["local", "remote"] {
            let out = sb
                .cmd()
                .args(["hosts", "export", server, "--for", host])
                .output()
                .expect("runs");
            assert!(
                out.status.success(),
                "{host} {server}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let snippet = String::from_utf8(out.stdout).expect("utf8");
            if host == "codex" {
                toml_doc.push_str(&snippet);
                toml_doc.push('\n');
            } else {
                merge(
                    &mut json_doc,
                    serde_json::from_str(&snippet).expect("snippet is JSON"),
                );
            }
        }
        let text = if host == "codex" {
            toml_doc
        } else {
            serde_json::to_string_pretty(&json_doc).expect("json")
        };
        sb.write(user_file(host), &text);
        let out = sb
            .cmd()
            .env("API_TOKEN", "t")
            .env("REMOTE_TOKEN", "r")
            .args(["hosts", "--json"])
            .output()
            .expect("runs");
        let m: Value = serde_json::from_slice(&out.stdout).expect("json");
        for server in ["local", "remote"] {
            assert_eq!(
                row(&m, server)["hosts"][host]["state"],
                "same",
                "{host} {server}:\n{text}\n{m:#}"
            );
        }
        let out = sb
            .cmd()
            .env("API_TOKEN", "t")
            .env("REMOTE_TOKEN", "r")
            .args(["hosts", "check", "--json"])
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{host}: exported text has errors:\n{text}\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn export_refuses_what_the_host_cannot_express() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"w": {"command": "node", "cwd": "srv", "env": {"A": "x-${B}"}}}}"#,
    );
    let (code, _, text) = run(&sb, &["hosts", "export", "w", "--for", "cursor"]);
    assert_eq!(code, 1);
    assert!(
        text.contains("Cursor has no working-directory setting"),
        "{text}"
    );
    let (code, _, text) = run(&sb, &["hosts", "export", "w", "--for", "codex"]);
    assert_eq!(code, 1);
    assert!(text.contains("`env.A`"), "{text}");
    let (code, v, _) = run(&sb, &["hosts", "export", "w", "--for", "vscode", "--json"]);
    assert_eq!(code, 0);
    assert!(
        v["result"]["snippet"]
            .as_str()
            .expect("snippet")
            .contains("\"A\": \"x-${env:B}\"")
    );
}

#[test]
fn import_previews_writes_atomically_with_a_backup_and_refuses_literals() {
    use std::os::unix::fs::PermissionsExt as _;
    let sb = sandbox("valid");
    let target = sb.home.join("mcpdeck/mcp.json");
    let before = std::fs::read_to_string(&target).expect("deck file");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    // Without a terminal and without --yes nothing is written.
    let (code, _, text) = run(
        &sb,
        &["hosts", "import", "claude-code", "fs", "--to", "user"],
    );
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("+ fs:"), "preview shown: {text}");
    assert_eq!(std::fs::read_to_string(&target).expect("deck"), before);

    let import_fs = [
        "hosts",
        "import",
        "claude-code",
        "fs",
        "--to",
        "user",
        "--yes",
        "--json",
    ];
    let (code, v, text) = run(&sb, &import_fs);
    assert_eq!(code, 0, "{text}");
    let backup = v["result"]["backup"].as_str().expect("backup path");
    assert_eq!(std::fs::read_to_string(backup).expect("backup"), before);
    // The backup is kept out of the configuration's directory (where git and the workspace
    // search would see it), in the state directory, as every other save does.
    let backups = sb.dir.path().join(".local/state/mcpdeck/backups");
    assert!(
        Path::new(backup).starts_with(&backups),
        "{backup} is not under {}",
        backups.display()
    );
    let beside: Vec<_> = std::fs::read_dir(sb.home.join("mcpdeck"))
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("mcp.json") && n != "mcp.json")
        .collect();
    assert!(beside.is_empty(), "left beside the file: {beside:?}");
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(&target), 0o640, "the file keeps its permissions");
    assert_eq!(mode(Path::new(backup)), 0o600);
    let (_, shown, _) = run(&sb, &["config", "show", "fs", "--json"]);
    assert_eq!(
        shown["result"]["servers"][0]["definition"]["args"][2], ".",
        "the local scope wins in Claude Code, so its definition is imported"
    );
    // Importing the same again changes nothing.
    let (code, v, _) = run(&sb, &import_fs);
    assert_eq!(code, 0);
    assert_eq!(v["result"]["unchanged"][0], "fs");

    // A prompt input cannot become an mcpdeck reference by itself.
    let (code, _, text) = run(
        &sb,
        &[
            "hosts", "import", "vscode", "docs", "--to", "project", "--yes",
        ],
    );
    assert_eq!(code, 1);
    assert!(text.contains("prompts for input `docs-key`"), "{text}");
    assert!(!sb.project.join(".mcpdeck/mcp.json").exists());

    let sb = sandbox("broken");
    let (code, _, text) = run(
        &sb,
        &[
            "hosts",
            "import",
            "claude-code",
            "keyed",
            "--to",
            "user",
            "--yes",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        text.contains("literal credential") && text.contains("export API_KEY"),
        "{text}"
    );
    assert!(!text.contains("sk-live-0123456789"));
    assert!(!sb.home.join("mcpdeck/mcp.json").exists());
}

#[test]
fn connect_runs_a_claude_code_project_server_only_once_trusted() {
    let sb = sandbox("valid");
    let (code, _, text) = run(&sb, &["hosts", "connect", "claude-code", "demo-copy"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("stays inert until this project is trusted"),
        "{text}"
    );
    sb.cmd().args(["trust", "--yes"]).assert().code(0);
    let (code, v, text) = run(
        &sb,
        &["hosts", "connect", "claude-code", "demo-copy", "--json"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        v["result"]["tools"].as_u64().expect("tool count") > 0,
        "{v:#}"
    );
    assert!(
        !v["result"]["protocol"]
            .as_str()
            .expect("protocol")
            .is_empty()
    );
    // A definition that needs an input prompt is refused without a terminal to ask on.
    let (code, _, text) = run(&sb, &["hosts", "connect", "vscode", "docs"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("needs an input"), "{text}");
}

/// Another host's project file is project configuration: trusting the project covers it (and
/// makes a project with only that file trustable), and changing it needs trust again.
#[test]
fn other_hosts_project_files_are_part_of_project_trust() {
    let sb = Sandbox::new();
    let cursor = |args: &[&str]| {
        serde_json::json!({"mcpServers": {"demo": {"command": env!("CARGO_BIN_EXE_mcpdeck"), "args": args}}})
            .to_string()
    };
    // Settings without servers are not MCP configuration.
    sb.write("project/.gemini/settings.json", r#"{"theme": "dark"}"#);
    assert_eq!(sb.trust_state(), "no-project-config");
    sb.write("project/.cursor/mcp.json", &cursor(&["demo-server"]));
    assert_eq!(sb.trust_state(), "untrusted");
    let (code, _, text) = run(&sb, &["hosts", "connect", "cursor", "demo"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("stays inert until this project is trusted"),
        "{text}"
    );

    // The review shows the other host's definition before trusting it.
    let out = sb.cmd().args(["trust", "--yes"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let review = String::from_utf8_lossy(&out.stdout);
    assert!(review.contains("server demo  (Cursor, "), "{review}");
    assert!(
        review.contains("mcpdeck hosts connect cursor demo"),
        "{review}"
    );
    assert!(review.contains("\"demo-server\""), "{review}");
    assert_eq!(sb.trust_state(), "trusted");
    let (code, v, text) = run(&sb, &["hosts", "connect", "cursor", "demo", "--json"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        v["result"]["tools"].as_u64().expect("tool count") > 0,
        "{v:#}"
    );

    // A changed definition in that file needs trust again, and the review says what changed.
    sb.write(
        "project/.cursor/mcp.json",
        &cursor(&["demo-server", "--extra"]),
    );
    assert_eq!(sb.trust_state(), "changed");
    let (code, _, text) = run(&sb, &["hosts", "connect", "cursor", "demo"]);
    assert_eq!(code, 2, "{text}");
    let out = sb.cmd().args(["trust", "--yes"]).output().expect("runs");
    let review = String::from_utf8_lossy(&out.stdout);
    assert!(
        review.contains("~ changed .cursor/mcp.json demo"),
        "{review}"
    );
}

/// mcpdeck's own project servers are covered by the same fingerprint: a new server in another
/// host's project file makes them inert again until the project is reviewed.
#[test]
fn a_new_server_in_another_hosts_project_file_needs_trust_again() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcpdeck/mcp.json",
        r#"{"mcpServers": {"mine": {"command": "true"}}}"#,
    );
    sb.cmd().args(["trust", "--yes"]).assert().code(0);
    assert_eq!(sb.trust_state(), "trusted");
    assert_ne!(sb.server("mine")["state"], "inert");
    sb.write(
        "project/.vscode/mcp.json",
        r#"{"servers": {"theirs": {"type": "stdio", "command": "sh", "args": ["-c", "id"]}}}"#,
    );
    assert_eq!(sb.trust_state(), "changed");
    assert_eq!(sb.server("mine")["state"], "inert");
}

/// Every host's definition (written in its own format by `hosts export`) test-connects to the
/// demo server and imports into mcpdeck's user file.
#[test]
fn connect_and_import_work_for_every_host() {
    let deck = serde_json::json!({"mcpServers": {"demo": {
        "command": env!("CARGO_BIN_EXE_mcpdeck"), "args": ["demo-server"]
    }}})
    .to_string();
    for host in [
        "claude-code",
        "cursor",
        "vscode",
        "codex",
        "gemini",
        "windsurf",
    ] {
        let source = Sandbox::new();
        source.write("config/mcpdeck/mcp.json", &deck);
        let out = source
            .cmd()
            .args(["hosts", "export", "demo", "--for", host])
            .output()
            .expect("runs");
        assert!(out.status.success(), "{host}: export failed");
        let snippet = String::from_utf8(out.stdout).expect("utf8");

        let sb = Sandbox::new();
        sb.write(user_file(host), &snippet);
        let (code, v, text) = run(&sb, &["hosts", "connect", host, "demo", "--json"]);
        assert_eq!(code, 0, "{host}: {text}");
        assert!(
            v["result"]["tools"].as_u64().expect("tool count") > 0,
            "{host}: {v:#}"
        );
        let (code, v, text) = run(
            &sb,
            &[
                "hosts", "import", host, "demo", "--to", "user", "--yes", "--json",
            ],
        );
        assert_eq!(code, 0, "{host}: {text}");
        assert_eq!(v["result"]["added"][0], "demo", "{host}: {v:#}");
        let (_, shown, _) = run(&sb, &["config", "show", "demo", "--json"]);
        assert_eq!(
            shown["result"]["servers"][0]["definition"]["args"][0], "demo-server",
            "{host}: {shown:#}"
        );
    }
}

#[test]
fn export_names_each_field_left_out_of_the_snippet() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {
            "r": {"url": "https://example.com/mcp", "oauth": {"scopes": ["read"]},
                  "requestTimeoutMs": 30000, "reconnect": {"automatic": true, "maxAttempts": 2},
                  "protocolVersion": "auto", "roots": ["docs"]},
            "plain": {"command": "node", "args": ["s.js"]}}}"#,
    );
    let fields = [
        "requestTimeoutMs",
        "reconnect",
        "protocolVersion",
        "roots",
        "oauth",
    ];
    let out = sb
        .cmd()
        .args(["hosts", "export", "r", "--for", "cursor"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for field in fields {
        assert!(
            stderr.contains(&format!(
                "note: `{field}` is not carried: Cursor's format has no field for it"
            )),
            "{field}: {stderr}"
        );
    }
    let (code, v, _) = run(&sb, &["hosts", "export", "r", "--for", "codex", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["result"]["droppedFields"], serde_json::json!(fields));
    let notes = v["result"]["notes"].as_array().expect("notes");
    for field in fields {
        let prefix = format!("`{field}` is not carried: Codex");
        let n = notes
            .iter()
            .filter(|n| n.as_str().is_some_and(|n| n.starts_with(&prefix)))
            .count();
        assert_eq!(n, 1, "{field}: {v:#}");
    }
    let (code, v, _) = run(
        &sb,
        &["hosts", "export", "plain", "--for", "vscode", "--json"],
    );
    assert_eq!(code, 0);
    assert_eq!(v["result"]["droppedFields"], serde_json::json!([]));
}

/// A `sandbox` in another host's file confines nothing there: `hosts check` says so per host,
/// with what mcpdeck would make of the block, in text and `--json`; VS Code's own `sandbox`
/// (another shape) is left alone.
#[test]
fn check_reports_a_sandbox_other_hosts_ignore() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {
  "fs": {"command": "npx", "args": ["-y", "pkg@1.0.0"], "sandbox": "read-only-project"}
}}"#,
    );
    sb.write(
        "project/.cursor/mcp.json",
        r#"{"mcpServers": {
  "bad": {"command": "x", "sandbox": {"net": "some"}}
}}"#,
    );
    sb.write(
        "project/.vscode/mcp.json",
        r#"{"servers": {
  "theirs": {"type": "stdio", "command": "x", "sandboxEnabled": true, "sandbox": {"filesystem": {"allowWrite": ["."]}}},
  "ours": {"type": "stdio", "command": "x", "sandbox": {"read": ["."]}}
}}"#,
    );
    sb.write(
        ".codex/config.toml",
        "[mcp_servers.boxed]\ncommand = \"x\"\nsandbox = \"no-network\"\n",
    );
    let root = sb.dir.path().to_str().expect("utf8").to_owned();
    let project = std::fs::canonicalize(&sb.project).expect("project");
    let project = project.to_str().expect("utf8");
    let (code, _, text) = run(&sb, &["hosts", "check"]);
    assert_eq!(code, 0, "warnings only:\n{text}");
    for expected in [
        format!(
            "{project}/.mcp.json:2:57: warning[mcpdeck_sandbox] at mcpServers.fs.sandbox: `sandbox` is read by mcpdeck only; Claude Code ignores it and starts this server unconfined (mcpdeck would confine it to: read-only-project · read . · write none · exec command · net none)"
        ),
        format!(
            "{project}/.cursor/mcp.json:2:27: warning[mcpdeck_sandbox] at mcpServers.bad.sandbox: `sandbox` is read by mcpdeck only; Cursor ignores it and starts this server unconfined (mcpdeck would refuse this block as written)"
        ),
        format!(
            "{project}/.vscode/mcp.json:3:45: warning[mcpdeck_sandbox] at servers.ours.sandbox: this `sandbox` is mcpdeck's; VS Code's own `sandbox` field has another shape"
        ),
        format!(
            "{root}/.codex/config.toml:3:1: warning[mcpdeck_sandbox] at mcp_servers.boxed.sandbox: `sandbox` is read by mcpdeck only; Codex CLI ignores it and starts this server unconfined (mcpdeck would confine it to: no-network"
        ),
    ] {
        assert!(text.contains(&expected), "missing `{expected}` in:\n{text}");
    }
    assert!(!text.contains("servers.theirs.sandbox"), "{text}");
    assert!(
        !text.contains("at mcpServers.fs.sandbox: `sandbox` is not"),
        "{text}"
    );

    let (code, v, out) = run(&sb, &["hosts", "check", "--json"]);
    assert_eq!(code, 0, "{out}");
    let reported: Vec<(String, String)> = v["result"]["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .flat_map(|h| {
            let host = h["host"].as_str().unwrap_or_default().to_owned();
            h["files"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|f| f["diagnostics"].as_array().into_iter().flatten())
                .filter(|d| d["code"] == "mcpdeck_sandbox")
                .map(move |d| {
                    (
                        host.clone(),
                        d["path"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        reported,
        [
            ("claude-code".to_owned(), "mcpServers.fs.sandbox".to_owned()),
            ("cursor".to_owned(), "mcpServers.bad.sandbox".to_owned()),
            ("vscode".to_owned(), "servers.ours.sandbox".to_owned()),
            ("codex".to_owned(), "mcp_servers.boxed.sandbox".to_owned()),
        ],
        "{v:#}"
    );
}

/// An import keeps mcpdeck's `sandbox` block (which only mcpdeck reads), leaves VS Code's own
/// `sandbox` field behind, and refuses a block mcpdeck would refuse, saying why.
#[test]
fn import_keeps_mcpdecks_sandbox_block() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "pkg@1.0.0"], "sandbox": "read-only-project"}}}"#,
    );
    sb.write(
        "project/.vscode/mcp.json",
        r#"{"servers": {
  "theirs": {"type": "stdio", "command": "x", "sandboxEnabled": true, "sandbox": {"filesystem": {"allowWrite": ["."]}}},
  "ours": {"type": "stdio", "command": "x", "sandbox": {"read": ["."]}}
}}"#,
    );
    sb.write(
        "project/.cursor/mcp.json",
        r#"{"mcpServers": {"bad": {"command": "x", "sandbox": {"net": "some"}}}}"#,
    );
    let import = |host: &str, name: &str| {
        run(
            &sb,
            &[
                "hosts", "import", host, name, "--to", "user", "--yes", "--json",
            ],
        )
    };
    let (code, _, text) = import("claude-code", "fs");
    assert_eq!(code, 0, "{text}");
    let (code, _, text) = import("vscode", "ours");
    assert_eq!(code, 0, "{text}");
    let (code, _, text) = import("vscode", "theirs");
    assert_eq!(code, 0, "{text}");
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.home.join("mcpdeck/mcp.json")).expect("written"),
    )
    .expect("json");
    let servers = &written["mcpServers"];
    assert_eq!(servers["fs"]["sandbox"], "read-only-project", "{written:#}");
    assert_eq!(
        servers["ours"]["sandbox"],
        serde_json::json!({"read": ["."]}),
        "{written:#}"
    );
    assert!(
        servers["theirs"].get("sandbox").is_none(),
        "VS Code's own field stays behind: {written:#}"
    );

    let (code, v, text) = import("cursor", "bad");
    assert_eq!(code, 1, "{text}");
    let message = v["error"]["message"].as_str().unwrap_or(&text).to_owned();
    assert!(
        message.contains("`bad`: ") && message.contains("sandbox"),
        "{message}"
    );
}
