//! Listening on a 2026-07-28 session, which has no `resources/subscribe` and sends no
//! unsolicited `list_changed` notifications: one `subscriptions/listen` request whose filter
//! names the list changes wanted (those the server declares `listChanged` for) and every
//! subscribed URI. rmcp checks the server's acknowledgement (the filter it accepted) and each
//! notification's `subscriptionId`; this module keeps what is wanted, re-issues the listen when
//! that changes (closing the old stream first: on HTTP closing it is the cancellation, on stdio
//! rmcp sends `notifications/cancelled`), forwards each notification as the connection's own
//! event (so every face hears it as it does on the older protocol), and listens again when the
//! stream drops without the server ending it. Nothing else is re-sent: a listen carries no
//! work to replay.

use std::collections::BTreeSet;
use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient, SubscriptionEnd};
use tokio_util::sync::CancellationToken;

use super::Connection;
use super::error::{ConnectError, ErrorClass, RequestError, classify_service};
use super::events::{ConnectionEvent, EventSink};

/// What the session listens for, and the token that stops the task holding the stream.
#[derive(Default)]
pub(super) struct Listening {
    wanted: Wanted,
    stop: Option<CancellationToken>,
}

/// The filter's contents: the list changes and the resource URIs.
#[derive(Clone, Default, PartialEq, Eq)]
struct Wanted {
    lists: Lists,
    uris: BTreeSet<String>,
}

/// Which `list_changed` notifications are listened for.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Lists {
    tools: bool,
    prompts: bool,
    resources: bool,
}

impl Wanted {
    fn is_empty(&self) -> bool {
        self.uris.is_empty() && self.lists == Lists::default()
    }

    fn filter(&self) -> SubscriptionFilter {
        let mut filter = SubscriptionFilter::new();
        let on = |b: bool| b.then_some(true);
        filter.tools_list_changed = on(self.lists.tools);
        filter.prompts_list_changed = on(self.lists.prompts);
        filter.resources_list_changed = on(self.lists.resources);
        if !self.uris.is_empty() {
            filter.resource_subscriptions = Some(self.uris.iter().cloned().collect());
        }
        filter
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.cancel();
        }
    }
}

/// How many times in a row a dropped stream is listened again before listening ends (a
/// re-listen the server acknowledges starts the count again; one it refuses ends it).
const RELISTENS: u32 = 3;

impl Connection {
    /// Adds (`subscribe`) or removes `uri` from the resources this 2026 session listens for,
    /// and listens again with the new filter (or stops listening when nothing is left). The new
    /// listen is acknowledged before this returns.
    pub async fn listen_resource(&self, uri: &str, subscribe: bool) -> Result<(), RequestError> {
        self.relisten(|wanted| {
            if subscribe {
                wanted.uris.insert(uri.to_owned());
            } else {
                wanted.uris.remove(uri);
            }
        })
        .await
    }

    /// Listens (`on`) or stops listening for the list changes this 2026 session's server
    /// declares (`listChanged` on tools, prompts or resources), alongside any subscribed
    /// resources; a server that declares none is not asked. The listen is acknowledged before
    /// this returns.
    pub async fn listen_lists(&self, on: bool) -> Result<(), RequestError> {
        let caps = &self.identity.capabilities;
        let declared = |d: Option<bool>| on && d.unwrap_or(false);
        let lists = Lists {
            tools: declared(caps.tools.as_ref().and_then(|t| t.list_changed)),
            prompts: declared(caps.prompts.as_ref().and_then(|p| p.list_changed)),
            resources: declared(caps.resources.as_ref().and_then(|r| r.list_changed)),
        };
        self.relisten(|wanted| wanted.lists = lists).await
    }

    /// On a 2026 session, listens for the list changes the server declares, for a face that
    /// keeps catalogs (the console, serve mode); a refusal is logged as a warning, since the
    /// catalogs then refresh only when asked. Nothing is sent on an older session, where the
    /// server sends its `list_changed` notifications unasked.
    pub(crate) async fn follow_list_changes(&self) {
        if !self.is_modern() {
            return;
        }
        let Err(e) = self.listen_lists(true).await else {
            return;
        };
        if let Ok(level) = serde_json::from_value(serde_json::json!("warning")) {
            self.sink.emit(ConnectionEvent::Log {
                level,
                logger: Some("mcpdeck".to_owned()),
                data: serde_json::Value::String(format!(
                    "subscriptions/listen for list changes: {}",
                    e.message
                )),
            });
        }
    }

    /// Applies `change` to what is listened for and, when that changed, closes the old stream
    /// and opens one with the new filter (none when nothing is wanted).
    async fn relisten(&self, change: impl FnOnce(&mut Wanted)) -> Result<(), RequestError> {
        let mut listening = self.listening.lock().await;
        let mut wanted = listening.wanted.clone();
        change(&mut wanted);
        let open = listening.stop.as_ref().is_some_and(|s| !s.is_cancelled());
        if wanted == listening.wanted && (wanted.is_empty() || open) {
            return Ok(());
        }
        if let Some(stop) = listening.stop.take() {
            stop.cancel();
        }
        if wanted.is_empty() {
            listening.wanted = wanted;
            return Ok(());
        }
        let filter = wanted.filter();
        let peer = self.service.peer().clone();
        let subscription = tokio::time::timeout(self.request_timeout, peer.listen(filter.clone()))
            .await
            .map_err(|_| {
                ConnectError::new(
                    ErrorClass::Timeout {
                        after_ms: u64::try_from(self.request_timeout.as_millis())
                            .unwrap_or(u64::MAX),
                    },
                    "the server did not acknowledge subscriptions/listen in time",
                )
            })?
            .map_err(|e| classify_service(&e, &self.redactor))?;
        let stop = CancellationToken::new();
        tokio::spawn(follow(
            peer,
            filter,
            subscription,
            self.sink.clone(),
            stop.clone(),
            self.request_timeout,
        ));
        listening.wanted = wanted;
        listening.stop = Some(stop);
        Ok(())
    }
}

/// Forwards the stream's notifications until `stop`, the server's end, or a drop it could not
/// listen through again; cancels `stop` when it ends on its own, so the next change listens
/// afresh.
async fn follow(
    peer: Peer<RoleClient>,
    filter: SubscriptionFilter,
    subscription: rmcp::service::Subscription,
    sink: EventSink,
    stop: CancellationToken,
    timeout: Duration,
) {
    follow_until_end(peer, filter, subscription, sink, stop.clone(), timeout).await;
    stop.cancel();
}

async fn follow_until_end(
    peer: Peer<RoleClient>,
    filter: SubscriptionFilter,
    mut subscription: rmcp::service::Subscription,
    sink: EventSink,
    stop: CancellationToken,
    timeout: Duration,
) {
    let mut relistens = 0;
    loop {
        let next = tokio::select! {
            () = stop.cancelled() => {
                let _ = subscription.cancel().await;
                return;
            }
            next = subscription.next() => next,
        };
        match next {
            Ok(Some(notification)) => {
                relistens = 0;
                forward(&sink, notification);
            }
            Ok(None) if matches!(subscription.end(), Some(SubscriptionEnd::Abrupt)) => {
                if relistens == RELISTENS || peer.is_transport_closed() {
                    return;
                }
                relistens += 1;
                let again = tokio::select! {
                    () = stop.cancelled() => return,
                    again = tokio::time::timeout(timeout, peer.listen(filter.clone())) => again,
                };
                let Ok(Ok(again)) = again else { return };
                subscription = again;
            }
            Ok(None) | Err(_) => return,
        }
    }
}

fn forward(sink: &EventSink, notification: ServerNotification) {
    let event = match notification {
        ServerNotification::ResourceUpdatedNotification(n) => {
            ConnectionEvent::ResourceUpdated { uri: n.params.uri }
        }
        ServerNotification::ResourceListChangedNotification(_) => {
            ConnectionEvent::ResourceListChanged
        }
        ServerNotification::ToolListChangedNotification(_) => ConnectionEvent::ToolListChanged,
        ServerNotification::PromptListChangedNotification(_) => ConnectionEvent::PromptListChanged,
        _ => return,
    };
    sink.emit(event);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_names_the_lists_and_the_uris_wanted() {
        let mut wanted = Wanted::default();
        assert!(wanted.is_empty());
        wanted.lists.tools = true;
        wanted.lists.resources = true;
        let filter = serde_json::to_value(wanted.filter()).expect("json");
        assert_eq!(
            filter,
            serde_json::json!({"toolsListChanged": true, "resourcesListChanged": true})
        );
        wanted.uris.insert("note://a".into());
        let filter = serde_json::to_value(wanted.filter()).expect("json");
        assert_eq!(
            filter["resourceSubscriptions"],
            serde_json::json!(["note://a"])
        );
        assert!(filter.get("promptsListChanged").is_none(), "{filter}");
    }
}
