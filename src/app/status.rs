//! The status line's text, and the layout it leaves: a long status line wraps onto up to three
//! rows, and every page size and hit test is taken from the same layout the drawing uses.

use super::App;
use super::layout::{self, Areas};

impl App {
    /// The status line: the policy mode, the spill count, pending approvals and the latest
    /// message, in that order.
    pub fn status_text(&self) -> String {
        let mut parts = vec![
            format!("mode {}", self.policy),
            count(self.spills.len(), "spill", "spills"),
        ];
        if !self.approvals.is_empty() {
            let approvals = count(self.approvals.len(), "approval", "approvals");
            parts.push(format!("{approvals} pending"));
        }
        if let Some(m) = &self.message {
            parts.push(m.clone());
        }
        format!(" {}", parts.join(" · "))
    }

    /// The console's regions for a terminal of `size`, with the status line as tall as its text.
    pub fn areas_for(&self, size: (u16, u16)) -> Areas {
        let rows = layout::status_rows(&self.status_text(), size.0);
        layout::areas_with_status(size, self.side_panel, rows)
    }

    /// The console's regions at the current terminal size.
    pub fn areas(&self) -> Areas {
        self.areas_for(self.size)
    }
}

/// `n` with the word for one or for many: `1 spill`, `2 spills`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
