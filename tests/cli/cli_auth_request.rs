//! What mcpdeck's authorization request says, seen from the fixture's authorization server:
//! who mcpdeck is when it offers a client ID metadata document (the server fetches the document
//! and checks it), and which scopes it asks for (`offline_access` only when the authorization
//! server lists it).

use crate::common;

use std::io::Write as _;

use common::AuthServer;
use common::auth_fixture::{mcpdeck, paste_login, sandbox};
use serde_json::{Value, json};

/// A free port on 127.0.0.1 (bound, read, released).
fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// Signs in to `web` with `--paste`, the test playing the browser: a refused authorization
/// request fails the test at once (instead of mcpdeck waiting for a callback that never comes).
fn sign_in(server: &AuthServer, sb: &common::Sandbox) {
    let (mut child, authorize) = paste_login(sb);
    let (status, landed) = server.answer_of(&authorize);
    let Some(landed) = landed else {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "the authorization request was refused (HTTP {status}): {}",
            server.seen()
        );
    };
    writeln!(child.stdin.take().expect("stdin"), "{landed}").expect("pasted");
    let out = child.wait_with_output().expect("ends");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The document a client's developer publishes at `url`, listing `redirects`.
fn document(url: &str, redirects: &[String]) -> Value {
    json!({
        "client_id": url,
        "client_name": "mcpdeck",
        "redirect_uris": redirects,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

#[test]
fn the_authorization_server_fetches_the_metadata_document_mcpdeck_names() {
    let server = AuthServer::start(&["--cimd"]);
    let url = server.document_url();
    let port = free_port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    server.publish_document(&document(&url, std::slice::from_ref(&redirect)));
    let sb = sandbox(
        &server,
        Some(json!({"clientMetadataUrl": url, "redirectPort": port})),
    );

    sign_in(&server, &sb);
    let seen = server.seen();
    assert_eq!(seen["registrations"], 0, "{seen}");
    assert_eq!(seen["cimd_fetches"], 1, "the document was fetched: {seen}");
    assert_eq!(seen["client_ids"], json!([url]), "the client ID is the URL");
    // The document as the authorization server fetched it: it names its own URL, and lists the
    // loopback redirect mcpdeck asked the browser to be sent back to.
    let fetched = &seen["cimd_documents"][0];
    assert_eq!(fetched["client_id"], json!(url), "{fetched}");
    assert_eq!(seen["redirect_uris"], json!([redirect]), "{seen}");
    assert!(
        fetched["redirect_uris"]
            .as_array()
            .expect("redirect_uris")
            .contains(&json!(redirect)),
        "{fetched}"
    );

    // The tokens were issued to that client ID, and a refresh (the fixture checks the client of
    // a refresh token) works without a secret.
    server.post("/expire", "");
    let tools = mcpdeck(&sb, &["tools", "web", "--json"], "");
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    let seen = server.seen();
    assert_eq!(seen["refreshes"], 1, "{seen}");
    assert_eq!(seen["rejected_refreshes"], 0, "{seen}");
}

/// A document may list the loopback redirect without a port: an authorization server following
/// RFC 8252 then accepts mcpdeck's redirect on whatever port it picked.
#[test]
fn a_document_listing_the_loopback_redirect_without_a_port_accepts_any_port() {
    let server = AuthServer::start(&["--cimd"]);
    let url = server.document_url();
    server.publish_document(&document(&url, &["http://127.0.0.1/callback".to_owned()]));
    let sb = sandbox(&server, Some(json!({"clientMetadataUrl": url})));
    sign_in(&server, &sb);
    let seen = server.seen();
    assert_eq!(seen["cimd_fetches"], 1, "{seen}");
    let used = seen["redirect_uris"][0].as_str().expect("redirect");
    assert!(
        used.starts_with("http://127.0.0.1:") && used.ends_with("/callback"),
        "{used}"
    );
}

/// The authorization server checks the document, so the test above can fail: a document that
/// names another URL, or that does not list the redirect, is refused (the test plays the browser
/// and sees the refusal instead of a redirect).
#[test]
fn a_document_that_does_not_match_the_request_is_refused() {
    let server = AuthServer::start(&["--cimd"]);
    let url = server.document_url();
    let port = free_port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let elsewhere = url.replace("mcpdeck-client.json", "other.json");
    for (published, why) in [
        (
            document(&elsewhere, std::slice::from_ref(&redirect)),
            "names another URL",
        ),
        (
            document(&url, &["http://127.0.0.1:1/other-path".to_owned()]),
            "lists another redirect",
        ),
    ] {
        server.publish_document(&published);
        let sb = sandbox(
            &server,
            Some(json!({"clientMetadataUrl": url, "redirectPort": port})),
        );
        let (mut child, authorize) = paste_login(&sb);
        let (status, location) = server.answer_of(&authorize);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!((status, location), (400, None), "a document that {why}");
    }
    assert_eq!(server.seen()["cimd_fetches"], 2);
    assert_eq!(server.seen()["code_exchanges"], 0);
}

/// The scope words of the `n`th authorization request, sorted.
fn scopes_asked(server: &AuthServer, n: usize) -> Vec<String> {
    let seen = server.seen();
    let scope = seen["scopes"][n]
        .as_str()
        .unwrap_or_else(|| panic!("no authorization request {n}: {seen}"));
    let mut words: Vec<String> = scope.split_whitespace().map(str::to_owned).collect();
    words.sort();
    words
}

fn words(list: &[&str]) -> Vec<String> {
    let mut words: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
    words.sort();
    words
}

/// Every way mcpdeck arrives at its scopes — the challenge's `scope`, the protected-resource
/// metadata's `scopes_supported`, the definition's `oauth.scopes`, a step-up — adds
/// `offline_access` when the authorization server lists it, and only then.
#[test]
fn offline_access_is_asked_for_only_when_the_authorization_server_lists_it() {
    for listed in [true, false] {
        let with = |base: &[&str]| {
            let mut all = base.to_vec();
            if listed {
                all.push("offline_access");
            }
            words(&all)
        };
        let extra: &[&str] = if listed {
            &[]
        } else {
            &["--no-offline-access"]
        };
        let cases: [(&[&str], Option<Value>, &[&str]); 3] = [
            // The challenge's scope.
            (&[], None, &["read"]),
            // No scope in the challenge: the protected-resource metadata's.
            (&["--bare-challenge"], None, &["read"]),
            // No scope in the challenge, and the definition names its own.
            (
                &["--bare-challenge"],
                Some(json!({"scopes": ["write"]})),
                &["write"],
            ),
        ];
        for (flags, oauth, expected) in cases {
            let server = AuthServer::start(&[flags, extra].concat());
            let sb = sandbox(&server, oauth.clone());
            let login = mcpdeck(&sb, &["auth", "login", "web"], "");
            assert_eq!(login.code, 0, "{flags:?} {oauth:?}: {}", login.stderr);
            assert_eq!(
                scopes_asked(&server, 0),
                with(expected),
                "listed: {listed}, {flags:?} {oauth:?}"
            );
            // The registration covers what is asked for (the fixture refuses other scopes to a
            // client registered for some); it names scopes only when mcpdeck chose them.
            let registered = server.seen()["registered_scopes"][0]
                .as_str()
                .expect("registered")
                .to_owned();
            let mut registered: Vec<String> =
                registered.split_whitespace().map(str::to_owned).collect();
            registered.sort();
            if oauth.is_some() {
                assert_eq!(registered, with(expected), "listed: {listed}");
            } else {
                assert!(registered.is_empty(), "{registered:?}");
            }
        }

        // A step-up asks for the held scopes and the demanded ones.
        let server = AuthServer::start(extra);
        let sb = sandbox(&server, None);
        let call = mcpdeck(&sb, &["call", "web", "add", "a=1", "b=2", "--login"], "");
        assert_eq!(call.code, 0, "{}", call.stderr);
        assert_eq!(
            scopes_asked(&server, 0),
            with(&["read"]),
            "listed: {listed}"
        );
        assert_eq!(
            scopes_asked(&server, 1),
            with(&["read", "write"]),
            "step-up, listed: {listed}"
        );
    }
}
