//! Writing headless output: JSON envelopes and human text, both through the sanitiser.
//!
//! JSON carries data exactly: it is serialised first, then every character the sanitiser would
//! rewrite (controls, bidi, zero-width, tag characters) is written as a `\uXXXX` escape, so the
//! decoded data is the server's own while the bytes on a terminal stay harmless. Human text goes
//! through the visible-marker sanitiser.

use std::io::Write as _;

use crate::mcp::sanitize::{escape_json_text, sanitize};

/// Prints `value` as one line of JSON on stdout.
pub fn print_json(value: &impl serde::Serialize) {
    let text = serde_json::to_string(value).unwrap_or_else(|e| {
        format!("{{\"ok\":false,\"error\":{{\"class\":\"internal\",\"message\":\"{e}\"}}}}")
    });
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", escape_json_text(&text));
}

/// Prints untrusted human text on stdout, sanitised.
pub fn print_text(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{}", sanitize(text));
    if !text.ends_with('\n') {
        let _ = writeln!(out);
    }
}

/// Prints an error for a human on stderr, sanitised.
pub fn print_error(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "mcpdeck: {}", sanitize(text));
}

/// The `--json` error envelope (the same shape an agent sees for a failed operation).
pub fn error_envelope(operation: &str, class: &str, message: &str) -> serde_json::Value {
    serde_json::json!({
        "ok": false,
        "server": null,
        "operation": operation,
        "result": null,
        "error": {"class": class, "message": message},
    })
}
