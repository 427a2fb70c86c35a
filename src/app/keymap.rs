//! The one keymap table (SPEC.md §10.4): every binding is (context, key, action, description).
//! Dispatch, the footer hints and the `?` help overlay are all read from [`KEYMAP`], so a key
//! can never work without being documented or be documented without working.

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
}

/// One binding.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// Where it applies.
    pub ctx: Ctx,
    /// The key.
    pub code: KeyCode,
    /// Required modifiers (exact match, shift ignored for characters).
    pub mods: KeyModifiers,
    /// How the key is written in hints and help.
    pub label: &'static str,
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
        label,
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
        label,
        action,
        desc,
        hint: true,
    }
}

use Action as A;
use Ctx as C;
use KeyCode as K;

/// The default keymap.
pub const KEYMAP: &[Binding] = &[
    bind(C::Global, K::Char('q'), "q", A::Quit, "quit", true),
    Binding {
        hint: false,
        ..ctrl(C::Global, 'c', "C-c", A::Quit, "quit")
    },
    Binding {
        hint: false,
        ..ctrl(C::Global, 'z', "C-z", A::Suspend, "suspend (fg resumes)")
    },
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
    bind(C::Detail, K::Char('c'), "c", A::Call, "call tool", true),
    bind(C::Detail, K::Enter, "Enter", A::Call, "call tool", false),
    bind(C::Detail, K::Esc, "Esc", A::Back, "back", true),
    bind(C::Detail, K::Char('y'), "y", A::Copy, "copy schema", true),
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
    bind(C::Result, K::Char('c'), "c", A::Call, "call again", true),
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

/// The action bound to `key` in the first of `contexts` that binds it.
pub fn lookup(contexts: &[Ctx], key: &KeyEvent) -> Option<Action> {
    contexts.iter().find_map(|ctx| {
        KEYMAP
            .iter()
            .find(|b| b.ctx == *ctx && matches(b, key))
            .map(|b| b.action)
    })
}

/// The footer hints for `contexts`: the first binding of each hinted action, in order.
pub fn hints(contexts: &[Ctx]) -> Vec<(&'static str, &'static str)> {
    let mut seen: Vec<Action> = Vec::new();
    let mut out = Vec::new();
    for ctx in contexts {
        for b in KEYMAP.iter().filter(|b| b.ctx == *ctx && b.hint) {
            if seen.contains(&b.action) {
                continue;
            }
            seen.push(b.action);
            out.push((b.label, b.desc));
        }
    }
    out
}

/// The help overlay's rows: (context name, keys, description), keys of one action joined.
pub fn help_rows() -> Vec<(&'static str, String, &'static str)> {
    let mut out: Vec<(&'static str, String, &'static str)> = Vec::new();
    for b in KEYMAP {
        let ctx = ctx_name(b.ctx);
        if let Some(row) = out.iter_mut().find(|(c, _, d)| *c == ctx && *d == b.desc) {
            row.1.push('/');
            row.1.push_str(b.label);
            continue;
        }
        out.push((ctx, b.label.to_owned(), b.desc));
    }
    out
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
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
        let rows = help_rows();
        for b in KEYMAP {
            assert!(
                rows.iter()
                    .any(|(_, keys, d)| *d == b.desc && keys.contains(b.label))
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
