//! The config doctor (`d`) as a component: it moves between the files it lists, scrolls its
//! text, copies it and opens the selected file in the editor.

use super::{Asks, Shared, moves, reads, scrolled};
use crate::app::Effect;
use crate::app::component::{Component, Update};
use crate::app::info::ConfigInfo;
use crate::app::keymap::Action;

/// The config doctor's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DoctorView {
    /// The first line shown.
    pub scroll: usize,
    /// The selected file (an index into `ConfigInfo::doctor_files`).
    pub file: usize,
}

impl DoctorView {
    /// The doctor as it opens: on the first file that exists and mcpdeck may edit (the
    /// lowest-precedence layers are often absent), else on the first file; scrolled so that
    /// file's line shows.
    pub fn opened(info: &ConfigInfo) -> Self {
        let files = &info.doctor_files;
        let file = files
            .iter()
            .position(|f| f.present && f.layer != crate::mcp::config::Layer::Packaged)
            .unwrap_or(0);
        Self { scroll: 0, file }
    }
}

/// The doctor copies its text, edits the selected file, moves between files (up, down) and
/// scrolls its text (the page keys).
impl Component for DoctorView {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        (reads(action) || action == Action::Edit).then_some(action)
    }

    fn update(mut self, action: Action, s: &Shared<'_>) -> Update<Self> {
        let files = &s.info.doctor_files;
        match action {
            Action::Copy => {
                let text: Vec<&str> = s.info.doctor.iter().map(|l| l.text.as_str()).collect();
                Update::then(self, Effect::Copy(text.join("\n")).into())
            }
            Action::Edit => match files.get(self.file) {
                Some(f) if f.layer != crate::mcp::config::Layer::Packaged => {
                    let (path, layer) = (f.path.clone(), f.layer);
                    Update::then(self, Effect::OpenEditor { path, layer }.into())
                }
                _ => Update::then(self, Asks::said("no file to edit here")),
            },
            Action::Up | Action::Down if !files.is_empty() => {
                self.file = scrolled(self.file, action, files.len() - 1);
                let line = files[self.file].line;
                let height = usize::from(s.pager_viewport.1).max(1) + 1;
                if line < self.scroll {
                    self.scroll = line;
                } else if line >= self.scroll + height {
                    self.scroll = line + 1 - height;
                }
                Update::stay(self)
            }
            Action::Back | Action::Quit => Update::close(None),
            action if moves(action) => {
                let max = s.info.doctor.len().saturating_sub(1);
                self.scroll = scrolled(self.scroll, action, max);
                Update::stay(self)
            }
            _ => Update::pass(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::overlays::{lines, shared};

    #[test]
    fn the_doctor_moves_between_files_scrolls_and_edits_only_an_editable_file() {
        let file = |line, layer| crate::app::info::DoctorFile {
            line,
            path: format!("/c/{line}.json").into(),
            layer,
            present: true,
        };
        let info = ConfigInfo {
            doctor: lines(&["0", "1", "2", "3", "4", "5", "6", "7"]),
            doctor_files: vec![
                file(0, crate::mcp::config::Layer::User),
                file(6, crate::mcp::config::Layer::Packaged),
            ],
            ..ConfigInfo::default()
        };
        let start = DoctorView::default();
        let step = start.update(Action::Edit, &shared(&info));
        assert_eq!(
            step.out,
            Some(Asks::from(Effect::OpenEditor {
                path: "/c/0.json".into(),
                layer: crate::mcp::config::Layer::User,
            }))
        );
        let step = start.update(Action::Down, &shared(&info));
        let moved = step.next.expect("open");
        assert_eq!(
            moved,
            DoctorView { scroll: 3, file: 1 },
            "its line shows in 4 rows"
        );
        let step = moved.update(Action::Edit, &shared(&info));
        assert_eq!(step.out, Some(Asks::said("no file to edit here")));
        let paged = start.update(Action::PageDown, &shared(&info));
        assert_eq!(
            paged.next.expect("open").scroll,
            7,
            "a page, kept on the last line"
        );
        let no_files = ConfigInfo {
            doctor: info.doctor.clone(),
            ..ConfigInfo::default()
        };
        let step = start.update(Action::Down, &shared(&no_files));
        assert_eq!(
            step.next,
            Some(DoctorView { scroll: 1, file: 0 }),
            "no files: it scrolls"
        );
        assert!(start.update(Action::Back, &shared(&info)).next.is_none());
        assert!(DoctorView::offers(Action::Edit) && !DoctorView::offers(Action::Top));
    }
}
