//! Reading the policy file again while a face runs (its file changed, or the operator asked), so
//! the rules the console shows are the rules every face enforces. A file that does not parse
//! (an editor's half-written save) leaves the policy in force as it is.

use std::path::Path;

use super::rules::{Mode, Policy};

/// What reading the policy file again found.
#[derive(Debug)]
pub enum Reread {
    /// The same mode and rules as the policy in force.
    Unchanged,
    /// A different policy: put it in force.
    Changed(Policy),
    /// The file cannot be used; the policy in force stays. Says why.
    Failed(String),
}

impl Policy {
    /// Reads `path` again and compares it with `in_force`; `mode` (serve's `--policy`) wins
    /// over the file's mode as it did at start.
    pub fn reread(path: &Path, in_force: &Policy, mode: Option<Mode>) -> Reread {
        match Policy::load(path) {
            Err(e) => Reread::Failed(e.to_string()),
            Ok(mut policy) => {
                if let Some(mode) = mode {
                    policy.mode = mode;
                }
                if policy.mode == in_force.mode && policy.rules() == in_force.rules() {
                    Reread::Unchanged
                } else {
                    Reread::Changed(policy)
                }
            }
        }
    }

    /// One line about this policy for a face's log or status line: its mode and rule count.
    pub fn summary(&self) -> String {
        let rules = self.rules().len();
        let noun = if rules == 1 { "rule" } else { "rules" };
        format!("{} mode, {rules} {noun}", self.mode.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reread_sees_a_new_rule_keeps_a_mode_override_and_survives_a_broken_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("policy.json");
        std::fs::write(&path, r#"{"mode": "audit"}"#).expect("write");
        let first = Policy::load(&path).expect("policy");
        assert!(matches!(
            Policy::reread(&path, &first, None),
            Reread::Unchanged
        ));
        std::fs::write(
            &path,
            r#"{"mode": "audit", "deny": ["demo:tools.call echo"]}"#,
        )
        .expect("write");
        let Reread::Changed(second) = Policy::reread(&path, &first, None) else {
            panic!("a new rule is a change");
        };
        assert_eq!(second.summary(), "audit mode, 1 rule");
        let Reread::Changed(forced) = Policy::reread(&path, &first, Some(Mode::Enforce)) else {
            panic!("changed");
        };
        assert_eq!(forced.mode, Mode::Enforce, "--policy still wins");
        std::fs::write(&path, r#"{"mode": "aud"#).expect("write");
        assert!(matches!(
            Policy::reread(&path, &second, None),
            Reread::Failed(_)
        ));
    }
}
