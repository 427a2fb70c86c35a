//! What counts as an answer to `server/discover`.
//!
//! rmcp's `auto` lifecycle falls back to `initialize` only when `server/discover` gets a JSON-RPC
//! error; an empty result (`{}`, as some legacy servers answer any method), a result of another
//! shape, or a discover result without a version mcpdeck speaks would fail the connection instead.
//! Both transports pass the discover answer through [`usable_answer`], which keeps a usable
//! discover result and turns anything else into "method not found", so a server that works with
//! `legacy` always works with `auto`.

use rmcp::model::{ErrorCode, ErrorData, ProtocolVersion, ServerJsonRpcMessage, ServerResult};

/// The JSON-RPC error codes that only a 2026-07-28 server sends: header mismatch, missing
/// required client capability, unsupported protocol version.
pub(crate) const MODERN_ERRORS: [i32; 3] = [-32020, -32021, -32022];

/// `message` when it is a discover result naming a version mcpdeck speaks; otherwise a
/// "method not found" error for the same id (other messages pass unchanged).
pub(crate) fn usable_answer(message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
    let id = match &message {
        ServerJsonRpcMessage::Response(r) => {
            if let ServerResult::DiscoverResult(d) = &r.result
                && d.supported_versions
                    .iter()
                    .any(|v| ProtocolVersion::KNOWN_VERSIONS.contains(v))
            {
                return message;
            }
            r.id.clone()
        }
        ServerJsonRpcMessage::Error(e) => match &e.id {
            Some(_) if MODERN_ERRORS.contains(&e.error.code.0) => return message,
            Some(id) => id.clone(),
            None => return message,
        },
        _ => return message,
    };
    ServerJsonRpcMessage::error(
        ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "the server gave no usable answer to server/discover",
            None,
        ),
        Some(id),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ServerJsonRpcMessage {
        serde_json::from_str(text).expect("a message")
    }

    fn is_not_found(m: &ServerJsonRpcMessage) -> bool {
        matches!(m, ServerJsonRpcMessage::Error(e) if e.error.code == ErrorCode::METHOD_NOT_FOUND)
    }

    #[test]
    fn only_a_usable_discover_result_passes() {
        assert!(is_not_found(&usable_answer(parse(
            r#"{"jsonrpc":"2.0","id":0,"result":{}}"#
        ))));
        assert!(is_not_found(&usable_answer(parse(
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"x"}}"#
        ))));
        for code in MODERN_ERRORS {
            let modern = parse(&format!(
                r#"{{"jsonrpc":"2.0","id":0,"error":{{"code":{code},"message":"x","data":{{"supported":["2026-07-28"]}}}}}}"#
            ));
            assert!(!is_not_found(&usable_answer(modern)), "{code}");
        }
        assert!(is_not_found(&usable_answer(parse(
            r#"{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}"#
        ))));
        let good = parse(
            r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"s","version":"1"},"ttlMs":0,"cacheScope":"private"}}"#,
        );
        let kept = usable_answer(good.clone());
        assert!(!is_not_found(&kept), "{kept:?}");
    }
}
