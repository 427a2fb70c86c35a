//! The console's edits of the user's policy file, on blocking tasks: "always allow" from the
//! approval modal and removing a rule in the policy view. Both use the engine's own policy code
//! (the same as `mcpdeck policy`): atomic, the previous file backed up under
//! `$XDG_STATE_HOME/mcpdeck/backups/`, a file that does not parse never edited. After an edit
//! the executor's policy is read again, so an engine rebuilt later in this session keeps it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::approver::Replies;
use crate::app::Msg;
use crate::app::policy_view::PolicyListing;
use crate::mcp::policy::{Decision, Policy, RuleKind, add_allow_rule, remove_rule};

/// The executor's policy, shared with the tasks that edit its file.
pub type SharedPolicy = Arc<Mutex<Policy>>;

/// What the file holds now.
pub fn read(path: &Path) -> Result<PolicyListing, String> {
    let policy = Policy::load(path).map_err(|e| e.to_string())?;
    Ok(PolicyListing {
        path: path.to_path_buf(),
        exists: policy.source.is_some(),
        mode: policy.mode.label().to_owned(),
        rules: policy
            .rules()
            .into_iter()
            .map(|(kind, rule)| (kind == RuleKind::Allow, rule))
            .collect(),
    })
}

/// Reads the file again into `shared` (after an edit).
fn refresh(path: &Path, shared: &SharedPolicy) {
    if let Ok(policy) = Policy::load(path) {
        *shared.lock().unwrap_or_else(PoisonError::into_inner) = policy;
    }
}

/// Adds `rule` to the file, then answers the approval `(agent, ticket)`: allowed for the
/// asker's session when the rule was written (later sessions read it from the file), denied
/// when not. Reports with [`Msg::PolicySaved`].
pub fn allow_always(
    (replies, tx, shared): (Replies, mpsc::UnboundedSender<Msg>, SharedPolicy),
    (agent, ticket): (Option<u32>, u64),
    rule: String,
    (path, backups): (PathBuf, Result<PathBuf, String>),
) {
    tokio::task::spawn_blocking(move || {
        let written =
            backups.and_then(|b| add_allow_rule(&path, &rule, &b).map_err(|e| e.to_string()));
        // Reported before the answer: the call's own reply then comes after it.
        let decision = match written {
            Ok(_) => {
                refresh(&path, &shared);
                let _ = tx.send(Msg::PolicySaved(Ok(format!(
                    "allowed; added `{rule}` to {}: later sessions allow it without asking",
                    path.display()
                ))));
                Decision::AllowSession
            }
            Err(e) => {
                let _ = tx.send(Msg::PolicySaved(Err(format!(
                    "denied: the rule could not be added ({e})"
                ))));
                Decision::Deny
            }
        };
        replies.answer(agent, ticket, decision);
    });
}

/// Removes `rule` from the file; reports with [`Msg::PolicySaved`].
pub fn remove(
    (tx, shared): (mpsc::UnboundedSender<Msg>, SharedPolicy),
    rule: String,
    (path, backups): (PathBuf, Result<PathBuf, String>),
) {
    tokio::task::spawn_blocking(move || {
        let removed =
            backups.and_then(|b| remove_rule(&path, &rule, &b).map_err(|e| e.to_string()));
        let result = match removed {
            Ok(true) => {
                refresh(&path, &shared);
                Ok(format!("removed `{rule}` from {}", path.display()))
            }
            Ok(false) => Err(format!("no rule `{rule}` in {}", path.display())),
            Err(e) => Err(format!("the rule was not removed: {e}")),
        };
        let _ = tx.send(Msg::PolicySaved(result));
    });
}

/// Reads the file on a blocking task; reports with [`Msg::PolicyRead`].
pub fn read_later(tx: mpsc::UnboundedSender<Msg>, path: PathBuf) {
    tokio::task::spawn_blocking(move || {
        let _ = tx.send(Msg::PolicyRead(read(&path)));
    });
}
