//! Every component whose messages are keymap actions handles each action its `message` lets in:
//! none reaches a catch-all that does something else (a scroll, a close) by accident. An
//! action a view does not take falls to `Update::pass`, which says so.

use super::auth::SignInView;
use super::component::Component;
use super::hosts::HostsView;
use super::key_help::{KeyHelp, Page};
use super::key_spec::ACTION_NAMES;
use super::overlays::{ApprovalsView, DoctorView, ErrorView, HelpView, TrustView, shared};
use super::pager::Pager;
use super::panels::PanelView;
use super::policy_view::PolicyView;
use super::spills_view::SpillsView;
use super::tasks_view::TasksView;
use super::{agents_view::AgentsView, info::ConfigInfo};

/// The names of the actions `C::message` lets in but `update` does not take, and how many it
/// lets in.
fn passed<C: Component>(make: impl Fn() -> C, env: &C::Env<'_>) -> (Vec<&'static str>, usize) {
    let taken: Vec<_> = ACTION_NAMES
        .iter()
        .filter_map(|&(name, action)| C::message(action).map(|msg| (name, msg)))
        .collect();
    let passed = taken
        .iter()
        .filter(|&&(_, msg)| !make().update(msg, env).taken)
        .map(|&(name, _)| name)
        .collect();
    (passed, taken.len())
}

#[test]
fn every_action_a_view_lets_in_is_one_its_update_takes() {
    let info = ConfigInfo::default();
    let s = shared(&info);
    let page = Page { max: 9, height: 3 };
    let tasks = || TasksView {
        server: "demo".into(),
        tasks: super::Load::Ready(Vec::new()),
        sel: 0,
        known: false,
    };
    let error = || ErrorView {
        title: "t".into(),
        class: "c".into(),
        message: "m".into(),
    };
    let pager = || Pager {
        path: "/spill.txt".into(),
        window: crate::mcp::results::SpillWindow::default(),
        viewer: super::viewer::Viewer::default(),
        from_spills: false,
    };
    let key_help = || KeyHelp {
        contexts: Vec::new(),
        scroll: 0,
    };
    let sign_in = || SignInView {
        server: "demo".into(),
        url: None,
    };
    let views = [
        ("agents", passed(AgentsView::default, &s)),
        ("sign-in", passed(sign_in, &())),
        ("hosts", passed(Box::<HostsView>::default, &())),
        ("key help", passed(key_help, &page)),
        ("error", passed(error, &())),
        ("approvals", passed(ApprovalsView::default, &s)),
        ("doctor", passed(DoctorView::default, &s)),
        ("help", passed(HelpView::default, &s)),
        ("trust", passed(TrustView::default, &s)),
        ("pager", passed(pager, &s)),
        ("panel", passed(|| PanelView { index: 0 }, &None)),
        ("policy", passed(PolicyView::default, &s)),
        ("spills", passed(SpillsView::default, &s)),
        ("tasks", passed(tasks, &())),
    ];
    for (view, (passed, taken)) in views {
        assert!(taken >= 2, "the {view} view lets in {taken} actions");
        assert!(
            passed.is_empty(),
            "the {view} view lets in {passed:?} and does not take them"
        );
    }
}
