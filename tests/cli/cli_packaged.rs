//! The packaged `demo` server in the CLI: present with `--demo` or when nothing is configured,
//! absent otherwise, winning a name collision with file configuration, never part of trust.

use crate::common;

use common::Sandbox;

fn server_names(status: &serde_json::Value) -> Vec<String> {
    status["result"]["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| s["name"].as_str().expect("name").to_owned())
        .collect()
}

fn demo_of(status: &serde_json::Value) -> serde_json::Value {
    status["result"]["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .find(|s| s["name"] == "demo")
        .cloned()
        .unwrap_or_else(|| panic!("no demo in {status:#}"))
}

#[test]
fn demo_flag_lists_the_demo_server() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"a": {"command": "a"}}}"#,
    );
    let status = sb.json(&["--demo", "status", "--json"]);
    assert_eq!(server_names(&status), ["a", "demo", "workspace"]);
    let demo = demo_of(&status);
    assert_eq!(demo["state"], "disconnected");
    assert_eq!(demo["transport"], "stdio");
    assert_eq!(demo["source"]["layer"], "packaged");
    assert_eq!(demo["source"]["file"], "<packaged>");
    // The flag is global: it may also follow the subcommand.
    let after = sb.json(&["status", "--json", "--demo"]);
    assert_eq!(server_names(&after), ["a", "demo", "workspace"]);
}

#[test]
fn with_no_configuration_at_all_status_lists_demo() {
    let sb = Sandbox::new();
    let status = sb.json(&["status", "--json"]);
    assert_eq!(server_names(&status), ["demo", "workspace"]);
    assert_eq!(demo_of(&status)["source"]["layer"], "packaged");
    // An empty `mcpServers` still configures no server.
    sb.write("config/mcp/mcp.json", r#"{"mcpServers": {}}"#);
    assert_eq!(
        server_names(&sb.json(&["status", "--json"])),
        ["demo", "workspace"]
    );
}

#[test]
fn any_configured_server_hides_demo_without_the_flag() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcp/mcp.json",
        r#"{"mcpServers": {"only": {"command": "x"}}}"#,
    );
    assert_eq!(
        server_names(&sb.json(&["status", "--json"])),
        ["only", "workspace"]
    );

    // An untrusted project server counts as configured too.
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"p": {"command": "p"}}}"#,
    );
    assert_eq!(
        server_names(&sb.json(&["status", "--json"])),
        ["p", "workspace"]
    );

    // So does an invalid one.
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"bad": {"command": ""}}}"#,
    );
    assert_eq!(
        server_names(&sb.json(&["status", "--json"])),
        ["bad", "workspace"]
    );
}

#[test]
fn demo_wins_a_collision_with_a_file_server_and_shows_the_shadowed_entry() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"demo": {"url": "https://example.com/mcp"}}}"#,
    );
    // Without the flag the file's `demo` stands.
    let plain = demo_of(&sb.json(&["status", "--json"]));
    assert_eq!(plain["source"]["layer"], "user");
    assert_eq!(plain["transport"], "http");

    let status = sb.json(&["--demo", "status", "--json"]);
    let demo = demo_of(&status);
    assert_eq!(demo["source"]["layer"], "packaged");
    assert_eq!(demo["transport"], "stdio");
    let shadowed = demo["shadowed"].as_array().expect("shadowed");
    assert_eq!(shadowed.len(), 1);
    assert_eq!(shadowed[0]["layer"], "user");

    let out = sb.cmd().args(["--demo", "status"]).output().expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(text.contains("packaged <packaged>"), "{text}");
    assert!(text.contains("shadows user"), "{text}");
}

#[test]
fn demo_never_changes_project_trust() {
    let sb = Sandbox::new();
    sb.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"p": {"command": "p"}}}"#,
    );
    let without = sb.json(&["status", "--json"]);
    let with = sb.json(&["--demo", "status", "--json"]);
    assert_eq!(with["result"]["project"], without["result"]["project"]);
    assert_eq!(with["result"]["files"], without["result"]["files"]);
    assert_eq!(with["result"]["project"]["trust"], "untrusted");
}

#[test]
fn config_show_displays_the_packaged_definition() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["--demo", "config", "show", "demo", "--json"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(text.contains("demo-server"), "{text}");
    assert!(text.contains("packaged"), "{text}");
}
