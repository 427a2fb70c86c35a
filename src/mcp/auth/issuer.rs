//! Credentials are bound to the authorization server that issued them. Registrations are kept
//! under that server's issuer ([`super::flow::authorization_server_key`]); tokens under the MCP
//! server's URL, each recording the issuer that minted them. A client ID, its secret, or a
//! refresh token is only ever sent to the issuer it belongs to: when the server's
//! protected-resource metadata names another authorization server, the old tokens are not
//! refreshed there (rmcp drops them at connect) and the next sign-in registers anew.
//!
//! Tokens stored before issuers were recorded carry none. [`bind`] migrates them in place —
//! without a new sign-in — when the issuer that the server names now is provably theirs (a
//! registration kept under it holds their client ID, or the client is the one configured for
//! this server); otherwise they stay unbound and are never refreshed.

use super::store::{Registration, StoreDoc};

/// What [`bind`] found for a server's stored tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binding {
    /// No tokens are stored, or they already name an issuer (which rmcp compares).
    Bound,
    /// They named no issuer and now name `issuer`: migrated.
    Migrated,
    /// They name no issuer and nothing ties them to `issuer`: they must not be refreshed there.
    Unbound,
}

/// Records `issuer` on the tokens of `server_key` that name none, when they belong to it.
/// `configured` is the client ID of the server's definition (`oauth.clientId`), if any.
pub(crate) fn bind(
    doc: &mut StoreDoc,
    server_key: &str,
    issuer: &str,
    configured: Option<&str>,
) -> Binding {
    let registered = doc.registrations.get(issuer).map(|r| r.client_id.clone());
    let Some(creds) = doc.servers.get_mut(server_key) else {
        return Binding::Bound;
    };
    if creds.issuer.is_some() {
        return Binding::Bound;
    }
    let ours = registered.as_deref() == Some(creds.client_id.as_str())
        || configured == Some(creds.client_id.as_str());
    if !ours {
        return Binding::Unbound;
    }
    creds.issuer = Some(issuer.to_owned());
    Binding::Migrated
}

/// The registration kept for the authorization server `as_key` when it is the one that issued
/// `client_id`: a secret is never taken from another authorization server's registration, even
/// one that happens to hold the same client ID.
pub(crate) fn registration_of(
    doc: &StoreDoc,
    as_key: &str,
    client_id: &str,
) -> Option<Registration> {
    doc.registrations
        .get(as_key)
        .filter(|r| r.client_id == client_id)
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::auth::StoredCredentials;

    fn registration(client_id: &str) -> Registration {
        Registration {
            client_id: client_id.to_owned(),
            client_secret: Some(format!("{client_id}-secret")),
            redirect_uri: "http://127.0.0.1:1/callback".to_owned(),
            auth_method: "client_secret_basic".to_owned(),
        }
    }

    fn doc_with(client_id: &str, issuer: Option<&str>) -> StoreDoc {
        let mut doc = StoreDoc::default();
        doc.servers.insert(
            "https://mcp.example/mcp".to_owned(),
            StoredCredentials::new(client_id.to_owned(), None, Vec::new(), None)
                .with_issuer(issuer.map(str::to_owned)),
        );
        doc.registrations
            .insert("https://as1.example".to_owned(), registration("as1-client"));
        doc.registrations
            .insert("https://as2.example".to_owned(), registration("as2-client"));
        doc
    }

    const SERVER: &str = "https://mcp.example/mcp";

    #[test]
    fn tokens_without_an_issuer_migrate_to_the_issuer_that_registered_their_client() {
        let mut doc = doc_with("as1-client", None);
        assert_eq!(
            bind(&mut doc, SERVER, "https://as1.example", None),
            Binding::Migrated
        );
        assert_eq!(
            doc.servers[SERVER].issuer.as_deref(),
            Some("https://as1.example")
        );
        // Bound now: another issuer is rmcp's to refuse, never re-bound here.
        assert_eq!(
            bind(&mut doc, SERVER, "https://as2.example", None),
            Binding::Bound
        );
        assert_eq!(
            doc.servers[SERVER].issuer.as_deref(),
            Some("https://as1.example")
        );
    }

    #[test]
    fn tokens_of_another_issuers_client_stay_unbound() {
        let mut doc = doc_with("as1-client", None);
        assert_eq!(
            bind(&mut doc, SERVER, "https://as2.example", None),
            Binding::Unbound
        );
        assert_eq!(doc.servers[SERVER].issuer, None);
        let mut doc = doc_with("pre-registered", None);
        assert_eq!(
            bind(
                &mut doc,
                SERVER,
                "https://as2.example",
                Some("pre-registered")
            ),
            Binding::Migrated
        );
    }

    #[test]
    fn a_secret_comes_only_from_the_registration_of_the_tokens_issuer() {
        let doc = doc_with("as1-client", Some("https://as1.example"));
        assert_eq!(
            registration_of(&doc, "https://as1.example", "as1-client")
                .and_then(|r| r.client_secret)
                .as_deref(),
            Some("as1-client-secret")
        );
        assert!(registration_of(&doc, "https://as2.example", "as1-client").is_none());
    }
}
