//! Session controls of one server: ping, disconnect (that server only), and its roots for the
//! session (listed, a directory added, a root removed). Each runs in a spawned task and answers
//! with [`crate::app::Msg::Done`], cancellable like any request.

use super::Executor;
use crate::app::ReqId;
use crate::app::session::SessionOp;

impl Executor {
    /// Carries out one session control.
    pub(super) fn run_session(&mut self, id: ReqId, server: String, op: SessionOp) {
        self.spawn(id, move |engine, token| async move {
            match op {
                SessionOp::Ping => engine.ping(&server, &token).await,
                SessionOp::Disconnect => engine.disconnect(&server).await,
                SessionOp::Roots => engine.roots(&server),
                SessionOp::AddRoot(path) => engine.add_root(&server, &path).await,
                SessionOp::RemoveRoot(uri) => engine.remove_root(&server, &uri).await,
            }
        });
    }
}
