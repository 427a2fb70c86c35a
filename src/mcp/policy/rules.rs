//! The user's policy file: `$XDG_CONFIG_HOME/mcpdeck/policy.json`, never read from
//! a project. `{"mode": "audit"|"enforce", "allow": ["server:operation-glob"], "deny": [...]}`;
//! deny wins over allow. A file that does not parse is an error: the engine refuses to run in an
//! unknown policy state rather than falling back to audit.

use std::path::{Path, PathBuf};

use crate::mcp::proxy::NormalizedOperation;

/// Audit runs everything and records it; enforce asks for what no rule allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every operation runs and is recorded in the trace.
    #[default]
    Audit,
    /// Allowed operations run, denied ones are refused, anything else needs an approval.
    Enforce,
}

impl Mode {
    /// `audit` or `enforce`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Audit => "audit",
            Self::Enforce => "enforce",
        }
    }
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    mode: Mode,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// One `server:operation-glob` rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    text: String,
    server: glob::Pattern,
    operation: glob::Pattern,
}

impl Rule {
    /// Parses `server-glob:operation-glob` (e.g. `github:tools.call search_*`).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let Some((server, operation)) = text.split_once(':') else {
            return Err(format!("rule `{text}` must be `server:operation-glob`"));
        };
        let pattern =
            |p: &str| glob::Pattern::new(p.trim()).map_err(|e| format!("rule `{text}`: {e}"));
        Ok(Self {
            text: text.to_owned(),
            server: pattern(server)?,
            operation: pattern(operation)?,
        })
    }

    /// Whether the rule matches `server` and the normalized operation.
    pub(crate) fn matches(&self, server: &str, operation: &str) -> bool {
        self.server.matches(server) && self.operation.matches(operation)
    }

    /// The rule as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

/// The loaded policy.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The mode.
    pub mode: Mode,
    allow: Vec<Rule>,
    deny: Vec<Rule>,
    /// Where it was read from, when a file existed.
    pub source: Option<PathBuf>,
}

/// What the policy says about one operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Run it (audit mode, `status`, or an allow rule).
    Allow,
    /// Refuse it; the deny rule that matched.
    Deny(String),
    /// Ask an approver.
    Ask,
}

/// Why the policy file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("policy file {path}: {message}")]
pub struct PolicyError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl Policy {
    /// The default location: `$XDG_CONFIG_HOME/mcpdeck/policy.json`.
    pub fn default_path(config_home: &Path) -> PathBuf {
        config_home.join("mcpdeck").join("policy.json")
    }

    /// Loads the file; a missing file is the default (audit, no rules).
    pub fn load(path: &Path) -> Result<Self, PolicyError> {
        let err = |message: String| PolicyError {
            path: path.to_path_buf(),
            message,
        };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(err(format!("cannot read: {e}"))),
        };
        let file: PolicyFile =
            serde_json::from_slice(&bytes).map_err(|e| err(format!("not a valid policy: {e}")))?;
        let rules = |list: Vec<String>| {
            list.iter()
                .map(|r| Rule::parse(r))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Self {
            mode: file.mode,
            allow: rules(file.allow).map_err(err)?,
            deny: rules(file.deny).map_err(err)?,
            source: Some(path.to_path_buf()),
        })
    }

    /// A policy from rules (tests, `--policy` overrides).
    pub fn new(mode: Mode, allow: &[&str], deny: &[&str]) -> Result<Self, String> {
        Ok(Self {
            mode,
            allow: allow
                .iter()
                .map(|r| Rule::parse(r))
                .collect::<Result<_, _>>()?,
            deny: deny
                .iter()
                .map(|r| Rule::parse(r))
                .collect::<Result<_, _>>()?,
            source: None,
        })
    }

    /// What to do with `operation` on `server`. `status` always runs; deny wins over allow.
    /// Catalog reads (list, search, describe) never ask: they only show what the server
    /// already tells every client, and asking for them would train the operator to approve
    /// without reading. Only operations that act need an approval.
    pub fn decide(&self, server: &str, operation: &NormalizedOperation) -> Verdict {
        if *operation == NormalizedOperation::Status {
            return Verdict::Allow;
        }
        let op = operation.to_string();
        if let Some(rule) = self.deny.iter().find(|r| r.matches(server, &op)) {
            return Verdict::Deny(rule.text().to_owned());
        }
        if is_catalog_read(operation) {
            return Verdict::Allow;
        }
        match self.mode {
            Mode::Audit => Verdict::Allow,
            Mode::Enforce if self.allow.iter().any(|r| r.matches(server, &op)) => Verdict::Allow,
            Mode::Enforce => Verdict::Ask,
        }
    }
}

/// Which list of the policy file a rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    /// An allow rule.
    Allow,
    /// A deny rule.
    Deny,
}

impl Policy {
    /// Every rule as written, allow rules first.
    pub fn rules(&self) -> Vec<(RuleKind, String)> {
        self.allow
            .iter()
            .map(|r| (RuleKind::Allow, r.text.clone()))
            .chain(self.deny.iter().map(|r| (RuleKind::Deny, r.text.clone())))
            .collect()
    }
}

/// Reads the policy file as JSON to edit it (a missing file is an audit policy with no rules,
/// which is what a missing file means).
fn read_for_edit(path: &Path) -> Result<serde_json::Map<String, serde_json::Value>, PolicyError> {
    let err = |message: String| PolicyError {
        path: path.to_path_buf(),
        message,
    };
    // Refuse to edit a file the engine would refuse to run with.
    Policy::load(path)?;
    match std::fs::read(path) {
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            _ => Err(err("not a JSON object".to_owned())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut map = serde_json::Map::new();
            map.insert("mode".to_owned(), serde_json::json!("audit"));
            Ok(map)
        }
        Err(e) => Err(err(format!("cannot read: {e}"))),
    }
}

fn write_edited(
    path: &Path,
    map: serde_json::Map<String, serde_json::Value>,
    backups: &Path,
) -> Result<Option<PathBuf>, PolicyError> {
    let err = |message: String| PolicyError {
        path: path.to_path_buf(),
        message,
    };
    let mut text = serde_json::to_string_pretty(&serde_json::Value::Object(map))
        .map_err(|e| err(e.to_string()))?;
    text.push('\n');
    crate::mcp::backup::save(path, &text, backups, 0o600)
        .map(|saved| saved.backup)
        .map_err(|e| err(format!("cannot write: {e}")))
}

/// Adds `rule` to the file's allow list (atomically, the previous file backed up), so an
/// approval outlives the session. `Ok(false)` when the rule was already there. The mode is
/// left as it is (a new file is `audit`, as a missing one was). `backups` is where the previous
/// file is copied (`crate::mcp::backup::backup_dir()`).
pub(crate) fn add_allow_rule(path: &Path, rule: &str, backups: &Path) -> Result<bool, PolicyError> {
    Rule::parse(rule).map_err(|message| PolicyError {
        path: path.to_path_buf(),
        message,
    })?;
    let mut map = read_for_edit(path)?;
    let allow = map
        .entry("allow")
        .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    let Some(list) = allow.as_array_mut() else {
        return Err(PolicyError {
            path: path.to_path_buf(),
            message: "`allow` is not a list".to_owned(),
        });
    };
    if list.iter().any(|r| r.as_str() == Some(rule)) {
        return Ok(false);
    }
    list.push(serde_json::Value::String(rule.to_owned()));
    write_edited(path, map, backups)?;
    Ok(true)
}

/// Removes `rule` from whichever list holds it; `Ok(false)` when no list did.
pub(crate) fn remove_rule(path: &Path, rule: &str, backups: &Path) -> Result<bool, PolicyError> {
    let mut map = read_for_edit(path)?;
    let mut removed = false;
    for key in ["allow", "deny"] {
        if let Some(serde_json::Value::Array(list)) = map.get_mut(key) {
            let before = list.len();
            list.retain(|r| r.as_str() != Some(rule));
            removed |= list.len() != before;
        }
    }
    if removed {
        write_edited(path, map, backups)?;
    }
    Ok(removed)
}

/// The rule that allows exactly this server and normalized operation from now on.
pub(crate) fn exact_rule(server: &str, operation: &str) -> String {
    // Glob metacharacters in a name are escaped so the rule matches only that name.
    let escape = |s: &str| glob::Pattern::escape(s);
    format!("{}:{}", escape(server), escape(operation))
}

/// List, search and describe: reads of what the server advertises to every client.
pub(crate) fn is_catalog_read(operation: &NormalizedOperation) -> bool {
    matches!(
        operation,
        NormalizedOperation::ToolsList
            | NormalizedOperation::ToolsSearch
            | NormalizedOperation::ToolsDescribe
            | NormalizedOperation::ResourcesList
            | NormalizedOperation::PromptsList
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str) -> NormalizedOperation {
        NormalizedOperation::ToolsCall { tool: tool.into() }
    }

    #[test]
    fn deny_wins_and_enforce_asks() {
        let p = Policy::new(
            Mode::Enforce,
            &["github:tools.call search_*", "*:tools.list"],
            &["github:tools.call search_secret*"],
        )
        .expect("rules");
        assert_eq!(p.decide("github", &call("search_issues")), Verdict::Allow);
        assert_eq!(
            p.decide("github", &call("search_secrets")),
            Verdict::Deny("github:tools.call search_secret*".into())
        );
        assert_eq!(p.decide("github", &call("create_issue")), Verdict::Ask);
        assert_eq!(
            p.decide("other", &NormalizedOperation::ToolsList),
            Verdict::Allow
        );
        assert_eq!(
            p.decide("other", &NormalizedOperation::Status),
            Verdict::Allow
        );
    }

    #[test]
    fn catalog_reads_never_ask_but_rules_can_deny_them() {
        let p = Policy::new(Mode::Enforce, &[], &["secret:tools.describe"]).expect("rules");
        for op in [
            NormalizedOperation::ToolsList,
            NormalizedOperation::ToolsSearch,
            NormalizedOperation::ToolsDescribe,
            NormalizedOperation::ResourcesList,
            NormalizedOperation::PromptsList,
        ] {
            assert_eq!(p.decide("any", &op), Verdict::Allow, "{op}");
        }
        assert!(matches!(
            p.decide("secret", &NormalizedOperation::ToolsDescribe),
            Verdict::Deny(_)
        ));
        for op in [
            call("x"),
            NormalizedOperation::ResourcesRead,
            NormalizedOperation::PromptsGet { prompt: "p".into() },
            NormalizedOperation::Reconnect,
        ] {
            assert_eq!(p.decide("any", &op), Verdict::Ask, "{op}");
        }
    }

    #[test]
    fn audit_allows_but_deny_still_refuses() {
        let p = Policy::new(Mode::Audit, &[], &["*:reconnect"]).expect("rules");
        assert_eq!(p.decide("a", &call("x")), Verdict::Allow);
        assert!(matches!(
            p.decide("a", &NormalizedOperation::Reconnect),
            Verdict::Deny(_)
        ));
    }

    #[test]
    fn allow_rules_are_added_once_and_removed() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("mcpdeck/policy.json");
        let backups = dir.path().join("backups");
        let rule = exact_rule("fx", "tools.call echo");
        assert!(add_allow_rule(&path, &rule, &backups).expect("added"));
        assert!(!add_allow_rule(&path, &rule, &backups).expect("already there"));
        let policy = Policy::load(&path).expect("loads");
        assert_eq!(
            policy.mode,
            Mode::Audit,
            "a new file keeps the default mode"
        );
        assert_eq!(policy.rules(), vec![(RuleKind::Allow, rule.clone())]);
        assert_eq!(policy.decide("fx", &call("echo")), Verdict::Allow);
        assert!(remove_rule(&path, &rule, &backups).expect("removed"));
        assert!(!remove_rule(&path, &rule, &backups).expect("gone"));
        assert!(Policy::load(&path).expect("loads").rules().is_empty());
        assert_eq!(
            std::fs::read_dir(&backups).expect("backups").count(),
            1,
            "the file before the removal is kept"
        );
        std::fs::write(&path, "{").expect("write");
        assert!(
            add_allow_rule(&path, &rule, &backups).is_err(),
            "never edits a broken file"
        );
        assert_eq!(exact_rule("a*", "tools.call x?"), "a[*]:tools.call x[?]");
    }

    #[test]
    fn files_parse_strictly() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("policy.json");
        assert_eq!(
            Policy::load(&path).expect("missing is default").mode,
            Mode::Audit
        );
        std::fs::write(&path, r#"{"mode":"enforce","allow":["a:tools.*"]}"#).expect("write");
        assert_eq!(Policy::load(&path).expect("valid").mode, Mode::Enforce);
        for bad in [
            r#"{"mode":"lax"}"#,
            r#"{"mode":"audit","extra":1}"#,
            r#"{"mode":"enforce","allow":["no-colon"]}"#,
            "{",
        ] {
            std::fs::write(&path, bad).expect("write");
            assert!(Policy::load(&path).is_err(), "{bad}");
        }
    }
}
