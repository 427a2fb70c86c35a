//! Protocol version negotiation, as far as mcpdeck takes it beyond rmcp.
//!
//! A 2026-07-28 server that does not speak the version a request names answers
//! `-32022` with `data: {supported, requested}`. rmcp answers that during `server/discover` by
//! asking again with a version both sides speak. What is left here: explaining a refusal by
//! naming both lists (an explicit `protocolVersion` is never changed behind the operator's
//! back), naming the capabilities a `-32021` asks for, and deciding when a connection with no
//! `protocolVersion` written moves on from `initialize` to the 2026 protocol — when an HTTP
//! server refuses `initialize` the way a 2026-only server does (`-32022` listing 2026-07-28,
//! or "method not found"). Nothing had run on the server then, so trying again sends nothing
//! twice.

use rmcp::model::{ErrorCode, ErrorData, ProtocolVersion};
use rmcp::service::ClientInitializeError;
use serde_json::Value;

use super::error::{ConnectError, ErrorClass, Redactor, clean};

/// The versions mcpdeck speaks, newest first.
pub(crate) fn spoken() -> [ProtocolVersion; 2] {
    [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25]
}

/// The `supported` list of a `-32022` error.
fn supported(data: &ErrorData) -> Option<Vec<String>> {
    let list = data.data.as_ref()?.get("supported")?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

/// Whether a failed `initialize` says the server speaks only the 2026 protocol.
pub(crate) fn refuses_initialize(e: &ClientInitializeError) -> bool {
    let ClientInitializeError::JsonRpcError(data) = e else {
        return false;
    };
    if data.code == ErrorCode::METHOD_NOT_FOUND {
        return true;
    }
    data.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        && supported(data).is_some_and(|list| {
            list.iter()
                .any(|v| v == ProtocolVersion::V_2026_07_28.as_str())
        })
}

/// The message for a JSON-RPC refusal whose code says what is missing (-32022, -32021).
pub(crate) fn explain(data: &ErrorData, redactor: &Redactor) -> Option<ConnectError> {
    if data.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
        let theirs = supported(data).unwrap_or_default();
        let requested = data
            .data
            .as_ref()
            .and_then(|d| d.get("requested"))
            .and_then(Value::as_str)
            .unwrap_or("");
        return Some(ConnectError::new(
            ErrorClass::Protocol,
            format!(
                "the server does not speak protocol version {} (JSON-RPC -32022); it speaks {}, \
                 mcpdeck speaks {}: set \"protocolVersion\" to one of both, or to \"auto\"",
                clean(redactor, requested),
                listed(&theirs, redactor),
                listed(&spoken().map(|v| v.as_str().to_owned()), redactor),
            ),
        ));
    }
    if data.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY {
        let names = data
            .data
            .as_ref()
            .map(|d| {
                let wanted = d.get("requiredCapabilities").or_else(|| d.get("required"));
                wanted.map_or_else(|| d.to_string(), Value::to_string)
            })
            .unwrap_or_default();
        return Some(ConnectError::new(
            ErrorClass::Protocol,
            format!(
                "the server needs a client capability mcpdeck did not declare (JSON-RPC -32021): \
                 {} {}",
                clean(redactor, &data.message),
                clean(redactor, &names)
            ),
        ));
    }
    None
}

/// The message when rmcp found no version both sides speak.
pub(crate) fn no_common_version(
    ours: &[ProtocolVersion],
    theirs: &[ProtocolVersion],
    redactor: &Redactor,
) -> ConnectError {
    let theirs: Vec<String> = theirs.iter().map(|v| v.as_str().to_owned()).collect();
    let ours: Vec<String> = ours.iter().map(|v| v.as_str().to_owned()).collect();
    ConnectError::new(
        ErrorClass::Protocol,
        format!(
            "no protocol version in common: the server speaks {}, mcpdeck offered {}",
            listed(&theirs, redactor),
            listed(&ours, redactor)
        ),
    )
}

fn listed(versions: &[String], redactor: &Redactor) -> String {
    if versions.is_empty() {
        return "none it named".to_owned();
    }
    clean(redactor, &versions.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(code: i32, data: Value) -> ClientInitializeError {
        ClientInitializeError::JsonRpcError(ErrorData::new(ErrorCode(code), "no", Some(data)))
    }

    #[test]
    fn only_a_2026_only_refusal_moves_an_unset_connection_on() {
        let modern = serde_json::json!({"supported": ["2026-07-28"], "requested": "2025-11-25"});
        assert!(refuses_initialize(&refusal(-32022, modern)));
        assert!(refuses_initialize(&refusal(-32601, Value::Null)));
        let older = serde_json::json!({"supported": ["2024-11-05"]});
        assert!(!refuses_initialize(&refusal(-32022, older)));
        assert!(!refuses_initialize(&refusal(-32603, Value::Null)));
    }

    #[test]
    fn a_version_refusal_names_both_lists() {
        let data = ErrorData::new(
            ErrorCode(-32022),
            "Unsupported protocol version",
            Some(serde_json::json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})),
        );
        let e = explain(&data, &Redactor::default()).expect("explained");
        assert!(e.message.contains("speaks 2026-07-28"), "{}", e.message);
        assert!(
            e.message.contains("2026-07-28, 2025-11-25"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("2025-11-25 (JSON-RPC -32022)"),
            "{}",
            e.message
        );
    }
}
