//! The loopback redirect listener of one sign-in: bound to `127.0.0.1` only (never a wildcard
//! address), on a random port unless one is configured, answering exactly one request to its
//! callback path and then closing, or giving up after five minutes. The `state` parameter is
//! checked here, before any code is exchanged; the page it answers only says to return to the
//! terminal and never echoes what it received.

use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use crate::mcp::pending::{Pending, Settled};

/// How long the listener waits for the browser.
pub(crate) const CALLBACK_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The path the authorization server redirects to.
pub(crate) const CALLBACK_PATH: &str = "/callback";

/// Largest request head read from the browser.
const MAX_HEAD: usize = 16 * 1024;

/// Why no usable callback arrived.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallbackError {
    /// Nothing arrived in time.
    #[error("no sign-in callback arrived within {} minutes", CALLBACK_TIMEOUT.as_secs() / 60)]
    Timeout,
    /// The `state` did not match this sign-in (a forged or stale redirect).
    #[error(
        "the sign-in callback carried a `state` that does not match this sign-in; nothing was exchanged"
    )]
    StateMismatch,
    /// The authorization server answered with an error.
    #[error("the authorization server refused the sign-in: {0}")]
    Refused(String),
    /// The listener failed.
    #[error("the redirect listener failed: {0}")]
    Io(String),
}

/// A bound listener waiting for its one callback.
pub(crate) struct RedirectListener {
    listener: TcpListener,
    port: u16,
}

impl RedirectListener {
    /// Binds `127.0.0.1:port` (0: a free port).
    pub(crate) async fn bind(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self { listener, port })
    }

    /// The redirect URI to register and send.
    pub(crate) fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// The bound port.
    #[cfg(test)]
    fn port(&self) -> u16 {
        self.port
    }

    /// Waits for the callback (other paths get a 404 and the wait goes on), checks `state`
    /// against `expected_state`, answers the browser and returns the full redirect URL.
    /// Consumes the listener: it closes whatever happens.
    /// The wait is a [`Pending`] answered by the listener, with `timeout` as its timeout.
    pub(crate) async fn wait(
        self,
        expected_state: &str,
        timeout: Duration,
    ) -> Result<String, CallbackError> {
        let (pending, reply) = Pending::new(0, Some(timeout));
        let listen = async {
            let _ = reply.answer(self.listen(expected_state).await);
        };
        tokio::pin!(listen);
        let wait = pending.wait(std::future::pending());
        tokio::pin!(wait);
        let mut answered = false;
        let settled = loop {
            tokio::select! {
                settled = &mut wait => break settled,
                () = &mut listen, if !answered => answered = true,
            }
        };
        match settled {
            Settled::Answered(result) => result,
            Settled::TimedOut => Err(CallbackError::Timeout),
            Settled::Cancelled | Settled::Abandoned => {
                Err(CallbackError::Io("the sign-in wait ended".to_owned()))
            }
        }
    }

    /// Answers the browser's requests until one is the callback (or the listener fails).
    async fn listen(&self, expected_state: &str) -> Result<String, CallbackError> {
        loop {
            let (mut stream, _) = match self.listener.accept().await {
                Err(e) => return Err(CallbackError::Io(e.kind().to_string())),
                Ok(pair) => pair,
            };
            let Some(target) = read_target(&mut stream).await else {
                continue;
            };
            let Ok(url) = url::Url::parse(&format!("http://127.0.0.1:{}{target}", self.port))
            else {
                respond(&mut stream, 400, "That was not a sign-in callback.").await;
                continue;
            };
            if url.path() != CALLBACK_PATH {
                respond(&mut stream, 404, "Not found.").await;
                continue;
            }
            let param = |name: &str| {
                url.query_pairs()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.into_owned())
            };
            if param("state").as_deref() != Some(expected_state) {
                respond(
                    &mut stream,
                    400,
                    "This sign-in link does not belong to the sign-in in progress. Return to the terminal.",
                )
                .await;
                return Err(CallbackError::StateMismatch);
            }
            if let Some(error) = param("error") {
                respond(
                    &mut stream,
                    400,
                    "The sign-in was refused. Return to the terminal.",
                )
                .await;
                return Err(CallbackError::Refused(
                    crate::mcp::sanitize::sanitize_capped(&error, 100),
                ));
            }
            respond(
                &mut stream,
                200,
                "Signed in. You can close this page and return to the terminal.",
            )
            .await;
            return Ok(url.to_string());
        }
    }
}

/// Reads the request line's target (`/callback?...`); `None` for anything that is not a GET.
async fn read_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0_u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 || head.len() + n > MAX_HEAD {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let text = std::str::from_utf8(&head).ok()?;
    let line = text.lines().next()?;
    let mut parts = line.split(' ');
    (parts.next()? == "GET").then_some(())?;
    let target = parts.next()?;
    target.starts_with('/').then(|| target.to_owned())
}

async fn respond(stream: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Bad Request",
    };
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>mcpdeck</title></head>\
         <body><p>{text}</p></body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\n\
         content-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Checks a pasted redirect URL: it must point at this sign-in's redirect URI (a URL that goes
/// anywhere else was not produced for this sign-in), carry the expected `state` and no error.
pub(crate) fn check_pasted(
    pasted: &str,
    redirect_uri: &str,
    expected_state: &str,
) -> Result<String, CallbackError> {
    let url = url::Url::parse(pasted.trim())
        .map_err(|_| CallbackError::Refused("the pasted text is not a URL".into()))?;
    let expected =
        url::Url::parse(redirect_uri).map_err(|_| CallbackError::Io("bad redirect URI".into()))?;
    if url.origin() != expected.origin() || url.path() != expected.path() {
        return Err(CallbackError::Refused(
            "the pasted URL does not go to this sign-in's loopback redirect address".into(),
        ));
    }
    let param = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    if param("state").as_deref() != Some(expected_state) {
        return Err(CallbackError::StateMismatch);
    }
    if let Some(error) = param("error") {
        return Err(CallbackError::Refused(
            crate::mcp::sanitize::sanitize_capped(&error, 100),
        ));
    }
    Ok(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn binds_loopback_only_and_answers_one_callback() {
        let listener = RedirectListener::bind(0).await.expect("bind");
        let uri = listener.redirect_uri();
        assert!(uri.starts_with("http://127.0.0.1:"));
        let port = listener.port();
        let waiting = tokio::spawn(async move { listener.wait("s1", CALLBACK_TIMEOUT).await });
        let mut other = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        other
            .write_all(b"GET /favicon.ico HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .expect("write");
        let mut answer = String::new();
        other.read_to_string(&mut answer).await.expect("read");
        assert!(answer.starts_with("HTTP/1.1 404"));
        let mut cb = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        cb.write_all(b"GET /callback?code=abc&state=s1 HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .expect("write");
        let mut page = String::new();
        cb.read_to_string(&mut page).await.expect("read");
        assert!(page.starts_with("HTTP/1.1 200"));
        assert!(page.contains("return to the terminal"));
        assert!(!page.contains("abc"), "the page never echoes the code");
        let url = waiting.await.expect("join").expect("callback");
        assert!(url.contains("code=abc"));
        // One use: the port is closed now.
        assert!(TcpStream::connect(("127.0.0.1", port)).await.is_err());
    }

    #[tokio::test]
    async fn a_mismatched_state_ends_the_sign_in() {
        let listener = RedirectListener::bind(0).await.expect("bind");
        let port = listener.port();
        let waiting = tokio::spawn(async move { listener.wait("good", CALLBACK_TIMEOUT).await });
        let mut cb = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        cb.write_all(b"GET /callback?code=abc&state=evil HTTP/1.1\r\n\r\n")
            .await
            .expect("write");
        let mut page = String::new();
        cb.read_to_string(&mut page).await.expect("read");
        assert!(page.starts_with("HTTP/1.1 400"));
        assert_eq!(
            waiting.await.expect("join"),
            Err(CallbackError::StateMismatch)
        );
    }

    // Paused time: nobody connects, so the wait ends exactly at its timeout.
    #[tokio::test(start_paused = true)]
    async fn gives_up_after_its_timeout() {
        let listener = RedirectListener::bind(0).await.expect("bind");
        let started = tokio::time::Instant::now();
        let result = listener.wait("s", Duration::from_secs(300)).await;
        assert_eq!(result, Err(CallbackError::Timeout));
        assert_eq!(started.elapsed(), Duration::from_secs(300));
    }

    #[test]
    fn pasted_urls_must_come_back_to_the_loopback_redirect() {
        let uri = "http://127.0.0.1:4000/callback";
        assert!(check_pasted("http://127.0.0.1:4000/callback?code=c&state=s", uri, "s").is_ok());
        assert!(matches!(
            check_pasted("https://evil.example/callback?code=c&state=s", uri, "s"),
            Err(CallbackError::Refused(_))
        ));
        assert_eq!(
            check_pasted("http://127.0.0.1:4000/callback?code=c&state=x", uri, "s"),
            Err(CallbackError::StateMismatch)
        );
    }
}
