//! The client-credentials grant through the real binary against the fixture's authorization
//! server (127.0.0.1): a refusal gets a token with `client_secret_basic` and no browser and no
//! `--login`; the client secret, sent back by the server, is redacted like a token; `auth
//! status` names the grant, the issuer, the scopes and whether the token is DPoP-bound. With
//! `private_key_jwt`, the client assertion is redacted when the MCP server writes it back and
//! when the authorization server writes it (or the secret) into its refusal; a refused grant
//! says which settings to check rather than to sign in with a browser.

use crate::common;

use common::auth_fixture::{mcpdeck, sandbox};
use common::{AuthServer, Sandbox};
use serde_json::{Value, json};

/// The tests' `CLIENT_SECRET` (see `auth_fixture::mcpdeck`), which the fixture's CI client has.
const SECRET: &str = "s3cret-value";

#[test]
fn a_refusal_gets_a_client_credentials_token_without_a_browser() {
    let server = AuthServer::start(&[]);
    let sb = sandbox(
        &server,
        Some(
            json!({"grant": "client_credentials", "clientId": "ci-client",
                    "clientSecret": "${CLIENT_SECRET}"}),
        ),
    );
    // The echo tool repeats what it is given: here, the client secret itself.
    let call = mcpdeck(
        &sb,
        &["call", "web", "echo", &format!("text={SECRET}"), "--json"],
        "",
    );
    assert_eq!(call.code, 0, "{}\n{}", call.stdout, call.stderr);
    let seen = server.seen();
    assert_eq!(seen["client_credentials"], 1, "{seen}");
    assert_eq!(seen["authorizations"], 0, "no browser sign-in: {seen}");
    assert_eq!(seen["registrations"], 0, "{seen}");
    for text in [&call.stdout, &call.stderr] {
        assert!(
            !text.contains(SECRET),
            "the client secret was shown:\n{text}"
        );
    }
    assert!(!call.stderr.contains("open this URL"), "{}", call.stderr);

    let status = mcpdeck(&sb, &["auth", "status", "web", "--json"], "");
    assert_eq!(status.code, 0, "{}", status.stderr);
    let doc: Value = serde_json::from_str(&status.stdout).expect("json");
    let row = &doc["result"]["servers"][0];
    assert_eq!(row["grant"], "client_credentials", "{row}");
    assert_eq!(row["signedIn"], true, "{row}");
    assert_eq!(row["dpopBound"], false, "{row}");
    assert_eq!(
        row["issuer"],
        format!("http://127.0.0.1:{}", server.port),
        "{row}"
    );
    let text = mcpdeck(&sb, &["auth", "status", "web"], "");
    assert!(
        text.stdout
            .contains("web: signed in (client_credentials, issuer http://127.0.0.1:")
            && text.stdout.contains(", bearer"),
        "{}",
        text.stdout
    );
}

/// A sandbox whose `web` server signs in with client credentials the authorization server does
/// not know (`another-client`), so the grant is refused.
fn refused_client_sandbox(server: &AuthServer) -> Sandbox {
    sandbox(
        server,
        Some(
            json!({"grant": "client_credentials", "clientId": "another-client",
                    "clientSecret": "${CLIENT_SECRET}"}),
        ),
    )
}

#[test]
fn a_refused_client_secret_is_reported_without_it() {
    let server = AuthServer::start(&[]);
    let sb = refused_client_sandbox(&server);
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_ne!(login.code, 0, "{}", login.stdout);
    assert!(
        login.stderr.contains("HTTP 401 (invalid_client"),
        "{}",
        login.stderr
    );
    assert!(!login.stderr.contains(SECRET), "{}", login.stderr);
}

/// A fresh ES256 key in a `0600` PEM file (PKCS#8), kept alive by the returned directory.
fn key_file() -> (tempfile::TempDir, String) {
    use base64::Engine as _;
    use std::os::unix::fs::PermissionsExt as _;
    let rng = ring::rand::SystemRandom::new();
    let der = ring::signature::EcdsaKeyPair::generate_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &rng,
    )
    .expect("key");
    let body = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("client.pem");
    std::fs::write(
        &path,
        format!("-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"),
    )
    .expect("written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("mode");
    let path = path.display().to_string();
    (dir, path)
}

/// The client assertions the fixture's authorization server received (at least one).
fn assertions(server: &AuthServer) -> Vec<String> {
    let seen = server.seen();
    let sent: Vec<String> = seen["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .filter_map(|a| a.as_str().map(str::to_owned))
        .collect();
    assert!(!sent.is_empty(), "no client assertion was sent: {seen}");
    sent
}

#[test]
fn a_client_assertion_the_server_writes_back_is_redacted() {
    let server = AuthServer::start(&["--echo-assertion"]);
    let (_keys, key) = key_file();
    let sb = sandbox(
        &server,
        Some(
            json!({"grant": "client_credentials", "clientId": "ci-client", "privateKeyFile": key}),
        ),
    );
    let call = mcpdeck(&sb, &["call", "web", "echo", "text=hello", "--json"], "");
    assert_eq!(call.code, 0, "{}\n{}", call.stdout, call.stderr);
    assert_eq!(server.seen()["client_credentials"], 1);
    for assertion in assertions(&server) {
        for text in [&call.stdout, &call.stderr] {
            assert!(
                !text.contains(&assertion),
                "the assertion was shown:\n{text}"
            );
        }
    }
    assert!(
        call.stdout.contains("assertion [redacted]"),
        "the echo did not come back redacted:\n{}",
        call.stdout
    );
}

#[test]
fn an_assertion_or_secret_in_a_token_refusal_is_redacted() {
    let server = AuthServer::start(&["--refuse-echoing"]);
    let (_keys, key) = key_file();
    let sb = sandbox(
        &server,
        Some(
            json!({"grant": "client_credentials", "clientId": "ci-client", "privateKeyFile": key}),
        ),
    );
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_ne!(login.code, 0, "{}", login.stdout);
    assert!(
        login.stderr.contains("HTTP 400 ([redacted])"),
        "{}",
        login.stderr
    );
    for assertion in assertions(&server) {
        // Not even the first 60 characters that the cap on the error code used to let through.
        for text in [&login.stdout, &login.stderr] {
            assert!(
                !text.contains(&assertion[..60]),
                "the assertion was shown:\n{text}"
            );
        }
    }

    let sb = sandbox(
        &server,
        Some(
            json!({"grant": "client_credentials", "clientId": "ci-client",
                    "clientSecret": "${CLIENT_SECRET}"}),
        ),
    );
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_ne!(login.code, 0, "{}", login.stdout);
    assert!(
        login.stderr.contains("HTTP 400 ([redacted])") && !login.stderr.contains(SECRET),
        "{}",
        login.stderr
    );
}

#[test]
fn a_refused_headless_grant_names_its_credentials_not_a_browser_sign_in() {
    let server = AuthServer::start(&[]);
    let sb = refused_client_sandbox(&server);
    let call = mcpdeck(&sb, &["call", "web", "echo", "text=hello"], "");
    assert_ne!(call.code, 0, "{}", call.stdout);
    assert!(
        call.stderr.contains("HTTP 401 (invalid_client"),
        "the grant's refusal is reported: {}",
        call.stderr
    );
    assert!(
        call.stderr
            .contains("check its client credentials (`oauth.clientId`"),
        "{}",
        call.stderr
    );
    assert!(!call.stderr.contains("auth login"), "{}", call.stderr);
}
