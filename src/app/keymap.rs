//! The one keymap table: every binding is (context, key, action, description).
//! Dispatch, the footer hints and the `?` help overlay are all read from [`KEYMAP`], so a key
//! can never work without being documented or be documented without working.

use std::borrow::Cow;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a binding applies. Global bindings apply wherever no text is being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ctx {
    /// Everywhere outside text entry and modals.
    Global,
    /// The servers pane has focus.
    Servers,
    /// A catalog list (tools, resources, prompts) has focus.
    List,
    /// A tool's detail view.
    Detail,
    /// The call form or raw JSON editor.
    Form,
    /// A call is running.
    Running,
    /// A result is shown.
    Result,
    /// A global view (spills, doctor, trust, help).
    View,
    /// The trust view.
    TrustView,
    /// The spills view and pager.
    SpillsView,
    /// The config editor.
    Editor,
    /// The workspace side panel has focus (keys type into its form).
    Side,
    /// The agent sessions view.
    AgentsView,
}

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
    /// Start a search of the tool catalog.
    Search,
    /// Open the call form for the selected tool.
    Call,
    /// Reconnect the selected server (connects it when disconnected).
    Reconnect,
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
}

/// One binding.
#[derive(Debug, Clone)]
pub struct Binding {
    /// Where it applies.
    pub ctx: Ctx,
    /// The key.
    pub code: KeyCode,
    /// Required modifiers (exact match, shift ignored for characters).
    pub mods: KeyModifiers,
    /// How the key is written in hints and help.
    pub label: Cow<'static, str>,
    /// What it does.
    pub action: Action,
    /// The help text.
    pub desc: &'static str,
    /// Whether the footer shows it.
    pub hint: bool,
}

const fn bind(
    ctx: Ctx,
    code: KeyCode,
    label: &'static str,
    action: Action,
    desc: &'static str,
    hint: bool,
) -> Binding {
    Binding {
        ctx,
        code,
        mods: KeyModifiers::NONE,
        label: Cow::Borrowed(label),
        action,
        desc,
        hint,
    }
}

const fn ctrl(
    ctx: Ctx,
    c: char,
    label: &'static str,
    action: Action,
    desc: &'static str,
) -> Binding {
    Binding {
        ctx,
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
        label: Cow::Borrowed(label),
        action,
        desc,
        hint: true,
    }
}

/// The binding without a footer hint.
const fn quiet(mut b: Binding) -> Binding {
    b.hint = false;
    b
}

use Action as A;
use Ctx as C;
use KeyCode as K;

/// The default keymap.
pub const KEYMAP: &[Binding] = &[
    bind(C::Global, K::Char('q'), "q", A::Quit, "quit", true),
    quiet(ctrl(C::Global, 'c', "C-c", A::Quit, "quit")),
    quiet(ctrl(
        C::Global,
        'z',
        "C-z",
        A::Suspend,
        "suspend (fg resumes)",
    )),
    bind(C::Global, K::Char('?'), "?", A::Help, "help", true),
    bind(C::Global, K::Tab, "Tab", A::FocusNext, "switch pane", true),
    bind(C::Global, K::Up, "↑", A::Up, "move up", false),
    bind(C::Global, K::Char('k'), "k", A::Up, "move up", false),
    bind(C::Global, K::Down, "↓", A::Down, "move down", false),
    bind(C::Global, K::Char('j'), "j", A::Down, "move down", false),
    bind(C::Global, K::PageUp, "PgUp", A::PageUp, "page up", false),
    bind(
        C::Global,
        K::PageDown,
        "PgDn",
        A::PageDown,
        "page down",
        false,
    ),
    bind(C::Global, K::Char('t'), "t", A::Trust, "trust view", false),
    bind(
        C::Global,
        K::Char('d'),
        "d",
        A::Doctor,
        "config doctor",
        false,
    ),
    bind(C::Global, K::Char('s'), "s", A::Spills, "spills", false),
    bind(
        C::Global,
        K::Char('a'),
        "a",
        A::Approvals,
        "approvals (pending, decided)",
        false,
    ),
    bind(
        C::Global,
        K::Char('A'),
        "A",
        A::Agents,
        "agent sessions (mcpdeck serve)",
        false,
    ),
    bind(
        C::Global,
        K::Char('w'),
        "w",
        A::Workspace,
        "workspace panel",
        false,
    ),
    bind(
        C::Global,
        K::Char('y'),
        "y",
        A::Copy,
        "copy focused item",
        false,
    ),
    bind(
        C::Global,
        K::Char('r'),
        "r",
        A::Reconnect,
        "connect / reconnect server",
        false,
    ),
    bind(C::Global, K::Right, "→", A::NextTab, "next tab", false),
    bind(C::Global, K::Char('l'), "l", A::NextTab, "next tab", false),
    bind(C::Global, K::Left, "←", A::PrevTab, "previous tab", false),
    bind(
        C::Global,
        K::Char('h'),
        "h",
        A::PrevTab,
        "previous tab",
        false,
    ),
    bind(
        C::Servers,
        K::Enter,
        "Enter",
        A::Open,
        "open server's tools",
        true,
    ),
    bind(C::Servers, K::Char('r'), "r", A::Reconnect, "connect", true),
    bind(C::List, K::Enter, "Enter", A::Open, "open", true),
    bind(C::List, K::Char('/'), "/", A::Search, "search tools", true),
    bind(C::List, K::Char('c'), "c", A::Call, "call tool", true),
    bind(
        C::List,
        K::Esc,
        "Esc",
        A::Back,
        "clear search / back",
        false,
    ),
    bind(
        C::List,
        K::Char('v'),
        "v",
        A::LogFilter,
        "Log tab: all / traffic / notifications",
        false,
    ),
    bind(
        C::List,
        K::Char('e'),
        "e",
        A::Edit,
        "edit config file (Config tab)",
        false,
    ),
    ctrl(
        C::Editor,
        's',
        "C-s",
        A::Save,
        "save (atomic, backed up; only when valid)",
    ),
    ctrl(
        C::Editor,
        't',
        "C-t",
        A::TestConnect,
        "test connect (unsaved; trust rules apply)",
    ),
    bind(
        C::Editor,
        K::Esc,
        "Esc",
        A::Back,
        "close the editor (discards)",
        true,
    ),
    bind(C::Detail, K::Char('c'), "c", A::Call, "call tool", true),
    bind(C::Detail, K::Enter, "Enter", A::Call, "call tool", false),
    bind(C::Detail, K::Esc, "Esc", A::Back, "back", true),
    bind(C::Detail, K::Char('y'), "y", A::Copy, "copy schema", true),
    bind(
        C::Detail,
        K::Char('f'),
        "f",
        A::FullText,
        "whole description (cut at 2 KiB)",
        false,
    ),
    bind(C::Form, K::Enter, "Enter", A::Submit, "run", true),
    ctrl(C::Form, 'e', "C-e", A::ToggleRaw, "form ⇄ raw JSON"),
    ctrl(C::Form, 's', "C-s", A::Submit, "run"),
    bind(C::Form, K::Up, "↑", A::Up, "previous field", false),
    bind(C::Form, K::Down, "↓", A::Down, "next field", false),
    bind(C::Form, K::Esc, "Esc", A::Back, "back", true),
    bind(C::Running, K::Esc, "Esc", A::Back, "cancel call", true),
    bind(
        C::Result,
        K::Char('m'),
        "m",
        A::ToggleModel,
        "model-visible text",
        true,
    ),
    bind(C::Result, K::Char('y'), "y", A::Copy, "copy result", true),
    bind(
        C::Result,
        K::Char('z'),
        "z",
        A::Fold,
        "fold / open JSON at the cursor",
        true,
    ),
    bind(
        C::Result,
        K::Char('Z'),
        "Z",
        A::FoldAll,
        "fold all / open all",
        false,
    ),
    bind(C::Result, K::Char('c'), "c", A::Call, "call again", true),
    bind(
        C::Result,
        K::Char('/'),
        "/",
        A::Search,
        "search the text",
        true,
    ),
    bind(
        C::Result,
        K::Char('n'),
        "n",
        A::NextMatch,
        "next match",
        false,
    ),
    bind(
        C::Result,
        K::Char('N'),
        "N",
        A::PrevMatch,
        "previous match",
        false,
    ),
    bind(C::SpillsView, K::Home, "Home", A::Top, "first line", false),
    bind(C::SpillsView, K::End, "End", A::Bottom, "last line", false),
    bind(C::Result, K::Home, "Home", A::Top, "first line", false),
    bind(C::Result, K::Char('g'), "g", A::Top, "first line", false),
    bind(C::Result, K::End, "End", A::Bottom, "last line", false),
    bind(C::Result, K::Char('G'), "G", A::Bottom, "last line", false),
    bind(
        C::Result,
        K::Enter,
        "Enter",
        A::Open,
        "open the spill it names",
        false,
    ),
    bind(C::Result, K::Esc, "Esc", A::Back, "back", true),
    bind(C::View, K::Esc, "Esc", A::Back, "close", true),
    bind(C::View, K::Char('q'), "q", A::Back, "close", false),
    bind(C::View, K::Char('y'), "y", A::Copy, "copy", true),
    bind(
        C::TrustView,
        K::Char('T'),
        "T",
        A::Grant,
        "trust project (type y)",
        true,
    ),
    bind(
        C::TrustView,
        K::Char('R'),
        "R",
        A::Revoke,
        "revoke trust",
        true,
    ),
    bind(
        C::SpillsView,
        K::Enter,
        "Enter",
        A::Open,
        "view spill",
        true,
    ),
    bind(C::SpillsView, K::Char('y'), "y", A::Copy, "copy path", true),
    bind(
        C::SpillsView,
        K::Char('x'),
        "x",
        A::Delete,
        "delete spill",
        true,
    ),
    bind(
        C::SpillsView,
        K::Delete,
        "Del",
        A::Delete,
        "delete spill",
        false,
    ),
    bind(
        C::AgentsView,
        K::Char('r'),
        "r",
        A::Reconnect,
        "look for sessions again",
        true,
    ),
    bind(
        C::Side,
        K::Enter,
        "Enter",
        A::Submit,
        "run workspace tool",
        true,
    ),
    bind(
        C::Side,
        K::Right,
        "→",
        A::NextTab,
        "next workspace tool",
        true,
    ),
    bind(
        C::Side,
        K::Left,
        "←",
        A::PrevTab,
        "previous workspace tool",
        false,
    ),
    bind(C::Side, K::Up, "↑", A::Up, "scroll result", false),
    bind(C::Side, K::Down, "↓", A::Down, "scroll result", false),
    bind(
        C::Side,
        K::PageUp,
        "PgUp",
        A::PageUp,
        "scroll result",
        false,
    ),
    bind(
        C::Side,
        K::PageDown,
        "PgDn",
        A::PageDown,
        "scroll result",
        false,
    ),
    ctrl(C::Side, 'y', "C-y", A::Copy, "copy workspace result"),
    ctrl(C::Side, 'w', "C-w", A::Workspace, "close workspace panel"),
    bind(
        C::Side,
        K::Esc,
        "Esc",
        A::Back,
        "cancel run / leave panel",
        true,
    ),
];

/// Whether `key` matches `b`.
fn matches(b: &Binding, key: &KeyEvent) -> bool {
    if b.code != key.code {
        return false;
    }
    let mods = if matches!(key.code, KeyCode::Char(_)) {
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
        Self {
            bindings: KEYMAP.to_vec(),
        }
    }
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
    pub fn hints(&self, contexts: &[Ctx]) -> Vec<(String, &'static str)> {
        let mut seen: Vec<Action> = Vec::new();
        let mut out = Vec::new();
        for ctx in contexts {
            for b in self.bindings.iter().filter(|b| b.ctx == *ctx && b.hint) {
                if seen.contains(&b.action) {
                    continue;
                }
                seen.push(b.action);
                out.push((b.label.to_string(), b.desc));
            }
        }
        out
    }

    /// The help overlay's rows: (context name, keys, description), keys of one action joined.
    pub fn help_rows(&self) -> Vec<(&'static str, String, &'static str)> {
        let mut out: Vec<(&'static str, String, &'static str)> = Vec::new();
        for b in &self.bindings {
            let ctx = ctx_name(b.ctx);
            if let Some(row) = out.iter_mut().find(|(c, _, d)| *c == ctx && *d == b.desc) {
                row.1.push('/');
                row.1.push_str(&b.label);
                continue;
            }
            out.push((ctx, b.label.to_string(), b.desc));
        }
        out
    }

    /// Applies a `keys.toml` patch: `action = "key"` or `action = ["key", ...]` replaces that
    /// action's keys in every context it is bound in. Returns the problems found (the rest of
    /// the patch still applies).
    pub fn apply(&mut self, text: &str) -> Vec<String> {
        let table: toml::Table = match toml::from_str(text) {
            Ok(t) => t,
            Err(e) => return vec![format!("keys.toml: {e}")],
        };
        let mut problems = Vec::new();
        for (name, value) in &table {
            let Some(action) = ACTION_NAMES
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, a)| *a)
            else {
                problems.push(format!("keys.toml: unknown action `{name}`"));
                continue;
            };
            let specs: Vec<&str> = match value {
                toml::Value::String(s) => vec![s.as_str()],
                toml::Value::Array(a) => a.iter().filter_map(toml::Value::as_str).collect(),
                _ => {
                    problems.push(format!(
                        "keys.toml: `{name}` must be a key or a list of keys"
                    ));
                    continue;
                }
            };
            let mut keys = Vec::new();
            for spec in specs {
                match parse_key(spec) {
                    Some(k) => keys.push((k, spec.to_owned())),
                    None => problems.push(format!("keys.toml: `{name}`: cannot read key `{spec}`")),
                }
            }
            if keys.is_empty() {
                continue;
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
                for ((code, mods), label) in &keys {
                    self.bindings.push(Binding {
                        ctx,
                        code: *code,
                        mods: *mods,
                        label: Cow::Owned(label.clone()),
                        action,
                        desc: first.desc,
                        hint: first.hint,
                    });
                }
            }
        }
        problems
    }
}

/// The names actions have in `keys.toml`.
pub const ACTION_NAMES: &[(&str, Action)] = &[
    ("quit", Action::Quit),
    ("help", Action::Help),
    ("focus_next", Action::FocusNext),
    ("up", Action::Up),
    ("down", Action::Down),
    ("page_up", Action::PageUp),
    ("page_down", Action::PageDown),
    ("top", Action::Top),
    ("bottom", Action::Bottom),
    ("next_match", Action::NextMatch),
    ("prev_match", Action::PrevMatch),
    ("next_tab", Action::NextTab),
    ("prev_tab", Action::PrevTab),
    ("open", Action::Open),
    ("search", Action::Search),
    ("call", Action::Call),
    ("reconnect", Action::Reconnect),
    ("trust", Action::Trust),
    ("doctor", Action::Doctor),
    ("spills", Action::Spills),
    ("workspace", Action::Workspace),
    ("copy", Action::Copy),
    ("back", Action::Back),
    ("submit", Action::Submit),
    ("toggle_raw", Action::ToggleRaw),
    ("toggle_model", Action::ToggleModel),
    ("grant", Action::Grant),
    ("revoke", Action::Revoke),
    ("suspend", Action::Suspend),
    ("approvals", Action::Approvals),
    ("agents", Action::Agents),
    ("delete", Action::Delete),
    ("test_connect", Action::TestConnect),
    ("fold", Action::Fold),
    ("fold_all", Action::FoldAll),
    ("full_text", Action::FullText),
    ("log_filter", Action::LogFilter),
    ("edit", Action::Edit),
    ("save", Action::Save),
];

/// Reads `C-x`, `A-x`, `Enter`, `Esc`, `Tab`, `Up`, `PgDn`, `F5`, `x`.
fn parse_key(spec: &str) -> Option<(KeyCode, KeyModifiers)> {
    let (mods, rest) = if let Some(r) = spec.strip_prefix("C-") {
        (KeyModifiers::CONTROL, r)
    } else if let Some(r) = spec.strip_prefix("A-") {
        (KeyModifiers::ALT, r)
    } else {
        (KeyModifiers::NONE, spec)
    };
    let code = match rest {
        "Enter" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Tab" => KeyCode::Tab,
        "Backspace" => KeyCode::Backspace,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PgUp" => KeyCode::PageUp,
        "PgDn" => KeyCode::PageDown,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        "Space" => KeyCode::Char(' '),
        f if f.starts_with('F') && f.len() > 1 => KeyCode::F(f[1..].parse().ok()?),
        c => {
            let mut chars = c.chars();
            let first = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            KeyCode::Char(first)
        }
    };
    Some((code, mods))
}

/// A context's name in the help overlay.
pub fn ctx_name(ctx: Ctx) -> &'static str {
    match ctx {
        Ctx::Global => "everywhere",
        Ctx::Servers => "servers",
        Ctx::List => "lists",
        Ctx::Detail => "tool detail",
        Ctx::Form => "call form",
        Ctx::Running => "running",
        Ctx::Result => "result",
        Ctx::View => "views",
        Ctx::TrustView => "trust view",
        Ctx::SpillsView => "spills view",
        Ctx::Editor => "config editor",
        Ctx::Side => "workspace panel",
        Ctx::AgentsView => "agents view",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    fn lookup(contexts: &[Ctx], key: &KeyEvent) -> Option<Action> {
        Keymap::default().lookup(contexts, key)
    }

    #[test]
    fn a_patch_replaces_an_actions_keys_everywhere_and_reports_problems() {
        let mut map = Keymap::default();
        let problems = map
            .apply("search = \"C-f\"\nquit = [\"x\", \"C-q\"]\nnope = \"z\"\ncall = \"Ctrl+c\"\n");
        assert_eq!(problems.len(), 2, "{problems:?}");
        let cf = KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL);
        assert_eq!(map.lookup(&[Ctx::List], &cf), Some(Action::Search));
        assert_eq!(map.lookup(&[Ctx::List, Ctx::Global], &key('/')), None);
        assert_eq!(map.lookup(&[Ctx::Global], &key('x')), Some(Action::Quit));
        assert_eq!(map.lookup(&[Ctx::Global], &key('q')), None);
        assert!(map.help_rows().iter().any(|(_, k, _)| k.contains("C-f")));
        assert!(map.hints(&[Ctx::List]).iter().any(|(k, _)| k == "C-f"));
    }

    #[test]
    fn first_context_wins_and_globals_apply() {
        assert_eq!(
            lookup(&[Ctx::Detail, Ctx::Global], &key('y')),
            Some(Action::Copy)
        );
        assert_eq!(
            lookup(&[Ctx::List, Ctx::Global], &key('/')),
            Some(Action::Search)
        );
        assert_eq!(lookup(&[Ctx::Servers, Ctx::Global], &key('/')), None);
        assert_eq!(lookup(&[Ctx::Global], &key('q')), Some(Action::Quit));
    }

    #[test]
    fn every_action_with_a_key_is_in_help() {
        let rows = Keymap::default().help_rows();
        for b in KEYMAP {
            assert!(
                rows.iter()
                    .any(|(_, keys, d)| *d == b.desc && keys.contains(&*b.label))
            );
        }
    }

    #[test]
    fn ctrl_keys_need_ctrl() {
        let plain = key('c');
        let ctl = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(lookup(&[Ctx::Global], &plain), None);
        assert_eq!(lookup(&[Ctx::Global], &ctl), Some(Action::Quit));
    }
}
