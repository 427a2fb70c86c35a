//! Hostile sign-in: what an authorization server or a server's metadata can make mcpdeck open,
//! send or print. The real binary against the fixture's OAuth mode (127.0.0.1 only; a
//! "non-loopback" host is reached through the fixture as the client's HTTP proxy).

use crate::common;

use common::auth_fixture::{Run, sandbox};
use common::{AuthServer, Sandbox, fixture};

/// Runs `mcpdeck ARGS` in the sandbox with `browser` as `$BROWSER` and `extra` environment.
fn run_with(sb: &Sandbox, args: &[&str], browser: &str, extra: &[(&str, String)]) -> Run {
    let mut cmd = sb.cmd();
    cmd.env("BROWSER", browser).args(args);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The one opener: `https`, or `http` on loopback; anything else is refused naming its scheme,
/// and the `$BROWSER` command never starts.
#[test]
fn the_opener_hands_over_only_https_or_loopback_http() {
    let dir = tempfile::tempdir().expect("dir");
    let log = dir.path().join("opened");
    let recorder = format!("{} record {}", fixture(), log.display());
    for (url, scheme) in [
        ("file:///etc/passwd", "`file`"),
        ("javascript:alert(1)", "`javascript`"),
        ("vscode://ms-vscode.remote/open?x=1", "`vscode`"),
        ("http://evil.test/collect", "`http`"),
        ("data:text/html,<script>", "`data`"),
    ] {
        let refused = mcpdeck::mcp::opener::open_with(url, Some(&recorder));
        assert!(
            refused.as_ref().is_err_and(|e| e.contains(scheme)),
            "{url}: {refused:?}"
        );
    }
    assert!(!log.exists(), "a refused URL reached $BROWSER");

    // `$BROWSER` is a `:` list (the first that starts wins) and `%s` places the URL.
    for (i, url) in ["https://example.test/a", "http://127.0.0.1:9/cb"]
        .into_iter()
        .enumerate()
    {
        let log = dir.path().join(format!("opened-{i}"));
        let recorder = format!("{} record {}", fixture(), log.display());
        let listed = format!("/nonexistent/browser:{recorder} --new-tab %s --after");
        mcpdeck::mcp::opener::open_with(url, Some(&listed)).expect("opened");
        assert_eq!(recorded(&log), ["--new-tab", url, "--after"]);
    }
}

/// The lines the recorder wrote to `log`, once it has written (it is reaped in the background).
fn recorded(log: &std::path::Path) -> Vec<String> {
    let text = || std::fs::read_to_string(log).unwrap_or_default();
    let parent = log.parent().expect("a directory");
    common::fs_wait::until_changed_blocking(parent, std::time::Duration::from_secs(20), || {
        text().ends_with('\n')
    });
    text().lines().map(str::to_owned).collect()
}

/// An authorization endpoint that is not a web URL never reaches the browser: sign-in is
/// refused with the scheme named, before anything is registered or opened.
#[test]
fn sign_in_refuses_an_authorization_endpoint_that_is_not_https() {
    for endpoint in [
        "file:///etc/passwd",
        "javascript:alert(document.cookie)",
        "vscode://evil/authorize",
    ] {
        let server = AuthServer::start(&["--authorize-endpoint", endpoint]);
        let sb = sandbox(&server, None);
        let log = sb.dir.path().join("opened");
        let recorder = format!("{} record {}", fixture(), log.display());
        let login = run_with(&sb, &["auth", "login", "web"], &recorder, &[]);
        assert_eq!(login.code, 3, "{endpoint}: {}", login.stderr);
        let scheme = endpoint.split(':').next().expect("scheme");
        assert!(
            login.stderr.contains(&format!("`{scheme}`")) && login.stderr.contains("https"),
            "{endpoint}: {}",
            login.stderr
        );
        assert!(!log.exists(), "{endpoint} reached $BROWSER");
        assert_eq!(server.seen()["registrations"], 0, "{endpoint}");
    }
}

/// Protected-resource metadata naming a plain-http authorization server off loopback: refused
/// before a registration, an authorization or a code exchange is sent to it.
#[test]
fn a_plain_http_authorization_server_gets_no_code_verifier_or_secret() {
    let server = AuthServer::start(&["--plain-as"]);
    let sb = sandbox(
        &server,
        Some(serde_json::json!({"clientId": "pre-client", "clientSecret": "${CLIENT_SECRET}"})),
    );
    let browser = format!("{} browse", fixture());
    let proxy = format!("http://127.0.0.1:{}", server.port);
    let env = [
        ("HTTP_PROXY", proxy.clone()),
        ("http_proxy", proxy),
        ("NO_PROXY", "127.0.0.1,localhost".to_owned()),
        ("CLIENT_SECRET", "s3cret-value".to_owned()),
    ];
    let login = run_with(&sb, &["auth", "login", "web"], &browser, &env);
    assert_eq!(login.code, 3, "{}\n{}", login.stdout, login.stderr);
    assert!(
        login.stderr.contains("`http`") && login.stderr.contains("https"),
        "the rule is stated: {}",
        login.stderr
    );
    let seen = server.seen();
    assert_eq!(seen["authorizations"], 0, "{seen}");
    assert_eq!(seen["code_exchanges"], 0, "{seen}");
    let plain: Vec<&str> = seen["plain_requests"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        plain.iter().all(|r| r.starts_with("GET /.well-known/")),
        "only public metadata was fetched from the plain-http host: {plain:?}"
    );
}

/// A server that shows the bearer token re-encoded (base64, base64url, inside a base64
/// `Bearer …` or `user:…`, hex, reversed): every spelling is redacted.
#[test]
fn a_re_encoded_bearer_token_is_redacted() {
    use base64::Engine as _;
    let server = AuthServer::start(&["--echo-encoded"]);
    let sb = sandbox(&server, None);
    let login = common::auth_fixture::mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    for json in [false, true] {
        let mut args = vec!["call", "web", "echo", "text=hi"];
        if json {
            args.push("--json");
        }
        let call = common::auth_fixture::mcpdeck(&sb, &args, "");
        assert_eq!(call.code, 0, "{}", call.stderr);
        assert!(
            call.stdout.contains("b64="),
            "the server echoed: {}",
            call.stdout
        );
        let token = common::auth_fixture::stored_token(&sb, "access_token");
        let b64 = base64::engine::general_purpose::STANDARD;
        let url = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let spellings = [
            b64.encode(&token).trim_end_matches('=').to_owned(),
            url.encode(&token),
            hex::encode(&token),
            hex::encode_upper(&token),
            token.chars().rev().collect::<String>(),
        ];
        for spelling in &spellings {
            assert!(
                !call.stdout.contains(spelling.as_str())
                    && !call.stderr.contains(spelling.as_str()),
                "{spelling} printed: {}",
                call.stdout
            );
        }
        // Inside a longer base64 value, the token's own part of it is gone: at most the two
        // characters at each edge, shared with its neighbours, remain.
        for whole in [format!("Bearer {token}"), format!("user:{token}")] {
            let encoded = b64.encode(whole);
            let middle = &encoded[encoded.len() / 2 - 8..encoded.len() / 2 + 8];
            assert!(
                !call.stdout.contains(middle),
                "{middle} printed: {}",
                call.stdout
            );
        }
    }
}

/// `expires_in: 0`: the token is used for its burst of requests, refreshed at most once per
/// command, never in a loop.
#[test]
fn a_token_that_expires_at_once_is_refreshed_at_most_once_per_burst() {
    let server = AuthServer::start(&["--ttl", "0"]);
    let sb = sandbox(&server, None);
    let login = common::auth_fixture::mcpdeck(&sb, &["auth", "login", "web"], "");
    assert_eq!(login.code, 0, "{}", login.stderr);
    let commands: [&[&str]; 3] = [
        &["tools", "web", "--json"],
        &["call", "web", "echo", "text=hi", "--json"],
        &["call", "web", "echo", "text=again", "--json"],
    ];
    for args in commands {
        let before = server.seen()["refreshes"].as_u64().unwrap_or(0);
        let run = common::auth_fixture::mcpdeck(&sb, args, "");
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let refreshes = server.seen()["refreshes"].as_u64().unwrap_or(0) - before;
        assert!(refreshes <= 1, "{args:?} refreshed {refreshes} times");
    }
    let seen = server.seen();
    assert!(seen["bearer_requests"].as_u64() > Some(6), "{seen}");
}
