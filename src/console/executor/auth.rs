//! Sign-in effects: reading every OAuth server's sign-in from the credential store (on a
//! blocking task), running a sign-in (the authorization URL goes to the app, which shows it with
//! a copy key, and to `$BROWSER` / `xdg-open`; the loopback listener waits for the redirect) and
//! a sign-out (revocation where the server offers it, then the tokens are forgotten). No token
//! ever reaches a message.

use super::Executor;
use crate::app::Msg;
use crate::app::auth::{AuthEffect, AuthInfo, AuthMsg, AuthState, ServerAuth};
use crate::mcp::auth::configured::{oauth_servers, target};
use crate::mcp::auth::{self, CredentialStore, SignInFace, Trigger};
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::trust::TrustStore;

/// The console's part in a sign-in: the URL goes to the app and to the browser.
struct ConsoleFace {
    server: String,
    tx: tokio::sync::mpsc::UnboundedSender<Msg>,
}

#[async_trait::async_trait]
impl SignInFace for ConsoleFace {
    fn authorize_url(&self, url: &str) {
        let _ = self.tx.send(Msg::Auth(AuthMsg::Url {
            server: self.server.clone(),
            url: url.to_owned(),
        }));
        let _ = crate::mcp::opener::open(url);
    }
}

impl Executor {
    /// Carries out one sign-in effect.
    pub(super) fn run_auth(&mut self, effect: AuthEffect) {
        match effect {
            AuthEffect::Refresh => self.refresh_auth(),
            AuthEffect::SignIn(server) => self.sign_in(server),
            AuthEffect::Cancel(server) => {
                if let Some(task) = self.sign_ins.remove(&server) {
                    task.abort();
                }
                let result = Err(format!("sign-in to {server} cancelled"));
                let _ = self
                    .tx
                    .send(Msg::Auth(AuthMsg::SignedIn { server, result }));
            }
            AuthEffect::SignOut(server) => self.sign_out(server),
        }
    }

    fn trust_state(&self) -> crate::mcp::trust::TrustState {
        TrustStore::load(self.trust_path.clone()).state(self.engine().config())
    }

    fn refresh_auth(&self) {
        let trust = self.trust_state();
        let targets: Vec<_> = oauth_servers(self.engine().config())
            .into_iter()
            .map(|name| {
                let t = target(self.engine().config(), trust, &name);
                (name, t)
            })
            .collect();
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let store = CredentialStore::open_default();
            let info = AuthInfo {
                store: match &store {
                    Ok(s) => sanitize_capped(&s.describe(), 512),
                    Err(e) => sanitize_capped(&e.to_string(), 512),
                },
                servers: targets
                    .into_iter()
                    .map(|(name, t)| {
                        let grant = t
                            .as_ref()
                            .map_or("authorization_code", |t| t.oauth.grant.as_str());
                        let state = match (&store, t) {
                            (Err(e), _) => AuthState::Unknown(sanitize_capped(&e.to_string(), 300)),
                            (_, Err(why)) => AuthState::Unknown(sanitize_capped(&why, 300)),
                            (Ok(store), Ok(t)) => match auth::status_of(store, &t) {
                                Ok(Some(s)) => AuthState::SignedIn {
                                    expires_at: s.expires_at,
                                    scopes: s
                                        .scopes
                                        .iter()
                                        .map(|x| sanitize_capped(x, 128))
                                        .collect(),
                                    refreshable: s.refreshable,
                                    issuer: s.issuer.as_deref().map(|i| sanitize_capped(i, 256)),
                                    dpop_bound: s.dpop_bound,
                                },
                                Ok(None) => AuthState::SignedOut,
                                Err(e) => AuthState::Unknown(sanitize_capped(&e.to_string(), 300)),
                            },
                        };
                        (name, ServerAuth { grant, state })
                    })
                    .collect(),
            };
            let _ = tx.send(Msg::Auth(AuthMsg::Status(Box::new(info))));
        });
    }

    fn sign_in(&mut self, server: String) {
        let found = target(self.engine().config(), self.trust_state(), &server);
        let tx = self.tx.clone();
        let Ok(target) = found else {
            let result = found.map(|_| String::new());
            let _ = tx.send(Msg::Auth(AuthMsg::SignedIn { server, result }));
            return;
        };
        if let Some(old) = self.sign_ins.remove(&server) {
            old.abort();
        }
        let name = server.clone();
        let task = tokio::spawn(async move {
            let face = ConsoleFace {
                server: name.clone(),
                tx: tx.clone(),
            };
            let result = match CredentialStore::open_default() {
                Err(e) => Err(e.to_string()),
                Ok(store) => auth::sign_in(&target, &store, Trigger::default(), &face)
                    .await
                    .map(|signed| {
                        let scopes = if signed.scopes.is_empty() {
                            String::new()
                        } else {
                            format!(" (scopes: {})", signed.scopes.join(" "))
                        };
                        format!("signed in to {name}{scopes}")
                    })
                    .map_err(|e| format!("sign-in to {name} failed: {}", e.message)),
            };
            let _ = tx.send(Msg::Auth(AuthMsg::SignedIn {
                server: name,
                result,
            }));
        });
        self.sign_ins.insert(server, task.abort_handle());
    }

    fn sign_out(&self, server: String) {
        let found = target(self.engine().config(), self.trust_state(), &server);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = async {
                let target = found?;
                let store = CredentialStore::open_default().map_err(|e| e.to_string())?;
                let done = auth::logout(&store, &target)
                    .await
                    .map_err(|e| e.message)?;
                Ok(if !done.had_tokens {
                    format!("{server} was not signed in")
                } else if done.revoked {
                    format!("signed out of {server} (tokens revoked and forgotten)")
                } else {
                    format!("signed out of {server} (tokens forgotten; the server offers no revocation or refused it)")
                })
            }
            .await;
            let _ = tx.send(Msg::Auth(AuthMsg::SignedOut { server, result }));
        });
    }
}
