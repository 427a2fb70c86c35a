//! Session controls on a live connection: the server's log level and the roots-changed
//! notification.

use rmcp::model::ClientRequest;

use super::Connection;
use super::error;

impl Connection {
    /// Sends `logging/setLevel` when the server declared `logging`; a refusal is reported as
    /// a log event, never as a connection failure.
    #[allow(deprecated)]
    pub async fn set_log_level(&self, level: &str) -> Option<String> {
        if self.identity.capabilities.logging.is_none() {
            return Some("the server declared no logging".to_owned());
        }
        let Ok(params) = serde_json::from_value(serde_json::json!({ "level": level })) else {
            return Some(format!("`{level}` is not a log level"));
        };
        let request = ClientRequest::SetLevelRequest(rmcp::model::SetLevelRequest::new(params));
        self.request_default(request).await.err().map(|e| e.message)
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
