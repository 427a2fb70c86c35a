//! Pins that survive restarts: the first-seen definition of every tool, prompt and resource
//! template of a server, and of its `serverInfo` and `instructions`, kept in mcpdeck's state
//! directory (`$XDG_STATE_HOME/mcpdeck/pins/`, a 0600 file per server, one lock, atomic writes:
//! the console, serve and the CLI share it) and compared on every later listing.
//!
//! Pins are keyed by the server's identity — its name and the layer (and, for a project, the
//! project) that defines it — never by its definition's fingerprint: bumping an `npx` package
//! version is exactly when a changed catalog arrives. A server's first listing is its baseline;
//! what appears later is pinned as first seen but stays *added* until the operator accepts it.
//! The digest is [`crate::mcp::catalog::pin`]'s canonical SHA-256, over the same parts.

mod drift;
mod file;
mod server_file;
mod store;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use drift::{Change, ChangeKind, Drift, Rating, compare};
pub use file::{PinFile, PinFileServer};
pub use store::PinStore;

use crate::mcp::config::{Layer, ServerEntry};
use crate::mcp::scan::{Definition, Kind};

/// Who a server is, for its pins: its name and where it is defined.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerKey {
    /// The configured name.
    pub server: String,
    /// `user` (either user file), `project:<root>`, `file:<path>` (a `--config` file) or
    /// `packaged`.
    pub scope: String,
}

impl ServerKey {
    /// The key of `entry` in the project at `project_root`.
    pub fn of(entry: &ServerEntry, project_root: &std::path::Path) -> Self {
        let scope = match entry.source.layer {
            Layer::SharedUser | Layer::User => "user".to_owned(),
            Layer::Project | Layer::ProjectDeck => format!("project:{}", project_root.display()),
            Layer::CommandLine => format!("file:{}", entry.source.file.display()),
            Layer::Packaged => "packaged".to_owned(),
        };
        Self {
            server: entry.name.clone(),
            scope,
        }
    }
}

/// One pinned definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Pin {
    /// `sha256:<hex>` of the canonical JSON of `definition`.
    pub digest: String,
    /// The pinned parts of the definition, as first seen (or as last accepted).
    pub definition: Value,
    /// When it was first seen (RFC 3339, UTC).
    pub first_seen: String,
    /// Seen after the server's baseline and not yet accepted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
}

/// The key of a definition among a server's pins: `tool:NAME`, `prompt:NAME`,
/// `resourceTemplate:NAME`, or `server`.
pub fn entry_key(kind: Kind, name: &str) -> String {
    match kind {
        Kind::Server => "server".to_owned(),
        _ => format!("{}:{name}", kind.label()),
    }
}

/// The kind and name of an entry key.
pub fn split_key(key: &str) -> (Option<Kind>, &str) {
    match key.split_once(':') {
        Some((kind, name)) => (Kind::from_label(kind), name),
        None => (Kind::from_label(key), "server"),
    }
}

/// The parts of a definition that are pinned: what the model reads and what approvals
/// depend on (name, title, description, schemas, annotations; a prompt's arguments; a
/// template's URI template and type; the server's `serverInfo` and `instructions`).
pub fn pinned_parts(definition: &Definition) -> Value {
    let mut out = Map::new();
    for key in pinned_keys(definition.kind) {
        if let Some(v) = definition.value.get(*key).filter(|v| !v.is_null()) {
            out.insert((*key).to_owned(), v.clone());
        }
    }
    Value::Object(out)
}

/// The members of a definition of `kind` that are pinned (plain ASCII names).
fn pinned_keys(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Tool => &[
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ],
        Kind::Prompt => &["name", "title", "description", "arguments"],
        Kind::ResourceTemplate => &["name", "title", "description", "uriTemplate", "mimeType"],
        Kind::Server => &["serverInfo", "instructions"],
    }
}

/// [`digest`] of [`pinned_parts`] of `definition`, written straight from the definition
/// (nothing is copied).
pub fn definition_digest(definition: &Definition) -> String {
    use sha2::Digest as _;
    let mut parts: Vec<(&str, &Value)> = pinned_keys(definition.kind)
        .iter()
        .filter_map(|key| {
            let v = definition.value.get(*key).filter(|v| !v.is_null())?;
            Some((*key, v))
        })
        .collect();
    parts.sort_by_key(|(key, _)| *key);
    let mut canonical = String::from("{");
    for (i, (key, value)) in parts.into_iter().enumerate() {
        if i > 0 {
            canonical.push(',');
        }
        canonical.push('"');
        canonical.push_str(key);
        canonical.push_str("\":");
        crate::mcp::canonical::write_canonical(value, &mut canonical);
    }
    canonical.push('}');
    format!(
        "sha256:{}",
        hex::encode(sha2::Sha256::digest(canonical.as_bytes()))
    )
}

/// `sha256:<hex>` of a pinned definition's canonical JSON.
pub fn digest(parts: &Value) -> String {
    use sha2::Digest as _;
    let canonical = crate::mcp::canonical::canonical_json(parts);
    format!(
        "sha256:{}",
        hex::encode(sha2::Sha256::digest(canonical.as_bytes()))
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
