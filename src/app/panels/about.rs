//! The about panel (`i` on a server): what is known about the selected server, its row's facts
//! one per line (bound in `assets/keymap.toml`).

use super::{Content, PanelSpec};
use crate::app::App;
use crate::app::keymap::Ctx;

/// The about panel.
pub const PANEL: PanelSpec = PanelSpec {
    name: "about",
    keys: (Ctx::Servers, &[], "about this server"),
    content,
};

fn content(app: &App) -> Option<Content> {
    let row = app.server()?;
    let [tools, resources, prompts] = row
        .counts
        .map(|c| c.map_or("?".to_owned(), |n| n.to_string()));
    let mut out = vec![
        ("state", row.state.label().to_owned()),
        ("transport", row.transport.clone()),
        ("defined", row.layer.clone()),
        (
            "lists",
            format!("{tools} tools · {resources} resources · {prompts} prompts"),
        ),
    ];
    out.extend(row.info.clone().map(|i| ("server", i)));
    out.extend(row.sandbox.clone().map(|s| ("sandbox", s)));
    out.extend(row.roots.clone().map(|r| ("roots", r)));
    if let Some((class, message)) = &row.error {
        let message = app.failure_words(Some(&row.name), class, message);
        out.push(("last error", format!("{class}: {message}")));
    }
    Some((format!("About {}", row.name), out))
}
