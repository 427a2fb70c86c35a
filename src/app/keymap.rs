//! The one keymap table: every binding is (context, key, action, description).
//! Dispatch, the footer hints and the `?` help overlay are all read from [`Keymap`], so a key
//! can never work without being documented or be documented without working. The defaults are
//! `assets/keymap.toml`, embedded and read by the same code as a user's `keys.toml`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub use super::key_ctx::{ALL_CTX, Ctx, ctx_key, ctx_name};
pub use super::key_spec::key_label;
use super::key_spec::{action_named, parse_key};

/// Something the operator can ask for; keymaps point here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the console.
    Quit,
    /// Show or hide the help overlay.
    Help,
    /// Move the focus to the other pane.
    FocusNext,
    /// To the first line of a text.
    Top,
    /// To the last line of a text.
    Bottom,
    /// To the next search match.
    NextMatch,
    /// To the previous search match.
    PrevMatch,
    /// Move the selection up.
    Up,
    /// Move the selection down.
    Down,
    /// Move the selection a page up.
    PageUp,
    /// Move the selection a page down.
    PageDown,
    /// Next main-pane tab.
    NextTab,
    /// Previous main-pane tab.
    PrevTab,
    /// Open the selected item.
    Open,
    /// Start a search of the tool catalog, or of a result's text.
    Search,
    /// Start a filter narrowing the list in front.
    Filter,
    /// Open the call form for the selected tool.
    Call,
    /// Reconnect the selected server (connects it when disconnected).
    Reconnect,
    /// Read the configuration, trust and policy files again now.
    Reload,
    /// Open the trust view.
    Trust,
    /// Open the config doctor.
    Doctor,
    /// Open the spills view.
    Spills,
    /// Toggle the workspace side panel.
    Workspace,
    /// Copy the focused item to the clipboard.
    Copy,
    /// Go back, or cancel what is running.
    Back,
    /// Submit the call form.
    Submit,
    /// Switch between the form and the raw JSON editor.
    ToggleRaw,
    /// Toggle the model-visible text of a result.
    ToggleModel,
    /// Grant trust to the project (asks for a typed `y`).
    Grant,
    /// Revoke the project's trust.
    Revoke,
    /// Suspend the console to the shell (`fg` resumes).
    Suspend,
    /// Open the approvals view (pending and decided).
    Approvals,
    /// Open the agent sessions view (`mcpdeck serve` processes).
    Agents,
    /// Delete the selected item (a spill).
    Delete,
    /// Connect once to the edited definition without saving.
    TestConnect,
    /// Fold or open the JSON container on the cursor line.
    Fold,
    /// Fold every JSON container, or open them all.
    FoldAll,
    /// Show a tool's whole description (descriptions are cut at 2 KiB).
    FullText,
    /// Cycle the Log tab between all lines, traffic and notifications.
    LogFilter,
    /// Edit the selected server's configuration file.
    Edit,
    /// Save the configuration file being edited.
    Save,
    /// Allow the approval in front once.
    AllowOnce,
    /// Allow the approval in front's operation for the rest of the session.
    AllowSession,
    /// Deny the approval in front.
    Deny,
    /// Allow the approval in front always: add an allow rule to the policy file (after a
    /// typed confirmation).
    AllowAlways,
    /// Show all of the approval's arguments in the text viewer.
    ViewArguments,
    /// Open the policy view.
    Policy,
    /// Decline a server's request (elicitation) or reject it (sampling).
    Decline,
    /// Toggle the focused boolean or option.
    Toggle,
    /// The next option of the focused choice.
    NextOption,
    /// The previous option of the focused choice.
    PrevOption,
    /// Open the URL a server asks the operator to visit.
    OpenUrl,
    /// Cycle the stop reason of a sampling reply.
    StopReason,
    /// Run the tool of the call form as a task, or not.
    TaskMode,
    /// Open the Tasks view of the selected server.
    Tasks,
    /// Read a resource by its URI (a one-field form).
    ReadUri,
    /// Open the Hosts view (other agent hosts' configurations).
    Hosts,
    /// Import the selected host server into mcpdeck's user file.
    Import,
    /// Import the selected host server into the project's mcpdeck file.
    ImportProject,
    /// Sign in to the selected server (OAuth).
    SignIn,
    /// Sign out of the selected server (revoke where possible, forget the tokens).
    SignOut,
    /// Complete the call form's focused argument (prompts, resource templates), else move to
    /// the next field.
    Complete,
    /// Ping the selected server (the round trip shows in the status line).
    Ping,
    /// Close the selected server's connection (the others stay up).
    Disconnect,
    /// Open the Roots view of the selected server.
    Roots,
    /// Add a root (the Roots view asks for a directory).
    AddRoot,
    /// Ask the server for fewer log messages (`logging/setLevel` one level up).
    LogLevelUp,
    /// Ask the server for more log messages (one level down).
    LogLevelDown,
    /// Subscribe to the selected or open resource, or unsubscribe.
    Subscribe,
    /// Open a registered panel (an index into `app::panels::PANELS`).
    Panel(u8),
    /// Switch a result between its text and its raw JSON as the server sent it.
    RawJson,
}

/// One binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Where it applies.
    pub ctx: Ctx,
    /// The key.
    pub code: KeyCode,
    /// Required modifiers (exact match, shift ignored for characters).
    pub mods: KeyModifiers,
    /// What it does.
    pub action: Action,
    /// The help text.
    pub desc: String,
    /// Whether the footer shows it.
    pub hint: bool,
}

impl Binding {
    /// How the key is written in hints and help.
    pub fn label(&self) -> String {
        key_label(self.code, self.mods)
    }
}

/// The default keymap (`assets/keymap.toml`), read by the same code as a user's `keys.toml`.
pub const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.toml");

/// Whether `key` matches `b`.
fn matches(b: &Binding, key: &KeyEvent) -> bool {
    if b.code != key.code {
        return false;
    }
    // Shift is part of a character (and of BackTab, which terminals send as Shift-Tab).
    let mods = if matches!(key.code, KeyCode::Char(_) | KeyCode::BackTab) {
        key.modifiers - KeyModifiers::SHIFT
    } else {
        key.modifiers
    };
    mods == b.mods
}

/// The keymap in force: the defaults with the user's patch applied.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Self {
        let mut map = Self {
            bindings: Vec::new(),
        };
        // The embedded default is checked by a test; a problem here cannot reach a user.
        let problems = map.apply(DEFAULT_KEYMAP);
        debug_assert!(problems.is_empty(), "{problems:?}");
        map.add_panels();
        map
    }
}

/// One entry of a context's list in a keymap file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    keys: Vec<String>,
    action: String,
    desc: String,
    #[serde(default)]
    hint: bool,
}

impl Keymap {
    /// The action bound to `key` in the first of `contexts` that binds it.
    pub fn lookup(&self, contexts: &[Ctx], key: &KeyEvent) -> Option<Action> {
        contexts.iter().find_map(|ctx| {
            self.bindings
                .iter()
                .find(|b| b.ctx == *ctx && matches(b, key))
                .map(|b| b.action)
        })
    }

    /// The footer hints for `contexts`: the first binding of each hinted action, in order.
    pub fn hints(&self, contexts: &[Ctx]) -> Vec<(String, &str)> {
        self.hints_where(contexts, |_| true)
    }

    /// [`Keymap::hints`] of the actions `offered` says apply now.
    pub fn hints_where(
        &self,
        contexts: &[Ctx],
        offered: impl Fn(Action) -> bool,
    ) -> Vec<(String, &str)> {
        let mut seen: Vec<Action> = Vec::new();
        let mut out = Vec::new();
        for ctx in contexts {
            for b in self.bindings.iter().filter(|b| b.ctx == *ctx && b.hint) {
                if seen.contains(&b.action) || !offered(b.action) {
                    continue;
                }
                seen.push(b.action);
                out.push((b.label(), b.desc.as_str()));
            }
        }
        out
    }

    /// The first key bound to `action` in `ctx`, as hints write it (for text that names a key).
    pub fn key_for(&self, ctx: Ctx, action: Action) -> Option<String> {
        self.bindings
            .iter()
            .find(|b| b.ctx == ctx && b.action == action)
            .map(Binding::label)
    }

    /// The help overlay's rows, context by context: (context name, keys, description), the
    /// keys of one description joined with `/`.
    pub fn help_rows(&self) -> Vec<(&'static str, String, &str)> {
        let mut out: Vec<(&'static str, String, &str)> = Vec::new();
        for ctx in ALL_CTX {
            for b in self.bindings.iter().filter(|b| b.ctx == ctx) {
                let name = ctx_name(ctx);
                if let Some(row) = out.iter_mut().find(|(c, _, d)| *c == name && *d == b.desc) {
                    row.1.push('/');
                    row.1.push_str(&b.label());
                    continue;
                }
                out.push((name, b.label(), b.desc.as_str()));
            }
        }
        out
    }

    /// Applies a keymap file (the embedded default or a user's `keys.toml`). Two forms, mixable:
    /// `action = "key"` or `action = ["key", ...]` replaces that action's keys in every context
    /// it is bound in; `context = [{ keys = [...], action = "...", desc = "...", hint = true }]`
    /// adds bindings to a context, ahead of those already there. Returns the problems found
    /// (the rest still applies).
    pub fn apply(&mut self, text: &str) -> Vec<String> {
        let table: toml::Table = match toml::from_str(text) {
            Ok(t) => t,
            Err(e) => return vec![format!("keys.toml: {e}")],
        };
        let mut problems = Vec::new();
        // Contexts in their fixed order (a TOML table has none), then action patches.
        for ctx in ALL_CTX {
            if let Some(value) = table.get(ctx_key(ctx)) {
                self.add_context(ctx, value, &mut problems);
            }
        }
        for (name, value) in &table {
            if ALL_CTX.iter().any(|c| ctx_key(*c) == name) {
                continue;
            }
            let Some(action) = action_named(name) else {
                problems.push(format!("keys.toml: unknown action or context `{name}`"));
                continue;
            };
            self.patch_action(name, action, value, &mut problems);
        }
        problems
    }

    /// Adds a context's list of entries ahead of its current bindings.
    /// The registered panels' default keys, each after the last binding of its context.
    fn add_panels(&mut self) {
        for (i, panel) in super::panels::PANELS.iter().enumerate() {
            let (ctx, keys, desc) = panel.keys;
            let Ok(i) = u8::try_from(i) else { continue };
            for (code, mods) in keys {
                let at = self
                    .bindings
                    .iter()
                    .rposition(|b| b.ctx == ctx)
                    .map_or(self.bindings.len(), |p| p + 1);
                let binding = Binding {
                    ctx,
                    code: *code,
                    mods: *mods,
                    action: Action::Panel(i),
                    desc: desc.to_owned(),
                    hint: false,
                };
                self.bindings.insert(at, binding);
            }
        }
    }

    fn add_context(&mut self, ctx: Ctx, value: &toml::Value, problems: &mut Vec<String>) {
        let name = ctx_key(ctx);
        let entries: Vec<Entry> = match value.clone().try_into() {
            Ok(e) => e,
            Err(e) => {
                problems.push(format!("keys.toml: `{name}`: {e}"));
                return;
            }
        };
        let mut added = Vec::new();
        for entry in entries {
            let Some(action) = action_named(&entry.action) else {
                problems.push(format!(
                    "keys.toml: `{name}`: unknown action `{}`",
                    entry.action
                ));
                continue;
            };
            for spec in &entry.keys {
                let Some((code, mods)) = parse_key(spec) else {
                    problems.push(format!("keys.toml: `{name}`: cannot read key `{spec}`"));
                    continue;
                };
                added.push(Binding {
                    ctx,
                    code,
                    mods,
                    action,
                    desc: entry.desc.clone(),
                    // Only an entry's first key is hinted; the others are alternatives.
                    hint: entry.hint && spec == &entry.keys[0],
                });
            }
        }
        let at = self
            .bindings
            .iter()
            .position(|b| b.ctx == ctx)
            .unwrap_or(self.bindings.len());
        self.bindings.splice(at..at, added);
    }

    /// Replaces `action`'s keys in every context it is bound in.
    fn patch_action(
        &mut self,
        name: &str,
        action: Action,
        value: &toml::Value,
        problems: &mut Vec<String>,
    ) {
        let specs: Vec<&str> = match value {
            toml::Value::String(s) => vec![s.as_str()],
            toml::Value::Array(a) => a.iter().filter_map(toml::Value::as_str).collect(),
            _ => {
                problems.push(format!(
                    "keys.toml: `{name}` must be a key or a list of keys"
                ));
                return;
            }
        };
        let mut keys = Vec::new();
        for spec in specs {
            match parse_key(spec) {
                Some(k) => keys.push(k),
                None => problems.push(format!("keys.toml: `{name}`: cannot read key `{spec}`")),
            }
        }
        if keys.is_empty() {
            return;
        }
        let old: Vec<Binding> = self
            .bindings
            .iter()
            .filter(|b| b.action == action)
            .cloned()
            .collect();
        let mut contexts: Vec<Ctx> = old.iter().map(|b| b.ctx).collect();
        contexts.dedup();
        self.bindings.retain(|b| b.action != action);
        for ctx in contexts {
            let Some(first) = old.iter().find(|b| b.ctx == ctx) else {
                continue;
            };
            for (code, mods) in &keys {
                self.bindings.push(Binding {
                    ctx,
                    code: *code,
                    mods: *mods,
                    action,
                    desc: first.desc.clone(),
                    hint: first.hint,
                });
            }
        }
    }
}

#[cfg(test)]
#[path = "keymap_tests.rs"]
mod tests;
