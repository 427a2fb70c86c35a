//! The HTTP client of a connection that signs in: rmcp's [`AuthClient`] (tokens from the store,
//! refreshed before use when about to expire), with mcpdeck's answer to a refused token.
//!
//! rmcp's own answer refreshes once per refused request. Two requests refused with the same
//! token (two operations in flight on one connection when the server stops accepting it) would
//! then refresh twice: the second refresh spends the rotated refresh token the first one just
//! stored. Here a refused request first looks at the store under its lock: when the token there
//! is no longer the one that was refused, someone (another request on this connection, another
//! connection, another mcpdeck process) has refreshed already, and the request is retried with
//! that token; otherwise this request refreshes, holding the lock it looked under, so no other
//! refresh can start in between. Either way a refused request is retried at most once.
//!
//! A token the store hands out is reused for [`BURST`] by every request of this connection
//! instead of being asked for again: rmcp refreshes a token before use when it is about to
//! expire, so a token issued with `expires_in: 0` would otherwise be refreshed for every
//! request. It is used for the requests of its burst; the server may still refuse it, and a
//! refused request is retried at most once (above), so a refresh loop cannot happen.
//!
//! Every token a request carries is added to the connection's [`LiveSecrets`] before it is
//! sent, so a server that writes it back (a tool that shows its request headers) has it
//! redacted like any configured secret.

use std::collections::HashMap;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use oauth2::TokenResponse as _;
use rmcp::transport::auth::{AuthClient, AuthError};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::dpop::{Audience, DpopKey};
use super::store::ServerTokens;
use crate::mcp::connection::http_layer::{Delete, Get, HttpLayer, Post, SseStream};
use crate::mcp::results::redact::LiveSecrets;

/// A connection's HTTP client: `tokens` is `None` for a server that does not use OAuth, whose
/// requests then carry nothing added.
#[derive(Clone)]
pub(crate) struct TokenClient<C> {
    inner: AuthClient<C>,
    tokens: Option<ServerTokens>,
    live: LiveSecrets,
    /// The token last handed out by the store, and when.
    recent: Arc<std::sync::Mutex<Option<(String, std::time::Instant)>>>,
    /// The DPoP key the tokens are bound to: each request then carries `Authorization: DPoP`
    /// and a fresh proof ([`super::dpop`]).
    dpop: Option<Arc<DpopKey>>,
}

/// How long a token the store handed out is used without asking again.
const BURST: std::time::Duration = std::time::Duration::from_secs(10);

impl<C> TokenClient<C> {
    /// Wraps rmcp's client; `tokens` is the same store handle its manager was given.
    pub(crate) fn new(inner: AuthClient<C>, tokens: Option<ServerTokens>) -> Self {
        Self {
            inner,
            tokens,
            live: LiveSecrets::default(),
            recent: Arc::default(),
            dpop: None,
        }
    }

    /// This client with its tokens presented as DPoP-bound to `key`.
    pub(crate) fn with_dpop(mut self, key: Option<Arc<DpopKey>>) -> Self {
        self.dpop = key;
        self
    }

    /// This client adding the tokens it sends to `live` (its server's shared handle,
    /// [`super::minted`]) instead of a handle of its own.
    pub(crate) fn with_live(mut self, live: LiveSecrets) -> Self {
        self.live = live;
        self
    }

    /// Every token this client has sent, for the connection's redactor.
    pub(crate) fn live(&self) -> LiveSecrets {
        self.live.clone()
    }
}

impl<C> std::fmt::Debug for TokenClient<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenClient")
            .field("signs_in", &self.tokens.is_some())
            .field("dpop", &self.dpop.is_some())
            .finish_non_exhaustive()
    }
}

type HttpResult<T, C> = Result<T, StreamableHttpError<<C as StreamableHttpClient>::Error>>;

/// Headers added to one request.
type Headers = HashMap<HeaderName, HeaderValue>;

/// Where one request goes: its method, URI and the caller's own headers.
struct Request<'a> {
    method: &'static str,
    uri: &'a str,
    headers: &'a Headers,
}

impl<C: StreamableHttpClient + Send + Sync> TokenClient<C> {
    /// Runs `call` with the stored token (none when there is none: the server's challenge then
    /// reaches the caller), and answers a refusal of that token with at most one retry: with the
    /// nonce a DPoP server asked for, else with a refreshed token.
    async fn with_token<T, F, Fut>(
        &self,
        given: Option<String>,
        request: Request<'_>,
        call: F,
    ) -> HttpResult<T, C>
    where
        F: Fn(Option<String>, Headers) -> Fut,
        Fut: Future<Output = HttpResult<T, C>>,
    {
        let call = &call;
        let request = &request;
        let call = |token: Option<String>| {
            if let Some(token) = &token {
                self.live.add(token);
            }
            let presented = self.present(token, request);
            async move {
                let (bearer, headers) = presented?;
                call(bearer, headers).await
            }
        };
        let token = match given {
            Some(token) => Some(token),
            None => match self.current_token().await {
                Ok(token) => Some(token),
                Err(AuthError::AuthorizationRequired) => None,
                Err(error) => return Err(error.into()),
            },
        };
        match call(token.clone()).await {
            Err(StreamableHttpError::AuthRequired(challenge)) => {
                let Some(sent) = token else {
                    return Err(StreamableHttpError::AuthRequired(challenge));
                };
                if let Some(key) = &self.dpop
                    && asks_for_nonce(&challenge.www_authenticate_header)
                {
                    // RFC 9449, section 9: retried once, with the nonce the server names.
                    if learn_nonce(key, request.uri, &sent).await {
                        return call(Some(sent)).await;
                    }
                    return Err(StreamableHttpError::AuthRequired(challenge));
                }
                match self.after_refusal(&sent).await {
                    Ok(fresh) if fresh != sent => {
                        self.keep(&fresh);
                        call(Some(fresh)).await
                    }
                    Ok(_) | Err(AuthError::AuthorizationRequired) => {
                        Err(StreamableHttpError::AuthRequired(challenge))
                    }
                    Err(error) => Err(error.into()),
                }
            }
            other => other,
        }
    }

    /// How `token` goes out: as rmcp's bearer token, or (DPoP) in an `Authorization: DPoP`
    /// header beside a fresh proof, both among the request's headers.
    fn present(
        &self,
        token: Option<String>,
        request: &Request<'_>,
    ) -> Result<(Option<String>, Headers), AuthError> {
        let mut headers = request.headers.clone();
        let (Some(key), Some(token)) = (&self.dpop, &token) else {
            return Ok((token, headers));
        };
        let proof = key
            .proof(Audience::Resource, request.method, request.uri, Some(token))
            .map_err(|e| AuthError::InternalError(e.message))?;
        self.live.add(&proof);
        let value = |text: &str| {
            let mut v = HeaderValue::from_str(text)
                .map_err(|_| AuthError::InternalError("a token is not a header value".into()))?;
            v.set_sensitive(true);
            Ok::<_, AuthError>(v)
        };
        headers.insert(
            http::header::AUTHORIZATION,
            value(&format!("DPoP {token}"))?,
        );
        headers.insert(HeaderName::from_static("dpop"), value(&proof)?);
        Ok((None, headers))
    }

    /// The token for the next request: the one handed out less than [`BURST`] ago, else the
    /// store's (refreshed first by rmcp when it is about to expire).
    async fn current_token(&self) -> Result<String, AuthError> {
        let kept = self
            .recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some((token, at)) = kept
            && at.elapsed() < BURST
        {
            return Ok(token);
        }
        let token = self.inner.get_access_token().await?;
        self.keep(&token);
        Ok(token)
    }

    fn keep(&self, token: &str) {
        *self
            .recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some((token.to_owned(), std::time::Instant::now()));
    }

    /// The token to retry with after the server refused `sent`: the stored one when it has been
    /// replaced meanwhile, else a refreshed one. `AuthorizationRequired` when only a new
    /// sign-in can help.
    async fn after_refusal(&self, sent: &str) -> Result<String, AuthError> {
        let manager = self.inner.auth_manager.lock().await;
        if let Some(tokens) = &self.tokens
            && tokens.replaced_since(sent).await?
        {
            return manager.get_access_token().await;
        }
        match manager.refresh_token().await {
            Ok(fresh) => Ok(fresh.access_token().secret().clone()),
            Err(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)) => {
                Err(AuthError::AuthorizationRequired)
            }
            Err(error) => Err(error),
        }
    }
}

/// Every call carries the token (see [`TokenClient::with_token`]); nothing else changes.
impl<C: StreamableHttpClient + Send + Sync> HttpLayer for TokenClient<C> {
    type Inner = C;

    fn inner(&self) -> &C {
        &self.inner.http_client
    }

    async fn post(&self, post: Post) -> HttpResult<StreamableHttpPostResponse, C> {
        let request = Request {
            method: "POST",
            uri: &post.uri,
            headers: &post.headers,
        };
        self.with_token(post.auth_header.clone(), request, |token, headers| {
            let post = Post {
                auth_header: token,
                headers,
                ..post.clone()
            };
            post.forward(self.inner())
        })
        .await
    }

    async fn delete(&self, delete: Delete) -> HttpResult<(), C> {
        let request = Request {
            method: "DELETE",
            uri: &delete.uri,
            headers: &delete.headers,
        };
        self.with_token(delete.auth_header.clone(), request, |token, headers| {
            let delete = Delete {
                auth_header: token,
                headers,
                ..delete.clone()
            };
            delete.forward(self.inner())
        })
        .await
    }

    async fn get(&self, get: Get) -> HttpResult<SseStream, C> {
        let request = Request {
            method: "GET",
            uri: &get.uri,
            headers: &get.headers,
        };
        self.with_token(get.auth_header.clone(), request, |token, headers| {
            let get = Get {
                auth_header: token,
                headers,
                ..get.clone()
            };
            get.forward(self.inner())
        })
        .await
    }
}

/// Whether a 401's challenge is DPoP's `use_dpop_nonce`.
fn asks_for_nonce(challenge: &str) -> bool {
    challenge.to_ascii_lowercase().contains("use_dpop_nonce")
}

/// Learns the nonce the MCP server at `uri` asks for (RFC 9449, section 9): rmcp's transport
/// keeps only the challenge of a refusal, not its `DPoP-Nonce` header, so a `ping` (harmless
/// should it be let through) is sent with the same token and a fresh proof, and the nonce read
/// from its answer. True when one was learned.
async fn learn_nonce(key: &DpopKey, uri: &str, token: &str) -> bool {
    crate::mcp::connection::http::install_crypto_provider();
    let Ok(client) = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
    else {
        return false;
    };
    let Ok(proof) = key.proof(Audience::Resource, "POST", uri, Some(token)) else {
        return false;
    };
    let ping = serde_json::json!({"jsonrpc": "2.0", "id": "mcpdeck-dpop-nonce", "method": "ping"});
    let answer = client
        .post(uri)
        .header(http::header::AUTHORIZATION, format!("DPoP {token}"))
        .header("dpop", proof)
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(ping.to_string())
        .send()
        .await;
    let Some(nonce) = answer
        .ok()
        .and_then(|a| super::dpop::nonce_header(a.headers()))
    else {
        return false;
    };
    key.set_nonce(Audience::Resource, &nonce);
    true
}
