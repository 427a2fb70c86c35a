//! The engine's one entry point, [`Engine::run`]: a request (an agent's or the operator's) is
//! judged by the policy, run and traced here.

use tokio_util::sync::CancellationToken;

use super::outcome::{Failure, Outcome};
use super::{Engine, EngineRequest, OperatorOp};
use crate::mcp::connection::ErrorClass;
use crate::mcp::policy::TraceRecord;

/// When a request was asked for ([`Engine::asked`]): its server's disconnect epoch then.
#[derive(Debug, Clone)]
pub struct Asked(Option<super::slot::Ticket>);

impl Engine {
    /// Runs one request under the policy, which judges it as the operation it derives
    /// ([`EngineRequest::judged_as`]). `cancel` cancels it (and is also cancelled by
    /// [`Engine::shutdown`]). Every request the policy judges is recorded in the trace, metadata
    /// only; a session control (roots, a disconnect) runs outside policy and the trace.
    pub async fn run(&self, request: &EngineRequest, cancel: &CancellationToken) -> Outcome {
        self.run_reporting(request, cancel, None, None).await
    }

    /// The moment `request` is asked for, for [`Engine::run_asked`]: a face that queues a
    /// request before it runs (the console spawns each one) takes this when the operator asks,
    /// so a disconnect of the server the operator asked for after it cancels the request, and
    /// the request never connects the server again, whichever task runs first.
    pub fn asked(&self, request: &EngineRequest) -> Asked {
        Asked(
            request
                .server()
                .and_then(|s| self.slots.get(s))
                .map(|s| s.ticket()),
        )
    }

    /// [`Engine::run`] for a request asked for at `asked` ([`Engine::asked`]).
    pub async fn run_asked(
        &self,
        request: &EngineRequest,
        asked: Asked,
        cancel: &CancellationToken,
    ) -> Outcome {
        self.run_reporting(request, cancel, None, asked.0).await
    }

    /// [`Engine::run`], sending the downstream progress reports of a tool call to `progress`
    /// (serve mode forwards them to the host that asked with a `progressToken`).
    pub async fn run_with_progress(
        &self,
        request: &EngineRequest,
        cancel: &CancellationToken,
        progress: &tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>,
    ) -> Outcome {
        self.run_reporting(request, cancel, Some(progress), None)
            .await
    }

    async fn run_reporting(
        &self,
        request: &EngineRequest,
        cancel: &CancellationToken,
        progress: Option<&tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>>,
        asked: Option<super::slot::Ticket>,
    ) -> Outcome {
        let server = request.server().map(str::to_owned);
        let Some(judged) = request.judged_as() else {
            return self.session_control(request).await;
        };
        // The operator's `_meta` entries are checked before anything else: a refused one fails
        // the call before it is judged or sent.
        if let EngineRequest::Operator {
            op: OperatorOp::Call { options, .. },
            ..
        } = request
            && let Err(message) = CallOptions::check_meta(&options.meta)
        {
            return Outcome {
                server,
                operation: request.name(),
                body: Err(Failure::invalid(message)),
            };
        }
        let started = std::time::Instant::now();
        let at = crate::mcp::clock::now_rfc3339();
        // Taken when the request was asked for, or now, before anything waits: the operator's
        // disconnect of the server from then on cancels this request, and it never connects the
        // server again (`slot.rs`).
        let slot = server.as_deref().and_then(|s| self.slots.get(s));
        let ticket = asked.or_else(|| slot.map(|s| s.ticket()));
        let cancel = &match &ticket {
            Some(t) => super::dispatch::combine(cancel, &t.cancel),
            None => cancel.clone(),
        };
        let epoch = ticket.as_ref().map_or(0, |t| t.epoch);
        let (decision, body) = match self.authorize(server.as_deref(), &judged, cancel).await {
            Ok(mut gate) => {
                let body = self
                    .perform(request, &judged, cancel, &mut gate, progress, epoch)
                    .await;
                (gate.decision(), body)
            }
            Err((decision, failure)) => (decision, Err(failure)),
        };
        let body = match (body, slot) {
            (Err(f), Some(slot))
                if matches!(f.class, ErrorClass::Cancelled) && slot.disconnected_since(epoch) =>
            {
                Err(slot.disconnected_failure())
            }
            (body, _) => body,
        };
        self.trace.push(TraceRecord {
            at,
            server: server.clone(),
            operation: request.name(),
            decision: decision.to_owned(),
            outcome: body
                .as_ref()
                .map_or_else(|f| f.class.name().to_owned(), |_| "ok".to_owned()),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        Outcome {
            server,
            operation: request.name(),
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
    /// `_meta` entries as the operator writes them (the CLI's `--meta` words, the console
    /// form's `_meta` field): `key=value` (a string) or `key:=JSON`, each key once. Checked
    /// with [`CallOptions::check_meta`] when the call is sent.
    pub fn parse_meta<S: AsRef<str>>(
        words: &[S],
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        use crate::mcp::sanitize::sanitize_capped;
        let mut out = serde_json::Map::new();
        for word in words {
            let word = word.as_ref();
            let (key, value) = match word.split_once(":=") {
                Some((key, json)) if !key.contains('=') => (
                    key,
                    serde_json::from_str(json).map_err(|e| {
                        format!("`{}:=` needs JSON: {e}", sanitize_capped(key, 128))
                    })?,
                ),
                _ => {
                    let Some((key, text)) = word.split_once('=') else {
                        return Err(format!(
                            "`{}` is not key=value or key:=JSON",
                            sanitize_capped(word, 128)
                        ));
                    };
                    (key, serde_json::Value::String(text.to_owned()))
                }
            };
            if key.is_empty() {
                return Err("a `_meta` key is empty".to_owned());
            }
            if out.insert(key.to_owned(), value).is_some() {
                return Err(format!(
                    "`_meta` key `{}` is given twice",
                    sanitize_capped(key, 128)
                ));
            }
        }
        Ok(out)
    }

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

#[cfg(test)]
mod tests {
    use super::CallOptions;

    fn check(key: &str) -> Result<(), String> {
        let mut meta = serde_json::Map::new();
        meta.insert(key.to_owned(), serde_json::Value::Bool(true));
        CallOptions::check_meta(&meta)
    }

    #[test]
    fn meta_words_are_strings_or_json_each_key_once() {
        let meta = CallOptions::parse_meta(&["trace=a=b", "n:=3", "o:={\"k\":[1]}"]).expect("ok");
        assert_eq!(
            serde_json::Value::Object(meta),
            serde_json::json!({"trace": "a=b", "n": 3, "o": {"k": [1]}})
        );
        for bad in [&["x"][..], &["=1"], &["n:=nope"], &["a=1", "a:=2"]] {
            assert!(CallOptions::parse_meta(bad).is_err(), "{bad:?}");
        }
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
