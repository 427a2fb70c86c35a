//! Importing a host's servers into one of mcpdeck's own files, shared by `mcpdeck hosts import`
//! and the console's Hosts view: [`plan`] converts and checks everything and builds the preview
//! and the new file text without writing; [`ImportPlan::write`] then writes atomically with a
//! backup kept under `$XDG_STATE_HOME/mcpdeck/backups/`. Another host's files are only read.
//! Nothing here prints or asks: the faces show the preview and get the confirmation.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::convert::{Places, to_deck};
use super::{HostEffective, HostId, HostReport};
use crate::mcp::config::Layer;
use crate::mcp::config::schema::{displayable, parse_file};
use crate::mcp::connection::ErrorClass;

/// Why an import cannot go ahead: a stable class and words to show.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ImportError {
    /// `UnknownServer`, `NothingToImport`, `NotImportable` (`refused`), `TargetInvalid` or
    /// `Conflict`.
    pub class: ErrorClass,
    /// What is wrong and what to do.
    pub message: String,
}

impl ImportError {
    fn new(class: ErrorClass, message: String) -> Self {
        Self { class, message }
    }
}

/// A checked import, not written yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportPlan {
    /// The host imported from.
    pub host: HostId,
    /// mcpdeck's file written to.
    pub path: PathBuf,
    /// Its layer.
    pub layer: Layer,
    /// Whether the file exists already.
    pub existing: bool,
    /// Every chosen server converted, in order: (name, mcpdeck definition).
    pub converted: Vec<(String, Value)>,
    /// Names the write adds.
    pub added: Vec<String>,
    /// Names already there with the same definition.
    pub unchanged: Vec<String>,
    /// The new file text; `None` when there is nothing to write.
    pub text: Option<String>,
}

impl ImportPlan {
    /// The preview: a heading, then `+ name: definition` per added server (literal credentials
    /// masked) and `= name` per unchanged one.
    pub fn preview(&self) -> Vec<String> {
        let mut out = vec![format!(
            "import from {} into {} ({})",
            self.host.name(),
            self.path.display(),
            if self.existing {
                "existing file"
            } else {
                "new file"
            }
        )];
        for (name, value) in &self.converted {
            if self.added.contains(name) {
                out.push(format!("  + {name}: {}", displayable(value)));
            } else {
                out.push(format!("  = {name}: already there, unchanged"));
            }
        }
        out
    }

    /// Writes the new text atomically (an existing file keeps its permissions, a new one is
    /// 0600), first copying the old file into `backups` — out of the project, where git and the
    /// workspace search would see it; the backup's path when there was a file. Writing a plan
    /// with nothing to write is an error.
    pub fn write(&self, backups: &Path) -> Result<Option<PathBuf>, String> {
        let Some(text) = &self.text else {
            return Err("nothing to write".to_owned());
        };
        crate::mcp::backup::save(&self.path, text, backups, 0o600)
            .map(|saved| saved.backup)
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// Plans importing `names` (empty: every valid server) from `report` into mcpdeck's `layer`
/// file at `path`. Every server must convert (literal credentials are refused with the
/// reference to use), a name already there must be defined the same, and the resulting file
/// must pass mcpdeck's schema; otherwise nothing is planned.
pub(crate) fn plan(
    report: &HostReport,
    names: &[String],
    (path, layer): (&Path, Layer),
    places: &Places<'_>,
) -> Result<ImportPlan, ImportError> {
    let chosen = choose(report, names)?;
    let converted = convert(report.host, &chosen, places, (path, layer))?;
    let existing = read_target(path)?;
    let mut doc = existing.clone().unwrap_or_default();
    let servers = doc
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(ImportError::new(
            ErrorClass::TargetInvalid,
            format!("`mcpServers` in {} is not an object", path.display()),
        ));
    };
    let (added, unchanged) = merge(servers, &converted, path)?;
    let text = if added.is_empty() {
        None
    } else {
        Some(checked_text(doc, path, layer)?)
    };
    Ok(ImportPlan {
        host: report.host,
        path: path.to_path_buf(),
        layer,
        existing: existing.is_some(),
        converted,
        added,
        unchanged,
        text,
    })
}

/// The servers named (each must exist), or every valid one when `names` is empty; never none.
fn choose<'a>(
    report: &'a HostReport,
    names: &[String],
) -> Result<Vec<&'a HostEffective>, ImportError> {
    let host = report.host;
    let chosen: Vec<_> = if names.is_empty() {
        report
            .servers
            .iter()
            .filter(|s| s.entry.def.is_some())
            .collect()
    } else {
        let mut out = Vec::new();
        for name in names {
            let Some(s) = report.server(name) else {
                return Err(ImportError::new(
                    ErrorClass::UnknownServer,
                    format!("{} defines no server named `{name}`", host.name()),
                ));
            };
            out.push(s);
        }
        out
    };
    if chosen.is_empty() {
        return Err(ImportError::new(
            ErrorClass::NothingToImport,
            format!("{} defines no valid server to import", host.name()),
        ));
    }
    Ok(chosen)
}

/// Each chosen server in mcpdeck's form. One that is invalid under its host's rules or does not
/// convert refuses the whole import, with every reason listed.
fn convert(
    host: HostId,
    chosen: &[&HostEffective],
    places: &Places<'_>,
    (path, layer): (&Path, Layer),
) -> Result<Vec<(String, Value)>, ImportError> {
    let mut converted: Vec<(String, Value)> = Vec::new();
    let mut problems = Vec::new();
    for s in chosen {
        let name = &s.entry.name;
        let Some(def) = &s.entry.def else {
            let first = s
                .entry
                .diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(ToString::to_string)
                .unwrap_or_default();
            problems.push(format!(
                "`{name}` is invalid under {}'s rules: {first}",
                host.name()
            ));
            continue;
        };
        match to_deck(def, name, places, path, layer) {
            Ok(v) => {
                let shaped = shaped_credentials(&v);
                if shaped.is_empty() {
                    converted.push((name.clone(), v));
                } else {
                    problems.extend(shaped.into_iter().map(|r| format!("`{name}`: {r}")));
                }
            }
            Err(reasons) => problems.extend(reasons.into_iter().map(|r| format!("`{name}`: {r}"))),
        }
    }
    if !problems.is_empty() {
        return Err(ImportError::new(
            ErrorClass::NotImportable,
            format!("not importing anything:\n  {}", problems.join("\n  ")),
        ));
    }
    Ok(converted)
}

/// The literal credentials a converted definition holds by the shape of their value (an
/// `sk-ant-…` key in `args`, a `ghp_…` token under an innocent `env` name): each with where it
/// is and the reference to write instead. Such an entry is not imported.
fn shaped_credentials(def: &Value) -> Vec<String> {
    use crate::mcp::config::schema::is_literal_value;
    use crate::mcp::config::secret_shape::shape_of;
    let mut out = Vec::new();
    let mut check = |at: String, key: Option<&str>, s: &str| {
        let Some(shape) = shape_of(s).filter(|_| is_literal_value(s)) else {
            return;
        };
        let var = shape.variable;
        let instead = match key {
            Some(key) => format!("write `\"{key}\": \"${{{var}}}\"`"),
            None => format!("pass it through `env` as `\"{var}\": \"${{{var}}}\"`"),
        };
        out.push(format!(
            "`{at}` holds what looks like {} written out; {instead} in the host's file (or \
             in mcpdeck's after importing without it) and export {var}",
            shape.kind
        ));
    };
    if let Some(args) = def.get("args").and_then(Value::as_array) {
        for (i, a) in args.iter().enumerate() {
            if let Some(s) = a.as_str() {
                check(format!("args[{i}]"), None, s);
            }
        }
    }
    for field in ["env", "headers"] {
        if let Some(map) = def.get(field).and_then(Value::as_object) {
            for (k, v) in map {
                if let Some(s) = v.as_str() {
                    check(format!("{field}.{k}"), Some(k), s);
                }
            }
        }
    }
    if let Some(url) = def.get("url").and_then(Value::as_str) {
        check("url".to_owned(), None, url);
    }
    out
}

/// Adds the converted servers to the target's `mcpServers`: (added, already there the same).
/// A name defined differently there is a conflict.
fn merge(
    servers: &mut Map<String, Value>,
    converted: &[(String, Value)],
    path: &Path,
) -> Result<(Vec<String>, Vec<String>), ImportError> {
    let mut added = Vec::new();
    let mut unchanged = Vec::new();
    for (name, value) in converted {
        match servers.get(name) {
            Some(current) if current == value => unchanged.push(name.clone()),
            Some(_) => {
                return Err(ImportError::new(
                    ErrorClass::Conflict,
                    format!(
                        "{} already defines `{name}` differently; remove or rename it there first",
                        path.display()
                    ),
                ));
            }
            None => {
                servers.insert(name.clone(), value.clone());
                added.push(name.clone());
            }
        }
    }
    Ok((added, unchanged))
}

/// The new file's text, refused unless it passes mcpdeck's own check.
fn checked_text(doc: Map<String, Value>, path: &Path, layer: Layer) -> Result<String, ImportError> {
    let text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default() + "\n";
    let check = parse_file(&text, path, layer);
    if let Some(d) = check
        .diagnostics
        .iter()
        .chain(check.entries.iter().flat_map(|e| e.diagnostics.iter()))
        .find(|d| d.is_error())
    {
        return Err(ImportError::new(
            ErrorClass::NotImportable,
            format!("the result would not be valid, nothing written: {d}"),
        ));
    }
    Ok(text)
}

/// The target file's object, `None` when it does not exist yet.
fn read_target(path: &Path) -> Result<Option<Map<String, Value>>, ImportError> {
    match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(Some(map)),
            _ => Err(ImportError::new(
                ErrorClass::TargetInvalid,
                format!(
                    "{} is not a valid mcpdeck configuration; fix it first (`mcpdeck config check`)",
                    path.display()
                ),
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ImportError::new(
            ErrorClass::TargetInvalid,
            format!("cannot read {}: {e}", path.display()),
        )),
    }
}
