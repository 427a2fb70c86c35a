//! Tool results that arrived in an SSE event, decoded where the event was read.
//!
//! rmcp's HTTP worker decodes every event's data itself into its untagged message type, which
//! buffers a 15 MiB text several times over. The event guard (`http_guard.rs`) therefore decodes
//! the answer to a `tools/call` straight into a tool result (as a stdio frame or a plain JSON body
//! is, `faults::decode_message`), keeps it here by id and hands rmcp a small stand-in with the
//! same id; [`TaskAware`](super::task_asks::TaskAware), the transport wrapper just above rmcp's
//! worker, puts the kept result back in the stand-in's place. At most [`MAX_KEPT`] are kept; a
//! stand-in whose result was forgotten reaches rmcp as the empty result it is.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use rmcp::model::{JsonRpcMessage, RequestId, ServerJsonRpcMessage};

/// Decoded results waiting for their stand-in at once.
const MAX_KEPT: usize = 16;

/// Decoded answers by request id, until their stand-in reaches the transport wrapper.
#[derive(Debug, Default)]
pub(crate) struct DecodedAnswers(Mutex<VecDeque<(RequestId, ServerJsonRpcMessage)>>);

impl DecodedAnswers {
    /// Keeps `message`, the answer to `id`, and returns the stand-in's JSON to hand rmcp.
    pub(crate) fn keep(&self, id: RequestId, message: ServerJsonRpcMessage) -> String {
        let stand_in = serde_json::json!({"jsonrpc": "2.0", "id": &id, "result": {}}).to_string();
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() == MAX_KEPT {
            kept.pop_front();
        }
        kept.push_back((id, message));
        stand_in
    }

    /// `message`, or the answer kept for it when it is a stand-in.
    pub(crate) fn restored(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        let JsonRpcMessage::Response(response) = &message else {
            return message;
        };
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.iter().position(|(id, _)| *id == response.id) {
            Some(at) => kept.remove(at).map_or(message, |(_, answer)| answer),
            None => message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(frame: &str) -> ServerJsonRpcMessage {
        serde_json::from_str(frame).expect("a message")
    }

    fn json(message: &ServerJsonRpcMessage) -> serde_json::Value {
        serde_json::to_value(message).expect("json")
    }

    #[test]
    fn a_stand_in_is_replaced_by_its_answer_once() {
        let answers = DecodedAnswers::default();
        let answer = decoded(
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"whole"}]}}"#,
        );
        let stand_in = answers.keep(RequestId::Number(7), answer.clone());
        assert!(!stand_in.contains("whole"), "{stand_in}");
        let other = decoded(r#"{"jsonrpc":"2.0","id":8,"result":{}}"#);
        assert_eq!(json(&answers.restored(other.clone())), json(&other));
        assert_eq!(json(&answers.restored(decoded(&stand_in))), json(&answer));
        // Taken: the same stand-in a second time is left as it is.
        assert_eq!(
            json(&answers.restored(decoded(&stand_in))),
            json(&decoded(&stand_in))
        );
    }
}
