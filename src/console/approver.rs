//! The console's [`Approver`]: forwards each request into the app's message channel with the
//! `oneshot` sender the engine awaits. When the console is gone the send fails, the sender is
//! dropped, and the engine sees a denial.

use tokio::sync::{mpsc, oneshot};

use crate::app::Msg;
use crate::mcp::policy::approval::{ApprovalRequest, Approver, Decision};

/// Asks the operator at the console.
#[derive(Debug, Clone)]
pub struct ConsoleApprover {
    tx: mpsc::UnboundedSender<Msg>,
}

impl ConsoleApprover {
    /// An approver sending into the console's message channel.
    pub fn new(tx: mpsc::UnboundedSender<Msg>) -> Self {
        Self { tx }
    }
}

impl Approver for ConsoleApprover {
    fn ask(&self, request: ApprovalRequest) -> oneshot::Receiver<Decision> {
        let (reply, answer) = oneshot::channel();
        // On failure the message (and the sender in it) is dropped: a denial.
        let _ = self.tx.send(Msg::Approval(request, reply));
        answer
    }
}
