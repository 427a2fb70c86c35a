//! TOML read into the same positioned tree as JSON, so one set of checks and one diagnostic
//! format serve both (Codex keeps its servers in TOML).

use toml::Spanned as TomlSpanned;
use toml::de::{DeTable, DeValue};

use crate::mcp::config::json::{Json, Member, Spanned, SyntaxError};

/// Parses a TOML document into a positioned tree; duplicate keys are syntax errors in TOML.
pub(super) fn parse_toml(text: &str) -> Result<Spanned, SyntaxError> {
    let table = DeTable::parse(text).map_err(|e| SyntaxError {
        offset: e.span().map_or(0, |s| s.start),
        message: e.message().to_owned(),
    })?;
    let span = table.span();
    Ok(Spanned {
        value: Json::Object(members(table.get_ref())),
        start: span.start,
        end: span.end,
    })
}

fn members(table: &DeTable<'_>) -> Vec<Member> {
    let mut out: Vec<Member> = table
        .iter()
        .map(|(k, v)| Member {
            key: k.get_ref().to_string(),
            key_start: k.span().start,
            value: convert(v),
        })
        .collect();
    out.sort_by_key(|m| m.key_start);
    out
}

fn convert(value: &TomlSpanned<DeValue<'_>>) -> Spanned {
    let span = value.span();
    let json = match value.get_ref() {
        DeValue::String(s) => Json::String(s.to_string()),
        DeValue::Integer(i) => i64::from_str_radix(&i.as_str().replace('_', ""), i.radix())
            .map_or_else(
                |_| Json::String(i.as_str().to_owned()),
                |n| Json::Number(n.into()),
            ),
        DeValue::Float(f) => f
            .as_str()
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Json::String(f.as_str().to_owned()), Json::Number),
        DeValue::Boolean(b) => Json::Bool(*b),
        DeValue::Datetime(d) => Json::String(d.to_string()),
        DeValue::Array(items) => Json::Array(items.iter().map(convert).collect()),
        DeValue::Table(t) => Json::Object(members(t)),
    };
    Spanned {
        value: json,
        start: span.start,
        end: span.end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::json::LineIndex;

    #[test]
    fn keeps_positions_and_file_order() {
        let text = "[mcp_servers.b]\ncommand = \"x\"\n\n[mcp_servers.a]\nurl = \"https://h/mcp\"\nstartup_timeout_sec = 1_0\n";
        let root = parse_toml(text).expect("valid");
        let Json::Object(top) = &root.value else {
            panic!("table")
        };
        let Json::Object(servers) = &top[0].value.value else {
            panic!("table")
        };
        assert_eq!(servers[0].key, "b");
        assert_eq!(servers[1].key, "a");
        let index = LineIndex::new(text);
        assert_eq!(index.locate(text, servers[1].key_start).0, 4);
        let Json::Object(a) = &servers[1].value.value else {
            panic!("table")
        };
        assert_eq!(a[1].value.value, Json::Number(10.into()));
        let err = parse_toml("[a]\nx = 1\nx = 2\n").expect_err("duplicate key");
        assert_eq!(
            LineIndex::new("[a]\nx = 1\nx = 2\n")
                .locate("[a]\nx = 1\nx = 2\n", err.offset)
                .0,
            3
        );
    }
}
