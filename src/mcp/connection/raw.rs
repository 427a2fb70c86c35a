//! The response frames kept as the server sent them, for the operations whose answer a person
//! may want to read raw (a tool call, a resource read, a prompt). The operation puts a
//! [`RawSlot`] in its request's extensions; the traffic wrapper (`traffic::Tapped`) notes the
//! request's id as it is sent, before anything can answer it; the frame readers — the stdio
//! line pump (`frames.rs`), the SSE event guard and the plain JSON body (`http_guard.rs`,
//! `http_post.rs`) — hand the bytes of the response with that id to its slot as they decode
//! it. Nothing is kept for any other request, and a slot holds one frame (the last: a 2026
//! server's input-required rounds end with the answer that counts).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{RequestId, ServerJsonRpcMessage};

/// Where one request's response frame lands, shared by the operation that asked and the reader
/// that decoded it.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawSlot(Arc<Mutex<Option<Vec<u8>>>>);

impl RawSlot {
    /// The frame, as the server sent it (taken: a second call gives `None`).
    pub(crate) fn take(&self) -> Option<Vec<u8>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    fn fill(&self, bytes: &[u8]) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(bytes.to_vec());
    }
}

/// Requests whose answer is wanted raw, by id, until it arrives.
#[derive(Debug, Default)]
pub(crate) struct RawFrames {
    wanted: Mutex<HashMap<RequestId, RawSlot>>,
}

/// How many unanswered requests are remembered (a cancelled request is never answered).
const MAX_WANTED: usize = 256;

impl RawFrames {
    /// Notes that the answer to `id` goes to `slot`.
    pub(crate) fn expect(&self, id: RequestId, slot: RawSlot) {
        let mut wanted = self.wanted.lock().unwrap_or_else(PoisonError::into_inner);
        if wanted.len() >= MAX_WANTED {
            wanted.clear();
        }
        wanted.insert(id, slot);
    }

    /// Whether the answer to `id` is wanted raw.
    pub(crate) fn wants(&self, id: &RequestId) -> bool {
        self.wanted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id)
    }

    /// `bytes` decoded as `message`: kept when it answers a request that wants it.
    pub(crate) fn offer(&self, message: &ServerJsonRpcMessage, bytes: &[u8]) {
        let ServerJsonRpcMessage::Response(response) = message else {
            return;
        };
        let slot = self
            .wanted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&response.id);
        if let Some(slot) = slot {
            slot.fill(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_wanted_answer_is_kept_and_only_once() {
        let frames = RawFrames::default();
        let slot = RawSlot::default();
        frames.expect(RequestId::Number(7), slot.clone());
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"x": 1}}"#;
        let other = br#"{"jsonrpc":"2.0","id":8,"result":{}}"#;
        let decode = |b: &[u8]| serde_json::from_slice::<ServerJsonRpcMessage>(b).expect("json");
        frames.offer(&decode(other), other);
        assert!(frames.wants(&RequestId::Number(7)));
        frames.offer(&decode(line), line);
        assert!(!frames.wants(&RequestId::Number(7)));
        assert_eq!(slot.take().as_deref(), Some(&line[..]), "byte for byte");
        assert_eq!(slot.take(), None);
        frames.offer(&decode(line), line);
        assert_eq!(slot.take(), None, "an answer nobody waits for is not kept");
    }
}
