//! A YAML document as JSON, for a skill's front matter: mappings, sequences and scalars with
//! the core schema's plain-scalar types (null, booleans, integers, floats). Aliases and
//! non-string keys are refused rather than guessed at.

use saphyr_parser::{Event, Parser, ScalarStyle};
use serde_json::{Map, Number, Value};

/// The first document of `text` (empty: an empty mapping).
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    let mut events = Vec::new();
    for event in Parser::new_from_str(text) {
        let (event, _) = event.map_err(|e| format!("it is not YAML: {e}"))?;
        events.push(event);
    }
    let mut iter = events.into_iter().filter(|e| {
        !matches!(
            e,
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing
        )
    });
    match iter.next() {
        None | Some(Event::StreamEnd | Event::DocumentEnd) => Ok(Value::Object(Map::new())),
        Some(first) => node(first, &mut iter, 0),
    }
}

/// Nesting deeper than this is refused (front matter is shallow).
const MAX_DEPTH: usize = 32;

fn node<'a>(
    event: Event<'a>,
    rest: &mut impl Iterator<Item = Event<'a>>,
    depth: usize,
) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err("it nests too deeply".to_owned());
    }
    match event {
        Event::Scalar(text, style, _, _) => Ok(scalar(&text, style)),
        Event::SequenceStart(..) => {
            let mut items = Vec::new();
            loop {
                match rest.next() {
                    Some(Event::SequenceEnd) => return Ok(Value::Array(items)),
                    Some(e) => items.push(node(e, rest, depth + 1)?),
                    None => return Err("a sequence is not closed".to_owned()),
                }
            }
        }
        Event::MappingStart(..) => {
            let mut map = Map::new();
            loop {
                let key = match rest.next() {
                    Some(Event::MappingEnd) => return Ok(Value::Object(map)),
                    Some(Event::Scalar(text, ..)) => text.into_owned(),
                    Some(_) => return Err("a key is not a string".to_owned()),
                    None => return Err("a mapping is not closed".to_owned()),
                };
                let value = rest.next().ok_or("a key has no value")?;
                map.insert(key, node(value, rest, depth + 1)?);
            }
        }
        Event::Alias(_) => Err("it uses an alias".to_owned()),
        _ => Err("it has an unexpected structure".to_owned()),
    }
}

/// A plain scalar typed by the core schema; a quoted or block one is a string.
fn scalar(text: &str, style: ScalarStyle) -> Value {
    if style != ScalarStyle::Plain {
        return Value::String(text.to_owned());
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Ok(n) = text.parse::<i64>() {
        return Value::Number(n.into());
    }
    if text.contains(['.', 'e', 'E'])
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64)
    {
        return Value::Number(n);
    }
    Value::String(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_typed_by_the_core_schema() {
        let v = parse("a: 1\nb: 1.5\nc: true\nd: ~\ne: '1'\nf: text here\n").expect("yaml");
        assert_eq!(
            v,
            serde_json::json!({"a": 1, "b": 1.5, "c": true, "d": null, "e": "1", "f": "text here"})
        );
    }

    #[test]
    fn aliases_and_broken_yaml_are_refused() {
        assert!(parse("a: &x 1\nb: *x\n").is_err());
        assert!(parse("a: [1, 2\n").is_err());
    }
}
