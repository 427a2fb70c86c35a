//! `key=value` arguments for `mcpdeck call` and `mcpdeck prompt`.
//!
//! A value takes the type the tool's input schema gives its key: a string stays a string even if
//! it looks like a number. Where the schema says nothing, a value that parses as JSON is JSON,
//! otherwise a string. `key:=JSON` forces JSON. A single JSON object argument is the whole
//! arguments object.

use serde_json::{Map, Value};

/// Whether the arguments need the tool's schema to be typed (any plain `key=value`).
pub fn needs_schema(raw: &[String]) -> bool {
    !is_single_object(raw) && raw.iter().any(|a| !a.contains(":=") && a.contains('='))
}

fn is_single_object(raw: &[String]) -> bool {
    raw.len() == 1 && raw[0].trim_start().starts_with('{')
}

/// The JSON types the schema allows for `key`.
fn schema_types(schema: Option<&Value>, key: &str) -> Vec<String> {
    let Some(prop) = schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(key))
    else {
        return Vec::new();
    };
    let mut types = Vec::new();
    collect_types(prop, &mut types);
    types
}

fn collect_types(prop: &Value, out: &mut Vec<String>) {
    match prop.get("type") {
        Some(Value::String(t)) => out.push(t.clone()),
        Some(Value::Array(ts)) => {
            out.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        _ => {}
    }
    if prop
        .get("enum")
        .is_some_and(|e| e.as_array().is_some_and(|v| v.iter().all(Value::is_string)))
    {
        out.push("string".to_owned());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = prop.get(key) {
            for option in options {
                collect_types(option, out);
            }
        }
    }
}

/// Parses call arguments against the tool's input schema (when known).
pub fn call_arguments(
    raw: &[String],
    schema: Option<&Value>,
) -> Result<Map<String, Value>, String> {
    if is_single_object(raw) {
        return match serde_json::from_str::<Value>(&raw[0]) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("the arguments JSON must be an object".to_owned()),
            Err(e) => Err(format!("the arguments are not valid JSON: {e}")),
        };
    }
    let mut out = Map::new();
    for arg in raw {
        let (key, value) = parse_pair(arg, schema)?;
        if out.insert(key.clone(), value).is_some() {
            return Err(format!("argument `{key}` is given twice"));
        }
    }
    Ok(out)
}

/// The `--meta` entries of a call: `key=value` (a string) or `key:=JSON`, each key once.
pub fn meta_entries(raw: &[String]) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for arg in raw {
        let (key, value) = match arg.split_once(":=") {
            Some((key, json)) if !key.contains('=') => (
                key,
                serde_json::from_str(json)
                    .map_err(|e| format!("`--meta {key}:=` needs JSON: {e}"))?,
            ),
            _ => {
                let Some((key, text)) = arg.split_once('=') else {
                    return Err(format!("`--meta {arg}` is not key=value or key:=JSON"));
                };
                (key, Value::String(text.to_owned()))
            }
        };
        let key = checked_key(key)?;
        if out.insert(key.clone(), value).is_some() {
            return Err(format!("`--meta {key}` is given twice"));
        }
    }
    Ok(out)
}

fn parse_pair(arg: &str, schema: Option<&Value>) -> Result<(String, Value), String> {
    if let Some((key, json)) = arg.split_once(":=")
        && !key.contains('=')
    {
        let value = serde_json::from_str(json).map_err(|e| format!("`{key}:=` needs JSON: {e}"))?;
        return Ok((checked_key(key)?, value));
    }
    let Some((key, text)) = arg.split_once('=') else {
        return Err(format!(
            "`{arg}` is not key=value, key:=JSON or one JSON object"
        ));
    };
    let key = checked_key(key)?;
    let types = schema_types(schema, &key);
    let value = typed(&key, text, &types)?;
    Ok((key, value))
}

fn checked_key(key: &str) -> Result<String, String> {
    if key.is_empty() {
        Err("an argument name is empty".to_owned())
    } else {
        Ok(key.to_owned())
    }
}

fn typed(key: &str, text: &str, types: &[String]) -> Result<Value, String> {
    let has = |t: &str| types.iter().any(|x| x == t);
    if types.is_empty() {
        return Ok(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())));
    }
    if has("string") {
        return Ok(Value::String(text.to_owned()));
    }
    if has("null") && text == "null" {
        return Ok(Value::Null);
    }
    if has("integer")
        && let Ok(n) = text.parse::<i64>()
    {
        return Ok(Value::from(n));
    }
    // A whole number stays an integer (`steps=2` sends `2`, never `2.0`).
    if has("number")
        && let Ok(n) = text.parse::<i64>()
    {
        return Ok(Value::from(n));
    }
    if has("number")
        && let Some(n) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
    {
        return Ok(Value::Number(n));
    }
    if has("boolean") {
        match text {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            _ => {}
        }
    }
    if (has("array") || has("object"))
        && let Ok(v) = serde_json::from_str::<Value>(text)
        && (v.is_array() && has("array") || v.is_object() && has("object"))
    {
        return Ok(v);
    }
    Err(format!(
        "argument `{key}` must be {} per the tool's schema, got `{text}`",
        types.join(" or ")
    ))
}

/// Parses prompt arguments: every value is a string.
pub fn prompt_arguments(
    raw: &[String],
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut out = std::collections::BTreeMap::new();
    for arg in raw {
        let Some((key, value)) = arg.split_once('=') else {
            return Err(format!("`{arg}` is not key=value"));
        };
        if out.insert(checked_key(key)?, value.to_owned()).is_some() {
            return Err(format!("argument `{key}` is given twice"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
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
}
