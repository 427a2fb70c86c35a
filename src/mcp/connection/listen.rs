//! Resource subscriptions on a 2026-07-28 session, which has no `resources/subscribe`: one
//! `subscriptions/listen` request whose filter names every subscribed URI. rmcp checks the
//! server's acknowledgement (the filter it accepted) and each notification's `subscriptionId`;
//! this module keeps the set of URIs, re-issues the listen when the set changes (closing the old
//! stream first: on HTTP closing it is the cancellation, on stdio rmcp sends
//! `notifications/cancelled`), forwards each update as the connection's own event (so every face
//! hears it as it does on the older protocol), and listens again once when the stream drops
//! without the server ending it. Nothing else is re-sent: a listen carries no work to replay.

use std::collections::BTreeSet;
use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient, SubscriptionEnd};
use tokio_util::sync::CancellationToken;

use super::Connection;
use super::error::{ConnectError, ErrorClass, RequestError, classify_service};
use super::events::{ConnectionEvent, EventSink};

/// The URIs listened for and the task that holds the stream.
#[derive(Default)]
pub(super) struct Listening {
    uris: BTreeSet<String>,
    stop: Option<CancellationToken>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.cancel();
        }
    }
}

/// How many times a dropped stream is listened again before the subscriptions end (each
/// re-listen happens only after one was acknowledged, so a server that refuses stops it).
const RELISTENS: u32 = 3;

impl Connection {
    /// Adds (`subscribe`) or removes `uri` from the resources this 2026 session listens for,
    /// and listens again with the new filter (or stops listening when none is left). The new
    /// listen is acknowledged before this returns.
    pub async fn listen_resource(&self, uri: &str, subscribe: bool) -> Result<(), RequestError> {
        let mut listening = self.listening.lock().await;
        let mut uris = listening.uris.clone();
        if subscribe {
            uris.insert(uri.to_owned());
        } else {
            uris.remove(uri);
        }
        if let Some(stop) = listening.stop.take() {
            stop.cancel();
        }
        if uris.is_empty() {
            listening.uris = uris;
            return Ok(());
        }
        let filter = filter_of(&uris);
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
        listening.uris = uris;
        listening.stop = Some(stop);
        Ok(())
    }
}

fn filter_of(uris: &BTreeSet<String>) -> SubscriptionFilter {
    let mut filter = SubscriptionFilter::new();
    filter.resource_subscriptions = Some(uris.iter().cloned().collect());
    filter
}

/// Forwards the stream's notifications until `stop`, the server's end, or a drop it could not
/// listen through again.
async fn follow(
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
            Ok(Some(notification)) => forward(&sink, notification),
            Ok(None) if matches!(subscription.end(), Some(SubscriptionEnd::Abrupt)) => {
                if relistens == RELISTENS {
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
