//! The one shape of an HTTP client decorator. rmcp's [`StreamableHttpClient`] has six methods
//! (three ways to post, delete, two ways to open a stream); a decorator — the guard
//! (`http_guard.rs`) and the signing-in client (`auth/token_client.rs`) — says only what it does
//! to a [`Post`], a [`Delete`] and a [`Get`], each the whole of one call as data, and forwards
//! the rest by default; [`Layered`] turns it into a client, mapping the six methods once.
//! A post's limits are always explicit ([`StreamableHttpResponseLimits::default`] for a plain
//! post); a stream's event limit is `None` when the caller gave none, so the decorator (or the
//! client underneath) picks its own.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

/// A client's error type.
pub(crate) type LayerError<C> = StreamableHttpError<<C as StreamableHttpClient>::Error>;

/// An SSE stream.
pub(crate) type SseStream = BoxStream<'static, Result<Sse, SseError>>;

/// One POST of a message.
#[derive(Debug, Clone)]
pub(crate) struct Post {
    pub uri: Arc<str>,
    pub message: ClientJsonRpcMessage,
    pub session_id: Option<Arc<str>>,
    pub auth_header: Option<String>,
    pub headers: HashMap<HeaderName, HeaderValue>,
    pub limits: StreamableHttpResponseLimits,
}

impl Post {
    /// Sends it through `client` as it is.
    pub(crate) async fn forward<C: StreamableHttpClient + Sync>(
        self,
        client: &C,
    ) -> Result<StreamableHttpPostResponse, LayerError<C>> {
        client
            .post_message_with_response_limits(
                self.uri,
                self.message,
                self.session_id,
                self.auth_header,
                self.headers,
                self.limits,
            )
            .await
    }
}

/// One DELETE of a session.
#[derive(Debug, Clone)]
pub(crate) struct Delete {
    pub uri: Arc<str>,
    pub session_id: Arc<str>,
    pub auth_header: Option<String>,
    pub headers: HashMap<HeaderName, HeaderValue>,
}

impl Delete {
    /// Sends it through `client` as it is.
    pub(crate) async fn forward<C: StreamableHttpClient + Sync>(
        self,
        client: &C,
    ) -> Result<(), LayerError<C>> {
        client
            .delete_session(self.uri, self.session_id, self.auth_header, self.headers)
            .await
    }
}

/// One GET of an event stream.
#[derive(Debug, Clone)]
pub(crate) struct Get {
    pub uri: Arc<str>,
    pub session_id: Option<Arc<str>>,
    pub last_event_id: Option<String>,
    pub auth_header: Option<String>,
    pub headers: HashMap<HeaderName, HeaderValue>,
    /// The largest event, when the caller set one.
    pub max_event: Option<usize>,
}

impl Get {
    /// Opens it through `client` as it is.
    pub(crate) async fn forward<C: StreamableHttpClient + Sync>(
        self,
        client: &C,
    ) -> Result<SseStream, LayerError<C>> {
        match self.max_event {
            None => {
                client
                    .get_stream(
                        self.uri,
                        self.session_id,
                        self.last_event_id,
                        self.auth_header,
                        self.headers,
                    )
                    .await
            }
            Some(max) => {
                client
                    .get_stream_with_max_sse_event_size(
                        self.uri,
                        self.session_id,
                        self.last_event_id,
                        self.auth_header,
                        self.headers,
                        max,
                    )
                    .await
            }
        }
    }
}

/// An HTTP client decorator: what it does to each kind of call, over the client it wraps.
pub(crate) trait HttpLayer: Clone + Send + Sync + 'static {
    /// The client it wraps.
    type Inner: StreamableHttpClient + Sync;

    /// The client it wraps.
    fn inner(&self) -> &Self::Inner;

    /// A POST (by default, sent on as it is).
    fn post(
        &self,
        post: Post,
    ) -> impl Future<Output = Result<StreamableHttpPostResponse, LayerError<Self::Inner>>> + Send + '_
    {
        post.forward(self.inner())
    }

    /// A DELETE (by default, sent on as it is).
    fn delete(
        &self,
        delete: Delete,
    ) -> impl Future<Output = Result<(), LayerError<Self::Inner>>> + Send + '_ {
        delete.forward(self.inner())
    }

    /// A GET (by default, opened as it is).
    fn get(
        &self,
        get: Get,
    ) -> impl Future<Output = Result<SseStream, LayerError<Self::Inner>>> + Send + '_ {
        get.forward(self.inner())
    }
}

/// A decorator as rmcp's client.
#[derive(Debug, Clone)]
pub(crate) struct Layered<L>(pub(crate) L);

impl<L: HttpLayer> StreamableHttpClient for Layered<L> {
    type Error = <L::Inner as StreamableHttpClient>::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, LayerError<Self>> {
        let limits = StreamableHttpResponseLimits::default();
        let post = Post {
            uri,
            message,
            session_id,
            auth_header,
            headers,
            limits,
        };
        self.0.post(post).await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, LayerError<Self>> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        let post = Post {
            uri,
            message,
            session_id,
            auth_header,
            headers,
            limits,
        };
        self.0.post(post).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, LayerError<Self>> {
        let post = Post {
            uri,
            message,
            session_id,
            auth_header,
            headers,
            limits,
        };
        self.0.post(post).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), LayerError<Self>> {
        let delete = Delete {
            uri,
            session_id,
            auth_header,
            headers,
        };
        self.0.delete(delete).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseStream, LayerError<Self>> {
        let get = Get {
            uri,
            session_id,
            last_event_id,
            auth_header,
            headers,
            max_event: None,
        };
        self.0.get(get).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<SseStream, LayerError<Self>> {
        let get = Get {
            uri,
            session_id,
            last_event_id,
            auth_header,
            headers,
            max_event: Some(max_sse_event_size),
        };
        self.0.get(get).await
    }
}
