//! `mcpdeck workspace-server` driven by a real rmcp client over stdio: identity and
//! closed schemas, the privacy policy against a hostile fixture workspace, schema rejections, the
//! envelope, whole-or-refused responses, replaced roots, `workspace_check` against `mcpdeck
//! config check` and stderr at each observability level (the input line bound is in
//! `workspace_bounds.rs`). Every wait is
//! bounded; nothing synchronises on a sleep.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcpdeck::workspace::results;
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt as _;

const WAIT: Duration = Duration::from_secs(30);
const ALIAS: &str = "zqyalias";

type Client = RunningService<RoleClient, ()>;

/// Everything private in the fixture carries `zqx`; admitted files never do.
const MARK: &str = "zqx";

fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A workspace with public docs and every kind of private file, plus an outside directory that
/// symlinks point at.
fn fixture() -> (tempfile::TempDir, tempfile::TempDir) {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = ws.path();
    write(root, "README.md", b"# Guide\n\nConfiguration precedence works from the user files up to the project files; a higher file replaces the whole lower definition.\n\nSee [usage](docs/usage.md) and [gone](docs/gone.md).\n\n## Trust\n\nProject files take effect only when the project is trusted.\n");
    write(root, "docs/usage.md", b"# Usage\n\nRun the console and press w for the workspace panel. Back to [the guide](../README.md).\n");
    write(
        root,
        "src/lib.rs",
        b"//! Library.\nmod util;\npub fn precedence() -> u32 { 1 }\n",
    );
    write(root, "src/util.rs", b"pub fn helper() {}\n");
    write(root, ".gitignore", b"*.log\nbuild/\n");
    // Private by name.
    write(root, ".env", b"API_TOKEN=zqxenvtoken\n");
    write(root, ".env.local", b"zqxenvlocal\n");
    write(root, "id_rsa", b"zqxrsakey private key\n");
    write(
        root,
        "secrets.json",
        b"{\"zqxsecretsjson\": \"zqxsecretvalue\"}\n",
    );
    write(root, "deploy/server.pem", b"zqxpemcontent\n");
    write(root, ".ssh/config", b"zqxsshconfig\n");
    write(root, "credentials.toml", b"zqxcredentials = 1\n");
    // Ignored by git rules.
    write(root, "zqxgitignored.log", b"zqxignoredcontent precedence\n");
    write(
        root,
        "build/zqxbuildout.md",
        b"zqxbuildcontent precedence\n",
    );
    write(
        root,
        ".git/config",
        b"[core]\nzqxgitinternal = precedence\n",
    );
    write(root, ".git/info/exclude", b"*.excl\n");
    write(root, "zqxexcluded.excl", b"zqxexcludedcontent precedence\n");
    // Not text, too large.
    write(
        root,
        "zqxbinary.md",
        b"zqxbinarycontent precedence \0\x01\x02",
    );
    write(root, "zqxlatin.md", b"zqxlatincontent precedence \xe9\xe8");
    let huge = "zqxhugecontent precedence configuration\n".repeat(2 * 1024 * 1024 / 40 + 10);
    write(root, "zqxhuge.md", huge.as_bytes());
    // Symlinks out of the root.
    write(
        outside.path(),
        "zqxoutside.md",
        b"# zqxoutsidecontent\n\nprecedence configuration\n",
    );
    std::os::unix::fs::symlink(
        outside.path().join("zqxoutside.md"),
        root.join("zqxlink.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("zqxlinkdir")).unwrap();
    (ws, outside)
}

async fn connect_with(root: &Path, level: &str) -> (Client, Option<tokio::process::ChildStderr>) {
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck")).configure(|c| {
        c.arg("workspace-server")
            .arg("--workspace")
            .arg(ALIAS)
            .arg(root)
            .arg("--observability")
            .arg(level);
    });
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn workspace-server");
    let client = tokio::time::timeout(WAIT, ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("initialize");
    (client, stderr)
}

async fn connect(root: &Path) -> Client {
    connect_with(root, "off").await.0
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(map) = args else {
        panic!("args")
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(map);
    tokio::time::timeout(WAIT, client.call_tool(params))
        .await
        .expect("answer in time")
        .expect("tool call")
}

fn envelope(result: &CallToolResult) -> Value {
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    let text = result.content[0]
        .as_text()
        .expect("text block")
        .text
        .clone();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        structured,
        "text == structured"
    );
    assert_eq!(structured["schema"], "mcpdeck.workspace-result/v1");
    structured
}

#[tokio::test]
async fn identity_tools_and_closed_schemas() {
    let (ws, _outside) = fixture();
    let client = connect(ws.path()).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "mcpdeck-workspace");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "workspace_find",
            "workspace_query",
            "workspace_check",
            "workspace_capsule"
        ]
    );
    for t in &tools {
        assert_eq!(
            t.input_schema["additionalProperties"],
            json!(false),
            "{}",
            t.name
        );
        assert_eq!(
            t.input_schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(
            t.input_schema["properties"]["workspace"]["enum"],
            json!([ALIAS])
        );
        let a = t.annotations.as_ref().unwrap();
        assert_eq!(a.read_only_hint, Some(true));
        assert_eq!(a.destructive_hint, Some(false));
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_tool_answers_with_the_envelope() {
    let (ws, _outside) = fixture();
    let client = connect(ws.path()).await;
    let found = envelope(
        &call(
            &client,
            "workspace_find",
            json!({"workspace": ALIAS, "question": "how does configuration precedence work"}),
        )
        .await,
    );
    assert_eq!(found["status"], "known");
    assert_eq!(found["workspace"], ALIAS);
    let typed: results::FindResult = serde_json::from_value(found["result"].clone()).unwrap();
    assert_eq!(typed.passages[0].path, "README.md");
    let first = &found["result"]["passages"][0];
    assert_eq!(first["path"], "README.md");
    // The heading stays with the paragraph under it.
    assert_eq!(first["lines"]["start"], 1);
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .starts_with("# Guide\n\nConfiguration precedence works")
    );

    let q = envelope(&call(&client, "workspace_query", json!({"workspace": ALIAS, "text": "*", "edge_filters": ["links_to:README.md"], "explain": true})).await);
    assert_eq!(q["status"], "known");
    let paths: Vec<&str> = q["result"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["docs/usage.md"]);
    // What the side panel reads back: the explained match, typed.
    let typed: results::QueryResult = serde_json::from_value(q["result"].clone()).unwrap();
    let explain = typed.matches[0].explain.as_ref().unwrap();
    assert!(matches!(explain.why, results::MatchWhy::Wildcard { .. }));
    assert!(explain.filters.edge && !explain.filters.path);
    let q = envelope(&call(&client, "workspace_query", json!({"workspace": ALIAS, "text": "helper", "type_filters": ["rust"], "path_filters": ["src/"]})).await);
    assert_eq!(q["result"]["matches"][0]["path"], "src/util.rs");
    assert_eq!(q["result"]["matches"][0]["kind"], "rust");
    let q = envelope(
        &call(
            &client,
            "workspace_query",
            json!({"workspace": ALIAS, "text": "*", "edge_filters": ["linked_from:src/lib.rs"]}),
        )
        .await,
    );
    assert_eq!(q["result"]["matches"][0]["path"], "src/util.rs");
    let q = envelope(
        &call(
            &client,
            "workspace_query",
            json!({"workspace": ALIAS, "text": "nothingmatchesthis"}),
        )
        .await,
    );
    assert_eq!(q["status"], "unknown");
    assert_eq!(q["reason"], "no_match");

    let c = envelope(&call(&client, "workspace_check", json!({"workspace": ALIAS})).await);
    assert_eq!(c["status"], "known");
    let typed: results::CheckResult = serde_json::from_value(c["result"].clone()).unwrap();
    assert_eq!(
        typed.counts.errors + typed.counts.warnings,
        typed.findings.len()
    );
    let findings = c["result"]["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "broken_link" && f["path"] == "README.md" && f["line"] == 5),
        "{findings:?}"
    );

    let cap = envelope(
        &call(
            &client,
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "configuration precedence", "max_claims": 2}),
        )
        .await,
    );
    assert_eq!(cap["status"], "known");
    let typed: results::CapsuleResult = serde_json::from_value(cap["result"].clone()).unwrap();
    assert_eq!(typed.capsule.schema, "mcpdeck.workspace-capsule/v1");
    let capsule = &cap["result"]["capsule"];
    let claims = capsule["claims"].as_array().unwrap();
    assert!(!claims.is_empty() && claims.len() <= 2);
    assert_eq!(claims[0]["path"], "README.md");
    assert_eq!(claims[0]["passage_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(capsule["workspace_fingerprint"].as_str().unwrap().len(), 64);
    assert_eq!(
        cap["result"]["integrity"]["hash"].as_str().unwrap(),
        mcpdeck::workspace::capsule::canonical_hash(capsule)
    );
    // No raw passage: the claim is one sentence, not the whole paragraph text.
    let passage = found["result"]["passages"][0]["text"].as_str().unwrap();
    assert!(
        claims
            .iter()
            .all(|c| c["statement"].as_str().unwrap().len() <= passage.len())
    );
    assert!(claims.iter().all(|c| c.get("text").is_none()));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn private_files_never_appear_in_any_result() {
    let (ws, _outside) = fixture();
    let client = connect(ws.path()).await;
    let questions = [
        "zqxenvtoken API_TOKEN env",
        "zqxrsakey private key id_rsa",
        "zqxsecretsjson zqxsecretvalue secrets",
        "zqxignoredcontent zqxgitignored log",
        "zqxgitinternal core git config",
        "zqxbinarycontent zqxlatincontent",
        "zqxhugecontent precedence configuration",
        "zqxoutsidecontent zqxlink outside",
        "zqxexcludedcontent zqxpemcontent zqxsshconfig zqxcredentials zqxbuildcontent",
        "precedence",
    ];
    let forbidden = [
        MARK,
        ".env",
        "id_rsa",
        "secrets.json",
        "server.pem",
        ".ssh",
        "credentials",
        ".git/",
    ];
    let mut answers = Vec::new();
    for q in questions {
        answers.push(
            call(
                &client,
                "workspace_find",
                json!({"workspace": ALIAS, "question": q, "limit": 20, "budget": 4000}),
            )
            .await,
        );
        answers.push(call(&client, "workspace_query", json!({"workspace": ALIAS, "text": q, "limit": 20, "snippet_chars": 1000, "explain": true})).await);
        answers.push(
            call(
                &client,
                "workspace_capsule",
                json!({"workspace": ALIAS, "question": q}),
            )
            .await,
        );
    }
    answers.push(
        call(
            &client,
            "workspace_query",
            json!({"workspace": ALIAS, "text": "*", "limit": 20, "explain": true}),
        )
        .await,
    );
    answers.push(
        call(
            &client,
            "workspace_check",
            json!({"workspace": ALIAS, "strict": true}),
        )
        .await,
    );
    let private_paths = [
        ".env",
        "id_rsa",
        "secrets.json",
        "zqxgitignored.log",
        ".git/config",
        "zqxbinary.md",
        "zqxhuge.md",
        "zqxlink.md",
        "zqxlinkdir/zqxoutside.md",
    ];
    let named = call(
        &client,
        "workspace_check",
        json!({"workspace": ALIAS, "paths": private_paths, "strict": true}),
    )
    .await;
    let named_env = envelope(&named);
    assert_eq!(named_env["result"]["files_checked"], 0);
    assert_eq!(
        named_env["result"]["paths_not_checked"],
        private_paths.len()
    );
    answers.push(named);
    let all = call(
        &client,
        "workspace_query",
        json!({"workspace": ALIAS, "text": "*", "limit": 20}),
    )
    .await;
    let listed: Vec<String> = envelope(&all)["result"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        listed,
        [
            ".gitignore",
            "README.md",
            "docs/usage.md",
            "src/lib.rs",
            "src/util.rs"
        ]
    );
    for answer in &answers {
        let text = serde_json::to_string(answer).unwrap();
        let env = envelope(answer);
        assert_ne!(env["status"], "refused", "{text}");
        // Strip the caller's own question, which the envelope never echoes anyway.
        for word in forbidden {
            assert!(!text.contains(word), "`{word}` leaked: {text}");
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn schemas_reject_unknown_fields_and_out_of_range_values() {
    let (ws, _outside) = fixture();
    let client = connect(ws.path()).await;
    let long = "a".repeat(4097);
    let cases = [
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "x", "extra": 1}),
        ),
        ("workspace_find", json!({"question": "x"})),
        (
            "workspace_find",
            json!({"workspace": "other", "question": "x"}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": ""}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": long}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "x", "limit": 0}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "x", "limit": 21}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "x", "budget": 63}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "x", "budget": 4001}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "x", "limit": "3"}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "unknown": true}),
        ),
        ("workspace_query", json!({"workspace": ALIAS})),
        ("workspace_query", json!({"workspace": ALIAS, "text": long})),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "limit": 0}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "limit": 21}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "type_filters": ["c++"]}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "type_filters": ["rust", "rust"]}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "path_filters": (0..17).map(|i| format!("p{i}")).collect::<Vec<_>>()}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "path_filters": ["p".repeat(513)]}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "edge_filters": [format!("links_to:{}", "p".repeat(250))]}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "edge_filters": ["points_to:README.md"]}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "snippet_chars": -1}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "snippet_chars": 1001}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "explain": "yes"}),
        ),
        (
            "workspace_check",
            json!({"workspace": ALIAS, "repair": true}),
        ),
        ("workspace_check", json!({})),
        (
            "workspace_check",
            json!({"workspace": ALIAS, "paths": (0..201).map(|i| format!("f{i}")).collect::<Vec<_>>()}),
        ),
        (
            "workspace_check",
            json!({"workspace": ALIAS, "paths": ["a", "a"]}),
        ),
        (
            "workspace_check",
            json!({"workspace": ALIAS, "paths": ["p".repeat(513)]}),
        ),
        ("workspace_check", json!({"workspace": ALIAS, "strict": 1})),
        (
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "x", "write": true}),
        ),
        ("workspace_capsule", json!({"workspace": ALIAS})),
        (
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": long}),
        ),
        (
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "x", "max_claims": -1}),
        ),
        (
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "x", "max_claims": 25}),
        ),
    ];
    for (tool, args) in cases {
        let result = call(&client, tool, args.clone()).await;
        let env = envelope(&result);
        assert_eq!(env["status"], "refused", "{tool} {args}");
        assert_eq!(env["reason"], "invalid_arguments", "{tool} {args}");
        assert_eq!(result.is_error, Some(true));
    }
    // The limits themselves are accepted.
    for (tool, args) in [
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "a".repeat(4096), "limit": 20, "budget": 4000}),
        ),
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "x", "limit": 1, "budget": 64}),
        ),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "x", "limit": 1, "snippet_chars": 0, "path_filters": ["p".repeat(512)], "type_filters": ["mcp-config"], "edge_filters": [format!("links_to:{}", "p".repeat(246))]}),
        ),
        (
            "workspace_check",
            json!({"workspace": ALIAS, "paths": (0..200).map(|i| format!("f{i}")).collect::<Vec<_>>(), "strict": false}),
        ),
        (
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "x", "max_claims": 0}),
        ),
        (
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "x", "max_claims": 24}),
        ),
    ] {
        let env = envelope(&call(&client, tool, args.clone()).await);
        assert_ne!(env["status"], "refused", "{tool} {args}: {env}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_oversized_response_is_refused_not_truncated() {
    let ws = tempfile::tempdir().unwrap();
    // ~100k broken links: far more than 1 MiB of findings.
    write(ws.path(), "links.md", "[a](b)\n".repeat(140_000).as_bytes());
    let client = connect(ws.path()).await;
    let result = call(&client, "workspace_check", json!({"workspace": ALIAS})).await;
    let env = envelope(&result);
    assert_eq!(env["status"], "refused");
    assert_eq!(env["reason"], "response_too_large");
    assert!(env.get("result").is_none());
    assert!(serde_json::to_vec(&result).unwrap().len() < 1024);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_replaced_root_is_unavailable() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("ws");
    write(&root, "README.md", b"# Hello\n\nprecedence\n");
    let client = connect(&root).await;
    let env = envelope(
        &call(
            &client,
            "workspace_find",
            json!({"workspace": ALIAS, "question": "precedence"}),
        )
        .await,
    );
    assert_eq!(env["status"], "known");
    std::fs::rename(&root, parent.path().join("moved")).unwrap();
    write(&root, "README.md", b"# Hello\n\nprecedence\n");
    for tool in ["workspace_find", "workspace_capsule"] {
        let env = envelope(
            &call(
                &client,
                tool,
                json!({"workspace": ALIAS, "question": "precedence"}),
            )
            .await,
        );
        assert_eq!(env["status"], "refused");
        assert_eq!(env["reason"], "workspace_unavailable");
        assert_eq!(env["workspace"], ALIAS);
    }
    client.cancel().await.unwrap();
}

const MCP_FIXTURE: &str = r#"{
  "mcpServers": {
    "good": {"command": "npx", "args": ["-y", "@scope/server@1.2.3"]},
    "loose": {"command": "npx", "args": ["-y", "some-server"]},
    "typo": {"command": "x", "serverUrl": "http://x"},
    "leaky": {"command": "x", "env": {"GITHUB_TOKEN": "zzliteral"}},
    "sse": {"type": "sse", "url": "http://localhost/sse"},
    "bad name!": {"command": "x"}
  }
}
"#;

#[tokio::test]
async fn check_reports_what_config_check_reports() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(project.path(), ".mcp.json", MCP_FIXTURE.as_bytes());
    write(
        project.path(),
        ".mcpdeck/mcp.json",
        b"{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}\n",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .args(["config", "check", "--json", "--cwd"])
        .arg(project.path())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut expected: Vec<(String, String, String, Option<u64>)> = Vec::new();
    for file in report["result"]["files"].as_array().unwrap() {
        let path = PathBuf::from(file["path"].as_str().unwrap());
        let Ok(rel) = path
            .strip_prefix(project.path().canonicalize().unwrap())
            .or_else(|_| path.strip_prefix(project.path()))
        else {
            continue;
        };
        for d in file["diagnostics"].as_array().unwrap() {
            expected.push((
                rel.to_string_lossy().into_owned(),
                d["code"].as_str().unwrap().into(),
                d["path"].as_str().unwrap().into(),
                d["line"].as_u64(),
            ));
        }
    }
    expected.sort();
    assert!(expected.len() >= 5, "{expected:?}");
    let client = connect(project.path()).await;
    let env = envelope(&call(&client, "workspace_check", json!({"workspace": ALIAS})).await);
    let mut got: Vec<(String, String, String, Option<u64>)> = env["result"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["code"].as_str().unwrap().into(),
                f["json_path"].as_str().unwrap_or("").into(),
                f["line"].as_u64(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(got, expected);
    // Strict adds the unpinned npx package (and never echoes the literal value).
    let strict = call(
        &client,
        "workspace_check",
        json!({"workspace": ALIAS, "strict": true}),
    )
    .await;
    let env = envelope(&strict);
    let findings = env["result"]["findings"].as_array().unwrap();
    let npx: Vec<&Value> = findings
        .iter()
        .filter(|f| f["code"] == "unpinned_npx")
        .collect();
    assert_eq!(npx.len(), 1, "{findings:?}");
    assert_eq!(npx[0]["json_path"], "mcpServers.loose.args[1]");
    assert!(findings.iter().any(|f| f["code"] == "literal_credential"));
    assert!(
        !serde_json::to_string(&strict)
            .unwrap()
            .contains("zzliteral")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn syntax_of_json_toml_and_yaml() {
    let ws = tempfile::tempdir().unwrap();
    write(ws.path(), "a.json", b"{\"a\": 1,\n \"b\": }\n");
    write(
        ws.path(),
        "tsconfig.json",
        b"{ // comments are fine here\n \"a\": 1, }\n",
    );
    write(ws.path(), "b.toml", b"[x]\nkey = \n");
    write(ws.path(), "c.yaml", b"a: [1, 2\nb: c\n");
    write(ws.path(), "ok.yaml", b"a: 1\napi_key: literalvalue\n");
    let client = connect(ws.path()).await;
    let env = envelope(
        &call(
            &client,
            "workspace_check",
            json!({"workspace": ALIAS, "strict": true}),
        )
        .await,
    );
    let findings = env["result"]["findings"].as_array().unwrap();
    let syntax: Vec<&str> = findings
        .iter()
        .filter(|f| f["code"] == "syntax")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(syntax, ["a.json", "b.toml", "c.yaml"], "{findings:?}");
    let a = findings.iter().find(|f| f["path"] == "a.json").unwrap();
    assert_eq!(a["line"], 2);
    assert!(
        findings
            .iter()
            .any(|f| f["path"] == "ok.yaml" && f["code"] == "literal_credential" && f["line"] == 2)
    );
    client.cancel().await.unwrap();
}

async fn stderr_of(level: &str, root: &Path) -> String {
    let (client, stderr) = connect_with(root, level).await;
    call(
        &client,
        "workspace_find",
        json!({"workspace": ALIAS, "question": "configuration precedence"}),
    )
    .await;
    call(
        &client,
        "workspace_query",
        json!({"workspace": ALIAS, "text": "usage", "explain": true}),
    )
    .await;
    call(
        &client,
        "workspace_check",
        json!({"workspace": ALIAS, "paths": ["README.md"]}),
    )
    .await;
    call(
        &client,
        "workspace_capsule",
        json!({"workspace": ALIAS, "question": "trusted project"}),
    )
    .await;
    // A refusal with arguments that would be tempting to log.
    call(
        &client,
        "workspace_find",
        json!({"workspace": ALIAS, "question": "zqxquestion", "bogus": "zqxargument"}),
    )
    .await;
    client.cancel().await.unwrap();
    let mut text = String::new();
    tokio::time::timeout(WAIT, stderr.unwrap().read_to_string(&mut text))
        .await
        .unwrap()
        .unwrap();
    text
}

#[tokio::test]
async fn stderr_never_carries_forbidden_items() {
    let (ws, _outside) = fixture();
    let root = ws.path().canonicalize().unwrap();
    let forbidden = [
        ALIAS.to_owned(),
        root.to_string_lossy().into_owned(),
        ws.path().to_string_lossy().into_owned(),
        "README".into(),
        "configuration".into(),
        "precedence".into(),
        "usage".into(),
        "trusted".into(),
        MARK.into(),
        "bogus".into(),
        "panicked".into(),
        "backtrace".into(),
        std::env::var("HOME").unwrap_or_else(|_| "/root".into()),
    ];
    let off = stderr_of("off", ws.path()).await;
    assert_eq!(off, "");
    let errors = stderr_of("errors", ws.path()).await;
    let lines: Vec<&str> = errors.lines().collect();
    assert_eq!(
        lines,
        [r#"{"event":"call_refused","reason":"invalid_arguments","tool":"workspace_find"}"#]
    );
    let all = stderr_of("json", ws.path()).await;
    assert!(all.contains(r#""event":"started""#), "{all}");
    assert!(all.contains(r#""event":"call_answered""#), "{all}");
    assert!(all.contains(r#""event":"call_refused""#), "{all}");
    for text in [&off, &errors, &all] {
        for line in text.lines() {
            assert!(line.len() < 4096);
            serde_json::from_str::<Value>(line).unwrap();
            for word in &forbidden {
                assert!(!line.contains(word.as_str()), "`{word}` in {line}");
            }
        }
    }
}

#[test]
fn startup_errors_name_no_alias_or_path() {
    let ws = tempfile::tempdir().unwrap();
    for (alias, path) in [
        ("zqx/bad", ws.path().to_path_buf()),
        ("zqxok", ws.path().join("zqxmissing")),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
            .args(["workspace-server", "--workspace", alias])
            .arg(&path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("workspace 1"), "{err}");
        assert!(!err.contains(MARK), "{err}");
        assert!(!err.contains(&*ws.path().to_string_lossy()), "{err}");
    }
}

#[test]
fn the_packaged_workspace_server_answers_through_the_cli() {
    let parent = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = parent.path().join("my proj");
    write(
        &project,
        "README.md",
        b"# Guide\n\nConfiguration precedence works from user files to project files.\n",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg("--cwd")
        .arg(&project)
        .args([
            "call",
            "workspace",
            "workspace_find",
            r#"{"workspace":"my-proj","question":"configuration precedence"}"#,
            "--json",
        ])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let env = &v["result"]["structuredContent"];
    assert_eq!(env["status"], "known");
    assert_eq!(env["workspace"], "my-proj");
    assert_eq!(env["result"]["passages"][0]["path"], "README.md");
}
