//! What comes back from the engine: request results (matched to what waits for their id;
//! anything else is stale and dropped) and connection notifications (sanitised into the log).

use super::ResultScreen;
use super::form::Target;
use super::model::{clean_description, result_view};
use super::tools_tab::search_rows;
use super::{App, Effect, Focus, LOG_CAP, Load, LogLine, ReqId, Screen, Tab, Waiter};
use crate::mcp::api::OpResult;
use crate::mcp::connection::traffic::{BODY_CAP, Traffic};
use crate::mcp::connection::{ConnectionEvent, ErrorClass, ServerEvent};
use crate::mcp::engine::Outcome;
use crate::mcp::sanitize::sanitize_capped;

/// What a load becomes when its reply arrives: the typed value `pick` finds in the result, or
/// the failure. A successful reply of another shape is a contract error the engine never
/// makes; it shows as one rather than as an empty list.
pub(super) fn settle<T>(outcome: &Outcome, pick: impl FnOnce(&OpResult) -> Option<T>) -> Load<T> {
    let success = match &outcome.body {
        Ok(success) => success,
        Err(f) => {
            return Load::Failed(
                sanitize_capped(f.class.name(), 64),
                sanitize_capped(&f.message, 2048),
            );
        }
    };
    match pick(&success.result) {
        Some(value) => Load::Ready(value),
        None => Load::Failed(
            "unexpected_result".to_owned(),
            format!(
                "the engine answered `{}` with another result type",
                sanitize_capped(&outcome.operation, 128)
            ),
        ),
    }
}

impl App {
    pub(super) fn on_done(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        let mut effects = Vec::new();
        // A connection that could not be made is part of the server's story: it goes to the
        // Log tab too, not only to whatever asked.
        if let (Err(f), Some(server)) = (&outcome.body, &outcome.server)
            && f.class.is_connection()
        {
            let text = sanitize_capped(&format!("{}: {}", f.class.name(), f.message), 1024);
            let line = LogLine {
                kind: "failed",
                text,
                body: None,
                logger: None,
            };
            effects.extend(self.push_log(server, line));
        }
        // Nobody waits for it (the id was never ours): drop it.
        let Some(waiter) = self.waiting.remove(&id) else {
            return effects;
        };
        match waiter {
            Waiter::Reconnect => {
                self.message = Some(match &outcome.body {
                    Ok(_) => "reconnected".to_owned(),
                    Err(f) => format!(
                        "{}: {}",
                        sanitize_capped(f.class.name(), 64),
                        sanitize_capped(&f.message, 200)
                    ),
                });
                // A reconnect the operator's disconnect overtook leaves the server disconnected:
                // loading the tab again would connect it once more.
                let overtaken =
                    matches!(&outcome.body, Err(f) if matches!(f.class, ErrorClass::Cancelled));
                if !overtaken {
                    effects.extend(self.ensure_tab());
                }
            }
            Waiter::SideForm | Waiter::SideRun => {
                self.side_done(id, outcome);
            }
            Waiter::Tools(server) => {
                self.on_catalog(&Waiter::Tools(server.clone()), id, outcome);
                effects.extend(self.ask_costs(&server));
                effects.extend(self.ask_drift(&server));
                effects.extend(self.ask_scan(&server));
            }
            w @ (Waiter::Resources(_)
            | Waiter::Prompts(_)
            | Waiter::Skills(_)
            | Waiter::Search(_)) => {
                self.on_catalog(&w, id, outcome);
            }
            Waiter::Costs(server) => self.on_costs(&server, id, outcome),
            Waiter::Drift(server) => self.on_drift(&server, id, outcome),
            Waiter::Scan(server) => self.on_scan(&server, id, outcome),
            Waiter::Tasks => effects.extend(self.on_tasks_done(id, outcome)),
            Waiter::Template(name) => effects.extend(self.on_template_listed(&name, outcome)),
            Waiter::Detail => effects.extend(self.on_described(id, outcome)),
            Waiter::Run => {
                effects.extend(self.on_finished(id, outcome));
                self.on_reread(id);
            }
            Waiter::Session => effects.extend(self.on_session_done(id, outcome)),
            Waiter::Completion => effects.extend(self.on_completion_done(id, outcome)),
        }
        effects
    }

    /// A tab's catalog or the tool search arrived: it goes to the tab component that asked,
    /// when it still waits for this id.
    fn on_catalog(&mut self, waiter: &Waiter, id: ReqId, outcome: &Outcome) {
        let (Waiter::Tools(server)
        | Waiter::Resources(server)
        | Waiter::Prompts(server)
        | Waiter::Skills(server)
        | Waiter::Search(server)) = waiter
        else {
            return;
        };
        let Some(pane) = self.panes.get_mut(server) else {
            return;
        };
        match waiter {
            Waiter::Tools(_) => pane.tools.settle(id, outcome),
            Waiter::Resources(_) => pane.resources.settle(id, outcome),
            Waiter::Prompts(_) => pane.prompts.settle(id, outcome),
            Waiter::Skills(_) => pane.skills.settle(id, outcome),
            _ => {
                if let Some(search) = pane.tools.search.as_mut()
                    && search.results.waits_for(id)
                {
                    let mut total = 0;
                    search.results = settle(outcome, |r| match r {
                        OpResult::Search(found) => {
                            total = found.total;
                            Some(search_rows(found))
                        }
                        _ => None,
                    });
                    search.total = total;
                }
            }
        }
    }

    /// The detail screen's description arrived (dropped when the operator moved on).
    fn on_described(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        let Screen::Detail(d) = &mut self.screen else {
            return Vec::new();
        };
        if !d.load.waits_for(id) {
            return Vec::new();
        }
        d.load = settle(outcome, |r| match r {
            OpResult::Describe(desc) => Some(Box::new(clean_description(desc))),
            _ => None,
        });
        d.full_description = outcome
            .body
            .as_ref()
            .ok()
            .and_then(|s| match &s.result {
                OpResult::Describe(desc) => desc.description.as_deref(),
                _ => None,
            })
            .map(crate::mcp::sanitize::sanitize)
            .filter(|s| s.len() > super::model::DESCRIPTION_CAP)
            .map(std::borrow::Cow::into_owned);
        if std::mem::take(&mut self.call_when_described) && matches!(d.load, Load::Ready(_)) {
            return self.on_call();
        }
        Vec::new()
    }

    /// A call, read or prompt finished: its result replaces the running screen.
    fn on_finished(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        if !matches!(&self.screen, Screen::Running(run) if run.id == id) {
            return Vec::new();
        }
        let Screen::Running(run) = std::mem::replace(&mut self.screen, Screen::Browse) else {
            return Vec::new();
        };
        let mut view = result_view(outcome);
        if let Some((class, message)) = &mut view.error {
            *message = self.failure_words(outcome.server.as_deref(), class, message);
        }
        let mut effects = Vec::new();
        if !view.spills.is_empty() {
            effects.push(Effect::RefreshSpills);
        }
        let form =
            (matches!(&run.form.target, Target::Tool(t) | Target::Prompt(t) if !t.is_empty())
                || matches!(&run.form.target, Target::Template(_) | Target::Uri))
            .then_some(run.form);
        self.screen = Screen::Result(ResultScreen {
            view: Box::new(view),
            form,
        });
        // What the call made stale goes; what the operator decided meanwhile stays.
        if self.message_kept.take() != self.message {
            self.message = None;
        }
        self.announce_links();
        effects
    }

    pub(super) fn on_event(&mut self, event: &ServerEvent) -> Vec<Effect> {
        let (kind, text, stale) = match &event.event {
            ConnectionEvent::Progress {
                progress,
                total,
                message,
                ..
            } => self.on_progress(&event.server, *progress, *total, message.as_deref()),
            ConnectionEvent::Log {
                level,
                logger,
                data,
            } => return self.on_server_log(&event.server, *level, logger.as_deref(), data),
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
            ConnectionEvent::ElicitationComplete { id } => {
                return self.on_elicitation_complete(&event.server, id);
            }
            ConnectionEvent::Traffic(t) => {
                let (kind, text, body) = traffic_line(t);
                let line = LogLine {
                    kind,
                    text,
                    body,
                    logger: None,
                };
                return self.push_log(&event.server, line);
            }
            ConnectionEvent::Task { task, ended } => {
                self.on_task_seen(&event.server, task, ended.as_deref());
                return Vec::new();
            }
        };
        let mut effects = self.push_log(
            &event.server,
            LogLine {
                kind,
                text,
                body: None,
                logger: None,
            },
        );
        if let ConnectionEvent::ResourceUpdated { uri } = &event.event {
            effects.extend(self.on_resource_updated(&event.server, uri));
        }
        let Some(pane) = self.panes.get_mut(&*event.server) else {
            return effects;
        };
        match stale {
            Some(Tab::Tools) => pane.tools.catalog = None,
            Some(Tab::Resources) => pane.resources.catalog = None,
            Some(Tab::Prompts) => pane.prompts.catalog = None,
            _ => {}
        }
        if stale.is_some() && self.focus == Focus::Main {
            effects.extend(self.ensure_tab());
        }
        effects
    }

    /// A progress report: the running call's bar, and the Log tab's line.
    fn on_progress(
        &mut self,
        server: &str,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> (&'static str, String, Option<Tab>) {
        let message = message.map(|m| sanitize_capped(m, 256));
        if let Screen::Running(run) = &mut self.screen
            && run.form.server == server
        {
            run.progress = Some(super::Progress {
                done: progress,
                total,
                message: message.clone(),
            });
        }
        let total = total.map(|t| format!("/{t}")).unwrap_or_default();
        (
            "progress",
            format!("{progress}{total} {}", message.unwrap_or_default()),
            None,
        )
    }

    /// Appends a log line (bounded); while that server's Log tab shows, its stderr is read
    /// again, at most once a second.
    pub(super) fn push_log(&mut self, server: &str, line: LogLine) -> Vec<Effect> {
        let showing = self.tab == Tab::Log && self.server().is_some_and(|s| s.name == server);
        let now = self.now;
        let Some(pane) = self.panes.get_mut(server) else {
            return Vec::new();
        };
        let log = &mut pane.log;
        log.lines.push_back(line);
        while log.lines.len() > LOG_CAP {
            log.lines.pop_front();
        }
        let due = log
            .stderr_asked
            .is_none_or(|at| now.saturating_duration_since(at) >= STDERR_REFRESH);
        if showing && due {
            log.stderr_asked = Some(now);
            return vec![Effect::ReadStderr(server.to_owned())];
        }
        Vec::new()
    }
}

/// How often the Log tab re-reads a server's stderr while traffic arrives.
const STDERR_REFRESH: std::time::Duration = std::time::Duration::from_secs(1);

/// A traffic record as a log line: direction, summary (kind, method, id, size, latency), body.
fn traffic_line(t: &Traffic) -> (&'static str, String, Option<String>) {
    use std::fmt::Write as _;
    let kind = if t.outgoing { "→ sent" } else { "← recv" };
    let mut text = t.kind.to_owned();
    if let Some(m) = &t.method {
        text.push(' ');
        text.push_str(&sanitize_capped(m, 128));
    }
    if let Some(id) = &t.id {
        let _ = write!(text, " #{}", sanitize_capped(id, 64));
    }
    let _ = write!(text, " · {}", human_bytes(t.bytes));
    if let Some(l) = t.latency {
        let _ = write!(text, " · {:.1} ms", l.as_secs_f64() * 1000.0);
    }
    (kind, text, Some(sanitize_capped(&t.body, 2 * BODY_CAP)))
}

fn human_bytes(n: usize) -> String {
    #[allow(clippy::cast_precision_loss)]
    let kib = n as f64 / 1024.0;
    if n < 1024 {
        format!("{n} B")
    } else if kib < 1024.0 {
        format!("{kib:.1} KiB")
    } else {
        format!("{:.1} MiB", kib / 1024.0)
    }
}

impl App {
    /// A server log message: its level as the line's kind, its logger kept apart for colour.
    #[allow(deprecated)]
    fn on_server_log(
        &mut self,
        server: &str,
        level: rmcp::model::LoggingLevel,
        logger: Option<&str>,
        data: &serde_json::Value,
    ) -> Vec<Effect> {
        let word = level_word(level);
        let kind = crate::mcp::client::LOG_LEVELS
            .iter()
            .find(|l| **l == word)
            .copied()
            .unwrap_or("log");
        let data = data
            .as_str()
            .map_or_else(|| data.to_string(), str::to_owned);
        let logger = logger.map(|l| sanitize_capped(l, 64).replace(['\n', '\r'], " "));
        let prefix = logger
            .as_deref()
            .map(|l| format!("{l}: "))
            .unwrap_or_default();
        let text = sanitize_capped(&format!("{prefix}{data}"), 1024);
        self.push_log(
            server,
            LogLine {
                kind,
                text,
                body: None,
                logger,
            },
        )
    }
}

/// A logging level as the protocol writes it (`error`, `warning`), never its Rust name.
#[allow(deprecated)]
fn level_word(level: rmcp::model::LoggingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
