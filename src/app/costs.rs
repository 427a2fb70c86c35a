//! The Tools tab's token costs: once a server's tool list has arrived, the app asks the engine
//! what each definition costs an agent's context (`tools.cost`); the list then shows a tokens
//! column, and the tab bar the sum beside what `mcpdeck serve`'s one tool costs.

use std::collections::HashMap;

use super::{App, Effect, ReqId, Waiter};
use crate::mcp::api::OpResult;
use crate::mcp::engine::{OperatorOp, Outcome};

/// A server's tool costs as the console shows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCosts {
    /// Tokens by tool name (the first of duplicates).
    pub by_name: HashMap<String, usize>,
    /// The sum over the catalog.
    pub total: usize,
    /// What `mcpdeck serve`'s `mcp` tool costs.
    pub proxy_tool: usize,
    /// The tokenizer's name.
    pub tokenizer: String,
}

impl ToolCosts {
    /// The tab bar's note: `Σ 468 tok · serve 586` (the catalog's sum, and what the one tool
    /// of `mcpdeck serve` costs instead).
    pub fn summary(&self) -> String {
        format!("Σ {} tok · serve {}", self.total, self.proxy_tool)
    }
}

fn costs_of(result: &OpResult) -> Option<ToolCosts> {
    let OpResult::Costs(cost) = result else {
        return None;
    };
    let mut by_name = HashMap::with_capacity(cost.tools.len());
    for tool in &cost.tools {
        by_name
            .entry(crate::mcp::sanitize::sanitize_capped(&tool.name, 256))
            .or_insert(tool.tokens);
    }
    Some(ToolCosts {
        by_name,
        total: cost.total,
        proxy_tool: cost.proxy_tool,
        tokenizer: crate::mcp::sanitize::sanitize_capped(&cost.tokenizer, 64),
    })
}

impl App {
    /// Asks for `server`'s tool costs once its tool list is in (and not already asked).
    pub(super) fn ask_costs(&mut self, server: &str) -> Vec<Effect> {
        let waiter = Waiter::Costs(server.to_owned());
        self.ask_after_catalog(server, |t| &mut t.costs, waiter, |_| OperatorOp::ToolCosts)
    }

    /// The costs arrived (dropped when the tab forgot its catalog meanwhile).
    pub(super) fn on_costs(&mut self, server: &str, id: ReqId, outcome: &Outcome) {
        self.settle_after_catalog(server, |t| &mut t.costs, id, outcome, costs_of);
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use crate::app::testkit::{demo_app, key, ok, tools_result};
    use crate::app::{Effect, Load};
    use crate::mcp::engine::{EngineRequest, OperatorOp};

    #[test]
    fn a_tool_list_asks_once_for_its_costs_and_the_list_shows_them() {
        let (mut app, _d) = demo_app();
        let fx = app.update(key(KeyCode::Enter));
        let Some(list_id) = fx.iter().find_map(|e| match e {
            Effect::Engine {
                id,
                request: EngineRequest::Agent(_),
                ..
            } => Some(*id),
            _ => None,
        }) else {
            panic!("{fx:?}");
        };
        let fx = app.update(ok(list_id, "tools.list", tools_result()));
        let asks: Vec<u64> = fx
            .iter()
            .filter_map(|e| match e {
                Effect::Engine {
                    id,
                    request:
                        EngineRequest::Operator {
                            server,
                            op: OperatorOp::ToolCosts,
                        },
                } if server == "demo" => Some(*id),
                _ => None,
            })
            .collect();
        let [cost_id] = asks[..] else {
            panic!("one tools.cost request: {fx:?}");
        };
        assert!(app.ask_costs("demo").is_empty(), "asked once");
        app.size = (100, 24);
        let before = crate::ui::tests::draw(&app, 100, 24);
        assert!(!before.contains(" tok "), "{before}");
        app.update(ok(
            cost_id,
            "tools.cost",
            serde_json::json!({"tokenizer": "o200k_base", "total": 301, "proxyTool": 586,
                "tools": [{"name": "echo", "tokens": 67}, {"name": "long_task", "tokens": 234}]}),
        ));
        let pane = app.pane().expect("pane");
        let Some(Load::Ready(costs)) = &pane.tools.costs else {
            panic!("{:?}", pane.tools.costs);
        };
        assert_eq!(costs.by_name.get("long_task"), Some(&234));
        let screen = crate::ui::tests::draw(&app, 100, 24);
        assert!(screen.contains("  67 tok  Echo the given text"), "{screen}");
        assert!(screen.contains(" 234 tok  Run a slow task."), "{screen}");
        assert!(
            screen.contains("Config   Σ 301 tok · serve 586"),
            "{screen}"
        );
    }
}
