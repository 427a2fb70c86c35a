//! The MCP servers mcpdeck itself runs on stdin/stdout: `mcpdeck demo-server` and
//! `mcpdeck workspace-server`. Neither reads configuration.

use std::path::PathBuf;

use super::{Exit, WorkspaceServerArgs, output};

/// `mcpdeck workspace-server`: serves until the client closes stdin. Errors name workspaces by
/// position only (stderr must never carry an alias or a path).
pub(super) fn workspace_server(args: &WorkspaceServerArgs) -> Exit {
    use crate::workspace::{Observability, RunError};
    let (values, observability) = (&args.workspace, args.observability);
    let report = |message: &str| {
        if observability != Observability::Off {
            output::print_error(&format!("workspace-server: {message}"));
        }
    };
    let mut pairs = Vec::with_capacity(values.len() / 2);
    for (i, pair) in values.chunks(2).enumerate() {
        let [alias, path] = pair else {
            report("--workspace takes an ALIAS and a PATH");
            return Exit::Usage;
        };
        let Some(alias) = alias.to_str() else {
            report(&format!("workspace {}: the alias is not valid", i + 1));
            return Exit::Usage;
        };
        pairs.push((alias.to_owned(), PathBuf::from(path)));
    }
    let max_files = usize::try_from(args.max_files).unwrap_or(crate::workspace::MAX_MAX_FILES);
    match crate::workspace::run(&pairs, observability, max_files) {
        Ok(()) => Exit::Ok,
        Err(RunError::Bind(e)) => {
            report(&e.to_string());
            Exit::Usage
        }
        Err(e) => {
            report(&e.to_string());
            Exit::Connection
        }
    }
}

/// `mcpdeck demo-server`: serves until the client closes stdin.
pub(super) fn demo_server() -> Exit {
    match crate::demo::run() {
        Ok(()) => Exit::Ok,
        Err(e) => {
            output::print_error(&format!("demo server: {e:#}"));
            Exit::Connection
        }
    }
}
