//! The Log tab: a server's notifications and traffic, newest last, its stdio stderr, and which
//! of them are shown. Drawn by `ui::log_tab`.

use std::collections::VecDeque;
use std::time::Instant;

use super::Effect;
use super::tabs::{ListState, TabMsg};

/// Which lines the Log tab shows (`v` cycles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LogFilter {
    /// Everything.
    #[default]
    All,
    /// JSON-RPC traffic only.
    Traffic,
    /// Notifications only (progress, logging, list changes, exits).
    Events,
}

impl LogFilter {
    /// The next filter in the cycle.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::All => Self::Traffic,
            Self::Traffic => Self::Events,
            Self::Events => Self::All,
        }
    }

    /// The filter's name.
    pub fn label(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Traffic => "traffic",
            Self::Events => "notifications",
        }
    }
}

/// The Log tab: notifications and traffic, newest last, and the stdio server's stderr.
#[derive(Debug, Default)]
pub struct LogTab {
    /// Notifications and traffic, newest last (bounded by the app).
    pub lines: VecDeque<LogLine>,
    /// Which lines are shown.
    pub shown: LogFilter,
    /// The stdio server's kept stderr, sanitised lines (refreshed while the Log tab shows).
    pub stderr: Vec<String>,
    /// When the stderr was last asked for.
    pub stderr_asked: Option<Instant>,
    /// Selection (counted back from the newest line) and filter.
    pub list: ListState,
}

impl LogTab {
    /// Handles one message.
    pub fn update(&mut self, msg: TabMsg) -> Vec<Effect> {
        match msg {
            TabMsg::Show { server, now, .. } => {
                self.stderr_asked = Some(now);
                vec![Effect::ReadStderr(server)]
            }
            msg => self.list.update(msg, true),
        }
    }

    /// The next view of the log (all, traffic, notifications); returns its name.
    pub fn cycle(&mut self) -> &'static str {
        self.shown = self.shown.next();
        self.list.sel = 0;
        self.shown.label()
    }

    /// The lines shown, oldest first.
    pub fn visible(&self) -> Vec<&LogLine> {
        self.lines
            .iter()
            .filter(|l| match self.shown {
                LogFilter::All => true,
                LogFilter::Traffic => l.body.is_some(),
                LogFilter::Events => l.body.is_none(),
            })
            .filter(|l| self.list.keeps(l.kind, &l.text))
            .collect()
    }
}

/// One log line of a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// What kind of event.
    pub kind: &'static str,
    /// The text, sanitised.
    pub text: String,
    /// The message body for traffic lines (sanitised JSON, secrets redacted, capped).
    pub body: Option<String>,
    /// A server log message's logger (sanitised; its text starts with it).
    pub logger: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::QueryKey;

    #[test]
    fn the_log_tab_moves_back_in_time_and_filters_by_typing() {
        let mut log = LogTab::default();
        log.update(TabMsg::Move(-1));
        assert_eq!(log.list.sel, 1, "up goes back from the newest line");
        log.update(TabMsg::StartFilter);
        assert_eq!(log.list.sel, 0);
        log.update(TabMsg::FilterKey(QueryKey::Type('x')));
        assert_eq!(
            log.list.filter.as_ref().map(|f| f.query.as_str()),
            Some("x")
        );
        log.update(TabMsg::FilterKey(QueryKey::Move(-1)));
        assert_eq!(log.list.sel, 1);
        log.update(TabMsg::FilterKey(QueryKey::Clear));
        assert_eq!(log.list.filter, None);
    }
}
