//! `lint --call`: each tool marked read-only (`readOnlyHint: true`) is called once with sample
//! arguments that satisfy its input schema, and what it returns is checked: a tool with an
//! `outputSchema` must return `structuredContent` that matches it. Tools not marked read-only
//! are never called. A call a 2026 server answers with a task (`resultType: "task"`) is
//! followed to its end as `call` follows it (`tasks/get` polls, input asked through the
//! operator's answers, `tasks/cancel` at the task timeout), and the task's result is what is
//! checked.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ServerResult, Tool,
};
use serde_json::Value;

use super::Level;
use super::probe::{MAX_CALLS, Probe};
use super::sample::sample_arguments;

impl Probe<'_> {
    /// Calls the read-only tools among `tools` (at most [`MAX_CALLS`]); how many were called.
    pub(super) async fn call_read_only(&mut self, tools: &[Tool]) -> usize {
        let mut called = 0;
        let read_only = tools
            .iter()
            .filter(|t| t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true));
        for tool in read_only.take(MAX_CALLS) {
            let subject = format!("tool {}", tool.name);
            let args = match sample_arguments(&tool.input_schema) {
                Ok(args) => args,
                Err(why) => {
                    self.find(
                        "call-failed",
                        Level::Note,
                        &subject,
                        format!("not called: {why}"),
                    );
                    continue;
                }
            };
            called += 1;
            let params = CallToolRequestParams::new(tool.name.clone()).with_arguments(args);
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            match self.request(request).await {
                Ok(ServerResult::CallToolResult(result)) => {
                    self.check_result(&subject, tool, &result);
                }
                Ok(ServerResult::CreateTaskResult(created)) => {
                    let followed = self
                        .conn
                        .follow_task(created.task, self.task_timeout, self.cancel, &|_| {})
                        .await;
                    match followed {
                        Ok(result) => self.check_result(&subject, tool, &result),
                        Err(e) => self.find(
                            "call-failed",
                            Level::Warning,
                            &subject,
                            format!("ran as a task, which failed: {e}"),
                        ),
                    }
                }
                Ok(_) => self.find(
                    "call-failed",
                    Level::Error,
                    &subject,
                    "tools/call answered with another result type".to_owned(),
                ),
                Err(e) => self.find("call-failed", Level::Warning, &subject, e.to_string()),
            }
        }
        called
    }

    /// What a call (or the task it ran as) returned: `isError` is noted, and the structured
    /// content is checked against the output schema.
    fn check_result(&mut self, subject: &str, tool: &Tool, result: &CallToolResult) {
        if result.is_error == Some(true) {
            let message = "answered sample arguments that satisfy its schema with isError";
            self.find("call-failed", Level::Note, subject, message.to_owned());
        } else {
            self.check_output(subject, tool, result.structured_content.as_ref());
        }
    }

    /// `output-schema`: structured content is there when an output schema is, and matches it.
    fn check_output(&mut self, subject: &str, tool: &Tool, structured: Option<&Value>) {
        let Some(schema) = &tool.output_schema else {
            return;
        };
        let Some(structured) = structured else {
            let message = "has an outputSchema but returned no structuredContent".to_owned();
            self.find("output-schema", Level::Error, subject, message);
            return;
        };
        let Ok(validator) = jsonschema::draft202012::new(&Value::Object((**schema).clone())) else {
            return; // `schema-compiles` already said so
        };
        let problems: Vec<String> = validator
            .iter_errors(structured)
            .take(3)
            .map(|e| format!("{e} at `{}`", e.instance_path()))
            .collect();
        if !problems.is_empty() {
            let message = format!(
                "structuredContent does not match the outputSchema: {}",
                problems.join("; ")
            );
            self.find("output-schema", Level::Error, subject, message);
        }
    }
}
