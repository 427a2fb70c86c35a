//! Hostile files of other hosts: literal credentials under names that do not look like
//! credentials (an `args` item, an innocent `env` key, URL userinfo, a `?key=` query, a literal
//! header) are never printed, are never imported, and `config check` reports them by position.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};

const GHP: &str = "ghp_Zq81x0aP9LmC4vTt7WbE2nYs6dRk3HfJgU5o";
const ANT: &str = "sk-ant-api03-Qw8eR7tY6uI5oP4aS3dF2gH1jK0lZxCvBnM9";
const PASSWORD: &str = "pa55w0rd-Hunter2-userinfo";
const QUERY_KEY: &str = "qk-7f3a9b1c2d4e5f60718293a4";
const HEADER: &str = "Bearer hdr0123456789abcdefXYZ";

/// A Claude Code user file (`~/.claude.json`) with one server of each kind of leak.
fn leaky_claude(sb: &Sandbox) {
    let servers = json!({
        "gh": {"command": "npx", "args": ["-y", "gh-mcp@1.0.0", "--token", GHP]},
        "ant": {"command": "ant-mcp", "env": {"K": ANT}},
        "web": {
            "type": "http",
            "url": format!("https://bob:{PASSWORD}@mcp.example.test/mcp?key={QUERY_KEY}"),
            "headers": {"X-Api": HEADER, "Authorization": "Bearer literal-authz-value-123"},
        },
    });
    sb.write(".claude.json", &json!({"mcpServers": servers}).to_string());
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, String) {
    let out = sb.cmd().args(args).output().expect("runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in [
        GHP,
        ANT,
        PASSWORD,
        QUERY_KEY,
        "hdr0123456789abcdefXYZ",
        "literal-authz-value-123",
    ] {
        assert!(!text.contains(secret), "{what} printed {secret}:\n{text}");
    }
}

#[test]
fn other_hosts_literal_secrets_are_hidden_by_value_shape_and_the_hiding_is_said() {
    let sb = Sandbox::new();
    leaky_claude(&sb);
    for args in [
        &["hosts", "show", "claude-code"][..],
        &["hosts", "show", "claude-code", "--json"],
        &["hosts", "check", "--json"],
        &["hosts", "check"],
        &["hosts", "--json"],
    ] {
        let (_, text) = run(&sb, args);
        assert_no_secret(&format!("{args:?}"), &text);
    }
    let (_, text) = run(&sb, &["hosts", "show", "claude-code"]);
    assert!(
        text.contains("literal credential"),
        "the hiding is said: {text}"
    );
    let (_, text) = run(&sb, &["hosts", "show", "claude-code", "--json"]);
    let v: Value = serde_json::from_str(&text).expect("json");
    let servers = v["result"]["servers"].as_array().expect("servers");
    let hidden = |name: &str| {
        servers
            .iter()
            .find(|s| s["name"] == name)
            .map(|s| s["hiddenCredentials"].clone())
            .unwrap_or_default()
    };
    assert_eq!(hidden("gh"), 1, "{text}");
    assert_eq!(hidden("ant"), 1, "{text}");
    assert_eq!(hidden("web"), 4, "{text}");
}

#[test]
fn import_refuses_a_credential_by_its_shape_and_config_check_finds_it() {
    let sb = Sandbox::new();
    leaky_claude(&sb);
    for server in ["gh", "ant"] {
        let (code, text) = run(
            &sb,
            &[
                "hosts",
                "import",
                "claude-code",
                server,
                "--to",
                "user",
                "--yes",
            ],
        );
        assert_ne!(code, 0, "{server} imported: {text}");
        assert_no_secret(server, &text);
        let var = if server == "gh" {
            "GITHUB_TOKEN"
        } else {
            "ANTHROPIC_API_KEY"
        };
        assert!(
            text.contains(var),
            "{server}: names the variable to set: {text}"
        );
    }
    assert!(
        !sb.home.join("mcpdeck/mcp.json").exists(),
        "nothing was written"
    );

    // The same literals written into mcpdeck's own file: `config check` is not clean.
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {
            "gh": {"command": "npx", "args": ["-y", "gh-mcp@1.0.0", "--token", GHP]},
            "ant": {"command": "ant-mcp", "env": {"K": ANT}},
        }})
        .to_string(),
    );
    let (_, text) = run(&sb, &["config", "check", "--json"]);
    assert_no_secret("config check", &text);
    let v: Value = serde_json::from_str(&text).expect("json");
    let diags: Vec<&Value> = v["result"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().into_iter().flatten())
        .filter(|d| d["code"] == "literal_secret")
        .collect();
    let paths: Vec<&str> = diags.iter().filter_map(|d| d["path"].as_str()).collect();
    assert!(paths.iter().any(|p| p.ends_with("gh.args[3]")), "{text}");
    assert!(paths.iter().any(|p| p.ends_with("ant.env.K")), "{text}");
    assert!(
        diags
            .iter()
            .all(|d| d["line"].is_number() && d["column"].is_number()),
        "{text}"
    );
}

/// Codex takes `env` literally by design: a literal credential there is a warning (Codex still
/// loads the server), and `bearer_token_env_var` names a variable, which is shown.
#[test]
fn codex_env_is_literal_and_its_variable_names_are_shown() {
    let sb = Sandbox::new();
    sb.write(
        ".codex/config.toml",
        &format!(
            "[mcp_servers.gh]\ncommand = \"gh-mcp\"\nenv = {{ GITHUB_TOKEN = \"{GHP}\" }}\n\n\
             [mcp_servers.web]\nurl = \"https://mcp.example.test/mcp\"\n\
             bearer_token_env_var = \"MY_WEB_TOKEN\"\n"
        ),
    );
    let (_, text) = run(&sb, &["hosts", "check", "--json"]);
    assert_no_secret("hosts check", &text);
    let v: Value = serde_json::from_str(&text).expect("json");
    let codex = v["result"]["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .find(|h| h["name"] == "Codex" || h["host"] == "codex")
        .cloned()
        .expect("codex");
    assert_eq!(codex["counts"]["errors"], 0, "{codex:#}");
    let servers = codex["servers"].as_array().expect("servers");
    for s in servers {
        assert_eq!(s["valid"], true, "{s:#}");
    }
    let (_, text) = run(&sb, &["hosts", "show", "codex"]);
    assert!(
        text.contains("MY_WEB_TOKEN"),
        "the variable's name is shown: {text}"
    );
    assert_no_secret("hosts show codex", &text);
}
