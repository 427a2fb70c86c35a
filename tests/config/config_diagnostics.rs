//! One fixture file per diagnostic kind (tests/fixtures/config), asserting the exact code, JSON
//! path, line and column, and the suggestion a user is given.

use std::path::{Path, PathBuf};

use mcpdeck::mcp::config::parse_file;
use mcpdeck::mcp::config::{Diagnostic, Layer, Severity};
use mcpdeck::mcp::config::{Grant, Transport};

fn fixture(name: &str) -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/config")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    (path, text)
}

fn diagnostics(name: &str) -> Vec<Diagnostic> {
    let (path, text) = fixture(name);
    let parsed = parse_file(&text, &path, Layer::Project);
    parsed
        .diagnostics
        .into_iter()
        .chain(
            parsed
                .entries
                .into_iter()
                .flat_map(|e| e.diagnostics.clone()),
        )
        .collect()
}

/// (fixture, severity, code, path, line, column, suggestion substring or "").
type Case = (
    &'static str,
    Severity,
    &'static str,
    &'static str,
    u32,
    u32,
    &'static str,
);

const E: Severity = Severity::Error;
const W: Severity = Severity::Warning;

const CASES: &[Case] = &[
    ("syntax.json", E, "syntax", "", 3, 26, ""),
    (
        "codex_toml.json",
        E,
        "host_format",
        "",
        2,
        1,
        "[mcp_servers.NAME]",
    ),
    (
        "vscode.json",
        E,
        "host_format",
        "servers",
        2,
        3,
        "rename `servers` to `mcpServers`",
    ),
    ("top_level_array.json", E, "top_level", "", 1, 1, ""),
    (
        "policy_key.json",
        E,
        "unknown_field",
        "trust",
        3,
        3,
        "cannot grant trust",
    ),
    (
        "server_url.json",
        E,
        "unknown_field",
        "mcpServers.remote.serverUrl",
        4,
        7,
        "did you mean `url`?",
    ),
    (
        "typo_field.json",
        E,
        "unknown_field",
        "mcpServers.s.comand",
        3,
        11,
        "did you mean `command`?",
    ),
    (
        "duplicate_key.json",
        E,
        "duplicate_key",
        "mcpServers.s.command",
        5,
        7,
        "keep one",
    ),
    (
        "duplicate_server.json",
        E,
        "duplicate_key",
        "mcpServers.s",
        3,
        5,
        "keep one",
    ),
    (
        "invalid_name.json",
        E,
        "invalid_name",
        "mcpServers.bad name!",
        3,
        5,
        "",
    ),
    (
        "literal_secret_env.json",
        E,
        "literal_secret",
        "mcpServers.gh.env.GITHUB_TOKEN",
        5,
        15,
        "use `${GITHUB_TOKEN}` and export it",
    ),
    (
        "literal_secret_header.json",
        E,
        "literal_secret",
        "mcpServers.api.headers.Authorization",
        6,
        9,
        "\"Bearer ${AUTHORIZATION}\"",
    ),
    (
        "sse.json",
        E,
        "sse_unsupported",
        "mcpServers.old.type",
        4,
        15,
        "Streamable HTTP endpoint",
    ),
    (
        "type_disagrees.json",
        E,
        "type_mismatch",
        "mcpServers.s.type",
        3,
        19,
        "\"type\": \"http\"",
    ),
    (
        "transport_conflict.json",
        E,
        "transport_conflict",
        "mcpServers.s",
        3,
        34,
        "keep `command`",
    ),
    (
        "missing_transport.json",
        E,
        "missing_transport",
        "mcpServers.s",
        3,
        10,
        "add `command`",
    ),
    (
        "sandbox_preset.json",
        E,
        "invalid_value",
        "mcpServers.fs.sandbox.preset",
        5,
        29,
        "did you mean `read-only-project`?",
    ),
    (
        "sandbox_rules.json",
        E,
        "unknown_field",
        "mcpServers.fs.sandbox.wirte",
        6,
        9,
        "did you mean `write`?",
    ),
    (
        "sandbox_rules.json",
        E,
        "out_of_range",
        "mcpServers.fs.sandbox.net.connect[1]",
        7,
        34,
        "",
    ),
    (
        "sandbox_http.json",
        E,
        "wrong_transport_field",
        "mcpServers.api.sandbox",
        5,
        18,
        "an HTTP server runs elsewhere",
    ),
    (
        "wrong_transport_field.json",
        E,
        "wrong_transport_field",
        "mcpServers.s.headers",
        3,
        38,
        "through `env`",
    ),
    (
        "bad_reference.json",
        E,
        "bad_reference",
        "mcpServers.s.env.LEVEL",
        3,
        44,
        "",
    ),
    (
        "credential_in_url.json",
        E,
        "credential_in_url",
        "mcpServers.s.url",
        3,
        18,
        "in `headers` by reference",
    ),
    (
        "credential_in_query.json",
        E,
        "credential_in_url",
        "mcpServers.s.url",
        3,
        18,
        "in `headers` by reference",
    ),
    (
        "invalid_url.json",
        E,
        "invalid_url",
        "mcpServers.s.url",
        3,
        18,
        "",
    ),
    (
        "reserved_header.json",
        E,
        "reserved_header",
        "mcpServers.s.headers.Mcp-Session-Id",
        3,
        61,
        "remove it",
    ),
    (
        "invalid_header.json",
        E,
        "invalid_header",
        "mcpServers.s.headers. X-Tenant",
        3,
        61,
        "write `X-Tenant`",
    ),
    (
        "out_of_range.json",
        E,
        "out_of_range",
        "mcpServers.s.reconnect.maxAttempts",
        3,
        56,
        "",
    ),
    (
        "invalid_protocol.json",
        E,
        "invalid_value",
        "mcpServers.s.protocolVersion",
        3,
        46,
        "use `legacy`",
    ),
    (
        "invalid_lifecycle.json",
        E,
        "invalid_value",
        "mcpServers.s.lifecycle",
        3,
        40,
        "remove `lifecycle`",
    ),
    (
        "type_mismatch.json",
        E,
        "type_mismatch",
        "mcpServers.s.args",
        3,
        35,
        "",
    ),
    (
        "empty_value.json",
        E,
        "empty_value",
        "mcpServers.s.command",
        3,
        22,
        "",
    ),
    (
        "timeout_fraction.json",
        E,
        "invalid_value",
        "mcpServers.s.requestTimeoutMs",
        3,
        47,
        "",
    ),
    (
        "plain_http.json",
        W,
        "plain_http",
        "mcpServers.s.url",
        3,
        18,
        "use `https`",
    ),
    (
        "reference_in_args.json",
        W,
        "reference_in_args",
        "mcpServers.s.args[1]",
        3,
        47,
        "into `env`",
    ),
];

#[test]
fn each_fixture_yields_its_diagnostic_at_the_exact_place() {
    let mut failures = Vec::new();
    for &(name, severity, code, path, line, column, suggestion) in CASES {
        let found = diagnostics(name);
        let hit = found.iter().find(|d| d.code == code && d.path == path);
        let ok = hit.is_some_and(|d| {
            d.severity == severity
                && d.line == Some(line)
                && d.column == Some(column)
                && d.suggestion.as_deref().unwrap_or("").contains(suggestion)
                && d.file.ends_with(name)
        });
        if !ok {
            failures.push(format!(
                "{name}: wanted {code} at {path} {line}:{column}, got {found:#?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_fixture_is_covered_by_a_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config");
    for entry in std::fs::read_dir(dir).expect("fixture dir") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        assert!(
            CASES.iter().any(|c| c.0 == name) || name == "missing_servers.json",
            "{name} has no case"
        );
    }
}

#[test]
fn missing_mcp_servers_is_a_file_error_with_an_example() {
    let found = diagnostics("missing_servers.json");
    let missing = found
        .iter()
        .find(|d| d.code == "top_level")
        .expect("top_level error");
    assert_eq!(missing.message, "missing `mcpServers`");
    assert!(
        missing
            .suggestion
            .as_deref()
            .unwrap_or("")
            .contains("\"mcpServers\"")
    );
    assert!(
        found
            .iter()
            .any(|d| d.code == "unknown_field" && d.path == "servers_list")
    );
}

#[test]
fn one_bad_entry_never_hides_the_others() {
    let text = r#"{"mcpServers": {
        "good": {"command": "a"},
        "bad": {"command": "b", "banana": 1},
        "also-good": {"url": "https://x.example/mcp"}
    }}"#;
    let parsed = parse_file(text, Path::new("/t/.mcp.json"), Layer::Project);
    let names: Vec<(&str, bool)> = parsed
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.def.is_some()))
        .collect();
    assert_eq!(
        names,
        vec![("good", true), ("bad", false), ("also-good", true)]
    );
}

#[test]
fn a_secret_literal_never_appears_in_a_diagnostic() {
    for name in [
        "literal_secret_env.json",
        "literal_secret_header.json",
        "credential_in_url.json",
        "credential_in_query.json",
    ] {
        for d in diagnostics(name) {
            let text = d.to_string();
            for secret in ["ghp_literal123", "abc123", "pw@", "=abc"] {
                assert!(!text.contains(secret), "{name}: {text}");
            }
        }
    }
}

#[test]
fn a_valid_file_has_no_diagnostics() {
    let text = r#"{"mcpServers": {
        "fs": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.1.14", "."],
               "cwd": "sub", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG": "debug"},
               "lifecycle": "lazy", "requestTimeoutMs": 0, "disabled": false, "protocolVersion": "auto",
               "reconnect": {"automatic": true, "maxAttempts": 3, "baseDelayMs": 100}},
        "api": {"type": "streamable-http", "url": "https://api.example.com/mcp",
                "headers": {"Authorization": "Bearer ${API_TOKEN}", "X-Api-Key": "$env:API_KEY", "X-Tenant": "acme"},
                "protocolVersion": "2026-07-28", "requestTimeoutMs": 5000}
    }}"#;
    let parsed = parse_file(text, Path::new("/t/.mcp.json"), Layer::Project);
    assert!(parsed.diagnostics.is_empty());
    for entry in &parsed.entries {
        assert!(entry.diagnostics.is_empty(), "{:#?}", entry.diagnostics);
        assert!(entry.def.is_some());
    }
    let api = parsed.entries[1].def.as_ref().expect("valid");
    assert_eq!(api.request_timeout().as_millis(), 5000);
    let fs = parsed.entries[0].def.as_ref().expect("valid");
    assert_eq!(
        fs.request_timeout().as_millis(),
        60_000,
        "0 means the engine default"
    );
    assert_eq!(
        fs.references(),
        vec![("env.GITHUB_TOKEN".to_owned(), "GITHUB_TOKEN".to_owned())]
    );
}

/// The wording of a wrong-shape value, for each field read through the shared typed reads.
#[test]
fn wrong_shapes_name_the_field_and_what_was_found() {
    let text = r#"{"mcpServers": {
  "a": {"command": "x", "args": "--flag"},
  "b": {"command": "x", "args": ["ok", 7]},
  "c": {"url": "https://example.com/mcp", "oauth": [], "reconnect": 5},
  "d": {"url": "https://example.com/mcp", "oauth": {"scopes": "read"}}
}}"#;
    let parsed = parse_file(text, Path::new("mcp.json"), Layer::Project);
    let messages: Vec<(String, String)> = parsed
        .entries
        .iter()
        .flat_map(|e| e.diagnostics.iter())
        .filter(|d| d.code == "type_mismatch")
        .map(|d| (d.path.clone(), d.message.clone()))
        .collect();
    let has = |path: &str, message: &str| {
        assert!(
            messages
                .iter()
                .any(|(p, m)| p == path && m.starts_with(message)),
            "{path}: {message} not in {messages:#?}"
        );
    };
    has(
        "mcpServers.a.args",
        "`args` must be an array of strings, found",
    );
    has("mcpServers.b.args[1]", "`args[1]` must be a string, found");
    has("mcpServers.c.oauth", "`oauth` must be an object, found");
    has(
        "mcpServers.c.reconnect",
        "`reconnect` must be an object, found",
    );
    has(
        "mcpServers.d.oauth.scopes",
        "`scopes` must be an array of strings, found",
    );
    assert_eq!(messages.len(), 5, "{messages:#?}");
}

/// The client-credentials grant: a client ID and exactly one credential, every credential a
/// reference or a key file path; a private key belongs to that grant only.
#[test]
fn the_client_credentials_grant_is_checked() {
    let text = r#"{"mcpServers": {
  "ok": {"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials",
         "clientId": "ci", "privateKeyFile": "/home/ci/.config/key.pem"}},
  "secret": {"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials",
         "clientId": "ci", "clientSecret": "${CI_SECRET}"}},
  "literal": {"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials",
         "clientId": "ci", "privateKey": "-----BEGIN PRIVATE KEY-----"}},
  "both": {"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials",
         "clientId": "ci", "clientSecret": "${S}", "privateKey": "${K}"}},
  "noid": {"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials",
         "privateKey": "${K}"}},
  "stray": {"url": "https://example.com/mcp", "oauth": {"privateKeyFile": "/k.pem"}},
  "typo": {"url": "https://example.com/mcp", "oauth": {"grant": "password"}}
}}"#;
    let parsed = parse_file(text, Path::new("mcp.json"), Layer::User);
    let found: Vec<(String, String)> = parsed
        .entries
        .iter()
        .flat_map(|e| e.diagnostics.iter())
        .map(|d| (d.code.to_string(), d.path.clone()))
        .collect();
    let has = |code: &str, path: &str| {
        assert!(
            found.iter().any(|(c, p)| c == code && p == path),
            "{code} at {path} not in {found:#?}"
        );
    };
    has("literal_secret", "mcpServers.literal.oauth.privateKey");
    has("missing_field", "mcpServers.both.oauth.clientSecret");
    has("missing_field", "mcpServers.noid.oauth.clientId");
    has("invalid_value", "mcpServers.stray.oauth.privateKey");
    has("invalid_value", "mcpServers.typo.oauth.grant");
    for name in ["ok", "secret"] {
        let entry = parsed
            .entries
            .iter()
            .find(|e| e.name == name)
            .expect("entry");
        assert!(
            entry.diagnostics.is_empty(),
            "{name}: {:?}",
            entry.diagnostics
        );
        let Transport::Http(http) = &entry.def.as_ref().expect("valid").transport else {
            panic!("{name} is http");
        };
        let oauth = http.oauth.as_deref().expect("oauth");
        assert_eq!(oauth.grant, Grant::ClientCredentials);
    }
}

/// The two JWT-bearer grants and DPoP: each grant's fields belong to it alone, each needs its
/// own, every credential is a reference or a file path, and `dpop` is a boolean.
#[test]
fn the_workload_identity_and_enterprise_grants_and_dpop_are_checked() {
    let text = r#"{"mcpServers": {
  "wif": {"url": "https://example.com/mcp", "oauth": {"grant": "workload_identity",
          "workloadTokenFile": "/run/token", "dpop": false}},
  "ema": {"url": "https://example.com/mcp", "oauth": {"grant": "enterprise_managed",
          "clientId": "deck", "clientSecret": "${S}", "idpIssuer": "https://sso.example",
          "idpClientId": "deck", "idToken": "${ID_TOKEN}"}},
  "wifnone": {"url": "https://example.com/mcp", "oauth": {"grant": "workload_identity"}},
  "wifliteral": {"url": "https://example.com/mcp", "oauth": {"grant": "workload_identity",
          "workloadToken": "eyJhbGciOi"}},
  "emabare": {"url": "https://example.com/mcp", "oauth": {"grant": "enterprise_managed",
          "idTokenFile": "/t", "idToken": "${T}", "idpIssuer": "http://sso.example"}},
  "stray": {"url": "https://example.com/mcp", "oauth": {"workloadTokenFile": "/run/token",
          "idpClientId": "x"}},
  "dpopstr": {"url": "https://example.com/mcp", "oauth": {"dpop": "yes"}}
}}"#;
    let parsed = parse_file(text, Path::new("mcp.json"), Layer::User);
    let found: Vec<(String, String)> = parsed
        .entries
        .iter()
        .flat_map(|e| e.diagnostics.iter())
        .map(|d| (d.code.to_string(), d.path.clone()))
        .collect();
    let has = |code: &str, path: &str| {
        assert!(
            found.iter().any(|(c, p)| c == code && p == path),
            "{code} at {path} not in {found:#?}"
        );
    };
    has("missing_field", "mcpServers.wifnone.oauth.workloadToken");
    has(
        "literal_secret",
        "mcpServers.wifliteral.oauth.workloadToken",
    );
    has("missing_field", "mcpServers.emabare.oauth.clientId");
    has("missing_field", "mcpServers.emabare.oauth.idpClientId");
    has("missing_field", "mcpServers.emabare.oauth.idToken");
    has("invalid_url", "mcpServers.emabare.oauth.idpIssuer");
    has("invalid_value", "mcpServers.stray.oauth.workloadTokenFile");
    has("invalid_value", "mcpServers.stray.oauth.idpClientId");
    assert!(
        found
            .iter()
            .any(|(_, p)| p == "mcpServers.dpopstr.oauth.dpop"),
        "{found:#?}"
    );
    for (name, grant) in [
        ("wif", Grant::WorkloadIdentity),
        ("ema", Grant::EnterpriseManaged),
    ] {
        let entry = parsed
            .entries
            .iter()
            .find(|e| e.name == name)
            .expect("entry");
        assert!(
            entry.diagnostics.is_empty(),
            "{name}: {:?}",
            entry.diagnostics
        );
        let Transport::Http(http) = &entry.def.as_ref().expect("valid").transport else {
            panic!("{name} is http");
        };
        let oauth = http.oauth.as_deref().expect("oauth");
        assert_eq!(oauth.grant, grant);
        assert!(grant.is_headless());
    }
}
