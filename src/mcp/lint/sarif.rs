//! SARIF 2.1.0 for code scanning: one run whose tool is mcpdeck with the lint's rules, and one
//! result per finding. A server has no source file, so each result's location is a logical
//! one: the server and the subject (`tool add`, `resources/list`).

use serde_json::{Value, json};

use super::{LintReport, RULES};

/// The report as a SARIF 2.1.0 log.
pub fn to_sarif(report: &LintReport) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, text)| json!({"id": id, "shortDescription": {"text": text}}))
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|(id, _)| *id == f.rule).unwrap_or(0),
                "level": f.level.name(),
                "message": {"text": format!("{}: {}", f.subject, f.message)},
                "locations": [{"logicalLocations": [{
                    "name": f.subject,
                    "fullyQualifiedName": format!("{}/{}", report.server, f.subject),
                    "kind": "member"
                }]}]
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcpdeck",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "properties": {"server": report.server, "protocolVersion": report.protocol_version},
            "results": results
        }]
    })
}
