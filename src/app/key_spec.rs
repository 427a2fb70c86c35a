//! How keys and actions are spelled: read from a keymap file (`C-x`, `PgDn`, `call_tool`) and
//! shown in hints and help.

use crossterm::event::{KeyCode, KeyModifiers};

use super::keymap::Action;

/// Reads `C-x`, `A-x`, `Enter`, `Esc`, `Tab`, `Up`, `PgDn`, `F5`, `x`.
pub(super) fn parse_key(spec: &str) -> Option<(KeyCode, KeyModifiers)> {
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
        "BackTab" => KeyCode::BackTab,
        "Backspace" => KeyCode::Backspace,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PgUp" => KeyCode::PageUp,
        "PgDn" => KeyCode::PageDown,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        "Del" | "Delete" => KeyCode::Delete,
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

/// How a key is written in hints and help: `C-x`, `A-x`, `↑`, `PgDn`, `Enter`, `x`.
pub fn key_label(code: KeyCode, mods: KeyModifiers) -> String {
    let key = match code {
        KeyCode::Up => "↑".to_owned(),
        KeyCode::Down => "↓".to_owned(),
        KeyCode::Left => "←".to_owned(),
        KeyCode::Right => "→".to_owned(),
        KeyCode::PageUp => "PgUp".to_owned(),
        KeyCode::PageDown => "PgDn".to_owned(),
        KeyCode::Home => "Home".to_owned(),
        KeyCode::End => "End".to_owned(),
        KeyCode::Enter => "Enter".to_owned(),
        KeyCode::Esc => "Esc".to_owned(),
        KeyCode::Tab => "Tab".to_owned(),
        KeyCode::Backspace => "Backspace".to_owned(),
        KeyCode::Delete => "Del".to_owned(),
        KeyCode::Char(' ') => "Space".to_owned(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    };
    if mods.contains(KeyModifiers::CONTROL) {
        format!("C-{key}")
    } else if mods.contains(KeyModifiers::ALT) {
        format!("A-{key}")
    } else {
        key
    }
}

/// The action named `name` in a keymap file.
pub(super) fn action_named(name: &str) -> Option<Action> {
    ACTION_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, a)| *a)
        .or_else(|| super::panels::named(name))
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
    ("filter", Action::Filter),
    ("call", Action::Call),
    ("reconnect", Action::Reconnect),
    ("reload", Action::Reload),
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
    ("allow_once", Action::AllowOnce),
    ("allow_session", Action::AllowSession),
    ("deny", Action::Deny),
    ("allow_always", Action::AllowAlways),
    ("view_arguments", Action::ViewArguments),
    ("policy", Action::Policy),
    ("decline", Action::Decline),
    ("toggle", Action::Toggle),
    ("next_option", Action::NextOption),
    ("prev_option", Action::PrevOption),
    ("open_url", Action::OpenUrl),
    ("stop_reason", Action::StopReason),
    ("task_mode", Action::TaskMode),
    ("tasks", Action::Tasks),
    ("read_uri", Action::ReadUri),
    ("hosts", Action::Hosts),
    ("import", Action::Import),
    ("import_project", Action::ImportProject),
    ("sign_in", Action::SignIn),
    ("sign_out", Action::SignOut),
    ("complete", Action::Complete),
    ("ping", Action::Ping),
    ("disconnect", Action::Disconnect),
    ("roots", Action::Roots),
    ("add_root", Action::AddRoot),
    ("log_level_up", Action::LogLevelUp),
    ("log_level_down", Action::LogLevelDown),
    ("subscribe", Action::Subscribe),
    ("raw_json", Action::RawJson),
];
