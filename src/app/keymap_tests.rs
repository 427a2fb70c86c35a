//! The keymap: the embedded default, patches, context lists, lookups and help.

use super::*;

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn lookup(contexts: &[Ctx], key: &KeyEvent) -> Option<Action> {
    Keymap::default().lookup(contexts, key)
}

#[test]
fn the_embedded_default_reads_without_problems() {
    let mut map = Keymap {
        bindings: Vec::new(),
    };
    assert_eq!(map.apply(DEFAULT_KEYMAP), Vec::<String>::new());
    assert!(map.bindings.len() > 60, "{}", map.bindings.len());
    // Every context has at least one binding, so none is forgotten in the asset.
    for ctx in ALL_CTX {
        assert!(map.bindings.iter().any(|b| b.ctx == ctx), "{ctx:?}");
    }
}

#[test]
fn a_patch_replaces_an_actions_keys_everywhere_and_reports_problems() {
    let mut map = Keymap::default();
    let problems =
        map.apply("search = \"C-f\"\nquit = [\"x\", \"C-q\"]\nnope = \"z\"\ncall = \"Ctrl+c\"\n");
    assert_eq!(problems.len(), 2, "{problems:?}");
    let cf = KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL);
    assert_eq!(map.lookup(&[Ctx::ToolsTab], &cf), Some(Action::Search));
    assert_eq!(map.lookup(&[Ctx::ToolsTab, Ctx::Global], &key('/')), None);
    assert_eq!(map.lookup(&[Ctx::Global], &key('x')), Some(Action::Quit));
    assert_eq!(map.lookup(&[Ctx::Global], &key('q')), None);
    assert!(map.help_rows().iter().any(|(_, k, _)| k.contains("C-f")));
    assert!(map.hints(&[Ctx::ToolsTab]).iter().any(|(k, _)| k == "C-f"));
}

#[test]
fn a_context_list_adds_bindings_ahead_of_the_defaults() {
    let mut map = Keymap::default();
    let problems = map.apply(
        "result = [{ keys = [\"o\"], action = \"bottom\", desc = \"to the end\", hint = true }]\n\
         spills_view = [{ keys = [\"p\"], action = \"nope\", desc = \"x\" }]\n",
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(map.lookup(&[Ctx::Result], &key('o')), Some(Action::Bottom));
    assert_eq!(map.hints(&[Ctx::Result])[0], ("o".to_owned(), "to the end"));
}

#[test]
fn a_remapped_key_is_what_hints_and_key_for_say() {
    let mut map = Keymap::default();
    assert_eq!(
        map.key_for(Ctx::SpillsView, Action::Copy).as_deref(),
        Some("y")
    );
    assert!(map.apply("copy = \"C-k\"").is_empty());
    assert_eq!(
        map.key_for(Ctx::SpillsView, Action::Copy).as_deref(),
        Some("C-k")
    );
    assert!(
        map.hints(&[Ctx::SpillsView])
            .iter()
            .any(|(k, d)| k == "C-k" && *d == "copy path")
    );
}

#[test]
fn first_context_wins_and_globals_apply() {
    assert_eq!(
        lookup(&[Ctx::Detail, Ctx::Global], &key('y')),
        Some(Action::Copy)
    );
    assert_eq!(
        lookup(&[Ctx::ToolsTab, Ctx::List, Ctx::Global], &key('/')),
        Some(Action::Search)
    );
    assert_eq!(
        lookup(&[Ctx::ResourcesTab, Ctx::List, Ctx::Global], &key('/')),
        Some(Action::Filter)
    );
    assert_eq!(lookup(&[Ctx::Servers, Ctx::Global], &key('/')), None);
    assert_eq!(lookup(&[Ctx::Global], &key('q')), Some(Action::Quit));
}

#[test]
fn every_binding_is_in_help() {
    let map = Keymap::default();
    let rows = map.help_rows();
    for b in &map.bindings {
        assert!(
            rows.iter()
                .any(|(_, keys, d)| *d == b.desc && keys.contains(&b.label()))
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
