#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::json;

use super::*;

#[allow(clippy::needless_pass_by_value)]
fn parse(value: Value) -> Result<ProxyRequest, RequestError> {
    parse_request(&value)
}

fn message(value: Value) -> String {
    match parse(value) {
        Ok(req) => panic!("expected an error, got {req:?}"),
        Err(e) => e.to_string(),
    }
}

const REF: &str = "mcp-resource-0123456789abcdef0123456789abcdef";

#[test]
fn every_documented_shape_parses() {
    let s = || "s".to_owned();
    let cases = [
        (json!({}), ProxyRequest::Status),
        (json!({"operation": "status"}), ProxyRequest::Status),
        (
            json!({"server": "s"}),
            ProxyRequest::ToolsList { server: s() },
        ),
        (
            json!({"server": "s", "operation": "tools.list"}),
            ProxyRequest::ToolsList { server: s() },
        ),
        (
            json!({"server": "s", "search": "issue"}),
            ProxyRequest::ToolsSearch {
                server: s(),
                query: "issue".into(),
            },
        ),
        (
            json!({"server": "s", "describe": "search_issues"}),
            ProxyRequest::ToolsDescribe {
                server: s(),
                tool: "search_issues".into(),
            },
        ),
        (
            json!({"server": "s", "tool": "t", "args": {"q": "open"}}),
            ProxyRequest::ToolsCall {
                server: s(),
                tool: "t".into(),
                args: json!({"q": "open"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            },
        ),
        (
            json!({"server": "s", "tool": "t"}),
            ProxyRequest::ToolsCall {
                server: s(),
                tool: "t".into(),
                args: Map::new(),
            },
        ),
        (
            json!({"server": "s", "operation": "resources.list"}),
            ProxyRequest::ResourcesList { server: s() },
        ),
        (
            json!({"server": "s", "operation": "resources.read", "resource": REF}),
            ProxyRequest::ResourcesRead {
                server: s(),
                reference: REF.into(),
            },
        ),
        (
            json!({"server": "s", "operation": "prompts.list"}),
            ProxyRequest::PromptsList { server: s() },
        ),
        (
            json!({"server": "s", "operation": "prompts.get", "prompt": "review",
                   "arguments": {"topic": "x"}}),
            ProxyRequest::PromptsGet {
                server: s(),
                prompt: "review".into(),
                arguments: [("topic".to_owned(), "x".to_owned())].into(),
            },
        ),
        (
            json!({"server": "s", "operation": "reconnect"}),
            ProxyRequest::Reconnect { server: s() },
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(parse(input.clone()), Ok(expected), "{input}");
    }
}

#[test]
fn mixing_shapes_names_the_conflicting_fields() {
    let msg = message(json!({"server": "s", "search": "x", "tool": "t"}));
    assert!(msg.contains("`search` and `tool`"), "{msg}");
    let msg = message(json!({"server": "s", "operation": "tools.list", "describe": "t"}));
    assert!(msg.contains("`operation` and `describe`"), "{msg}");
    let msg = message(json!({"server": "s", "args": {}}));
    assert!(msg.contains("`args`") && msg.contains("`tool`"), "{msg}");
    let msg = message(json!({"server": "s", "search": "x", "args": {}}));
    assert!(msg.contains("`args`"), "{msg}");
    let msg = message(json!({"server": "s", "resource": REF}));
    assert!(
        msg.contains("`resource`") && msg.contains("resources.read"),
        "{msg}"
    );
    let msg = message(json!({"server": "s", "operation": "prompts.list", "prompt": "p"}));
    assert!(
        msg.contains("`prompt`") && msg.contains("prompts.get"),
        "{msg}"
    );
    let msg = message(json!({"server": "s", "operation": "status"}));
    assert!(msg.contains("`operation` and `server`"), "{msg}");
}

#[test]
fn unknown_fields_are_named_with_suggestions() {
    let msg = message(json!({"server": "s", "tol": "t"}));
    assert!(msg.contains("unknown field `tol`"), "{msg}");
    assert!(msg.contains("did you mean `tool`"), "{msg}");
    let msg = message(json!({"server": "s", "query": "x"}));
    assert!(msg.contains("did you mean `search`"), "{msg}");
    let msg = message(json!({"zzzzzz": 1}));
    assert!(
        msg.contains("`zzzzzz`") && !msg.contains("did you mean"),
        "{msg}"
    );
    let msg = message(json!({"a\u{1b}[2J": 1}));
    assert!(!msg.contains('\u{1b}'), "agent text is sanitised: {msg}");
}

#[test]
fn wrong_types_name_the_field() {
    let msg = message(json!({"server": 3}));
    assert_eq!(msg, "`server` must be a string, not a number");
    let msg = message(json!({"server": "s", "tool": "t", "args": []}));
    assert_eq!(msg, "`args` must be an object, not an array");
    let msg = message(
        json!({"server": "s", "operation": "prompts.get", "prompt": "p",
                              "arguments": {"n": 1}}),
    );
    assert_eq!(msg, "`arguments.n` must be a string, not a number");
    assert_eq!(
        message(json!([1])),
        "the request must be a JSON object, not an array"
    );
    let msg = message(json!({"server": ""}));
    assert_eq!(msg, "`server` must not be empty");
}

#[test]
fn missing_and_unknown_operations_are_explained() {
    let msg = message(json!({"search": "x"}));
    assert_eq!(msg, "`server` is required for tools.search");
    let msg = message(json!({"server": "s", "operation": "resources.read"}));
    assert_eq!(msg, "`resource` is required for resources.read");
    let msg = message(json!({"server": "s", "operation": "resource.list"}));
    assert!(msg.contains("did you mean `resources.list`"), "{msg}");
    let msg = message(json!({"server": "s", "operation": "tools.call"}));
    assert!(msg.contains("`tool` field"), "{msg}");
    let msg = message(json!({"server": "s", "operation": "resources.read", "resource": "x"}));
    assert!(msg.contains("mcp-resource-"), "{msg}");
}

#[test]
fn unknown_servers_list_the_configured_names() {
    let req = parse(json!({"server": "gihub"})).unwrap();
    assert_eq!(
        check_server(req.server(), ["github", "files"]).map_err(|e| e.to_string()),
        Err(
            "no configured server is named `gihub` (did you mean `github`?); configured: \
             files, github"
                .to_owned()
        )
    );
    assert_eq!(check_server(req.server(), ["gihub"]), Ok(()));
    assert_eq!(check_server(ProxyRequest::Status.server(), []), Ok(()));
    let msg = check_server(req.server(), []).unwrap_err().to_string();
    assert!(msg.ends_with("no servers are configured"), "{msg}");
}

#[test]
fn long_values_are_refused() {
    let long = "x".repeat(MAX_QUERY_BYTES + 1);
    let msg = message(json!({"server": "s", "search": long}));
    assert!(msg.contains("`search` is longer than"), "{msg}");
}

#[test]
fn every_request_validates_against_the_schema() {
    let schema = super::super::request_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&json!({"server": "s", "tool": "t", "args": {"a": 1}})));
    assert!(validator.is_valid(&json!({})));
    assert!(!validator.is_valid(&json!({"server": "s", "extra": 1})));
    assert!(!validator.is_valid(&json!({"operation": "nope"})));
}

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.-]{1,12}"
}

fn valid_request() -> impl Strategy<Value = ProxyRequest> {
    let args = proptest::collection::btree_map("[a-z]{1,5}", any::<i64>(), 0..4).prop_map(|m| {
        m.into_iter()
            .map(|(k, v)| (k, Value::from(v)))
            .collect::<Map<String, Value>>()
    });
    let strings = proptest::collection::btree_map("[a-z]{1,5}", ".{0,8}", 0..4);
    let reference = "[0-9a-f]{32}".prop_map(|h| format!("mcp-resource-{h}"));
    prop_oneof![
        Just(ProxyRequest::Status),
        name().prop_map(|server| ProxyRequest::ToolsList { server }),
        (name(), ".{1,20}").prop_map(|(server, query)| ProxyRequest::ToolsSearch { server, query }),
        (name(), name()).prop_map(|(server, tool)| ProxyRequest::ToolsDescribe { server, tool }),
        (name(), name(), args).prop_map(|(server, tool, args)| ProxyRequest::ToolsCall {
            server,
            tool,
            args
        }),
        name().prop_map(|server| ProxyRequest::ResourcesList { server }),
        (name(), reference)
            .prop_map(|(server, reference)| ProxyRequest::ResourcesRead { server, reference }),
        name().prop_map(|server| ProxyRequest::PromptsList { server }),
        (name(), name(), strings).prop_map(|(server, prompt, arguments)| {
            ProxyRequest::PromptsGet {
                server,
                prompt,
                arguments,
            }
        }),
        name().prop_map(|server| ProxyRequest::Reconnect { server }),
    ]
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        ".{0,10}".prop_map(Value::String),
        proptest::sample::select(KNOWN_FIELDS.to_vec()).prop_map(Value::from),
        proptest::sample::select(OPERATION_VALUES.to_vec()).prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        let key = prop_oneof![
            proptest::sample::select(KNOWN_FIELDS.to_vec()).prop_map(str::to_owned),
            ".{0,6}",
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(key, inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_json_never_panics(value in arbitrary_json()) {
        match parse_request(&value) {
            Ok(req) => prop_assert_eq!(parse_request(&req.to_json()), Ok(req)),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn valid_shapes_round_trip(req in valid_request()) {
        let json = req.to_json();
        prop_assert_eq!(parse_request(&json), Ok(req.clone()));
        let op = req.operation();
        prop_assert_eq!(op.to_string().parse::<NormalizedOperation>(), Ok(op));
    }
}
