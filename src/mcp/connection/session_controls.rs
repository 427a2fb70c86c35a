//! Session controls on a live connection: the server's log level and the roots-changed
//! notification.

use rmcp::model::ClientRequest;

use super::Connection;
use super::error;

impl Connection {
    /// Sends `logging/setLevel` when the server declared `logging`; a refusal is reported as
    /// a log event, never as a connection failure. On a 2026 session, which has no
    /// `logging/setLevel`, the level is kept and every later request carries it in its `_meta`
    /// (`io.modelcontextprotocol/logLevel`), so each request's own log messages arrive.
    /// A 2026 server need not declare `logging` for that (its discover result often does not).
    #[allow(deprecated)]
    pub async fn set_log_level(&self, level: &str) -> Option<String> {
        if self.identity.capabilities.logging.is_none() && !self.is_modern() {
            return Some("the server declared no logging".to_owned());
        }
        let Ok(parsed) = serde_json::from_value::<rmcp::model::LoggingLevel>(
            serde_json::Value::String(level.to_owned()),
        ) else {
            return Some(format!("`{level}` is not a log level"));
        };
        if self.is_modern() {
            *self
                .log_level
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(parsed);
            return None;
        }
        let Ok(params) = serde_json::from_value(serde_json::json!({ "level": level })) else {
            return Some(format!("`{level}` is not a log level"));
        };
        let request = ClientRequest::SetLevelRequest(rmcp::model::SetLevelRequest::new(params));
        self.request_default(request).await.err().map(|e| e.message)
    }

    /// The level a 2026 request asks for in its `_meta`, if one was set.
    #[allow(deprecated)]
    pub(super) fn request_log_level(&self) -> Option<rmcp::model::LoggingLevel> {
        *self
            .log_level
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends `notifications/roots/list_changed` (the server may then ask `roots/list` again).
    #[allow(deprecated)]
    pub async fn notify_roots_changed(&self) -> Result<(), String> {
        self.service
            .peer()
            .notify_roots_list_changed()
            .await
            .map_err(|e| error::clean(&self.redactor, &e.to_string()))
    }
}
