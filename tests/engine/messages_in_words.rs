//! Every error class and request error is written for a person: each variant is rendered (its
//! `Display`, and the connection classes also as JSON) and checked for Rust `Debug` text —
//! `Some(…)`, `None`, quoted-and-escaped strings, struct braces, CamelCase type names. The
//! exhaustive matches make a new variant fail to compile here until it is rendered too.

use mcpdeck::mcp::catalog::{CatalogKind, LimitError};
use mcpdeck::mcp::config::RefError;
use mcpdeck::mcp::connection::{ConnectError, ErrorClass};
use mcpdeck::mcp::proxy::{RequestError, UnknownField};
use mcpdeck::workspace::BindError;

/// Words that are names, not Debug renderings.
const PROPER_NAMES: &[&str] = &[
    "OAuth",
    "GitHub",
    "JavaScript",
    "TypeScript",
    "KiB",
    "MiB",
    "GiB",
];

/// Why `text` looks like Rust `Debug` output, if it does.
fn debug_look(text: &str) -> Option<String> {
    for marker in [
        "Some(", "None", "Ok(", "Err(", " { ", "\\\"", "\\u{", "\\n", "[\"", "\"]",
    ] {
        if text.contains(marker) {
            return Some(format!("`{marker}`"));
        }
    }
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        let starts_upper = chars.next().is_some_and(|c| c.is_ascii_uppercase());
        let hump = word
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
        if starts_upper && hump && !PROPER_NAMES.contains(&word) {
            return Some(format!("CamelCase `{word}`"));
        }
    }
    None
}

fn check(what: &str, text: &str) {
    assert!(!text.trim().is_empty(), "{what} renders as nothing");
    if let Some(why) = debug_look(text) {
        panic!("{what} renders Debug-looking text ({why}): {text}");
    }
}

/// One of every class (the connection's and the engine's), with hostile details.
fn classes() -> Vec<ErrorClass> {
    let all = vec![
        ErrorClass::MissingEnv {
            variable: "API_TOKEN".into(),
        },
        ErrorClass::SpawnFailed {
            os_error: "not_found".into(),
        },
        ErrorClass::Exited {
            status: "exit status: 3".into(),
            stderr_tail: vec!["boom \"quoted\"".into()],
        },
        ErrorClass::Timeout { after_ms: 1500 },
        ErrorClass::HttpStatus { code: 500 },
        ErrorClass::AuthRequired {
            code: 403,
            scope: Some("repo".into()),
        },
        ErrorClass::NotMcp {
            content_type: Some("text/html".into()),
        },
        ErrorClass::Protocol,
        ErrorClass::Tls,
        ErrorClass::Dns,
        ErrorClass::Refused,
        ErrorClass::Cancelled,
        ErrorClass::Limit {
            bound: "stdout frame 16 MiB".into(),
        },
        ErrorClass::InputRounds { rounds: 8 },
        ErrorClass::ServerError { code: -32601 },
        ErrorClass::SandboxRefused {
            rule: "net: TCP ports".into(),
            kernel_abi: 3,
        },
        ErrorClass::InvalidRequest,
        ErrorClass::UnknownServer,
        ErrorClass::UnknownTool,
        ErrorClass::UnknownPrompt,
        ErrorClass::StaleReference,
        ErrorClass::NotSupported,
        ErrorClass::InvalidConfig,
        ErrorClass::Untrusted,
        ErrorClass::Disabled,
        ErrorClass::Denied,
        ErrorClass::ApprovalRequired,
        ErrorClass::NotReadOnly,
        ErrorClass::RootsOutsideSandbox,
        ErrorClass::ToolError,
        ErrorClass::Transport,
        ErrorClass::Spill,
        ErrorClass::Tokenizer,
        ErrorClass::Pins,
        ErrorClass::NoState,
        ErrorClass::Unreachable {
            servers: Vec::new(),
        },
        ErrorClass::PolicyFile,
        ErrorClass::NoBackupDir,
        ErrorClass::NoSuchRule,
        ErrorClass::AuthFailed,
        ErrorClass::TrustStore,
        ErrorClass::NotConfirmed,
        ErrorClass::InvalidDefinition,
        ErrorClass::Inexpressible,
        ErrorClass::NotStdio,
        ErrorClass::TargetInvalid,
        ErrorClass::NothingToImport,
        ErrorClass::Conflict,
        ErrorClass::NotImportable,
        ErrorClass::WriteFailed,
        ErrorClass::InputNeeded,
        ErrorClass::Unresolved,
        ErrorClass::Internal,
        ErrorClass::HostConnect,
        ErrorClass::NothingToTrust,
    ];
    // Exhaustive: a new class must be added above.
    for class in &all {
        match class {
            ErrorClass::MissingEnv { .. }
            | ErrorClass::SpawnFailed { .. }
            | ErrorClass::Exited { .. }
            | ErrorClass::Timeout { .. }
            | ErrorClass::HttpStatus { .. }
            | ErrorClass::AuthRequired { .. }
            | ErrorClass::NotMcp { .. }
            | ErrorClass::Protocol
            | ErrorClass::Tls
            | ErrorClass::Dns
            | ErrorClass::Refused
            | ErrorClass::Cancelled
            | ErrorClass::Limit { .. }
            | ErrorClass::InputRounds { .. }
            | ErrorClass::ServerError { .. }
            | ErrorClass::SandboxRefused { .. }
            | ErrorClass::InvalidRequest
            | ErrorClass::UnknownServer
            | ErrorClass::UnknownTool
            | ErrorClass::UnknownPrompt
            | ErrorClass::StaleReference
            | ErrorClass::NotSupported
            | ErrorClass::InvalidConfig
            | ErrorClass::Untrusted
            | ErrorClass::Disabled
            | ErrorClass::Denied
            | ErrorClass::ApprovalRequired
            | ErrorClass::NotReadOnly
            | ErrorClass::RootsOutsideSandbox
            | ErrorClass::ToolError
            | ErrorClass::Transport
            | ErrorClass::Spill
            | ErrorClass::Tokenizer
            | ErrorClass::Pins
            | ErrorClass::NoState
            | ErrorClass::Unreachable { .. }
            | ErrorClass::PolicyFile
            | ErrorClass::NoBackupDir
            | ErrorClass::NoSuchRule
            | ErrorClass::AuthFailed
            | ErrorClass::TrustStore
            | ErrorClass::NotConfirmed
            | ErrorClass::InvalidDefinition
            | ErrorClass::Inexpressible
            | ErrorClass::NotStdio
            | ErrorClass::TargetInvalid
            | ErrorClass::NothingToImport
            | ErrorClass::Conflict
            | ErrorClass::NotImportable
            | ErrorClass::WriteFailed
            | ErrorClass::InputNeeded
            | ErrorClass::Unresolved
            | ErrorClass::Internal
            | ErrorClass::HostConnect
            | ErrorClass::NothingToTrust => {}
        }
    }
    all
}

#[test]
fn every_connection_class_renders_in_words() {
    for class in classes() {
        let name = class.name();
        assert!(
            name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{name}"
        );
        check(&format!("{name} in words"), &class.to_string());
        let error = ConnectError::new(class, "the server answered something else");
        check(name, &error.to_string());
        let json = serde_json::to_value(&error).expect("serialises");
        assert_eq!(json["class"], name);
        for (key, value) in json.as_object().expect("an object") {
            if let Some(text) = value.as_str() {
                check(&format!("{name}.{key}"), text);
            }
        }
    }
}

#[test]
fn every_request_error_renders_in_words() {
    let all = vec![
        RequestError::NotAnObject { found: "an array" },
        RequestError::UnknownFields(vec![UnknownField {
            name: "sever".into(),
            suggestion: Some("server"),
        }]),
        RequestError::WrongType {
            field: "args",
            expected: "an object",
            found: "a string",
        },
        RequestError::Conflict(vec!["search", "tool"]),
        RequestError::Misplaced {
            field: "args",
            belongs_with: "`tool`",
        },
        RequestError::Missing {
            field: "server",
            operation: "tools.search",
        },
        RequestError::Empty { field: "tool" },
        RequestError::TooLong {
            field: "search",
            max: 4096,
        },
        RequestError::UnknownOperation {
            value: "tool.call \"x\" \\ y".into(),
            suggestion: Some("tools.call"),
        },
        RequestError::OperationViaField {
            operation: "tools.call",
            field: "tool",
        },
        RequestError::BadReference,
        RequestError::UnknownServer {
            given: "gi\"hub".into(),
            suggestion: Some("github".into()),
            configured: vec!["files".into(), "github".into()],
        },
        RequestError::ArgumentNotString {
            name: "city".into(),
            found: "a number",
        },
    ];
    for error in &all {
        match error {
            RequestError::NotAnObject { .. }
            | RequestError::UnknownFields(_)
            | RequestError::WrongType { .. }
            | RequestError::Conflict(_)
            | RequestError::Misplaced { .. }
            | RequestError::Missing { .. }
            | RequestError::Empty { .. }
            | RequestError::TooLong { .. }
            | RequestError::UnknownOperation { .. }
            | RequestError::OperationViaField { .. }
            | RequestError::BadReference
            | RequestError::UnknownServer { .. }
            | RequestError::ArgumentNotString { .. } => check("request error", &error.to_string()),
        }
    }
}

#[test]
fn configuration_listing_and_binding_errors_render_in_words() {
    let refs = [
        RefError::Unclosed { at: 3 },
        RefError::BadName {
            text: "1abc".into(),
            hint: "",
        },
        RefError::Inexpressible,
        RefError::BadEnvName { text: "a-b".into() },
    ];
    for e in &refs {
        match e {
            RefError::Unclosed { .. }
            | RefError::BadName { .. }
            | RefError::Inexpressible
            | RefError::BadEnvName { .. } => check("reference error", &e.to_string()),
        }
    }
    for kind in [
        CatalogKind::Tools,
        CatalogKind::Resources,
        CatalogKind::ResourceTemplates,
        CatalogKind::Prompts,
    ] {
        for e in [
            LimitError::RepeatedCursor {
                kind,
                cursor: "c1".into(),
                page: 2,
            },
            LimitError::TooManyPages { kind, max: 100 },
            LimitError::TooManyEntries { kind, max: 10_000 },
        ] {
            check("listing limit", &e.to_string());
        }
    }
    for e in [
        BindError::None,
        BindError::TooMany,
        BindError::BadAlias(1),
        BindError::DuplicateAlias(2),
        BindError::NotADirectory(1),
        BindError::DuplicateRoot(2),
    ] {
        check("binding error", &e.to_string());
    }
}

#[test]
fn the_detector_sees_debug_text() {
    for debug in [
        "Some(EmptyResult(EmptyObject))",
        "[InvalidName]",
        "kind: NotFound",
        "AllowOnce",
        "unknown operation \"x\\\"y\"",
    ] {
        assert!(debug_look(debug).is_some(), "{debug}");
    }
    assert!(debug_look("sign in with OAuth on GitHub; `tools.call` failed").is_none());
}
