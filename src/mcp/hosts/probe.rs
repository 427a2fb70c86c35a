//! Test-connecting another host's definition through mcpdeck's engine, shared by
//! `mcpdeck hosts connect` and the console's Hosts view. [`prepare`] applies the trust rules (a
//! definition from a project file of any host is project configuration, inert until this project
//! is trusted) and resolves variables the way that host would, with `${input:…}` answers from the
//! face; [`try_connect`] connects once, lists the tools, says what answered, and closes. Answers
//! are used for this one connection and never stored.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::convert::{Places, connect_def};
use super::{HostDef, HostEffective, HostId, Piece, Scope};
use crate::mcp::config::ServerDef;
use crate::mcp::connection::ErrorClass;
use crate::mcp::engine::probe::connect_once;
use crate::mcp::trust::TrustState;

/// Why a test-connect does not start: a stable class and words to show.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// `InvalidDefinition` (`invalid`), `Untrusted`, `InputNeeded` or `Unresolved`.
    pub class: ErrorClass,
    /// What is wrong and what to do.
    pub message: String,
}

/// A definition ready to connect.
pub(crate) struct Prepared {
    /// The definition in mcpdeck's terms.
    pub def: ServerDef,
    /// Values for references the definition's text keeps (answers, host variables); used for
    /// this one connection only.
    pub extra: BTreeMap<String, String>,
    /// The directory of the file that defined it (relative paths resolve there).
    pub file_dir: PathBuf,
    /// Where it was defined: `scope file:line`.
    pub source: String,
}

/// What answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// `serverInfo.name`, sanitised.
    pub name: String,
    /// `serverInfo.version`, sanitised.
    pub version: String,
    /// The negotiated protocol version, sanitised.
    pub protocol: String,
    /// How many tools it lists, when listing worked.
    pub tools: Option<usize>,
}

impl Found {
    /// One line: what answered, and that the connection was closed.
    pub(crate) fn describe(&self, host: HostId, server: &str, source: &str) -> String {
        format!(
            "{} `{server}` ({source}): connected to {} {} (protocol {}), {} tool(s); closed",
            host.id(),
            self.name,
            self.version,
            self.protocol,
            self.tools
                .map_or_else(|| "unknown number of".to_owned(), |n| n.to_string())
        )
    }
}

/// The `${input:…}` ids a definition asks the operator for, in field order, once each.
pub(crate) fn inputs(def: &HostDef) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, text) in def.transport.fields() {
        for piece in text.variables() {
            if let Piece::Input(id) = piece
                && !out.contains(id)
            {
                out.push(id.clone());
            }
        }
    }
    out
}

/// `scope file:line` of a host server.
pub(crate) fn source_of(server: &HostEffective) -> String {
    let o = &server.entry.origin;
    format!(
        "{} {}{}",
        o.scope.label(),
        o.file.display(),
        o.line.map(|l| format!(":{l}")).unwrap_or_default()
    )
}

/// Checks `server` of `host` against the trust rules and resolves it; `answer` gives the value of
/// each `${input:…}` (`None`: not given). `trust` is this project's trust state in mcpdeck.
pub(crate) fn prepare(
    host: HostId,
    server: &HostEffective,
    trust: TrustState,
    places: &Places<'_>,
    answer: &mut dyn FnMut(&str) -> Option<String>,
) -> Result<Prepared, Refusal> {
    let entry = &server.entry;
    let name = &entry.name;
    let Some(def) = &entry.def else {
        let first = entry
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map(ToString::to_string)
            .unwrap_or_default();
        return Err(Refusal {
            class: ErrorClass::InvalidDefinition,
            message: format!("`{name}` is invalid under {}'s rules: {first}", host.name()),
        });
    };
    let source = source_of(server);
    // Read from the host's file as it is now, which is what the trust state was computed over.
    if trust
        .admits(entry.origin.scope == Scope::Project, true)
        .is_err()
    {
        let why = match trust {
            TrustState::NoProjectConfig => "this project has no mcpdeck project configuration to trust; import the server with `mcpdeck hosts import --to project`, then `mcpdeck trust`".to_owned(),
            other => format!(
                "the project is {} in mcpdeck; run `mcpdeck trust` after reviewing it",
                other.label()
            ),
        };
        return Err(Refusal {
            class: ErrorClass::Untrusted,
            message: format!(
                "not connecting `{name}` ({source}): a project file's definition is project configuration and stays inert until this project is trusted; {why}"
            ),
        });
    }
    let (def, extra) = connect_def(def, name, places, answer).map_err(|e| Refusal {
        class: ErrorClass::Unresolved,
        message: format!("cannot test-connect `{name}`: {e}"),
    })?;
    let file_dir = entry.origin.file.parent().map_or_else(
        || places.project.to_path_buf(),
        std::path::Path::to_path_buf,
    );
    Ok(Prepared {
        def,
        extra,
        file_dir,
        source,
    })
}

/// Connects once (the engine's one connect-once probe: lists the tools within the definition's
/// request timeout, and closes).
pub(crate) async fn try_connect(prepared: Prepared) -> Result<Found, String> {
    let Prepared {
        def,
        extra,
        file_dir,
        ..
    } = prepared;
    let lookup = move |name: &str| {
        extra
            .get(name)
            .cloned()
            .or_else(|| std::env::var(name).ok())
    };
    let answered = connect_once(&def, &file_dir, &lookup)
        .await
        .map_err(|e| format!("connection failed: {e}"))?;
    Ok(Found {
        name: answered
            .name
            .unwrap_or_else(|| "an unnamed server".to_owned()),
        version: answered.version.unwrap_or_default(),
        protocol: answered.protocol,
        tools: answered.tools,
    })
}
