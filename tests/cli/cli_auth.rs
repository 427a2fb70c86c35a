//! OAuth sign-in through the real binary against the fixture's authorization server and the MCP
//! server behind it (both on 127.0.0.1): discovery, registration, PKCE, `resource`, the loopback
//! redirect, stored tokens, refresh with rotation, step-up, revocation, and the bad inputs.

use crate::common;

use common::auth_fixture::{Run, mcpdeck, paste_login, sandbox, store_path, stored, stored_token};
use common::{AuthServer, Sandbox, fixture};
use serde_json::{Value, json};

/// Nothing a command printed may carry a token.
fn assert_no_tokens(run: &Run, sb: &Sandbox) {
    for field in ["access_token", "refresh_token"] {
        if store_path(sb).exists()
            && stored(sb)["servers"]
                .as_object()
                .is_some_and(|m| !m.is_empty())
        {
            let token = stored_token(sb, field);
            assert!(!run.stdout.contains(&token) && !run.stderr.contains(&token));
        }
    }
    assert!(!run.stdout.contains("at-") && !run.stderr.contains("at-"));
    assert!(!run.stdout.contains("rt-") && !run.stderr.contains("rt-"));
}

#[test]
fn sign_in_with_registration_then_every_command_uses_the_stored_tokens() {
    let server = AuthServer::start(&[]);
    let sb = sandbox(&server, None);

    let before = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(before.code, 3, "{}", before.stderr);
    assert!(
        before.stdout.contains("mcpdeck auth login web"),
        "{}",
        before.stdout
    );

    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}\n{}", login.stdout, login.stderr);
    assert!(login.stdout.contains("signed in to `web`"));
    assert!(
        login.stderr.contains("http://127.0.0.1"),
        "the URL is printed"
    );
    assert_no_tokens(&login, &sb);

    let seen = server.seen();
    assert_eq!(seen["registrations"], 1);
    assert_eq!(seen["code_exchanges"], 1);
    // RFC 8707: the canonical server URL in the authorization and token requests.
    for resource in seen["resources"].as_array().expect("resources") {
        assert_eq!(resource, &json!(server.url()));
    }
    // The challenge's scope, plus offline_access because the server lists it.
    assert_eq!(seen["scopes"][0], "read offline_access");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let path = store_path(&sb);
        let mode = std::fs::metadata(&path).expect("file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir = std::fs::metadata(path.parent().expect("dir")).expect("dir");
        assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    }

    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    assert!(tools.stdout.contains("echo"));
    assert_no_tokens(&tools, &sb);

    let status = mcpdeck(&sb, &["auth", "status", "--json"], "");
    assert_eq!(status.code, 0);
    let v: Value = serde_json::from_str(&status.stdout).expect("json");
    assert_eq!(v["operation"], "auth.status");
    let v = &v["result"];
    assert!(v["store"].as_str().expect("store").starts_with("file "));
    assert_eq!(v["servers"][0]["signedIn"], true);
    assert_eq!(v["servers"][0]["scopes"], json!(["read", "offline_access"]));
    assert_no_tokens(&status, &sb);

    // A second sign-in reuses the registration kept for this authorization server.
    let again = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(server.seen()["registrations"], 1);
}

#[test]
fn login_flag_signs_in_inline_and_step_up_asks_for_the_demanded_scope() {
    let server = AuthServer::start(&[]);
    let sb = sandbox(&server, None);
    let call = mcpdeck(&sb, &["call", "web", "echo", "text=hi", "--login"], "");
    assert_eq!(call.code, 0, "{}\n{}", call.stdout, call.stderr);
    assert!(call.stdout.contains("hi"));

    // `add` needs `write`: a 403 insufficient_scope, one step-up, the request sent again.
    let add = mcpdeck(&sb, &["call", "web", "add", "a=2", "b=3", "--login"], "");
    assert_eq!(add.code, 0, "{}\n{}", add.stdout, add.stderr);
    assert!(add.stdout.contains('5'), "{}", add.stdout);
    let seen = server.seen();
    assert_eq!(seen["authorizations"], 2);
    let last = seen["scopes"][1].as_str().expect("scope");
    assert!(last.contains("read") && last.contains("write"), "{last}");

    // Without --login (and no terminal) the refusal exits 3.
    let sb2 = sandbox(&server, None);
    let refused = mcpdeck(&sb2, &["call", "web", "echo", "text=hi"], "");
    assert_eq!(refused.code, 3);
}

#[test]
fn a_server_that_guards_only_operations_gets_its_refusals_challenge() {
    // `initialize` needs no token, so probing the server finds no challenge: the sign-in and the
    // step-up take the scope from the refusal of the operation itself.
    let server = AuthServer::start(&["--open-initialize"]);
    let sb = sandbox(&server, None);
    let call = mcpdeck(&sb, &["call", "web", "echo", "text=hi", "--login"], "");
    assert_eq!(call.code, 0, "{}\n{}", call.stdout, call.stderr);
    assert!(call.stdout.contains("hi"));
    let add = mcpdeck(&sb, &["call", "web", "add", "a=2", "b=3", "--login"], "");
    assert_eq!(add.code, 0, "{}\n{}", add.stdout, add.stderr);
    let seen = server.seen();
    assert_eq!(seen["authorizations"], 2, "{seen}");
    let first = seen["scopes"][0].as_str().expect("scope");
    assert!(
        first.split(' ').any(|s| s == "read") && !first.contains("write"),
        "{first}"
    );
    let last = seen["scopes"][1].as_str().expect("scope");
    assert!(last.contains("read") && last.contains("write"), "{last}");
}

#[test]
fn a_refused_token_is_refreshed_once_and_the_rotated_token_replaces_it() {
    let server = AuthServer::start(&[]);
    let sb = sandbox(&server, None);
    assert_eq!(mcpdeck(&sb, &["auth", "login", "web"], "").code, 0);
    let first_refresh = stored_token(&sb, "refresh_token");
    server.post("/expire", "");
    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    let seen = server.seen();
    assert_eq!(seen["refreshes"], 1);
    assert_eq!(
        seen["refused_tokens"], 1,
        "one refusal, one refresh, one retry"
    );
    let second_refresh = stored_token(&sb, "refresh_token");
    assert_ne!(first_refresh, second_refresh, "rotation kept the new token");
}

#[test]
fn an_expiring_token_is_refreshed_before_use() {
    let server = AuthServer::start(&["--ttl", "0"]);
    let sb = sandbox(&server, None);
    assert_eq!(mcpdeck(&sb, &["auth", "login", "web"], "").code, 0);
    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    let seen = server.seen();
    assert!(seen["refreshes"].as_u64() >= Some(1));
    // Refreshed before the request went out: the server never had to refuse a token.
    assert_eq!(seen["refused_tokens"], 0);
}

/// Several commands at once, each holding the same expiring token: one refreshes it and the
/// others wait for that refresh and use its token (a rotated refresh token works only once, so a
/// second refresh with the old one would also be refused).
#[test]
fn concurrent_operations_with_an_expiring_token_share_one_refresh() {
    const AT_ONCE: usize = 4;
    // Signed in with a token that is already expiring; refreshed tokens last an hour.
    let server = AuthServer::start(&["--ttl", "0", "--refreshed-ttl", "3600"]);
    let sb = sandbox(&server, None);
    assert_eq!(mcpdeck(&sb, &["auth", "login", "web"], "").code, 0);
    let runs: Vec<Run> = std::thread::scope(|scope| {
        let started: Vec<_> = (0..AT_ONCE)
            .map(|_| scope.spawn(|| mcpdeck(&sb, &["tools", "web", "--json"], "")))
            .collect();
        started
            .into_iter()
            .map(|t| t.join().expect("joined"))
            .collect()
    });
    for run in &runs {
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let seen = server.seen();
    assert_eq!(seen["refreshes"], 1, "{seen}");
    assert_eq!(seen["rejected_refreshes"], 0, "{seen}");
    assert_eq!(seen["refused_tokens"], 0, "{seen}");
}

#[test]
fn a_revoked_refresh_token_drops_the_sign_in_and_logout_revokes() {
    let server = AuthServer::start(&[]);
    let sb = sandbox(&server, None);
    assert_eq!(mcpdeck(&sb, &["auth", "login", "web"], "").code, 0);
    let refresh = stored_token(&sb, "refresh_token");
    server.post("/revoke", &format!("token={refresh}"));
    server.post("/expire", "");
    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 3, "{}", tools.stdout);
    assert!(tools.stdout.contains("mcpdeck auth login web"));
    assert_eq!(server.seen()["rejected_refreshes"], 1);
    let status = mcpdeck(&sb, &["auth", "status", "web", "--json"], "");
    let v: Value = serde_json::from_str(&status.stdout).expect("json");
    assert_eq!(
        v["result"]["servers"][0]["signedIn"], false,
        "invalid_grant dropped the tokens"
    );

    assert_eq!(mcpdeck(&sb, &["auth", "login", "web"], "").code, 0);
    let out = mcpdeck(&sb, &["auth", "logout", "web", "--json"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["operation"], "auth.logout");
    assert_eq!(v["result"]["revoked"], true);
    assert!(server.seen()["revocations"].as_u64() >= Some(2));
    let status = mcpdeck(&sb, &["auth", "status", "web", "--json"], "");
    let v: Value = serde_json::from_str(&status.stdout).expect("json");
    assert_eq!(v["result"]["servers"][0]["signedIn"], false);
}

/// A pre-registered client comes first, even where metadata documents are supported (the
/// metadata-document identity is in `tests/cli/cli_auth_request.rs`).
#[test]
fn client_identity_pre_registered_comes_first() {
    let server = AuthServer::start(&["--cimd"]);
    let sb = sandbox(
        &server,
        Some(
            json!({"clientId": "pre-client", "clientSecret": "${CLIENT_SECRET}",
            "clientMetadataUrl": server.document_url()}),
        ),
    );
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert!(!login.stderr.contains("s3cret-value"));
    let seen = server.seen();
    assert_eq!(seen["registrations"], 0);
    assert_eq!(seen["cimd_fetches"], 0);
    assert_eq!(seen["client_ids"], json!(["pre-client"]));
}

#[test]
fn a_metadata_url_on_a_disallowed_address_is_never_fetched() {
    // The challenge names protected-resource metadata at 0.0.0.0 (neither the server's origin
    // nor an allowed metadata host): mcpdeck ignores it and discovers the server's own metadata
    // at the well-known location instead.
    let server = AuthServer::start(&["--foreign-metadata"]);
    let sb = sandbox(&server, None);
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    let seen = server.seen();
    assert!(
        seen["challenges"][0]
            .as_str()
            .is_some_and(|c| c.contains("0.0.0.0")),
        "the fixture sent the foreign URL: {seen}"
    );
    assert_eq!(seen["foreign_metadata"], 0, "{seen}");
    assert_eq!(seen["authorizations"], 1, "{seen}");
}

#[test]
fn refusals_missing_s256_other_issuer_no_identity() {
    for (flags, expected) in [
        (&["--no-s256"][..], "S256"),
        (&["--bad-issuer"][..], "issuer"),
        (&["--no-dcr"][..], "oauth.clientId"),
    ] {
        let server = AuthServer::start(flags);
        let sb = sandbox(&server, None);
        let login = mcpdeck(&sb, &["auth", "login", "web"], "");
        assert_eq!(login.code, 3, "{flags:?}");
        assert!(
            login.stderr.contains(expected),
            "{flags:?}: {}",
            login.stderr
        );
        let seen = server.seen();
        assert_eq!(seen["registrations"], 0, "{flags:?}");
        assert_eq!(seen["authorizations"], 0, "{flags:?}");
    }
}

#[test]
fn pasted_redirects_must_return_to_the_loopback_listener_with_the_state() {
    let server = AuthServer::start(&["--evil-redirect"]);
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .expect("free port")
        .local_addr()
        .expect("addr")
        .port();
    let sb = sandbox(&server, Some(json!({"redirectPort": port})));
    let evil = mcpdeck(
        &sb,
        &["auth", "login", "web", "--paste"],
        "https://collector.invalid/callback?code=c&state=s\n",
    );
    assert_eq!(evil.code, 3);
    assert!(evil.stderr.contains("loopback redirect"), "{}", evil.stderr);
    let wrong_state = mcpdeck(
        &sb,
        &["auth", "login", "web", "--paste"],
        &format!("http://127.0.0.1:{port}/callback?code=c&state=forged\n"),
    );
    assert_eq!(wrong_state.code, 3);
    assert!(
        wrong_state.stderr.contains("state"),
        "{}",
        wrong_state.stderr
    );
    assert_eq!(server.seen()["code_exchanges"], 0);
}

#[test]
fn a_corrupt_store_is_reported_and_left_alone() {
    let server = AuthServer::start(&[]);
    let sb = sandbox(&server, None);
    let path = store_path(&sb);
    std::fs::create_dir_all(path.parent().expect("dir")).expect("dir");
    std::fs::write(&path, "{not json").expect("write");
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 3);
    assert!(login.stderr.contains("corrupt"), "{}", login.stderr);
    let status = mcpdeck(&sb, &["auth", "status"], "");
    assert_ne!(status.code, 0);
    assert!(status.stderr.contains("corrupt"), "{}", status.stderr);
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), "{not json");
}

#[test]
fn the_oauth_block_is_checked_strictly() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {
            "a": {"url": "http://127.0.0.1:1/mcp", "oauth": {"clientId": "x", "clientSecret": "literal"}},
            "b": {"url": "http://127.0.0.1:1/mcp", "oauth": {"clientID": "x"}},
            "c": {"command": "x", "oauth": {}},
            "d": {"url": "http://127.0.0.1:1/mcp", "oauth": {"clientMetadataUrl": "http://x/y", "scopes": ["a b"]}},
            "e": {"url": "http://127.0.0.1:1/mcp", "oauth": {"clientSecret": "${S}"}},
            "ok": {"url": "http://127.0.0.1:1/mcp", "oauth": {"clientId": "x", "clientSecret": "${S}", "scopes": ["read"], "redirectPort": 0}}
        }})
        .to_string(),
    );
    let v = sb.json(&["config", "check", "--json"]);
    let text = v.to_string();
    for needle in [
        "literal_secret",
        "did you mean `clientId`",
        "`oauth` applies to HTTP servers",
        "clientMetadataUrl",
        "a scope is one token",
        "`clientSecret` needs the `clientId`",
    ] {
        assert!(text.contains(needle), "{needle} missing in {text}");
    }
    assert!(!text.contains("mcpServers.ok"), "{text}");
}

/// A 2025-03-26 server (no protected-resource metadata) whose origin metadata names an issuer
/// under `/oauth` on the same origin: accepted by that revision's rules, so sign-in works; the
/// same metadata naming another origin is still refused.
#[test]
fn origin_metadata_of_a_server_without_resource_metadata_may_name_an_issuer_path() {
    let server = AuthServer::start(&["--legacy-metadata"]);
    let sb = sandbox(&server, None);
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    let call = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(call.code, 0, "{}", call.stderr);
    assert_no_tokens(&call, &sb);

    let server = AuthServer::start(&["--legacy-metadata", "--bad-issuer"]);
    let sb = sandbox(&server, None);
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 3);
    assert!(login.stderr.contains("issuer"), "{}", login.stderr);
    assert_eq!(server.seen()["authorizations"], 0);
}

/// The same 2025-03-26 server after sign-in: connecting discovers its origin metadata by the
/// same rules, so an expiring token is refreshed before use rather than refused.
#[test]
fn a_server_known_by_its_origin_metadata_refreshes_its_token() {
    let server = AuthServer::start(&["--legacy-metadata", "--ttl", "0"]);
    let sb = sandbox(&server, None);
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    let seen = server.seen();
    assert!(seen["refreshes"].as_u64() >= Some(1), "{seen}");
    assert_eq!(seen["refused_tokens"], 0, "{seen}");
}

/// The same 2025-03-26 server issuing DPoP-bound tokens: the refresh before use goes through
/// the DPoP token client too (the fixture's token endpoint refuses a request without a proof).
#[test]
fn a_server_known_by_its_origin_metadata_refreshes_a_dpop_bound_token_with_a_proof() {
    let server = AuthServer::start(&["--legacy-metadata", "--dpop", "--ttl", "0"]);
    let sb = sandbox(&server, None);
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    let proofs_at_login = server.seen()["dpop_proofs"].as_array().map_or(0, Vec::len);
    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    let seen = server.seen();
    assert!(seen["refreshes"].as_u64() >= Some(1), "{seen}");
    assert!(
        seen["dpop_proofs"].as_array().map_or(0, Vec::len) > proofs_at_login,
        "{seen}"
    );
    assert_eq!(seen["refused_tokens"], 0, "{seen}");
}

/// `auth login --paste` (a browser on another machine): the operator pastes the address the
/// authorization server sent the browser to, and the sign-in completes from it.
#[test]
fn a_pasted_redirect_completes_the_sign_in() {
    use std::io::Write as _;
    let server = AuthServer::start(&[]);
    let sb = sandbox(&server, None);
    let (mut child, authorize) = paste_login(&sb);
    let landed = server.redirect_of(&authorize);
    assert!(landed.starts_with("http://127.0.0.1"), "{landed}");
    writeln!(child.stdin.take().expect("stdin"), "{landed}").expect("pasted");
    let out = child.wait_with_output().expect("ends");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("signed in to `web`"));
    assert_eq!(server.seen()["code_exchanges"], 1);
    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 0, "{}", tools.stderr);
}

/// Runs `mcpdeck ARGS` under `script`, so it has a terminal, typing `answer`: (exit code,
/// everything the terminal showed).
fn on_a_terminal(sb: &Sandbox, args: &str, answer: &str) -> (Option<i32>, String) {
    use std::io::Write as _;
    let command = format!(
        "{} --cwd {} {args}",
        env!("CARGO_BIN_EXE_mcpdeck"),
        sb.project.display()
    );
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("MCPDECK_CREDENTIAL_STORE", "file")
        .env("BROWSER", format!("{} browse", fixture()))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("script runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answer.as_bytes())
        .expect("typed");
    let out = child.wait_with_output().expect("ends");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Without `--login`, a command refused for authorization asks once on a terminal: no exits 3
/// with the command to run, yes signs in inline and the command goes on.
#[test]
fn on_a_terminal_a_refusal_asks_once() {
    if !common::peers::script() {
        return;
    }
    let server = AuthServer::start(&[]);
    let sb = sandbox(&server, None);
    let (code, screen) = on_a_terminal(&sb, "tools web", "n\n");
    assert_eq!(code, Some(3), "{screen}");
    assert_eq!(screen.matches("Sign in now?").count(), 1, "{screen}");
    assert!(screen.contains("mcpdeck auth login web"), "{screen}");
    assert_eq!(server.seen()["authorizations"], 0);

    let (code, screen) = on_a_terminal(&sb, "tools web", "y\n");
    assert_eq!(code, Some(0), "{screen}");
    assert_eq!(screen.matches("Sign in now?").count(), 1, "{screen}");
    assert!(screen.contains("echo"), "{screen}");
    assert_eq!(server.seen()["authorizations"], 1);
}

/// A definition that sends its own `Authorization` header does not use OAuth: no sign-in, and
/// a refusal says to check the header instead of offering one, even with `--login`.
#[test]
fn a_definition_with_an_authorization_header_never_signs_in() {
    let server = AuthServer::start(&[]);
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"web": {
            "url": server.url(),
            "headers": {"Authorization": "Bearer ${CLIENT_SECRET}"}
        }}})
        .to_string(),
    );
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_ne!(login.code, 0);
    assert!(
        login.stderr.contains("`Authorization` header"),
        "{}",
        login.stderr
    );
    let tools = mcpdeck(&sb, &["tools", "web", "--json", "--login"], "");
    assert_eq!(tools.code, 3, "{}", tools.stdout);
    assert!(
        !tools.stdout.contains("mcpdeck auth login"),
        "{}",
        tools.stdout
    );
    assert!(!tools.stdout.contains("s3cret-value"), "{}", tools.stdout);
    let seen = server.seen();
    assert_eq!(seen["registrations"], 0, "{seen}");
    assert_eq!(seen["authorizations"], 0, "{seen}");
}

/// `oauth.dpop`: absent, a server that offers DPoP gets DPoP-bound tokens and a key kept in the
/// store, which sign-out forgets; `false` asks for bearer tokens there (this authorization
/// server refuses a code exchange without a proof); `true` refuses a server that does not offer
/// DPoP before any browser or registration.
#[test]
fn dpop_is_used_when_offered_refused_when_off_and_required_when_on() {
    let server = AuthServer::start(&["--dpop"]);
    let sb = sandbox(&server, None);
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    let key_kept = |sb: &Sandbox| {
        stored(sb)["dpop_keys"]
            .as_object()
            .is_some_and(|keys| !keys.is_empty())
    };
    assert!(key_kept(&sb), "{}", stored(&sb));
    let logout = mcpdeck(&sb, &["auth", "logout", "web"], "");
    assert_eq!(logout.code, 0, "{}", logout.stderr);
    assert!(!key_kept(&sb), "{}", stored(&sb));

    let off = sandbox(&server, Some(json!({"dpop": false})));
    let refused = mcpdeck(&off, &["auth", "login", "web"], "");
    assert_ne!(refused.code, 0, "{}", refused.stdout);
    assert!(
        refused.stderr.contains("refused the code exchange"),
        "{}",
        refused.stderr
    );

    let plain = AuthServer::start(&[]);
    let on = sandbox(&plain, Some(json!({"dpop": true})));
    let required = mcpdeck(&on, &["auth", "login", "web"], "");
    assert_ne!(required.code, 0, "{}", required.stdout);
    assert!(
        required.stderr.contains("`oauth.dpop` is true"),
        "{}",
        required.stderr
    );
    assert_eq!(plain.seen()["registrations"], 0, "{}", plain.seen());
}
