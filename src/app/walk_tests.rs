//! What a newcomer's walk through the console found, each pinned by a test: the tools search
//! behaves like every other list's filter.

use crossterm::event::KeyCode;
use serde_json::json;

use super::testkit::{ch, key, ok};
use super::tests::{executes, with_tools};
use crate::mcp::proxy::ProxyRequest;

#[test]
fn enter_in_the_tools_search_opens_the_highlighted_match() {
    let (mut app, _d) = with_tools();
    app.update(ch('/'));
    app.update(ch('l'));
    let fx = app.update(ch('o'));
    let [(id, ProxyRequest::ToolsSearch { .. })] = &executes(&fx)[..] else {
        panic!("{fx:?}");
    };
    let matches = json!({"query": "lo", "matches": [
        {"tool": {"name": "long_task", "description": "", "required": []}, "rank": "NamePrefix"}
    ]});
    app.update(ok(*id, "tools.search", matches));
    let fx = app.update(key(KeyCode::Enter));
    let [(_, ProxyRequest::ToolsDescribe { tool, .. })] = &executes(&fx)[..] else {
        panic!("Enter asks for the highlighted tool's detail: {fx:?}");
    };
    assert_eq!(tool, "long_task");
}
