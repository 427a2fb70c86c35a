//! What an approval request says about the operation it asks for: the call's arguments as the
//! operator should read them (secrets redacted, sanitised, pretty, bounded) and the effects,
//! from the tool's annotations when the server gives them (labelled server-claimed: the proxy
//! cannot check them), else all four.

use rmcp::model::ToolAnnotations;
use serde_json::Value;

use crate::mcp::policy::{ALL_EFFECTS, EffectClass as Effect};
use crate::mcp::results::Redactor;
use crate::mcp::sanitize::sanitize_capped;

/// Most bytes of arguments an approval request carries. The console's modal and
/// `mcpdeck approvals` show the first 4 KiB and offer the rest in a scrollable view; the control
/// socket's line bound is well above this.
pub(crate) const MAX_ARGUMENT_BYTES: usize = 16 * 1024;

/// The effects an operation may have, and whether they are the server's claim.
pub(super) fn effects(annotations: Option<&ToolAnnotations>) -> (Vec<Effect>, bool) {
    let Some(a) = annotations.filter(|a| {
        a.read_only_hint.is_some() || a.destructive_hint.is_some() || a.open_world_hint.is_some()
    }) else {
        return (ALL_EFFECTS.to_vec(), false);
    };
    let mut effects = vec![Effect::Read];
    if a.read_only_hint != Some(true) {
        // Not read-only: it writes (and, unless it says it is not destructive, may delete).
        effects.push(Effect::Write);
    }
    if a.open_world_hint != Some(false) {
        effects.push(Effect::Network);
    }
    (effects, true)
}

/// The arguments as the operator reads them: pretty JSON, every resolved secret redacted,
/// sanitised, at most [`MAX_ARGUMENT_BYTES`].
pub(super) fn shown_arguments(arguments: &Value, redactor: &Redactor) -> String {
    let pretty = serde_json::to_string_pretty(arguments).unwrap_or_default();
    sanitize_capped(&redactor.redact(&pretty), MAX_ARGUMENT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_narrow_the_effects_and_say_so() {
        assert_eq!(effects(None), (ALL_EFFECTS.to_vec(), false));
        assert_eq!(
            effects(Some(&ToolAnnotations::new())),
            (ALL_EFFECTS.to_vec(), false),
            "annotations without hints claim nothing"
        );
        let read = ToolAnnotations::new().read_only(true).open_world(false);
        assert_eq!(effects(Some(&read)), (vec![Effect::Read], true));
        let write = ToolAnnotations::new().read_only(false).destructive(true);
        assert_eq!(
            effects(Some(&write)),
            (vec![Effect::Read, Effect::Write, Effect::Network], true)
        );
    }

    #[test]
    fn arguments_are_redacted_sanitised_and_bounded() {
        let redactor = Redactor::new(["s3cr3t-value".to_owned()]);
        let shown = shown_arguments(
            &serde_json::json!({"token": "s3cr3t-value", "text": "a\u{1b}[2Jb"}),
            &redactor,
        );
        assert!(!shown.contains("s3cr3t-value"), "{shown}");
        assert!(!shown.contains('\u{1b}'), "{shown}");
        assert!(shown.contains("\"text\""), "{shown}");
        let big = serde_json::json!({"x": "y".repeat(100_000)});
        assert!(shown_arguments(&big, &redactor).len() <= MAX_ARGUMENT_BYTES + 64);
    }
}
