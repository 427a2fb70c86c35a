//! The headless CLI's approver: in enforce mode, asks on the controlling terminal
//! (`/dev/tty`, so it works with stdout piped) — `y` allows once, `s` allows for this session,
//! anything else denies. Without a terminal there is no approver and approvals fail closed.

use std::io::{BufRead as _, Write as _};

use tokio::sync::oneshot;

use crate::mcp::policy::{ApprovalRequest, Approver, Decision};

/// Asks on the controlling terminal.
pub struct TtyApprover;

impl TtyApprover {
    /// An approver when a controlling terminal can be opened for reading and writing.
    pub fn open() -> Option<Self> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()
            .map(|_| Self)
    }
}

impl Approver for TtyApprover {
    fn ask(&self, request: ApprovalRequest) -> oneshot::Receiver<Decision> {
        let (tx, rx) = oneshot::channel();
        std::thread::spawn(move || {
            let _ = tx.send(prompt(&request).unwrap_or(Decision::Deny));
        });
        rx
    }
}

fn prompt(request: &ApprovalRequest) -> std::io::Result<Decision> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    write!(
        out,
        "mcpdeck: {}\n  [y] once  [s] for this session  [anything else] deny: ",
        super::approval_text::describe(request, None)
    )?;
    out.flush()?;
    let mut answer = String::new();
    std::io::BufReader::new(tty).read_line(&mut answer)?;
    Ok(match answer.trim() {
        "y" | "Y" | "yes" => Decision::AllowOnce,
        "s" | "S" | "session" => Decision::AllowSession,
        _ => Decision::Deny,
    })
}
