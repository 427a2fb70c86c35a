//! Adds client capabilities that rmcp 3.11's typed `initialize` cannot carry.
//!
//! The 2025-11-25 `tasks` client capability (answering task-augmented sampling and elicitation)
//! has no field in rmcp's `ClientCapabilities`. This transport wrapper re-sends the outgoing
//! `initialize` request, unchanged apart from `capabilities.tasks`, as a custom request with the
//! same id; rmcp matches the answer by id and never notices. Over HTTP the same rewrite happens
//! in `http_guard`, below rmcp's worker, which needs the typed request to manage the session.
//! The same wrapper puts the client context on `initialize` (`client_meta`).

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, CustomRequest, JsonRpcMessage};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

use super::client_meta::stamp_initialize;

/// A transport that adds `extra` capabilities and the client context to the `initialize`
/// request it sends.
pub(crate) struct Declared<T> {
    inner: T,
    extra: Option<serde_json::Map<String, Value>>,
}

impl<T> Declared<T> {
    /// Wraps `inner`; `extra` maps capability names to their values (`None`: none added).
    pub(crate) fn new(inner: T, extra: Option<serde_json::Map<String, Value>>) -> Self {
        Self { inner, extra }
    }
}

/// The initialize request with `extra` merged into its capabilities (other messages unchanged).
pub(crate) fn with_capabilities(
    message: ClientJsonRpcMessage,
    extra: &serde_json::Map<String, Value>,
) -> ClientJsonRpcMessage {
    let JsonRpcMessage::Request(mut request) = message else {
        return message;
    };
    let ClientRequest::InitializeRequest(init) = &request.request else {
        return JsonRpcMessage::Request(request);
    };
    let Ok(mut params) = serde_json::to_value(&init.params) else {
        return JsonRpcMessage::Request(request);
    };
    if let Some(caps) = params
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    {
        for (key, value) in extra {
            caps.insert(key.clone(), value.clone());
        }
    }
    request.request =
        ClientRequest::CustomRequest(CustomRequest::new("initialize".to_owned(), Some(params)));
    JsonRpcMessage::Request(request)
}

impl<T> Transport<RoleClient> for Declared<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let item = match &self.extra {
            Some(extra) => with_capabilities(item, extra),
            None => item,
        };
        self.inner.send(stamp_initialize(item))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{
        ClientCapabilities, InitializeRequest, InitializeRequestParams, JsonRpcRequest,
        NumberOrString,
    };

    #[test]
    fn initialize_gains_the_capability_and_keeps_everything_else() {
        let params = InitializeRequestParams::new(
            ClientCapabilities::default(),
            rmcp::model::Implementation::new("mcpdeck", "1"),
        );
        let message = JsonRpcMessage::Request(JsonRpcRequest::new(
            NumberOrString::Number(7),
            ClientRequest::InitializeRequest(InitializeRequest::new(params)),
        ));
        let mut extra = serde_json::Map::new();
        extra.insert("tasks".into(), serde_json::json!({"requests": {}}));
        let out = serde_json::to_value(with_capabilities(message, &extra)).expect("serialises");
        assert_eq!(out["id"], 7);
        assert_eq!(out["method"], "initialize");
        assert_eq!(
            out["params"]["capabilities"]["tasks"],
            serde_json::json!({"requests": {}})
        );
        assert_eq!(out["params"]["clientInfo"]["name"], "mcpdeck");
        assert!(out["params"]["protocolVersion"].is_string());
    }
}
