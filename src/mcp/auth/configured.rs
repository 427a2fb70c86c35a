//! Which configured servers sign in, shared by `mcpdeck auth` and the console: a valid, usable
//! HTTP definition without an `Authorization` header. A project server signs in only once the
//! project is trusted (a project file cannot get tokens for a server by naming it).

use super::AuthTarget;
use crate::mcp::config::{ConfigSet, Transport};
use crate::mcp::sanitize::sanitize;
use crate::mcp::trust::TrustState;

/// The sign-in target named `name`, or why it has none (in words to show).
pub(crate) fn target(
    config: &ConfigSet,
    trust: TrustState,
    name: &str,
) -> Result<AuthTarget, String> {
    let Some(server) = config.server(name) else {
        return Err(format!(
            "no server named `{}` is configured",
            sanitize(name)
        ));
    };
    let Some(def) = &server.entry.def else {
        return Err(format!(
            "`{}` has configuration errors; see `mcpdeck config check`",
            sanitize(name)
        ));
    };
    if server.entry.source.layer.is_project() && trust != TrustState::Trusted {
        return Err(format!(
            "`{}` is defined by this project, which is not trusted; run `mcpdeck trust` first",
            sanitize(name)
        ));
    }
    AuthTarget::from_def(def, &|var| {
        std::env::var(var).ok().filter(|v| !v.is_empty())
    })
    .map_err(|e| e.message)
}

/// The names of every valid server that signs in with OAuth, in configuration order.
pub(crate) fn oauth_servers(config: &ConfigSet) -> Vec<String> {
    config
        .servers
        .iter()
        .filter(|s| {
            matches!(&s.entry.def, Some(d) if matches!(&d.transport,
                Transport::Http(h) if h.uses_oauth()))
        })
        .map(|s| s.entry.name.clone())
        .collect()
}
