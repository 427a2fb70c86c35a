//! Writing headless output: JSON envelopes and human text, both through the sanitiser.
//!
//! JSON carries data exactly: it is serialised first, then every character the sanitiser would
//! rewrite (controls, bidi, zero-width, tag characters) is written as a `\uXXXX` escape, so the
//! decoded data is the server's own while the bytes on a terminal stay harmless. Human text goes
//! through the visible-marker sanitiser.

use std::io::Write as _;

use crate::exit::Exit;
use crate::mcp::connection::ErrorClass;
use crate::mcp::engine::{Envelope, Failure};
use crate::mcp::sanitize::{escape_json_text, sanitize};

/// Prints `value` as one line of JSON on stdout.
pub fn print_json(value: &impl serde::Serialize) {
    let text = serde_json::to_string(value).unwrap_or_else(|e| {
        // Serialising mcpdeck's own types does not fail; should it, say so in the same shape.
        let failure = Failure::new(ErrorClass::Internal, format!("cannot write JSON: {e}"));
        serde_json::to_string(&error_envelope("", &failure)).unwrap_or_default()
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

/// The `--json` envelope of a command that failed outside the engine: the engine's own
/// [`Envelope`] of `failure` ([`Envelope::cli`]), so it fails in the shape an operation does.
pub fn error_envelope(operation: &str, failure: &Failure) -> serde_json::Value {
    let envelope = Envelope::<serde_json::Value>::failed(operation, failure);
    serde_json::to_value(envelope.cli()).unwrap_or_default()
}

/// The `--json` envelope of a command that ran outside the engine and did what it was asked:
/// the engine's [`Envelope`] of its own result ([`Envelope::done`]).
pub fn done_envelope(
    server: Option<&str>,
    operation: &str,
    result: &serde_json::Value,
) -> serde_json::Value {
    let envelope = Envelope {
        server,
        ..Envelope::done(operation, result)
    };
    serde_json::to_value(envelope.cli()).unwrap_or_default()
}

/// Prints [`done_envelope`] on stdout.
pub fn print_done(server: Option<&str>, operation: &str, result: &serde_json::Value) {
    print_json(&done_envelope(server, operation, result));
}

/// Reports a command's failure: with `--json` its envelope on stdout, else its message on
/// stderr. Returns the class's exit.
pub fn report_failure(json: bool, operation: &str, failure: &Failure) -> Exit {
    if json {
        print_json(&error_envelope(operation, failure));
    } else {
        print_error(&failure.message);
    }
    failure.exit()
}

/// [`report_failure`] of a failure of `class` saying `message`.
pub fn fail(json: bool, operation: &str, class: ErrorClass, message: &str) -> Exit {
    report_failure(json, operation, &Failure::new(class, message.to_owned()))
}
