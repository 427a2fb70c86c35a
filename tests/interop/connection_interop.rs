//! Interop: mcpdeck's connection layer against the official TypeScript reference server
//! (`@modelcontextprotocol/server-everything`, pinned in `tests/interop/`, installed by
//! `scripts/install-interop`). It is a legacy (2025-11-25) peer: `auto` must fall back to the
//! initialize handshake, and `2026-07-28` must fail with a protocol error. Skipped, saying so,
//! when node or the pinned packages are missing.

use crate::connection_support;

use connection_support::*;
use mcpdeck::mcp::config::{ProtocolChoice, ServerDef, Transport};
use mcpdeck::mcp::connection::{ErrorClass, connect};
use serde_json::json;

fn everything_def() -> Option<ServerDef> {
    let script = crate::common::peers::everything()?;
    let mut def = stdio_def(&[], &[]);
    if let Transport::Stdio(s) = &mut def.transport {
        s.command = "node".into();
        s.args = vec![script.to_string_lossy().into_owned(), "stdio".into()];
    }
    Some(def)
}

#[tokio::test]
async fn legacy_and_auto_reach_the_typescript_reference_server() {
    let Some(base) = everything_def() else {
        return;
    };
    for choice in [ProtocolChoice::Legacy, ProtocolChoice::Auto] {
        let mut def = base.clone();
        def.protocol = choice;
        let mut conn = connect(&def, here(), &no_vars).await.expect("connects");
        assert_eq!(conn.protocol_version(), "2025-11-25", "{choice:?}");
        assert_eq!(
            conn.identity().name.as_deref(),
            Some("mcp-servers/everything")
        );
        let r = call(&conn, "echo", json!({"message": "interop"}))
            .await
            .expect("echo");
        assert!(first_text(&r).contains("interop"), "{r:?}");
        let pgid = conn.process().expect("stdio").pid();
        conn.close().await;
        assert!(!group_alive(pgid));
    }
}

#[tokio::test]
async fn modern_only_fails_cleanly_against_a_legacy_server() {
    let Some(mut def) = everything_def() else {
        return;
    };
    def.protocol = ProtocolChoice::Modern;
    let err = connect(&def, here(), &no_vars)
        .await
        .expect_err("a legacy server cannot speak 2026-07-28 only");
    assert_eq!(err.class, ErrorClass::Protocol, "{err:?}");
}
