//! The config editor: a `ratatui-textarea` buffer over one configuration file
//! with live diagnostics from the same parser the engine loads with, written as `config check`
//! writes them (`line:column: error[code] at path: message` and the `help:` suggestion). Saving
//! is refused while any error remains; the runtime writes atomically, keeps the file's mode and
//! backs the previous content up under `$XDG_STATE_HOME/mcpdeck/backups/`.

use std::path::PathBuf;

use ratatui_textarea::TextArea;

use super::Effect;
use super::component::{Component, KeyMsg, Update};
use super::keymap::Action;
use super::overlays::{Asks, Next};
use super::update::to_input;
use crate::mcp::config::Layer;
use crate::mcp::config::schema::parse_file;
use crate::mcp::sanitize::sanitize_capped;

/// One diagnostic of the buffer, as `config check` prints it without the file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorDiagnostic {
    /// Whether it is an error (saving is refused).
    pub error: bool,
    /// `line:column: error[code] at path: message` (sanitised).
    pub text: String,
    /// The `help:` suggestion line, when there is one (sanitised).
    pub help: Option<String>,
}

impl EditorDiagnostic {
    fn of(d: &crate::mcp::config::Diagnostic) -> Self {
        // The same words as `config check`: its rendering, minus the file the title names.
        let full = d.to_string();
        let file = crate::mcp::sanitize::sanitize(&d.file.display().to_string()).into_owned();
        let mut lines = full.lines();
        let first = lines.next().unwrap_or_default();
        let first = first
            .strip_prefix(file.as_str())
            .map_or(first, |rest| rest.trim_start_matches(':').trim_start());
        Self {
            error: d.is_error(),
            text: sanitize_capped(first, 400),
            help: lines.next().map(|h| sanitize_capped(h.trim(), 300)),
        }
    }
}

/// One file being edited.
#[derive(Debug)]
pub struct Editor {
    /// The file.
    pub path: PathBuf,
    /// Its layer.
    pub layer: Layer,
    /// The buffer.
    pub area: TextArea<'static>,
    /// Live diagnostics, sanitised.
    pub diagnostics: Vec<EditorDiagnostic>,
    /// Whether the buffer differs from what was loaded.
    pub dirty: bool,
    /// The server the editor was opened for (what "test connect" tries).
    pub server: Option<String>,
    /// The last "test connect": running, or its result (sanitised).
    pub test: Option<Result<String, String>>,
    /// The doctor it was opened from, which closing it returns to (as it was).
    pub from_doctor: Option<super::overlays::DoctorView>,
}

/// The keys the buffer itself takes (the text area's own), for the editor's help: the keymap
/// binds only save, test connect, close and help here, and every other key edits.
pub const EDITING_KEYS: &[(&str, &str)] = &[
    ("arrows Home End", "move the cursor"),
    ("PgUp PgDn", "a page up / down"),
    ("S-arrows", "select while moving"),
    ("M-f M-b", "next / previous word"),
    ("C-a C-e", "start / end of the line"),
    (
        "Backspace Delete",
        "delete the character before / under the cursor",
    ),
    ("C-w M-d", "delete the word before / after the cursor"),
    ("C-k C-j", "delete to the end / start of the line"),
    ("C-u C-r", "undo / redo"),
    ("C-x C-c C-y", "cut / copy the selection, paste"),
    ("Enter Tab", "new line, indent"),
];

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
            from_doctor: None,
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
            .map(EditorDiagnostic::of)
            .collect();
    }

    /// Whether saving is allowed (no error diagnostics).
    pub fn valid(&self) -> bool {
        !self.diagnostics.iter().any(|d| d.error)
    }
}

/// The editor saves (only when valid), test-connects the unsaved text, opens the key box over
/// itself and closes back to the doctor it came from; every other key edits.
impl Component for Box<Editor> {
    type Msg = KeyMsg;
    type Env<'a> = ();
    type Out = Asks;

    fn message(action: Action) -> Option<KeyMsg> {
        let own = [
            Action::Save,
            Action::TestConnect,
            Action::Help,
            Action::Back,
        ];
        own.contains(&action).then_some(KeyMsg::Do(action))
    }

    fn update(mut self, msg: KeyMsg, (): &()) -> Update<Self> {
        let (path, text) = (self.path.clone(), self.text());
        let asks = match msg {
            KeyMsg::Do(Action::Save) if !self.valid() => {
                Asks::said("not saved: fix the errors first")
            }
            KeyMsg::Do(Action::Save) => Effect::SaveConfig { path, text }.into(),
            KeyMsg::Do(Action::TestConnect) => {
                let mut asks = Asks::said("test connect…");
                let (layer, server) = (self.layer, self.server.clone());
                asks.effects.push(Effect::TestConnect {
                    path,
                    layer,
                    text,
                    server,
                });
                asks
            }
            KeyMsg::Do(Action::Help) => Asks {
                next: Some(Next::KeyHelp),
                ..Asks::default()
            },
            KeyMsg::Do(_) => {
                let said = "closed the editor; unsaved changes discarded";
                let mut asks = if self.dirty {
                    Asks::said(said)
                } else {
                    Asks::default()
                };
                asks.next = self.from_doctor.map(Next::Doctor);
                return Update::close(Some(asks));
            }
            KeyMsg::Type(key) => {
                if self.area.input(to_input(key)) {
                    self.dirty = true;
                    self.check();
                }
                return Update::stay(self);
            }
        };
        Update::then(self, asks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::DoctorView;
    use crossterm::event::{KeyCode, KeyEvent};

    #[test]
    fn the_editor_saves_only_when_valid_and_closes_back_to_the_doctor_it_came_from() {
        let mut e = Box::new(Editor::new(
            "/x/mcp.json".into(),
            Layer::User,
            r#"{"mcpServers": {}}"#,
        ));
        let doctor = DoctorView { scroll: 2, file: 1 };
        e.from_doctor = Some(doctor);
        let step = e.update(KeyMsg::Do(Action::Save), &());
        let effects = step.out.map(|a| a.effects).unwrap_or_default();
        assert!(matches!(effects.as_slice(), [Effect::SaveConfig { .. }]));
        let typed = KeyMsg::Type(KeyEvent::from(KeyCode::Char(',')));
        let e = step.next.expect("open").update(typed, &()).next;
        let e = e.expect("open");
        assert!(e.dirty && !e.valid(), "{:?}", e.diagnostics);
        let step = e.update(KeyMsg::Do(Action::Save), &());
        assert_eq!(
            step.out,
            Some(Asks::said("not saved: fix the errors first"))
        );
        let step = step
            .next
            .expect("open")
            .update(KeyMsg::Do(Action::Help), &());
        assert_eq!(
            step.out.map(|a| a.next),
            Some(Some(Next::KeyHelp)),
            "over it"
        );
        let step = step
            .next
            .expect("open")
            .update(KeyMsg::Do(Action::Back), &());
        assert!(step.next.is_none());
        let asks = step.out.expect("closing asks");
        assert_eq!(asks.next, Some(Next::Doctor(doctor)));
        let said = "closed the editor; unsaved changes discarded";
        assert_eq!(asks.message.as_deref(), Some(said));
        assert!(Box::<Editor>::offers(Action::Save) && !Box::<Editor>::offers(Action::Copy));
    }

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

    #[test]
    fn diagnostics_read_as_config_check_writes_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mcp.json");
        let text = "{\"mcpServers\": {\"a\": {\"comand\": \"x\"}}}\n";
        std::fs::write(&path, text).expect("write");
        let e = Editor::new(path.clone(), Layer::User, text);
        let file = crate::mcp::config::load::read_file(Layer::User, path.clone(), true);
        let check: Vec<String> = file.all_diagnostics().map(ToString::to_string).collect();
        assert!(!check.is_empty(), "the typo is diagnosed");
        assert_eq!(e.diagnostics.len(), check.len());
        for (shown, printed) in e.diagnostics.iter().zip(&check) {
            let mut lines = printed.lines();
            let first = lines.next().unwrap_or_default();
            assert_eq!(format!("{}:{}", path.display(), shown.text), first);
            assert_eq!(shown.help.as_deref(), lines.next().map(str::trim));
        }
        let first = &e.diagnostics[0];
        assert!(
            first.text.starts_with("1:"),
            "line:column first: {}",
            first.text
        );
        assert!(first.text.contains("[unknown_field]"), "{}", first.text);
        assert!(
            first.help.as_deref().is_some_and(|h| h.contains("command")),
            "{first:?}"
        );
    }
}
