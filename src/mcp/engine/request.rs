//! The one request the engine runs: an agent's ([`ProxyRequest`]) or the operator's own on one
//! server ([`OperatorOp`]). What it is called in outcomes and the trace, and the operation the
//! policy judges it as, are derived from it here and nowhere else.

use super::OperatorOp;
use crate::mcp::proxy::{NormalizedOperation, ProxyRequest};

/// One request of any face: serve's agents, the CLI, the console.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineRequest {
    /// An agent's request (serve's `mcp` tool; the CLI's commands that are the agents' own).
    Agent(ProxyRequest),
    /// One of the operator's own operations on `server`, which agents never get.
    Operator {
        /// The configured server.
        server: String,
        /// The operation.
        op: OperatorOp,
    },
}

impl From<ProxyRequest> for EngineRequest {
    fn from(request: ProxyRequest) -> Self {
        Self::Agent(request)
    }
}

impl EngineRequest {
    /// The operator's `op` on `server`.
    pub fn operator(server: impl Into<String>, op: OperatorOp) -> Self {
        Self::Operator {
            server: server.into(),
            op,
        }
    }

    /// The server it concerns (None for status).
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::Agent(request) => request.server(),
            Self::Operator { server, .. } => Some(server),
        }
    }

    /// The operation the policy judges it as, or `None` for a session control that runs
    /// outside policy and the trace (it sends the server nothing it asked for: roots, a
    /// disconnect). An operator operation is judged as the agents' operation it resembles:
    /// completion and the skills listing as a catalog read, template and skill reads, reads by URI and subscriptions as
    /// `resources.read`, tasks, log levels, costs, pins and the scan as `tools.list`, a ping as
    /// `tools.list`, a call as the call it is.
    pub fn judged_as(&self) -> Option<NormalizedOperation> {
        let op = match self {
            Self::Agent(request) => return Some(request.operation()),
            Self::Operator { op, .. } => op,
        };
        Some(match op {
            OperatorOp::Call { tool, .. } => NormalizedOperation::ToolsCall { tool: tool.clone() },
            OperatorOp::Complete { .. } => NormalizedOperation::PromptsList,
            OperatorOp::Templates | OperatorOp::Skills => NormalizedOperation::ResourcesList,
            OperatorOp::ReadUri { .. }
            | OperatorOp::ReadTemplate { .. }
            | OperatorOp::Subscribe { .. }
            | OperatorOp::Unsubscribe { .. }
            | OperatorOp::Skill { .. } => NormalizedOperation::ResourcesRead,
            OperatorOp::Ping
            | OperatorOp::TasksList
            | OperatorOp::TaskGet { .. }
            | OperatorOp::TaskCancel { .. }
            | OperatorOp::TaskResult { .. }
            | OperatorOp::SetLogLevel { .. }
            | OperatorOp::ToolCosts
            | OperatorOp::Scan
            | OperatorOp::Pins { .. }
            | OperatorOp::CheckPins { .. } => NormalizedOperation::ToolsList,
            OperatorOp::Roots
            | OperatorOp::AddRoot { .. }
            | OperatorOp::RemoveRoot { .. }
            | OperatorOp::Disconnect => return None,
        })
    }

    /// The operation's name in its outcome.
    pub fn name(&self) -> String {
        match self {
            Self::Agent(request) => request.operation().to_string(),
            Self::Operator { op, .. } => match op {
                OperatorOp::Call { tool, .. } => {
                    NormalizedOperation::ToolsCall { tool: tool.clone() }.to_string()
                }
                op => op.name().to_owned(),
            },
        }
    }
}
