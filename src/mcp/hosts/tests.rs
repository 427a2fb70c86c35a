//! The host readers' rules, file by file: what each host accepts, refuses and warns about, with
//! the JSON path every diagnostic points at. Real files in a temporary home and project.

use std::collections::BTreeMap;
use std::path::Path;

use super::{HostDef, HostEnv, HostId, HostReport, HostTransport, Piece, Scope, Text, read};

/// A home and a project inside `dir`.
fn env_in(dir: &Path) -> HostEnv {
    let home = dir.join("home");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    HostEnv {
        config_home: Some(home.join(".config")),
        home: Some(home),
        project,
        overrides: BTreeMap::new(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("dirs");
    std::fs::write(path, text).expect("write");
}

/// Every diagnostic as (code, JSON path), in file then entry order.
fn diagnostics(report: &HostReport) -> Vec<(&'static str, String)> {
    report
        .all_diagnostics()
        .map(|d| (d.code, d.path.clone()))
        .collect()
}

fn message(report: &HostReport, code: &str) -> String {
    report
        .all_diagnostics()
        .find(|d| d.code == code)
        .map_or_else(|| panic!("no `{code}` diagnostic"), |d| d.message.clone())
}

fn def<'a>(report: &'a HostReport, name: &str) -> &'a HostDef {
    report
        .server(name)
        .and_then(|s| s.entry.def.as_ref())
        .unwrap_or_else(|| panic!("`{name}` has no definition"))
}

fn sse(def: &HostDef) -> Option<bool> {
    match &def.transport {
        HostTransport::Http { sse, .. } => Some(*sse),
        HostTransport::Stdio { .. } => None,
    }
}

#[test]
fn vscode_requires_a_type_that_agrees_with_the_transport() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    write(
        &env.project.join(".vscode/mcp.json"),
        r#"{
  // VS Code reads JSON with comments
  "servers": {
    "urlstdio": {"type": "stdio", "url": "https://example.com/mcp"},
    "cmdsse": {"type": "sse", "command": "node"},
    "typo": {"type": "htp", "url": "https://example.com/mcp"},
    "untyped": {"command": "node"},
    "ok": {"type": "http", "url": "https://example.com/mcp", "headers": {"X-Team": "a"}},
  }
}"#,
    );
    let report = read(HostId::VsCode, &env);
    assert_eq!(
        diagnostics(&report),
        [
            ("transport_conflict", "servers.urlstdio.type".to_owned()),
            ("transport_conflict", "servers.cmdsse.type".to_owned()),
            ("invalid_value", "servers.typo.type".to_owned()),
            ("missing_type", "servers.untyped".to_owned()),
        ]
    );
    let typo = report
        .all_diagnostics()
        .find(|d| d.code == "invalid_value")
        .expect("invalid_value");
    assert_eq!(typo.suggestion.as_deref(), Some("did you mean `http`?"));
    let untyped = report
        .all_diagnostics()
        .find(|d| d.code == "missing_type")
        .expect("missing_type");
    assert_eq!(
        untyped.suggestion.as_deref(),
        Some(r#"add `"type": "stdio"`"#)
    );
    assert_eq!(
        def(&report, "ok").transport,
        HostTransport::Http {
            url: Text::lit("https://example.com/mcp"),
            headers: BTreeMap::from([("X-Team".to_owned(), Text::lit("a"))]),
            sse: false,
        }
    );
    assert!(report.server("typo").is_some_and(|s| s.entry.def.is_none()));
}

#[test]
fn gemini_takes_url_as_sse_and_http_url_as_streamable_http_but_not_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    write(
        &env.home
            .as_ref()
            .expect("home")
            .join(".gemini/settings.json"),
        r#"{"mcpServers": {
  "legacy": {"url": "https://example.com/sse"},
  "modern": {"httpUrl": "https://example.com/mcp"},
  "both": {"httpUrl": "https://example.com/mcp", "url": "https://example.com/sse"},
  "neither": {"args": ["x"]}
}}"#,
    );
    let report = read(HostId::Gemini, &env);
    assert_eq!(
        diagnostics(&report),
        [
            ("transport_conflict", "mcpServers.both.url".to_owned()),
            ("missing_transport", "mcpServers.neither".to_owned()),
        ]
    );
    assert_eq!(
        message(&report, "transport_conflict"),
        "both `httpUrl` and `url` are given; Gemini CLI uses one endpoint"
    );
    assert_eq!(
        message(&report, "missing_transport"),
        "no `command` and no `httpUrl` or `url`: Gemini CLI cannot start or reach this server"
    );
    assert_eq!(sse(def(&report, "legacy")), Some(true));
    assert_eq!(sse(def(&report, "modern")), Some(false));
}

#[test]
fn claude_code_warns_about_sse_and_reads_the_local_scope_from_the_projects_section() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    let project_key = env.project.to_string_lossy().into_owned();
    let config = serde_json::json!({
        "mcpServers": {"old": {"type": "sse", "url": "https://example.com/sse"}},
        "projects": {project_key.clone(): {"mcpServers": {
            "mine": {"command": "node", "args": ["server.js"], "comand": "x"}
        }}},
    });
    write(
        &env.home.as_ref().expect("home").join(".claude.json"),
        &config.to_string(),
    );
    let report = read(HostId::ClaudeCode, &env);
    assert_eq!(
        diagnostics(&report),
        [
            ("sse_deprecated", "mcpServers.old".to_owned()),
            (
                "unknown_field",
                format!("projects.{project_key}.mcpServers.mine.comand")
            ),
        ]
    );
    assert_eq!(
        message(&report, "sse_deprecated"),
        "Claude Code has deprecated the SSE transport"
    );
    assert_eq!(sse(def(&report, "old")), Some(true));
    let mine = report.server("mine").expect("mine");
    assert_eq!(mine.entry.origin.scope, Scope::Local);
    assert!(mine.loaded);
}

#[test]
fn a_broken_claude_json_is_reported_once_though_it_is_read_for_two_scopes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    write(
        &env.home.as_ref().expect("home").join(".claude.json"),
        r#"{"mcpServers": {"#,
    );
    let report = read(HostId::ClaudeCode, &env);
    assert_eq!(diagnostics(&report), [("syntax", String::new())]);
    let unusable: Vec<Scope> = report
        .files
        .iter()
        .filter(|f| f.unusable)
        .map(|f| f.scope)
        .collect();
    assert_eq!(unusable, [Scope::User]);
    let local = report
        .files
        .iter()
        .find(|f| f.scope == Scope::Local)
        .expect("the local scope is read");
    assert!(local.present);
}

#[test]
fn windsurf_reads_strict_json_and_says_so_when_it_finds_a_comment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    write(
        &env.home
            .as_ref()
            .expect("home")
            .join(".codeium/windsurf/mcp_config.json"),
        "{\n  // a comment\n  \"mcpServers\": {}\n}\n",
    );
    let report = read(HostId::Windsurf, &env);
    assert_eq!(diagnostics(&report), [("syntax", String::new())]);
    let syntax = report.all_diagnostics().next().expect("a diagnostic");
    assert_eq!(
        syntax.suggestion.as_deref(),
        Some("Windsurf reads this file as strict JSON: comments and trailing commas are errors")
    );
    assert!(report.files.iter().any(|f| f.unusable));
    assert!(report.traps.iter().any(|t| t.code == "file_disabled"));
}

#[test]
fn windsurf_has_no_cwd_and_a_disabled_switch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    write(
        &env.home
            .as_ref()
            .expect("home")
            .join(".codeium/windsurf/mcp_config.json"),
        r#"{"mcpServers": {"w": {"command": "node", "cwd": "/srv", "disabled": true}}}"#,
    );
    let report = read(HostId::Windsurf, &env);
    assert_eq!(
        diagnostics(&report),
        [("unknown_field", "mcpServers.w.cwd".to_owned())]
    );
    let w = def(&report, "w");
    assert!(w.disabled);
    assert!(matches!(
        &w.transport,
        HostTransport::Stdio { cwd: None, .. }
    ));
}

#[test]
fn a_top_level_that_is_not_an_object_is_reported_but_does_not_disable_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    write(&env.project.join(".cursor/mcp.json"), "[1, 2]");
    let report = read(HostId::Cursor, &env);
    assert_eq!(diagnostics(&report), [("top_level", String::new())]);
    assert_eq!(
        message(&report, "top_level"),
        "the top level must be an object, found an array"
    );
    assert!(report.files.iter().all(|f| !f.unusable));
}

#[test]
fn codex_refuses_a_mix_of_transports_and_builds_headers_from_variables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = env_in(dir.path());
    write(
        &env.home.as_ref().expect("home").join(".codex/config.toml"),
        r#"[mcp_servers.local]
command = "node"
args = ["server.js"]
bearer_token_env_var = "TOKEN"

[mcp_servers.remote]
url = "https://example.com/mcp"
bearer_token_env_var = "TOKEN"
env_http_headers = { "X-Key" = "KEY_VAR" }
http_headers = { "X-Team" = "a" }
enabled = false
"#,
    );
    let report = read(HostId::Codex, &env);
    assert_eq!(
        diagnostics(&report),
        [(
            "wrong_transport_field",
            "mcp_servers.local.bearer_token_env_var".to_owned()
        )]
    );
    assert_eq!(
        message(&report, "wrong_transport_field"),
        "`bearer_token_env_var` does not apply to a stdio server; Codex refuses the mix"
    );
    let remote = def(&report, "remote");
    assert!(remote.disabled);
    assert_eq!(
        remote.transport,
        HostTransport::Http {
            url: Text::lit("https://example.com/mcp"),
            headers: BTreeMap::from([
                (
                    "Authorization".to_owned(),
                    Text(vec![
                        Piece::Lit("Bearer ".into()),
                        Piece::Env("TOKEN".into())
                    ])
                ),
                ("X-Key".to_owned(), Text(vec![Piece::Env("KEY_VAR".into())])),
                ("X-Team".to_owned(), Text::lit("a")),
            ]),
            sse: false,
        }
    );
    // One invalid table stops Codex from starting, so nothing in the file loads.
    assert!(report.servers.iter().all(|s| !s.loaded));
}

/// A definition setting every mcpdeck-only field no host's format carries.
fn deck_only_fields_def() -> crate::mcp::config::ServerDef {
    use crate::mcp::config::{
        HttpDef, OAuthDef, ProtocolChoice, ReconnectPolicy, ServerDef, Transport,
    };
    ServerDef {
        name: "r".into(),
        transport: Transport::Http(HttpDef {
            url: "https://example.com/mcp".into(),
            headers: BTreeMap::new(),
            oauth: Some(Box::new(OAuthDef::default())),
        }),
        request_timeout_ms: Some(5000),
        task_timeout_ms: None,
        reconnect: ReconnectPolicy {
            automatic: true,
            max_attempts: 2,
            base_delay_ms: 200,
        },
        disabled: false,
        protocol: ProtocolChoice::Auto,
        roots: Some(vec!["docs".into()]),
    }
}

#[test]
fn export_names_every_field_the_host_cannot_carry_one_note_each() {
    let def = deck_only_fields_def();
    let fields = [
        "requestTimeoutMs",
        "reconnect",
        "protocolVersion",
        "roots",
        "oauth",
    ];
    for host in HostId::ALL {
        let (snippet, notes) = super::export::export(&def, host).expect("exports");
        for field in fields {
            let hits: Vec<&String> = notes
                .iter()
                .filter(|n| n.starts_with(&format!("`{field}` is not carried: ")))
                .collect();
            assert_eq!(hits.len(), 1, "{host:?} {field}: {notes:?}");
            assert!(hits[0].contains(host.name()), "{host:?}: {}", hits[0]);
            assert!(
                !snippet.contains(field),
                "{host:?} carries {field}:\n{snippet}"
            );
        }
    }
}

#[test]
fn export_notes_nothing_for_fields_left_at_their_default() {
    let mut def = deck_only_fields_def();
    def.request_timeout_ms = None;
    def.reconnect = crate::mcp::config::ReconnectPolicy::default();
    def.protocol = crate::mcp::config::ProtocolChoice::default();
    def.roots = None;
    if let crate::mcp::config::Transport::Http(h) = &mut def.transport {
        h.oauth = None;
    }
    for host in HostId::ALL {
        let (_, notes) = super::export::export(&def, host).expect("exports");
        assert!(
            !notes.iter().any(|n| n.contains("is not carried")),
            "{host:?}: {notes:?}"
        );
    }
}
