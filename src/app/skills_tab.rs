//! The Skills tab: a server's skills (the `io.modelcontextprotocol/skills` extension) as a
//! [`CatalogTab`] over [`Skills`], shown only for a server that declares the extension. Listing
//! reads no skill file; `Enter` reads the highlighted skill's `SKILL.md` through the engine's
//! verified path (size, SHA-256, front matter) and shows it like a result. Drawn by
//! `ui::skills_tab`.

use super::tabs::{Catalog, CatalogTab};
use super::{App, Effect, Running, Screen, Waiter};
use crate::mcp::EngineRequest;
use crate::mcp::api::OpResult;
use crate::mcp::engine::OperatorOp;
use crate::mcp::sanitize::sanitize_capped;

/// One skill in the list (sanitised; the engine sanitised it too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillRow {
    /// `frontmatter.name`.
    pub name: String,
    /// The first line of its description.
    pub description: String,
    /// How many files its entry lists (`None`: the server says they change, `dynamic`).
    pub files: Option<usize>,
}

/// The skills catalog (`skills.list`, every page; no file read).
#[derive(Debug)]
pub struct Skills;

impl Catalog for Skills {
    type Row = SkillRow;
    const WHAT: &'static str = "skills";
    fn request(server: String) -> EngineRequest {
        EngineRequest::operator(server, OperatorOp::Skills)
    }
    fn rows(result: &OpResult) -> Option<Vec<SkillRow>> {
        let OpResult::Skills(list) = result else {
            return None;
        };
        let row = |s: &crate::mcp::catalog::skills::SkillSummary| SkillRow {
            name: sanitize_capped(&s.name, 128),
            description: sanitize_capped(&s.description, 400).replace('\n', " "),
            files: s.files.as_ref().map(Vec::len),
        };
        Some(list.skills.iter().map(row).collect())
    }
}

/// The Skills tab.
pub type SkillsTab = CatalogTab<Skills>;

impl App {
    /// `Enter` on the skill at `sel`: asks for its entry and `SKILL.md`, verified, and no other
    /// file; the answer is shown like a result.
    pub(super) fn open_skill(&mut self, server: String, sel: usize) -> Vec<Effect> {
        let Some(name) = self
            .pane()
            .and_then(|p| p.skills.entries().get(sel).map(|s| s.name.clone()))
        else {
            return Vec::new();
        };
        let id = self.id(Waiter::Run);
        self.screen = Screen::Running(Running::without_form(id, &server, self.now));
        let op = OperatorOp::Skill {
            name,
            files: Vec::new(),
        };
        vec![Effect::Engine {
            id,
            request: EngineRequest::Operator { server, op },
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Effect, Load, TabMsg};
    use crate::mcp::catalog::skills::{SkillList, SkillSummary};

    #[test]
    fn the_tab_lists_skills_once_when_shown_and_reads_no_file() {
        let mut tab = SkillsTab::default();
        let show = || TabMsg::Show {
            server: "fx".to_owned(),
            id: 7,
            now: std::time::Instant::now(),
        };
        let effects = tab.update(show());
        assert!(matches!(
            effects.as_slice(),
            [Effect::Engine {
                id: 7,
                request: EngineRequest::Operator {
                    op: OperatorOp::Skills,
                    ..
                },
            }]
        ));
        // Shown again while loading: nothing more is asked.
        assert!(tab.update(show()).is_empty());
        let list = OpResult::Skills(SkillList {
            skills: vec![SkillSummary {
                name: "greet\u{1b}[2J".to_owned(),
                uri: "skill://greet/SKILL.md".to_owned(),
                description: "say\nhello".to_owned(),
                files: None,
            }],
            declared: true,
        });
        let rows = Skills::rows(&list).expect("a skills listing");
        assert!(rows[0].name.starts_with("greet") && !rows[0].name.contains('\u{1b}'));
        assert_eq!(rows[0].description, "say hello");
        assert_eq!(rows[0].files, None);
        tab.catalog = Some(Load::Ready(rows));
        assert_eq!(tab.entries().len(), 1);
    }
}
