//! Sample arguments for `lint --call`: the smallest object an input schema's required
//! properties allow — each property's `default`, `const` or first `enum` value, else the least
//! value of its type within its bounds. Checked against the schema before anything is sent.

use serde_json::{Map, Value, json};

/// Schema-valid sample arguments, or why none could be made.
pub(crate) fn sample_arguments(schema: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut args = Map::new();
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let property = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        args.insert(name.to_owned(), sample_value(property));
    }
    let schema = Value::Object(schema.clone());
    let validator = jsonschema::draft202012::new(&schema)
        .map_err(|e| format!("the input schema does not compile: {e}"))?;
    let instance = Value::Object(args);
    if let Some(e) = validator.iter_errors(&instance).next() {
        return Err(format!("no sample arguments satisfy the input schema: {e}"));
    }
    let Value::Object(args) = instance else {
        return Err("unreachable".to_owned());
    };
    Ok(args)
}

fn sample_value(schema: &Value) -> Value {
    if let Some(v) = schema.get("default").or_else(|| schema.get("const")) {
        return v.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(first) = ["anyOf", "oneOf"].iter().find_map(|k| {
        schema
            .get(*k)
            .and_then(Value::as_array)
            .and_then(|o| o.first())
    }) {
        return sample_value(first);
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().find_map(Value::as_str).unwrap_or("string"),
        Some(Value::String(kind)) => kind.as_str(),
        _ => "string",
    };
    let at_least = |key: &str| schema.get(key).and_then(Value::as_u64).unwrap_or(0);
    match kind {
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or_else(|| json!(0)),
        "boolean" => json!(false),
        "null" => Value::Null,
        "array" => Value::Array(
            (0..at_least("minItems"))
                .map(|_| sample_value(schema.get("items").unwrap_or(&Value::Null)))
                .collect(),
        ),
        "object" => match schema.as_object() {
            Some(inner) => Value::Object(sample_arguments(inner).unwrap_or_default()),
            None => json!({}),
        },
        _ => Value::String("a".repeat(usize::try_from(at_least("minLength")).unwrap_or(0))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn required_properties_get_the_least_valid_values() {
        let schema = json!({"type": "object", "required": ["n", "s", "e", "d", "b", "l"],
            "properties": {"n": {"type": "integer", "minimum": 3}, "s": {"type": "string",
            "minLength": 2}, "e": {"enum": ["x", "y"]}, "d": {"type": "string", "default": "hi"},
            "b": {"type": "boolean"}, "l": {"type": "array", "minItems": 1,
            "items": {"type": "number"}}, "opt": {"type": "string"}}});
        let args = sample_arguments(schema.as_object().unwrap()).unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"n": 3, "s": "aa", "e": "x", "d": "hi", "b": false, "l": [0]})
        );
    }

    #[test]
    fn a_schema_no_sample_satisfies_is_said() {
        let schema = json!({"type": "object", "required": ["s"],
            "properties": {"s": {"type": "string", "pattern": "^[0-9]+$"}}});
        let err = sample_arguments(schema.as_object().unwrap()).unwrap_err();
        assert!(err.contains("no sample arguments"), "{err}");
    }
}
