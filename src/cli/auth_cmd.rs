//! `mcpdeck auth login|status|logout` and the inline sign-in of `--login`: the CLI face of
//! `mcp::auth`. The authorization URL goes to stderr (and to `$BROWSER` / `xdg-open` unless
//! `--paste`); with `--paste` the operator pastes the final redirect URL on stdin instead, for a
//! shell over SSH. Never prints a token.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use super::exit::Exit;
use super::output::{print_error, print_text};
use super::{AuthCommand, Context};
use crate::mcp::auth::{self, AuthTarget, CredentialStore, SignInFace, SignedIn, Trigger};
use crate::mcp::config::ConfigSet;
use crate::mcp::sanitize::sanitize;
use crate::mcp::trust::TrustState;

/// The CLI's part in a sign-in.
struct CliFace {
    name: String,
    paste: bool,
}

#[async_trait::async_trait]
impl SignInFace for CliFace {
    fn authorize_url(&self, url: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "To sign in to `{}`, open this URL in a browser:\n\n  {}\n",
            sanitize(&self.name),
            sanitize(url)
        );
        if self.paste {
            let _ = writeln!(
                err,
                "Then paste the address the browser was sent to at the end (it starts with \
                 http://127.0.0.1) and press Enter:"
            );
        } else {
            match crate::mcp::opener::open(url) {
                Ok(_) => {
                    let _ = writeln!(err, "(opened in the browser; waiting up to 5 minutes)");
                }
                Err(why) => {
                    let _ = writeln!(
                        err,
                        "(not opened: {why}; waiting up to 5 minutes for the browser)"
                    );
                }
            }
        }
    }

    async fn pasted(&self) -> Option<String> {
        if !self.paste {
            return None;
        }
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).ok()?;
            Some(line)
        })
        .await
        .ok()
        .flatten()
    }
}

/// The sign-in target named `name`: a valid, usable HTTP definition that uses OAuth.
pub fn target(config: &ConfigSet, trust: TrustState, name: &str) -> Result<AuthTarget, String> {
    auth::configured::target(config, trust, name)
}

fn open_store() -> Result<CredentialStore, String> {
    CredentialStore::open_default().map_err(|e| e.to_string())
}

fn runtime() -> Option<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()
}

/// Runs one sign-in in the current runtime, printing the URL to stderr.
pub async fn sign_in_inline(
    config: &ConfigSet,
    trust: TrustState,
    name: &str,
    trigger: Trigger,
    paste: bool,
) -> Result<SignedIn, String> {
    let target = target(config, trust, name)?;
    let store = open_store()?;
    let face = CliFace {
        name: name.to_owned(),
        paste,
    };
    auth::sign_in(&target, &store, trigger, &face)
        .await
        .map_err(|e| e.message)
}

/// Whether `name` gets its tokens with a headless grant (client credentials, workload identity,
/// enterprise-managed): then it signs in after a refusal without `--login`, as nobody needs to
/// take part.
pub fn headless(config: &ConfigSet, trust: TrustState, name: &str) -> bool {
    target(config, trust, name).is_ok_and(|t| t.oauth.grant.is_headless())
}

/// Whether the authorization server that `name`'s protected-resource metadata names now is
/// another than `issuer`, the one this command signed in with (the server migrated, and its
/// tokens are refused for that reason).
pub async fn authorization_server_moved(
    config: &ConfigSet,
    trust: TrustState,
    name: &str,
    issuer: &str,
) -> bool {
    let Ok(target) = target(config, trust, name) else {
        return false;
    };
    auth::current_issuer(&target)
        .await
        .is_some_and(|now| now != issuer)
}

/// Whether to sign in inline after an operation was refused for authorization: `--login`, or a
/// terminal operator who says yes (asked once).
pub fn may_sign_in(login: bool, name: &str) -> bool {
    if login {
        return true;
    }
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return false;
    }
    eprint!("`{}` asks for sign-in. Sign in now? [y/N] ", sanitize(name));
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim(), "y" | "Y" | "yes")
}

/// `mcpdeck auth ...`.
pub fn run(cx: &Context, command: AuthCommand) -> Exit {
    match command {
        AuthCommand::Login {
            server,
            paste,
            json,
        } => login(cx, &server, paste, json),
        AuthCommand::Status { server, json } => status(cx, server.as_deref(), json),
        AuthCommand::Logout { server, json } => logout(cx, &server, json),
    }
}

/// `mcpdeck auth login SERVER [--paste]`.
pub fn login(cx: &Context, name: &str, paste: bool, json: bool) -> Exit {
    let Some(rt) = runtime() else {
        print_error("cannot start the async runtime");
        return Exit::Usage;
    };
    let trust = cx.trust.state(&cx.config);
    match rt.block_on(sign_in_inline(
        &cx.config,
        trust,
        name,
        Trigger::default(),
        paste,
    )) {
        Ok(signed) => {
            if json {
                super::output::print_done(
                    Some(name),
                    "auth.login",
                    &serde_json::json!({
                        "signedIn": true,
                        "expiresAt": signed.expires_at.map(rfc3339),
                        "scopes": signed.scopes,
                    }),
                );
            } else {
                print_text(&format!(
                    "signed in to `{}`{}",
                    sanitize(name),
                    scopes_text(&signed.scopes)
                ));
            }
            Exit::Ok
        }
        Err(message) => {
            report_error(json, "auth.login", &message);
            Exit::AuthRequired
        }
    }
}

fn report_error(json: bool, operation: &str, message: &str) {
    // The callers choose the exit: a failed sign-in exits 3, a store that cannot be read 1.
    let _ = super::output::fail(
        json,
        operation,
        crate::mcp::connection::ErrorClass::AuthFailed,
        message,
    );
}

fn scopes_text(scopes: &[String]) -> String {
    if scopes.is_empty() {
        String::new()
    } else {
        format!(" (scopes: {})", sanitize(&scopes.join(" ")))
    }
}

fn rfc3339(epoch: u64) -> String {
    i64::try_from(epoch)
        .ok()
        .and_then(|e| time::OffsetDateTime::from_unix_timestamp(e).ok())
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// `mcpdeck auth status [SERVER] [--json]`: per HTTP server that signs in with OAuth, whether it
/// is signed in, until when, with which scopes, and which store is in use.
pub fn status(cx: &Context, only: Option<&str>, json: bool) -> Exit {
    let store = match open_store() {
        Ok(s) => s,
        Err(message) => {
            report_error(json, "auth.status", &message);
            return Exit::Usage;
        }
    };
    let trust = cx.trust.state(&cx.config);
    let names: Vec<String> = match only {
        Some(name) => vec![name.to_owned()],
        None => auth::configured::oauth_servers(&cx.config),
    };
    let mut rows = Vec::new();
    let mut lines = vec![format!("store: {}", store.describe())];
    for name in &names {
        let target = match target(&cx.config, trust, name) {
            Ok(t) => t,
            Err(message) if only.is_some() => {
                report_error(json, "auth.status", &message);
                return Exit::Usage;
            }
            Err(_) => continue,
        };
        let signed = match auth::status_of(&store, &target) {
            Ok(s) => s,
            Err(e) => {
                report_error(json, "auth.status", &e.to_string());
                return Exit::Usage;
            }
        };
        let expires = signed.as_ref().and_then(|s| s.expires_at).map(rfc3339);
        let grant = target.oauth.grant.as_str();
        rows.push(serde_json::json!({
            "server": name,
            "grant": grant,
            "signedIn": signed.is_some(),
            "issuer": signed.as_ref().and_then(|s| s.issuer.clone()),
            "expiresAt": expires,
            "refreshable": signed.as_ref().is_some_and(|s| s.refreshable),
            "dpopBound": signed.as_ref().is_some_and(|s| s.dpop_bound),
            "scopes": signed.as_ref().map(|s| s.scopes.clone()).unwrap_or_default(),
        }));
        lines.push(match &signed {
            Some(s) => format!(
                "{}: signed in ({grant}{}{}){}{}",
                sanitize(name),
                s.issuer
                    .as_deref()
                    .map_or_else(String::new, |i| format!(", issuer {}", sanitize(i))),
                if s.dpop_bound {
                    ", DPoP-bound"
                } else {
                    ", bearer"
                },
                expires
                    .as_deref()
                    .map_or_else(String::new, |e| format!(", expires {e}")),
                scopes_text(&s.scopes)
            ),
            None => format!("{}: not signed in ({grant})", sanitize(name)),
        });
    }
    if json {
        super::output::print_done(
            only,
            "auth.status",
            &serde_json::json!({"store": store.describe(), "servers": rows}),
        );
    } else {
        print_text(&lines.join("\n"));
    }
    Exit::Ok
}

/// `mcpdeck auth logout SERVER`: revokes when the server can, then forgets.
pub fn logout(cx: &Context, name: &str, json: bool) -> Exit {
    let Some(rt) = runtime() else {
        print_error("cannot start the async runtime");
        return Exit::Usage;
    };
    let trust = cx.trust.state(&cx.config);
    let result = rt.block_on(async {
        let target = target(&cx.config, trust, name)?;
        let store = open_store()?;
        auth::logout(&store, &target).await.map_err(|e| e.message)
    });
    match result {
        Ok(done) => {
            if json {
                super::output::print_done(
                    Some(name),
                    "auth.logout",
                    &serde_json::json!({"hadTokens": done.had_tokens, "revoked": done.revoked}),
                );
            } else if !done.had_tokens {
                print_text(&format!("`{}` was not signed in", sanitize(name)));
            } else if done.revoked {
                print_text(&format!(
                    "signed out of `{}` (tokens revoked and forgotten)",
                    sanitize(name)
                ));
            } else {
                print_text(&format!(
                    "signed out of `{}` (tokens forgotten; the server offers no revocation or refused it)",
                    sanitize(name)
                ));
            }
            Exit::Ok
        }
        Err(message) => {
            report_error(json, "auth.logout", &message);
            Exit::Usage
        }
    }
}
