//! The operator's session controls over one server that need no request to it: its roots for
//! this session (telling a connected server with `notifications/roots/list_changed`) and
//! closing its connection while the others stay up. Agents never get these; they run outside
//! policy and the trace (`OperatorOp::{Roots, AddRoot, RemoveRoot, Disconnect}`).

use super::outcome::{Failure, Outcome, Success};
use super::{Engine, EngineRequest, OperatorOp};
use crate::mcp::api::{Disconnected, OpResult, RootItem, RootList};
use crate::mcp::client::{RootEntry, SharedRoots};
use crate::mcp::connection::ErrorClass;
use crate::mcp::sanitize::sanitize_capped;

impl Engine {
    /// Runs a session control (a request [`EngineRequest::judged_as`] leaves outside policy).
    pub(super) async fn session_control(&self, request: &EngineRequest) -> Outcome {
        let EngineRequest::Operator { server, op } = request else {
            return self.set_roots_failed(
                request.server().unwrap_or_default(),
                &request.name(),
                Failure::invalid("not a session control".to_owned()),
            );
        };
        match op {
            OperatorOp::Roots => self.roots(server),
            OperatorOp::AddRoot { path } => self.add_root(server, path).await,
            OperatorOp::RemoveRoot { uri } => self.remove_root(server, uri).await,
            OperatorOp::Disconnect => self.disconnect(server).await,
            _ => self.set_roots_failed(
                server,
                op.name(),
                Failure::invalid("not a session control".to_owned()),
            ),
        }
    }

    fn session_slot(&self, server: &str) -> Result<&std::sync::Arc<super::slot::Slot>, Failure> {
        self.slots.get(server).ok_or_else(|| {
            Failure::new(
                ErrorClass::UnknownServer,
                format!("unknown server `{}`", sanitize_capped(server, 128)),
            )
        })
    }

    fn shared_roots(&self, server: &str) -> Result<SharedRoots, Failure> {
        let slot = self.session_slot(server)?;
        let face = self.client.as_ref().ok_or_else(no_roots)?;
        Ok(slot.session_roots(face))
    }

    /// The roots `server` is shown this session.
    fn roots(&self, server: &str) -> Outcome {
        let body = self
            .shared_roots(server)
            .map(|shared| roots_success(server, &shared.get(), false, "roots"));
        Outcome {
            server: Some(server.to_owned()),
            operation: "roots.list".to_owned(),
            body,
        }
    }

    /// Replaces the roots `server` is shown this session; a connected server is sent
    /// `notifications/roots/list_changed` (and usually asks `roots/list` again). Never connects.
    async fn set_roots(&self, server: &str, roots: Vec<RootEntry>) -> Outcome {
        let refusal = self.outside_sandbox(server, &roots);
        let body = match (self.shared_roots(server), refusal) {
            (Err(e), _) | (Ok(_), Some(e)) => Err(e),
            (Ok(shared), None) => {
                let changed = shared.set(roots);
                if changed {
                    // Status shows the session's roots.
                    self.status_changed();
                }
                let live = self.session_slot(server).ok().and_then(|s| s.live());
                let mut notified = false;
                let mut problem = None;
                if changed && let Some(live) = live {
                    match live.conn.read().await.notify_roots_changed().await {
                        Ok(()) => notified = true,
                        Err(e) => problem = Some(e),
                    }
                }
                match problem {
                    Some(e) => Err(Failure::new(
                        ErrorClass::Transport,
                        format!("the roots changed, but telling the server failed: {e}"),
                    )),
                    None => Ok(roots_success(server, &shared.get(), notified, "roots set")),
                }
            }
        };
        Outcome {
            server: Some(server.to_owned()),
            operation: "roots.set".to_owned(),
            body,
        }
    }

    /// The refusal of roots a sandboxed server could not read (outside its `read` and `write`
    /// rules), if any of `roots` is.
    fn outside_sandbox(&self, server: &str, roots: &[RootEntry]) -> Option<Failure> {
        let slot = self.session_slot(server).ok()?;
        let def = slot.entry.def.as_ref()?;
        let file_dir = slot.entry.source.file.parent()?;
        let outside = crate::mcp::client::roots::outside_sandbox(def, file_dir, roots);
        if outside.is_empty() {
            return None;
        }
        Some(Failure::new(
            ErrorClass::RootsOutsideSandbox,
            format!(
                "`{}` runs in a sandbox that cannot read {}: roots must lie inside its `read` or \
                 `write` rules",
                sanitize_capped(server, 128),
                sanitize_capped(&outside.join(", "), 1024)
            ),
        ))
    }

    /// Adds the directory `path` (relative paths against the project directory) to `server`'s
    /// roots for the session. The directory must exist.
    async fn add_root(&self, server: &str, path: &str) -> Outcome {
        let Some(face) = &self.client else {
            return self.set_roots_failed(server, "roots.set", no_roots());
        };
        let path = std::path::Path::new(path);
        let full = if path.is_absolute() {
            path.to_path_buf()
        } else {
            face.project_root.join(path)
        };
        let is_dir = tokio::fs::metadata(&full).await.is_ok_and(|m| m.is_dir());
        let entry = RootEntry::for_path(&full, &face.project_root).filter(|_| is_dir);
        let Some(entry) = entry else {
            let shown = sanitize_capped(&full.to_string_lossy(), 512);
            return self.set_roots_failed(
                server,
                "roots.set",
                Failure::invalid(format!("{shown} is not a directory")),
            );
        };
        let mut roots = match self.shared_roots(server) {
            Ok(shared) => shared.get(),
            Err(e) => return self.set_roots_failed(server, "roots.set", e),
        };
        if !roots.contains(&entry) {
            roots.push(entry);
        }
        self.set_roots(server, roots).await
    }

    /// Removes the root with `uri` from `server`'s roots for the session.
    async fn remove_root(&self, server: &str, uri: &str) -> Outcome {
        let mut roots = match self.shared_roots(server) {
            Ok(shared) => shared.get(),
            Err(e) => return self.set_roots_failed(server, "roots.set", e),
        };
        let before = roots.len();
        roots.retain(|r| r.uri != uri);
        if roots.len() == before {
            let shown = sanitize_capped(uri, 512);
            return self.set_roots_failed(
                server,
                "roots.set",
                Failure::invalid(format!("{shown} is not one of the roots")),
            );
        }
        self.set_roots(server, roots).await
    }

    #[allow(clippy::unused_self)]
    fn set_roots_failed(&self, server: &str, operation: &str, failure: Failure) -> Outcome {
        Outcome {
            server: Some(server.to_owned()),
            operation: operation.to_owned(),
            body: Err(failure),
        }
    }

    /// Closes `server`'s connection (its process ends); the other servers stay connected and
    /// the next operation on it connects again.
    async fn disconnect(&self, server: &str) -> Outcome {
        let body = match self.session_slot(server) {
            Err(e) => Err(e),
            Ok(slot) => {
                let was_connected = slot.disconnect(&self.cleanup).await;
                let name = sanitize_capped(server, 128);
                Ok(Success {
                    text: if was_connected {
                        format!("disconnected from {name}")
                    } else {
                        format!("{name} was not connected")
                    },
                    result: OpResult::Disconnected(Disconnected { was_connected }),
                    spills: Vec::new(),
                })
            }
        };
        Outcome {
            server: Some(server.to_owned()),
            operation: "disconnect".to_owned(),
            body,
        }
    }
}

fn no_roots() -> Failure {
    Failure::new(
        ErrorClass::NotSupported,
        "this face declares no roots (nothing answers roots/list)".to_owned(),
    )
}

fn roots_success(server: &str, roots: &[RootEntry], notified: bool, what: &str) -> Success {
    let items: Vec<RootItem> = roots
        .iter()
        .map(|r| RootItem {
            uri: sanitize_capped(&r.uri, 2048),
            name: sanitize_capped(&r.name, 256),
        })
        .collect();
    let mut text = format!("{what} for {}:", sanitize_capped(server, 128));
    if items.is_empty() {
        text.push_str(" none");
    }
    for item in &items {
        text.push_str("\n  ");
        text.push_str(&item.uri);
    }
    if notified {
        text.push_str("\n(the server was sent notifications/roots/list_changed)");
    }
    Success {
        result: OpResult::Roots(RootList {
            roots: items,
            notified,
        }),
        text,
        spills: Vec::new(),
    }
}
