//! Tasks (2025-11-25) in the console: the call form's task switch (a tool whose task support
//! is `optional` runs as a task when the operator asks; one that requires it runs as one either
//! way, the engine sees to that).

use super::form::Target;
use super::{App, Effect, Screen};

impl App {
    /// Switches the call form in front between a plain call and a task.
    pub(super) fn toggle_task_mode(&mut self) -> Vec<Effect> {
        let (Screen::Form(form) | Screen::Raw(super::RawForm { form, .. })) = &mut self.screen
        else {
            return Vec::new();
        };
        if !matches!(form.target, Target::Tool(_)) {
            self.message = Some("only a tool call runs as a task".to_owned());
            return Vec::new();
        }
        form.as_task = !form.as_task;
        self.message = Some(if form.as_task {
            "runs as a task: polled until it ends; Esc sends tasks/cancel".to_owned()
        } else {
            "runs as a plain call (a tool that requires a task still runs as one)".to_owned()
        });
        Vec::new()
    }
}
