//! The config editor: a `ratatui-textarea` buffer over one configuration file
//! with live diagnostics from the same parser the engine loads with. Saving is refused while
//! any error remains; the runtime writes atomically with a timestamped backup.

use std::path::PathBuf;

use ratatui_textarea::TextArea;

use crate::mcp::config::Layer;
use crate::mcp::config::schema::parse_file;
use crate::mcp::sanitize::sanitize_capped;

/// One file being edited.
#[derive(Debug)]
pub struct Editor {
    /// The file.
    pub path: PathBuf,
    /// Its layer.
    pub layer: Layer,
    /// The buffer.
    pub area: TextArea<'static>,
    /// Live diagnostics: (is error, line, message), sanitised.
    pub diagnostics: Vec<(bool, Option<u32>, String)>,
    /// Whether the buffer differs from what was loaded.
    pub dirty: bool,
    /// The server the editor was opened for (what "test connect" tries).
    pub server: Option<String>,
    /// The last "test connect": running, or its result (sanitised).
    pub test: Option<Result<String, String>>,
}

impl Editor {
    /// An editor over `text`.
    pub fn new(path: PathBuf, layer: Layer, text: &str) -> Self {
        let lines: Vec<String> = if text.is_empty() {
            vec!["{\"mcpServers\": {}}".to_owned()]
        } else {
            text.lines().map(str::to_owned).collect()
        };
        let mut editor = Self {
            path,
            layer,
            area: TextArea::new(lines),
            diagnostics: Vec::new(),
            dirty: false,
            server: None,
            test: None,
        };
        editor.check();
        editor
    }

    /// The buffer's text.
    pub fn text(&self) -> String {
        let mut text = self.area.lines().join("\n");
        text.push('\n');
        text
    }

    /// Re-runs the diagnostics over the buffer.
    pub fn check(&mut self) {
        let parsed = parse_file(&self.text(), &self.path, self.layer);
        self.diagnostics = parsed
            .diagnostics
            .iter()
            .chain(parsed.entries.iter().flat_map(|e| e.diagnostics.iter()))
            .map(|d| {
                let message = format!("{}: {}", d.path, d.message);
                (d.is_error(), d.line, sanitize_capped(&message, 300))
            })
            .collect();
    }

    /// Whether saving is allowed (no error diagnostics).
    pub fn valid(&self) -> bool {
        !self.diagnostics.iter().any(|(error, _, _)| *error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_follow_the_buffer() {
        let mut e = Editor::new(
            "/x/mcp.json".into(),
            Layer::User,
            r#"{"mcpServers": {"a": {"command": "x"}}}"#,
        );
        assert!(e.valid(), "{:?}", e.diagnostics);
        e.area.insert_str(",");
        e.check();
        assert!(!e.valid());
    }
}
