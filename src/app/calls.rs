//! A call's life before it runs: the tool's detail, the call form (and its raw JSON twin),
//! submitting it, and the request that starts it (a tool call or a prompt).

use super::form::{Form, Target};
use super::{App, Detail, Effect, Focus, Load, ReqId, Running, Screen, Tab, Waiter};
use super::{RawForm, ResultScreen};
use crate::mcp::proxy::ProxyRequest;

impl App {
    pub(super) fn open_detail(&mut self, server: String, tool: String, call: bool) -> Vec<Effect> {
        let id = self.id(Waiter::Detail);
        self.call_when_described = call;
        let drift = self.tool_drift(&server, &tool);
        let findings = self.findings(&server, crate::mcp::scan::Kind::Tool, &tool);
        self.screen = Screen::Detail(Detail {
            server: server.clone(),
            tool: tool.clone(),
            load: Load::Loading(id),
            scroll: 0,
            full_description: None,
            show_full: false,
            drift,
            findings,
        });
        vec![Effect::Engine {
            id,
            request: crate::mcp::EngineRequest::Agent(ProxyRequest::ToolsDescribe { server, tool }),
        }]
    }

    pub(super) fn on_call(&mut self) -> Vec<Effect> {
        match std::mem::replace(&mut self.screen, Screen::Browse) {
            Screen::Detail(d) => {
                if let Load::Ready(desc) = &d.load {
                    let schema = desc.input_schema.clone();
                    let compiled = desc.arguments.as_ref().map(|c| c.0.clone());
                    let target = Target::Tool(d.tool.clone());
                    let form = Form::with_arguments(&d.server, target, schema, compiled);
                    self.screen = Screen::Form(form.with_meta_field());
                    self.last_detail = Some(d);
                } else {
                    self.call_when_described = true;
                    self.screen = Screen::Detail(d);
                }
                Vec::new()
            }
            Screen::Result(ResultScreen {
                view,
                form: Some(form),
            }) => {
                drop(view);
                self.screen = Screen::Form(form);
                Vec::new()
            }
            Screen::Browse if self.tab == Tab::Tools && self.focus == Focus::Main => {
                let sel = self.pane().map_or(0, |p| p.tools.list.sel);
                let Some(tool) = self
                    .visible_tools()
                    .and_then(|t| t.get(sel))
                    .map(|t| t.name.clone())
                else {
                    return Vec::new();
                };
                let Some(server) = self.server().map(|s| s.name.clone()) else {
                    return Vec::new();
                };
                self.open_detail(server, tool, true)
            }
            Screen::Browse if self.tab == Tab::Prompts => {
                self.screen = Screen::Browse;
                self.on_open()
            }
            other => {
                self.screen = other;
                Vec::new()
            }
        }
    }

    pub(super) fn on_submit(&mut self) -> Vec<Effect> {
        let (form, value) = match std::mem::replace(&mut self.screen, Screen::Browse) {
            Screen::Form(mut form) => {
                // Both checked, so every error shows at once.
                let (value, meta) = (form.value(), form.meta());
                if let (Ok(v), Ok(_)) = (value, meta) {
                    (form, v)
                } else {
                    self.screen = Screen::Form(form);
                    return Vec::new();
                }
            }
            Screen::Raw(RawForm { mut form, area, .. }) => {
                let text = area.lines().join("\n");
                let error = match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(v) if v.is_object() => {
                        if form.validate(&v).is_ok() && form.meta().is_ok() {
                            form.fill(&v);
                            let args = v;
                            return self.start_call(form, &args);
                        }
                        form.errors.first().cloned().or_else(|| {
                            form.fields
                                .iter()
                                .find_map(|f| f.error.as_ref().map(|e| format!("{}: {e}", f.name)))
                        })
                    }
                    Ok(_) => Some("arguments must be a JSON object".to_owned()),
                    Err(e) => Some(format!("invalid JSON: {e}")),
                };
                self.screen = Screen::Raw(RawForm { form, area, error });
                return Vec::new();
            }
            other => {
                self.screen = other;
                return Vec::new();
            }
        };
        self.start_call(form, &value)
    }

    pub(super) fn start_call(&mut self, mut form: Form, value: &serde_json::Value) -> Vec<Effect> {
        let id = self.id(Waiter::Run);
        let Some(effect) = Self::resource_effect(id, &form, value)
            .or_else(|| Self::call_effect(id, &mut form, value))
        else {
            return Vec::new();
        };
        form.errors.clear();
        self.screen = Screen::Running(Running {
            id,
            form,
            started: self.now,
            progress: None,
            cancelling: false,
        });
        vec![effect]
    }

    /// The engine request a tool's or prompt's form runs (`None` for a resource's).
    fn call_effect(id: ReqId, form: &mut Form, value: &serde_json::Value) -> Option<Effect> {
        let server = form.server.clone();
        let request = match &form.target {
            Target::Template(_) | Target::Uri => return None,
            Target::Tool(tool) => ProxyRequest::ToolsCall {
                server,
                tool: tool.clone(),
                args: value.as_object().cloned().unwrap_or_default(),
            },
            Target::Prompt(prompt) => ProxyRequest::PromptsGet {
                server,
                prompt: prompt.clone(),
                arguments: value
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                (
                                    k.clone(),
                                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            },
        };
        // Checked on submit; nothing to attach when it does not parse.
        let meta = form.meta().unwrap_or_default();
        Some(match request {
            // A task or a call with `_meta` entries is the operator's call, with the form's
            // arguments as given.
            ProxyRequest::ToolsCall { server, tool, args } if form.as_task || !meta.is_empty() => {
                Effect::Engine {
                    id,
                    request: crate::mcp::EngineRequest::operator(
                        server,
                        crate::mcp::OperatorOp::Call {
                            tool,
                            args: crate::mcp::engine::CallArgs::Given(args),
                            options: crate::mcp::engine::CallOptions {
                                as_task: form.as_task,
                                meta,
                            },
                        },
                    ),
                }
            }
            request => Effect::Engine {
                id,
                request: crate::mcp::EngineRequest::Agent(request),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::arguments::compiles;
    use crate::mcp::catalog::ToolCatalog;

    /// The call form takes the argument types the catalog compiled for the tool: opening it
    /// twice (two descriptions of one catalog entry) compiles the schema once.
    #[test]
    fn opening_the_form_twice_compiles_the_arguments_once() {
        let (mut app, _d) = crate::app::testkit::demo_app();
        let schema =
            serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let tool: rmcp::model::Tool = serde_json::from_value(
            serde_json::json!({"name": "count", "description": "counts", "inputSchema": schema}),
        )
        .expect("a tool");
        let catalog = ToolCatalog::new(1, vec![tool]);
        let before = compiles();
        let mut forms = Vec::new();
        for _ in 0..2 {
            let desc = catalog.describe("count").expect("described");
            app.open_detail("demo".into(), "count".into(), false);
            let Screen::Detail(d) = &mut app.screen else {
                panic!("no detail");
            };
            d.load = Load::Ready(Box::new(super::super::model::clean_description(&desc)));
            app.on_call();
            let Screen::Form(form) = &app.screen else {
                panic!("no form");
            };
            forms.push(form.arguments.clone());
            app.screen = Screen::Browse;
        }
        assert_eq!(compiles() - before, 1, "compiled once for both forms");
        assert!(std::sync::Arc::ptr_eq(&forms[0], &forms[1]));
    }
}
