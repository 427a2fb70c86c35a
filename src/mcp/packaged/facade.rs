//! Tool facades: one fixed tool over one packaged server, with a closed JSON Schema per
//! operation.
//!
//! A facade is data. Its operations name the remote tool they call; callers supply only the
//! operation's fields, so they can never choose another server, tool, command, header or
//! environment value. Checking a facade and compiling its schemas happens at registration
//! ([`super::PackagedRegistry::register_facade`]); validating a call happens in
//! [`super::PackagedRegistry::call`].

use serde_json::{Map, Value};

/// One fixed tool over one packaged server.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFacade {
    /// The facade's name (a valid server name).
    pub name: String,
    /// What it does, for people and agents.
    pub description: String,
    /// The packaged server it calls; must be registered before the facade.
    pub server: String,
    /// Its operations, each with a closed input schema.
    pub operations: Vec<FacadeOperation>,
}

/// One operation of a facade: a fixed remote tool and the fields a caller may supply.
#[derive(Debug, Clone, PartialEq)]
pub struct FacadeOperation {
    /// The operation's name, unique within the facade.
    pub name: String,
    /// The remote tool it calls on the facade's server.
    pub remote_tool: String,
    /// JSON Schema of each accepted field (the `properties` of a closed object schema).
    pub fields: Map<String, Value>,
    /// Fields that must be present.
    pub required: Vec<String>,
}

/// A validated facade call: exactly what to send, to exactly which server.
#[derive(Debug, Clone, PartialEq)]
pub struct FacadeCall {
    /// The packaged server to call (fixed by the facade).
    pub server: String,
    /// The remote tool (fixed by the operation).
    pub remote_tool: String,
    /// The caller's arguments, valid against the operation's schema.
    pub arguments: Map<String, Value>,
}

impl FacadeOperation {
    /// The operation's closed input schema (JSON Schema 2020-12).
    pub fn input_schema(&self) -> Value {
        serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": self.fields,
            "required": self.required,
            "additionalProperties": false,
        })
    }

    /// Why this operation is malformed, if it is.
    pub(super) fn problem(&self) -> Option<String> {
        if !is_valid_identifier(&self.name) {
            return Some(format!("`{}` is not a valid operation name", self.name));
        }
        if self.remote_tool.trim().is_empty() {
            return Some(format!("operation `{}` has no remote tool", self.name));
        }
        if let Some((field, _)) = self.fields.iter().find(|(_, s)| !s.is_object()) {
            return Some(format!(
                "operation `{}`: the schema of field `{field}` is not an object",
                self.name
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for field in &self.required {
            if !self.fields.contains_key(field) {
                return Some(format!(
                    "operation `{}`: required field `{field}` is not among its fields",
                    self.name
                ));
            }
            if !seen.insert(field) {
                return Some(format!(
                    "operation `{}`: field `{field}` is required twice",
                    self.name
                ));
            }
        }
        None
    }
}

/// `[A-Za-z0-9][A-Za-z0-9._-]*`, 1–64 characters (the server-name rule).
pub(super) fn is_valid_identifier(name: &str) -> bool {
    crate::mcp::config::schema::is_valid_server_name(name)
}

/// Validates `arguments` with `validator`; every error as `path: message`, at most eight.
pub(super) fn check_arguments(validator: &jsonschema::Validator, arguments: &Value) -> Vec<String> {
    validator
        .iter_errors(arguments)
        .take(8)
        .map(|e| {
            let path = e.instance_path().to_string();
            let path = if path.is_empty() {
                "/".to_owned()
            } else {
                path
            };
            format!("{path}: {e}")
        })
        .collect()
}
