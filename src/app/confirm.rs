//! A question answered by a typed `y` that carries what it confirms: the answer acts on the
//! thing the prompt named, even when the list under the prompt changed while it waited.

use crossterm::event::{KeyCode, KeyEvent};

/// A confirmation waiting for its `y`, holding the action (or the thing acted on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm<A>(A);

impl<A> Confirm<A> {
    /// Asks to confirm `action`.
    pub fn new(action: A) -> Self {
        Self(action)
    }

    /// What is confirmed (the prompt names it).
    pub fn what(&self) -> &A {
        &self.0
    }

    /// The typed answer: the action for `y`, nothing (cancelled) for any other key.
    pub fn answer(self, key: &KeyEvent) -> Option<A> {
        (key.code == KeyCode::Char('y')).then_some(self.0)
    }
}

#[cfg(test)]
mod tests {
    use crate::app::policy_view::PolicyListing;
    use crate::app::testkit::{ch, demo_app, key};
    use crate::app::{Effect, Msg};
    use crossterm::event::KeyCode;

    fn listing(path: &std::path::Path, rules: &[&str]) -> Msg {
        Msg::PolicyRead(Ok(PolicyListing {
            path: path.to_path_buf(),
            exists: true,
            mode: "enforce".to_owned(),
            rules: rules.iter().map(|r| (true, (*r).to_owned())).collect(),
        }))
    }

    #[test]
    fn the_y_removes_the_rule_the_prompt_named_even_when_the_list_moved_under_it() {
        let (mut app, dir) = demo_app();
        let policy = dir.path().join("policy.json");
        app.policy_path = Some(policy.clone());
        app.update(ch('P'));
        app.update(listing(&policy, &["a:tools.list", "b:tools.call"]));
        app.update(key(KeyCode::Down));
        app.update(ch('x'));
        // The file is read again while the prompt waits: the named rule is now first and the
        // selection clamps onto another one.
        app.update(listing(&policy, &["b:tools.call"]));
        app.update(listing(&policy, &["c:prompts.get", "b:tools.call"]));
        let fx = app.update(ch('y'));
        assert_eq!(
            fx,
            vec![Effect::RemoveRule {
                policy,
                rule: "b:tools.call".to_owned()
            }]
        );
    }
}
