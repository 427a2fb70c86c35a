//! Draws the layer stack (`app::layers`) back to front, so what takes the keys is what is drawn
//! on top; the footer shows the hints of the layer in front.

use ratatui::Frame;

use crate::app::App;
use crate::app::keymap::Ctx;
use crate::app::layers::Layer;
use crate::app::layout::Areas;
use crate::app::server_asks::ServerAsk;

/// Draws every open layer, the panes first.
pub fn render(app: &App, frame: &mut Frame, a: &Areas) {
    for layer in app.layers().into_iter().rev() {
        draw(app, layer, frame, a);
    }
}

/// Draws one layer.
fn draw(app: &App, layer: Layer, frame: &mut Frame, a: &Areas) {
    match layer {
        Layer::Panes => super::render_panes(app, frame, a),
        // Tiled beside the main pane and drawn with the panes; its border shows the focus.
        Layer::Side => {}
        Layer::Overlay => super::overlays::render(app, frame, a),
        Layer::Roots => {
            if let Some(view) = &app.session.roots {
                super::roots_view::render(app, view, frame, a.big);
            }
        }
        Layer::Tasks => {
            if let Some(view) = &app.tasks_view {
                super::tasks_view::render(app, view, frame, a.big);
            }
        }
        Layer::KeyHelp => super::key_help::render(app, frame, a.big),
        Layer::Ask => match app.asks.front() {
            Some(ServerAsk::Elicit(e)) => super::elicitation::render(app, e, frame, a.big),
            Some(ServerAsk::Sample(s)) => super::sampling::render(app, s, frame, a.big),
            None => {}
        },
        Layer::Approval => {
            if let Some(pending) = app.approvals.front() {
                super::approval::render(app, pending, frame, a);
            }
        }
    }
}

/// The footer's hints: those of the layer in front, in its contexts `contexts`.
pub(super) fn hints<'a>(app: &'a App, contexts: &[Ctx]) -> Vec<(String, &'a str)> {
    match (app.front(), app.approvals.front()) {
        (Layer::Approval, Some(p)) if p.viewer.is_none() => {
            super::approval::approval_hints(app, !super::approval::arguments_fit(app, p))
        }
        _ => app
            .query_hints()
            .unwrap_or_else(|| app.keymap.hints_where(contexts, |a| app.front_offers(a))),
    }
}

#[cfg(test)]
#[path = "layers_tests.rs"]
mod tests;
