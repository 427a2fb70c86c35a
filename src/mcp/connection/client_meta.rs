//! The client context carried on every request, in both protocol eras.
//!
//! From 2026-07-28 on, every request names its protocol version, the client's capabilities and
//! the client's identity in `_meta` (`io.modelcontextprotocol/protocolVersion`,
//! `…/clientCapabilities`, `…/clientInfo`). rmcp adds them to the requests of a 2026 session; a
//! session that began with `initialize` gets none from rmcp. mcpdeck adds the same three keys
//! to every request rmcp left without them, `initialize` included, so a server of either era
//! (or one that refuses `initialize` while it checks them) sees the same context on each. The
//! version is the one offered in `initialize` until the server has answered it, then the
//! negotiated one — the value Streamable HTTP also sends as `MCP-Protocol-Version`. A request
//! that already names a version is left exactly as it is.

use std::sync::{Arc, Mutex};

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta as _, JsonRpcMessage};
use serde_json::{Map, Value};

pub(crate) const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
pub(crate) const INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";

/// What the `initialize` request declared, learned as it is sent.
#[derive(Debug, Clone)]
struct Declared {
    version: String,
    capabilities: Value,
    info: Value,
}

/// The context learned from the session's `initialize`, shared by the transport's halves.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientMeta {
    declared: Arc<Mutex<Option<Declared>>>,
}

impl ClientMeta {
    /// Records the version the server chose in its `initialize` answer.
    pub(crate) fn negotiated(&self, version: &str) {
        if let Ok(mut slot) = self.declared.lock()
            && let Some(declared) = slot.as_mut()
        {
            version.clone_into(&mut declared.version);
        }
    }

    /// `message` with the client context in its `_meta` when it is a request without a
    /// version; `version` (the one HTTP is about to send as a header) wins over the learned one.
    pub(crate) fn stamp(
        &self,
        message: ClientJsonRpcMessage,
        version: Option<&str>,
    ) -> ClientJsonRpcMessage {
        let JsonRpcMessage::Request(mut request) = message else {
            return message;
        };
        if let Some(params) = initialize_params(&request.request) {
            self.learn(&params);
        }
        if request.request.get_meta().protocol_version().is_some() {
            return JsonRpcMessage::Request(request);
        }
        let Some(mut declared) = self.declared.lock().ok().and_then(|slot| slot.clone()) else {
            return JsonRpcMessage::Request(request);
        };
        if let Some(version) = version {
            version.clone_into(&mut declared.version);
        }
        let entries = [
            (VERSION_KEY, Value::String(declared.version)),
            (CAPABILITIES_KEY, declared.capabilities),
            (INFO_KEY, declared.info),
        ];
        match &mut request.request {
            // A custom request's params are sent as they are: the context goes into them.
            ClientRequest::CustomRequest(custom) => {
                let params = custom
                    .params
                    .get_or_insert_with(|| Value::Object(Map::new()));
                if let Some(params) = params.as_object_mut() {
                    let meta = params
                        .entry("_meta")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Some(meta) = meta.as_object_mut() {
                        for (key, value) in entries {
                            meta.entry(key).or_insert(value);
                        }
                    }
                }
            }
            typed => {
                let meta = typed.get_meta_mut();
                for (key, value) in entries {
                    meta.entry(key.to_owned()).or_insert(value);
                }
            }
        }
        JsonRpcMessage::Request(request)
    }

    fn learn(&self, params: &Value) {
        let declared = Declared {
            version: params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            capabilities: params
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
            info: params.get("clientInfo").cloned().unwrap_or(Value::Null),
        };
        if let Ok(mut slot) = self.declared.lock() {
            *slot = Some(declared);
        }
    }
}

/// The params of an `initialize` request, typed or re-sent as a custom request (`declare`).
fn initialize_params(request: &ClientRequest) -> Option<Value> {
    match request {
        ClientRequest::InitializeRequest(init) => serde_json::to_value(&init.params).ok(),
        ClientRequest::CustomRequest(custom) if custom.method == "initialize" => {
            custom.params.clone()
        }
        _ => None,
    }
}

/// The version named in a request's `_meta`, as sent.
pub(crate) fn version_of(message: &ClientJsonRpcMessage) -> Option<String> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    if let ClientRequest::CustomRequest(custom) = &request.request {
        return custom
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(VERSION_KEY))
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    request
        .request
        .get_meta()
        .get(VERSION_KEY)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{
        ClientCapabilities, Implementation, InitializeRequest, InitializeRequestParams,
        JsonRpcRequest, ListToolsRequest, NumberOrString, ProtocolVersion,
    };

    fn initialize() -> ClientJsonRpcMessage {
        let mut params = InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("mcpdeck", "1"),
        );
        params.protocol_version = ProtocolVersion::V_2025_11_25;
        JsonRpcMessage::Request(JsonRpcRequest::new(
            NumberOrString::Number(0),
            ClientRequest::InitializeRequest(InitializeRequest::new(params)),
        ))
    }

    fn list(id: i64) -> ClientJsonRpcMessage {
        JsonRpcMessage::Request(JsonRpcRequest::new(
            NumberOrString::Number(id),
            ClientRequest::ListToolsRequest(ListToolsRequest::default()),
        ))
    }

    #[test]
    fn every_request_carries_the_declared_context_and_then_the_negotiated_version() {
        let meta = ClientMeta::default();
        let init = serde_json::to_value(meta.stamp(initialize(), None)).expect("json");
        let sent = &init["params"]["_meta"];
        assert_eq!(sent[VERSION_KEY], "2025-11-25");
        assert_eq!(sent[INFO_KEY]["name"], "mcpdeck");
        assert!(sent[CAPABILITIES_KEY].is_object());
        assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
        meta.negotiated("2025-06-18");
        let next = meta.stamp(list(1), None);
        assert_eq!(version_of(&next).as_deref(), Some("2025-06-18"));
        let over_http = meta.stamp(list(2), Some("2025-11-25"));
        assert_eq!(version_of(&over_http).as_deref(), Some("2025-11-25"));
    }

    #[test]
    fn a_request_naming_its_version_and_one_before_initialize_are_left_alone() {
        let meta = ClientMeta::default();
        let before = serde_json::to_value(meta.stamp(list(1), None)).expect("json");
        assert!(before["params"].get("_meta").is_none(), "{before}");
        meta.stamp(initialize(), None);
        let mut modern = list(2);
        if let JsonRpcMessage::Request(r) = &mut modern {
            r.request
                .get_meta_mut()
                .insert(VERSION_KEY.to_owned(), Value::String("2026-07-28".into()));
        }
        let out = serde_json::to_value(meta.stamp(modern, Some("2025-11-25"))).expect("json");
        assert_eq!(out["params"]["_meta"][VERSION_KEY], "2026-07-28");
        assert!(out["params"]["_meta"].get(INFO_KEY).is_none());
    }
}
