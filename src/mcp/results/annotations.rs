//! Content annotations (`audience`, `priority`, `lastModified`) as the faces show them: a
//! sanitised, bounded copy of what the server claimed on a content block or a resource, one
//! line of words for the model-visible text and the resource list, and the same fields for
//! `--json`. They are hints the server claims; nothing here acts on them.

use std::fmt;

use rmcp::model::{Annotations, ContentBlock, Role};
use serde::{Deserialize, Serialize};

use super::content::ShapeContext;
use crate::mcp::sanitize::sanitize_capped;

/// Longest `lastModified` kept, in bytes (an RFC 3339 timestamp is 35 at most).
const TIMESTAMP_BYTES: usize = 64;

/// Most content blocks whose annotations one result keeps.
pub(crate) const MAX_ANNOTATED_BLOCKS: usize = 100;

/// What a server claimed about one content block or resource.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentAnnotations {
    /// Who the content is for: `user`, `assistant`, or both.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audience: Vec<String>,
    /// How important it is, 0 (least) to 1 (most), as the server sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<serde_json::Number>,
    /// When it last changed, as the server wrote it (sanitised, capped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl ContentAnnotations {
    /// The annotations worth showing, or `None` when the server set none of the fields.
    pub(crate) fn from_rmcp(annotations: Option<&Annotations>) -> Option<Self> {
        let a = annotations?;
        let audience = a
            .audience
            .iter()
            .flatten()
            .map(|role| match role {
                Role::User => "user".to_owned(),
                Role::Assistant => "assistant".to_owned(),
            })
            .collect();
        // Through the shortest decimal of the f32, so 0.8 stays 0.8 (not 0.800000011920929) and
        // 1 stays 1; a NaN or an infinity is no number and is left out.
        let priority = a
            .priority
            .filter(|p| p.is_finite())
            .and_then(|p| serde_json::from_str::<serde_json::Number>(&format!("{p}")).ok());
        let last_modified = a
            .last_modified
            .as_deref()
            .map(|t| sanitize_capped(t, TIMESTAMP_BYTES));
        let shown = Self {
            audience,
            priority,
            last_modified,
        };
        (shown != Self::default()).then_some(shown)
    }
}

/// `audience user, assistant · priority 0.8 · modified 2025-06-01T10:00:00Z`.
impl fmt::Display for ContentAnnotations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if !self.audience.is_empty() {
            parts.push(format!("audience {}", self.audience.join(", ")));
        }
        if let Some(p) = &self.priority {
            parts.push(format!("priority {p}"));
        }
        if let Some(t) = &self.last_modified {
            parts.push(format!("modified {t}"));
        }
        f.write_str(&parts.join(" · "))
    }
}

/// One annotated block of a result, for `--json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockAnnotations {
    /// The block's index in the result's `content`, from 0.
    pub block: usize,
    /// What the server claimed about it.
    #[serde(flatten)]
    pub annotations: ContentAnnotations,
}

/// The annotations a content block carries.
pub(crate) fn of_block(block: &ContentBlock) -> Option<ContentAnnotations> {
    let annotations = match block {
        ContentBlock::Text(t) => t.annotations.as_ref(),
        ContentBlock::Image(i) => i.annotations.as_ref(),
        ContentBlock::Audio(a) => a.annotations.as_ref(),
        ContentBlock::Resource(r) => r.annotations.as_ref(),
        ContentBlock::ResourceLink(l) => l.annotations.as_ref(),
        #[allow(unreachable_patterns)]
        _ => None,
    };
    ContentAnnotations::from_rmcp(annotations)
}

/// The annotated blocks among `content`, in order (at most [`MAX_ANNOTATED_BLOCKS`]), their
/// timestamps redacted as the text is.
pub(crate) fn of_blocks(ctx: &ShapeContext<'_>, content: &[ContentBlock]) -> Vec<BlockAnnotations> {
    content
        .iter()
        .enumerate()
        .filter_map(|(block, b)| {
            let mut annotations = of_block(b)?;
            annotations.last_modified = annotations.last_modified.map(|t| ctx.meta(&t));
            Some(BlockAnnotations { block, annotations })
        })
        .take(MAX_ANNOTATED_BLOCKS)
        .collect()
}

/// The line the model-visible text shows before an annotated block.
pub(crate) fn block_line(annotations: &ContentAnnotations) -> String {
    format!("[annotations: {annotations}]\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parsed(v: serde_json::Value) -> Option<ContentAnnotations> {
        let a: Annotations = serde_json::from_value(v).unwrap();
        ContentAnnotations::from_rmcp(Some(&a))
    }

    #[test]
    fn every_field_in_words_and_as_sent() {
        let a = parsed(json!({"audience": ["user", "assistant"], "priority": 0.8,
            "lastModified": "2025-06-01T10:00:00Z"}))
        .unwrap();
        assert_eq!(
            a.to_string(),
            "audience user, assistant · priority 0.8 · modified 2025-06-01T10:00:00Z"
        );
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            json!({"audience": ["user", "assistant"], "priority": 0.8,
                "lastModified": "2025-06-01T10:00:00Z"})
        );
    }

    #[test]
    fn nothing_set_is_nothing_shown() {
        assert_eq!(parsed(json!({})), None);
        assert_eq!(ContentAnnotations::from_rmcp(None), None);
        assert_eq!(
            parsed(json!({"priority": 1})).unwrap().to_string(),
            "priority 1"
        );
    }

    #[test]
    fn a_hostile_timestamp_is_sanitised_and_capped() {
        let long = format!("\u{1b}[2J{}", "9".repeat(500));
        let a = parsed(json!({"lastModified": long})).unwrap();
        let t = a.last_modified.unwrap();
        assert!(!t.contains('\u{1b}'), "{t:?}");
        assert!(t.starts_with("␛[2J999"), "{t:?}");
        assert!(t.ends_with(" more bytes]"), "capped: {t:?}");
    }
}
