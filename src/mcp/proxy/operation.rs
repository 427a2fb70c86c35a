//! Normalized operation names: the stable words policy globs, approvals, traces
//! and the CLI use for what a request does. Naming only; no policy decision is made here.

use std::fmt;
use std::str::FromStr;

/// What a proxy request does, in the stable form `tools.call <tool>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NormalizedOperation {
    /// `status`: report configuration and connection state; never connects.
    Status,
    /// `tools.list`: list a server's tools.
    ToolsList,
    /// `tools.search`: search a server's tools.
    ToolsSearch,
    /// `tools.describe`: one tool's full definition.
    ToolsDescribe,
    /// `tools.call <tool>`: call one tool once.
    ToolsCall {
        /// The tool's name as the agent gave it.
        tool: String,
    },
    /// `resources.list`: list a server's resources.
    ResourcesList,
    /// `resources.read`: read one resource by opaque reference.
    ResourcesRead,
    /// `prompts.list`: list a server's prompts.
    PromptsList,
    /// `prompts.get <prompt>`: get one prompt's messages.
    PromptsGet {
        /// The prompt's name as the agent gave it.
        prompt: String,
    },
    /// `reconnect`: close and re-open a server's connection.
    Reconnect,
}

impl NormalizedOperation {
    /// The operation's family without its argument (`tools.call`, `prompts.get`, ...).
    pub fn family(&self) -> &'static str {
        match self {
            Self::Status => "status",
            Self::ToolsList => "tools.list",
            Self::ToolsSearch => "tools.search",
            Self::ToolsDescribe => "tools.describe",
            Self::ToolsCall { .. } => "tools.call",
            Self::ResourcesList => "resources.list",
            Self::ResourcesRead => "resources.read",
            Self::PromptsList => "prompts.list",
            Self::PromptsGet { .. } => "prompts.get",
            Self::Reconnect => "reconnect",
        }
    }
}

impl fmt::Display for NormalizedOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ToolsCall { tool } => write!(f, "tools.call {tool}"),
            Self::PromptsGet { prompt } => write!(f, "prompts.get {prompt}"),
            other => f.write_str(other.family()),
        }
    }
}

/// A string that is not a normalized operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a normalized operation: `{0}`")]
pub struct ParseOperationError(pub String);

impl FromStr for NormalizedOperation {
    type Err = ParseOperationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (family, rest) = match s.split_once(' ') {
            Some((family, rest)) => (family, Some(rest)),
            None => (s, None),
        };
        let bad = || ParseOperationError(s.to_owned());
        let plain = |op: Self| if rest.is_none() { Ok(op) } else { Err(bad()) };
        match family {
            "status" => plain(Self::Status),
            "tools.list" => plain(Self::ToolsList),
            "tools.search" => plain(Self::ToolsSearch),
            "tools.describe" => plain(Self::ToolsDescribe),
            "resources.list" => plain(Self::ResourcesList),
            "resources.read" => plain(Self::ResourcesRead),
            "prompts.list" => plain(Self::PromptsList),
            "reconnect" => plain(Self::Reconnect),
            "tools.call" => match rest {
                Some(tool) if !tool.is_empty() => Ok(Self::ToolsCall {
                    tool: tool.to_owned(),
                }),
                _ => Err(bad()),
            },
            "prompts.get" => match rest {
                Some(prompt) if !prompt.is_empty() => Ok(Self::PromptsGet {
                    prompt: prompt.to_owned(),
                }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        let ops = [
            NormalizedOperation::Status,
            NormalizedOperation::ToolsList,
            NormalizedOperation::ToolsSearch,
            NormalizedOperation::ToolsDescribe,
            NormalizedOperation::ToolsCall {
                tool: "search_issues".into(),
            },
            NormalizedOperation::ResourcesList,
            NormalizedOperation::ResourcesRead,
            NormalizedOperation::PromptsList,
            NormalizedOperation::PromptsGet {
                prompt: "review".into(),
            },
            NormalizedOperation::Reconnect,
        ];
        for op in ops {
            let text = op.to_string();
            assert_eq!(text.parse::<NormalizedOperation>(), Ok(op));
        }
        assert_eq!(
            NormalizedOperation::ToolsCall { tool: "x".into() }.to_string(),
            "tools.call x"
        );
    }

    #[test]
    fn malformed_operations_are_refused() {
        for bad in [
            "",
            "tools.call",
            "tools.call ",
            "status x",
            "tools",
            "Tools.list",
        ] {
            assert!(bad.parse::<NormalizedOperation>().is_err(), "{bad:?}");
        }
    }
}
