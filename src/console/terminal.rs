//! Owning the terminal: raw mode, the alternate screen, bracketed paste and mouse capture, and
//! putting all of it back on every exit path. [`TerminalGuard`] restores on drop (normal exit,
//! `?` errors, unwinding); [`install_panic_hook`] restores before the panic message prints and
//! chains the engine's emergency cleanup (children killed, spills removed).

use std::io::{Stdout, Write as _};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The console's terminal.
pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Restores the terminal when dropped.
pub struct TerminalGuard {
    /// The terminal to draw on.
    pub terminal: Term,
}

impl TerminalGuard {
    /// Enters raw mode and the alternate screen.
    pub fn enter() -> std::io::Result<Self> {
        enable_raw_mode()?;
        let mut stdout = std::io::stdout();
        if let Err(e) = execute!(
            stdout,
            EnterAlternateScreen,
            EnableBracketedPaste,
            EnableMouseCapture,
            cursor::Hide
        ) {
            restore();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(stdout)) {
            Ok(terminal) => Ok(Self { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back. Idempotent; errors are ignored because there is nothing better to
/// do on an exit path.
pub fn restore() {
    let mut stdout = std::io::stdout();
    let _ = execute!(
        stdout,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = stdout.flush();
}

/// Ctrl-Z: restores the terminal, stops this process with `SIGTSTP` (the shell's job control
/// takes over), and when continued sets the terminal up again and forces a full redraw.
pub fn suspend(guard: &mut TerminalGuard) -> std::io::Result<()> {
    restore();
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::TSTP);
    // Execution continues here after SIGCONT.
    enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableMouseCapture,
        cursor::Hide
    )?;
    guard.terminal.clear()
}

/// Chains terminal restoration in front of the engine's panic hook.
pub fn install_panic_hook() {
    crate::mcp::engine::cleanup::install_panic_hook();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}
