//! What comes back from the engine: request results (matched to what waits for their id;
//! anything else is stale and dropped) and connection notifications (sanitised into the log).

use super::form::Target;
use super::model::{clean_json, prompt_rows, resource_rows, result_view, search_rows, tool_rows};
use super::{App, Effect, Focus, LOG_CAP, Load, LogLine, ReqId, Screen, Tab};
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::engine::Outcome;
use crate::mcp::sanitize::sanitize_capped;

impl App {
    pub(super) fn on_done(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        let mut effects = vec![Effect::RefreshStatus];
        if let Some(at) = self.reconnects.iter().position(|r| *r == id) {
            self.reconnects.remove(at);
            self.message = Some(match &outcome.body {
                Ok(_) => "reconnected".to_owned(),
                Err(f) => format!(
                    "{}: {}",
                    sanitize_capped(&f.class, 64),
                    sanitize_capped(&f.message, 200)
                ),
            });
            effects.extend(self.ensure_tab());
            return effects;
        }
        if self.side_done(id, outcome) {
            return effects;
        }
        let failed = |o: &Outcome| match &o.body {
            Err(f) => Some((
                sanitize_capped(&f.class, 64),
                sanitize_capped(&f.message, 2048),
            )),
            Ok(_) => None,
        };
        let result = |o: &Outcome| {
            o.body
                .as_ref()
                .map(|s| s.result.clone())
                .unwrap_or_default()
        };
        for pane in self.panes.values_mut() {
            if pane.tools.as_ref().is_some_and(|l| l.waits_for(id)) {
                pane.tools = Some(match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(tool_rows(&result(outcome))),
                });
                return effects;
            }
            if pane.resources.as_ref().is_some_and(|l| l.waits_for(id)) {
                pane.resources = Some(match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(resource_rows(&result(outcome))),
                });
                return effects;
            }
            if pane.prompts.as_ref().is_some_and(|l| l.waits_for(id)) {
                pane.prompts = Some(match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(prompt_rows(&result(outcome))),
                });
                return effects;
            }
            if let Some(search) = pane.search.as_mut()
                && search.results.waits_for(id)
            {
                search.results = match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(search_rows(&result(outcome))),
                };
                return effects;
            }
        }
        match &mut self.screen {
            Screen::Detail(d) if d.load.waits_for(id) => {
                d.load = match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(clean_json(&result(outcome))),
                };
                if std::mem::take(&mut self.call_when_described) && matches!(d.load, Load::Ready(_))
                {
                    effects.extend(self.on_call());
                }
            }
            Screen::Running(run) if run.id == id => {
                let view = result_view(outcome);
                let Screen::Running(run) = std::mem::replace(&mut self.screen, Screen::Browse)
                else {
                    return effects;
                };
                if !view.spills.is_empty() {
                    effects.push(Effect::RefreshSpills);
                }
                let form = matches!(&run.form.target, Target::Tool(t) | Target::Prompt(t) if !t.is_empty())
                    .then_some(run.form);
                self.screen = Screen::Result(Box::new(view), form);
                self.message = None;
            }
            // Stale: the operator moved on; the result is dropped.
            _ => {}
        }
        effects
    }

    pub(super) fn on_event(&mut self, event: &ServerEvent) -> Vec<Effect> {
        let server = sanitize_capped(&event.server, 128);
        let (kind, text, stale) = match &event.event {
            ConnectionEvent::Progress {
                progress,
                total,
                message,
                ..
            } => {
                let message = message.as_deref().map(|m| sanitize_capped(m, 256));
                if let Screen::Running(run) = &mut self.screen
                    && run.form.server == *event.server
                {
                    run.progress = Some((*progress, *total, message.clone()));
                }
                let total = total.map(|t| format!("/{t}")).unwrap_or_default();
                (
                    "progress",
                    format!("{progress}{total} {}", message.unwrap_or_default()),
                    None,
                )
            }
            ConnectionEvent::Log {
                level,
                logger,
                data,
            } => {
                let data = data
                    .as_str()
                    .map_or_else(|| data.to_string(), str::to_owned);
                let logger = logger
                    .as_deref()
                    .map(|l| format!("{l}: "))
                    .unwrap_or_default();
                (
                    "log",
                    sanitize_capped(&format!("{level:?} {logger}{data}"), 1024),
                    None,
                )
            }
            ConnectionEvent::ToolListChanged => {
                ("changed", "tools/list_changed".to_owned(), Some(Tab::Tools))
            }
            ConnectionEvent::ResourceListChanged => (
                "changed",
                "resources/list_changed".to_owned(),
                Some(Tab::Resources),
            ),
            ConnectionEvent::PromptListChanged => (
                "changed",
                "prompts/list_changed".to_owned(),
                Some(Tab::Prompts),
            ),
            ConnectionEvent::ResourceUpdated { uri } => {
                ("updated", sanitize_capped(uri, 512), None)
            }
            ConnectionEvent::Exited { status } => ("exited", sanitize_capped(status, 256), None),
        };
        let Some(pane) = self.panes.get_mut(&*event.server) else {
            return Vec::new();
        };
        pane.log.push_back(LogLine { kind, text });
        while pane.log.len() > LOG_CAP {
            pane.log.pop_front();
        }
        match stale {
            Some(Tab::Tools) => pane.tools = None,
            Some(Tab::Resources) => pane.resources = None,
            Some(Tab::Prompts) => pane.prompts = None,
            _ => {}
        }
        let exited = kind == "exited";
        let _ = server;
        let mut effects = Vec::new();
        if stale.is_some() && self.focus == Focus::Main {
            effects.extend(self.ensure_tab());
        }
        if exited {
            effects.push(Effect::RefreshStatus);
        }
        effects
    }
}
