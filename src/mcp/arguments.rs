//! A tool's arguments typed and checked by its input schema, compiled once per catalog entry
//! ([`ToolArguments::compile`]): the JSON types each property allows, the keys it knows and
//! requires, and the schema's validator. The CLI's `key=value` words, the console's call form
//! and `--no-validate` all go through it, so a tool's arguments are typed the same everywhere.
//!
//! A value takes the type the schema gives its key: a string stays a string even if it looks
//! like a number. Where the schema says nothing, a value that parses as JSON is JSON, otherwise
//! a string. `key:=JSON` forces JSON. A single JSON object word is the whole arguments object.
//! Unchecked (`--no-validate`), a value the schema's types do not fit is sent as JSON or text
//! instead of refused: the server decides.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::mcp::sanitize::sanitize_capped;

/// Most problems listed.
const MAX_PROBLEMS: usize = 20;

/// A tool's input schema, compiled for typing and checking its arguments.
pub struct ToolArguments {
    /// The JSON types each property allows (`type`, a string `enum`, `anyOf` / `oneOf`).
    types: BTreeMap<String, Vec<String>>,
    /// The property names, when the schema admits no others.
    closed: Option<Vec<String>>,
    /// The required keys.
    required: Vec<String>,
    /// The schema's validator (None when there is no schema or the validator cannot use it: a
    /// schema it cannot read is the server's problem, and the call goes as given).
    validator: Option<jsonschema::Validator>,
}

#[cfg(test)]
thread_local! {
    /// How many schemas this thread compiled, for the tests that count them.
    static COMPILES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many schemas this thread has compiled so far.
#[cfg(test)]
pub(crate) fn compiles() -> usize {
    COMPILES.with(std::cell::Cell::get)
}

/// A catalog entry's compiled [`ToolArguments`], shared by every face that types the tool's
/// arguments. Two are equal when they are the same compilation (the catalog compiles each
/// entry once), which keeps the descriptions that carry one plain comparable data.
#[derive(Debug, Clone)]
pub struct Compiled(pub std::sync::Arc<ToolArguments>);

impl PartialEq for Compiled {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for ToolArguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolArguments")
            .field("types", &self.types)
            .field("closed", &self.closed)
            .field("required", &self.required)
            .field("validates", &self.validator.is_some())
            .finish()
    }
}

impl ToolArguments {
    /// Compiles a tool's input schema.
    pub fn compile(schema: &Value) -> Self {
        #[cfg(test)]
        COMPILES.with(|n| n.set(n.get() + 1));
        let properties = schema.get("properties").and_then(Value::as_object);
        let types = properties
            .map(|props| {
                props
                    .iter()
                    .map(|(key, prop)| {
                        let mut types = Vec::new();
                        collect_types(prop, &mut types);
                        (key.clone(), types)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let extras_allowed = matches!(
            schema.get("additionalProperties"),
            Some(Value::Bool(true) | Value::Object(_))
        );
        Self {
            types,
            closed: properties
                .filter(|_| !extras_allowed)
                .map(|props| props.keys().cloned().collect()),
            required: schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            validator: jsonschema::validator_for(schema).ok(),
        }
    }

    /// No schema known (an unlisted tool): every value is JSON when it parses, else text, and
    /// nothing is checked.
    pub fn unknown() -> Self {
        Self {
            types: BTreeMap::new(),
            closed: None,
            required: Vec::new(),
            validator: None,
        }
    }

    /// The JSON types the schema allows for `key` (empty: it says nothing).
    pub fn types(&self, key: &str) -> &[String] {
        self.types.get(key).map_or(&[], Vec::as_slice)
    }

    /// The arguments from the CLI's words: `key=value`, `key:=JSON`, or one JSON object.
    /// `checked` refuses a value the schema's types do not fit; unchecked it is sent as JSON or
    /// text.
    pub fn words(&self, raw: &[String], checked: bool) -> Result<Map<String, Value>, String> {
        if is_single_object(raw) {
            return match serde_json::from_str::<Value>(&raw[0]) {
                Ok(Value::Object(map)) => Ok(map),
                Ok(_) => Err("the arguments JSON must be an object".to_owned()),
                Err(e) => Err(format!("the arguments are not valid JSON: {e}")),
            };
        }
        let mut out = Map::new();
        for arg in raw {
            let (key, value) = self.pair(arg, checked)?;
            if out.insert(key.clone(), value).is_some() {
                return Err(format!("argument `{key}` is given twice"));
            }
        }
        Ok(out)
    }

    fn pair(&self, arg: &str, checked: bool) -> Result<(String, Value), String> {
        if let Some((key, json)) = arg.split_once(":=")
            && !key.contains('=')
        {
            let value =
                serde_json::from_str(json).map_err(|e| format!("`{key}:=` needs JSON: {e}"))?;
            return Ok((checked_key(key)?, value));
        }
        let Some((key, text)) = arg.split_once('=') else {
            return Err(format!(
                "`{arg}` is not key=value, key:=JSON or one JSON object"
            ));
        };
        let key = checked_key(key)?;
        let value = self.value(&key, text, checked)?;
        Ok((key, value))
    }

    /// `text` as the schema types `key` (a form field, a `key=value` word), or None when it
    /// fits none of its types.
    pub fn fit(&self, key: &str, text: &str) -> Option<Value> {
        typed(text, self.types(key))
    }

    /// Where the schema's validator finds `instance` wrong: (instance path, message) each.
    pub fn schema_errors(&self, instance: &Value) -> Vec<(String, String)> {
        let Some(validator) = &self.validator else {
            return Vec::new();
        };
        validator
            .iter_errors(instance)
            .map(|e| (e.instance_path().to_string(), e.to_string()))
            .collect()
    }

    /// One value typed as the schema says for `key` (a form field, a `key=value` word).
    pub fn value(&self, key: &str, text: &str, checked: bool) -> Result<Value, String> {
        let types = self.types(key);
        match typed(text, types) {
            Some(value) => Ok(value),
            None if !checked => Ok(untyped(text)),
            None => Err(format!(
                "argument `{key}` must be {} per the tool's schema, got `{text}`",
                types.join(" or ")
            )),
        }
    }

    /// Every problem of `args` under the schema: unknown keys (with the nearest real one),
    /// missing required keys, then whatever else the schema says (types, enums, ranges), each
    /// named. Empty when the call may go.
    pub fn problems(&self, args: &Map<String, Value>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(known) = &self.closed {
            for key in args.keys().filter(|k| !known.contains(*k)) {
                let near = nearest(key, known.iter())
                    .map(|near| format!("; did you mean `{}`?", sanitize_capped(near, 128)))
                    .unwrap_or_default();
                out.push(format!(
                    "unknown argument `{}`{near}",
                    sanitize_capped(key, 128)
                ));
            }
        }
        for key in &self.required {
            if !args.contains_key(key) {
                out.push(format!(
                    "missing required argument `{}`",
                    sanitize_capped(key, 128)
                ));
            }
        }
        for (path, message) in self.schema_errors(&Value::Object(args.clone())) {
            // Unknown and missing keys are already named above, more helpfully.
            if path.is_empty()
                && (message.contains("is a required property")
                    || message.contains("Additional properties"))
            {
                continue;
            }
            let at = path.trim_start_matches('/').replace('/', ".");
            let at = if at.is_empty() {
                "arguments".to_owned()
            } else {
                format!("`{at}`")
            };
            out.push(sanitize_capped(&format!("{at}: {message}"), 400));
        }
        out.truncate(MAX_PROBLEMS);
        out
    }
}

/// How a refused call's message starts (the problems follow, one a line).
pub const MISMATCH: &str = "the arguments do not match the tool's input schema (nothing was sent):";

/// The message of a call refused for `problems`.
pub fn mismatch(problems: &[String]) -> String {
    format!("{MISMATCH}\n  {}", problems.join("\n  "))
}

/// Whether the words need the tool's schema to be typed (any plain `key=value`).
pub fn needs_schema(raw: &[String]) -> bool {
    !is_single_object(raw) && raw.iter().any(|a| !a.contains(":=") && a.contains('='))
}

/// The CLI's words typed (and type-checked) by `schema`, when known.
pub fn call_arguments(
    raw: &[String],
    schema: Option<&Value>,
) -> Result<Map<String, Value>, String> {
    schema
        .map_or_else(ToolArguments::unknown, ToolArguments::compile)
        .words(raw, true)
}

fn is_single_object(raw: &[String]) -> bool {
    raw.len() == 1 && raw[0].trim_start().starts_with('{')
}

fn collect_types(prop: &Value, out: &mut Vec<String>) {
    match prop.get("type") {
        Some(Value::String(t)) => out.push(t.clone()),
        Some(Value::Array(ts)) => {
            out.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        _ => {}
    }
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        // `null` among the values admits `null`; the rest typed as strings when all are.
        let (nulls, rest): (Vec<&Value>, Vec<&Value>) = values.iter().partition(|v| v.is_null());
        if !nulls.is_empty() {
            out.push("null".to_owned());
        }
        if rest.iter().all(|v| v.is_string()) && !rest.is_empty() {
            out.push("string".to_owned());
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = prop.get(key) {
            for option in options {
                collect_types(option, out);
            }
        }
    }
}

fn checked_key(key: &str) -> Result<String, String> {
    if key.is_empty() {
        Err("an argument name is empty".to_owned())
    } else {
        Ok(key.to_owned())
    }
}

/// JSON when it parses, else text.
fn untyped(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// `text` as one of `types`, or None when it fits none of them.
fn typed(text: &str, types: &[String]) -> Option<Value> {
    let has = |t: &str| types.iter().any(|x| x == t);
    if types.is_empty() {
        return Some(untyped(text));
    }
    // A field that admits `null` takes the word `null` as it.
    if has("null") && text == "null" {
        return Some(Value::Null);
    }
    if has("string") {
        return Some(Value::String(text.to_owned()));
    }
    // A whole number stays an integer (`steps=2` sends `2`, never `2.0`).
    if (has("integer") || has("number"))
        && let Ok(n) = text.parse::<i64>()
    {
        return Some(Value::from(n));
    }
    if has("number")
        && let Some(n) = text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
    {
        return Some(Value::Number(n));
    }
    if has("boolean") {
        match text {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    if (has("array") || has("object"))
        && let Ok(v) = serde_json::from_str::<Value>(text)
        && (v.is_array() && has("array") || v.is_object() && has("object"))
    {
        return Some(v);
    }
    None
}

/// The nearest known key to `key`, when it is close enough to be a likely typo.
fn nearest<'a>(key: &str, known: impl Iterator<Item = &'a String>) -> Option<&'a str> {
    known
        .map(|k| (strsim::normalized_damerau_levenshtein(key, k), k.as_str()))
        .filter(|(score, _)| *score >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests;
