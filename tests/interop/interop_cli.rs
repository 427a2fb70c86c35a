//! Interop through the real CLI against the official reference servers from the npm registry
//! (pinned in tests/interop/, installed by scripts/install-interop): server-everything over
//! stdio and over Streamable HTTP, and server-filesystem. Skipped, saying so, without node.

use crate::common;

use common::Sandbox;
use common::everything_http::EverythingHttp;
use serde_json::{Value, json};

use common::peers::npm_server as package;

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

/// server-filesystem replaces the directories it was started with by its client's roots. Started
/// for `project/data`, it is offered `project/data` (not the project directory), so it still
/// allows only that directory; the review, `config check` and `status --live` say so.
#[test]
fn server_filesystem_is_not_widened_by_the_roots_it_is_offered() {
    let Some(script) = package("server-filesystem") else {
        return;
    };
    let sb = Sandbox::new();
    let project = std::fs::canonicalize(&sb.project).expect("canonical");
    let data = project.join("data");
    std::fs::create_dir_all(&data).expect("dir");
    std::fs::write(data.join("hello.txt"), "hello\n").expect("file");
    std::fs::write(
        project.join(".mcp.json"),
        json!({"mcpServers": {"fs": {"command": "node", "args": [script, data]}}}).to_string(),
    )
    .expect("write");
    let cmd = || sb.cmd_in(&project);
    // The trust review shows the roots and why they are not the project.
    let review = cmd().args(["trust", "--yes"]).output().expect("runs");
    let text = String::from_utf8_lossy(&review.stdout);
    assert_eq!(review.status.code(), Some(0), "{text}");
    assert!(text.contains("roots    ./data"), "{text}");
    assert!(
        text.contains("! roots: roots narrowed to the directories its arguments name"),
        "{text}"
    );
    // `config check` warns, at the server.
    let out = cmd()
        .args(["config", "check", "--json"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let warned = v["result"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().cloned().unwrap_or_default())
        .any(|d| d["code"] == "roots_widen" && d["path"] == "mcpServers.fs.args");
    assert!(warned, "{v}");
    // `status --live` connects and shows the roots the connection was offered.
    let out = cmd()
        .args(["status", "--live", "--json"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["result"]["servers"][0]["roots"], "./data", "{v}");
    // The one-shot CLI: the server still allows only its own directory.
    let out = cmd()
        .args(["call", "fs", "list_allowed_directories", "--json"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let listed = v["result"]["text"].as_str().expect("text");
    assert!(listed.contains(data.to_str().expect("utf8")), "{v}");
    assert!(
        !listed
            .lines()
            .any(|l| l.trim() == project.to_str().expect("utf8")),
        "widened to the project: {v}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains(&format!("file://{}\n", project.display())),
        "{stderr}"
    );
}
