//! server-filesystem and server-everything (the pinned npm packages) in a sandbox: each runs
//! every one of its tools under the profile `mcpdeck sandbox suggest` prints for it.

#![allow(clippy::unwrap_used)]

use crate::common::Sandbox;
use serde_json::{Value, json};

/// Writes `servers`, then gives each the `sandbox` that `sandbox suggest` prints for it.
fn with_suggested(sb: &Sandbox, mut servers: Value) -> Value {
    let file = "config/mcpdeck/mcp.json";
    sb.write(file, &json!({"mcpServers": servers}).to_string());
    let names: Vec<String> = servers.as_object().unwrap().keys().cloned().collect();
    for name in names {
        let v = sb.json(&["sandbox", "suggest", &name, "--json"]);
        assert_eq!(v["ok"], true, "{v}");
        servers[&name]["sandbox"] = v["result"]["sandbox"].clone();
    }
    sb.write(file, &json!({"mcpServers": servers}).to_string());
    servers
}

fn call(sb: &Sandbox, args: &[&str]) -> Value {
    let out = sb
        .cmd()
        .args(args)
        .args(["--json", "--sampling-reply", "ok", "--elicit", "decline"])
        .write_stdin("")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        (out.status.code(), &v["ok"]),
        (Some(0), &json!(true)),
        "{args:?}: {v}"
    );
    v
}

fn tool_names(sb: &Sandbox, server: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["tools", server];
    args.extend(extra);
    call(sb, &args)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn server_everything_runs_every_tool_under_a_suggested_profile() {
    let Some(script) = crate::common::peers::npm_server("server-everything") else {
        return;
    };
    let sb = Sandbox::new();
    let servers = with_suggested(
        &sb,
        json!({"every": {"command": "node", "args": [script, "stdio"]}}),
    );
    assert_eq!(servers["every"]["sandbox"]["net"], "none");
    assert!(sb.server("every")["sandbox"].is_string());
    let calls: &[(&str, &[&str])] = &[
        ("echo", &["message=in a sandbox"]),
        ("get-annotated-message", &["messageType=error"]),
        ("get-env", &[]),
        ("get-resource-links", &["count:=2"]),
        (
            "get-resource-reference",
            &["resourceType=Text", "resourceId:=1"],
        ),
        ("get-structured-content", &["location=New York"]),
        ("get-sum", &["a:=1", "b:=2"]),
        ("get-tiny-image", &[]),
        (
            "gzip-file-as-resource",
            &[
                "data=data:text/plain;base64,aGVsbG8=",
                "outputType=resource",
            ],
        ),
        ("toggle-simulated-logging", &[]),
        ("toggle-subscriber-updates", &[]),
        (
            "trigger-long-running-operation",
            &["duration:=1", "steps:=2"],
        ),
        ("get-roots-list", &[]),
        ("trigger-elicitation-request", &[]),
        (
            "trigger-url-elicitation",
            &["url=https://example.com/consent"],
        ),
        ("trigger-sampling-request", &["prompt=hi"]),
        ("simulate-research-query", &["topic=sandboxes"]),
        ("trigger-sampling-request-async", &["prompt=hi"]),
        ("trigger-elicitation-request-async", &[]),
    ];
    let listed = tool_names(&sb, "every", &[]);
    for name in &listed {
        assert!(calls.iter().any(|(t, _)| t == name), "no call for `{name}`");
    }
    for (tool, args) in calls {
        let mut argv = vec!["call", "every", tool];
        argv.extend(*args);
        let v = call(&sb, &argv);
        assert_eq!(v["result"]["isError"], false, "{tool}: {v}");
    }
    let v = call(&sb, &["call", "every", "echo", "message=in a sandbox"]);
    assert!(
        v["result"]["text"]
            .as_str()
            .unwrap()
            .contains("in a sandbox")
    );
}

#[test]
fn server_filesystem_runs_every_tool_under_a_suggested_profile() {
    let Some(script) = crate::common::peers::npm_server("server-filesystem") else {
        return;
    };
    let sb = Sandbox::new();
    let shared = std::fs::canonicalize(sb.write("shared/hello.txt", "hello from the box\n"))
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let canary = sb.write("secret/canary.txt", "canary-filesystem");
    let servers = with_suggested(
        &sb,
        json!({"fs": {"command": "node", "args": [script, shared]}}),
    );
    assert!(
        servers["fs"]["sandbox"]["write"]
            .as_array()
            .unwrap()
            .contains(&json!("~/shared")),
        "{servers}"
    );
    let root = shared.display().to_string();
    let p = |rest: &str| format!("path={}", shared.join(rest).display());
    let with_root = |args: &[&str]| {
        let mut argv: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        argv.extend(["--root".to_owned(), root.clone()]);
        argv
    };
    let run = |args: &[&str]| {
        let argv = with_root(args);
        call(&sb, &argv.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let calls: Vec<(&str, Vec<String>)> = vec![
        ("list_allowed_directories", vec![]),
        ("read_text_file", vec![p("hello.txt")]),
        ("read_file", vec![p("hello.txt")]),
        (
            "read_multiple_files",
            vec![format!(
                "paths:=[\"{}\"]",
                shared.join("hello.txt").display()
            )],
        ),
        (
            "write_file",
            vec![p("new.txt"), "content=written in the box".into()],
        ),
        (
            "edit_file",
            vec![
                p("new.txt"),
                "edits:=[{\"oldText\":\"box\",\"newText\":\"sandbox\"}]".into(),
            ],
        ),
        ("create_directory", vec![p("sub")]),
        (
            "move_file",
            vec![
                format!("source={}", shared.join("new.txt").display()),
                format!("destination={}", shared.join("sub/new.txt").display()),
            ],
        ),
        ("list_directory", vec![format!("path={root}")]),
        ("list_directory_with_sizes", vec![format!("path={root}")]),
        ("directory_tree", vec![format!("path={root}")]),
        (
            "search_files",
            vec![format!("path={root}"), "pattern=**/*.txt".into()],
        ),
        ("get_file_info", vec![p("hello.txt")]),
        ("read_media_file", vec![p("hello.txt")]),
    ];
    let listed = tool_names(&sb, "fs", &["--root", &root]);
    for name in &listed {
        assert!(calls.iter().any(|(t, _)| t == name), "no call for `{name}`");
    }
    for (tool, args) in &calls {
        let mut argv = vec!["call", "fs", tool];
        argv.extend(args.iter().map(String::as_str));
        let v = run(&argv);
        assert_eq!(v["result"]["isError"], false, "{tool}: {v}");
    }
    assert_eq!(
        std::fs::read_to_string(shared.join("sub/new.txt")).unwrap(),
        "written in the sandbox"
    );
    // The server's own checks aside, the kernel refuses what lies outside the profile.
    let out = sb
        .cmd()
        .args([
            "call",
            "fs",
            "read_text_file",
            &format!("path={}", canary.display()),
        ])
        .args(["--root", &root, "--json"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("canary-filesystem"));
}
