//! Sign-in in the console: each OAuth server's sign-in state (signed in until when, with which
//! scopes; or not) for the Auth line of the server header and the Config tab, `L` to sign in
//! (the authorization URL is shown with a copy key and opened in the browser by the runtime) and
//! `O` to sign out. A server whose connection waits for sign-in is shown as such, not as
//! failed. Reading the store, the sign-in flow and revocation are effects; no token ever enters
//! this state (only what `mcp::auth::SignedIn` says: scopes, expiry, refreshability).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::component::{Component, Update};
use super::keymap::Action;
use super::overlays::{Asks, Overlay};
use super::panels::PanelView;
use super::{App, Effect, ServerRow};
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::status::ServerState;

/// One server's sign-in, as the store says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthState {
    /// Tokens are stored.
    SignedIn {
        /// When the access token expires (seconds since the epoch), when known.
        expires_at: Option<u64>,
        /// Granted scopes (sanitised).
        scopes: Vec<String>,
        /// Whether a refresh token is held.
        refreshable: bool,
        /// The authorization server that issued them, when recorded (sanitised).
        issuer: Option<String>,
        /// Whether the access token is bound to a DPoP key (else a bearer token).
        dpop_bound: bool,
    },
    /// No tokens are stored.
    SignedOut,
    /// The store could not say (sanitised).
    Unknown(String),
}

/// What the store says about every server that signs in with OAuth.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthInfo {
    /// Which store is in use (sanitised).
    pub store: String,
    /// By configured name; only servers that sign in with OAuth are listed.
    pub servers: BTreeMap<String, ServerAuth>,
}

/// One OAuth server's sign-in: how it gets its tokens and what the store holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerAuth {
    /// The configured grant (`authorization_code`, `client_credentials`, …).
    pub grant: &'static str,
    /// What the store holds.
    pub state: AuthState,
}

/// The console's sign-in state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthPanel {
    /// The store's answer, once read.
    pub info: Option<AuthInfo>,
    /// Servers whose sign-in is under way.
    pub signing_in: BTreeSet<String>,
}

/// The sign-in view: the authorization URL of a sign-in under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInView {
    /// The server signing in.
    pub server: String,
    /// The authorization URL, once the flow has one (sanitised).
    pub url: Option<String>,
}

/// The sign-in view copies the URL; closing it cancels the sign-in.
impl Component for SignInView {
    type Msg = Action;
    type Env<'a> = ();
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        PanelView::message(action)
    }

    fn update(self, action: Action, (): &()) -> Update<Self> {
        if action == Action::Copy {
            let copy = self.url.clone().map(Effect::Copy);
            return Update::then(self, copy.into());
        }
        if !matches!(action, Action::Back | Action::Quit) {
            return Update::pass(self);
        }
        let mut asks = Asks::said("sign-in cancelled");
        asks.effects
            .push(Effect::Auth(AuthEffect::Cancel(self.server)));
        Update::close(Some(asks))
    }
}

/// Sign-in requests to the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthEffect {
    /// Read every OAuth server's sign-in from the store; answer with [`AuthMsg::Status`].
    Refresh,
    /// Sign in to the server: [`AuthMsg::Url`] when the URL is ready (the runtime opens it in
    /// the browser), then [`AuthMsg::SignedIn`].
    SignIn(String),
    /// Stop the server's sign-in under way (its loopback listener closes).
    Cancel(String),
    /// Revoke (where the server can) and forget the server's tokens; answer with
    /// [`AuthMsg::SignedOut`].
    SignOut(String),
}

/// Sign-in answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthMsg {
    /// Every OAuth server's sign-in.
    Status(Box<AuthInfo>),
    /// The authorization URL of a sign-in under way (not yet sanitised).
    Url {
        /// The server.
        server: String,
        /// The URL.
        url: String,
    },
    /// A sign-in finished: what was granted, or why not.
    SignedIn {
        /// The server.
        server: String,
        /// The outcome in words.
        result: Result<String, String>,
    },
    /// A sign-out finished.
    SignedOut {
        /// The server.
        server: String,
        /// The outcome in words.
        result: Result<String, String>,
    },
}

/// `2026-12-01 14:05 UTC` for an epoch time.
pub fn utc(epoch: u64) -> String {
    i64::try_from(epoch)
        .ok()
        .and_then(|e| time::OffsetDateTime::from_unix_timestamp(e).ok())
        .map_or_else(
            || "an unknown time".to_owned(),
            |t| {
                format!(
                    "{}-{:02}-{:02} {:02}:{:02} UTC",
                    t.year(),
                    u8::from(t.month()),
                    t.day(),
                    t.hour(),
                    t.minute()
                )
            },
        )
}

impl AuthState {
    /// The Auth line's text.
    pub fn describe(&self) -> String {
        match self {
            Self::SignedIn {
                expires_at,
                scopes,
                refreshable,
                issuer,
                dpop_bound,
            } => {
                let mut out = "signed in".to_owned();
                if let Some(at) = expires_at {
                    let _ = write!(out, ", token until {}", utc(*at));
                }
                if *refreshable {
                    out.push_str(", refreshable");
                }
                if !scopes.is_empty() {
                    let _ = write!(out, ", scopes {}", scopes.join(" "));
                }
                out.push_str(if *dpop_bound {
                    ", DPoP-bound"
                } else {
                    ", bearer"
                });
                if let Some(issuer) = issuer {
                    let _ = write!(out, ", issuer {issuer}");
                }
                out
            }
            Self::SignedOut => "not signed in".to_owned(),
            Self::Unknown(why) => format!("unknown ({why})"),
        }
    }
}

/// The advice an OAuth refusal carries for the CLI, which the console replaces with its key.
const CLI_SIGN_IN: &str = ": run `mcpdeck auth login";

impl App {
    /// A failure's words as the console shows them: an authorization refusal of a server that
    /// signs in with OAuth names the console's sign-in key, not the CLI command to run.
    pub fn failure_words(&self, server: Option<&str>, class: &str, message: &str) -> String {
        if class != "auth_required" {
            return message.to_owned();
        }
        let oauth = server.is_some_and(|s| {
            self.auth
                .info
                .as_ref()
                .is_some_and(|i| i.servers.contains_key(s))
        });
        let (said, cli) = match message.find(CLI_SIGN_IN) {
            Some(at) => (&message[..at], true),
            None => (message, false),
        };
        let Some(key) = self
            .keymap
            .key_for(super::keymap::Ctx::Global, super::keymap::Action::SignIn)
            .filter(|_| oauth || cli)
        else {
            return message.to_owned();
        };
        format!("{said}; press {key} to sign in")
    }

    /// Whether `row` waits for sign-in: its last connection was refused for authorization and
    /// it signs in with OAuth.
    pub fn waits_for_sign_in(&self, row: &ServerRow) -> bool {
        row.state == ServerState::Failed
            && row
                .error
                .as_ref()
                .is_some_and(|(class, _)| class == "auth_required")
            && self
                .auth
                .info
                .as_ref()
                .is_some_and(|i| i.servers.contains_key(&row.name))
    }

    /// How a server's state reads: a sign-in under way or awaited instead of "failed".
    pub fn state_label(&self, row: &ServerRow) -> &'static str {
        if self.auth.signing_in.contains(&row.name) {
            "signing in"
        } else if self.waits_for_sign_in(row) {
            "sign-in needed"
        } else {
            row.state.label()
        }
    }

    /// The Auth line for `server`: `None` when it does not sign in with OAuth.
    pub fn auth_line(&self, server: &str) -> Option<String> {
        let info = self.auth.info.as_ref()?;
        let auth = info.servers.get(server)?;
        let mut line = format!("Auth: {} · grant {}", auth.state.describe(), auth.grant);
        if self.auth.signing_in.contains(server) {
            line.push_str(" (signing in…)");
        }
        Some(line)
    }

    /// `L`: signs in to the selected server.
    pub(super) fn sign_in(&mut self) -> Vec<Effect> {
        let Some(server) = self.oauth_selected() else {
            return Vec::new();
        };
        self.auth.signing_in.insert(server.clone());
        self.overlay = Some(Overlay::SignIn(SignInView {
            server: server.clone(),
            url: None,
        }));
        self.message = Some(format!("signing in to {server}…"));
        vec![Effect::Auth(AuthEffect::SignIn(server))]
    }

    /// `O`: signs out of the selected server.
    pub(super) fn sign_out(&mut self) -> Vec<Effect> {
        let Some(server) = self.oauth_selected() else {
            return Vec::new();
        };
        self.message = Some(format!("signing out of {server}…"));
        vec![Effect::Auth(AuthEffect::SignOut(server))]
    }

    /// The selected server when it signs in with OAuth; else says why not.
    fn oauth_selected(&mut self) -> Option<String> {
        let name = self.server()?.name.clone();
        let known = self
            .auth
            .info
            .as_ref()
            .is_some_and(|i| i.servers.contains_key(&name));
        if known {
            return Some(name);
        }
        self.message = Some(format!(
            "{name} does not sign in with OAuth (only HTTP servers without an Authorization header do)"
        ));
        None
    }

    /// A sign-in answer.
    pub(super) fn on_auth_msg(&mut self, msg: AuthMsg) -> Vec<Effect> {
        match msg {
            AuthMsg::Status(info) => {
                self.auth.info = Some(*info);
                Vec::new()
            }
            AuthMsg::Url { server, url } => {
                if let Some(Overlay::SignIn(view)) = &mut self.overlay
                    && view.server == server
                {
                    view.url = Some(sanitize_capped(&url, 4096));
                }
                Vec::new()
            }
            AuthMsg::SignedIn { server, result } => {
                self.auth.signing_in.remove(&server);
                if matches!(&self.overlay, Some(Overlay::SignIn(v)) if v.server == server) {
                    self.overlay = None;
                }
                let ok = result.is_ok();
                self.message = Some(match result {
                    Ok(m) | Err(m) => sanitize_capped(&m, 400),
                });
                let mut effects = vec![Effect::Auth(AuthEffect::Refresh)];
                // The next connection reads the stored tokens: connect now.
                if ok && self.server().is_some_and(|s| s.name == server) {
                    effects.extend(self.reconnect());
                }
                effects
            }
            AuthMsg::SignedOut { server, result } => {
                let ok = result.is_ok();
                self.message = Some(match result {
                    Ok(m) | Err(m) => sanitize_capped(&m, 400),
                });
                let mut effects = vec![Effect::Auth(AuthEffect::Refresh)];
                // A live connection still holds the tokens in memory: reconnect without them.
                let live = self
                    .servers
                    .rows
                    .iter()
                    .any(|s| s.name == server && s.state == ServerState::Connected);
                if ok && live && self.server().is_some_and(|s| s.name == server) {
                    effects.extend(self.reconnect());
                }
                effects
            }
        }
    }
}
