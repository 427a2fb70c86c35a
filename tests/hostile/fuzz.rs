//! Fuzzing in the suite: proptest generators with hostile structure for every parser that reads
//! untrusted input — the configuration loader, the `mcp` proxy request, the sanitiser, the stdio
//! frame readers, the control-socket protocol and the `key=value` argument typer. Invariants: no
//! panic, a precise diagnostic, bounded output. Each runs a few hundred cases in `cargo test`;
//! for a long run: `PROPTEST_CASES=100000 cargo test --release fuzz_`.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;

use mcpdeck::mcp::arguments::call_arguments;
use mcpdeck::mcp::config::Layer;
use mcpdeck::mcp::config::read_file;
use mcpdeck::mcp::connection::Faults;
use mcpdeck::mcp::connection::{FrameStats, frame_channel, pump_frames};
use mcpdeck::mcp::control::FromConsole;
use mcpdeck::mcp::line_reader::{Line, LineReader};
use mcpdeck::mcp::proxy::parse_request;
use mcpdeck::mcp::sanitize::sanitize;
use mcpdeck::mcp::server_stdio::{Frame, FrameReader};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The default case count when `PROPTEST_CASES` is not set.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Short strings rich in what breaks parsers and terminals.
fn hostile_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z0-9_ .-]{0,12}",
        Just("\u{1b}[2J".to_owned()),
        Just("\u{1b}]8;;http://x\u{7}".to_owned()),
        Just("\u{9b}31m".to_owned()),
        Just("\u{0}".to_owned()),
        Just("\u{202e}".to_owned()),
        Just("\u{2066}".to_owned()),
        Just("\u{e0041}".to_owned()),
        Just("${".to_owned()),
        Just("${env:X}".to_owned()),
        Just("\"\\/".to_owned()),
        Just("é\u{7}".to_owned()),
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

/// A JSON text with hostile structure: duplicate keys (objects are written as member lists),
/// every value type, hostile strings, and now and then a long string.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| f.to_string()),
        hostile_string().prop_map(|s| serde_json::to_string(&s).unwrap()),
        (0usize..200_000).prop_map(|n| format!("\"{}\"", "x".repeat(n))),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        let key = prop_oneof![
            Just("mcpServers".to_owned()),
            Just("command".to_owned()),
            Just("args".to_owned()),
            Just("env".to_owned()),
            Just("url".to_owned()),
            Just("headers".to_owned()),
            Just("type".to_owned()),
            Just("GITHUB_TOKEN".to_owned()),
            hostile_string(),
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6)
                .prop_map(|v| format!("[{}]", v.join(","))),
            proptest::collection::vec((key, inner), 0..6).prop_map(|members| {
                let body: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
                    .collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    })
}

/// A configuration file's bytes: a JSON tree under `mcpServers`, deep nesting, raw NUL bytes,
/// invalid UTF-8, truncation and comments.
fn config_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        json_text()
            .prop_map(|t| format!("{{\"mcpServers\":{{\"s\":{t},\"s\":{t}}}}}").into_bytes()),
        json_text().prop_map(|t| format!("{{\"mcpServers\":{t}}}").into_bytes()),
        json_text().prop_map(String::into_bytes),
        (1usize..3000).prop_map(|d| {
            format!("{{\"mcpServers\":{}{}", "[".repeat(d), "]".repeat(d)).into_bytes()
        }),
        (json_text(), any::<usize>()).prop_map(|(t, cut)| {
            let b = t.into_bytes();
            let at = cut % (b.len() + 1);
            b[..at].to_vec()
        }),
        (
            json_text(),
            any::<usize>(),
            prop_oneof![Just(0u8), Just(0xff), Just(0xc3), Just(0x80)]
        )
            .prop_map(|(t, at, byte)| {
                let mut b = format!("// c\n{{\"mcpServers\":{{\"a\":{t}}}}} /* x */").into_bytes();
                let at = at % (b.len() + 1);
                b.insert(at, byte);
                b
            }),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_config_loader(bytes in config_bytes()) {
        let dir = tempfile::tempdir().unwrap();
        let path: PathBuf = dir.path().join(".mcp.json");
        std::fs::write(&path, &bytes).unwrap();
        let file = read_file(Layer::Project, path, true);
        prop_assert!(file.present);
        let lines = bytes.split(|b| *b == b'\n').count();
        let diagnostics = file
            .diagnostics
            .iter()
            .chain(file.entries.iter().flat_map(|e| e.diagnostics.iter()));
        for d in diagnostics {
            prop_assert!(!d.code.is_empty());
            prop_assert!(!d.message.trim().is_empty(), "{d:?}");
            if let Some(line) = d.line {
                prop_assert!(line >= 1 && line as usize <= lines, "line {line} of {lines}: {d:?}");
            }
            // A diagnostic quotes at most a bounded part of any value, and still says
            // something once sanitised for output (it may quote hostile text; every printer
            // sanitises it).
            prop_assert!(d.message.len() <= 2_000, "{} bytes", d.message.len());
            prop_assert!(!sanitize(&d.message).trim().is_empty(), "{:?}", d.message);
        }
    }

    #[test]
    fn fuzz_mcp_proxy_request(text in json_text(), op in prop_oneof![
        Just("search"), Just("describe"), Just("call"), Just("read"), Just("prompt"), Just("list"),
        Just("status"), Just(""), Just("CALL"),
    ], tool in hostile_string(), args in json_text()) {
        let free: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let shaped = json!({
            "operation": op, "server": tool, "tool": tool, "search": tool,
            "args": serde_json::from_str::<Value>(&args).unwrap_or(Value::Null),
        });
        for value in [free, shaped] {
            match parse_request(&value) {
                Ok(request) => {
                    // What was accepted is stable: its own JSON parses to the same request.
                    let again = parse_request(&request.to_json());
                    prop_assert_eq!(again.as_ref().ok(), Some(&request));
                }
                Err(e) => {
                    let message = e.to_string();
                    prop_assert!(!message.trim().is_empty());
                    prop_assert!(!message.contains('\u{1b}'), "{message:?}");
                }
            }
        }
    }

    #[test]
    fn fuzz_sanitiser(input in proptest::collection::vec(hostile_string(), 0..16)) {
        let input = input.concat();
        let once = sanitize(&input).into_owned();
        for c in once.chars() {
            let u = u32::from(c);
            let bad = c == '\u{1b}'
                || c == '\u{7}'
                || (0x80..=0x9f).contains(&u)
                || (u < 0x20 && c != '\n')
                || matches!(u, 0x061c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069)
                || (0xe0000..=0xe007f).contains(&u);
            prop_assert!(!bad, "U+{u:04X} survived in {once:?}");
        }
        prop_assert_eq!(sanitize(&once).into_owned(), once);
    }

    #[test]
    fn fuzz_frame_reader(lines in proptest::collection::vec(prop_oneof![
        json_text().prop_map(|t| t.replace(['\n', '\r'], " ").into_bytes()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".to_vec()),
        (1usize..400).prop_map(|d| format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}{}}}", "[".repeat(d), "]".repeat(d)).into_bytes()),
        // Raw bytes: anything but the line and carriage-return bytes the framing consumes.
        proptest::collection::vec(any::<u8>().prop_filter("not a line end", |b| *b != b'\n' && *b != b'\r'), 0..200),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"\xff\"}".to_vec()),
    ], 0..12), cr in any::<bool>()) {
        let mut input = Vec::new();
        for l in &lines {
            input.extend_from_slice(l);
            if cr {
                input.push(b'\r');
            }
            input.push(b'\n');
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (count, frames_seen) = runtime.block_on(async {
            // The stdio client's reader: decodes, counts garbage, never panics.
            let (tx, mut rx) = frame_channel();
            let stats = Arc::new(FrameStats::default());
            let faults = Arc::new(Faults::default());
            let pump = tokio::spawn(pump_frames(std::io::Cursor::new(input.clone()), tx, stats, faults));
            let mut count = 0usize;
            while rx.recv().await.is_some() {
                count += 1;
            }
            pump.await.unwrap();
            // The workspace server's reader: no line over its bound is ever returned whole.
            let mut reader = FrameReader::new(input.as_slice(), 256);
            let mut frames_seen = Vec::new();
            while let Some(frame) = reader.next().await {
                frames_seen.push(frame);
            }
            (count, frames_seen)
        });
        prop_assert!(count <= lines.len());
        prop_assert_eq!(frames_seen.len(), lines.len());
        for (frame, line) in frames_seen.iter().zip(&lines) {
            match frame {
                Frame::Line(got) => prop_assert_eq!(got, line),
                Frame::TooLong { .. } => prop_assert!(line.len() + usize::from(cr) > 256),
            }
        }
    }

    #[test]
    fn fuzz_control_socket_protocol(lines in proptest::collection::vec(prop_oneof![
        json_text(),
        Just("{\"type\":\"hello\"}".to_owned()),
        Just("{\"type\":\"decide\",\"ticket\":1,\"decision\":\"allow_once\"}".to_owned()),
        (0usize..3000).prop_map(|n| "z".repeat(n)),
        hostile_string(),
    ], 0..10)) {
        const MAX: usize = 1024;
        let lines: Vec<String> = lines.into_iter().map(|l| l.replace('\n', " ")).collect();
        let input = lines.join("\n");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let mut reader = LineReader::new(input.as_bytes(), MAX, 64);
            let mut line = Vec::new();
            let mut seen = 0usize;
            loop {
                match reader.read_line(&mut line).await.unwrap() {
                    None => break,
                    Some(Line::TooLong) => {
                        prop_assert!(line.capacity() <= MAX);
                        prop_assert!(lines.iter().any(|l| l.len() > MAX));
                        break;
                    }
                    Some(Line::Complete) => {
                        prop_assert!(line.len() <= MAX);
                        // A line's trailing `\r` is removed with its newline.
                        let sent = lines[seen].strip_suffix('\r').unwrap_or(&lines[seen]);
                        prop_assert_eq!(line.as_slice(), sent.as_bytes());
                        seen += 1;
                        // Decoding is total: a message or an error, never a panic.
                        let _ = serde_json::from_slice::<FromConsole>(&line);
                    }
                }
            }
            Ok(())
        })?;
    }

    #[test]
    fn fuzz_key_value_typer(pairs in proptest::collection::vec((
        prop_oneof![Just("n".to_owned()), Just("flag".to_owned()), Just("s".to_owned()), Just("list".to_owned()), hostile_string()],
        prop_oneof![Just("="), Just(":="), Just("")],
        prop_oneof![Just("42".to_owned()), Just("true".to_owned()), Just("[1,2]".to_owned()), Just("{\"a\":".to_owned()), hostile_string()],
    ), 0..6), schema in prop_oneof![
        Just(None),
        Just(Some(json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "flag": {"type": "boolean"}, "s": {"type": "string"},
            "list": {"type": "array", "items": {"type": "number"}}
        }}))),
        json_text().prop_map(|t| serde_json::from_str::<Value>(&t).ok()),
    ]) {
        let raw: Vec<String> = pairs.iter().map(|(k, sep, v)| format!("{k}{sep}{v}")).collect();
        match call_arguments(&raw, schema.as_ref()) {
            Ok(map) => prop_assert!(map.len() <= raw.len().max(1)),
            Err(message) => prop_assert!(!sanitize(&message).trim().is_empty(), "{message:?}"),
        }
    }
}
