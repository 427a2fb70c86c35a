//! The client-credentials grant through the real binary against the fixture's authorization
//! server (127.0.0.1): a refusal gets a token with `client_secret_basic` and no browser and no
//! `--login`; the client secret, sent back by the server, is redacted like a token; `auth
//! status` names the grant, the issuer, the scopes and whether the token is DPoP-bound.

use crate::common;

use common::AuthServer;
use common::auth_fixture::{mcpdeck, sandbox};
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

#[test]
fn a_refused_client_secret_is_reported_without_it() {
    let server = AuthServer::start(&[]);
    let sb = sandbox(
        &server,
        Some(
            json!({"grant": "client_credentials", "clientId": "another-client",
                    "clientSecret": "${CLIENT_SECRET}"}),
        ),
    );
    let login = mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_ne!(login.code, 0, "{}", login.stdout);
    assert!(
        login.stderr.contains("HTTP 401 (invalid_client"),
        "{}",
        login.stderr
    );
    assert!(!login.stderr.contains(SECRET), "{}", login.stderr);
}
