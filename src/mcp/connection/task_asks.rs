//! Server requests sent as tasks (protocol 2025-11-25), kept as the server sent them.
//!
//! rmcp 3.11 decodes `elicitation/create` and `sampling/createMessage` into types without the
//! `task` parameter, so a request the server wants answered as a task would be answered as a
//! plain one. Where frames are decoded (the stdio line reader, the HTTP event stream) the
//! parameters of such a request are noted by id ([`note`]); [`TaskAware`], a transport
//! wrapper, then hands the request to rmcp as a custom request with those parameters, which
//! the client handler answers as a task (`client::task_host`). At most [`MAX_NOTED`] are
//! kept; a request rmcp never hands over is forgotten with the oldest.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rmcp::model::{CustomRequest, JsonRpcMessage, RequestId, ServerJsonRpcMessage, ServerRequest};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

use super::faults::Faults;

/// Task-augmented requests remembered at once.
const MAX_NOTED: usize = 64;

/// The parameters of task-augmented server requests, by id, until rmcp takes them.
#[derive(Debug, Default)]
pub(crate) struct TaskAsks(Mutex<VecDeque<(RequestId, Value)>>);

impl TaskAsks {
    fn put(&self, id: RequestId, params: Value) {
        if let Ok(mut noted) = self.0.lock() {
            if noted.len() == MAX_NOTED {
                noted.pop_front();
            }
            noted.push_back((id, params));
        }
    }

    fn take(&self, id: &RequestId) -> Option<Value> {
        let mut noted = self.0.lock().ok()?;
        let at = noted.iter().position(|(i, _)| i == id)?;
        noted.remove(at).map(|(_, p)| p)
    }
}

/// Notes `message`'s parameters when it is an elicitation or sampling request whose `frame`
/// carries a `task` parameter. Only those two requests are read a second time.
pub(crate) fn note(message: &ServerJsonRpcMessage, frame: &[u8], faults: &Faults) {
    let JsonRpcMessage::Request(request) = message else {
        return;
    };
    if !matches!(
        request.request,
        ServerRequest::ElicitRequest(_) | ServerRequest::CreateMessageRequest(_)
    ) {
        return;
    }
    let Ok(raw) = serde_json::from_slice::<Value>(frame) else {
        return;
    };
    let Some(params) = raw.get("params").filter(|p| p.get("task").is_some()) else {
        return;
    };
    faults.task_asks.put(request.id.clone(), params.clone());
}

/// A transport that hands rmcp the task-augmented requests [`note`] saw as custom requests.
pub(crate) struct TaskAware<T> {
    inner: T,
    faults: Arc<Faults>,
}

impl<T> TaskAware<T> {
    pub(crate) fn new(inner: T, faults: Arc<Faults>) -> Self {
        Self { inner, faults }
    }
}

/// `message` as a custom request carrying `params` when they were noted for its id.
fn restored(message: ServerJsonRpcMessage, faults: &Faults) -> ServerJsonRpcMessage {
    let JsonRpcMessage::Request(mut request) = message else {
        return message;
    };
    let method = match &request.request {
        ServerRequest::ElicitRequest(_) => "elicitation/create",
        ServerRequest::CreateMessageRequest(_) => "sampling/createMessage",
        _ => return JsonRpcMessage::Request(request),
    };
    if let Some(params) = faults.task_asks.take(&request.id) {
        request.request =
            ServerRequest::CustomRequest(CustomRequest::new(method.to_owned(), Some(params)));
    }
    JsonRpcMessage::Request(request)
}

impl<T> Transport<RoleClient> for TaskAware<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let faults = self.faults.clone();
        let next = self.inner.receive();
        // A tool result decoded from an SSE event takes its stand-in's place first.
        async move {
            next.await
                .map(|m| restored(faults.decoded.restored(m), &faults))
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_request_sent_as_a_task_becomes_a_custom_request() {
        let faults = Faults::default();
        let frame = serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "elicitation/create",
            "params": {"task": {"ttl": 60000}, "message": "name?", "mode": "form",
                "requestedSchema": {"type": "object", "properties": {}}}})
        .to_string();
        let message: ServerJsonRpcMessage = serde_json::from_str(&frame).expect("decodes");
        note(&message, frame.as_bytes(), &faults);
        let out = serde_json::to_value(restored(message, &faults)).expect("json");
        assert_eq!(out["method"], "elicitation/create");
        assert_eq!(out["params"]["task"]["ttl"], 60000);
        let plain = serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "elicitation/create",
            "params": {"message": "name?", "mode": "form",
                "requestedSchema": {"type": "object", "properties": {}}}})
        .to_string();
        let message: ServerJsonRpcMessage = serde_json::from_str(&plain).expect("decodes");
        note(&message, plain.as_bytes(), &faults);
        let JsonRpcMessage::Request(request) = restored(message, &faults) else {
            panic!("a request")
        };
        assert!(matches!(request.request, ServerRequest::ElicitRequest(_)));
    }
}
