//! The built-in `workspace` packaged server and facade: `mcpdeck
//! workspace-server` bound to the project root under an alias derived from the project
//! directory's name, and one facade operation per workspace tool.
//!
//! Descriptors only: nothing here spawns, reads a file or touches the network. The facade's
//! operation schemas are the server's own closed input schemas ([`crate::workspace::schema`]),
//! so a facade call validates exactly as the server will. It lives with the workspace server,
//! not in `mcp::packaged`: the engine knows packaged servers in general and never this one, so
//! `mcp` does not depend on `workspace` (which is an MCP server built on `mcp`).

use std::path::Path;

use serde_json::Value;

use super::{sanitize_alias, schema};
use crate::mcp::packaged::{
    FacadeOperation, PackagedError, PackagedRegistry, PackagedSelfServer, Presence, ToolFacade,
};
use crate::mcp::sandbox::{NetRule, SandboxDef};

/// The name of the built-in workspace server and of its facade.
pub const WORKSPACE_SERVER: &str = "workspace";

/// The alias the project is bound under: its directory name, sanitised to the alias rule.
pub fn project_alias(project_root: &Path) -> String {
    let name = project_root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    sanitize_alias(&name)
}

/// `mcpdeck workspace-server --workspace ALIAS ROOT --observability errors`, or why the
/// project root cannot be passed as an argument (it is not UTF-8).
pub fn workspace_server(project_root: &Path) -> Result<PackagedSelfServer, String> {
    let root = project_root
        .to_str()
        .ok_or("the project directory's path is not UTF-8")?;
    Ok(PackagedSelfServer {
        name: WORKSPACE_SERVER.to_owned(),
        subcommand_args: vec![
            "workspace-server".to_owned(),
            "--workspace".to_owned(),
            project_alias(project_root),
            root.to_owned(),
            "--observability".to_owned(),
            "errors".to_owned(),
        ],
        // Confined by default to the root it is bound to: read-only, no network.
        sandbox: Some(SandboxDef {
            read: vec![root.to_owned()],
            net: Some(NetRule::None),
            ..SandboxDef::default()
        }),
    })
}

/// The built-in registry ([`PackagedRegistry::builtin`]) plus the `workspace` server bound to
/// `project_root` and its facade. A project root that cannot be passed as an argument (not
/// UTF-8) leaves the workspace server out rather than failing every command.
pub fn registry_for_project(project_root: &Path) -> Result<PackagedRegistry, PackagedError> {
    let mut registry = PackagedRegistry::builtin()?;
    if let Ok(server) = workspace_server(project_root) {
        registry.register_server(server, Presence::Always)?;
        registry.register_facade(workspace_facade(&project_alias(project_root)))?;
    }
    Ok(registry)
}

/// The facade over the workspace server: operations `find`, `query`, `check` and `capsule`,
/// each calling its `workspace_*` tool with the tool's own closed schema.
pub fn workspace_facade(alias: &str) -> ToolFacade {
    let aliases = [alias.to_owned()];
    let operations = schema::TOOLS
        .iter()
        .filter_map(|tool| {
            let Some(Value::Object(fields)) = schema::fields(tool, &aliases) else {
                return None;
            };
            Some(FacadeOperation {
                name: tool.trim_start_matches("workspace_").to_owned(),
                remote_tool: (*tool).to_owned(),
                fields,
                required: schema::required(tool)
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
            })
        })
        .collect();
    ToolFacade {
        name: WORKSPACE_SERVER.to_owned(),
        description: "Read-only questions about this project: find passages, query the file \
                      graph, check configuration and links, build a hashed claim capsule."
            .to_owned(),
        server: WORKSPACE_SERVER.to_owned(),
        operations,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::mcp::packaged::PackagedDescriptor;
    use serde_json::json;

    #[test]
    fn the_project_is_bound_under_its_sanitised_name() {
        let registry = registry_for_project(Path::new("/x/my proj!")).unwrap();
        let Some(PackagedDescriptor::SelfServer(s)) = registry.server(WORKSPACE_SERVER) else {
            panic!("no workspace server");
        };
        assert_eq!(
            s.subcommand_args,
            [
                "workspace-server",
                "--workspace",
                "my-proj-",
                "/x/my proj!",
                "--observability",
                "errors"
            ]
        );
        let present: Vec<(&str, Presence)> =
            registry.servers().map(|(d, p)| (d.name(), p)).collect();
        assert!(present.contains(&(WORKSPACE_SERVER, Presence::Always)));
        assert_eq!(project_alias(Path::new("/")), "workspace");
    }

    #[test]
    fn the_facade_has_one_closed_operation_per_tool() {
        let registry = registry_for_project(Path::new("/p/proj")).unwrap();
        let facade = registry.facade(WORKSPACE_SERVER).unwrap();
        let ops: Vec<(&str, &str)> = facade
            .operations
            .iter()
            .map(|o| (o.name.as_str(), o.remote_tool.as_str()))
            .collect();
        assert_eq!(
            ops,
            [
                ("find", "workspace_find"),
                ("query", "workspace_query"),
                ("check", "workspace_check"),
                ("capsule", "workspace_capsule")
            ]
        );
        let call = registry
            .call(
                "workspace",
                "find",
                &json!({"workspace": "proj", "question": "q", "limit": 3}),
            )
            .unwrap();
        assert_eq!(
            (call.server.as_str(), call.remote_tool.as_str()),
            ("workspace", "workspace_find")
        );
        for bad in [
            json!({"workspace": "other", "question": "q"}),
            json!({"workspace": "proj", "question": "q", "limit": 21}),
            json!({"workspace": "proj", "question": "q", "command": "sh"}),
        ] {
            assert!(matches!(
                registry.call("workspace", "find", &bad),
                Err(PackagedError::InvalidArguments { .. })
            ));
        }
    }
}
