//! The `oauth` block of an HTTP server definition: how mcpdeck identifies itself when it signs in
//! to that server. Every field is optional; an absent block still signs in (with dynamic client
//! registration or a client metadata document). `grant` chooses a headless grant instead of a
//! browser sign-in: client credentials, workload identity (`workloadToken[File]`) or
//! enterprise-managed authorization (`idp*`, `idToken[File]`); `dpop` decides on DPoP-bound
//! tokens. `clientSecret`, `privateKey`, `workloadToken`, `idpClientSecret` and `idToken` are
//! credentials, so they may only be references; the `…File` fields name a file (its mode and
//! owner are checked when it is read, not here). Nothing here reads the environment, a file or the network, and nothing in
//! a configuration file can hold, name or grant a token.

use super::diagnostic::nearest;
use super::fields::Cx;
use super::json::Spanned;
use super::refs::Template;

/// The fields the `oauth` block may have.
pub(crate) const OAUTH_FIELDS: &[&str] = &[
    "clientId",
    "clientSecret",
    "clientMetadataUrl",
    "scopes",
    "redirectPort",
    "grant",
    "privateKey",
    "privateKeyFile",
    "dpop",
    "workloadToken",
    "workloadTokenFile",
    "idpIssuer",
    "idpTokenEndpoint",
    "idpClientId",
    "idpClientSecret",
    "idToken",
    "idTokenFile",
];

/// How mcpdeck obtains tokens for a server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Grant {
    /// A browser sign-in: the authorization code flow with PKCE (the default).
    #[default]
    AuthorizationCode,
    /// Headless: the client-credentials grant with the configured client's own credentials.
    ClientCredentials,
    /// Headless: workload identity federation, the JWT-bearer grant with a workload token.
    WorkloadIdentity,
    /// Headless: enterprise-managed authorization, an ID token exchanged at the identity
    /// provider for an ID-JAG, then the JWT-bearer grant with it.
    EnterpriseManaged,
}

impl Grant {
    /// The grant's name as configured and shown (`authorization_code`, `client_credentials`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AuthorizationCode => "authorization_code",
            Self::ClientCredentials => "client_credentials",
            Self::WorkloadIdentity => "workload_identity",
            Self::EnterpriseManaged => "enterprise_managed",
        }
    }

    /// Whether tokens come without a browser (every grant but the authorization code's).
    pub fn is_headless(self) -> bool {
        self != Self::AuthorizationCode
    }
}

/// A server's OAuth client settings as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthDef {
    /// A client pre-registered with the authorization server.
    pub client_id: Option<String>,
    /// That client's secret, a reference (`${VAR}`) resolved at sign-in.
    pub client_secret: Option<Template>,
    /// An HTTPS URL of a client ID metadata document mcpdeck may use as its client ID.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for when the server's challenge and metadata name none.
    pub scopes: Vec<String>,
    /// The loopback redirect listener's port (0 or absent: a random free port).
    pub redirect_port: Option<u16>,
    /// How tokens are obtained.
    pub grant: Grant,
    /// An ES256 private key (PKCS#8 PEM) for `private_key_jwt`, a reference resolved at sign-in.
    pub private_key: Option<Template>,
    /// A file holding that key, readable only by its owner (checked when it is read).
    pub private_key_file: Option<String>,
    /// DPoP-bound tokens: absent, when the authorization server offers them; `false`, never;
    /// `true`, required (a server that does not offer them is refused).
    pub dpop: Option<bool>,
    /// `workload_identity`: the workload's JWT, a reference resolved at sign-in.
    pub workload_token: Option<Template>,
    /// `workload_identity`: a file holding it, readable only by its owner.
    pub workload_token_file: Option<String>,
    /// `enterprise_managed`: the identity provider's issuer.
    pub idp_issuer: Option<String>,
    /// `enterprise_managed`: its token endpoint (absent: from its OpenID configuration).
    pub idp_token_endpoint: Option<String>,
    /// `enterprise_managed`: mcpdeck's client at the identity provider.
    pub idp_client_id: Option<String>,
    /// `enterprise_managed`: that client's secret, a reference.
    pub idp_client_secret: Option<Template>,
    /// `enterprise_managed`: the ID token to exchange, a reference.
    pub id_token: Option<Template>,
    /// `enterprise_managed`: a file holding it, readable only by its owner.
    pub id_token_file: Option<String>,
}

/// Checks the `oauth` object of the server at `server_path`.
pub(crate) fn check_oauth(cx: &mut Cx<'_>, server_path: &str, value: &Spanned) -> OAuthDef {
    let path = format!("{server_path}.oauth");
    let mut def = OAuthDef::default();
    let Some(members) = cx.object(value, &path) else {
        return def;
    };
    cx.duplicates(members, &path);
    for m in members {
        let p = format!("{path}.{}", m.key);
        match m.key.as_str() {
            "clientId" => def.client_id = cx.non_empty_string(&m.value, &p),
            "clientSecret" => def.client_secret = check_secret(cx, &p, &m.value),
            "clientMetadataUrl" => {
                def.client_metadata_url = cx
                    .non_empty_string(&m.value, &p)
                    .filter(|url| check_metadata_url(cx, &p, m.value.start, url));
            }
            "scopes" => def.scopes = check_scopes(cx, &p, &m.value),
            "grant" => def.grant = check_grant(cx, &p, &m.value),
            "privateKey" => def.private_key = check_secret(cx, &p, &m.value),
            "privateKeyFile" => def.private_key_file = cx.non_empty_string(&m.value, &p),
            "dpop" => def.dpop = cx.boolean(&m.value, &p),
            "workloadToken" => def.workload_token = check_secret(cx, &p, &m.value),
            "workloadTokenFile" => def.workload_token_file = cx.non_empty_string(&m.value, &p),
            "idpIssuer" => def.idp_issuer = check_endpoint(cx, &p, &m.value),
            "idpTokenEndpoint" => def.idp_token_endpoint = check_endpoint(cx, &p, &m.value),
            "idpClientId" => def.idp_client_id = cx.non_empty_string(&m.value, &p),
            "idpClientSecret" => def.idp_client_secret = check_secret(cx, &p, &m.value),
            "idToken" => def.id_token = check_secret(cx, &p, &m.value),
            "idTokenFile" => def.id_token_file = cx.non_empty_string(&m.value, &p),
            "redirectPort" => {
                def.redirect_port = cx
                    .integer_in(&m.value, &p, 0, i64::from(u16::MAX))
                    .and_then(|n| u16::try_from(n).ok());
            }
            other => cx.error(
                "unknown_field",
                &p,
                m.key_start,
                format!("unknown `oauth` field `{other}`"),
                nearest(other, OAUTH_FIELDS).map(|n| format!("did you mean `{n}`?")),
            ),
        }
    }
    if def.client_secret.is_some() && def.client_id.is_none() {
        cx.error(
            "missing_field",
            &format!("{path}.clientSecret"),
            value.start,
            "`clientSecret` needs the `clientId` it belongs to".into(),
            Some("add `clientId`, or remove `clientSecret`".into()),
        );
    }
    check_client_credentials(cx, &path, value.start, &def);
    check_jwt_bearer(cx, &path, value.start, &def);
    def
}

fn check_grant(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Grant {
    match cx.string(value, path).as_deref() {
        Some("authorization_code") | None => Grant::AuthorizationCode,
        Some("client_credentials") => Grant::ClientCredentials,
        Some("workload_identity") => Grant::WorkloadIdentity,
        Some("enterprise_managed") => Grant::EnterpriseManaged,
        Some(other) => {
            cx.error(
                "invalid_value",
                path,
                value.start,
                format!(
                    "unknown grant `{}`",
                    crate::mcp::sanitize::sanitize_capped(other, 60)
                ),
                Some(
                    "use `authorization_code`, `client_credentials`, `workload_identity` or \
                     `enterprise_managed`"
                        .into(),
                ),
            );
            Grant::AuthorizationCode
        }
    }
}

/// The client-credentials grant needs a client ID and exactly one way to authenticate it; a
/// private key belongs to that grant only.
fn check_client_credentials(cx: &mut Cx<'_>, path: &str, offset: usize, def: &OAuthDef) {
    let keys = usize::from(def.private_key.is_some()) + usize::from(def.private_key_file.is_some());
    if def.grant != Grant::ClientCredentials {
        if keys > 0 {
            cx.error(
                "invalid_value",
                &format!("{path}.privateKey"),
                offset,
                "a private key is used only by the client-credentials grant".into(),
                Some("add `\"grant\": \"client_credentials\"`, or remove the key".into()),
            );
        }
        return;
    }
    if def.client_id.is_none() {
        cx.error(
            "missing_field",
            &format!("{path}.clientId"),
            offset,
            "the client-credentials grant needs `clientId`".into(),
            None,
        );
    }
    let ways = keys + usize::from(def.client_secret.is_some());
    if ways != 1 {
        cx.error(
            "missing_field",
            &format!("{path}.clientSecret"),
            offset,
            "the client-credentials grant needs exactly one of `clientSecret`, `privateKey` and \
             `privateKeyFile`"
                .into(),
            None,
        );
    }
}

/// The fields of the two JWT-bearer grants belong to them alone, and each grant needs its own:
/// `workload_identity` exactly one of `workloadToken` and `workloadTokenFile`;
/// `enterprise_managed` `clientId`, `idpIssuer`, `idpClientId` and exactly one of `idToken` and
/// `idTokenFile`.
fn check_jwt_bearer(cx: &mut Cx<'_>, path: &str, offset: usize, def: &OAuthDef) {
    let workload = [
        ("workloadToken", def.workload_token.is_some()),
        ("workloadTokenFile", def.workload_token_file.is_some()),
    ];
    let enterprise = [
        ("idpIssuer", def.idp_issuer.is_some()),
        ("idpTokenEndpoint", def.idp_token_endpoint.is_some()),
        ("idpClientId", def.idp_client_id.is_some()),
        ("idpClientSecret", def.idp_client_secret.is_some()),
        ("idToken", def.id_token.is_some()),
        ("idTokenFile", def.id_token_file.is_some()),
    ];
    for (fields, grant) in [
        (&workload[..], Grant::WorkloadIdentity),
        (&enterprise[..], Grant::EnterpriseManaged),
    ] {
        if def.grant == grant {
            continue;
        }
        for (field, _) in fields.iter().filter(|(_, set)| *set) {
            cx.error(
                "invalid_value",
                &format!("{path}.{field}"),
                offset,
                format!("`{field}` is used only by the `{}` grant", grant.as_str()),
                Some(format!(
                    "add `\"grant\": \"{}\"`, or remove `{field}`",
                    grant.as_str()
                )),
            );
        }
    }
    let mut need = |field: &str, ok: bool, what: &str| {
        if !ok {
            cx.error(
                "missing_field",
                &format!("{path}.{field}"),
                offset,
                format!("the `{}` grant needs {what}", def.grant.as_str()),
                None,
            );
        }
    };
    match def.grant {
        Grant::WorkloadIdentity => need(
            "workloadToken",
            def.workload_token.is_some() != def.workload_token_file.is_some(),
            "exactly one of `workloadToken` and `workloadTokenFile`",
        ),
        Grant::EnterpriseManaged => {
            need("clientId", def.client_id.is_some(), "`clientId`");
            need("idpIssuer", def.idp_issuer.is_some(), "`idpIssuer`");
            need("idpClientId", def.idp_client_id.is_some(), "`idpClientId`");
            need(
                "idToken",
                def.id_token.is_some() != def.id_token_file.is_some(),
                "exactly one of `idToken` and `idTokenFile`",
            );
        }
        Grant::AuthorizationCode | Grant::ClientCredentials => {}
    }
}

/// An identity provider's issuer or endpoint: an https URL (http only on loopback).
fn check_endpoint(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Option<String> {
    let text = cx.non_empty_string(value, path)?;
    let ok = url::Url::parse(&text).is_ok_and(|u| {
        let loopback = matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
        u.scheme() == "https" || (u.scheme() == "http" && loopback)
    });
    if !ok {
        cx.error(
            "invalid_url",
            path,
            value.start,
            "an identity provider URL must be https (http only on loopback)".into(),
            None,
        );
        return None;
    }
    Some(text)
}

fn check_secret(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Option<Template> {
    let text = cx.string(value, path)?;
    let template = match Template::parse(&text) {
        Ok(t) => t,
        Err(e) => {
            cx.error("bad_reference", path, value.start, e.to_string(), None);
            return None;
        }
    };
    if !template.has_reference() {
        cx.error(
            "literal_secret",
            path,
            value.start,
            format!(
                "literal value in `{}`; secrets must be references",
                path.rsplit('.').next().unwrap_or(path)
            ),
            Some("write `\"${CLIENT_SECRET}\"` and export CLIENT_SECRET".into()),
        );
        return None;
    }
    Some(template)
}

/// A client ID metadata document must be served over HTTPS from a path (it is the client ID).
fn check_metadata_url(cx: &mut Cx<'_>, path: &str, offset: usize, text: &str) -> bool {
    let ok = url::Url::parse(text)
        .is_ok_and(|u| u.scheme() == "https" && u.host().is_some() && u.path() != "/");
    if !ok {
        cx.error(
            "invalid_url",
            path,
            offset,
            "`clientMetadataUrl` must be an https URL with a path (it becomes the client ID)"
                .into(),
            None,
        );
    }
    ok
}

fn check_scopes(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Vec<String> {
    let Some(items) = cx.array(value, path, "an array of strings") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(scope) = cx.non_empty_string(item, &p) else {
            continue;
        };
        // RFC 6749 scope tokens: printable ASCII without space, `"` or `\`.
        if !scope
            .bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
        {
            cx.error(
                "invalid_value",
                &p,
                item.start,
                "a scope is one token of printable ASCII without spaces, `\"` or `\\`".into(),
                None,
            );
            continue;
        }
        out.push(scope);
    }
    out
}
