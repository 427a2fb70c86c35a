//! Session controls over one server: ping (the round trip shows in the status line),
//! disconnect (that server only), its log level (`logging/setLevel`, stepped in the Log tab),
//! and resource subscriptions (from the Resources tab or an open read; an update of the open
//! resource reads it again). The Roots view is `app::roots_view`.

use std::collections::{BTreeMap, HashMap};

use super::roots_view::RootsView;
use super::{App, Effect, Focus, ReqId, Running, Screen, Tab, Waiter};
use crate::mcp::api::OpResult;
use crate::mcp::client::LOG_LEVELS;
use crate::mcp::engine::{EngineRequest, OperatorOp, Outcome};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::sanitize_capped;

/// A subscribed resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscribed {
    /// The opaque reference it is read by (empty when subscribed by URI).
    pub reference: String,
    /// `notifications/resources/updated` seen for it.
    pub updates: u64,
}

/// The session controls' state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionState {
    /// The log level asked of each server this session.
    pub levels: BTreeMap<String, String>,
    /// Subscribed resources per server, by URI.
    pub subscribed: BTreeMap<String, BTreeMap<String, Subscribed>>,
    /// The resource read last opened from the Resources tab: (server, reference).
    pub open_read: Option<(String, String)>,
    /// The Roots view, when open.
    pub roots: Option<RootsView>,
    /// Subscriptions asked and not yet answered: the reference each was asked with.
    pending: HashMap<ReqId, String>,
    /// The read started because its resource was updated: (id, URI).
    rereading: Option<(ReqId, String)>,
}

impl SessionState {
    /// Whether `reference` (on `server`) is subscribed, and its URI.
    pub fn subscription(&self, server: &str, reference: &str) -> Option<(&str, &Subscribed)> {
        self.subscribed
            .get(server)?
            .iter()
            .find(|(uri, s)| s.reference == reference || uri.as_str() == reference)
            .map(|(uri, s)| (uri.as_str(), s))
    }
}

/// The level one step from `now` (`info` when none was asked), within the protocol's eight.
fn step_level(now: Option<&str>, up: bool) -> &'static str {
    let at = now
        .and_then(|l| LOG_LEVELS.iter().position(|x| *x == l))
        .unwrap_or(1);
    let next = if up {
        (at + 1).min(LOG_LEVELS.len() - 1)
    } else {
        at.saturating_sub(1)
    };
    LOG_LEVELS[next]
}

impl App {
    /// Pings the selected server.
    pub(super) fn ping(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        self.message = Some(format!("pinging {server}…"));
        self.session_effect(server, OperatorOp::Ping)
    }

    /// Closes the selected server's connection.
    pub(super) fn disconnect(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        self.message = Some(format!("disconnecting {server}…"));
        self.session_effect(server, OperatorOp::Disconnect)
    }

    /// Opens the selected server's Roots view and asks for its roots.
    pub(super) fn open_roots(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let mut view = RootsView::new(&server);
        let effects = self.session_effect(server, OperatorOp::Roots);
        if let [Effect::Engine { id, .. }] = effects.as_slice() {
            view.roots = super::Load::Loading(*id);
        }
        self.session.roots = Some(view);
        effects
    }

    /// In the Log tab: asks the selected server for log messages from one level up (or down).
    pub(super) fn step_log_level(&mut self, up: bool) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        if self.tab != Tab::Log {
            return Vec::new();
        }
        let now = self.session.levels.get(&server).map(String::as_str);
        let level = step_level(now, up).to_owned();
        self.message = Some(format!("asking {server} for log messages from {level} up…"));
        self.session_effect(server, OperatorOp::SetLogLevel { level })
    }

    fn session_effect(&mut self, server: String, op: OperatorOp) -> Vec<Effect> {
        let id = self.id(Waiter::Session);
        vec![Effect::Engine {
            id,
            request: EngineRequest::Operator { server, op },
        }]
    }

    /// The mark of a subscribed resource of the selected server in the Resources tab:
    /// `◉ ` once subscribed, `◉ N updated ` after updates.
    pub fn subscription_mark(&self, reference: &str) -> Option<String> {
        let server = &self.server()?.name;
        let (_, sub) = self.session.subscription(server, reference)?;
        Some(if sub.updates == 0 {
            "◉ ".to_owned()
        } else {
            format!("◉ {} updated ", sub.updates)
        })
    }

    /// Remembers the resource a read from the Resources tab opens (an update re-reads it).
    pub(super) fn opened_resource(&mut self, server: &str, reference: &str) {
        self.session.open_read = Some((server.to_owned(), reference.to_owned()));
    }

    /// The open read's resource, when the result in front is one: (server, reference).
    fn shown_read(&self) -> Option<(String, String)> {
        let Screen::Result(result) = &self.screen else {
            return None;
        };
        let is_read = result.form.is_none() && result.view.title.starts_with("resources.read");
        self.session.open_read.clone().filter(|_| is_read)
    }

    /// Subscribes to (or unsubscribes from) the resource open in front, or the one selected in
    /// the Resources tab.
    pub(super) fn toggle_subscription(&mut self) -> Vec<Effect> {
        self.subscription_request().unwrap_or_default()
    }

    /// The subscription request `toggle_subscription` sends, if any.
    fn subscription_request(&mut self) -> Option<Vec<Effect>> {
        let (server, reference) = if let Some(found) = self.shown_read() {
            found
        } else {
            if !(matches!(self.screen, Screen::Browse)
                && self.focus == Focus::Main
                && self.tab == Tab::Resources)
            {
                return None;
            }
            let server = self.server()?.name.clone();
            let sel = self.pane()?.resources.list.sel;
            let entries = self.resource_entries();
            let Some(row) = entries.get(sel).filter(|r| !r.template) else {
                self.message = Some("a template cannot be subscribed to".to_owned());
                return Some(Vec::new());
            };
            (server, row.reference.clone())
        };
        let current = self
            .session
            .subscription(&server, &reference)
            .map(|(uri, _)| uri.to_owned());
        let id = self.id(Waiter::Session);
        self.session.pending.insert(id, reference.clone());
        let op = match current {
            Some(uri) => OperatorOp::Unsubscribe { uri },
            None => OperatorOp::Subscribe { uri: reference },
        };
        Some(vec![Effect::Engine {
            id,
            request: EngineRequest::Operator { server, op },
        }])
    }

    /// A session control's answer.
    pub(super) fn on_session_done(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        let reference = self.session.pending.remove(&id);
        let server = outcome.server.clone().unwrap_or_default();
        let success = match &outcome.body {
            Ok(success) => success,
            Err(f) => {
                let text = format!(
                    "{}: {}",
                    sanitize_capped(f.class.name(), 64),
                    sanitize_capped(&f.message, 300)
                );
                if let Some(view) = &mut self.session.roots
                    && view.roots.waits_for(id)
                {
                    view.roots = super::Load::Failed(
                        sanitize_capped(f.class.name(), 64),
                        sanitize_capped(&f.message, 300),
                    );
                }
                self.message = Some(text);
                return Vec::new();
            }
        };
        let name = sanitize_capped(&server, 128);
        let mut effects = Vec::new();
        let text = sanitize_capped(success.text.trim_end(), 1024).replace('\n', " · ");
        if !text.is_empty() {
            let line = super::LogLine {
                kind: "session",
                text,
                body: None,
                logger: None,
            };
            effects.extend(self.push_log(&server, line));
        }
        match &success.result {
            OpResult::Ping(ping) => {
                self.message = Some(format!("ping {name}: {:.1} ms round trip", ping.rtt_ms));
            }
            OpResult::Disconnected(d) => {
                self.message = Some(if d.was_connected {
                    format!("disconnected {name} (r connects again)")
                } else {
                    format!("{name} was not connected")
                });
                self.session.subscribed.remove(&server);
                if let Some(pane) = self.panes.get_mut(&server) {
                    pane.forget_catalogs();
                }
            }
            OpResult::Roots(list) => self.on_roots(id, &server, list),
            OpResult::LogLevel(set) => {
                let level = sanitize_capped(&set.level, 16);
                self.message = Some(format!("{name} sends log messages from {level} up"));
                self.session.levels.insert(server, level);
            }
            OpResult::Subscription(sub) => {
                let uri = sanitize_capped(&sub.uri, 512);
                let subs = self.session.subscribed.entry(server).or_default();
                if sub.subscribed {
                    subs.insert(
                        uri.clone(),
                        Subscribed {
                            reference: reference.unwrap_or_default(),
                            updates: 0,
                        },
                    );
                    self.message = Some(format!("subscribed to {uri}"));
                } else {
                    subs.remove(&uri);
                    self.message = Some(format!("unsubscribed from {uri}"));
                }
            }
            _ => {}
        }
        effects
    }

    /// The read an update started has its result in front: say why it changed.
    pub(super) fn on_reread(&mut self, id: ReqId) {
        match self.session.rereading.take() {
            Some((at, uri)) if at == id => {
                self.message = Some(format!("{uri} was updated: read again"));
            }
            other => self.session.rereading = other,
        }
    }

    /// `notifications/resources/updated`: counted; the open read of that resource is read
    /// again.
    pub(super) fn on_resource_updated(&mut self, server: &str, uri: &str) -> Vec<Effect> {
        let uri = sanitize_capped(uri, 512);
        let Some(sub) = self
            .session
            .subscribed
            .get_mut(server)
            .and_then(|s| s.get_mut(&uri))
        else {
            return Vec::new();
        };
        sub.updates += 1;
        let reference = sub.reference.clone();
        let open = self
            .shown_read()
            .is_some_and(|(s, r)| s == server && r == reference && !reference.is_empty());
        if !open {
            self.message = Some(format!("{uri} was updated"));
            return Vec::new();
        }
        self.message = Some(format!("{uri} was updated: reading it again"));
        let id = self.id(Waiter::Run);
        self.session.rereading = Some((id, uri));
        self.screen = Screen::Running(Running::without_form(id, server, self.now));
        vec![Effect::Engine {
            id,
            request: EngineRequest::Agent(ProxyRequest::ResourcesRead {
                server: server.to_owned(),
                reference,
            }),
        }]
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
