//! The client context on the `initialize` request.
//!
//! From 2026-07-28 on, every request names its protocol version, the client's capabilities and
//! the client's identity in `_meta` (`io.modelcontextprotocol/protocolVersion`,
//! `…/clientCapabilities`, `…/clientInfo`); rmcp adds them to every request of a 2026 session.
//! mcpdeck also puts them on the `initialize` that opens an older session (the same values its
//! params carry), so a 2026-only server that refuses `initialize` still sees who asked and with
//! what — and Streamable HTTP sends the version as `MCP-Protocol-Version` on that POST too. The
//! requests of an `initialize` session carry no such `_meta`: a dual-era server serves a request
//! that does statelessly, outside the session it belongs to.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta as _, JsonRpcMessage};
use serde_json::{Map, Value};

pub(crate) const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
pub(crate) const INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";

/// `message` with the client context in its `_meta` when it is an `initialize` request.
pub(crate) fn stamp_initialize(message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
    let JsonRpcMessage::Request(mut request) = message else {
        return message;
    };
    let Some(params) = initialize_params(&request.request) else {
        return JsonRpcMessage::Request(request);
    };
    let entries = [
        (
            VERSION_KEY,
            params
                .get("protocolVersion")
                .cloned()
                .unwrap_or(Value::Null),
        ),
        (
            CAPABILITIES_KEY,
            params
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        ),
        (
            INFO_KEY,
            params.get("clientInfo").cloned().unwrap_or(Value::Null),
        ),
    ];
    match &mut request.request {
        // A custom request's params are sent as they are: the context goes into them.
        ClientRequest::CustomRequest(custom) => {
            if let Some(Value::Object(params)) = custom.params.as_mut() {
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

    #[test]
    fn initialize_carries_the_context_its_params_declare() {
        let typed = stamp_initialize(initialize());
        assert_eq!(version_of(&typed).as_deref(), Some("2025-11-25"));
        let mut extra = Map::new();
        extra.insert("tasks".into(), serde_json::json!({}));
        let custom = super::super::declare::with_capabilities(initialize(), &extra);
        let sent = serde_json::to_value(stamp_initialize(custom)).expect("json");
        let meta = &sent["params"]["_meta"];
        assert_eq!(meta[VERSION_KEY], "2025-11-25");
        assert_eq!(meta[INFO_KEY]["name"], "mcpdeck");
        assert!(meta[CAPABILITIES_KEY].get("tasks").is_some(), "{sent}");
        assert_eq!(sent["params"]["protocolVersion"], "2025-11-25");
    }

    #[test]
    fn other_requests_are_left_alone() {
        let list = JsonRpcMessage::Request(JsonRpcRequest::new(
            NumberOrString::Number(1),
            ClientRequest::ListToolsRequest(ListToolsRequest::default()),
        ));
        let out = serde_json::to_value(stamp_initialize(list)).expect("json");
        assert!(
            out.get("params").is_none_or(|p| p.get("_meta").is_none()),
            "{out}"
        );
    }
}
