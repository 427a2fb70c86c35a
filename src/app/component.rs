//! What every converted layer is: a [`Component`] with a message type, one `update` over it,
//! and hints read from the keymap for exactly the messages it takes (a key whose action maps to
//! no message is neither dispatched nor offered in the footer). A component whose messages are
//! only keymap actions takes [`Action`] itself; one that also takes raw keys takes [`KeyMsg`];
//! a typed enum is kept where a message carries more. Drawing is `ui::X::render` over the state
//! in `app::X`.

use crossterm::event::KeyEvent;

use super::keymap::Action;

/// One layer of the console.
pub trait Component: Sized {
    /// Everything the component answers to.
    type Msg: Copy;
    /// What it reads of the rest of the app while updating (never changes it).
    type Env<'a>;
    /// What it asks the app to do after an update (effects, engine work, a status message).
    type Out;

    /// The message a keymap action means here; `None` when the component does not take it.
    fn message(action: Action) -> Option<Self::Msg>;

    /// Handles `msg`: the state next (`None` closes the layer) and what the app must do.
    fn update(self, msg: Self::Msg, env: &Self::Env<'_>) -> Update<Self>;

    /// Whether the footer may offer `action` here.
    fn offers(action: Action) -> bool {
        Self::message(action).is_some()
    }
}

/// What an update returns.
#[derive(Debug)]
pub struct Update<C: Component> {
    /// The state next; `None` closes the layer.
    pub next: Option<C>,
    /// What the app must do.
    pub out: Option<C::Out>,
    /// Whether the component took the message; when not, the router may give the key to
    /// whatever takes it next (a form types a key bound to something it does not do).
    pub taken: bool,
}

impl<C: Component> Update<C> {
    /// Stays open as `next`, asking nothing.
    pub fn stay(next: C) -> Self {
        Self {
            next: Some(next),
            out: None,
            taken: true,
        }
    }

    /// Stays as it was: the message is not one it takes now.
    pub fn pass(next: C) -> Self {
        Self {
            taken: false,
            ..Self::stay(next)
        }
    }

    /// Stays open as `next` and asks `out`.
    pub fn then(next: C, out: C::Out) -> Self {
        Self {
            next: Some(next),
            out: Some(out),
            taken: true,
        }
    }

    /// Closes the layer, asking `out` when given.
    pub fn close(out: Option<C::Out>) -> Self {
        Self {
            next: None,
            out,
            taken: true,
        }
    }
}

/// The message of a component that takes raw keys besides its actions (the config editor, the
/// approval prompt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMsg {
    /// A keymap action of its context.
    Do(Action),
    /// A key no binding of its context takes (it types, or answers a typed confirmation).
    Type(KeyEvent),
}
