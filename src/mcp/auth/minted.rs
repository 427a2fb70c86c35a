//! The secrets mcpdeck mints for a server while it runs — the `private_key_jwt` client
//! assertions of the client-credentials grant and the ID-JAGs of enterprise-managed
//! authorization — and the tokens its connections send, in one [`LiveSecrets`] per server (its
//! store key) for the life of the process.
//!
//! A sign-in runs apart from the connection it is for (the CLI and the console sign in, then
//! reconnect), so what it mints cannot be handed to that connection's redactor directly. Both
//! sides take this server's handle instead: a sign-in adds each assertion before it is sent,
//! and every connection to the server redacts with the same handle ([`super::client`]), so
//! a value minted after a connection started is redacted there from the moment it exists. A
//! refused token request redacts with it too ([`super::client_credentials`]).
//!
//! Nothing here is written anywhere: the values live in memory only, and a later process knows
//! nothing of an earlier one's (an assertion is good for one token request, and it is only ever
//! sent to the authorization server).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use crate::mcp::results::redact::LiveSecrets;

/// Per server store key, its live secrets.
static BY_SERVER: LazyLock<Mutex<HashMap<String, LiveSecrets>>> = LazyLock::new(Mutex::default);

/// The live secrets of the server whose store key is `key`: one handle per server, shared by
/// every sign-in and connection of this process.
pub(crate) fn live(key: &str) -> LiveSecrets {
    BY_SERVER
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key.to_owned())
        .or_default()
        .clone()
}

/// Redacts `secret` (an assertion or ID-JAG minted for the server at `key`) from now on, in
/// everything the server's connections and sign-ins show.
pub(crate) fn remember(key: &str, secret: &str) {
    live(key).add(secret);
}

#[cfg(test)]
mod tests {
    use super::{live, remember};
    use crate::mcp::results::redact::Redactor;

    #[test]
    fn a_value_minted_after_a_redactor_was_built_is_redacted_by_it() {
        let key = "https://minted.example/mcp";
        let redactor = Redactor::default().with_live(live(key));
        remember(key, "eyJhbGciOi.minted-assertion.c2ln");
        assert_eq!(
            redactor.redact("echo eyJhbGciOi.minted-assertion.c2ln"),
            "echo [redacted]"
        );
        let other = Redactor::default().with_live(live("https://other.example/mcp"));
        assert_eq!(
            other.redact("eyJhbGciOi.minted-assertion.c2ln"),
            "eyJhbGciOi.minted-assertion.c2ln",
            "another server's connections do not share it"
        );
    }
}
