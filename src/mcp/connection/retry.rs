//! Connection attempt series with bounded, jittered exponential backoff.
//!
//! Owns only the *connect* side of reconnecting: a series of at most `max_attempts` fresh
//! connection attempts (references re-resolved each time, a new process or HTTP client each
//! time), stopping early on failures that another attempt cannot fix, and interrupted at once by
//! cancellation. It never re-sends a request: the request that failed has already returned its
//! failure to its caller.

use std::path::Path;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{ConnectError, Connection, ErrorClass, ServerEvent, connect_client};
use crate::mcp::config::{ReconnectPolicy, ServerDef};

/// The longest single backoff delay.
const MAX_DELAY: Duration = Duration::from_secs(10);

/// Whether another attempt could succeed where this one failed.
pub(crate) fn is_transient(class: &ErrorClass) -> bool {
    match class {
        ErrorClass::Refused | ErrorClass::Timeout { .. } | ErrorClass::Exited { .. } => true,
        ErrorClass::HttpStatus { code } => *code == 429 || *code >= 500,
        _ => false,
    }
}

/// The delay before attempt `attempt + 1` (0-based `attempt` that just failed):
/// `base × 2^attempt`, plus up to 25 % jitter, at most 10 s.
pub(crate) fn backoff_delay(base: Duration, attempt: u32, jitter_seed: u32) -> Duration {
    let exp = base.saturating_mul(1u32 << attempt.min(16));
    let jitter = exp.mul_f64(f64::from(jitter_seed % 1000) / 4000.0);
    (exp + jitter).min(MAX_DELAY)
}

fn jitter_seed() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
}

/// Makes up to `policy.max_attempts` connection attempts (at least one), backing off between
/// them from `policy.base_delay_ms`. Stops at the first success, at a failure that is not
/// transient, or when `cancel` fires (`cancelled`). Returns the last failure otherwise.
/// `events` receives notifications, and with `traffic` every JSON-RPC message.
pub async fn connect_series(
    def: &ServerDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    (events, traffic): (Option<mpsc::Sender<ServerEvent>>, bool),
    policy: ReconnectPolicy,
    cancel: &CancellationToken,
) -> Result<Connection, ConnectError> {
    connect_series_client(
        def,
        file_dir,
        lookup,
        (events, traffic),
        policy,
        cancel,
        None,
    )
    .await
}

/// [`connect_series`] with a face's client side (see [`super::connect_client`]).
pub(crate) async fn connect_series_client(
    def: &ServerDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    (events, traffic): (Option<mpsc::Sender<ServerEvent>>, bool),
    policy: ReconnectPolicy,
    cancel: &CancellationToken,
    client: Option<crate::mcp::client::ClientSide>,
) -> Result<Connection, ConnectError> {
    let attempts = u32::from(policy.max_attempts.max(1));
    let base = Duration::from_millis(u64::from(policy.base_delay_ms));
    let mut attempt = 0;
    loop {
        let result = tokio::select! {
            r = connect_client(def, file_dir, lookup, events.clone(), traffic, client.clone()) => r,
            () = cancel.cancelled() => return Err(cancelled()),
        };
        let err = match result {
            Ok(conn) => return Ok(conn),
            Err(err) => err,
        };
        attempt += 1;
        if attempt >= attempts || !is_transient(&err.class) {
            return Err(err);
        }
        let delay = backoff_delay(base, attempt - 1, jitter_seed());
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = cancel.cancelled() => return Err(cancelled()),
        }
    }
}

fn cancelled() -> ConnectError {
    ConnectError::new(ErrorClass::Cancelled, "connecting was cancelled")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_bounded_jitter() {
        let base = Duration::from_millis(200);
        assert_eq!(backoff_delay(base, 0, 0), base);
        assert_eq!(backoff_delay(base, 1, 0), Duration::from_millis(400));
        let jittered = backoff_delay(base, 1, 999);
        assert!(jittered > Duration::from_millis(400) && jittered <= Duration::from_millis(500));
        assert_eq!(backoff_delay(base, 30, 0), MAX_DELAY);
    }

    #[test]
    fn only_transient_failures_are_retried() {
        assert!(is_transient(&ErrorClass::Refused));
        assert!(is_transient(&ErrorClass::HttpStatus { code: 503 }));
        assert!(!is_transient(&ErrorClass::HttpStatus { code: 404 }));
        assert!(!is_transient(&ErrorClass::AuthRequired {
            code: 401,
            scope: None
        }));
        assert!(!is_transient(&ErrorClass::MissingEnv {
            variable: "X".into()
        }));
    }
}
