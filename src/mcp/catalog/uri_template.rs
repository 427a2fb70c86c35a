//! Resource templates: the variables of an RFC 6570 URI template and its expansion (levels 1 to
//! 4, through the `iri-string` crate). Only the operator's faces expand templates; the agents
//! read resources by opaque reference.
//!
//! A value is a string, a list of strings or string pairs (for `{?list*}`-style operators);
//! a variable left out is undefined, which RFC 6570 expands to nothing.

use std::collections::BTreeMap;

use iri_string::spec::UriSpec;
use iri_string::template::UriTemplateStr;
use iri_string::template::simple_context::{SimpleContext, Value};

/// One variable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarValue {
    /// A plain string.
    String(String),
    /// A list (`["a", "b"]`).
    List(Vec<String>),
    /// Pairs (`{"k": "v"}`), kept in order.
    Pairs(Vec<(String, String)>),
}

impl VarValue {
    /// A value from JSON: a string, number or boolean as a string; an array of those as a list;
    /// an object of those as pairs. Anything else is refused.
    pub fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        fn scalar(v: &serde_json::Value) -> Option<String> {
            match v {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                serde_json::Value::Bool(b) => Some(b.to_string()),
                _ => None,
            }
        }
        if let Some(s) = scalar(value) {
            return Ok(Self::String(s));
        }
        let refused = || "a template value must be a string, a list or an object of strings";
        match value {
            serde_json::Value::Array(items) => items
                .iter()
                .map(|v| scalar(v).ok_or_else(refused))
                .collect::<Result<_, _>>()
                .map(Self::List)
                .map_err(str::to_owned),
            serde_json::Value::Object(map) => map
                .iter()
                .map(|(k, v)| scalar(v).map(|v| (k.clone(), v)).ok_or_else(refused))
                .collect::<Result<_, _>>()
                .map(Self::Pairs)
                .map_err(str::to_owned),
            _ => Err(refused().to_owned()),
        }
    }
}

/// The distinct variable names of `template`, in order of first appearance (empty when the
/// template does not parse).
pub(crate) fn variables(template: &str) -> Vec<String> {
    let Ok(parsed) = UriTemplateStr::new(template) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for name in parsed.variables() {
        if !out.iter().any(|n| n == name.as_str()) {
            out.push(name.as_str().to_owned());
        }
    }
    out
}

/// Expands `template` with `values`. A value for a variable the template does not have is an
/// error (a typo would otherwise read the wrong resource silently).
pub(crate) fn expand(
    template: &str,
    values: &BTreeMap<String, VarValue>,
) -> Result<String, String> {
    let parsed = UriTemplateStr::new(template)
        .map_err(|e| format!("the URI template does not parse: {e}"))?;
    let known = variables(template);
    if let Some(unknown) = values.keys().find(|k| !known.contains(k)) {
        return Err(format!(
            "the template has no variable `{unknown}`; its variables: {}",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ));
    }
    let mut context = SimpleContext::new();
    for (name, value) in values {
        let value = match value {
            VarValue::String(s) => Value::String(s.clone()),
            VarValue::List(items) => Value::List(items.clone()),
            VarValue::Pairs(pairs) => Value::Assoc(pairs.clone()),
        };
        context.insert(name.clone(), value);
    }
    let expanded = parsed
        .expand::<UriSpec, _>(&context)
        .map_err(|e| format!("the URI template cannot be expanded: {e}"))?;
    Ok(expanded.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, VarValue)]) -> BTreeMap<String, VarValue> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn s(text: &str) -> VarValue {
        VarValue::String(text.to_owned())
    }

    #[test]
    fn level_one_substitutes_and_escapes() {
        let got = expand(
            "demo://resource/dynamic/text/{resourceId}",
            &values(&[("resourceId", s("1"))]),
        )
        .expect("expands");
        assert_eq!(got, "demo://resource/dynamic/text/1");
        let got = expand("mem://doc/{id}", &values(&[("id", s("a b/c"))])).expect("expands");
        assert_eq!(got, "mem://doc/a%20b%2Fc");
    }

    #[test]
    fn higher_levels_follow_the_rfc_examples() {
        // Level 2 (reserved) and level 3 (query with several variables).
        let vals = values(&[("path", s("/foo/bar")), ("x", s("1024")), ("y", s("768"))]);
        assert_eq!(
            expand("file://{+path}{?x,y}", &vals).expect("expands"),
            "file:///foo/bar?x=1024&y=768"
        );
        // Level 4 (explode of a list and of pairs).
        let vals = values(&[
            ("list", VarValue::List(vec!["red".into(), "green".into()])),
            (
                "keys",
                VarValue::Pairs(vec![
                    ("semi".into(), ";".into()),
                    ("dot".into(), ".".into()),
                ]),
            ),
        ]);
        assert_eq!(
            expand("s://h{/list*}{?keys*}", &vals).expect("expands"),
            "s://h/red/green?semi=%3B&dot=."
        );
        // A variable left out expands to nothing.
        assert_eq!(
            expand("s://h{?x,missing}", &values(&[("x", s("1"))])).expect("expands"),
            "s://h?x=1"
        );
    }

    #[test]
    fn variables_are_listed_once_in_order_and_unknown_names_are_refused() {
        assert_eq!(
            variables("s://{a}/{+b}{?a,c*}"),
            vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]
        );
        assert!(variables("s://{unclosed").is_empty());
        let err = expand("mem://doc/{id}", &values(&[("idd", s("1"))])).expect_err("typo");
        assert!(
            err.contains("no variable `idd`") && err.contains("id"),
            "{err}"
        );
        assert!(expand("s://{unclosed", &BTreeMap::new()).is_err());
    }

    #[test]
    fn json_values_become_strings_lists_or_pairs() {
        use serde_json::json;
        assert_eq!(VarValue::from_json(&json!(7)).expect("number"), s("7"));
        assert_eq!(
            VarValue::from_json(&json!(["a", 1])).expect("list"),
            VarValue::List(vec!["a".into(), "1".into()])
        );
        assert!(VarValue::from_json(&json!({"k": [1]})).is_err());
        assert!(VarValue::from_json(&json!(null)).is_err());
    }
}
