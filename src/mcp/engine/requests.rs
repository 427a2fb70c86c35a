//! The engine's entry points for one request (the agents' operations, a ping, a typed call, a
//! read by URI, the operator's own operations): each is authorised, run and traced here.

use tokio_util::sync::CancellationToken;

use super::outcome::Outcome;
use super::{ArgsBuilder, Engine, OperatorOp};
use crate::mcp::policy::TraceRecord;
use crate::mcp::proxy::ProxyRequest;

impl Engine {
    /// Runs one request under the policy. `cancel` cancels it (and is also cancelled by
    /// [`Engine::shutdown`]). Every request is recorded in the trace, metadata only.
    pub async fn execute(&self, request: &ProxyRequest, cancel: &CancellationToken) -> Outcome {
        self.execute_inner(request, cancel, None, RunMode::Plain, None)
            .await
    }

    /// [`Engine::execute`], sending the downstream progress reports of a tool call to
    /// `progress` (serve mode forwards them to the host that asked with a `progressToken`).
    pub async fn execute_with_progress(
        &self,
        request: &ProxyRequest,
        cancel: &CancellationToken,
        progress: &tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>,
    ) -> Outcome {
        self.execute_inner(request, cancel, None, RunMode::Plain, Some(progress))
            .await
    }

    /// Pings `server` (connecting if needed) and reports the round trip.
    pub async fn ping(&self, server: &str, cancel: &CancellationToken) -> Outcome {
        let request = ProxyRequest::ToolsList {
            server: server.to_owned(),
        };
        let mut outcome = self
            .execute_inner(&request, cancel, None, RunMode::Ping, None)
            .await;
        "ping".clone_into(&mut outcome.operation);
        outcome
    }

    /// `tools.call` whose arguments are built from the tool's input schema (the CLI's
    /// `key=value` typing). Authorised and traced as the one call it is: reading the schema is
    /// part of the call, not a separate operation to approve.
    pub async fn call_typed(
        &self,
        server: &str,
        tool: &str,
        build: &ArgsBuilder,
        cancel: &CancellationToken,
    ) -> Outcome {
        self.call_typed_as(server, tool, build, false, cancel).await
    }

    /// [`Engine::call_typed`], run as a task when `as_task` (a tool whose task support is
    /// `optional`); a tool that requires a task runs as one either way.
    pub async fn call_typed_as(
        &self,
        server: &str,
        tool: &str,
        build: &ArgsBuilder,
        as_task: bool,
        cancel: &CancellationToken,
    ) -> Outcome {
        let options = CallOptions {
            as_task,
            ..CallOptions::default()
        };
        self.call_with(server, tool, build, &options, cancel).await
    }

    /// [`Engine::call_typed`] with the operator's `options`: as a task, and with `_meta` entries
    /// of their own on the request (as the Inspector allows). The entries are checked first
    /// ([`CallOptions::check_meta`]); a refused one fails the call before anything is sent.
    pub async fn call_with(
        &self,
        server: &str,
        tool: &str,
        build: &ArgsBuilder,
        options: &CallOptions,
        cancel: &CancellationToken,
    ) -> Outcome {
        let request = ProxyRequest::ToolsCall {
            server: server.to_owned(),
            tool: tool.to_owned(),
            args: serde_json::Map::new(),
        };
        if let Err(message) = CallOptions::check_meta(&options.meta) {
            return Outcome {
                server: Some(server.to_owned()),
                operation: request.operation().to_string(),
                body: Err(super::outcome::Failure::invalid(message)),
            };
        }
        self.execute_inner(&request, cancel, Some(build), RunMode::Call(options), None)
            .await
    }

    /// Reads a resource by its URI: the operator's read (console, CLI), never the agents'
    /// (they read by opaque reference). Authorised and traced as `resources.read`.
    pub async fn read_uri(&self, server: &str, uri: &str, cancel: &CancellationToken) -> Outcome {
        let request = ProxyRequest::ResourcesRead {
            server: server.to_owned(),
            reference: uri.to_owned(),
        };
        self.execute_inner(&request, cancel, None, RunMode::Uri, None)
            .await
    }

    /// Runs one of the operator's own operations (completion, template reads, subscriptions,
    /// tasks), which agents never get. Policy applies as to the agents' operation it resembles:
    /// completion and task queries as catalog reads, template reads and subscriptions as
    /// `resources.read` of the URI (asking for approval with the URI in enforce mode).
    pub async fn operate(
        &self,
        server: &str,
        op: &OperatorOp,
        cancel: &CancellationToken,
    ) -> Outcome {
        let server = server.to_owned();
        let request = match op {
            OperatorOp::Complete { .. } => ProxyRequest::PromptsList { server },
            OperatorOp::Templates => ProxyRequest::ResourcesList { server },
            OperatorOp::ReadTemplate { template, .. } => ProxyRequest::ResourcesRead {
                server,
                reference: template.clone(),
            },
            OperatorOp::Subscribe { uri } | OperatorOp::Unsubscribe { uri } => {
                ProxyRequest::ResourcesRead {
                    server,
                    reference: uri.clone(),
                }
            }
            OperatorOp::TasksList
            | OperatorOp::TaskGet { .. }
            | OperatorOp::TaskCancel { .. }
            | OperatorOp::TaskResult { .. }
            | OperatorOp::SetLogLevel { .. }
            | OperatorOp::ToolCosts
            | OperatorOp::Scan
            | OperatorOp::Pins { .. }
            | OperatorOp::CheckPins { .. } => ProxyRequest::ToolsList { server },
        };
        self.execute_inner(&request, cancel, None, RunMode::Operator(op), None)
            .await
    }

    async fn execute_inner(
        &self,
        request: &ProxyRequest,
        cancel: &CancellationToken,
        build: Option<&ArgsBuilder>,
        mode: RunMode<'_>,
        progress: Option<&tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>>,
    ) -> Outcome {
        let normalized = request.operation();
        let operation = match mode {
            RunMode::Operator(op) => op.name().to_owned(),
            _ => normalized.to_string(),
        };
        let server = request.server().map(str::to_owned);
        let started = std::time::Instant::now();
        let at = crate::mcp::clock::now_rfc3339();
        let (decision, body) = match self.authorize(request, &normalized, cancel).await {
            Ok(mut gate) => {
                let body = self
                    .run(request, cancel, build, &mut gate, mode, progress)
                    .await;
                (gate.decision(), body)
            }
            Err((decision, failure)) => (decision, Err(failure)),
        };
        self.trace.push(TraceRecord {
            at,
            server: server.clone(),
            operation: operation.clone(),
            decision: decision.to_owned(),
            outcome: body
                .as_ref()
                .map_or_else(|f| f.class.name().to_owned(), |_| "ok".to_owned()),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        Outcome {
            server,
            operation,
            body,
        }
    }
}

/// How the operator runs one tool call beyond its arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallOptions {
    /// Run it as a task (for a tool whose task support is `optional`).
    pub as_task: bool,
    /// `_meta` entries of the operator's own, merged into the request's `_meta` (the protocol's
    /// own entries — version, client info and capabilities, progress token — are kept).
    pub meta: serde_json::Map<String, serde_json::Value>,
}

impl CallOptions {
    /// Refuses `_meta` keys the protocol keeps for itself: `progressToken`, and any key whose
    /// prefix (before the last `/`) has a `modelcontextprotocol` or `mcp` label, such as
    /// `io.modelcontextprotocol/protocolVersion`. Also refuses an empty key.
    pub fn check_meta(meta: &serde_json::Map<String, serde_json::Value>) -> Result<(), String> {
        for key in meta.keys() {
            let reserved = key == "progressToken"
                || key.rsplit_once('/').is_some_and(|(prefix, _)| {
                    prefix
                        .split('.')
                        .any(|label| label == "modelcontextprotocol" || label == "mcp")
                });
            if key.is_empty() || reserved {
                return Err(format!(
                    "`_meta` key `{}` is kept for the protocol; choose another name",
                    crate::mcp::sanitize::sanitize_capped(key, 128)
                ));
            }
        }
        Ok(())
    }
}

/// How a request runs beyond what the proxy request says (operator-only variants).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum RunMode<'a> {
    /// As the proxy request says.
    Plain,
    /// A tool call with the operator's options (as a task, `_meta` entries).
    Call(&'a CallOptions),
    /// `resources.read` whose reference is a raw URI.
    Uri,
    /// A ping (the request only names the server).
    Ping,
    /// One of the operator's own operations (the request is the one policy judges).
    Operator(&'a OperatorOp),
}

#[cfg(test)]
mod tests {
    use super::CallOptions;

    fn check(key: &str) -> Result<(), String> {
        let mut meta = serde_json::Map::new();
        meta.insert(key.to_owned(), serde_json::Value::Bool(true));
        CallOptions::check_meta(&meta)
    }

    #[test]
    fn the_protocols_meta_keys_are_refused_and_others_pass() {
        for kept in [
            "progressToken",
            "io.modelcontextprotocol/protocolVersion",
            "modelcontextprotocol.io/anything",
            "dev.mcp/x",
            "",
        ] {
            assert!(check(kept).is_err(), "{kept:?} was let through");
        }
        for ours in ["trace", "com.example/trace", "example.com/mcpish", "mcp"] {
            assert!(check(ours).is_ok(), "{ours:?} was refused");
        }
    }
}
