//! The operator's disconnect epochs of one server (see the slot's module text): the ticket a
//! request carries from the moment it is asked for, and the disconnect that ends an epoch.

use tokio_util::sync::CancellationToken;

use super::Slot;
use crate::mcp::connection::ErrorClass;
use crate::mcp::engine::outcome::Failure;
use crate::mcp::sanitize::sanitize_capped;

/// What a request carries from the moment it is asked for: its server's disconnect epoch then,
/// and the token the server's next disconnect cancels.
#[derive(Debug, Clone)]
pub(in crate::mcp::engine) struct Ticket {
    /// The operator's disconnects of the server before the request was asked for.
    pub epoch: u64,
    /// Cancelled by the next disconnect.
    pub cancel: CancellationToken,
}

impl Slot {
    fn operator(&self) -> std::sync::MutexGuard<'_, (u64, CancellationToken)> {
        self.operator
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The ticket of a request asked for now.
    pub(in crate::mcp::engine) fn ticket(&self) -> Ticket {
        let operator = self.operator();
        Ticket {
            epoch: operator.0,
            cancel: operator.1.clone(),
        }
    }

    /// Whether the operator disconnected the server since a request with `epoch` was asked for.
    pub(in crate::mcp::engine) fn disconnected_since(&self, epoch: u64) -> bool {
        self.operator().0 != epoch
    }

    /// The failure of a request the operator's disconnect overtook.
    pub(in crate::mcp::engine) fn disconnected_failure(&self) -> Failure {
        Failure::new(
            ErrorClass::Cancelled,
            format!(
                "disconnected by the operator: `{}` was disconnected while this request waited \
                 or ran, so it was cancelled and the server is not connected again for it",
                sanitize_capped(&self.name, 128)
            ),
        )
    }

    /// The operator's disconnect: the requests asked for until now are cancelled (and none of
    /// them connects the server again), then the connection is closed. Whether there was
    /// something to end: a connection, or a connect in progress (which holds the gate).
    pub(in crate::mcp::engine) async fn disconnect(
        &self,
        cleanup: &crate::mcp::engine::cleanup::Cleanup,
    ) -> bool {
        let ended = self.live().is_some() || self.gate.try_lock().is_err();
        let overtaken = {
            let mut operator = self.operator();
            operator.0 += 1;
            std::mem::replace(&mut operator.1, CancellationToken::new())
        };
        overtaken.cancel();
        self.close(cleanup).await;
        ended
    }
}
