//! The JSON Schema of `mcp.json` (`mcpdeck config schema`), for editors that validate as you
//! type. It says what a schema can say of the rules `config check` applies: the shape, every
//! field and its type, names, ranges, `command` xor `url`, fields of the other transport. What a
//! schema cannot say — duplicate keys, malformed `${…}` references, literal secrets in
//! credential-shaped keys, reserved headers — only `config check` reports.

use serde_json::{Value, json};

/// The schema (JSON Schema draft 2020-12).
pub(crate) fn mcp_json_schema() -> Value {
    let strings = json!({"type": "object", "additionalProperties": {"type": "string"}});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "mcpdeck MCP server configuration (mcp.json)",
        "type": "object",
        "required": ["mcpServers"],
        "additionalProperties": false,
        "properties": {
            "mcpServers": {
                "type": "object",
                "description": "Server definitions by name. A higher-precedence file's definition replaces a lower one's whole.",
                "propertyNames": {"pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"},
                "additionalProperties": {"$ref": "#/$defs/server"}
            },
            "projectSandbox": {
                "allOf": [sandbox_schema()],
                "description": "mcpdeck's user file only ($XDG_CONFIG_HOME/mcpdeck/mcp.json): the sandbox of every stdio server of a project file (.mcp.json, .mcpdeck/mcp.json) that has no `sandbox` of its own; `.` is the project."
            }
        },
        "$defs": {
            "server": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "command": {"type": "string", "minLength": 1, "description": "stdio: the executable, a name or a path."},
                    "args": {"type": "array", "items": {"type": "string"}, "description": "stdio: literal arguments (references are not expanded)."},
                    "cwd": {"type": "string", "description": "stdio: the working directory, relative to this file's directory."},
                    "env": {"allOf": [strings, {"description": "stdio: additions to the minimal environment; values may hold ${NAME} references. Credentials must be references."}]},
                    "url": {"type": "string", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://", "description": "Streamable HTTP endpoint."},
                    "headers": {"allOf": [strings, {"description": "HTTP: request headers; values may hold ${NAME} references. Credentials must be references."}]},
                    "type": {"enum": ["stdio", "http", "streamable-http"], "description": "Optional; must agree with command/url. Legacy SSE is not supported."},
                    "lifecycle": {"const": "lazy"},
                    "requestTimeoutMs": {"type": "integer", "maximum": 86_400_000, "description": "Per-request timeout; 0 or less means the default (60000)."},
                    "taskTimeoutMs": {"type": "integer", "maximum": 86_400_000, "description": "How long a tool call run as a task is followed before it is cancelled (or the task's own ttl, when shorter); 0 or less means the default (600000)."},
                    "reconnect": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "automatic": {"type": "boolean"},
                            "maxAttempts": {"type": "integer", "minimum": 1, "maximum": 3},
                            "baseDelayMs": {"type": "integer", "minimum": 100, "maximum": 500}
                        }
                    },
                    "disabled": {"type": "boolean"},
                    "protocolVersion": {"enum": ["legacy", "auto", "2026-07-28"]},
                    "roots": {"type": "array", "items": {"type": "string", "minLength": 1},
                              "description": "The directories offered to the server as roots, relative to this file's directory; [] offers none. Without it: the project directory, narrowed to the directories a stdio server's arguments name."},
                    "oauth": oauth_schema(),
                    "sandbox": sandbox_schema()
                },
                "oneOf": [
                    {
                        "required": ["command"],
                        "properties": {"url": false, "headers": false, "oauth": false, "type": {"const": "stdio"}}
                    },
                    {
                        "required": ["url"],
                        "properties": {"command": false, "args": false, "cwd": false, "env": false, "sandbox": false,
                                        "type": {"enum": ["http", "streamable-http"]}}
                    }
                ]
            }
        }
    })
}

/// `oauth` (HTTP): the client settings for signing in.
fn oauth_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "description": "HTTP: OAuth client settings for signing in.",
        "properties": {
            "clientId": {"type": "string", "minLength": 1},
            "clientSecret": {"type": "string", "pattern": "\\$\\{", "description": "A ${NAME} reference; literal secrets are refused."},
            "clientMetadataUrl": {"type": "string", "pattern": "^https://"},
            "scopes": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "redirectPort": {"type": "integer", "minimum": 0, "maximum": 65535},
            "grant": {"enum": ["authorization_code", "client_credentials", "workload_identity", "enterprise_managed"], "description": "How tokens are obtained: a browser sign-in (the default), or headless: the client-credentials grant, workload identity federation or enterprise-managed authorization."},
            "privateKey": {"type": "string", "pattern": "\\$\\{", "description": "client_credentials with private_key_jwt: a ${NAME} reference to a PKCS#8 PEM P-256 (ES256) key."},
            "privateKeyFile": {"type": "string", "minLength": 1, "description": "client_credentials with private_key_jwt: a key file, mode 0600 and owned by you."},
            "dpop": {"type": "boolean", "description": "DPoP-bound tokens (RFC 9449): absent, used when the authorization server offers ES256 proofs; false, never; true, required."},
            "workloadToken": {"type": "string", "pattern": "\\$\\{", "description": "workload_identity: a ${NAME} reference to the workload's JWT."},
            "workloadTokenFile": {"type": "string", "minLength": 1, "description": "workload_identity: a file holding the workload's JWT, mode 0600 and owned by you."},
            "idpIssuer": {"type": "string", "pattern": "^https?://", "description": "enterprise_managed: the identity provider's issuer."},
            "idpTokenEndpoint": {"type": "string", "pattern": "^https?://", "description": "enterprise_managed: its token endpoint (default: from its OpenID configuration)."},
            "idpClientId": {"type": "string", "minLength": 1, "description": "enterprise_managed: mcpdeck's client ID at the identity provider."},
            "idpClientSecret": {"type": "string", "pattern": "\\$\\{", "description": "enterprise_managed: a ${NAME} reference to that client's secret."},
            "idToken": {"type": "string", "pattern": "\\$\\{", "description": "enterprise_managed: a ${NAME} reference to the ID token to exchange."},
            "idTokenFile": {"type": "string", "minLength": 1, "description": "enterprise_managed: a file holding the ID token, mode 0600 and owned by you."}
        }
    })
}

/// `sandbox`: a preset name, or rules (paths, `net`, `limits`, `bestEffort`).
fn sandbox_schema() -> Value {
    let presets: Vec<&str> = crate::mcp::sandbox::Preset::ALL
        .iter()
        .map(|p| p.name())
        .collect();
    let paths = json!({"type": "array", "items": {"type": "string", "minLength": 1}});
    let ports =
        json!({"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 65535}});
    json!({
        "description": "stdio: run the server confined (Landlock, Linux). Paths resolve against this file's directory; `~/` and ${NAME} are expanded.",
        "oneOf": [
            {"enum": presets},
            {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "preset": {"enum": presets},
                    "read": paths, "write": paths, "exec": paths,
                    "net": {"oneOf": [
                        {"enum": ["none", "any"]},
                        {"type": "object", "additionalProperties": false,
                         "properties": {"connect": ports, "bind": ports}}
                    ]},
                    "limits": {"type": "object", "additionalProperties": false, "properties": {
                        "memoryMb": {"type": "integer", "minimum": 16},
                        "processes": {"type": "integer", "minimum": 1}
                    }},
                    "bestEffort": {"type": "boolean"}
                }
            }
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(config: &Value) -> bool {
        let validator = jsonschema::validator_for(&mcp_json_schema()).expect("a usable schema");
        validator.is_valid(config)
    }

    #[test]
    fn the_schema_accepts_what_config_check_accepts() {
        assert!(valid(
            &json!({"projectSandbox": "read-only-project", "mcpServers": {}})
        ));
        assert!(valid(&json!({"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "x@1"], "env": {"LOG": "info"},
                   "sandbox": {"preset": "read-only-project", "read": ["~/data"],
                               "net": {"connect": [443]}, "limits": {"processes": 64}}},
            "ro": {"command": "x", "sandbox": "no-network"},
            "gh": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"},
                   "requestTimeoutMs": 30000, "reconnect": {"automatic": true, "maxAttempts": 2}},
            "rooted": {"command": "x", "roots": [".", "../shared"]},
            "none": {"command": "x", "roots": []},
            "signin": {"url": "https://example.com/mcp", "oauth": {"clientId": "deck",
                       "clientSecret": "${SECRET}", "scopes": ["read"], "redirectPort": 8765}},
            "ci": {"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials",
                   "clientId": "deck", "privateKeyFile": "~/.config/deck.pem"}},
            "ci2": {"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials",
                    "clientId": "deck", "privateKey": "${DECK_KEY}"}},
            "wif": {"url": "https://example.com/mcp", "oauth": {"grant": "workload_identity",
                    "workloadTokenFile": "/run/token", "dpop": false}},
            "ema": {"url": "https://example.com/mcp", "oauth": {"grant": "enterprise_managed",
                    "clientId": "deck", "clientSecret": "${S}", "idpIssuer": "https://sso.example",
                    "idpClientId": "deck", "idToken": "${ID_TOKEN}"}}
        }})));
    }

    #[test]
    fn the_schema_names_every_oauth_field_config_check_reads() {
        let schema = oauth_schema();
        let named = schema["properties"].as_object().expect("properties");
        for field in super::super::oauth::OAUTH_FIELDS {
            assert!(
                named.contains_key(*field),
                "`oauth.{field}` is missing from the schema"
            );
        }
        assert_eq!(named.len(), super::super::oauth::OAUTH_FIELDS.len());
    }

    #[test]
    fn the_schema_refuses_what_it_can_say() {
        for bad in [
            json!({"servers": {}}),
            json!({"mcpServers": {"a": {"command": "x", "serverUrl": "y"}}}),
            json!({"mcpServers": {"a": {"command": "x", "url": "http://h"}}}),
            json!({"mcpServers": {"a": {"url": "http://h", "type": "sse"}}}),
            json!({"mcpServers": {"a": {"url": "http://h", "env": {}}}}),
            json!({"mcpServers": {"-bad": {"command": "x"}}}),
            json!({"mcpServers": {"a": {"command": ""}}}),
            json!({"mcpServers": {"a": {"command": "x", "reconnect": {"maxAttempts": 9}}}}),
            json!({"mcpServers": {"a": {"command": "x", "sandbox": {"net": "some"}}}}),
            json!({"mcpServers": {"a": {"url": "http://h", "sandbox": "project"}}}),
            json!({"projectSandbox": "anything", "mcpServers": {}}),
            json!({"mcpServers": {"a": {"command": "x", "roots": "."}}}),
            json!({"mcpServers": {"a": {"command": "x", "oauth": {"clientId": "c"}}}}),
            json!({"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"clientSecret": "lit"}}}}),
            json!({"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"client": "c"}}}}),
            json!({"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"grant": "password"}}}}),
            json!({"mcpServers": {"a": {"url": "https://h/mcp", "oauth": {"privateKey": "-----BEGIN"}}}}),
        ] {
            assert!(!valid(&bad), "{bad}");
        }
    }
}
