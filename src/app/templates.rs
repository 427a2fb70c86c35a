//! Resource templates and reads by URI in the console. `Enter` on a template in the Resources
//! tab lists the server's templates (`resources/templates/list` on the operator's path, which
//! keeps the `uriTemplate` and its variables), then opens a form with one field per variable;
//! submitting expands it (RFC 6570, in the engine) and reads the resource. `u` opens a one-field
//! form that reads any URI. Both results show like a call's, and `c` fills the form again.

use serde_json::{Map, Value, json};

use super::form::{Form, Target};
use super::{App, Effect, ReqId, Screen, Waiter};
use crate::mcp::api::OpResult;
use crate::mcp::catalog::uri_template::VarValue;
use crate::mcp::engine::{EngineRequest, OperatorOp, Outcome};
use crate::mcp::sanitize::sanitize_capped;

/// The one-field form that reads a resource by URI on `server`.
pub(super) fn uri_form(server: &str) -> Form {
    let schema = json!({"type": "object", "required": ["uri"], "properties": {
        "uri": {"type": "string", "description": "the resource's URI, e.g. demo://resource/dynamic/text/1"}
    }});
    Form::new(server, Target::Uri, schema)
}

impl App {
    /// Lists the templates to build the variables form of `name`.
    pub(super) fn open_template(&mut self, server: String, name: &str) -> Vec<Effect> {
        let id = self.id(Waiter::Template(name.to_owned()));
        self.message = Some(format!("reading the template {name}…"));
        let request = EngineRequest::operator(server, OperatorOp::Templates);
        vec![Effect::Engine { id, request }]
    }

    /// The templates arrived: the variables form of `name` opens (when nothing else did).
    pub(super) fn on_template_listed(&mut self, name: &str, outcome: &Outcome) -> Vec<Effect> {
        if !matches!(self.screen, Screen::Browse) {
            return Vec::new();
        }
        let server = outcome.server.clone().unwrap_or_default();
        let found = match &outcome.body {
            Ok(s) => match &s.result {
                OpResult::Templates(list) => list
                    .templates
                    .iter()
                    .find(|t| sanitize_capped(&t.name, 256) == name)
                    .cloned(),
                _ => None,
            },
            Err(f) => {
                self.message = Some(format!(
                    "{}: {}",
                    sanitize_capped(f.class.name(), 64),
                    sanitize_capped(&f.message, 300)
                ));
                return Vec::new();
            }
        };
        let Some(template) = found else {
            self.message = Some(format!("the server no longer lists the template {name}"));
            return Vec::new();
        };
        let mut properties = Map::new();
        for var in &template.variables {
            properties.insert(
                var.clone(),
                json!({"type": "string", "description": format!("in {}", sanitize_capped(&template.uri_template, 256))}),
            );
        }
        let schema =
            json!({"type": "object", "properties": properties, "required": template.variables});
        self.message = None;
        let findings = self.findings(
            &server,
            crate::mcp::scan::Kind::ResourceTemplate,
            &template.name,
        );
        let mut form = Form::new(&server, Target::Template(template.name), schema);
        form.findings = findings;
        self.screen = Screen::Form(form);
        Vec::new()
    }

    /// Opens the form that reads a resource by URI on the selected server.
    pub(super) fn open_uri_form(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        self.screen = Screen::Form(uri_form(&server));
        Vec::new()
    }

    /// The engine request of a template or URI form, `None` for the other forms.
    pub(super) fn resource_effect(id: ReqId, form: &Form, value: &Value) -> Option<Effect> {
        let server = form.server.clone();
        match &form.target {
            Target::Template(name) => {
                let values = value
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                let v = match v {
                                    Value::String(s) => VarValue::String(s.clone()),
                                    Value::Array(items) => VarValue::List(
                                        items
                                            .iter()
                                            .map(|i| {
                                                i.as_str()
                                                    .map_or_else(|| i.to_string(), str::to_owned)
                                            })
                                            .collect(),
                                    ),
                                    other => VarValue::String(other.to_string()),
                                };
                                (k.clone(), v)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let template = name.clone();
                let op = OperatorOp::ReadTemplate { template, values };
                let request = EngineRequest::operator(server, op);
                Some(Effect::Engine { id, request })
            }
            Target::Uri => {
                let uri = value.get("uri").and_then(Value::as_str).unwrap_or_default();
                let op = OperatorOp::ReadUri {
                    uri: uri.to_owned(),
                };
                let request = EngineRequest::operator(server, op);
                Some(Effect::Engine { id, request })
            }
            _ => None,
        }
    }
}
