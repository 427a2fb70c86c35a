//! Tasks (2025-11-25) in the console: the call form's task switch (a tool whose task support
//! is `optional` runs as a task when the operator asks; one that requires it runs as one either
//! way, the engine sees to that), and the actions of the operator's client-side views.

use super::form::Target;
use super::keymap::Action;
use super::{App, Effect, Screen};

impl App {
    /// The actions of the client-side features; `None` when `action` is not one of them.
    pub(super) fn on_client_action(&mut self, action: Action) -> Option<Vec<Effect>> {
        match action {
            Action::TaskMode => {
                self.toggle_task_mode();
                Some(Vec::new())
            }
            _ => None,
        }
    }

    /// Switches the call form in front between a plain call and a task.
    fn toggle_task_mode(&mut self) {
        let (Screen::Form(form) | Screen::Raw(super::RawForm { form, .. })) = &mut self.screen
        else {
            return;
        };
        if !matches!(form.target, Target::Tool(_)) {
            self.message = Some("only a tool call runs as a task".to_owned());
            return;
        }
        form.as_task = !form.as_task;
        self.message = Some(if form.as_task {
            "runs as a task: polled until it ends; Esc sends tasks/cancel".to_owned()
        } else {
            "runs as a plain call (a tool that requires a task still runs as one)".to_owned()
        });
    }
}
