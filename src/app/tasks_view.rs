//! The Tasks view: the selected server's tasks (`tasks/list` on the console's own session),
//! each with its status, creation time and time to live. `Enter` fetches a task's result
//! (`tasks/result`, shown like a call's), `x` cancels one (`tasks/cancel`), `r` lists again.
//! Protocol 2026-07-28's tasks extension has no `tasks/list` and no `tasks/result`: there the
//! view lists the tasks this console started ([`SessionTasks`], kept from the engine's
//! `ConnectionEvent::Task` events: as created, then as each poll or push showed them), and `x`
//! still sends `tasks/cancel`. Drawn by `ui::tasks_view`; keys in the `tasks_view` keymap context.

use std::collections::BTreeMap;

use super::component::{Component, Update};
use super::keymap::Action;
use super::{App, Effect, Load, ReqId, Running, Screen, Waiter};
use crate::mcp::api::{OpResult, TaskInfo};
use crate::mcp::engine::{EngineRequest, OperatorOp, Outcome};
use crate::mcp::sanitize::sanitize_capped;

/// The Tasks view's state.
#[derive(Debug, Clone, PartialEq)]
pub struct TasksView {
    /// The server whose tasks are listed.
    pub server: String,
    /// The tasks (strings sanitised by the engine and again here).
    pub tasks: Load<Vec<TaskInfo>>,
    /// The selected row.
    pub sel: usize,
    /// The rows are the tasks this session started (the server's protocol has no `tasks/list`).
    pub known: bool,
}

/// The tasks of the tasks extension this console started, per server, in the order they
/// started, as the engine last reported each (strings sanitised).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionTasks(BTreeMap<String, Vec<KnownTask>>);

/// One task this console started.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownTask {
    /// As last polled (or pushed).
    pub task: TaskInfo,
    /// Why mcpdeck stopped following it before it ended.
    pub ended: Option<String>,
}

impl SessionTasks {
    /// Takes the engine's report of a task of `server`.
    pub fn seen(&mut self, server: &str, task: &TaskInfo, ended: Option<&str>) {
        let known = KnownTask {
            task: clean(task),
            ended: ended.map(|e| sanitize_capped(e, 300)),
        };
        let tasks = self.0.entry(server.to_owned()).or_default();
        match tasks
            .iter_mut()
            .find(|t| t.task.task_id == known.task.task_id)
        {
            Some(old) => *old = known,
            None => tasks.push(known),
        }
    }

    /// The rows of `server`'s tasks: a task no longer followed says so in its message.
    pub fn rows(&self, server: &str) -> Vec<TaskInfo> {
        let Some(tasks) = self.0.get(server) else {
            return Vec::new();
        };
        tasks
            .iter()
            .map(|t| {
                let mut row = t.task.clone();
                if let Some(ended) = &t.ended {
                    row.status_message = Some(match &row.status_message {
                        Some(m) => format!("no longer polled: {ended} (last: {m})"),
                        None => format!("no longer polled: {ended}"),
                    });
                }
                row
            })
            .collect()
    }
}

/// What the Tasks view asks of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TasksOut {
    /// `tasks/list` again.
    List,
    /// `tasks/cancel` for `task`.
    Cancel { server: String, task: String },
    /// `tasks/result` for `task`, shown like a call's result.
    Result { server: String, task: String },
    /// Say that the protocol has no `tasks/result` (a task's result shows on its call).
    NoResult,
}

impl TasksView {
    /// How many tasks are listed.
    fn rows(&self) -> usize {
        match &self.tasks {
            Load::Ready(t) => t.len(),
            _ => 0,
        }
    }

    /// The selected task's id, once listed.
    fn selected(&self) -> Option<String> {
        match &self.tasks {
            Load::Ready(t) => t.get(self.sel).map(|t| t.task_id.clone()),
            _ => None,
        }
    }
}

impl Component for TasksView {
    type Msg = Action;
    type Env<'a> = ();
    type Out = TasksOut;

    fn message(action: Action) -> Option<Action> {
        let own = matches!(action, Action::Reconnect | Action::Delete | Action::Open);
        let moves = matches!(action, Action::Up | Action::Down);
        (own || moves || matches!(action, Action::Back | Action::Quit)).then_some(action)
    }

    fn update(mut self, action: Action, (): &()) -> Update<Self> {
        let count = self.rows();
        match action {
            Action::Up => {
                self.sel = self.sel.saturating_sub(1);
                Update::stay(self)
            }
            Action::Down => {
                self.sel = (self.sel + 1).min(count.saturating_sub(1));
                Update::stay(self)
            }
            Action::Reconnect => Update::then(self, TasksOut::List),
            Action::Delete => match self.selected() {
                Some(task) => {
                    let server = self.server.clone();
                    Update::then(self, TasksOut::Cancel { server, task })
                }
                None => Update::stay(self),
            },
            Action::Open if self.known => Update::then(self, TasksOut::NoResult),
            Action::Open => match self.selected() {
                Some(task) => Update::close(Some(TasksOut::Result {
                    server: self.server,
                    task,
                })),
                None => Update::stay(self),
            },
            Action::Back | Action::Quit => Update::close(None),
            _ => Update::pass(self),
        }
    }
}

fn clean(t: &TaskInfo) -> TaskInfo {
    let text = |s: &Option<String>, n| s.as_deref().map(|s| sanitize_capped(s, n));
    TaskInfo {
        task_id: sanitize_capped(&t.task_id, 128),
        status: sanitize_capped(&t.status, 32),
        status_message: text(&t.status_message, 256),
        created_at: text(&t.created_at, 64),
        ttl_ms: t.ttl_ms,
        poll_interval_ms: t.poll_interval_ms,
        last_updated_at: text(&t.last_updated_at, 64),
    }
}

impl App {
    /// Opens the Tasks view for the selected server and lists its tasks.
    pub(super) fn open_tasks(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        self.tasks_view = Some(TasksView {
            server,
            tasks: Load::Idle,
            sel: 0,
            known: false,
        });
        self.list_tasks()
    }

    fn list_tasks(&mut self) -> Vec<Effect> {
        let Some(view) = &self.tasks_view else {
            return Vec::new();
        };
        let server = view.server.clone();
        let id = self.id(Waiter::Tasks);
        if let Some(view) = &mut self.tasks_view {
            view.tasks = Load::Loading(id);
        }
        operator(id, server, OperatorOp::TasksList)
    }

    /// A key while the Tasks view is in front: its keymap, and the global scroll keys and quit.
    pub(super) fn on_tasks_key(&mut self, key: crossterm::event::KeyEvent) -> Vec<Effect> {
        let scroll = |a| matches!(a, Action::Up | Action::Down | Action::Quit);
        let action = self.front_action(&key, scroll);
        action.map_or_else(Vec::new, |a| self.on_tasks_action(a))
    }

    /// An action while the Tasks view is open: its message, the update, then what it asks.
    pub(super) fn on_tasks_action(&mut self, action: Action) -> Vec<Effect> {
        // An action it does not take leaves it open (`y` copied nothing and closed it).
        let Some(msg) = TasksView::message(action) else {
            return Vec::new();
        };
        let Some(view) = self.tasks_view.take() else {
            return Vec::new();
        };
        let step = view.update(msg, &());
        self.tasks_view = step.next;
        match step.out {
            None => Vec::new(),
            Some(TasksOut::List) => self.list_tasks(),
            Some(TasksOut::Cancel { server, task }) => {
                let id = self.id(Waiter::Tasks);
                self.message = Some(format!("cancelling task {task}…"));
                operator(id, server, OperatorOp::TaskCancel { id: task })
            }
            Some(TasksOut::NoResult) => {
                self.message = Some(
                    "no tasks/result in protocol 2026-07-28: a task's result shows on the call \
                     that started it"
                        .to_owned(),
                );
                Vec::new()
            }
            Some(TasksOut::Result { server, task }) => {
                let id = self.id(Waiter::Run);
                self.screen = Screen::Running(Running::without_form(id, &server, self.now));
                operator(id, server, OperatorOp::TaskResult { id: task })
            }
        }
    }

    /// The engine's report of a task this console started: kept, and shown at once when the
    /// Tasks view lists that server's known tasks.
    pub(super) fn on_task_seen(&mut self, server: &str, task: &TaskInfo, ended: Option<&str>) {
        self.session_tasks.seen(server, task, ended);
        if let Some(view) = &mut self.tasks_view
            && view.known
            && view.server == server
        {
            view.tasks = Load::Ready(self.session_tasks.rows(server));
            view.sel = view.sel.min(view.rows().saturating_sub(1));
        }
    }

    /// A `tasks/list` or `tasks/cancel` answer for the Tasks view.
    pub(super) fn on_tasks_done(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        match &outcome.body {
            Ok(success) => match &success.result {
                OpResult::Tasks(list) => {
                    if let Some(view) = &mut self.tasks_view
                        && view.tasks.waits_for(id)
                    {
                        view.tasks = Load::Ready(list.tasks.iter().map(clean).collect());
                        view.sel = view.sel.min(list.tasks.len().saturating_sub(1));
                    }
                    Vec::new()
                }
                OpResult::Task(task) => {
                    let task = clean(task);
                    let status = task.status.replace('_', " ");
                    self.message = Some(format!("task {} {status}", task.task_id));
                    self.list_tasks()
                }
                _ => Vec::new(),
            },
            Err(f) => {
                let (class, message) = (
                    sanitize_capped(f.class.name(), 64),
                    sanitize_capped(&f.message, 300),
                );
                let no_list = matches!(f.class, crate::mcp::connection::ErrorClass::NotSupported);
                match &mut self.tasks_view {
                    Some(view) if view.tasks.waits_for(id) && no_list => {
                        view.known = true;
                        view.tasks = Load::Ready(self.session_tasks.rows(&view.server));
                        view.sel = view.sel.min(view.rows().saturating_sub(1));
                    }
                    Some(view) if view.tasks.waits_for(id) => {
                        view.tasks = Load::Failed(class, message);
                    }
                    _ => self.message = Some(format!("{class}: {message}")),
                }
                Vec::new()
            }
        }
    }
}

/// The one engine request the Tasks view sends: operation `op` on `server`, answered to `id`.
fn operator(id: ReqId, server: String, op: OperatorOp) -> Vec<Effect> {
    let request = EngineRequest::operator(server, op);
    vec![Effect::Engine { id, request }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testkit::{demo_app, operate as sent};

    fn listed(ids: &[&str]) -> TasksView {
        let task = |id: &&str| TaskInfo {
            task_id: (*id).into(),
            status: "working".into(),
            status_message: None,
            created_at: None,
            ttl_ms: None,
            poll_interval_ms: None,
            last_updated_at: None,
        };
        TasksView {
            server: "demo".into(),
            tasks: Load::Ready(ids.iter().map(task).collect()),
            sel: 0,
            known: false,
        }
    }

    #[test]
    fn update_moves_within_the_list_and_asks_for_the_selected_task() {
        let view = listed(&["a", "b"]);
        let down = view.update(Action::Down, &()).next.expect("open");
        let down = down.update(Action::Down, &()).next.expect("open");
        assert_eq!(down.sel, 1, "stops at the last task");
        let cancel = down.clone().update(Action::Delete, &());
        assert_eq!(
            cancel.out,
            Some(TasksOut::Cancel {
                server: "demo".into(),
                task: "b".into()
            })
        );
        assert!(cancel.next.is_some(), "cancelling keeps the view");
        let result = down.update(Action::Open, &());
        assert!(result.next.is_none(), "a result closes the view");
        assert!(matches!(result.out, Some(TasksOut::Result { task, .. }) if task == "b"));
    }

    #[test]
    fn update_with_nothing_listed_asks_nothing_and_copy_is_not_taken() {
        let view = listed(&[]);
        for msg in [Action::Delete, Action::Open, Action::Up] {
            let step = view.clone().update(msg, &());
            assert_eq!((step.next, step.out), (Some(view.clone()), None), "{msg:?}");
        }
        assert_eq!(
            view.clone().update(Action::Reconnect, &()).out,
            Some(TasksOut::List)
        );
        assert!(view.update(Action::Back, &()).next.is_none());
        assert!(
            !TasksView::offers(Action::Copy),
            "the footer never offers y copy here"
        );
    }

    #[test]
    fn the_view_lists_opens_and_cancels_the_selected_task() {
        let (mut app, _d) = demo_app();
        let (id, op) = sent(&app.open_tasks());
        assert_eq!(op, OperatorOp::TasksList);
        assert!(app.update(crate::app::testkit::ch('y')).is_empty());
        assert!(
            app.tasks_view.is_some(),
            "a key it does not take leaves it open"
        );
        let task = |id: &str| TaskInfo {
            task_id: id.into(),
            status: "working".into(),
            status_message: None,
            created_at: Some("2026-01-01T00:00:00Z".into()),
            ttl_ms: Some(60_000),
            poll_interval_ms: None,
            last_updated_at: None,
        };
        let outcome = Outcome {
            server: Some("demo".into()),
            operation: "tasks.list".into(),
            body: Ok(crate::mcp::engine::Success {
                result: OpResult::Tasks(crate::mcp::api::TaskList {
                    tasks: vec![task("a"), task("b\u{202e}")],
                }),
                text: String::new(),
                spills: Vec::new(),
            }),
        };
        app.on_tasks_done(id, &outcome);
        let view = app.tasks_view.as_ref().expect("view");
        let Load::Ready(tasks) = &view.tasks else {
            panic!("{view:?}")
        };
        assert!(!tasks[1].task_id.contains('\u{202e}'), "sanitised");
        app.on_tasks_action(Action::Down);
        let (_, cancel) = sent(&app.on_tasks_action(Action::Delete));
        assert!(
            matches!(cancel, OperatorOp::TaskCancel { .. }),
            "{cancel:?}"
        );
        let (_, open) = sent(&app.on_tasks_action(Action::Open));
        assert!(matches!(open, OperatorOp::TaskResult { .. }), "{open:?}");
        assert!(app.tasks_view.is_none());
        assert!(matches!(app.screen, Screen::Running(_)));
    }
}
