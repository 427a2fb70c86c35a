//! Windsurf: `~/.codeium/windsurf/mcp_config.json` only (`mcpServers`, `serverUrl` or `url` for
//! remote servers, `${env:NAME}` and `${file:/path}` interpolation, `disabled`).

use super::reader::{Rules, TypeRule, read_json};
use super::{HostEnv, HostFile, HostId, Scope, Trap};

const RULES: Rules = Rules {
    host: HostId::Windsurf,
    servers_key: "mcpServers",
    jsonc: false,
    extra_fields: &["disabledTools"],
    url_keys: &["serverUrl", "url"],
    sse_url_key: None,
    type_rule: TypeRule::Optional,
    sse_note: None,
    cwd: false,
    disabled_key: Some("disabled"),
    invalid_disables_file: false,
};

/// Reads the one user file.
pub(super) fn read(env: &HostEnv) -> (Vec<HostFile>, Vec<Trap>) {
    let files = env
        .home
        .as_ref()
        .map(|home| {
            read_json(
                &RULES,
                Scope::User,
                home.join(".codeium")
                    .join("windsurf")
                    .join("mcp_config.json"),
                &[],
                &env.project,
            )
        })
        .into_iter()
        .collect();
    (files, Vec::new())
}
