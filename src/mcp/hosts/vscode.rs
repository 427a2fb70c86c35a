//! VS Code: the user profile's `mcp.json` and `<project>/.vscode/mcp.json` (`servers`, `inputs`
//! with `${input:id}` prompts, `${env:NAME}`, `${workspaceFolder}`, `envFile`, `type`
//! stdio/http/sse, `dev`); JSON with comments; the workspace file wins a name.

use super::reader::{Rules, TypeRule, read_json};
use super::{HostEnv, HostFile, HostId, Scope, Trap};

const RULES: Rules = Rules {
    host: HostId::VsCode,
    servers_key: "servers",
    jsonc: true,
    extra_fields: &["envFile", "dev", "sandboxEnabled", "sandbox"],
    url_keys: &["url"],
    sse_url_key: None,
    type_rule: TypeRule::Always,
    sse_note: None,
    cwd: true,
    disabled_key: None,
    invalid_disables_file: false,
};

/// Reads the user profile's and the workspace's file.
pub(super) fn read(env: &HostEnv) -> (Vec<HostFile>, Vec<Trap>) {
    let user_dir = if cfg!(target_os = "macos") {
        env.home
            .as_ref()
            .map(|h| h.join("Library").join("Application Support"))
    } else {
        env.config_home.clone()
    };
    let mut files = Vec::new();
    if let Some(dir) = user_dir {
        files.push(read_json(
            &RULES,
            Scope::User,
            dir.join("Code").join("User").join("mcp.json"),
            &[],
            &env.project,
        ));
    }
    files.push(read_json(
        &RULES,
        Scope::Project,
        env.project.join(".vscode").join("mcp.json"),
        &[],
        &env.project,
    ));
    let prompts = files.iter().flat_map(|f| &f.entries).any(|e| {
        e.def.as_ref().is_some_and(|d| {
            d.transport
                .fields()
                .iter()
                .any(|(_, t)| t.variables().any(|p| matches!(p, super::Piece::Input(_))))
        })
    });
    let mut traps = Vec::new();
    if prompts {
        traps.push(Trap {
            code: "input_prompt",
            message: "VS Code prompts for each `${input:…}` when the server first starts and keeps the answer in its secret storage; agent sessions outside the editor do not receive servers that need a prompt".into(),
        });
    }
    (files, traps)
}
