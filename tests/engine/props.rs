//! Property tests: the sanitiser is total and idempotent and leaves no dangerous code point; the
//! reference parser never panics and round-trips; configuration parsing never panics.

use std::path::Path;

use mcpdeck::mcp::config::Layer;
use mcpdeck::mcp::config::parse_file;
use mcpdeck::mcp::config::{Part, Template};
use mcpdeck::mcp::sanitize::sanitize;
use proptest::prelude::*;

fn forbidden(c: char) -> bool {
    let u = u32::from(c);
    (u < 0x20 && c != '\n')
        || (0x7f..=0x9f).contains(&u)
        || matches!(u, 0x061c | 0x180e | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x206f | 0xfeff | 0xe0000..=0xe007f)
}

/// Strings rich in controls, escapes, bidi and zero-width characters.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        any::<char>().prop_map(String::from),
        Just("\u{1b}[2J".to_owned()),
        Just("\u{1b}]8;;http://x\u{7}".to_owned()),
        Just("\u{1b}P".to_owned()),
        Just("\u{9b}".to_owned()),
        Just("\r\n".to_owned()),
        Just("\t".to_owned()),
        (0x202au32..=0x202e).prop_map(|u| char::from_u32(u).map(String::from).unwrap_or_default()),
        (0x2066u32..=0x2069).prop_map(|u| char::from_u32(u).map(String::from).unwrap_or_default()),
        (0xe0000u32..=0xe007f)
            .prop_map(|u| char::from_u32(u).map(String::from).unwrap_or_default()),
        "[a-z ]{0,8}",
    ];
    proptest::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn sanitiser_output_is_safe_and_idempotent(input in hostile_text()) {
        let once = sanitize(&input).into_owned();
        prop_assert!(!once.chars().any(forbidden), "{once:?}");
        prop_assert!(!once.contains('\t'));
        let twice = sanitize(&once).into_owned();
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn sanitiser_keeps_plain_text(input in "[a-zA-Z0-9 .,:;!?()\\[\\]{}\n-]{0,200}") {
        prop_assert_eq!(sanitize(&input), input.as_str());
    }

    #[test]
    fn reference_parser_never_panics_and_keeps_source(input in "[a-z${}:_A-Z0-9 ]{0,40}") {
        if let Ok(t) = Template::parse(&input) {
            prop_assert_eq!(t.source(), input.as_str());
            let rebuilt = Template::from_parts(t.parts().to_vec()).expect("parsed parts are expressible");
            let reparsed = Template::parse(rebuilt.source()).expect("canonical form parses");
            prop_assert_eq!(reparsed.parts(), t.parts());
        }
    }

    #[test]
    fn reference_parts_round_trip(parts in proptest::collection::vec(
        prop_oneof![
            "[a-z ${}]{1,10}".prop_map(Part::Literal),
            "[A-Z_][A-Z0-9_]{0,8}".prop_map(Part::Var),
        ], 0..6)) {
        // Adjacent literals merge when parsed, so compare against the merged form.
        let mut merged: Vec<Part> = Vec::new();
        for part in parts.clone() {
            match (merged.last_mut(), part) {
                (Some(Part::Literal(prev)), Part::Literal(next)) => prev.push_str(&next),
                (_, part) => merged.push(part),
            }
        }
        let Ok(template) = Template::from_parts(parts) else {
            // Refused only for the two arrangements the syntax cannot write.
            let inexpressible = merged.windows(2).any(|w| matches!(w, [Part::Literal(l), Part::Var(_)] if l.ends_with('$')))
                || matches!(merged.first(), Some(Part::Literal(l)) if l.starts_with("$env:"));
            prop_assert!(inexpressible, "{merged:?} was refused");
            return Ok(());
        };
        let reparsed = Template::parse(template.source()).expect("rendered templates parse");
        prop_assert_eq!(reparsed.parts(), merged.as_slice());
    }

    #[test]
    fn config_parsing_never_panics(text in "\\PC{0,200}") {
        let _ = parse_file(&text, Path::new("/p/.mcp.json"), Layer::Project);
    }

    #[test]
    fn config_parsing_of_json_shapes_never_panics(
        name in "\\PC{0,12}",
        field in prop_oneof![
            Just("command".to_owned()), Just("url".to_owned()), Just("args".to_owned()), Just("env".to_owned()),
            Just("headers".to_owned()), Just("type".to_owned()), Just("reconnect".to_owned()),
            Just("requestTimeoutMs".to_owned()), "[a-z]{1,8}",
        ],
        value in prop_oneof![
            Just(serde_json::json!(null)), Just(serde_json::json!(1.5)), Just(serde_json::json!(-3)),
            Just(serde_json::json!("${X")), Just(serde_json::json!("http://u:p@h/?token=1")),
            Just(serde_json::json!({"A_TOKEN": "lit", "${": 1})), Just(serde_json::json!(["a", 1])),
            "\\PC{0,20}".prop_map(serde_json::Value::String),
        ],
    ) {
        let doc = serde_json::json!({"mcpServers": {name: {field: value}}}).to_string();
        let parsed = parse_file(&doc, Path::new("/p/.mcp.json"), Layer::Project);
        prop_assert_eq!(parsed.entries.len(), 1);
    }
}
