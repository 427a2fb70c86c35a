//! Interop through the real CLI against the official reference servers from the npm registry
//! (pinned in tests/interop/, installed by scripts/install-interop): server-everything over
//! stdio and over Streamable HTTP, and server-filesystem. Skipped, saying so, without node.

use crate::common;

use std::path::{Path, PathBuf};

use common::Sandbox;
use common::everything_http::EverythingHttp;
use serde_json::{Value, json};

fn package(name: &str) -> Option<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/node_modules/@modelcontextprotocol")
        .join(name)
        .join("dist/index.js");
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if script.exists() && node {
        Some(script)
    } else {
        eprintln!("SKIPPED: run scripts/install-interop (needs node) for the interop tests");
        None
    }
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, Value) {
    let out = sb.cmd().args(args).arg("--json").output().expect("runs");
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), v)
}

fn exercise_everything(sb: &Sandbox, server: &str) {
    let (code, v) = run(sb, &["tools", server]);
    assert_eq!(code, 0, "{v}");
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    let (_, v) = run(sb, &["tools", server, "--search", "echo"]);
    assert_eq!(v["result"]["matches"][0]["tool"]["name"], "echo");
    let (_, v) = run(sb, &["describe", server, "echo"]);
    assert!(
        v["result"]["inputSchema"]["properties"]["message"].is_object(),
        "{v}"
    );
    let (code, v) = run(sb, &["call", server, "echo", "message=interop works"]);
    assert_eq!(code, 0, "{v}");
    assert!(
        v["result"]["text"]
            .as_str()
            .expect("text")
            .contains("interop works")
    );
    let (_, v) = run(sb, &["resources", server]);
    let first = v["result"]["resources"][0]["name"]
        .as_str()
        .expect("a resource")
        .to_owned();
    let (code, v) = run(sb, &["read", server, &first]);
    assert_eq!(code, 0, "{v}");
    assert!(
        v["result"]["text"]
            .as_str()
            .expect("text")
            .starts_with("<untrusted-mcp-data")
    );
    let (_, v) = run(sb, &["prompts", server]);
    assert!(
        v["result"]["prompts"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    );
    let (code, v) = run(sb, &["prompt", server, "args-prompt", "city=Oslo"]);
    assert_eq!(code, 0, "{v}");
    assert!(
        v["result"]["text"].as_str().expect("text").contains("Oslo"),
        "{v}"
    );
}

#[test]
fn server_everything_over_stdio() {
    let Some(script) = package("server-everything") else {
        return;
    };
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"everything": {"command": "node", "args": [script, "stdio"]}}})
            .to_string(),
    );
    exercise_everything(&sb, "everything");
}

#[test]
fn server_everything_over_streamable_http() {
    let Some(script) = package("server-everything") else {
        return;
    };
    let server = EverythingHttp::start(&script);
    let port = server.port;
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"everything-http": {"url": format!("http://127.0.0.1:{port}/mcp")}}}).to_string(),
    );
    exercise_everything(&sb, "everything-http");
    drop(server);
}

#[test]
fn server_filesystem_lists_and_reads_a_directory() {
    let Some(script) = package("server-filesystem") else {
        return;
    };
    let sb = Sandbox::new();
    let shared = sb.dir.path().join("shared");
    std::fs::create_dir_all(&shared).expect("dir");
    std::fs::write(
        shared.join("hello.txt"),
        "hello from the filesystem server\n",
    )
    .expect("file");
    let root = std::fs::canonicalize(&shared).expect("canonical");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fs": {"command": "node", "args": [script, root]}}}).to_string(),
    );
    // mcpdeck declares roots, and server-filesystem then serves its client's roots (by default
    // the project directory) instead of its own arguments, as soon as it has asked for them:
    // offer the shared directory as the root.
    let root_arg = root.display().to_string();
    let run = |sb: &Sandbox, args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(["--root", root_arg.as_str()]);
        run(sb, &args)
    };
    let (code, v) = run(&sb, &["tools", "fs"]);
    assert_eq!(code, 0, "{v}");
    let (code, v) = run(
        &sb,
        &[
            "call",
            "fs",
            "list_directory",
            &format!("path={}", root.display()),
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert!(
        v["result"]["text"]
            .as_str()
            .expect("text")
            .contains("hello.txt"),
        "{v}"
    );
    let file = root.join("hello.txt");
    let (code, v) = run(
        &sb,
        &[
            "call",
            "fs",
            "read_text_file",
            &format!("path={}", file.display()),
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert!(
        v["result"]["text"]
            .as_str()
            .expect("text")
            .contains("hello from the filesystem server")
    );
    let (code, v) = run(&sb, &["call", "fs", "read_text_file", "path=/etc/passwd"]);
    assert_eq!(
        (code, v["error"]["class"].as_str()),
        (5, Some("tool_error")),
        "outside the allowed dir: {v}"
    );
}
