//! A server that echoes the secret it was given in every spelling a real program produces:
//! `json.dumps(os.environ)` (escaped and `ensure_ascii=False`) and percent-encoded URL queries.
//! None of them may reach mcpdeck's output.

use crate::common;

use std::time::Duration;

use common::Sandbox;
use serde_json::json;

#[test]
fn a_secret_echoed_in_json_and_in_a_url_query_is_redacted() {
    let secret = "pa\"ss\\wo/rd-\u{e9}-\u{1}-end";
    let sb = Sandbox::new();
    let server =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/environ_server.py");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"leaky": {
            "command": "python3",
            "args": [server],
            "env": {"ECHOED": "${MY_SECRET}"}
        }}})
        .to_string(),
    );
    let out = sb
        .cmd()
        .env("MY_SECRET", secret)
        .args(["call", "leaky", "environ", "--json"])
        .timeout(Duration::from_secs(60))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let printed = format!("{stdout}\n{stderr}");
    // What would be printed if one spelling slipped through: the part of the secret before and
    // after its special characters, which no redaction marker contains.
    for fragment in [
        "pa\\",
        "pa%22",
        "wo/rd",
        "wo%2Frd",
        "wo\\/rd",
        "rd-\u{e9}",
        "rd-%C3",
        "-end",
    ] {
        assert!(
            !printed.contains(fragment),
            "{fragment:?} leaked:\n{printed}"
        );
    }
    // Five echoes, each redacted (the JSON twice as dumps escapes it, once per ensure_ascii).
    assert!(stdout.matches("[redacted]").count() >= 5, "{stdout}");
}
