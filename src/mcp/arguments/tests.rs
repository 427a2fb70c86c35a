//! Typing words and checking arguments against a tool's input schema.

use super::*;
use serde_json::json;

fn args(raw: &[&str], schema: &Value) -> Result<Map<String, Value>, String> {
    let raw: Vec<String> = raw.iter().map(|s| (*s).to_owned()).collect();
    call_arguments(&raw, Some(schema))
}

#[test]
fn schema_types_win() {
    let schema = json!({"properties": {
        "zip": {"type": "string"}, "n": {"type": "integer"}, "x": {"type": "number"},
        "flag": {"type": "boolean"}, "tags": {"type": "array"}, "opt": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "mode": {"enum": ["a", "b"]}
    }});
    let got = args(
        &[
            "zip=02134",
            "n=7",
            "x=1.5",
            "flag=true",
            "tags=[1,2]",
            "opt=12",
            "mode=a",
            "free=42",
            "word=hi",
            "raw:=\"5\"",
        ],
        &schema,
    )
    .expect("valid");
    assert_eq!(
        Value::Object(got),
        json!({"zip": "02134", "n": 7, "x": 1.5, "flag": true, "tags": [1, 2], "opt": "12", "mode": "a", "free": 42, "word": "hi", "raw": "5"})
    );
}

#[test]
fn whole_numbers_stay_integers_for_number_fields() {
    let schema = json!({"properties": {"x": {"type": "number"}}});
    let got = args(&["x=2"], &schema).expect("valid");
    assert_eq!(serde_json::to_string(&got).expect("json"), r#"{"x":2}"#);
    let got = args(&["x=2.5"], &schema).expect("valid");
    assert_eq!(serde_json::to_string(&got).expect("json"), r#"{"x":2.5}"#);
}

#[test]
fn wrong_types_are_named() {
    let schema = json!({"properties": {"n": {"type": "integer"}}});
    let err = args(&["n=seven"], &schema).expect_err("not an integer");
    assert!(err.contains("`n` must be integer"), "{err}");
    assert!(
        args(&["n=1", "n=2"], &schema)
            .expect_err("twice")
            .contains("twice")
    );
    assert!(
        args(&["novalue"], &schema)
            .expect_err("shape")
            .contains("key=value")
    );
}

#[test]
fn one_json_object_is_the_whole_arguments() {
    let got = args(&[r#"{"a": [1], "b": "x"}"#], &json!({})).expect("object");
    assert_eq!(Value::Object(got), json!({"a": [1], "b": "x"}));
    assert!(args(&["[1]"], &json!({})).is_err());
    assert!(!needs_schema(&[r#"{"a":1}"#.to_owned()]));
    assert!(needs_schema(&["a=1".to_owned()]));
    assert!(!needs_schema(&["a:=1".to_owned()]));
}

fn check(schema: &Value, args: &Value) -> Vec<String> {
    ToolArguments::compile(schema).problems(args.as_object().expect("object"))
}

#[test]
fn each_problem_is_named() {
    let schema = json!({
        "type": "object",
        "properties": {
            "message": {"type": "string"},
            "count": {"type": "integer"},
            "mode": {"enum": ["fast", "slow"]}
        },
        "required": ["message", "count"]
    });
    let got = check(
        &schema,
        &json!({"mesage": "hi", "count": "x", "mode": "medium"}),
    );
    assert!(
        got.iter()
            .any(|p| p == "unknown argument `mesage`; did you mean `message`?"),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|p| p == "missing required argument `message`"),
        "{got:?}"
    );
    assert!(got.iter().any(|p| p.starts_with("`count`:")), "{got:?}");
    assert!(got.iter().any(|p| p.starts_with("`mode`:")), "{got:?}");
    assert!(check(&schema, &json!({"message": "hi", "count": 2})).is_empty());
}

#[test]
fn extra_keys_pass_when_the_schema_admits_them() {
    let schema = json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true});
    assert!(check(&schema, &json!({"b": 1})).is_empty());
    let closed = json!({"type": "object", "properties": {"a": {}}});
    assert_eq!(
        check(&closed, &json!({"zzzz": 1})),
        vec!["unknown argument `zzzz`".to_owned()]
    );
}

#[test]
fn unchecked_a_value_of_the_wrong_type_is_sent_as_it_reads() {
    let compiled = ToolArguments::compile(&json!({"properties": {
        "n": {"type": "integer"}, "zip": {"type": "string"}
    }}));
    let words = ["n=seven".to_owned(), "zip=02134".to_owned()];
    assert!(compiled.words(&words, true).is_err());
    let got = compiled.words(&words, false).expect("unchecked");
    // The schema still types what it can: `zip` stays a string.
    assert_eq!(Value::Object(got), json!({"n": "seven", "zip": "02134"}));
    let got = compiled
        .words(&["n=[1]".to_owned()], false)
        .expect("unchecked");
    assert_eq!(Value::Object(got), json!({"n": [1]}));
}
